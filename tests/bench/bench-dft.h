/* Header-only helpers shared by every benchmark, C and CUDA C++ alike (no
 * GLib): a double-precision reference FFT, reproducible noise and the
 * relative L2 error. */
#ifndef __BENCH_DFT_H__
#define __BENCH_DFT_H__

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

/* Reproducible uniform noise in [-1, 1) (xorshift64*). */
static inline void
bench_noise_fill (float *x, size_t n, uint64_t seed)
{
  uint64_t s = seed * 0x9E3779B97F4A7C15ull + 0x2545F4914F6CDD1Dull;
  size_t i;

  if (s == 0)
    s = 1;
  for (i = 0; i < n; i++) {
    s ^= s >> 12;
    s ^= s << 25;
    s ^= s >> 27;
    x[i] = (float) ((double) ((s * 0x2545F4914F6CDD1Dull) >> 40) /
        (double) (1ull << 23) - 1.0);
  }
}

/* In-place forward complex FFT in double precision, n a power of two:
 * X_k = sum_n x_n exp(-2 pi i k n / N). Twiddles from the integer phase,
 * so their error is one rounding of cos/sin. Returns 0, or -1 without
 * memory. */
static inline int
bench_fft_double (double *re, double *im, unsigned n)
{
  double *twr, *twi;
  unsigned i, j, len, k, bit;

  if (n < 2)
    return 0;
  twr = (double *) malloc (sizeof (double) * (n / 2));
  twi = (double *) malloc (sizeof (double) * (n / 2));
  if (!twr || !twi) {
    free (twr);
    free (twi);
    return -1;
  }
  for (k = 0; k < n / 2; k++) {
    double a = -2.0 * M_PI * (double) k / (double) n;
    twr[k] = cos (a);
    twi[k] = sin (a);
  }
  for (i = 1, j = 0; i < n; i++) {
    for (bit = n >> 1; j & bit; bit >>= 1)
      j ^= bit;
    j |= bit;
    if (i < j) {
      double t = re[i];
      re[i] = re[j];
      re[j] = t;
      t = im[i];
      im[i] = im[j];
      im[j] = t;
    }
  }
  for (len = 2; len <= n; len <<= 1) {
    unsigned half = len / 2, step = n / len;
    for (i = 0; i < n; i += len) {
      for (k = 0; k < half; k++) {
        double wr = twr[k * step], wi = twi[k * step];
        double *ar = re + i + k, *ai = im + i + k;
        double br = ar[half] * wr - ai[half] * wi;
        double bi = ar[half] * wi + ai[half] * wr;
        ar[half] = *ar - br;
        ai[half] = *ai - bi;
        *ar += br;
        *ai += bi;
      }
    }
  }
  free (twr);
  free (twi);
  return 0;
}

/* Reference one-sided spectrum of x[0..n) (times w[0..n) when w is not
 * NULL): out_re/out_im[0 .. n/2] (n/2 + 1 values). Returns 0 or -1. */
static inline int
bench_rfft_double (const float *x, const double *w, unsigned n,
    double *out_re, double *out_im)
{
  double *re = (double *) malloc (sizeof (double) * n);
  double *im = (double *) calloc (n, sizeof (double));
  unsigned i;

  if (!re || !im) {
    free (re);
    free (im);
    return -1;
  }
  for (i = 0; i < n; i++)
    re[i] = (double) x[i] * (w ? w[i] : 1.0);
  if (bench_fft_double (re, im, n) < 0) {
    free (re);
    free (im);
    return -1;
  }
  for (i = 0; i <= n / 2; i++) {
    out_re[i] = re[i];
    out_im[i] = im[i];
  }
  free (re);
  free (im);
  return 0;
}

/* Relative L2 error, accumulated over several frames. */
typedef struct
{
  double diff2, ref2;
} BenchL2;

static inline void
bench_l2_add_complex (BenchL2 * e, const float *got, const double *ref_re,
    const double *ref_im, unsigned n_bins)
{
  unsigned k;

  for (k = 0; k < n_bins; k++) {
    double dr = (double) got[2 * k] - ref_re[k];
    double di = (double) got[2 * k + 1] - ref_im[k];
    e->diff2 += dr * dr + di * di;
    e->ref2 += ref_re[k] * ref_re[k] + ref_im[k] * ref_im[k];
  }
}

static inline void
bench_l2_add_real (BenchL2 * e, const float *got, const double *ref,
    unsigned n)
{
  unsigned k;

  for (k = 0; k < n; k++) {
    double d = (double) got[k] - ref[k];
    e->diff2 += d * d;
    e->ref2 += ref[k] * ref[k];
  }
}

/* NaN when nothing was accumulated. */
static inline double
bench_l2_result (const BenchL2 * e)
{
  if (!(e->ref2 > 0.0))
    return NAN;
  return sqrt (e->diff2 / e->ref2);
}

#endif
