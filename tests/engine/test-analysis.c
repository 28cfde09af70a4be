/* The analysis stage against double-precision references computed here
 * from each frame's scaled power (engine-test.c's DFT):
 *   exponential  y = a y + (1 - a) p per frame, a = exp (-hop / (rate tau)),
 *                from y = 0, carried across groups and batches
 *   peak hold    the per-bin maximum over each group
 *   max hold     the per-bin maximum since the start or a reset group
 *   (a reset group restarts the exponential and max hold from 0)
 *   gains, bands, level, frame rows: the sums written out below
 * Groups span batches (open groups) in every case. */
#include <math.h>
#include <string.h>

#include "engine-test.h"

/* the FFT size of the current test (power-of-two, mixed-radix and
 * four-step kernels) */
static guint n_fft = 256;
static gfloat db_floor = -300.0f;       /* the batches' */
#define N n_fft
#define HOP (n_fft / 2)
#define NB (n_fft / 2 + 1)
#define RATE 48000.0
#define N_BANDS 3
/* a = exp (-1/3) at every size: the state carries across frames */
#define TAU (3.0 * HOP / RATE)

typedef struct
{
  guint n_frames;
  gfloat *power;
  gfloat *phase;
  gfloat bands[N_BANDS];
  gfloat level;
  gboolean has_bands, has_level;
  GArray *frames;               /* floats */
  guint frame_stride, frame_values;
} Got;

static void
got_free (gpointer p)
{
  Got *g = p;

  if (g->frames)
    g_array_unref (g->frames);
  g_free (g->power);
  g_free (g->phase);
  g_free (g);
}

static void
collect (const GpufftGroupResult * r, gpointer user_data)
{
  Got *g = g_new0 (Got, 1);

  g->n_frames = r->n_frames;
  g->power = g_memdup2 (r->power, r->n_bins * sizeof (gfloat));
  if (r->phase)
    g->phase = g_memdup2 (r->phase, r->n_bins * sizeof (gfloat));
  if (r->bands) {
    g->has_bands = TRUE;
    memcpy (g->bands, r->bands, N_BANDS * sizeof (gfloat));
  }
  if (r->level) {
    g->has_level = TRUE;
    g->level = r->level[0];
  }
  if (r->frames) {
    g->frame_stride = r->frame_stride;
    g->frame_values = r->frame_values;
    g->frames = g_array_new (FALSE, FALSE, sizeof (gfloat));
    g_array_append_vals (g->frames, r->frames,
        (gsize) r->n_frames * r->channels * r->frame_stride);
  }
  g_ptr_array_add (user_data, g);
}

/* Batches of groups: frames, close, reset. The 3rd group spans batches
 * 1-2, the 5th batches 2-4; the 4th closed group resets. */
typedef struct
{
  guint frames;
  gboolean close, reset;
} G;

static const G batches[4][3] = {
  {{5, TRUE, FALSE}, {7, TRUE, FALSE}, {3, FALSE, FALSE}},
  {{4, TRUE, FALSE}, {6, FALSE, TRUE}, {0}},
  {{2, FALSE, FALSE}, {0}, {0}},
  {{3, TRUE, FALSE}, {9, TRUE, FALSE}, {0}},
};

#define N_GROUPS 5
static const guint group_frames[N_GROUPS] = { 5, 7, 7, 11, 9 };

static const guint reset_group = 3;

