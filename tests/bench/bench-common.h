/* Command line and table helpers shared by the C benchmarks (GLib only). */
#ifndef __BENCH_COMMON_H__
#define __BENCH_COMMON_H__

#include <glib.h>

#include "bench-dft.h"

G_BEGIN_DECLS

/* Input per call in the default (GPU) mode and in --small mode. */
#define BENCH_BYTES_FULL (1024.0 * 1024 * 1024)
#define BENCH_BYTES_SMALL (8.0 * 1024 * 1024)

typedef struct
{
  gboolean small;               /* --small: sizes for a CPU Vulkan device */
  gboolean small_forced;        /* --small was given */
  gdouble mib;                  /* --mib: input MiB per call, 0 = mode's */
  gint repeats;                 /* --repeats, 0 = mode's default */
  gint device;                  /* --device, -1 = automatic */
  gchar *sizes_str;             /* --sizes "1024,4096" */
  guint sizes[16];
  guint n_sizes;
} BenchArgs;

/* Parses the common options plus `extra` (may be NULL). Returns FALSE (and
 * prints why) on a bad command line. */
gboolean bench_args_parse (BenchArgs * args, int *argc, char ***argv,
    const gchar * summary, const GOptionEntry * extra);

/* Switches to the small mode (when the device turns out to be a CPU). */
void bench_args_set_small (BenchArgs * args);

/* Input bytes per call for this mode. */
gdouble bench_args_bytes (const BenchArgs * args);

/* Repeats for this mode (default_full on a GPU, default_small else). */
guint bench_args_repeats (const BenchArgs * args, guint default_full,
    guint default_small);

/* Frames of n samples in one call: bytes / (4 n), at least 1. */
guint bench_frames_for (const BenchArgs * args, guint n);

/* Prints the standard header: what, the date, the device. */
void bench_print_header (const gchar * title, const gchar * device);

/* Seconds of CPU time (user + system) of the whole process. */
gdouble bench_cpu_seconds (void);

/* Monotonic time in ns. */
gint64 bench_now_ns (void);

G_END_DECLS

#endif
