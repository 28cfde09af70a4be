/* Calibration: a full-scale sine on a bin centre reads 0.00 dB with every
 * window (scaling=spectrum), the density scaling follows scipy's formula,
 * the raw scaling is |X_k|^2 (hann and GStreamer's Hamming), and the phase
 * of the last frame matches a double DFT. */
#include "gpufft-test-common.h"

#define RATE 48000

/* one F32 stream of a bin-centred sine; checks bin k of every message */
static gdouble
sine_peak_db (RefWindow w, guint N, guint k, gdouble amp, gboolean density,
    gdouble expect_db)
{
  RefConfig c = { N, N / 2, w, density, RATE, 50 * GST_MSECOND };
  gsize n = RATE / 5, i, m;
  gdouble *x = g_new0 (gdouble, n), worst = 0;
  gdouble freq = (gdouble) k * RATE / N;
  Run *run;

  gen_tone (x, n, 1, amp, freq, RATE, 0.3);
  run = run_mono (&c, -120, x, n, 4800, NULL);
  fail_unless (run->m->spectrum->len >= 3);
  for (m = 0; m < run->m->spectrum->len; m++) {
    const GstStructure *s = g_ptr_array_index (run->m->spectrum, m);
    RefInterval *r = g_ptr_array_index (run->refs, m);
    gfloat *got = msg_floats (s, "magnitude", NULL, NULL, NULL);
    gdouble err = got[k] - expect_db;

    /* the written-out reference agrees with the closed form */
    fail_unless (fabs (ref_db (&c, r->power[k], -120) - expect_db) < 1e-6);
    fail_unless (fabs (err) <= 0.01,
        "%s N=%u: bin %u reads %.4f dB, expected %.4f", ref_window_nick[w], N,
        k, got[k], expect_db);
    if (fabs (err) > fabs (worst))
      worst = err;
    compare_db (&c, got, r->power, -120, 0.01, ref_window_nick[w]);
    g_free (got);
  }
  /* dominant frequency on a bin centre */
  fail_unless_equals_int (run->m->dominant->len, run->m->spectrum->len);
  for (i = 0; i < run->m->dominant->len; i++) {
    const GstStructure *s = g_ptr_array_index (run->m->dominant, i);
    fail_unless (fabs (msg_double (s, "bin") - k) <= 0.001,
        "%s: dominant bin %.5f, expected %u", ref_window_nick[w],
        msg_double (s, "bin"), k);
    fail_unless (fabs (msg_double (s, "frequency") - freq) <=
        0.001 * RATE / N);
    fail_unless (fabs (msg_double (s, "magnitude") - expect_db) <= 0.01,
        "%s: dominant magnitude %.4f dB, expected %.4f", ref_window_nick[w],
        msg_double (s, "magnitude"), expect_db);
  }
  run_free (run);
  g_free (x);
  return worst;
}

/* scaling=raw: 10 log10 |X_k|^2 with nothing else: a full-scale sine on
 * bin k reads 20 log10 (sum (w) / 2) (hann: N/4; GStreamer's Hamming:
 * 0.53836 N / 2), bin by bin against |X|^2 written out */
static void
raw_level (const gchar * window, gdouble expect_db)
{
  const guint N = 1024, k = 64;
  gsize n = RATE / 2;
  gdouble *x = g_new0 (gdouble, n);
  Fmt f = { "F32LE", RATE, 1, FALSE };
  gchar *caps = fmt_caps_string (&f);
  GstBus *bus;
  GstHarness *h = harness_new (&bus, caps, "fft-size", "1024", "scaling",
      "raw", "window", window, "threshold", "-200", NULL);
  Msgs *m;
  guint i;

  gen_tone (x, n, 1, 1.0, (gdouble) k * RATE / N, RATE, 0.3);
  fmt_quantize (&f, x, n);
  push_samples (h, &f, x, n, 4800, 0, FALSE);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  m = msgs_collect (bus, 4, 60);
  fail_unless (m->spectrum->len >= 4);
  for (i = 0; i < m->spectrum->len; i++) {
    const GstStructure *s = g_ptr_array_index (m->spectrum, i);
    gfloat *got = msg_floats (s, "magnitude", NULL, NULL, NULL);

    fail_unless_equals_string (gst_structure_get_string (s, "scaling"),
        "raw");
    fail_unless (fabs (got[k] - expect_db) <= 0.01, "%s: bin %u reads %.4f "
        "dB, expected %.4f", window, k, got[k], expect_db);
    g_free (got);
  }
  msgs_free (m);
  harness_free (h, bus);
  g_free (caps);
  g_free (x);
}

