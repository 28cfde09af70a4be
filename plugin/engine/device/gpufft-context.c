/* One Vulkan device and compute queue per device per process, on the
 * process's one instance (gpufft-instance.c); the memory a hung device
 * may still read is released by gpufft-context-late.c.
 *
 * Contexts are shared (gpufft_context_get() hands out the registered one
 * of a device) and reference counted; the last unref destroys one: its
 * services (the scheduler's threads joined), the objects it kept, its
 * memory, its device (vkDestroyDevice after vkDeviceWaitIdle), on the
 * caller's thread, or on a thread of the engine's where that is one of
 * the context's own workers (gpufft_context_reap, counted by
 * gpufft_wait_released).
 *
 * A lost context (gpufft_context_set_lost: the driver reported the device
 * lost, or a stall deadline declared it hung) is never waited for on the
 * caller's thread, and nothing the device may still use is freed under
 * it: a device declared hung may only be slow (a CPU device, lavapipe,
 * under load) and still run a batch. From the moment it is lost, the
 * Vulkan objects and device memory released on it are kept by the
 * context (gpufft_context_keep, gpufft-memory.h), no memory is allocated
 * on it any more (GPUFFT_ERROR_DEVICE_LOST: the kept objects are bounded
 * by what existed when it was lost), a command whose bounded wait times
 * out makes it lost (gpufft_command_clear), and its last unref
 * hands its destruction to a thread of its own ("gpufft-lost"), so that
 * the caller (an element's stop) returns at once. That thread submits an
 * empty batch with a fence (queues execute in order) and waits for it,
 * at most the fence timeout or LOST_WAIT_MIN_S (10 s), whichever is
 * longer: signalled (the device has finished everything), or
 * VK_ERROR_DEVICE_LOST (the driver says the device is lost, and
 * destroying it is allowed then), the context is destroyed as above,
 * without vkDeviceWaitIdle; still running at the deadline, the context,
 * its threads, objects, memory and device are leaked on purpose, with one
 * warning. These threads are not counted by gpufft_wait_released() (a
 * hung device would hold its callers up to the deadline); the process's
 * exit waits for them within its own bound (RELEASE_EXIT_WAIT_MS, 10 s),
 * then they give up (the context leaked).
 *
 * Locks: registry_lock, then driver_lock (a context is made under both;
 * devices are made and destroyed one at a time under driver_lock);
 * reap_lock (the counts of the engine's threads); per context:
 * queue_lock (every vkQueueSubmit), memory_lock (memory blocks and kept
 * objects), late_lock, stats_lock, each held only around its own data;
 * service_lock, held while a service is made (which may take the
 * others). */
#include <stdlib.h>
#include <string.h>

#include "gpufft-context-private.h"
#include "gpufft-extension.h"
#include "gpufft-instance.h"
#include "gpufft-memory.h"
#include "gpufft-pipeline-stats.h"
#include "gpufft-vk-error.h"

/* Resolved device index -> GpufftContext (not owning a reference). */
static GMutex registry_lock;
static GHashTable *registry;
/* Instances and devices are made and destroyed one at a time in the
 * process (contexts are made under registry_lock but destroyed outside
 * it, on whichever thread drops the last reference, while another
 * element's opening may be making the next one): recursive, as a context
 * that fails to be made is destroyed under it. */
static GRecMutex driver_lock;
static void context_destroy (GpufftContext * ctx);

#define RELEASE_EXIT_WAIT_MS 10000
/* A lost context's destruction waits this long at least for its device to
 * finish what it was running (LOST_WAIT_MIN_S, or the context's fence
 * timeout where that is longer), then leaks the device. */
#define LOST_WAIT_MIN_S 10
/* Threads started by gpufft_context_reap (reap_running) and by
 * gpufft_context_start_waiter (waiter_running: the destruction of a lost
 * context, the late releases) that have not returned yet. */
static GMutex reap_lock;
static GCond reap_cond;
static guint reap_running;
static guint waiter_running;
/* Set (atomically) when the process's exit has waited long enough: the
 * waiters stop waiting for their devices (what they hold is leaked). */
static gint process_exiting;

static void
reap_count (guint * counter, gint delta)
{
  g_mutex_lock (&reap_lock);
  *counter += delta;
  g_cond_broadcast (&reap_cond);
  g_mutex_unlock (&reap_lock);
}

typedef struct
{
  GThreadFunc func;
  gpointer data;
  guint *counter;
} Reap;

static gpointer
reap_thread (gpointer data)
{
  Reap *r = data;
  guint *counter = r->counter;

  r->func (r->data);
  g_free (r);
  reap_count (counter, -1);
  return NULL;
}

