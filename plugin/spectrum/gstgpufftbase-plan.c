/* GstGpuFftBase: the plan's life. Streaming thread only (and start, stop,
 * setup and the events, which GStreamer serialises with it): the plan's
 * configuration from the settings and the negotiated format (geometry,
 * batch size, peak range, analyser modes), the job that makes the
 * device's plan beside the stream (gstgpufftplanjob.h) and the device it
 * needs, the plan's installation (its result function, its limits per
 * batch), and the wait for it (gst_gpu_fft_base_plan_ready()), where a
 * host plan may stand in (gstgpufftbase-host.c). Owns self->priv->plan,
 * plan_job and retired_plans (plans whose thread posts, freed once they
 * delivered all they were handed); the device pointer is written under
 * the object lock. Waits for the GPU only in
 * gst_gpu_fft_base_results_drain() (gstgpufftbase-results.c) before
 * replacing a plan, and for a plan job only until plan_wait_cancel lets
 * it go. Bounds: a batch holds at most AUTO_BATCH_BYTES of samples
 * (MAX_BATCH_BYTES for a stream that is not live with big buffers), a
 * message at most MESSAGE_FRAMES_MAX frames and MESSAGE_FRAME_VALUES_MAX
 * frame values. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>

#include "gstgpufftbase-private.h"

#define GST_CAT_DEFAULT gst_gpu_fft_base_debug

/* ------------------------------------------------------------------------ */
/* plan and geometry                                                        */

/* batch-size 0: room for two intervals or two buffers (the first buffer's
 * size), whichever is more, within AUTO_BATCH_BYTES of samples: intervals
 * are handed to the GPU when they close, so a batch rarely holds more
 * than one buffer's worth of them, and the engine's 8 slots of this size
 * bound the plan's memory in flight. A stream that is not live with
 * bigger buffers hands each buffer's frames over as it comes (with what
 * the last one left, less than a frame and a hop): its batches get room
 * for that, up to MAX_BATCH_BYTES (the engine then keeps 7 slots, 224 MiB
 * of staging at most, gpufft-plan.c). Each batch costs the device a fixed
 * time besides its samples' copy (big buffers of 64 channels on an H100:
 * 4.4 G samples/s in batches of 4 MiB, 6.2 in batches of a 4 MiB buffer;
 * tests/bench/README.md). GPUFFT_BATCH_BYTES in the environment sets the
 * bound instead (for benchmarks; at least one frame's bytes). */
#define AUTO_BATCH_BYTES (4u << 20)
#define MAX_BATCH_BYTES (32u << 20)

static guint
auto_batch_frames (GstGpuFftBase * self,
    const GstGpuFftBaseSettings * s, guint hop)
{
  guint64 rate = GST_AUDIO_INFO_RATE (&self->priv->info);
  guint64 bpf = GST_AUDIO_INFO_BPF (&self->priv->info);
  guint64 per_interval = gst_util_uint64_scale_ceil (s->interval, rate,
      GST_SECOND) / hop + 2;
  guint64 per_buffer = self->priv->buffer_hint / hop + 2;
  guint64 bytes = AUTO_BATCH_BYTES, samples, fit, env_bytes = 0;
  const gchar *env = g_getenv ("GPUFFT_BATCH_BYTES");

  if (self->priv->is_live <= 0)
    bytes = CLAMP ((self->priv->buffer_hint + s->fft_size + hop) * bpf,
        AUTO_BATCH_BYTES, MAX_BATCH_BYTES);
  if (env && g_ascii_string_to_unsigned (env, 10, bpf * s->fft_size,
          G_MAXUINT32, &env_bytes, NULL))
    bytes = env_bytes;
  samples = bytes / bpf;
  fit = samples > s->fft_size ? (samples - s->fft_size) / hop + 1 : 1;

  return (guint) MAX (1, MIN (MAX (2 * MAX (per_interval, per_buffer), 16),
          fit));
}

