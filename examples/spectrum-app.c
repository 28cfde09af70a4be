/* spectrum-app: a program written for GStreamer's `spectrum` element, the
 * way applications use it: all settings in one g_object_set starting with
 * "bands", a bus watch that takes every element message named "spectrum",
 * "endtime" read with gst_structure_get_clock_time, "magnitude" and "phase"
 * read as GstValueLists of floats. Nothing in it knows about the GPU: give
 * it another element name and it runs on that one.
 *
 *   spectrum-app                          GStreamer's spectrum (CPU)
 *   spectrum-app --element gpuspectrum    the same on the GPU
 *   spectrum-app --element gpuspectrum --source "autoaudiosrc"
 *
 * Prints one line per message: its end time, then the loudest band with its
 * frequency, level and phase, and the levels of its neighbours. */
#include <gst/gst.h>
#include <math.h>
#include <stdlib.h>

static guint spect_bands = 128;
static guint rate = 44100;
static guint n_messages;

static gboolean
on_message (GstBus * bus, GstMessage * message, gpointer data)
{
  GMainLoop *loop = data;

  switch (GST_MESSAGE_TYPE (message)) {
    case GST_MESSAGE_ELEMENT:{
      const GstStructure *s = gst_message_get_structure (message);
      const GValue *magnitudes, *phases;
      GstClockTime endtime;
      guint i, loudest = 0;
      gfloat best = -G_MAXFLOAT;

      if (!gst_structure_has_name (s, "spectrum"))
        break;
      if (!gst_structure_get_clock_time (s, "endtime", &endtime))
        endtime = GST_CLOCK_TIME_NONE;
      magnitudes = gst_structure_get_value (s, "magnitude");
      phases = gst_structure_get_value (s, "phase");
      for (i = 0; i < spect_bands; i++) {
        gfloat m = g_value_get_float (gst_value_list_get_value (magnitudes,
                i));

        if (m > best) {
          best = m;
          loudest = i;
        }
      }
      g_print ("message %u endtime %" G_GUINT64_FORMAT " band %u freq %.2f "
          "magnitude %.4f phase %.4f below %.4f above %.4f\n", n_messages++,
          (guint64) endtime, loudest,
          ((rate / 2.0) * loudest + rate / 4.0) / spect_bands, best,
          g_value_get_float (gst_value_list_get_value (phases, loudest)),
          loudest > 0 ? g_value_get_float (gst_value_list_get_value
              (magnitudes, loudest - 1)) : NAN,
          loudest + 1 < spect_bands ?
          g_value_get_float (gst_value_list_get_value (magnitudes,
                  loudest + 1)) : NAN);
      break;
    }
    case GST_MESSAGE_ERROR:{
      GError *err = NULL;

      gst_message_parse_error (message, &err, NULL);
      g_printerr ("error: %s\n", err->message);
      g_error_free (err);
      g_main_loop_quit (loop);
      break;
    }
    case GST_MESSAGE_EOS:
      g_main_loop_quit (loop);
      break;
    default:
      break;
  }
  return TRUE;
}

int
main (int argc, char *argv[])
{
  gchar *element = NULL, *source = NULL;
  gint bands = 128;
  GOptionEntry entries[] = {
    {"element", 0, 0, G_OPTION_ARG_STRING, &element,
        "The analyser (default spectrum)", "NAME"},
    {"source", 0, 0, G_OPTION_ARG_STRING, &source,
          "Source description (default: a 3472 Hz tone, 0.5 s)",
        "PIPELINE"},
    {"bands", 0, 0, G_OPTION_ARG_INT, &bands, "Bands (default 128)", "N"},
    {NULL}
  };
  GOptionContext *ctx = g_option_context_new ("- a spectrum application");
  GError *err = NULL;
  GstElement *pipeline, *spectrum;
  GstBus *bus;
  GMainLoop *loop;
  gchar *desc;

  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  if (!g_option_context_parse (ctx, &argc, &argv, &err)) {
    g_printerr ("%s\n", err->message);
    return 2;
  }
  g_option_context_free (ctx);
  spect_bands = (guint) MAX (bands, 2);

  /* (the default tone sits on band 20's centre for 128 bands at 44.1 kHz) */
  desc = g_strdup_printf ("%s ! audioconvert ! audio/x-raw,rate=%u,"
      "channels=1 ! %s name=spectrum ! fakesink sync=false",
      source ? source : "audiotestsrc freq=3472.440944881890 "
      "samplesperbuffer=441 num-buffers=50", rate,
      element ? element : "spectrum");
  pipeline = gst_parse_launch_full (desc, NULL, GST_PARSE_FLAG_FATAL_ERRORS,
      &err);
  g_free (desc);
  if (pipeline == NULL) {
    g_printerr ("cannot build the pipeline: %s\n", err->message);
    return 1;
  }
  spectrum = gst_bin_get_by_name (GST_BIN (pipeline), "spectrum");
  g_object_set (G_OBJECT (spectrum), "bands", spect_bands, "threshold", -80,
      "post-messages", TRUE, "message-phase", TRUE, NULL);
  gst_object_unref (spectrum);

  loop = g_main_loop_new (NULL, FALSE);
  bus = gst_element_get_bus (pipeline);
  gst_bus_add_watch (bus, on_message, loop);
  gst_object_unref (bus);

  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  g_main_loop_run (loop);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
  g_main_loop_unref (loop);
  g_free (element);
  g_free (source);
  return n_messages > 0 ? 0 : 1;
}
