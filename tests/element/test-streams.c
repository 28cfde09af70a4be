/* Many elements on one device: the device scheduler batches their work;
 * each stream's messages must be what it gets alone, EOS must leave after
 * every message, flushes must not leak old messages, and a live stream whose
 * device falls behind must keep its audio on time and count what it drops.
 */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <string.h>

#include "gpufft-test-common.h"

#define RATE 48000
#define CHUNK 480               /* 10 ms buffers, as live sources push */

typedef struct
{
  guint fft, hop, channels, interval_ms;
  gboolean multi, s16;
  const gchar *window;
} Geometry;

static void
geometry_of (guint i, Geometry * g)
{
  static const guint ffts[] = { 256, 512, 1024, 2048 };
  static const guint hop_div[] = { 2, 4, 1 };
  static const guint intervals[] = { 100, 30, 50, 70, 20 };
  static const gchar *windows[] = { "hann", "hamming", "blackman-harris" };

  g->fft = ffts[i % 4];
  g->hop = g->fft / hop_div[(i / 4) % 3];
  g->channels = 1 + i % 3;
  g->multi = (i / 2) % 2;
  g->interval_ms = intervals[i % 5];
  g->s16 = (i / 3) % 2;
  g->window = windows[i % 3];
}

static GstHarness *
harness_for (const Geometry * g, Fmt * f, GstBus ** bus)
{
  GstHarness *h;
  gchar *caps;

  f->format = g->s16 ? "S16LE" : "F32LE";
  f->rate = RATE;
  f->channels = g->channels;
  f->planar = FALSE;
  caps = fmt_caps_string (f);
  h = harness_new (bus, caps, NULL, NULL);
  g_free (caps);
  g_object_set (h->element, "fft-size", g->fft, "hop-size", g->hop,
      "multi-channel", g->multi, "interval",
      (guint64) g->interval_ms * GST_MSECOND, NULL);
  gst_util_set_object_arg (G_OBJECT (h->element), "window", g->window);
  return h;
}

/* Tone + noise, different per stream. */
static gdouble *
stream_signal (guint i, guint channels, gsize n)
{
  gdouble *x = g_new0 (gdouble, n * channels);
  guint c;

  for (c = 0; c < channels; c++) {
    gen_tone (x + c, n, channels, 0.5, 300.0 + 37.0 * i + 100.0 * c, RATE,
        0.1 * c);
    gen_noise (x + c, n, channels, 0.01, 1000 + i * 8 + c);
  }
  return x;
}

static void
push_chunk (GstHarness * h, const Fmt * f, const gdouble * x, gsize off,
    gsize len)
{
  GstClockTime pts = gst_util_uint64_scale_int_round (off, GST_SECOND,
      f->rate);
  GstBuffer *buf = fmt_make_buffer (f, x + off * f->channels, len, pts);

  fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
  /* (the harness keeps what comes out: drop it) */
  gst_buffer_unref (gst_harness_pull (h));
}

/* Every spectrum and dominant-frequency message, as strings, in order. */
static GPtrArray *
messages_as_strings (Msgs * m)
{
  GPtrArray *out = g_ptr_array_new_with_free_func (g_free);
  guint i;

  for (i = 0; i < m->spectrum->len; i++)
    g_ptr_array_add (out, gst_structure_to_string (g_ptr_array_index
            (m->spectrum, i)));
  for (i = 0; i < m->dominant->len; i++)
    g_ptr_array_add (out, gst_structure_to_string (g_ptr_array_index
            (m->dominant, i)));
  return out;
}

static GPtrArray *
run_alone (guint i, gsize n)
{
  Geometry g;
  Fmt f;
  GstBus *bus;
  GstHarness *h;
  gdouble *x;
  Msgs *m;
  GPtrArray *out;
  gsize off;

  geometry_of (i, &g);
  h = harness_for (&g, &f, &bus);
  x = stream_signal (i, g.channels, n);
  fmt_quantize (&f, x, n * g.channels);
  for (off = 0; off < n; off += CHUNK)
    push_chunk (h, &f, x, off, MIN (CHUNK, n - off));
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  /* (everything is posted before EOS leaves the element) */
  m = msgs_collect (bus, 0, 0);
  fail_unless_equals_int (m->errors->len, 0);
  fail_unless (m->spectrum->len > 0);
  out = messages_as_strings (m);
  msgs_free (m);
  harness_free (h, bus);
  g_free (x);
  return out;
}

#define N_MANY 64

GST_START_TEST (test_many_elements_mixed_geometries)
{
  const gsize n = RATE * 3 / 10;        /* 0.3 s per stream */
  GstHarness *h[N_MANY];
  GstBus *bus[N_MANY];
  Fmt f[N_MANY];
  Geometry g[N_MANY];
  gdouble *x[N_MANY];
  gsize off;
  guint i, j;

  for (i = 0; i < N_MANY; i++) {
    geometry_of (i, &g[i]);
    h[i] = harness_for (&g[i], &f[i], &bus[i]);
    x[i] = stream_signal (i, g[i].channels, n);
    fmt_quantize (&f[i], x[i], n * g[i].channels);
  }
  /* all streams at once, buffer by buffer, as 64 live sources would */
  for (off = 0; off < n; off += CHUNK)
    for (i = 0; i < N_MANY; i++)
      push_chunk (h[i], &f[i], x[i], off, MIN (CHUNK, n - off));
  for (i = 0; i < N_MANY; i++)
    fail_unless (gst_harness_push_event (h[i], gst_event_new_eos ()));

  for (i = 0; i < N_MANY; i++) {
    Msgs *m = msgs_collect (bus[i], 0, 0);
    GPtrArray *together = messages_as_strings (m), *alone;

    fail_unless_equals_int (m->errors->len, 0);
    msgs_free (m);
    harness_free (h[i], bus[i]);

    alone = run_alone (i, n);
    fail_unless_equals_int (together->len, alone->len);
    for (j = 0; j < alone->len; j++)
      fail_unless_equals_string (g_ptr_array_index (together, j),
          g_ptr_array_index (alone, j));
    g_ptr_array_unref (together);
    g_ptr_array_unref (alone);
    g_free (x[i]);
  }
}

GST_END_TEST;

/* Counts the spectrum messages posted so far (any thread). */
static GstBusSyncReply
count_spectrum (GstBus * bus, GstMessage * msg, gpointer user_data)
{
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ELEMENT &&
      gst_structure_has_name (gst_message_get_structure (msg), "spectrum"))
    g_atomic_int_inc ((gint *) user_data);
  return GST_BUS_PASS;
}

typedef struct
{
  gint *posted;
  gint at_eos;
} EosProbe;

static GstPadProbeReturn
on_eos (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  EosProbe *p = user_data;

  if (GST_EVENT_TYPE (GST_PAD_PROBE_INFO_EVENT (info)) == GST_EVENT_EOS)
    p->at_eos = g_atomic_int_get (p->posted);
  return GST_PAD_PROBE_OK;
}

