// Shared helpers for the gst-gpufft compute shaders: complex arithmetic and
// the forward (e^{-2 pi i nk/R}) radix-2/4/8 butterflies on registers.

// Power sums. fft.comp / fft_rows.comp accumulate each frame's scaled power
// times POWER_SUM_SCALE (2^-10), saturating at the largest float, so that
// the sums of huge but finite samples stay finite; reduce.comp multiplies
// the mean back (saturating too). Measured on lavapipe (N=1024, hann): a
// sine's levels are exact up to an amplitude of 9e18; from about 1e19 the
// loudest bins saturate at the largest float (+388 dB): finite, never inf.
const float FLT_MAX = 3.402823466e38;
const float FLT_MAX_HALF = 1.701411733e38;      // a one-sided bin doubles
const float POWER_SUM_SCALE = 1.0 / 1024.0;
const float POWER_SUM_SCALE_SQRT = 1.0 / 32.0;

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

// In-place 16-point DFT (4 x 4: radix-4 columns, twiddles e^{-2 pi i n2 k1
// / 16}, radix-4 rows), natural order in and out.
void dft16 (inout vec2 a[16])
{
  const float C1 = 0.92387953251128674;  // cos (pi/8)
  const float S1 = 0.38268343236508977;  // sin (pi/8)
  const float H = 0.70710678118654752;
  dft4 (a[0], a[4], a[8], a[12]);
  dft4 (a[1], a[5], a[9], a[13]);
  dft4 (a[2], a[6], a[10], a[14]);
  dft4 (a[3], a[7], a[11], a[15]);
  // a[4 k1 + n2] now holds y[n2][k1]; multiply by W16^(n2 k1).
  a[5] = cmul (a[5], vec2 (C1, -S1));           // n2 1, k1 1: W^1
  a[9] = cmul (a[9], vec2 (H, -H));             // n2 1, k1 2: W^2
  a[13] = cmul (a[13], vec2 (S1, -C1));         // n2 1, k1 3: W^3
  a[6] = cmul (a[6], vec2 (H, -H));             // n2 2, k1 1: W^2
  a[10] = mul_mi (a[10]);                       // n2 2, k1 2: W^4
  a[14] = cmul (a[14], vec2 (-H, -H));          // n2 2, k1 3: W^6
  a[7] = cmul (a[7], vec2 (S1, -C1));           // n2 3, k1 1: W^3
  a[11] = cmul (a[11], vec2 (-H, -H));          // n2 3, k1 2: W^6
  a[15] = cmul (a[15], vec2 (-C1, S1));         // n2 3, k1 3: W^9
  dft4 (a[0], a[1], a[2], a[3]);                // k1 0 -> X[0], X[4], X[8], X[12]
  dft4 (a[4], a[5], a[6], a[7]);                // k1 1 -> X[1], X[5], X[9], X[13]
  dft4 (a[8], a[9], a[10], a[11]);              // k1 2
  dft4 (a[12], a[13], a[14], a[15]);            // k1 3
  // a[4 k1 + k2] holds X[k1 + 4 k2]: transpose to natural order.
  vec2 t;
  t = a[1]; a[1] = a[4]; a[4] = t;
  t = a[2]; a[2] = a[8]; a[8] = t;
  t = a[3]; a[3] = a[12]; a[12] = t;
  t = a[6]; a[6] = a[9]; a[9] = t;
  t = a[7]; a[7] = a[13]; a[13] = t;
  t = a[11]; a[11] = a[14]; a[14] = t;
}
