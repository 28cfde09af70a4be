/* gst-gpufft: the part of an audio buffer that lies in a segment, for the
 * analysers, which pass every buffer through whole and analyse only what
 * lies in the segment (GstAudioFilter would clip, and so drop, the rest).
 * Pure arithmetic on its arguments; any thread. Units: samples (frames)
 * and GstClockTime nanoseconds. */
#ifndef __GST_GPU_FFT_SEGMENT_H__
#define __GST_GPU_FFT_SEGMENT_H__

#include <gst/gst.h>

G_BEGIN_DECLS

/* The part of a buffer of *n frames at rate (> 0) starting at pts that
 * lies in seg: FALSE when none does; else *skip frames from its start,
 * *n left and *first_pts, the time of the first of them. A segment not in
 * TIME, or a buffer without a valid pts, is whole (*skip 0). A span that
 * runs off the clock's range is saturated and not clipped at its end. */
gboolean gst_gpu_fft_segment_clip (const GstSegment * seg, gint rate,
    GstClockTime pts, gsize * skip, gsize * n, GstClockTime * first_pts);

G_END_DECLS
#endif /* __GST_GPU_FFT_SEGMENT_H__ */
