/* Power spectra vs scipy's welch formulas written out in double:
 *   spectrum |X|^2 / (sum w)^2, density |X|^2 / (rate sum w^2), x2 except at
 *   DC and Nyquist, mean over the frames of a group;
 * <= 1e-5 relative per bin for bins within 100 dB of the maximum. Overlapping
 * frames, several groups per batch, groups spanning batches, empty closing
 * batches, several batches in flight, and the dB output mode. */
#include <math.h>

#include "engine-test.h"

#define TOL 1e-5
#define DYN_DB 100.0

typedef struct
{
  guint n_groups;
  GpufftGroup groups[12];
} Sched;

/* Submits the batches of `sched` back to back (several in flight) on the
 * stream `in`, frames at k*hop, then collects everything. */
static GPtrArray *
run_schedule (GpufftPlan * plan, const EtInput * in, const Sched * sched,
    guint n_batches, gboolean wait)
{
  const GpufftPlanConfig *cfg = gpufft_plan_get_config (plan);
  GPtrArray *res = et_results_new ();
  gsize frame = 0;
  guint b, g, spins = 0;
  GError *err = NULL;

  for (b = 0; b < n_batches; b++) {
    GpufftSegment segs[3] = { { 0 } };
    gconstpointer planes[3 * 8];
    GpufftBatch batch = { 0 };
    guint nf = 0;

    g_assert_cmpuint (in->channels, <=, 8);
    for (g = 0; g < sched[b].n_groups; g++)
      nf += sched[b].groups[g].n_frames;
    batch.groups = sched[b].groups;
    batch.n_groups = sched[b].n_groups;
    batch.n_frames = nf;
    if (nf > 0) {
      gsize span = (gsize) (nf - 1) * cfg->hop + cfg->fft_size;

      et_input_segments (in, frame * cfg->hop, span, 3, segs, planes);
      batch.segments = segs;
      batch.n_segments = 3;
    }
    if (!gpufft_plan_submit (plan, &batch, &err)) {
      et_fail ("batch %u: gpufft_plan_submit: %s", b, err->message);
      g_clear_error (&err);
      return res;
    }
    frame += nf;
  }

  if (wait) {
    if (gpufft_plan_collect (plan, TRUE, et_collect_cb, res, &err) < 0) {
      et_fail ("gpufft_plan_collect: %s", err->message);
      g_clear_error (&err);
    }
  } else {
    /* poll without waiting until everything has come back */
    while (gpufft_plan_in_flight (plan) > 0 && spins++ < 600000) {
      if (gpufft_plan_collect (plan, FALSE, et_collect_cb, res, &err) < 0) {
        et_fail ("gpufft_plan_collect: %s", err->message);
        g_clear_error (&err);
        break;
      }
      g_usleep (100);
    }
  }
  g_assert_cmpuint (gpufft_plan_in_flight (plan), ==, 0);
  return res;
}

/* Checks result i of res as the group of `n_frames` frames starting at
 * stream frame `first`. */
static void
check_group (GpufftPlan * plan, const EtInput * in, GPtrArray * res, guint i,
    guint64 index, gsize first, guint n_frames)
{
  const GpufftPlanConfig *cfg = gpufft_plan_get_config (plan);
  guint nb = cfg->fft_size / 2 + 1, c;
  gdouble *ref = g_new (gdouble, nb);
  EtResult *r;

  if (i >= res->len) {
    et_fail ("group %u missing (%u results)", i, res->len);
    g_free (ref);
    return;
  }
  r = g_ptr_array_index (res, i);
  g_assert_cmpuint (r->group_index, ==, index);
  g_assert_cmpuint (r->n_frames, ==, n_frames);
  g_assert_cmpuint (r->n_bins, ==, nb);
  g_assert_cmpuint (r->channels, ==, cfg->downmix ? 1 : in->channels);
  for (c = 0; c < r->channels; c++)
    g_assert_cmpuint (r->channel_frames[c], ==, n_frames);
  for (c = 0; c < r->channels; c++) {
    gchar *what = g_strdup_printf ("N=%u %s %s group %u ch %u",
        cfg->fft_size, gpufft_window_scipy_name (cfg->window),
        cfg->scaling == GPUFFT_SCALING_SPECTRUM ? "spectrum" :
        cfg->scaling == GPUFFT_SCALING_RAW ? "raw" : "density",
        i, c);
    gdouble e;

    et_ref_power (in, cfg->downmix ? -1 : (gint) c, first * cfg->hop,
        cfg->hop, n_frames, cfg->fft_size, cfg->window, cfg->scaling,
        cfg->rate, ref);
    e = et_check_power (r->power + (gsize) c * nb, ref, nb, DYN_DB, TOL, what);
    g_test_message ("%s: %u frames, max relative error %.2e", what,
        n_frames, e);
    g_free (what);
  }
  g_free (ref);
}

