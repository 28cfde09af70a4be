/* gpuloudness against independent references:
 *  - EBU Tech 3341 (V4) cases 1-6 and 9-19 and Tech 3342 cases 1-4, the
 *    signals generated here from the documents' definitions, each reading
 *    within the documents' tolerance (cases 7 and 8 of 3341, 5 and 6 of
 *    3342 are authentic programmes, and 20-23 of 3341 a burst synthesised
 *    and filtered by a process the text does not fix: they need the EBU's
 *    files);
 *  - libebur128 (Debian's libebur128-dev) on noise, music made here, 5.1
 *    material, 44.1, 48 and 96 kHz: M, S and I at every message within
 *    0.05 LU, the loudness range within 0.1 LU of the one Tech 3342 gives
 *    from libebur128's short-term loudness every 100 ms (libebur128's own
 *    takes one value a second), true peak within 0.1 dB, sample peak
 *    exact;
 *  - bad input, formats, EOS, renegotiation, reset, flush, the fields of
 *    each mode. */
#include "gpufft-test-common.h"
#include <ebur128.h>

#define LU_TOL 0.05

/* ---- running the element ---------------------------------------------- */

typedef struct
{
  const gchar *caps;
  const gchar *const *props;    /* name, value, ..., NULL */
  gsize chunk;                  /* frames a buffer (0: 10 ms) */
  gboolean planar;
  gboolean live;                /* a live upstream, within a host budget
                                 * set for it: on the host alone */
} LRun;

/* the ebur128-level messages on the bus (an ERROR fails the test) */
static GPtrArray *
pop_all (GstBus * bus)
{
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_structure_free);
  GstMessage *msg;

  while ((msg = gst_bus_pop (bus)) != NULL) {
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
      GError *err = NULL;

      gst_message_parse_error (msg, &err, NULL);
      fail ("error: %s", err->message);
    }
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ELEMENT
        && gst_structure_has_name (gst_message_get_structure (msg),
            "ebur128-level"))
      g_ptr_array_add (out, gst_structure_copy (gst_message_get_structure
              (msg)));
    gst_message_unref (msg);
  }
  return out;
}

