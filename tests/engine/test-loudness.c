/* Loudness blocks (gpufft-loudness.h) against a double-precision
 * reference written out here: BS.1770-4's K-weighting filter at 48 kHz
 * (its published coefficients) run sample by sample in double, each
 * block's sum of squares, the sample peak, and the interpolator's phases
 * as direct convolutions. Batches of uneven sizes, a reset, block sizes
 * that 64 chunks do not divide, 1 to 64 channels, 1, 2 and 4 phases. */
#include <math.h>
#include <string.h>

#include "engine-test.h"
#include "gpufft-loudness.h"

/* ITU-R BS.1770-4, Tables 1 and 2 (48 kHz) */
static const gdouble bs_b[2][3] = {
  {1.53512485958697, -2.69169618940638, 1.19839281085285},
  {1.0, -2.0, 1.0}
};

static const gdouble bs_a[2][3] = {
  {1.0, -1.69065929318241, 0.73248077421585},
  {1.0, -1.99004745483398, 0.99007225036621}
};

typedef struct
{
  GMutex lock;
  GArray *values;               /* floats, [block][channel][4] */
  guint batches;
  guint64 last_tag;
  gboolean failed;
} Collect;

static void
collect_cb (const GpufftLoudnessResult * r, const GError * error, gpointer data)
{
  Collect *c = data;

  g_mutex_lock (&c->lock);
  if (error)
    c->failed = TRUE;
  else {
    g_array_append_vals (c->values, r->values, r->n_blocks * r->channels * 4);
    if (r->tag != c->batches)
      c->failed = TRUE;         /* out of order */
    c->batches++;
  }
  g_mutex_unlock (&c->lock);
}

/* the reference: per channel, the filter in double (direct form I, an
 * other form than the engine's) from rest at `reset` frames */
static void
reference (const gfloat * x, gsize frames, guint ch, guint S,
    const gsize * resets, guint n_resets,
    const gdouble taps[4][GPUFFT_LOUDNESS_TAPS], guint phases, gdouble * energy,
    gdouble * pk, gdouble * tp)
{
  guint c, r;
  gsize f;

  for (c = 0; c < ch; c++) {
    gdouble x1[2] = { 0 }, x2[2] = { 0 }, y1[2] = { 0 }, y2[2] = { 0 };
    gsize start = 0;

    for (f = 0; f < frames; f++) {
      gdouble v = x[f * ch + c], in = v, out = 0;
      gsize b = f / S;
      guint st, p, k;

      for (r = 0; r < n_resets; r++)
        if (resets[r] == f) {
          memset (x1, 0, sizeof (x1));
          memset (x2, 0, sizeof (x2));
          memset (y1, 0, sizeof (y1));
          memset (y2, 0, sizeof (y2));
          start = f;
        }
      for (st = 0; st < 2; st++) {
        out = bs_b[st][0] * in + bs_b[st][1] * x1[st] + bs_b[st][2] * x2[st]
            - bs_a[st][1] * y1[st] - bs_a[st][2] * y2[st];
        x2[st] = x1[st];
        x1[st] = in;
        y2[st] = y1[st];
        y1[st] = out;
        in = out;
      }
      energy[b * ch + c] += out * out;
      pk[b * ch + c] = MAX (pk[b * ch + c], fabs (v));
      tp[b * ch + c] = MAX (tp[b * ch + c], fabs (v));
      for (p = 0; p < phases; p++) {
        gdouble acc = 0;

        for (k = 0; k < GPUFFT_LOUDNESS_TAPS; k++)
          if (f >= start + k)
            acc += taps[p][k] * x[(f - k) * ch + c];
        tp[b * ch + c] = MAX (tp[b * ch + c], fabs (acc));
      }
    }
  }
}

/* (no_device: gpufft_loudness_new without a context, the host path) */
static gboolean no_device;

