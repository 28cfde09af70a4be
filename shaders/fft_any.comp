#version 450
// Fused analysis kernel for every even FFT size N that is not a power of
// two (those run in fft.comp): the same work, inputs and outputs as
// fft.comp MODE 0 (load with format conversion and downmix, window, real
// FFT of N = 2M points, scaled one-sided power, sum over the frames of a
// chunk into one partial row per (chunk, output channel), NaN/Inf frames
// left out, the chunk's last frame's complex spectrum on request).
//
// The complex FFT of M points runs as Stockham passes over a work array of
// 2L complex values (two halves, ping-pong), in shared memory when it fits
// (SHARED = 1) or else in this workgroup's region of a scratch buffer:
//  - M = 2^a 3^b 5^c 7^d: L = M, mixed-radix passes (radices 8, 4, 2, 3,
//    5, 7, packed 4 bits each in RADICES_LO/HI, N_PASSES of them);
//    twiddles e^{-2 pi i m / M} = tw[2m].
//  - any other M: Bluestein's algorithm. L = the power of two >= 2M - 1;
//    Z_k = c_k * IDFT_L (DFT_L (z_n c_n) * B)_k with the chirp
//    c_n = e^{-pi i n^2 / M} and B = DFT_L (conj chirp, wrapped) / L, both
//    computed in double on the host (binding 8: c[0..M), then B[0..L)); the
//    inverse DFT as conj (DFT (conj)); twiddles e^{-2 pi i m / L} from
//    binding 7.
// One workgroup per (chunk, output channel); its frames one after another.
// Every loop over elements is strided by the workgroup size WG.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "common.glsl"

layout (constant_id = 0) const uint M = 500;    // N / 2
layout (constant_id = 1) const uint WG = 64;
layout (constant_id = 2) const uint FORMAT = 3; // see load.glsl
layout (constant_id = 3) const uint COMPLEX_OUT = 0;
layout (constant_id = 4) const uint L = 500;    // length of the complex FFTs
layout (constant_id = 5) const uint BLUESTEIN = 0;
layout (constant_id = 6) const uint RADICES_LO = 0;     // passes 0..7
layout (constant_id = 7) const uint RADICES_HI = 0;     // passes 8..15
layout (constant_id = 8) const uint N_PASSES = 0;
layout (constant_id = 9) const uint SHARED = 1;

layout (local_size_x_id = 1) in;

const uint NB = M + 1u;         // one-sided bins
const uint RS = NB + 1u;        // partial row: NB power sums + frames used

layout (std430, binding = 0) readonly buffer Input { uint inw[]; };
layout (std430, binding = 1) readonly buffer Window { vec2 win2[]; };      // pairs
layout (std430, binding = 2) readonly buffer Twiddles { vec2 tw[]; };   // e^{-2 pi i m / N}
layout (std430, binding = 3) readonly buffer Chunks { uvec4 chunks[]; };
layout (std430, binding = 4) buffer Partial { float partial[]; };
layout (std430, binding = 5) writeonly buffer ComplexOut { vec2 cplx[]; };
layout (std430, binding = 6) coherent buffer Scratch { vec2 scr[]; };
layout (std430, binding = 7) readonly buffer TwiddlesL { vec2 twl[]; };  // e^{-2 pi i m / L}
layout (std430, binding = 8) readonly buffer Chirp { vec2 chirp[]; };    // c[M], then B[L]

layout (push_constant) uniform Params
{
  uint sstride;
  uint cstride;
  uint in_channels;
  uint hop;
  uint downmix;
  uint out_channels;
  float scale;
  float inv_channels;
  uint chunk_base;              // first chunk of this dispatch
  float edge;                   // power factor of bins 0 and N/2 (the others: 2)
} pc;

shared vec2 sm[SHARED != 0u ? 2u * L : 1u];
shared uint bad_flag;
uint sbase;                     // this workgroup's scratch region

#include "load.glsl"

vec2 ld (uint i)
{
  return SHARED != 0u ? sm[i] : scr[sbase + i];
}

void st (uint i, vec2 v)
{
  if (SHARED != 0u)
    sm[i] = v;
  else
    scr[sbase + i] = v;
}

void sync ()
{
  if (SHARED == 0u)
    memoryBarrierBuffer ();
  barrier ();
}

vec2 conj2 (vec2 a)
{
  return vec2 (a.x, -a.y);
}

// e^{-2 pi i m / L}, m < L
vec2 twid_l (uint m)
{
  return BLUESTEIN != 0u ? twl[m] : tw[2u * m];
}

