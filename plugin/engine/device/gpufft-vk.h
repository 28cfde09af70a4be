/* The Vulkan functions the engine calls, resolved at run time.
 *
 * The engine does not link the Vulkan loader: a plugin that needs a missing
 * library is blacklisted by GStreamer's registry (the element vanishes and
 * stays gone after the library is installed). gpufft_vk_load() opens
 * libvulkan.so.1 (or $GPUFFT_VULKAN_LOADER) with dlopen and fills one
 * pointer per function below; the engine's files call them by their usual
 * names (vkCreateBuffer is gpufft_vkCreateBuffer). Every engine file
 * includes this header (through gpufft-context-private.h) instead of
 * <vulkan/vulkan.h>. With GPUFFT_VK_INTERPOSE set, a definition preloaded
 * into the process (LD_PRELOAD: the tests' fault injection) takes
 * precedence over the loader's.
 *
 * Thread-safe; the pointers never change once loaded. */
#ifndef __GPUFFT_VK_H__
#define __GPUFFT_VK_H__

#ifndef VK_NO_PROTOTYPES
#define VK_NO_PROTOTYPES
#endif
#include <vulkan/vulkan.h>
#include <glib.h>

G_BEGIN_DECLS

#define GPUFFT_VK_FUNCTIONS(F) \
  F (AllocateCommandBuffers) \
  F (AllocateDescriptorSets) \
  F (AllocateMemory) \
  F (BeginCommandBuffer) \
  F (BindBufferMemory) \
  F (CmdBindDescriptorSets) \
  F (CmdBindPipeline) \
  F (CmdCopyBuffer) \
  F (CmdDispatch) \
  F (CmdFillBuffer) \
  F (CmdPipelineBarrier) \
  F (CmdPushConstants) \
  F (CmdResetQueryPool) \
  F (CmdWriteTimestamp) \
  F (CreateBuffer) \
  F (CreateBufferView) \
  F (CreateCommandPool) \
  F (CreateComputePipelines) \
  F (CreateDescriptorPool) \
  F (CreateDescriptorSetLayout) \
  F (CreateDevice) \
  F (CreateFence) \
  F (CreateInstance) \
  F (CreatePipelineCache) \
  F (CreatePipelineLayout) \
  F (CreateQueryPool) \
  F (CreateShaderModule) \
  F (DestroyBuffer) \
  F (DestroyBufferView) \
  F (DestroyCommandPool) \
  F (DestroyDescriptorPool) \
  F (DestroyDescriptorSetLayout) \
  F (DestroyDevice) \
  F (DestroyFence) \
  F (DestroyInstance) \
  F (DestroyPipeline) \
  F (DestroyPipelineCache) \
  F (DestroyPipelineLayout) \
  F (DestroyQueryPool) \
  F (DestroyShaderModule) \
  F (DeviceWaitIdle) \
  F (EndCommandBuffer) \
  F (EnumerateDeviceExtensionProperties) \
  F (EnumeratePhysicalDevices) \
  F (FlushMappedMemoryRanges) \
  F (FreeMemory) \
  F (GetBufferMemoryRequirements) \
  F (GetDeviceProcAddr) \
  F (GetPipelineCacheData) \
  F (GetDeviceQueue) \
  F (GetPhysicalDeviceFeatures2) \
  F (GetPhysicalDeviceFormatProperties) \
  F (GetPhysicalDeviceMemoryProperties) \
  F (GetPhysicalDeviceProperties) \
  F (GetPhysicalDeviceProperties2) \
  F (GetPhysicalDeviceQueueFamilyProperties) \
  F (GetQueryPoolResults) \
  F (InvalidateMappedMemoryRanges) \
  F (MapMemory) \
  F (QueueSubmit) \
  F (ResetCommandBuffer) \
  F (ResetFences) \
  F (UnmapMemory) \
  F (UpdateDescriptorSets) \
  F (WaitForFences)

#define GPUFFT_VK_DECLARE(name) extern PFN_vk##name gpufft_vk##name;
GPUFFT_VK_FUNCTIONS (GPUFFT_VK_DECLARE)
#undef GPUFFT_VK_DECLARE