/* the ebur128-level messages of one stream x[n * channels] (then EOS) */
static GPtrArray *
measure (const LRun * r, gint rate, gint channels, const gchar * format,
    const gdouble * x, gsize n)
{
  GstElement *el = gst_element_factory_make ("gpuloudness", NULL);
  GstBus *bus = gst_bus_new ();
  GstHarness *h;
  GPtrArray *out;
  Fmt f = { format ? format : "F32LE", rate, channels, r->planar };
  gchar *caps = r->caps ? g_strdup (r->caps) : fmt_caps_string (&f);
  guint i;

  fail_unless (el != NULL, "no gpuloudness (GST_PLUGIN_PATH?)");
  for (i = 0; r->props && r->props[i]; i += 2)
    gst_util_set_object_arg (G_OBJECT (el), r->props[i], r->props[i + 1]);
  gst_element_set_bus (el, bus);
  h = gst_harness_new_with_element (el, "sink", "src");
  gst_object_unref (el);
  gst_harness_set_live (h, r->live);
  gst_harness_set_src_caps_str (h, caps);
  push_samples (h, &f, x, n, r->chunk ? r->chunk : (gsize) rate / 100, 0,
      FALSE);
  {
    gchar *name = NULL;

    /* (the meson tests run with no host budget: the device is used) */
    g_object_get (h->element, "device-name", &name, NULL);
    if (r->live) {
      fail_unless_equals_string (name, "CPU (host analysis)");
    } else {
      fail_if (name && g_str_equal (name, "CPU (host analysis)"));
    }
    g_free (name);
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  /* (the element posts every message before EOS leaves it) */
  out = pop_all (bus);
  harness_free (h, bus);
  g_free (caps);
  return out;
}

static gdouble
field (const GstStructure * s, const gchar * name)
{
  gdouble v;

  fail_unless (gst_structure_get_double (s, name, &v), "no field %s in %"
      GST_PTR_FORMAT, name, s);
  return v;
}

static gdouble
field_ch (const GstStructure * s, const gchar * name, guint c)
{
  const GValue *arr = gst_structure_get_value (s, name);

  fail_unless (arr && GST_VALUE_HOLDS_ARRAY (arr), "no array %s", name);
  fail_unless (c < gst_value_array_get_size (arr));
  return g_value_get_double (gst_value_array_get_value (arr, c));
}

static const GstStructure *
last (GPtrArray * msgs)
{
  fail_unless (msgs->len > 0, "no message");
  return g_ptr_array_index (msgs, msgs->len - 1);
}

static gdouble
db (gdouble v)
{
  return 20.0 * log10 (v);
}

/* ---- signals ------------------------------------------------------------ */

/* appends secs of a 1 kHz sine at dbfs (peak) to every channel with gain
 * gain[c] dB (NULL: 0), the phase going on */
static void
add_tone (GArray * a, guint channels, gint rate, gdouble secs, gdouble dbfs,
    const gdouble * gain, gdouble freq)
{
  gsize n = (gsize) llround (secs * rate), i, start = a->len / channels;
  guint c;

  for (i = 0; i < n; i++)
    for (c = 0; c < channels; c++) {
      gdouble amp = dbfs <= -200 ? 0.0 :
          pow (10.0, (dbfs + (gain ? gain[c] : 0.0)) / 20.0);
      gdouble v = amp * sin (2 * G_PI * freq * (gdouble) (start + i) / rate);

      g_array_append_val (a, v);
    }
}

static void
add_silence (GArray * a, guint channels, gint rate, gdouble secs)
{
  add_tone (a, channels, rate, secs, -300, NULL, 1000);
}

/* ---- the libebur128 reference ------------------------------------------- */

typedef struct
{
  gdouble m, s, i, lra_lib, lra_10hz;
  gdouble sp[8], tp[8];
} Ref;

static gint
cmp_double (gconstpointer a, gconstpointer b)
{
  gdouble x = *(const gdouble *) a, y = *(const gdouble *) b;

  return x < y ? -1 : x > y;
}

/* Tech 3342's loudness range from short-term values (LUFS) */
static gdouble
lra_3342 (GArray * st)
{
  GArray *e = g_array_new (FALSE, FALSE, sizeof (gdouble));
  gdouble mean = 0, rel, lo, hi;
  guint i, n = 0;

  for (i = 0; i < st->len; i++) {
    gdouble v = g_array_index (st, gdouble, i);

    if (v >= -70.0) {
      mean += pow (10.0, (v + 0.691) / 10.0);
      n++;
    }
  }
  if (n == 0) {
    g_array_unref (e);
    return 0.0;
  }
  rel = -0.691 + 10 * log10 (mean / n) - 20.0;
  for (i = 0; i < st->len; i++) {
    gdouble v = g_array_index (st, gdouble, i);

    if (v >= -70.0 && v >= rel)
      g_array_append_val (e, v);
  }
  g_array_sort (e, cmp_double);
  n = e->len;
  lo = g_array_index (e, gdouble, (guint) ((n - 1) * 0.1 + 0.5));
  hi = g_array_index (e, gdouble, (guint) ((n - 1) * 0.95 + 0.5));
  g_array_unref (e);
  return hi - lo;
}

/* libebur128 over x, queried at every message's end (the messages' frame
 * counts: interval multiples, the last at n); map[c]: its channel */
static Ref *
reference (const gdouble * x, gsize n, guint channels, gint rate,
    const int *map, GPtrArray * msgs)
{
  ebur128_state *st = ebur128_init (channels, rate, EBUR128_MODE_M |
      EBUR128_MODE_S | EBUR128_MODE_I | EBUR128_MODE_LRA |
      EBUR128_MODE_SAMPLE_PEAK | EBUR128_MODE_TRUE_PEAK);
  Ref *refs = g_new0 (Ref, msgs->len);
  GArray *st10 = g_array_new (FALSE, FALSE, sizeof (gdouble));
  gsize step = (gsize) rate / 10, done = 0, k;
  gfloat *buf = g_new (gfloat, step * channels);
  guint c, mi = 0;

  for (c = 0; c < channels; c++)
    ebur128_set_channel (st, c, map ? map[c] : (channels == 1 ?
            EBUR128_DUAL_MONO : c == 0 ? EBUR128_LEFT : EBUR128_RIGHT));
  while (mi < msgs->len) {
    const GstStructure *s = g_ptr_array_index (msgs, mi);
    guint64 end_ns;
    gsize end;

    fail_unless (gst_structure_get_uint64 (s, "timestamp", &end_ns));
    end = MIN (n, (gsize) gst_util_uint64_scale_int_round (end_ns, rate,
            GST_SECOND));
    while (done < end) {
      gsize take = MIN (step, end - done);

      for (k = 0; k < take * channels; k++)
        buf[k] = (gfloat) x[done * channels + k];
      ebur128_add_frames_float (st, buf, take);
      done += take;
      if (take == step && done >= 3 * step * 10 && done % step == 0) {
        gdouble v;

        ebur128_loudness_shortterm (st, &v);
        g_array_append_val (st10, v);
      }
    }
    ebur128_loudness_momentary (st, &refs[mi].m);
    ebur128_loudness_shortterm (st, &refs[mi].s);
    ebur128_loudness_global (st, &refs[mi].i);
    ebur128_loudness_range (st, &refs[mi].lra_lib);
    refs[mi].lra_10hz = lra_3342 (st10);
    for (c = 0; c < channels && c < 8; c++) {
      ebur128_sample_peak (st, c, &refs[mi].sp[c]);
      ebur128_true_peak (st, c, &refs[mi].tp[c]);
    }
    mi++;
  }
  g_free (buf);
  g_array_unref (st10);
  ebur128_destroy (&st);
  return refs;
}

static gboolean
close_lu (gdouble a, gdouble b, gdouble tol)
{
  if (isinf (a) || isinf (b))
    return a == b;
  return fabs (a - b) <= tol;
}

/* every message against libebur128; returns the worst M/S/I difference */
static gdouble
compare_with_libebur128 (const gchar * what, const gdouble * x, gsize n,
    guint channels, gint rate, const gchar * caps, const int *map,
    gboolean live)
{
  const gchar *props[] = { "interval", "1000000000", NULL };
  LRun r = { caps, props, 0, FALSE, live };
  GPtrArray *msgs = measure (&r, rate, channels, NULL, x, n);
  Ref *refs = reference (x, n, channels, rate, map, msgs);
  gdouble worst = 0, worst_lra = 0, worst_lib = 0, worst_tp = 0;
  guint i, c;

  fail_unless (msgs->len == (n + rate - 1) / rate, "%s: %u messages", what,
      msgs->len);
  for (i = 0; i < msgs->len; i++) {
    const GstStructure *s = g_ptr_array_index (msgs, i);
    gdouble m = field (s, "momentary-loudness");
    gdouble st = field (s, "shortterm-loudness");
    gdouble in = field (s, "global-loudness");
    gdouble lra = field (s, "loudness-range");

    fail_unless (close_lu (m, refs[i].m, LU_TOL) && close_lu (st, refs[i].s,
            LU_TOL) && close_lu (in, refs[i].i, LU_TOL),
        "%s, message %u: M %.4f S %.4f I %.4f, libebur128 %.4f %.4f %.4f",
        what, i, m, st, in, refs[i].m, refs[i].s, refs[i].i);
    fail_unless (fabs (lra - refs[i].lra_10hz) <= 0.1,
        "%s, message %u: LRA %.4f, Tech 3342 from libebur128 %.4f", what, i,
        lra, refs[i].lra_10hz);
    if (!isinf (m))
      worst = MAX (worst, fabs (m - refs[i].m));
    if (!isinf (st))
      worst = MAX (worst, fabs (st - refs[i].s));
    if (!isinf (in))
      worst = MAX (worst, fabs (in - refs[i].i));
    worst_lra = MAX (worst_lra, fabs (lra - refs[i].lra_10hz));
    worst_lib = MAX (worst_lib, fabs (lra - refs[i].lra_lib));
    for (c = 0; c < channels && c < 8; c++) {
      gdouble sp = field_ch (s, "sample-peak", c);
      gdouble tp = field_ch (s, "true-peak", c);

      fail_unless (sp == refs[i].sp[c], "%s, message %u, channel %u: sample "
          "peak %.9g, libebur128 %.9g", what, i, c, sp, refs[i].sp[c]);
      if (refs[i].tp[c] > 0) {
        fail_unless (fabs (db (tp) - db (refs[i].tp[c])) <= 0.1,
            "%s, message %u, channel %u: true peak %.3f dB, libebur128 "
            "%.3f dB", what, i, c, db (tp), db (refs[i].tp[c]));
        worst_tp = MAX (worst_tp, fabs (db (tp) - db (refs[i].tp[c])));
      }
    }
  }
  g_print ("# %s: %u messages; worst |M, S, I - libebur128| %.1e LU, "
      "|LRA - Tech 3342 (libebur128's short-term at 10 Hz)| %.4f LU "
      "(libebur128's own LRA, 1 Hz: %.3f LU), true peak %.1e dB; last I "
      "%.3f LUFS, LRA %.2f LU\n", what, msgs->len, worst, worst_lra,
      worst_lib, worst_tp, field (last (msgs), "global-loudness"),
      field (last (msgs), "loudness-range"));
  g_free (refs);
  g_ptr_array_unref (msgs);
  return worst;
}

/* ---- libebur128 --------------------------------------------------------- */

static gdouble
gauss (GRand * r)
{
  gdouble u = g_rand_double_range (r, 1e-12, 1), v = g_rand_double (r);

  return sqrt (-2 * log (u)) * cos (2 * G_PI * v);
}

GST_START_TEST (test_libebur128_noise)
{
  gint rate = 48000;
  gsize n = 20 * rate, i;
  gdouble *x = g_new (gdouble, n * 2);
  GRand *r = g_rand_new_with_seed (7);

  /* white noise, its level stepping every 2.5 s (a loudness range) */
  for (i = 0; i < n; i++) {
    gdouble g = pow (10.0, (-20.0 - 3.0 * ((i / (rate * 5 / 2)) % 4)) / 20.0);

    x[2 * i] = CLAMP (g * gauss (r), -1, 1);
    x[2 * i + 1] = CLAMP (0.7 * g * gauss (r), -1, 1);
  }
  compare_with_libebur128 ("noise 48 kHz", x, n, 2, rate, NULL, NULL, FALSE);
  g_rand_free (r);
  g_free (x);
}

GST_END_TEST;

/* notes of a scale with harmonics and envelopes, a bass line near the
 * K filter's high-pass, panned, in phrases of changing loudness */
static gdouble *
make_music (gint rate, gdouble secs, guint32 seed, gsize * n_out)
{
  static const gdouble scale[] = { 0, 2, 4, 5, 7, 9, 11, 12 };
  gsize n = (gsize) (secs * rate), i;
  gdouble *x = g_new0 (gdouble, n * 2);
  GRand *r = g_rand_new_with_seed (seed);
  gdouble t0;

  for (t0 = 0; t0 < secs; t0 += 0.25) {
    gdouble f = 220.0 * pow (2.0, scale[g_rand_int_range (r, 0, 8)] / 12.0 +
        g_rand_int_range (r, 0, 2));
    gdouble amp = 0.12 * pow (10.0, -12.0 * (0.5 + 0.5 * sin (t0 / 3.0)) /
        20.0), pan = g_rand_double (r);
    gsize s0 = (gsize) (t0 * rate), len = (gsize) (0.6 * rate);
    guint h;

    for (i = 0; i < len && s0 + i < n; i++) {
      gdouble t = (gdouble) i / rate, env = (1 - exp (-t / 0.01)) *
          exp (-t / 0.25), v = 0;

      for (h = 1; h <= 5; h++)
        v += sin (2 * G_PI * f * h * t) / (h * h);
      if (fmod (t0, 1.0) == 0)  /* the bass, once a second */
        v += 0.8 * sin (2 * G_PI * (f / 4) * t);
      x[2 * (s0 + i)] += amp * env * v * (1 - pan);
      x[2 * (s0 + i) + 1] += amp * env * v * pan;
    }
  }
  g_rand_free (r);
  *n_out = n;
  return x;
}

GST_START_TEST (test_libebur128_music)
{
  gsize n;
  gdouble *x = make_music (44100, 30, 3, &n);

  compare_with_libebur128 ("music 44.1 kHz", x, n, 2, 44100, NULL, NULL, FALSE);
  g_free (x);
  x = make_music (96000, 12, 4, &n);
  compare_with_libebur128 ("music 96 kHz", x, n, 2, 96000, NULL, NULL, FALSE);
  g_free (x);
}

GST_END_TEST;

/* A live stream within the process's host budget is measured on the host
 * alone, with no device: the same readings against libebur128. */
GST_START_TEST (test_libebur128_live_host_alone)
{
  gchar *saved = g_strdup (g_getenv ("GPUFFT_HOST_BUDGET"));
  gsize n;
  gdouble *x = make_music (48000, 12, 5, &n);

  g_setenv ("GPUFFT_HOST_BUDGET", "524288", TRUE);
  compare_with_libebur128 ("music 48 kHz, live, on the host alone", x, n, 2,
      48000, NULL, NULL, TRUE);
  if (saved)
    g_setenv ("GPUFFT_HOST_BUDGET", saved, TRUE);
  else
    g_unsetenv ("GPUFFT_HOST_BUDGET");
  g_free (saved);
  g_free (x);
}

GST_END_TEST;

GST_START_TEST (test_libebur128_surround)
{
  gint rate = 48000;
  gsize n = 15 * rate, i;
  gdouble *x = g_new (gdouble, n * 6);
  GRand *r = g_rand_new_with_seed (51);
  /* FL FR FC LFE RL RR: BS.1770's L R C (left out) Ls Rs */
  static const int map[] = { EBUR128_LEFT, EBUR128_RIGHT, EBUR128_CENTER,
    EBUR128_UNUSED, EBUR128_LEFT_SURROUND, EBUR128_RIGHT_SURROUND
  };

  for (i = 0; i < n; i++) {
    gdouble t = (gdouble) i / rate, swell = 0.5 + 0.4 * sin (t);

    x[6 * i] = 0.1 * sin (2 * G_PI * 440 * t) + 0.02 * gauss (r);
    x[6 * i + 1] = 0.1 * sin (2 * G_PI * 660 * t) + 0.02 * gauss (r);
    x[6 * i + 2] = 0.2 * swell * sin (2 * G_PI * 200 * t);
    x[6 * i + 3] = 0.5 * sin (2 * G_PI * 40 * t);
    x[6 * i + 4] = 0.05 * swell * gauss (r);
    x[6 * i + 5] = 0.05 * gauss (r);
  }
  compare_with_libebur128 ("5.1 48 kHz", x, n, 6, rate,
      "audio/x-raw,format=F32LE,rate=48000,channels=6,layout=interleaved,"
      "channel-mask=(bitmask)0x3f", map, FALSE);
  g_rand_free (r);
  g_free (x);
}

GST_END_TEST;

/* ---- EBU Tech 3341 and 3342 --------------------------------------------- */

static const GstStructure *
run_stereo (GArray * a, GPtrArray ** msgs, const gchar * interval)
{
  const gchar *props[] = { "interval", interval, NULL };
  LRun r = { NULL, props, 0 };

  *msgs = measure (&r, 48000, 2, NULL, (const gdouble *) a->data, a->len / 2);
  return last (*msgs);
}

static void
expect (const gchar * what, gdouble got, gdouble want, gdouble minus,
    gdouble plus)
{
  g_print ("# %s: %.3f (expected %.1f -%.1f/+%.1f)\n", what, got, want,
      minus, plus);
  fail_unless (got >= want - minus && got <= want + plus,
      "%s: %.3f, expected %.1f (-%.1f, +%.1f)", what, got, want, minus, plus);
}

GST_START_TEST (test_ebu_3341_integrated)
{
  /* cases 1-5: [seconds, dBFS]..., 0-terminated */
  static const gdouble cases[5][12] = {
    {20, -23, 0},
    {20, -33, 0},
    {10, -36, 60, -23, 10, -36, 0},
    {10, -72, 10, -36, 60, -23, 10, -36, 10, -72, 0},
    {20, -26, 20.1, -20, 20, -26, 0},
  };
  static const gdouble expected[5] = { -23, -33, -23, -23, -23 };
  guint k, j;

  for (k = 0; k < 5; k++) {
    GArray *a = g_array_new (FALSE, FALSE, sizeof (gdouble));
    GPtrArray *msgs;
    const GstStructure *s;
    gchar *what;

    for (j = 0; cases[k][j] > 0; j += 2)
      add_tone (a, 2, 48000, cases[k][j], cases[k][j + 1], NULL, 1000);
    s = run_stereo (a, &msgs, "1000000000");
    what = g_strdup_printf ("3341 case %u, I", k + 1);
    expect (what, field (s, "global-loudness"), expected[k], 0.1, 0.1);
    g_free (what);
    if (k < 2) {
      what = g_strdup_printf ("3341 case %u, M", k + 1);
      expect (what, field (s, "momentary-loudness"), expected[k], 0.1, 0.1);
      g_free (what);
      what = g_strdup_printf ("3341 case %u, S", k + 1);
      expect (what, field (s, "shortterm-loudness"), expected[k], 0.1, 0.1);
      g_free (what);
    }
    g_ptr_array_unref (msgs);
    g_array_unref (a);
  }
}

GST_END_TEST;

GST_START_TEST (test_ebu_3341_surround)
{
  /* case 6: 5.0, -28 dBFS L and R, -24 C, -30 Ls and Rs (FL FR FC RL RR) */
  static const gdouble gain[5] = { -28, -28, -24, -30, -30 };
  const gchar *props[] = { NULL };
  LRun r = { "audio/x-raw,format=F32LE,rate=48000,channels=5,"
        "layout=interleaved,channel-mask=(bitmask)0x37", props, 0
  };
  GArray *a = g_array_new (FALSE, FALSE, sizeof (gdouble));
  GPtrArray *msgs;

  add_tone (a, 5, 48000, 20, 0, gain, 1000);
  msgs = measure (&r, 48000, 5, NULL, (const gdouble *) a->data, a->len / 5);
  expect ("3341 case 6, I", field (last (msgs), "global-loudness"), -23, 0.1,
      0.1);
  g_ptr_array_unref (msgs);
  g_array_unref (a);
}

GST_END_TEST;

/* every momentary (or short-term) reading from `from` s on within 0.1 */
static void
expect_steady (const gchar * what, GPtrArray * msgs, const gchar * f,
    gdouble from)
{
  guint i, n = 0;
  gdouble lo = G_MAXDOUBLE, hi = -G_MAXDOUBLE;

  for (i = 0; i < msgs->len; i++) {
    const GstStructure *s = g_ptr_array_index (msgs, i);
    guint64 ts;

    gst_structure_get_uint64 (s, "timestamp", &ts);
    if (ts < from * GST_SECOND + GST_MSECOND)
      continue;
    lo = MIN (lo, field (s, f));
    hi = MAX (hi, field (s, f));
    n++;
  }
  fail_unless (n > 10);
  g_print ("# %s: %u readings from %.1f to %.1f\n", what, n, lo, hi);
  fail_unless (lo >= -23.1 && hi <= -22.9, "%s: %.3f .. %.3f", what, lo, hi);
}

GST_START_TEST (test_ebu_3341_steady)
{
  GArray *a = g_array_new (FALSE, FALSE, sizeof (gdouble));
  GPtrArray *msgs;
  guint i;

  /* case 9: (1.34 s at -20, 1.66 s at -30) x 5: S constant after 3 s */
  for (i = 0; i < 5; i++) {
    add_tone (a, 2, 48000, 1.34, -20, NULL, 1000);
    add_tone (a, 2, 48000, 1.66, -30, NULL, 1000);
  }
  run_stereo (a, &msgs, "100000000");
  expect_steady ("3341 case 9, S", msgs, "shortterm-loudness", 3.0);
  g_ptr_array_unref (msgs);
  g_array_set_size (a, 0);
  /* case 12: (0.18 s at -20, 0.22 s at -30) x 25: M constant after 1 s */
  for (i = 0; i < 25; i++) {
    add_tone (a, 2, 48000, 0.18, -20, NULL, 1000);
    add_tone (a, 2, 48000, 0.22, -30, NULL, 1000);
  }
  run_stereo (a, &msgs, "100000000");
  expect_steady ("3341 case 12, M", msgs, "momentary-loudness", 1.0);
  g_ptr_array_unref (msgs);
  g_array_unref (a);
}

GST_END_TEST;

/* Tech 3341 cases 10 and 13, file-based: 20 files, i x step of silence,
 * `tone` s at -23 dBFS, 1 s of silence: the largest `f` (short-term or
 * momentary) -23 in each */
static void
expect_file_max (guint case_no, gdouble tone, gdouble step, const gchar * f)
{
  GArray *a = g_array_new (FALSE, FALSE, sizeof (gdouble));
  GPtrArray *msgs;
  guint i;

  for (i = 0; i < 20; i++) {
    gchar *what = g_strdup_printf ("3341 case %u-%u, %s", case_no, i + 1, f);

    g_array_set_size (a, 0);
    add_silence (a, 2, 48000, i * step);
    add_tone (a, 2, 48000, tone, -23, NULL, 1000);
    add_silence (a, 2, 48000, 1.0);
    run_stereo (a, &msgs, "1000000000");
    expect (what, field (last (msgs), f), -23, 0.1, 0.1);
    g_free (what);
    g_ptr_array_unref (msgs);
  }
  g_array_unref (a);
}

/* Tech 3341 cases 11 and 14, live: one stream of 20 segments of 2 x tone
 * s (i x step of silence, `tone` s at -38 + i dBFS, silence), one message
 * per segment: the largest `f` since the start is the segment's */
static void
expect_live_max (guint case_no, gdouble tone, gdouble step, const gchar * f)
{
  GArray *a = g_array_new (FALSE, FALSE, sizeof (gdouble));
  GPtrArray *msgs;
  gchar *interval = g_strdup_printf ("%" G_GUINT64_FORMAT,
      (guint64) llround (2 * tone * GST_SECOND));
  guint i;

  for (i = 0; i < 20; i++) {
    add_silence (a, 2, 48000, i * step);
    add_tone (a, 2, 48000, tone, -38.0 + i, NULL, 1000);
    add_silence (a, 2, 48000, tone - i * step);
  }
  run_stereo (a, &msgs, interval);
  fail_unless_equals_int (msgs->len, 20);
  for (i = 0; i < 20; i++) {
    gchar *what = g_strdup_printf ("3341 case %u, segment %u, %s", case_no,
        i + 1, f);

    expect (what, field (g_ptr_array_index (msgs, i), f), -38.0 + i, 0.1, 0.1);
    g_free (what);
  }
  g_ptr_array_unref (msgs);
  g_array_unref (a);
  g_free (interval);
}

GST_START_TEST (test_ebu_3341_max)
{
  expect_file_max (10, 3.0, 0.15, "max-shortterm-loudness");
  expect_file_max (13, 0.4, 0.02, "max-momentary-loudness");
  expect_live_max (11, 3.0, 0.15, "max-shortterm-loudness");
  expect_live_max (14, 0.4, 0.02, "max-momentary-loudness");
}

GST_END_TEST;

GST_START_TEST (test_ebu_3341_true_peak)
{
  /* cases 15-19: fs/div at amp FFS, phase in degrees, 10 ms fades */
  static const gdouble cases[5][4] = {
    {4, 0.5, 0, -6}, {4, 0.5, 45, -6}, {6, 0.5, 60, -6}, {8, 0.5, 67.5, -6},
    {4, 1.41, 45, 3}
  };
  guint k;

  for (k = 0; k < 5; k++) {
    gint rate = 48000;
    gsize n = rate, i, fade = rate / 100;
    gdouble *x = g_new (gdouble, n * 2), tp;
    const gchar *props[] = { NULL };
    LRun r = { NULL, props, 0 };
    GPtrArray *msgs;
    gchar *what;

    for (i = 0; i < n; i++) {
      gdouble env = MIN (1.0, MIN ((gdouble) i / fade, (gdouble) (n - 1 - i)
              / fade));

      x[2 * i] = x[2 * i + 1] = env * cases[k][1] * sin (2 * G_PI * i /
          cases[k][0] + cases[k][2] * G_PI / 180);
    }
    msgs = measure (&r, rate, 2, NULL, x, n);
    tp = MAX (field_ch (last (msgs), "true-peak", 0), field_ch (last (msgs),
            "true-peak", 1));
    what = g_strdup_printf ("3341 case %u, true peak (dBTP)", 15 + k);
    expect (what, db (tp), cases[k][3], 0.4, 0.2);
    g_free (what);
    g_ptr_array_unref (msgs);
    g_free (x);
  }
}

GST_END_TEST;

GST_START_TEST (test_ebu_3342)
{
  static const gdouble cases[4][12] = {
    {20, -20, 20, -30, 0},
    {20, -20, 20, -15, 0},
    {20, -40, 20, -20, 0},
    {20, -50, 20, -35, 20, -20, 20, -35, 20, -50, 0},
  };
  static const gdouble expected[4] = { 10, 5, 20, 15 };
  guint k, j;

  for (k = 0; k < 4; k++) {
    GArray *a = g_array_new (FALSE, FALSE, sizeof (gdouble));
    GPtrArray *msgs;
    gchar *what;

    for (j = 0; cases[k][j] > 0; j += 2)
      add_tone (a, 2, 48000, cases[k][j], cases[k][j + 1], NULL, 1000);
    run_stereo (a, &msgs, "1000000000");
    what = g_strdup_printf ("3342 case %u, LRA", k + 1);
    expect (what, field (last (msgs), "loudness-range"), expected[k], 1, 1);
    g_free (what);
    g_ptr_array_unref (msgs);
    g_array_unref (a);
  }
}

GST_END_TEST;

/* ---- behaviour ------------------------------------------------------------ */

GST_START_TEST (test_eos_partial_and_times)
{
  GArray *a = g_array_new (FALSE, FALSE, sizeof (gdouble));
  GPtrArray *msgs;
  static const guint64 ts[3] = { GST_SECOND, 2 * GST_SECOND,
    2500 * GST_MSECOND
  };
  static const guint64 dur[3] = { GST_SECOND, GST_SECOND, 500 * GST_MSECOND };
  guint i;

  add_tone (a, 2, 48000, 2.5, -23, NULL, 1000);
  run_stereo (a, &msgs, "1000000000");
  fail_unless_equals_int (msgs->len, 3);
  for (i = 0; i < 3; i++) {
    const GstStructure *s = g_ptr_array_index (msgs, i);
    guint64 t, d, rt, st;

    fail_unless (gst_structure_get_uint64 (s, "timestamp", &t)
        && gst_structure_get_uint64 (s, "duration", &d)
        && gst_structure_get_uint64 (s, "running-time", &rt)
        && gst_structure_get_uint64 (s, "stream-time", &st));
    fail_unless_equals_uint64 (t, ts[i]);
    fail_unless_equals_uint64 (d, dur[i]);
    fail_unless_equals_uint64 (rt, ts[i]);
    fail_unless_equals_uint64 (st, ts[i]);
  }
  g_ptr_array_unref (msgs);
  g_array_unref (a);
}

GST_END_TEST;

/* buffers that do not hold whole 10 ms blocks (the staging's partial
 * block carried from batch to batch), intervals of 10 and 250 ms: against
 * libebur128 at 44.1 kHz, timestamps rising by the interval; at 22.05 kHz
 * (blocks of 221 frames: windows 0.2 % long) the level of a steady tone */
GST_START_TEST (test_odd_buffers)
{
  static const gchar *intervals[] = { "10000000", "250000000" };
  guint k, i;

  for (k = 0; k < 2; k++) {
    gsize n;
    gdouble *x = make_music (44100, 6, 11 + k, &n);
    const gchar *props[] = { "interval", intervals[k], NULL };
    LRun r = { NULL, props, 1024, FALSE };
    GPtrArray *msgs = measure (&r, 44100, 2, NULL, x, n);
    Ref *refs = reference (x, n, 2, 44100, NULL, msgs);
    guint64 step = g_ascii_strtoull (intervals[k], NULL, 10), prev = 0;

    fail_unless_equals_int (msgs->len, (n * GST_SECOND / 44100 + step - 1) /
        step);
    for (i = 0; i < msgs->len; i++) {
      const GstStructure *s = g_ptr_array_index (msgs, i);
      guint64 ts;

      fail_unless (gst_structure_get_uint64 (s, "timestamp", &ts));
      fail_unless (ts > prev, "interval %s: message %u at %" G_GUINT64_FORMAT
          " after %" G_GUINT64_FORMAT, intervals[k], i, ts, prev);
      if (i + 1 < msgs->len)
        fail_unless_equals_uint64 (ts, (i + 1) * step);
      prev = ts;
      fail_unless (close_lu (field (s, "momentary-loudness"), refs[i].m,
              LU_TOL) && close_lu (field (s, "global-loudness"), refs[i].i,
              LU_TOL), "interval %s, message %u: M %.4f I %.4f, libebur128 "
          "%.4f %.4f", intervals[k], i, field (s, "momentary-loudness"),
          field (s, "global-loudness"), refs[i].m, refs[i].i);
    }
    g_free (refs);
    g_ptr_array_unref (msgs);
    g_free (x);
  }
  {
    GArray *a = g_array_new (FALSE, FALSE, sizeof (gdouble));
    const gchar *props[] = { "interval", "250000000", NULL };
    LRun r = { NULL, props, 1000, FALSE };
    GPtrArray *msgs;
    guint64 prev = 0;

    add_tone (a, 2, 22050, 5, -23, NULL, 1000);
    msgs = measure (&r, 22050, 2, NULL, (const gdouble *) a->data, a->len / 2);
    /* (250 ms is 5512 frames, floor (0.25 x 22050): 20 of them and a last
     * one of 10 frames) */
    fail_unless_equals_int (msgs->len, 21);
    for (i = 0; i < msgs->len; i++) {
      guint64 ts;

      gst_structure_get_uint64 (g_ptr_array_index (msgs, i), "timestamp", &ts);
      fail_unless (ts > prev);
      prev = ts;
    }
    expect ("22.05 kHz, 1000-frame buffers, I", field (last (msgs),
            "global-loudness"), -23, 0.1, 0.1);
    g_ptr_array_unref (msgs);
    g_array_unref (a);
  }
}

GST_END_TEST;

GST_START_TEST (test_silence)
{
  GArray *a = g_array_new (FALSE, FALSE, sizeof (gdouble));
  GPtrArray *msgs;
  const GstStructure *s;

  add_silence (a, 2, 48000, 5);
  s = run_stereo (a, &msgs, "1000000000");
  fail_unless (isinf (field (s, "momentary-loudness"))
      && field (s, "momentary-loudness") < 0);
  fail_unless (isinf (field (s, "shortterm-loudness")));
  fail_unless (isinf (field (s, "global-loudness")));
  fail_unless (isinf (field (s, "max-momentary-loudness")));
  fail_unless_equals_float (field (s, "relative-threshold"), -70.0);
  fail_unless_equals_float (field (s, "loudness-range"), 0.0);
  fail_unless_equals_float (field_ch (s, "sample-peak", 1), 0.0);
  fail_unless_equals_float (field_ch (s, "true-peak", 0), 0.0);
  g_ptr_array_unref (msgs);
  g_array_unref (a);
}

GST_END_TEST;

GST_START_TEST (test_not_finite)
{
  gint rate = 48000;
  gsize n = 6 * rate, i;
  gdouble *x = g_new (gdouble, n * 2), *z = g_new (gdouble, n * 2);
  GRand *r = g_rand_new_with_seed (9);

  for (i = 0; i < n * 2; i++) {
    x[i] = 0.1 * gauss (r);
    z[i] = x[i];
    if (i % 9973 == 0) {
      x[i] = i % 3 == 0 ? NAN : i % 3 == 1 ? INFINITY : -INFINITY;
      z[i] = 0.0;
    }
  }
  {
    /* the element reads them as 0: its numbers are libebur128's of z */
    const gchar *props[] = { NULL };
    LRun run = { NULL, props, 0 };
    GPtrArray *msgs = measure (&run, rate, 2, NULL, x, n);
    Ref *refs = reference (z, n, 2, rate, NULL, msgs);
    const GstStructure *s = last (msgs);

    fail_unless (close_lu (field (s, "global-loudness"),
            refs[msgs->len - 1].i, LU_TOL));
    fail_unless (close_lu (field (s, "momentary-loudness"),
            refs[msgs->len - 1].m, LU_TOL));
    fail_unless (isfinite (field_ch (s, "true-peak", 0)));
    g_free (refs);
    g_ptr_array_unref (msgs);
  }
  g_rand_free (r);
  g_free (x);
  g_free (z);
}

GST_END_TEST;

GST_START_TEST (test_formats)
{
  static const gchar *formats[] = { "S16LE", "S24LE", "S32LE", "F32LE",
    "F64LE"
  };
  gint rate = 44100;
  gsize n = 5 * rate, i;
  gdouble *x = g_new (gdouble, n * 3);
  GRand *r = g_rand_new_with_seed (5);
  guint k, planar;

  for (k = 0; k < G_N_ELEMENTS (formats); k++)
    for (planar = 0; planar < 2; planar++) {
      Fmt f = { formats[k], rate, 3, planar };
      gchar *caps = fmt_caps_string (&f);
      const gchar *props[] = { NULL };
      LRun run = { caps, props, 441, planar };
      GPtrArray *msgs;
      Ref *refs;
      static const int map[] = { EBUR128_LEFT, EBUR128_RIGHT, EBUR128_CENTER };

      for (i = 0; i < n * 3; i++)
        x[i] = 0.2 * sin (2 * G_PI * (300 + 500 * (i % 3)) * (i / 3) / rate)
            + 0.05 * gauss (r);
      fmt_quantize (&f, x, n * 3);
      msgs = measure (&run, rate, 3, formats[k], x, n);
      /* three channels without positions: weights 1, as L, R, C */
      refs = reference (x, n, 3, rate, map, msgs);
      fail_unless_equals_int (msgs->len, 5);
      for (i = 0; i < msgs->len; i++) {
        const GstStructure *s = g_ptr_array_index (msgs, i);

        fail_unless (close_lu (field (s, "momentary-loudness"), refs[i].m,
                LU_TOL) && close_lu (field (s, "global-loudness"), refs[i].i,
                LU_TOL), "%s %s message %u: M %.4f I %.4f, libebur128 %.4f "
            "%.4f", formats[k], planar ? "planar" : "interleaved", (guint) i,
            field (s, "momentary-loudness"), field (s, "global-loudness"),
            refs[i].m, refs[i].i);
        fail_unless (field_ch (s, "sample-peak", 2) == refs[i].sp[2],
            "%s: sample peak %.9g, libebur128 %.9g", formats[k],
            field_ch (s, "sample-peak", 2), refs[i].sp[2]);
      }
      g_free (refs);
      g_ptr_array_unref (msgs);
      g_free (caps);
    }
  g_rand_free (r);
  g_free (x);
}

GST_END_TEST;

GST_START_TEST (test_modes)
{
  /* the fields of each mode, as ebur128level's */
  static const struct
  {
    const gchar *mode;
    const gchar *present, *absent;
  } cases[] = {
    {"momentary", "momentary-loudness max-momentary-loudness",
        "shortterm-loudness global-loudness loudness-range sample-peak "
          "true-peak max-shortterm-loudness"},
    {"loudness-range", "momentary-loudness shortterm-loudness loudness-range",
        "global-loudness sample-peak true-peak max-shortterm-loudness"},
    {"global", "momentary-loudness global-loudness relative-threshold",
        "shortterm-loudness loudness-range sample-peak true-peak"},
    {"true-peak", "momentary-loudness sample-peak true-peak",
        "shortterm-loudness global-loudness loudness-range"},
    {"short-term+sample-peak", "momentary-loudness shortterm-loudness "
          "max-shortterm-loudness sample-peak",
        "global-loudness loudness-range true-peak"},
  };
  GArray *a = g_array_new (FALSE, FALSE, sizeof (gdouble));
  guint k, j;

  add_tone (a, 2, 48000, 2, -20, NULL, 1000);
  for (k = 0; k < G_N_ELEMENTS (cases); k++) {
    const gchar *props[] = { "mode", cases[k].mode, NULL };
    LRun r = { NULL, props, 0 };
    GPtrArray *msgs = measure (&r, 48000, 2, NULL, (const gdouble *) a->data,
        a->len / 2);
    const GstStructure *s = last (msgs);
    gchar **yes = g_strsplit (cases[k].present, " ", -1);
    gchar **no = g_strsplit (cases[k].absent, " ", -1);

    fail_unless_equals_int (msgs->len, 2);
    for (j = 0; yes[j]; j++)
      fail_unless (gst_structure_has_field (s, yes[j]), "mode %s: no %s",
          cases[k].mode, yes[j]);
    for (j = 0; no[j]; j++)
      fail_if (gst_structure_has_field (s, no[j]), "mode %s: %s",
          cases[k].mode, no[j]);
    g_strfreev (yes);
    g_strfreev (no);
    g_ptr_array_unref (msgs);
  }
  {
    const gchar *props[] = { "post-messages", "false", NULL };
    LRun r = { NULL, props, 0 };
    GPtrArray *msgs = measure (&r, 48000, 2, NULL, (const gdouble *) a->data,
        a->len / 2);

    fail_unless_equals_int (msgs->len, 0);
    g_ptr_array_unref (msgs);
  }
  g_array_unref (a);
}

GST_END_TEST;

/* pushes secs of a tone at dbfs as F32 stereo, 10 ms buffers, from pts */
static void
push_tone (GstHarness * h, gint rate, gint channels, gdouble secs,
    gdouble dbfs, GstClockTime pts)
{
  GArray *a = g_array_new (FALSE, FALSE, sizeof (gdouble));
  Fmt f = { "F32LE", rate, channels, FALSE };

  add_tone (a, channels, rate, secs, dbfs, NULL, 1000);
  push_samples (h, &f, (const gdouble *) a->data, a->len / channels,
      rate / 100, pts, FALSE);
  g_array_unref (a);
}

/* a bus handler that takes 100 ms a message: the element's messages wait
 * in its poster meanwhile */
static GstBusSyncReply
slow_pass (GstBus * bus, GstMessage * msg, gpointer data)
{
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ELEMENT)
    g_usleep (100 * 1000);
  return GST_BUS_PASS;
}

