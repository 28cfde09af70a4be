/* GstGpuFftBase: an element's messages, posted off the device's completion
 * thread (see the header). */
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
  GQueue queue;                 /* Item, in posting order */
  gboolean posting;             /* a task of the pool is on it */
  gboolean stopping;
  gboolean flushing;
  guint64 dropped;              /* messages dropped from a full queue since
                                 * the element started */
};

#define MAX_QUEUED 1024
#define MAX_UNUSED_THREADS 32

/* the poster whose messages this thread is posting (a bus handler that
 * waits for its own poster would wait for itself) */
static GPrivate current_poster;

/* Posts what p has queued, on this thread, until the queue is empty (p
 * marked posting by the caller, p's element referenced: released here) */
static void
drain (GstGpuFftPoster * p)
{
  GstElement *element = p->element;
  gpointer outer = g_private_get (&current_poster);
  gboolean stopping;
  Item *it;

  g_private_set (&current_poster, p);
  for (;;) {
    g_mutex_lock (&p->lock);
    it = g_queue_pop_head (&p->queue);
    if (it == NULL) {
      p->posting = FALSE;
      g_cond_broadcast (&p->idle_cond);
      g_mutex_unlock (&p->lock);
      break;
    }
    stopping = p->stopping;
    g_mutex_unlock (&p->lock);
    /* (a stop drops what is not posted yet, as gst_gpu_fft_poster_stop
     * does: a thread that posts its own messages is not held by a slow
     * bus handler for each of them) */
    if (stopping || (it->with_gen && p->check && !p->check (element, it->gen)))
      gst_message_unref (it->message);
    else
      gst_element_post_message (element, it->message);
    g_free (it);
  }
  g_private_set (&current_poster, outer);
  /* (last: the element, and with it the poster, may go here) */
  gst_object_unref (element);
}

static void
post_task (gpointer data, gpointer user_data)
{
  /* (the element referenced by push) */
  drain (data);
}

static GThreadPool *
pool_get (void)
{
  static GThreadPool *pool = NULL;

  if (g_once_init_enter (&pool)) {
    /* not exclusive, no limit: a thread per element that is posting, taken
     * back by the pool when idle */
    GThreadPool *p = g_thread_pool_new (post_task, NULL, -1, FALSE, NULL);
    gint unused = g_thread_pool_get_max_unused_threads ();

    /* idle threads are kept rather than ended and started again for every
     * interval's messages (a thread's start is most of a message's cost
     * then; the limit is GLib's, shared by its non-exclusive pools) */
    if (unused >= 0 && unused < MAX_UNUSED_THREADS)
      g_thread_pool_set_max_unused_threads (MAX_UNUSED_THREADS);

    g_once_init_leave (&pool, p);
  }
  return pool;
}

static void
item_free (gpointer data)
{
  Item *it = data;

  gst_message_unref (it->message);
  g_free (it);
}

static void
queue_message (GstGpuFftPoster * p, GstMessage * m, gboolean with_gen,
    guint gen)
{
  Item *it = g_new (Item, 1);

  it->message = m;
  it->with_gen = with_gen;
  it->gen = gen;
  g_queue_push_tail (&p->queue, it);
}

GstGpuFftPoster *
gst_gpu_fft_poster_new (GstElement * element, GstGpuFftPosterCheck check)
{
  GstGpuFftPoster *p = g_new0 (GstGpuFftPoster, 1);

  p->element = element;
  p->check = check;
  g_mutex_init (&p->lock);
  g_cond_init (&p->idle_cond);
  g_queue_init (&p->queue);
  return p;
}

/* Queues the messages (bounded: dropping the oldest beyond MAX_QUEUED);
 * TRUE where the caller is to start the posting (p now marked posting) */
static gboolean
enqueue (GstGpuFftPoster * p, GstMessage * first, GstMessage * second,
    gboolean with_gen, guint gen, gboolean bounded)
{
  gboolean start;

  g_mutex_lock (&p->lock);
  while (bounded && g_queue_get_length (&p->queue) >= MAX_QUEUED) {
    /* a bus handler that does not keep up: the oldest go */
    item_free (g_queue_pop_head (&p->queue));
    if (p->dropped++ == 0)
      GST_WARNING_OBJECT (p->element, "the application's bus handler does "
          "not keep up with this element's messages: the oldest are "
          "dropped (%u queued at most)", MAX_QUEUED);
  }
  if (first)
    queue_message (p, first, with_gen, gen);
  if (second)
    queue_message (p, second, with_gen, gen);
  start = !p->posting;
  p->posting = TRUE;
  g_mutex_unlock (&p->lock);
  return start;
}

void
gst_gpu_fft_poster_push (GstGpuFftPoster * p, GstMessage * first,
    GstMessage * second, gboolean with_gen, guint gen, gboolean bounded)
{
  GError *error = NULL;

  if (first == NULL && second == NULL)
    return;
  if (!enqueue (p, first, second, with_gen, gen, bounded))
    return;
  gst_object_ref (p->element);
  /* (on failure the task stays queued in the pool, for its next thread) */
  if (!g_thread_pool_push (pool_get (), p, &error)) {
    GST_WARNING_OBJECT (p->element, "no thread to post messages yet: %s",
        error->message);
    g_clear_error (&error);
  }
}

void
gst_gpu_fft_poster_post_here (GstGpuFftPoster * p, GstMessage * first,
    GstMessage * second, gboolean with_gen, guint gen, gboolean bounded)
{
  if (first == NULL && second == NULL)
    return;
  if (!enqueue (p, first, second, with_gen, gen, bounded))
    return;
  gst_object_ref (p->element);
  drain (p);
}

void
gst_gpu_fft_poster_wait (GstGpuFftPoster * p)
{
  if (g_private_get (&current_poster) == p)
    return;
  g_mutex_lock (&p->lock);
  while (p->posting && !p->stopping && !p->flushing)
    g_cond_wait (&p->idle_cond, &p->lock);
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
  guint dropped;

  g_mutex_lock (&p->lock);
  dropped = g_queue_get_length (&p->queue);
  g_queue_clear_full (&p->queue, item_free);
  g_mutex_unlock (&p->lock);
  if (dropped > 0)
    GST_DEBUG_OBJECT (p->element, "stopping: %u messages not posted", dropped);
  /* (not on a posting thread: a bus handler stopping the pipeline, whose
   * set_state may wait for another element's handler, and that one for
   * this state change) */
  if (g_private_get (&current_poster) != NULL)
    return;
  g_mutex_lock (&p->lock);
  while (p->posting)
    g_cond_wait (&p->idle_cond, &p->lock);
  g_mutex_unlock (&p->lock);
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

void
gst_gpu_fft_poster_free (GstGpuFftPoster * p)
{
  g_queue_clear_full (&p->queue, item_free);
  g_mutex_clear (&p->lock);
  g_cond_clear (&p->idle_cond);
  g_free (p);
}
