/* The spectrogram renderer (see gpufft-render.h): buffers, the two passes
 * of shaders/render.comp, one submission and one fence wait per run (with
 * the stall deadline, and cancellable); a render freed with a run in
 * flight is freed by a thread of the engine's. */
#include <string.h>

#include "gpufft-render.h"
#include "gpufft-command.h"
#include "gpufft-descriptor-pool.h"
#include "gpufft-import.h"
#include "gpufft-cache.h"
#include "gpufft-pipeline-cache.h"
#include "gpufft-vk-error.h"

static const guint32 render_spv[] =
#include "render.spv.h"
    ;

#define RENDER_T 64             /* local_size_x of render.comp */
#define N_BUFFERS 7
#define N_TARGETS 8             /* imports kept (a buffer pool's worth) */
/* A run's expected time before any was measured, per pixel of the frame:
 * far slower than any device measured (lavapipe composes a 1920x1080 frame
 * in a few tens of ms), so that the first runs' stall deadlines err on the
 * long side. */
#define PRIOR_NS_PER_PIXEL_CPU 1000.0
#define PRIOR_NS_PER_PIXEL_GPU 10.0

typedef struct
{
  gpointer data;
  gsize size;
  guint64 key, last_use;
  GpufftImport imp;
} Target;

typedef struct
{
  guint32 width, height;
  guint32 wx, wy, ww, wh;
  guint32 sx, sy, sw, sh;
  guint32 n_values, n_new, head;
  gfloat min_db, inv_range, peak_fall;
  guint32 background, bar_background, peak;
} RenderParams;

struct _GpufftRender
{
  GpufftContext *ctx;
  GpufftRenderConfig cfg;
  const GpufftPipeline *columns_pipe, *compose_pipe;
  GpufftDescriptorPool pool;
  VkDescriptorSet columns_set, compose_set;
  GpufftBuffer cols, map, ring, spec, lut, overlay, out;
  GpufftBuffer readback;        /* when `out` is not host-visible */
  GpufftCommand cmd;
  guint head;                   /* ring index of the next new column */
  gboolean reset;
  Target targets[N_TARGETS];
  guint64 uses;
  gboolean import;              /* the device imports the caller's memory */
  gint64 submitted_us;          /* the run in flight's submission */
  gboolean ran;                 /* a run completed (the first, the
                                 * kernels' first run, may wait up to the
                                 * fence timeout: the driver may compile
                                 * them only then) */
  gdouble expected_ns;          /* the slowest recent run (submission to
                                 * fence) */
  GDestroyNotify held_release;  /* gpufft_render_hold: called once the run
                                 * in flight is done */
  gpointer held_data;
};

static gboolean
invalid (GError ** error, const gchar * what)
{
  g_set_error (error, GPUFFT_ERROR, GPUFFT_ERROR_INVALID_ARGUMENT,
      "spectrogram render: %s", what);
  return FALSE;
}

static gboolean
rect_inside (guint x, guint y, guint w, guint h, guint width, guint height)
{
  if (w == 0 && h == 0)
    return TRUE;
  return w > 0 && h > 0 && x + w <= width && y + h <= height;
}

static gboolean
check_config (const GpufftRenderConfig * c, GError ** error)
{
  guint i, n_map = c->wf_h + c->sp_w;

  if (c->width < 1 || c->height < 1 || c->width > GPUFFT_RENDER_MAX_SIZE
      || c->height > GPUFFT_RENDER_MAX_SIZE)
    return invalid (error, "width and height must be 1..8192");
  if (!rect_inside (c->wf_x, c->wf_y, c->wf_w, c->wf_h, c->width, c->height))
    return invalid (error, "the waterfall must lie inside the frame");
  if (!rect_inside (c->sp_x, c->sp_y, c->sp_w, c->sp_h, c->width, c->height))
    return invalid (error, "the spectrum panel must lie inside the frame");
  if (c->n_values < 1 || c->max_columns < 1)
    return invalid (error, "n_values and max_columns must be >= 1");
  if (n_map > 0 && c->map == NULL)
    return invalid (error, "map is NULL");
  for (i = 0; i < n_map; i++)
    if (c->map[i].first >= c->n_values
        || c->map[i].first + c->map[i].count > c->n_values)
      return invalid (error, "a map entry reads past n_values");
  for (i = 0; i < 4; i++)
    if (c->shift[i] > 24 || c->shift[i] % 8 != 0)
      return invalid (error, "shifts must be 0, 8, 16 or 24");
  if (c->shift[0] == c->shift[1] || c->shift[0] == c->shift[2]
      || c->shift[0] == c->shift[3] || c->shift[1] == c->shift[2]
      || c->shift[1] == c->shift[3] || c->shift[2] == c->shift[3])
    return invalid (error, "the four shifts must differ");
  return TRUE;
}