GST_START_TEST (test_eos_with_work_in_flight)
{
  const gsize n = RATE * 2;
  GstBus *bus;
  GstHarness *h;
  gdouble *x = g_new0 (gdouble, n);
  Fmt f = { "F32LE", RATE, 1, FALSE };
  gint posted = 0;
  EosProbe probe = { &posted, -1 };
  GstPad *src;
  gchar *caps = fmt_caps_string (&f);

  h = harness_new (&bus, caps, "fft-size", "256", "hop-size", "128",
      "interval", "10000000", NULL);
  g_free (caps);
  gst_bus_set_sync_handler (bus, count_spectrum, &posted, NULL);
  src = gst_element_get_static_pad (h->element, "src");
  gst_pad_add_probe (src, GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, on_eos,
      &probe, NULL);
  gst_object_unref (src);
  gen_tone (x, n, 1, 0.5, 1000.0, RATE, 0.0);
  /* 200 intervals of 10 ms, pushed as fast as the element takes them:
   * many are still on the GPU when EOS arrives */
  push_samples (h, &f, x, n, CHUNK, 0, FALSE);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  /* every interval was posted before EOS left the element */
  fail_unless_equals_int (probe.at_eos, 200);
  fail_unless_equals_int (g_atomic_int_get (&posted), 200);
  gst_bus_set_sync_handler (bus, NULL, NULL, NULL);
  harness_free (h, bus);
  g_free (x);
}

GST_END_TEST;

typedef struct
{
  GstHarness *h;
  Fmt f;
  const gdouble *x;
  gsize n;
} Feeder;

static gpointer
feed (gpointer data)
{
  Feeder *fd = data;
  gsize off;

  for (off = 0; off < fd->n; off += CHUNK)
    push_chunk (fd->h, &fd->f, fd->x, off, MIN (CHUNK, fd->n - off));
  fail_unless (gst_harness_push_event (fd->h, gst_event_new_eos ()));
  return NULL;
}

GST_START_TEST (test_streams_come_and_go)
{
  const gsize n = RATE;         /* stream A: 1 s */
  const gsize nb = RATE / 2;    /* each B: 0.5 s */
  guint a = 5, cycle;           /* A has the geometry of stream 5 */
  Geometry ga;
  Feeder fd;
  GstBus *bus_a;
  GThread *thread;
  gdouble *xa, *xb;
  Msgs *m;
  GPtrArray *together, *alone;
  guint j;

  geometry_of (a, &ga);
  fd.h = harness_for (&ga, &fd.f, &bus_a);
  xa = stream_signal (a, ga.channels, n);
  fmt_quantize (&fd.f, xa, n * ga.channels);
  fd.x = xa;
  fd.n = n;
  xb = stream_signal (99, 2, nb);
  thread = g_thread_new ("stream-a", feed, &fd);

  /* meanwhile: elements start, flush, renegotiate and stop */
  for (cycle = 0; cycle < 6; cycle++) {
    Fmt fb = { "F32LE", RATE, 1, FALSE };
    GstBus *bus;
    GstHarness *h;
    gchar *caps = fmt_caps_string (&fb);
    gsize off;
    Msgs *mb;
    guint before;

    h = harness_new (&bus, caps, "fft-size", cycle % 2 ? "512" : "2048",
        "interval", "20000000", NULL);
    g_free (caps);
    for (off = 0; off < nb; off += CHUNK)
      push_chunk (h, &fb, xb, off, MIN (CHUNK, nb - off));
    /* a flush: what came before is posted before FLUSH_STOP leaves, and
     * nothing of it after */
    fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
    fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
    mb = msgs_collect (bus, 0, 0);
    before = mb->spectrum->len;
    fail_unless (before > 0);
    msgs_free (mb);
    mb = msgs_collect (bus, 1, 0.3);
    fail_unless_equals_int (mb->spectrum->len, 0);
    msgs_free (mb);
    /* new caps: two channels */
    {
      GstSegment seg;

      gst_segment_init (&seg, GST_FORMAT_TIME);
      fb.channels = 2;
      caps = fmt_caps_string (&fb);
      gst_harness_set_src_caps_str (h, caps);
      g_free (caps);
      fail_unless (gst_harness_push_event (h, gst_event_new_segment (&seg)));
    }
    for (off = 0; off < nb / 2; off += CHUNK)
      push_chunk (h, &fb, xb, off, MIN (CHUNK, nb / 2 - off));
    /* and it stops (with an interval open) */
    harness_free (h, bus);
  }

  g_thread_join (thread);
  m = msgs_collect (bus_a, 0, 0);
  fail_unless_equals_int (m->errors->len, 0);
  together = messages_as_strings (m);
  msgs_free (m);
  harness_free (fd.h, bus_a);
  alone = run_alone (a, n);
  fail_unless_equals_int (together->len, alone->len);
  for (j = 0; j < alone->len; j++)
    fail_unless_equals_string (g_ptr_array_index (together, j),
        g_ptr_array_index (alone, j));
  g_ptr_array_unref (together);
  g_ptr_array_unref (alone);
  g_free (xa);
  g_free (xb);
}

GST_END_TEST;

/* Pushes [off, off + n) of x in buffers of `chunk` samples, each pulled
 * back and compared with what went in; returns the microseconds it took. */
static gint64
push_passthrough (GstHarness * h, const Fmt * f, const gdouble * x,
    gsize off, gsize n, gsize chunk)
{
  gint64 t0 = g_get_monotonic_time ();
  gsize end = off + n;

  for (; off < end; off += chunk) {
    GstClockTime pts = gst_util_uint64_scale_int_round (off, GST_SECOND,
        f->rate);
    GstBuffer *in = fmt_make_buffer (f, x + off * f->channels, chunk, pts);
    GstBuffer *out;
    GstMapInfo a, b;

    gst_buffer_ref (in);
    fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
    out = gst_harness_pull (h);
    fail_unless (out != NULL);
    gst_buffer_map (in, &a, GST_MAP_READ);
    gst_buffer_map (out, &b, GST_MAP_READ);
    fail_unless_equals_int (a.size, b.size);
    fail_unless (memcmp (a.data, b.data, a.size) == 0);
    gst_buffer_unmap (in, &a);
    gst_buffer_unmap (out, &b);
    gst_buffer_unref (in);
    gst_buffer_unref (out);
  }
  return g_get_monotonic_time () - t0;
}

/* A live stream whose device falls behind, in buffers of `chunk` samples:
 * 2 s pushed at once, then (the device caught up) 0.5 s more and EOS.
 * Intervals are 100 ms (4800 samples). */