static GpufftPlan *
make_plan (GpufftPlanConfig * cfg)
{
  GError *err = NULL;
  GpufftPlan *plan = gpufft_plan_new (et_context (), cfg, &err);

  if (plan == NULL) {
    et_fail ("gpufft_plan_new: %s", err->message);
    g_error_free (err);
  }
  return plan;
}

/* Every scaling (spectrum, density, raw), overlapping frames, three groups
 * in one batch. */
static void
test_scalings (void)
{
  static const GpufftWindow windows[] = { GPUFFT_WINDOW_HANN,
    GPUFFT_WINDOW_BLACKMAN_HARRIS, GPUFFT_WINDOW_RECTANGULAR,
    GPUFFT_WINDOW_HAMMING_GST
  };
  /* the fused kernel, mixed radix (M = 240), Bluestein (M = 255), and
   * (raw only) 16384: four-step where shared memory is 32 KiB */
  static const guint sizes[] = { 512, 480, 510, 16384 };
  guint s, w, si;

  if (et_context () == NULL)
    return;

  for (si = 0; si < G_N_ELEMENTS (sizes); si++)
  for (s = sizes[si] == 16384 ? 2 : 0; s < 3; s++) {
    for (w = 0; w < G_N_ELEMENTS (windows); w++) {
      GpufftPlanConfig cfg;
      GpufftPlan *plan;
      EtInput *in;
      GPtrArray *res;
      Sched sched = { 3, {{4, TRUE}, {5, TRUE}, {3, TRUE}} };

      gpufft_plan_config_init (&cfg);
      cfg.fft_size = sizes[si];
      cfg.hop = 200;
      cfg.window = windows[w];
      cfg.scaling = s == 2 ? GPUFFT_SCALING_RAW : s ?
          GPUFFT_SCALING_DENSITY : GPUFFT_SCALING_SPECTRUM;
      cfg.rate = 44100.0;
      cfg.max_frames = 16;
      cfg.max_groups = 4;
      if (!(plan = make_plan (&cfg)))
        return;
      in = et_input_new (GPUFFT_FORMAT_F32, FALSE, 1, 12 * 200 + sizes[si],
          0.5, 0.3, 7 + s * 10 + w);
      res = run_schedule (plan, in, &sched, 1, TRUE);
      g_assert_cmpuint (res->len, ==, 3);
      check_group (plan, in, res, 0, 0, 0, 4);
      check_group (plan, in, res, 1, 1, 4, 5);
      check_group (plan, in, res, 2, 2, 9, 3);
      g_ptr_array_unref (res);
      et_input_free (in);
      gpufft_plan_free (plan);
    }
  }
}

/* Hop larger than the frame (gaps between frames), and hop 1. */
static void
test_hops (void)
{
  static const guint hops[] = { 3 * 128 + 5, 1 };
  guint h;

  if (et_context () == NULL)
    return;
  for (h = 0; h < G_N_ELEMENTS (hops); h++) {
    GpufftPlanConfig cfg;
    GpufftPlan *plan;
    EtInput *in;
    GPtrArray *res;
    Sched sched = { 2, {{3, TRUE}, {4, TRUE}} };

    gpufft_plan_config_init (&cfg);
    cfg.fft_size = 128;
    cfg.hop = hops[h];
    cfg.max_frames = 7;
    if (!(plan = make_plan (&cfg)))
      return;
    g_assert_cmpuint (gpufft_plan_get_max_span (plan), ==, 6 * hops[h] + 128);
    in = et_input_new (GPUFFT_FORMAT_F32, FALSE, 1, 6 * hops[h] + 128, 0.5,
        0.3, 300 + h);
    res = run_schedule (plan, in, &sched, 1, TRUE);
    g_assert_cmpuint (res->len, ==, 2);
    check_group (plan, in, res, 0, 0, 0, 3);
    check_group (plan, in, res, 1, 1, 3, 4);
    g_ptr_array_unref (res);
    et_input_free (in);
    gpufft_plan_free (plan);
  }
}

