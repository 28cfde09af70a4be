/* GstGpuFftBase: an element's messages, posted off the device's completion
 * thread (see the header).
 *
 * The posters that have messages queued wait in one run queue of the
 * process (each poster in it at most once, linked through its own list
 * node), served by a small set of posting threads:
 *
 * - a push that finds no posting thread awake wakes one (or starts one);
 *   pushes that find one awake only queue the poster, so one wake-up
 *   serves the messages of every element that a completion round produced;
 * - a thread woken soon (BURST_US) after the last one went to sleep
 *   pauses LINGER_US once the run queue is empty, so that the pushes of the
 *   same round gather meanwhile (a waiting streaming thread ends the pause
 *   at once);
 * - a thread takes one poster at a time and posts its messages, in order,
 *   those pushed meanwhile included; the poster stays marked as scheduled
 *   until its queue is empty, so no other thread posts for that element
 *   meanwhile;
 * - a thread that has been posting for one element longer than STALL_US
 *   (a synchronous bus handler that blocks, say) no longer counts as
 *   serving the run queue: where no other does, the next push, a streaming
 *   thread waiting for its poster, or the watcher (an idle thread that
 *   looks every WATCH_US while messages were pushed in the last
 *   WATCH_ACTIVE_US) wakes or starts another thread for the rest of the
 *   run queue: a blocked handler holds its own element alone (its later
 *   messages wait for it, in order), while no more than MAX_THREADS - 1
 *   handlers block at once (the watcher is for the messages pushed last,
 *   where no push nor wait follows: live streams push every interval; a
 *   thread is started to be it where posters wait while every thread
 *   awake posts and none is idle);
 *
 * A held poster (a stream that is not live posting on its streaming
 * thread) is never in the run queue: pushes only queue its messages, and
 * gst_gpu_fft_poster_wait posts them on the waiting thread (drain, as a
 * posting thread would).
 *
 * Bounds: at most MAX_THREADS posting threads in the process (started on
 * demand, never ended); at most MAX_QUEUED messages queued per element of
 * a live stream (the oldest dropped beyond; a held poster's are those of
 * the batches its streaming thread has in flight, which it waits for
 * before the next: the plan's slots); the messages of one element
 * are held in a ring of Items that grows on demand (doubling) and is
 * reused: no allocation per message once it has grown.
 *
 * Locks: a poster's lock may be held while taking the run queue's lock,
 * never the other way round; no lock is held while a message is posted. */
#include "gstgpufftposter.h"

GST_DEBUG_CATEGORY_EXTERN (gst_gpu_fft_base_debug);
#define GST_CAT_DEFAULT gst_gpu_fft_base_debug

typedef struct
{
  GstMessage *message;
  gboolean with_gen;
  guint gen;
} Item;

struct _GstGpuFftPoster
{
  GstElement *element;          /* not referenced (it owns the poster) */
  GstGpuFftPosterCheck check;
  GMutex lock;
  GCond idle_cond;
  /* --- under lock --- */
  Item *ring;                   /* queued messages, in posting order */
  gsize ring_size;              /* Items allocated (0 or a power of two) */
  gsize head;                   /* index of the oldest */
  gsize len;                    /* Items queued */
  gboolean scheduled;           /* in the run queue or being posted (the
                                 * element is referenced meanwhile) */
  gboolean draining;            /* a thread posts its messages */
  gboolean stopping;
  gboolean flushing;
  gboolean held;                /* pushes only queue: the waits post */
  guint64 dropped;              /* messages dropped from a full queue since
                                 * the element started */
  /* --- under the run queue's lock --- */
  GList link;                   /* its node in the run queue (data: the
                                 * poster) */
  gboolean in_run_queue;
  gint64 queued_at;             /* monotonic µs it joined the run queue */
};

#define MAX_QUEUED 1024
#define MAX_THREADS 32
/* (post_thread's data: its index, and this where it starts as the
 * watcher) */
#define WATCHER_FLAG 0x10000
#define FIRST_RING 8
/* (µs) */
#define STALL_US 4000
#define LINGER_US 1000
#define BURST_US 2000
#define WATCH_US G_USEC_PER_SEC
#define WATCH_ACTIVE_US (2 * G_USEC_PER_SEC)

