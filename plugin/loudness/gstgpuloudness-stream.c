/* gpuloudness: the streaming path. Runs on the streaming thread (and in
 * setup, stop and the events, which GStreamer serialises with it): each
 * buffer's samples converted to interleaved floats (what is not finite or
 * beyond MAX_SAMPLE as 0) into the device's staging, whole 10 ms blocks
 * submitted in batches of at most MAX_BATCH_BLOCKS blocks and
 * STAGING_BYTES; the interval marks queued as intervals end. While the
 * device's kernels are made beside the stream (a Maker, on the plugin's
 * workers, gstgpufftworkers.h), the samples wait in a store of at most
 * STORE_SECONDS and STORE_BYTES; a full store waits for the kernels (a
 * flush or a stop lets go: adopt_cancel). A live stream within the host
 * budget (gstgpuffthostbudget.h) is measured on the host alone. Waits for
 * the device only for a free slot of the engine and in a drain (EOS, new
 * caps, a reset, FLUSH_STOP: gpufft_loudness_flush, until the batches in
 * flight are delivered or their stall deadline), which a stop lets go
 * (wait_cancel); and for the poster before a batch of a stream that is
 * not live. The element owns the maker's reference and the engine's
 * GpufftLoudness; the results go to gstgpuloudness-message.c. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>

#include "gstgpuloudness-private.h"
#include "gstgpuffthostbudget.h"
#include "gstgpufftlive.h"
#include "gstgpufftsegment.h"

#define GST_CAT_DEFAULT gst_gpu_loudness_debug

/* ---- conversion ----------------------------------------------------------- */

/* (its energy, squared and summed over a block, stays far within a
 * float) */
static inline gfloat
in_range_or_zero (gdouble v, gsize * bad)
{
  if (isfinite (v) && fabs (v) <= MAX_SAMPLE)
    return (gfloat) v;
  (*bad)++;
  return 0.0f;
}

#define DEFINE_CONVERT(name, type, expr)                                  \
static gsize                                                              \
name (const GstAudioBuffer * ab, guint channels, gsize off, gsize n,      \
    gfloat * dst)                                                         \
{                                                                         \
  gsize f, bad = 0;                                                       \
  guint c;                                                                \
                                                                          \
  if (ab->n_planes == 1) {                                                \
    const type *s = (const type *) ab->planes[0] + off * channels;        \
    for (f = 0; f < n * channels; f++) {                                  \
      type v = s[f];                                                      \
      dst[f] = (expr);                                                    \
    }                                                                     \
    return bad;                                                           \
  }                                                                       \
  for (c = 0; c < channels; c++) {                                        \
    const type *s = (const type *) ab->planes[c] + off;                   \
    for (f = 0; f < n; f++) {                                             \
      type v = s[f];                                                      \
      dst[f * channels + c] = (expr);                                     \
    }                                                                     \
  }                                                                       \
  return bad;                                                             \
}

DEFINE_CONVERT (convert_s16, gint16, v * (1.0f / 32768.0f));
DEFINE_CONVERT (convert_s32, gint32, (gfloat) (v * (1.0 / 2147483648.0)));
DEFINE_CONVERT (convert_f32, gfloat, in_range_or_zero (v, &bad));
DEFINE_CONVERT (convert_f64, gdouble, in_range_or_zero (v, &bad));

/* S24: 3 bytes, native order */
static inline gfloat
s24_value (const guint8 * p)
{
#if G_BYTE_ORDER == G_LITTLE_ENDIAN
  gint32 v = (gint32) (((guint32) p[0] << 8) | ((guint32) p[1] << 16) |
      ((guint32) p[2] << 24)) >> 8;
#else
  gint32 v = (gint32) (((guint32) p[0] << 24) | ((guint32) p[1] << 16) |
      ((guint32) p[2] << 8)) >> 8;
#endif
  return v * (1.0f / 8388608.0f);
}

static gsize
convert_s24 (const GstAudioBuffer * ab, guint channels, gsize off, gsize n,
    gfloat * dst)
{
  gsize f;
  guint c;

  if (ab->n_planes == 1) {
    const guint8 *s = (const guint8 *) ab->planes[0] + off * channels * 3;

    for (f = 0; f < n * channels; f++)
      dst[f] = s24_value (s + 3 * f);
    return 0;
  }
  for (c = 0; c < channels; c++) {
    const guint8 *s = (const guint8 *) ab->planes[c] + off * 3;

    for (f = 0; f < n; f++)
      dst[f * channels + c] = s24_value (s + 3 * f);
  }
  return 0;
}