static void
make_plan_config (GstGpuFftBase * self,
    const GstGpuFftBaseSettings * s, GpufftPlanConfig * c,
    guint * min_bin, guint * max_bin, GstGpuFftAnalysis * a)
{
  const GstAudioInfo *info = &self->priv->info;
  gint rate = GST_AUDIO_INFO_RATE (info);
  guint nyq = s->fft_size / 2;
  gdouble lo, hi;

  memset (c, 0, sizeof (*c));
  gpufft_plan_config_init (c);
  /* (a live stream's first messages sooner; a file's repeatable) */
  c->quick_start = self->priv->is_live > 0;
  c->fft_size = s->fft_size;
  c->hop = s->hop_size ? s->hop_size : s->fft_size / 2;
  if (s->hop_within_interval)
    c->hop = (guint) MIN (c->hop, MAX (1, gst_util_uint64_scale (s->interval,
                rate, GST_SECOND)));
  c->window = (GpufftWindow) s->window;
  c->format = self->priv->format;
  c->channels = GST_AUDIO_INFO_CHANNELS (info);
  c->planar = GST_AUDIO_INFO_LAYOUT (info) == GST_AUDIO_LAYOUT_NON_INTERLEAVED;
  c->downmix = !s->multi_channel;
  c->scaling = (GpufftScaling) s->scaling;
  c->rate = rate;
  c->max_frames = s->batch_size ? s->batch_size :
      auto_batch_frames (self, s, c->hop);
  c->max_groups = 0;
  c->n_peaks = s->peaks;
  c->complex_out = s->message_phase;
  /* (spectrum's phase: the mean of the frames' angles) */
  c->phase_mean = s->message_phase
      && GST_GPU_FFT_BASE_GET_CLASS (self)->spectrum_compat;
  c->output_db = TRUE;
  c->db_offset = (s->scaling == GST_GPU_FFT_SCALING_SPECTRUM ?
      10.0 * log10 (2.0) : 0.0) + s->level_offset;
  /* spectrum divides integers by 2^(bits-1) - 1 (as a float: S32's rounds
   * to 2^31), the engine by 2^(bits-1): the same power, (2^(bits-1) /
   * (2^(bits-1) - 1))^2 times it */
  if (GST_GPU_FFT_BASE_GET_CLASS (self)->spectrum_compat) {
    if (self->priv->format == GPUFFT_FORMAT_S16)
      c->db_offset += 20.0 * log10 (32768.0 / 32767.0);
    else if (self->priv->format == GPUFFT_FORMAT_S24)
      c->db_offset += 20.0 * log10 (8388608.0 / 8388607.0);
  }

  /* peak search range in bins: [ceil (min f), floor (max f)] */
  lo = ceil (s->min_frequency * s->fft_size / rate - 1e-9);
  hi = s->max_frequency > 0.0 ?
      floor (s->max_frequency * s->fft_size / rate + 1e-9) : nyq;
  *min_bin = (guint) MIN (lo, (gdouble) nyq + 1);
  *max_bin = (guint) MIN (hi, (gdouble) nyq);
  if (*min_bin <= *max_bin && *max_bin > 0) {
    c->peak_min_bin = *min_bin;
    c->peak_max_bin = *max_bin;
  } else {
    /* empty range or DC only: the engine searches everything and the
     * message filters */
    c->peak_min_bin = 0;
    c->peak_max_bin = nyq;
  }

  /* the analyser modes (bands from the same frequency range); their
   * tables are made with a new plan only */
  *a = s->analysis;
  a->min_frequency = s->min_frequency;
  a->max_frequency = s->max_frequency;
}

/* (the analysis part is compared through the settings it is made from,
 * gst_gpu_fft_analysis_equal) */
