/* gpufftspectrogram: the analysis's state (streaming thread only, and the
 * element's start, stop and finalize, which GStreamer serialises with
 * it): the engine plan (one group of frames per waterfall column, levels
 * in dB), the renderer (gpufft-render.h) and the layout, made from the
 * settings (object lock: copied once per buffer with their cookie).
 * State is rebuilt (plan, renderer, layout, overlay) when the settings
 * cookie moved and something that shapes the picture changed; a change of
 * levels, colour map, title or peak fall only redraws the LUT and the
 * overlay. Plan and renderer are made on a thread of their own
 * (gstgpufftplanjob.h), never here; a job given up is kept in `given_up`
 * until its thread is done (finalize waits for them, with a deadline).
 * The wait for a job lets go at a flush or a stop (plan_wait_cancel).
 * Bounds: a render run takes at most RENDER_COLUMN_BYTES of new columns
 * (2^27, the least storage buffer every Vulkan device binds). */
#include <math.h>
#include <string.h>

#include "gstgpufftspectrogram-private.h"
#include "gstgpufftanalysis.h"

#define GST_CAT_DEFAULT gst_gpu_fft_spectrogram_debug

/* the most bytes of new columns one render run takes: the least storage
 * buffer every Vulkan device binds (maxStorageBufferRange >= 2^27) */
#define RENDER_COLUMN_BYTES ((gsize) 1 << 27)
#define DB_OFFSET 3.0102999566398120    /* 10 log10 2: a sine reads 20 log10 A */

static guint
next_pow2 (guint v)
{
  guint p = 1;

  while (p < v)
    p <<= 1;
  return p;
}

static gboolean
shaping_equal (const GstGpuFftSpectrogramSettings * a,
    const GstGpuFftSpectrogramSettings * b)
{
  return a->mode == b->mode && a->axis == b->axis
      && a->min_frequency == b->min_frequency
      && a->max_frequency == b->max_frequency
      && a->octave_fraction == b->octave_fraction
      && a->fft_size == b->fft_size && a->window == b->window
      && a->overlap == b->overlap && a->time_span == b->time_span
      && a->axes == b->axes && a->device_index == b->device_index;
}

static void
free_state (GstGpuFftSpectrogram * self)
{
  if (self->job) {
    if (!self->given_up)
      self->given_up = g_ptr_array_new ();
    gst_gpu_fft_plan_job_abandon (self->job, self->given_up);
    self->job = NULL;
  }
  g_clear_pointer (&self->plan, gpufft_plan_free);
  g_clear_pointer (&self->render, gpufft_render_free);
  g_clear_pointer (&self->bands, gst_gpu_fft_bands_unref);
  self->cookie = 0;
}

void
gst_gpu_fft_spectrogram_state_reset (GstGpuFftSpectrogram * self)
{
  free_state (self);
  if (self->fifo)
    self->fifo->len = 0;
  if (self->columns)
    g_array_set_size (self->columns, 0);
  self->fifo_origin = 0;
  self->pad_pending = FALSE;
  self->gapped = FALSE;
  self->next_frame = 0;
  self->next_column = 0;
  self->open_frames = 0;
  self->samples = 0;
  self->t0 = GST_CLOCK_TIME_NONE;
  self->video_frame = 0;
  self->columns_rendered = 0;
}

void
gst_gpu_fft_spectrogram_state_free (GstGpuFftSpectrogram * self)
{
  gst_gpu_fft_spectrogram_state_reset (self);
  /* (the next start has no levels in use to keep) */
  self->cur.min_db = self->cur.max_db = 0;
  if (self->fifo) {
    g_free (self->fifo->data);
    g_free (self->fifo);
    self->fifo = NULL;
  }
  if (self->columns) {
    g_array_unref (self->columns);
    self->columns = NULL;
  }
  if (self->given_up)
    gst_gpu_fft_plan_job_prune (self->given_up);
}

