// Shared helpers for the gst-gpufft compute shaders: complex arithmetic and
// the forward (e^{-2 pi i nk/R}) radix-2/4/8 butterflies on registers.

vec2 cmul (vec2 a, vec2 b)
{
  return vec2 (a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

// a * (-i)
vec2 mul_mi (vec2 a)
{
  return vec2 (a.y, -a.x);
}

void dft2 (inout vec2 a0, inout vec2 a1)
{
  vec2 t = a0;
  a0 = t + a1;
  a1 = t - a1;
}

void dft4 (inout vec2 a0, inout vec2 a1, inout vec2 a2, inout vec2 a3)
{
  vec2 t0 = a0 + a2;
  vec2 t1 = a0 - a2;
  vec2 t2 = a1 + a3;
  vec2 t3 = mul_mi (a1 - a3);
  a0 = t0 + t2;
  a1 = t1 + t3;
  a2 = t0 - t2;
  a3 = t1 - t3;
}

// In-place 8-point DFT, natural order in and out.
void dft8 (inout vec2 a0, inout vec2 a1, inout vec2 a2, inout vec2 a3,
    inout vec2 a4, inout vec2 a5, inout vec2 a6, inout vec2 a7)
{
  const float S = 0.70710678118654752;
  dft4 (a0, a2, a4, a6);        // even: E0..E3 in a0 a2 a4 a6
  dft4 (a1, a3, a5, a7);        // odd : O0..O3 in a1 a3 a5 a7
  vec2 o1 = vec2 (a3.x + a3.y, a3.y - a3.x) * S;        // O1 * W8^1
  vec2 o2 = mul_mi (a5);                                 // O2 * W8^2
  vec2 o3 = vec2 (a7.y - a7.x, -(a7.x + a7.y)) * S;      // O3 * W8^3
  vec2 e0 = a0, e1 = a2, e2 = a4, e3 = a6, o0 = a1;
  a0 = e0 + o0;
  a4 = e0 - o0;
  a1 = e1 + o1;
  a5 = e1 - o1;
  a2 = e2 + o2;
  a6 = e2 - o2;
  a3 = e3 + o3;
  a7 = e3 - o3;
}
