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
  GPUFFT_MEMORY_READBACK,       /* host-visible, cached preferred, mapped */
  GPUFFT_MEMORY_MAPPED          /* host-visible + coherent, mapped, cached
                                 * and not device-local preferred: the
                                 * engine's mapped memory, which callers
                                 * write and read as their own
                                 * (GpufftHostMemory,
                                 * gpufft_host_memory_new()), mapped at a
                                 * 64-byte aligned address */
} GpufftMemoryKind;

/* Views of a whole buffer as texels, for the kernels that read it as a
 * uniform texel buffer (fft_cpu.comp: lavapipe fetches texels as vector
 * gathers, where a storage-buffer read with a per-invocation address is a
 * loop over the SIMD lanes). */
typedef enum
{
  GPUFFT_VIEW_U32,              /* R32_UINT */
  GPUFFT_VIEW_U32X4,            /* R32G32B32A32_UINT */
  GPUFFT_VIEW_F32X2,            /* R32G32_SFLOAT */
  GPUFFT_VIEW_F32X4,            /* R32G32B32A32_SFLOAT */
  GPUFFT_N_VIEWS
} GpufftView;

typedef struct
{
  VkBuffer buffer;
  GpufftMemoryRange range;
  VkDeviceSize size;
  gpointer mapped;              /* NULL when not host-visible */
  gboolean coherent;
  gboolean device_local;        /* in the device's own memory */
  VkBufferView views[GPUFFT_N_VIEWS];   /* VK_NULL_HANDLE until added */
} GpufftBuffer;

/* Usage always includes STORAGE_BUFFER | UNIFORM_TEXEL_BUFFER |
 * TRANSFER_SRC | TRANSFER_DST. size 0 is rounded up to 16, a power of two
 * grown by 16 (see gpufft-buffer.c; buf->size is the size made). On
 * failure buf is left cleared. */
gboolean gpufft_buffer_init (GpufftBuffer * buf, GpufftContext * ctx,
    VkDeviceSize size, GpufftMemoryKind kind, GError ** error);
/* Makes `view` of the whole buffer, if it has none yet. Not thread-safe:
 * call it where the buffer is made, before anything else uses it. FALSE
 * with error set where the device cannot (a format without uniform texel
 * buffer support, or more texels than maxTexelBufferElements); the buffer
 * stays usable without it. */
gboolean gpufft_buffer_add_view (GpufftBuffer * buf, GpufftContext * ctx,
    GpufftView view, GError ** error);
/* The texel size of a view, in bytes. */
guint gpufft_buffer_view_bytes (GpufftView view);

/* TRUE when kernels should read a device-memory copy of this host-written
 * buffer rather than the buffer itself: it is not device-local (a GPU
 * would read it across the bus, at each workgroup). The environment
 * variable GPUFFT_DEBUG_TABLE_COPIES=1 makes it TRUE everywhere, so that
 * CPU devices (whose memory is all device-local) test the copies too. */
gboolean gpufft_buffer_wants_device_copy (const GpufftBuffer * host);

/* Fills dst with size bytes of data: a copy into its mapping where it has
 * one, else (and always with GPUFFT_DEBUG_TABLE_COPIES=1) through a
 * temporary staging buffer and a one-off submission, waited for. For
 * tables made once (windows, twiddles, the analysis tables), not for the
 * streaming path. */
gboolean gpufft_buffer_upload (GpufftBuffer * dst, GpufftContext * ctx,
    gconstpointer data, gsize size, GError ** error);

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
