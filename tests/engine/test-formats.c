/* Every sample format (S16, S24 packed, S32, F32, F64), interleaved and
 * planar, three channels, downmix (mean of channels) and per channel,
 * input split into several segments: power and complex output against the
 * double-precision reference of the exact decoded samples. */
#include <math.h>

#include "engine-test.h"

/* a power of two, a 2-3-5-7 size (mixed radix), one with M = 47 (Bluestein) */
static const guint sizes[] = { 256, 100, 94 };
#define HOP 96
#define CHANNELS 3

static const gchar *format_names[] = { "S16", "S24", "S32", "F32", "F64" };

static void
test_format (gconstpointer data)
{
  GpufftFormat format = GPOINTER_TO_UINT (data);
  guint layout, mode, si;

  if (et_context () == NULL)
    return;

  g_assert_cmpuint (gpufft_format_bytes (format), ==,
      ((guint[]) {2, 3, 4, 4, 8})[format]);

  for (si = 0; si < G_N_ELEMENTS (sizes); si++)
  for (layout = 0; layout < 2; layout++) {
    guint n = sizes[si];
    gdouble climit = n == 94 ? 1e-6 : 3e-7;
    /* different data per layout: each layout is checked on its own */
    EtInput *in = et_input_new (format, layout, CHANNELS, 9 * HOP + n + 17, 0.4,
        0.3, 100 + format * 2 + layout);

    for (mode = 0; mode < 2; mode++) {
      gboolean downmix = mode == 0;
      GpufftPlanConfig cfg;
      GpufftPlan *plan;
      GError *err = NULL;
      GpufftSegment segs[4] = { { 0 } };
      gconstpointer planes[4 * CHANNELS];
      GpufftGroup groups[3] = { {4, TRUE}, {3, TRUE}, {3, TRUE} };
      GpufftBatch batch = { 0 };
      GPtrArray *res;
      guint nb = n / 2 + 1, g, c;
      gdouble *ref = g_new (gdouble, nb);
      gdouble *re = g_new (gdouble, nb), *im = g_new (gdouble, nb);

      gpufft_plan_config_init (&cfg);
      cfg.fft_size = n;
      cfg.hop = HOP;
      cfg.format = format;
      cfg.channels = CHANNELS;
      cfg.planar = layout;
      cfg.downmix = downmix;
      cfg.rate = 96000.0;
      cfg.max_frames = 10;
      cfg.max_groups = 3;
      cfg.complex_out = TRUE;
      plan = gpufft_plan_new (et_context (), &cfg, &err);
      if (plan == NULL) {
        et_fail ("%s: gpufft_plan_new: %s", format_names[format],
            err->message);
        g_error_free (err);
        g_free (ref);
        g_free (re);
        g_free (im);
        continue;
      }
      g_assert_cmpuint (gpufft_plan_get_out_channels (plan), ==,
          downmix ? 1 : CHANNELS);

      /* the span plus a few extra samples, which must be ignored */
      et_input_segments (in, 0, in->len, 4, segs, planes);
      batch.segments = segs;
      batch.n_segments = 4;
      batch.n_frames = 10;
      batch.groups = groups;
      batch.n_groups = 3;
      res = et_results_new ();
      if (et_submit_collect (plan, &batch, res)) {
        guint first = 0;

        g_assert_cmpuint (res->len, ==, 3);
        for (g = 0; g < 3; g++) {
          EtResult *r = g_ptr_array_index (res, g);

          g_assert_cmpuint (r->channels, ==, downmix ? 1 : CHANNELS);
          g_assert_cmpuint (r->n_frames, ==, groups[g].n_frames);
          g_assert_nonnull (r->complex_data);
          for (c = 0; c < r->channels; c++) {
            gint ch = downmix ? -1 : (gint) c;
            gchar *what = g_strdup_printf ("%s %s %s group %u channel %d",
                format_names[format], layout ? "planar" : "interleaved",
                downmix ? "downmix" : "per-channel", g, ch);
            gdouble pe, ce;
            guint last = first + groups[g].n_frames - 1;

            et_ref_power (in, ch, (gsize) first * HOP, HOP,
                groups[g].n_frames, n, cfg.window, cfg.scaling, cfg.rate,
                ref);
            pe = et_check_power (r->power + (gsize) c * nb, ref, nb, 100.0,
                1e-5, what);
            /* complex output: the last frame of the group */
            et_ref_complex (in, ch, (gsize) last * HOP, n, cfg.window, re,
                im);
            ce = et_complex_error (r->complex_data + (gsize) c * nb * 2, re,
                im, nb);
            if (!(ce <= climit))
              et_fail ("N=%u %s: complex relative L2 error %.3g > %.0e",
                  n, what, ce, climit);
            g_test_message ("N=%u %s: power %.2e, complex %.2e", n, what, pe,
                ce);
            g_free (what);
          }
          first += groups[g].n_frames;
        }
      }
      g_ptr_array_unref (res);
      gpufft_plan_free (plan);
      g_free (ref);
      g_free (re);
      g_free (im);
    }
    et_input_free (in);
  }
}

