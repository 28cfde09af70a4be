/* gst-gpufft: the part of an audio buffer that lies in a segment (see
 * gstgpufftsegment.h). */
#include "gstgpufftsegment.h"

gboolean
gst_gpu_fft_segment_clip (const GstSegment * seg, gint rate,
    GstClockTime pts, gsize * skip, gsize * n, GstClockTime * first_pts)
{
  guint64 start, stop, cstart, cstop, first, end;
  gboolean off_clock;

  *skip = 0;
  *first_pts = pts;
  if (seg->format != GST_FORMAT_TIME || !GST_CLOCK_TIME_IS_VALID (pts)
      || rate <= 0)
    return TRUE;
  start = pts;
  stop = gst_util_uint64_scale_int_round (*n, GST_SECOND, rate);
  off_clock = stop >= G_MAXUINT64 - 1 - start;
  stop = off_clock ? G_MAXUINT64 - 1 : start + stop;
  if (!gst_segment_clip (seg, GST_FORMAT_TIME, start, stop, &cstart, &cstop))
    return FALSE;
  first = gst_util_uint64_scale_int_round (cstart - start, rate, GST_SECOND);
  end = off_clock ? *n :
      gst_util_uint64_scale_int_round (cstop - start, rate, GST_SECOND);
  end = MIN (end, *n);
  if (first >= end)
    return FALSE;
  *skip = first;
  *n = end - first;
  *first_pts = start + gst_util_uint64_scale_int_round (first, GST_SECOND,
      rate);
  return TRUE;
}