/* Runs the batches; returns the closed groups' results. */
static GPtrArray *
run (const GpufftPlanConfig * cfg, EtInput * in)
{
  GpufftContext *ctx = et_context ();
  GPtrArray *got = g_ptr_array_new_with_free_func (got_free);
  GError *err = NULL;
  GpufftPlan *plan;
  gsize frame = 0;
  guint b;

  plan = gpufft_plan_new (ctx, cfg, &err);
  if (!plan) {
    et_fail ("gpufft_plan_new: %s", err->message);
    g_error_free (err);
    return got;
  }
  for (b = 0; b < G_N_ELEMENTS (batches); b++) {
    GpufftGroup groups[3];
    GpufftSegment seg[2];
    gconstpointer planes[2];
    GpufftBatch batch = { 0 };
    guint i, n = 0;

    memset (groups, 0, sizeof (groups));
    for (i = 0; i < 3 && (i == 0 || batches[b][i].frames); i++) {
      groups[i].n_frames = batches[b][i].frames;
      groups[i].close = batches[b][i].close;
      groups[i].reset = batches[b][i].reset;
      n += groups[i].n_frames;
    }
    batch.groups = groups;
    batch.n_groups = i;
    batch.n_frames = n;
    batch.db_floor = db_floor;
    et_input_segments (in, frame * HOP, (n - 1) * HOP + N, 2, seg, planes);
    batch.segments = seg;
    batch.n_segments = 2;
    if (!gpufft_plan_submit (plan, &batch, &err)
        || gpufft_plan_collect (plan, TRUE, collect, got, &err) < 0) {
      et_fail ("batch %u: %s", b, err->message);
      g_clear_error (&err);
      break;
    }
    frame += n;
  }
  gpufft_plan_free (plan);
  if (got->len != N_GROUPS)
    et_fail ("%u groups closed, expected %u", got->len, N_GROUPS);
  return got;
}

/* The scaled power of stream frame i. */
static void
frame_power (EtInput * in, guint i, gdouble * p)
{
  et_ref_power (in, -1, (gsize) i * HOP, HOP, 1, N, GPUFFT_WINDOW_HANN,
      GPUFFT_SCALING_SPECTRUM, RATE, p);
}

static void
config (GpufftPlanConfig * c)
{
  gpufft_plan_config_init (c);
  c->fft_size = N;
  c->hop = HOP;
  c->rate = RATE;
  c->max_frames = 16;
  c->max_groups = 3;
}

/* Runs one averaging mode and checks each group against `mode`'s
 * recursion in double. */
static void
check_mode (GpufftAveraging mode, guint size)
{
  GpufftPlanConfig c;
  EtInput *in;
  GPtrArray *got;
  gdouble *y, *p, a, worst = 0;
  guint g, f, k, frame = 0;

  if (!et_context ())
    return;
  n_fft = size;
  a = exp (-(gdouble) HOP / (RATE * TAU));
  y = g_new0 (gdouble, NB);
  p = g_new0 (gdouble, NB);
  in = et_input_new (GPUFFT_FORMAT_F32, FALSE, 1, 64 * HOP + N, 0.3, 0.5, 7);
  config (&c);
  c.averaging = mode;
  c.time_constant = TAU;
  got = run (&c, in);
  for (g = 0; g < got->len && g < N_GROUPS; g++) {
    const Got *r = g_ptr_array_index (got, g);
    gchar *what;

    if (mode == GPUFFT_AVERAGING_PEAK_HOLD || g == reset_group)
      memset (y, 0, NB * sizeof (gdouble));
    for (f = 0; f < group_frames[g]; f++, frame++) {
      frame_power (in, frame, p);
      for (k = 0; k < NB; k++)
        y[k] = mode == GPUFFT_AVERAGING_EXPONENTIAL ? a * y[k] + (1 - a) *
            p[k] : MAX (y[k], p[k]);
    }
    if (r->n_frames != group_frames[g])
      et_fail ("group %u: %u frames, expected %u", g, r->n_frames,
          group_frames[g]);
    what = g_strdup_printf ("averaging %d, N %u, group %u", mode, N, g);
    /* (single frames of a long FFT: its float rounding, not averaged out) */
    worst = MAX (worst, et_check_power (r->power, y, NB, 90.0,
            N > 4096 ? 3e-4 : 2e-5, what));
    g_free (what);
  }
  g_test_message ("averaging %d, N %u: worst relative error %.3g", mode, N,
      worst);
  g_ptr_array_unref (got);
  et_input_free (in);
  g_free (y);
  g_free (p);
  n_fft = 256;
}

/* every kernel path: 256 (fused), 1000 (mixed radix), 32768 (four-step
 * on GPUs with 48 KiB of shared memory) */
static void
test_exponential (void)
{
  check_mode (GPUFFT_AVERAGING_EXPONENTIAL, 256);
  check_mode (GPUFFT_AVERAGING_EXPONENTIAL, 1000);
  check_mode (GPUFFT_AVERAGING_EXPONENTIAL, 32768);
}

