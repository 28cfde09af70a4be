#version 450
// The CPU devices' kernel for large sizes, N = 2048..65536: the work and
// the layout of fft_cpu.comp (one subgroup of 8 lanes works on one frame;
// lane l holds the subsequences s = 2l + e, e = 0, 1, of Q = M/16 points;
// an 8-point DFT across the lanes and a radix 2 in the lane finish the
// complex FFT; the real-input post-processing pairs lane l with l ^ 7), but
// each lane's Q-point FFTs, too large to unroll, run as a four-step, Q =
// Q1 x Q2, in two runtime loops through private arrays:
//
//   step 1, column n2 < Q2: the Q1 points y_e[Q2 n1 + n2] (read from the
//     input texels, windowed), their Q1-point FFT, times W_Q^{n2 k1}, into
//     Y_e[k1 Q2 + n2];
//   step 2, rows k1 and Q1 - k1 together: the Q2-point FFT of each row
//     gives the subsequence's bins k' = k1 + Q1 k2, the lanes finish them
//     (times the twiddle W_M^{s k'}, read per lane), and the
//     post-processing pairs row k1 with row Q1 - k1
//     (Z[M - k] of a bin of row k1 lies in row Q1 - k1 of lane l ^ 7).
//
// An array indexed by a loop variable is a gather or a scatter per lane
// on lavapipe, so each point crosses memory once each way; the codelets
// (Q1, Q2 <= 64 points) and everything constant in them stay unrolled.
// The twiddles that depend on a loop variable are read from the table
// e^{-2 pi i m / N} one by one: products of table values (tried first)
// made the weakest bins' errors a sixth larger than the GPU kernels', and
// the reads cost no more than the products did. A frame is left out (NaN
// or infinite samples) when a column's FFT is not finite; its power sums
// are then never added. Sizes: LOG2Q1, LOG2Q2 per module (shaders/meson.build).
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_shader_subgroup_vote : require
#include "common.glsl"
#include "cpu_lanes.glsl"

const uint LQ1 = LOG2Q1, LQ2 = LOG2Q2;
const uint Q1 = 1u << LQ1, Q2 = 1u << LQ2;
const uint Q = Q1 * Q2;         // points per subsequence
const uint LOG2_Q = LQ1 + LQ2;
const uint LOG2_M = LOG2_Q + 4u;        // 16 subsequences
const uint LOG2_N = LOG2_M + 1u;
const uint M = 1u << LOG2_M;
const uint NB = M + 1u;         // one-sided bins
const uint RS = NB + 1u;        // partial row: NB power sums + frames used

#include "cpu_kernel.glsl"

// tw_texels holds e^{-2 pi i m / N}, m < N.
vec2 tw_n (uint m)
{
  return texelFetch (tw_texels, int (m & ((1u << LOG2_N) - 1u))).xy;
}

// The lane's two subsequences in the four-step's order (step 1's output).
vec2 Y0[Q], Y1[Q];
// Power sums of the lane's bins k' + Q r (lo) and k' + Q (r + 8) (hi).
float acc_lo[Q], acc_hi[Q];

uint r, pi;                     // rev3 (lane); the lane of the k' = 0 partners

