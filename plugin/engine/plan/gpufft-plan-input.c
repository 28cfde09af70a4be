/* The input path: a batch is checked, its span copied into a free
 * staging slot (the only CPU copy of each sample) or read in place (a
 * segment in the engine's mapped memory, gpufft-host-memory.h; or, for
 * large segments on devices that can, imported, gpufft-import.h), its chunk
 * and group tables written, and the slot queued for the device's
 * scheduler. Runs on the caller's thread and never waits for the GPU while
 * one of the plan's slots is free. See gpufft-plan-private.h. */
#include <string.h>

#include "gpufft-plan-private.h"
#include "gpufft-scheduler.h"

static gboolean
check_batch (GpufftPlan * plan, const GpufftBatch * b, gsize * span_out,
    GError ** error)
{
  gsize span = 0, need;
  guint64 sum = 0;
  guint i;

  if (b->n_segments > 0 && !b->segments)
    return gpufft_error_invalid (error, "%u segments but no segment array",
        b->n_segments);
  if (b->n_groups == 0 || b->n_groups > plan->max_groups || !b->groups)
    return gpufft_error_invalid (error, "a batch needs 1 to %u groups, got %u",
        plan->max_groups, b->n_groups);
  if (b->n_frames > plan->max_frames)
    return gpufft_error_invalid (error, "%u frames in a batch, at most %u",
        b->n_frames, plan->max_frames);
  for (i = 0; i < b->n_groups; i++) {
    sum += b->groups[i].n_frames;
    if (!b->groups[i].close && i + 1 < b->n_groups)
      return gpufft_error_invalid (error,
          "only the last group of a batch may stay open");
  }
  if (sum != b->n_frames)
    return gpufft_error_invalid (error,
        "the groups hold %" G_GUINT64_FORMAT " frames, " "the batch %u", sum,
        b->n_frames);
  for (i = 0; i < b->n_segments; i++) {
    const GpufftSegment *seg = &b->segments[i];

    if (seg->n_samples > 0 && ((!plan->cfg.planar && !seg->data)
            || (plan->cfg.planar && !seg->planes)))
      return gpufft_error_invalid (error, "segment %u has no data", i);
    if (seg->n_samples > 0 && plan->cfg.planar) {
      guint c;

      for (c = 0; c < plan->cfg.channels; c++)
        if (!seg->planes[c])
          return gpufft_error_invalid (error, "segment %u has no plane %u", i,
              c);
    }
    span += seg->n_samples;
  }
  need = b->n_frames ? (gsize) (b->n_frames - 1) * plan->cfg.hop
      + plan->cfg.fft_size : 0;
  if (span < need)
    return gpufft_error_invalid (error,
        "%u frames need %" G_GSIZE_FORMAT " samples, the " "segments hold %"
        G_GSIZE_FORMAT, b->n_frames, need, span);
  *span_out = need;
  return TRUE;
}

void
gpufft_plan_release_segments (const GpufftBatch * b)
{
  guint i;

  for (i = 0; b->segments && i < b->n_segments; i++)
    if (b->segments[i].release)
      b->segments[i].release (b->segments[i].release_data);
}

/* Adds a staging -> input copy of `size` bytes at `offset` (both sides),
 * merged with the previous one when they touch. */
static void
add_copy (GpufftSlot * s, VkDeviceSize offset, VkDeviceSize size)
{
  VkBufferCopy *last = s->copies->len ? &g_array_index (s->copies,
      VkBufferCopy, s->copies->len - 1) : NULL;
  VkBufferCopy r = { offset, offset, size };

  if (last && last->dstOffset + last->size == offset)
    last->size += size;
  else
    g_array_append_val (s->copies, r);
  s->job.copied_bytes += size;
}

#define HOST_MEMORY_MIN_BYTES (64u << 10)

gsize
gpufft_plan_mapped_min_bytes (void)
{
  const gchar *env = g_getenv ("GPUFFT_HOST_MEMORY_MIN_BYTES");

  if (env && *env)
    return g_ascii_strtoull (env, NULL, 10);
  return HOST_MEMORY_MIN_BYTES;
}

guint64
gpufft_plan_plane_stride (guint64 span)
{
  return (span + 7) / 8 * 8;
}