/* Full-scale integers: the most negative sample is exactly -1.0. */
static void
test_full_scale (void)
{
  GpufftPlanConfig cfg;
  GpufftPlan *plan;
  GError *err = NULL;
  guint f;

  if (et_context () == NULL)
    return;

  for (f = GPUFFT_FORMAT_S16; f <= GPUFFT_FORMAT_S32; f++) {
    guint8 buf[32 * 4];
    guint bps = f == GPUFFT_FORMAT_S16 ? 2 : f == GPUFFT_FORMAT_S24 ? 3 : 4;
    guint i, b;
    GpufftSegment seg = { buf, NULL, 32 };
    GpufftGroup group = { 1, TRUE };
    GpufftBatch batch = { &seg, 1, 1, &group, 1, 0 };
    GPtrArray *res;

    /* every sample is the most negative integer: 0x80 in the top byte */
    for (i = 0; i < 32; i++)
      for (b = 0; b < bps; b++)
        buf[i * bps + b] = (b + 1 == bps) ? 0x80 : 0x00;

    gpufft_plan_config_init (&cfg);
    cfg.fft_size = 32;
    cfg.hop = 32;
    cfg.format = f;
    cfg.window = GPUFFT_WINDOW_RECTANGULAR;
    cfg.max_frames = 1;
    cfg.complex_out = TRUE;
    plan = gpufft_plan_new (et_context (), &cfg, &err);
    g_assert_no_error (err);
    res = et_results_new ();
    if (et_submit_collect (plan, &batch, res)) {
      EtResult *r = g_ptr_array_index (res, 0);

      /* X_0 = sum of 32 samples of -1.0; spectrum power at DC = 1 */
      g_assert_cmpfloat_with_epsilon (r->complex_data[0], -32.0, 32e-7);
      g_assert_cmpfloat_with_epsilon (r->power[0], 1.0, 1e-6);
    }
    g_ptr_array_unref (res);
    gpufft_plan_free (plan);
  }
}

/* The most channels a plan takes, small frames: every output channel in
 * its place (per channel), and the mean of all of them (downmix). */
static void
test_many_channels (void)
{
  const guint ch = GPUFFT_MAX_CHANNELS, n = 32, nb = n / 2 + 1;
  EtInput *in;
  guint mode;

  if (et_context () == NULL)
    return;
  in = et_input_new (GPUFFT_FORMAT_S16, FALSE, ch, 3 * 16 + n, 0.5, 0.3, 4);
  for (mode = 0; mode < 2; mode++) {
    GpufftPlanConfig cfg;
    GpufftPlan *plan;
    GError *err = NULL;
    GpufftSegment seg = { 0 };
    GpufftGroup groups[2] = { {1, TRUE}, {3, TRUE} };
    GpufftBatch batch = { &seg, 1, 4, groups, 2, 0 };
    GPtrArray *res;
    gdouble *ref = g_new (gdouble, nb);

    gpufft_plan_config_init (&cfg);
    cfg.fft_size = n;
    cfg.hop = 16;
    cfg.format = GPUFFT_FORMAT_S16;
    cfg.channels = ch;
    cfg.downmix = mode == 0;
    cfg.max_frames = 4;
    cfg.max_groups = 2;
    cfg.n_peaks = 1;
    plan = gpufft_plan_new (et_context (), &cfg, &err);
    g_assert_no_error (err);
    et_input_segments (in, 0, in->len, 1, &seg, NULL);
    res = et_results_new ();
    if (et_submit_collect (plan, &batch, res)) {
      guint g, c, first = 0, worst_c = 0;
      gdouble worst = 0.0;

      g_assert_cmpuint (res->len, ==, 2);
      for (g = 0; g < 2; g++) {
        EtResult *r = g_ptr_array_index (res, g);

        g_assert_cmpuint (r->channels, ==, mode == 0 ? 1 : ch);
        for (c = 0; c < r->channels; c++) {
          gdouble e;

          et_ref_power (in, mode == 0 ? -1 : (gint) c, first * 16, 16,
              groups[g].n_frames, n, cfg.window, cfg.scaling, cfg.rate, ref);
          e = et_check_power (r->power + (gsize) c * nb, ref, nb, 100.0,
              1e-5, mode == 0 ? "4096 channels, downmix" :
              "4096 channels, per channel");
          if (e > worst) {
            worst = e;
            worst_c = c;
          }
          /* the loudest bin of each channel is its first peak */
          g_assert_cmpuint (r->peaks[c].bin, <, nb);
        }
        first += groups[g].n_frames;
      }
      g_test_message ("%u channels, %s: worst relative error %.2e (channel "
          "%u)", ch, mode == 0 ? "downmix" : "per channel", worst, worst_c);
    }
    g_ptr_array_unref (res);
    gpufft_plan_free (plan);
    g_free (ref);
  }
  et_input_free (in);
}

int
main (int argc, char **argv)
{
  guint f;

  et_init (&argc, &argv);
  for (f = GPUFFT_FORMAT_S16; f <= GPUFFT_FORMAT_F64; f++) {
    gchar *path = g_strdup_printf ("/formats/%s", format_names[f]);

    g_test_add_data_func (path, GUINT_TO_POINTER (f), test_format);
    g_free (path);
  }
  g_test_add_func ("/formats/full-scale", test_full_scale);
  g_test_add_func ("/formats/many-channels", test_many_channels);
  return et_run ();
}
