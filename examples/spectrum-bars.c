/* spectrum-bars: GStreamer's tests/examples/spectrum/demo-audiotest.c
 * without its window. The same pipeline (audiotestsrc ! spectrum !
 * audioconvert ! sink), the same settings (256 bands, threshold -80, its
 * other properties left at their defaults), the same message handler (a
 * bus watch; each message's bars are drawn when the pipeline clock
 * reaches the middle of its interval, running-time + duration / 2, through
 * gst_clock_id_wait_async and an idle callback, and only for a valid
 * time). What the window would do is replayed at set buffers of the
 * source (a pad probe, so that both runs see it at the same sample; the
 * resize comes just before the buffer that completes an interval, four
 * buffers after the last message, and waits until the bus watch has
 * handled it and its bars are drawn, since the bars' scale is read there
 * and their height at drawing: on a loaded machine either can come
 * later): the
 * window mapped 300 pixels wide and 96 high (bands 300, bars 1.5 pixels
 * per dB), the frequency slider moved to 2000 and then 5000 Hz, the
 * "Fast" box ticked (bands = (gst_fft_next_fast_length (2 * 300 - 2) + 2)
 * / 2). Each redraw prints one line: its number, the bars drawn and each
 * bar's height in pixels. Nothing in it knows about the GPU.
 *
 *   spectrum-bars                          GStreamer's spectrum (CPU)
 *   spectrum-bars --element gpuspectrum    the same on the GPU
 *
 * The sink is a fakesink synchronised to the clock (the demo's audio sink
 * would play the tone); 130 buffers of 1024 samples, about 3 s. */
#include <gst/gst.h>
#include <gst/fft/gstfft.h>
#include <stdlib.h>

static guint spect_height = 64;
static guint spect_bands = 256;
static gfloat height_scale = 1.0;
static GstElement *spectrum, *src;
static GMainLoop *loop;
static guint redraws, pending, handled;
static gboolean ended;
/* pending and handled, for the resize's wait (on_buffer) */
static GMutex lock;
static GCond changed;

typedef struct
{
  guint n;
  gfloat *bars;
} Bars;

static void
quit_when_done (void)
{
  if (ended && pending == 0)
    g_main_loop_quit (loop);
}

/* a redraw done with its bars, or given up */
static gboolean
drop_bars (gpointer user_data)
{
  Bars *b = user_data;

  g_free (b->bars);
  g_free (b);
  g_mutex_lock (&lock);
  pending--;
  g_cond_broadcast (&changed);
  g_mutex_unlock (&lock);
  quit_when_done ();
  return FALSE;
}

/* the demo's draw_spectrum: bar i is spect_height + data[i] pixels high */
static gboolean
draw_bars (gpointer user_data)
{
  Bars *b = user_data;
  guint i;

  g_print ("redraw %u bars %u", redraws++, b->n);
  for (i = 0; i < b->n; i++)
    g_print (" %.4f", spect_height + b->bars[i]);
  g_print ("\n");
  return drop_bars (b);
}

/* the demo's delayed_spectrum_update: drawn for a valid time only */
static gboolean
on_clock (GstClock * clock, GstClockTime time, GstClockID id,
    gpointer user_data)
{
  g_idle_add (GST_CLOCK_TIME_IS_VALID (time) ? draw_bars : drop_bars,
      user_data);
  return TRUE;
}

static gboolean
on_message (GstBus * bus, GstMessage * message, gpointer data)
{
  switch (GST_MESSAGE_TYPE (message)) {
    case GST_MESSAGE_ELEMENT:{
      const GstStructure *s = gst_message_get_structure (message);
      GstClockTime timestamp, duration, waittime = GST_CLOCK_TIME_NONE;

      if (!gst_structure_has_name (s, "spectrum"))
        break;
      if (gst_structure_get_clock_time (s, "running-time", &timestamp) &&
          gst_structure_get_clock_time (s, "duration", &duration))
        waittime = timestamp + duration / 2;
      else if (gst_structure_get_clock_time (s, "endtime", &timestamp))
        waittime = timestamp;
      if (GST_CLOCK_TIME_IS_VALID (waittime)) {
        GstElement *el = GST_ELEMENT (GST_MESSAGE_SRC (message));
        GstClock *clock = gst_element_get_clock (el);
        const GValue *list = gst_structure_get_value (s, "magnitude");
        Bars *b = g_new0 (Bars, 1);
        GstClockID id;
        guint i;

        /* (the demo reads spect_bands values; a message measured before
         * a change of bands has fewer or more) */
        b->n = MIN (spect_bands, gst_value_list_get_size (list));
        b->bars = g_new (gfloat, b->n);
        for (i = 0; i < b->n; i++)
          b->bars[i] = height_scale *
              g_value_get_float (gst_value_list_get_value (list, i));
        g_mutex_lock (&lock);
        pending++;
        handled++;
        g_mutex_unlock (&lock);
        id = gst_clock_new_single_shot_id (clock, waittime +
            gst_element_get_base_time (el));
        gst_clock_id_wait_async (id, on_clock, b, NULL);
        gst_clock_id_unref (id);
        gst_object_unref (clock);
      }
      break;
    }
    case GST_MESSAGE_ERROR:{
      GError *err = NULL;

      gst_message_parse_error (message, &err, NULL);
      g_printerr ("error: %s\n", err->message);
      g_error_free (err);
      exit (1);
    }
    case GST_MESSAGE_EOS:
      ended = TRUE;
      quit_when_done ();
      break;
    default:
      break;
  }
  return TRUE;
}

