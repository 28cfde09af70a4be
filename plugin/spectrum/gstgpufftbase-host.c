/* GstGpuFftBase: the host handover. Streaming thread only: whether a
 * host plan (gpufft_plan_new_host: the same results, computed on the CPU
 * in double) analyses a stream's intervals while the device's plan is
 * being made (the host start), or a light live stream altogether (host
 * only, within the process's budget, gstgpuffthostbudget.h), and when such
 * a stream moves to the device. The plan itself is installed and waited
 * for by gstgpufftbase-plan.c. host_only, host_pending and host_points are
 * written under the object lock (the device-name property reads
 * host_only); the budget taken is given back by
 * gst_gpu_fft_base_host_only_end(). A stream that is not live starts on
 * a host plan for its first seconds (the host lead), with its device's
 * plan made beside it and taking over at a point of the stream, not of
 * the clock. Bounds: a host start takes on at most HOST_MAX_POINTS_PER_S
 * FFT points a second, HOST_MAX_BINS bins and HOST_MAX_SPAN_BYTES of one
 * batch's samples; a host lead at most LEAD_MAX_POINTS FFT points. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstgpufftbase-private.h"
#include "gstgpuffthostbudget.h"

#define GST_CAT_DEFAULT gst_gpu_fft_base_debug

/* FFT points a second of config's analysis */
static gdouble
points_per_s (const GpufftPlanConfig * c)
{
  guint64 out_ch = c->downmix ? 1 : c->channels;

  return (gdouble) out_ch *c->rate / c->hop * c->fft_size;
}


/* What a host start takes on at most: FFT points a second (a fraction of
 * one core: the host plan computes in one thread), bins of all output
 * channels (its tables hold a few doubles per bin), and bytes of one
 * batch's samples (it keeps 8 such slots). A bigger analysis waits for the
 * device's plan, as without the host start. */
#define HOST_MAX_POINTS_PER_S 67108864.0
#define HOST_MAX_BINS (1u << 22)
#define HOST_MAX_SPAN_BYTES (64u << 20)

static gboolean
host_start_affordable (GstGpuFftBase * self)
{
  const GpufftPlanConfig *c = &self->priv->plan_config;
  guint64 out_ch = c->downmix ? 1 : c->channels;
  guint64 span = (guint64) (MAX (c->max_frames, 1) - 1) * c->hop + c->fft_size;

  return points_per_s (c) <= HOST_MAX_POINTS_PER_S
      && out_ch * (c->fft_size / 2 + 1) <= HOST_MAX_BINS
      && span * GST_AUDIO_INFO_BPF (&self->priv->info) <= HOST_MAX_SPAN_BYTES;
}

/* The host start: where the device's plan is not made yet when a batch is
 * due, a host plan of the same configuration (gpufft_plan_new_host: the
 * same results, computed on the CPU in double) analyses the intervals,
 * and the device's plan takes over at the first batch that starts an
 * interval once it is made: the first messages come at once, whatever the
 * driver's compiler and the device's opening take. GPUFFT_HOST_START in
 * the environment: auto (the default: live streams; a stream that is not
 * live has the host lead below instead, whose switch is at a point of the
 * stream), on (every stream), off (none, and no host lead). */
static gboolean
host_start_allowed (GstGpuFftBase * self)
{
  const gchar *env = g_getenv ("GPUFFT_HOST_START");

  if (self->priv->host_refused)
    return FALSE;
  if (env && (g_str_equal (env, "off") || g_str_equal (env, "0")))
    return FALSE;
  if (!host_start_affordable (self)) {
    self->priv->host_refused = TRUE;
    GST_DEBUG_OBJECT (self, "no host start: the analysis is too big for "
        "the CPU");
    return FALSE;
  }
  return TRUE;
}

gboolean
gst_gpu_fft_base_host_start_wanted (GstGpuFftBase * self)
{
  const gchar *env = g_getenv ("GPUFFT_HOST_START");

  if (!host_start_allowed (self))
    return FALSE;
  if (env && (g_str_equal (env, "on") || g_str_equal (env, "1")))
    return TRUE;
  return self->priv->is_live > 0;
}

