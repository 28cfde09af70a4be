/* Concurrency stress for ThreadSanitizer (and any build): real pipelines
 * of all four elements, each on its own streaming threads, driven from
 * several application threads at once.
 *
 * 4 worker threads (GPUFFT_CONCURRENCY_THREADS, up to 16) for a bounded
 * time (GPUFFT_CONCURRENCY_SECONDS, default 8; the pipelines under way
 * finish) each make pipelines one after the other, the element in turn:
 *   audiotestsrc is-live=true samplesperbuffer=480 ! capsfilter
 *     ! gpufftspectrum | gpuspectrum | gpuloudness ! fakesink
 *   audiotestsrc ... ! capsfilter ! gpufftspectrogram
 *     ! video/x-raw,width=160,height=96,framerate=25/1 ! fakesink
 * start them (PLAYING), and apply a random sequence (seeded:
 * GPUFFT_CONCURRENCY_SEED, default 1; logged) of: property changes,
 * renegotiations (the capsfilter's rate and channels), flushing seeks,
 * PAUSED and back, NULL and back, property reads, with short sleeps, then
 * stop them (NULL). Meanwhile one more thread changes the properties of
 * whichever pipelines are running, and reads them.
 *
 * Checks: no ERROR message and no CRITICAL (G_DEBUG=fatal-criticals); every
 * state change to NULL returns SUCCESS; every kind of element posted (or,
 * for the spectrogram, drew) something; nothing deadlocks (the timeout).
 * Under ThreadSanitizer, a data race in our code fails the test (TSan's
 * exit status; tests/tsan.supp suppresses only GLib, GStreamer and Mesa
 * internals). */
#include <gst/check/gstcheck.h>
#include <string.h>

#include "gpufft-test-common.h"

#define MAX_THREADS 16

typedef enum
{
  K_FFT,
  K_SPECTRUM,
  K_SPECTROGRAM,
  K_LOUDNESS,
  N_KINDS
} Kind;

static const gchar *const kind_name[N_KINDS] = { "gpufftspectrum",
  "gpuspectrum", "gpufftspectrogram", "gpuloudness"
};

typedef struct
{
  GMutex lock;
  GPtrArray *running;           /* GstElement* (the analysers), reffed */
  gint64 until;
  gint stop;                    /* atomic */
  gint errors;                  /* atomic */
  gint posted[N_KINDS];         /* atomic: messages (pictures) per kind */
  gint pipelines;               /* atomic */
  gchar *first_error;           /* under lock */
  guint32 seed;
} Shared;

typedef struct
{
  Shared *sh;
  guint index;
} Worker;

static void
note_error (Shared * sh, const gchar * what)
{
  g_atomic_int_inc (&sh->errors);
  g_mutex_lock (&sh->lock);
  if (!sh->first_error)
    sh->first_error = g_strdup (what);
  g_mutex_unlock (&sh->lock);
}

/* A random valid property change of an element of kind k. */
static void
poke_property (GstElement * el, Kind k, GRand * r)
{
  switch (k) {
    case K_FFT:
      switch (g_rand_int_range (r, 0, 4)) {
        case 0:
          g_object_set (el, "fft-size", 256u << g_rand_int_range (r, 0, 3),
              NULL);
          break;
        case 1:
          g_object_set (el, "interval", (guint64) g_rand_int_range (r, 20,
                  200) * GST_MSECOND, NULL);
          break;
        case 2:
          g_object_set (el, "threshold", g_rand_int_range (r, -120, -20),
              NULL);
          break;
        default:
          g_object_set (el, "multi-channel", g_rand_boolean (r), NULL);
          break;
      }
      break;
    case K_SPECTRUM:
      if (g_rand_boolean (r))
        g_object_set (el, "bands", (guint) g_rand_int_range (r, 32, 600),
            NULL);
      else
        g_object_set (el, "interval", (guint64) g_rand_int_range (r, 20,
                200) * GST_MSECOND, NULL);
      break;
    case K_SPECTROGRAM:
      switch (g_rand_int_range (r, 0, 3)) {
        case 0:
          g_object_set (el, "fft-size", g_rand_boolean (r) ? 0u :
              512u << g_rand_int_range (r, 0, 2), NULL);
          break;
        case 1:
          gst_util_set_object_arg (G_OBJECT (el), "mode",
              g_rand_boolean (r) ? "waterfall" : "both");
          break;
        default:
          gst_util_set_object_arg (G_OBJECT (el), "frequency-axis",
              g_rand_boolean (r) ? "linear" : "log");
          break;
      }
      break;
    default:
      g_object_set (el, "interval", (guint64) g_rand_int_range (r, 50,
              400) * GST_MSECOND, NULL);
      break;
  }
}

static GstPadProbeReturn
count_picture (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  g_atomic_int_inc ((gint *) data);
  return GST_PAD_PROBE_OK;
}

