/* GstGpuFftBase: exact sub-bin peak refinement (see the header). */
#include "gstgpufftpeak.h"

#include <math.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

static const gdouble coef_rectangular[] = { 1.0 };
static const gdouble coef_hann[] = { 0.5, 0.5 };
static const gdouble coef_hamming[] = { 0.54, 0.46 };
static const gdouble coef_hamming_gst[] = { 0.53836, 0.46164 };
static const gdouble coef_blackman[] = { 0.42, 0.5, 0.08 };
static const gdouble coef_blackman_harris[] =
    { 0.35875, 0.48829, 0.14128, 0.01168 };
static const gdouble coef_flat_top[] = { 0.21557895, 0.41663158, 0.277263158,
  0.083578947, 0.006947368
};

guint
gst_gpu_fft_peak_window_coefficients (GpufftWindow window,
    const gdouble ** coefficients)
{
#define RET(a) do { *coefficients = a; return G_N_ELEMENTS (a); } while (0)
  switch (window) {
    case GPUFFT_WINDOW_HANN:
      RET (coef_hann);
    case GPUFFT_WINDOW_HAMMING:
      RET (coef_hamming);
    case GPUFFT_WINDOW_HAMMING_GST:
      RET (coef_hamming_gst);
    case GPUFFT_WINDOW_BLACKMAN:
      RET (coef_blackman);
    case GPUFFT_WINDOW_BLACKMAN_HARRIS:
      RET (coef_blackman_harris);
    case GPUFFT_WINDOW_FLAT_TOP:
      RET (coef_flat_top);
    case GPUFFT_WINDOW_RECTANGULAR:
    default:
      RET (coef_rectangular);
  }
#undef RET
}

/* The window's transform, W(d) = sum_k c_k D(d - k) over its cosine terms
 * (c_0 = a_0, c_{+-k} = (-1)^k a_k / 2), with the Dirichlet kernel
 *   D(x) = sum_{m<n} exp (-2 pi i x m / n)
 *        = exp (-i pi x (n-1)/n) sin (pi x) / sin (pi x / n),
 * N-periodic in x. The terms' sines and phases come from those of d by
 * angle addition: three sines and cosines a transform, whatever the
 * window (the terms' shifts are whole bins; cos, sin (pi k / n) are
 * taken once per refinement). */
typedef struct
{
  const gdouble *a;
  guint na;
  guint n;
  gdouble ck[8], sk[8];         /* cos, sin (pi k / n), k < na */
  gdouble c1, s1;               /* cos, sin (pi / n) */
} Win;

static void
win_init (Win * w, GpufftWindow window, guint n)
{
  guint k;

  w->na = gst_gpu_fft_peak_window_coefficients (window, &w->a);
  w->n = n;
  for (k = 0; k < w->na && k < G_N_ELEMENTS (w->ck); k++) {
    w->ck[k] = cos (M_PI * k / n);
    w->sk[k] = sin (M_PI * k / n);
  }
  w->c1 = cos (M_PI / n);
  w->s1 = sin (M_PI / n);
}

/* The sines and cosines a transform at xr (in [-n/2, n/2] and a little
 * beyond) needs: sp = sin (pi xr), (sx, cx) of pi xr / n, (cp, spn) of
 * -pi xr (n-1) / n */
typedef struct
{
  gdouble xr, sp, sx, cx, cp, spn;
} WinAngles;

/* (and cos (pi xr) into *cpx where not NULL) */
static void
angles_at_cos (const Win * w, gdouble d, WinAngles * a, gdouble * cpx)
{
  gdouble n = w->n;
  gdouble xr = d - n * floor (d / n + 0.5);     /* [-n/2, n/2) */
  gdouble j = floor (xr + 0.5), fr = xr - j;    /* xr = j + fr, |fr| <= 1/2 */
  gdouble ph = -M_PI * xr * (n - 1) / n;
  gdouble sgn = fmod (j, 2.0) == 0.0 ? 1.0 : -1.0;

  a->xr = xr;
  /* sin (pi xr), from the small remainder (exact near whole bins) */
  a->sp = sgn * sin (M_PI * fr);
  if (cpx)
    *cpx = sgn * cos (M_PI * fr);
  a->sx = sin (M_PI * xr / n);
  a->cx = cos (M_PI * xr / n);
  a->cp = cos (ph);
  a->spn = sin (ph);
}