ConvertFunc
gst_gpu_loudness_stream_converter_for (GstAudioFormat format)
{
  switch (format) {
    case GST_AUDIO_FORMAT_S16:
      return convert_s16;
    case GST_AUDIO_FORMAT_S24:
      return convert_s24;
    case GST_AUDIO_FORMAT_S32:
      return convert_s32;
    case GST_AUDIO_FORMAT_F32:
      return convert_f32;
    case GST_AUDIO_FORMAT_F64:
      return convert_f64;
    default:
      return NULL;
  }
}


/* ---- the device's kernels, made beside the stream ------------------------ */

static void
maker_unref (Maker * m)
{
  if (!g_atomic_int_dec_and_test (&m->ref_count))
    return;
  g_clear_pointer (&m->made, gpufft_loudness_free);
  g_clear_error (&m->error);
  gst_gpu_fft_device_unref (m->device);
  g_mutex_clear (&m->lock);
  g_cond_clear (&m->cond);
  g_free (m);
}

/* (a worker, once the device's opening is done or the device closed) */
static void
maker_work (gpointer data)
{
  Maker *m = data;
  GpufftContext *ctx;
  GpufftLoudness *lo = NULL;
  GError *err = NULL;

  g_mutex_lock (&m->lock);
  if (m->done) {
    /* given up before it began: skipped */
    g_mutex_unlock (&m->lock);
    maker_unref (m);
    return;
  }
  m->begun = TRUE;
  g_mutex_unlock (&m->lock);
  ctx = gst_gpu_fft_device_wait (m->device, NULL);
  if (ctx)
    lo = gpufft_loudness_new (ctx, &m->cfg, gst_gpu_loudness_message_on_result,
        m->element, &err);
  else if (!gst_gpu_fft_device_failed (m->device, NULL))
    g_set_error (&err, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_FAILED,
        "stopped before the device was open");
  g_mutex_lock (&m->lock);
  m->made = lo;
  m->error = err;
  m->done = TRUE;
  g_cond_broadcast (&m->cond);
  g_mutex_unlock (&m->lock);
  maker_unref (m);
}

/* The stream's first buffer since its caps: on the host alone (a live
 * stream within the host budget, with the automatic device, while no GPU
 * is open in the process; GPUFFT_HOST_START=off: never), or the device's
 * kernels made by the maker, the device opened first if the start did
 * not. FALSE on failure (the element error posted). */
static gboolean
begin_measuring (GstGpuLoudness * self)
{
  const gchar *env = g_getenv ("GPUFFT_HOST_START");
  gdouble points = 2.0 * self->channels * self->rate;
  GError *err = NULL;
  Maker *m;

  self->decided = TRUE;
  if (self->device == NULL && self->index_now < 0
      && !(env && (g_str_equal (env, "off") || g_str_equal (env, "0")))
      && gst_gpu_fft_upstream_is_live (GST_BASE_TRANSFORM_SINK_PAD (self))
      && !gst_gpu_fft_device_gpu_opened ()
      && gst_gpu_fft_host_budget_take (points,
          gst_gpu_fft_device_any_opened ())) {
    GpufftLoudness *lo =
        gpufft_loudness_new (NULL, &self->cfg,
        gst_gpu_loudness_message_on_result,
        self, &err);

    if (lo) {
      GST_OBJECT_LOCK (self);
      self->host_points = points;
      GST_OBJECT_UNLOCK (self);
      self->lo = lo;
      self->fill = 0;
      self->staging = gpufft_loudness_staging (lo, NULL);
      GST_DEBUG_OBJECT (self, "measured on the host alone (%.0f points a "
          "second of the host budget)", points);
      return TRUE;
    }
    gst_gpu_fft_host_budget_give (points);
    GST_WARNING_OBJECT (self, "not on the host alone: %s", err->message);
    g_clear_error (&err);
  }
  if (self->device == NULL) {
    GstGpuFftDevice *device = gst_gpu_fft_device_open (GST_ELEMENT (self),
        -1, NULL);

    if (!device) {
      self->failed = TRUE;
      return FALSE;
    }
    GST_OBJECT_LOCK (self);
    self->device = device;
    GST_OBJECT_UNLOCK (self);
  }
  m = g_new0 (Maker, 1);
  m->ref_count = 2;
  m->device = gst_gpu_fft_device_ref (self->device);
  m->cfg = self->cfg;
  m->element = self;
  g_mutex_init (&m->lock);
  g_cond_init (&m->cond);
  if (!gst_gpu_fft_device_when_open (self->device, maker_work, m, &err)) {
    m->ref_count = 1;
    maker_unref (m);
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED, (NULL),
        ("no thread to make the kernels: %s", err->message));
    g_clear_error (&err);
    self->failed = TRUE;
    return FALSE;
  }
  self->maker = m;
  return TRUE;
}

