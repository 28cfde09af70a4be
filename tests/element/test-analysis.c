/* gpufftspectrum's analyser modes against references written out here, in
 * double precision, from the published definitions:
 *   octave bands  IEC 61260-1:2014 base-ten mid-band and edge frequencies;
 *                 band value 10 log10 (2 sum_k frac_k D_k df), frac_k the
 *                 share of bin k's width [f_k - df/2, f_k + df/2] inside
 *                 the band, D_k the one-sided density (scipy's welch)
 *   log bands     edges f_lo (f_hi / f_lo)^(i / n), density scaling: the
 *                 band power divided by its width
 *   mel           librosa.filters.mel (slaney scale and norm) on |X_k|^2
 *                 (scaling=raw): librosa's melspectrogram of the frames
 *   weighting     IEC 61672-1 closed forms, normalised at 1 kHz; K from
 *                 BS.1770-4's 48 kHz coefficients, - 0.691 dB
 *   level         10 log10 (2 sum_k g_k D_k df)
 *   exponential   y = a y + (1 - a) p per frame, a = exp (-hop / (rate tau))
 *   max-hold      held until the reset action
 *   message-frames each frame's own spectrum and its timestamp */
#include "gpufft-test-common.h"

#define RATE 48000
#define N 1024
#define NB (N / 2 + 1)
#define SECONDS 1

static const Fmt f32 = { "F32LE", RATE, 1, FALSE };

/* the test signal: three tones and noise */
static gdouble *
signal_new (gsize n, guint32 seed)
{
  gdouble *x = g_new0 (gdouble, n);

  gen_tone (x, n, 1, 0.3, 1000.0, RATE, 0.1);
  gen_tone (x, n, 1, 0.05, 180.0, RATE, 0.7);
  gen_tone (x, n, 1, 0.01, 7000.0, RATE, 1.3);
  gen_noise (x, n, 1, 0.01, seed);
  fmt_quantize (&f32, x, n);
  return x;
}

/* Runs gpufftspectrum (bytes messages) on x; returns its messages. */
static Msgs *
run_fmt (const Fmt * fmt, const gdouble * x, gsize n, guint n_msgs,
    const gchar * first, va_list args)
{
  GstHarness *h;
  GstBus *bus;
  Msgs *m;
  gchar *caps = fmt_caps_string (fmt);
  GstElement *el;

  h = harness_new (&bus, caps, "message-format", "bytes", "fft-size", "1024",
      "interval", "100000000", NULL);
  el = h->element;
  while (first) {
    const gchar *v = va_arg (args, const gchar *);

    gst_util_set_object_arg (G_OBJECT (el), first, v);
    first = va_arg (args, const gchar *);
  }
  push_samples (h, fmt, x, n, fmt->rate / 100, 0, TRUE);
  gst_harness_push_event (h, gst_event_new_eos ());
  m = msgs_collect (bus, n_msgs, 60.0);
  fail_unless_equals_int (m->errors->len, 0);
  harness_free (h, bus);
  g_free (caps);
  return m;
}

static Msgs *
run (const gdouble * x, gsize n, guint n_msgs, const gchar * first, ...)
{
  va_list args;
  Msgs *m;

  va_start (args, first);
  m = run_fmt (&f32, x, n, n_msgs, first, args);
  va_end (args);
  return m;
}

static Msgs *
run_as (const Fmt * fmt, const gdouble * x, gsize n, guint n_msgs,
    const gchar * first, ...)
{
  va_list args;
  Msgs *m;

  va_start (args, first);
  m = run_fmt (fmt, x, n, n_msgs, first, args);
  va_end (args);
  return m;
}

/* A float32 GBytes field: n values (g_free) */
static gfloat *
bytes_floats (const GstStructure * s, const gchar * field, gsize * n)
{
  const GValue *v = gst_structure_get_value (s, field);
  GBytes *b;
  gsize size;
  gconstpointer d;

  fail_unless (v != NULL && G_VALUE_HOLDS (v, G_TYPE_BYTES), "no %s", field);
  b = g_value_get_boxed (v);
  d = g_bytes_get_data (b, &size);
  *n = size / sizeof (gfloat);
  return g_memdup2 (d, size);
}

static gdouble *
doubles (const GstStructure * s, const gchar * field, guint * n)
{
  const GValue *v = gst_structure_get_value (s, field);
  gdouble *d;
  guint i;

  fail_unless (v != NULL && GST_VALUE_HOLDS_ARRAY (v), "no %s", field);
  *n = gst_value_array_get_size (v);
  d = g_new (gdouble, *n);
  for (i = 0; i < *n; i++)
    d[i] = g_value_get_double (gst_value_array_get_value (v, i));
  return d;
}

