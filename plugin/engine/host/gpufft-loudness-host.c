/* Loudness blocks on the host (see gpufft-loudness-host.h). */
#include <math.h>
#include <string.h>

#include "gpufft-loudness-host.h"
#include "gpufft-simd.h"

#define TAPS GPUFFT_LOUDNESS_TAPS

/* four floats, one per phase (GCC and clang vector extensions: SSE on
 * x86-64, NEON on ARM, plain code elsewhere) */
typedef gfloat Phases __attribute__((vector_size (16)));
/* two channels' values of a frame (the filter's latency per frame as a
 * scalar's: pairs of channels cost what one did), and eight frames of a
 * channel */
typedef gdouble Lanes2 __attribute__((vector_size (16)));
typedef gfloat Floats8 __attribute__((vector_size (32)));
typedef gint64 Mask2 __attribute__((vector_size (16)));
typedef gint32 Mask8 __attribute__((vector_size (32)));

/* |v| and max (a, b) lane by lane, for finite values (macros: a function
 * taking 32-byte vectors has an ABI of its own without AVX) */
#define ABS2(v) ((Lanes2) ((Mask2) (v) & G_GINT64_CONSTANT (0x7fffffffffffffff)))
#define ABS8(v) ((Floats8) ((Mask8) (v) & 0x7fffffff))
#define MAX_LANES(T, M, a, b) \
  ({ M m_ = (a) > (b); (T) (((M) (a) & m_) | ((M) (b) & ~m_)); })

struct _GpufftLoudnessHost
{
  GpufftLoudnessConfig cfg;
  /* tap k of the 4 phases, those that interpolate only (a phase whose only
   * tap is 1 is the sample itself, which the sample peak has; unused
   * phases are 0), k < n_k */
  Phases tk[TAPS];
  guint n_k;
  gboolean phase_used[4];       /* a phase with taps in tk */
  gdouble *state;               /* [channels][4]: (s1, s2) of each biquad */
  gfloat *hist;                 /* [channels][TAPS]: the last samples,
                                 * oldest first */
  gfloat *line;                 /* one channel: TAPS history + the batch
                                 * (+ 8 floats read past its end) */
  gfloat *tp;                   /* [max_blocks]: one channel's true peaks */
  Lanes2 *lanes;                /* [max_blocks * block_frames]: two
                                 * channels' frames (NULL for one
                                 * channel) */
  gboolean started;
};

GpufftLoudnessHost *
gpufft_loudness_host_new (const GpufftLoudnessConfig * config)
{
  GpufftLoudnessHost *h = g_new0 (GpufftLoudnessHost, 1);
  guint p, k;

  h->cfg = *config;
  for (p = 0; p < config->tp_phases; p++) {
    guint nz = 0, lo = 0;

    for (k = 0; k < TAPS; k++)
      if (config->tp_taps[p][k] != 0.0 && nz++ == 0)
        lo = k;
    if (nz == 0 || (nz == 1 && config->tp_taps[p][lo] == 1.0))
      continue;
    h->phase_used[p] = TRUE;
    for (k = 0; k < TAPS; k++) {
      h->tk[k][p] = (gfloat) config->tp_taps[p][k];
      if (config->tp_taps[p][k] != 0.0)
        h->n_k = MAX (h->n_k, k + 1);
    }
  }
  h->state = g_new0 (gdouble, (gsize) config->channels * 4);
  h->hist = g_new0 (gfloat, (gsize) config->channels * TAPS);
  h->line = g_new0 (gfloat, TAPS + (gsize) config->max_blocks *
      config->block_frames + 8);
  h->tp = g_new0 (gfloat, config->max_blocks);
  /* (pairs of channels only: a lone one is filtered in place) */
  if (config->channels >= 2)
    h->lanes = g_aligned_alloc ((gsize) config->max_blocks *
        config->block_frames, sizeof (Lanes2), sizeof (Lanes2));
  return h;
}

