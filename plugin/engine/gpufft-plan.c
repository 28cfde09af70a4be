/* A plan: all GPU objects for one analysis geometry, allocated once, and
 * the batch path (copy into a staging slot, record, submit, collect).
 *
 * Per batch the GPU runs:
 *   copy staging -> input            (transfer; skipped by rerun)
 *   fft.comp    chunks x channels    window + real FFT + power + chunk sum
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

#include "gpufft.h"
#include "gpufft-buffer.h"
#include "gpufft-command.h"
#include "gpufft-pipeline.h"
#include "gpufft-vk-error.h"


#define N_SLOTS 3
#define AUTO_SPAN_BYTES (16u << 20)     /* staging per slot, automatic */
#define AUTO_RESULT_BYTES (16u << 20)   /* power results per slot, automatic */
#define PARTIAL_BYTES (64u << 20)       /* partial sums budget */
#define FRAMES_PER_CHUNK 8      /* frames summed in registers before a write */
#define LANE_THREADS 32         /* small FFTs: lanes per workgroup up to a warp */
#define GROUP_WORDS 8
#define CPLX_ZERO 0x80000000u
#define SPIN_BYTES (256u << 10)  /* batches up to this are waited for by polling */
#define SPIN_US 500
#define REDUCE_T 256
#define FFT_E 16                /* complex elements per thread (fft.comp) */
#define ROWS_T 64               /* four-step second kernel */
#define FOUR_STEP_LOG2_Q 12     /* four-step column FFT size Q = 4096 */
#define TEMP_BYTES (32u << 20)  /* four-step slice: about what L2 holds */

enum
{ Q_START, Q_UPLOADED, Q_COMPUTED, Q_DONE, N_QUERIES };

typedef struct
{
  guint32 sstride, cstride, in_channels, hop, downmix, out_channels;
  gfloat scale, inv_channels;
  guint32 frame_base;           /* four-step: first frame of the slice */
} FftParams;

typedef struct
{
  guint32 out_channels;
  gfloat scale;
  guint32 chunk_base, frame_base;
} RowsParams;

typedef struct
{
  guint32 out_channels, peak_lo, peak_hi, n_peaks, output_db;
  gfloat db_offset, db_floor;
} ReduceParams;

typedef struct
{
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
  GpufftCommand cmd;
  VkDescriptorSet fft_set;
  VkDescriptorSet rows_set;     /* four-step only */
  VkDescriptorSet reduce_set[2];        /* by carry parity */

  /* What the last recording of this slot did (for collect and rerun). */
  gboolean busy;                /* submitted, results not yet collected */
  gsize upload_bytes;
  guint n_chunks, n_groups, carry_read;
  FftParams fft_params;
  ReduceParams reduce_params;
  guint n_closed;
  guint *closed_frames;         /* [max_groups] */
  /* complex_out: closed groups whose last frame came in an earlier batch
   * (copy the carry row into their row) or that had no frame (zeros). */
  guint *cplx_fix;              /* [max_groups]: slot | CPLX_ZERO */
  guint n_cplx_fix;
  guint64 first_index;          /* group_index of the first closed group */
} Slot;

struct _GpufftPlan
{
  GpufftContext *ctx;
  GpufftPlanConfig cfg;

  guint log2_m, m, nb, out_ch, bps, fpw;
  /* Four-step (large N): M = cols x 2^log2_q, the column FFTs by `fft`
   * (MODE 1) into `temp`, slice after slice of at most slice_frames
   * frames, then `rows`. */
  gboolean four_step;
  guint log2_q, cols, rows_kb, slice_frames;
  GpufftPipeline rows;
  GpufftBuffer temp;
  guint max_frames, max_groups, max_chunks, n_peaks;
  gsize max_span;
  gfloat scale;

  GpufftBuffer input, window, twiddles, partial, carry[2], dummy;
  GpufftBuffer out_dev, counts_dev, peaks_dev, cplx_dev;       /* results */
  GpufftPipeline fft, reduce;
  GpufftDescriptorPool pool;
  Slot slots[N_SLOTS];
  guint next;                   /* slot of the next submission */
  guint oldest;                 /* oldest busy slot */
  guint n_busy;

  /* Open group (spanning batches). */
  gboolean open;
  guint open_frames;
  guint carry_read;
  guint64 next_group_index;

  /* Results of slots waited for by submit, not yet collected. */
  GQueue stash;
  guint n_stashed;              /* batches whose results are in the stash */

  GpufftPeak *peak_scratch;     /* [out_ch][n_peaks] */
  GpufftCommand rerun_cmd;
  GpufftTimings timings;
};

/* An owned copy of one group result. */
typedef struct
{
  GpufftGroupResult r;
  gfloat *power;
  guint *channel_frames;
  gfloat *complex_data;
  GpufftPeak *peaks;
} StashedResult;

static const guint32 fft_spv[] =
#include "fft.spv.h"
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

/* ---- small helpers ------------------------------------------------------ */

guint
gpufft_format_bytes (GpufftFormat format)
{
  switch (format) {
    case GPUFFT_FORMAT_S16:
      return 2;
    case GPUFFT_FORMAT_S24:
      return 3;
    case GPUFFT_FORMAT_S32:
    case GPUFFT_FORMAT_F32:
      return 4;
    case GPUFFT_FORMAT_F64:
      return 8;
  }
  return 0;
}