/* sum_k frac_k v_k over the bins band [f1, f2] overlaps (written out
 * again here, from the bins' widths) */
static gdouble
band_sum (const gdouble * v, gdouble f1, gdouble f2)
{
  gdouble df = (gdouble) RATE / N, s = 0.0;
  guint k;

  for (k = 0; k < NB; k++) {
    gdouble lo = MAX (f1, (k - 0.5) * df), hi = MIN (f2, (k + 0.5) * df);

    if (hi > lo)
      s += (hi - lo) / df * v[k];
  }
  return s;
}

static const RefConfig ref_cfg = { N, N / 2, REF_HANN, TRUE, RATE,
  100 * GST_MSECOND
};

/* 1/3-octave bands: frequencies and values */
GST_START_TEST (test_octave)
{
  gsize n = SECONDS * RATE, nv;
  gdouble *x = signal_new (n, 1);
  GPtrArray *refs = ref_welch (&ref_cfg, x, n);
  Msgs *m = run (x, n, 10, "frequency-scale", "octave", "octave-fraction",
      "3", NULL);
  const gdouble g = pow (10.0, 0.3), df = (gdouble) RATE / N;
  guint i, b, nc, ne, nn, checked = 0;
  gdouble worst = 0;

  fail_unless (m->spectrum->len >= 10);
  for (i = 0; i < 10; i++) {
    const GstStructure *s = g_ptr_array_index (m->spectrum, i);
    const RefInterval *r = g_ptr_array_index (refs, i);
    gfloat *mag = bytes_floats (s, "magnitude", &nv);
    gdouble *fc = doubles (s, "band-frequencies", &nc);
    gdouble *fe = doubles (s, "band-edges", &ne);
    gdouble *nom = doubles (s, "band-nominal", &nn);
    guint resolved = msg_uint (s, "resolved-from");

    fail_unless_equals_int (nv, nc);
    fail_unless_equals_int (ne, nc + 1);
    fail_unless_equals_int (nn, nc);
    /* 20 Hz (x = -17) .. 20 kHz (x = 13): the bands around 20 Hz .. the
     * Nyquist frequency */
    fail_unless_equals_int (nc, 31);
    for (b = 0; b < nc; b++) {
      gint xb = -17 + (gint) b;
      gdouble fm = 1000.0 * pow (g, xb / 3.0);
      gdouble ref;

      fail_unless (fabs (fc[b] - fm) <= 1e-9 * fm, "band %u: %.12g Hz, "
          "IEC %.12g", b, fc[b], fm);
      fail_unless (fabs (fe[b] - fm * pow (g, -1.0 / 6)) <= 1e-9 * fm);
      fail_unless (fabs (fe[b + 1] - fm * pow (g, 1.0 / 6)) <= 1e-9 * fm);
      /* the R10 series: 10^(x/10) rounded */
      fail_unless (fabs (nom[b] - fm) <= 0.03 * fm, "nominal %g for %g",
          nom[b], fm);
      ref = 10.0 * log10 (2.0 * band_sum (r->power, fe[b], fe[b + 1]) * df);
      if (ref > -80.0) {
        fail_unless (fabs (mag[b] - ref) <= 0.01, "interval %u band %u "
            "(%.1f Hz): %.4f dB, reference %.4f", i, b, fm, mag[b], ref);
        worst = MAX (worst, fabs (mag[b] - ref));
        checked++;
      }
      if (b < resolved)
        fail_unless (fe[b + 1] - fe[b] < 2 * df);
      else
        fail_unless (fe[b + 1] - fe[b] >= 2 * df);
    }
    fail_unless_equals_float (nom[17], 1000.0);
    fail_unless_equals_float (nom[0], 20.0);
    fail_unless_equals_float (nom[5], 63.0);
    fail_unless_equals_float (nom[12], 315.0);
    g_free (mag);
    g_free (fc);
    g_free (fe);
    g_free (nom);
  }
  fail_unless (checked > 200);
  g_print ("1/3 octave: %u band values, worst %.5f dB\n", checked, worst);
  msgs_free (m);
  g_ptr_array_unref (refs);
  g_free (x);
}

GST_END_TEST;

