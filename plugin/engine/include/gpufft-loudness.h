/* gst-gpufft engine: loudness blocks on the device (the gpuloudness
 * element's measurements, BS.1770). No GStreamer type.
 *
 * A GpufftLoudness filters every channel of one stream through a cascade
 * of two biquads (the caller gives the coefficients: K weighting) and hands
 * back, per block of block_frames frames and per channel:
 *   energy       the sum over the block of the filter output's squares
 *   sample peak  the largest |x| of the block's input
 *   true peak    the largest |y_p| of the interpolator's phases p <
 *                tp_phases, y_p (f) = sum_k tp_taps[p][k] x[f - k]
 *                (k < GPUFFT_LOUDNESS_TAPS), or at least the sample peak;
 *                the sample peak when tp_phases is 0
 * The filter state and the interpolator's history carry from batch to
 * batch (a stream's samples go on), until a batch with reset: it starts
 * from zero state and zero history, as a new stream.
 *
 * Precision: the filter runs in double where the device has shaderFloat64
 * (energies within 1e-7 of a double reference), else in float (a quiet
 * block just after a loud one, while the high-pass rings, can be 2-3 %
 * off; GPUFFT_LOUDNESS_F32=1 forces it, for tests). Peaks are float.
 *
 * The samples: F32, interleaved (frame f, channel c at f * channels + c),
 * finite (the caller replaces what is not; an IIR filter would carry a NaN
 * for ever). The caller writes a batch's whole blocks into the staging of
 * gpufft_loudness_staging() and submits them. On a GPU the device runs the
 * filter in 64 chunks per block and channel, three passes, through the
 * device scheduler with every plan's work (gpufft.h, "Scheduling"); per
 * block and channel 16 bytes come back. On a CPU device (lavapipe) the
 * engine computes the same on the host, in C, on the submitting thread
 * (a Vulkan submission there only adds thread hand-offs, and a sequential
 * filter fills 1 of 8 SIMD lanes per channel); a third path, one
 * invocation per channel in order (MODE 3), is a kernel too.
 * GPUFFT_LOUDNESS_PATH = host, sequential, chunks or other (chunks on CPU
 * devices, sequential on GPUs) forces a path.
 *
 * Threading: staging, submit, flush and free are called from one thread
 * at a time (the owner); results arrive in submission order on the
 * device's completion thread (GpufftLoudnessFunc), or, on the host path,
 * on the owner's thread before gpufft_loudness_submit() returns. */
#ifndef __GPUFFT_LOUDNESS_H__
#define __GPUFFT_LOUDNESS_H__

#include "gpufft.h"

G_BEGIN_DECLS
#define GPUFFT_LOUDNESS_MAX_CHANNELS 64
#define GPUFFT_LOUDNESS_TAPS 24 /* most interpolator taps per phase */
#define GPUFFT_LOUDNESS_MIN_BLOCK 64    /* fewest frames per block */
    typedef struct
{
  guint channels;               /* 1 .. GPUFFT_LOUDNESS_MAX_CHANNELS */
  guint block_frames;           /* >= GPUFFT_LOUDNESS_MIN_BLOCK */
  guint max_blocks;             /* most blocks per batch, >= 1 */
  /* the cascade: stage i is (b[i][0] + b[i][1] z^-1 + b[i][2] z^-2) /
   * (1 + a[i][1] z^-1 + a[i][2] z^-2); a[i][0] is taken as 1 */
  gdouble b[2][3], a[2][3];
  guint tp_phases;              /* 0, 1, 2 or 4 */
  gdouble tp_taps[4][GPUFFT_LOUDNESS_TAPS];
} GpufftLoudnessConfig;

typedef struct
{
  guint64 tag;                  /* the batch's, from gpufft_loudness_submit */
  guint n_blocks;
  guint channels;
  /* [n_blocks][channels][4]: energy, sample peak, true peak, 0 */
  const gfloat *values;
} GpufftLoudnessResult;

/* Completion thread: a batch's result (error NULL), or its failure (result
 * NULL). The values are valid during the call only. */
typedef void (*GpufftLoudnessFunc) (const GpufftLoudnessResult * result,
    const GError * error, gpointer user_data);

typedef struct _GpufftLoudness GpufftLoudness;

/* Makes the kernels (the driver compiles them the first time in a process
 * without a pipeline-cache file: call it off streaming threads) and every
 * buffer. ctx NULL: no device; the host computes every batch, as on a CPU
 * device (no kernel, nothing compiled: any thread). */
GpufftLoudness *gpufft_loudness_new (GpufftContext * ctx,
    const GpufftLoudnessConfig * config, GpufftLoudnessFunc func,
    gpointer user_data, GError ** error);

/* Never waits for the device (gpufft.h, "Abandoned work"): no result is
 * delivered after it returns (it waits for a delivery under way, the
 * callback's own time, except on the device's completion thread, a
 * synchronous bus handler); batches still in flight are abandoned to a
 * thread of the engine's, which frees the object once the scheduler has
 * finished them (at the latest at their stall deadline). */
void gpufft_loudness_free (GpufftLoudness * lo);

/* A flag of the caller's (read atomically; NULL: none) that cuts the waits
 * of staging, submit and flush short within GPUFFT_CANCEL_POLL_MS of it
 * becoming non-zero (staging and submit fail with GPUFFT_ERROR_CANCELLED,
 * flush returns; the batches in flight go on). Owner's thread; the flag
 * must outlive the object's use. */
void gpufft_loudness_set_cancel (GpufftLoudness * lo, const gint * cancel);

/* Where the next batch's samples go: max_blocks * block_frames frames of
 * channels floats. Waits while every staging slot is in flight (the device
 * is behind; at most until the oldest's stall deadline, or a cancel). NULL with error after a device failure. The memory stays
 * the caller's to read until the batch after next is submitted. */
gfloat *gpufft_loudness_staging (GpufftLoudness * lo, GError ** error);

/* Submits the first n_blocks (1 .. max_blocks) blocks of the staging.
 * FALSE with error after a device failure (nothing queued). */
gboolean gpufft_loudness_submit (GpufftLoudness * lo, guint n_blocks,
    gboolean reset, guint64 tag, GError ** error);

/* Waits until every submitted batch's result was delivered (at most until
 * their stall deadline), or its cancel flag is set. */
void gpufft_loudness_flush (GpufftLoudness * lo);

/* The coefficients of the interpolator for true peak at `rate` Hz, as
 * libebur128 and BS.1770-4 Annex 2 sketch it: 4 phases below 96 kHz, 2
 * below 192 kHz, else 1 (the samples); a 49-tap sinc (48 in the Annex) with
 * a Hann window, split into phases (13 taps a phase at 4, 25 at 2, whose
 * last is 0). Returns the number of phases. */
guint gpufft_loudness_tp_taps (gdouble rate,
    gdouble taps[4][GPUFFT_LOUDNESS_TAPS]);

G_END_DECLS
#endif /* __GPUFFT_LOUDNESS_H__ */
