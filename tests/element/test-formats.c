/* Every sample format gives the same spectrum (integers / 2^(bits-1)),
 * planar equals interleaved, multi-channel shape and values, downmix = mean
 * of the channels, message-format=bytes equals the lists, passthrough is
 * bit-exact. */
#include "gpufft-test-common.h"

#define RATE 48000
#define NFFT 512
#define BW ((gdouble) RATE / NFFT)

static const gchar *formats[] = { "S16LE", "S24LE", "S32LE", "F32LE", "F64LE" };

static const RefConfig cfg = { NFFT, 256, REF_HANN, FALSE, RATE,
  50 * GST_MSECOND
};

/* interleaved x[n * channels] through an element with the geometry of cfg
 * plus props; waits for n_expect spectrum messages */
static Msgs *
run_fmt (const Fmt * f, const gdouble * x, gsize n, gsize chunk,
    const gchar * multi, const gchar * msgfmt, guint n_expect)
{
  gchar *caps = fmt_caps_string (f);
  GstBus *bus;
  GstHarness *h = harness_new (&bus, caps, "fft-size", "512", "hop-size",
      "256", "interval", "50000000", "threshold", "-150", "multi-channel",
      multi, "message-format", msgfmt, "message-phase", "true", NULL);
  Msgs *m;

  push_samples (h, f, x, n, chunk, 0, FALSE);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  m = msgs_collect (bus, n_expect, 120);
  fail_unless_equals_int (m->errors->len, 0);
  fail_unless_equals_int (m->spectrum->len, n_expect);
  harness_free (h, bus);
  g_free (caps);
  return m;
}

/* channel c of interleaved x, or the mean of all channels when c < 0 */
static gdouble *
channel_of (const gdouble * x, gsize n, gint channels, gint c)
{
  gdouble *y = g_new0 (gdouble, n);
  gsize i;
  gint k;

  for (i = 0; i < n; i++) {
    if (c >= 0) {
      y[i] = x[i * channels + c];
    } else {
      for (k = 0; k < channels; k++)
        y[i] += x[i * channels + k];
      y[i] /= channels;
    }
  }
  return y;
}

/* refs[c] = ref_welch of channel c (or of the mean when downmix) */
static GPtrArray **
refs_for (const gdouble * x, gsize n, gint channels, gboolean downmix)
{
  gint nref = downmix ? 1 : channels, c;
  GPtrArray **refs = g_new0 (GPtrArray *, nref);

  for (c = 0; c < nref; c++) {
    gdouble *y = channel_of (x, n, channels, downmix ? -1 : c);
    refs[c] = ref_welch (&cfg, y, n);
    g_free (y);
  }
  return refs;
}

static void
refs_free (GPtrArray ** refs, gint n)
{
  gint c;

  for (c = 0; c < n; c++)
    g_ptr_array_unref (refs[c]);
  g_free (refs);
}

/* compares every message of m to refs; returns the largest dB error */
static gdouble
check_against_refs (Msgs * m, GPtrArray ** refs, gint out_channels,
    gchar expect_layout, gint channels_field)
{
  gdouble worst = 0;
  guint i;
  gint c;

  fail_unless_equals_int (m->spectrum->len, refs[0]->len);
  for (i = 0; i < m->spectrum->len; i++) {
    const GstStructure *s = g_ptr_array_index (m->spectrum, i);
    guint ch, nb;
    gchar layout;
    gfloat *got = msg_floats (s, "magnitude", &ch, &nb, &layout);

    check_spectrum_fields (s, &cfg, g_ptr_array_index (refs[0], i), 0,
        channels_field);
    fail_unless_equals_int (layout, expect_layout);
    fail_unless_equals_int (ch, out_channels);
    for (c = 0; c < out_channels; c++) {
      RefInterval *r = g_ptr_array_index (refs[c], i);
      gchar *what = g_strdup_printf ("message %u channel %d", i, c);
      worst = MAX (worst, compare_db (&cfg, got + (gsize) c * nb, r->power,
              -150, 0.01, what));
      g_free (what);
    }
    g_free (got);
  }
  return worst;
}

/* values of two runs agree within tol dB on bins within 30 dB of the
 * loudest (all bins when loud_only is FALSE) */