static void
angles_at (const Win * w, gdouble d, WinAngles * a)
{
  angles_at_cos (w, d, a, NULL);
}

/* The angles of a's xr + s (s = -1 or 1) by angle addition:
 * sin (pi (xr + s)) = -sin (pi xr); pi (xr + s) / n = pi xr / n + s pi / n;
 * -pi (xr + s) (n-1) / n = (that of xr) - s pi + s pi / n */
static void
angles_shift (const Win * w, const WinAngles * a, gint s, WinAngles * b)
{
  gdouble c = w->c1, sn = s * w->s1;

  b->xr = a->xr + s;
  b->sp = -a->sp;
  b->sx = a->sx * c + a->cx * sn;
  b->cx = a->cx * c - a->sx * sn;
  b->cp = -(a->cp * c - a->spn * sn);
  b->spn = -(a->spn * c + a->cp * sn);
}

/* W(d) as (re, im) from d's angles; direct_lobe: sin (pi x / n) on the
 * main lobe taken directly (else by angle addition, as off it) */
static void
transform_angles_lobe (const Win * w, const WinAngles * a,
    gboolean direct_lobe, gdouble * sr, gdouble * si)
{
  gdouble n = w->n, xr = a->xr;
  gint k, na = w->na;

  *sr = 0.0;
  *si = 0.0;
  for (k = 1 - na; k < na; k++) {
    guint ak = ABS (k);
    gdouble c = k == 0 ? w->a[0] : ((ak & 1) ? -w->a[ak] : w->a[ak]) * 0.5;
    gdouble x = xr - k;         /* D (d - k) */
    gdouble sgn = (ak & 1) ? -1.0 : 1.0;
    gdouble kc = w->ck[ak], ks = k > 0 ? w->sk[ak] : -w->sk[ak];
    gdouble den, mag, er, ei;

    if (x == 0.0) {
      *sr += c * n;
      continue;
    }
    /* sin (pi x / n): directly on the main lobe, where it is small */
    den = direct_lobe && fabs (x) < 0.5 ? sin (M_PI * x / n) :
        a->sx * kc - a->cx * ks;
    mag = sgn * a->sp / den;    /* sin (pi (xr - k)) = (-1)^k sin (pi xr) */
    /* exp (-i pi x (n-1)/n) = exp (i ph) (-1)^k exp (-i pi k / n) */
    er = sgn * (a->cp * kc + a->spn * ks);
    ei = sgn * (a->spn * kc - a->cp * ks);
    *sr += c * mag * er;
    *si += c * mag * ei;
  }
}

static void
transform_angles (const Win * w, const WinAngles * a, gdouble * sr,
    gdouble * si)
{
  transform_angles_lobe (w, a, TRUE, sr, si);
}

/* W(d) as (re, im) */
static void
transform (const Win * w, gdouble d, gdouble * sr, gdouble * si)
{
  WinAngles a;

  angles_at (w, d, &a);
  transform_angles (w, &a, sr, si);
}

/* W(d - 1), W(d), W(d + 1) as (re[i], im[i]) from d's angles a */
static void
transform3_angles (const Win * w, const WinAngles * a, gboolean direct_lobe,
    gdouble re[3], gdouble im[3])
{
  WinAngles b;

  transform_angles_lobe (w, a, direct_lobe, &re[1], &im[1]);
  angles_shift (w, a, -1, &b);
  transform_angles_lobe (w, &b, direct_lobe, &re[0], &im[0]);
  angles_shift (w, a, 1, &b);
  transform_angles_lobe (w, &b, direct_lobe, &re[2], &im[2]);
}

/* W(d - 1), W(d), W(d + 1) as (re[i], im[i]): the angles taken once */
static void
transform3 (const Win * w, gdouble d, gdouble re[3], gdouble im[3])
{
  WinAngles a;

  angles_at (w, d, &a);
  transform3_angles (w, &a, TRUE, re, im);
}

/* transform3 along a grid d_0, d_0 + delta, d_0 + 2 delta, ...: each
 * point's angles from the previous point's by angle addition, and the
 * main lobe's sin (pi x / n) as off it. Taken exactly again every
 * GRID_RESEED points, where a point is not the previous one plus delta,
 * near whole bins (sin (pi xr) small: relative errors would grow) and
 * near +-n/2 (xr wraps). Within about 1e-10 (relative) of transform3
 * (the main lobe's sin (pi x / n) by angle addition loses most, at 1e-3
 * bin from a whole bin): enough to rank a grid's candidates, with no sine
 * or cosine taken at most points. */
