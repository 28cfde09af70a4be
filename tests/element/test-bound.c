/* The bound on sample magnitudes (plugin/spectrum/gstgpufftbound.c, plain C,
 * no device): +-2^32 itself is taken, the next larger float or double is
 * not; NaN, infinities, zero and denormals are not reported; every
 * position of a run of any length (the vector part and its tail) at any
 * alignment; the copy puts a quiet NaN exactly where the beyond ones are
 * and nothing else changes. */
#include <glib.h>
#include <math.h>
#include <string.h>

#include "gstgpufftbound.h"

static void
put (guint8 * p, gsize i, gboolean f64, gdouble v)
{
  if (f64) {
    memcpy (p + i * 8, &v, 8);
  } else {
    gfloat f = (gfloat) v;

    memcpy (p + i * 4, &f, 4);
  }
}

static void
check_values (gboolean f64)
{
  const gdouble bound = 4294967296.0;
  const gdouble above = f64 ? nextafter (bound, INFINITY) :
      (gdouble) nextafterf ((gfloat) bound, INFINITY);
  const gdouble taken[] = { 0.0, -0.0, 1.0, -1.0, bound, -bound,
    f64 ? nextafter (bound, 0.0) : (gdouble) nextafterf ((gfloat) bound, 0.0),
    1e-310, NAN, -NAN, INFINITY, -INFINITY
  };
  const gdouble beyond[] = { above, -above, 2e19, -2e30, f64 ? 1e300 :
    3.4e38, f64 ? -1.7e308 : -3.4028234e38
  };
  guint8 buf[8 * 80 + 8], out[8 * 80 + 8];
  gsize bps = f64 ? 8 : 4, n, at, off, i;
  guint t;

  /* every taken value alone: none found */
  for (t = 0; t < G_N_ELEMENTS (taken); t++) {
    put (buf, 0, f64, taken[t]);
    g_assert_cmpuint (gst_gpu_fft_bound_find (buf, 1, f64), ==, 1);
  }
  /* runs of 1 to 40 values at offsets 0 to 7 bytes, one beyond value at
   * every position, the rest taken values */
  for (off = 0; off < 8; off++) {
    for (n = 1; n <= 40; n++) {
      guint8 *p = buf + off;

      for (i = 0; i < n; i++)
        put (p, i, f64, taken[(i + n) % G_N_ELEMENTS (taken)]);
      g_assert_cmpuint (gst_gpu_fft_bound_find (p, n, f64), ==, n);
      g_assert_cmpuint (gst_gpu_fft_bound_copy (out, p, n, f64), ==, 0);
      g_assert_cmpint (memcmp (out, p, n * bps), ==, 0);
      for (at = 0; at < n; at++) {
        guint8 saved[8];

        memcpy (saved, p + at * bps, bps);
        put (p, at, f64, beyond[(at + off) % G_N_ELEMENTS (beyond)]);
        g_assert_cmpuint (gst_gpu_fft_bound_find (p, n, f64), ==, at);
        g_assert_cmpuint (gst_gpu_fft_bound_copy (out, p, n, f64), ==, 1);
        for (i = 0; i < n; i++) {
          gdouble v;

          if (f64) {
            memcpy (&v, out + i * 8, 8);
          } else {
            gfloat f;

            memcpy (&f, out + i * 4, 4);
            v = f;
          }
          if (i == at)
            g_assert_true (isnan (v));
          else
            g_assert_cmpint (memcmp (out + i * bps, p + i * bps, bps), ==, 0);
        }
        memcpy (p + at * bps, saved, bps);
      }
    }
  }
}

static void
test_f32 (void)
{
  check_values (FALSE);
}

static void
test_f64 (void)
{
  check_values (TRUE);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/bound/f32", test_f32);
  g_test_add_func ("/bound/f64", test_f64);
  return g_test_run ();
}
