/* The plan's insides, shared by the engine files that make up a plan:
 *
 *   gpufft-plan.c           configuration, creation and destruction;
 *                           the slots' scheduler jobs
 *   gpufft-plan-size.c      the kernel's shape (GPUFFT_FFT_TUNE) and the
 *                           batch limits within the device's limits
 *   gpufft-plan-any.c       the sizes the power-of-two kernels do not take
 *   gpufft-plan-cpu.c       the kernel for CPU devices (lavapipe)
 *   gpufft-plan-input.c     the input path (caller's thread): batch checks,
 *                           copy into a staging slot (or host memory
 *                           imported, gpufft-import.h), the chunk and
 *                           group tables, hand-over to the scheduler
 *   gpufft-plan-record.c    the commands of one slot (scheduler's submit
 *                           thread), and the benchmark rerun
 *   gpufft-plan-results.c   the result path: delivery on the completion
 *                           thread, the stash for collect(), draining
 *   gpufft-plan-analysis.c  averaging modes, bin gains, bands, level and
 *                           frame rows: their checks, tables, buffers and
 *                           delivery
 *   gpufft-merge.c          shared dispatches (the scheduler's round hooks)
 *   gpufft-plan-host.c      the host backend (gpufft_plan_new_host()): a
 *                           plan whose work a GpufftHostPlan (host/: the
 *                           same analysis in C on the CPU) does; it holds
 *                           no device object (no ctx, no slots), only the
 *                           configuration and batch limits
 *
 * Backends
 *   The public plan functions check their arguments and hand the work to
 *   the plan's backend (GpufftPlanOps), chosen once when the plan is
 *   made: the device's (gpufft_plan_new(): slots, the scheduler) or the
 *   host's (gpufft_plan_new_host()). One indirect call per public call (a
 *   batch, a collect), none per frame.
 *
 * Slots
 *   A plan has n_slots slots (N_SLOTS, fewer where that much staging
 *   would pass STAGING_BUDGET; 2 at least), used round-robin. Each has
 *   its own host-side memory (staging, tables, readback copies,
 *   descriptor sets); the device
 *   buffers (input, partial sums, carries, results) are shared by all slots
 *   and used by one slot at a time, in submission order (the scheduler puts
 *   a plan's slots in successive rounds separated by barriers).
 *
 *   FREE --submit (caller's thread)--> QUEUED --scheduler--> RECORDED
 *   (no field records it: a plan's slots go round in order, so the n_busy
 *   slots from the oldest are in flight and slots[next] is free)
 *        <--completion thread (results delivered)--
 *
 *   Only the thread that calls submit touches a FREE slot, only the
 *   scheduler's submit thread a QUEUED one, only its completion thread a
 *   RECORDED one. `lock` guards n_busy, the stash, the error and the
 *   result function; `cond` is signalled whenever a slot becomes FREE.
 */
#ifndef __GPUFFT_PLAN_PRIVATE_H__
#define __GPUFFT_PLAN_PRIVATE_H__

#include "gpufft.h"
#include "gpufft-error.h"
#include "gpufft-buffer.h"
#include "gpufft-command.h"
#include "gpufft-import.h"
#include "gpufft-host-memory.h"
#include "gpufft-descriptor-pool.h"
#include "gpufft-scheduler.h"

G_BEGIN_DECLS

#define N_SLOTS 8               /* slots of a plan at most */
#define STAGING_BUDGET (256u << 20)     /* staging of a plan's slots: fewer
                                         * slots (2 at least) for large
                                         * spans */
#define AUTO_SPAN_BYTES (4u << 20)      /* staging per slot, automatic */
#define AUTO_RESULT_BYTES (16u << 20)   /* power results per slot, automatic */
#define PARTIAL_BYTES (64u << 20)       /* partial sums budget */
#define PHASE_BYTES (64u << 20)         /* phase_mean: complex rows budget */
#define FRAMES_PER_CHUNK 16     /* GPU: frames summed in registers before a write */
#define CPU_CHUNK_FRAMES 8      /* CPU devices: fewest frames a chunk sums */
#define LANE_THREADS 32         /* small FFTs: lanes per workgroup up to a warp */
#define GROUP_WORDS 8
#define CPLX_ZERO 0x80000000u
#define REDUCE_T 256
#define FFT_E 16                /* complex elements per thread (fft.comp) */
#define ROWS_T 64               /* four-step second kernel */
#define FOUR_STEP_LOG2_Q 12     /* four-step column FFT size Q = 4096 */
#define TEMP_BYTES (32u << 20)  /* the generic kernel's scratch on CPU devices */
/* The four-step's slice of temporary results: fewer, larger slices leave
 * the device fewer drains between its two kernels (docs/performance.md). */
