#version 450
// The fused analysis kernel for CPU Vulkan devices (Mesa's lavapipe): the
// work of fft.comp MODE 0 (load with format conversion and downmix,
// window, real FFT of N = 2M points, scaled one-sided power, sums over the
// frames of a chunk into one partial row per (chunk, output channel), NaN
// and infinite frames left out, the chunk's last frame's complex spectrum
// on request), with the same inputs, tables and outputs, shaped for a CPU.
//
// Why: lavapipe runs the 8 invocations of a subgroup as the 8 lanes of one
// SIMD register and has neither shared memory nor barriers of its own:
// it emulates them (a barrier is a coroutine switch; a storage-buffer
// access with a per-invocation address is a loop over the lanes), which
// made the GPU kernel many times slower per core than FFTW
// (docs/performance.md). Here:
//  - one workgroup = one subgroup of 8 lanes works on one frame at a time
//    (the chunk's frames in turn), so a batch of one frame still fills the
//    SIMD register; no shared memory, no barrier;
//  - the frame's M complex points z[j] = x[2j] + i x[2j+1] are split by
//    j mod 16: lane l holds the E = 2 subsequences s = 2l + e (Q = M/16
//    points each), read together as one 16-byte texel per lane and block
//    (a texel buffer: lavapipe fetches it as a vector gather);
//  - each lane computes the Q-point FFTs of its subsequences alone, fully
//    unrolled, in registers, with constant twiddles (LOG2Q is a build-time
//    constant: one SPIR-V module per size, shaders/meson.build);
//  - the last radix-16 step runs across the lanes: an 8-point DFT by three
//    subgroup shuffles (one permute instruction each) and a 2-point DFT
//    inside the lane. Lane l then holds Z[k + Q (r + 8 j)], k < Q, j < 2,
//    r = rev3 (l): a frame is one straight run of code;
//  - the real-input post-processing pairs Z[k] with Z[M - k], which lives
//    in lane l ^ 7 (k = 0: in lane pi (l)): one more shuffle.
// Sizes N = 32 Q, Q = 1..32 (N = 32..1024). From 2048 fft_cpu_large.comp
// runs (its four-step keeps the unrolled code, and the driver's compile
// time, small: this kernel's 2048 and 4096, summing E = 4 and 8
// subsequences per lane pass after pass, ran faster but took lavapipe far
// longer to translate in every process and to compile on an empty shader
// cache: docs/performance.md); gpufft-plan-cpu.c chooses.
//
// Bindings and push constants: cpu_kernel.glsl (the twiddle table is
// unused here). One workgroup per (chunk, output channel).
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_shader_subgroup_vote : require
#include "common.glsl"
#include "cpu_lanes.glsl"

const uint LQ = LOG2Q;
const uint Q = 1u << LQ;        // points per subsequence
const uint E = 2u;              // subsequences per lane
const uint R = 8u * E;          // subsequences
const uint M = R * Q;
const uint LOG2_R = 4u;
const uint LOG2_M = LQ + LOG2_R;
const uint LOG2_N = LOG2_M + 1u;
const uint NB = M + 1u;         // one-sided bins
const uint RS = NB + 1u;        // partial row: NB power sums + frames used

#include "cpu_kernel.glsl"

// Subsequences 2l and 2l + 1 of lane l, windowed, in bit-reversed order.
vec2 Y0[Q], Y1[Q];

void load_pair (uint start, uint ch)
{
  vec4 x[Q];

  // Element m of subsequence 2l (+1) is z[R m + 2l] (+1): the samples
  // n .. n + 3 from n = 2 R m + 4 l, texel n / 4 of the window. (The interleaved loads downmix by themselves; the others add
  // the channels one after the other, the channel loop outermost so that
  // the block loop stays unrolled.)
  if (DOWNMIX != 0u && LOAD != LOAD_IL2 && LOAD != LOAD_IL4) {
    [[unroll]] for (uint m = 0u; m < Q; m++)
      x[m] = vec4 (0.0);
    for (uint c = 0u; c < pc.in_channels; c++)
      [[unroll]] for (uint m = 0u; m < Q; m++)
        x[m] += load4 (start, 2u * R * m + 2u * E * lane, c);
  } else {
    [[unroll]] for (uint m = 0u; m < Q; m++)
      x[m] = load4 (start, 2u * R * m + 2u * E * lane, ch);
  }
  [[unroll]] for (uint m = 0u; m < Q; m++) {
    vec4 v = x[m] * texelFetch (win_texels, int ((R * m + E * lane) / 2u));
    if (DOWNMIX != 0u)
      v *= pc.inv_channels;
    Y0[brev (m, LQ)] = v.xy;
    Y1[brev (m, LQ)] = v.zw;
  }
}

// Z[k + Q (r + 8 j)] of the frame, k < Q, j < E.
vec2 X[E][Q];