gboolean
gpufft_size_is_valid (guint n)
{
  return n >= GPUFFT_MIN_SIZE && n <= GPUFFT_MAX_SIZE && (n & (n - 1)) == 0;
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
invalid (GError ** error, const gchar * fmt, ...) G_GNUC_PRINTF (2, 3);

static gboolean
invalid (GError ** error, const gchar * fmt, ...)
{
  va_list args;
  gchar *msg;

  va_start (args, fmt);
  msg = g_strdup_vprintf (fmt, args);
  va_end (args);
  g_set_error_literal (error, GPUFFT_ERROR, GPUFFT_ERROR_INVALID_ARGUMENT,
      msg);
  g_free (msg);
  return FALSE;
}

static gboolean
check_config (const GpufftPlanConfig * c, GError ** error)
{
  if (!gpufft_size_is_valid (c->fft_size))
    return invalid (error, "FFT size %u is not supported: use a power of two "
        "from %u to %u", c->fft_size, GPUFFT_MIN_SIZE, GPUFFT_MAX_SIZE);
  if (c->hop == 0)
    return invalid (error, "hop must be at least 1 sample");
  if (c->channels == 0 || c->channels > GPUFFT_MAX_CHANNELS)
    return invalid (error, "%u channels: between 1 and %u are supported",
        c->channels, GPUFFT_MAX_CHANNELS);
  if (gpufft_format_bytes (c->format) == 0)
    return invalid (error, "unknown sample format %d", c->format);
  if (!gpufft_window_scipy_name (c->window))
    return invalid (error, "unknown window %d", c->window);
  if (c->scaling != GPUFFT_SCALING_SPECTRUM
      && c->scaling != GPUFFT_SCALING_DENSITY)
    return invalid (error, "unknown scaling %d", c->scaling);
  if (!(c->rate > 0.0) || !isfinite (c->rate))
    return invalid (error, "sample rate must be positive");
  if (c->n_peaks > GPUFFT_MAX_PEAKS)
    return invalid (error, "%u peaks requested, at most %u", c->n_peaks,
        GPUFFT_MAX_PEAKS);
  return TRUE;
}

/* Fills a device buffer with host data (through a temporary staging buffer
 * when the device memory is not mapped). */
static gboolean
upload_now (GpufftPlan * plan, GpufftBuffer * dst, gconstpointer data,
    gsize size, GError ** error)
{
  GpufftBuffer tmp = { 0 };
  GpufftCommand cmd = { 0 };
  VkBufferCopy region = { 0, 0, size };
  gboolean ok = FALSE;

  if (dst->mapped) {
    memcpy (dst->mapped, data, size);
    return gpufft_buffer_flush (dst, plan->ctx, error);
  }
  if (!gpufft_buffer_init (&tmp, plan->ctx, size, GPUFFT_MEMORY_UPLOAD, error))
    return FALSE;
  memcpy (tmp.mapped, data, size);
  if (gpufft_buffer_flush (&tmp, plan->ctx, error)
      && gpufft_command_init (&cmd, plan->ctx, 0, error)
      && gpufft_command_begin (&cmd, plan->ctx, error)) {
    vkCmdCopyBuffer (cmd.cmd, tmp.buffer, dst->buffer, 1, &region);
    gpufft_command_barrier (&cmd);
    ok = gpufft_command_submit (&cmd, plan->ctx, error)
        && gpufft_command_wait (&cmd, plan->ctx, G_MAXUINT64, error);
  }
  gpufft_command_clear (&cmd, plan->ctx);
  gpufft_buffer_clear (&tmp, plan->ctx);
  return ok;
}

static gboolean
fill_constants (GpufftPlan * plan, GError ** error)
{
  guint n = plan->cfg.fft_size, i;
  gdouble *w = g_new (gdouble, n);
  gfloat *wf = g_new (gfloat, n);
  gfloat *tw = g_new (gfloat, 2 * n);
  gdouble sum = 0.0, sum2 = 0.0;
  gboolean ok;

  gpufft_window_fill (plan->cfg.window, n, w);
  for (i = 0; i < n; i++) {
    wf[i] = (gfloat) w[i];
    sum += w[i];
    sum2 += w[i] * w[i];
    /* e^{-2 pi i m / N}, the angle from the integer phase. */
    tw[2 * i] = (gfloat) cos (2.0 * G_PI * i / n);
    tw[2 * i + 1] = (gfloat) - sin (2.0 * G_PI * i / n);
  }
  if (plan->cfg.scaling == GPUFFT_SCALING_SPECTRUM)
    plan->scale = (gfloat) (1.0 / (sum * sum));
  else
    plan->scale = (gfloat) (1.0 / (plan->cfg.rate * sum2));

  ok = upload_now (plan, &plan->window, wf, n * sizeof (gfloat), error)
      && upload_now (plan, &plan->twiddles, tw, 2 * n * sizeof (gfloat),
      error);
  g_free (w);
  g_free (wf);
  g_free (tw);
  return ok;
}

/* ---- plan creation ------------------------------------------------------ */

static gboolean
size_plan (GpufftPlan * plan, GError ** error)
{
  const VkPhysicalDeviceLimits *lim = &plan->ctx->props.limits;
  const GpufftPlanConfig *c = &plan->cfg;
  guint64 range = lim->maxStorageBufferRange;
  guint64 sample_bytes = (guint64) c->channels * plan->bps;
  guint64 row = (guint64) plan->nb * sizeof (gfloat);
  guint64 frames, groups, chunks, span, group_bytes;

  /* Frames per batch: as asked, or what fits the automatic staging size. */
  frames = c->max_frames;
  if (frames == 0) {
    guint64 samples = AUTO_SPAN_BYTES / sample_bytes;
    frames = samples > c->fft_size ? (samples - c->fft_size) / c->hop + 1 : 1;
  }
  /* The input must fit one storage-buffer binding (and 32-bit indices). */
  for (;;) {
    span = (frames - 1) * c->hop + c->fft_size;
    if (span * sample_bytes + 16 <= MIN (range, G_MAXUINT32) || frames == 1)
      break;
    frames = MAX (1, frames / 2);
  }
  if (span * sample_bytes + 16 > MIN (range, G_MAXUINT32)) {
    g_set_error (error, GPUFFT_ERROR, GPUFFT_ERROR_UNSUPPORTED,
        "one frame of %u samples x %u channels does not fit the device's "
        "largest storage buffer (%" G_GUINT64_FORMAT " bytes)",
        c->fft_size, c->channels, range);
    return FALSE;
  }

  /* The largest per-group result buffer: power, complex or peaks. */
  group_bytes = plan->out_ch * MAX (MAX (row, c->complex_out ? 2 * row : 0),
      (guint64) plan->n_peaks * 16);
  groups = c->max_groups;
  if (groups == 0)
    groups = CLAMP (AUTO_RESULT_BYTES / (row * plan->out_ch), 2, 64);
  groups = MIN (groups, frames + 1);
  groups = MAX (groups, 1);
  /* (complex output keeps one more group row: the carry of the open
   * group's last frame) */
  if ((groups + (c->complex_out ? 1 : 0)) * group_bytes > range) {
    guint64 fit = range / group_bytes, extra = c->complex_out ? 1 : 0;

    groups = fit > extra ? fit - extra : 0;
    if (groups == 0) {
      g_set_error (error, GPUFFT_ERROR, GPUFFT_ERROR_UNSUPPORTED,
          "%u output channels of %u bins do not fit the device's largest "
          "storage buffer", plan->out_ch, plan->nb);
      return FALSE;
    }
  }

  /* Partial rows hold nb sums and a frame count. */
  chunks = MIN (frames + groups, MAX (PARTIAL_BYTES / ((row + 4) *
              plan->out_ch), groups));
  if (plan->four_step)          /* see below: room for one chunk beyond */
    chunks = MAX (chunks, MIN (frames + groups, groups + 1));
  chunks = MIN (chunks, range / ((row + 4) * plan->out_ch));
  chunks = MIN (chunks, lim->maxComputeWorkGroupCount[0]);
  if (chunks < groups || plan->out_ch > lim->maxComputeWorkGroupCount[1]
      || groups > lim->maxComputeWorkGroupCount[0]) {
    g_set_error (error, GPUFFT_ERROR, GPUFFT_ERROR_UNSUPPORTED,
        "%u output channels of %u bins exceed this device's limits",
        plan->out_ch, plan->nb);
    return FALSE;
  }

  if (plan->four_step) {
    guint64 per_frame = (guint64) plan->out_ch * plan->m * 2 * sizeof (gfloat);

    plan->slice_frames = CLAMP (TEMP_BYTES / per_frame, 1, frames);
    if (plan->slice_frames * per_frame > range) {
      g_set_error (error, GPUFFT_ERROR, GPUFFT_ERROR_UNSUPPORTED,
          "%u channels of FFT size %u exceed the device's largest storage "
          "buffer", plan->out_ch, c->fft_size);
      return FALSE;
    }
    /* A chunk must fit a slice: the chunk rows must then hold every frame
     * of a batch at slice_frames frames a chunk (write_tables). */
    if (chunks <= groups) {
      g_set_error (error, GPUFFT_ERROR, GPUFFT_ERROR_UNSUPPORTED,
          "%u output channels of %u bins exceed the device's largest "
          "storage buffer", plan->out_ch, plan->nb);
      return FALSE;
    }
    frames = MIN (frames, (chunks - groups) * plan->slice_frames);
    plan->slice_frames = MIN (plan->slice_frames, frames);
    span = (frames - 1) * c->hop + c->fft_size;
  }

  plan->max_frames = frames;
  plan->max_groups = groups;
  plan->max_chunks = chunks;
  plan->max_span = span;
  return TRUE;
}

static gboolean
make_pipelines (GpufftPlan * plan, GError ** error)
{
  const VkPhysicalDeviceLimits *lim = &plan->ctx->props.limits;
  guint max_t = MIN (lim->maxComputeWorkGroupInvocations,
      lim->maxComputeWorkGroupSize[0]);
  /* Shared floats for the exchange, less room for the kernel's flags. */
  guint shared_floats = (lim->maxComputeSharedMemorySize - 64) / sizeof (gfloat);
  guint log2_sh = MIN (ilog2 (shared_floats), 16);
  guint t, fpw = 1, lane_floats, pad, vec2;
  /* Large spectra: more threads per (group, channel) for the reduction. */
  guint red_t = plan->nb > 8192 ? 4 * REDUCE_T : REDUCE_T;
  guint log2_fft, rows_t = ROWS_T;
  guint32 fft_spec[9], red_spec[2], rows_spec[4];
  const guint32 *spv;
  gsize spv_size;

  /* The single fused kernel holds a frame in one workgroup: FFT_E elements
   * per thread and the whole frame in shared memory. Beyond that,
   * four-step. */
  plan->four_step = plan->m / FFT_E > max_t || plan->m > shared_floats;
  log2_fft = plan->log2_m;
  if (plan->four_step) {
    plan->log2_q = MIN (FOUR_STEP_LOG2_Q, log2_sh);
    plan->cols = 1u << (plan->log2_m - plan->log2_q);
    if (plan->cols > 8) {
      g_set_error (error, GPUFFT_ERROR, GPUFFT_ERROR_UNSUPPORTED,
          "FFT size %u is too large for this device's %u bytes of shared "
          "memory", plan->cfg.fft_size, lim->maxComputeSharedMemorySize);
      return FALSE;
    }
    log2_fft = plan->log2_q;
  }
  t = MAX (1, (1u << log2_fft) / FFT_E);
  if (log2_fft < 4 || t > max_t || log2_sh < 8) {
    g_set_error (error, GPUFFT_ERROR, GPUFFT_ERROR_UNSUPPORTED,
        "FFT size %u needs workgroups of %u invocations and 1 KiB of shared "
        "memory; this device allows %u and %u bytes", plan->cfg.fft_size, t,
        max_t, lim->maxComputeSharedMemorySize);
    return FALSE;
  }
  /* Small FFTs: several lanes (concurrent chunks) per workgroup, until a
   * lane fills a warp (more measured slower on the H200). */
  lane_floats = 1u << log2_fft;
  /* Pad the exchange buffer (against bank conflicts) where it still fits. */
  pad = lane_floats + lane_floats / 8 <= shared_floats;
  if (pad)
    lane_floats += lane_floats / 8;
  /* Whole complex values per exchange when all of it fits twice over. */
  vec2 = 2 * lane_floats <= shared_floats;
  if (vec2)
    lane_floats *= 2;
  while (!plan->four_step && t * fpw * 2 <= MIN (LANE_THREADS, max_t)
      && lane_floats * fpw * 2 <= shared_floats)
    fpw *= 2;
  while (red_t > max_t)
    red_t /= 2;
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
  red_spec[0] = plan->log2_m;
  red_spec[1] = red_t;
  if (!gpufft_pipeline_init (&plan->fft, plan->ctx, fft_spv,
          sizeof (fft_spv), 6, sizeof (FftParams), fft_spec, 9, error)
      || !gpufft_pipeline_init (&plan->reduce, plan->ctx, reduce_spv,
          sizeof (reduce_spv), 7, sizeof (ReduceParams), red_spec, 2, error))
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
  return gpufft_pipeline_init (&plan->rows, plan->ctx, spv, spv_size, 5,
      sizeof (RowsParams), rows_spec, 4, error);
}

static gboolean
make_slot (GpufftPlan * plan, Slot * s, GError ** error)
{
  GpufftContext *ctx = plan->ctx;
  guint64 row = (guint64) plan->nb * plan->out_ch;
  gsize staging = plan->max_span * plan->cfg.channels * plan->bps + 16;
  GpufftBuffer *fft_bufs[6], *red_bufs[7];
  guint p;

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
              GPUFFT_MEMORY_READBACK, error))
      || !gpufft_command_init (&s->cmd, ctx, N_QUERIES, error))
    return FALSE;
  s->closed_frames = g_new0 (guint, plan->max_groups);
  s->cplx_fix = g_new0 (guint, plan->max_groups);
  s->chunk_frames = g_new0 (guint32, 2 * ((gsize) plan->max_chunks +
          plan->fpw));

  fft_bufs[0] = &plan->input;
  fft_bufs[1] = &plan->window;
  fft_bufs[2] = &plan->twiddles;
  fft_bufs[3] = &s->chunks;
  fft_bufs[4] = &plan->partial;
  fft_bufs[5] = plan->cfg.complex_out ? &plan->cplx_dev : &plan->dummy;
  if (plan->four_step)
    fft_bufs[5] = &plan->temp;
  if (!gpufft_descriptor_pool_alloc (&plan->pool, ctx, &plan->fft, fft_bufs,
          &s->fft_set, error))
    return FALSE;
  if (plan->four_step) {
    GpufftBuffer *rows_bufs[5] = { &plan->temp, &plan->twiddles, &s->chunks,
      &plan->partial, plan->cfg.complex_out ? &plan->cplx_dev : &plan->dummy
    };

    if (!gpufft_descriptor_pool_alloc (&plan->pool, ctx, &plan->rows,
            rows_bufs, &s->rows_set, error))
      return FALSE;
  }
  for (p = 0; p < 2; p++) {
    red_bufs[0] = &plan->partial;
    red_bufs[1] = &plan->carry[p];
    red_bufs[2] = &plan->carry[1 - p];
    red_bufs[3] = &plan->out_dev;
    red_bufs[4] = plan->n_peaks > 0 ? &plan->peaks_dev : &plan->dummy;
    red_bufs[5] = &s->groups;
    red_bufs[6] = &plan->counts_dev;
    if (!gpufft_descriptor_pool_alloc (&plan->pool, ctx, &plan->reduce,
            red_bufs, &s->reduce_set[p], error))
      return FALSE;
  }
  return TRUE;
}

