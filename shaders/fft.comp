#version 450
// Fused analysis kernel: load raw samples (format conversion, downmix,
// window) -> real FFT of N = 2M points (complex Stockham FFT of M points in
// registers + shared memory, then the real-input post-processing) -> scaled
// one-sided power -> sum over the frames of a chunk -> one row of partial
// sums per (chunk, output channel).
//
// One workgroup = FPW lanes of T threads; lane g handles chunk
// gl_WorkGroupID.x * FPW + g (a run of consecutive frames of one group) of
// output channel gl_WorkGroupID.y. Thread t of a lane holds the complex
// elements t + e*T, e < E = 16 (8 in fft_e8.spv) in registers; every loop over registers is
// unrolled by glslc at build time, so they are never indexed dynamically.
// M, T, FPW, the format and the rest are specialization constants.
// Between passes the lane exchanges its M elements through shared memory:
// whole complex values, or real then imaginary parts where that does not
// fit. The host uses this kernel while M fits a workgroup (M <= 16 * max
// invocations, M floats of shared memory); beyond, the four-step FFT
// (MODE 1 here + fft_rows.comp).
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "common.glsl"

// Elements per thread: 16 (fft.spv) or 8 (fft_e8.spv: twice the threads
// and half the registers per thread).
#ifndef FFT_E
#define FFT_E 16
#endif
const uint E = FFT_E;

layout (constant_id = 0) const uint LOG2_M = 9;
layout (constant_id = 1) const uint WG = 32;    // workgroup size = T * FPW
layout (constant_id = 2) const uint FORMAT = 3; // 0 S16, 1 S24, 2 S32, 3 F32, 4 F64
layout (constant_id = 3) const uint COMPLEX_OUT = 0;
layout (constant_id = 4) const uint FPW = 1;    // lanes (concurrent chunks)
layout (constant_id = 5) const uint PAD = 0;    // 1: one pad float per 8 (no bank conflicts)
layout (constant_id = 6) const uint VEC2 = 0;   // 1: exchange whole complex values
// MODE 1: first kernel of the four-step FFT for large N (see fft_rows.comp):
// the workgroup computes the Q-point FFT (Q = 2^LOG2_M here) of column n1 of
// z[P*n2 + n1], multiplies it by e^{-2 pi i n1 k1 / (P Q)} and stores it as
// row n1 of the frame's block of the temporary buffer (binding 5).
layout (constant_id = 7) const uint MODE = 0;
layout (constant_id = 8) const uint LOG2_P = 0;
// 1 (with VEC2): the real-input post-processing reads each bin and its
// partner from shared memory as it needs them, instead of holding every
// partner in registers.
layout (constant_id = 9) const uint DIRECT = 0;
// 1: the window's and the post-processing's twiddles of the thread's
// elements are read once a chunk and held in registers across its frames,
// instead of read for every frame.
layout (constant_id = 10) const uint HOLD = 0;

layout (local_size_x_id = 1) in;

const uint M = 1u << LOG2_M;
const uint N = 2u * M;          // MODE 0; MODE 1 analyses 2*P*M points
const uint NCOL = 1u << LOG2_P;  // columns (P of the four-step)
const uint LOG2_NT = LOG2_M + 1u + LOG2_P;      // log2 of the twiddle table
const uint NB = M + 1u;         // one-sided bins
const uint RS = NB + 1u;        // partial row: NB power sums + frames used
const uint T = WG / FPW;        // threads per lane; M == T * E
const uint LANE_FLOATS = PAD != 0u ? M + M / 8u : M;

layout (std430, binding = 0) readonly buffer Input { uint inw[]; };
layout (std430, binding = 0) readonly buffer Input2 { uvec2 inw2[]; };  // same buffer
layout (std430, binding = 1) readonly buffer Window { vec2 win2[]; };      // pairs
layout (std430, binding = 2) readonly buffer Twiddles { vec2 tw[]; };   // tw[m] = e^{-2 pi i m / N}
// Per chunk: first frame, frame count, complex-output slot, flags
// (bit 0: the chunk's last frame is the last frame of a closed group).
layout (std430, binding = 3) readonly buffer Chunks { uvec4 chunks[]; };
layout (std430, binding = 4) writeonly buffer Partial { float partial[]; };
layout (std430, binding = 5) writeonly buffer ComplexOut { vec2 cplx[]; };

