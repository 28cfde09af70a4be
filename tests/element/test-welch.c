/* Noise + tones against the Welch formulas written out (double DFT of the
 * same frames, mean of the frames' power, then dB), both scalings, with
 * overlap, several windows; multi-frame averaging; threshold independence. */
#include "gpufft-test-common.h"

static gdouble *
noise_and_tones (gsize n, gint rate, gdouble sigma, guint32 seed)
{
  gdouble *x = g_new0 (gdouble, n);

  gen_noise (x, n, 1, sigma, seed);
  gen_tone (x, n, 1, 0.5, 1234.5, rate, 0.1);
  gen_tone (x, n, 1, 0.1, 9876.0, rate, 2.0);
  gen_tone (x, n, 1, 0.02, 15003.3, rate, -1.0);
  return x;
}

static void
welch_case (guint N, guint hop, RefWindow w, gboolean density, gint rate,
    guint64 interval, gsize n, gsize chunk)
{
  RefConfig c = { N, hop, w, density, rate, interval };
  gdouble *x = noise_and_tones (n, rate, 0.05, 1234 + N + w);
  gdouble e = run_and_compare (&c, -150, x, n, chunk, 0.01, NULL);

  g_print ("welch %-8s %-16s N=%-5u hop=%-4u: max error %.5f dB\n",
      density ? "density" : "spectrum", ref_window_nick[w], N, hop, e);
  g_free (x);
}

GST_START_TEST (test_welch_spectrum)
{
  /* 75 % overlap, hann */
  welch_case (1024, 256, REF_HANN, FALSE, 48000, 50 * GST_MSECOND, 14400,
      1000);
  /* hop that does not divide N, blackman-harris */
  welch_case (2048, 700, REF_BLACKMAN_HARRIS, FALSE, 44100,
      100 * GST_MSECOND, 22050, 4410);
  /* no overlap, rectangular */
  welch_case (256, 256, REF_RECTANGULAR, FALSE, 16000, 20 * GST_MSECOND,
      4000, 333);
  /* flat-top, 4096 */
  welch_case (4096, 2048, REF_FLAT_TOP, FALSE, 48000, 200 * GST_MSECOND,
      28800, 4096);
}

GST_END_TEST;

GST_START_TEST (test_welch_density)
{
  welch_case (1024, 512, REF_HANN, TRUE, 48000, 50 * GST_MSECOND, 14400,
      1024);
  welch_case (512, 128, REF_HAMMING, TRUE, 32000, 30 * GST_MSECOND, 6400,
      500);
  welch_case (1024, 300, REF_BLACKMAN, TRUE, 44100, 40 * GST_MSECOND, 8820,
      882);
}

GST_END_TEST;

/* Sizes that are not powers of two: 2-3-5-7 sizes (mixed-radix passes)
 * and others (Bluestein), against the same plain-DFT reference. */
GST_START_TEST (test_welch_any_size)
{
  /* M = 500 = 2^2 5^3 */
  welch_case (1000, 250, REF_HANN, FALSE, 48000, 50 * GST_MSECOND, 14400,
      960);
  /* spectrum's default nfft (bands 128): M = 127, a prime */
  welch_case (254, 254, REF_HAMMING, FALSE, 44100, 100 * GST_MSECOND, 8820,
      441);
  /* M = 255 = 3 5 17: Bluestein */
  welch_case (510, 170, REF_BLACKMAN, TRUE, 44100, 40 * GST_MSECOND, 8820,
      882);
  /* a Whisper front end's frames: 16 kHz, 400 points, hop 160 */
  welch_case (400, 160, REF_HANN, FALSE, 16000, 100 * GST_MSECOND, 8000,
      160);
  /* M = 2205 = 3^2 5 7^2 */
  welch_case (4410, 2205, REF_FLAT_TOP, FALSE, 44100, 200 * GST_MSECOND,
      17640, 4410);
}

GST_END_TEST;

/* Many frames per interval with a level that changes from frame to frame:
 * the mean of the frames' power differs from any one frame and from a mean
 * of dB values. */
