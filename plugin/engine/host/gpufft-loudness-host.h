/* Loudness blocks computed on the host, in C: the engine's path on CPU
 * devices (gpufft-loudness.h). On a CPU Vulkan device the kernels run on
 * the same cores, so a submission only adds thread hand-offs and lanes a
 * sequential filter cannot fill; here the caller's thread does the same
 * arithmetic as loudness.comp's MODE 3 (the filter in double, the
 * interpolator in float), batch by batch. No Vulkan.
 *
 * Threading: one thread at a time (the GpufftLoudness's owner). */
#ifndef __GPUFFT_LOUDNESS_HOST_H__
#define __GPUFFT_LOUDNESS_HOST_H__

#include "gpufft-loudness.h"

G_BEGIN_DECLS typedef struct _GpufftLoudnessHost GpufftLoudnessHost;

GpufftLoudnessHost *gpufft_loudness_host_new (const GpufftLoudnessConfig *
    config);
void gpufft_loudness_host_free (GpufftLoudnessHost * host);

/* n_blocks blocks of interleaved samples x -> values[n_blocks][channels][4]
 * (energy, sample peak, true peak, 0); reset: from zero state and history
 * (the first batch always is) */
void gpufft_loudness_host_run (GpufftLoudnessHost * host, const gfloat * x,
    guint n_blocks, gboolean reset, gfloat * values);

G_END_DECLS
#endif /* __GPUFFT_LOUDNESS_HOST_H__ */
