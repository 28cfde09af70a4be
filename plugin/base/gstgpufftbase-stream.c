/* GstGpuFftBase: the streaming path. Runs on the streaming thread (and in
 * start/stop/setup/events, which GStreamer serialises with it): the plan
 * and its geometry (from the settings, gstgpufftbase-settings.c), the
 * framing of received samples into engine batches (each closing interval
 * tagged with its message parameters, which the result path then owns),
 * restarts, and the live drop of intervals when the GPU falls behind. Never waits for the GPU
 * except in gst_gpu_fft_base_results_drain() (gstgpufftbase-results.c),
 * which it calls before replacing a plan. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>

#include "gstgpufftbase-private.h"
#include "gstgpufftallocator.h"
#include "gstgpuffthostbudget.h"

#define GST_CAT_DEFAULT gst_gpu_fft_base_debug

/* ------------------------------------------------------------------------ */
/* time                                                                     */


GstClockTime
gst_gpu_fft_base_stream_sample_to_time (GstGpuFftBase * self, guint64 sample)
{
  /* saturating: a stream that starts near the end of the clock's range
   * keeps end >= start instead of wrapping (GST_CLOCK_TIME_NONE excluded) */
  guint64 t = gst_util_uint64_scale_round (sample, GST_SECOND,
      GST_AUDIO_INFO_RATE (&self->info));

  if (t >= G_MAXUINT64 - 1 - self->base_pts)
    return G_MAXUINT64 - 1;
  return self->base_pts + t;
}

/* gpuspectrum: a buffer that begins at sample `pos` (PTS pts) begins an
 * interval there, or not; spectrum times that interval's message with the
 * buffer's PTS. */
void
gst_gpu_fft_base_stream_compat_buffer (GstGpuFftBase * self, guint64 pos,
    GstClockTime pts)
{
  const GstGpuFftGrid *grid = &self->framing.grid;
  guint64 k = gst_gpu_fft_framing_grid_index_of (grid, pos);
  GstGpuFftCompatStart st = { k, pts };
  guint i = 0;

  if (gst_gpu_fft_framing_grid_boundary (grid, k) != pos)
    return;
  if (self->compat_starts == NULL)
    self->compat_starts = g_array_new (FALSE, FALSE,
        sizeof (GstGpuFftCompatStart));
  /* (the intervals before the open one are timed, or were not posted:
   * their entries go, so that the array stays short with post-messages
   * off) */
  while (i < self->compat_starts->len
      && g_array_index (self->compat_starts, GstGpuFftCompatStart,
          i).interval < self->framing.cur)
    i++;
  if (i > 0)
    g_array_remove_range (self->compat_starts, 0, i);
  g_array_append_val (self->compat_starts, st);
}

/* gpuspectrum: interval k's message time as spectrum gives it: the PTS of
 * the buffer that began it, if one did; else the last interval's time plus
 * the intervals since, each floor (samples x 1 s / rate) (spectrum adds
 * them one by one); the first after a restart: from its first sample. */
static GstClockTime
compat_timestamp (GstGpuFftBase * self, guint64 k)
{
  const GstGpuFftGrid *grid = &self->framing.grid;
  GArray *starts = self->compat_starts;
  GstClockTime ts = GST_CLOCK_TIME_NONE;
  guint rate = GST_AUDIO_INFO_RATE (&self->info);
  guint i = 0;

  while (starts && i < starts->len
      && g_array_index (starts, GstGpuFftCompatStart, i).interval < k)
    i++;
  if (starts && i < starts->len
      && g_array_index (starts, GstGpuFftCompatStart, i).interval == k)
    ts = g_array_index (starts, GstGpuFftCompatStart, i).pts;
  if (starts && i > 0)
    g_array_remove_range (starts, 0, i);
  if (!GST_CLOCK_TIME_IS_VALID (ts)) {
    if (self->compat_timed && self->compat_k < k
        && GST_CLOCK_TIME_IS_VALID (self->compat_ts)) {
      guint64 j;

      ts = self->compat_ts;
      for (j = self->compat_k; j < k; j++)
        ts += gst_util_uint64_scale (gst_gpu_fft_framing_grid_boundary (grid,
                j + 1) - gst_gpu_fft_framing_grid_boundary (grid, j),
            GST_SECOND, rate);
    } else {
      ts = gst_gpu_fft_base_stream_sample_to_time (self,
          gst_gpu_fft_framing_grid_boundary (grid, k));
    }
  }
  self->compat_timed = TRUE;
  self->compat_k = k;
  self->compat_ts = ts;
  return ts;
}

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
  guint64 rate = GST_AUDIO_INFO_RATE (&self->info);
  guint64 bpf = GST_AUDIO_INFO_BPF (&self->info);
  guint64 per_interval = gst_util_uint64_scale_ceil (s->interval, rate,
      GST_SECOND) / hop + 2;
  guint64 per_buffer = self->buffer_hint / hop + 2;
  guint64 bytes = AUTO_BATCH_BYTES, samples, fit, env_bytes = 0;
  const gchar *env = g_getenv ("GPUFFT_BATCH_BYTES");

  if (self->is_live <= 0)
    bytes = CLAMP ((self->buffer_hint + s->fft_size + hop) * bpf,
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
  const GstAudioInfo *info = &self->info;
  gint rate = GST_AUDIO_INFO_RATE (info);
  guint nyq = s->fft_size / 2;
  gdouble lo, hi;

  memset (c, 0, sizeof (*c));
  gpufft_plan_config_init (c);
  /* (a live stream's first messages sooner; a file's repeatable) */
  c->quick_start = self->is_live > 0;
  c->fft_size = s->fft_size;
  c->hop = s->hop_size ? s->hop_size : s->fft_size / 2;
  if (s->hop_within_interval)
    c->hop = (guint) MIN (c->hop, MAX (1, gst_util_uint64_scale (s->interval,
                rate, GST_SECOND)));
  c->window = (GpufftWindow) s->window;
  c->format = self->format;
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
    if (self->format == GPUFFT_FORMAT_S16)
      c->db_offset += 20.0 * log10 (32768.0 / 32767.0);
    else if (self->format == GPUFFT_FORMAT_S24)
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

/* FFT points a second of config's analysis */
static gdouble
points_per_s (const GpufftPlanConfig * c)
{
  guint64 out_ch = c->downmix ? 1 : c->channels;

  return (gdouble) out_ch *c->rate / c->hop * c->fft_size;
}

/* The element's device (gstgpufftdevice.h), its opening started here
 * where it has none yet (the automatic device: the first plan job that
 * needs one). NULL where no thread could be started (the error posted). */
static GstGpuFftDevice *
need_device (GstGpuFftBase * self)
{
  GstGpuFftDevice *device;
  gint index;

  GST_OBJECT_LOCK (self);
  device = self->device;
  index = self->settings.device_index;
  GST_OBJECT_UNLOCK (self);
  if (device)
    return device;
  /* (device_opened is the base's: it names the device and offers its
   * allocator upstream) */
  device = gst_gpu_fft_device_open (GST_ELEMENT (self), index,
      gst_gpu_fft_base_device_opened);
  GST_OBJECT_LOCK (self);
  self->device = device;
  GST_OBJECT_UNLOCK (self);
  return device;
}

/* Starts the job that makes the device's plan of self->plan_config
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
    made = self->plan_config;
    if (!gst_gpu_fft_analysis_configure (&self->plan_analysis, &made, &own,
            &why)) {
      GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS, ("%s", why), (NULL));
      g_free (why);
      gst_gpu_fft_analysis_tables_clear (&own);
      return FALSE;
    }
    config = &made;
    tables = &own;
  }
  device = need_device (self);
  /* (made beside the stream: the buffers pass on, their samples wait in
   * the store until the plan is ready) */
  if (device)
    self->plan_job = gst_gpu_fft_plan_job_start (device, config, tables,
        NULL, &error);
  if (self->plan_job == NULL) {
    gst_gpu_fft_analysis_tables_clear (tables);
    if (device)
      gst_gpu_fft_base_results_post_engine_error (self,
          "Starting the thread that makes the GPU FFT plan", error);
    g_clear_error (&error);
    return FALSE;
  }
  return TRUE;
}