layout (push_constant) uniform Params
{
  uint sstride;                 // samples between two instants of a channel
  uint cstride;                 // samples between two channels
  uint in_channels;
  uint hop;
  uint downmix;
  uint out_channels;
  float scale;                  // scipy scaling of |X|^2 (before the x2)
  float inv_channels;
  uint frame_base;              // MODE 1: first frame of the slice (block 0 of temp)
  float edge;                   // power factor of bins 0 and N/2 (the others: 2)
  // A dispatch shared by several plans' batches (gpufft-merge.h): this
  // dispatch's first entry of the chunk table, and its first float of the
  // partial rows (both 0 for a plan's own dispatch).
  uint chunk_base;
  uint partial_base;
} pc;

// Exchange buffer: floats (re, then im) or, when it fits, whole complex
// values (half the barriers). The unused one has a single element.
shared float sh[VEC2 != 0u ? 1u : LANE_FLOATS * FPW];
shared vec2 shv[VEC2 != 0u ? LANE_FLOATS * FPW : 1u];
// Per lane and frame parity: some sample of the frame was NaN or infinite.
shared uint bad_flag[2u * FPW];
uint lane_base;                 // this lane's part of sh

// Shared-memory index with optional padding: Stockham writes go at strides
// of R and R*Ns floats; one pad float every 8 spreads them over all banks.
uint P (uint i)
{
  return PAD != 0u ? i + (i >> 3) : i;
}

vec2 v[E];                      // the thread's elements
vec2 w[E];                      // partner elements (post-processing)

#include "load.glsl"

// Moves element e of every thread from index dst_of(e) to index t + e*T.
// The destination is recomputed from the pass geometry (Ns, R): for the
// element held as register e = i + r*E/R of thread t, the butterfly is
// j = t + i*T and its output r goes to (j - j%Ns)*R + j%Ns + r*Ns.
uint stockham_dst (uint e, uint t, uint Ns, uint R)
{
  uint per = E / R;
  uint i = e % per;
  uint r = e / per;
  uint j = t + i * T;
  uint k = j & (Ns - 1u);
  return (j - k) * R + k + r * Ns;
}

void exchange (uint t, uint Ns, uint R)
{
  if (VEC2 != 0u) {
    [[unroll]] for (uint e = 0u; e < E; e++)
      shv[lane_base + P (stockham_dst (e, t, Ns, R))] = v[e];
    barrier ();
    [[unroll]] for (uint e = 0u; e < E; e++)
      v[e] = shv[lane_base + P (t + e * T)];
    barrier ();
    return;
  }
  [[unroll]] for (uint c = 0u; c < 2u; c++) {
    [[unroll]] for (uint e = 0u; e < E; e++)
      sh[lane_base + P (stockham_dst (e, t, Ns, R))] = v[e][c];
    barrier ();
    [[unroll]] for (uint e = 0u; e < E; e++)
      v[e][c] = sh[lane_base + P (t + e * T)];
    barrier ();
  }
}

// After the last pass: v[e] <- Z[k], w[e] <- Z[(M-k) mod M], k = t + e*T.
void exchange_pairs (uint t, uint Ns, uint R)
{
  if (VEC2 != 0u) {
    [[unroll]] for (uint e = 0u; e < E; e++)
      shv[lane_base + P (stockham_dst (e, t, Ns, R))] = v[e];
    barrier ();
    [[unroll]] for (uint e = 0u; e < E; e++) {
      uint s = t + e * T;
      w[e] = shv[lane_base + P ((M - s) & (M - 1u))];
      v[e] = shv[lane_base + P (s)];
    }
    barrier ();
    return;
  }
  [[unroll]] for (uint c = 0u; c < 2u; c++) {
    [[unroll]] for (uint e = 0u; e < E; e++)
      sh[lane_base + P (stockham_dst (e, t, Ns, R))] = v[e][c];
    barrier ();
    // Every thread has written its v before any v is overwritten.
    [[unroll]] for (uint e = 0u; e < E; e++) {
      uint s = t + e * T;
      w[e][c] = sh[lane_base + P ((M - s) & (M - 1u))];
      v[e][c] = sh[lane_base + P (s)];
    }
    barrier ();
  }
}

// Twiddle e^{-2 pi i m / N} from the table (computed in double on the CPU).
vec2 twid (uint m)
{
  return tw[m];
}

