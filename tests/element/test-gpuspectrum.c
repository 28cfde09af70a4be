/* gpuspectrum against GStreamer's own spectrum (gst-plugins-good), run side
 * by side on the same input: the same messages (structure name, fields,
 * their types and order, count, time fields), the main-lobe magnitudes of
 * steady tones within 0.01 dB, for mono, stereo downmixed and stereo
 * multi-channel, S16/S32/F32/F64, bands 2, 8, 20, 128, 256 and 1025;
 * property changes while playing; a synchronous bus handler that changes
 * properties (spectrum deadlocks there); the scenarios of spectrum's own
 * unit tests; the property set; and every value (not only the main lobes)
 * of white and pink noise, a chirp, tones between bins and with noise,
 * bursts, and a decoded Vorbis file of music made here, at
 * thresholds -40 to -80, intervals of 10 ms to 1 s and bands 8 to 1025;
 * DISCONT buffers as spectrum takes them; a rate change while playing,
 * whose buffers' timestamps go back (audiotestsrc's), as spectrum takes it. */
#include "gpufft-test-common.h"

#include <glib/gstdio.h>
#include <unistd.h>

#define RATE 44100
#define INTERVAL_SAMPLES 4410   /* 100 ms */

/* (the reference must be there: a comparison with nothing passes nothing) */
static gboolean
have_spectrum (void)
{
  GstElementFactory *f = gst_element_factory_find ("spectrum");

  fail_unless (f != NULL, "GStreamer's spectrum element is missing: install "
      "gstreamer1.0-plugins-good (scripts/setup.sh does)");
  gst_object_unref (f);
  return TRUE;
}

/* x[n * channels]: channel c a cosine on bin k0 + c of nfft (every frame
 * of nfft samples sees the same phase), amplitude 0.5 / (c + 1) */
static gdouble *
bin_tones (guint channels, gsize n, guint nfft, guint k0)
{
  gdouble *x = g_new0 (gdouble, n * channels);
  guint c;

  for (c = 0; c < channels; c++) {
    guint k = MIN (k0 + c, nfft / 2);

    gen_tone (x + c, n, channels, 0.5 / (c + 1), (gdouble) k * RATE / nfft,
        RATE, G_PI / 2);
  }
  return x;
}

typedef struct
{
  const gchar *factory;
  const gchar *bands;
  const gchar *multi;
  const gchar *prop2;           /* set between the halves, or NULL ... */
  const gchar *value2;          /* ... to this */
} RunSpec;

/* Pushes x (PTS from 0) in 441-sample buffers through the element, with
 * prop2 set to value2 after the first half; returns its messages after
 * EOS. */
