/* gst-gpufft: an element opens its engine device on the plugin's workers,
 * one opening per device-index at a time (see the header). */
#include "gstgpufftdevice.h"

typedef struct _Opening Opening;

struct _GstGpuFftDevice
{
  gint ref_count;               /* atomic: the owner's, its opening's, jobs' */
  gint index;
  GstGpuFftDeviceOpened opened;
  GstElement *element;          /* (no reference of its own: valid until
                                 * close (); the callbacks hold one) */
  Opening *opening;             /* until it calls back (under openings_lock) */

  GMutex lock;
  GCond cond;
  /* --- under lock --- */
  gboolean closed;
  gboolean calling;             /* in `opened` or posting the error */
  gboolean done;
  GpufftContext *ctx;
  GError *error;
  GSList *waiting;              /* Waiting *, newest first: work pushed
                                 * once done or closed */
};

typedef struct
{
  GstGpuFftWorkFunc func;
  gpointer data;
} Waiting;

/* The opening of one device-index, queued or running on a worker: every
 * element that asks for that index meanwhile joins it. */
struct _Opening
{
  gint ref_count;               /* atomic: its work's, close ()s waiting */
  gint index;
  /* --- under openings_lock --- */
  gboolean running;             /* in the driver's calls */
  GSList *devices;              /* GstGpuFftDevice *, each referenced, newest
                                 * first: those it calls back */
};

static GMutex openings_lock;
static GCond openings_cond;     /* an opening's driver calls returned */
/* --- under openings_lock --- */
static GHashTable *openings;    /* index -> Opening *, queued or running */

/* (the opening this worker is calling back for) */
static GPrivate calling_back;

static void
opening_unref (Opening * op)
{
  if (g_atomic_int_dec_and_test (&op->ref_count))
    g_free (op);
}

static void
post_error (GstElement * element, gint index, const GError * error)
{
  gboolean missing = error && error->domain == GPUFFT_ERROR &&
      (error->code == GPUFFT_ERROR_NO_VULKAN ||
      error->code == GPUFFT_ERROR_NO_DEVICE ||
      error->code == GPUFFT_ERROR_DEVICE_INDEX ||
      error->code == GPUFFT_ERROR_NO_COMPUTE_QUEUE);

  if (missing)
    GST_ELEMENT_ERROR (element, RESOURCE, NOT_FOUND,
        ("%s", error->message), ("device-index %d", index));
  else
    GST_ELEMENT_ERROR (element, RESOURCE, FAILED,
        ("%s", error ? error->message : "Cannot open a Vulkan device"),
        ("device-index %d", index));
}

/* a device was opened in the process, and one that is not a CPU device
 * (each set once, never cleared) */
static gint any_opened, gpu_opened;

/* Pushes the work that waited (newest first) to the workers, in the order
 * it came; what no worker takes runs here. */
static void
push_waiting (GSList * waiting)
{
  GSList *l;

  waiting = g_slist_reverse (waiting);
  for (l = waiting; l; l = l->next) {
    Waiting *w = l->data;

    if (!gst_gpu_fft_workers_push (w->func, w->data, NULL))
      w->func (w->data);
    g_free (w);
  }
  g_slist_free (waiting);
}

/* Tells dev the opening's outcome (on the opening's worker): its element's
 * callback unless it closed, then it counts as done. Drops the opening's
 * reference on dev. */
static void
call_back (GstGpuFftDevice * dev, GpufftContext * ctx, const GError * error)
{
  GstElement *element = NULL;
  GSList *waiting;

  /* The callbacks run with a reference on the element, taken while it is
   * still the element's opening (close () does not wait for them: an
   * application's handler may stop the pipeline from there) */
  g_mutex_lock (&dev->lock);
  if (!dev->closed) {
    element = gst_object_ref (dev->element);
    dev->calling = TRUE;
  }
  g_mutex_unlock (&dev->lock);
  if (element && ctx != NULL && dev->opened)
    dev->opened (element, ctx);
  else if (element && ctx == NULL)
    post_error (element, dev->index, error);
  if (element)
    gst_object_unref (element);

  g_mutex_lock (&dev->lock);
  dev->ctx = ctx ? gpufft_context_ref (ctx) : NULL;
  dev->error = error ? g_error_copy (error) : NULL;
  dev->calling = FALSE;
  dev->done = TRUE;
  waiting = dev->waiting;
  dev->waiting = NULL;
  g_cond_broadcast (&dev->cond);
  g_mutex_unlock (&dev->lock);
  push_waiting (waiting);
  gst_gpu_fft_device_unref (dev);
}

