/* A plan: configuration checks, and every GPU object of one analysis
 * geometry, allocated once at the sizes gpufft-plan-size.c gives (see
 * gpufft-plan-private.h for how the plan's files divide the work), and
 * the device backend's table (GpufftPlanOps). A host plan
 * (gpufft_plan_new_host()) is checked and sized the same way, its work
 * done by the host backend, gpufft-plan-host.c.
 *
 * Per batch the GPU runs:
 *   copy staging -> input            (transfer; skipped by rerun)
 *   fft.comp    chunks x channels    window + real FFT + power + chunk sum
 *     or, for other sizes (gpufft-plan-any.c):
 *   fft_any.comp  chunks x channels  the same, mixed radix or Bluestein
 *     or, for large N (four-step), slice after slice:
 *   fft.comp (MODE 1)  frames x columns x channels   column FFTs -> temp
 *   fft_rows.comp      chunks x k-blocks x channels  rows + power + sum
 *   reduce.comp groups x channels    group mean, carry, peaks, dB
 *   copy results -> slot readback    (transfer)
 * Submissions are ordered by a full barrier at the start of each command
 * buffer, so the device-side input, partial sums, carries and results are
 * shared by all slots; only what the host writes or reads (staging, tables,
 * readback copies) is per slot. */
#include <math.h>
#include <string.h>

#include "gpufft-plan-private.h"
#include "gpufft-pipeline-cache.h"
#include "gpufft-merge.h"
#include "gpufft-scheduler.h"
#include "gpufft-cache.h"
#include "gpufft-vk-error.h"

static const guint32 fft_spv[] =
#include "fft.spv.h"
    ;
static const guint32 fft_e8_spv[] =
#include "fft_e8.spv.h"
    ;
static const guint32 rows2_spv[] =
#include "rows2.spv.h"
    ;
static const guint32 rows4_spv[] =
#include "rows4.spv.h"
    ;
static const guint32 rows8_spv[] =
#include "rows8.spv.h"
    ;
static const guint32 reduce_spv[] =
#include "reduce.spv.h"
    ;

/* ---- the scheduler's jobs ---------------------------------------------- */

/* The scheduler runs a slot's batch through these (gpufft-scheduler.h). */
static void
job_record_upload (GpufftJob * job, VkCommandBuffer cmd)
{
  GpufftSlot *s = GPUFFT_SLOT_OF_JOB (job);

  gpufft_plan_record_upload (s->plan, s, cmd);
}

static void
job_record_kernels (GpufftJob * job, GpufftCommand * command)
{
  GpufftSlot *s = GPUFFT_SLOT_OF_JOB (job);

  gpufft_plan_record_kernels (s->plan, s, command);
}

static void
job_record_reduce (GpufftJob * job, VkCommandBuffer cmd)
{
  GpufftSlot *s = GPUFFT_SLOT_OF_JOB (job);

  gpufft_plan_record_reduce (s->plan, s, cmd);
}

static void
job_record_download (GpufftJob * job, VkCommandBuffer cmd)
{
  GpufftSlot *s = GPUFFT_SLOT_OF_JOB (job);

  gpufft_plan_record_download (s->plan, s, cmd);
}

static void
job_finish (GpufftJob * job, const GpufftTimings * timings,
    const GError * error)
{
  GpufftSlot *s = GPUFFT_SLOT_OF_JOB (job);

  /* (the own command holds the commands of its signature once they ran) */
  if (s->own_used)
    s->own_valid = error == NULL;
  s->own_used = FALSE;
  gpufft_plan_finish_slot (s->plan, s, timings, error);
}

/* A batch alone in its submission runs in the slot's own command buffer,
 * recorded again only when its signature changed: a live stream's
 * intervals, alike from one to the next, are recorded once per slot.
 * Batches with imported input (a new buffer each time) are not kept. */
static GpufftCommand *
job_own_command (GpufftJob * job, gboolean * record)
{
  GpufftSlot *s = GPUFFT_SLOT_OF_JOB (job);
  GpufftPlan *plan = s->plan;
  GByteArray *tmp;
  GError *err = NULL;

  if (!plan->record_once || s->imports->len > 0)
    return NULL;
  if (s->own.cmd == VK_NULL_HANDLE) {
    if (!gpufft_scheduler_command_init (plan->sched, &s->own, &err)) {
      g_debug ("no command buffer of the slot's own: %s", err->message);
      g_clear_error (&err);
      return NULL;
    }
    s->own_sig = g_byte_array_new ();
    s->next_sig = g_byte_array_new ();
  }
  /* (alone: no dispatch shared with other plans) */
  gpufft_merge_slot_alone (s);
  gpufft_plan_slot_signature (plan, s, s->next_sig);
  *record = !s->own_valid || s->own_sig->len != s->next_sig->len
      || memcmp (s->own_sig->data, s->next_sig->data, s->own_sig->len) != 0;
  tmp = s->own_sig;
  s->own_sig = s->next_sig;
  s->next_sig = tmp;
  s->own_valid = FALSE;
  s->own_used = TRUE;
  return &s->own;
}

