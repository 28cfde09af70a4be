/* Compute pipelines from embedded SPIR-V, and descriptor pools for them. */
#include <string.h>

#include "gpufft-pipeline.h"
#include "gpufft-vk-error.h"

gboolean
gpufft_pipeline_init (GpufftPipeline * p, GpufftContext * ctx,
    const guint32 * spirv, gsize spirv_bytes, guint n_buffers,
    const GpufftBindingKind * kinds, guint push_size,
    const guint32 * spec_values, guint n_spec, GError ** error)
{
  VkShaderModuleCreateInfo minfo = {
    .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
    .codeSize = spirv_bytes,
    .pCode = spirv,
  };
  VkDescriptorSetLayoutBinding *bindings = NULL;
  VkDescriptorSetLayoutCreateInfo sinfo = {
    .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
  };
  VkPushConstantRange push = {
    .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT,
    .offset = 0,
  };
  VkPipelineLayoutCreateInfo linfo = {
    .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
  };
  VkSpecializationMapEntry *entries = NULL;
  VkSpecializationInfo spec = { 0, };
  VkComputePipelineCreateInfo cinfo = {
    .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
    .stage = {
          .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
          .stage = VK_SHADER_STAGE_COMPUTE_BIT,
          .pName = "main",
        },
  };
  VkResult res;
  guint i;

  memset (p, 0, sizeof (*p));

  if (spirv == NULL || spirv_bytes == 0 || spirv_bytes % 4 != 0) {
    g_set_error (error, GPUFFT_ERROR, GPUFFT_ERROR_INVALID_ARGUMENT,
        "invalid SPIR-V module (%" G_GSIZE_FORMAT " bytes)", spirv_bytes);
    return FALSE;
  }
  if (push_size > ctx->props.limits.maxPushConstantsSize) {
    g_set_error (error, GPUFFT_ERROR, GPUFFT_ERROR_UNSUPPORTED,
        "push constants of %u bytes exceed the device limit of %u",
        push_size, ctx->props.limits.maxPushConstantsSize);
    return FALSE;
  }
  if (n_buffers > GPUFFT_MAX_BINDINGS) {
    g_set_error (error, GPUFFT_ERROR, GPUFFT_ERROR_INVALID_ARGUMENT,
        "%u bindings: at most %d", n_buffers, GPUFFT_MAX_BINDINGS);
    return FALSE;
  }
  if (n_buffers > ctx->props.limits.maxPerStageDescriptorStorageBuffers) {
    g_set_error (error, GPUFFT_ERROR, GPUFFT_ERROR_UNSUPPORTED,
        "%u storage buffers exceed the device limit of %u", n_buffers,
        ctx->props.limits.maxPerStageDescriptorStorageBuffers);
    return FALSE;
  }

  res = vkCreateShaderModule (ctx->device, &minfo, NULL, &p->module);
  if (!gpufft_vk_check (res, "vkCreateShaderModule", error)) {
    p->module = VK_NULL_HANDLE;
    goto fail;
  }

  if (n_buffers > 0) {
    bindings = g_new0 (VkDescriptorSetLayoutBinding, n_buffers);
    for (i = 0; i < n_buffers; i++) {
      p->kinds[i] = kinds ? kinds[i] : GPUFFT_BIND_STORAGE;
      bindings[i].binding = i;
      bindings[i].descriptorType = p->kinds[i] == GPUFFT_BIND_STORAGE ?
          VK_DESCRIPTOR_TYPE_STORAGE_BUFFER :
          VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER;
      bindings[i].descriptorCount = 1;
      bindings[i].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
    }
  }
  sinfo.bindingCount = n_buffers;
  sinfo.pBindings = bindings;
  res = vkCreateDescriptorSetLayout (ctx->device, &sinfo, NULL,
      &p->set_layout);
  g_free (bindings);
  if (!gpufft_vk_check (res, "vkCreateDescriptorSetLayout", error)) {
    p->set_layout = VK_NULL_HANDLE;
    goto fail;
  }

  linfo.setLayoutCount = 1;
  linfo.pSetLayouts = &p->set_layout;
  if (push_size > 0) {
    push.size = push_size;
    linfo.pushConstantRangeCount = 1;
    linfo.pPushConstantRanges = &push;
  }
  res = vkCreatePipelineLayout (ctx->device, &linfo, NULL, &p->layout);
  if (!gpufft_vk_check (res, "vkCreatePipelineLayout", error)) {
    p->layout = VK_NULL_HANDLE;
    goto fail;
  }

  if (n_spec > 0) {
    entries = g_new0 (VkSpecializationMapEntry, n_spec);
    for (i = 0; i < n_spec; i++) {
      entries[i].constantID = i;
      entries[i].offset = i * sizeof (guint32);
      entries[i].size = sizeof (guint32);
    }
    spec.mapEntryCount = n_spec;
    spec.pMapEntries = entries;
    spec.dataSize = n_spec * sizeof (guint32);
    spec.pData = spec_values;
    cinfo.stage.pSpecializationInfo = &spec;
  }
  cinfo.stage.module = p->module;
  cinfo.layout = p->layout;
  res = vkCreateComputePipelines (ctx->device, VK_NULL_HANDLE, 1, &cinfo,
      NULL, &p->pipeline);
  g_free (entries);
  if (!gpufft_vk_check (res, "vkCreateComputePipelines", error)) {
    p->pipeline = VK_NULL_HANDLE;
    goto fail;
  }

  p->n_buffers = n_buffers;
  p->push_size = push_size;
  return TRUE;

fail:
  gpufft_pipeline_clear (p, ctx);
  return FALSE;
}

void
gpufft_pipeline_clear (GpufftPipeline * p, GpufftContext * ctx)
{
  if (p->pipeline != VK_NULL_HANDLE)
    vkDestroyPipeline (ctx->device, p->pipeline, NULL);
  if (p->layout != VK_NULL_HANDLE)
    vkDestroyPipelineLayout (ctx->device, p->layout, NULL);
  if (p->set_layout != VK_NULL_HANDLE)
    vkDestroyDescriptorSetLayout (ctx->device, p->set_layout, NULL);
  if (p->module != VK_NULL_HANDLE)
    vkDestroyShaderModule (ctx->device, p->module, NULL);
  memset (p, 0, sizeof (*p));
}

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
  if (dp->pool != VK_NULL_HANDLE)
    vkDestroyDescriptorPool (ctx->device, dp->pool, NULL);
  dp->pool = VK_NULL_HANDLE;
}
