/* GstGpuFftBase: the input side of transform_ip. Streaming thread only:
 * each buffer passes through in place, untouched (its samples read
 * where they lie, or from a copy where a finite sample is beyond the
 * analysis's bound, gstgpufftbound.h); what lies in the TIME segment is
 * counted, timed (a PTS more than PTS_TOLERANCE from the sample count, a
 * restart), stored or framed into batches (gstgpufftbase-stream.c). The
 * buffer is held (self->priv->in_buf) only while the engine may read it
 * in place. While the plan is being made, the store keeps at most
 * PLAN_WAIT_SECONDS or PLAN_WAIT_BYTES of audio: a stream that is not live
 * then waits for the plan (until a flush or a stop lets go), a live one
 * drops what it stored. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstgpufftbase-private.h"
#include "gstgpufftallocator.h"
#include "gstgpufftbound.h"
#include "gstgpufftlive.h"
#include "gstgpufftsegment.h"

#include <string.h>

#define GST_CAT_DEFAULT gst_gpu_fft_base_debug


/* A buffer timestamp further than this from where the sample count puts it
 * is a discontinuity (as audiobasesink's default tolerance). */
#define PTS_TOLERANCE (40 * GST_MSECOND)
/* audio the store keeps while the plan is made, at most */
#define PLAN_WAIT_SECONDS 30
#define PLAN_WAIT_BYTES (64u << 20)

/* PLAN_WAIT in samples of the current format */
static guint64
plan_wait_bound (GstGpuFftBase * self)
{
  return MIN ((guint64) PLAN_WAIT_SECONDS *
      GST_AUDIO_INFO_RATE (&self->priv->info),
      PLAN_WAIT_BYTES / GST_AUDIO_INFO_BPF (&self->priv->info));
}

/* Maps buf for reading: one map of the whole buffer; the planes of
 * non-interleaved audio from its GstAudioMeta (gst_audio_buffer_map()'s map
 * of each plane fails on 1.22 with more than 256 channels and leaves the
 * memory locked). Sets self->priv->in_planes and the samples per channel. */
static gboolean
map_input (GstGpuFftBase * self, GstBuffer * buf, GstMapInfo * map,
    gsize * n_samples)
{
  const GstAudioInfo *info = &self->priv->info;
  guint c, channels = GST_AUDIO_INFO_CHANNELS (info);
  gsize bps = GST_AUDIO_INFO_BPS (info);

  if (GST_AUDIO_INFO_LAYOUT (info) == GST_AUDIO_LAYOUT_INTERLEAVED) {
    if (!gst_buffer_map (buf, map, GST_MAP_READ))
      return FALSE;
    self->priv->in_planes[0] = map->data;
    *n_samples = map->size / GST_AUDIO_INFO_BPF (info);
    return TRUE;
  } else {
    GstAudioMeta *meta = gst_buffer_get_audio_meta (buf);

    if (meta == NULL || meta->info.channels != (gint) channels
        || meta->info.finfo != info->finfo || meta->offsets == NULL)
      return FALSE;
    if (!gst_buffer_map (buf, map, GST_MAP_READ))
      return FALSE;
    for (c = 0; c < channels; c++) {
      if (meta->offsets[c] + meta->samples * bps > map->size) {
        gst_buffer_unmap (buf, map);
        return FALSE;
      }
      self->priv->in_planes[c] = map->data + meta->offsets[c];
    }
    *n_samples = meta->samples;
    return TRUE;
  }
}

/* Finite samples beyond +-2^32 among the n samples (per channel) of
 * self->priv->in_planes (F32 and F64 only, gstgpufftbound.h): the engine gets a
 * copy with NaN in their place (self->priv->in_planes then point into it), so
 * that the frames holding them are left out as frames with NaN samples
 * are, and the first such buffer since the start posts a warning, in
 * order with the messages. Returns the copy (g_free it once the input is
 * handled), NULL where there is none: the buffer itself passes on
 * untouched either way. */