/* Groups spanning batches, an empty closing batch, an empty group, several
 * batches in flight, two channels analysed separately. */
static void
run_spanning (gboolean wait)
{
  GpufftPlanConfig cfg;
  GpufftPlan *plan;
  EtInput *in;
  GPtrArray *res;
  const Sched sched[] = {
    {2, {{3, TRUE}, {4, FALSE}}},
    {2, {{2, TRUE}, {3, TRUE}}},        /* group 1 = 4 + 2 frames */
    {2, {{0, TRUE}, {2, FALSE}}},       /* group 3 is empty */
    {1, {{3, FALSE}}},          /* group 4 spans three batches */
    {1, {{0, TRUE}}},           /* no frames: closes group 4 (2 + 3) */
    {2, {{1, TRUE}, {5, TRUE}}},
  };

  if (et_context () == NULL)
    return;

  gpufft_plan_config_init (&cfg);
  cfg.fft_size = 256;
  cfg.hop = 100;
  cfg.channels = 2;
  cfg.downmix = FALSE;
  cfg.scaling = GPUFFT_SCALING_DENSITY;
  cfg.rate = 8000.0;
  cfg.max_frames = 8;
  cfg.max_groups = 3;
  cfg.n_peaks = 0;
  if (!(plan = make_plan (&cfg)))
    return;
  g_assert_cmpuint (gpufft_plan_get_out_channels (plan), ==, 2);
  in = et_input_new (GPUFFT_FORMAT_F32, FALSE, 2, 23 * 100 + 256, 0.5, 0.3,
      42);
  res = run_schedule (plan, in, sched, G_N_ELEMENTS (sched), wait);
  g_assert_cmpuint (res->len, ==, 7);
  check_group (plan, in, res, 0, 0, 0, 3);
  check_group (plan, in, res, 1, 1, 3, 6);
  check_group (plan, in, res, 2, 2, 9, 3);
  {
    EtResult *r = g_ptr_array_index (res, 3);
    g_assert_cmpuint (r->group_index, ==, 3);
    g_assert_cmpuint (r->n_frames, ==, 0);
  }
  check_group (plan, in, res, 4, 4, 12, 5);
  check_group (plan, in, res, 5, 5, 17, 1);
  check_group (plan, in, res, 6, 6, 18, 5);
  g_ptr_array_unref (res);
  et_input_free (in);
  gpufft_plan_free (plan);
}

static void
test_spanning (void)
{
  run_spanning (TRUE);
}

static void
test_spanning_poll (void)
{
  run_spanning (FALSE);
}

/* Long groups (many frames each, summed in several pieces on the GPU), a
 * long group carried over a batch boundary, many small groups in one
 * batch, and many channels analysed separately. */