gboolean
gst_gpu_fft_spectrogram_state_wait_released (GstGpuFftSpectrogram * self,
    guint timeout_ms)
{
  gboolean done;

  if (!self->given_up)
    return gpufft_wait_released (timeout_ms);
  done = gst_gpu_fft_plan_job_wait_given_up (self->given_up, timeout_ms);
  g_ptr_array_unref (self->given_up);
  self->given_up = NULL;
  return done;
}

static gboolean
engine_format (GstAudioFormat f, GpufftFormat * out)
{
  switch (f) {
    case GST_AUDIO_FORMAT_S16LE:
      *out = GPUFFT_FORMAT_S16;
      return TRUE;
    case GST_AUDIO_FORMAT_S24LE:
      *out = GPUFFT_FORMAT_S24;
      return TRUE;
    case GST_AUDIO_FORMAT_S32LE:
      *out = GPUFFT_FORMAT_S32;
      return TRUE;
    case GST_AUDIO_FORMAT_F32LE:
      *out = GPUFFT_FORMAT_F32;
      return TRUE;
    case GST_AUDIO_FORMAT_F64LE:
      *out = GPUFFT_FORMAT_F64;
      return TRUE;
    default:
      return FALSE;
  }
}

/* bit offsets of r, g, b, a (or x) in a little-endian 32-bit word */
static gboolean
format_shifts (GstVideoFormat f, guint shift[4])
{
  static const struct
  {
    GstVideoFormat f;
    guint s[4];
  } t[] = {
    {GST_VIDEO_FORMAT_RGBA, {0, 8, 16, 24}},
    {GST_VIDEO_FORMAT_RGBx, {0, 8, 16, 24}},
    {GST_VIDEO_FORMAT_BGRA, {16, 8, 0, 24}},
    {GST_VIDEO_FORMAT_BGRx, {16, 8, 0, 24}},
    {GST_VIDEO_FORMAT_ARGB, {8, 16, 24, 0}},
    {GST_VIDEO_FORMAT_xRGB, {8, 16, 24, 0}},
    {GST_VIDEO_FORMAT_ABGR, {24, 16, 8, 0}},
    {GST_VIDEO_FORMAT_xBGR, {24, 16, 8, 0}},
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (t); i++)
    if (t[i].f == f) {
      memcpy (shift, t[i].s, sizeof (t[i].s));
      return TRUE;
    }
  return FALSE;
}

static void
draw_look (GstGpuFftSpectrogram * self)
{
  guint32 *lut = gpufft_render_lut (self->render);

  gst_gpu_fft_layout_lut (&self->layout, lut, self->cur.colormap);
  gst_gpu_fft_layout_draw (&self->layout, gpufft_render_overlay (self->render),
      &self->axis, self->bands, self->cur.min_db, self->cur.max_db, lut,
      self->cur.title);
}

/* frames per second of video as a double */
gdouble
gst_gpu_fft_spectrogram_state_fps (GstGpuFftSpectrogram * self)
{
  return (gdouble) GST_VIDEO_INFO_FPS_N (&self->vinfo) /
      GST_VIDEO_INFO_FPS_D (&self->vinfo);
}

/* A hop in samples: v rounded, 1 .. G_MAXUINT (huge rates and spans are
 * clamped, never wrapped). */
static guint
hop_of (gdouble v)
{
  v = round (v);
  if (!(v >= 1))
    return 1;
  return v >= (gdouble) G_MAXUINT ? G_MAXUINT : (guint) v;
}