/* At exit: the process waits for the releases under way, so that the
 * driver is not torn down under them (on NVIDIA's a vkDestroyDevice() on
 * such a thread crashed the exit; a CPU device still computing, or
 * compiling, when the process's libraries are torn down crashed it too),
 * and for the waiters (the destructions of lost contexts, the late
 * releases), at most RELEASE_EXIT_WAIT_MS in all; then the waiters stop
 * waiting for their devices (within GPUFFT_CANCEL_POLL_MS; what they hold
 * is leaked) and the exit goes on once they have returned, again at most
 * RELEASE_EXIT_WAIT_MS (one whose device had finished before the exit
 * began is destroying it). Registered at the first release or waiter,
 * after the driver was loaded: exit handlers run in the reverse order of
 * their registration, so it runs before the driver's own. */
static void
reap_at_exit (void)
{
  gint64 end = g_get_monotonic_time () +
      (gint64) RELEASE_EXIT_WAIT_MS * 1000;

  if (gpufft_context_in_worker ()) {
    g_atomic_int_set (&process_exiting, 1);
    return;
  }
  g_mutex_lock (&reap_lock);
  while (reap_running + waiter_running > 0
      && g_cond_wait_until (&reap_cond, &reap_lock, end));
  g_atomic_int_set (&process_exiting, 1);
  /* (a waiter gives up its wait within GPUFFT_CANCEL_POLL_MS; one that
   * is past its wait, releasing or destroying, is waited for) */
  end = g_get_monotonic_time () + (gint64) RELEASE_EXIT_WAIT_MS * 1000;
  while (waiter_running > 0
      && g_cond_wait_until (&reap_cond, &reap_lock, end));
  g_mutex_unlock (&reap_lock);
}

static void
install_exit_hook (void)
{
  static gsize exit_hook = 0;

  if (g_once_init_enter (&exit_hook)) {
    atexit (reap_at_exit);
    g_once_init_leave (&exit_hook, 1);
  }
}

/* func (data) on a new thread counted in *counter until it returns */
static gboolean
start_counted (const gchar * name, GThreadFunc func, gpointer data,
    guint * counter)
{
  Reap *r = g_new (Reap, 1);
  GThread *thread;

  install_exit_hook ();
  r->func = func;
  r->data = data;
  r->counter = counter;
  reap_count (counter, 1);
  thread = g_thread_try_new (name, reap_thread, r, NULL);
  if (thread) {
    g_thread_unref (thread);
    return TRUE;
  }
  g_free (r);
  reap_count (counter, -1);
  return FALSE;
}

gboolean
gpufft_context_reap (const gchar * name, GThreadFunc func, gpointer data)
{
  return start_counted (name, func, data, &reap_running);
}

gboolean
gpufft_context_start_waiter (const gchar * name, GThreadFunc func,
    gpointer data)
{
  /* (none once the exit has stopped waiting: it would wait for the
   * device while the driver is torn down) */
  if (g_atomic_int_get (&process_exiting))
    return FALSE;
  return start_counted (name, func, data, &waiter_running);
}

const gint *
gpufft_context_exiting (void)
{
  return &process_exiting;
}

gboolean
gpufft_wait_released (guint timeout_ms)
{
  gint64 end = g_get_monotonic_time () + (gint64) timeout_ms * 1000;
  gboolean done = TRUE;

  if (gpufft_context_in_worker ())
    return TRUE;
  g_mutex_lock (&reap_lock);
  while (reap_running > 0 && done)
    done = g_cond_wait_until (&reap_cond, &reap_lock, end);
  done = reap_running == 0;
  g_mutex_unlock (&reap_lock);
  return done;
}

typedef struct
{
  VkObjectType type;
  guint64 handle;
} GpufftKept;

gboolean
gpufft_context_keep (GpufftContext * ctx, VkObjectType type, guint64 handle)
{
  GpufftKept k = { type, handle };

  if (handle == 0 || !g_atomic_int_get (&ctx->lost))
    return FALSE;
  g_mutex_lock (&ctx->memory_lock);
  if (ctx->kept == NULL)
    ctx->kept = g_array_new (FALSE, FALSE, sizeof (GpufftKept));
  g_array_append_val (ctx->kept, k);
  g_mutex_unlock (&ctx->memory_lock);
  return TRUE;
}

/* Destroys the objects kept by gpufft_context_keep (the device is done
 * with them), in the order they were released. */
