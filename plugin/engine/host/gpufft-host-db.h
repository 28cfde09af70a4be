/* The host plan's decibels (gpufft-plan-host.c): max (10 log10 v +
 * offset, floor), NaN kept (reduce.comp's to_db), for one value or a row.
 *
 * log10 is the engine's own for positive normal finite v: v = 2^e m with m
 * in [sqrt(1/2), sqrt(2)), ln m = 2 atanh s with s = (m - 1) / (m + 1) by
 * its series to s^21 (the first term left out is below 3e-17 of the sum),
 * log10 v = e log10 2 + ln m / ln 10, four values at once in the lanes of
 * a vector of doubles (AVX2 where the CPU has it): within 1e-13 dB + 1e-15
 * of the value of libm's (a few of a double's units in the last place;
 * tests/engine/test-host-db.c), so that the dB as a float differs from
 * libm's only where it lies that close to a float's rounding boundary.
 * Zero, subnormal, infinite, negative and NaN values go to libm's log10
 * (zero with a finite offset is the floor, without a call). A value gives the same result bit for bit alone or in a row, in
 * any lane: the engine contracts no multiply-add (-ffp-contract=off).
 *
 * Pure functions of their arguments: any thread. */
#ifndef __GPUFFT_HOST_DB_H__
#define __GPUFFT_HOST_DB_H__

#include <glib.h>

G_BEGIN_DECLS

gdouble gpufft_host_db (gdouble v, gdouble offset, gdouble floor_db);

/* out[k] = gpufft_host_db (v[k], offset, floor_db), k < n; out may be v. */
void gpufft_host_db_row (const gdouble * v, guint n, gdouble offset,
    gdouble floor_db, gdouble * out);

G_END_DECLS
#endif /* __GPUFFT_HOST_DB_H__ */
