/* Input the GPU reads in place: with GPUFFT_IMPORT_MIN_BYTES=1 every
 * interleaved input buffer is imported (VK_EXT_external_memory_host, which
 * lavapipe and NVIDIA have), buffers of the element's allocator (offered in
 * its answer to the ALLOCATION query, gstgpufftallocator.h) are read where
 * they lie, and with GPUFFT_DEBUG_LATE_START_MS the device
 * reads it well after the buffer has left the element. Downstream writes
 * into the buffer it received (as `volume volume=0` does): the element
 * holds a reference until the GPU has read the samples, so the write goes
 * to a copy and the analysis still sees the original samples; the buffers
 * downstream gets are the ones pushed, unchanged. Both environment
 * variables are set by meson (tests/element/meson.build). */
#include "gpufft-test-common.h"

#define RATE 48000
#define CHUNK 4800

/* The allocator the element offers upstream for caps (a reference), or
 * NULL; the device is opened first (reading device-name waits for it: the
 * element is made with a device-index, whose device is opened when it
 * starts). */
static GstAllocator *
element_allocator (GstHarness * h, const gchar * caps_str)
{
  GstCaps *caps = gst_caps_from_string (caps_str);
  GstQuery *q = gst_query_new_allocation (caps, FALSE);
  GstAllocator *allocator = NULL;
  GstPad *pad = gst_element_get_static_pad (h->element, "sink");
  gchar *name = NULL;

  g_object_get (h->element, "device-name", &name, NULL);
  fail_unless (name != NULL);
  if (gst_pad_query (pad, q) && gst_query_get_n_allocation_params (q) > 0)
    gst_query_parse_nth_allocation_param (q, 0, &allocator, NULL);
  gst_object_unref (pad);
  gst_query_unref (q);
  gst_caps_unref (caps);
  g_free (name);
  return allocator;
}

/* `in`'s content and metadata in a buffer of allocator's (takes in). */
static GstBuffer *
move_to (GstBuffer * in, GstAllocator * allocator)
{
  GstBuffer *out = gst_buffer_new_allocate (allocator,
      gst_buffer_get_size (in), NULL);
  GstMapInfo map;

  fail_unless (out != NULL);
  fail_unless (gst_buffer_map (in, &map, GST_MAP_READ));
  gst_buffer_fill (out, 0, map.data, map.size);
  gst_buffer_unmap (in, &map);
  gst_buffer_copy_into (out, in, GST_BUFFER_COPY_METADATA, 0, -1);
  gst_buffer_unref (in);
  return out;
}

/* Pushes x in CHUNK-sample buffers (of `allocator` when not NULL); each
 * output buffer is checked against what went in, then overwritten with
 * zeros in place, as an in-place downstream element does. */