/* Takes the bus's messages: ERRORs counted, analysis messages counted. */
static void
drain (Shared * sh, GstBus * bus, Kind k)
{
  GstMessage *m;

  while ((m = gst_bus_pop (bus))) {
    if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR) {
      GError *err = NULL;
      gchar *dbg = NULL, *s;

      gst_message_parse_error (m, &err, &dbg);
      s = g_strdup_printf ("%s: %s | %s", kind_name[k], err->message,
          GST_STR_NULL (dbg));
      note_error (sh, s);
      g_free (s);
      g_error_free (err);
      g_free (dbg);
    } else if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ELEMENT) {
      g_atomic_int_inc (&sh->posted[k]);
    }
    gst_message_unref (m);
  }
}

static void
set_caps (GstElement * cf, gint rate, gint channels)
{
  GstCaps *c = gst_caps_new_simple ("audio/x-raw", "format", G_TYPE_STRING,
      "F32LE", "rate", G_TYPE_INT, rate, "channels", G_TYPE_INT, channels,
      "layout", G_TYPE_STRING, "interleaved", NULL);

  g_object_set (cf, "caps", c, NULL);
  gst_caps_unref (c);
}

static void
one_pipeline (Shared * sh, Kind k, GRand * r)
{
  gchar *desc = g_strdup_printf ("audiotestsrc is-live=true "
      "samplesperbuffer=480 wave=%s freq=%d ! capsfilter name=cf "
      "! %s name=el %s ! fakesink name=sink sync=false async=false",
      g_rand_boolean (r) ? "sine" : "white-noise",
      g_rand_int_range (r, 100, 5000), kind_name[k],
      k == K_SPECTROGRAM ? "! video/x-raw,width=160,height=96,"
      "framerate=25/1" : "");
  GError *err = NULL;
  GstElement *pipe = gst_parse_launch (desc, &err);
  GstElement *el, *cf, *sink;
  GstBus *bus;
  guint steps, i;

  fail_unless (pipe != NULL, "%s: %s", desc, err ? err->message : "?");
  g_free (desc);
  el = gst_bin_get_by_name (GST_BIN (pipe), "el");
  cf = gst_bin_get_by_name (GST_BIN (pipe), "cf");
  sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  if (k == K_SPECTROGRAM) {
    GstPad *pad = gst_element_get_static_pad (sink, "sink");

    gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, count_picture,
        &sh->posted[K_SPECTROGRAM], NULL);
    gst_object_unref (pad);
  }
  set_caps (cf, g_rand_boolean (r) ? 48000 : 44100, g_rand_int_range (r, 1,
          3));
  bus = gst_element_get_bus (pipe);
  fail_if (gst_element_set_state (pipe, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE);
  g_atomic_int_inc (&sh->pipelines);

  /* the first analysis (the device's kernels are made at the first
   * buffer: seconds on a busy CPU device), at most 60 s */
  {
    gint64 deadline = g_get_monotonic_time () + 60 * G_USEC_PER_SEC;
    gint before = g_atomic_int_get (&sh->posted[k]);

    while (g_atomic_int_get (&sh->posted[k]) == before
        && g_get_monotonic_time () < deadline) {
      GstMessage *m = gst_bus_timed_pop (bus, 20 * GST_MSECOND);

      if (m) {
        if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ELEMENT)
          g_atomic_int_inc (&sh->posted[k]);
        else if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR)
          note_error (sh, "ERROR before the first analysis");
        gst_message_unref (m);
      }
    }
  }
  /* (then the other thread may change its properties too: a spectrogram
   * whose settings change every 100 ms draws nothing) */
  g_mutex_lock (&sh->lock);
  g_ptr_array_add (sh->running, gst_object_ref (el));
  g_mutex_unlock (&sh->lock);
  steps = g_rand_int_range (r, 4, 12);
  for (i = 0; i < steps; i++) {
    g_usleep (g_rand_int_range (r, 20, 150) * 1000);
    switch (g_rand_int_range (r, 0, 8)) {
      case 0:
      case 1:
        poke_property (el, k, r);
        break;
      case 2:
        set_caps (cf, g_rand_boolean (r) ? 48000 : 44100,
            g_rand_int_range (r, 1, 3));
        break;
      case 3:
        gst_element_seek_simple (pipe, GST_FORMAT_TIME, GST_SEEK_FLAG_FLUSH,
            0);
        break;
      case 4:
        gst_element_set_state (pipe, GST_STATE_PAUSED);
        g_usleep (g_rand_int_range (r, 5, 60) * 1000);
        gst_element_set_state (pipe, GST_STATE_PLAYING);
        break;
      case 5:
        fail_unless_equals_int (gst_element_set_state (pipe,
                GST_STATE_NULL), GST_STATE_CHANGE_SUCCESS);
        gst_element_set_state (pipe, GST_STATE_PLAYING);
        break;
      case 6:
        read_properties (el);
        break;
      default:
        if (g_signal_lookup ("reset", G_OBJECT_TYPE (el)))
          g_signal_emit_by_name (el, "reset");
        break;
    }
    drain (sh, bus, k);
  }
  g_mutex_lock (&sh->lock);
  g_ptr_array_remove (sh->running, el);
  g_mutex_unlock (&sh->lock);
  fail_unless_equals_int (gst_element_set_state (pipe, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  drain (sh, bus, k);
  gst_object_unref (bus);
  gst_object_unref (sink);
  gst_object_unref (cf);
  gst_object_unref (el);
  gst_object_unref (pipe);
}

static gpointer
worker (gpointer data)
{
  Worker *w = data;
  GRand *r = g_rand_new_with_seed (w->sh->seed * 1000 + w->index);
  guint n = w->index;

  while (g_get_monotonic_time () < w->sh->until)
    one_pipeline (w->sh, (Kind) (n++ % N_KINDS), r);
  g_rand_free (r);
  return NULL;
}

/* Changes and reads the running elements' properties from its own thread. */
static gpointer
poker (gpointer data)
{
  Shared *sh = data;
  GRand *r = g_rand_new_with_seed (sh->seed * 1000 + 999);

  while (!g_atomic_int_get (&sh->stop)) {
    GstElement *el = NULL;
    Kind k = 0;

    g_mutex_lock (&sh->lock);
    if (sh->running->len) {
      el = gst_object_ref (g_ptr_array_index (sh->running,
              g_rand_int_range (r, 0, sh->running->len)));
    }
    g_mutex_unlock (&sh->lock);
    if (el) {
      for (k = 0; k < N_KINDS; k++)
        if (!strcmp (GST_OBJECT_NAME (gst_element_get_factory (el)),
                kind_name[k]))
          break;
      if (g_rand_boolean (r))
        poke_property (el, k, r);
      else
        read_properties (el);
      gst_object_unref (el);
    }
    g_usleep (g_rand_int_range (r, 5, 40) * 1000);
  }
  g_rand_free (r);
  return NULL;
}

GST_START_TEST (test_concurrency)
{
  const gchar *s_env = g_getenv ("GPUFFT_CONCURRENCY_SECONDS");
  const gchar *t_env = g_getenv ("GPUFFT_CONCURRENCY_THREADS");
  const gchar *seed_env = g_getenv ("GPUFFT_CONCURRENCY_SEED");
  gdouble secs = s_env ? g_ascii_strtod (s_env, NULL) : 8.0;
  guint n = t_env ? (guint) CLAMP (atoi (t_env), 1, MAX_THREADS) : 4;
  Shared sh = { 0 };
  Worker w[MAX_THREADS];
  GThread *th[MAX_THREADS], *pk;
  guint i;

  g_mutex_init (&sh.lock);
  sh.running = g_ptr_array_new_with_free_func (gst_object_unref);
  sh.seed = seed_env ? (guint32) g_ascii_strtoull (seed_env, NULL, 10) : 1;
  sh.until = g_get_monotonic_time () + (gint64) (secs * 1e6);
  g_print ("concurrency: %u threads, %.0f s, seed %u\n", n, secs, sh.seed);
  pk = g_thread_new ("poker", poker, &sh);
  for (i = 0; i < n; i++) {
    w[i].sh = &sh;
    w[i].index = i;
    th[i] = g_thread_new ("worker", worker, &w[i]);
  }
  for (i = 0; i < n; i++)
    g_thread_join (th[i]);
  g_atomic_int_set (&sh.stop, 1);
  g_thread_join (pk);
  g_print ("concurrency: %d pipelines; posted: gpufftspectrum %d, "
      "gpuspectrum %d, gpufftspectrogram %d pictures, gpuloudness %d\n",
      sh.pipelines, sh.posted[K_FFT], sh.posted[K_SPECTRUM],
      sh.posted[K_SPECTROGRAM], sh.posted[K_LOUDNESS]);
  fail_unless (sh.errors == 0, "%d ERROR messages, the first: %s",
      sh.errors, sh.first_error);
  for (i = 0; i < N_KINDS; i++)
    fail_unless (sh.posted[i] > 0, "%s posted nothing", kind_name[i]);
  g_ptr_array_unref (sh.running);
  g_free (sh.first_error);
  g_mutex_clear (&sh.lock);
}

GST_END_TEST;

static Suite *
concurrency_suite (void)
{
  Suite *s = suite_create ("gpufft-concurrency");
  TCase *tc = tcase_create ("concurrency");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_concurrency);
  return s;
}

GST_CHECK_MAIN (concurrency);
