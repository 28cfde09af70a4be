/* bench-streams: many streams with real buffers, as users run them.
 *
 * One process, one pipeline of S independent chains
 *   audiotestsrc wave=silence is-live=L samplesperbuffer=B num-buffers=K
 *   ! audio/x-raw,format=F32LE,rate=48000,channels=C ! ELEMENT
 *   ! fakesink sync=false
 * where ELEMENT is, in the same run of the same case:
 *   identity                                  (the pipeline's own cost)
 *   spectrum bands=N/2+1 multi-channel=true   (GStreamer's CPU analyser)
 *   gpufftspectrum fft-size=N hop-size=H multi-channel=true
 *       message-format=bytes message-dominant=false
 *   gpuspectrum bands=N/2+1 multi-channel=true   (the drop-in, when asked:
 *       --elements)
 *   gpuloudness interval=100000000   (EBU R128 loudness, every mode: M, S,
 *       I, LRA, sample and true peak; 10 messages a second, a live meter's
 *       rate, or --loudness-interval; when asked)
 *   level   (GStreamer's RMS and peak meter, a message every 100 ms: the
 *       lightest analyser that posts as often; when asked)
 * Cases: S = 1, 16, 64, 256, 1024 stereo streams of 480-sample (10 ms)
 * buffers, fft 1024 hop 512, live and as fast as possible; and 1 stream of
 * 64 channels in 4800-sample buffers, fft 4096 hop 1024, both ways.
 * --hop=H sets gpufftspectrum's hop in the stereo cases (H = 1024: no
 * overlap, as spectrum, which hops by its fft size) and 4H in the
 * 64-channel case (without it: 512 and 1024; H = 4800, one frame a
 * channel in each 100 ms interval: the element with next to no analysis).
 * --bands=B sets spectrum's and gpuspectrum's bands (without it: fft / 2 +
 * 1, the same fft; 128, their own default, makes fft 254). --set
 * E:P=V adds property P=V to element E (repeatable; not its name).
 * --loudness-path=P picks gpuloudness's path for the whole process, before
 * GStreamer starts, through the plugin's variables: host (every live
 * stream on the host alone, no device: GPUFFT_HOST_START=on and a host
 * budget of 1e15 points a second; a stream not live opens the device and
 * runs the engine's host path: GPUFFT_LOUDNESS_PATH=host), device (every
 * stream on the device's kernels: GPUFFT_HOST_START=off,
 * GPUFFT_LOUDNESS_PATH=chunks) or auto (the default: the variables as
 * they are); an @streams-loudness line per gpuloudness run counts the
 * streams measured on the host alone and on a device.
 *
 * Everything is measured from the warm point, when every stream has passed
 * its first buffer and posted its first message (an element that posts)
 * and a quarter of all the audio has entered (so the device's opening and the plans' making,
 * reported apart as plan_ms, are left out), to EOS.
 * Reported per element: audio seconds / wall seconds (live: 1.00 means
 * real time held), CPU cores (getrusage of the whole process / wall), element CPU ns per sample ((CPU - identity's CPU) /
 * samples, samples counting every channel), GPU submissions per second
 * (the device scheduler's count, from the element's `stats`), messages,
 * and message latency p50/p99: from the closing buffer entering the
 * analyser (a probe on its sink pad) to the message being posted (a sync
 * bus handler, which then drops it). The @streams lines add the time from
 * set_state (PLAYING) to the first message (first_msg_ms: the start-up a
 * user waits through, plans and their compilation included).
 * --element-cpu adds, from the warm point, the CPU time of each streaming
 * thread inside the element (thread CPU time read in a probe on its sink
 * pad and one on its source pad: the element's work on the buffer, without
 * the source's and the sink's) and the element's own threads (the device
 * scheduler's, the poster's and the rest but the streaming threads), both
 * per sample: elem_threads_ns is their sum less identity's in the same
 * run, a figure without the sources' run-to-run spread, which the
 * whole-process elem_ns carries. The probes add two clock reads a
 * buffer to every element alike.
 * --source=appsrc replaces the S audiotestsrc with S appsrc fed by one
 * thread of the benchmark's: pre-filled buffers of silence, one shared by
 * every push of up to 64 streams (no memory written per buffer; a
 * GstMemory counts at most 255 maps at once), contiguous timestamps, and
 * for live runs one push round every buffer's duration on the monotonic
 * clock (a source that costs less than audiotestsrc's clock wait per
 * buffer, for the largest stream counts). Everything else is the same. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <gst/gst.h>
#include <gst/app/gstappsrc.h>

#include "bench-common.h"

#define RATE 48000

static gchar *streams_str = NULL;
static gchar *modes_str = NULL;
static gchar *elements_str = NULL;
static gdouble live_seconds = 0, fast_seconds = 0, fast_msamples = 0;
static gint loudness_ms = 100;
static gboolean small = FALSE, no_wide = FALSE, element_cpu = FALSE;
static gint hop_opt = 0;
static gchar **set_props = NULL;
static gint bands_opt = 0;
static const gchar *loudness_path = "auto";
static gchar *source_opt = NULL;
static gboolean use_appsrc = FALSE;

/* --loudness-path: the plugin's variables set while the options are
 * parsed, before GStreamer starts (and before any thread reads them) */
static gboolean
set_loudness_path (const gchar * option, const gchar * value,
    gpointer data, GError ** error)
{
  if (g_str_equal (value, "host")) {
    g_setenv ("GPUFFT_HOST_START", "on", TRUE);
    g_setenv ("GPUFFT_HOST_BUDGET", "1e15", TRUE);
    g_setenv ("GPUFFT_LOUDNESS_PATH", "host", TRUE);
    loudness_path = "host";
  } else if (g_str_equal (value, "device")) {
    g_setenv ("GPUFFT_HOST_START", "off", TRUE);
    g_setenv ("GPUFFT_LOUDNESS_PATH", "chunks", TRUE);
    loudness_path = "device";
  } else if (!g_str_equal (value, "auto")) {
    g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
        "--loudness-path: auto, host or device");
    return FALSE;
  }
  return TRUE;
}

