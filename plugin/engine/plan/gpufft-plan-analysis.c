/* The analysis stage of a plan: averaging modes (exponential, peak hold,
 * max hold), bin gains (frequency weighting), bands, level and per-frame
 * rows. The reduce kernel (shaders/reduce.comp) does the work on the
 * device; this file checks the configuration, sizes and fills what the
 * kernel reads (one table buffer: gains, level weights, band rows and
 * their weights), owns the state and result buffers, and hands the results
 * back on the completion thread. See gpufft.h for the definitions and
 * gpufft-plan-private.h for how the plan's files divide the work.
 *
 * Threads: check/setup/buffers/slot on the plan's creator; fill and
 * add_frames on the device's completion thread (frame_acc, band_scratch
 * and level_scratch are that thread's). */
#include <math.h>
#include <string.h>

#include "gpufft-plan-private.h"

/* frame rows of one batch, at most */
#define FRAME_BYTES (32u << 20)

gboolean
gpufft_plan_analysis_check (const GpufftPlanConfig * c, GError ** error)
{
  guint nb = c->fft_size / 2 + 1, b, k;

  switch (c->averaging) {
    case GPUFFT_AVERAGING_MEAN:
    case GPUFFT_AVERAGING_PEAK_HOLD:
    case GPUFFT_AVERAGING_MAX_HOLD:
      break;
    case GPUFFT_AVERAGING_MEAN_DB:
      if (!c->output_db || c->n_bands > 0 || c->level_weights || c->n_peaks > 0)
        return gpufft_error_invalid (error, "the mean of dB values needs dB "
            "output (output_db), and takes no bands, level or peaks");
      break;
    case GPUFFT_AVERAGING_EXPONENTIAL:
      if (!(c->time_constant > 0.0) || !isfinite (c->time_constant))
        return gpufft_error_invalid (error, "exponential averaging needs a "
            "time constant above 0 s (%g given)", c->time_constant);
      break;
    default:
      return gpufft_error_invalid (error, "unknown averaging %d", c->averaging);
  }
  if (c->phase_mean && (!c->complex_out
          || c->averaging != GPUFFT_AVERAGING_MEAN_DB))
    return gpufft_error_invalid (error, "the mean phase needs complex output "
        "and the mean of dB values (MEAN_DB)");
  for (k = 0; c->bin_gain && k < nb; k++)
    if (!(c->bin_gain[k] >= 0.0f) || !isfinite (c->bin_gain[k]))
      return gpufft_error_invalid (error, "bin gain %u is %g: gains must be "
          "finite and >= 0", k, c->bin_gain[k]);
  for (k = 0; c->level_weights && k < nb; k++)
    if (!isfinite (c->level_weights[k]))
      return gpufft_error_invalid (error, "level weight %u is not finite", k);
  if (c->n_bands > GPUFFT_MAX_BANDS)
    return gpufft_error_invalid (error, "%u bands: at most %u", c->n_bands,
        GPUFFT_MAX_BANDS);
  if (c->n_bands > 0 && (!c->band_first || !c->band_bins || !c->band_weights))
    return gpufft_error_invalid (error, "bands need first bins, bin counts "
        "and weights");
  for (b = 0, k = 0; b < c->n_bands; b++) {
    guint j;

    if (c->band_first[b] >= nb || c->band_bins[b] > nb - c->band_first[b])
      return gpufft_error_invalid (error, "band %u (bins %u + %u) lies "
          "outside the %u bins", b, c->band_first[b], c->band_bins[b], nb);
    for (j = 0; j < c->band_bins[b]; j++, k++)
      if (!isfinite (c->band_weights[k]))
        return gpufft_error_invalid (error, "band %u: weight %u is not "
            "finite", b, j);
  }
  return TRUE;
}

