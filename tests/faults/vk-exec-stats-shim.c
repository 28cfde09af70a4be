/* A shim for tests, preloaded with LD_PRELOAD (and GPUFFT_VK_INTERPOSE=1,
 * so that the engine takes its functions): a device that offers
 * VK_KHR_pipeline_executable_properties whatever its driver does.
 *
 * vkEnumerateDeviceExtensionProperties adds the extension to the driver's
 * list, vkGetPhysicalDeviceFeatures2 reports pipelineExecutableInfo;
 * vkCreateDevice takes both out of what it passes to the driver, and
 * records whether they were asked for; vkCreateComputePipelines takes
 * VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR out and records which
 * pipelines were created with it; vkGetDeviceProcAddr gives, on a device
 * made with the extension, the shim's vkGetPipelineExecutable*KHR: one
 * executable, "Compute Shader" (subgroup size 32), with the statistics
 *
 *   Register Count     UINT64  42
 *   Local Memory Delta INT64   -8
 *   Shared Memory      UINT64  8192
 *   Uses Barriers      BOOL32  true
 *   Occupancy          FLOAT64 0.75
 *
 * They fail with VK_ERROR_FEATURE_NOT_PRESENT on a device made without
 * the feature, and the statistics with VK_ERROR_UNKNOWN for a pipeline
 * created without the flag (both invalid uses). With
 * VK_EXEC_STATS_SHIM_FAIL set, the statistics fail with
 * VK_ERROR_OUT_OF_HOST_MEMORY (a driver that cannot give them).
 *
 * gpufft_test_stats_shim_state (&ext, &feature, &flagged, &unflagged)
 * (find it with dlsym) tells what the last device was made with, and how
 * many pipelines were created with the flag and without it. At most
 * MAX_PIPELINES pipelines are remembered (the tests make a few). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <vulkan/vulkan.h>

#define MAX_PIPELINES 256
#define EXT VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME
#define FEATURE_STYPE \
  VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int device_ext, device_feature;
static int n_flagged, n_unflagged;
static VkPipeline flagged[MAX_PIPELINES];

void gpufft_test_stats_shim_state (int *ext, int *feature, int *with_flag,
    int *without_flag);

void
gpufft_test_stats_shim_state (int *ext, int *feature, int *with_flag,
    int *without_flag)
{
  pthread_mutex_lock (&lock);
  *ext = device_ext;
  *feature = device_feature;
  *with_flag = n_flagged;
  *without_flag = n_unflagged;
  pthread_mutex_unlock (&lock);
}

/* The loader's own function: next in the global scope, or in libvulkan
 * loaded later by dlopen (the plugin's dependency, outside that scope). */
static void *
real_function (const char *name)
{
  void *f = dlsym (RTLD_NEXT, name);

  if (f == NULL) {
    void *lib = dlopen ("libvulkan.so.1", RTLD_NOW | RTLD_NOLOAD);

    if (lib == NULL)
      lib = dlopen ("libvulkan.so.1", RTLD_NOW);
    if (lib)
      f = dlsym (lib, name);
  }
  return f;
}

VKAPI_ATTR VkResult VKAPI_CALL
vkEnumerateDeviceExtensionProperties (VkPhysicalDevice phys,
    const char *layer, uint32_t * count, VkExtensionProperties * props)
{
  PFN_vkEnumerateDeviceExtensionProperties real =
      (PFN_vkEnumerateDeviceExtensionProperties)
      real_function ("vkEnumerateDeviceExtensionProperties");
  VkExtensionProperties *all;
  uint32_t n = 0, i;
  VkResult res;

  if (layer != NULL)
    return real (phys, layer, count, props);
  res = real (phys, NULL, &n, NULL);
  if (res != VK_SUCCESS)
    return res;
  all = calloc (n + 1, sizeof (*all));
  if (all == NULL)
    return VK_ERROR_OUT_OF_HOST_MEMORY;
  res = real (phys, NULL, &n, all);
  if (res != VK_SUCCESS && res != VK_INCOMPLETE) {
    free (all);
    return res;
  }
  for (i = 0; i < n && strcmp (all[i].extensionName, EXT) != 0; i++);
  if (i == n) {
    strcpy (all[n].extensionName, EXT);
    all[n].specVersion = 1;
    n++;
  }
  res = VK_SUCCESS;
  if (props) {
    if (*count < n)
      res = VK_INCOMPLETE;
    else
      *count = n;
    memcpy (props, all, *count * sizeof (*all));
  } else
    *count = n;
  free (all);
  return res;
}

