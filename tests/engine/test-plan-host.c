/* The host plan (gpufft_plan_new_host()):
 *   - against double-precision references written here: each frame's X_k
 *     by the direct DFT sum (O(N^2), exact angles), the window from
 *     engine-test.c's own coefficients, scipy's scalings; the group mean,
 *     peak hold, mean of dB and mean phase, gains, bands, level, frame
 *     rows, peaks and complex output as gpufft.h defines them; every
 *     sample format, interleaved and planar, downmix and per channel,
 *     groups spanning batches, empty groups, frames with NaN or infinite
 *     samples left out;
 *   - its two ways of summing MEAN groups (each bin's power added as it is
 *     computed, without frame rows; through a power row, with them): the
 *     same results bit for bit, every format and layout;
 *   - its two ways of reading F32 frames (where they lie, in a slot
 *     without NaN or infinity; converted frame by frame, in a slot with a
 *     NaN elsewhere): the same rows, sums and counts bit for bit;
 *   - against a device plan on the same batches, where a Vulkan device is
 *     present (the tolerances the engine tests allow between kernels: 1e-5
 *     per bin within 100 dB of the largest, and the single-precision FFT's
 *     term of et_power_error());
 *   - its threading contract: BUSY with every slot in flight (nothing
 *     changed), delivery in order, collect's drain, release once per
 *     segment, free and collect from the result function, refusals. */
#include <math.h>
#include <string.h>

#include "engine-test.h"

#define RATE 48000.0
#define MAX_CH 4

/* ---- references --------------------------------------------------------- */

/* The value the engine analyses at stream sample t of channel c (the mean
 * of the channels when c < 0): S32 and F64 samples are rounded to float
 * first, as gpufft.h's conversion says. */
static gdouble
value_at (const EtInput * in, gint c, gsize t)
{
  gdouble s = 0.0;
  guint i, first = c < 0 ? 0 : (guint) c, last = c < 0 ? in->channels : first
      + 1;

  for (i = first; i < last; i++) {
    gdouble v = in->x[i][t];

    if (in->format == GPUFFT_FORMAT_S32 || in->format == GPUFFT_FORMAT_F64)
      v = (gfloat) v;
    s += v;
  }
  return s / (last - first);
}

/* X_0 .. X_{n/2} of the windowed frame at `start` by the direct sum
 * X_k = sum_t w[t] x[t] e^{-2 pi i k t / n}; FALSE where a sample is NaN
 * or infinite. */
static gboolean
ref_frame (const EtInput * in, gint c, gsize start, guint n,
    GpufftWindow window, gdouble * re, gdouble * im)
{
  gdouble *w = g_new (gdouble, n), *x = g_new (gdouble, n);
  gdouble *cs = g_new (gdouble, n), *sn = g_new (gdouble, n);
  gboolean ok = TRUE;
  guint t, k;

  et_window (window, n, w);
  for (t = 0; t < n; t++) {
    gdouble v = value_at (in, c, start + t);

    if (!isfinite (v))
      ok = FALSE;
    x[t] = w[t] * v;
    cs[t] = cos (2.0 * G_PI * t / n);
    sn[t] = sin (2.0 * G_PI * t / n);
  }
  for (k = 0; k <= n / 2; k++) {
    gdouble r = 0.0, i = 0.0;
    guint j = 0;

    for (t = 0; t < n; t++) {
      r += x[t] * cs[j];
      i -= x[t] * sn[j];
      j += k;
      if (j >= n)
        j -= n;
    }
    re[k] = r;
    im[k] = i;
  }
  g_free (w);
  g_free (x);
  g_free (cs);
  g_free (sn);
  return ok;
}

/* The scaled power of one frame (FALSE: left out); re, im optional. */
static gboolean
ref_power (const EtInput * in, gint c, gsize start,
    const GpufftPlanConfig * cfg, gdouble * p, gdouble * re_out,
    gdouble * im_out)
{
  guint n = cfg->fft_size, nb = n / 2 + 1, k;
  gdouble *re = g_new (gdouble, nb), *im = g_new (gdouble, nb);
  gdouble *w = g_new (gdouble, n);
  gboolean ok = ref_frame (in, c, start, n, cfg->window, re, im);

  et_window (cfg->window, n, w);
  for (k = 0; k < nb; k++)
    p[k] = (re[k] * re[k] + im[k] * im[k]) * et_scale (cfg->scaling, w, n,
        cfg->rate, k);
  if (re_out) {
    memcpy (re_out, re, nb * sizeof (gdouble));
    memcpy (im_out, im, nb * sizeof (gdouble));
  }
  g_free (re);
  g_free (im);
  g_free (w);
  return ok;
}

/* The mean power of stream frames [first, first + n_frames) of channel c,
 * frames with a bad sample left out; returns the frames used. */
static guint
ref_mean (const EtInput * in, gint c, guint first, guint n_frames,
    const GpufftPlanConfig * cfg, gdouble * mean)
{
  guint nb = cfg->fft_size / 2 + 1, f, k, used = 0;
  gdouble *p = g_new (gdouble, nb);

  memset (mean, 0, nb * sizeof (gdouble));
  for (f = first; f < first + n_frames; f++) {
    if (!ref_power (in, c, (gsize) f * cfg->hop, cfg, p, NULL, NULL))
      continue;
    used++;
    for (k = 0; k < nb; k++)
      mean[k] += p[k];
  }
  for (k = 0; used && k < nb; k++)
    mean[k] /= used;
  g_free (p);
  return used;
}

/* |got - ref| <= tol |ref| + abs_tol at every bin; fails the test naming
 * the worst bin; returns the worst relative error (bins above abs_tol). */
static gdouble
check_row (const gfloat * got, const gdouble * ref, guint n, gdouble tol,
    gdouble abs_tol, const gchar * what)
{
  gdouble worst = 0.0;
  guint k, bad = G_MAXUINT;

  for (k = 0; k < n; k++) {
    gdouble e = fabs (got[k] - ref[k]);

    if (!(e <= tol * fabs (ref[k]) + abs_tol) && bad == G_MAXUINT)
      bad = k;
    if (fabs (ref[k]) > abs_tol)
      worst = MAX (worst, e / fabs (ref[k]));
  }
  if (bad != G_MAXUINT)
    et_fail ("%s: bin %u of %u: %.9g, expected %.9g (relative error %.3g)",
        what, bad, n, got[bad], ref[bad], fabs (got[bad] - ref[bad]) /
        fabs (ref[bad]));
  return worst;
}

/* The tolerance floor of a power row: 1e-13 of its largest value (what a
 * double FFT and the direct sum may differ by). */
static gdouble
abs_floor (const gdouble * ref, guint n)
{
  gdouble m = 0.0;
  guint k;

  for (k = 0; k < n; k++)
    m = MAX (m, fabs (ref[k]));
  return 1e-13 * m + 1e-300;
}

/* ---- results ------------------------------------------------------------ */

typedef struct
{
  guint64 index;
  guint n_frames, channels, n_bins, n_peaks, n_bands;
  guint frame_values, frame_stride;
  gpointer tag;
  guint *counts;
  gfloat *power, *cplx, *phase, *bands, *level, *frames;
  GpufftPeak *peaks;
  gboolean has_frames;
} Got;

static void
got_free (gpointer p)
{
  Got *g = p;

  g_free (g->counts);
  g_free (g->power);
  g_free (g->cplx);
  g_free (g->phase);
  g_free (g->bands);
  g_free (g->level);
  g_free (g->frames);
  g_free (g->peaks);
  g_free (g);
}

static void
collect (const GpufftGroupResult * r, gpointer user_data)
{
  Got *g = g_new0 (Got, 1);
  gsize nv = (gsize) r->channels * r->n_bins;

  g->index = r->group_index;
  g->n_frames = r->n_frames;
  g->channels = r->channels;
  g->n_bins = r->n_bins;
  g->tag = r->tag;
  g->counts = g_memdup2 (r->channel_frames, r->channels * sizeof (guint));
  g->power = g_memdup2 (r->power, nv * sizeof (gfloat));
  if (r->complex_data)
    g->cplx = g_memdup2 (r->complex_data, 2 * nv * sizeof (gfloat));
  if (r->phase)
    g->phase = g_memdup2 (r->phase, nv * sizeof (gfloat));
  if (r->peaks) {
    g->n_peaks = r->n_peaks;
    g->peaks = g_memdup2 (r->peaks, (gsize) r->channels * r->n_peaks *
        sizeof (GpufftPeak));
  }
  if (r->bands) {
    g->n_bands = r->n_bands;
    g->bands = g_memdup2 (r->bands, (gsize) r->channels * r->n_bands *
        sizeof (gfloat));
  }
  if (r->level)
    g->level = g_memdup2 (r->level, r->channels * sizeof (gfloat));
  if (r->frames) {
    g->has_frames = TRUE;
    g->frame_values = r->frame_values;
    g->frame_stride = r->frame_stride;
    /* (a group without frames has no rows: an empty array) */
    g->frames = r->n_frames > 0 ? g_memdup2 (r->frames, (gsize) r->n_frames *
        r->channels * r->frame_stride * sizeof (gfloat)) : g_new0 (gfloat, 1);
  }
  g_ptr_array_add (user_data, g);
}

/* A batch: its groups' frames and whether each closes. */
typedef struct
{
  guint n_groups;
  struct
  {
    guint frames;
    gboolean close;
  } g[4];
} Sched;

/* Runs the batches on plan (stream frames one after the other from frame
 * 0; each closed group tagged with its number from 1), collecting after
 * each batch into got. */
static gboolean
run_sched (GpufftPlan * plan, const GpufftPlanConfig * cfg, EtInput * in,
    const Sched * sched, guint n_batches, gfloat db_floor, GPtrArray * got)
{
  GError *err = NULL;
  guint b, i, tag = 0;
  gsize frame = 0;

  for (b = 0; b < n_batches; b++) {
    GpufftGroup groups[4];
    GpufftSegment segs[3];
    gconstpointer planes[3 * MAX_CH];
    GpufftBatch batch = { 0 };
    guint n = 0;

    memset (groups, 0, sizeof (groups));
    for (i = 0; i < sched[b].n_groups; i++) {
      groups[i].n_frames = sched[b].g[i].frames;
      groups[i].close = sched[b].g[i].close;
      if (groups[i].close)
        groups[i].tag = GUINT_TO_POINTER (++tag);
      n += groups[i].n_frames;
    }
    batch.groups = groups;
    batch.n_groups = sched[b].n_groups;
    batch.n_frames = n;
    batch.db_floor = db_floor;
    if (n > 0) {
      et_input_segments (in, frame * cfg->hop, (gsize) (n - 1) * cfg->hop +
          cfg->fft_size, 3, segs, planes);
      batch.segments = segs;
      batch.n_segments = 3;
    }
    if (!gpufft_plan_submit (plan, &batch, &err)
        || gpufft_plan_collect (plan, TRUE, collect, got, &err) < 0) {
      et_fail ("batch %u: %s", b, err->message);
      g_clear_error (&err);
      return FALSE;
    }
    frame += n;
  }
  return TRUE;
}

static GpufftPlan *
host_plan (const GpufftPlanConfig * cfg)
{
  GError *err = NULL;
  GpufftPlan *plan = gpufft_plan_new_host (cfg, &err);

  if (!plan) {
    et_fail ("gpufft_plan_new_host: %s", err->message);
    g_error_free (err);
  } else if (!gpufft_plan_is_host (plan)) {
    et_fail ("gpufft_plan_is_host: FALSE for a host plan");
  }
  return plan;
}

static void
config (GpufftPlanConfig * c, guint n, guint hop)
{
  gpufft_plan_config_init (c);
  c->fft_size = n;
  c->hop = hop;
  c->rate = RATE;
  c->n_peaks = 0;
}

/* ---- 1. against the references ------------------------------------------ */

/* Power, every scaling and window, power-of-two and other sizes, hops
 * below and above N: two groups of one batch. */
