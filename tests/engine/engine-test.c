/* Shared helpers of the engine tests (see engine-test.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine-test.h"

static GpufftContext *et_ctx;
static gchar *et_ctx_error;

void
et_init (int *argc, char ***argv)
{
  const gchar *dev = g_getenv ("GPUFFT_TEST_DEVICE");
  const gchar *req = g_getenv ("GPUFFT_TESTS_REQUIRE_DEVICE");
  GError *err = NULL;

  g_test_init (argc, argv, NULL);
  /* a g_test_trap_subprocess () child opens its own devices, if any */
  if (g_test_subprocess ())
    return;

  et_ctx = gpufft_context_get (dev ? atoi (dev) : -1, &err);
  if (et_ctx == NULL) {
    et_ctx_error = g_strdup (err ? err->message : "(no message)");
    g_clear_error (&err);
    if (req != NULL && strcmp (req, "0") != 0) {
      /* TAP: meson reports an error; plain output: a failure. */
      printf ("Bail out! GPUFFT_TESTS_REQUIRE_DEVICE is set and no Vulkan "
          "device could be opened: %s\n", et_ctx_error);
      fflush (stdout);
      exit (1);
    }
  } else {
    g_test_message ("device: %s (index %d)",
        gpufft_context_get_device_name (et_ctx),
        gpufft_context_get_device_index (et_ctx));
  }
}

GpufftContext *
et_context (void)
{
  if (et_ctx == NULL) {
    gchar *msg = g_strdup_printf ("no Vulkan device: %s", et_ctx_error);

    g_test_skip (msg);
    g_free (msg);
  }
  return et_ctx;
}

int
et_run (void)
{
  int ret = g_test_run ();

  if (et_ctx)
    gpufft_context_unref (et_ctx);
  et_ctx = NULL;
  g_free (et_ctx_error);
  et_ctx_error = NULL;
  return ret;
}

/* ---- References --------------------------------------------------------- */

void
et_fft_double (gdouble * re, gdouble * im, guint n)
{
  guint i, j, len;

  /* bit reversal */
  for (i = 1, j = 0; i < n; i++) {
    guint bit = n >> 1;

    for (; j & bit; bit >>= 1)
      j ^= bit;
    j |= bit;
    if (i < j) {
      gdouble t;

      t = re[i];
      re[i] = re[j];
      re[j] = t;
      t = im[i];
      im[i] = im[j];
      im[j] = t;
    }
  }

  for (len = 2; len <= n; len <<= 1) {
    guint half = len / 2, step = n / len, k;

    for (k = 0; k < half; k++) {
      /* exact angle from the integer phase k*step/n */
      gdouble a = -2.0 * G_PI * (gdouble) (k * step) / (gdouble) n;
      gdouble wr = cos (a), wi = sin (a);

      for (i = k; i < n; i += len) {
        guint m = i + half;
        gdouble tr = re[m] * wr - im[m] * wi;
        gdouble ti = re[m] * wi + im[m] * wr;

        re[m] = re[i] - tr;
        im[m] = im[i] - ti;
        re[i] += tr;
        im[i] += ti;
      }
    }
  }
}

/* y = DFT_n (x at stride), recursively: split on the smallest prime
 * factor p (p sub-DFTs of n/p points, combined with exact twiddles), a
 * direct sum for a prime n. */
static void
dft_rec (const gdouble * xr, const gdouble * xi, gsize stride, guint n,
    gdouble * yr, gdouble * yi)
{
  guint p = 2, m, r, k, q;
  gdouble *sr, *si;

  while (p * p <= n && n % p)
    p++;
  if (n % p)
    p = n;
  if (p == n) {
    for (k = 0; k < n; k++) {
      gdouble ar = 0.0, ai = 0.0;

      for (r = 0; r < n; r++) {
        gdouble a = -2.0 * G_PI * (gdouble) (((guint64) r * k) % n) / n;

        ar += xr[r * stride] * cos (a) - xi[r * stride] * sin (a);
        ai += xr[r * stride] * sin (a) + xi[r * stride] * cos (a);
      }
      yr[k] = ar;
      yi[k] = ai;
    }
    return;
  }
  m = n / p;
  sr = g_new (gdouble, n);
  si = g_new (gdouble, n);
  for (r = 0; r < p; r++)
    dft_rec (xr + r * stride, xi + r * stride, stride * p, m, sr + r * m,
        si + r * m);
  for (q = 0; q < p; q++) {
    for (k = 0; k < m; k++) {
      guint out = k + m * q;
      gdouble ar = 0.0, ai = 0.0;

      for (r = 0; r < p; r++) {
        gdouble a = -2.0 * G_PI * (gdouble) (((guint64) r * out) % n) / n;
        gdouble c = cos (a), s = sin (a);

        ar += sr[r * m + k] * c - si[r * m + k] * s;
        ai += sr[r * m + k] * s + si[r * m + k] * c;
      }
      yr[out] = ar;
      yi[out] = ai;
    }
  }
  g_free (sr);
  g_free (si);
}