static gboolean
build (GstGpuFftSpectrogram * self, const GstGpuFftSpectrogramSettings * s)
{
  GstGpuFftLayout *l = &self->layout;
  gdouble rate = GST_AUDIO_INFO_RATE (&self->ainfo), nyq = rate / 2;
  guint rows, n, n_map;
  gdouble per_frame;
  GpufftPlanConfig pc;
  GstGpuFftAnalysis an;
  GstGpuFftAnalysisTables tables;
  GpufftRenderConfig rc;
  GpufftRenderMap *map;
  GError *error = NULL;
  gchar *why = NULL;

  free_state (self);
  memset (&rc, 0, sizeof (rc));
  if (!format_shifts (GST_VIDEO_INFO_FORMAT (&self->vinfo), rc.shift)) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, (NULL),
        ("video format %s is not a 32-bit RGB format",
            GST_VIDEO_INFO_NAME (&self->vinfo)));
    return FALSE;
  }
  gst_gpu_fft_layout_compute (l, GST_VIDEO_INFO_WIDTH (&self->vinfo),
      GST_VIDEO_INFO_HEIGHT (&self->vinfo), s->mode, s->axes, rc.shift);

  /* the frequency axis */
  self->axis.axis = s->axis;
  self->axis.f_hi = (s->max_frequency <= 0 || s->max_frequency > nyq) ? nyq :
      s->max_frequency;
  self->axis.f_lo = s->min_frequency;
  if ((s->axis == GST_GPU_FFT_AXIS_LOG || s->axis == GST_GPU_FFT_AXIS_OCTAVE)
      && self->axis.f_lo <= 0)
    self->axis.f_lo = MIN (20.0, self->axis.f_hi / 10);
  if (!(self->axis.f_lo < self->axis.f_hi)) {
    GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS, (NULL),
        ("min-frequency %g Hz must be below max-frequency %g Hz (at most "
            "rate/2 = %g Hz)", s->min_frequency, self->axis.f_hi, nyq));
    return FALSE;
  }

  /* the analysis geometry */
  rows = l->wf_h > 0 ? l->wf_h : l->sp_w;
  n = s->fft_size;
  if (n == 0)
    n = CLAMP (next_pow2 ((s->axis == GST_GPU_FFT_AXIS_LINEAR ? 2 : 4) *
            rows), 256, 16384);
  self->fft_size = n;
  if (l->wf_w > 0)
    self->column_hop = hop_of (rate * s->time_span / l->wf_w);
  else
    self->column_hop = hop_of (rate / gst_gpu_fft_spectrogram_state_fps (self));
  self->frame_hop = MIN (self->column_hop, hop_of (n * (1.0 - s->overlap)));
  /* columns and frames one video frame brings, with room to spare (in
   * double: at a frame an hour they pass 32 bits) */
  per_frame =
      ceil (rate / gst_gpu_fft_spectrogram_state_fps (self) /
      self->column_hop) + 2;
  self->max_columns = l->wf_w > 0 ? (guint) MIN (l->wf_w, per_frame) : 1;

  gpufft_plan_config_init (&pc);
  pc.fft_size = n;
  pc.hop = self->frame_hop;
  pc.window = (GpufftWindow) s->window;
  if (!engine_format (GST_AUDIO_INFO_FORMAT (&self->ainfo), &pc.format)) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, (NULL),
        ("audio format %s is not one of S16LE, S24LE, S32LE, F32LE, F64LE",
            GST_AUDIO_INFO_NAME (&self->ainfo)));
    return FALSE;
  }
  pc.channels = GST_AUDIO_INFO_CHANNELS (&self->ainfo);
  pc.downmix = TRUE;
  pc.scaling = GPUFFT_SCALING_SPECTRUM;
  pc.rate = rate;
  pc.max_frames =
      (guint) CLAMP (ceil (rate / gst_gpu_fft_spectrogram_state_fps (self) /
          self->frame_hop) + 4, 16, 4096);
  pc.max_groups = pc.max_frames;
  pc.n_peaks = 0;
  pc.output_db = TRUE;
  pc.db_offset = (gfloat) DB_OFFSET;

  memset (&an, 0, sizeof (an));
  an.scale = s->axis == GST_GPU_FFT_AXIS_OCTAVE ?
      GST_GPU_FFT_FREQUENCY_SCALE_OCTAVE : GST_GPU_FFT_FREQUENCY_SCALE_LINEAR;
  an.octave_fraction = s->octave_fraction;
  an.min_frequency = self->axis.f_lo;
  an.max_frequency = self->axis.f_hi;
  an.weighting = GST_GPU_FFT_WEIGHTING_Z;
  an.averaging = GPUFFT_AVERAGING_MEAN;
  if (!gst_gpu_fft_analysis_configure (&an, &pc, &tables, &why)) {
    GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS, (NULL),
        ("octave bands: %s", why));
    g_free (why);
    gst_gpu_fft_analysis_tables_clear (&tables);
    return FALSE;
  }
  if (tables.bands)
    self->bands = gst_gpu_fft_bands_ref (tables.bands);
  self->n_values = self->bands ? self->bands->n_bands : n / 2 + 1;
  /* the renderer's columns fit one storage buffer on every device
   * (render_frame () hands more over in turns) */
  self->max_columns = CLAMP (RENDER_COLUMN_BYTES / ((gsize) self->n_values *
          sizeof (gfloat)), 1, self->max_columns);

  /* the renderer */
  rc.width = l->width;
  rc.height = l->height;
  rc.wf_x = l->wf_x;
  rc.wf_y = l->wf_y;
  rc.wf_w = l->wf_w;
  rc.wf_h = l->wf_h;
  rc.sp_x = l->sp_x;
  rc.sp_y = l->sp_y;
  rc.sp_w = l->sp_w;
  rc.sp_h = l->sp_h;
  rc.n_values = self->n_values;
  rc.max_columns = self->max_columns;
  rc.background = 0x000000;
  rc.bar_background = 0x101010;
  rc.peak = 0xffffff;
  n_map = l->wf_h + l->sp_w;
  map = g_new0 (GpufftRenderMap, MAX (n_map, 1));
  gst_gpu_fft_layout_map (map, l->wf_h, &self->axis, n, rate, self->bands);
  gst_gpu_fft_layout_map (map + l->wf_h, l->sp_w, &self->axis, n, rate,
      self->bands);
  rc.map = map;
  /* (plan and renderer are made beside the stream: gst_gpu_fft_spectrogram_state_ready()) */
  self->job = gst_gpu_fft_plan_job_start (self->device, &pc, &tables, &rc,
      &error);
  g_free (map);
  gst_gpu_fft_analysis_tables_clear (&tables);
  if (!self->job)
    goto engine_error;

  GST_INFO_OBJECT (self, "%ux%u waterfall %ux%u at (%u,%u), spectrum %ux%u; "
      "fft-size %u, frame hop %u, column hop %u, %u values, axis %g..%g Hz",
      l->width, l->height, l->wf_w, l->wf_h, l->wf_x, l->wf_y, l->sp_w,
      l->sp_h, n, self->frame_hop, self->column_hop, self->n_values,
      self->axis.f_lo, self->axis.f_hi);
  GST_OBJECT_LOCK (self);
  self->info.valid = TRUE;
  self->info.layout = *l;
  self->info.axis = self->axis;
  self->info.fft_size = n;
  self->info.frame_hop = self->frame_hop;
  self->info.column_hop = self->column_hop;
  self->info.n_values = self->n_values;
  self->info.rate = rate;
  GST_OBJECT_UNLOCK (self);
  return TRUE;

