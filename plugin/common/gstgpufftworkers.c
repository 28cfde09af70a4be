/* gst-gpufft: the plugin's bounded pool of workers (see the header). */
#include "gstgpufftworkers.h"

typedef struct
{
  GstGpuFftWorkFunc func;
  gpointer data;
} Work;

static GMutex lock;
static GCond cond;
/* --- under lock --- */
static GQueue queue;            /* Work *, in the order pushed */
static guint n_threads;         /* started and not yet ending */
static guint n_idle;            /* of them, waiting for work */

static gpointer
worker (gpointer unused)
{
  Work *w;

  g_mutex_lock (&lock);
  for (;;) {
    w = g_queue_pop_head (&queue);
    if (w == NULL) {
      gint64 until = g_get_monotonic_time () +
          GST_GPU_FFT_WORKERS_IDLE_MS * G_TIME_SPAN_MILLISECOND;

      n_idle++;
      while (g_queue_is_empty (&queue)
          && g_cond_wait_until (&cond, &lock, until));
      n_idle--;
      if (g_queue_is_empty (&queue))
        break;                  /* idle for long enough: the thread ends */
      continue;
    }
    g_mutex_unlock (&lock);
    w->func (w->data);
    g_free (w);
    g_mutex_lock (&lock);
  }
  n_threads--;
  g_mutex_unlock (&lock);
  return NULL;
}

gboolean
gst_gpu_fft_workers_push (GstGpuFftWorkFunc func, gpointer data,
    GError ** error)
{
  GError *err = NULL;
  GThread *thread;
  Work *w;

  g_mutex_lock (&lock);
  if (queue.length >= GST_GPU_FFT_WORKERS_MAX_QUEUED) {
    g_mutex_unlock (&lock);
    g_set_error (error, G_THREAD_ERROR, G_THREAD_ERROR_AGAIN,
        "%u pieces of GPU work are waiting already",
        GST_GPU_FFT_WORKERS_MAX_QUEUED);
    return FALSE;
  }
  /* (a thread more while the idle ones cannot take all that waits) */
  if (queue.length + 1 > n_idle && n_threads < GST_GPU_FFT_WORKERS_MAX) {
    thread = g_thread_try_new ("gpufft-worker", worker, NULL, &err);
    if (thread) {
      n_threads++;
      g_thread_unref (thread);
    } else if (n_threads == 0) {
      g_mutex_unlock (&lock);
      g_propagate_error (error, err);
      return FALSE;
    } else {
      /* (those that run take it) */
      g_clear_error (&err);
    }
  }
  w = g_new (Work, 1);
  w->func = func;
  w->data = data;
  g_queue_push_tail (&queue, w);
  g_cond_signal (&cond);
  g_mutex_unlock (&lock);
  return TRUE;
}
