/* The engine's mapped memory (the public GpufftHostMemory): callers write
 * samples into it and the device reads them in place (gpufft.h, "Host
 * memory"). */
#include "gpufft-buffer.h"
#include "gpufft-host-memory.h"

struct _GpufftHostMemory
{
  GpufftContext *ctx;           /* a reference */
  GpufftBuffer buf;             /* GPUFFT_MEMORY_MAPPED, mapped */
  gsize size;                   /* asked for */
};

GpufftHostMemory *
gpufft_host_memory_new (GpufftContext * ctx, gsize size, GError ** error)
{
  GpufftHostMemory *mem;

  g_return_val_if_fail (ctx != NULL, NULL);
  mem = g_new0 (GpufftHostMemory, 1);
  if (!gpufft_buffer_init (&mem->buf, ctx, MAX (size, 1), GPUFFT_MEMORY_MAPPED,
          error)) {
    g_free (mem);
    return NULL;
  }
  mem->ctx = gpufft_context_ref (ctx);
  mem->size = size;
  return mem;
}

gpointer
gpufft_host_memory_get_data (GpufftHostMemory * mem)
{
  return mem->buf.mapped;
}

gsize
gpufft_host_memory_get_size (GpufftHostMemory * mem)
{
  return mem->size;
}

GpufftContext *
gpufft_host_memory_get_context (GpufftHostMemory * mem)
{
  return mem->ctx;
}

void
gpufft_host_memory_free (GpufftHostMemory * mem)
{
  GpufftContext *ctx;

  if (mem == NULL)
    return;
  ctx = mem->ctx;
  gpufft_buffer_clear (&mem->buf, ctx);
  g_free (mem);
  gpufft_context_unref (ctx);
}

gboolean
gpufft_host_memory_locate (GpufftHostMemory * mem, gconstpointer ptr,
    gsize size, VkBuffer * buffer, VkDeviceSize * offset)
{
  const guint8 *base = mem->buf.mapped;
  const guint8 *p = ptr;

  if (p < base || size > mem->size || (gsize) (p - base) > mem->size - size)
    return FALSE;
  *buffer = mem->buf.buffer;
  *offset = (VkDeviceSize) (p - base);
  return TRUE;
}
