/* gpufftspectrogram: the streaming path (streaming thread only).
 *
 *   audio buffer -> FIFO of interleaved raw samples (planar input is
 *   interleaved here), the stream padded with fft_size / 2 samples at its
 *   start (and at EOS its end) so that analysis frame k is centred on
 *   sample k * frame_hop: the stream's first (last) samples mirrored, so
 *   that a steady tone goes on steadily through the pad instead of
 *   starting and stopping there (zeros drew a bright column of leakage at
 *   each edge)
 *   -> for each video frame f, once its last sample S(f+1) came: the
 *   analysis frames complete by then go to the engine plan in batches, one
 *   group per waterfall column (column j: frames kf(j) .. kf(j+1) - 1,
 *   kf(j) = ceil ((j column_hop - column_hop / 2) / frame_hop)), the plan
 *   hands back each closed column's mean power in dB (bins, or octave
 *   bands), gpufft_plan_collect() waiting (a blocking fence wait in the
 *   engine)
 *   -> the new columns go to the renderer, which composes the frame on the
 *   device (at most RENDER_COLUMN_BYTES, 2^27, of new columns a run: a
 *   frame with more hands them over in turns); the frame is copied into a
 *   buffer of the pool and pushed.
 *   After the frames due, the analysis frames complete so far are analysed
 *   too (their columns all lie before the next frame's end, so each frame
 *   shows the same columns as when they waited for it).
 *
 * Bounds, whatever the frame rate and the stream's length: the FIFO keeps
 * what the next analysis frame needs and the last fft_size / 2 + 1
 * samples (the end's pad reflects them), at most fft_size + frame_hop
 * samples, and one incoming buffer; the closed columns waiting for their
 * frame are at most the waterfall's width (one without a waterfall;
 * older ones are never shown) and those of one plan batch. While a live
 * stream's plan is being made the FIFO keeps PLAN_WAIT_SECONDS /
 * PLAN_WAIT_BYTES at most. Sizes are gsize with checked arithmetic: a
 * buffer too large to keep is an element error. The stats property
 * reports the high-water marks (fifo-peak-bytes, columns-peak).
 *
 * State is rebuilt (plan, renderer, layout, overlay) when the settings
 * cookie moved and something that shapes the picture changed; a change of
 * levels, colour map, title or peak fall only redraws the LUT and the
 * overlay. Plan and renderer are made on a thread of their own
 * (gstgpufftplanjob.h), never here: meanwhile the samples wait in the FIFO
 * (a live stream's for at most PLAN_WAIT_SECONDS, then they are dropped
 * and the analysis starts again from the next buffer), a stream that is not live waits
 * for them (its frames then come as its buffers do), and a live one gets
 * a GAP event for each video frame that falls due, so that its sink goes
 * on; the first frame drawn has the columns of every sample that waited. */
#include <math.h>
#include <string.h>

#include "gstgpufftspectrogram-private.h"
#include "gstgpufftanalysis.h"
#include "gstgpufftlive.h"

#define GST_CAT_DEFAULT gst_gpu_fft_spectrogram_debug

#define DB_FLOOR -200.0f
/* how much audio a live stream keeps while its plan is being made */
#define PLAN_WAIT_SECONDS 30
#define PLAN_WAIT_BYTES (64u << 20)
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
gst_gpu_fft_spectrogram_stream_reset (GstGpuFftSpectrogram * self)
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
gst_gpu_fft_spectrogram_stream_free (GstGpuFftSpectrogram * self)
{
  gst_gpu_fft_spectrogram_stream_reset (self);
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
gst_gpu_fft_spectrogram_stream_wait_released (GstGpuFftSpectrogram * self,
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
static gdouble
fps (GstGpuFftSpectrogram * self)
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
    self->column_hop = hop_of (rate / fps (self));
  self->frame_hop = MIN (self->column_hop, hop_of (n * (1.0 - s->overlap)));
  /* columns and frames one video frame brings, with room to spare (in
   * double: at a frame an hour they pass 32 bits) */
  per_frame = ceil (rate / fps (self) / self->column_hop) + 2;
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
  pc.max_frames = (guint) CLAMP (ceil (rate / fps (self) / self->frame_hop) +
      4, 16, 4096);
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
  /* (plan and renderer are made beside the stream: state_ready()) */
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
static gboolean
state_ready (GstGpuFftSpectrogram * self, gboolean wait, gboolean * failed)
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
static void
restart_analysis (GstGpuFftSpectrogram * self)
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
static gboolean
ensure_state (GstGpuFftSpectrogram * self)
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
    restart_analysis (self);
  } else if (self->render) {
    /* (one being made draws the look when it is ready) */
    draw_look (self);
  }
  self->cookie = cookie;
  return TRUE;
}

