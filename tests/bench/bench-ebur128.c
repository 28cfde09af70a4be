/* bench-ebur128: libebur128 run per stream, the CPU peer of gpuloudness in
 * bench-streams's stereo cases.
 *
 * S streams of stereo F32 48 kHz audio in 480-frame (10 ms) chunks, each
 * measured by an ebur128_state of its own with the modes of gpuloudness's
 * default (momentary, short-term, global, loudness range, sample and true
 * peak) and EBUR128_MODE_HISTOGRAM (global and range from histograms of
 * constant size, as gpuloudness's meter keeps them; --no-histogram: the
 * block lists instead, which grow with the stream). Every 100 ms of a
 * stream's audio (--interval-ms) the values of gpuloudness's message are
 * read: momentary, short-term, global, relative threshold, range, the
 * maxima of momentary and short-term, sample and true peak per channel.
 *
 * The samples: silence by default, as bench-streams's audiotestsrc
 * wave=silence; --wave noise (uniform, peak 0.5) or sine (997 Hz, peak
 * 0.5) from one pre-filled second of audio that every stream reads from
 * an offset of its own (no generation in the measured work).
 *
 * The streams are shared among T threads (--threads, default the machine's
 * processors; stream s on thread s mod T). Live (the default mode "live"):
 * chunk k of every stream arrives at start + (k + 1) x 10 ms of wall time,
 * as a live source delivers it, and each thread takes its streams' chunks
 * in turn once they have arrived; "fast": one chunk after the other, as
 * fast as the threads go.
 *
 * Each case runs twice in the same process: "none" (the same threads,
 * pacing and chunk walk without any analysis: the benchmark's own cost,
 * as bench-streams's identity) and "libebur128". Everything is measured
 * from the warm point (a quarter of all the chunks taken) to the end:
 * audio / wall (live: 1.00 = real time held), CPU cores (getrusage of the
 * whole process / wall), CPU ns per sample (every channel counted;
 * elem_ns: libebur128's less none's), the intervals read and their
 * latency p50 / p99 (the interval's closing chunk's arrival to its values
 * read), chunks taken more than one chunk late (late) and the process's
 * peak resident memory (libebur128 keeps the 3 s short-term window per
 * stream in doubles: about 2.5 MiB a stereo stream). The lines are
 * bench-streams's: a table row and an "@streams ... element=libebur128"
 * line with the same keys (plus threads, late, rss_mib).
 *
 * Bounds: 1 .. 4096 streams, 1 .. 256 threads, 0.5 .. 600 s of audio a
 * stream; latencies in a histogram of 10 us bins up to 1 s per thread
 * (longer ones counted in the last bin). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>

#include <ebur128.h>
#include <glib.h>

#include "bench-common.h"

#define RATE 48000
#define CHANNELS 2
#define CHUNK 480               /* frames: 10 ms */
#define CHUNK_NS G_GINT64_CONSTANT (10000000)
#define SOURCE_FRAMES RATE      /* one second of audio, read by every stream */
#define MAX_STREAMS 4096
#define MAX_THREADS 256
#define LAT_BIN_US 10
#define LAT_BINS 100000         /* 10 us bins up to 1 s */

static gchar *streams_str = NULL;
static gchar *modes_str = NULL;
static gchar *wave_str = NULL;
static gdouble live_seconds = 0, fast_seconds = 0, fast_msamples = 0;
static gint threads_opt = 0, interval_ms = 100;
static gboolean small = FALSE, no_histogram = FALSE;

static const GOptionEntry entries[] = {
  {"small", 0, 0, G_OPTION_ARG_NONE, &small,
      "Fewer streams, shorter runs", NULL},
  {"streams", 0, 0, G_OPTION_ARG_STRING, &streams_str,
      "Stereo stream counts (default 1,256,1024; small 1,4)", "S,..."},
  {"modes", 0, 0, G_OPTION_ARG_STRING, &modes_str,
      "live,fast (default both)", "M,..."},
  {"threads", 0, 0, G_OPTION_ARG_INT, &threads_opt,
      "Threads sharing the streams (default: the processors)", "T"},
  {"live-seconds", 0, 0, G_OPTION_ARG_DOUBLE, &live_seconds,
      "Audio seconds per live run (default 5, small 3)", "S"},
  {"fast-seconds", 0, 0, G_OPTION_ARG_DOUBLE, &fast_seconds,
      "Audio seconds per stream per fast run (default 20, small 5)", "S"},
  {"fast-msamples", 0, 0, G_OPTION_ARG_DOUBLE, &fast_msamples,
      "At most this many M samples (all streams and channels) per fast "
        "run (default 64, small 4)", "M"},
  {"interval-ms", 0, 0, G_OPTION_ARG_INT, &interval_ms,
      "Values read every this many ms of a stream's audio, a multiple of "
        "10 (default 100, as bench-streams's gpuloudness)", "MS"},
  {"wave", 0, 0, G_OPTION_ARG_STRING, &wave_str,
      "silence (default, as bench-streams), noise or sine", "W"},
  {"no-histogram", 0, 0, G_OPTION_ARG_NONE, &no_histogram,
      "Global loudness and range from the block lists, not histograms", NULL},
  {NULL}
};