static void
check_power (guint n, guint hop, GpufftScaling scaling, GpufftWindow window,
    gdouble * worst)
{
  static const Sched sched[] = { {2, {{3, TRUE}, {2, TRUE}}} };
  GpufftPlanConfig cfg;
  EtInput *in;
  GPtrArray *got = g_ptr_array_new_with_free_func (got_free);
  GpufftPlan *plan;
  guint nb = n / 2 + 1, g;
  gdouble *ref = g_new (gdouble, nb);

  config (&cfg, n, hop);
  cfg.scaling = scaling;
  cfg.window = window;
  in = et_input_new (GPUFFT_FORMAT_F32, FALSE, 1, 4 * (gsize) hop + n, 0.3,
      0.5, n + scaling);
  plan = host_plan (&cfg);
  if (plan && run_sched (plan, &cfg, in, sched, 1, -300.0f, got)) {
    g_assert_cmpuint (got->len, ==, 2);
    for (g = 0; g < 2; g++) {
      Got *r = g_ptr_array_index (got, g);
      gchar *what = g_strdup_printf ("N %u hop %u scaling %d window %d "
          "group %u", n, hop, scaling, window, g);
      guint used = ref_mean (in, -1, g ? 3 : 0, g ? 2 : 3, &cfg, ref);

      g_assert_cmpuint (r->n_frames, ==, used);
      g_assert_cmpuint (r->counts[0], ==, used);
      g_assert_cmpuint (r->index, ==, g);
      g_assert_true (r->tag == GUINT_TO_POINTER (g + 1));
      *worst = MAX (*worst, check_row (r->power, ref, nb, 1e-6,
              abs_floor (ref, nb), what));
      g_free (what);
    }
  }
  gpufft_plan_free (plan);
  g_ptr_array_unref (got);
  et_input_free (in);
  g_free (ref);
}

static void
test_power (void)
{
  static const guint sizes[] = { 2, 6, 30, 64, 96, 1000, 1024 };
  gdouble worst = 0.0;
  guint s, sc;

  for (s = 0; s < G_N_ELEMENTS (sizes); s++)
    for (sc = 0; sc < 3; sc++) {
      guint n = sizes[s];
      /* (hops: N/2, then one above N that skips samples, then odd) */
      guint hop = sc == 0 ? MAX (n / 2, 1) : sc == 1 ? n + 7 : n / 3 + 1;

      check_power (n, hop, (GpufftScaling) sc,
          (GpufftWindow) ((s * 3 + sc) % 7), &worst);
    }
  check_power (4096, 2048, GPUFFT_SCALING_SPECTRUM, GPUFFT_WINDOW_HANN, &worst);
  g_test_message ("power: worst relative error %.3g", worst);
}

/* Every format, interleaved and planar, downmix and per channel, three
 * channels; a radix-2 size (planar) and a Bluestein one (interleaved). */
static void
test_formats (void)
{
  static const Sched sched[] = { {1, {{4, TRUE}}} };
  gdouble worst = 0.0;
  guint f, pl, dm, c;

  for (f = GPUFFT_FORMAT_S16; f <= GPUFFT_FORMAT_F64; f++)
    for (pl = 0; pl < 2; pl++)
      for (dm = 0; dm < 2; dm++) {
        GpufftPlanConfig cfg;
        guint n = pl ? 64 : 96, nb = n / 2 + 1;
        EtInput *in = et_input_new (f, pl, 3, 3 * 40 + n, 0.3, 0.5,
            10 * f + 2 * pl + dm);
        GPtrArray *got = g_ptr_array_new_with_free_func (got_free);
        GpufftPlan *plan;
        gdouble *ref = g_new (gdouble, nb);

        config (&cfg, n, 40);
        cfg.format = f;
        cfg.planar = pl;
        cfg.channels = 3;
        cfg.downmix = dm;
        cfg.window = GPUFFT_WINDOW_BLACKMAN_HARRIS;
        plan = host_plan (&cfg);
        if (plan && run_sched (plan, &cfg, in, sched, 1, -300.0f, got)
            && got->len == 1) {
          Got *r = g_ptr_array_index (got, 0);

          g_assert_cmpuint (r->channels, ==, dm ? 1 : 3);
          for (c = 0; c < r->channels; c++) {
            gchar *what = g_strdup_printf ("format %u planar %u downmix %u "
                "channel %u", f, pl, dm, c);

            g_assert_cmpuint (ref_mean (in, dm ? -1 : (gint) c, 0, 4, &cfg,
                    ref), ==, 4);
            g_assert_cmpuint (r->counts[c], ==, 4);
            worst = MAX (worst, check_row (r->power + c * nb, ref, nb, 1e-6,
                    abs_floor (ref, nb), what));
            g_free (what);
          }
        } else {
          et_fail ("format %u planar %u downmix %u: no result", f, pl, dm);
        }
        gpufft_plan_free (plan);
        g_ptr_array_unref (got);
        et_input_free (in);
        g_free (ref);
      }
  g_test_message ("formats: worst relative error %.3g", worst);
}

/* MEAN sums: a plan without frame rows adds each bin's scaled power into
 * the sums as it computes it, one with them through its power row; both
 * give the same group power (float, bit for bit) and frame counts, for
 * every format and layout, mixed down or not, at a power-of-two size and a
 * Bluestein one. */
static void
test_sums_with_rows (void)
{
  static const Sched sched[] = { {2, {{5, TRUE}, {3, FALSE}}},
  {1, {{2, TRUE}}}
  };
  guint f, pl, dm, sz;

  for (sz = 0; sz < 2; sz++)
    for (f = GPUFFT_FORMAT_S16; f <= GPUFFT_FORMAT_F64; f++)
      for (pl = 0; pl < 2; pl++)
        for (dm = 0; dm < 2; dm++) {
          guint n = sz ? 96 : 128, hop = 48, rows, g;
          EtInput *in = et_input_new (f, pl, 2, 10 * hop + n, 0.3, 0.5,
              100 + 10 * f + 2 * pl + dm);
          GPtrArray *got[2];

          for (rows = 0; rows < 2; rows++) {
            GpufftPlanConfig cfg;
            GpufftPlan *plan;

            config (&cfg, n, hop);
            cfg.format = f;
            cfg.planar = pl;
            cfg.channels = 2;
            cfg.downmix = dm;
            cfg.frames_out = rows;
            got[rows] = g_ptr_array_new_with_free_func (got_free);
            plan = host_plan (&cfg);
            if (plan)
              run_sched (plan, &cfg, in, sched, 2, -300.0f, got[rows]);
            gpufft_plan_free (plan);
          }
          g_assert_cmpuint (got[0]->len, ==, 2);
          g_assert_cmpuint (got[1]->len, ==, 2);
          for (g = 0; g < 2; g++) {
            Got *a = g_ptr_array_index (got[0], g);
            Got *b = g_ptr_array_index (got[1], g);

            g_assert_false (a->has_frames);
            g_assert_true (b->has_frames);
            g_assert_cmpuint (a->channels, ==, b->channels);
            g_assert_cmpmem (a->counts, a->channels * sizeof (guint),
                b->counts, b->channels * sizeof (guint));
            if (memcmp (a->power, b->power, (gsize) a->channels * a->n_bins *
                    sizeof (gfloat)) != 0)
              et_fail ("N %u format %u planar %u downmix %u group %u: the "
                  "power without frame rows differs from the power with "
                  "them", n, f, pl, dm, g);
          }
          g_ptr_array_unref (got[0]);
          g_ptr_array_unref (got[1]);
          et_input_free (in);
        }
}

/* Writes v as sample i of format f (integers: v is the integer). */
static void
put (guint8 * dst, GpufftFormat f, guint i, gdouble v)
{
  switch (f) {
    case GPUFFT_FORMAT_F32:{
      gfloat x = (gfloat) v;
      memcpy (dst + 4 * i, &x, 4);
      break;
    }
    case GPUFFT_FORMAT_F64:
      memcpy (dst + 8 * i, &v, 8);
      break;
    case GPUFFT_FORMAT_S32:{
      gint32 x = (gint32) v;
      memcpy (dst + 4 * i, &x, 4);
      break;
    }
    case GPUFFT_FORMAT_S24:{
      gint32 x = (gint32) v;
      dst[3 * i] = x & 0xff;
      dst[3 * i + 1] = (x >> 8) & 0xff;
      dst[3 * i + 2] = (x >> 16) & 0xff;
      break;
    }
    case GPUFFT_FORMAT_S16:{
      gint16 x = (gint16) v;
      memcpy (dst + 2 * i, &x, 2);
      break;
    }
  }
}

/* The conversions, exactly: N 2, boxcar, raw |X|^2, one group per frame,
 * so that X_0 = x0 + x1 and X_1 = x0 - x1 of each frame come back as
 * floats. F32 as it is (a denormal too, as the device reads it); F64
 * rounds to the nearest float (ties to even), its overflow is infinite
 * (the frame left out) and its results below the smallest normal float
 * read 0; S32 rounds to float before the scaling; S24 and S16 at their
 * extremes. */
static void
test_conversion (void)
{
  /* (frame samples, then the expected X_0, X_1, frames used) */
  static const struct
  {
    GpufftFormat f;
    gdouble a, b;
    gfloat x0, x1;
    guint used;
  } frames[] = {
    {GPUFFT_FORMAT_F32, 1e-40, 0.0, 1e-40f, 1e-40f, 1},
    {GPUFFT_FORMAT_F32, -0.25, 0.5, 0.25f, -0.75f, 1},
    {GPUFFT_FORMAT_F32, INFINITY, 0.5, 0, 0, 0},
    {GPUFFT_FORMAT_F32, 0.25, NAN, 0, 0, 0},
    {GPUFFT_FORMAT_F64, 1.0 + 0x1p-24, 0.0, 1.0f, 1.0f, 1},
    {GPUFFT_FORMAT_F64, 1.0 + 3 * 0x1p-24, 0.0, 1.0f + 0x1p-22f,
        1.0f + 0x1p-22f, 1},
    {GPUFFT_FORMAT_F64, 1e39, 0.0, 0, 0, 0},
    {GPUFFT_FORMAT_F64, 1e-39, 0.0, 0.0f, 0.0f, 1},
    {GPUFFT_FORMAT_F64, -0.25, 0.125, -0.125f, -0.375f, 1},
    {GPUFFT_FORMAT_S32, 2147483647.0, -2147483648.0, 0.0f, 2.0f, 1},
    {GPUFFT_FORMAT_S32, 16777217.0, 0.0, 0x1p-7f, 0x1p-7f, 1},
    {GPUFFT_FORMAT_S24, -8388608.0, 8388607.0, -0x1p-23f, -2.0f + 0x1p-23f,
        1},
    {GPUFFT_FORMAT_S16, -32768.0, 16384.0, -0.5f, -1.5f, 1},
  };
  guint i = 0;

  while (i < G_N_ELEMENTS (frames)) {
    GpufftFormat f = frames[i].f;
    guint first = i, n, j;
    guint8 bytes[8 * 2 * 8];
    GpufftGroup groups[8];
    GpufftSegment seg = { 0 };
    GpufftBatch batch = { 0 };
    GpufftPlanConfig cfg;
    GpufftPlan *plan;
    GPtrArray *got = g_ptr_array_new_with_free_func (got_free);
    GError *err = NULL;

    while (i < G_N_ELEMENTS (frames) && frames[i].f == f)
      i++;
    n = i - first;
    memset (groups, 0, sizeof (groups));
    for (j = 0; j < n; j++) {
      put (bytes, f, 2 * j, frames[first + j].a);
      put (bytes, f, 2 * j + 1, frames[first + j].b);
      groups[j].n_frames = 1;
      groups[j].close = TRUE;
    }
    config (&cfg, 2, 2);
    cfg.format = f;
    cfg.window = GPUFFT_WINDOW_RECTANGULAR;
    cfg.scaling = GPUFFT_SCALING_RAW;
    cfg.complex_out = TRUE;
    plan = host_plan (&cfg);
    seg.data = bytes;
    seg.n_samples = 2 * n;
    batch.segments = &seg;
    batch.n_segments = 1;
    batch.groups = groups;
    batch.n_groups = n;
    batch.n_frames = n;
    if (!gpufft_plan_submit (plan, &batch, &err)
        || gpufft_plan_collect (plan, TRUE, collect, got, &err) != 1)
      et_fail ("format %d: %s", f, err ? err->message : "no batch");
    g_clear_error (&err);
    for (j = 0; j < n && j < got->len; j++) {
      Got *r = g_ptr_array_index (got, j);

      if (r->counts[0] != frames[first + j].used)
        et_fail ("format %d frame %u: %u frames used, expected %u", f, j,
            r->counts[0], frames[first + j].used);
      if (!frames[first + j].used) {
        if (r->power[0] != 0.0f || r->power[1] != 0.0f)
          et_fail ("format %d frame %u: power %g %g of a frame left out", f,
              j, r->power[0], r->power[1]);
        continue;
      }
      if (r->cplx[0] != frames[first + j].x0 || r->cplx[1] != 0.0f
          || r->cplx[2] != frames[first + j].x1 || r->cplx[3] != 0.0f)
        et_fail ("format %d frame %u: X (%.9g, %.9g) (%.9g, %.9g), expected "
            "(%.9g, 0) (%.9g, 0)", f, j, r->cplx[0], r->cplx[1], r->cplx[2],
            r->cplx[3], frames[first + j].x0, frames[first + j].x1);
      if (r->power[0] != (gfloat) ((gdouble) frames[first + j].x0 *
              frames[first + j].x0)
          || r->power[1] != (gfloat) ((gdouble) frames[first + j].x1 *
              frames[first + j].x1))
        et_fail ("format %d frame %u: power %.9g %.9g, expected X^2", f, j,
            r->power[0], r->power[1]);
    }
    if (got->len != n)
      et_fail ("format %d: %u results, expected %u", f, got->len, n);
    gpufft_plan_free (plan);
    g_ptr_array_unref (got);
  }
}

