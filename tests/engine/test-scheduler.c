/* The device scheduler: many plans, each fed from its own thread, with
 * results delivered by the completion thread through result functions,
 * get exactly what the same batches give a plan alone (the scheduler puts
 * them in shared submissions); tags come back with their groups, in order;
 * freeing a plan delivers what it had in flight; the context counts the
 * submissions. Also run under valgrind (meson.build). */
#include <string.h>

#include "engine-test.h"

#define N_PLANS 12
#define N_BATCHES 5

typedef struct
{
  guint id;
  GpufftPlanConfig cfg;
  EtInput *in;
  GPtrArray *results;           /* EtResult*, by the result function */
  GPtrArray *tags;              /* the tags that came back, in order */
  gchar *failure;
} Stream;

static void
config_of (guint id, GpufftPlanConfig * cfg)
{
  gpufft_plan_config_init (cfg);
  cfg->fft_size = 64u << (id % 5);      /* 64 .. 1024 */
  cfg->hop = cfg->fft_size / (1 + id % 3);
  cfg->channels = 1 + id % 2;
  cfg->downmix = (id / 2) % 2;
  cfg->window = id % 2 ? GPUFFT_WINDOW_HANN : GPUFFT_WINDOW_BLACKMAN;
  cfg->max_frames = 8;
  cfg->n_peaks = 2;
}

/* Batch b of a stream: 2 + (b % 3) frames in two groups, the second one
 * left open on odd batches (it goes on in the next batch). */
static void
batch_of (Stream * st, guint b, gsize * first, GpufftSegment * seg,
    GpufftGroup * groups, GpufftBatch * batch, guint64 * next_tag)
{
  guint frames = 2 + b % 3;
  gsize start = 0;
  guint i;

  for (i = 0; i < b; i++)
    start += (gsize) (2 + i % 3) * st->cfg.hop;
  *first = start;
  et_input_segments (st->in, start, (gsize) (frames - 1) * st->cfg.hop +
      st->cfg.fft_size, 1, seg, NULL);
  groups[0].n_frames = 1;
  groups[0].close = TRUE;
  groups[1].n_frames = frames - 1;
  groups[1].close = b % 2 == 0 || b + 1 == N_BATCHES;
  groups[0].tag = GUINT_TO_POINTER ((guint)++ * next_tag);
  groups[1].tag = groups[1].close ?
      GUINT_TO_POINTER ((guint)++ * next_tag) : NULL;
  memset (batch, 0, sizeof (*batch));
  batch->segments = seg;
  batch->n_segments = 1;
  batch->n_frames = frames;
  batch->groups = groups;
  batch->n_groups = 2;
}

/* Result function: runs on the completion thread, one call at a time. */
static void
on_result (const GpufftGroupResult * r, gpointer user_data)
{
  Stream *st = user_data;

  g_ptr_array_add (st->tags, r->tag);
  if (r->failed) {
    if (!st->failure)
      st->failure = g_strdup_printf ("stream %u: a batch failed", st->id);
    return;
  }
  et_collect_cb (r, st->results);
}

static gpointer
stream_thread (gpointer data)
{
  Stream *st = data;
  GError *err = NULL;
  GpufftPlan *plan = gpufft_plan_new (et_context (), &st->cfg, &err);
  guint64 tag = 0;
  guint b;

  if (plan == NULL) {
    st->failure = g_strdup_printf ("stream %u: %s", st->id, err->message);
    g_error_free (err);
    return NULL;
  }
  gpufft_plan_set_result_func (plan, on_result, st);
  for (b = 0; b < N_BATCHES; b++) {
    GpufftSegment seg = { 0 };
    GpufftGroup groups[2] = { {0}
    };
    GpufftBatch batch;
    gsize first;

    batch_of (st, b, &first, &seg, groups, &batch, &tag);
    if (!gpufft_plan_submit (plan, &batch, &err)) {
      st->failure = g_strdup_printf ("stream %u batch %u: %s", st->id, b,
          err->message);
      g_clear_error (&err);
      break;
    }
  }
  /* the drain: returns once every result was delivered */
  if (gpufft_plan_collect (plan, TRUE, NULL, NULL, &err) < 0) {
    st->failure = g_strdup_printf ("stream %u: %s", st->id, err->message);
    g_clear_error (&err);
  }
  if (gpufft_plan_in_flight (plan) != 0 && !st->failure)
    st->failure = g_strdup_printf ("stream %u: work in flight after the "
        "drain", st->id);
  gpufft_plan_free (plan);
  return NULL;
}

