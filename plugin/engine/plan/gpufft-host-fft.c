/* The host plan's FFT (see gpufft-host-fft.h for its contract): the real
 * FFT of N = 2M points through a complex FFT of M points; for a power-of-
 * two M, GPUFFT_HOST_FFT_LANES frames at once in the lanes of a vector of
 * doubles (GCC's vector extensions; an AVX2 clone of the lane code where
 * the compiler makes one, chosen at load time by the CPU). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpufft-host-fft.h"

/* (four frames' values of one point) */
typedef gdouble v4d __attribute__((vector_size (4 * sizeof (gdouble))));

/* (target_clones needs ifunc: GCC on glibc) */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) \
    && defined(__ELF__) && defined(__GLIBC__)
#define LANES_CLONES __attribute__ ((target_clones ("avx2", "default")))
#else
#define LANES_CLONES
#endif

/* ---- one frame ---------------------------------------------------------- */

/* A forward complex DFT of m points in double, in place on (re, im) pairs:
 * iterative radix 2 over l = m points where m is a power of two, else
 * Bluestein's algorithm (a chirp product and a convolution by power-of-two
 * FFTs of l >= 2m - 1 points). */
struct _GpufftHostFft
{
  guint m;                      /* points of the DFT */
  guint l;                      /* points of the radix-2 FFT */
  guint32 *rev;                 /* [l] bit reversal */
  gdouble *tw;                  /* [l / 2] pairs: e^{-2 pi i j / l} */
  gdouble *chirp;               /* Bluestein: [m] pairs, e^{-pi i n^2 / m} */
  gdouble *kern;                /* Bluestein: [l] pairs, DFT_l (conj chirp,
                                 * wrapped) / l */
  gdouble *work;                /* Bluestein: [l] pairs */
  gdouble *post;                /* [m + 1] pairs: e^{-pi i k / m}, the real
                                 * FFT's post-processing */
  gdouble *z;                   /* Bluestein: [m] pairs, one frame */
  v4d *re, *im;                 /* powers of two: [m] lanes */
};

static gboolean
is_pow2 (guint v)
{
  return v > 0 && (v & (v - 1)) == 0;
}

/* The radix-2 FFT of f->l points, in place. */
static void
fft_pow2 (const GpufftHostFft * f, gdouble * a)
{
  guint l = f->l, i, j, k, len;

  for (i = 0; i < l; i++) {
    j = f->rev[i];
    if (i < j) {
      gdouble r = a[2 * i], m = a[2 * i + 1];

      a[2 * i] = a[2 * j];
      a[2 * i + 1] = a[2 * j + 1];
      a[2 * j] = r;
      a[2 * j + 1] = m;
    }
  }
  /* (first pass: no twiddles) */
  for (i = 0; i + 1 < l; i += 2) {
    gdouble r = a[2 * i + 2], m = a[2 * i + 3];

    a[2 * i + 2] = a[2 * i] - r;
    a[2 * i + 3] = a[2 * i + 1] - m;
    a[2 * i] += r;
    a[2 * i + 1] += m;
  }
  for (len = 4; len <= l; len <<= 1) {
    guint half = len / 2, step = l / len;

    for (i = 0; i < l; i += len) {
      gdouble *lo = a + 2 * i, *hi = a + 2 * (i + half);

      for (k = 0; k < half; k++) {
        gdouble wr = f->tw[2 * k * step], wi = f->tw[2 * k * step + 1];
        gdouble tr = hi[2 * k] * wr - hi[2 * k + 1] * wi;
        gdouble ti = hi[2 * k] * wi + hi[2 * k + 1] * wr;

        hi[2 * k] = lo[2 * k] - tr;
        hi[2 * k + 1] = lo[2 * k + 1] - ti;
        lo[2 * k] += tr;
        lo[2 * k + 1] += ti;
      }
    }
  }
}