/* Sets sample t of channel c to v (F32 input), in the values and the
 * encoded bytes. */
static void
poke (EtInput * in, guint c, gsize t, gfloat v)
{
  in->x[c][t] = v;
  if (in->planar)
    memcpy (in->planes[c] + t * 4, &v, 4);
  else
    memcpy (in->bytes + (t * in->channels + c) * 4, &v, 4);
}

/* F32 frames read where they lie (a slot without NaN or infinity, each
 * channel alone) and converted frame by frame (a slot with a NaN
 * elsewhere): every frame row, sum and count of the frames the NaN is not
 * in bit for bit the same, interleaved and planar, radix 2 and
 * Bluestein, in dB; the frame with the NaN left out (its row the floor). */
static void
test_frames_in_place (void)
{
  static const Sched sched[] = { {1, {{8, TRUE}}} };
  guint pl, sz;

  for (sz = 0; sz < 2; sz++)
    for (pl = 0; pl < 2; pl++) {
      guint n = sz ? 96 : 64, hop = 32, f, c, k;
      EtInput *clean = et_input_new (GPUFFT_FORMAT_F32, pl, 2, 7 * hop + n,
          0.3, 0.5, 40 + 2 * sz + pl);
      EtInput *nan = et_input_new (GPUFFT_FORMAT_F32, pl, 2, 7 * hop + n,
          0.3, 0.5, 40 + 2 * sz + pl);
      GPtrArray *got[2];
      Got *a, *b;
      GpufftPlanConfig cfg;
      GpufftPlan *plan;
      guint i;

      /* (the last sample of frame 7, channel 1: in no other frame) */
      poke (nan, 1, 7 * hop + n - 1, NAN);
      config (&cfg, n, hop);
      cfg.format = GPUFFT_FORMAT_F32;
      cfg.planar = pl;
      cfg.channels = 2;
      cfg.downmix = FALSE;
      cfg.frames_out = TRUE;
      cfg.output_db = TRUE;
      for (i = 0; i < 2; i++) {
        got[i] = g_ptr_array_new_with_free_func (got_free);
        plan = host_plan (&cfg);
        if (plan)
          run_sched (plan, &cfg, i ? nan : clean, sched, 1, -300.0f, got[i]);
        gpufft_plan_free (plan);
      }
      g_assert_cmpuint (got[0]->len, ==, 1);
      g_assert_cmpuint (got[1]->len, ==, 1);
      a = g_ptr_array_index (got[0], 0);
      b = g_ptr_array_index (got[1], 0);
      g_assert_true (a->has_frames && b->has_frames);
      g_assert_cmpuint (a->counts[0], ==, 8);
      g_assert_cmpuint (a->counts[1], ==, 8);
      g_assert_cmpuint (b->counts[0], ==, 8);
      g_assert_cmpuint (b->counts[1], ==, 7);
      for (f = 0; f < 8; f++)
        for (c = 0; c < 2; c++) {
          const gfloat *ra = a->frames + (f * 2 + c) * (gsize) a->frame_stride;
          const gfloat *rb = b->frames + (f * 2 + c) * (gsize) b->frame_stride;

          if (f == 7 && c == 1) {
            for (k = 0; k < b->frame_values; k++)
              if (rb[k] != -300.0f)
                et_fail ("N %u planar %u: the frame with the NaN, bin %u: "
                    "%g, not the floor", n, pl, k, rb[k]);
          } else if (memcmp (ra, rb, a->frame_values * sizeof (gfloat))) {
            et_fail ("N %u planar %u: frame %u channel %u's row differs "
                "between the slot read in place and the slot with a NaN "
                "elsewhere", n, pl, f, c);
          }
        }
      if (memcmp (a->power, b->power, a->n_bins * sizeof (gfloat)))
        et_fail ("N %u planar %u: channel 0's mean differs", n, pl);
      g_ptr_array_unref (got[0]);
      g_ptr_array_unref (got[1]);
      et_input_free (clean);
      et_input_free (nan);
    }
}

/* Groups spanning batches, an empty group, frames with NaN and infinite
 * samples left out per channel (any channel when mixing down), complex
 * output of each group's last frame (one in an earlier batch than the
 * group's close; zeros for the empty group), peaks of the empty group.
 * Stream frames (hop N/2): A 0-2 | B 3-7 (batches 1-2) | C empty | D 8-9
 * (closed in batch 3 without frames) | E 10-11. */
static void
check_spanning (gboolean downmix)
{
  static const Sched sched[] = {
    {2, {{3, TRUE}, {2, FALSE}}},
    {3, {{3, TRUE}, {0, TRUE}, {2, FALSE}}},
    {2, {{0, TRUE}, {2, TRUE}}},
  };
  static const guint first[5] = { 0, 3, 8, 8, 10 };
  static const guint frames[5] = { 3, 5, 0, 2, 2 };
  const guint n = 64, hop = 32, nb = n / 2 + 1;
  GpufftPlanConfig cfg;
  EtInput *in = et_input_new (GPUFFT_FORMAT_F32, FALSE, 2, 11 * hop + n, 0.3,
      0.5, 5);
  GPtrArray *got = g_ptr_array_new_with_free_func (got_free);
  GpufftPlan *plan;
  gdouble *ref = g_new (gdouble, nb), *re = g_new (gdouble, nb);
  gdouble *im = g_new (gdouble, nb), *p = g_new (gdouble, nb);
  guint g, c, k;

  /* NaN: channel 1 in frames 0 and 1 (A) and 10 and 11 (all of E);
   * infinity: channel 0 in frames 3 and 4 (B's first batch) */
  poke (in, 1, hop + 5, NAN);
  poke (in, 1, 11 * hop + 2, NAN);
  poke (in, 0, 4 * hop + 3, INFINITY);
  config (&cfg, n, hop);
  cfg.channels = 2;
  cfg.downmix = downmix;
  cfg.complex_out = TRUE;
  cfg.n_peaks = 2;
  plan = host_plan (&cfg);
  if (plan && run_sched (plan, &cfg, in, sched, 3, -300.0f, got)
      && got->len == 5) {
    for (g = 0; g < 5; g++) {
      Got *r = g_ptr_array_index (got, g);

      g_assert_cmpuint (r->index, ==, g);
      g_assert_cmpuint (r->n_frames, ==, frames[g]);
      g_assert_nonnull (r->cplx);
      for (c = 0; c < r->channels; c++) {
        gint ch = downmix ? -1 : (gint) c;
        guint used = ref_mean (in, ch, first[g], frames[g], &cfg, ref);
        gchar *what = g_strdup_printf ("downmix %d group %u channel %u",
            downmix, g, c);
        const gfloat *cx = r->cplx + (gsize) c * nb * 2;

        g_assert_cmpuint (r->counts[c], ==, used);
        check_row (r->power + c * nb, ref, nb, 1e-6, abs_floor (ref, nb), what);
        /* the last frame's X_k (where it is usable) */
        if (frames[g] == 0 && g == 2) {
          for (k = 0; k < 2 * nb; k++)
            if (cx[k] != 0.0f)
              et_fail ("%s: complex value %u is %g, not 0", what, k, cx[k]);
        } else if (ref_power (in, ch, (gsize) (first[g] + frames[g] - 1) *
                hop, &cfg, p, re, im)) {
          gdouble e = et_complex_error (cx, re, im, nb);

          if (!(e < 1e-7))
            et_fail ("%s: complex output off by %.3g (relative L2)", what, e);
          if (cx[1] != 0.0f || cx[2 * nb - 1] != 0.0f)
            et_fail ("%s: bins 0 and N/2 not real", what);
        }
        g_free (what);
      }
    }
    /* expected counts: A channel 1 (or the mix) 1 frame, B channel 0 (or
     * the mix) 3, E channel 1 none (power 0) */
    {
      Got *a = g_ptr_array_index (got, 0), *b = g_ptr_array_index (got, 1);
      Got *c5 = g_ptr_array_index (got, 4), *e = g_ptr_array_index (got, 2);

      g_assert_cmpuint (a->counts[downmix ? 0 : 1], ==, 1);
      g_assert_cmpuint (b->counts[0], ==, 3);
      if (!downmix) {
        g_assert_cmpuint (a->counts[0], ==, 3);
        g_assert_cmpuint (c5->counts[1], ==, 0);
        g_assert_cmpuint (c5->counts[0], ==, 2);
        g_assert_cmpfloat (c5->power[nb + 7], ==, 0.0f);
      } else {
        g_assert_cmpuint (c5->counts[0], ==, 0);
      }
      /* the empty group: power 0, bin 0 is the only local maximum (0 >
       * -inf, 0 >= 0), then none */
      g_assert_cmpuint (e->counts[0], ==, 0);
      g_assert_cmpfloat (e->power[5], ==, 0.0f);
      g_assert_cmpuint (e->peaks[0].bin, ==, 0);
      g_assert_cmpfloat (e->peaks[0].power[1], ==, 0.0f);
      g_assert_cmpuint (e->peaks[1].bin, ==, G_MAXUINT);
    }
  } else {
    et_fail ("spanning, downmix %d: %u results, expected 5", downmix, got->len);
  }
  gpufft_plan_free (plan);
  g_ptr_array_unref (got);
  et_input_free (in);
  g_free (ref);
  g_free (re);
  g_free (im);
  g_free (p);
}

static void
test_spanning (void)
{
  check_spanning (FALSE);
  check_spanning (TRUE);
}

/* The n largest local maxima of p in [lo, hi] (p[k] > p[k-1], p[k] >=
 * p[k+1], missing neighbours -inf), loudest first, then the lower bin;
 * G_MAXUINT after the last. A plain search written out here. */
static void
ref_peaks (const gfloat * p, guint nb, guint lo, guint hi, guint n,
    guint * bins)
{
  gboolean *taken = g_new0 (gboolean, nb);
  guint r, k;

  for (r = 0; r < n; r++) {
    guint best = G_MAXUINT;

    for (k = lo; k <= hi && k < nb; k++) {
      gboolean left = k == 0 || p[k] > p[k - 1];
      gboolean right = k + 1 == nb || p[k] >= p[k + 1];

      if (!left || !right || taken[k])
        continue;
      if (best == G_MAXUINT || p[k] > p[best])
        best = k;
    }
    bins[r] = best;
    if (best != G_MAXUINT)
      taken[best] = TRUE;
  }
  g_free (taken);
}

/* Peaks: two clear tones against the double reference (bins and the
 * neighbours' power); many peaks of noise, in a bin range, against the
 * plain search on the plan's own power; silence (bin 0 only where the
 * range starts at 0). */