/* log bands, density scaling: the band's power over its width */
GST_START_TEST (test_log_density)
{
  /* 12 bands (several invocations per band in the kernel) and 300 (more
   * bands than invocations: whole bands each) */
  static const guint counts[] = { 12, 300 };
  gsize n = SECONDS * RATE, nv;
  gdouble *x = signal_new (n, 2);
  GPtrArray *refs = ref_welch (&ref_cfg, x, n);
  const gdouble df = (gdouble) RATE / N;
  guint i, b, c;
  gdouble worst = 0;

  for (c = 0; c < G_N_ELEMENTS (counts); c++) {
    gchar *nb = g_strdup_printf ("%u", counts[c]);
    Msgs *m = run (x, n, 10, "frequency-scale", "log", "log-bands", nb,
        "min-frequency", "100", "max-frequency", "16000", "scaling",
        "density", NULL);

    for (i = 0; i < 10; i++) {
      const GstStructure *s = g_ptr_array_index (m->spectrum, i);
      const RefInterval *r = g_ptr_array_index (refs, i);
      gfloat *mag = bytes_floats (s, "magnitude", &nv);

      fail_unless_equals_int (nv, counts[c]);
      for (b = 0; b < counts[c]; b++) {
        gdouble f1 = 100.0 * pow (160.0, (gdouble) b / counts[c]);
        gdouble f2 = 100.0 * pow (160.0, (gdouble) (b + 1) / counts[c]);
        gdouble ref = 10.0 * log10 (band_sum (r->power, f1, f2) * df /
            (f2 - f1));

        fail_unless (fabs (mag[b] - ref) <= 0.01, "%u bands, interval %u "
            "band %u: %.4f dB, reference %.4f", counts[c], i, b, mag[b], ref);
      }
      g_free (mag);
    }
    msgs_free (m);
    g_free (nb);
  }
  g_print ("log bands (density): worst %.5f dB\n", worst);
  g_ptr_array_unref (refs);
  g_free (x);
}

GST_END_TEST;

/* librosa's slaney mel scale, written out */
static gdouble
mel_slaney (gdouble f)
{
  return f < 1000.0 ? f * 3.0 / 200.0 : 15.0 + log (f / 1000.0) /
      (log (6.4) / 27.0);
}

static gdouble
mel_slaney_inv (gdouble m)
{
  return m < 15.0 ? m * 200.0 / 3.0 : 1000.0 * exp (log (6.4) / 27.0 *
      (m - 15.0));
}

/* mel, raw scaling: librosa.feature.melspectrogram's sum fb[m,k] |X_k|^2,
 * the mean over the interval's frames */
GST_START_TEST (test_mel_raw)
{
  gsize n = SECONDS * RATE, nv;
  gdouble *x = signal_new (n, 3);
  GPtrArray *refs = ref_welch (&ref_cfg, x, n);
  Msgs *m = run (x, n, 10, "frequency-scale", "mel", "mel-bands", "40",
      "scaling", "raw", "threshold", "-200", NULL);
  gdouble w[N], sumw2 = 0, mp[42], worst = 0;
  guint i, b, k, np;
  gdouble *pts;

  ref_window (REF_HANN, N, w);
  for (k = 0; k < N; k++)
    sumw2 += w[k] * w[k];
  for (b = 0; b < 42; b++)
    mp[b] = mel_slaney_inv (mel_slaney (24000.0) * b / 41.0);
  for (i = 0; i < 10; i++) {
    const GstStructure *s = g_ptr_array_index (m->spectrum, i);
    const RefInterval *r = g_ptr_array_index (refs, i);
    gfloat *mag = bytes_floats (s, "magnitude", &nv);

    pts = doubles (s, "band-edges", &np);
    fail_unless_equals_int (np, 42);
    fail_unless_equals_int (nv, 40);
    for (b = 0; b < 42; b++)
      fail_unless (fabs (pts[b] - mp[b]) <= 1e-9 * MAX (mp[b], 1.0));
    for (b = 0; b < 40; b++) {
      gdouble sum = 0, ref;

      for (k = 0; k < NB; k++) {
        gdouble fk = (gdouble) k * RATE / N;
        gdouble lower = (fk - mp[b]) / (mp[b + 1] - mp[b]);
        gdouble upper = (mp[b + 2] - fk) / (mp[b + 2] - mp[b + 1]);
        gdouble fb = MAX (0.0, MIN (lower, upper)) * 2.0 / (mp[b + 2] - mp[b]);
        /* |X_k|^2 from the one-sided density */
        gdouble e = (k == 0 || k == N / 2) ? 1.0 : 2.0;
        gdouble x2 = r->power[k] * RATE * sumw2 / e;

        sum += fb * x2;
      }
      ref = 10.0 * log10 (sum);
      fail_unless (fabs (mag[b] - ref) <= 0.01, "interval %u mel %u: "
          "%.4f dB, reference %.4f", i, b, mag[b], ref);
      worst = MAX (worst, fabs (mag[b] - ref));
    }
    g_free (mag);
    g_free (pts);
  }
  g_print ("mel (raw): worst %.5f dB\n", worst);
  msgs_free (m);
  g_ptr_array_unref (refs);
  g_free (x);
}

