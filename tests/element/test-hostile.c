/* What a hostile-input campaign found, kept fixed: non-interleaved audio of
 * more than 256 channels, empty buffers of every kind, timestamps near the
 * end of the clock, the channel range in the caps. (G_DEBUG=fatal-criticals
 * in the test environment: any CRITICAL fails.) */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <math.h>
#include <string.h>

#include "gpufft-test-common.h"

#define RATE 48000
#define CHUNK 480

/* Planar buffers of many channels pass through untouched and stay
 * writable downstream; the analysis runs (1.22's gst_audio_buffer_map()
 * failed on these and left the memory locked). */
static void
run_planar (guint channels)
{
  Fmt f = { "F32LE", RATE, (gint) channels, TRUE };
  gchar *caps = fmt_caps_string (&f);
  GstBus *bus;
  GstHarness *h = harness_new (&bus, caps, "fft-size", "256", "interval",
      "10000000", NULL);
  gdouble *x = g_new0 (gdouble, (gsize) CHUNK * channels);
  Msgs *m;
  guint b, c;

  for (c = 0; c < channels; c++)
    gen_tone (x + c, CHUNK, channels, 0.5, 1000.0 + c, RATE, 0.0);
  for (b = 0; b < 10; b++) {
    GstBuffer *in = fmt_make_buffer (&f, x, CHUNK,
        gst_util_uint64_scale_int (b * CHUNK, GST_SECOND, RATE));
    GstBuffer *out;
    GstMapInfo a, w;

    gst_buffer_ref (in);
    fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
    out = gst_harness_pull (h);
    fail_unless (out == in);
    gst_buffer_unref (in);
    /* downstream owns it alone now: it must map for writing */
    fail_unless (gst_buffer_is_writable (out));
    fail_unless (gst_buffer_map (out, &w, GST_MAP_READWRITE),
        "%u channels: the buffer cannot be mapped for writing", channels);
    gst_buffer_unmap (out, &w);
    /* and it holds what was pushed */
    {
      GstBuffer *ref = fmt_make_buffer (&f, x, CHUNK, 0);

      gst_buffer_map (ref, &a, GST_MAP_READ);
      fail_unless (gst_buffer_memcmp (out, 0, a.data, a.size) == 0);
      gst_buffer_unmap (ref, &a);
      gst_buffer_unref (ref);
    }
    gst_buffer_unref (out);
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  m = msgs_collect (bus, 0, 0);
  fail_unless_equals_int (m->errors->len, 0);
  fail_unless_equals_int (m->warnings->len, 0);
  fail_unless_equals_int (m->spectrum->len, 10);
  msgs_free (m);
  harness_free (h, bus);
  g_free (x);
  g_free (caps);
}

GST_START_TEST (test_planar_257_channels)
{
  run_planar (257);
}

GST_END_TEST;

GST_START_TEST (test_planar_300_channels)
{
  run_planar (300);
}

GST_END_TEST;

GST_START_TEST (test_planar_4096_channels)
{
  run_planar (4096);
}

GST_END_TEST;

typedef enum
{
  EMPTY_PTS_41MS,               /* PTS 41 ms away from the sample count */
  EMPTY_PTS_5S,                 /* 5 s away */
  EMPTY_DISCONT,                /* DISCONT flag */
  EMPTY_NO_PTS,
  EMPTY_PLANAR_NO_META,         /* non-interleaved caps, no GstAudioMeta */
  N_EMPTY
} EmptyKind;

/* The messages of 0.5 s of a tone in 480-sample buffers, with an empty
 * buffer of `kind` after every third buffer (kind < 0: none). */
static GPtrArray *
run_with_empties (gint kind, gboolean planar)
{
  Fmt f = { "F32LE", RATE, 2, planar };
  gchar *caps = fmt_caps_string (&f);
  GstBus *bus;
  GstHarness *h = harness_new (&bus, caps, "fft-size", "1024", "hop-size",
      "256", "multi-channel", "true", NULL);
  const gsize n = RATE / 2;
  gdouble *x = g_new0 (gdouble, n * 2);
  GPtrArray *out = g_ptr_array_new_with_free_func (g_free);
  gsize off;
  guint i = 0;
  Msgs *m;

  gen_tone (x, n, 2, 0.5, 1000.0, RATE, 0.0);
  gen_tone (x + 1, n, 2, 0.25, 3000.0, RATE, 0.0);
  fmt_quantize (&f, x, n * 2);
  for (off = 0; off < n; off += CHUNK, i++) {
    GstClockTime pts = gst_util_uint64_scale_int_round (off, GST_SECOND,
        RATE);

    fail_unless_equals_int (gst_harness_push (h, fmt_make_buffer (&f,
                x + off * 2, CHUNK, pts)), GST_FLOW_OK);
    gst_buffer_unref (gst_harness_pull (h));
    if (kind >= 0 && i % 3 == 1) {
      GstBuffer *e = gst_buffer_new ();
      GstClockTime next = gst_util_uint64_scale_int_round (off + CHUNK,
          GST_SECOND, RATE);

      switch (kind) {
        case EMPTY_PTS_41MS:
          GST_BUFFER_PTS (e) = next + 41 * GST_MSECOND;
          break;
        case EMPTY_PTS_5S:
          GST_BUFFER_PTS (e) = next + 5 * GST_SECOND;
          break;
        case EMPTY_DISCONT:
          GST_BUFFER_PTS (e) = next;
          GST_BUFFER_FLAG_SET (e, GST_BUFFER_FLAG_DISCONT);
          break;
        default:
          break;
      }
      fail_unless_equals_int (gst_harness_push (h, e), GST_FLOW_OK);
      gst_buffer_unref (gst_harness_pull (h));
    }
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  m = msgs_collect (bus, 0, 0);
  fail_unless_equals_int (m->errors->len, 0);
  fail_unless_equals_int (m->warnings->len, 0);
  for (i = 0; i < m->spectrum->len; i++)
    g_ptr_array_add (out, gst_structure_to_string (g_ptr_array_index
            (m->spectrum, i)));
  msgs_free (m);
  harness_free (h, bus);
  g_free (x);
  g_free (caps);
  return out;
}

GST_START_TEST (test_empty_buffers_change_nothing)
{
  GPtrArray *ref = run_with_empties (-1, FALSE);
  GPtrArray *ref_planar = run_with_empties (-1, TRUE);
  gint kind;
  guint i;

  fail_unless (ref->len >= 4);
  for (kind = 0; kind < N_EMPTY; kind++) {
    gboolean planar = kind == EMPTY_PLANAR_NO_META;
    GPtrArray *got = run_with_empties (kind, planar);
    GPtrArray *want = planar ? ref_planar : ref;

    fail_unless_equals_int (got->len, want->len);
    for (i = 0; i < want->len; i++)
      fail_unless_equals_string (g_ptr_array_index (got, i),
          g_ptr_array_index (want, i));
    g_ptr_array_unref (got);
  }
  g_ptr_array_unref (ref);
  g_ptr_array_unref (ref_planar);
}

GST_END_TEST;

/* A stream whose timestamps start 2 ns before the end of the clock's range:
 * the time fields saturate, never wrap. */
GST_START_TEST (test_pts_near_end_of_clock)
{
  Fmt f = { "F32LE", RATE, 1, FALSE };
  gchar *caps = fmt_caps_string (&f);
  GstBus *bus;
  GstHarness *h = harness_new (&bus, caps, "fft-size", "256", NULL);
  const gsize n = RATE / 2;
  gdouble *x = g_new0 (gdouble, n);
  GstClockTime pts0 = G_MAXUINT64 - 2;
  gsize off;
  guint i;
  Msgs *m;

  gen_tone (x, n, 1, 0.5, 1000.0, RATE, 0.0);
  for (off = 0; off < n; off += CHUNK) {
    GstBuffer *b = fmt_make_buffer (&f, x + off, CHUNK, pts0);

    /* (every buffer claims the same, last valid time) */
    fail_unless_equals_int (gst_harness_push (h, b), GST_FLOW_OK);
    gst_buffer_unref (gst_harness_pull (h));
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  m = msgs_collect (bus, 0, 0);
  fail_unless_equals_int (m->errors->len, 0);
  fail_unless (m->spectrum->len >= 1);
  for (i = 0; i < m->spectrum->len; i++) {
    const GstStructure *s = g_ptr_array_index (m->spectrum, i);
    guint64 ts = msg_u64 (s, "timestamp"), dur = msg_u64 (s, "duration");
    guint64 end = msg_u64 (s, "endtime");

    fail_unless (ts >= pts0 && ts <= G_MAXUINT64 - 1, "timestamp %"
        G_GUINT64_FORMAT, ts);
    fail_unless (end >= ts, "endtime %" G_GUINT64_FORMAT " < timestamp %"
        G_GUINT64_FORMAT, end, ts);
    fail_unless (end <= G_MAXUINT64 - 1);
    fail_unless (ts + dur == end && dur <= end);
  }
  msgs_free (m);
  harness_free (h, bus);
  g_free (x);
  g_free (caps);
}

GST_END_TEST;

/* One interval (200 ms, 17 frames of 1024 every 512) of a 1 kHz sine:
 * amplitude `lo` in samples 0..5999, `hi` from 6000 on (frames 10..16
 * reach there), in `format`, on the device or on the host alone (a live
 * stream within a host budget: its host plan, which computes in double).
 * Returns the messages (one spectrum and one dominant-frequency message
 * expected). */
static Msgs *
huge_run (const gchar * format, gdouble lo, gdouble hi, gboolean host)
{
  Fmt f = { format, RATE, 1, FALSE };
  gchar *caps = fmt_caps_string (&f);
  const gsize n = RATE / 5, split = 6000;
  gdouble *x = g_new0 (gdouble, n);
  gchar *old = g_strdup (g_getenv ("GPUFFT_HOST_BUDGET"));
  GstBus *bus;
  GstHarness *h;
  Msgs *m;
  gsize i;

  if (host)
    g_setenv ("GPUFFT_HOST_BUDGET", "1000000", TRUE);
  h = harness_new (&bus, caps, "fft-size", "1024", "interval", "200000000",
      NULL);
  if (host)
    gst_harness_set_live (h, TRUE);
  gen_tone (x, n, 1, 1.0, 1000.0, RATE, 0.0);
  for (i = 0; i < n; i++)
    x[i] *= i < split ? lo : hi;
  push_samples (h, &f, x, n, CHUNK, 0, FALSE);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  m = msgs_collect (bus, 1, 60);
  /* (the path it took: the host alone opens no device) */
  fail_unless_equals_uint64 (stats_u64 (h->element, "host-intervals"),
      host ? 1 : 0);
  harness_free (h, bus);
  if (old)
    g_setenv ("GPUFFT_HOST_BUDGET", old, TRUE);
  else
    g_unsetenv ("GPUFFT_HOST_BUDGET");
  g_free (old);
  g_free (x);
  g_free (caps);
  return m;
}

/* warnings that name the bound */
static guint
bound_warnings (const Msgs * m)
{
  guint i, n = 0;

  for (i = 0; i < m->warnings->len; i++)
    n += strstr (g_ptr_array_index (m->warnings, i), "2^32") != NULL;
  return n;
}

/* Huge but finite samples. Up to the bound, +-2^32, a 1 kHz sine of
 * amplitude up to 4.29e9 reads its level (20 log10 A) at 1000 Hz, every
 * frame averaged. Beyond it (2e19, 2e30, 3.4e38 in F32, 2e19 and 1e300 in
 * F64: the power would overflow the float the analysis computes in,
 * saturating bins: 2e30 read 388.3 dB in every bin, 2e19 put the peak at
 * 984.38 Hz, 3.4e38 and F64's 1e300 were left out as if non-finite) the
 * frames holding such samples are left out and counted in frames-left-out,
 * with one warning naming the bound; the frames before them still give the
 * right peak and level; an interval of nothing else has no peak (0 Hz)
 * and reads the threshold. On the device and on the host alone. */
GST_START_TEST (test_huge_finite_samples)
{
  /* (path: 0 the device, 1 the host alone; whole: beyond the bound from
   * the first sample, else after 6000 samples of amplitude 0.5) */
  static const struct
  {
    guint path;
    const gchar *format;
    gdouble amp;
    gboolean whole;
  } beyond[] = {
    {0, "F32LE", 2e19, FALSE}, {0, "F64LE", 1e300, FALSE},
    {0, "F32LE", 3.4e38, TRUE},
    {1, "F32LE", 2e19, FALSE}, {1, "F32LE", 2e30, FALSE},
    {1, "F32LE", 3.4e38, FALSE}, {1, "F64LE", 1e300, FALSE},
    {1, "F32LE", 2e30, TRUE}, {1, "F64LE", 1e300, TRUE}
  };
  /* (the host alone takes every case: it costs no plan on the device) */
  static const gdouble within[] = { 4.29e9 };
  guint a, k, path;

  for (path = 0; path < 2; path++) {
    gboolean host = path == 1;

    for (a = 0; a < G_N_ELEMENTS (within); a++) {
      Msgs *m = huge_run ("F32LE", within[a], within[a], host);
      const GstStructure *s, *d;
      guint ch, nb;
      gfloat *mag;

      fail_unless_equals_int (m->spectrum->len, 1);
      s = g_ptr_array_index (m->spectrum, 0);
      d = g_ptr_array_index (m->dominant, 0);
      fail_unless_equals_int (msg_uint (s, "frames"), 17);
      fail_if (gst_structure_has_field (s, "frames-left-out"));
      fail_unless_equals_int (bound_warnings (m), 0);
      fail_unless (fabs (msg_double (d, "frequency") - 1000.0) < 1.0,
          "%s amplitude %g: dominant %g Hz", host ? "host" : "device",
          within[a], msg_double (d, "frequency"));
      fail_unless (fabs (msg_double (d, "magnitude") - 20.0 *
              log10 (within[a])) < 0.1, "%s amplitude %g: %g dB",
          host ? "host" : "device", within[a], msg_double (d, "magnitude"));
      fail_unless (isfinite (msg_double (s, "level")));
      mag = msg_floats (s, "magnitude", &ch, &nb, NULL);
      for (k = 0; k < nb; k++)
        fail_unless (isfinite (mag[k]));
      g_free (mag);
      msgs_free (m);
    }

    for (a = 0; a < G_N_ELEMENTS (beyond); a++) {
      gboolean whole = beyond[a].whole;

      if (beyond[a].path != path)
        continue;
      {
        Msgs *m = huge_run (beyond[a].format, whole ? beyond[a].amp : 0.5,
            beyond[a].amp, host);
        const GstStructure *s, *d;
        gdouble freq, db;
        guint ch, nb;
        gfloat *mag;

        fail_unless_equals_int (m->errors->len, 0);
        fail_unless_equals_int (m->spectrum->len, 1);
        s = g_ptr_array_index (m->spectrum, 0);
        d = g_ptr_array_index (m->dominant, 0);
        freq = msg_double (d, "frequency");
        db = msg_double (d, "magnitude");
        GST_INFO ("%s %s %g%s: frames %u, dominant %g Hz %g dB", host ?
            "host" : "device", beyond[a].format, beyond[a].amp,
            whole ? "" : " after 0.5", msg_uint (s, "frames"), freq, db);
        fail_unless_equals_int (bound_warnings (m), 1);
        fail_unless_equals_int (msg_uint (s, "frames"), whole ? 0 : 10);
        fail_unless_equals_int (msg_uint (s, "frames-left-out"),
            whole ? 17 : 7);
        if (whole) {
          fail_unless (freq == 0.0, "%s %s %g: a peak at %g Hz", host ?
              "host" : "device", beyond[a].format, beyond[a].amp, freq);
        } else {
          fail_unless (fabs (freq - 1000.0) < 1.0, "%s %s %g: dominant %g Hz",
              host ? "host" : "device", beyond[a].format, beyond[a].amp,
              freq);
          fail_unless (fabs (db - 20.0 * log10 (0.5)) < 0.1, "%s %s %g: %g "
              "dB", host ? "host" : "device", beyond[a].format,
              beyond[a].amp, db);
        }
        fail_unless (isfinite (msg_double (s, "level")));
        mag = msg_floats (s, "magnitude", &ch, &nb, NULL);
        for (k = 0; k < nb; k++)
          fail_unless (isfinite (mag[k]) && mag[k] < 1.0f, "%s %s %g: bin %u "
              "reads %g", host ? "host" : "device", beyond[a].format,
              beyond[a].amp, k, mag[k]);
        g_free (mag);
        msgs_free (m);
      }
    }
  }
}

GST_END_TEST;

/* frames of the list of spectrum messages: each message's frame-timestamps
 * (as many as its `frames`), every message back to back; returns the
 * frames in all, *most the most in one message */
static guint
frames_in_messages (const Msgs * m, guint * most)
{
  guint i, total = 0;

  *most = 0;
  for (i = 0; i < m->spectrum->len; i++) {
    const GstStructure *s = g_ptr_array_index (m->spectrum, i);
    const GValue *ts = gst_structure_get_value (s, "frame-timestamps");
    guint nf = msg_uint (s, "frames");

    fail_unless (ts != NULL && GST_VALUE_HOLDS_ARRAY (ts));
    fail_unless_equals_int (gst_value_array_get_size (ts), nf);
    if (i > 0) {
      const GstStructure *p = g_ptr_array_index (m->spectrum, i - 1);

      fail_unless_equals_uint64 (msg_u64 (p, "timestamp") + msg_u64 (p,
              "duration"), msg_u64 (s, "timestamp"));
    }
    total += nf;
    *most = MAX (*most, nf);
  }
  return total;
}

/* message-frames carries at most 4096 frames (and 2^18 values) a message:
 * fft-size 16, hop-size 1 and an interval of 1 s would put 48000 frames
 * into one message (10 s: 479 985 frames, 915 MB of process memory). The
 * interval is shortened to the longest whose frames fit, 4096 hops (85.33
 * ms), with one warning that says so and names what is valid; every frame
 * is still in some message, the messages back to back. An interval within
 * the bound (50 ms: 2400 frames) is left as it is, without a warning. */
GST_START_TEST (test_message_frames_bound)
{
  Fmt f = { "F32LE", RATE, 1, FALSE };
  gchar *caps = fmt_caps_string (&f);
  const gsize n = 14400;        /* 0.3 s: 14385 frames */
  gdouble *x = g_new0 (gdouble, n);
  guint pass, i;

  gen_tone (x, n, 1, 0.5, 3000.0, RATE, 0.0);
  for (pass = 0; pass < 2; pass++) {
    gboolean clamped = pass == 0;
    GstBus *bus;
    GstHarness *h = harness_new (&bus, caps, "fft-size", "16", "hop-size",
        "1", "interval", clamped ? "1000000000" : "50000000",
        "message-frames", "true", "message-format", "bytes", NULL);
    guint most, warned = 0;
    Msgs *m;

    push_samples (h, &f, x, n, 4800, 0, FALSE);
    fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
    m = msgs_collect (bus, 0, 0);
    fail_unless_equals_int (m->errors->len, 0);
    for (i = 0; i < m->warnings->len; i++)
      warned += strstr (g_ptr_array_index (m->warnings, i),
          "message-frames") != NULL;
    fail_unless_equals_int (frames_in_messages (m, &most), n - 16 + 1);
    GST_INFO ("interval %s: %u messages, at most %u frames, %u warnings",
        clamped ? "1 s" : "50 ms", m->spectrum->len, most, warned);
    fail_unless (most <= 4096, "a message of %u frames", most);
    if (clamped) {
      const gchar *w = g_ptr_array_index (m->warnings, 0);

      fail_unless_equals_int (warned, 1);
      /* what is valid: the bound and the longest interval */
      fail_unless (strstr (w, "4096") && strstr (w, "85333333"),
          "warning: %s", w);
      fail_unless_equals_int (most, 4096);
      fail_unless_equals_uint64 (msg_u64 (g_ptr_array_index (m->spectrum,
                  0), "duration"), 85333333);
    } else {
      fail_unless_equals_int (warned, 0);
      fail_unless_equals_int (m->spectrum->len, 6);
      fail_unless_equals_uint64 (msg_u64 (g_ptr_array_index (m->spectrum,
                  0), "duration"), 50000000);
    }
    msgs_free (m);
    harness_free (h, bus);
  }
  g_free (x);
  g_free (caps);
}

GST_END_TEST;

/* Buffers outside the segment (after a seek: the segment starts at 0.5 s,
 * stops at 1.0 s; buffers cover 0..1.5 s) all pass through untouched;
 * only what lies in the segment is analysed. */
GST_START_TEST (test_buffers_outside_segment)
{
  Fmt f = { "F32LE", RATE, 1, FALSE };
  gchar *caps = fmt_caps_string (&f);
  GstBus *bus;
  GstHarness *h = harness_new (&bus, caps, "fft-size", "1024", NULL);
  const gsize n = RATE * 3 / 2, chunk = RATE / 10;
  gdouble *x = g_new0 (gdouble, n);
  GstSegment seg;
  gsize off;
  guint i, out = 0;
  Msgs *m;

  gen_tone (x, n, 1, 0.5, 1000.0, RATE, 0.0);
  gst_segment_init (&seg, GST_FORMAT_TIME);
  seg.start = seg.time = GST_SECOND / 2;
  seg.stop = GST_SECOND;
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&seg)));
  for (off = 0; off < n; off += chunk) {
    GstBuffer *in = fmt_make_buffer (&f, x + off, chunk,
        gst_util_uint64_scale_int_round (off, GST_SECOND, RATE));
    GstBuffer *o;

    gst_buffer_ref (in);
    fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
    while ((o = gst_harness_try_pull (h)) != NULL) {
      fail_unless (o == in, "buffer %u changed", out);
      fail_unless_equals_int (gst_buffer_get_size (o), chunk * 4);
      gst_buffer_unref (o);
      out++;
    }
    gst_buffer_unref (in);
  }
  fail_unless_equals_int (out, 15);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  m = msgs_collect (bus, 0, 0);
  fail_unless_equals_int (m->errors->len, 0);
  /* 0.5 s of analysis: intervals 0.5, 0.6, ... 0.9 s */
  fail_unless_equals_int (m->spectrum->len, 5);
  fail_unless_equals_uint64 (msg_u64 (g_ptr_array_index (m->spectrum, 0),
          "timestamp"), GST_SECOND / 2);
  for (i = 0; i < m->spectrum->len; i++) {
    const GstStructure *st = g_ptr_array_index (m->spectrum, i);

    fail_unless (msg_u64 (st, "timestamp") >= GST_SECOND / 2);
    fail_unless (msg_u64 (st, "timestamp") + msg_u64 (st, "duration")
        <= GST_SECOND);
  }
  msgs_free (m);
  harness_free (h, bus);
  g_free (x);
  g_free (caps);
}