static gboolean host_only_begin (GstGpuFftBase * self);
static void set_result_func (GstGpuFftBase * self);

/* Frees the retired plans (see gstgpufftbase.h) that have delivered all
 * they were handed. */
static void
free_retired_plans (GstGpuFftBase * self)
{
  GSList *l = self->retired_plans, *keep = NULL;

  for (; l; l = l->next) {
    if (gpufft_plan_in_flight (l->data) == 0)
      gpufft_plan_free (l->data);
    else
      keep = g_slist_prepend (keep, l->data);
  }
  g_slist_free (self->retired_plans);
  self->retired_plans = keep;
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
  guint64 per_frame = out_ch * ((guint64) self->frame_values + 1);
  guint64 most = MIN (MESSAGE_FRAMES_MAX,
      MAX (1, MESSAGE_FRAME_VALUES_MAX / per_frame));
  guint64 longest = gst_util_uint64_scale (most * c->hop, GST_SECOND,
      (guint64) c->rate);
  GError *err;
  gchar *debug;

  if (interval <= longest || longest == 0)
    return interval;
  if (self->frames_warned_ns != longest) {
    self->frames_warned_ns = longest;
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
        self->frame_values);
    GST_WARNING_OBJECT (self, "%s (%s)", err->message, debug);
    /* (in order with the messages of the intervals before) */
    gst_gpu_fft_poster_push (self->poster, gst_message_new_warning
        (GST_OBJECT (self), err, debug), NULL, FALSE, 0, FALSE);
    g_error_free (err);
    g_free (debug);
  }
  return longest;
}

/* Applies the current settings at a restart (framing from sample 0).
 * Rebuilds the plan when its configuration changed. */
gboolean
gst_gpu_fft_base_stream_apply_settings (GstGpuFftBase * self)
{
  GstGpuFftBaseSettings s;
  GpufftPlanConfig config;
  GstGpuFftAnalysis analysis;
  guint gen, min_bin, max_bin;

  gst_gpu_fft_base_settings_read (self, &s, &gen);
  make_plan_config (self, &s, &config, &min_bin, &max_bin, &analysis);
  free_retired_plans (self);

  if ((self->plan || self->plan_job || self->host_only)
      && (!plan_config_equal (&config, &self->plan_config)
          || !gst_gpu_fft_analysis_equal (&analysis, &self->plan_analysis))) {
    if (self->plan_job) {
      gst_gpu_fft_plan_job_abandon (self->plan_job, self->given_up_jobs);
      self->plan_job = NULL;
    }
    if (self->plan) {
      if (!gst_gpu_fft_base_results_drain (self))
        return FALSE;
      /* (the drain let go of a plan whose thread posts: a stop or a flush;
       * the stop frees it) */
      if (self->posts_here && gpufft_plan_in_flight (self->plan) > 0)
        self->retired_plans = g_slist_prepend (self->retired_plans, self->plan);
      else
        gpufft_plan_free (self->plan);
      self->plan = NULL;
      self->on_host = FALSE;
    }
    gst_gpu_fft_base_stream_host_only_end (self);
    g_clear_pointer (&self->bands, gst_gpu_fft_bands_unref);
  }
  if (self->plan == NULL && self->plan_job == NULL && !self->host_only) {
    GstGpuFftAnalysisTables tables;
    gchar *why = NULL;

    if (!gst_gpu_fft_analysis_configure (&analysis, &config, &tables, &why)) {
      GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS, ("%s", why),
          ("frequency-scale %d, fft-size %u, rate %g", analysis.scale,
              config.fft_size, config.rate));
      g_free (why);
      gst_gpu_fft_analysis_tables_clear (&tables);
      self->running = FALSE;    /* no plan: the next buffer starts over */
      return FALSE;
    }

    GST_DEBUG_OBJECT (self, "new plan: N %u hop %u window %d channels %u%s "
        "%s rate %g batch %u peaks %u [%u, %u]%s", config.fft_size,
        config.hop, config.window, config.channels,
        config.planar ? " planar" : "", config.downmix ? "downmix" : "multi",
        config.rate, config.max_frames, config.n_peaks, config.peak_min_bin,
        config.peak_max_bin, config.complex_out ? " complex" : "");
    self->host_refused = FALSE;
    self->frame_values = tables.bands ? tables.bands->n_bands :
        config.fft_size / 2 + 1;
    self->plan_analysis = analysis;
    self->plan_config = config;
    /* (the arrays are the tables': the job's, or cleared) */
    self->plan_config.bin_gain = self->plan_config.level_weights = NULL;
    self->plan_config.band_weights = NULL;
    self->plan_config.band_first = self->plan_config.band_bins = NULL;
    if (host_only_begin (self)) {
      gst_gpu_fft_analysis_tables_clear (&tables);
    } else if (!start_plan_job (self, &config, &tables)) {
      self->running = FALSE;    /* no plan: the next buffer starts over */
      return FALSE;
    }
  }
  self->min_bin = min_bin;
  self->max_bin = max_bin;

  gst_gpu_fft_framing_init (&self->framing, config.fft_size, config.hop,
      GST_AUDIO_INFO_RATE (&self->info), analysis.frames ?
      frames_interval (self, &config, s.interval) : s.interval);
  /* (gpuspectrum: spectrum's intervals, and its frames restarting at each
   * of them) */
  if (GST_GPU_FFT_BASE_GET_CLASS (self)->spectrum_compat)
    gst_gpu_fft_framing_set_spectrum_steps (&self->framing);
  self->applied_gen = gen;
  self->applied_reset_gen = s.reset_gen;
  return TRUE;
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
  const GpufftPlanConfig *c = &self->plan_config;
  guint64 out_ch = c->downmix ? 1 : c->channels;
  guint64 span = (guint64) (MAX (c->max_frames, 1) - 1) * c->hop + c->fft_size;

  return points_per_s (c) <= HOST_MAX_POINTS_PER_S
      && out_ch * (c->fft_size / 2 + 1) <= HOST_MAX_BINS
      && span * GST_AUDIO_INFO_BPF (&self->info) <= HOST_MAX_SPAN_BYTES;
}

