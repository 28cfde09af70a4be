/* A device declared hung while it still runs a batch: a CPU device
 * (lavapipe) is slow, not hung, so with a fence timeout of 0.05 s (set on
 * the context once the plan's kernels are made under its own deadlines: a
 * cold shader cache compiles them for longer; the stall deadline is never
 * longer) batches of 64 frames of 65536 points on 8 channels, one in
 * every slot of the plan, are declared hung while the device still
 * computes them. The plan's error says so, the plan's free and
 * the context's last unref return at once, and the lost context is
 * destroyed only once the device has finished the batch (nothing freed
 * under it: under AddressSanitizer a device that reads or writes freed
 * memory is a report, and lavapipe crashes on a device destroyed under
 * its queue). Its scheduler's threads end within 20 s; a new context of
 * the device then gives a batch's power spectrum within 1e-5 of the
 * double-precision reference. On a GPU that finishes the batch within
 * the deadline there is nothing to test: skipped. */
#include <stdlib.h>
#include <string.h>

#include "engine-test.h"
#include "gpufft-context-private.h"

#define BIG_N 65536
#define BIG_CHANNELS 8
#define BIG_FRAMES 64
#define PROMPT_US (G_USEC_PER_SEC / 2)

/* Threads of this process whose name starts with prefix. */
static guint
threads_named (const gchar * prefix)
{
  GDir *dir = g_dir_open ("/proc/self/task", 0, NULL);
  const gchar *tid;
  guint n = 0;

  if (!dir)
    return 0;
  while ((tid = g_dir_read_name (dir)) != NULL) {
    gchar *path = g_strdup_printf ("/proc/self/task/%s/comm", tid);
    gchar *comm = NULL;

    if (g_file_get_contents (path, &comm, NULL, NULL)
        && g_str_has_prefix (comm, prefix))
      n++;
    g_free (comm);
    g_free (path);
  }
  g_dir_close (dir);
  return n;
}

/* Waits at most `seconds` for the threads whose name starts with prefix,
 * or with other (may be NULL), to end. */
static void
wait_threads_gone (const gchar * prefix, const gchar * other, guint seconds)
{
  gint64 end = g_get_monotonic_time () + seconds * G_USEC_PER_SEC;

  while ((threads_named (prefix) > 0
          || (other != NULL && threads_named (other) > 0))
      && g_get_monotonic_time () < end)
    g_usleep (20 * 1000);
}

/* Waits at most `seconds` for the devices' scheduler threads to end. */
static void
wait_scheduler_gone (guint seconds)
{
  wait_threads_gone ("gpufft-complete", "gpufft-submit", seconds);
}

/* Counts the results: failed ones in [0], the others in [1]. */
static void
count_result (const GpufftGroupResult * result, gpointer user_data)
{
  guint *counts = user_data;

  counts[result->failed ? 0 : 1]++;
}

static GpufftContext *
open_context (void)
{
  const gchar *dev = g_getenv ("GPUFFT_TEST_DEVICE");
  const gchar *req = g_getenv ("GPUFFT_TESTS_REQUIRE_DEVICE");
  GError *err = NULL;
  GpufftContext *ctx = gpufft_context_get (dev ? atoi (dev) : -1, &err);

  if (ctx == NULL) {
    if (req != NULL && strcmp (req, "0") != 0)
      g_error ("GPUFFT_TESTS_REQUIRE_DEVICE is set and no Vulkan device "
          "could be opened: %s", err->message);
    g_test_skip (err->message);
    g_clear_error (&err);
  }
  return ctx;
}

/* A context of a CPU device, or NULL (the test skipped: a GPU finishes
 * the big batches within the short deadline) */
static GpufftContext *
open_cpu_context (void)
{
  GpufftContext *ctx = open_context ();

  if (ctx != NULL && !gpufft_context_is_cpu (ctx)) {
    gpufft_context_unref (ctx);
    g_test_skip ("a GPU finishes the batches within the deadline");
    return NULL;
  }
  return ctx;
}

