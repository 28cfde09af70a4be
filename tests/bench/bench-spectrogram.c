/* bench-spectrogram: what gpufftspectrogram costs per video frame, and
 * whether it keeps up, at the sizes people watch.
 *
 * For each case (size, frame rate) it runs, in this process,
 *   audiotestsrc [is-live=true] samplesperbuffer=480 num-buffers=B
 *     ! audio/x-raw,format=F32LE,rate=48000,channels=2
 *     ! gpufftspectrogram [mode] ! video/x-raw,format=RGBA,width=W,height=H,
 *       framerate=F/1 ! fakesink sync=S qos=true
 * twice: "fast" (not live, sync=false: as fast as it goes) and "live"
 * (is-live=true, sync=true: the audio clock paces it; frames the sink says
 * are late are not drawn, QoS). It reports
 *   frames      frames rendered (the element's stats)
 *   cpu/frame   process CPU time (user + system, every thread: on a CPU
 *               Vulkan device such as lavapipe this includes the "GPU"
 *               work) minus the same pipeline without the element, per
 *               frame
 *   rt factor   fast: seconds of audio per second of wall time (>= 1:
 *               real time); live: the share of frames not dropped by QoS
 *   % core      live: element CPU / wall time (100 % = one core)
 *
 * usage: bench-spectrogram [--seconds S] [--mode waterfall|both|spectrum]
 *                          [--case WxH@F ...]
 * default cases 1280x720@30 and 1920x1080@60, 10 s of audio. */
#include <gst/gst.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

static gdouble
cpu_seconds (void)
{
  struct rusage ru;

  getrusage (RUSAGE_SELF, &ru);
  return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
      ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

typedef struct
{
  gdouble wall, cpu;
  guint64 rendered, dropped;
} Result;

static gboolean
run (const gchar * desc, Result * r)
{
  GError *err = NULL;
  GstElement *p = gst_parse_launch (desc, &err), *sg;
  GstBus *bus;
  GstMessage *m;
  gint64 t0;
  gdouble c0;
  gboolean ok;

  if (!p) {
    g_printerr ("%s\n", err->message);
    return FALSE;
  }
  bus = gst_element_get_bus (p);
  c0 = cpu_seconds ();
  t0 = g_get_monotonic_time ();
  gst_element_set_state (p, GST_STATE_PLAYING);
  m = gst_bus_timed_pop_filtered (bus, GST_CLOCK_TIME_NONE,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  r->wall = (g_get_monotonic_time () - t0) / 1e6;
  r->cpu = cpu_seconds () - c0;
  ok = GST_MESSAGE_TYPE (m) == GST_MESSAGE_EOS;
  if (!ok) {
    GError *e = NULL;

    gst_message_parse_error (m, &e, NULL);
    g_printerr ("error: %s\n", e->message);
    g_error_free (e);
  }
  gst_message_unref (m);
  r->rendered = r->dropped = 0;
  sg = gst_bin_get_by_name (GST_BIN (p), "sg");
  if (sg) {
    GstStructure *s;

    g_object_get (sg, "stats", &s, NULL);
    gst_structure_get_uint64 (s, "rendered", &r->rendered);
    gst_structure_get_uint64 (s, "dropped", &r->dropped);
    gst_structure_free (s);
    gst_object_unref (sg);
  }
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (p);
  return ok;
}

int
main (int argc, char **argv)
{
  gdouble seconds = 10;
  gchar *mode = NULL;
  gchar **cases = NULL;
  GOptionEntry entries[] = {
    {"seconds", 's', 0, G_OPTION_ARG_DOUBLE, &seconds, "Audio per run", "S"},
    {"mode", 'm', 0, G_OPTION_ARG_STRING, &mode, "Element mode", "MODE"},
    {"case", 'c', 0, G_OPTION_ARG_STRING_ARRAY, &cases, "WxH@FPS", "CASE"},
    {NULL}
  };
  const gchar *default_cases[] = { "1280x720@30", "1920x1080@60", NULL };
  GOptionContext *ctx = g_option_context_new ("- gpufftspectrogram cost");
  GError *err = NULL;
  guint i, buffers;

  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  if (!g_option_context_parse (ctx, &argc, &argv, &err)) {
    g_printerr ("%s\n", err->message);
    return 1;
  }
  g_option_context_free (ctx);
  buffers = (guint) (seconds * 100);    /* 480 samples = 10 ms */

  printf ("%-14s %-5s %7s %7s %10s %10s %9s %8s\n", "case", "run", "frames",
      "dropped", "wall s", "cpu/frame", "rt factor", "% core");
  for (i = 0; cases ? cases[i] != NULL : default_cases[i] != NULL; i++) {
    const gchar *c = cases ? cases[i] : default_cases[i];
    guint w, h, f, live;

    if (sscanf (c, "%ux%u@%u", &w, &h, &f) != 3) {
      g_printerr ("bad case %s (WxH@FPS)\n", c);
      return 1;
    }
    for (live = 0; live < 2; live++) {
      gchar *src = g_strdup_printf ("audiotestsrc wave=sine freq=1000 "
          "is-live=%s samplesperbuffer=480 num-buffers=%u ! "
          "audio/x-raw,format=F32LE,rate=48000,channels=2", live ? "true" :
          "false", buffers);
      gchar *with = g_strdup_printf ("%s ! gpufftspectrogram name=sg %s%s ! "
          "video/x-raw,format=RGBA,width=%u,height=%u,framerate=%u/1 ! "
          "fakesink sync=%s qos=true", src, mode ? "mode=" : "", mode ? mode : "", w,
          h, f, live ? "true" : "false");
      gchar *without = g_strdup_printf ("%s ! fakesink sync=%s", src,
          live ? "true" : "false");
      Result a, b;
      gdouble cpu;

      if (!run (without, &b) || !run (with, &a))
        return 1;
      cpu = a.cpu - b.cpu;
      printf ("%-14s %-5s %7" G_GUINT64_FORMAT " %7" G_GUINT64_FORMAT
          " %10.2f %8.2f ms %9.2f %7.1f%%\n", c, live ? "live" : "fast",
          a.rendered, a.dropped, a.wall,
          a.rendered ? 1e3 * cpu / a.rendered : 0.0,
          live ? (gdouble) a.rendered / MAX (1, a.rendered + a.dropped) :
          seconds / a.wall, live ? 100 * cpu / a.wall : 100 * cpu / a.wall);
      fflush (stdout);
      g_free (src);
      g_free (with);
      g_free (without);
    }
  }
  return 0;
}