#define GRID_RESEED 32

typedef struct
{
  WinAngles a;
  gdouble cpx;                  /* cos (pi xr) */
  gdouble delta;
  gdouble rc, rs;               /* cos, sin (pi delta) */
  gdouble nc, ns;               /* cos, sin (pi delta / n) */
  gdouble pc, ps;               /* cos, sin (pi delta (n - 1) / n) */
  guint since;                  /* points since the angles were exact */
  gboolean valid;
} GridAngles;

static void
grid_init (const Win * w, GridAngles * g, gdouble delta)
{
  gdouble n = w->n;

  memset (g, 0, sizeof (*g));
  g->delta = delta;
  g->rc = cos (M_PI * delta);
  g->rs = sin (M_PI * delta);
  g->nc = cos (M_PI * delta / n);
  g->ns = sin (M_PI * delta / n);
  g->pc = cos (M_PI * delta * (n - 1) / n);
  g->ps = sin (M_PI * delta * (n - 1) / n);
}

static void
grid_transform3 (const Win * w, GridAngles * g, gdouble d, gdouble re[3],
    gdouble im[3])
{
  WinAngles *a = &g->a;
  gdouble xr = a->xr + g->delta, half = w->n / 2.0;

  if (g->valid && g->since < GRID_RESEED
      && fabs (d - a->xr - g->delta) < 1e-9
      && fabs (xr - floor (xr + 0.5)) > 1e-3 && fabs (xr) < half - 2.0) {
    gdouble sp = a->sp, cpx = g->cpx, sx = a->sx, cx = a->cx;
    gdouble cp = a->cp, spn = a->spn;

    a->xr = xr;
    a->sp = sp * g->rc + cpx * g->rs;
    g->cpx = cpx * g->rc - sp * g->rs;
    a->sx = sx * g->nc + cx * g->ns;
    a->cx = cx * g->nc - sx * g->ns;
    a->cp = cp * g->pc + spn * g->ps;
    a->spn = spn * g->pc - cp * g->ps;
    g->since++;
    transform3_angles (w, a, FALSE, re, im);
    return;
  }
  angles_at_cos (w, d, a, &g->cpx);
  g->since = 0;
  g->valid = fabs (d) < half - 2.0;
  transform3_angles (w, a, TRUE, re, im);
}

/* |W(d)|^2 */
static gdouble
response2 (const Win * w, gdouble d)
{
  gdouble sr, si;

  transform (w, d, &sr, &si);
  return sr * sr + si * si;
}

/* Model power at bin j of a tone at f bins (both images), unnormalised. */
static gdouble
model (const Win * w, gdouble j, gdouble f)
{
  return response2 (w, j - f) + response2 (w, j + f);
}

/* model ratio P_{k0+s} / P_{k0} for a tone at k0 + s*t */
static gdouble
model_ratio (const Win * w, guint k0, gint s, gdouble t)
{
  gdouble f = k0 + s * t;
  gdouble p0 = model (w, k0, f);

  if (!(p0 > 0.0))
    return G_MAXDOUBLE;
  return model (w, (gdouble) k0 + s, f) / p0;
}

/* ---- coherent model near DC / Nyquist ----------------------------------
 * A stationary tone seen by J frames hop samples apart: frame j's phase is
 * psi_j = phi + 2 pi f j hop / N, and its power at bin k (before the x2)
 *   A^2/4 (|W(k-f)|^2 + |W(k+f)|^2 + 2 Re (e^{2 i psi_j} W(k-f) W*(k+f)))
 * so the group mean is A^2/4 (alpha_k + 2 Re (zeta beta_k)) with
 * zeta = e^{2 i phi} Gamma, Gamma = mean_j e^{4 pi i f j hop / N}: |zeta| is
 * known (|Gamma|), its phase is not. For each candidate f the amplitude and
 * that phase are fitted to the three bins (least squares on relative
 * errors); the f with the smallest misfit wins (a grid, then Brent's
 * search). */

typedef struct
{
  const Win *w;
  guint n;
  guint hop;
  guint frames;
  guint k0;
  gdouble c[3];                 /* measured, de-doubled */
  gboolean absolute;            /* weigh errors by the peak, not per bin */
} Coherent;