static void
live_falls_behind (gsize chunk)
{
  /* whole buffers: a first part in real time (w samples, until the first
   * message), then the burst, after which interval_1 intervals are
   * complete (the next one open); the whole stream holds `total` (the
   * last closed by EOS) */
  const gsize n1 = (RATE * 2 + chunk - 1) / chunk * chunk;
  const gsize n2 = (RATE / 2 + chunk - 1) / chunk * chunk;
  const gsize wmax = (30 * RATE + chunk - 1) / chunk * chunk;
  guint interval_1, total;
  Fmt f = { "F32LE", RATE, 2, FALSE };
  gchar *caps = fmt_caps_string (&f);
  gdouble *x = g_new0 (gdouble, (wmax + n1 + n2) * 2);
  GstBus *bus;
  GstHarness *h;
  Msgs *m1, *m2;
  guint64 dropped1, dropped_field = 0;
  gsize off, w;
  guint i, warned = 0;

  /* every GPU submission takes 300 ms (read when the device's scheduler
   * starts: this test runs in its own process) */
  g_setenv ("GPUFFT_DEBUG_SLOW_DEVICE_MS", "300", TRUE);
  /* (the device's own falling behind: no host start) */
  g_setenv ("GPUFFT_HOST_START", "off", TRUE);
  h = harness_new (&bus, caps, "interval", "100000000", NULL);
  g_free (caps);
  gst_harness_set_live (h, TRUE);
  gen_tone (x, wmax + n1 + n2, 2, 0.5, 1000.0, RATE, 0.0);
  gen_tone (x + 1, wmax + n1 + n2, 2, 0.25, 2000.0, RATE, 0.0);
  fmt_quantize (&f, x, (wmax + n1 + n2) * 2);

  /* in real time until the plan is made and the device has delivered once
   * (the intervals stored meanwhile are caught up, not dropped) */
  m1 = msgs_collect (bus, 0, 0);
  for (w = 0; w < wmax && m1->spectrum->len == 0; w += chunk) {
    g_usleep (gst_util_uint64_scale_int (chunk, G_USEC_PER_SEC, RATE));
    push_passthrough (h, &f, x, w, chunk, chunk);
    msgs_append (m1, msgs_collect (bus, 0, 0));
  }
  fail_unless (w < wmax, "no message came");
  fail_unless_equals_uint64 (stats_u64 (h->element, "dropped-intervals"), 0);
  interval_1 = (w + n1) / 4800;
  total = (w + n1 + n2 + 4799) / 4800;

  /* 2 s pushed at once: the device cannot keep up; the audio comes out
   * at once and untouched */
  push_passthrough (h, &f, x, w, n1, chunk);
  dropped1 = stats_u64 (h->element, "dropped-intervals");
  /* (the streaming thread never waited: else nothing would be dropped) */
  fail_unless (dropped1 > 0, "nothing was dropped");
  fail_unless (dropped1 < interval_1);
  /* the intervals that were not dropped are all posted */
  msgs_append (m1, msgs_collect (bus, interval_1 - (guint) dropped1 -
          m1->spectrum->len, 120));
  fail_unless_equals_int (m1->spectrum->len, interval_1 - dropped1);
  for (i = 0; i < m1->warnings->len; i++)
    warned += strstr (g_ptr_array_index (m1->warnings, i),
        "falls behind") != NULL;
  fail_unless_equals_int (warned, 1);

  /* the device has caught up: the next intervals are analysed, the first
   * message says how many were dropped before it */
  for (off = w + n1; off < w + n1 + n2; off += chunk)
    push_chunk (h, &f, x, off, chunk);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  m2 = msgs_collect (bus, 0, 0);
  fail_unless_equals_int (m2->spectrum->len, total - interval_1);
  fail_unless_equals_int (m2->errors->len, 0);
  /* no drop in phase 2 (6 intervals at most, 8 free slots); every drop is
   * counted
   * once, in the next message posted after it */
  fail_unless_equals_int (stats_u64 (h->element, "dropped-intervals"),
      dropped1);
  for (i = 0; i < m1->spectrum->len + m2->spectrum->len; i++) {
    GstStructure *st = i < m1->spectrum->len ?
        g_ptr_array_index (m1->spectrum, i) :
        g_ptr_array_index (m2->spectrum, i - m1->spectrum->len);
    guint d = 0;

    if (gst_structure_get_uint (st, "dropped", &d)) {
      fail_unless (d > 0);
      dropped_field += d;
    }
  }
  fail_unless_equals_int (dropped_field, dropped1);
  msgs_free (m1);
  msgs_free (m2);
  g_unsetenv ("GPUFFT_HOST_START");
  harness_free (h, bus);
  g_free (x);
}

/* buffers that end on interval boundaries */
GST_START_TEST (test_live_falls_behind)
{
  live_falls_behind (CHUNK);
}

GST_END_TEST;

/* 1024-sample buffers: a buffer closes one interval and already holds a
 * frame of the next (it must still be dropped, not waited for) */
GST_START_TEST (test_live_falls_behind_unaligned)
{
  live_falls_behind (1024);
}

GST_END_TEST;

#define SLOW_PLAN_MS 3000

/* A live stream whose plans take 3 s to make (GPUFFT_DEBUG_SLOW_PLAN_MS,
 * as a cold driver compiler can): the buffers pass on at once and
 * untouched while a plan is made (at the start, and after an fft-size
 * change while playing), their samples wait, and once the plan is ready
 * every interval is posted, in order, none dropped. */
GST_START_TEST (test_live_slow_plan)
{
  const gsize chunk = RATE / 100;       /* 10 ms */
  const gsize n1 = RATE, step = RATE / 10, n3 = RATE / 2, most = 60 * RATE;
  Fmt f = { "F32LE", RATE, 2, FALSE };
  gchar *caps = fmt_caps_string (&f);
  gdouble *x = g_new0 (gdouble, (most + n3) * 2);
  GstBus *bus;
  GstHarness *h;
  Msgs *m;
  gint64 us;
  gsize pos;
  guint i, n_old;

  /* (the store's path: no host start) */
  g_setenv ("GPUFFT_HOST_START", "off", TRUE);
  g_setenv ("GPUFFT_DEBUG_SLOW_PLAN_MS", G_STRINGIFY (SLOW_PLAN_MS), TRUE);
  h = harness_new (&bus, caps, "interval", "100000000", NULL);
  g_free (caps);
  gst_harness_set_live (h, TRUE);
  gen_tone (x, most + n3, 2, 0.5, 1000.0, RATE, 0.0);
  gen_tone (x + 1, most + n3, 2, 0.25, 2000.0, RATE, 0.0);
  fmt_quantize (&f, x, (most + n3) * 2);

  /* 1 s while the first plan is made: no buffer waited for it (they all
   * passed before it could be ready), nothing is posted yet */
  us = push_passthrough (h, &f, x, 0, n1, chunk);
  fail_unless (us < SLOW_PLAN_MS * 1000, "the buffers waited for the plan "
      "(%" G_GINT64_FORMAT " us)", us);
  m = msgs_collect (bus, 0, 0);
  fail_unless_equals_int (m->spectrum->len, 0);

  /* the stream goes on in real time until the plan is ready and the
   * first message comes */
  for (pos = n1; pos < most && m->spectrum->len == 0; pos += step) {
    g_usleep (100 * 1000);
    push_passthrough (h, &f, x, pos, step, chunk);
    msgs_append (m, msgs_collect (bus, 0, 0));
  }
  fail_unless (pos < most, "no message came");

  /* a new geometry while playing: a new plan, made beside the stream */
  g_object_set (h->element, "fft-size", 2048, NULL);
  us = push_passthrough (h, &f, x, pos, n3, chunk);
  fail_unless (us < SLOW_PLAN_MS * 1000, "the buffers waited for the new "
      "plan (%" G_GINT64_FORMAT " us)", us);
  /* EOS waits for it. Every interval is posted, in order: those of the
   * first geometry (the stored ones too), then the 5 of the new one */
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  msgs_append (m, msgs_collect (bus, 0, 0));
  fail_unless_equals_int (m->errors->len, 0);
  n_old = pos / 4800;
  fail_unless_equals_int (m->spectrum->len, n_old + 5);
  for (i = 0; i < m->spectrum->len; i++) {
    const GstStructure *st = g_ptr_array_index (m->spectrum, i);
    guint64 ts = 0;
    guint fft = 0;

    fail_unless (gst_structure_get_uint64 (st, "timestamp", &ts));
    fail_unless_equals_uint64 (ts, i * 100 * GST_MSECOND);
    fail_unless (gst_structure_get_uint (st, "fft-size", &fft));
    fail_unless_equals_int (fft, i < n_old ? 1024 : 2048);
  }
  fail_unless_equals_uint64 (stats_u64 (h->element, "dropped-intervals"), 0);
  msgs_free (m);
  g_unsetenv ("GPUFFT_HOST_START");
  harness_free (h, bus);
  g_free (x);
}

GST_END_TEST;

/* The same stream cut by a discontinuity (a live source's lost packets)
 * while its first plan is made: nothing waits for the plan; the half
 * second before the cut is not analysed (5 intervals, counted as dropped),
 * the analysis restarts at the cut, and EOS waits for the plan to post the
 * 5 intervals after it, timed from the cut. */
