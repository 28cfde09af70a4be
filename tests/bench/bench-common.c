#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>

#include "bench-common.h"

static const guint default_sizes[] = { 1024, 4096, 8192, 16384, 32768, 65536 };

static gboolean
parse_sizes (BenchArgs * args, GError ** error)
{
  gchar **parts;
  guint i;

  args->n_sizes = 0;
  if (!args->sizes_str) {
    for (i = 0; i < G_N_ELEMENTS (default_sizes); i++)
      args->sizes[args->n_sizes++] = default_sizes[i];
    return TRUE;
  }
  parts = g_strsplit (args->sizes_str, ",", -1);
  for (i = 0; parts[i]; i++) {
    guint64 v;
    if (!*parts[i])
      continue;
    if (!g_ascii_string_to_unsigned (g_strstrip (parts[i]), 10, 2, 65536,
            &v, error) || v % 2 != 0
        || args->n_sizes == G_N_ELEMENTS (args->sizes)) {
      if (error && !*error)
        g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
            "bad size '%s' (even sizes 2..65536, at most %u sizes)",
            parts[i], (guint) G_N_ELEMENTS (args->sizes));
      g_strfreev (parts);
      return FALSE;
    }
    args->sizes[args->n_sizes++] = (guint) v;
  }
  g_strfreev (parts);
  return args->n_sizes > 0;
}

gboolean
bench_args_parse (BenchArgs * args, int *argc, char ***argv,
    const gchar * summary, const GOptionEntry * extra)
{
  GOptionEntry entries[] = {
    {"small", 0, 0, G_OPTION_ARG_NONE, &args->small_forced,
        "Small sizes (automatic on a CPU Vulkan device)", NULL},
    {"mib", 0, 0, G_OPTION_ARG_DOUBLE, &args->mib,
        "Input MiB per call (default 1024, 8 with --small)", "MIB"},
    {"repeats", 0, 0, G_OPTION_ARG_INT, &args->repeats,
        "Timed repeats per call", "R"},
    {"device", 0, 0, G_OPTION_ARG_INT, &args->device,
        "Vulkan device index (-1 automatic)", "I"},
    {"sizes", 0, 0, G_OPTION_ARG_STRING, &args->sizes_str,
        "FFT sizes, comma separated (default 1024,4096,8192,16384,32768,65536)", "N,..."},
    {NULL}
  };
  GOptionContext *octx;
  GError *err = NULL;

  memset (args, 0, sizeof (*args));
  args->device = -1;
  octx = g_option_context_new (NULL);
  g_option_context_set_summary (octx, summary);
  g_option_context_add_main_entries (octx, entries, NULL);
  if (extra)
    g_option_context_add_main_entries (octx, extra, NULL);
  if (!g_option_context_parse (octx, argc, argv, &err)
      || !parse_sizes (args, &err)) {
    fprintf (stderr, "%s\n", err ? err->message : "bad command line");
    g_clear_error (&err);
    g_option_context_free (octx);
    return FALSE;
  }
  g_option_context_free (octx);
  args->small = args->small_forced;
  return TRUE;
}

void
bench_args_set_small (BenchArgs * args)
{
  args->small = TRUE;
}

gdouble
bench_args_bytes (const BenchArgs * args)
{
  if (args->mib > 0)
    return args->mib * 1024.0 * 1024.0;
  return args->small ? BENCH_BYTES_SMALL : BENCH_BYTES_FULL;
}

guint
bench_args_repeats (const BenchArgs * args, guint default_full,
    guint default_small)
{
  if (args->repeats > 0)
    return (guint) args->repeats;
  return args->small ? default_small : default_full;
}

guint
bench_frames_for (const BenchArgs * args, guint n)
{
  gdouble f = bench_args_bytes (args) / (4.0 * n);
  return f < 1.0 ? 1 : (guint) f;
}

void
bench_print_header (const gchar * title, const gchar * device)
{
  GDateTime *now = g_date_time_new_now_utc ();
  gchar *date = g_date_time_format (now, "%Y-%m-%d %H:%M UTC");

  printf ("== %s ==\n", title);
  printf ("date: %s; device: %s\n", date, device ? device : "-");
  g_free (date);
  g_date_time_unref (now);
}

gdouble
bench_cpu_seconds (void)
{
  struct rusage ru;

  if (getrusage (RUSAGE_SELF, &ru) != 0)
    return 0.0;
  return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 +
      ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6;
}

gint64
bench_now_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (gint64) ts.tv_sec * 1000000000 + ts.tv_nsec;
}