void
gpufft_plan_analysis_setup (GpufftPlan * plan)
{
  const GpufftPlanConfig *c = &plan->cfg;

  plan->per_frame = c->averaging != GPUFFT_AVERAGING_MEAN || c->frames_out;
  plan->fresh = TRUE;
  plan->n_bands = c->n_bands;
  plan->has_level = c->level_weights != NULL;
  plan->ext_row = plan->n_bands + (plan->has_level ? 1 : 0);
  plan->frame_values = plan->n_bands > 0 ? plan->n_bands : plan->nb;
  plan->frame_row = plan->frame_values + (plan->has_level ? 1 : 0);
  if (c->averaging == GPUFFT_AVERAGING_EXPONENTIAL) {
    gdouble a = exp (-(gdouble) c->hop / (c->rate * c->time_constant));

    plan->alpha = (gfloat) a;
    plan->beta = (gfloat) - expm1 (-(gdouble) c->hop /
        (c->rate * c->time_constant));
  }
}

/* The most frames a batch may hold for the frame rows. */
guint64
gpufft_plan_analysis_max_frames (GpufftPlan * plan, guint64 range)
{
  guint64 per = (guint64) plan->out_ch * plan->frame_row * sizeof (gfloat);

  if (!plan->cfg.frames_out)
    return G_MAXUINT64;
  if (per > range)
    return 0;                   /* one frame's row does not fit */
  return MAX (1, MIN (range, FRAME_BYTES) / per);
}

gboolean
gpufft_plan_analysis_buffers (GpufftPlan * plan, GError ** error)
{
  const GpufftPlanConfig *c = &plan->cfg;
  GpufftContext *ctx = plan->ctx;
  guint nb = plan->nb, b, k, n_w = 0, w;
  guint32 *tab;

  for (b = 0; b < plan->n_bands; b++)
    n_w += c->band_bins[b];
  if (c->bin_gain || plan->has_level || plan->n_bands > 0) {
    gsize words = (gsize) 2 * nb + 3 * plan->n_bands + n_w;
    gboolean ok;

    tab = g_new (guint32, words);
    for (k = 0; k < nb; k++) {
      gfloat g = c->bin_gain ? c->bin_gain[k] : 1.0f;
      gfloat l = plan->has_level ? c->level_weights[k] : 0.0f;

      memcpy (&tab[k], &g, 4);
      memcpy (&tab[nb + k], &l, 4);
    }
    w = 2 * nb + 3 * plan->n_bands;
    for (b = 0; b < plan->n_bands; b++) {
      tab[2 * nb + 3 * b] = c->band_first[b];
      tab[2 * nb + 3 * b + 1] = c->band_bins[b];
      tab[2 * nb + 3 * b + 2] = w;
      w += c->band_bins[b];
    }
    /* (no bands: no weights, and band_weights may be NULL) */
    if (n_w > 0)
      memcpy (&tab[2 * nb + 3 * plan->n_bands], c->band_weights,
          (gsize) n_w * sizeof (gfloat));
    /* (in device memory: the reduce kernel reads them at every group) */
    ok = gpufft_buffer_init (&plan->tables, ctx, words * sizeof (guint32),
        GPUFFT_MEMORY_DEVICE, error)
        && gpufft_buffer_upload (&plan->tables, ctx, tab,
        words * sizeof (guint32), error);
    g_free (tab);
    if (!ok)
      return FALSE;
  }
  /* (the arrays were the caller's: read here only) */
  plan->cfg.bin_gain = plan->cfg.level_weights = NULL;
  plan->cfg.band_first = plan->cfg.band_bins = NULL;
  plan->cfg.band_weights = NULL;

  /* (exponential: a second row per channel, its sums' compensation) */
  if (c->averaging != GPUFFT_AVERAGING_MEAN
      && c->averaging != GPUFFT_AVERAGING_MEAN_DB
      && !gpufft_buffer_init (&plan->state, ctx, (gsize) plan->out_ch *
          (nb + 1) * sizeof (gfloat) *
          (c->averaging == GPUFFT_AVERAGING_EXPONENTIAL ? 2 : 1),
          GPUFFT_MEMORY_DEVICE, error))
    return FALSE;
  if (plan->ext_row > 0 && !gpufft_buffer_init (&plan->ext_dev, ctx,
          (gsize) plan->max_groups * plan->out_ch * plan->ext_row *
          sizeof (gfloat), GPUFFT_MEMORY_DEVICE, error))
    return FALSE;
  if (c->frames_out && !gpufft_buffer_init (&plan->frames_dev, ctx,
          (gsize) plan->max_frames * plan->out_ch * plan->frame_row *
          sizeof (gfloat), GPUFFT_MEMORY_DEVICE, error))
    return FALSE;
  plan->frame_acc = g_array_new (FALSE, FALSE, sizeof (gfloat));
  plan->band_scratch = g_new0 (gfloat, MAX (1, (gsize) plan->out_ch *
          plan->n_bands));
  plan->level_scratch = g_new0 (gfloat, plan->out_ch);
  return TRUE;
}

