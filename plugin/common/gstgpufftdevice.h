/* gst-gpufft: an element opens its engine device beside its stream.
 *
 * Opening a Vulkan device takes tens to hundreds of milliseconds, mostly
 * in the driver's vkCreateInstance and vkCreateDevice (figures:
 * docs/performance.md). An element starts the opening
 * (at READY->PAUSED, or where its first plan needs a device) and goes on at
 * once, so that its first buffer is never held by it; the work that needs
 * the device (the plan job, gstgpufftplanjob.h) is pushed to the plugin's
 * workers once it is open (gst_gpu_fft_device_when_open), and holds no
 * thread meanwhile.
 *
 * Threads: the opening runs on the plugin's bounded pool of workers
 * (gstgpufftworkers.h), one opening per device-index at a time in the
 * process: an element that asks for a device-index being opened already
 * joins that opening (each element keeps a GstGpuFftDevice of its own,
 * and gets its own reference on the context). An opening whose elements
 * all closed before it started is skipped.
 *
 * gst_gpu_fft_device_open() starts the opening of device-index `index`
 * (-1: automatic, gpufft_context_get()); it fails only when the opening
 * cannot be queued (it posts RESOURCE FAILED then). When the opening
 * fails the worker posts, for each element, the element error that says
 * why (RESOURCE NOT_FOUND when there is no Vulkan loader, no device, no
 * such index or no compute queue; RESOURCE FAILED otherwise); when it
 * succeeds it calls each element's `opened` (on that worker, no lock of
 * the opening held) so that the element can show the device's name.
 * Both run with a reference on the element. Neither happens once the
 * element has called gst_gpu_fft_device_close() (its stop), which waits
 * for the driver's calls of the opening while they run (they cannot be
 * cut short: an application that stops its pipeline and exits at once
 * must not exit under them; at most the opening's time, on the thread
 * that stops the element), never for the callbacks (an application's
 * handler there may stop the pipeline, on that thread or another). Both
 * happen before the element's opening counts as done: whoever waits for
 * it and then fails a buffer does so after the error is on the bus.
 *
 * A GstGpuFftDevice is shared by reference (the element, its plan jobs);
 * the context it opened is released with its last reference. All
 * functions may be called from any thread. No lock of the element is
 * taken. */
#ifndef __GST_GPU_FFT_DEVICE_H__
#define __GST_GPU_FFT_DEVICE_H__

#include <gst/gst.h>

#include "gpufft.h"
#include "gstgpufftworkers.h"

G_BEGIN_DECLS

typedef struct _GstGpuFftDevice GstGpuFftDevice;

typedef void (*GstGpuFftDeviceOpened) (GstElement * element,
    GpufftContext * ctx);

GstGpuFftDevice *gst_gpu_fft_device_open (GstElement * element, gint index,
    GstGpuFftDeviceOpened opened);

/* The context once the opening is done: NULL when it failed (its error is
 * posted) or, while it is still being opened, when the element closed it,
 * when *cancel (when not NULL; looked at every 20 ms) is non-zero, or when
 * the caller is a worker that is calling back for an opening (`opened`,
 * or a synchronous bus handler of its error). Borrowed: valid while the caller holds its
 * reference on dev. */
GpufftContext *gst_gpu_fft_device_wait (GstGpuFftDevice * dev,
    const gint * cancel);

/* The context if it is open, else NULL (borrowed, as above). */
GpufftContext *gst_gpu_fft_device_peek (GstGpuFftDevice * dev);

/* TRUE once the opening has failed (its error is posted); a copy of the
 * error when error is not NULL. */
gboolean gst_gpu_fft_device_failed (GstGpuFftDevice * dev, GError ** error);

/* Runs func (data) on the plugin's workers (gstgpufftworkers.h) once the
 * opening is done or dev is closed: pushed now when it is already, else
 * by the opening's worker (or the close). Meanwhile it holds no thread. The
 * caller keeps what data needs alive until func ran (func may run on the
 * thread that completes the opening or closes dev, should no worker take
 * it then). FALSE (error set) when it was to be pushed now and could not
 * be: it will not run. */
gboolean gst_gpu_fft_device_when_open (GstGpuFftDevice * dev,
    GstGpuFftWorkFunc func, gpointer data, GError ** error);

/* The element stops, and drops its reference (NULL does nothing): the
 * opening, if not done, neither posts nor calls `opened` for it, waiters
 * of gst_gpu_fft_device_wait() return, work waiting in
 * gst_gpu_fft_device_when_open() is pushed, and this waits for the
 * driver's calls of the opening while they run (never for the callbacks:
 * an application's handler there may stop the pipeline, on that thread or
 * another). The element calls it before it goes (stop, finalize). */
void gst_gpu_fft_device_close (GstGpuFftDevice * dev);

/* TRUE once an element of the process has opened a device
 * (the process then keeps a Vulkan instance, and a GPU driver its own
 * threads, for good: gpufft-instance.c). */
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
