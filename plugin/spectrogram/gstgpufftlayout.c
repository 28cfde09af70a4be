/* gpufftspectrogram: geometry, pixel maps and the CPU-drawn overlay (see
 * the header). */
#include <math.h>
#include <string.h>

#include "gstgpufftlayout.h"
#include "gstgpufftfont.h"

/* ---- axis --------------------------------------------------------------- */

static gdouble
axis_t (const GstGpuFftFreqAxis * a, gdouble f)
{
  switch (a->axis) {
    case GST_GPU_FFT_AXIS_LOG:
    case GST_GPU_FFT_AXIS_OCTAVE:
      return log (MAX (f, 1e-9));
    case GST_GPU_FFT_AXIS_MEL:
      return gst_gpu_fft_bands_hz_to_mel (GST_GPU_FFT_MEL_SCALE_SLANEY, f);
    default:
      return f;
  }
}

static gdouble
axis_t_inv (const GstGpuFftFreqAxis * a, gdouble t)
{
  switch (a->axis) {
    case GST_GPU_FFT_AXIS_LOG:
    case GST_GPU_FFT_AXIS_OCTAVE:
      return exp (t);
    case GST_GPU_FFT_AXIS_MEL:
      return gst_gpu_fft_bands_mel_to_hz (GST_GPU_FFT_MEL_SCALE_SLANEY, t);
    default:
      return t;
  }
}

gdouble
gst_gpu_fft_layout_axis_u (const GstGpuFftFreqAxis * a, gdouble f)
{
  gdouble t0 = axis_t (a, a->f_lo), t1 = axis_t (a, a->f_hi);

  return (axis_t (a, f) - t0) / (t1 - t0);
}

gdouble
gst_gpu_fft_layout_axis_f (const GstGpuFftFreqAxis * a, gdouble u)
{
  gdouble t0 = axis_t (a, a->f_lo), t1 = axis_t (a, a->f_hi);

  return axis_t_inv (a, t0 + u * (t1 - t0));
}

guint
gst_gpu_fft_layout_axis_pixel (const GstGpuFftFreqAxis * a, gdouble f, guint n)
{
  gdouble p = floor (gst_gpu_fft_layout_axis_u (a, f) * n);

  /* (NaN: an axis narrower than its values' resolution) */
  if (!(p >= 0))
    return 0;
  return (guint) MIN (p, (gdouble) n - 1);
}

/* ---- layout ------------------------------------------------------------- */

guint32
gst_gpu_fft_layout_pack (const GstGpuFftLayout * l, guint8 r, guint8 g,
    guint8 b)
{
  return ((guint32) r << l->shift[0]) | ((guint32) g << l->shift[1]) |
      ((guint32) b << l->shift[2]) | (255u << l->shift[3]);
}