static gboolean
plan_config_equal (const GpufftPlanConfig * a, const GpufftPlanConfig * b)
{
  return a->fft_size == b->fft_size && a->hop == b->hop &&
      a->window == b->window && a->format == b->format &&
      a->channels == b->channels && a->planar == b->planar &&
      a->downmix == b->downmix && a->scaling == b->scaling &&
      a->rate == b->rate && a->max_frames == b->max_frames &&
      a->max_groups == b->max_groups && a->n_peaks == b->n_peaks &&
      a->peak_min_bin == b->peak_min_bin &&
      a->peak_max_bin == b->peak_max_bin &&
      a->complex_out == b->complex_out && a->phase_mean == b->phase_mean &&
      a->output_db == b->output_db && a->db_offset == b->db_offset;
}

/* The element's device (gstgpufftdevice.h), its opening started here
 * where it has none yet (the automatic device: the first plan job that
 * needs one). NULL where no thread could be started (the error posted). */
GstGpuFftDevice *
gst_gpu_fft_base_plan_need_device (GstGpuFftBase * self)
{
  GstGpuFftDevice *device;
  gint index;

  GST_OBJECT_LOCK (self);
  device = self->priv->device;
  index = self->priv->settings.device_index;
  GST_OBJECT_UNLOCK (self);
  if (device)
    return device;
  /* (device_opened is the base's: it names the device and offers its
   * allocator upstream) */
  device = gst_gpu_fft_device_open (GST_ELEMENT (self), index,
      gst_gpu_fft_base_device_opened);
  GST_OBJECT_LOCK (self);
  self->priv->device = device;
  GST_OBJECT_UNLOCK (self);
  return device;
}

/* Starts the job that makes the device's plan of self->priv->plan_config
 * (config: the same with its arrays in tables, which the job takes; where
 * config is NULL they are made here). FALSE (the error posted) where it
 * cannot start. */
static gboolean
start_plan_job (GstGpuFftBase * self, const GpufftPlanConfig * config,
    GstGpuFftAnalysisTables * tables)
{
  GpufftPlanConfig made;
  GstGpuFftAnalysisTables own;
  GstGpuFftDevice *device;
  GError *error = NULL;
  gchar *why = NULL;

  if (config == NULL) {
    made = self->priv->plan_config;
    if (!gst_gpu_fft_analysis_configure (&self->priv->plan_analysis, &made,
            &own, &why)) {
      GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS, ("%s", why), (NULL));
      g_free (why);
      gst_gpu_fft_analysis_tables_clear (&own);
      return FALSE;
    }
    config = &made;
    tables = &own;
  }
  device = gst_gpu_fft_base_plan_need_device (self);
  /* (made beside the stream: the buffers pass on, their samples wait in
   * the store until the plan is ready) */
  if (device)
    self->priv->plan_job = gst_gpu_fft_plan_job_start (device, config, tables,
        NULL, &error);
  if (self->priv->plan_job == NULL) {
    gst_gpu_fft_analysis_tables_clear (tables);
    if (device)
      gst_gpu_fft_base_results_post_engine_error (self,
          "Starting the thread that makes the GPU FFT plan", error);
    g_clear_error (&error);
    return FALSE;
  }
  return TRUE;
}


/* Frees the retired plans (see gstgpufftbase-private.h) that have delivered all
 * they were handed. */
static void
free_retired_plans (GstGpuFftBase * self)
{
  GSList *l = self->priv->retired_plans, *keep = NULL;

  for (; l; l = l->next) {
    if (gpufft_plan_in_flight (l->data) == 0)
      gpufft_plan_free (l->data);
    else
      keep = g_slist_prepend (keep, l->data);
  }
  g_slist_free (self->priv->retired_plans);
  self->priv->retired_plans = keep;
}

/* message-frames: a message carries at most MESSAGE_FRAMES_MAX frames and
 * MESSAGE_FRAME_VALUES_MAX frame values (frames x output channels x (bins
 * or bands + the level); 1 MiB as bytes; at least one frame however big):
 * the engine keeps every frame of an interval until it closes, and the
 * message holds them all (a GValue each in the list format), so an
 * interval of many frames (fft-size 16, hop-size 1, 10 s: 479 985 frames)
 * would cost the process without bound. An interval that could hold more
 * is shortened to the longest that cannot: one of L samples holds at most
 * ceil (L / hop) frames (a frame belongs to the interval of its last
 * sample), and boundaries rounded from k * interval * rate / 1e9 are at
 * most M samples apart where interval * rate / 1e9 <= M. */
