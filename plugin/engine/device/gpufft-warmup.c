/* Pipelines compiled before their first real dispatch: see
 * gpufft-warmup.h. */
#include "gpufft-warmup.h"
#include "gpufft-command.h"
#include "gpufft-descriptor-pool.h"
#include "gpufft-context-private.h"

#define DUMMY_BYTES 256

gboolean
gpufft_warmup_pipeline (GpufftContext * ctx, const GpufftPipeline * p,
    GError ** error)
{
  GpufftBuffer dummy = { 0 };
  GpufftBuffer *bufs[GPUFFT_MAX_BINDINGS];
  GpufftDescriptorPool pool = { 0 };
  GpufftCommand cmd = { 0 };
  VkDescriptorSet set;
  guint8 push[256] = { 0 };
  gboolean ok = FALSE;
  guint i;

  if (!gpufft_context_is_cpu (ctx)
      || g_getenv ("GPUFFT_NO_WARM_UP") != NULL)
    return TRUE;
  if (p->n_buffers > G_N_ELEMENTS (bufs) || p->push_size > sizeof (push)) {
    g_set_error (error, GPUFFT_ERROR, GPUFFT_ERROR_FAILED,
        "internal: a pipeline with %u buffers and %u bytes of push "
        "constants is beyond the warm-up's", p->n_buffers, p->push_size);
    return FALSE;
  }

  /* (every binding valid, as Vulkan asks of a dispatch; none is read) */
  if (!gpufft_buffer_init (&dummy, ctx, DUMMY_BYTES, GPUFFT_MEMORY_DEVICE,
          error))
    return FALSE;
  for (i = 0; i < p->n_buffers; i++) {
    bufs[i] = &dummy;
    if (p->kinds[i] != GPUFFT_BIND_STORAGE
        && !gpufft_buffer_add_view (&dummy, ctx, p->kinds[i] - 1, error)) {
      gpufft_buffer_clear (&dummy, ctx);
      return FALSE;
    }
  }
  if (gpufft_descriptor_pool_init (&pool, ctx, 1, MAX (p->n_buffers, 1),
          error)
      && gpufft_descriptor_pool_alloc (&pool, ctx, p, bufs, &set, error)
      && gpufft_command_init (&cmd, ctx, 0, error)
      && gpufft_command_begin (&cmd, ctx, error)) {
    vkCmdBindPipeline (cmd.cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p->pipeline);
    vkCmdBindDescriptorSets (cmd.cmd, VK_PIPELINE_BIND_POINT_COMPUTE,
        p->layout, 0, 1, &set, 0, NULL);
    if (p->push_size > 0)
      vkCmdPushConstants (cmd.cmd, p->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0,
          p->push_size, push);
    vkCmdDispatch (cmd.cmd, 0, 0, 0);
    ok = gpufft_command_run (&cmd, ctx, "compile a pipeline", error);
  }
  gpufft_command_clear (&cmd, ctx);
  gpufft_descriptor_pool_clear (&pool, ctx);
  gpufft_buffer_clear (&dummy, ctx);
  return ok;
}
