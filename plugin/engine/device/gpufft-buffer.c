/* A VkBuffer with its own memory, mapped when host-visible. */
#include <string.h>

#include "gpufft-buffer.h"
#include "gpufft-command.h"
#include "gpufft-vk-error.h"

/* Staging memory: host-visible + coherent, preferably not device-local
 * (small BAR / ReBAR heaps are precious and slow for the host to fill in
 * bulk on some drivers); any host-visible coherent type otherwise. */
static gint
find_upload_type (GpufftContext * ctx, guint32 type_bits)
{
  const VkMemoryPropertyFlags req = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
      VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  const VkPhysicalDeviceMemoryProperties *mp = &ctx->mem_props;
  guint32 i;

  for (i = 0; i < mp->memoryTypeCount && i < 32; i++) {
    VkMemoryPropertyFlags f = mp->memoryTypes[i].propertyFlags;

    if ((type_bits & (1u << i)) && (f & req) == req
        && !(f & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT))
      return i;
  }
  return gpufft_context_find_memory_type (ctx, type_bits, req, 0);
}

/* Mapped memory (GPUFFT_MEMORY_MAPPED), which callers use as their own:
 * host-visible + coherent; of those, cached and outside the device's
 * memory first, then outside it, then any. */
static gint
find_mapped_type (GpufftContext * ctx, guint32 type_bits)
{
  const VkMemoryPropertyFlags req = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
      VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  const VkPhysicalDeviceMemoryProperties *mp = &ctx->mem_props;
  gint best = -1, best_score = -1;
  guint32 i;

  for (i = 0; i < mp->memoryTypeCount && i < 32; i++) {
    VkMemoryPropertyFlags f = mp->memoryTypes[i].propertyFlags;
    gint score;

    if (!(type_bits & (1u << i)) || (f & req) != req)
      continue;
    score = ((f & VK_MEMORY_PROPERTY_HOST_CACHED_BIT) ? 2 : 0) +
        ((f & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) ? 0 : 1);
    if (score > best_score) {
      best = i;
      best_score = score;
    }
  }
  return best;
}

static const gchar *
kind_name (GpufftMemoryKind kind)
{
  switch (kind) {
    case GPUFFT_MEMORY_DEVICE:
      return "device-local";
    case GPUFFT_MEMORY_UPLOAD:
      return "upload";
    case GPUFFT_MEMORY_READBACK:
      return "readback";
    case GPUFFT_MEMORY_MAPPED:
      return "host";
  }
  return "?";
}