const GpufftJobFuncs gpufft_plan_slot_job_funcs = {
  job_record_upload, job_record_kernels, job_record_reduce,
  job_record_download, job_finish, job_own_command
};

/* ---- small helpers ------------------------------------------------------ */


gboolean
gpufft_size_is_valid (guint n)
{
  return n >= GPUFFT_MIN_SIZE && n <= GPUFFT_MAX_SIZE && n % 2 == 0;
}

void
gpufft_plan_config_init (GpufftPlanConfig * config)
{
  memset (config, 0, sizeof (*config));
  config->fft_size = 1024;
  config->hop = 512;
  config->window = GPUFFT_WINDOW_HANN;
  config->format = GPUFFT_FORMAT_F32;
  config->channels = 1;
  config->downmix = TRUE;
  config->scaling = GPUFFT_SCALING_SPECTRUM;
  config->rate = 48000.0;
  config->n_peaks = 1;
}

static guint
ilog2 (guint64 v)
{
  guint r = 0;
  while (v > 1) {
    v >>= 1;
    r++;
  }
  return r;
}


static gboolean
check_config (const GpufftPlanConfig * c, GError ** error)
{
  if (!gpufft_size_is_valid (c->fft_size))
    return gpufft_error_invalid (error,
        "FFT size %u is not supported: use an even size from %u to %u",
        c->fft_size, GPUFFT_MIN_SIZE, GPUFFT_MAX_SIZE);
  if (c->hop == 0)
    return gpufft_error_invalid (error, "hop must be at least 1 sample");
  if (c->channels == 0 || c->channels > GPUFFT_MAX_CHANNELS)
    return gpufft_error_invalid (error,
        "%u channels: between 1 and %u are supported", c->channels,
        GPUFFT_MAX_CHANNELS);
  if (gpufft_format_bytes (c->format) == 0)
    return gpufft_error_invalid (error, "unknown sample format %d", c->format);
  if (!gpufft_window_scipy_name (c->window))
    return gpufft_error_invalid (error, "unknown window %d", c->window);
  if (c->scaling != GPUFFT_SCALING_SPECTRUM
      && c->scaling != GPUFFT_SCALING_DENSITY
      && c->scaling != GPUFFT_SCALING_RAW)
    return gpufft_error_invalid (error, "unknown scaling %d", c->scaling);
  if (!(c->rate > 0.0) || !isfinite (c->rate))
    return gpufft_error_invalid (error, "sample rate must be positive");
  if (c->n_peaks > GPUFFT_MAX_PEAKS)
    return gpufft_error_invalid (error, "%u peaks requested, at most %u",
        c->n_peaks, GPUFFT_MAX_PEAKS);
  return gpufft_plan_analysis_check (c, error);
}

/* The window and twiddles (shared by the context's plans) and the
 * scaling of |X|^2, from the window's sums in double. */
static gboolean
fill_constants (GpufftPlan * plan, GError ** error)
{
  guint n = plan->cfg.fft_size, i;
  gdouble *w = g_new (gdouble, n);
  gdouble sum = 0.0, sum2 = 0.0;

  gpufft_window_fill (plan->cfg.window, n, w);
  for (i = 0; i < n; i++) {
    sum += w[i];
    sum2 += w[i] * w[i];
  }
  g_free (w);
  /* (the kernels double every bin but 0 and N/2, which they multiply by
   * edge: raw |X|^2 halves the scale and doubles those two) */
  plan->edge = 1.0f;
  if (plan->cfg.scaling == GPUFFT_SCALING_SPECTRUM)
    plan->scale = (gfloat) (1.0 / (sum * sum));
  else if (plan->cfg.scaling == GPUFFT_SCALING_DENSITY)
    plan->scale = (gfloat) (1.0 / (plan->cfg.rate * sum2));
  else {
    plan->scale = 0.5f;
    plan->edge = 2.0f;
  }

  plan->window = gpufft_cache_window (plan->ctx, plan->cfg.window, n, error);
  if (plan->window)
    plan->twiddles = gpufft_cache_twiddles (plan->ctx, n, error);
  return plan->twiddles != NULL;
}

/* Gives the context's cache back the plan's references to its shared
 * objects (with the plan's own Vulkan objects: no work of the plan uses
 * them any more). */
static void
release_shared (GpufftPlan * plan)
{
  gpufft_cache_release (plan->ctx, plan->fft);
  gpufft_cache_release (plan->ctx, plan->reduce);
  gpufft_cache_release (plan->ctx, plan->rows);
  gpufft_cache_release (plan->ctx, plan->window);
  gpufft_cache_release (plan->ctx, plan->twiddles);
  gpufft_cache_release (plan->ctx, plan->twiddles_l);
  gpufft_cache_release (plan->ctx, plan->chirp);
}

