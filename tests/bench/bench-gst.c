/* bench-gst: end to end through GStreamer.
 *   appsrc (F32LE, 48 kHz, C channels, the same pre-filled memory pushed
 *   again and again: each push is a shallow copy with new timestamps, so
 *   the source costs no memcpy) ! gpufftspectrum fft-size=4096
 *   hop-size=1024 interval=100ms multi-channel=true message-format=bytes
 *   (--interval-ms, --no-messages change the interval and post-messages)
 *   ! fakesink sync=false
 * and the same with GStreamer's CPU `spectrum` (bands=2049 -> nfft 4096,
 * multi-channel=true, its only overlap-free framing).
 * Throughput is measured at the fakesink: from the arrival of the WARM-th
 * buffer (the plan and the caps are settled) to the arrival of EOS (the
 * analyser has drained its GPU work and posted its last message); CPU time
 * is getrusage(RUSAGE_SELF) over the same span, all threads. A sync bus
 * handler counts the `spectrum` messages (and checks the first one's
 * magnitude shape) and drops them. */
#include <stdio.h>
#include <string.h>
#include <gst/gst.h>
#include <gst/app/gstappsrc.h>

#include "bench-common.h"

#define RATE 48000
#define NFFT 4096
#define WARM 3

static gchar *channels_str = NULL;
static gchar *spectrum_channels_str = NULL;
static gdouble seconds = 0, spectrum_seconds = 0, buffer_kib = 1024;
static gdouble max_gsamples = 0, interval_ms = 100;
static gboolean small = FALSE, skip_spectrum = FALSE, with_allocator = FALSE;
static gboolean no_messages = FALSE, print_stats = FALSE, with_identity = FALSE;
static gchar *device_name = NULL;       /* of the last gpufftspectrum run */

static const GOptionEntry entries[] = {
  {"small", 0, 0, G_OPTION_ARG_NONE, &small,
      "Short runs (for a CPU Vulkan device)", NULL},
  {"channels", 0, 0, G_OPTION_ARG_STRING, &channels_str,
      "Channel counts for gpufftspectrum (default 1,8,64,256,1024)", "C,..."},
  {"spectrum-channels", 0, 0, G_OPTION_ARG_STRING, &spectrum_channels_str,
      "Channel counts for spectrum (default 1,8,64,256)", "C,..."},
  {"seconds", 0, 0, G_OPTION_ARG_DOUBLE, &seconds,
      "Wall seconds per gpufftspectrum run (default 6, 3 small)", "S"},
  {"spectrum-seconds", 0, 0, G_OPTION_ARG_DOUBLE, &spectrum_seconds,
      "Wall seconds per spectrum run (default 3, 2 small)", "S"},
  {"max-gsamples", 0, 0, G_OPTION_ARG_DOUBLE, &max_gsamples,
      "Stop after this many G samples (default 8, 0.05 small)", "G"},
  {"buffer-kib", 0, 0, G_OPTION_ARG_DOUBLE, &buffer_kib,
      "KiB per pushed buffer (default 1024; at least 1024 frames)", "K"},
  {"no-spectrum", 0, 0, G_OPTION_ARG_NONE, &skip_spectrum,
      "Skip the CPU spectrum element", NULL},
  {"interval-ms", 0, 0, G_OPTION_ARG_DOUBLE, &interval_ms,
      "The analysers' interval in ms, at least 1 (default 100)", "MS"},
  {"no-messages", 0, 0, G_OPTION_ARG_NONE, &no_messages,
      "post-messages=false on the analysers (the analysis still runs)", NULL},
  {"identity", 0, 0, G_OPTION_ARG_NONE, &with_identity,
      "Also run identity in the analyser's place (the pipeline's own cost: "
        "identity rows, at the gpufftspectrum channel counts)", NULL},
  {"stats", 0, 0, G_OPTION_ARG_NONE, &print_stats,
      "Print gpufftspectrum's stats structure after each run (@stats)", NULL},
  {"allocator", 0, 0, G_OPTION_ARG_NONE, &with_allocator,
      "Also run gpufftspectrum with the pushed memory from the element's "
        "allocator (its answer to the ALLOCATION query, asked once the "
        "first buffer's caps have passed it, and again after its "
        "RECONFIGURE): gpufft+alloc rows, CHECK where the device read none "
        "of it in place", NULL},
  {NULL}
};