GST_END_TEST;

/* IEC 61672-1 closed forms, written out */
static gdouble
weight_raw (gchar kind, gdouble f)
{
  const gdouble f1 = 20.598997, f2 = 107.65265, f3 = 737.86223;
  const gdouble f4 = 12194.217;
  gdouble ff = f * f;

  if (kind == 'c')
    return 20 * log10 (f4 * f4 * ff / ((ff + f1 * f1) * (ff + f4 * f4)));
  return 20 * log10 (f4 * f4 * ff * ff / ((ff + f1 * f1) * sqrt (ff + f2 *
              f2) * sqrt (ff + f3 * f3) * (ff + f4 * f4)));
}

/* ITU-R BS.1770-4's K weighting at 48 kHz, from its Tables 1 and 2,
 * written out: 10 log10 |H_pre H_rlb|^2 - 0.691 */
static gdouble
weight_k (gdouble f)
{
  static const gdouble b[2][3] = { {1.53512485958697, -2.69169618940638,
      1.19839281085285}, {1.0, -2.0, 1.0}
  };
  static const gdouble a[2][3] = { {1.0, -1.69065929318241,
      0.73248077421585}, {1.0, -1.99004745483398, 0.99007225036621}
  };
  gdouble w = 2 * G_PI * f / RATE, db = -0.691;
  guint i;

  for (i = 0; i < 2; i++) {
    gdouble nr = b[i][0] + b[i][1] * cos (w) + b[i][2] * cos (2 * w);
    gdouble ni = -b[i][1] * sin (w) - b[i][2] * sin (2 * w);
    gdouble dr = a[i][0] + a[i][1] * cos (w) + a[i][2] * cos (2 * w);
    gdouble di = -a[i][1] * sin (w) - a[i][2] * sin (2 * w);

    db += 10 * log10 ((nr * nr + ni * ni) / (dr * dr + di * di));
  }
  return db;
}

static gdouble
weight (gchar kind, gdouble f)
{
  if (kind == 'k')
    return weight_k (f);
  return weight_raw (kind, f) - weight_raw (kind, 1000.0);
}

/* The IEC 61672-1 table (A, 10 Hz .. 20 kHz, rounded to 0.1 dB) against
 * the closed form; then the element's bins: a-weighted minus z-weighted =
 * A(f_k) within 0.01 dB, likewise for c and for k (BS.1770's K weighting
 * from its own 48 kHz coefficients); the level of a 1 kHz tone the same
 * with z, a and c, and with k (+0.0067 dB at 1 kHz, 0 at 997 Hz). */