static void
test_peaks (void)
{
  static const Sched sched[] = { {1, {{5, TRUE}}} };
  const guint n = 1024, nb = n / 2 + 1;
  GpufftPlanConfig cfg;
  gdouble *ref = g_new (gdouble, nb);
  guint bins[16], k, i, round;

  for (round = 0; round < 3; round++) {
    EtInput *in = et_input_new (GPUFFT_FORMAT_F32, FALSE, 1, 4 * 512 + n,
        round == 0 ? 0.001 : 0.3, round == 2 ? 0.0 : 0.5, 17);
    GPtrArray *got = g_ptr_array_new_with_free_func (got_free);
    GpufftPlan *plan;

    if (round == 2)
      for (k = 0; k < in->len; k++)
        poke (in, 0, k, 0.0f);
    config (&cfg, n, 512);
    cfg.n_peaks = round == 0 ? 2 : 12;
    cfg.peak_min_bin = round == 1 ? 20 : round == 2 ? 1 : 0;
    cfg.peak_max_bin = round == 1 ? 300 : 0;
    plan = host_plan (&cfg);
    if (plan && run_sched (plan, &cfg, in, sched, 1, -300.0f, got)
        && got->len == 1) {
      Got *r = g_ptr_array_index (got, 0);
      gfloat *rp = g_new (gfloat, nb);

      ref_mean (in, -1, 0, 5, &cfg, ref);
      for (k = 0; k < nb; k++)
        rp[k] = (gfloat) ref[k];
      if (round == 0) {
        /* the reference's own peaks, and their neighbours' power */
        ref_peaks (rp, nb, 0, nb - 1, 2, bins);
      } else {
        ref_peaks (r->power, nb, cfg.peak_min_bin, round == 1 ? 300 : nb - 1,
            cfg.n_peaks, bins);
      }
      for (i = 0; i < cfg.n_peaks; i++) {
        const GpufftPeak *pk = &r->peaks[i];

        if (pk->bin != bins[i]) {
          et_fail ("peaks round %u: peak %u at bin %u, expected %u", round, i,
              pk->bin, bins[i]);
          continue;
        }
        if (bins[i] == G_MAXUINT)
          continue;
        for (k = 0; k < 3; k++) {
          gint b = (gint) pk->bin - 1 + (gint) k;
          gdouble want = b < 0 || b >= (gint) nb ? 0.0 : ref[b];

          if (fabs (pk->power[k] - want) > 1e-6 * want + abs_floor (ref, nb))
            et_fail ("peaks round %u: peak %u (bin %u) power[%u] %.9g, "
                "expected %.9g", round, i, pk->bin, k, pk->power[k], want);
        }
      }
      if (round == 0 && (bins[0] == G_MAXUINT || bins[1] == G_MAXUINT))
        et_fail ("peaks: the tones were not found");
      if (round == 1 && bins[cfg.n_peaks - 1] == G_MAXUINT)
        et_fail ("peaks: fewer than %u maxima in the noise", cfg.n_peaks);
      if (round == 1)
        for (i = 0; i < cfg.n_peaks; i++)
          if (r->peaks[i].bin < 20 || r->peaks[i].bin > 300)
            et_fail ("peak %u at bin %u, outside 20..300", i, r->peaks[i].bin);
      if (round == 2)
        for (i = 0; i < cfg.n_peaks; i++)
          g_assert_cmpuint (r->peaks[i].bin, ==, G_MAXUINT);
      g_free (rp);
    } else {
      et_fail ("peaks round %u: no result", round);
    }
    gpufft_plan_free (plan);
    g_ptr_array_unref (got);
    et_input_free (in);
  }
  g_free (ref);
}

/* Peaks in exact arithmetic (N 8, boxcar, raw |X|^2: every value exact):
 * [2 0 0 0 -2 0 0 0] has X_k = 4 at k = 1 and 3, 0 elsewhere: two equal
 * maxima, the lower bin first; [2 0 2 0 2 0 2 0] has X_0 = X_4 = 8: maxima
 * at both ends of the spectrum, whose missing neighbours read 0. The host
 * plan, and a device plan where there is a device. */
static void
peak_ties_config (GpufftPlanConfig * cfg)
{
  config (cfg, 8, 8);
  cfg->window = GPUFFT_WINDOW_RECTANGULAR;
  cfg->scaling = GPUFFT_SCALING_RAW;
  cfg->n_peaks = 3;
}

static void
check_peak_ties (GpufftPlan * plan, const gchar * who)
{
  static const gfloat x[16] = { 2, 0, 0, 0, -2, 0, 0, 0, 2, 0, 2, 0, 2, 0, 2,
    0
  };
  static const guint bins[2][3] = { {1, 3, G_MAXUINT}, {0, 4, G_MAXUINT} };
  static const gfloat pw[2][2][3] = {
    {{0, 16, 0}, {0, 16, 0}},
    {{0, 64, 0}, {0, 64, 0}},
  };
  GpufftGroup groups[2] = { {1, TRUE, NULL, FALSE}, {1, TRUE, NULL, FALSE} };
  GpufftSegment seg = { 0 };
  GpufftBatch batch = { 0 };
  GPtrArray *got = g_ptr_array_new_with_free_func (got_free);
  GError *err = NULL;
  guint g, i, k;

  seg.data = x;
  seg.n_samples = 16;
  batch.segments = &seg;
  batch.n_segments = 1;
  batch.groups = groups;
  batch.n_groups = 2;
  batch.n_frames = 2;
  if (!gpufft_plan_submit (plan, &batch, &err)
      || gpufft_plan_collect (plan, TRUE, collect, got, &err) != 1) {
    et_fail ("peak ties (%s): %s", who, err ? err->message : "no batch");
    g_clear_error (&err);
  }
  for (g = 0; g < got->len && g < 2; g++) {
    Got *r = g_ptr_array_index (got, g);

    for (i = 0; i < 3; i++) {
      if (r->peaks[i].bin != bins[g][i])
        et_fail ("peak ties (%s), frame %u: peak %u at bin %u, expected %u",
            who, g, i, r->peaks[i].bin, bins[g][i]);
      for (k = 0; i < 2 && k < 3; k++)
        /* (exact on the host; the device's raw scaling rounds) */
        if (fabs (r->peaks[i].power[k] - pw[g][i][k]) > 1e-6 * pw[g][i][k])
          et_fail ("peak ties (%s), frame %u: peak %u power[%u] %g, "
              "expected %g", who, g, i, k, r->peaks[i].power[k], pw[g][i][k]);
    }
  }
  if (got->len != 2)
    et_fail ("peak ties (%s): %u results", who, got->len);
  g_ptr_array_unref (got);
}

static void
test_peak_ties (void)
{
  GpufftPlanConfig cfg;
  GpufftPlan *plan;

  peak_ties_config (&cfg);
  plan = host_plan (&cfg);
  check_peak_ties (plan, "host");
  gpufft_plan_free (plan);
}

static void
test_peak_ties_device (void)
{
  GpufftContext *ctx = et_context ();
  GpufftPlanConfig cfg;
  GpufftPlan *plan;
  GError *err = NULL;

  if (!ctx)
    return;
  peak_ties_config (&cfg);
  plan = gpufft_plan_new (ctx, &cfg, &err);
  g_assert_no_error (err);
  check_peak_ties (plan, "device");
  gpufft_plan_free (plan);
}

#define N_BANDS 3

/* Gains, three bands, a level and frame rows (with a NaN frame), linear
 * and in dB with an offset and a floor that cuts, two channels of S16,
 * groups spanning batches. */
static void
check_stage (gboolean db, gboolean bands)
{
  static const Sched sched[] = {
    {2, {{3, TRUE}, {2, FALSE}}},
    {2, {{2, TRUE}, {3, TRUE}}},
  };
  static const guint first_frame[3] = { 0, 3, 7 };
  static const guint frames[3] = { 3, 4, 3 };
  const guint n = 128, hop = 64, nb = n / 2 + 1;
  static const guint bfirst[N_BANDS] = { 0, 10, 40 };
  const guint bbins[N_BANDS] = { 4, 21, nb - 40 };
  const gdouble off = 3.5;
  GpufftPlanConfig cfg;
  EtInput *in = et_input_new (GPUFFT_FORMAT_F32, TRUE, 2, 9 * hop + n, 0.3,
      0.5, 23);
  GPtrArray *got = g_ptr_array_new_with_free_func (got_free);
  GpufftPlan *plan;
  gfloat gain[65], lw[65], w[65], floor_db = -300.0f;
  gdouble mean[65], p[65], lin[65], want[N_BANDS + 65];
  guint n_w = 0, g, c, k, b, f, floored = 0;

  g_assert_cmpuint (nb, ==, 65);
  for (k = 0; k < nb; k++) {
    gain[k] = 0.25f + (gfloat) k / nb;
    lw[k] = 1.0f / (1.0f + k);
  }
  for (b = 0; b < N_BANDS; b++)
    n_w += bbins[b];
  for (k = 0; k < n_w; k++)
    w[k] = 0.1f + (k % 7) * 0.3f;
  /* a NaN in channel 0 of frames 4 and 5 (group 1) */
  poke (in, 0, 5 * hop + 1, NAN);
  config (&cfg, n, hop);
  if (db) {
    /* floor: 20 dB under the first group's loudest gained bin */
    gdouble top = 0.0;

    ref_mean (in, 1, 0, 3, &cfg, mean);
    for (k = 0; k < nb; k++)
      top = MAX (top, mean[k] * gain[k]);
    floor_db = (gfloat) (10.0 * log10 (top) + off - 20.0);
  }
  cfg.format = GPUFFT_FORMAT_F32;
  cfg.planar = TRUE;
  cfg.channels = 2;
  cfg.downmix = FALSE;
  cfg.bin_gain = gain;
  cfg.level_weights = lw;
  if (bands) {
    cfg.n_bands = N_BANDS;
    cfg.band_first = bfirst;
    cfg.band_bins = bbins;
    cfg.band_weights = w;
  }
  cfg.frames_out = TRUE;
  cfg.output_db = db;
  cfg.db_offset = off;
  plan = host_plan (&cfg);
  if (plan) {
    const GpufftPlanConfig *pc = gpufft_plan_get_config (plan);

    /* (the arrays were read at creation) */
    g_assert_null (pc->bin_gain);
    g_assert_null (pc->level_weights);
    g_assert_null (pc->band_weights);
    g_assert_cmpuint (pc->n_bands, ==, bands ? N_BANDS : 0);
  }
  if (plan && run_sched (plan, &cfg, in, sched, 2, floor_db, got)
      && got->len == 3) {
    for (g = 0; g < 3; g++) {
      Got *r = g_ptr_array_index (got, g);
      guint fv = bands ? N_BANDS : nb;

      if (!r->has_frames || r->frame_values != fv || r->frame_stride != fv + 1
          || (bands && !r->bands) || !r->level) {
        et_fail ("group %u: frames %d (%u values, stride %u), bands %p, "
            "level %p", g, r->has_frames, r->frame_values, r->frame_stride,
            r->bands, r->level);
        continue;
      }
      for (c = 0; c < 2; c++) {
        gchar *what;
        gdouble l = 0.0;

        /* the frames' rows */
        for (f = 0; f < frames[g]; f++) {
          const gfloat *row = r->frames + ((gsize) f * 2 + c) * (fv + 1);
          gboolean ok = ref_power (in, c, (gsize) (first_frame[g] + f) * hop,
              &cfg, p, NULL, NULL);

          for (k = 0; k < nb; k++)
            lin[k] = ok ? p[k] * gain[k] : 0.0;
          for (b = 0, n_w = 0; b < fv; b++) {
            gdouble s = 0.0;

            if (bands) {
              for (k = 0; k < bbins[b]; k++)
                s += w[n_w + k] * lin[bfirst[b] + k];
              n_w += bbins[b];
            } else {
              s = lin[b];
            }
            want[b] = db ? MAX (10.0 * log10 (s) + off, floor_db) : s;
          }
          for (k = 0, l = 0.0; k < nb; k++)
            l += lw[k] * lin[k];
          want[fv] = db ? MAX (10.0 * log10 (l), floor_db) : l;
          what = g_strdup_printf ("db %d bands %d group %u channel %u "
              "frame %u", db, bands, g, c, f);
          if (!ok && !db) {
            for (b = 0; b <= fv; b++)
              if (row[b] != 0.0f)
                et_fail ("%s (NaN): value %u is %g, not 0", what, b, row[b]);
          } else if (db) {
            check_row (row, want, fv + 1, 0.0, 1e-4, what);
          } else {
            check_row (row, want, fv + 1, 1e-6, abs_floor (want, fv + 1), what);
          }
          if (db)
            for (b = 0; b <= fv; b++)
              floored += row[b] == floor_db;
          g_free (what);
        }
        /* the group: power, bands, level */
        g_assert_cmpuint (r->counts[c], ==, ref_mean (in, c, first_frame[g],
                frames[g], &cfg, mean));
        for (k = 0; k < nb; k++) {
          lin[k] = mean[k] * gain[k];
          want[k] = db ? MAX (10.0 * log10 (lin[k]) + off, floor_db) : lin[k];
        }
        what = g_strdup_printf ("db %d bands %d group %u channel %u", db,
            bands, g, c);
        if (db)
          check_row (r->power + c * nb, want, nb, 0.0, 1e-4, what);
        else
          check_row (r->power + c * nb, want, nb, 1e-6, abs_floor (want, nb),
              what);
        for (b = 0, n_w = 0; bands && b < N_BANDS; b++) {
          gdouble s = 0.0;

          for (k = 0; k < bbins[b]; k++)
            s += w[n_w + k] * lin[bfirst[b] + k];
          n_w += bbins[b];
          want[b] = db ? MAX (10.0 * log10 (s) + off, floor_db) : s;
        }
        for (k = 0, l = 0.0; k < nb; k++)
          l += lw[k] * lin[k];
        if (bands)
          check_row (r->bands + c * N_BANDS, want, N_BANDS, db ? 0.0 : 1e-6,
              db ? 1e-4 : 1e-300, what);
        want[0] = db ? MAX (10.0 * log10 (l), floor_db) : l;
        check_row (r->level + c, want, 1, db ? 0.0 : 1e-6, db ? 1e-4 : 1e-300,
            what);
        g_free (what);
      }
    }
    /* the NaN frame: channel 0 of group 1 uses 2 of its 4 frames */
    g_assert_cmpuint (((Got *) g_ptr_array_index (got, 1))->counts[0], ==, 2);
    if (db && floored == 0)
      et_fail ("stage: the floor cut nothing");
  } else {
    et_fail ("stage db %d bands %d: %u results", db, bands, got->len);
  }
  gpufft_plan_free (plan);
  g_ptr_array_unref (got);
  et_input_free (in);
}

