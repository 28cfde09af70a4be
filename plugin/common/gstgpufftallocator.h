/* gst-gpufft: a GstAllocator whose memory the engine's device reads in
 * place (gpufft_host_memory_new(), "Host memory" in gpufft.h).
 *
 * gpufftspectrum offers it upstream in its answer to the ALLOCATION query
 * (when downstream offers no allocator or pool of its own), so that sources,
 * converters and decoders write their audio straight into memory the device
 * copies from with its own copy engine: the element's CPU copy of each
 * sample goes. Any other buffer takes the copy path as before.
 *
 * The memory is ordinary mapped host memory (cached where the device has
 * such): anyone may map it, for reading or writing. Writing needs the
 * memory to be writable, which it is not while the element holds the
 * buffer for the device (it keeps a reference until the device has read
 * it): a downstream element that writes in place gets a copy then, the
 * GstBuffer rules. Copies (gst_memory_copy) are made in this allocator's
 * memory too; shares are sub-memories of the same host memory.
 *
 * When the device's memory cannot be had (a lost device, none left of
 * its kind), alloc gives system memory instead, with a warning.
 *
 * Freed memory is kept for reuse (the allocations of a stream are usually
 * all of one size): up to KEEP_COUNT pieces and KEEP_BYTES bytes, the
 * oldest freed first when over.
 *
 * Threading: all functions from any thread (a mutex guards the kept
 * memory). Ownership: the allocator holds a reference on its engine
 * context, each memory one on the allocator (GstMemory's own). */
#ifndef __GST_GPU_FFT_ALLOCATOR_H__
#define __GST_GPU_FFT_ALLOCATOR_H__

#include <gst/gst.h>

#include "gpufft.h"

G_BEGIN_DECLS

#define GST_GPU_FFT_ALLOCATOR_MEMORY_TYPE "GpufftHostMemory"

#define GST_TYPE_GPU_FFT_ALLOCATOR (gst_gpu_fft_allocator_get_type ())
G_DECLARE_FINAL_TYPE (GstGpuFftAllocator, gst_gpu_fft_allocator, GST,
    GPU_FFT_ALLOCATOR, GstAllocator)

/* A new allocator for the memory of ctx (a reference is taken). */
GstAllocator *gst_gpu_fft_allocator_new (GpufftContext * ctx);

/* The engine's host memory behind mem (its mapping lies in it); NULL when
 * mem is not of a GstGpuFftAllocator. Borrowed: valid while mem is. */
GpufftHostMemory *gst_gpu_fft_allocator_memory_host (GstMemory * mem);

G_END_DECLS

#endif /* __GST_GPU_FFT_ALLOCATOR_H__ */