static void
run_case (guint ch, guint S, guint phases, const guint * batches,
    guint n_batches, guint reset_batch)
{
  GpufftContext *ctx = no_device ? NULL : et_context ();
  GpufftLoudnessConfig cfg;
  GpufftLoudness *lo;
  Collect col;
  GError *err = NULL;
  guint max_blocks = 0, i, total = 0, n_resets = 0;
  gsize frames, f, resets[1];
  gfloat *x;
  gdouble *energy, *pk, *tp, worst_e = 0, worst_tp = 0;
  GRand *rand = g_rand_new_with_seed (ch * 1000 + S);
  gboolean ok;
  /* relative, on each block's energy: the engine filters in double where
   * the device has it (1e-7 here: the float input and sums), else in float
   * (GPUFFT_LOUDNESS_F32), where a quiet block after a loud one, while the
   * high-pass still rings, is up to 2.5 % off (0.11 dB) */
  gdouble tol = g_getenv ("GPUFFT_LOUDNESS_F32") ? 3e-2 : 1e-6;

  if (!ctx && !no_device)
    return;
  for (i = 0; i < n_batches; i++) {
    max_blocks = MAX (max_blocks, batches[i]);
    total += batches[i];
  }
  frames = (gsize) total *S;
  /* noise, a low tone (the high-pass's region), a high tone near the
   * interpolator's band edge, a quiet stretch */
  x = g_new (gfloat, frames * ch);
  for (f = 0; f < frames; f++)
    for (i = 0; i < ch; i++) {
      gdouble t = f / 48000.0, amp = (f / S) % 5 == 3 ? 1e-3 : 1.0;

      x[f * ch + i] = (gfloat) (amp * (0.3 * g_rand_double_range (rand, -1,
                  1) + 0.3 * sin (2 * G_PI * (30.0 + 7 * i) * t) +
              0.3 * sin (2 * G_PI * (11000.0 + 100 * i) * t + i)));
    }

  memset (&cfg, 0, sizeof (cfg));
  cfg.channels = ch;
  cfg.block_frames = S;
  cfg.max_blocks = max_blocks;
  memcpy (cfg.b, bs_b, sizeof (bs_b));
  memcpy (cfg.a, bs_a, sizeof (bs_a));
  /* (2 phases: the 96 kHz interpolator, 24 taps) */
  gpufft_loudness_tp_taps (phases == 2 ? 96000 : 48000, cfg.tp_taps);
  cfg.tp_phases = phases;
  g_mutex_init (&col.lock);
  col.values = g_array_new (FALSE, FALSE, sizeof (gfloat));
  col.batches = 0;
  col.failed = FALSE;
  lo = gpufft_loudness_new (ctx, &cfg, collect_cb, &col, &err);
  g_assert_no_error (err);

  f = 0;
  for (i = 0; i < n_batches; i++) {
    gfloat *st = gpufft_loudness_staging (lo, &err);

    g_assert_no_error (err);
    memcpy (st, x + f * ch, (gsize) batches[i] * S * ch * sizeof (gfloat));
    if (i == reset_batch)
      resets[n_resets++] = f;
    ok = gpufft_loudness_submit (lo, batches[i], i == reset_batch, i, &err);
    g_assert_no_error (err);
    g_assert_true (ok);
    f += (gsize) batches[i] * S;
  }
  gpufft_loudness_flush (lo);
  g_assert_false (col.failed);
  g_assert_cmpuint (col.values->len, ==, total * ch * 4);

  energy = g_new0 (gdouble, total * ch);
  pk = g_new0 (gdouble, total * ch);
  tp = g_new0 (gdouble, total * ch);
  reference (x, frames, ch, S, resets, n_resets, cfg.tp_taps, phases,
      energy, pk, tp);
  for (i = 0; i < total * ch; i++) {
    const gfloat *v = &g_array_index (col.values, gfloat, 4 * i);
    gdouble e = fabs (v[0] - energy[i]) / energy[i];
    gdouble t = phases ? fabs (v[2] - tp[i]) / tp[i] : 0;

    worst_e = MAX (worst_e, e);
    worst_tp = MAX (worst_tp, t);
    if (e > tol)
      et_fail ("%u ch, S %u: block %u channel %u energy %.9g, reference "
          "%.9g", ch, S, i / ch, i % ch, v[0], energy[i]);
    if ((gfloat) pk[i] != v[1])
      et_fail ("%u ch, S %u: block %u channel %u sample peak %.9g, "
          "reference %.9g", ch, S, i / ch, i % ch, v[1], pk[i]);
    if (phases == 0 && v[2] != v[1])
      et_fail ("without phases the true peak is the sample peak");
    if (t > 1e-5)
      et_fail ("%u ch, S %u: block %u channel %u true peak %.9g, reference "
          "%.9g", ch, S, i / ch, i % ch, v[2], tp[i]);
  }
  g_test_message ("%u channels, %u frames a block, %u phases: worst "
      "relative error energy %.2g, true peak %.2g", ch, S, phases, worst_e,
      worst_tp);
  gpufft_loudness_free (lo);
  g_array_unref (col.values);
  g_mutex_clear (&col.lock);
  g_free (energy);
  g_free (pk);
  g_free (tp);
  g_free (x);
  g_rand_free (rand);
}

static void
test_stereo (void)
{
  const guint b[] = { 1, 3, 7, 2, 10, 1 };

  /* 100 ms at 48 kHz; a reset at the fourth batch */
  run_case (2, 4800, 4, b, G_N_ELEMENTS (b), 3);
}

