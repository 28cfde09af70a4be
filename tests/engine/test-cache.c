/* The per-device cache's bound (gpufft-cache.h): plans of many FFT sizes
 * made and freed one after another on one context, with a small
 * GPUFFT_CACHE_MAX_BYTES. The entries no plan holds stay within the limit
 * (the least recently used ones destroyed), the entries of a plan that
 * stays alive meanwhile are kept (its results, before and after, against
 * the double-precision reference), and an unused entry within the limit is
 * used again (no new entry for a size freed and made again). */
#include <math.h>

#include "engine-test.h"
#include "gpufft-cache.h"

/* Room for one freed plan's entries (two pipelines of
 * GPUFFT_CACHE_PIPELINE_BYTES and small tables), not for two: a freed
 * plan's entries stay until the next one's push them out */
#define MAX_BYTES "6000000"
/* small sizes of the generic kernel (and 32, of the CPU devices' or the
 * power-of-two one), quick to compile on lavapipe */
#define N_SIZES 16
#define LIVE_N 20               /* 2^2 5: mixed-radix */
#define RATE 48000.0
#define TOL 1e-4                /* the generic kernel's (engine-power) */
#define DYN_DB 80.0

static GpufftPlan *
make_plan (guint n)
{
  GpufftPlanConfig cfg;
  GError *err = NULL;
  GpufftPlan *plan;

  gpufft_plan_config_init (&cfg);
  cfg.fft_size = n;
  cfg.hop = n / 2;
  cfg.channels = 1;
  cfg.rate = RATE;
  cfg.format = GPUFFT_FORMAT_F32;
  cfg.window = GPUFFT_WINDOW_HANN;
  cfg.scaling = GPUFFT_SCALING_SPECTRUM;
  plan = gpufft_plan_new (et_context (), &cfg, &err);
  if (!plan) {
    et_fail ("gpufft_plan_new (N=%u): %s", n, err->message);
    g_error_free (err);
  }
  return plan;
}

/* One group of 3 frames of `in` through the plan, checked against the
 * reference. */
static void
check_plan (GpufftPlan * plan, const EtInput * in, const gchar * when)
{
  const GpufftPlanConfig *cfg = gpufft_plan_get_config (plan);
  guint n = cfg->fft_size, nb = n / 2 + 1;
  GpufftGroup group = { 3, TRUE };
  GpufftSegment seg;
  gconstpointer planes[8];
  GpufftBatch batch = { 0 };
  GPtrArray *res = et_results_new ();
  gdouble *ref = g_new (gdouble, nb);
  gchar *what;
  EtResult *r;

  et_input_segments (in, 0, 2 * cfg->hop + n, 1, &seg, planes);
  batch.groups = &group;
  batch.n_groups = 1;
  batch.n_frames = 3;
  batch.segments = &seg;
  batch.n_segments = 1;
  if (!et_submit_collect (plan, &batch, res))
    goto out;
  if (res->len != 1) {
    et_fail ("%s: %u results, 1 expected", when, res->len);
    goto out;
  }
  r = g_ptr_array_index (res, 0);
  g_assert_cmpuint (r->n_bins, ==, nb);
  g_assert_cmpuint (r->n_frames, ==, 3);
  et_ref_power (in, 0, 0, cfg->hop, 3, n, cfg->window, cfg->scaling,
      cfg->rate, ref);
  what = g_strdup_printf ("N=%u %s", n, when);
  g_test_message ("%s: max relative error %.2e", what,
      et_check_power (r->power, ref, nb, DYN_DB, TOL, what));
  g_free (what);
out:
  g_free (ref);
  g_ptr_array_unref (res);
}

static void
log_stats (const gchar * when, const GpufftCacheStats * s)
{
  g_test_message ("%s: %u entries (%u unused), %" G_GSIZE_FORMAT " bytes (%"
      G_GSIZE_FORMAT " unused, limit %" G_GSIZE_FORMAT "), %" G_GUINT64_FORMAT
      " made, %" G_GUINT64_FORMAT " evicted", when, s->entries, s->unused,
      s->bytes, s->unused_bytes, s->max_bytes, s->made, s->evicted);
}

/* First test of the program: the cache starts empty. */
static void
test_bounded (void)
{
  GpufftContext *ctx = et_context ();
  GpufftCacheStats st, live;
  EtInput *in;
  GpufftPlan *plan;
  guint i, n;

  if (!ctx)
    return;
  gpufft_cache_stats (ctx, &st);
  g_assert_cmpuint (st.max_bytes, ==, g_ascii_strtoull (MAX_BYTES, NULL, 10));
  g_assert_cmpuint (st.entries, ==, 0);
  in = et_input_new (GPUFFT_FORMAT_F32, FALSE, 1, 4096, 0.01, 0.5, 7);

  /* the live plan: every entry of the cache is its own */
  plan = make_plan (LIVE_N);
  if (!plan)
    goto out;
  check_plan (plan, in, "before");
  gpufft_cache_stats (ctx, &live);
  log_stats ("live plan", &live);
  g_assert_cmpuint (live.entries, >=, 3);       /* pipelines, tables */
  g_assert_cmpuint (live.unused, ==, 0);

  /* the sizes 22, 24, ... 52 (each its own pipelines and tables;
   * mixed-radix and Bluestein), one plan alive at a time beside the live
   * one */
  for (i = 0, n = LIVE_N + 2; i < N_SIZES; i++, n += 2) {
    GpufftPlan *other = make_plan (n);

    if (!other)
      break;
    gpufft_plan_free (other);
    gpufft_cache_stats (ctx, &st);
    if (st.unused_bytes > st.max_bytes
        || st.bytes > live.bytes + st.max_bytes) {
      log_stats ("over the limit", &st);
      et_fail ("after N=%u: %" G_GSIZE_FORMAT " bytes cached (%"
          G_GSIZE_FORMAT " unused), the live plan's %" G_GSIZE_FORMAT
          " and at most %" G_GSIZE_FORMAT " unused expected", n, st.bytes,
          st.unused_bytes, live.bytes, st.max_bytes);
      break;
    }
  }
  log_stats ("after the sizes", &st);
  g_assert_cmpuint (st.made, >=, live.made + 2 * N_SIZES);
  g_assert_cmpuint (st.evicted, >, 0);
  g_assert_cmpuint (st.entries - st.unused, ==, live.entries);
  /* the live plan's entries are still there and work */
  check_plan (plan, in, "after the other sizes");

  /* an unused entry within the limit serves again: the last size's plan
   * made again makes nothing */
  n -= 2;
  {
    GpufftPlan *again = make_plan (n);
    GpufftCacheStats st2;

    gpufft_cache_stats (ctx, &st2);
    g_assert_cmpuint (st2.made, ==, st.made);
    check_plan (again, in, "made again");
    gpufft_plan_free (again);
  }

  gpufft_plan_free (plan);
  gpufft_cache_stats (ctx, &st);
  log_stats ("every plan freed", &st);
  g_assert_cmpuint (st.unused, ==, st.entries);
  g_assert_cmpuint (st.unused_bytes, <=, st.max_bytes);
out:
  et_input_free (in);
}

int
main (int argc, char **argv)
{
  /* (read when the context's cache is made, on the first plan) */
  g_setenv ("GPUFFT_CACHE_MAX_BYTES", MAX_BYTES, TRUE);
  et_init (&argc, &argv);
  g_test_add_func ("/cache/bounded", test_bounded);
  return et_run ();
}
