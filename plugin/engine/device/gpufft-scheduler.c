/* The device scheduler: see gpufft-scheduler.h. */
#include <string.h>

#include "gpufft-scheduler.h"
#include "gpufft-context-private.h"

#define N_RECORDS 4             /* submissions in flight */
/* Timestamps of a submission */
enum
{ Q_START, Q_UPLOADED, Q_COMPUTED, Q_DONE, N_QUERIES };
/* CPU devices: how long the submit thread waits, after a job is queued
 * into an empty queue, for others to join its submission. Each submission
 * costs lavapipe's queue and compute threads a wake-up and some work per
 * command whatever it carries, while live streams' intervals close within
 * a millisecond or two of each other; GPUs keep submitting at once. */
#define CPU_GATHER_US 2000
/* The device's rate before any submission was measured, in ns per unit of
 * work (GpufftJob.work: samples read by the kernels): far slower than any
 * device measured (lavapipe: about 10 ns on one core), so that the first
 * submissions' stall deadlines err on the long side. */
#define PRIOR_NS_PER_WORK_CPU 1000.0
#define PRIOR_NS_PER_WORK_GPU 10.0
/* Submissions shorter than this are not measured (their time is the
 * submission's fixed cost, not the rate of their work). */
#define MEASURE_MIN_NS 20000000.0

typedef struct
{
  GpufftCommand cmd;
  GpufftCommand *active;        /* what was submitted: cmd, or the job's own
                                 * (GpufftJobFuncs.own_command) */
  gboolean reused;              /* active was submitted as last recorded */
  GPtrArray *jobs;              /* GpufftJob *, in queue order */
  gboolean submitted;           /* FALSE: recording or submission failed */
  guint shared_jobs;            /* jobs the round hooks took work from */
  guint64 shared_dispatches;    /* dispatches the round hooks recorded */
  GError *error;                /* why it was not submitted */
  gint64 submitted_us;          /* when it was submitted (monotonic) */
  guint64 work;                 /* the sum of its jobs' work */
  gboolean cold;                /* a job of it is cold */
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
  GQueue pending;               /* GpufftJob.link */
  GQueue free_records;          /* Record * */
  GQueue in_flight;             /* Record *, oldest first */
  gboolean quit;
  gboolean submit_done;         /* the submit thread has returned */
  GError *error;                /* sticky: device lost or hung */

  Record records[N_RECORDS];
  const GpufftRoundHooks *hooks;
  gpointer round_data;          /* hooks->new()'s; NULL: no round work */
  GPtrArray *round_jobs;        /* submit thread: one round's jobs */
  gulong slow_us;               /* GPUFFT_DEBUG_SLOW_DEVICE_MS */
  gulong late_us;               /* GPUFFT_DEBUG_LATE_START_MS */
  gint64 gather_us;             /* CPU_GATHER_US on CPU devices, else 0 */
  gint64 pending_since;         /* under lock: when pending last filled */
  guint64 record_seq;           /* submit thread: one per submission */
  /* completion thread: the device's rate (ns per unit of work: the
   * slowest of the recent submissions, see measure()), and when the last
   * submission was seen done (the next could start then) */
  gdouble ns_per_work;
  gint64 done_us;
};

static void
fail_jobs (GPtrArray * jobs, const GError * error)
{
  guint i;

  for (i = 0; i < jobs->len; i++) {
    GpufftJob *job = g_ptr_array_index (jobs, i);

    job->funcs->finish (job, NULL, error);
  }
  g_ptr_array_set_size (jobs, 0);
}

/* Records the jobs of one submission into c: each series' n-th job in
 * round n, the phases of a round separated by barriers; the round hooks'
 * work with them when hooks is TRUE. */
