/* GpufftContext: waiting for its device with a deadline
 * (gpufft-context-private.h): a fence waited for in blocking steps that a
 * cancel flag can end, and the stall deadline with its error. Calls
 * nothing of the context's (gpufft_context_drain, which marks a context
 * lost, is gpufft-context.c's). Thread-safe: no lock is held. */
#include "gpufft-context-private.h"

guint64
gpufft_context_stall_deadline_ns (GpufftContext * ctx, gdouble expected_ns)
{
  gdouble ns = ctx->stall_ns + 4.0 * MAX (expected_ns, 0.0);

  return ns >= (gdouble) ctx->fence_timeout_ns ? ctx->fence_timeout_ns :
      (guint64) ns;
}

void
gpufft_context_set_stall_error (GpufftContext * ctx, GError ** error,
    const gchar * doing, guint64 waited_ns)
{
  g_set_error (error, GPUFFT_ERROR, GPUFFT_ERROR_DEVICE_LOST,
      "the GPU stopped responding: %s did not finish within %.1f s (Vulkan "
      "device '%s' hangs or is stuck); restart the pipeline", doing,
      waited_ns / 1e9, ctx->device_name);
}

VkResult
gpufft_context_wait_fence (GpufftContext * ctx, VkFence fence,
    guint64 timeout_ns, const gint * cancel)
{
  const guint64 step = (guint64) GPUFFT_CANCEL_POLL_MS * 1000000;
  gint64 end = g_get_monotonic_time () + (gint64) MIN (timeout_ns /
      1000, (guint64) G_MAXINT64 / 4);

  if (cancel == NULL)
    return vkWaitForFences (ctx->device, 1, &fence, VK_TRUE, timeout_ns);
  for (;;) {
    gint64 left = end - g_get_monotonic_time ();
    VkResult res;

    if (g_atomic_int_get (cancel))
      return VK_NOT_READY;
    /* (each step blocks in the driver: no spinning) */
    res = vkWaitForFences (ctx->device, 1, &fence, VK_TRUE,
        MIN (step, (guint64) MAX (left, 0) * 1000));
    if (res != VK_TIMEOUT || left <= 0)
      return res;
  }
}
