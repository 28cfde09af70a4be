/* Peaks vs a CPU search on the same data (the group mean power the engine
 * returns): the n_peaks largest local maxima, p[k] > p[k-1] and
 * p[k] >= p[k+1] (missing neighbours are -inf), peak_min_bin <= k <=
 * peak_max_bin, loudest first, then bin G_MAXUINT; each with the power at
 * bin-1, bin, bin+1 (0 outside the spectrum). */
#include <math.h>
#include <stdlib.h>

#include "engine-test.h"

typedef struct
{
  guint bin;
  gfloat p;
} Cand;

static int
cand_cmp (const void *a, const void *b)
{
  const Cand *x = a, *y = b;

  if (x->p != y->p)
    return x->p > y->p ? -1 : 1;
  return x->bin < y->bin ? -1 : (x->bin > y->bin);
}

/* Returns the number of local maxima in [lo, hi], sorted into c. */
static guint
cpu_peaks (const gfloat * p, guint nb, guint lo, guint hi, Cand * c)
{
  guint k, n = 0;

  for (k = lo; k <= hi && k < nb; k++) {
    gboolean left = k == 0 || p[k] > p[k - 1];
    gboolean right = k + 1 >= nb || p[k] >= p[k + 1];

    if (left && right) {
      c[n].bin = k;
      c[n].p = p[k];
      n++;
    }
  }
  qsort (c, n, sizeof (Cand), cand_cmp);
  return n;
}

static gboolean
close_to (gfloat a, gfloat b)
{
  return fabsf (a - b) <= 1e-6f * MAX (fabsf (a), fabsf (b));
}

/* Checks the peaks of channel ch of r against the CPU search; returns the
 * number of real peaks. */
static guint
check_peaks (const EtResult * r, guint ch, guint n_peaks, guint lo, guint hi,
    const gchar * what)
{
  const gfloat *p = r->power + (gsize) ch * r->n_bins;
  const GpufftPeak *pk = r->peaks + (gsize) ch * n_peaks;
  Cand *c = g_new (Cand, r->n_bins);
  guint nc = cpu_peaks (p, r->n_bins, lo, hi, c), i;

  for (i = 0; i < n_peaks; i++) {
    guint b = pk[i].bin;

    if (i >= nc) {
      if (b != G_MAXUINT)
        et_fail ("%s: peak %u: bin %u, expected none (G_MAXUINT, "
            "%u local maxima in [%u, %u])", what, i, b, nc, lo, hi);
      continue;
    }
    /* equal powers may come in either order */
    if (b != c[i].bin && !(b < r->n_bins && close_to (p[b], c[i].p))) {
      et_fail ("%s: peak %u: bin %u (power %.9g), CPU search: "
          "bin %u (power %.9g)", what, i, b, b < r->n_bins ? p[b] : NAN,
          c[i].bin, c[i].p);
      continue;
    }
    if (b >= r->n_bins)
      continue;
    if (!close_to (pk[i].power[1], p[b])
        || !close_to (pk[i].power[0], b > 0 ? p[b - 1] : 0.0f)
        || !close_to (pk[i].power[2], b + 1 < r->n_bins ? p[b + 1] : 0.0f))
      et_fail ("%s: peak %u at bin %u: powers {%.9g %.9g %.9g}, "
          "spectrum {%.9g %.9g %.9g}", what, i, b, pk[i].power[0],
          pk[i].power[1], pk[i].power[2], b > 0 ? p[b - 1] : 0.0f, p[b],
          b + 1 < r->n_bins ? p[b + 1] : 0.0f);
  }
  g_free (c);
  return MIN (nc, n_peaks);
}

/* Runs `in` through a plan (N 512, hop 256, groups of 3 frames, two groups)
 * and checks the peaks of every channel of every group. */