static const GOptionEntry entries[] = {
  {"small", 0, 0, G_OPTION_ARG_NONE, &small,
      "Fewer streams, shorter runs (for a CPU Vulkan device)", NULL},
  {"streams", 0, 0, G_OPTION_ARG_STRING, &streams_str,
      "Stereo stream counts (default 1,16,64,256,1024; small 1,8)", "S,..."},
  {"modes", 0, 0, G_OPTION_ARG_STRING, &modes_str,
      "live,fast (default both)", "M,..."},
  {"elements", 0, 0, G_OPTION_ARG_STRING, &elements_str,
      "Elements to run (default identity,spectrum,gpufftspectrum)", "E,..."},
  {"live-seconds", 0, 0, G_OPTION_ARG_DOUBLE, &live_seconds,
      "Audio seconds per live run (default 5, small 4)", "S"},
  {"fast-seconds", 0, 0, G_OPTION_ARG_DOUBLE, &fast_seconds,
      "Audio seconds per stream per fast run (default 20, small 5; the "
        "64-channel case 10x)", "S"},
  {"fast-msamples", 0, 0, G_OPTION_ARG_DOUBLE, &fast_msamples,
      "At most this many M samples (all streams and channels) per fast "
        "run; the 64-channel case 4x (default 64, small 4)", "M"},
  {"no-wide", 0, 0, G_OPTION_ARG_NONE, &no_wide,
      "Skip the 1 x 64-channel case", NULL},
  {"loudness-interval", 0, 0, G_OPTION_ARG_INT, &loudness_ms,
      "gpuloudness's interval in ms (default 100: a live meter's rate; "
        "the element's own default is 1000)", "MS"},
  {"element-cpu", 0, 0, G_OPTION_ARG_NONE, &element_cpu,
      "Also measure the CPU time inside the element on the streaming "
        "threads, and its own threads (elem_threads_ns)", NULL},
  {"set", 0, 0, G_OPTION_ARG_STRING_ARRAY, &set_props,
      "More properties of one element, as ELEMENT:NAME=VALUE (repeatable; "
        "e.g. gpufftspectrum:interval=1000000000)", "E:P=V"},
  {"hop", 0, 0, G_OPTION_ARG_INT, &hop_opt,
      "gpufftspectrum's hop in the stereo cases, fft 1024 (default 512; "
        "1024: no overlap, as spectrum; 4800: one frame a 100 ms interval, "
        "the element's cost with next to no analysis); the 64-channel "
        "case, fft 4096, takes 4x it (default 1024)", "H"},
  {"loudness-path", 0, 0, G_OPTION_ARG_CALLBACK, set_loudness_path,
      "gpuloudness's path: host (live streams on the host alone, no "
        "device), device (the device's kernels) or auto (default: the "
        "element's choice); sets GPUFFT_HOST_START, GPUFFT_HOST_BUDGET and "
        "GPUFFT_LOUDNESS_PATH for the whole process", "P"},
  {"source", 0, 0, G_OPTION_ARG_STRING, &source_opt,
      "audiotestsrc (default) or appsrc (every stream fed by one thread "
        "of the benchmark's, from one buffer of silence)", "S"},
  {"bands", 0, 0, G_OPTION_ARG_INT, &bands_opt,
      "spectrum's and gpuspectrum's bands (default: fft / 2 + 1, 513 in "
        "the stereo cases; 128 is their own default, fft 254)", "B"},
  {NULL}
};

typedef struct
{
  guint streams, channels, buffer, fft, hop;
  gboolean live;
  gdouble seconds;              /* audio per stream */
} Case;

typedef struct
{
  const Case *c;
  guint n_buffers;
  gint64 *entry;                /* [streams][n_buffers] monotonic us */
  guint *last;                  /* [streams] latest buffer index entered */
  gint *count;                  /* [streams] buffers entered (a live source
                                 * that starts late does not start at 0) */
  gint *posted;                 /* [streams] spectrum messages posted */
  gint n_posting;               /* streams past their first message */
  gboolean posts;               /* the element posts messages */
  GMutex lock;
  GArray *latency_us;           /* gdouble */
  gint msgs;
  gint errors;
  gint n_started;               /* streams past their first buffer */
  gint entered;                 /* buffers entered, all streams */
  gint warm_done;               /* the warm point was taken */
  gint64 t_warm;
  gdouble cpu_warm;
  GHashTable *threads_warm;     /* thread_cpu () at the warm point */
  guint64 samples_before_warm;  /* per channel, all streams */
  gint64 t_play;                /* set_state (PLAYING) called */
  gint64 t_first_msg;           /* the first `spectrum` message (0: none) */
  gint64 *t_in;                 /* [streams] thread CPU ns when the buffer
                                 * in the element entered it (0: none) */
  gint64 *in_element;           /* [streams] thread CPU ns inside the
                                 * element from the warm point */
} Run;

/* The stream index set on an analyser or its pads (run_case) */
static guint
stream_of (gpointer object)
{
  return GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (object), "stream"));
}

/* CPU ns of the calling thread */
static gint64
thread_ns (void)
{
  struct timespec t;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &t);
  return (gint64) t.tv_sec * G_GINT64_CONSTANT (1000000000) + t.tv_nsec;
}

/* --element-cpu: a buffer enters the element (after entry_probe) */
static GstPadProbeReturn
in_probe (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  Run *r = user_data;
  guint stream = stream_of (pad);

  r->t_in[stream] = g_atomic_int_get (&r->warm_done) ? thread_ns () : 0;
  return GST_PAD_PROBE_OK;
}