static void
push_and_scribble (GstHarness * h, const Fmt * f, const gdouble * x, gsize n,
    GstAllocator * allocator)
{
  gsize off;

  for (off = 0; off < n; off += CHUNK) {
    gsize len = MIN (CHUNK, n - off);
    GstBuffer *in = fmt_make_buffer (f, x + off * f->channels, len,
        gst_util_uint64_scale_int_round (off, GST_SECOND, RATE));
    GstBuffer *expect = gst_buffer_copy_deep (in);
    GstBuffer *out;
    GstMapInfo a, b;

    if (allocator)
      in = move_to (in, allocator);

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
run_scribbled (const Fmt * f, guint channels_out, gboolean use_allocator)
{
  GstAllocator *allocator = NULL;
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
      "multi-channel", "true", "threshold", "-120", "device-index", "0", NULL);
  if (use_allocator) {
    allocator = element_allocator (h, caps);
    fail_unless (allocator != NULL, "the element offers no allocator");
    fail_unless_equals_string (allocator->mem_type, "GpufftHostMemory");
  }
  push_and_scribble (h, f, x, n, allocator);
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
  if (allocator) {
    /* (each batch is an interval, one CHUNK buffer: but for the last
     * frame's samples in the next buffer, all read in place) */
    guint64 host = stats_u64 (h->element, "device-host-memory-bytes");
    guint64 pushed = n * f->channels * 4;

    GST_INFO ("read %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " bytes in "
        "the allocator's memory", host, pushed);
    fail_unless (host >= pushed * 3 / 4, "%" G_GUINT64_FORMAT " of %"
        G_GUINT64_FORMAT " bytes read in the allocator's memory", host, pushed);
    gst_object_unref (allocator);
  }
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

  run_scribbled (&f, 1, FALSE);
}

GST_END_TEST;

/* Stereo S16 (the kernel converts), the samples read in place */
GST_START_TEST (test_downstream_writes_stereo_s16)
{
  Fmt f = { "S16LE", RATE, 2, FALSE };

  run_scribbled (&f, 2, FALSE);
}

GST_END_TEST;

/* The same with buffers of the element's allocator: read where they lie
 * (no CPU copy), and a downstream write in place still goes to a copy */
GST_START_TEST (test_allocator_downstream_writes)
{
  Fmt f = { "F32LE", RATE, 2, FALSE };

  run_scribbled (&f, 2, TRUE);
}

GST_END_TEST;

/* Big buffers of a stream that is not live go to the device in batches of
 * up to two buffers' samples (at most 32 MiB) instead of 4 MiB: each 4 MiB
 * buffer is one batch, where batches of 4 MiB took two for most buffers
 * (the frames one buffer leaves over, with the next buffer's, pass 4 MiB);
 * the messages are the reference's. */
GST_START_TEST (test_big_buffers_batches)
{
  Fmt f = { "F32LE", RATE, 8, FALSE };
  RefConfig c = { 4096, 1024, REF_HANN, FALSE, RATE, GST_SECOND };
  const gsize chunk = (4u << 20) / (8 * 4), n_bufs = 6, n = chunk * n_bufs;
  gdouble *x = g_new0 (gdouble, n * f.channels);
  gdouble *mono = g_new0 (gdouble, n);
  gchar *caps = fmt_caps_string (&f);
  guint64 batches0, batches;
  gchar *name = NULL;
  GPtrArray *refs;
  GstHarness *h;
  GstBus *bus;
  Msgs *m;
  gsize i;

  gen_noise (x, n * f.channels, 1, 0.3, 11);
  gen_tone (x, n, f.channels, 0.5, 3000.0, RATE, 0.0);
  fmt_quantize (&f, x, n * f.channels);
  for (i = 0; i < n; i++)
    mono[i] = x[i * f.channels];
  refs = ref_welch (&c, mono, n);

  h = harness_new (&bus, caps, "fft-size", "4096", "hop-size", "1024",
      "interval", "1000000000", "multi-channel", "true", "threshold", "-120",
      "device-index", "0", NULL);
  g_object_get (h->element, "device-name", &name, NULL);        /* opened */
  g_free (name);
  batches0 = stats_u64 (h->element, "device-batches");
  push_samples (h, &f, x, n, chunk, 0, FALSE);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  m = msgs_collect (bus, refs->len, 120);
  batches = stats_u64 (h->element, "device-batches") - batches0;
  GST_INFO ("%" G_GUINT64_FORMAT " batches for %" G_GSIZE_FORMAT " buffers",
      batches, n_bufs);
  /* (one a buffer, and the frames left at EOS) */
  fail_unless (batches <= n_bufs + 1, "%" G_GUINT64_FORMAT " batches for %"
      G_GSIZE_FORMAT " buffers of 4 MiB", batches, n_bufs);
  fail_unless_equals_int (m->errors->len, 0);
  fail_unless_equals_int (m->spectrum->len, refs->len);
  for (i = 0; i < refs->len; i++) {
    RefInterval *r = g_ptr_array_index (refs, i);
    guint ch;
    gfloat *got = msg_floats (g_ptr_array_index (m->spectrum, i),
        "magnitude", &ch, NULL, NULL);

    fail_unless_equals_int (ch, f.channels);
    compare_db (&c, got, r->power, -120, 0.01, "big buffers, channel 0");
    g_free (got);
  }
  msgs_free (m);
  harness_free (h, bus);
  g_ptr_array_unref (refs);
  g_free (caps);
  g_free (mono);
  g_free (x);
}

GST_END_TEST;

/* The allocator's memory as GstMemory: alignment, prefix and padding as
 * asked (zeroed when asked), shares of one piece that merge back without a
 * copy, copies in the allocator's memory, and freed memory reused for the
 * next allocation of its size. */
GST_START_TEST (test_allocator_memory)
{
  GstHarness *h;
  GstBus *bus;
  GstAllocator *allocator;
  GstAllocationParams params;
  GstMemory *mem, *a, *b, *copy;
  GstBuffer *buf;
  GstMapInfo map;
  guint8 *first;
  guint i;

  h = harness_new (&bus, "audio/x-raw,format=F32LE,rate=48000,channels=2,"
      "layout=interleaved", "fft-size", "1024", "device-index", "0", NULL);
  allocator = element_allocator (h, "audio/x-raw,format=F32LE,rate=48000,"
      "channels=2,layout=interleaved");
  fail_unless (allocator != NULL);

  gst_allocation_params_init (&params);
  params.align = 1023;
  params.prefix = 16;
  params.padding = 8;
  params.flags = GST_MEMORY_FLAG_ZERO_PREFIXED | GST_MEMORY_FLAG_ZERO_PADDED;
  mem = gst_allocator_alloc (allocator, 1000, &params);
  fail_unless (mem != NULL);
  fail_unless_equals_int (mem->size, 1000);
  fail_unless_equals_int (mem->offset, 16);
  fail_unless (gst_memory_map (mem, &map, GST_MAP_READWRITE));
  fail_unless_equals_int (((guintptr) map.data - 16) & 1023, 0);
  for (i = 0; i < 16; i++)
    fail_unless_equals_int (map.data[(gssize) i - 16], 0);
  for (i = 0; i < 8; i++)
    fail_unless_equals_int (map.data[1000 + i], 0);
  for (i = 0; i < 1000; i++)
    map.data[i] = (guint8) i;
  gst_memory_unmap (mem, &map);

  /* two shares, side by side, make one buffer: mapped without a copy */
  a = gst_memory_share (mem, 0, 400);
  b = gst_memory_share (mem, 400, 600);
  fail_unless (gst_memory_is_span (a, b, NULL));
  buf = gst_buffer_new ();
  gst_buffer_append_memory (buf, a);
  gst_buffer_append_memory (buf, b);
  fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
  fail_unless_equals_int (map.size, 1000);
  for (i = 0; i < 1000; i++)
    fail_unless_equals_int (map.data[i], (guint8) i);
  gst_buffer_unmap (buf, &map);
  /* (the map merged them into one share of the piece: still its memory) */
  for (i = 0; i < gst_buffer_n_memory (buf); i++)
    fail_unless (gst_buffer_peek_memory (buf, i)->allocator == allocator);
  gst_buffer_unref (buf);

  /* a copy: the allocator's memory, the same bytes */
  copy = gst_memory_copy (mem, 100, 200);
  fail_unless (copy != NULL);
  fail_unless (copy->allocator == allocator);
  fail_unless (gst_memory_map (copy, &map, GST_MAP_READ));
  fail_unless_equals_int (map.size, 200);
  for (i = 0; i < 200; i++)
    fail_unless_equals_int (map.data[i], (guint8) (100 + i));
  gst_memory_unmap (copy, &map);
  gst_memory_unref (copy);
  gst_memory_unref (mem);

  /* freed memory is reused by the next allocation of its size */
  mem = gst_allocator_alloc (allocator, 4800, NULL);
  fail_unless (gst_memory_map (mem, &map, GST_MAP_READ));
  first = map.data;
  gst_memory_unmap (mem, &map);
  gst_memory_unref (mem);
  mem = gst_allocator_alloc (allocator, 4800, NULL);
  fail_unless (gst_memory_map (mem, &map, GST_MAP_READ));
  fail_unless (map.data == first);
  gst_memory_unmap (mem, &map);
  gst_memory_unref (mem);

  gst_object_unref (allocator);
  harness_free (h, bus);
}

GST_END_TEST;

/* Messages of one pipeline, as strings, and its element's stats. */
static GPtrArray *
run_pipeline (const gchar * desc, GstStructure ** stats)
{
  GError *err = NULL;
  GstElement *pipe = gst_parse_launch (desc, &err);
  GPtrArray *out = g_ptr_array_new_with_free_func (g_free);
  GstElement *el;
  GstBus *bus;

  fail_unless (pipe != NULL && err == NULL);
  bus = gst_element_get_bus (pipe);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  for (;;) {
    GstMessage *msg = gst_bus_timed_pop_filtered (bus, 120 * GST_SECOND,
        GST_MESSAGE_ELEMENT | GST_MESSAGE_EOS | GST_MESSAGE_ERROR);

    fail_unless (msg != NULL, "timeout");
    fail_if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR, "error");
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS) {
      gst_message_unref (msg);
      break;
    }
    g_ptr_array_add (out,
        gst_structure_to_string (gst_message_get_structure (msg)));
    gst_message_unref (msg);
  }
  el = gst_bin_get_by_name (GST_BIN (pipe), "a");
  g_object_get (el, "stats", stats, NULL);
  gst_object_unref (el);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipe);
  return out;
}