static void
run_case (const EtInput * in, gboolean downmix, GpufftWindow window,
    guint n_peaks, guint lo, guint hi, guint * n_found)
{
  GpufftPlanConfig cfg;
  GpufftPlan *plan;
  GError *err = NULL;
  GpufftSegment seg = { 0 };
  GpufftGroup groups[2] = { {3, TRUE}, {3, TRUE} };
  GpufftBatch batch = { 0 };
  GPtrArray *res;
  guint g, c, hi_eff;

  gpufft_plan_config_init (&cfg);
  cfg.fft_size = 512;
  cfg.hop = 256;
  cfg.window = window;
  cfg.channels = in->channels;
  cfg.downmix = downmix;
  cfg.max_frames = 6;
  cfg.n_peaks = n_peaks;
  cfg.peak_min_bin = lo;
  cfg.peak_max_bin = hi;
  plan = gpufft_plan_new (et_context (), &cfg, &err);
  if (plan == NULL) {
    et_fail ("gpufft_plan_new: %s", err->message);
    g_error_free (err);
    return;
  }
  hi_eff = (hi == 0 || hi > 256) ? 256 : hi;
  et_input_segments (in, 0, 5 * 256 + 512, 1, &seg, NULL);
  batch.segments = &seg;
  batch.n_segments = 1;
  batch.n_frames = 6;
  batch.groups = groups;
  batch.n_groups = 2;
  res = et_results_new ();
  *n_found = 0;
  if (et_submit_collect (plan, &batch, res)) {
    g_assert_cmpuint (res->len, ==, 2);
    for (g = 0; g < 2; g++) {
      EtResult *r = g_ptr_array_index (res, g);

      g_assert_cmpuint (r->n_peaks, ==, n_peaks);
      g_assert_nonnull (r->peaks);
      for (c = 0; c < r->channels; c++) {
        gchar *what = g_strdup_printf ("%u peaks in [%u, %u] %s, group %u "
            "channel %u", n_peaks, lo, hi_eff,
            gpufft_window_scipy_name (window), g, c);

        *n_found += check_peaks (r, c, n_peaks, lo, hi_eff, what);
        g_free (what);
      }
    }
  }
  g_ptr_array_unref (res);
  gpufft_plan_free (plan);
}

static void
test_random (void)
{
  EtInput *in;
  guint found;

  if (et_context () == NULL)
    return;
  in = et_input_new (GPUFFT_FORMAT_F32, FALSE, 3, 5 * 256 + 512, 0.3, 0.4, 5);
  run_case (in, TRUE, GPUFFT_WINDOW_HANN, 8, 0, 0, &found);
  g_assert_cmpuint (found, ==, 2 * 8);
  run_case (in, FALSE, GPUFFT_WINDOW_HANN, 5, 20, 100, &found);
  g_assert_cmpuint (found, ==, 2 * 3 * 5);
  run_case (in, FALSE, GPUFFT_WINDOW_FLAT_TOP, 1, 0, 1000, &found);
  g_assert_cmpuint (found, ==, 2 * 3);
  run_case (in, TRUE, GPUFFT_WINDOW_BLACKMAN, GPUFFT_MAX_PEAKS, 3, 250,
      &found);
  g_assert_cmpuint (found, >=, 2 * 20);
  et_input_free (in);
}

/* Narrow ranges: one bin that is a local maximum, one that is not (no peak:
 * G_MAXUINT), a range of a few bins with fewer maxima than asked for. */