/* The small plan's configuration: 4 frames of 1024, hop 512 */
static void
small_config (GpufftPlanConfig * cfg)
{
  gpufft_plan_config_init (cfg);
  cfg->fft_size = 1024;
  cfg->hop = 512;
  cfg->max_frames = 4;
}

/* A small batch on a fresh context: 4 frames of 1024, one group, against
 * the reference. */
static void
check_fresh_context (void)
{
  GpufftContext *ctx = open_context ();
  GpufftPlanConfig cfg;
  GpufftPlan *plan;
  EtInput *in;
  GpufftSegment seg = { 0 };
  GpufftGroup group = { 4, TRUE, NULL, FALSE };
  GpufftBatch batch = { 0 };
  GPtrArray *res;
  EtResult *r;
  gdouble *ref;
  GError *err = NULL;

  if (ctx == NULL)
    return;
  small_config (&cfg);
  plan = gpufft_plan_new (ctx, &cfg, &err);
  g_assert_no_error (err);
  in = et_input_new (GPUFFT_FORMAT_F32, FALSE, 1, 3 * 512 + 1024, 0.1, 0.5,
      7);
  et_input_segments (in, 0, 3 * 512 + 1024, 1, &seg, NULL);
  batch.segments = &seg;
  batch.n_segments = 1;
  batch.n_frames = 4;
  batch.groups = &group;
  batch.n_groups = 1;
  res = et_results_new ();
  g_assert_true (et_submit_collect (plan, &batch, res));
  g_assert_cmpuint (res->len, ==, 1);
  r = g_ptr_array_index (res, 0);
  g_assert_cmpuint (r->n_frames, ==, 4);
  ref = g_new (gdouble, 513);
  et_ref_power (in, -1, 0, 512, 4, 1024, cfg.window, cfg.scaling, cfg.rate,
      ref);
  et_check_power (r->power, ref, 513, 100.0, 1e-5, "fresh context");
  g_free (ref);
  g_ptr_array_unref (res);
  et_input_free (in);
  gpufft_plan_free (plan);
  gpufft_context_unref (ctx);
}

/* The context's fence timeout and stall deadline from here on: at most
 * SHORT_NS. (Written before the next submission, which hands them to the
 * device's threads under their locks.) */
#define SHORT_NS (G_GUINT64_CONSTANT (50) * 1000 * 1000)

static void
shorten_deadlines (GpufftContext * ctx)
{
  ctx->fence_timeout_ns = MIN (ctx->fence_timeout_ns, SHORT_NS);
  ctx->stall_ns = MIN (ctx->stall_ns, SHORT_NS);
}

/* A plan of 65536 points on 8 channels, made under the context's own
 * deadlines, then (short) the deadlines shortened to 0.05 s, and a batch of
 * 64 frames submitted into each of its slots, or into the first
 * max_batches of them where that is not 0 (fewer where a submit fails:
 * the device may declare itself hung before the last one). */