GST_START_TEST (test_reset_and_renegotiation)
{
  GstBus *bus;
  GstHarness *h = harness_new_element ("gpuloudness", &bus,
      "audio/x-raw,format=F32LE,rate=48000,channels=2,layout=interleaved",
      NULL, NULL);
  GPtrArray *msgs;

  /* 5 s at -13, then `reset`, then 5 s at -33: I is -33 (the handler
   * slower than the pushes: the caps must wait for the messages) */
  gst_bus_set_sync_handler (bus, slow_pass, NULL, NULL);
  push_tone (h, 48000, 2, 5, -13, 0);
  g_signal_emit_by_name (h->element, "reset");
  push_tone (h, 48000, 2, 5, -33, 5 * GST_SECOND);
  /* new caps mid-stream (a new meter, as ebur128level): 4 s at -43 dBFS,
   * mono 44.1 kHz (dual mono: as the same tone in both channels, -43
   * LUFS; weight 1 would read -46) */
  gst_harness_set_src_caps_str (h,
      "audio/x-raw,format=F32LE,rate=44100,channels=1,layout=interleaved");
  /* 5 before the reset, 5 after it: on the bus before the caps went on */
  gst_bus_set_sync_handler (bus, NULL, NULL, NULL);
  msgs = pop_all (bus);
  fail_unless_equals_int (msgs->len, 10);
  expect ("before the reset, I", field (g_ptr_array_index (msgs, 4),
          "global-loudness"), -13, 0.1, 0.1);
  expect ("after the reset, I", field (g_ptr_array_index (msgs, 9),
          "global-loudness"), -33, 0.1, 0.1);
  expect ("after the reset, sample peak (dBFS)", db (field_ch
          (g_ptr_array_index (msgs, 9), "sample-peak", 0)), -33, 0.01, 0.01);
  g_ptr_array_unref (msgs);
  push_tone (h, 44100, 1, 4, -43, 10 * GST_SECOND);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  msgs = pop_all (bus);
  /* 4 after the caps */
  fail_unless_equals_int (msgs->len, 4);
  expect ("after new caps, I", field (last (msgs), "global-loudness"), -43,
      0.1, 0.1);
  fail_unless (gst_value_array_get_size (gst_structure_get_value (last
              (msgs), "sample-peak")) == 1);
  g_ptr_array_unref (msgs);
  harness_free (h, bus);
}