// Step 1, column n2: returns FALSE where the column's FFT is not finite.
bool column (uint start, uint ch, uint n2)
{
  vec4 x[Q1];
  vec2 a0[Q1], a1[Q1];
  bool fine = true;

  // Point m = Q2 n1 + n2 of subsequence 2l (+1) is z[16 m + 2l] (+1): the
  // samples 32 m + 4 l + (0..3), window texel 8 m + l.
  if (DOWNMIX != 0u && LOAD != LOAD_IL2 && LOAD != LOAD_IL4) {
    [[unroll]] for (uint n1 = 0u; n1 < Q1; n1++)
      x[n1] = vec4 (0.0);
    for (uint c = 0u; c < pc.in_channels; c++)
      [[unroll]] for (uint n1 = 0u; n1 < Q1; n1++)
        x[n1] += load4 (start, 32u * (Q2 * n1 + n2) + 4u * lane, c);
  } else {
    [[unroll]] for (uint n1 = 0u; n1 < Q1; n1++)
      x[n1] = load4 (start, 32u * (Q2 * n1 + n2) + 4u * lane, ch);
  }
  [[unroll]] for (uint n1 = 0u; n1 < Q1; n1++) {
    vec4 v = x[n1] * texelFetch (win_texels, int (8u * (Q2 * n1 + n2) +
            lane));
    if (DOWNMIX != 0u)
      v *= pc.inv_channels;
    a0[brev (n1, LQ1)] = v.xy;
    a1[brev (n1, LQ1)] = v.zw;
  }
  FFT_BR (a0, LQ1);
  FFT_BR (a1, LQ1);

  [[unroll]] for (uint k1 = 0u; k1 < Q1; k1++) {
    // (times W_Q^{n2 k1}, read from the table: products of table values
    // added errors that the GPU kernels do not have)
    vec2 w = tw_n ((n2 * k1) << (LOG2_N - LOG2_Q));

    fine = fine && finite2 (a0[k1]) && finite2 (a1[k1]);
    Y0[k1 * Q2 + n2] = k1 == 0u ? a0[0] : cmul (a0[k1], w);
    Y1[k1 * Q2 + n2] = k1 == 0u ? a1[0] : cmul (a1[k1], w);
  }
  return fine;
}

// Step 2 for row rho: the lanes' Z[k' + Q r] (lo) and Z[k' + Q (r + 8)]
// (hi) of its bins k' = rho + Q1 k2.
void row (uint rho, out vec2 lo[Q2], out vec2 hi[Q2])
{
  vec2 b0[Q2], b1[Q2];
  vec2 w16 = tw_rev_lanes (1u, 0u, 4u);         // W_16^r

  [[unroll]] for (uint n2 = 0u; n2 < Q2; n2++) {
    b0[brev (n2, LQ2)] = Y0[rho * Q2 + n2];
    b1[brev (n2, LQ2)] = Y1[rho * Q2 + n2];
  }
  FFT_BR (b0, LQ2);
  FFT_BR (b1, LQ2);
  [[unroll]] for (uint k2 = 0u; k2 < Q2; k2++) {
    // W_M^{s k'}, s = 2l (+1), read per lane
    uint k = rho + Q1 * k2;
    vec2 c0 = lanes_dft8 (cmul (b0[k2], tw_n (4u * lane * k)));
    vec2 c1 = lanes_dft8 (cmul (b1[k2], tw_n (2u * (2u * lane + 1u) * k)));
    c1 = cmul (c1, w16);
    lo[k2] = c0 + c1;
    hi[k2] = c0 - c1;
  }
}

// The post-processing of row rho (its Z in lo, hi; the partner row's in
// plo, phi), and its power into the sums when the frame is sound; the
// complex spectrum of the chunk's last frame when asked for.
void finish_row (uint rho, vec2 lo[Q2], vec2 hi[Q2], vec2 plo[Q2],
    vec2 phi[Q2], float s, bool add, bool store_cplx, uint crow)
{
  [[unroll]] for (uint k2 = 0u; k2 < Q2; k2++) {
    uint k = rho + Q1 * k2;     // k'
    // Z[M - k' - Q q]: lane l ^ 7, the other half, bin Q - k' = (Q1 - rho)
    // + Q1 (Q2 - 1 - k2) of the partner row (rho = 0: Q1 (Q2 - k2) of this
    // row; k' = 0: lane pi (l), lane 0 its own)
    vec2 m_lo, m_hi;
    if (k2 == 0u) {
      vec2 q_lo = shuffle_xor2 (rho == 0u ? hi[0] : phi[Q2 - 1u], 7u);
      vec2 q_hi = shuffle_xor2 (rho == 0u ? lo[0] : plo[Q2 - 1u], 7u);
      vec2 z_lo = lane == 0u ? lo[0] : shuffle2 (hi[0], pi);
      vec2 z_hi = lane == 0u ? hi[0] : shuffle2 (lo[0], pi);
      m_lo = rho == 0u ? z_lo : q_lo;
      m_hi = rho == 0u ? z_hi : q_hi;
    } else {
      m_lo = shuffle_xor2 (rho == 0u ? hi[Q2 - k2] : phi[Q2 - 1u - k2], 7u);
      m_hi = shuffle_xor2 (rho == 0u ? lo[Q2 - k2] : plo[Q2 - 1u - k2], 7u);
    }
    // (W_N of the bin, read per lane)
    vec2 x_lo = real_bin (lo[k2], m_lo, tw_n (k + Q * r));
    vec2 x_hi = real_bin (hi[k2], m_hi, tw_n (k + Q * (r + 8u)));
    if (add) {
      // (bin 0, lane 0's lo of k' = 0, is the only one times `edge`)
      float e_lo = k == 0u && lane == 0u ? pc.edge : 2.0;
      acc_lo[k] = min (acc_lo[k] + e_lo * bin_power (x_lo, s), FLT_MAX);
      acc_hi[k] = min (acc_hi[k] + 2.0 * bin_power (x_hi, s), FLT_MAX);
    }
    if (COMPLEX_OUT != 0u && store_cplx) {
      cplx[crow + k + Q * r] = x_lo;
      cplx[crow + k + Q * (r + 8u)] = x_hi;
    }
  }
}

