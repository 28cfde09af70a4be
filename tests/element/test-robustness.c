/* Bad input and misuse: empty buffers, no timestamps, odd buffer sizes,
 * NaN/Inf, renegotiation, state cycles, huge channel counts, bad property
 * values, device-index out of range, property changes from a synchronous
 * bus handler (no deadlock). */
#include "gpufft-test-common.h"

/* pushes x in pieces whose sizes cycle through sizes[]; PTS from 0 unless
 * no_pts; an empty buffer after each piece when empties */
static void
push_pieces (GstHarness * h, const Fmt * f, const gdouble * x, gsize n,
    const gsize * sizes, guint n_sizes, gboolean no_pts, gboolean empties)
{
  gsize off = 0;
  guint k = 0;

  while (off < n) {
    gsize want = sizes[k++ % n_sizes];
    gsize len = MIN (want, n - off);
    GstClockTime pts = no_pts ? GST_CLOCK_TIME_NONE :
        gst_util_uint64_scale_int_round (off, GST_SECOND, f->rate);
    GstBuffer *buf = fmt_make_buffer (f, x + off * f->channels, len, pts);

    fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
    off += len;
    if (empties) {
      GstBuffer *e = gst_buffer_new ();
      if (!no_pts)
        GST_BUFFER_PTS (e) = gst_util_uint64_scale_int_round (off, GST_SECOND,
            f->rate);
      fail_unless_equals_int (gst_harness_push (h, e), GST_FLOW_OK);
    }
  }
}

static GstHarness *
mono_harness (const RefConfig * c, GstBus ** bus, const Fmt * f)
{
  gchar *caps = fmt_caps_string (f);
  gchar *fs = g_strdup_printf ("%u", c->fft_size);
  gchar *hs = g_strdup_printf ("%u", c->hop);
  gchar *iv = g_strdup_printf ("%" G_GUINT64_FORMAT, c->interval);
  GstHarness *h = harness_new (bus, caps, "fft-size", fs, "hop-size", hs,
      "interval", iv, "threshold", "-120", NULL);

  g_free (caps);
  g_free (fs);
  g_free (hs);
  g_free (iv);
  return h;
}

/* messages against the reference; times only when check_times; the
 * intervals skip_from..skip_to each hold one frame with a NaN/Inf sample,
 * which the element leaves out of the average (one frame fewer). */
static void
check_mono (Msgs * m, const RefConfig * c, GPtrArray * refs,
    gboolean check_times, guint skip_from, guint skip_to)
{
  guint i;

  fail_unless_equals_int (m->errors->len, 0);
  if (m->spectrum->len != refs->len)
    dump_msgs_refs (m, refs, c->rate);
  fail_unless_equals_int (m->spectrum->len, refs->len);
  for (i = 0; i < refs->len; i++) {
    RefInterval *r = g_ptr_array_index (refs, i);
    const GstStructure *s = g_ptr_array_index (m->spectrum, i);
    RefInterval expect = *r;
    gfloat *got;

    if (i >= skip_from && i <= skip_to)
      expect.frames--;
    fail_unless_equals_int (msg_uint (s, "frames"), expect.frames);
    if (check_times)
      check_spectrum_fields (s, c, &expect, 0, 1);
    if (i >= skip_from && i <= skip_to)
      continue;
    got = msg_floats (s, "magnitude", NULL, NULL, NULL);
    compare_db (c, got, r->power, -120, 0.01, "robustness");
    g_free (got);
  }
}

static gdouble *
test_signal (gsize n, gint rate)
{
  gdouble *x = g_new0 (gdouble, n);

  gen_noise (x, n, 1, 0.05, 3);
  gen_tone (x, n, 1, 0.5, 1500, rate, 0.4);
  return x;
}

static void
pieces_case (gboolean no_pts, gboolean empties)
{
  RefConfig c = { 512, 300, REF_HANN, FALSE, 44100, 50 * GST_MSECOND };
  Fmt f = { "F32LE", 44100, 1, FALSE };
  gsize sizes[] = { 1, 7, 333, 2999, 64, 1024, 5, 1500 };
  gsize n = 13230;
  gdouble *x = test_signal (n, 44100);
  GPtrArray *refs;
  GstHarness *h;
  GstBus *bus;
  Msgs *m;

  fmt_quantize (&f, x, n);
  refs = ref_welch (&c, x, n);
  h = mono_harness (&c, &bus, &f);
  push_pieces (h, &f, x, n, sizes, G_N_ELEMENTS (sizes), no_pts, empties);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  m = msgs_collect (bus, refs->len, 120);
  check_mono (m, &c, refs, !no_pts, 1, 0);
  msgs_free (m);
  harness_free (h, bus);
  g_ptr_array_unref (refs);
  g_free (x);
}

GST_START_TEST (test_odd_buffer_sizes)
{
  pieces_case (FALSE, FALSE);
}

GST_END_TEST;

GST_START_TEST (test_empty_buffers)
{
  pieces_case (FALSE, TRUE);
}

GST_END_TEST;

GST_START_TEST (test_no_timestamps)
{
  pieces_case (TRUE, FALSE);
}

GST_END_TEST;

/* A BYTES segment (appsrc's default): messages still come, with the
 * stream and running times equal to the timestamp, and no CRITICAL (the
 * tests run with G_DEBUG=fatal-criticals). */
GST_START_TEST (test_bytes_segment)
{
  Fmt f = { "F32LE", 48000, 1, FALSE };
  gchar *caps = fmt_caps_string (&f);
  GstBus *bus;
  GstHarness *h = harness_new (&bus, caps, "fft-size", "256", "interval",
      "10000000", NULL);
  gdouble *x = g_new0 (gdouble, 2400);
  GstSegment seg;
  Msgs *m;
  guint i;

  gen_tone (x, 2400, 1, 0.5, 1000, 48000, 0);
  gst_segment_init (&seg, GST_FORMAT_BYTES);
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&seg)));
  push_samples (h, &f, x, 2400, 480, 0, FALSE);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  m = msgs_collect (bus, 5, 60);
  fail_unless_equals_int (m->errors->len, 0);
  fail_unless_equals_int (m->spectrum->len, 5);
  for (i = 0; i < m->spectrum->len; i++) {
    const GstStructure *s = g_ptr_array_index (m->spectrum, i);

    fail_unless_equals_uint64 (msg_u64 (s, "timestamp"), i * 10 * GST_MSECOND);
    fail_unless_equals_uint64 (msg_u64 (s, "stream-time"),
        msg_u64 (s, "timestamp"));
    fail_unless_equals_uint64 (msg_u64 (s, "running-time"),
        msg_u64 (s, "timestamp"));
  }
  msgs_free (m);
  harness_free (h, bus);
  g_free (caps);
  g_free (x);
}

GST_END_TEST;

/* A non-interleaved buffer without its GstAudioMeta cannot be read: it is
 * passed through as is, a WARNING says why, and the analysis restarts after
 * it (no frame joins the samples around it). */
GST_START_TEST (test_planar_without_meta)
{
  Fmt f = { "F32LE", 48000, 2, TRUE };
  gchar *caps = fmt_caps_string (&f);
  GstBus *bus;
  GstHarness *h = harness_new (&bus, caps, "fft-size", "256", "interval",
      "10000000", NULL);
  gdouble *x = g_new0 (gdouble, 2 * 960);
  GstBuffer *bad = gst_buffer_new_allocate (NULL, 480 * 2 * 4, NULL), *out;
  GstMapInfo map;
  Msgs *m;

  gen_tone (x, 960, 2, 0.5, 1000, 48000, 0);
  gen_tone (x + 1, 960, 2, 0.5, 1000, 48000, 0);
  push_samples (h, &f, x, 480, 480, 0, FALSE);
  gst_buffer_memset (bad, 0, 0x3f, 480 * 2 * 4);
  GST_BUFFER_PTS (bad) = 10 * GST_MSECOND;
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (bad)),
      GST_FLOW_OK);
  out = gst_harness_pull (h);   /* the first good buffer */
  gst_buffer_unref (out);
  out = gst_harness_pull (h);   /* the unreadable one, as is */
  fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
  fail_unless_equals_int (map.size, 480 * 2 * 4);
  fail_unless_equals_int (map.data[100], 0x3f);
  gst_buffer_unmap (out, &map);
  gst_buffer_unref (out);
  gst_buffer_unref (bad);
  push_samples (h, &f, x + 2 * 480, 480, 480, 20 * GST_MSECOND, FALSE);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  m = msgs_collect (bus, 2, 60);
  fail_unless_equals_int (m->errors->len, 0);
  fail_unless (m->warnings->len >= 1, "no warning for the unreadable buffer");
  fail_unless (strstr (g_ptr_array_index (m->warnings, 0), "GstAudioMeta")
      != NULL, "warning: %s", (gchar *) g_ptr_array_index (m->warnings, 0));
  /* the interval before it and the one after it, each from its own data */
  fail_unless_equals_int (m->spectrum->len, 2);
  fail_unless_equals_uint64 (msg_u64 (g_ptr_array_index (m->spectrum, 1),
          "timestamp"), 20 * GST_MSECOND);
  msgs_free (m);
  harness_free (h, bus);
  g_free (caps);
  g_free (x);
}