GST_END_TEST;

GST_START_TEST (test_flush_and_huge_interval)
{
  GstBus *bus;
  GstHarness *h = harness_new_element ("gpuloudness", &bus,
      "audio/x-raw,format=F32LE,rate=48000,channels=2,layout=interleaved",
      "interval", "3600000000000", NULL);
  GPtrArray *msgs;
  GstSegment seg;
  guint64 d;

  /* a flush goes on measuring (as ebur128level); an interval of an hour
   * posts the stream's 6 s at EOS */
  push_tone (h, 48000, 2, 3, -23, 0);
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  gst_segment_init (&seg, GST_FORMAT_TIME);
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&seg)));
  push_tone (h, 48000, 2, 3, -23, 0);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  msgs = pop_all (bus);
  fail_unless_equals_int (msgs->len, 1);
  fail_unless (gst_structure_get_uint64 (last (msgs), "duration", &d));
  fail_unless_equals_uint64 (d, 6 * GST_SECOND);
  expect ("6 s at -23 with a flush, I", field (last (msgs),
          "global-loudness"), -23, 0.1, 0.1);
  g_ptr_array_unref (msgs);
  harness_free (h, bus);
}

GST_END_TEST;

/* A flush: the intervals that ended before it are posted before
 * FLUSH_STOP leaves (their blocks measured though no batch was full), and
 * the measurement goes on after it. */
