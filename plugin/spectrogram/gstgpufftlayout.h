/* gpufftspectrogram: the picture's geometry and everything drawn on the
 * CPU. Pure functions over plain data (GLib only, no GStreamer object, no
 * device): thread-safe.
 *
 * Frequency axis (u = 0 at the bottom row / left pixel, 1 at the top / right)
 *   linear  u = (f - f_lo) / (f_hi - f_lo)
 *   log     u = ln (f / f_lo) / ln (f_hi / f_lo)
 *   mel     u = (mel (f) - mel (f_lo)) / (mel (f_hi) - mel (f_lo)), the
 *           Slaney mel scale of gstgpufftbands.h
 *   octave  positions as log; the values are fractional-octave bands
 *           (IEC 61260-1, gstgpufftbands.h): every row inside a
 *           band shows that band's level
 *   Pixel i of n (row 0 at the bottom) covers u in [i/n, (i+1)/n): a
 *   frequency f is drawn at i = floor (u (f) n) (clamped to n - 1).
 *   A pixel's value (GpufftRenderMap): the largest of the bins whose centre
 *   frequency k rate / N lies in its span; when none does (pixels narrower
 *   than a bin), the bins' dB values interpolated linearly at its centre
 *   frequency. Octave: the band that holds its centre frequency.
 *
 * Layout (axes on; s = the font scale, max (1, min (width, height) / 360))
 *   a title and unit strip at the top, the frequency labels at the left
 *   of the waterfall, time labels below it, the colour bar with its dB
 *   labels at its right; the spectrum panel (frequency across, level up)
 *   with its frequency labels below and dB labels at its left. mode both:
 *   waterfall above (62 % of the height left by the axes), spectrum below.
 *   With axes off (or no room for them) the plots fill the frame.
 *
 * Time labels: stream time of the columns under them, "m:ss" (or
 *   "m:ss.d" when the tick step is below a second, "h:mm:ss" from an
 *   hour). Frequency labels: "500", "31.5", "1k", "2.5k", "20k". */
#ifndef __GST_GPU_FFT_LAYOUT_H__
#define __GST_GPU_FFT_LAYOUT_H__

#include <glib.h>

#include "gpufft-render.h"
#include "gstgpufftcolormap.h"
#include "gstgpufftbands.h"

G_BEGIN_DECLS

typedef enum
{
  GST_GPU_FFT_SPECTROGRAM_MODE_WATERFALL,
  GST_GPU_FFT_SPECTROGRAM_MODE_SPECTRUM,
  GST_GPU_FFT_SPECTROGRAM_MODE_BOTH
} GstGpuFftSpectrogramMode;

typedef enum
{
  GST_GPU_FFT_AXIS_LINEAR,
  GST_GPU_FFT_AXIS_LOG,
  GST_GPU_FFT_AXIS_MEL,
  GST_GPU_FFT_AXIS_OCTAVE
} GstGpuFftAxis;

typedef struct
{
  GstGpuFftAxis axis;
  gdouble f_lo, f_hi;           /* Hz, resolved (f_lo > 0 for log/octave) */
} GstGpuFftFreqAxis;

/* u of f (not clamped) and f of u */
gdouble gst_gpu_fft_layout_axis_u (const GstGpuFftFreqAxis * a, gdouble f);
gdouble gst_gpu_fft_layout_axis_f (const GstGpuFftFreqAxis * a, gdouble u);
/* floor (u (f) n) clamped to 0..n-1 */
guint gst_gpu_fft_layout_axis_pixel (const GstGpuFftFreqAxis * a, gdouble f,
    guint n);

typedef struct
{
  guint width, height;
  guint scale;                  /* font scale; 0 when axes are off */
  gboolean axes;
  GstGpuFftSpectrogramMode mode;
  guint wf_x, wf_y, wf_w, wf_h; /* 0 x 0: none */
  guint sp_x, sp_y, sp_w, sp_h; /* 0 x 0: none */
  guint bar_x, bar_w;           /* colour bar (rows as the waterfall) */
  guint time_y, time_h;         /* the time label strip (redrawn per frame) */
  guint shift[4];               /* output word: bit offsets of r, g, b, a */
  guint32 text;                 /* the labels' colour as an output word */
} GstGpuFftLayout;

/* Computes the rectangles; shift: the output word's bit offsets of r, g,
 * b and alpha (gpufft-render.h). */
void gst_gpu_fft_layout_compute (GstGpuFftLayout * l, guint width,
    guint height, GstGpuFftSpectrogramMode mode, gboolean axes,
    const guint shift[4]);

/* r, g, b as an output word (alpha 255) */
guint32 gst_gpu_fft_layout_pack (const GstGpuFftLayout * l, guint8 r,
    guint8 g, guint8 b);

/* The map for n pixels along the axis: values are bins (bands == NULL,
 * n_bins = N/2 + 1 at rate / N apart) or bands. */
void gst_gpu_fft_layout_map (GpufftRenderMap * map, guint n,
    const GstGpuFftFreqAxis * a, guint fft_size, gdouble rate,
    const GstGpuFftBands * bands);

/* The colour map as 256 output words (gpufft-render.h's LUT). */
void gst_gpu_fft_layout_lut (const GstGpuFftLayout * l, guint32 * lut,
    GstGpuFftColormap map);

/* Draws everything static (title, units, frequency and dB ticks and
 * labels, the colour bar: lut) into the overlay (width x height output
 * words, 0 transparent, cleared first); bands: the octave bands' nominal
 * centres are the ticks. */
void gst_gpu_fft_layout_draw (const GstGpuFftLayout * l, guint32 * overlay,
    const GstGpuFftFreqAxis * a, const GstGpuFftBands * bands,
    gdouble min_db, gdouble max_db, const guint32 * lut, const gchar * title);

/* Redraws the time strip: the newest waterfall column (at the right
 * edge) is at t_newest seconds, columns are dt seconds apart. */
void gst_gpu_fft_layout_draw_time (const GstGpuFftLayout * l,
    guint32 * overlay, gdouble t_newest, gdouble dt);

/* Text helpers (also for tests): label of a frequency, of a time, and the
 * pixel width of a string at scale s. */
gchar *gst_gpu_fft_layout_freq_label (gdouble f);
gchar *gst_gpu_fft_layout_time_label (gdouble t, gdouble step);
guint gst_gpu_fft_layout_text_width (const gchar * text, guint s);

/* The frequency ticks drawn along an axis of n pixels, at least min_gap
 * apart (also for tests): up to max of them into f (Hz) and pixel (from
 * the bottom or left), ascending; returns how many there are. The search
 * is bounded whatever the axis (at most 1024 candidates of each kind). */
guint gst_gpu_fft_layout_freq_ticks (const GstGpuFftFreqAxis * a,
    const GstGpuFftBands * bands, guint n, guint min_gap, gdouble * f,
    guint * pixel, guint max);

#define GST_GPU_FFT_LAYOUT_TEXT_GREY 0xe6       /* labels: (230, 230, 230) */

G_END_DECLS

#endif /* __GST_GPU_FFT_LAYOUT_H__ */