/* Whether frames go straight into the caller's memory: on GPUs that can
 * import host memory (it saves the host a copy of every frame); not on CPU
 * devices, where the device's copy is a CPU copy too. GPUFFT_RENDER_IMPORT
 * = 1 or 0 overrides (where the device can import at all). */
static gboolean
import_targets (GpufftContext * ctx)
{
  const gchar *env = g_getenv ("GPUFFT_RENDER_IMPORT");

  if (ctx->pointer_import_align == 0)
    return FALSE;
  if (env && *env)
    return g_strcmp0 (env, "0") != 0;
  return !gpufft_context_is_cpu (ctx);
}

GpufftRender *
gpufft_render_new (GpufftContext * ctx, const GpufftRenderConfig * config,
    GError ** error)
{
  GpufftRender *r;
  guint32 spec0 = 0, spec1 = 1;
  guint n_map, i;
  gsize pixels;
  guint32 *m;
  GpufftBuffer *bufs[N_BUFFERS];

  if (!check_config (config, error))
    return NULL;
  {
    guint64 frame = (guint64) config->width * config->height * 4;
    guint64 ring = (guint64) config->wf_w * config->wf_h * 4;
    guint64 range = ctx->props.limits.maxStorageBufferRange;

    if (frame > range || ring > range) {
      g_set_error (error, GPUFFT_ERROR, GPUFFT_ERROR_UNSUPPORTED,
          "a %ux%u frame needs %" G_GUINT64_FORMAT " bytes in one storage "
          "buffer; this device binds at most %" G_GUINT64_FORMAT
          " (a smaller picture fits)", config->width, config->height,
          frame, range);
      return NULL;
    }
  }
  r = g_new0 (GpufftRender, 1);
  r->ctx = gpufft_context_ref (ctx);
  r->cfg = *config;
  r->cfg.map = NULL;
  r->reset = TRUE;
  n_map = config->wf_h + config->sp_w;
  pixels = (gsize) config->width * config->height;
  r->import = import_targets (ctx);
  r->expected_ns = pixels * (gpufft_context_is_cpu (ctx) ?
      PRIOR_NS_PER_PIXEL_CPU : PRIOR_NS_PER_PIXEL_GPU);

  r->columns_pipe = gpufft_cache_pipeline (ctx, render_spv,
      sizeof (render_spv), N_BUFFERS, NULL, sizeof (RenderParams), &spec0, 1,
      error);
  if (!r->columns_pipe)
    goto fail;
  r->compose_pipe = gpufft_cache_pipeline (ctx, render_spv,
      sizeof (render_spv), N_BUFFERS, NULL, sizeof (RenderParams), &spec1, 1,
      error);
  if (!r->compose_pipe)
    goto fail;

  if (!gpufft_buffer_init (&r->cols, ctx, (VkDeviceSize) config->max_columns
          * config->n_values * sizeof (gfloat), GPUFFT_MEMORY_UPLOAD, error)
      || !gpufft_buffer_init (&r->map, ctx, MAX (n_map, 1) * 16,
          GPUFFT_MEMORY_UPLOAD, error)
      || !gpufft_buffer_init (&r->ring, ctx, (VkDeviceSize) MAX (1,
              config->wf_w) * MAX (1, config->wf_h) * sizeof (gfloat),
          GPUFFT_MEMORY_DEVICE, error)
      || !gpufft_buffer_init (&r->spec, ctx, (VkDeviceSize) 2 * MAX (1,
              config->sp_w) * sizeof (gfloat), GPUFFT_MEMORY_DEVICE, error)
      || !gpufft_buffer_init (&r->lut, ctx, 256 * 4, GPUFFT_MEMORY_UPLOAD,
          error)
      || !gpufft_buffer_init (&r->overlay, ctx, pixels * 4,
          GPUFFT_MEMORY_UPLOAD, error)
      /* the frame: in device memory when the device copies it into the
       * caller's memory, else where the host reads it */
      || !gpufft_buffer_init (&r->out, ctx, pixels * 4, r->import ?
          GPUFFT_MEMORY_DEVICE : GPUFFT_MEMORY_READBACK, error))
    goto fail;
  /* (a caller's memory the driver refuses: the frame comes back here) */
  if (!r->out.mapped && !gpufft_buffer_init (&r->readback, ctx, pixels * 4,
          GPUFFT_MEMORY_READBACK, error))
    goto fail;
  if (!r->cols.mapped || !r->map.mapped || !r->lut.mapped
      || !r->overlay.mapped || !(r->out.mapped || r->readback.mapped)) {
    g_set_error (error, GPUFFT_ERROR, GPUFFT_ERROR_FAILED,
        "spectrogram render: host-visible memory could not be mapped");
    goto fail;
  }

  m = r->map.mapped;
  for (i = 0; i < n_map; i++) {
    m[4 * i] = config->map[i].first;
    m[4 * i + 1] = config->map[i].count;
    memcpy (&m[4 * i + 2], &config->map[i].frac, 4);
    m[4 * i + 3] = 0;
  }
  memset (r->lut.mapped, 0, 256 * 4);
  memset (r->overlay.mapped, 0, pixels * 4);
  memset (r->cols.mapped, 0, r->cols.size);
  if (!gpufft_buffer_flush (&r->map, ctx, error)
      || !gpufft_buffer_flush (&r->cols, ctx, error))
    goto fail;

  if (!gpufft_descriptor_pool_init (&r->pool, ctx, 2, N_BUFFERS, error))
    goto fail;
  bufs[0] = &r->cols;
  bufs[1] = &r->map;
  bufs[2] = &r->ring;
  bufs[3] = &r->spec;
  bufs[4] = &r->lut;
  bufs[5] = &r->overlay;
  bufs[6] = &r->out;
  if (!gpufft_descriptor_pool_alloc (&r->pool, ctx, r->columns_pipe, bufs,
          &r->columns_set, error)
      || !gpufft_descriptor_pool_alloc (&r->pool, ctx, r->compose_pipe, bufs,
          &r->compose_set, error))
    goto fail;
  if (!gpufft_command_init (&r->cmd, ctx, 0, error))
    goto fail;
  /* (the pipelines it made, for the next process) */
  gpufft_pipeline_cache_save (ctx);
  return r;

fail:
  gpufft_render_free (r);
  return NULL;
}

