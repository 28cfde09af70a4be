/* Loudness blocks (see gpufft-loudness.h): staging slots, the three passes
 * of shaders/loudness.comp, jobs of the device scheduler.
 *
 * Per batch the device runs, in the scheduler's phases:
 *   upload    staging -> input (GPUs; CPU devices read the staging)
 *   kernels   MODE 0: each chunk's and block's end state from a zero start
 *   reduce    MODE 1: each block's start state, the carry, the history
 *   download  MODE 2: energies and peaks, straight into the slot's
 *             host-visible results (16 bytes per block and channel)
 * The chunk states, the carry and the history live on the device and are
 * shared by the slots: one object's batches run in order (one series). */
#include <math.h>
#include <string.h>

#include "gpufft-loudness.h"
#include "gpufft-loudness-host.h"
#include "gpufft-scheduler.h"
#include "gpufft-merge.h"
#include "gpufft-cache.h"
#include "gpufft-descriptor-pool.h"
#include "gpufft-pipeline-cache.h"

static const guint32 loudness_spv[] =
#include "loudness.spv.h"
    ;
static const guint32 loudness_f64_spv[] =
#include "loudness_f64.spv.h"
    ;

#define LOUDNESS_SLOTS 4
#define N_BINDINGS 7
#define N_MODES 4               /* loudness.comp's MODE 0 .. 3 */
#define CHUNKS 64               /* local_size_x of loudness.comp */
/* the table: coef[16] and md[3] (the transitions over base, base + 1 and
 * block_frames frames) as doubles (f64) or floats, h[4][TAPS] floats (the
 * phases' taps) between them */
#define TABLE_H(f64) (16 * ((f64) ? 8 : 4))
#define TABLE_MD(f64) (TABLE_H (f64) + 4 * GPUFFT_LOUDNESS_TAPS * 4)
#define TABLE_BYTES (TABLE_MD (TRUE) + 3 * 16 * 8)

typedef struct
{
  guint32 n_blocks, s, c, base, extra, parity, reset, phases;
  guint32 first, count;         /* MODE 3 */
} LoudnessParams;

/* MODE 3: frames an invocation filters in one dispatch at most (under
 * llvmpipe's 65535 iterations of a loop) */
#define SEQUENTIAL_FRAMES 60000

typedef struct
{
  GpufftJob job;
  GpufftLoudness *lo;
  GpufftBuffer staging, results;
  VkDescriptorSet sets[N_MODES];
  LoudnessParams params;
  guint64 tag;
} Slot;

#define SLOT_OF_JOB(j) ((Slot *) (j))

struct _GpufftLoudness
{
  GpufftContext *ctx;
  GpufftScheduler *sched;
  GpufftLoudnessConfig cfg;
  const GpufftPipeline *pipes[N_MODES];
  GpufftDescriptorPool pool;
  GpufftBuffer input, table, chunks, blocks, carry, hist;
  gboolean copy;                /* GPUs: staging copied into `input` */
  gboolean f64;                 /* the filter in double */
  gboolean sequential;          /* MODE 3: a channel per invocation */
  GpufftLoudnessHost *host;     /* CPU devices: the host computes */
  gfloat *host_staging[LOUDNESS_SLOTS];
  gfloat *host_values;
  GpufftJobSeries series;
  Slot slots[LOUDNESS_SLOTS];
  guint next;                   /* owner: the slot the staging is */
  guint parity;                 /* owner: the next batch's history half */
  gboolean started;             /* owner: a batch was submitted (the first
                                 * starts from rest: the device memory of
                                 * the carry is not cleared) */

  GMutex lock;
  GCond cond;
  const gint *cancel;           /* gpufft_loudness_set_cancel */
  guint n_busy;                 /* slots queued and not yet finished */
  guint delivering;             /* callback calls under way */
  GError *error;                /* sticky: a failed batch */
  GpufftLoudnessFunc func;
  gpointer func_data;
};

/* ---- the scheduler's jobs ---------------------------------------------- */