GST_END_TEST;

/* A timestamp jump without the DISCONT flag, and a GAP event, restart the
 * framing like a DISCONT: the pending interval is posted, and the next
 * messages are timed from the new position. */
GST_START_TEST (test_gap_and_timestamp_jump)
{
  Fmt f = { "F32LE", 48000, 1, FALSE };
  gchar *caps = fmt_caps_string (&f);
  GstBus *bus;
  GstHarness *h = harness_new (&bus, caps, "fft-size", "256", "interval",
      "10000000", NULL);
  gdouble *x = g_new0 (gdouble, 960);
  Msgs *m;

  gen_tone (x, 960, 1, 0.5, 1000, 48000, 0);
  push_samples (h, &f, x, 720, 720, 0, FALSE);  /* 0..15 ms */
  push_samples (h, &f, x, 720, 720, GST_SECOND, FALSE); /* jump: 1 s */
  fail_unless (gst_harness_push_event (h,
          gst_event_new_gap (GST_SECOND + 15 * GST_MSECOND,
              100 * GST_MSECOND)));
  push_samples (h, &f, x, 480, 480, 2 * GST_SECOND, FALSE);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  m = msgs_collect (bus, 5, 60);
  fail_unless_equals_int (m->errors->len, 0);
  /* [0,10) [10,15) | [1000,1010) [1010,1015) | [2000,2010) */
  fail_unless_equals_int (m->spectrum->len, 5);
  fail_unless_equals_uint64 (msg_u64 (g_ptr_array_index (m->spectrum, 1),
          "duration"), 5 * GST_MSECOND);
  fail_unless_equals_uint64 (msg_u64 (g_ptr_array_index (m->spectrum, 2),
          "timestamp"), GST_SECOND);
  fail_unless_equals_uint64 (msg_u64 (g_ptr_array_index (m->spectrum, 3),
          "duration"), 5 * GST_MSECOND);
  fail_unless_equals_uint64 (msg_u64 (g_ptr_array_index (m->spectrum, 4),
          "timestamp"), 2 * GST_SECOND);
  msgs_free (m);
  harness_free (h, bus);
  g_free (caps);
  g_free (x);
}

GST_END_TEST;

/* a buffer that is not a whole number of samples must not crash */
GST_START_TEST (test_partial_sample_buffer)
{
  Fmt f = { "F32LE", 48000, 2, FALSE };
  gchar *caps = fmt_caps_string (&f);
  GstBus *bus;
  GstHarness *h = harness_new (&bus, caps, "fft-size", "256", NULL);
  GstBuffer *buf = gst_buffer_new_allocate (NULL, 6, NULL);
  GstFlowReturn ret;

  gst_buffer_memset (buf, 0, 0, 6);
  GST_BUFFER_PTS (buf) = 0;
  ret = gst_harness_push (h, buf);
  GST_INFO ("partial sample buffer: %s", gst_flow_get_name (ret));
  harness_free (h, bus);
  g_free (caps);
}

GST_END_TEST;

/* NaN and Inf in intervals 1 and 2 do not spoil intervals 0 and 3 */
GST_START_TEST (test_nan_inf)
{
  RefConfig c = { 1024, 1024, REF_HANN, FALSE, 32000, 128 * GST_MSECOND };
  Fmt f = { "F32LE", 32000, 1, FALSE };
  gsize n = 4096 * 4;
  gdouble *x = test_signal (n, 32000);
  GPtrArray *refs;
  GstHarness *h;
  GstBus *bus;
  Msgs *m;
  guint i;

  fmt_quantize (&f, x, n);
  x[4096 + 1500] = NAN;
  x[8192 + 2000] = INFINITY;
  x[8192 + 2001] = -INFINITY;
  refs = ref_welch (&c, x, n);
  h = mono_harness (&c, &bus, &f);
  push_samples (h, &f, x, n, 1000, 0, FALSE);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  m = msgs_collect (bus, refs->len, 120);
  check_mono (m, &c, refs, TRUE, 1, 2);
  fail_unless_equals_int (m->dominant->len, 4);
  for (i = 0; i < 4; i += 3)
    fail_unless (fabs (msg_double (g_ptr_array_index (m->dominant, i),
                "frequency") - 1500) < 0.01 * 32000 / 1024);
  for (i = 1; i <= 2; i++) {
    gfloat *v = msg_floats (g_ptr_array_index (m->spectrum, i), "magnitude",
        NULL, NULL, NULL);
    g_print ("NaN/Inf interval %u: bin 48 reads %g dB, dominant %g Hz\n", i,
        v[48], msg_double (g_ptr_array_index (m->dominant, i), "frequency"));
    g_free (v);
  }
  msgs_free (m);
  harness_free (h, bus);
  g_ptr_array_unref (refs);
  g_free (x);
}

GST_END_TEST;

/* The other frames of an interval holding a NaN/Inf sample are not spoiled
 * either: its message carries finite values, and the steady tone reads as
 * in the clean signal (whether the element drops the bad frame or zeroes
 * the bad samples). */
GST_START_TEST (test_nan_inf_same_interval)
{
  RefConfig c = { 1024, 1024, REF_HANN, FALSE, 32000, 128 * GST_MSECOND };
  Fmt f = { "F32LE", 32000, 1, FALSE };
  gsize n = 4096 * 3;
  gdouble *x = test_signal (n, 32000);
  GPtrArray *refs;
  GstHarness *h;
  GstBus *bus;
  Msgs *m;
  guint i, b;

  fmt_quantize (&f, x, n);
  refs = ref_welch (&c, x, n);  /* clean reference */
  h = mono_harness (&c, &bus, &f);
  x[4096 + 1500] = NAN;
  x[4096 + 3000] = INFINITY;
  push_samples (h, &f, x, n, 1000, 0, FALSE);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  m = msgs_collect (bus, refs->len, 120);
  fail_unless_equals_int (m->spectrum->len, 3);
  for (i = 0; i < 3; i++) {
    gfloat *v = msg_floats (g_ptr_array_index (m->spectrum, i), "magnitude",
        NULL, NULL, NULL);
    RefInterval *r = g_ptr_array_index (refs, i);
    gdouble f0 = msg_double (g_ptr_array_index (m->dominant, i), "frequency");

    for (b = 0; b <= 512; b++)
      fail_unless (isfinite (v[b]) && v[b] >= -120.0f,
          "interval %u bin %u reads %g: NaN/Inf spoiled the whole interval",
          i, b, v[b]);
    fail_unless (fabs (v[48] - ref_db (&c, r->power[48], -120)) < 0.1,
        "interval %u: tone reads %.3f dB, clean %.3f dB", i, v[48],
        ref_db (&c, r->power[48], -120));
    fail_unless (fabs (f0 - 1500) < 0.01 * 32000 / 1024,
        "interval %u: dominant %.3f Hz", i, f0);
    g_free (v);
  }
  msgs_free (m);
  harness_free (h, bus);
  g_ptr_array_unref (refs);
  g_free (x);
}

GST_END_TEST;

