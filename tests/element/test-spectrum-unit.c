/* GStreamer's own unit test of the spectrum element (gst-plugins-good,
 * tests/check/elements/spectrum.c: test_int16, test_int32, test_float32,
 * test_float64), run against gpuspectrum with only the element's name
 * changed: one buffer of one second of an fs/4 sine (0, +max, 0, -max) in
 * S16, S32, F32 or F64 is pushed through the element in a GstCheck setup
 * (gst_check_setup_element, a source and a sink pad, a bus of the test's
 * own), the first `spectrum` element message is read from the bus as soon
 * as the push returns (bands 256, interval 10 ms, threshold -80: bands 127
 * and 128 above -20 dB, every other below), the buffer comes out as it
 * went in, and once the bus is set flushing the element is referenced by
 * the test and by the message it holds only (ASSERT_OBJECT_REFCOUNT 2):
 * spectrum posts every message of a buffer before the buffer leaves it,
 * so none can still be on its way then. Each case runs REPEATS times (a
 * message still on its way shows in some runs only). */
#include <gst/check/gstcheck.h>
#include <gst/audio/audio.h>

#define FACTORY "gpuspectrum"
#define REPEATS 20

static GstPad *mysrcpad, *mysinkpad;

#define SPECT_CAPS_TEMPLATE_STRING \
    "audio/x-raw, " \
    "rate = (int) [ 1, MAX ], " \
    "channels = (int) [ 1, MAX ], " \
    "layout = (string) interleaved, " \
    "format = (string) { " \
        GST_AUDIO_NE(S16) ", " \
        GST_AUDIO_NE(S32) ", " \
        GST_AUDIO_NE(F32) ", " \
        GST_AUDIO_NE(F64) " }"

#define SPECT_CAPS_STRING(fmt) \
    "audio/x-raw, " \
    "rate = (int) 44100, " \
    "channels = (int) 1, " \
    "layout = (string) interleaved, " \
    "format = (string) " fmt

#define SPECT_BANDS 256

static GstStaticPadTemplate sinktemplate = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK,
    GST_PAD_ALWAYS,
    GST_STATIC_CAPS (SPECT_CAPS_TEMPLATE_STRING)
    );
static GstStaticPadTemplate srctemplate = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC,
    GST_PAD_ALWAYS,
    GST_STATIC_CAPS (SPECT_CAPS_TEMPLATE_STRING)
    );

static GstElement *
setup_spectrum (void)
{
  GstElement *spectrum;

  spectrum = gst_check_setup_element (FACTORY);
  mysrcpad = gst_check_setup_src_pad (spectrum, &srctemplate);
  mysinkpad = gst_check_setup_sink_pad (spectrum, &sinktemplate);
  gst_pad_set_active (mysrcpad, TRUE);
  gst_pad_set_active (mysinkpad, TRUE);
  return spectrum;
}

static void
cleanup_spectrum (GstElement * spectrum)
{
  gst_check_drop_buffers ();
  gst_pad_set_active (mysrcpad, FALSE);
  gst_pad_set_active (mysinkpad, FALSE);
  gst_check_teardown_src_pad (spectrum);
  gst_check_teardown_sink_pad (spectrum);
  gst_check_teardown_element (spectrum);
}

typedef enum
{
  S16,
  S32,
  F32,
  F64
} Format;

/* 44100 samples of 0, +max, 0, -max */
static GstBuffer *
make_buffer (Format format)
{
  static const gsize bps[] = { 2, 4, 4, 8 };
  GstBuffer *buf = gst_buffer_new_allocate (NULL, 44100 * bps[format], NULL);
  GstMapInfo map;
  guint j;

  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  for (j = 0; j < 44100; j++) {
    gint sign = (j % 4 == 1) ? 1 : (j % 4 == 3) ? -1 : 0;

    switch (format) {
      case S16:
        ((gint16 *) map.data)[j] = sign * 32767;
        break;
      case S32:
        ((gint32 *) map.data)[j] = sign * G_MAXINT32;
        break;
      case F32:
        ((gfloat *) map.data)[j] = sign;
        break;
      case F64:
        ((gdouble *) map.data)[j] = sign;
        break;
    }
  }
  gst_buffer_unmap (buf, &map);
  return buf;
}