/* The host start: where the device's plan is not made yet when a batch is
 * due, a host plan of the same configuration (gpufft_plan_new_host: the
 * same results, computed on the CPU in double) analyses the intervals,
 * and the device's plan takes over at the first batch that starts an
 * interval once it is made: the first messages come at once, whatever the
 * driver's compiler and the device's opening take. GPUFFT_HOST_START in
 * the environment: auto (the default: live streams, whose first results
 * matter more than bit-for-bit repeatable ones; a file's messages stay
 * the device's from the first), on (every stream), off (none). */
static gboolean
host_start_wanted (GstGpuFftBase * self)
{
  const gchar *env = g_getenv ("GPUFFT_HOST_START");

  if (self->host_refused)
    return FALSE;
  if (env && (g_str_equal (env, "off") || g_str_equal (env, "0")))
    return FALSE;
  if (!host_start_affordable (self)) {
    self->host_refused = TRUE;
    GST_DEBUG_OBJECT (self, "no host start: the analysis is too big for "
        "the CPU");
    return FALSE;
  }
  if (env && (g_str_equal (env, "on") || g_str_equal (env, "1")))
    return TRUE;
  return self->is_live > 0;
}

/* Host only: a live stream that the host start would take, while no GPU
 * was ever opened in the process (gst_gpu_fft_device_gpu_opened: none
 * named by a device-index, none for another stream; a CPU device such as
 * lavapipe may be open) and the process's budget has room for it
 * (gstgpuffthostbudget.h, larger where the devices opened are CPU ones),
 * is analysed on the host alone: no plan job, no device; its host plan is
 * made when its first batch is due (plan_ready), and it stays until a GPU
 * is opened in the process, when the stream moves to it as after a host
 * start. TRUE when the stream is host-only now (self->plan_config and
 * plan_analysis set). */
static gboolean
host_only_begin (GstGpuFftBase * self)
{
  gdouble points = points_per_s (&self->plan_config);
  gboolean taken = FALSE;

  /* (gpufft_plan_new_host refuses the averagings whose state lasts
   * beyond an interval) */
  if (self->is_live <= 0 || !host_start_wanted (self)
      || self->plan_config.averaging == GPUFFT_AVERAGING_EXPONENTIAL
      || self->plan_config.averaging == GPUFFT_AVERAGING_MAX_HOLD)
    return FALSE;
  GST_OBJECT_LOCK (self);
  if (self->device == NULL && !gst_gpu_fft_device_gpu_opened ()) {
    gboolean cpu_devices = gst_gpu_fft_device_any_opened ();

    if (gst_gpu_fft_host_budget_take (points, cpu_devices)) {
      self->host_only = TRUE;
      self->host_points = points;
      taken = TRUE;
    } else if (!cpu_devices) {
      /* beyond the budget, no device open yet: on the host while this
       * stream's device opens, then as its kind decides (host_only_moves) */
      self->host_only = TRUE;
      self->host_pending = TRUE;
      taken = TRUE;
    }
  }
  GST_OBJECT_UNLOCK (self);
  GST_DEBUG_OBJECT (self, "%s (%.0f FFT points a second)", !taken ?
      "not on the host alone: a GPU is open in the process, or its host "
      "budget is spent" : self->host_pending ? "on the host while a device "
      "opens: beyond the host budget" : "analysed on the host alone", points);
  /* (where no thread can open the device, the error is posted: the stream
   * stays on the host meanwhile, pending) */
  if (self->host_pending)
    need_device (self);
  return taken;
}

/* TRUE where a host-only stream moves to the device: a GPU is open in the
 * process, or the stream took no budget (beyond it) and its device, now
 * open, is a CPU device whose budget has no room left. A pending stream
 * whose device is still opening (or failed to: its error posted) stays. */
static gboolean
host_only_moves (GstGpuFftBase * self)
{
  gboolean resolved = FALSE, moves;

  if (self->host_pending) {
    if (self->device == NULL || gst_gpu_fft_device_peek (self->device) == NULL)
      return FALSE;
    self->host_pending = FALSE;
    if (!gst_gpu_fft_device_gpu_opened ()) {
      gdouble points = points_per_s (&self->plan_config);

      if (gst_gpu_fft_host_budget_take (points, TRUE)) {
        GST_OBJECT_LOCK (self);
        self->host_points = points;
        GST_OBJECT_UNLOCK (self);
      }
    }
    GST_DEBUG_OBJECT (self, "its device is open (%s): %s",
        gst_gpu_fft_device_gpu_opened ()? "a GPU in the process" :
        "a CPU device", self->host_points > 0.0 ? "stays on the host alone" :
        "moves to it");
    resolved = TRUE;
  }
  moves = gst_gpu_fft_device_gpu_opened () || self->host_points <= 0.0;
  /* (staying: its host plan's thread posts from now on) */
  if (resolved && !moves && self->plan)
    set_result_func (self);
  return moves;
}