static gboolean
record_into (GpufftScheduler * sched, Record * r, GpufftCommand * c,
    gboolean hooks, GError ** error)
{
  const GpufftRoundHooks *h = sched->hooks;
  gpointer hd = hooks ? sched->round_data : NULL;
  guint i, round, n_rounds = 1;

  sched->record_seq++;
  for (i = 0; i < r->jobs->len; i++) {
    GpufftJob *job = g_ptr_array_index (r->jobs, i);
    GpufftJobSeries *series = job->series;

    if (series->mark == sched->record_seq)
      series->round++;
    else
      series->round = 0;
    series->mark = sched->record_seq;
    job->round = series->round;
    n_rounds = MAX (n_rounds, job->round + 1);
  }

  r->shared_jobs = 0;
  r->shared_dispatches = hd ? h->dispatches (hd) : 0;
  if (!gpufft_command_begin (c, sched->ctx, error))
    return FALSE;
  if (hd)
    h->begin (hd, r - sched->records);
  gpufft_command_barrier (c);   /* after the previous submission */
  gpufft_command_timestamp (c, Q_START);
  for (round = 0; round < n_rounds; round++) {
    GpufftJob **jobs;
    guint n;

    g_ptr_array_set_size (sched->round_jobs, 0);
    for (i = 0; i < r->jobs->len; i++) {
      GpufftJob *job = g_ptr_array_index (r->jobs, i);

      if (job->round == round)
        g_ptr_array_add (sched->round_jobs, job);
    }
    jobs = (GpufftJob **) sched->round_jobs->pdata;
    n = sched->round_jobs->len;
    /* (before the uploads: the hooks' work may take the jobs' uploads) */
    if (hd) {
      r->shared_jobs += h->round (hd, (GpufftJob * const *) jobs, n);
      h->record_upload (hd, c->cmd);
    }
    for (i = 0; i < n; i++)
      jobs[i]->funcs->record_upload (jobs[i], c->cmd);
    gpufft_command_barrier (c);
    if (round == 0)
      gpufft_command_timestamp (c, Q_UPLOADED);
    if (hd)
      h->record_kernels (hd, c->cmd);
    for (i = 0; i < n; i++)
      jobs[i]->funcs->record_kernels (jobs[i], c);
    gpufft_command_barrier (c);
    for (i = 0; i < n; i++)
      jobs[i]->funcs->record_reduce (jobs[i], c->cmd);
    gpufft_command_barrier (c);
    if (round + 1 == n_rounds)
      gpufft_command_timestamp (c, Q_COMPUTED);
    for (i = 0; i < n; i++)
      jobs[i]->funcs->record_download (jobs[i], c->cmd);
    gpufft_command_barrier (c);
  }
  gpufft_command_timestamp (c, Q_DONE);
  if (hd)
    r->shared_dispatches = h->dispatches (hd) - r->shared_dispatches;
  return gpufft_command_submit (c, sched->ctx, error);
}

/* Records and submits one submission: a job alone that keeps a command
 * buffer of its own goes in that, recorded again only when its commands
 * changed (no round hooks: one job shares nothing); anything else in the
 * record's. */
static gboolean
record (GpufftScheduler * sched, Record * r, GError ** error)
{
  GpufftJob *job = r->jobs->len == 1 ? g_ptr_array_index (r->jobs, 0) : NULL;
  GpufftCommand *own = NULL;
  gboolean again = TRUE;

  r->reused = FALSE;
  if (job && job->funcs->own_command)
    own = job->funcs->own_command (job, &again);
  r->active = own ? own : &r->cmd;
  if (own == NULL)
    return record_into (sched, r, &r->cmd, TRUE, error);
  r->shared_jobs = 0;
  r->shared_dispatches = 0;
  if (again)
    return record_into (sched, r, own, FALSE, error);
  job->series->round = 0;
  job->round = 0;
  r->reused = TRUE;
  return gpufft_command_resubmit (own, sched->ctx, error);
}

gboolean
gpufft_scheduler_command_init (GpufftScheduler * sched, GpufftCommand * c,
    GError ** error)
{
  if (!gpufft_command_init (c, sched->ctx,
          gpufft_context_is_cpu (sched->ctx) ? 0 : N_QUERIES, error))
    return FALSE;
  c->reusable = TRUE;
  return TRUE;
}

static gpointer
submit_thread (gpointer data)
{
  GpufftScheduler *sched = data;

  gpufft_context_enter_worker ();
  g_mutex_lock (&sched->lock);
  for (;;) {
    Record *r;
    GList *l;
    GError *err = NULL;
    GpufftContextStats st;
    gint64 t0;
    guint i;

    while (!sched->quit && (g_queue_is_empty (&sched->pending)
            || g_queue_is_empty (&sched->free_records)))
      g_cond_wait (&sched->submit_cond, &sched->lock);
    if (sched->quit && g_queue_is_empty (&sched->pending))
      break;
    /* CPU devices: the jobs queued within gather_us of the first share
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
      g_ptr_array_add (r->jobs, l->data);
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
    r->submitted_us = g_get_monotonic_time ();
    t0 = r->submitted_us - t0;
    r->work = 0;
    r->cold = FALSE;
    for (i = 0; i < r->jobs->len; i++) {
      GpufftJob *job = g_ptr_array_index (r->jobs, i);

      r->work += job->work;
      r->cold |= job->cold;
    }

    memset (&st, 0, sizeof (st));
    st.record_ns = t0 * 1000;
    if (r->submitted) {
      st.submissions = 1;
      st.reused_submissions = r->reused ? 1 : 0;
      st.batches = st.max_batches = r->jobs->len;
      st.shared_batches = r->shared_jobs;
      st.shared_dispatches = r->shared_dispatches;
      for (i = 0; i < r->jobs->len; i++) {
        GpufftJob *job = g_ptr_array_index (r->jobs, i);

        st.copied_bytes += job->copied_bytes;
        st.imported_bytes += job->imported_bytes;
        st.host_memory_bytes += job->mapped_bytes;
      }
    }
    gpufft_context_add_stats (sched->ctx, &st);

    g_mutex_lock (&sched->lock);
    if (!r->submitted) {
      /* only a lost device fails what comes after */
      r->error = err;
      if (!sched->error && g_error_matches (err, GPUFFT_ERROR,
              GPUFFT_ERROR_DEVICE_LOST))
        sched->error = g_error_copy (err);
    }
    g_queue_push_tail (&sched->in_flight, r);
    g_cond_signal (&sched->complete_cond);
  }
  sched->submit_done = TRUE;
  g_cond_signal (&sched->complete_cond);
  g_mutex_unlock (&sched->lock);
  return NULL;
}