gboolean
gpufft_plan_analysis_slot (GpufftPlan * plan, GpufftSlot * s, GError ** error)
{
  s->group_frames = g_new0 (guint, plan->max_groups);
  if (plan->ext_row > 0 && !gpufft_buffer_init (&s->ext, plan->ctx,
          (gsize) plan->max_groups * plan->out_ch * plan->ext_row *
          sizeof (gfloat), GPUFFT_MEMORY_READBACK, error))
    return FALSE;
  if (plan->cfg.frames_out && !gpufft_buffer_init (&s->frames, plan->ctx,
          (gsize) plan->max_frames * plan->out_ch * plan->frame_row *
          sizeof (gfloat), GPUFFT_MEMORY_READBACK, error))
    return FALSE;
  return TRUE;
}

void
gpufft_plan_analysis_slot_clear (GpufftPlan * plan, GpufftSlot * s)
{
  gpufft_buffer_clear (&s->ext, plan->ctx);
  gpufft_buffer_clear (&s->frames, plan->ctx);
  g_clear_pointer (&s->group_frames, g_free);
}

void
gpufft_plan_analysis_clear (GpufftPlan * plan)
{
  gpufft_buffer_clear (&plan->tables, plan->ctx);
  gpufft_buffer_clear (&plan->state, plan->ctx);
  gpufft_buffer_clear (&plan->ext_dev, plan->ctx);
  gpufft_buffer_clear (&plan->frames_dev, plan->ctx);
  if (plan->frame_acc)
    g_array_unref (plan->frame_acc);
  plan->frame_acc = NULL;
  g_clear_pointer (&plan->band_scratch, g_free);
  g_clear_pointer (&plan->level_scratch, g_free);
}

void
gpufft_plan_analysis_fill (GpufftPlan * plan, GpufftSlot * s, guint g,
    GpufftGroupResult * r)
{
  const gfloat *ext;
  guint c;

  if (plan->ext_row == 0)
    return;
  ext = (const gfloat *) s->ext.mapped + (gsize) g *plan->out_ch *
      plan->ext_row;
  for (c = 0; c < plan->out_ch; c++) {
    memcpy (plan->band_scratch + (gsize) c * plan->n_bands,
        ext + (gsize) c * plan->ext_row, plan->n_bands * sizeof (gfloat));
    if (plan->has_level)
      plan->level_scratch[c] = ext[(gsize) c * plan->ext_row + plan->n_bands];
  }
  if (plan->n_bands > 0) {
    r->bands = plan->band_scratch;
    r->n_bands = plan->n_bands;
  }
  if (plan->has_level)
    r->level = plan->level_scratch;
}

void
gpufft_plan_analysis_add_frames (GpufftPlan * plan, GpufftSlot * s,
    guint first, guint n)
{
  gsize row = (gsize) plan->out_ch * plan->frame_row;

  if (!plan->cfg.frames_out || n == 0)
    return;
  g_array_append_vals (plan->frame_acc,
      (const gfloat *) s->frames.mapped + first * row, n * row);
}
