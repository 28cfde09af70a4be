/* Descriptor pools, and descriptor sets that bind buffers to a pipeline's
 * bindings (gpufft-pipeline.h). Not thread-safe: each pool has one owner
 * (a plan, the shared dispatches, a renderer, a warm-up) that allocates
 * from it on one thread at a time; its sets are freed with it. */
#ifndef __GPUFFT_DESCRIPTOR_POOL_H__
#define __GPUFFT_DESCRIPTOR_POOL_H__

#include "gpufft-pipeline.h"

G_BEGIN_DECLS

/* A descriptor pool sized for max_sets sets of up to max_buffers buffers
 * each (of either kind). */
typedef struct
{
  VkDescriptorPool pool;
} GpufftDescriptorPool;

gboolean gpufft_descriptor_pool_init (GpufftDescriptorPool * dp,
    GpufftContext * ctx, guint max_sets, guint max_buffers, GError ** error);
/* Allocates a set for p and binds buffers[i] (whole buffer, or its view
 * for a texel binding: an error if the buffer has none) at binding i,
 * i < p->n_buffers. */
gboolean gpufft_descriptor_pool_alloc (GpufftDescriptorPool * dp,
    GpufftContext * ctx, const GpufftPipeline * p,
    GpufftBuffer * const *buffers, VkDescriptorSet * out, GError ** error);
void gpufft_descriptor_pool_clear (GpufftDescriptorPool * dp,
    GpufftContext * ctx);

G_END_DECLS

#endif /* __GPUFFT_DESCRIPTOR_POOL_H__ */