GST_START_TEST (test_flush_posts_ended_intervals)
{
  GstBus *bus;
  GstHarness *h = harness_new_element ("gpuloudness", &bus,
      "audio/x-raw,format=F32LE,rate=48000,channels=2,layout=interleaved",
      "interval", "100000000", NULL);
  GPtrArray *msgs;
  GstSegment seg;

  push_tone (h, 48000, 2, 1, -23, 0);
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  msgs = pop_all (bus);
  fail_unless_equals_int (msgs->len, 10);
  expect ("1 s at -23, then a flush, M", field (last (msgs),
          "momentary-loudness"), -23, 0.1, 0.1);
  g_ptr_array_unref (msgs);
  gst_segment_init (&seg, GST_FORMAT_TIME);
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&seg)));
  push_tone (h, 48000, 2, 1, -23, 0);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  msgs = pop_all (bus);
  fail_unless_equals_int (msgs->len, 10);
  g_ptr_array_unref (msgs);
  harness_free (h, bus);
}

GST_END_TEST;

/* the WARNING messages on the bus whose debug text contains `what` (the
 * ebur128-level messages -> *msgs when given; an ERROR fails the test) */
static guint
pop_warnings (GstBus * bus, const gchar * what, GPtrArray ** msgs)
{
  GstMessage *msg;
  guint n = 0;

  if (msgs)
    *msgs = g_ptr_array_new_with_free_func ((GDestroyNotify)
        gst_structure_free);
  while ((msg = gst_bus_pop (bus)) != NULL) {
    fail_if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR, "an error");
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_WARNING) {
      GError *err = NULL;
      gchar *dbg = NULL;

      gst_message_parse_warning (msg, &err, &dbg);
      if (dbg && strstr (dbg, what))
        n++;
      g_clear_error (&err);
      g_free (dbg);
    }
    if (msgs && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ELEMENT
        && gst_structure_has_name (gst_message_get_structure (msg),
            "ebur128-level"))
      g_ptr_array_add (*msgs, gst_structure_copy (gst_message_get_structure
              (msg)));
    gst_message_unref (msg);
  }
  return n;
}