/* The run queue and its posting threads (process-wide; static storage:
 * the mutex and conds need no init) */
static struct
{
  GMutex lock;
  GCond work_cond;              /* idle threads but the watcher */
  GCond watch_cond;             /* the watcher */
  GCond linger_cond;            /* pausing threads (a waiter hurries them) */
  GQueue run_queue;             /* posters with messages queued */
  guint n_threads;              /* started, at most MAX_THREADS */
  guint n_awake;                /* serving the run queue, pausing, or woken
                                 * for it */
  guint n_idle;                 /* waiting on work_cond */
  guint tokens;                 /* wake-ups of work_cond not yet taken */
  gboolean has_watcher;         /* an idle thread waits on watch_cond */
  gboolean watcher_starting;    /* a thread started to be it */
  gboolean watcher_armed;       /* it looks every WATCH_US */
  gboolean watch_token;         /* it is woken to serve */
  gboolean linger;              /* threads woken now pause when done */
  guint hurry;                  /* bumped to end the pauses */
  gint64 idle_since;            /* when the last awake thread slept */
  gint64 last_push;
  gint64 busy_since[MAX_THREADS];       /* per thread: when it took the poster
                                         * it posts for, 0 when none */
  guint64 wakeups;              /* see gst_gpu_fft_poster_get_wakeups */
  guint64 idle_wakeups;
} runner = {.run_queue = G_QUEUE_INIT };

/* the poster whose messages this thread is posting (a bus handler that
 * waits for its own poster would wait for itself) */
static GPrivate current_poster;

static gpointer post_thread (gpointer data);

/* Wakes (or starts) a thread for the run queue, counted as awake at once
 * (runner's lock held) */
static void
wake_one (gint64 now)
{
  GError *error = NULL;
  GThread *thread;

  runner.linger = now - runner.idle_since < BURST_US;
  if (runner.n_idle > runner.tokens) {
    runner.tokens++;
    runner.n_awake++;
    runner.wakeups++;
    g_cond_signal (&runner.work_cond);
    return;
  }
  if (runner.n_threads < MAX_THREADS) {
    /* (its index in busy_since) */
    thread = g_thread_try_new ("gpufft-post", post_thread,
        GUINT_TO_POINTER (runner.n_threads), &error);
    if (thread != NULL) {
      g_thread_unref (thread);
      runner.n_threads++;
      runner.n_awake++;
      runner.wakeups++;
      return;
    }
    GST_WARNING ("no thread to post messages: %s", error->message);
    g_clear_error (&error);
  }
  if (runner.has_watcher && !runner.watch_token) {
    runner.watch_token = TRUE;
    runner.n_awake++;
    runner.wakeups++;
    g_cond_signal (&runner.watch_cond);
  }
  /* (else every thread is posting: the first done takes the run queue) */
}

/* Where posters wait while every thread awake posts for one element, and
 * no idle thread watches, starts one to be the watcher (runner's lock
 * held) */
static void
ensure_watcher (void)
{
  GError *error = NULL;
  GThread *thread;
  guint i, busy = 0;

  if (runner.has_watcher || runner.watcher_starting
      || runner.run_queue.head == NULL || runner.n_threads >= MAX_THREADS)
    return;
  for (i = 0; i < runner.n_threads; i++)
    if (runner.busy_since[i] != 0)
      busy++;
  if (busy == 0 || busy < runner.n_awake)
    return;
  thread = g_thread_try_new ("gpufft-post", post_thread,
      GUINT_TO_POINTER (runner.n_threads | WATCHER_FLAG), &error);
  if (thread == NULL) {
    GST_WARNING ("no thread to watch the posting threads: %s",
        error->message);
    g_clear_error (&error);
    return;
  }
  g_thread_unref (thread);
  runner.n_threads++;
  runner.watcher_starting = TRUE;
  runner.idle_wakeups++;
}

/* The threads awake that serve the run queue: not those posting for one
 * element for longer than STALL_US (runner's lock held) */
