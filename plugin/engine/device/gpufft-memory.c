/* Device memory sub-allocated from large blocks: see gpufft-memory.h. */
#include <string.h>

#include "gpufft-memory.h"
#include "gpufft-vk-error.h"

typedef struct
{
  VkDeviceSize offset, size;
} Span;

struct _GpufftMemoryBlock
{
  guint32 type;
  VkDeviceMemory memory;
  VkDeviceSize size;
  guint8 *mapped;               /* NULL unless host-visible */
  GArray *free;                 /* Span, sorted by offset, never adjacent */
  VkDeviceSize used;
};

static gboolean
allocate (GpufftContext * ctx, guint32 type, VkDeviceSize size,
    VkDeviceMemory * memory, gpointer * mapped, GError ** error)
{
  VkMemoryAllocateInfo ainfo = {
    .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
    .allocationSize = size,
    .memoryTypeIndex = type,
  };
  VkResult res;

  *mapped = NULL;
  res = vkAllocateMemory (ctx->device, &ainfo, NULL, memory);
  if (res != VK_SUCCESS) {
    *memory = VK_NULL_HANDLE;
    if (res == VK_ERROR_OUT_OF_HOST_MEMORY
        || res == VK_ERROR_OUT_OF_DEVICE_MEMORY)
      g_set_error (error, GPUFFT_ERROR, GPUFFT_ERROR_OUT_OF_MEMORY,
          "could not allocate %" G_GUINT64_FORMAT " bytes of memory type %u "
          "on '%s': %s", (guint64) size, type, ctx->device_name,
          gpufft_vk_result_string (res));
    else
      gpufft_vk_check (res, "vkAllocateMemory", error);
    return FALSE;
  }
  if (ctx->mem_props.memoryTypes[type].propertyFlags &
      VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) {
    res = vkMapMemory (ctx->device, *memory, 0, VK_WHOLE_SIZE, 0, mapped);
    if (!gpufft_vk_check (res, "vkMapMemory", error)) {
      vkFreeMemory (ctx->device, *memory, NULL);
      *memory = VK_NULL_HANDLE;
      *mapped = NULL;
      return FALSE;
    }
  }
  return TRUE;
}

static void
block_free (GpufftContext * ctx, GpufftMemoryBlock * b)
{
  if (b->mapped)
    vkUnmapMemory (ctx->device, b->memory);
  vkFreeMemory (ctx->device, b->memory, NULL);
  g_array_unref (b->free);
  g_free (b);
}

/* First fit of size bytes at `align` in b; G_MAXUINT64 if none. */
static VkDeviceSize
block_take (GpufftMemoryBlock * b, VkDeviceSize size, VkDeviceSize align)
{
  guint i;

  for (i = 0; i < b->free->len; i++) {
    Span *s = &g_array_index (b->free, Span, i);
    VkDeviceSize at = (s->offset + align - 1) / align * align;
    VkDeviceSize end = s->offset + s->size;

    if (at + size > end)
      continue;
    /* keep what lies before and after the range */
    if (at + size < end) {
      Span after = { at + size, end - at - size };

      if (at > s->offset) {
        s->size = at - s->offset;
        g_array_insert_val (b->free, i + 1, after);
      } else {
        *s = after;
      }
    } else if (at > s->offset) {
      s->size = at - s->offset;
    } else {
      g_array_remove_index (b->free, i);
    }
    b->used += size;
    return at;
  }
  return G_MAXUINT64;
}

static void
block_give (GpufftMemoryBlock * b, VkDeviceSize offset, VkDeviceSize size)
{
  Span s = { offset, size };
  guint i = 0;

  while (i < b->free->len && g_array_index (b->free, Span, i).offset < offset)
    i++;
  g_array_insert_val (b->free, i, s);
  /* merge with the next, then with the previous */
  if (i + 1 < b->free->len) {
    Span *a = &g_array_index (b->free, Span, i);
    Span *n = &g_array_index (b->free, Span, i + 1);

    if (a->offset + a->size == n->offset) {
      a->size += n->size;
      g_array_remove_index (b->free, i + 1);
    }
  }
  if (i > 0) {
    Span *p = &g_array_index (b->free, Span, i - 1);
    Span *a = &g_array_index (b->free, Span, i);

    if (p->offset + p->size == a->offset) {
      p->size += a->size;
      g_array_remove_index (b->free, i);
    }
  }
  b->used -= size;
}