GST_START_TEST (test_weighting)
{
  static const gdouble table_f[] = { 10, 12.5, 16, 20, 25, 31.5, 40, 50, 63,
    80, 100, 125, 160, 200, 250, 315, 400, 500, 630, 800, 1000, 1250, 1600,
    2000, 2500, 3150, 4000, 5000, 6300, 8000, 10000, 12500, 16000, 20000
  };
  static const gdouble table_a[] = { -70.4, -63.4, -56.7, -50.5, -44.7,
    -39.4, -34.6, -30.2, -26.2, -22.5, -19.1, -16.1, -13.4, -10.9, -8.6,
    -6.6, -4.8, -3.2, -1.9, -0.8, 0.0, 0.6, 1.0, 1.2, 1.3, 1.2, 1.0, 0.5,
    -0.1, -1.1, -2.5, -4.3, -6.6, -9.3
  };
  gsize n = SECONDS * RATE, nv;
  gdouble *x = g_new0 (gdouble, n);
  const gchar *kinds[] = { "z", "a", "c", "k" };
  gfloat *mags[4];
  gdouble levels[4], wa = 0, wc = 0, wk = 0, wt = 0;
  guint i, k, checked = 0;

  /* the table is at the exact base-ten frequencies 1000 G^(x/3), rounded
   * to 0.1 dB (so within 0.05, plus a margin for libm) */
  for (i = 0; i < G_N_ELEMENTS (table_f); i++) {
    gdouble f = 1000.0 * pow (10.0, 0.3 * ((gint) i - 20) / 3.0);

    wt = MAX (wt, fabs (weight ('a', f) - table_a[i]));
    fail_unless (fabs (weight ('a', f) - table_a[i]) <= 0.06, "A(%g) = "
        "%.3f, IEC table %.1f", table_f[i], weight ('a', f), table_a[i]);
  }

  gen_noise (x, n, 1, 0.1, 9);
  for (i = 0; i < 4; i++) {
    Msgs *m = run (x, n, 10, "weighting", kinds[i], "threshold", "-250",
        NULL);
    const GstStructure *s = g_ptr_array_index (m->spectrum, 5);

    mags[i] = bytes_floats (s, "magnitude", &nv);
    fail_unless_equals_int (nv, NB);
    msgs_free (m);
  }
  for (k = 1; k < NB; k++) {
    gdouble f = (gdouble) k * RATE / N;

    if (mags[1][k] > -240 && mags[0][k] > -240) {
      wa = MAX (wa, fabs (mags[1][k] - mags[0][k] - weight ('a', f)));
      wc = MAX (wc, fabs (mags[2][k] - mags[0][k] - weight ('c', f)));
      fail_unless (fabs (mags[1][k] - mags[0][k] - weight ('a', f)) <= 0.01,
          "bin %u (%.1f Hz): a - z = %.4f dB, A = %.4f", k, f,
          mags[1][k] - mags[0][k], weight ('a', f));
      checked++;
    }
    fail_unless (fabs (mags[2][k] - mags[0][k] - weight ('c', f)) <= 0.01,
        "bin %u: c - z = %.4f dB, C = %.4f", k, mags[2][k] - mags[0][k],
        weight ('c', f));
    if (mags[3][k] > -240 && mags[0][k] > -240) {
      wk = MAX (wk, fabs (mags[3][k] - mags[0][k] - weight ('k', f)));
      fail_unless (fabs (mags[3][k] - mags[0][k] - weight ('k', f)) <= 0.01,
          "bin %u (%.1f Hz): k - z = %.4f dB, K = %.4f", k, f,
          mags[3][k] - mags[0][k], weight ('k', f));
    }
  }
  fail_unless (checked > NB - 20);
  for (i = 0; i < 4; i++)
    g_free (mags[i]);

  memset (x, 0, n * sizeof (gdouble));
  gen_tone (x, n, 1, 0.5, 1000.0, RATE, 0.0);
  for (i = 0; i < 4; i++) {
    Msgs *m = run (x, n, 10, "weighting", kinds[i], NULL);

    levels[i] = msg_double (g_ptr_array_index (m->spectrum, 5), "level");
    msgs_free (m);
  }
  /* 20 log10 (0.5) = -6.02 dBFS */
  fail_unless (fabs (levels[0] - 20 * log10 (0.5)) <= 0.01, "level %.4f",
      levels[0]);
  fail_unless (fabs (levels[1] - levels[0]) <= 0.01);
  fail_unless (fabs (levels[2] - levels[0]) <= 0.01);
  fail_unless (fabs (levels[3] - levels[0] - weight ('k', 1000.0)) <= 0.01,
      "k: level %.4f, z %.4f", levels[3], levels[0]);
  g_print ("weighting: a - z vs A worst %.5f dB, c - z vs C %.5f dB, k - z "
      "vs K %.5f dB (%u bins); A vs the IEC table %.3f dB; 1 kHz level z "
      "%.4f a %.4f c %.4f k %.4f\n", wa, wc, wk, checked, wt, levels[0],
      levels[1], levels[2], levels[3]);
  g_free (x);
}

GST_END_TEST;

/* The power of frame j (its own one-sided density). */
static void
frame_density (const gdouble * x, guint j, gdouble * out)
{
  RefConfig c = ref_cfg;
  GPtrArray *one;

  c.interval = GST_SECOND * 100;
  one = ref_welch (&c, x + (gsize) j * (N / 2), N);
  memcpy (out, ((RefInterval *) g_ptr_array_index (one, 0))->power,
      NB * sizeof (gdouble));
  g_ptr_array_unref (one);
}

static gdouble
level_of (const gdouble * d)
{
  gdouble s = 0;
  guint k;

  for (k = 0; k < NB; k++)
    s += d[k];
  return 2.0 * s * RATE / N;
}

/* Exponential averaging of a tone that starts at 0.3 s: each interval's
 * level is the frame recursion's value after its last frame. And the
 * frames of every message: count, timestamps, levels. */
