/* gst-gpufft: the allocator of host memory the device reads in place (see
 * the header). */
#include <string.h>

#include "gstgpufftallocator.h"

GST_DEBUG_CATEGORY_STATIC (gst_gpu_fft_allocator_debug);
#define GST_CAT_DEFAULT gst_gpu_fft_allocator_debug

#define KEEP_COUNT 32
#define KEEP_BYTES (64u << 20)

struct _GstGpuFftAllocator
{
  GstAllocator parent;
  GpufftContext *ctx;           /* a reference */

  GMutex lock;
  GQueue kept;                  /* GpufftHostMemory, the newest first */
  gsize kept_bytes;
};

/* The whole piece (parent == NULL) owns its host memory; a share points
 * into its parent's. `data` is the first byte of the maxsize bytes
 * (GstMemory's offset and size are counted from it). */
typedef struct
{
  GstMemory mem;
  GpufftHostMemory *host;
  guint8 *data;
} GstGpuFftMemory;

G_DEFINE_TYPE (GstGpuFftAllocator, gst_gpu_fft_allocator, GST_TYPE_ALLOCATOR);

static GpufftHostMemory *
take_kept (GstGpuFftAllocator * self, gsize size)
{
  GpufftHostMemory *host = NULL;
  GList *l;

  g_mutex_lock (&self->lock);
  for (l = self->kept.head; l; l = l->next) {
    if (gpufft_host_memory_get_size (l->data) == size) {
      host = l->data;
      g_queue_delete_link (&self->kept, l);
      self->kept_bytes -= size;
      break;
    }
  }
  g_mutex_unlock (&self->lock);
  return host;
}

static void
keep (GstGpuFftAllocator * self, GpufftHostMemory * host)
{
  GSList *drop = NULL;
  gsize size = gpufft_host_memory_get_size (host);

  g_mutex_lock (&self->lock);
  if (size <= KEEP_BYTES) {
    g_queue_push_head (&self->kept, host);
    self->kept_bytes += size;
    host = NULL;
  }
  while (self->kept.length > KEEP_COUNT || self->kept_bytes > KEEP_BYTES) {
    GpufftHostMemory *old = g_queue_pop_tail (&self->kept);

    self->kept_bytes -= gpufft_host_memory_get_size (old);
    drop = g_slist_prepend (drop, old);
  }
  g_mutex_unlock (&self->lock);
  if (host)
    drop = g_slist_prepend (drop, host);
  g_slist_free_full (drop, (GDestroyNotify) gpufft_host_memory_free);
}

static GstGpuFftMemory *
wrap (GstGpuFftAllocator * self, GstMemoryFlags flags, GstMemory * parent,
    GpufftHostMemory * host, guint8 * data, gsize maxsize, gsize align,
    gsize offset, gsize size)
{
  GstGpuFftMemory *m = g_new0 (GstGpuFftMemory, 1);

  gst_memory_init (GST_MEMORY_CAST (m), flags, GST_ALLOCATOR_CAST (self),
      parent, maxsize, align, offset, size);
  m->host = host;
  m->data = data;
  return m;
}

static GstMemory *
gst_gpu_fft_allocator_alloc (GstAllocator * allocator, gsize size,
    GstAllocationParams * params)
{
  GstGpuFftAllocator *self = GST_GPU_FFT_ALLOCATOR (allocator);
  GstAllocationParams defaults;
  GpufftHostMemory *host;
  GError *error = NULL;
  gsize maxsize, align, host_size, shift;
  guint8 *data;

  if (params == NULL) {
    gst_allocation_params_init (&defaults);
    params = &defaults;
  }
  /* (the host memory is aligned to 64 bytes; room to shift for more) */
  align = params->align | gst_memory_alignment;
  maxsize = size + params->prefix + params->padding;
  host_size = maxsize + (align > 63 ? align : 0);
  host = take_kept (self, host_size);
  if (host == NULL)
    host = gpufft_host_memory_new (self->ctx, host_size, &error);
  if (host == NULL) {
    /* (a lost device, or no memory left of its kind: system memory, which
     * the element copies, rather than a failed allocation upstream) */
    GST_WARNING_OBJECT (self, "no host memory of %" G_GSIZE_FORMAT
        " bytes: %s; system memory instead", host_size, error->message);
    g_clear_error (&error);
    return gst_allocator_alloc (NULL, size, params);
  }
  data = gpufft_host_memory_get_data (host);
  shift = ((guintptr) data & align) ? (align + 1) - ((guintptr) data & align)
      : 0;
  data += shift;
  if ((params->flags & GST_MEMORY_FLAG_ZERO_PREFIXED) && params->prefix)
    memset (data, 0, params->prefix);
  if ((params->flags & GST_MEMORY_FLAG_ZERO_PADDED) && params->padding)
    memset (data + params->prefix + size, 0, params->padding);
  return GST_MEMORY_CAST (wrap (self, params->flags, NULL, host, data,
          maxsize, align, params->prefix, size));
}