void
gpufft_loudness_host_free (GpufftLoudnessHost * h)
{
  if (!h)
    return;
  g_free (h->state);
  g_free (h->hist);
  g_free (h->line);
  g_free (h->tp);
  g_aligned_free (h->lanes);
  g_free (h);
}

/* The K cascade's coefficients from config c, as locals */
#define K_COEFFICIENTS(c) \
  const gdouble b00 = (c)->b[0][0], b01 = (c)->b[0][1], b02 = (c)->b[0][2]; \
  const gdouble a01 = (c)->a[0][1], a02 = (c)->a[0][2]; \
  const gdouble b10 = (c)->b[1][0], b11 = (c)->b[1][1], b12 = (c)->b[1][2]; \
  const gdouble a11 = (c)->a[1][1], a12 = (c)->a[1][2]

/* One sample `in` through the cascade (states s0 .. s3, outputs y0 and y1),
 * transposed direct form II, as loudness.comp's cascade (): for doubles
 * and for lanes of doubles alike */
#define K_STEP(in, y0, y1) \
  do { \
    y0 = b00 * (in) + s0; \
    s0 = b01 * (in) - a01 * y0 + s1; \
    s1 = b02 * (in) - a02 * y0; \
    y1 = b10 * y0 + s2; \
    s2 = b11 * y0 - a11 * y1 + s3; \
    s3 = b12 * y0 - a12 * y1; \
  } while (0)

/* The K filter over channel ch alone (a single channel, or the last of an
 * odd count: one lane of a vector costs more than a scalar), read from
 * the interleaved x: each block's energy and sample peak into values. */
static void
filter_one (GpufftLoudnessHost * h, const gfloat * x, guint ch,
    guint n_blocks, gfloat * values)
{
  const GpufftLoudnessConfig *c = &h->cfg;
  K_COEFFICIENTS (c);
  guint C = c->channels, S = c->block_frames, b, i;
  gdouble *st = h->state + (gsize) ch * 4;
  gdouble s0 = st[0], s1 = st[1], s2 = st[2], s3 = st[3];

  for (b = 0; b < n_blocks; b++) {
    const gfloat *v = x + (gsize) b * S * C + ch;
    gfloat *out = values + ((gsize) b * C + ch) * 4;
    gdouble e = 0.0;
    gfloat pk = 0.0f;

    for (i = 0; i < S; i++) {
      gdouble in = v[(gsize) i * C], y0, y1;

      K_STEP (in, y0, y1);
      e += y1 * y1;
      pk = MAX (pk, fabsf (v[(gsize) i * C]));
    }
    out[0] = (gfloat) e;
    out[1] = pk;
    out[3] = 0.0f;
  }
  st[0] = s0;
  st[1] = s1;
  st[2] = s2;
  st[3] = s3;
}

/* The K filter over frames of two channels at once, one per lane
 * (xg[f]: frame f's samples of channels g and g + 1):
 * each block's energy and sample peak into values. The arithmetic of each
 * lane is the sequential filter's, operation for operation. */
static void
filter_lanes (GpufftLoudnessHost * h, const Lanes2 * xg, guint g,
    guint n_blocks, gfloat * values)
{
  const GpufftLoudnessConfig *c = &h->cfg;
  K_COEFFICIENTS (c);
  guint C = c->channels, S = c->block_frames, b, i, l;
  Lanes2 s0 = { 0 }, s1 = { 0 }, s2 = { 0 }, s3 = { 0 };

  for (l = 0; l < 2; l++) {
    const gdouble *st = h->state + (gsize) (g + l) * 4;

    s0[l] = st[0];
    s1[l] = st[1];
    s2[l] = st[2];
    s3[l] = st[3];
  }
  for (b = 0; b < n_blocks; b++) {
    const Lanes2 *v = xg + (gsize) b * S;
    Lanes2 e = { 0 }, pk = { 0 };

    for (i = 0; i < S; i++) {
      Lanes2 in = v[i], y0, y1;

      K_STEP (in, y0, y1);
      e += y1 * y1;
      pk = MAX_LANES (Lanes2, Mask2, ABS2 (in), pk);
    }
    for (l = 0; l < 2; l++) {
      gfloat *out = values + ((gsize) b * C + g + l) * 4;

      out[0] = (gfloat) e[l];
      out[1] = (gfloat) pk[l];
      out[3] = 0.0f;
    }
  }
  for (l = 0; l < 2; l++) {
    gdouble *st = h->state + (gsize) (g + l) * 4;

    st[0] = s0[l];
    st[1] = s1[l];
    st[2] = s2[l];
    st[3] = s3[l];
  }
}