/* padded sample index -> FIFO byte offset */
static guint8 *
fifo_at (GstGpuFftSpectrogram * self, guint64 padded)
{
  return self->fifo->data + (gsize) (padded - self->fifo_origin) *
      GST_AUDIO_INFO_BPF (&self->ainfo);
}

/* n more samples at the FIFO's end (not written): their first byte, or
 * NULL after posting the error when the sizes overflow or the memory is
 * not there. */
static guint8 *
fifo_grow (GstGpuFftSpectrogram * self, guint64 n)
{
  GstGpuFftSpectrogramFifo *q = self->fifo;
  gsize add, len, size;
  guint8 *data;

  if (n > G_MAXSIZE || !g_size_checked_mul (&add, (gsize) n,
          GST_AUDIO_INFO_BPF (&self->ainfo))
      || !g_size_checked_add (&len, q->len, add)) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, (NULL),
        ("a buffer of %" G_GUINT64_FORMAT " samples of %u bytes is too "
            "large to keep", n, GST_AUDIO_INFO_BPF (&self->ainfo)));
    return NULL;
  }
  if (len > q->size) {
    if (!g_size_checked_mul (&size, q->size, 2))
      size = len;
    size = MAX (size, len);
    data = g_try_realloc (q->data, size);
    if (!data) {
      GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT, (NULL),
          ("no memory for %" G_GSIZE_FORMAT " bytes of audio", size));
      return NULL;
    }
    q->data = data;
    q->size = size;
  }
  data = q->data + q->len;
  q->len = len;
  return data;
}

/* Drops the FIFO's first n samples (n at most what it holds); gives the
 * memory of a buffer much larger than what stays back. */
static void
fifo_drop (GstGpuFftSpectrogram * self, gsize n)
{
  GstGpuFftSpectrogramFifo *q = self->fifo;
  gsize bytes = n * GST_AUDIO_INFO_BPF (&self->ainfo);
  guint8 *data;

  memmove (q->data, q->data + bytes, q->len - bytes);
  q->len -= bytes;
  self->fifo_origin += n;
  if (q->size > (1u << 20) && q->len < q->size / 4) {
    data = g_try_realloc (q->data, MAX (q->len * 2, 4096));
    if (data) {
      q->data = data;
      q->size = MAX (q->len * 2, 4096);
    }
  }
}

static gboolean
fifo_append_zeros (GstGpuFftSpectrogram * self, guint64 n)
{
  guint8 *dst = fifo_grow (self, n);

  if (!dst)
    return FALSE;
  memset (dst, 0, (gsize) n * GST_AUDIO_INFO_BPF (&self->ainfo));
  return TRUE;
}

/* One raw sample of the FIFO's format as a double, and back (integers
 * rounded and clamped). */
static gdouble
sample_get (GstAudioFormat f, const guint8 * p)
{
  switch (f) {
    case GST_AUDIO_FORMAT_S16LE:
      return (gint16) GST_READ_UINT16_LE (p);
    case GST_AUDIO_FORMAT_S24LE:
      return ((gint32) (GST_READ_UINT24_LE (p) << 8)) >> 8;
    case GST_AUDIO_FORMAT_S32LE:
      return (gint32) GST_READ_UINT32_LE (p);
    case GST_AUDIO_FORMAT_F32LE:
      return GST_READ_FLOAT_LE (p);
    default:
      return GST_READ_DOUBLE_LE (p);
  }
}

static void
sample_set (GstAudioFormat f, guint8 * p, gdouble v)
{
  switch (f) {
    case GST_AUDIO_FORMAT_S16LE:
      GST_WRITE_UINT16_LE (p, (guint16) (gint16) CLAMP (round (v), -32768,
              32767));
      break;
    case GST_AUDIO_FORMAT_S24LE:
      GST_WRITE_UINT24_LE (p, (guint32) (gint32) CLAMP (round (v), -8388608,
              8388607));
      break;
    case GST_AUDIO_FORMAT_S32LE:
      GST_WRITE_UINT32_LE (p, (guint32) (gint32) CLAMP (round (v),
              -2147483648.0, 2147483647.0));
      break;
    case GST_AUDIO_FORMAT_F32LE:
      GST_WRITE_FLOAT_LE (p, (gfloat) v);
      break;
    default:
      GST_WRITE_DOUBLE_LE (p, v);
      break;
  }
}

