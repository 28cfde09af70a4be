/* Error paths and the API's small contracts: every bad argument comes back
 * as a GError of GPUFFT_ERROR (no abort, no leak: this program also runs
 * under valgrind), and a plan stays usable after a refused batch. */
#include <math.h>
#include <string.h>

#include "engine-test.h"

static void
expect_error (GError * err, gint code, const gchar * what)
{
  if (err == NULL) {
    et_fail ("%s: no error", what);
    return;
  }
  if (err->domain != GPUFFT_ERROR || err->code != code)
    et_fail ("%s: error %s/%d \"%s\", expected GPUFFT_ERROR/%d",
        what, g_quark_to_string (err->domain), err->code, err->message, code);
  else if (err->message == NULL || strlen (err->message) < 10)
    et_fail ("%s: message too short: \"%s\"", what,
        err->message ? err->message : "(null)");
  else
    g_test_message ("%s: \"%s\"", what, err->message);
}

static void
test_basics (void)
{
  GpufftPlanConfig cfg;
  guint n;

  gpufft_plan_config_init (&cfg);
  g_assert_cmpuint (cfg.fft_size, ==, 1024);
  g_assert_cmpuint (cfg.hop, ==, 512);
  g_assert_cmpint (cfg.window, ==, GPUFFT_WINDOW_HANN);
  g_assert_cmpint (cfg.format, ==, GPUFFT_FORMAT_F32);
  g_assert_cmpuint (cfg.channels, ==, 1);
  g_assert_false (cfg.planar);
  g_assert_true (cfg.downmix);
  g_assert_cmpint (cfg.scaling, ==, GPUFFT_SCALING_SPECTRUM);
  g_assert_cmpfloat (cfg.rate, ==, 48000.0);
  g_assert_cmpuint (cfg.max_frames, ==, 0);
  g_assert_cmpuint (cfg.max_groups, ==, 0);
  g_assert_cmpuint (cfg.n_peaks, ==, 1);
  g_assert_false (cfg.complex_out);
  g_assert_false (cfg.output_db);

  for (n = 0; n <= 2 * GPUFFT_MAX_SIZE; n++) {
    gboolean valid = n % 2 == 0 && n >= 2 && n <= 65536;

    if (gpufft_size_is_valid (n) != valid)
      et_fail ("gpufft_size_is_valid (%u) = %d", n, !valid);
  }
  g_assert_false (gpufft_size_is_valid (G_MAXUINT));
  g_assert_false (gpufft_size_is_valid (1u << 31));

  g_assert_cmpuint (gpufft_format_bytes (GPUFFT_FORMAT_S16), ==, 2);
  g_assert_cmpuint (gpufft_format_bytes (GPUFFT_FORMAT_S24), ==, 3);
  g_assert_cmpuint (gpufft_format_bytes (GPUFFT_FORMAT_S32), ==, 4);
  g_assert_cmpuint (gpufft_format_bytes (GPUFFT_FORMAT_F32), ==, 4);
  g_assert_cmpuint (gpufft_format_bytes (GPUFFT_FORMAT_F64), ==, 8);
}

static void
test_context (void)
{
  GpufftContext *ctx = et_context (), *again, *bad;
  GError *err = NULL;
  gchar **names;
  guint n_dev;

  if (ctx == NULL)
    return;

  names = gpufft_list_devices (&err);
  g_assert_no_error (err);
  g_assert_nonnull (names);
  n_dev = g_strv_length (names);
  g_assert_cmpuint (n_dev, >=, 1);
  g_assert_cmpint (gpufft_context_get_device_index (ctx), >=, 0);
  g_assert_cmpint (gpufft_context_get_device_index (ctx), <, n_dev);
  g_assert_cmpstr (gpufft_context_get_device_name (ctx), ==,
      names[gpufft_context_get_device_index (ctx)]);

  /* one context per device: the same index gives the same object */
  again = gpufft_context_get (gpufft_context_get_device_index (ctx), &err);
  g_assert_no_error (err);
  g_assert_true (again == ctx);
  gpufft_context_unref (again);
  again = gpufft_context_ref (ctx);
  g_assert_true (again == ctx);
  gpufft_context_unref (again);

  /* index out of range */
  bad = gpufft_context_get (99, &err);
  g_assert_null (bad);
  expect_error (err, GPUFFT_ERROR_DEVICE_INDEX, "device index 99");
  if (err && !strstr (err->message, "99"))
    et_fail ("device index 99: the message does not name the "
        "index: \"%s\"", err->message);
  g_clear_error (&err);
  bad = gpufft_context_get (n_dev, NULL);       /* NULL error: no crash */
  g_assert_null (bad);
  /* not a documented index: whatever it does, no crash */
  bad = gpufft_context_get (-2, &err);
  if (bad)
    gpufft_context_unref (bad);
  g_clear_error (&err);
  g_strfreev (names);
}