/* The host lead: a stream that is not live is analysed by a host plan
 * from its first interval, as a live stream's host start is, for its
 * first GPUFFT_HOST_LEAD seconds (LEAD_DEFAULT_S; 0: none): its device is
 * asked for only once the stream reaches a quarter of that, so that a
 * short file opens no device and compiles nothing (its messages come at
 * once, at the CPU cost of the analysis alone), and the device's plan
 * takes over at the first batch from the lead's end on, waited for there
 * if it is not made yet. Both points are samples of the stream, so the
 * same input gives the same messages, bit for bit, however long the
 * device takes. Not where the host start is off or refused
 * (GPUFFT_HOST_START=off, an analysis too big for the CPU), nor for the
 * averagings whose state outlasts an interval (the host plan refuses
 * them), nor for a lead of more than LEAD_MAX_POINTS FFT points: a big
 * analysis (many channels, small hops) starts on the device. A value of
 * GPUFFT_HOST_LEAD that is not a number of seconds from 0 to LEAD_MAX_S
 * gives the default, with one warning in the process. */
#define LEAD_DEFAULT_S 4.0
#define LEAD_MAX_S 3600.0
#define LEAD_MAX_POINTS 16777216.0

static gdouble
lead_seconds (void)
{
  static gint warned = 0;
  const gchar *env = g_getenv ("GPUFFT_HOST_LEAD");
  gchar *end = NULL;
  gdouble v;

  if (env == NULL || *env == '\0')
    return LEAD_DEFAULT_S;
  v = g_ascii_strtod (env, &end);
  if (end == env || *end != '\0' || !(v >= 0.0 && v <= LEAD_MAX_S)) {
    if (g_atomic_int_compare_and_exchange (&warned, 0, 1))
      g_warning ("GPUFFT_HOST_LEAD: not a number of seconds from 0 to %g; "
          "using %g", LEAD_MAX_S, LEAD_DEFAULT_S);
    return LEAD_DEFAULT_S;
  }
  return v;
}

void
gst_gpu_fft_base_host_lead_set (GstGpuFftBase * self, GstGpuFftLead lead)
{
  GST_OBJECT_LOCK (self);
  self->priv->host_lead = lead;
  GST_OBJECT_UNLOCK (self);
}

gboolean
gst_gpu_fft_base_host_lead_begin (GstGpuFftBase * self)
{
  const GpufftPlanConfig *c = &self->priv->plan_config;
  gdouble lead = lead_seconds ();
  gdouble rate = GST_AUDIO_INFO_RATE (&self->priv->info);

  gst_gpu_fft_base_host_lead_set (self, GST_GPU_FFT_LEAD_NONE);
  if (self->priv->is_live > 0 || lead <= 0.0 || rate <= 0.0
      || c->averaging == GPUFFT_AVERAGING_EXPONENTIAL
      || c->averaging == GPUFFT_AVERAGING_MAX_HOLD
      || !host_start_allowed (self))
    return FALSE;
  if (points_per_s (c) * lead > LEAD_MAX_POINTS) {
    GST_DEBUG_OBJECT (self, "no host lead: %.0f FFT points in %g s",
        points_per_s (c) * lead, lead);
    return FALSE;
  }
  self->priv->lead_open_at = (guint64) (lead / 4.0 * rate);
  self->priv->lead_switch_at = (guint64) (lead * rate);
  gst_gpu_fft_base_host_lead_set (self, GST_GPU_FFT_LEAD_ON);
  GST_DEBUG_OBJECT (self, "host lead: the device asked for at sample %"
      G_GUINT64_FORMAT ", its plan from sample %" G_GUINT64_FORMAT,
      self->priv->lead_open_at, self->priv->lead_switch_at);
  return TRUE;
}

/* Host only: a live stream that the host start would take, while no GPU
 * was ever opened in the process (gst_gpu_fft_device_gpu_opened: none
 * named by a device-index, none for another stream; a CPU device such as
 * lavapipe may be open) and the process's budget has room for it
 * (gstgpuffthostbudget.h, larger where the devices opened are CPU ones),
 * is analysed on the host alone: no plan job, no device; its host plan is
 * made when its first batch is due (plan_ready), and it stays until a GPU
 * is opened in the process, when the stream moves to it as after a host
 * start. TRUE when the stream is host-only now (self->priv->plan_config and
 * plan_analysis set). */
