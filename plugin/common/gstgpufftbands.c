/* gst-gpufft: frequency bands and weightings (see the header for the
 * definitions each follows). */
#include <math.h>
#include <string.h>

#include "gstgpufftbands.h"

#define IEC_G 1.9952623149688795        /* 10^(3/10) */

gboolean
gst_gpu_fft_bands_octave_fraction_valid (guint fraction)
{
  return fraction == 1 || fraction == 2 || fraction == 3 || fraction == 6
      || fraction == 12 || fraction == 24;
}

gdouble
gst_gpu_fft_bands_hz_to_mel (GstGpuFftMelScale scale, gdouble hz)
{
  if (scale == GST_GPU_FFT_MEL_SCALE_HTK)
    return 2595.0 * log10 (1.0 + hz / 700.0);
  if (hz < 1000.0)
    return hz / (200.0 / 3.0);
  return 15.0 + log (hz / 1000.0) / (log (6.4) / 27.0);
}

gdouble
gst_gpu_fft_bands_mel_to_hz (GstGpuFftMelScale scale, gdouble mel)
{
  if (scale == GST_GPU_FFT_MEL_SCALE_HTK)
    return 700.0 * (pow (10.0, mel / 2595.0) - 1.0);
  if (mel < 15.0)
    return mel * (200.0 / 3.0);
  return 1000.0 * exp ((log (6.4) / 27.0) * (mel - 15.0));
}

static gdouble
weighting_raw_db (GstGpuFftWeighting w, gdouble f)
{
  const gdouble f1 = 20.598997, f2 = 107.65265, f3 = 737.86223;
  const gdouble f4 = 12194.217;
  gdouble ff = f * f;

  if (w == GST_GPU_FFT_WEIGHTING_C)
    return 20.0 * log10 (f4 * f4 * ff / ((ff + f1 * f1) * (ff + f4 * f4)));
  return 20.0 * log10 (f4 * f4 * ff * ff / ((ff + f1 * f1) *
          sqrt (ff + f2 * f2) * sqrt (ff + f3 * f3) * (ff + f4 * f4)));
}

void
gst_gpu_fft_bands_k_filter (gdouble rate, gdouble b[2][3], gdouble a[2][3])
{
  /* the pre-filter: a high shelf */
  const gdouble shelf_f0 = 1681.974450955533, shelf_db = 3.999843853973347;
  const gdouble shelf_q = 0.7071752369554196;
  const gdouble zeros_exp = 0.4996667741545416;
  /* the RLB high-pass */
  const gdouble hp_f0 = 38.13547087602444, hp_q = 0.5003270373238773;
  gdouble k = tan (G_PI * shelf_f0 / rate);
  gdouble vh = pow (10.0, shelf_db / 20.0), vb = pow (vh, zeros_exp);
  gdouble d = 1.0 + k / shelf_q + k * k;

  b[0][0] = (vh + vb * k / shelf_q + k * k) / d;
  b[0][1] = 2.0 * (k * k - vh) / d;
  b[0][2] = (vh - vb * k / shelf_q + k * k) / d;
  a[0][0] = 1.0;
  a[0][1] = 2.0 * (k * k - 1.0) / d;
  a[0][2] = (1.0 - k / shelf_q + k * k) / d;

  k = tan (G_PI * hp_f0 / rate);
  d = 1.0 + k / hp_q + k * k;
  b[1][0] = 1.0;
  b[1][1] = -2.0;
  b[1][2] = 1.0;
  a[1][0] = 1.0;
  a[1][1] = 2.0 * (k * k - 1.0) / d;
  a[1][2] = (1.0 - k / hp_q + k * k) / d;
}

/* |H (e^(i w))|^2 of the biquad b, a */
static gdouble
biquad_power (const gdouble b[3], const gdouble a[3], gdouble w)
{
  gdouble c1 = cos (w), s1 = sin (w), c2 = cos (2.0 * w), s2 = sin (2.0 * w);
  gdouble nr = b[0] + b[1] * c1 + b[2] * c2, ni = -(b[1] * s1 + b[2] * s2);
  gdouble dr = a[0] + a[1] * c1 + a[2] * c2, di = -(a[1] * s1 + a[2] * s2);

  return (nr * nr + ni * ni) / (dr * dr + di * di);
}

