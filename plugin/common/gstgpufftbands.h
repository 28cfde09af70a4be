/* gst-gpufft: frequency bands and weightings, as the published
 * definitions give them. Pure math (GLib only, no GStreamer object, no
 * device): it turns a frequency scale into the engine's sparse band rows
 * (gpufft.h: band b = sum_j w_bj p[first_b + j]) and a weighting into the
 * engine's bin gains. Thread-safe; a GstGpuFftBands is immutable once made
 * and reference counted (messages of several intervals share one).
 *
 * Bins: bin k of an N-point FFT at rate fs is at f_k = k fs / N and
 * covers [f_k - df/2, f_k + df/2], df = fs / N.
 *
 * Octave (IEC 61260-1:2014, base ten): G = 10^(3/10), f_r = 1000 Hz; for
 *   fraction b the exact mid-band frequencies are f_m = f_r G^(x/b) (b
 *   odd) or f_r G^((2x+1)/(2b)) (b even), edges f_m G^(-1/(2b)) and
 *   f_m G^(1/(2b)). Nominal: ISO 266's R10 series for b = 1 and 3; for
 *   other b the exact value rounded to three significant digits when it
 *   starts with 1..4, to two when it starts with 5..9 (IEC 61260-1 Annex E;
 *   b = 2, 6, 12 and 24: 1/2-octave bands are centred on 1000 G^(+-1/4),
 *   841.4 and 1188.5 Hz, nominal 840 and 1190).
 * Log: n bands with edges evenly spaced in log frequency from f_lo to f_hi,
 *   centres the geometric means of their edges.
 *   Both: a band's bins are those its edges overlap, each weighted by the
 *   fraction of the bin's width inside the band ("edge bins split in
 *   proportion").
 * Mel: librosa.filters.mel (n_fft, n_mels, fmin, fmax, htk, norm): mel
 *   points linear in mel from mel(fmin) to mel(fmax), n_mels + 2 of them,
 *   triangles max (0, min ((f - f_m-1) / (f_m - f_m-1), (f_m+1 - f) /
 *   (f_m+1 - f_m))) at the bin frequencies; slaney norm multiplies band m
 *   by 2 / (f_m+1 - f_m-1). Slaney scale: f / (200/3) below 1 kHz, 15 +
 *   ln (f / 1000) / (ln 6.4 / 27) above; HTK: 2595 log10 (1 + f / 700)
 *   (torchaudio.functional.melscale_fbanks with mel_scale="htk",
 *   norm=None is the same filterbank).
 *
 * Weighting (IEC 61672-1:2013, closed forms, f1 = 20.598997, f2 =
 *   107.65265, f3 = 737.86223, f4 = 12194.217 Hz):
 *   C(f) = 20 log10 (f4^2 f^2 / ((f^2 + f1^2) (f^2 + f4^2))) - C(1000)
 *   A(f) = 20 log10 (f4^2 f^4 / ((f^2 + f1^2) sqrt (f^2 + f2^2)
 *          sqrt (f^2 + f3^2) (f^2 + f4^2))) - A(1000)
 *   so both are exactly 0 dB at 1 kHz; a bin's power gain is 10^(W/10)
 *   (0 at DC).
 * K weighting (ITU-R BS.1770-4): the pre-filter (a high shelf: f0 =
 *   1681.974450955533 Hz, gain 3.999843853973347 dB, Q =
 *   0.7071752369554196, its zeros' gain the shelf's to the power
 *   0.4996667741545416) then the RLB high-pass (f0 = 38.13547087602444 Hz,
 *   Q = 0.5003270373238773), each a biquad from the bilinear transform
 *   with K = tan (pi f0 / fs), so the stream's own rate gets its own
 *   coefficients (at 48 kHz BS.1770's Tables 1 and 2, to 1e-15);
 *   K(f) = 10 log10 |H_pre H_rlb (e^(2 pi i f / fs))|^2 - 0.691, the
 *   constant of BS.1770's loudness formula, so that 997 Hz reads 0 dB. */