// y_k = sum_r a_r e^{-2 pi i r k / R}, R = 3, 5 or 7 (cos, -sin tables).
const float C3[3] = float[3] (1.0, -0.5, -0.5);
const float S3[3] = float[3] (0.0, -0.86602540378443865, 0.86602540378443865);
const float C5[5] = float[5] (1.0, 0.30901699437494742, -0.80901699437494742,
    -0.80901699437494742, 0.30901699437494742);
const float S5[5] = float[5] (0.0, -0.95105651629515357, -0.58778525229247313,
    0.58778525229247313, 0.95105651629515357);
const float C7[7] = float[7] (1.0, 0.62348980185873353, -0.22252093395631440,
    -0.90096886790241913, -0.90096886790241913, -0.22252093395631440,
    0.62348980185873353);
const float S7[7] = float[7] (0.0, -0.78183148246802981, -0.97492791218182361,
    -0.43388373911755812, 0.43388373911755812, 0.97492791218182361,
    0.78183148246802981);

// In-place DFT of RR (3, 5 or 7) points: RR is a constant at each use, so
// the loops unroll and a[] stays in registers.
#define DFT_ODD(a, RR, CT, ST) {                                        \
    vec2 y_[RR];                                                        \
    [[unroll]] for (uint k_ = 0u; k_ < RR; k_++) {                      \
      vec2 acc_ = a[0];                                                 \
      [[unroll]] for (uint r_ = 1u; r_ < RR; r_++) {                    \
        uint m_ = (r_ * k_) % RR;                                       \
        acc_ += cmul (a[r_], vec2 (CT[m_], ST[m_]));                    \
      }                                                                 \
      y_[k_] = acc_;                                                    \
    }                                                                   \
    [[unroll]] for (uint k_ = 0u; k_ < RR; k_++)                        \
      a[k_] = y_[k_];                                                   \
  }

uint radix_of (uint p)
{
  uint word = p < 8u ? RADICES_LO : RADICES_HI;
  return (word >> (4u * (p & 7u))) & 15u;
}

// One radix-RR Stockham pass from half src to half dst (RR constant: the
// element loops unroll, a[] stays in registers): butterfly j = t, t + WG,
// ... of sub-transform size Ns; DFT is the in-place RR-point DFT of a[].
#define PASS(RR, DFT) {                                                      \
    uint q_ = L / RR;                                                   \
    for (uint j = t; j < q_; j += WG) {                                 \
      uint k = j % Ns;                                                  \
      vec2 a[RR];                                                       \
      [[unroll]] for (uint r = 0u; r < RR; r++)                         \
        a[r] = ld (src + j + r * q_);                                   \
      if (Ns > 1u) {                                                    \
        uint step = k * (L / (Ns * RR));                                \
        [[unroll]] for (uint r = 1u; r < RR; r++)                       \
          a[r] = cmul (a[r], twid_l (r * step));                        \
      }                                                                 \
      DFT;                                                              \
      uint o = (j - k) * RR + k;                                        \
      [[unroll]] for (uint r = 0u; r < RR; r++)                         \
        st (dst + o + r * Ns, a[r]);                                    \
    }                                                                   \
  }

// Complex DFT of L points from half `src` of the work array (natural
// order); returns the half that holds the result (natural order). Radices
// as packed, or all 4 (then one 2) for the power-of-two L of Bluestein.
uint fft_l (uint src, uint t)
{
  uint Ns = 1u;
  uint p = 0u;
  while (Ns < L) {
    uint R;
    if (BLUESTEIN != 0u)
      R = (L / Ns) % 8u == 0u ? 8u : (L / Ns) % 4u == 0u ? 4u : 2u;
    else
      R = radix_of (p);
    uint dst = L - src;         // the other half (src is 0 or L)
    if (R == 8u)
      PASS (8u, dft8 (a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]))
    else if (R == 4u)
      PASS (4u, dft4 (a[0], a[1], a[2], a[3]))
    else if (R == 2u)
      PASS (2u, dft2 (a[0], a[1]))
    else if (R == 3u)
      PASS (3u, DFT_ODD (a, 3u, C3, S3))
    else if (R == 5u)
      PASS (5u, DFT_ODD (a, 5u, C5, S5))
    else
      PASS (7u, DFT_ODD (a, 7u, C7, S7))
    sync ();
    src = dst;
    Ns *= R;
    p++;
  }
  return src;
}