static void
test_ranges (void)
{
  EtInput *in;
  guint found, k, is_max = 0, not_max = 0;
  GpufftPlanConfig cfg;
  GpufftPlan *plan;
  GError *err = NULL;

  if (et_context () == NULL)
    return;
  in = et_input_new (GPUFFT_FORMAT_F32, FALSE, 1, 5 * 256 + 512, 0.5, 0.0,
      11);

  /* learn the shape of group 0 from a plain run */
  gpufft_plan_config_init (&cfg);
  cfg.fft_size = 512;
  cfg.hop = 256;
  cfg.max_frames = 6;
  cfg.n_peaks = 0;
  plan = gpufft_plan_new (et_context (), &cfg, &err);
  g_assert_no_error (err);
  {
    GpufftSegment seg = { 0 };
    GpufftGroup groups[2] = { {3, TRUE}, {3, TRUE} };
    GpufftBatch batch = { &seg, 1, 6, groups, 2, 0 };
    GPtrArray *res = et_results_new ();

    et_input_segments (in, 0, 5 * 256 + 512, 1, &seg, NULL);
    if (et_submit_collect (plan, &batch, res)) {
      const gfloat *p = ((EtResult *) g_ptr_array_index (res, 0))->power;
      const gfloat *q = ((EtResult *) g_ptr_array_index (res, 1))->power;

      for (k = 10; k < 200 && (!is_max || !not_max); k++) {
        gboolean m0 = p[k] > p[k - 1] && p[k] >= p[k + 1];
        gboolean m1 = q[k] > q[k - 1] && q[k] >= q[k + 1];
        if (m0 && m1 && !is_max)
          is_max = k;
        if (!m0 && !m1 && !not_max)
          not_max = k;
      }
    }
    g_ptr_array_unref (res);
  }
  gpufft_plan_free (plan);
  g_assert_cmpuint (is_max, >, 0);
  g_assert_cmpuint (not_max, >, 0);

  run_case (in, TRUE, GPUFFT_WINDOW_HANN, 3, is_max, is_max, &found);
  g_assert_cmpuint (found, ==, 2);
  run_case (in, TRUE, GPUFFT_WINDOW_HANN, 2, not_max, not_max, &found);
  g_assert_cmpuint (found, ==, 0);
  run_case (in, TRUE, GPUFFT_WINDOW_HANN, 16, 40, 50, &found);
  g_assert_cmpuint (found, <, 2 * 16);
  et_input_free (in);
}

/* Maxima at the ends of the spectrum: DC (no left neighbour) and Nyquist
 * (no right neighbour). */
static void
test_edges (void)
{
  GpufftPlanConfig cfg;
  GpufftPlan *plan;
  GError *err = NULL;
  const guint n = 256, nb = n / 2 + 1;
  gfloat *x = g_new (gfloat, n);
  guint t, which;

  if (et_context () == NULL) {
    g_free (x);
    return;
  }
  gpufft_plan_config_init (&cfg);
  cfg.fft_size = n;
  cfg.hop = n;
  cfg.window = GPUFFT_WINDOW_HANN;
  cfg.max_frames = 1;
  cfg.n_peaks = 4;
  plan = gpufft_plan_new (et_context (), &cfg, &err);
  g_assert_no_error (err);

  for (which = 0; which < 2; which++) {
    GpufftSegment seg = { x, NULL, n };
    GpufftGroup group = { 1, TRUE };
    GpufftBatch batch = { &seg, 1, 1, &group, 1, 0 };
    GPtrArray *res = et_results_new ();

    /* DC: 0.5 + small tone; Nyquist: 0.5 (-1)^t + small tone */
    for (t = 0; t < n; t++)
      x[t] = (which ? ((t & 1) ? -0.5f : 0.5f) : 0.5f)
          + 0.01f * (gfloat) sin (2 * G_PI * 40.3 * t / n);
    if (et_submit_collect (plan, &batch, res)) {
      EtResult *r = g_ptr_array_index (res, 0);

      check_peaks (r, 0, 4, 0, nb - 1, which ? "nyquist" : "dc");
      g_assert_cmpuint (r->peaks[0].bin, ==, which ? nb - 1 : 0);
      if (which)
        g_assert_cmpfloat (r->peaks[0].power[2], ==, 0.0f);
      else
        g_assert_cmpfloat (r->peaks[0].power[0], ==, 0.0f);
    }
    g_ptr_array_unref (res);
  }
  gpufft_plan_free (plan);
  g_free (x);
}

int
main (int argc, char **argv)
{
  et_init (&argc, &argv);
  g_test_add_func ("/peaks/random", test_random);
  g_test_add_func ("/peaks/ranges", test_ranges);
  g_test_add_func ("/peaks/edges", test_edges);
  return et_run ();
}