static void
test_stage (void)
{
  check_stage (FALSE, TRUE);
  check_stage (TRUE, TRUE);
  check_stage (FALSE, FALSE);
  check_stage (TRUE, FALSE);
}

/* GStreamer's averaging (MEAN_DB) with the mean phase: each group against
 * the mean over its frames of max (10 log10 (gain p) + offset, floor) and
 * of atan2 (Im, Re) (bins 0 and N/2 exactly 0 or pi; well-conditioned
 * bins only elsewhere), across batches; an empty group reads the floor
 * and phase 0. */
static void
test_mean_db (void)
{
  static const Sched sched[] = {
    {2, {{4, TRUE}, {3, FALSE}}},
    {2, {{2, TRUE}, {0, TRUE}}},
  };
  static const guint first_frame[3] = { 0, 4, 9 };
  static const guint frames[3] = { 4, 5, 0 };
  const guint n = 96, hop = 48, nb = n / 2 + 1;
  const gdouble off = -3.5;
  const gfloat floor_db = -45.0f;
  GpufftPlanConfig cfg;
  EtInput *in = et_input_new (GPUFFT_FORMAT_S24, FALSE, 1, 8 * hop + n, 0.3,
      0.5, 29);
  GPtrArray *got = g_ptr_array_new_with_free_func (got_free);
  GpufftPlan *plan;
  gfloat gain[49];
  gdouble p[49], re[49], im[49], sum[49], ph[49], top;
  gboolean ill[49];
  guint g, f, k, floored = 0, compared = 0, neg0[3], negm[3];

  for (k = 0; k < nb; k++)
    gain[k] = 0.5f + (gfloat) k / nb;
  config (&cfg, n, hop);
  cfg.format = GPUFFT_FORMAT_S24;
  cfg.averaging = GPUFFT_AVERAGING_MEAN_DB;
  cfg.output_db = TRUE;
  cfg.db_offset = off;
  cfg.bin_gain = gain;
  cfg.complex_out = cfg.phase_mean = TRUE;
  plan = host_plan (&cfg);
  if (plan && run_sched (plan, &cfg, in, sched, 2, floor_db, got)
      && got->len == 3) {
    for (g = 0; g < 3; g++) {
      Got *r = g_ptr_array_index (got, g);
      gchar *what = g_strdup_printf ("mean of dB, group %u", g);

      memset (sum, 0, sizeof (sum));
      memset (ph, 0, sizeof (ph));
      memset (ill, 0, sizeof (ill));
      neg0[g] = negm[g] = 0;
      for (f = 0; f < frames[g]; f++) {
        ref_power (in, -1, (gsize) (first_frame[g] + f) * hop, &cfg, p, re, im);
        for (k = 0, top = 0.0; k < nb; k++)
          top = MAX (top, hypot (re[k], im[k]));
        for (k = 0; k < nb; k++) {
          gdouble d = 10.0 * log10 (gain[k] * p[k]) + off;
          gdouble a = atan2 (k == 0 || k == nb - 1 ? 0.0 : im[k], re[k]);

          floored += d < floor_db;
          sum[k] += MAX (d, floor_db);
          ph[k] += a;
          if (hypot (re[k], im[k]) < 1e-3 * top || G_PI - fabs (a) < 1e-3)
            ill[k] = TRUE;
        }
        neg0[g] += re[0] < 0;
        negm[g] += re[nb - 1] < 0;
      }
      g_assert_cmpuint (r->counts[0], ==, frames[g]);
      g_assert_null (r->cplx);
      g_assert_nonnull (r->phase);
      for (k = 0; k < nb; k++) {
        sum[k] = frames[g] ? sum[k] / frames[g] : floor_db;
        ph[k] = frames[g] ? ph[k] / frames[g] : 0.0;
      }
      check_row (r->power, sum, nb, 0.0, 1e-4, what);
      /* bins 0 and N/2: the mean of 0 and pi */
      if (fabs (r->phase[0] - (frames[g] ? G_PI * neg0[g] / frames[g] : 0.0))
          > 1e-6 || fabs (r->phase[nb - 1] - (frames[g] ? G_PI * negm[g] /
                  frames[g] : 0.0)) > 1e-6)
        et_fail ("%s: phase of bins 0 and N/2 %.7f %.7f", what, r->phase[0],
            r->phase[nb - 1]);
      for (k = 1; k < nb - 1; k++) {
        if (ill[k])
          continue;
        compared++;
        if (fabs (r->phase[k] - ph[k]) > 1e-6)
          et_fail ("%s: bin %u phase %.7f, expected %.7f", what, k,
              r->phase[k], ph[k]);
      }
      g_free (what);
    }
    if (floored == 0)
      et_fail ("mean of dB: the floor cut nothing");
    if (compared < nb)
      et_fail ("mean of dB: only %u phases compared", compared);
  } else {
    et_fail ("mean of dB: %u results", got->len);
  }
  gpufft_plan_free (plan);
  g_ptr_array_unref (got);
  et_input_free (in);
}

/* Peak hold: the per-bin maximum over each group's frames, times the
 * gains, across batches; an empty group reads 0. */
static void
test_peak_hold (void)
{
  static const Sched sched[] = {
    {2, {{3, TRUE}, {2, FALSE}}},
    {2, {{3, TRUE}, {0, TRUE}}},
  };
  static const guint first_frame[3] = { 0, 3, 8 };
  static const guint frames[3] = { 3, 5, 0 };
  const guint n = 30, hop = 11, nb = n / 2 + 1;
  GpufftPlanConfig cfg;
  EtInput *in = et_input_new (GPUFFT_FORMAT_F64, FALSE, 2, 7 * hop + n, 0.3,
      0.5, 31);
  GPtrArray *got = g_ptr_array_new_with_free_func (got_free);
  GpufftPlan *plan;
  gfloat gain[16];
  gdouble p[16], hold[16];
  guint g, f, k, c;

  for (k = 0; k < nb; k++)
    gain[k] = 2.0f - (gfloat) k / nb;
  config (&cfg, n, hop);
  cfg.format = GPUFFT_FORMAT_F64;
  cfg.channels = 2;
  cfg.downmix = FALSE;
  cfg.averaging = GPUFFT_AVERAGING_PEAK_HOLD;
  cfg.bin_gain = gain;
  cfg.window = GPUFFT_WINDOW_FLAT_TOP;
  plan = host_plan (&cfg);
  if (plan && run_sched (plan, &cfg, in, sched, 2, -300.0f, got)
      && got->len == 3) {
    for (g = 0; g < 3; g++) {
      Got *r = g_ptr_array_index (got, g);

      for (c = 0; c < 2; c++) {
        gchar *what = g_strdup_printf ("peak hold group %u channel %u", g, c);

        memset (hold, 0, sizeof (hold));
        for (f = 0; f < frames[g]; f++) {
          ref_power (in, c, (gsize) (first_frame[g] + f) * hop, &cfg, p, NULL,
              NULL);
          for (k = 0; k < nb; k++)
            hold[k] = MAX (hold[k], p[k] * gain[k]);
        }
        g_assert_cmpuint (r->counts[c], ==, frames[g]);
        check_row (r->power + c * nb, hold, nb, 1e-6,
            frames[g] ? abs_floor (hold, nb) : 0.0, what);
        g_free (what);
      }
    }
  } else {
    et_fail ("peak hold: %u results", got->len);
  }
  gpufft_plan_free (plan);
  g_ptr_array_unref (got);
  et_input_free (in);
}

/* ---- 2. against a device plan ------------------------------------------- */

/* Runs the batches on a host and a device plan of cfg and compares every
 * result: power (linear: et_power_error's bound, 1e-5 and the float
 * FFT's term, within 100 dB of the largest; dB: 10 log10 (1 + 1e-5) +
 * 1e-5 dB above the floor), counts, peaks, bands, level, frames, complex
 * output and phase (well-conditioned bins). */