engine_error:
  GST_ELEMENT_ERROR (self, RESOURCE, FAILED, ("%s", error->message),
      ("starting the thread that makes the spectrogram's plan and "
          "renderer"));
  g_clear_error (&error);
  free_state (self);
  return FALSE;
}

/* TRUE once plan and renderer are ready (wait: blocks until then, or a
 * flush or stop; the compiler runs on the job's thread all the same).
 * FALSE with *failed set after posting the error when making them
 * failed. */
gboolean
gst_gpu_fft_spectrogram_state_ready (GstGpuFftSpectrogram * self, gboolean wait,
    gboolean * failed)
{
  GstGpuFftAnalysisTables tables;
  GpufftPlan *plan = NULL;
  GpufftRender *render = NULL;
  GError *error = NULL;
  gboolean device_failed = FALSE;

  *failed = FALSE;
  if (self->plan)
    return TRUE;
  if (!self->job) {
    GST_ELEMENT_ERROR (self, CORE, FAILED, (NULL),
        ("no plan, made or being made"));
    *failed = TRUE;
    return FALSE;
  }
  if (!gst_gpu_fft_plan_job_finish (self->job, wait, &self->plan_wait_cancel,
          &plan, &render, &tables, &device_failed, &error))
    return FALSE;
  self->job = NULL;
  gst_gpu_fft_analysis_tables_clear (&tables);
  if (self->given_up)
    gst_gpu_fft_plan_job_prune (self->given_up);
  if (!plan) {
    /* (the device's error is posted by its opening) */
    if (!device_failed)
      GST_ELEMENT_ERROR (self, RESOURCE, FAILED, ("%s", error->message),
          ("making the spectrogram's plan or renderer"));
    g_clear_error (&error);
    free_state (self);
    *failed = TRUE;
    return FALSE;
  }
  self->plan = plan;
  self->render = render;
  /* (a flush or a stop lets the plan's waits for the device go) */
  gpufft_plan_set_cancel (plan, &self->plan_wait_cancel);
  draw_look (self);
  GST_DEBUG_OBJECT (self, "plan and renderer ready, %" G_GUINT64_FORMAT
      " samples waiting", self->samples);
  return TRUE;
}

