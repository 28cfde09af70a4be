/* The elements: a plan (and the spectrogram's renderer) made on the
 * plugin's bounded pool of workers (gstgpufftworkers.h: at most
 * GST_GPU_FFT_WORKERS_MAX threads in the process), so that the streaming
 * thread never waits for the driver's compiler (gpufft_plan_new() and
 * gpufft_render_new() may compile and warm up pipelines: seconds on a CPU
 * device with a cold shader cache), nor for the device's opening
 * (gstgpufftdevice.h): the job is queued for a worker once the device is
 * open (gst_gpu_fft_device_when_open), and holds no thread before.
 *
 * The streaming thread starts a job with the plan's configuration and the
 * analysis tables its arrays point into (the job owns both until the plan
 * is made), and the renderer's configuration if it wants one (copied),
 * then polls it, or waits for it where ordering needs the plan (EOS, a
 * flush, a store that would outgrow its bound, the end of an interval of
 * a stream that is not live). The job's work only calls gpufft_plan_new()
 * and gpufft_render_new(): it takes no lock of the element and posts
 * nothing.
 * A job given up (stop, a new geometry) before its work began is done at
 * once, with nothing made: its work, when its turn comes, is skipped. One
 * given up later is kept by its owner, and freed with what it made at the
 * owner's next prune once it is done (its finalize waits for it). It uses
 * no GStreamer type but the element's device opening (gstgpufftdevice.h)
 * it waits for. */
#ifndef __GST_GPU_FFT_PLAN_JOB_H__
#define __GST_GPU_FFT_PLAN_JOB_H__

#include "gpufft.h"
#include "gpufft-render.h"
#include "gstgpufftanalysis.h"
#include "gstgpufftdevice.h"

G_BEGIN_DECLS

typedef struct _GstGpuFftPlanJob GstGpuFftPlanJob;

/* Starts making a plan on device's context once it is open (a reference
 * on device is taken), and after it a renderer when render is not NULL (the job copies it and its map).
 * config's arrays point into tables, which the job takes (the caller's are
 * emptied; on failure they stay the caller's). NULL with error set when the
 * workers could not take it (gstgpufftworkers.h). */
GstGpuFftPlanJob *gst_gpu_fft_plan_job_start (GstGpuFftDevice * device,
    const GpufftPlanConfig * config, GstGpuFftAnalysisTables * tables,
    const GpufftRenderConfig * render, GError ** error);

/* TRUE once the plan (and renderer) are made or failed. wait: blocks until
 * then, or until *cancel (when not NULL; set from any thread, read
 * atomically) is non-zero: a flush or a stop lets the streaming thread
 * go. On TRUE the job is finished: *plan is the plan (the caller owns
 * it; NULL when it or the renderer failed, error set), *render the
 * renderer when one was asked for (render may be NULL otherwise), *tables
 * the analysis tables (the caller clears them), *device_failed (when not
 * NULL) TRUE when the plan failed because the device could not be opened
 * (that error is posted already: gstgpufftdevice.h), and the job is
 * freed. */
gboolean gst_gpu_fft_plan_job_finish (GstGpuFftPlanJob * job, gboolean wait,
    const gint * cancel, GpufftPlan ** plan, GpufftRender ** render,
    GstGpuFftAnalysisTables * tables, gboolean * device_failed,
    GError ** error);

/* Gives the job up without waiting for it (one whose work has not begun
 * is cancelled: it is done at once): it joins given_up (an array the owner
 * keeps), whose jobs that are done are freed, their plans with them. */
void gst_gpu_fft_plan_job_abandon (GstGpuFftPlanJob * job,
    GPtrArray * given_up);

/* Frees the jobs of given_up that are done, their plans with them. */
void gst_gpu_fft_plan_job_prune (GPtrArray * given_up);

/* Waits for every job in given_up and frees them, their plans with them,
 * then waits (at most timeout_ms) for the engine's own releases
 * (gpufft_wait_released): an element's finalize, so that no thread keeps
 * using the device after the element (an application that stops its
 * pipeline from a synchronous bus handler and exits at once would tear
 * the driver down under that thread). FALSE when the time ran out. */
gboolean gst_gpu_fft_plan_job_wait_given_up (GPtrArray * given_up,
    guint timeout_ms);

G_END_DECLS

#endif /* __GST_GPU_FFT_PLAN_JOB_H__ */