void
gst_gpu_fft_layout_compute (GstGpuFftLayout * l, guint width, guint height,
    GstGpuFftSpectrogramMode mode, gboolean axes, const guint shift[4])
{
  guint s, ch, cw, left, right, top, bottom, avail_h, plot_w;

  memset (l, 0, sizeof (*l));
  memcpy (l->shift, shift, sizeof (l->shift));
  l->text = gst_gpu_fft_layout_pack (l, GST_GPU_FFT_LAYOUT_TEXT_GREY,
      GST_GPU_FFT_LAYOUT_TEXT_GREY, GST_GPU_FFT_LAYOUT_TEXT_GREY);
  l->width = width;
  l->height = height;
  l->mode = mode;
  s = MAX (1, MIN (width, height) / 360);
  ch = GST_GPU_FFT_FONT_H * s;
  cw = GST_GPU_FFT_FONT_ADVANCE * s;
  left = 5 * cw + 7 * s;
  right = mode == GST_GPU_FFT_SPECTROGRAM_MODE_SPECTRUM ? 3 * cw :
      4 * s + 10 * s + 4 * s + 4 * cw + 2 * s;
  top = ch + 8 * s;
  bottom = 4 * s + 3 * s + ch + 3 * s;
  avail_h = height;
  if (axes) {
    guint n_axes = mode == GST_GPU_FFT_SPECTROGRAM_MODE_BOTH ? 2 : 1;

    if (width < left + right + 16 || height < top + n_axes * bottom + 16 *
        n_axes)
      axes = FALSE;
    else
      avail_h = height - top - n_axes * bottom;
  }
  l->axes = axes;
  l->scale = axes ? s : 0;
  if (!axes) {
    left = right = top = bottom = 0;
  }
  plot_w = width - left - right;

  switch (mode) {
    case GST_GPU_FFT_SPECTROGRAM_MODE_SPECTRUM:
      l->sp_x = left;
      l->sp_y = top;
      l->sp_w = plot_w;
      l->sp_h = avail_h;
      break;
    case GST_GPU_FFT_SPECTROGRAM_MODE_BOTH:
      l->wf_x = left;
      l->wf_y = top;
      l->wf_w = plot_w;
      l->wf_h = MAX (1, (guint) (avail_h * 0.62));
      l->sp_x = left;
      l->sp_y = top + l->wf_h + bottom;
      l->sp_w = plot_w;
      l->sp_h = avail_h - l->wf_h;
      if (l->sp_h == 0) {
        l->sp_w = 0;
      }
      break;
    default:
      l->wf_x = left;
      l->wf_y = top;
      l->wf_w = plot_w;
      l->wf_h = avail_h;
      break;
  }
  if (axes && l->wf_h > 0) {
    l->bar_x = l->wf_x + l->wf_w + 4 * s;
    l->bar_w = 10 * s;
    l->time_y = l->wf_y + l->wf_h;
    l->time_h = bottom;
  }
}

/* ---- maps --------------------------------------------------------------- */

void
gst_gpu_fft_layout_map (GpufftRenderMap * map, guint n,
    const GstGpuFftFreqAxis * a, guint fft_size, gdouble rate,
    const GstGpuFftBands * bands)
{
  guint n_bins = fft_size / 2 + 1, i;
  gdouble df = rate / fft_size;

  for (i = 0; i < n; i++) {
    gdouble lo = gst_gpu_fft_layout_axis_f (a, (gdouble) i / n);
    gdouble hi = gst_gpu_fft_layout_axis_f (a, (gdouble) (i + 1) / n);
    gdouble fc = gst_gpu_fft_layout_axis_f (a, (i + 0.5) / n);

    if (bands) {
      guint b = 0;

      while (b + 1 < bands->n_bands && fc >= bands->upper[b])
        b++;
      map[i].first = b;
      map[i].count = 1;
      map[i].frac = 0;
    } else {
      gdouble k0 = ceil (lo / df), k1 = ceil (hi / df) - 1;

      k0 = MAX (k0, 0);
      k1 = MIN (k1, n_bins - 1);
      if (k1 >= k0) {
        map[i].first = (guint) k0;
        map[i].count = (guint) (k1 - k0 + 1);
        map[i].frac = 0;
      } else {
        gdouble k = CLAMP (fc / df, 0, n_bins - 1);

        map[i].first = MIN ((guint) floor (k), n_bins - 1);
        map[i].count = 0;
        map[i].frac = (gfloat) (k - map[i].first);
      }
    }
  }
}

void
gst_gpu_fft_layout_lut (const GstGpuFftLayout * l, guint32 * lut,
    GstGpuFftColormap map)
{
  guint i;

  for (i = 0; i < 256; i++) {
    guint8 rgb[3];

    gst_gpu_fft_colormap_rgb (map, i, rgb);
    lut[i] = gst_gpu_fft_layout_pack (l, rgb[0], rgb[1], rgb[2]);
  }
}

/* ---- drawing ------------------------------------------------------------ */

typedef struct
{
  guint32 *px;
  guint width, height;
  guint32 ink;                  /* the text's word */
} Canvas;