#define SLICE_BYTES (128u << 20)

typedef struct
{
  guint32 sstride, cstride, in_channels, hop, downmix, out_channels;
  gfloat scale, inv_channels;
  guint32 frame_base;           /* four-step: first frame of the slice */
  gfloat edge;                  /* power factor of bins 0 and N/2 (others 2) */
  /* shared dispatches (gpufft-merge.h); 0 in a slot's own parameters */
  guint32 chunk_base;           /* first entry of the chunk table */
  guint32 partial_base;         /* first float of the partial rows */
} FftParams;

typedef struct
{
  guint32 out_channels;
  gfloat scale;
  guint32 chunk_base, frame_base;
  gfloat edge;
} RowsParams;

typedef struct
{
  guint32 out_channels, peak_lo, peak_hi, n_peaks, output_db;
  gfloat db_offset, db_floor;
  guint32 n_groups;
  gfloat alpha, beta;           /* exponential averaging */
  guint32 frame_row;            /* floats per frame row */
  guint32 partial_base;         /* first float of the batch's partial rows
                                 * (a shared dispatch's; else 0) */
  guint32 phase_row;            /* phase_mean: the complex row of chunk 0
                                 * (max_groups + 1) */
} ReduceParams;

#define GROUP_RESET 4u          /* group flag: reset the averaging state */
#define GROUP_CLOSES 0x80000000u        /* GpufftSlot.group_frames */

/* A segment the GPU reads in place (imported, gpufft-import.h, or in the
 * engine's mapped memory, gpufft-host-memory.h), and what to call once it
 * has. */
typedef struct
{
  GpufftImport imp;             /* mapped memory: its buffer, not ours to
                                 * clear (`borrowed`) */
  gboolean borrowed;
  VkDeviceSize dst_offset, size;        /* into plan->input */
  GDestroyNotify release;
  gpointer release_data;
} SlotImport;

typedef struct _GpufftSlot GpufftSlot;

/* A plan's backend (see "Backends" above). Each function is called by the
 * public function of the same name, from the same thread, once that has
 * checked its arguments. */
typedef struct
{
  /* batch checked, span: the samples per channel its frames cover; calls
   * the release functions of the segments it does not keep, whether it
   * succeeds or not */
  gboolean (*submit) (GpufftPlan * plan, const GpufftBatch * batch,
      gsize span, GError ** error);
  void (*set_cancel) (GpufftPlan * plan, const gint * cancel);
  void (*set_result_func) (GpufftPlan * plan, GpufftResultFunc func,
      gpointer user_data);
  void (*set_tag_free) (GpufftPlan * plan, GDestroyNotify tag_free);
  gint (*collect) (GpufftPlan * plan, gboolean wait, GpufftResultFunc func,
      gpointer user_data, GError ** error);
  guint (*in_flight) (GpufftPlan * plan);
  void (*get_timings) (GpufftPlan * plan, GpufftTimings * timings);
  gboolean (*rerun) (GpufftPlan * plan, guint repeats, GError ** error);
  /* frees the plan (the GpufftPlan too) */
  void (*free) (GpufftPlan * plan);
} GpufftPlanOps;

/* The functions of a plan's slot jobs (gpufft-plan.c): a job that runs
 * them is a GpufftSlot's (the shared dispatches, gpufft-merge.c, take work
 * from those only). */
extern const GpufftJobFuncs gpufft_plan_slot_job_funcs;

/* The slot a scheduler job is embedded in. */
#define GPUFFT_SLOT_OF_JOB(j) \
  ((GpufftSlot *) ((guint8 *) (j) - G_STRUCT_OFFSET (GpufftSlot, job)))