static void
compare_device (const GpufftPlanConfig * cfg, EtInput * in,
    const Sched * sched, guint n_batches, gfloat db_floor, const gchar * name)
{
  GpufftContext *ctx = et_context ();
  GPtrArray *gh = g_ptr_array_new_with_free_func (got_free);
  GPtrArray *gd = g_ptr_array_new_with_free_func (got_free);
  GpufftPlan *host, *dev;
  GError *err = NULL;
  const gdouble db_tol = 10.0 * log10 (1.0 + 1e-5) + 1e-5;
  guint nb = cfg->fft_size / 2 + 1, g, c, k;
  gdouble worst = 0.0, worst_db = 0.0, *ref = g_new (gdouble, nb);

  if (!ctx)
    goto done;
  host = host_plan (cfg);
  dev = gpufft_plan_new (ctx, cfg, &err);
  g_assert_no_error (err);
  g_assert_cmpuint (gpufft_plan_get_max_frames (host), ==,
      gpufft_plan_get_max_frames (dev));
  g_assert_cmpuint (gpufft_plan_get_max_groups (host), ==,
      gpufft_plan_get_max_groups (dev));
  g_assert_cmpuint (gpufft_plan_get_max_span (host), ==,
      gpufft_plan_get_max_span (dev));
  g_assert_cmpuint (gpufft_plan_get_n_bins (host), ==,
      gpufft_plan_get_n_bins (dev));
  g_assert_cmpuint (gpufft_plan_get_out_channels (host), ==,
      gpufft_plan_get_out_channels (dev));
  if (!run_sched (host, cfg, in, sched, n_batches, db_floor, gh)
      || !run_sched (dev, cfg, in, sched, n_batches, db_floor, gd))
    goto free;
  g_assert_cmpuint (gh->len, ==, gd->len);
  for (g = 0; g < gh->len; g++) {
    Got *h = g_ptr_array_index (gh, g), *d = g_ptr_array_index (gd, g);

    g_assert_cmpuint (h->index, ==, d->index);
    g_assert_cmpuint (h->n_frames, ==, d->n_frames);
    g_assert_true (h->tag == d->tag);
    g_assert_cmpuint (h->n_peaks, ==, d->n_peaks);
    g_assert_cmpuint (h->n_bands, ==, d->n_bands);
    /* (a device plan's stash hands an empty group's rows back as NULL,
     * its result function as an empty array; the host plan's both ways
     * as an empty array) */
    if (h->n_frames > 0)
      g_assert_cmpint (h->has_frames, ==, d->has_frames);
    g_assert_cmpint (!h->cplx, ==, !d->cplx);
    g_assert_cmpint (!h->phase, ==, !d->phase);
    g_assert_cmpint (!h->level, ==, !d->level);
    for (c = 0; c < h->channels; c++) {
      const gfloat *hp = h->power + c * nb, *dp = d->power + c * nb;
      gchar *what = g_strdup_printf ("%s group %u channel %u", name, g, c);
      gdouble ratio;
      guint bin, i;

      g_assert_cmpuint (h->counts[c], ==, d->counts[c]);
      if (cfg->output_db) {
        for (k = 0; k < nb; k++) {
          gdouble e = fabs (hp[k] - dp[k]);

          /* (within the tolerance of the floor, one may be floored) */
          if (dp[k] < db_floor + db_tol && hp[k] < db_floor + db_tol)
            continue;
          worst_db = MAX (worst_db, e);
          if (e > db_tol)
            et_fail ("%s: bin %u %.6f dB, device %.6f dB", what, k, hp[k],
                dp[k]);
        }
      } else {
        for (k = 0; k < nb; k++)
          ref[k] = dp[k];
        /* (the device's float FFT is the inexact one: its term applies
         * with the device's power as the reference) */
        worst = MAX (worst, et_power_error (hp, ref, nb, 100.0, 1e-5, &ratio,
                &bin));
        if (!(ratio <= 1.0))
          et_fail ("%s: bin %u %.9g, device %.9g", what, bin, hp[bin], dp[bin]);
      }
      for (i = 0; i < h->n_peaks; i++) {
        const GpufftPeak *a = &h->peaks[c * h->n_peaks + i];
        const GpufftPeak *b = &d->peaks[c * h->n_peaks + i];

        if (a->bin != b->bin || fabs (a->power[1] - b->power[1]) > 1e-5 *
            b->power[1])
          et_fail ("%s: peak %u at bin %u (%.9g), device at %u (%.9g)", what,
              i, a->bin, a->power[1], b->bin, b->power[1]);
      }
      for (i = 0; i < h->n_bands; i++) {
        gfloat a = h->bands[c * h->n_bands + i], b = d->bands[c * h->n_bands +
            i];

        if (cfg->output_db ? fabs (a - b) > db_tol : fabs (a - b) > 1e-5 *
            fabs (b))
          et_fail ("%s: band %u %.9g, device %.9g", what, i, a, b);
      }
      if (h->level && (cfg->output_db ? fabs (h->level[c] - d->level[c]) >
              db_tol : fabs (h->level[c] - d->level[c]) > 1e-5 *
              fabs (d->level[c])))
        et_fail ("%s: level %.9g, device %.9g", what, h->level[c], d->level[c]);
      if (h->cplx) {
        gdouble *re = g_new (gdouble, nb), *im = g_new (gdouble, nb), e;

        for (k = 0; k < nb; k++) {
          re[k] = d->cplx[(c * nb + k) * 2];
          im[k] = d->cplx[(c * nb + k) * 2 + 1];
        }
        e = h->n_frames ? et_complex_error (h->cplx + c * nb * 2, re, im, nb) :
            0.0;
        /* (the device's single-precision FFT: ET_FFT_EPS) */
        if (!(e <= 2 * ET_FFT_EPS))
          et_fail ("%s: complex output %.3g off the device's (relative L2)",
              what, e);
        g_free (re);
        g_free (im);
      }
      g_free (what);
    }
    if (h->has_frames && d->has_frames) {
      gsize rows = (gsize) h->n_frames * h->channels, i;
      guint fv = h->frame_values, j, bin;
      gdouble *dr = g_new (gdouble, fv + 1), ratio;

      g_assert_cmpuint (h->frame_stride, ==, d->frame_stride);
      g_assert_cmpuint (h->frame_values, ==, d->frame_values);
      /* each row as a power row (its values, then its level) */
      for (i = 0; i < rows; i++) {
        const gfloat *a = h->frames + i * h->frame_stride;
        const gfloat *b = d->frames + i * h->frame_stride;

        for (j = 0; j < h->frame_stride; j++)
          dr[j] = b[j];
        if (cfg->output_db) {
          for (j = 0; j < h->frame_stride; j++)
            if (fabs (a[j] - b[j]) > db_tol && !(a[j] < db_floor + db_tol
                    && b[j] < db_floor + db_tol))
              et_fail ("%s group %u: frame row %" G_GSIZE_FORMAT " value %u "
                  "%.6f dB, device %.6f", name, g, i, j, a[j], b[j]);
          continue;
        }
        et_power_error (a, dr, fv, 100.0, 1e-5, &ratio, &bin);
        if (!(ratio <= 1.0))
          et_fail ("%s group %u: frame row %" G_GSIZE_FORMAT " value %u "
              "%.9g, device %.9g", name, g, i, bin, a[bin], b[bin]);
        if (h->frame_stride > fv && fabs (a[fv] - b[fv]) > 1e-5 * fabs (b[fv]))
          et_fail ("%s group %u: frame row %" G_GSIZE_FORMAT " level %.9g, "
              "device %.9g", name, g, i, a[fv], b[fv]);
      }
      g_free (dr);
    }
  }
  g_test_message ("%s: %u groups; worst relative error %.3g, %.3g dB", name,
      gh->len, worst, worst_db);
free:
  gpufft_plan_free (host);
  gpufft_plan_free (dev);
done:
  g_ptr_array_unref (gh);
  g_ptr_array_unref (gd);
  g_free (ref);
}

static void
test_device (void)
{
  static const Sched sched[] = {
    {2, {{4, TRUE}, {3, FALSE}}},
    {3, {{2, TRUE}, {0, TRUE}, {5, TRUE}}},
    {1, {{6, FALSE}}},
    {1, {{1, TRUE}}},
  };
  GpufftPlanConfig cfg;
  EtInput *in;
  guint n_bands = 10, first[10], bins[10], k, b;
  gfloat w[600], lw[513];

  if (!et_context ())
    return;
  /* the element's: F32 stereo mixed down, 1024 / 512, hann, spectrum, dB
   * floored at -90, 1 peak, log bands */
  config (&cfg, 1024, 512);
  cfg.channels = 2;
  cfg.output_db = TRUE;
  cfg.n_peaks = 1;
  for (b = 0, k = 0; b < n_bands; b++) {
    first[b] = b == 0 ? 1 : first[b - 1] + bins[b - 1];
    bins[b] = 1u << (b / 2 + (b > 7 ? 1 : 0));
  }
  bins[n_bands - 1] = 513 - first[n_bands - 1];
  for (b = 0; b < n_bands; b++)
    for (k = 0; k < bins[b]; k++)
      w[first[b] - 1 + k] = 1.0f;
  cfg.n_bands = n_bands;
  cfg.band_first = first;
  cfg.band_bins = bins;
  cfg.band_weights = w;
  in = et_input_new (GPUFFT_FORMAT_F32, FALSE, 2, 22 * 512 + 1024, 0.05, 0.5,
      41);
  compare_device (&cfg, in, sched, G_N_ELEMENTS (sched), -90.0f,
      "F32 stereo mix 1024 dB");
  et_input_free (in);

  /* S16, 4 channels each on its own, frame rows, level, complex output */
  config (&cfg, 256, 100);
  cfg.format = GPUFFT_FORMAT_S16;
  cfg.channels = 4;
  cfg.downmix = FALSE;
  cfg.frames_out = TRUE;
  cfg.complex_out = TRUE;
  cfg.n_peaks = 3;
  for (k = 0; k < 129; k++)
    lw[k] = 1.0f / (1 + k);
  cfg.level_weights = lw;
  in = et_input_new (GPUFFT_FORMAT_S16, FALSE, 4, 22 * 100 + 256, 0.3, 0.5, 43);
  compare_device (&cfg, in, sched, G_N_ELEMENTS (sched), -300.0f,
      "S16 x4 frames");
  et_input_free (in);

  /* N = 960 (not a power of two), raw scaling, blackman, planar */
  config (&cfg, 960, 480);
  cfg.scaling = GPUFFT_SCALING_RAW;
  cfg.window = GPUFFT_WINDOW_BLACKMAN;
  cfg.planar = TRUE;
  cfg.n_peaks = 2;
  in = et_input_new (GPUFFT_FORMAT_F32, TRUE, 1, 22 * 480 + 960, 0.3, 0.5, 47);
  compare_device (&cfg, in, sched, G_N_ELEMENTS (sched), -300.0f, "960 raw");
  et_input_free (in);

  /* peak hold, density, S24 */
  config (&cfg, 512, 256);
  cfg.scaling = GPUFFT_SCALING_DENSITY;
  cfg.format = GPUFFT_FORMAT_S24;
  cfg.averaging = GPUFFT_AVERAGING_PEAK_HOLD;
  cfg.n_peaks = 2;
  in = et_input_new (GPUFFT_FORMAT_S24, FALSE, 1, 22 * 256 + 512, 0.3, 0.5, 53);
  compare_device (&cfg, in, sched, G_N_ELEMENTS (sched), -300.0f,
      "peak hold 512");
  et_input_free (in);

  /* GStreamer's mean of dB, floor -60 */
  config (&cfg, 256, 128);
  cfg.averaging = GPUFFT_AVERAGING_MEAN_DB;
  cfg.output_db = TRUE;
  cfg.db_offset = 6.0f;
  in = et_input_new (GPUFFT_FORMAT_F32, FALSE, 1, 22 * 128 + 256, 0.3, 0.5, 59);
  compare_device (&cfg, in, sched, G_N_ELEMENTS (sched), -60.0f,
      "mean of dB 256");
  et_input_free (in);
}

/* ---- 3. the contract ---------------------------------------------------- */

/* The batch limits, resolved as a device plan's, and what a host plan
 * reports. */
static void
test_limits (void)
{
  GpufftPlanConfig cfg;
  GpufftPlan *plan;
  GpufftTimings t;
  GError *err = NULL;

  config (&cfg, 1024, 512);
  cfg.channels = 2;
  cfg.peak_max_bin = 5000;
  plan = host_plan (&cfg);
  g_assert_nonnull (plan);
  /* 4 MiB of F32 stereo: 524288 instants, (524288 - 1024) / 512 + 1 frames;
   * groups: 16 MiB of 513-bin rows, clamped to 64 */
  g_assert_cmpuint (gpufft_plan_get_max_frames (plan), ==, 1023);
  g_assert_cmpuint (gpufft_plan_get_max_groups (plan), ==, 64);
  g_assert_cmpuint (gpufft_plan_get_max_span (plan), ==, 1022 * 512 + 1024);
  g_assert_cmpuint (gpufft_plan_get_n_bins (plan), ==, 513);
  g_assert_cmpuint (gpufft_plan_get_out_channels (plan), ==, 1);
  g_assert_cmpuint (gpufft_plan_get_n_slots (plan), ==, 8);
  g_assert_cmpuint (gpufft_plan_get_import_min_bytes (plan), ==, 0);
  g_assert_cmpint (gpufft_plan_get_kernels (plan), ==, GPUFFT_KERNELS_GPU);
  g_assert_cmpuint (gpufft_plan_get_config (plan)->peak_max_bin, ==, 512);
  g_assert_cmpuint (gpufft_plan_get_config (plan)->fft_size, ==, 1024);
  g_assert_false (gpufft_plan_rerun (plan, 1, &err));
  g_assert_error (err, GPUFFT_ERROR, GPUFFT_ERROR_UNSUPPORTED);
  g_clear_error (&err);
  memset (&t, 0xff, sizeof (t));
  gpufft_plan_get_timings (plan, &t);
  g_assert_false (t.valid);
  gpufft_plan_free (plan);

  /* as asked; groups at most frames + 1 */
  config (&cfg, 64, 32);
  cfg.max_frames = 5;
  plan = host_plan (&cfg);
  g_assert_cmpuint (gpufft_plan_get_max_frames (plan), ==, 5);
  g_assert_cmpuint (gpufft_plan_get_max_groups (plan), ==, 6);
  g_assert_cmpuint (gpufft_plan_get_max_span (plan), ==, 4 * 32 + 64);
  gpufft_plan_free (plan);
  /* 65536 mono F32: 31 frames of 4 MiB, 32 groups */
  config (&cfg, 65536, 32768);
  cfg.max_groups = 3;
  plan = host_plan (&cfg);
  g_assert_cmpuint (gpufft_plan_get_max_frames (plan), ==, 31);
  g_assert_cmpuint (gpufft_plan_get_max_groups (plan), ==, 3);
  gpufft_plan_free (plan);
}