/* |Gamma (f)| */
static gdouble
frame_coherence (const Coherent * m, gdouble f)
{
  gdouble x = 2.0 * M_PI * f * m->hop / m->n;
  gdouble den = m->frames * sin (x);

  if (m->frames <= 1 || fabs (den) < 1e-12)
    return 1.0;
  return fabs (sin (m->frames * x) / den);
}

/* frame_coherence along a grid f_0, f_0 + step, ...: sin x and sin (J x)
 * by angle addition from the previous point's (taken exactly again as
 * GridAngles are, and where sin x is small) */
typedef struct
{
  gdouble f, s1, c1, sj, cj;    /* sin, cos of x and J x at f */
  gdouble step, r1c, r1s, rjc, rjs;     /* cos, sin of their steps */
  guint since;
  gboolean valid;
} GridCoherence;

static void
grid_coherence_init (const Coherent * m, GridCoherence * g, gdouble step)
{
  gdouble dx = 2.0 * M_PI * step * m->hop / m->n;

  memset (g, 0, sizeof (*g));
  g->step = step;
  g->r1c = cos (dx);
  g->r1s = sin (dx);
  g->rjc = cos (m->frames * dx);
  g->rjs = sin (m->frames * dx);
}

static gdouble
grid_coherence (const Coherent * m, GridCoherence * g, gdouble f)
{
  if (m->frames <= 1)
    return 1.0;
  if (g->valid && g->since < GRID_RESEED && fabs (f - g->f - g->step) < 1e-9) {
    gdouble s1 = g->s1, c1 = g->c1, sj = g->sj, cj = g->cj;

    g->s1 = s1 * g->r1c + c1 * g->r1s;
    g->c1 = c1 * g->r1c - s1 * g->r1s;
    g->sj = sj * g->rjc + cj * g->rjs;
    g->cj = cj * g->rjc - sj * g->rjs;
    g->since++;
  } else {
    gdouble x = 2.0 * M_PI * f * m->hop / m->n;

    g->s1 = sin (x);
    g->c1 = cos (x);
    g->sj = sin (m->frames * x);
    g->cj = cos (m->frames * x);
    g->since = 0;
  }
  g->f = f;
  g->valid = fabs (g->s1) > 1e-3;
  if (!g->valid)
    return frame_coherence (m, f);
  return fabs (g->sj / (m->frames * g->s1));
}

/* cos (i pi / 8), i < 16 (sin (i pi / 8) = cos ((i + 12) pi / 8)): the
 * phase grid of coherent_misfit_at */
static const gdouble grid_cos[16] =
    { 1.0, 0.9238795325112867, 0.7071067811865476, 0.38268343236508984, 0.0,
  -0.3826834323650897, -0.7071067811865475, -0.9238795325112867, -1.0,
  -0.9238795325112868, -0.7071067811865477, -0.38268343236509034, 0.0,
  0.38268343236509, 0.7071067811865474, 0.9238795325112865
};

/* Brent's search for the minimum of f on [lo, hi]: parabolic steps
 * through the three best points where they stay inside the bracket and
 * shrink, golden sections where they do not; until the bracket is
 * within tol, or after max_evals evaluations. Every point is compared with
 * *best (a smaller value replaces *best, its abscissa *best_x and its
 * *best_u). */
typedef gdouble (*Objective) (gconstpointer data, gdouble x, gdouble * u);

