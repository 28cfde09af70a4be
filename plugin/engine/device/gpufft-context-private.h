/* The context's insides, for the engine's own files only. */
#ifndef __GPUFFT_CONTEXT_PRIVATE_H__
#define __GPUFFT_CONTEXT_PRIVATE_H__

#include "gpufft-vk.h"
#include "gpufft.h"

G_BEGIN_DECLS

/* Services: objects of the device layer's higher files that live as long
 * as the context, made on first request and destroyed with it, in this
 * order, through the destroy function given when each was made. */
typedef enum
{
  GPUFFT_SERVICE_SCHEDULER,     /* gpufft-scheduler.h (first: it waits for
                                 * the work in flight) */
  GPUFFT_SERVICE_CACHE,         /* gpufft-cache.h */
  GPUFFT_SERVICE_PIPELINE_CACHE,        /* gpufft-pipeline-cache.h (after the
                                         * pipelines made with it) */
  GPUFFT_N_SERVICES
} GpufftService;

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
  VkDeviceSize pointer_import_align;
  PFN_vkGetMemoryHostPointerPropertiesEXT get_host_pointer_props;
  /* VK_KHR_pipeline_executable_properties (gpufft-pipeline-stats.h): both
   * set only while GPUFFT_PIPELINE_STATS asks for the statistics. */
  PFN_vkGetPipelineExecutablePropertiesKHR get_executable_props;
  PFN_vkGetPipelineExecutableStatisticsKHR get_executable_stats;

  /* Longest wait for one submission before the device counts as hung:
   * GPUFFT_FENCE_TIMEOUT_S on GPUs, 30x that on CPU devices (the CPU may be
   * shared or slowed, e.g. by valgrind); the environment variable
   * GPUFFT_FENCE_TIMEOUT (seconds) overrides both. */
  guint64 fence_timeout_ns;
  /* The stall deadline's base (gpufft.h, "Deadlines"): GPUFFT_STALL_S, or
   * the environment variable GPUFFT_STALL (seconds); never more than
   * fence_timeout_ns. */
  guint64 stall_ns;
  /* Set (atomically) once the device is lost or hung: nothing may wait for
   * it without a deadline any more, what is released on it is kept
   * (gpufft_context_keep), and its destruction waits for the device on a
   * thread of its own, with a deadline, before it frees anything
   * (gpufft-context.c). */
  gint lost;

  /* Memory blocks the buffers are sub-allocated from (gpufft-memory.h),
   * under memory_lock. */
  GMutex memory_lock;
  GList *memory_blocks;
  /* Vulkan objects released on the lost context (gpufft_context_keep),
   * destroyed with it: GpufftKept, under memory_lock; at most every
   * object the context made, each once. */
  GArray *kept;

  /* Services (gpufft_context_service()), under service_lock. */
  GRecMutex service_lock;
  gpointer services[GPUFFT_N_SERVICES];
  GDestroyNotify service_destroy[GPUFFT_N_SERVICES];

  /* Memory a hung device may still read (gpufft_context_release_later),
   * under late_lock; late_running: its thread runs. */
  GMutex late_lock;
  GSList *late;
  gboolean late_running;

  /* Counters (gpufft_context_get_stats()), under stats_lock. */
  GMutex stats_lock;
  GpufftContextStats stats;
};

/* Makes a service. NULL with error set on failure. */
typedef gpointer (*GpufftServiceNew) (GpufftContext * ctx,
    gconstpointer data, GError ** error);

/* The context's service `id`, made by make (ctx, data) on first request
 * and destroyed by destroy when the context is. Thread-safe; the lock it
 * takes is recursive, so that making one service may ask for another. */
gpointer gpufft_context_service (GpufftContext * ctx, GpufftService id,
    GpufftServiceNew make, GDestroyNotify destroy, gconstpointer data,
    GError ** error);

/* Marks the calling thread as an engine worker (a service's own thread,
 * such as the scheduler's), for gpufft_context_in_worker(). */
void gpufft_context_enter_worker (void);

/* TRUE on an engine worker thread of any context: there, joining a
 * service's threads, or waiting for work they do, could wait for itself
 * (two devices' completion threads can run one pipeline's synchronous bus
 * handler, waiting for each other). */
gboolean gpufft_context_in_worker (void);

/* Runs func (data) on a new thread of the engine's, counted until it
 * returns (gpufft_wait_released): the release of a plan or a context
 * dropped on a worker, which cannot wait for itself. FALSE when no thread
 * could be started (func is not called). */
gboolean gpufft_context_reap (const gchar * name, GThreadFunc func,
    gpointer data);

/* Runs func (data) on a new thread of the engine's that waits for a
 * device with a deadline (a waiter: the destruction of a lost context, a
 * late release), counted until it returns by the process's exit, not by
 * gpufft_wait_released() (a hung device would hold its callers up to the
 * deadline). The exit waits for the waiters at most RELEASE_EXIT_WAIT_MS
 * (gpufft-context.c), then sets *gpufft_context_exiting(): each must then
 * give up its wait (pass it as the cancel flag of
 * gpufft_context_wait_fence or gpufft_context_drain), leaving what it
 * holds allocated, and return; the exit waits for that, again within the
 * bound. FALSE when no thread could be started (func is not called). */
