/* GstGpuFftBase: the small store of raw input samples that frames not yet
 * handed to the engine still need (from the next frame start to the end of
 * what was received). Same layout as the input: interleaved, or one plane
 * per channel. Pure memory bookkeeping, no GStreamer object. */
#ifndef __GST_GPU_FFT_STORE_H__
#define __GST_GPU_FFT_STORE_H__

#include <glib.h>

G_BEGIN_DECLS

typedef struct
{
  guint8 *data;
  gsize capacity;               /* samples per channel */
  gsize len;                    /* samples per channel held */
  guint64 start;                /* stream sample of the first one held */
  guint bps;                    /* bytes per sample of one channel */
  guint channels;
  gboolean planar;
} GstGpuFftStore;

void gst_gpu_fft_store_init (GstGpuFftStore * store, guint bps,
    guint channels, gboolean planar);
void gst_gpu_fft_store_clear (GstGpuFftStore * store);

/* Empties the store; the next sample to keep is `start`. */
void gst_gpu_fft_store_reset (GstGpuFftStore * store, guint64 start);

/* End of the samples held (start + len). */
guint64 gst_gpu_fft_store_end (const GstGpuFftStore * store);

/* Interleaved: the address of stream sample `sample` (all channels).
 * Planar: the address of it in plane `channel`. start <= sample < end. */
const guint8 *gst_gpu_fft_store_at (const GstGpuFftStore * store,
    guint channel, guint64 sample);

/* Drops what comes before keep_from, then appends the input samples
 * [buf_start, buf_start + n) from keep_from on; buf_start must be the
 * store's end (or the store empty). planes: 1 pointer (interleaved) or one
 * per channel (planar). */
void gst_gpu_fft_store_keep_and_append (GstGpuFftStore * store,
    guint64 keep_from, guint64 buf_start, const gpointer * planes, gsize n);

G_END_DECLS

#endif /* __GST_GPU_FFT_STORE_H__ */
