/* GstGpuFftBase: the streaming path. Runs on the streaming thread (and in
 * start/stop/setup/events, which GStreamer serialises with it): the
 * samples' times, the framing of received samples into engine batches
 * (each closing interval tagged with its message parameters, which the
 * result path then owns), restarts and cuts, and the live drop of
 * intervals when the GPU falls behind (a warning at most every
 * DROP_WARNING_INTERVAL_US). The plan it hands batches to is made and
 * installed by gstgpufftbase-plan.c, a host plan's part by
 * gstgpufftbase-host.c. Waits for the GPU only for a free slot of the
 * plan where a batch may wait (a stream that is not live, a live one
 * catching up or flushing), which a stop lets go (plan_stop_cancel), and
 * in gst_gpu_fft_base_results_drain() (gstgpufftbase-results.c). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>

#include "gstgpufftbase-private.h"
#include "gstgpufftallocator.h"

#define GST_CAT_DEFAULT gst_gpu_fft_base_debug

/* ------------------------------------------------------------------------ */
/* time                                                                     */


GstClockTime
gst_gpu_fft_base_stream_sample_to_time (GstGpuFftBase * self, guint64 sample)
{
  /* saturating: a stream that starts near the end of the clock's range
   * keeps end >= start instead of wrapping (GST_CLOCK_TIME_NONE excluded) */
  guint64 t = gst_util_uint64_scale_round (sample, GST_SECOND,
      GST_AUDIO_INFO_RATE (&self->priv->info));

  if (t >= G_MAXUINT64 - 1 - self->priv->base_pts)
    return G_MAXUINT64 - 1;
  return self->priv->base_pts + t;
}

/* gpuspectrum: a buffer that begins at sample `pos` (PTS pts) begins an
 * interval there, or not; spectrum times that interval's message with the
 * buffer's PTS. */
void
gst_gpu_fft_base_stream_compat_buffer (GstGpuFftBase * self, guint64 pos,
    GstClockTime pts)
{
  const GstGpuFftGrid *grid = &self->priv->framing.grid;
  guint64 k = gst_gpu_fft_framing_grid_index_of (grid, pos);
  GstGpuFftCompatStart st = { k, pts };
  guint i = 0;

  if (gst_gpu_fft_framing_grid_boundary (grid, k) != pos)
    return;
  if (self->priv->compat_starts == NULL)
    self->priv->compat_starts = g_array_new (FALSE, FALSE,
        sizeof (GstGpuFftCompatStart));
  /* (the intervals before the open one are timed, or were not posted:
   * their entries go, so that the array stays short with post-messages
   * off) */
  while (i < self->priv->compat_starts->len
      && g_array_index (self->priv->compat_starts, GstGpuFftCompatStart,
          i).interval < self->priv->framing.cur)
    i++;
  if (i > 0)
    g_array_remove_range (self->priv->compat_starts, 0, i);
  g_array_append_val (self->priv->compat_starts, st);
}

/* gpuspectrum: interval k's message time as spectrum gives it: the PTS of
 * the buffer that began it, if one did; else the last interval's time plus
 * the intervals since, each floor (samples x 1 s / rate) (spectrum adds
 * them one by one); the first after a restart: from its first sample. */
static GstClockTime
compat_timestamp (GstGpuFftBase * self, guint64 k)
{
  const GstGpuFftGrid *grid = &self->priv->framing.grid;
  GArray *starts = self->priv->compat_starts;
  GstClockTime ts = GST_CLOCK_TIME_NONE;
  guint rate = GST_AUDIO_INFO_RATE (&self->priv->info);
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
    if (self->priv->compat_timed && self->priv->compat_k < k
        && GST_CLOCK_TIME_IS_VALID (self->priv->compat_ts)) {
      guint64 j;

      ts = self->priv->compat_ts;
      for (j = self->priv->compat_k; j < k; j++)
        ts += gst_util_uint64_scale (gst_gpu_fft_framing_grid_boundary (grid,
                j + 1) - gst_gpu_fft_framing_grid_boundary (grid, j),
            GST_SECOND, rate);
    } else {
      ts = gst_gpu_fft_base_stream_sample_to_time (self,
          gst_gpu_fft_framing_grid_boundary (grid, k));
    }
  }
  self->priv->compat_timed = TRUE;
  self->priv->compat_k = k;
  self->priv->compat_ts = ts;
  return ts;
}

/* ------------------------------------------------------------------------ */
/* batches                                                                  */

/* The message parameters of a closing interval, computed now (the
 * segment, settings and plan in force) and handed to the engine as the
 * group's tag; NULL when no message is to be posted. */