GST_START_TEST (test_welch_averaging)
{
  RefConfig c = { 256, 128, REF_HANN, FALSE, 16000, 200 * GST_MSECOND };
  gsize n = 16000, i;
  gdouble *x = g_new0 (gdouble, n), e;
  Run *run;

  gen_noise (x, n, 1, 0.01, 77);
  for (i = 0; i < n; i++) {
    gdouble env = 0.05 + 0.9 * fabs (sin (2 * G_PI * 3.3 * i / 16000.0));
    x[i] += env * sin (2 * G_PI * 2000.0 * i / 16000.0);
  }
  e = run_and_compare (&c, -150, x, n, 1600, 0.01, NULL);
  g_print ("welch averaging N=256 hop=128: max error %.5f dB\n", e);

  /* frames: interval k holds the frames whose last sample is in it */
  run = run_mono (&c, -150, x, n, 1600, NULL);
  fail_unless_equals_int (run->m->spectrum->len, 5);
  fail_unless_equals_int (msg_uint (g_ptr_array_index (run->m->spectrum, 0),
          "frames"), 24);       /* last samples 255, 383, ..., 3199 */
  fail_unless_equals_int (msg_uint (g_ptr_array_index (run->m->spectrum, 1),
          "frames"), 25);
  run_free (run);
  g_free (x);
}

GST_END_TEST;

/* threshold is a floor applied after averaging: values above it do not
 * depend on it, values below it read exactly the threshold */
GST_START_TEST (test_threshold_independence)
{
  RefConfig c = { 512, 512, REF_HANN, FALSE, 32000, 64 * GST_MSECOND };
  gsize n = 32000 * 64 / 1000 * 4, i;   /* 4 intervals of 4 frames */
  gdouble *x = g_new0 (gdouble, n);
  Run *a, *b;
  guint m, bin, n_clamped = 0, n_between = 0, n_above = 0;

  /* a -85 dBFS tone present in half of the frames (averages near -88 dB),
   * a loud tone, and noise around -105 dB per bin */
  gen_noise (x, n, 1, 7e-5, 5);
  gen_tone (x, n, 1, 1.0, 4000.0, 32000, 0);
  for (i = 0; i < n; i++)
    if ((i / 512) % 2 == 0)
      x[i] += pow (10, -85 / 20.0) * sin (2 * G_PI * 10000.0 * i / 32000);

  a = run_mono (&c, -90, x, n, 2048, NULL);
  b = run_mono (&c, -120, x, n, 2048, NULL);
  fail_unless_equals_int (a->m->spectrum->len, b->m->spectrum->len);
  for (m = 0; m < a->m->spectrum->len; m++) {
    gfloat *va = msg_floats (g_ptr_array_index (a->m->spectrum, m),
        "magnitude", NULL, NULL, NULL);
    gfloat *vb = msg_floats (g_ptr_array_index (b->m->spectrum, m),
        "magnitude", NULL, NULL, NULL);
    RefInterval *r = g_ptr_array_index (a->refs, m);

    compare_db (&c, va, r->power, -90, 0.01, "threshold -90");
    compare_db (&c, vb, r->power, -120, 0.01, "threshold -120");
    for (bin = 0; bin <= 256; bin++) {
      fail_unless (va[bin] >= -90.0f && vb[bin] >= -120.0f);
      if (vb[bin] > -90.0f) {
        fail_unless (fabs (va[bin] - vb[bin]) <= 1e-4,
            "bin %u: %.5f dB at threshold -90, %.5f dB at -120", bin,
            va[bin], vb[bin]);
        n_above++;
      } else {
        fail_unless (va[bin] == -90.0f, "bin %u: %.6f dB should be clamped "
            "to exactly -90", bin, va[bin]);
        n_clamped++;
        if (vb[bin] > -120.0f)
          n_between++;
      }
    }
    /* the intermittent tone averages to about -88 dB at both thresholds */
    fail_unless (va[160] > -90.0f && va[160] < -85.0f,
        "intermittent tone reads %.3f dB", va[160]);
    g_free (va);
    g_free (vb);
  }
  fail_unless (n_above > 0 && n_clamped > 0 && n_between > 0);
  run_free (a);
  run_free (b);
  g_free (x);
}

GST_END_TEST;

static Suite *
welch_suite (void)
{
  Suite *s = suite_create ("gpufftspectrum-welch");
  TCase *tc = tcase_create ("welch");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_welch_spectrum);
  tcase_add_test (tc, test_welch_density);
  tcase_add_test (tc, test_welch_any_size);
  tcase_add_test (tc, test_welch_averaging);
  tcase_add_test (tc, test_threshold_independence);
  return s;
}

GST_CHECK_MAIN (welch);