/* Padded sample `to` = 2 e - (padded sample `from`), e the edge sample at
 * padded index `edge`, channel by channel: the stream reflected through
 * its edge point, so that its value and slope go on through the pad (a
 * mirror kept the value only: its kink still drew a column of leakage). */
static void
reflect_sample (GstGpuFftSpectrogram * self, guint64 to, guint64 from,
    guint64 edge)
{
  GstAudioFormat f = GST_AUDIO_INFO_FORMAT (&self->ainfo);
  guint bps = GST_AUDIO_INFO_BPF (&self->ainfo) /
      GST_AUDIO_INFO_CHANNELS (&self->ainfo);
  guint c;

  for (c = 0; c < (guint) GST_AUDIO_INFO_CHANNELS (&self->ainfo); c++) {
    gdouble e = sample_get (f, fifo_at (self, edge) + c * bps);
    gdouble x = sample_get (f, fifo_at (self, from) + c * bps);
    gdouble y = 2 * e - x;

    /* (a non-finite sample spreads no further than the edge's own) */
    sample_set (f, fifo_at (self, to) + c * bps, isfinite (y) ? y : e);
  }
}

/* Writes the start's pad: padded sample h - k (h = fft_size / 2) is the
 * stream's sample k reflected through sample 0, k = 1 .. h, where the
 * stream has it (zeros otherwise). The FIFO still holds the pad and the
 * first samples. */
static void
fifo_mirror_start (GstGpuFftSpectrogram * self)
{
  guint64 h = self->fft_size / 2, k;

  for (k = 1; k <= h && k < self->samples; k++)
    reflect_sample (self, h - k, h + k, h);
  self->pad_pending = FALSE;
}

/* Appends the end's pad: sample n - 1 - k of the stream reflected through
 * its last sample, k = 1 .. h (n samples so far), where the FIFO still
 * has it (zeros otherwise). */
static gboolean
fifo_append_mirror_end (GstGpuFftSpectrogram * self)
{
  guint64 h = self->fft_size / 2, n = self->samples, k;
  guint64 last = h + n - 1;     /* padded index of the last sample */

  if (!fifo_append_zeros (self, h))
    return FALSE;
  if (n == 0 || last < self->fifo_origin)
    return TRUE;
  for (k = 1; k <= h; k++) {
    if (k + 1 > n || last - k < self->fifo_origin)
      break;
    reflect_sample (self, last + k, last - k, last);
  }
  return TRUE;
}

static guint64
column_first_frame (GstGpuFftSpectrogram * self, guint64 j)
{
  guint64 num;

  if (j == 0)
    return 0;
  num = j * self->column_hop - self->column_hop / 2;
  return (num + self->frame_hop - 1) / self->frame_hop;
}

static void
on_result (const GpufftGroupResult * r, gpointer user_data)
{
  GstGpuFftSpectrogram *self = user_data;
  const gfloat *v = self->bands ? r->bands : r->power;

  if (r->failed || v == NULL)
    return;
  g_array_append_vals (self->columns, v, self->n_values);
}

/* Drops the closed columns older than the waterfall shows (all but the
 * newest without a waterfall): no frame would draw them (render_frame
 * skips them alike). */
static void
columns_trim (GstGpuFftSpectrogram * self)
{
  guint keep = self->layout.wf_w > 0 ? self->layout.wf_w : 1;
  guint n = self->columns->len / self->n_values;

  if (n > keep) {
    g_array_remove_range (self->columns, 0, (n - keep) * self->n_values);
    self->columns_rendered += n - keep;
  }
}

static gboolean
engine_failed (GstGpuFftSpectrogram * self, GError * error)
{
  /* (a flush or a stop let a wait for the device go: no error) */
  if (g_error_matches (error, GPUFFT_ERROR, GPUFFT_ERROR_CANCELLED)) {
    g_clear_error (&error);
    return FALSE;
  }
  GST_ELEMENT_ERROR (self, RESOURCE, FAILED, ("%s", error ? error->message :
          "the spectrogram's GPU work failed"), (NULL));
  g_clear_error (&error);
  return FALSE;
}

/* Submits every analysis frame complete within `padded_avail` padded
 * samples, a group per column; close_last: also closes the column left
 * open (EOS). Collects the columns into self->columns. */
