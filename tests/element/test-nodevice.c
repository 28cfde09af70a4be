/* Without any Vulkan driver (meson runs this program with VK_ICD_FILENAMES
 * and VK_DRIVER_FILES pointing to a file that does not exist) the plugin
 * still loads; a stream that needs a device fails cleanly with an ERROR
 * that says Vulkan is missing and how to install it, and a light live
 * stream, analysed on the host alone, needs none. */
#include "gpufft-test-common.h"

static gboolean
contains_ci (const gchar * text, const gchar * needle)
{
  gchar *low = g_ascii_strdown (text, -1);
  gboolean hit = strstr (low, needle) != NULL;

  g_free (low);
  return hit;
}

static void
check_no_device_error (const gchar * text)
{
  g_print ("no-device error: %s\n", text);
  fail_unless (contains_ci (text, "vulkan"), "error does not name Vulkan");
  fail_unless (contains_ci (text, "install"),
      "error does not say what to install");
}

/* the device opened at the start (a device-index), and at the first
 * buffer of a stream that is not live (the automatic device), for
 * gpufftspectrum and gpuloudness */
GST_START_TEST (test_no_device_error)
{
  static const gchar *const names[] = { "gpufftspectrum", "gpuloudness" };
  GstElement *el;
  Msgs *m;
  gchar *text, *desc;
  guint i;

  fail_unless (g_getenv ("VK_ICD_FILENAMES") != NULL,
      "run with VK_ICD_FILENAMES=/nonexistent (meson does)");
  for (i = 0; i < G_N_ELEMENTS (names); i++) {
    el = gst_element_factory_make (names[i], NULL);
    fail_unless (el != NULL, "the plugin must load without a Vulkan device");
    g_object_set (el, "device-index", 0, NULL);
    m = start_must_error (el, GST_STATE_PLAYING);
    check_no_device_error (g_ptr_array_index (m->errors, 0));
    start_failed_free (el, m);

    /* (no host lead: the device asked for at the first buffer) */
    g_setenv ("GPUFFT_HOST_LEAD", "0", TRUE);
    desc = g_strdup_printf ("audiotestsrc num-buffers=10 ! %s name=el ! "
        "fakesink", names[i]);
    text = pipeline_first_error (desc, "el");
    g_unsetenv ("GPUFFT_HOST_LEAD");
    check_no_device_error (text);
    g_free (text);
    g_free (desc);
  }
}

GST_END_TEST;

typedef void (*MessageFunc) (const GstStructure * s, gpointer data);

/* Runs the pipeline `desc` (its analyser named el) to EOS with no
 * ERROR, calls func on each element message named `name` and returns
 * their count; el's device-name then says it ran on the host alone. */
