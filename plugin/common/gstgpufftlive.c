/* gst-gpufft: whether an element's upstream is live (see the header). */
#include "gstgpufftlive.h"

gboolean
gst_gpu_fft_upstream_is_live (GstPad * sinkpad)
{
  GstQuery *q = gst_query_new_latency ();
  gboolean live = FALSE;

  if (gst_pad_peer_query (sinkpad, q))
    gst_query_parse_latency (q, &live, NULL, NULL);
  gst_query_unref (q);
  return live;
}
