/* The host plan's FFT (gpufft-plan-host.c): the DFT of real frames of N =
 * 2M points in double, X_0 .. X_M, through a complex FFT of M points (the
 * even and odd samples as its real and imaginary parts) and the real
 * transform's post-processing.
 *
 * Where M is a power of two the complex FFT is an iterative radix-2 one;
 * any other M goes through Bluestein's algorithm (a chirp product and a
 * convolution by radix-2 FFTs of L >= 2M - 1 points). Either is computed
 * for up to GPUFFT_HOST_FFT_LANES frames at once, one frame per lane of
 * the CPU's vectors (AVX2 where the CPU has it, else two SSE2 or scalar
 * operations per step): the same operations in the same order as for one
 * frame, so each frame's result does not depend on the frames beside it
 * (bit for bit: the engine is compiled with no multiply-add contracted,
 * -ffp-contract=off, plugin/engine/meson.build). Twiddles and chirps come
 * from exact angles.
 *
 * Layout: frames in x, frame u at x + u * N (N doubles, windowed by the
 * caller); results in out, frame u's X_k at out + u * 2 * (M + 1) as (re,
 * im) pairs, k = 0 .. M (bins 0 and M real), and their powers |X_k|^2 (re
 * * re + im * im, computed so, bit for bit) in power, frame u's at power +
 * u * (M + 1). out and power hold GPUFFT_HOST_FFT_LANES rows: those past
 * n_frames may be overwritten with values of no use.
 *
 * Threading: a GpufftHostFft holds its work memory: one thread at a time
 * uses it. */
#ifndef __GPUFFT_HOST_FFT_H__
#define __GPUFFT_HOST_FFT_H__

#include <glib.h>

G_BEGIN_DECLS
#define GPUFFT_HOST_FFT_LANES 4
typedef struct _GpufftHostFft GpufftHostFft;

/* The FFT of real frames of n points (n even, 2 .. 65536); NULL where its
 * tables cannot be allocated. */
GpufftHostFft *gpufft_host_fft_new (guint n);

void gpufft_host_fft_free (GpufftHostFft * fft);

/* Transforms n_frames frames (1 .. GPUFFT_HOST_FFT_LANES) of x into out
 * and their powers into power (layouts above; either may be NULL, not
 * both). x is not changed. */
void gpufft_host_fft_real (GpufftHostFft * fft, const gdouble * x,
    guint n_frames, gdouble * out, gdouble * power);

/* The same for frames of floats read where they lie: frame u's sample t is
 * src[u][t * stride], taken as ((double) v + 0.0) * win[t] (win: N
 * values), as though a caller had converted and windowed them into x:
 * the results are bit for bit gpufft_host_fft_real's on that x. */
void gpufft_host_fft_real_f32 (GpufftHostFft * fft, const gfloat * const *src,
    gsize stride, const gdouble * win, guint n_frames, gdouble * out,
    gdouble * power);

G_END_DECLS
#endif /* __GPUFFT_HOST_FFT_H__ */
