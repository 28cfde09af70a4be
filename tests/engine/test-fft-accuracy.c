/* Complex spectrum accuracy, random input, vs a double-precision DFT: every
 * power of two 2..65536 and a sample of other even sizes (2-3-5-7 sizes as
 * mixed-radix passes, any other size through Bluestein; the M = N/2 of
 * 254, 1018 and 8186 are the primes 127, 509 and 4093). Relative L2 error
 * <= 3e-7 for powers of two and 2-3-5-7 sizes up to 4096, <= 5e-7 above,
 * <= 1e-6 for Bluestein sizes. Each size is one test:
 * /fft/accuracy/<small|large>/<N>, so meson can run the two halves as
 * separate programs in parallel (-p). */
#include <math.h>

#include "engine-test.h"

#define N_FRAMES 4

static void
test_accuracy (gconstpointer data)
{
  guint n = GPOINTER_TO_UINT (data), nb = n / 2 + 1, f, w, m = n / 2;
  gdouble limit = n <= 4096 ? 3e-7 : 5e-7;
  GpufftContext *ctx = et_context ();
  static const GpufftWindow windows[] = { GPUFFT_WINDOW_RECTANGULAR,
    GPUFFT_WINDOW_HANN
  };

  if (ctx == NULL)
    return;
  /* M with a prime factor above 7: Bluestein */
  while (m % 2 == 0)
    m /= 2;
  while (m % 3 == 0)
    m /= 3;
  while (m % 5 == 0)
    m /= 5;
  while (m % 7 == 0)
    m /= 7;
  if (m > 1)
    limit = 1e-6;

  for (w = 0; w < G_N_ELEMENTS (windows); w++) {
    GpufftPlanConfig cfg;
    GpufftPlan *plan;
    GError *err = NULL;
    EtInput *in;
    GpufftSegment seg = { 0 };
    GpufftGroup groups[N_FRAMES] = { {0} };
    GpufftBatch batch = { 0 };
    GPtrArray *res;
    gdouble *re = g_new (gdouble, nb), *im = g_new (gdouble, nb);
    gdouble worst = 0.0;

    gpufft_plan_config_init (&cfg);
    cfg.fft_size = n;
    cfg.hop = n / 2 + 3;        /* overlapping frames, odd offset */
    cfg.window = windows[w];
    cfg.format = GPUFFT_FORMAT_F32;
    cfg.max_frames = N_FRAMES;
    cfg.max_groups = N_FRAMES;
    cfg.n_peaks = 0;
    cfg.complex_out = TRUE;

    plan = gpufft_plan_new (ctx, &cfg, &err);
    if (plan == NULL) {
      et_fail ("N=%u: gpufft_plan_new: %s", n, err->message);
      g_error_free (err);
      g_free (re);
      g_free (im);
      return;
    }
    g_assert_cmpuint (gpufft_plan_get_n_bins (plan), ==, nb);

    in = et_input_new (GPUFFT_FORMAT_F32, FALSE, 1,
        (gsize) (N_FRAMES - 1) * cfg.hop + n, 1.0, 0.0, 1000 + n + w);
    et_input_segments (in, 0, in->len, 1, &seg, NULL);
    for (f = 0; f < N_FRAMES; f++) {
      groups[f].n_frames = 1;
      groups[f].close = TRUE;
    }
    batch.segments = &seg;
    batch.n_segments = 1;
    batch.n_frames = N_FRAMES;
    batch.groups = groups;
    batch.n_groups = N_FRAMES;

    res = et_results_new ();
    if (et_submit_collect (plan, &batch, res)) {
      g_assert_cmpuint (res->len, ==, N_FRAMES);
      for (f = 0; f < N_FRAMES; f++) {
        EtResult *r = g_ptr_array_index (res, f);
        gdouble e;

        g_assert_cmpuint (r->n_frames, ==, 1);
        g_assert_cmpuint (r->n_bins, ==, nb);
        g_assert_nonnull (r->complex_data);
        et_ref_complex (in, 0, (gsize) f * cfg.hop, n, windows[w], re, im);
        e = et_complex_error (r->complex_data, re, im, nb);
        worst = MAX (worst, e);

        /* power of a one-frame group == scaled |X|^2 of the same frame */
        {
          gdouble *pw = g_new (gdouble, nb), *win = g_new (gdouble, n);
          guint k;

          et_window (windows[w], n, win);
          for (k = 0; k < nb; k++)
            pw[k] = ((gdouble) r->complex_data[2 * k] * r->complex_data[2 * k]
                + (gdouble) r->complex_data[2 * k + 1] *
                r->complex_data[2 * k + 1]) *
                et_scale (cfg.scaling, win, n, cfg.rate, k);
          et_check_power (r->power, pw, nb, 100.0, 1e-5,
              "power vs |complex|^2");
          g_free (pw);
          g_free (win);
        }
      }
      g_test_message ("N=%-6u window=%-8s rel_l2=%.3e (limit %.0e)", n,
          gpufft_window_scipy_name (windows[w]), worst, limit);
      if (!(worst <= limit))
        et_fail ("N=%u window=%s: relative L2 error %.3e > %.0e",
            n, gpufft_window_scipy_name (windows[w]), worst, limit);
    }

    g_ptr_array_unref (res);

    /* the same frames as one group: Welch mean power vs the reference
     * (spectrum scaling), and the single-frame power of group 0 above was
     * already compared with its own complex output */
    {
      GpufftGroup one = { N_FRAMES, TRUE };
      gdouble *ref = g_new (gdouble, nb);
      gchar *what = g_strdup_printf ("N=%u %s mean power of %u frames", n,
          gpufft_window_scipy_name (windows[w]), N_FRAMES);

      batch.groups = &one;
      batch.n_groups = 1;
      res = et_results_new ();
      if (et_submit_collect (plan, &batch, res)) {
        EtResult *r = g_ptr_array_index (res, 0);
        gdouble e;

        g_assert_cmpuint (r->n_frames, ==, N_FRAMES);
        et_ref_power (in, 0, 0, cfg.hop, N_FRAMES, n, windows[w],
            cfg.scaling, cfg.rate, ref);
        e = et_check_power (r->power, ref, nb, 100.0, 1e-5, what);
        g_test_message ("%s: worst relative error per bin %.2e", what, e);
      }
      g_ptr_array_unref (res);
      g_free (ref);
      g_free (what);
    }
    et_input_free (in);
    gpufft_plan_free (plan);
    g_free (re);
    g_free (im);
  }
}

int
main (int argc, char **argv)
{
  guint n;

  static const guint others[] = { 6, 10, 12, 14, 18, 20, 22, 24, 30, 34,
    48, 96, 100, 254, 400, 480, 510, 882, 1000, 1018, 1764, 2000, 4410, 8186,
    8820, 44100, 48000, 65534
  };
  guint i;

  et_init (&argc, &argv);
  for (i = 0; i < G_N_ELEMENTS (others) + 16; i++) {
    gchar *path;

    n = i < 16 ? 2u << i : others[i - 16];
    path = g_strdup_printf ("/fft/accuracy/%s/%u",
        n <= 4096 ? "small" : "large", n);
    g_test_add_data_func (path, GUINT_TO_POINTER (n), test_accuracy);
    g_free (path);
  }
  return et_run ();
}