typedef struct
{
  guint channels;
  gboolean is_gpufft;
  /* at the fakesink (streaming thread) */
  guint64 buffers;
  guint64 samples;              /* per channel, after the WARM-th buffer */
  gint64 t_start, t_end;
  gdouble cpu_start, cpu_end;
  /* bus (posting threads) */
  gint msgs;
  gint bad_shape;
  gint checked;
  /* the caps through the analyser (it answers ALLOCATION queries from
   * then on) and its RECONFIGURE upstream (its device is open) */
  GMutex lock;
  GCond cond;
  gboolean negotiated;
  gboolean reconfigured;
  gboolean failed;              /* an error was posted */
} Run;

/* appsrc's pad: the RECONFIGURE event the analyser sends upstream once its
 * device is open and its allocator can be offered */
static GstPadProbeReturn
src_probe (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  Run *r = user_data;
  GstEvent *ev = GST_PAD_PROBE_INFO_EVENT (info);

  if (GST_EVENT_TYPE (ev) == GST_EVENT_RECONFIGURE) {
    g_mutex_lock (&r->lock);
    r->reconfigured = TRUE;
    g_cond_broadcast (&r->cond);
    g_mutex_unlock (&r->lock);
  }
  return GST_PAD_PROBE_OK;
}

static GstPadProbeReturn
sink_probe (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  Run *r = user_data;

  if (info->type & GST_PAD_PROBE_TYPE_BUFFER) {
    GstBuffer *b = GST_PAD_PROBE_INFO_BUFFER (info);
    r->buffers++;
    if (r->buffers == WARM) {
      r->t_start = bench_now_ns ();
      r->cpu_start = bench_cpu_seconds ();
    } else if (r->buffers > WARM) {
      r->samples += gst_buffer_get_size (b) / (4 * r->channels);
    }
  } else if (info->type & GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM) {
    GstEvent *e = GST_PAD_PROBE_INFO_EVENT (info);
    if (GST_EVENT_TYPE (e) == GST_EVENT_EOS) {
      r->t_end = bench_now_ns ();
      r->cpu_end = bench_cpu_seconds ();
    } else if (GST_EVENT_TYPE (e) == GST_EVENT_CAPS) {
      g_mutex_lock (&r->lock);
      r->negotiated = TRUE;
      g_cond_broadcast (&r->cond);
      g_mutex_unlock (&r->lock);
    }
  }
  return GST_PAD_PROBE_OK;
}

/* Number of float values the magnitude field carries, -1 if unknown. */
static gint
magnitude_values (const GstStructure * s)
{
  const GValue *v = gst_structure_get_value (s, "magnitude");

  if (!v)
    return -1;
  if (G_VALUE_HOLDS (v, G_TYPE_BYTES)) {
    GBytes *b = g_value_get_boxed (v);
    return b ? (gint) (g_bytes_get_size (b) / 4) : -1;
  }
  if (GST_VALUE_HOLDS_LIST (v))
    return gst_value_list_get_size (v);
  if (GST_VALUE_HOLDS_ARRAY (v)) {
    guint n = gst_value_array_get_size (v), i;
    gint total = 0;
    for (i = 0; i < n; i++) {
      const GValue *c = gst_value_array_get_value (v, i);
      if (GST_VALUE_HOLDS_ARRAY (c))
        total += gst_value_array_get_size (c);
      else
        total++;
    }
    return total;
  }
  return -1;
}

static GstBusSyncReply
on_sync (GstBus * bus, GstMessage * msg, gpointer user_data)
{
  Run *r = user_data;
  const GstStructure *s;

  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    g_mutex_lock (&r->lock);
    r->failed = TRUE;
    g_cond_broadcast (&r->cond);
    g_mutex_unlock (&r->lock);
  }
  if (GST_MESSAGE_TYPE (msg) != GST_MESSAGE_ELEMENT)
    return GST_BUS_PASS;
  s = gst_message_get_structure (msg);
  if (s && gst_structure_has_name (s, "spectrum")) {
    g_atomic_int_inc (&r->msgs);
    if (g_atomic_int_compare_and_exchange (&r->checked, 0, 1)) {
      gint vals = magnitude_values (s);
      if (vals != (gint) (r->channels * (NFFT / 2 + 1))) {
        g_printerr ("first message: magnitude holds %d values, expected "
            "%u\n", vals, r->channels * (NFFT / 2 + 1));
        g_atomic_int_inc (&r->bad_shape);
      }
    }
  }
  gst_message_unref (msg);
  return GST_BUS_DROP;
}