/* F32 mono at 48 kHz, then S16 stereo at 32 kHz, multi-channel */
GST_START_TEST (test_renegotiation)
{
  RefConfig ca = { 512, 256, REF_HANN, FALSE, 48000, 50 * GST_MSECOND };
  RefConfig cb = { 512, 256, REF_HANN, FALSE, 32000, 50 * GST_MSECOND };
  Fmt fa = { "F32LE", 48000, 1, FALSE }, fb = { "S16LE", 32000, 2, FALSE };
  gsize na = 6000, nb = 4800, i;
  gdouble *xa = test_signal (na, 48000), *xb = g_new0 (gdouble, nb * 2);
  gdouble *b0 = g_new (gdouble, nb), *b1 = g_new (gdouble, nb);
  GPtrArray *ra, *rb0, *rb1;
  gchar *capsa = fmt_caps_string (&fa), *capsb = fmt_caps_string (&fb);
  GstHarness *h;
  GstBus *bus;
  Msgs *m;

  gen_tone (xb, nb, 2, 0.5, 1000, 32000, 0);
  gen_tone (xb + 1, nb, 2, 0.5, 5000, 32000, 0);
  gen_noise (xb, nb * 2, 1, 0.01, 6);
  fmt_quantize (&fa, xa, na);
  fmt_quantize (&fb, xb, nb * 2);
  for (i = 0; i < nb; i++) {
    b0[i] = xb[2 * i];
    b1[i] = xb[2 * i + 1];
  }
  ra = ref_welch (&ca, xa, na);
  rb0 = ref_welch (&cb, b0, nb);
  rb1 = ref_welch (&cb, b1, nb);
  fail_unless_equals_int (ra->len, 3);

  h = harness_new (&bus, capsa, "fft-size", "512", "hop-size", "256",
      "interval", "50000000", "threshold", "-120", "multi-channel", "true",
      NULL);
  push_samples (h, &fa, xa, na, 1000, 0, FALSE);
  gst_harness_set_src_caps_str (h, capsb);
  push_samples (h, &fb, xb, nb, 1000, GST_SECOND, FALSE);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  m = msgs_collect (bus, ra->len + rb0->len, 120);
  fail_unless_equals_int (m->errors->len, 0);
  fail_unless_equals_int (m->spectrum->len, ra->len + rb0->len);
  for (i = 0; i < m->spectrum->len; i++) {
    const GstStructure *s = g_ptr_array_index (m->spectrum, i);
    gboolean first = i < ra->len;
    guint ch, nbins;
    gfloat *got = msg_floats (s, "magnitude", &ch, &nbins, NULL);

    if (first) {
      RefInterval *r = g_ptr_array_index (ra, i);
      check_spectrum_fields (s, &ca, r, 0, 1);
      fail_unless_equals_int (ch, 1);
      compare_db (&ca, got, r->power, -120, 0.01, "before renegotiation");
    } else {
      RefInterval *r0 = g_ptr_array_index (rb0, i - ra->len);
      RefInterval *r1 = g_ptr_array_index (rb1, i - ra->len);
      check_spectrum_fields (s, &cb, r0, GST_SECOND, 2);
      fail_unless_equals_int (ch, 2);
      compare_db (&cb, got, r0->power, -120, 0.01, "after, channel 0");
      compare_db (&cb, got + nbins, r1->power, -120, 0.01, "after, ch 1");
    }
    g_free (got);
  }
  msgs_free (m);
  harness_free (h, bus);
  g_ptr_array_unref (ra);
  g_ptr_array_unref (rb0);
  g_ptr_array_unref (rb1);
  g_free (xa);
  g_free (xb);
  g_free (b0);
  g_free (b1);
  g_free (capsa);
  g_free (capsb);
}

GST_END_TEST;