static GstGpuFftMessageParams *
make_message_params (GstGpuFftBase * self, const GstGpuFftBatchGroup * g)
{
  const GstGpuFftBaseSettings *live = &self->priv->live;
  GstSegment *segment = &GST_BASE_TRANSFORM (self)->segment;
  GstGpuFftMessageParams *p;
  gboolean cut = g->end < gst_gpu_fft_framing_grid_boundary
      (&self->priv->framing.grid, g->interval + 1);
  gboolean compat = GST_GPU_FFT_BASE_GET_CLASS (self)->spectrum_compat;

  /* (discarding: only the interval cut short; complete ones still waiting
   * in the store, a live stream's backlog, are posted; gpuspectrum: every
   * interval gets its parameters, posted or not, for the carry of a cut) */
  if ((!live->post_messages && !compat) || (self->priv->discarding && cut))
    return NULL;
  p = g_new0 (GstGpuFftMessageParams, 1);
  p->post = live->post_messages;
  p->carry = self->priv->cutting && cut;
  self->priv->cut_closed |= p->carry;
  p->restart_gen = self->priv->restart_gen;
  /* (the cut interval belongs to the cut being made; complete intervals
   * flushed with it, to the grid before) */
  p->cut_seq = self->priv->cut_seq + (p->carry ? 1 : 0);
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
  p->rate = GST_AUDIO_INFO_RATE (&self->priv->info);
  p->fft_size = self->priv->plan_config.fft_size;
  p->hop = self->priv->plan_config.hop;
  p->window = self->priv->plan_config.window;
  p->scaling = self->priv->plan_config.scaling;
  p->multi_channel = !self->priv->plan_config.downmix;
  p->format = live->message_format;
  p->magnitude = live->message_magnitude;
  p->phase = live->message_phase;
  p->db_offset = self->priv->plan_config.db_offset;
  p->threshold = live->threshold;
  p->min_bin = self->priv->min_bin;
  p->max_bin = self->priv->max_bin;
  p->n_peaks = self->priv->plan_config.n_peaks;
  p->dominant = live->message_dominant;
  p->compat = GST_GPU_FFT_BASE_GET_CLASS (self)->spectrum_compat;
  p->gen = self->priv->applied_reset_gen;
  p->analysis = self->priv->plan_analysis;
  p->bands =
      self->priv->bands ? gst_gpu_fft_bands_ref (self->priv->bands) : NULL;
  /* the interval's first frame: the first whose last sample is in it */
  p->first_frame = g->start + 1 > p->fft_size ?
      (g->start + 1 - p->fft_size + p->hop - 1) / p->hop : 0;
  p->base_pts = self->priv->base_pts;
  if (p->compat) {
    /* spectrum's duration is its interval property (a complete interval
     * spans it to the sample; the partial one at EOS says how long it is) */
    GstClockTime one = gst_util_uint64_scale_ceil (1, GST_SECOND, p->rate);

    if (p->duration + one >= live->interval)
      p->duration = live->interval;
  }
  /* the intervals dropped so far go to the first message that follows */
  p->dropped = self->priv->dropped_pending;
  self->priv->dropped_pending = 0;
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

  self->priv->dropped_pending += n;
  GST_OBJECT_LOCK (self);       /* (read by the stats property) */
  self->priv->dropped_total += n;
  GST_OBJECT_UNLOCK (self);
  GST_DEBUG_OBJECT (self, "%s: %u intervals dropped", plan_pending ?
      "plan not ready" : self->priv->on_host ? "CPU behind" : "GPU behind", n);
  if (self->priv->drop_warned_at != 0
      && now - self->priv->drop_warned_at < DROP_WARNING_INTERVAL_US)
    return;
  self->priv->drop_warned_at = now;
  err = g_error_new_literal (GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_BUSY,
      plan_pending ? "The GPU analysis is still being prepared (its shaders "
      "compile): intervals of analysis are dropped (the audio passes on "
      "time)" : self->priv->host_only ? "The analysis on the CPU falls behind "
      "the live stream: intervals of analysis are dropped (the audio passes "
      "on time)" : self->
      priv->on_host ? "The analysis on the CPU, which stands "
      "in while the GPU's is being prepared, falls behind the live stream: "
      "intervals of analysis are dropped (the audio passes on time)" :
      "The GPU falls behind the live stream: intervals of "
      "analysis are dropped (the audio passes on time)");
  debug =
      g_strdup_printf ("%" G_GUINT64_FORMAT " intervals dropped so far; "
      "the next message says how many in its `dropped` field",
      self->priv->dropped_total);
  GST_WARNING_OBJECT (self, "%s (%s)", err->message, debug);
  gst_gpu_fft_poster_push (self->priv->poster, gst_message_new_warning
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
  gsize min = gpufft_plan_get_import_min_bytes (self->priv->plan);
  GpufftHostMemory *host = NULL;
  HeldInput *h;

  /* (gpuspectrum keeps no reference on a buffer, as spectrum keeps none) */
  if (self->priv->in_buf == NULL
      || GST_GPU_FFT_BASE_GET_CLASS (self)->spectrum_compat)
    return;
  if (gst_buffer_n_memory (self->priv->in_buf) == 1)
    host = gst_gpu_fft_allocator_memory_host (gst_buffer_peek_memory
        (self->priv->in_buf, 0));
  /* (the memory of another element's device is copied, not imported) */
  if (host && (self->priv->device == NULL
          || gpufft_host_memory_get_context (host)
          != gst_gpu_fft_device_peek (self->priv->device)))
    return;
  if (host == NULL && (min == 0
          || seg->n_samples * GST_AUDIO_INFO_BPF (&self->priv->info) < min))
    return;
  h = g_new0 (HeldInput, 1);
  if (!gst_buffer_map (self->priv->in_buf, &h->map, GST_MAP_READ)) {
    g_free (h);
    return;
  }
  h->buf = gst_buffer_ref (self->priv->in_buf);
  /* (the same memory, so the same place in this mapping) */
  seg->data = h->map.data + ((const guint8 *) seg->data - self->priv->in_data);
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
  const GstAudioInfo *info = &self->priv->info;
  guint channels = GST_AUDIO_INFO_CHANNELS (info);
  gboolean planar = self->priv->plan_config.planar;
  gsize bps = GST_AUDIO_INFO_BPS (info);
  GpufftSegment segs[3];
  GpufftBatch batch;
  GError *error = NULL;
  gboolean busy = FALSE;
  guint64 s0 = bp->span_start;
  guint64 s1 =
      s0 + gst_gpu_fft_framing_span (&self->priv->framing, bp->n_frames)
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

    if (self->priv->zeros_size < bytes) {
      g_free (self->priv->zeros);
      self->priv->zeros = g_malloc0 (bytes);
      self->priv->zeros_size = bytes;
    }
    seg->n_samples = bp->lead;
    if (planar) {
      for (c = 0; c < channels; c++)
        self->priv->seg_planes[2 * channels + c] = self->priv->zeros;
      seg->planes = self->priv->seg_planes + 2 * channels;
    } else {
      seg->data = self->priv->zeros;
    }
  }
  if (bp->n_frames > 0) {
    if (s0 < pos) {
      GpufftSegment *seg = &segs[batch.n_segments++];

      if (s0 < self->priv->store.start
          || pos > gst_gpu_fft_store_end (&self->priv->store)) {
        GST_ELEMENT_ERROR (self, CORE, FAILED, (NULL),
            ("internal: samples %" G_GUINT64_FORMAT "..%" G_GUINT64_FORMAT
                " not stored", s0, pos));
        return FALSE;
      }
      seg->n_samples = MIN (pos, s1) - s0;
      if (planar) {
        for (c = 0; c < channels; c++)
          self->priv->seg_planes[c] =
              gst_gpu_fft_store_at (&self->priv->store, c, s0);
        seg->planes = self->priv->seg_planes;
      } else {
        seg->data = gst_gpu_fft_store_at (&self->priv->store, 0, s0);
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
          self->priv->seg_planes[channels + c] =
              (const guint8 *) planes[c] + off * bps;
        seg->planes = self->priv->seg_planes + channels;
      } else {
        seg->data = (const guint8 *) planes[0] + off * bps * channels;
        offer_in_place (self, seg);
      }
    }
  }

  for (i = 0; i < bp->n_groups; i++) {
    self->priv->engine_groups[i].n_frames = bp->groups[i].n_frames;
    self->priv->engine_groups[i].close = bp->groups[i].close;
    self->priv->engine_groups[i].tag = bp->groups[i].close ?
        make_message_params (self, &bp->groups[i]) : NULL;
    /* the `reset` action restarts the averaging state here */
    self->priv->engine_groups[i].reset = i == 0
        && g_atomic_int_compare_and_exchange (&self->priv->reset_pending, 1, 0);
  }
  batch.segments = segs;
  batch.n_frames = bp->n_frames;
  batch.groups = self->priv->engine_groups;
  batch.n_groups = bp->n_groups;
  batch.db_floor = (gfloat) self->priv->live.threshold;
  /* live: never hold the audio for the GPU */
  /* (live: a full device drops the batch, but for the backlog of a late
   * plan, and what a host plan is handed, flushed at a restart or the end:
   * that waits for a slot) */
  batch.no_wait = self->priv->is_live > 0 && !(flush && (self->priv->catching_up
          || self->priv->on_host));
  /* a plan whose thread posts (a bus handler on it may be stopping the
   * pipeline): a batch it would wait for waits here instead, as for the
   * poster, and is dropped (counted) where the element stops or flushes
   * meanwhile; while flushing, an interval the dropped batch leaves open
   * in the plan runs into the next one */
  if (self->priv->posts_here && !(batch.no_wait && !self->priv->group_open
          && bp->n_groups > 0 && bp->groups[bp->n_groups - 1].close)
      && !gst_gpu_fft_poster_wait_until (self->priv->poster, plan_has_slot,
          self->priv->plan)) {
    g_set_error (&error, GPUFFT_ERROR, GPUFFT_ERROR_BUSY,
        "the element stops or flushes while its host plan is full");
    busy = TRUE;
  }

  /* not live: the messages of earlier batches are posted first, as when
   * the device's completion thread posted them (a bus handler that is
   * slow holds the stream, and its property changes apply at the next
   * batch) */
  if (!batch.no_wait)
    gst_gpu_fft_poster_wait (self->priv->poster);

  GST_LOG_OBJECT (self, "batch: %u frames from %" G_GUINT64_FORMAT
      ", %u groups%s", bp->n_frames, s0, bp->n_groups,
      bp->closes ? " (closing)" : "");
  if (!busy && gpufft_plan_submit (self->priv->plan, &batch, &error)) {
    self->priv->group_open = bp->n_groups > 0
        && !bp->groups[bp->n_groups - 1].close;
    if (self->priv->on_host) {
      guint closed = 0;

      for (i = 0; i < bp->n_groups; i++)
        closed += bp->groups[i].close ? 1 : 0;
      GST_OBJECT_LOCK (self);   /* (read by the stats property) */
      self->priv->host_total += closed;
      GST_OBJECT_UNLOCK (self);
    }
    return TRUE;
  }
  /* (a reset this batch carried waits for the next one) */
  if (bp->n_groups > 0 && self->priv->engine_groups[0].reset)
    g_atomic_int_set (&self->priv->reset_pending, 1);
  for (i = 0; i < bp->n_groups; i++) {
    GstGpuFftMessageParams *p = self->priv->engine_groups[i].tag;

    /* (a count the tag carried is carried by the next one) */
    if (p)
      self->priv->dropped_pending += p->dropped;
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
    if (self->priv->catching_up && !flush
        && gpufft_plan_in_flight (self->priv->plan) >=
        gpufft_plan_get_n_slots (self->priv->plan))
      return TRUE;
    bp.groups = self->priv->batch_groups;
    /* live: only closed intervals go to the GPU, so that a batch can
     * always be dropped whole when the GPU is behind (an interval spanning
     * batches could not); on the host plan too, so that the device's can
     * take over at any batch */
    gst_gpu_fft_framing_next_batch (&self->priv->framing, avail_end, flush,
        self->priv->is_live > 0 || self->priv->on_host, self->priv->max_frames,
        self->priv->max_groups, &bp);
    if (bp.submit && !submit_batch (self, &bp, flush, pos, planes, n))
      return FALSE;
    /* a partial interval a restart closes before it holds a frame gets no
     * message: the next message counts it in `dropped`, so that its
     * timestamp + duration meets the next one's or the gap is counted */
    if (bp.flushed_empty) {
      GST_DEBUG_OBJECT (self, "partial interval without a frame at the "
          "restart: counted in the next message's dropped");
      self->priv->dropped_pending++;
    }
    if (!bp.submit || bp.flushed)
      break;
  }
  self->priv->catching_up = FALSE;

  /* batch-size 0 (automatic), and at least HANDOVER_BYTES of samples
   * waiting (big buffers, long intervals): hand the complete frames of the
   * open interval over now rather than keep their samples until the
   * interval ends: the store then holds less than a frame and a hop, so
   * each sample is copied once (into staging), and the GPU works while the
   * stream goes on. Smaller buffers wait for the interval to close: one
   * batch per interval, whatever the buffer size. Not on a host plan:
   * its batches end with their intervals, so that the device's plan can
   * take over at the next. */
  if (!flush && self->priv->is_live <= 0 && self->priv->live.batch_size == 0
      && !self->priv->on_host
      && (avail_end - self->priv->framing.next_start) *
      GST_AUDIO_INFO_BPF (&self->priv->info) >= HANDOVER_BYTES
      && avail_end >=
      self->priv->framing.next_start + self->priv->framing.fft_size) {
    guint64 ready =
        (avail_end - self->priv->framing.next_start -
        self->priv->framing.fft_size) / self->priv->framing.hop + 1;
    GstGpuFftBatchPlan bp;

    bp.groups = self->priv->batch_groups;
    gst_gpu_fft_framing_next_batch (&self->priv->framing, avail_end, FALSE,
        FALSE, (guint) MIN (ready, self->priv->max_frames),
        self->priv->max_groups, &bp);
    if (bp.submit && !submit_batch (self, &bp, FALSE, pos, planes, n))
      return FALSE;
  }
  return TRUE;
}