#define MESSAGE_FRAMES_MAX 4096u
#define MESSAGE_FRAME_VALUES_MAX (1u << 18)

static guint64
frames_interval (GstGpuFftBase * self, const GpufftPlanConfig * c,
    guint64 interval)
{
  guint64 out_ch = c->downmix ? 1 : c->channels;
  guint64 per_frame = out_ch * ((guint64) self->priv->frame_values + 1);
  guint64 most = MIN (MESSAGE_FRAMES_MAX,
      MAX (1, MESSAGE_FRAME_VALUES_MAX / per_frame));
  guint64 longest = gst_util_uint64_scale (most * c->hop, GST_SECOND,
      (guint64) c->rate);
  GError *err;
  gchar *debug;

  if (interval <= longest || longest == 0)
    return interval;
  if (self->priv->frames_warned_ns != longest) {
    self->priv->frames_warned_ns = longest;
    err = g_error_new (GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_SETTINGS,
        "message-frames: an interval of %" G_GUINT64_FORMAT " ns holds more "
        "frames than a message carries (at most %u frames and %u values: "
        "here %" G_GUINT64_FORMAT " frames of %" G_GUINT64_FORMAT
        " values, hop-size %u at %g Hz): the intervals are %" G_GUINT64_FORMAT
        " ns long instead; set an interval of at most %" G_GUINT64_FORMAT
        " ns, a larger hop-size, or message-frames=false",
        interval, MESSAGE_FRAMES_MAX, MESSAGE_FRAME_VALUES_MAX, most,
        per_frame, c->hop, c->rate, longest, longest);
    debug = g_strdup_printf ("fft-size %u, %" G_GUINT64_FORMAT " output "
        "channels, %u values a frame and channel", c->fft_size, out_ch,
        self->priv->frame_values);
    GST_WARNING_OBJECT (self, "%s (%s)", err->message, debug);
    /* (in order with the messages of the intervals before) */
    gst_gpu_fft_poster_push (self->priv->poster, gst_message_new_warning
        (GST_OBJECT (self), err, debug), NULL, FALSE, 0, FALSE);
    g_error_free (err);
    g_free (debug);
  }
  return longest;
}

/* Applies the current settings at a restart (framing from sample 0).
 * Rebuilds the plan when its configuration changed. */