gboolean
gst_gpu_fft_base_host_only_begin (GstGpuFftBase * self)
{
  gdouble points = points_per_s (&self->priv->plan_config);
  gboolean taken = FALSE;

  /* (gpufft_plan_new_host refuses the averagings whose state lasts
   * beyond an interval) */
  if (self->priv->is_live <= 0 || !gst_gpu_fft_base_host_start_wanted (self)
      || self->priv->plan_config.averaging == GPUFFT_AVERAGING_EXPONENTIAL
      || self->priv->plan_config.averaging == GPUFFT_AVERAGING_MAX_HOLD)
    return FALSE;
  GST_OBJECT_LOCK (self);
  if (self->priv->device == NULL && !gst_gpu_fft_device_gpu_opened ()) {
    gboolean cpu_devices = gst_gpu_fft_device_any_opened ();

    if (gst_gpu_fft_host_budget_take (points, cpu_devices)) {
      self->priv->host_only = TRUE;
      self->priv->host_points = points;
      taken = TRUE;
    } else if (!cpu_devices) {
      /* beyond the budget, no device open yet: on the host while this
       * stream's device opens, then as its kind decides (gst_gpu_fft_base_host_only_moves) */
      self->priv->host_only = TRUE;
      self->priv->host_pending = TRUE;
      taken = TRUE;
    }
  }
  GST_OBJECT_UNLOCK (self);
  GST_DEBUG_OBJECT (self, "%s (%.0f FFT points a second)", !taken ?
      "not on the host alone: a GPU is open in the process, or its host "
      "budget is spent" : self->
      priv->host_pending ? "on the host while a device "
      "opens: beyond the host budget" : "analysed on the host alone", points);
  /* (where no thread can open the device, the error is posted: the stream
   * stays on the host meanwhile, pending) */
  if (self->priv->host_pending)
    gst_gpu_fft_base_plan_need_device (self);
  return taken;
}

/* TRUE where a host-only stream moves to the device: a GPU is open in the
 * process, or the stream took no budget (beyond it) and its device, now
 * open, is a CPU device whose budget has no room left. A pending stream
 * whose device is still opening (or failed to: its error posted) stays. */
gboolean
gst_gpu_fft_base_host_only_moves (GstGpuFftBase * self)
{
  gboolean resolved = FALSE, moves;

  if (self->priv->host_pending) {
    if (self->priv->device == NULL
        || gst_gpu_fft_device_peek (self->priv->device) == NULL)
      return FALSE;
    self->priv->host_pending = FALSE;
    if (!gst_gpu_fft_device_gpu_opened ()) {
      gdouble points = points_per_s (&self->priv->plan_config);

      if (gst_gpu_fft_host_budget_take (points, TRUE)) {
        GST_OBJECT_LOCK (self);
        self->priv->host_points = points;
        GST_OBJECT_UNLOCK (self);
      }
    }
    GST_DEBUG_OBJECT (self, "its device is open (%s): %s",
        gst_gpu_fft_device_gpu_opened ()? "a GPU in the process" :
        "a CPU device",
        self->priv->host_points >
        0.0 ? "stays on the host alone" : "moves to it");
    resolved = TRUE;
  }
  moves = gst_gpu_fft_device_gpu_opened () || self->priv->host_points <= 0.0;
  /* (staying: its host plan's thread posts from now on) */
  if (resolved && !moves && self->priv->plan)
    gst_gpu_fft_base_plan_set_result_func (self);
  return moves;
}

void
gst_gpu_fft_base_host_only_end (GstGpuFftBase * self)
{
  gdouble points;

  if (!self->priv->host_only)
    return;
  GST_OBJECT_LOCK (self);
  self->priv->host_only = FALSE;
  self->priv->host_pending = FALSE;
  points = self->priv->host_points;
  self->priv->host_points = 0.0;
  GST_OBJECT_UNLOCK (self);
  gst_gpu_fft_host_budget_give (points);
}


/* Installs a host plan of plan_job's configuration; FALSE (and no second
 * try for this job) where the host plan cannot take it. */
gboolean
gst_gpu_fft_base_host_start (GstGpuFftBase * self)
{
  GpufftPlanConfig config = self->priv->plan_config;
  GstGpuFftAnalysisTables tables;
  GpufftPlan *plan = NULL;
  GError *error = NULL;
  gchar *why = NULL;

  if (gst_gpu_fft_analysis_configure (&self->priv->plan_analysis, &config,
          &tables, &why))
    plan = gpufft_plan_new_host (&config, &error);
  if (plan == NULL) {
    GST_DEBUG_OBJECT (self, "no host start: %s", why ? why : error->message);
    g_free (why);
    g_clear_error (&error);
    gst_gpu_fft_analysis_tables_clear (&tables);
    self->priv->host_refused = TRUE;
    return FALSE;
  }
  /* (the same bands as the job's tables give the device's plan) */
  g_clear_pointer (&self->priv->bands, gst_gpu_fft_bands_unref);
  self->priv->bands =
      tables.bands ? gst_gpu_fft_bands_ref (tables.bands) : NULL;
  gst_gpu_fft_analysis_tables_clear (&tables);
  gst_gpu_fft_base_plan_install (self, plan);
  self->priv->on_host = TRUE;
  return TRUE;
}