struct _GpufftSlot
{
  /* the scheduler's job (funcs: the plan's; series: plan->series;
   * copied_bytes, imported_bytes, mapped_bytes: the last
   * filling's) */
  GpufftJob job;
  GpufftPlan *plan;

  GpufftBuffer staging;         /* raw samples */
  GpufftBuffer chunks;          /* uvec4 per chunk */
  guint32 *chunk_frames;        /* host copy: first frame, count per chunk */
  GpufftBuffer groups;          /* GROUP_WORDS uints per group */
  /* Host copies of the results (the GPU writes them to device memory and
   * copies them here at the end of the batch). */
  GpufftBuffer out;             /* [max_groups][out_ch][nb] */
  GpufftBuffer counts;          /* [max_groups][out_ch] frames used */
  GpufftBuffer peaks;           /* [max_groups][out_ch][n_peaks] uvec4 */
  GpufftBuffer cplx;            /* [max_groups][out_ch][nb] vec2 */
  GpufftBuffer ext;             /* [max_groups][out_ch][ext_row]: bands,
                                 * level */
  GpufftBuffer frames;          /* [max_frames][out_ch][frame_row] */
  guint n_frames;               /* frames of the batch */
  guint *group_frames;          /* [max_groups] frames of each group in
                                 * the batch, | GROUP_CLOSES when it
                                 * closes */
  /* the FFT pipeline the batch runs: the plan's when it was submitted (a
   * quick start's switches between two submissions, gpufft-plan-cpu.c) */
  const GpufftPipeline *fft;
  VkDescriptorSet fft_set;
  VkDescriptorSet rows_set;     /* four-step only */
  VkDescriptorSet reduce_set[2];        /* by carry parity */
  /* the same with the shared dispatches' partial rows (mergeable plans) */
  VkDescriptorSet reduce_merged_set[2];
  /* Set by the scheduler's submit thread while recording: the batch's
   * FFTs run in a dispatch shared with other plans (gpufft-merge.h), its
   * samples at merge_offset of merge_in. */
  gboolean merged;
  GpufftBuffer *merge_in;
  VkDeviceSize merge_offset;

  /* What the last filling of this slot holds (for recording, delivery and
   * rerun). The upload: `copies` (VkBufferCopy, staging -> input) and
   * `imports` (SlotImport), together the whole span. */
  GArray *copies;
  GArray *imports;
  gsize span_bytes;             /* the batch's samples, all channels */
  guint n_chunks, n_groups, carry_read;
  FftParams fft_params;
  ReduceParams reduce_params;
  guint n_closed;
  guint *closed_frames;         /* [max_groups] */
  gpointer *closed_tags;        /* [max_groups] GpufftGroup.tag */
  /* complex_out: closed groups whose last frame came in an earlier batch
   * (copy the carry row into their row) or that had no frame (zeros). */
  guint *cplx_fix;              /* [max_groups]: slot | CPLX_ZERO */
  guint n_cplx_fix;

  /* The slot's own command buffer (GpufftJobFuncs.own_command: a batch
   * alone in its submission), made at its first use, and the signature
   * of what it holds (gpufft_plan_slot_signature()): valid once a
   * submission of it completed. Submit thread, but own_valid, which the
   * completion thread sets (the slot is not queued again before). */
  GpufftCommand own;
  GByteArray *own_sig, *next_sig;
  gboolean own_valid, own_used;
  guint64 first_index;          /* group_index of the first closed group */
};

struct _GpufftPlan
{
  GpufftContext *ctx;
  GpufftPlanConfig cfg;
  /* the backend, set when the plan is made */
  const GpufftPlanOps *ops;
  /* The host backend's (gpufft-plan-host.c; NULL for a device plan): the
   * work is its; of the fields below only the geometry and the batch
   * limits are set (nb, out_ch, bps, n_peaks, max_frames, max_groups,
   * max_span, n_slots) */
  struct _GpufftHostPlan *host_plan;

