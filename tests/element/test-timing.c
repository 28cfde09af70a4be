/* Message count, contiguous timestamps and the time/geometry fields; no
 * frame skipped at interval ends; the partial interval at EOS; DISCONT,
 * FLUSH and new segments (pending interval posted, framing restarts, no
 * sample from before reaches a frame after); a burst at an interval end. */
#include "gpufft-test-common.h"

static void
props_of (const RefConfig * c, gint threshold, gchar ** v)
{
  v[0] = g_strdup_printf ("%u", c->fft_size);
  v[1] = g_strdup_printf ("%u", c->hop);
  v[2] = g_strdup_printf ("%" G_GUINT64_FORMAT, c->interval);
  v[3] = g_strdup_printf ("%d", threshold);
}

static GstHarness *
harness_for (const RefConfig * c, gint threshold, GstBus ** bus,
    const Fmt * f)
{
  gchar *v[4], *caps = fmt_caps_string (f);
  GstHarness *h;
  guint i;

  props_of (c, threshold, v);
  h = harness_new (bus, caps, "fft-size", v[0], "hop-size", v[1],
      "interval", v[2], "threshold", v[3], "window",
      ref_window_nick[c->window], NULL);
  for (i = 0; i < 4; i++)
    g_free (v[i]);
  g_free (caps);
  return h;
}

static guint
total_frames (GPtrArray * refs)
{
  guint i, t = 0;

  for (i = 0; i < refs->len; i++)
    t += ((RefInterval *) g_ptr_array_index (refs, i))->frames;
  return t;
}

/* timestamp + duration == next timestamp, exactly, between adjacent
 * intervals */
static void
check_contiguous (Msgs * m, GPtrArray * refs, guint first_msg)
{
  guint i;

  for (i = 0; i + 1 < refs->len; i++) {
    RefInterval *a = g_ptr_array_index (refs, i);
    RefInterval *b = g_ptr_array_index (refs, i + 1);
    const GstStructure *sa = g_ptr_array_index (m->spectrum, first_msg + i);
    const GstStructure *sb = g_ptr_array_index (m->spectrum, first_msg + i + 1);
    if (a->end != b->first)
      continue;
    fail_unless_equals_uint64 (msg_u64 (sa, "timestamp") + msg_u64 (sa,
            "duration"), msg_u64 (sb, "timestamp"));
  }
}

static void
stream_and_check (const RefConfig * c, gsize n, gsize chunk,
    GstClockTime ts0, gboolean * saw_gap)
{
  Fmt f = { "F32LE", c->rate, 1, FALSE };
  gdouble *x = g_new0 (gdouble, n);
  GPtrArray *refs;
  GstHarness *h;
  GstBus *bus;
  Msgs *m;
  guint i;

  gen_noise (x, n, 1, 0.1, 42);
  gen_tone (x, n, 1, 0.5, 3000, c->rate, 0);
  fmt_quantize (&f, x, n);
  refs = ref_welch (c, x, n);
  h = harness_for (c, -120, &bus, &f);
  push_samples (h, &f, x, n, chunk, ts0, FALSE);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  m = msgs_collect (bus, refs->len, 120);
  fail_unless_equals_int (m->errors->len, 0);
  fail_unless_equals_int (m->spectrum->len, refs->len);
  fail_unless_equals_int (m->dominant->len, refs->len);
  /* no frame is skipped: every complete frame is in some message */
  fail_unless_equals_int (total_frames (refs), (n - c->fft_size) / c->hop
      + 1);
  for (i = 0; i < refs->len; i++) {
    RefInterval *r = g_ptr_array_index (refs, i);
    const GstStructure *s = g_ptr_array_index (m->spectrum, i);
    const GstStructure *d = g_ptr_array_index (m->dominant, i);
    gfloat *got = msg_floats (s, "magnitude", NULL, NULL, NULL);

    check_spectrum_fields (s, c, r, ts0, 1);
    fail_unless_equals_uint64 (msg_u64 (d, "timestamp"), msg_u64 (s,
            "timestamp"));
    fail_unless_equals_uint64 (msg_u64 (d, "duration"), msg_u64 (s,
            "duration"));
    compare_db (c, got, r->power, -120, 0.01, "timing");
    g_free (got);
    if (i > 0 && ((RefInterval *) g_ptr_array_index (refs, i - 1))->end !=
        r->first && saw_gap)
      *saw_gap = TRUE;
  }
  check_contiguous (m, refs, 0);
  msgs_free (m);
  harness_free (h, bus);
  g_ptr_array_unref (refs);
  g_free (x);
}