static gboolean
analyse (GstGpuFftSpectrogram * self, guint64 padded_avail, gboolean close_last)
{
  const GpufftPlanConfig *pc = gpufft_plan_get_config (self->plan);
  guint max_frames = gpufft_plan_get_max_frames (self->plan);
  guint max_groups = gpufft_plan_get_max_groups (self->plan);
  guint64 n_avail = padded_avail >= self->fft_size ?
      (padded_avail - self->fft_size) / self->frame_hop + 1 : 0;
  GpufftGroup *groups = g_newa (GpufftGroup, max_groups);
  GError *error = NULL;

  for (;;) {
    guint64 k = self->next_frame, left;
    guint n_groups = 0, n = 0;
    gboolean open_before = k > column_first_frame (self, self->next_column);
    GpufftSegment seg;
    GpufftBatch batch;
    guint64 keep_from;
    gsize drop;

    left = n_avail > k ? MIN (n_avail - k, max_frames) : 0;
    while (left > 0 && n_groups < max_groups) {
      guint64 end = column_first_frame (self, self->next_column + 1);
      guint take = (guint) MIN (end - k, left);

      groups[n_groups].n_frames = take;
      groups[n_groups].close = k + take == end;
      groups[n_groups].tag = NULL;
      groups[n_groups].reset = FALSE;
      n_groups++;
      k += take;
      n += take;
      left -= take;
      if (k == end)
        self->next_column++;
    }
    if (n == 0) {
      if (close_last && open_before) {
        /* the column left open at the end: close it as it is */
        memset (&batch, 0, sizeof (batch));
        groups[0].n_frames = 0;
        groups[0].close = TRUE;
        groups[0].tag = NULL;
        groups[0].reset = FALSE;
        batch.groups = groups;
        batch.n_groups = 1;
        batch.db_floor = DB_FLOOR;
        if (!gpufft_plan_submit (self->plan, &batch, &error)
            || gpufft_plan_collect (self->plan, TRUE, on_result, self,
                &error) < 0)
          return engine_failed (self, error);
        self->next_column++;
        columns_trim (self);
      }
      return TRUE;
    }
    memset (&seg, 0, sizeof (seg));
    seg.data = fifo_at (self, self->next_frame * self->frame_hop);
    seg.n_samples = (gsize) (n - 1) * self->frame_hop + pc->fft_size;
    memset (&batch, 0, sizeof (batch));
    batch.segments = &seg;
    batch.n_segments = 1;
    batch.n_frames = n;
    batch.groups = groups;
    batch.n_groups = n_groups;
    batch.db_floor = DB_FLOOR;
    if (!gpufft_plan_submit (self->plan, &batch, &error)
        || gpufft_plan_collect (self->plan, TRUE, on_result, self, &error) < 0)
      return engine_failed (self, error);
    self->next_frame += n;
    columns_trim (self);
    /* the FIFO keeps what the next frame needs, and the last fft_size / 2
     * + 1 samples (from padded sample `samples - 1` on) that the end's
     * pad reflects */
    keep_from = self->next_frame * self->frame_hop;
    if (self->samples > 0)
      keep_from = MIN (keep_from, self->samples - 1);
    if (keep_from > self->fifo_origin) {
      drop = (gsize) MIN (keep_from - self->fifo_origin,
          self->fifo->len / GST_AUDIO_INFO_BPF (&self->ainfo));
      fifo_drop (self, drop);
    }
  }
}

/* first real sample of video frame f */
static guint64
frame_start (GstGpuFftSpectrogram * self, guint64 f)
{
  return gst_util_uint64_scale (f, (guint64) GST_AUDIO_INFO_RATE
      (&self->ainfo) * GST_VIDEO_INFO_FPS_D (&self->vinfo),
      GST_VIDEO_INFO_FPS_N (&self->vinfo));
}

static GstClockTime
frame_pts (GstGpuFftSpectrogram * self, guint64 f)
{
  return self->t0 + gst_util_uint64_scale (f, (guint64) GST_SECOND *
      GST_VIDEO_INFO_FPS_D (&self->vinfo), GST_VIDEO_INFO_FPS_N (&self->vinfo));
}

static void
copy_frame (GstGpuFftSpectrogram * self, GstVideoFrame * frame)
{
  const guint32 *px = gpufft_render_pixels (self->render);
  guint w = GST_VIDEO_FRAME_WIDTH (frame), h = GST_VIDEO_FRAME_HEIGHT (frame);
  gint stride = GST_VIDEO_FRAME_PLANE_STRIDE (frame, 0);
  guint8 *dst = GST_VIDEO_FRAME_PLANE_DATA (frame, 0);
  guint y;

  if (stride == (gint) w * 4) {
    memcpy (dst, px, (gsize) w * h * 4);
    return;
  }
  for (y = 0; y < h; y++)
    memcpy (dst + (gsize) y * stride, px + (gsize) y * w, (gsize) w * 4);
}