  guint log2_m, m, nb, out_ch, bps, fpw;
  guint chunk_max;              /* GPU: most frames per chunk (FRAMES_PER_CHUNK) */
  guint64 slice_bytes;          /* four-step: most temporary bytes a slice (SLICE_BYTES) */
  /* Four-step (large N): M = cols x 2^log2_q, the column FFTs by `fft`
   * (MODE 1) into `temp`, slice after slice of at most slice_frames
   * frames, then `rows`. */
  gboolean four_step;
  guint log2_q, cols, rows_kb, slice_frames;
  const GpufftPipeline *rows;
  GpufftBuffer temp;
  /* Any other size (not a power of two, or below 32): fft_any.comp
   * (gpufft-plan-any.c) does the FFT kernel's work, mixed radix or
   * Bluestein over L points, its work array in shared memory or, slice
   * after slice of slice_chunks chunks, in `scratch`. */
  gboolean any, bluestein, any_shared;
  /* CPU devices (gpufft-plan-cpu.c): fft_cpu.comp, one chunk per
   * workgroup, the input read through texel views. */
  gboolean cpu;
  guint cpu_chunks;             /* chunks a large batch is cut into */
  struct _GpufftCpuUpgrade *cpu_upgrade;        /* the unrolled pipeline
                                                 * being made (submitter) */
  const GpufftPipeline *cpu_quick;      /* the quick start's, once
                                         * upgraded (slots may hold it) */
  guint cpu_chunk_cap;          /* gpufft_plan_cpu_chunk_cap() */
  guint any_l, slice_chunks;
  GpufftBuffer scratch;
  GpufftBuffer *twiddles_l, *chirp;     /* shared; Bluestein only */
  guint max_frames, max_groups, max_chunks, n_peaks;
  gboolean mergeable;           /* may share dispatches (gpufft-merge.h) */
  gsize max_span;
  gsize import_min;             /* bytes; 0: every segment is copied */
  gsize mapped_min;             /* bytes: smallest segment in mapped
                                 * memory read in place */
  gboolean record_once;         /* slots keep their commands (own_command);
                                 * GPUFFT_RECORD_ONCE=0 turns it off */
  guint import_failures;        /* submitter's: imports the driver refused */
  gfloat scale;
  gfloat edge;                  /* 1 one-sided, 2 raw (scale halved) */

  GpufftBuffer input, partial, carry[2], dummy;
  /* The kernels' chunk and group tables in device memory, copied from the
   * slot's host tables at each upload (NULL buffer where the host tables
   * are device-local already, as on CPU devices: the kernels read those) */
  GpufftBuffer chunks_dev, groups_dev;
  GpufftBuffer out_dev, counts_dev, peaks_dev, cplx_dev;       /* results */
  /* Analysis stage (gpufft-plan-analysis.c) */
  gboolean per_frame;           /* one frame per chunk (averaging modes,
                                 * frame rows) */
  gboolean fresh;               /* the state has not been reset yet */
  guint n_bands, ext_row, frame_row, frame_values;
  gboolean has_level;
  gfloat alpha, beta;
  GpufftBuffer tables, state, ext_dev, frames_dev;
  /* completion thread: the open group's frame rows so far, and the
   * delivered bands and levels ([out_ch][n_bands], [out_ch]) */
  GArray *frame_acc;
  gfloat *band_scratch, *level_scratch;
  /* shared by every plan of the context (gpufft-cache.h); fft is the
   * submitter's (a quick start switches it, gpufft-plan-cpu.c): the
   * recording reads each slot's own copy */
  GpufftBuffer *window, *twiddles;
  const GpufftPipeline *fft, *reduce;
  GpufftDescriptorPool pool;
  GpufftSlot slots[N_SLOTS];
  guint n_slots;                /* slots made (see STAGING_BUDGET) */
  guint next;                   /* slot of the next submission (submitter) */
  /* submitter: the FFT pipeline of the last batch submitted (a batch whose
   * pipeline differs, the plan's first, is a cold job: GpufftJob.cold) */
  const GpufftPipeline *warm_fft;

  /* Open group (spanning batches): the submitter's. */
  gboolean open;
  guint open_frames;
  guint carry_read;
  guint64 next_group_index;

  /* The context's scheduler; the plan's slots are one series of jobs
   * (they share the plan's device buffers). */
  GpufftScheduler *sched;
  GpufftJobSeries series;

  /* Completion thread only. */
  GpufftPeak *peak_scratch;     /* [out_ch][n_peaks] */