#define vkAllocateCommandBuffers gpufft_vkAllocateCommandBuffers
#define vkAllocateDescriptorSets gpufft_vkAllocateDescriptorSets
#define vkAllocateMemory gpufft_vkAllocateMemory
#define vkBeginCommandBuffer gpufft_vkBeginCommandBuffer
#define vkBindBufferMemory gpufft_vkBindBufferMemory
#define vkCmdBindDescriptorSets gpufft_vkCmdBindDescriptorSets
#define vkCmdBindPipeline gpufft_vkCmdBindPipeline
#define vkCmdCopyBuffer gpufft_vkCmdCopyBuffer
#define vkCmdDispatch gpufft_vkCmdDispatch
#define vkCmdFillBuffer gpufft_vkCmdFillBuffer
#define vkCmdPipelineBarrier gpufft_vkCmdPipelineBarrier
#define vkCmdPushConstants gpufft_vkCmdPushConstants
#define vkCmdResetQueryPool gpufft_vkCmdResetQueryPool
#define vkCmdWriteTimestamp gpufft_vkCmdWriteTimestamp
#define vkCreateBuffer gpufft_vkCreateBuffer
#define vkCreateBufferView gpufft_vkCreateBufferView
#define vkCreateCommandPool gpufft_vkCreateCommandPool
#define vkCreateComputePipelines gpufft_vkCreateComputePipelines
#define vkCreateDescriptorPool gpufft_vkCreateDescriptorPool
#define vkCreateDescriptorSetLayout gpufft_vkCreateDescriptorSetLayout
#define vkCreateDevice gpufft_vkCreateDevice
#define vkCreateFence gpufft_vkCreateFence
#define vkCreateInstance gpufft_vkCreateInstance
#define vkCreatePipelineCache gpufft_vkCreatePipelineCache
#define vkCreatePipelineLayout gpufft_vkCreatePipelineLayout
#define vkCreateQueryPool gpufft_vkCreateQueryPool
#define vkCreateShaderModule gpufft_vkCreateShaderModule
#define vkDestroyBuffer gpufft_vkDestroyBuffer
#define vkDestroyBufferView gpufft_vkDestroyBufferView
#define vkDestroyCommandPool gpufft_vkDestroyCommandPool
#define vkDestroyDescriptorPool gpufft_vkDestroyDescriptorPool
#define vkDestroyDescriptorSetLayout gpufft_vkDestroyDescriptorSetLayout
#define vkDestroyDevice gpufft_vkDestroyDevice
#define vkDestroyFence gpufft_vkDestroyFence
#define vkDestroyInstance gpufft_vkDestroyInstance
#define vkDestroyPipeline gpufft_vkDestroyPipeline
#define vkDestroyPipelineCache gpufft_vkDestroyPipelineCache
#define vkDestroyPipelineLayout gpufft_vkDestroyPipelineLayout
#define vkDestroyQueryPool gpufft_vkDestroyQueryPool
#define vkDestroyShaderModule gpufft_vkDestroyShaderModule
#define vkDeviceWaitIdle gpufft_vkDeviceWaitIdle
#define vkEndCommandBuffer gpufft_vkEndCommandBuffer
#define vkEnumerateDeviceExtensionProperties gpufft_vkEnumerateDeviceExtensionProperties
#define vkEnumeratePhysicalDevices gpufft_vkEnumeratePhysicalDevices
#define vkFlushMappedMemoryRanges gpufft_vkFlushMappedMemoryRanges
#define vkFreeMemory gpufft_vkFreeMemory
#define vkGetBufferMemoryRequirements gpufft_vkGetBufferMemoryRequirements
#define vkGetDeviceProcAddr gpufft_vkGetDeviceProcAddr
#define vkGetPipelineCacheData gpufft_vkGetPipelineCacheData
#define vkGetDeviceQueue gpufft_vkGetDeviceQueue
#define vkGetPhysicalDeviceFeatures2 gpufft_vkGetPhysicalDeviceFeatures2
#define vkGetPhysicalDeviceFormatProperties gpufft_vkGetPhysicalDeviceFormatProperties
#define vkGetPhysicalDeviceMemoryProperties gpufft_vkGetPhysicalDeviceMemoryProperties
#define vkGetPhysicalDeviceProperties gpufft_vkGetPhysicalDeviceProperties
#define vkGetPhysicalDeviceProperties2 gpufft_vkGetPhysicalDeviceProperties2
#define vkGetPhysicalDeviceQueueFamilyProperties gpufft_vkGetPhysicalDeviceQueueFamilyProperties
#define vkGetQueryPoolResults gpufft_vkGetQueryPoolResults
#define vkInvalidateMappedMemoryRanges gpufft_vkInvalidateMappedMemoryRanges
#define vkMapMemory gpufft_vkMapMemory
#define vkQueueSubmit gpufft_vkQueueSubmit
#define vkResetCommandBuffer gpufft_vkResetCommandBuffer
#define vkResetFences gpufft_vkResetFences
#define vkUnmapMemory gpufft_vkUnmapMemory
#define vkUpdateDescriptorSets gpufft_vkUpdateDescriptorSets
#define vkWaitForFences gpufft_vkWaitForFences

/* Opens the loader and resolves every function, once per process (a
 * failure is retried at the next call). FALSE with GPUFFT_ERROR_NO_VULKAN
 * when there is no loader. */
gboolean gpufft_vk_load (GError ** error);

G_END_DECLS

#endif /* __GPUFFT_VK_H__ */
