/* The device scheduler: one per context, shared by every plan on it.
 *
 * Threads
 *   submit thread      waits for queued slots; takes all of them, records
 *                      one command buffer (each plan's slots in rounds:
 *                      uploads, barrier, FFT kernels, barrier, reduce,
 *                      barrier, downloads, barrier) and submits it with a
 *                      fence. In each round, the slots of plans of one
 *                      geometry share one FFT dispatch (gpufft-merge.h).
 *                      At most N_RECORDS submissions are in flight; while
 *                      they are, newly queued slots wait and join the next
 *                      submission (so the batches grow with load instead
 *                      of the number of submissions). On CPU devices it
 *                      first waits 2 ms after a slot enters an empty
 *                      queue, so that the intervals that live streams
 *                      close together share one submission (each costs
 *                      lavapipe's threads a few hundred microseconds of
 *                      CPU, whatever it carries).
 *   completion thread  waits for the oldest submission's fence (blocking,
 *                      at most GPUFFT_FENCE_TIMEOUT_S), then finishes each
 *                      of its slots in order (gpufft_plan_finish_slot():
 *                      results delivered, slot freed).
 * Neither thread holds the scheduler's lock while recording, waiting or
 * delivering. A failed submission or wait (device lost, hung) becomes the
 * scheduler's sticky error: the slots in flight are finished with it, and
 * later queued slots are finished with it at once.
 *
 * GPUFFT_DEBUG_SLOW_DEVICE_MS (environment, read when the scheduler
 * starts): each submission completes no sooner than that (tests of a device
 * that falls behind); GPUFFT_DEBUG_LATE_START_MS: the submit thread sleeps
 * that long before recording each submission (a device that reads its
 * input late). GPUFFT_CPU_GATHER_US (0..100000) sets the CPU devices' wait
 * (benchmarks; 0: submit at once, as on GPUs).
 *
 * Lifetime: made with the context's first plan, freed with the context
 * (every plan holds a context reference, so nothing is queued by then). */
#ifndef __GPUFFT_SCHEDULER_H__
#define __GPUFFT_SCHEDULER_H__

#include "gpufft-plan-private.h"

G_BEGIN_DECLS

typedef struct _GpufftScheduler GpufftScheduler;

/* The context's scheduler, started on first use (thread-safe). */
GpufftScheduler *gpufft_scheduler_get (GpufftContext * ctx, GError ** error);
/* Finishes what is in flight, stops the threads, frees. */
void gpufft_scheduler_free (GpufftScheduler * sched);

/* The scheduler's shared dispatches (gpufft-merge.h); NULL when they
 * could not be made (every plan then dispatches on its own). */
typedef struct _GpufftMerge GpufftMerge;
GpufftMerge *gpufft_scheduler_merge (GpufftScheduler * sched);

/* Queues a filled slot (state QUEUED) for the next submission. */
void gpufft_scheduler_queue (GpufftScheduler * sched, GpufftSlot * slot);

/* TRUE from a thread of any device's scheduler, this one's or another's
 * (where waiting for a plan's results, freeing a plan or joining a
 * scheduler's threads could wait for itself: two devices' completion
 * threads can run one pipeline's synchronous bus handler, waiting for each
 * other). sched is not used. */
gboolean gpufft_scheduler_in_thread (GpufftScheduler * sched);

/* Counters since the scheduler started (for benchmarks and tests). */
typedef struct
{
  guint64 submissions;          /* command buffers submitted */
  guint64 slots;                /* plan batches they carried */
  guint64 max_slots;            /* most in one submission */
  guint64 record_ns;            /* submit thread: recording + vkQueueSubmit */
  guint64 wait_ns;              /* completion thread: in the fence wait */
  guint64 gpu_ns;               /* device timestamps, first to last (none
                                 * on CPU devices) */
  guint64 finish_ns;            /* completion thread: delivering results */
  guint64 copied_bytes;         /* input copied into staging */
  guint64 imported_bytes;       /* input read in place (gpufft-import.h) */
  guint64 plans;                /* plans made on the device */
  guint64 plan_ns;              /* time spent making them */
  guint64 plans_freed;          /* plans freed */
  guint64 merged_slots;         /* batches whose FFTs ran in a shared
                                 * dispatch (gpufft-merge.h) */
  guint64 merged_dispatches;    /* those shared dispatches */
} GpufftSchedulerStats;

void gpufft_scheduler_get_stats (GpufftScheduler * sched,
    GpufftSchedulerStats * stats);
/* Counts a plan made in ns nanoseconds. */
void gpufft_scheduler_count_plan (GpufftScheduler * sched, guint64 ns);
void gpufft_scheduler_count_plan_freed (GpufftScheduler * sched);

G_END_DECLS

#endif /* __GPUFFT_SCHEDULER_H__ */
