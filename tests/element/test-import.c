/* Input the GPU reads in place: with GPUFFT_IMPORT_MIN_BYTES=1 every
 * interleaved input buffer is imported (VK_EXT_external_memory_host, which
 * lavapipe and NVIDIA have), and with GPUFFT_DEBUG_LATE_START_MS the device
 * reads it well after the buffer has left the element. Downstream writes
 * into the buffer it received (as `volume volume=0` does): the element
 * holds a reference until the GPU has read the samples, so the write goes
 * to a copy and the analysis still sees the original samples; the buffers
 * downstream gets are the ones pushed, unchanged. Both environment
 * variables are set by meson (tests/element/meson.build). */
#include "gpufft-test-common.h"

#define RATE 48000
#define CHUNK 4800

/* Pushes x in CHUNK-sample buffers; each output buffer is checked against
 * what went in, then overwritten with zeros in place, as an in-place
 * downstream element does. */
static void
push_and_scribble (GstHarness * h, const Fmt * f, const gdouble * x, gsize n)
{
  gsize off;

  for (off = 0; off < n; off += CHUNK) {
    gsize len = MIN (CHUNK, n - off);
    GstBuffer *in = fmt_make_buffer (f, x + off * f->channels, len,
        gst_util_uint64_scale_int_round (off, GST_SECOND, RATE));
    GstBuffer *expect = gst_buffer_copy_deep (in);
    GstBuffer *out;
    GstMapInfo a, b;

    fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
    out = gst_harness_pull (h);
    fail_unless (out != NULL);
    fail_unless (gst_buffer_map (out, &a, GST_MAP_READ));
    fail_unless (gst_buffer_map (expect, &b, GST_MAP_READ));
    fail_unless_equals_uint64 (a.size, b.size);
    fail_unless (memcmp (a.data, b.data, a.size) == 0);
    gst_buffer_unmap (out, &a);
    gst_buffer_unmap (expect, &b);
    gst_buffer_unref (expect);

    out = gst_buffer_make_writable (out);
    fail_unless (gst_buffer_map (out, &a, GST_MAP_WRITE));
    memset (a.data, 0, a.size);
    gst_buffer_unmap (out, &a);
    gst_buffer_unref (out);
  }
}

static void
run_scribbled (const Fmt * f, guint channels_out)
{
  RefConfig c = { 1024, 512, REF_HANN, FALSE, RATE, 100 * GST_MSECOND };
  gsize n = RATE / 2, i;
  gdouble *x = g_new0 (gdouble, n * f->channels);
  gdouble *mono = g_new0 (gdouble, n);
  gchar *caps = fmt_caps_string (f);
  GPtrArray *refs;
  GstHarness *h;
  GstBus *bus;
  Msgs *m;
  guint64 imported;

  gen_tone (x, n, f->channels, 0.5, 1000.0, RATE, 0.0);
  gen_noise (x, n * f->channels, 1, 0.01, 3);
  fmt_quantize (f, x, n * f->channels);
  for (i = 0; i < n; i++)
    mono[i] = x[i * f->channels];
  refs = ref_welch (&c, mono, n);

  h = harness_new (&bus, caps, "fft-size", "1024", "hop-size", "512",
      "multi-channel", "true", "threshold", "-120", NULL);
  push_and_scribble (h, f, x, n);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  m = msgs_collect (bus, refs->len, 120);
  fail_unless_equals_int (m->errors->len, 0);
  fail_unless_equals_int (m->spectrum->len, refs->len);
  for (i = 0; i < refs->len; i++) {
    RefInterval *r = g_ptr_array_index (refs, i);
    const GstStructure *s = g_ptr_array_index (m->spectrum, i);
    guint ch;
    gfloat *got = msg_floats (s, "magnitude", &ch, NULL, NULL);

    fail_unless_equals_int (ch, channels_out);
    /* channel 0 carries the signal the reference saw, before the zeros */
    compare_db (&c, got, r->power, -120, 0.01, "in place, channel 0");
    g_free (got);
  }
  imported = stats_u64 (h->element, "device-imported-bytes");
  GST_INFO ("imported %" G_GUINT64_FORMAT " bytes", imported);
  /* every buffer (f->channels * 4 bytes per sample) was offered */
  fail_unless (imported > 0, "nothing was read in place (does the device "
      "have VK_EXT_external_memory_host?)");
  msgs_free (m);
  harness_free (h, bus);
  g_ptr_array_unref (refs);
  g_free (caps);
  g_free (mono);
  g_free (x);
}

/* Mono F32, the samples read in place */
GST_START_TEST (test_downstream_writes_mono)
{
  Fmt f = { "F32LE", RATE, 1, FALSE };

  run_scribbled (&f, 1);
}

GST_END_TEST;

/* Stereo S16 (the kernel converts), the samples read in place */
GST_START_TEST (test_downstream_writes_stereo_s16)
{
  Fmt f = { "S16LE", RATE, 2, FALSE };

  run_scribbled (&f, 2);
}

GST_END_TEST;

static Suite *
import_suite (void)
{
  Suite *s = suite_create ("gpufftspectrum-import");
  TCase *tc = tcase_create ("import");

  tcase_set_timeout (tc, 300);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_downstream_writes_mono);
  tcase_add_test (tc, test_downstream_writes_stereo_s16);
  return s;
}

GST_CHECK_MAIN (import);
