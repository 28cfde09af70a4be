// Building blocks of the CPU devices' kernels (fft_cpu.comp): one
// subgroup of L = 8 lanes works on one frame. On a CPU Vulkan device
// (Mesa's lavapipe) the 8 lanes are the 8 floats of one SIMD register, so
// everything here is chosen for what lavapipe compiles cheaply:
//  - arrays indexed only by constants (after unrolling) live in registers;
//    any other index makes a private array a gather/scatter per lane;
//  - gl_SubgroupInvocationID is a constant vector <0..7>, so a value chosen
//    per lane from constants (lane_sel) folds to one vector constant, and a
//    shuffle whose index is computed from it is one permute instruction;
//  - both sides of every `if` run (under a mask): alternatives are chosen
//    by specialization constants, never at run time.
// Needs common.glsl (cmul, mul_mi).

#extension GL_KHR_shader_subgroup_shuffle : require

const uint L = 8u;              // lanes (the subgroup)

uint lane;                      // gl_SubgroupInvocationID, set by main()

// sin and cos of x in [0, pi/4], in double: Taylor series to x^13 and
// x^14 (error below 2e-14), plain arithmetic.
dvec2 cos_sin (double x)
{
  double x2 = x * x;
  double s = x * (1.0LF + x2 * (-1.0LF / 6.0LF + x2 * (1.0LF / 120.0LF +
              x2 * (-1.0LF / 5040.0LF + x2 * (1.0LF / 362880.0LF +
                      x2 * (-1.0LF / 39916800.0LF +
                          x2 * (1.0LF / 6227020800.0LF)))))));
  double c = 1.0LF + x2 * (-0.5LF + x2 * (1.0LF / 24.0LF + x2 * (-1.0LF /
              720.0LF + x2 * (1.0LF / 40320.0LF + x2 * (-1.0LF / 3628800.0LF +
                      x2 * (1.0LF / 479001600.0LF + x2 * (-1.0LF /
                              87178291200.0LF)))))));
  return dvec2 (c, s);
}

// e^{-2 pi i m / 2^lg}, correctly rounded to float. Only ever called with
// constants: the compiler folds it (the driver: glslc leaves these modules
// unoptimized, shaders/meson.build). The angle is reduced to the first
// octant with exact integer steps (theta = q pi/4 + a, a <= pi/4) and its
// sine and cosine computed in double by plain arithmetic, so that the
// result is the same on every driver (GLSL's sin and cos are approximations
// whose precision is the driver's: NVIDIA's gave 4.4e-7 relative error at
// N = 4096 where the limit is 3e-7). Selects, no branches: the driver folds
// thousands of these per module.
vec2 twc (uint m, uint lg)
{
  uint up = lg < 3u ? 3u - lg : 0u;     // (at least eighths of a turn)
  m = (m & ((1u << lg) - 1u)) << up;
  lg += up;
  uint o = 1u << (lg - 3u);     // one octant
  uint q = m >> (lg - 3u);      // octant index
  double a = 0.785398163397448309615660845819876LF *
      (double (m & (o - 1u)) / double (o));
  // e^{i theta}: q even: i^(q/2) e^{i a}; q odd: i^((q-1)/2) e^{i (pi/2 - b)},
  // b = pi/4 - a
  dvec2 cs = cos_sin ((q & 1u) == 0u ? a :
      0.785398163397448309615660845819876LF - a);
  vec2 e = (q & 1u) == 0u ? vec2 (cs) : vec2 (cs.yx);
  e = (q & 2u) != 0u ? vec2 (-e.y, e.x) : e;
  e = (q & 4u) != 0u ? -e : e;
  return vec2 (e.x, -e.y);
}

uint brev (uint x, uint lg)
{
  return lg == 0u ? 0u : bitfieldReverse (x) >> (32u - lg);
}

// In-place decimation-in-time FFT of 2^LG points held in a[] in
// bit-reversed order; natural order out. Unrolled: constant indices and
// constant twiddles.
#define FFT_BR(a, LG) {                                                    \
    [[unroll]] for (uint s_ = 0u; s_ < (LG); s_++) {                       \
      [[unroll]] for (uint i_ = 0u; i_ < (1u << (LG)) / 2u; i_++) {        \
        uint h_ = 1u << s_;                                                \
        uint t_ = i_ & (h_ - 1u);                                          \
        uint lo_ = ((i_ >> s_) << (s_ + 1u)) + t_;                         \
        vec2 u_ = a[lo_];                                                  \
        vec2 v_ = a[lo_ + h_];                                             \
        if (t_ != 0u)                                                      \
          v_ = cmul (v_, twc (t_, s_ + 1u));                               \
        a[lo_] = u_ + v_;                                                  \
        a[lo_ + h_] = u_ - v_;                                             \
      }                                                                    \
    }                                                                      \
  }

// v<lane>: a per-lane choice among eight values (constants fold to one
// vector constant).
vec2 lane_sel (vec2 v0, vec2 v1, vec2 v2, vec2 v3, vec2 v4, vec2 v5, vec2 v6,
    vec2 v7)
{
  return lane < 4u ? (lane < 2u ? (lane == 0u ? v0 : v1) :
      (lane == 2u ? v2 : v3)) :
      (lane < 6u ? (lane == 4u ? v4 : v5) : (lane == 6u ? v6 : v7));
}

uint rev3 (uint l)
{
  return ((l & 1u) << 2) | (l & 2u) | (l >> 2);
}

// W_{2^lg}^{f(l)} per lane, f(l) = a l + b (constants a, b).
vec2 tw_lanes (uint a, uint b, uint lg)
{
  return lane_sel (twc (b, lg), twc (a + b, lg), twc (2u * a + b, lg),
      twc (3u * a + b, lg), twc (4u * a + b, lg), twc (5u * a + b, lg),
      twc (6u * a + b, lg), twc (7u * a + b, lg));
}

// W_{2^lg}^{a rev3(l) + b} per lane.
vec2 tw_rev_lanes (uint a, uint b, uint lg)
{
  return lane_sel (twc (b, lg), twc (4u * a + b, lg), twc (2u * a + b, lg),
      twc (6u * a + b, lg), twc (a + b, lg), twc (5u * a + b, lg),
      twc (3u * a + b, lg), twc (7u * a + b, lg));
}

vec2 shuffle_xor2 (vec2 a, uint m)
{
  return vec2 (subgroupShuffleXor (a.x, m), subgroupShuffleXor (a.y, m));
}

vec2 shuffle2 (vec2 a, uint from)
{
  return vec2 (subgroupShuffle (a.x, from), subgroupShuffle (a.y, from));
}

// The 8-point DFT across the lanes (decimation in frequency): lane l holds
// a_l in and A[rev3 (l)] out, A[q] = sum_l a_l e^{-2 pi i l q / 8}.
vec2 lanes_dft8 (vec2 a)
{
  const vec2 one = vec2 (1.0, 0.0);
  vec2 p = shuffle_xor2 (a, 4u);
  vec2 w = lane_sel (one, one, one, one, one, twc (1u, 3u), twc (2u, 3u),
      twc (3u, 3u));
  a = (lane & 4u) == 0u ? a + p : cmul (p - a, w);
  p = shuffle_xor2 (a, 2u);
  w = lane_sel (one, one, one, twc (1u, 2u), one, one, one, twc (1u, 2u));
  a = (lane & 2u) == 0u ? a + p : cmul (p - a, w);
  p = shuffle_xor2 (a, 1u);
  return (lane & 1u) == 0u ? a + p : p - a;
}
