/* The commands of one slot: the phases the scheduler records for it on its
 * submit thread (upload, kernels, reduce, download), plus the benchmark
 * rerun. See gpufft-plan-private.h. */
#include <string.h>

#include "gpufft-plan-private.h"

void
gpufft_plan_record_kernels (GpufftPlan * plan, GpufftSlot * s,
    GpufftCommand * command)
{
  VkCommandBuffer cmd = command->cmd;
  const guint32 *chunks = s->chunk_frames;      /* not the mapped table */
  FftParams fp = s->fft_params;
  RowsParams rp;
  guint c = 0;

  if (s->n_chunks == 0 || s->merged)    /* (merged: gpufft-merge.c) */
    return;
  if (plan->any) {
    gpufft_plan_any_record (plan, s, command);
    return;
  }
  vkCmdBindPipeline (cmd, VK_PIPELINE_BIND_POINT_COMPUTE, s->fft->pipeline);
  vkCmdBindDescriptorSets (cmd, VK_PIPELINE_BIND_POINT_COMPUTE,
      s->fft->layout, 0, 1, &s->fft_set, 0, NULL);
  if (!plan->four_step) {
    vkCmdPushConstants (cmd, s->fft->layout, VK_SHADER_STAGE_COMPUTE_BIT,
        0, sizeof (FftParams), &fp);
    vkCmdDispatch (cmd, s->n_chunks / plan->fpw, plan->out_ch, 1);
    return;
  }

  /* Four-step: slices of whole chunks whose frames fit the temp buffer, so
   * that the second kernel reads what the first wrote while it is still in
   * the L2 cache. */
  rp.out_channels = plan->out_ch;
  rp.scale = plan->scale;
  rp.edge = plan->edge;
  while (c < s->n_chunks) {
    guint c0 = c, f0 = chunks[2 * c];

    while (c < s->n_chunks
        && chunks[2 * c] + chunks[2 * c + 1] - f0 <= plan->slice_frames)
      c++;
    rp.chunk_base = c0;
    fp.frame_base = rp.frame_base = f0;
    vkCmdBindPipeline (cmd, VK_PIPELINE_BIND_POINT_COMPUTE, s->fft->pipeline);
    vkCmdBindDescriptorSets (cmd, VK_PIPELINE_BIND_POINT_COMPUTE,
        s->fft->layout, 0, 1, &s->fft_set, 0, NULL);
    vkCmdPushConstants (cmd, s->fft->layout, VK_SHADER_STAGE_COMPUTE_BIT,
        0, sizeof (FftParams), &fp);
    /* One workgroup per frame and column. */
    vkCmdDispatch (cmd, (chunks[2 * (c - 1)] + chunks[2 * (c - 1) + 1] - f0)
        * plan->cols, plan->out_ch, 1);
    gpufft_command_barrier (command);
    vkCmdBindPipeline (cmd, VK_PIPELINE_BIND_POINT_COMPUTE,
        plan->rows->pipeline);
    vkCmdBindDescriptorSets (cmd, VK_PIPELINE_BIND_POINT_COMPUTE,
        plan->rows->layout, 0, 1, &s->rows_set, 0, NULL);
    vkCmdPushConstants (cmd, plan->rows->layout, VK_SHADER_STAGE_COMPUTE_BIT,
        0, sizeof (RowsParams), &rp);
    vkCmdDispatch (cmd, (c - c0) * plan->rows_kb, plan->out_ch, 1);
    if (c < s->n_chunks)
      gpufft_command_barrier (command);
  }
}

void
gpufft_plan_record_reduce (GpufftPlan * plan, GpufftSlot * s,
    VkCommandBuffer cmd)
{
  vkCmdBindPipeline (cmd, VK_PIPELINE_BIND_POINT_COMPUTE,
      plan->reduce->pipeline);
  vkCmdBindDescriptorSets (cmd, VK_PIPELINE_BIND_POINT_COMPUTE,
      plan->reduce->layout, 0, 1, s->merged ?
      &s->reduce_merged_set[s->carry_read] : &s->reduce_set[s->carry_read],
      0, NULL);
  vkCmdPushConstants (cmd, plan->reduce->layout, VK_SHADER_STAGE_COMPUTE_BIT,
      0, sizeof (ReduceParams), &s->reduce_params);
  /* (the averaging modes walk the groups in order: one workgroup per
   * channel) */
  vkCmdDispatch (cmd, plan->cfg.averaging == GPUFFT_AVERAGING_MEAN
      || plan->cfg.averaging == GPUFFT_AVERAGING_MEAN_DB ?
      s->n_groups : 1, plan->out_ch, 1);
}