/* Waits for the maker (wait: until it is done, a flush or a stop) or looks
 * whether it is done; on success the object is ours, the store goes to the
 * device. FALSE on failure (the element error posted, unless the device's
 * opening posted it), or when a flush or a stop came first
 * (self->adopt_cancel set: nothing posted). */
static gboolean put_floats (GstGpuLoudness * self, const gfloat * src, gsize n);

static gboolean
adopt (GstGpuLoudness * self, gboolean wait)
{
  GError *err = NULL;
  GpufftLoudness *lo;
  GArray *store;
  Maker *m = self->maker;

  if (self->lo || !m)
    return self->lo != NULL;
  g_mutex_lock (&m->lock);
  /* (the cancel flag is looked at every 20 ms) */
  while (wait && !m->done && !g_atomic_int_get (&self->adopt_cancel))
    g_cond_wait_until (&m->cond, &m->lock, g_get_monotonic_time () +
        20 * G_TIME_SPAN_MILLISECOND);
  if (!m->done) {
    g_mutex_unlock (&m->lock);
    return !wait;
  }
  lo = m->made;
  m->made = NULL;
  err = m->error;
  m->error = NULL;
  g_mutex_unlock (&m->lock);
  self->maker = NULL;
  maker_unref (m);
  if (!lo) {
    self->failed = TRUE;
    if (!gst_gpu_fft_device_failed (self->device, NULL))
      GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
          ("The loudness kernels could not be made on the device."),
          ("%s", err ? err->message : "unknown error"));
    g_clear_error (&err);
    return FALSE;
  }
  self->lo = lo;
  gpufft_loudness_set_cancel (lo, &self->wait_cancel);
  self->staging = gpufft_loudness_staging (lo, &err);
  self->fill = 0;
  if (!self->staging) {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED, ("The device failed."),
        ("%s", err->message));
    g_clear_error (&err);
    self->failed = TRUE;
    return FALSE;
  }
  store = self->store;
  self->store = g_array_new (FALSE, FALSE, sizeof (gfloat));
  GST_DEBUG_OBJECT (self, "device ready: %u samples kept meanwhile",
      store->len);
  if (!put_floats (self, (const gfloat *) store->data,
          store->len / self->channels)) {
    g_array_unref (store);
    return FALSE;
  }
  g_array_unref (store);
  return TRUE;
}

/* ---- batches (streaming thread) ----------------------------------------- */

static gboolean
submit (GstGpuLoudness * self, guint n_blocks)
{
  GError *err = NULL;
  gfloat *old = self->staging;
  gsize rest;

  /* (a stream that is not live waits for its earlier messages to be
   * posted: a slow bus handler slows it instead of queueing without end) */
  if (!g_atomic_int_get (&self->is_live))
    gst_gpu_fft_poster_wait (self->poster);
  if (!gpufft_loudness_submit (self->lo, n_blocks, self->reset_next,
          self->gen, &err)
      || !(self->staging = gpufft_loudness_staging (self->lo, &err))) {
    /* (a stop let the wait for the device go: no error, the stop clears
     * the state) */
    if (g_error_matches (err, GPUFFT_ERROR, GPUFFT_ERROR_CANCELLED))
      GST_DEBUG_OBJECT (self, "stopping: %s", err->message);
    else
      GST_ELEMENT_ERROR (self, RESOURCE, FAILED, ("The device failed."),
          ("%s", err->message));
    g_clear_error (&err);
    self->staging = NULL;
    self->failed = TRUE;
    return FALSE;
  }
  self->reset_next = FALSE;
  rest = self->fill - (gsize) n_blocks *self->block_frames;
  memcpy (self->staging, old + (gsize) n_blocks * self->block_frames *
      self->channels, rest * self->channels * sizeof (gfloat));
  self->fill = rest;
  return TRUE;
}