/* ---- plan creation ------------------------------------------------------ */

/* What the configuration alone decides: the geometry, the resolved peak
 * range, the analysis stage's rows. */
static void
setup_geometry (GpufftPlan * plan, const GpufftPlanConfig * config)
{
  plan->cfg = *config;
  plan->m = config->fft_size / 2;
  plan->log2_m = ilog2 (plan->m);       /* (power-of-two sizes) */
  plan->nb = plan->m + 1;
  plan->out_ch = config->downmix ? 1 : config->channels;
  plan->bps = gpufft_format_bytes (config->format);
  plan->n_peaks = config->n_peaks;
  if (plan->cfg.peak_max_bin == 0 || plan->cfg.peak_max_bin > plan->m)
    plan->cfg.peak_max_bin = plan->m;
  gpufft_plan_analysis_setup (plan);
}

static gboolean
make_reduce (GpufftPlan * plan, guint max_t, GError ** error)
{
  /* Large spectra: more threads per (group, channel) for the reduction. */
  guint red_t = plan->nb > 8192 ? 4 * REDUCE_T : REDUCE_T;
  guint32 red_spec[8];

  /* A CPU device runs a workgroup's invocations as SIMD lanes, a few
   * subgroups at a time, switching between them at every barrier: with
   * 32 invocations instead of 256 the reduce kernel costs a quarter of the
   * shader time it took on lavapipe (8 live stereo streams, fft 1024:
   * from 20 % of it to 5 %; 8 cost the same as 32). Large spectra keep
   * theirs: with 8 or 16 invocations lavapipe returned wrong sums for the
   * four-step sizes (tests/engine/test-power.c four-step; not understood). */
  if (gpufft_context_is_cpu (plan->ctx) && plan->nb <= 8192)
    red_t = 32;
  while (red_t > max_t)
    red_t /= 2;
  red_spec[0] = plan->m;
  red_spec[1] = red_t;
  red_spec[2] = plan->cfg.averaging;
  red_spec[3] = plan->n_bands;
  red_spec[4] = plan->cfg.frames_out ? 1 : 0;
  red_spec[5] = plan->cfg.bin_gain ? 1 : 0;
  red_spec[6] = plan->has_level ? 1 : 0;
  red_spec[7] = plan->cfg.phase_mean ? 1 : 0;
  plan->reduce = gpufft_cache_pipeline (plan->ctx, reduce_spv,
      sizeof (reduce_spv), 12, NULL, sizeof (ReduceParams), red_spec, 8, error);
  return plan->reduce != NULL;
}

