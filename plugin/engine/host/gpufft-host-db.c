/* The host plan's decibels (see gpufft-host-db.h for the contract): the
 * log10 of positive normal values four at a time (GCC's vector extensions;
 * an AVX2 clone where the compiler makes one, chosen at load time), libm's
 * for the others. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "gpufft-host-db.h"
#include "gpufft-simd.h"

/* (four values) */
typedef gdouble v4d __attribute__((vector_size (4 * sizeof (gdouble))));
typedef gint64 v4l __attribute__((vector_size (4 * sizeof (gint64))));

#define SQRT2 1.41421356237309504880
#define LOG10_2 0.30102999566398119521
#define INV_LN10 0.43429448190325182765

/* (vectors pass by pointer: no vector argument changes the ABI between
 * the clones) */
#define SPLAT(a) ((v4d) { (a), (a), (a), (a) })

/* *out: log10 of four positive normal finite values *in (others give
 * values of no use) */
static inline GPUFFT_ALWAYS_INLINE void
log10_lanes (const v4d * in, v4d * out)
{
  const v4l mant = { 0x000fffffffffffffLL, 0x000fffffffffffffLL,
    0x000fffffffffffffLL, 0x000fffffffffffffLL
  };
  const v4l one = { 0x3ff0000000000000LL, 0x3ff0000000000000LL,
    0x3ff0000000000000LL, 0x3ff0000000000000LL
  };
  v4l bits = (v4l) * in, e, big;
  v4d m, s, z, p, ln;

  e = (bits >> 52) - 1023;
  m = (v4d) ((bits & mant) | one);      /* [1, 2) */
  big = m > SPLAT (SQRT2);      /* (all bits set where true) */
  m = (v4d) (((v4l) (m * 0.5) & big) | ((v4l) m & ~big));
  e = e - big;
  s = (m - 1.0) / (m + 1.0);
  z = s * s;
  p = SPLAT (1.0 / 21.0);
  p = p * z + 1.0 / 19.0;
  p = p * z + 1.0 / 17.0;
  p = p * z + 1.0 / 15.0;
  p = p * z + 1.0 / 13.0;
  p = p * z + 1.0 / 11.0;
  p = p * z + 1.0 / 9.0;
  p = p * z + 1.0 / 7.0;
  p = p * z + 1.0 / 5.0;
  p = p * z + 1.0 / 3.0;
  p = p * z + 1.0;
  ln = 2.0 * s * p;
  *out = __builtin_convertvector (e, v4d) * LOG10_2 + ln * INV_LN10;
}

/* libm's path, for what log10_lanes does not take */
static gdouble
db_other (gdouble v, gdouble offset, gdouble floor_db)
{
  gdouble db;

  if (v == 0.0 && isfinite (offset))
    return floor_db;
  db = 10.0 * log10 (v) + offset;
  return (db > floor_db || isnan (db)) ? db : floor_db;
}

/* The dB of the four values at in into out. (Inlined, so that each clone
 * of gpufft_host_db_row has its own.) */
static inline GPUFFT_ALWAYS_INLINE void
db_lanes (const gdouble * in, gdouble offset, gdouble floor_db, gdouble * out)
{
  v4d v, db;
  v4l keep, odd;
  guint u;

  memcpy (&v, in, sizeof (v));
  log10_lanes (&v, &db);
  db = 10.0 * db + offset;
  keep = (db > floor_db) | (db != db);
  odd = (v < DBL_MIN) | (v > DBL_MAX) | (v != v);
  db = (v4d) (((v4l) db & keep) | ((v4l) SPLAT (floor_db) & ~keep));
  for (u = 0; u < 4; u++)
    out[u] = odd[u] ? db_other (v[u], offset, floor_db) : db[u];
}

gdouble
gpufft_host_db (gdouble v, gdouble offset, gdouble floor_db)
{
  gdouble in[4] = { v, 1.0, 1.0, 1.0 }, out[4];

  db_lanes (in, offset, floor_db, out);
  return out[0];
}

void GPUFFT_AVX2_CLONES
gpufft_host_db_row (const gdouble * v, guint n, gdouble offset,
    gdouble floor_db, gdouble * out)
{
  guint k = 0, u;

  for (; k + 4 <= n; k += 4)
    db_lanes (v + k, offset, floor_db, out + k);
  if (k < n) {
    gdouble x[4] = { 1.0, 1.0, 1.0, 1.0 }, o[4];

    for (u = 0; k + u < n; u++)
      x[u] = v[k + u];
    db_lanes (x, offset, floor_db, o);
    for (u = 0; k + u < n; u++)
      out[k + u] = o[u];
  }
}