/* A real source (audiotestsrc, whose allocation query comes before the
 * device is open: the element asks it to query again once it is) writes
 * into the allocator's memory, and the messages are those of the same
 * pipeline where `identity drop-allocation=true` keeps the allocator from
 * the source, value for value; so with an opening slowed to 300 ms. */
static void
run_source_pair (const gchar * slow_open)
{
  const gchar *src = "audiotestsrc num-buffers=60 samplesperbuffer=4800 "
      "wave=sine freq=1234.5 volume=0.5 ! audio/x-raw,format=F32LE,"
      "rate=48000,channels=2";
  gchar *with = g_strdup_printf ("%s ! gpufftspectrum name=a "
      "multi-channel=true ! fakesink", src);
  gchar *without = g_strdup_printf ("%s ! identity drop-allocation=true ! "
      "gpufftspectrum name=a multi-channel=true ! fakesink", src);
  GstStructure *st_with, *st_without;
  GPtrArray *a, *b;
  guint64 host;
  guint i;

  if (slow_open)
    g_setenv ("GPUFFT_DEBUG_SLOW_OPEN_MS", slow_open, TRUE);
  a = run_pipeline (with, &st_with);
  b = run_pipeline (without, &st_without);
  g_unsetenv ("GPUFFT_DEBUG_SLOW_OPEN_MS");
  fail_unless (gst_structure_get_uint64 (st_with, "device-host-memory-bytes",
          &host));
  GST_INFO ("%" G_GUINT64_FORMAT " bytes of the allocator's memory", host);
  fail_unless (host > 0, "the source did not use the allocator");
  fail_unless (gst_structure_get_uint64 (st_without,
          "device-host-memory-bytes", &host));
  fail_unless_equals_uint64 (host, 0);
  fail_unless_equals_int (a->len, b->len);
  fail_unless (a->len >= 50);
  for (i = 0; i < a->len; i++)
    fail_unless_equals_string (g_ptr_array_index (a, i),
        g_ptr_array_index (b, i));
  gst_structure_free (st_with);
  gst_structure_free (st_without);
  g_ptr_array_unref (a);
  g_ptr_array_unref (b);
  g_free (with);
  g_free (without);
}

GST_START_TEST (test_allocator_source)
{
  run_source_pair (NULL);
}

GST_END_TEST;

GST_START_TEST (test_allocator_source_slow_open)
{
  run_source_pair ("300");
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
  tcase_add_test (tc, test_allocator_downstream_writes);
  tcase_add_test (tc, test_allocator_memory);
  tcase_add_test (tc, test_big_buffers_batches);
  tcase_add_test (tc, test_allocator_source);
  tcase_add_test (tc, test_allocator_source_slow_open);
  return s;
}

GST_CHECK_MAIN (import);
