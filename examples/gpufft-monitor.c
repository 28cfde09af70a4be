/* gpufft-monitor: live dominant frequency and a terminal bar spectrum from
 * the gpufftspectrum element's bus messages.
 *
 *   gpufft-monitor                          # the microphone (autoaudiosrc)
 *   gpufft-monitor --source "audiotestsrc freq=440" --duration 5
 *   gpufft-monitor --source "filesrc location=a.ogg ! decodebin" --bands 24
 *
 * The source description is any gst-launch fragment that ends in raw
 * audio; audioconvert is added after it. On a terminal the display is
 * redrawn in place; otherwise every interval is printed as plain lines
 * ("dominant frequency: 1000.0 Hz (-6.0 dB)" and one line per band).
 */
#include <gst/gst.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

typedef struct
{
  GMainLoop *loop;
  GstElement *pipeline;
  GstElement *spec;
  gint bands;
  gboolean tty;
  gboolean printed_device;
  gint exit_code;
  gdouble dominant_hz, dominant_db;
  GstStructure *last_spectrum;  /* drawn when its dominant-frequency comes */
} Monitor;

/* The highest level of the bins in each of `bands` log-spaced bands from
 * one bin width up to Nyquist. */
static void
draw_bars (Monitor * m, const GValue * mag, gint rate, guint fft_size,
    gdouble threshold, guint64 ts)
{
  guint n_bins = gst_value_list_get_size (mag), b, k;
  gdouble lo = (gdouble) rate / fft_size, hi = rate / 2.0;
  const gint width = 50;

  if (m->tty)
    printf ("\033[H\033[2J");
  printf ("t = %.2f s   peak %.1f Hz (%.1f dB)\n",
      (gdouble) ts / GST_SECOND, m->dominant_hz, m->dominant_db);
  for (b = 0; b < (guint) m->bands; b++) {
    gdouble f0 = lo * pow (hi / lo, (gdouble) b / m->bands);
    gdouble f1 = lo * pow (hi / lo, (gdouble) (b + 1) / m->bands);
    guint k0 = (guint) ceil (f0 * fft_size / rate);
    guint k1 = (guint) floor (f1 * fft_size / rate);
    gdouble level = threshold;
    gint len, i;

    for (k = k0; k <= k1 && k < n_bins; k++)
      level = MAX (level, g_value_get_float (gst_value_list_get_value (mag,
                  k)));
    len = (gint) ((level - threshold) / -threshold * width + 0.5);
    len = CLAMP (len, 0, width);
    printf ("%8.0f Hz |", f0);
    for (i = 0; i < width; i++)
      putchar (i < len ? '#' : ' ');
    printf ("| %6.1f dB\n", level);
  }
  fflush (stdout);
}

static gboolean
on_message (GstBus * bus, GstMessage * msg, gpointer data)
{
  Monitor *m = data;

  switch (GST_MESSAGE_TYPE (msg)) {
    case GST_MESSAGE_ELEMENT:{
      const GstStructure *s = gst_message_get_structure (msg);
      guint64 ts = 0;

      if (!m->printed_device) {
        gchar *name = NULL;
        g_object_get (m->spec, "device-name", &name, NULL);
        printf ("device: %s\n", name ? name : "(unknown)");
        g_free (name);
        m->printed_device = TRUE;
      }
      /* the element posts `spectrum`, then `dominant-frequency` of the same
       * interval: draw both together */
      if (gst_structure_has_name (s, "spectrum")) {
        if (m->last_spectrum)
          gst_structure_free (m->last_spectrum);
        m->last_spectrum = gst_structure_copy (s);
      } else if (gst_structure_has_name (s, "dominant-frequency")) {
        gst_structure_get_double (s, "frequency", &m->dominant_hz);
        gst_structure_get_double (s, "magnitude", &m->dominant_db);
        if (!m->tty)
          printf ("dominant frequency: %.1f Hz (%.1f dB)\n", m->dominant_hz,
              m->dominant_db);
        if (m->last_spectrum) {
          const GValue *mag = gst_structure_get_value (m->last_spectrum,
              "magnitude");
          gint rate = 0, threshold = -90;
          guint fft_size = 0;

          gst_structure_get_uint64 (m->last_spectrum, "timestamp", &ts);
          gst_structure_get_int (m->last_spectrum, "rate", &rate);
          gst_structure_get_uint (m->last_spectrum, "fft-size", &fft_size);
          g_object_get (m->spec, "threshold", &threshold, NULL);
          if (mag && GST_VALUE_HOLDS_LIST (mag) && rate > 0 && fft_size > 0
              && threshold < 0)
            draw_bars (m, mag, rate, fft_size, threshold, ts);
          gst_structure_free (m->last_spectrum);
          m->last_spectrum = NULL;
        }
      }
      break;
    }
    case GST_MESSAGE_ERROR:{
      GError *err = NULL;
      gchar *dbg = NULL;

      gst_message_parse_error (msg, &err, &dbg);
      fprintf (stderr, "error: %s\n%s\n", err->message, dbg ? dbg : "");
      g_error_free (err);
      g_free (dbg);
      m->exit_code = 1;
      g_main_loop_quit (m->loop);
      break;
    }
    case GST_MESSAGE_EOS:
      g_main_loop_quit (m->loop);
      break;
    default:
      break;
  }
  return G_SOURCE_CONTINUE;
}

