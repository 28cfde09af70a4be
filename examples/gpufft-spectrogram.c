/* gpufft-spectrogram: a whole audio file's spectrogram as a PNG picture with
 * axes, colour bar and title (like `sox in.wav -n spectrogram -o out.png`),
 * for any file GStreamer can decode, drawn by the gpufftspectrogram element:
 *
 *   filesrc ! decodebin ! audioconvert ! gpufftspectrogram time-span=D
 *     ! video/x-raw,format=RGBA,width=W,height=H,framerate=1/F
 *     ! pngenc snapshot=false ! fakesink (its last sample)
 *
 * D is the file's duration (asked of a first, paused pipeline; a file that
 * does not say is decoded once to find it). The element draws a frame every
 * F seconds and a short last one at EOS: F is a whole number of seconds, at
 * most the element's longest frame (its src template's lowest framerate,
 * an hour), such that the last frame is a short one (the element draws the
 * columns of the file's end only at EOS). With the whole file across the
 * waterfall, that last frame shows all of it: the sink keeps only the
 * newest PNG (one frame, whatever the file's length), and the program
 * writes it to OUTPUT itself, under exactly the name given (no pattern).
 *
 * Usage: gpufft-spectrogram [options] INPUT -o OUTPUT.png
 * Every option is checked before any decoding against what the element
 * takes (enum values and ranges from its properties): a bad one ends the
 * program with exit status 2 and one line naming what is valid. The picture
 * is at most 8192 pixels a side and 2^25 pixels in all (the frame is one
 * storage buffer of 4 bytes a pixel; every Vulkan device binds 2^27 bytes).
 * Prints one line: the picture, the waterfall's rectangle and the analysis
 * used (for scripts and tests). Exit status 0 on success, 1 on any error
 * while drawing or writing (message on stderr), 2 on a bad command line. */
#include <gst/gst.h>
#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ELEMENT "gpufftspectrogram"
#define EXIT_USAGE 2
#define MIN_SIDE 16
#define MAX_SIDE 8192
#define MAX_PIXELS (1 << 25)

static gint width = 1280, height = 720, fft_size = 0;
static gdouble min_db = -100, max_db = 0, min_freq = 0, max_freq = 0;
static gchar *axis = NULL, *colormap = NULL, *title = NULL, *output = NULL;
static gchar *window_name = NULL;
static gboolean no_axes = FALSE;

