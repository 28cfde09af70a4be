#version 450
// Fused analysis kernel: load raw samples (format conversion, downmix,
// window) -> real FFT of N = 2M points (complex Stockham FFT of M points in
// registers + shared memory, then the real-input post-processing) -> scaled
// one-sided power -> sum over the frames of a chunk -> one row of partial
// sums per (chunk, output channel).
//
// One workgroup = one chunk (a run of consecutive frames of one group) of
// one output channel: gl_WorkGroupID.x = chunk, .y = output channel.
// Thread t holds the complex elements t + e*T, e < E (E = M/T) in registers.
// Shared memory holds one float per element (real and imaginary parts are
// exchanged one after the other); when M floats do not fit, the exchange
// runs in several rounds of SHN floats.
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

layout (constant_id = 0) const uint LOG2_M = 9;
layout (constant_id = 1) const uint T = 32;     // workgroup size
layout (constant_id = 2) const uint FORMAT = 3; // 0 S16, 1 S24, 2 S32, 3 F32, 4 F64
layout (constant_id = 3) const uint LOG2_SH = 13;       // log2 of shared floats available
layout (constant_id = 4) const uint COMPLEX_OUT = 0;

layout (local_size_x_id = 1) in;

const uint M = 1u << LOG2_M;
const uint N = 2u * M;
const uint NB = M + 1u;         // one-sided bins
const uint E = M / T;
const uint LOG2_SHN = LOG2_M < LOG2_SH ? LOG2_M : LOG2_SH;
const uint SHN = 1u << LOG2_SHN;
const uint ROUNDS = M / SHN;

layout (std430, binding = 0) readonly buffer Input { uint inw[]; };
layout (std430, binding = 1) readonly buffer Window { float win[]; };
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
} pc;

shared float sh[SHN];

vec2 v[E];                      // the thread's elements
vec2 w[E];                      // partner elements (post-processing) / round buffer

float f64_to_f32 (uint lo, uint hi)
{
  uint sign = hi & 0x80000000u;
  uint e = (hi >> 20) & 0x7ffu;
  if (e == 0x7ffu) {
    bool nan = ((hi & 0xfffffu) | lo) != 0u;
    return uintBitsToFloat (sign | 0x7f800000u | (nan ? 0x400000u : 0u));
  }
  int fe = int (e) - 1023 + 127;
  if (e == 0u || fe <= 0)
    return uintBitsToFloat (sign);
  if (fe >= 255)
    return uintBitsToFloat (sign | 0x7f800000u);
  uint mant = ((hi & 0xfffffu) << 3) | (lo >> 29);
  uint rest = lo & 0x1fffffffu;
  uint bits = sign | (uint (fe) << 23) | mant;
  if (rest > 0x10000000u || (rest == 0x10000000u && (mant & 1u) != 0u))
    bits += 1u;                 // round to nearest even (may carry to inf)
  return uintBitsToFloat (bits);
}

float load_raw (uint idx)
{
  if (FORMAT == 3u)
    return uintBitsToFloat (inw[idx]);
  if (FORMAT == 0u) {
    uint wd = inw[idx >> 1];
    return float (int (wd << (16u - 16u * (idx & 1u))) >> 16) * (1.0 / 32768.0);
  }
  if (FORMAT == 1u) {
    uint b = idx * 3u;
    uint wi = b >> 2;
    uint s = (b & 3u) * 8u;
    uint x = inw[wi] >> s;
    if (s > 8u)
      x |= inw[wi + 1u] << (32u - s);
    return float (int (x << 8) >> 8) * (1.0 / 8388608.0);
  }
  if (FORMAT == 2u)
    return float (int (inw[idx])) * (1.0 / 2147483648.0);
  return f64_to_f32 (inw[2u * idx], inw[2u * idx + 1u]);
}

