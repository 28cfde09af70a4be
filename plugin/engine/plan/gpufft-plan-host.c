/* The host backend of a plan (gpufft_plan_new_host(), gpufft.h): the
 * public plan functions' work handed to a GpufftHostPlan (host/: the
 * analysis in C on the CPU, its own worker thread). The GpufftPlan holds
 * only the checked configuration and the batch limits (gpufft-plan.c sizes
 * it as a device plan on a device without limits of its own).
 *
 * Threading: as the public functions (gpufft.h); the host plan's own (see
 * gpufft-host-plan.h). */
#include <string.h>

#include "gpufft-plan-private.h"
#include "gpufft-host-plan.h"

/* (a host plan copies every segment: the segments are released once its
 * submit returns) */
static gboolean
host_submit (GpufftPlan * plan, const GpufftBatch * batch, gsize span,
    GError ** error)
{
  gboolean ok = gpufft_host_plan_submit (plan->host_plan, batch, span, error);

  gpufft_plan_release_segments (batch);
  return ok;
}

/* (a host plan's waits are for its own thread, never the device's) */
static void
host_set_cancel (GpufftPlan * plan, const gint * cancel)
{
}

static void
host_set_result_func (GpufftPlan * plan, GpufftResultFunc func,
    gpointer user_data)
{
  gpufft_host_plan_set_result_func (plan->host_plan, func, user_data);
}

static void
host_set_tag_free (GpufftPlan * plan, GDestroyNotify tag_free)
{
  gpufft_host_plan_set_tag_free (plan->host_plan, tag_free);
}

static gint
host_collect (GpufftPlan * plan, gboolean wait, GpufftResultFunc func,
    gpointer user_data, GError ** error)
{
  return gpufft_host_plan_collect (plan->host_plan, wait, func, user_data);
}

static guint
host_in_flight (GpufftPlan * plan)
{
  return gpufft_host_plan_in_flight (plan->host_plan);
}

/* (no device, no timestamps) */
static void
host_get_timings (GpufftPlan * plan, GpufftTimings * timings)
{
  memset (timings, 0, sizeof (*timings));
}

static gboolean
host_rerun (GpufftPlan * plan, guint repeats, GError ** error)
{
  g_set_error (error, GPUFFT_ERROR, GPUFFT_ERROR_UNSUPPORTED,
      "a host plan runs no kernels to run again");
  return FALSE;
}

/* (on the host plan's worker thread: returns at once, the worker frees the
 * host plan) */
static void
host_free (GpufftPlan * plan)
{
  gpufft_host_plan_free (plan->host_plan);
  g_free (plan);
}

const GpufftPlanOps gpufft_plan_host_ops = {
  host_submit,
  host_set_cancel,
  host_set_result_func,
  host_set_tag_free,
  host_collect,
  host_in_flight,
  host_get_timings,
  host_rerun,
  host_free,
};

gboolean
gpufft_plan_host_init (GpufftPlan * plan, GError ** error)
{
  plan->n_slots = GPUFFT_HOST_PLAN_SLOTS;
  /* (copies the arrays, which the plan's configuration then drops as a
   * device plan's does) */
  plan->host_plan = gpufft_host_plan_new (&plan->cfg, plan->max_frames,
      plan->max_groups, error);
  if (!plan->host_plan)
    return FALSE;
  plan->ops = &gpufft_plan_host_ops;
  plan->cfg.bin_gain = plan->cfg.level_weights = NULL;
  plan->cfg.band_first = plan->cfg.band_bins = NULL;
  plan->cfg.band_weights = NULL;
  return TRUE;
}
