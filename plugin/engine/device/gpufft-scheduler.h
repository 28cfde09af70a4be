/* The device scheduler: one per context (its service
 * GPUFFT_SERVICE_SCHEDULER), shared by every plan on it. It runs jobs
 * (GpufftJob: one plan batch each) through the functions the job names
 * (GpufftJobFuncs), and knows nothing of what they compute.
 *
 * Threads
 *   submit thread      waits for queued jobs; takes all of them, records
 *                      one command buffer (each series' jobs in rounds:
 *                      uploads, barrier, kernels, barrier, reduce,
 *                      barrier, downloads, barrier) and submits it with a
 *                      fence. Before each round's uploads, the round hooks
 *                      (GpufftRoundHooks, given by the layer that makes the
 *                      scheduler) see the round's jobs and may record work
 *                      of their own with the uploads and kernels (the plan
 *                      layer's shared dispatches, gpufft-merge.h).
 *                      At most N_RECORDS submissions are in flight; while
 *                      they are, newly queued jobs wait and join the next
 *                      submission (so the batches grow with load instead
 *                      of the number of submissions). On CPU devices it
 *                      first waits 2 ms after a job enters an empty
 *                      queue, so that the intervals that live streams
 *                      close together share one submission (each costs
 *                      lavapipe's threads a few hundred microseconds of
 *                      CPU, whatever it carries). A job alone in its
 *                      submission whose owner keeps a command buffer for
 *                      it (GpufftJobFuncs.own_command: a plan's slot) goes
 *                      in that one instead, without the round hooks, and
 *                      is not recorded again while the job says its
 *                      commands are unchanged (a live stream's intervals:
 *                      recorded once per slot, then only submitted).
 *   completion thread  waits for the oldest submission's fence (blocking,
 *                      at most until its stall deadline), then finishes
 *                      each of its jobs in order (GpufftJobFuncs.finish).
 *
 * Stall deadline (gpufft.h, "Deadlines"): a submission counts as stalled
 * when its fence has not signalled gpufft_context_stall_deadline_ns() after
 * the device could start it (submitted, and the previous submission seen
 * done), its expected time being its jobs' work (GpufftJob.work) at the
 * device's rate: measured on the submissions that complete (those of at
 * least 20 ms; the slowest recent rate: it rises at once, falls back by
 * 1/16 per measurement), before that a prior far slower than any device
 * (1 us per unit of work on CPU devices, 10 ns on GPUs). A submission
 * that holds a cold job (GpufftJob.cold: kernels run for the first time,
 * which a driver may compile only then) waits up to the fence timeout
 * instead, and is not measured. A stall is the
 * sticky error below ("the GPU stopped responding"), and the context is
 * marked lost: its command buffers are never waited for again (the
 * stalled one stays pending until the context is destroyed).
 * Neither thread holds the scheduler's lock while recording, waiting or
 * delivering. A failed submission or wait (device lost, hung) becomes the
 * scheduler's sticky error: the jobs in flight are finished with it, and
 * later queued jobs are finished with it at once. So every queued job is
 * finished (GpufftJobFuncs.finish) within its submission's stall deadline
 * whatever the device does: the owners of abandoned work (a plan freed
 * with batches in flight) rely on it to free their resources.
 *
 * GPUFFT_DEBUG_SLOW_DEVICE_MS (environment, read when the scheduler
 * starts): each submission completes no sooner than that (tests of a device
 * that falls behind); GPUFFT_DEBUG_LATE_START_MS: the submit thread sleeps
 * that long before recording each submission (a device that reads its
 * input late). GPUFFT_CPU_GATHER_US (0..100000) sets the CPU devices' wait
 * (benchmarks; 0: submit at once, as on GPUs).
 *
 * Lifetime: made with the context's first plan, freed with the context
 * (every plan holds a context reference, so nothing is queued by then).
 * Its threads are engine workers (gpufft_context_in_worker()). */
#ifndef __GPUFFT_SCHEDULER_H__
#define __GPUFFT_SCHEDULER_H__

#include "gpufft-command.h"

G_BEGIN_DECLS

typedef struct _GpufftScheduler GpufftScheduler;
typedef struct _GpufftJob GpufftJob;

/* What the scheduler does with a job: the phases of its round, recorded on
 * the submit thread between the round's barriers, and its end. */