/* Waits for the run in flight, at most until its stall deadline; cancel
 * (may be NULL) gives up. TRUE once it is done (what gpufft_render_hold
 * kept is released); FALSE with error: GPUFFT_ERROR_CANCELLED, or the
 * device hung (stall: the context is marked lost) or failed. */
static gboolean
render_wait (GpufftRender * r, const gint * cancel, GError ** error)
{
  GpufftContext *ctx = r->ctx;
  guint64 deadline = r->ran ?
      gpufft_context_stall_deadline_ns (ctx, r->expected_ns) :
      ctx->fence_timeout_ns;
  gint64 waited_ns;
  gboolean cancelled;
  GError *err = NULL;

  if (!r->cmd.pending)
    return TRUE;
  if (g_atomic_int_get (&ctx->lost)) {
    g_set_error (error, GPUFFT_ERROR, GPUFFT_ERROR_DEVICE_LOST,
        "the Vulkan device was lost");
    return FALSE;
  }
  waited_ns = (g_get_monotonic_time () - r->submitted_us) * 1000;
  if (gpufft_command_wait_cancellable (&r->cmd, ctx, waited_ns <
          (gint64) deadline ? deadline - waited_ns : 0, cancel, &cancelled,
          &err)) {
    gdouble ns = (g_get_monotonic_time () - r->submitted_us) * 1000.0;

    /* (rises at once, falls back by 1/16 a run; not the first run's) */
    if (r->ran)
      r->expected_ns = ns > r->expected_ns ? ns :
          r->expected_ns - (r->expected_ns - ns) / 16.0;
    r->ran = TRUE;
    if (r->held_release)
      r->held_release (r->held_data);
    r->held_release = NULL;
    r->held_data = NULL;
    return TRUE;
  }
  if (cancelled) {
    g_set_error (error, GPUFFT_ERROR, GPUFFT_ERROR_CANCELLED,
        "spectrogram render: the wait was cancelled");
    return FALSE;
  }
  if (err == NULL)
    gpufft_context_set_stall_error (ctx, &err, "a spectrogram frame",
        (g_get_monotonic_time () - r->submitted_us) * 1000);
  if (g_error_matches (err, GPUFFT_ERROR, GPUFFT_ERROR_DEVICE_LOST))
    gpufft_context_set_lost (ctx);
  g_propagate_error (error, err);
  return FALSE;
}

