/* gst-gpufft: what the analyser modes (gpufftspectrum's frequency-scale,
 * weighting, averaging, message-frames properties; gpufftspectrogram's
 * octave axis) add to a plan configuration: the engine's bin gains, level
 * weights and band rows, computed in double on the calling element's
 * streaming thread when a plan is made (see gstgpufftbands.h for the
 * definitions and docs/gpufftspectrum.md for the formulas):
 *   gain[k]    10^(W(f_k)/10), W the A or C weighting (1 for Z)
 *   level      10 log10 (2 sum_k D_k df), D_k the one-sided power density
 *              of the weighted bins (dBFS: a full-scale sine reads 0 dB)
 *   octave/log scaling spectrum: 10 log10 (2 sum_k frac_k D_k df)
 *              density: 10 log10 (sum_k frac_k D_k df / band width)
 *              raw: 10 log10 (sum_k frac_k |X_k|^2)
 *   mel        10 log10 (sum_k fb[m,k] P_k), P_k in the chosen scaling
 * (the spectrum scaling's +10 log10 2 the element adds to every value is
 * taken out of the band weights where the formula has no factor 2). */
#ifndef __GST_GPU_FFT_ANALYSIS_H__
#define __GST_GPU_FFT_ANALYSIS_H__

#include "gpufft.h"
#include "gstgpufftbands.h"

G_BEGIN_DECLS

typedef struct
{
  GstGpuFftFrequencyScale scale;
  guint octave_fraction;
  guint mel_bands;
  GstGpuFftMelScale mel_scale;
  GstGpuFftMelNorm mel_norm;
  guint log_bands;
  gdouble min_frequency, max_frequency;
  GstGpuFftWeighting weighting;
  GpufftAveraging averaging;
  gdouble time_constant;        /* s */
  gboolean frames;
  gboolean level;
} GstGpuFftAnalysis;

/* The arrays a plan configuration points to, until the plan is made. */
typedef struct
{
  GstGpuFftBands *bands;        /* NULL: linear */
  gfloat *gain, *level, *band_weights;
} GstGpuFftAnalysisTables;

gboolean gst_gpu_fft_analysis_equal (const GstGpuFftAnalysis * a,
    const GstGpuFftAnalysis * b);

/* Fills the analysis part of c (fft_size, rate, window, scaling already
 * set) with arrays owned by t. FALSE with *why when the bands cannot be
 * made. */
gboolean gst_gpu_fft_analysis_configure (const GstGpuFftAnalysis * a,
    GpufftPlanConfig * c, GstGpuFftAnalysisTables * t, gchar ** why);
void gst_gpu_fft_analysis_tables_clear (GstGpuFftAnalysisTables * t);

G_END_DECLS

#endif /* __GST_GPU_FFT_ANALYSIS_H__ */