/* BS.1770's constant: L = -0.691 + 10 log10 (mean square, K-weighted) */
#define K_OFFSET_DB (-0.691)

/* K weighting in dB at f Hz, from the filter of the rate */
static gdouble
k_weighting_db (const gdouble b[2][3], const gdouble a[2][3], gdouble f,
    gdouble rate)
{
  gdouble wr = 2.0 * G_PI * f / rate;

  return 10.0 * log10 (biquad_power (b[0], a[0], wr) *
      biquad_power (b[1], a[1], wr)) + K_OFFSET_DB;
}

gdouble
gst_gpu_fft_bands_weighting_db (GstGpuFftWeighting w, gdouble f, gdouble rate)
{
  if (w == GST_GPU_FFT_WEIGHTING_Z)
    return 0.0;
  if (!(f > 0.0))
    return -INFINITY;
  if (w == GST_GPU_FFT_WEIGHTING_K) {
    gdouble b[2][3], a[2][3];

    gst_gpu_fft_bands_k_filter (rate, b, a);
    return k_weighting_db (b, a, f, rate);
  }
  return weighting_raw_db (w, f) - weighting_raw_db (w, 1000.0);
}

void
gst_gpu_fft_bands_weighting_gains (GstGpuFftWeighting w, gdouble rate,
    gdouble df, guint n, gfloat * gains)
{
  gdouble b[2][3], a[2][3];
  guint k;

  /* (K: its filter made once for every bin) */
  if (w == GST_GPU_FFT_WEIGHTING_K)
    gst_gpu_fft_bands_k_filter (rate, b, a);
  for (k = 0; k < n; k++) {
    gdouble db = w == GST_GPU_FFT_WEIGHTING_K && k > 0 ?
        k_weighting_db (b, a, k * df, rate) :
        gst_gpu_fft_bands_weighting_db (w, k * df, rate);

    gains[k] = (gfloat) pow (10.0, db / 10.0);
  }
}

/* ISO 266 R10 (b = 1, 3) or IEC 61260-1 Annex E rounding (others). */
static gdouble
octave_nominal (guint b, gint x, gdouble exact)
{
  static const gdouble r10[10] = { 1.0, 1.25, 1.6, 2.0, 2.5, 3.15, 4.0, 5.0,
    6.3, 8.0
  };
  gdouble p, m;
  gint i;

  if (b == 1 || b == 3) {
    i = b == 1 ? 3 * x : x;     /* tenths of a decade from 1 kHz */
    return r10[((i % 10) + 10) % 10] * pow (10.0, 3 + (gint) floor (i / 10.0));
  }
  p = floor (log10 (exact));
  m = exact / pow (10.0, p);    /* 1 <= m < 10 */
  if (m < 5.0)
    return round (m * 100.0) / 100.0 * pow (10.0, p);
  return round (m * 10.0) / 10.0 * pow (10.0, p);
}

typedef struct
{
  GArray *centre, *lower, *upper, *nominal, *first, *bins, *weights;
} Builder;

/* A band from f1 to f2 Hz: the bins it overlaps, each weighted by the
 * fraction of the bin inside it. */
static void
add_edge_band (Builder * bl, gdouble f1, gdouble f2, gdouble centre,
    gdouble df, guint nyq_bin)
{
  gint k, k_lo = (gint) floor (f1 / df + 0.5);
  gint k_hi = MIN ((gint) floor (f2 / df + 0.5), (gint) nyq_bin);
  guint first = 0, n = 0;

  for (k = MAX (k_lo, 0); k <= k_hi; k++) {
    gdouble a = MAX (f1, (k - 0.5) * df), b = MIN (f2, (k + 0.5) * df);
    gdouble frac = (b - a) / df;

    if (frac <= 0.0)
      continue;
    if (n == 0)
      first = k;
    /* (fractions of the bins between, zero weights included) */
    while (first + n < (guint) k) {
      gdouble z = 0.0;
      g_array_append_val (bl->weights, z);
      n++;
    }
    g_array_append_val (bl->weights, frac);
    n++;
  }
  g_array_append_val (bl->first, first);
  g_array_append_val (bl->bins, n);
  g_array_append_val (bl->centre, centre);
  g_array_append_val (bl->lower, f1);
  g_array_append_val (bl->upper, f2);
}