/* The device took device_ns for a submission of `work`: the rate rises at
 * once to a slower one, and falls back slowly (1/16 of the way per
 * measurement) towards faster ones, so that a loaded CPU device's
 * deadlines follow its load. */
static void
measure (GpufftScheduler * sched, gdouble device_ns, guint64 work)
{
  gdouble rate;

  if (device_ns < MEASURE_MIN_NS || work == 0)
    return;
  rate = device_ns / work;
  if (rate > sched->ns_per_work)
    sched->ns_per_work = rate;
  else
    sched->ns_per_work -= (sched->ns_per_work - rate) / 16.0;
}

static gpointer
completion_thread (gpointer data)
{
  GpufftScheduler *sched = data;
  GpufftContext *ctx = sched->ctx;

  gpufft_context_enter_worker ();
  g_mutex_lock (&sched->lock);
  for (;;) {
    Record *r;
    GError *err = NULL;
    GpufftContextStats st;
    GpufftTimings tm = { 0 };
    guint i;
    gint64 t0, t1, t2;
    gdouble gpu = -1;
    GError *sticky;
    gint64 start, left_ns;
    guint64 deadline_ns;

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
    /* The stall deadline (gpufft.h, "Deadlines"): from when the device
     * could start this submission (submitted, the previous one done), its
     * expected time at the device's measured rate. */
    start = MAX (r->submitted_us, sched->done_us);
    deadline_ns = r->cold ? ctx->fence_timeout_ns :
        gpufft_context_stall_deadline_ns (ctx, r->work * sched->ns_per_work);
    left_ns = (gint64) deadline_ns - (t0 - start) * 1000;
    if (r->submitted && !gpufft_command_wait (r->active, ctx,
            sticky ? 0 : (guint64) MAX (left_ns, 0), &err) && err == NULL) {
      if (sticky)
        err = g_error_copy (sticky);
      else
        gpufft_context_set_stall_error (ctx, &err, "a submission",
            (guint64) (g_get_monotonic_time () - start) * 1000);
    }
    g_clear_error (&sticky);
    if (r->submitted && err == NULL) {
      gint64 now = g_get_monotonic_time ();

      if (now - start > G_USEC_PER_SEC)
        g_debug ("a submission of %u jobs, %" G_GUINT64_FORMAT " units of "
            "work, took %.2f s (expected %.2f s, deadline %.2f s)",
            r->jobs->len, r->work, (now - start) / 1e6,
            r->work * sched->ns_per_work / 1e9, deadline_ns / 1e9);
      if (!r->cold)
        measure (sched, (now - start) * 1000.0, r->work);
      sched->done_us = now;
    }

    if (sched->slow_us)
      g_usleep (sched->slow_us);        /* a slow device, for tests */
    t1 = g_get_monotonic_time ();
    if (err == NULL) {
      gdouble up, comp, down;

      up = gpufft_command_elapsed_ns (r->active, ctx, Q_START, Q_UPLOADED);
      comp = gpufft_command_elapsed_ns (r->active, ctx, Q_UPLOADED, Q_COMPUTED);
      down = gpufft_command_elapsed_ns (r->active, ctx, Q_COMPUTED, Q_DONE);
      tm.valid = up >= 0 && comp >= 0 && down >= 0;
      tm.upload_ns = up;
      tm.compute_ns = comp;
      tm.download_ns = down;
      tm.reduce_ns = -1;
      gpu = gpufft_command_elapsed_ns (r->active, ctx, Q_START, Q_DONE);
      for (i = 0; i < r->jobs->len; i++) {
        GpufftJob *job = g_ptr_array_index (r->jobs, i);

        job->funcs->finish (job, &tm, NULL);
      }
      g_ptr_array_set_size (r->jobs, 0);
    } else {
      if (g_error_matches (err, GPUFFT_ERROR, GPUFFT_ERROR_DEVICE_LOST)) {
        g_mutex_lock (&sched->lock);
        if (!sched->error)
          sched->error = g_error_copy (err);
        g_mutex_unlock (&sched->lock);
        gpufft_context_set_lost (ctx);
      }
      fail_jobs (r->jobs, err);
      /* the fence may never signal: the command stays pending and is
       * destroyed with a bounded wait */
    }
    g_clear_error (&err);
    t2 = g_get_monotonic_time ();

    memset (&st, 0, sizeof (st));
    st.wait_ns = (t1 - t0) * 1000;
    st.deliver_ns = (t2 - t1) * 1000;
    if (gpu > 0)
      st.gpu_ns = (guint64) gpu;
    gpufft_context_add_stats (ctx, &st);

    g_mutex_lock (&sched->lock);
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
    if (sched->records[i].jobs)
      g_ptr_array_unref (sched->records[i].jobs);
  }
  g_queue_clear (&sched->free_records);
  if (sched->round_data)
    sched->hooks->free (sched->round_data);
  if (sched->round_jobs)
    g_ptr_array_unref (sched->round_jobs);
  g_clear_error (&sched->error);
  g_mutex_clear (&sched->lock);
  g_cond_clear (&sched->submit_cond);
  g_cond_clear (&sched->complete_cond);
  g_free (sched);
}

