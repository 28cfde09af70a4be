/* One command buffer + its fence (+ optional timestamp query pool), reused
 * submission after submission. */
#ifndef __GPUFFT_COMMAND_H__
#define __GPUFFT_COMMAND_H__

#include "gpufft-context-private.h"

G_BEGIN_DECLS

typedef struct
{
  VkCommandPool pool;
  VkCommandBuffer cmd;
  VkFence fence;
  VkQueryPool queries;          /* VK_NULL_HANDLE without timestamps */
  guint n_queries;
  gboolean pending;             /* submitted and not yet waited for */
  gboolean completed;           /* a submission has completed since begin */
  gboolean reusable;            /* set by the owner after init: recorded
                                 * for more than one submission
                                 * (gpufft_command_resubmit()) */
} GpufftCommand;

/* n_queries timestamp queries (0 = none; none either if the device has no
 * timestamps). */
gboolean gpufft_command_init (GpufftCommand * c, GpufftContext * ctx,
    guint n_queries, GError ** error);
/* Resets and begins recording (one-time submit unless reusable). Must not
 * be pending. Also resets the query pool (at the start of every execution
 * of the commands). */
gboolean gpufft_command_begin (GpufftCommand * c, GpufftContext * ctx,
    GError ** error);
/* Writes timestamp `query` (no-op without a query pool). */
void gpufft_command_timestamp (GpufftCommand * c, guint query);
/* Ends recording, resets the fence and submits; sets pending. */
gboolean gpufft_command_submit (GpufftCommand * c, GpufftContext * ctx,
    GError ** error);
/* Submits the commands as last recorded and ended again (reusable only,
 * not pending): resets the fence and submits; sets pending. */
gboolean gpufft_command_resubmit (GpufftCommand * c, GpufftContext * ctx,
    GError ** error);
/* If pending: waits for the fence (timeout_ns, G_MAXUINT64 = forever).
 * Returns TRUE when the work is done (and clears pending), FALSE with no
 * error on timeout, FALSE with error on failure (device lost...). */
gboolean gpufft_command_wait (GpufftCommand * c, GpufftContext * ctx,
    guint64 timeout_ns, GError ** error);
/* As gpufft_command_wait, but gives up (FALSE, no error, *cancelled TRUE)
 * within GPUFFT_CANCEL_POLL_MS of *cancel (may be NULL) becoming non-zero;
 * the command then stays pending. */
gboolean gpufft_command_wait_cancellable (GpufftCommand * c,
    GpufftContext * ctx, guint64 timeout_ns, const gint * cancel,
    gboolean * cancelled, GError ** error);
/* Submits and waits up to the context's fence timeout (one-off work made
 * with a plan or a table: a shader's first dispatch may take seconds on a
 * loaded CPU device, so not the stall deadline), giving up at once when
 * the context is marked lost meanwhile (a stall of the scheduler's). A
 * timeout is a GPUFFT_ERROR_DEVICE_LOST error, "the Vulkan device did not
 * <doing> within N s", and marks the context lost. Fails at once on a
 * lost context. */
gboolean gpufft_command_run (GpufftCommand * c, GpufftContext * ctx,
    const gchar * doing, GError ** error);
/* Nanoseconds between timestamps a and b of the last completed submission;
 * negative if unavailable. */
gdouble gpufft_command_elapsed_ns (GpufftCommand * c, GpufftContext * ctx,
    guint a, guint b);
/* Waits if pending (errors ignored), then destroys. Safe on zeroed. */
void gpufft_command_clear (GpufftCommand * c, GpufftContext * ctx);

/* Records a full compute->compute and transfer->compute memory barrier
 * (shader/transfer writes visible to shader reads and writes and to
 * transfer and host reads). */
void gpufft_command_barrier (GpufftCommand * c);

G_END_DECLS

#endif
