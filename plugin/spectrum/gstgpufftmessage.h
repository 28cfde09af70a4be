/* GstGpuFftBase: building the `spectrum` and `dominant-frequency` message
 * structures from one engine group result. Called without any lock held.
 *
 * spectrum:
 *   timestamp, stream-time, running-time, duration, endtime   guint64 ns
 *   rate (gint), fft-size, hop-size, frames (guint: frames averaged),
 *   frames-left-out (guint, only where some were: frames of the interval
 *   left out of the average for a NaN, an infinite sample, or a finite one
 *   beyond +-2^32, gstgpufftbound.h; the most of any channel), dropped
 *   (guint, only where some were: intervals since the previous message
 *   left unanalysed), channels (gint: rows of
 *   magnitude/phase: 1 when the channels are mixed down), bin-width (double
 *   Hz), window, scaling (nick strings),
 *   magnitude  dB, n_bins = fft-size/2 + 1 values per channel (with a
 *              frequency-scale other than linear: the band values)
 *   frequency-scale, weighting, averaging (nick strings), level (dBFS:
 *   double, multi-channel a GstValueArray by channel)
 *   bands: band-frequencies, band-edges (GstValueArray of double Hz: n + 1
 *   edges for octave and log bands, n + 2 mel points for mel: band m from
 *   edges[m] to edges[m+2]), band-nominal (octave), resolved-from (guint)
 *   message-frames: frame-timestamps (GstValueArray of guint64: each
 *   frame's first sample), frame-magnitude (bytes: [channels][frames]
 *   [values] float32; list: per channel an array of frames of arrays),
 *   frame-level (the same, one value per frame); at most 4096 frames and
 *   2^18 values (frames x channels x (values + 1), at least one frame) a
 *   message: the element shortens a longer interval
 *   (gstgpufftbase-plan.c, frames_interval)
 *   phase      radians of the interval's last frame (when asked and available;
 *              gpuspectrum: the mean of its frames' angles, as spectrum's)
 *   list format: mono GstValueList of float; multi-channel GstValueArray
 *   (channels) of GstValueArray of float. bytes format: GBytes of
 *   little-endian float32, channel-major.
 * dominant-frequency:
 *   the time fields, frequency (double Hz), magnitude (double dB), bin
 *   (double, fractional bin); multi-channel: each a GstValueArray of double
 *   by channel. peaks > 1: peak-frequencies, peak-magnitudes (GstValueArray
 *   of double, loudest first, only the peaks found above threshold; per
 *   channel a nested GstValueArray when multi-channel).
 *   No peak above threshold in range: frequency 0, bin 0, magnitude =
 *   threshold. */
#ifndef __GST_GPU_FFT_MESSAGE_H__
#define __GST_GPU_FFT_MESSAGE_H__

#include <gst/gst.h>
#include "gpufft.h"
#include "gstgpufftanalysis.h"
#include "gstgpufftenums.h"

G_BEGIN_DECLS

typedef struct
{
  GstClockTime timestamp;
  GstClockTime duration;
  GstClockTime stream_time;
  GstClockTime running_time;
  gint rate;
  guint fft_size;
  guint hop;
  GpufftWindow window;
  GpufftScaling scaling;
  gboolean multi_channel;
  GstGpuFftMessageFormat format;
  gboolean magnitude;           /* add `magnitude` */
  gboolean phase;               /* add `phase` (if the result has it) */
  gdouble db_offset;            /* dB = 10 log10 (linear power) + db_offset */
  gdouble threshold;            /* dB: floor, and the level a peak must pass */
  guint min_bin, max_bin;       /* peak search range, inclusive */
  guint n_peaks;                /* peaks to report (>= 1) */
  guint dropped;                /* intervals dropped before this one */
  gboolean dominant;            /* also post dominant-frequency */
  gboolean compat;              /* spectrum's message (gpuspectrum) */
  guint gen;                    /* compat: the settings' reset_gen it was
                                 * measured with */
  gboolean carry;               /* compat: an interval a DISCONT cut: not
                                 * posted, its sums go into the next one */
  gboolean post;                /* compat: FALSE: not posted (post-messages
                                 * off), its result only ends a carry */
  guint restart_gen;            /* compat: the restart it belongs to */
  guint cut_seq;                /* compat: the cuts before it */
  guint64 interval;             /* compat: its index on its grid */
  GstGpuFftAnalysis analysis;   /* the analyser modes it was measured with */
  GstGpuFftBands *bands;        /* owned reference; NULL: linear bins */
  guint64 first_frame;          /* frame_values: index of the interval's
                                 * first frame (frame j starts at sample
                                 * j * hop after base_pts) */
  GstClockTime base_pts;
} GstGpuFftMessageParams;

void gst_gpu_fft_message_params_free (GstGpuFftMessageParams * params);

/* result->power holds dB values (the engine's output_db). */
GstStructure *gst_gpu_fft_message_build_spectrum (const GstGpuFftMessageParams
    * params, const GpufftGroupResult * result);

/* GStreamer's spectrum message, its fields only and in its order:
 * endtime (stream-time + duration), timestamp, stream-time, running-time,
 * duration, magnitude, phase (list format). */
GstStructure *gst_gpu_fft_message_build_compat (const GstGpuFftMessageParams
    * params, const GpufftGroupResult * result);

GstStructure *gst_gpu_fft_message_build_dominant (const GstGpuFftMessageParams
    * params, const GpufftGroupResult * result);

G_END_DECLS

#endif /* __GST_GPU_FFT_MESSAGE_H__ */
