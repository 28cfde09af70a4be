/* The band definitions themselves (plugin/common/gstgpufftbands.c, plain C, no
 * device) against the published formulas written out here:
 *   librosa.filters.mel (sr, n_fft, n_mels, fmin, fmax, htk=False,
 *   norm='slaney') and torchaudio.functional.melscale_fbanks (n_freqs,
 *   f_min, f_max, n_mels, sample_rate, norm=None, mel_scale='htk'):
 *   every weight within 1e-6;
 *   IEC 61260-1 fractional-octave bands for b = 1, 2, 3, 6, 12, 24 (odd
 *   and even fractions): mid-band and edge frequencies, and the nominal
 *   frequencies; IEC 61672-1's C weighting table; ITU-R BS.1770-4's K
 *   weighting coefficients (Tables 1 and 2). */
#include <glib.h>
#include <math.h>

#include "gstgpufftbands.h"

/* librosa: hz_to_mel / mel_to_hz with htk=False */
static gdouble
librosa_mel (gdouble f)
{
  const gdouble f_sp = 200.0 / 3, min_log_hz = 1000.0;
  const gdouble min_log_mel = min_log_hz / f_sp, logstep = log (6.4) / 27.0;

  return f >= min_log_hz ? min_log_mel + log (f / min_log_hz) / logstep :
      f / f_sp;
}

static gdouble
librosa_hz (gdouble m)
{
  const gdouble f_sp = 200.0 / 3, min_log_hz = 1000.0;
  const gdouble min_log_mel = min_log_hz / f_sp, logstep = log (6.4) / 27.0;

  return m >= min_log_mel ? min_log_hz * exp (logstep * (m - min_log_mel)) :
      f_sp * m;
}

/* torchaudio's HTK scale */
static gdouble
htk_mel (gdouble f)
{
  return 2595.0 * log10 (1.0 + f / 700.0);
}

static gdouble
htk_hz (gdouble m)
{
  return 700.0 * (pow (10.0, m / 2595.0) - 1.0);
}

/* weights[m][k] of the published filterbank */
static gdouble
published_weight (gboolean htk, gboolean slaney_norm, gdouble sr, guint n_fft,
    guint n_mels, gdouble fmin, gdouble fmax, guint m, guint k)
{
  gdouble lo = htk ? htk_mel (fmin) : librosa_mel (fmin);
  gdouble hi = htk ? htk_mel (fmax) : librosa_mel (fmax);
  gdouble f[3], fk = k * sr / n_fft, lower, upper, w;
  guint i;

  for (i = 0; i < 3; i++) {
    gdouble mel = lo + (hi - lo) * (m + i) / (n_mels + 1);

    f[i] = htk ? htk_hz (mel) : librosa_hz (mel);
  }
  lower = (fk - f[0]) / (f[1] - f[0]);
  upper = (f[2] - fk) / (f[2] - f[1]);
  w = MAX (0.0, MIN (lower, upper));
  return slaney_norm ? w * 2.0 / (f[2] - f[0]) : w;
}

static void
check_mel (GstGpuFftMelScale scale, GstGpuFftMelNorm norm, gdouble sr,
    guint n_fft, guint n_mels, gdouble fmin, gdouble fmax)
{
  GstGpuFftBandSpec spec = { 0 };
  GstGpuFftBands *b;
  gchar *why = NULL;
  guint m, k, off = 0;
  gdouble worst = 0;

  spec.scale = GST_GPU_FFT_FREQUENCY_SCALE_MEL;
  spec.fft_size = n_fft;
  spec.rate = sr;
  spec.min_frequency = fmin;
  spec.max_frequency = fmax;
  spec.mel_bands = n_mels;
  spec.mel_scale = scale;
  spec.mel_norm = norm;
  b = gst_gpu_fft_bands_new (&spec, &why);
  g_assert_null (why);
  g_assert_nonnull (b);
  g_assert_cmpuint (b->n_bands, ==, n_mels);
  for (m = 0; m < n_mels; m++) {
    for (k = 0; k <= n_fft / 2; k++) {
      gdouble ref = published_weight (scale == GST_GPU_FFT_MEL_SCALE_HTK,
          norm == GST_GPU_FFT_MEL_NORM_SLANEY, sr, n_fft, n_mels, fmin,
          fmax ? fmax : sr / 2, m, k);
      gdouble got = (k >= b->first[m] && k < b->first[m] + b->bins[m]) ?
          b->weights[off + k - b->first[m]] : 0.0;

      worst = MAX (worst, fabs (got - ref));
    }
    off += b->bins[m];
  }
  g_test_message ("mel scale %d norm %d, sr %g, n_fft %u, %u mels: worst "
      "weight error %.3g", scale, norm, sr, n_fft, n_mels, worst);
  g_assert_cmpfloat (worst, <=, 1e-6);
  gst_gpu_fft_bands_unref (b);
}

