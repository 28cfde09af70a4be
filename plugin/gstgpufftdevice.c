/* gst-gpufft: an element opens its engine device on a thread of its own
 * (see the header). */
#include "gstgpufftdevice.h"

struct _GstGpuFftDevice
{
  gint ref_count;               /* atomic: the owner's, the thread's, jobs' */
  gint index;
  GstGpuFftDeviceOpened opened;
  GstElement *element;          /* (no reference of its own: valid until
                                 * close (); the callbacks hold one) */

  GMutex lock;
  GCond cond;
  /* --- under lock --- */
  GThread *thread;              /* until close () joins or drops it */
  gboolean closed;
  gboolean calling;             /* in `opened` or posting the error */
  gboolean done;
  GpufftContext *ctx;
  GError *error;
};

/* (the opening this thread runs, if it is an opening thread) */
static GPrivate opening;

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

static gpointer
open_thread (gpointer data)
{
  GstGpuFftDevice *dev = data;
  GstElement *element = NULL;
  GError *error = NULL;
  GpufftContext *ctx;
  const gchar *slow;

  g_private_set (&opening, dev);
  /* Debugging aid: GPUFFT_DEBUG_SLOW_OPEN_MS (environment) makes every
   * opening take at least that long, as a GPU driver's can */
  slow = g_getenv ("GPUFFT_DEBUG_SLOW_OPEN_MS");
  if (slow)
    g_usleep ((gulong) g_ascii_strtoull (slow, NULL, 10) * 1000);
  ctx = gpufft_context_get (dev->index, &error);
  if (ctx && !gpufft_context_is_cpu (ctx))
    g_atomic_int_set (&gpu_opened, 1);
  if (ctx)
    g_atomic_int_set (&any_opened, 1);

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
  dev->ctx = ctx;
  dev->error = error;
  dev->calling = FALSE;
  dev->done = TRUE;
  g_cond_broadcast (&dev->cond);
  g_mutex_unlock (&dev->lock);
  gst_gpu_fft_device_unref (dev);
  return NULL;
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

  dev->ref_count = 2;           /* the caller's and the thread's */
  dev->index = index;
  dev->opened = opened;
  dev->element = element;
  g_mutex_init (&dev->lock);
  g_cond_init (&dev->cond);
  /* (under the lock: close () reads it) */
  g_mutex_lock (&dev->lock);
  dev->thread = g_thread_try_new ("gpufft-open", open_thread, dev, &error);
  g_mutex_unlock (&dev->lock);
  if (dev->thread == NULL) {
    GST_ELEMENT_ERROR (element, RESOURCE, FAILED,
        ("Cannot start the thread that opens the Vulkan device: %s",
            error->message), ("device-index %d", index));
    g_clear_error (&error);
    dev->ref_count = 1;
    gst_gpu_fft_device_unref (dev);
    return NULL;
  }
  return dev;
}

GpufftContext *
gst_gpu_fft_device_wait (GstGpuFftDevice * dev, const gint * cancel)
{
  GpufftContext *ctx;

  g_mutex_lock (&dev->lock);
  /* (the opening's own thread, in `opened` or a bus handler of its error,
   * does not wait for itself) */
  while (!dev->done && !dev->closed && !(cancel && g_atomic_int_get (cancel))
      && g_private_get (&opening) != dev)
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

void
gst_gpu_fft_device_close (GstGpuFftDevice * dev)
{
  GThread *thread;
  gboolean join;

  if (dev == NULL)
    return;
  g_mutex_lock (&dev->lock);
  dev->closed = TRUE;
  g_cond_broadcast (&dev->cond);
  thread = dev->thread;
  dev->thread = NULL;
  /* (the thread decides under this lock whether it calls back: once
   * closed it does not, and then only the driver's calls and the
   * release of what it made remain, which are waited for) */
  join = !dev->calling && g_private_get (&opening) != dev;
  g_mutex_unlock (&dev->lock);
  if (thread && join)
    g_thread_join (thread);
  else if (thread)
    g_thread_unref (thread);
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
  g_mutex_clear (&dev->lock);
  g_cond_clear (&dev->cond);
  g_free (dev);
}