/* Takes the feature struct out of chain (restored by put_back). */
static VkBaseOutStructure *
take_out (void *chain, VkBaseOutStructure ** before)
{
  VkBaseOutStructure *s = chain;

  for (; s && s->pNext; s = s->pNext)
    if (s->pNext->sType == FEATURE_STYPE) {
      VkBaseOutStructure *f = s->pNext;

      *before = s;
      s->pNext = f->pNext;
      return f;
    }
  return NULL;
}

static void
put_back (VkBaseOutStructure * before, VkBaseOutStructure * f)
{
  if (f)
    before->pNext = f;
}

VKAPI_ATTR void VKAPI_CALL
vkGetPhysicalDeviceFeatures2 (VkPhysicalDevice phys,
    VkPhysicalDeviceFeatures2 * features)
{
  PFN_vkGetPhysicalDeviceFeatures2 real = (PFN_vkGetPhysicalDeviceFeatures2)
      real_function ("vkGetPhysicalDeviceFeatures2");
  VkBaseOutStructure *before = NULL, *f;

  f = take_out (features, &before);
  real (phys, features);
  put_back (before, f);
  if (f)
    ((VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR *)
        f)->pipelineExecutableInfo = VK_TRUE;
}

VKAPI_ATTR VkResult VKAPI_CALL
vkCreateDevice (VkPhysicalDevice phys, const VkDeviceCreateInfo * info,
    const VkAllocationCallbacks * alloc, VkDevice * device)
{
  PFN_vkCreateDevice real = (PFN_vkCreateDevice)
      real_function ("vkCreateDevice");
  VkDeviceCreateInfo copy = *info;
  const char *names[64];
  VkBaseOutStructure head = { 0, (VkBaseOutStructure *) info->pNext };
  VkBaseOutStructure *before = NULL, *f;
  uint32_t i;
  int ext = 0, feature = 0;
  VkResult res;

  if (info->enabledExtensionCount > 64)
    return VK_ERROR_EXTENSION_NOT_PRESENT;
  copy.enabledExtensionCount = 0;
  for (i = 0; i < info->enabledExtensionCount; i++) {
    if (strcmp (info->ppEnabledExtensionNames[i], EXT) == 0)
      ext = 1;
    else
      names[copy.enabledExtensionCount++] = info->ppEnabledExtensionNames[i];
  }
  copy.ppEnabledExtensionNames = copy.enabledExtensionCount ? names : NULL;
  f = take_out (&head, &before);
  if (f)
    feature = ((VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR *)
        f)->pipelineExecutableInfo;
  copy.pNext = head.pNext;
  res = real (phys, &copy, alloc, device);
  /* (the engine's chain as it was) */
  if (before != &head)
    put_back (before, f);
  pthread_mutex_lock (&lock);
  device_ext = ext;
  device_feature = feature;
  pthread_mutex_unlock (&lock);
  return res;
}

VKAPI_ATTR VkResult VKAPI_CALL
vkCreateComputePipelines (VkDevice device, VkPipelineCache cache,
    uint32_t count, const VkComputePipelineCreateInfo * infos,
    const VkAllocationCallbacks * alloc, VkPipeline * pipelines)
{
  PFN_vkCreateComputePipelines real = (PFN_vkCreateComputePipelines)
      real_function ("vkCreateComputePipelines");
  VkComputePipelineCreateInfo *copy = calloc (count ? count : 1,
      sizeof (*copy));
  uint32_t i;
  VkResult res;

  if (copy == NULL)
    return VK_ERROR_OUT_OF_HOST_MEMORY;
  for (i = 0; i < count; i++) {
    copy[i] = infos[i];
    copy[i].flags &= ~VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR;
  }
  res = real (device, cache, count, copy, alloc, pipelines);
  free (copy);
  if (res != VK_SUCCESS)
    return res;
  pthread_mutex_lock (&lock);
  for (i = 0; i < count; i++) {
    if (!(infos[i].flags & VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR))
      n_unflagged++;
    else if (n_flagged < MAX_PIPELINES)
      flagged[n_flagged++] = pipelines[i];
  }
  pthread_mutex_unlock (&lock);
  return res;
}

