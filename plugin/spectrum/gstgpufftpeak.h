/* GstGpuFftBase: sub-bin frequency refinement of a spectral peak, exact for
 * the analysis window. Pure functions, no GStreamer object.
 *
 * Model. The windows are cosine sums, w[n] = sum_k (-1)^k a_k cos (2 pi k n
 * / N) (periodic form, coefficients as in gpufft.h), so the window's
 * transform at a fractional bin offset d has a closed form, a sum of shifted
 * Dirichlet kernels D(x) = sum_n exp (-2 pi i x n / N):
 *   W(d) = a_0 D(d) + sum_{k>=1} (-1)^k a_k / 2 (D(d - k) + D(d + k)).
 * A real tone at f bins (amplitude A, phase changing from frame to frame)
 * gives the mean power, bin j (before the x2 of one-sided spectra):
 *   P_j = A^2/4 (|W(j - f)|^2 + |W(j + f)|^2) / norm
 * where the second term is the mirror image at -f (and, W being N-periodic,
 * at N - f): it matters near DC and Nyquist only. The two images are added
 * as powers (their phases differ from frame to frame).
 *
 * Refinement. With k0 the peak bin, the ratio of the larger neighbour's
 * power to the peak's is matched to the model's ratio
 * P_{k0+s}(k0+d) / P_{k0}(k0+d), s = +-1, for d between 0 and s/2 (the
 * ratio rises monotonically with |d| there); solved by the Illinois
 * (false-position) method to 1e-10 bin. No approximation of the window
 * shape is made: away from DC/Nyquist a clean tone is located to about
 * 1e-7 bin (hann, blackman, blackman-harris), 1e-4 (rectangular, hamming:
 * their slowly decaying side lobes carry a little of the mirror image).
 * The one-sided doubling (all bins but 0 and N/2) is undone first.
 *
 * Near DC / Nyquist (when the mirror image's response at any of the three
 * bins is above -60 dB of the direct one) the images interfere
 * coherently, and adding their powers is not enough (0.2 bin error at
 * bin 1). There a stationary tone seen by J frames `hop` samples apart
 * has the group mean power
 *   A^2/4 (|W(k-f)|^2 + |W(k+f)|^2 + 2 Re (zeta W(k-f) W*(k+f)))
 * with |zeta| = |mean_j exp (4 pi i f j hop / N)| known and its phase
 * (the tone's) unknown: f is found by fitting amplitude and phase to the
 * three bins for each candidate f (relative least squares) and keeping
 * the best f within +-1.5 bins of k0 (+-0.7 rectangular). Clean tones:
 * about 1e-7 bin (hann) down to bin 1; at 40 dB SNR below 1e-3 bin. The
 * flat-top window's 10-bin main lobe leaves the tone and its image
 * indistinguishable below about 1.5 bins: no guarantee there. At bins 0
 * and N/2 only two bins carry information: the incoherent ratio is used.
 *
 * Level. The returned power is what the peak bin would read if the tone
 * sat on the centre of a bin away from DC/Nyquist: the fitted amplitude
 * times |W(0)|^2 (= measured power x |W(0)|^2 / model at the refined
 * offset), i.e. corrected for the window's scalloping loss (and, near the
 * edges, for the image). With spectrum scaling a full-scale sine thus
 * reads 0 dB between bins too.
 */
#ifndef __GST_GPU_FFT_PEAK_H__
#define __GST_GPU_FFT_PEAK_H__

#include <glib.h>
#include "gpufft.h"

G_BEGIN_DECLS

/* The cosine-sum coefficients a_k of a window; returns their count. */
guint gst_gpu_fft_peak_window_coefficients (GpufftWindow window,
    const gdouble ** coefficients);

/* Refines the peak at bin `bin` of an fft_size-point spectrum from the mean
 * (one-sided, scaled, linear) power at bin-1, bin, bin+1 (`power`; a
 * neighbour outside 0..fft_size/2 is ignored), averaged over n_frames
 * frames hop samples apart (0, 0: unknown; no coherent model then). On
 * success sets *refined_bin (fractional bin in [0, fft_size/2]) and
 * *peak_power (the on-bin-centre equivalent power, same scaling) and
 * returns TRUE. Returns FALSE, leaving them unset, when a power is not
 * finite or the peak's is not positive. */
gboolean gst_gpu_fft_peak_refine (GpufftWindow window, guint fft_size,
    guint hop, guint n_frames, guint bin, const gdouble power[3],
    gdouble * refined_bin, gdouble * peak_power);

G_END_DECLS

#endif /* __GST_GPU_FFT_PEAK_H__ */