static guint
serving (gint64 now)
{
  guint i, stuck = 0;

  for (i = 0; i < runner.n_threads; i++)
    if (runner.busy_since[i] != 0 && now - runner.busy_since[i] > STALL_US)
      stuck++;
  return runner.n_awake - stuck;
}

/* Sees that a thread serves the run queue (runner's lock held) */
static void
ensure_server (gint64 now)
{
  if (runner.run_queue.head == NULL)
    return;
  if (runner.n_awake == 0) {
    wake_one (now);
  } else if (serving (now) == 0) {
    GST_DEBUG ("every thread awake has posted for one element for more "
        "than %d µs (a bus handler that blocks): another posts the others",
        STALL_US);
    wake_one (now);
  }
  ensure_watcher ();
  if (runner.has_watcher && !runner.watcher_armed && !runner.watch_token) {
    /* (the watcher slept for want of pushes: it looks again) */
    runner.watcher_armed = TRUE;
    runner.idle_wakeups++;
    g_cond_signal (&runner.watch_cond);
  }
}

/* Posts what p has queued, on this thread, until the queue is empty (p
 * marked scheduled by the caller, p's element referenced: released here) */
static void
drain (GstGpuFftPoster * p)
{
  GstElement *element = p->element;
  gpointer outer = g_private_get (&current_poster);
  gboolean stopping;
  Item it;

  g_private_set (&current_poster, p);
  for (;;) {
    g_mutex_lock (&p->lock);
    p->draining = TRUE;
    if (p->len == 0) {
      p->scheduled = FALSE;
      p->draining = FALSE;
      g_cond_broadcast (&p->idle_cond);
      g_mutex_unlock (&p->lock);
      break;
    }
    it = p->ring[p->head];
    p->head = (p->head + 1) & (p->ring_size - 1);
    p->len--;
    stopping = p->stopping;
    g_mutex_unlock (&p->lock);
    /* (a stop drops what is not posted yet, as gst_gpu_fft_poster_stop
     * does: a thread that posts its own messages is not held by a slow
     * bus handler for each of them) */
    if (stopping || (it.with_gen && p->check && !p->check (element, it.gen)))
      gst_message_unref (it.message);
    else
      gst_element_post_message (element, it.message);
  }
  g_private_set (&current_poster, outer);
  /* (last: the element, and with it the poster, may go here) */
  gst_object_unref (element);
}

/* An idle thread's sleep until it is called for the run queue (runner's
 * lock held; the thread no longer counted as awake) */
static void
sleep_idle (void)
{
  gint64 now;

  if (runner.has_watcher) {
    runner.n_idle++;
    while (runner.tokens == 0)
      g_cond_wait (&runner.work_cond, &runner.lock);
    runner.tokens--;
    runner.n_idle--;
    return;
  }
  /* the watcher: looks every WATCH_US for messages left behind a blocked
   * bus handler, while messages were pushed lately */
  runner.has_watcher = TRUE;
  runner.watcher_armed = TRUE;
  while (!runner.watch_token) {
    now = g_get_monotonic_time ();
    if (now - runner.last_push > WATCH_ACTIVE_US)
      runner.watcher_armed = FALSE;
    if (!runner.watcher_armed) {
      g_cond_wait (&runner.watch_cond, &runner.lock);
      continue;
    }
    if (g_cond_wait_until (&runner.watch_cond, &runner.lock,
            now + WATCH_US) || runner.watch_token)
      continue;
    now = g_get_monotonic_time ();
    if (runner.run_queue.head != NULL && serving (now) == 0) {
      GST_DEBUG ("messages wait behind a bus handler: the watcher posts "
          "them");
      runner.n_awake++;
      runner.wakeups++;
      runner.has_watcher = FALSE;
      return;
    }
    runner.idle_wakeups++;
  }
  runner.watch_token = FALSE;
  runner.has_watcher = FALSE;
}