/* The same batches through a plan alone, results collected (stash). */
static GPtrArray *
alone (Stream * st)
{
  GPtrArray *res = et_results_new ();
  GpufftPlan *plan = gpufft_plan_new (et_context (), &st->cfg, NULL);
  guint64 tag = 0;
  guint b;

  g_assert_nonnull (plan);
  for (b = 0; b < N_BATCHES; b++) {
    GpufftSegment seg = { 0 };
    GpufftGroup groups[2] = { {0}
    };
    GpufftBatch batch;
    gsize first;

    batch_of (st, b, &first, &seg, groups, &batch, &tag);
    g_assert_true (gpufft_plan_submit (plan, &batch, NULL));
  }
  g_assert_cmpint (gpufft_plan_collect (plan, TRUE, et_collect_cb, res,
          NULL), ==, N_BATCHES);
  gpufft_plan_free (plan);
  return res;
}

static void
test_many_plans (void)
{
  Stream st[N_PLANS];
  GThread *th[N_PLANS];
  GpufftContextStats before, after;
  guint i, j;

  if (et_context () == NULL)
    return;
  gpufft_context_get_stats (et_context (), &before);
  for (i = 0; i < N_PLANS; i++) {
    memset (&st[i], 0, sizeof (st[i]));
    st[i].id = i;
    config_of (i, &st[i].cfg);
    st[i].in = et_input_new (GPUFFT_FORMAT_F32, FALSE, st[i].cfg.channels,
        (gsize) 20 * st[i].cfg.hop + st[i].cfg.fft_size, 0.5, 0.3, 40 + i);
    st[i].results = et_results_new ();
    st[i].tags = g_ptr_array_new ();
  }
  for (i = 0; i < N_PLANS; i++)
    th[i] = g_thread_new ("stream", stream_thread, &st[i]);
  for (i = 0; i < N_PLANS; i++)
    g_thread_join (th[i]);
  gpufft_context_get_stats (et_context (), &after);

  for (i = 0; i < N_PLANS; i++) {
    GPtrArray *ref;

    if (st[i].failure)
      et_fail ("%s", st[i].failure);
    /* every closed group came back once, in order, with its tag */
    for (j = 0; j < st[i].tags->len; j++)
      g_assert_cmpuint (GPOINTER_TO_UINT (g_ptr_array_index (st[i].tags, j)),
          ==, j + 1);
    ref = alone (&st[i]);
    g_assert_cmpuint (st[i].results->len, ==, ref->len);
    g_assert_cmpuint (st[i].tags->len, ==, ref->len);
    for (j = 0; j < ref->len; j++) {
      EtResult *a = g_ptr_array_index (st[i].results, j);
      EtResult *b = g_ptr_array_index (ref, j);
      gsize nv = (gsize) a->channels * a->n_bins;

      g_assert_cmpuint (a->group_index, ==, b->group_index);
      g_assert_cmpuint (a->n_frames, ==, b->n_frames);
      g_assert_cmpuint (a->channels, ==, b->channels);
      /* the same GPU work on the same input: bit for bit */
      g_assert_cmpmem (a->power, nv * sizeof (gfloat), b->power,
          nv * sizeof (gfloat));
      g_assert_cmpmem (a->channel_frames, a->channels * sizeof (guint),
          b->channel_frames, b->channels * sizeof (guint));
      g_assert_cmpmem (a->peaks, a->channels * a->n_peaks *
          sizeof (GpufftPeak), b->peaks, b->channels * b->n_peaks *
          sizeof (GpufftPeak));
    }
    g_ptr_array_unref (ref);
    g_ptr_array_unref (st[i].results);
    g_ptr_array_unref (st[i].tags);
    et_input_free (st[i].in);
    g_free (st[i].failure);
  }
  /* the batches of all plans went in shared submissions */
  g_assert_cmpuint (after.batches - before.batches, ==, N_PLANS * N_BATCHES);
  g_assert_cmpuint (after.submissions - before.submissions, >=, 1);
  g_assert_cmpuint (after.submissions - before.submissions, <=,
      N_PLANS * N_BATCHES);
  g_test_message ("%u batches in %" G_GUINT64_FORMAT " submissions (at most "
      "%" G_GUINT64_FORMAT " in one)", N_PLANS * N_BATCHES,
      after.submissions - before.submissions, after.max_batches);
}