GpufftPlan *
gpufft_plan_new (GpufftContext * ctx, const GpufftPlanConfig * config,
    GError ** error)
{
  GpufftPlan *plan;
  guint64 row_bytes, part_bytes, out_bytes;
  guint i;

  g_return_val_if_fail (ctx != NULL && config != NULL, NULL);
  if (!check_config (config, error))
    return NULL;

  plan = g_new0 (GpufftPlan, 1);
  plan->ctx = gpufft_context_ref (ctx);
  plan->cfg = *config;
  g_queue_init (&plan->stash);
  plan->m = config->fft_size / 2;
  plan->log2_m = ilog2 (plan->m);
  plan->nb = plan->m + 1;
  plan->out_ch = config->downmix ? 1 : config->channels;
  plan->bps = gpufft_format_bytes (config->format);
  plan->n_peaks = config->n_peaks;
  if (plan->cfg.peak_max_bin == 0 || plan->cfg.peak_max_bin > plan->m)
    plan->cfg.peak_max_bin = plan->m;

  if (!make_pipelines (plan, error) || !size_plan (plan, error))
    goto fail;

  row_bytes = (guint64) plan->nb * plan->out_ch * sizeof (gfloat);
  part_bytes = (guint64) (plan->nb + 1) * plan->out_ch * sizeof (gfloat);
  out_bytes = plan->max_groups * row_bytes;
  if (!gpufft_buffer_init (&plan->input, ctx,
          plan->max_span * config->channels * plan->bps + 16,
          GPUFFT_MEMORY_DEVICE, error)
      || !gpufft_buffer_init (&plan->window, ctx,
          config->fft_size * sizeof (gfloat), GPUFFT_MEMORY_DEVICE, error)
      || !gpufft_buffer_init (&plan->twiddles, ctx,
          config->fft_size * 2 * sizeof (gfloat), GPUFFT_MEMORY_DEVICE, error)
      || !gpufft_buffer_init (&plan->partial, ctx,
          plan->max_chunks * part_bytes, GPUFFT_MEMORY_DEVICE, error)
      || !gpufft_buffer_init (&plan->carry[0], ctx, part_bytes,
          GPUFFT_MEMORY_DEVICE, error)
      || !gpufft_buffer_init (&plan->carry[1], ctx, part_bytes,
          GPUFFT_MEMORY_DEVICE, error)
      || !gpufft_buffer_init (&plan->out_dev, ctx, out_bytes,
          GPUFFT_MEMORY_DEVICE, error)
      || !gpufft_buffer_init (&plan->counts_dev, ctx,
          (gsize) plan->max_groups * plan->out_ch * sizeof (guint32),
          GPUFFT_MEMORY_DEVICE, error)
      || (plan->n_peaks > 0 && !gpufft_buffer_init (&plan->peaks_dev, ctx,
              (gsize) plan->max_groups * plan->out_ch * plan->n_peaks * 16,
              GPUFFT_MEMORY_DEVICE, error))
      || (config->complex_out && !gpufft_buffer_init (&plan->cplx_dev, ctx,
              2 * (out_bytes + row_bytes), GPUFFT_MEMORY_DEVICE, error))
      || !gpufft_buffer_init (&plan->dummy, ctx, 16, GPUFFT_MEMORY_DEVICE,
          error)
      || (plan->four_step && !gpufft_buffer_init (&plan->temp, ctx,
              (gsize) plan->slice_frames * plan->out_ch * plan->m * 2 *
              sizeof (gfloat), GPUFFT_MEMORY_DEVICE, error))
      || !gpufft_descriptor_pool_init (&plan->pool, ctx, 4 * N_SLOTS, 7,
          error)
      || !fill_constants (plan, error))
    goto fail;

  for (i = 0; i < N_SLOTS; i++)
    if (!make_slot (plan, &plan->slots[i], error))
      goto fail;
  if (!gpufft_command_init (&plan->rerun_cmd, ctx, 3, error))
    goto fail;
  plan->peak_scratch = g_new0 (GpufftPeak, MAX (1,
          plan->out_ch * plan->n_peaks));
  return plan;

fail:
  gpufft_plan_free (plan);
  return NULL;
}

