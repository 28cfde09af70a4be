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
 *     complex FFT: the pass left over after the radix-4 sweeps);
 *   - the powers: each bin's |X_k|^2 equals re * re + im * im of its pair
 *     bit for bit, asked with the pairs or alone, and the pairs asked with
 *     the powers equal those asked alone;
 *   - frames of floats read where they lie (gpufft_host_fft_real_f32:
 *     strides 1, 2 and 3, frames at scattered offsets, a Hann-like window,
 *     -0 and denormal samples among them): pairs and powers bit for bit
 *     those of the same frames converted and windowed here. */
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
      gpufft_host_fft_real (fft, x, frames, out, NULL);
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
      gpufft_host_fft_real (fft, x, frames, out, NULL);
      for (u = 0; u < frames; u++) {
        gpufft_host_fft_real (fft, x + (gsize) u * n, 1, one, NULL);
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

static void
test_power (void)
{
  guint s;

  for (s = 0; s < G_N_ELEMENTS (sizes); s++) {
    guint n = sizes[s], nb = n / 2 + 1, frames, u, k, t;
    GpufftHostFft *fft = gpufft_host_fft_new (n);
    gdouble *x = g_new (gdouble, (gsize) LANES * n);
    gdouble *out = g_new (gdouble, (gsize) LANES * 2 * nb);
    gdouble *both = g_new (gdouble, (gsize) LANES * 2 * nb);
    gdouble *pw = g_new (gdouble, (gsize) LANES * nb);
    gdouble *alone = g_new (gdouble, (gsize) LANES * nb);
    GRand *rand = g_rand_new_with_seed (2000 + n);

    g_assert_nonnull (fft);
    for (t = 0; t < LANES * n; t++)
      x[t] = g_rand_double_range (rand, -1.0, 1.0) * (1 + t % 7);
    for (frames = 1; frames <= LANES; frames++) {
      gpufft_host_fft_real (fft, x, frames, out, NULL);
      gpufft_host_fft_real (fft, x, frames, both, pw);
      gpufft_host_fft_real (fft, x, frames, NULL, alone);
      for (u = 0; u < frames; u++) {
        const gdouble *o = out + (gsize) u * 2 * nb;

        if (memcmp (o, both + (gsize) u * 2 * nb,
                2 * nb * sizeof (gdouble)) != 0)
          g_error ("N %u, %u frames: frame %u's pairs differ when its "
              "powers are asked too", n, frames, u);
        for (k = 0; k < nb; k++) {
          gdouble want = o[2 * k] * o[2 * k] + o[2 * k + 1] * o[2 * k + 1];

          if (memcmp (&want, &pw[(gsize) u * nb + k], sizeof (want)) != 0
              || memcmp (&want, &alone[(gsize) u * nb + k], sizeof (want)) != 0)
            g_error ("N %u, %u frames, frame %u, bin %u: power %.17g with "
                "the pairs, %.17g alone, against %.17g", n, frames, u, k,
                pw[(gsize) u * nb + k], alone[(gsize) u * nb + k], want);
        }
      }
    }
    g_rand_free (rand);
    g_free (x);
    g_free (out);
    g_free (both);
    g_free (pw);
    g_free (alone);
    gpufft_host_fft_free (fft);
  }
}

static void
test_floats (void)
{
  guint s;

  for (s = 0; s < G_N_ELEMENTS (sizes); s++) {
    guint n = sizes[s], nb = n / 2 + 1, frames, u, t, k;
    gsize stride;
    GpufftHostFft *fft = gpufft_host_fft_new (n);
    gsize len = (gsize) 3 * n * 6 + 64;
    gfloat *f = g_new (gfloat, len);
    gdouble *win = g_new (gdouble, n);
    gdouble *x = g_new (gdouble, (gsize) LANES * n);
    gdouble *out = g_new (gdouble, (gsize) LANES * 2 * nb);
    gdouble *pw = g_new (gdouble, (gsize) LANES * nb);
    gdouble *out2 = g_new (gdouble, (gsize) LANES * 2 * nb);
    gdouble *pw2 = g_new (gdouble, (gsize) LANES * nb);
    GRand *rand = g_rand_new_with_seed (3000 + n);

    g_assert_nonnull (fft);
    for (t = 0; t < len; t++)
      f[t] = (gfloat) g_rand_double_range (rand, -1.0, 1.0);
    f[5] = -0.0f;
    f[7] = 1e-40f;
    for (t = 0; t < n; t++)
      win[t] = 0.5 - 0.5 * cos (2.0 * G_PI * t / n);
    for (stride = 1; stride <= 3; stride++)
      for (frames = 1; frames <= LANES; frames++) {
        const gfloat *src[LANES];

        for (u = 0; u < frames; u++) {
          src[u] = f + (gsize) u *stride * (n / 2 + 3) + (u % 3);
          for (t = 0; t < n; t++)
            x[(gsize) u * n + t] = ((gdouble) src[u][t * stride] + 0.0) *
                win[t];
        }
        gpufft_host_fft_real (fft, x, frames, out, pw);
        /* (the powers alone first, as the host plan asks them) */
        gpufft_host_fft_real_f32 (fft, src, stride, win, frames, NULL, pw2);
        for (u = 0; u < frames; u++)
          if (memcmp (pw + (gsize) u * nb, pw2 + (gsize) u * nb,
                  nb * sizeof (gdouble)))
            g_error ("N %u, stride %" G_GSIZE_FORMAT ", %u frames: frame "
                "%u's powers asked alone differ", n, stride, frames, u);
        gpufft_host_fft_real_f32 (fft, src, stride, win, frames, out2, pw2);
        for (u = 0; u < frames; u++)
          for (k = 0; k < nb; k++)
            if (memcmp (&out[(gsize) u * 2 * nb + 2 * k],
                    &out2[(gsize) u * 2 * nb + 2 * k], 2 * sizeof (gdouble))
                || memcmp (&pw[(gsize) u * nb + k], &pw2[(gsize) u * nb + k],
                    sizeof (gdouble)))
              g_error ("N %u, stride %" G_GSIZE_FORMAT ", %u frames, frame "
                  "%u, bin %u: (%.17g, %.17g) power %.17g from floats, "
                  "(%.17g, %.17g) power %.17g converted", n, stride, frames,
                  u, k, out2[(gsize) u * 2 * nb + 2 * k],
                  out2[(gsize) u * 2 * nb + 2 * k + 1],
                  pw2[(gsize) u * nb + k], out[(gsize) u * 2 * nb + 2 * k],
                  out[(gsize) u * 2 * nb + 2 * k + 1], pw[(gsize) u * nb + k]);
      }
    g_rand_free (rand);
    g_free (f);
    g_free (win);
    g_free (x);
    g_free (out);
    g_free (pw);
    g_free (out2);
    g_free (pw2);
    gpufft_host_fft_free (fft);
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/host-fft/accuracy", test_accuracy);
  g_test_add_func ("/host-fft/lanes-independent", test_lanes_independent);
  g_test_add_func ("/host-fft/power", test_power);
  g_test_add_func ("/host-fft/floats", test_floats);
  return g_test_run ();
}
