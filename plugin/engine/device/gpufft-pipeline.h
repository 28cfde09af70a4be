/* A compute pipeline from embedded SPIR-V: n buffers at bindings 0..n-1 of
 * set 0 (storage buffers, or uniform texel buffers read through one of the
 * bound buffer's views), a push-constant block, uint specialization
 * constants. */
#ifndef __GPUFFT_PIPELINE_H__
#define __GPUFFT_PIPELINE_H__

#include "gpufft-buffer.h"

G_BEGIN_DECLS

#define GPUFFT_MAX_BINDINGS 16

/* What a binding is: a storage buffer, or a uniform texel buffer through
 * the bound buffer's view GPUFFT_VIEW_* (kind - 1: gpufft-buffer.h). */
typedef enum
{
  GPUFFT_BIND_STORAGE = 0,
  GPUFFT_BIND_TEXEL_U32,
  GPUFFT_BIND_TEXEL_U32X4,
  GPUFFT_BIND_TEXEL_F32X2,
  GPUFFT_BIND_TEXEL_F32X4
} GpufftBindingKind;

typedef struct
{
  VkShaderModule module;
  VkDescriptorSetLayout set_layout;
  VkPipelineLayout layout;
  VkPipeline pipeline;
  guint n_buffers;
  guint8 kinds[GPUFFT_MAX_BINDINGS];    /* GpufftBindingKind */
  guint push_size;
} GpufftPipeline;

/* kinds[i] is binding i's GpufftBindingKind (NULL: every binding a storage
 * buffer), n_buffers <= GPUFFT_MAX_BINDINGS; spec_values[i] is the value
 * of constant_id i (all 32-bit uint). */
gboolean gpufft_pipeline_init (GpufftPipeline * p, GpufftContext * ctx,
    const guint32 * spirv, gsize spirv_bytes, guint n_buffers,
    const GpufftBindingKind * kinds, guint push_size,
    const guint32 * spec_values, guint n_spec, GError ** error);
void gpufft_pipeline_clear (GpufftPipeline * p, GpufftContext * ctx);

G_END_DECLS

#endif
