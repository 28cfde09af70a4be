/* The engine's mapped memory, which callers write samples into and the
 * device reads in place: the public GpufftHostMemory (gpufft.h, "Host
 * memory", whose name the elements use); here the engine's side, where a
 * segment in it is found.
 *
 * Threading: any thread; no lock (the memory does not change while it
 * lives). */
#ifndef __GPUFFT_HOST_MEMORY_H__
#define __GPUFFT_HOST_MEMORY_H__

#include "gpufft-context-private.h"

G_BEGIN_DECLS

/* TRUE, with the VkBuffer that holds it and ptr's offset in it, when
 * [ptr, ptr + size) lies in mem. */
gboolean gpufft_host_memory_locate (GpufftHostMemory * mem,
    gconstpointer ptr, gsize size, VkBuffer * buffer, VkDeviceSize * offset);

G_END_DECLS

#endif
