/* One reusable command buffer + fence (+ timestamp queries). */
#include <string.h>

#include "gpufft-command.h"
#include "gpufft-context-private.h"
#include "gpufft-vk-error.h"

gboolean
gpufft_command_init (GpufftCommand * c, GpufftContext * ctx,
    guint n_queries, GError ** error)
{
  VkCommandPoolCreateInfo pinfo = {
    .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
    .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
    .queueFamilyIndex = ctx->queue_family,
  };
  VkCommandBufferAllocateInfo ainfo = {
    .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
    .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
    .commandBufferCount = 1,
  };
  VkFenceCreateInfo finfo = {
    .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO,
  };
  VkQueryPoolCreateInfo qinfo = {
    .sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
    .queryType = VK_QUERY_TYPE_TIMESTAMP,
  };
  VkResult res;

  memset (c, 0, sizeof (*c));

  res = vkCreateCommandPool (ctx->device, &pinfo, NULL, &c->pool);
  if (!gpufft_vk_check (res, "vkCreateCommandPool", error)) {
    c->pool = VK_NULL_HANDLE;
    goto fail;
  }
  ainfo.commandPool = c->pool;
  res = vkAllocateCommandBuffers (ctx->device, &ainfo, &c->cmd);
  if (!gpufft_vk_check (res, "vkAllocateCommandBuffers", error)) {
    c->cmd = VK_NULL_HANDLE;
    goto fail;
  }
  res = vkCreateFence (ctx->device, &finfo, NULL, &c->fence);
  if (!gpufft_vk_check (res, "vkCreateFence", error)) {
    c->fence = VK_NULL_HANDLE;
    goto fail;
  }
  if (n_queries > 0 && ctx->has_timestamps) {
    qinfo.queryCount = n_queries;
    res = vkCreateQueryPool (ctx->device, &qinfo, NULL, &c->queries);
    if (!gpufft_vk_check (res, "vkCreateQueryPool", error)) {
      c->queries = VK_NULL_HANDLE;
      goto fail;
    }
    c->n_queries = n_queries;
  }
  return TRUE;

fail:
  gpufft_command_clear (c, ctx);
  return FALSE;
}

gboolean
gpufft_command_begin (GpufftCommand * c, GpufftContext * ctx, GError ** error)
{
  VkCommandBufferBeginInfo binfo = {
    .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
    .flags = c->reusable ? 0 : VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT,
  };
  VkResult res;

  if (c->pending) {
    g_set_error (error, GPUFFT_ERROR, GPUFFT_ERROR_FAILED,
        "command buffer still in flight");
    return FALSE;
  }
  c->completed = FALSE;

  res = vkResetCommandBuffer (c->cmd, 0);
  if (!gpufft_vk_check (res, "vkResetCommandBuffer", error))
    return FALSE;
  res = vkBeginCommandBuffer (c->cmd, &binfo);
  if (!gpufft_vk_check (res, "vkBeginCommandBuffer", error))
    return FALSE;
  if (c->queries != VK_NULL_HANDLE)
    vkCmdResetQueryPool (c->cmd, c->queries, 0, c->n_queries);
  return TRUE;
}

void
gpufft_command_timestamp (GpufftCommand * c, guint query)
{
  if (c->queries == VK_NULL_HANDLE || query >= c->n_queries)
    return;
  vkCmdWriteTimestamp (c->cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
      c->queries, query);
}

/* Resets the fence and submits the recorded commands; sets pending. */
static gboolean
fence_and_submit (GpufftCommand * c, GpufftContext * ctx, GError ** error)
{
  if (!gpufft_vk_check (vkResetFences (ctx->device, 1, &c->fence),
          "vkResetFences", error)
      || !gpufft_context_submit (ctx, c->cmd, c->fence, error))
    return FALSE;
  c->pending = TRUE;
  return TRUE;
}

gboolean
gpufft_command_submit (GpufftCommand * c, GpufftContext * ctx, GError ** error)
{
  VkResult res;

  if (c->pending) {
    g_set_error (error, GPUFFT_ERROR, GPUFFT_ERROR_FAILED,
        "command buffer still in flight");
    return FALSE;
  }
  res = vkEndCommandBuffer (c->cmd);
  if (!gpufft_vk_check (res, "vkEndCommandBuffer", error))
    return FALSE;
  return fence_and_submit (c, ctx, error);
}

gboolean
gpufft_command_resubmit (GpufftCommand * c, GpufftContext * ctx,
    GError ** error)
{
  if (c->pending || !c->reusable) {
    g_set_error (error, GPUFFT_ERROR, GPUFFT_ERROR_FAILED,
        "command buffer still in flight, or not reusable");
    return FALSE;
  }
  c->completed = FALSE;
  return fence_and_submit (c, ctx, error);
}

gboolean
gpufft_command_wait (GpufftCommand * c, GpufftContext * ctx,
    guint64 timeout_ns, GError ** error)
{
  VkResult res;

  if (!c->pending)
    return TRUE;
  res = vkWaitForFences (ctx->device, 1, &c->fence, VK_TRUE, timeout_ns);
  if (res == VK_TIMEOUT)
    return FALSE;
  if (!gpufft_vk_check (res, "vkWaitForFences", error))
    return FALSE;
  c->pending = FALSE;
  c->completed = TRUE;
  return TRUE;
}

