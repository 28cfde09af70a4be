/* The per-device cache: objects every plan and renderer of a context uses.
 * They are immutable once made, so one copy serves every element with the
 * same geometry.
 *
 *   pipelines   keyed by (SPIR-V module, bindings and their kinds, push
 *               size, specialization constants)
 *   constants   device buffers of the periodic window (window, N) and of
 *               the twiddles e^{-2 pi i m / N} (N), filled once, with
 *               their texel views (GPUFFT_VIEW_F32X4 of the window,
 *               F32X2 of the twiddles) where the device can make them
 *
 * Made on first request, outside the cache's lock (two elements asking at
 * once for one object make it once: the second waits; a request for
 * another object goes on meanwhile), and kept until the context is freed
 * (the cache is the context's service GPUFFT_SERVICE_CACHE):
 * the number of distinct geometries a process uses is small, and a new
 * element of a known geometry then costs no pipeline compilation and no
 * GPU round trip. Thread-safe. The returned objects are owned by the
 * context: never clear them. */
#ifndef __GPUFFT_CACHE_H__
#define __GPUFFT_CACHE_H__

#include "gpufft-pipeline.h"

G_BEGIN_DECLS

/* kinds: as gpufft_pipeline_init() (NULL: storage buffers only). */
const GpufftPipeline *gpufft_cache_pipeline (GpufftContext * ctx,
    const guint32 * spirv, gsize spirv_bytes, guint n_buffers,
    const GpufftBindingKind * kinds, guint push_size,
    const guint32 * spec_values, guint n_spec, GError ** error);

/* The window w[0..n) as float (periodic form, gpufft_window_fill()). */
GpufftBuffer *gpufft_cache_window (GpufftContext * ctx, GpufftWindow window,
    guint n, GError ** error);

/* tw[m] = e^{-2 pi i m / n}, m < n, as float pairs. */
GpufftBuffer *gpufft_cache_twiddles (GpufftContext * ctx, guint n,
    GError ** error);

/* Bluestein's chirp and kernel for M points (gpufft-bluestein.h). */
GpufftBuffer *gpufft_cache_chirp (GpufftContext * ctx, guint m,
    GError ** error);

G_END_DECLS

#endif /* __GPUFFT_CACHE_H__ */