static void
count_result (const GpufftGroupResult * r, gpointer user_data)
{
  (*(guint *) user_data)++;
}

/* The tags of the free tests' groups that the engine did not hand back
 * in a result but passed to the plan's tag_free. */
static gint tags_freed;

static void
count_tag_free (gpointer tag)
{
  g_assert_true (tag == &tags_freed);
  g_atomic_int_inc (&tags_freed);
}

/* The small plan of the free tests: N = 256, hop 128, 4 frames a batch;
 * its tags are counted by count_tag_free. */
static GpufftPlan *
small_plan (void)
{
  GpufftPlanConfig cfg;
  GpufftPlan *plan;

  gpufft_plan_config_init (&cfg);
  cfg.fft_size = 256;
  cfg.hop = 128;
  cfg.max_frames = 4;
  plan = gpufft_plan_new (et_context (), &cfg, NULL);
  g_assert_nonnull (plan);
  gpufft_plan_set_tag_free (plan, count_tag_free);
  return plan;
}

/* Batch b of the small plan of the free tests: 4 frames of 256 at hop 128
 * from sample 128 b, one closed group (tagged &tags_freed). */
static void
submit_small (GpufftPlan * plan, EtInput * in, guint b)
{
  GpufftSegment seg = { 0 };
  GpufftGroup group = { 4, TRUE, &tags_freed };
  GpufftBatch batch = { &seg, 1, 4, &group, 1, 0 };

  et_input_segments (in, (gsize) b * 128, 3 * 128 + 256, 1, &seg, NULL);
  g_assert_true (gpufft_plan_submit (plan, &batch, NULL));
}

/* gpufft_plan_free() with work in flight does not wait for it: it
 * returns with no result delivered after it (those delivered before are
 * whole), the engine's thread frees the plan once the device is done
 * (gpufft_wait_released() waits for it, the context counts the plan
 * freed), each tag not delivered going to the plan's tag_free, and the
 * device goes on. */
static void
test_free_in_flight (void)
{
  GpufftContextStats st;
  GpufftPlan *plan;
  EtInput *in;
  guint delivered = 0, at_free, b;
  guint64 freed0;

  if (et_context () == NULL)
    return;
  in = et_input_new (GPUFFT_FORMAT_F32, FALSE, 1, 4096, 0.5, 0.3, 7);
  gpufft_context_get_stats (et_context (), &st);
  freed0 = st.plans_freed;
  g_atomic_int_set (&tags_freed, 0);
  plan = small_plan ();
  gpufft_plan_set_result_func (plan, count_result, &delivered);
  for (b = 0; b < 12; b++)
    submit_small (plan, in, b);
  gpufft_plan_free (plan);
  at_free = g_atomic_int_get (&delivered);
  g_assert_true (gpufft_wait_released (10000));
  g_assert_cmpuint (g_atomic_int_get (&delivered), ==, at_free);
  g_assert_cmpuint (at_free, <=, 12);
  /* every tag came back once: delivered, or to tag_free */
  g_test_message ("%u results delivered, %d tags freed", at_free,
      g_atomic_int_get (&tags_freed));
  g_assert_cmpuint (at_free + g_atomic_int_get (&tags_freed), ==, 12);
  gpufft_context_get_stats (et_context (), &st);
  g_assert_cmpuint (st.plans_freed, ==, freed0 + 1);

  /* the device goes on */
  delivered = 0;
  plan = small_plan ();
  gpufft_plan_set_result_func (plan, count_result, &delivered);
  submit_small (plan, in, 0);
  g_assert_cmpint (gpufft_plan_collect (plan, TRUE, NULL, NULL, NULL), >=,
      0);
  g_assert_cmpuint (delivered, ==, 1);
  gpufft_plan_free (plan);
  g_assert_cmpuint (at_free + g_atomic_int_get (&tags_freed), ==, 12);
  et_input_free (in);
}

