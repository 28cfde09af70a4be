#version 450
// Second kernel of the four-step FFT for large N (N = 2M, M = P*Q): the
// first (fft.comp with MODE 1) left, per frame and channel, the Q-point
// FFTs of the P columns z[P*n2 + n1], already multiplied by
// e^{-2 pi i n1 k1 / M}, as rows Y[n1][k1] of a temporary buffer. Here
// Z[k1 + Q*k2] = sum_n1 Y[n1][k1] e^{-2 pi i n1 k2 / P} (a P-point DFT per
// k1), then the real-input post-processing, power, and the sum over the
// frames of a chunk, exactly as the fused kernel does.
//
// Thread k1 (0 <= k1 <= Q/2) takes the columns k1 and Q-k1, whose bins
// pair up (k and M-k), so it owns the 2P bins k1 + Q*k2 and Q-k1 + Q*k2
// (P bins for k1 = 0 and Q/2; thread 0 also the Nyquist bin M).
// gl_WorkGroupID.x = chunk * KB + block of T values of k1; .y = channel.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "common.glsl"

// P is fixed at build time (one module per P) so that every register
// index below is a constant.
#ifndef P_CONST
#define P_CONST 4
#endif
const uint P = P_CONST;         // 2, 4 or 8

layout (constant_id = 0) const uint LOG2_Q = 12;
layout (constant_id = 2) const uint T = 256;
layout (constant_id = 3) const uint COMPLEX_OUT = 0;
layout (local_size_x_id = 2) in;

const uint Q = 1u << LOG2_Q;
const uint M = P * Q;
const uint NB = M + 1u;
const uint RS = NB + 1u;
const uint KB = (Q / 2u + 1u + T - 1u) / T;     // blocks of k1
const uint PMAX = P;

layout (std430, binding = 0) readonly buffer Temp { vec2 ytmp[]; };
layout (std430, binding = 1) readonly buffer Twiddles { vec2 tw[]; };   // e^{-2 pi i m / 2M}
layout (std430, binding = 2) readonly buffer Chunks { uvec4 chunks[]; };
layout (std430, binding = 3) writeonly buffer Partial { float partial[]; };
layout (std430, binding = 4) writeonly buffer ComplexOut { vec2 cplx[]; };

layout (push_constant) uniform Params
{
  uint out_channels;
  float scale;
  uint chunk_base;              // first chunk of this slice
  uint frame_base;              // its first frame (row 0 of ytmp)
  float edge;                   // power factor of bins 0 and N/2 (the others: 2)
} pc;

shared uint bad_flag[2];

// In-place P-point forward DFT of a[0..P).
void dftp (inout vec2 a[PMAX])
{
#if P_CONST == 2
  dft2 (a[0], a[1]);
#elif P_CONST == 4
  dft4 (a[0], a[1], a[2], a[3]);
#else
  dft8 (a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]);
#endif
}

// X[k] from Z[k] and Z[M-k].
vec2 post (vec2 zk, vec2 zmk, uint k)
{
  vec2 b = vec2 (zmk.x, -zmk.y);
  vec2 fe = 0.5 * (zk + b);
  vec2 fo = 0.5 * mul_mi (zk - b);
  return fe + cmul (tw[k], fo);
}