/* --element-cpu: the element pushes it on (on the same thread) */
static GstPadProbeReturn
out_probe (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  Run *r = user_data;
  guint stream = stream_of (pad);

  if (r->t_in[stream] > 0)
    r->in_element[stream] += thread_ns () - r->t_in[stream];
  r->t_in[stream] = 0;
  return GST_PAD_PROBE_OK;
}

/* CPU seconds of each thread of the process, by thread id
 * (/proc/self/task/<tid>/schedstat in ns where the kernel has it, else
 * /proc/self/task/<tid>/stat in clock ticks; Linux only: empty
 * elsewhere). */
static GHashTable *
thread_cpu (void)
{
  GHashTable *t = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL,
      g_free);
  GDir *dir = g_dir_open ("/proc/self/task", 0, NULL);
  const gchar *name;
  gdouble tick = (gdouble) sysconf (_SC_CLK_TCK);

  while (dir && (name = g_dir_read_name (dir)) != NULL) {
    gchar *path = g_strdup_printf ("/proc/self/task/%s/stat", name);
    gchar *text = NULL, *close;
    gchar **f;

    /* "tid (comm) state ..." : utime and stime are fields 14 and 15 */
    if (g_file_get_contents (path, &text, NULL, NULL)
        && (close = strrchr (text, ')')) != NULL) {
      gchar *comm = g_strndup (strchr (text, '(') + 1,
          close - strchr (text, '(') - 1);

      gchar *sched_path = g_strdup_printf ("/proc/self/task/%s/schedstat",
          name);
      gchar *sched = NULL;

      f = g_strsplit (close + 2, " ", 0);
      if (g_file_get_contents (sched_path, &sched, NULL, NULL)) {
        /* "ns on the CPU, ns waiting, timeslices" */
        g_hash_table_insert (t, GINT_TO_POINTER (atoi (name)),
            g_strdup_printf ("%s|%f", comm,
                g_ascii_strtod (sched, NULL) * 1e-9));
      } else if (g_strv_length (f) > 13) {
        gchar *v = g_strdup_printf ("%s|%f", comm,
            (g_ascii_strtod (f[11], NULL) + g_ascii_strtod (f[12], NULL)) /
            tick);

        g_hash_table_insert (t, GINT_TO_POINTER (atoi (name)), v);
      }
      g_free (sched);
      g_free (sched_path);
      g_strfreev (f);
      g_free (comm);
    }
    g_free (text);
    g_free (path);
  }
  if (dir)
    g_dir_close (dir);
  return t;
}

static GstPadProbeReturn
entry_probe (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  Run *r = user_data;
  guint stream = stream_of (pad);
  GstBuffer *b = GST_PAD_PROBE_INFO_BUFFER (info);
  guint64 idx;

  if (!GST_BUFFER_PTS_IS_VALID (b))
    return GST_PAD_PROBE_OK;
  idx = gst_util_uint64_scale_round (GST_BUFFER_PTS (b), RATE,
      GST_SECOND) / r->c->buffer;
  if (idx < r->n_buffers) {
    gint entered, started;

    r->entry[(gsize) stream * r->n_buffers + idx] = g_get_monotonic_time ();
    g_atomic_int_set ((gint *) & r->last[stream], (gint) idx);
    entered = g_atomic_int_add (&r->entered, 1) + 1;
    started = g_atomic_int_add (&r->count[stream], 1) + 1 == 2 ?
        g_atomic_int_add (&r->n_started, 1) + 1 :
        g_atomic_int_get (&r->n_started);

    /* (and every stream has posted its first message: the device's
     * opening and the plans, made beside the streams, are start-up) */
    if (started == (gint) r->c->streams
        && entered >= (gint) ((guint64) r->c->streams * r->n_buffers / 4)
        && (!r->posts
            || g_atomic_int_get (&r->n_posting) == (gint) r->c->streams)
        && g_atomic_int_compare_and_exchange (&r->warm_done, 0, 1)) {
      guint s, n = 0;

      r->t_warm = g_get_monotonic_time ();
      r->cpu_warm = bench_cpu_seconds ();
      r->threads_warm = thread_cpu ();
      for (s = 0; s < r->c->streams; s++)
        n += (guint) g_atomic_int_get (&r->count[s]);
      r->samples_before_warm = (guint64) n *r->c->buffer;
    }
  }
  return GST_PAD_PROBE_OK;
}

static GstBusSyncReply
on_message (GstBus * bus, GstMessage * msg, gpointer user_data)
{
  Run *r = user_data;
  const GstStructure *s;
  guint64 end;
  guint stream;

  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    GError *err = NULL;

    gst_message_parse_error (msg, &err, NULL);
    g_printerr ("bench-streams: error: %s\n", err->message);
    g_error_free (err);
    g_atomic_int_inc (&r->errors);
    return GST_BUS_PASS;
  }
  if (GST_MESSAGE_TYPE (msg) != GST_MESSAGE_ELEMENT)
    return GST_BUS_PASS;
  s = gst_message_get_structure (msg);
  if (!gst_structure_has_name (s, "spectrum")
      && !gst_structure_has_name (s, "ebur128-level")
      && !gst_structure_has_name (s, "level")) {
    gst_message_unref (msg);
    return GST_BUS_DROP;
  }
  if (g_atomic_int_add (&r->msgs, 1) == 0)
    r->t_first_msg = g_get_monotonic_time ();
  stream = stream_of (GST_MESSAGE_SRC (msg));
  if (g_atomic_int_add (&r->posted[stream], 1) == 0)
    g_atomic_int_inc (&r->n_posting);
  /* (gpuloudness: its timestamp is its interval's end) */
  if ((gst_structure_get_uint64 (s, "endtime", &end)
          || gst_structure_get_uint64 (s, "timestamp", &end)) && end > 0) {
    guint64 idx = gst_util_uint64_scale (end - 1, RATE, GST_SECOND)
        / r->c->buffer;

    /* (spectrum's endtime can lie beyond the buffer that completes its
     * interval: that buffer is the latest entered) */
    idx = MIN (idx, (guint) g_atomic_int_get ((gint *) & r->last[stream]));

    if (idx < r->n_buffers) {
      gint64 t0 = r->entry[(gsize) stream * r->n_buffers + idx];
      gdouble us = t0 ? (gdouble) (g_get_monotonic_time () - t0) : -1;

      if (us >= 0 && g_atomic_int_get (&r->warm_done)) {
        g_mutex_lock (&r->lock);
        g_array_append_val (r->latency_us, us);
        g_mutex_unlock (&r->lock);
      }
    }
  }
  /* (a sync handler that drops a message unrefs it) */
  gst_message_unref (msg);
  return GST_BUS_DROP;
}