/* The largest |y_p (f)| of each block of one channel, eight frames at a
 * time (line[f]: the channel's frame f, line[-k]: the history before it;
 * frames a multiple of 8 lie beyond the batch's end, read and not
 * counted): y_p (f) = sum over k < n_k of tk[k][p] line[f - k], the taps
 * in order, as the per-frame form. */
static void GPUFFT_AVX2_CLONES
true_peaks (const GpufftLoudnessHost * h, const gfloat * line, guint S,
    guint n_blocks, gfloat * tp)
{
  guint b, i, k, p, l;

  for (b = 0; b < n_blocks; b++) {
    const gfloat *v = line + (gsize) b * S;
    Floats8 top = { 0 };

    for (i = 0; i < S; i += 8) {
      for (p = 0; p < 4; p++) {
        Floats8 acc = { 0 };

        if (!h->phase_used[p])
          continue;
        for (k = 0; k < h->n_k; k++) {
          Floats8 x;

          memcpy (&x, v + i - k, sizeof (x));
          acc += h->tk[k][p] * x;
        }
        acc = ABS8 (acc);
        /* (frames past the block's end left out) */
        if (i + 8 > S)
          for (l = S - i; l < 8; l++)
            acc[l] = 0.0f;
        top = MAX_LANES (Floats8, Mask8, acc, top);
      }
    }
    tp[b] = 0.0f;
    for (l = 0; l < 8; l++)
      tp[b] = MAX (tp[b], top[l]);
  }
}

void
gpufft_loudness_host_run (GpufftLoudnessHost * h, const gfloat * x,
    guint n_blocks, gboolean reset, gfloat * values)
{
  const GpufftLoudnessConfig *c = &h->cfg;
  guint C = c->channels, S = c->block_frames, ch, b, g, l;
  gsize frames = (gsize) n_blocks * S, f;

  if (reset || !h->started) {
    memset (h->state, 0, (gsize) C * 4 * sizeof (gdouble));
    memset (h->hist, 0, (gsize) C * TAPS * sizeof (gfloat));
  }
  h->started = TRUE;
  for (g = 0; g + 2 <= C; g += 2) {
    gdouble *d = (gdouble *) h->lanes;

    for (f = 0; f < frames; f++)
      for (l = 0; l < 2; l++)
        d[f * 2 + l] = x[f * C + g + l];
    filter_lanes (h, h->lanes, g, n_blocks, values);
  }
  if (g < C)
    filter_one (h, x, g, n_blocks, values);
  for (ch = 0; ch < C; ch++) {
    gfloat *line = h->line + TAPS;

    if (h->n_k == 0) {
      for (b = 0; b < n_blocks; b++)
        values[((gsize) b * C + ch) * 4 + 2] =
            values[((gsize) b * C + ch) * 4 + 1];
      continue;
    }
    /* the channel's samples after its history, for the interpolator */
    memcpy (h->line, h->hist + (gsize) ch * TAPS, TAPS * sizeof (gfloat));
    for (f = 0; f < frames; f++)
      line[f] = x[f * C + ch];
    true_peaks (h, line, S, n_blocks, h->tp);
    for (b = 0; b < n_blocks; b++) {
      gfloat *out = values + ((gsize) b * C + ch) * 4;

      out[2] = MAX (h->tp[b], out[1]);
    }
    memcpy (h->hist + (gsize) ch * TAPS, line + frames - TAPS,
        TAPS * sizeof (gfloat));
  }
}
