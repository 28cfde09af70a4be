/* The caller's memory the GPU reads in place, imported by its pointer
 * (VK_EXT_external_memory_host): the input path's way around its one CPU
 * copy, for large segments.
 *
 * Threading: gpufft_import_pointer() on the submitting thread,
 * gpufft_import_clear() once nothing on the device can read the import any
 * more: on the completion thread after the fence of the work that read it,
 * or there or in gpufft_plan_free() (the owner's thread) for work that was
 * never submitted. Neither takes a lock.
 *
 * Layout: the import covers the whole pages around [ptr, ptr + size), at
 * the device's minImportedHostPointerAlignment; `offset` is where ptr lies
 * in `buffer`. The caller keeps the memory valid (and unchanged) until
 * gpufft_import_clear(). */
#ifndef __GPUFFT_IMPORT_H__
#define __GPUFFT_IMPORT_H__

#include "gpufft-context-private.h"

G_BEGIN_DECLS

typedef struct
{
  VkBuffer buffer;              /* TRANSFER_SRC only (or the usage asked) */
  VkDeviceMemory memory;
  VkDeviceSize offset;          /* of ptr in buffer */
} GpufftImport;

/* Smallest segment (bytes) worth importing on ctx: 256 KiB on CPU devices,
 * 0 (never) on GPUs, where pinning each buffer costs more than copying it,
 * and where the device cannot import host memory (or GPUFFT_HOST_IMPORT=0
 * was set when the context was made). GPUFFT_IMPORT_MIN_BYTES overrides
 * the default (tests use it to import every buffer). */
gsize gpufft_import_min_bytes (GpufftContext * ctx);

/* FALSE with error set (and imp cleared) when the driver refuses the
 * memory (e.g. a file mapping): the caller copies it instead. */
gboolean gpufft_import_pointer (GpufftContext * ctx, gconstpointer ptr,
    gsize size, GpufftImport * imp, GError ** error);
/* The same with the buffer's usage chosen (the spectrogram renderer's
 * frames are written into host memory: VK_BUFFER_USAGE_TRANSFER_DST_BIT). */
gboolean gpufft_import_pointer_usage (GpufftContext * ctx, gconstpointer ptr,
    gsize size, VkBufferUsageFlags usage, GpufftImport * imp,
    GError ** error);
/* Safe on a cleared import. */
void gpufft_import_clear (GpufftContext * ctx, GpufftImport * imp);

G_END_DECLS

#endif