void
gpufft_render_hold (GpufftRender * r, GDestroyNotify release, gpointer data)
{
  if (!r->cmd.pending) {
    release (data);
    return;
  }
  /* (one run in flight at most: a new run waits for it first) */
  if (r->held_release)
    r->held_release (r->held_data);
  r->held_release = release;
  r->held_data = data;
}

static void render_destroy (GpufftRender * r);

/* A thread of the engine's (counted by gpufft_wait_released): waits for
 * the abandoned run, then frees the render. */
static gpointer
render_release_thread (gpointer data)
{
  GpufftRender *r = data;

  render_wait (r, NULL, NULL);
  render_destroy (r);
  return NULL;
}

void
gpufft_render_free (GpufftRender * r)
{
  if (!r)
    return;
  if (r->cmd.pending && !g_atomic_int_get (&r->ctx->lost)) {
    if (gpufft_context_reap ("gpufft-free", render_release_thread, r))
      return;
    g_warning ("gpufft: no thread to free a spectrogram render with a run "
        "in flight: it is leaked");
    return;
  }
  render_destroy (r);
}

static void
render_destroy (GpufftRender * r)
{
  GpufftContext *ctx = r->ctx;

  /* (a run still pending here: the device was declared hung; its target
   * stays referenced) */
  if (!r->cmd.pending && r->held_release)
    r->held_release (r->held_data);
  gpufft_command_clear (&r->cmd, ctx);
  gpufft_render_forget_targets (r);
  gpufft_descriptor_pool_clear (&r->pool, ctx);
  gpufft_cache_release (ctx, r->columns_pipe);
  gpufft_cache_release (ctx, r->compose_pipe);
  gpufft_buffer_clear (&r->cols, ctx);
  gpufft_buffer_clear (&r->map, ctx);
  gpufft_buffer_clear (&r->ring, ctx);
  gpufft_buffer_clear (&r->spec, ctx);
  gpufft_buffer_clear (&r->lut, ctx);
  gpufft_buffer_clear (&r->overlay, ctx);
  gpufft_buffer_clear (&r->out, ctx);
  gpufft_buffer_clear (&r->readback, ctx);
  gpufft_context_unref (ctx);
  g_free (r);
}

static guint32
pack (const GpufftRenderConfig * c, guint8 r, guint8 g, guint8 b)
{
  return ((guint32) r << c->shift[0]) | ((guint32) g << c->shift[1]) |
      ((guint32) b << c->shift[2]) | (255u << c->shift[3]);
}

static guint32
pack_rgb (const GpufftRenderConfig * c, guint32 rgb)
{
  return pack (c, (rgb >> 16) & 255, (rgb >> 8) & 255, rgb & 255);
}

guint32
gpufft_render_pack (GpufftRender * r, guint8 red, guint8 green, guint8 blue)
{
  return pack (&r->cfg, red, green, blue);
}

guint32 *
gpufft_render_lut (GpufftRender * r)
{
  return r->lut.mapped;
}

guint32 *
gpufft_render_overlay (GpufftRender * r)
{
  return r->overlay.mapped;
}

gfloat *
gpufft_render_columns (GpufftRender * r)
{
  return r->cols.mapped;
}

const guint32 *
gpufft_render_pixels (GpufftRender * r)
{
  return r->out.mapped ? r->out.mapped : r->readback.mapped;
}

void
gpufft_render_reset (GpufftRender * r)
{
  r->reset = TRUE;
  r->head = 0;
}

