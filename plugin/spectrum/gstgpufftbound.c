/* GstGpuFftBase: samples beyond the magnitude the analysis takes (see the
 * header). */
#include <string.h>

#include "gstgpufftbound.h"

/* |x| as bits: beyond 2^32 (0x4f800000, 0x41f0000000000000) and below
 * infinity (0x7f800000, 0x7ff0000000000000): one unsigned comparison */
#define F32_LO 0x4f800001u
#define F32_SPAN (0x7f800000u - F32_LO)
#define F64_LO G_GUINT64_CONSTANT (0x41f0000000000001)
#define F64_SPAN (G_GUINT64_CONSTANT (0x7ff0000000000000) - F64_LO)
/* (the high words alone: 2^32 or more, below infinity) */
#define F64_HI_LO 0x41f00000u
#define F64_HI_SPAN (0x7ff00000u - F64_HI_LO)

static inline gboolean
beyond_f32 (guint32 w)
{
  return (w & 0x7fffffffu) - F32_LO < F32_SPAN;
}

static inline gboolean
beyond_f64 (guint64 w)
{
  return (w & G_GUINT64_CONSTANT (0x7fffffffffffffff)) - F64_LO < F64_SPAN;
}

/* Whether any of n samples is beyond: one pass over their bits, an OR of
 * comparisons without a branch, in four 32-bit lanes where the compiler
 * has vector types (SSE2 on x86-64, NEON on ARM; F64: the high words of
 * little-endian samples), one at a time elsewhere; a candidate may be
 * found where there is none (F64: exactly +-2^32), never the reverse */
#if defined(__GNUC__)
typedef guint32 BoundU32x4 __attribute__ ((vector_size (16)));
typedef gint32 BoundI32x4 __attribute__ ((vector_size (16)));
#define BOUND_VECTORS 1
#endif

static gboolean
any_beyond (const guint8 * p, gsize n, gboolean f64)
{
  guint64 acc = 0;
  gsize i = 0;

  if (f64) {
#ifdef BOUND_VECTORS
    /* (a candidate where the high word's magnitude is 2^32 or more and not
     * all ones in the exponent: the exact test follows in
     * gst_gpu_fft_bound_find; 32-bit lanes, the low words masked to 0,
     * which no comparison takes) */
    const BoundU32x4 mask = { 0, 0x7fffffffu, 0, 0x7fffffffu };
    const BoundU32x4 lo = { F64_HI_LO, F64_HI_LO, F64_HI_LO, F64_HI_LO };
    const BoundU32x4 span = { F64_HI_SPAN, F64_HI_SPAN, F64_HI_SPAN,
      F64_HI_SPAN
    };
    BoundI32x4 v = { 0, 0, 0, 0 };

    for (; i + 4 <= n; i += 4) {
      BoundU32x4 a, b;

      memcpy (&a, p + i * 8, 16);
      memcpy (&b, p + i * 8 + 16, 16);
      v |= ((a & mask) - lo < span) | ((b & mask) - lo < span);
    }
    acc = (guint32) (v[1] | v[3]);
#endif
    for (; i < n; i++) {
      guint64 w;

      memcpy (&w, p + i * 8, 8);
      acc |= beyond_f64 (w);
    }
  } else {
#ifdef BOUND_VECTORS
    const BoundU32x4 mask = { 0x7fffffffu, 0x7fffffffu, 0x7fffffffu,
      0x7fffffffu
    };
    const BoundU32x4 lo = { F32_LO, F32_LO, F32_LO, F32_LO };
    const BoundU32x4 span = { F32_SPAN, F32_SPAN, F32_SPAN, F32_SPAN };
    BoundI32x4 v = { 0, 0, 0, 0 };

    for (; i + 8 <= n; i += 8) {
      BoundU32x4 a, b;

      memcpy (&a, p + i * 4, 16);
      memcpy (&b, p + i * 4 + 16, 16);
      v |= ((a & mask) - lo < span) | ((b & mask) - lo < span);
    }
    acc = (guint32) (v[0] | v[1] | v[2] | v[3]);
#endif
    for (; i < n; i++) {
      guint32 w;

      memcpy (&w, p + i * 4, 4);
      acc |= beyond_f32 (w);
    }
  }
  return acc != 0;
}

gsize
gst_gpu_fft_bound_find (const guint8 * p, gsize n, gboolean f64)
{
  gsize i;

  if (!any_beyond (p, n, f64))
    return n;
  for (i = 0; i < n; i++) {
    guint64 w64 = 0;
    guint32 w32 = 0;

    if (f64)
      memcpy (&w64, p + i * 8, 8);
    else
      memcpy (&w32, p + i * 4, 4);
    if (f64 ? beyond_f64 (w64) : beyond_f32 (w32))
      return i;
  }
  return n;
}

gsize
gst_gpu_fft_bound_copy (guint8 * dst, const guint8 * src, gsize n,
    gboolean f64)
{
  const guint32 nan32 = 0x7fc00000u;
  const guint64 nan64 = G_GUINT64_CONSTANT (0x7ff8000000000000);
  gsize i, count = 0;

  memcpy (dst, src, n * (f64 ? 8 : 4));
  for (i = 0; i < n; i++) {
    if (f64) {
      guint64 w;

      memcpy (&w, dst + i * 8, 8);
      if (beyond_f64 (w)) {
        memcpy (dst + i * 8, &nan64, 8);
        count++;
      }
    } else {
      guint32 w;

      memcpy (&w, dst + i * 4, 4);
      if (beyond_f32 (w)) {
        memcpy (dst + i * 4, &nan32, 4);
        count++;
      }
    }
  }
  return count;
}