static void
bind_dispatch (Slot * s, guint mode, VkCommandBuffer cmd, guint gx, guint gy)
{
  const GpufftPipeline *pipe = s->lo->pipes[mode];

  vkCmdBindPipeline (cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipe->pipeline);
  vkCmdBindDescriptorSets (cmd, VK_PIPELINE_BIND_POINT_COMPUTE,
      pipe->layout, 0, 1, &s->sets[mode], 0, NULL);
  vkCmdPushConstants (cmd, pipe->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0,
      sizeof (s->params), &s->params);
  vkCmdDispatch (cmd, gx, gy, 1);
}

/* MODE 3: the batch's blocks in dispatches of at most SEQUENTIAL_FRAMES
 * frames, each after the last (a barrier between: the carry) */
static void
record_sequential (Slot * s, GpufftCommand * command)
{
  guint per = MAX (1, SEQUENTIAL_FRAMES / s->params.s), first;

  for (first = 0; first < s->params.n_blocks; first += per) {
    if (first > 0)
      gpufft_command_barrier (command);
    s->params.first = first;
    s->params.count = MIN (per, s->params.n_blocks - first);
    bind_dispatch (s, 3, command->cmd, (s->params.c + CHUNKS - 1) / CHUNKS, 1);
  }
}

static void
job_record_upload (GpufftJob * job, VkCommandBuffer cmd)
{
  Slot *s = SLOT_OF_JOB (job);
  VkBufferCopy region = { 0, 0, 0 };

  if (!s->lo->copy)
    return;
  region.size = (VkDeviceSize) s->params.n_blocks * s->params.s *
      s->params.c * sizeof (gfloat);
  vkCmdCopyBuffer (cmd, s->staging.buffer, s->lo->input.buffer, 1, &region);
}

static void
job_record_kernels (GpufftJob * job, GpufftCommand * command)
{
  Slot *s = SLOT_OF_JOB (job);

  if (s->lo->sequential)
    record_sequential (s, command);
  else
    bind_dispatch (s, 0, command->cmd, s->params.n_blocks, s->params.c);
}

static void
job_record_reduce (GpufftJob * job, VkCommandBuffer cmd)
{
  Slot *s = SLOT_OF_JOB (job);

  if (!s->lo->sequential)
    bind_dispatch (s, 1, cmd, (s->params.c + CHUNKS - 1) / CHUNKS, 1);
}

static void
job_record_download (GpufftJob * job, VkCommandBuffer cmd)
{
  Slot *s = SLOT_OF_JOB (job);

  if (!s->lo->sequential)
    bind_dispatch (s, 2, cmd, s->params.n_blocks, s->params.c);
}

static void
job_finish (GpufftJob * job, const GpufftTimings * timings,
    const GError * error)
{
  Slot *s = SLOT_OF_JOB (job);
  GpufftLoudness *lo = s->lo;
  GError *err = error ? g_error_copy (error) : NULL;
  GpufftLoudnessFunc func;
  gpointer data;

  if (!err)
    gpufft_buffer_invalidate (&s->results, lo->ctx, &err);
  g_mutex_lock (&lo->lock);
  func = lo->func;
  data = lo->func_data;
  if (func)
    lo->delivering++;           /* (gpufft_loudness_free waits for it) */
  if (err && !lo->error)
    lo->error = g_error_copy (err);
  g_mutex_unlock (&lo->lock);

  if (func) {
    if (err) {
      func (NULL, err, data);
    } else {
      GpufftLoudnessResult r;

      r.tag = s->tag;
      r.n_blocks = s->params.n_blocks;
      r.channels = s->params.c;
      r.values = s->results.mapped;
      func (&r, NULL, data);
    }
  }
  g_clear_error (&err);
  g_mutex_lock (&lo->lock);
  if (func)
    lo->delivering--;
  lo->n_busy--;
  g_cond_broadcast (&lo->cond);
  g_mutex_unlock (&lo->lock);
}

static const GpufftJobFuncs loudness_job_funcs = {
  job_record_upload, job_record_kernels, job_record_reduce,
  job_record_download, job_finish, NULL
};

/* ---- the filter's tables ------------------------------------------------ */