/* Forgets what was received: the next buffer starts the analysis anew. */
static void
forget_received (GstGpuFftBase * self)
{
  self->priv->running = FALSE;
  self->priv->received = 0;
  self->priv->restart_gen++;
  self->priv->compat_timed = FALSE;
  if (self->priv->compat_starts)
    g_array_set_size (self->priv->compat_starts, 0);
  self->priv->catching_up = FALSE;
  self->priv->group_open = FALSE;
  gst_gpu_fft_store_reset (&self->priv->store, 0);
}

void
gst_gpu_fft_base_stream_drop_stored (GstGpuFftBase * self)
{
  const GstGpuFftGrid *grid = &self->priv->framing.grid;
  guint64 k = gst_gpu_fft_framing_grid_index_of (grid, self->priv->received);

  /* the complete intervals, and the open one where it has samples */
  if (self->priv->received > gst_gpu_fft_framing_grid_boundary (grid, k))
    k++;
  if (self->priv->store.len > 0 && k > 0)
    gst_gpu_fft_base_stream_drop (self, (guint) MIN (k, G_MAXUINT), TRUE);
  self->priv->next_pts = gst_gpu_fft_base_stream_sample_to_time (self,
      self->priv->received);
  forget_received (self);
}

/* Posts the pending interval (if it holds frames) and restarts the
 * framing: nothing before can reach a frame after. */