static void
check_runs_equal (Msgs * a, Msgs * b, const gchar * field, gdouble tol,
    gboolean loud_only, const gchar * what)
{
  guint i, k;

  fail_unless_equals_int (a->spectrum->len, b->spectrum->len);
  for (i = 0; i < a->spectrum->len; i++) {
    guint cha, chb, nb;
    gfloat *va = msg_floats (g_ptr_array_index (a->spectrum, i), field, &cha,
        &nb, NULL);
    gfloat *vb = msg_floats (g_ptr_array_index (b->spectrum, i), field, &chb,
        NULL, NULL);
    gfloat mx = -1000;

    fail_unless_equals_int (cha, chb);
    for (k = 0; k < cha * nb; k++)
      mx = MAX (mx, va[k]);
    for (k = 0; k < cha * nb; k++) {
      if (loud_only && va[k] < mx - 30)
        continue;
      fail_unless (fabs (va[k] - vb[k]) <= tol, "%s: message %u value %u: "
          "%.7f vs %.7f", what, i, k, va[k], vb[k]);
    }
    g_free (va);
    g_free (vb);
  }
}

/* two channels on the S16 grid, so every format carries the same values */
static gdouble *
stereo_signal (gsize n)
{
  gdouble *x = g_new0 (gdouble, n * 2);
  Fmt s16 = { "S16LE", RATE, 2, FALSE };

  gen_noise (x, n, 2, 0.02, 1);
  gen_tone (x, n, 2, 0.6, 1000.0, RATE, 0.5);
  gen_noise (x + 1, n, 2, 0.05, 2);
  gen_tone (x + 1, n, 2, 0.3, 7777.7, RATE, 1.5);
  fmt_quantize (&s16, x, n * 2);
  return x;
}

GST_START_TEST (test_formats_same_spectrum)
{
  gsize n = 9600;
  gdouble *x = stereo_signal (n);
  GPtrArray **refs = refs_for (x, n, 2, FALSE);
  Msgs *m[G_N_ELEMENTS (formats)];
  guint i;

  for (i = 0; i < G_N_ELEMENTS (formats); i++) {
    Fmt f = { formats[i], RATE, 2, FALSE };
    gdouble e;
    m[i] = run_fmt (&f, x, n, 1000, "true", "list", refs[0]->len);
    e = check_against_refs (m[i], refs, 2, 'a', 2);
    g_print ("format %s: max error vs reference %.5f dB\n", formats[i], e);
  }
  /* identical input values: identical spectra (S16 / 32767 instead of
   * 32768 would differ by 2.6e-4 dB) */
  for (i = 0; i + 1 < G_N_ELEMENTS (formats); i++)
    check_runs_equal (m[i], m[G_N_ELEMENTS (formats) - 1], "magnitude", 5e-5,
        TRUE, formats[i]);
  for (i = 0; i < G_N_ELEMENTS (formats); i++)
    msgs_free (m[i]);
  refs_free (refs, 2);
  g_free (x);
}

GST_END_TEST;

GST_START_TEST (test_planar)
{
  const gchar *fm[] = { "F32LE", "S24LE", "S16LE" };
  gsize n = 7200, i;
  gdouble *x = g_new0 (gdouble, n * 3);
  GPtrArray **refs, **refmix;
  guint k;

  gen_noise (x, n, 3, 0.03, 3);
  gen_tone (x, n, 3, 0.5, 2000.0, RATE, 0);
  gen_tone (x + 1, n, 3, 0.4, 5000.0, RATE, 0);
  gen_noise (x + 2, n, 3, 0.1, 4);
  for (i = 0; i < n * 3; i++)
    x[i] = CLAMP (x[i], -0.99, 0.99);
  {
    Fmt s16 = { "S16LE", RATE, 3, FALSE };
    fmt_quantize (&s16, x, n * 3);
  }
  refs = refs_for (x, n, 3, FALSE);
  refmix = refs_for (x, n, 3, TRUE);
  for (k = 0; k < G_N_ELEMENTS (fm); k++) {
    Fmt fi = { fm[k], RATE, 3, FALSE }, fp = { fm[k], RATE, 3, TRUE};
    Msgs *mi = run_fmt (&fi, x, n, 700, "true", "list", refs[0]->len);
    Msgs *mp = run_fmt (&fp, x, n, 700, "true", "list", refs[0]->len);
    Msgs *mm = run_fmt (&fp, x, n, 1111, "false", "list", refs[0]->len);

    check_against_refs (mi, refs, 3, 'a', 3);
    check_against_refs (mp, refs, 3, 'a', 3);
    check_runs_equal (mi, mp, "magnitude", 1e-5, FALSE, "planar magnitude");
    check_runs_equal (mi, mp, "phase", 1e-5, FALSE, "planar phase");
    check_against_refs (mm, refmix, 1, 'l', -1);
    msgs_free (mi);
    msgs_free (mp);
    msgs_free (mm);
  }
  refs_free (refs, 3);
  refs_free (refmix, 1);
  g_free (x);
}

