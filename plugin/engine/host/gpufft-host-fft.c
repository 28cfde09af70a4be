/* The host plan's FFT (see gpufft-host-fft.h for its contract): the real
 * FFT of N = 2M points through a complex FFT of M points (radix 2, or
 * Bluestein's algorithm), GPUFFT_HOST_FFT_LANES frames at once in the
 * lanes of a vector of doubles (GCC's vector extensions; an AVX2 clone of
 * the lane code where the compiler makes one, chosen at load time by the
 * CPU). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpufft-host-fft.h"
#include "gpufft-simd.h"

/* (four frames' values of one point) */
typedef gdouble v4d __attribute__((vector_size (4 * sizeof (gdouble))));

/* ---- the tables ---------------------------------------------------------- */

/* A forward complex DFT of m points in double: iterative radix 2 over l =
 * m points where m is a power of two, else Bluestein's algorithm (a chirp
 * product and a convolution by power-of-two FFTs of l >= 2m - 1 points). */
struct _GpufftHostFft
{
  guint m;                      /* points of the DFT */
  guint l;                      /* points of the radix-2 FFT */
  guint32 *rev;                 /* [l] bit reversal */
  gdouble *tw;                  /* [l / 2] pairs: e^{-2 pi i j / l} */
  gdouble *chirp;               /* Bluestein: [m] pairs, e^{-pi i n^2 / m} */
  gdouble *kern;                /* Bluestein: [l] pairs, DFT_l (conj chirp,
                                 * wrapped) / l */
  gdouble *post;                /* [m + 1] pairs: e^{-pi i k / m}, the real
                                 * FFT's post-processing */
  v4d *re, *im;                 /* [l] lanes */
};

static gboolean
is_pow2 (guint v)
{
  return v > 0 && (v & (v - 1)) == 0;
}

static void kernel_transform (GpufftHostFft * f);

void
gpufft_host_fft_free (GpufftHostFft * f)
{
  if (!f)
    return;
  g_free (f->rev);
  g_free (f->tw);
  g_free (f->chirp);
  g_free (f->kern);
  g_free (f->post);
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
  }
  f->re = lanes_alloc (f->l);
  f->im = lanes_alloc (f->l);
  if (!f->rev || !f->tw || !f->post || !f->re || !f->im || (f->l != m
          && (!f->chirp || !f->kern)))
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
    kernel_transform (f);
  }
  return TRUE;
}

/* ---- four frames in lanes ---------------------------------------------- */

/* Where the frames come from: doubles (x, frame u at x + u * N) or, where
 * x is NULL, floats (f[u], stride floats between samples, each taken as
 * ((double) v + 0.0) times win[t]) */
typedef struct
{
  const gdouble *x;
  const gfloat *f[GPUFFT_HOST_FFT_LANES];
  gsize stride;
  const gdouble *win;
} LanesIn;

/* The radix-2 passes of len = 4, 8, .. l on the lanes re, im (bit-reversed
 * order, the pass of len 2 done), twiddles tw (e^{-2 pi i j / l}, pairs). */