/* complex_out: a group closed with no frame in this batch takes the
 * complex spectrum its last frame left in the carry row (before this
 * batch's kernels may overwrite that row); a group with no frame at all
 * gets zeros. */
static void
record_complex_fixes (GpufftPlan * plan, GpufftSlot * s, VkCommandBuffer cmd)
{
  VkDeviceSize block = (VkDeviceSize) plan->out_ch * plan->nb * 2 *
      sizeof (gfloat);
  guint i;

  for (i = 0; i < s->n_cplx_fix; i++) {
    guint slot = s->cplx_fix[i] & ~CPLX_ZERO;

    if (s->cplx_fix[i] & CPLX_ZERO) {
      vkCmdFillBuffer (cmd, plan->cplx_dev.buffer, slot * block, block, 0);
    } else {
      VkBufferCopy r = { plan->max_groups * block, slot * block, block };
      vkCmdCopyBuffer (cmd, plan->cplx_dev.buffer, plan->cplx_dev.buffer, 1,
          &r);
    }
  }
}

/* The staging copies and imported segments, the slot's chunk and group
 * tables into device memory where the kernels read copies
 * (gpufft_buffer_wants_device_copy), and the complex output's carry
 * fixes. */
void
gpufft_plan_record_upload (GpufftPlan * plan, GpufftSlot * s,
    VkCommandBuffer cmd)
{
  /* (into the plan's input, or a shared dispatch's at merge_offset) */
  VkBuffer dst = s->merged ? s->merge_in->buffer : plan->input.buffer;
  VkDeviceSize base = s->merged ? s->merge_offset : 0;
  guint i;

  if (s->copies->len > 0 && base == 0)
    vkCmdCopyBuffer (cmd, s->staging.buffer, dst, s->copies->len,
        (const VkBufferCopy *) s->copies->data);
  for (i = 0; base > 0 && i < s->copies->len; i++) {
    VkBufferCopy region = g_array_index (s->copies, VkBufferCopy, i);

    region.dstOffset += base;
    vkCmdCopyBuffer (cmd, s->staging.buffer, dst, 1, &region);
  }
  for (i = 0; i < s->imports->len; i++) {
    const SlotImport *si = &g_array_index (s->imports, SlotImport, i);
    VkBufferCopy region = { si->imp.offset, base + si->dst_offset, si->size };

    vkCmdCopyBuffer (cmd, si->imp.buffer, dst, 1, &region);
  }
  if (plan->chunks_dev.buffer && s->n_chunks > 0) {
    VkBufferCopy r = { 0, 0, (VkDeviceSize) s->n_chunks * 4 * sizeof (guint32)
    };

    vkCmdCopyBuffer (cmd, s->chunks.buffer, plan->chunks_dev.buffer, 1, &r);
  }
  if (plan->groups_dev.buffer && s->n_groups > 0) {
    VkBufferCopy r = { 0, 0, (VkDeviceSize) s->n_groups * GROUP_WORDS *
          sizeof (guint32)
    };

    vkCmdCopyBuffer (cmd, s->groups.buffer, plan->groups_dev.buffer, 1, &r);
  }
  record_complex_fixes (plan, s, cmd);
}

#define SIG_ADD(sig, v) g_byte_array_append ((sig), (const guint8 *) &(v), \
    sizeof (v))

void
gpufft_plan_slot_signature (GpufftPlan * plan, GpufftSlot * s, GByteArray * sig)
{
  gconstpointer fft = s->fft;

  g_byte_array_set_size (sig, 0);
  /* (the pipeline: a quick start switches it, gpufft-plan-cpu.c) */
  SIG_ADD (sig, fft);
  SIG_ADD (sig, s->merged);
  SIG_ADD (sig, s->carry_read);
  SIG_ADD (sig, s->n_chunks);
  SIG_ADD (sig, s->n_groups);
  SIG_ADD (sig, s->n_closed);
  SIG_ADD (sig, s->n_frames);
  SIG_ADD (sig, s->fft_params);
  SIG_ADD (sig, s->reduce_params);
  SIG_ADD (sig, s->copies->len);
  SIG_ADD (sig, s->imports->len);
  g_byte_array_append (sig, (const guint8 *) s->copies->data,
      s->copies->len * sizeof (VkBufferCopy));
  SIG_ADD (sig, s->n_cplx_fix);
  g_byte_array_append (sig, (const guint8 *) s->cplx_fix,
      s->n_cplx_fix * sizeof (guint));
  /* (the four-step's slices) */
  if (plan->four_step)
    g_byte_array_append (sig, (const guint8 *) s->chunk_frames,
        (gsize) s->n_chunks * 2 * sizeof (guint32));
}

