/* Loudness blocks on the host (see gpufft-loudness-host.h). */
#include <math.h>
#include <string.h>

#include "gpufft-loudness-host.h"

#define TAPS GPUFFT_LOUDNESS_TAPS

/* four floats, one per phase (GCC and clang vector extensions: SSE on
 * x86-64, NEON on ARM, plain code elsewhere) */
typedef gfloat Phases __attribute__((vector_size (16)));

struct _GpufftLoudnessHost
{
  GpufftLoudnessConfig cfg;
  /* tap k of the 4 phases, those that interpolate only (a phase whose only
   * tap is 1 is the sample itself, which the sample peak has; unused
   * phases are 0), k < n_k */
  Phases tk[TAPS];
  guint n_k;
  gdouble *state;               /* [channels][4]: (s1, s2) of each biquad */
  gfloat *hist;                 /* [channels][TAPS]: the last samples,
                                 * oldest first */
  gfloat *line;                 /* one channel: TAPS history + the batch */
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
    for (k = 0; k < TAPS; k++) {
      h->tk[k][p] = (gfloat) config->tp_taps[p][k];
      if (config->tp_taps[p][k] != 0.0)
        h->n_k = MAX (h->n_k, k + 1);
    }
  }
  h->state = g_new0 (gdouble, (gsize) config->channels * 4);
  h->hist = g_new0 (gfloat, (gsize) config->channels * TAPS);
  h->line = g_new0 (gfloat, TAPS + (gsize) config->max_blocks *
      config->block_frames);
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
  g_free (h);
}

/* the largest |y_p| of the interpolating phases at the frame whose sample
 * is at v[0] (v[-k]: the samples before it) */
static inline gfloat
true_peak (const GpufftLoudnessHost * h, const gfloat * v)
{
  Phases acc = { 0, 0, 0, 0 };
  guint k;

  for (k = 0; k < h->n_k; k++)
    acc += h->tk[k] * v[-(gint) k];
  return MAX (MAX (fabsf (acc[0]), fabsf (acc[1])), MAX (fabsf (acc[2]),
          fabsf (acc[3])));
}

void
gpufft_loudness_host_run (GpufftLoudnessHost * h, const gfloat * x,
    guint n_blocks, gboolean reset, gfloat * values)
{
  const GpufftLoudnessConfig *c = &h->cfg;
  const gdouble b00 = c->b[0][0], b01 = c->b[0][1], b02 = c->b[0][2];
  const gdouble a01 = c->a[0][1], a02 = c->a[0][2];
  const gdouble b10 = c->b[1][0], b11 = c->b[1][1], b12 = c->b[1][2];
  const gdouble a11 = c->a[1][1], a12 = c->a[1][2];
  guint C = c->channels, S = c->block_frames, ch, b, i;
  gsize frames = (gsize) n_blocks * S, f;

  if (reset || !h->started) {
    memset (h->state, 0, (gsize) C * 4 * sizeof (gdouble));
    memset (h->hist, 0, (gsize) C * TAPS * sizeof (gfloat));
  }
  h->started = TRUE;
  for (ch = 0; ch < C; ch++) {
    gdouble *st = h->state + (gsize) ch * 4;
    gdouble s0 = st[0], s1 = st[1], s2 = st[2], s3 = st[3];
    gfloat *line = h->line + TAPS;

    /* the channel's samples after its history, for the interpolator */
    memcpy (h->line, h->hist + (gsize) ch * TAPS, TAPS * sizeof (gfloat));
    for (f = 0; f < frames; f++)
      line[f] = x[f * C + ch];
    for (b = 0; b < n_blocks; b++) {
      gdouble e = 0.0;
      gfloat pk = 0.0f, tp = 0.0f;
      const gfloat *v = line + (gsize) b * S;

      for (i = 0; i < S; i++) {
        gdouble in = v[i], y0, y1;

        /* transposed direct form II, as loudness.comp's cascade () */
        y0 = b00 * in + s0;
        s0 = b01 * in - a01 * y0 + s1;
        s1 = b02 * in - a02 * y0;
        y1 = b10 * y0 + s2;
        s2 = b11 * y0 - a11 * y1 + s3;
        s3 = b12 * y0 - a12 * y1;
        e += y1 * y1;
        pk = MAX (pk, fabsf (v[i]));
        if (h->n_k > 0)
          tp = MAX (tp, true_peak (h, v + i));
      }
      values[((gsize) b * C + ch) * 4] = (gfloat) e;
      values[((gsize) b * C + ch) * 4 + 1] = pk;
      values[((gsize) b * C + ch) * 4 + 2] = MAX (tp, pk);
      values[((gsize) b * C + ch) * 4 + 3] = 0.0f;
    }
    st[0] = s0;
    st[1] = s1;
    st[2] = s2;
    st[3] = s3;
    memcpy (h->hist + (gsize) ch * TAPS, line + frames - TAPS,
        TAPS * sizeof (gfloat));
  }
}