/* A non-interleaved buffer without a GstAudioMeta cannot be read: it
 * passes through untouched with a WARNING, and the measurement goes on
 * with the buffers after it. */
GST_START_TEST (test_planar_without_meta)
{
  GstBus *bus;
  GstHarness *h = harness_new_element ("gpuloudness", &bus,
      "audio/x-raw,format=F32LE,rate=48000,channels=2,"
      "layout=non-interleaved", "interval", "100000000", NULL);
  GArray *a = g_array_new (FALSE, FALSE, sizeof (gdouble));
  Fmt f = { "F32LE", 48000, 2, TRUE };
  GstBuffer *in, *out;
  GPtrArray *msgs;

  in = gst_buffer_new_allocate (NULL, 480 * 2 * sizeof (gfloat), NULL);
  gst_buffer_memset (in, 0, 0x11, 480 * 2 * sizeof (gfloat));
  GST_BUFFER_PTS (in) = 0;
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
      GST_FLOW_OK);
  out = gst_harness_pull (h);
  fail_unless_equals_uint64 (gst_buffer_get_size (out),
      gst_buffer_get_size (in));
  {
    GstMapInfo map;

    fail_unless (gst_buffer_map (in, &map, GST_MAP_READ));
    fail_unless (gst_buffer_memcmp (out, 0, map.data, map.size) == 0);
    gst_buffer_unmap (in, &map);
  }
  gst_buffer_unref (out);
  gst_buffer_unref (in);
  add_tone (a, 2, 48000, 1, -23, NULL, 1000);
  push_samples (h, &f, (const gdouble *) a->data, a->len / 2, 480,
      GST_MSECOND * 10, FALSE);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  fail_unless_equals_int (pop_warnings (bus, "GstAudioMeta", &msgs), 1);
  fail_unless_equals_int (msgs->len, 10);
  expect ("1 s at -23 after an unreadable buffer, M", field (last (msgs),
          "momentary-loudness"), -23, 0.1, 0.1);
  g_ptr_array_unref (msgs);
  g_array_unref (a);
  harness_free (h, bus);
}

