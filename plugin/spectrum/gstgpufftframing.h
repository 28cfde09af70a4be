/* GstGpuFftBase: sample, frame and interval bookkeeping.
 *
 * Pure logic, no GStreamer object: it decides which frames go into which
 * GPU batch and which message interval each frame belongs to.
 *
 * Samples are counted from the stream start (or the last restart: DISCONT
 * (gpuspectrum: a cut, gst_gpu_fft_framing_cut, instead),
 * flush, new segment, new caps).
 *
 * Intervals: interval k of a grid covers the samples
 *   [b(k), b(k+1)),  b(k) = origin + round (k * interval_ns * rate / 1e9),
 * or, on a grid with spectrum's steps (gpuspectrum), GStreamer spectrum's
 * own: intervals of F = floor (interval_ns * rate / 1e9) samples (at least
 * 1), one sample longer where the remainders e = (interval_ns * rate) mod
 * 1e9 it carries from interval to interval reach a second, one interval
 * late: b(0) = 0, b(1) = F, b(k) = k F + floor ((k - 2) e / 1e9); after
 * a cut (spectrum's DISCONT) the first interval is as long as the one cut
 * (F or F + 1): first_extra is added to b(k) for k >= 1.
 * Frames: frame j covers [frame_origin + j*hop, frame_origin + j*hop + N);
 * a frame belongs to the interval that holds its last sample.
 *
 * The planner hands out batches of consecutive frames. Each interval that
 * has frames is one engine group; a group stays open across batches until
 * its interval is complete (all its samples received, or a flush). A batch
 * is due when it closes a group or holds max_frames frames; frames of the
 * open interval below that limit stay pending (their samples must be kept
 * by the caller from framing->next_start on).
 *
 * With frames restarting at each interval (gpuspectrum, as spectrum), the
 * frames of interval k start at b(k), every hop, and those that do not fit
 * in it are not analysed; an interval shorter than a frame has one frame,
 * the N samples that end with it (zeros where they reach before the
 * stream's first sample: the batch's `lead`). A batch then holds the
 * frames of consecutive intervals only where they lie on one grid, else
 * one interval.
 *
 * A flush closes the pending interval where the samples end; one that
 * holds samples but no frame (a restart shortly after an interval began,
 * or after the stream began) closes without a group: the plan says so
 * (flushed_empty).
 *
 * A geometry change (N, hop, interval) is a restart: the caller flushes
 * (closing the open interval) and initialises the framing anew.
 */
#ifndef __GST_GPU_FFT_FRAMING_H__
#define __GST_GPU_FFT_FRAMING_H__

#include <glib.h>

G_BEGIN_DECLS

typedef struct
{
  guint64 origin;               /* sample where interval 0 starts */
  guint64 interval_ns;          /* >= 1 */
  guint rate;                   /* Hz, >= 1 */
  gboolean spectrum_steps;      /* GStreamer spectrum's boundaries */
  guint64 steps_f, steps_e;     /* ... its F and e */
  guint64 first_extra;          /* ... samples its first interval has beyond
                                 * F (0 or 1: after a cut, the interval cut
                                 * was one sample longer) */
} GstGpuFftGrid;

/* origin + round (k * interval_ns * rate / 1e9) */
guint64 gst_gpu_fft_framing_grid_boundary (const GstGpuFftGrid * grid,
    guint64 k);

/* The k with b(k) <= sample < b(k+1) (0 for a sample before the origin). */
guint64 gst_gpu_fft_framing_grid_index_of (const GstGpuFftGrid * grid,
    guint64 sample);

typedef struct
{
  guint fft_size;
  guint hop;
  GstGpuFftGrid grid;
  guint64 next_start;           /* first sample of the next frame not batched */
  guint64 cur;                  /* index of the current (open) interval */
  guint cur_frames;             /* frames of `cur` already handed out */
  gboolean restart_frames;      /* frames start anew at each interval */
} GstGpuFftFraming;

typedef struct
{
  guint64 interval;             /* grid index */
  guint64 start;                /* the interval's first sample */
  guint64 end;                  /* its end (exclusive); the samples received
                                 * when a flush closes it early; only
                                 * meaningful when close is TRUE */
  guint n_frames;               /* frames of this group in this batch */
  gboolean close;               /* the interval is complete */
} GstGpuFftBatchGroup;

typedef struct
{
  guint64 span_start;           /* first sample of the batch's first frame
                                 * (after its lead) */
  guint lead;                   /* zeros before span_start in its first
                                 * frame (before the stream's first
                                 * sample); 0 but with restarting frames */
  guint n_frames;
  guint n_groups;
  GstGpuFftBatchGroup *groups;  /* caller's array of max_groups entries */
  gboolean submit;              /* hand this batch to the engine now */
  gboolean closes;              /* at least one group closes */
  gboolean flushed;             /* flush: the pending interval is closed */
  gboolean flushed_empty;       /* ... and it held samples but no frame: it
                                 * gets no message (the caller counts it,
                                 * so that no stretch of the stream goes
                                 * unaccounted) */
} GstGpuFftBatchPlan;

/* Restarts at sample 0: frames from 0, interval grid from 0. */
void gst_gpu_fft_framing_init (GstGpuFftFraming * f, guint fft_size,
    guint hop, guint rate, guint64 interval_ns);

/* GStreamer spectrum's intervals and frames (gpuspectrum), after init:
 * the grid takes spectrum's steps, and the frames restart at each
 * interval. */
void gst_gpu_fft_framing_set_spectrum_steps (GstGpuFftFraming * f);

/* gpuspectrum, as spectrum at a DISCONT, after the pending interval was
 * flushed at sample `at`: the intervals start again at `at` (the grid's
 * origin), the first one first_len samples long (that of the interval the
 * cut fell in: F or F + 1), the others in spectrum's steps from there; the
 * samples go on (a frame of an interval shorter than N reaches back before
 * `at`). Returns the first sample the next frame needs (may lie before
 * `at`; 0 where it would lie before the stream's first sample). */
guint64 gst_gpu_fft_framing_cut (GstGpuFftFraming * f, guint64 at,
    guint64 first_len);

/* Plans the next batch for the samples received so far, [0, avail_end).
 * flush: the stream ends (or restarts) at avail_end: the pending interval
 * closes there. closed_only: the batch hands over closed intervals only
 * (the open interval's frames wait for it to close) unless the open
 * interval's frames alone would fill the batch.
 * Updates the framing as if the batch were submitted when plan->submit;
 * otherwise only skips empty intervals. Returns plan->submit. */
gboolean gst_gpu_fft_framing_next_batch (GstGpuFftFraming * f,
    guint64 avail_end, gboolean flush, gboolean closed_only,
    guint max_frames, guint max_groups, GstGpuFftBatchPlan * plan);

/* Samples a batch of n_frames frames from span_start needs:
 * (n_frames - 1) * hop + fft_size (0 for no frame), its lead included. */
guint64 gst_gpu_fft_framing_span (const GstGpuFftFraming * f,
    guint n_frames);

G_END_DECLS

#endif /* __GST_GPU_FFT_FRAMING_H__ */
