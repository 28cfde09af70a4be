/* bench-latency: from a buffer entering gpufftspectrum to its message.
 *
 * Pipeline: appsrc is-live=true (F32LE mono 48 kHz, timestamps set by us,
 * pushed at the real-time pace) ! gpufftspectrum fft-size=1024 hop-size=48
 * interval=1ms batch-size=1 message-format=bytes ! fakesink sync=false.
 *
 * Pairing: every buffer is exactly HOP = 48 samples = one 1 ms interval,
 * aligned on the stream start. Interval i = samples [48i, 48i+48) is
 * completed by buffer i, and it holds exactly one frame (frame i-21, whose
 * last sample 48(i-21)+1023 = 48i+15 lies in it) once i >= 21. So buffer i
 * makes exactly one `spectrum` message, whose `timestamp` (the PTS of the
 * interval's first sample) is buffer i's PTS. A probe on the element's sink
 * pad stamps each buffer on entry (CLOCK_MONOTONIC ns, before the element's
 * chain function); a sync bus handler stamps the message as it is posted
 * and looks the buffer up by timestamp. Time in appsrc's queue is not
 * counted. The first WARM pairs are dropped. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gst/gst.h>
#include <gst/app/gstappsrc.h>

#include "bench-common.h"

#define RATE 48000
#define HOP 48                  /* = 1 ms: one interval per buffer */
#define NFFT 1024
#define WARM 100

static gint n_frames = 0;
static gdouble period_us = 1000.0;
static gboolean small = FALSE;
static gchar *format = NULL;

static const GOptionEntry entries[] = {
  {"small", 0, 0, G_OPTION_ARG_NONE, &small, "1000 frames", NULL},
  {"frames", 0, 0, G_OPTION_ARG_INT, &n_frames,
      "Measured frames (default 10000, 1000 small)", "F"},
  {"period-us", 0, 0, G_OPTION_ARG_DOUBLE, &period_us,
      "Wall microseconds between pushes (default 1000 = real time)", "US"},
  {"message-format", 0, 0, G_OPTION_ARG_STRING, &format,
      "message-format of the element (default bytes)", "list|bytes"},
  {NULL}
};

typedef struct
{
  guint n_bufs;
  gint64 *entry;                /* [n_bufs] ns, 0 = not seen */
  gint64 *latency;              /* [n_bufs] ns, 0 = no message */
  gint msgs, unpaired, dup;
} State;

static GstPadProbeReturn
entry_probe (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  State *s = user_data;
  GstBuffer *b = GST_PAD_PROBE_INFO_BUFFER (info);
  guint64 i;

  if (!GST_BUFFER_PTS_IS_VALID (b))
    return GST_PAD_PROBE_OK;
  i = (GST_BUFFER_PTS (b) + GST_MSECOND / 2) / GST_MSECOND;
  if (i < s->n_bufs)
    s->entry[i] = bench_now_ns ();
  return GST_PAD_PROBE_OK;
}

static GstBusSyncReply
on_sync (GstBus * bus, GstMessage * msg, gpointer user_data)
{
  State *s = user_data;
  const GstStructure *st;
  gint64 now = bench_now_ns ();
  guint64 ts, i;

  if (GST_MESSAGE_TYPE (msg) != GST_MESSAGE_ELEMENT)
    return GST_BUS_PASS;
  st = gst_message_get_structure (msg);
  if (st && gst_structure_has_name (st, "spectrum")) {
    s->msgs++;
    if (gst_structure_get_uint64 (st, "timestamp", &ts)
        && (i = (ts + GST_MSECOND / 2) / GST_MSECOND) < s->n_bufs
        && s->entry[i] != 0) {
      if (s->latency[i] != 0)
        s->dup++;
      else
        s->latency[i] = MAX (1, now - s->entry[i]);
    } else {
      s->unpaired++;
    }
  }
  gst_message_unref (msg);
  return GST_BUS_DROP;
}

static int
cmp_i64 (const void *a, const void *b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;
  return x < y ? -1 : x > y;
}

static gdouble
pct (const gint64 * v, guint n, gdouble p)
{
  guint i = (guint) (p / 100.0 * (n - 1) + 0.5);
  return v[MIN (i, n - 1)] * 1e-3;
}