GST_END_TEST;

/* A long interval set while streaming, then a short one: the change takes
 * effect at once (the open interval is closed there, as a partial one),
 * not after the hour. */
GST_START_TEST (test_long_interval_then_short)
{
  Fmt f = { "F32LE", RATE, 1, FALSE };
  gchar *caps = fmt_caps_string (&f);
  GstBus *bus;
  GstHarness *h = harness_new (&bus, caps, "fft-size", "1024", NULL);
  const gsize n = RATE * 2;
  gdouble *x = g_new0 (gdouble, n);
  Msgs *m;
  guint i;

  gen_tone (x, n, 1, 0.5, 1000.0, RATE, 0.0);
  /* 0.5 s at 100 ms: 5 intervals */
  push_samples (h, &f, x, RATE / 2, CHUNK, 0, FALSE);
  for (i = 0; i < RATE / 2 / CHUNK; i++)
    gst_buffer_unref (gst_harness_pull (h));
  m = msgs_collect (bus, 5, 60);
  fail_unless_equals_int (m->spectrum->len, 5);
  msgs_free (m);
  /* an hour, for 0.5 s, then 100 ms again with another fft-size */
  g_object_set (h->element, "interval", (guint64) 3600 * GST_SECOND, NULL);
  push_samples (h, &f, x + RATE / 2, RATE / 2, CHUNK, GST_SECOND / 2, FALSE);
  for (i = 0; i < RATE / 2 / CHUNK; i++)
    gst_buffer_unref (gst_harness_pull (h));
  g_object_set (h->element, "interval", (guint64) GST_SECOND / 10,
      "fft-size", 2048, NULL);
  push_samples (h, &f, x + RATE, RATE, CHUNK, GST_SECOND, FALSE);
  for (i = 0; i < RATE / CHUNK; i++)
    gst_buffer_unref (gst_harness_pull (h));
  /* (no EOS: what the last second gives without it) */
  m = msgs_collect (bus, 10, 60);
  /* the hour-long interval, closed at the change (0.5 s of it), then the
   * last second's 100 ms intervals of 2048-point frames, from 1.0 s */
  fail_unless (m->spectrum->len >= 10, "%u messages", m->spectrum->len);
  fail_unless_equals_uint64 (msg_u64 (g_ptr_array_index (m->spectrum, 0),
          "timestamp"), GST_SECOND / 2);
  fail_unless_equals_uint64 (msg_u64 (g_ptr_array_index (m->spectrum, 0),
          "duration"), GST_SECOND / 2);
  fail_unless_equals_int (msg_uint (g_ptr_array_index (m->spectrum, 0),
          "fft-size"), 1024);
  for (i = 1; i < m->spectrum->len; i++) {
    const GstStructure *st = g_ptr_array_index (m->spectrum, i);

    fail_unless_equals_int (msg_uint (st, "fft-size"), 2048);
    fail_unless (msg_u64 (st, "timestamp") >= GST_SECOND);
    fail_unless (msg_u64 (st, "duration") <= GST_SECOND / 10);
  }
  msgs_free (m);
  harness_free (h, bus);
  g_free (x);
  g_free (caps);
}