static void
build_octave (Builder * bl, const GstGpuFftBandSpec * s, gdouble lo,
    gdouble hi, gdouble nyq, gdouble df, guint nyq_bin)
{
  guint b = s->octave_fraction;
  gboolean even = b % 2 == 0;
  gint x, x0 = (gint) floor (b * log (lo / 1000.0) / log (IEC_G)) - 2;

  for (x = x0; x < x0 + 2000; x++) {
    gdouble fm = even ? 1000.0 * pow (IEC_G, (2.0 * x + 1) / (2.0 * b)) :
        1000.0 * pow (IEC_G, (gdouble) x / b);
    gdouble f1 = fm * pow (IEC_G, -1.0 / (2.0 * b));
    gdouble f2 = fm * pow (IEC_G, 1.0 / (2.0 * b));
    gdouble nominal;

    if (f2 <= lo)
      continue;
    if (f1 >= hi || f2 > nyq * (1 + 1e-12))
      break;
    nominal = octave_nominal (b, x, fm);
    g_array_append_val (bl->nominal, nominal);
    add_edge_band (bl, f1, f2, fm, df, nyq_bin);
  }
}

static void
build_log (Builder * bl, const GstGpuFftBandSpec * s, gdouble lo, gdouble hi,
    gdouble df, guint nyq_bin)
{
  guint i, n = s->log_bands;

  for (i = 0; i < n; i++) {
    gdouble f1 = lo * pow (hi / lo, (gdouble) i / n);
    gdouble f2 = lo * pow (hi / lo, (gdouble) (i + 1) / n);

    add_edge_band (bl, f1, f2, sqrt (f1 * f2), df, nyq_bin);
  }
}

/* librosa's triangle of filter m (points f[m], f[m+1], f[m+2]) at fk Hz */
static gdouble
mel_triangle (const gdouble * f, guint m, gdouble fk)
{
  return MAX (0.0, MIN ((fk - f[m]) / (f[m + 1] - f[m]),
          (f[m + 2] - fk) / (f[m + 2] - f[m + 1])));
}

static void
build_mel (Builder * bl, const GstGpuFftBandSpec * s, gdouble lo, gdouble hi,
    gdouble df, guint nyq_bin)
{
  guint n = s->mel_bands, m, k;
  gdouble m_lo = gst_gpu_fft_bands_hz_to_mel (s->mel_scale, lo);
  gdouble m_hi = gst_gpu_fft_bands_hz_to_mel (s->mel_scale, hi);
  gdouble *f = g_new (gdouble, n + 2);

  for (m = 0; m < n + 2; m++)
    f[m] = gst_gpu_fft_bands_mel_to_hz (s->mel_scale,
        m_lo + (m_hi - m_lo) * m / (n + 1));
  for (m = 0; m < n; m++) {
    gdouble norm = s->mel_norm == GST_GPU_FFT_MEL_NORM_SLANEY ?
        2.0 / (f[m + 2] - f[m]) : 1.0;
    guint first = 0, cnt = 0, last = 0;
    gboolean any = FALSE;

    for (k = 0; k <= nyq_bin; k++) {
      if (mel_triangle (f, m, k * df) > 0.0) {
        if (!any)
          first = k;
        any = TRUE;
        last = k;
      }
    }
    if (any) {
      for (k = first; k <= last; k++) {
        gdouble w = mel_triangle (f, m, k * df) * norm;

        g_array_append_val (bl->weights, w);
      }
      cnt = last - first + 1;
    }
    g_array_append_val (bl->first, first);
    g_array_append_val (bl->bins, cnt);
    g_array_append_val (bl->centre, f[m + 1]);
    g_array_append_val (bl->lower, f[m]);
    g_array_append_val (bl->upper, f[m + 2]);
  }
  g_free (f);
}