GST_END_TEST;

/* New caps after a flush, before the next segment: the interval under
 * way is posted with the time of its end and no running or stream time
 * (the flushed segment is undefined). */
GST_START_TEST (test_caps_after_flush)
{
  GstBus *bus;
  GstHarness *h = harness_new_element ("gpuloudness", &bus,
      "audio/x-raw,format=F32LE,rate=48000,channels=2,layout=interleaved",
      NULL, NULL);
  GstCaps *caps;
  GPtrArray *msgs;
  guint64 ts, rt, st;

  push_tone (h, 48000, 2, 0.5, -23, 0);
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  caps = gst_caps_from_string ("audio/x-raw,format=F32LE,rate=44100,"
      "channels=2,layout=interleaved");
  fail_unless (gst_harness_push_event (h, gst_event_new_caps (caps)));
  gst_caps_unref (caps);
  msgs = pop_all (bus);
  fail_unless_equals_int (msgs->len, 1);
  fail_unless (gst_structure_get_uint64 (last (msgs), "timestamp", &ts));
  fail_unless (gst_structure_get_uint64 (last (msgs), "running-time", &rt));
  fail_unless (gst_structure_get_uint64 (last (msgs), "stream-time", &st));
  fail_unless_equals_uint64 (ts, GST_SECOND / 2);
  fail_unless_equals_uint64 (rt, GST_CLOCK_TIME_NONE);
  fail_unless_equals_uint64 (st, GST_CLOCK_TIME_NONE);
  g_ptr_array_unref (msgs);
  harness_free (h, bus);
}