static void
kept_destroy (GpufftContext * ctx)
{
  VkDevice d = ctx->device;
  guint i;

  for (i = 0; ctx->kept && i < ctx->kept->len; i++) {
    GpufftKept *k = &g_array_index (ctx->kept, GpufftKept, i);

#define K(type) GPUFFT_VK_FROM_U64 (type, k->handle)
    switch (k->type) {
      case VK_OBJECT_TYPE_BUFFER:
        vkDestroyBuffer (d, K (VkBuffer), NULL);
        break;
      case VK_OBJECT_TYPE_BUFFER_VIEW:
        vkDestroyBufferView (d, K (VkBufferView), NULL);
        break;
      case VK_OBJECT_TYPE_DEVICE_MEMORY:
        vkFreeMemory (d, K (VkDeviceMemory), NULL);
        break;
      case VK_OBJECT_TYPE_FENCE:
        vkDestroyFence (d, K (VkFence), NULL);
        break;
      case VK_OBJECT_TYPE_QUERY_POOL:
        vkDestroyQueryPool (d, K (VkQueryPool), NULL);
        break;
      case VK_OBJECT_TYPE_COMMAND_POOL:
        vkDestroyCommandPool (d, K (VkCommandPool), NULL);
        break;
      case VK_OBJECT_TYPE_DESCRIPTOR_POOL:
        vkDestroyDescriptorPool (d, K (VkDescriptorPool), NULL);
        break;
      case VK_OBJECT_TYPE_PIPELINE:
        vkDestroyPipeline (d, K (VkPipeline), NULL);
        break;
      case VK_OBJECT_TYPE_PIPELINE_LAYOUT:
        vkDestroyPipelineLayout (d, K (VkPipelineLayout), NULL);
        break;
      case VK_OBJECT_TYPE_DESCRIPTOR_SET_LAYOUT:
        vkDestroyDescriptorSetLayout (d, K (VkDescriptorSetLayout), NULL);
        break;
      case VK_OBJECT_TYPE_SHADER_MODULE:
        vkDestroyShaderModule (d, K (VkShaderModule), NULL);
        break;
      default:
        g_warn_if_reached ();
        break;
    }
#undef K
  }
  g_clear_pointer (&ctx->kept, g_array_unref);
}

/* Destroys the context now: its services (the scheduler's threads joined),
 * the objects it kept, its memory, its device. The device has finished
 * everything submitted to it, or was never used, or its driver reports it
 * lost. */
static void
context_free (GpufftContext * ctx)
{
  gint i;

  for (i = 0; i < GPUFFT_N_SERVICES; i++)
    if (ctx->services[i])
      ctx->service_destroy[i] (ctx->services[i]);
  if (ctx->device != VK_NULL_HANDLE) {
    kept_destroy (ctx);
    gpufft_memory_clear (ctx);
  }
  if (ctx->device != VK_NULL_HANDLE) {
    /* (a lost or hung device would make this wait forever; a lost
     * context's destruction waited for its device with a deadline) */
    if (!g_atomic_int_get (&ctx->lost))
      vkDeviceWaitIdle (ctx->device);
  }
  /* (the instance is the process's: kept) */
  g_rec_mutex_lock (&driver_lock);
  if (ctx->device != VK_NULL_HANDLE)
    vkDestroyDevice (ctx->device, NULL);
  g_rec_mutex_unlock (&driver_lock);
  g_mutex_clear (&ctx->queue_lock);
  g_mutex_clear (&ctx->memory_lock);
  g_rec_mutex_clear (&ctx->service_lock);
  g_mutex_clear (&ctx->stats_lock);
  g_mutex_clear (&ctx->late_lock);
  g_free (ctx->device_name);
  g_free (ctx);
}

VkResult
gpufft_context_drain (GpufftContext * ctx, guint64 timeout_ns,
    const gint * cancel)
{
  VkFenceCreateInfo finfo = {
    .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO,
  };
  VkFence fence = VK_NULL_HANDLE;
  VkResult res;

  if (cancel && g_atomic_int_get (cancel))
    return VK_NOT_READY;
  res = vkCreateFence (ctx->device, &finfo, NULL, &fence);
  if (res != VK_SUCCESS)
    return res;
  g_mutex_lock (&ctx->queue_lock);
  res = vkQueueSubmit (ctx->queue, 0, NULL, fence);
  g_mutex_unlock (&ctx->queue_lock);
  if (res == VK_SUCCESS)
    res = gpufft_context_wait_fence (ctx, fence, timeout_ns, cancel);
  else if (res != VK_ERROR_DEVICE_LOST) {
    /* (never submitted: nothing can signal it) */
    vkDestroyFence (ctx->device, fence, NULL);
    return res;
  }
  if (res == VK_SUCCESS || res == VK_ERROR_DEVICE_LOST) {
    vkDestroyFence (ctx->device, fence, NULL);
    /* (a device its driver reports lost runs nothing any more) */
    if (res == VK_ERROR_DEVICE_LOST)
      gpufft_context_set_lost (ctx);
    return res;
  }
  /* the device may still signal it: the device counts as hung, and the
   * fence is kept with the lost context's objects */
  gpufft_context_set_lost (ctx);
  gpufft_context_keep (ctx, VK_OBJECT_TYPE_FENCE, GPUFFT_VK_TO_U64 (fence));
  return res;
}

