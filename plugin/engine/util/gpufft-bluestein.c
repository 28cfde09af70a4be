/* Bluestein tables: see gpufft-bluestein.h. */
#include <math.h>

#include "gpufft-bluestein.h"

guint
gpufft_bluestein_length (guint m)
{
  guint l = 1;

  while (l < 2 * m - 1)
    l <<= 1;
  return l;
}

/* In-place forward complex DFT of n (a power of two) points in double:
 * iterative radix-2, twiddles from exact angles. */
static void
fft_double (gdouble * re, gdouble * im, guint n)
{
  guint i, j, len;

  for (i = 1, j = 0; i < n; i++) {
    guint bit = n >> 1;

    for (; j & bit; bit >>= 1)
      j ^= bit;
    j ^= bit;
    if (i < j) {
      gdouble t = re[i];

      re[i] = re[j];
      re[j] = t;
      t = im[i];
      im[i] = im[j];
      im[j] = t;
    }
  }
  for (len = 2; len <= n; len <<= 1) {
    for (i = 0; i < n; i += len) {
      for (j = 0; j < len / 2; j++) {
        gdouble a = -2.0 * G_PI * j / len;
        gdouble wr = cos (a), wi = sin (a);
        gdouble ur = re[i + j], ui = im[i + j];
        gdouble vr = re[i + j + len / 2] * wr - im[i + j + len / 2] * wi;
        gdouble vi = re[i + j + len / 2] * wi + im[i + j + len / 2] * wr;

        re[i + j] = ur + vr;
        im[i + j] = ui + vi;
        re[i + j + len / 2] = ur - vr;
        im[i + j + len / 2] = ui - vi;
      }
    }
  }
}

void
gpufft_bluestein_fill (guint m, guint l, gfloat * out)
{
  gdouble *re = g_new0 (gdouble, l), *im = g_new0 (gdouble, l);
  guint n;

  for (n = 0; n < m; n++) {
    /* n^2 mod 2M in integers: the angle stays exact for large n */
    guint64 q = ((guint64) n * n) % (2 * (guint64) m);
    gdouble a = G_PI * (gdouble) q / m;

    out[2 * n] = (gfloat) cos (a);
    out[2 * n + 1] = (gfloat) - sin (a);
    re[n] = cos (a);
    im[n] = sin (a);
    if (n > 0) {
      re[l - n] = cos (a);
      im[l - n] = sin (a);
    }
  }
  fft_double (re, im, l);
  for (n = 0; n < l; n++) {
    out[2 * (m + n)] = (gfloat) (re[n] / l);
    out[2 * (m + n) + 1] = (gfloat) (im[n] / l);
  }
  g_free (re);
  g_free (im);
}