static gboolean
make_pipelines (GpufftPlan * plan, GError ** error)
{
  const VkPhysicalDeviceLimits *lim = &plan->ctx->props.limits;
  guint max_t = MIN (lim->maxComputeWorkGroupInvocations,
      lim->maxComputeWorkGroupSize[0]);
  /* Shared floats for the exchange, less room for the kernel's flags. */
  guint shared_floats =
      (lim->maxComputeSharedMemorySize - 64) / sizeof (gfloat);
  guint log2_sh = MIN (ilog2 (shared_floats), 16);
  guint t, fpw = 1, lane_floats, pad, vec2;
  guint log2_fft, rows_t = ROWS_T;
  guint32 fft_spec[11], rows_spec[4];
  const guint32 *spv;
  gsize spv_size;
  GpufftPlanShape shape;

  gpufft_plan_size_shape (&shape);
  plan->chunk_max = shape.chunk;
  plan->slice_bytes = (guint64) shape.slice_mib << 20;
  if (plan->any)
    return gpufft_plan_any_pipeline (plan, error)
        && make_reduce (plan, max_t, error);
  if (gpufft_plan_cpu_wanted (plan))
    return gpufft_plan_cpu_pipeline (plan, error)
        && make_reduce (plan, max_t, error);

  /* The single fused kernel holds a frame in one workgroup: shape.e
   * elements per thread and the whole frame in shared memory. Beyond that,
   * four-step. */
  plan->four_step = plan->m / shape.e > max_t || plan->m > shared_floats;
  log2_fft = plan->log2_m;
  if (plan->four_step) {
    plan->log2_q = MIN (FOUR_STEP_LOG2_Q, log2_sh);
    plan->cols = plan->log2_q < plan->log2_m ?
        1u << (plan->log2_m - plan->log2_q) : 0;
    if (plan->cols == 0 || plan->cols > 8) {
      g_set_error (error, GPUFFT_ERROR, GPUFFT_ERROR_UNSUPPORTED,
          "FFT size %u is too large for this device's %u bytes of shared "
          "memory", plan->cfg.fft_size, lim->maxComputeSharedMemorySize);
      return FALSE;
    }
    log2_fft = plan->log2_q;
  }
  t = MAX (1, (1u << log2_fft) / shape.e);
  if (log2_fft < 4 || t > max_t || log2_sh < 8) {
    g_set_error (error, GPUFFT_ERROR, GPUFFT_ERROR_UNSUPPORTED,
        "FFT size %u needs workgroups of %u invocations and 1 KiB of shared "
        "memory; this device allows %u and %u bytes", plan->cfg.fft_size, t,
        max_t, lim->maxComputeSharedMemorySize);
    return FALSE;
  }
  /* Small FFTs: several lanes (concurrent chunks) per workgroup, until a
   * lane fills a warp (LANE_THREADS; tests/bench/README.md). */
  lane_floats = 1u << log2_fft;
  /* Pad the exchange buffer (against bank conflicts) where it still fits. */
  pad = lane_floats + lane_floats / 8 <= shared_floats && shape.pad != 0;
  if (pad)
    lane_floats += lane_floats / 8;
  /* Whole complex values per exchange when all of it fits twice over. */
  vec2 = 2 * lane_floats <= shared_floats && shape.vec2 != 0;
  if (vec2)
    lane_floats *= 2;
  while (!plan->four_step && t * fpw * 2 <= MIN ((guint) shape.lanes, max_t)
      && lane_floats * fpw * 2 <= shared_floats)
    fpw *= 2;
  while (rows_t > max_t)
    rows_t /= 2;
  plan->fpw = fpw;

  fft_spec[0] = log2_fft;
  fft_spec[1] = t * fpw;
  fft_spec[2] = plan->cfg.format;
  fft_spec[3] = plan->cfg.complex_out && !plan->four_step ? 1 : 0;
  fft_spec[4] = fpw;
  fft_spec[5] = pad;
  fft_spec[6] = vec2;
  fft_spec[7] = plan->four_step ? 1 : 0;
  fft_spec[8] = plan->four_step ? plan->log2_m - plan->log2_q : 0;
  fft_spec[9] = vec2 && shape.direct == 1 ? 1 : 0;
  fft_spec[10] = shape.hold == 1 ? 1 : 0;
  spv = shape.e == 8 ? fft_e8_spv : fft_spv;
  spv_size = shape.e == 8 ? sizeof (fft_e8_spv) : sizeof (fft_spv);
  plan->fft = gpufft_cache_pipeline (plan->ctx, spv, spv_size,
      6, NULL, sizeof (FftParams), fft_spec, 11, error);
  if (!plan->fft || !make_reduce (plan, max_t, error))
    return FALSE;
  if (!plan->four_step)
    return TRUE;

  rows_spec[0] = plan->log2_q;
  rows_spec[1] = 0;             /* unused id */
  rows_spec[2] = rows_t;
  rows_spec[3] = plan->cfg.complex_out ? 1 : 0;
  plan->rows_kb = ((1u << plan->log2_q) / 2 + 1 + rows_t - 1) / rows_t;
  spv = plan->cols == 2 ? rows2_spv : plan->cols == 4 ? rows4_spv : rows8_spv;
  spv_size = plan->cols == 2 ? sizeof (rows2_spv) : plan->cols == 4 ?
      sizeof (rows4_spv) : sizeof (rows8_spv);
  plan->rows = gpufft_cache_pipeline (plan->ctx, spv, spv_size, 5, NULL,
      sizeof (RowsParams), rows_spec, 4, error);
  return plan->rows != NULL;
}