GST_START_TEST (test_raw_scaling)
{
  raw_level ("hann", 20.0 * log10 (1024 / 4.0));
  raw_level ("hamming-gst", 20.0 * log10 (0.53836 * 1024 / 2.0));
}

GST_END_TEST;

GST_START_TEST (test_sine_0db_every_window)
{
  gint w;

  for (w = 0; w < REF_N_WINDOWS; w++) {
    gdouble e = sine_peak_db (w, 1024, 128, 1.0, FALSE, 0.0);
    g_print ("calibration %-16s N=1024: full-scale sine reads %+.5f dB\n",
        ref_window_nick[w], e);
  }
}

GST_END_TEST;

GST_START_TEST (test_sine_0db_fft_sizes)
{
  guint sizes[] = { 256, 4096 };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (sizes); i++) {
    gdouble e = sine_peak_db (REF_HANN, sizes[i], sizes[i] / 8, 1.0, FALSE,
        0.0);
    g_print ("calibration hann N=%u: full-scale sine reads %+.5f dB\n",
        sizes[i], e);
  }
  /* -6.02 dB for half scale, flat-top */
  sine_peak_db (REF_FLAT_TOP, 1024, 200, 0.5, FALSE, 20 * log10 (0.5));
}

GST_END_TEST;

/* density: a sine of amplitude A on bin k has D = A^2 (sum w)^2 /
 * (2 rate sum w^2), i.e. its power A^2/2 over the window's noise bandwidth */
GST_START_TEST (test_density_calibration)
{
  gint w;

  for (w = 0; w < REF_N_WINDOWS; w++) {
    guint N = 1024, i;
    gdouble *win = g_new (gdouble, N), s1 = 0, s2 = 0, expect, e;
    ref_window (w, N, win);
    for (i = 0; i < N; i++) {
      s1 += win[i];
      s2 += win[i] * win[i];
    }
    expect = 10 * log10 (0.25 * s1 * s1 / (2.0 * RATE * s2));
    e = sine_peak_db (w, N, 100, 0.5, TRUE, expect);
    g_print ("density %-16s: %.4f dB/Hz expected, error %+.5f dB\n",
        ref_window_nick[w], expect, e);
    g_free (win);
  }
}

GST_END_TEST;

static gdouble
wrap (gdouble a)
{
  return remainder (a, 2 * G_PI);
}

/* phase of the last frame of each interval, against a double DFT */
GST_START_TEST (test_phase)
{
  RefConfig c = { 1024, 512, REF_HANN, FALSE, RATE, 50 * GST_MSECOND };
  const gchar *props[] = { "message-phase", "true", NULL };
  gsize n = RATE / 5, m;
  gdouble *x = g_new0 (gdouble, n), worst = 0;
  Run *run;

  gen_tone (x, n, 1, 0.5, 100.0 * RATE / 1024, RATE, 1.0);
  gen_tone (x, n, 1, 0.25, 300.0 * RATE / 1024, RATE, -2.0);
  run = run_mono (&c, -120, x, n, 1000, props);
  for (m = 0; m < run->m->spectrum->len; m++) {
    const GstStructure *s = g_ptr_array_index (run->m->spectrum, m);
    RefInterval *r = g_ptr_array_index (run->refs, m);
    gfloat *ph = msg_floats (s, "phase", NULL, NULL, NULL);
    guint bins[] = { 99, 100, 101, 299, 300, 301 }, i;

    for (i = 0; i < G_N_ELEMENTS (bins); i++) {
      guint b = bins[i];
      gdouble ref = atan2 (r->im[b], r->re[b]);
      gdouble err = fabs (wrap (ph[b] - ref));
      fail_unless (err <= 1e-3, "interval %u bin %u: phase %.5f, "
          "reference %.5f", (guint) m, b, ph[b], ref);
      worst = MAX (worst, err);
    }
    g_free (ph);
  }
  g_print ("phase: worst error %.2e rad\n", worst);
  run_free (run);
  g_free (x);
}

GST_END_TEST;

static Suite *
calibration_suite (void)
{
  Suite *s = suite_create ("gpufftspectrum-calibration");
  TCase *tc = tcase_create ("calibration");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_sine_0db_every_window);
  tcase_add_test (tc, test_sine_0db_fft_sizes);
  tcase_add_test (tc, test_density_calibration);
  tcase_add_test (tc, test_phase);
  tcase_add_test (tc, test_raw_scaling);
  return s;
}

GST_CHECK_MAIN (calibration);