/* 33 333 333 ns at 44100 Hz is 1469.99998 samples: boundaries are rounded
 * sample counts; hop 200 does not divide anything; PTS start at 1 s */
GST_START_TEST (test_timestamps_contiguous)
{
  RefConfig c = { 512, 200, REF_HANN, FALSE, 44100, 33333333 };

  stream_and_check (&c, 22050 + 137, 1000, GST_SECOND, NULL);
}

GST_END_TEST;

/* interval shorter than the hop: some intervals hold no frame and post
 * nothing, none of the frames is lost */
GST_START_TEST (test_frames_not_skipped)
{
  RefConfig c = { 1024, 512, REF_HANN, FALSE, 48000, 10 * GST_MSECOND };
  gboolean gap = FALSE;

  stream_and_check (&c, 9600, 777, 0, &gap);
  fail_unless (gap, "test geometry should leave empty intervals");
}

GST_END_TEST;

/* hop-size 0 means fft-size/2, reported as such */
GST_START_TEST (test_hop_default)
{
  Fmt f = { "F32LE", 48000, 1, FALSE };
  gchar *caps = fmt_caps_string (&f);
  gdouble *x = g_new0 (gdouble, 4800);
  GstBus *bus;
  GstHarness *h = harness_new (&bus, caps, "fft-size", "256", NULL);
  Msgs *m;
  guint hop = 1;

  g_object_get (h->element, "hop-size", &hop, NULL);
  fail_unless_equals_int (hop, 0);
  gen_tone (x, 4800, 1, 0.5, 1000, 48000, 0);
  push_samples (h, &f, x, 4800, 4800, 0, FALSE);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  m = msgs_collect (bus, 1, 60);
  fail_unless_equals_int (m->spectrum->len, 1);
  fail_unless_equals_int (msg_uint (g_ptr_array_index (m->spectrum, 0),
          "hop-size"), 128);
  /* (4800 - 256) / 128 + 1 frames in the single 100 ms interval */
  fail_unless_equals_int (msg_uint (g_ptr_array_index (m->spectrum, 0),
          "frames"), 36);
  msgs_free (m);
  harness_free (h, bus);
  g_free (x);
  g_free (caps);
}

GST_END_TEST;

GST_START_TEST (test_eos_partial_interval)
{
  RefConfig c = { 1024, 512, REF_HANN, FALSE, 48000, 100 * GST_MSECOND };
  Fmt f = { "F32LE", 48000, 1, FALSE };
  gsize n = 4800 * 2 + 2000;
  gdouble *x = g_new0 (gdouble, n);
  GPtrArray *refs;
  GstHarness *h;
  GstBus *bus;
  Msgs *m;
  const GstStructure *last;

  gen_tone (x, n, 1, 0.5, 2000, 48000, 0);
  fmt_quantize (&f, x, n);
  refs = ref_welch (&c, x, n);
  fail_unless_equals_int (refs->len, 3);
  h = harness_for (&c, -90, &bus, &f);
  push_samples (h, &f, x, n, 1000, 0, FALSE);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  m = msgs_collect (bus, 3, 60);
  fail_unless_equals_int (m->spectrum->len, 3);
  last = g_ptr_array_index (m->spectrum, 2);
  check_spectrum_fields (last, &c, g_ptr_array_index (refs, 2), 0, 1);
  fail_unless_equals_int (msg_uint (last, "frames"), 4);
  fail_unless_equals_uint64 (msg_u64 (last, "timestamp"), 200 * GST_MSECOND);
  /* the span actually covered: 2000 samples */
  fail_unless (msg_u64 (last, "duration") + 1 >= 41666667 &&
      msg_u64 (last, "duration") <= 41666667 + 1, "duration %"
      G_GUINT64_FORMAT, msg_u64 (last, "duration"));
  {
    gfloat *got = msg_floats (last, "magnitude", NULL, NULL, NULL);
    RefInterval *r = g_ptr_array_index (refs, 2);
    compare_db (&c, got, r->power, -90, 0.01, "EOS partial");
    g_free (got);
  }
  msgs_free (m);
  harness_free (h, bus);
  g_ptr_array_unref (refs);
  g_free (x);
}