// Sample s of the span for output channel ch.
float load_sample (uint s, uint ch)
{
  uint base = s * pc.sstride;
  if (pc.downmix == 0u)
    return load_raw (base + ch * pc.cstride);
  float acc = 0.0;
  for (uint c = 0u; c < pc.in_channels; c++)
    acc += load_raw (base + c * pc.cstride);
  return acc * pc.inv_channels;
}

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
  if (ROUNDS == 1u) {
    for (uint e = 0u; e < E; e++)
      sh[stockham_dst (e, t, Ns, R)] = v[e].x;
    barrier ();
    for (uint e = 0u; e < E; e++)
      v[e].x = sh[t + e * T];
    barrier ();
    for (uint e = 0u; e < E; e++)
      sh[stockham_dst (e, t, Ns, R)] = v[e].y;
    barrier ();
    for (uint e = 0u; e < E; e++)
      v[e].y = sh[t + e * T];
    barrier ();
  } else {
    for (uint c = 0u; c < 2u; c++) {
      for (uint q = 0u; q < ROUNDS; q++) {
        for (uint e = 0u; e < E; e++) {
          uint d = stockham_dst (e, t, Ns, R);
          if ((d >> LOG2_SHN) == q)
            sh[d & (SHN - 1u)] = v[e][c];
        }
        barrier ();
        for (uint e = 0u; e < E; e++) {
          uint s = t + e * T;
          if ((s >> LOG2_SHN) == q)
            w[e][c] = sh[s & (SHN - 1u)];
        }
        barrier ();
      }
    }
    for (uint e = 0u; e < E; e++)
      v[e] = w[e];
  }
}

// After the last pass: v[e] <- Z[k], w[e] <- Z[(M-k) mod M], k = t + e*T.
void exchange_pairs (uint t, uint Ns, uint R)
{
  for (uint c = 0u; c < 2u; c++) {
    for (uint q = 0u; q < ROUNDS; q++) {
      for (uint e = 0u; e < E; e++) {
        uint d = stockham_dst (e, t, Ns, R);
        if (ROUNDS == 1u || (d >> LOG2_SHN) == q)
          sh[d & (SHN - 1u)] = v[e][c];
      }
      barrier ();
      for (uint e = 0u; e < E; e++) {
        uint s = t + e * T;
        uint p = (M - s) & (M - 1u);
        if (ROUNDS == 1u || (p >> LOG2_SHN) == q)
          w[e][c] = sh[p & (SHN - 1u)];
      }
      // v[e] may be overwritten only once every thread has written it.
      if (ROUNDS == 1u) {
        for (uint e = 0u; e < E; e++) {
          uint s = t + e * T;
          v[e][c] = sh[s];
        }
      }
      barrier ();
    }
  }
  if (ROUNDS != 1u) {
    // Second sweep for Z[k] itself (the first sweep filled the partners).
    vec2 keep[E];
    for (uint e = 0u; e < E; e++)
      keep[e] = w[e];
    for (uint c = 0u; c < 2u; c++) {
      for (uint q = 0u; q < ROUNDS; q++) {
        for (uint e = 0u; e < E; e++) {
          uint d = stockham_dst (e, t, Ns, R);
          if ((d >> LOG2_SHN) == q)
            sh[d & (SHN - 1u)] = v[e][c];
        }
        barrier ();
        for (uint e = 0u; e < E; e++) {
          uint s = t + e * T;
          if ((s >> LOG2_SHN) == q)
            w[e][c] = sh[s & (SHN - 1u)];
        }
        barrier ();
      }
    }
    for (uint e = 0u; e < E; e++) {
      v[e] = w[e];
      w[e] = keep[e];
    }
  }
}

// Twiddle for butterfly j (k = j % Ns) output r of a radix-R pass:
// e^{-2 pi i r k / (Ns R)} = tw[r k N / (Ns R)].
vec2 twiddle (uint r, uint k, uint Ns, uint R)
{
  return tw[r * k * (N / (Ns * R))];
}

void pass8 (uint t, uint Ns)
{
  const uint P = E / 8u;
  for (uint i = 0u; i < P; i++) {
    uint k = (t + i * T) & (Ns - 1u);
    vec2 a0 = v[i], a1 = v[i + P], a2 = v[i + 2u * P], a3 = v[i + 3u * P];
    vec2 a4 = v[i + 4u * P], a5 = v[i + 5u * P], a6 = v[i + 6u * P], a7 = v[i + 7u * P];
    if (Ns > 1u) {
      a1 = cmul (a1, twiddle (1u, k, Ns, 8u));
      a2 = cmul (a2, twiddle (2u, k, Ns, 8u));
      a3 = cmul (a3, twiddle (3u, k, Ns, 8u));
      a4 = cmul (a4, twiddle (4u, k, Ns, 8u));
      a5 = cmul (a5, twiddle (5u, k, Ns, 8u));
      a6 = cmul (a6, twiddle (6u, k, Ns, 8u));
      a7 = cmul (a7, twiddle (7u, k, Ns, 8u));
    }
    dft8 (a0, a1, a2, a3, a4, a5, a6, a7);
    v[i] = a0; v[i + P] = a1; v[i + 2u * P] = a2; v[i + 3u * P] = a3;
    v[i + 4u * P] = a4; v[i + 5u * P] = a5; v[i + 6u * P] = a6; v[i + 7u * P] = a7;
  }
}

