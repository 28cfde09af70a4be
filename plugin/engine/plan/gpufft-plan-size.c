/* GpufftPlan: how big a plan's kernel and batches are (see
 * gpufft-plan-private.h): the fused kernel's shape, from the defaults or
 * GPUFFT_FFT_TUNE, and the batch limits within the device's limits. Plan
 * creation's thread. */
#include <string.h>

#include "gpufft-plan-private.h"

guint64
gpufft_plan_size_input_bytes (const GpufftPlan * plan, guint64 span)
{
  return (guint64) gpufft_plan_plane_stride (span) * plan->cfg.channels *
      plan->bps + 16;
}

void
gpufft_plan_size_shape (GpufftPlanShape * sh)
{
  const gchar *env = g_getenv ("GPUFFT_FFT_TUNE");
  gchar **kv, **it;

  sh->e = FFT_E;
  sh->lanes = LANE_THREADS;
  sh->pad = sh->vec2 = -1;
  sh->direct = 1;
  sh->chunk = FRAMES_PER_CHUNK;
  sh->slice_mib = SLICE_BYTES >> 20;
  sh->hold = 0;
  if (!env)
    return;
  kv = g_strsplit (env, ",", 16);     /* (at most 16 entries) */
  for (it = kv; *it; it++) {
    gchar *eq = strchr (*it, '=');
    guint64 val;

    if (!eq || !g_ascii_string_to_unsigned (eq + 1, 10, 0, 4096, &val, NULL)) {
      g_warning ("GPUFFT_FFT_TUNE: '%s' left out: KEY=N expected, N from 0 "
          "to 4096", *it);
      continue;
    }
    *eq = '\0';
    if (strcmp (*it, "e") == 0 && (val == 8 || val == 16))
      sh->e = (gint) val;
    else if (strcmp (*it, "lanes") == 0 && val >= 1 && (val & (val - 1)) == 0)
      sh->lanes = (gint) val;
    else if (strcmp (*it, "pad") == 0 && val <= 1)
      sh->pad = (gint) val;
    else if (strcmp (*it, "vec2") == 0 && val <= 1)
      sh->vec2 = (gint) val;
    else if (strcmp (*it, "direct") == 0 && val <= 1)
      sh->direct = (gint) val;
    else if (strcmp (*it, "chunk") == 0 && val >= 1 && val <= 256)
      sh->chunk = (gint) val;
    else if (strcmp (*it, "slice") == 0 && val >= 1 && val <= 1024)
      sh->slice_mib = (gint) val;
    else if (strcmp (*it, "hold") == 0 && val <= 1)
      sh->hold = (gint) val;
    else
      g_warning ("GPUFFT_FFT_TUNE: '%s=%" G_GUINT64_FORMAT "' left out: "
          "valid are e=8|16, lanes=N (a power of two), pad=0|1, vec2=0|1, "
          "direct=0|1, chunk=1..256, slice=1..1024, hold=0|1", *it, val);
  }
  g_strfreev (kv);
}

gboolean
gpufft_plan_size_batch (GpufftPlan * plan, const VkPhysicalDeviceLimits * lim,
    GError ** error)
{
  const GpufftPlanConfig *c = &plan->cfg;
  guint64 range = lim->maxStorageBufferRange;
  /* (the CPU kernel reads the input through a view of 4-byte texels) */
  guint64 in_range = plan->cpu ? MIN (range,
      (guint64) lim->maxTexelBufferElements * 4) : range;
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
    if (gpufft_plan_size_input_bytes (plan, span) <= MIN (in_range,
            G_MAXUINT32) || frames == 1)
      break;
    frames = MAX (1, frames / 2);
  }
  if (gpufft_plan_size_input_bytes (plan, span) > MIN (in_range,
          G_MAXUINT32)) {
    g_set_error (error, GPUFFT_ERROR, GPUFFT_ERROR_UNSUPPORTED,
        "one frame of %u samples x %u channels does not fit the device's "
        "largest storage buffer (%" G_GUINT64_FORMAT " bytes)",
        c->fft_size, c->channels, range);
    return FALSE;
  }

  /* The largest per-group result buffer: power, complex or peaks. */
  group_bytes = plan->out_ch * MAX (MAX (row, c->complex_out ? 2 * row : 0),
      MAX ((guint64) plan->n_peaks * 16, (guint64) plan->ext_row * 4));
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
  /* (four-step, see below, and one frame per chunk: room for one chunk
   * beyond the groups) */
  if (plan->four_step || plan->per_frame)
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

  /* The CPU kernel's chunks hold at most gpufft_plan_cpu_chunk_cap ()
   * frames (write_tables). */
  if (plan->cpu && chunks > groups)
    frames = MIN (frames, (chunks - groups) *
        (guint64) gpufft_plan_cpu_chunk_cap (plan));

  if (plan->four_step) {
    guint64 per_frame = (guint64) plan->out_ch * plan->m * 2 * sizeof (gfloat);
    /* (each kernel's dispatch, a workgroup per frame and column, or per
     * chunk and row block, within the device's workgroup count) */
    guint64 wg_frames = lim->maxComputeWorkGroupCount[0] /
        MAX (MAX (plan->cols, plan->rows_kb), 1);

    plan->slice_frames = CLAMP (MIN (MIN (plan->slice_bytes, range)
            / per_frame, wg_frames), 1, frames);
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

  /* One frame per chunk (averaging modes, frame rows). */
  if (plan->per_frame) {
    if (chunks <= groups) {
      g_set_error (error, GPUFFT_ERROR, GPUFFT_ERROR_UNSUPPORTED,
          "%u output channels of %u bins exceed the device's largest "
          "storage buffer", plan->out_ch, plan->nb);
      return FALSE;
    }
    /* (the mean phase: a complex row per chunk, after the group rows and
     * the carry row, all in one buffer of at most PHASE_BYTES, or of
     * four rows where those take more, within the device's range) */
    if (c->phase_mean) {
      guint64 per = 2 * row * plan->out_ch;
      guint64 rows = MIN (range, MAX ((guint64) PHASE_BYTES, 4 * per)) / per;

      if (rows < 4) {
        g_set_error (error, GPUFFT_ERROR, GPUFFT_ERROR_UNSUPPORTED,
            "the phase rows of %u output channels of %u bins exceed the "
            "device's largest storage buffer", plan->out_ch, plan->nb);
        return FALSE;
      }
      groups = MAX (1, MIN (groups, (rows - 2) / 2));
      chunks = MIN (chunks, rows - groups - 1);
    }
    frames = MIN (frames, chunks - groups);
    frames = MIN (frames, gpufft_plan_analysis_max_frames (plan, range));
    if (frames == 0) {
      g_set_error (error, GPUFFT_ERROR, GPUFFT_ERROR_UNSUPPORTED,
          "one frame's rows (%u output channels of %u values) do not fit "
          "the device's largest storage buffer", plan->out_ch, plan->frame_row);
      return FALSE;
    }
    if (plan->four_step)
      plan->slice_frames = MIN (plan->slice_frames, frames);
    span = (frames - 1) * c->hop + c->fft_size;
  }

  plan->max_frames = frames;
  plan->max_groups = groups;
  plan->max_chunks = chunks;
  plan->max_span = span;
  return TRUE;
}