static guint
run_to_eos (GstElement * pipe, guint * n_errors)
{
  GstBus *bus = gst_element_get_bus (pipe);
  guint n = 0;
  gboolean done = FALSE;

  fail_if (gst_element_set_state (pipe, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE);
  while (!done) {
    GstMessage *msg = gst_bus_timed_pop (bus, 120 * GST_SECOND);
    fail_unless (msg != NULL, "no EOS within 120 s");
    switch (GST_MESSAGE_TYPE (msg)) {
      case GST_MESSAGE_EOS:
        done = TRUE;
        break;
      case GST_MESSAGE_ERROR:
        (*n_errors)++;
        done = TRUE;
        break;
      case GST_MESSAGE_ELEMENT:
        if (gst_structure_has_name (gst_message_get_structure (msg),
                "spectrum"))
          n++;
        break;
      default:
        break;
    }
    gst_message_unref (msg);
  }
  gst_object_unref (bus);
  return n;
}

GST_START_TEST (test_state_cycles)
{
  GstElement *pipe = gst_parse_launch ("audiotestsrc num-buffers=5 "
      "samplesperbuffer=1024 ! gpufftspectrum interval=10000000 fft-size=256"
      " ! fakesink sync=false", NULL);
  guint i, errors = 0;

  fail_unless (pipe != NULL);
  for (i = 0; i < 5; i++) {
    guint n = run_to_eos (pipe, &errors);
    fail_unless_equals_int (errors, 0);
    fail_unless (n >= 5, "cycle %u: %u messages", i, n);
    fail_unless_equals_int (gst_element_set_state (pipe, GST_STATE_NULL),
        GST_STATE_CHANGE_SUCCESS);
  }
  for (i = 0; i < 5; i++) {
    fail_if (gst_element_set_state (pipe, GST_STATE_PLAYING) ==
        GST_STATE_CHANGE_FAILURE);
    fail_unless_equals_int (gst_element_set_state (pipe, GST_STATE_NULL),
        GST_STATE_CHANGE_SUCCESS);
    fail_if (gst_element_set_state (pipe, GST_STATE_PAUSED) ==
        GST_STATE_CHANGE_FAILURE);
    fail_unless_equals_int (gst_element_set_state (pipe, GST_STATE_READY),
        GST_STATE_CHANGE_SUCCESS);
    fail_unless_equals_int (gst_element_set_state (pipe, GST_STATE_NULL),
        GST_STATE_CHANGE_SUCCESS);
  }
  gst_object_unref (pipe);
}

GST_END_TEST;

static gboolean
any_contains (GPtrArray * a, const gchar * needle)
{
  guint i;

  for (i = 0; i < a->len; i++) {
    gchar *low = g_ascii_strdown (g_ptr_array_index (a, i), -1);
    gboolean hit = strstr (low, needle) != NULL;
    g_free (low);
    if (hit)
      return TRUE;
  }
  return FALSE;
}

GST_START_TEST (test_huge_channel_count)
{
  GstBus *bus;
  GstHarness *h = harness_new (&bus, NULL, "fft-size", "256", NULL);
  Fmt f = { "F32LE", 48000, 100000, FALSE };
  gchar *caps = fmt_caps_string (&f);
  GstSegment seg;
  GstBuffer *buf;
  GstFlowReturn ret;
  gboolean accepted;
  Msgs *m;

  {
    GstCaps *c = gst_caps_from_string (caps);
    accepted = gst_pad_push_event (h->srcpad, gst_event_new_caps (c));
    gst_caps_unref (c);
  }
  gst_segment_init (&seg, GST_FORMAT_TIME);
  gst_pad_push_event (h->srcpad, gst_event_new_segment (&seg));
  buf = gst_buffer_new_allocate (NULL, 4 * 100000 * 8, NULL);
  gst_buffer_memset (buf, 0, 0, 4 * 100000 * 8);
  GST_BUFFER_PTS (buf) = 0;
  ret = gst_harness_push (h, buf);
  m = msgs_collect (bus, 0, 0);
  g_print ("100000 channels: caps %s, flow %s, %u errors, %u warnings%s%s\n",
      accepted ? "accepted" : "refused", gst_flow_get_name (ret),
      m->errors->len, m->warnings->len, m->errors->len ? ": " : "",
      m->errors->len ? (gchar *) g_ptr_array_index (m->errors, 0) : "");
  fail_unless (!accepted || ret != GST_FLOW_OK);
  fail_unless (any_contains (m->errors, "channel") ||
      any_contains (m->warnings, "channel"),
      "no error or warning message that names the channel limit");
  msgs_free (m);
  harness_free (h, bus);
  g_free (caps);
}

GST_END_TEST;

/* 64 channels, each a bin-centred tone at bin 4 + c */
GST_START_TEST (test_many_channels)
{
  Fmt f = { "F32LE", 16000, 64, FALSE };
  gchar *caps = fmt_caps_string (&f);
  gsize n = 1600;
  gdouble *x = g_new0 (gdouble, n * 64);
  GstBus *bus;
  GstHarness *h = harness_new (&bus, caps, "fft-size", "256",
      "multi-channel", "true", NULL);
  Msgs *m;
  guint c, i;

  for (c = 0; c < 64; c++)
    gen_tone (x + c, n, 64, 0.5, (4 + c) * 16000.0 / 256, 16000, c);
  push_samples (h, &f, x, n, 400, 0, FALSE);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  m = msgs_collect (bus, 1, 120);
  fail_unless_equals_int (m->errors->len, 0);
  fail_unless_equals_int (m->spectrum->len, 1);
  fail_unless_equals_int (m->dominant->len, 1);
  for (i = 0; i < m->spectrum->len; i++) {
    guint ch;
    gfloat *v = msg_floats (g_ptr_array_index (m->spectrum, i), "magnitude",
        &ch, NULL, NULL);
    fail_unless_equals_int (ch, 64);
    for (c = 0; c < 64; c++) {
      fail_unless (fabs (v[c * 129 + 4 + c] - 20 * log10 (0.5)) <= 0.01);
      fail_unless (fabs (msg_double_ch (g_ptr_array_index (m->dominant, i),
                  "bin", c) - (4 + c)) <= 0.001);
    }
    g_free (v);
  }
  msgs_free (m);
  harness_free (h, bus);
  g_free (x);
  g_free (caps);
}

GST_END_TEST;

typedef struct
{
  GstElement *el;
  const gchar *prop;
  const gchar *value;
} SetArg;

static void
do_set (gpointer data)
{
  SetArg *a = data;

  gst_util_set_object_arg (G_OBJECT (a->el), a->prop, a->value);
}

GST_START_TEST (test_bad_properties)
{
  GstElement *el = gst_element_factory_make ("gpufftspectrum", NULL);
  GstBus *bus = gst_bus_new ();
  const gchar *bad_sizes[] = { "1001", "15", "14", "131072", "0", "48001" };
  guint i, v;
  guint64 iv;

  fail_unless (el != NULL);
  gst_element_set_bus (el, bus);
  for (i = 0; i < G_N_ELEMENTS (bad_sizes); i++) {
    SetArg a = { el, "fft-size", bad_sizes[i] };
    gchar *text = capture_warnings (el, do_set, &a);
    g_object_get (el, "fft-size", &v, NULL);
    fail_unless_equals_int (v, 1024);
    /* odd sizes in range: our warning names the valid sizes; out of the
     * range the pspec gives (gst-inspect shows it), GObject's own */
    if (atoi (bad_sizes[i]) >= 16 && atoi (bad_sizes[i]) <= 65536)
      fail_unless (strstr (text, "even") && strstr (text, "65536"),
          "fft-size %s: no warning naming the valid sizes; captured: '%s'",
          bad_sizes[i], text);
    else
      fail_unless (strstr (text, "out of range") != NULL, "fft-size %s: no "
          "warning; captured: '%s'", bad_sizes[i], text);
    g_free (text);
  }
  {
    SetArg a = { el, "interval", "500000" };
    gchar *text = capture_warnings (el, do_set, &a);
    g_object_get (el, "interval", &iv, NULL);
    fail_unless (iv >= GST_MSECOND, "interval %" G_GUINT64_FORMAT, iv);
    g_free (text);
  }
  {
    SetArg a = { el, "peaks", "100000" };
    gchar *text = capture_warnings (el, do_set, &a);
    g_object_get (el, "peaks", &v, NULL);
    fail_unless (v <= 64, "peaks %u", v);
    g_free (text);
  }
  gst_element_set_bus (el, NULL);
  gst_object_unref (el);
  gst_object_unref (bus);
}

GST_END_TEST;

GST_START_TEST (test_property_roundtrip)
{
  GstElement *el = gst_element_factory_make ("gpufftspectrum", NULL);
  const gchar *pv[][2] = {
    {"fft-size", "2048"}, {"hop-size", "100"}, {"window", "blackman"},
    {"scaling", "density"}, {"interval", "20000000"}, {"threshold", "-70"},
    {"multi-channel", "true"}, {"peaks", "5"}, {"min-frequency", "50"},
    {"max-frequency", "8000"}, {"post-messages", "false"},
    {"message-magnitude", "false"}, {"message-phase", "true"},
    {"message-dominant", "false"}, {"message-format", "bytes"},
    {"batch-size", "16"}, {"device-index", "0"},
  };
  const gchar *defaults[][2] = {
    {"fft-size", "1024"}, {"hop-size", "0"}, {"window", "hann"},
    {"scaling", "spectrum"}, {"interval", "100000000"}, {"threshold", "-90"},
    {"multi-channel", "false"}, {"peaks", "1"}, {"min-frequency", "0"},
    {"max-frequency", "0"}, {"post-messages", "true"},
    {"message-magnitude", "true"}, {"message-phase", "false"},
    {"message-dominant", "true"}, {"message-format", "list"},
    {"batch-size", "0"}, {"device-index", "-1"},
  };
  GParamSpec *ps;
  guint i;

  for (i = 0; i < G_N_ELEMENTS (defaults); i++) {
    GValue want = G_VALUE_INIT, got = G_VALUE_INIT;
    ps = g_object_class_find_property (G_OBJECT_GET_CLASS (el), defaults[i][0]);
    fail_unless (ps != NULL, "no property %s", defaults[i][0]);
    g_value_init (&want, ps->value_type);
    g_value_init (&got, ps->value_type);
    fail_unless (gst_value_deserialize_with_pspec (&want, defaults[i][1], ps));
    g_object_get_property (G_OBJECT (el), defaults[i][0], &got);
    fail_unless (gst_value_compare (&want, &got) == GST_VALUE_EQUAL,
        "default of %s is not %s", defaults[i][0], defaults[i][1]);
    g_value_unset (&want);
    g_value_unset (&got);
  }
  for (i = 0; i < G_N_ELEMENTS (pv); i++) {
    GValue want = G_VALUE_INIT, got = G_VALUE_INIT;
    ps = g_object_class_find_property (G_OBJECT_GET_CLASS (el), pv[i][0]);
    fail_unless (ps != NULL, "no property %s", pv[i][0]);
    gst_util_set_object_arg (G_OBJECT (el), pv[i][0], pv[i][1]);
    g_value_init (&want, ps->value_type);
    g_value_init (&got, ps->value_type);
    fail_unless (gst_value_deserialize_with_pspec (&want, pv[i][1], ps));
    g_object_get_property (G_OBJECT (el), pv[i][0], &got);
    fail_unless (gst_value_compare (&want, &got) == GST_VALUE_EQUAL,
        "%s did not keep %s", pv[i][0], pv[i][1]);
    g_value_unset (&want);
    g_value_unset (&got);
  }
  ps = g_object_class_find_property (G_OBJECT_GET_CLASS (el), "device-name");
  fail_unless (ps != NULL && (ps->flags & G_PARAM_READABLE) &&
      !(ps->flags & G_PARAM_WRITABLE));
  fail_unless_equals_string (gst_element_class_get_metadata
      (GST_ELEMENT_GET_CLASS (el), GST_ELEMENT_METADATA_KLASS),
      "Filter/Analyzer/Audio");
  gst_object_unref (el);
}

GST_END_TEST;

/* post-messages, message-magnitude, message-dominant switch what is posted */
GST_START_TEST (test_message_switches)
{
  Fmt f = { "F32LE", 48000, 1, FALSE };
  gchar *caps = fmt_caps_string (&f);
  gdouble *x = test_signal (9600, 48000);
  const gchar *cases[][2] = { {"post-messages", "false"},
  {"message-magnitude", "false"}, {"message-dominant", "false"}
  };
  guint k;

  for (k = 0; k < G_N_ELEMENTS (cases); k++) {
    GstBus *bus;
    GstHarness *h = harness_new (&bus, caps, "fft-size", "512",
        cases[k][0], cases[k][1], NULL);
    Msgs *m;

    push_samples (h, &f, x, 9600, 960, 0, FALSE);
    fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
    m = msgs_collect (bus, k == 0 ? 0 : 2, 60);
    if (k == 0) {
      /* nothing may come; give an asynchronous poster a moment */
      g_usleep (G_USEC_PER_SEC / 2);
      msgs_free (m);
      m = msgs_collect (bus, 0, 0);
      fail_unless_equals_int (m->spectrum->len + m->dominant->len, 0);
    } else if (k == 1) {
      fail_unless_equals_int (m->spectrum->len, 2);
      fail_unless (!gst_structure_has_field (g_ptr_array_index (m->spectrum,
                  0), "magnitude"));
      fail_unless_equals_int (m->dominant->len, 2);
    } else {
      fail_unless_equals_int (m->spectrum->len, 2);
      fail_unless_equals_int (m->dominant->len, 0);
    }
    msgs_free (m);
    harness_free (h, bus);
  }
  g_free (x);
  g_free (caps);
}

GST_END_TEST;

GST_START_TEST (test_device_index_out_of_range)
{
  GstElement *el = gst_element_factory_make ("gpufftspectrum", NULL);
  Msgs *m;

  g_object_set (el, "device-index", 99, NULL);
  m = start_must_error (el, GST_STATE_PAUSED);
  g_print ("device-index 99: %s\n", (gchar *) g_ptr_array_index (m->errors, 0));
  fail_unless (any_contains (m->errors, "device"));
  fail_unless (any_contains (m->errors, "99"));
  start_failed_free (el, m);
}

GST_END_TEST;

/* device-name right after READY->PAUSED: with a device-index, the device
 * is opened beside the state change (made 1 s slow here,
 * GPUFFT_DEBUG_SLOW_OPEN_MS), and the getter waits for it; and again
 * after a restart, when the device is already open in the process. With
 * the automatic device (-1), nothing is opened before the first buffer:
 * NULL. */
GST_START_TEST (test_device_name)
{
  GstElement *el = gst_element_factory_make ("gpufftspectrum", NULL);
  gchar *name = NULL;
  gint pass;

  g_setenv ("GPUFFT_DEBUG_SLOW_OPEN_MS", "1000", TRUE);
  for (pass = 0; pass < 3; pass++) {
    g_object_set (el, "device-index", pass < 2 ? 0 : -1, NULL);
    fail_unless (gst_element_set_state (el, GST_STATE_PAUSED) !=
        GST_STATE_CHANGE_FAILURE);
    g_object_get (el, "device-name", &name, NULL);
    if (pass < 2)
      fail_unless (name != NULL && name[0] != '\0', "no device-name");
    else
      fail_unless (name == NULL, "a device-name before the first buffer");
    g_print ("device-name: %s\n", name);
    g_free (name);
    fail_unless_equals_int (gst_element_set_state (el, GST_STATE_NULL),
        GST_STATE_CHANGE_SUCCESS);
  }
  g_unsetenv ("GPUFFT_DEBUG_SLOW_OPEN_MS");
  gst_object_unref (el);
}

GST_END_TEST;

/* ---- property changes from a synchronous bus handler -------------------- */

typedef struct
{
  guint n;
  guint seen_256, seen_512, seen_list, seen_array, bad_len;
} SyncCtx;

static GstBusSyncReply
sync_handler (GstBus * bus, GstMessage * msg, gpointer data)
{
  SyncCtx *ctx = data;
  const GstStructure *s;
  const GValue *v;
  guint fft = 0;

  if (GST_MESSAGE_TYPE (msg) != GST_MESSAGE_ELEMENT)
    return GST_BUS_PASS;
  s = gst_message_get_structure (msg);
  if (!gst_structure_has_name (s, "spectrum") &&
      !gst_structure_has_name (s, "dominant-frequency"))
    return GST_BUS_PASS;
  if (gst_structure_has_name (s, "spectrum")) {
    gst_structure_get_uint (s, "fft-size", &fft);
    if (fft == 256)
      ctx->seen_256++;
    if (fft == 512)
      ctx->seen_512++;
    v = gst_structure_get_value (s, "magnitude");
    if (v && GST_VALUE_HOLDS_LIST (v)) {
      ctx->seen_list++;
      if (gst_value_list_get_size (v) != fft / 2 + 1)
        ctx->bad_len++;
    } else if (v && GST_VALUE_HOLDS_ARRAY (v)) {
      ctx->seen_array++;
      if (gst_value_array_get_size (gst_value_array_get_value (v, 0)) !=
          fft / 2 + 1)
        ctx->bad_len++;
    }
    ctx->n++;
  }
  /* periods 6, 5, 7, 4 messages: whatever the element's latency between an
   * interval boundary and its message, every value gets applied */
  g_object_set (GST_MESSAGE_SRC (msg), "fft-size", (ctx->n % 6 < 3) ? 256 :
      512, "interval", (guint64) ((ctx->n % 5) + 1) * 10 * GST_MSECOND,
      "multi-channel", (gboolean) (ctx->n % 7 < 3), "hop-size",
      (guint) ((ctx->n % 4) * 64), NULL);
  /* (a sync handler that drops a message unrefs it) */
  gst_message_unref (msg);
  return GST_BUS_DROP;
}

GST_START_TEST (test_sync_bus_handler_no_deadlock)
{
  GstElement *pipe = gst_parse_launch ("audiotestsrc num-buffers=100 "
      "samplesperbuffer=480 ! audio/x-raw,rate=48000,channels=2 ! "
      "gpufftspectrum interval=10000000 fft-size=256 ! fakesink sync=false",
      NULL);
  GstBus *bus = gst_element_get_bus (pipe);
  SyncCtx ctx = { 0, };
  GstMessage *msg;

  gst_bus_set_sync_handler (bus, sync_handler, &ctx, NULL);
  fail_if (gst_element_set_state (pipe, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE);
  msg = gst_bus_timed_pop_filtered (bus, 300 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "no EOS within 300 s: deadlock?");
  fail_unless_equals_int (GST_MESSAGE_TYPE (msg), GST_MESSAGE_EOS);
  gst_message_unref (msg);
  fail_unless_equals_int (gst_element_set_state (pipe, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  g_print ("sync handler: %u messages, fft 256: %u, 512: %u, list %u, "
      "array %u\n", ctx.n, ctx.seen_256, ctx.seen_512, ctx.seen_list,
      ctx.seen_array);
  fail_unless (ctx.n >= 20);
  fail_unless (ctx.seen_256 > 0 && ctx.seen_512 > 0);
  fail_unless (ctx.seen_list > 0 && ctx.seen_array > 0);
  fail_unless_equals_int (ctx.bad_len, 0);
  gst_bus_set_sync_handler (bus, NULL, NULL, NULL);
  gst_object_unref (bus);
  gst_object_unref (pipe);
}

GST_END_TEST;

/* ---- stopping the pipeline from a synchronous bus handler -------------- */

typedef struct
{
  GstElement *pipe;
  GMutex lock;
  GCond cond;
  gboolean stopped;
  GstStateChangeReturn ret;
  /* at_eos: the handler stops the pipeline only once EOS has reached the
   * element (eos_seen, set by eos_probe), and reads the element's stats
   * first (device, host_intervals) */
  gboolean at_eos;
  gboolean eos_seen;
  gint device;
  guint64 host_intervals;
} StopCtx;

static GstPadProbeReturn
eos_probe (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  StopCtx *ctx = data;

  if (GST_EVENT_TYPE (GST_PAD_PROBE_INFO_EVENT (info)) == GST_EVENT_EOS) {
    g_mutex_lock (&ctx->lock);
    ctx->eos_seen = TRUE;
    g_cond_broadcast (&ctx->cond);
    g_mutex_unlock (&ctx->lock);
  }
  return GST_PAD_PROBE_OK;
}

static GstBusSyncReply
stop_handler (GstBus * bus, GstMessage * msg, gpointer data)
{
  StopCtx *ctx = data;
  gint64 end = g_get_monotonic_time () + 30 * G_TIME_SPAN_SECOND;

  if (GST_MESSAGE_TYPE (msg) != GST_MESSAGE_ELEMENT)
    return GST_BUS_PASS;
  g_mutex_lock (&ctx->lock);
  if (ctx->stopped) {
    g_mutex_unlock (&ctx->lock);
    gst_message_unref (msg);
    return GST_BUS_DROP;
  }
  while (ctx->at_eos && !ctx->eos_seen)
    if (!g_cond_wait_until (&ctx->cond, &ctx->lock, end))
      break;
  g_mutex_unlock (&ctx->lock);
  if (ctx->at_eos) {
    GstStructure *st = NULL;

    /* (the EOS is in the element by now: its streaming thread waits) */
    g_usleep (200 * 1000);
    g_object_get (GST_MESSAGE_SRC (msg), "stats", &st, NULL);
    if (st) {
      gst_structure_get_int (st, "device", &ctx->device);
      gst_structure_get_uint64 (st, "host-intervals", &ctx->host_intervals);
      gst_structure_free (st);
    }
  }
  /* (on the element's posting thread: the message came from there) */
  ctx->ret = gst_element_set_state (ctx->pipe, GST_STATE_NULL);
  g_mutex_lock (&ctx->lock);
  ctx->stopped = TRUE;
  g_cond_broadcast (&ctx->cond);
  g_mutex_unlock (&ctx->lock);
  gst_message_unref (msg);
  return GST_BUS_DROP;
}

/* TRUE once the handler has stopped the pipeline (60 s at most) */
static gboolean
wait_stopped (StopCtx * ctx)
{
  gint64 end = g_get_monotonic_time () + 60 * G_TIME_SPAN_SECOND;
  gboolean stopped;

  g_mutex_lock (&ctx->lock);
  while (!ctx->stopped)
    if (!g_cond_wait_until (&ctx->cond, &ctx->lock, end))
      break;
  stopped = ctx->stopped;
  g_mutex_unlock (&ctx->lock);
  return stopped;
}

/* GPUFFT_HOST_BUDGET set to value for a test; returns the value it had,
 * for host_budget_restore () */
static gchar *
host_budget_set (const gchar * value)
{
  gchar *old = g_strdup (g_getenv ("GPUFFT_HOST_BUDGET"));

  g_setenv ("GPUFFT_HOST_BUDGET", value, TRUE);
  return old;
}

static void
host_budget_restore (gchar * old)
{
  if (old)
    g_setenv ("GPUFFT_HOST_BUDGET", old, TRUE);
  else
    g_unsetenv ("GPUFFT_HOST_BUDGET");
  g_free (old);
}

/* What applications do on an ERROR or their own condition: set_state
 * (NULL) from a synchronous handler of the element's message. It used to
 * print a critical and leak the plan; now the plan is freed by the
 * engine's own thread, and the pipeline plays again afterwards (the test
 * runs with G_DEBUG=fatal-criticals). Live and not live. */
static void
stop_from_sync_handler (gboolean live)
{
  StopCtx ctx = { NULL };
  GstBus *bus;
  GstMessage *msg;
  gint round;

  gchar *desc = g_strdup_printf ("audiotestsrc is-live=%s "
      "samplesperbuffer=480 ! audio/x-raw,rate=48000,channels=2 ! "
      "gpufftspectrum interval=10000000 fft-size=256 ! fakesink",
      live ? "true" : "false");

  ctx.pipe = gst_parse_launch (desc, NULL);
  g_free (desc);
  g_mutex_init (&ctx.lock);
  g_cond_init (&ctx.cond);
  bus = gst_element_get_bus (ctx.pipe);
  gst_bus_set_sync_handler (bus, stop_handler, &ctx, NULL);
  for (round = 0; round < 2; round++) {
    ctx.stopped = FALSE;
    fail_if (gst_element_set_state (ctx.pipe, GST_STATE_PLAYING) ==
        GST_STATE_CHANGE_FAILURE);
    fail_unless (wait_stopped (&ctx), "round %d: no stop within 60 s", round);
    fail_unless_equals_int (ctx.ret, GST_STATE_CHANGE_SUCCESS);
  }
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg == NULL, "an error was posted");
  fail_unless_equals_int (gst_element_set_state (ctx.pipe, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  gst_bus_set_sync_handler (bus, NULL, NULL, NULL);
  gst_object_unref (bus);
  gst_object_unref (ctx.pipe);
  g_mutex_clear (&ctx.lock);
  g_cond_clear (&ctx.cond);
}


GST_START_TEST (test_stop_from_sync_handler)
{
  stop_from_sync_handler (TRUE);
}

GST_END_TEST;

/* The same with a source that is not live: its streaming thread waits for
 * the element's messages at times (ordering), and the handler that stops
 * the pipeline runs on the thread that posts them; the stop lets that wait
 * go (it deadlocked while the messages were posted by the device's
 * completion thread, which the streaming thread also waited for). */
GST_START_TEST (test_stop_from_sync_handler_not_live)
{
  stop_from_sync_handler (FALSE);
}

GST_END_TEST;

/* On the host alone the host plan's thread posts the messages, so the
 * handler runs there. Here it holds that thread until the stream's EOS
 * reaches the element (whose streaming thread then waits for the
 * intervals the host plan still has), and only then stops the pipeline:
 * the streaming thread's wait lets go at the stop, as it does for the
 * poster's, and set_state returns (it deadlocked while that wait was the
 * host plan's own). */
GST_START_TEST (test_stop_from_sync_handler_host_only_eos)
{
  StopCtx ctx = { NULL };
  GstElement *el;
  GstPad *pad;
  GstBus *bus;
  /* (a budget for this stream: the test's process, forked for it, has
   * opened no device) */
  gchar *budget = host_budget_set ("1000000");

  ctx.at_eos = TRUE;
  ctx.pipe = gst_parse_launch ("audiotestsrc is-live=true "
      "samplesperbuffer=480 num-buffers=60 ! audio/x-raw,rate=48000,"
      "channels=2 ! gpufftspectrum name=el interval=100000000 ! fakesink",
      NULL);
  g_mutex_init (&ctx.lock);
  g_cond_init (&ctx.cond);
  el = gst_bin_get_by_name (GST_BIN (ctx.pipe), "el");
  pad = gst_element_get_static_pad (el, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, eos_probe,
      &ctx, NULL);
  bus = gst_element_get_bus (ctx.pipe);
  gst_bus_set_sync_handler (bus, stop_handler, &ctx, NULL);
  fail_if (gst_element_set_state (ctx.pipe, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE);
  fail_unless (wait_stopped (&ctx), "no stop within 60 s");
  fail_unless (ctx.eos_seen, "no EOS reached the element");
  fail_unless_equals_int (ctx.ret, GST_STATE_CHANGE_SUCCESS);
  /* (on the host alone when the handler ran: it ran on the host plan's
   * thread) */
  fail_unless_equals_int (ctx.device, -1);
  fail_unless (ctx.host_intervals > 0);
  gst_bus_set_sync_handler (bus, NULL, NULL, NULL);
  gst_object_unref (bus);
  gst_object_unref (pad);
  gst_object_unref (el);
  gst_object_unref (ctx.pipe);
  g_mutex_clear (&ctx.lock);
  g_cond_clear (&ctx.cond);
  host_budget_restore (budget);
}

GST_END_TEST;

/* ---- one application's slow bus handler and another's stream ---------- */

typedef struct
{
  guint slow_messages;
} SlowCtx;

static GstBusSyncReply
slow_handler (GstBus * bus, GstMessage * msg, gpointer data)
{
  SlowCtx *c = data;

  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ELEMENT) {
    g_atomic_int_inc (&c->slow_messages);
    g_usleep (400 * 1000);
  }
  return GST_BUS_PASS;
}

/* Two live pipelines on one device: A's synchronous bus handler takes
 * 0.4 s per element message (10 a second come). B's messages keep coming
 * on time, none of B's intervals is dropped, and A's own messages are all
 * posted in order, late, until A stops. (While every element's messages
 * were posted by the device's one completion thread, B got about one every
 * 0.4 s.) */
GST_START_TEST (test_slow_handler_isolated)
{
  const gchar *desc = "audiotestsrc is-live=true samplesperbuffer=480 ! "
      "audio/x-raw,rate=48000,channels=2 ! gpufftspectrum name=a "
      "interval=100000000 ! fakesink";
  GstElement *pa = gst_parse_launch (desc, NULL), *pb =
      gst_parse_launch (desc, NULL);
  GstBus *bus_a = gst_element_get_bus (pa), *bus_b = gst_element_get_bus (pb);
  SlowCtx c = { 0 };
  GstMessage *msg;
  GstElement *b_el;
  gint64 end;
  guint b_msgs = 0, b_warnings = 0;
  guint64 b_dropped;

  fail_unless (pa != NULL && pb != NULL);
  gst_bus_set_sync_handler (bus_a, slow_handler, &c, NULL);
  fail_if (gst_element_set_state (pa, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE);
  fail_if (gst_element_set_state (pb, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE);
  /* 3 s of B, counted once its first message came (after its plan) */
  end = g_get_monotonic_time () + 30 * G_TIME_SPAN_SECOND;
  while (b_msgs == 0 && g_get_monotonic_time () < end) {
    msg = gst_bus_timed_pop_filtered (bus_b, 100 * GST_MSECOND,
        GST_MESSAGE_ELEMENT | GST_MESSAGE_ERROR);
    if (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ELEMENT
        && gst_structure_has_name (gst_message_get_structure (msg), "spectrum"))
      b_msgs++;
    fail_if (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR);
    g_clear_pointer (&msg, gst_message_unref);
  }
  fail_unless (b_msgs == 1, "B posted nothing within 30 s");
  /* and A's plan is made too (its compile would take B's CPU on a CPU
   * device) */
  while (g_atomic_int_get (&c.slow_messages) == 0
      && g_get_monotonic_time () < end)
    g_usleep (10 * 1000);
  fail_unless (g_atomic_int_get (&c.slow_messages) > 0,
      "A posted nothing within 30 s");
  while ((msg = gst_bus_pop (bus_b)) != NULL)
    gst_message_unref (msg);
  b_msgs = 0;
  /* (B's drops before now, while A's plan took the CPU, are not counted:
   * their warning may still be on its way from B's poster) */
  b_el = gst_bin_get_by_name (GST_BIN (pb), "a");
  b_dropped = stats_u64 (b_el, "dropped-intervals");
  end = g_get_monotonic_time () + 3 * G_TIME_SPAN_SECOND;
  while (g_get_monotonic_time () < end) {
    msg = gst_bus_timed_pop_filtered (bus_b, 50 * GST_MSECOND,
        GST_MESSAGE_ELEMENT | GST_MESSAGE_WARNING | GST_MESSAGE_ERROR);
    if (msg == NULL)
      continue;
    fail_if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR);
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_WARNING)
      b_warnings++;
    else if (gst_structure_has_name (gst_message_get_structure (msg),
            "spectrum"))
      b_msgs++;
    gst_message_unref (msg);
  }
  GST_INFO ("B: %u messages in 3 s, %u warnings; A's handler: %u", b_msgs,
      b_warnings, g_atomic_int_get (&c.slow_messages));
  /* 30 intervals of 100 ms; room for a slow machine, far above the ~3 a
   * blocked completion thread let through */
  fail_unless (b_msgs >= 24, "B: %u messages in 3 s (30 intervals)", b_msgs);
  fail_unless_equals_uint64 (stats_u64 (b_el, "dropped-intervals"), b_dropped);
  gst_object_unref (b_el);
  /* A's handler ran, slowly; A's stop drops its backlog instead of
   * waiting 0.4 s for each queued message */
  fail_unless (g_atomic_int_get (&c.slow_messages) >= 2);
  fail_unless_equals_int (gst_element_set_state (pb, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  fail_unless_equals_int (gst_element_set_state (pa, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  gst_bus_set_sync_handler (bus_a, NULL, NULL, NULL);
  gst_object_unref (bus_a);
  gst_object_unref (bus_b);
  gst_object_unref (pa);
  gst_object_unref (pb);
}

GST_END_TEST;

/* ---- a bus handler that stops taking messages --------------------------- */

typedef struct
{
  GMutex lock;
  GCond cond;
  gboolean release;
  gint handled;
} BlockCtx;

static GstBusSyncReply
block_handler (GstBus * bus, GstMessage * msg, gpointer data)
{
  BlockCtx *c = data;

  if (GST_MESSAGE_TYPE (msg) != GST_MESSAGE_ELEMENT)
    return GST_BUS_PASS;
  g_atomic_int_inc (&c->handled);
  g_mutex_lock (&c->lock);
  while (!c->release)
    g_cond_wait (&c->cond, &c->lock);
  g_mutex_unlock (&c->lock);
  return GST_BUS_PASS;
}

/* A live stream whose application's synchronous bus handler blocks on its
 * first message while 2000 more intervals (one message each) pass: the
 * buffers are taken at once, and every interval is accounted for: handled
 * + stats' dropped-messages + dropped-intervals = intervals pushed.
 * Through the device (host_only FALSE), the oldest messages beyond the
 * 1024 that wait are dropped. On the host alone, the host plan's thread
 * posts the messages itself: the handler holds it, and the intervals that
 * come meanwhile are dropped whole and counted, no message. */
static void
blocked_handler_counted (gboolean host_only)
{
  Fmt f = { "F32LE", 48000, 1, FALSE };
  gchar *caps = fmt_caps_string (&f);
  GstBus *bus;
  GstHarness *h;
  gdouble *zeros = g_new0 (gdouble, 4800);
  BlockCtx c;
  guint64 dropped_msgs, dropped_ivals, offset = 0;
  guint i, n_intervals = 2000;
  gint64 end;
  GstStructure *st = NULL;
  gint device = 0;
  /* (on the host alone: a budget for this stream; the test's process,
   * forked for it, has opened no device) */
  gchar *budget = host_only ? host_budget_set ("1000000") : NULL;
  h = harness_new (&bus, caps, "fft-size", "256", "interval", "10000000",
      "message-dominant", "false", NULL);

  memset (&c, 0, sizeof (c));
  g_mutex_init (&c.lock);
  g_cond_init (&c.cond);
  /* (live: a stream that is not live waits for its messages) */
  gst_harness_set_live (h, TRUE);
  gst_bus_set_sync_handler (bus, block_handler, &c, NULL);
  for (i = 0; i < n_intervals / 10; i++) {
    push_samples (h, &f, zeros, 4800, 4800, gst_util_uint64_scale (offset,
            GST_SECOND, 48000), FALSE);
    offset += 4800;
    /* (the rest once the handler holds the first message: the plan is
     * made meanwhile) */
    end = g_get_monotonic_time () + 60 * G_TIME_SPAN_SECOND;
    while (i == 0 && g_atomic_int_get (&c.handled) == 0
        && g_get_monotonic_time () < end) {
      g_usleep (10 * 1000);
      push_samples (h, &f, zeros, 480, 480, gst_util_uint64_scale (offset,
              GST_SECOND, 48000), FALSE);
      offset += 480;
    }
    fail_unless (g_atomic_int_get (&c.handled) > 0, "no message in 60 s");
    /* (10 times real time: the device keeps up) */
    g_usleep (10 * 1000);
  }
  n_intervals = offset / 480;
  g_mutex_lock (&c.lock);
  c.release = TRUE;
  g_cond_broadcast (&c.cond);
  g_mutex_unlock (&c.lock);
  g_object_get (h->element, "stats", &st, NULL);
  fail_unless (st && gst_structure_get_int (st, "device", &device));
  gst_structure_free (st);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  dropped_msgs = stats_u64 (h->element, "dropped-messages");
  dropped_ivals = stats_u64 (h->element, "dropped-intervals");
  GST_INFO ("%s: handled %d, dropped messages %" G_GUINT64_FORMAT
      ", dropped intervals %" G_GUINT64_FORMAT, host_only ? "host alone" :
      "device", g_atomic_int_get (&c.handled), dropped_msgs, dropped_ivals);
  if (host_only) {
    fail_unless_equals_int (device, -1);
    fail_unless (dropped_ivals > 0, "no interval dropped: %d handled",
        g_atomic_int_get (&c.handled));
    fail_unless_equals_uint64 (dropped_msgs, 0);
  } else {
    fail_unless (device >= 0, "device %d", device);
    fail_unless (dropped_msgs > 0, "no message dropped: %d handled",
        g_atomic_int_get (&c.handled));
  }
  fail_unless_equals_uint64 (g_atomic_int_get (&c.handled) + dropped_msgs +
      dropped_ivals, n_intervals);
  gst_bus_set_sync_handler (bus, NULL, NULL, NULL);
  harness_free (h, bus);
  if (host_only)
    host_budget_restore (budget);
  g_mutex_clear (&c.lock);
  g_cond_clear (&c.cond);
  g_free (zeros);
  g_free (caps);
}

GST_START_TEST (test_blocked_handler_counted)
{
  blocked_handler_counted (FALSE);
}

GST_END_TEST;

GST_START_TEST (test_blocked_handler_host_only)
{
  blocked_handler_counted (TRUE);
}

GST_END_TEST;

/* ---- one blocked handler, 16 other streams ------------------------------ */

#define N_OTHERS 16

typedef struct
{
  gint msgs;
  gint errors;
} CountCtx;

static GstBusSyncReply
count_handler (GstBus * bus, GstMessage * msg, gpointer data)
{
  CountCtx *c = data;

  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR)
    g_atomic_int_inc (&c->errors);
  else if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ELEMENT
      && gst_structure_has_name (gst_message_get_structure (msg), "spectrum"))
    g_atomic_int_inc (&c->msgs);
  gst_message_unref (msg);
  return GST_BUS_DROP;
}

/* 17 live pipelines on one device; A's synchronous bus handler blocks on
 * its first message and does not return until the end. The 16 others
 * each get their messages on time (3 s: 30 intervals of 100 ms) and drop
 * none, and A's handler saw one message only; A then stops, its backlog
 * dropped, once its handler returns. */
GST_START_TEST (test_blocked_handler_16_others)
{
  const gchar *desc = "audiotestsrc is-live=true samplesperbuffer=480 ! "
      "audio/x-raw,rate=48000,channels=2 ! gpufftspectrum name=a "
      "interval=100000000 ! fakesink";
  GstElement *pa = gst_parse_launch (desc, NULL), *po[N_OTHERS];
  GstElement *el[N_OTHERS];
  GstBus *bus_a = gst_element_get_bus (pa);
  CountCtx cnt[N_OTHERS];
  guint64 dropped[N_OTHERS];
  BlockCtx bc;
  gint64 end;
  guint i, ready;

  fail_unless (pa != NULL);
  memset (cnt, 0, sizeof (cnt));
  g_mutex_init (&bc.lock);
  g_cond_init (&bc.cond);
  bc.release = FALSE;
  bc.handled = 0;
  gst_bus_set_sync_handler (bus_a, block_handler, &bc, NULL);
  fail_if (gst_element_set_state (pa, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE);
  for (i = 0; i < N_OTHERS; i++) {
    GstBus *bus;

    po[i] = gst_parse_launch (desc, NULL);
    fail_unless (po[i] != NULL);
    bus = gst_element_get_bus (po[i]);
    gst_bus_set_sync_handler (bus, count_handler, &cnt[i], NULL);
    gst_object_unref (bus);
    el[i] = gst_bin_get_by_name (GST_BIN (po[i]), "a");
    fail_if (gst_element_set_state (po[i], GST_STATE_PLAYING) ==
        GST_STATE_CHANGE_FAILURE);
  }
  /* every stream posting (its plan made) and A's handler blocked */
  end = g_get_monotonic_time () + 60 * G_TIME_SPAN_SECOND;
  do {
    g_usleep (20 * 1000);
    for (i = 0, ready = 0; i < N_OTHERS; i++)
      ready += g_atomic_int_get (&cnt[i].msgs) > 0;
  } while ((ready < N_OTHERS || g_atomic_int_get (&bc.handled) == 0)
      && g_get_monotonic_time () < end);
  fail_unless_equals_int (ready, N_OTHERS);
  fail_unless_equals_int (g_atomic_int_get (&bc.handled), 1);
  /* (drops before now, while plans took the CPU, are not counted) */
  g_usleep (300 * 1000);
  for (i = 0; i < N_OTHERS; i++) {
    dropped[i] = stats_u64 (el[i], "dropped-intervals");
    g_atomic_int_set (&cnt[i].msgs, 0);
  }
  g_usleep (3 * G_USEC_PER_SEC);
  for (i = 0; i < N_OTHERS; i++) {
    gint got = g_atomic_int_get (&cnt[i].msgs);

    GST_INFO ("stream %u: %d messages in 3 s", i, got);
    /* 30 intervals; room for a loaded machine, far from the none a
     * shared blocked thread would let through */
    fail_unless (got >= 20, "stream %u: %d messages in 3 s (30 intervals)",
        i, got);
    fail_unless_equals_int (g_atomic_int_get (&cnt[i].errors), 0);
    fail_unless_equals_uint64 (stats_u64 (el[i], "dropped-intervals"),
        dropped[i]);
  }
  /* A's handler is still on its first message */
  fail_unless_equals_int (g_atomic_int_get (&bc.handled), 1);
  for (i = 0; i < N_OTHERS; i++) {
    fail_unless_equals_int (gst_element_set_state (po[i], GST_STATE_NULL),
        GST_STATE_CHANGE_SUCCESS);
    gst_object_unref (el[i]);
    gst_object_unref (po[i]);
  }
  g_mutex_lock (&bc.lock);
  bc.release = TRUE;
  g_cond_broadcast (&bc.cond);
  g_mutex_unlock (&bc.lock);
  fail_unless_equals_int (gst_element_set_state (pa, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  gst_bus_set_sync_handler (bus_a, NULL, NULL, NULL);
  gst_object_unref (bus_a);
  gst_object_unref (pa);
  g_mutex_clear (&bc.lock);
  g_cond_clear (&bc.cond);
}

GST_END_TEST;

/* An application that starts and stops its pipeline again and again, one
 * element at a time, so that no device stays open in between: 40 starts
 * in one process, each with its messages. (NVIDIA's driver refuses a 31st
 * Vulkan instance made and destroyed in a process; the engine keeps one
 * instance for the process, gpufft-context.c.) */
GST_START_TEST (test_many_restarts)
{
  Fmt f = { "F32LE", 48000, 1, FALSE };
  gchar *caps = fmt_caps_string (&f);
  gdouble *x = g_new0 (gdouble, 4800);
  guint i;

  gen_tone (x, 4800, 1, 0.5, 1000.0, 48000, 0.0);
  for (i = 0; i < 40; i++) {
    GstBus *bus;
    GstHarness *h = harness_new (&bus, caps, "interval", "50000000", NULL);
    Msgs *m;

    push_samples (h, &f, x, 4800, 480, 0, FALSE);
    fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
    m = msgs_collect (bus, 2, 60);
    fail_unless_equals_int (m->errors->len, 0);
    fail_unless (m->spectrum->len >= 2, "start %u: %u messages", i,
        m->spectrum->len);
    msgs_free (m);
    harness_free (h, bus);
  }
  g_free (x);
  g_free (caps);
}

GST_END_TEST;

static Suite *
robustness_suite (void)
{
  Suite *s = suite_create ("gpufftspectrum-robustness");
  TCase *tc = tcase_create ("robustness");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_odd_buffer_sizes);
  tcase_add_test (tc, test_empty_buffers);
  tcase_add_test (tc, test_no_timestamps);
  tcase_add_test (tc, test_partial_sample_buffer);
  tcase_add_test (tc, test_bytes_segment);
  tcase_add_test (tc, test_planar_without_meta);
  tcase_add_test (tc, test_gap_and_timestamp_jump);
  tcase_add_test (tc, test_nan_inf);
  tcase_add_test (tc, test_nan_inf_same_interval);
  tcase_add_test (tc, test_renegotiation);
  tcase_add_test (tc, test_state_cycles);
  tcase_add_test (tc, test_huge_channel_count);
  tcase_add_test (tc, test_many_channels);
  tcase_add_test (tc, test_bad_properties);
  tcase_add_test (tc, test_property_roundtrip);
  tcase_add_test (tc, test_message_switches);
  tcase_add_test (tc, test_device_index_out_of_range);
  tcase_add_test (tc, test_device_name);
  tcase_add_test (tc, test_many_restarts);
  tcase_add_test (tc, test_stop_from_sync_handler);
  tcase_add_test (tc, test_stop_from_sync_handler_not_live);
  tcase_add_test (tc, test_slow_handler_isolated);
  tcase_add_test (tc, test_blocked_handler_counted);
  tcase_add_test (tc, test_blocked_handler_host_only);
  tcase_add_test (tc, test_stop_from_sync_handler_host_only_eos);
  tcase_add_test (tc, test_blocked_handler_16_others);
  tcase_add_test (tc, test_sync_bus_handler_no_deadlock);
  return s;
}

GST_CHECK_MAIN (robustness);
