#version 450
// Group reduction, averaging, weighting, bands, level and peak search.
//
// MODE 0 (mean, Welch): one workgroup per (group, output channel):
// gl_WorkGroupID.x = group of this batch, .y = output channel.
//  - sums the partial rows of the group's chunks (plus the carried sum when
//    the group continues one left open by the previous batch);
//  - an open group stores its sum for the next batch (carry_out);
//  - the last entry of each partial row counts the frames summed (frames
//    with NaN or infinite samples are left out by fft.comp), so the mean
//    is over the frames actually used.
// MODE 4 (mean of dB, GStreamer spectrum's): as MODE 0, but each frame (a
//  chunk holds one) adds its floored dB, max (10 log10 (gain x power) +
//  db_offset, db_floor), so the sums and the carry hold dB; the mean is the
//  group's value in dB (db_floor without a frame).
//  PHASE (with MODE 4): each frame's chunk also wrote its complex spectrum
//  into its own row of cplx (row phase_row + chunk); the group adds each
//  frame's atan2 (Im, Re) per bin (carried after the channels' carry rows)
//  and a closed group stores the mean, [channel][bin] floats from the
//  start of its slot's complex block.
// MODE 1 (exponential), 2 (peak hold), 3 (max hold): one workgroup per
// output channel walks the batch's groups in order, frame after frame (the
// chunks then hold one frame each), through the persistent per-channel
// state row: y = alpha y + beta x (1, as y += beta (x - y), compensated), the maximum over the group (2) or
// over everything since the last reset (3). A frame without a usable sample
// leaves the state as it is. Group flag 4 (reset) zeroes the state first.
//
// A closed group then stores its power times the bin gains (WEIGHT), its
// frame count, the n_peaks largest local maxima in [peak_lo, peak_hi] (with
// their neighbours' power), its LEVEL (sum of level weight x power) and
// NBANDS band values (sum of band weight x power over each band's bins)
// into ext, and optionally turns power, bands and level into floored dB.
// FRAMES: every frame of the batch also gets a row of values (its weighted
// bins, or its bands) and its level, in frames_out.
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

layout (constant_id = 0) const uint M = 512;    // N / 2 (any size)
layout (constant_id = 1) const uint T = 64;     // a power of two
layout (constant_id = 2) const uint MODE = 0u;
layout (constant_id = 3) const uint NBANDS = 0u;
layout (constant_id = 4) const uint FRAMES = 0u;
layout (constant_id = 5) const uint WEIGHT = 0u;
layout (constant_id = 6) const uint LEVEL = 0u;
layout (constant_id = 7) const uint PHASE = 0u;
layout (local_size_x_id = 1) in;

const uint NB = M + 1u;
const uint RS = NB + 1u;        // partial / carry / state row: values + frames
const uint NONE = 0xffffffffu;
const uint EXT = NBANDS + LEVEL;        // ext row: bands, then level

layout (std430, binding = 0) readonly buffer Partial { float partial[]; };
layout (std430, binding = 1) readonly buffer CarryIn { float carry_in[]; };
layout (std430, binding = 2) writeonly buffer CarryOut { float carry_out[]; };
layout (std430, binding = 3) coherent buffer Out { float outp[]; };
// Per peak: bin, then float bits of power at bin-1, bin, bin+1.
layout (std430, binding = 4) writeonly buffer Peaks { uvec4 peaks[]; };
// Per group (8 uints): first chunk, chunk count, flags (1 continue, 2 close,
// 4 reset the averaging state), output slot, 4 unused.
layout (std430, binding = 5) readonly buffer Groups { uint groups[]; };
// Frames averaged per (output slot, channel).
layout (std430, binding = 6) writeonly buffer Counts { uint counts[]; };
// MODE > 0: [channel][RS] the averaging state and the open group's frames;
// MODE 1: then [channel][RS] the compensation of its sums.
layout (std430, binding = 7) buffer State { float state[]; };
// [NB] bin gains, [NB] level weights, then per band (first bin, bins,
// offset of its weights) and the weights (float bits).
layout (std430, binding = 8) readonly buffer Tables { uint tab[]; };
layout (std430, binding = 9) writeonly buffer Ext { float ext[]; };
layout (std430, binding = 10) writeonly buffer FramesOut { float frames_out[]; };
// PHASE: the plan's complex rows ([slot][channel][NB]): the groups' blocks,
// the carry row, then one row per chunk.
layout (std430, binding = 11) buffer Cplx { vec2 cplx[]; };

