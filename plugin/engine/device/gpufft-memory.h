/* Device memory for the engine's buffers, sub-allocated from large blocks.
 *
 * vkAllocateMemory is slow and, on some drivers, serialised: a plan has
 * dozens of small buffers, and hundreds of elements starting together
 * would wait seconds for each other. So the context keeps, per memory
 * type, blocks of GPUFFT_MEMORY_BLOCK bytes (host-visible ones mapped once,
 * persistently) and hands out aligned ranges of them, first fit; a freed
 * range is merged with its free neighbours. A request larger than a
 * quarter block gets a dedicated allocation. Ranges of host-visible,
 * non-coherent types are aligned and sized to nonCoherentAtomSize, so that
 * flushing or invalidating one never touches another. An emptied block is
 * freed unless it is the last block of its type (kept for the next plan).
 *
 * Once the context is lost (a device declared hung may still run what
 * reads the memory), nothing goes back to the driver before the context's
 * destruction: a freed dedicated allocation is kept as a block that no
 * request takes, and an emptied block is kept.
 *
 * Thread-safe (the context's memory lock). Blocks are freed with the
 * context; every range must be freed first (the GPU done with it). */
#ifndef __GPUFFT_MEMORY_H__
#define __GPUFFT_MEMORY_H__

#include "gpufft-context-private.h"

G_BEGIN_DECLS

#define GPUFFT_MEMORY_BLOCK (32u << 20)

typedef struct _GpufftMemoryBlock GpufftMemoryBlock;

typedef struct
{
  GpufftMemoryBlock *block;     /* NULL: a dedicated allocation */
  VkDeviceMemory memory;
  VkDeviceSize offset;          /* of the range in memory */
  VkDeviceSize size;            /* of the range (aligned) */
  gpointer mapped;              /* the range's first byte, host-visible only */
} GpufftMemoryRange;

/* A range satisfying req, of memory type `type`. */
gboolean gpufft_memory_alloc (GpufftContext * ctx, guint32 type,
    const VkMemoryRequirements * req, GpufftMemoryRange * out,
    GError ** error);
/* Safe on a zeroed range. */
void gpufft_memory_free (GpufftContext * ctx, GpufftMemoryRange * range);

/* Frees the blocks (context destruction). */
void gpufft_memory_clear (GpufftContext * ctx);

G_END_DECLS

#endif /* __GPUFFT_MEMORY_H__ */
