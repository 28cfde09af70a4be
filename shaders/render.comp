#version 450
// The spectrogram picture (gpufft-render.h): a ring of waterfall columns on
// the device, the current spectrum with its peak-hold trace, a colour-map
// LUT and an overlay (axes, labels, colour bar, title) composed into one
// packed 32-bit pixel per output pixel.
//
// MODE 0 (columns): one invocation per (map entry e, new column j):
//   gl_GlobalInvocationID.x = e, .y = j. A map entry turns a column of
//   values (dB, n_values of them: bins or bands) into one value: count > 0:
//   the largest of v[first .. first + count); count 0: v[first] + frac *
//   (v[first + 1] - v[first]) (linear in dB). Entries 0 .. wh-1 are the
//   waterfall's rows (row 0 at the bottom), written into ring column
//   (head + j) % ww; entries wh .. wh+sw-1 the spectrum panel's x
//   positions, from the last new column only: cur = value, peak = max
//   (peak - peak_fall, value).
// MODE 1 (compose): one invocation per pixel (x = gl_GlobalInvocationID.x,
//   y = gl_GlobalInvocationID.y, y = 0 the top row). Waterfall: plot
//   column x - wx shows ring column (head + x - wx) mod ww (head: the
//   oldest column), plot row (wy + wh - 1 - y). Its word is lut[idx (v)],
//   idx (v) = round (255 clamp ((v - min_db) * inv_range, 0, 1)).
//   Spectrum panel: a bar per x up to the level's height (each pixel the
//   LUT word of the level at its height, BAR_BACKGROUND above), the
//   peak-hold trace one pixel high in `peak`. Elsewhere the overlay's word,
//   or `background` where it is 0 (transparent): the overlay is only read
//   outside the two plots (the caller draws nothing inside them).
//   lut, overlay, background, bar_background and peak are packed in the
//   output format's byte order by the caller: the pass only picks words.
// The ring is row-major ([wh][ww]) so that a row of pixels reads
// consecutive memory.
#extension GL_GOOGLE_include_directive : require

layout (constant_id = 0) const uint MODE = 0u;
layout (local_size_x = 64) in;

layout (std430, binding = 0) readonly buffer Columns { float cols[]; };
layout (std430, binding = 1) readonly buffer Map { uvec4 map[]; };
layout (std430, binding = 2) buffer Ring { float ring[]; };
layout (std430, binding = 3) buffer Spec { float spec[]; };     // [sw] cur, [sw] peak
layout (std430, binding = 4) readonly buffer Lut { uint lut[]; };
layout (std430, binding = 5) readonly buffer Overlay { uint overlay[]; };
layout (std430, binding = 6) writeonly buffer Out { uint outp[]; };

layout (push_constant) uniform Params {
  uint width, height;
  uint wx, wy, ww, wh;
  uint sx, sy, sw, sh;
  uint n_values, n_new, head;
  float min_db, inv_range, peak_fall;
  uint background, bar_background, peak;
} p;

float
map_value (uint j, uint e)
{
  uvec4 m = map[e];
  uint base = j * p.n_values;

  if (m.y > 0u) {
    float v = cols[base + m.x];
    for (uint k = 1u; k < m.y; k++)
      v = max (v, cols[base + m.x + k]);
    return v;
  } else {
    uint second = min (m.x + 1u, p.n_values - 1u);
    float a = cols[base + m.x];
    return a + uintBitsToFloat (m.z) * (cols[base + second] - a);
  }
}

float
level (float v)
{
  return clamp ((v - p.min_db) * p.inv_range, 0.0, 1.0);
}

void
columns ()
{
  uint e = gl_GlobalInvocationID.x, j = gl_GlobalInvocationID.y;

  if (j >= p.n_new)
    return;
  if (e < p.wh) {
    ring[e * p.ww + (p.head + j) % p.ww] = map_value (j, e);
  } else if (e < p.wh + p.sw && j == p.n_new - 1u) {
    uint i = e - p.wh;
    float v = map_value (j, e);

    spec[i] = v;
    spec[p.sw + i] = max (spec[p.sw + i] - p.peak_fall, v);
  }
}

uint
lut_word (float v)
{
  return lut[uint (level (v) * 255.0 + 0.5)];
}

void
compose ()
{
  uint x = gl_GlobalInvocationID.x, y = gl_GlobalInvocationID.y;
  uint c, o;

  if (x >= p.width || y >= p.height)
    return;
  if (x - p.wx < p.ww && y - p.wy < p.wh) {     // (unsigned: x >= wx too)
    uint col = p.head + (x - p.wx);
    uint row = p.wy + p.wh - 1u - y;

    if (col >= p.ww)
      col -= p.ww;
    c = lut_word (ring[row * p.ww + col]);
  } else if (x - p.sx < p.sw && y - p.sy < p.sh) {
    uint i = x - p.sx;
    uint yy = p.sy + p.sh - 1u - y;     // 0: the bottom row
    float h = level (spec[i]) * float (p.sh);
    float hp = level (spec[p.sw + i]) * float (p.sh);
    uint peak_row = min (uint (hp), p.sh - 1u);

    c = p.bar_background;
    if (float (yy) + 0.5 < h)
      c = lut[uint (255.0 * (float (yy) + 0.5) / float (p.sh) + 0.5)];
    if (hp > 0.0 && yy == peak_row)
      c = p.peak;
  } else {
    // the overlay's pixels: only outside the plots
    o = overlay[y * p.width + x];
    c = o != 0u ? o : p.background;
  }
  outp[y * p.width + x] = c;
}

void
main ()
{
  if (MODE == 0u)
    columns ();
  else
    compose ();
}