/* The DFT of f->m points (Bluestein's algorithm), in place. */
static void
fft_run (const GpufftHostFft * f, gdouble * z)
{
  gdouble *w = f->work;
  guint n;

  for (n = 0; n < f->m; n++) {
    gdouble cr = f->chirp[2 * n], ci = f->chirp[2 * n + 1];

    w[2 * n] = z[2 * n] * cr - z[2 * n + 1] * ci;
    w[2 * n + 1] = z[2 * n] * ci + z[2 * n + 1] * cr;
  }
  memset (w + 2 * f->m, 0, (gsize) (f->l - f->m) * 2 * sizeof (gdouble));
  fft_pow2 (f, w);
  /* times the kernel's transform, conjugated: the inverse transform as a
   * forward one of the conjugate */
  for (n = 0; n < f->l; n++) {
    gdouble kr = f->kern[2 * n], ki = f->kern[2 * n + 1];
    gdouble r = w[2 * n] * kr - w[2 * n + 1] * ki;
    gdouble i = w[2 * n] * ki + w[2 * n + 1] * kr;

    w[2 * n] = r;
    w[2 * n + 1] = -i;
  }
  fft_pow2 (f, w);
  for (n = 0; n < f->m; n++) {
    gdouble cr = f->chirp[2 * n], ci = f->chirp[2 * n + 1];
    gdouble r = w[2 * n], i = -w[2 * n + 1];

    z[2 * n] = r * cr - i * ci;
    z[2 * n + 1] = r * ci + i * cr;
  }
}

void
gpufft_host_fft_free (GpufftHostFft * f)
{
  if (!f)
    return;
  g_free (f->rev);
  g_free (f->tw);
  g_free (f->chirp);
  g_free (f->kern);
  g_free (f->work);
  g_free (f->post);
  g_free (f->z);
  free (f->re);
  free (f->im);
  g_free (f);
}

/* n lanes, 32-byte aligned; NULL where memory runs out */
static v4d *
lanes_alloc (gsize n)
{
  void *p = NULL;

  if (posix_memalign (&p, 32, MAX (n, 1) * sizeof (v4d)) != 0)
    return NULL;
  return p;
}

/* FALSE where the tables cannot be allocated. */
static gboolean
fft_init (GpufftHostFft * f, guint m)
{
  guint i, bits = 0;

  f->m = m;
  f->l = m;
  if (!is_pow2 (m)) {
    f->l = 1;
    while (f->l < 2 * m - 1)
      f->l <<= 1;
  }
  while ((1u << bits) < f->l)
    bits++;
  /* (at most 65536 points: the sizes below cannot overflow) */
  f->rev = g_try_new (guint32, f->l);
  f->tw = g_try_new (gdouble, f->l);
  f->post = g_try_new (gdouble, 2 * ((gsize) m + 1));
  if (f->l != m) {
    f->chirp = g_try_new (gdouble, 2 * (gsize) m);
    f->kern = g_try_new0 (gdouble, 2 * (gsize) f->l);
    f->work = g_try_new (gdouble, 2 * (gsize) f->l);
    f->z = g_try_new (gdouble, 2 * (gsize) m);
  } else {
    f->re = lanes_alloc (m);
    f->im = lanes_alloc (m);
  }
  if (!f->rev || !f->tw || !f->post || (f->l != m && (!f->chirp || !f->kern
              || !f->work || !f->z)) || (f->l == m && (!f->re || !f->im)))
    return FALSE;
  for (i = 0; i < f->l; i++) {
    guint32 r = 0, v = i, b;

    for (b = 0; b < bits; b++, v >>= 1)
      r = (r << 1) | (v & 1);
    f->rev[i] = r;
  }
  for (i = 0; i < f->l / 2; i++) {
    gdouble a = -2.0 * G_PI * (gdouble) i / (gdouble) f->l;

    f->tw[2 * i] = cos (a);
    f->tw[2 * i + 1] = sin (a);
  }
  for (i = 0; i <= m; i++) {
    gdouble a = -G_PI * (gdouble) i / (gdouble) m;

    f->post[2 * i] = cos (a);
    f->post[2 * i + 1] = sin (a);
  }
  if (f->l != m) {
    /* c[n] = e^{-pi i (n^2 mod 2m) / m}; kernel b[n] = b[l - n] =
     * conj (c[n]) */
    for (i = 0; i < m; i++) {
      guint64 q = (guint64) i * i % (2 * (guint64) m);
      gdouble a = -G_PI * (gdouble) q / (gdouble) m;

      f->chirp[2 * i] = cos (a);
      f->chirp[2 * i + 1] = sin (a);
      f->kern[2 * i] = cos (a);
      f->kern[2 * i + 1] = -sin (a);
      if (i > 0) {
        f->kern[2 * (f->l - i)] = cos (a);
        f->kern[2 * (f->l - i) + 1] = -sin (a);
      }
    }
    fft_pow2 (f, f->kern);
    for (i = 0; i < 2 * f->l; i++)
      f->kern[i] /= f->l;
  }
  return TRUE;
}