static GpufftPlan *
big_plan_submitted (GpufftContext * ctx, guint32 mul, guint max_batches,
    gboolean short_deadlines)
{
  GpufftPlanConfig cfg;
  GpufftPlan *plan;
  gsize span = (gsize) (BIG_FRAMES - 1) * (BIG_N / 8) + BIG_N;
  gfloat *samples;
  GpufftSegment seg = { 0 };
  GpufftGroup group = { BIG_FRAMES, TRUE, NULL, FALSE };
  GpufftBatch batch = { 0 };
  GError *err = NULL;
  gint64 t0;
  gsize i;
  guint b, n_batches;

  gpufft_plan_config_init (&cfg);
  cfg.fft_size = BIG_N;
  cfg.hop = BIG_N / 8;
  cfg.channels = BIG_CHANNELS;
  cfg.downmix = FALSE;
  cfg.max_frames = BIG_FRAMES;
  t0 = g_get_monotonic_time ();
  plan = gpufft_plan_new (ctx, &cfg, &err);
  g_assert_no_error (err);
  g_test_message ("plan made in %.2f s", (g_get_monotonic_time () - t0) / 1e6);
  t0 = g_get_monotonic_time ();
  if (short_deadlines) {
    /* one frame through the plan first, under the same deadlines: what a
     * cold shader cache still compiles at the first dispatch */
    GpufftGroup one = { 1, TRUE, NULL, FALSE };
    guint warm_counts[2] = { 0, 0 };

    samples = g_new0 (gfloat, (gsize) BIG_N * BIG_CHANNELS);
    seg.data = samples;
    seg.n_samples = BIG_N;
    batch.segments = &seg;
    batch.n_segments = 1;
    batch.n_frames = 1;
    batch.groups = &one;
    batch.n_groups = 1;
    g_assert_true (gpufft_plan_submit (plan, &batch, &err));
    g_assert_no_error (err);
    g_assert_cmpint (gpufft_plan_collect (plan, TRUE, count_result,
            warm_counts, &err), >=, 0);
    g_assert_no_error (err);
    g_assert_cmpuint (warm_counts[1], ==, 1);
    g_free (samples);
    g_test_message ("a frame through it in %.2f s",
        (g_get_monotonic_time () - t0) / 1e6);
    shorten_deadlines (ctx);
  }

  n_batches = gpufft_plan_get_n_slots (plan);
  if (max_batches > 0)
    n_batches = MIN (n_batches, max_batches);
  samples = g_new (gfloat, span * BIG_CHANNELS);
  for (i = 0; i < span * BIG_CHANNELS; i++)
    samples[i] = (gfloat) ((i * mul) % 65536) / 32768.0f - 1.0f;
  seg.data = samples;
  seg.n_samples = span;
  batch.segments = &seg;
  batch.n_segments = 1;
  batch.n_frames = BIG_FRAMES;
  batch.groups = &group;
  batch.n_groups = 1;
  t0 = g_get_monotonic_time ();
  for (b = 0; b < n_batches; b++)
    if (!gpufft_plan_submit (plan, &batch, &err))
      break;
  g_test_message ("%u batches of %u frames submitted in %.2f s", b,
      BIG_FRAMES, (g_get_monotonic_time () - t0) / 1e6);
  g_clear_error (&err);
  g_free (samples);             /* (copied by the submit) */
  return plan;
}

static void
test_lost_while_running (void)
{
  GpufftContext *ctx = open_context ();
  GpufftPlan *plan;
  guint counts[2] = { 0, 0 };
  GError *err = NULL;
  gint64 t0, took;
  gint n;

  if (ctx == NULL)
    return;
  /* every slot of the plan: the device has several times the deadline's
   * work queued */
  plan = big_plan_submitted (ctx, 2654435761u, 0, TRUE);

  t0 = g_get_monotonic_time ();
  n = gpufft_plan_collect (plan, TRUE, count_result, counts, &err);
  took = g_get_monotonic_time () - t0;
  if (n >= 0 && !gpufft_context_is_cpu (ctx)) {
    gpufft_plan_free (plan);
    gpufft_context_unref (ctx);
    g_test_skip ("the device finished the batch within the deadline");
    return;
  }
  g_test_message ("declared hung after %.2f s: %s", took / 1e6,
      err ? err->message : "(no error)");
  /* (a CPU device takes far longer than 0.05 s for a submission's 2^25
   * samples' FFTs) */
  g_assert_error (err, GPUFFT_ERROR, GPUFFT_ERROR_DEVICE_LOST);
  g_assert_nonnull (strstr (err->message, "stopped responding"));
  g_clear_error (&err);
  g_test_message ("results: %u failed, %u done", counts[0], counts[1]);

  /* nothing new is made on the lost context (what it frees is kept) */
  {
    GpufftPlanConfig small;
    GpufftPlan *p2;

    small_config (&small);
    p2 = gpufft_plan_new (ctx, &small, &err);
    g_assert_null (p2);
    g_assert_error (err, GPUFFT_ERROR, GPUFFT_ERROR_DEVICE_LOST);
    g_clear_error (&err);
  }

  /* the device still computes the batch: nothing waits for it */
  t0 = g_get_monotonic_time ();
  gpufft_plan_free (plan);
  gpufft_context_unref (ctx);
  took = g_get_monotonic_time () - t0;
  g_test_message ("plan free and the context's last unref: %.3f s",
      took / 1e6);
  g_assert_cmpint (took, <, PROMPT_US);

  /* the lost context is destroyed once the device has finished */
  wait_scheduler_gone (20);
  g_test_message ("the lost context destroyed %.2f s after its last unref",
      (g_get_monotonic_time () - t0) / 1e6);
  g_assert_cmpuint (threads_named ("gpufft-complete"), ==, 0);
  g_assert_cmpuint (threads_named ("gpufft-submit"), ==, 0);

  /* and the device works on a new context */
  check_fresh_context ();
}