// A radix-R pass: butterfly j = t + i*T of sub-transform size Ns; its
// input r is multiplied by e^{-2 pi i r k / (Ns R)} = tw[r k ts] with
// k = j % Ns and ts = N / (Ns R) (a power of two: ts = 1 << lts). Three
// table loads per radix-8 butterfly, the other powers by products.
#if FFT_E == 16
void pass16 (uint t, uint Ns, uint lts)
{
  // E == 16: one butterfly per thread, on all of its registers.
  uint k = t & (Ns - 1u);
  vec2 a[16];
  [[unroll]] for (uint r = 0u; r < 16u; r++)
    a[r] = v[r];
  if (Ns > 1u) {
    uint m = k << lts;
    vec2 w1 = twid (m), w2 = twid (2u * m), w4 = twid (4u * m),
        w8 = twid (8u * m);
    vec2 w3 = cmul (w1, w2), w5 = cmul (w1, w4), w6 = cmul (w2, w4);
    vec2 w7 = cmul (w3, w4);
    a[1] = cmul (a[1], w1);
    a[2] = cmul (a[2], w2);
    a[3] = cmul (a[3], w3);
    a[4] = cmul (a[4], w4);
    a[5] = cmul (a[5], w5);
    a[6] = cmul (a[6], w6);
    a[7] = cmul (a[7], w7);
    a[8] = cmul (a[8], w8);
    a[9] = cmul (a[9], cmul (w1, w8));
    a[10] = cmul (a[10], cmul (w2, w8));
    a[11] = cmul (a[11], cmul (w3, w8));
    a[12] = cmul (a[12], cmul (w4, w8));
    a[13] = cmul (a[13], cmul (w5, w8));
    a[14] = cmul (a[14], cmul (w6, w8));
    a[15] = cmul (a[15], cmul (w7, w8));
  }
  dft16 (a);
  [[unroll]] for (uint r = 0u; r < 16u; r++)
    v[r] = a[r];
}
#define MAIN_PASS(t, Ns, lts) pass16 (t, Ns, lts)
#else
// (E = 8 never takes a radix-16 pass: by8 below; radix 8's lts is one more)
#define MAIN_PASS(t, Ns, lts) pass8 (t, Ns, (lts) + 1u)
#endif

void pass8 (uint t, uint Ns, uint lts)
{
  const uint P = E / 8u;
  [[unroll]] for (uint i = 0u; i < P; i++) {
    uint k = (t + i * T) & (Ns - 1u);
    vec2 a0 = v[i], a1 = v[i + P], a2 = v[i + 2u * P], a3 = v[i + 3u * P];
    vec2 a4 = v[i + 4u * P], a5 = v[i + 5u * P], a6 = v[i + 6u * P], a7 = v[i + 7u * P];
    if (Ns > 1u) {
      uint m = k << lts;
      vec2 w1 = twid (m), w2 = twid (2u * m), w4 = twid (4u * m);
      vec2 w3 = cmul (w1, w2);
      a1 = cmul (a1, w1);
      a2 = cmul (a2, w2);
      a3 = cmul (a3, w3);
      a4 = cmul (a4, w4);
      a5 = cmul (a5, cmul (w1, w4));
      a6 = cmul (a6, cmul (w2, w4));
      a7 = cmul (a7, cmul (w3, w4));
    }
    dft8 (a0, a1, a2, a3, a4, a5, a6, a7);
    v[i] = a0; v[i + P] = a1; v[i + 2u * P] = a2; v[i + 3u * P] = a3;
    v[i + 4u * P] = a4; v[i + 5u * P] = a5; v[i + 6u * P] = a6; v[i + 7u * P] = a7;
  }
}

void pass4 (uint t, uint Ns, uint lts)
{
  const uint P = E / 4u;
  [[unroll]] for (uint i = 0u; i < P; i++) {
    uint k = (t + i * T) & (Ns - 1u);
    vec2 a0 = v[i], a1 = v[i + P], a2 = v[i + 2u * P], a3 = v[i + 3u * P];
    if (Ns > 1u) {
      uint m = k << lts;
      vec2 w1 = twid (m), w2 = twid (2u * m);
      a1 = cmul (a1, w1);
      a2 = cmul (a2, w2);
      a3 = cmul (a3, cmul (w1, w2));
    }
    dft4 (a0, a1, a2, a3);
    v[i] = a0; v[i + P] = a1; v[i + 2u * P] = a2; v[i + 3u * P] = a3;
  }
}

void pass2 (uint t, uint Ns, uint lts)
{
  const uint P = E / 2u;
  [[unroll]] for (uint i = 0u; i < P; i++) {
    uint k = (t + i * T) & (Ns - 1u);
    vec2 a0 = v[i], a1 = v[i + P];
    if (Ns > 1u)
      a1 = cmul (a1, twid (k << lts));
    dft2 (a0, a1);
    v[i] = a0; v[i + P] = a1;
  }
}