// The lane's two subsequences: their FFTs, the twiddles of the radix-16
// step, the 8-point DFTs across lanes and the 2-point DFT in the lane.
void radix_step ()
{
  FFT_BR (Y0, LQ);
  FFT_BR (Y1, LQ);
  [[unroll]] for (uint k = 0u; k < Q; k++) {
    // W_M^{s k}, s = 2l (+1)
    vec2 t0 = k == 0u ? vec2 (1.0, 0.0) : tw_lanes (E * k, 0u, LOG2_M);
    vec2 b0 = lanes_dft8 (k == 0u ? Y0[k] : cmul (Y0[k], t0));
    vec2 b1 = lanes_dft8 (k == 0u ? Y1[k] : cmul (Y1[k], cmul (t0,
                twc (k, LOG2_M))));
    vec2 c = cmul (b1, tw_rev_lanes (1u, 0u, LOG2_R));  // W_R^r
    X[0][k] = b0 + c;
    X[1][k] = b0 - c;
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
  uint r = rev3 (lane);
  // lane pi (l) holds Z[M - Q q] for the Z[Q q] of lane l (r != 0)
  uint pi = lane ^ ((lane & 4u) != 0u ? 3u : ((lane & 2u) != 0u ? 1u : 0u));

  float acc[E][Q];
  float acc_nyq = 0.0, used = 0.0;
  vec2 last[E][Q];
  float last_nyq = 0.0;

  [[unroll]] for (uint j = 0u; j < E; j++)
    [[unroll]] for (uint k = 0u; k < Q; k++) {
      acc[j][k] = 0.0;
      last[j][k] = vec2 (0.0);
    }

  for (uint f = 0u; f < count; f++) {
    uint start = (first + f) * pc.hop;

    load_pair (start, ch);
    radix_step ();

    // Real-input post-processing, power, and the frame's soundness. The
    // partner of Z[k + Q (r + 8j)] is Z[M - k - Q (r + 8j)]: for k > 0
    // Z[(Q - k) + Q ((7 - r) + 8 (E - 1 - j))], in lane l ^ 7; for k = 0
    // Z[Q ((8 - r) + 8 (E - 1 - j))], in lane pi (l), and for lane 0 (r = 0)
    // Z[Q 8 (E - j)], its own.
    vec2 x[E][Q];
    [[unroll]] for (uint j = 0u; j < E; j++) {
      vec2 own = X[(E - j) % E][0];
      vec2 p0 = lane == 0u ? own : shuffle2 (X[E - 1u - j][0], pi);
      x[j][0] = real_bin (X[j][0], p0, tw_rev_lanes (Q, 8u * Q * j, LOG2_N));
      [[unroll]] for (uint k = 1u; k < Q; k++)
        x[j][k] = real_bin (X[j][k], shuffle_xor2 (X[E - 1u - j][Q - k], 7u),
            tw_rev_lanes (Q, k + 8u * Q * j, LOG2_N));
    }
    float nyq = X[0][0].x - X[0][0].y;  // X[N/2] (lane 0)

    bool fine = lane != 0u || (!isnan (nyq) && !isinf (nyq));
    [[unroll]] for (uint j = 0u; j < E; j++)
      [[unroll]] for (uint k = 0u; k < Q; k++)
        fine = fine && finite2 (x[j][k]);
    bool ok = subgroupAll (fine);

    if (ok) {
      [[unroll]] for (uint j = 0u; j < E; j++)
        [[unroll]] for (uint k = 0u; k < Q; k++) {
          // (bin 0 is lane 0's X[0][0], the only one times `edge`)
          float e = j == 0u && k == 0u && lane == 0u ? pc.edge : 2.0;
          acc[j][k] = min (acc[j][k] + e * bin_power (x[j][k], s), FLT_MAX);
        }
      acc_nyq = min (acc_nyq + pc.edge * min ((nyq * s) * (nyq * s),
              FLT_MAX_HALF), FLT_MAX);
      used += 1.0;
    }
    if (COMPLEX_OUT != 0u) {
      [[unroll]] for (uint j = 0u; j < E; j++)
        [[unroll]] for (uint k = 0u; k < Q; k++)
          last[j][k] = x[j][k];
      last_nyq = nyq;
    }
  }

  if (count == 0u)
    return;
  uint row = pc.partial_base + (chunk * pc.out_channels + ch) * RS;
  [[unroll]] for (uint j = 0u; j < E; j++)
    [[unroll]] for (uint k = 0u; k < Q; k++)
      partial[row + k + Q * (r + 8u * j)] = acc[j][k];
  if (lane == 0u) {
    partial[row + M] = acc_nyq;
    partial[row + NB] = used;
  }
  if (COMPLEX_OUT != 0u && (info.w & 1u) != 0u) {
    uint crow = (info.z * pc.out_channels + ch) * NB;
    [[unroll]] for (uint j = 0u; j < E; j++)
      [[unroll]] for (uint k = 0u; k < Q; k++)
        cplx[crow + k + Q * (r + 8u * j)] = last[j][k];
    if (lane == 0u)
      cplx[crow + M] = vec2 (last_nyq, 0.0);
  }
}
