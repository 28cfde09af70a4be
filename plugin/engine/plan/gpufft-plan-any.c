/* The path for every even FFT size the power-of-two kernels do not take
 * (not a power of two, or below 32 points): fft_any.comp in place of
 * fft.comp, the rest of the plan (tables, reduce, results) unchanged. See
 * shaders/fft_any.comp for the algorithm.
 *
 * M = N/2 complex points: when M = 2^a 3^b 5^c 7^d, mixed-radix passes
 * (radix 8 while it divides, then 4, 2, 3, 5, 7); any other M through
 * Bluestein over L = the power of two >= 2M - 1 (gpufft-bluestein.h). The
 * work array of 2L complex values lives in shared memory when it fits the
 * device, else in a scratch buffer of TEMP_BYTES that the chunks use slice
 * after slice. */
#include "gpufft-plan-private.h"
#include "gpufft-bluestein.h"
#include "gpufft-cache.h"

static const guint32 fft_any_spv[] =
#include "fft_any.spv.h"
    ;

#define ANY_BINDINGS 9
/* Scratch for the work arrays that do not fit shared memory: as many
 * chunks at once as fit this (a GPU needs a thousand workgroups in flight;
 * a CPU device a few). */
#define SCRATCH_BYTES_GPU (256u << 20)

gboolean
gpufft_plan_any_size (guint fft_size)
{
  return fft_size < 32 || (fft_size & (fft_size - 1)) != 0;
}

/* Packs the radices of m (4 bits each, at most 16 passes) into r[2];
 * FALSE when m has a prime factor above 7. */
static gboolean
factor (guint m, guint32 * r, guint * n_passes)
{
  static const guint radices[] = { 8, 4, 2, 3, 5, 7 };
  guint i, p = 0;

  r[0] = r[1] = 0;
  for (i = 0; i < G_N_ELEMENTS (radices); i++) {
    while (m % radices[i] == 0 && p < 16) {
      r[p / 8] |= (guint32) radices[i] << (4 * (p % 8));
      m /= radices[i];
      p++;
    }
  }
  *n_passes = p;
  return m == 1;
}

gboolean
gpufft_plan_any_pipeline (GpufftPlan * plan, GError ** error)
{
  const VkPhysicalDeviceLimits *lim = &plan->ctx->props.limits;
  guint max_t = MIN (lim->maxComputeWorkGroupInvocations,
      lim->maxComputeWorkGroupSize[0]);
  guint32 spec[10], radices[2];
  guint n_passes, wg;

  plan->bluestein = !factor (plan->m, radices, &n_passes);
  plan->any_l = plan->bluestein ? gpufft_bluestein_length (plan->m) : plan->m;
  /* two halves of L complex values, and the kernel's flag */
  plan->any_shared = (guint64) plan->any_l * 2 * 2 * sizeof (gfloat) + 64
      <= lim->maxComputeSharedMemorySize;
  wg = plan->any_l >= 8192 ? 512 : plan->any_l >= 1024 ? 256 :
      plan->any_l >= 256 ? 128 : 64;
  wg = MIN (wg, max_t);
  plan->fpw = 1;
  plan->four_step = FALSE;

  spec[0] = plan->m;
  spec[1] = wg;
  spec[2] = plan->cfg.format;
  spec[3] = plan->cfg.complex_out ? 1 : 0;
  spec[4] = plan->any_l;
  spec[5] = plan->bluestein ? 1 : 0;
  spec[6] = radices[0];
  spec[7] = radices[1];
  spec[8] = plan->bluestein ? 0 : n_passes;
  spec[9] = plan->any_shared ? 1 : 0;
  plan->fft = gpufft_cache_pipeline (plan->ctx, fft_any_spv,
      sizeof (fft_any_spv), ANY_BINDINGS, NULL, sizeof (FftParams), spec, 10,
      error);
  return plan->fft != NULL;
}

gboolean
gpufft_plan_any_buffers (GpufftPlan * plan, GError ** error)
{
  const VkPhysicalDeviceLimits *lim = &plan->ctx->props.limits;
  guint64 per_chunk = (guint64) plan->out_ch * plan->any_l * 2 * 2 *
      sizeof (gfloat);
  guint64 scratch;

  if (plan->bluestein) {
    plan->twiddles_l = gpufft_cache_twiddles (plan->ctx, plan->any_l, error);
    if (!plan->twiddles_l)
      return FALSE;
    plan->chirp = gpufft_cache_chirp (plan->ctx, plan->m, error);
    if (!plan->chirp)
      return FALSE;
  }
  if (plan->any_shared) {
    plan->slice_chunks = plan->max_chunks;
    return TRUE;
  }
  scratch = MIN (gpufft_context_is_cpu (plan->ctx) ? TEMP_BYTES :
      SCRATCH_BYTES_GPU, lim->maxStorageBufferRange);
  plan->slice_chunks = (guint) MIN (scratch / per_chunk, plan->max_chunks);
  if (plan->slice_chunks == 0) {
    g_set_error (error, GPUFFT_ERROR, GPUFFT_ERROR_UNSUPPORTED,
        "%u channels of FFT size %u exceed the generic kernel's work buffer "
        "on this device (%" G_GUINT64_FORMAT " MiB: at most %" G_GUINT64_FORMAT
        " channels analysed apart)", plan->out_ch, plan->cfg.fft_size,
        scratch >> 20, scratch / (per_chunk / plan->out_ch));
    return FALSE;
  }
  return gpufft_buffer_init (&plan->scratch, plan->ctx,
      plan->slice_chunks * per_chunk, GPUFFT_MEMORY_DEVICE, error);
}

void
gpufft_plan_any_record (GpufftPlan * plan, GpufftSlot * s,
    GpufftCommand * command)
{
  VkCommandBuffer cmd = command->cmd;
  FftParams fp = s->fft_params;
  guint c0;

  vkCmdBindPipeline (cmd, VK_PIPELINE_BIND_POINT_COMPUTE, plan->fft->pipeline);
  vkCmdBindDescriptorSets (cmd, VK_PIPELINE_BIND_POINT_COMPUTE,
      plan->fft->layout, 0, 1, &s->fft_set, 0, NULL);
  /* Slices of chunks that share the scratch buffer (one slice holding
   * every chunk when the work array is in shared memory). */
  for (c0 = 0; c0 < s->n_chunks; c0 += plan->slice_chunks) {
    if (c0 > 0)
      gpufft_command_barrier (command);
    fp.frame_base = c0;         /* (fft_any.comp: chunk_base) */
    vkCmdPushConstants (cmd, plan->fft->layout, VK_SHADER_STAGE_COMPUTE_BIT,
        0, sizeof (FftParams), &fp);
    vkCmdDispatch (cmd, MIN (plan->slice_chunks, s->n_chunks - c0),
        plan->out_ch, 1);
  }
}
