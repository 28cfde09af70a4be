/* gst-gpufft: an element opens its engine device (any thread that may post
 * an element error: start / READY->PAUSED).
 *
 * gst_gpu_fft_device_open() returns the context for device-index `index`
 * (-1: automatic, gpufft_context_get()) with a reference the caller owns,
 * or NULL after posting the element error that says why: RESOURCE
 * NOT_FOUND when there is no Vulkan loader, no device, no such index or no
 * compute queue; RESOURCE FAILED otherwise. Takes no lock of the element. */
#ifndef __GST_GPU_FFT_DEVICE_H__
#define __GST_GPU_FFT_DEVICE_H__

#include <gst/gst.h>

#include "gpufft.h"

G_BEGIN_DECLS

GpufftContext *gst_gpu_fft_device_open (GstElement * element, gint index);

G_END_DECLS

#endif /* __GST_GPU_FFT_DEVICE_H__ */
