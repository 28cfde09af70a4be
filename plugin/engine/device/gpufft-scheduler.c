/* The device scheduler: see gpufft-scheduler.h. */
#include <string.h>

#include "gpufft-scheduler.h"
#include "gpufft-merge.h"
#include "gpufft-context-private.h"

#define N_RECORDS 4             /* submissions in flight */
/* CPU devices: how long the submit thread waits, after a slot is queued
 * into an empty queue, for others to join its submission. Each submission
 * costs lavapipe ~150-400 us of CPU whatever it carries (its queue and
 * compute threads woken, per-command work), while live streams' intervals
 * close within a millisecond or two of each other; GPUs keep submitting at
 * once. */
#define CPU_GATHER_US 2000

typedef struct
{
  GpufftCommand cmd;
  GPtrArray *slots;             /* GpufftSlot *, in queue order */
  gboolean submitted;           /* FALSE: recording or submission failed */
  guint merged_slots;           /* batches in shared dispatches */
  guint64 merged_dispatches;
  GError *error;                /* why it was not submitted */
} Record;

struct _GpufftScheduler
{
  GpufftContext *ctx;
  GThread *submit_thread;
  GThread *completion_thread;

  GMutex lock;
  GCond submit_cond;            /* pending work, a free record, quit */
  GCond complete_cond;          /* a record in flight, the submit thread
                                 * done (each thread waits on its own) */
  /* --- under lock --- */
  GQueue pending;               /* GpufftSlot.link, QUEUED */
  GQueue free_records;          /* Record * */
  GQueue in_flight;             /* Record *, oldest first */
  gboolean quit;
  gboolean submit_done;         /* the submit thread has returned */
  GError *error;                /* sticky: device lost or hung */
  GpufftSchedulerStats stats;

  Record records[N_RECORDS];
  GpufftMerge *merge;           /* NULL: no shared dispatches */
  GPtrArray *round_slots;       /* submit thread: one round's slots */
  gulong slow_us;               /* GPUFFT_DEBUG_SLOW_DEVICE_MS */
  gulong late_us;               /* GPUFFT_DEBUG_LATE_START_MS */
  gint64 gather_us;             /* CPU_GATHER_US on CPU devices, else 0 */
  gint64 pending_since;         /* under lock: when pending last filled */
  guint64 record_seq;           /* submit thread: one per submission */
};

/* The context's scheduler (one per context; made on first use). */
static GMutex sched_lock;
/* set in every scheduler's threads (gpufft_scheduler_in_thread) */
static GPrivate in_scheduler_thread;

static void
fail_slots (GPtrArray * slots, const GError * error)
{
  guint i;

  for (i = 0; i < slots->len; i++) {
    GpufftSlot *s = g_ptr_array_index (slots, i);

    gpufft_plan_finish_slot (s->plan, s, NULL, error);
  }
  g_ptr_array_set_size (slots, 0);
}

/* Records the slots of one submission: each plan's n-th slot in round n,
 * the phases of a round separated by barriers. */
static gboolean
record (GpufftScheduler * sched, Record * r, GError ** error)
{
  GpufftCommand *c = &r->cmd;
  guint i, round, n_rounds = 1;

  sched->record_seq++;
  for (i = 0; i < r->slots->len; i++) {
    GpufftSlot *s = g_ptr_array_index (r->slots, i);
    GpufftPlan *plan = s->plan;

    if (plan->record_mark == sched->record_seq)
      plan->record_round++;
    else
      plan->record_round = 0;
    plan->record_mark = sched->record_seq;
    s->round = plan->record_round;
    n_rounds = MAX (n_rounds, s->round + 1);
  }

