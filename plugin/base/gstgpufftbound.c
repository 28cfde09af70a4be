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

/* (blocks of 64 samples, each tested without a branch, so that the
 * compiler can vectorize the test: a buffer of audio costs a pass over its
 * bits) */
#define BLOCK 64

gsize
gst_gpu_fft_bound_find (const guint8 * p, gsize n, gboolean f64)
{
  gsize i = 0, j, end;

  while (i < n) {
    guint any = 0;

    end = MIN (n, i + BLOCK);
    if (f64) {
      for (j = i; j < end; j++) {
        guint64 w;

        memcpy (&w, p + j * 8, 8);
        any |= beyond_f64 (w);
      }
    } else {
      for (j = i; j < end; j++) {
        guint32 w;

        memcpy (&w, p + j * 4, 4);
        any |= beyond_f32 (w);
      }
    }
    if (any) {
      for (j = i; j < end; j++) {
        guint64 w64 = 0;
        guint32 w32 = 0;

        if (f64)
          memcpy (&w64, p + j * 8, 8);
        else
          memcpy (&w32, p + j * 4, 4);
        if (f64 ? beyond_f64 (w64) : beyond_f32 (w32))
          return j;
      }
    }
    i = end;
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
