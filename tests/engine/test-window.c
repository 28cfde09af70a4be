/* Windows vs their closed forms (coefficients written out in engine-test.c),
 * on the CPU (gpufft_window_fill) and on the GPU (a constant and a sine on a
 * bin centre through every window, against the window's exact DFT). Also
 * checks the test's own reference FFT against a direct DFT. */
#include <math.h>

#include "engine-test.h"

static const GpufftWindow all_windows[] = {
  GPUFFT_WINDOW_RECTANGULAR, GPUFFT_WINDOW_HANN, GPUFFT_WINDOW_HAMMING,
  GPUFFT_WINDOW_BLACKMAN, GPUFFT_WINDOW_BLACKMAN_HARRIS,
  GPUFFT_WINDOW_FLAT_TOP, GPUFFT_WINDOW_HAMMING_GST
};

static void
test_reference_fft (void)
{
  guint sizes[] = { 8, 64, 512 }, s;

  for (s = 0; s < G_N_ELEMENTS (sizes); s++) {
    guint n = sizes[s], i, k;
    gdouble *re = g_new (gdouble, n), *im = g_new (gdouble, n);
    gdouble *x = g_new (gdouble, n);
    GRand *rand = g_rand_new_with_seed (n);

    for (i = 0; i < n; i++) {
      x[i] = g_rand_double_range (rand, -1, 1);
      re[i] = x[i];
      im[i] = g_rand_double_range (rand, -1, 1);
    }
    {
      gdouble *xi = g_memdup2 (im, n * sizeof (gdouble));

      et_fft_double (re, im, n);
      for (k = 0; k < n; k++) {
        long double sr = 0, si = 0;

        for (i = 0; i < n; i++) {
          long double a = -2.0L * 3.14159265358979323846264338327950288L *
              (long double) ((guint64) k * i % n) / n;
          sr += x[i] * cosl (a) - xi[i] * sinl (a);
          si += x[i] * sinl (a) + xi[i] * cosl (a);
        }
        g_assert_cmpfloat_with_epsilon (re[k], (gdouble) sr, 1e-12 * n);
        g_assert_cmpfloat_with_epsilon (im[k], (gdouble) si, 1e-12 * n);
      }
      g_free (xi);
    }
    g_rand_free (rand);
    g_free (re);
    g_free (im);
    g_free (x);
  }
}

static void
test_fill (void)
{
  static const gchar *names[] = { "boxcar", "hann", "hamming", "blackman",
    "blackmanharris", "flattop", "general_hamming"
  };
  guint sizes[] = { 32, 1024, 65536 }, s, w, i;

  for (w = 0; w < G_N_ELEMENTS (all_windows); w++) {
    g_assert_cmpstr (gpufft_window_scipy_name (all_windows[w]), ==, names[w]);
    for (s = 0; s < G_N_ELEMENTS (sizes); s++) {
      guint n = sizes[s];
      gdouble *a = g_new (gdouble, n), *b = g_new (gdouble, n);
      gdouble worst = 0.0;

      gpufft_window_fill (all_windows[w], n, a);
      et_window (all_windows[w], n, b);
      for (i = 0; i < n; i++) {
        worst = MAX (worst, fabs (a[i] - b[i]));
        /* periodic form: w[i] == w[n - i] */
        if (i > 0)
          g_assert_cmpfloat_with_epsilon (a[i], a[n - i], 1e-13);
      }
      if (worst > 1e-13)
        et_fail ("%s N=%u: max |difference| %.3g from the closed "
            "form", names[w], n, worst);
      g_free (a);
      g_free (b);
    }
  }

  /* a few well-known values (scipy.signal.get_window (name, 8)) */
  {
    gdouble v[8];

    gpufft_window_fill (GPUFFT_WINDOW_HANN, 8, v);
    g_assert_cmpfloat_with_epsilon (v[0], 0.0, 1e-15);
    g_assert_cmpfloat_with_epsilon (v[2], 0.5, 1e-15);
    g_assert_cmpfloat_with_epsilon (v[4], 1.0, 1e-15);
    gpufft_window_fill (GPUFFT_WINDOW_HAMMING, 8, v);
    g_assert_cmpfloat_with_epsilon (v[0], 0.08, 1e-15);
    g_assert_cmpfloat_with_epsilon (v[4], 1.0, 1e-15);
    gpufft_window_fill (GPUFFT_WINDOW_BLACKMAN, 8, v);
    g_assert_cmpfloat_with_epsilon (v[2], 0.34, 1e-15);
    gpufft_window_fill (GPUFFT_WINDOW_BLACKMAN_HARRIS, 8, v);
    g_assert_cmpfloat_with_epsilon (v[0], 6.0e-5, 1e-15);
    gpufft_window_fill (GPUFFT_WINDOW_FLAT_TOP, 8, v);
    g_assert_cmpfloat_with_epsilon (v[0], -0.000421051, 1e-15);
    g_assert_cmpfloat_with_epsilon (v[4], 1.000000003, 1e-15);
    gpufft_window_fill (GPUFFT_WINDOW_RECTANGULAR, 8, v);
    for (i = 0; i < 8; i++)
      g_assert_cmpfloat (v[i], ==, 1.0);
  }
}