static void
brent_min (Objective f, gconstpointer data, gdouble lo, gdouble hi,
    gdouble tol, guint max_evals, gdouble * best, gdouble * best_x,
    gdouble * best_u)
{
  const gdouble cg = 0.3819660112501051;        /* 1 - golden ratio */
  gdouble a = lo, b = hi, x, w, v, fx, fw, fv, d = 0.0, e = 0.0;
  gdouble u, fu, uu;
  guint n;

  x = w = v = a + cg * (b - a);
  fx = fw = fv = f (data, x, &uu);
  if (fx < *best) {
    *best = fx;
    *best_x = x;
    *best_u = uu;
  }
  for (n = 1; n < max_evals; n++) {
    gdouble xm = 0.5 * (a + b), tol1 = 0.5 * tol, tol2 = tol;
    gboolean golden = TRUE;

    if (fabs (x - xm) <= tol2 - 0.5 * (b - a))
      break;
    if (fabs (e) > tol1) {
      /* the parabola through x, w and v */
      gdouble r = (x - w) * (fx - fv), q = (x - v) * (fx - fw);
      gdouble p = (x - v) * q - (x - w) * r, last = e;

      q = 2.0 * (q - r);
      if (q > 0.0)
        p = -p;
      else
        q = -q;
      if (fabs (p) < fabs (0.5 * q * last) && p > q * (a - x)
          && p < q * (b - x)) {
        e = d;
        d = p / q;
        u = x + d;
        if (u - a < tol2 || b - u < tol2)
          d = xm >= x ? tol1 : -tol1;
        golden = FALSE;
      }
    }
    if (golden) {
      e = x >= xm ? a - x : b - x;
      d = cg * e;
    }
    u = fabs (d) >= tol1 ? x + d : x + (d >= 0.0 ? tol1 : -tol1);
    fu = f (data, u, &uu);
    if (fu < *best) {
      *best = fu;
      *best_x = u;
      *best_u = uu;
    }
    if (fu <= fx) {
      if (u >= x)
        a = x;
      else
        b = x;
      v = w;
      fv = fw;
      w = x;
      fw = fx;
      x = u;
      fx = fu;
    } else {
      if (u < x)
        a = u;
      else
        b = u;
      if (fu <= fw || w == x) {
        v = w;
        fv = fw;
        w = u;
        fw = fu;
      } else if (fu <= fv || v == x || v == w) {
        v = u;
        fv = fu;
      }
    }
  }
}

/* The phase fit at one frequency: y_r (chi) = al_r + cos chi B_r - sin chi
 * C_r (B and C times |Gamma|) against the measured t_r, s0 = sum t^2. */
typedef struct
{
  gdouble al[3], B[3], C[3], tg[3], s0;
} PhaseFit;

/* min over u of sum (t - u y)^2 = sum t^2 - (sum t y)^2 / sum y^2 at the
 * phase whose cosine and sine are cs, sn (the residuals summed directly:
 * an expansion in cos chi and sin chi cancels badly where the image
 * cancels the tone); *u the best u */
static gdouble
phase_misfit (const PhaseFit * pf, gdouble cs, gdouble sn, gdouble * u)
{
  gdouble s1 = 0.0, s2 = 0.0;
  gint r;

  for (r = 0; r < 3; r++) {
    gdouble y = pf->al[r] + cs * pf->B[r] - sn * pf->C[r];

    s1 += pf->tg[r] * y;
    s2 += y * y;
  }
  *u = s2 > 0.0 ? s1 / s2 : 0.0;
  return s2 > 0.0 ? pf->s0 - s1 * s1 / s2 : G_MAXDOUBLE;
}

static gdouble
phase_objective (gconstpointer pf, gdouble chi, gdouble * u)
{
  return phase_misfit (pf, cos (chi), sin (chi), u);
}

/* sin and cos of d, |d| <= pi / 16, by their Taylor series (within
 * 2e-12) */
static void
small_sincos (gdouble d, gdouble * sn, gdouble * cs)
{
  gdouble d2 = d * d;

  *sn = d * (1.0 - d2 / 6.0 * (1.0 - d2 / 20.0 * (1.0 - d2 / 42.0)));
  *cs = 1.0 - d2 / 2.0 * (1.0 - d2 / 12.0 * (1.0 - d2 / 30.0 * (1.0 -
              d2 / 56.0)));
}

/* Newton's steps on the phase from chi (a maximum of (sum t y)^2 / sum
 * y^2, the misfit's minimum), within [lo, hi]; FALSE where a step leaves
 * it or the curvature is not that of a maximum */
