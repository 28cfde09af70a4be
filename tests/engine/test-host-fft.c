/* The host plan's FFT (gpufft-host-fft.h), no device:
 *   - every power of two 2..65536 and Bluestein sizes (6, 10, 254, 960,
 *     1000, 1018, 4410): X_k of 1 to 4 frames of distinct random samples
 *     against the tests' double-precision reference (et_rfft_double:
 *     radix 2, or a DFT recursive on prime factors), every bin, within
 *     1e-13 of the frame's sqrt (N sum x^2) (the size of a bin of white
 *     noise);
 *   - the frames are independent: each frame's row from a call with 2, 3
 *     or 4 frames equals bit for bit its row from a call with it alone,
 *     also at the sizes whose passes do not pair up (2^odd points per
 *     complex FFT: the pass left over after the radix-4 sweeps). */
#include <math.h>
#include <string.h>

#include "engine-test.h"
#include "gpufft-host-fft.h"

#define LANES GPUFFT_HOST_FFT_LANES

static const guint sizes[] = { 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024,
  2048, 4096, 8192, 16384, 32768, 65536, 6, 10, 254, 960, 1000, 1018, 4410
};

static void
test_accuracy (void)
{
  guint s;
  gdouble worst = 0.0;

  for (s = 0; s < G_N_ELEMENTS (sizes); s++) {
    guint n = sizes[s], nb = n / 2 + 1, frames, u, k, t;
    GpufftHostFft *fft = gpufft_host_fft_new (n);
    gdouble *x = g_new (gdouble, (gsize) LANES * n);
    gdouble *out = g_new (gdouble, (gsize) LANES * 2 * nb);
    gdouble *re = g_new (gdouble, nb), *im = g_new (gdouble, nb);
    GRand *rand = g_rand_new_with_seed (n);

    g_assert_nonnull (fft);
    for (frames = 1; frames <= LANES; frames++) {
      for (t = 0; t < LANES * n; t++)
        x[t] = g_rand_double_range (rand, -1.0, 1.0);
      gpufft_host_fft_real (fft, x, frames, out);
      for (u = 0; u < frames; u++) {
        const gdouble *xu = x + (gsize) u * n;
        const gdouble *ou = out + 2 * (gsize) u * nb;
        gdouble e2 = 0.0, scale;

        for (t = 0; t < n; t++)
          e2 += xu[t] * xu[t];
        scale = sqrt (n * e2);
        et_rfft_double (xu, n, re, im);
        for (k = 0; k < nb; k++) {
          gdouble e = hypot (ou[2 * k] - re[k], ou[2 * k + 1] - im[k]) / scale;

          worst = MAX (worst, e);
          if (!(e <= 1e-13))
            g_error ("N %u, %u frames, frame %u, bin %u: (%g, %g) against "
                "(%g, %g), error %g of the frame's scale", n, frames, u, k,
                ou[2 * k], ou[2 * k + 1], re[k], im[k], e);
        }
      }
    }
    g_rand_free (rand);
    g_free (x);
    g_free (out);
    g_free (re);
    g_free (im);
    gpufft_host_fft_free (fft);
  }
  g_test_message ("worst error %.3g of a frame's scale", worst);
}

static void
test_lanes_independent (void)
{
  guint s;

  for (s = 0; s < G_N_ELEMENTS (sizes); s++) {
    guint n = sizes[s], nb = n / 2 + 1, frames, u, t;
    GpufftHostFft *fft = gpufft_host_fft_new (n);
    gdouble *x = g_new (gdouble, (gsize) LANES * n);
    gdouble *out = g_new (gdouble, (gsize) LANES * 2 * nb);
    gdouble *one = g_new (gdouble, (gsize) LANES * 2 * nb);
    GRand *rand = g_rand_new_with_seed (1000 + n);

    g_assert_nonnull (fft);
    for (t = 0; t < LANES * n; t++)
      x[t] = g_rand_double_range (rand, -1.0, 1.0) * (1 + t % 5);
    for (frames = 2; frames <= LANES; frames++) {
      gpufft_host_fft_real (fft, x, frames, out);
      for (u = 0; u < frames; u++) {
        gpufft_host_fft_real (fft, x + (gsize) u * n, 1, one);
        if (memcmp (out + (gsize) u * 2 * nb, one,
                2 * nb * sizeof (gdouble)) != 0)
          g_error ("N %u: frame %u of %u differs from the same frame alone",
              n, u, frames);
      }
    }
    g_rand_free (rand);
    g_free (x);
    g_free (out);
    g_free (one);
    gpufft_host_fft_free (fft);
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/host-fft/accuracy", test_accuracy);
  g_test_add_func ("/host-fft/lanes-independent", test_lanes_independent);
  return g_test_run ();
}