/* what the window does, at the source's buffers */
static GstPadProbeReturn
on_buffer (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  static guint n;

  switch (n++) {
    case 8:                    /* configure-event: 300 x 96 pixels */
      /* (after the first interval's bars are drawn, as the header says,
       * however late its message comes on a loaded machine: the scale
       * the bars are drawn at would depend on it; 10 s at most) */
    {
      gint64 until = g_get_monotonic_time () + 10 * G_TIME_SPAN_SECOND;

      g_mutex_lock (&lock);
      while ((handled < 1 || pending > 0)
          && g_cond_wait_until (&changed, &lock, until));
      g_mutex_unlock (&lock);
    }
      spect_height = 96;
      height_scale = 96 / 64.0;
      spect_bands = 300;
      g_object_set (spectrum, "bands", spect_bands, NULL);
      break;
    case 40:                   /* the frequency slider */
      g_object_set (src, "freq", 2000.0, NULL);
      break;
    case 70:                   /* "Fast" ticked */
      g_object_set (spectrum, "bands",
          (gst_fft_next_fast_length (2 * spect_bands - 2) + 2) / 2, NULL);
      break;
    case 100:
      g_object_set (src, "freq", 5000.0, NULL);
      break;
    default:
      break;
  }
  return GST_PAD_PROBE_OK;
}

int
main (int argc, char *argv[])
{
  const gchar *element = "spectrum";
  GstElement *bin, *audioconvert, *sink;
  GstBus *bus;
  GstPad *pad;
  gint i;

  gst_init (&argc, &argv);
  for (i = 1; i + 1 < argc; i++)
    if (g_str_equal (argv[i], "--element"))
      element = argv[++i];

  bin = gst_pipeline_new ("bin");
  src = gst_element_factory_make ("audiotestsrc", "src");
  spectrum = gst_element_factory_make (element, "spectrum");
  audioconvert = gst_element_factory_make ("audioconvert", "audioconvert");
  sink = gst_element_factory_make ("fakesink", "sink");
  if (!src || !spectrum || !audioconvert || !sink) {
    g_printerr ("spectrum-bars: element %s not found (is the plugin "
        "installed, or GST_PLUGIN_PATH set?)\n", spectrum ? "audiotestsrc, "
        "audioconvert or fakesink" : element);
    return 1;
  }
  g_object_set (G_OBJECT (src), "wave", 0, "num-buffers", 130, NULL);
  g_object_set (G_OBJECT (spectrum), "bands", spect_bands, "threshold", -80,
      "post-messages", TRUE, NULL);
  g_object_set (G_OBJECT (sink), "sync", TRUE, NULL);
  gst_bin_add_many (GST_BIN (bin), src, spectrum, audioconvert, sink, NULL);
  if (!gst_element_link_many (src, spectrum, audioconvert, sink, NULL)) {
    g_printerr ("can't link elements\n");
    return 1;
  }
  pad = gst_element_get_static_pad (src, "src");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, on_buffer, NULL, NULL);
  gst_object_unref (pad);

  loop = g_main_loop_new (NULL, FALSE);
  bus = gst_element_get_bus (bin);
  gst_bus_add_watch (bus, on_message, NULL);
  gst_object_unref (bus);

  gst_element_set_state (bin, GST_STATE_PLAYING);
  g_main_loop_run (loop);
  gst_element_set_state (bin, GST_STATE_NULL);
  gst_object_unref (bin);
  g_main_loop_unref (loop);
  return 0;
}