/* (the value lists are the element's enum nicks: a test compares them) */
static GOptionEntry entries[] = {
  {"output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "PNG file to write",
      "FILE"},
  {"width", 'x', 0, G_OPTION_ARG_INT, &width,
      "Picture width, 16..8192 (1280); width x height at most 33554432", "W"},
  {"height", 'y', 0, G_OPTION_ARG_INT, &height,
      "Picture height, 16..8192 (720)", "H"},
  {"min-db", 0, 0, G_OPTION_ARG_DOUBLE, &min_db,
      "Level at the bottom of the colour map, -400..400, below --max-db "
        "(-100)", "DB"},
  {"max-db", 0, 0, G_OPTION_ARG_DOUBLE, &max_db,
      "Level at the top of the colour map, -400..400 (0)", "DB"},
  {"axis", 'a', 0, G_OPTION_ARG_STRING, &axis,
      "Frequency axis: linear, log, mel or octave (linear)", "AXIS"},
  {"min-frequency", 0, 0, G_OPTION_ARG_DOUBLE, &min_freq,
      "Lowest frequency shown, Hz (0: 0 Hz on the linear and mel axes, "
        "20 Hz on log and octave)", "HZ"},
  {"max-frequency", 0, 0, G_OPTION_ARG_DOUBLE, &max_freq,
      "Highest frequency shown, Hz (0: half the sample rate)", "HZ"},
  {"colormap", 'c', 0, G_OPTION_ARG_STRING, &colormap,
      "Colour map: viridis, magma, inferno or grayscale (viridis)", "MAP"},
  {"fft-size", 0, 0, G_OPTION_ARG_INT, &fft_size,
      "Samples per analysis frame: 0 (automatic) or an even number "
        "2..65536 (0)", "N"},
  {"window", 0, 0, G_OPTION_ARG_STRING, &window_name,
      "Window function: rectangular, hann, hamming, blackman, "
        "blackman-harris, flat-top or hamming-gst (hann)", "NAME"},
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

/* The element's class, or NULL with one line printed. */
static GObjectClass *
element_class (GstElementFactory ** factory)
{
  GstPluginFeature *loaded;
  GType type;

  *factory = gst_element_factory_find (ELEMENT);
  loaded = *factory ? gst_plugin_feature_load (GST_PLUGIN_FEATURE (*factory))
      : NULL;
  type = loaded ? gst_element_factory_get_element_type
      (GST_ELEMENT_FACTORY (loaded)) : G_TYPE_INVALID;
  if (loaded) {
    gst_object_unref (*factory);
    *factory = GST_ELEMENT_FACTORY (loaded);
  }
  if (type == G_TYPE_INVALID) {
    g_printerr ("gpufft-spectrogram: no element %s (is its plugin installed "
        "where GStreamer looks? `gst-inspect-1.0 %s` tells; the README's "
        "Install section says where gst-gpufft goes)\n", ELEMENT, ELEMENT);
    return NULL;
  }
  return g_type_class_ref (type);
}

/* TRUE when `value` (NULL: not given) is a nick of the element's enum
 * property `prop`; else one line naming every nick. */
static gboolean
check_enum (GObjectClass * klass, const gchar * prop, const gchar * option,
    const gchar * value)
{
  GParamSpec *pspec = g_object_class_find_property (klass, prop);
  GEnumClass *ec;
  GString *valid;
  guint i;

  if (!value)
    return TRUE;
  if (!G_IS_PARAM_SPEC_ENUM (pspec)) {
    g_printerr ("gpufft-spectrogram: the element has no property %s\n", prop);
    return FALSE;
  }
  ec = G_PARAM_SPEC_ENUM (pspec)->enum_class;
  if (g_enum_get_value_by_nick (ec, value))
    return TRUE;
  valid = g_string_new (NULL);
  for (i = 0; i < ec->n_values; i++)
    g_string_append_printf (valid, "%s%s", i == 0 ? "" : i + 1 ==
        ec->n_values ? " or " : ", ", ec->values[i].value_nick);
  g_printerr ("gpufft-spectrogram: --%s '%s' is not valid: use %s\n", option,
      value, valid->str);
  g_string_free (valid, TRUE);
  return FALSE;
}

/* TRUE when `value` is a number within the element's double property
 * `prop`'s range; else one line naming it. */
static gboolean
check_double (GObjectClass * klass, const gchar * prop, const gchar * what,
    gdouble value)
{
  GParamSpecDouble *pspec = G_PARAM_SPEC_DOUBLE
      (g_object_class_find_property (klass, prop));

  if (isfinite (value) && value >= pspec->minimum && value <= pspec->maximum)
    return TRUE;
  if (pspec->maximum >= G_MAXDOUBLE)
    g_printerr ("gpufft-spectrogram: --%s %g is not valid: use %s of %g or "
        "more\n", prop, value, what, pspec->minimum);
  else
    g_printerr ("gpufft-spectrogram: --%s %g is not valid: use %s from %g "
        "to %g\n", prop, value, what, pspec->minimum, pspec->maximum);
  return FALSE;
}

/* TRUE when every option holds a value the element takes; else one line
 * saying what is valid. */
static gboolean
check_options (GObjectClass * klass)
{
  GParamSpecUInt *fft = G_PARAM_SPEC_UINT (g_object_class_find_property
      (klass, "fft-size"));

  if (width < MIN_SIDE || width > MAX_SIDE || height < MIN_SIDE
      || height > MAX_SIDE) {
    g_printerr ("gpufft-spectrogram: %dx%d is not valid: width and height "
        "must be %d..%d\n", width, height, MIN_SIDE, MAX_SIDE);
    return FALSE;
  }
  if ((gint64) width * height > MAX_PIXELS) {
    g_printerr ("gpufft-spectrogram: %dx%d is not valid: width x height "
        "must be at most %d (e.g. 8192x4096)\n", width, height, MAX_PIXELS);
    return FALSE;
  }
  if (!check_enum (klass, "frequency-axis", "axis", axis)
      || !check_enum (klass, "colormap", "colormap", colormap)
      || !check_enum (klass, "window", "window", window_name))
    return FALSE;
  if (!check_double (klass, "min-db", "a level", min_db)
      || !check_double (klass, "max-db", "a level", max_db))
    return FALSE;
  if (!(min_db < max_db)) {
    g_printerr ("gpufft-spectrogram: --min-db %g must be below --max-db %g\n",
        min_db, max_db);
    return FALSE;
  }
  if (!check_double (klass, "min-frequency", "a frequency (Hz)", min_freq)
      || !check_double (klass, "max-frequency", "a frequency (Hz)", max_freq))
    return FALSE;
  if (max_freq > 0 && !(min_freq < max_freq)) {
    g_printerr ("gpufft-spectrogram: --min-frequency %g must be below "
        "--max-frequency %g\n", min_freq, max_freq);
    return FALSE;
  }
  if (fft_size != 0 && (fft_size < 2 || (guint) fft_size > fft->maximum
          || fft_size % 2 != 0)) {
    g_printerr ("gpufft-spectrogram: --fft-size %d is not valid: use 0 "
        "(automatic) or an even number from 2 to %u\n", fft_size, fft->maximum);
    return FALSE;
  }
  return TRUE;
}

/* The element's longest video frame in whole seconds: the lowest
 * framerate of its src template (1 if it does not say). */
static gint
longest_frame (GstElementFactory * factory)
{
  const GList *l;
  gint longest = 1;

  for (l = gst_element_factory_get_static_pad_templates (factory); l;
      l = l->next) {
    GstStaticPadTemplate *t = l->data;
    GstCaps *caps;
    const GValue *rate;

    if (t->direction != GST_PAD_SRC)
      continue;
    caps = gst_static_pad_template_get_caps (t);
    rate = gst_caps_get_size (caps) > 0 ? gst_structure_get_value
        (gst_caps_get_structure (caps, 0), "framerate") : NULL;
    if (rate && GST_VALUE_HOLDS_FRACTION_RANGE (rate)) {
      const GValue *lo = gst_value_get_fraction_range_min (rate);
      gint n = gst_value_get_fraction_numerator (lo);
      gint d = gst_value_get_fraction_denominator (lo);

      if (n > 0 && d / n > 1)
        longest = d / n;
    }
    gst_caps_unref (caps);
  }
  return longest;
}

/* The video frame's length in whole seconds for a file of `duration`
 * seconds: k = ceil ((floor (D) + 1) / longest) frames of
 * floor (D / k) + 1 s, at most `longest` (D / k < longest), and k of them
 * last longer than the file: the last frame is a short one, drawn at EOS
 * with the columns of the file's end (for any D below longest^2 s). */
static gint
frame_period (gdouble duration, gint longest)
{
  gdouble k = ceil ((floor (duration) + 1) / longest);

  return (gint) floor (duration / k) + 1;
}

/* Writes the PNG of `sample` to `path`, exactly that name; FALSE (message
 * printed) on error. */
static gboolean
write_png (GstSample * sample, const gchar * path)
{
  GstBuffer *buf = gst_sample_get_buffer (sample);
  GstMapInfo map;
  FILE *f;
  gboolean ok;
  gchar *name = g_filename_display_name (path);

  if (!buf || !gst_buffer_map (buf, &map, GST_MAP_READ)) {
    g_printerr ("gpufft-spectrogram: the picture could not be read\n");
    g_free (name);
    return FALSE;
  }
  f = fopen (path, "wb");
  ok = f && fwrite (map.data, 1, map.size, f) == map.size;
  if (f && fclose (f) != 0)
    ok = FALSE;
  if (!ok)
    g_printerr ("gpufft-spectrogram: cannot write %s: %s\n", name,
        g_strerror (errno));
  gst_buffer_unmap (buf, &map);
  g_free (name);
  return ok;
}

int
main (int argc, char **argv)
{
  GOptionContext *ctx;
  GError *err = NULL;
  GstElementFactory *factory;
  GObjectClass *klass;
  GstElement *p, *el, *sink;
  gchar *desc, *base;
  gdouble duration, max_span;
  GstStructure *layout = NULL;
  GstSample *sample = NULL;
  gint period;
  gboolean ok;

  /* (option texts arrive in the locale's encoding: -t converts from it;
   * the printed numbers stay in the C locale's form, for scripts) */
  setlocale (LC_ALL, "");
  setlocale (LC_NUMERIC, "C");
  ctx = g_option_context_new ("INPUT - draw an audio file's spectrogram "
      "into a PNG file");
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  if (!g_option_context_parse (ctx, &argc, &argv, &err)) {
    g_printerr ("gpufft-spectrogram: %s\n", err->message);
    return EXIT_USAGE;
  }
  g_option_context_free (ctx);
  if (argc != 2 || !output) {
    g_printerr ("usage: gpufft-spectrogram [options] INPUT -o OUTPUT.png "
        "(--help for the options)\n");
    return EXIT_USAGE;
  }
  klass = element_class (&factory);
  if (!klass)
    return 1;
  if (!check_options (klass))
    return EXIT_USAGE;
  max_span = G_PARAM_SPEC_DOUBLE (g_object_class_find_property (klass,
          "time-span"))->maximum;

  duration = file_duration (argv[1]);
  if (duration < 0)
    return 1;
  if (duration > max_span) {
    g_printerr ("gpufft-spectrogram: the file lasts %.0f s; the element "
        "draws at most %.0f s\n", duration, max_span);
    return 1;
  }
  period = frame_period (duration, longest_frame (factory));

  desc = g_strdup_printf ("filesrc name=src ! decodebin ! audioconvert ! "
      ELEMENT " name=sg ! video/x-raw,format=RGBA,width=%d,height=%d,"
      "framerate=1/%d ! pngenc snapshot=false ! fakesink name=sink "
      "sync=false enable-last-sample=true", width, height, period);
  p = make_pipeline (desc);
  g_free (desc);
  if (!p)
    return 1;
  el = gst_bin_get_by_name (GST_BIN (p), "src");
  g_object_set (el, "location", argv[1], NULL);
  gst_object_unref (el);
  sink = gst_bin_get_by_name (GST_BIN (p), "sink");

  el = gst_bin_get_by_name (GST_BIN (p), "sg");
  base = g_filename_display_basename (argv[1]);
  g_object_set (el, "time-span", MAX (duration, 0.001), "min-db", min_db,
      "max-db", max_db, "min-frequency", min_freq, "max-frequency", max_freq,
      "fft-size", (guint) fft_size, "axes", !no_axes,
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
  if (ok) {
    g_object_get (el, "layout", &layout, NULL);
    g_object_get (sink, "last-sample", &sample, NULL);
  }
  gst_object_unref (el);
  gst_object_unref (sink);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
  g_type_class_unref (klass);
  gst_object_unref (factory);
  if (ok && !sample) {
    g_printerr ("gpufft-spectrogram: no picture was drawn (no audio?)\n");
    ok = FALSE;
  }
  if (ok)
    ok = write_png (sample, output);
  if (sample)
    gst_sample_unref (sample);
  if (!ok) {
    if (layout)
      gst_structure_free (layout);
    return 1;
  }
  if (layout) {
    guint wx = 0, wy = 0, ww = 0, wh = 0, n = 0;
    gdouble lo = 0, hi = 0;
    gchar *name = g_filename_display_name (output);

    gst_structure_get (layout, "waterfall-x", G_TYPE_UINT, &wx,
        "waterfall-y", G_TYPE_UINT, &wy, "waterfall-width", G_TYPE_UINT, &ww,
        "waterfall-height", G_TYPE_UINT, &wh, "fft-size", G_TYPE_UINT, &n,
        "min-frequency", G_TYPE_DOUBLE, &lo, "max-frequency", G_TYPE_DOUBLE,
        &hi, NULL);
    g_print ("%s: %dx%d, %.3f s, waterfall %u,%u %ux%u, fft-size %u, "
        "%g..%g Hz\n", name, width, height, duration, wx, wy, ww, wh, n,
        lo, hi);
    g_free (name);
    gst_structure_free (layout);
  }
  return 0;
}
