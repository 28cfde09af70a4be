/* Descriptor pools and the sets of a pipeline's bindings: see
 * gpufft-descriptor-pool.h. */
#include <string.h>

#include "gpufft-descriptor-pool.h"
#include "gpufft-vk-error.h"

gboolean
gpufft_descriptor_pool_init (GpufftDescriptorPool * dp, GpufftContext * ctx,
    guint max_sets, guint max_buffers, GError ** error)
{
  VkDescriptorPoolSize sizes[2] = {
    {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
        MAX (max_sets, 1) * MAX (max_buffers, 1)},
    {VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER,
        MAX (max_sets, 1) * MAX (max_buffers, 1)},
  };
  VkDescriptorPoolCreateInfo info = {
    .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
    .maxSets = MAX (max_sets, 1),
    .poolSizeCount = 2,
    .pPoolSizes = sizes,
  };
  VkResult res;

  dp->pool = VK_NULL_HANDLE;
  res = vkCreateDescriptorPool (ctx->device, &info, NULL, &dp->pool);
  if (!gpufft_vk_check (res, "vkCreateDescriptorPool", error)) {
    dp->pool = VK_NULL_HANDLE;
    return FALSE;
  }
  return TRUE;
}

gboolean
gpufft_descriptor_pool_alloc (GpufftDescriptorPool * dp,
    GpufftContext * ctx, const GpufftPipeline * p,
    GpufftBuffer * const *buffers, VkDescriptorSet * out, GError ** error)
{
  VkDescriptorSetAllocateInfo ainfo = {
    .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
    .descriptorPool = dp->pool,
    .descriptorSetCount = 1,
    .pSetLayouts = &p->set_layout,
  };
  VkDescriptorBufferInfo *infos;
  VkBufferView *views;
  VkWriteDescriptorSet *writes;
  VkDescriptorSet set = VK_NULL_HANDLE;
  VkResult res;
  guint i;

  *out = VK_NULL_HANDLE;
  for (i = 0; i < p->n_buffers; i++) {
    if (p->kinds[i] != GPUFFT_BIND_STORAGE) {
      if (buffers[i]->views[p->kinds[i] - 1] == VK_NULL_HANDLE) {
        g_set_error (error, GPUFFT_ERROR, GPUFFT_ERROR_UNSUPPORTED,
            "binding %u reads a buffer as texels, but the buffer has no "
            "such view", i);
        return FALSE;
      }
      continue;
    }
    if (buffers[i]->size > ctx->props.limits.maxStorageBufferRange) {
      g_set_error (error, GPUFFT_ERROR, GPUFFT_ERROR_UNSUPPORTED,
          "storage buffer of %" G_GUINT64_FORMAT " bytes exceeds the "
          "device's maxStorageBufferRange of %u bytes",
          (guint64) buffers[i]->size,
          ctx->props.limits.maxStorageBufferRange);
      return FALSE;
    }
  }
  res = vkAllocateDescriptorSets (ctx->device, &ainfo, &set);
  if (!gpufft_vk_check (res, "vkAllocateDescriptorSets", error))
    return FALSE;

  if (p->n_buffers > 0) {
    infos = g_new0 (VkDescriptorBufferInfo, p->n_buffers);
    views = g_new0 (VkBufferView, p->n_buffers);
    writes = g_new0 (VkWriteDescriptorSet, p->n_buffers);
    for (i = 0; i < p->n_buffers; i++) {
      writes[i].sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
      writes[i].dstSet = set;
      writes[i].dstBinding = i;
      writes[i].descriptorCount = 1;
      if (p->kinds[i] == GPUFFT_BIND_STORAGE) {
        infos[i].buffer = buffers[i]->buffer;
        infos[i].offset = 0;
        infos[i].range = buffers[i]->size;
        writes[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
        writes[i].pBufferInfo = &infos[i];
      } else {
        views[i] = buffers[i]->views[p->kinds[i] - 1];
        writes[i].descriptorType = VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER;
        writes[i].pTexelBufferView = &views[i];
      }
    }
    vkUpdateDescriptorSets (ctx->device, p->n_buffers, writes, 0, NULL);
    g_free (writes);
    g_free (views);
    g_free (infos);
  }
  *out = set;
  return TRUE;
}

void
gpufft_descriptor_pool_clear (GpufftDescriptorPool * dp, GpufftContext * ctx)
{
  if (dp->pool != VK_NULL_HANDLE
      && !gpufft_context_keep (ctx, VK_OBJECT_TYPE_DESCRIPTOR_POOL,
          GPUFFT_VK_TO_U64 (dp->pool)))
    vkDestroyDescriptorPool (ctx->device, dp->pool, NULL);
  dp->pool = VK_NULL_HANDLE;
}