void
gst_gpu_fft_base_stream_host_only_end (GstGpuFftBase * self)
{
  gdouble points;

  if (!self->host_only)
    return;
  GST_OBJECT_LOCK (self);
  self->host_only = FALSE;
  self->host_pending = FALSE;
  points = self->host_points;
  self->host_points = 0.0;
  GST_OBJECT_UNLOCK (self);
  gst_gpu_fft_host_budget_give (points);
}

/* The result function of self->plan. On the host alone (not pending:
 * such a stream may move to the device, which takes over once the host
 * plan has delivered all it was handed), the host plan's thread works for
 * this element only: it posts the messages itself. */
static void
set_result_func (GstGpuFftBase * self)
{
  gboolean here = self->host_only && !self->host_pending
      && gpufft_plan_is_host (self->plan);

  self->posts_here = here;
  gpufft_plan_set_result_func (self->plan, here ?
      gst_gpu_fft_base_results_on_host_result :
      gst_gpu_fft_base_results_on_result, self);
}

/* Makes plan the element's: results, limits per batch. */
static void
install_plan (GstGpuFftBase * self, GpufftPlan * plan)
{
  self->plan = plan;
  /* (a stop lets a wait for the device go; a flush waits: its intervals
   * are posted before it goes on) */
  gpufft_plan_set_cancel (plan, &self->plan_stop_cancel);
  set_result_func (self);
  /* (the message parameters of the intervals whose results never come:
   * a plan freed by a stop, a flush or a bus handler with batches in
   * flight) */
  gpufft_plan_set_tag_free (plan,
      (GDestroyNotify) gst_gpu_fft_message_params_free);
  self->max_frames = MAX (gpufft_plan_get_max_frames (plan), 1);
  self->max_groups = MAX (gpufft_plan_get_max_groups (plan), 1);
  self->batch_groups = g_renew (GstGpuFftBatchGroup, self->batch_groups,
      self->max_groups);
  self->engine_groups = g_renew (GpufftGroup, self->engine_groups,
      self->max_groups);
  GST_DEBUG_OBJECT (self, "%s plan ready: %u frames, %u groups per batch",
      gpufft_plan_is_host (plan) ? "host" : "device", self->max_frames,
      self->max_groups);
}

/* Installs a host plan of plan_job's configuration; FALSE (and no second
 * try for this job) where the host plan cannot take it. */
static gboolean
start_on_host (GstGpuFftBase * self)
{
  GpufftPlanConfig config = self->plan_config;
  GstGpuFftAnalysisTables tables;
  GpufftPlan *plan = NULL;
  GError *error = NULL;
  gchar *why = NULL;

  if (gst_gpu_fft_analysis_configure (&self->plan_analysis, &config, &tables,
          &why))
    plan = gpufft_plan_new_host (&config, &error);
  if (plan == NULL) {
    GST_DEBUG_OBJECT (self, "no host start: %s", why ? why : error->message);
    g_free (why);
    g_clear_error (&error);
    gst_gpu_fft_analysis_tables_clear (&tables);
    self->host_refused = TRUE;
    return FALSE;
  }
  /* (the same bands as the job's tables give the device's plan) */
  g_clear_pointer (&self->bands, gst_gpu_fft_bands_unref);
  self->bands = tables.bands ? gst_gpu_fft_bands_ref (tables.bands) : NULL;
  gst_gpu_fft_analysis_tables_clear (&tables);
  install_plan (self, plan);
  self->on_host = TRUE;
  return TRUE;
}

gboolean
gst_gpu_fft_base_stream_plan_ready (GstGpuFftBase * self, gboolean wait,
    gboolean due, gboolean * failed)
{
  GError *error = NULL;
  GstGpuFftAnalysisTables tables;
  GpufftPlan *plan;
  gboolean device_failed = FALSE, done = FALSE, from_host;

  *failed = FALSE;
  if (self->plan && !self->on_host)
    return TRUE;
  if (self->host_only) {
    /* (the host plan stays, until a GPU is open in the process: then the
     * stream moves to it, as after a host start; where its plan job cannot
     * start, the stream stays on the host) */
    gboolean move = host_only_moves (self);

    if (self->plan && move) {
      GST_DEBUG_OBJECT (self, "the stream moves to the device");
      if (!start_plan_job (self, NULL, NULL))
        return TRUE;
      gst_gpu_fft_base_stream_host_only_end (self);
    } else if (self->plan || !due) {
      return self->plan != NULL;
    } else if (!move && start_on_host (self)) {
      return TRUE;
    } else {
      /* the host plan cannot take this analysis, or a GPU is open
       * already: the device's plan does */
      GST_DEBUG_OBJECT (self, "not on the host alone after all: a device's "
          "plan is made");
      gst_gpu_fft_base_stream_host_only_end (self);
      if (!start_plan_job (self, NULL, NULL)) {
        self->running = FALSE;
        *failed = TRUE;
        return FALSE;
      }
    }
  }
  if (self->plan_job == NULL) {
    GST_ELEMENT_ERROR (self, CORE, FAILED, (NULL),
        ("no GPU FFT plan, made or being made"));
    *failed = TRUE;
    return FALSE;
  }
  /* (on the host plan, the device's takes over between intervals, once
   * the host plan has finished what it was handed: the switch never waits
   * for it) */
  if (self->on_host && (self->group_open
          || gpufft_plan_in_flight (self->plan) > 0))
    return TRUE;
  /* (the host plan is made when a batch is due: its tables cost the
   * first buffer nothing) */
  if (self->on_host || (due && host_start_wanted (self))) {
    done = gst_gpu_fft_plan_job_finish (self->plan_job, FALSE, NULL, &plan,
        NULL, &tables, &device_failed, &error);
    if (!done && (self->on_host || start_on_host (self)))
      return TRUE;
  }
  if (!done && !gst_gpu_fft_plan_job_finish (self->plan_job, wait,
          &self->plan_wait_cancel, &plan, NULL, &tables, &device_failed,
          &error))
    return FALSE;
  self->plan_job = NULL;
  gst_gpu_fft_plan_job_prune (self->given_up_jobs);
  from_host = self->on_host;
  if (from_host) {
    /* the host plan's results are handed to the poster before the
     * device's first (collect waits for their delivery; the poster keeps
     * their order) */
    gint collected = gpufft_plan_collect (self->plan, TRUE, NULL, NULL,
        NULL);

    gpufft_plan_free (self->plan);
    self->plan = NULL;
    self->on_host = FALSE;
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
    self->running = FALSE;      /* no plan: the next buffer starts over */
    *failed = TRUE;
    return FALSE;
  }
  /* (a live stream's backlog: a stream that is not live waits for slots
   * anyway; after a host plan the store holds only what the next frames
   * reach back to) */
  self->catching_up = self->is_live > 0 && self->store.len > 0 && !from_host;
  g_clear_pointer (&self->bands, gst_gpu_fft_bands_unref);
  self->bands = tables.bands ? gst_gpu_fft_bands_ref (tables.bands) : NULL;
  gst_gpu_fft_analysis_tables_clear (&tables);
  install_plan (self, plan);
  return TRUE;
}

