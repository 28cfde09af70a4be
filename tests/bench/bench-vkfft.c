/* bench-vkfft: VkFFT 1D batched R2C (forward, FFT only, out of place: N
 * floats in, N/2+1 complex floats out per frame), same N and batch as
 * bench-kernel, submissions of `repeats` transforms for the warm-up time
 * bench-kernel takes (the GPU's clock up), then the median of 5 such
 * submissions timed with timestamps, plus VkFFT's relative L2 error vs a double-precision FFT on
 * the first frames. GB/s counted both like ours (4N + 4(N/2+1) bytes per
 * frame) and as VkFFT really moves them (4N + 8(N/2+1)). */
#include <stdio.h>
#include <string.h>

#include "bench-common.h"
#include "bench-vk.h"
#include "vkfft-peer.h"

#define CHECK_FRAMES 8

/* Index of the k-th checked frame: the first and the last CHECK_FRAMES/2
 * of the batch (so the tail of a large dispatch is checked too). */
#define TRIALS 5

static guint
check_frame (guint k, guint frames)
{
  guint half = CHECK_FRAMES / 2;
  return frames <= CHECK_FRAMES || k < half ? k : frames - CHECK_FRAMES + k;
}

/* Relative L2 error of the checked frames (frame i is the chunk at sample
 * offset (i*n) % chunk_len, chunk_len a multiple of n). */
static gboolean
frames_error (GpufftContext * ctx, GpufftBuffer * out, const gfloat * chunk,
    gsize chunk_len, guint n, guint frames, gdouble * result, GError ** error)
{
  BenchL2 e = { 0, 0 };
  guint nb = n / 2 + 1, k, nf = MIN (frames, CHECK_FRAMES);
  gdouble *re = g_new (gdouble, nb), *im = g_new (gdouble, nb);
  gfloat *got = g_new (gfloat, (gsize) nb * 2);
  gboolean ok = TRUE;

  for (k = 0; k < nf && ok; k++) {
    guint i = check_frame (k, frames);
    const gfloat *x = chunk + ((gsize) i * n) % chunk_len;
    ok = bench_vk_download (ctx, out, (VkDeviceSize) i * nb * 8, got,
        (gsize) nb * 8, error) && bench_rfft_double (x, NULL, n, re, im) == 0;
    if (ok)
      bench_l2_add_complex (&e, got, re, im, nb);
  }
  *result = bench_l2_result (&e);
  g_free (got);
  g_free (re);
  g_free (im);
  return ok;
}

