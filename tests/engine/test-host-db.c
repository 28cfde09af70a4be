/* The host plan's decibels (gpufft-host-db.h), no device, against libm's
 * log10 in the formula written out here (max (10 log10 v + offset, floor),
 * NaN kept, zero with a finite offset the floor):
 *   - positive normal values: 200000 of random mantissas and exponents
 *     over the whole range of doubles, the powers of two, the values next
 *     to sqrt(2) (where the mantissa is halved) and next to 1 (where
 *     log10 is near 0), DBL_MIN and DBL_MAX: within 1e-13 dB + 1e-15 of
 *     the value (a few of a double's units in the last place: 3000 dB
 *     lies within 5e-13), and the floor exact where the formula's dB is
 *     below it by more;
 *   - the others, equal bit for bit: zero (finite, infinite and NaN
 *     offsets), subnormals, infinity, negative values, NaN; and normal
 *     values with infinite or NaN offsets or a NaN floor;
 *   - a row equals its values alone bit for bit, at every length 1 .. 13
 *     and every starting lane, written in place or not. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "engine-test.h"
#include "gpufft-host-db.h"

static gdouble
reference (gdouble v, gdouble offset, gdouble floor_db)
{
  gdouble db;

  if (v == 0.0 && isfinite (offset))
    return floor_db;
  db = 10.0 * log10 (v) + offset;
  return (db > floor_db || isnan (db)) ? db : floor_db;
}

static gdouble worst = 0.0, worst_400 = 0.0;

static void check_exact (gdouble v, gdouble offset, gdouble floor_db);

static void
check_close (gdouble v, gdouble offset, gdouble floor_db)
{
  gdouble got = gpufft_host_db (v, offset, floor_db);
  gdouble want = reference (v, offset, floor_db);
  gdouble e = fabs (got - want);

  worst = MAX (worst, e);
  if (fabs (want) <= 400.0)
    worst_400 = MAX (worst_400, e);
  if (!(e <= 1e-13 + 1e-15 * fabs (want)))
    g_error ("%.17g (offset %g, floor %g): %.17g dB against libm's %.17g",
        v, offset, floor_db, got, want);
  if (want == floor_db && reference (v, offset, -INFINITY) < floor_db - 1e-9
      && got != floor_db)
    g_error ("%.17g: %.17g dB, not the floor %g", v, got, floor_db);
}

static void
test_normal (void)
{
  GRand *rand = g_rand_new_with_seed (7);
  gdouble v;
  guint i;
  gint e;

  for (i = 0; i < 200000; i++) {
    v = ldexp (g_rand_double_range (rand, 1.0, 2.0),
        g_rand_int_range (rand, -1022, 1024));
    check_close (v, 0.0, -INFINITY);
    check_close (v, g_rand_double_range (rand, -50.0, 50.0), -INFINITY);
  }
  for (e = -1022; e <= 1023; e++)
    check_close (ldexp (1.0, e), 0.0, -INFINITY);
  for (v = G_SQRT2, i = 0; i < 64; i++) {
    check_close (v, 0.0, -INFINITY);
    check_close (v / 2.0, 0.0, -INFINITY);
    v = nextafter (v, i < 32 ? 0.0 : 2.0);
    if (i == 31)
      v = nextafter (G_SQRT2, 2.0);
  }
  for (v = 1.0, i = 0; i < 64; i++) {
    check_close (v, 0.0, -INFINITY);
    check_close (1.0 + (1.0 - v), 0.0, -INFINITY);
    v = nextafter (v, 0.0);
  }
  for (i = 0; i < 1000; i++)
    check_close (1.0 + g_rand_double_range (rand, -1e-3, 1e-3), 0.0, -INFINITY);
  /* (normal values with infinite or NaN offsets, a NaN floor) */
  for (i = 0; i < 1000; i++) {
    v = ldexp (g_rand_double_range (rand, 1.0, 2.0),
        g_rand_int_range (rand, -300, 300));
    check_exact (v, INFINITY, -100.0);
    check_exact (v, -INFINITY, -100.0);
    check_exact (v, NAN, -100.0);
    check_exact (v, 0.0, NAN);
  }
  check_close (DBL_MIN, 0.0, -INFINITY);
  check_close (DBL_MAX, 0.0, -INFINITY);
  check_close (FLT_MAX, 0.0, -INFINITY);
  /* (a floor that cuts) */
  for (i = 0; i < 10000; i++) {
    v = ldexp (g_rand_double_range (rand, 1.0, 2.0),
        g_rand_int_range (rand, -400, 10));
    check_close (v, 0.0, -100.0);
    check_close (v, -20.0, -60.0);
  }
  g_rand_free (rand);
  g_test_message ("worst difference from libm %.3g dB, %.3g dB within "
      "+-400 dB", worst, worst_400);
}