static void
test_peak_hold (void)
{
  check_mode (GPUFFT_AVERAGING_PEAK_HOLD, 256);
  check_mode (GPUFFT_AVERAGING_PEAK_HOLD, 1000);
}

static void
test_max_hold (void)
{
  check_mode (GPUFFT_AVERAGING_MAX_HOLD, 256);
  check_mode (GPUFFT_AVERAGING_MAX_HOLD, 32768);
}

/* GStreamer spectrum's averaging (MEAN_DB): each group against the mean
 * over its frames of max (10 log10 p + db_offset, floor), in double, with
 * a floor that cuts into the spectrum (so that flooring before the mean
 * matters), through groups that span batches. With phase: also its phase,
 * the mean of each frame's atan2 (Im X_k, Re X_k), where every frame's
 * X_k is well conditioned (at least 1e-3 of the frame's largest, its
 * angle not within 1e-3 rad of +-pi, where float rounding may flip it
 * to the other side). */
static void
check_mean_db (guint size, gboolean phase)
{
  GpufftPlanConfig c;
  EtInput *in;
  GPtrArray *got;
  gdouble *sum, *p, *ph, *re, *im, worst = 0, worst_ph = 0;
  gboolean *bad;
  const gdouble offset = -3.5;
  guint g, f, k, frame = 0, floored = 0, phases = 0;

  if (!et_context ())
    return;
  n_fft = size;
  db_floor = -45.0f;
  sum = g_new0 (gdouble, NB);
  p = g_new0 (gdouble, NB);
  ph = g_new0 (gdouble, NB);
  re = g_new0 (gdouble, NB);
  im = g_new0 (gdouble, NB);
  bad = g_new0 (gboolean, NB);
  in = et_input_new (GPUFFT_FORMAT_F32, FALSE, 1, 64 * HOP + N, 0.3, 0.5, 9);
  config (&c);
  c.averaging = GPUFFT_AVERAGING_MEAN_DB;
  c.output_db = TRUE;
  c.db_offset = offset;
  c.n_peaks = 0;
  c.complex_out = c.phase_mean = phase;
  got = run (&c, in);
  for (g = 0; g < got->len && g < N_GROUPS; g++) {
    const Got *r = g_ptr_array_index (got, g);

    memset (sum, 0, NB * sizeof (gdouble));
    memset (ph, 0, NB * sizeof (gdouble));
    memset (bad, 0, NB * sizeof (gboolean));
    for (f = 0; f < group_frames[g]; f++, frame++) {
      frame_power (in, frame, p);
      for (k = 0; k < NB; k++) {
        gdouble db = 10 * log10 (p[k]) + offset;

        if (db < db_floor)
          floored++;
        sum[k] += MAX (db, db_floor);
      }
      if (phase) {
        gdouble top = 0;

        et_ref_complex (in, -1, (gsize) frame * HOP, N, GPUFFT_WINDOW_HANN,
            re, im);
        for (k = 0; k < NB; k++)
          top = MAX (top, hypot (re[k], im[k]));
        for (k = 0; k < NB; k++) {
          gdouble a = atan2 (k == 0 || k == NB - 1 ? 0.0 : im[k], re[k]);

          ph[k] += a;
          if (hypot (re[k], im[k]) < 1e-3 * top || G_PI - fabs (a) < 1e-3)
            bad[k] = TRUE;
        }
      }
    }
    if (r->n_frames != group_frames[g])
      et_fail ("group %u: %u frames, expected %u", g, r->n_frames,
          group_frames[g]);
    if (phase && r->phase == NULL)
      et_fail ("mean phase, N %u, group %u: no phase", N, g);
    for (k = 0; phase && r->phase && k < NB; k++) {
      gdouble err = fabs (r->phase[k] - ph[k] / group_frames[g]);

      if (bad[k])
        continue;
      phases++;
      worst_ph = MAX (worst_ph, err);
      if (err > (N > 4096 ? 2e-3 : 2e-4))
        et_fail ("mean phase, N %u, group %u, bin %u: %.6f rad, expected "
            "%.6f", N, g, k, r->phase[k], ph[k] / group_frames[g]);
    }
    for (k = 0; k < NB; k++) {
      gdouble ref = sum[k] / group_frames[g];
      gdouble err = fabs (r->power[k] - ref);

      worst = MAX (worst, err);
      /* (single-precision frames: 1e-5 relative in power is 4e-5 dB; a
       * long FFT's bins far below its peak carry more) */
      if (err > (N > 4096 ? 0.01 : 0.001))
        et_fail ("mean of dB, N %u, group %u, bin %u: %.5f dB, expected "
            "%.5f", N, g, k, r->power[k], ref);
    }
  }
  /* (a floor that cut nothing would test nothing) */
  if (floored == 0)
    et_fail ("mean of dB, N %u: no frame value below the floor", N);
  if (phase && phases < NB * N_GROUPS / 2)
    et_fail ("mean phase, N %u: only %u phases compared", N, phases);
  g_test_message ("mean of dB, N %u: worst error %.2g dB, %u frame values "
      "floored%s; worst phase error %.2g rad over %u bins", N, worst, floored,
      phase ? ", with the mean phase" : "", worst_ph, phases);
  g_ptr_array_unref (got);
  et_input_free (in);
  g_free (sum);
  g_free (p);
  g_free (ph);
  g_free (re);
  g_free (im);
  g_free (bad);
  n_fft = 256;
  db_floor = -300.0f;
}