static void
test_uneven_chunks (void)
{
  const guint b[] = { 2, 5, 1 };

  /* 100 ms at 44.1 kHz and at 8 kHz (64 chunks of 68/69 and 12/13) */
  run_case (1, 4410, 4, b, G_N_ELEMENTS (b), G_MAXUINT);
  run_case (3, 800, 2, b, G_N_ELEMENTS (b), 0);
}

static void
test_many_channels (void)
{
  const guint b[] = { 4, 4 };

  run_case (64, 1103, 1, b, G_N_ELEMENTS (b), G_MAXUINT);
  run_case (6, 4800, 0, b, G_N_ELEMENTS (b), 1);
}

static void
test_long_batch (void)
{
  const guint b[] = { 1500, 3 };

  /* 10 ms blocks, more than 1024 in a batch (64 chunks each: more than
   * 65535 chunks, llvmpipe's longest loop) */
  run_case (1, 480, 0, b, G_N_ELEMENTS (b), G_MAXUINT);
}

/* Without a device: the host computes every batch (results delivered
 * before submit returns), with the same bounds. */
static void
test_no_device (void)
{
  no_device = TRUE;
  test_stereo ();
  test_uneven_chunks ();
  test_many_channels ();
  no_device = FALSE;
}

static void
test_taps (void)
{
  gdouble taps[4][GPUFFT_LOUDNESS_TAPS];
  guint p, k;

  g_assert_cmpuint (gpufft_loudness_tp_taps (192000, taps), ==, 1);
  g_assert_cmpfloat (taps[0][0], ==, 1.0);
  g_assert_cmpuint (gpufft_loudness_tp_taps (44100, taps), ==, 4);
  /* every phase passes a constant (gain 1 within 1 %), phase 0 is the
   * sample itself (the sinc's zeros) */
  for (p = 0; p < 4; p++) {
    gdouble sum = 0;

    for (k = 0; k < GPUFFT_LOUDNESS_TAPS; k++)
      sum += taps[p][k];
    /* (a 49-tap Hann sinc: 0.97 at DC) */
    g_assert_cmpfloat_with_epsilon (sum, 1.0, 0.05);
  }
  for (k = 0; k < GPUFFT_LOUDNESS_TAPS; k++)
    g_assert_cmpfloat_with_epsilon (taps[0][k], k == 6 ? 1.0 : 0.0, 1e-12);
  /* 2 phases (96 kHz): phase 0 the sample (at 12), phase 1 24 taps */
  g_assert_cmpuint (gpufft_loudness_tp_taps (96000, taps), ==, 2);
  for (k = 0; k < GPUFFT_LOUDNESS_TAPS; k++)
    g_assert_cmpfloat_with_epsilon (taps[0][k], k == 12 ? 1.0 : 0.0, 1e-12);
  {
    gdouble sum = 0;

    for (k = 0; k < GPUFFT_LOUDNESS_TAPS; k++) {
      sum += taps[1][k];
      g_assert_cmpfloat (fabs (taps[1][k]), >, 1e-6);
    }
    /* (a 49-tap Hann sinc: 0.97 at DC) */
    g_assert_cmpfloat_with_epsilon (sum, 1.0, 0.05);
  }
}

static void
test_bad_config (void)
{
  GpufftContext *ctx = et_context ();
  GpufftLoudnessConfig cfg;
  GError *err = NULL;

  if (!ctx)
    return;
  memset (&cfg, 0, sizeof (cfg));
  cfg.channels = 65;
  cfg.block_frames = 4800;
  cfg.max_blocks = 1;
  g_assert_null (gpufft_loudness_new (ctx, &cfg, collect_cb, NULL, &err));
  g_assert_error (err, GPUFFT_ERROR, GPUFFT_ERROR_INVALID_ARGUMENT);
  g_clear_error (&err);
  cfg.channels = 2;
  cfg.block_frames = 63;
  g_assert_null (gpufft_loudness_new (ctx, &cfg, collect_cb, NULL, &err));
  g_assert_error (err, GPUFFT_ERROR, GPUFFT_ERROR_INVALID_ARGUMENT);
  g_clear_error (&err);
}

int
main (int argc, char **argv)
{
  et_init (&argc, &argv);
  g_test_add_func ("/loudness/taps", test_taps);
  g_test_add_func ("/loudness/stereo", test_stereo);
  g_test_add_func ("/loudness/uneven-chunks", test_uneven_chunks);
  g_test_add_func ("/loudness/many-channels", test_many_channels);
  g_test_add_func ("/loudness/long-batch", test_long_batch);
  g_test_add_func ("/loudness/no-device", test_no_device);
  g_test_add_func ("/loudness/bad-config", test_bad_config);
  return et_run ();
}
