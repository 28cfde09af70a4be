#include <stdlib.h>
#include <string.h>

#include "bench-vk.h"
#include "gpufft-descriptor-pool.h"

gboolean
bench_vk_is_cpu (GpufftContext * ctx)
{
  return ctx->props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
}

GpufftContext *
bench_vk_open (BenchArgs * args)
{
  GError *err = NULL;
  GpufftContext *ctx = gpufft_context_get (args->device, &err);

  if (!ctx) {
    g_printerr ("no Vulkan device: %s\n", err->message);
    g_error_free (err);
    return NULL;
  }
  if (bench_vk_is_cpu (ctx))
    bench_args_set_small (args);
  return ctx;
}

void
bench_vk_barrier (VkCommandBuffer cmd)
{
  VkMemoryBarrier b = {
    .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
    .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
    .dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
        VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
  };
  const VkPipelineStageFlags stages = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT |
      VK_PIPELINE_STAGE_TRANSFER_BIT;

  vkCmdPipelineBarrier (cmd, stages, stages, 0, 1, &b, 0, NULL, 0, NULL);
}

/* Runs what was recorded into c and waits for it. */
static gboolean
submit_wait (GpufftCommand * c, GpufftContext * ctx, GError ** error)
{
  if (!gpufft_command_submit (c, ctx, error))
    return FALSE;
  if (!gpufft_command_wait (c, ctx, G_MAXUINT64, error)) {
    if (error && !*error)
      g_set_error (error, GPUFFT_ERROR, GPUFFT_ERROR_FAILED,
          "fence wait failed");
    return FALSE;
  }
  return TRUE;
}

gboolean
bench_vk_fill_repeat (GpufftContext * ctx, GpufftBuffer * dst,
    const void *chunk, gsize chunk_bytes, VkDeviceSize total,
    GError ** error)
{
  GpufftBuffer staging;
  GpufftCommand c;
  VkDeviceSize off;
  gboolean ok = FALSE;

  memset (&c, 0, sizeof (c));
  if (!gpufft_buffer_init (&staging, ctx, chunk_bytes, GPUFFT_MEMORY_UPLOAD,
          error))
    return FALSE;
  memcpy (staging.mapped, chunk, chunk_bytes);
  if (!gpufft_buffer_flush (&staging, ctx, error))
    goto out;
  if (!gpufft_command_init (&c, ctx, 0, error)
      || !gpufft_command_begin (&c, ctx, error))
    goto out;
  for (off = 0; off < total; off += chunk_bytes) {
    VkBufferCopy region = { 0, off, MIN ((VkDeviceSize) chunk_bytes,
          total - off)
    };
    vkCmdCopyBuffer (c.cmd, staging.buffer, dst->buffer, 1, &region);
  }
  ok = submit_wait (&c, ctx, error);
out:
  gpufft_command_clear (&c, ctx);
  gpufft_buffer_clear (&staging, ctx);
  return ok;
}

gboolean
bench_vk_download (GpufftContext * ctx, GpufftBuffer * src,
    VkDeviceSize offset, void *data, gsize bytes, GError ** error)
{
  GpufftBuffer rb;
  GpufftCommand c;
  VkBufferCopy region = { offset, 0, bytes };
  gboolean ok = FALSE;

  memset (&c, 0, sizeof (c));
  if (!gpufft_buffer_init (&rb, ctx, bytes, GPUFFT_MEMORY_READBACK, error))
    return FALSE;
  if (!gpufft_command_init (&c, ctx, 0, error)
      || !gpufft_command_begin (&c, ctx, error))
    goto out;
  bench_vk_barrier (c.cmd);
  vkCmdCopyBuffer (c.cmd, src->buffer, rb.buffer, 1, &region);
  gpufft_command_barrier (&c);
  if (!submit_wait (&c, ctx, error)
      || !gpufft_buffer_invalidate (&rb, ctx, error))
    goto out;
  memcpy (data, rb.mapped, bytes);
  ok = TRUE;
out:
  gpufft_command_clear (&c, ctx);
  gpufft_buffer_clear (&rb, ctx);
  return ok;
}