static void
fill (Canvas * c, gint x, gint y, gint w, gint h, guint32 rgba)
{
  gint i, j;

  for (j = MAX (y, 0); j < MIN (y + h, (gint) c->height); j++)
    for (i = MAX (x, 0); i < MIN (x + w, (gint) c->width); i++)
      c->px[(gsize) j * c->width + i] = rgba;
}

guint
gst_gpu_fft_layout_text_width (const gchar * text, guint s)
{
  gsize n = strlen (text);

  return n == 0 ? 0 : (guint) ((n - 1) * GST_GPU_FFT_FONT_ADVANCE +
      GST_GPU_FFT_FONT_W) * s;
}

/* text with its top-left corner at (x, y) (moved inside the canvas) */
static void
text (Canvas * c, gint x, gint y, const gchar * str, guint s)
{
  y = CLAMP (y, 0, (gint) c->height - (gint) (GST_GPU_FFT_FONT_H * s));
  for (; *str; str++, x += GST_GPU_FFT_FONT_ADVANCE * s) {
    const guint8 *g = gst_gpu_fft_font_glyph (*str);
    guint r, b;

    for (r = 0; r < GST_GPU_FFT_FONT_H; r++)
      for (b = 0; b < GST_GPU_FFT_FONT_W; b++)
        if (g[r] & (0x10 >> b))
          fill (c, x + b * s, y + r * s, s, s, c->ink);
  }
}

gchar *
gst_gpu_fft_layout_freq_label (gdouble f)
{
  if (f >= 1000.0)
    return g_strdup_printf ("%gk", round (f / 100.0) / 10.0);
  return g_strdup_printf ("%g", round (f * 10.0) / 10.0);
}

gchar *
gst_gpu_fft_layout_time_label (gdouble t, gdouble step)
{
  gboolean neg = t < 0;
  gdouble a = fabs (t);
  guint64 tenths = (guint64) llround (a * 10.0), secs = tenths / 10;
  guint h = secs / 3600, m = (secs / 60) % 60, sec = secs % 60;
  const gchar *sign = neg && tenths > 0 ? "-" : "";

  if (step < 1.0)
    return h > 0 ? g_strdup_printf ("%s%u:%02u:%02u.%u", sign, h, m, sec,
        (guint) (tenths % 10)) : g_strdup_printf ("%s%u:%02u.%u", sign, m,
        sec, (guint) (tenths % 10));
  return h > 0 ? g_strdup_printf ("%s%u:%02u:%02u", sign, h, m, sec) :
      g_strdup_printf ("%s%u:%02u", sign, m, sec);
}

/* a step from {1, 2, 2.5, 5} x 10^k at least `least` */
static gdouble
nice_step (gdouble least)
{
  static const gdouble m[] = { 1, 2, 2.5, 5, 10 };
  gdouble e = pow (10.0, floor (log10 (MAX (least, 1e-9))));
  guint i;

  for (i = 0; i < G_N_ELEMENTS (m); i++)
    if (m[i] * e >= least)
      return m[i] * e;
  return 10 * e;
}

/* Candidate frequency ticks (g_free): at most MAX_CANDIDATES per kind
 * (the linear steps, the 1-2-5 decades, the mel axis' thousands): the tick
 * search is quadratic in them. */
#define MAX_CANDIDATES 1024