GST_END_TEST;

GST_START_TEST (test_multichannel_shape)
{
  gsize n = 4800;
  gdouble *x = g_new0 (gdouble, n * 3);
  Fmt f = { "F32LE", RATE, 3, FALSE };
  GPtrArray **refs;
  Msgs *m;
  guint i;

  gen_tone (x, n, 3, 0.5, 100 * BW, RATE, 0.1);
  gen_tone (x + 1, n, 3, 0.25, 200 * BW, RATE, 0.2);
  gen_noise (x + 2, n, 3, 0.01, 5);
  fmt_quantize (&f, x, n * 3);
  refs = refs_for (x, n, 3, FALSE);
  m = run_fmt (&f, x, n, 480, "true", "list", refs[0]->len);
  check_against_refs (m, refs, 3, 'a', 3);
  fail_unless_equals_int (m->dominant->len, m->spectrum->len);
  for (i = 0; i < m->spectrum->len; i++) {
    const GstStructure *s = g_ptr_array_index (m->spectrum, i);
    const GstStructure *d = g_ptr_array_index (m->dominant, i);
    gfloat *mag = msg_floats (s, "magnitude", NULL, NULL, NULL);

    /* [channel][bin] */
    fail_unless (fabs (mag[100] - 20 * log10 (0.5)) <= 0.01);
    fail_unless (fabs (mag[(NFFT / 2 + 1) + 200] - 20 * log10 (0.25)) <=
        0.01);
    fail_unless (fabs (msg_double_ch (d, "frequency", 0) - 100 * BW) <=
        0.001 * BW);
    fail_unless (fabs (msg_double_ch (d, "frequency", 1) - 200 * BW) <=
        0.001 * BW);
    fail_unless (fabs (msg_double_ch (d, "bin", 1) - 200) <= 0.001);
    fail_unless (fabs (msg_double_ch (d, "magnitude", 0) - 20 * log10 (0.5))
        <= 0.01);
    fail_unless (fabs (msg_double_ch (d, "magnitude", 1) -
            20 * log10 (0.25)) <= 0.01);
    fail_unless_equals_int (gst_value_array_get_size (gst_structure_get_value
            (d, "frequency")), 3);
    g_free (mag);
  }
  msgs_free (m);
  refs_free (refs, 3);
  g_free (x);
}

GST_END_TEST;

GST_START_TEST (test_downmix)
{
  const gchar *fm[] = { "F32LE", "S24LE", "S16LE", "S32LE", "F64LE" };
  gsize n = 4800;
  gdouble *x = g_new0 (gdouble, n * 2);
  GPtrArray **refs;
  guint k, i;

  gen_tone (x, n, 2, 0.999, 100 * BW, RATE, 0.1);
  gen_tone (x + 1, n, 2, 0.999, 200 * BW, RATE, 0.2);
  {
    Fmt s16 = { "S16LE", RATE, 2, FALSE };
    fmt_quantize (&s16, x, n * 2);
  }
  refs = refs_for (x, n, 2, TRUE);
  for (k = 0; k < G_N_ELEMENTS (fm); k++) {
    Fmt f = { fm[k], RATE, 2, FALSE };
    Msgs *m = run_fmt (&f, x, n, 1000, "false", "list", refs[0]->len);

    check_against_refs (m, refs, 1, 'l', -1);
    for (i = 0; i < m->spectrum->len; i++) {
      gfloat *mag = msg_floats (g_ptr_array_index (m->spectrum, i),
          "magnitude", NULL, NULL, NULL);
      /* each tone at half amplitude in the mean */
      fail_unless (fabs (mag[100] - 20 * log10 (0.4995)) <= 0.01,
          "%s: bin 100 reads %.4f dB", fm[k], mag[100]);
      fail_unless (fabs (mag[200] - 20 * log10 (0.4995)) <= 0.01);
      g_free (mag);
    }
    msgs_free (m);
  }
  refs_free (refs, 1);
  g_free (x);
}