/* Reads the first `span` samples of the segments into the slot: into the
 * staging buffer (interleaved as they are, planar as planes that start
 * every gpufft_plan_plane_stride (span) samples), or, for a large
 * interleaved segment with a release function on a device that can, by
 * importing its memory. Calls the release function of each segment it
 * copied. */
static void
fill_span (GpufftPlan * plan, GpufftSlot * s, const GpufftBatch * b, gsize span)
{
  guint8 *dst = s->staging.mapped;
  gsize frame_bytes = (gsize) plan->cfg.channels * plan->bps;
  gsize pstride = gpufft_plan_plane_stride (span);
  gsize done = 0;
  guint i, c;

  g_array_set_size (s->copies, 0);
  s->span_bytes = span * frame_bytes;
  s->job.copied_bytes = 0;
  s->job.imported_bytes = 0;
  s->job.mapped_bytes = 0;
  for (i = 0; i < b->n_segments; i++) {
    const GpufftSegment *seg = &b->segments[i];
    gsize n = MIN (seg->n_samples, span - done);
    gsize bytes = n * frame_bytes;

    if (n > 0 && seg->release && seg->host && !plan->cfg.planar
        && bytes >= plan->mapped_min
        && gpufft_host_memory_get_context (seg->host) == plan->ctx) {
      SlotImport si = { {0}, TRUE, done * frame_bytes, bytes, seg->release,
      seg->release_data
      };

      if (gpufft_host_memory_locate (seg->host, seg->data, bytes,
              &si.imp.buffer, &si.imp.offset)) {
        g_array_append_val (s->imports, si);
        s->job.imported_bytes += bytes;
        s->job.mapped_bytes += bytes;
        done += n;
        continue;               /* released once the GPU has read it */
      }
    }
    if (n > 0 && seg->release && plan->import_min > 0
        && bytes >= plan->import_min && plan->import_failures < 4) {
      SlotImport si = { {0}, FALSE, done * frame_bytes, bytes, seg->release,
      seg->release_data
      };
      GError *err = NULL;

      if (gpufft_import_pointer (plan->ctx, seg->data, bytes, &si.imp, &err)) {
        g_array_append_val (s->imports, si);
        s->job.imported_bytes += bytes;
        done += n;
        continue;               /* released once the GPU has read it */
      }
      /* (e.g. a file mapping: copied, and after a few such, no more
       * tries) */
      g_debug ("host memory not imported, copied: %s", err->message);
      g_clear_error (&err);
      plan->import_failures++;
    }
    if (n > 0) {
      if (!plan->cfg.planar) {
        memcpy (dst + done * frame_bytes, seg->data, bytes);
        add_copy (s, done * frame_bytes, bytes);
      } else {
        for (c = 0; c < plan->cfg.channels; c++)
          memcpy (dst + ((gsize) c * pstride + done) * plan->bps,
              seg->planes[c], n * plan->bps);
      }
    }
    if (seg->release)
      seg->release (seg->release_data);
    done += n;
  }
  if (plan->cfg.planar && span > 0)
    add_copy (s, 0, pstride * frame_bytes);
}

void
gpufft_plan_release_imports (GpufftPlan * plan, GpufftSlot * s)
{
  guint i;

  for (i = 0; i < s->imports->len; i++) {
    SlotImport *si = &g_array_index (s->imports, SlotImport, i);

    if (!si->borrowed)
      gpufft_import_clear (plan->ctx, &si->imp);
    if (si->release)
      si->release (si->release_data);
  }
  g_array_set_size (s->imports, 0);
}

/* Lays the batch's frames into chunks (runs of at most F frames of one
 * group) and writes the chunk and group tables. */

/* Waits until a slot is free (lock held). FALSE with error set when the
 * plan failed, or (no_wait) when none is free. */
/* Writes the slot's chunk and group tables for the batch and updates
 * the plan's open-group state. */