  GMutex lock;
  GCond cond;
  /* freed with work in flight (gpufft_plan_free): results are dropped
   * (atomic) */
  gint doomed;
  /* the owner's flag that cuts its waits short (gpufft_plan_set_cancel) */
  const gint *cancel;
  /* --- under lock --- */
  guint n_busy;                 /* slots QUEUED or RECORDED */
  guint delivering;             /* result function calls under way */
  GpufftResultFunc func;        /* NULL: results go to the stash */
  gpointer func_data;
  GDestroyNotify tag_free;      /* tags that are not handed back */
  GQueue stash;                 /* gpufft_result_copy (), for collect() */
  guint n_stashed;              /* batches whose results are in the stash */
  GError *error;                /* a failed batch: sticky */
  GpufftTimings timings;

  GpufftCommand rerun_cmd;
};

/* gpufft-plan-record.c: the phases of one slot, recorded by the scheduler
 * between its barriers. */
void gpufft_plan_record_upload (GpufftPlan * plan, GpufftSlot * s,
    VkCommandBuffer cmd);
void gpufft_plan_record_kernels (GpufftPlan * plan, GpufftSlot * s,
    GpufftCommand * command);
void gpufft_plan_record_reduce (GpufftPlan * plan, GpufftSlot * s,
    VkCommandBuffer cmd);
void gpufft_plan_record_download (GpufftPlan * plan, GpufftSlot * s,
    VkCommandBuffer cmd);

/* Waits on plan->cond (plan->lock held) once, giving up (FALSE) when the
 * plan's cancel flag is set: blocking waits of at most
 * GPUFFT_CANCEL_POLL_MS while there is a flag (the submitter's wait for a
 * slot, collect's drain). */
static inline gboolean
gpufft_plan_wait (GpufftPlan * plan)
{
  if (plan->cancel == NULL) {
    g_cond_wait (&plan->cond, &plan->lock);
    return TRUE;
  }
  if (g_atomic_int_get (plan->cancel))
    return FALSE;
  g_cond_wait_until (&plan->cond, &plan->lock, g_get_monotonic_time () +
      GPUFFT_CANCEL_POLL_MS * 1000);
  return !g_atomic_int_get (plan->cancel);
}

/* gpufft-plan-results.c: called by the completion thread once the slot's work
 * is done (error NULL) or failed: delivers its results (or failure) and
 * frees the slot. Takes and releases plan->lock; calls the result
 * function with no lock held. */
void gpufft_plan_finish_slot (GpufftPlan * plan, GpufftSlot * s,
    const GpufftTimings * timings, const GError * error);
void gpufft_plan_stash_clear (GpufftPlan * plan);

/* gpufft-plan-any.c: the path for sizes fft.comp does not take. */
gboolean gpufft_plan_any_size (guint fft_size);
gboolean gpufft_plan_any_pipeline (GpufftPlan * plan, GError ** error);
/* after sizing: the scratch buffer and Bluestein's tables */
gboolean gpufft_plan_any_buffers (GpufftPlan * plan, GError ** error);
void gpufft_plan_any_record (GpufftPlan * plan, GpufftSlot * s,
    GpufftCommand * command);

/* gpufft-plan-cpu.c: the kernel path for CPU devices. */
typedef enum
{
  GPUFFT_KERNEL_PATH_AUTO,
  GPUFFT_KERNEL_PATH_GPU,
  GPUFFT_KERNEL_PATH_CPU,
  GPUFFT_KERNEL_PATH_OTHER,     /* the one AUTO would not take (tests) */
  GPUFFT_KERNEL_PATH_ANY        /* the generic kernel for every size */
} GpufftKernelPath;

GpufftKernelPath gpufft_plan_cpu_path_requested (void);
/* TRUE when the plan is to run fft_cpu.comp (device type, size, subgroup
 * operations, GPUFFT_KERNEL_PATH) */
gboolean gpufft_plan_cpu_wanted (GpufftPlan * plan);
/* The largest power-of-two size (from 32) the CPU kernels run on this
 * device, 0 when they cannot run on it at all (the tests ask too). */
guint gpufft_plan_cpu_max_size (GpufftContext * ctx);
typedef struct _GpufftCpuUpgrade GpufftCpuUpgrade;

