/* Vulkan helpers for the GPU benchmarks, on the engine's private buffer and
 * command objects: uploads, readbacks and the copy rooflines. */
#ifndef __BENCH_VK_H__
#define __BENCH_VK_H__

#include "bench-common.h"
#include "gpufft-buffer.h"
#include "gpufft-command.h"

G_BEGIN_DECLS

/* TRUE when the device is a CPU implementation (lavapipe, SwiftShader). */
gboolean bench_vk_is_cpu (GpufftContext * ctx);

/* The context of args->device, or NULL after printing why; on a CPU device
 * it switches args to --small. */
GpufftContext *bench_vk_open (BenchArgs * args);

/* Fills dst[0 .. total) with chunk[0 .. chunk_bytes) repeated (the last
 * copy may be partial), through one staging buffer of chunk_bytes. */
gboolean bench_vk_fill_repeat (GpufftContext * ctx, GpufftBuffer * dst,
    const void *chunk, gsize chunk_bytes, VkDeviceSize total,
    GError ** error);

/* Copies src[offset .. offset + bytes) into data. */
gboolean bench_vk_download (GpufftContext * ctx, GpufftBuffer * src,
    VkDeviceSize offset, void *data, gsize bytes, GError ** error);

/* Records a transfer/compute -> transfer/compute barrier (all reads and
 * writes of the previous commands visible to the next ones). */
void bench_vk_barrier (VkCommandBuffer cmd);

/* The copy rooflines: two device-local buffers of `bytes` (a filled, b
 * written), copied a -> b by a compute shader (bench-copy.comp, uvec4 per
 * invocation: the SMs' bandwidth) and by vkCmdCopyBuffer (on discrete GPUs
 * often a copy engine, slower). Both buffers stay allocated until
 * bench_vk_copy_clear(), so that what is allocated after them does not
 * reuse their freed memory. */
typedef struct
{
  GpufftBuffer a, b;
  VkDeviceSize bytes;           /* copied per call: a multiple of 16 */
} BenchVkCopy;

/* bytes is rounded down to a multiple of 16 and capped at the device's
 * maxStorageBufferRange (see cp->bytes). On failure cp is left cleared. */
gboolean bench_vk_copy_init (BenchVkCopy * cp, GpufftContext * ctx,
    VkDeviceSize bytes, GError ** error);
void bench_vk_copy_clear (BenchVkCopy * cp, GpufftContext * ctx);

/* GPU nanoseconds of one copy of cp->bytes: the median of three
 * submissions, each the mean of `repeats` copies followed by barriers,
 * after bench_vk_warmup_ms of such submissions.
 * Negative with error set on failure; 0 without timestamps. */
gdouble bench_vk_copy_shader_ns (BenchVkCopy * cp, GpufftContext * ctx,
    guint repeats, GError ** error);
gdouble bench_vk_copy_dma_ns (BenchVkCopy * cp, GpufftContext * ctx,
    guint repeats, GError ** error);

/* How long the copy rooflines run before they are timed (ms; default 300):
 * a GPU that was idle runs at its idle clock until its governor raises it. */
extern guint bench_vk_warmup_ms;

/* The median of v[0..n) (sorts v in place; 0 for n = 0). */
gdouble bench_median (gdouble * v, guint n);

G_END_DECLS

#endif