static void
release_count (gpointer data)
{
  g_atomic_int_inc ((gint *) data);
}

/* Refused: averaging whose state carries across groups (UNSUPPORTED), the
 * configurations gpufft_plan_new() refuses (INVALID_ARGUMENT), bad batches
 * (INVALID_ARGUMENT, release called). */
static void
test_refused (void)
{
  GpufftPlanConfig cfg;
  GpufftPlan *plan;
  GError *err = NULL;
  GpufftGroup grp = { 2, TRUE, NULL, FALSE };
  GpufftSegment seg = { 0 };
  GpufftBatch batch = { 0 };
  gfloat data[256] = { 0 };
  gint released = 0;

  config (&cfg, 64, 32);
  cfg.averaging = GPUFFT_AVERAGING_EXPONENTIAL;
  cfg.time_constant = 0.1;
  g_assert_null (gpufft_plan_new_host (&cfg, &err));
  g_assert_error (err, GPUFFT_ERROR, GPUFFT_ERROR_UNSUPPORTED);
  g_clear_error (&err);
  cfg.averaging = GPUFFT_AVERAGING_MAX_HOLD;
  g_assert_null (gpufft_plan_new_host (&cfg, &err));
  g_assert_error (err, GPUFFT_ERROR, GPUFFT_ERROR_UNSUPPORTED);
  g_clear_error (&err);

  config (&cfg, 63, 32);
  g_assert_null (gpufft_plan_new_host (&cfg, &err));
  g_assert_error (err, GPUFFT_ERROR, GPUFFT_ERROR_INVALID_ARGUMENT);
  g_clear_error (&err);
  config (&cfg, 64, 0);
  g_assert_null (gpufft_plan_new_host (&cfg, &err));
  g_assert_error (err, GPUFFT_ERROR, GPUFFT_ERROR_INVALID_ARGUMENT);
  g_clear_error (&err);
  config (&cfg, 64, 32);
  cfg.channels = GPUFFT_MAX_CHANNELS + 1;
  g_assert_null (gpufft_plan_new_host (&cfg, &err));
  g_assert_error (err, GPUFFT_ERROR, GPUFFT_ERROR_INVALID_ARGUMENT);
  g_clear_error (&err);
  config (&cfg, 64, 32);
  cfg.averaging = GPUFFT_AVERAGING_MEAN_DB;     /* without dB output */
  g_assert_null (gpufft_plan_new_host (&cfg, &err));
  g_assert_error (err, GPUFFT_ERROR, GPUFFT_ERROR_INVALID_ARGUMENT);
  g_clear_error (&err);
  config (&cfg, 64, 32);
  cfg.n_peaks = GPUFFT_MAX_PEAKS + 1;
  g_assert_null (gpufft_plan_new_host (&cfg, &err));
  g_assert_error (err, GPUFFT_ERROR, GPUFFT_ERROR_INVALID_ARGUMENT);
  g_clear_error (&err);

  /* batches: too few samples, frames that do not add up, no group */
  config (&cfg, 64, 32);
  cfg.max_frames = 4;
  plan = host_plan (&cfg);
  seg.data = data;
  seg.n_samples = 32 + 63;
  seg.release = release_count;
  seg.release_data = &released;
  batch.segments = &seg;
  batch.n_segments = 1;
  batch.groups = &grp;
  batch.n_groups = 1;
  batch.n_frames = 2;
  g_assert_false (gpufft_plan_submit (plan, &batch, &err));
  g_assert_error (err, GPUFFT_ERROR, GPUFFT_ERROR_INVALID_ARGUMENT);
  g_clear_error (&err);
  g_assert_cmpint (released, ==, 1);
  seg.n_samples = 256;
  batch.n_frames = 3;
  g_assert_false (gpufft_plan_submit (plan, &batch, &err));
  g_assert_error (err, GPUFFT_ERROR, GPUFFT_ERROR_INVALID_ARGUMENT);
  g_clear_error (&err);
  g_assert_cmpint (released, ==, 2);
  batch.n_frames = 2;
  batch.n_groups = 0;
  g_assert_false (gpufft_plan_submit (plan, &batch, &err));
  g_assert_error (err, GPUFFT_ERROR, GPUFFT_ERROR_INVALID_ARGUMENT);
  g_clear_error (&err);
  g_assert_cmpint (released, ==, 3);
  /* (more frames than max_frames) */
  grp.n_frames = batch.n_frames = 5;
  batch.n_groups = 1;
  g_assert_false (gpufft_plan_submit (plan, &batch, &err));
  g_assert_error (err, GPUFFT_ERROR, GPUFFT_ERROR_INVALID_ARGUMENT);
  g_clear_error (&err);
  g_assert_cmpint (released, ==, 4);
  /* and a good one: released once, at the end of the submit */
  grp.n_frames = batch.n_frames = 2;
  g_assert_true (gpufft_plan_submit (plan, &batch, &err));
  g_assert_no_error (err);
  g_assert_cmpint (released, ==, 5);
  g_assert_cmpint (gpufft_plan_collect (plan, TRUE, NULL, NULL, &err), ==, 1);
  g_assert_cmpuint (gpufft_plan_in_flight (plan), ==, 0);
  gpufft_plan_free (plan);
}

/* A result function that holds the first delivery until the gate opens,
 * records the tags in order, and optionally frees its plan or collects
 * from inside. */
typedef struct
{
  GMutex lock;
  GCond cond;
  gboolean gate, entered, freed;
  GArray *tags, *index;
  GpufftPlan *plan;
  gboolean free_in_cb, collect_in_cb;
  gint in_cb_collected;
  gint64 free_us;
  gint after_free;
} Cb;

static void
cb_init (Cb * cb)
{
  memset (cb, 0, sizeof (*cb));
  g_mutex_init (&cb->lock);
  g_cond_init (&cb->cond);
  cb->tags = g_array_new (FALSE, FALSE, sizeof (guint));
  cb->index = g_array_new (FALSE, FALSE, sizeof (guint64));
  cb->in_cb_collected = -2;
}

static void
cb_clear (Cb * cb)
{
  g_array_unref (cb->tags);
  g_array_unref (cb->index);
  g_mutex_clear (&cb->lock);
  g_cond_clear (&cb->cond);
}

static void
cb_open (Cb * cb)
{
  g_mutex_lock (&cb->lock);
  cb->gate = TRUE;
  g_cond_broadcast (&cb->cond);
  g_mutex_unlock (&cb->lock);
}

static void
cb_wait_entered (Cb * cb)
{
  gint64 end = g_get_monotonic_time () + 10 * G_TIME_SPAN_SECOND;

  g_mutex_lock (&cb->lock);
  while (!cb->entered && g_cond_wait_until (&cb->cond, &cb->lock, end));
  g_assert_true (cb->entered);
  g_mutex_unlock (&cb->lock);
}

static void
cb_func (const GpufftGroupResult * r, gpointer data)
{
  Cb *cb = data;
  guint tag = GPOINTER_TO_UINT (r->tag);
  gboolean first;

  g_mutex_lock (&cb->lock);
  if (cb->freed)
    cb->after_free++;
  first = !cb->entered;
  cb->entered = TRUE;
  g_cond_broadcast (&cb->cond);
  while (!cb->gate)
    g_cond_wait (&cb->cond, &cb->lock);
  g_array_append_val (cb->tags, tag);
  g_array_append_val (cb->index, r->group_index);
  g_mutex_unlock (&cb->lock);
  if (first && cb->collect_in_cb)
    cb->in_cb_collected = gpufft_plan_collect (cb->plan, TRUE, NULL, NULL,
        NULL);
  if (first && cb->free_in_cb) {
    gint64 t0 = g_get_monotonic_time ();

    gpufft_plan_free (cb->plan);
    g_mutex_lock (&cb->lock);
    cb->free_us = g_get_monotonic_time () - t0;
    cb->freed = TRUE;
    g_cond_broadcast (&cb->cond);
    g_mutex_unlock (&cb->lock);
  }
}

/* Submits one batch of a closing group of 2 frames from stream frame
 * `frame` (tag), or (open) a group left open / continued (cont) */
static gboolean
submit_one (GpufftPlan * plan, EtInput * in, guint frame, guint tag,
    gboolean no_wait, gboolean close, gint * released, GError ** err)
{
  GpufftGroup grp = { 2, close, GUINT_TO_POINTER (tag), FALSE };
  GpufftSegment segs[2];
  GpufftBatch batch = { 0 };
  gboolean ok;

  et_input_segments (in, (gsize) frame * 32, 32 + 64, 2, segs, NULL);
  segs[0].release = segs[1].release = release_count;
  segs[0].release_data = &released[0];
  segs[1].release_data = &released[1];
  batch.segments = segs;
  batch.n_segments = 2;
  batch.groups = &grp;
  batch.n_groups = 1;
  batch.n_frames = 2;
  batch.no_wait = no_wait;
  ok = gpufft_plan_submit (plan, &batch, err);
  return ok;
}

/* All slots in flight: a no_wait batch fails with BUSY and changes
 * nothing (no result, group indices go on), its segments released once;
 * the results come in order; collect (wait) drains. */
static void
test_busy (void)
{
  GpufftPlanConfig cfg;
  GpufftPlan *plan;
  EtInput *in = et_input_new (GPUFFT_FORMAT_F32, FALSE, 1, 40 * 32 + 64, 0.3,
      0.5, 61);
  GError *err = NULL;
  Cb cb;
  gint released[2];
  guint i, n;
  gdouble ref[33];
  GPtrArray *got = g_ptr_array_new_with_free_func (got_free);

  cb_init (&cb);
  config (&cfg, 64, 32);
  plan = host_plan (&cfg);
  n = gpufft_plan_get_n_slots (plan);
  g_assert_cmpuint (2 * n + 4, <=, 40);
  gpufft_plan_set_result_func (plan, cb_func, &cb);
  for (i = 0; i < n; i++) {
    released[0] = released[1] = 0;
    g_assert_true (submit_one (plan, in, 2 * i, i + 1, TRUE, TRUE, released,
            &err));
    g_assert_no_error (err);
    /* (released once, at the end of the submit) */
    g_assert_cmpint (released[0], ==, 1);
    g_assert_cmpint (released[1], ==, 1);
    if (i == 0)
      cb_wait_entered (&cb);
  }
  g_assert_cmpuint (gpufft_plan_in_flight (plan), ==, n);
  released[0] = released[1] = 0;
  g_assert_false (submit_one (plan, in, 2 * n, 99, TRUE, TRUE, released, &err));
  g_assert_error (err, GPUFFT_ERROR, GPUFFT_ERROR_BUSY);
  g_clear_error (&err);
  g_assert_cmpint (released[0], ==, 1);
  g_assert_cmpint (released[1], ==, 1);
  g_assert_cmpuint (gpufft_plan_in_flight (plan), ==, n);
  cb_open (&cb);
  g_assert_cmpint (gpufft_plan_collect (plan, TRUE, NULL, NULL, &err), ==, 0);
  g_assert_cmpuint (gpufft_plan_in_flight (plan), ==, 0);
  g_assert_cmpuint (cb.tags->len, ==, n);
  for (i = 0; i < n; i++) {
    g_assert_cmpuint (g_array_index (cb.tags, guint, i), ==, i + 1);
    g_assert_cmpuint (g_array_index (cb.index, guint64, i), ==, i);
  }
  /* (the refused batch changed nothing: the next one is group n, its power
   * that of its own frames) */
  gpufft_plan_set_result_func (plan, collect, got);
  released[0] = released[1] = 0;
  g_assert_true (submit_one (plan, in, 2 * n + 2, n + 1, TRUE, TRUE, released,
          &err));
  g_assert_cmpint (gpufft_plan_collect (plan, TRUE, NULL, NULL, &err), ==, 0);
  g_assert_cmpuint (got->len, ==, 1);
  {
    Got *r = g_ptr_array_index (got, 0);

    g_assert_cmpuint (r->index, ==, n);
    g_assert_cmpuint (r->n_frames, ==, 2);
    ref_mean (in, -1, 2 * n + 2, 2, &cfg, ref);
    check_row (r->power, ref, 33, 1e-6, abs_floor (ref, 33), "after BUSY");
  }
  gpufft_plan_free (plan);
  cb_clear (&cb);
  g_ptr_array_unref (got);
  et_input_free (in);
}