/* X_0 .. X_m of the real sequence whose even and odd samples are the real
 * and imaginary parts of z (Z = DFT_m (z) given): x[2m] (pairs). Bins 0 and
 * m are real. */
static void
fft_real_post (const GpufftHostFft * f, const gdouble * z, gdouble * x)
{
  guint m = f->m, k;

  x[0] = z[0] + z[1];
  x[1] = 0.0;
  x[2 * m] = z[0] - z[1];
  x[2 * m + 1] = 0.0;
  for (k = 1; k < m; k++) {
    gdouble ar = z[2 * k], ai = z[2 * k + 1];
    gdouble br = z[2 * (m - k)], bi = -z[2 * (m - k) + 1];
    /* even part (a + b) / 2, odd part -i (a - b) / 2, X = even + w odd */
    gdouble er = 0.5 * (ar + br), ei = 0.5 * (ai + bi);
    gdouble or = 0.5 * (ai - bi), oi = -0.5 * (ar - br);
    gdouble wr = f->post[2 * k], wi = f->post[2 * k + 1];

    x[2 * k] = er + wr * or - wi * oi;
    x[2 * k + 1] = ei + wr * oi + wi * or;
  }
}

/* ---- four frames in lanes (powers of two) ------------------------------- */

/* The frames at x (n_frames of them; the other lanes repeat the first)
 * into f->re, f->im in bit-reversed order, the radix-2 FFT of f->m points
 * on the lanes, the real FFT's post-processing into out's rows (all
 * GPUFFT_HOST_FFT_LANES of them). The arithmetic is fft_pow2's and
 * fft_real_post's, operation for operation. */
