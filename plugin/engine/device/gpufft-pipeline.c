/* Compute pipelines from embedded SPIR-V: see gpufft-pipeline.h. */
#include <string.h>

#include "gpufft-pipeline.h"
#include "gpufft-pipeline-cache.h"
#include "gpufft-pipeline-stats.h"
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
  res = vkCreateDescriptorSetLayout (ctx->device, &sinfo, NULL, &p->set_layout);
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
  /* (whether it comes from the driver's cache or not) */
  cinfo.flags = gpufft_pipeline_stats_flags (ctx);
  res = vkCreateComputePipelines (ctx->device,
      gpufft_pipeline_cache_get (ctx), 1, &cinfo, NULL, &p->pipeline);
  g_free (entries);
  if (!gpufft_vk_check (res, "vkCreateComputePipelines", error)) {
    p->pipeline = VK_NULL_HANDLE;
    goto fail;
  }

  gpufft_pipeline_stats_print (ctx, p->pipeline, spirv, spirv_bytes,
      spec_values, n_spec);
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
  if (p->pipeline != VK_NULL_HANDLE
      && !gpufft_context_keep (ctx, VK_OBJECT_TYPE_PIPELINE,
          GPUFFT_VK_TO_U64 (p->pipeline)))
    vkDestroyPipeline (ctx->device, p->pipeline, NULL);
  if (p->layout != VK_NULL_HANDLE
      && !gpufft_context_keep (ctx, VK_OBJECT_TYPE_PIPELINE_LAYOUT,
          GPUFFT_VK_TO_U64 (p->layout)))
    vkDestroyPipelineLayout (ctx->device, p->layout, NULL);
  if (p->set_layout != VK_NULL_HANDLE
      && !gpufft_context_keep (ctx, VK_OBJECT_TYPE_DESCRIPTOR_SET_LAYOUT,
          GPUFFT_VK_TO_U64 (p->set_layout)))
    vkDestroyDescriptorSetLayout (ctx->device, p->set_layout, NULL);
  if (p->module != VK_NULL_HANDLE
      && !gpufft_context_keep (ctx, VK_OBJECT_TYPE_SHADER_MODULE,
          GPUFFT_VK_TO_U64 (p->module)))
    vkDestroyShaderModule (ctx->device, p->module, NULL);
  memset (p, 0, sizeof (*p));
}