GST_END_TEST;

GST_START_TEST (test_bytes_equals_list)
{
  gsize n = 4800;
  gdouble *x = stereo_signal (n);
  Fmt f = { "F32LE", RATE, 2, FALSE };
  GPtrArray **refs = refs_for (x, n, 2, FALSE);
  const gchar *multi[] = { "true", "false" };
  guint k, i;

  for (k = 0; k < 2; k++) {
    Msgs *ml = run_fmt (&f, x, n, 1200, multi[k], "list", refs[0]->len);
    Msgs *mb = run_fmt (&f, x, n, 1200, multi[k], "bytes", refs[0]->len);
    for (i = 0; i < mb->spectrum->len; i++) {
      guint ch;
      gchar layout;
      gfloat *v = msg_floats (g_ptr_array_index (mb->spectrum, i),
          "magnitude", &ch, NULL, &layout);
      fail_unless_equals_int (layout, 'b');
      fail_unless_equals_int (ch, k == 0 ? 2 : 1);
      g_free (v);
      v = msg_floats (g_ptr_array_index (mb->spectrum, i), "phase", &ch,
          NULL, &layout);
      fail_unless_equals_int (layout, 'b');
      fail_unless_equals_int (ch, k == 0 ? 2 : 1);
      g_free (v);
    }
    check_runs_equal (ml, mb, "magnitude", 1e-6, FALSE, "bytes magnitude");
    check_runs_equal (ml, mb, "phase", 1e-6, FALSE, "bytes phase");
    if (k == 0)
      check_against_refs (mb, refs, 2, 'b', 2);
    msgs_free (ml);
    msgs_free (mb);
  }
  refs_free (refs, 2);
  g_free (x);
}

GST_END_TEST;

GST_START_TEST (test_passthrough_bit_exact)
{
  guint k, planar;

  for (planar = 0; planar < 2; planar++)
    for (k = 0; k < G_N_ELEMENTS (formats); k++) {
      Fmt f = { formats[k], RATE, 2, planar };
      gchar *caps = fmt_caps_string (&f);
      GstBus *bus;
      GstHarness *h = harness_new (&bus, caps, "fft-size", "256", NULL);
      gsize n = 1000, chunk = 333, off;
      gdouble *x = g_new0 (gdouble, n * 2);

      gen_noise (x, n * 2, 1, 0.3, 11 + k);
      for (off = 0; off < n; off += chunk) {
        gsize len = MIN (chunk, n - off);
        /* `in` is an independent copy of what is pushed */
        GstBuffer *in = fmt_make_buffer (&f, x + off * 2, len,
            off * GST_SECOND / RATE);
        GstBuffer *out;
        GstMapInfo mi, mo;

        fail_unless_equals_int (gst_harness_push (h, fmt_make_buffer (&f,
                    x + off * 2, len, off * GST_SECOND / RATE)), GST_FLOW_OK);
        out = gst_harness_pull (h);
        fail_unless (out != NULL);
        fail_unless (gst_buffer_map (in, &mi, GST_MAP_READ));
        fail_unless (gst_buffer_map (out, &mo, GST_MAP_READ));
        fail_unless_equals_int (mi.size, mo.size);
        fail_unless (memcmp (mi.data, mo.data, mi.size) == 0,
            "%s%s: output differs from input", formats[k],
            planar ? " planar" : "");
        gst_buffer_unmap (in, &mi);
        gst_buffer_unmap (out, &mo);
        fail_unless_equals_uint64 (GST_BUFFER_PTS (out), GST_BUFFER_PTS (in));
        fail_unless_equals_uint64 (GST_BUFFER_DURATION (out),
            GST_BUFFER_DURATION (in));
        gst_buffer_unref (in);
        gst_buffer_unref (out);
      }
      harness_free (h, bus);
      g_free (x);
      g_free (caps);
    }
}

GST_END_TEST;

static Suite *
formats_suite (void)
{
  Suite *s = suite_create ("gpufftspectrum-formats");
  TCase *tc = tcase_create ("formats");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_formats_same_spectrum);
  tcase_add_test (tc, test_planar);
  tcase_add_test (tc, test_multichannel_shape);
  tcase_add_test (tc, test_downmix);
  tcase_add_test (tc, test_bytes_equals_list);
  tcase_add_test (tc, test_passthrough_bit_exact);
  return s;
}

GST_CHECK_MAIN (formats);