void pass4 (uint t, uint Ns)
{
  const uint P = E / 4u;
  for (uint i = 0u; i < P; i++) {
    uint k = (t + i * T) & (Ns - 1u);
    vec2 a0 = v[i], a1 = v[i + P], a2 = v[i + 2u * P], a3 = v[i + 3u * P];
    if (Ns > 1u) {
      a1 = cmul (a1, twiddle (1u, k, Ns, 4u));
      a2 = cmul (a2, twiddle (2u, k, Ns, 4u));
      a3 = cmul (a3, twiddle (3u, k, Ns, 4u));
    }
    dft4 (a0, a1, a2, a3);
    v[i] = a0; v[i + P] = a1; v[i + 2u * P] = a2; v[i + 3u * P] = a3;
  }
}

void pass2 (uint t, uint Ns)
{
  const uint P = E / 2u;
  for (uint i = 0u; i < P; i++) {
    uint k = (t + i * T) & (Ns - 1u);
    vec2 a0 = v[i], a1 = v[i + P];
    if (Ns > 1u)
      a1 = cmul (a1, twiddle (1u, k, Ns, 2u));
    dft2 (a0, a1);
    v[i] = a0; v[i + P] = a1;
  }
}

void main ()
{
  uint t = gl_LocalInvocationID.x;
  uint chunk = gl_WorkGroupID.x;
  uint ch = gl_WorkGroupID.y;
  uvec4 info = chunks[chunk];
  uint first = info.x;
  uint count = info.y;

  float acc[E];
  for (uint e = 0u; e < E; e++)
    acc[e] = 0.0;
  float acc_nyq = 0.0;

  for (uint f = 0u; f < count; f++) {
    uint start = (first + f) * pc.hop;

    // Load z[n] = x[2n] + i x[2n+1], windowed.
    for (uint e = 0u; e < E; e++) {
      uint n = t + e * T;
      uint s = 2u * n;
      v[e] = vec2 (load_sample (start + s, ch) * win[s],
          load_sample (start + s + 1u, ch) * win[s + 1u]);
    }

    // Complex FFT of M points: radix-8 passes, then one radix-4 or -2.
    uint Ns = 1u;
    const uint n8 = LOG2_M / 3u;
    const uint rest = LOG2_M % 3u;
    const uint last_R = rest == 2u ? 4u : (rest == 1u ? 2u : 8u);
    const uint n8_full = rest == 0u ? n8 - 1u : n8;
    for (uint p = 0u; p < n8_full; p++) {
      pass8 (t, Ns);
      exchange (t, Ns, 8u);
      Ns *= 8u;
    }
    if (last_R == 8u)
      pass8 (t, Ns);
    else if (last_R == 4u)
      pass4 (t, Ns);
    else
      pass2 (t, Ns);
    exchange_pairs (t, Ns, last_R);

    // Real-input post-processing, power, accumulation.
    bool want_complex = COMPLEX_OUT != 0u && f + 1u == count && (info.w & 1u) != 0u;
    uint crow = (info.z * pc.out_channels + ch) * NB;
    for (uint e = 0u; e < E; e++) {
      uint k = t + e * T;
      vec2 a = v[e];
      vec2 b = vec2 (w[e].x, -w[e].y);
      vec2 fe = 0.5 * (a + b);
      vec2 fo = 0.5 * mul_mi (a - b);
      vec2 x = fe + cmul (tw[k], fo);
      float p = dot (x, x);
      acc[e] += k == 0u ? p : 2.0 * p;
      if (want_complex)
        cplx[crow + k] = x;
    }
    if (t == 0u) {
      float xn = v[0].x - v[0].y;       // Nyquist: Re Z0 - Im Z0
      acc_nyq += xn * xn;
      if (want_complex)
        cplx[crow + M] = vec2 (xn, 0.0);
    }
  }

  uint row = (chunk * pc.out_channels + ch) * NB;
  for (uint e = 0u; e < E; e++)
    partial[row + t + e * T] = acc[e] * pc.scale;
  if (t == 0u)
    partial[row + M] = acc_nyq * pc.scale;
}
