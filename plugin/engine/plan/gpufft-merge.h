/* Shared dispatches: the batches of several plans of one geometry run in
 * one FFT dispatch.
 *
 * With many streams, each element's plan queues a small batch (one
 * interval of a few frames) and a submission carries hundreds of them; a
 * dispatch per batch would cost the recording thread and the GPU's
 * launcher far more than the FFTs. So the scheduler hands each round of a
 * submission (gpufft-scheduler.h) to this file (its round hooks), which
 * groups the round's
 * slots by geometry: same FFT pipeline, window, twiddles and kernel
 * parameters (formats, channels, hop, downmix, scaling: the FftParams).
 * A geometry with at least two slots gets one dispatch:
 *
 *   input     each slot's samples are copied (or, for imported memory,
 *             copied by the device) into a region of the merge's input
 *             buffer, at a whole number of frames F0 (frame unit = hop *
 *             channels * bytes per sample), so that frame f of the slot is
 *             frame F0 + f of the shared buffer;
 *   chunks    the slots' chunk tables, concatenated (first frames shifted
 *             by F0) into the record's chunk table at `chunk_base`;
 *   partial   the dispatch writes its partial rows at `partial_base` of
 *             the merge's partial buffer, each slot's rows at its own
 *             offset there (ReduceParams.partial_base), which its plan's
 *             reduce kernel reads through the slot's merged descriptor set.
 *
 * Only the FFT kernel is shared: each plan's reduce kernel (its averaging
 * state, carries and outputs are its own) and its result copies are still
 * recorded per slot. Plans that can share (gpufft_merge_plan_ok()): the
 * fused power-of-two kernel (not four-step, not the generic sizes),
 * interleaved input, no complex output. A slot that does not fit the
 * buffers left in its round, or whose geometry is alone in the round, runs
 * its plan's own dispatch as before.
 *
 * Threading: made and freed with the scheduler; gpufft_merge_partial() is
 * immutable after creation (any thread). Everything else runs on the
 * scheduler's submit thread only. The input and partial buffers are used by
 * one round at a time: the rounds of a submission are separated by
 * barriers, and each submission starts with a barrier after the previous
 * one. The chunk tables and descriptor sets are per record (one per
 * submission in flight), reused only after the record's fence.
 *
 * Jobs: the hooks take work only from a plan's slots, which they know by
 * their job functions (gpufft_plan_slot_job_funcs); every other job (a
 * loudness block's) runs its own phases. This header is what the other
 * users of the scheduler (loudness/) see of the plan layer: the hooks to
 * start the scheduler with; the merge's work on slots is declared in
 * gpufft-plan-private.h. */
#ifndef __GPUFFT_MERGE_H__
#define __GPUFFT_MERGE_H__

#include "gpufft-scheduler.h"
#include "gpufft-buffer.h"

G_BEGIN_DECLS

typedef struct _GpufftMerge GpufftMerge;

/* The scheduler's round hooks (gpufft-scheduler.h): their data is a
 * GpufftMerge (gpufft_scheduler_round_data()), made with the scheduler.
 * round() groups the slots of one round (each plan at most once), sets
 * each merged slot's `merged`, `merge_in`, `merge_offset` and
 * reduce_params.partial_base, and writes the record's chunk table entries;
 * record_upload() copies them into device memory with the round's uploads;
 * record_kernels() records the round's shared dispatches. */
extern const GpufftRoundHooks gpufft_merge_hooks;

/* The buffer the merged slots' partial rows live in (bound at binding 0
 * of each mergeable plan's merged reduce sets). */
GpufftBuffer *gpufft_merge_partial (GpufftMerge * m);

G_END_DECLS
#endif /* __GPUFFT_MERGE_H__ */