static gint
cmp_double (gconstpointer a, gconstpointer b)
{
  gdouble x = *(const gdouble *) a, y = *(const gdouble *) b;

  return x < y ? -1 : x > y;
}

static gdouble
percentile (GArray * a, gdouble p)
{
  guint i;

  if (a->len == 0)
    return -1;
  i = (guint) MIN (a->len - 1, p * a->len);
  return g_array_index (a, gdouble, i);
}

static gchar *
element_desc_base (const Case * c, const gchar * el, guint i)
{
  if (g_str_equal (el, "spectrum") || g_str_equal (el, "gpuspectrum"))
    return g_strdup_printf ("%s name=a%u bands=%u multi-channel=true", el,
        i, bands_opt > 0 ? (guint) bands_opt : c->fft / 2 + 1);
  if (g_str_equal (el, "gpufftspectrum"))
    return g_strdup_printf ("gpufftspectrum name=a%u fft-size=%u "
        "hop-size=%u multi-channel=true message-format=bytes "
        "message-dominant=false", i, c->fft, c->hop);
  if (g_str_equal (el, "gpuloudness"))
    return g_strdup_printf ("gpuloudness name=a%u interval=%" G_GUINT64_FORMAT,
        i, (guint64) MAX (loudness_ms, 10) * GST_MSECOND);
  return g_strdup_printf ("%s name=a%u", el, i);
}

/* The NAME=VALUE part of a --set's ELEMENT:NAME=VALUE where ELEMENT is el;
 * NULL where it names another element (or none). */
static const gchar *
set_property_of (const gchar * set, const gchar * el)
{
  gsize len = strlen (el);

  return strncmp (set, el, len) == 0 && set[len] == ':' ? set + len + 1 : NULL;
}

/* (with --set's properties where the element is the one they name) */
static gchar *
element_desc (const Case * c, const gchar * el, guint i)
{
  gchar *d = element_desc_base (c, el, i), *with;
  const gchar *prop;
  guint k;

  for (k = 0; set_props && set_props[k]; k++) {
    if ((prop = set_property_of (set_props[k], el)) != NULL) {
      with = g_strdup_printf ("%s %s", d, prop);
      g_free (d);
      d = with;
    }
  }
  return d;
}

typedef struct
{
  gdouble wall, cpu, samples, subs;
  gdouble audio;                /* audio seconds per stream measured */
  guint64 dropped;
  GstStructure *stats;          /* a0's, gpufftspectrum only */
  guint per_device[8];          /* elements per Vulkan device index */
  guint on_host;                /* gpuloudness: streams on the host alone */
  gchar *device_name;           /* gpuloudness: a0's device otherwise */
  gint msgs, errors;
  gdouble p50, p99;
  gdouble first_msg_ms;         /* PLAYING to the first message; -1: none */
  gdouble in_element;           /* --element-cpu: CPU s inside the element
                                 * on the streaming threads */
  gdouble own;                  /* CPU s of every thread but the streaming
                                 * ones (from the warm point) */
} Result;

/* Prints where the CPU went between two thread_cpu () snapshots: the
 * device scheduler's submit and completion threads, the streaming threads
 * (sources), the rest. */
static void
print_thread_cpu (const Case * c, const gchar * el, GHashTable * a,
    GHashTable * b, gdouble wall, gdouble * own)
{
  GHashTableIter it;
  gpointer k, v;
  gdouble submit = 0, complete = 0, streaming = 0, other = 0;
  GHashTable *by_name = g_hash_table_new_full (g_str_hash, g_str_equal,
      g_free, g_free);
  GString *names = g_string_new (NULL);

  g_hash_table_iter_init (&it, b);
  while (g_hash_table_iter_next (&it, &k, &v)) {
    const gchar *before = g_hash_table_lookup (a, k);
    const gchar *bar = strrchr (v, '|');
    gdouble d = g_ascii_strtod (bar + 1, NULL) -
        (before ? g_ascii_strtod (strrchr (before, '|') + 1, NULL) : 0.0);

    if (g_str_has_prefix (v, "gpufft-submit"))
      submit += d;
    else if (g_str_has_prefix (v, "gpufft-complete"))
      complete += d;
    else if (strstr (v, ":src") != NULL || g_str_has_prefix (v, "audiotest"))
      streaming += d;
    else {
      gchar *name = g_strndup (v, bar - (const gchar *) v);
      gdouble *sum = g_hash_table_lookup (by_name, name);

      other += d;
      if (sum == NULL) {
        sum = g_new0 (gdouble, 1);
        g_hash_table_insert (by_name, name, sum);
      } else {
        g_free (name);
      }
      *sum += d;
    }
  }
  /* (the other threads by name, where one takes 0.01 % of a core or
   * more: one live stereo stream's nanosecond a sample is 0.0001 core) */
  g_hash_table_iter_init (&it, by_name);
  while (g_hash_table_iter_next (&it, &k, &v))
    if (*(gdouble *) v / wall >= 0.0001)
      g_string_append_printf (names, " %s=%.4f", (const gchar *) k,
          *(gdouble *) v / wall);
  *own = submit + complete + other;
  printf ("@streams-threads streams=%u ch=%u live=%d element=%s "
      "cores: streaming=%.4f submit=%.4f complete=%.4f other=%.4f;%s\n",
      c->streams, c->channels, c->live, el, streaming / wall, submit / wall,
      complete / wall, other / wall, names->str);
  g_string_free (names, TRUE);
  g_hash_table_unref (by_name);
}