GST_START_TEST (test_live_slow_plan_discont)
{
  const gsize chunk = RATE / 100, half = RATE / 2;
  const GstClockTime cut = 10 * GST_SECOND;
  Fmt f = { "F32LE", RATE, 2, FALSE };
  gchar *caps = fmt_caps_string (&f);
  gdouble *x = g_new0 (gdouble, 2 * half * 2);
  GstBus *bus;
  GstHarness *h;
  Msgs *m;
  gint64 t0;
  gsize off;
  guint i;

  /* (the store's path: no host start) */
  g_setenv ("GPUFFT_HOST_START", "off", TRUE);
  g_setenv ("GPUFFT_DEBUG_SLOW_PLAN_MS", G_STRINGIFY (SLOW_PLAN_MS), TRUE);
  h = harness_new (&bus, caps, "interval", "100000000", NULL);
  g_free (caps);
  gst_harness_set_live (h, TRUE);
  gen_tone (x, 2 * half, 2, 0.5, 1000.0, RATE, 0.0);
  gen_tone (x + 1, 2 * half, 2, 0.25, 2000.0, RATE, 0.0);
  fmt_quantize (&f, x, 2 * half * 2);

  t0 = g_get_monotonic_time ();
  push_passthrough (h, &f, x, 0, half, chunk);
  for (off = half; off < 2 * half; off += chunk) {
    GstClockTime pts = cut + gst_util_uint64_scale_int_round (off - half,
        GST_SECOND, RATE);
    GstBuffer *buf = fmt_make_buffer (&f, x + off * 2, chunk, pts);

    if (off == half)
      GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_DISCONT);
    fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
    gst_buffer_unref (gst_harness_pull (h));
  }
  fail_unless (g_get_monotonic_time () - t0 < SLOW_PLAN_MS * 1000,
      "the buffers waited for the plan");
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  m = msgs_collect (bus, 0, 0);
  fail_unless_equals_int (m->errors->len, 0);
  fail_unless_equals_int (m->spectrum->len, 5);
  for (i = 0; i < m->spectrum->len; i++) {
    guint64 ts = 0;

    fail_unless (gst_structure_get_uint64 (g_ptr_array_index (m->spectrum,
                i), "timestamp", &ts));
    fail_unless_equals_uint64 (ts, cut + i * 100 * GST_MSECOND);
  }
  fail_unless_equals_uint64 (stats_u64 (h->element, "dropped-intervals"), 5);
  /* the warning says why: the plan, not a GPU behind */
  fail_unless_equals_int (m->warnings->len, 1);
  fail_unless (strstr (g_ptr_array_index (m->warnings, 0),
          "still being prepared") != NULL, "%s",
      (const gchar *) g_ptr_array_index (m->warnings, 0));
  msgs_free (m);
  g_unsetenv ("GPUFFT_HOST_START");
  harness_free (h, bus);
  g_free (x);
}

GST_END_TEST;

/* Each message of m against the double-precision Welch reference of x
 * (n samples; fft 1024, hop 512, hann, 100 ms intervals) within 0.001 dB,
 * one per interval; failures name `who` and whether the interval came
 * before on_host (the host's) or not (the device's). */
static void
compare_live_intervals (Msgs * m, const gdouble * x, gsize n,
    const gchar * who, guint64 on_host)
{
  RefConfig rc = { 1024, 512, REF_HANN, FALSE, RATE, 100 * GST_MSECOND };
  GPtrArray *refs = ref_welch (&rc, x, n);
  guint i;

  fail_unless_equals_int (m->spectrum->len, refs->len);
  for (i = 0; i < refs->len; i++) {
    const RefInterval *r = g_ptr_array_index (refs, i);
    const GstStructure *st = g_ptr_array_index (m->spectrum, i);
    gchar *what = g_strdup_printf ("%s, interval %u (%s)", who, i,
        i < on_host ? "host" : "device");
    guint ch;
    gfloat *got = msg_floats (st, "magnitude", &ch, NULL, NULL);

    check_spectrum_fields (st, &rc, r, 0, 1);
    fail_unless_equals_int (ch, 1);
    compare_db (&rc, got, r->power, -120.0, 0.001, what);
    g_free (got);
    g_free (what);
  }
  g_ptr_array_unref (refs);
}

/* The host start (GPUFFT_HOST_START, default for live streams): a live
 * mono stream whose plan takes 3 s to make: its first intervals are
 * analysed on the CPU at once (9 or 10 messages after the first second
 * in real time, well before the plan), the device's plan takes over between
 * intervals once made, and every interval of the whole stream, host and
 * device alike, matches the double-precision Welch reference; none is
 * dropped, no warning. */
GST_START_TEST (test_live_host_start)
{
  const gsize chunk = RATE / 100, n1 = RATE, step = RATE / 10;
  const gsize most = 40 * RATE;
  Fmt f = { "F32LE", RATE, 1, FALSE };
  gchar *caps = fmt_caps_string (&f);
  gdouble *x = g_new0 (gdouble, most);
  GstBus *bus;
  GstHarness *h;
  Msgs *m;
  gint64 t0;
  gsize pos, total;
  guint64 on_host;

  g_setenv ("GPUFFT_DEBUG_SLOW_PLAN_MS", G_STRINGIFY (SLOW_PLAN_MS), TRUE);
  /* (no stream on the host alone: the device's plan takes over) */
  g_setenv ("GPUFFT_HOST_BUDGET", "0", TRUE);
  h = harness_new (&bus, caps, "interval", "100000000", "threshold", "-120",
      NULL);
  g_free (caps);
  gst_harness_set_live (h, TRUE);
  gen_noise (x, most, 1, 0.01, 7);
  gen_tone (x, most, 1, 0.5, 1234.5, RATE, 0.3);
  fmt_quantize (&f, x, most);

  /* the first second in real time */
  t0 = g_get_monotonic_time ();
  for (pos = 0; pos < n1; pos += step) {
    push_passthrough (h, &f, x, pos, step, chunk);
    g_usleep (100 * 1000);
  }
  /* (the 10th interval closes with the next buffer: its last frame's
   * successor could still start in it) */
  m = msgs_collect (bus, 9, 1.0);
  fail_unless (g_get_monotonic_time () - t0 < SLOW_PLAN_MS * 1000 * 2 / 3,
      "the first messages waited for the plan (%" G_GINT64_FORMAT " us)",
      g_get_monotonic_time () - t0);
  on_host = stats_u64 (h->element, "host-intervals");
  fail_unless (on_host >= 9 && on_host <= 10, "%" G_GUINT64_FORMAT
      " intervals handed to the host plan in the first second", on_host);
  fail_unless (m->spectrum->len >= 9 && m->spectrum->len <= on_host, "%u "
      "messages after the first second", m->spectrum->len);

  /* in real time until the device's plan has taken over for a second (10
   * intervals not the host's) */
  for (pos = n1; pos < most; pos += step) {
    g_usleep (100 * 1000);
    push_passthrough (h, &f, x, pos, step, chunk);
    msgs_append (m, msgs_collect (bus, 0, 0));
    if ((pos + step) / 4800 >= stats_u64 (h->element, "host-intervals") + 11)
      break;
  }
  fail_unless (pos < most, "the device's plan never took over");
  total = pos + step;
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  msgs_append (m, msgs_collect (bus, 0, 0));
  fail_unless_equals_int (m->errors->len, 0);
  fail_unless_equals_int (m->warnings->len, 0);
  on_host = stats_u64 (h->element, "host-intervals");
  GST_INFO ("%" G_GUINT64_FORMAT " of %u intervals on the host", on_host,
      m->spectrum->len);
  /* (the slow plan's 3 s at least) */
  fail_unless (on_host >= 25 && on_host + 10 <= m->spectrum->len, "%"
      G_GUINT64_FORMAT " intervals on the host", on_host);
  fail_unless_equals_uint64 (stats_u64 (h->element, "dropped-intervals"), 0);

  compare_live_intervals (m, x, total, "the stream", on_host);
  msgs_free (m);
  harness_free (h, bus);
  g_unsetenv ("GPUFFT_DEBUG_SLOW_PLAN_MS");
  g_unsetenv ("GPUFFT_HOST_BUDGET");
  g_free (x);
}