/* sets plan->cpu, fpw and fft (a quick module's, where the size has one,
 * while the unrolled one is made beside the stream) */
gboolean gpufft_plan_cpu_pipeline (GpufftPlan * plan, GError ** error);
/* the end of gpufft_plan_new(): arms the making of the unrolled pipeline
 * of a quick start (its thread starts at a submission once the plan has
 * run for GPUFFT_CPU_UPGRADE_AFTER, after the plan's other pipelines, so
 * that its compile does not take the CPU from them) */
void gpufft_plan_cpu_start_upgrade (GpufftPlan * plan);
/* the submitter, before it fills a slot: starts the unrolled pipeline's
 * thread when it is time; the plan runs it from this slot on once it is
 * made */
void gpufft_plan_cpu_maybe_upgrade (GpufftPlan * plan);
/* drops the plan's share of the pipeline being made and its reference to
 * the quick start's (with the plan's Vulkan objects) */
void gpufft_plan_cpu_free (GpufftPlan * plan);
/* the most frames one chunk may hold (lavapipe's loop limit) */
guint gpufft_plan_cpu_chunk_cap (GpufftPlan * plan);
/* the texel views the kernel reads an input buffer through (a plan's, or
 * a shared dispatch's) */
gboolean gpufft_plan_cpu_input_views (GpufftPlan * plan,
    GpufftBuffer * input, GError ** error);
/* sets the bindings of the kernel that differ from fft.comp's: bufs[0],
 * [1], [2] and [6] (the chunk table, partial rows and complex output at
 * [3], [4], [5] are the caller's) */
void gpufft_plan_cpu_fft_buffers (GpufftPlan * plan, GpufftBuffer * input,
    GpufftBuffer ** bufs);

/* gpufft-plan-analysis.c */
gboolean gpufft_plan_analysis_check (const GpufftPlanConfig * c,
    GError ** error);
/* before sizing: what the reduce kernel and the chunk tables need */
void gpufft_plan_analysis_setup (GpufftPlan * plan);
/* sizing: the most frames a batch may hold (frame rows within a budget
 * and `range` bytes) */
guint64 gpufft_plan_analysis_max_frames (GpufftPlan * plan, guint64 range);
/* after sizing: the tables, the state and the result buffers */
gboolean gpufft_plan_analysis_buffers (GpufftPlan * plan, GError ** error);
gboolean gpufft_plan_analysis_slot (GpufftPlan * plan, GpufftSlot * s,
    GError ** error);
void gpufft_plan_analysis_slot_clear (GpufftPlan * plan, GpufftSlot * s);
void gpufft_plan_analysis_clear (GpufftPlan * plan);
/* completion thread: the bands and level of closed group g of the slot */
void gpufft_plan_analysis_fill (GpufftPlan * plan, GpufftSlot * s,
    guint g, GpufftGroupResult * r);
/* completion thread: appends the rows of the slot's frames [first,
 * first + n) to the frames of the group being delivered (a group that
 * spans batches collects its rows batch after batch) */
void gpufft_plan_analysis_add_frames (GpufftPlan * plan, GpufftSlot * s,
    guint first, guint n);

/* gpufft-plan-input.c: planar input's plane stride for a span of `span`
 * samples (a multiple of 8, so that every plane starts on 16 bytes for
 * fft_cpu.comp's vector loads) */
guint64 gpufft_plan_plane_stride (guint64 span);

/* gpufft-plan-record.c: into sig, everything the record functions read
 * from the slot and the plan that changes from batch to batch (equal
 * signatures: equal commands). A field they start to read must be added
 * there. */
void gpufft_plan_slot_signature (GpufftPlan * plan, GpufftSlot * s,
    GByteArray * sig);

/* The fused kernel's shape (fft.comp): elements per thread (16, or 8
 * with twice the threads), lanes per workgroup for small sizes, padding,
 * whole-complex exchanges and where the post-processing reads its pairs;
 * -1: chosen from the device's limits. GPUFFT_FFT_TUNE overrides them
 * for benchmarks: comma-separated e=8|16, lanes=N (a power of two),
 * pad=0|1, vec2=0|1, direct=0|1, chunk=F (most frames a chunk sums, 1 to
 * 256), slice=MIB (the four-step's slice of temporary results, 1 to
 * 1024). */