/* --source=appsrc: one thread pushes every stream's buffers */
#define STREAMS_PER_MEMORY 64

typedef struct
{
  const Case *c;
  guint n_buffers;
  GstAppSrc **src;              /* [streams] */
  GMutex lock;
  GCond cond;
  gboolean stop;                /* under lock */
  GThread *thread;
} Feeder;

static gpointer
feed (gpointer data)
{
  Feeder *f = data;
  const Case *c = f->c;
  gsize bytes = (gsize) c->buffer * c->channels * sizeof (gfloat);
  GstClockTime dur = gst_util_uint64_scale_int (c->buffer, GST_SECOND, RATE);
  /* (one buffer's memory for every STREAMS_PER_MEMORY streams: a
   * GstMemory's lock counts at most 255 maps at once) */
  guint n_tmpl = (c->streams + STREAMS_PER_MEMORY - 1) / STREAMS_PER_MEMORY;
  GstBuffer **tmpl = g_new (GstBuffer *, n_tmpl);
  gint64 t0 = g_get_monotonic_time ();
  gboolean stop = FALSE;
  guint b, i;

  for (i = 0; i < n_tmpl; i++) {
    tmpl[i] = gst_buffer_new_allocate (NULL, bytes, NULL);
    gst_buffer_memset (tmpl[i], 0, 0, bytes);
  }
  for (b = 0; b < f->n_buffers && !stop; b++) {
    if (c->live) {
      /* (this round's time: the round pushes buffer b, which starts at
       * b durations) */
      gint64 due = t0 + (gint64) (b * (dur / 1000));

      g_mutex_lock (&f->lock);
      while (!f->stop && g_cond_wait_until (&f->cond, &f->lock, due));
      stop = f->stop;
      g_mutex_unlock (&f->lock);
    }
    for (i = 0; i < c->streams && !stop; i++) {
      /* (a new buffer on the same memory: only its metadata is written) */
      GstBuffer *buf = gst_buffer_copy (tmpl[i / STREAMS_PER_MEMORY]);

      GST_BUFFER_PTS (buf) = b * dur;
      GST_BUFFER_DURATION (buf) = dur;
      GST_BUFFER_OFFSET (buf) = (guint64) b * c->buffer;
      GST_BUFFER_OFFSET_END (buf) = (guint64) (b + 1) * c->buffer;
      if (b == 0)
        GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_DISCONT);
      if (gst_app_src_push_buffer (f->src[i], buf) != GST_FLOW_OK) {
        g_mutex_lock (&f->lock);
        stop = f->stop = TRUE;
        g_mutex_unlock (&f->lock);
      }
    }
  }
  for (i = 0; i < c->streams; i++)
    gst_app_src_end_of_stream (f->src[i]);
  for (i = 0; i < n_tmpl; i++)
    gst_buffer_unref (tmpl[i]);
  g_free (tmpl);
  return NULL;
}

static Feeder *
feeder_new (const Case * c, guint n_buffers, GstElement * pipe)
{
  Feeder *f = g_new0 (Feeder, 1);
  guint i;

  f->c = c;
  f->n_buffers = n_buffers;
  f->src = g_new0 (GstAppSrc *, c->streams);
  g_mutex_init (&f->lock);
  g_cond_init (&f->cond);
  for (i = 0; i < c->streams; i++) {
    gchar name[32];

    g_snprintf (name, sizeof (name), "s%u", i);
    f->src[i] = GST_APP_SRC (gst_bin_get_by_name (GST_BIN (pipe), name));
  }
  return f;
}

static void
feeder_start (Feeder * f)
{
  f->thread = g_thread_new ("bench-feed", feed, f);
}

/* Stops the pushes (the run is over: EOS or an error) and frees f */
static void
feeder_free (Feeder * f)
{
  guint i;

  g_mutex_lock (&f->lock);
  f->stop = TRUE;
  g_cond_signal (&f->cond);
  g_mutex_unlock (&f->lock);
  if (f->thread)
    g_thread_join (f->thread);
  for (i = 0; i < f->c->streams; i++)
    gst_object_unref (f->src[i]);
  g_free (f->src);
  g_mutex_clear (&f->lock);
  g_cond_clear (&f->cond);
  g_free (f);
}