void
et_dft_double (gdouble * re, gdouble * im, guint n)
{
  gdouble *xr = g_memdup2 (re, n * sizeof (gdouble));
  gdouble *xi = g_memdup2 (im, n * sizeof (gdouble));

  dft_rec (xr, xi, 1, n, re, im);
  g_free (xr);
  g_free (xi);
}

void
et_rfft_double (const gdouble * x, guint n, gdouble * re, gdouble * im)
{
  gdouble *r = g_new (gdouble, n), *m = g_new0 (gdouble, n);

  memcpy (r, x, n * sizeof (gdouble));
  if (n & (n - 1))
    et_dft_double (r, m, n);
  else
    et_fft_double (r, m, n);
  memcpy (re, r, (n / 2 + 1) * sizeof (gdouble));
  memcpy (im, m, (n / 2 + 1) * sizeof (gdouble));
  g_free (r);
  g_free (m);
}

/* scipy.signal.windows: general_cosine coefficients. */
static const gdouble coef_rect[] = { 1.0 };
static const gdouble coef_hann[] = { 0.5, 0.5 };
static const gdouble coef_hamming[] = { 0.54, 0.46 };
/* gst_fft's Hamming (GStreamer's spectrum element) */
static const gdouble coef_hamming_gst[] = { 0.53836, 0.46164 };
static const gdouble coef_blackman[] = { 0.42, 0.5, 0.08 };
static const gdouble coef_bh[] = { 0.35875, 0.48829, 0.14128, 0.01168 };
static const gdouble coef_flattop[] = { 0.21557895, 0.41663158, 0.277263158,
  0.083578947, 0.006947368
};

guint
et_window_coefs (GpufftWindow window, const gdouble ** coefs)
{
  switch (window) {
    case GPUFFT_WINDOW_RECTANGULAR:
      *coefs = coef_rect;
      return G_N_ELEMENTS (coef_rect);
    case GPUFFT_WINDOW_HANN:
      *coefs = coef_hann;
      return G_N_ELEMENTS (coef_hann);
    case GPUFFT_WINDOW_HAMMING:
      *coefs = coef_hamming;
      return G_N_ELEMENTS (coef_hamming);
    case GPUFFT_WINDOW_BLACKMAN:
      *coefs = coef_blackman;
      return G_N_ELEMENTS (coef_blackman);
    case GPUFFT_WINDOW_BLACKMAN_HARRIS:
      *coefs = coef_bh;
      return G_N_ELEMENTS (coef_bh);
    case GPUFFT_WINDOW_HAMMING_GST:
      *coefs = coef_hamming_gst;
      return G_N_ELEMENTS (coef_hamming_gst);
    case GPUFFT_WINDOW_FLAT_TOP:
      *coefs = coef_flattop;
      return G_N_ELEMENTS (coef_flattop);
  }
  g_assert_not_reached ();
  return 0;
}

void
et_window (GpufftWindow window, guint n, gdouble * out)
{
  const gdouble *a;
  guint na = et_window_coefs (window, &a), i, k;

  for (i = 0; i < n; i++) {
    gdouble v = 0.0;

    for (k = 0; k < na; k++) {
      /* periodic (DFT-even): the period is n, not n - 1 */
      guint64 ph = ((guint64) k * i) % n;
      v += ((k & 1) ? -a[k] : a[k]) * cos (2.0 * G_PI * (gdouble) ph / n);
    }
    out[i] = v;
  }
}