/* A plan without a result function freed with results in its stash (or
 * still in flight, the device being slow): their tags go to tag_free,
 * each once. */
static void
test_free_stashed_tags (void)
{
  GpufftPlan *plan;
  EtInput *in;
  guint b;

  if (et_context () == NULL)
    return;
  in = et_input_new (GPUFFT_FORMAT_F32, FALSE, 1, 4096, 0.5, 0.3, 9);
  g_atomic_int_set (&tags_freed, 0);
  plan = small_plan ();
  for (b = 0; b < 3; b++)
    submit_small (plan, in, b);
  /* (time for the device to finish them: their results in the stash) */
  g_usleep (200000);
  g_assert_cmpuint (gpufft_plan_in_flight (plan), ==, 3);
  gpufft_plan_free (plan);
  g_assert_true (gpufft_wait_released (10000));
  g_assert_cmpint (g_atomic_int_get (&tags_freed), ==, 3);
  et_input_free (in);
}

typedef struct
{
  GpufftPlan *plan;
  guint calls;
  GMutex lock;
  GCond cond;
  gboolean submitted;           /* every batch is in: the plan may go */
  gboolean free_returned;       /* gpufft_plan_free() returned there */
} FreeOnResult;

/* A result function that frees its plan on its first result (once every
 * batch has been submitted), as a synchronous bus handler stopping its
 * pipeline does. */
static void
free_on_result (const GpufftGroupResult * r, gpointer user_data)
{
  FreeOnResult *f = user_data;

  if (g_atomic_int_add (&f->calls, 1) != 0)
    return;
  g_mutex_lock (&f->lock);
  while (!f->submitted)
    g_cond_wait (&f->cond, &f->lock);
  g_mutex_unlock (&f->lock);
  gpufft_plan_free (f->plan);
  g_mutex_lock (&f->lock);
  f->free_returned = TRUE;
  g_cond_signal (&f->cond);
  g_mutex_unlock (&f->lock);
}

/* gpufft_plan_free() from the completion thread, with batches still in
 * flight: no critical, nothing more reaches the result function, the plan
 * is freed (by the engine's own thread, which gpufft_wait_released()
 * waits for), the tags not delivered go to its tag_free, and the device
 * goes on. */
static void
test_free_from_result (void)
{
  GpufftContextStats st;
  FreeOnResult f = { NULL, 0 };
  GpufftPlan *other;
  EtInput *in;
  guint64 freed0;
  gint64 end;
  guint b, delivered = 0;

  if (et_context () == NULL)
    return;
  in = et_input_new (GPUFFT_FORMAT_F32, FALSE, 1, 4096, 0.5, 0.3, 8);
  gpufft_context_get_stats (et_context (), &st);
  freed0 = st.plans_freed;
  g_atomic_int_set (&tags_freed, 0);
  f.plan = small_plan ();
  gpufft_plan_set_result_func (f.plan, free_on_result, &f);
  g_mutex_init (&f.lock);
  g_cond_init (&f.cond);
  /* (fewer batches than slots: the first result waits for the last) */
  for (b = 0; b < 6; b++)
    submit_small (f.plan, in, b);
  g_mutex_lock (&f.lock);
  f.submitted = TRUE;
  g_cond_signal (&f.cond);
  g_mutex_unlock (&f.lock);
  /* gpufft_plan_free() returned on the completion thread (the plan still
   * being freed by a thread of the engine's): gpufft_wait_released()
   * returns once that thread is done */
  end = g_get_monotonic_time () + 10 * G_TIME_SPAN_SECOND;
  g_mutex_lock (&f.lock);
  while (!f.free_returned && g_cond_wait_until (&f.cond, &f.lock, end));
  g_assert_true (f.free_returned);
  g_mutex_unlock (&f.lock);
  g_assert_true (gpufft_wait_released (10000));
  gpufft_context_get_stats (et_context (), &st);
  g_assert_cmpuint (st.plans_freed, ==, freed0 + 1);
  g_assert_cmpuint (g_atomic_int_get (&f.calls), ==, 1);
  /* the other 5 tags went to tag_free */
  g_assert_cmpint (g_atomic_int_get (&tags_freed), ==, 5);

  /* the device goes on */
  other = small_plan ();
  gpufft_plan_set_result_func (other, count_result, &delivered);
  submit_small (other, in, 0);
  g_assert_cmpint (gpufft_plan_collect (other, TRUE, NULL, NULL, NULL), >=,
      0);
  gpufft_plan_free (other);
  g_assert_cmpuint (delivered, ==, 1);
  et_input_free (in);
  g_mutex_clear (&f.lock);
  g_cond_clear (&f.cond);
}

