/* gpufftspectrogram: the colour maps (viridis, magma, inferno from
 * matplotlib's published tables; grayscale). A level v in dB is shown as
 * entry round (255 * clamp ((v - min_db) / (max_db - min_db), 0, 1)).
 * Constant tables: thread-safe. */
#ifndef __GST_GPU_FFT_COLORMAP_H__
#define __GST_GPU_FFT_COLORMAP_H__

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  GST_GPU_FFT_COLORMAP_VIRIDIS,
  GST_GPU_FFT_COLORMAP_MAGMA,
  GST_GPU_FFT_COLORMAP_INFERNO,
  GST_GPU_FFT_COLORMAP_GRAYSCALE
} GstGpuFftColormap;

#define GST_GPU_FFT_COLORMAP_SIZE 256

/* rgb of entry index (0..255; larger is clamped) */
void gst_gpu_fft_colormap_rgb (GstGpuFftColormap map, guint index,
    guint8 rgb[3]);

G_END_DECLS

#endif /* __GST_GPU_FFT_COLORMAP_H__ */