layout (push_constant) uniform Params
{
  uint out_channels;
  uint peak_lo;
  uint peak_hi;
  uint n_peaks;
  uint output_db;
  float db_offset;
  float db_floor;
  uint n_groups;
  float alpha;                  // MODE 1: y = alpha y + beta x
  float beta;
  uint frame_row;               // FRAMES: floats per frame row
  // First float of this batch's partial rows: nonzero where the batch's
  // FFTs ran in a dispatch shared with other plans (gpufft-merge.h).
  uint partial_base;
  uint phase_row;               // PHASE: the complex row of chunk 0
} pc;

// The partial row of chunk c (of this batch) and channel ch.
uint prow_of (uint c, uint ch)
{
  return pc.partial_base + (c * pc.out_channels + ch) * RS;
}

shared float s_val[T];
shared uint s_bin[T];

// (a_v, a_k) comes before (b_v, b_k): louder first, then lower bin.
bool before (float a_v, uint a_k, float b_v, uint b_k)
{
  return a_v > b_v || (a_v == b_v && a_k < b_k);
}

float p_at (uint row, int k)
{
  if (k < 0 || k > int (M))
    return -1.0 / 0.0;
  return outp[row + uint (k)];
}

float gain (uint k)
{
  return WEIGHT != 0u ? uintBitsToFloat (tab[k]) : 1.0;
}

float level_weight (uint k)
{
  return uintBitsToFloat (tab[NB + k]);
}

// 10 log10 v + offset = (10 log10 2) log2 v + offset; log2(0) = -inf ->
// floor.
float to_db (float v, float offset)
{
  float db = 3.0102999566398120 * log2 (v) + offset;
  return (db > pc.db_floor || isnan (db)) ? db : pc.db_floor;
}

float out_value (float v, float offset)
{
  return pc.output_db != 0u ? to_db (v, offset) : v;
}

// The sum of v over the workgroup (uniform control flow only).
float wg_sum (float v)
{
  uint t = gl_LocalInvocationID.x;
  s_val[t] = v;
  barrier ();
  for (uint stride = T / 2u; stride > 0u; stride /= 2u) {
    if (t < stride)
      s_val[t] += s_val[t + stride];
    barrier ();
  }
  float r = s_val[0];
  barrier ();
  return r;
}

// Bands: with fewer bands than invocations, S = T / NBANDS invocations
// share a band (invocation t sums every S-th bin of band t / S from
// t % S, then the band's S partial sums are added), so that a wide band
// is not one invocation's long loop; otherwise each invocation does whole
// bands.
const uint BAND_S = NBANDS > 0u && NBANDS < T ? T / NBANDS : 1u;

// Part j (of BAND_S) of band b of a row of linear power: from outp (group)
// or, times the gains, from a partial row (one frame).
float band_of_out (uint row, uint b, uint j)
{
  uint base = 2u * NB + 3u * b;
  uint first = tab[base], n = tab[base + 1u], w = tab[base + 2u];
  float s = 0.0;
  for (uint i = j; i < n; i += BAND_S)
    s += uintBitsToFloat (tab[w + i]) * outp[row + first + i];
  return s;
}

float band_of_partial (uint prow, uint b, uint j)
{
  uint base = 2u * NB + 3u * b;
  uint first = tab[base], n = tab[base + 1u], w = tab[base + 2u];
  float s = 0.0;
  for (uint i = j; i < n; i += BAND_S)
    s += uintBitsToFloat (tab[w + i]) * gain (first + i)
        * partial[prow + first + i];
  return s;
}