/* (a worker) */
static void
open_work (gpointer data)
{
  Opening *op = data;
  GError *error = NULL;
  GpufftContext *ctx;
  GSList *devices, *l;
  const gchar *slow;

  g_mutex_lock (&openings_lock);
  if (op->devices == NULL) {
    /* every element closed before it started: skipped */
    g_hash_table_remove (openings, GINT_TO_POINTER (op->index));
    g_mutex_unlock (&openings_lock);
    opening_unref (op);
    return;
  }
  op->running = TRUE;
  g_mutex_unlock (&openings_lock);

  /* Debugging aid: GPUFFT_DEBUG_SLOW_OPEN_MS (environment) makes every
   * opening take at least that long, as a GPU driver's can */
  slow = g_getenv ("GPUFFT_DEBUG_SLOW_OPEN_MS");
  if (slow)
    g_usleep ((gulong) g_ascii_strtoull (slow, NULL, 10) * 1000);
  ctx = gpufft_context_get (op->index, &error);
  if (ctx && !gpufft_context_is_cpu (ctx))
    g_atomic_int_set (&gpu_opened, 1);
  if (ctx)
    g_atomic_int_set (&any_opened, 1);

  /* (from here on an element that asks for this index starts an opening
   * of its own, which finds the context open) */
  g_mutex_lock (&openings_lock);
  op->running = FALSE;
  g_hash_table_remove (openings, GINT_TO_POINTER (op->index));
  devices = g_slist_reverse (op->devices);
  op->devices = NULL;
  for (l = devices; l; l = l->next)
    ((GstGpuFftDevice *) l->data)->opening = NULL;
  g_cond_broadcast (&openings_cond);
  g_mutex_unlock (&openings_lock);

  g_private_set (&calling_back, op);
  for (l = devices; l; l = l->next)
    call_back (l->data, ctx, error);
  g_private_set (&calling_back, NULL);
  g_slist_free (devices);
  if (ctx)
    gpufft_context_unref (ctx);
  g_clear_error (&error);
  opening_unref (op);
}

gboolean
gst_gpu_fft_device_any_opened (void)
{
  return g_atomic_int_get (&any_opened) != 0;
}

gboolean
gst_gpu_fft_device_gpu_opened (void)
{
  return g_atomic_int_get (&gpu_opened) != 0;
}

GstGpuFftDevice *
gst_gpu_fft_device_open (GstElement * element, gint index,
    GstGpuFftDeviceOpened opened)
{
  GstGpuFftDevice *dev = g_new0 (GstGpuFftDevice, 1);
  GError *error = NULL;
  Opening *op;

  dev->ref_count = 2;           /* the caller's and the opening's */
  dev->index = index;
  dev->opened = opened;
  dev->element = element;
  g_mutex_init (&dev->lock);
  g_cond_init (&dev->cond);

  g_mutex_lock (&openings_lock);
  if (openings == NULL)
    openings = g_hash_table_new (g_direct_hash, g_direct_equal);
  op = g_hash_table_lookup (openings, GINT_TO_POINTER (index));
  if (op == NULL) {
    op = g_new0 (Opening, 1);
    op->ref_count = 1;          /* its work's */
    op->index = index;
    /* (queued under the lock: nobody joins an opening that is not) */
    if (!gst_gpu_fft_workers_push (open_work, op, &error)) {
      g_mutex_unlock (&openings_lock);
      g_free (op);
      GST_ELEMENT_ERROR (element, RESOURCE, FAILED,
          ("Cannot start the thread that opens the Vulkan device: %s",
              error->message), ("device-index %d", index));
      g_clear_error (&error);
      dev->ref_count = 1;
      gst_gpu_fft_device_unref (dev);
      return NULL;
    }
    g_hash_table_insert (openings, GINT_TO_POINTER (index), op);
  }
  dev->opening = op;
  op->devices = g_slist_prepend (op->devices, dev);
  g_mutex_unlock (&openings_lock);
  return dev;
}