/* The plan freed while the device still runs its batches, before any
 * wait has declared the device hung: the free's own wait times out, the
 * device is then taken as hung and nothing is freed under it. */
static void
test_free_while_running (void)
{
  GpufftContext *ctx = open_cpu_context ();
  GpufftPlan *plan;

  if (ctx == NULL)
    return;
  plan = big_plan_submitted (ctx, 40503u, 0, TRUE);
  gpufft_plan_free (plan);
  gpufft_context_unref (ctx);

  wait_scheduler_gone (30);
  g_assert_cmpuint (threads_named ("gpufft-submit"), ==, 0);
  check_fresh_context ();
}

/* The process's exit while a waiter of the engine's (a late release,
 * gpufft_context_release_later) still runs: the exit waits for it (within
 * its bound, 10 s), so the release has run before the process's exit
 * handlers reach the driver's teardown, no thread of the engine's is
 * inside the driver then, and the context, whose last reference the
 * release held, is destroyed (nothing left for LeakSanitizer). In a
 * subprocess, as an application meets it: a batch of 64 frames of 65536
 * points on 8 channels in flight when the device is declared hung; the
 * plan freed (and its release waited for), then an import released late
 * (the release itself takes 0.3 s), the context dropped, and the
 * application exits at once. It registers an exit handler once the driver
 * is loaded (exit handlers run in the reverse order: after the engine's,
 * before the driver's), which says whether the release has run. */
static gint late_done;

static void
late_released (gpointer data)
{
  g_usleep (G_USEC_PER_SEC * 3 / 10);
  g_atomic_int_set (&late_done, 1);
}

static void
before_driver_teardown (void)
{
  g_print ("at the driver's teardown the late release had %s\n",
      g_atomic_int_get (&late_done) ? "run" : "not run");
}

static void
test_exit_waits_for_late_release (void)
{
  GpufftContext *ctx;

  if (g_test_subprocess ()) {
    GpufftPlan *plan;

    g_setenv ("GPUFFT_FENCE_TIMEOUT", "60", TRUE);
    ctx = open_context ();
    g_assert_nonnull (ctx);
    atexit (before_driver_teardown);
    plan = big_plan_submitted (ctx, 69069u, 1, FALSE);
    gpufft_context_set_lost (ctx);
    gpufft_plan_free (plan);
    g_assert_true (gpufft_wait_released (60000));
    gpufft_context_release_later (ctx, late_released, NULL);
    gpufft_context_unref (ctx);
    exit (0);
  }
  /* (any device: the release, not the batch, is under way at the exit) */
  ctx = open_context ();
  if (ctx == NULL)
    return;
  gpufft_context_unref (ctx);
  g_test_trap_subprocess (NULL, 120 * G_USEC_PER_SEC, 0);
  g_test_trap_assert_passed ();
  g_test_trap_assert_stdout ("*late release had run*");
}

/* A late release queued while the waiter gives up on a device that does
 * not finish (its warning is the moment: the waiter has left the
 * releases it had and not yet ended) is not left behind in the context's
 * list with no waiter to come: it is taken by a waiter of its own, which
 * releases it once the device has finished or gives up on it in turn,
 * and the list ends empty with no waiter running. CPU device only (a GPU
 * finishes within the 0.05 s deadline). */