static Msgs *
run_element (const RunSpec * r, const Fmt * f, const gdouble * x, gsize n)
{
  gchar *caps = fmt_caps_string (f);
  GstBus *bus;
  GstHarness *h = harness_new_element (r->factory, &bus, caps, "bands",
      r->bands, "multi-channel", r->multi, "interval", "100000000",
      "threshold", "-80", NULL);
  gsize half = r->prop2 ? n / 2 : n;
  Msgs *m;

  push_samples (h, f, x, half, 441, 0, FALSE);
  if (r->prop2) {
    /* (changed at once: the intervals complete before the change are
     * posted, as spectrum posted them while the buffers were pushed, even
     * where the GPU has not finished them yet) */
    gst_util_set_object_arg (G_OBJECT (h->element), r->prop2, r->value2);
    push_samples (h, f, x + half * f->channels, n - half, 441,
        gst_util_uint64_scale_int (half, GST_SECOND, RATE), FALSE);
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  m = msgs_collect (bus, 0, 0);
  fail_unless_equals_int (m->errors->len, 0);
  harness_free (h, bus);
  g_free (caps);
  return m;
}

/* field (magnitude or phase) as [rows][bands] floats (list or array of
 * arrays) */
static gfloat *
float_rows (const GstStructure * s, const gchar * field, guint * rows,
    guint * bands)
{
  const GValue *v = gst_structure_get_value (s, field);
  gfloat *out;
  guint r, b;

  if (GST_VALUE_HOLDS_LIST (v)) {
    *rows = 1;
    *bands = gst_value_list_get_size (v);
    out = g_new (gfloat, *bands);
    for (b = 0; b < *bands; b++)
      out[b] = g_value_get_float (gst_value_list_get_value (v, b));
    return out;
  }
  fail_unless (v != NULL && GST_VALUE_HOLDS_ARRAY (v), "no %s field", field);
  *rows = gst_value_array_get_size (v);
  *bands = gst_value_array_get_size (gst_value_array_get_value (v, 0));
  out = g_new (gfloat, *rows * *bands);
  for (r = 0; r < *rows; r++) {
    const GValue *row = gst_value_array_get_value (v, r);

    fail_unless_equals_int (gst_value_array_get_size (row), *bands);
    for (b = 0; b < *bands; b++)
      out[r * *bands + b] =
          g_value_get_float (gst_value_array_get_value (row, b));
  }
  return out;
}

static gfloat *
magnitudes (const GstStructure * s, guint * rows, guint * bands)
{
  return float_rows (s, "magnitude", rows, bands);
}

/* the loudest of a row's n values (dB) */
static gfloat
row_loudest (const gfloat * row, guint n)
{
  gfloat loudest = -1000;
  guint k;

  for (k = 0; k < n; k++)
    loudest = MAX (loudest, row[k]);
  return loudest;
}

/* Message by message: fields, types, order, time fields equal; bins within
 * 30 dB of the row's loudest (the tones' main lobes) within 0.01 dB. */
static void
compare_messages (Msgs * ref, Msgs * got, const gchar * what)
{
  guint i, j;
  gdouble worst = 0;

  fail_unless (ref->spectrum->len > 0, "%s: spectrum posted nothing", what);
  /* the same messages, and one more where the stream ends inside an
   * interval: gpuspectrum posts that partial interval (spectrum loses it) */
  if (got->spectrum->len == ref->spectrum->len + 1) {
    const GstStructure *last = g_ptr_array_index (got->spectrum,
        got->spectrum->len - 1);

    fail_unless (msg_u64 (last, "duration") < 100 * GST_MSECOND,
        "%s: an extra message that is not a partial interval", what);
  } else {
    fail_unless_equals_int (got->spectrum->len, ref->spectrum->len);
  }
  fail_unless_equals_int (got->dominant->len, 0);
  for (i = 0; i < ref->spectrum->len; i++) {
    const GstStructure *a = g_ptr_array_index (ref->spectrum, i);
    const GstStructure *b = g_ptr_array_index (got->spectrum, i);
    guint ra, ba, rb, bb, r, k;
    gfloat *ma, *mb;

    fail_unless_equals_string (gst_structure_get_name (b), "spectrum");
    fail_unless_equals_int (gst_structure_n_fields (b),
        gst_structure_n_fields (a));
    for (j = 0; j < (guint) gst_structure_n_fields (a); j++) {
      const gchar *name = gst_structure_nth_field_name (a, j);

      fail_unless_equals_string (gst_structure_nth_field_name (b, j), name);
      fail_unless_equals_int (gst_structure_get_field_type (b, name),
          gst_structure_get_field_type (a, name));
      if (gst_structure_get_field_type (a, name) == G_TYPE_UINT64)
        fail_unless_equals_uint64 (msg_u64 (b, name), msg_u64 (a, name));
    }
    ma = magnitudes (a, &ra, &ba);
    mb = magnitudes (b, &rb, &bb);
    fail_unless_equals_int (rb, ra);
    fail_unless_equals_int (bb, ba);
    for (r = 0; r < ra; r++) {
      gfloat loudest = row_loudest (ma + (gsize) r * ba, ba);

      for (k = 0; k < ba; k++) {
        gfloat va = ma[r * ba + k], vb = mb[r * ba + k];

        if (va < loudest - 30 || va <= -79.0)
          continue;
        worst = MAX (worst, fabs (va - vb));
        fail_unless (fabs (va - vb) <= 0.01, "%s: message %u row %u band "
            "%u: spectrum %.4f dB, gpuspectrum %.4f dB", what, i, r, k, va, vb);
      }
    }
    g_free (ma);
    g_free (mb);
  }
  GST_INFO ("%s: %u messages, worst main-lobe difference %.5f dB", what,
      ref->spectrum->len, worst);
  g_print ("%-40s %3u messages, main lobe within %.5f dB\n", what,
      ref->spectrum->len, worst);
}

/* prop2 (or NULL) set to value2 halfway */
static void
side_by_side_change (const gchar * format, guint channels, gboolean multi,
    guint bands, const gchar * prop2, const gchar * value2)
{
  Fmt f = { format, RATE, (gint) channels, FALSE };
  guint nfft = 2 * bands - 2;
  gsize n = 5 * INTERVAL_SAMPLES;
  gdouble *x = bin_tones (channels, n, nfft, MAX (1, bands / 3));
  gchar *b = g_strdup_printf ("%u", bands);
  RunSpec rs = { "spectrum", b, multi ? "true" : "false", prop2, value2 };
  RunSpec rg = { "gpuspectrum", b, multi ? "true" : "false", prop2, value2 };
  gchar *what = g_strdup_printf ("%s %u ch%s bands %u%s%s%s%s", format,
      channels, multi ? " multi" : "", bands, prop2 ? ", " : "",
      prop2 ? prop2 : "", prop2 ? " -> " : "", prop2 ? value2 : "");
  Msgs *ref, *got;

  fmt_quantize (&f, x, n * channels);
  ref = run_element (&rs, &f, x, n);
  got = run_element (&rg, &f, x, n);
  compare_messages (ref, got, what);
  msgs_free (ref);
  msgs_free (got);
  g_free (what);
  g_free (b);
  g_free (x);
}

static void
side_by_side (const gchar * format, guint channels, gboolean multi,
    guint bands, guint bands2)
{
  gchar *b2 = g_strdup_printf ("%u", bands2);

  side_by_side_change (format, channels, multi, bands, bands2 ? "bands" :
      NULL, b2);
  g_free (b2);
}

GST_START_TEST (test_side_by_side_bands)
{
  static const guint bands[] = { 2, 8, 20, 128, 256, 1025 };
  guint i;

  if (!have_spectrum ())
    return;
  for (i = 0; i < G_N_ELEMENTS (bands); i++) {
    side_by_side ("F32LE", 1, FALSE, bands[i], 0);
    side_by_side ("F32LE", 2, TRUE, bands[i], 0);
  }
}

GST_END_TEST;

GST_START_TEST (test_side_by_side_formats)
{
  static const gchar *formats[] = { "S16LE", "S32LE", "F32LE", "F64LE" };
  guint i;

  if (!have_spectrum ())
    return;
  for (i = 0; i < G_N_ELEMENTS (formats); i++) {
    side_by_side (formats[i], 1, FALSE, 128, 0);
    /* (downmix: two tones in one spectrum, whose sum depends on where a
     * frame starts; nfft 126 divides the interval, so that spectrum's
     * frames, which start at each interval, are ours) */
    side_by_side (formats[i], 2, FALSE, 64, 0);
    side_by_side (formats[i], 2, TRUE, 256, 0);
  }
}

GST_END_TEST;

/* bands, interval, threshold or multi-channel changed between two buffers:
 * the very next message has the new settings, and the messages match
 * spectrum's one by one */
GST_START_TEST (test_side_by_side_property_change)
{
  if (!have_spectrum ())
    return;
  /* (the new nfft a multiple of the old: the tones stay on bin centres) */
  side_by_side ("F32LE", 1, FALSE, 128, 255);
  side_by_side ("S16LE", 2, TRUE, 20, 115);
  side_by_side_change ("F32LE", 1, FALSE, 128, "interval", "50000000");
  side_by_side_change ("F32LE", 1, FALSE, 128, "threshold", "-30");

}

GST_END_TEST;

/* Messages from spectrum on x[from, to) (PTS from `from`) */
static Msgs *
spectrum_part (const Fmt * f, const gdouble * x, gsize from, gsize to,
    const gchar * bands, const gchar * multi)
{
  gchar *caps = fmt_caps_string (f);
  GstBus *bus;
  GstHarness *h = harness_new_element ("spectrum", &bus, caps, "bands", bands,
      "multi-channel", multi, "interval", "100000000", "threshold", "-80",
      NULL);
  Msgs *m;

  push_samples (h, f, x + from * f->channels, to - from, 441,
      gst_util_uint64_scale_int (from, GST_SECOND, RATE), FALSE);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  m = msgs_collect (bus, 0, 0);
  harness_free (h, bus);
  g_free (caps);
  return m;
}

/* multi-channel changed while playing: spectrum keeps the sample reader
 * of its caps (a downmixing one stays downmixing: its channel 0 then reads
 * the mix, 6 dB low here), so gpuspectrum is compared with spectrum runs
 * made with each setting from the start of its half */
GST_START_TEST (test_multi_channel_change)
{
  static const gchar *from[] = { "false", "true" };
  Fmt f = { "F32LE", RATE, 2, FALSE };
  gsize n = 5 * INTERVAL_SAMPLES, half = n / 2;
  /* (nfft 126 divides the interval: spectrum's frames are ours, also in
   * the downmix of two tones) */
  gdouble *x = bin_tones (2, n, 126, 21);
  guint d;

  if (!have_spectrum ())
    return;
  for (d = 0; d < 2; d++) {
    RunSpec rg = { "gpuspectrum", "64", from[d], "multi-channel",
      from[1 - d]
    };
    Msgs *got = run_element (&rg, &f, x, n);
    Msgs *ref = spectrum_part (&f, x, 0, half, "64", from[d]);
    Msgs *second = spectrum_part (&f, x, half, n, "64", from[1 - d]);
    gchar *what = g_strdup_printf ("multi-channel %s -> %s", from[d],
        from[1 - d]);

    msgs_append (ref, second);
    compare_messages (ref, got, what);
    msgs_free (ref);
    msgs_free (got);
    g_free (what);
  }
  g_free (x);
}

GST_END_TEST;

/* x through `factory` as a live audiotestsrc gives it when its rate goes
 * from 44100 to 48000 Hz while playing, 18 s into the stream: its sample
 * counter goes on, so the first buffer of the new caps is timed at the old
 * rate and the next ones, counted at the new rate, about 1.5 s earlier.
 * n1 samples at 44100 Hz, then n2 at 48000 Hz, in 480-sample buffers. */
static Msgs *
run_rate_change (const gchar * factory, const gdouble * x, gsize n1,
    gsize n2)
{
  Fmt f1 = { "F32LE", RATE, 1, FALSE };
  Fmt f2 = { "F32LE", 48000, 1, FALSE };
  guint64 s0 = 18 * RATE;
  gchar *caps1 = fmt_caps_string (&f1), *caps2 = fmt_caps_string (&f2);
  GstBus *bus;
  GstHarness *h = harness_new_element (factory, &bus, caps1, "bands", "64",
      "interval", "100000000", "threshold", "-80", NULL);
  GstBuffer *buf0;
  Msgs *m;

  push_samples (h, &f1, x, n1, 480,
      gst_util_uint64_scale_int_round (s0, GST_SECOND, RATE), FALSE);
  gst_harness_set_src_caps_str (h, caps2);
  buf0 = fmt_make_buffer (&f2, x + n1, 480,
      gst_util_uint64_scale_int_round (s0 + n1, GST_SECOND, RATE));
  fail_unless_equals_int (gst_harness_push (h, buf0), GST_FLOW_OK);
  push_samples (h, &f2, x + n1 + 480, n2 - 480, 480,
      gst_util_uint64_scale_int_round (s0 + n1 + 480, GST_SECOND, 48000),
      FALSE);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  m = msgs_collect (bus, 0, 0);
  fail_unless_equals_int (m->errors->len, 0);
  harness_free (h, bus);
  g_free (caps1);
  g_free (caps2);
  return m;
}

/* New caps while playing (a rate change, timed as audiotestsrc times it):
 * spectrum starts its analysis anew at the new caps, without posting the
 * interval they cut short, and times each interval with the PTS of the
 * buffer it begins with, also where those go back; gpuspectrum's messages
 * are the same, one by one: count, every time field and the main lobes. */
GST_START_TEST (test_side_by_side_rate_change)
{
  /* 2 intervals and 2220 samples (frames of 126) at 44100 Hz, then 5
   * intervals and 960 samples at 48000 Hz */
  gsize n1 = 23 * 480, n2 = 52 * 480;
  gdouble *x = bin_tones (1, n1 + n2, 126, 21);
  Msgs *ref, *got;
  guint64 t2, t3;

  if (!have_spectrum ())
    return;
  ref = run_rate_change ("spectrum", x, n1, n2);
  got = run_rate_change ("gpuspectrum", x, n1, n2);
  /* (the reference's messages: 2 at 44100 Hz, then the first buffer's
   * interval, at 18 s + n1 / 44100, and the next ones 1.5 s before) */
  fail_unless_equals_int (ref->spectrum->len, 2 + 5);
  t2 = msg_u64 (g_ptr_array_index (ref->spectrum, 2), "timestamp");
  t3 = msg_u64 (g_ptr_array_index (ref->spectrum, 3), "timestamp");
  fail_unless_equals_uint64 (t2, gst_util_uint64_scale_int_round (18 * RATE
          + n1, GST_SECOND, RATE));
  fail_unless (t3 + GST_SECOND < t2, "timestamps %" G_GUINT64_FORMAT
      " then %" G_GUINT64_FORMAT, t2, t3);
  compare_messages (ref, got, "44100 -> 48000 Hz while playing");
  msgs_free (ref);
  msgs_free (got);
  g_free (x);
}

GST_END_TEST;

/* ---- a synchronous bus handler that changes properties ------------------ */

typedef struct
{
  guint n;
  guint expect_bands;           /* set by the handler, for the next message */
  guint mismatches;
} SyncState;

static GstBusSyncReply
on_sync (GstBus * bus, GstMessage * msg, gpointer data)
{
  SyncState *st = data;
  const GstStructure *s = gst_message_get_structure (msg);
  guint rows, bands;
  gfloat *m;

  if (GST_MESSAGE_TYPE (msg) != GST_MESSAGE_ELEMENT
      || !gst_structure_has_name (s, "spectrum"))
    return GST_BUS_PASS;
  m = magnitudes (s, &rows, &bands);
  g_free (m);
  if (st->expect_bands && bands != st->expect_bands)
    st->mismatches++;
  /* (spectrum would deadlock here: it posts under its own lock) */
  st->expect_bands = st->n % 2 ? 64 : 128;
  g_object_set (GST_MESSAGE_SRC (msg), "bands", st->expect_bands,
      "threshold", -70 - (gint) (st->n % 3), NULL);
  st->n++;
  return GST_BUS_PASS;
}

GST_START_TEST (test_sync_handler_changes_bands)
{
  Fmt f = { "F32LE", RATE, 1, FALSE };
  gsize n = 100 * INTERVAL_SAMPLES;
  gdouble *x = bin_tones (1, n, 254, 20);
  gchar *caps = fmt_caps_string (&f);
  SyncState st = { 0, 0, 0 };
  GstBus *bus;
  GstHarness *h = harness_new_element ("gpuspectrum", &bus, caps,
      "threshold", "-60", NULL);

  gst_bus_set_sync_handler (bus, on_sync, &st, NULL);
  push_samples (h, &f, x, n, 441, 0, FALSE);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  GST_INFO ("%u messages", st.n);
  /* every message after a change has the new size; some intervals are
   * dropped by the changes, not all (a change drops the intervals still
   * on the GPU, up to the plan's slots, 8 to 10 of them on lavapipe) */
  fail_unless (st.n >= 5, "only %u messages", st.n);
  fail_unless_equals_int (st.mismatches, 0);
  gst_bus_set_sync_handler (bus, NULL, NULL, NULL);
  harness_free (h, bus);
  g_free (caps);
  g_free (x);
}

GST_END_TEST;

/* ---- spectrum's own unit-test scenarios ---------------------------------- */

/* One second of an fs/4 sine (0, 1, 0, -1 at full scale) in one buffer,
 * bands 256, interval 10 ms, threshold -80: bands 127 and 128 loud (above
 * -20 dB), every other band below; the buffer comes out as it went in,
 * the very same buffer, and no reference on it is kept. */
static void
unit_scenario (const gchar * format)
{
  Fmt f = { format, RATE, 1, FALSE };
  gdouble *x = g_new (gdouble, RATE);
  gchar *caps = fmt_caps_string (&f);
  GstBuffer *in, *out;
  GstBus *bus;
  GstHarness *h = harness_new_element ("gpuspectrum", &bus, caps,
      "post-messages", "true", "interval", "10000000", "bands", "256",
      "threshold", "-80", NULL);
  Msgs *m;
  guint i, rows, bands;
  gfloat *mag;

  for (i = 0; i < RATE; i++)
    x[i] = (i % 4 == 1) ? 1.0 : (i % 4 == 3) ? -1.0 : 0.0;
  in = fmt_make_buffer (&f, x, RATE, 0);
  gst_buffer_ref (in);
  fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
  out = gst_harness_pull (h);
  fail_unless (out == in);
  /* ours, the harness's queue gave its own up: nothing else holds it */
  ASSERT_BUFFER_REFCOUNT (out, "out", 2);
  gst_buffer_unref (out);
  gst_buffer_unref (in);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  m = msgs_collect (bus, 1, 60);
  /* spectrum's 100: the first interval, shorter than a frame (510
   * samples), analysed with zeros before the stream's first sample */
  fail_unless_equals_int (m->spectrum->len, 100);
  fail_unless (gst_structure_has_field_typed (g_ptr_array_index
          (m->spectrum, 0), "endtime", G_TYPE_UINT64));
  mag = magnitudes (g_ptr_array_index (m->spectrum, 0), &rows, &bands);
  fail_unless_equals_int (bands, 256);
  for (i = 0; i < bands; i++) {
    if (i == 127 || i == 128)
      fail_unless (mag[i] >= -20.0, "%s band %u: %.2f dB", format, i, mag[i]);
    else
      fail_unless (mag[i] <= -20.0, "%s band %u: %.2f dB", format, i, mag[i]);
  }
  g_free (mag);
  msgs_free (m);
  harness_free (h, bus);
  g_free (caps);
  g_free (x);
}

GST_START_TEST (test_unit_scenarios)
{
  unit_scenario ("S16LE");
  unit_scenario ("S32LE");
  unit_scenario ("F32LE");
  unit_scenario ("F64LE");
}

GST_END_TEST;

/* ---- properties ------------------------------------------------------------ */

/* spectrum's properties, types, ranges and defaults; and only those, plus
 * device-index and device-name */
GST_START_TEST (test_property_set)
{
  GstElement *g = gst_element_factory_make ("gpuspectrum", NULL);
  GstElement *s = gst_element_factory_make ("spectrum", NULL);
  guint ng, ns, i;
  GParamSpec **pg, **ps;

  fail_unless (g != NULL);
  fail_unless (have_spectrum () && s != NULL);
  pg = g_object_class_list_properties (G_OBJECT_GET_CLASS (g), &ng);
  ps = g_object_class_list_properties (G_OBJECT_GET_CLASS (s), &ns);
  fail_unless_equals_int (ng, ns + 2);
  for (i = 0; i < ns; i++) {
    GParamSpec *a = ps[i];
    GParamSpec *b = g_object_class_find_property (G_OBJECT_GET_CLASS (g),
        a->name);
    GValue va = G_VALUE_INIT, vb = G_VALUE_INIT;

    fail_unless (b != NULL, "no property %s", a->name);
    fail_unless_equals_int (G_PARAM_SPEC_VALUE_TYPE (b),
        G_PARAM_SPEC_VALUE_TYPE (a));
    if (G_IS_PARAM_SPEC_UINT (a)) {
      fail_unless_equals_int (G_PARAM_SPEC_UINT (b)->minimum,
          G_PARAM_SPEC_UINT (a)->minimum);
      fail_unless_equals_int (G_PARAM_SPEC_UINT (b)->maximum,
          G_PARAM_SPEC_UINT (a)->maximum);
    } else if (G_IS_PARAM_SPEC_INT (a)) {
      fail_unless_equals_int (G_PARAM_SPEC_INT (b)->minimum,
          G_PARAM_SPEC_INT (a)->minimum);
      fail_unless_equals_int (G_PARAM_SPEC_INT (b)->maximum,
          G_PARAM_SPEC_INT (a)->maximum);
    } else if (G_IS_PARAM_SPEC_UINT64 (a)) {
      fail_unless_equals_uint64 (G_PARAM_SPEC_UINT64 (b)->minimum,
          G_PARAM_SPEC_UINT64 (a)->minimum);
      fail_unless_equals_uint64 (G_PARAM_SPEC_UINT64 (b)->maximum,
          G_PARAM_SPEC_UINT64 (a)->maximum);
    }
    if (a->flags & G_PARAM_READABLE) {
      g_value_init (&va, G_PARAM_SPEC_VALUE_TYPE (a));
      g_value_init (&vb, G_PARAM_SPEC_VALUE_TYPE (a));
      g_object_get_property (G_OBJECT (s), a->name, &va);
      g_object_get_property (G_OBJECT (g), a->name, &vb);
      if (strcmp (a->name, "name") != 0)
        fail_unless (gst_value_compare (&va, &vb) == GST_VALUE_EQUAL,
            "default of %s differs", a->name);
      g_value_unset (&va);
      g_value_unset (&vb);
    }
  }
  fail_unless (g_object_class_find_property (G_OBJECT_GET_CLASS (g),
          "device-index") != NULL);
  fail_unless (g_object_class_find_property (G_OBJECT_GET_CLASS (g),
          "device-name") != NULL);
  g_free (pg);
  g_free (ps);
  gst_object_unref (g);
  gst_object_unref (s);
}

GST_END_TEST;

typedef struct
{
  GstElement *el;
  guint bands;
} SetBands;

static void
set_bands (gpointer data)
{
  SetBands *sb = data;

  g_object_set (sb->el, "bands", sb->bands, NULL);
}

/* a C app's g_object_set (spec, "bands", 128, "threshold", -80, ...) sets
 * everything; bands beyond the GPU's FFT sizes are refused with a warning
 * naming the range */
GST_START_TEST (test_bands_range)
{
  GstElement *g = gst_element_factory_make ("gpuspectrum", NULL);
  SetBands sb = { g, 40000 };
  gchar *w;
  guint bands;
  gint threshold;
  guint64 interval;

  g_object_set (g, "bands", 128, "threshold", -80, "interval",
      (guint64) GST_SECOND / 20, "post-messages", TRUE, "message-phase",
      TRUE, NULL);
  g_object_get (g, "bands", &bands, "threshold", &threshold, "interval",
      &interval, NULL);
  fail_unless_equals_int (bands, 128);
  fail_unless_equals_int (threshold, -80);
  fail_unless_equals_uint64 (interval, GST_SECOND / 20);
  w = capture_warnings (g, set_bands, &sb);
  fail_unless (strstr (w, "32769") != NULL, "no warning naming the range: "
      "'%s'", w);
  g_free (w);
  g_object_get (g, "bands", &bands, NULL);
  fail_unless_equals_int (bands, 128);
  sb.bands = 32769;
  set_bands (&sb);
  g_object_get (g, "bands", &bands, NULL);
  fail_unless_equals_int (bands, 32769);
  /* spectrum takes any interval from 1 ns; the GPU analyser raises one
   * below 1 ms to 1 ms (a debug-log warning: no g_warning, which an
   * application run with fatal warnings would die of) */
  g_object_set (g, "interval", (guint64) 500000, NULL);
  g_object_get (g, "interval", &interval, NULL);
  fail_unless_equals_uint64 (interval, GST_MSECOND);
  gst_object_unref (g);
}

GST_END_TEST;

/* One element (factory) on x: bands, threshold, multi-channel as given,
 * 100 ms intervals, 441-sample buffers; its messages after EOS. */
static Msgs *
run_levels (const gchar * factory, const Fmt * f, const gdouble * x,
    gsize n, guint bands, gint threshold, gboolean multi, guint64 interval)
{
  gchar *caps = fmt_caps_string (f);
  gchar *b = g_strdup_printf ("%u", bands);
  gchar *t = g_strdup_printf ("%d", threshold);
  gchar *iv = g_strdup_printf ("%" G_GUINT64_FORMAT, interval);
  GstBus *bus;
  GstHarness *h = harness_new_element (factory, &bus, caps, "bands", b,
      "multi-channel", multi ? "true" : "false", "interval", iv,
      "threshold", t, NULL);
  Msgs *m;

  push_samples (h, f, x, n, 441, 0, FALSE);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  m = msgs_collect (bus, gst_util_uint64_scale (n, GST_SECOND,
          (guint64) f->rate * interval) - 1, 60);
  g_free (iv);
  fail_unless_equals_int (m->errors->len, 0);
  harness_free (h, bus);
  g_free (caps);
  g_free (b);
  g_free (t);
  return m;
}

/* Every value of every message where either element reads above
 * threshold + 1 dB within tol dB, the same count; returns how many values
 * were compared. */
static guint
compare_all_values (Msgs * ref, Msgs * got, gint threshold, gdouble tol,
    const gchar * what)
{
  gdouble worst = 0;
  guint i, n_values = 0;

  fail_unless (ref->spectrum->len > 0, "%s: spectrum posted nothing", what);
  fail_unless_equals_int (got->spectrum->len, ref->spectrum->len);
  for (i = 0; i < ref->spectrum->len; i++) {
    guint ra, ba, rb, bb, k;
    gfloat *ma = magnitudes (g_ptr_array_index (ref->spectrum, i), &ra, &ba);
    gfloat *mb = magnitudes (g_ptr_array_index (got->spectrum, i), &rb, &bb);

    fail_unless_equals_int (rb, ra);
    fail_unless_equals_int (bb, ba);
    fail_unless_equals_uint64 (msg_u64 (g_ptr_array_index (got->spectrum, i),
            "timestamp"), msg_u64 (g_ptr_array_index (ref->spectrum, i),
            "timestamp"));
    for (k = 0; k < ra * ba; k++) {
      if (ma[k] <= threshold + 1 && mb[k] <= threshold + 1)
        continue;
      n_values++;
      worst = MAX (worst, fabs (ma[k] - mb[k]));
      fail_unless (fabs (ma[k] - mb[k]) <= tol, "%s: message %u value %u: "
          "spectrum %.4f dB, gpuspectrum %.4f dB", what, i, k, ma[k], mb[k]);
    }
    g_free (ma);
    g_free (mb);
  }
  g_print ("%-44s %3u messages, %6u values, worst %.5f dB\n", what,
      ref->spectrum->len, n_values, worst);
  return n_values;
}

/* Pink noise (power falling 3 dB an octave) of about sigma: white noise
 * through Paul Kellet's filter (within 0.05 dB of 1/f above 10 Hz at
 * 44.1 kHz). */
static void
gen_pink (gdouble * x, gsize n, gdouble sigma, guint seed)
{
  gdouble b[7] = { 0 };
  gsize i;

  gen_noise (x, n, 1, 1.0, seed);
  for (i = 0; i < n; i++) {
    gdouble w = x[i];

    b[0] = 0.99886 * b[0] + w * 0.0555179;
    b[1] = 0.99332 * b[1] + w * 0.0750759;
    b[2] = 0.96900 * b[2] + w * 0.1538520;
    b[3] = 0.86650 * b[3] + w * 0.3104856;
    b[4] = 0.55000 * b[4] + w * 0.5329522;
    b[5] = -0.7616 * b[5] - w * 0.0168980;
    x[i] = sigma * 0.2 * (b[0] + b[1] + b[2] + b[3] + b[4] + b[5] + b[6] +
        w * 0.5362);
    b[6] = w * 0.115926;
  }
}

/* Signals whose level varies from frame to frame (noise, a tone between
 * bins, a tone with noise, bursts in silence, pink noise): spectrum averages each
 * frame's floored dB, and so does gpuspectrum, so every value agrees, at
 * every threshold (the mean of floored dB depends on it). nfft divides the
 * interval (4410 samples), so that spectrum's frames, which restart at
 * each interval, are gpuspectrum's. */
GST_START_TEST (test_side_by_side_varying_levels)
{
  static const guint bands[] = { 50, 64, 316 }; /* nfft 98, 126, 630 */
  static const gint thresholds[] = { -40, -60, -80 };
  static const gchar *formats[] = { "S16LE", "F32LE" };
  gsize n = 10 * INTERVAL_SAMPLES, t;
  guint fi, bi, ti, sig, ch;

  if (!have_spectrum ())
    return;
  for (sig = 0; sig < 5; sig++) {
    for (ch = 1; ch <= 2; ch++) {
      gdouble *x = g_new0 (gdouble, n * ch);
      const gchar *names[] = { "noise", "tone between bins", "tone + noise",
        "20 ms bursts", "pink noise"
      };

      if (sig == 0 || sig == 2)
        gen_noise (x, n * ch, 1, sig == 0 ? 0.2 : 0.01, 31 + ch);
      if (sig == 1 || sig == 2)
        gen_tone (x, n, ch, 0.5, 1234.5, RATE, 0.3);
      if (sig == 4)
        gen_pink (x, n * ch, 0.1, 59);
      if (sig == 3) {
        gen_noise (x, n * ch, 1, 0.3, 37);
        for (t = 0; t < n; t++) /* 20 ms on in every 100 ms */
          if ((t % INTERVAL_SAMPLES) >= 882)
            memset (x + t * ch, 0, ch * sizeof (gdouble));
      }
      for (fi = 0; fi < G_N_ELEMENTS (formats); fi++) {
        Fmt f = { formats[fi], RATE, (gint) ch, FALSE };
        gdouble *q = g_memdup2 (x, n * ch * sizeof (gdouble));
        guint compared = 0;

        fmt_quantize (&f, q, n * ch);
        for (bi = 0; bi < G_N_ELEMENTS (bands); bi++) {
          for (ti = 0; ti < G_N_ELEMENTS (thresholds); ti++) {
            gboolean multi = ch == 2 && (bi + ti) % 2 == 0;
            gchar *what = g_strdup_printf ("%s, %s %u ch%s, bands %u, %d dB",
                names[sig], formats[fi], ch, multi ? " multi" : "",
                bands[bi], thresholds[ti]);
            Msgs *ref = run_levels ("spectrum", &f, q, n, bands[bi],
                thresholds[ti], multi, 100 * GST_MSECOND);
            Msgs *got = run_levels ("gpuspectrum", &f, q, n, bands[bi],
                thresholds[ti], multi, 100 * GST_MSECOND);

            compared += compare_all_values (ref, got, thresholds[ti], 0.01,
                what);
            msgs_free (ref);
            msgs_free (got);
            g_free (what);
          }
        }
        /* (a comparison of floors only would prove nothing) */
        fail_unless (compared > 100, "%s: only %u values above the "
            "thresholds", names[sig], compared);
        g_free (q);
      }
      g_free (x);
    }
  }
}

GST_END_TEST;

/* Frames that restart at each interval, nfft not dividing it (spectrum
 * leaves the samples after the last whole frame unanalysed, and so does
 * gpuspectrum), or intervals shorter than nfft (one frame, the nfft
 * samples that end with the interval: zeros before the stream's start):
 * a chirp, noise and a tone with noise, intervals of 10 ms (441 samples),
 * 33 ms (1455.3: spectrum's own steps, 1455 or 1456 samples) and 1 s,
 * bands 8 to 1025 (nfft 14 to 2048), the stream ending inside an interval
 * (spectrum posts nothing for it, nor does gpuspectrum); every value and
 * the counts and timestamps as spectrum's. */
GST_START_TEST (test_side_by_side_restarting_frames)
{
  static const guint bands[] = { 8, 20, 128, 129, 200, 256, 1025 };
  static const guint64 intervals[] = { 10 * GST_MSECOND, 33 * GST_MSECOND,
    GST_SECOND
  };
  static const gchar *formats[] = { "S16LE", "S32LE", "F32LE", "F64LE" };
  gsize n = 3 * RATE + 777;
  guint sig, bi, ii;

  if (!have_spectrum ())
    return;
  for (sig = 0; sig < 3; sig++) {
    const gchar *names[] = { "chirp", "noise", "tone + noise" };
    gdouble *x = g_new0 (gdouble, n * 2);
    gsize t;
    guint compared = 0;

    if (sig == 0) {
      /* 100 Hz -> 15 kHz over the stream, both channels */
      for (t = 0; t < n; t++) {
        gdouble tt = (gdouble) t / RATE, T = (gdouble) n / RATE;
        gdouble ph = 2 * G_PI * (100 * tt + (15000 - 100) * tt * tt / (2 * T));

        x[2 * t] = 0.5 * sin (ph);
        x[2 * t + 1] = 0.25 * cos (ph);
      }
    } else {
      gen_noise (x, n * 2, 1, sig == 1 ? 0.2 : 0.02, 41);
      if (sig == 2)
        gen_tone (x, n, 2, 0.5, 3210.7, RATE, 0.1);
    }
    for (bi = 0; bi < G_N_ELEMENTS (bands); bi++) {
      for (ii = 0; ii < G_N_ELEMENTS (intervals); ii++) {
        const gchar *format = formats[(bi + ii + sig) % 4];
        gboolean multi = (bi + ii) % 2 == 1;
        Fmt f = { format, RATE, 2, FALSE };
        gdouble *q = g_memdup2 (x, n * 2 * sizeof (gdouble));
        gchar *what;
        Msgs *ref, *got;

        fmt_quantize (&f, q, n * 2);
        what = g_strdup_printf ("%s, %s%s, bands %u, %" G_GUINT64_FORMAT
            " ms", names[sig], format, multi ? " multi" : "", bands[bi],
            intervals[ii] / GST_MSECOND);
        ref = run_levels ("spectrum", &f, q, n, bands[bi], -80, multi,
            intervals[ii]);
        got = run_levels ("gpuspectrum", &f, q, n, bands[bi], -80, multi,
            intervals[ii]);
        compared += compare_all_values (ref, got, -80, 0.01, what);
        msgs_free (ref);
        msgs_free (got);
        g_free (what);
        g_free (q);
      }
    }
    fail_unless (compared > 1000, "%s: only %u values compared", names[sig],
        compared);
    g_free (x);
  }
}

GST_END_TEST;

/* A live stream whose plan takes 2 s to make (GPUFFT_DEBUG_SLOW_PLAN_MS),
 * the same count and values as spectrum's. host FALSE (no host start):
 * the stream, pushed at once, ends while the plan is still being made: the
 * complete intervals waiting in the store are posted at EOS, as spectrum
 * posted them while they passed, and only the interval EOS cuts short is
 * not. host TRUE (the host start, pushed in real time): every interval is
 * analysed on the CPU as it ends, none stored or dropped. */
static void
live_slow_plan (gboolean host)
{
  Fmt f = { "F32LE", RATE, 1, FALSE };
  gsize n = 5 * INTERVAL_SAMPLES + 882, off;
  gdouble *x = g_new0 (gdouble, n);
  gchar *caps = fmt_caps_string (&f);
  GstBus *bus;
  GstHarness *h;
  Msgs *ref, *got;

  if (!have_spectrum ())
    return;
  gen_noise (x, n, 1, 0.2, 43);
  ref = run_levels ("spectrum", &f, x, n, 64, -80, FALSE, 100 * GST_MSECOND);
  g_setenv ("GPUFFT_DEBUG_SLOW_PLAN_MS", "2000", TRUE);
  g_setenv ("GPUFFT_HOST_START", host ? "auto" : "off", TRUE);
  h = harness_new_element ("gpuspectrum", &bus, NULL, "bands", "64",
      "threshold", "-80", NULL);
  gst_harness_set_live (h, TRUE);
  gst_harness_set_src_caps_str (h, caps);
  if (host) {
    /* 10 ms buffers, in real time */
    for (off = 0; off < n; off += RATE / 100) {
      GstBuffer *buf = fmt_make_buffer (&f, x + off, MIN (RATE / 100, n - off),
          gst_util_uint64_scale_int_round (off, GST_SECOND, RATE));

      fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
      g_usleep (10 * 1000);
    }
    /* (all 5 before EOS, while the plan is still being made) */
    got = msgs_collect (bus, 5, 1.0);
    fail_unless_equals_int (got->spectrum->len, 5);
    fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
    msgs_append (got, msgs_collect (bus, 0, 0));
  } else {
    push_samples (h, &f, x, n, 441, 0, FALSE);
    fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
    got = msgs_collect (bus, 5, 60);
  }
  fail_unless_equals_int (got->errors->len, 0);
  fail_unless_equals_int (ref->spectrum->len, 5);
  compare_all_values (ref, got, -80, 0.01, host ? "live, host start" :
      "live backlog at EOS");
  msgs_free (ref);
  msgs_free (got);
  harness_free (h, bus);
  /* (after the element: its plan job reads them) */
  g_unsetenv ("GPUFFT_DEBUG_SLOW_PLAN_MS");
  g_unsetenv ("GPUFFT_HOST_START");
  g_free (caps);
  g_free (x);
}

GST_START_TEST (test_live_backlog_at_eos)
{
  live_slow_plan (FALSE);
}

GST_END_TEST;

GST_START_TEST (test_live_host_start)
{
  live_slow_plan (TRUE);
}

GST_END_TEST;

typedef enum
{
  CUT_DISCONT,
  CUT_SEGMENT,
  CUT_GAP
} CutKind;

static Msgs *run_parts (const gchar * factory, const Fmt * f,
    const gdouble * x, gsize n, const gsize * cuts, guint n_cuts,
    GstClockTime jump, guint bands, gboolean multi, guint64 interval,
    gboolean phase, CutKind kind);
static Msgs *run_discont (const gchar * factory, const Fmt * f,
    const gdouble * x, gsize n, const gsize * cuts, guint n_cuts,
    GstClockTime jump, guint bands, gboolean multi, guint64 interval,
    gboolean phase);

/* Phases (spectrum: the mean of its frames' angles) where they are well
 * conditioned: bins within 20 dB of their row's loudest and 30 dB above
 * the threshold (-80), whose magnitude both elements read alike; within
 * 1e-3 rad. Returns how many were compared. */
static guint
compare_phases (Msgs * ref, Msgs * got, const gchar * what)
{
  gdouble worst = 0;
  guint i, n_values = 0;

  fail_unless_equals_int (got->spectrum->len, ref->spectrum->len);
  for (i = 0; i < ref->spectrum->len; i++) {
    const GstStructure *a = g_ptr_array_index (ref->spectrum, i);
    const GstStructure *b = g_ptr_array_index (got->spectrum, i);
    guint ra, ba, rb, bb, r, k;
    gfloat *ma = magnitudes (a, &ra, &ba);
    gfloat *pa = float_rows (a, "phase", &ra, &ba);
    gfloat *pb = float_rows (b, "phase", &rb, &bb);

    fail_unless_equals_int (rb, ra);
    fail_unless_equals_int (bb, ba);
    for (r = 0; r < ra; r++) {
      gfloat loudest = row_loudest (ma + (gsize) r * ba, ba);

      for (k = 0; k < ba; k++) {
        gsize j = (gsize) r * ba + k;

        if (ma[j] < loudest - 20 || ma[j] < -50)
          continue;
        n_values++;
        worst = MAX (worst, fabs (pa[j] - pb[j]));
        fail_unless (fabs (pa[j] - pb[j]) <= 1e-3, "%s: message %u row %u "
            "band %u (%.1f dB): phase %.5f with spectrum, %.5f with "
            "gpuspectrum", what, i, r, k, ma[j], pa[j], pb[j]);
      }
    }
    g_free (ma);
    g_free (pa);
    g_free (pb);
  }
  g_print ("%-44s %3u messages, %6u phases, worst %.2g rad\n", what,
      ref->spectrum->len, n_values, worst);
  return n_values;
}

/* A new SEGMENT event (non-flushing, e.g. a playlist's next track) or a
 * GAP event inside an interval, the buffers after it without DISCONT:
 * spectrum goes on over it (frames, sums and interval count), and so does
 * gpuspectrum: every value, count and timestamp as spectrum's. */
GST_START_TEST (test_side_by_side_segment_gap)
{
  static const gsize cuts[] = { 7000, 20000 };
  gsize n = RATE / 2 + 333;
  gdouble *x = g_new0 (gdouble, n * 2);
  guint kind, compared = 0;

  if (!have_spectrum ())
    return;
  gen_noise (x, n * 2, 1, 0.05, 67);
  gen_tone (x, n, 2, 0.5, 987.6, RATE, 0.4);
  for (kind = CUT_SEGMENT; kind <= CUT_GAP; kind++) {
    Fmt f = { "F32LE", RATE, 2, FALSE };
    gchar *what = g_strdup_printf ("%s inside intervals",
        kind == CUT_SEGMENT ? "new segments" : "gaps");
    Msgs *ref = run_parts ("spectrum", &f, x, n, cuts, 2, 200 * GST_MSECOND,
        128, FALSE, 100 * GST_MSECOND, FALSE, kind);
    Msgs *got = run_parts ("gpuspectrum", &f, x, n, cuts, 2,
        200 * GST_MSECOND, 128, FALSE, 100 * GST_MSECOND, FALSE, kind);
    guint i;

    compared += compare_all_values (ref, got, -80, 0.01, what);
    for (i = 0; i < ref->spectrum->len; i++)
      fail_unless_equals_uint64 (msg_u64 (g_ptr_array_index (got->spectrum,
                  i), "running-time"), msg_u64 (g_ptr_array_index
              (ref->spectrum, i), "running-time"));
    msgs_free (ref);
    msgs_free (got);
    g_free (what);
  }
  fail_unless (compared > 500, "only %u values compared", compared);
  g_free (x);
}

GST_END_TEST;

/* message-phase: spectrum's phase is the mean of its frames' angles, and
 * so is gpuspectrum's (every kernel path: bands 8 and 129 (mixed radix),
 * 1025 and, with GPUFFT_KERNEL_PATH, the GPU kernels on lavapipe); a
 * chirp, and a tone between bins in noise, whose angles change from frame
 * to frame; mono, downmixed and multi-channel, S16 and F32. */
GST_START_TEST (test_side_by_side_phase)
{
  static const guint bands[] = { 8, 129, 1025 };
  static const guint64 intervals[] = { 10 * GST_MSECOND, 100 * GST_MSECOND };
  gsize n = RATE / 2 + 111;
  guint sig, bi, ii, compared = 0;

  if (!have_spectrum ())
    return;
  for (sig = 0; sig < 2; sig++) {
    gdouble *x = g_new0 (gdouble, n * 2);
    gsize t;

    if (sig == 0) {
      for (t = 0; t < n; t++) {
        gdouble tt = (gdouble) t / RATE;
        gdouble ph = 2 * G_PI * (200 * tt + 4000 * tt * tt);

        x[2 * t] = 0.5 * sin (ph);
        x[2 * t + 1] = 0.3 * cos (1.3 * ph);
      }
    } else {
      gen_noise (x, n * 2, 1, 0.01, 53);
      gen_tone (x, n, 2, 0.5, 1234.56, RATE, 0.7);
    }
    for (bi = 0; bi < G_N_ELEMENTS (bands); bi++) {
      for (ii = 0; ii < G_N_ELEMENTS (intervals); ii++) {
        gboolean multi = (bi + ii + sig) % 2 == 1;
        Fmt f = { (bi + sig) % 2 ? "S16LE" : "F32LE", RATE, 2, FALSE };
        gdouble *q = g_memdup2 (x, n * 2 * sizeof (gdouble));
        gchar *what = g_strdup_printf ("phase: %s, %s%s, bands %u, %"
            G_GUINT64_FORMAT " ms", sig ? "tone + noise" : "chirp",
            f.format, multi ? " multi" : "", bands[bi],
            intervals[ii] / GST_MSECOND);
        Msgs *ref, *got;

        fmt_quantize (&f, q, n * 2);
        ref = run_discont ("spectrum", &f, q, n, NULL, 0, 0, bands[bi], multi,
            intervals[ii], TRUE);
        got = run_discont ("gpuspectrum", &f, q, n, NULL, 0, 0, bands[bi],
            multi, intervals[ii], TRUE);
        compare_all_values (ref, got, -80, 0.01, what);
        compared += compare_phases (ref, got, what);
        msgs_free (ref);
        msgs_free (got);
        g_free (what);
        g_free (q);
      }
    }
    g_free (x);
  }
  fail_unless (compared > 1000, "only %u phases compared", compared);
}

GST_END_TEST;

/* One element on x cut into parts at cuts[] (sample positions): each part
 * from the second begins with a DISCONT buffer, its PTS `jump` later than
 * the samples before put it (0: continuous timestamps); 441-sample
 * buffers, then EOS; its messages. */
static Msgs *
run_discont (const gchar * factory, const Fmt * f, const gdouble * x, gsize n,
    const gsize * cuts, guint n_cuts, GstClockTime jump, guint bands,
    gboolean multi, guint64 interval, gboolean phase)
{
  return run_parts (factory, f, x, n, cuts, n_cuts, jump, bands, multi,
      interval, phase, CUT_DISCONT);
}

/* The same with each part from the second after a new SEGMENT event (its
 * start and time the part's first PTS, its base the running time that
 * continues the last part's) or a GAP event of `jump`, no DISCONT. */
static Msgs *
run_parts (const gchar * factory, const Fmt * f, const gdouble * x, gsize n,
    const gsize * cuts, guint n_cuts, GstClockTime jump, guint bands,
    gboolean multi, guint64 interval, gboolean phase, CutKind kind)
{
  gchar *caps = fmt_caps_string (f);
  gchar *b = g_strdup_printf ("%u", bands);
  gchar *iv = g_strdup_printf ("%" G_GUINT64_FORMAT, interval);
  GstBus *bus;
  GstHarness *h = harness_new_element (factory, &bus, caps, "bands", b,
      "multi-channel", multi ? "true" : "false", "interval", iv,
      "threshold", "-80", "message-phase", phase ? "true" : "false", NULL);
  gsize from = 0;
  guint i;
  Msgs *m;

  for (i = 0; i <= n_cuts; i++) {
    gsize to = i < n_cuts ? cuts[i] : n;
    GstClockTime pts = gst_util_uint64_scale_int_round (from, GST_SECOND,
        f->rate) + i * jump;

    if (i > 0 && kind == CUT_SEGMENT) {
      GstSegment seg;

      gst_segment_init (&seg, GST_FORMAT_TIME);
      seg.start = seg.time = pts;
      seg.base = pts - i * jump;
      fail_unless (gst_harness_push_event (h, gst_event_new_segment (&seg)));
    } else if (i > 0 && kind == CUT_GAP) {
      fail_unless (gst_harness_push_event (h, gst_event_new_gap (pts - jump,
                  jump)));
    }
    push_samples (h, f, x + from * f->channels, to - from, 441, pts, i > 0
        && kind == CUT_DISCONT);
    from = to;
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  /* (every message is posted before EOS goes on) */
  m = msgs_collect (bus, 0, 0);
  fail_unless_equals_int (m->errors->len, 0);
  harness_free (h, bus);
  g_free (caps);
  g_free (b);
  g_free (iv);
  return m;
}

/* DISCONT inside an interval: spectrum posts nothing for the interval it
 * cuts, adds that interval's sums of dB into the next message (divided by
 * the next interval's frame count), starts its intervals again at the
 * DISCONT (the first as long as the one cut), times the next message with
 * the DISCONT buffer's PTS, and its frames go on over the samples before
 * (an interval shorter than nfft analyses them); a timestamp jump without
 * the flag changes nothing. gpuspectrum does the same: every value, the
 * counts and the timestamps as spectrum's. Cuts inside a frame, between
 * frames, at an interval's start, two in one interval, one in the first
 * interval; intervals of 10 ms (shorter than the frame of 1025 bands),
 * 33 ms (spectrum's steps: some intervals a sample longer) and 100 ms. */
GST_START_TEST (test_side_by_side_discont)
{
  static const struct
  {
    guint bands;
    guint64 interval;
    gsize cuts[3];
    guint n_cuts;
    GstClockTime jump;
  } cases[] = {
    {128, 100 * GST_MSECOND, {10000}, 1, 0},
    {128, 100 * GST_MSECOND, {10000, 10300}, 2, GST_SECOND},
    {128, 100 * GST_MSECOND, {8820, 30001}, 2, 250 * GST_MSECOND},
    {129, 33 * GST_MSECOND, {1000, 7777, 7800}, 3, 0},
    {200, 33 * GST_MSECOND, {8000, 8000 + 1456 + 1455 + 1455 + 700}, 2,
        3 * GST_MSECOND},
    {1025, 10 * GST_MSECOND, {3000, 3100}, 2, 0},
    {1025, 10 * GST_MSECOND, {4410 + 300, 20000}, 2, GST_SECOND},
    {20, 10 * GST_MSECOND, {500, 777, 10000}, 3, 0},
  };
  gsize n = RATE + 333;
  gdouble *x = g_new0 (gdouble, n * 2);
  guint i, compared = 0;

  if (!have_spectrum ())
    return;
  gen_noise (x, n * 2, 1, 0.05, 47);
  gen_tone (x, n, 2, 0.5, 2345.6, RATE, 0.2);
  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    const gchar *format = i % 2 ? "S16LE" : "F32LE";
    gboolean multi = i % 3 == 1;
    Fmt f = { format, RATE, 2, FALSE };
    gdouble *q = g_memdup2 (x, n * 2 * sizeof (gdouble));
    gchar *what = g_strdup_printf ("DISCONT x%u, %s%s, bands %u, %"
        G_GUINT64_FORMAT " ms", cases[i].n_cuts, format, multi ? " multi" :
        "", cases[i].bands, cases[i].interval / GST_MSECOND);
    Msgs *ref, *got;

    fmt_quantize (&f, q, n * 2);
    ref = run_discont ("spectrum", &f, q, n, cases[i].cuts, cases[i].n_cuts,
        cases[i].jump, cases[i].bands, multi, cases[i].interval, i % 2);
    got = run_discont ("gpuspectrum", &f, q, n, cases[i].cuts,
        cases[i].n_cuts, cases[i].jump, cases[i].bands, multi,
        cases[i].interval, i % 2);
    compared += compare_all_values (ref, got, -80, 0.01, what);
    if (i % 2)
      compare_phases (ref, got, what);
    msgs_free (ref);
    msgs_free (got);
    g_free (what);
    g_free (q);
  }
  fail_unless (compared > 1000, "only %u values compared", compared);
  g_free (x);
}

GST_END_TEST;

/* A DISCONT after many frames of an interval, silence throughout (every
 * frame floored at the threshold, -80 dB in run_parts): spectrum adds the
 * cut interval's sums of dB to the next message's and divides them by that
 * message's frame count, so the message after the DISCONT reads below the
 * threshold, threshold * (1 + cut frames / its frames); gpuspectrum posts
 * the same value, and every other message reads the threshold. */
GST_START_TEST (test_discont_carry_below_threshold)
{
  const gsize n = RATE / 2, cut = RATE / 10 + RATE / 20;
  gdouble *x = g_new0 (gdouble, n);
  Fmt f = { "F32LE", RATE, 1, FALSE };
  Msgs *ref, *got;
  guint i, k, below = 0;

  if (!have_spectrum ())
    return;
  ref = run_discont ("spectrum", &f, x, n, &cut, 1, 0, 129, FALSE,
      100 * GST_MSECOND, FALSE);
  got = run_discont ("gpuspectrum", &f, x, n, &cut, 1, 0, 129, FALSE,
      100 * GST_MSECOND, FALSE);
  fail_unless (ref->spectrum->len > 1);
  fail_unless_equals_int (got->spectrum->len, ref->spectrum->len);
  for (i = 0; i < ref->spectrum->len; i++) {
    guint ra, ba, rb, bb;
    gfloat *ma = magnitudes (g_ptr_array_index (ref->spectrum, i), &ra, &ba);
    gfloat *mb = magnitudes (g_ptr_array_index (got->spectrum, i), &rb, &bb);

    fail_unless_equals_int (rb * bb, ra * ba);
    for (k = 0; k < ra * ba; k++) {
      fail_unless (fabs (ma[k] - mb[k]) <= 0.01, "message %u value %u: "
          "spectrum %.4f dB, gpuspectrum %.4f dB", i, k, ma[k], mb[k]);
      fail_unless (ma[k] <= -80 + 0.01, "message %u value %u: %.4f dB", i,
          k, ma[k]);
      if (ma[k] < -80 - 1)
        below++;
    }
    g_free (ma);
    g_free (mb);
  }
  /* (the message after the DISCONT: all its 129 values) */
  fail_unless_equals_int (below, 129);
  msgs_free (ref);
  msgs_free (got);
  g_free (x);
}

GST_END_TEST;

/* Three seconds of music made here (chords of decaying harmonic notes, a
 * bass line, noise hits), stereo, in an Ogg Vorbis file written by
 * vorbisenc; returns its path (to be freed and unlinked). */
static gchar *
make_music (void)
{
  const guint rate = 44100, n = 3 * 44100;
  static const gdouble chords[4][3] = { {261.63, 329.63, 392.00},
  {220.00, 261.63, 329.63}, {174.61, 220.00, 261.63},
  {196.00, 246.94, 293.66}
  };
  gfloat *x = g_new0 (gfloat, 2 * n);
  gdouble *hit = g_new0 (gdouble, n);
  gchar *path = g_build_filename (g_get_tmp_dir (), "gpuspectrum-music-"
      "XXXXXX.ogg", NULL);
  GstElement *pipe, *src, *out;
  GstFlowReturn ret;
  GstBuffer *buf;
  GstMessage *msg;
  GError *err = NULL;
  gint fd = g_mkstemp (path);
  gsize t;

  fail_unless (fd >= 0);
  close (fd);
  gen_noise (hit, n, 1, 0.3, 61);
  for (t = 0; t < n; t++) {
    gdouble tt = (gdouble) t / rate, beat = fmod (tt, 0.375);
    guint c = (guint) (tt / 0.75) % 4, i, h;
    gdouble l = 0, r = 0, env = exp (-3.0 * fmod (tt, 0.75));

    for (i = 0; i < 3; i++)
      for (h = 1; h <= 6; h++) {
        gdouble v = env * 0.06 / h * sin (2 * G_PI * chords[c][i] * h * tt +
            i + h);

        l += (i == 2 ? 0.6 : 1.0) * v;
        r += (i == 0 ? 0.6 : 1.0) * v;
      }
    l += 0.2 * sin (2 * G_PI * chords[c][0] / 2 * tt) * exp (-4 * beat);
    r += 0.2 * sin (2 * G_PI * chords[c][0] / 2 * tt) * exp (-4 * beat);
    l += hit[t] * exp (-60 * beat);
    r += hit[t] * exp (-70 * beat);
    x[2 * t] = (gfloat) l;
    x[2 * t + 1] = (gfloat) r;
  }
  pipe = gst_parse_launch ("appsrc name=src format=time caps=audio/x-raw,"
      "format=F32LE,rate=44100,channels=2,layout=interleaved ! audioconvert "
      "! vorbisenc quality=0.4 ! oggmux ! filesink name=out", &err);
  fail_unless (pipe != NULL && err == NULL, "encoder: %s",
      err ? err->message : "");
  src = gst_bin_get_by_name (GST_BIN (pipe), "src");
  out = gst_bin_get_by_name (GST_BIN (pipe), "out");
  g_object_set (out, "location", path, NULL);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  buf = gst_buffer_new_wrapped (x, 2 * n * sizeof (gfloat));
  GST_BUFFER_PTS (buf) = 0;
  GST_BUFFER_DURATION (buf) = 3 * GST_SECOND;
  g_signal_emit_by_name (src, "push-buffer", buf, &ret);
  fail_unless_equals_int (ret, GST_FLOW_OK);
  gst_buffer_unref (buf);
  g_signal_emit_by_name (src, "end-of-stream", &ret);
  gst_object_unref (src);
  gst_object_unref (out);
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipe), 60 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS,
      "encoding the music failed");
  gst_message_unref (msg);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (pipe);
  g_free (hit);
  return path;
}