/* Room for more frames in the staging (a full staging is submitted). */
static gboolean
make_room (GstGpuLoudness * self)
{
  if (self->fill < (gsize) self->max_blocks * self->block_frames)
    return TRUE;
  return submit (self, self->max_blocks);
}

static gboolean
put_floats (GstGpuLoudness * self, const gfloat * src, gsize n)
{
  while (n > 0) {
    gsize take;

    if (!make_room (self))
      return FALSE;
    take = MIN (n, (gsize) self->max_blocks * self->block_frames - self->fill);
    memcpy (self->staging + self->fill * self->channels, src,
        take * self->channels * sizeof (gfloat));
    self->fill += take;
    src += take * self->channels;
    n -= take;
  }
  return TRUE;
}

static gboolean
put_frames (GstGpuLoudness * self, const GstAudioBuffer * ab, gsize off,
    gsize n)
{
  if (!self->lo) {
    guint len = self->store->len;

    if (len / self->channels + n > (gsize) STORE_SECONDS * self->rate
        || (len + n * self->channels) * sizeof (gfloat) > STORE_BYTES) {
      /* (the store is full: the kernels are awaited) */
      GST_INFO_OBJECT (self, "waiting for the device's kernels");
      if (!adopt (self, TRUE))
        return FALSE;
      return put_frames (self, ab, off, n);
    }
    g_array_set_size (self->store, len + n * self->channels);
    self->bad_samples += self->convert (ab, self->channels, off, n,
        &g_array_index (self->store, gfloat, len));
    return TRUE;
  }
  while (n > 0) {
    gsize take;

    if (!make_room (self))
      return FALSE;
    take = MIN (n, (gsize) self->max_blocks * self->block_frames - self->fill);
    self->bad_samples += self->convert (ab, self->channels, off, take,
        self->staging + self->fill * self->channels);
    self->fill += take;
    off += take;
    n -= take;
  }
  return TRUE;
}

/* Submits the staging's whole blocks when a waiting interval needs them. */
static gboolean
submit_for_marks (GstGpuLoudness * self)
{
  guint64 staged, need = 0;
  guint n = self->lo ? self->fill / self->block_frames : 0;
  Mark *mk;

  if (n == 0)
    return TRUE;
  staged = self->frames / self->block_frames;
  g_mutex_lock (&self->lock);
  mk = g_queue_peek_tail (&self->marks);
  if (mk)
    need = mk->blocks;
  g_mutex_unlock (&self->lock);
  /* (the staging's blocks end at block `staged`) */
  if (!mk || need + n <= staged)
    return TRUE;
  return submit (self, n);
}

static void
add_mark (GstGpuLoudness * self, GstClockTime ts, guint64 frames)
{
  GstSegment *seg = &GST_BASE_TRANSFORM (self)->segment;
  Mark *mk = g_new0 (Mark, 1);
  GPtrArray *msgs = g_ptr_array_new ();

  mk->blocks = self->frames / self->block_frames;
  mk->ts = ts;
  /* (no running or stream time without a TIME segment: after a flush,
   * before the next segment, it is undefined) */
  mk->running_time = GST_CLOCK_TIME_IS_VALID (ts)
      && seg->format == GST_FORMAT_TIME ?
      gst_segment_to_running_time (seg, GST_FORMAT_TIME, ts) :
      GST_CLOCK_TIME_NONE;
  mk->stream_time = GST_CLOCK_TIME_IS_VALID (ts)
      && seg->format == GST_FORMAT_TIME ?
      gst_segment_to_stream_time (seg, GST_FORMAT_TIME, ts) :
      GST_CLOCK_TIME_NONE;
  mk->duration = gst_util_uint64_scale_int (frames, GST_SECOND, self->rate);
  GST_OBJECT_LOCK (self);
  mk->post = self->post_messages;
  GST_OBJECT_UNLOCK (self);
  g_mutex_lock (&self->lock);
  g_queue_push_tail (&self->marks, mk);
  gst_gpu_loudness_message_take_marks (self, msgs);
  gst_gpu_loudness_message_post_all (self, msgs);
  g_mutex_unlock (&self->lock);
}