static void
stashed_free (gpointer data)
{
  StashedResult *s = data;

  g_free (s->power);
  g_free (s->channel_frames);
  g_free (s->complex_data);
  g_free (s->peaks);
  g_free (s);
}

void
gpufft_plan_free (GpufftPlan * plan)
{
  GpufftContext *ctx;
  guint i;

  if (!plan)
    return;
  ctx = plan->ctx;
  for (i = 0; i < N_SLOTS; i++) {
    Slot *s = &plan->slots[i];

    gpufft_command_clear (&s->cmd, ctx);        /* waits first */
    gpufft_buffer_clear (&s->staging, ctx);
    gpufft_buffer_clear (&s->chunks, ctx);
    gpufft_buffer_clear (&s->groups, ctx);
    gpufft_buffer_clear (&s->out, ctx);
    gpufft_buffer_clear (&s->counts, ctx);
    gpufft_buffer_clear (&s->peaks, ctx);
    gpufft_buffer_clear (&s->cplx, ctx);
    g_free (s->closed_frames);
    g_free (s->cplx_fix);
    g_free (s->chunk_frames);
  }
  gpufft_command_clear (&plan->rerun_cmd, ctx);
  gpufft_descriptor_pool_clear (&plan->pool, ctx);
  gpufft_pipeline_clear (&plan->fft, ctx);
  gpufft_pipeline_clear (&plan->reduce, ctx);
  gpufft_pipeline_clear (&plan->rows, ctx);
  gpufft_buffer_clear (&plan->temp, ctx);
  gpufft_buffer_clear (&plan->input, ctx);
  gpufft_buffer_clear (&plan->window, ctx);
  gpufft_buffer_clear (&plan->twiddles, ctx);
  gpufft_buffer_clear (&plan->partial, ctx);
  gpufft_buffer_clear (&plan->carry[0], ctx);
  gpufft_buffer_clear (&plan->carry[1], ctx);
  gpufft_buffer_clear (&plan->dummy, ctx);
  gpufft_buffer_clear (&plan->out_dev, ctx);
  gpufft_buffer_clear (&plan->counts_dev, ctx);
  gpufft_buffer_clear (&plan->peaks_dev, ctx);
  gpufft_buffer_clear (&plan->cplx_dev, ctx);
  g_queue_clear_full (&plan->stash, stashed_free);
  g_free (plan->peak_scratch);
  gpufft_context_unref (ctx);
  g_free (plan);
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
gpufft_plan_in_flight (GpufftPlan * plan)
{
  return plan->n_busy + plan->n_stashed;
}

/* ---- submission --------------------------------------------------------- */

static gboolean
check_batch (GpufftPlan * plan, const GpufftBatch * b, gsize * span_out,
    GError ** error)
{
  gsize span = 0, need;
  guint64 sum = 0;
  guint i;

  if (b->n_segments > 0 && !b->segments)
    return invalid (error, "%u segments but no segment array", b->n_segments);
  if (b->n_groups == 0 || b->n_groups > plan->max_groups || !b->groups)
    return invalid (error, "a batch needs 1 to %u groups, got %u",
        plan->max_groups, b->n_groups);
  if (b->n_frames > plan->max_frames)
    return invalid (error, "%u frames in a batch, at most %u", b->n_frames,
        plan->max_frames);
  for (i = 0; i < b->n_groups; i++) {
    sum += b->groups[i].n_frames;
    if (!b->groups[i].close && i + 1 < b->n_groups)
      return invalid (error, "only the last group of a batch may stay open");
  }
  if (sum != b->n_frames)
    return invalid (error, "the groups hold %" G_GUINT64_FORMAT " frames, "
        "the batch %u", sum, b->n_frames);
  for (i = 0; i < b->n_segments; i++) {
    const GpufftSegment *seg = &b->segments[i];

    if (seg->n_samples > 0 && ((!plan->cfg.planar && !seg->data)
            || (plan->cfg.planar && !seg->planes)))
      return invalid (error, "segment %u has no data", i);
    if (seg->n_samples > 0 && plan->cfg.planar) {
      guint c;

      for (c = 0; c < plan->cfg.channels; c++)
        if (!seg->planes[c])
          return invalid (error, "segment %u has no plane %u", i, c);
    }
    span += seg->n_samples;
  }
  need = b->n_frames ? (gsize) (b->n_frames - 1) * plan->cfg.hop
      + plan->cfg.fft_size : 0;
  if (span < need)
    return invalid (error, "%u frames need %" G_GSIZE_FORMAT " samples, the "
        "segments hold %" G_GSIZE_FORMAT, b->n_frames, need, span);
  *span_out = need;
  return TRUE;
}

/* Copies the first `span` samples of the segments into the staging buffer:
 * interleaved as they are, planar as planes of `span` samples each. */
static void
copy_span (GpufftPlan * plan, Slot * s, const GpufftBatch * b, gsize span)
{
  guint8 *dst = s->staging.mapped;
  gsize frame_bytes = (gsize) plan->cfg.channels * plan->bps;
  gsize done = 0;
  guint i, c;

  for (i = 0; i < b->n_segments && done < span; i++) {
    const GpufftSegment *seg = &b->segments[i];
    gsize n = MIN (seg->n_samples, span - done);

    if (n == 0)
      continue;
    if (!plan->cfg.planar) {
      memcpy (dst + done * frame_bytes, seg->data, n * frame_bytes);
    } else {
      for (c = 0; c < plan->cfg.channels; c++)
        memcpy (dst + ((gsize) c * span + done) * plan->bps, seg->planes[c],
            n * plan->bps);
    }
    done += n;
  }
}

/* Lays the batch's frames into chunks (runs of at most F frames of one
 * group) and writes the chunk and group tables. */
static void
write_tables (GpufftPlan * plan, Slot * s, const GpufftBatch * b)
{
  guint32 *chunks = s->chunks.mapped;
  guint32 *groups = s->groups.mapped;
  /* Frames per chunk: 1 while there are few (latency), up to
   * FRAMES_PER_CHUNK once there are enough chunks to fill a GPU, more only
   * when the partial-sum rows run out. */
  guint per = CLAMP (b->n_frames / 1024, 1, FRAMES_PER_CHUNK);
  guint g, frame = 0, nc = 0, closed = 0;

  s->n_cplx_fix = 0;
  if (plan->four_step)          /* a chunk must fit a slice */
    per = MIN (per, plan->slice_frames);
  while (b->n_frames / per + b->n_groups > plan->max_chunks
      && (!plan->four_step || per < plan->slice_frames))
    per++;

  for (g = 0; g < b->n_groups; g++) {
    const GpufftGroup *grp = &b->groups[g];
    gboolean cont = (g == 0 && plan->open);
    guint total = grp->n_frames + (cont ? plan->open_frames : 0);
    guint left = grp->n_frames, first_chunk = nc;
    guint32 *gw = groups + g * GROUP_WORDS;

    while (left > 0) {
      guint n = MIN (left, per);

      chunks[4 * nc] = s->chunk_frames[2 * nc] = frame;
      chunks[4 * nc + 1] = s->chunk_frames[2 * nc + 1] = n;
      /* The group's last frame writes its complex spectrum: into the
       * group's row when it closes, else into the carry row (after the
       * max_groups group rows) for a later batch that closes it. */
      chunks[4 * nc + 2] = grp->close ? closed : plan->max_groups;
      chunks[4 * nc + 3] = n == left ? 1 : 0;
      frame += n;
      left -= n;
      nc++;
    }
    memset (gw, 0, GROUP_WORDS * sizeof (guint32));
    gw[0] = first_chunk;
    gw[1] = nc - first_chunk;
    gw[2] = (cont ? 1 : 0) | (grp->close ? 2 : 0);
    gw[3] = grp->close ? closed : 0;
    if (grp->close && grp->n_frames == 0 && plan->cfg.complex_out)
      s->cplx_fix[s->n_cplx_fix++] = closed | (total == 0 ? CPLX_ZERO : 0);
    if (grp->close) {
      s->closed_frames[closed++] = total;
      plan->open = FALSE;
      plan->open_frames = 0;
    } else {
      plan->open = TRUE;
      plan->open_frames = total;
    }
  }
  /* Pad to whole workgroups with empty chunks. */
  while (nc % plan->fpw) {
    memset (chunks + 4 * nc, 0, 4 * sizeof (guint32));
    nc++;
  }
  s->n_chunks = nc;
  s->n_groups = b->n_groups;
  s->n_closed = closed;
}

static void
record_kernels (GpufftPlan * plan, Slot * s, GpufftCommand * command)
{
  VkCommandBuffer cmd = command->cmd;
  const guint32 *chunks = s->chunk_frames;     /* not the mapped table */
  FftParams fp = s->fft_params;
  RowsParams rp;
  guint c = 0;

  if (s->n_chunks == 0)
    return;
  vkCmdBindPipeline (cmd, VK_PIPELINE_BIND_POINT_COMPUTE, plan->fft.pipeline);
  vkCmdBindDescriptorSets (cmd, VK_PIPELINE_BIND_POINT_COMPUTE,
      plan->fft.layout, 0, 1, &s->fft_set, 0, NULL);
  if (!plan->four_step) {
    vkCmdPushConstants (cmd, plan->fft.layout, VK_SHADER_STAGE_COMPUTE_BIT,
        0, sizeof (FftParams), &fp);
    vkCmdDispatch (cmd, s->n_chunks / plan->fpw, plan->out_ch, 1);
    return;
  }

  /* Four-step: slices of whole chunks whose frames fit the temp buffer, so
   * that the second kernel reads what the first wrote while it is still in
   * the L2 cache. */
  rp.out_channels = plan->out_ch;
  rp.scale = plan->scale;
  while (c < s->n_chunks) {
    guint c0 = c, f0 = chunks[2 * c];

    while (c < s->n_chunks
        && chunks[2 * c] + chunks[2 * c + 1] - f0 <= plan->slice_frames)
      c++;
    rp.chunk_base = c0;
    fp.frame_base = rp.frame_base = f0;
    vkCmdBindPipeline (cmd, VK_PIPELINE_BIND_POINT_COMPUTE,
        plan->fft.pipeline);
    vkCmdBindDescriptorSets (cmd, VK_PIPELINE_BIND_POINT_COMPUTE,
        plan->fft.layout, 0, 1, &s->fft_set, 0, NULL);
    vkCmdPushConstants (cmd, plan->fft.layout, VK_SHADER_STAGE_COMPUTE_BIT,
        0, sizeof (FftParams), &fp);
    /* One workgroup per frame and column. */
    vkCmdDispatch (cmd, (chunks[2 * (c - 1)] + chunks[2 * (c - 1) + 1] - f0)
        * plan->cols, plan->out_ch, 1);
    gpufft_command_barrier (command);
    vkCmdBindPipeline (cmd, VK_PIPELINE_BIND_POINT_COMPUTE,
        plan->rows.pipeline);
    vkCmdBindDescriptorSets (cmd, VK_PIPELINE_BIND_POINT_COMPUTE,
        plan->rows.layout, 0, 1, &s->rows_set, 0, NULL);
    vkCmdPushConstants (cmd, plan->rows.layout, VK_SHADER_STAGE_COMPUTE_BIT,
        0, sizeof (RowsParams), &rp);
    vkCmdDispatch (cmd, (c - c0) * plan->rows_kb, plan->out_ch, 1);
    if (c < s->n_chunks)
      gpufft_command_barrier (command);
  }
}

static void
record_reduce (GpufftPlan * plan, Slot * s, VkCommandBuffer cmd)
{
  vkCmdBindPipeline (cmd, VK_PIPELINE_BIND_POINT_COMPUTE,
      plan->reduce.pipeline);
  vkCmdBindDescriptorSets (cmd, VK_PIPELINE_BIND_POINT_COMPUTE,
      plan->reduce.layout, 0, 1, &s->reduce_set[s->carry_read], 0, NULL);
  vkCmdPushConstants (cmd, plan->reduce.layout, VK_SHADER_STAGE_COMPUTE_BIT,
      0, sizeof (ReduceParams), &s->reduce_params);
  vkCmdDispatch (cmd, s->n_groups, plan->out_ch, 1);
}

/* complex_out: a group closed with no frame in this batch takes the
 * complex spectrum its last frame left in the carry row (before this
 * batch's kernels may overwrite that row); a group with no frame at all
 * gets zeros. */
static void
record_complex_fixes (GpufftPlan * plan, Slot * s, VkCommandBuffer cmd)
{
  VkDeviceSize block = (VkDeviceSize) plan->out_ch * plan->nb * 2 *
      sizeof (gfloat);
  guint i;

  for (i = 0; i < s->n_cplx_fix; i++) {
    guint slot = s->cplx_fix[i] & ~CPLX_ZERO;

    if (s->cplx_fix[i] & CPLX_ZERO) {
      vkCmdFillBuffer (cmd, plan->cplx_dev.buffer, slot * block, block, 0);
    } else {
      VkBufferCopy r = { plan->max_groups * block, slot * block, block };
      vkCmdCopyBuffer (cmd, plan->cplx_dev.buffer, plan->cplx_dev.buffer, 1,
          &r);
    }
  }
}

/* Copies the closed groups' results from device memory to the slot. */
static void
record_download (GpufftPlan * plan, Slot * s, VkCommandBuffer cmd)
{
  VkDeviceSize rows = (VkDeviceSize) s->n_closed * plan->out_ch;
  VkBufferCopy r = { 0, 0, 0 };

  if (rows == 0)
    return;
  r.size = rows * plan->nb * sizeof (gfloat);
  vkCmdCopyBuffer (cmd, plan->out_dev.buffer, s->out.buffer, 1, &r);
  r.size = rows * sizeof (guint32);
  vkCmdCopyBuffer (cmd, plan->counts_dev.buffer, s->counts.buffer, 1, &r);
  if (plan->n_peaks > 0) {
    r.size = rows * plan->n_peaks * 16;
    vkCmdCopyBuffer (cmd, plan->peaks_dev.buffer, s->peaks.buffer, 1, &r);
  }
  if (plan->cfg.complex_out) {
    r.size = rows * plan->nb * 2 * sizeof (gfloat);
    vkCmdCopyBuffer (cmd, plan->cplx_dev.buffer, s->cplx.buffer, 1, &r);
  }
}

/* Waits for the oldest busy slot and moves its results into the stash. */
static gboolean collect_one (GpufftPlan * plan, gboolean wait,
    GpufftResultFunc func, gpointer user_data, gboolean * done,
    GError ** error);

static void
stash_result (const GpufftGroupResult * r, gpointer user_data)
{
  GpufftPlan *plan = user_data;
  StashedResult *s = g_new0 (StashedResult, 1);
  gsize n = (gsize) r->channels * r->n_bins;

  s->r = *r;
  s->power = g_memdup2 (r->power, n * sizeof (gfloat));
  s->r.power = s->power;
  s->channel_frames = g_memdup2 (r->channel_frames,
      r->channels * sizeof (guint));
  s->r.channel_frames = s->channel_frames;
  if (r->complex_data) {
    s->complex_data = g_memdup2 (r->complex_data, 2 * n * sizeof (gfloat));
    s->r.complex_data = s->complex_data;
  }
  if (r->peaks) {
    s->peaks = g_memdup2 (r->peaks,
        (gsize) r->channels * r->n_peaks * sizeof (GpufftPeak));
    s->r.peaks = s->peaks;
  }
  g_queue_push_tail (&plan->stash, s);
}

gboolean
gpufft_plan_submit (GpufftPlan * plan, const GpufftBatch * batch,
    GError ** error)
{
  Slot *s;
  gsize span = 0;
  VkCommandBuffer cmd;
  gboolean was_open;
  guint was_open_frames;

  g_return_val_if_fail (plan != NULL && batch != NULL, FALSE);
  if (!check_batch (plan, batch, &span, error))
    return FALSE;

  if (plan->n_busy == N_SLOTS) {
    gboolean done = FALSE;

    if (!collect_one (plan, TRUE, stash_result, plan, &done, error))
      return FALSE;
    plan->n_stashed++;
    if (!done) {
      g_set_error (error, GPUFFT_ERROR, GPUFFT_ERROR_FAILED,
          "waiting for the GPU returned before the work finished");
      return FALSE;
    }
  }
  s = &plan->slots[plan->next];

  copy_span (plan, s, batch, span);
  was_open = plan->open;
  was_open_frames = plan->open_frames;
  write_tables (plan, s, batch);
  s->upload_bytes = span * plan->cfg.channels * plan->bps;
  s->carry_read = plan->carry_read;
  s->first_index = plan->next_group_index;

  s->fft_params.sstride = plan->cfg.planar ? 1 : plan->cfg.channels;
  s->fft_params.cstride = plan->cfg.planar ? (guint32) span : 1;
  s->fft_params.in_channels = plan->cfg.channels;
  s->fft_params.hop = plan->cfg.hop;
  s->fft_params.downmix = plan->cfg.downmix ? 1 : 0;
  s->fft_params.out_channels = plan->out_ch;
  s->fft_params.scale = plan->scale;
  s->fft_params.inv_channels = 1.0f / plan->cfg.channels;
  s->reduce_params.out_channels = plan->out_ch;
  s->reduce_params.peak_lo = MIN (plan->cfg.peak_min_bin, plan->m);
  s->reduce_params.peak_hi = plan->cfg.peak_max_bin;
  s->reduce_params.n_peaks = plan->n_peaks;
  s->reduce_params.output_db = plan->cfg.output_db ? 1 : 0;
  s->reduce_params.db_offset = plan->cfg.db_offset;
  s->reduce_params.db_floor = batch->db_floor;

  if (!gpufft_buffer_flush (&s->staging, plan->ctx, error)
      || !gpufft_buffer_flush (&s->chunks, plan->ctx, error)
      || !gpufft_buffer_flush (&s->groups, plan->ctx, error)
      || !gpufft_command_begin (&s->cmd, plan->ctx, error))
    goto undo;
  cmd = s->cmd.cmd;
  gpufft_command_barrier (&s->cmd);     /* after the previous submission */
  gpufft_command_timestamp (&s->cmd, Q_START);
  if (s->upload_bytes > 0) {
    VkBufferCopy region = { 0, 0, s->upload_bytes };
    vkCmdCopyBuffer (cmd, s->staging.buffer, plan->input.buffer, 1, &region);
  }
  record_complex_fixes (plan, s, cmd);
  gpufft_command_barrier (&s->cmd);
  gpufft_command_timestamp (&s->cmd, Q_UPLOADED);
  record_kernels (plan, s, &s->cmd);
  gpufft_command_barrier (&s->cmd);
  record_reduce (plan, s, cmd);
  gpufft_command_barrier (&s->cmd);
  gpufft_command_timestamp (&s->cmd, Q_COMPUTED);
  record_download (plan, s, cmd);
  gpufft_command_barrier (&s->cmd);
  gpufft_command_timestamp (&s->cmd, Q_DONE);
  if (!gpufft_command_submit (&s->cmd, plan->ctx, error))
    goto undo;

  /* An open group's sum was written to the other carry buffer. */
  if (plan->open)
    plan->carry_read = 1 - plan->carry_read;
  plan->next_group_index += s->n_closed;
  s->busy = TRUE;
  plan->n_busy++;
  plan->next = (plan->next + 1) % N_SLOTS;
  return TRUE;

undo:
  plan->open = was_open;
  plan->open_frames = was_open_frames;
  return FALSE;
}

/* ---- results ------------------------------------------------------------ */

static void
deliver_slot (GpufftPlan * plan, Slot * s, GpufftResultFunc func,
    gpointer user_data)
{
  gsize row = (gsize) plan->out_ch * plan->nb;
  const guint32 *pk = s->peaks.mapped;
  guint g, i;

  for (g = 0; g < s->n_closed; g++) {
    GpufftGroupResult r = { 0 };

    r.group_index = s->first_index + g;
    r.n_frames = s->closed_frames[g];
    r.channels = plan->out_ch;
    r.n_bins = plan->nb;
    r.power = (const gfloat *) s->out.mapped + g * row;
    r.channel_frames = (const guint *) s->counts.mapped + g * plan->out_ch;
    if (plan->cfg.complex_out)
      r.complex_data = (const gfloat *) s->cplx.mapped + 2 * g * row;
    if (plan->n_peaks > 0) {
      guint n = plan->out_ch * plan->n_peaks;

      for (i = 0; i < n; i++) {
        const guint32 *e = pk + 4 * ((gsize) g * n + i);

        plan->peak_scratch[i].bin = e[0] == 0xffffffffu ? G_MAXUINT : e[0];
        memcpy (plan->peak_scratch[i].power, e + 1, 3 * sizeof (gfloat));
      }
      r.peaks = plan->peak_scratch;
      r.n_peaks = plan->n_peaks;
    }
    if (func)
      func (&r, user_data);
  }
}

/* Waits for a slot's fence: small batches (results due within a fraction
 * of a millisecond) are polled for up to SPIN_US first, so that a waiting
 * thread is not left to the scheduler's wake-up delay; then it blocks. */
static gboolean
wait_slot (GpufftPlan * plan, Slot * s, gboolean wait, GError ** error)
{
  gint64 until;

  if (!wait || s->upload_bytes > SPIN_BYTES)
    return gpufft_command_wait (&s->cmd, plan->ctx, wait ? G_MAXUINT64 : 0,
        error);
  until = g_get_monotonic_time () + SPIN_US;
  do {
    if (gpufft_command_wait (&s->cmd, plan->ctx, 0, error))
      return TRUE;
    if (error && *error)
      return FALSE;
  } while (g_get_monotonic_time () < until);
  return gpufft_command_wait (&s->cmd, plan->ctx, G_MAXUINT64, error);
}

static gboolean
collect_one (GpufftPlan * plan, gboolean wait, GpufftResultFunc func,
    gpointer user_data, gboolean * done, GError ** error)
{
  Slot *s = &plan->slots[plan->oldest];
  GError *err = NULL;
  gdouble up, comp, down;

  *done = FALSE;
  if (!s->busy)
    return TRUE;
  if (!wait_slot (plan, s, wait, &err)) {
    if (!err)
      return TRUE;              /* not finished yet */
    g_propagate_error (error, err);
    return FALSE;
  }
  if (!gpufft_buffer_invalidate (&s->out, plan->ctx, error)
      || !gpufft_buffer_invalidate (&s->counts, plan->ctx, error)
      || (s->peaks.buffer && !gpufft_buffer_invalidate (&s->peaks,
              plan->ctx, error))
      || (s->cplx.buffer && !gpufft_buffer_invalidate (&s->cplx, plan->ctx,
              error)))
    return FALSE;

  up = gpufft_command_elapsed_ns (&s->cmd, plan->ctx, Q_START, Q_UPLOADED);
  comp = gpufft_command_elapsed_ns (&s->cmd, plan->ctx, Q_UPLOADED,
      Q_COMPUTED);
  down = gpufft_command_elapsed_ns (&s->cmd, plan->ctx, Q_COMPUTED, Q_DONE);
  plan->timings.valid = up >= 0 && comp >= 0 && down >= 0;
  plan->timings.upload_ns = up;
  plan->timings.compute_ns = comp;
  plan->timings.download_ns = down;
  plan->timings.reduce_ns = -1;

  s->busy = FALSE;
  plan->n_busy--;
  plan->oldest = (plan->oldest + 1) % N_SLOTS;
  deliver_slot (plan, s, func, user_data);
  *done = TRUE;
  return TRUE;
}

gint
gpufft_plan_collect (GpufftPlan * plan, gboolean wait, GpufftResultFunc func,
    gpointer user_data, GError ** error)
{
  gint n = 0;
  GError *err = NULL;

  g_return_val_if_fail (plan != NULL, -1);
  n = plan->n_stashed;
  plan->n_stashed = 0;
  while (!g_queue_is_empty (&plan->stash)) {
    StashedResult *st = g_queue_pop_head (&plan->stash);

    if (func)
      func (&st->r, user_data);
    stashed_free (st);
  }
  while (plan->n_busy > 0) {
    gboolean done = FALSE;

    if (!collect_one (plan, wait, func, user_data, &done, &err)) {
      g_propagate_error (error, err);
      return -1;
    }
    if (!done)
      break;
    n++;
  }
  return n;
}

/* ---- benchmarks --------------------------------------------------------- */

gboolean
gpufft_plan_rerun (GpufftPlan * plan, guint repeats, GError ** error)
{
  Slot *s = &plan->slots[(plan->next + N_SLOTS - 1) % N_SLOTS];
  GpufftCommand *c = &plan->rerun_cmd;
  gdouble ns;
  guint i;

  if (plan->n_busy > 0 || !g_queue_is_empty (&plan->stash))
    return invalid (error, "collect the results before a rerun");
  if (plan->open)
    return invalid (error, "a rerun needs every group closed");
  if (!gpufft_command_begin (c, plan->ctx, error))
    return FALSE;
  gpufft_command_barrier (c);
  gpufft_command_timestamp (c, 0);
  /* Every FFT repeat, then every reduce repeat (both idempotent), so that
   * the two kernels are timed apart. */
  for (i = 0; i < MAX (repeats, 1); i++) {
    record_kernels (plan, s, c);
    gpufft_command_barrier (c);
  }
  gpufft_command_timestamp (c, 1);
  for (i = 0; i < MAX (repeats, 1); i++) {
    record_reduce (plan, s, c->cmd);
    gpufft_command_barrier (c);
  }
  gpufft_command_timestamp (c, 2);
  if (!gpufft_command_submit (c, plan->ctx, error)
      || !gpufft_command_wait (c, plan->ctx, G_MAXUINT64, error))
    return FALSE;
  ns = gpufft_command_elapsed_ns (c, plan->ctx, 0, 2);
  plan->timings.valid = ns >= 0;
  plan->timings.upload_ns = 0;
  plan->timings.download_ns = 0;
  plan->timings.compute_ns = ns;
  plan->timings.reduce_ns = gpufft_command_elapsed_ns (c, plan->ctx, 1, 2);
  return TRUE;
}

void
gpufft_plan_get_timings (GpufftPlan * plan, GpufftTimings * timings)
{
  *timings = plan->timings;
}
