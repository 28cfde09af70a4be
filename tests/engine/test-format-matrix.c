/* The input matrix: every sample format (S16, S24, S32, F32, F64) x layout
 * (interleaved, planar) x channels (1, 2, 3, 6) x downmix or per channel x
 * every power-of-two size 32..65536 and a set of other sizes x every kernel
 * path the device runs for that size (GPUFFT_KERNEL_PATH=gpu, and =cpu
 * where the CPU devices' kernels take the size), each cell one plan whose
 * group power and complex output are checked against the double-precision
 * reference of the exact decoded samples.
 *
 * The whole matrix is thousands of plans (an hour on lavapipe), so a run
 * takes one part of it: the cells in a fixed shuffled order, cut into parts
 * of PART_CELLS; part (hours since 1970) mod parts by default, so that the
 * part moves on every hour and every cell runs within a cycle of runs.
 *   GPUFFT_MATRIX_PART=k   part k
 *   GPUFFT_MATRIX=all      every cell (one command, the full matrix)
 * The first line of the output names the part. */
#include <math.h>
#include <stdlib.h>
#include <time.h>

#include "engine-test.h"
#include "gpufft-plan-private.h"

#define PART_CELLS 24
#define N_FRAMES 3

static const guint channel_counts[] = { 1, 2, 3, 6 };
static const guint other_sizes[] = { 6, 94, 100, 960, 1000, 1018, 4410,
  16000, 64000
};
static const gchar *format_names[] = { "S16", "S24", "S32", "F32", "F64" };

typedef struct
{
  GpufftFormat format;
  gboolean planar, downmix, cpu_path;
  guint channels, n;
} Cell;

static GArray *
all_cells (guint cpu_max)
{
  GArray *cells = g_array_new (FALSE, FALSE, sizeof (Cell));
  guint f, l, c, d, s, p, n_sizes = 12 + G_N_ELEMENTS (other_sizes);

  for (s = 0; s < n_sizes; s++)
    for (p = 0; p < 2; p++)
      for (f = GPUFFT_FORMAT_S16; f <= GPUFFT_FORMAT_F64; f++)
        for (l = 0; l < 2; l++)
          for (c = 0; c < G_N_ELEMENTS (channel_counts); c++)
            for (d = 0; d < 2; d++) {
              Cell cell;
              guint n = s < 12 ? 32u << s : other_sizes[s - 12];

              /* the CPU devices' kernels: powers of two they take */
              if (p == 1 && (s >= 12 || n > cpu_max))
                continue;
              cell.format = f;
              cell.planar = l;
              cell.channels = channel_counts[c];
              cell.downmix = d;
              cell.cpu_path = p;
              cell.n = n;
              g_array_append_val (cells, cell);
            }
  return cells;
}

/* One cell: FALSE (and the test failed) when it does not match. */
static gboolean
run_cell (const Cell * cell, guint index)
{
  guint n = cell->n, nb = n / 2 + 1, hop = MAX (1, n / 2), g, c;
  gdouble limit = n <= 4096 ? 3e-7 : 5e-7;
  GpufftGroup groups[2] = { {2, TRUE}, {1, TRUE} };
  GpufftPlanConfig cfg;
  GpufftPlan *plan;
  GpufftSegment segs[2] = { {0} };
  gconstpointer planes[2 * 6];
  GpufftBatch batch = { 0 };
  GError *err = NULL;
  GPtrArray *res;
  EtInput *in;
  gdouble *ref = g_new (gdouble, nb);
  gdouble *re = g_new (gdouble, nb), *im = g_new (gdouble, nb);
  gchar *what = g_strdup_printf ("cell %u: %s %s %u ch %s N=%u %s kernels",
      index, format_names[cell->format], cell->planar ? "planar" :
      "interleaved", cell->channels, cell->downmix ? "downmix" :
      "per-channel", n, cell->cpu_path ? "CPU devices'" : "GPU");
  gboolean ok = TRUE;
  guint first = 0;

  /* per bin: the worst of more bins, each of a longer FFT, from 8192 up;
   * twice that for the mixed-radix and Bluestein sizes */
  gdouble power_tol = n <= 4096 ? 1e-5 : 3e-5;

  if (n & (n - 1)) {
    limit = 1e-6;
    power_tol *= 2.0;
  }
  g_setenv ("GPUFFT_KERNEL_PATH", cell->cpu_path ? "cpu" : "gpu", TRUE);
  gpufft_plan_config_init (&cfg);
  cfg.fft_size = n;
  cfg.hop = hop;
  cfg.format = cell->format;
  cfg.channels = cell->channels;
  cfg.planar = cell->planar;
  cfg.downmix = cell->downmix;
  cfg.rate = 48000.0;
  cfg.max_frames = N_FRAMES;
  cfg.max_groups = 2;
  cfg.complex_out = TRUE;
  plan = gpufft_plan_new (et_context (), &cfg, &err);
  g_unsetenv ("GPUFFT_KERNEL_PATH");
  if (!plan) {
    et_fail ("%s: gpufft_plan_new: %s", what, err->message);
    g_error_free (err);
    ok = FALSE;
    goto out;
  }
  if (cell->cpu_path != plan->cpu) {
    et_fail ("%s: the plan runs the other kernels", what);
    ok = FALSE;
  }

  /* three frames and a few samples more, in two segments */
  in = et_input_new (cell->format, cell->planar, cell->channels,
      (gsize) (N_FRAMES - 1) * hop + n + 5, 0.4, 0.3, 7000 + index);
  et_input_segments (in, 0, in->len, 2, segs, planes);
  batch.segments = segs;
  batch.n_segments = 2;
  batch.n_frames = N_FRAMES;
  batch.groups = groups;
  batch.n_groups = 2;
  res = et_results_new ();
  if (!et_submit_collect (plan, &batch, res) || res->len != 2) {
    et_fail ("%s: %u results", what, res->len);
    ok = FALSE;
  }
  for (g = 0; ok && g < 2; g++) {
    EtResult *r = g_ptr_array_index (res, g);
    guint last = first + groups[g].n_frames - 1;

    for (c = 0; c < r->channels; c++) {
      gint ch = cell->downmix ? -1 : (gint) c;
      gdouble pe, ce;

      et_ref_power (in, ch, (gsize) first * hop, hop, groups[g].n_frames, n,
          cfg.window, cfg.scaling, cfg.rate, ref);
      /* (bins within 40 dB of the largest: a wrong load moves whole
       * tones; the precision far below them is test-fft-accuracy's) */
      pe = et_check_power (r->power + (gsize) c * nb, ref, nb, 40.0,
          power_tol, what);
      et_ref_complex (in, ch, (gsize) last * hop, n, cfg.window, re, im);
      ce = et_complex_error (r->complex_data + (gsize) c * nb * 2, re, im,
          nb);
      if (!(ce <= limit)) {
        et_fail ("%s group %u channel %d: complex relative L2 error %.3g > "
            "%.0e", what, g, ch, ce, limit);
        ok = FALSE;
      }
      g_test_message ("%s group %u channel %d: power %.2e, complex %.2e",
          what, g, ch, pe, ce);
    }
    first += groups[g].n_frames;
  }
  g_ptr_array_unref (res);
  gpufft_plan_free (plan);
  et_input_free (in);
out:
  g_free (what);
  g_free (ref);
  g_free (re);
  g_free (im);
  return ok;
}