static gdouble *
freq_candidates (const GstGpuFftFreqAxis * a, const GstGpuFftBands * bands,
    guint n_px, guint min_gap, guint * n_out)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (gdouble));

  if (a->axis == GST_GPU_FFT_AXIS_LINEAR) {
    gdouble step = nice_step ((a->f_hi - a->f_lo) * min_gap / MAX (n_px, 1));
    gdouble f, next;

    /* (a step below half an ulp of f leaves it where it is: the loop stops
     * there, and after MAX_CANDIDATES in any case) */
    for (f = ceil (a->f_lo / step) * step; f <= a->f_hi + 1e-9
        && out->len < MAX_CANDIDATES; f = next) {
      g_array_append_val (out, f);
      next = f + step;
      if (!(next > f))
        break;
    }
  } else if (a->axis == GST_GPU_FFT_AXIS_OCTAVE && bands && bands->nominal) {
    guint b;

    for (b = 0; b < bands->n_bands; b++)
      g_array_append_val (out, bands->nominal[b]);
  } else {
    static const gdouble mant[] = { 1, 2, 5 };
    gdouble d;
    guint i;

    for (d = 1; d <= 1e6; d *= 10)
      for (i = 0; i < G_N_ELEMENTS (mant); i++) {
        gdouble f = mant[i] * d;

        if (f >= a->f_lo - 1e-9 && f <= a->f_hi + 1e-9)
          g_array_append_val (out, f);
      }
    if (a->axis == GST_GPU_FFT_AXIS_MEL) {
      /* mel is nearly linear above 1 kHz: add the thousands within the
       * axis (those outside are never drawn; wider axes take every
       * 10^k-th thousand), at most MAX_CANDIDATES of them */
      gdouble step = 1000, first;
      guint k;

      while ((a->f_hi - a->f_lo) / step > MAX_CANDIDATES)
        step *= 10;
      first = MAX (3000, ceil ((a->f_lo - 1e-9) / step) * step);
      for (k = 0, d = first; d <= a->f_hi && k < MAX_CANDIDATES;
          k++, d = first + k * step) {
        if (d != 5000 && d != 10000 && d != 20000)
          g_array_append_val (out, d);
      }
    }
  }
  *n_out = out->len;
  return (gdouble *) g_array_free (out, FALSE);
}

static gint
cmp_double (gconstpointer a, gconstpointer b)
{
  gdouble x = *(const gdouble *) a, y = *(const gdouble *) b;

  return x < y ? -1 : x > y;
}

/* Frequency ticks along an axis of n pixels: calls tick (pixel, f) for
 * every tick kept (at least min_gap pixels apart, decades first). */
typedef void (*TickFunc) (gpointer data, guint pixel, gdouble f);

static void
freq_ticks (const GstGpuFftFreqAxis * a, const GstGpuFftBands * bands,
    guint n, guint min_gap, TickFunc func, gpointer data)
{
  guint n_c, i, j, pass;
  gdouble *c = freq_candidates (a, bands, n, min_gap, &n_c);
  gboolean *keep = g_new0 (gboolean, n_c);
  gint *pix = g_new (gint, n_c);

  if (n_c > 1)
    qsort (c, n_c, sizeof (gdouble), cmp_double);
  for (i = 0; i < n_c; i++) {
    gdouble p = floor (gst_gpu_fft_layout_axis_u (a, c[i]) * n);

    /* (an axis narrower than its values' resolution gives NaN: no tick) */
    pix[i] = p >= 0 && p < n ? (gint) p : -1;
  }
  /* pass 0: powers of ten (the axis' landmarks); pass 1: the rest */
  for (pass = 0; pass < 2; pass++)
    for (i = 0; i < n_c; i++) {
      gdouble l = log10 (MAX (c[i], 1e-9));
      gboolean decade = fabs (l - round (l)) < 1e-9;
      gboolean ok = TRUE;

      if (keep[i] || (pass == 0 && !decade && a->axis != GST_GPU_FFT_AXIS_LINEAR
              && a->axis != GST_GPU_FFT_AXIS_OCTAVE) || pix[i] < 0
          || pix[i] >= (gint) n)
        continue;
      for (j = 0; j < n_c; j++)
        if (keep[j] && ABS (pix[j] - pix[i]) < (gint) min_gap)
          ok = FALSE;
      keep[i] = ok;
    }
  for (i = 0; i < n_c; i++)
    if (keep[i])
      func (data, (guint) pix[i], c[i]);
  g_free (keep);
  g_free (pix);
  g_free (c);
}

typedef struct
{
  gdouble *f;
  guint *pixel;
  guint n, max;
} TickList;

static void
add_tick (gpointer data, guint pixel, gdouble f)
{
  TickList *t = data;

  if (t->n < t->max) {
    t->f[t->n] = f;
    t->pixel[t->n] = pixel;
  }
  t->n++;
}