GST_END_TEST;

/* Checks a live stream's messages m (of x, n samples) against the
 * double-precision Welch reference (within 0.001 dB): one per interval,
 * none dropped, no error or warning. */
static void
check_live_messages (GstHarness * h, Msgs * m, const gdouble * x, gsize n,
    const gchar * who)
{
  fail_unless (m->errors->len == 0, "%s: an error: %s", who, m->errors->len ?
      (gchar *) g_ptr_array_index (m->errors, 0) : "");
  fail_unless (m->warnings->len == 0, "%s: a warning: %s", who,
      m->warnings->len ? (gchar *) g_ptr_array_index (m->warnings, 0) : "");
  fail_unless_equals_uint64 (stats_u64 (h->element, "dropped-intervals"), 0);
  compare_live_intervals (m, x, n, who, stats_u64 (h->element,
          "host-intervals"));
}

static gchar *
device_name (GstHarness * h)
{
  gchar *name = NULL;

  g_object_get (h->element, "device-name", &name, NULL);
  return name;
}

/* The element's device (stats): 1 a CPU Vulkan device, 0 a GPU, -1 none
 * in use (yet) */
static gint
device_kind (GstHarness * h)
{
  GstStructure *st = NULL;
  gboolean cpu = FALSE;
  gint index = -1;

  g_object_get (h->element, "stats", &st, NULL);
  fail_unless (st != NULL);
  fail_unless (gst_structure_get_int (st, "device", &index));
  fail_unless (gst_structure_get_boolean (st, "device-is-cpu", &cpu));
  gst_structure_free (st);
  return index < 0 ? -1 : cpu ? 1 : 0;
}

/* Host only: a live stream that fits the process's host budget is
 * analysed on the host alone, with no device opened (device-name says so;
 * NULL before the first buffer). A second live stream that does not fit
 * the budget left opens a device. Where it is a GPU, the first then moves
 * to it between intervals, as after a host start; where it is a CPU
 * device (lavapipe), the first stays on the host alone (its
 * host-intervals count every interval). Both in real time; every
 * interval of both, host and device alike, within 0.001 dB of the Welch
 * reference, none dropped, no warning. Then a new live stream: not on the
 * host alone after a GPU was opened in the process, on the host alone
 * after a CPU device (the budget free again). The budget here: one mono
 * stream of fft 1024, hop 512 at 48 kHz (96000 FFT points a second), and
 * a bit. */
GST_START_TEST (test_live_host_only)
{
  const gsize step = RATE / 10, most = 20 * RATE;
  Fmt f = { "F32LE", RATE, 1, FALSE };
  gchar *caps = fmt_caps_string (&f);
  gdouble *x = g_new0 (gdouble, most);
  GstBus *bus1, *bus2, *bus3;
  GstHarness *h1, *h2, *h3;
  Msgs *m1, *m2;
  gchar *name;
  gsize pos, pos2 = 0;
  guint64 on_host = 0;
  guint still = 0;
  gint cpu = -1;                /* h2's device: a CPU device (1), a GPU (0) */

  gen_noise (x, most, 1, 0.01, 11);
  gen_tone (x, most, 1, 0.5, 2345.6, RATE, 0.1);
  fmt_quantize (&f, x, most);
  g_setenv ("GPUFFT_HOST_BUDGET", "100000", TRUE);

  h1 = harness_new (&bus1, caps, "interval", "100000000", "threshold",
      "-120", NULL);
  gst_harness_set_live (h1, TRUE);
  name = device_name (h1);
  fail_unless (name == NULL, "device-name before the first buffer: %s", name);
  h2 = harness_new (&bus2, caps, "interval", "100000000", "threshold",
      "-120", NULL);
  gst_harness_set_live (h2, TRUE);

  /* h1 alone for a second: on the host alone */
  m1 = msgs_collect (bus1, 0, 0);
  for (pos = 0; pos < RATE; pos += step) {
    push_passthrough (h1, &f, x, pos, step, RATE / 100);
    g_usleep (100 * 1000);
  }
  msgs_append (m1, msgs_collect (bus1, 9, 1.0));
  fail_unless (stats_u64 (h1->element, "host-intervals") >= 9);
  name = device_name (h1);
  fail_unless_equals_string (name, "CPU (host analysis)");
  g_free (name);

  /* h2 starts (no budget left: a device). On a GPU, h1 moves to it once
   * it is open: its host-intervals stop growing; on a CPU device it stays
   * (10 s of both after h2's device is open) */
  m2 = msgs_collect (bus2, 0, 0);
  for (; pos < most && still < 10; pos += step, pos2 += step) {
    push_passthrough (h1, &f, x, pos, step, RATE / 100);
    push_passthrough (h2, &f, x, pos2, step, RATE / 100);
    g_usleep (100 * 1000);
    msgs_append (m1, msgs_collect (bus1, 0, 0));
    msgs_append (m2, msgs_collect (bus2, 0, 0));
    if (cpu < 0)
      cpu = device_kind (h2);
    if (cpu > 0)
      still = m2->spectrum->len >= 100 ? 10 : 0;
    else
      still = stats_u64 (h1->element, "host-intervals") > on_host ? 0 :
          still + 1;
    on_host = stats_u64 (h1->element, "host-intervals");
  }
  GST_INFO ("the second stream's device is %s", cpu > 0 ? "a CPU device" :
      "a GPU");
  fail_unless (still >= 10, cpu > 0 ? "the second stream never ran 10 s" :
      "the first stream never moved to the device");
  fail_unless (gst_harness_push_event (h1, gst_event_new_eos ()));
  fail_unless (gst_harness_push_event (h2, gst_event_new_eos ()));
  msgs_append (m1, msgs_collect (bus1, 0, 0));
  msgs_append (m2, msgs_collect (bus2, 0, 0));
  on_host = stats_u64 (h1->element, "host-intervals");
  GST_INFO ("first stream: %" G_GUINT64_FORMAT " of %u intervals on the "
      "host", on_host, m1->spectrum->len);
  if (cpu > 0) {
    fail_unless (on_host == m1->spectrum->len, "%" G_GUINT64_FORMAT " of %u "
        "intervals on the host, beside a CPU device", on_host,
        m1->spectrum->len);
  } else {
    fail_unless (on_host >= 10 && on_host + 10 <= m1->spectrum->len, "%"
        G_GUINT64_FORMAT " of %u intervals on the host", on_host,
        m1->spectrum->len);
  }
  check_live_messages (h1, m1, x, pos, "first stream");
  check_live_messages (h2, m2, x, pos2, "second stream");
  name = device_name (h1);
  if (cpu > 0) {
    fail_unless_equals_string (name, "CPU (host analysis)");
  } else {
    fail_unless (name != NULL && !g_str_equal (name, "CPU (host analysis)"),
        "the first stream's device: %s", name);
  }
  g_free (name);
  name = device_name (h2);
  fail_unless (name != NULL && !g_str_equal (name, "CPU (host analysis)"),
      "the second stream's device: %s", name);
  g_free (name);
  msgs_free (m1);
  msgs_free (m2);
  harness_free (h1, bus1);
  harness_free (h2, bus2);

  /* a GPU was opened in this process: a new stream uses one; a CPU
   * device: the new stream is on the host alone, the budget free again */
  h3 = harness_new (&bus3, caps, "interval", "100000000", "threshold",
      "-120", NULL);
  gst_harness_set_live (h3, TRUE);
  push_passthrough (h3, &f, x, 0, step, RATE / 100);
  name = device_name (h3);
  if (cpu > 0) {
    fail_unless_equals_string (name, "CPU (host analysis)");
  } else {
    fail_unless (name != NULL && !g_str_equal (name, "CPU (host analysis)"),
        "a stream after a device was opened: %s", name);
  }
  g_free (name);
  harness_free (h3, bus3);
  g_unsetenv ("GPUFFT_HOST_BUDGET");
  g_free (caps);
  g_free (x);
}

