// What the CPU devices' kernels (fft_cpu.comp, fft_cpu_large.comp) share:
// their specialization constants, bindings and push constants, the loads
// of the input (format conversion, channels, downmix) and the per-bin
// helpers. The includer defines nothing before it but the common.glsl and
// cpu_lanes.glsl includes and its size constants; `lane` is set by its
// main().
//
// Bindings: 0 input as 16-byte texels (R32G32B32A32_UINT view), 1 window
// (R32G32B32A32_SFLOAT view), 2 input as words (R32_UINT view), 3 chunk
// table, 4 partial rows, 5 complex output, 6 twiddles e^{-2 pi i m / N}
// (R32G32_SFLOAT view). Push constants: as fft.comp (FftParams).

layout (constant_id = 0) const uint FORMAT = 3; // see load.glsl
layout (constant_id = 1) const uint COMPLEX_OUT = 0;
layout (constant_id = 2) const uint DOWNMIX = 0;
// How a lane reads its 4 samples of a block (gpufft-plan-cpu.c picks the
// fastest the layout allows): LOAD_WORDS any format and layout, word by
// word; LOAD_VEC one channel's samples in a row (sstride 1), F32, S32, S16
// or F64, every frame and plane starting on a 16-byte boundary; LOAD_IL2,
// LOAD_IL4 F32 or S32 interleaved 2 or 4 channels, frames on 16 bytes.
layout (constant_id = 3) const uint LOAD = 0;
const uint LOAD_WORDS = 0u, LOAD_VEC = 1u, LOAD_IL2 = 2u, LOAD_IL4 = 3u;

layout (local_size_x = 8) in;

layout (binding = 0) uniform usamplerBuffer in_texels;
layout (binding = 1) uniform samplerBuffer win_texels;
layout (binding = 2) uniform usamplerBuffer in_words;
layout (binding = 6) uniform samplerBuffer tw_texels;
layout (std430, binding = 3) readonly buffer Chunks { uvec4 chunks[]; };
layout (std430, binding = 4) writeonly buffer Partial { float partial[]; };
layout (std430, binding = 5) writeonly buffer ComplexOut { vec2 cplx[]; };

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
  uint frame_base;
  float edge;
  uint chunk_base;
  uint partial_base;
} pc;

#define IN_WORD(w) texelFetch (in_words, int (w)).x
#include "load.glsl"

const uint F32 = 3u, S32 = 2u, S16 = 0u, F64 = 4u;

uvec4 texel (uint t)
{
  return texelFetch (in_texels, int (t));
}

vec4 s32_to_f (uvec4 t)
{
  return vec4 (ivec4 (t)) * (1.0 / 2147483648.0);
}

vec4 words_to_f (uvec4 t)
{
  return FORMAT == F32 ? uintBitsToFloat (t) : s32_to_f (t);
}

// The samples n .. n + 3 (n a multiple of 4) of channel c of the frame
// that starts at instant `start`.
vec4 load4 (uint start, uint n, uint c)
{
  uint n0 = start + n;                          // instant

  if (LOAD == LOAD_VEC) {
    uint i0 = n0 + c * pc.cstride;              // sample index
    if (FORMAT == S16) {
      uvec4 t = texel (i0 >> 3);
      uvec2 w = ((i0 >> 2) & 1u) != 0u ? t.zw : t.xy;
      return vec4 (ivec4 (ivec2 (w << 16) >> 16, ivec2 (w) >> 16).xzyw)
          * (1.0 / 32768.0);
    }
    if (FORMAT == F64) {
      uvec4 a = texel (i0 >> 1), b = texel ((i0 >> 1) + 1u);
      return vec4 (f64_to_f32 (a.x, a.y), f64_to_f32 (a.z, a.w),
          f64_to_f32 (b.x, b.y), f64_to_f32 (b.z, b.w));
    }
    return words_to_f (texel (i0 >> 2));
  }
  if (LOAD == LOAD_IL2) {                       // words 2 n0 .. 2 n0 + 7
    uvec4 a = texel (n0 >> 1), b = texel ((n0 >> 1) + 1u);
    vec4 x = words_to_f (uvec4 (a.xz, b.xz)), y = words_to_f (uvec4 (a.yw,
            b.yw));
    return DOWNMIX != 0u ? x + y : (c == 0u ? x : y);
  }
  if (LOAD == LOAD_IL4) {                       // words 4 n0 .. 4 n0 + 15
    vec4 t0 = words_to_f (texel (n0)), t1 = words_to_f (texel (n0 + 1u));
    vec4 t2 = words_to_f (texel (n0 + 2u)), t3 = words_to_f (texel (n0 + 3u));
    if (DOWNMIX != 0u)
      return vec4 (dot (t0, vec4 (1.0)), dot (t1, vec4 (1.0)),
          dot (t2, vec4 (1.0)), dot (t3, vec4 (1.0)));
    return c == 0u ? vec4 (t0.x, t1.x, t2.x, t3.x) :
        c == 1u ? vec4 (t0.y, t1.y, t2.y, t3.y) :
        c == 2u ? vec4 (t0.z, t1.z, t2.z, t3.z) : vec4 (t0.w, t1.w, t2.w,
        t3.w);
  }
  uint i = n0 * pc.sstride + c * pc.cstride;
  return vec4 (load_raw (i), load_raw (i + pc.sstride),
      load_raw (i + 2u * pc.sstride), load_raw (i + 3u * pc.sstride));
}

// X[k] of the real input from a = Z[k], b = Z[M - k], w = e^{-2 pi i k/N}.
vec2 real_bin (vec2 a, vec2 b, vec2 w)
{
  vec2 bc = vec2 (b.x, -b.y);
  return 0.5 * (a + bc) + cmul (w, 0.5 * mul_mi (a - bc));
}

float bin_power (vec2 x, float s)
{
  vec2 xs = x * s;
  return min (dot (xs, xs), FLT_MAX_HALF);
}

bool finite2 (vec2 x)
{
  return !any (isnan (x)) && !any (isinf (x));
}