/* Batches alone in their submissions run in their slot's own command
 * buffer, recorded once per shape: 20 batches of one closed 8-frame group,
 * then 10 groups of 12 frames, each spanning two batches, then 10 more
 * spanning three (the batches that open and continue a group then differ
 * only in the carry row they read, and a slot meets both), every result
 * against the double-precision reference; and the context counts the
 * submissions that ran commands recorded for an earlier one. */
static void
test_record_once (void)
{
  GpufftPlanConfig cfg;
  GpufftPlan *plan;
  GpufftContextStats st;
  GError *err = NULL;
  EtInput *in;
  GPtrArray *res = et_results_new ();
  guint64 reused0;
  gsize frame = 0;
  guint k, r = 0, c;

  if (et_context () == NULL)
    return;
  gpufft_plan_config_init (&cfg);
  cfg.fft_size = 256;
  cfg.hop = 128;
  cfg.channels = 2;
  cfg.downmix = FALSE;
  cfg.max_frames = 16;
  plan = gpufft_plan_new (et_context (), &cfg, &err);
  g_assert_no_error (err);
  in = et_input_new (GPUFFT_FORMAT_F32, FALSE, 2, 400 * 128 + 256, 0.3, 0.5,
      23);
  gpufft_context_get_stats (et_context (), &st);
  reused0 = st.reused_submissions;

  for (k = 0; k < 70; k++) {
    guint n = k < 20 ? 8 : k < 40 ? 6 : 4;
    GpufftSegment seg;
    GpufftGroup group = { n, k < 20 || (k < 40 && k % 2 == 1)
      || (k >= 40 && (k - 40) % 3 == 2), NULL
    };
    GpufftBatch batch = { &seg, 1, n, &group, 1, 0, FALSE };

    et_input_segments (in, frame * cfg.hop, (n - 1) * cfg.hop +
        cfg.fft_size, 1, &seg, NULL);
    g_assert_true (et_submit_collect (plan, &batch, res));
    frame += n;
  }
  /* 20 groups of 8 frames, then 20 of 12 */
  g_assert_cmpuint (res->len, ==, 40);
  frame = 0;
  for (r = 0; r < res->len; r++) {
    EtResult *e = g_ptr_array_index (res, r);
    guint n = r < 20 ? 8 : 12;
    gdouble ref[129];

    g_assert_cmpuint (e->n_frames, ==, n);
    for (c = 0; c < 2; c++) {
      et_ref_power (in, c, frame * cfg.hop, cfg.hop, n, cfg.fft_size,
          GPUFFT_WINDOW_HANN, GPUFFT_SCALING_SPECTRUM, 48000, ref);
      et_check_power (e->power + c * e->n_bins, ref, e->n_bins, 100.0, 1e-5,
          "recorded once");
    }
    frame += n;
  }
  gpufft_context_get_stats (et_context (), &st);
  g_test_message ("%" G_GUINT64_FORMAT " of 70 submissions reused",
      st.reused_submissions - reused0);
  g_assert_cmpuint (st.reused_submissions - reused0, >=, 20);
  g_ptr_array_unref (res);
  et_input_free (in);
  gpufft_plan_free (plan);
}

int
main (int argc, char **argv)
{
  et_init (&argc, &argv);
  g_test_add_func ("/scheduler/many-plans", test_many_plans);
  g_test_add_func ("/scheduler/free-in-flight", test_free_in_flight);
  g_test_add_func ("/scheduler/free-from-result", test_free_from_result);
  g_test_add_func ("/scheduler/free-stashed-tags", test_free_stashed_tags);
  g_test_add_func ("/scheduler/record-once", test_record_once);
  return et_run ();
}