// Every band of a group row (outp, from_partial FALSE) or of a frame's
// partial row (times f) into dst[base + b] (ext or frames_out), as
// out_value (uniform control flow only).
void emit_bands (bool from_partial, uint row, float f, bool to_frames,
    uint base)
{
  uint t = gl_LocalInvocationID.x;

  if (BAND_S > 1u) {
    uint b = t / BAND_S, j = t % BAND_S;
    float s = 0.0;
    if (b < NBANDS)
      s = from_partial ? band_of_partial (row, b, j) : band_of_out (row, b, j);
    s_val[t] = s;
    barrier ();
    if (t < NBANDS) {
      float v = 0.0;
      for (uint q = 0u; q < BAND_S; q++)
        v += s_val[t * BAND_S + q];
      v = out_value (min (v * f, FLT_MAX), pc.db_offset);
      if (to_frames)
        frames_out[base + t] = v;
      else
        ext[base + t] = v;
    }
    barrier ();
  } else {
    for (uint b = t; b < NBANDS; b += T) {
      float v = from_partial ? band_of_partial (row, b, 0u) :
          band_of_out (row, b, 0u);
      v = out_value (min (v * f, FLT_MAX), pc.db_offset);
      if (to_frames)
        frames_out[base + b] = v;
      else
        ext[base + b] = v;
    }
  }
}

// The row of frame (chunk) c of channel ch: its bins or bands, then its
// level, into frames_out.
void emit_frame (uint c, uint ch)
{
  uint t = gl_LocalInvocationID.x;
  uint prow = prow_of (c, ch);
  uint frow = (c * pc.out_channels + ch) * pc.frame_row;
  float f = partial[prow + NB] > 0.0 ? 1.0 / POWER_SUM_SCALE : 0.0;

  if (NBANDS == 0u) {
    for (uint k = t; k < NB; k += T)
      frames_out[frow + k] = out_value (min (partial[prow + k] * f * gain (k),
              FLT_MAX), pc.db_offset);
  } else {
    emit_bands (true, prow, f, true, frow);
  }
  if (LEVEL != 0u) {
    float l = 0.0;
    for (uint k = t; k < NB; k += T)
      l += level_weight (k) * gain (k) * partial[prow + k];
    l = wg_sum (l);
    if (t == 0u)
      frames_out[frow + pc.frame_row - 1u] =
          out_value (min (l * f, FLT_MAX), 0.0);
  }
}

// A closed group whose weighted power the workgroup has written at outp[row]:
// peaks, bands, level, dB.
void finish_group (uint slot, uint ch, uint row)
{
  uint t = gl_LocalInvocationID.x;

  memoryBarrierBuffer ();
  barrier ();
  if (pc.n_peaks > 0u) {
    float prev_v = 1.0 / 0.0;
    uint prev_k = 0u;
    bool prev_any = false;
    uint pbase = (slot * pc.out_channels + ch) * pc.n_peaks;
    for (uint r = 0u; r < pc.n_peaks; r++) {
      float best_v = -1.0;
      uint best_k = NONE;
      for (uint k = pc.peak_lo + t; k <= pc.peak_hi; k += T) {
        float p = outp[row + k];
        float l = p_at (row, int (k) - 1);
        float h = p_at (row, int (k) + 1);
        if (!(p > l && p >= h))
          continue;
        if (prev_any && !before (prev_v, prev_k, p, k))
          continue;
        if (best_k == NONE || before (p, k, best_v, best_k)) {
          best_v = p;
          best_k = k;
        }
      }
      s_val[t] = best_v;
      s_bin[t] = best_k;
      barrier ();
      for (uint stride = T / 2u; stride > 0u; stride /= 2u) {
        if (t < stride) {
          uint ok = s_bin[t + stride];
          float ov = s_val[t + stride];
          if (ok != NONE && (s_bin[t] == NONE || before (ov, ok, s_val[t], s_bin[t]))) {
            s_val[t] = ov;
            s_bin[t] = ok;
          }
        }
        barrier ();
      }
      uint wk = s_bin[0];
      float wv = s_val[0];
      if (t == 0u) {
        if (wk == NONE) {
          peaks[pbase + r] = uvec4 (NONE, 0u, 0u, 0u);
        } else {
          float l = wk > 0u ? outp[row + wk - 1u] : 0.0;
          float h = wk < M ? outp[row + wk + 1u] : 0.0;
          peaks[pbase + r] = uvec4 (wk, floatBitsToUint (l),
              floatBitsToUint (wv), floatBitsToUint (h));
        }
      }
      barrier ();
      prev_v = wv;
      prev_k = wk;
      prev_any = true;
      if (wk == NONE) {
        // Nothing further: mark the remaining slots empty.
        for (uint q = r + 1u + t; q < pc.n_peaks; q += T)
          peaks[pbase + q] = uvec4 (NONE, 0u, 0u, 0u);
        break;
      }
    }
  }

  uint erow = (slot * pc.out_channels + ch) * EXT;
  if (NBANDS > 0u)
    emit_bands (false, row, 1.0, false, erow);
  if (LEVEL != 0u) {
    float l = 0.0;
    for (uint k = t; k < NB; k += T)
      l += level_weight (k) * outp[row + k];
    l = wg_sum (l);
    if (t == 0u)
      ext[erow + NBANDS] = out_value (min (l, FLT_MAX), 0.0);
  }

  if (pc.output_db != 0u && MODE != 4u) {
    memoryBarrierBuffer ();
    barrier ();
    for (uint k = t; k < NB; k += T)
      outp[row + k] = to_db (outp[row + k], pc.db_offset);
  }
}