gboolean
gpufft_command_wait_cancellable (GpufftCommand * c, GpufftContext * ctx,
    guint64 timeout_ns, const gint * cancel, gboolean * cancelled,
    GError ** error)
{
  VkResult res;

  *cancelled = FALSE;
  if (!c->pending)
    return TRUE;
  res = gpufft_context_wait_fence (ctx, c->fence, timeout_ns, cancel);
  if (res == VK_TIMEOUT)
    return FALSE;
  if (res == VK_NOT_READY) {
    *cancelled = TRUE;
    return FALSE;
  }
  if (!gpufft_vk_check (res, "vkWaitForFences", error))
    return FALSE;
  c->pending = FALSE;
  c->completed = TRUE;
  return TRUE;
}

gboolean
gpufft_command_run (GpufftCommand * c, GpufftContext * ctx,
    const gchar * doing, GError ** error)
{
  GError *err = NULL;
  gboolean lost = FALSE;

  if (g_atomic_int_get (&ctx->lost)) {
    g_set_error (error, GPUFFT_ERROR, GPUFFT_ERROR_DEVICE_LOST,
        "the Vulkan device was lost");
    return FALSE;
  }
  /* (gives up as soon as the device is declared hung or lost elsewhere: a
   * stall of the scheduler's) */
  if (gpufft_command_submit (c, ctx, error)
      && gpufft_command_wait_cancellable (c, ctx, ctx->fence_timeout_ns,
          &ctx->lost, &lost, &err))
    return TRUE;
  if (err) {
    g_propagate_error (error, err);
  } else if (lost) {
    g_set_error (error, GPUFFT_ERROR, GPUFFT_ERROR_DEVICE_LOST,
        "the GPU stopped responding: the Vulkan device did not %s",
        doing);
  } else if (c->pending) {
    g_set_error (error, GPUFFT_ERROR, GPUFFT_ERROR_DEVICE_LOST,
        "the Vulkan device did not %s within %.0f s", doing,
        ctx->fence_timeout_ns / 1e9);
    gpufft_context_set_lost (ctx);
  }
  return FALSE;
}

/* The tick count of query, or FALSE when it is not available. */
static gboolean
read_query (GpufftCommand * c, GpufftContext * ctx, guint query,
    guint64 * ticks)
{
  guint64 data[2] = { 0, 0 };   /* value, availability */
  VkResult res;

  res = vkGetQueryPoolResults (ctx->device, c->queries, query, 1,
      sizeof (data), data, sizeof (data),
      VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WITH_AVAILABILITY_BIT);
  if (res != VK_SUCCESS || data[1] == 0)
    return FALSE;
  *ticks = data[0];
  return TRUE;
}

gdouble
gpufft_command_elapsed_ns (GpufftCommand * c, GpufftContext * ctx,
    guint a, guint b)
{
  guint64 ta, tb, mask;

  if (c->queries == VK_NULL_HANDLE || c->pending || !c->completed
      || a >= c->n_queries || b >= c->n_queries)
    return -1.0;
  if (!read_query (c, ctx, a, &ta) || !read_query (c, ctx, b, &tb))
    return -1.0;

  mask = ctx->timestamp_valid_bits >= 64 ? G_MAXUINT64 :
      (G_GUINT64_CONSTANT (1) << ctx->timestamp_valid_bits) - 1;
  /* modular difference: survives one wrap of the counter */
  return (gdouble) (((tb & mask) - (ta & mask)) & mask) * ctx->timestamp_period;
}

void
gpufft_command_clear (GpufftCommand * c, GpufftContext * ctx)
{
  /* bounded: a hung GPU must not hang the caller (a wait that does not
   * end marks the device lost, and the objects below are then kept) */
  if (c->pending && c->fence != VK_NULL_HANDLE
      && !g_atomic_int_get (&ctx->lost)
      && vkWaitForFences (ctx->device, 1, &c->fence, VK_TRUE,
          ctx->fence_timeout_ns) != VK_SUCCESS)
    /* still running (or the device lost): what it uses is kept */
    gpufft_context_set_lost (ctx);
  /* (a lost context keeps them until the device has finished: the
   * command buffer may still run) */
  if (c->queries != VK_NULL_HANDLE
      && !gpufft_context_keep (ctx, VK_OBJECT_TYPE_QUERY_POOL,
          GPUFFT_VK_TO_U64 (c->queries)))
    vkDestroyQueryPool (ctx->device, c->queries, NULL);
  if (c->fence != VK_NULL_HANDLE
      && !gpufft_context_keep (ctx, VK_OBJECT_TYPE_FENCE,
          GPUFFT_VK_TO_U64 (c->fence)))
    vkDestroyFence (ctx->device, c->fence, NULL);
  /* destroying the pool frees its command buffer */
  if (c->pool != VK_NULL_HANDLE
      && !gpufft_context_keep (ctx, VK_OBJECT_TYPE_COMMAND_POOL,
          GPUFFT_VK_TO_U64 (c->pool)))
    vkDestroyCommandPool (ctx->device, c->pool, NULL);
  memset (c, 0, sizeof (*c));
}

void
gpufft_command_barrier (GpufftCommand * c)
{
  VkMemoryBarrier barrier = {
    .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
    .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
    .dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
        VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT |
        VK_ACCESS_HOST_READ_BIT,
  };

  vkCmdPipelineBarrier (c->cmd,
      VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
      VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT |
      VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &barrier, 0, NULL, 0, NULL);
}