static gpointer
scheduler_new (GpufftContext * ctx, gconstpointer hooks, GError ** error)
{
  GpufftScheduler *sched = g_new0 (GpufftScheduler, 1);
  /* On a CPU device (lavapipe) every timestamp makes llvmpipe run an
   * empty scene on all its rasterizer threads and wait for it
   * (tests/bench/README.md, "lavapipe: where the CPU goes"). Submissions
   * there carry none (device-gpu-ns stays 0); the benchmarks' reruns keep
   * theirs. */
  gboolean cpu = gpufft_context_is_cpu (ctx);
  guint i;

  sched->ctx = ctx;
  sched->hooks = hooks;
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
  sched->ns_per_work = cpu ? PRIOR_NS_PER_WORK_CPU : PRIOR_NS_PER_WORK_GPU;
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

    r->jobs = g_ptr_array_new ();
    if (!gpufft_command_init (&r->cmd, ctx, cpu ? 0 : N_QUERIES, error)) {
      scheduler_destroy (sched);
      return NULL;
    }
    g_queue_push_tail (&sched->free_records, r);
  }
  sched->round_jobs = g_ptr_array_new ();
  if (sched->hooks) {
    GError *err = NULL;

    /* (without it the rounds carry the jobs' work only) */
    sched->round_data = sched->hooks->new (ctx, N_RECORDS, &err);
    if (!sched->round_data) {
      g_debug ("no round work on this device: %s", err->message);
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

/* (the context's service destroy function) */
static void
scheduler_free (gpointer data)
{
  GpufftScheduler *sched = data;

  g_mutex_lock (&sched->lock);
  sched->quit = TRUE;
  g_cond_signal (&sched->submit_cond);
  g_mutex_unlock (&sched->lock);
  g_thread_join (sched->submit_thread);
  g_thread_join (sched->completion_thread);
  scheduler_destroy (sched);
}

GpufftScheduler *
gpufft_scheduler_get (GpufftContext * ctx, const GpufftRoundHooks * hooks,
    GError ** error)
{
  return gpufft_context_service (ctx, GPUFFT_SERVICE_SCHEDULER,
      scheduler_new, scheduler_free, hooks, error);
}

gpointer
gpufft_scheduler_round_data (GpufftScheduler * sched)
{
  return sched->round_data;
}

void
gpufft_scheduler_queue (GpufftScheduler * sched, GpufftJob * job)
{
  job->link.data = job;
  job->link.next = job->link.prev = NULL;
  g_mutex_lock (&sched->lock);
  /* (the submit thread waits for an empty queue to fill, or for a record
   * to come free, then takes everything queued: one wake-up will do) */
  if (g_queue_is_empty (&sched->pending)) {
    sched->pending_since = g_get_monotonic_time ();
    g_cond_signal (&sched->submit_cond);
  }
  g_queue_push_tail_link (&sched->pending, &job->link);
  g_mutex_unlock (&sched->lock);
}