static guint
run_on_host (const gchar * desc, const gchar * name, MessageFunc func,
    gpointer data)
{
  GstElement *pipe = gst_parse_launch (desc, NULL);
  GstElement *el = gst_bin_get_by_name (GST_BIN (pipe), "el");
  GstBus *bus = gst_element_get_bus (pipe);
  GstMessage *msg;
  guint n = 0;
  gchar *dev = NULL;

  gst_element_set_state (pipe, GST_STATE_PLAYING);
  while ((msg = gst_bus_timed_pop_filtered (bus, 30 * GST_SECOND,
              GST_MESSAGE_ERROR | GST_MESSAGE_EOS | GST_MESSAGE_ELEMENT))) {
    GstMessageType t = GST_MESSAGE_TYPE (msg);
    const GstStructure *s = gst_message_get_structure (msg);

    fail_if (t == GST_MESSAGE_ERROR, "an ERROR without a device");
    if (t == GST_MESSAGE_ELEMENT && gst_structure_has_name (s, name)) {
      n++;
      if (func)
        func (s, data);
    }
    gst_message_unref (msg);
    if (t == GST_MESSAGE_EOS)
      break;
  }
  g_object_get (el, "device-name", &dev, NULL);
  fail_unless_equals_string (dev, "CPU (host analysis)");
  g_free (dev);
  fail_unless_equals_int (gst_element_set_state (pipe, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  gst_object_unref (el);
  gst_object_unref (bus);
  gst_object_unref (pipe);
  return n;
}

/* A live stream on the host alone: every interval posted, no ERROR, and
 * device-name says where it was analysed. */
GST_START_TEST (test_no_device_live_on_host)
{
  /* (0.5 s of 100 ms intervals) */
  fail_unless_equals_int (run_on_host ("audiotestsrc is-live=true "
          "num-buffers=50 samplesperbuffer=441 ! gpufftspectrum name=el ! "
          "fakesink", "spectrum", NULL, NULL), 5);
}

GST_END_TEST;

/* The host lead (4 s by default): a file shorter than its first second
 * asks for no device: analysed on the host with no Vulkan driver, every
 * interval posted (0.5 s of 100 ms intervals), no ERROR. A longer one asks
 * for its device after a second and waits for it at the lead's end: the
 * element's error says what to install, before EOS. */
GST_START_TEST (test_no_device_file_host_lead)
{
  gchar *text;

  g_unsetenv ("GPUFFT_HOST_LEAD");
  fail_unless_equals_int (run_on_host ("audiotestsrc num-buffers=50 "
          "samplesperbuffer=480 ! audio/x-raw,rate=48000 ! "
          "gpufftspectrum name=el ! fakesink", "spectrum", NULL, NULL), 5);
  text = pipeline_first_error ("audiotestsrc num-buffers=500 "
      "samplesperbuffer=480 ! audio/x-raw,rate=48000 ! gpufftspectrum "
      "name=el ! fakesink", "el");
  check_no_device_error (text);
  g_free (text);
}

GST_END_TEST;

/* (the last message's momentary loudness and second channel's sample
 * peak) */
static void
keep_loudness (const GstStructure * s, gpointer data)
{
  gdouble *mp = data;
  const GValue *peaks = gst_structure_get_value (s, "sample-peak");

  fail_unless (gst_structure_get_double (s, "momentary-loudness", &mp[0]));
  fail_unless (peaks && gst_value_array_get_size (peaks) == 2);
  mp[1] = g_value_get_double (gst_value_array_get_value (peaks, 1));
}

/* gpuloudness: a live stream on the host alone, with no Vulkan driver:
 * every interval posted, no ERROR, device-name says where it was measured,
 * and the readings of a 997 Hz sine of amplitude 0.5 on both channels:
 * momentary loudness 20 log10 (0.5) LUFS (BS.1770: a full-scale sine on
 * two channels reads 0), sample peak 0.5. */
GST_START_TEST (test_no_device_loudness_live_on_host)
{
  gdouble mp[2] = { 0.0, 0.0 };

  /* (0.5 s of 100 ms intervals) */
  fail_unless_equals_int (run_on_host ("audiotestsrc is-live=true "
          "num-buffers=50 samplesperbuffer=480 freq=997 volume=0.5 ! "
          "audio/x-raw,format=F32LE,rate=48000,channels=2 ! "
          "gpuloudness name=el interval=100000000 ! fakesink",
          "ebur128-level", keep_loudness, mp), 5);
  fail_unless (fabs (mp[0] - 20.0 * log10 (0.5)) < 0.01, "M %.4f LUFS", mp[0]);
  fail_unless (fabs (mp[1] - 0.5) < 1e-3, "sample peak %.6f", mp[1]);
}

GST_END_TEST;

/* in a pipeline whose buffers flow (the device is opened beside them): the
 * first ERROR on the bus is the element's, it is the only one the element
 * posts, no crash, back to NULL */
GST_START_TEST (test_no_device_pipeline)
{
  GstElement *pipe = gst_parse_launch ("audiotestsrc num-buffers=50 ! "
      "gpufftspectrum name=el ! fakesink", NULL);
  GstElement *el = gst_bin_get_by_name (GST_BIN (pipe), "el");
  GstBus *bus = gst_element_get_bus (pipe);
  GstMessage *msg;
  guint i, from_el;

  /* (no host lead: the device asked for at the first buffer) */
  g_setenv ("GPUFFT_HOST_LEAD", "0", TRUE);
  for (i = 0; i < 3; i++) {
    gst_element_set_state (pipe, GST_STATE_PLAYING);
    msg = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
        GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
    fail_unless (msg != NULL);
    fail_unless_equals_int (GST_MESSAGE_TYPE (msg), GST_MESSAGE_ERROR);
    fail_unless (GST_MESSAGE_SRC (msg) == GST_OBJECT (el),
        "the first ERROR is not the element's");
    gst_message_unref (msg);
    /* (what else comes in the next 0.5 s: the source's flow error) */
    from_el = 1;
    while ((msg = gst_bus_timed_pop_filtered (bus, GST_SECOND / 2,
                GST_MESSAGE_ERROR)) != NULL) {
      from_el += GST_MESSAGE_SRC (msg) == GST_OBJECT (el);
      gst_message_unref (msg);
    }
    fail_unless_equals_int (from_el, 1);
    fail_unless_equals_int (gst_element_set_state (pipe, GST_STATE_NULL),
        GST_STATE_CHANGE_SUCCESS);
  }
  g_unsetenv ("GPUFFT_HOST_LEAD");
  gst_object_unref (el);
  gst_object_unref (bus);
  gst_object_unref (pipe);
}

GST_END_TEST;

/* A synchronous bus handler that stops the pipeline on the element's
 * ERROR: it runs on the thread that opens the device, and the stop it
 * makes there must neither wait for that thread nor deadlock; the
 * pipeline goes to NULL. */
static gint stopped_from_handler;

static GstBusSyncReply
stop_on_error (GstBus * bus, GstMessage * msg, gpointer pipe)
{
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR
      && g_atomic_int_get (&stopped_from_handler) == 0) {
    gst_element_set_state (GST_ELEMENT (pipe), GST_STATE_NULL);
    g_atomic_int_set (&stopped_from_handler, 1);
  }
  /* (a sync handler that drops a message unrefs it) */
  gst_message_unref (msg);
  return GST_BUS_DROP;
}

GST_START_TEST (test_stop_from_error_handler)
{
  GstElement *pipe = gst_parse_launch ("audiotestsrc num-buffers=500 ! "
      "gpufftspectrum ! fakesink", NULL);
  GstBus *bus = gst_element_get_bus (pipe);
  gint64 end = g_get_monotonic_time () + 30 * G_TIME_SPAN_SECOND;

  gst_bus_set_sync_handler (bus, stop_on_error, pipe, NULL);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  while (!g_atomic_int_get (&stopped_from_handler)
      && g_get_monotonic_time () < end)
    g_usleep (10 * 1000);
  fail_unless (g_atomic_int_get (&stopped_from_handler),
      "no ERROR reached the handler, or its stop did not return");
  fail_unless_equals_int (gst_element_set_state (pipe, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  gst_bus_set_sync_handler (bus, NULL, NULL, NULL);
  gst_object_unref (bus);
  gst_object_unref (pipe);
}

GST_END_TEST;

static Suite *
nodevice_suite (void)
{
  Suite *s = suite_create ("gpufftspectrum-nodevice");
  TCase *tc = tcase_create ("nodevice");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_no_device_error);
  tcase_add_test (tc, test_no_device_live_on_host);
  tcase_add_test (tc, test_no_device_file_host_lead);
  tcase_add_test (tc, test_no_device_loudness_live_on_host);
  tcase_add_test (tc, test_stop_from_error_handler);
  tcase_add_test (tc, test_no_device_pipeline);
  return s;
}

GST_CHECK_MAIN (nodevice);