int
main (int argc, char **argv)
{
  GOptionContext *octx = g_option_context_new (NULL);
  GError *err = NULL;
  GstElement *pipe, *src, *ana, *sink;
  GstBus *bus;
  GstPad *pad;
  GstCaps *caps;
  GstBuffer *tmpl;
  GstMessage *msg;
  GstMapInfo map;
  State s;
  gint64 t0, *lat;
  guint i, n_lat = 0, first_msg_buf = (NFFT - 1) / HOP;
  gchar *dev = NULL;
  gint rc = 0;

  g_option_context_set_summary (octx,
      "Latency from buffer entry to message, fft-size 1024, batch-size 1");
  g_option_context_add_main_entries (octx, entries, NULL);
  g_option_context_add_group (octx, gst_init_get_option_group ());
  if (!g_option_context_parse (octx, &argc, &argv, &err)) {
    g_printerr ("%s\n", err->message);
    return 2;
  }
  g_option_context_free (octx);
  if (n_frames <= 0)
    n_frames = small ? 1000 : 10000;

  memset (&s, 0, sizeof s);
  s.n_bufs = first_msg_buf + WARM + n_frames;
  s.entry = g_new0 (gint64, s.n_bufs);
  s.latency = g_new0 (gint64, s.n_bufs);

  pipe = gst_pipeline_new (NULL);
  src = gst_element_factory_make ("appsrc", NULL);
  ana = gst_element_factory_make ("gpufftspectrum", NULL);
  sink = gst_element_factory_make ("fakesink", NULL);
  if (!pipe || !src || !ana || !sink) {
    printf ("missing element (appsrc, gpufftspectrum or fakesink)\n");
    return 1;
  }
  gst_bin_add_many (GST_BIN (pipe), src, ana, sink, NULL);
  gst_element_link_many (src, ana, sink, NULL);
  caps = gst_caps_new_simple ("audio/x-raw", "format", G_TYPE_STRING, "F32LE",
      "rate", G_TYPE_INT, RATE, "channels", G_TYPE_INT, 1,
      "layout", G_TYPE_STRING, "interleaved", NULL);
  g_object_set (src, "caps", caps, "format", GST_FORMAT_TIME, "is-live", TRUE,
      "max-bytes", (guint64) 1 << 20, NULL);
  gst_caps_unref (caps);
  gst_util_set_object_arg (G_OBJECT (ana), "fft-size", "1024");
  gst_util_set_object_arg (G_OBJECT (ana), "hop-size", "48");
  gst_util_set_object_arg (G_OBJECT (ana), "interval", "1000000");
  gst_util_set_object_arg (G_OBJECT (ana), "batch-size", "1");
  gst_util_set_object_arg (G_OBJECT (ana), "message-format",
      format ? format : "bytes");
  g_object_set (sink, "sync", FALSE, "enable-last-sample", FALSE, NULL);

  pad = gst_element_get_static_pad (ana, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, entry_probe, &s, NULL);
  gst_object_unref (pad);
  bus = gst_element_get_bus (pipe);
  gst_bus_set_sync_handler (bus, on_sync, &s, NULL);

  tmpl = gst_buffer_new_allocate (NULL, HOP * 4, NULL);
  gst_buffer_map (tmpl, &map, GST_MAP_WRITE);
  bench_noise_fill ((gfloat *) map.data, HOP, 7);
  gst_buffer_unmap (tmpl, &map);

  if (gst_element_set_state (pipe, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE) {
    printf ("pipeline failed to start\n");
    return 1;
  }
  t0 = bench_now_ns ();
  for (i = 0; i < s.n_bufs; i++) {
    GstBuffer *b = gst_buffer_copy (tmpl);
    gint64 due = t0 + (gint64) (i * period_us * 1000.0), now;
    GST_BUFFER_PTS (b) = (GstClockTime) i * GST_MSECOND;
    GST_BUFFER_DURATION (b) = GST_MSECOND;
    GST_BUFFER_OFFSET (b) = (guint64) i * HOP;
    GST_BUFFER_OFFSET_END (b) = (guint64) (i + 1) * HOP;
    while ((now = bench_now_ns ()) < due) {
      if (due - now > 200000)
        g_usleep ((due - now - 100000) / 1000);
    }
    if (gst_app_src_push_buffer (GST_APP_SRC (src), b) != GST_FLOW_OK)
      break;
  }
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  msg = gst_bus_timed_pop_filtered (bus, 120 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  if (!msg || GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    if (msg)
      gst_message_parse_error (msg, &err, NULL);
    printf ("pipeline %s%s\n", err ? "error: " : "timeout",
        err ? err->message : "");
    g_clear_error (&err);
    rc = 1;
  }
  if (msg)
    gst_message_unref (msg);
  if (g_object_class_find_property (G_OBJECT_GET_CLASS (ana), "device-name"))
    g_object_get (ana, "device-name", &dev, NULL);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_bus_set_sync_handler (bus, NULL, NULL, NULL);
  gst_object_unref (bus);

  lat = g_new (gint64, s.n_bufs);
  for (i = first_msg_buf + WARM; i < s.n_bufs; i++)
    if (s.latency[i] > 0)
      lat[n_lat++] = s.latency[i];
  qsort (lat, n_lat, sizeof (gint64), cmp_i64);

  bench_print_header ("latency: buffer entering gpufftspectrum -> its "
      "spectrum message posted", dev);
  printf ("appsrc is-live, F32LE mono 48 kHz, %d-sample buffers pushed every "
      "%.0f us; fft-size %d, hop-size %d, interval 1 ms, batch-size 1, "
      "message-format=%s; first %d pairs dropped\n", HOP, period_us, NFFT,
      HOP, format ? format : "bytes", WARM);
  printf ("%7s %8s | %9s %9s %9s %9s %9s %9s | %6s %6s %4s\n", "frames",
      "messages", "p50 us", "p90 us", "p99 us", "p99.9 us", "max us",
      "mean us", "miss", "unpair", "dup");
  if (n_lat > 0) {
    gdouble mean = 0;
    for (i = 0; i < n_lat; i++)
      mean += lat[i];
    mean /= n_lat;
    printf ("%7u %8d | %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f | %6u %6d %4d\n",
        n_lat, s.msgs, pct (lat, n_lat, 50), pct (lat, n_lat, 90),
        pct (lat, n_lat, 99), pct (lat, n_lat, 99.9), lat[n_lat - 1] * 1e-3,
        mean * 1e-3, (guint) n_frames - n_lat, s.unpaired, s.dup);
    printf ("@latency frames=%u p50_us=%.1f p99_us=%.1f max_us=%.1f "
        "missing=%u unpaired=%d\n", n_lat, pct (lat, n_lat, 50),
        pct (lat, n_lat, 99), lat[n_lat - 1] * 1e-3,
        (guint) n_frames - n_lat, s.unpaired);
  } else {
    printf ("%7u %8d | no buffer/message pair (messages: %d, unpaired %d)\n",
        0u, s.msgs, s.msgs, s.unpaired);
    rc = 1;
  }
  g_free (lat);
  g_free (dev);
  g_free (s.entry);
  g_free (s.latency);
  gst_buffer_unref (tmpl);
  gst_object_unref (pipe);
  return rc;
}