static void
set_prop (GstElement * e, const gchar * name, const gchar * value)
{
  if (!g_object_class_find_property (G_OBJECT_GET_CLASS (e), name)) {
    g_printerr ("%s has no property '%s'\n", GST_ELEMENT_NAME (e), name);
    return;
  }
  gst_util_set_object_arg (G_OBJECT (e), name, value);
}

static GstCaps *
make_caps (guint channels)
{
  GstCaps *caps = gst_caps_new_simple ("audio/x-raw",
      "format", G_TYPE_STRING, "F32LE", "rate", G_TYPE_INT, RATE,
      "channels", G_TYPE_INT, (gint) channels,
      "layout", G_TYPE_STRING, "interleaved", NULL);

  if (channels == 2)
    gst_caps_set_simple (caps, "channel-mask", GST_TYPE_BITMASK,
        (guint64) 0x3, NULL);
  else if (channels > 2)
    gst_caps_set_simple (caps, "channel-mask", GST_TYPE_BITMASK,
        (guint64) 0, NULL);
  return caps;
}

/* The allocator the analyser offers upstream, or NULL (a new query each
 * call). */
static GstAllocator *
offered_allocator (GstPad * pad, GstCaps * caps)
{
  GstQuery *q = gst_query_new_allocation (caps, FALSE);
  GstAllocator *allocator = NULL;

  if (gst_pad_query (pad, q) && gst_query_get_n_allocation_params (q) > 0)
    gst_query_parse_nth_allocation_param (q, 0, &allocator, NULL);
  gst_query_unref (q);
  return allocator;
}

/* pushes tmpl's memory (shared) as the frames from *offset on */
static GstFlowReturn
push_copy (GstElement * src, GstBuffer * tmpl, guint64 * offset, guint64 frames)
{
  GstBuffer *b = gst_buffer_copy (tmpl);        /* shares the memory */

  GST_BUFFER_PTS (b) = gst_util_uint64_scale (*offset, GST_SECOND, RATE);
  GST_BUFFER_DURATION (b) = gst_util_uint64_scale (*offset + frames,
      GST_SECOND, RATE) - GST_BUFFER_PTS (b);
  GST_BUFFER_OFFSET (b) = *offset;
  GST_BUFFER_OFFSET_END (b) = *offset + frames;
  *offset += frames;
  return gst_app_src_push_buffer (GST_APP_SRC (src), b);
}

/* tmpl's bytes in memory of the allocator the analyser offers upstream
 * once its device is open; tmpl itself when it offers none. Before the
 * first buffer's caps, GstBaseTransform leaves the analyser's ALLOCATION
 * query unanswered (not negotiated, not passthrough); when those caps
 * reach the sink, the analyser is passthrough (the same caps on both
 * sides) and answers. Its device opens at the first buffer (at once where
 * the process has one open), or, for a stream that starts on the host
 * (GPUFFT_HOST_LEAD), once a quarter of the lead's audio has come; an
 * analyser asked before that sends a RECONFIGURE upstream once it is
 * open. So: waits for the caps to reach the sink, asks, and if there is
 * no allocator yet pushes tmpl's buffers (from *offset on, frames each)
 * until the RECONFIGURE comes, then asks again (up to 60 s in all, less
 * on an error). */
static GstBuffer *
in_element_memory (Run * r, GstElement * ana, GstCaps * caps, GstBuffer * tmpl,
    GstElement * src, guint64 * offset, guint64 frames)
{
  GstPad *pad = gst_element_get_static_pad (ana, "sink");
  GstAllocator *allocator;
  GstBuffer *out = tmpl;
  GstMapInfo map;
  gint64 until = g_get_monotonic_time () + 60 * G_TIME_SPAN_SECOND;

  g_mutex_lock (&r->lock);
  while (!r->negotiated && !r->failed
      && g_cond_wait_until (&r->cond, &r->lock, until));
  g_mutex_unlock (&r->lock);
  allocator = offered_allocator (pad, caps);
  if (allocator == NULL) {
    gboolean done = FALSE;

    while (!done) {
      g_mutex_lock (&r->lock);
      done = r->reconfigured || r->failed
          || g_get_monotonic_time () >= until;
      g_mutex_unlock (&r->lock);
      if (!done && push_copy (src, tmpl, offset, frames) != GST_FLOW_OK)
        done = TRUE;
    }
    allocator = offered_allocator (pad, caps);
  }
  if (allocator) {
    out = gst_buffer_new_allocate (allocator, gst_buffer_get_size (tmpl), NULL);
    gst_buffer_map (tmpl, &map, GST_MAP_READ);
    gst_buffer_fill (out, 0, map.data, map.size);
    gst_buffer_unmap (tmpl, &map);
    gst_buffer_unref (tmpl);
    gst_object_unref (allocator);
  } else {
    g_printerr ("the analyser offers no allocator\n");
  }
  gst_object_unref (pad);
  return out;
}

