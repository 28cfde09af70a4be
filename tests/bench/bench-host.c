/* bench-host: the host plan (gpufft_plan_new_host(), no device) alone, fed
 * as a live stream feeds it: batches of 19 frames (--frames sets it; at N
 * 1024, hop 512, two 100 ms intervals of 48 kHz audio, a batch each), F32,
 * interleaved, each channel analysed, results in dB to a result function.
 * Prints CPU µs per frame and channel (the process's CPU time over the
 * timed batches: the submit's copy and the worker's analysis) and a
 * checksum of the results (equal checksums: the same results, for
 * comparing two builds). --pace-ms=P submits a batch every P ms (100: a
 * live stream's pace, each interval's work on caches gone cold meanwhile)
 * instead of one after the other. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "gpufft.h"

static gchar *sizes_str = NULL;
static gint channels = 2, batches = 400, pace_ms = 0, frames_arg = 19;

static const GOptionEntry entries[] = {
  {"sizes", 0, 0, G_OPTION_ARG_STRING, &sizes_str,
      "FFT sizes (default 1024,4096,960)", "N,..."},
  {"channels", 0, 0, G_OPTION_ARG_INT, &channels,
      "Interleaved channels, each analysed (default 2)", "C"},
  {"batches", 0, 0, G_OPTION_ARG_INT, &batches,
      "Timed batches per size (default 400; a tenth from N 4096)", "B"},
  {"frames", 0, 0, G_OPTION_ARG_INT, &frames_arg,
      "Frames a batch (default 19: at N 1024, hop 512, two 100 ms "
        "intervals of 48 kHz audio)", "F"},
  {"pace-ms", 0, 0, G_OPTION_ARG_INT, &pace_ms,
        "Submit a batch every P ms, as a live stream (default 0: at once)",
      "P"},
  {NULL}
};

static gdouble checksum;

static void
on_result (const GpufftGroupResult * r, gpointer data)
{
  guint k;

  for (k = 0; k < r->n_bins * r->channels; k++)
    checksum += r->power[k] * (k % 13 + 1);
}

static gdouble
cpu_s (void)
{
  struct timespec t;

  clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static gboolean
run (guint n, guint ch, guint reps)
{
  const guint frames = (guint) frames_arg;
  guint hop = n / 2, i;
  gsize span = (gsize) (frames - 1) * hop + n, t;
  GpufftPlanConfig c;
  GpufftSegment seg = { 0 };
  GpufftGroup g = { 0 };
  GpufftBatch b = { 0 };
  GError *err = NULL;
  GpufftPlan *plan;
  gfloat *x;
  gdouble t0 = 0.0, t1;

  gpufft_plan_config_init (&c);
  c.fft_size = n;
  c.hop = hop;
  c.channels = ch;
  c.downmix = FALSE;
  c.rate = 48000;
  c.n_peaks = 0;
  c.output_db = TRUE;
  c.max_frames = frames;
  plan = gpufft_plan_new_host (&c, &err);
  if (!plan) {
    g_printerr ("bench-host: N %u: %s\n", n, err->message);
    g_error_free (err);
    return FALSE;
  }
  gpufft_plan_set_result_func (plan, on_result, NULL);
  x = g_new (gfloat, span * ch);
  for (t = 0; t < span * ch; t++)
    x[t] = sin (t * 0.01) + 0.001 * (t % 7);
  seg.data = x;
  seg.n_samples = span;
  g.n_frames = frames;
  g.close = TRUE;
  b.segments = &seg;
  b.n_segments = 1;
  b.n_frames = frames;
  b.groups = &g;
  b.n_groups = 1;
  b.db_floor = -120;
  checksum = 0;
  for (i = 0; i < 8 + reps; i++) {
    if (i == 8) {
      gpufft_plan_collect (plan, TRUE, NULL, NULL, NULL);
      checksum = 0;
      t0 = cpu_s ();
    }
    if (!gpufft_plan_submit (plan, &b, &err)) {
      g_printerr ("bench-host: N %u: %s\n", n, err->message);
      g_clear_error (&err);
      gpufft_plan_free (plan);
      g_free (x);
      return FALSE;
    }
    if (pace_ms > 0)
      g_usleep ((gulong) pace_ms * 1000);
  }
  gpufft_plan_collect (plan, TRUE, NULL, NULL, NULL);
  t1 = cpu_s ();
  g_print ("| %6u | %3u | %8u | %10.2f | %.17g |\n", n, ch, reps * frames,
      (t1 - t0) * 1e6 / ((gdouble) reps * frames * ch), checksum);
  g_print ("@host n=%u ch=%u frames=%u batch=%u pace_ms=%d "
      "us_per_frame_channel=%.3f checksum=%.17g\n", n, ch, reps * frames,
      frames, pace_ms,
      (t1 - t0) * 1e6 / ((gdouble) reps * frames * ch), checksum);
  gpufft_plan_free (plan);
  g_free (x);
  return TRUE;
}

int
main (int argc, char **argv)
{
  GOptionContext *ctx = g_option_context_new (NULL);
  GError *err = NULL;
  gchar **sizes;
  guint i;
  gboolean ok = TRUE;

  g_option_context_set_summary (ctx, "The host plan alone: CPU per frame "
      "and channel, batches of --frames frames (19) as a live stream "
      "hands them over.");
  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, &argc, &argv, &err)) {
    g_printerr ("bench-host: %s\n", err->message);
    return 2;
  }
  g_option_context_free (ctx);
  if (channels < 1 || channels > 64 || batches < 1 || pace_ms < 0
      || frames_arg < 1 || frames_arg > 4096) {
    g_printerr ("bench-host: --channels 1..64, --batches >= 1, "
        "--frames 1..4096, --pace-ms >= 0\n");
    return 2;
  }
  sizes = g_strsplit (sizes_str ? sizes_str : "1024,4096,960", ",", -1);
  g_print ("== host plan: F32 interleaved, %d channels each analysed, hop "
      "N/2, %d frames a batch, dB results ==\n", channels, frames_arg);
  g_print ("| N | ch | frames | CPU us per frame and channel | checksum |\n"
      "|---|---|---|---|---|\n");
  for (i = 0; sizes[i]; i++) {
    guint n = (guint) g_ascii_strtoull (sizes[i], NULL, 10);

    if (!gpufft_size_is_valid (n)) {
      g_printerr ("bench-host: %s is not a valid FFT size\n", sizes[i]);
      ok = FALSE;
      continue;
    }
    if (!run (n, (guint) channels, n >= 4096 ? (guint) MAX (batches / 10, 1) :
            (guint) batches))
      ok = FALSE;
  }
  g_strfreev (sizes);
  return ok ? 0 : 1;
}
