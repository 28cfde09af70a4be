/* The plugin's threads stay bounded however fast pipelines come and go:
 * 4 driver threads each own 2 pipelines (gpufftspectrogram, gpufftspectrum
 * and gpuloudness behind audiotestsrc, live and not live, tiny buffers and
 * small FFT sizes) and, for STRESS_SECONDS, start them, stop them and
 * renegotiate them (a new rate and fft-size: a new plan each time) in an
 * order drawn from a seeded generator, while every device opening takes
 * SLOW_OPEN_MS (GPUFFT_DEBUG_SLOW_OPEN_MS, as a GPU driver's may): plan
 * jobs given up while their device opens pile up where each holds a
 * thread. A sampler thread reads the process's thread count
 * (/proc/self/task) every 2 ms.
 *
 * Checks: the count never exceeds the bound
 *   baseline + WORKERS (the plugin's bounded worker pool,
 *   gstgpufftworkers.h) + the test's own threads (drivers, sampler)
 *   + PER_PIPELINE for each pipeline (its source's streaming thread, its
 *   element's poster and host plan) + MARGIN
 * where the baseline is counted with an anchor pipeline holding the
 * device open (the engine's and the driver's threads for the device);
 * no pipeline posts an ERROR; once every pipeline is in NULL the count
 * comes back within MARGIN_IDLE of the baseline within GRACE_SECONDS (no
 * thread leaked). The seed is GPUFFT_STRESS_SEED, or the hour since the
 * epoch; the log names it. */
#include "gpufft-test-common.h"

#include <stdlib.h>

#define N_DRIVERS 4
#define PER_DRIVER 2
#define N_PIPES (N_DRIVERS * PER_DRIVER)
#define STRESS_SECONDS 4
#define SLOW_OPEN_MS 500
#define WORKERS 4
#define PER_PIPELINE 3
#define MARGIN 6
#define MARGIN_IDLE 2
#define GRACE_SECONDS 15

typedef enum
{
  KIND_SPECTROGRAM,
  KIND_SPECTRUM,
  KIND_LOUDNESS
} Kind;

static const gchar *const kind_name[] =
    { "gpufftspectrogram", "gpufftspectrum", "gpuloudness" };

typedef struct
{
  GstElement *pipe;
  GstElement *caps;             /* the audio capsfilter */
  GstElement *element;
  GstBus *bus;
  Kind kind;
  gboolean live;
  gboolean playing;
  guint id;
  guint round;
} Pipe;

typedef struct
{
  GRand *rand;
  Pipe *pipes;
  gint64 deadline;
  guint starts, stops, renegotiations;
} Driver;

static GMutex errors_lock;
static GString *errors;

static gint sampler_stop;
static gint max_threads;

static guint
count_threads (void)
{
  GDir *dir = g_dir_open ("/proc/self/task", 0, NULL);
  guint n = 0;

  if (dir == NULL)
    return 0;
  while (g_dir_read_name (dir))
    n++;
  g_dir_close (dir);
  return n;
}

/* The threads' names, counted: "name x count, ..." */
static gchar *
thread_names (void)
{
  GDir *dir = g_dir_open ("/proc/self/task", 0, NULL);
  GHashTable *names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
      NULL);
  GHashTableIter iter;
  gpointer key, value;
  GString *out = g_string_new (NULL);
  const gchar *tid;

  while (dir && (tid = g_dir_read_name (dir))) {
    gchar *path = g_strdup_printf ("/proc/self/task/%s/comm", tid);
    gchar *comm = NULL;

    if (g_file_get_contents (path, &comm, NULL, NULL)) {
      g_strchomp (comm);
      value = g_hash_table_lookup (names, comm);
      g_hash_table_replace (names, comm,
          GUINT_TO_POINTER (GPOINTER_TO_UINT (value) + 1));
    }
    g_free (path);
  }
  if (dir)
    g_dir_close (dir);
  g_hash_table_iter_init (&iter, names);
  while (g_hash_table_iter_next (&iter, &key, &value))
    g_string_append_printf (out, "%s%s x %u", out->len ? ", " : "",
        (const gchar *) key, GPOINTER_TO_UINT (value));
  g_hash_table_unref (names);
  return g_string_free (out, FALSE);
}

/* the threads at the highest count */
static gchar *max_names;

static gpointer
sampler (gpointer data)
{
  while (!g_atomic_int_get (&sampler_stop)) {
    gint n = (gint) count_threads ();

    if (n > g_atomic_int_get (&max_threads)) {
      g_atomic_int_set (&max_threads, n);
      g_free (max_names);
      max_names = thread_names ();
    }
    g_usleep (2000);
  }
  return NULL;
}

static const guint rates[] = { 8000, 11025, 16000 };
static const guint ffts[] = { 64, 128, 256 };

