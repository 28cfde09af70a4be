/* bench-accuracy: relative L2 error vs double precision per N, in the same
 * run: our engine's complex output (config.complex_out, one frame per
 * group) with the rectangular and the Hann window, our group power with
 * Hann (the spectrum scaling written out below), and VkFFT's R2C on the
 * same frames (rectangular) when built with VkFFT. Input: uniform noise on
 * [-1, 1). */
#include <stdio.h>
#include <string.h>

#include "bench-common.h"
#include "bench-vk.h"
#ifdef HAVE_VKFFT
#include "vkfft-peer.h"
#endif

static gint n_frames_opt = 0;

static const GOptionEntry extra[] = {
  {"frames", 0, 0, G_OPTION_ARG_INT, &n_frames_opt,
      "Frames per size (default 16, 4 with --small)", "F"},
  {NULL}
};

typedef struct
{
  guint n_bins;
  guint got;
  gfloat *complex_data;         /* [frames][n_bins][2] */
  gfloat *power;                /* [frames][n_bins] */
} Collected;

static void
on_result (const GpufftGroupResult * r, gpointer user_data)
{
  Collected *c = user_data;

  if (!r->complex_data || r->n_bins != c->n_bins)
    return;
  memcpy (c->complex_data + (gsize) c->got * c->n_bins * 2, r->complex_data,
      sizeof (gfloat) * c->n_bins * 2);
  memcpy (c->power + (gsize) c->got * c->n_bins, r->power,
      sizeof (gfloat) * c->n_bins);
  c->got++;
}

/* Runs `frames` frames of x (hop = n) through one plan with one frame per
 * group; fills err_complex and err_power (NaN when not measured). */
static gboolean
engine_error (GpufftContext * ctx, guint n, guint frames, const gfloat * x,
    GpufftWindow window, gdouble * err_complex, gdouble * err_power,
    GError ** error)
{
  GpufftPlanConfig cfg;
  GpufftPlan *plan;
  GpufftSegment seg = { x, NULL, (gsize) n * frames };
  GpufftGroup *groups = g_new0 (GpufftGroup, frames);
  GpufftBatch batch;
  Collected col = { n / 2 + 1, 0, NULL, NULL };
  gdouble *w = g_new (gdouble, n), *re = g_new (gdouble, n / 2 + 1),
      *im = g_new (gdouble, n / 2 + 1), *pref = g_new (gdouble, n / 2 + 1);
  gdouble sum_w = 0.0;
  BenchL2 ec = { 0, 0 }, ep = { 0, 0 };
  gboolean ok = FALSE;
  guint i, k;

  gpufft_plan_config_init (&cfg);
  cfg.fft_size = n;
  cfg.hop = n;
  cfg.window = window;
  cfg.format = GPUFFT_FORMAT_F32;
  cfg.channels = 1;
  cfg.scaling = GPUFFT_SCALING_SPECTRUM;
  cfg.max_frames = frames;
  cfg.max_groups = frames;
  cfg.n_peaks = 0;
  cfg.complex_out = TRUE;
  col.complex_data = g_new (gfloat, (gsize) frames * (n / 2 + 1) * 2);
  col.power = g_new (gfloat, (gsize) frames * (n / 2 + 1));
  plan = gpufft_plan_new (ctx, &cfg, error);
  if (!plan)
    goto out;
  for (i = 0; i < frames; i++) {
    groups[i].n_frames = 1;
    groups[i].close = TRUE;
  }
  memset (&batch, 0, sizeof batch);
  batch.segments = &seg;
  batch.n_segments = 1;
  batch.n_frames = frames;
  batch.groups = groups;
  batch.n_groups = frames;
  batch.db_floor = -90.0f;
  if (!gpufft_plan_submit (plan, &batch, error)
      || gpufft_plan_collect (plan, TRUE, on_result, &col, error) < 0)
    goto out;
  if (col.got != frames) {
    g_set_error (error, GPUFFT_ERROR, GPUFFT_ERROR_FAILED,
        "%u of %u groups came back with complex data", col.got, frames);
    goto out;
  }

  gpufft_window_fill (window, n, w);
  for (i = 0; i < n; i++)
    sum_w += w[i];
  for (i = 0; i < frames; i++) {
    if (bench_rfft_double (x + (gsize) i * n, w, n, re, im) < 0)
      break;
    bench_l2_add_complex (&ec, col.complex_data + (gsize) i * (n / 2 + 1) * 2,
        re, im, n / 2 + 1);
    /* scipy's 'spectrum' scaling, one-sided */
    for (k = 0; k <= n / 2; k++) {
      pref[k] = (re[k] * re[k] + im[k] * im[k]) / (sum_w * sum_w);
      if (k != 0 && k != n / 2)
        pref[k] *= 2.0;
    }
    bench_l2_add_real (&ep, col.power + (gsize) i * (n / 2 + 1), pref,
        n / 2 + 1);
  }
  *err_complex = bench_l2_result (&ec);
  *err_power = bench_l2_result (&ep);
  ok = TRUE;

out:
  if (plan)
    gpufft_plan_free (plan);
  g_free (groups);
  g_free (col.complex_data);
  g_free (col.power);
  g_free (w);
  g_free (re);
  g_free (im);
  g_free (pref);
  return ok;
}