/* A thread of its own (a waiter, gpufft_context_start_waiter): a lost
 * context is destroyed once its device has finished what it was running
 * (declared hung by a stall deadline, a slow device, such as a CPU
 * device, may still be computing a batch: its memory must not be freed,
 * nor its device destroyed, under it), or once the driver reports the
 * device lost; if it has not finished within LOST_WAIT_MIN_S (or the fence
 * timeout where that is longer), or the process exits first, the context
 * is leaked: its services, threads, memory and device stay. */
static gpointer
lost_thread (gpointer data)
{
  GpufftContext *ctx = data;
  guint64 wait_ns = MAX (ctx->fence_timeout_ns,
      (guint64) LOST_WAIT_MIN_S * 1000000000ull);
  gint64 t0 = g_get_monotonic_time ();
  VkResult res;

  res = gpufft_context_drain (ctx, wait_ns, &process_exiting);
  if (res == VK_SUCCESS || res == VK_ERROR_DEVICE_LOST) {
    /* (the exit, once it has begun, no longer waits: left to it) */
    g_mutex_lock (&reap_lock);
    if (g_atomic_int_get (&process_exiting))
      res = VK_NOT_READY;
    g_mutex_unlock (&reap_lock);
  }
  if (res == VK_SUCCESS || res == VK_ERROR_DEVICE_LOST) {
    g_debug ("lost Vulkan device '%s' %s after %.2f s: destroyed",
        ctx->device_name, res == VK_SUCCESS ? "finished its work" :
        "reported lost by its driver",
        (g_get_monotonic_time () - t0) / 1e6);
    context_free (ctx);
  } else if (g_atomic_int_get (&process_exiting)) {
    g_debug ("lost Vulkan device '%s' left to the process's exit",
        ctx->device_name);
  } else {
    g_warning ("gpufft: Vulkan device '%s', declared hung, did not finish "
        "its work within %.0f s (%s): its context, memory and device stay "
        "allocated", ctx->device_name, wait_ns / 1e9,
        gpufft_vk_result_string (res));
  }
  return NULL;
}

static gpointer
context_destroy_thread (gpointer ctx)
{
  context_destroy (ctx);
  return NULL;
}

static void
context_destroy (GpufftContext * ctx)
{
  if (g_atomic_int_get (&ctx->lost) && ctx->device != VK_NULL_HANDLE) {
    /* Nothing waits for a lost device on the caller's thread: a thread of
     * its own destroys the context once the device has finished (an
     * element's stop returns at once whatever the device does). */
    if (gpufft_context_start_waiter ("gpufft-lost", lost_thread, ctx)
        || g_atomic_int_get (&process_exiting))
      return;
    g_warning ("gpufft: no thread to destroy the context of Vulkan device "
        "'%s', declared hung: its context, memory and device stay "
        "allocated", ctx->device_name);
    return;
  }
  if (gpufft_context_in_worker ()) {
    /* The last reference dropped on a worker thread (the scheduler's (a result
     * function or a synchronous bus handler that stopped its pipeline):
     * its threads cannot be joined from themselves, so a thread of its
     * own destroys the context once they have returned. */
    if (!gpufft_context_reap ("gpufft-free", context_destroy_thread, ctx))
      g_warning ("gpufft: no thread to destroy a context dropped on its "
          "scheduler's thread: the device is leaked");
    return;
  }
  context_free (ctx);
}

/* VK_EXT_external_memory_host (input without a CPU copy, gpufft-import.h),
 * unless GPUFFT_HOST_IMPORT=0. */
static gboolean
pointer_import_supported (VkPhysicalDevice phys)
{
  const gchar *env = g_getenv ("GPUFFT_HOST_IMPORT");

  if (env && g_strcmp0 (env, "0") == 0)
    return FALSE;
  return gpufft_extension_offered (phys,
      VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME);
}