static gpointer
bound_input (GstGpuFftBase * self, gsize n, GstClockTime pts)
{
  const GstAudioInfo *info = &self->priv->info;
  gboolean f64 = self->priv->format == GPUFFT_FORMAT_F64;
  gboolean interleaved = GST_AUDIO_INFO_LAYOUT (info) ==
      GST_AUDIO_LAYOUT_INTERLEAVED;
  guint channels = GST_AUDIO_INFO_CHANNELS (info);
  guint c, planes = interleaved ? 1 : channels;
  gsize per_plane = interleaved ? n * channels : n, bps = f64 ? 8 : 4;
  gsize first = per_plane, count = 0;
  gdouble value = 0.0;
  guint8 *copy;

  if (self->priv->format != GPUFFT_FORMAT_F32 && !f64)
    return NULL;
  for (c = 0; c < planes && first == per_plane; c++)
    first = gst_gpu_fft_bound_find (self->priv->in_planes[c], per_plane, f64);
  if (first == per_plane)
    return NULL;
  c--;
  if (f64) {
    memcpy (&value, (const guint8 *) self->priv->in_planes[c] + first * 8, 8);
  } else {
    gfloat v;

    memcpy (&v, (const guint8 *) self->priv->in_planes[c] + first * 4, 4);
    value = v;
  }
  if (interleaved)
    first /= channels;

  copy = g_malloc ((gsize) planes * per_plane * bps);
  for (c = 0; c < planes; c++) {
    count += gst_gpu_fft_bound_copy (copy + c * per_plane * bps,
        self->priv->in_planes[c], per_plane, f64);
    self->priv->in_planes[c] = copy + c * per_plane * bps;
  }
  GST_DEBUG_OBJECT (self, "%" G_GSIZE_FORMAT " samples beyond +-2^32 in a "
      "buffer of %" G_GSIZE_FORMAT, count, n);
  if (!self->priv->bound_warned) {
    GError *err;
    gchar *debug;

    self->priv->bound_warned = TRUE;
    err = g_error_new (GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
        "Samples beyond +-%.0f (2^32, 192.7 dB above full scale): the "
        "frames holding them are left out of the analysis, as frames with "
        "NaN or infinite samples are; each message's frames-left-out "
        "counts them (the audio passes on untouched)", GST_GPU_FFT_BOUND_MAX);
    debug = g_strdup_printf ("the first: %g, sample %" G_GSIZE_FORMAT
        " of the buffer at %" GST_TIME_FORMAT " (%" G_GSIZE_FORMAT " such "
        "samples in it); further buffers are not reported", value, first,
        GST_TIME_ARGS (pts), count);
    GST_WARNING_OBJECT (self, "%s (%s)", err->message, debug);
    gst_gpu_fft_poster_push (self->priv->poster, gst_message_new_warning
        (GST_OBJECT (self), err, debug), NULL, FALSE, 0, FALSE);
    g_error_free (err);
    g_free (debug);
  }
  return copy;
}