static gpointer
post_thread (gpointer data)
{
  guint index = GPOINTER_TO_UINT (data) & ~WATCHER_FLAG;
  GstGpuFftPoster *p;
  GList *link;
  gboolean linger;
  gint64 deadline;
  guint hurry;

  g_mutex_lock (&runner.lock);
  if (GPOINTER_TO_UINT (data) & WATCHER_FLAG) {
    runner.watcher_starting = FALSE;
    sleep_idle ();
  }
  linger = runner.linger;
  for (;;) {
    link = g_queue_pop_head_link (&runner.run_queue);
    if (link != NULL) {
      p = link->data;
      p->in_run_queue = FALSE;
      runner.busy_since[index] = g_get_monotonic_time ();
      /* (others wait behind p: should p's bus handler block, an idle
       * thread looks for them) */
      ensure_watcher ();
      g_mutex_unlock (&runner.lock);
      drain (p);
      g_mutex_lock (&runner.lock);
      runner.busy_since[index] = 0;
      continue;
    }
    if (linger) {
      /* pushes come in bursts: those of the same round gather meanwhile
       * (ended early by a streaming thread waiting for its poster) */
      deadline = g_get_monotonic_time () + LINGER_US;
      hurry = runner.hurry;
      while (runner.hurry == hurry
          && g_cond_wait_until (&runner.linger_cond, &runner.lock, deadline));
      if (runner.run_queue.head != NULL) {
        runner.wakeups++;
        continue;
      }
      runner.idle_wakeups++;
    }
    runner.n_awake--;
    if (runner.n_awake == 0)
      runner.idle_since = g_get_monotonic_time ();
    sleep_idle ();
    linger = runner.linger;
  }
  return NULL;
}

/* A streaming thread waits for p (p's lock held): threads pausing post at
 * once, and a stall behind a blocked bus handler calls another thread */
static void
hurry (GstGpuFftPoster * p)
{
  g_mutex_lock (&runner.lock);
  if (p->in_run_queue) {
    runner.hurry++;
    g_cond_broadcast (&runner.linger_cond);
    ensure_server (g_get_monotonic_time ());
  }
  g_mutex_unlock (&runner.lock);
}

static void
ring_clear (GstGpuFftPoster * p)
{
  while (p->len > 0) {
    gst_message_unref (p->ring[p->head].message);
    p->head = (p->head + 1) & (p->ring_size - 1);
    p->len--;
  }
  p->head = 0;
}

/* Room for one more Item (FALSE: none could be allocated, p unchanged) */
static gboolean
ring_reserve (GstGpuFftPoster * p)
{
  gsize size, bytes, i;
  Item *ring;

  if (p->len < p->ring_size)
    return TRUE;
  if (p->ring_size == 0)
    size = FIRST_RING;
  else if (!g_size_checked_mul (&size, p->ring_size, 2))
    return FALSE;
  if (!g_size_checked_mul (&bytes, size, sizeof (Item)))
    return FALSE;
  ring = g_try_malloc (bytes);
  if (ring == NULL)
    return FALSE;
  for (i = 0; i < p->len; i++)
    ring[i] = p->ring[(p->head + i) & (p->ring_size - 1)];
  g_free (p->ring);
  p->ring = ring;
  p->ring_size = size;
  p->head = 0;
  return TRUE;
}

static void
queue_message (GstGpuFftPoster * p, GstMessage * m, gboolean with_gen,
    guint gen)
{
  Item *it;

  if (!ring_reserve (p)) {
    GST_WARNING_OBJECT (p->element, "no memory to queue a message: dropped");
    gst_message_unref (m);
    p->dropped++;
    return;
  }
  it = &p->ring[(p->head + p->len) & (p->ring_size - 1)];
  it->message = m;
  it->with_gen = with_gen;
  it->gen = gen;
  p->len++;
}

GstGpuFftPoster *
gst_gpu_fft_poster_new (GstElement * element, GstGpuFftPosterCheck check)
{
  GstGpuFftPoster *p = g_new0 (GstGpuFftPoster, 1);

  p->element = element;
  p->check = check;
  g_mutex_init (&p->lock);
  g_cond_init (&p->idle_cond);
  p->link.data = p;
  return p;
}

/* Queues the messages (bounded: dropping the oldest beyond MAX_QUEUED);
 * TRUE where the caller is to schedule the posting (p now marked
 * scheduled, its element referenced); *held: p is held (nothing to
 * schedule) */