/* No Vulkan driver at all (run in a subprocess whose loader finds no ICD):
 * a clear error that says what to install. */
static void
test_no_device (void)
{
  if (g_test_subprocess ()) {
    GError *err = NULL;
    GpufftContext *c;
    gchar **names;

    g_setenv ("VK_ICD_FILENAMES", "/nonexistent/gpufft-test-icd.json", TRUE);
    g_setenv ("VK_DRIVER_FILES", "/nonexistent/gpufft-test-icd.json", TRUE);
    c = gpufft_context_get (-1, &err);
    g_assert_null (c);
    g_assert_nonnull (err);
    g_assert_true (err->domain == GPUFFT_ERROR);
    g_assert_true (err->code == GPUFFT_ERROR_NO_VULKAN
        || err->code == GPUFFT_ERROR_NO_DEVICE);
    g_printerr ("no driver: \"%s\"\n", err->message);
    g_assert_nonnull (strstr (err->message, "mesa-vulkan-drivers"));
    g_clear_error (&err);
    c = gpufft_context_get (0, &err);
    g_assert_null (c);
    g_assert_nonnull (err);
    g_clear_error (&err);
    names = gpufft_list_devices (&err);
    g_assert_true (names == NULL || names[0] == NULL);
    g_strfreev (names);
    g_clear_error (&err);
    return;
  }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
  g_test_trap_assert_stderr ("*mesa-vulkan-drivers*");
}

typedef void (*Breaker) (GpufftPlanConfig * cfg);

#define BREAKER(name, stmt) \
  static void name (GpufftPlanConfig * cfg) { stmt; }
BREAKER (size_1001, cfg->fft_size = 1001)
BREAKER (size_1, cfg->fft_size = 1)
BREAKER (size_131072, cfg->fft_size = 131072)
BREAKER (size_0, cfg->fft_size = 0)
BREAKER (channels_0, cfg->channels = 0)
BREAKER (channels_max, cfg->channels = GPUFFT_MAX_CHANNELS + 1)
BREAKER (hop_0, cfg->hop = 0)
BREAKER (rate_0, cfg->rate = 0.0)
BREAKER (rate_neg, cfg->rate = -48000.0)
BREAKER (rate_nan, cfg->rate = NAN)
BREAKER (peaks_max, cfg->n_peaks = GPUFFT_MAX_PEAKS + 1)
BREAKER (window_bad, cfg->window = (GpufftWindow) 99)
BREAKER (format_bad, cfg->format = (GpufftFormat) 99)
BREAKER (scaling_bad, cfg->scaling = (GpufftScaling) 7)
static const struct
{
  const gchar *name;
  Breaker fn;
} breakers[] = {
  {"fft_size 1001", size_1001}, {"fft_size 1", size_1},
  {"fft_size 131072", size_131072}, {"fft_size 0", size_0},
  {"channels 0", channels_0}, {"channels > max", channels_max},
  {"hop 0", hop_0}, {"rate 0", rate_0}, {"rate < 0", rate_neg},
  {"rate NaN", rate_nan}, {"n_peaks > max", peaks_max},
  {"window 99", window_bad}, {"format 99", format_bad},
  {"scaling 7", scaling_bad},
};

static void
test_bad_config (void)
{
  GpufftContext *ctx = et_context ();
  guint i;

  if (ctx == NULL)
    return;
  for (i = 0; i < G_N_ELEMENTS (breakers); i++) {
    GpufftPlanConfig cfg;
    GError *err = NULL;
    GpufftPlan *plan;

    gpufft_plan_config_init (&cfg);
    breakers[i].fn (&cfg);
    plan = gpufft_plan_new (ctx, &cfg, &err);
    if (plan != NULL) {
      et_fail ("%s: plan accepted", breakers[i].name);
      gpufft_plan_free (plan);
    }
    expect_error (err, GPUFFT_ERROR_INVALID_ARGUMENT, breakers[i].name);
    g_clear_error (&err);
    /* NULL error pointer: refused all the same, no crash */
    plan = gpufft_plan_new (ctx, &cfg, NULL);
    g_assert_null (plan);
  }
}

