#version 450
// Loudness blocks (gpufft-loudness.h): a two-biquad filter cascade (BS.1770
// K weighting) run on every channel, its output's energy per block, and the
// input's sample peak and true peak (a polyphase interpolator) per block.
//
// The batch: n_blocks blocks of S frames, C channels, interleaved floats
// (frame f, channel c at x[f * C + c]). Each block of each channel is cut
// into 64 chunks: chunk t holds `base` frames (+1 for t < extra), in order.
// The filter is linear: a stretch's end state is M s0 + z, where s0 is its
// start state, z its end state from a zero start and M the cascade's
// zero-input transition over its length (md[0] for `base` frames, md[1]
// for `base + 1`, md[2] for a block). Three passes, barriers between:
//
// MODE 0: one workgroup per (block, channel), one invocation per chunk:
//   filters its chunk from a zero state, writes z to chunk[j * C + c]
//   (j = block * 64 + t); then the block's z (its chunks' folded) to
//   blk[block * C + c].
// MODE 1: one invocation per channel: the blocks in order, from the
//   carried state (zero after a reset): writes each block's start state
//   over its z, the state after the batch to the carry; and the batch's
//   last TAPS - 1 input samples to the history half the next batch reads.
// MODE 2: one workgroup per (block, channel): the chunks' start states
//   from the block's, then each chunk filtered again from its own; per
//   block the sum of the output's squares, the largest |x| and the largest
//   |interpolated x| (every phase of the interpolator: y_p (f) = sum_k
//   h[p][k] x[f - k], the samples before the batch from the history, 0
//   after a reset) to out[block * C + c] = (energy, sample peak, true
//   peak, 0).
// MODE 3 (CPU devices, where the lanes are few and the passes cost more
// than they share): one invocation per channel filters blocks [first,
// first + count) in order into out[], from the carry (the same values,
// carry and history as MODES 0-2 leave them); a batch takes as many
// dispatches as it needs.
// (llvmpipe ends a loop after 65535 iterations, counting those of an inner
// loop across the outer one's: no invocation runs an inner loop more often
// than that, so a dispatch of MODE 3 holds count x S < 65535 frames.)
//
// The filter state of each biquad is the transposed direct form II's
// (s1, s2): y = b0 x + s1; s1 = b1 x - a1 y + s2; s2 = b2 x - a2 y.
// A chunk's 4 state values are (s1, s2) of stage 0 then of stage 1.
#extension GL_GOOGLE_include_directive : require

layout (constant_id = 0) const uint MODE = 0u;
// the interpolator's taps per phase in use, in fours (NQ x 4 <= TAPS)
layout (constant_id = 1) const uint NQ = 6u;
layout (local_size_x = 64) in;

#define TAPS 24u

layout (std430, binding = 0) readonly buffer Input { float x[]; };
// coef[0..4] stage 0 b0 b1 b2 a1 a2, coef[5..9] stage 1; h: each phase's
// 24 taps as 6 vec4; md[3] column-major
// The filter and its chunk-to-chunk recurrence run in double where the
// device has it (LOUDNESS_F64): a high-pass with poles near 1 cancels
// large terms, and a quiet block after a loud one is off by up to 2 % in
// float (0.1 dB), 1e-9 in double.
#ifdef LOUDNESS_F64
#define REAL double
#define RVEC4 dvec4
#define RMAT4 dmat4
#else
#define REAL float
#define RVEC4 vec4
#define RMAT4 mat4
#endif
layout (std430, binding = 1) readonly buffer Table {
  REAL coef[16];
  vec4 h[24];                   // h[ph * 6 + j] = taps 4j .. 4j+3 of phase ph
  RMAT4 md[3];
} tab;
layout (std430, binding = 2) buffer Chunks { RVEC4 chunk[]; };
// carry[C] the filter state; hist[2][C][TAPS] the last input samples,
// oldest first (TAPS - 1 used, at 1 .. TAPS - 1)
layout (std430, binding = 3) buffer Carry { RVEC4 carry[]; };
layout (std430, binding = 4) buffer History { float hist[]; };
layout (std430, binding = 5) writeonly buffer Out { vec4 outp[]; };
layout (std430, binding = 6) buffer Blocks { RVEC4 blk[]; };