/* A name for this memory that no other memory gets, even at the same
 * address later (the renderer keeps imports by it). */
static guint64
memory_key (GstMemory * mem)
{
  static GQuark quark;
  static gint counter;
  gpointer key;

  if (!quark)
    quark = g_quark_from_static_string ("gpufftspectrogram-render-key");
  key = gst_mini_object_get_qdata (GST_MINI_OBJECT (mem), quark);
  if (!key) {
    key = GSIZE_TO_POINTER ((gsize) g_atomic_int_add (&counter, 1) + 1);
    gst_mini_object_set_qdata (GST_MINI_OBJECT (mem), quark, key, NULL);
  }
  return GPOINTER_TO_SIZE (key);
}

/* A writable output buffer of the negotiated size, from the pool the
 * element set up when it negotiated (none yet: not negotiated). */
static GstFlowReturn
acquire_output (GstGpuFftSpectrogram * self, GstBuffer ** out)
{
  if (!self->pool)
    return GST_FLOW_NOT_NEGOTIATED;
  return gst_buffer_pool_acquire_buffer (self->pool, out, NULL);
}

/* Renders video frame f (covering real samples up to `end`) with the
 * columns collected so far, and pushes it. */
static GstFlowReturn
render_frame (GstGpuFftSpectrogram * self, guint64 f, GstClockTime duration)
{
  GpufftRenderRun run;
  GError *error = NULL;
  GstClockTime pts = frame_pts (self, f), earliest;
  guint64 running;
  guint n_pending = self->columns->len / self->n_values;
  gboolean show = TRUE;
  const GstGpuFftLayout *l = &self->layout;
  GstBuffer *out = NULL;
  GstVideoFrame frame;
  GstFlowReturn ret;
  GpufftRenderTarget target = { NULL, 0, 0, 0 };
  gboolean written = FALSE;

  running = gst_segment_to_running_time (&self->segment, GST_FORMAT_TIME, pts);
  GST_OBJECT_LOCK (self);
  earliest = self->qos_earliest;
  GST_OBJECT_UNLOCK (self);
  if (GST_CLOCK_TIME_IS_VALID (earliest) && GST_CLOCK_TIME_IS_VALID (running)
      && running + duration <= earliest)
    show = FALSE;

  /* more columns than the waterfall shows: only the newest matter */
  if (l->wf_w > 0 && n_pending > l->wf_w) {
    guint skip = n_pending - l->wf_w;

    g_array_remove_range (self->columns, 0, skip * self->n_values);
    self->columns_rendered += skip;
    n_pending -= skip;
  } else if (l->wf_w == 0 && n_pending > 1) {
    g_array_remove_range (self->columns, 0, (n_pending - 1) * self->n_values);
    self->columns_rendered += n_pending - 1;
    n_pending = 1;
  }

  /* the output buffer first: the device writes the frame into it */
  if (show) {
    ret = acquire_output (self, &out);
    if (ret != GST_FLOW_OK)
      return ret;
    if (!gst_video_frame_map (&frame, &self->vinfo, out, GST_MAP_WRITE)) {
      gst_buffer_unref (out);
      GST_ELEMENT_ERROR (self, RESOURCE, WRITE, (NULL),
          ("could not map an output buffer"));
      return GST_FLOW_ERROR;
    }
    target.data = GST_VIDEO_FRAME_PLANE_DATA (&frame, 0);
    target.stride = GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0);
    target.size = frame.map[0].size - ((guint8 *) target.data -
        frame.map[0].data);
    target.key = memory_key (gst_buffer_peek_memory (out, 0));
  }

  memset (&run, 0, sizeof (run));
  /* (a flush or a stop lets the wait for the frame go) */
  run.cancel = &self->plan_wait_cancel;
  run.min_db = (gfloat) self->cur.min_db;
  run.max_db = (gfloat) self->cur.max_db;
  run.peak_fall_db = (gfloat) (self->cur.peak_fall / fps (self));
  do {
    guint n = MIN (n_pending, self->max_columns);

    /* (no column pending: the array may have no storage yet) */
    if (n > 0) {
      memcpy (gpufft_render_columns (self->render), self->columns->data,
          (gsize) n * self->n_values * sizeof (gfloat));
      g_array_remove_range (self->columns, 0, n * self->n_values);
    }
    n_pending -= n;
    self->columns_rendered += n;
    run.n_columns = n;
    run.compose = show && n_pending == 0;
    if (run.compose && l->wf_w > 0) {
      gdouble rate = GST_AUDIO_INFO_RATE (&self->ainfo);
      gdouble dt = self->column_hop / rate;
      GstClockTime st = gst_segment_to_stream_time (&self->segment,
          GST_FORMAT_TIME, self->t0);
      gdouble t0 = GST_CLOCK_TIME_IS_VALID (st) ? st / 1e9 : 0.0;

      gst_gpu_fft_layout_draw_time (l, gpufft_render_overlay (self->render),
          t0 + ((gdouble) self->columns_rendered - 1) * dt, dt);
    }
    if (!gpufft_render_run (self->render, &run, run.compose ? &target : NULL,
            &written, &error)) {
      gboolean cancelled = g_error_matches (error, GPUFFT_ERROR,
          GPUFFT_ERROR_CANCELLED);

      if (show) {
        gst_video_frame_unmap (&frame);
        /* (cancelled: the device may still write the frame into it) */
        if (cancelled)
          gpufft_render_hold (self->render, (GDestroyNotify) gst_buffer_unref,
              out);
        else
          gst_buffer_unref (out);
      }
      engine_failed (self, error);
      return cancelled ? GST_FLOW_FLUSHING : GST_FLOW_ERROR;
    }
  } while (n_pending > 0);

  if (!show) {
    GST_OBJECT_LOCK (self);
    self->frames_dropped++;
    GST_OBJECT_UNLOCK (self);
    GST_DEBUG_OBJECT (self, "QoS: frame %" G_GUINT64_FORMAT " late, not "
        "drawn", f);
    return GST_FLOW_OK;
  }
  if (!written)
    copy_frame (self, &frame);
  gst_video_frame_unmap (&frame);
  GST_BUFFER_PTS (out) = pts;
  GST_BUFFER_DTS (out) = GST_CLOCK_TIME_NONE;
  GST_BUFFER_DURATION (out) = duration;
  GST_BUFFER_OFFSET (out) = f;
  if (f == 0)
    GST_BUFFER_FLAG_SET (out, GST_BUFFER_FLAG_DISCONT);
  GST_OBJECT_LOCK (self);
  self->frames_rendered++;
  self->gapped = FALSE;
  if (written)
    self->frames_written++;
  GST_OBJECT_UNLOCK (self);
  return gst_pad_push (self->srcpad, out);
}