static gboolean
phase_newton (const PhaseFit * pf, gdouble chi, gdouble lo, gdouble hi,
    gdouble * chi_out)
{
  guint it;

  for (it = 0; it < 8; it++) {
    gdouble cs = cos (chi), sn = sin (chi);
    gdouble s1 = 0.0, s1d = 0.0, s1dd = 0.0, s2 = 0.0, s2d = 0.0, s2dd = 0.0;
    gdouble nn, nd, ndd, g1, g2, step;
    gint r;

    for (r = 0; r < 3; r++) {
      gdouble y = pf->al[r] + cs * pf->B[r] - sn * pf->C[r];
      gdouble y1 = -sn * pf->B[r] - cs * pf->C[r];
      gdouble y2 = -cs * pf->B[r] + sn * pf->C[r];

      s1 += pf->tg[r] * y;
      s1d += pf->tg[r] * y1;
      s1dd += pf->tg[r] * y2;
      s2 += y * y;
      s2d += 2.0 * y * y1;
      s2dd += 2.0 * (y1 * y1 + y * y2);
    }
    if (!(s2 > 0.0))
      return FALSE;
    nn = s1 * s1;
    nd = 2.0 * s1 * s1d;
    ndd = 2.0 * (s1d * s1d + s1 * s1dd);
    g1 = (nd * s2 - nn * s2d) / (s2 * s2);
    g2 = (ndd * s2 - nn * s2dd) / (s2 * s2) - 2.0 * s2d * g1 / s2;
    if (!(g2 < 0.0))
      return FALSE;
    step = -g1 / g2;
    chi += step;
    if (!(chi >= lo && chi <= hi))
      return FALSE;
    if (fabs (step) < 1e-9) {
      *chi_out = chi;
      return TRUE;
    }
  }
  return FALSE;
}

/* relative residual of the best amplitude/phase at f, given |Gamma (f)|
 * as g, W(k - f) as
 * (dr, di) and W(k + f) as (pr, pi) at k = k0 - 1, k0, k0 + 1; *u the
 * amplitude term A^2/4 (in the units of c / |W|^2). fine: the phase by
 * Newton's steps (Brent's search where they fail) from the best of a
 * 16-point grid; else (a frequency grid's ranking) by one parabolic step
 * from it. */
static gdouble
coherent_fit (const Coherent * m, gdouble g, const gdouble dr[3],
    const gdouble di[3], const gdouble pr[3], const gdouble pi[3],
    gboolean fine, gdouble * u)
{
  PhaseFit pf;
  gdouble best = G_MAXDOUBLE, best_u = 0.0, best_chi = 0.0;
  gdouble lo, cmax = MAX (MAX (m->c[0], m->c[1]), m->c[2]);
  gdouble v16[16], u16[16];
  gint r, i, bi = 0;

  pf.s0 = 0.0;
  for (r = 0; r < 3; r++) {
    gdouble w1r = dr[r], w1i = di[r], w2r = pr[r], w2i = pi[r];
    gdouble cw = m->absolute ? cmax : MAX (m->c[r], 1e-9 * cmax);

    pf.al[r] = (w1r * w1r + w1i * w1i + w2r * w2r + w2i * w2i) / cw;
    /* beta = W(k-f) conj (W(k+f)) */
    pf.B[r] = 2.0 * (w1r * w2r + w1i * w2i) / cw * g;
    pf.C[r] = 2.0 * (w1i * w2r - w1r * w2i) / cw * g;
    pf.tg[r] = m->c[r] / cw;
    pf.s0 += pf.tg[r] * pf.tg[r];
  }

  /* phase of zeta: grid, then Newton's steps (or one parabolic step) */
  for (i = 0; i < 16; i++) {
    v16[i] = phase_misfit (&pf, grid_cos[i], grid_cos[(i + 12) % 16], &u16[i]);
    if (v16[i] < best) {
      best = v16[i];
      best_u = u16[i];
      bi = i;
    }
  }
  lo = bi * (2.0 * M_PI / 16);
  {
    gdouble a = v16[(bi + 15) % 16], c = v16[(bi + 1) % 16];
    gdouble den = a - 2.0 * best + c, uu, v, d = 0.0, sn, cs;

    if (den > 0.0) {
      /* (|d| <= pi / 16: a, c >= best) */
      d = 0.5 * (a - c) / den * (2.0 * M_PI / 16);
      small_sincos (d, &sn, &cs);
      v = phase_misfit (&pf, grid_cos[bi] * cs - grid_cos[(bi + 12) % 16] *
          sn, grid_cos[(bi + 12) % 16] * cs + grid_cos[bi] * sn, &uu);
      if (v < best) {
        best = v;
        best_u = uu;
      } else {
        d = 0.0;
      }
    }
    if (fine) {
      gdouble chi;

      if (phase_newton (&pf, lo + d, lo - 2.0 * M_PI / 16,
              lo + 2.0 * M_PI / 16, &chi)) {
        v = phase_misfit (&pf, cos (chi), sin (chi), &uu);
        if (v < best) {
          best = v;
          best_u = uu;
        }
      } else {
        brent_min (phase_objective, &pf, lo - 2.0 * M_PI / 16,
            lo + 2.0 * M_PI / 16, 1e-7, 24, &best, &best_chi, &best_u);
      }
    }
  }
  *u = best_u;
  return best;
}