GST_START_TEST (test_exponential_frames)
{
  gsize n = SECONDS * RATE;
  gdouble *x = g_new0 (gdouble, n), d[NB];
  const gdouble tau = 0.125, a = exp (-(N / 2.0) / (RATE * tau));
  Msgs *m;
  gdouble y = 0.0, we = 0, wf = 0;
  guint i, j = 0, f;

  gen_tone (x + (gsize) (0.3 * RATE), n - (gsize) (0.3 * RATE), 1, 0.5,
      3000.0, RATE, 0.0);
  gen_noise (x, n, 1, 0.001, 4);
  fmt_quantize (&f32, x, n);
  m = run (x, n, 10, "averaging", "exponential", "time-constant", "0.125",
      "message-frames", "true", NULL);
  for (i = 0; i < 10; i++) {
    const GstStructure *s = g_ptr_array_index (m->spectrum, i);
    guint frames = msg_uint (s, "frames"), nt;
    gsize nm, nl;
    gfloat *fl = bytes_floats (s, "frame-level", &nl);
    gfloat *fm = bytes_floats (s, "frame-magnitude", &nm);
    const GValue *ts = gst_structure_get_value (s, "frame-timestamps");

    fail_unless_equals_int (nl, frames);
    fail_unless_equals_int (nm, (gsize) frames * NB);
    nt = gst_value_array_get_size (ts);
    fail_unless_equals_int (nt, frames);
    for (f = 0; f < frames; f++, j++) {
      gdouble p;

      fail_unless_equals_uint64 (g_value_get_uint64
          (gst_value_array_get_value (ts, f)),
          gst_util_uint64_scale_round ((guint64) j * (N / 2), GST_SECOND,
              RATE));
      frame_density (x, j, d);
      p = level_of (d);
      y = a * y + (1 - a) * p;
      wf = MAX (wf, fabs (fl[f] - 10 * log10 (p)));
      fail_unless (fabs (fl[f] - 10 * log10 (p)) <= 0.01, "frame %u level "
          "%.4f, reference %.4f", j, fl[f], 10 * log10 (p));
      /* the frame's own bin at 3 kHz (bin 64) */
      if (j > 30)
        fail_unless (fabs (fm[(gsize) f * NB + 64] - 10 * log10 (2 *
                    d[64] * RATE / N * 1.5)) <= 0.01);
    }
    we = MAX (we, fabs (msg_double (s, "level") - 10 * log10 (y)));
    fail_unless (fabs (msg_double (s, "level") - 10 * log10 (y)) <= 0.01,
        "interval %u: level %.4f, exponential reference %.4f", i,
        msg_double (s, "level"), 10 * log10 (y));
    g_free (fl);
    g_free (fm);
  }
  g_print ("exponential: level worst %.5f dB; frame levels worst %.5f dB "
      "(%u frames)\n", we, wf, j);
  msgs_free (m);
  g_free (x);
}

GST_END_TEST;

/* message-frames in list format: the same values as in bytes, laid out as
 * an array of frames of arrays (mono) */
GST_START_TEST (test_frames_list)
{
  gsize n = RATE / 2, nm, nl;
  gdouble *x = signal_new (n, 6);
  Msgs *mb = run (x, n, 4, "message-frames", "true", "frequency-scale",
      "octave", NULL);
  Msgs *ml = run (x, n, 4, "message-frames", "true", "frequency-scale",
      "octave", "message-format", "list", NULL);
  guint i, f, b, checked = 0;

  for (i = 0; i < 4; i++) {
    const GstStructure *sb = g_ptr_array_index (mb->spectrum, i);
    const GstStructure *sl = g_ptr_array_index (ml->spectrum, i);
    guint frames = msg_uint (sb, "frames");
    gfloat *fm = bytes_floats (sb, "frame-magnitude", &nm);
    gfloat *fl = bytes_floats (sb, "frame-level", &nl);
    const GValue *lm = gst_structure_get_value (sl, "frame-magnitude");
    const GValue *ll = gst_structure_get_value (sl, "frame-level");
    guint nb = nm / frames;

    fail_unless (lm && GST_VALUE_HOLDS_ARRAY (lm) && ll
        && GST_VALUE_HOLDS_ARRAY (ll));
    fail_unless_equals_int (gst_value_array_get_size (lm), frames);
    fail_unless_equals_int (gst_value_array_get_size (ll), frames);
    for (f = 0; f < frames; f++) {
      const GValue *row = gst_value_array_get_value (lm, f);

      fail_unless_equals_int (gst_value_array_get_size (row), nb);
      for (b = 0; b < nb; b++, checked++)
        fail_unless_equals_float (g_value_get_float
            (gst_value_array_get_value (row, b)), fm[f * nb + b]);
      fail_unless_equals_float (g_value_get_float (gst_value_array_get_value
              (ll, f)), fl[f]);
    }
    g_free (fm);
    g_free (fl);
  }
  fail_unless (checked > 100);
  msgs_free (mb);
  msgs_free (ml);
  g_free (x);
}

GST_END_TEST;

/* A Whisper-style front end: 16 kHz, 400-point Hann frames every 160
 * samples, 80 slaney mel filters on |X|^2 (librosa.filters.mel (16000,
 * 400, 80)), every frame: log10 of the mel power vs the same written out
 * here in double, within 1e-4 per value. */