GstFlowReturn
gst_gpu_fft_base_input_transform_ip (GstBaseTransform * trans, GstBuffer * buf)
{
  GstGpuFftBase *self = GST_GPU_FFT_BASE (trans);
  GstMapInfo map;
  GstClockTime pts;
  guint64 pos;
  gsize n, skip;
  guint c;
  gboolean ok, compat;
  gpointer bounded = NULL;

  if (!self->priv->have_format)
    return GST_FLOW_NOT_NEGOTIATED;
  /* (its error is posted: no plan is tried again until a restart) */
  if (self->priv->device
      && gst_gpu_fft_device_failed (self->priv->device, NULL))
    return GST_FLOW_ERROR;

  /* gpuspectrum, as spectrum: a DISCONT flag cuts the interval whatever
   * the buffer holds (gst_gpu_fft_base_stream_cut) */
  compat = GST_GPU_FFT_BASE_GET_CLASS (self)->spectrum_compat;
  if (compat && self->priv->running
      && GST_BUFFER_FLAG_IS_SET (buf, GST_BUFFER_FLAG_DISCONT)) {
    gst_gpu_fft_base_settings_read_live (self);
    if (self->priv->live_gen == self->priv->applied_gen
        && !gst_gpu_fft_base_stream_cut (self))
      return GST_FLOW_ERROR;
  }

  /* A buffer without a whole sample frame carries no samples: it changes
   * nothing, whatever its timestamp or flags say (a real discontinuity
   * shows on the next buffer that has samples). */
  if (gst_buffer_get_size (buf) <
      (gsize) GST_AUDIO_INFO_BPF (&self->priv->info))
    return GST_FLOW_OK;

  gst_gpu_fft_base_settings_read_live (self);

  /* A buffer that cannot be read (e.g. non-interleaved without its
   * GstAudioMeta) is passed through but breaks the sample count: restart
   * after it. */
  if (!map_input (self, buf, &map, &n)) {
    GST_ELEMENT_WARNING (self, STREAM, FORMAT, (NULL),
        ("cannot read buffer %" GST_PTR_FORMAT " (non-interleaved audio needs "
            "a GstAudioMeta): passed through, not analysed; the analysis "
            "restarts after it", buf));
    if (self->priv->running
        && !gst_gpu_fft_base_stream_flush_and_restart (self, FALSE))
      return GST_FLOW_ERROR;
    return GST_FLOW_OK;
  }
  if (n == 0) {
    gst_buffer_unmap (buf, &map);
    return GST_FLOW_OK;
  }

  /* Analyse only what lies in the segment (the buffer passes whole). */
  if (!gst_gpu_fft_segment_clip (&GST_BASE_TRANSFORM (self)->segment,
          GST_AUDIO_INFO_RATE (&self->priv->info), GST_BUFFER_PTS (buf),
          &skip, &n, &pts)) {
    gst_buffer_unmap (buf, &map);
    return GST_FLOW_OK;
  }
  if (skip > 0) {
    gboolean interleaved = GST_AUDIO_INFO_LAYOUT (&self->priv->info) ==
        GST_AUDIO_LAYOUT_INTERLEAVED;
    gsize unit = interleaved ? GST_AUDIO_INFO_BPF (&self->priv->info) :
        GST_AUDIO_INFO_BPS (&self->priv->info);
    guint planes =
        interleaved ? 1 : GST_AUDIO_INFO_CHANNELS (&self->priv->info);

    for (c = 0; c < planes; c++)
      self->priv->in_planes[c] =
          (guint8 *) self->priv->in_planes[c] + skip * unit;
  }
  bounded = bound_input (self, n, pts);

  /* A geometry setting changed: it applies at once, as in `spectrum`: the
   * open interval closes where the stream stands (posted as a partial
   * interval, with the old geometry) and the analysis restarts here. A
   * discontinuity, flagged or not (a timestamp more than 40 ms away from
   * where the sample count puts it), does the same: no frame may span it.
   * gpuspectrum does what spectrum does instead: a DISCONT flag cuts the
   * interval (above), a timestamp alone is no discontinuity. */
  if (self->priv->running && (self->priv->live_gen != self->priv->applied_gen
          || (!compat && GST_BUFFER_FLAG_IS_SET (buf, GST_BUFFER_FLAG_DISCONT))
          || (!compat && GST_CLOCK_TIME_IS_VALID (pts)
              && ABS (GST_CLOCK_DIFF (gst_gpu_fft_base_stream_sample_to_time
                      (self, self->priv->received), pts)) > PTS_TOLERANCE))) {
    GST_DEBUG_OBJECT (self, "%s",
        self->priv->live_gen !=
        self->priv->applied_gen ? "settings changed" : "discontinuity");
    /* (gpuspectrum, as spectrum: the interval a geometry change cuts short
     * is not posted, so that the next message has the new geometry) */
    self->priv->discarding =
        self->priv->live.reset_gen != self->priv->applied_reset_gen
        && GST_GPU_FFT_BASE_GET_CLASS (self)->spectrum_compat;
    ok = gst_gpu_fft_base_stream_flush_and_restart (self, FALSE);
    self->priv->discarding = FALSE;
    if (!ok)
      goto error;
  }

  if (self->priv->is_live < 0) {
    self->priv->is_live = gst_gpu_fft_upstream_is_live
        (GST_BASE_TRANSFORM_SINK_PAD (self)) ? 1 : 0;
    GST_DEBUG_OBJECT (self, "upstream is %slive",
        self->priv->is_live ? "" : "not ");
    gst_gpu_fft_base_results_choose_posting (self);
  }
  if (self->priv->buffer_hint == 0)
    self->priv->buffer_hint = n;

restart:
  if (!self->priv->running) {
    GstSegment *segment = &trans->segment;

    if (GST_CLOCK_TIME_IS_VALID (pts))
      self->priv->base_pts = pts;
    else if (GST_CLOCK_TIME_IS_VALID (self->priv->next_pts))
      self->priv->base_pts = self->priv->next_pts;
    else if (segment->format == GST_FORMAT_TIME)
      self->priv->base_pts = segment->start;
    else
      self->priv->base_pts = 0;
    if (!gst_gpu_fft_base_plan_apply_settings (self))
      goto error;
    self->priv->received = 0;
    /* (nothing carried from before reaches this stream) */
    self->priv->restart_gen++;
    gst_gpu_fft_store_reset (&self->priv->store, 0);
    self->priv->running = TRUE;
    GST_DEBUG_OBJECT (self, "start at %" GST_TIME_FORMAT,
        GST_TIME_ARGS (self->priv->base_pts));
  }

  pos = self->priv->received;
  if (GST_GPU_FFT_BASE_GET_CLASS (self)->spectrum_compat)
    gst_gpu_fft_base_stream_compat_buffer (self, pos, pts);
  /* The plan (or the device) is still being made (gstgpufftplanjob.h):
   * the buffer passes on now and its samples wait in the store. A stream
   * that is not live waits for the plan (back-pressure, as for a busy GPU)
   * at the buffer that completes an interval, so that its message comes
   * without waiting for more data, or once the store holds PLAN_WAIT
   * (seconds or bytes of audio). A live one never waits: past PLAN_WAIT it
   * drops what the store holds, counted as intervals the GPU could not
   * take, and starts over from this buffer. Where a host plan starts the
   * analysis instead (gstgpufftbase-host.c), the samples go to it at
   * once, and the device's plan takes over between intervals. */
  if (self->priv->plan == NULL || self->priv->on_host) {
    const GstGpuFftGrid *grid = &self->priv->framing.grid;
    /* (a single buffer over the bound is kept: the bound is for the
     * store's growth) */
    gboolean full = self->priv->store.len > 0
        && self->priv->store.len + n > plan_wait_bound (self);
    gboolean closes = gst_gpu_fft_framing_grid_index_of (grid, pos + n) >
        gst_gpu_fft_framing_grid_index_of (grid, pos);
    gboolean failed;

    if (!gst_gpu_fft_base_plan_ready (self, (full || closes)
            && self->priv->is_live <= 0, full || closes, &failed)) {
      if (failed)
        goto error;
      if (full && self->priv->is_live > 0) {
        gst_gpu_fft_base_stream_drop_stored (self);
        goto restart;
      }
      /* (not live: a flush or a stop let the wait go) */
      gst_gpu_fft_store_keep_and_append (&self->priv->store,
          self->priv->framing.next_start, pos,
          (const gpointer *) self->priv->in_planes, n);
      self->priv->received = pos + n;
      g_free (bounded);
      gst_buffer_unmap (buf, &map);
      return gst_gpu_fft_base_results_post_buffer (self) ? GST_FLOW_OK :
          GST_FLOW_ERROR;
    }
  }
  /* (a live stream that catches up drops again once its store is full) */
  if (self->priv->catching_up
      && self->priv->store.len + n > plan_wait_bound (self))
    self->priv->catching_up = FALSE;
  /* (only ordinary host allocations can be imported: not dmabuf, GL or
   * file mappings; and the device's own memory is read in place; a host
   * plan copies every segment; nor a buffer whose samples beyond the bound
   * the engine gets as NaN, from a copy) */
  if (!self->priv->on_host && bounded == NULL
      && GST_AUDIO_INFO_LAYOUT (&self->priv->info) ==
      GST_AUDIO_LAYOUT_INTERLEAVED && gst_buffer_n_memory (buf) == 1
      && (gst_memory_is_type (gst_buffer_peek_memory (buf, 0),
              GST_ALLOCATOR_SYSMEM)
          || gst_memory_is_type (gst_buffer_peek_memory (buf, 0),
              GST_GPU_FFT_ALLOCATOR_MEMORY_TYPE))) {
    self->priv->in_buf = buf;
    self->priv->in_data = map.data;
  }
  ok = gst_gpu_fft_base_stream_run_batches (self, pos + n, FALSE, pos,
      (gpointer const *) self->priv->in_planes, n);
  self->priv->in_buf = NULL;
  self->priv->in_data = NULL;
  if (ok)
    gst_gpu_fft_store_keep_and_append (&self->priv->store,
        self->priv->framing.next_start, pos,
        (const gpointer *) self->priv->in_planes, n);
  self->priv->received = pos + n;
  g_free (bounded);
  gst_buffer_unmap (buf, &map);
  /* (gpuspectrum, not live: the messages of what the buffer completes are
   * posted before it leaves, as spectrum's) */
  if (ok)
    ok = gst_gpu_fft_base_results_post_buffer (self);

  return ok ? GST_FLOW_OK : GST_FLOW_ERROR;

error:
  g_free (bounded);
  gst_buffer_unmap (buf, &map);
  return GST_FLOW_ERROR;
}