static void
test_mel_librosa (void)
{
  check_mel (GST_GPU_FFT_MEL_SCALE_SLANEY, GST_GPU_FFT_MEL_NORM_SLANEY,
      22050, 2048, 128, 0, 0);
  check_mel (GST_GPU_FFT_MEL_SCALE_SLANEY, GST_GPU_FFT_MEL_NORM_SLANEY, 16000, 400, 80, 0, 8000);       /* Whisper's front end */
  check_mel (GST_GPU_FFT_MEL_SCALE_SLANEY, GST_GPU_FFT_MEL_NORM_SLANEY,
      48000, 1024, 40, 50, 14000);
}

static void
test_mel_torchaudio (void)
{
  check_mel (GST_GPU_FFT_MEL_SCALE_HTK, GST_GPU_FFT_MEL_NORM_NONE, 16000,
      400, 80, 0, 0);
  check_mel (GST_GPU_FFT_MEL_SCALE_HTK, GST_GPU_FFT_MEL_NORM_NONE, 44100,
      2048, 128, 20, 0);
  check_mel (GST_GPU_FFT_MEL_SCALE_HTK, GST_GPU_FFT_MEL_NORM_SLANEY, 16000,
      512, 64, 0, 0);
}

static void
test_octave_iec (void)
{
  static const guint fractions[] = { 1, 2, 3, 6, 12, 24 };
  const gdouble g = pow (10.0, 0.3);
  guint i, j;

  for (i = 0; i < G_N_ELEMENTS (fractions); i++) {
    guint bf = fractions[i];
    GstGpuFftBandSpec spec = { 0 };
    GstGpuFftBands *b;
    gchar *why = NULL;
    gboolean found_1k = FALSE;

    spec.scale = GST_GPU_FFT_FREQUENCY_SCALE_OCTAVE;
    spec.fft_size = 65536;
    spec.rate = 48000;
    spec.octave_fraction = bf;
    b = gst_gpu_fft_bands_new (&spec, &why);
    g_assert_nonnull (b);
    for (j = 0; j < b->n_bands; j++) {
      /* x from the centre: G^(x/b) or G^((2x+1)/(2b)) */
      gdouble e = log (b->centre[j] / 1000.0) / log (g) * bf;
      gdouble x = bf % 2 ? round (e) : round ((e - 0.5));
      gdouble fm = bf % 2 ? 1000.0 * pow (g, x / bf) :
          1000.0 * pow (g, (2 * x + 1) / (2.0 * bf));

      g_assert_cmpfloat (fabs (b->centre[j] - fm), <=, 1e-9 * fm);
      g_assert_cmpfloat (fabs (b->lower[j] - fm * pow (g, -1.0 / (2 * bf))),
          <=, 1e-9 * fm);
      g_assert_cmpfloat (fabs (b->upper[j] - fm * pow (g, 1.0 / (2 * bf))),
          <=, 1e-9 * fm);
      if (j > 0)
        g_assert_cmpfloat (fabs (b->lower[j] - b->upper[j - 1]), <=, 1e-9 * fm);
      /* the range: 20 Hz inside or above the first band, the Nyquist
       * frequency at or above the last band's upper edge */
      g_assert_cmpfloat (b->upper[j], >, 20.0);
      g_assert_cmpfloat (b->upper[j], <=, 24000.0);
      if (bf % 2 && fabs (fm - 1000.0) < 1e-9)
        found_1k = TRUE;
      /* nominal: within 3 % of the exact value (the lists below check
       * the labels themselves) */
      g_assert_cmpfloat (fabs (b->nominal[j] - fm), <=, 0.03 * fm);
    }
    g_assert_true (found_1k || bf % 2 == 0);
    if (bf == 3) {
      static const gdouble nominal[] = { 20, 25, 31.5, 40, 50, 63, 80, 100,
        125, 160, 200, 250, 315, 400, 500, 630, 800, 1000, 1250, 1600, 2000,
        2500, 3150, 4000, 5000, 6300, 8000, 10000, 12500, 16000, 20000
      };
      g_assert_cmpuint (b->n_bands, ==, G_N_ELEMENTS (nominal));
      for (j = 0; j < b->n_bands; j++)
        g_assert_cmpfloat (b->nominal[j], ==, nominal[j]);
    }
    if (bf == 6) {
      /* IEC 61260-1 Annex E by hand: 1059.25 -> 1060 (leading 1: three
       * digits), 944.06 -> 940 and 841.40 -> 840 (leading 9, 8: two),
       * 1188.50 -> 1190 */
      static const gdouble exact[] = { 841.395, 944.061, 1059.254, 1188.502 };
      static const gdouble label[] = { 840, 940, 1060, 1190 };
      guint q;

      for (q = 0; q < 4; q++) {
        for (j = 0; j < b->n_bands; j++)
          if (fabs (b->centre[j] - exact[q]) < 0.01)
            break;
        g_assert_cmpuint (j, <, b->n_bands);
        g_assert_cmpfloat (b->nominal[j], ==, label[q]);
      }
    }
    if (bf == 1) {
      static const gdouble nominal[] = { 16, 31.5, 63, 125, 250, 500, 1000,
        2000, 4000, 8000, 16000
      };
      g_assert_cmpuint (b->n_bands, ==, G_N_ELEMENTS (nominal));
      for (j = 0; j < b->n_bands; j++)
        g_assert_cmpfloat (b->nominal[j], ==, nominal[j]);
    }
    /* resolved: from the first band two bins (1.46 Hz) wide */
    for (j = 0; j < b->n_bands; j++)
      g_assert_true ((j >= b->resolved_from) == (b->upper[j] - b->lower[j]
              >= 2 * 48000.0 / 65536));
    if (bf <= 6)
      g_assert_cmpuint (b->resolved_from, ==, 0);
    gst_gpu_fft_bands_unref (b);
  }
}