GST_END_TEST;

typedef enum
{
  SEP_DISCONT,
  SEP_FLUSH,
  SEP_SEGMENT
} Separator;

/* 7000 samples with a loud tone in 6000..6999, then (after the separator)
 * 9600 samples of silence: the interval pending at the separator (4
 * frames, 2 of them loud) is posted, frame 12 (6144..7167) is never
 * completed, and everything after reads silence. */
static void
restart_case (Separator sep)
{
  RefConfig c = { 1024, 512, REF_HANN, FALSE, 48000, 100 * GST_MSECOND };
  Fmt f = { "F32LE", 48000, 1, FALSE };
  gsize n1 = 7000, n2 = 9600, i;
  gdouble *x1 = g_new0 (gdouble, n1), *x2 = g_new0 (gdouble, n2);
  GstClockTime ts2 = (sep == SEP_FLUSH) ? 0 : 2 * GST_SECOND;
  GPtrArray *r1, *r2;
  GstHarness *h;
  GstBus *bus;
  Msgs *m;
  guint k;

  gen_tone (x1 + 6000, 1000, 1, 0.5, 3000, 48000, 0);
  gen_noise (x1, 6000, 1, 1e-3, 8);
  fmt_quantize (&f, x1, n1);
  r1 = ref_welch (&c, x1, n1);
  r2 = ref_welch (&c, x2, n2);
  fail_unless_equals_int (r1->len, 2);
  fail_unless_equals_int (((RefInterval *) g_ptr_array_index (r1, 1))->frames,
      4);
  fail_unless_equals_int (r2->len, 2);

  h = harness_for (&c, -90, &bus, &f);
  push_samples (h, &f, x1, n1, 1000, 0, FALSE);
  if (sep == SEP_FLUSH) {
    GstSegment seg;
    fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
    fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
    gst_segment_init (&seg, GST_FORMAT_TIME);
    fail_unless (gst_harness_push_event (h, gst_event_new_segment (&seg)));
  } else if (sep == SEP_SEGMENT) {
    GstSegment seg;
    gst_segment_init (&seg, GST_FORMAT_TIME);
    fail_unless (gst_harness_push_event (h, gst_event_new_segment (&seg)));
  }
  push_samples (h, &f, x2, n2, 1000, ts2, sep == SEP_DISCONT);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  m = msgs_collect (bus, 4, 60);
  fail_unless_equals_int (m->errors->len, 0);
  fail_unless_equals_int (m->spectrum->len, 4);
  fail_unless_equals_int (m->dominant->len, 4);

  for (k = 0; k < 4; k++) {
    const GstStructure *s = g_ptr_array_index (m->spectrum, k);
    RefInterval *r = g_ptr_array_index (k < 2 ? r1 : r2, k % 2);
    gfloat *got = msg_floats (s, "magnitude", NULL, NULL, NULL);
    gdouble freq = msg_double (g_ptr_array_index (m->dominant, k),
        "frequency");

    check_spectrum_fields (s, &c, r, k < 2 ? 0 : ts2, 1);
    compare_db (&c, got, r->power, -90, 0.01, k < 2 ? "before" : "after");
    if (k == 1) {
      /* 2 of 4 frames partly hold the tone: about -14.4 dB */
      fail_unless (got[64] > -20, "pending interval lost its tone: %.2f dB",
          got[64]);
      fail_unless (fabs (freq - 3000) < 0.5 * 48000 / 1024,
          "pending: dominant %.3f Hz", freq);
    }
    if (k >= 2) {
      for (i = 0; i <= 512; i++)
        fail_unless (got[i] == -90.0f, "message %u after the restart, bin %u "
            "reads %.3f dB: samples from before leaked", k, (guint) i,
            got[i]);
      fail_unless (freq == 0.0);
    }
    g_free (got);
  }
  msgs_free (m);
  harness_free (h, bus);
  g_ptr_array_unref (r1);
  g_ptr_array_unref (r2);
  g_free (x1);
  g_free (x2);
}