/* A live stream whose plan is being made: a GAP event for every video
 * frame whose last sample came (its samples wait in the FIFO, at most
 * PLAN_WAIT_SECONDS of them: beyond, the analysis starts again). */
static GstFlowReturn
gaps_due (GstGpuFftSpectrogram * self)
{
  guint bpf = GST_AUDIO_INFO_BPF (&self->ainfo);
  guint64 bound = MIN ((guint64) GST_AUDIO_INFO_RATE (&self->ainfo) *
      PLAN_WAIT_SECONDS, PLAN_WAIT_BYTES / bpf);

  while (frame_start (self, self->video_frame + 1) <= self->samples) {
    GstClockTime pts = frame_pts (self, self->video_frame);

    gst_pad_push_event (self->srcpad, gst_event_new_gap (pts,
            frame_pts (self, self->video_frame + 1) - pts));
    self->video_frame++;
    self->gapped = TRUE;
  }
  if (self->fifo->len / bpf > bound) {
    GST_DEBUG_OBJECT (self, "the plan is not ready after %" G_GUINT64_FORMAT
        " samples: the analysis starts again", self->samples);
    restart_analysis (self);
  }
  return GST_FLOW_OK;
}

/* What a failed analyse () returns upstream: FLUSHING where a flush or a
 * stop cancelled the wait (engine_failed () posted nothing), else ERROR
 * (engine_failed () posted the element error). */
static GstFlowReturn
analysis_flow (GstGpuFftSpectrogram * self)
{
  return g_atomic_int_get (&self->plan_wait_cancel) ? GST_FLOW_FLUSHING :
      GST_FLOW_ERROR;
}

/* Renders every video frame whose last sample came. */
static GstFlowReturn
render_due (GstGpuFftSpectrogram * self)
{
  GstFlowReturn ret = GST_FLOW_OK;

  while (ret == GST_FLOW_OK
      && frame_start (self, self->video_frame + 1) <= self->samples) {
    guint64 f = self->video_frame;

    /* (no analysis frame reads the start's pad before it is written; none
     * is complete before then but when exactly fft_size / 2 samples came) */
    if (!self->pad_pending && !analyse (self, self->fft_size / 2 +
            frame_start (self, f + 1), FALSE))
      return analysis_flow (self);
    ret = render_frame (self, f, frame_pts (self, f + 1) - frame_pts (self, f));
    self->video_frame++;
  }
  return ret;
}