void main ()
{
  lane = gl_SubgroupInvocationID;
  uint chunk = gl_WorkGroupID.x;
  uint ch = gl_WorkGroupID.y;
  uvec4 info = chunks[pc.chunk_base + chunk];
  uint first = info.x;
  uint count = info.y;
  float s = sqrt (pc.scale) * POWER_SUM_SCALE_SQRT;     // see common.glsl
  uint crow = (info.z * pc.out_channels + ch) * NB;
  float acc_nyq = 0.0, used = 0.0;

  r = rev3 (lane);
  pi = lane ^ ((lane & 4u) != 0u ? 3u : ((lane & 2u) != 0u ? 1u : 0u));
  for (uint k = 0u; k < Q; k++) {
    acc_lo[k] = 0.0;
    acc_hi[k] = 0.0;
  }

  for (uint f = 0u; f < count; f++) {
    uint start = (first + f) * pc.hop;
    bool fine = true;
    bool last = (info.w & 1u) != 0u && f + 1u == count;

    for (uint n2 = 0u; n2 < Q2; n2++)
      fine = column (start, ch, n2) && fine;
    bool ok = subgroupAll (fine);

    for (uint k1 = 0u; k1 <= Q1 / 2u; k1++) {
      uint kb = (Q1 - k1) & (Q1 - 1u);
      vec2 lo[Q2], hi[Q2], plo[Q2], phi[Q2];

      row (k1, lo, hi);
      row (kb, plo, phi);       // (k1 = 0, Q1/2: the same row again)
      finish_row (k1, lo, hi, plo, phi, s, ok, last, crow);
      // (masked off where kb is k1)
      finish_row (kb, plo, phi, lo, hi, s, ok && kb != k1, last
          && kb != k1, crow);
      if (k1 == 0u) {
        float nyq = lo[0].x - lo[0].y;  // X[N/2] (lane 0)
        if (ok)
          acc_nyq = min (acc_nyq + pc.edge * min ((nyq * s) * (nyq * s),
                  FLT_MAX_HALF), FLT_MAX);
        if (COMPLEX_OUT != 0u && last && lane == 0u)
          cplx[crow + M] = vec2 (nyq, 0.0);
      }
    }
    if (ok)
      used += 1.0;
  }

  if (count == 0u)
    return;
  uint row0 = pc.partial_base + (chunk * pc.out_channels + ch) * RS;
  for (uint k = 0u; k < Q; k++) {
    partial[row0 + k + Q * r] = acc_lo[k];
    partial[row0 + k + Q * (r + 8u)] = acc_hi[k];
  }
  if (lane == 0u) {
    partial[row0 + M] = acc_nyq;
    partial[row0 + NB] = used;
  }
}