/* Runs `len` samples of `x` (F32, mono) through a plan with `window` as one
 * group of two identical frames (hop N), complex output; returns the result
 * or NULL. */
static GPtrArray *
run_frames (GpufftWindow window, GpufftScaling scaling, guint n,
    const gfloat * x)
{
  GpufftPlanConfig cfg;
  GpufftPlan *plan;
  GError *err = NULL;
  GpufftSegment seg = { 0 };
  GpufftGroup group = { 2, TRUE };
  GpufftBatch batch = { 0 };
  GPtrArray *res;

  gpufft_plan_config_init (&cfg);
  cfg.fft_size = n;
  cfg.hop = n;
  cfg.window = window;
  cfg.scaling = scaling;
  cfg.rate = 1000.0;
  cfg.max_frames = 2;
  cfg.complex_out = TRUE;
  plan = gpufft_plan_new (et_context (), &cfg, &err);
  if (plan == NULL) {
    et_fail ("gpufft_plan_new: %s", err->message);
    g_error_free (err);
    return NULL;
  }
  seg.data = x;
  seg.n_samples = 2 * n;
  batch.segments = &seg;
  batch.n_segments = 1;
  batch.n_frames = 2;
  batch.groups = &group;
  batch.n_groups = 1;
  res = et_results_new ();
  if (!et_submit_collect (plan, &batch, res) || res->len != 1) {
    et_fail ("%s: expected one result", G_STRFUNC);
    g_ptr_array_unref (res);
    res = NULL;
  }
  gpufft_plan_free (plan);
  return res;
}

/* Compares power and complex output with the expected exact DFT X[] of the
 * windowed signal (nonzero only at the bins listed). */
static void
check_expected (const EtResult * r, guint n, const gdouble * xr,
    const gdouble * xi, GpufftWindow window, GpufftScaling scaling,
    const gchar * what)
{
  guint nb = n / 2 + 1, k;
  gdouble *w = g_new (gdouble, n), *pref = g_new (gdouble, nb);
  gdouble xmax = 0.0, perr, cerr;

  et_window (window, n, w);
  for (k = 0; k < nb; k++) {
    pref[k] = (xr[k] * xr[k] + xi[k] * xi[k]) *
        et_scale (scaling, w, n, 1000.0, k);
    xmax = MAX (xmax, hypot (xr[k], xi[k]));
  }
  /* bins that are exactly zero must stay 140 dB down */
  for (k = 0; k < nb; k++) {
    gdouble g = hypot (r->complex_data[2 * k], r->complex_data[2 * k + 1]);

    if (xr[k] == 0.0 && xi[k] == 0.0 && g > 1e-7 * xmax)
      et_fail ("%s: bin %u should be 0, |X| = %.3g (max %.3g)",
          what, k, g, xmax);
  }
  perr = et_check_power (r->power, pref, nb, 100.0, 1e-5, what);
  cerr = et_complex_error (r->complex_data, xr, xi, nb);
  if (!(cerr <= 3e-7))
    et_fail ("%s: complex relative L2 error %.3g", what, cerr);
  g_test_message ("%s: power %.2e, complex %.2e", what, perr, cerr);
  g_free (w);
  g_free (pref);
}

