/* The driver's pipeline cache (VkPipelineCache), kept in a file between
 * processes, so that a driver that fills it (NVIDIA's does; lavapipe's
 * holds nothing) skips its compiler for pipelines an earlier run made.
 *
 * File: $GPUFFT_CACHE_DIR, else $XDG_CACHE_HOME/gst-gpufft (GLib's user
 * cache folder), named pipelines-<vendor>-<device>-<driver version>-<the
 * device's pipelineCacheUUID>.vkcache (hexadecimal); GPUFFT_CACHE_DIR set
 * to the empty string keeps no file. Layout, little-endian:
 *
 *   0   "GPUFFTPC"                      8 bytes
 *   8   format version (1)              uint32
 *   12  0                               uint32
 *   16  size of the driver's data       uint64
 *   24  SHA-256 of the driver's data    32 bytes
 *   56  the driver's data (vkGetPipelineCacheData), which starts with its
 *       VkPipelineCacheHeaderVersionOne (vendor, device, pipelineCacheUUID)
 *
 * A file that is truncated, corrupt (its checksum), of another format, or
 * made by another device or driver is ignored (a debug line of the
 * "gpufft" log domain says which and why), as is one the driver refuses:
 * the cache then starts empty. The file is written whole, to a temporary
 * file renamed over the old one (a reader never sees half of it; of two
 * processes writing at once, the last one's stays), after each pipeline
 * the driver made, on the thread that made it (a plan's maker, never a
 * stream's: gpufft-cache.h), and never when nothing new was made.
 *
 * Bounded: the driver's data grow with every distinct pipeline made with
 * the cache (in memory, and in the file). Once they are beyond
 * GPUFFT_PIPELINE_CACHE_MAX_BYTES (environment, bytes; default
 * GPUFFT_PIPELINE_CACHE_MAX_BYTES_DEFAULT), checked after each pipeline the
 * driver made (at the next save), the context makes its pipelines without
 * the cache (gpufft_pipeline_cache_get() returns VK_NULL_HANDLE: the
 * driver's cache stops growing) and no longer writes the file (the one on
 * disk, written while within the limit, stays): a process that makes many
 * geometries keeps the first ones'. A file beyond the limit (written with
 * a larger one) is read all the same.
 *
 * The context's service GPUFFT_SERVICE_PIPELINE_CACHE: loaded on the first
 * pipeline, destroyed with the context. Thread-safe (the driver's cache is
 * internally synchronized; the file is written under a lock of its own). */
#ifndef __GPUFFT_PIPELINE_CACHE_H__
#define __GPUFFT_PIPELINE_CACHE_H__

#include "gpufft-context-private.h"

G_BEGIN_DECLS
/* The limit of the driver's data: 32 MiB (a few hundred of the engine's
 * pipelines on a GPU's driver). */
#define GPUFFT_PIPELINE_CACHE_MAX_BYTES_DEFAULT (32u << 20)
/* The context's VkPipelineCache (loaded from its file on first use), or
 * VK_NULL_HANDLE when the driver could not make one or its data are beyond
 * the limit (pipelines are then made without). */
    VkPipelineCache gpufft_pipeline_cache_get (GpufftContext * ctx);

/* A pipeline was made with the cache (gpufft-cache.c). */
void gpufft_pipeline_cache_made (GpufftContext * ctx);

/* Writes the file if a pipeline was made since it was last written (the
 * end of a plan's or renderer's making). */
void gpufft_pipeline_cache_save (GpufftContext * ctx);

/* The file's path for this context's device and driver (NULL when no file
 * is kept). Free with g_free(). For the tests. */
gchar *gpufft_pipeline_cache_path (GpufftContext * ctx);

G_END_DECLS
#endif /* __GPUFFT_PIPELINE_CACHE_H__ */