/* On instance (the process's, borrowed). */
static GpufftContext *
context_new (VkInstance instance, VkPhysicalDevice phys, gint index,
    GError ** error)
{
  GpufftContext *ctx;
  VkPhysicalDeviceSubgroupProperties subgroup = {
    .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES,
  };
  VkPhysicalDeviceExternalMemoryHostPropertiesEXT import_props = {
    .sType =
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_MEMORY_HOST_PROPERTIES_EXT,
  };
  VkPhysicalDeviceProperties2 props2 = {
    .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
    .pNext = &subgroup,
  };
  const gchar *exts[2];
  guint32 n_exts = 0;
  gboolean pointer_import = FALSE, stats = FALSE;
  VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR en_stats = {
    .sType =
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR,
    .pipelineExecutableInfo = VK_TRUE,
  };
  VkPhysicalDevice16BitStorageFeatures f16 = {
    .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES,
  };
  VkPhysicalDeviceFeatures2 feat2 = {
    .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
    .pNext = &f16,
  };
  VkPhysicalDevice16BitStorageFeatures en16 = {
    .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES,
  };
  VkPhysicalDeviceFeatures2 enabled = {
    .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
    .pNext = &en16,
  };
  VkQueueFamilyProperties *families;
  guint32 n_families = 0, i;
  gint family = -1;
  const gfloat priority = 1.0f;
  VkDeviceQueueCreateInfo qinfo = {
    .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
    .queueCount = 1,
    .pQueuePriorities = &priority,
  };
  VkDeviceCreateInfo dinfo = {
    .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
    .pNext = &enabled,
    .queueCreateInfoCount = 1,
    .pQueueCreateInfos = &qinfo,
  };
  VkResult res;

  ctx = g_new0 (GpufftContext, 1);
  ctx->ref_count = 1;
  ctx->device_index = index;
  ctx->instance = instance;
  ctx->physical = phys;
  g_mutex_init (&ctx->queue_lock);
  g_mutex_init (&ctx->memory_lock);
  g_rec_mutex_init (&ctx->service_lock);
  g_mutex_init (&ctx->stats_lock);
  g_mutex_init (&ctx->late_lock);

  vkGetPhysicalDeviceProperties (phys, &ctx->props);
  ctx->device_name = g_strdup (ctx->props.deviceName);

  if (VK_API_VERSION_MAJOR (ctx->props.apiVersion) == 1
      && VK_API_VERSION_MINOR (ctx->props.apiVersion) < 1) {
    g_set_error (error, GPUFFT_ERROR, GPUFFT_ERROR_UNSUPPORTED,
        "Vulkan device %d '%s' supports only Vulkan %u.%u; 1.1 is needed",
        index, ctx->device_name, VK_API_VERSION_MAJOR (ctx->props.apiVersion),
        VK_API_VERSION_MINOR (ctx->props.apiVersion));
    goto fail;
  }

  pointer_import = pointer_import_supported (phys);
  if (pointer_import)
    subgroup.pNext = &import_props;
  vkGetPhysicalDeviceProperties2 (phys, &props2);
  ctx->props = props2.properties;
  ctx->subgroup_size = subgroup.subgroupSize;
  ctx->subgroup_ops = (subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT)
      ? subgroup.supportedOperations : 0;
  vkGetPhysicalDeviceMemoryProperties (phys, &ctx->mem_props);

  /* Compute queue: a dedicated compute family if there is one. */
  vkGetPhysicalDeviceQueueFamilyProperties (phys, &n_families, NULL);
  families = g_new0 (VkQueueFamilyProperties, MAX (n_families, 1));
  vkGetPhysicalDeviceQueueFamilyProperties (phys, &n_families, families);
  for (i = 0; i < n_families && family < 0; i++) {
    if ((families[i].queueFlags & VK_QUEUE_COMPUTE_BIT)
        && !(families[i].queueFlags & VK_QUEUE_GRAPHICS_BIT)
        && families[i].queueCount > 0)
      family = i;
  }
  for (i = 0; i < n_families && family < 0; i++) {
    if ((families[i].queueFlags & VK_QUEUE_COMPUTE_BIT)
        && families[i].queueCount > 0)
      family = i;
  }
  if (family < 0) {
    g_free (families);
    g_set_error (error, GPUFFT_ERROR, GPUFFT_ERROR_NO_COMPUTE_QUEUE,
        "Vulkan device %d '%s' has no compute queue", index, ctx->device_name);
    goto fail;
  }
  ctx->queue_family = family;
  ctx->timestamp_valid_bits = families[family].timestampValidBits;
  ctx->has_timestamps = ctx->timestamp_valid_bits > 0;
  ctx->timestamp_period = ctx->props.limits.timestampPeriod;
  {
    const gchar *env = g_getenv ("GPUFFT_FENCE_TIMEOUT");
    gdouble secs = GPUFFT_FENCE_TIMEOUT_S;

    if (ctx->props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU)
      secs *= 30;
    if (env && g_ascii_strtod (env, NULL) > 0)
      secs = g_ascii_strtod (env, NULL);
    ctx->fence_timeout_ns = (guint64) (secs * 1e9);
    env = g_getenv ("GPUFFT_STALL");
    secs = GPUFFT_STALL_S;
    if (env && g_ascii_strtod (env, NULL) > 0)
      secs = g_ascii_strtod (env, NULL);
    ctx->stall_ns = MIN ((guint64) (secs * 1e9), ctx->fence_timeout_ns);
  }
  g_free (families);

  /* Optional features the shaders may use. */
  vkGetPhysicalDeviceFeatures2 (phys, &feat2);
  enabled.features.shaderFloat64 = feat2.features.shaderFloat64;
  enabled.features.shaderInt64 = feat2.features.shaderInt64;
  enabled.features.shaderInt16 = feat2.features.shaderInt16;
  en16.storageBuffer16BitAccess = f16.storageBuffer16BitAccess;
  ctx->features = enabled.features;
  ctx->storage_buffer_16bit = en16.storageBuffer16BitAccess;

  if (pointer_import)
    exts[n_exts++] = VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME;
  /* (GPUFFT_PIPELINE_STATS: the compiler's statistics of each pipeline) */
  stats = gpufft_pipeline_stats_supported (phys);
  if (stats) {
    exts[n_exts++] = VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME;
    en_stats.pNext = enabled.pNext;
    enabled.pNext = &en_stats;
  }
  if (n_exts > 0) {
    dinfo.enabledExtensionCount = n_exts;
    dinfo.ppEnabledExtensionNames = exts;
  }

  qinfo.queueFamilyIndex = ctx->queue_family;
  res = vkCreateDevice (phys, &dinfo, NULL, &ctx->device);
  if (res != VK_SUCCESS) {
    ctx->device = VK_NULL_HANDLE;
    g_set_error (error, GPUFFT_ERROR,
        res == VK_ERROR_OUT_OF_HOST_MEMORY
        || res == VK_ERROR_OUT_OF_DEVICE_MEMORY ?
        GPUFFT_ERROR_OUT_OF_MEMORY : GPUFFT_ERROR_FAILED,
        "vkCreateDevice failed for Vulkan device %d '%s': %s", index,
        ctx->device_name, gpufft_vk_result_string (res));
    goto fail;
  }
  vkGetDeviceQueue (ctx->device, ctx->queue_family, 0, &ctx->queue);
  if (pointer_import) {
    ctx->get_host_pointer_props = (PFN_vkGetMemoryHostPointerPropertiesEXT)
        vkGetDeviceProcAddr (ctx->device,
        "vkGetMemoryHostPointerPropertiesEXT");
    if (ctx->get_host_pointer_props)
      ctx->pointer_import_align =
          MAX (import_props.minImportedHostPointerAlignment, 1);
  }
  if (stats)
    gpufft_pipeline_stats_enable (ctx);

  g_debug ("context for Vulkan device %d '%s': queue family %u, subgroup %u, "
      "shared memory %u, timestamps %u bits x %g ns, host import alignment "
      "%" G_GUINT64_FORMAT, index, ctx->device_name,
      ctx->queue_family, ctx->subgroup_size,
      ctx->props.limits.maxComputeSharedMemorySize,
      ctx->timestamp_valid_bits, ctx->timestamp_period,
      (guint64) ctx->pointer_import_align);
  return ctx;

fail:
  context_destroy (ctx);
  return NULL;
}