GST_START_TEST (test_discont)
{
  restart_case (SEP_DISCONT);
}

GST_END_TEST;

GST_START_TEST (test_flush)
{
  restart_case (SEP_FLUSH);
}

GST_END_TEST;

GST_START_TEST (test_new_segment)
{
  restart_case (SEP_SEGMENT);
}

GST_END_TEST;

/* a burst in the last 10 samples of interval 0: the frames holding it end
 * in interval 1, so interval 0 reads silence and interval 1 the burst */
GST_START_TEST (test_burst_at_interval_end)
{
  RefConfig c = { 256, 128, REF_HANN, FALSE, 48000, 10 * GST_MSECOND };
  Fmt f = { "F32LE", 48000, 1, FALSE };
  gsize n = 1920, i;
  gdouble *x = g_new0 (gdouble, n);
  GPtrArray *refs;
  GstHarness *h;
  GstBus *bus;
  Msgs *m;
  gfloat *v0, *v1, mx = -1000;

  gen_tone (x + 470, 10, 1, 0.8, 6000, 48000, 0);
  fmt_quantize (&f, x, n);
  refs = ref_welch (&c, x, n);
  fail_unless_equals_int (refs->len, 4);
  h = harness_for (&c, -90, &bus, &f);
  push_samples (h, &f, x, n, 480, 0, FALSE);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  m = msgs_collect (bus, 4, 60);
  fail_unless_equals_int (m->spectrum->len, 4);
  for (i = 0; i < 4; i++) {
    gfloat *got = msg_floats (g_ptr_array_index (m->spectrum, i), "magnitude",
        NULL, NULL, NULL);
    RefInterval *r = g_ptr_array_index (refs, i);
    check_spectrum_fields (g_ptr_array_index (m->spectrum, i), &c, r, 0, 1);
    compare_db (&c, got, r->power, -90, 0.01, "burst");
    g_free (got);
  }
  v0 = msg_floats (g_ptr_array_index (m->spectrum, 0), "magnitude", NULL,
      NULL, NULL);
  v1 = msg_floats (g_ptr_array_index (m->spectrum, 1), "magnitude", NULL,
      NULL, NULL);
  for (i = 0; i <= 128; i++) {
    fail_unless (v0[i] == -90.0f, "interval 0 bin %u: %.3f dB", (guint) i,
        v0[i]);
    mx = MAX (mx, v1[i]);
  }
  fail_unless (mx > -60, "burst missing from interval 1 (max %.2f dB)", mx);
  g_free (v0);
  g_free (v1);
  msgs_free (m);
  harness_free (h, bus);
  g_ptr_array_unref (refs);
  g_free (x);
}

GST_END_TEST;

/* A geometry set while interval 2 is in progress (after sample 1000)
 * applies at once: interval 2 closes at sample 1000 (it holds no frame: no
 * message) and the new 512-point frames start there. */