GST_END_TEST;

/* Samples beyond +-1e6 (+120 dBFS) read as 0, as NaN and infinities do,
 * with one WARNING for the stream: every field stays finite (or -inf for
 * silence), and the numbers are libebur128's with those samples 0. */
GST_START_TEST (test_huge_samples)
{
  gint rate = 48000;
  gsize n = 4 * rate, i;
  gdouble *x = g_new (gdouble, n * 2), *z = g_new (gdouble, n * 2);
  GRand *r = g_rand_new_with_seed (5);
  const gchar *fields[] = { "momentary-loudness", "shortterm-loudness",
    "global-loudness", "max-momentary-loudness", "max-shortterm-loudness",
    "relative-threshold", "loudness-range"
  };

  for (i = 0; i < n * 2; i++) {
    x[i] = z[i] = 0.1 * gauss (r);
    if (i % 7919 == 0) {
      x[i] = i % 2 ? 1e30 : -2e6;
      z[i] = 0.0;
    }
  }
  {
    GstBus *bus;
    GstHarness *h = harness_new_element ("gpuloudness", &bus,
        "audio/x-raw,format=F64LE,rate=48000,channels=2,layout=interleaved",
        NULL, NULL);
    Fmt f = { "F64LE", rate, 2, FALSE };
    GPtrArray *msgs;
    Ref *refs;
    guint m, k, warnings;

    push_samples (h, &f, x, n, 480, 0, FALSE);
    fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
    warnings = pop_warnings (bus, "1e6", &msgs);
    fail_unless_equals_int (msgs->len, 4);
    for (m = 0; m < msgs->len; m++)
      for (k = 0; k < G_N_ELEMENTS (fields); k++) {
        gdouble v = field (g_ptr_array_index (msgs, m), fields[k]);

        fail_unless (isfinite (v) || v < 0, "%s: %f", fields[k], v);
        fail_unless (v < 1000.0, "%s: %f", fields[k], v);
      }
    refs = reference (z, n, 2, rate, NULL, msgs);
    fail_unless (close_lu (field (last (msgs), "global-loudness"),
            refs[msgs->len - 1].i, LU_TOL));
    fail_unless (close_lu (field (last (msgs), "momentary-loudness"),
            refs[msgs->len - 1].m, LU_TOL));
    fail_unless (fabs (field_ch (last (msgs), "sample-peak", 0) -
            refs[msgs->len - 1].sp[0]) < 1e-6);
    fail_unless (isfinite (field_ch (last (msgs), "true-peak", 1)));
    fail_unless_equals_int (warnings, 1);
    g_free (refs);
    g_ptr_array_unref (msgs);
    harness_free (h, bus);
  }
  g_rand_free (r);
  g_free (x);
  g_free (z);
}

GST_END_TEST;

/* A segment from 1 s to 2 s and 3 s of a tone from 0 in buffers of 700
 * frames (some across its edges): every buffer passes through, unchanged
 * (GstAudioFilter would drop those outside the segment), and only the
 * second in the segment is measured: ten 100 ms intervals ending at 1.1 s
 * to 2 s, at the tone's level. */
GST_START_TEST (test_outside_segment)
{
  GstBus *bus;
  GstHarness *h = harness_new_element ("gpuloudness", &bus,
      "audio/x-raw,format=F32LE,rate=48000,channels=2,layout=interleaved",
      "interval", "100000000", NULL);
  GArray *a = g_array_new (FALSE, FALSE, sizeof (gdouble));
  Fmt f = { "F32LE", 48000, 2, FALSE };
  GstSegment seg;
  GPtrArray *msgs;
  guint i;

  gst_segment_init (&seg, GST_FORMAT_TIME);
  seg.start = seg.time = GST_SECOND;
  seg.stop = 2 * GST_SECOND;
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&seg)));
  add_tone (a, 2, 48000, 3, -23, NULL, 1000);
  push_samples (h, &f, (const gdouble *) a->data, a->len / 2, 700, 0, FALSE);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  fail_unless_equals_int (gst_harness_buffers_received (h),
      (3 * 48000 + 699) / 700);
  msgs = pop_all (bus);
  fail_unless_equals_int (msgs->len, 10);
  for (i = 0; i < msgs->len; i++) {
    const GstStructure *s = g_ptr_array_index (msgs, i);
    guint64 t, d;

    fail_unless (gst_structure_get_uint64 (s, "timestamp", &t)
        && gst_structure_get_uint64 (s, "duration", &d));
    fail_unless_equals_uint64 (t, GST_SECOND + (i + 1) * 100 * GST_MSECOND);
    fail_unless_equals_uint64 (d, 100 * GST_MSECOND);
  }
  expect ("the segment's second, M", field (last (msgs),
          "momentary-loudness"), -23, 0.1, 0.1);
  g_ptr_array_unref (msgs);
  g_array_unref (a);
  harness_free (h, bus);
}

GST_END_TEST;

static Suite *
loudness_suite (void)
{
  Suite *s = suite_create ("gpuloudness");
  TCase *tc = tcase_create ("general");

  tcase_set_timeout (tc, 600);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_ebu_3341_integrated);
  tcase_add_test (tc, test_outside_segment);
  tcase_add_test (tc, test_ebu_3341_surround);
  tcase_add_test (tc, test_ebu_3341_steady);
  tcase_add_test (tc, test_ebu_3341_max);
  tcase_add_test (tc, test_ebu_3341_true_peak);
  tcase_add_test (tc, test_ebu_3342);
  tcase_add_test (tc, test_libebur128_noise);
  tcase_add_test (tc, test_libebur128_music);
  tcase_add_test (tc, test_libebur128_surround);
  tcase_add_test (tc, test_libebur128_live_host_alone);
  tcase_add_test (tc, test_eos_partial_and_times);
  tcase_add_test (tc, test_odd_buffers);
  tcase_add_test (tc, test_silence);
  tcase_add_test (tc, test_not_finite);
  tcase_add_test (tc, test_formats);
  tcase_add_test (tc, test_modes);
  tcase_add_test (tc, test_reset_and_renegotiation);
  tcase_add_test (tc, test_flush_and_huge_interval);
  tcase_add_test (tc, test_flush_posts_ended_intervals);
  tcase_add_test (tc, test_planar_without_meta);
  tcase_add_test (tc, test_caps_after_flush);
  tcase_add_test (tc, test_huge_samples);
  return s;
}

GST_CHECK_MAIN (loudness);