static gboolean
make_slot (GpufftPlan * plan, GpufftSlot * s, GError ** error)
{
  GpufftContext *ctx = plan->ctx;
  guint64 row = (guint64) plan->nb * plan->out_ch;
  gsize staging = gpufft_plan_size_input_bytes (plan, plan->max_span);
  GpufftBuffer *fft_bufs[9], *red_bufs[12];
  guint p;

  s->copies = g_array_new (FALSE, FALSE, sizeof (VkBufferCopy));
  s->imports = g_array_new (FALSE, TRUE, sizeof (SlotImport));
  if (!gpufft_buffer_init (&s->staging, ctx, staging, GPUFFT_MEMORY_UPLOAD,
          error)
      || !gpufft_buffer_init (&s->chunks, ctx,
          (gsize) (plan->max_chunks + plan->fpw) * 4 * sizeof (guint32),
          GPUFFT_MEMORY_UPLOAD, error)
      || !gpufft_buffer_init (&s->groups, ctx,
          (gsize) plan->max_groups * GROUP_WORDS * sizeof (guint32),
          GPUFFT_MEMORY_UPLOAD, error)
      || !gpufft_buffer_init (&s->out, ctx,
          plan->max_groups * row * sizeof (gfloat), GPUFFT_MEMORY_READBACK,
          error)
      || !gpufft_buffer_init (&s->counts, ctx,
          (gsize) plan->max_groups * plan->out_ch * sizeof (guint32),
          GPUFFT_MEMORY_READBACK, error)
      || (plan->n_peaks > 0 && !gpufft_buffer_init (&s->peaks, ctx,
              (gsize) plan->max_groups * plan->out_ch * plan->n_peaks * 16,
              GPUFFT_MEMORY_READBACK, error))
      || (plan->cfg.complex_out && !gpufft_buffer_init (&s->cplx, ctx,
              plan->max_groups * row * 2 * sizeof (gfloat),
              GPUFFT_MEMORY_READBACK, error)))
    return FALSE;
  s->plan = plan;
  s->job.funcs = &gpufft_plan_slot_job_funcs;
  s->job.series = &plan->series;
  s->closed_frames = g_new0 (guint, plan->max_groups);
  s->closed_tags = g_new0 (gpointer, plan->max_groups);
  s->cplx_fix = g_new0 (guint, plan->max_groups);
  s->chunk_frames = g_new0 (guint32, 2 * ((gsize) plan->max_chunks +
          plan->fpw));
  if (!gpufft_plan_analysis_slot (plan, s, error))
    return FALSE;

  fft_bufs[0] = &plan->input;
  fft_bufs[1] = plan->window;
  fft_bufs[2] = plan->twiddles;
  if (gpufft_buffer_wants_device_copy (&s->chunks) && !plan->chunks_dev.buffer
      && (!gpufft_buffer_init (&plan->chunks_dev, ctx, s->chunks.size,
              GPUFFT_MEMORY_DEVICE, error)
          || !gpufft_buffer_init (&plan->groups_dev, ctx, s->groups.size,
              GPUFFT_MEMORY_DEVICE, error)))
    return FALSE;
  fft_bufs[3] = plan->chunks_dev.buffer ? &plan->chunks_dev : &s->chunks;
  fft_bufs[4] = &plan->partial;
  fft_bufs[5] = plan->cfg.complex_out ? &plan->cplx_dev : &plan->dummy;
  if (plan->four_step)
    fft_bufs[5] = &plan->temp;
  fft_bufs[6] = plan->scratch.buffer ? &plan->scratch : &plan->dummy;
  fft_bufs[7] = plan->twiddles_l ? plan->twiddles_l : &plan->dummy;
  fft_bufs[8] = plan->chirp ? plan->chirp : &plan->dummy;
  if (plan->cpu)
    gpufft_plan_cpu_fft_buffers (plan, &plan->input, fft_bufs);
  if (!gpufft_descriptor_pool_alloc (&plan->pool, ctx, plan->fft, fft_bufs,
          &s->fft_set, error))
    return FALSE;
  if (plan->four_step) {
    GpufftBuffer *rows_bufs[5] = { &plan->temp, plan->twiddles, fft_bufs[3],
      &plan->partial, plan->cfg.complex_out ? &plan->cplx_dev : &plan->dummy
    };

    if (!gpufft_descriptor_pool_alloc (&plan->pool, ctx, plan->rows,
            rows_bufs, &s->rows_set, error))
      return FALSE;
  }
  for (p = 0; p < 2; p++) {
    red_bufs[0] = &plan->partial;
    red_bufs[1] = &plan->carry[p];
    red_bufs[2] = &plan->carry[1 - p];
    red_bufs[3] = &plan->out_dev;
    red_bufs[4] = plan->n_peaks > 0 ? &plan->peaks_dev : &plan->dummy;
    red_bufs[5] = plan->groups_dev.buffer ? &plan->groups_dev : &s->groups;
    red_bufs[6] = &plan->counts_dev;
    red_bufs[7] = plan->state.buffer ? &plan->state : &plan->dummy;
    red_bufs[8] = plan->tables.buffer ? &plan->tables : &plan->dummy;
    red_bufs[9] = plan->ext_dev.buffer ? &plan->ext_dev : &plan->dummy;
    red_bufs[10] = plan->frames_dev.buffer ? &plan->frames_dev : &plan->dummy;
    red_bufs[11] = plan->cfg.phase_mean ? &plan->cplx_dev : &plan->dummy;
    if (!gpufft_descriptor_pool_alloc (&plan->pool, ctx, plan->reduce,
            red_bufs, &s->reduce_set[p], error))
      return FALSE;
    if (!plan->mergeable)
      continue;
    red_bufs[0] = gpufft_merge_partial (gpufft_scheduler_round_data
        (plan->sched));
    if (!gpufft_descriptor_pool_alloc (&plan->pool, ctx, plan->reduce,
            red_bufs, &s->reduce_merged_set[p], error))
      return FALSE;
  }
  return TRUE;
}