GST_START_TEST (test_geometry_change_at_once)
{
  RefConfig c = { 256, 128, REF_HANN, FALSE, 48000, 10 * GST_MSECOND };
  Fmt f = { "F32LE", 48000, 1, FALSE };
  gsize n = 2880, i;
  gdouble *x = g_new0 (gdouble, n);
  GstHarness *h;
  GstBus *bus;
  Msgs *m;

  gen_tone (x, n, 1, 0.5, 3000, 48000, 0);
  fmt_quantize (&f, x, n);
  h = harness_for (&c, -90, &bus, &f);
  push_samples (h, &f, x, 1000, 1000, 0, FALSE);
  g_object_set (h->element, "fft-size", 512, NULL);
  gst_util_set_object_arg (G_OBJECT (h->element), "window", "blackman");
  push_samples (h, &f, x + 1000, n - 1000, 1000,
      gst_util_uint64_scale_int_round (1000, GST_SECOND, 48000), FALSE);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  /* (everything is posted before EOS leaves the element) */
  m = msgs_collect (bus, 0, 0);
  fail_unless_equals_int (m->errors->len, 0);
  for (i = 0; i < m->spectrum->len; i++)
    GST_INFO ("message %u: ts %" G_GUINT64_FORMAT " frames %u", (guint) i,
        msg_u64 (g_ptr_array_index (m->spectrum, i), "timestamp"),
        msg_uint (g_ptr_array_index (m->spectrum, i), "frames"));
  /* intervals 0 and 1 at 256 points, interval 2 closed at the change with
   * no frame, then three at 512 points from sample 1000 */
  fail_unless_equals_int (m->spectrum->len, 5);
  for (i = 0; i < m->spectrum->len; i++) {
    const GstStructure *s = g_ptr_array_index (m->spectrum, i);
    guint64 ts = msg_u64 (s, "timestamp");
    gboolean before = ts < gst_util_uint64_scale_int_round (1000,
        GST_SECOND, 48000);
    guint nb;
    gfloat *v = msg_floats (s, "magnitude", NULL, &nb, NULL);

    fail_unless_equals_int (msg_uint (s, "fft-size"), before ? 256 : 512);
    fail_unless_equals_string (gst_structure_get_string (s, "window"),
        before ? "hann" : "blackman");
    fail_unless_equals_int (nb, before ? 129 : 257);
    /* the 3 kHz tone is where it should be at either size */
    fail_unless (fabs (v[before ? 16 : 32] - 20 * log10 (0.5)) < 0.01,
        "interval at %" G_GUINT64_FORMAT " ns: tone reads %.3f dB", ts,
        v[before ? 16 : 32]);
    g_free (v);
  }
  msgs_free (m);
  harness_free (h, bus);
  g_free (x);
}

GST_END_TEST;

/* A smaller fft-size takes effect at the change (91.7 ms), even where the
 * old, larger frames would have left intervals empty: from there on every
 * interval has its message, back to back. */
GST_START_TEST (test_geometry_shrink_no_gap)
{
  RefConfig c = { 4096, 4096, REF_HANN, FALSE, 48000, 10 * GST_MSECOND };
  Fmt f = { "F32LE", 48000, 1, FALSE };
  gsize n = 30000, i;
  gdouble *x = g_new0 (gdouble, n);
  GstHarness *h;
  GstBus *bus;
  Msgs *m;
  const GstStructure *prev = NULL;

  gen_tone (x, n, 1, 0.5, 3000, 48000, 0);
  fmt_quantize (&f, x, n);
  h = harness_for (&c, -90, &bus, &f);
  /* to 91.7 ms: interval 8 (80-90 ms) holds the first 4096 frame and is
   * complete; the next 4096 frame would end in interval 17 (170-180 ms) */
  push_samples (h, &f, x, 4400, 4400, 0, FALSE);
  g_object_set (h->element, "fft-size", 256, "hop-size", 128, NULL);
  /* the rest in one buffer, so that the element sees intervals 9..62 at
   * once: the new size must start at 100 ms, not at 170 ms */
  push_samples (h, &f, x + 4400, n - 4400, n - 4400,
      gst_util_uint64_scale_int_round (4400, GST_SECOND, 48000), FALSE);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  m = msgs_collect (bus, 20, 60);
  fail_unless_equals_int (m->errors->len, 0);
  for (i = 0; i < m->spectrum->len; i++) {
    const GstStructure *s = g_ptr_array_index (m->spectrum, i);

    if (msg_uint (s, "fft-size") != 256)
      continue;
    if (prev == NULL) {
      fail_unless_equals_uint64 (msg_u64 (s, "timestamp"),
          gst_util_uint64_scale_int_round (4400, GST_SECOND, 48000));
    } else {
      fail_unless_equals_uint64 (msg_u64 (s, "timestamp"),
          msg_u64 (prev, "timestamp") + msg_u64 (prev, "duration"));
    }
    prev = s;
  }
  fail_unless (prev != NULL, "no message with the new fft-size");
  msgs_free (m);
  harness_free (h, bus);
  g_free (x);
}