// atan2 (y, x) as C's (signed zeros included) to about 1e-7 rad: GLSL's
// atan may be 4096 ulp off. atan (a) on [0, 1], reduced to |t| <=
// tan (pi / 8) and its series to t^15.
float atan2_c (float y, float x)
{
  const float PI = 3.14159265358979;
  float ax = abs (x), ay = abs (y);
  float hi = max (ax, ay), lo = min (ax, ay);
  bool neg_x = x < 0.0 || (x == 0.0 && (floatBitsToUint (x) >> 31) != 0u);
  bool neg_y = (floatBitsToUint (y) >> 31) != 0u;
  float r;

  if (hi == 0.0) {
    r = neg_x ? PI : 0.0;
  } else {
    float a = lo / hi, base = 0.0;
    if (a > 0.41421356) {
      base = PI / 4.0;
      a = (a - 1.0) / (a + 1.0);
    }
    float s = a * a;
    float p = -1.0 / 15.0;
    p = p * s + 1.0 / 13.0;
    p = p * s - 1.0 / 11.0;
    p = p * s + 1.0 / 9.0;
    p = p * s - 1.0 / 7.0;
    p = p * s + 1.0 / 5.0;
    p = p * s - 1.0 / 3.0;
    r = base + (a + a * s * p);
    if (ay > ax)
      r = PI / 2.0 - r;
    if (neg_x)
      r = PI - r;
  }
  return neg_y ? -r : r;
}

// PHASE: the mean phase of group (first, n_chunks) of channel ch.
void phase_group (uint first, uint n_chunks, bool cont, bool close,
    uint slot, uint ch, float inv, bool any)
{
  uint t = gl_LocalInvocationID.x;
  uint carry_row = pc.out_channels * RS + ch * NB;

  for (uint k = t; k < NB; k += T) {
    float s = cont ? carry_in[carry_row + k] : 0.0;
    for (uint c = 0u; c < n_chunks; c++) {
      if (!(partial[prow_of (first + c, ch) + NB] > 0.0))
        continue;
      vec2 x = cplx[((pc.phase_row + first + c) * pc.out_channels + ch) * NB
          + k];
      // (bins 0 and N/2 are real: their angle is 0 or pi, as a real FFT
      // that sets their imaginary part to +0 gives it)
      s += atan2_c (k == 0u || k == M ? 0.0 : x.y, x.x);
    }
    if (!close) {
      carry_out[carry_row + k] = s;
    } else {
      uint i = slot * pc.out_channels * NB * 2u + ch * NB + k;
      cplx[i >> 1][i & 1u] = any ? s * inv : 0.0;
    }
  }
}