/* One frame of zero input through the cascade (gdouble): the transposed
 * direct form II of loudness.comp. */
static void
cascade_step (const GpufftLoudnessConfig * c, gdouble s[4])
{
  gdouble y0 = s[0], y1;

  s[0] = -c->a[0][1] * y0 + s[1];
  s[1] = -c->a[0][2] * y0;
  y1 = c->b[1][0] * y0 + s[2];
  s[2] = c->b[1][1] * y0 - c->a[1][1] * y1 + s[3];
  s[3] = c->b[1][2] * y0 - c->a[1][2] * y1;
}

/* m: the zero-input transition over len frames, column-major (GLSL's
 * mat4: column j is the state after len frames from unit state j). */
static void
transition (const GpufftLoudnessConfig * c, guint len, gdouble m[16])
{
  guint j, i, k;

  for (j = 0; j < 4; j++) {
    gdouble s[4] = { 0, 0, 0, 0 };

    s[j] = 1.0;
    for (i = 0; i < len; i++)
      cascade_step (c, s);
    for (k = 0; k < 4; k++)
      m[4 * j + k] = s[k];
  }
}

/* value i of an array of doubles (f64) or floats */
static void
put_real (guint8 * base, guint i, gdouble v, gboolean f64)
{
  gfloat f = (gfloat) v;

  if (f64)
    memcpy (base + 8 * i, &v, 8);
  else
    memcpy (base + 4 * i, &f, 4);
}

static gboolean
fill_table (GpufftLoudness * lo, GError ** error)
{
  const GpufftLoudnessConfig *c = &lo->cfg;
  guint8 bytes[TABLE_BYTES];
  gdouble coef[10], m[48];
  guint base = c->block_frames / CHUNKS, i, k;

  memset (bytes, 0, sizeof (bytes));
  for (i = 0; i < 2; i++) {
    coef[5 * i] = c->b[i][0];
    coef[5 * i + 1] = c->b[i][1];
    coef[5 * i + 2] = c->b[i][2];
    coef[5 * i + 3] = c->a[i][1];
    coef[5 * i + 4] = c->a[i][2];
  }
  transition (c, base, m);
  transition (c, base + 1, m + 16);
  transition (c, c->block_frames, m + 32);
  for (i = 0; i < 10; i++)
    put_real (bytes, i, coef[i], lo->f64);
  for (i = 0; i < 48; i++)
    put_real (bytes + TABLE_MD (lo->f64), i, m[i], lo->f64);
  for (i = 0; i < c->tp_phases; i++)
    for (k = 0; k < GPUFFT_LOUDNESS_TAPS; k++) {
      gfloat v = (gfloat) c->tp_taps[i][k];

      memcpy (bytes + TABLE_H (lo->f64) + 4 * (i * 24 + k), &v, 4);
    }
  return gpufft_buffer_upload (&lo->table, lo->ctx, bytes, sizeof (bytes),
      error);
}

guint
gpufft_loudness_tp_taps (gdouble rate, gdouble taps[4][GPUFFT_LOUDNESS_TAPS])
{
  const guint n_taps = 49;
  guint factor = rate < 96000.0 ? 4 : rate < 192000.0 ? 2 : 1, j;

  memset (taps, 0, sizeof (gdouble) * 4 * GPUFFT_LOUDNESS_TAPS);
  if (factor == 1) {
    taps[0][0] = 1.0;
    return 1;
  }
  for (j = 0; j < n_taps; j++) {
    gdouble m = (gdouble) j - (n_taps - 1) / 2.0;
    gdouble v = fabs (m) < 1e-6 ? 1.0 : sin (m * G_PI / factor) /
        (m * G_PI / factor);

    v *= 0.5 * (1.0 - cos (2.0 * G_PI * j / (n_taps - 1)));
    /* (beyond the table: the sinc's zeros, phase 0's last at 2) */
    if (j / factor < GPUFFT_LOUDNESS_TAPS)
      taps[j % factor][j / factor] = v;
  }
  return factor;
}

/* ---- life ---------------------------------------------------------------- */