/* every kernel path, as above */
static void
test_mean_db (void)
{
  check_mean_db (256, FALSE);
  check_mean_db (1000, FALSE);
  check_mean_db (32768, FALSE);
}

/* ... with the mean phase, every kernel path */
static void
test_mean_phase (void)
{
  check_mean_db (256, TRUE);
  check_mean_db (1000, TRUE);
  check_mean_db (32768, TRUE);
}

static gboolean
close_rel (gdouble got, gdouble ref, gdouble tol)
{
  return fabs (got - ref) <= tol * fabs (ref) + 1e-30;
}

/* Gains, three bands, a level and frame rows on the mean (Welch), linear
 * and in dB. */
static void
check_stage (gboolean db)
{
  static const guint first[N_BANDS] = { 0, 10, 40 };
  const guint bins[N_BANDS] = { 4, 21, NB - 40 };
  GpufftPlanConfig c;
  EtInput *in;
  GPtrArray *got;
  gfloat gain[NB], lw[NB], *w;
  guint n_w = 0, g, f, k, b, frame = 0;
  const gfloat offset = 3.5f, floor_db = -300.0f;

  if (!et_context ())
    return;
  for (b = 0; b < N_BANDS; b++)
    n_w += bins[b];
  w = g_new (gfloat, n_w);
  for (k = 0; k < NB; k++) {
    gain[k] = 0.25f + (gfloat) k / NB;
    lw[k] = 1.0f / (1.0f + k);
  }
  for (k = 0; k < n_w; k++)
    w[k] = 0.1f + (k % 7) * 0.3f;
  in = et_input_new (GPUFFT_FORMAT_F32, FALSE, 1, 64 * HOP + N, 0.3, 0.5, 11);
  config (&c);
  c.bin_gain = gain;
  c.level_weights = lw;
  c.n_bands = N_BANDS;
  c.band_first = first;
  c.band_bins = bins;
  c.band_weights = w;
  c.frames_out = TRUE;
  c.output_db = db;
  c.db_offset = offset;
  got = run (&c, in);

  for (g = 0; g < got->len && g < N_GROUPS; g++) {
    const Got *r = g_ptr_array_index (got, g);
    gdouble mean[NB], p[NB], ref_b[N_BANDS], ref_l;
    guint wo;

    memset (mean, 0, sizeof (mean));
    if (!r->has_bands || !r->has_level || !r->frames
        || r->frame_values != N_BANDS || r->frame_stride != N_BANDS + 1) {
      et_fail ("group %u: bands %d, level %d, frames %p (%u values, "
          "stride %u)", g, r->has_bands, r->has_level, r->frames,
          r->frame_values, r->frame_stride);
      continue;
    }
    for (f = 0; f < group_frames[g]; f++, frame++) {
      const gfloat *row = &g_array_index (r->frames, gfloat,
          (gsize) f * r->frame_stride);

      frame_power (in, frame, p);
      for (k = 0; k < NB; k++) {
        mean[k] += p[k] / group_frames[g];
        p[k] *= gain[k];
      }
      /* the frame's bands and level */
      for (b = 0, wo = 0, ref_l = 0; b < N_BANDS; wo += bins[b], b++) {
        gdouble s = 0;
        for (k = 0; k < bins[b]; k++)
          s += w[wo + k] * p[first[b] + k];
        ref_b[b] = s;
      }
      for (k = 0; k < NB; k++)
        ref_l += lw[k] * p[k];
      for (b = 0; b <= N_BANDS; b++) {
        gdouble ref = b < N_BANDS ? ref_b[b] : ref_l;
        gdouble v = row[b];

        if (db)
          v = pow (10.0, (v - (b < N_BANDS ? offset : 0)) / 10.0);
        if (!close_rel (v, ref, 1e-4))
          et_fail ("group %u frame %u %s %u: %.9g, expected %.9g", g, f,
              b < N_BANDS ? "band" : "level", b, v, ref);
      }
    }
    for (k = 0; k < NB; k++)
      mean[k] *= gain[k];
    /* the group: power, bands, level */
    if (!db) {
      gchar *what = g_strdup_printf ("stage, group %u", g);
      et_check_power (r->power, mean, NB, 90.0, 2e-5, what);
      g_free (what);
    } else {
      for (k = 0; k < NB; k++) {
        gdouble ref = MAX (10 * log10 (mean[k]) + offset, floor_db);

        if (fabs (r->power[k] - ref) > 1e-3)
          et_fail ("group %u bin %u: %.6f dB, expected %.6f", g, k,
              r->power[k], ref);
      }
    }
    for (b = 0, wo = 0; b < N_BANDS; wo += bins[b], b++) {
      gdouble s = 0, v = r->bands[b];

      for (k = 0; k < bins[b]; k++)
        s += w[wo + k] * mean[first[b] + k];
      if (db)
        v = pow (10.0, (v - offset) / 10.0);
      if (!close_rel (v, s, 1e-4))
        et_fail ("group %u band %u: %.9g, expected %.9g", g, b, v, s);
    }
    for (k = 0, ref_l = 0; k < NB; k++)
      ref_l += lw[k] * mean[k];
    if (!close_rel (db ? pow (10.0, r->level / 10.0) : r->level, ref_l, 1e-4))
      et_fail ("group %u level: %.9g, expected %.9g (linear)", g,
          db ? pow (10.0, r->level / 10.0) : r->level, ref_l);
  }
  g_ptr_array_unref (got);
  et_input_free (in);
  g_free (w);
}