static gboolean
enqueue (GstGpuFftPoster * p, GstMessage * first, GstMessage * second,
    gboolean with_gen, guint gen, gboolean bounded, gboolean * held)
{
  gboolean start;

  g_mutex_lock (&p->lock);
  while (bounded && p->len >= MAX_QUEUED) {
    /* a bus handler that does not keep up: the oldest go */
    gst_message_unref (p->ring[p->head].message);
    p->head = (p->head + 1) & (p->ring_size - 1);
    p->len--;
    if (p->dropped++ == 0)
      GST_WARNING_OBJECT (p->element, "the application's bus handler does "
          "not keep up with this element's messages: the oldest are "
          "dropped (%u queued at most)", MAX_QUEUED);
  }
  if (first)
    queue_message (p, first, with_gen, gen);
  if (second)
    queue_message (p, second, with_gen, gen);
  /* (held: the next wait posts them) */
  *held = p->held;
  if (p->held) {
    g_mutex_unlock (&p->lock);
    return FALSE;
  }
  start = !p->scheduled;
  p->scheduled = TRUE;
  g_mutex_unlock (&p->lock);
  if (start)
    gst_object_ref (p->element);
  return start;
}

void
gst_gpu_fft_poster_push (GstGpuFftPoster * p, GstMessage * first,
    GstMessage * second, gboolean with_gen, guint gen, gboolean bounded)
{
  gboolean start, held;
  gint64 now;

  if (first == NULL && second == NULL)
    return;
  start = enqueue (p, first, second, with_gen, gen, bounded, &held);
  if (held)
    return;
  now = g_get_monotonic_time ();
  g_mutex_lock (&runner.lock);
  if (start) {
    p->queued_at = now;
    p->in_run_queue = TRUE;
    g_queue_push_tail_link (&runner.run_queue, &p->link);
  }
  runner.last_push = now;
  ensure_server (now);
  g_mutex_unlock (&runner.lock);
}

void
gst_gpu_fft_poster_post_here (GstGpuFftPoster * p, GstMessage * first,
    GstMessage * second, gboolean with_gen, guint gen, gboolean bounded)
{
  gboolean held;

  if (first == NULL && second == NULL)
    return;
  if (enqueue (p, first, second, with_gen, gen, bounded, &held)) {
    drain (p);
    return;
  }
  if (held)
    return;
  /* (queued behind a posting thread's, or in the run queue) */
  g_mutex_lock (&runner.lock);
  ensure_server (g_get_monotonic_time ());
  g_mutex_unlock (&runner.lock);
}

void
gst_gpu_fft_poster_wait (GstGpuFftPoster * p)
{
  if (g_private_get (&current_poster) == p)
    return;
  g_mutex_lock (&p->lock);
  while (p->scheduled && !p->stopping && !p->flushing) {
    if (p->draining) {
      /* (its own bus handler, however long it takes) */
      g_cond_wait (&p->idle_cond, &p->lock);
      continue;
    }
    hurry (p);
    /* (the deadline: to call another thread where p waits behind another
     * element's bus handler that blocks) */
    g_cond_wait_until (&p->idle_cond, &p->lock, g_get_monotonic_time () +
        STALL_US);
  }
  /* held: what is queued is posted here, in order */
  if (p->held && p->len > 0 && !p->scheduled && !p->stopping
      && !p->flushing) {
    p->scheduled = TRUE;
    g_mutex_unlock (&p->lock);
    gst_object_ref (p->element);
    drain (p);
    return;
  }
  g_mutex_unlock (&p->lock);
}

gboolean
gst_gpu_fft_poster_wait_until (GstGpuFftPoster * p, GstGpuFftPosterDone done,
    gpointer data)
{
  /* (on the posting thread itself: a bus handler's flushing seek, say,
   * whose FLUSH_STOP runs here; what it would wait for is this thread) */
  if (g_private_get (&current_poster) == p)
    return FALSE;
  g_mutex_lock (&p->lock);
  while (!p->stopping && !p->flushing) {
    g_mutex_unlock (&p->lock);
    if (done (data))
      return TRUE;
    g_mutex_lock (&p->lock);
    if (p->stopping || p->flushing)
      break;
    if (p->scheduled && !p->draining)
      hurry (p);
    /* (woken when a posting ends, or the element stops or flushes; the
     * timeout for what done () learns after the posting) */
    g_cond_wait_until (&p->idle_cond, &p->lock, g_get_monotonic_time () +
        5 * G_TIME_SPAN_MILLISECOND);
  }
  g_mutex_unlock (&p->lock);
  return FALSE;
}