static void
test_long_groups (void)
{
  GpufftPlanConfig cfg;
  GpufftPlan *plan;
  EtInput *in;
  GPtrArray *res;
  const Sched sched[] = {
    {4, {{19, TRUE}, {1, TRUE}, {0, TRUE}, {17, FALSE}}},
    {12, {{20, TRUE}, {1, TRUE}, {2, TRUE}, {1, TRUE}, {3, TRUE}, {1, TRUE},
            {1, TRUE}, {2, TRUE}, {1, TRUE}, {1, TRUE}, {1, TRUE}, {4, FALSE}}},
    {1, {{33, TRUE}}},
  };
  const guint expect[][2] = {   /* first frame, frames */
    {0, 19}, {19, 1}, {20, 0}, {20, 37}, {57, 1}, {58, 2}, {60, 1},
    {61, 3}, {64, 1}, {65, 1}, {66, 2}, {68, 1}, {69, 1}, {70, 1},
    {71, 37},
  };
  guint i;

  if (et_context () == NULL)
    return;

  gpufft_plan_config_init (&cfg);
  cfg.fft_size = 128;
  cfg.hop = 40;
  cfg.channels = 7;
  cfg.downmix = FALSE;
  cfg.window = GPUFFT_WINDOW_HAMMING;
  cfg.max_frames = 40;
  cfg.max_groups = 12;
  cfg.n_peaks = 2;
  if (!(plan = make_plan (&cfg)))
    return;
  in = et_input_new (GPUFFT_FORMAT_F32, FALSE, 7, 107 * 40 + 128, 0.5, 0.3,
      77);
  res = run_schedule (plan, in, sched, G_N_ELEMENTS (sched), TRUE);
  g_assert_cmpuint (res->len, ==, G_N_ELEMENTS (expect));
  for (i = 0; i < G_N_ELEMENTS (expect); i++) {
    if (expect[i][1] == 0) {
      EtResult *r = g_ptr_array_index (res, i);
      g_assert_cmpuint (r->group_index, ==, i);
      g_assert_cmpuint (r->n_frames, ==, 0);
      continue;
    }
    check_group (plan, in, res, i, i, expect[i][0], expect[i][1]);
  }
  g_ptr_array_unref (res);
  et_input_free (in);
  gpufft_plan_free (plan);
}

/* Large N, analysed by the four-step path (column FFTs into a temporary
 * buffer, then rows), per channel: several chunks per group, a batch longer
 * than one temporary slice on lavapipe (32 MiB: 85 frames of 3 channels at
 * N=32768), a group carried over a batch boundary. */
static void
test_four_step (void)
{
  GpufftPlanConfig cfg;
  GpufftPlan *plan;
  EtInput *in;
  GPtrArray *res;
  const Sched sched[] = {
    {2, {{70, TRUE}, {30, FALSE}}},
    {2, {{10, TRUE}, {9, TRUE}}},
  };
  const guint expect[][2] = { {0, 70}, {70, 40}, {110, 9} };
  guint i;

  if (et_context () == NULL)
    return;

  gpufft_plan_config_init (&cfg);
  cfg.fft_size = 32768;
  cfg.hop = 20000;
  cfg.channels = 3;
  cfg.downmix = FALSE;
  cfg.window = GPUFFT_WINDOW_BLACKMAN_HARRIS;
  cfg.max_frames = 100;
  cfg.max_groups = 2;
  cfg.n_peaks = 1;
  if (!(plan = make_plan (&cfg)))
    return;
  in = et_input_new (GPUFFT_FORMAT_F32, FALSE, 3, 118 * 20000 + 32768, 0.5,
      0.3, 91);
  res = run_schedule (plan, in, sched, G_N_ELEMENTS (sched), TRUE);
  g_assert_cmpuint (res->len, ==, G_N_ELEMENTS (expect));
  for (i = 0; i < G_N_ELEMENTS (expect); i++)
    check_group (plan, in, res, i, i, expect[i][0], expect[i][1]);
  g_ptr_array_unref (res);
  et_input_free (in);
  gpufft_plan_free (plan);
}

/* complex_out: a group whose last frame came in an earlier batch (closed
 * by a batch without frames of its own) reports that frame's spectrum; a
 * group without frames reports zeros. Single kernel and four-step. */