static void
write_tables (GpufftPlan * plan, GpufftSlot * s, const GpufftBatch * b)
{
  guint32 *chunks = s->chunks.mapped;
  guint32 *groups = s->groups.mapped;
  /* Frames per chunk: 1 while there are few (latency), up to
   * FRAMES_PER_CHUNK once there are enough chunks to fill a GPU, more only
   * when the partial-sum rows run out. */
  guint per = plan->per_frame ? 1 : CLAMP (b->n_frames / 1024, 1,
      plan->chunk_max);
  guint g, frame = 0, nc = 0, closed = 0;

  /* (the CPU kernel: one workgroup takes a chunk's frames one after the
   * other on one of the device's threads, and writes one partial row: as
   * few chunks (of every output channel) as still keep the threads busy,
   * and never fewer than CPU_CHUNK_FRAMES frames where a group has them:
   * each chunk costs a row of stores, a row for the reduce kernel to add,
   * and the kernel's code and stack fetched anew) */
  if (plan->cpu && !plan->per_frame)
    per = CLAMP (((guint64) b->n_frames * plan->out_ch + plan->cpu_chunks -
            1) / plan->cpu_chunks, CPU_CHUNK_FRAMES,
        gpufft_plan_cpu_chunk_cap (plan));
  s->n_cplx_fix = 0;
  if (plan->four_step)          /* a chunk must fit a slice */
    per = MIN (per, plan->slice_frames);
  while (b->n_frames / per + b->n_groups > plan->max_chunks
      && (!plan->four_step || per < plan->slice_frames)
      && (!plan->cpu || per < gpufft_plan_cpu_chunk_cap (plan)))
    per++;

  for (g = 0; g < b->n_groups; g++) {
    const GpufftGroup *grp = &b->groups[g];
    gboolean cont = (g == 0 && plan->open);
    guint total = grp->n_frames + (cont ? plan->open_frames : 0);
    guint left = grp->n_frames, first_chunk = nc;
    guint32 *gw = groups + g * GROUP_WORDS;

    while (left > 0) {
      guint n = MIN (left, per);

      chunks[4 * nc] = s->chunk_frames[2 * nc] = frame;
      chunks[4 * nc + 1] = s->chunk_frames[2 * nc + 1] = n;
      /* The group's last frame writes its complex spectrum: into the
       * group's row when it closes, else into the carry row (after the
       * max_groups group rows) for a later batch that closes it. For the
       * mean phase every frame (one a chunk) writes its own, into the
       * chunk's row after those, for the reduce kernel. */
      if (plan->cfg.phase_mean) {
        chunks[4 * nc + 2] = plan->max_groups + 1 + nc;
        chunks[4 * nc + 3] = 1;
      } else {
        chunks[4 * nc + 2] = grp->close ? closed : plan->max_groups;
        chunks[4 * nc + 3] = n == left ? 1 : 0;
      }
      frame += n;
      left -= n;
      nc++;
    }
    memset (gw, 0, GROUP_WORDS * sizeof (guint32));
    gw[0] = first_chunk;
    gw[1] = nc - first_chunk;
    gw[2] = (cont ? 1 : 0) | (grp->close ? 2 : 0);
    /* (the averaging state starts at the plan's first frame, and again
     * where the caller asks) */
    if (grp->reset || (plan->fresh && !cont))
      gw[2] |= GROUP_RESET;
    plan->fresh = FALSE;
    s->group_frames[g] = grp->n_frames | (grp->close ? GROUP_CLOSES : 0);
    gw[3] = grp->close ? closed : 0;
    if (grp->close && grp->n_frames == 0 && plan->cfg.complex_out
        && !plan->cfg.phase_mean)
      s->cplx_fix[s->n_cplx_fix++] = closed | (total == 0 ? CPLX_ZERO : 0);
    if (grp->close) {
      s->closed_tags[closed] = grp->tag;
      s->closed_frames[closed++] = total;
      plan->open = FALSE;
      plan->open_frames = 0;
    } else {
      plan->open = TRUE;
      plan->open_frames = total;
    }
  }
  /* Pad to whole workgroups with empty chunks. */
  while (nc % plan->fpw) {
    memset (chunks + 4 * nc, 0, 4 * sizeof (guint32));
    nc++;
  }
  s->n_chunks = nc;
  s->n_groups = b->n_groups;
  s->n_closed = closed;
}