gboolean
gst_gpu_fft_base_plan_apply_settings (GstGpuFftBase * self)
{
  GstGpuFftBaseSettings s;
  GpufftPlanConfig config;
  GstGpuFftAnalysis analysis;
  guint gen, min_bin, max_bin;

  gst_gpu_fft_base_settings_read (self, &s, &gen);
  make_plan_config (self, &s, &config, &min_bin, &max_bin, &analysis);
  free_retired_plans (self);

  if ((self->priv->plan || self->priv->plan_job || self->priv->host_only
          || self->priv->host_lead != GST_GPU_FFT_LEAD_NONE)
      && (!plan_config_equal (&config, &self->priv->plan_config)
          || !gst_gpu_fft_analysis_equal (&analysis,
              &self->priv->plan_analysis))) {
    if (self->priv->plan_job) {
      gst_gpu_fft_plan_job_abandon (self->priv->plan_job,
          self->priv->given_up_jobs);
      self->priv->plan_job = NULL;
    }
    if (self->priv->plan) {
      if (!gst_gpu_fft_base_results_drain (self))
        return FALSE;
      /* (the drain let go of a plan whose thread posts: a stop or a flush;
       * the stop frees it) */
      if (self->priv->posts_here
          && gpufft_plan_in_flight (self->priv->plan) > 0)
        self->priv->retired_plans =
            g_slist_prepend (self->priv->retired_plans, self->priv->plan);
      else
        gpufft_plan_free (self->priv->plan);
      self->priv->plan = NULL;
      self->priv->on_host = FALSE;
    }
    gst_gpu_fft_base_host_only_end (self);
    gst_gpu_fft_base_host_lead_set (self, GST_GPU_FFT_LEAD_NONE);
    g_clear_pointer (&self->priv->bands, gst_gpu_fft_bands_unref);
  }
  if (self->priv->plan == NULL && self->priv->plan_job == NULL
      && !self->priv->host_only
      && self->priv->host_lead == GST_GPU_FFT_LEAD_NONE) {
    GstGpuFftAnalysisTables tables;
    gchar *why = NULL;

    if (!gst_gpu_fft_analysis_configure (&analysis, &config, &tables, &why)) {
      GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS, ("%s", why),
          ("frequency-scale %d, fft-size %u, rate %g", analysis.scale,
              config.fft_size, config.rate));
      g_free (why);
      gst_gpu_fft_analysis_tables_clear (&tables);
      self->priv->running = FALSE;      /* no plan: the next buffer starts over */
      return FALSE;
    }

    GST_DEBUG_OBJECT (self, "new plan: N %u hop %u window %d channels %u%s "
        "%s rate %g batch %u peaks %u [%u, %u]%s", config.fft_size,
        config.hop, config.window, config.channels,
        config.planar ? " planar" : "", config.downmix ? "downmix" : "multi",
        config.rate, config.max_frames, config.n_peaks, config.peak_min_bin,
        config.peak_max_bin, config.complex_out ? " complex" : "");
    self->priv->host_refused = FALSE;
    self->priv->frame_values = tables.bands ? tables.bands->n_bands :
        config.fft_size / 2 + 1;
    self->priv->plan_analysis = analysis;
    self->priv->plan_config = config;
    /* (the arrays are the tables': the job's, or cleared) */
    self->priv->plan_config.bin_gain = self->priv->plan_config.level_weights =
        NULL;
    self->priv->plan_config.band_weights = NULL;
    self->priv->plan_config.band_first = self->priv->plan_config.band_bins =
        NULL;
    if (gst_gpu_fft_base_host_only_begin (self)
        || gst_gpu_fft_base_host_lead_begin (self)) {
      gst_gpu_fft_analysis_tables_clear (&tables);
    } else if (!start_plan_job (self, &config, &tables)) {
      self->priv->running = FALSE;      /* no plan: the next buffer starts over */
      return FALSE;
    }
  }
  self->priv->min_bin = min_bin;
  self->priv->max_bin = max_bin;

  gst_gpu_fft_framing_init (&self->priv->framing, config.fft_size, config.hop,
      GST_AUDIO_INFO_RATE (&self->priv->info), analysis.frames ?
      frames_interval (self, &config, s.interval) : s.interval);
  /* (gpuspectrum: spectrum's intervals, and its frames restarting at each
   * of them) */
  if (GST_GPU_FFT_BASE_GET_CLASS (self)->spectrum_compat)
    gst_gpu_fft_framing_set_spectrum_steps (&self->priv->framing);
  self->priv->applied_gen = gen;
  self->priv->applied_reset_gen = s.reset_gen;
  return TRUE;
}

/* The result function of self->priv->plan. On the host alone (not pending:
 * such a stream may move to the device, which takes over once the host
 * plan has delivered all it was handed), the host plan's thread works for
 * this element only: it posts the messages itself. */
void
gst_gpu_fft_base_plan_set_result_func (GstGpuFftBase * self)
{
  gboolean here = self->priv->host_only && !self->priv->host_pending
      && gpufft_plan_is_host (self->priv->plan);

  self->priv->posts_here = here;
  gpufft_plan_set_result_func (self->priv->plan, here ?
      gst_gpu_fft_base_results_on_host_result :
      gst_gpu_fft_base_results_on_result, self);
}