typedef enum
{
  PATH_CHUNKS,                  /* GPUs: MODES 0-2 */
  PATH_SEQUENTIAL,              /* MODE 3 */
  PATH_HOST                     /* CPU devices: gpufft-loudness-host.c */
} Path;

/* The host on CPU devices, the chunked passes on GPUs;
 * GPUFFT_LOUDNESS_PATH = host, sequential or chunks forces one (tests);
 * other: the chunked passes on CPU devices, the sequential kernel on
 * GPUs. */
static Path
choose_path (GpufftContext * ctx)
{
  const gchar *env = g_getenv ("GPUFFT_LOUDNESS_PATH");
  gboolean cpu;

  if (!ctx)
    return PATH_HOST;
  cpu = gpufft_context_is_cpu (ctx);
  if (env && g_str_equal (env, "host"))
    return PATH_HOST;
  if (env && g_str_equal (env, "sequential"))
    return PATH_SEQUENTIAL;
  if (env && g_str_equal (env, "chunks"))
    return PATH_CHUNKS;
  if (env && g_str_equal (env, "other"))
    return cpu ? PATH_CHUNKS : PATH_SEQUENTIAL;
  return cpu ? PATH_HOST : PATH_CHUNKS;
}

static gboolean
check_config (GpufftContext * ctx, const GpufftLoudnessConfig * c,
    GError ** error)
{
  const gchar *bad = NULL;
  guint64 frames = (guint64) c->block_frames * MAX (c->max_blocks, 1);

  if (c->channels < 1 || c->channels > GPUFFT_LOUDNESS_MAX_CHANNELS)
    bad = "channels must be 1 .. 64";
  else if (c->block_frames < GPUFFT_LOUDNESS_MIN_BLOCK)
    bad = "a block must hold at least 64 frames";
  else if (c->max_blocks < 1 || c->max_blocks > 65535)
    bad = "max_blocks must be 1 .. 65535";
  else if (c->tp_phases != 0 && c->tp_phases != 1 && c->tp_phases != 2
      && c->tp_phases != 4)
    bad = "tp_phases must be 0, 1, 2 or 4";
  else if (ctx && (frames * c->channels * sizeof (gfloat) >
          ctx->props.limits.maxStorageBufferRange
          || (guint64) c->max_blocks * CHUNKS * c->channels * 32 >
          ctx->props.limits.maxStorageBufferRange))
    bad = "a batch is larger than the device binds in one buffer";
  if (bad)
    g_set_error (error, GPUFFT_ERROR, GPUFFT_ERROR_INVALID_ARGUMENT,
        "loudness: %s", bad);
  return bad == NULL;
}