static void LANES_CLONES
lanes_real (GpufftHostFft * f, const gdouble * x, guint n_frames,
    gdouble * out)
{
  const gdouble *p[GPUFFT_HOST_FFT_LANES];
  gdouble *o[GPUFFT_HOST_FFT_LANES];
  v4d *re = f->re, *im = f->im;
  guint m = f->m, nb = m + 1, i, k, u, len;

  G_STATIC_ASSERT (GPUFFT_HOST_FFT_LANES == 4);
  for (u = 0; u < GPUFFT_HOST_FFT_LANES; u++) {
    p[u] = x + (gsize) (u < n_frames ? u : 0) * 2 * m;
    o[u] = out + 2 * (gsize) u * nb;
  }
  /* bit reversal and the first pass (no twiddles): points rev[2t] and
   * rev[2t + 1] = rev[2t] + m / 2 of each frame make points 2t and 2t + 1
   * of the lanes */
  if (m == 1) {
    v4d a = { p[0][0], p[1][0], p[2][0], p[3][0] };
    v4d b = { p[0][1], p[1][1], p[2][1], p[3][1] };

    re[0] = a;
    im[0] = b;
  }
  for (i = 0; i + 1 < m; i += 2) {
    gsize j = 2 * (gsize) f->rev[i], h = j + m;
    v4d ar = { p[0][j], p[1][j], p[2][j], p[3][j] };
    v4d ai = { p[0][j + 1], p[1][j + 1], p[2][j + 1], p[3][j + 1] };
    v4d br = { p[0][h], p[1][h], p[2][h], p[3][h] };
    v4d bi = { p[0][h + 1], p[1][h + 1], p[2][h + 1], p[3][h + 1] };

    re[i + 1] = ar - br;
    im[i + 1] = ai - bi;
    re[i] = ar + br;
    im[i] = ai + bi;
  }
  /* the passes of len = 4, 8, .. m two at a time (radix 4), the same
   * operations as one after the other: within a block of 4q points, the
   * pass of len 2q on its halves (twiddle W_2q^k), then the pass of len
   * 4q (twiddles W_4q^k and W_4q^(k+q)) */
  for (len = 4; 2 * len <= m; len *= 4) {
    guint q = len / 2, s1 = m / len, s2 = m / (2 * len);

    for (i = 0; i < m; i += 2 * len) {
      v4d *r0 = re + i, *r1 = r0 + q, *r2 = r1 + q, *r3 = r2 + q;
      v4d *i0 = im + i, *i1 = i0 + q, *i2 = i1 + q, *i3 = i2 + q;

      for (k = 0; k < q; k++) {
        gdouble ar = f->tw[2 * k * s1], ai = f->tw[2 * k * s1 + 1];
        gdouble br = f->tw[2 * k * s2], bi = f->tw[2 * k * s2 + 1];
        gdouble cr = f->tw[2 * (k + q) * s2], ci = f->tw[2 * (k + q) * s2 + 1];
        v4d tr = r1[k] * ar - i1[k] * ai, ti = r1[k] * ai + i1[k] * ar;
        v4d b0r = r0[k] + tr, b0i = i0[k] + ti;
        v4d b1r = r0[k] - tr, b1i = i0[k] - ti;
        v4d ur = r3[k] * ar - i3[k] * ai, ui = r3[k] * ai + i3[k] * ar;
        v4d b2r = r2[k] + ur, b2i = i2[k] + ui;
        v4d b3r = r2[k] - ur, b3i = i2[k] - ui;
        v4d vr = b2r * br - b2i * bi, vi = b2r * bi + b2i * br;
        v4d wr = b3r * cr - b3i * ci, wi = b3r * ci + b3i * cr;

        r0[k] = b0r + vr;
        i0[k] = b0i + vi;
        r2[k] = b0r - vr;
        i2[k] = b0i - vi;
        r1[k] = b1r + wr;
        i1[k] = b1i + wi;
        r3[k] = b1r - wr;
        i3[k] = b1i - wi;
      }
    }
  }
  /* (a pass left over) */
  for (; len <= m; len *= 2) {
    guint half = len / 2, step = m / len;

    for (i = 0; i < m; i += len) {
      v4d *lr = re + i, *li = im + i, *hr = re + i + half, *hi = im + i + half;

      for (k = 0; k < half; k++) {
        gdouble wr = f->tw[2 * k * step], wi = f->tw[2 * k * step + 1];
        v4d tr = hr[k] * wr - hi[k] * wi;
        v4d ti = hr[k] * wi + hi[k] * wr;

        hr[k] = lr[k] - tr;
        hi[k] = li[k] - ti;
        lr[k] += tr;
        li[k] += ti;
      }
    }
  }
  {
    v4d dc = re[0] + im[0], ny = re[0] - im[0];

    for (u = 0; u < GPUFFT_HOST_FFT_LANES; u++) {
      o[u][0] = dc[u];
      o[u][1] = 0.0;
      o[u][2 * m] = ny[u];
      o[u][2 * m + 1] = 0.0;
    }
  }
  for (k = 1; k < m; k++) {
    v4d ar = re[k], ai = im[k], br = re[m - k], bi = -im[m - k];
    v4d er = 0.5 * (ar + br), ei = 0.5 * (ai + bi);
    v4d or = 0.5 * (ai - bi), oi = -0.5 * (ar - br);
    gdouble wr = f->post[2 * k], wi = f->post[2 * k + 1];
    v4d xr = er + wr * or - wi * oi;
    v4d xi = ei + wr * oi + wi * or;

    /* (every lane: a constant lane index keeps the values in registers) */
    o[0][2 * k] = xr[0];
    o[0][2 * k + 1] = xi[0];
    o[1][2 * k] = xr[1];
    o[1][2 * k + 1] = xi[1];
    o[2][2 * k] = xr[2];
    o[2][2 * k + 1] = xi[2];
    o[3][2 * k] = xr[3];
    o[3][2 * k + 1] = xi[3];
  }
}

/* ---- the API ------------------------------------------------------------ */

GpufftHostFft *
gpufft_host_fft_new (guint n)
{
  GpufftHostFft *f;

  g_return_val_if_fail (n >= 2 && n % 2 == 0 && n <= 65536, NULL);
  f = g_try_new0 (GpufftHostFft, 1);
  if (f && !fft_init (f, n / 2)) {
    gpufft_host_fft_free (f);
    f = NULL;
  }
  return f;
}

void
gpufft_host_fft_real (GpufftHostFft * f, const gdouble * x, guint n_frames,
    gdouble * out)
{
  guint u;

  g_return_if_fail (n_frames >= 1 && n_frames <= GPUFFT_HOST_FFT_LANES);
  if (f->re) {
    lanes_real (f, x, n_frames, out);
    return;
  }
  for (u = 0; u < n_frames; u++) {
    /* (x[2j], x[2j+1] are z_j's real and imaginary parts) */
    memcpy (f->z, x + (gsize) u * 2 * f->m, 2 * (gsize) f->m *
        sizeof (gdouble));
    fft_run (f, f->z);
    fft_real_post (f, f->z, out + (gsize) u * 2 * (f->m + 1));
  }
}