typedef struct
{
  gint e, lanes, pad, vec2, direct, chunk, slice_mib, hold;
} GpufftPlanShape;

/* gpufft-plan-size.c: the shape a plan of this process takes (the
 * defaults, or GPUFFT_FFT_TUNE's entries; a bad entry is left out with a
 * warning). */
void gpufft_plan_size_shape (GpufftPlanShape * shape);
/* gpufft-plan-size.c: the bytes of the input (and staging) buffer for a
 * span of `span` instants: planar planes start every
 * gpufft_plan_plane_stride() samples. */
guint64 gpufft_plan_size_input_bytes (const GpufftPlan * plan, guint64 span);
/* gpufft-plan-size.c: the batch limits (max_frames, max_groups,
 * max_chunks, max_span, and the four-step's slice_frames) within the
 * device's limits `lim` (a host plan's: no limits but 32-bit sizes), once
 * the geometry is set (setup_geometry; a device plan's pipelines made:
 * the four-step's columns and row blocks, the CPU kernel's chunk cap);
 * FALSE with error set where a frame's input, a group's results, the
 * partial or phase rows or the workgroup counts cannot fit. */
gboolean gpufft_plan_size_batch (GpufftPlan * plan,
    const VkPhysicalDeviceLimits * lim, GError ** error);

/* gpufft-plan-input.c: the smallest segment in the engine's mapped memory
 * that the device reads in place (smaller ones are copied: a copy of a few
 * KiB costs less than the command buffer it would keep from being reused,
 * each buffer being another copy region); GPUFFT_HOST_MEMORY_MIN_BYTES
 * overrides it (tests). */
gsize gpufft_plan_mapped_min_bytes (void);

/* The device backend's functions (gpufft-plan.c's table): submit in
 * gpufft-plan-input.c, rerun in gpufft-plan-record.c, the others in
 * gpufft-plan-results.c. */
gboolean gpufft_plan_device_submit (GpufftPlan * plan,
    const GpufftBatch * batch, gsize span, GError ** error);
gboolean gpufft_plan_device_rerun (GpufftPlan * plan, guint repeats,
    GError ** error);
void gpufft_plan_device_set_cancel (GpufftPlan * plan, const gint * cancel);
void gpufft_plan_device_set_tag_free (GpufftPlan * plan,
    GDestroyNotify tag_free);
void gpufft_plan_device_set_result_func (GpufftPlan * plan,
    GpufftResultFunc func, gpointer user_data);
gint gpufft_plan_device_collect (GpufftPlan * plan, gboolean wait,
    GpufftResultFunc func, gpointer user_data, GError ** error);
guint gpufft_plan_device_in_flight (GpufftPlan * plan);
void gpufft_plan_device_get_timings (GpufftPlan * plan,
    GpufftTimings * timings);

/* gpufft-plan-host.c: the host backend of a plan that check_config and
 * gpufft_plan_size_batch have prepared: sets plan->ops and plan->host_plan (the
 * configuration's arrays copied); FALSE with error set where the host plan
 * cannot be made (the caller frees the GpufftPlan). */
gboolean gpufft_plan_host_init (GpufftPlan * plan, GError ** error);
/* the host backend's table (gpufft_plan_is_host()) */
extern const GpufftPlanOps gpufft_plan_host_ops;

/* gpufft-plan-input.c: calls the release function of every segment of the
 * batch. */
void gpufft_plan_release_segments (const GpufftBatch * batch);

/* gpufft-merge.c: TRUE when the plan's batches may share a dispatch
 * (gpufft-merge.h). */
gboolean gpufft_merge_plan_ok (const GpufftPlan * plan);
/* gpufft-merge.c: marks slot s as running its FFTs in a dispatch of its
 * own (not merged): its input at offset 0 of its plan's, its partial rows
 * from 0. */
void gpufft_merge_slot_alone (GpufftSlot * s);

/* gpufft-plan-input.c: frees the slot's imports and calls their release
 * functions (the GPU no longer reads them, or never will). */
void gpufft_plan_release_imports (GpufftPlan * plan, GpufftSlot * s);

G_END_DECLS

#endif /* __GPUFFT_PLAN_PRIVATE_H__ */