void
gst_gpu_loudness_stream_reset (GstGpuLoudness * self)
{
  Mark *mk;

  g_mutex_lock (&self->lock);
  self->gen++;
  if (self->meter)
    gst_gpu_loudness_meter_reset (self->meter);
  while ((mk = g_queue_pop_head (&self->marks)))
    g_free (mk);
  g_mutex_unlock (&self->lock);
  self->fill = 0;
  if (self->store)
    g_array_set_size (self->store, 0);
  self->frames = 0;
  self->since_mark = 0;
  self->reset_next = TRUE;
  self->next_ts = self->base_ts = GST_CLOCK_TIME_NONE;
  self->base_frames = 0;
}


/* ---- the device's work released --------------------------------------- */

static void
release_device_work (GstGpuLoudness * self)
{
  Maker *m = self->maker;

  if (m) {
    /* (one not begun is given up; one that began is waited for: it may
     * hand its results to the element) */
    g_mutex_lock (&m->lock);
    if (!m->begun)
      m->done = TRUE;
    while (!m->done)
      g_cond_wait (&m->cond, &m->lock);
    g_mutex_unlock (&m->lock);
    self->maker = NULL;
    maker_unref (m);
  }
  g_mutex_lock (&self->lock);
  self->gen++;
  g_mutex_unlock (&self->lock);
  /* (no result after it; the batches in flight are left to the engine,
   * which frees them when the device is done with them or stopped
   * responding: a stop never waits for the device) */
  g_clear_pointer (&self->lo, gpufft_loudness_free);
  self->staging = NULL;
  self->fill = 0;
  if (self->host_points > 0.0)
    gst_gpu_fft_host_budget_give (self->host_points);
  GST_OBJECT_LOCK (self);
  self->host_points = 0.0;
  GST_OBJECT_UNLOCK (self);
  self->decided = FALSE;
}

void
gst_gpu_loudness_stream_clear (GstGpuLoudness * self)
{
  Mark *mk;

  release_device_work (self);
  g_mutex_lock (&self->lock);
  g_clear_pointer (&self->meter, gst_gpu_loudness_meter_free);
  while ((mk = g_queue_pop_head (&self->marks)))
    g_free (mk);
  g_mutex_unlock (&self->lock);
  g_clear_pointer (&self->store, g_array_unref);
  g_clear_pointer (&self->weights, g_free);
  self->configured = FALSE;
  self->failed = FALSE;
}


/* the time of a frame (counted since the start or the reset) */
static GstClockTime
time_of (GstGpuLoudness * self, guint64 frames)
{
  if (!GST_CLOCK_TIME_IS_VALID (self->base_ts))
    return GST_CLOCK_TIME_NONE;
  return self->base_ts + gst_util_uint64_scale_int_round (frames -
      self->base_frames, GST_SECOND, self->rate);
}

/* Whether gst_audio_buffer_map () can read buf: non-interleaved audio
 * needs a GstAudioMeta that matches the caps. */
static gboolean
readable (GstGpuLoudness * self, GstBuffer * buf)
{
  const GstAudioInfo *info = GST_AUDIO_FILTER_INFO (self);
  GstAudioMeta *meta;

  if (GST_AUDIO_INFO_LAYOUT (info) == GST_AUDIO_LAYOUT_INTERLEAVED)
    return TRUE;
  meta = gst_buffer_get_audio_meta (buf);
  return meta != NULL && meta->info.layout == GST_AUDIO_LAYOUT_NON_INTERLEAVED
      && meta->info.channels == GST_AUDIO_INFO_CHANNELS (info)
      && meta->info.finfo == info->finfo;
}