/* spectrum.c's test body, once */
static void
run_once (Format format, const gchar * caps_str)
{
  GstElement *spectrum;
  GstBuffer *inbuffer, *outbuffer;
  GstBus *bus;
  GstCaps *caps;
  GstMessage *message;
  const GstStructure *structure;
  const GValue *list, *value;
  GstClockTime endtime;
  gfloat level;
  gint i;

  spectrum = setup_spectrum ();
  g_object_set (spectrum, "post-messages", TRUE, "interval", GST_SECOND / 100,
      "bands", SPECT_BANDS, "threshold", -80, NULL);
  fail_unless (gst_element_set_state (spectrum,
          GST_STATE_PLAYING) == GST_STATE_CHANGE_SUCCESS,
      "could not set to playing");

  inbuffer = make_buffer (format);
  caps = gst_caps_from_string (caps_str);
  gst_check_setup_events (mysrcpad, spectrum, caps, GST_FORMAT_TIME);
  gst_caps_unref (caps);
  ASSERT_BUFFER_REFCOUNT (inbuffer, "inbuffer", 1);

  /* a bus to get the spectrum message on */
  bus = gst_bus_new ();
  ASSERT_OBJECT_REFCOUNT (bus, "bus", 1);
  gst_element_set_bus (spectrum, bus);
  ASSERT_OBJECT_REFCOUNT (bus, "bus", 2);

  /* pushing gives away the reference; the buffer ends up on the global
   * buffer list */
  fail_unless (gst_pad_push (mysrcpad, inbuffer) == GST_FLOW_OK);
  ASSERT_BUFFER_REFCOUNT (inbuffer, "inbuffer", 1);
  fail_unless_equals_int (g_list_length (buffers), 1);
  fail_if ((outbuffer = (GstBuffer *) buffers->data) == NULL);
  fail_unless (inbuffer == outbuffer);

  message = gst_bus_poll (bus, GST_MESSAGE_ELEMENT, -1);
  ASSERT_OBJECT_REFCOUNT (message, "message", 1);

  fail_unless (message != NULL);
  fail_unless (GST_MESSAGE_SRC (message) == GST_OBJECT (spectrum));
  fail_unless (GST_MESSAGE_TYPE (message) == GST_MESSAGE_ELEMENT);
  structure = gst_message_get_structure (message);
  fail_if (structure == NULL);
  fail_unless_equals_string (gst_structure_get_name (structure), "spectrum");
  fail_unless (gst_structure_get_clock_time (structure, "endtime", &endtime));

  list = gst_structure_get_value (structure, "magnitude");
  fail_unless_equals_int (gst_value_list_get_size (list), SPECT_BANDS);
  /* only the bands in the middle are above -20 dB */
  for (i = 0; i < SPECT_BANDS; ++i) {
    value = gst_value_list_get_value (list, i);
    level = g_value_get_float (value);
    if ((i == 127) || (i == 128))
      fail_unless (level > -20.0, "band %d: %.2f dB", i, level);
    else
      fail_unless (level < -20.0, "band %d: %.2f dB", i, level);
  }
  fail_unless_equals_int (g_list_length (buffers), 1);
  fail_if ((outbuffer = (GstBuffer *) buffers->data) == NULL);
  fail_unless (inbuffer == outbuffer);

  /* flush current messages, and future state change messages */
  gst_bus_set_flushing (bus, TRUE);

  /* the message has a reference to the element; nothing else has */
  ASSERT_OBJECT_REFCOUNT (spectrum, "spectrum", 2);
  gst_message_unref (message);

  gst_element_set_bus (spectrum, NULL);
  ASSERT_OBJECT_REFCOUNT (bus, "bus", 1);
  gst_object_unref (bus);
  fail_unless (gst_element_set_state (spectrum,
          GST_STATE_NULL) == GST_STATE_CHANGE_SUCCESS, "could not set to null");
  ASSERT_OBJECT_REFCOUNT (spectrum, "spectrum", 1);
  cleanup_spectrum (spectrum);
}

static void
run (Format format, const gchar * caps_str)
{
  guint r;

  for (r = 0; r < REPEATS; r++) {
    GST_INFO ("run %u of %u", r + 1, REPEATS);
    run_once (format, caps_str);
  }
}

GST_START_TEST (test_int16)
{
  run (S16, SPECT_CAPS_STRING (GST_AUDIO_NE (S16)));
}

GST_END_TEST;

GST_START_TEST (test_int32)
{
  run (S32, SPECT_CAPS_STRING (GST_AUDIO_NE (S32)));
}

GST_END_TEST;

GST_START_TEST (test_float32)
{
  run (F32, SPECT_CAPS_STRING (GST_AUDIO_NE (F32)));
}

GST_END_TEST;

GST_START_TEST (test_float64)
{
  run (F64, SPECT_CAPS_STRING (GST_AUDIO_NE (F64)));
}

GST_END_TEST;

static Suite *
spectrum_unit_suite (void)
{
  Suite *s = suite_create ("gpuspectrum-spectrum-unit");
  TCase *tc_chain = tcase_create ("general");

  suite_add_tcase (s, tc_chain);
  tcase_add_test (tc_chain, test_int16);
  tcase_add_test (tc_chain, test_int32);
  tcase_add_test (tc_chain, test_float32);
  tcase_add_test (tc_chain, test_float64);
  return s;
}

GST_CHECK_MAIN (spectrum_unit);