GpufftLoudness *
gpufft_loudness_new (GpufftContext * ctx, const GpufftLoudnessConfig * config,
    GpufftLoudnessFunc func, gpointer user_data, GError ** error)
{
  GpufftLoudness *lo;
  gsize in_bytes;
  guint i, m, n_taps = 1;

  g_return_val_if_fail (config != NULL, NULL);
  if (!check_config (ctx, config, error))
    return NULL;
  lo = g_new0 (GpufftLoudness, 1);
  lo->ctx = ctx ? gpufft_context_ref (ctx) : NULL;
  lo->cfg = *config;
  lo->func = func;
  lo->func_data = user_data;
  g_mutex_init (&lo->lock);
  g_cond_init (&lo->cond);
  lo->copy = ctx && !gpufft_context_is_cpu (ctx);
  lo->f64 = ctx && ctx->features.shaderFloat64
      && !g_getenv ("GPUFFT_LOUDNESS_F32");
  in_bytes = (gsize) config->max_blocks * config->block_frames *
      config->channels * sizeof (gfloat);
  {
    Path path = choose_path (ctx);

    lo->sequential = path == PATH_SEQUENTIAL;
    if (path == PATH_HOST) {
      /* (no kernel, no device memory: the caller's thread computes) */
      lo->host = gpufft_loudness_host_new (config);
      for (i = 0; i < LOUDNESS_SLOTS; i++)
        lo->host_staging[i] = g_malloc0 (in_bytes);
      lo->host_values = g_new0 (gfloat, (gsize) config->max_blocks *
          config->channels * 4);
      return lo;
    }
  }

  /* (the same scheduler, with the same round hooks, as the plans') */
  lo->sched = gpufft_scheduler_get (ctx, &gpufft_merge_hooks, error);
  if (!lo->sched)
    goto fail;
  /* (the interpolator's loops run over the taps in use) */
  for (i = 0; i < config->tp_phases; i++)
    for (m = 0; m < GPUFFT_LOUDNESS_TAPS; m++)
      if (config->tp_taps[i][m] != 0.0)
        n_taps = MAX (n_taps, m + 1);
  for (m = 0; m < N_MODES; m++) {
    guint32 spec[2] = { m, (n_taps + 3) / 4 };

    /* (only the path's own kernels) */
    if ((m == 3) != lo->sequential)
      continue;
    lo->pipes[m] = lo->f64 ?
        gpufft_cache_pipeline (ctx, loudness_f64_spv,
        sizeof (loudness_f64_spv), N_BINDINGS, NULL, sizeof (LoudnessParams),
        spec, 2, error) : gpufft_cache_pipeline (ctx, loudness_spv,
        sizeof (loudness_spv), N_BINDINGS, NULL, sizeof (LoudnessParams),
        spec, 2, error);
    if (!lo->pipes[m])
      goto fail;
  }
  if ((lo->copy && !gpufft_buffer_init (&lo->input, ctx, in_bytes,
              GPUFFT_MEMORY_DEVICE, error))
      || !gpufft_buffer_init (&lo->table, ctx, TABLE_BYTES,
          GPUFFT_MEMORY_DEVICE, error)
      || !gpufft_buffer_init (&lo->chunks, ctx, (gsize) config->max_blocks *
          CHUNKS * config->channels * 32, GPUFFT_MEMORY_DEVICE, error)
      || !gpufft_buffer_init (&lo->blocks, ctx, (gsize) config->max_blocks *
          config->channels * 32, GPUFFT_MEMORY_DEVICE, error)
      || !gpufft_buffer_init (&lo->carry, ctx, (gsize) config->channels * 32,
          GPUFFT_MEMORY_DEVICE, error)
      || !gpufft_buffer_init (&lo->hist, ctx, (gsize) 2 * config->channels *
          GPUFFT_LOUDNESS_TAPS * sizeof (gfloat), GPUFFT_MEMORY_DEVICE, error)
      || !fill_table (lo, error)
      || !gpufft_descriptor_pool_init (&lo->pool, ctx, N_MODES *
          LOUDNESS_SLOTS, N_BINDINGS, error))
    goto fail;

  for (i = 0; i < LOUDNESS_SLOTS; i++) {
    Slot *s = &lo->slots[i];
    GpufftBuffer *bufs[N_BINDINGS];

    s->lo = lo;
    s->job.funcs = &loudness_job_funcs;
    s->job.series = &lo->series;
    if (!gpufft_buffer_init (&s->staging, ctx, in_bytes, GPUFFT_MEMORY_UPLOAD,
            error)
        || !gpufft_buffer_init (&s->results, ctx, (gsize) config->max_blocks
            * config->channels * 16, GPUFFT_MEMORY_READBACK, error))
      goto fail;
    if (!s->staging.mapped || !s->results.mapped) {
      g_set_error (error, GPUFFT_ERROR, GPUFFT_ERROR_FAILED,
          "loudness: host-visible memory could not be mapped");
      goto fail;
    }
    bufs[0] = lo->copy ? &lo->input : &s->staging;
    bufs[1] = &lo->table;
    bufs[2] = &lo->chunks;
    bufs[3] = &lo->carry;
    bufs[4] = &lo->hist;
    bufs[5] = &s->results;
    bufs[6] = &lo->blocks;
    for (m = 0; m < N_MODES; m++)
      if (lo->pipes[m]
          && !gpufft_descriptor_pool_alloc (&lo->pool, ctx, lo->pipes[m], bufs,
              &s->sets[m], error))
        goto fail;
  }
  /* (the pipelines it made, for the next process) */
  gpufft_pipeline_cache_save (ctx);
  return lo;

fail:
  gpufft_loudness_free (lo);
  return NULL;
}

