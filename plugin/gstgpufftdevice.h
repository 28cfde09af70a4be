/* gst-gpufft: an element opens its engine device on a thread of its own.
 *
 * Opening a Vulkan device takes 20 ms on lavapipe and 150 ms (0.6 s with
 * cold driver caches) on an NVIDIA GPU, mostly in the driver's
 * vkCreateInstance and vkCreateDevice. An element starts the opening
 * (at READY->PAUSED, or where its first plan needs a device) and goes on at
 * once, so that its first buffer is never held by it; the plan job
 * (gstgpufftplanjob.h) waits for the device on its own thread.
 *
 * gst_gpu_fft_device_open() starts the opening of device-index `index`
 * (-1: automatic, gpufft_context_get()); it fails only when no thread can
 * be started (it posts RESOURCE FAILED then). When the opening fails the thread posts the element error
 * that says why (RESOURCE NOT_FOUND when there is no Vulkan loader, no
 * device, no such index or no compute queue; RESOURCE FAILED otherwise);
 * when it succeeds it calls `opened` (on that thread, no lock of the
 * opening held) so that the element can show the device's name. Both run
 * with a reference on the element. Neither happens once the element has
 * called gst_gpu_fft_device_close() (its stop), which waits for the
 * thread to return unless it is in one of them (the driver's calls cannot
 * be cut short: an application that stops its pipeline and exits at once
 * must not exit under them; at most the opening's time, on the thread
 * that stops the element). Both happen before the opening counts as done:
 * whoever waits for it and then fails a buffer does so after the error is
 * on the bus.
 *
 * A GstGpuFftDevice is shared by reference (the element, its plan jobs);
 * the context it opened is released with its last reference. All
 * functions may be called from any thread. No lock of the element is
 * taken. */
#ifndef __GST_GPU_FFT_DEVICE_H__
#define __GST_GPU_FFT_DEVICE_H__

#include <gst/gst.h>

#include "gpufft.h"

G_BEGIN_DECLS

typedef struct _GstGpuFftDevice GstGpuFftDevice;

typedef void (*GstGpuFftDeviceOpened) (GstElement * element,
    GpufftContext * ctx);

GstGpuFftDevice *gst_gpu_fft_device_open (GstElement * element, gint index,
    GstGpuFftDeviceOpened opened);

/* The context once the opening is done: NULL when it failed (its error is
 * posted) or, while it is still being opened, when the element closed it,
 * when *cancel (when not NULL; looked at every 20 ms) is non-zero, or when
 * the caller is the opening's own thread (`opened`, or a synchronous bus
 * handler of its error). Borrowed: valid while the caller holds its
 * reference on dev. */
GpufftContext *gst_gpu_fft_device_wait (GstGpuFftDevice * dev,
    const gint * cancel);

/* The context if it is open, else NULL (borrowed, as above). */
GpufftContext *gst_gpu_fft_device_peek (GstGpuFftDevice * dev);

/* TRUE once the opening has failed (its error is posted); a copy of the
 * error when error is not NULL. */
gboolean gst_gpu_fft_device_failed (GstGpuFftDevice * dev, GError ** error);

/* The element stops, and drops its reference (NULL does nothing): the
 * opening, if still running, neither posts nor calls `opened`, waiters of
 * gst_gpu_fft_device_wait() return, and this waits for the thread to
 * return, except while the thread is in `opened` or posting (an
 * application's handler there may stop the pipeline, on that thread or
 * another). The element calls it before it goes (stop, finalize). */
void gst_gpu_fft_device_close (GstGpuFftDevice * dev);

/* TRUE once an element of the process has opened a device
 * (the process then keeps a Vulkan instance, and a GPU driver its own
 * threads, for good: gpufft-context.c). */
gboolean gst_gpu_fft_device_any_opened (void);

/* TRUE once an element of the process has opened a device that is not a
 * CPU device (gpufft_context_is_cpu): what a GPU costs whatever it does is
 * paid, and a live stream analysed on the host alone moves to it
 * (gstgpuffthostbudget.h). On a CPU device (lavapipe) the device's
 * analysis runs on the same cores as the host's, with more overhead: the
 * host-only streams stay. */
gboolean gst_gpu_fft_device_gpu_opened (void);

GstGpuFftDevice *gst_gpu_fft_device_ref (GstGpuFftDevice * dev);
void gst_gpu_fft_device_unref (GstGpuFftDevice * dev);

G_END_DECLS

#endif /* __GST_GPU_FFT_DEVICE_H__ */