/* Removes ctx from the registry if it is the one registered for its
 * device; with registry_lock held. */
static void
registry_forget (GpufftContext * ctx)
{
  if (registry == NULL || g_hash_table_lookup (registry,
          GINT_TO_POINTER (ctx->device_index)) != ctx)
    return;
  g_hash_table_remove (registry, GINT_TO_POINTER (ctx->device_index));
  if (g_hash_table_size (registry) == 0) {
    g_hash_table_destroy (registry);
    registry = NULL;
  }
}

/* With registry_lock held. */
static GpufftContext *
registry_lookup (gint index)
{
  if (registry == NULL)
    return NULL;
  return g_hash_table_lookup (registry, GINT_TO_POINTER (index));
}

/* With registry_lock held: any registered context, to borrow its instance. */
static GpufftContext *
registry_any (void)
{
  GHashTableIter iter;
  gpointer value = NULL;

  if (registry == NULL)
    return NULL;
  g_hash_table_iter_init (&iter, registry);
  if (g_hash_table_iter_next (&iter, NULL, &value))
    return value;
  return NULL;
}

/* References held on device `index`'s context (0 if none); under
 * registry_lock. */
static gint
device_load (gint index)
{
  GpufftContext *ctx = registry_lookup (index);

  return ctx ? g_atomic_int_get (&ctx->ref_count) : 0;
}