/* A small valid plan: N 64, hop 32, max 4 frames, 2 groups, F32 mono. */
static GpufftPlan *
small_plan (void)
{
  GpufftPlanConfig cfg;
  GError *err = NULL;
  GpufftPlan *plan;

  gpufft_plan_config_init (&cfg);
  cfg.fft_size = 64;
  cfg.hop = 32;
  cfg.max_frames = 4;
  cfg.max_groups = 2;
  cfg.window = GPUFFT_WINDOW_RECTANGULAR;
  plan = gpufft_plan_new (et_context (), &cfg, &err);
  g_assert_no_error (err);
  g_assert_nonnull (plan);
  return plan;
}

static void
test_plan_getters (void)
{
  GpufftPlan *plan;
  const GpufftPlanConfig *cfg;

  if (et_context () == NULL)
    return;
  plan = small_plan ();
  cfg = gpufft_plan_get_config (plan);
  g_assert_cmpuint (cfg->fft_size, ==, 64);
  g_assert_cmpuint (cfg->hop, ==, 32);
  g_assert_cmpuint (gpufft_plan_get_max_frames (plan), ==, 4);
  g_assert_cmpuint (gpufft_plan_get_max_groups (plan), ==, 2);
  g_assert_cmpuint (gpufft_plan_get_n_bins (plan), ==, 33);
  g_assert_cmpuint (gpufft_plan_get_out_channels (plan), ==, 1);
  g_assert_cmpuint (gpufft_plan_get_max_span (plan), ==, 3 * 32 + 64);
  g_assert_cmpuint (gpufft_plan_in_flight (plan), ==, 0);
  gpufft_plan_free (plan);

  /* automatic batch: resolved to something usable */
  {
    GpufftPlanConfig c2;
    GError *err = NULL;

    gpufft_plan_config_init (&c2);
    c2.channels = 8;
    c2.downmix = FALSE;
    plan = gpufft_plan_new (et_context (), &c2, &err);
    g_assert_no_error (err);
    g_assert_cmpuint (gpufft_plan_get_max_frames (plan), >=, 1);
    g_assert_cmpuint (gpufft_plan_get_max_groups (plan), >=, 1);
    g_assert_cmpuint (gpufft_plan_get_out_channels (plan), ==, 8);
    g_assert_cmpuint (gpufft_plan_get_max_span (plan), ==,
        (gsize) (gpufft_plan_get_max_frames (plan) - 1) * 512 + 1024);
    gpufft_plan_free (plan);
  }
}