void mean_group (uint g, uint ch)
{
  uint t = gl_LocalInvocationID.x;
  uint first = groups[8u * g];
  uint n_chunks = groups[8u * g + 1u];
  uint flags = groups[8u * g + 2u];
  uint slot = groups[8u * g + 3u];
  bool cont = (flags & 1u) != 0u;
  bool close = (flags & 2u) != 0u;
  uint row = (slot * pc.out_channels + ch) * NB;

  // Frames used (summed exactly: small integers in float).
  float used = cont ? carry_in[ch * RS + NB] : 0.0;
  for (uint c = 0u; c < n_chunks; c++)
    used += partial[prow_of (first + c, ch) + NB];
  float inv = used > 0.0 ? 1.0 / used : 0.0;

  for (uint k = t; k < RS; k += T) {
    float s = cont ? carry_in[ch * RS + k] : 0.0;
    if (MODE == 4u && k < NB) {
      for (uint c = 0u; c < n_chunks; c++) {
        uint prow = prow_of (first + c, ch);
        if (partial[prow + NB] > 0.0)
          s += to_db (min (partial[prow + k] * (1.0 / POWER_SUM_SCALE)
                  * gain (k), FLT_MAX), pc.db_offset);
      }
    } else {
      for (uint c = 0u; c < n_chunks; c++)
        s = min (s + partial[prow_of (first + c, ch) + k],
            FLT_MAX);
    }
    if (!close)
      carry_out[ch * RS + k] = s;
    else if (k < NB && MODE == 4u)
      outp[row + k] = used > 0.0 ? s * inv : pc.db_floor;
    else if (k < NB)            // the sums are scaled (common.glsl)
      outp[row + k] = min ((s * inv) * (1.0 / POWER_SUM_SCALE) * gain (k),
          FLT_MAX);
  }
  if (PHASE != 0u)
    phase_group (first, n_chunks, cont, close, slot, ch, inv, used > 0.0);
  if (FRAMES != 0u)
    for (uint c = 0u; c < n_chunks; c++)
      emit_frame (first + c, ch);
  if (!close)
    return;
  if (t == 0u)
    counts[slot * pc.out_channels + ch] = uint (used);
  finish_group (slot, ch, row);
}

void state_groups (uint ch)
{
  uint t = gl_LocalInvocationID.x;
  uint srow = ch * RS;
  uint crow = (pc.out_channels + ch) * RS;      // exponential: compensation
  // (every invocation reads the count; only invocation 0 writes it, at the
  // end, for the next batch)
  float carried = state[srow + NB];

  for (uint g = 0u; g < pc.n_groups; g++) {
    uint first = groups[8u * g];
    uint n_chunks = groups[8u * g + 1u];
    uint flags = groups[8u * g + 2u];
    uint slot = groups[8u * g + 3u];
    bool cont = (flags & 1u) != 0u;
    bool close = (flags & 2u) != 0u;
    bool reset = (flags & 4u) != 0u;
    uint row = (slot * pc.out_channels + ch) * NB;
    float used = cont ? carried : 0.0;

    for (uint c = 0u; c < n_chunks; c++)
      used += partial[prow_of (first + c, ch) + NB];
    for (uint k = t; k < NB; k += T) {
      float y = state[srow + k];
      // (exponential: y += beta (x - y) with the increments' rounding
      // carried in comp (Kahan), so that a long time constant, beta near
      // 1e-8, still settles on its input in float)
      float comp = MODE == 1u ? state[crow + k] : 0.0;
      // (peak hold restarts with every interval: a reset changes nothing)
      if ((reset && MODE != 2u) || (MODE == 2u && !cont)) {
        y = 0.0;
        comp = 0.0;
      }
      for (uint c = 0u; c < n_chunks; c++) {
        uint prow = prow_of (first + c, ch);
        if (!(partial[prow + NB] > 0.0))
          continue;             // no usable sample in this frame
        float x = min (partial[prow + k] * (1.0 / POWER_SUM_SCALE), FLT_MAX);
        if (MODE == 1u) {
          precise float inc = pc.beta * (x - y) - comp;
          precise float sum = y + inc;
          comp = (sum - y) - inc;
          y = sum;
        } else {
          y = max (y, x);
        }
      }
      state[srow + k] = y;
      if (MODE == 1u)
        state[crow + k] = comp;
      if (close)
        outp[row + k] = min (y * gain (k), FLT_MAX);
    }
    if (FRAMES != 0u)
      for (uint c = 0u; c < n_chunks; c++)
        emit_frame (first + c, ch);
    if (close) {
      if (t == 0u)
        counts[slot * pc.out_channels + ch] = uint (used);
      finish_group (slot, ch, row);
      carried = 0.0;
    } else {
      carried = used;
    }
    memoryBarrierBuffer ();
    barrier ();
  }
  if (t == 0u)
    state[srow + NB] = carried;
}

void main ()
{
  if (MODE == 0u || MODE == 4u)
    mean_group (gl_WorkGroupID.x, gl_WorkGroupID.y);
  else
    state_groups (gl_WorkGroupID.y);
}