  r->merged_slots = 0;
  r->merged_dispatches = sched->merge ?
      gpufft_merge_dispatches (sched->merge) : 0;
  if (!gpufft_command_begin (c, sched->ctx, error))
    return FALSE;
  if (sched->merge)
    gpufft_merge_begin (sched->merge, r - sched->records);
  gpufft_command_barrier (c);   /* after the previous submission */
  gpufft_command_timestamp (c, Q_START);
  for (round = 0; round < n_rounds; round++) {
    g_ptr_array_set_size (sched->round_slots, 0);
    for (i = 0; i < r->slots->len; i++) {
      GpufftSlot *s = g_ptr_array_index (r->slots, i);

      if (s->round == round)
        g_ptr_array_add (sched->round_slots, s);
    }
    /* (before the uploads: a shared dispatch's slots upload into its
     * input) */
    if (sched->merge) {
      r->merged_slots += gpufft_merge_round (sched->merge,
          (GpufftSlot * const *) sched->round_slots->pdata,
          sched->round_slots->len);
      gpufft_merge_record_upload (sched->merge, c->cmd);
    }
    for (i = 0; i < r->slots->len; i++) {
      GpufftSlot *s = g_ptr_array_index (r->slots, i);

      if (s->round == round)
        gpufft_plan_record_upload (s->plan, s, c->cmd);
    }
    gpufft_command_barrier (c);
    if (round == 0)
      gpufft_command_timestamp (c, Q_UPLOADED);
    if (sched->merge)
      gpufft_merge_record_kernels (sched->merge, c->cmd);
    for (i = 0; i < r->slots->len; i++) {
      GpufftSlot *s = g_ptr_array_index (r->slots, i);

      if (s->round == round)
        gpufft_plan_record_kernels (s->plan, s, c);
    }
    gpufft_command_barrier (c);
    for (i = 0; i < r->slots->len; i++) {
      GpufftSlot *s = g_ptr_array_index (r->slots, i);

      if (s->round == round)
        gpufft_plan_record_reduce (s->plan, s, c->cmd);
    }
    gpufft_command_barrier (c);
    if (round + 1 == n_rounds)
      gpufft_command_timestamp (c, Q_COMPUTED);
    for (i = 0; i < r->slots->len; i++) {
      GpufftSlot *s = g_ptr_array_index (r->slots, i);

      if (s->round == round)
        gpufft_plan_record_download (s->plan, s, c->cmd);
    }
    gpufft_command_barrier (c);
  }
  gpufft_command_timestamp (c, Q_DONE);
  if (sched->merge)
    r->merged_dispatches = gpufft_merge_dispatches (sched->merge) -
        r->merged_dispatches;
  return gpufft_command_submit (c, sched->ctx, error);
}

static gpointer
submit_thread (gpointer data)
{
  GpufftScheduler *sched = data;

  g_private_set (&in_scheduler_thread, GINT_TO_POINTER (1));
  g_mutex_lock (&sched->lock);
  for (;;) {
    Record *r;
    GList *l;
    GError *err = NULL;
    gint64 t0;
    guint i;

    while (!sched->quit && (g_queue_is_empty (&sched->pending)
            || g_queue_is_empty (&sched->free_records)))
      g_cond_wait (&sched->submit_cond, &sched->lock);
    if (sched->quit && g_queue_is_empty (&sched->pending))
      break;
    /* CPU devices: the slots queued within gather_us of the first share
     * this submission (gpufft_scheduler_queue () does not wake us again) */
    if (sched->gather_us && !sched->quit) {
      gint64 end = sched->pending_since + sched->gather_us;

      while (!sched->quit && g_cond_wait_until (&sched->submit_cond,
              &sched->lock, end));
    }
    if (g_queue_is_empty (&sched->free_records)) {
      g_cond_wait (&sched->submit_cond, &sched->lock);
      continue;
    }
    r = g_queue_pop_head (&sched->free_records);
    while ((l = g_queue_pop_head_link (&sched->pending)) != NULL)
      g_ptr_array_add (r->slots, l->data);
    if (sched->error) {
      /* the device is lost: the completion thread fails these, in order */
      r->submitted = FALSE;
      r->error = g_error_copy (sched->error);
      g_queue_push_tail (&sched->in_flight, r);
      g_cond_signal (&sched->complete_cond);
      continue;
    }
    g_mutex_unlock (&sched->lock);

    if (sched->late_us)
      g_usleep (sched->late_us);        /* a device that starts late */
    t0 = g_get_monotonic_time ();
    r->submitted = record (sched, r, &err);
    t0 = g_get_monotonic_time () - t0;

    g_mutex_lock (&sched->lock);
    sched->stats.record_ns += t0 * 1000;
    if (!r->submitted) {
      /* only a lost device fails what comes after */
      r->error = err;
      if (!sched->error && g_error_matches (err, GPUFFT_ERROR,
              GPUFFT_ERROR_DEVICE_LOST))
        sched->error = g_error_copy (err);
    } else {
      sched->stats.submissions++;
      sched->stats.slots += r->slots->len;
      sched->stats.max_slots = MAX (sched->stats.max_slots, r->slots->len);
      sched->stats.merged_slots += r->merged_slots;
      sched->stats.merged_dispatches += r->merged_dispatches;
      for (i = 0; i < r->slots->len; i++) {
        GpufftSlot *s = g_ptr_array_index (r->slots, i);

        sched->stats.copied_bytes += s->upload_bytes;
        sched->stats.imported_bytes += s->imported_bytes;
      }
    }
    g_queue_push_tail (&sched->in_flight, r);
    g_cond_signal (&sched->complete_cond);
  }
  sched->submit_done = TRUE;
  g_cond_signal (&sched->complete_cond);
  g_mutex_unlock (&sched->lock);
  return NULL;
}

