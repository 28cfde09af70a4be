/* GpufftContext: memory the device may still read, released once it has
 * finished (gpufft_context_release_later, gpufft-context-private.h). One
 * thread of the context's ("gpufft-late") at a time, holding a reference
 * on it, waits for an empty batch behind everything submitted (1 s at a
 * time, up to the fence timeout) and then releases what was queued; a
 * device that does not finish leaks what it may read, with one warning.
 * Locks: the context's late_lock, around its list and late_running only;
 * its queue_lock around the empty batch's submission. */
#include "gpufft-context-private.h"

typedef struct
{
  GDestroyNotify release;
  gpointer data;
} Late;

/* Submits an empty batch with a fence behind everything submitted so far
 * and waits for it, 1 s at a time, up to the fence timeout. */
static gboolean
late_fence_signals (GpufftContext * ctx)
{
  VkFenceCreateInfo finfo = {
    .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO,
  };
  VkFence fence = VK_NULL_HANDLE;
  VkResult res;
  guint64 waited = 0, step = 1000000000ull;
  gboolean done = FALSE;

  if (vkCreateFence (ctx->device, &finfo, NULL, &fence) != VK_SUCCESS)
    return FALSE;
  g_mutex_lock (&ctx->queue_lock);
  res = vkQueueSubmit (ctx->queue, 0, NULL, fence);
  g_mutex_unlock (&ctx->queue_lock);
  if (res == VK_SUCCESS) {
    while (!done && waited < ctx->fence_timeout_ns) {
      res = vkWaitForFences (ctx->device, 1, &fence, VK_TRUE, step);
      done = res == VK_SUCCESS;
      if (res != VK_SUCCESS && res != VK_TIMEOUT)
        break;
      waited += step;
    }
  }
  /* (not signalled: the fence may still be pending; it stays, a leak of
   * the hung device's) */
  if (done || res != VK_SUCCESS)
    vkDestroyFence (ctx->device, fence, NULL);
  return done;
}

static gpointer
late_thread (gpointer data)
{
  GpufftContext *ctx = data;

  for (;;) {
    GSList *items, *l;
    gboolean done;

    g_mutex_lock (&ctx->late_lock);
    items = ctx->late;
    ctx->late = NULL;
    if (items == NULL)
      ctx->late_running = FALSE;
    g_mutex_unlock (&ctx->late_lock);
    if (items == NULL)
      break;
    done = late_fence_signals (ctx);
    for (l = items; l; l = l->next) {
      Late *it = l->data;

      if (done)
        it->release (it->data);
      g_free (it);
    }
    g_slist_free (items);
    if (!done) {
      /* the device is really hung: whatever comes is leaked at once */
      g_mutex_lock (&ctx->late_lock);
      g_slist_free_full (ctx->late, g_free);
      ctx->late = NULL;
      g_mutex_unlock (&ctx->late_lock);
      g_warning ("gpufft: Vulkan device '%s' did not finish its work "
          "within %.0f s: the memory it may still read stays allocated",
          ctx->device_name, ctx->fence_timeout_ns / 1e9);
      g_mutex_lock (&ctx->late_lock);
      ctx->late_running = FALSE;
      g_mutex_unlock (&ctx->late_lock);
      break;
    }
  }
  gpufft_context_unref (ctx);
  return NULL;
}

void
gpufft_context_release_later (GpufftContext * ctx, GDestroyNotify release,
    gpointer data)
{
  Late *it = g_new (Late, 1);
  gboolean start;
  GThread *thread;

  it->release = release;
  it->data = data;
  g_mutex_lock (&ctx->late_lock);
  ctx->late = g_slist_append (ctx->late, it);
  start = !ctx->late_running;
  ctx->late_running = TRUE;
  g_mutex_unlock (&ctx->late_lock);
  if (!start)
    return;
  thread = g_thread_try_new ("gpufft-late", late_thread,
      gpufft_context_ref (ctx), NULL);
  if (thread) {
    g_thread_unref (thread);
    return;
  }
  /* (no thread: leaked, as on a hung device) */
  g_mutex_lock (&ctx->late_lock);
  g_slist_free_full (ctx->late, g_free);
  ctx->late = NULL;
  ctx->late_running = FALSE;
  g_mutex_unlock (&ctx->late_lock);
  gpufft_context_unref (ctx);
}