static VKAPI_ATTR VkResult VKAPI_CALL
get_executable_properties (VkDevice device, const VkPipelineInfoKHR * info,
    uint32_t * count, VkPipelineExecutablePropertiesKHR * props)
{
  int feature;

  pthread_mutex_lock (&lock);
  feature = device_feature;
  pthread_mutex_unlock (&lock);
  if (!feature)
    return VK_ERROR_FEATURE_NOT_PRESENT;
  if (props == NULL) {
    *count = 1;
    return VK_SUCCESS;
  }
  if (*count < 1)
    return VK_INCOMPLETE;
  *count = 1;
  props[0].stages = VK_SHADER_STAGE_COMPUTE_BIT;
  strcpy (props[0].name, "Compute Shader");
  strcpy (props[0].description, "the shim's executable");
  props[0].subgroupSize = 32;
  return VK_SUCCESS;
}

static void
set_stat (VkPipelineExecutableStatisticKHR * s, const char *name,
    VkPipelineExecutableStatisticFormatKHR format)
{
  strcpy (s->name, name);
  strcpy (s->description, name);
  s->format = format;
}

static VKAPI_ATTR VkResult VKAPI_CALL
get_executable_statistics (VkDevice device,
    const VkPipelineExecutableInfoKHR * info, uint32_t * count,
    VkPipelineExecutableStatisticKHR * stats)
{
  VkPipelineExecutableStatisticKHR all[5];
  int i, known = 0;

  pthread_mutex_lock (&lock);
  for (i = 0; i < n_flagged && !known; i++)
    known = flagged[i] == info->pipeline;
  if (!device_feature)
    known = -1;
  pthread_mutex_unlock (&lock);
  if (known < 0)
    return VK_ERROR_FEATURE_NOT_PRESENT;
  if (!known || info->executableIndex != 0)
    return VK_ERROR_UNKNOWN;
  if (getenv ("VK_EXEC_STATS_SHIM_FAIL"))
    return VK_ERROR_OUT_OF_HOST_MEMORY;
  if (stats == NULL) {
    *count = 5;
    return VK_SUCCESS;
  }
  memset (all, 0, sizeof (all));
  set_stat (&all[0], "Register Count",
      VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR);
  all[0].value.u64 = 42;
  set_stat (&all[1], "Local Memory Delta",
      VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR);
  all[1].value.i64 = -8;
  set_stat (&all[2], "Shared Memory",
      VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR);
  all[2].value.u64 = 8192;
  set_stat (&all[3], "Uses Barriers",
      VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR);
  all[3].value.b32 = VK_TRUE;
  set_stat (&all[4], "Occupancy",
      VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_FLOAT64_KHR);
  all[4].value.f64 = 0.75;
  for (i = 0; i < 5 && (uint32_t) i < *count; i++) {
    all[i].sType = stats[i].sType;
    all[i].pNext = stats[i].pNext;
    stats[i] = all[i];
  }
  if (*count < 5)
    return VK_INCOMPLETE;
  *count = 5;
  return VK_SUCCESS;
}

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL
vkGetDeviceProcAddr (VkDevice device, const char *name)
{
  PFN_vkGetDeviceProcAddr real = (PFN_vkGetDeviceProcAddr)
      real_function ("vkGetDeviceProcAddr");
  int ext;

  pthread_mutex_lock (&lock);
  ext = device_ext;
  pthread_mutex_unlock (&lock);
  if (ext && strcmp (name, "vkGetPipelineExecutablePropertiesKHR") == 0)
    return (PFN_vkVoidFunction) get_executable_properties;
  if (ext && strcmp (name, "vkGetPipelineExecutableStatisticsKHR") == 0)
    return (PFN_vkVoidFunction) get_executable_statistics;
  return real (device, name);
}
