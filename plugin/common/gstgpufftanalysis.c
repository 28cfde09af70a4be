/* gst-gpufft: the analyser modes' tables (see the header). */
#include <math.h>
#include <string.h>

#include "gstgpufftanalysis.h"

gboolean
gst_gpu_fft_analysis_equal (const GstGpuFftAnalysis * a,
    const GstGpuFftAnalysis * b)
{
  return a->scale == b->scale && a->octave_fraction == b->octave_fraction
      && a->mel_bands == b->mel_bands && a->mel_scale == b->mel_scale
      && a->mel_norm == b->mel_norm && a->log_bands == b->log_bands
      && a->min_frequency == b->min_frequency
      && a->max_frequency == b->max_frequency
      && a->weighting == b->weighting && a->averaging == b->averaging
      && a->time_constant == b->time_constant && a->frames == b->frames
      && a->level == b->level;
}

void
gst_gpu_fft_analysis_tables_clear (GstGpuFftAnalysisTables * t)
{
  g_clear_pointer (&t->bands, gst_gpu_fft_bands_unref);
  g_clear_pointer (&t->gain, g_free);
  g_clear_pointer (&t->level, g_free);
  g_clear_pointer (&t->band_weights, g_free);
}

gboolean
gst_gpu_fft_analysis_configure (const GstGpuFftAnalysis * a,
    GpufftPlanConfig * c, GstGpuFftAnalysisTables * t, gchar ** why)
{
  guint n = c->fft_size, nb = n / 2 + 1, k, b, off;
  gdouble df = c->rate / n, ws = 0.0, ws2 = 0.0, *w;

  memset (t, 0, sizeof (*t));
  *why = NULL;
  c->averaging = a->averaging;
  c->time_constant = a->time_constant;
  c->frames_out = a->frames;

  w = g_new (gdouble, n);
  gpufft_window_fill (c->window, n, w);
  for (k = 0; k < n; k++) {
    ws += w[k];
    ws2 += w[k] * w[k];
  }
  g_free (w);

  if (a->weighting != GST_GPU_FFT_WEIGHTING_Z) {
    t->gain = g_new (gfloat, nb);
    gst_gpu_fft_bands_weighting_gains (a->weighting, c->rate, df, nb, t->gain);
    c->bin_gain = t->gain;
  }
  if (a->level) {
    t->level = g_new (gfloat, nb);
    for (k = 0; k < nb; k++) {
      gdouble e = (k == 0 || k == n / 2) ? 1.0 : 2.0;

      t->level[k] = (gfloat) (c->scaling == GPUFFT_SCALING_SPECTRUM ?
          2.0 * ws * ws / (n * ws2) : c->scaling == GPUFFT_SCALING_DENSITY ?
          2.0 * df : 2.0 * e / (n * ws2));
    }
    c->level_weights = t->level;
  }
  if (a->scale == GST_GPU_FFT_FREQUENCY_SCALE_LINEAR)
    return TRUE;

  {
    GstGpuFftBandSpec spec;

    memset (&spec, 0, sizeof (spec));
    spec.scale = a->scale;
    spec.fft_size = n;
    spec.rate = c->rate;
    spec.min_frequency = a->min_frequency;
    spec.max_frequency = a->max_frequency;
    spec.octave_fraction = a->octave_fraction;
    spec.mel_bands = a->mel_bands;
    spec.mel_scale = a->mel_scale;
    spec.mel_norm = a->mel_norm;
    spec.log_bands = a->log_bands;
    t->bands = gst_gpu_fft_bands_new (&spec, why);
  }
  if (!t->bands)
    return FALSE;
  if (t->bands->n_bands > GPUFFT_MAX_BANDS) {
    *why = g_strdup_printf ("%u bands: at most %u", t->bands->n_bands,
        GPUFFT_MAX_BANDS);
    return FALSE;
  }
  t->band_weights = g_new (gfloat, MAX (1, t->bands->n_weights));
  for (b = 0, off = 0; b < t->bands->n_bands; off += t->bands->bins[b], b++) {
    gdouble f;

    if (a->scale == GST_GPU_FFT_FREQUENCY_SCALE_MEL)
      f = c->scaling == GPUFFT_SCALING_SPECTRUM ? 0.5 : 1.0;
    else if (c->scaling == GPUFFT_SCALING_SPECTRUM)
      f = ws * ws / (n * ws2);
    else if (c->scaling == GPUFFT_SCALING_DENSITY)
      f = df / (t->bands->upper[b] - t->bands->lower[b]);
    else
      f = 1.0;
    for (k = 0; k < t->bands->bins[b]; k++)
      t->band_weights[off + k] = (gfloat) (t->bands->weights[off + k] * f);
  }
  c->n_bands = t->bands->n_bands;
  c->band_first = t->bands->first;
  c->band_bins = t->bands->bins;
  c->band_weights = t->band_weights;
  return TRUE;
}
