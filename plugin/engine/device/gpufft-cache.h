/* The per-device cache: objects every plan and renderer of a context uses.
 * They are immutable once made, so one copy serves every element with the
 * same geometry.
 *
 *   pipelines   keyed by (SPIR-V module, bindings and their kinds, push
 *               size, specialization constants)
 *   constants   device buffers of the periodic window (window, N), of
 *               the twiddles e^{-2 pi i m / N} (N) and of Bluestein's
 *               chirp (M), filled once, with their texel views
 *               (GPUFFT_VIEW_F32X4 of the window, F32X2 of the twiddles)
 *               where the device can make them
 *
 * Made on first request, outside the cache's lock (two elements asking at
 * once for one object make it once: the second waits; a request for
 * another object goes on meanwhile). Each request takes a reference, which
 * its taker gives back with gpufft_cache_release() once nothing it
 * recorded can use the object any more (a plan or renderer: where its own
 * Vulkan objects are destroyed, after its last work on the device). An
 * object in use is never destroyed. An unused one stays (a new element of
 * a known geometry then costs no pipeline compilation and no GPU round
 * trip) while the unused objects' bytes stay within the limit:
 * GPUFFT_CACHE_MAX_BYTES (environment, bytes, read when the context's
 * cache is made), else GPUFFT_CACHE_MAX_BYTES_DEFAULT; beyond it the least
 * recently released unused objects are destroyed. A buffer counts for its
 * size in device memory, a pipeline for GPUFFT_CACHE_PIPELINE_BYTES. The
 * objects in use are bounded by the live plans and renderers; what is left
 * is destroyed with the context (the cache is the context's service
 * GPUFFT_SERVICE_CACHE).
 *
 * Thread-safe (the cache's lock; no object is made or destroyed under
 * it). The returned objects are owned by the cache: never clear them. */
#ifndef __GPUFFT_CACHE_H__
#define __GPUFFT_CACHE_H__

#include "gpufft-pipeline.h"

G_BEGIN_DECLS

/* The limit of the unused objects' bytes: 64 MiB. */
#define GPUFFT_CACHE_MAX_BYTES_DEFAULT (64u << 20)

/* What a pipeline counts for: the host memory one of the engine's
 * pipelines takes on Mesa's lavapipe (its compiled code; about 4.6 MB of
 * resident memory per FFT size of the generic kernel, two pipelines),
 * measured with distinct sizes 20 to 52. A GPU's driver keeps less. */
#define GPUFFT_CACHE_PIPELINE_BYTES (2u << 20)

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

/* Gives back a reference taken by one of the functions above (object:
 * what it returned; NULL: nothing to do). The object may be destroyed
 * from here on. */
void gpufft_cache_release (GpufftContext * ctx, gconstpointer object);

/* A number that identifies the cached object (in use by the caller) among
 * every object the context's cache has made and will make: unlike its
 * address, never that of another object. */
guint64 gpufft_cache_serial (GpufftContext * ctx, gconstpointer object);

/* What the cache holds (for the tests). */
typedef struct
{
  guint entries;                /* made and kept */
  guint unused;                 /* of those, held by no plan or renderer */
  gsize bytes;                  /* of all entries */
  gsize unused_bytes;           /* of the unused ones */
  gsize max_bytes;              /* the limit of unused_bytes */
  guint64 made;                 /* entries made since the context's start */
  guint64 evicted;              /* unused entries destroyed */
} GpufftCacheStats;

void gpufft_cache_stats (GpufftContext * ctx, GpufftCacheStats * stats);

G_END_DECLS

#endif /* __GPUFFT_CACHE_H__ */