GpufftContext *
gst_gpu_fft_device_wait (GstGpuFftDevice * dev, const gint * cancel)
{
  GpufftContext *ctx;

  g_mutex_lock (&dev->lock);
  /* (a worker calling back for an opening, in `opened` or a bus handler
   * of its error, does not wait for one) */
  while (!dev->done && !dev->closed && !(cancel && g_atomic_int_get (cancel))
      && g_private_get (&calling_back) == NULL)
    g_cond_wait_until (&dev->cond, &dev->lock, g_get_monotonic_time () +
        20 * G_TIME_SPAN_MILLISECOND);
  ctx = dev->ctx;
  g_mutex_unlock (&dev->lock);
  return ctx;
}

GpufftContext *
gst_gpu_fft_device_peek (GstGpuFftDevice * dev)
{
  GpufftContext *ctx;

  g_mutex_lock (&dev->lock);
  ctx = dev->ctx;
  g_mutex_unlock (&dev->lock);
  return ctx;
}

gboolean
gst_gpu_fft_device_failed (GstGpuFftDevice * dev, GError ** error)
{
  gboolean failed;

  g_mutex_lock (&dev->lock);
  failed = dev->done && dev->ctx == NULL;
  if (failed && error && dev->error)
    *error = g_error_copy (dev->error);
  g_mutex_unlock (&dev->lock);
  return failed;
}

gboolean
gst_gpu_fft_device_when_open (GstGpuFftDevice * dev, GstGpuFftWorkFunc func,
    gpointer data, GError ** error)
{
  Waiting *w;

  g_mutex_lock (&dev->lock);
  if (!dev->done && !dev->closed) {
    w = g_new (Waiting, 1);
    w->func = func;
    w->data = data;
    dev->waiting = g_slist_prepend (dev->waiting, w);
    g_mutex_unlock (&dev->lock);
    return TRUE;
  }
  g_mutex_unlock (&dev->lock);
  return gst_gpu_fft_workers_push (func, data, error);
}

void
gst_gpu_fft_device_close (GstGpuFftDevice * dev)
{
  GSList *waiting;
  Opening *op;
  gboolean joined = FALSE;

  if (dev == NULL)
    return;
  g_mutex_lock (&dev->lock);
  dev->closed = TRUE;
  waiting = dev->waiting;
  dev->waiting = NULL;
  g_cond_broadcast (&dev->cond);
  g_mutex_unlock (&dev->lock);
  push_waiting (waiting);

  /* Out of its opening if that has not called back yet (the opening's
   * reference dropped here); while the opening is in the driver's calls,
   * they are waited for (the thread decides under dev's lock whether it
   * calls back: once closed it does not) */
  g_mutex_lock (&openings_lock);
  op = dev->opening;
  if (op) {
    op->devices = g_slist_remove (op->devices, dev);
    dev->opening = NULL;
    joined = TRUE;
    g_atomic_int_inc (&op->ref_count);
    while (op->running)
      g_cond_wait (&openings_cond, &openings_lock);
  }
  g_mutex_unlock (&openings_lock);
  if (op)
    opening_unref (op);
  if (joined)
    gst_gpu_fft_device_unref (dev);
  gst_gpu_fft_device_unref (dev);
}

GstGpuFftDevice *
gst_gpu_fft_device_ref (GstGpuFftDevice * dev)
{
  g_atomic_int_inc (&dev->ref_count);
  return dev;
}

void
gst_gpu_fft_device_unref (GstGpuFftDevice * dev)
{
  if (dev == NULL || !g_atomic_int_dec_and_test (&dev->ref_count))
    return;
  if (dev->ctx)
    gpufft_context_unref (dev->ctx);
  g_clear_error (&dev->error);
  g_warn_if_fail (dev->waiting == NULL);
  g_mutex_clear (&dev->lock);
  g_cond_clear (&dev->cond);
  g_free (dev);
}