static void device_free (GpufftPlan * plan);

/* The device backend: the plan's slots, run by the context's scheduler. */
static const GpufftPlanOps device_ops = {
  gpufft_plan_device_submit,
  gpufft_plan_device_set_cancel,
  gpufft_plan_device_set_result_func,
  gpufft_plan_device_set_tag_free,
  gpufft_plan_device_collect,
  gpufft_plan_device_in_flight,
  gpufft_plan_device_get_timings,
  gpufft_plan_device_rerun,
  device_free,
};

GpufftPlan *
gpufft_plan_new (GpufftContext * ctx, const GpufftPlanConfig * config,
    GError ** error)
{
  GpufftPlan *plan;
  GpufftScheduler *sched;
  GpufftContextStats stats = { 0 };
  guint64 row_bytes, part_bytes, out_bytes;
  guint i;

  gint64 t0;

  g_return_val_if_fail (ctx != NULL && config != NULL, NULL);
  if (!check_config (config, error))
    return NULL;
  /* Debugging aid: GPUFFT_DEBUG_SLOW_PLAN_MS (environment) makes every
   * plan take at least that long to make, as a cold driver compiler does
   * (tests of callers that must not wait for it; not counted in plan_ns). */
  if (g_getenv ("GPUFFT_DEBUG_SLOW_PLAN_MS"))
    g_usleep ((gulong) MIN (g_ascii_strtoull (g_getenv
                ("GPUFFT_DEBUG_SLOW_PLAN_MS"), NULL, 10), 60000) * 1000);
  t0 = g_get_monotonic_time ();

  sched = gpufft_scheduler_get (ctx, &gpufft_merge_hooks, error);
  if (!sched)
    return NULL;

  plan = g_new0 (GpufftPlan, 1);
  plan->ops = &device_ops;
  plan->ctx = gpufft_context_ref (ctx);
  plan->sched = sched;
  g_queue_init (&plan->stash);
  g_mutex_init (&plan->lock);
  g_cond_init (&plan->cond);
  setup_geometry (plan, config);
  plan->any = gpufft_plan_any_size (config->fft_size)
      || gpufft_plan_cpu_path_requested () == GPUFFT_KERNEL_PATH_ANY;

  if (!make_pipelines (plan, error)
      || !gpufft_plan_size_batch (plan, &ctx->props.limits, error))
    goto fail;
  plan->import_min = config->planar ? 0 : gpufft_import_min_bytes (ctx);
  plan->record_once = g_strcmp0 (g_getenv ("GPUFFT_RECORD_ONCE"), "0") != 0;
  plan->mapped_min = gpufft_plan_mapped_min_bytes ();

  row_bytes = (guint64) plan->nb * plan->out_ch * sizeof (gfloat);
  part_bytes = (guint64) (plan->nb + 1) * plan->out_ch * sizeof (gfloat);
  out_bytes = plan->max_groups * row_bytes;
  if (!gpufft_buffer_init (&plan->input, ctx,
          gpufft_plan_size_input_bytes (plan, plan->max_span),
          GPUFFT_MEMORY_DEVICE, error)
      || (plan->cpu && !gpufft_plan_cpu_input_views (plan, &plan->input, error))
      || !gpufft_buffer_init (&plan->partial, ctx,
          plan->max_chunks * part_bytes, GPUFFT_MEMORY_DEVICE, error)
      || !gpufft_buffer_init (&plan->carry[0], ctx, part_bytes +
          (config->phase_mean ? row_bytes : 0), GPUFFT_MEMORY_DEVICE, error)
      || !gpufft_buffer_init (&plan->carry[1], ctx, part_bytes +
          (config->phase_mean ? row_bytes : 0), GPUFFT_MEMORY_DEVICE, error)
      || !gpufft_buffer_init (&plan->out_dev, ctx, out_bytes,
          GPUFFT_MEMORY_DEVICE, error)
      || !gpufft_buffer_init (&plan->counts_dev, ctx,
          (gsize) plan->max_groups * plan->out_ch * sizeof (guint32),
          GPUFFT_MEMORY_DEVICE, error)
      || (plan->n_peaks > 0 && !gpufft_buffer_init (&plan->peaks_dev, ctx,
              (gsize) plan->max_groups * plan->out_ch * plan->n_peaks * 16,
              GPUFFT_MEMORY_DEVICE, error))
      || (config->complex_out && !gpufft_buffer_init (&plan->cplx_dev, ctx,
              2 * (out_bytes + row_bytes + (config->phase_mean ?
                      plan->max_chunks * row_bytes : 0)),
              GPUFFT_MEMORY_DEVICE, error))
      || !gpufft_buffer_init (&plan->dummy, ctx, 16, GPUFFT_MEMORY_DEVICE,
          error)
      || (plan->four_step && !gpufft_buffer_init (&plan->temp, ctx,
              (gsize) plan->slice_frames * plan->out_ch * plan->m * 2 *
              sizeof (gfloat), GPUFFT_MEMORY_DEVICE, error))
      || !gpufft_descriptor_pool_init (&plan->pool, ctx, 6 * N_SLOTS, 12, error)
      || !fill_constants (plan, error)
      || (plan->any && !gpufft_plan_any_buffers (plan, error))
      || !gpufft_plan_analysis_buffers (plan, error))
    goto fail;

  plan->mergeable = gpufft_scheduler_round_data (sched) != NULL
      && gpufft_merge_plan_ok (plan);
  plan->n_slots = CLAMP (STAGING_BUDGET /
      MAX (gpufft_plan_size_input_bytes (plan, plan->max_span), 1), 2,
      N_SLOTS);
  for (i = 0; i < plan->n_slots; i++)
    if (!make_slot (plan, &plan->slots[i], error))
      goto fail;
  if (!gpufft_command_init (&plan->rerun_cmd, ctx, 3, error))
    goto fail;
  plan->peak_scratch = g_new0 (GpufftPeak, MAX (1,
          plan->out_ch * plan->n_peaks));
  stats.plans = 1;
  stats.plan_ns = (guint64) (g_get_monotonic_time () - t0) * 1000;
  gpufft_context_add_stats (ctx, &stats);
  /* (the pipelines it made, for the next process) */
  gpufft_pipeline_cache_save (ctx);
  g_debug ("plan N=%u: %s kernel, %u frames in %u chunks a batch at most; "
      "made in %.1f ms (and %.1f ms saving the driver's cache file)",
      config->fft_size,
      plan->cpu ? "CPU devices'" : plan->any ? "generic-size" : plan->
      four_step ? "four-step" : "fused", plan->max_frames, plan->max_chunks,
      stats.plan_ns / 1e6,
      (g_get_monotonic_time () - t0) / 1e3 - stats.plan_ns / 1e6);
  gpufft_plan_cpu_start_upgrade (plan);
  return plan;

fail:
  gpufft_plan_free (plan);
  return NULL;
}