/* ------------------------------------------------------------------------ */
/* batches                                                                  */

/* The message parameters of a closing interval, computed now (the
 * segment, settings and plan in force) and handed to the engine as the
 * group's tag; NULL when no message is to be posted. */
static GstGpuFftMessageParams *
make_message_params (GstGpuFftBase * self, const GstGpuFftBatchGroup * g)
{
  const GstGpuFftBaseSettings *live = &self->live;
  GstSegment *segment = &GST_BASE_TRANSFORM (self)->segment;
  GstGpuFftMessageParams *p;
  gboolean cut = g->end < gst_gpu_fft_framing_grid_boundary
      (&self->framing.grid, g->interval + 1);
  gboolean compat = GST_GPU_FFT_BASE_GET_CLASS (self)->spectrum_compat;

  /* (discarding: only the interval cut short; complete ones still waiting
   * in the store, a live stream's backlog, are posted; gpuspectrum: every
   * interval gets its parameters, posted or not, for the carry of a cut) */
  if ((!live->post_messages && !compat) || (self->discarding && cut))
    return NULL;
  p = g_new0 (GstGpuFftMessageParams, 1);
  p->post = live->post_messages;
  p->carry = self->cutting && cut;
  self->cut_closed |= p->carry;
  p->restart_gen = self->restart_gen;
  /* (the cut interval belongs to the cut being made; complete intervals
   * flushed with it, to the grid before) */
  p->cut_seq = self->cut_seq + (p->carry ? 1 : 0);
  p->interval = g->interval;
  p->timestamp = gst_gpu_fft_base_stream_sample_to_time (self, g->start);
  p->duration =
      gst_gpu_fft_base_stream_sample_to_time (self, g->end) - p->timestamp;
  if (GST_GPU_FFT_BASE_GET_CLASS (self)->spectrum_compat)
    p->timestamp = compat_timestamp (self, g->interval);
  if (segment->format == GST_FORMAT_TIME) {
    p->stream_time = gst_segment_to_stream_time (segment, GST_FORMAT_TIME,
        p->timestamp);
    p->running_time = gst_segment_to_running_time (segment, GST_FORMAT_TIME,
        p->timestamp);
  } else {
    /* a non-TIME segment (e.g. appsrc in bytes): no conversion applies */
    p->stream_time = p->running_time = p->timestamp;
  }
  p->rate = GST_AUDIO_INFO_RATE (&self->info);
  p->fft_size = self->plan_config.fft_size;
  p->hop = self->plan_config.hop;
  p->window = self->plan_config.window;
  p->scaling = self->plan_config.scaling;
  p->multi_channel = !self->plan_config.downmix;
  p->format = live->message_format;
  p->magnitude = live->message_magnitude;
  p->phase = live->message_phase;
  p->db_offset = self->plan_config.db_offset;
  p->threshold = live->threshold;
  p->min_bin = self->min_bin;
  p->max_bin = self->max_bin;
  p->n_peaks = self->plan_config.n_peaks;
  p->dominant = live->message_dominant;
  p->compat = GST_GPU_FFT_BASE_GET_CLASS (self)->spectrum_compat;
  p->gen = self->applied_reset_gen;
  p->analysis = self->plan_analysis;
  p->bands = self->bands ? gst_gpu_fft_bands_ref (self->bands) : NULL;
  /* the interval's first frame: the first whose last sample is in it */
  p->first_frame = g->start + 1 > p->fft_size ?
      (g->start + 1 - p->fft_size + p->hop - 1) / p->hop : 0;
  p->base_pts = self->base_pts;
  if (p->compat) {
    /* spectrum's duration is its interval property (a complete interval
     * spans it to the sample; the partial one at EOS says how long it is) */
    GstClockTime one = gst_util_uint64_scale_ceil (1, GST_SECOND, p->rate);

    if (p->duration + one >= live->interval)
      p->duration = live->interval;
  }
  /* the intervals dropped so far go to the first message that follows */
  p->dropped = self->dropped_pending;
  self->dropped_pending = 0;
  return p;
}

/* Live input whose analysis is behind: the batch's intervals are not
 * analysed (the audio passes on time); counted in the next message, with a
 * warning at most every 10 s, posted by the element's poster after the
 * messages of the intervals before (not ahead of them). */
#define DROP_WARNING_INTERVAL_US (10 * G_USEC_PER_SEC)