static gboolean
run_case (const Case * c, const gchar * el, Result * res)
{
  GHashTable *cpu_b;
  GString *desc = g_string_new (NULL);
  GstElement *pipe;
  GstBus *bus;
  GstMessage *msg;
  GError *err = NULL;
  Run r = { 0 };
  Feeder *feeder;
  gint64 t0, t1;
  gdouble cpu0, cpu1;
  guint i;

  r.c = c;
  r.n_buffers = (guint) (c->seconds * RATE / c->buffer);
  r.entry = g_new0 (gint64, (gsize) c->streams * r.n_buffers);
  r.last = g_new0 (guint, c->streams);
  r.count = g_new0 (gint, c->streams);
  r.posted = g_new0 (gint, c->streams);
  r.posts = !g_str_equal (el, "identity");
  r.latency_us = g_array_new (FALSE, FALSE, sizeof (gdouble));
  r.t_in = g_new0 (gint64, c->streams);
  r.in_element = g_new0 (gint64, c->streams);
  g_mutex_init (&r.lock);
  for (i = 0; i < c->streams; i++) {
    gchar *e = element_desc (c, el, i);

    if (use_appsrc)
      /* (block: the fast runs' feeder waits for a full queue; 4 buffers
       * queued at most a stream) */
      g_string_append_printf (desc, "appsrc name=s%u is-live=%s format=time "
          "block=true max-bytes=%" G_GSIZE_FORMAT " caps=audio/x-raw,"
          "format=F32LE,rate=%d,channels=%u,layout=interleaved ! %s ! "
          "fakesink sync=false ", i, c->live ? "true" : "false",
          (gsize) 4 * c->buffer * c->channels * sizeof (gfloat), RATE,
          c->channels, e);
    else
      g_string_append_printf (desc, "audiotestsrc wave=silence is-live=%s "
          "samplesperbuffer=%u num-buffers=%u ! audio/x-raw,format=F32LE,"
          "rate=%d,channels=%u ! %s ! fakesink sync=false ",
          c->live ? "true" : "false", c->buffer, r.n_buffers, RATE,
          c->channels, e);
    g_free (e);
  }
  /* (fatal errors: a property --set misspells fails the run) */
  pipe = gst_parse_launch_full (desc->str, NULL, GST_PARSE_FLAG_FATAL_ERRORS,
      &err);
  g_string_free (desc, TRUE);
  if (!pipe) {
    g_printerr ("bench-streams: %s\n", err ? err->message : "no pipeline");
    g_clear_error (&err);
    return FALSE;
  }
  for (i = 0; i < c->streams; i++) {
    gchar name[32];
    GstElement *a;
    GstPad *pad;

    g_snprintf (name, sizeof (name), "a%u", i);
    a = gst_bin_get_by_name (GST_BIN (pipe), name);
    g_object_set_data (G_OBJECT (a), "stream", GUINT_TO_POINTER (i));
    pad = gst_element_get_static_pad (a, "sink");
    g_object_set_data (G_OBJECT (pad), "stream", GUINT_TO_POINTER (i));
    gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, entry_probe, &r, NULL);
    if (element_cpu)
      gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, in_probe, &r, NULL);
    gst_object_unref (pad);
    if (element_cpu) {
      pad = gst_element_get_static_pad (a, "src");
      g_object_set_data (G_OBJECT (pad), "stream", GUINT_TO_POINTER (i));
      gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, out_probe, &r, NULL);
      gst_object_unref (pad);
    }
    gst_object_unref (a);
  }
  bus = gst_element_get_bus (pipe);
  gst_bus_set_sync_handler (bus, on_message, &r, NULL);

  feeder = use_appsrc ? feeder_new (c, r.n_buffers, pipe) : NULL;
  t0 = r.t_play = g_get_monotonic_time ();
  cpu0 = bench_cpu_seconds ();
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  if (feeder)
    feeder_start (feeder);
  msg = gst_bus_timed_pop_filtered (bus, 600 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  t1 = g_get_monotonic_time ();
  cpu1 = bench_cpu_seconds ();
  /* (from the warm point, as the CPU figures) */
  cpu_b = thread_cpu ();
  if (r.threads_warm) {
    print_thread_cpu (c, el, r.threads_warm, cpu_b, (t1 - r.t_warm) / 1e6,
        &res->own);
    g_hash_table_unref (r.threads_warm);
  }
  g_hash_table_unref (cpu_b);
  res->subs = 0;
  if (g_str_equal (el, "gpufftspectrum")) {
    res->dropped = 0;
    for (i = 0; i < c->streams; i++) {
      gchar name[32];
      GstElement *a;
      GstStructure *st = NULL;
      guint64 v = 0;
      gint dev = -1;

      g_snprintf (name, sizeof (name), "a%u", i);
      a = gst_bin_get_by_name (GST_BIN (pipe), name);
      if (g_object_class_find_property (G_OBJECT_GET_CLASS (a), "stats"))
        g_object_get (a, "stats", &st, NULL);
      if (st && i == 0 && gst_structure_get_uint64 (st,
              "device-submissions", &v)) {
        res->subs = v;
        res->stats = gst_structure_copy (st);
      }
      if (st && gst_structure_get_uint64 (st, "dropped-intervals", &v))
        res->dropped += v;
      if (st && gst_structure_get_int (st, "device", &dev) && dev >= 0
          && dev < 8)
        res->per_device[dev]++;
      if (st)
        gst_structure_free (st);
      gst_object_unref (a);
    }
  }
  if (g_str_equal (el, "gpuloudness")) {
    for (i = 0; i < c->streams; i++) {
      gchar name[32];
      GstElement *a;
      gchar *dev = NULL;

      g_snprintf (name, sizeof (name), "a%u", i);
      a = gst_bin_get_by_name (GST_BIN (pipe), name);
      g_object_get (a, "device-name", &dev, NULL);
      if (g_strcmp0 (dev, "CPU (host analysis)") == 0)
        res->on_host++;
      else if (dev && !res->device_name)
        res->device_name = g_strdup (dev);
      g_free (dev);
      gst_object_unref (a);
    }
  }
  if (msg)
    gst_message_unref (msg);
  /* (NULL first: a push blocked on a full queue returns FLUSHING; then
   * the feeder is joined) */
  gst_element_set_state (pipe, GST_STATE_NULL);
  if (feeder)
    feeder_free (feeder);
  gst_bus_set_sync_handler (bus, NULL, NULL, NULL);
  gst_object_unref (bus);
  gst_object_unref (pipe);

  g_array_sort (r.latency_us, cmp_double);
  if (!r.warm_done) {           /* (too short to warm up) */
    r.t_warm = t0;
    r.cpu_warm = cpu0;
    r.samples_before_warm = 0;
  }
  res->wall = (t1 - r.t_warm) / 1e6;
  res->cpu = cpu1 - r.cpu_warm;
  res->samples = ((gdouble) c->streams * r.n_buffers * c->buffer
      - r.samples_before_warm) * c->channels;
  res->audio = res->samples / c->channels / c->streams / RATE;
  res->msgs = r.msgs;
  res->first_msg_ms = r.t_first_msg ? (r.t_first_msg - r.t_play) / 1e3 : -1;
  res->errors = r.errors + (msg == NULL);
  res->p50 = percentile (r.latency_us, 0.5) / 1e3;
  res->p99 = percentile (r.latency_us, 0.99) / 1e3;
  res->in_element = 0;
  for (i = 0; i < c->streams; i++)
    res->in_element += r.in_element[i] / 1e9;
  g_free (r.t_in);
  g_free (r.in_element);
  g_array_unref (r.latency_us);
  g_mutex_clear (&r.lock);
  g_free (r.entry);
  g_free (r.last);
  g_free (r.count);
  g_free (r.posted);
  return TRUE;
}

