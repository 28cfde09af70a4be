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
 * The plan and the renderer (their settings, their making beside the
 * stream, a restart of the analysis) are gstgpufftspectrogram-state.c's,
 * the FIFO's samples gstgpufftspectrogram-fifo.c's. Plan and renderer are
 * made on a thread of their own (gstgpufftplanjob.h), never here:
 * meanwhile the samples wait in the FIFO (a live stream's for at most
 * PLAN_WAIT_SECONDS, then they are dropped and the analysis starts again
 * from the next buffer), a stream that is not live waits for them (its
 * frames then come as its buffers do), and a live one gets a GAP event
 * for each video frame that falls due, so that its sink goes on; the
 * first frame drawn has the columns of every sample that waited. */
#include <math.h>
#include <string.h>

#include "gstgpufftspectrogram-private.h"
#include "gstgpufftlive.h"

#define GST_CAT_DEFAULT gst_gpu_fft_spectrogram_debug

#define DB_FLOOR -200.0f
/* how much audio a live stream keeps while its plan is being made */
#define PLAN_WAIT_SECONDS 30
#define PLAN_WAIT_BYTES (64u << 20)

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
    seg.data =
        gst_gpu_fft_spectrogram_fifo_at (self,
        self->next_frame * self->frame_hop);
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
      gst_gpu_fft_spectrogram_fifo_drop (self, drop);
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
  static gsize quark = 0;
  static gint counter;
  gpointer key;

  /* (once: the streaming threads of several spectrograms get here at
   * once) */
  if (g_once_init_enter (&quark))
    g_once_init_leave (&quark,
        g_quark_from_static_string ("gpufftspectrogram-render-key"));
  key = gst_mini_object_get_qdata (GST_MINI_OBJECT (mem), (GQuark) quark);
  if (!key) {
    key = GSIZE_TO_POINTER ((gsize) g_atomic_int_add (&counter, 1) + 1);
    gst_mini_object_set_qdata (GST_MINI_OBJECT (mem), (GQuark) quark, key,
        NULL);
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
  run.peak_fall_db =
      (gfloat) (self->cur.peak_fall / gst_gpu_fft_spectrogram_state_fps (self));
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
    gst_gpu_fft_spectrogram_state_restart_analysis (self);
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
      gst_gpu_fft_spectrogram_state_reset (self);
    }
  }
  if (!gst_gpu_fft_spectrogram_state_ensure (self))
    return GST_FLOW_ERROR;
  if (!GST_CLOCK_TIME_IS_VALID (self->t0)) {
    self->t0 = GST_CLOCK_TIME_IS_VALID (pts) ? pts : self->segment.start;
    self->samples = 0;
    self->video_frame = 0;
  }
  if (self->fifo_origin == 0 && self->next_frame == 0 && self->fifo->len == 0) {
    if (!gst_gpu_fft_spectrogram_fifo_append_zeros (self, self->fft_size / 2))
      return GST_FLOW_ERROR;
    self->pad_pending = TRUE;
  }
  if (!gst_gpu_fft_spectrogram_fifo_append (self, buf, n))
    return GST_FLOW_ERROR;
  note_peaks (self);
  self->samples += n;
  if (self->pad_pending && self->samples > self->fft_size / 2)
    gst_gpu_fft_spectrogram_fifo_mirror_start (self);
  if (!self->plan) {
    gboolean failed;

    if (self->is_live < 0) {
      self->is_live = gst_gpu_fft_upstream_is_live (self->sinkpad) ? 1 : 0;
      GST_DEBUG_OBJECT (self, "upstream is %slive", self->is_live ? "" :
          "not ");
    }
    if (!gst_gpu_fft_spectrogram_state_ready (self, self->is_live == 0,
            &failed))
      return failed ? GST_FLOW_ERROR : self->is_live ==
          0 ? GST_FLOW_FLUSHING : gaps_due (self);
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
  if (!gst_gpu_fft_spectrogram_state_ready (self, TRUE, &failed))
    return failed ? GST_FLOW_ERROR : GST_FLOW_FLUSHING;
  if (self->pad_pending)
    gst_gpu_fft_spectrogram_fifo_mirror_start (self);
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
  if (!gst_gpu_fft_spectrogram_fifo_append_mirror_end (self))
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