gdouble
et_scale (GpufftScaling scaling, const gdouble * w, guint n, gdouble rate,
    guint k)
{
  gdouble s = 0.0, s2 = 0.0, f;
  guint i;

  for (i = 0; i < n; i++) {
    s += w[i];
    s2 += w[i] * w[i];
  }
  if (scaling == GPUFFT_SCALING_RAW)
    return 1.0;                 /* |X_k|^2 as it is */
  if (scaling == GPUFFT_SCALING_SPECTRUM)
    f = 1.0 / (s * s);
  else
    f = 1.0 / (rate * s2);
  if (k != 0 && k != n / 2)
    f *= 2.0;
  return f;
}

/* ---- Signals ------------------------------------------------------------ */

static gdouble
quantise (GpufftFormat format, gdouble v)
{
  gdouble full;

  switch (format) {
    case GPUFFT_FORMAT_S16:
      full = 32768.0;
      break;
    case GPUFFT_FORMAT_S24:
      full = 8388608.0;
      break;
    case GPUFFT_FORMAT_S32:
      full = 2147483648.0;
      break;
    case GPUFFT_FORMAT_F32:
      return (gdouble) (gfloat) v;
    case GPUFFT_FORMAT_F64:
    default:
      return v;
  }
  v = round (v * full);
  v = CLAMP (v, -full, full - 1.0);
  return v / full;
}

static void
encode (GpufftFormat format, gdouble v, guint8 * p)
{
  switch (format) {
    case GPUFFT_FORMAT_S16:{
      gint16 s = (gint16) lround (v * 32768.0);
      memcpy (p, &s, 2);
      break;
    }
    case GPUFFT_FORMAT_S24:{
      gint32 s = (gint32) lround (v * 8388608.0);
      p[0] = s & 0xff;
      p[1] = (s >> 8) & 0xff;
      p[2] = (s >> 16) & 0xff;
      break;
    }
    case GPUFFT_FORMAT_S32:{
      gint32 s = (gint32) llround (v * 2147483648.0);
      memcpy (p, &s, 4);
      break;
    }
    case GPUFFT_FORMAT_F32:{
      gfloat f = (gfloat) v;
      memcpy (p, &f, 4);
      break;
    }
    case GPUFFT_FORMAT_F64:
      memcpy (p, &v, 8);
      break;
  }
}

static guint
format_bytes (GpufftFormat format)
{
  /* written out here rather than taken from the engine */
  static const guint b[] = { 2, 3, 4, 4, 8 };
  return b[format];
}

EtInput *
et_input_new (GpufftFormat format, gboolean planar, guint channels,
    gsize len, gdouble noise_amp, gdouble tone_amp, guint32 seed)
{
  EtInput *in = g_new0 (EtInput, 1);
  GRand *rand = g_rand_new_with_seed (seed);
  guint bps = format_bytes (format), c;
  gsize t;

  in->format = format;
  in->planar = planar;
  in->channels = channels;
  in->len = len;
  in->x = g_new (gdouble *, channels);
  if (planar)
    in->planes = g_new (guint8 *, channels);
  else
    in->bytes = g_malloc (len * channels * bps);

  for (c = 0; c < channels; c++) {
    /* two tones per channel, off bin centres */
    gdouble f1 = g_rand_double_range (rand, 0.01, 0.2);
    gdouble f2 = g_rand_double_range (rand, 0.2, 0.45);
    gdouble p1 = g_rand_double_range (rand, 0, 2 * G_PI);
    gdouble p2 = g_rand_double_range (rand, 0, 2 * G_PI);

    in->x[c] = g_new (gdouble, len);
    if (planar)
      in->planes[c] = g_malloc (len * bps);
    for (t = 0; t < len; t++) {
      gdouble v = noise_amp * g_rand_double_range (rand, -1.0, 1.0)
          + tone_amp * sin (2 * G_PI * f1 * t + p1)
          + 0.5 * tone_amp * sin (2 * G_PI * f2 * t + p2);

      v = quantise (format, CLAMP (v, -1.0, 1.0));
      in->x[c][t] = v;
      if (planar)
        encode (format, v, in->planes[c] + t * bps);
      else
        encode (format, v, in->bytes + (t * channels + c) * bps);
    }
  }
  g_rand_free (rand);
  return in;
}