static gpointer
completion_thread (gpointer data)
{
  GpufftScheduler *sched = data;
  GpufftContext *ctx = sched->ctx;

  g_private_set (&in_scheduler_thread, GINT_TO_POINTER (1));
  g_mutex_lock (&sched->lock);
  for (;;) {
    Record *r;
    GError *err = NULL;
    GpufftTimings tm = { 0 };
    guint i;
    gint64 t0, t1, t2;
    gdouble gpu = -1;
    GError *sticky;

    while (!sched->submit_done && g_queue_is_empty (&sched->in_flight))
      g_cond_wait (&sched->complete_cond, &sched->lock);
    if (g_queue_is_empty (&sched->in_flight))
      break;                    /* the submit thread is done: nothing comes */
    r = g_queue_peek_head (&sched->in_flight);
    if (!r->submitted) {
      err = r->error;
      r->error = NULL;
    }
    /* once the device is lost or hung, nothing is waited for again: what
     * is not done yet fails at once */
    sticky = sched->error ? g_error_copy (sched->error) : NULL;
    g_mutex_unlock (&sched->lock);

    t0 = g_get_monotonic_time ();
    if (r->submitted && !gpufft_command_wait (&r->cmd, ctx,
            sticky ? 0 : ctx->fence_timeout_ns, &err) && err == NULL) {
      if (sticky)
        err = g_error_copy (sticky);
      else
        g_set_error (&err, GPUFFT_ERROR, GPUFFT_ERROR_DEVICE_LOST,
            "the Vulkan device did not finish its work within %.0f s: it "
            "hangs or is stuck; restart the pipeline",
            ctx->fence_timeout_ns / 1e9);
    }
    g_clear_error (&sticky);

    if (sched->slow_us)
      g_usleep (sched->slow_us);        /* a slow device, for tests */
    t1 = g_get_monotonic_time ();
    if (err == NULL) {
      gdouble up, comp, down;

      up = gpufft_command_elapsed_ns (&r->cmd, ctx, Q_START, Q_UPLOADED);
      comp = gpufft_command_elapsed_ns (&r->cmd, ctx, Q_UPLOADED, Q_COMPUTED);
      down = gpufft_command_elapsed_ns (&r->cmd, ctx, Q_COMPUTED, Q_DONE);
      tm.valid = up >= 0 && comp >= 0 && down >= 0;
      tm.upload_ns = up;
      tm.compute_ns = comp;
      tm.download_ns = down;
      tm.reduce_ns = -1;
      gpu = gpufft_command_elapsed_ns (&r->cmd, ctx, Q_START, Q_DONE);
      for (i = 0; i < r->slots->len; i++) {
        GpufftSlot *s = g_ptr_array_index (r->slots, i);

        gpufft_plan_finish_slot (s->plan, s, &tm, NULL);
      }
      g_ptr_array_set_size (r->slots, 0);
    } else {
      if (g_error_matches (err, GPUFFT_ERROR, GPUFFT_ERROR_DEVICE_LOST)) {
        g_mutex_lock (&sched->lock);
        if (!sched->error)
          sched->error = g_error_copy (err);
        g_mutex_unlock (&sched->lock);
        gpufft_context_set_lost (ctx);
      }
      fail_slots (r->slots, err);
      /* the fence may never signal: the command stays pending and is
       * destroyed with a bounded wait */
    }
    g_clear_error (&err);
    t2 = g_get_monotonic_time ();

    g_mutex_lock (&sched->lock);
    sched->stats.wait_ns += (t1 - t0) * 1000;
    sched->stats.finish_ns += (t2 - t1) * 1000;
    if (gpu > 0)
      sched->stats.gpu_ns += (guint64) gpu;
    g_queue_pop_head (&sched->in_flight);
    g_queue_push_tail (&sched->free_records, r);
    g_cond_signal (&sched->submit_cond);
  }
  g_mutex_unlock (&sched->lock);
  return NULL;
}

