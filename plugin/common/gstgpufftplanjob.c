/* A plan (and renderer) made on the plugin's workers: see
 * gstgpufftplanjob.h. */
#include <string.h>

#include "gstgpufftplanjob.h"

struct _GstGpuFftPlanJob
{
  gint ref_count;               /* atomic: its work's and the owner's */
  GstGpuFftDevice *device;
  GpufftPlanConfig config;
  GstGpuFftAnalysisTables tables;
  gboolean want_render;
  GpufftRenderConfig render_config;     /* its map: a copy the job owns */
  gboolean device_failed;       /* (written by its work before done) */

  GMutex lock;
  GCond cond;
  /* --- under lock --- */
  gboolean started;             /* its work began making the plan */
  gboolean done;
  GpufftPlan *plan;
  GpufftRender *render;
  GError *error;
};

static void
job_unref (GstGpuFftPlanJob * job)
{
  if (!g_atomic_int_dec_and_test (&job->ref_count))
    return;
  if (job->plan)
    gpufft_plan_free (job->plan);
  if (job->render)
    gpufft_render_free (job->render);
  g_free ((gpointer) job->render_config.map);
  g_clear_error (&job->error);
  gst_gpu_fft_analysis_tables_clear (&job->tables);
  g_clear_pointer (&job->device, gst_gpu_fft_device_unref);
  g_mutex_clear (&job->lock);
  g_cond_clear (&job->cond);
  g_free (job);
}

/* (a worker, once the device's opening is done or the device closed) */
static void
job_work (gpointer data)
{
  GstGpuFftPlanJob *job = data;
  GError *error = NULL;
  GpufftContext *ctx;
  GpufftPlan *plan = NULL;
  GpufftRender *render = NULL;

  g_mutex_lock (&job->lock);
  if (job->done) {
    /* given up before it began: skipped */
    g_mutex_unlock (&job->lock);
    job_unref (job);
    return;
  }
  job->started = TRUE;
  g_mutex_unlock (&job->lock);
  ctx = gst_gpu_fft_device_wait (job->device, NULL);
  if (ctx == NULL) {
    if (!gst_gpu_fft_device_failed (job->device, &error) || error == NULL)
      g_set_error (&error, GPUFFT_ERROR, GPUFFT_ERROR_FAILED,
          "no Vulkan device");
    job->device_failed = TRUE;
  } else {
    plan = gpufft_plan_new (ctx, &job->config, &error);
  }
  if (plan && job->want_render) {
    render = gpufft_render_new (ctx, &job->render_config, &error);
    if (render == NULL)
      g_clear_pointer (&plan, gpufft_plan_free);
  }

  /* (the plan holds its own reference on the context: a last one dropped
   * here is dropped before the owner can see the job done, so that an
   * owner that waits for it waits for the device's release too) */
  g_clear_pointer (&job->device, gst_gpu_fft_device_unref);
  g_mutex_lock (&job->lock);
  job->plan = plan;
  job->render = render;
  job->error = error;
  job->done = TRUE;
  g_cond_signal (&job->cond);
  g_mutex_unlock (&job->lock);
  /* (an abandoned job's plan goes with the last reference) */
  job_unref (job);
}

GstGpuFftPlanJob *
gst_gpu_fft_plan_job_start (GstGpuFftDevice * device,
    const GpufftPlanConfig * config, GstGpuFftAnalysisTables * tables,
    const GpufftRenderConfig * render, GError ** error)
{
  GstGpuFftPlanJob *job = g_new0 (GstGpuFftPlanJob, 1);

  job->ref_count = 2;
  job->device = gst_gpu_fft_device_ref (device);
  job->config = *config;
  job->tables = *tables;
  memset (tables, 0, sizeof (*tables));
  if (render) {
    job->want_render = TRUE;
    job->render_config = *render;
    job->render_config.map = g_memdup2 (render->map,
        (gsize) (render->wf_h + render->sp_w) * sizeof (GpufftRenderMap));
  }
  g_mutex_init (&job->lock);
  g_cond_init (&job->cond);
  /* (no thread held while the device opens: the opening pushes it) */
  if (!gst_gpu_fft_device_when_open (device, job_work, job, error)) {
    *tables = job->tables;
    memset (&job->tables, 0, sizeof (job->tables));
    job->ref_count = 1;
    job_unref (job);
    return NULL;
  }
  return job;
}

gboolean
gst_gpu_fft_plan_job_finish (GstGpuFftPlanJob * job, gboolean wait,
    const gint * cancel, GpufftPlan ** plan, GpufftRender ** render,
    GstGpuFftAnalysisTables * tables, gboolean * device_failed, GError ** error)
{
  g_mutex_lock (&job->lock);
  /* (the cancel flag is the owner's: looked at every 20 ms) */
  while (wait && !job->done && !(cancel && g_atomic_int_get (cancel)))
    g_cond_wait_until (&job->cond, &job->lock, g_get_monotonic_time () +
        20 * G_TIME_SPAN_MILLISECOND);
  if (!job->done) {
    g_mutex_unlock (&job->lock);
    return FALSE;
  }
  *plan = job->plan;
  job->plan = NULL;
  if (device_failed)
    *device_failed = job->device_failed;
  if (render) {
    *render = job->render;
    job->render = NULL;
  }
  if (job->error)
    g_propagate_error (error, job->error);
  job->error = NULL;
  g_mutex_unlock (&job->lock);
  *tables = job->tables;
  memset (&job->tables, 0, sizeof (job->tables));
  job_unref (job);
  return TRUE;
}

/* Finishes a job that is done (wait: once it is), freeing what it made
 * and its tables. FALSE when it is still running. */
static gboolean
job_drop (GstGpuFftPlanJob * job, gboolean wait)
{
  GpufftPlan *plan = NULL;
  GpufftRender *render = NULL;
  GstGpuFftAnalysisTables tables;

  if (!gst_gpu_fft_plan_job_finish (job, wait, NULL, &plan, &render, &tables,
          NULL, NULL))
    return FALSE;
  if (plan)
    gpufft_plan_free (plan);
  if (render)
    gpufft_render_free (render);
  gst_gpu_fft_analysis_tables_clear (&tables);
  return TRUE;
}

void
gst_gpu_fft_plan_job_abandon (GstGpuFftPlanJob * job, GPtrArray * given_up)
{
  /* (one that has not begun never will: done now, with nothing made) */
  g_mutex_lock (&job->lock);
  if (!job->started && !job->done) {
    job->done = TRUE;
    g_cond_signal (&job->cond);
  }
  g_mutex_unlock (&job->lock);
  g_ptr_array_add (given_up, job);
  gst_gpu_fft_plan_job_prune (given_up);
}

void
gst_gpu_fft_plan_job_prune (GPtrArray * given_up)
{
  guint i = 0;

  while (i < given_up->len) {
    if (job_drop (g_ptr_array_index (given_up, i), FALSE))
      g_ptr_array_remove_index_fast (given_up, i);
    else
      i++;
  }
}

gboolean
gst_gpu_fft_plan_job_wait_given_up (GPtrArray * given_up, guint timeout_ms)
{
  while (given_up->len > 0) {
    job_drop (g_ptr_array_index (given_up, given_up->len - 1), TRUE);
    g_ptr_array_set_size (given_up, given_up->len - 1);
  }
  return gpufft_wait_released (timeout_ms);
}