void
gpufft_render_forget_targets (GpufftRender * r)
{
  guint i;

  /* (a run in flight may write one: waited for; where the device hung
   * with it in flight, the imports stay, a deliberate leak) */
  render_wait (r, NULL, NULL);
  if (r->cmd.pending)
    return;
  for (i = 0; i < N_TARGETS; i++) {
    gpufft_import_clear (r->ctx, &r->targets[i].imp);
    memset (&r->targets[i], 0, sizeof (r->targets[i]));
  }
}

/* The kept import of t, made now if needed (the least recently used one
 * makes room); NULL when the driver refuses the memory. Runs are waited
 * for before they return: no import is in use here. */
static Target *
target_import (GpufftRender * r, const GpufftRenderTarget * t)
{
  Target *slot = NULL;
  GError *err = NULL;
  guint i;

  for (i = 0; i < N_TARGETS; i++) {
    Target *c = &r->targets[i];

    if (c->data == t->data && c->size == t->size && c->key == t->key
        && c->imp.buffer != VK_NULL_HANDLE) {
      c->last_use = ++r->uses;
      return c;
    }
  }
  for (i = 0; i < N_TARGETS; i++) {
    Target *c = &r->targets[i];

    /* memory at a known address with a new key: the old one is gone */
    if (c->imp.buffer != VK_NULL_HANDLE && c->data == t->data)
      slot = c;
  }
  for (i = 0; !slot && i < N_TARGETS; i++)
    if (r->targets[i].imp.buffer == VK_NULL_HANDLE)
      slot = &r->targets[i];
  if (!slot) {
    /* all kept: the least recently used makes room */
    slot = &r->targets[0];
    for (i = 1; i < N_TARGETS; i++)
      if (r->targets[i].last_use < slot->last_use)
        slot = &r->targets[i];
  }
  gpufft_import_clear (r->ctx, &slot->imp);
  memset (slot, 0, sizeof (*slot));
  if (!gpufft_import_pointer_usage (r->ctx, t->data, t->size,
          VK_BUFFER_USAGE_TRANSFER_DST_BIT, &slot->imp, &err)) {
    g_debug ("spectrogram render: host memory not imported: %s", err->message);
    g_clear_error (&err);
    return NULL;
  }
  slot->data = t->data;
  slot->size = t->size;
  slot->key = t->key;
  slot->last_use = ++r->uses;
  return slot;
}

/* out -> the imported target, row by row unless the strides agree */
static void
record_target_copy (GpufftRender * r, Target * dst, gsize stride)
{
  const GpufftRenderConfig *c = &r->cfg;
  gsize row = (gsize) c->width * 4;
  guint n = stride == row ? 1 : c->height, y;
  VkBufferCopy *regions = g_newa (VkBufferCopy, MIN (n, 256));

  for (y = 0; y < n; y += 256) {
    guint k, m = MIN (256, n - y);

    for (k = 0; k < m; k++) {
      regions[k].srcOffset = (VkDeviceSize) (y + k) * row;
      regions[k].dstOffset = dst->imp.offset + (VkDeviceSize) (y + k) * stride;
      regions[k].size = n == 1 ? row * c->height : row;
    }
    vkCmdCopyBuffer (r->cmd.cmd, r->out.buffer, dst->imp.buffer, m, regions);
  }
  gpufft_command_barrier (&r->cmd);
}

static void
bind (GpufftRender * r, const GpufftPipeline * pipe, VkDescriptorSet set,
    const RenderParams * params)
{
  vkCmdBindPipeline (r->cmd.cmd, VK_PIPELINE_BIND_POINT_COMPUTE,
      pipe->pipeline);
  vkCmdBindDescriptorSets (r->cmd.cmd, VK_PIPELINE_BIND_POINT_COMPUTE,
      pipe->layout, 0, 1, &set, 0, NULL);
  vkCmdPushConstants (r->cmd.cmd, pipe->layout, VK_SHADER_STAGE_COMPUTE_BIT,
      0, sizeof (*params), params);
}