/* --duration is up: EOS (the last interval's messages come, then the loop
 * ends) once the pipeline plays; before that (it still prerolls: the first
 * buffer can wait for the element's plan) the loop just ends. An EOS sent
 * to a pipeline whose state change is still in flight waits for that
 * change's lock, which waits for the preroll, which waits for this thread:
 * a deadlock. */
static gboolean
on_timeout (gpointer data)
{
  Monitor *m = data;
  GstState state, pending;

  gst_element_get_state (m->pipeline, &state, &pending, 0);
  if (state == GST_STATE_PLAYING && pending == GST_STATE_VOID_PENDING)
    gst_element_send_event (m->pipeline, gst_event_new_eos ());
  else
    g_main_loop_quit (m->loop);
  return G_SOURCE_REMOVE;
}

/* sets num-buffers on every source of the pipeline that has it */
static void
set_num_buffers (GstElement * pipeline, gint num_buffers)
{
  GstIterator *it = gst_bin_iterate_sources (GST_BIN (pipeline));
  GValue item = G_VALUE_INIT;

  while (gst_iterator_next (it, &item) == GST_ITERATOR_OK) {
    GObject *src = g_value_get_object (&item);
    if (g_object_class_find_property (G_OBJECT_GET_CLASS (src),
            "num-buffers"))
      g_object_set (src, "num-buffers", num_buffers, NULL);
    g_value_reset (&item);
  }
  g_value_unset (&item);
  gst_iterator_free (it);
}

int
main (int argc, char **argv)
{
  gchar *source = NULL;
  gint num_buffers = -1, fft_size = 4096, bands = 16, interval_ms = 100;
  gdouble duration = 0;
  GOptionEntry entries[] = {
    {"source", 's', 0, G_OPTION_ARG_STRING, &source,
        "Source launch description (default: autoaudiosrc)", "DESC"},
    {"num-buffers", 'n', 0, G_OPTION_ARG_INT, &num_buffers,
        "Stop after this many buffers from the source", "N"},
    {"duration", 'd', 0, G_OPTION_ARG_DOUBLE, &duration,
        "Stop after this many seconds", "SECONDS"},
    {"fft-size", 'f', 0, G_OPTION_ARG_INT, &fft_size,
        "FFT size (any even size 16..65536; default 4096)", "N"},
    {"bands", 'b', 0, G_OPTION_ARG_INT, &bands,
        "Bars in the spectrum display (default 16)", "N"},
    {"interval", 'i', 0, G_OPTION_ARG_INT, &interval_ms,
        "Milliseconds between updates (default 100)", "MS"},
    {NULL}
  };
  GOptionContext *ctx = g_option_context_new ("- live spectrum on the GPU");
  GError *err = NULL;
  Monitor m = { 0, };
  gchar *desc;
  GstBus *bus;

  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  if (!g_option_context_parse (ctx, &argc, &argv, &err)) {
    fprintf (stderr, "%s\n", err->message);
    return 2;
  }
  g_option_context_free (ctx);
  if (bands < 1 || bands > 200 || interval_ms < 1) {
    fprintf (stderr, "--bands must be 1..200 and --interval >= 1\n");
    return 2;
  }

  desc = g_strdup_printf ("%s ! audioconvert ! gpufftspectrum name=spec "
      "fft-size=%d interval=%" G_GUINT64_FORMAT " ! fakesink sync=true",
      source ? source : "autoaudiosrc", fft_size,
      (guint64) interval_ms * GST_MSECOND);
  /* (every element must exist: a partial pipeline would wait forever) */
  m.pipeline = gst_parse_launch_full (desc, NULL, GST_PARSE_FLAG_FATAL_ERRORS,
      &err);
  g_free (desc);
  if (!m.pipeline) {
    fprintf (stderr, "could not build the pipeline: %s%s\n", err->message,
        g_error_matches (err, GST_PARSE_ERROR,
            GST_PARSE_ERROR_NO_SUCH_ELEMENT) ? " (is its plugin installed "
        "where GStreamer looks? `gst-inspect-1.0 NAME` tells)" : "");
    return 1;
  }
  m.spec = gst_bin_get_by_name (GST_BIN (m.pipeline), "spec");
  m.bands = bands;
  m.tty = isatty (STDOUT_FILENO);
  m.loop = g_main_loop_new (NULL, FALSE);
  if (num_buffers > 0)
    set_num_buffers (m.pipeline, num_buffers);

  bus = gst_element_get_bus (m.pipeline);
  gst_bus_add_watch (bus, on_message, &m);
  if (duration > 0)
    g_timeout_add ((guint) (duration * 1000), on_timeout, &m);
  if (gst_element_set_state (m.pipeline, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE) {
    /* the ERROR message on the bus says why */
    m.exit_code = 1;
    while (TRUE) {
      GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
      if (!msg)
        break;
      on_message (bus, msg, &m);
      gst_message_unref (msg);
    }
  } else {
    g_main_loop_run (m.loop);
  }
  gst_element_set_state (m.pipeline, GST_STATE_NULL);
  gst_bus_remove_watch (bus);
  gst_object_unref (bus);
  gst_object_unref (m.spec);
  gst_object_unref (m.pipeline);
  g_main_loop_unref (m.loop);
  if (m.last_spectrum)
    gst_structure_free (m.last_spectrum);
  g_free (source);
  return m.exit_code;
}