static void
scheduler_destroy (GpufftScheduler * sched)
{
  guint i;

  for (i = 0; i < N_RECORDS; i++) {
    gpufft_command_clear (&sched->records[i].cmd, sched->ctx);
    if (sched->records[i].slots)
      g_ptr_array_unref (sched->records[i].slots);
  }
  g_queue_clear (&sched->free_records);
  gpufft_merge_free (sched->merge);
  if (sched->round_slots)
    g_ptr_array_unref (sched->round_slots);
  g_clear_error (&sched->error);
  g_mutex_clear (&sched->lock);
  g_cond_clear (&sched->submit_cond);
  g_cond_clear (&sched->complete_cond);
  g_free (sched);
}

static GpufftScheduler *
scheduler_new (GpufftContext * ctx, GError ** error)
{
  GpufftScheduler *sched = g_new0 (GpufftScheduler, 1);
  /* On a CPU device (lavapipe) every timestamp makes llvmpipe run an
   * empty scene on all its rasterizer threads and wait for it: with four
   * per submission that was about a sixth of the CPU of 8 live streams
   * (tests/bench/README.md, "lavapipe: where the CPU goes"). Submissions
   * there carry none (device-gpu-ns stays 0); the benchmarks' reruns keep
   * theirs. */
  gboolean cpu = gpufft_context_is_cpu (ctx);
  guint i;

  sched->ctx = ctx;
  /* Debugging aid: the environment variable GPUFFT_DEBUG_SLOW_DEVICE_MS
   * makes every submission take at least that long to complete (read when
   * the device's scheduler starts), to see how callers cope with a device
   * that falls behind. */
  if (g_getenv ("GPUFFT_DEBUG_SLOW_DEVICE_MS"))
    sched->slow_us = (gulong) MIN (g_ascii_strtoull (g_getenv
            ("GPUFFT_DEBUG_SLOW_DEVICE_MS"), NULL, 10), 60000) * 1000;
  /* ... and GPUFFT_DEBUG_LATE_START_MS makes the device start each
   * submission that late (it reads its input late: tests of memory the
   * GPU reads in place). */
  if (g_getenv ("GPUFFT_DEBUG_LATE_START_MS"))
    sched->late_us = (gulong) MIN (g_ascii_strtoull (g_getenv
            ("GPUFFT_DEBUG_LATE_START_MS"), NULL, 10), 60000) * 1000;
  sched->gather_us = cpu ? CPU_GATHER_US : 0;
  if (cpu && g_getenv ("GPUFFT_CPU_GATHER_US"))
    sched->gather_us = (gint64) MIN (g_ascii_strtoull (g_getenv
            ("GPUFFT_CPU_GATHER_US"), NULL, 10), 100000);
  g_mutex_init (&sched->lock);
  g_cond_init (&sched->submit_cond);
  g_cond_init (&sched->complete_cond);
  g_queue_init (&sched->pending);
  g_queue_init (&sched->free_records);
  g_queue_init (&sched->in_flight);
  for (i = 0; i < N_RECORDS; i++) {
    Record *r = &sched->records[i];

    r->slots = g_ptr_array_new ();
    if (!gpufft_command_init (&r->cmd, ctx, cpu ? 0 : N_QUERIES, error)) {
      scheduler_destroy (sched);
      return NULL;
    }
    g_queue_push_tail (&sched->free_records, r);
  }
  sched->round_slots = g_ptr_array_new ();
  {
    GError *err = NULL;

    /* (without it every plan dispatches on its own) */
    sched->merge = gpufft_merge_new (ctx, N_RECORDS, &err);
    if (!sched->merge) {
      g_debug ("no shared dispatches on this device: %s", err->message);
      g_clear_error (&err);
    }
  }
  sched->submit_thread = g_thread_try_new ("gpufft-submit", submit_thread,
      sched, error);
  if (!sched->submit_thread) {
    scheduler_destroy (sched);
    return NULL;
  }
  sched->completion_thread = g_thread_try_new ("gpufft-complete",
      completion_thread, sched, error);
  if (!sched->completion_thread) {
    g_mutex_lock (&sched->lock);
    sched->quit = TRUE;
    g_cond_signal (&sched->submit_cond);
    g_mutex_unlock (&sched->lock);
    g_thread_join (sched->submit_thread);
    scheduler_destroy (sched);
    return NULL;
  }
  return sched;
}