void
gst_gpu_fft_base_stream_drop (GstGpuFftBase * self, guint n,
    gboolean plan_pending)
{
  gint64 now = g_get_monotonic_time ();
  GError *err;
  gchar *debug;

  self->dropped_pending += n;
  GST_OBJECT_LOCK (self);       /* (read by the stats property) */
  self->dropped_total += n;
  GST_OBJECT_UNLOCK (self);
  GST_DEBUG_OBJECT (self, "%s: %u intervals dropped", plan_pending ?
      "plan not ready" : self->on_host ? "CPU behind" : "GPU behind", n);
  if (self->drop_warned_at != 0
      && now - self->drop_warned_at < DROP_WARNING_INTERVAL_US)
    return;
  self->drop_warned_at = now;
  err = g_error_new_literal (GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_BUSY,
      plan_pending ? "The GPU analysis is still being prepared (its shaders "
      "compile): intervals of analysis are dropped (the audio passes on "
      "time)" : self->host_only ? "The analysis on the CPU falls behind "
      "the live stream: intervals of analysis are dropped (the audio passes "
      "on time)" : self->on_host ? "The analysis on the CPU, which stands "
      "in while the GPU's is being prepared, falls behind the live stream: "
      "intervals of analysis are dropped (the audio passes on time)" :
      "The GPU falls behind the live stream: intervals of "
      "analysis are dropped (the audio passes on time)");
  debug = g_strdup_printf ("%" G_GUINT64_FORMAT " intervals dropped so far; "
      "the next message says how many in its `dropped` field",
      self->dropped_total);
  GST_WARNING_OBJECT (self, "%s (%s)", err->message, debug);
  gst_gpu_fft_poster_push (self->poster, gst_message_new_warning
      (GST_OBJECT (self), err, debug), NULL, FALSE, 0, FALSE);
  g_error_free (err);
  g_free (debug);
}

static void
drop_intervals (GstGpuFftBase * self, const GstGpuFftBatchPlan * bp)
{
  guint i, n = 0;

  for (i = 0; i < bp->n_groups; i++)
    n += bp->groups[i].close ? 1 : 0;
  gst_gpu_fft_base_stream_drop (self, n, FALSE);
}

/* A reference on an input buffer, mapped, while the GPU reads it in place
 * (GpufftSegment.release). */
typedef struct
{
  GstBuffer *buf;
  GstMapInfo map;
} HeldInput;

static void
held_input_release (gpointer data)
{
  HeldInput *h = data;

  gst_buffer_unmap (h->buf, &h->map);
  gst_buffer_unref (h->buf);
  g_free (h);
}

/* Lets the engine read `seg` (interleaved, at `data` inside the input
 * buffer) in place when the buffer's memory is the element's allocator's
 * (gstgpufftallocator.h) or the segment is large enough to import: the
 * buffer is referenced and mapped until the engine releases it. */
static void
offer_in_place (GstGpuFftBase * self, GpufftSegment * seg)
{
  gsize min = gpufft_plan_get_import_min_bytes (self->plan);
  GpufftHostMemory *host = NULL;
  HeldInput *h;

  /* (gpuspectrum keeps no reference on a buffer, as spectrum keeps none) */
  if (self->in_buf == NULL
      || GST_GPU_FFT_BASE_GET_CLASS (self)->spectrum_compat)
    return;
  if (gst_buffer_n_memory (self->in_buf) == 1)
    host = gst_gpu_fft_allocator_memory_host (gst_buffer_peek_memory
        (self->in_buf, 0));
  /* (the memory of another element's device is copied, not imported) */
  if (host && (self->device == NULL || gpufft_host_memory_get_context (host)
          != gst_gpu_fft_device_peek (self->device)))
    return;
  if (host == NULL && (min == 0
          || seg->n_samples * GST_AUDIO_INFO_BPF (&self->info) < min))
    return;
  h = g_new0 (HeldInput, 1);
  if (!gst_buffer_map (self->in_buf, &h->map, GST_MAP_READ)) {
    g_free (h);
    return;
  }
  h->buf = gst_buffer_ref (self->in_buf);
  /* (the same memory, so the same place in this mapping) */
  seg->data = h->map.data + ((const guint8 *) seg->data - self->in_data);
  seg->release = held_input_release;
  seg->release_data = h;
  seg->host = host;
}

/* (the plan can take a batch without waiting) */
static gboolean
plan_has_slot (gpointer plan)
{
  return gpufft_plan_in_flight (plan) < gpufft_plan_get_n_slots (plan);
}

/* Hands one planned batch to the engine. Its span comes from the store
 * (samples before `pos`) and from the current input (`planes`, n samples
 * from `pos`). Posts the messages of the groups it closes. */