static void
check_exact (gdouble v, gdouble offset, gdouble floor_db)
{
  gdouble got = gpufft_host_db (v, offset, floor_db);
  gdouble want = reference (v, offset, floor_db);

  if (memcmp (&got, &want, sizeof (got)) != 0 && !(isnan (got)
          && isnan (want)))
    g_error ("%.17g (offset %g, floor %g): %.17g dB against %.17g", v,
        offset, floor_db, got, want);
}

static void
test_other (void)
{
  const gdouble values[] = { 0.0, -0.0, DBL_MIN / 2.0, DBL_MIN / 1024.0,
    4.9e-324, INFINITY, -INFINITY, -1.0, -DBL_MIN, -1e300, NAN, -NAN
  };
  const gdouble offsets[] = { 0.0, -30.0, INFINITY, -INFINITY, NAN };
  const gdouble floors[] = { -INFINITY, -100.0, -1000.0, -4000.0 };
  guint i, j, k;

  for (i = 0; i < G_N_ELEMENTS (values); i++)
    for (j = 0; j < G_N_ELEMENTS (offsets); j++)
      for (k = 0; k < G_N_ELEMENTS (floors); k++)
        check_exact (values[i], offsets[j], floors[k]);
  /* (zero with a finite offset: the floor itself) */
  g_assert_cmpfloat (gpufft_host_db (0.0, -30.0, -100.0), ==, -100.0);
  g_assert_true (isinf (gpufft_host_db (0.0, 0.0, -INFINITY)));
  g_assert_true (isnan (gpufft_host_db (NAN, 0.0, -100.0)));
}

static void
test_row (void)
{
  GRand *rand = g_rand_new_with_seed (11);
  gdouble v[16], out[16], in_place[16];
  guint n, start, k;

  for (k = 0; k < 16; k++)
    v[k] = ldexp (g_rand_double_range (rand, 1.0, 2.0),
        g_rand_int_range (rand, -300, 300));
  /* (a few that go to libm's path, in the middle of a vector) */
  v[2] = 0.0;
  v[5] = NAN;
  v[9] = DBL_MIN / 8.0;
  for (n = 1; n <= 13; n++)
    for (start = 0; start + n <= 16 && start < 4; start++) {
      gpufft_host_db_row (v + start, n, -3.0, -150.0, out);
      memcpy (in_place, v + start, n * sizeof (gdouble));
      gpufft_host_db_row (in_place, n, -3.0, -150.0, in_place);
      for (k = 0; k < n; k++) {
        gdouble one = gpufft_host_db (v[start + k], -3.0, -150.0);

        if (memcmp (&one, &out[k], sizeof (one)) != 0
            || memcmp (&one, &in_place[k], sizeof (one)) != 0)
          g_error ("a row of %u from %u, value %u: %.17g, in place %.17g, "
              "alone %.17g", n, start, k, out[k], in_place[k], one);
      }
    }
  g_rand_free (rand);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/host-db/normal", test_normal);
  g_test_add_func ("/host-db/other", test_other);
  g_test_add_func ("/host-db/row", test_row);
  return g_test_run ();
}