guint
gst_gpu_fft_layout_freq_ticks (const GstGpuFftFreqAxis * a,
    const GstGpuFftBands * bands, guint n, guint min_gap, gdouble * f,
    guint * pixel, guint max)
{
  TickList t = { f, pixel, 0, max };

  freq_ticks (a, bands, n, min_gap, add_tick, &t);
  return t.n;
}

typedef struct
{
  Canvas *c;
  const GstGpuFftLayout *l;
  gboolean horizontal;          /* spectrum panel: ticks below it */
} TickCtx;

static void
draw_freq_tick (gpointer data, guint pixel, gdouble f)
{
  TickCtx *t = data;
  const GstGpuFftLayout *l = t->l;
  guint s = l->scale, ch = GST_GPU_FFT_FONT_H * s;
  gchar *label = gst_gpu_fft_layout_freq_label (f);
  guint tw = gst_gpu_fft_layout_text_width (label, s);

  if (!t->horizontal) {
    gint y = (gint) (l->wf_y + l->wf_h - 1 - pixel);

    fill (t->c, l->wf_x - 4 * s, y, 4 * s, 1, t->c->ink);
    text (t->c, (gint) (l->wf_x - 6 * s - tw), y - (gint) (ch / 2), label, s);
  } else {
    gint x = (gint) (l->sp_x + pixel);
    gint y = (gint) (l->sp_y + l->sp_h);

    fill (t->c, x, y, 1, 4 * s, t->c->ink);
    x -= (gint) tw / 2;
    x = CLAMP (x, 0, (gint) (l->width - tw));
    text (t->c, x, y + 7 * s, label, s);
  }
  g_free (label);
}

/* dB ticks at multiples of a nice step along n pixels from min to max:
 * calls func (pixel from the bottom, dB) */
static void
db_ticks (gdouble min_db, gdouble max_db, guint n, guint min_gap,
    void (*func) (gpointer, guint, gdouble), gpointer data)
{
  gdouble step = nice_step ((max_db - min_db) * min_gap / MAX (n, 1)), v;

  if (step < 1)
    step = 1;
  for (v = ceil (min_db / step) * step; v <= max_db + 1e-9; v += step) {
    gdouble p = (v - min_db) / (max_db - min_db) * (n - 1);

    func (data, (guint) CLAMP (round (p), 0, n - 1), v);
  }
}

static void
draw_bar_tick (gpointer data, guint pixel, gdouble v)
{
  TickCtx *t = data;
  const GstGpuFftLayout *l = t->l;
  guint s = l->scale, ch = GST_GPU_FFT_FONT_H * s;
  gchar *label = g_strdup_printf ("%g", round (v));

  if (!t->horizontal) {
    gint y = (gint) (l->wf_y + l->wf_h - 1 - pixel);

    fill (t->c, l->bar_x + l->bar_w, y, 3 * s, 1, t->c->ink);
    text (t->c, (gint) (l->bar_x + l->bar_w + 4 * s), y - (gint) ch / 2,
        label, s);
  } else {
    gint y = (gint) (l->sp_y + l->sp_h - 1 - pixel);
    guint tw = gst_gpu_fft_layout_text_width (label, s);

    fill (t->c, l->sp_x - 4 * s, y, 4 * s, 1, t->c->ink);
    text (t->c, (gint) (l->sp_x - 6 * s - tw), y - (gint) ch / 2, label, s);
  }
  g_free (label);
}