gboolean
gpufft_buffer_init (GpufftBuffer * buf, GpufftContext * ctx,
    VkDeviceSize size, GpufftMemoryKind kind, GError ** error)
{
  VkBufferCreateInfo binfo = {
    .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
    .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
        VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT |
        VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
    .sharingMode = VK_SHARING_MODE_EXCLUSIVE,
  };
  VkMemoryRequirements req;
  VkMemoryPropertyFlags flags;
  VkResult res;
  gint type = -1;

  memset (buf, 0, sizeof (*buf));
  if (size == 0)
    size = 16;
  /* Never a power of two: llvmpipe (lavapipe) compiles a shader once per
   * combination of "texel buffer size is a power of two" over its texel
   * bindings, at its first dispatch. With every size off a power of two,
   * each pipeline has one such combination, the one its warm-up compiled
   * (gpufft-warmup.h); else the first batch of a plan would compile again,
   * on the streaming path. */
  if ((size & (size - 1)) == 0)
    size += 16;
  binfo.size = size;

  res = vkCreateBuffer (ctx->device, &binfo, NULL, &buf->buffer);
  if (res != VK_SUCCESS) {
    buf->buffer = VK_NULL_HANDLE;
    if (res == VK_ERROR_OUT_OF_HOST_MEMORY
        || res == VK_ERROR_OUT_OF_DEVICE_MEMORY)
      g_set_error (error, GPUFFT_ERROR, GPUFFT_ERROR_OUT_OF_MEMORY,
          "vkCreateBuffer of %" G_GUINT64_FORMAT " bytes failed: %s",
          (guint64) size, gpufft_vk_result_string (res));
    else
      gpufft_vk_check (res, "vkCreateBuffer", error);
    goto fail;
  }
  vkGetBufferMemoryRequirements (ctx->device, buf->buffer, &req);
  /* (mapped memory: 64-byte aligned for its users, as GstMemory's default;
   * the mapping of a block is aligned to minMemoryMapAlignment, at least
   * 64) */
  if (kind == GPUFFT_MEMORY_MAPPED)
    req.alignment = MAX (req.alignment, 64);

  switch (kind) {
    case GPUFFT_MEMORY_DEVICE:
      type = gpufft_context_find_memory_type (ctx, req.memoryTypeBits,
          VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0);
      break;
    case GPUFFT_MEMORY_UPLOAD:
      type = find_upload_type (ctx, req.memoryTypeBits);
      break;
    case GPUFFT_MEMORY_MAPPED:
      type = find_mapped_type (ctx, req.memoryTypeBits);
      break;
    case GPUFFT_MEMORY_READBACK:
      type = gpufft_context_find_memory_type (ctx, req.memoryTypeBits,
          VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT,
          VK_MEMORY_PROPERTY_HOST_CACHED_BIT |
          VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
      if (type < 0)
        break;
      /* cached without coherent beats coherent without cached */
      if (!(ctx->mem_props.memoryTypes[type].propertyFlags &
              VK_MEMORY_PROPERTY_HOST_CACHED_BIT)) {
        gint cached = gpufft_context_find_memory_type (ctx,
            req.memoryTypeBits, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
            VK_MEMORY_PROPERTY_HOST_CACHED_BIT, 0);
        if (cached >= 0)
          type = cached;
      }
      break;
  }
  if (type < 0) {
    g_set_error (error, GPUFFT_ERROR, GPUFFT_ERROR_UNSUPPORTED,
        "no %s memory type for a buffer of %" G_GUINT64_FORMAT " bytes on "
        "'%s'", kind_name (kind), (guint64) size, ctx->device_name);
    goto fail;
  }
  flags = ctx->mem_props.memoryTypes[type].propertyFlags;
  buf->device_local = (flags & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) != 0;

  if (!gpufft_memory_alloc (ctx, type, &req, &buf->range, error))
    goto fail;
  res = vkBindBufferMemory (ctx->device, buf->buffer, buf->range.memory,
      buf->range.offset);
  if (!gpufft_vk_check (res, "vkBindBufferMemory", error))
    goto fail;
  buf->mapped = buf->range.mapped;
  buf->coherent = (flags & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT) != 0;
  buf->size = size;
  return TRUE;

fail:
  gpufft_buffer_clear (buf, ctx);
  return FALSE;
}

static const VkFormat view_formats[GPUFFT_N_VIEWS] = {
  VK_FORMAT_R32_UINT, VK_FORMAT_R32G32B32A32_UINT, VK_FORMAT_R32G32_SFLOAT,
  VK_FORMAT_R32G32B32A32_SFLOAT
};

guint
gpufft_buffer_view_bytes (GpufftView view)
{
  static const guint bytes[GPUFFT_N_VIEWS] = { 4, 16, 8, 16 };

  return bytes[view];
}

gboolean
gpufft_buffer_add_view (GpufftBuffer * buf, GpufftContext * ctx,
    GpufftView view, GError ** error)
{
  VkBufferViewCreateInfo info = {
    .sType = VK_STRUCTURE_TYPE_BUFFER_VIEW_CREATE_INFO,
    .buffer = buf->buffer,
    .format = view_formats[view],
    .offset = 0,
    .range = VK_WHOLE_SIZE,
  };
  VkFormatProperties fp;
  VkResult res;

  g_return_val_if_fail (view < GPUFFT_N_VIEWS, FALSE);
  if (buf->views[view] != VK_NULL_HANDLE)
    return TRUE;
  vkGetPhysicalDeviceFormatProperties (ctx->physical, info.format, &fp);
  if (!(fp.bufferFeatures & VK_FORMAT_FEATURE_UNIFORM_TEXEL_BUFFER_BIT)) {
    g_set_error (error, GPUFFT_ERROR, GPUFFT_ERROR_UNSUPPORTED,
        "'%s' cannot read format %d as a uniform texel buffer",
        ctx->device_name, info.format);
    return FALSE;
  }
  if (buf->size / gpufft_buffer_view_bytes (view) >
      ctx->props.limits.maxTexelBufferElements) {
    g_set_error (error, GPUFFT_ERROR, GPUFFT_ERROR_UNSUPPORTED,
        "a buffer of %" G_GUINT64_FORMAT " bytes is more than the %u texels "
        "'%s' allows in a texel buffer", (guint64) buf->size,
        ctx->props.limits.maxTexelBufferElements, ctx->device_name);
    return FALSE;
  }
  res = vkCreateBufferView (ctx->device, &info, NULL, &buf->views[view]);
  if (!gpufft_vk_check (res, "vkCreateBufferView", error)) {
    buf->views[view] = VK_NULL_HANDLE;
    return FALSE;
  }
  return TRUE;
}

void
gpufft_buffer_clear (GpufftBuffer * buf, GpufftContext * ctx)
{
  guint v;

  for (v = 0; v < GPUFFT_N_VIEWS; v++)
    if (buf->views[v] != VK_NULL_HANDLE
        && !gpufft_context_keep (ctx, VK_OBJECT_TYPE_BUFFER_VIEW,
            GPUFFT_VK_TO_U64 (buf->views[v])))
      vkDestroyBufferView (ctx->device, buf->views[v], NULL);
  if (buf->buffer != VK_NULL_HANDLE
      && !gpufft_context_keep (ctx, VK_OBJECT_TYPE_BUFFER,
          GPUFFT_VK_TO_U64 (buf->buffer)))
    vkDestroyBuffer (ctx->device, buf->buffer, NULL);
  gpufft_memory_free (ctx, &buf->range);
  memset (buf, 0, sizeof (*buf));
}

gboolean
gpufft_buffer_invalidate (GpufftBuffer * buf, GpufftContext * ctx,
    GError ** error)
{
  VkMappedMemoryRange range = {
    .sType = VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE,
  };

  if (buf->mapped == NULL || buf->coherent)
    return TRUE;
  range.memory = buf->range.memory;
  range.offset = buf->range.offset;
  range.size = buf->range.size;
  return gpufft_vk_check (vkInvalidateMappedMemoryRanges (ctx->device, 1,
          &range), "vkInvalidateMappedMemoryRanges", error);
}

gboolean
gpufft_buffer_flush (GpufftBuffer * buf, GpufftContext * ctx, GError ** error)
{
  VkMappedMemoryRange range = {
    .sType = VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE,
  };

  if (buf->mapped == NULL || buf->coherent)
    return TRUE;
  range.memory = buf->range.memory;
  range.offset = buf->range.offset;
  range.size = buf->range.size;
  return gpufft_vk_check (vkFlushMappedMemoryRanges (ctx->device, 1,
          &range), "vkFlushMappedMemoryRanges", error);
}

/* GPUFFT_DEBUG_TABLE_COPIES=1 (read once) */
static gboolean
copies_forced (void)
{
  static gint forced = -1;

  if (g_atomic_int_get (&forced) < 0)
    g_atomic_int_set (&forced, g_strcmp0 (g_getenv
            ("GPUFFT_DEBUG_TABLE_COPIES"), "1") == 0);
  return g_atomic_int_get (&forced);
}

gboolean
gpufft_buffer_wants_device_copy (const GpufftBuffer * host)
{
  return !host->device_local || copies_forced ();
}

gboolean
gpufft_buffer_upload (GpufftBuffer * dst, GpufftContext * ctx,
    gconstpointer data, gsize size, GError ** error)
{
  GpufftBuffer tmp = { 0 };
  GpufftCommand cmd = { 0 };
  VkBufferCopy region = { 0, 0, size };
  gboolean ok = FALSE;

  if (dst->mapped && !copies_forced ()) {
    memcpy (dst->mapped, data, size);
    return gpufft_buffer_flush (dst, ctx, error);
  }
  if (!gpufft_buffer_init (&tmp, ctx, size, GPUFFT_MEMORY_UPLOAD, error))
    return FALSE;
  memcpy (tmp.mapped, data, size);
  if (gpufft_buffer_flush (&tmp, ctx, error)
      && gpufft_command_init (&cmd, ctx, 0, error)
      && gpufft_command_begin (&cmd, ctx, error)) {
    vkCmdCopyBuffer (cmd.cmd, tmp.buffer, dst->buffer, 1, &region);
    gpufft_command_barrier (&cmd);
    ok = gpufft_command_run (&cmd, ctx, "finish a copy", error);
  }
  gpufft_command_clear (&cmd, ctx);
  gpufft_buffer_clear (&tmp, ctx);
  return ok;
}