gboolean
gst_gpu_fft_base_stream_flush_and_restart (GstGpuFftBase * self,
    gboolean ending)
{
  gboolean ok = TRUE;

  if (self->priv->running && (self->priv->plan || self->priv->plan_job
          || self->priv->host_only
          || self->priv->host_lead != GST_GPU_FFT_LEAD_NONE)) {
    gboolean failed;

    /* What the store holds is analysed: the plan is waited for, but by a
     * live stream only at its end (else what the store holds is dropped,
     * counted, and the plan, still being made, serves what comes next). */
    if (gst_gpu_fft_base_plan_ready (self, ending
            || self->priv->is_live <= 0, TRUE, &failed)) {
      GST_DEBUG_OBJECT (self, "restart after %" G_GUINT64_FORMAT " samples",
          self->priv->received);
      ok = gst_gpu_fft_base_stream_run_batches (self, self->priv->received,
          TRUE, self->priv->received, NULL, 0);
      self->priv->next_pts =
          gst_gpu_fft_base_stream_sample_to_time (self, self->priv->received);
    } else if (!failed && g_atomic_int_get (&self->priv->plan_wait_cancel)) {
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
  GstGpuFftFraming *f = &self->priv->framing;
  guint64 at = self->priv->received, k, len, need;
  gboolean failed, ok;

  if (!gst_gpu_fft_base_plan_ready (self, self->priv->is_live <= 0, TRUE,
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
  self->priv->cutting = TRUE;
  self->priv->cut_closed = FALSE;
  ok = gst_gpu_fft_base_stream_run_batches (self, at, TRUE, at, NULL, 0);
  self->priv->cutting = FALSE;
  /* (but for an interval 0 cut before its first frame: the carry of the
   * cut before goes on to the next grid's interval 0, as spectrum's sums
   * do) */
  if (self->priv->cut_closed || k != 0)
    self->priv->cut_seq++;
  if (!ok)
    return FALSE;
  need = gst_gpu_fft_framing_cut (f, at, len);
  /* (the messages of the intervals before are timed: what is left of
   * their record goes; the next interval takes this buffer's PTS) */
  self->priv->compat_timed = FALSE;
  if (self->priv->compat_starts)
    g_array_set_size (self->priv->compat_starts, 0);
  /* (what a frame after the cut reaches back to is still stored, but for
   * an interval shorter than a frame right after a restart) */
  if (need < self->priv->store.start && need < at) {
    GST_DEBUG_OBJECT (self, "samples before the cut no longer stored: "
        "restarting");
    return gst_gpu_fft_base_stream_flush_and_restart (self, FALSE);
  }
  return TRUE;
}
