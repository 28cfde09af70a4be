/* Pipelines compiled before their first real dispatch, on CPU devices.
 *
 * lavapipe (Mesa's CPU Vulkan driver) turns a compute pipeline into
 * machine code (LLVM) at its first dispatch, not in
 * vkCreateComputePipelines (without Mesa's shader disk cache, long enough
 * to delay a live stream: docs/performance.md, "Figures behind engine
 * choices"). gpufft_warmup_pipeline() records a dispatch of no workgroup
 * with the pipeline and waits for it,
 * so that the compilation happens where the pipeline is made (with the
 * plan, counted in device-plan-ns), not in the stream. It does nothing on
 * other devices (their drivers compile in vkCreateComputePipelines). */
#ifndef __GPUFFT_WARMUP_H__
#define __GPUFFT_WARMUP_H__

#include "gpufft-pipeline.h"

G_BEGIN_DECLS

gboolean gpufft_warmup_pipeline (GpufftContext * ctx,
    const GpufftPipeline * p, GError ** error);

G_END_DECLS

#endif