static void
test_complex_carry (void)
{
  /* the fused kernel, four-step where shared memory is 32 KiB (lavapipe),
   * mixed radix (M = 500), Bluestein (M = 5003: its work array in the
   * scratch buffer on every device) */
  const guint sizes[] = { 64, 16384, 1000, 10006 };
  guint si;

  if (et_context () == NULL)
    return;
  for (si = 0; si < G_N_ELEMENTS (sizes); si++) {
    guint n = sizes[si], nb = n / 2 + 1, hop = n / 2, i, c;
    GpufftPlanConfig cfg;
    GpufftPlan *plan;
    EtInput *in;
    GPtrArray *res;
    const Sched sched[] = {
      {1, {{4, FALSE}}},
      {2, {{0, TRUE}, {0, TRUE}}},
      {1, {{3, TRUE}}},
    };
    gdouble *re = g_new (gdouble, nb), *im = g_new (gdouble, nb);

    gpufft_plan_config_init (&cfg);
    cfg.fft_size = n;
    cfg.hop = hop;
    cfg.channels = 2;
    cfg.downmix = FALSE;
    cfg.complex_out = TRUE;
    cfg.max_frames = 4;
    cfg.max_groups = 2;
    if (!(plan = make_plan (&cfg)))
      break;
    in = et_input_new (GPUFFT_FORMAT_F32, FALSE, 2, 8 * hop + n, 0.5, 0.3,
        17 + si);
    res = run_schedule (plan, in, sched, G_N_ELEMENTS (sched), TRUE);
    g_assert_cmpuint (res->len, ==, 3);
    for (i = 0; i < 3 && i < res->len; i++) {
      EtResult *r = g_ptr_array_index (res, i);
      /* group 0: frames 0..3 (last frame 3); group 1: empty; group 2:
       * frames 4..6 (last frame 6) */
      gsize last = i == 0 ? 3 : 6;

      g_assert_nonnull (r->complex_data);
      for (c = 0; c < 2; c++) {
        const gfloat *got = r->complex_data + (gsize) c * nb * 2;

        if (i == 1) {
          guint k;

          for (k = 0; k < 2 * nb; k++)
            g_assert_cmpfloat (got[k], ==, 0.0f);
          continue;
        }
        et_ref_complex (in, c, last * hop, n, cfg.window, re, im);
        {
          gdouble e = et_complex_error (got, re, im, nb);

          g_test_message ("N=%u group %u ch %u: complex rel L2 %.2e", n, i,
              c, e);
          g_assert_cmpfloat (e, <, 5e-7);
        }
      }
    }
    g_ptr_array_unref (res);
    et_input_free (in);
    gpufft_plan_free (plan);
    g_free (re);
    g_free (im);
  }
}

/* A frame with a NaN or infinite sample is left out of its group's mean
 * (in its channel; in the mix when downmixing) and spoils nothing else; a
 * channel with no frame left reads 0 (the floor in dB). */