#ifndef __GST_GPU_FFT_BANDS_H__
#define __GST_GPU_FFT_BANDS_H__

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  GST_GPU_FFT_FREQUENCY_SCALE_LINEAR,
  GST_GPU_FFT_FREQUENCY_SCALE_OCTAVE,
  GST_GPU_FFT_FREQUENCY_SCALE_MEL,
  GST_GPU_FFT_FREQUENCY_SCALE_LOG
} GstGpuFftFrequencyScale;

typedef enum
{
  GST_GPU_FFT_WEIGHTING_Z,
  GST_GPU_FFT_WEIGHTING_A,
  GST_GPU_FFT_WEIGHTING_C,
  GST_GPU_FFT_WEIGHTING_K
} GstGpuFftWeighting;

typedef enum
{
  GST_GPU_FFT_MEL_SCALE_SLANEY,
  GST_GPU_FFT_MEL_SCALE_HTK
} GstGpuFftMelScale;

typedef enum
{
  GST_GPU_FFT_MEL_NORM_NONE,
  GST_GPU_FFT_MEL_NORM_SLANEY
} GstGpuFftMelNorm;

/* What a band layout is made from. */
typedef struct
{
  GstGpuFftFrequencyScale scale;
  guint fft_size;
  gdouble rate;
  gdouble min_frequency;        /* Hz; octave and log: 0 means 20 Hz */
  gdouble max_frequency;        /* Hz; 0 (or above): rate / 2 */
  guint octave_fraction;        /* 1, 2, 3, 6, 12, 24 */
  guint mel_bands;
  GstGpuFftMelScale mel_scale;
  GstGpuFftMelNorm mel_norm;
  guint log_bands;
} GstGpuFftBandSpec;

typedef struct
{
  guint n_bands;
  gdouble *centre, *lower, *upper;      /* [n_bands] Hz */
  gdouble *nominal;             /* octave: [n_bands] nominal mid-band; else
                                 * NULL */
  /* the first band at least two bins wide (the bands below it are narrower
   * than the FFT resolves); n_bands when none is */
  guint resolved_from;
  /* sparse rows over the bins: band b covers bins first[b] ..
   * first[b] + bins[b] - 1 with weights[offset of b ..] (the fractions of
   * the bins inside the band, or the mel filter) */
  guint *first, *bins;
  gdouble *weights;
  guint n_weights;
} GstGpuFftBands;

/* NULL (and *why: a message naming what is valid) when the spec gives no
 * band. */
GstGpuFftBands *gst_gpu_fft_bands_new (const GstGpuFftBandSpec * spec,
    gchar ** why);
GstGpuFftBands *gst_gpu_fft_bands_ref (GstGpuFftBands * bands);
void gst_gpu_fft_bands_unref (GstGpuFftBands * bands);

/* The weighting in dB at f Hz for a stream of `rate` Hz (-inf at 0 for A,
 * C and K; 0 for Z; only K depends on the rate). */
gdouble gst_gpu_fft_bands_weighting_db (GstGpuFftWeighting w, gdouble f,
    gdouble rate);

/* gains[k] = 10^(W(k df) / 10), the power gains of bins 0 .. n - 1 */
void gst_gpu_fft_bands_weighting_gains (GstGpuFftWeighting w, gdouble rate,
    gdouble df, guint n, gfloat * gains);

/* K weighting's two biquads at `rate` Hz: b[i][0..2], a[i][0..2] (a[i][0]
 * = 1) of the pre-filter (i = 0) and the RLB high-pass (i = 1), y[n] =
 * b0 x[n] + b1 x[n-1] + b2 x[n-2] - a1 y[n-1] - a2 y[n-2]. */
void gst_gpu_fft_bands_k_filter (gdouble rate, gdouble b[2][3],
    gdouble a[2][3]);

/* Mel scale: Hz to mel and back. */
gdouble gst_gpu_fft_bands_hz_to_mel (GstGpuFftMelScale scale, gdouble hz);
gdouble gst_gpu_fft_bands_mel_to_hz (GstGpuFftMelScale scale, gdouble mel);

/* TRUE for the fractions IEC 61260-1 bands are defined for here. */
gboolean gst_gpu_fft_bands_octave_fraction_valid (guint fraction);

G_END_DECLS

#endif /* __GST_GPU_FFT_BANDS_H__ */