static void
set_caps (Pipe * p)
{
  GstCaps *caps = gst_caps_new_simple ("audio/x-raw",
      "rate", G_TYPE_INT, (gint) rates[p->round % G_N_ELEMENTS (rates)],
      "channels", G_TYPE_INT, 1, NULL);

  g_object_set (p->caps, "caps", caps, NULL);
  gst_caps_unref (caps);
  if (p->kind != KIND_LOUDNESS)
    g_object_set (p->element, "fft-size",
        ffts[p->round % G_N_ELEMENTS (ffts)], NULL);
}

static void
pipe_make (Pipe * p)
{
  const gchar *tail;
  gchar *desc;

  switch (p->kind) {
    case KIND_SPECTROGRAM:
      tail = "gpufftspectrogram name=e ! video/x-raw,width=160,height=100,"
          "framerate=20/1";
      break;
    case KIND_SPECTRUM:
      tail = "gpufftspectrum name=e interval=20000000";
      break;
    default:
      tail = "gpuloudness name=e interval=20000000";
      break;
  }
  desc = g_strdup_printf ("audiotestsrc is-live=%s samplesperbuffer=64 ! "
      "capsfilter name=c caps=audio/x-raw,rate=8000,channels=1 ! %s ! "
      "fakesink sync=true", p->live ? "true" : "false", tail);
  p->pipe = gst_parse_launch (desc, NULL);
  g_free (desc);
  fail_unless (p->pipe != NULL);
  p->caps = gst_bin_get_by_name (GST_BIN (p->pipe), "c");
  p->element = gst_bin_get_by_name (GST_BIN (p->pipe), "e");
  p->bus = gst_element_get_bus (p->pipe);
  set_caps (p);
}

static void
pipe_free (Pipe * p)
{
  gst_element_set_state (p->pipe, GST_STATE_NULL);
  gst_object_unref (p->caps);
  gst_object_unref (p->element);
  gst_object_unref (p->bus);
  gst_object_unref (p->pipe);
}

/* (any thread) */
static void
drain (Pipe * p)
{
  GstMessage *m;

  while ((m = gst_bus_pop_filtered (p->bus, GST_MESSAGE_ERROR)) != NULL) {
    GError *e = NULL;
    gchar *dbg = NULL;

    gst_message_parse_error (m, &e, &dbg);
    g_mutex_lock (&errors_lock);
    g_string_append_printf (errors, "pipeline %u (%s, %s): ERROR from %s: "
        "%s (%s)\n", p->id, kind_name[p->kind], p->live ? "live" : "not live",
        GST_OBJECT_NAME (GST_MESSAGE_SRC (m)), e->message, dbg ? dbg : "");
    g_mutex_unlock (&errors_lock);
    g_error_free (e);
    g_free (dbg);
    gst_message_unref (m);
  }
  gst_bus_set_flushing (p->bus, TRUE);
  gst_bus_set_flushing (p->bus, FALSE);
}

static gpointer
drive (gpointer data)
{
  Driver *d = data;

  while (g_get_monotonic_time () < d->deadline) {
    Pipe *p = &d->pipes[g_rand_int_range (d->rand, 0, PER_DRIVER)];
    guint op = g_rand_int_range (d->rand, 0, 6);

    if (!p->playing) {
      p->round++;
      set_caps (p);
      if (gst_element_set_state (p->pipe, GST_STATE_PLAYING) ==
          GST_STATE_CHANGE_FAILURE) {
        g_mutex_lock (&errors_lock);
        g_string_append_printf (errors, "pipeline %u: no start\n", p->id);
        g_mutex_unlock (&errors_lock);
      }
      p->playing = TRUE;
      d->starts++;
    } else if (op == 0) {
      gst_element_set_state (p->pipe, GST_STATE_NULL);
      p->playing = FALSE;
      d->stops++;
      drain (p);
    } else {
      /* a new rate and fft-size: a new plan (the old one given up) */
      p->round++;
      set_caps (p);
      d->renegotiations++;
    }
    g_usleep (g_rand_int_range (d->rand, 1000, 10000));
  }
  return NULL;
}