gboolean
gst_gpu_fft_poster_is_posting (GstGpuFftPoster * p)
{
  return p != NULL && g_private_get (&current_poster) == p;
}

void
gst_gpu_fft_poster_set_flushing (GstGpuFftPoster * p, gboolean flushing)
{
  g_mutex_lock (&p->lock);
  p->flushing = flushing;
  g_cond_broadcast (&p->idle_cond);
  g_mutex_unlock (&p->lock);
}

void
gst_gpu_fft_poster_stop (GstGpuFftPoster * p)
{
  gsize dropped;
  gboolean removed;

  g_mutex_lock (&p->lock);
  dropped = p->len;
  ring_clear (p);
  /* (a poster waiting in the run queue leaves it: nothing to post) */
  g_mutex_lock (&runner.lock);
  removed = p->in_run_queue;
  if (removed) {
    g_queue_unlink (&runner.run_queue, &p->link);
    p->in_run_queue = FALSE;
  }
  g_mutex_unlock (&runner.lock);
  if (removed) {
    p->scheduled = FALSE;
    g_cond_broadcast (&p->idle_cond);
  }
  g_mutex_unlock (&p->lock);
  if (removed)
    gst_object_unref (p->element);
  if (dropped > 0)
    GST_DEBUG_OBJECT (p->element, "stopping: %" G_GSIZE_FORMAT " messages "
        "not posted", dropped);
  /* (not on a posting thread: a bus handler stopping the pipeline, whose
   * set_state may wait for another element's handler, and that one for
   * this state change) */
  if (g_private_get (&current_poster) != NULL)
    return;
  g_mutex_lock (&p->lock);
  while (p->scheduled)
    g_cond_wait (&p->idle_cond, &p->lock);
  g_mutex_unlock (&p->lock);
}

void
gst_gpu_fft_poster_set_held (GstGpuFftPoster * p, gboolean held)
{
  gboolean start;

  g_mutex_lock (&p->lock);
  p->held = held;
  /* (what was held goes to a posting thread) */
  start = !held && p->len > 0 && !p->scheduled;
  if (start)
    p->scheduled = TRUE;
  g_mutex_unlock (&p->lock);
  if (!start)
    return;
  gst_object_ref (p->element);
  g_mutex_lock (&runner.lock);
  p->queued_at = g_get_monotonic_time ();
  p->in_run_queue = TRUE;
  g_queue_push_tail_link (&runner.run_queue, &p->link);
  ensure_server (p->queued_at);
  g_mutex_unlock (&runner.lock);
}

void
gst_gpu_fft_poster_start (GstGpuFftPoster * p)
{
  g_mutex_lock (&p->lock);
  p->dropped = 0;
  g_mutex_unlock (&p->lock);
}

guint64
gst_gpu_fft_poster_get_dropped (GstGpuFftPoster * p)
{
  guint64 dropped;

  g_mutex_lock (&p->lock);
  dropped = p->dropped;
  g_mutex_unlock (&p->lock);
  return dropped;
}

void
gst_gpu_fft_poster_set_stopping (GstGpuFftPoster * p, gboolean stopping)
{
  g_mutex_lock (&p->lock);
  p->stopping = stopping;
  g_cond_broadcast (&p->idle_cond);
  g_mutex_unlock (&p->lock);
}

guint64
gst_gpu_fft_poster_get_wakeups (guint64 * idle)
{
  guint64 wakeups;

  g_mutex_lock (&runner.lock);
  wakeups = runner.wakeups;
  if (idle)
    *idle = runner.idle_wakeups;
  g_mutex_unlock (&runner.lock);
  return wakeups;
}

void
gst_gpu_fft_poster_free (GstGpuFftPoster * p)
{
  ring_clear (p);
  g_free (p->ring);
  g_mutex_clear (&p->lock);
  g_cond_clear (&p->idle_cond);
  g_free (p);
}