static void
gst_gpu_fft_allocator_free (GstAllocator * allocator, GstMemory * mem)
{
  GstGpuFftMemory *m = (GstGpuFftMemory *) mem;

  /* (a share's parent is unreffed by GstMemory) */
  if (mem->parent == NULL)
    keep (GST_GPU_FFT_ALLOCATOR (allocator), m->host);
  g_free (m);
}

static gpointer
mem_map (GstMemory * mem, gsize maxsize, GstMapFlags flags)
{
  return ((GstGpuFftMemory *) mem)->data;
}

static void
mem_unmap (GstMemory * mem)
{
}

static GstMemory *
mem_share (GstMemory * mem, gssize offset, gssize size)
{
  GstGpuFftMemory *m = (GstGpuFftMemory *) mem;
  GstMemory *parent = mem->parent ? mem->parent : mem;

  if (size == -1)
    size = mem->size - offset;
  return GST_MEMORY_CAST (wrap (GST_GPU_FFT_ALLOCATOR (mem->allocator),
          GST_MINI_OBJECT_FLAGS (parent) | GST_MINI_OBJECT_FLAG_LOCK_READONLY,
          parent, m->host, m->data, mem->maxsize, mem->align,
          mem->offset + offset, size));
}

static GstMemory *
mem_copy (GstMemory * mem, gssize offset, gssize size)
{
  GstGpuFftMemory *m = (GstGpuFftMemory *) mem;
  GstAllocationParams params = { 0, mem->align, 0, 0 };
  GstMemory *copy;
  GstMapInfo map;

  if (size == -1)
    size = mem->size > (gsize) offset ? mem->size - offset : 0;
  copy = gst_allocator_alloc (mem->allocator, size, &params);
  if (copy == NULL)
    copy = gst_allocator_alloc (NULL, size, &params);
  if (copy == NULL || !gst_memory_map (copy, &map, GST_MAP_WRITE)) {
    g_clear_pointer (&copy, gst_memory_unref);
    return NULL;
  }
  memcpy (map.data, m->data + mem->offset + offset, size);
  gst_memory_unmap (copy, &map);
  return copy;
}

/* (GstMemory asks only for shares of one parent) */
static gboolean
mem_is_span (GstMemory * mem1, GstMemory * mem2, gsize * offset)
{
  GstGpuFftMemory *a = (GstGpuFftMemory *) mem1;
  GstGpuFftMemory *b = (GstGpuFftMemory *) mem2;

  if (offset)
    *offset = mem1->offset - mem1->parent->offset;
  return a->data + mem1->offset + mem1->size == b->data + mem2->offset;
}

static void
gst_gpu_fft_allocator_finalize (GObject * object)
{
  GstGpuFftAllocator *self = GST_GPU_FFT_ALLOCATOR (object);

  g_queue_clear_full (&self->kept, (GDestroyNotify) gpufft_host_memory_free);
  g_clear_pointer (&self->ctx, gpufft_context_unref);
  g_mutex_clear (&self->lock);
  G_OBJECT_CLASS (gst_gpu_fft_allocator_parent_class)->finalize (object);
}

static void
gst_gpu_fft_allocator_class_init (GstGpuFftAllocatorClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstAllocatorClass *alloc_class = GST_ALLOCATOR_CLASS (klass);

  gobject_class->finalize = gst_gpu_fft_allocator_finalize;
  alloc_class->alloc = gst_gpu_fft_allocator_alloc;
  alloc_class->free = gst_gpu_fft_allocator_free;
  GST_DEBUG_CATEGORY_INIT (gst_gpu_fft_allocator_debug, "gpufftallocator", 0,
      "gst-gpufft host memory allocator");
}

static void
gst_gpu_fft_allocator_init (GstGpuFftAllocator * self)
{
  GstAllocator *alloc = GST_ALLOCATOR_CAST (self);

  alloc->mem_type = GST_GPU_FFT_ALLOCATOR_MEMORY_TYPE;
  alloc->mem_map = mem_map;
  alloc->mem_unmap = mem_unmap;
  alloc->mem_share = mem_share;
  alloc->mem_copy = mem_copy;
  alloc->mem_is_span = mem_is_span;
  g_mutex_init (&self->lock);
  g_queue_init (&self->kept);
}

GstAllocator *
gst_gpu_fft_allocator_new (GpufftContext * ctx)
{
  GstGpuFftAllocator *self = g_object_new (GST_TYPE_GPU_FFT_ALLOCATOR, NULL);

  gst_object_ref_sink (self);
  self->ctx = gpufft_context_ref (ctx);
  return GST_ALLOCATOR_CAST (self);
}

GpufftHostMemory *
gst_gpu_fft_allocator_memory_host (GstMemory * mem)
{
  if (mem == NULL || !GST_IS_GPU_FFT_ALLOCATOR (mem->allocator))
    return NULL;
  return ((GstGpuFftMemory *) mem)->host;
}