/* A constant c through a cosine-sum window: X_0 = c N a_0,
 * X_k = c N (-1)^k a_k / 2 for 0 < k < terms, 0 elsewhere. */
static void
test_gpu_constant (void)
{
  const guint n = 256, nb = n / 2 + 1;
  const gdouble c = 0.25;
  guint w, s, k, i;

  if (et_context () == NULL)
    return;

  for (w = 0; w < G_N_ELEMENTS (all_windows); w++) {
    for (s = 0; s < 2; s++) {
      gfloat *x = g_new (gfloat, 2 * n);
      gdouble *xr = g_new0 (gdouble, nb), *xi = g_new0 (gdouble, nb);
      const gdouble *a;
      guint na = et_window_coefs (all_windows[w], &a);
      GPtrArray *res;
      gchar *what;

      for (i = 0; i < 2 * n; i++)
        x[i] = (gfloat) c;
      for (k = 0; k < na; k++)
        xr[k] = k == 0 ? c * n * a[0] : c * n * ((k & 1) ? -a[k] : a[k]) / 2;
      what = g_strdup_printf ("constant, %s, %s",
          gpufft_window_scipy_name (all_windows[w]),
          s ? "density" : "spectrum");
      res = run_frames (all_windows[w], s, n, x);
      if (res) {
        check_expected (g_ptr_array_index (res, 0), n, xr, xi,
            all_windows[w], s, what);
        g_ptr_array_unref (res);
      }
      g_free (what);
      g_free (x);
      g_free (xr);
      g_free (xi);
    }
  }
}

/* A full-scale sine on the centre of bin k0 = N/8: with spectrum scaling
 * the bin reads exactly 1/2 (0 dBFS as 10 log10 (2 S)) for every window.
 * sin (2 pi k0 t / N) windowed: X_{k0 +- j} = -i N (-1)^j a_j / 4 (j > 0),
 * X_k0 = -i N a_0 / 2 (the tone at -k0 is too far away to reach them). */
static void
test_gpu_sine (void)
{
  const guint n = 512, nb = n / 2 + 1, k0 = n / 8;
  guint w, k, i;

  if (et_context () == NULL)
    return;

  for (w = 0; w < G_N_ELEMENTS (all_windows); w++) {
    gfloat *x = g_new (gfloat, 2 * n);
    gdouble *xr = g_new0 (gdouble, nb), *xi = g_new0 (gdouble, nb);
    const gdouble *a;
    guint na = et_window_coefs (all_windows[w], &a);
    GPtrArray *res;
    gchar *what;

    for (i = 0; i < 2 * n; i++)
      x[i] = (gfloat) sin (2.0 * G_PI * (gdouble) ((guint64) k0 * i % n) / n);
    xi[k0] = -(gdouble) n * a[0] / 2;
    for (k = 1; k < na; k++) {
      gdouble v = (gdouble) n * ((k & 1) ? -a[k] : a[k]) / 4;
      xi[k0 + k] = -v;
      xi[k0 - k] = -v;
    }
    what = g_strdup_printf ("sine at bin %u, %s", k0,
        gpufft_window_scipy_name (all_windows[w]));
    res = run_frames (all_windows[w], GPUFFT_SCALING_SPECTRUM, n, x);
    if (res) {
      EtResult *r = g_ptr_array_index (res, 0);

      check_expected (r, n, xr, xi, all_windows[w], GPUFFT_SCALING_SPECTRUM,
          what);
      if (fabs (r->power[k0] - 0.5) > 0.5e-5)
        et_fail ("%s: bin power %.9g, expected 0.5", what,
            r->power[k0]);
      g_ptr_array_unref (res);
    }
    g_free (what);
    g_free (x);
    g_free (xr);
    g_free (xi);
  }
}

int
main (int argc, char **argv)
{
  et_init (&argc, &argv);
  g_test_add_func ("/reference/fft", test_reference_fft);
  g_test_add_func ("/window/fill", test_fill);
  g_test_add_func ("/window/gpu-constant", test_gpu_constant);
  g_test_add_func ("/window/gpu-sine", test_gpu_sine);
  return et_run ();
}