#ifdef HAVE_VKFFT
static gdouble
vkfft_error (GpufftContext * ctx, guint n, guint frames, const gfloat * x,
    GError ** error)
{
  GpufftBuffer in, out;
  GpufftCommand c;
  VkfftPeer *peer = NULL;
  VkDeviceSize in_bytes = (VkDeviceSize) frames * n * 4;
  VkDeviceSize out_bytes = (VkDeviceSize) frames * (n / 2 + 1) * 8;
  gfloat *got = g_new (gfloat, (gsize) frames * (n / 2 + 1) * 2);
  gdouble *re = g_new (gdouble, n / 2 + 1), *im = g_new (gdouble, n / 2 + 1);
  BenchL2 e = { 0, 0 };
  gdouble result = -1.0;
  guint i;

  memset (&in, 0, sizeof in);
  memset (&out, 0, sizeof out);
  memset (&c, 0, sizeof c);
  if (!gpufft_buffer_init (&in, ctx, in_bytes, GPUFFT_MEMORY_DEVICE, error)
      || !gpufft_buffer_init (&out, ctx, out_bytes, GPUFFT_MEMORY_DEVICE,
          error)
      || !bench_vk_fill_repeat (ctx, &in, x, in_bytes, in_bytes, error))
    goto out;
  peer = vkfft_peer_new (ctx, n, frames, in.buffer, in_bytes, out.buffer,
      out_bytes, error);
  if (!peer || !gpufft_command_init (&c, ctx, 0, error)
      || !gpufft_command_begin (&c, ctx, error)
      || !vkfft_peer_record (peer, c.cmd, error))
    goto out;
  bench_vk_barrier (c.cmd);
  if (!gpufft_command_submit (&c, ctx, error)
      || !gpufft_command_wait (&c, ctx, G_MAXUINT64, error)
      || !bench_vk_download (ctx, &out, 0, got, out_bytes, error))
    goto out;
  for (i = 0; i < frames; i++) {
    if (bench_rfft_double (x + (gsize) i * n, NULL, n, re, im) < 0)
      break;
    bench_l2_add_complex (&e, got + (gsize) i * (n / 2 + 1) * 2, re, im,
        n / 2 + 1);
  }
  result = bench_l2_result (&e);
out:
  vkfft_peer_free (peer);
  gpufft_command_clear (&c, ctx);
  gpufft_buffer_clear (&out, ctx);
  gpufft_buffer_clear (&in, ctx);
  g_free (got);
  g_free (re);
  g_free (im);
  return result;
}
#endif

static void
print_err (gdouble e)
{
  if (e != e)
    printf (" %12s", "-");
  else
    printf (" %12.3e", e);
}

int
main (int argc, char **argv)
{
  BenchArgs args;
  GpufftContext *ctx;
  GError *err = NULL;
  guint i, frames;
  gint rc = 0;

  if (!bench_args_parse (&args, &argc, &argv,
          "Relative L2 error vs double precision, ours and VkFFT", extra))
    return 2;
  if (!(ctx = bench_vk_open (&args)))
    return 1;
  frames = n_frames_opt > 0 ? (guint) n_frames_opt : args.small ? 4 : 16;

  bench_print_header ("accuracy: relative L2 error vs double precision",
      gpufft_context_get_device_name (ctx));
  printf ("uniform noise on [-1,1), %u frames per N; complex = X_k of each "
      "frame (complex_out, one frame per group); power = group power, "
      "spectrum scaling\n", frames);
  printf ("%6s %12s %12s %12s %12s\n", "N", "ours rect", "ours hann",
      "power hann", "VkFFT rect");
  for (i = 0; i < args.n_sizes; i++) {
    guint n = args.sizes[i];
    gfloat *x = g_new (gfloat, (gsize) n * frames);
    gdouble e_rect = NAN, e_hann = NAN, e_pow = NAN, e_dummy, e_vk = NAN;
    gboolean ok;

    bench_noise_fill (x, (gsize) n * frames, 1000 + n);
    ok = engine_error (ctx, n, frames, x, GPUFFT_WINDOW_RECTANGULAR, &e_rect,
        &e_dummy, &err)
        && engine_error (ctx, n, frames, x, GPUFFT_WINDOW_HANN, &e_hann,
        &e_pow, &err);
    if (!ok) {
      g_printerr ("N=%u: engine: %s\n", n, err ? err->message : "?");
      g_clear_error (&err);
      rc = 1;
    }
#ifdef HAVE_VKFFT
    e_vk = vkfft_error (ctx, n, frames, x, &err);
    if (e_vk < 0) {
      g_printerr ("N=%u: VkFFT: %s\n", n, err ? err->message : "?");
      g_clear_error (&err);
      e_vk = NAN;
    }
#endif
    printf ("%6u", n);
    print_err (e_rect);
    print_err (e_hann);
    print_err (e_pow);
    print_err (e_vk);
    printf ("\n@accuracy n=%u frames=%u ours_rect=%.3e ours_hann=%.3e "
        "power_hann=%.3e vkfft=%.3e\n", n, frames, e_rect, e_hann, e_pow,
        e_vk);
    fflush (stdout);
    g_free (x);
  }
  gpufft_context_unref (ctx);
  return rc;
}