/* A host plan's limits: none but those of 32-bit sizes, so that its batch
 * limits are those of a device plan on a device that has no smaller ones
 * (automatic: the frames of AUTO_SPAN_BYTES of samples, the groups of
 * AUTO_RESULT_BYTES of results, the rows of the per-frame modes within
 * their budgets). */
static const VkPhysicalDeviceLimits host_limits = {
  .maxStorageBufferRange = G_MAXUINT32,
  .maxTexelBufferElements = G_MAXUINT32,
  .maxComputeWorkGroupCount = {G_MAXUINT32, G_MAXUINT32, G_MAXUINT32},
};

GpufftPlan *
gpufft_plan_new_host (const GpufftPlanConfig * config, GError ** error)
{
  GpufftPlan *plan;

  g_return_val_if_fail (config != NULL, NULL);
  if (!check_config (config, error))
    return NULL;
  plan = g_new0 (GpufftPlan, 1);
  setup_geometry (plan, config);
  if (!gpufft_plan_size_batch (plan, &host_limits, error)
      || !gpufft_plan_host_init (plan, error)) {
    g_free (plan);
    return NULL;
  }
  return plan;
}

gboolean
gpufft_plan_is_host (GpufftPlan * plan)
{
  g_return_val_if_fail (plan != NULL, FALSE);
  return plan->ops == &gpufft_plan_host_ops;
}

