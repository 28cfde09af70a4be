/* gpufftspectrum: spectrum analyser on a Vulkan device (see the .c file).
 * What the plugin needs to register it; the instance is private to
 * gstgpufftspectrum.c. */
#ifndef __GST_GPU_FFT_SPECTRUM_H__
#define __GST_GPU_FFT_SPECTRUM_H__

#include <gst/gst.h>

G_BEGIN_DECLS

typedef struct _GstGpuFftSpectrum GstGpuFftSpectrum;

#define GST_TYPE_GPU_FFT_SPECTRUM (gst_gpu_fft_spectrum_get_type ())
GType gst_gpu_fft_spectrum_get_type (void);

GST_ELEMENT_REGISTER_DECLARE (gpufftspectrum);

G_END_DECLS

#endif /* __GST_GPU_FFT_SPECTRUM_H__ */