/* Makes plan the element's: results, limits per batch. */
void
gst_gpu_fft_base_plan_install (GstGpuFftBase * self, GpufftPlan * plan)
{
  self->priv->plan = plan;
  /* (a stop lets a wait for the device go; a flush waits: its intervals
   * are posted before it goes on) */
  gpufft_plan_set_cancel (plan, &self->priv->plan_stop_cancel);
  gst_gpu_fft_base_plan_set_result_func (self);
  /* (the message parameters of the intervals whose results never come:
   * a plan freed by a stop, a flush or a bus handler with batches in
   * flight) */
  gpufft_plan_set_tag_free (plan,
      (GDestroyNotify) gst_gpu_fft_message_params_free);
  self->priv->max_frames = MAX (gpufft_plan_get_max_frames (plan), 1);
  self->priv->max_groups = MAX (gpufft_plan_get_max_groups (plan), 1);
  self->priv->batch_groups =
      g_renew (GstGpuFftBatchGroup, self->priv->batch_groups,
      self->priv->max_groups);
  self->priv->engine_groups =
      g_renew (GpufftGroup, self->priv->engine_groups, self->priv->max_groups);
  GST_DEBUG_OBJECT (self, "%s plan ready: %u frames, %u groups per batch",
      gpufft_plan_is_host (plan) ? "host" : "device", self->priv->max_frames,
      self->priv->max_groups);
}