void
et_input_free (EtInput * in)
{
  guint c;

  if (in == NULL)
    return;
  for (c = 0; c < in->channels; c++) {
    g_free (in->x[c]);
    if (in->planes)
      g_free (in->planes[c]);
  }
  g_free (in->x);
  g_free (in->planes);
  g_free (in->bytes);
  g_free (in);
}

void
et_input_segments (const EtInput * in, gsize off, gsize n, guint n_split,
    GpufftSegment * segs, gconstpointer * plane_store)
{
  guint bps = format_bytes (in->format), s, c;
  gsize pos = off, end = off + n;

  g_assert (off + n <= in->len);
  for (s = 0; s < n_split; s++) {
    /* uneven split: segment s gets about (s+1)/(sum) of the span */
    gsize left = end - pos;
    gsize take = (s + 1 == n_split) ? left :
        MIN (left, (gsize) (n * (s + 1)) / ((gsize) n_split * (n_split + 1) /
            2) + 1);

    memset (&segs[s], 0, sizeof (segs[s]));
    segs[s].n_samples = take;
    if (in->planar) {
      for (c = 0; c < in->channels; c++)
        plane_store[s * in->channels + c] = in->planes[c] + pos * bps;
      segs[s].planes = plane_store + s * in->channels;
      segs[s].data = NULL;
    } else {
      segs[s].data = in->bytes + pos * in->channels * bps;
      segs[s].planes = NULL;
    }
    pos += take;
  }
  g_assert (pos == end);
}

gdouble
et_input_value (const EtInput * in, gint c, gsize t)
{
  gdouble s = 0.0;
  guint i;

  if (c >= 0)
    return in->x[c][t];
  for (i = 0; i < in->channels; i++)
    s += in->x[i][t];
  return s / in->channels;
}

void
et_ref_complex (const EtInput * in, gint c, gsize start, guint n,
    GpufftWindow window, gdouble * re, gdouble * im)
{
  gdouble *w = g_new (gdouble, n), *x = g_new (gdouble, n);
  guint i;

  et_window (window, n, w);
  for (i = 0; i < n; i++)
    x[i] = w[i] * et_input_value (in, c, start + i);
  et_rfft_double (x, n, re, im);
  g_free (w);
  g_free (x);
}

void
et_ref_power (const EtInput * in, gint c, gsize first, guint hop,
    guint n_frames, guint n, GpufftWindow window, GpufftScaling scaling,
    gdouble rate, gdouble * out)
{
  guint nb = n / 2 + 1, f, k;
  gdouble *w = g_new (gdouble, n);
  gdouble *re = g_new (gdouble, nb), *im = g_new (gdouble, nb);

  et_window (window, n, w);
  for (k = 0; k < nb; k++)
    out[k] = 0.0;
  for (f = 0; f < n_frames; f++) {
    et_ref_complex (in, c, first + (gsize) f * hop, n, window, re, im);
    for (k = 0; k < nb; k++)
      out[k] += (re[k] * re[k] + im[k] * im[k]);
  }
  for (k = 0; k < nb; k++)
    out[k] *= et_scale (scaling, w, n, rate, k) / n_frames;
  g_free (w);
  g_free (re);
  g_free (im);
}

/* ---- Results ------------------------------------------------------------ */

static void
et_result_free (gpointer p)
{
  EtResult *r = p;

  g_free (r->power);
  g_free (r->channel_frames);
  g_free (r->complex_data);
  g_free (r->peaks);
  g_free (r);
}

GPtrArray *
et_results_new (void)
{
  return g_ptr_array_new_with_free_func (et_result_free);
}

void
et_collect_cb (const GpufftGroupResult * result, gpointer user_data)
{
  GPtrArray *arr = user_data;
  EtResult *r = g_new0 (EtResult, 1);
  gsize nv = (gsize) result->channels * result->n_bins;

  r->group_index = result->group_index;
  r->n_frames = result->n_frames;
  r->channels = result->channels;
  r->n_bins = result->n_bins;
  r->n_peaks = result->n_peaks;
  g_assert_nonnull (result->power);
  g_assert_nonnull (result->channel_frames);
  r->channel_frames = g_memdup2 (result->channel_frames,
      result->channels * sizeof (guint));
  r->power = g_memdup2 (result->power, nv * sizeof (gfloat));
  if (result->complex_data)
    r->complex_data = g_memdup2 (result->complex_data,
        nv * 2 * sizeof (gfloat));
  if (result->peaks && result->n_peaks)
    r->peaks = g_memdup2 (result->peaks,
        (gsize) result->channels * result->n_peaks * sizeof (GpufftPeak));
  g_ptr_array_add (arr, r);
}

