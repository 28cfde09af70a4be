/* bench-startup-run: one run of bench-startup.py, in C, for machines whose
 * Python has no GStreamer bindings (the GPU machine).
 *
 *   bench-startup-run [--live] BUFFERS ELEMENT-DESCRIPTION [CAPS-AFTER]
 *
 * Runs
 *   audiotestsrc [is-live=true] samplesperbuffer=480 num-buffers=BUFFERS
 *     ! audio/x-raw,format=F32LE,rate=48000,channels=2
 *     ! ELEMENT-DESCRIPTION name=el [! CAPS-AFTER] ! fakesink sync=false
 * and prints one JSON line with the same fields as bench-startup.py's own
 * child: first_buf_ms (the first buffer on el's src pad) and first_msg_ms
 * (el's first element message), both from the PLAYING request; wall_s (the
 * process's age at the end, from /proc/self/stat) and cpu_s (user + system
 * CPU of the whole process); error (null or the error's text).
 * Exit status 0, also for a pipeline error (it is in the line); 2 on a bad
 * command line. */
#include <gst/gst.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static gint64 first_buf = -1;

static GstPadProbeReturn
on_buffer (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  /* one streaming thread; the probe is removed after the first buffer, and
   * the value is read after the pipeline is stopped */
  if (first_buf < 0)
    first_buf = g_get_monotonic_time ();
  return GST_PAD_PROBE_REMOVE;
}

static double
process_age (void)
{
  gchar *stat = NULL, *up = NULL, *p;
  double age = -1;
  unsigned long long start = 0;
  int i;

  if (g_file_get_contents ("/proc/self/stat", &stat, NULL, NULL)
      && g_file_get_contents ("/proc/uptime", &up, NULL, NULL)
      && (p = strrchr (stat, ')')) != NULL) {
    /* field 22 (starttime); p points at the ')' closing field 2 */
    for (i = 0; i < 20 && p; i++)
      p = strchr (p + 1, ' ');
    if (p && sscanf (p + 1, "%llu", &start) == 1)
      age = g_ascii_strtod (up, NULL) - (double) start / sysconf (_SC_CLK_TCK);
  }
  g_free (stat);
  g_free (up);
  return age;
}

static void
print_ms (const char *key, gint64 t, gint64 t0)
{
  if (t < 0)
    printf ("\"%s\": null, ", key);
  else
    printf ("\"%s\": %.3f, ", key, (t - t0) / 1000.0);
}

int
main (int argc, char **argv)
{
  gboolean live = FALSE;
  GstElement *pipe, *el;
  GstPad *pad;
  GstBus *bus;
  GError *err = NULL;
  gchar *desc, *error = NULL;
  gint64 t0, first_msg = -1;
  struct rusage ru;
  int a = 1;

  gst_init (&argc, &argv);
  if (a < argc && strcmp (argv[a], "--live") == 0) {
    live = TRUE;
    a++;
  }
  if (argc - a < 2) {
    fprintf (stderr, "usage: %s [--live] BUFFERS ELEMENT [CAPS-AFTER]\n",
        argv[0]);
    return 2;
  }
  desc = g_strdup_printf ("audiotestsrc %s samplesperbuffer=480 "
      "num-buffers=%s ! audio/x-raw,format=F32LE,rate=48000,channels=2 ! "
      "%s name=el %s%s ! fakesink sync=false", live ? "is-live=true" : "",
      argv[a], argv[a + 1], argc - a > 2 ? "! " : "",
      argc - a > 2 ? argv[a + 2] : "");
  pipe = gst_parse_launch (desc, &err);
  g_free (desc);
  if (pipe == NULL || err != NULL) {
    error = g_strescape (err ? err->message : "?", NULL);
    printf ("{\"first_buf_ms\": null, \"first_msg_ms\": null, \"wall_s\": "
        "null, \"cpu_s\": null, \"error\": \"parse: %s\"}\n", error);
    g_free (error);
    return 0;
  }
  el = gst_bin_get_by_name (GST_BIN (pipe), "el");
  pad = gst_element_get_static_pad (el, "src");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, on_buffer, NULL, NULL);
  gst_object_unref (pad);
  bus = gst_element_get_bus (pipe);
  t0 = g_get_monotonic_time ();
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  for (;;) {
    GstMessage *msg = gst_bus_timed_pop_filtered (bus, 120 * GST_SECOND,
        GST_MESSAGE_EOS | GST_MESSAGE_ERROR | GST_MESSAGE_ELEMENT);
    if (msg == NULL) {
      error = g_strdup ("timeout");
      break;
    }
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ELEMENT) {
      if (GST_MESSAGE_SRC (msg) == GST_OBJECT (el) && first_msg < 0)
        first_msg = g_get_monotonic_time ();
      gst_message_unref (msg);
      continue;
    }
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
      GError *e = NULL;
      gst_message_parse_error (msg, &e, NULL);
      error = g_strescape (e->message, NULL);
      g_error_free (e);
    }
    gst_message_unref (msg);
    break;
  }
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (el);
  gst_object_unref (pipe);
  getrusage (RUSAGE_SELF, &ru);
  printf ("{");
  print_ms ("first_buf_ms", first_buf, t0);
  print_ms ("first_msg_ms", first_msg, t0);
  printf ("\"wall_s\": %.4f, \"cpu_s\": %.4f, ", process_age (),
      ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec +
      ru.ru_stime.tv_usec / 1e6);
  if (error)
    printf ("\"error\": \"%s\"}\n", error);
  else
    printf ("\"error\": null}\n");
  g_free (error);
  return 0;
}