GST_END_TEST;

#define N_LIGHT 6

/* The default host budget (five such mono streams) and a sixth live
 * stream beyond it: the sixth is analysed on the host while the device it
 * opens is being opened. Where that device is a CPU device (lavapipe),
 * the CPU devices' budget takes it and all six stay on the host alone,
 * none on the device; where it is a GPU, all six move to it. Either way
 * every interval of each, within 0.001 dB of the Welch reference, none
 * dropped, no warning. The device's kind is learnt at the end, from a
 * stream that is not live (which always uses the device). */
GST_START_TEST (test_live_host_only_cpu_device)
{
  const gsize step = RATE / 10, n = 4 * RATE;
  Fmt f = { "F32LE", RATE, 1, FALSE };
  gchar *caps = fmt_caps_string (&f);
  gdouble *x = g_new0 (gdouble, n);
  GstBus *bus[N_LIGHT], *pbus;
  GstHarness *h[N_LIGHT], *probe;
  Msgs *m[N_LIGHT], *pm;
  guint64 on_host[N_LIGHT];
  gsize pos;
  gint i, cpu;

  gen_noise (x, n, 1, 0.01, 12);
  gen_tone (x, n, 1, 0.5, 1234.5, RATE, 0.2);
  fmt_quantize (&f, x, n);
  g_unsetenv ("GPUFFT_HOST_BUDGET");
  for (i = 0; i < N_LIGHT; i++) {
    h[i] = harness_new (&bus[i], caps, "interval", "100000000", "threshold",
        "-120", NULL);
    gst_harness_set_live (h[i], TRUE);
    m[i] = msgs_collect (bus[i], 0, 0);
  }
  for (pos = 0; pos < n; pos += step) {
    for (i = 0; i < N_LIGHT; i++) {
      push_passthrough (h[i], &f, x, pos, step, RATE / 100);
      msgs_append (m[i], msgs_collect (bus[i], 0, 0));
    }
    g_usleep (100 * 1000);
  }
  for (i = 0; i < N_LIGHT; i++) {
    gchar *who = g_strdup_printf ("stream %d", i + 1);

    fail_unless (gst_harness_push_event (h[i], gst_event_new_eos ()));
    msgs_append (m[i], msgs_collect (bus[i], 0, 0));
    on_host[i] = stats_u64 (h[i]->element, "host-intervals");
    check_live_messages (h[i], m[i], x, n, who);
    g_free (who);
  }

  /* the device's kind: a stream that is not live uses it */
  probe = harness_new (&pbus, caps, "interval", "100000000", NULL);
  push_passthrough (probe, &f, x, 0, RATE / 2, RATE / 100);
  fail_unless (gst_harness_push_event (probe, gst_event_new_eos ()));
  pm = msgs_collect (pbus, 0, 0);
  fail_unless_equals_int (pm->spectrum->len, 5);
  cpu = device_kind (probe);
  fail_unless (cpu >= 0);
  GST_INFO ("the device is %s", cpu ? "a CPU device" : "a GPU");
  for (i = 0; i < N_LIGHT; i++) {
    gchar *name = device_name (h[i]);

    GST_INFO ("stream %d: %" G_GUINT64_FORMAT " of %u intervals on the "
        "host, device %s", i + 1, on_host[i], m[i]->spectrum->len, name);
    if (cpu) {
      fail_unless (on_host[i] == m[i]->spectrum->len, "stream %d: %"
          G_GUINT64_FORMAT " of %u intervals on the host beside a CPU "
          "device", i + 1, on_host[i], m[i]->spectrum->len);
      fail_unless_equals_string (name, "CPU (host analysis)");
    } else {
      fail_unless (on_host[i] < m[i]->spectrum->len, "stream %d never "
          "moved to the GPU", i + 1);
      fail_unless (name != NULL && !g_str_equal (name, "CPU (host "
              "analysis)"), "stream %d's device: %s", i + 1, name);
    }
    g_free (name);
    msgs_free (m[i]);
    harness_free (h[i], bus[i]);
  }
  msgs_free (pm);
  harness_free (probe, pbus);
  g_setenv ("GPUFFT_HOST_BUDGET", "0", TRUE);
  g_free (caps);
  g_free (x);
}

GST_END_TEST;

#define SLOW_OPEN_MS 1500

/* A device whose opening takes 1.5 s (GPUFFT_DEBUG_SLOW_OPEN_MS, as a GPU
 * driver's cold start can), for a live stream not on the host alone: the
 * buffers pass on at once and untouched while it opens, and every
 * interval is posted (by the host start's plan: the device is not open
 * yet at EOS); a second element, with a device-index (opened at its
 * start), stopped while its device is still being opened, stops only
 * once the opening's driver calls have returned (an application that
 * exits right after must not exit under them). */
GST_START_TEST (test_slow_device_opening)
{
  const gsize chunk = RATE / 100, n = RATE / 2;
  Fmt f = { "F32LE", RATE, 2, FALSE };
  gchar *caps = fmt_caps_string (&f);
  gdouble *x = g_new0 (gdouble, n * 2);
  GstBus *bus;
  GstHarness *h;
  Msgs *m;
  gint64 t0, us;

  g_setenv ("GPUFFT_DEBUG_SLOW_OPEN_MS", G_STRINGIFY (SLOW_OPEN_MS), TRUE);
  /* (no stream on the host alone: the device is opened at the first
   * buffer) */
  g_setenv ("GPUFFT_HOST_BUDGET", "0", TRUE);
  gen_tone (x, n, 2, 0.5, 1000.0, RATE, 0.0);
  gen_tone (x + 1, n, 2, 0.25, 2000.0, RATE, 0.0);
  fmt_quantize (&f, x, n * 2);

  t0 = g_get_monotonic_time ();
  h = harness_new (&bus, caps, "interval", "100000000", NULL);
  gst_harness_set_live (h, TRUE);
  us = push_passthrough (h, &f, x, 0, n, chunk);
  fail_unless (g_get_monotonic_time () - t0 < SLOW_OPEN_MS * 1000 / 2,
      "the start or the buffers waited for the device (%" G_GINT64_FORMAT
      " us, %" G_GINT64_FORMAT " us pushing)", g_get_monotonic_time () - t0,
      us);
  /* (the host start: a host plan analyses them while the device opens) */
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  m = msgs_collect (bus, 0, 0);
  fail_unless_equals_int (m->errors->len, 0);
  fail_unless_equals_int (m->spectrum->len, 5);
  fail_unless_equals_uint64 (stats_u64 (h->element, "dropped-intervals"), 0);
  fail_unless_equals_uint64 (stats_u64 (h->element, "host-intervals"), 5);
  msgs_free (m);
  harness_free (h, bus);

  /* started with a device named by its index (opened at the start), and
   * stopped while it is being opened (no buffer: no plan waits for the
   * device) */
  t0 = g_get_monotonic_time ();
  h = harness_new (&bus, caps, "interval", "100000000", "device-index", "0",
      NULL);
  /* (the opening under way on a worker: one that had not begun would be
   * skipped, with no driver call to wait for) */
  g_usleep (200 * 1000);
  harness_free (h, bus);
  fail_unless (g_get_monotonic_time () - t0 >= SLOW_OPEN_MS * 1000,
      "the element stopped before its device's opening returned (%"
      G_GINT64_FORMAT " us)", g_get_monotonic_time () - t0);
  g_unsetenv ("GPUFFT_DEBUG_SLOW_OPEN_MS");
  g_unsetenv ("GPUFFT_HOST_BUDGET");
  g_free (caps);
  g_free (x);
}