gboolean
et_submit_collect (GpufftPlan * plan, const GpufftBatch * batch,
    GPtrArray * results)
{
  GError *err = NULL;
  gint n;

  if (!gpufft_plan_submit (plan, batch, &err)) {
    et_fail ("gpufft_plan_submit: %s", err->message);
    g_error_free (err);
    return FALSE;
  }
  n = gpufft_plan_collect (plan, TRUE, et_collect_cb, results, &err);
  if (n < 0) {
    et_fail ("gpufft_plan_collect: %s", err->message);
    g_error_free (err);
    return FALSE;
  }
  if (gpufft_plan_in_flight (plan) != 0) {
    et_fail ("%u batches still in flight after collect (wait)",
        gpufft_plan_in_flight (plan));
    return FALSE;
  }
  return TRUE;
}

/* ---- Checks ------------------------------------------------------------- */

gdouble
et_power_error (const gfloat * gpu, const gdouble * ref, guint n_bins,
    gdouble dyn_db, gdouble tol, gdouble * worst_ratio, guint * worst_bin)
{
  gdouble max = 0.0, mean = 0.0, lim, worst = 0.0;
  guint k;

  *worst_ratio = 0.0;
  *worst_bin = 0;
  for (k = 0; k < n_bins; k++) {
    max = MAX (max, ref[k]);
    mean += ref[k] / n_bins;
  }
  lim = max * pow (10.0, -dyn_db / 10.0);
  for (k = 0; k < n_bins; k++) {
    gdouble e, allowed;

    if (!isfinite (gpu[k])) {
      *worst_ratio = INFINITY;
      *worst_bin = k;
      return INFINITY;
    }
    if (ref[k] < lim)
      continue;
    e = fabs (gpu[k] - ref[k]) / ref[k];
    /* tol, plus what a single-precision FFT error of ET_FFT_EPS times the
     * rms bin magnitude does to a bin far below the mean */
    allowed = tol + 2.0 * ET_FFT_EPS * sqrt (mean / ref[k]);
    worst = MAX (worst, e);
    if (e / allowed > *worst_ratio) {
      *worst_ratio = e / allowed;
      *worst_bin = k;
    }
  }
  return worst;
}

gdouble
et_check_power (const gfloat * gpu, const gdouble * ref, guint n_bins,
    gdouble dyn_db, gdouble tol, const gchar * what)
{
  gdouble ratio, worst, mean = 0.0;
  guint k;

  worst = et_power_error (gpu, ref, n_bins, dyn_db, tol, &ratio, &k);
  if (!(ratio <= 1.0)) {
    guint i;

    for (i = 0; i < n_bins; i++)
      mean += ref[i] / n_bins;
    et_fail ("%s: relative error %.3g at bin %u of %u is above "
        "%.3g + 2 * %.0e * sqrt (mean / power) (gpu %.9g, reference %.9g, "
        "%.1f dB below the mean)", what, fabs (gpu[k] - ref[k]) / ref[k], k,
        n_bins, tol, ET_FFT_EPS, gpu[k], ref[k], 10.0 * log10 (mean / ref[k]));
  }
  return worst;
}

gdouble
et_complex_error (const gfloat * gpu, const gdouble * re, const gdouble * im,
    guint n_bins)
{
  gdouble num = 0.0, den = 0.0;
  guint k;

  for (k = 0; k < n_bins; k++) {
    gdouble dr = gpu[2 * k] - re[k], di = gpu[2 * k + 1] - im[k];

    if (!isfinite (gpu[2 * k]) || !isfinite (gpu[2 * k + 1]))
      return INFINITY;
    num += dr * dr + di * di;
    den += re[k] * re[k] + im[k] * im[k];
  }
  return sqrt (num / den);
}