/* Frees what the plan holds (nothing in flight). */
static void
plan_destroy (GpufftPlan * plan)
{
  GpufftContext *ctx = plan->ctx;
  GpufftContextStats stats = { 0 };
  guint i;

  for (i = 0; i < N_SLOTS; i++) {
    GpufftSlot *s = &plan->slots[i];

    if (s->imports)
      gpufft_plan_release_imports (plan, s);
    g_clear_pointer (&s->imports, g_array_unref);
    gpufft_command_clear (&s->own, ctx);
    g_clear_pointer (&s->own_sig, g_byte_array_unref);
    g_clear_pointer (&s->next_sig, g_byte_array_unref);
    g_clear_pointer (&s->copies, g_array_unref);
    gpufft_buffer_clear (&s->staging, ctx);
    gpufft_buffer_clear (&s->chunks, ctx);
    gpufft_buffer_clear (&s->groups, ctx);
    gpufft_buffer_clear (&s->out, ctx);
    gpufft_buffer_clear (&s->counts, ctx);
    gpufft_buffer_clear (&s->peaks, ctx);
    gpufft_buffer_clear (&s->cplx, ctx);
    g_free (s->closed_frames);
    g_free (s->closed_tags);
    g_free (s->cplx_fix);
    g_free (s->chunk_frames);
    gpufft_plan_analysis_slot_clear (plan, s);
  }
  gpufft_plan_analysis_clear (plan);
  gpufft_plan_cpu_free (plan);
  gpufft_command_clear (&plan->rerun_cmd, ctx);
  gpufft_descriptor_pool_clear (&plan->pool, ctx);
  gpufft_buffer_clear (&plan->temp, ctx);
  gpufft_buffer_clear (&plan->scratch, ctx);
  gpufft_buffer_clear (&plan->input, ctx);
  gpufft_buffer_clear (&plan->partial, ctx);
  gpufft_buffer_clear (&plan->chunks_dev, ctx);
  gpufft_buffer_clear (&plan->groups_dev, ctx);
  gpufft_buffer_clear (&plan->carry[0], ctx);
  gpufft_buffer_clear (&plan->carry[1], ctx);
  gpufft_buffer_clear (&plan->dummy, ctx);
  gpufft_buffer_clear (&plan->out_dev, ctx);
  gpufft_buffer_clear (&plan->counts_dev, ctx);
  gpufft_buffer_clear (&plan->peaks_dev, ctx);
  gpufft_buffer_clear (&plan->cplx_dev, ctx);
  release_shared (plan);
  gpufft_plan_stash_clear (plan);
  g_clear_error (&plan->error);
  g_mutex_clear (&plan->lock);
  g_cond_clear (&plan->cond);
  g_free (plan->peak_scratch);
  stats.plans_freed = 1;
  gpufft_context_add_stats (ctx, &stats);
  gpufft_context_unref (ctx);
  g_free (plan);
}

/* A thread of the engine's (gpufft_context_reap: counted by
 * gpufft_wait_released): waits for the abandoned plan's batches, which the
 * scheduler finishes at the latest at their stall deadline, then frees
 * it. */
static gpointer
plan_release_thread (gpointer data)
{
  GpufftPlan *plan = data;

  g_mutex_lock (&plan->lock);
  while (plan->n_busy > 0)
    g_cond_wait (&plan->cond, &plan->lock);
  g_mutex_unlock (&plan->lock);
  plan_destroy (plan);
  return NULL;
}

void
gpufft_plan_free (GpufftPlan * plan)
{
  if (plan)
    plan->ops->free (plan);
}

static void
device_free (GpufftPlan * plan)
{
  gboolean worker, busy;

  /* No result reaches the result function from here on. A result function,
   * or a synchronous bus handler it posted to (an application that stops
   * its pipeline on a message), may be freeing the plan during its own
   * delivery: an engine worker does not wait for deliveries (it may be the
   * one delivering); any other thread waits for the ones under way (the
   * result function's time: not the device's). */
  worker = gpufft_context_in_worker ();
  g_mutex_lock (&plan->lock);
  plan->func = NULL;
  plan->func_data = NULL;
  plan->cancel = NULL;
  g_atomic_int_set (&plan->doomed, TRUE);
  while (!worker && plan->delivering > 0)
    g_cond_wait (&plan->cond, &plan->lock);
  busy = plan->n_busy > 0;
  g_mutex_unlock (&plan->lock);
  if (!worker && !busy) {
    plan_destroy (plan);
    return;
  }
  /* Batches in flight (or this thread cannot wait for itself): abandoned
   * to a thread of the engine's, which frees the plan once the scheduler
   * has finished them (done, failed, or at their stall deadline). */
  if (!gpufft_context_reap ("gpufft-free", plan_release_thread, plan))
    g_warning ("gpufft: no thread to free a plan with work in flight: the "
        "plan is leaked");
}

const GpufftPlanConfig *
gpufft_plan_get_config (GpufftPlan * plan)
{
  return &plan->cfg;
}

guint
gpufft_plan_get_max_frames (GpufftPlan * plan)
{
  return plan->max_frames;
}

guint
gpufft_plan_get_max_groups (GpufftPlan * plan)
{
  return plan->max_groups;
}

guint
gpufft_plan_get_n_bins (GpufftPlan * plan)
{
  return plan->nb;
}

gsize
gpufft_plan_get_import_min_bytes (GpufftPlan * plan)
{
  return plan->import_min;
}

guint
gpufft_plan_get_out_channels (GpufftPlan * plan)
{
  return plan->out_ch;
}

gsize
gpufft_plan_get_max_span (GpufftPlan * plan)
{
  return plan->max_span;
}

guint
gpufft_plan_get_n_slots (GpufftPlan * plan)
{
  return plan->n_slots;
}

GpufftKernels
gpufft_plan_get_kernels (GpufftPlan * plan)
{
  /* (a host plan runs no kernel: GPU, see gpufft_plan_new_host()) */
  return plan->cpu ? GPUFFT_KERNELS_CPU : GPUFFT_KERNELS_GPU;
}
