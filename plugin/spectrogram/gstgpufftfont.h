/* gpufftspectrogram: the built-in 5x7 bitmap font (printable ASCII), for
 * the labels the element draws itself (no pango). A glyph is
 * GST_GPU_FFT_FONT_W x GST_GPU_FFT_FONT_H pixels; text advances
 * GST_GPU_FFT_FONT_ADVANCE pixels per character (one blank column). */
#ifndef __GST_GPU_FFT_FONT_H__
#define __GST_GPU_FFT_FONT_H__

#include <glib.h>

G_BEGIN_DECLS

#define GST_GPU_FFT_FONT_W 5
#define GST_GPU_FFT_FONT_H 7
#define GST_GPU_FFT_FONT_ADVANCE 6

/* 7 rows, bit 4 of each the leftmost pixel; characters outside 32..126
 * give '?'. */
const guint8 *gst_gpu_fft_font_glyph (gchar c);

G_END_DECLS

#endif /* __GST_GPU_FFT_FONT_H__ */