static GpufftContext *late_ctx;
static gint late_b_queued;

static void
note_released (gpointer data)
{
  g_atomic_int_set ((gint *) data, 1);
}

static gint late_a_done, late_b_done, give_ups;

static gboolean
is_give_up (const gchar * msg)
{
  return strstr (msg, "was not seen to finish") != NULL;
}

/* (the engine's warnings: the give-up queues the second release) */
static void
on_warning (const gchar * domain, GLogLevelFlags level, const gchar * msg,
    gpointer data)
{
  if (!is_give_up (msg)) {
    g_log_default_handler (domain, level, msg, data);
    return;
  }
  g_test_message ("warned: %s", msg);
  g_atomic_int_inc (&give_ups);
  if (!g_atomic_int_get (&late_b_queued)) {
    gpufft_context_release_later (late_ctx, note_released, &late_b_done);
    g_atomic_int_set (&late_b_queued, 1);
  }
}

/* (the give-up's warning is expected: not fatal) */
static gboolean
on_fatal (const gchar * domain, GLogLevelFlags level, const gchar * msg,
    gpointer data)
{
  return !is_give_up (msg);
}

static void
test_release_during_give_up (void)
{
  GpufftContext *ctx = open_cpu_context ();
  GpufftPlan *plan;
  gint64 end;
  gboolean running = TRUE;
  GSList *left = NULL;
  guint handler;

  if (ctx == NULL)
    return;
  plan = big_plan_submitted (ctx, 2246822519u, 0, TRUE);
  late_ctx = ctx;
  handler = g_log_set_handler ("gpufft", G_LOG_LEVEL_WARNING
      | G_LOG_FLAG_FATAL | G_LOG_FLAG_RECURSION, on_warning, NULL);
  g_test_log_set_fatal_handler (on_fatal, NULL);
  gpufft_context_release_later (ctx, note_released, &late_a_done);

  end = g_get_monotonic_time () + 30 * G_USEC_PER_SEC;
  while (g_get_monotonic_time () < end) {
    g_mutex_lock (&ctx->late_lock);
    running = ctx->late_running;
    left = ctx->late;
    g_mutex_unlock (&ctx->late_lock);
    if (g_atomic_int_get (&late_b_queued) && !running)
      break;
    g_usleep (20 * 1000);
  }
  g_assert_true (g_atomic_int_get (&late_b_queued));
  g_assert_false (running);
  /* (before: the second release stayed in the list, no waiter to come) */
  g_assert_null (left);
  /* (the waiter warns once it has ended its part: its thread gone) */
  wait_threads_gone ("gpufft-late", NULL, 30);
  g_assert_cmpuint (threads_named ("gpufft-late"), ==, 0);
  /* the first was given up on; the second was released once the device
   * had finished, or given up on in turn: never released under it */
  g_assert_false (g_atomic_int_get (&late_a_done));
  if (g_atomic_int_get (&late_b_done))
    g_assert_cmpint (g_atomic_int_get (&give_ups), ==, 1);
  else
    g_assert_cmpint (g_atomic_int_get (&give_ups), ==, 2);

  gpufft_plan_free (plan);
  gpufft_context_unref (ctx);
  wait_scheduler_gone (30);
  g_assert_cmpuint (threads_named ("gpufft-complete"), ==, 0);
  g_assert_cmpuint (threads_named ("gpufft-submit"), ==, 0);
  g_test_log_set_fatal_handler (NULL, NULL);
  g_log_remove_handler ("gpufft", handler);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/lost/while-running", test_lost_while_running);
  g_test_add_func ("/lost/free-while-running", test_free_while_running);
  g_test_add_func ("/lost/exit-waits-for-late-release",
      test_exit_waits_for_late_release);
  g_test_add_func ("/lost/release-during-give-up",
      test_release_during_give_up);
  return g_test_run ();
}
