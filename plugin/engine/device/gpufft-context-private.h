/* The context's insides, for the engine's own files only. */
#ifndef __GPUFFT_CONTEXT_PRIVATE_H__
#define __GPUFFT_CONTEXT_PRIVATE_H__

#include "gpufft-vk.h"
#include "gpufft.h"

G_BEGIN_DECLS

struct _GpufftContext
{
  gint ref_count;               /* atomic */
  gint device_index;            /* resolved index */
  gchar *device_name;

  VkInstance instance;
  VkPhysicalDevice physical;
  VkDevice device;
  VkQueue queue;
  guint32 queue_family;
  GMutex queue_lock;            /* vkQueueSubmit / vkQueueWaitIdle */

  VkPhysicalDeviceProperties props;     /* .limits: shared memory, ranges */
  VkPhysicalDeviceMemoryProperties mem_props;
  guint32 subgroup_size;
  VkSubgroupFeatureFlags subgroup_ops;  /* in compute shaders */
  gboolean has_timestamps;      /* queue family timestampValidBits > 0 */
  guint32 timestamp_valid_bits;
  gdouble timestamp_period;     /* ns per tick */

  /* Optional features, enabled on the device when supported. */
  VkPhysicalDeviceFeatures features;    /* only shaderFloat64, shaderInt64,
                                         * shaderInt16 may be set */
  gboolean storage_buffer_16bit;        /* storageBuffer16BitAccess */
  /* VK_EXT_external_memory_host (gpufft-import.h): its
   * minImportedHostPointerAlignment, 0 when not enabled. */
  VkDeviceSize host_import_align;
  PFN_vkGetMemoryHostPointerPropertiesEXT get_host_pointer_props;

  /* Longest wait for one submission before the device counts as hung:
   * GPUFFT_FENCE_TIMEOUT_S on GPUs, 30x that on CPU devices (the CPU may be
   * shared or slowed, e.g. by valgrind); the environment variable
   * GPUFFT_FENCE_TIMEOUT (seconds) overrides both. */
  guint64 fence_timeout_ns;
  /* Set (atomically) once the device is lost or hung: nothing may wait for
   * it any more (context destruction skips vkDeviceWaitIdle). */
  gint lost;

  /* Pipelines and constant buffers shared by the plans (gpufft-cache.h):
   * GBytes key -> entry, under shared_lock. */
  GMutex shared_lock;
  GHashTable *shared;

  /* Memory blocks the buffers are sub-allocated from (gpufft-memory.h),
   * under memory_lock. */
  GMutex memory_lock;
  GList *memory_blocks;

  /* The device scheduler (gpufft-scheduler.h), made by the first plan. */
  struct _GpufftScheduler *scheduler;
};

/* The device is lost or hung: nothing waits for it again (ctx->lost) and
 * the next gpufft_context_get() makes a new context for it. Thread-safe. */
void gpufft_context_set_lost (GpufftContext * ctx);

/* Submits one command buffer on the context's queue (locked) and signals
 * fence (may be VK_NULL_HANDLE). */
gboolean gpufft_context_submit (GpufftContext * ctx, VkCommandBuffer cmd,
    VkFence fence, GError ** error);

/* Index of a memory type allowed by type_bits that has all `required`
 * flags, preferring one that also has all `preferred` flags; -1 if none. */
gint gpufft_context_find_memory_type (GpufftContext * ctx,
    guint32 type_bits, VkMemoryPropertyFlags required,
    VkMemoryPropertyFlags preferred);

G_END_DECLS

#endif