static gboolean
wait_for_slot (GpufftPlan * plan, const GpufftBatch * batch, GError ** error)
{
  /* Only a batch that neither continues nor leaves an open group may be
   * refused: the engine's open group spans batches. */
  gboolean may_refuse = batch->no_wait && !plan->open
      && batch->groups[batch->n_groups - 1].close;

  while (plan->error == NULL && plan->n_busy == plan->n_slots) {
    if (may_refuse) {
      g_set_error (error, GPUFFT_ERROR, GPUFFT_ERROR_BUSY,
          "all %u slots of the plan are in flight", plan->n_slots);
      return FALSE;
    }
    /* (the scheduler finishes the oldest slot at the latest at its stall
     * deadline) */
    if (!gpufft_plan_wait (plan)) {
      g_set_error (error, GPUFFT_ERROR, GPUFFT_ERROR_CANCELLED,
          "the wait for a slot was cancelled");
      return FALSE;
    }
  }
  if (plan->error) {
    g_propagate_error (error, g_error_copy (plan->error));
    return FALSE;
  }
  return TRUE;
}

gboolean
gpufft_plan_submit (GpufftPlan * plan, const GpufftBatch * batch,
    GError ** error)
{
  gsize span = 0;

  g_return_val_if_fail (plan != NULL && batch != NULL, FALSE);
  if (!check_batch (plan, batch, &span, error)) {
    gpufft_plan_release_segments (batch);
    return FALSE;
  }
  return plan->ops->submit (plan, batch, span, error);
}

gboolean
gpufft_plan_device_submit (GpufftPlan * plan, const GpufftBatch * batch,
    gsize span, GError ** error)
{
  GpufftSlot *s;
  gboolean ok;

  g_mutex_lock (&plan->lock);
  ok = wait_for_slot (plan, batch, error);
  g_mutex_unlock (&plan->lock);
  if (!ok) {
    gpufft_plan_release_segments (batch);
    return FALSE;
  }

  /* The slot is FREE and ours until it is queued. */
  s = &plan->slots[plan->next];
  if (plan->cpu_upgrade)
    gpufft_plan_cpu_maybe_upgrade (plan);
  s->fft = plan->fft;
  fill_span (plan, s, batch, span);
  s->carry_read = plan->carry_read;
  s->first_index = plan->next_group_index;
  write_tables (plan, s, batch);

  s->fft_params.sstride = plan->cfg.planar ? 1 : plan->cfg.channels;
  s->fft_params.cstride = plan->cfg.planar ?
      (guint32) gpufft_plan_plane_stride (span) : 1;
  s->fft_params.in_channels = plan->cfg.channels;
  s->fft_params.hop = plan->cfg.hop;
  s->fft_params.downmix = plan->cfg.downmix ? 1 : 0;
  s->fft_params.out_channels = plan->out_ch;
  s->fft_params.scale = plan->scale;
  s->fft_params.inv_channels = 1.0f / plan->cfg.channels;
  s->fft_params.edge = plan->edge;
  s->reduce_params.out_channels = plan->out_ch;
  s->reduce_params.peak_lo = MIN (plan->cfg.peak_min_bin, plan->m);
  s->reduce_params.peak_hi = plan->cfg.peak_max_bin;
  s->reduce_params.n_peaks = plan->n_peaks;
  s->reduce_params.output_db = plan->cfg.output_db ? 1 : 0;
  s->reduce_params.db_offset = plan->cfg.db_offset;
  s->reduce_params.db_floor = batch->db_floor;
  s->reduce_params.n_groups = batch->n_groups;
  s->reduce_params.alpha = plan->alpha;
  s->reduce_params.beta = plan->beta;
  s->reduce_params.phase_row = plan->max_groups + 1;
  s->reduce_params.frame_row = plan->frame_row;
  s->n_frames = batch->n_frames;
  /* (what the kernels read: each frame's samples of each channel) */
  s->job.work = (guint64) batch->n_frames * plan->cfg.fft_size *
      plan->cfg.channels + span;
  /* (the plan's first batch, or the first on a new pipeline) */
  s->job.cold = s->fft != plan->warm_fft;
  plan->warm_fft = s->fft;

  /* Staging and tables are host-coherent (gpufft-buffer.c): no flush. The
   * scheduler's queue lock orders these writes before its recording. */

  /* An open group's sum was written to the other carry buffer. */
  if (plan->open)
    plan->carry_read = 1 - plan->carry_read;
  plan->next_group_index += s->n_closed;
  plan->next = (plan->next + 1) % plan->n_slots;

  g_mutex_lock (&plan->lock);
  plan->n_busy++;
  g_mutex_unlock (&plan->lock);
  gpufft_scheduler_queue (plan->sched, &s->job);
  return TRUE;
}