GpufftContext *
gpufft_context_get (gint device_index, GError ** error)
{
  GpufftContext *ctx = NULL, *any;
  VkInstance instance;
  VkPhysicalDevice phys;
  gint index;
  gint64 t0 = g_get_monotonic_time (), t1, t2, t3;
  gboolean locked = FALSE;

  if (device_index < -1) {
    g_set_error (error, GPUFFT_ERROR, GPUFFT_ERROR_DEVICE_INDEX,
        "device index %d invalid: -1 (automatic) or a Vulkan device index",
        device_index);
    return NULL;
  }

  if (!gpufft_vk_load (error))
    return NULL;

  g_mutex_lock (&registry_lock);

  if (device_index >= 0) {
    ctx = registry_lookup (device_index);
  } else if ((any = registry_any ()) != NULL) {
    /* Resolve "automatic" with an existing instance: no new instance. */
    if (gpufft_instance_pick_device (any->instance, -1, device_load, &phys,
            &index, NULL))
      ctx = registry_lookup (index);
  }
  if (ctx != NULL) {
    g_atomic_int_inc (&ctx->ref_count);
    g_mutex_unlock (&registry_lock);
    return ctx;
  }

  t1 = g_get_monotonic_time ();
  g_rec_mutex_lock (&driver_lock);
  locked = TRUE;
  if (!gpufft_instance_get (&instance, error))
    goto out;
  t2 = g_get_monotonic_time ();
  if (!gpufft_instance_pick_device (instance, device_index, device_load,
          &phys, &index, error))
    goto out;
  t3 = g_get_monotonic_time ();
  ctx = registry_lookup (index);
  if (ctx != NULL) {
    g_atomic_int_inc (&ctx->ref_count);
    goto out;
  }
  ctx = context_new (instance, phys, index, error);
  if (ctx != NULL) {
    g_debug ("Vulkan device %d opened in %.1f ms: loader %.1f, instance "
        "%.1f, enumeration %.1f, device %.1f", index,
        (g_get_monotonic_time () - t0) / 1e3, (t1 - t0) / 1e3,
        (t2 - t1) / 1e3, (t3 - t2) / 1e3, (g_get_monotonic_time () - t3) / 1e3);
    if (registry == NULL)
      registry = g_hash_table_new (g_direct_hash, g_direct_equal);
    g_hash_table_insert (registry, GINT_TO_POINTER (index), ctx);
  }

out:
  if (locked)
    g_rec_mutex_unlock (&driver_lock);
  g_mutex_unlock (&registry_lock);
  return ctx;
}

GpufftContext *
gpufft_context_ref (GpufftContext * ctx)
{
  g_return_val_if_fail (ctx != NULL, NULL);

  g_atomic_int_inc (&ctx->ref_count);
  return ctx;
}

void
gpufft_context_unref (GpufftContext * ctx)
{
  if (ctx == NULL)
    return;

  /* Out of the registry under its lock, so that a concurrent get() never
   * hands out a context whose last reference is being dropped; destroyed
   * after (it joins the scheduler's threads: other elements' starts and
   * stops must not wait for that). */
  g_mutex_lock (&registry_lock);
  if (!g_atomic_int_dec_and_test (&ctx->ref_count)) {
    g_mutex_unlock (&registry_lock);
    return;
  }
  registry_forget (ctx);
  g_mutex_unlock (&registry_lock);
  context_destroy (ctx);
}

void
gpufft_context_set_lost (GpufftContext * ctx)
{
  if (!g_atomic_int_compare_and_exchange (&ctx->lost, 0, 1))
    return;
  /* the next gpufft_context_get() makes a new context for the device */
  g_mutex_lock (&registry_lock);
  registry_forget (ctx);
  g_mutex_unlock (&registry_lock);
}

const gchar *
gpufft_context_get_device_name (GpufftContext * ctx)
{
  g_return_val_if_fail (ctx != NULL, NULL);
  return ctx->device_name;
}

gint
gpufft_context_get_device_index (GpufftContext * ctx)
{
  g_return_val_if_fail (ctx != NULL, -1);
  return ctx->device_index;
}

gboolean
gpufft_context_is_cpu (GpufftContext * ctx)
{
  g_return_val_if_fail (ctx != NULL, FALSE);
  return ctx->props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
}