GST_START_TEST (test_whisper_frames)
{
  static const Fmt f16 = { "F32LE", 16000, 1, FALSE };
  const guint n_fft = 400, hop = 160, nb = n_fft / 2 + 1, n_mels = 80;
  gsize n = 16000, nm;
  gdouble *x = g_new0 (gdouble, n), mp[82], *fb, w[400], re, im;
  Msgs *m;
  guint i, j = 0, f, k, b, t, checked = 0;
  gdouble worst = 0;

  gen_tone (x, n, 1, 0.2, 440.0, 16000, 0.0);
  gen_tone (x, n, 1, 0.05, 2500.0, 16000, 0.4);
  gen_noise (x, n, 1, 0.02, 5);
  fmt_quantize (&f16, x, n);
  for (b = 0; b < 82; b++)
    mp[b] = mel_slaney_inv (mel_slaney (8000.0) * b / 81.0);
  fb = g_new0 (gdouble, n_mels * nb);
  for (b = 0; b < n_mels; b++)
    for (k = 0; k < nb; k++) {
      gdouble fk = k * 16000.0 / n_fft;
      gdouble lower = (fk - mp[b]) / (mp[b + 1] - mp[b]);
      gdouble upper = (mp[b + 2] - fk) / (mp[b + 2] - mp[b + 1]);

      fb[b * nb + k] = MAX (0.0, MIN (lower, upper)) * 2.0 / (mp[b + 2] -
          mp[b]);
    }
  for (t = 0; t < n_fft; t++)
    w[t] = 0.5 - 0.5 * cos (2 * G_PI * t / n_fft);

  m = run_as (&f16, x, n, 10, "fft-size", "400", "hop-size", "160",
      "frequency-scale", "mel", "mel-bands", "80", "scaling", "raw",
      "message-frames", "true", "threshold", "-300", NULL);
  for (i = 0; i < 10; i++) {
    const GstStructure *s = g_ptr_array_index (m->spectrum, i);
    guint frames = msg_uint (s, "frames");
    gfloat *fm = bytes_floats (s, "frame-magnitude", &nm);

    fail_unless_equals_int (nm, (gsize) frames * n_mels);
    for (f = 0; f < frames; f++, j++) {
      gdouble p[201];

      for (k = 0; k < nb; k++) {
        re = im = 0;
        for (t = 0; t < n_fft; t++) {
          gdouble v = w[t] * x[(gsize) j * hop + t];

          re += v * cos (2 * G_PI * ((guint64) k * t % n_fft) / n_fft);
          im -= v * sin (2 * G_PI * ((guint64) k * t % n_fft) / n_fft);
        }
        p[k] = re * re + im * im;
      }
      for (b = 0; b < n_mels; b++) {
        gdouble mel = 0, got = fm[(gsize) f * n_mels + b] / 10.0;

        for (k = 0; k < nb; k++)
          mel += fb[b * nb + k] * p[k];
        worst = MAX (worst, fabs (got - log10 (mel)));
        fail_unless (fabs (got - log10 (mel)) <= 1e-4, "frame %u mel %u: "
            "log10 %.6f, reference %.6f", j, b, got, log10 (mel));
        checked++;
      }
    }
    g_free (fm);
  }
  GST_INFO ("whisper front end: %u values, worst |log10 error| %.3g",
      checked, worst);
  g_print ("whisper front end: %u values, worst |log10 error| %.3g\n",
      checked, worst);
  fail_unless (checked >= 80 * 90);
  msgs_free (m);
  g_free (fb);
  g_free (x);
}

GST_END_TEST;