void main ()
{
  uint lane = gl_LocalInvocationID.x / T;
  uint t = gl_LocalInvocationID.x % T;
  uint chunk = gl_WorkGroupID.x * FPW + lane;   // of this dispatch
  uint n1 = MODE == 1u ? gl_WorkGroupID.x % NCOL : 0u;
  uint ch = gl_WorkGroupID.y;
  uvec4 info = MODE == 1u ? uvec4 (0u) : chunks[pc.chunk_base + chunk];
  // MODE 1: one frame (of the slice starting at frame_base) per workgroup.
  uint first = MODE == 1u ? pc.frame_base + gl_WorkGroupID.x / NCOL : info.x;
  uint count = MODE == 1u ? 1u : info.y;
  lane_base = lane * LANE_FLOATS;

  // Every lane runs the same number of iterations (barriers are
  // workgroup-wide); a lane past its own count computes on zeros and
  // discards the result.
  uint rounds = count;
  for (uint g = 0u; MODE == 0u && g < FPW; g++)
    rounds = max (rounds, chunks[pc.chunk_base + gl_WorkGroupID.x * FPW + g].y);

  float acc[E];
  [[unroll]] for (uint e = 0u; e < E; e++)
    acc[e] = 0.0;
  vec2 win_held[E];
  vec2 tw_held[E];
  if (HOLD != 0u)
    [[unroll]] for (uint e = 0u; e < E; e++) {
      win_held[e] = win2[NCOL * (t + e * T) + n1];
      tw_held[e] = tw[t + e * T];
    }
  float acc_nyq = 0.0;
  float used = 0.0;             // frames summed
  if (t == 0u) {
    bad_flag[2u * lane] = 0u;
    bad_flag[2u * lane + 1u] = 0u;
  }

  for (uint f = 0u; f < rounds; f++) {
    bool live = f < count;
    uint start = (first + f) * pc.hop;

    // Load z[n] = x[2n] + i x[2n+1] (the mean of all channels when
    // downmixing), then window it. The channel loop is outside so that the
    // register loop stays unrolled.
    [[unroll]] for (uint e = 0u; e < E; e++)
      v[e] = vec2 (0.0);
    uint plane = pc.downmix != 0u ? 0u : ch * pc.cstride;
    if (live && FORMAT == 3u && pc.sstride == 1u
        && (pc.downmix == 0u || pc.in_channels == 1u)
        && ((start + plane) & 1u) == 0u) {
      // One F32 channel in a row at an even offset: one 8-byte load per
      // complex sample.
      uint base2 = (start + plane) >> 1;
      [[unroll]] for (uint e = 0u; e < E; e++)
        v[e] = uintBitsToFloat (inw2[base2 + NCOL * (t + e * T) + n1]);
    } else if (live) {
      uint n_in = pc.downmix != 0u ? pc.in_channels : 1u;
      for (uint c = 0u; c < n_in; c++) {
        uint base = start * pc.sstride + (pc.downmix != 0u ? c : ch) * pc.cstride;
        [[unroll]] for (uint e = 0u; e < E; e++) {
          uint s = 2u * (NCOL * (t + e * T) + n1);
          v[e] += vec2 (load_raw (base + s * pc.sstride),
              load_raw (base + (s + 1u) * pc.sstride));
        }
      }
      if (pc.downmix != 0u)
        [[unroll]] for (uint e = 0u; e < E; e++)
          v[e] *= pc.inv_channels;
    }
    if (live)
      [[unroll]] for (uint e = 0u; e < E; e++) {
        v[e] *= HOLD != 0u ? win_held[e] : win2[NCOL * (t + e * T) + n1];
      }

    // Complex FFT of M points: radix-16 passes, then one radix-8, -4 or -2
    // (log2 M = 9: three radix-8 passes, as many and cheaper; E = 8:
    // radix-8 passes).
    uint Ns = 1u;
    uint lns = 0u;                      // log2 Ns
    const bool by8 = LOG2_M == 9u || E == 8u;
    const uint lr = by8 ? 3u : 4u;      // log2 of the main radix
    const uint n_main = LOG2_M / lr;
    const uint rest = LOG2_M % lr;
    const uint last_R = rest == 0u ? (1u << lr) : (1u << rest);
    const uint n_full = rest == 0u ? n_main - 1u : n_main;
    for (uint p = 0u; p < n_full; p++) {
      if (by8)
        pass8 (t, Ns, LOG2_NT - lns - 3u);
      else
        MAIN_PASS (t, Ns, LOG2_NT - lns - 4u);
      exchange (t, Ns, 1u << lr);
      Ns <<= lr;
      lns += lr;
    }
    if (last_R == 16u)
      MAIN_PASS (t, Ns, LOG2_NT - lns - 4u);
    else if (last_R == 8u)
      pass8 (t, Ns, LOG2_NT - lns - 3u);
    else if (last_R == 4u)
      pass4 (t, Ns, LOG2_NT - lns - 2u);
    else
      pass2 (t, Ns, LOG2_NT - lns - 1u);

    if (MODE == 1u) {
      // Natural order, times e^{-2 pi i n1 k1 / (P M)} = tw[2 n1 k1], stored.
      exchange (t, Ns, last_R);
      uint trow = (((first + f - pc.frame_base) * pc.out_channels + ch) * NCOL
          + n1) * M;
      if (live)
        [[unroll]] for (uint e = 0u; e < E; e++) {
          uint k1 = t + e * T;
          cplx[trow + k1] = cmul (v[e], tw[2u * n1 * k1]);
        }
      continue;
    }
    const bool direct = VEC2 != 0u && DIRECT != 0u;
    if (direct) {
      [[unroll]] for (uint e = 0u; e < E; e++)
        shv[lane_base + P (stockham_dst (e, t, Ns, last_R))] = v[e];
      barrier ();
    } else {
      exchange_pairs (t, Ns, last_R);
    }

    // Real-input post-processing and power. A frame with a NaN or infinite
    // sample (which spreads to every bin) is left out of the sums; the lane
    // agrees on it through a shared flag. The power is scaled before it is
    // squared and saturates at the largest float, so that huge but finite
    // samples give finite power (and are never taken for bad ones).
    bool want_complex = live && COMPLEX_OUT != 0u && f + 1u == count
        && (info.w & 1u) != 0u;
    uint crow = (info.z * pc.out_channels + ch) * NB;
    float pw[E];
    bool bad = false;
    float s = sqrt (pc.scale) * POWER_SUM_SCALE_SQRT;   // see common.glsl
    vec2 z0 = v[0];
    [[unroll]] for (uint e = 0u; e < E; e++) {
      uint k = t + e * T;
      vec2 a = direct ? shv[lane_base + P (k)] : v[e];
      vec2 wk = direct ? shv[lane_base + P ((M - k) & (M - 1u))] : w[e];
      vec2 b = vec2 (wk.x, -wk.y);
      if (e == 0u)
        z0 = a;
      vec2 fe = 0.5 * (a + b);
      vec2 fo = 0.5 * mul_mi (a - b);
      vec2 x = fe + cmul (HOLD != 0u ? tw_held[e] : tw[k], fo);
      vec2 xs = x * s;
      float p = min (dot (xs, xs), FLT_MAX_HALF);
      pw[e] = k == 0u ? pc.edge * p : 2.0 * p;
      bad = bad || any (isnan (x)) || any (isinf (x));
      if (want_complex)
        cplx[crow + k] = x;
    }
    float xn = z0.x - z0.y;             // Nyquist: Re Z0 - Im Z0 (thread 0)
    if (t == 0u) {
      bad = bad || isnan (xn) || isinf (xn);
      if (want_complex)
        cplx[crow + M] = vec2 (xn, 0.0);
      bad_flag[2u * lane + ((f + 1u) & 1u)] = 0u;       // for the next frame
    }
    if (bad)
      atomicOr (bad_flag[2u * lane + (f & 1u)], 1u);
    barrier ();
    if (!live || bad_flag[2u * lane + (f & 1u)] != 0u)
      continue;
    [[unroll]] for (uint e = 0u; e < E; e++)
      acc[e] = min (acc[e] + pw[e], FLT_MAX);
    acc_nyq = min (acc_nyq + pc.edge * min ((xn * s) * (xn * s), FLT_MAX_HALF),
        FLT_MAX);
    used += 1.0;
  }

  if (count == 0u || MODE == 1u)
    return;
  uint row = pc.partial_base + (chunk * pc.out_channels + ch) * RS;
  [[unroll]] for (uint e = 0u; e < E; e++)
    partial[row + t + e * T] = acc[e];
  if (t == 0u) {
    partial[row + M] = acc_nyq;
    partial[row + NB] = used;
  }
}