typedef struct _Run Run;

typedef struct
{
  Run *run;
  guint index;
  GThread *thread;
  guint64 late;                 /* chunks taken over a chunk late */
  guint64 intervals;            /* intervals read after the warm point */
  guint32 *lat;                 /* [LAT_BINS] */
  gdouble sink;                 /* the values read, summed */
  gint errors;
} Worker;

struct _Run
{
  guint streams, n_threads, n_chunks, chunks_per_interval;
  gboolean live, analyse;
  const gfloat *source;         /* [SOURCE_FRAMES * CHANNELS] */
  ebur128_state **states;       /* [streams], NULL: none */
  gdouble *max_m, *max_s;       /* [streams] */
  gint64 t0;                    /* monotonic ns: chunk k arrives at
                                 * t0 + (k + 1) x CHUNK_NS */
  gint taken;                   /* chunks taken, all streams */
  gint warm_done;
  gint64 t_warm;
  gdouble cpu_warm;
  guint64 taken_before_warm;
  gint first_done;              /* t_first was taken */
  gint64 t_first;               /* the first interval's values read */
  Worker *workers;
};

static void
sleep_until (gint64 t_ns)
{
  struct timespec ts;

  ts.tv_sec = t_ns / 1000000000;
  ts.tv_nsec = t_ns % 1000000000;
  while (clock_nanosleep (CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR);
}

/* The values of gpuloudness's message (gstgpuloudness.c), summed into the
 * worker's sink so that none of them is left out. */
static void
read_values (Run * r, Worker * w, guint s)
{
  ebur128_state *st = r->states[s];
  gdouble m = 0, sh = 0, g = 0, rt = 0, lra = 0, sp = 0, tp = 0, v;
  guint c;

  if (ebur128_loudness_momentary (st, &m) != EBUR128_SUCCESS
      || ebur128_loudness_shortterm (st, &sh) != EBUR128_SUCCESS
      || ebur128_loudness_global (st, &g) != EBUR128_SUCCESS
      || ebur128_relative_threshold (st, &rt) != EBUR128_SUCCESS
      || ebur128_loudness_range (st, &lra) != EBUR128_SUCCESS)
    w->errors++;
  for (c = 0; c < CHANNELS; c++) {
    if (ebur128_sample_peak (st, c, &v) != EBUR128_SUCCESS)
      w->errors++;
    sp += v;
    if (ebur128_true_peak (st, c, &v) != EBUR128_SUCCESS)
      w->errors++;
    tp += v;
  }
  r->max_m[s] = MAX (r->max_m[s], m);
  r->max_s[s] = MAX (r->max_s[s], sh);
  /* (-inf for silence: only finite values are summed) */
  for (c = 0; c < 5; c++) {
    gdouble x = c == 0 ? m : c == 1 ? sh : c == 2 ? g : c == 3 ? rt : lra;

    if (isfinite (x))
      w->sink += x;
  }
  w->sink += sp + tp + (isfinite (r->max_m[s]) ? r->max_m[s] : 0.0) +
      (isfinite (r->max_s[s]) ? r->max_s[s] : 0.0);
}

static gpointer
worker_main (gpointer data)
{
  Worker *w = data;
  Run *r = w->run;
  guint own = 0, k, s;
  guint64 total = (guint64) r->streams * r->n_chunks;

  for (s = w->index; s < r->streams; s += r->n_threads)
    own++;
  /* (every thread starts at t0, live or fast) */
  sleep_until (r->t0);
  for (k = 0; k < r->n_chunks; k++) {
    gint64 arrival = r->t0 + (gint64) (k + 1) * CHUNK_NS;
    gboolean closes = (k + 1) % r->chunks_per_interval == 0;
    gboolean warm = g_atomic_int_get (&r->warm_done);
    gint taken;

    if (r->live) {
      sleep_until (arrival);
      if (bench_now_ns () - arrival > CHUNK_NS)
        w->late += own;
    }
    for (s = w->index; s < r->streams; s += r->n_threads) {
      /* (each stream from an offset of its own, a whole chunk apart) */
      guint frame = (guint) (((guint64) s * 7 * CHUNK + (guint64) k * CHUNK)
          % SOURCE_FRAMES);
      const gfloat *chunk = r->source + (gsize) frame * CHANNELS;

      if (r->analyse) {
        if (ebur128_add_frames_float (r->states[s], chunk, CHUNK)
            != EBUR128_SUCCESS)
          w->errors++;
        if (closes)
          read_values (r, w, s);
      }
      if (closes) {
        gint64 now = bench_now_ns ();

        if (g_atomic_int_compare_and_exchange (&r->first_done, 0, 1))
          r->t_first = now;
        if (warm) {
          gint64 us = r->live ? (now - arrival) / 1000 : 0;
          guint b = (guint) MIN (MAX (us, 0) / LAT_BIN_US, LAT_BINS - 1);

          w->lat[b]++;
          w->intervals++;
        }
      }
    }
    /* (the warm point: a quarter of all the chunks taken) */
    taken = g_atomic_int_add (&r->taken, (gint) own) + (gint) own;
    if ((guint64) taken >= total / 4
        && g_atomic_int_compare_and_exchange (&r->warm_done, 0, 1)) {
      r->t_warm = bench_now_ns ();
      r->cpu_warm = bench_cpu_seconds ();
      r->taken_before_warm = (guint64) taken;
    }
  }
  return NULL;
}

typedef struct
{
  gdouble wall, cpu, samples, audio;
  guint64 intervals, late;
  gdouble p50, p99, first_ms, rss_mib;
  gint errors;
} Result;

static gdouble
percentile_ms (const guint64 * hist, guint64 n, gdouble p)
{
  guint64 want, seen = 0;
  guint b;

  if (n == 0)
    return -1;
  want = (guint64) MIN ((gdouble) n - 1, p * n);
  for (b = 0; b < LAT_BINS; b++) {
    seen += hist[b];
    if (seen > want)
      break;
  }
  /* (the bin's middle) */
  return (MIN (b, LAT_BINS - 1) + 0.5) * LAT_BIN_US / 1e3;
}

static gboolean
run_case (guint streams, gboolean live, gdouble seconds, gboolean analyse,
    guint n_threads, const gfloat * source, Result * res)
{
  Run r = { 0 };
  guint64 *hist = g_new0 (guint64, LAT_BINS);
  gint mode = EBUR128_MODE_M | EBUR128_MODE_S | EBUR128_MODE_I |
      EBUR128_MODE_LRA | EBUR128_MODE_SAMPLE_PEAK | EBUR128_MODE_TRUE_PEAK |
      (no_histogram ? 0 : EBUR128_MODE_HISTOGRAM);
  gint64 t1;
  gdouble cpu1;
  struct rusage ru;
  guint i, b;
  gboolean ok = TRUE;

  r.streams = streams;
  r.n_threads = MIN (n_threads, streams);
  r.n_chunks = (guint) (seconds * 100 + 0.5);
  r.chunks_per_interval = (guint) interval_ms / 10;
  r.live = live;
  r.analyse = analyse;
  r.source = source;
  r.states = g_new0 (ebur128_state *, streams);
  r.max_m = g_new (gdouble, streams);
  r.max_s = g_new (gdouble, streams);
  for (i = 0; i < streams; i++) {
    r.max_m[i] = r.max_s[i] = -INFINITY;
    if (analyse && (r.states[i] = ebur128_init (CHANNELS, RATE, mode)) == NULL) {
      g_printerr ("bench-ebur128: ebur128_init failed for stream %u of %u "
          "(out of memory?)\n", i, streams);
      ok = FALSE;
      break;
    }
  }
  r.workers = g_new0 (Worker, r.n_threads);
  if (ok) {
    /* (the threads start first; the first chunk arrives 10 ms later) */
    r.t0 = bench_now_ns () + 20 * G_GINT64_CONSTANT (1000000);
    for (i = 0; i < r.n_threads; i++) {
      r.workers[i].run = &r;
      r.workers[i].index = i;
      r.workers[i].lat = g_new0 (guint32, LAT_BINS);
      r.workers[i].thread = g_thread_new ("ebur128", worker_main,
          &r.workers[i]);
    }
    for (i = 0; i < r.n_threads; i++)
      g_thread_join (r.workers[i].thread);
  }
  t1 = bench_now_ns ();
  cpu1 = bench_cpu_seconds ();

  memset (res, 0, sizeof (*res));
  for (i = 0; ok && i < r.n_threads; i++) {
    Worker *w = &r.workers[i];

    for (b = 0; b < LAT_BINS; b++)
      hist[b] += w->lat[b];
    res->intervals += w->intervals;
    res->late += w->late;
    res->errors += w->errors;
    /* (the sink keeps the reads; a NaN in it is a bad value) */
    if (isnan (w->sink))
      res->errors++;
  }
  res->wall = (t1 - r.t_warm) / 1e9;
  res->cpu = cpu1 - r.cpu_warm;
  res->samples = ((gdouble) streams * r.n_chunks - r.taken_before_warm) *
      CHUNK * CHANNELS;
  res->audio = res->samples / CHANNELS / streams / RATE;
  res->p50 = live ? percentile_ms (hist, res->intervals, 0.5) : -1;
  res->p99 = live ? percentile_ms (hist, res->intervals, 0.99) : -1;
  res->first_ms = r.first_done ? (r.t_first - r.t0) / 1e6 : -1;
  res->rss_mib = getrusage (RUSAGE_SELF, &ru) == 0 ? ru.ru_maxrss / 1024.0 :
      0.0;
  ok = ok && r.warm_done;

  for (i = 0; i < r.n_threads; i++)
    g_free (r.workers[i].lat);
  g_free (r.workers);
  for (i = 0; i < streams; i++)
    if (r.states[i])
      ebur128_destroy (&r.states[i]);
  g_free (r.states);
  g_free (r.max_m);
  g_free (r.max_s);
  g_free (hist);
  return ok;
}

static void
print_result (guint streams, gboolean live, const gchar * el, guint threads,
    const Result * r, const Result * base)
{
  gchar ns[32] = "-", lat[48] = "-";

  if (base)
    g_snprintf (ns, sizeof (ns), "%.1f", (r->cpu - base->cpu) / r->samples
        * 1e9);
  if (r->p50 >= 0)
    g_snprintf (lat, sizeof (lat), "%.2f / %.2f", r->p50, r->p99);
  printf ("| %4u x %-2u | %-4s | %-14s | %6.2f | %6.2f | %5.2f | %8s | "
      "%7.1f | %7s | %6" G_GUINT64_FORMAT " | %5s | %13s |%s\n", streams,
      CHANNELS, live ? "live" : "fast", el, r->audio / r->wall, r->wall,
      r->cpu / r->wall, ns, r->samples / r->wall / 1e6, "-", r->intervals,
      "-", lat, r->errors ? " ERRORS" : "");
  printf ("@streams streams=%u ch=%u live=%d element=%s speed=%.4f "
      "cores=%.4f elem_ns=%s msamples_s=%.3f msgs=%" G_GUINT64_FORMAT
      " dropped=- lat_p50_ms=%.3f lat_p99_ms=%.3f first_msg_ms=%.1f "
      "errors=%d threads=%u late=%" G_GUINT64_FORMAT " rss_mib=%.0f\n",
      streams, CHANNELS, live, el, r->audio / r->wall, r->cpu / r->wall, ns,
      r->samples / r->wall / 1e6, r->intervals, r->p50, r->p99, r->first_ms,
      r->errors, threads, r->late, r->rss_mib);
  fflush (stdout);
}

/* One second of stereo audio: silence, noise or a sine (peak 0.5). */
static gfloat *
make_source (const gchar * wave)
{
  gfloat *a = g_new0 (gfloat, (gsize) SOURCE_FRAMES * CHANNELS);
  GRand *rand = g_rand_new_with_seed (1);
  guint i;

  for (i = 0; i < SOURCE_FRAMES * CHANNELS; i++) {
    if (g_str_equal (wave, "noise"))
      a[i] = (gfloat) g_rand_double_range (rand, -0.5, 0.5);
    else if (g_str_equal (wave, "sine"))
      a[i] = (gfloat) (0.5 * sin (2 * G_PI * 997.0 * (i / CHANNELS) / RATE));
  }
  g_rand_free (rand);
  return a;
}

int
main (int argc, char **argv)
{
  GOptionContext *ctx = g_option_context_new (NULL);
  GError *err = NULL;
  gchar **streams, **modes;
  const gchar *wave;
  gfloat *source;
  guint m, i, n_threads;
  gint major = 0, minor = 0, patch = 0;

  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_set_summary (ctx, "libebur128 per stream, stereo 48 kHz "
      "in 10 ms chunks, the modes of gpuloudness's default: the CPU peer of "
      "bench-streams's gpuloudness.");
  if (!g_option_context_parse (ctx, &argc, &argv, &err)) {
    g_printerr ("%s\n", err->message);
    return 2;
  }
  g_option_context_free (ctx);

  wave = wave_str ? wave_str : "silence";
  if (!g_str_equal (wave, "silence") && !g_str_equal (wave, "noise")
      && !g_str_equal (wave, "sine")) {
    g_printerr ("--wave: silence, noise or sine\n");
    return 2;
  }
  if (interval_ms < 10 || interval_ms > 60000 || interval_ms % 10 != 0) {
    g_printerr ("--interval-ms: 10 to 60000, a multiple of 10 (a chunk)\n");
    return 2;
  }
  if (threads_opt < 0 || threads_opt > MAX_THREADS) {
    g_printerr ("--threads: 1 to %d (0: the processors)\n", MAX_THREADS);
    return 2;
  }
  n_threads = threads_opt ? (guint) threads_opt :
      (guint) CLAMP (g_get_num_processors (), 1, MAX_THREADS);
  if (live_seconds <= 0)
    live_seconds = small ? 3 : 5;
  if (fast_seconds <= 0)
    fast_seconds = small ? 5 : 20;
  if (fast_msamples <= 0)
    fast_msamples = small ? 4 : 64;
  if (live_seconds < 0.5 || live_seconds > 600 || fast_seconds > 600) {
    g_printerr ("--live-seconds, --fast-seconds: 0.5 to 600\n");
    return 2;
  }
  streams = g_strsplit (streams_str ? streams_str : small ? "1,4" :
      "1,256,1024", ",", -1);
  modes = g_strsplit (modes_str ? modes_str : "live,fast", ",", -1);
  for (i = 0; streams[i]; i++) {
    guint64 v;

    if (!g_ascii_string_to_unsigned (streams[i], 10, 1, MAX_STREAMS, &v,
            NULL)) {
      g_printerr ("--streams: counts of 1 to %d, comma separated\n",
          MAX_STREAMS);
      return 2;
    }
  }
  for (m = 0; modes[m]; m++) {
    if (!g_str_equal (modes[m], "live") && !g_str_equal (modes[m], "fast")) {
      g_printerr ("--modes: live, fast\n");
      return 2;
    }
  }

  source = make_source (wave);
  ebur128_get_version (&major, &minor, &patch);
  printf ("# bench-ebur128 (%s, %d cores; libebur128 %d.%d.%d, %u threads, "
      "wave %s, values every %d ms, %s)\n", g_get_host_name (),
      g_get_num_processors (), major, minor, patch, n_threads, wave,
      interval_ms, no_histogram ? "block lists" : "histograms");
  printf ("| streams x ch | mode | element | audio/wall | wall s | cores | "
      "elem ns/sample | M samples/s | subs/s | msgs | dropped | "
      "latency p50/p99 ms |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (m = 0; modes[m]; m++) {
    gboolean live = g_str_equal (modes[m], "live");

    for (i = 0; streams[i]; i++) {
      guint s = (guint) atoi (streams[i]);
      gdouble seconds = live ? live_seconds :
          MAX (0.5, MIN (fast_seconds, fast_msamples * 1e6 /
              ((gdouble) RATE * CHANNELS * s)));
      Result base, r;

      /* (at least two intervals: a warm point before the last) */
      seconds = MAX (seconds, 2.0 * interval_ms / 1e3);
      if (!run_case (s, live, seconds, FALSE, n_threads, source, &base)) {
        g_printerr ("bench-ebur128: the run of %u streams failed\n", s);
        continue;
      }
      print_result (s, live, "none", MIN (n_threads, s), &base, NULL);
      if (!run_case (s, live, seconds, TRUE, n_threads, source, &r)) {
        g_printerr ("bench-ebur128: the run of %u streams failed\n", s);
        continue;
      }
      print_result (s, live, "libebur128", MIN (n_threads, s), &r, &base);
    }
  }
  g_free (source);
  g_strfreev (streams);
  g_strfreev (modes);
  return 0;
}