static void
test_non_finite (void)
{
  /* the fused kernel, and Bluestein (M = 31) */
  static const guint sizes[] = { 64, 62 };
  guint fmt, mode, si;

  if (et_context () == NULL)
    return;
  for (si = 0; si < G_N_ELEMENTS (sizes); si++)
  for (fmt = 0; fmt < 2; fmt++) {
    for (mode = 0; mode < 2; mode++) {
      GpufftFormat format = fmt ? GPUFFT_FORMAT_F64 : GPUFFT_FORMAT_F32;
      gboolean downmix = mode == 0;
      GpufftPlanConfig cfg;
      GpufftPlan *plan;
      EtInput *in;
      GPtrArray *res;
      /* groups: frames 0-2, 3-5, 6, 7-8 (open) + 9-10 in the next batch */
      const Sched sched[] = {
        {4, {{3, TRUE}, {3, TRUE}, {1, TRUE}, {2, FALSE}}},
        {1, {{2, TRUE}}},
      };
      /* bad frames per channel (hop = N: one frame per sample) */
      const guint bad0[] = { 1, 6, 8 }, bad1[] = { 4, 5, 9 };
      const guint first[] = { 0, 3, 6, 7 }, count[] = { 3, 3, 1, 4 };
      const guint n = sizes[si], nb = n / 2 + 1;
      gdouble *ref = g_new (gdouble, nb), *one = g_new (gdouble, nb);
      guint g, c, i, k;

      gpufft_plan_config_init (&cfg);
      cfg.fft_size = n;
      cfg.hop = n;
      cfg.format = format;
      cfg.channels = 2;
      cfg.planar = TRUE;
      cfg.downmix = downmix;
      cfg.max_frames = 9;
      cfg.n_peaks = 1;
      if (!(plan = make_plan (&cfg)))
        return;
      in = et_input_new (format, TRUE, 2, 11 * n, 0.5, 0.3, 55 + fmt);
      for (i = 0; i < 3; i++) {
        gsize t0 = (gsize) bad0[i] * n + 7 * i + 1;
        gsize t1 = (gsize) bad1[i] * n + 5 * i + 2;
        gdouble v0 = (i & 1) ? INFINITY : NAN, v1 = (i & 1) ? NAN : -INFINITY;

        /* planar: change the decoded and the encoded value alike */
        in->x[0][t0] = v0;
        in->x[1][t1] = v1;
        if (format == GPUFFT_FORMAT_F32) {
          ((gfloat *) in->planes[0])[t0] = v0;
          ((gfloat *) in->planes[1])[t1] = v1;
        } else {
          ((gdouble *) in->planes[0])[t0] = v0;
          ((gdouble *) in->planes[1])[t1] = v1;
        }
      }
      res = run_schedule (plan, in, sched, G_N_ELEMENTS (sched), TRUE);
      g_assert_cmpuint (res->len, ==, 4);
      for (g = 0; g < 4; g++) {
        EtResult *r = g_ptr_array_index (res, g);

        g_assert_cmpuint (r->n_frames, ==, count[g]);
        for (c = 0; c < r->channels; c++) {
          guint used = 0, f;
          gchar *what;

          for (k = 0; k < nb; k++)
            ref[k] = 0.0;
          for (f = first[g]; f < first[g] + count[g]; f++) {
            gboolean b0 = f == bad0[0] || f == bad0[1] || f == bad0[2];
            gboolean b1 = f == bad1[0] || f == bad1[1] || f == bad1[2];

            if (downmix ? (b0 || b1) : (c == 0 ? b0 : b1))
              continue;
            used++;
            et_ref_power (in, downmix ? -1 : (gint) c, (gsize) f * n, n, 1,
                n, cfg.window, cfg.scaling, cfg.rate, one);
            for (k = 0; k < nb; k++)
              ref[k] += one[k];
          }
          what = g_strdup_printf ("%s %s group %u channel %u: %u of %u "
              "frames", fmt ? "F64" : "F32", downmix ? "downmix" :
              "per channel", g, c, used, count[g]);
          if (r->channel_frames[c] != used)
            et_fail ("%s: channel_frames %u", what,
                r->channel_frames[c]);
          if (used == 0) {
            for (k = 0; k < nb; k++)
              if (r->power[c * nb + k] != 0.0f)
                et_fail ("%s: bin %u reads %g, expected 0", what,
                    k, r->power[c * nb + k]);
          } else {
            for (k = 0; k < nb; k++)
              ref[k] /= used;
            et_check_power (r->power + c * nb, ref, nb, 100.0, 1e-5, what);
          }
          g_test_message ("%s", what);
          g_free (what);
        }
      }
      g_ptr_array_unref (res);
      et_input_free (in);
      gpufft_plan_free (plan);
      g_free (ref);
      g_free (one);
    }
  }
}

