/* bench-kernel: B frames x N samples through the engine (window -> real FFT
 * -> power -> group mean -> peak), hop = N, F32 mono, groups of 64 frames,
 * about 1 GiB of input per call. The batch is submitted once through the
 * device's scheduler (upload, kernels, reduce, download: the "batch" GPU
 * times), then gpufft_plan_rerun() re-runs its kernels `repeats` times on
 * the input already on the GPU, first for --warmup-ms of wall time (a GPU
 * left idle runs at its idle clock until its governor raises it: a timed
 * run that starts cold measures the clock, not the kernel), then --trials
 * times, each timed by the GPU (timestamps: the FFT kernel alone, the
 * reduce kernel alone) and by the host (around the rerun's submission and
 * fence wait: the whole submission). The table gives the median trial and
 * the spread of the trials' GPU times. Before the plan is
 * made, the memory roofline: a device-to-device copy of the same number of
 * input bytes by a compute shader (bench-copy.comp, the SMs' bandwidth: the
 * %copy reference) and by vkCmdCopyBuffer ("dma", often a copy engine);
 * their buffers stay allocated until the size is done, so the plan's
 * memory is fresh too. run-sweep.sh runs one size per process (in some
 * VMs device memory allocated after freeing earlier big allocations is
 * much slower).
 *
 * Effective bandwidth = frames * (4N + 4(N/2+1)) bytes / time (the input
 * read and one float per bin written, per frame); copy = 2 * bytes / time. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench-common.h"
#include "bench-vk.h"
#include "gstgpufftanalysis.h"

static gint group_frames = 64;
static gchar *scale_name = NULL;
static gboolean no_copy = FALSE;
static gint warmup_ms = 300;
static gint trials = 5;
static gint idle_ms = 0;

#define MAX_TRIALS 64

static const GOptionEntry extra[] = {
  {"group", 0, 0, G_OPTION_ARG_INT, &group_frames,
      "Frames per group (default 64)", "G"},
  {"scale", 0, 0, G_OPTION_ARG_STRING, &scale_name,
      "linear (default), octave (1/3 octave, A-weighted, with a level) or "
        "mel (128 slaney filters, A-weighted, with a level): the analysis "
        "stage in the reduce kernel", "S"},
  {"no-copy", 0, 0, G_OPTION_ARG_NONE, &no_copy,
      "Skip the copy rooflines (for profiling the kernels alone)", NULL},
  {"warmup-ms", 0, 0, G_OPTION_ARG_INT, &warmup_ms,
      "Rerun the kernels for this long before timing (default 300)", "MS"},
  {"trials", 0, 0, G_OPTION_ARG_INT, &trials,
      "Timed reruns of `repeats` each; the median is reported (default 5)",
      "T"},
  {"idle-ms", 0, 0, G_OPTION_ARG_INT, &idle_ms,
      "Leave the device idle this long after the warm-up, before the "
        "trials (shows what a cold clock does to the figures; default 0)",
      "MS"},
  {NULL}
};

/* --scale: the element's analysis tables (gstgpufftanalysis.c)
 * for 1/3-octave or 128 slaney mel bands, A-weighted, with a level
 * (nothing for linear). */
static void
tables_make (GstGpuFftAnalysisTables * t, GpufftPlanConfig * cfg)
{
  GstGpuFftAnalysis a;
  gchar *why = NULL;

  memset (t, 0, sizeof (*t));
  if (!scale_name || g_str_equal (scale_name, "linear"))
    return;
  memset (&a, 0, sizeof (a));
  a.scale = g_str_equal (scale_name, "mel") ?
      GST_GPU_FFT_FREQUENCY_SCALE_MEL : GST_GPU_FFT_FREQUENCY_SCALE_OCTAVE;
  a.octave_fraction = 3;
  a.mel_bands = 128;
  a.mel_scale = GST_GPU_FFT_MEL_SCALE_SLANEY;
  a.mel_norm = GST_GPU_FFT_MEL_NORM_SLANEY;
  a.weighting = GST_GPU_FFT_WEIGHTING_A;
  a.averaging = GPUFFT_AVERAGING_MEAN;
  a.level = TRUE;
  if (!gst_gpu_fft_analysis_configure (&a, cfg, t, &why)) {
    g_printerr ("no bands: %s\n", why);
    g_free (why);
  }
}