GST_START_TEST (test_threads_bounded)
{
  const gchar *seed_env = g_getenv ("GPUFFT_STRESS_SEED");
  guint32 seed = seed_env ? (guint32) g_ascii_strtoull (seed_env, NULL, 10) :
      (guint32) (g_get_real_time () / G_USEC_PER_SEC / 3600);
  GstElement *anchor, *el;
  gchar *name = NULL;
  Driver drivers[N_DRIVERS];
  Pipe pipes[N_PIPES];
  GThread *threads[N_DRIVERS], *sampler_thread;
  guint baseline, bound, after = 0, i, starts = 0, stops = 0, reneg = 0;
  gint64 end;

  g_print ("# threads: seed %u (GPUFFT_STRESS_SEED)\n", seed);
  errors = g_string_new (NULL);
  g_setenv ("GPUFFT_DEBUG_SLOW_OPEN_MS", G_STRINGIFY (SLOW_OPEN_MS), TRUE);
  /* (GLib's idle shared pool threads, the posters', go within 100 ms) */
  g_thread_pool_set_max_idle_time (100);

  /* the device held open throughout: its threads are in the baseline */
  anchor = gst_parse_launch ("audiotestsrc is-live=true samplesperbuffer=480 "
      "! gpufftspectrum device-index=0 interval=1000000000 ! fakesink", NULL);
  fail_unless (anchor != NULL);
  fail_if (gst_element_set_state (anchor, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE);
  el = gst_bin_get_by_name (GST_BIN (anchor), "gpufftspectrum0");
  g_object_get (el, "device-name", &name, NULL);
  gst_object_unref (el);
  fail_unless (name != NULL, "no device");
  g_free (name);
  g_usleep (G_USEC_PER_SEC);
  baseline = count_threads ();
  fail_unless (baseline > 0, "/proc/self/task unreadable");
  bound = baseline + WORKERS + N_DRIVERS + 1 + N_PIPES * PER_PIPELINE + MARGIN;

  for (i = 0; i < N_PIPES; i++) {
    memset (&pipes[i], 0, sizeof (Pipe));
    pipes[i].id = i;
    pipes[i].kind = i < N_PIPES / 2 ? KIND_SPECTROGRAM :
        (i % 2 ? KIND_SPECTRUM : KIND_LOUDNESS);
    pipes[i].live = (i / 2) % 2 == 0;
    pipe_make (&pipes[i]);
  }

  g_atomic_int_set (&sampler_stop, 0);
  g_atomic_int_set (&max_threads, 0);
  sampler_thread = g_thread_new ("sampler", sampler, NULL);
  end = g_get_monotonic_time () + STRESS_SECONDS * G_USEC_PER_SEC;
  for (i = 0; i < N_DRIVERS; i++) {
    drivers[i].rand = g_rand_new_with_seed (seed + i);
    drivers[i].pipes = &pipes[i * PER_DRIVER];
    drivers[i].deadline = end;
    drivers[i].starts = drivers[i].stops = drivers[i].renegotiations = 0;
    threads[i] = g_thread_new ("driver", drive, &drivers[i]);
  }
  for (i = 0; i < N_DRIVERS; i++) {
    g_thread_join (threads[i]);
    starts += drivers[i].starts;
    stops += drivers[i].stops;
    reneg += drivers[i].renegotiations;
    g_rand_free (drivers[i].rand);
  }
  for (i = 0; i < N_PIPES; i++) {
    gst_element_set_state (pipes[i].pipe, GST_STATE_NULL);
    drain (&pipes[i]);
  }
  g_atomic_int_set (&sampler_stop, 1);
  g_thread_join (sampler_thread);

  /* the threads go back to the baseline once the pipelines are stopped */
  end = g_get_monotonic_time () + GRACE_SECONDS * G_USEC_PER_SEC;
  while (g_get_monotonic_time () < end) {
    after = count_threads ();
    if (after <= baseline + MARGIN_IDLE)
      break;
    g_usleep (50000);
  }
  g_print ("# threads: %u starts, %u stops, %u renegotiations; baseline %u, "
      "at most %d during (bound %u), %u after\n# threads at most: %s\n",
      starts, stops, reneg, baseline, g_atomic_int_get (&max_threads), bound,
      after, max_names);

  for (i = 0; i < N_PIPES; i++)
    pipe_free (&pipes[i]);
  gst_element_set_state (anchor, GST_STATE_NULL);
  gst_object_unref (anchor);

  fail_unless (errors->len == 0, "seed %u:\n%s", seed, errors->str);
  fail_unless ((guint) g_atomic_int_get (&max_threads) <= bound,
      "seed %u: %d threads at once, more than the bound %u (baseline %u)",
      seed, g_atomic_int_get (&max_threads), bound, baseline);
  fail_unless (after <= baseline + MARGIN_IDLE, "seed %u: %u threads %d s "
      "after every pipeline stopped, baseline %u", seed, after, GRACE_SECONDS,
      baseline);
  g_clear_pointer (&max_names, g_free);
  fail_unless (starts > 20 && reneg > 20, "too few starts (%u) or "
      "renegotiations (%u) to tell", starts, reneg);
  g_string_free (errors, TRUE);
  errors = NULL;
}

GST_END_TEST;

static Suite *
threads_suite (void)
{
  Suite *s = suite_create ("threads");
  TCase *tc = tcase_create ("threads");

  tcase_set_timeout (tc, 300);
  tcase_add_test (tc, test_threads_bounded);
  suite_add_tcase (s, tc);
  return s;
}

GST_CHECK_MAIN (threads);