void main ()
{
  uint t = gl_LocalInvocationID.x;
  uint chunk = pc.chunk_base + gl_WorkGroupID.x / KB;
  uint kb = gl_WorkGroupID.x % KB;
  uint ch = gl_WorkGroupID.y;
  uvec4 info = chunks[chunk];
  uint k1 = kb * T + t;
  bool live = k1 <= Q / 2u;
  uint k1b = (Q - k1) & (Q - 1u);
  bool two = k1 != 0u && k1 != Q / 2u;  // two distinct columns

  float acc_a[PMAX], acc_b[PMAX];
  [[unroll]] for (uint i = 0u; i < PMAX; i++) {
    acc_a[i] = 0.0;
    acc_b[i] = 0.0;
  }
  float acc_nyq = 0.0;
  float used = 0.0;
  if (t == 0u) {
    bad_flag[0] = 0u;
    bad_flag[1] = 0u;
  }
  barrier ();

  for (uint f = 0u; f < info.y; f++) {
    uint frame = info.x + f;
    uint rowbase = ((frame - pc.frame_base) * pc.out_channels + ch) * P * Q;
    vec2 za[PMAX], zb[PMAX];
    float pa[PMAX], pb[PMAX];
    float pn = 0.0;
    bool bad = false;
    // scaled before squaring (see fft.comp and common.glsl)
    float s = sqrt (pc.scale) * POWER_SUM_SCALE_SQRT;
    bool want_complex = COMPLEX_OUT != 0u && f + 1u == info.y
        && (info.w & 1u) != 0u;
    uint crow = (info.z * pc.out_channels + ch) * NB;

    [[unroll]] for (uint i = 0u; i < PMAX; i++) {
      za[i] = vec2 (0.0);
      zb[i] = vec2 (0.0);
      pa[i] = 0.0;
      pb[i] = 0.0;
    }
    if (live) {
      [[unroll]] for (uint n1 = 0u; n1 < P; n1++) {
        za[n1] = ytmp[rowbase + n1 * Q + k1];
        zb[n1] = ytmp[rowbase + n1 * Q + k1b];
      }
      dftp (za);                // za[k2] = Z[k1 + Q k2]
      dftp (zb);                // zb[k2] = Z[k1b + Q k2]
      [[unroll]] for (uint k2 = 0u; k2 < P; k2++) {
        {
          uint k = k1 + Q * k2;
          // Partner Z[M-k]: column k1b, row P-1-k2 (k1 = 0: row (P-k2)%P).
          vec2 zm = k1 == 0u ? za[(P - k2) & (P - 1u)] : zb[P - 1u - k2];
          vec2 x = post (za[k2], zm, k);
          vec2 xs = x * s;
          float p = min (dot (xs, xs), FLT_MAX_HALF);
          pa[k2] = k == 0u ? pc.edge * p : 2.0 * p;
          bad = bad || any (isnan (x)) || any (isinf (x));
          if (want_complex)
            cplx[crow + k] = x;
          if (two) {
            uint kk = k1b + Q * k2;
            vec2 xb = post (zb[k2], za[P - 1u - k2], kk);
            vec2 xbs = xb * s;
            float q = min (dot (xbs, xbs), FLT_MAX_HALF);
            pb[k2] = 2.0 * q;
            bad = bad || any (isnan (xb)) || any (isinf (xb));
            if (want_complex)
              cplx[crow + kk] = xb;
          }
        }
      }
      if (k1 == 0u) {
        float xn = za[0].x - za[0].y;   // Nyquist: Re Z0 - Im Z0
        pn = pc.edge * min ((xn * s) * (xn * s), FLT_MAX_HALF);
        bad = bad || isnan (xn) || isinf (xn);
        if (want_complex)
          cplx[crow + M] = vec2 (xn, 0.0);
      }
    }
    if (t == 0u)
      bad_flag[(f + 1u) & 1u] = 0u;
    if (bad)
      atomicOr (bad_flag[f & 1u], 1u);
    barrier ();
    bool skip = bad_flag[f & 1u] != 0u;
    barrier ();
    if (skip)
      continue;
    [[unroll]] for (uint i = 0u; i < PMAX; i++) {
      acc_a[i] = min (acc_a[i] + pa[i], FLT_MAX);
      acc_b[i] = min (acc_b[i] + pb[i], FLT_MAX);
    }
    acc_nyq = min (acc_nyq + pn, FLT_MAX);
    used += 1.0;
  }

  if (info.y == 0u || !live)
    return;
  uint row = (chunk * pc.out_channels + ch) * RS;
  [[unroll]] for (uint k2 = 0u; k2 < P; k2++) {
    {
      partial[row + k1 + Q * k2] = acc_a[k2];
      if (two)
        partial[row + k1b + Q * k2] = acc_b[k2];
    }
  }
  if (k1 == 0u) {
    partial[row + M] = acc_nyq;
    partial[row + NB] = used;
  }
}
