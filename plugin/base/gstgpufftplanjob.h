/* GstGpuFftBase: a plan made on a thread of its own, so that the streaming
 * thread never waits for the driver's compiler (gpufft_plan_new() may
 * compile and warm up pipelines: seconds on a CPU device with a cold
 * shader cache).
 *
 * The streaming thread starts a job with the plan's configuration and the
 * analysis tables its arrays point into (the job owns both until the plan
 * is made), then polls it, or waits for it where ordering needs the plan
 * (EOS, a flush, a store that would outgrow its bound). The job's thread
 * only calls gpufft_plan_new(): it takes no lock of the element and posts
 * nothing. A job given up (stop, a new geometry) frees its plan when it
 * is done. No GStreamer type. */
#ifndef __GST_GPU_FFT_PLAN_JOB_H__
#define __GST_GPU_FFT_PLAN_JOB_H__

#include "gpufft.h"
#include "gstgpufftanalysis.h"

G_BEGIN_DECLS

typedef struct _GstGpuFftPlanJob GstGpuFftPlanJob;

/* Starts making a plan on ctx (a reference is taken). config's arrays
 * point into tables, which the job takes (the caller's are emptied). NULL
 * with error set when no thread could be started. */
GstGpuFftPlanJob *gst_gpu_fft_plan_job_start (GpufftContext * ctx,
    const GpufftPlanConfig * config, GstGpuFftAnalysisTables * tables,
    GError ** error);

/* TRUE once the plan is made or failed. wait: blocks until then. On TRUE
 * the job is finished: *plan is the plan (the caller owns it, NULL when it
 * failed, error set), *tables the analysis tables (the caller clears
 * them), and the job is freed. */
gboolean gst_gpu_fft_plan_job_finish (GstGpuFftPlanJob * job, gboolean wait,
    GpufftPlan ** plan, GstGpuFftAnalysisTables * tables, GError ** error);

/* Gives the job up: its plan, once made, is freed on its thread. */
void gst_gpu_fft_plan_job_abandon (GstGpuFftPlanJob * job);

G_END_DECLS

#endif /* __GST_GPU_FFT_PLAN_JOB_H__ */