static gboolean
submit_batch (GstGpuFftBase * self, const GstGpuFftBatchPlan * bp,
    gboolean flush, guint64 pos, gpointer const *planes, gsize n)
{
  const GstAudioInfo *info = &self->info;
  guint channels = GST_AUDIO_INFO_CHANNELS (info);
  gboolean planar = self->plan_config.planar;
  gsize bps = GST_AUDIO_INFO_BPS (info);
  GpufftSegment segs[3];
  GpufftBatch batch;
  GError *error = NULL;
  gboolean busy = FALSE;
  guint64 s0 = bp->span_start;
  guint64 s1 = s0 + gst_gpu_fft_framing_span (&self->framing, bp->n_frames)
      - bp->lead;
  guint i, c;

  /* (the framing was updated by the planner; its N and hop are those the
   * batch was planned with) */
  memset (&batch, 0, sizeof (batch));
  memset (segs, 0, sizeof (segs));
  if (bp->n_frames > 0 && bp->lead > 0) {
    /* zeros before the stream's first sample (gpuspectrum's first frame
     * of an interval shorter than a frame, as spectrum's) */
    GpufftSegment *seg = &segs[batch.n_segments++];
    gsize bytes = (gsize) bp->lead * GST_AUDIO_INFO_BPF (info);

    if (self->zeros_size < bytes) {
      g_free (self->zeros);
      self->zeros = g_malloc0 (bytes);
      self->zeros_size = bytes;
    }
    seg->n_samples = bp->lead;
    if (planar) {
      for (c = 0; c < channels; c++)
        self->seg_planes[2 * channels + c] = self->zeros;
      seg->planes = self->seg_planes + 2 * channels;
    } else {
      seg->data = self->zeros;
    }
  }
  if (bp->n_frames > 0) {
    if (s0 < pos) {
      GpufftSegment *seg = &segs[batch.n_segments++];

      if (s0 < self->store.start || pos > gst_gpu_fft_store_end (&self->store)) {
        GST_ELEMENT_ERROR (self, CORE, FAILED, (NULL),
            ("internal: samples %" G_GUINT64_FORMAT "..%" G_GUINT64_FORMAT
                " not stored", s0, pos));
        return FALSE;
      }
      seg->n_samples = MIN (pos, s1) - s0;
      if (planar) {
        for (c = 0; c < channels; c++)
          self->seg_planes[c] = gst_gpu_fft_store_at (&self->store, c, s0);
        seg->planes = self->seg_planes;
      } else {
        seg->data = gst_gpu_fft_store_at (&self->store, 0, s0);
      }
    }
    if (s1 > pos) {
      GpufftSegment *seg = &segs[batch.n_segments++];
      guint64 from = MAX (s0, pos);
      gsize off = (gsize) (from - pos);

      if (s1 > pos + n) {
        GST_ELEMENT_ERROR (self, CORE, FAILED, (NULL),
            ("internal: batch beyond the input"));
        return FALSE;
      }
      seg->n_samples = s1 - from;
      if (planar) {
        for (c = 0; c < channels; c++)
          self->seg_planes[channels + c] =
              (const guint8 *) planes[c] + off * bps;
        seg->planes = self->seg_planes + channels;
      } else {
        seg->data = (const guint8 *) planes[0] + off * bps * channels;
        offer_in_place (self, seg);
      }
    }
  }

  for (i = 0; i < bp->n_groups; i++) {
    self->engine_groups[i].n_frames = bp->groups[i].n_frames;
    self->engine_groups[i].close = bp->groups[i].close;
    self->engine_groups[i].tag = bp->groups[i].close ?
        make_message_params (self, &bp->groups[i]) : NULL;
    /* the `reset` action restarts the averaging state here */
    self->engine_groups[i].reset = i == 0
        && g_atomic_int_compare_and_exchange (&self->reset_pending, 1, 0);
  }
  batch.segments = segs;
  batch.n_frames = bp->n_frames;
  batch.groups = self->engine_groups;
  batch.n_groups = bp->n_groups;
  batch.db_floor = (gfloat) self->live.threshold;
  /* live: never hold the audio for the GPU */
  /* (live: a full device drops the batch, but for the backlog of a late
   * plan, and what a host plan is handed, flushed at a restart or the end:
   * that waits for a slot) */
  batch.no_wait = self->is_live > 0 && !(flush && (self->catching_up
          || self->on_host));
  /* a plan whose thread posts (a bus handler on it may be stopping the
   * pipeline): a batch it would wait for waits here instead, as for the
   * poster, and is dropped (counted) where the element stops or flushes
   * meanwhile; while flushing, an interval the dropped batch leaves open
   * in the plan runs into the next one */
  if (self->posts_here && !(batch.no_wait && !self->group_open
          && bp->n_groups > 0 && bp->groups[bp->n_groups - 1].close)
      && !gst_gpu_fft_poster_wait_until (self->poster, plan_has_slot,
          self->plan)) {
    g_set_error (&error, GPUFFT_ERROR, GPUFFT_ERROR_BUSY,
        "the element stops or flushes while its host plan is full");
    busy = TRUE;
  }

  /* not live: the messages of earlier batches are posted first, as when
   * the device's completion thread posted them (a bus handler that is
   * slow holds the stream, and its property changes apply at the next
   * batch) */
  if (!batch.no_wait)
    gst_gpu_fft_poster_wait (self->poster);

  GST_LOG_OBJECT (self, "batch: %u frames from %" G_GUINT64_FORMAT
      ", %u groups%s", bp->n_frames, s0, bp->n_groups,
      bp->closes ? " (closing)" : "");
  if (!busy && gpufft_plan_submit (self->plan, &batch, &error)) {
    self->group_open = bp->n_groups > 0 && !bp->groups[bp->n_groups - 1].close;
    if (self->on_host) {
      guint closed = 0;

      for (i = 0; i < bp->n_groups; i++)
        closed += bp->groups[i].close ? 1 : 0;
      GST_OBJECT_LOCK (self);   /* (read by the stats property) */
      self->host_total += closed;
      GST_OBJECT_UNLOCK (self);
    }
    return TRUE;
  }
  /* (a reset this batch carried waits for the next one) */
  if (bp->n_groups > 0 && self->engine_groups[0].reset)
    g_atomic_int_set (&self->reset_pending, 1);
  for (i = 0; i < bp->n_groups; i++) {
    GstGpuFftMessageParams *p = self->engine_groups[i].tag;

    /* (a count the tag carried is carried by the next one) */
    if (p)
      self->dropped_pending += p->dropped;
    gst_gpu_fft_message_params_free (p);
  }
  /* (BUSY: a full device; CANCELLED: a stop let the wait for a slot go) */
  if (g_error_matches (error, GPUFFT_ERROR, GPUFFT_ERROR_BUSY)
      || g_error_matches (error, GPUFFT_ERROR, GPUFFT_ERROR_CANCELLED)) {
    g_clear_error (&error);
    drop_intervals (self, bp);
    return TRUE;
  }
  gst_gpu_fft_base_results_post_engine_error (self, "Submitting a GPU batch",
      error);
  g_clear_error (&error);
  return FALSE;
}

#define HANDOVER_BYTES (256u << 10)

/* Runs the planner over what was received up to `avail_end` (the input
 * being [pos, pos + n)), submitting every batch that is due. */