void
gst_gpu_fft_layout_draw (const GstGpuFftLayout * l, guint32 * overlay,
    const GstGpuFftFreqAxis * a, const GstGpuFftBands * bands,
    gdouble min_db, gdouble max_db, const guint32 * lut, const gchar * title)
{
  Canvas c = { overlay, l->width, l->height, l->text };
  TickCtx t = { &c, l, FALSE };
  guint s = l->scale, ch = GST_GPU_FFT_FONT_H * s, j;

  memset (overlay, 0, (gsize) l->width * l->height * 4);
  if (!l->axes)
    return;
  if (title && *title) {
    guint tw = gst_gpu_fft_layout_text_width (title, s);
    gint x = ((gint) l->width - (gint) tw) / 2;

    text (&c, MAX (x, 0), 3 * s, title, s);
  }
  if (l->wf_h > 0) {
    text (&c, 2 * s, 3 * s, "Hz", s);
    freq_ticks (a, bands, l->wf_h, ch + 6 * s, draw_freq_tick, &t);
    /* colour bar: the LUT from bottom to top, with dB ticks */
    for (j = 0; j < l->wf_h; j++) {
      guint idx = l->wf_h > 1 ? (guint) round (255.0 * j / (l->wf_h - 1)) : 255;

      fill (&c, l->bar_x, l->wf_y + l->wf_h - 1 - j, l->bar_w, 1, lut[idx]);
    }
    text (&c, l->bar_x, 3 * s, "dB", s);
    db_ticks (min_db, max_db, l->wf_h, ch + 6 * s, draw_bar_tick, &t);
  }
  if (l->sp_h > 0) {
    t.horizontal = TRUE;
    freq_ticks (a, bands, l->sp_w, 5 * GST_GPU_FFT_FONT_ADVANCE * s,
        draw_freq_tick, &t);
    /* (in mode both the time strip is above the panel: no room) */
    if (l->wf_h == 0)
      text (&c, 2 * s, 3 * s, "dB", s);
    db_ticks (min_db, max_db, l->sp_h, ch + 6 * s, draw_bar_tick, &t);
    text (&c, (gint) (l->width - 2 * s - gst_gpu_fft_layout_text_width ("Hz",
                s)), l->sp_y + l->sp_h + 7 * s, "Hz", s);
  }
}

void
gst_gpu_fft_layout_draw_time (const GstGpuFftLayout * l, guint32 * overlay,
    gdouble t_newest, gdouble dt)
{
  static const gdouble steps[] = { 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 60,
    120, 300, 600, 900, 1800, 3600, 7200, 18000, 36000, 86400
  };
  Canvas c = { overlay, l->width, l->height, l->text };
  guint s = l->scale, i;
  gdouble span, step = steps[G_N_ELEMENTS (steps) - 1], t, t_oldest;

  if (!l->axes || l->time_h == 0 || dt <= 0)
    return;
  /* cleared: the tick rows under the waterfall, and the label rows across
   * the width (the frequency and dB labels of the waterfall's bottom row
   * reach into the strip's top rows beside it: they stay) */
  fill (&c, l->wf_x, l->time_y, l->wf_w, MIN (l->time_h, 7 * s), 0);
  if (l->time_h > 7 * s)
    fill (&c, 0, l->time_y + 7 * s, l->width, l->time_h - 7 * s, 0);
  span = dt * l->wf_w;
  /* labels about 8 characters apart */
  for (i = 0; i < G_N_ELEMENTS (steps); i++)
    if (steps[i] / span * l->wf_w >= 8 * GST_GPU_FFT_FONT_ADVANCE * s) {
      step = steps[i];
      break;
    }
  t_oldest = t_newest - dt * (l->wf_w - 1);
  for (t = ceil (t_oldest / step - 1e-9) * step; t <= t_newest + 1e-9;
      t += step) {
    gdouble col = (t - t_newest) / dt;  /* <= 0 */
    gint x = (gint) (l->wf_x + l->wf_w - 1) + (gint) round (col);
    gchar *label;
    guint tw;

    if (x < (gint) l->wf_x || t < -1e-9)
      continue;                 /* before the stream's start: no label */
    fill (&c, x, l->time_y, 1, 4 * s, c.ink);
    label = gst_gpu_fft_layout_time_label (t, step);
    tw = gst_gpu_fft_layout_text_width (label, s);
    text (&c, CLAMP (x - (gint) tw / 2, 0, (gint) (l->width - tw)),
        l->time_y + 7 * s, label, s);
    g_free (label);
  }
}