/* output_db: max (10 log10 (mean) + offset, floor); peaks stay linear. */
static void
test_db (void)
{
  GpufftPlanConfig cfg;
  GpufftPlan *plan;
  EtInput *in;
  GPtrArray *res;
  const Sched sched = { 2, {{6, TRUE}, {5, TRUE}} };
  const guint nb = 1024 / 2 + 1;
  gdouble *ref = g_new (gdouble, nb), *sorted = g_new (gdouble, nb);
  guint g;

  if (et_context () == NULL) {
    g_free (ref);
    g_free (sorted);
    return;
  }

  gpufft_plan_config_init (&cfg);
  cfg.fft_size = 1024;
  cfg.hop = 384;
  cfg.window = GPUFFT_WINDOW_BLACKMAN;
  cfg.max_frames = 11;
  cfg.output_db = TRUE;
  cfg.db_offset = 3.0f;
  cfg.n_peaks = 3;
  if (!(plan = make_plan (&cfg))) {
    g_free (ref);
    g_free (sorted);
    return;
  }
  in = et_input_new (GPUFFT_FORMAT_F32, FALSE, 1, 10 * 384 + 1024, 0.5, 0.3,
      99);

  /* floor at the 30th percentile of the first group's reference */
  et_ref_power (in, -1, 0, 384, 6, 1024, cfg.window, cfg.scaling, cfg.rate,
      ref);
  for (g = 0; g < nb; g++)
    sorted[g] = 10.0 * log10 (ref[g]) + 3.0;
  /* simple insertion sort, nb is small */
  for (g = 1; g < nb; g++) {
    gdouble v = sorted[g];
    gint j = (gint) g - 1;
    for (; j >= 0 && sorted[j] > v; j--)
      sorted[j + 1] = sorted[j];
    sorted[j + 1] = v;
  }
  {
    GpufftSegment segs[3] = { { 0 } };
    GpufftBatch batch = { 0 };
    gfloat floor_db = (gfloat) sorted[nb * 3 / 10];

    et_input_segments (in, 0, in->len, 3, segs, NULL);
    batch.segments = segs;
    batch.n_segments = 3;
    batch.n_frames = 11;
    batch.groups = sched.groups;
    batch.n_groups = 2;
    batch.db_floor = floor_db;
    res = et_results_new ();
    if (et_submit_collect (plan, &batch, res)) {
      g_assert_cmpuint (res->len, ==, 2);
      for (g = 0; g < 2; g++) {
        EtResult *r = g_ptr_array_index (res, g);
        gdouble worst = 0.0, maxref = 0.0;
        guint k, n_floored = 0;

        et_ref_power (in, -1, g ? 6 * 384 : 0, 384, g ? 5 : 6, 1024,
            cfg.window, cfg.scaling, cfg.rate, ref);
        for (k = 0; k < nb; k++)
          maxref = MAX (maxref, ref[k]);
        for (k = 0; k < nb; k++) {
          gdouble rdb = 10.0 * log10 (ref[k]) + 3.0;
          gdouble tol = 10.0 * log10 (1.0 + TOL) + 1e-5;
          gdouble e;

          if (ref[k] < maxref * 1e-10)
            continue;
          if (rdb < floor_db - tol) {
            n_floored++;
            if (r->power[k] != floor_db)
              et_fail ("group %u bin %u: %.6f dB, expected the "
                  "floor %.6f (reference %.6f)", g, k, r->power[k], floor_db,
                  rdb);
            continue;
          }
          if (rdb < floor_db + tol && r->power[k] == floor_db)
            continue;
          e = fabs (r->power[k] - rdb);
          worst = MAX (worst, e);
          if (e > tol)
            et_fail ("group %u bin %u: %.6f dB, reference %.6f "
                "dB (error %.2g dB > %.2g)", g, k, r->power[k], rdb, e, tol);
        }
        g_test_message ("dB group %u: worst error %.2e dB, %u bins floored",
            g, worst, n_floored);
        if (g == 0)
          g_assert_cmpuint (n_floored, >, nb / 5);

        /* peaks hold linear power */
        g_assert_nonnull (r->peaks);
        g_assert_cmpuint (r->n_peaks, ==, 3);
        for (k = 0; k < 3; k++) {
          const GpufftPeak *p = &r->peaks[k];
          g_assert_cmpuint (p->bin, <, nb);
          if (fabs (p->power[1] - ref[p->bin]) > TOL * ref[p->bin])
            et_fail ("group %u peak %u (bin %u): power %.9g, "
                "linear reference %.9g", g, k, p->bin, p->power[1],
                ref[p->bin]);
        }
      }
    }
    g_ptr_array_unref (res);
  }
  et_input_free (in);
  gpufft_plan_free (plan);
  g_free (ref);
  g_free (sorted);
}

int
main (int argc, char **argv)
{
  et_init (&argc, &argv);
  g_test_add_func ("/power/scalings", test_scalings);
  g_test_add_func ("/power/hops", test_hops);
  g_test_add_func ("/power/spanning", test_spanning);
  g_test_add_func ("/power/spanning-poll", test_spanning_poll);
  g_test_add_func ("/power/long-groups", test_long_groups);
  g_test_add_func ("/power/four-step", test_four_step);
  g_test_add_func ("/power/complex-carry", test_complex_carry);
  g_test_add_func ("/power/non-finite", test_non_finite);
  g_test_add_func ("/power/db", test_db);
  return et_run ();
}