static inline GPUFFT_ALWAYS_INLINE void
lanes_passes (v4d * re, v4d * im, guint l, const gdouble * tw)
{
  guint i, k, len;

  /* the passes of len = 4, 8, .. l two at a time (radix 4), the same
   * operations as one after the other: within a block of 4q points, the
   * pass of len 2q on its halves (twiddle W_2q^k), then the pass of len
   * 4q (twiddles W_4q^k and W_4q^(k+q)) */
  for (len = 4; 2 * len <= l; len *= 4) {
    guint q = len / 2, s1 = l / len, s2 = l / (2 * len);

    for (i = 0; i < l; i += 2 * len) {
      v4d *r0 = re + i, *r1 = r0 + q, *r2 = r1 + q, *r3 = r2 + q;
      v4d *i0 = im + i, *i1 = i0 + q, *i2 = i1 + q, *i3 = i2 + q;

      for (k = 0; k < q; k++) {
        gdouble ar = tw[2 * k * s1], ai = tw[2 * k * s1 + 1];
        gdouble br = tw[2 * k * s2], bi = tw[2 * k * s2 + 1];
        gdouble cr = tw[2 * (k + q) * s2], ci = tw[2 * (k + q) * s2 + 1];
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
  for (; len <= l; len *= 2) {
    guint half = len / 2, step = l / len;

    for (i = 0; i < l; i += len) {
      v4d *lr = re + i, *li = im + i, *hr = re + i + half, *hi = im + i + half;

      for (k = 0; k < half; k++) {
        gdouble wr = tw[2 * k * step], wi = tw[2 * k * step + 1];
        v4d tr = hr[k] * wr - hi[k] * wi;
        v4d ti = hr[k] * wi + hi[k] * wr;

        hr[k] = lr[k] - tr;
        hi[k] = li[k] - ti;
        lr[k] += tr;
        li[k] += ti;
      }
    }
  }
}

/* The radix-2 FFT of f->l points on the lanes re, im, in place: the bit
 * reversal, the pass of len 2 (no twiddles), the other passes */
static inline GPUFFT_ALWAYS_INLINE void
lanes_pow2 (const GpufftHostFft * f, v4d * re, v4d * im)
{
  guint l = f->l, i, j;

  for (i = 0; i < l; i++) {
    j = f->rev[i];
    if (i < j) {
      v4d r = re[i], m = im[i];

      re[i] = re[j];
      im[i] = im[j];
      re[j] = r;
      im[j] = m;
    }
  }
  /* (first pass: no twiddles) */
  for (i = 0; i + 1 < l; i += 2) {
    v4d r = re[i + 1], m = im[i + 1];

    re[i + 1] = re[i] - r;
    im[i + 1] = im[i] - m;
    re[i] += r;
    im[i] += m;
  }
  lanes_passes (re, im, l, f->tw);
}

/* The Bluestein kernel's transform, divided by l, in place (once, when the
 * tables are made: in lane 0 of the lanes, the others zero). */
static void
kernel_transform (GpufftHostFft * f)
{
  v4d zero = { 0.0, 0.0, 0.0, 0.0 };
  guint j;

  for (j = 0; j < f->l; j++) {
    f->re[j] = f->im[j] = zero;
    f->re[j][0] = f->kern[2 * j];
    f->im[j][0] = f->kern[2 * j + 1];
  }
  lanes_pow2 (f, f->re, f->im);
  for (j = 0; j < f->l; j++) {
    f->kern[2 * j] = f->re[j][0] / f->l;
    f->kern[2 * j + 1] = f->im[j][0] / f->l;
  }
}

/* X_0 .. X_M of the real frames whose even and odd samples are the real
 * and imaginary parts of the complex ones whose DFT (f->m points, natural
 * order) is in the lanes re, im: into out's rows (pairs) and their powers
 * into power's (either may be NULL). Bins 0 and M are real: their power is
 * X * X + 0 * 0. */
static inline GPUFFT_ALWAYS_INLINE void
lanes_post (const GpufftHostFft * f, const v4d * re, const v4d * im,
    gdouble * out, gdouble * power)
{
  gdouble *o[GPUFFT_HOST_FFT_LANES], *q[GPUFFT_HOST_FFT_LANES];
  guint m = f->m, nb = m + 1, k, u;

  for (u = 0; u < GPUFFT_HOST_FFT_LANES; u++) {
    o[u] = out ? out + 2 * nb * (gsize) u : NULL;
    q[u] = power ? power + nb * (gsize) u : NULL;
  }
  {
    v4d dc = re[0] + im[0], ny = re[0] - im[0], zero = { 0.0, 0.0, 0.0, 0.0 };
    v4d pdc = dc * dc + zero * zero, pny = ny * ny + zero * zero;

    for (u = 0; u < GPUFFT_HOST_FFT_LANES; u++) {
      if (out) {
        o[u][0] = dc[u];
        o[u][1] = 0.0;
        o[u][2 * m] = ny[u];
        o[u][2 * m + 1] = 0.0;
      }
      if (power) {
        q[u][0] = pdc[u];
        q[u][m] = pny[u];
      }
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
    if (out) {
      o[0][2 * k] = xr[0];
      o[0][2 * k + 1] = xi[0];
      o[1][2 * k] = xr[1];
      o[1][2 * k + 1] = xi[1];
      o[2][2 * k] = xr[2];
      o[2][2 * k + 1] = xi[2];
      o[3][2 * k] = xr[3];
      o[3][2 * k + 1] = xi[3];
    }
    if (power) {
      v4d pk = xr * xr + xi * xi;

      q[0][k] = pk[0];
      q[1][k] = pk[1];
      q[2][k] = pk[2];
      q[3][k] = pk[3];
    }
  }
}

/* The DFT of the complex frames of in (n_frames of them; the other lanes
 * repeat the first) into the lanes f->re, f->im, natural order: for a
 * power-of-two M, loaded in bit-reversed order with the pass of len 2
 * (lanes_pow2's operations), then the other passes; else Bluestein's
 * algorithm (the chirp product, a radix-2 FFT of l points, the product
 * with the kernel's transform, conjugated, a radix-2 FFT again, conjugated
 * and times the chirp). Each lane's operations are one frame's whatever
 * the others hold. (Inlined into one function per kind of input: floats
 * where floats is TRUE, a constant.) */
static inline GPUFFT_ALWAYS_INLINE void
lanes_core (GpufftHostFft * f, const LanesIn * in, const gboolean floats,
    guint n_frames)
{
  const gdouble *p[GPUFFT_HOST_FFT_LANES];
  const gfloat *pf[GPUFFT_HOST_FFT_LANES];
  v4d *re = f->re, *im = f->im;
  guint m = f->m, l = f->l, i, j, u;
  gsize st = in->stride;

  G_STATIC_ASSERT (GPUFFT_HOST_FFT_LANES == 4);
  for (u = 0; u < GPUFFT_HOST_FFT_LANES; u++) {
    guint src = u < n_frames ? u : 0;

    p[u] = floats ? NULL : in->x + 2 * m * (gsize) src;
    pf[u] = in->f[src];
  }
/* (point t of every lane: a vector) */
#define POINT(t) (!floats ? (v4d) { p[0][t], p[1][t], p[2][t], p[3][t] } : \
    ((v4d) { (gdouble) pf[0][(t) * st], (gdouble) pf[1][(t) * st], \
        (gdouble) pf[2][(t) * st], (gdouble) pf[3][(t) * st] } + 0.0) * \
    in->win[t])
  if (l == m) {
    /* bit reversal and the first pass (no twiddles): points rev[2t] and
     * rev[2t + 1] = rev[2t] + m / 2 of each frame make points 2t and 2t +
     * 1 of the lanes */
    if (m == 1) {
      re[0] = POINT (0);
      im[0] = POINT (1);
    }
    for (i = 0; i + 1 < m; i += 2) {
      gsize a = 2 * (gsize) f->rev[i], b = a + m;
      v4d ar = POINT (a), ai = POINT (a + 1);
      v4d br = POINT (b), bi = POINT (b + 1);

      re[i + 1] = ar - br;
      im[i + 1] = ai - bi;
      re[i] = ar + br;
      im[i] = ai + bi;
    }
    lanes_passes (re, im, m, f->tw);
  } else {
    v4d zero = { 0.0, 0.0, 0.0, 0.0 };

    /* Bluestein: the chirp product, zeros to l points */
    for (j = 0; j < m; j++) {
      v4d zr = POINT (2 * (gsize) j), zi = POINT (2 * (gsize) j + 1);
      gdouble cr = f->chirp[2 * j], ci = f->chirp[2 * j + 1];

      re[j] = zr * cr - zi * ci;
      im[j] = zr * ci + zi * cr;
    }
    for (j = m; j < l; j++)
      re[j] = im[j] = zero;
    lanes_pow2 (f, re, im);
    /* times the kernel's transform, conjugated: the inverse transform as
     * a forward one of the conjugate */
    for (j = 0; j < l; j++) {
      gdouble kr = f->kern[2 * j], ki = f->kern[2 * j + 1];
      v4d r = re[j] * kr - im[j] * ki;
      v4d t = re[j] * ki + im[j] * kr;

      re[j] = r;
      im[j] = -t;
    }
    lanes_pow2 (f, re, im);
    for (j = 0; j < m; j++) {
      gdouble cr = f->chirp[2 * j], ci = f->chirp[2 * j + 1];
      v4d r = re[j], t = -im[j];

      re[j] = r * cr - t * ci;
      im[j] = r * ci + t * cr;
    }
  }
#undef POINT
}

static void GPUFFT_AVX2_CLONES
lanes_real (GpufftHostFft * f, const gdouble * x, guint n_frames,
    gdouble * out, gdouble * power)
{
  LanesIn in = { x, {NULL, NULL, NULL, NULL}, 0, NULL };

  lanes_core (f, &in, FALSE, n_frames);
  lanes_post (f, f->re, f->im, out, power);
}

static void GPUFFT_AVX2_CLONES
lanes_real_f32 (GpufftHostFft * f, const gfloat * const *src, gsize stride,
    const gdouble * win, guint n_frames, gdouble * out, gdouble * power)
{
  LanesIn in = { NULL, {NULL, NULL, NULL, NULL}, stride, win };
  guint u;

  for (u = 0; u < n_frames; u++)
    in.f[u] = src[u];
  lanes_core (f, &in, TRUE, n_frames);
  lanes_post (f, f->re, f->im, out, power);
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
gpufft_host_fft_real_f32 (GpufftHostFft * f, const gfloat * const *src,
    gsize stride, const gdouble * win, guint n_frames, gdouble * out,
    gdouble * power)
{
  g_return_if_fail (n_frames >= 1 && n_frames <= GPUFFT_HOST_FFT_LANES);
  g_return_if_fail (out != NULL || power != NULL);
  lanes_real_f32 (f, src, stride, win, n_frames, out, power);
}

void
gpufft_host_fft_real (GpufftHostFft * f, const gdouble * x, guint n_frames,
    gdouble * out, gdouble * power)
{
  g_return_if_fail (n_frames >= 1 && n_frames <= GPUFFT_HOST_FFT_LANES);
  g_return_if_fail (out != NULL || power != NULL);
  lanes_real (f, x, n_frames, out, power);
}