GstGpuFftBands *
gst_gpu_fft_bands_new (const GstGpuFftBandSpec * s, gchar ** why)
{
  gdouble nyq = s->rate / 2.0, df = s->rate / s->fft_size;
  guint nyq_bin = s->fft_size / 2, i;
  gboolean edges = s->scale != GST_GPU_FFT_FREQUENCY_SCALE_MEL;
  gdouble lo = s->min_frequency > 0.0 ? s->min_frequency : (edges ? 20.0 : 0.0);
  gdouble hi = s->max_frequency > 0.0 ? MIN (s->max_frequency, nyq) : nyq;
  GstGpuFftBands *b;
  Builder bl;

  *why = NULL;
  if (!(lo < hi)) {
    *why = g_strdup_printf ("the bands need min-frequency (%g Hz%s) below "
        "max-frequency (%g Hz, at most the Nyquist frequency)", lo,
        s->min_frequency > 0.0 ? "" : ": 0 means 20 Hz", hi);
    return NULL;
  }
  bl.centre = g_array_new (FALSE, FALSE, sizeof (gdouble));
  bl.lower = g_array_new (FALSE, FALSE, sizeof (gdouble));
  bl.upper = g_array_new (FALSE, FALSE, sizeof (gdouble));
  bl.nominal = g_array_new (FALSE, FALSE, sizeof (gdouble));
  bl.first = g_array_new (FALSE, FALSE, sizeof (guint));
  bl.bins = g_array_new (FALSE, FALSE, sizeof (guint));
  bl.weights = g_array_new (FALSE, FALSE, sizeof (gdouble));
  switch (s->scale) {
    case GST_GPU_FFT_FREQUENCY_SCALE_OCTAVE:
      build_octave (&bl, s, lo, hi, nyq, df, nyq_bin);
      break;
    case GST_GPU_FFT_FREQUENCY_SCALE_LOG:
      build_log (&bl, s, lo, hi, df, nyq_bin);
      break;
    case GST_GPU_FFT_FREQUENCY_SCALE_MEL:
      build_mel (&bl, s, lo, hi, df, nyq_bin);
      break;
    default:
      break;
  }
  b = g_atomic_rc_box_new0 (GstGpuFftBands);
  b->n_bands = bl.centre->len;
  b->centre = (gdouble *) g_array_free (bl.centre, FALSE);
  b->lower = (gdouble *) g_array_free (bl.lower, FALSE);
  b->upper = (gdouble *) g_array_free (bl.upper, FALSE);
  b->nominal = (gdouble *) g_array_free (bl.nominal,
      s->scale != GST_GPU_FFT_FREQUENCY_SCALE_OCTAVE);
  b->first = (guint *) g_array_free (bl.first, FALSE);
  b->bins = (guint *) g_array_free (bl.bins, FALSE);
  b->n_weights = bl.weights->len;
  b->weights = (gdouble *) g_array_free (bl.weights, FALSE);
  for (i = 0; i < b->n_bands; i++)
    if (b->upper[i] - b->lower[i] >= 2.0 * df * (1 - 1e-12))
      break;
  b->resolved_from = i;
  if (b->n_bands == 0) {
    *why = g_strdup_printf ("no band lies between %g and %g Hz below the "
        "Nyquist frequency (%g Hz)", lo, hi, nyq);
    gst_gpu_fft_bands_unref (b);
    return NULL;
  }
  return b;
}

GstGpuFftBands *
gst_gpu_fft_bands_ref (GstGpuFftBands * b)
{
  return g_atomic_rc_box_acquire (b);
}

static void
bands_clear (gpointer data)
{
  GstGpuFftBands *b = data;

  g_free (b->centre);
  g_free (b->lower);
  g_free (b->upper);
  g_free (b->nominal);
  g_free (b->first);
  g_free (b->bins);
  g_free (b->weights);
}

void
gst_gpu_fft_bands_unref (GstGpuFftBands * b)
{
  if (b)
    g_atomic_rc_box_release_full (b, bands_clear);
}