layout (push_constant) uniform Params {
  uint n_blocks, S, C, base, extra;
  uint parity;                  // which history half this batch reads
  uint reset;                   // 1: start from a zero state and history
  uint phases;                  // true-peak phases: 0 (none), 1, 2 or 4
  uint first, count;            // MODE 3: this dispatch's blocks
} p;

shared float sh_e[64], sh_pk[64], sh_tp[64];
shared RVEC4 sh_s[64];

void
chunk_range (uint t, out uint start, out uint len)
{
  start = t * p.base + min (t, p.extra);
  len = p.base + (t < p.extra ? 1u : 0u);
}

// one frame through the cascade: returns the output, updates s
REAL
cascade (REAL v, inout RVEC4 s)
{
  REAL y0 = tab.coef[0] * v + s.x;
  s.x = tab.coef[1] * v - tab.coef[3] * y0 + s.y;
  s.y = tab.coef[2] * v - tab.coef[4] * y0;
  REAL y1 = tab.coef[5] * y0 + s.z;
  s.z = tab.coef[6] * y0 - tab.coef[8] * y1 + s.w;
  s.w = tab.coef[7] * y0 - tab.coef[9] * y1;
  return y1;
}

// input sample of frame f of the batch (f may be negative: the history)
float
sample_at (int f, uint c)
{
  if (f >= 0)
    return x[uint (f) * p.C + c];
  if (p.reset != 0u)
    return 0.0;
  return hist[(p.parity * p.C + c) * TAPS + uint (int (TAPS) + f)];
}

// The interpolator's window: w[j] = (x[f - 4j], x[f - 4j - 1], x[f - 4j - 2],
// x[f - 4j - 3]), NQ of them, in registers (vec4s, not an array: lavapipe
// gave wrong results with a private array of 24 floats).
struct Window
{
  vec4 w0, w1, w2, w3, w4, w5;
};

// the window just before frame f (so that shifting x[f] in makes f's)
Window
window_before (uint f, uint c)
{
  Window w;
  vec4 q[6];
  for (uint j = 0u; j < 6u; j++) {
    q[j] = vec4 (0.0);
    if (j < NQ && p.phases > 0u)
      q[j] = vec4 (sample_at (int (f) - 1 - int (4u * j), c),
          sample_at (int (f) - 2 - int (4u * j), c),
          sample_at (int (f) - 3 - int (4u * j), c),
          sample_at (int (f) - 4 - int (4u * j), c));
  }
  w.w0 = q[0];
  w.w1 = q[1];
  w.w2 = q[2];
  w.w3 = q[3];
  w.w4 = q[4];
  w.w5 = q[5];
  return w;
}

float
phase_out (uint ph, Window w)
{
  uint b = ph * 6u;
  float acc = dot (tab.h[b], w.w0);
  if (NQ > 1u)
    acc += dot (tab.h[b + 1u], w.w1);
  if (NQ > 2u)
    acc += dot (tab.h[b + 2u], w.w2);
  if (NQ > 3u)
    acc += dot (tab.h[b + 3u], w.w3);
  if (NQ > 4u)
    acc += dot (tab.h[b + 4u], w.w4);
  if (NQ > 5u)
    acc += dot (tab.h[b + 5u], w.w5);
  return abs (acc);
}

// One frame: the filter, the energy, the peaks.
void
measure (uint f, uint c, inout RVEC4 s, inout REAL e, inout float pk,
    inout float tp, inout Window w)
{
  float v = x[f * p.C + c];
  REAL y = cascade (REAL (v), s);
  e += y * y;
  pk = max (pk, abs (v));
  if (p.phases > 0u) {
    w.w5 = vec4 (w.w4.w, w.w5.xyz);
    w.w4 = vec4 (w.w3.w, w.w4.xyz);
    w.w3 = vec4 (w.w2.w, w.w3.xyz);
    w.w2 = vec4 (w.w1.w, w.w2.xyz);
    w.w1 = vec4 (w.w0.w, w.w1.xyz);
    w.w0 = vec4 (v, w.w0.xyz);
    tp = max (tp, phase_out (0u, w));
    if (p.phases > 1u)
      tp = max (tp, phase_out (1u, w));
    if (p.phases > 2u)
      tp = max (tp, max (phase_out (2u, w), phase_out (3u, w)));
  }
}