/* 1/2-octave bands (b = 2, an even fraction): accepted, mid-band
 * frequencies 1000 G^((2x+1)/4) with G = 10^(3/10), and their nominal
 * values, IEC 61260-1 Annex E (three significant digits for a mantissa
 * starting with 1..4, two for 5..9), written out from the exact values
 * (18.836 -> 18.8, 53.088 -> 53, 595.66 -> 600, 841.40 -> 840, 1188.5 ->
 * 1190, 6683.4 -> 6700 ...) */
static void
test_octave_half (void)
{
  static const gdouble exact[] = { 18.836, 26.607, 37.584, 53.088, 74.989,
    105.925, 149.624, 211.349, 298.538, 421.697, 595.662, 841.395, 1188.502,
    1678.804, 2371.374, 3349.654, 4731.513, 6683.439, 9440.609, 13335.214,
    18836.491
  };
  static const gdouble nominal[] = { 18.8, 26.6, 37.6, 53, 75, 106, 150, 211,
    299, 422, 600, 840, 1190, 1680, 2370, 3350, 4730, 6700, 9400, 13300,
    18800
  };
  const gdouble g = pow (10.0, 0.3);
  GstGpuFftBandSpec spec = { 0 };
  GstGpuFftBands *b;
  gchar *why = NULL;
  guint j;

  g_assert_true (gst_gpu_fft_bands_octave_fraction_valid (2));
  spec.scale = GST_GPU_FFT_FREQUENCY_SCALE_OCTAVE;
  spec.fft_size = 65536;
  spec.rate = 48000;
  spec.octave_fraction = 2;
  b = gst_gpu_fft_bands_new (&spec, &why);
  g_assert_null (why);
  g_assert_nonnull (b);
  g_assert_cmpuint (b->n_bands, ==, G_N_ELEMENTS (exact));
  for (j = 0; j < b->n_bands; j++) {
    gdouble fm = 1000.0 * pow (g, (2.0 * ((gint) j - 12) + 1) / 4.0);

    g_assert_cmpfloat (fabs (fm - exact[j]), <=, 1e-3);
    g_assert_cmpfloat (fabs (b->centre[j] - fm), <=, 1e-9 * fm);
    g_assert_cmpfloat (fabs (b->lower[j] - fm / pow (g, 0.25)), <=, 1e-9 * fm);
    g_assert_cmpfloat (fabs (b->upper[j] - fm * pow (g, 0.25)), <=, 1e-9 * fm);
    g_assert_cmpfloat (fabs (b->nominal[j] - nominal[j]), <=,
        1e-9 * nominal[j]);
  }
  /* a half octave: the edges a factor 10^(3/20) apart, 1 kHz an edge */
  g_assert_cmpfloat (fabs (b->upper[11] - 1000.0), <=, 1e-9);
  gst_gpu_fft_bands_unref (b);
}

/* IEC 61672-1 Table 3, C weighting (rounded to 0.1 dB), at the exact
 * base-ten frequencies 1000 G^(x/3); and A, C at 1 kHz exactly 0 */
