/* Bluestein's algorithm: the constant tables fft_any.comp uses to compute
 * a complex DFT of any length M through DFTs of a power-of-two length
 * L >= 2M - 1. Pure arithmetic in double (no Vulkan, no state).
 *
 * Layout of the table (complex float pairs, M + L of them):
 *   c[n] = e^{-pi i (n^2 mod 2M) / M}                      n < M (chirp)
 *   B[k] = (1/L) sum_n b[n] e^{-2 pi i n k / L}              k < L
 * with b[n] = conj (c[n]) for n < M, b[L-n] = conj (c[n]) for 0 < n < M, 0
 * elsewhere. Then DFT_M (z)_k = c[k] * IDFT'_L (DFT_L (z c) * B)_k, where
 * IDFT' is the inverse without the 1/L (it is in B). */
#ifndef __GPUFFT_BLUESTEIN_H__
#define __GPUFFT_BLUESTEIN_H__

#include <glib.h>

G_BEGIN_DECLS

/* The smallest power of two >= 2m - 1. */
guint gpufft_bluestein_length (guint m);

/* Fills out[2 * (m + l)] (re, im pairs) as above; l from
 * gpufft_bluestein_length (m). */
void gpufft_bluestein_fill (guint m, guint l, gfloat * out);

G_END_DECLS

#endif
