#version 450
// Group reduction and peak search. One workgroup per (group, output channel):
// gl_WorkGroupID.x = group of this batch, .y = output channel.
//  - sums the partial rows of the group's chunks (plus the carried sum when
//    the group continues one left open by the previous batch);
//  - an open group stores its sum for the next batch (carry_out);
//  - the last entry of each partial row counts the frames summed (frames
//    with NaN or infinite samples are left out by fft.comp), so the mean
//    is over the frames actually used;
//  - a closed group stores its mean power and frame count, finds the n_peaks largest local
//    maxima in [peak_lo, peak_hi] (with their neighbours' power), then
//    optionally turns the mean power into floored dB in place.
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

layout (constant_id = 0) const uint M = 512;    // N / 2 (any size)
layout (constant_id = 1) const uint T = 64;
layout (local_size_x_id = 1) in;

const uint NB = M + 1u;
const uint RS = NB + 1u;        // partial / carry row: sums + frames used
const uint NONE = 0xffffffffu;

layout (std430, binding = 0) readonly buffer Partial { float partial[]; };
layout (std430, binding = 1) readonly buffer CarryIn { float carry_in[]; };
layout (std430, binding = 2) writeonly buffer CarryOut { float carry_out[]; };
layout (std430, binding = 3) coherent buffer Out { float outp[]; };
// Per peak: bin, then float bits of power at bin-1, bin, bin+1.
layout (std430, binding = 4) writeonly buffer Peaks { uvec4 peaks[]; };
// Per group (8 uints): first chunk, chunk count, flags (1 continue, 2 close),
// output slot, 4 unused.
layout (std430, binding = 5) readonly buffer Groups { uint groups[]; };
// Frames averaged per (output slot, channel).
layout (std430, binding = 6) writeonly buffer Counts { uint counts[]; };

layout (push_constant) uniform Params
{
  uint out_channels;
  uint peak_lo;
  uint peak_hi;
  uint n_peaks;
  uint output_db;
  float db_offset;
  float db_floor;
} pc;

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

void main ()
{
  uint t = gl_LocalInvocationID.x;
  uint g = gl_WorkGroupID.x;
  uint ch = gl_WorkGroupID.y;
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
    used += partial[((first + c) * pc.out_channels + ch) * RS + NB];
  float inv = used > 0.0 ? 1.0 / used : 0.0;

  for (uint k = t; k < RS; k += T) {
    float s = cont ? carry_in[ch * RS + k] : 0.0;
    for (uint c = 0u; c < n_chunks; c++)
      s = min (s + partial[((first + c) * pc.out_channels + ch) * RS + k],
          FLT_MAX);
    if (!close)
      carry_out[ch * RS + k] = s;
    else if (k < NB)            // the sums are scaled (common.glsl)
      outp[row + k] = min ((s * inv) * (1.0 / POWER_SUM_SCALE), FLT_MAX);
  }
  if (!close)
    return;
  if (t == 0u)
    counts[slot * pc.out_channels + ch] = uint (used);

  if (pc.n_peaks > 0u) {
    memoryBarrierBuffer ();
    barrier ();
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

  if (pc.output_db != 0u) {
    memoryBarrierBuffer ();
    barrier ();
    for (uint k = t; k < NB; k += T) {
      float p = outp[row + k];
      // 10 log10 p = (10 log10 2) log2 p; log2(0) = -inf -> floor.
      float db = 3.0102999566398120 * log2 (p) + pc.db_offset;
      outp[row + k] = (db > pc.db_floor || isnan (db)) ? db : pc.db_floor;
    }
  }
}