gboolean
gpufft_memory_alloc (GpufftContext * ctx, guint32 type,
    const VkMemoryRequirements * req, GpufftMemoryRange * out, GError ** error)
{
  VkMemoryPropertyFlags flags = ctx->mem_props.memoryTypes[type].propertyFlags;
  VkDeviceSize align = MAX (req->alignment, 16);
  VkDeviceSize size = req->size;
  GpufftMemoryBlock *b = NULL;
  VkDeviceSize at = G_MAXUINT64;
  GList *l;

  memset (out, 0, sizeof (*out));
  /* (a lost context keeps what it frees: nothing new on it) */
  if (g_atomic_int_get (&ctx->lost)) {
    g_set_error (error, GPUFFT_ERROR, GPUFFT_ERROR_DEVICE_LOST,
        "the GPU stopped responding: nothing new is made on the Vulkan "
        "device '%s'", ctx->device_name);
    return FALSE;
  }
  if ((flags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT)
      && !(flags & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT)) {
    VkDeviceSize atom = MAX (ctx->props.limits.nonCoherentAtomSize, 1);

    align = (align + atom - 1) / atom * atom;
    size = (size + atom - 1) / atom * atom;
  }

  if (size > GPUFFT_MEMORY_BLOCK / 4) {
    out->size = size;
    return allocate (ctx, type, size, &out->memory, &out->mapped, error);
  }

  g_mutex_lock (&ctx->memory_lock);
  for (l = ctx->memory_blocks; l && at == G_MAXUINT64; l = l->next) {
    b = l->data;
    if (b->type == type)
      at = block_take (b, size, align);
  }
  if (at == G_MAXUINT64) {
    Span all = { 0, GPUFFT_MEMORY_BLOCK };
    gpointer mapped;

    b = g_new0 (GpufftMemoryBlock, 1);
    b->type = type;
    b->size = GPUFFT_MEMORY_BLOCK;
    b->free = g_array_new (FALSE, FALSE, sizeof (Span));
    g_array_append_val (b->free, all);
    if (!allocate (ctx, type, b->size, &b->memory, &mapped, error)) {
      g_array_unref (b->free);
      g_free (b);
      g_mutex_unlock (&ctx->memory_lock);
      return FALSE;
    }
    b->mapped = mapped;
    ctx->memory_blocks = g_list_prepend (ctx->memory_blocks, b);
    at = block_take (b, size, align);
  }
  g_mutex_unlock (&ctx->memory_lock);

  out->block = b;
  out->memory = b->memory;
  out->offset = at;
  out->size = size;
  out->mapped = b->mapped ? b->mapped + at : NULL;
  return TRUE;
}

void
gpufft_memory_free (GpufftContext * ctx, GpufftMemoryRange * range)
{
  GpufftMemoryBlock *b = range->block;
  /* (a device declared hung may still run what reads the memory: nothing
   * goes back to the driver before the context's destruction, which waits
   * for the device) */
  gboolean lost = g_atomic_int_get (&ctx->lost);

  if (b == NULL && range->memory != VK_NULL_HANDLE && lost) {
    /* kept as a block of no type, which no request takes */
    b = g_new0 (GpufftMemoryBlock, 1);
    b->type = G_MAXUINT32;
    b->memory = range->memory;
    b->size = range->size;
    b->mapped = range->mapped;
    b->free = g_array_new (FALSE, FALSE, sizeof (Span));
    g_mutex_lock (&ctx->memory_lock);
    ctx->memory_blocks = g_list_prepend (ctx->memory_blocks, b);
    g_mutex_unlock (&ctx->memory_lock);
    memset (range, 0, sizeof (*range));
    return;
  }
  if (b == NULL) {
    if (range->memory != VK_NULL_HANDLE) {
      if (range->mapped)
        vkUnmapMemory (ctx->device, range->memory);
      vkFreeMemory (ctx->device, range->memory, NULL);
    }
    memset (range, 0, sizeof (*range));
    return;
  }
  g_mutex_lock (&ctx->memory_lock);
  block_give (b, range->offset, range->size);
  if (b->used == 0 && !lost) {
    GList *l;
    gboolean other = FALSE;

    for (l = ctx->memory_blocks; l; l = l->next) {
      GpufftMemoryBlock *o = l->data;

      other |= o != b && o->type == b->type;
    }
    if (other) {
      ctx->memory_blocks = g_list_remove (ctx->memory_blocks, b);
      block_free (ctx, b);
    }
  }
  g_mutex_unlock (&ctx->memory_lock);
  memset (range, 0, sizeof (*range));
}

void
gpufft_memory_clear (GpufftContext * ctx)
{
  GList *l;

  for (l = ctx->memory_blocks; l; l = l->next) {
    GpufftMemoryBlock *b = l->data;

    if (b->used)
      g_warning ("gpufft: %" G_GUINT64_FORMAT " bytes of a memory block "
          "still in use at context destruction", (guint64) b->used);
    block_free (ctx, b);
  }
  g_list_free (ctx->memory_blocks);
  ctx->memory_blocks = NULL;
}