/* The analysis starts afresh with the next sample (FIFO, pad and columns
 * dropped); the timing goes on from there. */
void
gst_gpu_fft_spectrogram_state_restart_analysis (GstGpuFftSpectrogram * self)
{
  guint64 keep_samples = self->samples;
  GstClockTime keep_t0 = self->t0;

  self->fifo->len = 0;
  g_array_set_size (self->columns, 0);
  self->fifo_origin = 0;
  self->pad_pending = FALSE;
  self->next_frame = 0;
  self->next_column = 0;
  self->columns_rendered = 0;
  if (GST_CLOCK_TIME_IS_VALID (keep_t0) && keep_samples > 0) {
    /* the new origin is the next sample */
    self->t0 = keep_t0 + gst_util_uint64_scale_int (keep_samples,
        GST_SECOND, GST_AUDIO_INFO_RATE (&self->ainfo));
    self->video_frame = 0;
    self->samples = 0;
  }
}

/* Makes sure plan and renderer match the settings, or are being made for
 * them. A rebuild restarts the analysis (the columns start afresh at the
 * next sample). */
gboolean
gst_gpu_fft_spectrogram_state_ensure (GstGpuFftSpectrogram * self)
{
  GstGpuFftSpectrogramSettings s;
  guint cookie;
  gboolean rebuild;

  GST_OBJECT_LOCK (self);
  cookie = self->settings_cookie;
  if (cookie == self->cookie && (self->plan || self->job)) {
    GST_OBJECT_UNLOCK (self);
    return TRUE;
  }
  s = self->settings;
  s.title = g_strdup (s.title);
  GST_OBJECT_UNLOCK (self);

  if (!(s.min_db < s.max_db) && self->cur.min_db < self->cur.max_db) {
    /* while playing (a change half made, say): the levels in use stay */
    GST_ELEMENT_WARNING (self, LIBRARY, SETTINGS, (NULL),
        ("min-db %g must be below max-db %g: the levels stay %g .. %g dB",
            s.min_db, s.max_db, self->cur.min_db, self->cur.max_db));
    s.min_db = self->cur.min_db;
    s.max_db = self->cur.max_db;
  } else if (!(s.min_db < s.max_db)) {
    GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS, (NULL),
        ("min-db %g must be below max-db %g", s.min_db, s.max_db));
    g_free (s.title);
    return FALSE;
  }
  rebuild = (!self->plan && !self->job) || !shaping_equal (&s, &self->cur);
  g_free (self->cur.title);
  self->cur = s;
  if (rebuild) {
    if (!build (self, &s))
      return FALSE;
    gst_gpu_fft_spectrogram_state_restart_analysis (self);
  } else if (self->render) {
    /* (one being made draws the look when it is ready) */
    draw_look (self);
  }
  self->cookie = cookie;
  return TRUE;
}
