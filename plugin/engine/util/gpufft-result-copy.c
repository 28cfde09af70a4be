/* An owned copy of a group result: see gpufft-result-copy.h. */
#include <string.h>

#include "gpufft-result-copy.h"

GpufftGroupResult *
gpufft_result_copy (const GpufftGroupResult * r)
{
  gsize n = (gsize) r->channels * r->n_bins;
  gsize o_peaks, o_counts, o_power, o_cplx, o_phase, o_bands, o_level;
  gsize o_frames, size;
  GpufftGroupResult *c;
  guint8 *mem;

  /* (the struct, then the arrays, all of 4-byte elements) */
  o_peaks = (sizeof (GpufftGroupResult) + 7) & ~(gsize) 7;
  o_counts = o_peaks + (r->peaks ?
      (gsize) r->channels * r->n_peaks * sizeof (GpufftPeak) : 0);
  o_power = o_counts + (r->channel_frames ? r->channels * sizeof (guint) : 0);
  o_cplx = o_power + (r->power ? n * sizeof (gfloat) : 0);
  o_phase = o_cplx + (r->complex_data ? 2 * n * sizeof (gfloat) : 0);
  o_bands = o_phase + (r->phase ? n * sizeof (gfloat) : 0);
  o_level = o_bands + (r->bands ?
      (gsize) r->channels * r->n_bands * sizeof (gfloat) : 0);
  o_frames = o_level + (r->level ? r->channels * sizeof (gfloat) : 0);
  size = o_frames + (r->frames ? (gsize) r->n_frames * r->channels *
      r->frame_stride * sizeof (gfloat) : 0);
  mem = g_malloc (size);
  c = (GpufftGroupResult *) mem;
  *c = *r;
#define COPY(field, o, end) G_STMT_START {                       \
    if (r->field) {                                              \
      memcpy (mem + (o), r->field, (end) - (o));                 \
      c->field = (gpointer) (mem + (o));                         \
    } } G_STMT_END
  COPY (peaks, o_peaks, o_counts);
  COPY (channel_frames, o_counts, o_power);
  COPY (power, o_power, o_cplx);
  COPY (complex_data, o_cplx, o_phase);
  COPY (phase, o_phase, o_bands);
  COPY (bands, o_bands, o_level);
  COPY (level, o_level, o_frames);
  COPY (frames, o_frames, size);
#undef COPY
  return c;
}