/* max-hold keeps a tone's level through silence until `reset`. */
GST_START_TEST (test_max_hold_reset)
{
  gsize n = RATE / 2;
  gdouble *tone = g_new0 (gdouble, n), *quiet = g_new0 (gdouble, n);
  GstHarness *h;
  GstBus *bus;
  Msgs *m;
  gchar *caps = fmt_caps_string (&f32);
  guint i;

  gen_tone (tone, n, 1, 0.5, 1000.0, RATE, 0.0);
  h = harness_new (&bus, caps, "averaging", "max-hold", "interval",
      "100000000", NULL);
  push_samples (h, &f32, tone, n, 480, 0, TRUE);
  push_samples (h, &f32, quiet, n, 480, GST_SECOND / 2, FALSE);
  m = msgs_collect (bus, 9, 30.0);
  /* during the tone its level; after it, never less (the held maxima of
   * each bin, the frames that cut the tone off included) */
  for (i = 1; i < m->spectrum->len; i++) {
    gdouble l = msg_double (g_ptr_array_index (m->spectrum, i), "level");

    if (i < 5)
      fail_unless (fabs (l - 20 * log10 (0.5)) <= 0.05, "message %u: %.3f",
          i, l);
    else
      fail_unless (l >= 20 * log10 (0.5) - 0.05, "message %u: %.3f", i, l);
  }
  msgs_free (m);
  g_signal_emit_by_name (h->element, "reset");
  push_samples (h, &f32, quiet, n, 480, GST_SECOND, FALSE);
  m = msgs_collect (bus, 5, 30.0);
  fail_unless (m->spectrum->len >= 3);
  /* after the reset: silence, the floor (threshold -90) */
  i = m->spectrum->len - 1;
  fail_unless (msg_double (g_ptr_array_index (m->spectrum, i),
          "level") <= -89.9, "after reset: %.3f",
      msg_double (g_ptr_array_index (m->spectrum, i), "level"));
  msgs_free (m);

  /* held again, then a property change (one that restarts nothing else)
   * drops what was held */
  push_samples (h, &f32, tone, n, 480, 3 * GST_SECOND / 2, FALSE);
  push_samples (h, &f32, quiet, n, 480, 2 * GST_SECOND, FALSE);
  m = msgs_collect (bus, 10, 30.0);
  i = m->spectrum->len - 1;
  fail_unless (msg_double (g_ptr_array_index (m->spectrum, i),
          "level") >= 20 * log10 (0.5) - 0.05);
  msgs_free (m);
  g_object_set (h->element, "threshold", -80, NULL);
  push_samples (h, &f32, quiet, n, 480, 5 * GST_SECOND / 2, FALSE);
  gst_harness_push_event (h, gst_event_new_eos ());
  m = msgs_collect (bus, 5, 30.0);
  i = m->spectrum->len - 1;
  fail_unless (msg_double (g_ptr_array_index (m->spectrum, i),
          "level") <= -79.9, "after a property change: %.3f",
      msg_double (g_ptr_array_index (m->spectrum, i), "level"));
  msgs_free (m);
  harness_free (h, bus);
  g_free (caps);
  g_free (tone);
  g_free (quiet);
}

GST_END_TEST;

/* Bands that cannot be made (min-frequency above max-frequency) are an
 * element error that names the two properties (fatal, as any plan that
 * cannot be made). */
GST_START_TEST (test_bands_error)
{
  gsize n = RATE / 10;
  gdouble *x = g_new0 (gdouble, n);
  gchar *caps = fmt_caps_string (&f32);
  GstHarness *h;
  GstBus *bus;
  Msgs *m;

  h = harness_new (&bus, caps, "frequency-scale", "log", "min-frequency",
      "5000", "max-frequency", "1000", NULL);
  fail_unless (gst_harness_push (h, fmt_make_buffer (&f32, x, n, 0)) !=
      GST_FLOW_OK);
  m = msgs_collect (bus, 0, 2.0);
  fail_unless (m->errors->len >= 1);
  fail_unless (strstr (g_ptr_array_index (m->errors, 0), "min-frequency")
      && strstr (g_ptr_array_index (m->errors, 0), "max-frequency"),
      "error: %s", (gchar *) g_ptr_array_index (m->errors, 0));
  msgs_free (m);
  harness_free (h, bus);
  g_free (caps);
  g_free (x);
}

GST_END_TEST;

/* A bad octave fraction is refused with a warning naming the valid ones;
 * 2 is taken. */
GST_START_TEST (test_octave_fraction_refused)
{
  GstElement *el = gst_element_factory_make ("gpufftspectrum", NULL);
  guint v;

  ASSERT_WARNING (g_object_set (el, "octave-fraction", 5, NULL));
  g_object_get (el, "octave-fraction", &v, NULL);
  fail_unless_equals_int (v, 3);
  /* 1/2 octave is one of them */
  g_object_set (el, "octave-fraction", 2, NULL);
  g_object_get (el, "octave-fraction", &v, NULL);
  fail_unless_equals_int (v, 2);
  gst_object_unref (el);
}

GST_END_TEST;

static Suite *
analysis_suite (void)
{
  Suite *s = suite_create ("gpufftspectrum-analysis");
  TCase *tc = tcase_create ("modes");

  tcase_set_timeout (tc, 600);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_octave);
  tcase_add_test (tc, test_log_density);
  tcase_add_test (tc, test_mel_raw);
  tcase_add_test (tc, test_weighting);
  tcase_add_test (tc, test_exponential_frames);
  tcase_add_test (tc, test_max_hold_reset);
  tcase_add_test (tc, test_whisper_frames);
  tcase_add_test (tc, test_frames_list);
  tcase_add_test (tc, test_bands_error);
  tcase_add_test (tc, test_octave_fraction_refused);
  return s;
}

GST_CHECK_MAIN (analysis);