// the batch's last TAPS - 1 input samples, for the next batch
void
write_history (uint c)
{
  uint frames = p.n_blocks * p.S;
  uint next = ((1u - p.parity) * p.C + c) * TAPS;
  for (uint k = 1u; k < TAPS; k++)
    hist[next + k] = sample_at (int (frames) - int (TAPS) + int (k), c);
}

void
main ()
{
  if (MODE == 3u) {
    uint c = gl_GlobalInvocationID.x;
    if (c >= p.C)
      return;
    RVEC4 s = p.reset != 0u && p.first == 0u ? RVEC4 (0.0) : carry[c];
    Window w = window_before (p.first * p.S, c);
    for (uint b = p.first; b < p.first + p.count; b++) {
      REAL e = 0.0;
      float pk = 0.0, tp = 0.0;
      for (uint i = 0u; i < p.S; i++)
        measure (b * p.S + i, c, s, e, pk, tp, w);
      outp[b * p.C + c] = vec4 (float (e), pk, max (tp, pk), 0.0);
    }
    carry[c] = s;
    if (p.first + p.count == p.n_blocks)
      write_history (c);
    return;
  }
  if (MODE == 1u) {
    uint c = gl_GlobalInvocationID.x;
    if (c >= p.C)
      return;
    RVEC4 s = p.reset != 0u ? RVEC4 (0.0) : carry[c];
    for (uint b = 0u; b < p.n_blocks; b++) {
      uint idx = b * p.C + c;
      RVEC4 z = blk[idx];
      blk[idx] = s;
      s = tab.md[2] * s + z;
    }
    carry[c] = s;
    write_history (c);
    return;
  }

  uint b = gl_WorkGroupID.x, c = gl_WorkGroupID.y, t = gl_LocalInvocationID.x;
  uint start, len;
  chunk_range (t, start, len);
  uint f0 = b * p.S + start;
  uint j = (b * 64u + t) * p.C + c;

  if (MODE == 0u) {
    RVEC4 s = RVEC4 (0.0);
    for (uint i = 0u; i < len; i++)
      cascade (REAL (x[(f0 + i) * p.C + c]), s);
    chunk[j] = s;
    sh_s[t] = s;
    barrier ();
    if (t == 0u) {
      RVEC4 z = RVEC4 (0.0);
      for (uint k = 0u; k < 64u; k++)
        z = tab.md[k < p.extra ? 1 : 0] * z + sh_s[k];
      blk[b * p.C + c] = z;
    }
    return;
  }

  if (t == 0u) {
    RVEC4 s0 = blk[b * p.C + c];
    for (uint k = 0u; k < 64u; k++) {
      sh_s[k] = s0;
      s0 = tab.md[k < p.extra ? 1 : 0] * s0 + chunk[(b * 64u + k) * p.C + c];
    }
  }
  barrier ();
  RVEC4 s = sh_s[t];
  REAL e = 0.0;
  float pk = 0.0, tp = 0.0;
  Window w = window_before (f0, c);
  for (uint i = 0u; i < len; i++)
    measure (f0 + i, c, s, e, pk, tp, w);
  sh_e[t] = float (e);
  sh_pk[t] = pk;
  sh_tp[t] = tp;
  barrier ();
  for (uint h = 32u; h > 0u; h >>= 1) {
    if (t < h) {
      sh_e[t] += sh_e[t + h];
      sh_pk[t] = max (sh_pk[t], sh_pk[t + h]);
      sh_tp[t] = max (sh_tp[t], sh_tp[t + h]);
    }
    barrier ();
  }
  if (t == 0u)
    outp[b * p.C + c] = vec4 (sh_e[0], sh_pk[0], max (sh_tp[0], sh_pk[0]),
        0.0);
}
