/* gst-gpufft: the plugin's workers, one bounded pool of threads shared by
 * every element of the process for the work that must not run on a
 * streaming thread: opening a device (gstgpufftdevice.h), making a plan and
 * the spectrogram's renderer (gstgpufftplanjob.h), making gpuloudness's
 * kernels.
 *
 * Bounds: at most GST_GPU_FFT_WORKERS_MAX (4) threads in the process,
 * started as work comes and ended after GST_GPU_FFT_WORKERS_IDLE_MS
 * (2 s) without work; at most GST_GPU_FFT_WORKERS_MAX_QUEUED (4096) pieces
 * of work waiting for a thread, a push beyond that fails (as a push does
 * when no thread can be started and none runs). Work starts in the order
 * it was pushed.
 *
 * A piece of work never waits for another one (four that did would wait
 * for ever): work that needs a device is pushed once the device's opening
 * is done (gst_gpu_fft_device_when_open), not before. Work given up
 * before it starts is skipped by its own function (a flag its owner sets
 * and the function reads first), which then returns at once: a queue of
 * given-up work drains in no time.
 *
 * Functions run with no lock of the pool held; gst_gpu_fft_workers_push()
 * may be called from any thread, a worker's included. No GStreamer type
 * is used. */
#ifndef __GST_GPU_FFT_WORKERS_H__
#define __GST_GPU_FFT_WORKERS_H__

#include <glib.h>

G_BEGIN_DECLS

#define GST_GPU_FFT_WORKERS_MAX 4
#define GST_GPU_FFT_WORKERS_IDLE_MS 2000
#define GST_GPU_FFT_WORKERS_MAX_QUEUED 4096

typedef void (*GstGpuFftWorkFunc) (gpointer data);

/* Queues func (data) for a worker. TRUE: it will run, once. FALSE (error
 * set): it will not (the queue is full, or no thread could be started and
 * none runs). */
gboolean gst_gpu_fft_workers_push (GstGpuFftWorkFunc func, gpointer data,
    GError ** error);

G_END_DECLS

#endif /* __GST_GPU_FFT_WORKERS_H__ */