GST_END_TEST;

/* a message is not held back until more data comes: once an interval is
 * complete its message arrives (after the GPU time) with no further buffer
 * and no EOS, as a live monitor needs */
GST_START_TEST (test_message_without_more_data)
{
  RefConfig c = { 512, 256, REF_HANN, FALSE, 48000, 50 * GST_MSECOND };
  Fmt f = { "F32LE", 48000, 1, FALSE };
  gsize n = 3 * 2400 + 1;
  gdouble *x = g_new0 (gdouble, n);
  GPtrArray *refs;
  GstHarness *h;
  GstBus *bus;
  Msgs *m;
  guint i;

  gen_tone (x, n, 1, 0.5, 1500, 48000, 0);
  fmt_quantize (&f, x, n);
  refs = ref_welch (&c, x, 3 * 2400);
  h = harness_for (&c, -90, &bus, &f);
  push_samples (h, &f, x, n, 600, 0, FALSE);
  m = msgs_collect (bus, 3, 60);
  fail_unless_equals_int (m->spectrum->len, 3);
  for (i = 0; i < 3; i++)
    check_spectrum_fields (g_ptr_array_index (m->spectrum, i), &c,
        g_ptr_array_index (refs, i), 0, 1);
  msgs_free (m);
  harness_free (h, bus);
  g_ptr_array_unref (refs);
  g_free (x);
}

GST_END_TEST;

/* New caps close the pending interval where the stream stands and restart
 * the framing. Buffers of 10 ms, the caps switching between F32 and S16
 * after 1 to 12, 21, 22 and 32 buffers (a partial interval from 10 ms to
 * whole intervals and more; frames of 1024 every 1024 samples, so that
 * the 10 ms at the start of the stream and those at the start of interval
 * 2, 9600..10079, hold no frame): every message's timestamp + duration is
 * the next one's timestamp, or the next one counts what lies between in
 * `dropped`; and a count only where something lies between. Not live,
 * and live (closed intervals only to the engine, the host start's plan
 * while each new plan is made). */