static void
test_stage_linear (void)
{
  check_stage (FALSE);
}

static void
test_stage_db (void)
{
  check_stage (TRUE);
}

/* Frame rows of the bins themselves (no bands): each frame's gained power
 * and level, multi-channel. */
static void
test_frame_bins (void)
{
  GpufftPlanConfig c;
  EtInput *in;
  GPtrArray *got = g_ptr_array_new_with_free_func (got_free);
  GpufftContext *ctx = et_context ();
  GpufftPlan *plan;
  GpufftGroup grp = { 6, TRUE, NULL, FALSE };
  GpufftSegment seg[2];
  gconstpointer planes[4];
  GpufftBatch batch = { 0 };
  GError *err = NULL;
  gfloat lw[NB];
  gdouble p[NB];
  guint k, f;

  if (!ctx)
    return;
  for (k = 0; k < NB; k++)
    lw[k] = 2.0f;
  in = et_input_new (GPUFFT_FORMAT_S16, FALSE, 2, 16 * HOP + N, 0.3, 0.5, 3);
  config (&c);
  c.channels = 2;
  c.downmix = FALSE;
  c.format = GPUFFT_FORMAT_S16;
  c.frames_out = TRUE;
  c.level_weights = lw;
  plan = gpufft_plan_new (ctx, &c, &err);
  g_assert_no_error (err);
  batch.groups = &grp;
  batch.n_groups = 1;
  batch.n_frames = 6;
  et_input_segments (in, 0, 5 * HOP + N, 2, seg, planes);
  batch.segments = seg;
  batch.n_segments = 2;
  if (!gpufft_plan_submit (plan, &batch, &err)
      || gpufft_plan_collect (plan, TRUE, collect, got, &err) < 0)
    et_fail ("%s", err->message);
  gpufft_plan_free (plan);
  if (got->len == 1) {
    const Got *r = g_ptr_array_index (got, 0);

    g_assert_cmpuint (r->frame_values, ==, NB);
    g_assert_cmpuint (r->frame_stride, ==, NB + 1);
    g_assert_cmpuint (r->frames->len, ==, 6 * 2 * (NB + 1));
    for (f = 0; f < 6; f++) {
      guint ch;

      for (ch = 0; ch < 2; ch++) {
        const gfloat *row = &g_array_index (r->frames, gfloat,
            ((gsize) f * 2 + ch) * (NB + 1));
        gdouble l = 0;
        gchar *what = g_strdup_printf ("frame %u channel %u", f, ch);

        et_ref_power (in, ch, (gsize) f * HOP, HOP, 1, N,
            GPUFFT_WINDOW_HANN, GPUFFT_SCALING_SPECTRUM, RATE, p);
        et_check_power (row, p, NB, 90.0, 2e-5, what);
        for (k = 0; k < NB; k++)
          l += 2.0 * p[k];
        if (!close_rel (row[NB], l, 1e-4))
          et_fail ("%s: level %.9g, expected %.9g", what, row[NB], l);
        g_free (what);
      }
    }
  } else {
    et_fail ("%u results", got->len);
  }
  g_ptr_array_unref (got);
  et_input_free (in);
}