static void
test_weighting_c (void)
{
  static const gdouble table_c[] = { -14.3, -11.2, -8.5, -6.2, -4.4, -3.0,
    -2.0, -1.3, -0.8, -0.5, -0.3, -0.2, -0.1, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
    0.0, 0.0, 0.0, -0.1, -0.2, -0.3, -0.5, -0.8, -1.3, -2.0, -3.0, -4.4,
    -6.2, -8.5, -11.2
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (table_c); i++) {
    gdouble f = 1000.0 * pow (10.0, 0.1 * ((gint) i - 20));

    g_assert_cmpfloat (fabs (gst_gpu_fft_bands_weighting_db
            (GST_GPU_FFT_WEIGHTING_C, f, 48000.0) - table_c[i]), <=, 0.05);
  }
  g_assert_cmpfloat (gst_gpu_fft_bands_weighting_db (GST_GPU_FFT_WEIGHTING_A,
          1000.0, 48000.0), ==, 0.0);
  g_assert_cmpfloat (gst_gpu_fft_bands_weighting_db (GST_GPU_FFT_WEIGHTING_C,
          1000.0, 48000.0), ==, 0.0);
  g_assert_cmpfloat (gst_gpu_fft_bands_weighting_db (GST_GPU_FFT_WEIGHTING_Z,
          50.0, 48000.0), ==, 0.0);
}

/* K weighting: at 48 kHz the coefficients of ITU-R BS.1770-4 Tables 1 and
 * 2 (to 1e-12); the curve, written out here from those coefficients,
 * -0.691 dB, at 0 dB at 997 Hz; at 44.1, 96 and 192 kHz the same curve
 * below 10 kHz within 0.05 dB (the analogue filters the coefficients come
 * from: the bilinear transform bends them, 48 kHz's by up to 0.04 dB
 * there against 192 kHz's), and -inf at DC. */
static gdouble
biquad_db (const gdouble * b, const gdouble * a, gdouble f, gdouble fs)
{
  gdouble w = 2 * G_PI * f / fs;
  gdouble nr = b[0] + b[1] * cos (w) + b[2] * cos (2 * w);
  gdouble ni = -b[1] * sin (w) - b[2] * sin (2 * w);
  gdouble dr = a[0] + a[1] * cos (w) + a[2] * cos (2 * w);
  gdouble di = -a[1] * sin (w) - a[2] * sin (2 * w);

  return 10 * log10 ((nr * nr + ni * ni) / (dr * dr + di * di));
}

static void
test_weighting_k (void)
{
  static const gdouble table_b[2][3] = {
    {1.53512485958697, -2.69169618940638, 1.19839281085285},
    {1.0, -2.0, 1.0}
  };
  static const gdouble table_a[2][3] = {
    {1.0, -1.69065929318241, 0.73248077421585},
    {1.0, -1.99004745483398, 0.99007225036621}
  };
  static const gdouble rates[] = { 44100, 96000, 192000 };
  gdouble b[2][3], a[2][3], f;
  guint i, j, r;

  gst_gpu_fft_bands_k_filter (48000.0, b, a);
  for (i = 0; i < 2; i++)
    for (j = 0; j < 3; j++) {
      g_assert_cmpfloat (fabs (b[i][j] - table_b[i][j]), <=, 1e-12);
      g_assert_cmpfloat (fabs (a[i][j] - table_a[i][j]), <=, 1e-12);
    }
  for (f = 10.0; f < 24000.0; f *= 1.1) {
    gdouble ref = biquad_db (table_b[0], table_a[0], f, 48000.0) +
        biquad_db (table_b[1], table_a[1], f, 48000.0) - 0.691;

    g_assert_cmpfloat (fabs (gst_gpu_fft_bands_weighting_db
            (GST_GPU_FFT_WEIGHTING_K, f, 48000.0) - ref), <=, 1e-9);
    for (r = 0; r < G_N_ELEMENTS (rates) && f < 10000.0; r++)
      g_assert_cmpfloat (fabs (gst_gpu_fft_bands_weighting_db
              (GST_GPU_FFT_WEIGHTING_K, f, rates[r]) - ref), <=, 0.05);
  }
  g_assert_cmpfloat (fabs (gst_gpu_fft_bands_weighting_db
          (GST_GPU_FFT_WEIGHTING_K, 997.0, 48000.0)), <=, 1e-4);
  g_assert_true (isinf (gst_gpu_fft_bands_weighting_db
          (GST_GPU_FFT_WEIGHTING_K, 0.0, 48000.0)));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/bands/mel-librosa", test_mel_librosa);
  g_test_add_func ("/bands/mel-torchaudio", test_mel_torchaudio);
  g_test_add_func ("/bands/octave-iec", test_octave_iec);
  g_test_add_func ("/bands/octave-half", test_octave_half);
  g_test_add_func ("/bands/weighting-c", test_weighting_c);
  g_test_add_func ("/bands/weighting-k", test_weighting_k);
  return g_test_run ();
}