static void
run_all (const Case * c, gchar ** elements)
{
  Result base = { 0 };
  gboolean have_base = FALSE;
  guint i;

  for (i = 0; elements[i]; i++) {
    Result r = { 0 };
    gchar ns[32] = "-", subs[32] = "-", lat[48] = "-", drop[32] = "-";

    if (!run_case (c, elements[i], &r))
      continue;
    if (g_str_equal (elements[i], "identity")) {
      base = r;
      have_base = TRUE;
    } else if (have_base) {
      g_snprintf (ns, sizeof (ns), "%.1f", (r.cpu - base.cpu) / r.samples
          * 1e9);
    }
    if (g_str_equal (elements[i], "gpufftspectrum")) {
      g_snprintf (subs, sizeof (subs), "%.0f", r.subs / r.wall);
      g_snprintf (drop, sizeof (drop), "%" G_GUINT64_FORMAT, r.dropped);
    }
    if (r.p50 >= 0)
      g_snprintf (lat, sizeof (lat), "%.2f / %.2f", r.p50, r.p99);
    printf ("| %4u x %-2u | %-4s | %-14s | %6.2f | %6.2f | %5.2f | %8s | "
        "%7.1f | %7s | %6d | %5s | %13s |%s\n", c->streams, c->channels,
        c->live ? "live" : "fast", elements[i], r.audio / r.wall, r.wall,
        r.cpu / r.wall, ns, r.samples / r.wall / 1e6, subs, r.msgs, drop,
        lat, r.errors ? " ERRORS" : "");
    printf ("@streams streams=%u ch=%u live=%d element=%s speed=%.4f "
        "cores=%.4f elem_ns=%s msamples_s=%.3f msgs=%d dropped=%s "
        "lat_p50_ms=%.3f lat_p99_ms=%.3f first_msg_ms=%.1f errors=%d\n",
        c->streams, c->channels, c->live, elements[i], r.audio / r.wall,
        r.cpu / r.wall, ns, r.samples / r.wall / 1e6, r.msgs, drop,
        r.p50, r.p99, r.first_msg_ms, r.errors);
    if (r.stats) {
      guint64 b = 0, mb = 0, rec = 0, sub = 0, w = 0, g = 0, d = 0, np = 0,
          pns = 0, reused = 0;
      guint k;
      GString *devs = g_string_new (NULL);

      gst_structure_get (r.stats, "device-batches", G_TYPE_UINT64, &b,
          "device-max-batches", G_TYPE_UINT64, &mb, "device-record-ns",
          G_TYPE_UINT64, &rec, "device-submit-ns", G_TYPE_UINT64, &sub,
          "device-wait-ns", G_TYPE_UINT64, &w,
          "device-gpu-ns", G_TYPE_UINT64, &g, "device-deliver-ns",
          G_TYPE_UINT64, &d, "device-plans", G_TYPE_UINT64, &np,
          "device-plan-ns", G_TYPE_UINT64, &pns, NULL);
      gst_structure_get_uint64 (r.stats, "device-reused-submissions", &reused);

      for (k = 0; k < 8; k++)
        if (r.per_device[k])
          g_string_append_printf (devs, "%s%u:%u", devs->len ? "," : "", k,
              r.per_device[k]);
      /* per submission, in us (a0's device); elements per device; @ line
       * for the machine-readable results */
      printf ("@streams-sched streams=%u ch=%u live=%d subs=%.0f reused=%"
          G_GUINT64_FORMAT " batches=%" G_GUINT64_FORMAT " max_batches=%"
          G_GUINT64_FORMAT
          " record_us=%.1f submit_us=%.1f wait_us=%.1f gpu_us=%.1f"
          " deliver_us=%.1f plans=%" G_GUINT64_FORMAT " plan_ms=%.2f"
          " devices=%s\n",
          c->streams, c->channels, c->live, r.subs, reused, b, mb,
          rec / 1e3 / MAX (r.subs, 1), sub / 1e3 / MAX (r.subs, 1),
          w / 1e3 / MAX (r.subs, 1),
          g / 1e3 / MAX (r.subs, 1), d / 1e3 / MAX (r.subs, 1), np,
          pns / 1e6 / MAX (np, 1), devs->str);
      g_string_free (devs, TRUE);
      gst_structure_free (r.stats);
    }
    if (g_str_equal (elements[i], "gpuloudness")) {
      /* (the device's name without spaces, for the key=value line) */
      gchar *dev = g_strdelimit (g_strdup (r.device_name ? r.device_name :
              "-"), " =", '_');

      printf ("@streams-loudness streams=%u ch=%u live=%d path=%s "
          "host_alone=%u on_device=%u device=%s\n", c->streams, c->channels,
          c->live, loudness_path, r.on_host, c->streams - r.on_host, dev);
      g_free (dev);
      g_free (r.device_name);
    }
    if (element_cpu) {
      gdouble in_ns = r.in_element / r.samples * 1e9;
      gdouble own_ns = r.own / r.samples * 1e9;
      gchar net[32] = "-";

      if (have_base && !g_str_equal (elements[i], "identity"))
        g_snprintf (net, sizeof (net), "%.2f", in_ns + own_ns -
            (base.in_element + base.own) / base.samples * 1e9);
      printf ("@streams-element streams=%u ch=%u live=%d element=%s "
          "in_element_ns=%.2f own_threads_ns=%.2f elem_threads_ns=%s\n",
          c->streams, c->channels, c->live, elements[i], in_ns, own_ns, net);
    }
    fflush (stdout);
  }
}