/* One run of factory (gpufftspectrum, spectrum or identity); prints its
 * table row. FALSE when it could not run at all. alloc: the pushed memory
 * is the element's allocator's. */
static gboolean
run_one (const gchar * factory, gboolean alloc, guint channels,
    gdouble wall_cap, guint64 max_samples)
{
  gboolean gpufft = g_str_equal (factory, "gpufftspectrum");
  gboolean as_identity = g_str_equal (factory, "identity");
  const gchar *label = gpufft && alloc ? "gpufft+alloc" : factory;
  guint64 host_bytes = 0;
  Run r;
  GstElement *pipe, *src, *ana, *sink;
  GstPad *pad;
  GstBus *bus;
  GstBuffer *tmpl;
  GstMessage *msg;
  GstMapInfo map;
  GstCaps *caps;
  guint64 frames_per_buf, offset = 0;
  guint64 interval_frames = MAX (1, (guint64) (RATE * interval_ms / 1000 +
          0.5));
  gchar *ival;
  gint64 t0, t_play, t_stop;
  gboolean ok = TRUE;
  gchar *dev = NULL;

  memset (&r, 0, sizeof r);
  r.channels = channels;
  r.is_gpufft = gpufft;
  pipe = gst_pipeline_new (NULL);
  src = gst_element_factory_make ("appsrc", "src");
  ana = gst_element_factory_make (factory, "ana");
  sink = gst_element_factory_make ("fakesink", "sink");
  if (!pipe || !src || !ana || !sink) {
    printf ("%-14s %5u  missing element (appsrc, %s or fakesink)\n",
        label, channels, factory);
    gst_clear_object (&pipe);
    gst_clear_object (&src);
    gst_clear_object (&ana);
    gst_clear_object (&sink);
    return FALSE;
  }
  g_mutex_init (&r.lock);
  g_cond_init (&r.cond);
  gst_bin_add_many (GST_BIN (pipe), src, ana, sink, NULL);
  gst_element_link_many (src, ana, sink, NULL);

  caps = make_caps (channels);
  g_object_set (src, "caps", caps, "format", GST_FORMAT_TIME, "block", TRUE,
      "is-live", FALSE, NULL);
  if (!as_identity) {
    ival = g_strdup_printf ("%" G_GUINT64_FORMAT,
        (guint64) (interval_ms * 1e6 + 0.5));
    set_prop (ana, "interval", ival);
    g_free (ival);
    set_prop (ana, "multi-channel", "true");
    set_prop (ana, "post-messages", no_messages ? "false" : "true");
    if (gpufft) {
      set_prop (ana, "fft-size", "4096");
      set_prop (ana, "hop-size", "1024");
      set_prop (ana, "message-format", "bytes");
    } else {
      set_prop (ana, "bands", "2049");
    }
  }
  g_object_set (sink, "sync", FALSE, "enable-last-sample", FALSE, NULL);

  /* the pre-filled buffer: noise, at least 1024 frames */
  frames_per_buf = MAX (1024, (guint64) (buffer_kib * 1024 / (4 * channels)));
  frames_per_buf = frames_per_buf / 1024 * 1024;
  tmpl = gst_buffer_new_allocate (NULL, frames_per_buf * channels * 4, NULL);
  gst_buffer_map (tmpl, &map, GST_MAP_WRITE);
  bench_noise_fill ((gfloat *) map.data, frames_per_buf * channels, channels);
  gst_buffer_unmap (tmpl, &map);
  g_object_set (src, "max-bytes", (guint64) (3 * frames_per_buf * channels *
          4), NULL);

  pad = gst_element_get_static_pad (sink, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER |
      GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, sink_probe, &r, NULL);
  gst_object_unref (pad);
  pad = gst_element_get_static_pad (src, "src");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_EVENT_UPSTREAM, src_probe, &r,
      NULL);
  gst_object_unref (pad);
  bus = gst_element_get_bus (pipe);
  gst_bus_set_sync_handler (bus, on_sync, &r, NULL);

  t_play = bench_now_ns ();
  if (gst_element_set_state (pipe, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE) {
    ok = FALSE;
  } else {
    /* the first buffers (of the WARM) open the analyser's device; the
     * rest are in its allocator's memory */
    if (alloc && push_copy (src, tmpl, &offset, frames_per_buf) == GST_FLOW_OK)
      tmpl = in_element_memory (&r, ana, caps, tmpl, src, &offset,
          frames_per_buf);
    t0 = bench_now_ns ();
    for (;;) {
      guint64 n_bufs = offset / frames_per_buf;
      if (offset * channels >= max_samples
          || (n_bufs > WARM + 2 && (bench_now_ns () - t0) * 1e-9 > wall_cap))
        break;
      if (push_copy (src, tmpl, &offset, frames_per_buf) != GST_FLOW_OK)
        break;
    }
    gst_app_src_end_of_stream (GST_APP_SRC (src));
    msg = gst_bus_timed_pop_filtered (bus, 300 * GST_SECOND,
        GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
    if (!msg || GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
      GError *err = NULL;
      gchar *dbg = NULL;
      if (msg)
        gst_message_parse_error (msg, &err, &dbg);
      printf ("%-14s %5u  %s%s\n", label, channels, err ? "error: " : "timeout",
          err ? err->message : "");
      g_clear_error (&err);
      g_free (dbg);
      ok = FALSE;
    }
    if (msg)
      gst_message_unref (msg);
  }
  gst_caps_unref (caps);
  if (gpufft && g_object_class_find_property (G_OBJECT_GET_CLASS (ana),
          "device-name"))
    g_object_get (ana, "device-name", &dev, NULL);
  if (gpufft) {
    GstStructure *st = NULL;

    g_object_get (ana, "stats", &st, NULL);
    if (st)
      gst_structure_get_uint64 (st, "device-host-memory-bytes", &host_bytes);
    if (st && print_stats) {
      gchar *txt = gst_structure_to_string (st);
      printf ("@stats channels=%u alloc=%d %s\n", channels, alloc, txt);
      g_free (txt);
    }
    g_clear_pointer (&st, gst_structure_free);
  }
  t_stop = bench_now_ns ();
  gst_element_set_state (pipe, GST_STATE_NULL);
  t_stop = bench_now_ns () - t_stop;
  gst_bus_set_sync_handler (bus, NULL, NULL, NULL);
  gst_object_unref (bus);

  if (ok && r.t_end > r.t_start && r.buffers > WARM) {
    gdouble wall = (r.t_end - r.t_start) * 1e-9;
    gdouble cpu = r.cpu_end - r.cpu_start;
    gdouble samples = (gdouble) r.samples * channels;
    gdouble audio_s = (gdouble) r.samples / RATE;
    guint64 total_frames = offset;
    gint expected = no_messages || as_identity ? 0 : (gint) ((total_frames +
            interval_frames - 1) / interval_frames);
    /* (a gpufft+alloc row whose memory the device never read in place
     * measured the copy path: CHECK) */
    gboolean good = r.bad_shape == 0 && r.msgs >= expected - 1
        && r.msgs <= expected && (!alloc || host_bytes > 0);

    printf ("%-14s %5u %7" G_GUINT64_FORMAT " %9.1f %8.3f | %10.2f %9.1f | "
        "%8.3f %10.2f %9.3f | %7d %7d %s\n",
        label, channels, r.buffers,
        audio_s, wall, samples / wall * 1e-6, audio_s / wall, cpu,
        cpu / audio_s * 1e3, cpu / samples * 1e9, r.msgs, expected,
        good ? "ok" : "CHECK");
    printf ("@gst element=%s channels=%u samples=%.0f wall_s=%.4f cpu_s=%.4f "
        "msgs=%d expected=%d host_memory_bytes=%" G_GUINT64_FORMAT
        " device=\"%s\" start_s=%.3f stop_s=%.3f\n", label, channels,
        samples, wall, cpu, r.msgs, expected, host_bytes, dev ? dev : "",
        (r.t_start - t_play) * 1e-9, t_stop * 1e-9);
  } else if (ok) {
    printf ("%-14s %5u  too short to measure (%" G_GUINT64_FORMAT
        " buffers)\n", label, channels, r.buffers);
  }
  fflush (stdout);
  if (dev) {
    g_free (device_name);
    device_name = dev;
  }
  gst_buffer_unref (tmpl);
  gst_object_unref (pipe);
  g_mutex_clear (&r.lock);
  g_cond_clear (&r.cond);
  return ok;
}

static guint
parse_list (const gchar * str, const gchar * def, guint * out, guint max)
{
  gchar **parts = g_strsplit (str ? str : def, ",", -1);
  guint n = 0, i;

  for (i = 0; parts[i] && n < max; i++) {
    guint64 v = g_ascii_strtoull (parts[i], NULL, 10);
    if (v >= 1 && v <= 4096)
      out[n++] = (guint) v;
  }
  g_strfreev (parts);
  return n;
}

int
main (int argc, char **argv)
{
  GOptionContext *octx = g_option_context_new (NULL);
  GError *err = NULL;
  guint ch[16], sch[16], nch, nsch, i;
  gint rc = 0;

  g_option_context_set_summary (octx,
      "End to end: appsrc ! gpufftspectrum / spectrum ! fakesink");
  g_option_context_add_main_entries (octx, entries, NULL);
  g_option_context_add_group (octx, gst_init_get_option_group ());
  if (!g_option_context_parse (octx, &argc, &argv, &err)) {
    g_printerr ("%s\n", err->message);
    return 2;
  }
  g_option_context_free (octx);
  if (interval_ms < 1) {
    g_printerr ("--interval-ms: at least 1\n");
    return 2;
  }
  if (seconds <= 0)
    seconds = small ? 3 : 6;
  if (spectrum_seconds <= 0)
    spectrum_seconds = small ? 2 : 3;
  if (max_gsamples <= 0)
    max_gsamples = small ? 0.05 : 8;
  nch = parse_list (channels_str, small ? "1,8,64" : "1,8,64,256,1024", ch, 16);
  nsch = parse_list (spectrum_channels_str, small ? "1,8" : "1,8,64,256",
      sch, 16);

  bench_print_header ("end to end: appsrc ! analyser ! fakesink, F32LE "
      "48 kHz, nfft 4096, multi-channel", NULL);
  printf ("interval %.1f ms%s\n", interval_ms,
      no_messages ? ", post-messages=false" : "");
  printf ("gpufftspectrum hop 1024, message-format=bytes; spectrum "
      "bands=2049 (hop 4096); %.0f KiB buffers (>= 1024 frames) reused; "
      "wall cap %.0f s (spectrum %.0f s), at most %.2f G samples; "
      "CPU = getrusage of the whole process\n", buffer_kib, seconds,
      spectrum_seconds, max_gsamples);
  printf ("%-14s %5s %7s %9s %8s | %10s %9s | %8s %10s %9s | %7s %7s %s\n",
      "element", "ch", "buffers", "audio s", "wall s", "Msamp/s", "x RT",
      "CPU s", "CPUms/as", "CPU ns/s", "msgs", "expect", "check");
  for (i = 0; i < nch; i++) {
    if (with_identity && !run_one ("identity", FALSE, ch[i], seconds,
            (guint64) (max_gsamples * 1e9)))
      rc = 1;
    if (!run_one ("gpufftspectrum", FALSE, ch[i], seconds,
            (guint64) (max_gsamples * 1e9)))
      rc = 1;
    if (with_allocator && !run_one ("gpufftspectrum", TRUE, ch[i], seconds,
            (guint64) (max_gsamples * 1e9)))
      rc = 1;
  }
  if (!skip_spectrum)
    for (i = 0; i < nsch; i++)
      if (!run_one ("spectrum", FALSE, sch[i], spectrum_seconds,
              (guint64) (max_gsamples * 1e9)))
        rc = 1;
  printf ("(x RT = audio seconds per wall second; CPUms/as = CPU ms per "
      "audio second; CPU ns/s = CPU ns per sample, all channels; "
      "gpufftspectrum ran on: %s)\n", device_name ? device_name : "-");
  return rc;
}