GST_END_TEST;

/* A stream that is not live, whose plan takes 3 s to make: its buffers
 * pass on at once and untouched until one completes an interval (1 s
 * here), nothing is posted meanwhile; that buffer waits for the plan, and
 * the interval's message comes without more data. EOS posts the second
 * interval. Timestamps and spectra (of noise) are those of the same
 * stream with a plan made at once (within 0.001 dB: the batches
 * differ). */
GST_START_TEST (test_nonlive_slow_plan)
{
  const gsize chunk = RATE / 100, n = 2 * RATE;
  Fmt f = { "F32LE", RATE, 2, FALSE };
  gchar *caps = fmt_caps_string (&f);
  gdouble *x = g_new0 (gdouble, n * 2);
  Msgs *m[2];
  gint run;
  guint i, k;

  /* (noise: a sample lost, doubled or moved changes the spectra) */
  gen_noise (x, n * 2, 1, 0.3, 5);
  fmt_quantize (&f, x, n * 2);
  for (run = 0; run < 2; run++) {
    GstBus *bus;
    GstHarness *h;
    gint64 us;

    if (run == 1)
      g_setenv ("GPUFFT_DEBUG_SLOW_PLAN_MS", G_STRINGIFY (SLOW_PLAN_MS), TRUE);
    h = harness_new (&bus, caps, "interval", "1000000000", NULL);
    us = push_passthrough (h, &f, x, 0, RATE - chunk, chunk);
    m[run] = msgs_collect (bus, 0, 0);
    if (run == 1) {
      fail_unless (us < SLOW_PLAN_MS * 1000 / 2, "the buffers waited for "
          "the plan (%" G_GINT64_FORMAT " us)", us);
      fail_unless_equals_int (m[run]->spectrum->len, 0);
    }
    /* the buffer that completes the first interval */
    us = push_passthrough (h, &f, x, RATE - chunk, chunk, chunk);
    if (run == 1)
      fail_unless (us > SLOW_PLAN_MS * 1000 / 3, "the buffer that completes "
          "an interval did not wait for the plan (%" G_GINT64_FORMAT " us)",
          us);
    msgs_append (m[run], msgs_collect (bus, 1, 30));
    fail_unless_equals_int (m[run]->spectrum->len, 1);
    push_passthrough (h, &f, x, RATE, n - RATE, chunk);
    fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
    msgs_append (m[run], msgs_collect (bus, 0, 0));
    fail_unless_equals_int (m[run]->errors->len, 0);
    fail_unless_equals_int (m[run]->spectrum->len, 2);
    fail_unless_equals_uint64 (stats_u64 (h->element, "dropped-intervals"), 0);
    harness_free (h, bus);
    g_unsetenv ("GPUFFT_DEBUG_SLOW_PLAN_MS");
  }
  for (i = 0; i < 2; i++) {
    const GstStructure *a = g_ptr_array_index (m[0]->spectrum, i);
    const GstStructure *b = g_ptr_array_index (m[1]->spectrum, i);
    guint ca = 0, cb = 0, na = 0, nb = 0;
    gfloat *ma = msg_floats (a, "magnitude", &ca, &na, NULL);
    gfloat *mb = msg_floats (b, "magnitude", &cb, &nb, NULL);

    fail_unless_equals_uint64 (msg_u64 (b, "timestamp"), i * GST_SECOND);
    fail_unless_equals_uint64 (msg_u64 (a, "timestamp"),
        msg_u64 (b, "timestamp"));
    fail_unless_equals_int (ca * na, cb * nb);
    fail_unless (na > 0);
    for (k = 0; k < ca * na; k++)
      fail_unless (fabs (ma[k] - mb[k]) <= 1e-3, "interval %u bin %u: "
          "%g dB with the plan made at once, %g after waiting", i, k,
          ma[k], mb[k]);
    g_free (ma);
    g_free (mb);
  }
  msgs_free (m[0]);
  msgs_free (m[1]);
  g_free (caps);
  g_free (x);
}

GST_END_TEST;

/* The host lead (GPUFFT_HOST_LEAD, 4 s by default; 0 in the tests'
 * environment): a stream that is not live starts on a host plan. A short
 * one (half a second) opens no device: device-name reads the host's, no
 * device is in use, every interval was the host's, and each matches the
 * double-precision Welch reference within 0.001 dB. A longer one with a
 * lead of 1 s: the device's plan takes over at the same interval whether
 * it is made at once or takes 3 s (the stream waits for it at the lead's
 * end), and the two runs' messages are the same, bit for bit; every
 * interval, host and device alike, matches the reference, none dropped. */
GST_START_TEST (test_nonlive_host_lead)
{
  const gsize chunk = RATE / 100, n = 3 * RATE, shortn = RATE / 2;
  Fmt f = { "F32LE", RATE, 1, FALSE };
  gchar *caps = fmt_caps_string (&f);
  gdouble *x = g_new0 (gdouble, n);
  GPtrArray *runs[2];
  guint64 on_host[2];
  GstBus *bus;
  GstHarness *h;
  Msgs *m;
  gchar *name;
  gint run;
  guint i;

  gen_noise (x, n, 1, 0.01, 11);
  gen_tone (x, n, 1, 0.5, 1234.5, RATE, 0.3);
  fmt_quantize (&f, x, n);

  /* a short stream, the default lead */
  g_unsetenv ("GPUFFT_HOST_LEAD");
  h = harness_new (&bus, caps, "interval", "100000000", "threshold", "-120",
      NULL);
  push_passthrough (h, &f, x, 0, shortn, chunk);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  m = msgs_collect (bus, 0, 0);
  name = device_name (h);
  fail_unless_equals_string (name, "CPU (host analysis)");
  g_free (name);
  fail_unless_equals_int (device_kind (h), -1);
  fail_unless_equals_uint64 (stats_u64 (h->element, "host-intervals"), 5);
  check_live_messages (h, m, x, shortn, "a short stream");
  msgs_free (m);
  harness_free (h, bus);

  /* the device's plan takes over at the lead's end, made at once or late */
  g_setenv ("GPUFFT_HOST_LEAD", "1", TRUE);
  for (run = 0; run < 2; run++) {
    if (run == 1)
      g_setenv ("GPUFFT_DEBUG_SLOW_PLAN_MS", G_STRINGIFY (SLOW_PLAN_MS), TRUE);
    h = harness_new (&bus, caps, "interval", "100000000", "threshold",
        "-120", NULL);
    push_passthrough (h, &f, x, 0, n, chunk);
    fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
    m = msgs_collect (bus, 0, 0);
    on_host[run] = stats_u64 (h->element, "host-intervals");
    fail_unless (on_host[run] >= 9 && on_host[run] <= 11, "%"
        G_GUINT64_FORMAT " intervals on the host with a lead of 1 s",
        on_host[run]);
    fail_unless_equals_int (device_kind (h), 1);
    check_live_messages (h, m, x, n, run ? "a late plan" : "a plan at once");
    runs[run] = messages_as_strings (m);
    msgs_free (m);
    harness_free (h, bus);
    g_unsetenv ("GPUFFT_DEBUG_SLOW_PLAN_MS");
  }
  fail_unless_equals_uint64 (on_host[0], on_host[1]);
  fail_unless_equals_int (runs[0]->len, runs[1]->len);
  for (i = 0; i < runs[0]->len; i++)
    fail_unless_equals_string (g_ptr_array_index (runs[0], i),
        g_ptr_array_index (runs[1], i));
  g_ptr_array_unref (runs[0]);
  g_ptr_array_unref (runs[1]);
  g_setenv ("GPUFFT_HOST_LEAD", "0", TRUE);
  g_free (caps);
  g_free (x);
}