/* Copies the closed groups' results from device memory to the slot. */
void
gpufft_plan_record_download (GpufftPlan * plan, GpufftSlot * s,
    VkCommandBuffer cmd)
{
  VkDeviceSize rows = (VkDeviceSize) s->n_closed * plan->out_ch;
  VkBufferCopy r = { 0, 0, 0 };

  if (plan->cfg.frames_out && s->n_frames > 0) {
    r.size = (VkDeviceSize) s->n_frames * plan->out_ch * plan->frame_row *
        sizeof (gfloat);
    vkCmdCopyBuffer (cmd, plan->frames_dev.buffer, s->frames.buffer, 1, &r);
  }
  if (rows == 0)
    return;
  if (plan->ext_row > 0) {
    r.size = rows * plan->ext_row * sizeof (gfloat);
    vkCmdCopyBuffer (cmd, plan->ext_dev.buffer, s->ext.buffer, 1, &r);
  }
  r.size = rows * plan->nb * sizeof (gfloat);
  vkCmdCopyBuffer (cmd, plan->out_dev.buffer, s->out.buffer, 1, &r);
  r.size = rows * sizeof (guint32);
  vkCmdCopyBuffer (cmd, plan->counts_dev.buffer, s->counts.buffer, 1, &r);
  if (plan->n_peaks > 0) {
    r.size = rows * plan->n_peaks * 16;
    vkCmdCopyBuffer (cmd, plan->peaks_dev.buffer, s->peaks.buffer, 1, &r);
  }
  if (plan->cfg.complex_out) {
    r.size = rows * plan->nb * 2 * sizeof (gfloat);
    vkCmdCopyBuffer (cmd, plan->cplx_dev.buffer, s->cplx.buffer, 1, &r);
  }
}

/* ---- benchmarks --------------------------------------------------------- */

gboolean
gpufft_plan_rerun (GpufftPlan * plan, guint repeats, GError ** error)
{
  return plan->ops->rerun (plan, repeats, error);
}

gboolean
gpufft_plan_device_rerun (GpufftPlan * plan, guint repeats, GError ** error)
{
  GpufftSlot *s;
  GpufftCommand *c = &plan->rerun_cmd;
  gdouble ns;
  guint i;

  s = &plan->slots[(plan->next + plan->n_slots - 1) % plan->n_slots];
  if (gpufft_plan_in_flight (plan) > 0)
    return gpufft_error_invalid (error, "collect the results before a rerun");
  if (plan->open)
    return gpufft_error_invalid (error, "a rerun needs every group closed");
  if (plan->cfg.averaging != GPUFFT_AVERAGING_MEAN
      && plan->cfg.averaging != GPUFFT_AVERAGING_MEAN_DB)
    return gpufft_error_invalid (error, "a rerun would advance the averaging "
        "state: only with mean averaging");
  if (s->merged)
    return gpufft_error_invalid (error, "the last batch ran in a dispatch "
        "shared with other plans: a rerun needs the plan alone on its device");
  if (!gpufft_command_begin (c, plan->ctx, error))
    return FALSE;
  gpufft_command_barrier (c);
  gpufft_command_timestamp (c, 0);
  /* Every FFT repeat, then every reduce repeat (both idempotent), so that
   * the two kernels are timed apart. */
  for (i = 0; i < MAX (repeats, 1); i++) {
    gpufft_plan_record_kernels (plan, s, c);
    gpufft_command_barrier (c);
  }
  gpufft_command_timestamp (c, 1);
  for (i = 0; i < MAX (repeats, 1); i++) {
    gpufft_plan_record_reduce (plan, s, c->cmd);
    gpufft_command_barrier (c);
  }
  gpufft_command_timestamp (c, 2);
  if (!gpufft_command_submit (c, plan->ctx, error)
      || !gpufft_command_wait (c, plan->ctx, plan->ctx->fence_timeout_ns,
          error)) {
    if (error && *error == NULL) {
      g_set_error (error, GPUFFT_ERROR, GPUFFT_ERROR_DEVICE_LOST,
          "the Vulkan device did not finish a rerun within %.0f s",
          plan->ctx->fence_timeout_ns / 1e9);
      gpufft_context_set_lost (plan->ctx);
    }
    return FALSE;
  }
  ns = gpufft_command_elapsed_ns (c, plan->ctx, 0, 2);
  g_mutex_lock (&plan->lock);
  plan->timings.valid = ns >= 0;
  plan->timings.upload_ns = 0;
  plan->timings.download_ns = 0;
  plan->timings.compute_ns = ns;
  plan->timings.reduce_ns = gpufft_command_elapsed_ns (c, plan->ctx, 1, 2);
  g_mutex_unlock (&plan->lock);
  return TRUE;
}