/* Sanity of the results: every group comes back, power finite and >= 0,
 * and the total power of uniform noise on [-1, 1) is close to what the
 * spectrum scaling gives: sum_k P_k = 2 sigma^2 sum w^2 / (sum w)^2 * N/2
 * = 0.5 for the Hann window (sigma^2 = 1/3). */
typedef struct
{
  guint groups;
  guint bad_values;
  gdouble total_power;          /* sum over groups of sum_k power */
} Check;

static void
on_result (const GpufftGroupResult * r, gpointer user_data)
{
  Check *c = user_data;
  gdouble sum = 0.0;
  guint k;

  c->groups++;
  for (k = 0; k < r->channels * r->n_bins; k++) {
    gfloat p = r->power[k];
    if (!isfinite (p) || p < 0.0f)
      c->bad_values++;
    sum += p;
  }
  if (r->peaks && r->n_peaks > 0 && r->peaks[0].bin >= r->n_bins)
    c->bad_values++;
  c->total_power += sum;
}

/* A plan for `*frames` frames, halving while the device refuses. */
static GpufftPlan *
make_plan (GpufftContext * ctx, guint n, guint * frames, GError ** error)
{
  GpufftPlanConfig cfg;
  GpufftPlan *plan;
  GstGpuFftAnalysisTables tables;

  gpufft_plan_config_init (&cfg);
  cfg.fft_size = n;
  cfg.hop = n;
  cfg.window = GPUFFT_WINDOW_HANN;
  cfg.format = GPUFFT_FORMAT_F32;
  cfg.channels = 1;
  cfg.downmix = TRUE;
  cfg.scaling = GPUFFT_SCALING_SPECTRUM;
  cfg.n_peaks = 1;
  for (;;) {
    GError *err = NULL;
    cfg.max_frames = *frames;
    cfg.max_groups = (*frames + group_frames - 1) / group_frames;
    tables_make (&tables, &cfg);
    plan = gpufft_plan_new (ctx, &cfg, &err);
    gst_gpu_fft_analysis_tables_clear (&tables);
    if (plan) {
      gsize span = gpufft_plan_get_max_span (plan);
      *frames = MIN (*frames, gpufft_plan_get_max_frames (plan));
      if (span >= n)
        *frames = MIN (*frames, (guint) ((span - n) / n + 1));
      return plan;
    }
    if (*frames <= 1 || !(g_error_matches (err, GPUFFT_ERROR,
                GPUFFT_ERROR_UNSUPPORTED) || g_error_matches (err,
                GPUFFT_ERROR, GPUFFT_ERROR_OUT_OF_MEMORY))) {
      g_propagate_error (error, err);
      return NULL;
    }
    g_printerr ("N=%u: %u frames refused (%s), trying %u\n", n, *frames,
        err->message, *frames / 2);
    g_error_free (err);
    *frames /= 2;
  }
}