/* coherent_fit at f, the transforms taken exactly */
static gdouble
coherent_misfit_at (const Coherent * m, gdouble f, gboolean fine, gdouble * u)
{
  gdouble dr[3], di[3], pr[3], pi[3];

  transform3 (m->w, m->k0 - f, dr, di);
  transform3 (m->w, m->k0 + f, pr, pi);
  return coherent_fit (m, frame_coherence (m, f), dr, di, pr, pi, fine, u);
}

/* (the final search: the phase by Brent's search) */
static gdouble
coherent_objective (gconstpointer m, gdouble f, gdouble * u)
{
  return coherent_misfit_at (m, f, TRUE, u);
}

static gboolean
coherent_refine (const Coherent * m, gdouble centre, gdouble range,
    gdouble step, gdouble * f_out, gdouble * u_out)
{
  gdouble nyq = m->n / 2, best = G_MAXDOUBLE, best_f = -1.0, best_u = 0.0;
  gdouble f, u, dr[3], di[3], pr[3], pi[3];
  GridAngles minus, plus;
  GridCoherence coh;

  grid_init (m->w, &minus, -step);
  grid_init (m->w, &plus, step);
  grid_coherence_init (m, &coh, step);
  for (f = centre - range; f <= centre + range + 1e-9; f += step) {
    gdouble v;

    if (f < 0.0 || f > nyq)
      continue;
    /* (the grid ranks the frequencies: its transforms by angle addition,
     * the phase to a parabolic step) */
    grid_transform3 (m->w, &minus, m->k0 - f, dr, di);
    grid_transform3 (m->w, &plus, m->k0 + f, pr, pi);
    v = coherent_fit (m, grid_coherence (m, &coh, f), dr, di, pr, pi, FALSE,
        &u);
    if (v < best) {
      best = v;
      best_f = f;
      best_u = u;
    }
  }
  if (best_f < 0.0)
    return FALSE;
  brent_min (coherent_objective, m, MAX (best_f - step, 0.0),
      MIN (best_f + step, nyq), 1e-10, 40, &best, &best_f, &best_u);
  if (!(best_u > 0.0) || !isfinite (best_u))
    return FALSE;
  *f_out = best_f;
  *u_out = best_u;
  return TRUE;
}

/* ---- incoherent three-bin ratio ------------------------------------------ */

/* Tone offset t in [0, 1/2] towards side s matching the measured ratio r of
 * P_{k0+s} / P_{k0} (Illinois method), bracketed first around the
 * large-N closed form (rectangular: t = a/(1+a); hann, and as a start for
 * the others: t = (2a-1)/(a+1), a = sqrt r) so that a few model
 * evaluations suffice. */
static gdouble
solve_ratio (GpufftWindow window, const Win * w, guint bin, gint s, gdouble r)
{
  gdouble lo = 0.0, hi = 0.5, flo, fhi, t, amp = sqrt (r), t0;
  gint last = 0;
  guint it;

  t0 = window == GPUFFT_WINDOW_RECTANGULAR ? amp / (1.0 + amp)
      : (2.0 * amp - 1.0) / (amp + 1.0);
  t0 = CLAMP (t0, 0.0, 0.5);
  /* For these two the closed form is off by O(1/N^2) bins only (below
   * 2e-5 bin from N = 256): take it as it is (the solver costs ~30
   * evaluations of the window transform, which add up with many
   * channels). */
  if (w->n >= 256 && (window == GPUFFT_WINDOW_RECTANGULAR
          || window == GPUFFT_WINDOW_HANN))
    return t0;
  flo = model_ratio (w, bin, s, MAX (t0 - 0.01, 0.0)) - r;
  fhi = model_ratio (w, bin, s, MIN (t0 + 0.01, 0.5)) - r;
  if (flo < 0.0 && fhi > 0.0) {
    lo = MAX (t0 - 0.01, 0.0);
    hi = MIN (t0 + 0.01, 0.5);
  } else {
    flo = model_ratio (w, bin, s, lo) - r;
    fhi = model_ratio (w, bin, s, hi) - r;
    if (flo >= 0.0)
      return lo;
    if (fhi <= 0.0)
      return hi;
  }
  t = lo;
  for (it = 0; it < 100; it++) {
    gdouble t_new = (lo * fhi - hi * flo) / (fhi - flo);
    gdouble ft;

    if (!(t_new > lo && t_new < hi))
      t_new = 0.5 * (lo + hi);
    ft = model_ratio (w, bin, s, t_new) - r;
    if (fabs (t_new - t) < 1e-10 || ft == 0.0 || hi - lo < 1e-10)
      return t_new;
    t = t_new;
    if (ft > 0.0) {
      hi = t;
      fhi = ft;
      if (last == 1)
        flo *= 0.5;
      last = 1;
    } else {
      lo = t;
      flo = ft;
      if (last == -1)
        fhi *= 0.5;
      last = -1;
    }
  }
  return t;
}