GpufftScheduler *
gpufft_scheduler_get (GpufftContext * ctx, GError ** error)
{
  GpufftScheduler *sched;

  g_mutex_lock (&sched_lock);
  if (ctx->scheduler == NULL)
    ctx->scheduler = scheduler_new (ctx, error);
  sched = ctx->scheduler;
  g_mutex_unlock (&sched_lock);
  return sched;
}

void
gpufft_scheduler_free (GpufftScheduler * sched)
{
  if (!sched)
    return;
  g_mutex_lock (&sched->lock);
  sched->quit = TRUE;
  g_cond_signal (&sched->submit_cond);
  g_mutex_unlock (&sched->lock);
  g_thread_join (sched->submit_thread);
  g_thread_join (sched->completion_thread);
  scheduler_destroy (sched);
}

void
gpufft_scheduler_queue (GpufftScheduler * sched, GpufftSlot * slot)
{
  slot->link.data = slot;
  slot->link.next = slot->link.prev = NULL;
  g_mutex_lock (&sched->lock);
  /* (the submit thread waits for an empty queue to fill, or for a record
   * to come free, then takes everything queued: one wake-up will do) */
  if (g_queue_is_empty (&sched->pending)) {
    sched->pending_since = g_get_monotonic_time ();
    g_cond_signal (&sched->submit_cond);
  }
  g_queue_push_tail_link (&sched->pending, &slot->link);
  g_mutex_unlock (&sched->lock);
}

GpufftMerge *
gpufft_scheduler_merge (GpufftScheduler * sched)
{
  return sched->merge;
}

gboolean
gpufft_scheduler_in_thread (GpufftScheduler * sched)
{
  return g_private_get (&in_scheduler_thread) != NULL;
}

void
gpufft_scheduler_get_stats (GpufftScheduler * sched,
    GpufftSchedulerStats * stats)
{
  g_mutex_lock (&sched->lock);
  *stats = sched->stats;
  g_mutex_unlock (&sched->lock);
}

void
gpufft_scheduler_count_plan (GpufftScheduler * sched, guint64 ns)
{
  g_mutex_lock (&sched->lock);
  sched->stats.plans++;
  sched->stats.plan_ns += ns;
  g_mutex_unlock (&sched->lock);
}

void
gpufft_scheduler_count_plan_freed (GpufftScheduler * sched)
{
  g_mutex_lock (&sched->lock);
  sched->stats.plans_freed++;
  g_mutex_unlock (&sched->lock);
}

/* (the context's public counters live here: they are the scheduler's) */
void
gpufft_context_get_stats (GpufftContext * ctx, GpufftContextStats * stats)
{
  GpufftSchedulerStats st = { 0 };
  GpufftScheduler *sched;

  g_mutex_lock (&sched_lock);
  sched = ctx->scheduler;
  if (sched)
    gpufft_scheduler_get_stats (sched, &st);
  g_mutex_unlock (&sched_lock);
  stats->submissions = st.submissions;
  stats->batches = st.slots;
  stats->max_batches = st.max_slots;
  stats->record_ns = st.record_ns;
  stats->wait_ns = st.wait_ns;
  stats->gpu_ns = st.gpu_ns;
  stats->deliver_ns = st.finish_ns;
  stats->copied_bytes = st.copied_bytes;
  stats->imported_bytes = st.imported_bytes;
  stats->plans = st.plans;
  stats->plan_ns = st.plan_ns;
  stats->plans_freed = st.plans_freed;
  stats->shared_batches = st.merged_slots;
  stats->shared_dispatches = st.merged_dispatches;
}
