// Raw sample loading shared by the analysis kernels (fft.comp,
// fft_any.comp, fft_cpu.comp): sample idx of the input in the kernel's
// FORMAT (0 S16, 1 S24 packed, 2 S32, 3 F32, 4 F64) as a float: integers
// divided by 2^(bits-1), F64 rounded to nearest even (NaN and infinities
// kept, denormals to zero). Word w of the input is IN_WORD(w): by default
// inw[w] of a uint storage buffer declared by the includer.
#ifndef IN_WORD
#define IN_WORD(w) inw[w]
#endif

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
    return uintBitsToFloat (IN_WORD (idx));
  if (FORMAT == 0u) {
    uint wd = IN_WORD (idx >> 1);
    return float (int (wd << (16u - 16u * (idx & 1u))) >> 16) * (1.0 / 32768.0);
  }
  if (FORMAT == 1u) {
    uint b = idx * 3u;
    uint wi = b >> 2;
    uint s = (b & 3u) * 8u;
    uint x = IN_WORD (wi) >> s;
    if (s > 8u)
      x |= IN_WORD (wi + 1u) << (32u - s);
    return float (int (x << 8) >> 8) * (1.0 / 8388608.0);
  }
  if (FORMAT == 2u)
    return float (int (IN_WORD (idx))) * (1.0 / 2147483648.0);
  return f64_to_f32 (IN_WORD (2u * idx), IN_WORD (2u * idx + 1u));
}

