/* gpuloudness: the host's half of the measurement (BS.1770-4, EBU R128,
 * EBU Tech 3341 and 3342), from the device's 10 ms blocks.
 *
 * The device hands, per block of 10 ms (block_frames frames) and per
 * channel, the sum of the K-weighted signal's squares and the block's
 * sample and true peaks (gpufft-loudness.h). Here:
 *   block power    z = sum_c G_c e_c / block_frames (G_c: channel weights)
 *   momentary      the mean z of the last 40 blocks (400 ms), short-term
 *                  of the last 300 (3 s), after every block (so the largest
 *                  of them, max-momentary and max-shortterm, are those of
 *                  windows 10 ms apart, as EBU Tech 3341's cases 10 to 14
 *                  need); blocks before the start count as silence (as
 *                  libebur128's zeroed history)
 *   loudness       L = -0.691 + 10 log10 (mean z) LUFS (-inf for 0)
 *   integrated     the 400 ms blocks every 100 ms (75 % overlap) from
 *                  400 ms on; those at or above -70 LUFS (absolute
 *                  gate), then those at or above their mean - 10 LU
 *                  (relative gate, the `relative-threshold`): the
 *                  loudness of the mean of what passes; -inf when nothing
 *                  does (relative-threshold -70 then)
 *   loudness range the 3 s blocks every 100 ms (10 Hz, EBU Tech 3342) from
 *                  3 s on; absolute gate -70 LUFS, relative
 *                  gate -20 LU below their mean; the 95th minus the 10th
 *                  percentile (sorted, index round ((n - 1) p)), 0 when
 *                  nothing passes
 *   peaks          per channel, the largest since the start (linear)
 * The gated blocks are kept in histograms of 0.01 LU from -70 to +30 LUFS
 * (each bin with its count and the sum of its blocks' powers): memory
 * stays 320 kB (two of 160 kB) whatever the stream's length. The integrated loudness uses
 * the blocks' own powers; a bin counts as above a relative gate when its
 * centre is; percentiles read bin centres (0.005 LU).
 *
 * No GStreamer type; not thread-safe (the element locks around it). */
#ifndef __GST_GPU_LOUDNESS_METER_H__
#define __GST_GPU_LOUDNESS_METER_H__

#include <glib.h>

G_BEGIN_DECLS typedef struct _GstGpuLoudnessMeter GstGpuLoudnessMeter;

/* weights: [channels], G_c (0: the channel is left out) */
GstGpuLoudnessMeter *gst_gpu_loudness_meter_new (guint channels,
    const gdouble * weights, guint block_frames);
void gst_gpu_loudness_meter_free (GstGpuLoudnessMeter * m);
void gst_gpu_loudness_meter_reset (GstGpuLoudnessMeter * m);

/* One 10 ms block: values[channels][4] = energy, sample peak, true peak, 0 */
void gst_gpu_loudness_meter_add_block (GstGpuLoudnessMeter * m,
    const gfloat * values);

guint64 gst_gpu_loudness_meter_blocks (GstGpuLoudnessMeter * m);

gdouble gst_gpu_loudness_meter_momentary (GstGpuLoudnessMeter * m);
gdouble gst_gpu_loudness_meter_shortterm (GstGpuLoudnessMeter * m);
/* the largest momentary and short-term loudness since the start, of
 * complete windows (-inf before the first) */
gdouble gst_gpu_loudness_meter_max_momentary (GstGpuLoudnessMeter * m);
gdouble gst_gpu_loudness_meter_max_shortterm (GstGpuLoudnessMeter * m);
gdouble gst_gpu_loudness_meter_integrated (GstGpuLoudnessMeter * m,
    gdouble * relative_threshold);
gdouble gst_gpu_loudness_meter_range (GstGpuLoudnessMeter * m);
gdouble gst_gpu_loudness_meter_sample_peak (GstGpuLoudnessMeter * m,
    guint channel);
gdouble gst_gpu_loudness_meter_true_peak (GstGpuLoudnessMeter * m,
    guint channel);

/* L = -0.691 + 10 log10 (power), -inf for 0 */
gdouble gst_gpu_loudness_lufs (gdouble power);

G_END_DECLS
#endif /* __GST_GPU_LOUDNESS_METER_H__ */
