/* GpufftContext: memory the device may still read, released once it has
 * finished (gpufft_context_release_later, gpufft-context-private.h). One
 * waiter of the context's ("gpufft-late", gpufft_context_start_waiter) at
 * a time takes the queued releases, holding a reference on the context,
 * waits for an empty batch behind everything submitted
 * (gpufft_context_drain, up to the fence timeout, given up at the
 * process's exit) and then releases them; on a device that does not
 * finish it leaks what it took and what was queued meanwhile, with a
 * warning, and ends (a release queued after that starts the next waiter,
 * which may start while the last one is still warning). Locks: the
 * context's late_lock, around its list and late_running only. */
#include "gpufft-context-private.h"
#include "gpufft-vk-error.h"

typedef struct
{
  GDestroyNotify release;
  gpointer data;
} Late;

static gpointer
late_thread (gpointer data)
{
  GpufftContext *ctx = data;

  for (;;) {
    GSList *items, *l;
    VkResult res;
    gboolean done;

    g_mutex_lock (&ctx->late_lock);
    items = ctx->late;
    ctx->late = NULL;
    if (items == NULL)
      ctx->late_running = FALSE;
    g_mutex_unlock (&ctx->late_lock);
    if (items == NULL)
      break;
    res = gpufft_context_drain (ctx, ctx->fence_timeout_ns,
        gpufft_context_exiting ());
    done = res == VK_SUCCESS || res == VK_ERROR_DEVICE_LOST;
    for (l = items; l; l = l->next) {
      Late *it = l->data;

      if (done)
        it->release (it->data);
      g_free (it);
    }
    g_slist_free (items);
    if (!done) {
      /* the device is really hung (or the process exits): what was queued
       * meanwhile is leaked at once, in the same locked section that ends
       * this waiter (a release queued after it starts the next one) */
      g_mutex_lock (&ctx->late_lock);
      g_slist_free_full (ctx->late, g_free);
      ctx->late = NULL;
      ctx->late_running = FALSE;
      g_mutex_unlock (&ctx->late_lock);
      if (!g_atomic_int_get (gpufft_context_exiting ()))
        g_warning ("gpufft: Vulkan device '%s' was not seen to finish its "
            "work (%s; waited up to %.3g s): the memory it may still read "
            "stays allocated", ctx->device_name,
            gpufft_vk_result_string (res), ctx->fence_timeout_ns / 1e9);
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

  it->release = release;
  it->data = data;
  g_mutex_lock (&ctx->late_lock);
  ctx->late = g_slist_append (ctx->late, it);
  start = !ctx->late_running;
  ctx->late_running = TRUE;
  g_mutex_unlock (&ctx->late_lock);
  if (!start)
    return;
  if (gpufft_context_start_waiter ("gpufft-late", late_thread,
          gpufft_context_ref (ctx)))
    return;
  /* (no thread: leaked, as on a hung device) */
  g_mutex_lock (&ctx->late_lock);
  g_slist_free_full (ctx->late, g_free);
  ctx->late = NULL;
  ctx->late_running = FALSE;
  g_mutex_unlock (&ctx->late_lock);
  gpufft_context_unref (ctx);
}
