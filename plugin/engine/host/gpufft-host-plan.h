/* The host plan (gpufft_plan_new_host(), gpufft.h): a plan's analysis
 * computed in C on the CPU, with no device and no context, so that an
 * element can analyse its first intervals while its device plan is being
 * made. The plan layer's host backend (plan/gpufft-plan-host.c) makes the
 * GpufftPlan that holds it (the checked configuration, the resolved batch
 * limits) and hands it the public plan functions' work. No Vulkan: this
 * layer (host/) sees util/ and include/ only.
 *
 * What it computes: what reduce.comp and the FFT kernels compute (see
 * gpufft.h), in double where the device computes in float: samples
 * converted as the device converts them (to float first: S32 rounded, F64
 * rounded to nearest even as load.glsl does, its results below the
 * smallest normal float to 0; F32 as it is, denormals too), then
 * in double the window (gpufft_window_fill()), the real FFT of N = 2M
 * points through a complex FFT of M points (gpufft-host-fft.h: radix 2
 * for powers of two, four frame-channels at a time, Bluestein's algorithm
 * through a power-of-two FFT for any other M), the scaled power, sums and
 * means; stored as float, each value saturating at
 * the largest float as the kernels' do. Peaks are searched in the stored
 * (float, gained, linear) group power, as the reduce kernel searches its
 * own. A frame is left out where one of its samples (after conversion) is
 * NaN or infinite; the device judges the same on its float FFT, which also
 * overflows for finite samples near the largest float (the host does not).
 * Results as a device plan delivers them: a left-out frame's row
 * (frames_out) reads zero power (the floor in dB, as reduce.comp writes
 * it); complex_out holds the X_k of the group's last frame, usable or not,
 * also where that frame came in an earlier batch; the rows of a group
 * without frames are an empty array (not NULL), collected or delivered.
 * Units: power as gpufft.h scales it (or dB), phases in radians, counts in
 * frames; rows [channels][n_bins], frame rows [frame][channel][stride].
 * Averaging: MEAN, PEAK_HOLD and MEAN_DB; EXPONENTIAL and MAX_HOLD are
 * refused (GPUFFT_ERROR_UNSUPPORTED: their state carries across groups,
 * which a host plan handed over to a device plan would lose).
 *
 * Threading: new, submit, collect and free on the plan's owner (one thread
 * at a time, as for a device plan: a result function that frees the plan
 * does so only while no submit runs, which may still touch the plan after
 * queueing its slot); set_result_func and in_flight from any thread. One
 * worker thread per plan ("gpufft-host", started by new) computes the
 * batches in submission order and delivers their results: to the result
 * function (no lock held during the call) or into the stash that
 * collect() empties. Called on that worker thread (from a result
 * function), collect does not wait and free returns at once: no result is
 * delivered after it, and the worker frees the plan when it stops.
 *
 * Slots: n_slots (GPUFFT_HOST_PLAN_SLOTS) copies of a batch's span, used
 * round-robin: submit copies the batch's samples (raw bytes, interleaved
 * as they come or as one plane per channel) into the next free slot and
 * queues it; the worker computes it and frees it. A slot's memory grows to
 * the largest span it has held (allocated at submit, not per frame).
 * Segments are always copied: gpufft_plan_submit() calls their release
 * functions once the host plan's submit has returned, whether it succeeded
 * or not. */
#ifndef __GPUFFT_HOST_PLAN_H__
#define __GPUFFT_HOST_PLAN_H__

#include "gpufft.h"

G_BEGIN_DECLS

#define GPUFFT_HOST_PLAN_SLOTS 8

typedef struct _GpufftHostPlan GpufftHostPlan;

/* A host plan of config, which the caller has checked as gpufft_plan_new()
 * checks it (peak_max_bin resolved); the arrays (gains, level weights,
 * bands) are copied. max_frames, max_groups: the resolved batch limits
 * (>= 1). NULL with error set: UNSUPPORTED for EXPONENTIAL and MAX_HOLD
 * averaging, OUT_OF_MEMORY where the tables cannot be allocated, FAILED
 * where no thread can be started. */
GpufftHostPlan *gpufft_host_plan_new (const GpufftPlanConfig * config,
    guint max_frames, guint max_groups, GError ** error);

/* gpufft_plan_set_tag_free() of a host plan: the tags of groups that
 * are never delivered (the slots left when a result function frees the
 * plan, the stash at the free) go to tag_free. */
void gpufft_host_plan_set_tag_free (GpufftHostPlan * host,
    GDestroyNotify tag_free);

/* Waits for the batches in flight (their results delivered), stops and
 * joins the worker and frees everything (stashed results dropped, their
 * tags to tag_free). On the worker thread: returns at once, see above. */
void gpufft_host_plan_free (GpufftHostPlan * host);

/* batch: checked by the caller as a device plan's submit checks it;
 * span: the samples per channel its frames cover ((n_frames - 1) * hop +
 * N, 0 without frames). Copies them into a free slot and queues it; waits
 * for the oldest slot when all are busy (or, for batch->no_wait where
 * neither the batch continues nor leaves open a group, fails with
 * GPUFFT_ERROR_BUSY and changes nothing). Reads the segments only before
 * it returns; releasing them is the caller's. */
gboolean gpufft_host_plan_submit (GpufftHostPlan * host,
    const GpufftBatch * batch, gsize span, GError ** error);

void gpufft_host_plan_set_result_func (GpufftHostPlan * host,
    GpufftResultFunc func, gpointer user_data);

/* As gpufft_plan_collect(); never fails (returns the batches collected). */
gint gpufft_host_plan_collect (GpufftHostPlan * host, gboolean wait,
    GpufftResultFunc func, gpointer user_data);

/* Batches submitted and not yet delivered (with a result function) or
 * collected. */
guint gpufft_host_plan_in_flight (GpufftHostPlan * host);

G_END_DECLS

#endif /* __GPUFFT_HOST_PLAN_H__ */