typedef struct
{
  void (*record_upload) (GpufftJob * job, VkCommandBuffer cmd);
  void (*record_kernels) (GpufftJob * job, GpufftCommand * command);
  void (*record_reduce) (GpufftJob * job, VkCommandBuffer cmd);
  void (*record_download) (GpufftJob * job, VkCommandBuffer cmd);
  /* completion thread: the job's work is done (error NULL; timings of its
   * submission) or failed; the scheduler forgets the job */
  void (*finish) (GpufftJob * job, const GpufftTimings * timings,
      const GError * error);
  /* Optional (submit thread): a command buffer of the job's own, for a
   * submission that holds this job alone, or NULL for the scheduler's.
   * The job sets *record to FALSE when the buffer holds the commands this
   * submission needs (recorded by the scheduler for an earlier one, the
   * job's commands the same since): the scheduler then submits it again
   * as it is; else it records the whole submission into it. The buffer is
   * made with gpufft_scheduler_command_init() and not in flight (the job
   * is not queued twice before its finish). */
  GpufftCommand *(*own_command) (GpufftJob * job, gboolean * record);
} GpufftJobFuncs;

/* Jobs that use the same device buffers (one plan's): in one submission
 * they go in successive rounds, in queue order. The fields are the submit
 * thread's. */
typedef struct
{
  guint64 mark;
  guint round;
} GpufftJobSeries;

/* A job, embedded in its owner's structure (a plan's slot, a loudness
 * block). The owner sets funcs, series and the byte counts before
 * gpufft_scheduler_queue(); the rest is the scheduler's. The round hooks
 * tell the jobs they may take work from by their funcs. */
struct _GpufftJob
{
  const GpufftJobFuncs *funcs;
  GpufftJobSeries *series;
  guint64 copied_bytes;         /* input copied into staging (counters) */
  guint64 imported_bytes;       /* input the device reads in place */
  guint64 mapped_bytes;         /* of which from the engine's mapped memory
                                 * (GpufftHostMemory) */
  guint64 work;                 /* what the device has to do, in samples
                                 * read by the kernels (the stall deadline
                                 * scales with it) */
  gboolean cold;                /* its kernels' first run (a new plan's
                                 * first batch, a new pipeline's): the
                                 * driver may compile them only then (a CPU
                                 * device: seconds), so its submission
                                 * waits up to the fence timeout and is not
                                 * measured */

  GList link;                   /* in the pending queue */
  guint round;                  /* its series' n-th job in a submission */
};

/* Work of the layer that makes the scheduler, recorded with each round of
 * each submission (submit thread). data is what new() returned. */
typedef struct
{
  /* made with the scheduler for n_records submissions in flight; NULL
   * with error set when it cannot be (the rounds then carry no work of
   * their own) */
  gpointer (*new) (GpufftContext * ctx, guint n_records, GError ** error);
  void (*free) (gpointer data);
  /* a submission starts in record `record` (< n_records; reused only after
   * that submission's fence) */
  void (*begin) (gpointer data, guint record);
  /* the jobs of one round, before their uploads; returns how many of them
   * it takes work from (counted as shared batches) */
  guint (*round) (gpointer data, GpufftJob * const *jobs, guint n_jobs);
  /* recorded before the round's jobs' uploads, and before their kernels */
  void (*record_upload) (gpointer data, VkCommandBuffer cmd);
  void (*record_kernels) (gpointer data, VkCommandBuffer cmd);
  /* dispatches recorded since new() (counted as shared dispatches) */
  guint64 (*dispatches) (gpointer data);
} GpufftRoundHooks;

/* The context's scheduler, started on first use with these hooks (the
 * first caller's; thread-safe). */
GpufftScheduler *gpufft_scheduler_get (GpufftContext * ctx,
    const GpufftRoundHooks * hooks, GError ** error);

/* What the round hooks' new() returned (NULL: it failed). */
gpointer gpufft_scheduler_round_data (GpufftScheduler * sched);

/* Queues a job for the next submission. */
void gpufft_scheduler_queue (GpufftScheduler * sched, GpufftJob * job);

/* Makes a command buffer for GpufftJobFuncs.own_command: reusable, with
 * the scheduler's timestamp queries. */
gboolean gpufft_scheduler_command_init (GpufftScheduler * sched,
    GpufftCommand * c, GError ** error);

G_END_DECLS

#endif /* __GPUFFT_SCHEDULER_H__ */