GST_END_TEST;

/* The caps say what the element handles: 1..4096 channels; more is
 * refused at negotiation, with a warning naming the range. */
GST_START_TEST (test_caps_channel_range)
{
  GstElement *el = gst_element_factory_make ("gpufftspectrum", NULL);
  GstPad *sink = gst_element_get_static_pad (el, "sink");
  GstCaps *tmpl = gst_pad_get_pad_template_caps (sink);
  GstCaps *ok = gst_caps_from_string ("audio/x-raw, format=F32LE, "
      "rate=48000, channels=4096, layout=interleaved");
  GstCaps *too_many = gst_caps_from_string ("audio/x-raw, format=F32LE, "
      "rate=48000, channels=4097, layout=interleaved");
  const GValue *range =
      gst_structure_get_value (gst_caps_get_structure (tmpl, 0), "channels");

  fail_unless (GST_VALUE_HOLDS_INT_RANGE (range));
  fail_unless_equals_int (gst_value_get_int_range_min (range), 1);
  fail_unless_equals_int (gst_value_get_int_range_max (range), 4096);
  fail_unless (gst_caps_can_intersect (tmpl, ok));
  fail_if (gst_caps_can_intersect (tmpl, too_many));
  gst_caps_unref (tmpl);
  gst_caps_unref (ok);
  gst_caps_unref (too_many);
  gst_object_unref (sink);
  gst_object_unref (el);
}

GST_END_TEST;

static Suite *
hostile_suite (void)
{
  Suite *s = suite_create ("gpufftspectrum-hostile");
  TCase *tc = tcase_create ("hostile");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_planar_257_channels);
  tcase_add_test (tc, test_planar_300_channels);
  tcase_add_test (tc, test_planar_4096_channels);
  tcase_add_test (tc, test_empty_buffers_change_nothing);
  tcase_add_test (tc, test_pts_near_end_of_clock);
  tcase_add_test (tc, test_huge_finite_samples);
  tcase_add_test (tc, test_message_frames_bound);
  tcase_add_test (tc, test_buffers_outside_segment);
  tcase_add_test (tc, test_long_interval_then_short);
  tcase_add_test (tc, test_caps_channel_range);
  return s;
}

GST_CHECK_MAIN (hostile);