static void
test_bad_batch (void)
{
  GpufftPlan *plan;
  gfloat x[4 * 32 + 64 + 64];
  GpufftSegment seg = { x, NULL, 3 * 32 + 64 };
  GpufftSegment seg_long = { x, NULL, 5 * 32 + 64 };
  GpufftGroup g4[2] = { {4, TRUE}, {0, TRUE} };
  GpufftGroup g5[1] = { {5, TRUE} };
  GpufftGroup g3[3] = { {1, TRUE}, {1, TRUE}, {2, TRUE} };
  GpufftGroup open_first[2] = { {2, FALSE}, {2, TRUE} };
  GpufftGroup two[2] = { {2, TRUE}, {2, TRUE} };
  GpufftGroup wrap[2] = { {0xffffffffu, TRUE}, {2, TRUE} };   /* sums to 1 */
  struct
  {
    const gchar *name;
    GpufftBatch b;
  } bad[] = {
    {"too many frames", {&seg_long, 1, 5, g5, 1, 0}},
    {"span too short", {&seg, 1, 4, two, 2, 0}},
    {"too many groups", {&seg_long, 1, 4, g3, 3, 0}},
    {"no group", {&seg_long, 1, 4, two, 0, 0}},
    {"n_frames != sum of groups", {&seg_long, 1, 3, two, 2, 0}},
    {"open group not last", {&seg_long, 1, 4, open_first, 2, 0}},
    {"no segments", {NULL, 0, 4, two, 2, 0}},
    {"group frames wrapping around", {&seg_long, 1, 1, wrap, 2, 0}},
    {"segment array missing", {NULL, 1, 4, two, 2, 0}},
  };
  GError *err = NULL;
  GPtrArray *res;
  guint i, t;

  if (et_context () == NULL)
    return;
  plan = small_plan ();
  for (t = 0; t < G_N_ELEMENTS (x); t++)
    x[t] = (gfloat) sin (0.3 * t);
  /* 4 frames need 3 * 32 + 64 samples: one short */
  seg.n_samples = 3 * 32 + 63;

  for (i = 0; i < G_N_ELEMENTS (bad); i++) {
    if (gpufft_plan_submit (plan, &bad[i].b, &err))
      et_fail ("%s: batch accepted", bad[i].name);
    expect_error (err, GPUFFT_ERROR_INVALID_ARGUMENT, bad[i].name);
    g_clear_error (&err);
    g_assert_false (gpufft_plan_submit (plan, &bad[i].b, NULL));
    g_assert_cmpuint (gpufft_plan_in_flight (plan), ==, 0);
  }

  /* still usable: a good batch gives the right numbers */
  {
    GpufftBatch good = { &seg_long, 1, 4, g4, 2, 0 };
    gdouble ref[33], w[64];
    guint k;

    res = et_results_new ();
    if (et_submit_collect (plan, &good, res)) {
      EtResult *r;

      g_assert_cmpuint (res->len, ==, 2);
      r = g_ptr_array_index (res, 0);
      g_assert_cmpuint (r->group_index, ==, 0);
      g_assert_cmpuint (r->n_frames, ==, 4);
      /* mean of 4 frames, rectangular, spectrum scaling */
      et_window (GPUFFT_WINDOW_RECTANGULAR, 64, w);
      for (k = 0; k < 33; k++)
        ref[k] = 0.0;
      for (t = 0; t < 4; t++) {
        gdouble xd[64], re[33], im[33];
        guint j;

        for (j = 0; j < 64; j++)
          xd[j] = x[t * 32 + j];
        et_rfft_double (xd, 64, re, im);
        for (k = 0; k < 33; k++)
          ref[k] += (re[k] * re[k] + im[k] * im[k]) *
              et_scale (GPUFFT_SCALING_SPECTRUM, w, 64, 48000, k) / 4;
      }
      et_check_power (r->power, ref, 33, 100.0, 1e-5, "after errors");
      r = g_ptr_array_index (res, 1);
      g_assert_cmpuint (r->group_index, ==, 1);
      g_assert_cmpuint (r->n_frames, ==, 0);
    }
    g_ptr_array_unref (res);
  }

  /* collecting with nothing in flight is fine */
  res = et_results_new ();
  g_assert_cmpint (gpufft_plan_collect (plan, TRUE, et_collect_cb, res,
          &err), ==, 0);
  g_assert_no_error (err);
  g_assert_cmpuint (res->len, ==, 0);
  g_ptr_array_unref (res);
  gpufft_plan_free (plan);
}

/* A plan freed with work in flight waits for it and leaks nothing. */
static void
test_free_in_flight (void)
{
  GpufftPlan *plan;
  gfloat x[3 * 32 + 64] = { 0 };
  GpufftSegment seg = { x, NULL, G_N_ELEMENTS (x) };
  GpufftGroup g = { 4, TRUE };
  GpufftBatch batch = { &seg, 1, 4, &g, 1, 0 };
  GError *err = NULL;
  guint i;

  if (et_context () == NULL)
    return;
  plan = small_plan ();
  for (i = 0; i < 5; i++) {
    g_assert_true (gpufft_plan_submit (plan, &batch, &err));
    g_assert_no_error (err);
  }
  g_assert_cmpuint (gpufft_plan_in_flight (plan), >=, 1);
  gpufft_plan_free (plan);
}

int
main (int argc, char **argv)
{
  et_init (&argc, &argv);
  g_test_add_func ("/errors/basics", test_basics);
  g_test_add_func ("/errors/context", test_context);
  g_test_add_func ("/errors/no-device", test_no_device);
  g_test_add_func ("/errors/bad-config", test_bad_config);
  g_test_add_func ("/errors/plan-getters", test_plan_getters);
  g_test_add_func ("/errors/bad-batch", test_bad_batch);
  g_test_add_func ("/errors/free-in-flight", test_free_in_flight);
  return et_run ();
}