gboolean
bench_vk_copy_init (BenchVkCopy * cp, GpufftContext * ctx,
    VkDeviceSize bytes, GError ** error)
{
  GpufftCommand c;
  gboolean ok = FALSE;

  memset (cp, 0, sizeof (*cp));
  memset (&c, 0, sizeof (c));
  bytes = MIN (bytes, (VkDeviceSize) ctx->props.limits.maxStorageBufferRange);
  bytes &= ~(VkDeviceSize) 15;
  if (bytes == 0) {
    g_set_error (error, GPUFFT_ERROR, GPUFFT_ERROR_INVALID_ARGUMENT,
        "copy roofline: fewer than 16 bytes to copy");
    return FALSE;
  }
  if (!gpufft_buffer_init (&cp->a, ctx, bytes, GPUFFT_MEMORY_DEVICE, error)
      || !gpufft_buffer_init (&cp->b, ctx, bytes, GPUFFT_MEMORY_DEVICE, error)
      || !gpufft_command_init (&c, ctx, 0, error)
      || !gpufft_command_begin (&c, ctx, error))
    goto out;
  /* first touch of every page of both buffers */
  vkCmdFillBuffer (c.cmd, cp->a.buffer, 0, VK_WHOLE_SIZE, 0x3f000000u);
  vkCmdFillBuffer (c.cmd, cp->b.buffer, 0, VK_WHOLE_SIZE, 0u);
  bench_vk_barrier (c.cmd);
  ok = submit_wait (&c, ctx, error);
  cp->bytes = bytes;
out:
  gpufft_command_clear (&c, ctx);
  if (!ok)
    bench_vk_copy_clear (cp, ctx);
  return ok;
}

void
bench_vk_copy_clear (BenchVkCopy * cp, GpufftContext * ctx)
{
  gpufft_buffer_clear (&cp->b, ctx);
  gpufft_buffer_clear (&cp->a, ctx);
  cp->bytes = 0;
}

/* What one copy records: a dispatch of the copy shader, or a
 * vkCmdCopyBuffer when pipeline is NULL. */
typedef struct
{
  const GpufftPipeline *pipeline;
  VkDescriptorSet set;
  guint32 n_vec4;
  guint32 groups;
} CopyCall;

static void
record_copy (const BenchVkCopy * cp, const CopyCall * call,
    VkCommandBuffer cmd)
{
  if (call->pipeline) {
    vkCmdBindPipeline (cmd, VK_PIPELINE_BIND_POINT_COMPUTE,
        call->pipeline->pipeline);
    vkCmdBindDescriptorSets (cmd, VK_PIPELINE_BIND_POINT_COMPUTE,
        call->pipeline->layout, 0, 1, &call->set, 0, NULL);
    vkCmdPushConstants (cmd, call->pipeline->layout,
        VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof (call->n_vec4),
        &call->n_vec4);
    vkCmdDispatch (cmd, call->groups, 1, 1);
  } else {
    VkBufferCopy region = { 0, 0, cp->bytes };
    vkCmdCopyBuffer (cmd, cp->a.buffer, cp->b.buffer, 1, &region);
  }
}

guint bench_vk_warmup_ms = 300;

static int
cmp_double (gconstpointer a, gconstpointer b)
{
  gdouble x = *(const gdouble *) a, y = *(const gdouble *) b;

  return x < y ? -1 : x > y;
}

