/* GPUFFT_PIPELINE_STATS (gpufft-pipeline-stats.h): with it set, on a
 * device that offers VK_KHR_pipeline_executable_properties, each pipeline
 * made prints one line per executable to stderr, with its module, its
 * specialization constants and the driver's statistics; unset (or "0"),
 * no line, and the device is made without the extension; on a device
 * without the extension the variable does nothing and says nothing (no
 * line of the engine's on stderr).
 *
 * Each run is a fresh process (g_test_trap_subprocess): a context reads
 * the variable when it is made. The children make a plan of 64 points on
 * the GPU-shaped kernels (GPUFFT_KERNEL_PATH=gpu), whose FFT is fft.comp
 * with constant 0 = 5 (log2 of 32: a real frame of 64 points is a complex
 * FFT of 32) and constant 8 = 0 (no four-step).
 *
 * Under tests/faults/vk-exec-stats-shim.c (meson's
 * engine-pipeline-stats-shim), any device offers the extension, with
 * statistics known here, and the shim tells what the device and the
 * pipelines were made with; there, statistics that the driver fails to
 * give are a warning each, and the plan is made all the same. */
#include <dlfcn.h>
#include <string.h>
#include <glib/gstdio.h>

#include "engine-test.h"
#include "gpufft-context-private.h"

static const guint32 fft_spv[] =
#include "fft.spv.h"
    ;

#define SHIM_STATS "executable=\"Compute Shader\" subgroup_size=32 " \
  "Register_Count=42 Local_Memory_Delta=-8 Shared_Memory=8192 " \
  "Uses_Barriers=true Occupancy=0.75"

typedef void (*ShimState) (int *ext, int *feature, int *with_flag,
    int *without_flag);

static ShimState
shim (void)
{
  return (ShimState) dlsym (RTLD_DEFAULT, "gpufft_test_stats_shim_state");
}

/* "gpufft-pipeline-stats: module=spirv-BYTES-HASH spec=0=5," of fft.comp
 * at 64 points. */
static gchar *
fft_line_start (void)
{
  gchar *sum = g_compute_checksum_for_data (G_CHECKSUM_SHA256,
      (const guchar *) fft_spv, sizeof (fft_spv));
  gchar *s = g_strdup_printf ("gpufft-pipeline-stats: module=spirv-%"
      G_GSIZE_FORMAT "-%.8s spec=0=5,", sizeof (fft_spv), sum);

  g_free (sum);
  return s;
}

/* Whether the test's device offers the extension (the shim's included). */
static gboolean
offered (GpufftContext * ctx)
{
  VkExtensionProperties *exts;
  guint32 n = 0, i;
  gboolean found = FALSE;

  g_assert_cmpint (vkEnumerateDeviceExtensionProperties (ctx->physical,
          NULL, &n, NULL), ==, VK_SUCCESS);
  exts = g_new0 (VkExtensionProperties, MAX (n, 1));
  g_assert_cmpint (vkEnumerateDeviceExtensionProperties (ctx->physical,
          NULL, &n, exts), ==, VK_SUCCESS);
  for (i = 0; i < n; i++)
    found |= strcmp (exts[i].extensionName,
        VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME) == 0;
  g_free (exts);
  return found;
}

/* The child: one context, n_plans plans of 64 points alive at once. Under
 * the shim, the device must have been made with the extension and the
 * feature, and every pipeline with the capture flag, exactly when
 * stats_on. */
static void
child (guint n_plans, gboolean stats_on)
{
  GpufftPlanConfig cfg;
  GpufftContext *ctx;
  GpufftPlan *plans[2];
  GError *err = NULL;
  guint i;

  g_setenv ("GPUFFT_KERNEL_PATH", "gpu", TRUE);
  ctx = gpufft_context_get (-1, &err);
  g_assert_no_error (err);
  gpufft_plan_config_init (&cfg);
  cfg.fft_size = 64;
  cfg.hop = 32;
  for (i = 0; i < n_plans; i++) {
    plans[i] = gpufft_plan_new (ctx, &cfg, &err);
    g_assert_no_error (err);
    g_assert_nonnull (plans[i]);
  }
  if (shim ()) {
    int ext, feature, with_flag, without_flag;

    shim ()(&ext, &feature, &with_flag, &without_flag);
    g_assert_cmpint (ext, ==, stats_on);
    g_assert_cmpint (feature, ==, stats_on);
    if (stats_on) {
      g_assert_cmpint (with_flag, >=, 2);       /* the FFT and the reduce */
      g_assert_cmpint (without_flag, ==, 0);
    } else {
      g_assert_cmpint (with_flag, ==, 0);
      g_assert_cmpint (without_flag, >=, 2);
    }
  }
  for (i = 0; i < n_plans; i++)
    gpufft_plan_free (plans[i]);
  gpufft_context_unref (ctx);
}

/* Runs the child with GPUFFT_PIPELINE_STATS = value (NULL: unset). */
static void
run_child (const gchar * value)
{
  if (value)
    g_setenv ("GPUFFT_PIPELINE_STATS", value, TRUE);
  else
    g_unsetenv ("GPUFFT_PIPELINE_STATS");
  g_test_trap_subprocess (NULL, 120 * G_USEC_PER_SEC, 0);
  g_unsetenv ("GPUFFT_PIPELINE_STATS");
  g_test_trap_assert_passed ();
}