/* A decoded music file: vorbisdec's output (its timestamps and flags)
 * through a tee into spectrum and gpuspectrum side by side, in one
 * pipeline; bands 20, 128 and 1025, thresholds -60 and -80, 100 ms and
 * 33 ms, downmixed and multi-channel: every value, count and timestamp as
 * spectrum's. */
GST_START_TEST (test_side_by_side_music)
{
  static const struct
  {
    guint bands;
    gint threshold;
    guint64 interval;
    gboolean multi;
  } cases[] = {
    {20, -60, 100 * GST_MSECOND, FALSE},
    {128, -80, 33 * GST_MSECOND, TRUE},
    {1025, -80, 100 * GST_MSECOND, FALSE},
    {256, -60, 33 * GST_MSECOND, TRUE},
  };
  GstElementFactory *enc = gst_element_factory_find ("vorbisenc");
  gchar *path;
  guint i, compared = 0;

  if (!have_spectrum ())
    return;
  fail_unless (enc != NULL, "vorbisenc is missing: install "
      "gstreamer1.0-plugins-base (scripts/setup.sh does)");
  gst_object_unref (enc);
  path = make_music ();
  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    gchar *desc = g_strdup_printf ("filesrc location=\"%s\" ! decodebin ! "
        "tee name=t t. ! queue ! spectrum name=ref bands=%u threshold=%d "
        "interval=%" G_GUINT64_FORMAT " multi-channel=%d ! fakesink t. ! "
        "queue ! gpuspectrum name=got bands=%u threshold=%d interval=%"
        G_GUINT64_FORMAT " multi-channel=%d ! fakesink", path,
        cases[i].bands, cases[i].threshold, cases[i].interval,
        cases[i].multi, cases[i].bands, cases[i].threshold,
        cases[i].interval, cases[i].multi);
    GError *err = NULL;
    GstElement *pipe = gst_parse_launch (desc, &err);
    GstBus *bus;
    Msgs *ref = g_new0 (Msgs, 1), *got = g_new0 (Msgs, 1);
    gchar *what = g_strdup_printf ("music (Vorbis), bands %u, %d dB, %"
        G_GUINT64_FORMAT " ms%s", cases[i].bands, cases[i].threshold,
        cases[i].interval / GST_MSECOND, cases[i].multi ? ", multi" : "");
    GstMessage *msg;
    guint j;

    fail_unless (pipe != NULL && err == NULL, "%s", err ? err->message : "");
    bus = gst_element_get_bus (pipe);
    gst_element_set_state (pipe, GST_STATE_PLAYING);
    /* (every element message is kept with its source's name) */
    ref->spectrum = g_ptr_array_new_with_free_func ((GDestroyNotify)
        gst_structure_free);
    got->spectrum = g_ptr_array_new_with_free_func ((GDestroyNotify)
        gst_structure_free);
    while ((msg = gst_bus_timed_pop (bus, 60 * GST_SECOND))) {
      gboolean done = GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS;

      fail_if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR, "%s: error", what);
      if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ELEMENT
          && gst_structure_has_name (gst_message_get_structure (msg),
              "spectrum"))
        g_ptr_array_add (g_str_equal (GST_OBJECT_NAME (GST_MESSAGE_SRC
                    (msg)), "ref") ? ref->spectrum : got->spectrum,
            gst_structure_copy (gst_message_get_structure (msg)));
      gst_message_unref (msg);
      if (done)
        break;
    }
    fail_unless (ref->spectrum->len >= 25, "%s: %u messages", what,
        ref->spectrum->len);
    compared += compare_all_values (ref, got, cases[i].threshold, 0.01, what);
    for (j = 0; j < ref->spectrum->len; j++)
      fail_unless_equals_uint64 (msg_u64 (g_ptr_array_index (got->spectrum,
                  j), "running-time"), msg_u64 (g_ptr_array_index
              (ref->spectrum, j), "running-time"));
    gst_element_set_state (pipe, GST_STATE_NULL);
    gst_object_unref (bus);
    gst_object_unref (pipe);
    g_ptr_array_unref (ref->spectrum);
    g_ptr_array_unref (got->spectrum);
    g_free (ref);
    g_free (got);
    g_free (what);
    g_free (desc);
  }
  fail_unless (compared > 2000, "only %u values compared", compared);
  g_unlink (path);
  g_free (path);
}