static gboolean
bench_size (GpufftContext * ctx, const BenchArgs * args, guint n,
    guint repeats, GError ** error)
{
  guint frames = bench_frames_for (args, n), i, pass;
  VkDeviceSize range = ctx->props.limits.maxStorageBufferRange;
  VkDeviceSize in_bytes, out_bytes;
  GpufftBuffer in, out;
  GpufftCommand c;
  VkfftPeer *peer = NULL;
  gfloat *chunk = NULL;
  gsize chunk_len;
  gint64 t0 = 0, t1 = 0, tp0, tp1, warm_end;
  gdouble gpu_ns = 0, host_ns, err_l2, f4, f8, t;
  gdouble tr_gpu[TRIALS], tr_host[TRIALS];
  gboolean ok = FALSE;

  memset (&in, 0, sizeof in);
  memset (&out, 0, sizeof out);
  memset (&c, 0, sizeof c);
  /* the complex output must fit one storage-buffer range */
  while (frames > 1 && (VkDeviceSize) frames * (n / 2 + 1) * 8 > range)
    frames /= 2;
  in_bytes = (VkDeviceSize) frames * n * 4;
  out_bytes = (VkDeviceSize) frames * (n / 2 + 1) * 8;
  chunk_len = MIN ((gsize) frames * n, (gsize) 4 << 20);
  chunk = g_new (gfloat, chunk_len);
  bench_noise_fill (chunk, chunk_len, n);

  if (!gpufft_buffer_init (&in, ctx, in_bytes, GPUFFT_MEMORY_DEVICE, error)
      || !gpufft_buffer_init (&out, ctx, out_bytes, GPUFFT_MEMORY_DEVICE,
          error)
      || !bench_vk_fill_repeat (ctx, &in, chunk, chunk_len * 4, in_bytes,
          error)
      || !gpufft_command_init (&c, ctx, 2, error))
    goto out;
  tp0 = bench_now_ns ();
  peer = vkfft_peer_new (ctx, n, frames, in.buffer, in_bytes, out.buffer,
      out_bytes, error);
  tp1 = bench_now_ns ();
  if (!peer)
    goto out;

  /* submissions of `repeats` transforms for bench_vk_warmup_ms (the GPU's
   * clock up, as bench-kernel), then TRIALS timed: the median */
  warm_end = g_get_monotonic_time () + (gint64) bench_vk_warmup_ms * 1000;
  for (pass = 0; pass < TRIALS;) {
    guint reps = repeats;
    gboolean warm = g_get_monotonic_time () >= warm_end;

    if (!gpufft_command_begin (&c, ctx, error))
      goto out;
    bench_vk_barrier (c.cmd);
    gpufft_command_timestamp (&c, 0);
    for (i = 0; i < reps; i++) {
      if (!vkfft_peer_record (peer, c.cmd, error))
        goto out;
      bench_vk_barrier (c.cmd);
    }
    gpufft_command_timestamp (&c, 1);
    t0 = bench_now_ns ();
    if (!gpufft_command_submit (&c, ctx, error)
        || !gpufft_command_wait (&c, ctx, G_MAXUINT64, error))
      goto out;
    t1 = bench_now_ns ();
    if (!warm)
      continue;
    gpu_ns = gpufft_command_elapsed_ns (&c, ctx, 0, 1);
    tr_gpu[pass] = gpu_ns > 0 ? gpu_ns / repeats : 0.0;
    tr_host[pass++] = (gdouble) (t1 - t0) / repeats;
  }
  gpu_ns = bench_median (tr_gpu, TRIALS);
  host_ns = bench_median (tr_host, TRIALS);

  if (!frames_error (ctx, &out, chunk, chunk_len, n, frames, &err_l2, error))
    goto out;

  f4 = (4.0 * n + 4.0 * (n / 2 + 1)) * frames;
  f8 = (4.0 * n + 8.0 * (n / 2 + 1)) * frames;
  t = gpu_ns > 0 ? gpu_ns : host_ns;
  printf ("%6u %8u %8.1f | %8.1f | %9.3f %9.4g %9.4g %9.4g | %9.3f | %9.2e\n",
      n, frames, in_bytes / 1048576.0, (tp1 - tp0) * 1e-6, t * 1e-6,
      (gdouble) frames * n / t, f4 / t, f8 / t, host_ns * 1e-6, err_l2);
  printf ("@vkfft n=%u frames=%u repeats=%u gpu_ns=%.0f host_ns=%.0f "
      "plan_ms=%.1f rel_l2=%.3e\n", n, frames, repeats, gpu_ns, host_ns,
      (tp1 - tp0) * 1e-6, err_l2);
  fflush (stdout);
  ok = TRUE;

out:
  vkfft_peer_free (peer);
  gpufft_command_clear (&c, ctx);
  gpufft_buffer_clear (&out, ctx);
  gpufft_buffer_clear (&in, ctx);
  g_free (chunk);
  return ok;
}

int
main (int argc, char **argv)
{
  BenchArgs args;
  GpufftContext *ctx;
  GError *err = NULL;
  guint i, repeats;
  gint rc = 0;

  if (!bench_args_parse (&args, &argc, &argv,
          "VkFFT batched R2C (FFT only) on the same device", NULL))
    return 2;
  if (!(ctx = bench_vk_open (&args)))
    return 1;
  repeats = bench_args_repeats (&args, 50, 20);

  bench_print_header ("VkFFT: batched R2C, FFT only, out of place",
      gpufft_context_get_device_name (ctx));
  printf ("%s; submissions of %u repeats for %u ms, then the median of %d "
      "timed; GB/s(4) = frames*(4N+4(N/2+1))/t like "
      "ours, GB/s(8) = frames*(4N+8(N/2+1))/t as moved; "
      "rel L2 vs double on the first and last %d frames%s\n", vkfft_peer_version (), repeats,
      bench_vk_warmup_ms, TRIALS, CHECK_FRAMES / 2, args.small ? "; SMALL mode" : "");
  printf ("%6s %8s %8s | %8s | %9s %9s %9s %9s | %9s | %9s\n", "N",
      "frames", "in MiB", "plan ms", "GPU ms", "Gsamp/s", "GB/s(4)",
      "GB/s(8)", "host ms", "rel L2");
  for (i = 0; i < args.n_sizes; i++) {
    if (!bench_size (ctx, &args, args.sizes[i], repeats, &err)) {
      printf ("%6u failed: %s\n", args.sizes[i],
          err ? err->message : "unknown error");
      g_clear_error (&err);
      rc = 1;
    }
  }
  gpufft_context_unref (ctx);
  return rc;
}