gboolean
gpufft_render_run (GpufftRender * r, const GpufftRenderRun * run,
    const GpufftRenderTarget * target, gboolean * written, GError ** error)
{
  Target *dst = NULL;
  const GpufftRenderConfig *c = &r->cfg;
  RenderParams params;
  guint n_map = c->wf_h + c->sp_w;
  gfloat floor_db = GPUFFT_RENDER_FLOOR_DB;
  guint32 floor_bits;

  if (run->n_columns > c->max_columns)
    return invalid (error, "more new columns than max_columns");
  if (!(run->min_db < run->max_db))
    return invalid (error, "min_db must be below max_db");
  if (g_atomic_int_get (&r->ctx->lost)) {
    g_set_error (error, GPUFFT_ERROR, GPUFFT_ERROR_DEVICE_LOST,
        "the Vulkan device was lost");
    return FALSE;
  }
  /* (a run whose wait was cancelled: done first) */
  if (!render_wait (r, run->cancel, error))
    return FALSE;

  if (written)
    *written = FALSE;
  if (target && run->compose && r->import) {
    if (target->stride < (gsize) c->width * 4
        || target->size < (gsize) (c->height - 1) * target->stride +
        (gsize) c->width * 4)
      return invalid (error, "the target is smaller than the frame");
    dst = target_import (r, target);
  }

  memset (&params, 0, sizeof (params));
  params.width = c->width;
  params.height = c->height;
  params.wx = c->wf_x;
  params.wy = c->wf_y;
  params.ww = c->wf_w;
  params.wh = c->wf_h;
  params.sx = c->sp_x;
  params.sy = c->sp_y;
  params.sw = c->sp_w;
  params.sh = c->sp_h;
  params.n_values = c->n_values;
  params.n_new = run->n_columns;
  params.head = r->head;
  params.min_db = run->min_db;
  params.inv_range = 1.0f / (run->max_db - run->min_db);
  params.peak_fall = run->peak_fall_db;
  params.background = pack_rgb (c, c->background);
  params.bar_background = pack_rgb (c, c->bar_background);
  params.peak = pack_rgb (c, c->peak);

  if (!gpufft_buffer_flush (&r->cols, r->ctx, error)
      || !gpufft_buffer_flush (&r->lut, r->ctx, error)
      || !gpufft_buffer_flush (&r->overlay, r->ctx, error)
      || !gpufft_command_begin (&r->cmd, r->ctx, error))
    return FALSE;
  if (r->reset) {
    memcpy (&floor_bits, &floor_db, 4);
    vkCmdFillBuffer (r->cmd.cmd, r->ring.buffer, 0, r->ring.size, floor_bits);
    vkCmdFillBuffer (r->cmd.cmd, r->spec.buffer, 0, r->spec.size, floor_bits);
    gpufft_command_barrier (&r->cmd);
  }
  if (run->n_columns > 0 && n_map > 0) {
    bind (r, r->columns_pipe, r->columns_set, &params);
    vkCmdDispatch (r->cmd.cmd, (n_map + RENDER_T - 1) / RENDER_T,
        run->n_columns, 1);
    gpufft_command_barrier (&r->cmd);
  }
  if (c->wf_w > 0)
    params.head = (r->head + run->n_columns) % c->wf_w;
  if (run->compose) {
    bind (r, r->compose_pipe, r->compose_set, &params);
    vkCmdDispatch (r->cmd.cmd, (c->width + RENDER_T - 1) / RENDER_T,
        c->height, 1);
    gpufft_command_barrier (&r->cmd);
    if (dst)
      record_target_copy (r, dst, target->stride);
    else if (!r->out.mapped) {
      VkBufferCopy region = { 0, 0, r->out.size };

      vkCmdCopyBuffer (r->cmd.cmd, r->out.buffer, r->readback.buffer, 1,
          &region);
      gpufft_command_barrier (&r->cmd);
    }
  }
  if (!gpufft_command_submit (&r->cmd, r->ctx, error))
    return FALSE;
  r->submitted_us = g_get_monotonic_time ();
  if (!render_wait (r, run->cancel, error))
    return FALSE;
  r->reset = FALSE;
  r->head = params.head;
  if (dst && written)
    *written = TRUE;
  if (run->compose && !dst && !gpufft_buffer_invalidate (r->out.mapped ?
          &r->out : &r->readback, r->ctx, error))
    return FALSE;
  return TRUE;
}