/* Appends the n samples of buf (interleaving planar ones). FALSE after
 * posting the error. */
static gboolean
fifo_append (GstGpuFftSpectrogram * self, GstBuffer * buf, guint64 n)
{
  guint bpf = GST_AUDIO_INFO_BPF (&self->ainfo);
  guint bps = bpf / GST_AUDIO_INFO_CHANNELS (&self->ainfo);
  guint channels = GST_AUDIO_INFO_CHANNELS (&self->ainfo);
  guint8 *dst = fifo_grow (self, n);

  if (!dst)
    return FALSE;
  if (GST_AUDIO_INFO_LAYOUT (&self->ainfo) == GST_AUDIO_LAYOUT_INTERLEAVED) {
    gst_buffer_extract (buf, 0, dst, (gsize) n * bpf);
  } else {
    GstAudioMeta *meta = gst_buffer_get_audio_meta (buf);
    GstAudioBuffer ab;
    guint c;
    guint64 i;

    /* a buffer that cannot be read (no GstAudioMeta, or one that does not
     * match the caps) is counted as silence, so the time axis goes on */
    if (meta == NULL || meta->info.layout != GST_AUDIO_LAYOUT_NON_INTERLEAVED
        || meta->info.channels != (gint) channels
        || meta->info.finfo != self->ainfo.finfo
        || !gst_audio_buffer_map (&ab, &self->ainfo, buf, GST_MAP_READ)) {
      GST_ELEMENT_WARNING (self, STREAM, FORMAT, (NULL),
          ("cannot read buffer %" GST_PTR_FORMAT " (non-interleaved audio "
              "needs a GstAudioMeta): its %" G_GUINT64_FORMAT " samples are "
              "analysed as silence", buf, n));
      memset (dst, 0, (gsize) n * bpf);
      return TRUE;
    }
    for (c = 0; c < channels; c++) {
      const guint8 *src = ab.planes[c];
      guint8 *d = dst + (gsize) c * bps;

      for (i = 0; i < n; i++)
        memcpy (d + i * bpf, src + i * bps, bps);
    }
    gst_audio_buffer_unmap (&ab);
  }
  return TRUE;
}

/* the stats' high-water marks (fifo-peak-bytes, columns-peak) */
static void
note_peaks (GstGpuFftSpectrogram * self)
{
  guint64 fifo = self->fifo ? self->fifo->len : 0;
  guint64 columns = self->columns && self->n_values > 0 ?
      self->columns->len / self->n_values : 0;

  GST_OBJECT_LOCK (self);
  self->fifo_peak = MAX (self->fifo_peak, fifo);
  self->columns_peak = MAX (self->columns_peak, columns);
  GST_OBJECT_UNLOCK (self);
}

