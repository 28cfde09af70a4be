/* bench-fftw: the CPU peer. The same work as the fused GPU kernel with
 * FFTW in single precision: per frame, window (Hann) -> r2c -> |X|^2 x
 * spectrum scaling accumulated into the group mean (64 frames per group),
 * hop = N. One thread, then all threads (frames split across threads; each
 * runs the one FFTW plan through fftwf_execute_dft_r2c, which is
 * thread-safe; FFTW's own threads library splits one transform and is the
 * wrong tool for many small ones). Input per call: 256 MiB (8 with
 * --small), the CPU's rates do not depend on the batch past the caches. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <fftw3.h>

#include "bench-common.h"

#define GROUP 64

typedef struct
{
  guint n;
  const gfloat *in;
  const gfloat *window;
  gdouble scale;
  fftwf_plan plan;
  guint first, last;            /* frames [first, last) */
  gfloat *out;                  /* [groups][n/2+1] */
} Job;

static gpointer
run_job (gpointer data)
{
  Job *j = data;
  guint n = j->n, nb = n / 2 + 1, f, k;
  gfloat *buf = fftwf_alloc_real (n);
  fftwf_complex *spec = fftwf_alloc_complex (nb);
  gfloat *acc = g_new0 (gfloat, nb);

  for (f = j->first; f < j->last; f++) {
    const gfloat *x = j->in + (gsize) f * n;
    for (k = 0; k < n; k++)
      buf[k] = x[k] * j->window[k];
    fftwf_execute_dft_r2c (j->plan, buf, spec);
    for (k = 0; k < nb; k++)
      acc[k] += spec[k][0] * spec[k][0] + spec[k][1] * spec[k][1];
    if ((f + 1) % GROUP == 0 || f + 1 == j->last) {
      guint g = f / GROUP, cnt = f % GROUP + 1;
      gfloat s = (gfloat) (j->scale / cnt);
      gfloat *o = j->out + (gsize) g * nb;
      for (k = 0; k < nb; k++) {
        o[k] = acc[k] * s * (k == 0 || k == n / 2 ? 1.0f : 2.0f);
        acc[k] = 0.0f;
      }
    }
  }
  g_free (acc);
  fftwf_free (spec);
  fftwf_free (buf);
  return NULL;
}

/* Wall ns of one pass over `frames` frames with `threads` threads. */
static gdouble
run_pass (Job * proto, guint frames, guint threads)
{
  Job *jobs = g_new (Job, threads);
  GThread **th = g_new0 (GThread *, threads);
  guint per = (frames / threads + GROUP - 1) / GROUP * GROUP, t;
  gint64 t0 = bench_now_ns (), t1;

  for (t = 0; t < threads; t++) {
    jobs[t] = *proto;
    jobs[t].first = MIN (frames, t * per);
    jobs[t].last = t + 1 == threads ? frames : MIN (frames, (t + 1) * per);
    if (t > 0)
      th[t] = g_thread_new ("fftw", run_job, &jobs[t]);
  }
  run_job (&jobs[0]);
  for (t = 1; t < threads; t++)
    g_thread_join (th[t]);
  t1 = bench_now_ns ();
  g_free (th);
  g_free (jobs);
  return (gdouble) (t1 - t0);
}

int
main (int argc, char **argv)
{
  BenchArgs args;
  guint i, nthreads = g_get_num_processors (), repeats;
  gdouble bytes;

  if (!bench_args_parse (&args, &argc, &argv,
          "FFTW single-precision r2c + power + group mean on the CPU", NULL))
    return 2;
  if (args.mib <= 0)
    args.mib = args.small ? 8 : 256;
  bytes = bench_args_bytes (&args);
  repeats = bench_args_repeats (&args, 3, 30);

  bench_print_header ("FFTW: CPU r2c + power + group mean (the same work "
      "as the fused kernel)", "CPU");
  printf ("FFTW %s, single precision, FFTW_MEASURE plan; hann, hop=N, "
      "groups of %d; %.0f MiB input per pass, best of %u; %u threads "
      "available; GB/s = frames*(4N+4(N/2+1))/t\n", fftwf_version,
      GROUP, bytes / 1048576.0, repeats, nthreads);
  printf ("%6s %7s %9s | %9s %10s %9s %9s | %s\n", "N", "threads", "frames",
      "ms", "Mframe/s", "Gsamp/s", "GB/s", "check");
  for (i = 0; i < args.n_sizes; i++) {
    guint n = args.sizes[i], frames = bench_frames_for (&args, n), k, r, ti;
    guint n_groups = (frames + GROUP - 1) / GROUP, thr_list[2] = { 1,
      nthreads
    };
    gfloat *in = fftwf_alloc_real ((gsize) frames * n);
    gfloat *out = g_new0 (gfloat, (gsize) n_groups * (n / 2 + 1));
    gfloat *window = g_new (gfloat, n), *buf = fftwf_alloc_real (n);
    fftwf_complex *spec = fftwf_alloc_complex (n / 2 + 1);
    gdouble sum_w = 0.0, total = 0.0;
    Job proto;

    bench_noise_fill (in, (gsize) frames * n, n);
    for (k = 0; k < n; k++) {
      window[k] = (gfloat) (0.5 - 0.5 * cos (2.0 * M_PI * k / n));
      sum_w += window[k];
    }
    memset (&proto, 0, sizeof proto);
    proto.n = n;
    proto.in = in;
    proto.window = window;
    proto.scale = 1.0 / (sum_w * sum_w);
    proto.out = out;
    proto.plan = fftwf_plan_dft_r2c_1d (n, buf, spec, FFTW_MEASURE);
    for (ti = 0; ti < (nthreads > 1 ? 2u : 1u); ti++) {
      guint th = thr_list[ti];
      gdouble best = 0.0, eff = (4.0 * n + 4.0 * (n / 2 + 1)) * frames;
      gboolean good;

      for (r = 0; r < repeats; r++) {
        gdouble ns = run_pass (&proto, frames, th);
        if (r == 0 || ns < best)
          best = ns;
      }
      /* sanity: total power of uniform noise with hann = 0.5 per group */
      total = 0.0;
      for (k = 0; k < n_groups * (n / 2 + 1); k++)
        total += out[k];
      good = fabs (total / n_groups - 0.5) < 0.05;
      printf ("%6u %7u %9u | %9.2f %10.4g %9.4g %9.4g | %s (P=%.3f)\n", n,
          th, frames, best * 1e-6, frames / best * 1e3,
          (gdouble) frames * n / best, eff / best, good ? "ok" : "BAD",
          total / n_groups);
      printf ("@fftw n=%u threads=%u frames=%u ns=%.0f ok=%d\n", n, th,
          frames, best, good);
      fflush (stdout);
    }
    fftwf_destroy_plan (proto.plan);
    fftwf_free (spec);
    fftwf_free (buf);
    fftwf_free (in);
    g_free (window);
    g_free (out);
  }
  return 0;
}
