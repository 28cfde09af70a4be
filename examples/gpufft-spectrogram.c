/* gpufft-spectrogram: a whole audio file's spectrogram as a PNG picture with
 * axes, colour bar and title (like `sox in.wav -n spectrogram -o out.png`),
 * for any file GStreamer can decode, drawn by the gpufftspectrogram element:
 *
 *   filesrc ! decodebin ! audioconvert ! gpufftspectrogram time-span=D
 *     ! video/x-raw,format=RGBA,width=W,height=H,framerate=1/F
 *     ! pngenc snapshot=false ! multifilesink location=OUT
 *
 * D is the file's duration (asked of a first, paused pipeline; a file that
 * does not say is decoded once to find it), F a whole number of seconds
 * longer than D, so the element makes exactly one frame: the short last
 * frame it draws at EOS, holding the whole file.
 *
 * Usage: gpufft-spectrogram [options] INPUT -o OUTPUT.png
 * Prints one line: the picture, the waterfall's rectangle and the
 * analysis used (for scripts and tests). Exit status 0 on success, 1 on
 * any error (message on stderr). */
#include <gst/gst.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static gint width = 1280, height = 720, fft_size = 0;
static gdouble min_db = -100, max_db = 0, min_freq = 0, max_freq = 0;
static gchar *axis = NULL, *colormap = NULL, *title = NULL, *output = NULL;
static gchar *window_name = NULL;
static gboolean no_axes = FALSE;

static GOptionEntry entries[] = {
  {"output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "PNG file to write",
      "FILE"},
  {"width", 'x', 0, G_OPTION_ARG_INT, &width, "Picture width (1280)", "W"},
  {"height", 'y', 0, G_OPTION_ARG_INT, &height, "Picture height (720)", "H"},
  {"min-db", 0, 0, G_OPTION_ARG_DOUBLE, &min_db,
      "Level at the bottom of the colour map (-100)", "DB"},
  {"max-db", 0, 0, G_OPTION_ARG_DOUBLE, &max_db,
      "Level at the top of the colour map (0)", "DB"},
  {"axis", 'a', 0, G_OPTION_ARG_STRING, &axis,
      "Frequency axis: linear, log, mel, octave (linear)", "AXIS"},
  {"min-frequency", 0, 0, G_OPTION_ARG_DOUBLE, &min_freq,
      "Lowest frequency shown (Hz)", "HZ"},
  {"max-frequency", 0, 0, G_OPTION_ARG_DOUBLE, &max_freq,
      "Highest frequency shown (Hz)", "HZ"},
  {"colormap", 'c', 0, G_OPTION_ARG_STRING, &colormap,
      "viridis, magma, inferno, grayscale (viridis)", "MAP"},
  {"fft-size", 0, 0, G_OPTION_ARG_INT, &fft_size,
      "Samples per analysis frame (automatic)", "N"},
  {"window", 0, 0, G_OPTION_ARG_STRING, &window_name,
      "Window function (hann)", "NAME"},
  {"title", 't', 0, G_OPTION_ARG_STRING, &title,
      "Title (the file's name)", "TEXT"},
  {"no-axes", 0, 0, G_OPTION_ARG_NONE, &no_axes,
      "Only the spectrogram, no axes or labels", NULL},
  {NULL}
};

/* A pipeline from a description, or NULL with one line printed: every
 * element must exist (a partial pipeline would wait forever on a missing
 * link). */
static GstElement *
make_pipeline (const gchar * desc)
{
  GError *err = NULL;
  GstElement *p = gst_parse_launch_full (desc, NULL,
      GST_PARSE_FLAG_FATAL_ERRORS, &err);

  if (!p) {
    g_printerr ("gpufft-spectrogram: %s%s\n", err ? err->message :
        "cannot make the pipeline", g_error_matches (err, GST_PARSE_ERROR,
            GST_PARSE_ERROR_NO_SUCH_ELEMENT) ? " (is its plugin installed "
        "where GStreamer looks? `gst-inspect-1.0 NAME` tells; the README's "
        "Install section says where gst-gpufft goes)" : "");
    g_clear_error (&err);
  }
  return p;
}

/* Runs a pipeline to `target`; returns FALSE (message printed) on error, or
 * when nothing ends it within `bound_s` seconds. With target PLAYING,
 * waits for EOS. */
static gboolean
run_pipeline (GstElement * pipeline, GstState target, gdouble bound_s)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  gboolean ok = TRUE, done = FALSE;
  gint64 end = g_get_monotonic_time () + (gint64) (bound_s * 1e6);

  if (gst_element_set_state (pipeline, target) == GST_STATE_CHANGE_FAILURE)
    ok = FALSE;
  while (ok && !done) {
    gint64 left = end - g_get_monotonic_time ();
    GstMessage *m = left <= 0 ? NULL : gst_bus_timed_pop_filtered (bus,
        left * GST_USECOND,
        GST_MESSAGE_ERROR | GST_MESSAGE_EOS | GST_MESSAGE_ASYNC_DONE);

    if (!m) {
      g_printerr ("gpufft-spectrogram: the pipeline did not finish within "
          "%.0f s\n", bound_s);
      ok = FALSE;
      break;
    }
    switch (GST_MESSAGE_TYPE (m)) {
      case GST_MESSAGE_ERROR:{
        GError *err = NULL;
        gchar *dbg = NULL;

        gst_message_parse_error (m, &err, &dbg);
        g_printerr ("gpufft-spectrogram: %s\n  (%s)\n", err->message,
            dbg ? dbg : "");
        g_error_free (err);
        g_free (dbg);
        ok = FALSE;
        break;
      }
      case GST_MESSAGE_EOS:
        done = TRUE;
        break;
      case GST_MESSAGE_ASYNC_DONE:
        if (target == GST_STATE_PAUSED)
          done = TRUE;
        break;
      default:
        break;
    }
    gst_message_unref (m);
  }
  if (!ok) {
    /* drain what else went wrong, for the message */
    GstMessage *m;

    while ((m = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR))) {
      GError *err = NULL;

      gst_message_parse_error (m, &err, NULL);
      g_printerr ("gpufft-spectrogram: %s\n", err->message);
      g_error_free (err);
      gst_message_unref (m);
    }
  }
  gst_object_unref (bus);
  return ok;
}