// Z_k of the frame's complex M-point DFT, from the half `res` the FFT left.
vec2 z_at (uint res, uint k)
{
  if (BLUESTEIN == 0u)
    return ld (res + k);
  return cmul (conj2 (ld (res + k)), chirp[k]);
}

void main ()
{
  uint t = gl_LocalInvocationID.x;
  uint chunk = pc.chunk_base + gl_WorkGroupID.x;
  uint ch = gl_WorkGroupID.y;
  uvec4 info = chunks[chunk];
  uint first = info.x;
  uint count = info.y;
  uint row = (chunk * pc.out_channels + ch) * RS;
  sbase = (gl_WorkGroupID.x * pc.out_channels + ch) * 2u * L;

  if (count == 0u)
    return;                     // (the whole workgroup)
  // (each invocation zeroes and sums the same bins: k = t mod WG, and
  // invocation 0 the Nyquist bin)
  for (uint k = t; k < M; k += WG)
    partial[row + k] = 0.0;
  if (t == 0u)
    partial[row + M] = 0.0;
  float used = 0.0;
  float s = sqrt (pc.scale) * POWER_SUM_SCALE_SQRT;     // see common.glsl

  for (uint f = 0u; f < count; f++) {
    uint start = (first + f) * pc.hop;
    uint plane = pc.downmix != 0u ? 0u : ch * pc.cstride;
    uint n_in = pc.downmix != 0u ? pc.in_channels : 1u;

    if (t == 0u)
      bad_flag = 0u;
    // z[n] = x[2n] + i x[2n+1], windowed (times the chirp for Bluestein)
    for (uint n = t; n < L; n += WG) {
      vec2 z = vec2 (0.0);
      if (n < M) {
        for (uint c = 0u; c < n_in; c++) {
          uint base = start * pc.sstride + (pc.downmix != 0u ? c * pc.cstride
              : plane);
          z += vec2 (load_raw (base + 2u * n * pc.sstride),
              load_raw (base + (2u * n + 1u) * pc.sstride));
        }
        if (pc.downmix != 0u)
          z *= pc.inv_channels;
        z *= win2[n];
        if (BLUESTEIN != 0u)
          z = cmul (z, chirp[n]);
      }
      st (n, z);
    }
    sync ();
    uint res = fft_l (0u, t);
    if (BLUESTEIN != 0u) {
      // times B (which holds 1/L), conjugated for the inverse
      for (uint k = t; k < L; k += WG)
        st (res + k, conj2 (cmul (ld (res + k), chirp[M + k])));
      sync ();
      res = fft_l (res, t);
    }

    // Real-input post-processing and power, as in fft.comp; each power is
    // kept in the free half of the work array (read back by the invocation
    // that wrote it) until the workgroup knows whether the frame is good.
    bool want_complex = COMPLEX_OUT != 0u && f + 1u == count
        && (info.w & 1u) != 0u;
    uint crow = (info.z * pc.out_channels + ch) * NB;
    uint spare = L - res;
    bool bad = false;
    for (uint k = t; k < M; k += WG) {
      vec2 a = z_at (res, k);
      vec2 b = conj2 (z_at (res, (M - k) % M));
      vec2 fe = 0.5 * (a + b);
      vec2 fo = 0.5 * mul_mi (a - b);
      vec2 x = fe + cmul (tw[k], fo);
      vec2 xs = x * s;
      float p = min (dot (xs, xs), FLT_MAX_HALF);
      bad = bad || any (isnan (x)) || any (isinf (x));
      if (want_complex)
        cplx[crow + k] = x;
      st (spare + k, vec2 (k == 0u ? pc.edge * p : 2.0 * p, 0.0));
    }
    vec2 z0 = z_at (res, 0u);
    float xn = z0.x - z0.y;             // Nyquist
    if (t == 0u) {
      bad = bad || isnan (xn) || isinf (xn);
      if (want_complex)
        cplx[crow + M] = vec2 (xn, 0.0);
    }
    if (bad)
      atomicOr (bad_flag, 1u);
    barrier ();
    if (bad_flag == 0u) {
      for (uint k = t; k < M; k += WG)
        partial[row + k] = min (partial[row + k] + ld (spare + k).x, FLT_MAX);
      if (t == 0u)
        partial[row + M] = min (partial[row + M]
            + pc.edge * min ((xn * s) * (xn * s), FLT_MAX_HALF), FLT_MAX);
      used += 1.0;
    }
    // (every invocation has read the work array before the next frame
    // overwrites it, and bad_flag before it is reset)
    sync ();
  }
  if (t == 0u)
    partial[row + NB] = used;
}
