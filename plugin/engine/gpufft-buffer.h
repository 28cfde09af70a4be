/* A VkBuffer bound to a range of the context's memory blocks
 * (gpufft-memory.h), mapped when host-visible. */
#ifndef __GPUFFT_BUFFER_H__
#define __GPUFFT_BUFFER_H__

#include "gpufft-memory.h"

G_BEGIN_DECLS

typedef enum
{
  GPUFFT_MEMORY_DEVICE,         /* device-local; also mapped if host-visible */
  GPUFFT_MEMORY_UPLOAD,         /* host-visible + coherent, mapped, host writes */
  GPUFFT_MEMORY_READBACK        /* host-visible, cached preferred, mapped */
} GpufftMemoryKind;

typedef struct
{
  VkBuffer buffer;
  GpufftMemoryRange range;
  VkDeviceSize size;
  gpointer mapped;              /* NULL when not host-visible */
  gboolean coherent;
} GpufftBuffer;

/* Usage always includes STORAGE_BUFFER | TRANSFER_SRC | TRANSFER_DST.
 * size 0 is rounded up to 16. On failure buf is left cleared. */
gboolean gpufft_buffer_init (GpufftBuffer * buf, GpufftContext * ctx,
    VkDeviceSize size, GpufftMemoryKind kind, GError ** error);
/* Safe on a zeroed or already cleared buffer. Caller guarantees the GPU no
 * longer uses it (its fence has signalled). */
void gpufft_buffer_clear (GpufftBuffer * buf, GpufftContext * ctx);
/* Make GPU writes visible to the host / host writes visible to the GPU
 * (no-ops on coherent memory). */
gboolean gpufft_buffer_invalidate (GpufftBuffer * buf, GpufftContext * ctx,
    GError ** error);
gboolean gpufft_buffer_flush (GpufftBuffer * buf, GpufftContext * ctx,
    GError ** error);

G_END_DECLS

#endif