gdouble
bench_median (gdouble * v, guint n)
{
  if (n == 0)
    return 0.0;
  qsort (v, n, sizeof (gdouble), cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Submissions of `repeats` copies for bench_vk_warmup_ms of wall time (the
 * clock up), then three timed: the median. */
static gdouble
time_copies (BenchVkCopy * cp, GpufftContext * ctx, const CopyCall * call,
    guint repeats, GError ** error)
{
  GpufftCommand c;
  gdouble ns = -1.0, t[3];
  gint64 end;
  guint pass = 0, i;

  memset (&c, 0, sizeof (c));
  repeats = MAX (repeats, 1);
  if (!gpufft_command_init (&c, ctx, 2, error))
    goto out;
  end = g_get_monotonic_time () + (gint64) bench_vk_warmup_ms * 1000;
  for (;;) {
    gboolean warm = g_get_monotonic_time () >= end;

    if (!gpufft_command_begin (&c, ctx, error))
      goto out;
    bench_vk_barrier (c.cmd);
    gpufft_command_timestamp (&c, 0);
    for (i = 0; i < repeats; i++) {
      record_copy (cp, call, c.cmd);
      bench_vk_barrier (c.cmd);
    }
    gpufft_command_timestamp (&c, 1);
    if (!submit_wait (&c, ctx, error))
      goto out;
    if (!warm)
      continue;
    ns = gpufft_command_elapsed_ns (&c, ctx, 0, 1);
    t[pass++] = ns < 0 ? 0.0 : ns / repeats;
    if (pass == G_N_ELEMENTS (t))
      break;
  }
  ns = bench_median (t, pass);
out:
  gpufft_command_clear (&c, ctx);
  return ns;
}

gdouble
bench_vk_copy_dma_ns (BenchVkCopy * cp, GpufftContext * ctx, guint repeats,
    GError ** error)
{
  CopyCall call = { NULL, VK_NULL_HANDLE, 0, 0 };

  return time_copies (cp, ctx, &call, repeats, error);
}

static const guint32 bench_copy_spv[] =
#include "bench-copy.spv.h"
    ;

gdouble
bench_vk_copy_shader_ns (BenchVkCopy * cp, GpufftContext * ctx,
    guint repeats, GError ** error)
{
  GpufftPipeline p;
  GpufftDescriptorPool dp = { VK_NULL_HANDLE };
  GpufftBuffer *bufs[2] = { &cp->a, &cp->b };
  CopyCall call = { &p, VK_NULL_HANDLE, 0, 0 };
  guint64 groups;
  gdouble ns = -1.0;

  if (!gpufft_pipeline_init (&p, ctx, bench_copy_spv, sizeof (bench_copy_spv),
          2, NULL, sizeof (guint32), NULL, 0, error))
    return -1.0;
  if (!gpufft_descriptor_pool_init (&dp, ctx, 1, 2, error)
      || !gpufft_descriptor_pool_alloc (&dp, ctx, &p, bufs, &call.set, error))
    goto out;
  /* cp->bytes <= maxStorageBufferRange < 2^32, so n_vec4 < 2^28 */
  call.n_vec4 = (guint32) (cp->bytes / 16);
  groups = (call.n_vec4 + 255) / 256;
  call.groups = (guint32) MIN (groups,
      (guint64) ctx->props.limits.maxComputeWorkGroupCount[0]);
  ns = time_copies (cp, ctx, &call, repeats, error);
  /* b was zeroed and a filled with 0.5f: the shader must have copied the
   * first and the last element */
  if (ns >= 0) {
    guint32 head[4], tail[4];
    guint i;
    if (!bench_vk_download (ctx, &cp->b, 0, head, sizeof head, error)
        || !bench_vk_download (ctx, &cp->b, cp->bytes - 16, tail,
            sizeof tail, error)) {
      ns = -1.0;
      goto out;
    }
    for (i = 0; i < 4; i++) {
      if (head[i] != 0x3f000000u || tail[i] != 0x3f000000u) {
        g_set_error (error, GPUFFT_ERROR, GPUFFT_ERROR_FAILED,
            "copy shader: wrong data in the destination (0x%08x, 0x%08x)",
            head[i], tail[i]);
        ns = -1.0;
        goto out;
      }
    }
  }
out:
  gpufft_descriptor_pool_clear (&dp, ctx);
  gpufft_pipeline_clear (&p, ctx);
  return ns;
}