static void
test_matrix (void)
{
  GArray *cells;
  GRand *rand;
  const gchar *all = g_getenv ("GPUFFT_MATRIX");
  const gchar *part_env = g_getenv ("GPUFFT_MATRIX_PART");
  guint n_parts, part, i, first, last, bad = 0;
  guint *order;

  if (et_context () == NULL)
    return;
  cells = all_cells (gpufft_plan_cpu_max_size (et_context ()));
  /* a fixed shuffle, so that each part mixes sizes, formats and paths */
  order = g_new (guint, cells->len);
  for (i = 0; i < cells->len; i++)
    order[i] = i;
  rand = g_rand_new_with_seed (20261125);
  for (i = cells->len - 1; i > 0; i--) {
    guint j = g_rand_int_range (rand, 0, i + 1), t = order[i];

    order[i] = order[j];
    order[j] = t;
  }
  g_rand_free (rand);

  n_parts = (cells->len + PART_CELLS - 1) / PART_CELLS;
  part = part_env ? (guint) g_ascii_strtoull (part_env, NULL, 10) % n_parts
      : (guint) ((time (NULL) / 3600) % n_parts);
  first = part * PART_CELLS;
  last = MIN (cells->len, first + PART_CELLS);
  if (g_strcmp0 (all, "all") == 0) {
    first = 0;
    last = cells->len;
  }
  g_test_message ("matrix: %u cells in %u parts of %u; running %s (cells "
      "%u..%u of the shuffled order; GPUFFT_MATRIX_PART=%u repeats it, "
      "GPUFFT_MATRIX=all runs every cell)", cells->len, n_parts, PART_CELLS,
      g_strcmp0 (all, "all") == 0 ? "all of them" : "one part", first,
      last - 1, part);
  g_printerr ("matrix: part %u of %u (%u cells), cells %u..%u\n", part,
      n_parts, cells->len, first, last - 1);
  for (i = first; i < last; i++)
    if (!run_cell (&g_array_index (cells, Cell, order[i]), order[i]))
      bad++;
  if (bad)
    g_printerr ("matrix: %u of %u cells wrong\n", bad, last - first);
  g_free (order);
  g_array_unref (cells);
}

/* The S16 one-channel rows of the CPU devices' kernels at 2048 and 4096
 * (a wrong half of each 16-byte texel was read: a 6 kHz tone came out at
 * 3 kHz and 1.5 kHz), whatever part the matrix runs today. */
static void
test_s16_rows (void)
{
  guint sizes[] = { 1024, 2048, 4096, 8192 }, s, l;

  if (et_context () == NULL)
    return;
  for (s = 0; s < G_N_ELEMENTS (sizes); s++)
    for (l = 0; l < 2; l++) {
      Cell cell = { GPUFFT_FORMAT_S16, l, FALSE, TRUE, l ? 2 : 1, sizes[s] };

      if (sizes[s] > gpufft_plan_cpu_max_size (et_context ()))
        continue;
      run_cell (&cell, 100 + s * 2 + l);
    }
}

int
main (int argc, char **argv)
{
  et_init (&argc, &argv);
  g_test_add_func ("/format-matrix/s16-one-channel-rows", test_s16_rows);
  g_test_add_func ("/format-matrix/part", test_matrix);
  return et_run ();
}