gboolean
gst_gpu_fft_base_stream_run_batches (GstGpuFftBase * self, guint64 avail_end,
    gboolean flush, guint64 pos, gpointer const *planes, gsize n)
{
  for (;;) {
    GstGpuFftBatchPlan bp;

    /* (a live stream catching up keeps what no slot can take now for the
     * next buffer; the store stays within its bound meanwhile, see
     * gstgpufftbase.c) */
    if (self->catching_up && !flush && gpufft_plan_in_flight (self->plan) >=
        gpufft_plan_get_n_slots (self->plan))
      return TRUE;
    bp.groups = self->batch_groups;
    /* live: only closed intervals go to the GPU, so that a batch can
     * always be dropped whole when the GPU is behind (an interval spanning
     * batches could not); on the host plan too, so that the device's can
     * take over at any batch */
    gst_gpu_fft_framing_next_batch (&self->framing, avail_end, flush,
        self->is_live > 0 || self->on_host, self->max_frames,
        self->max_groups, &bp);
    if (bp.submit && !submit_batch (self, &bp, flush, pos, planes, n))
      return FALSE;
    /* a partial interval a restart closes before it holds a frame gets no
     * message: the next message counts it in `dropped`, so that its
     * timestamp + duration meets the next one's or the gap is counted */
    if (bp.flushed_empty) {
      GST_DEBUG_OBJECT (self, "partial interval without a frame at the "
          "restart: counted in the next message's dropped");
      self->dropped_pending++;
    }
    if (!bp.submit || bp.flushed)
      break;
  }
  self->catching_up = FALSE;

  /* batch-size 0 (automatic), and at least HANDOVER_BYTES of samples
   * waiting (big buffers, long intervals): hand the complete frames of the
   * open interval over now rather than keep their samples until the
   * interval ends: the store then holds less than a frame and a hop, so
   * each sample is copied once (into staging), and the GPU works while the
   * stream goes on. Smaller buffers wait for the interval to close: one
   * batch per interval, whatever the buffer size. Not on a host plan:
   * its batches end with their intervals, so that the device's plan can
   * take over at the next. */
  if (!flush && self->is_live <= 0 && self->live.batch_size == 0
      && !self->on_host
      && (avail_end - self->framing.next_start) *
      GST_AUDIO_INFO_BPF (&self->info) >= HANDOVER_BYTES
      && avail_end >= self->framing.next_start + self->framing.fft_size) {
    guint64 ready = (avail_end - self->framing.next_start -
        self->framing.fft_size) / self->framing.hop + 1;
    GstGpuFftBatchPlan bp;

    bp.groups = self->batch_groups;
    gst_gpu_fft_framing_next_batch (&self->framing, avail_end, FALSE, FALSE,
        (guint) MIN (ready, self->max_frames), self->max_groups, &bp);
    if (bp.submit && !submit_batch (self, &bp, FALSE, pos, planes, n))
      return FALSE;
  }
  return TRUE;
}

/* Forgets what was received: the next buffer starts the analysis anew. */
static void
forget_received (GstGpuFftBase * self)
{
  self->running = FALSE;
  self->received = 0;
  self->restart_gen++;
  self->compat_timed = FALSE;
  if (self->compat_starts)
    g_array_set_size (self->compat_starts, 0);
  self->catching_up = FALSE;
  self->group_open = FALSE;
  gst_gpu_fft_store_reset (&self->store, 0);
}

void
gst_gpu_fft_base_stream_drop_stored (GstGpuFftBase * self)
{
  const GstGpuFftGrid *grid = &self->framing.grid;
  guint64 k = gst_gpu_fft_framing_grid_index_of (grid, self->received);

  /* the complete intervals, and the open one where it has samples */
  if (self->received > gst_gpu_fft_framing_grid_boundary (grid, k))
    k++;
  if (self->store.len > 0 && k > 0)
    gst_gpu_fft_base_stream_drop (self, (guint) MIN (k, G_MAXUINT), TRUE);
  self->next_pts = gst_gpu_fft_base_stream_sample_to_time (self,
      self->received);
  forget_received (self);
}

/* Posts the pending interval (if it holds frames) and restarts the
 * framing: nothing before can reach a frame after. */
gboolean
gst_gpu_fft_base_stream_flush_and_restart (GstGpuFftBase * self,
    gboolean ending)
{
  gboolean ok = TRUE;

  if (self->running && (self->plan || self->plan_job || self->host_only)) {
    gboolean failed;

    /* What the store holds is analysed: the plan is waited for, but by a
     * live stream only at its end (else what the store holds is dropped,
     * counted, and the plan, still being made, serves what comes next). */
    if (gst_gpu_fft_base_stream_plan_ready (self, ending
            || self->is_live <= 0, TRUE, &failed)) {
      GST_DEBUG_OBJECT (self, "restart after %" G_GUINT64_FORMAT " samples",
          self->received);
      ok = gst_gpu_fft_base_stream_run_batches (self, self->received, TRUE,
          self->received, NULL, 0);
      self->next_pts = gst_gpu_fft_base_stream_sample_to_time (self,
          self->received);
    } else if (!failed && g_atomic_int_get (&self->plan_wait_cancel)) {
      /* (a flush or a stop let the wait go: what was stored is let go,
       * not counted) */
      GST_DEBUG_OBJECT (self, "flushing or stopping while the plan is made");
    } else if (!failed) {
      gst_gpu_fft_base_stream_drop_stored (self);
      return TRUE;
    } else {
      ok = FALSE;
    }
  }
  forget_received (self);
  return ok;
}

gboolean
gst_gpu_fft_base_stream_cut (GstGpuFftBase * self)
{
  GstGpuFftFraming *f = &self->framing;
  guint64 at = self->received, k, len, need;
  gboolean failed, ok;

  if (!gst_gpu_fft_base_stream_plan_ready (self, self->is_live <= 0, TRUE,
          &failed))
    return failed ? FALSE : gst_gpu_fft_base_stream_flush_and_restart (self,
        FALSE);
  /* (spectrum's next interval is as long as the one the cut falls in) */
  k = gst_gpu_fft_framing_grid_index_of (&f->grid, at);
  len = gst_gpu_fft_framing_grid_boundary (&f->grid, k + 1) -
      gst_gpu_fft_framing_grid_boundary (&f->grid, k);
  GST_DEBUG_OBJECT (self, "DISCONT: interval cut after %" G_GUINT64_FORMAT
      " samples, the next %" G_GUINT64_FORMAT " long", at -
      gst_gpu_fft_framing_grid_boundary (&f->grid, k), len);
  self->cutting = TRUE;
  self->cut_closed = FALSE;
  ok = gst_gpu_fft_base_stream_run_batches (self, at, TRUE, at, NULL, 0);
  self->cutting = FALSE;
  /* (but for an interval 0 cut before its first frame: the carry of the
   * cut before goes on to the next grid's interval 0, as spectrum's sums
   * do) */
  if (self->cut_closed || k != 0)
    self->cut_seq++;
  if (!ok)
    return FALSE;
  need = gst_gpu_fft_framing_cut (f, at, len);
  /* (the messages of the intervals before are timed: what is left of
   * their record goes; the next interval takes this buffer's PTS) */
  self->compat_timed = FALSE;
  if (self->compat_starts)
    g_array_set_size (self->compat_starts, 0);
  /* (what a frame after the cut reaches back to is still stored, but for
   * an interval shorter than a frame right after a restart) */
  if (need < self->store.start && need < at) {
    GST_DEBUG_OBJECT (self, "samples before the cut no longer stored: "
        "restarting");
    return gst_gpu_fft_base_stream_flush_and_restart (self, FALSE);
  }
  return TRUE;
}