GstFlowReturn
gst_gpu_loudness_stream_transform_ip (GstBaseTransform * trans, GstBuffer * buf)
{
  GstGpuLoudness *self = GST_GPU_LOUDNESS (trans);
  GstAudioBuffer ab;
  GstClockTime pts = GST_BUFFER_PTS (buf);
  gsize n, off = 0;
  gboolean ok = TRUE;

  if (!self->configured)
    return GST_FLOW_NOT_NEGOTIATED;
  if (self->failed)
    return GST_FLOW_ERROR;
  if (g_atomic_int_compare_and_exchange (&self->reset_requested, 1, 0)) {
    /* (the intervals that ended before it are posted first) */
    gst_gpu_loudness_stream_drain (self, FALSE);
    gst_gpu_loudness_stream_reset (self);
  }
  if (!self->decided && !begin_measuring (self))
    return GST_FLOW_ERROR;
  if (!adopt (self, FALSE))
    return GST_FLOW_ERROR;
  if (!readable (self, buf)) {
    GST_ELEMENT_WARNING (self, STREAM, FORMAT, (NULL),
        ("cannot read buffer %" GST_PTR_FORMAT " (non-interleaved audio needs "
            "a GstAudioMeta): passed through, not measured; the times are "
            "taken again from the next buffer's PTS", buf));
    self->next_ts = GST_CLOCK_TIME_NONE;
    return GST_FLOW_OK;
  }
  if (!gst_audio_buffer_map (&ab, GST_AUDIO_FILTER_INFO (self), buf,
          GST_MAP_READ)) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, (NULL),
        ("a buffer could not be mapped"));
    return GST_FLOW_ERROR;
  }
  n = ab.n_samples;
  /* (only the part in the segment is measured; the buffer passes whole) */
  if (!gst_gpu_fft_segment_clip (&trans->segment,
          GST_AUDIO_INFO_RATE (GST_AUDIO_FILTER_INFO (self)), pts, &off, &n,
          &pts)) {
    gst_audio_buffer_unmap (&ab);
    return GST_FLOW_OK;
  }
  n += off;
  /* (times counted in frames from the first PTS, anchored again where the
   * PTS departs from them by more than half a millisecond) */
  if (!GST_CLOCK_TIME_IS_VALID (pts))
    self->base_ts = GST_CLOCK_TIME_NONE;
  else if (!GST_CLOCK_TIME_IS_VALID (self->next_ts)
      || (pts > self->next_ts ? pts - self->next_ts : self->next_ts - pts) >
      GST_MSECOND / 2) {
    self->base_ts = pts;
    self->base_frames = self->frames;
  }
  while (ok && off < n) {
    gsize step = MIN (n - off, self->interval_frames - self->since_mark);

    ok = put_frames (self, &ab, off, step);
    off += step;
    self->since_mark += step;
    self->frames += step;
    if (ok && self->since_mark == self->interval_frames) {
      add_mark (self, time_of (self, self->frames), self->interval_frames);
      self->since_mark = 0;
    }
  }
  gst_audio_buffer_unmap (&ab);
  self->next_ts = time_of (self, self->frames);
  if (self->bad_samples > 0 && !self->warned_bad) {
    self->warned_bad = TRUE;
    GST_ELEMENT_WARNING (self, STREAM, FORMAT, (NULL),
        ("%" G_GUINT64_FORMAT " samples not finite or beyond +-1e6 (+120 "
            "dBFS) measured as 0 (warned once for these caps)",
            self->bad_samples));
  }
  if (ok)
    ok = submit_for_marks (self);
  /* (a wait for the maker that a flush or a stop let go, or a wait for
   * the device that a stop let go) */
  if (!ok && !self->failed && g_atomic_int_get (&self->adopt_cancel))
    return GST_FLOW_FLUSHING;
  if (!ok && g_atomic_int_get (&self->wait_cancel))
    return GST_FLOW_FLUSHING;   /* (stopping) */
  return ok ? GST_FLOW_OK : GST_FLOW_ERROR;
}

/* Measures what was pushed: the staging's whole blocks submitted and
 * their results delivered, so that every interval that ended is posted
 * (and, with partial, the interval under way ends here). EOS, new caps
 * and a reset. */
void
gst_gpu_loudness_stream_drain (GstGpuLoudness * self, gboolean partial)
{
  if (!self->configured || self->failed)
    return;
  if (partial && self->since_mark > 0) {
    add_mark (self, self->next_ts, self->since_mark);
    self->since_mark = 0;
  }
  if (!adopt (self, TRUE))
    return;
  if (self->fill >= self->block_frames
      && !submit (self, self->fill / self->block_frames))
    return;
  gpufft_loudness_flush (self->lo);
}