/* Bad analysis settings are refused with a message naming what is valid. */
static void
test_invalid (void)
{
  GpufftPlanConfig c;
  GError *err = NULL;
  guint first = 100, bins = 40;
  gfloat w[40] = { 0 }, gain[NB];
  guint k;

  if (!et_context ())
    return;
  config (&c);
  c.averaging = GPUFFT_AVERAGING_EXPONENTIAL;
  c.time_constant = 0.0;
  g_assert_null (gpufft_plan_new (et_context (), &c, &err));
  g_assert_error (err, GPUFFT_ERROR, GPUFFT_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (err->message, "time constant"));
  g_clear_error (&err);

  /* the mean of dB values: dB output only */
  config (&c);
  c.averaging = GPUFFT_AVERAGING_MEAN_DB;
  g_assert_null (gpufft_plan_new (et_context (), &c, &err));
  g_assert_error (err, GPUFFT_ERROR, GPUFFT_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (err->message, "dB"));
  g_clear_error (&err);

  /* the mean phase: with the mean of dB values only */
  config (&c);
  c.complex_out = c.phase_mean = TRUE;
  g_assert_null (gpufft_plan_new (et_context (), &c, &err));
  g_assert_error (err, GPUFFT_ERROR, GPUFFT_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (err->message, "mean phase"));
  g_clear_error (&err);

  config (&c);
  c.n_bands = 1;
  c.band_first = &first;
  c.band_bins = &bins;
  c.band_weights = w;
  g_assert_null (gpufft_plan_new (et_context (), &c, &err));
  g_assert_error (err, GPUFFT_ERROR, GPUFFT_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (err->message, "outside"));
  g_clear_error (&err);

  config (&c);
  for (k = 0; k < NB; k++)
    gain[k] = k == 5 ? -1.0f : 1.0f;
  c.bin_gain = gain;
  g_assert_null (gpufft_plan_new (et_context (), &c, &err));
  g_assert_error (err, GPUFFT_ERROR, GPUFFT_ERROR_INVALID_ARGUMENT);
  g_clear_error (&err);
}

int
main (int argc, char **argv)
{
  et_init (&argc, &argv);
  g_test_add_func ("/analysis/exponential", test_exponential);
  g_test_add_func ("/analysis/peak-hold", test_peak_hold);
  g_test_add_func ("/analysis/max-hold", test_max_hold);
  g_test_add_func ("/analysis/mean-db", test_mean_db);
  g_test_add_func ("/analysis/mean-phase", test_mean_phase);
  g_test_add_func ("/analysis/stage-linear", test_stage_linear);
  g_test_add_func ("/analysis/stage-db", test_stage_db);
  g_test_add_func ("/analysis/frame-bins", test_frame_bins);
  g_test_add_func ("/analysis/invalid", test_invalid);
  return et_run ();
}
