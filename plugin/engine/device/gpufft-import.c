/* The caller's memory imported by its pointer for the GPU to read: see
 * gpufft-import.h. */
#include <string.h>

#include "gpufft-import.h"
#include "gpufft-vk-error.h"

/* Where importing pays (docs/performance.md, "Figures behind engine
 * choices"): on
 * a CPU device (lavapipe) the import only wraps the pointer and saves one of
 * the two copies, so segments from IMPORT_MIN_BYTES_CPU are imported. On a
 * GPU each import pins the buffer's pages and unpins them after the fence,
 * which costs more than one copy into persistently mapped staging, so GPUs
 * copy unless GPUFFT_IMPORT_MIN_BYTES asks otherwise. */
#define IMPORT_MIN_BYTES_CPU (256u << 10)

gsize
gpufft_import_min_bytes (GpufftContext * ctx)
{
  const gchar *env;

  if (ctx->pointer_import_align == 0)
    return 0;
  env = g_getenv ("GPUFFT_IMPORT_MIN_BYTES");
  if (env && *env)
    return MAX (1, g_ascii_strtoull (env, NULL, 10));
  return gpufft_context_is_cpu (ctx) ?
      IMPORT_MIN_BYTES_CPU : 0;
}

gboolean
gpufft_import_pointer (GpufftContext * ctx, gconstpointer ptr, gsize size,
    GpufftImport * imp, GError ** error)
{
  return gpufft_import_pointer_usage (ctx, ptr, size,
      VK_BUFFER_USAGE_TRANSFER_SRC_BIT, imp, error);
}

gboolean
gpufft_import_pointer_usage (GpufftContext * ctx, gconstpointer ptr,
    gsize size, VkBufferUsageFlags usage, GpufftImport * imp, GError ** error)
{
  VkDeviceSize align = ctx->pointer_import_align;
  guintptr start = (guintptr) ptr & ~(guintptr) (align - 1);
  guintptr end = ((guintptr) ptr + size + align - 1) & ~(guintptr) (align - 1);
  VkMemoryHostPointerPropertiesEXT pointer_props = {
    .sType = VK_STRUCTURE_TYPE_MEMORY_HOST_POINTER_PROPERTIES_EXT,
  };
  VkExternalMemoryBufferCreateInfo ext_info = {
    .sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO,
    .handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT,
  };
  VkBufferCreateInfo binfo = {
    .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
    .pNext = &ext_info,
    .size = end - start,
    .usage = usage,
    .sharingMode = VK_SHARING_MODE_EXCLUSIVE,
  };
  VkImportMemoryHostPointerInfoEXT import_info = {
    .sType = VK_STRUCTURE_TYPE_IMPORT_MEMORY_HOST_POINTER_INFO_EXT,
    .handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT,
    .pHostPointer = (gpointer) start,
  };
  VkMemoryAllocateInfo ainfo = {
    .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
    .pNext = &import_info,
    .allocationSize = end - start,
  };
  VkMemoryRequirements req;
  gint type;

  memset (imp, 0, sizeof (*imp));
  g_return_val_if_fail (align > 0, FALSE);
  if (!gpufft_vk_check (ctx->get_host_pointer_props (ctx->device,
              VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT,
              (gpointer) start, &pointer_props),
          "vkGetMemoryHostPointerPropertiesEXT", error))
    return FALSE;
  if (!gpufft_vk_check (vkCreateBuffer (ctx->device, &binfo, NULL,
              &imp->buffer), "vkCreateBuffer (host import)", error))
    goto fail;
  vkGetBufferMemoryRequirements (ctx->device, imp->buffer, &req);
  /* (host-coherent: the caller's writes, made before the import, need no
   * flush) */
  type = gpufft_context_find_memory_type (ctx,
      req.memoryTypeBits & pointer_props.memoryTypeBits,
      VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
      VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, 0);
  if (type < 0 || req.size > ainfo.allocationSize) {
    g_set_error (error, GPUFFT_ERROR, GPUFFT_ERROR_UNSUPPORTED,
        "no host-coherent memory type can import this host memory");
    goto fail;
  }
  ainfo.memoryTypeIndex = type;
  if (!gpufft_vk_check (vkAllocateMemory (ctx->device, &ainfo, NULL,
              &imp->memory), "vkAllocateMemory (host import)", error))
    goto fail;
  if (!gpufft_vk_check (vkBindBufferMemory (ctx->device, imp->buffer,
              imp->memory, 0), "vkBindBufferMemory (host import)", error))
    goto fail;
  imp->offset = (guintptr) ptr - start;
  return TRUE;

fail:
  gpufft_import_clear (ctx, imp);
  return FALSE;
}

void
gpufft_import_clear (GpufftContext * ctx, GpufftImport * imp)
{
  if (imp->buffer != VK_NULL_HANDLE
      && !gpufft_context_keep (ctx, VK_OBJECT_TYPE_BUFFER,
          GPUFFT_VK_TO_U64 (imp->buffer)))
    vkDestroyBuffer (ctx->device, imp->buffer, NULL);
  if (imp->memory != VK_NULL_HANDLE
      && !gpufft_context_keep (ctx, VK_OBJECT_TYPE_DEVICE_MEMORY,
          GPUFFT_VK_TO_U64 (imp->memory)))
    vkFreeMemory (ctx->device, imp->memory, NULL);
  memset (imp, 0, sizeof (*imp));
}