typedef struct
{
  GpufftPlan *plan;
  EtInput *in;
  gint released[2];
  gint done;
  gboolean ok;
  guint n;                      /* the plan's slots */
} SubmitJob;

static gpointer
submit_thread (gpointer data)
{
  SubmitJob *j = data;

  /* continues the open group and closes it, no_wait: it must wait */
  j->ok = submit_one (j->plan, j->in, 2 * j->n, 99, TRUE, TRUE, j->released,
      NULL);
  g_atomic_int_set (&j->done, 1);
  return NULL;
}

/* no_wait does not refuse a batch that continues an open group: it waits
 * for a slot. */
static void
test_busy_open_waits (void)
{
  GpufftPlanConfig cfg;
  GpufftPlan *plan;
  SubmitJob job = { 0 };
  GThread *t;
  GError *err = NULL;
  Cb cb;
  gint released[2];
  guint i;

  cb_init (&cb);
  job.in = et_input_new (GPUFFT_FORMAT_F32, FALSE, 1, 40 * 32 + 64, 0.3, 0.5,
      67);
  config (&cfg, 64, 32);
  plan = job.plan = host_plan (&cfg);
  job.n = gpufft_plan_get_n_slots (plan);
  gpufft_plan_set_result_func (plan, cb_func, &cb);
  for (i = 0; i < job.n; i++) {
    g_assert_true (submit_one (plan, job.in, 2 * i, i + 1, FALSE,
            i < job.n - 1, released, &err));
    if (i == 0)
      cb_wait_entered (&cb);
  }
  t = g_thread_new ("submit", submit_thread, &job);
  g_usleep (100000);
  g_assert_cmpint (g_atomic_int_get (&job.done), ==, 0);
  cb_open (&cb);
  g_thread_join (t);
  g_assert_true (job.ok);
  g_assert_cmpint (job.released[0], ==, 1);
  g_assert_cmpint (gpufft_plan_collect (plan, TRUE, NULL, NULL, &err), ==, 0);
  /* groups 1 .. n - 1 and the spanning one (tag 99, 4 frames) */
  g_assert_cmpuint (cb.tags->len, ==, job.n);
  g_assert_cmpuint (g_array_index (cb.tags, guint, job.n - 1), ==, 99);
  gpufft_plan_free (plan);
  cb_clear (&cb);
  et_input_free (job.in);
}

/* Without a result function: the results wait in the stash, in order;
 * collect (wait) drains every batch; in_flight counts them. */
static void
test_stash_drain (void)
{
  GpufftPlanConfig cfg;
  GpufftPlan *plan;
  EtInput *in = et_input_new (GPUFFT_FORMAT_F32, FALSE, 1, 40 * 32 + 64, 0.3,
      0.5, 71);
  GPtrArray *got = g_ptr_array_new_with_free_func (got_free);
  GError *err = NULL;
  gint released[2];
  guint i;

  config (&cfg, 64, 32);
  plan = host_plan (&cfg);
  for (i = 0; i < 7; i++)
    g_assert_true (submit_one (plan, in, 2 * i, i + 1, FALSE, TRUE, released,
            &err));
  g_assert_cmpuint (gpufft_plan_in_flight (plan), >=, 1);
  g_assert_cmpint (gpufft_plan_collect (plan, TRUE, collect, got, &err), ==, 7);
  g_assert_no_error (err);
  g_assert_cmpuint (gpufft_plan_in_flight (plan), ==, 0);
  g_assert_cmpuint (got->len, ==, 7);
  for (i = 0; i < 7; i++) {
    Got *r = g_ptr_array_index (got, i);

    g_assert_cmpuint (r->index, ==, i);
    g_assert_true (r->tag == GUINT_TO_POINTER (i + 1));
  }
  g_assert_cmpint (gpufft_plan_collect (plan, FALSE, collect, got, &err), ==,
      0);
  gpufft_plan_free (plan);
  g_ptr_array_unref (got);
  et_input_free (in);
}

/* gpufft_plan_free () from the owner waits for the work in flight: every
 * submitted batch's results reach the result function first. */
static void
test_free_waits (void)
{
  GpufftPlanConfig cfg;
  GpufftPlan *plan;
  EtInput *in = et_input_new (GPUFFT_FORMAT_F32, FALSE, 1, 40 * 32 + 64, 0.3,
      0.5, 83);
  GError *err = NULL;
  Cb cb;
  gint released[2];
  guint i;

  cb_init (&cb);
  cb.gate = TRUE;
  config (&cfg, 64, 32);
  plan = host_plan (&cfg);
  gpufft_plan_set_result_func (plan, cb_func, &cb);
  for (i = 0; i < 12; i++)
    g_assert_true (submit_one (plan, in, 2 * i, i + 1, FALSE, TRUE, released,
            &err));
  gpufft_plan_free (plan);
  g_assert_cmpuint (cb.tags->len, ==, 12);
  for (i = 0; i < 12; i++)
    g_assert_cmpuint (g_array_index (cb.tags, guint, i), ==, i + 1);
  cb_clear (&cb);
  et_input_free (in);
}

/* Threads named "gpufft-host" in this process (-1 where /proc cannot
 * tell). */
static gint
host_threads (void)
{
  GDir *dir = g_dir_open ("/proc/self/task", 0, NULL);
  const gchar *name;
  gint n = 0;

  if (!dir)
    return -1;
  while ((name = g_dir_read_name (dir)) != NULL) {
    gchar *path = g_build_filename ("/proc/self/task", name, "comm", NULL);
    gchar *comm = NULL;

    if (g_file_get_contents (path, &comm, NULL, NULL)
        && g_str_has_prefix (comm, "gpufft-host"))
      n++;
    g_free (comm);
    g_free (path);
  }
  g_dir_close (dir);
  return n;
}

/* Tags passed to a plan's tag_free (test_free_in_callback,
 * test_free_stashed_tags). */
static gint host_tags_freed;

static void
count_host_tag_free (gpointer tag)
{
  g_assert_nonnull (tag);
  g_atomic_int_inc (&host_tags_freed);
}

/* gpufft_plan_free () from the result function returns at once, no result
 * comes after it, and the worker ends, the tags of the groups not
 * delivered going to the plan's tag_free; collect from the result
 * function does not wait (it would wait for itself). */
static void
test_free_in_callback (void)
{
  GpufftPlanConfig cfg;
  GpufftPlan *plan;
  EtInput *in = et_input_new (GPUFFT_FORMAT_F32, FALSE, 1, 40 * 32 + 64, 0.3,
      0.5, 73);
  GError *err = NULL;
  Cb cb;
  gint released[2], n = -1;
  gint64 end;
  guint i;

  cb_init (&cb);
  config (&cfg, 64, 32);
  plan = cb.plan = host_plan (&cfg);
  cb.free_in_cb = TRUE;
  cb.collect_in_cb = TRUE;
  gpufft_plan_set_result_func (plan, cb_func, &cb);
  g_atomic_int_set (&host_tags_freed, 0);
  gpufft_plan_set_tag_free (plan, count_host_tag_free);
  for (i = 0; i < 4; i++)
    g_assert_true (submit_one (plan, in, 2 * i, i + 1, FALSE, TRUE, released,
            &err));
  cb_open (&cb);
  end = g_get_monotonic_time () + 10 * G_TIME_SPAN_SECOND;
  g_mutex_lock (&cb.lock);
  while (!cb.freed && g_cond_wait_until (&cb.cond, &cb.lock, end));
  g_mutex_unlock (&cb.lock);
  g_assert_true (cb.freed);
  /* (collect in the result function: nothing stashed, no wait) */
  g_assert_cmpint (cb.in_cb_collected, ==, 0);
  g_assert_cmpint (cb.free_us, <, G_TIME_SPAN_SECOND);
  /* the worker ends (and no result after the free) */
  end = g_get_monotonic_time () + 5 * G_TIME_SPAN_SECOND;
  while ((n = host_threads ()) > 0 && g_get_monotonic_time () < end)
    g_usleep (10000);
  if (n > 0)
    et_fail ("%d host plan threads still run after the free", n);
  g_usleep (50000);
  g_mutex_lock (&cb.lock);
  g_assert_cmpint (cb.after_free, ==, 0);
  g_assert_cmpuint (cb.tags->len, ==, 1);
  g_mutex_unlock (&cb.lock);
  g_assert_cmpint (g_atomic_int_get (&host_tags_freed), ==, 3);
  cb_clear (&cb);
  et_input_free (in);
}

/* A host plan without a result function freed with results in its
 * stash: their tags go to tag_free, each once. */
static void
test_free_stashed_tags (void)
{
  GpufftPlanConfig cfg;
  GpufftPlan *plan;
  EtInput *in = et_input_new (GPUFFT_FORMAT_F32, FALSE, 1, 40 * 32 + 64, 0.3,
      0.5, 79);
  GError *err = NULL;
  gint released[2];
  guint i;

  config (&cfg, 64, 32);
  plan = host_plan (&cfg);
  g_atomic_int_set (&host_tags_freed, 0);
  gpufft_plan_set_tag_free (plan, count_host_tag_free);
  for (i = 0; i < 3; i++)
    g_assert_true (submit_one (plan, in, 2 * i, i + 1, FALSE, TRUE, released,
            &err));
  gpufft_plan_free (plan);
  g_assert_cmpint (g_atomic_int_get (&host_tags_freed), ==, 3);
  et_input_free (in);
}

int
main (int argc, char **argv)
{
  et_init (&argc, &argv);
  g_test_add_func ("/plan-host/power", test_power);
  g_test_add_func ("/plan-host/formats", test_formats);
  g_test_add_func ("/plan-host/sums-with-rows", test_sums_with_rows);
  g_test_add_func ("/plan-host/frames-in-place", test_frames_in_place);
  g_test_add_func ("/plan-host/conversion", test_conversion);
  g_test_add_func ("/plan-host/spanning", test_spanning);
  g_test_add_func ("/plan-host/peaks", test_peaks);
  g_test_add_func ("/plan-host/peak-ties", test_peak_ties);
  g_test_add_func ("/plan-host/peak-ties-device", test_peak_ties_device);
  g_test_add_func ("/plan-host/stage", test_stage);
  g_test_add_func ("/plan-host/mean-db", test_mean_db);
  g_test_add_func ("/plan-host/peak-hold", test_peak_hold);
  g_test_add_func ("/plan-host/device", test_device);
  g_test_add_func ("/plan-host/limits", test_limits);
  g_test_add_func ("/plan-host/refused", test_refused);
  g_test_add_func ("/plan-host/busy", test_busy);
  g_test_add_func ("/plan-host/busy-open-waits", test_busy_open_waits);
  g_test_add_func ("/plan-host/stash-drain", test_stash_drain);
  g_test_add_func ("/plan-host/free-waits", test_free_waits);
  g_test_add_func ("/plan-host/free-in-callback", test_free_in_callback);
  g_test_add_func ("/plan-host/free-stashed-tags", test_free_stashed_tags);
  return et_run ();
}
