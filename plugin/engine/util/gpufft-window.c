/* Window coefficients, computed in double on the CPU. */
#include <math.h>
#include "gpufft.h"

typedef struct
{
  const gchar *scipy_name;
  guint n_terms;
  gdouble a[5];
} WindowDef;

/* Sum-of-cosines coefficients, exactly those of scipy.signal.windows. */
static const WindowDef windows[] = {
  [GPUFFT_WINDOW_RECTANGULAR] = {"boxcar", 1, {1.0}},
  [GPUFFT_WINDOW_HANN] = {"hann", 2, {0.5, 0.5}},
  [GPUFFT_WINDOW_HAMMING] = {"hamming", 2, {0.54, 0.46}},
  [GPUFFT_WINDOW_BLACKMAN] = {"blackman", 3, {0.42, 0.50, 0.08}},
  [GPUFFT_WINDOW_BLACKMAN_HARRIS] = {"blackmanharris", 4,
      {0.35875, 0.48829, 0.14128, 0.01168}},
  [GPUFFT_WINDOW_FLAT_TOP] = {"flattop", 5,
      {0.21557895, 0.41663158, 0.277263158, 0.083578947, 0.006947368}},
  [GPUFFT_WINDOW_HAMMING_GST] = {"general_hamming", 2, {0.53836, 0.46164}},
};

static const WindowDef *
window_def (GpufftWindow window)
{
  if ((guint) window >= G_N_ELEMENTS (windows))
    return NULL;
  return &windows[window];
}

const gchar *
gpufft_window_scipy_name (GpufftWindow window)
{
  const WindowDef *def = window_def (window);
  return def ? def->scipy_name : NULL;
}

/* Periodic (DFT-even) window: w[n] = sum_k (-1)^k a_k cos (2 pi k n / N),
 * which is scipy's general_cosine (N, a, sym=False). */
void
gpufft_window_fill (GpufftWindow window, guint n, gdouble * out)
{
  const WindowDef *def = window_def (window);
  guint i, k;

  if (!out)
    return;
  for (i = 0; i < n; i++) {
    gdouble acc = 0.0;

    if (!def) {
      out[i] = 1.0;
      continue;
    }
    for (k = 0; k < def->n_terms; k++) {
      /* Reduce the phase k*i mod n exactly in integers before scaling. */
      gdouble phase = 2.0 * G_PI * (gdouble) ((guint64) k * i % n) / n;
      acc += ((k & 1) ? -1.0 : 1.0) * def->a[k] * cos (phase);
    }
    out[i] = acc;
  }
}