/* The file's duration in seconds, or < 0 on error. */
static gdouble
file_duration (const gchar * input)
{
  GstElement *p, *src;
  gint64 d = -1;

  p = make_pipeline ("filesrc name=src ! decodebin ! audioconvert ! "
      "fakesink sync=false");
  if (!p)
    return -1;
  src = gst_bin_get_by_name (GST_BIN (p), "src");
  g_object_set (src, "location", input, NULL);
  gst_object_unref (src);
  if (!run_pipeline (p, GST_STATE_PAUSED, 60.0)) {
    gst_element_set_state (p, GST_STATE_NULL);
    gst_object_unref (p);
    return -1;
  }
  if (!gst_element_query_duration (p, GST_FORMAT_TIME, &d) || d <= 0) {
    /* the file does not say: decode it once */
    if (run_pipeline (p, GST_STATE_PLAYING, 600.0))
      gst_element_query_position (p, GST_FORMAT_TIME, &d);
  }
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
  if (d <= 0) {
    g_printerr ("gpufft-spectrogram: cannot find the duration of %s\n", input);
    return -1;
  }
  return d / 1e9;
}

int
main (int argc, char **argv)
{
  GOptionContext *ctx;
  GError *err = NULL;
  GstElement *p, *el;
  gchar *desc, *base;
  gdouble duration;
  GstStructure *layout = NULL;
  gint period;
  gboolean ok;

  ctx = g_option_context_new ("INPUT - draw an audio file's spectrogram "
      "into a PNG file");
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  if (!g_option_context_parse (ctx, &argc, &argv, &err)) {
    g_printerr ("gpufft-spectrogram: %s\n", err->message);
    return 1;
  }
  g_option_context_free (ctx);
  if (argc != 2 || !output) {
    g_printerr ("usage: gpufft-spectrogram [options] INPUT -o OUTPUT.png "
        "(--help for the options)\n");
    return 1;
  }
  if (width < 16 || height < 16 || width > 8192 || height > 8192) {
    g_printerr ("gpufft-spectrogram: width and height must be 16..8192\n");
    return 1;
  }

  duration = file_duration (argv[1]);
  if (duration < 0)
    return 1;
  period = (gint) floor (duration) + 1;

  desc = g_strdup_printf ("filesrc name=src ! decodebin ! audioconvert ! "
      "gpufftspectrogram name=sg ! video/x-raw,format=RGBA,width=%d,"
      "height=%d,framerate=1/%d ! pngenc snapshot=false ! "
      "multifilesink name=sink", width, height, period);
  p = make_pipeline (desc);
  g_free (desc);
  if (!p)
    return 1;
  el = gst_bin_get_by_name (GST_BIN (p), "src");
  g_object_set (el, "location", argv[1], NULL);
  gst_object_unref (el);
  el = gst_bin_get_by_name (GST_BIN (p), "sink");
  g_object_set (el, "location", output, NULL);
  gst_object_unref (el);

  el = gst_bin_get_by_name (GST_BIN (p), "sg");
  base = g_path_get_basename (argv[1]);
  g_object_set (el, "time-span", MAX (duration, 0.001), "min-db", min_db,
      "max-db", max_db, "min-frequency", min_freq, "max-frequency", max_freq,
      "fft-size", (guint) MAX (fft_size, 0), "axes", !no_axes,
      "title", title ? title : base, NULL);
  g_free (base);
  if (axis)
    gst_util_set_object_arg (G_OBJECT (el), "frequency-axis", axis);
  if (colormap)
    gst_util_set_object_arg (G_OBJECT (el), "colormap", colormap);
  if (window_name)
    gst_util_set_object_arg (G_OBJECT (el), "window", window_name);

  /* (a bound for a device that never finishes: decoding and drawing run
   * far faster than real time) */
  ok = run_pipeline (p, GST_STATE_PLAYING, 120.0 + 4.0 * duration);
  if (ok)
    g_object_get (el, "layout", &layout, NULL);
  gst_object_unref (el);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
  if (!ok)
    return 1;
  if (layout) {
    guint wx = 0, wy = 0, ww = 0, wh = 0, n = 0;
    gdouble lo = 0, hi = 0;

    gst_structure_get (layout, "waterfall-x", G_TYPE_UINT, &wx,
        "waterfall-y", G_TYPE_UINT, &wy, "waterfall-width", G_TYPE_UINT, &ww,
        "waterfall-height", G_TYPE_UINT, &wh, "fft-size", G_TYPE_UINT, &n,
        "min-frequency", G_TYPE_DOUBLE, &lo, "max-frequency", G_TYPE_DOUBLE,
        &hi, NULL);
    g_print ("%s: %dx%d, %.3f s, waterfall %u,%u %ux%u, fft-size %u, "
        "%g..%g Hz\n", output, width, height, duration, wx, wy, ww, wh, n,
        lo, hi);
    gst_structure_free (layout);
  }
  return 0;
}