/* Unset, or "0": no line, and (under the shim) no extension, no flag. */
static void
test_off (void)
{
  const gchar *values[] = { NULL, "0", "" };
  guint i;

  if (g_test_subprocess ()) {
    child (1, FALSE);
    return;
  }
  if (!et_context ())
    return;
  for (i = 0; i < G_N_ELEMENTS (values); i++) {
    run_child (values[i]);
    g_test_trap_assert_stderr_unmatched ("*gpufft-pipeline-stats*");
  }
}

/* Set: the FFT's line, with its module and constants (the shim's exact
 * statistics under the shim); on a device without the extension, nothing
 * at all on stderr. */
static void
test_on (void)
{
  GpufftContext *ctx;
  gchar *start, *pattern;

  if (g_test_subprocess ()) {
    child (1, TRUE);
    return;
  }
  if (!(ctx = et_context ()))
    return;
  if (!offered (ctx)) {
    run_child ("1");
    g_test_trap_assert_stderr_unmatched ("*gpufft*");
    g_test_message ("'%s' does not offer "
        VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME ": checked "
        "that GPUFFT_PIPELINE_STATS then says nothing (the shim's test "
        "engine-pipeline-stats-shim checks the lines)",
        gpufft_context_get_device_name (ctx));
    return;
  }
  run_child ("1");
  start = fft_line_start ();
  if (shim ())
    pattern = g_strdup_printf ("*%s*,8=0,9=1,10=0 " SHIM_STATS "\n*", start);
  else
    pattern = g_strdup_printf ("*%s*,8=0,9=1,10=0 executable=\"*\" "
        "subgroup_size=* ?*=?*\n*", start);
  g_test_trap_assert_stderr (pattern);
  g_test_message ("%s", pattern);
  g_free (pattern);
  g_free (start);
}

/* A pipeline the context's cache hands out again was printed when it was
 * made (once for two plans of one geometry); one the driver takes from
 * the pipeline cache file of an earlier process is printed too. */
static void
test_cached (void)
{
  GpufftContext *ctx;
  gchar *dir, *start, *once, *twice;

  if (g_test_subprocess ()) {
    child (2, TRUE);
    return;
  }
  if (!(ctx = et_context ()))
    return;
  if (!offered (ctx)) {
    g_test_skip ("the device does not offer "
        VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);
    return;
  }
  dir = g_dir_make_tmp ("gpufft-stats-XXXXXX", NULL);
  g_assert_nonnull (dir);
  g_setenv ("GPUFFT_CACHE_DIR", dir, TRUE);
  start = fft_line_start ();
  once = g_strdup_printf ("*%s*", start);
  twice = g_strdup_printf ("*%s*%s*", start, start);

  /* a new file, then the file of the run before */
  run_child ("1");
  g_test_trap_assert_stderr (once);
  g_test_trap_assert_stderr_unmatched (twice);
  run_child ("1");
  g_test_trap_assert_stderr (once);
  g_test_trap_assert_stderr_unmatched (twice);

  g_setenv ("GPUFFT_CACHE_DIR", "", TRUE);
  {
    GDir *d = g_dir_open (dir, 0, NULL);
    const gchar *name;
    guint n = 0;

    while (d && (name = g_dir_read_name (d))) {
      gchar *path = g_build_filename (dir, name, NULL);

      g_remove (path);
      g_free (path);
      n++;
    }
    if (d)
      g_dir_close (d);
    /* (the second run had a file to read) */
    g_assert_cmpuint (n, ==, 1);
  }
  g_rmdir (dir);
  g_free (once);
  g_free (twice);
  g_free (start);
  g_free (dir);
}

/* Statistics the driver cannot give: one warning per pipeline, and the
 * plan made all the same (under the shim only). */
static void
test_failure (void)
{
  if (g_test_subprocess ()) {
    g_setenv ("VK_EXEC_STATS_SHIM_FAIL", "1", TRUE);
    /* the FFT's, then the reduce kernel's */
    g_test_expect_message ("gpufft", G_LOG_LEVEL_WARNING,
        "gpufft-pipeline-stats: module=spirv-* spec=0=5,*,9=1,10=0: executable "
        "0: statistics not read (vkGetPipelineExecutableStatisticsKHR: "
        "VK_ERROR_OUT_OF_HOST_MEMORY)");
    g_test_expect_message ("gpufft", G_LOG_LEVEL_WARNING,
        "gpufft-pipeline-stats: module=spirv-* spec=0=32,*: executable 0: "
        "statistics not read (vkGetPipelineExecutableStatisticsKHR: "
        "VK_ERROR_OUT_OF_HOST_MEMORY)");
    child (1, TRUE);
    g_test_assert_expected_messages ();
    return;
  }
  if (!et_context ())
    return;
  if (!shim ()) {
    g_test_skip ("a driver that fails to give statistics: only under "
        "tests/faults/vk-exec-stats-shim.c");
    return;
  }
  run_child ("1");
  g_test_trap_assert_stderr_unmatched ("*gpufft-pipeline-stats: module=*"
      "executable=*");
}

/* The cases that need the extension are run only where the device offers
 * it (or the shim fakes it), so that a device without it skips nothing. */
int
main (int argc, char **argv)
{
  GpufftContext *ctx;

  et_init (&argc, &argv);
  g_test_add_func ("/pipeline-stats/off", test_off);
  g_test_add_func ("/pipeline-stats/on", test_on);
  /* (a child process registers every case: it runs the one it is given) */
  if (g_test_subprocess () || ((ctx = et_context ()) != NULL && offered (ctx)))
    g_test_add_func ("/pipeline-stats/cached", test_cached);
  if (g_test_subprocess () || shim ())
    g_test_add_func ("/pipeline-stats/failure", test_failure);
  return et_run ();
}
