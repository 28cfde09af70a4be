/* A compute pipeline from embedded SPIR-V: n storage buffers at bindings
 * 0..n-1 of set 0, a push-constant block, uint specialization constants. */
#ifndef __GPUFFT_PIPELINE_H__
#define __GPUFFT_PIPELINE_H__

#include "gpufft-buffer.h"

G_BEGIN_DECLS

typedef struct
{
  VkShaderModule module;
  VkDescriptorSetLayout set_layout;
  VkPipelineLayout layout;
  VkPipeline pipeline;
  guint n_buffers;
  guint push_size;
} GpufftPipeline;

/* spec_values[i] is the value of constant_id i (all 32-bit uint). */
gboolean gpufft_pipeline_init (GpufftPipeline * p, GpufftContext * ctx,
    const guint32 * spirv, gsize spirv_bytes, guint n_buffers,
    guint push_size, const guint32 * spec_values, guint n_spec,
    GError ** error);
void gpufft_pipeline_clear (GpufftPipeline * p, GpufftContext * ctx);

/* A descriptor pool sized for max_sets sets of up to max_buffers storage
 * buffers each. */
typedef struct
{
  VkDescriptorPool pool;
} GpufftDescriptorPool;

gboolean gpufft_descriptor_pool_init (GpufftDescriptorPool * dp,
    GpufftContext * ctx, guint max_sets, guint max_buffers, GError ** error);
/* Allocates a set for p and binds buffers[i] (whole buffer) at binding i,
 * i < p->n_buffers. */
gboolean gpufft_descriptor_pool_alloc (GpufftDescriptorPool * dp,
    GpufftContext * ctx, const GpufftPipeline * p,
    GpufftBuffer * const *buffers, VkDescriptorSet * out, GError ** error);
void gpufft_descriptor_pool_clear (GpufftDescriptorPool * dp,
    GpufftContext * ctx);

G_END_DECLS

#endif