GST_END_TEST;

/* ---- a flush or a stop while a stream that is not live waits for its
 * plan ------------------------------------------------------------------- */

#define WAIT_PLAN_MS 6000

typedef struct
{
  GstHarness *h;
  GstBuffer *buf;
  GMutex lock;
  GCond cond;
  gboolean done;
} Pusher;

static gpointer
pusher_thread (gpointer data)
{
  Pusher *p = data;

  gst_harness_push (p->h, p->buf);
  g_mutex_lock (&p->lock);
  p->done = TRUE;
  g_cond_signal (&p->cond);
  g_mutex_unlock (&p->lock);
  return NULL;
}

/* Pushes buf on a thread of its own (it waits for the plan), runs
 * interrupt, and checks that the push returned well before the plan could
 * be ready. */
static void
push_then_interrupt (GstHarness * h, GstBuffer * buf,
    void (*interrupt) (GstHarness *), const gchar * what)
{
  Pusher p = { h, buf };
  GThread *t;
  gint64 end;
  gboolean done;

  g_mutex_init (&p.lock);
  g_cond_init (&p.cond);
  t = g_thread_new ("pusher", pusher_thread, &p);
  g_usleep (300 * 1000);
  g_mutex_lock (&p.lock);
  fail_if (p.done, "%s: the push did not wait for the plan", what);
  g_mutex_unlock (&p.lock);
  interrupt (h);
  end = g_get_monotonic_time () + (WAIT_PLAN_MS - 2000) * 1000;
  g_mutex_lock (&p.lock);
  while (!p.done && g_cond_wait_until (&p.cond, &p.lock, end));
  done = p.done;
  g_mutex_unlock (&p.lock);
  fail_unless (done, "%s: the streaming thread kept waiting for the plan",
      what);
  g_thread_join (t);
  g_mutex_clear (&p.lock);
  g_cond_clear (&p.cond);
}

static void
flush_start (GstHarness * h)
{
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
}

static void
stop_element (GstHarness * h)
{
  fail_unless_equals_int (gst_element_set_state (h->element,
          GST_STATE_NULL), GST_STATE_CHANGE_SUCCESS);
}

/* A stream that is not live waits for its plan (6 s to make here,
 * GPUFFT_DEBUG_SLOW_PLAN_MS) where it must: gpufftspectrum at the buffer
 * that completes an interval (here one that also fills its store past
 * PLAN_WAIT, 30 s; a first 20 ms buffer passes at once),
 * gpufftspectrogram at once (its frames need the analysis). A flushing
 * seek (FLUSH_START) lets the waiting streaming thread go at once, and so
 * does a stop (to NULL, which must take the stream lock), for both; after
 * the flush the stream waits for the plan again. */
static void
interrupted_plan_wait (const gchar * element)
{
  Fmt f = { "F32LE", RATE, 2, FALSE };
  gchar *caps = fmt_caps_string (&f);
  gboolean store = g_str_equal (element, "gpufftspectrum");
  /* (the buffer that must wait: past the store's 30 s for gpufftspectrum) */
  gsize n = store ? 31 * RATE : RATE / 5;
  gdouble *zeros = g_new0 (gdouble, n * 2);
  GstHarness *h = gst_harness_new (element);
  gint pass;

  g_setenv ("GPUFFT_DEBUG_SLOW_PLAN_MS", G_STRINGIFY (WAIT_PLAN_MS), TRUE);
  gst_harness_set_live (h, FALSE);
  gst_harness_set_src_caps_str (h, caps);
  if (!store)
    gst_harness_set_sink_caps_str (h, "video/x-raw, format=RGBA, "
        "width=160, height=120, framerate=10/1");
  for (pass = 0; pass < 2; pass++) {
    GstClockTime pts = 0;

    if (store) {
      /* a first buffer (within the first interval) passes on while the
       * plan is made */
      gint64 t0 = g_get_monotonic_time ();

      fail_unless_equals_int (gst_harness_push (h, fmt_make_buffer (&f,
                  zeros, RATE / 50, 0)), GST_FLOW_OK);
      gst_buffer_unref (gst_harness_pull (h));
      fail_unless (g_get_monotonic_time () - t0 < (WAIT_PLAN_MS - 2000) *
          1000, "the first buffer waited for the plan");
      pts = GST_SECOND / 50;
    }
    push_then_interrupt (h, fmt_make_buffer (&f, zeros, n, pts),
        pass == 0 ? flush_start : stop_element, pass == 0 ? "flush" : "stop");
    if (pass == 0) {
      GstSegment seg;

      fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
      gst_segment_init (&seg, GST_FORMAT_TIME);
      fail_unless (gst_harness_push_event (h, gst_event_new_segment (&seg)));
      /* (the harness keeps what passed before the flush) */
      while (gst_harness_buffers_in_queue (h) > 0)
        gst_buffer_unref (gst_harness_pull (h));
    }
  }
  gst_harness_teardown (h);
  g_unsetenv ("GPUFFT_DEBUG_SLOW_PLAN_MS");
  g_free (zeros);
  g_free (caps);
}

GST_START_TEST (test_flush_and_stop_while_plan_made)
{
  interrupted_plan_wait ("gpufftspectrum");
  interrupted_plan_wait ("gpufftspectrogram");
}

GST_END_TEST;

static Suite *
streams_suite (void)
{
  Suite *s = suite_create ("gpufftspectrum-streams");
  TCase *tc = tcase_create ("streams");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_many_elements_mixed_geometries);
  tcase_add_test (tc, test_eos_with_work_in_flight);
  tcase_add_test (tc, test_streams_come_and_go);
  tcase_add_test (tc, test_live_falls_behind);
  tcase_add_test (tc, test_live_falls_behind_unaligned);
  tcase_add_test (tc, test_live_slow_plan);
  tcase_add_test (tc, test_live_host_start);
  tcase_add_test (tc, test_live_host_only);
  tcase_add_test (tc, test_live_host_only_cpu_device);
  tcase_add_test (tc, test_live_slow_plan_discont);
  tcase_add_test (tc, test_nonlive_slow_plan);
  tcase_add_test (tc, test_nonlive_host_lead);
  tcase_add_test (tc, test_slow_device_opening);
  tcase_add_test (tc, test_flush_and_stop_while_plan_made);
  return s;
}

GST_CHECK_MAIN (streams);