static void
caps_change_case (gboolean live)
{
  static const guint at[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 21, 22,
    32
  };
  Fmt f32 = { "F32LE", 48000, 1, FALSE }, s16 = { "S16LE", 48000, 1, FALSE };
  gchar *caps_f32 = fmt_caps_string (&f32), *caps_s16 = fmt_caps_string (&s16);
  const gsize chunk = 480;
  gdouble *x = g_new0 (gdouble, chunk * 32);
  guint64 sent = 0;
  GstHarness *h;
  GstBus *bus;
  Msgs *m;
  guint i, j, holes = 0;

  gen_tone (x, chunk * 32, 1, 0.5, 1000, 48000, 0);
  h = harness_new (&bus, caps_f32, "fft-size", "1024", "hop-size", "1024",
      "interval", "100000000", NULL);
  /* (live: the first intervals of each format on the host start's plan,
   * or dropped and counted while a plan is made) */
  gst_harness_set_live (h, live);
  for (i = 0; i < G_N_ELEMENTS (at); i++) {
    const Fmt *f = i % 2 ? &s16 : &f32;

    if (i > 0)
      gst_harness_set_src_caps_str (h, i % 2 ? caps_s16 : caps_f32);
    for (j = 0; j < at[i]; j++) {
      push_samples (h, f, x + j * chunk, chunk, chunk,
          gst_util_uint64_scale_int_round (sent, GST_SECOND, 48000), FALSE);
      sent += chunk;
    }
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  m = msgs_collect (bus, 0, 0);
  fail_unless_equals_int (m->errors->len, 0);
  fail_unless (m->spectrum->len > 10);
  for (i = 0; i < m->spectrum->len; i++) {
    const GstStructure *a = i > 0 ? g_ptr_array_index (m->spectrum, i - 1) :
        NULL;
    const GstStructure *b = g_ptr_array_index (m->spectrum, i);
    /* (the stream starts at 0) */
    guint64 end = a ? msg_u64 (a, "timestamp") + msg_u64 (a, "duration") : 0;
    guint dropped = 0;

    gst_structure_get_uint (b, "dropped", &dropped);
    GST_INFO ("message %u: %" G_GUINT64_FORMAT " + %" G_GUINT64_FORMAT
        ", %u frames, dropped %u", i, msg_u64 (b, "timestamp"),
        msg_u64 (b, "duration"), msg_uint (b, "frames"), dropped);
    fail_unless (end <= msg_u64 (b, "timestamp"), "message %u overlaps", i);
    if (end < msg_u64 (b, "timestamp")) {
      fail_unless (dropped > 0, "message %u: %" G_GUINT64_FORMAT " ns before "
          "it (from %" G_GUINT64_FORMAT ") in no message and not counted in "
          "`dropped`", i, msg_u64 (b, "timestamp") - end, end);
      holes++;
    } else {
      fail_unless_equals_int (dropped, 0);
    }
  }
  /* the last message ends where the stream does */
  if (!live) {
    const GstStructure *z = g_ptr_array_index (m->spectrum,
        m->spectrum->len - 1);

    fail_unless_equals_uint64 (msg_u64 (z, "timestamp") + msg_u64 (z,
            "duration"), gst_util_uint64_scale_int_round (sent, GST_SECOND,
            48000));
  }
  GST_INFO ("%s: %u messages, %u of them after something left out",
      live ? "live" : "not live", m->spectrum->len, holes);
  /* (after the first two restarts, and after the 21st buffer of a run;
   * live, perhaps more: intervals dropped while a plan is made) */
  if (live)
    fail_unless (holes >= 2);
  else
    fail_unless_equals_int (holes, 2);
  msgs_free (m);
  harness_free (h, bus);
  g_free (caps_f32);
  g_free (caps_s16);
  g_free (x);
}

GST_START_TEST (test_caps_change_no_hole)
{
  caps_change_case (FALSE);
}

GST_END_TEST;

GST_START_TEST (test_caps_change_no_hole_live)
{
  caps_change_case (TRUE);
}

GST_END_TEST;

static Suite *
timing_suite (void)
{
  Suite *s = suite_create ("gpufftspectrum-timing");
  TCase *tc = tcase_create ("timing");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_timestamps_contiguous);
  tcase_add_test (tc, test_frames_not_skipped);
  tcase_add_test (tc, test_hop_default);
  tcase_add_test (tc, test_eos_partial_interval);
  tcase_add_test (tc, test_discont);
  tcase_add_test (tc, test_flush);
  tcase_add_test (tc, test_new_segment);
  tcase_add_test (tc, test_burst_at_interval_end);
  tcase_add_test (tc, test_geometry_change_at_once);
  tcase_add_test (tc, test_geometry_shrink_no_gap);
  tcase_add_test (tc, test_message_without_more_data);
  tcase_add_test (tc, test_caps_change_no_hole);
  tcase_add_test (tc, test_caps_change_no_hole_live);
  return s;
}

GST_CHECK_MAIN (timing);
