/* The context is shared and thread-safe: contexts fetched from several
 * threads at once are one object, and plans on it run batches from
 * different threads at the same time with correct results. Also the
 * benchmark helpers (rerun, timings) leave the plan's results intact. */
#include <math.h>

#include "engine-test.h"

#define N_THREADS 4
#define N_BATCHES 6

static gpointer
get_context_thread (gpointer data)
{
  return gpufft_context_get (gpufft_context_get_device_index (data), NULL);
}

static void
test_context_threads (void)
{
  GpufftContext *ctx = et_context ();
  GThread *th[N_THREADS];
  guint i;

  if (ctx == NULL)
    return;
  for (i = 0; i < N_THREADS; i++)
    th[i] = g_thread_new ("ctx", get_context_thread, ctx);
  for (i = 0; i < N_THREADS; i++) {
    GpufftContext *c = g_thread_join (th[i]);
    g_assert_true (c == ctx);
    gpufft_context_unref (c);
  }
}

typedef struct
{
  guint id;
  gchar *failure;               /* first failure, or NULL */
  gdouble worst;
} Job;

/* One plan per thread (different geometries), N_BATCHES batches, each
 * checked against the reference. */
static gpointer
plan_thread (gpointer data)
{
  Job *job = data;
  GpufftPlanConfig cfg;
  GpufftPlan *plan;
  GError *err = NULL;
  EtInput *in;
  guint n = 64u << job->id, nb, b;
  gdouble *ref;

  gpufft_plan_config_init (&cfg);
  cfg.fft_size = n;
  cfg.hop = n / 2;
  cfg.channels = 2;
  cfg.downmix = job->id & 1;
  cfg.max_frames = 4;
  plan = gpufft_plan_new (et_context (), &cfg, &err);
  if (plan == NULL) {
    job->failure = g_strdup_printf ("thread %u: %s", job->id, err->message);
    g_error_free (err);
    return NULL;
  }
  nb = n / 2 + 1;
  ref = g_new (gdouble, nb);
  in = et_input_new (GPUFFT_FORMAT_F32, FALSE, 2,
      (gsize) (N_BATCHES * 4 - 1) * cfg.hop + n, 0.5, 0.3, 900 + job->id);

  for (b = 0; b < N_BATCHES && job->failure == NULL; b++) {
    GpufftSegment seg = { 0 };
    GpufftGroup group = { 4, TRUE };
    GpufftBatch batch = { &seg, 1, 4, &group, 1, 0 };
    GPtrArray *res = et_results_new ();
    guint c;

    et_input_segments (in, (gsize) b * 4 * cfg.hop, 3 * cfg.hop + n, 1, &seg,
        NULL);
    if (!gpufft_plan_submit (plan, &batch, &err)
        || gpufft_plan_collect (plan, TRUE, et_collect_cb, res, &err) < 0) {
      job->failure = g_strdup_printf ("thread %u batch %u: %s", job->id, b,
          err->message);
      g_clear_error (&err);
    } else if (res->len != 1) {
      job->failure = g_strdup_printf ("thread %u batch %u: %u results",
          job->id, b, res->len);
    } else {
      EtResult *r = g_ptr_array_index (res, 0);

      if (r->group_index != b)
        job->failure = g_strdup_printf ("thread %u: group index %"
            G_GUINT64_FORMAT ", expected %u", job->id, r->group_index, b);
      for (c = 0; c < r->channels && job->failure == NULL; c++) {
        et_ref_power (in, cfg.downmix ? -1 : (gint) c,
            (gsize) b * 4 * cfg.hop, cfg.hop, 4, n, cfg.window, cfg.scaling,
            cfg.rate, ref);
        /* et_power_error: the test framework is not thread-safe */
        {
          gdouble ratio, e;
          guint k;

          e = et_power_error (r->power + c * nb, ref, nb, 100.0, 1e-5,
              &ratio, &k);
          job->worst = MAX (job->worst, e);
          if (!(ratio <= 1.0))
            job->failure = g_strdup_printf ("thread %u batch %u channel %u "
                "bin %u: %.9g, reference %.9g", job->id, b, c, k,
                r->power[c * nb + k], ref[k]);
        }
      }
    }
    g_ptr_array_unref (res);
  }
  et_input_free (in);
  g_free (ref);
  gpufft_plan_free (plan);
  return NULL;
}

static void
test_plan_threads (void)
{
  GThread *th[N_THREADS];
  Job jobs[N_THREADS] = { {0} };
  guint i;

  if (et_context () == NULL)
    return;
  for (i = 0; i < N_THREADS; i++) {
    jobs[i].id = i;
    th[i] = g_thread_new ("plan", plan_thread, &jobs[i]);
  }
  for (i = 0; i < N_THREADS; i++)
    g_thread_join (th[i]);
  for (i = 0; i < N_THREADS; i++) {
    if (jobs[i].failure)
      et_fail ("%s", jobs[i].failure);
    else
      g_test_message ("thread %u: worst relative error %.2e", i,
          jobs[i].worst);
    g_free (jobs[i].failure);
  }
}

/* rerun () repeats the last batch's kernels and discards their results:
 * the next batch still comes back right, with the next group index. */
static void
test_rerun (void)
{
  GpufftPlanConfig cfg;
  GpufftPlan *plan;
  GError *err = NULL;
  EtInput *in;
  GpufftSegment seg = { 0 };
  GpufftGroup group = { 3, TRUE };
  GpufftBatch batch = { &seg, 1, 3, &group, 1, 0 };
  GpufftTimings tm;
  GPtrArray *res;
  gdouble ref[129];
  guint b;

  if (et_context () == NULL)
    return;
  gpufft_plan_config_init (&cfg);
  cfg.fft_size = 256;
  cfg.hop = 256;
  cfg.max_frames = 3;
  plan = gpufft_plan_new (et_context (), &cfg, &err);
  g_assert_no_error (err);
  in = et_input_new (GPUFFT_FORMAT_F32, FALSE, 1, 6 * 256, 0.5, 0.3, 31);
  res = et_results_new ();
  for (b = 0; b < 2; b++) {
    et_input_segments (in, b * 3 * 256, 3 * 256, 1, &seg, NULL);
    if (!et_submit_collect (plan, &batch, res))
      break;
    if (b == 0) {
      g_assert_true (gpufft_plan_rerun (plan, 3, &err));
      g_assert_no_error (err);
      gpufft_plan_get_timings (plan, &tm);
      if (tm.valid)
        g_assert_cmpfloat (tm.compute_ns, >, 0.0);
      g_test_message ("rerun x3: timings valid %d, compute %.0f ns",
          tm.valid, tm.compute_ns);
      g_assert_cmpuint (gpufft_plan_in_flight (plan), ==, 0);
    }
  }
  g_assert_cmpuint (res->len, ==, 2);
  for (b = 0; b < 2; b++) {
    EtResult *r = g_ptr_array_index (res, b);

    g_assert_cmpuint (r->group_index, ==, b);
    et_ref_power (in, 0, b * 3 * 256, 256, 3, 256, cfg.window, cfg.scaling,
        cfg.rate, ref);
    et_check_power (r->power, ref, 129, 100.0, 1e-5, "after rerun");
  }
  g_ptr_array_unref (res);
  et_input_free (in);
  gpufft_plan_free (plan);
}

int
main (int argc, char **argv)
{
  et_init (&argc, &argv);
  g_test_add_func ("/threads/context", test_context_threads);
  g_test_add_func ("/threads/plans", test_plan_threads);
  g_test_add_func ("/threads/rerun", test_rerun);
  return et_run ();
}