gboolean gpufft_context_start_waiter (const gchar * name, GThreadFunc func,
    gpointer data);

/* The process's exit flag: non-zero once the exit has stopped waiting for
 * the waiters (gpufft_context_start_waiter). */
const gint *gpufft_context_exiting (void);

/* Submits an empty batch with a fence behind everything submitted so far
 * (queues execute in order: once it signals, the device has finished all
 * of that) and waits for it, at most timeout_ns, giving up when *cancel
 * (may be NULL) becomes non-zero. VK_SUCCESS: the device has finished;
 * VK_ERROR_DEVICE_LOST: the driver reports the device lost (the context
 * is marked lost); in both the fence is destroyed. VK_TIMEOUT,
 * VK_NOT_READY (cancelled, before or during the wait) or another error of
 * the wait: the device may still run what was submitted; the context is
 * marked lost (gpufft_context_set_lost) and the fence, which the device
 * may still signal, kept with its objects (gpufft_context_keep). Another error of
 * the fence's creation or the submit: returned (a fence never submitted
 * is destroyed). */
VkResult gpufft_context_drain (GpufftContext * ctx, guint64 timeout_ns,
    const gint * cancel);

/* Adds delta's counters to the context's (max_batches: the larger). */
void gpufft_context_add_stats (GpufftContext * ctx,
    const GpufftContextStats * delta);

/* The device is lost or hung: nothing waits for it again (ctx->lost) and
 * the next gpufft_context_get() makes a new context for it. Thread-safe. */
void gpufft_context_set_lost (GpufftContext * ctx);

/* How long a wait for a submission whose expected device time is
 * expected_ns may last before the device counts as hung: stall_ns + 4 x
 * expected_ns, at most fence_timeout_ns (gpufft.h, "Deadlines"). */
guint64 gpufft_context_stall_deadline_ns (GpufftContext * ctx,
    gdouble expected_ns);

/* The message of a stall (GPUFFT_ERROR_DEVICE_LOST): "the GPU stopped
 * responding: <doing> did not finish within N s ...". */
void gpufft_context_set_stall_error (GpufftContext * ctx, GError ** error,
    const gchar * doing, guint64 waited_ns);

/* What a device declared hung (lost) may still read, such as an imported
 * segment in flight at a stall: release (data) is called on a waiter of
 * the context's (gpufft_context_start_waiter: the process's exit waits
 * for it) once the device has finished everything submitted before this
 * call, or its driver reports it lost (gpufft_context_drain, up to the
 * fence timeout); if it does not finish by then (the device is really
 * hung), or the process's exit stops the wait, never: the memory stays
 * referenced, a deliberate leak. That thread holds a reference on the
 * context meanwhile. Thread-safe. */
void gpufft_context_release_later (GpufftContext * ctx,
    GDestroyNotify release, gpointer data);

/* A Vulkan object's handle as a 64-bit integer and back (the handles of
 * non-dispatchable objects are pointers on 64-bit platforms). */
#if VK_USE_64_BIT_PTR_DEFINES == 1
#define GPUFFT_VK_TO_U64(h) ((guint64) (guintptr) (h))
#define GPUFFT_VK_FROM_U64(type, u) ((type) (guintptr) (u))
#else
#define GPUFFT_VK_TO_U64(h) ((guint64) (h))
#define GPUFFT_VK_FROM_U64(type, u) ((type) (u))
#endif

/* Called where the object `handle` of `type` (VK_OBJECT_TYPE_BUFFER,
 * _BUFFER_VIEW, _DEVICE_MEMORY, _FENCE, _QUERY_POOL, _COMMAND_POOL,
 * _DESCRIPTOR_POOL, _PIPELINE, _PIPELINE_LAYOUT, _DESCRIPTOR_SET_LAYOUT,
 * _SHADER_MODULE) is to be destroyed: once the context is lost (a device
 * declared hung may still run work that uses it), the context keeps it
 * and returns TRUE: the caller must not destroy it; it is destroyed with
 * the context, once the device has finished (or leaked with it). FALSE:
 * the caller destroys it now. Thread-safe. */
gboolean gpufft_context_keep (GpufftContext * ctx, VkObjectType type,
    guint64 handle);

/* Waits for fence at most timeout_ns, giving up when *cancel (may be NULL)
 * becomes non-zero: blocking waits of at most GPUFFT_CANCEL_POLL_MS each.
 * VK_SUCCESS, VK_TIMEOUT, VK_NOT_READY (cancelled) or the wait's error. */
VkResult gpufft_context_wait_fence (GpufftContext * ctx, VkFence fence,
    guint64 timeout_ns, const gint * cancel);

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