gboolean
gst_gpu_fft_peak_refine (GpufftWindow window, guint fft_size, guint hop,
    guint n_frames, guint bin, const gdouble power[3], gdouble * refined_bin,
    gdouble * peak_power)
{
  Win w;
  guint nyq = fft_size / 2;
  gdouble c[3], r, t, f, w0, m, mirror = 0.0;
  gint s, j;

  if (bin > nyq)
    return FALSE;
  win_init (&w, window, fft_size);
  /* undo the one-sided doubling; neighbours outside the spectrum count 0 */
  for (j = -1; j <= 1; j++) {
    gint b = (gint) bin + j;

    if (b < 0 || b > (gint) nyq)
      c[j + 1] = 0.0;
    else
      c[j + 1] = power[j + 1] / ((b == 0 || b == (gint) nyq) ? 1.0 : 2.0);
  }
  if (!(c[1] > 0.0) || !isfinite (c[1]) || !isfinite (c[0]) || !isfinite (c[2]))
    return FALSE;

  if (bin == 0)
    s = 1;
  else if (bin == nyq)
    s = -1;
  else
    s = (c[2] >= c[0]) ? 1 : -1;
  r = c[1 + s] / c[1];
  if (!isfinite (r) || r < 0.0)
    r = 0.0;
  t = solve_ratio (window, &w, bin, s, r);
  f = (gdouble) bin + s * t;
  w0 = response2 (&w, 0.0);
  m = model (&w, bin, f);
  *peak_power = (m > 0.0) ? 2.0 * c[1] * w0 / m : power[1];

  /* near DC / Nyquist the mirror image interferes coherently: when it is
   * not negligible at any of the three bins, fit the coherent model */
  if (bin >= 1 && bin < nyq && hop > 0 && n_frames > 0) {
    for (j = -1; j <= 1; j++) {
      gdouble k = (gdouble) bin + j;
      gdouble direct = response2 (&w, k - f);

      if (direct > 0.0)
        mirror = MAX (mirror, response2 (&w, k + f) / direct);
    }
  }
  /* the cross term goes with the image's amplitude: above 1e-4 of the
   * direct one (power ratio 1e-8) it can move the estimate by more than
   * ~1e-5 bin; below, the incoherent estimate stands (the coherent fit
   * costs 0.1-0.5 ms, which at many channels would dominate the CPU) */
  if (mirror > 1e-8) {
    Coherent cm;
    gdouble fc, u;
    gboolean ok;

    cm.w = &w;
    cm.n = fft_size;
    cm.hop = hop;
    cm.frames = n_frames;
    cm.k0 = bin;
    cm.c[0] = c[0];
    cm.c[1] = c[1];
    cm.c[2] = c[2];
    cm.absolute = FALSE;
    if (mirror < 1e-4) {
      /* a weak image (below -40 dB) moves the incoherent estimate by less
       * than ~1e-3 bin: search next to it */
      ok = coherent_refine (&cm, f, 0.01, 0.002, &fc, &u);
    } else if (window == GPUFFT_WINDOW_RECTANGULAR) {
      /* its zeros make far candidates fit as well, and its misfit has
       * narrow minima next to them: a closer, finer search */
      ok = coherent_refine (&cm, bin, 0.7, 0.005, &fc, &u);
    } else {
      ok = coherent_refine (&cm, bin, 1.5, 0.02, &fc, &u);
    }
    if (ok) {
      f = fc;
      *peak_power = 2.0 * u * w0;
    }
  }

  *refined_bin = CLAMP (f, 0.0, (gdouble) nyq);
  return TRUE;
}