GstFlowReturn
gst_gpu_fft_spectrogram_stream_push (GstGpuFftSpectrogram * self,
    GstBuffer * buf)
{
  GstFlowReturn ret;

  guint bpf = GST_AUDIO_INFO_BPF (&self->ainfo);
  guint64 n;
  GstClockTime pts = GST_BUFFER_PTS (buf);
  gint rate = GST_AUDIO_INFO_RATE (&self->ainfo);

  if (!self->fifo)
    self->fifo = g_new0 (GstGpuFftSpectrogramFifo, 1);
  if (!self->columns)
    self->columns = g_array_new (FALSE, FALSE, sizeof (gfloat));

  if (GST_AUDIO_INFO_LAYOUT (&self->ainfo) == GST_AUDIO_LAYOUT_INTERLEAVED)
    n = gst_buffer_get_size (buf) / bpf;
  else {
    GstAudioMeta *meta = gst_buffer_get_audio_meta (buf);

    n = meta ? meta->samples : gst_buffer_get_size (buf) / bpf;
    /* (a meta that claims more samples than the buffer holds) */
    if (n > gst_buffer_get_size (buf) / bpf) {
      GST_ELEMENT_ERROR (self, STREAM, FORMAT, (NULL),
          ("a planar buffer of %" G_GSIZE_FORMAT " bytes claims %"
              G_GUINT64_FORMAT " samples of %u bytes",
              gst_buffer_get_size (buf), n, bpf));
      return GST_FLOW_ERROR;
    }
  }

  /* a jump in time: start again from this buffer */
  if (GST_CLOCK_TIME_IS_VALID (self->t0) && GST_CLOCK_TIME_IS_VALID (pts)
      && GST_BUFFER_FLAG_IS_SET (buf, GST_BUFFER_FLAG_DISCONT)) {
    GstClockTime expected = self->t0 + gst_util_uint64_scale_int
        (self->samples, GST_SECOND, rate);
    GstClockTimeDiff d = GST_CLOCK_DIFF (expected, pts);

    if (ABS (d) > (GstClockTimeDiff) (GST_SECOND / 100)) {
      GST_DEBUG_OBJECT (self, "discontinuity of %" GST_STIME_FORMAT
          ": restarting", GST_STIME_ARGS (d));
      gst_gpu_fft_spectrogram_stream_reset (self);
    }
  }
  if (!ensure_state (self))
    return GST_FLOW_ERROR;
  if (!GST_CLOCK_TIME_IS_VALID (self->t0)) {
    self->t0 = GST_CLOCK_TIME_IS_VALID (pts) ? pts : self->segment.start;
    self->samples = 0;
    self->video_frame = 0;
  }
  if (self->fifo_origin == 0 && self->next_frame == 0 && self->fifo->len == 0) {
    if (!fifo_append_zeros (self, self->fft_size / 2))
      return GST_FLOW_ERROR;
    self->pad_pending = TRUE;
  }
  if (!fifo_append (self, buf, n))
    return GST_FLOW_ERROR;
  note_peaks (self);
  self->samples += n;
  if (self->pad_pending && self->samples > self->fft_size / 2)
    fifo_mirror_start (self);
  if (!self->plan) {
    gboolean failed;

    if (self->is_live < 0) {
      self->is_live = gst_gpu_fft_upstream_is_live (self->sinkpad) ? 1 : 0;
      GST_DEBUG_OBJECT (self, "upstream is %slive", self->is_live ? "" :
          "not ");
    }
    if (!state_ready (self, self->is_live == 0, &failed))
      return failed ? GST_FLOW_ERROR : self->is_live == 0 ?
          GST_FLOW_FLUSHING : gaps_due (self);
  }
  ret = render_due (self);
  /* the frames not due yet: the columns complete so far (all before the
   * next frame's end, the frames due being drawn), so that the FIFO keeps
   * no more than the next analysis frame needs */
  if (ret == GST_FLOW_OK && !self->pad_pending
      && !analyse (self, self->fft_size / 2 + self->samples, FALSE))
    ret = analysis_flow (self);
  note_peaks (self);
  return ret;
}

GstFlowReturn
gst_gpu_fft_spectrogram_stream_eos (GstGpuFftSpectrogram * self)
{
  GstFlowReturn ret;
  guint64 start;

  gboolean failed;

  if ((!self->plan && !self->job) || !self->fifo
      || !GST_CLOCK_TIME_IS_VALID (self->t0))
    return GST_FLOW_OK;
  /* (the end waits for a plan being made) */
  if (!state_ready (self, TRUE, &failed))
    return failed ? GST_FLOW_ERROR : GST_FLOW_FLUSHING;
  if (self->pad_pending)
    fifo_mirror_start (self);
  ret = render_due (self);
  if (ret != GST_FLOW_OK)
    return ret;
  start = frame_start (self, self->video_frame);
  if (self->samples <= start && self->gapped) {
    /* a live stream that ends before any frame was drawn since the plan
     * came: one more frame, with the columns of the samples that waited */
    if (!analyse (self, self->fft_size / 2 + self->samples, FALSE))
      return analysis_flow (self);
    ret = render_frame (self, self->video_frame, frame_pts (self,
            self->video_frame + 1) - frame_pts (self, self->video_frame));
    self->video_frame++;
    return ret;
  }
  if (self->samples <= start)
    return GST_FLOW_OK;
  /* the samples after the last whole frame: one shorter frame, with the
   * columns up to the last sample (the stream's end mirrored) */
  if (!fifo_append_mirror_end (self))
    return GST_FLOW_ERROR;
  if (!analyse (self, self->fft_size / 2 + self->samples +
          self->fft_size / 2, TRUE))
    return analysis_flow (self);
  ret = render_frame (self, self->video_frame,
      gst_util_uint64_scale_int (self->samples - start, GST_SECOND,
          GST_AUDIO_INFO_RATE (&self->ainfo)));
  self->video_frame++;
  return ret;
}
