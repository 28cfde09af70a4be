/* gst-gpufft: whether an element's upstream is live, asked once per start
 * (streaming thread, at its first buffer). A live stream never waits for
 * the GPU or a plan being made (its analysis drops whole intervals, or its
 * frames go out as GAP events); one that is not live waits
 * (back-pressure). */
#ifndef __GST_GPU_FFT_LIVE_H__
#define __GST_GPU_FFT_LIVE_H__

#include <gst/gst.h>

G_BEGIN_DECLS

/* TRUE when the LATENCY query on sinkpad's peer says live (FALSE when
 * nobody answers). */
gboolean gst_gpu_fft_upstream_is_live (GstPad * sinkpad);

G_END_DECLS

#endif /* __GST_GPU_FFT_LIVE_H__ */