static gboolean
bench_size (GpufftContext * ctx, const BenchArgs * args, guint n,
    guint repeats, GError ** error)
{
  guint asked = bench_frames_for (args, n), frames = asked, n_groups, i;
  GpufftPlan *plan = NULL;
  BenchVkCopy cp;
  GpufftSegment *segs = NULL;
  GpufftGroup *groups = NULL;
  GpufftBatch batch;
  GpufftTimings tm, batch_tm;
  GpufftContextStats stats0, stats;
  GString *trial_list = g_string_new (NULL);
  Check check = { 0 };
  gfloat *chunk = NULL;
  gsize chunk_len, total, n_segs;
  gint64 t0, t1;
  gdouble host_ns, gpu_ns, copy_ns, dma_ns, bytes_in, bytes_eff, mean_power;
  gdouble cpu0, cpu_ns, reduce_ns, med, spread;
  gdouble tr_gpu[MAX_TRIALS], tr_red[MAX_TRIALS], tr_host[MAX_TRIALS];
  gdouble tr_cpu[MAX_TRIALS], sorted[MAX_TRIALS];
  gint64 warm_end;
  guint n_trials, pick;
  gboolean ok = FALSE;

  /* the rooflines first, on memory nothing has used before in this
   * process; cp stays allocated until the end */
  if (!bench_vk_copy_init (&cp, ctx, (VkDeviceSize) asked * n * 4, error))
    return FALSE;
  copy_ns = no_copy ? 0.0 : bench_vk_copy_shader_ns (&cp, ctx, repeats,
      error);
  if (copy_ns < 0)
    goto out;
  dma_ns = no_copy ? 0.0 : bench_vk_copy_dma_ns (&cp, ctx, repeats, error);
  if (dma_ns < 0)
    goto out;

  plan = make_plan (ctx, n, &frames, error);
  if (!plan)
    goto out;

  /* the span: one noise chunk repeated (frames cross chunk ends freely) */
  total = (gsize) frames *n;
  chunk_len = MIN (total, (gsize) 4 << 20);
  chunk = g_new (gfloat, chunk_len);
  bench_noise_fill (chunk, chunk_len, n);
  n_segs = (total + chunk_len - 1) / chunk_len;
  segs = g_new0 (GpufftSegment, n_segs);
  for (i = 0; i < n_segs; i++) {
    segs[i].data = chunk;
    segs[i].n_samples = MIN (chunk_len, total - i * chunk_len);
  }
  n_groups = (frames + group_frames - 1) / group_frames;
  groups = g_new0 (GpufftGroup, n_groups);
  for (i = 0; i < n_groups; i++) {
    groups[i].n_frames = MIN ((guint) group_frames, frames - i * group_frames);
    groups[i].close = TRUE;
  }
  memset (&batch, 0, sizeof (batch));
  batch.segments = segs;
  batch.n_segments = n_segs;
  batch.n_frames = frames;
  batch.groups = groups;
  batch.n_groups = n_groups;
  batch.db_floor = -90.0f;

  gpufft_context_get_stats (ctx, &stats0);
  if (!gpufft_plan_submit (plan, &batch, error)
      || gpufft_plan_collect (plan, TRUE, on_result, &check, error) < 0)
    goto out;
  /* the batch's own submission (scheduler timestamps; not on CPU devices) */
  gpufft_plan_get_timings (plan, &batch_tm);
  gpufft_context_get_stats (ctx, &stats);

  /* warm-up: the clock up, the caches as they stay */
  warm_end = g_get_monotonic_time () + (gint64) warmup_ms * 1000;
  do {
    if (!gpufft_plan_rerun (plan, repeats, error))
      goto out;
  } while (g_get_monotonic_time () < warm_end);
  if (idle_ms > 0)
    g_usleep ((gulong) idle_ms * 1000);

  n_trials = CLAMP (trials, 1, MAX_TRIALS);
  for (i = 0; i < n_trials; i++) {
    cpu0 = bench_cpu_seconds ();
    t0 = bench_now_ns ();
    if (!gpufft_plan_rerun (plan, repeats, error))
      goto out;
    t1 = bench_now_ns ();
    /* (the process's CPU time: on a CPU device, the device's threads) */
    tr_cpu[i] = (bench_cpu_seconds () - cpu0) * 1e9 / repeats;
    tr_host[i] = (gdouble) (t1 - t0) / repeats;
    gpufft_plan_get_timings (plan, &tm);
    tr_gpu[i] = tm.valid ? tm.compute_ns / repeats : 0.0;
    tr_red[i] = tm.valid ? tm.reduce_ns / repeats : 0.0;
  }
  /* the trial of median GPU time (host time where there is none), and the
   * spread of the trials */
  for (i = 0; i < n_trials; i++)
    sorted[i] = tr_gpu[i] > 0 ? tr_gpu[i] : tr_host[i];
  med = bench_median (sorted, n_trials);        /* (sorts them) */
  spread = med > 0 ? (sorted[n_trials - 1] - sorted[0]) / med : 0.0;
  /* the median trial (of an even count, the lower middle one) */
  for (i = 0, pick = 0; i < n_trials; i++)
    if ((tr_gpu[i] > 0 ? tr_gpu[i] : tr_host[i]) == sorted[(n_trials - 1) / 2])
      pick = i;
  for (i = 0; i < n_trials; i++)
    g_string_append_printf (trial_list, "%s%.0f", i ? "," : "",
        tr_gpu[i] > 0 ? tr_gpu[i] : tr_host[i]);
  cpu_ns = tr_cpu[pick];
  host_ns = tr_host[pick];
  gpu_ns = tr_gpu[pick];
  reduce_ns = tr_red[pick];

  bytes_in = 4.0 * n * frames;
  bytes_eff = (4.0 * n + 4.0 * (n / 2 + 1)) * frames;
  mean_power = check.groups ? check.total_power / check.groups : 0.0;

  {
    gdouble copy_gbs = copy_ns > 0 ? 2.0 * cp.bytes / copy_ns : 0.0;
    gdouble dma_gbs = dma_ns > 0 ? 2.0 * cp.bytes / dma_ns : 0.0;
    gdouble gpu_gbs = gpu_ns > 0 ? bytes_eff / gpu_ns : 0.0;
    gdouble host_gbs = bytes_eff / host_ns;
    gdouble t = gpu_ns > 0 ? gpu_ns : host_ns;
    /* (A-weighted bins with --scale: less than 0.5; values still checked) */
    gboolean weighted = scale_name && !g_str_equal (scale_name, "linear");
    gboolean good = check.groups == n_groups && check.bad_values == 0
        && (weighted || fabs (mean_power - 0.5) < 0.05);
    gchar gpu_ms[16], gpu_bw[16], gpu_pct[16], copy_bw[16], host_pct[16];
    gchar dma_bw[16];

    if (gpu_ns > 0) {
      g_snprintf (gpu_ms, sizeof gpu_ms, "%.3f", gpu_ns * 1e-6);
      g_snprintf (gpu_bw, sizeof gpu_bw, "%.4g", gpu_gbs);
    } else {
      strcpy (gpu_ms, "-");
      strcpy (gpu_bw, "-");
    }
    if (gpu_ns > 0 && copy_gbs > 0)
      g_snprintf (gpu_pct, sizeof gpu_pct, "%.1f%%",
          100.0 * gpu_gbs / copy_gbs);
    else
      strcpy (gpu_pct, "-");
    if (copy_gbs > 0) {
      g_snprintf (copy_bw, sizeof copy_bw, "%.4g", copy_gbs);
      g_snprintf (host_pct, sizeof host_pct, "%.1f%%",
          100.0 * host_gbs / copy_gbs);
    } else {
      strcpy (copy_bw, "-");
      strcpy (host_pct, "-");
    }
    if (dma_gbs > 0)
      g_snprintf (dma_bw, sizeof dma_bw, "%.4g", dma_gbs);
    else
      strcpy (dma_bw, "-");
    printf ("%6u %8u %8.1f | %9s %5.1f%% %9.4g %9.4g %9s %6s %5.0f%% | %9.3f "
        "%9.4g %6s %9.4g | %9s %9s | %s (P=%.3f)\n", n, frames,
        bytes_in / 1048576.0, gpu_ms, 100.0 * spread, frames / t * 1e3,
        (gdouble) frames * n / t, gpu_bw, gpu_pct,
        gpu_ns > 0 ? 100.0 * reduce_ns / gpu_ns : 0.0, host_ns * 1e-6,
        host_gbs, host_pct, cpu_ns > 0 ? (gdouble) frames * n / cpu_ns : 0.0,
        copy_bw, dma_bw, good ? "ok" : "BAD", mean_power);
    printf ("@kernel n=%u frames=%u repeats=%u gpu_ns=%.0f reduce_ns=%.0f "
        "host_ns=%.0f cpu_ns=%.0f copy_ns=%.0f dma_ns=%.0f copy_bytes=%.0f "
        "bytes_in=%.0f bytes_eff=%.0f ok=%d trials=%u spread=%.4f "
        "fft_ns=%.0f batch_upload_ns=%.0f batch_kernels_ns=%.0f "
        "batch_download_ns=%.0f submissions=%" G_GUINT64_FORMAT
        " trial_ns=%s\n", n,
        frames, repeats, gpu_ns, reduce_ns, host_ns, cpu_ns, copy_ns, dma_ns,
        (gdouble) cp.bytes, bytes_in, bytes_eff, good, n_trials, spread,
        gpu_ns - reduce_ns, batch_tm.valid ? batch_tm.upload_ns : 0.0,
        batch_tm.valid ? batch_tm.compute_ns : 0.0,
        batch_tm.valid ? batch_tm.download_ns : 0.0,
        stats.submissions - stats0.submissions, trial_list->str);
    if (batch_tm.valid)
      printf ("       (N=%u: the batch itself: %" G_GUINT64_FORMAT
          " submission(s); GPU upload %.3f ms, kernels %.3f ms, download "
          "%.3f ms)\n", n, stats.submissions - stats0.submissions,
          batch_tm.upload_ns * 1e-6,
          batch_tm.compute_ns * 1e-6, batch_tm.download_ns * 1e-6);
    if (frames < asked)
      printf ("       (N=%u: the plan allows %u frames, %u asked)\n", n, frames,
          asked);
    fflush (stdout);
    ok = good;
    if (!good)
      g_printerr ("N=%u: %u of %u groups, %u bad values, mean total power "
          "%.4f (expected 0.5)\n", n, check.groups, n_groups,
          check.bad_values, mean_power);
  }

out:
  if (plan)
    gpufft_plan_free (plan);
  bench_vk_copy_clear (&cp, ctx);
  g_string_free (trial_list, TRUE);
  g_free (groups);
  g_free (segs);
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
          "Fused engine kernels vs the device copy roofline", extra))
    return 2;
  if (group_frames < 1)
    group_frames = 1;
  if (!(ctx = bench_vk_open (&args)))
    return 1;
  repeats = bench_args_repeats (&args, 50, 20);
  bench_vk_warmup_ms = (guint) MAX (warmup_ms, 0);

  bench_print_header ("kernel: fused window+FFT+power+group mean+peak, "
      "F32 mono, hop=N", gpufft_context_get_device_name (ctx));
  printf ("groups of %d frames; reruns of %u repeats for %d ms, then %d "
      "timed reruns: the median (GPU ms: the FFT and reduce kernels per "
      "repeat, by timestamps; host ms: the rerun's submission and fence wait "
      "per repeat), spread = (slowest - fastest) / median; GB/s = "
      "frames*(4N+4(N/2+1))/t; copy = device->device copy of the input size by a compute "
      "shader (uvec4, the %%copy reference), dma = the same by "
      "vkCmdCopyBuffer, both 2*bytes/t, measured before the plan is made; "
      "%%red = the reduce kernel's share of the GPU time; Gs/cpu-s = samples "
      "per second of the process's CPU time (on a CPU device, per core)%s\n",
      group_frames, repeats, warmup_ms, CLAMP (trials, 1, MAX_TRIALS),
      args.small ? "; SMALL mode" : "");
  printf ("%6s %8s %8s | %9s %6s %9s %9s %9s %6s %6s | %9s %9s %6s %9s | %9s "
      "%9s | %s\n", "N", "frames", "in MiB", "GPU ms", "spread", "Mframe/s",
      "Gsamp/s",
      "GB/s", "%copy", "%red", "host ms", "GB/s", "%copy", "Gs/cpu-s",
      "copy GB/s", "dma GB/s", "check");
  for (i = 0; i < args.n_sizes; i++) {
    if (!bench_size (ctx, &args, args.sizes[i], repeats, &err)) {
      if (err) {
        printf ("%6u failed: %s\n", args.sizes[i], err->message);
        g_clear_error (&err);
      }
      rc = 1;
    }
  }
  gpufft_context_unref (ctx);
  return rc;
}