static void loudness_destroy (GpufftLoudness * lo);

/* A thread of the engine's (counted by gpufft_wait_released): waits for
 * the abandoned batches, which the scheduler finishes at the latest at
 * their stall deadline, then frees the object. */
static gpointer
free_thread (gpointer data)
{
  GpufftLoudness *lo = data;

  g_mutex_lock (&lo->lock);
  while (lo->n_busy > 0)
    g_cond_wait (&lo->cond, &lo->lock);
  g_mutex_unlock (&lo->lock);
  loudness_destroy (lo);
  return NULL;
}

void
gpufft_loudness_set_cancel (GpufftLoudness * lo, const gint * cancel)
{
  g_mutex_lock (&lo->lock);
  lo->cancel = cancel;
  g_mutex_unlock (&lo->lock);
}

/* One wait on lo->cond (lock held); FALSE once the cancel flag is set
 * (blocking waits of at most GPUFFT_CANCEL_POLL_MS while there is one). */
static gboolean
loudness_wait (GpufftLoudness * lo)
{
  if (lo->cancel == NULL) {
    g_cond_wait (&lo->cond, &lo->lock);
    return TRUE;
  }
  if (g_atomic_int_get (lo->cancel))
    return FALSE;
  g_cond_wait_until (&lo->cond, &lo->lock, g_get_monotonic_time () +
      GPUFFT_CANCEL_POLL_MS * 1000);
  return !g_atomic_int_get (lo->cancel);
}

void
gpufft_loudness_free (GpufftLoudness * lo)
{
  gboolean worker, busy;

  if (!lo)
    return;
  /* (a worker may be the thread delivering: it does not wait) */
  worker = gpufft_context_in_worker ();
  g_mutex_lock (&lo->lock);
  lo->func = NULL;
  lo->func_data = NULL;
  lo->cancel = NULL;
  while (!worker && lo->delivering > 0)
    g_cond_wait (&lo->cond, &lo->lock);
  busy = lo->n_busy > 0;
  g_mutex_unlock (&lo->lock);
  if (worker || busy) {
    /* batches in flight: abandoned to a thread of the engine's */
    if (!gpufft_context_reap ("gpufft-free", free_thread, lo))
      g_warning ("gpufft: no thread to free a loudness object with work in "
          "flight: it is leaked");
    return;
  }
  loudness_destroy (lo);
}

static void
loudness_destroy (GpufftLoudness * lo)
{
  GpufftContext *ctx;
  guint i;

  ctx = lo->ctx;
  gpufft_loudness_host_free (lo->host);
  for (i = 0; i < LOUDNESS_SLOTS; i++)
    g_free (lo->host_staging[i]);
  g_free (lo->host_values);
  if (ctx) {
    for (i = 0; i < LOUDNESS_SLOTS; i++) {
      gpufft_buffer_clear (&lo->slots[i].staging, ctx);
      gpufft_buffer_clear (&lo->slots[i].results, ctx);
    }
    gpufft_descriptor_pool_clear (&lo->pool, ctx);
    for (i = 0; i < N_MODES; i++)
      gpufft_cache_release (ctx, lo->pipes[i]);
    gpufft_buffer_clear (&lo->input, ctx);
    gpufft_buffer_clear (&lo->table, ctx);
    gpufft_buffer_clear (&lo->chunks, ctx);
    gpufft_buffer_clear (&lo->blocks, ctx);
    gpufft_buffer_clear (&lo->carry, ctx);
    gpufft_buffer_clear (&lo->hist, ctx);
    gpufft_context_unref (ctx);
  }
  g_clear_error (&lo->error);
  g_mutex_clear (&lo->lock);
  g_cond_clear (&lo->cond);
  g_free (lo);
}

/* ---- batches ------------------------------------------------------------- */

/* Waits (lock held) while every slot is in flight; the staging slot is
 * then free (slots are taken and finished in order). FALSE with the
 * sticky error after a failed batch. */
