/* Without a Vulkan loader (meson runs this program with
 * GPUFFT_VULKAN_LOADER pointing to a library that does not exist, and a
 * fresh registry) the plugin still registers (it does not link the loader:
 * the registry would blacklist it), nothing loads libvulkan, and starting
 * the element with a device-index, or a stream that is not live through
 * it, fails with an ERROR that says to install libvulkan1. */
#include "gpufft-test-common.h"

static gboolean
libvulkan_mapped (void)
{
  gchar *maps = NULL;
  gboolean hit;

  fail_unless (g_file_get_contents ("/proc/self/maps", &maps, NULL, NULL));
  hit = strstr (maps, "libvulkan") != NULL;
  g_free (maps);
  return hit;
}

GST_START_TEST (test_no_loader)
{
  GstElement *el;
  Msgs *m;
  gchar *text;

  fail_unless (g_getenv ("GPUFFT_VULKAN_LOADER") != NULL,
      "run with GPUFFT_VULKAN_LOADER=/nonexistent (meson does)");
  el = gst_element_factory_make ("gpufftspectrum", NULL);
  fail_unless (el != NULL, "the plugin must register without a loader");
  fail_if (libvulkan_mapped (), "the plugin loaded libvulkan");
  /* (a device named by its index: opened at the start) */
  g_object_set (el, "device-index", 0, NULL);
  m = start_must_error (el, GST_STATE_PLAYING);
  text = g_ptr_array_index (m->errors, 0);
  g_print ("no-loader error: %s\n", text);
  fail_unless (strstr (text, "no Vulkan loader") != NULL
      && strstr (text, "install libvulkan1") != NULL,
      "the error does not say to install the loader: %s", text);
  fail_if (libvulkan_mapped ());
  start_failed_free (el, m);

  /* (the automatic device, with no host lead: opened at the first
   * buffer) */
  g_setenv ("GPUFFT_HOST_LEAD", "0", TRUE);
  text = pipeline_first_error ("audiotestsrc num-buffers=10 ! "
      "gpufftspectrum name=el ! fakesink", "el");
  g_unsetenv ("GPUFFT_HOST_LEAD");
  g_print ("no-loader error: %s\n", text);
  fail_unless (strstr (text, "no Vulkan loader") != NULL
      && strstr (text, "install libvulkan1") != NULL,
      "the error does not say to install the loader: %s", text);
  fail_if (libvulkan_mapped ());
  g_free (text);
}

GST_END_TEST;

static Suite *
noloader_suite (void)
{
  Suite *s = suite_create ("gpufftspectrum-noloader");
  TCase *tc = tcase_create ("noloader");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_no_loader);
  return s;
}

GST_CHECK_MAIN (noloader);