gchar **
gpufft_list_devices (GError ** error)
{
  VkInstance instance = VK_NULL_HANDLE;
  VkPhysicalDevice *devs = NULL;
  VkPhysicalDeviceProperties props;
  gchar **names = NULL;
  guint32 n = 0, i;

  if (!gpufft_vk_load (error))
    return NULL;
  g_mutex_lock (&registry_lock);
  g_rec_mutex_lock (&driver_lock);
  if (!gpufft_instance_get (&instance, error))
    goto out;
  if (!gpufft_instance_devices (instance, &devs, &n, error))
    goto out;

  names = g_new0 (gchar *, n + 1);
  for (i = 0; i < n; i++) {
    vkGetPhysicalDeviceProperties (devs[i], &props);
    names[i] = g_strdup (props.deviceName);
  }

out:
  g_free (devs);
  g_rec_mutex_unlock (&driver_lock);
  g_mutex_unlock (&registry_lock);
  return names;
}

gboolean
gpufft_context_submit (GpufftContext * ctx, VkCommandBuffer cmd,
    VkFence fence, GError ** error)
{
  VkSubmitInfo info = {
    .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
    .commandBufferCount = 1,
    .pCommandBuffers = &cmd,
  };
  VkResult res;
  GpufftContextStats st = { 0 };
  gint64 t0;

  g_mutex_lock (&ctx->queue_lock);
  t0 = g_get_monotonic_time ();
  res = vkQueueSubmit (ctx->queue, 1, &info, fence);
  st.submit_ns = (guint64) (g_get_monotonic_time () - t0) * 1000;
  g_mutex_unlock (&ctx->queue_lock);
  gpufft_context_add_stats (ctx, &st);
  return gpufft_vk_check (res, "vkQueueSubmit", error);
}

gint
gpufft_context_find_memory_type (GpufftContext * ctx, guint32 type_bits,
    VkMemoryPropertyFlags required, VkMemoryPropertyFlags preferred)
{
  const VkPhysicalDeviceMemoryProperties *mp = &ctx->mem_props;
  gint fallback = -1;
  guint32 i;

  for (i = 0; i < mp->memoryTypeCount && i < 32; i++) {
    VkMemoryPropertyFlags f = mp->memoryTypes[i].propertyFlags;

    if (!(type_bits & (1u << i)) || (f & required) != required)
      continue;
    if ((f & preferred) == preferred)
      return i;
    if (fallback < 0)
      fallback = i;
  }
  return fallback;
}

gpointer
gpufft_context_service (GpufftContext * ctx, GpufftService id,
    GpufftServiceNew make, GDestroyNotify destroy, gconstpointer data,
    GError ** error)
{
  gpointer service;

  g_rec_mutex_lock (&ctx->service_lock);
  if (ctx->services[id] == NULL) {
    ctx->services[id] = make (ctx, data, error);
    ctx->service_destroy[id] = destroy;
  }
  service = ctx->services[id];
  g_rec_mutex_unlock (&ctx->service_lock);
  return service;
}

/* set in every worker thread (gpufft_context_in_worker) */
static GPrivate in_worker;

void
gpufft_context_enter_worker (void)
{
  g_private_set (&in_worker, GINT_TO_POINTER (1));
}

gboolean
gpufft_context_in_worker (void)
{
  return g_private_get (&in_worker) != NULL;
}

void
gpufft_context_add_stats (GpufftContext * ctx, const GpufftContextStats * d)
{
  GpufftContextStats *s = &ctx->stats;

  g_mutex_lock (&ctx->stats_lock);
  s->submissions += d->submissions;
  s->batches += d->batches;
  s->max_batches = MAX (s->max_batches, d->max_batches);
  s->record_ns += d->record_ns;
  s->submit_ns += d->submit_ns;
  s->wait_ns += d->wait_ns;
  s->gpu_ns += d->gpu_ns;
  s->deliver_ns += d->deliver_ns;
  s->copied_bytes += d->copied_bytes;
  s->imported_bytes += d->imported_bytes;
  s->reused_submissions += d->reused_submissions;
  s->host_memory_bytes += d->host_memory_bytes;
  s->plans += d->plans;
  s->plan_ns += d->plan_ns;
  s->plans_freed += d->plans_freed;
  s->shared_batches += d->shared_batches;
  s->shared_dispatches += d->shared_dispatches;
  g_mutex_unlock (&ctx->stats_lock);
}

void
gpufft_context_get_stats (GpufftContext * ctx, GpufftContextStats * stats)
{
  g_mutex_lock (&ctx->stats_lock);
  *stats = ctx->stats;
  g_mutex_unlock (&ctx->stats_lock);
}