static gboolean
wait_for_slot (GpufftLoudness * lo, GError ** error)
{
  while (lo->error == NULL && lo->n_busy == LOUDNESS_SLOTS)
    if (!loudness_wait (lo)) {
      g_set_error (error, GPUFFT_ERROR, GPUFFT_ERROR_CANCELLED,
          "loudness: the wait for a slot was cancelled");
      return FALSE;
    }
  if (!lo->error)
    return TRUE;
  g_propagate_error (error, g_error_copy (lo->error));
  return FALSE;
}

gfloat *
gpufft_loudness_staging (GpufftLoudness * lo, GError ** error)
{
  gboolean failed;

  g_mutex_lock (&lo->lock);
  failed = !wait_for_slot (lo, error);
  g_mutex_unlock (&lo->lock);
  if (failed)
    return NULL;
  return lo->host ? lo->host_staging[lo->next] :
      lo->slots[lo->next].staging.mapped;
}

/* CPU devices: the batch measured at once, on this thread, its result
 * delivered before submit returns */
static void
submit_host (GpufftLoudness * lo, guint n_blocks, gboolean reset, guint64 tag)
{
  GpufftLoudnessResult r;
  GpufftLoudnessFunc func;
  gpointer data;

  gpufft_loudness_host_run (lo->host, lo->host_staging[lo->next], n_blocks,
      reset, lo->host_values);
  lo->next = (lo->next + 1) % LOUDNESS_SLOTS;
  g_mutex_lock (&lo->lock);
  func = lo->func;
  data = lo->func_data;
  g_mutex_unlock (&lo->lock);
  if (!func)
    return;
  r.tag = tag;
  r.n_blocks = n_blocks;
  r.channels = lo->cfg.channels;
  r.values = lo->host_values;
  func (&r, NULL, data);
}

gboolean
gpufft_loudness_submit (GpufftLoudness * lo, guint n_blocks, gboolean reset,
    guint64 tag, GError ** error)
{
  Slot *s;
  gboolean failed;

  if (n_blocks < 1 || n_blocks > lo->cfg.max_blocks) {
    g_set_error (error, GPUFFT_ERROR, GPUFFT_ERROR_INVALID_ARGUMENT,
        "loudness: a batch holds 1 .. %u blocks, not %u", lo->cfg.max_blocks,
        n_blocks);
    return FALSE;
  }
  if (lo->host) {
    submit_host (lo, n_blocks, reset, tag);
    return TRUE;
  }
  g_mutex_lock (&lo->lock);
  failed = !wait_for_slot (lo, error);
  if (!failed)
    lo->n_busy++;
  g_mutex_unlock (&lo->lock);
  if (failed)
    return FALSE;

  s = &lo->slots[lo->next];
  s->tag = tag;
  s->params.n_blocks = n_blocks;
  s->params.s = lo->cfg.block_frames;
  s->params.c = lo->cfg.channels;
  s->params.base = lo->cfg.block_frames / CHUNKS;
  s->params.extra = lo->cfg.block_frames % CHUNKS;
  s->params.parity = lo->parity;
  s->job.cold = !lo->started;   /* (the kernels' first run) */
  s->params.reset = reset || !lo->started ? 1 : 0;
  lo->started = TRUE;
  s->params.phases = lo->cfg.tp_phases;
  s->job.copied_bytes = (guint64) n_blocks *lo->cfg.block_frames *
      lo->cfg.channels * sizeof (gfloat);
  s->job.work = (guint64) n_blocks *lo->cfg.block_frames * lo->cfg.channels;
  lo->parity = 1 - lo->parity;
  lo->next = (lo->next + 1) % LOUDNESS_SLOTS;
  /* (the staging is host-coherent: the queue's lock orders its writes
   * before the recording) */
  gpufft_scheduler_queue (lo->sched, &s->job);
  return TRUE;
}

void
gpufft_loudness_flush (GpufftLoudness * lo)
{
  g_mutex_lock (&lo->lock);
  while (lo->n_busy > 0 && loudness_wait (lo));
  g_mutex_unlock (&lo->lock);
}