int
main (int argc, char **argv)
{
  GOptionContext *ctx = g_option_context_new (NULL);
  GError *err = NULL;
  gchar **streams, **modes, **elements;
  guint m, i, hop, wide_hop;

  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  g_option_context_set_summary (ctx, "Many streams with 10 ms buffers: "
      "identity, spectrum and gpufftspectrum in the same run.");
  if (!g_option_context_parse (ctx, &argc, &argv, &err)) {
    g_printerr ("%s\n", err->message);
    return 2;
  }
  g_option_context_free (ctx);
  gst_init (&argc, &argv);

  streams = g_strsplit (streams_str ? streams_str : small ? "1,8" :
      "1,16,64,256,1024", ",", -1);
  modes = g_strsplit (modes_str ? modes_str : "live,fast", ",", -1);
  elements = g_strsplit (elements_str ? elements_str :
      "identity,spectrum,gpufftspectrum", ",", -1);
  if (live_seconds <= 0)
    live_seconds = small ? 4 : 5;
  if (fast_seconds <= 0)
    fast_seconds = small ? 5 : 20;
  if (fast_msamples <= 0)
    fast_msamples = small ? 4 : 64;
  if (hop_opt < 0 || hop_opt > 48000) {
    g_printerr ("--hop: 1 to 48000 (a second; the stereo cases' fft size "
        "is 1024: a hop above it leaves samples out)\n");
    return 2;
  }
  if (bands_opt < 0 || bands_opt == 1) {
    g_printerr ("--bands: 2 or more (spectrum's range)\n");
    return 2;
  }
  if (source_opt && !g_str_equal (source_opt, "audiotestsrc")
      && !g_str_equal (source_opt, "appsrc")) {
    g_printerr ("--source: audiotestsrc or appsrc\n");
    return 2;
  }
  use_appsrc = source_opt && g_str_equal (source_opt, "appsrc");
  hop = hop_opt ? (guint) hop_opt : 512;
  wide_hop = hop_opt ? 4 * (guint) hop_opt : 1024;
  for (i = 0; elements[i]; i++) {
    GstElementFactory *f = gst_element_factory_find (elements[i]);

    if (f == NULL) {
      g_printerr ("--elements: no element '%s' (for this plugin's "
          "elements, GST_PLUGIN_PATH names its build's plugin folder)\n",
          elements[i]);
      return 2;
    }
    gst_object_unref (f);
  }
  for (i = 0; set_props && set_props[i]; i++) {
    const gchar *prop = NULL;
    guint k;

    for (k = 0; !prop && elements[k]; k++)
      prop = set_property_of (set_props[i], elements[k]);
    if (!prop || !strchr (prop, '=')) {
      g_printerr ("--set: '%s' is not ELEMENT:NAME=VALUE with ELEMENT one "
          "of --elements\n", set_props[i]);
      return 2;
    }
    if (g_str_has_prefix (prop, "name=")) {
      g_printerr ("--set: the elements' names are the benchmark's\n");
      return 2;
    }
  }
  /* (the host start and its budget are the spectrum analysers' too) */
  for (i = 0; !g_str_equal (loudness_path, "auto") && elements[i]; i++) {
    if (g_str_equal (elements[i], "gpufftspectrum")
        || g_str_equal (elements[i], "gpuspectrum")) {
      g_printerr ("--loudness-path sets variables that %s reads too: run "
          "gpuloudness without it (identity,gpuloudness)\n", elements[i]);
      return 2;
    }
  }

  printf ("# bench-streams (%s, %d cores; gpufftspectrum stereo fft 1024 "
      "hop %u, 64 channels fft 4096 hop %u; source %s)\n",
      g_get_host_name (), g_get_num_processors (), hop, wide_hop,
      use_appsrc ? "appsrc, one feeding thread" : "audiotestsrc");
  printf ("| streams x ch | mode | element | audio/wall | wall s | cores | "
      "elem ns/sample | M samples/s | subs/s | msgs | dropped | "
      "latency p50/p99 ms |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (m = 0; modes[m]; m++) {
    gboolean live = g_str_equal (modes[m], "live");

    for (i = 0; streams[i]; i++) {
      Case c = { (guint) atoi (streams[i]), 2, 480, 1024, hop, live,
        live_seconds
      };
      if (!live)
        c.seconds = MAX (0.1, MIN (fast_seconds, fast_msamples * 1e6 /
                (RATE * 2.0 * MAX (c.streams, 1))));
      if (c.streams > 0)
        run_all (&c, elements);
    }
    if (!no_wide) {
      Case c = { 1, 64, 4800, 4096, wide_hop, live, live_seconds };

      if (!live)
        c.seconds = MIN (10 * fast_seconds, 4 * fast_msamples * 1e6 /
            (RATE * 64.0));
      run_all (&c, elements);
    }
  }
  g_strfreev (streams);
  g_strfreev (modes);
  g_strfreev (elements);
  return 0;
}
