/* The engine's host code in vector lanes (the host plan's FFT, its dB
 * rows and sums, the loudness blocks on the host): the attributes it uses.
 *
 * GPUFFT_AVX2_CLONES on a function: an AVX2 clone of it beside the plain
 * one, chosen at load time by the CPU (target_clones, which needs ifunc:
 * GCC on glibc for x86-64; elsewhere nothing). GPUFFT_ALWAYS_INLINE: a
 * function inlined into each caller, so that each clone of a caller has
 * its own copy in its own instruction set.
 *
 * Values are the same in every clone: the engine contracts no multiply-add
 * (-ffp-contract=off, plugin/engine/meson.build). */
#ifndef __GPUFFT_SIMD_H__
#define __GPUFFT_SIMD_H__

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) \
    && defined(__ELF__) && defined(__GLIBC__)
#define GPUFFT_AVX2_CLONES __attribute__ ((target_clones ("avx2", "default")))
#else
#define GPUFFT_AVX2_CLONES
#endif

#define GPUFFT_ALWAYS_INLINE __attribute__ ((always_inline))

#endif /* __GPUFFT_SIMD_H__ */