GST_END_TEST;

/* One element, 100 ms intervals (4410 samples), bands 128, noise and a
 * tone in 441-sample buffers from PTS 0, with at sample 10000: an empty
 * DISCONT buffer (edge 0), or a DISCONT buffer after which post-messages
 * is off for the other buffers of the next interval (edge 1); its
 * messages. */
static Msgs *
run_discont_edge (const gchar * factory, const Fmt * f, const gdouble * x,
    gsize n, guint edge)
{
  gchar *caps = fmt_caps_string (f);
  GstBus *bus;
  GstHarness *h = harness_new_element (factory, &bus, caps, "bands", "128",
      "interval", "100000000", "threshold", "-80", NULL);
  const gsize cut = 10000;
  Msgs *m;

  push_samples (h, f, x, cut, 441, 0, FALSE);
  if (edge == 0) {
    GstBuffer *empty = gst_buffer_new ();

    GST_BUFFER_PTS (empty) = gst_util_uint64_scale_int_round (cut,
        GST_SECOND, f->rate) + 50 * GST_MSECOND;
    GST_BUFFER_FLAG_SET (empty, GST_BUFFER_FLAG_DISCONT);
    fail_unless_equals_int (gst_harness_push (h, empty), GST_FLOW_OK);
    push_samples (h, f, x + cut * f->channels, n - cut, 441,
        gst_util_uint64_scale_int_round (cut, GST_SECOND, f->rate), FALSE);
  } else {
    /* (the interval after the cut ends at sample cut + 4410: its buffers
     * are pushed with posting off, the rest with posting on) */
    gsize off = cut + 4410 + 200;

    push_samples (h, f, x + cut * f->channels, 441, 441,
        gst_util_uint64_scale_int_round (cut, GST_SECOND, f->rate), TRUE);
    g_object_set (h->element, "post-messages", FALSE, NULL);
    push_samples (h, f, x + (cut + 441) * f->channels, off - cut - 441, 441,
        gst_util_uint64_scale_int_round (cut + 441, GST_SECOND, f->rate),
        FALSE);
    g_object_set (h->element, "post-messages", TRUE, NULL);
    push_samples (h, f, x + off * f->channels, n - off, 441,
        gst_util_uint64_scale_int_round (off, GST_SECOND, f->rate), FALSE);
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  m = msgs_collect (bus, 0, 0);
  fail_unless_equals_int (m->errors->len, 0);
  harness_free (h, bus);
  g_free (caps);
  return m;
}

/* A DISCONT on a buffer without samples cuts as spectrum's does (it
 * flushes on any DISCONT buffer); the sums of a cut go to the interval
 * right after it and to no other, posted or not (posting off over that
 * interval: the next message carries nothing, as spectrum's). */
GST_START_TEST (test_discont_edges)
{
  gsize n = RATE + 123;
  gdouble *x = g_new0 (gdouble, n * 2);
  guint edge;

  if (!have_spectrum ())
    return;
  gen_noise (x, n * 2, 1, 0.05, 71);
  gen_tone (x, n, 2, 0.5, 3456.7, RATE, 0.1);
  for (edge = 0; edge < 2; edge++) {
    Fmt f = { "F32LE", RATE, 2, FALSE };
    Msgs *ref = run_discont_edge ("spectrum", &f, x, n, edge);
    Msgs *got = run_discont_edge ("gpuspectrum", &f, x, n, edge);

    compare_all_values (ref, got, -80, 0.01, edge == 0 ? "empty DISCONT "
        "buffer" : "DISCONT, posting off over the next interval");
    msgs_free (ref);
    msgs_free (got);
  }
  g_free (x);
}

GST_END_TEST;

static Suite *
gpuspectrum_suite (void)
{
  Suite *s = suite_create ("gpuspectrum");
  TCase *tc = tcase_create ("gpuspectrum");

  tcase_set_timeout (tc, 600);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_property_set);
  tcase_add_test (tc, test_bands_range);
  tcase_add_test (tc, test_unit_scenarios);
  tcase_add_test (tc, test_side_by_side_bands);
  tcase_add_test (tc, test_side_by_side_formats);
  tcase_add_test (tc, test_side_by_side_varying_levels);
  tcase_add_test (tc, test_side_by_side_restarting_frames);
  tcase_add_test (tc, test_live_backlog_at_eos);
  tcase_add_test (tc, test_live_host_start);
  tcase_add_test (tc, test_side_by_side_discont);
  tcase_add_test (tc, test_discont_carry_below_threshold);
  tcase_add_test (tc, test_side_by_side_phase);
  tcase_add_test (tc, test_side_by_side_segment_gap);
  tcase_add_test (tc, test_discont_edges);
  tcase_add_test (tc, test_side_by_side_music);
  tcase_add_test (tc, test_side_by_side_property_change);
  tcase_add_test (tc, test_multi_channel_change);
  tcase_add_test (tc, test_side_by_side_rate_change);
  tcase_add_test (tc, test_sync_handler_changes_bands);
  return s;
}

GST_CHECK_MAIN (gpuspectrum);
