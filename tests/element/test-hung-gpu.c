/* A GPU that hangs (tests/faults/vk-hang-shim.c, preloaded: fences never
 * signal, vkDeviceWaitIdle never returns): the element turns the bounded
 * wait into a clear error, the audio keeps passing until then, and the
 * pipeline still goes to NULL (nothing waits for the hung device). Runs
 * with GPUFFT_FENCE_TIMEOUT=1 (seconds). */
#include <dlfcn.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <string.h>

#include "gpufft-test-common.h"

#define RATE 48000
#define CHUNK 480

GST_START_TEST (test_hung_gpu)
{
  void (*hang) (int) = (void (*)(int)) dlsym (RTLD_DEFAULT, "gpufft_test_hang");
  Fmt f = { "F32LE", RATE, 1, FALSE };
  gchar *caps = fmt_caps_string (&f);
  GstBus *bus;
  GstHarness *h;
  gdouble *x = g_new0 (gdouble, RATE * 2);
  gsize off;
  Msgs *m;
  guint i;
  gboolean named = FALSE;

  fail_unless (hang != NULL, "vk-hang-shim is not preloaded");
  h = harness_new (&bus, caps, "fft-size", "256", "interval", "10000000", NULL);
  g_free (caps);
  gen_tone (x, RATE * 2, 1, 0.5, 1000.0, RATE, 0.0);

  /* working first */
  push_samples (h, &f, x, RATE / 10, CHUNK, 0, FALSE);
  for (i = 0; i < 10; i++)
    gst_buffer_unref (gst_harness_pull (h));
  m = msgs_collect (bus, 9, 60);
  fail_unless (m->spectrum->len >= 9);
  fail_unless_equals_int (m->errors->len, 0);
  msgs_free (m);

  /* then the GPU hangs: buffers still pass until the element has seen
   * the hang (a bounded wait), then it stops with an error */
  hang (1);
  for (off = RATE / 10; off < 2 * RATE; off += CHUNK) {
    GstBuffer *b = fmt_make_buffer (&f, x + off, CHUNK,
        gst_util_uint64_scale_int_round (off, GST_SECOND, RATE));
    GstFlowReturn ret = gst_harness_push (h, b);

    if (ret != GST_FLOW_OK) {
      fail_unless_equals_int (ret, GST_FLOW_ERROR);
      break;
    }
    gst_buffer_unref (gst_harness_pull (h));
  }
  m = msgs_collect (bus, G_MAXUINT, 60);
  fail_unless (m->errors->len >= 1, "no error after the GPU hung");
  for (i = 0; i < m->errors->len; i++)
    named |= strstr (g_ptr_array_index (m->errors, i), "did not finish")
        != NULL;
  fail_unless (named, "the error does not say the device hangs: %s",
      (gchar *) g_ptr_array_index (m->errors, 0));
  msgs_free (m);

  /* and it stops (the test's timeout catches a hang here) */
  harness_free (h, bus);
  hang (0);
  g_free (x);
}

GST_END_TEST;

static Suite *
hung_suite (void)
{
  Suite *s = suite_create ("gpufftspectrum-hung-gpu");
  TCase *tc = tcase_create ("hung");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, test_hung_gpu);
  return s;
}

GST_CHECK_MAIN (hung);