gboolean
gst_gpu_fft_base_plan_ready (GstGpuFftBase * self, gboolean wait,
    gboolean due, gboolean * failed)
{
  GError *error = NULL;
  GstGpuFftAnalysisTables tables;
  GpufftPlan *plan;
  gboolean device_failed = FALSE, done = FALSE, from_host;

  *failed = FALSE;
  if (self->priv->plan && !self->priv->on_host)
    return TRUE;
  if (self->priv->host_lead == GST_GPU_FFT_LEAD_ON) {
    /* the host lead (gstgpufftbase-host.c): its points are samples of the
     * stream, whatever the device takes */
    guint64 at = self->priv->received;

    if (self->priv->plan == NULL) {
      if (!due)
        return FALSE;
      if (!gst_gpu_fft_base_host_start (self)) {
        GST_DEBUG_OBJECT (self, "no host lead after all: the device's plan "
            "is made");
        gst_gpu_fft_base_host_lead_set (self, GST_GPU_FFT_LEAD_NONE);
        if (!start_plan_job (self, NULL, NULL)) {
          self->priv->running = FALSE;
          *failed = TRUE;
          return FALSE;
        }
      }
    }
    if (self->priv->host_lead == GST_GPU_FFT_LEAD_ON
        && self->priv->plan_job == NULL && at >= self->priv->lead_open_at) {
      GST_DEBUG_OBJECT (self, "host lead at sample %" G_GUINT64_FORMAT
          ": the device's plan is made", at);
      if (!start_plan_job (self, NULL, NULL)) {
        self->priv->running = FALSE;
        *failed = TRUE;
        return FALSE;
      }
    }
    if (self->priv->host_lead == GST_GPU_FFT_LEAD_ON) {
      if (at < self->priv->lead_switch_at)
        return TRUE;
      GST_DEBUG_OBJECT (self, "host lead ends at sample %" G_GUINT64_FORMAT
          ": the device's plan takes over", at);
      gst_gpu_fft_base_host_lead_set (self, GST_GPU_FFT_LEAD_SWITCH);
    }
  }
  if (self->priv->host_only) {
    /* (the host plan stays, until a GPU is open in the process: then the
     * stream moves to it, as after a host start; where its plan job cannot
     * start, the stream stays on the host) */
    gboolean move = gst_gpu_fft_base_host_only_moves (self);

    if (self->priv->plan && move) {
      GST_DEBUG_OBJECT (self, "the stream moves to the device");
      if (!start_plan_job (self, NULL, NULL))
        return TRUE;
      gst_gpu_fft_base_host_only_end (self);
    } else if (self->priv->plan || !due) {
      return self->priv->plan != NULL;
    } else if (!move && gst_gpu_fft_base_host_start (self)) {
      return TRUE;
    } else {
      /* the host plan cannot take this analysis, or a GPU is open
       * already: the device's plan does */
      GST_DEBUG_OBJECT (self, "not on the host alone after all: a device's "
          "plan is made");
      gst_gpu_fft_base_host_only_end (self);
      if (!start_plan_job (self, NULL, NULL)) {
        self->priv->running = FALSE;
        *failed = TRUE;
        return FALSE;
      }
    }
  }
  if (self->priv->plan_job == NULL) {
    GST_ELEMENT_ERROR (self, CORE, FAILED, (NULL),
        ("no GPU FFT plan, made or being made"));
    *failed = TRUE;
    return FALSE;
  }
  /* (on the host plan, the device's takes over between intervals, once
   * the host plan has finished what it was handed: the switch never waits
   * for it; but at the host lead's end, where the device's plan is waited
   * for and the host plan is handed nothing more) */
  if (self->priv->host_lead != GST_GPU_FFT_LEAD_SWITCH) {
    if (self->priv->on_host && (self->priv->group_open
            || gpufft_plan_in_flight (self->priv->plan) > 0))
      return TRUE;
    /* (the host plan is made when a batch is due: its tables cost the
     * first buffer nothing) */
    if (self->priv->on_host || (due
            && gst_gpu_fft_base_host_start_wanted (self))) {
      done =
          gst_gpu_fft_plan_job_finish (self->priv->plan_job, FALSE, NULL,
          &plan, NULL, &tables, &device_failed, &error);
      if (!done && (self->priv->on_host
              || gst_gpu_fft_base_host_start (self)))
        return TRUE;
    }
  }
  if (!done && !gst_gpu_fft_plan_job_finish (self->priv->plan_job, wait,
          &self->priv->plan_wait_cancel, &plan, NULL, &tables, &device_failed,
          &error))
    return FALSE;
  self->priv->plan_job = NULL;
  gst_gpu_fft_plan_job_prune (self->priv->given_up_jobs);
  gst_gpu_fft_base_host_lead_set (self, GST_GPU_FFT_LEAD_NONE);
  from_host = self->priv->on_host;
  if (from_host) {
    /* the host plan's results are handed to the poster before the
     * device's first (collect waits for their delivery; the poster keeps
     * their order) */
    gint collected = gpufft_plan_collect (self->priv->plan, TRUE, NULL, NULL,
        NULL);

    gpufft_plan_free (self->priv->plan);
    self->priv->plan = NULL;
    self->priv->on_host = FALSE;
    GST_DEBUG_OBJECT (self, "the device's plan takes over from the host "
        "plan%s", collected < 0 ? " (which failed)" : "");
  }
  if (plan == NULL) {
    gst_gpu_fft_analysis_tables_clear (&tables);
    /* (the device's error is posted by its opening) */
    if (device_failed)
      GST_DEBUG_OBJECT (self, "no device: %s", error->message);
    else
      gst_gpu_fft_base_results_post_engine_error (self,
          "Creating the GPU FFT plan", error);
    g_clear_error (&error);
    self->priv->running = FALSE;        /* no plan: the next buffer starts over */
    *failed = TRUE;
    return FALSE;
  }
  /* (a live stream's backlog: a stream that is not live waits for slots
   * anyway; after a host plan the store holds only what the next frames
   * reach back to) */
  self->priv->catching_up = self->priv->is_live > 0 && self->priv->store.len > 0
      && !from_host;
  g_clear_pointer (&self->priv->bands, gst_gpu_fft_bands_unref);
  self->priv->bands =
      tables.bands ? gst_gpu_fft_bands_ref (tables.bands) : NULL;
  gst_gpu_fft_analysis_tables_clear (&tables);
  gst_gpu_fft_base_plan_install (self, plan);
  return TRUE;
}
