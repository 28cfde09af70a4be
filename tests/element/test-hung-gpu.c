/* A GPU that hangs (tests/faults/vk-hang-shim.c, preloaded: fences never
 * signal, vkDeviceWaitIdle never returns): the element turns the bounded
 * wait into a clear error, the audio keeps passing until then, and the
 * pipeline still goes to NULL (nothing waits for the hung device). Runs
 * with GPUFFT_FENCE_TIMEOUT=1 (seconds), but test_hung_default_deadlines,
 * which takes the defaults: many streams, the stall deadline
 * (GPUFFT_STALL_S), and stops that return within 1 s whatever the device
 * does. */
#include <dlfcn.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <string.h>

#include "gpufft-test-common.h"

#define RATE 48000
#define CHUNK 480

GST_START_TEST (test_hung_gpu)
{
  void (*hang) (int) = (void (*)(int)) dlsym (RTLD_DEFAULT, "gpufft_test_hang");
  Fmt f = { "F32LE", RATE, 1, FALSE };
  gchar *caps = fmt_caps_string (&f);
  GstBus *bus;
  GstHarness *h;
  gdouble *x = g_new0 (gdouble, RATE * 2);
  gsize off;
  Msgs *m;
  guint i;
  gboolean named = FALSE;

  fail_unless (hang != NULL, "vk-hang-shim is not preloaded");
  h = harness_new (&bus, caps, "fft-size", "256", "interval", "10000000", NULL);
  g_free (caps);
  gen_tone (x, RATE * 2, 1, 0.5, 1000.0, RATE, 0.0);

  /* working first */
  push_samples (h, &f, x, RATE / 10, CHUNK, 0, FALSE);
  for (i = 0; i < 10; i++)
    gst_buffer_unref (gst_harness_pull (h));
  m = msgs_collect (bus, 9, 60);
  fail_unless (m->spectrum->len >= 9);
  fail_unless_equals_int (m->errors->len, 0);
  msgs_free (m);

  /* then the GPU hangs: buffers still pass until the element has seen
   * the hang (a bounded wait), then it stops with an error */
  hang (1);
  for (off = RATE / 10; off < 2 * RATE; off += CHUNK) {
    GstBuffer *b = fmt_make_buffer (&f, x + off, CHUNK,
        gst_util_uint64_scale_int_round (off, GST_SECOND, RATE));
    GstFlowReturn ret = gst_harness_push (h, b);

    if (ret != GST_FLOW_OK) {
      fail_unless_equals_int (ret, GST_FLOW_ERROR);
      break;
    }
    gst_buffer_unref (gst_harness_pull (h));
  }
  m = msgs_collect (bus, G_MAXUINT, 60);
  fail_unless (m->errors->len >= 1, "no error after the GPU hung");
  for (i = 0; i < m->errors->len; i++)
    named |= strstr (g_ptr_array_index (m->errors, i), "did not finish")
        != NULL;
  fail_unless (named, "the error does not say the device hangs: %s",
      (gchar *) g_ptr_array_index (m->errors, 0));
  msgs_free (m);

  /* and it stops (the test's timeout catches a hang here) */
  harness_free (h, bus);
  hang (0);
  g_free (x);
}

GST_END_TEST;

/* ---- the default deadlines -------------------------------------------- */

/* One pipeline of the many-stream test: what it produced (element
 * messages, or the spectrogram's frames at its sink) and its first ERROR,
 * counted by a synchronous bus handler. */
static GMutex hung_lock;

typedef struct
{
  GstElement *pipe;
  const gchar *what;
  gint outputs;                 /* atomic */
  gint errors;                  /* atomic */
  /* under hung_lock: the first ERROR's time and text */
  gint64 first_error_us;
  gchar *error_text;            /* "message | debug" */
} HungStream;

static GstBusSyncReply
hung_stream_handler (GstBus * bus, GstMessage * msg, gpointer data)
{
  HungStream *s = data;

  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ELEMENT)
    g_atomic_int_inc (&s->outputs);
  else if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    GError *err = NULL;
    gchar *dbg = NULL;

    gst_message_parse_error (msg, &err, &dbg);
    g_mutex_lock (&hung_lock);
    if (s->error_text == NULL) {
      s->error_text = g_strdup_printf ("%s | %s", err->message,
          GST_STR_NULL (dbg));
      s->first_error_us = g_get_monotonic_time ();
    }
    g_mutex_unlock (&hung_lock);
    g_error_free (err);
    g_free (dbg);
    g_atomic_int_inc (&s->errors);
  }
  /* (a sync handler that drops a message unrefs it) */
  gst_message_unref (msg);
  return GST_BUS_DROP;
}

static void
hung_frame_out (GstElement * sink, GstBuffer * buf, GstPad * pad,
    HungStream * s)
{
  g_atomic_int_inc (&s->outputs);
}

static void
hung_stream_start (HungStream * s, const gchar * what, const gchar * desc)
{
  GstBus *bus;
  GstElement *sink;

  memset (s, 0, sizeof (*s));
  s->what = what;
  s->pipe = gst_parse_launch (desc, NULL);
  fail_unless (s->pipe != NULL, "%s", desc);
  bus = gst_element_get_bus (s->pipe);
  gst_bus_set_sync_handler (bus, hung_stream_handler, s, NULL);
  gst_object_unref (bus);
  sink = gst_bin_get_by_name (GST_BIN (s->pipe), "sink");
  if (sink) {
    g_signal_connect (sink, "handoff", G_CALLBACK (hung_frame_out), s);
    gst_object_unref (sink);
  }
  fail_if (gst_element_set_state (s->pipe, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE);
}

typedef struct
{
  GstElement *pipe;
  GMutex lock;
  GCond cond;
  gboolean done;
} NullCall;

static gpointer
null_thread (gpointer data)
{
  NullCall *c = data;

  gst_element_set_state (c->pipe, GST_STATE_NULL);
  g_mutex_lock (&c->lock);
  c->done = TRUE;
  g_cond_signal (&c->cond);
  g_mutex_unlock (&c->lock);
  return NULL;
}

/* Sets the pipeline to NULL on a thread of its own; fails at once when that
 * does not return within 1 s (the test does not wait for it). Returns the
 * seconds it took. */
static gdouble
null_within_1s (HungStream * s, guint index)
{
  NullCall *c = g_new0 (NullCall, 1);
  gint64 t0 = g_get_monotonic_time (), end = t0 + G_USEC_PER_SEC;
  GThread *t;
  gboolean done;

  c->pipe = s->pipe;
  g_mutex_init (&c->lock);
  g_cond_init (&c->cond);
  t = g_thread_new ("set-null", null_thread, c);
  g_mutex_lock (&c->lock);
  while (!c->done && g_cond_wait_until (&c->cond, &c->lock, end));
  done = c->done;
  g_mutex_unlock (&c->lock);
  /* (a stuck set_state keeps c and its thread: the test fails here) */
  fail_unless (done, "stream %u (%s): set_state (NULL) did not return "
      "within 1 s of a hung device", index, s->what);
  g_thread_join (t);
  g_mutex_clear (&c->lock);
  g_cond_clear (&c->cond);
  g_free (c);
  return (g_get_monotonic_time () - t0) / 1e6;
}

/* Threads of this process whose name starts with prefix. */
static guint
threads_named (const gchar * prefix)
{
  GDir *dir = g_dir_open ("/proc/self/task", 0, NULL);
  const gchar *tid;
  guint n = 0;

  if (!dir)
    return 0;
  while ((tid = g_dir_read_name (dir)) != NULL) {
    gchar *path = g_strdup_printf ("/proc/self/task/%s/comm", tid);
    gchar *comm = NULL;

    if (g_file_get_contents (path, &comm, NULL, NULL)
        && g_str_has_prefix (comm, prefix))
      n++;
    g_free (comm);
    g_free (path);
  }
  g_dir_close (dir);
  return n;
}

#define N_HUNG 16
#define N_SPECTRUM 12
#define AUDIO "audiotestsrc is-live=true samplesperbuffer=480 freq=997 " \
  "volume=0.5 ! audio/x-raw,format=F32LE,rate=48000,channels=2 ! "

/* 16 streams on one device (12 gpufftspectrum, two of them not live, 2
 * gpuloudness on the device's path, 2 gpufftspectrogram), with the default
 * fence timeout (300 s on a CPU device): the device stops signalling its
 * fences. Half of the streams are stopped 1.5 s later, with their work in
 * flight and their streaming threads waiting for the hung device:
 * set_state (NULL) returns within 1 s. The others each post an ERROR within 10 s (the stall deadline,
 * GPUFFT_STALL_S, not the fence timeout) and go to NULL within 1 s too.
 * Once the device signals again, the work they left behind is released
 * (no thread of the engine's left: the hung context is destroyed, the
 * input it may have read released), and a new pipeline, on a new context
 * of the device, works. */
GST_START_TEST (test_hung_default_deadlines)
{
  void (*hang) (int) = (void (*)(int)) dlsym (RTLD_DEFAULT, "gpufft_test_hang");
  HungStream st[N_HUNG], fresh;
  gint64 t_hang, end;
  gdouble worst_stop = 0.0, worst_error = 0.0, took;
  guint i, ready;

  fail_unless (hang != NULL, "vk-hang-shim is not preloaded");
  /* the defaults: no fence timeout or stall deadline of the test's or
   * the environment's; gpuloudness on the device (CPU devices measure on
   * the host) */
  g_unsetenv ("GPUFFT_FENCE_TIMEOUT");
  g_unsetenv ("GPUFFT_STALL");
  g_setenv ("GPUFFT_LOUDNESS_PATH", "chunks", TRUE);

  for (i = 0; i < N_HUNG; i++) {
    if (i < 2)
      /* (not live, at the clock's pace: a full device holds its streaming
       * thread) */
      hung_stream_start (&st[i], "gpufftspectrum (not live)",
          "audiotestsrc is-live=false samplesperbuffer=480 freq=997 "
          "volume=0.5 ! audio/x-raw,format=F32LE,rate=48000,channels=2 ! "
          "identity sync=true ! gpufftspectrum fft-size=1024 "
          "interval=100000000 ! fakesink sync=false");
    else if (i < N_SPECTRUM)
      hung_stream_start (&st[i], "gpufftspectrum", AUDIO "gpufftspectrum "
          "fft-size=1024 interval=100000000 ! fakesink sync=false");
    else if (i < N_SPECTRUM + 2)
      hung_stream_start (&st[i], "gpuloudness", AUDIO "gpuloudness "
          "interval=100000000 ! fakesink sync=false");
    else
      hung_stream_start (&st[i], "gpufftspectrogram", AUDIO
          "gpufftspectrogram fft-size=512 ! video/x-raw,width=160,height=120,"
          "framerate=10/1 ! fakesink name=sink sync=false "
          "signal-handoffs=true");
  }
  /* working first */
  end = g_get_monotonic_time () + 120 * G_USEC_PER_SEC;
  do {
    g_usleep (50 * 1000);
    for (i = 0, ready = 0; i < N_HUNG; i++) {
      fail_unless_equals_int (g_atomic_int_get (&st[i].errors), 0);
      ready += g_atomic_int_get (&st[i].outputs) >= 3;
    }
  } while (ready < N_HUNG && g_get_monotonic_time () < end);
  for (i = 0; i < N_HUNG; i++)
    fail_unless (g_atomic_int_get (&st[i].outputs) >= 3,
        "stream %u (%s) did not start", i, st[i].what);

  /* the device hangs */
  hang (1);
  t_hang = g_get_monotonic_time ();
  /* (their work in flight, the streaming threads that wait for it
   * waiting: every slot full, a frame or a drain under way; the stall
   * deadline, 3 s, not yet passed) */
  g_usleep (3 * G_USEC_PER_SEC / 2);
  for (i = 0; i < N_HUNG; i += 2) {
    took = null_within_1s (&st[i], i);
    worst_stop = MAX (worst_stop, took);
  }

  /* the others: an ERROR each, within 10 s of the hang */
  end = t_hang + 10 * G_USEC_PER_SEC;
  do {
    g_usleep (50 * 1000);
    for (i = 1, ready = 0; i < N_HUNG; i += 2)
      ready += g_atomic_int_get (&st[i].errors) > 0;
  } while (ready < N_HUNG / 2 && g_get_monotonic_time () < end);
  g_mutex_lock (&hung_lock);
  for (i = 1; i < N_HUNG; i += 2) {
    fail_unless (g_atomic_int_get (&st[i].errors) > 0, "stream %u (%s): no "
        "ERROR within 10 s of the device's hang", i, st[i].what);
    fail_unless (strstr (st[i].error_text, "stopped responding") != NULL,
        "stream %u (%s): the error does not say the device stopped "
        "responding: %s", i, st[i].what, st[i].error_text);
    worst_error = MAX (worst_error, (st[i].first_error_us - t_hang) / 1e6);
  }
  g_mutex_unlock (&hung_lock);
  for (i = 1; i < N_HUNG; i += 2) {
    took = null_within_1s (&st[i], i);
    worst_stop = MAX (worst_stop, took);
  }
  GST_INFO ("hung device: errors within %.2f s, set_state (NULL) within "
      "%.3f s", worst_error, worst_stop);
  for (i = 0; i < N_HUNG; i++) {
    gst_object_unref (st[i].pipe);
    g_free (st[i].error_text);
  }

  /* the device signals again: what was left behind is released */
  hang (0);
  end = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
  while ((threads_named ("gpufft-free") > 0
          || threads_named ("gpufft-late") > 0
          || threads_named ("gpufft-complete") > 0)
      && g_get_monotonic_time () < end)
    g_usleep (50 * 1000);
  fail_unless_equals_int (threads_named ("gpufft-free"), 0);
  /* (the input the hung device might still have read, released once it
   * signals again: GPUFFT_IMPORT_MIN_BYTES=1 imports every buffer) */
  fail_unless_equals_int (threads_named ("gpufft-late"), 0);
  /* (the hung context too: its scheduler's threads joined) */
  fail_unless_equals_int (threads_named ("gpufft-complete"), 0);
  fail_unless_equals_int (threads_named ("gpufft-submit"), 0);

  /* and a new pipeline works, on a new context of the device */
  hung_stream_start (&fresh, "gpufftspectrum", AUDIO "gpufftspectrum "
      "interval=100000000 ! fakesink sync=false");
  end = g_get_monotonic_time () + 60 * G_USEC_PER_SEC;
  while (g_atomic_int_get (&fresh.outputs) < 5
      && g_atomic_int_get (&fresh.errors) == 0
      && g_get_monotonic_time () < end)
    g_usleep (50 * 1000);
  fail_unless_equals_int (g_atomic_int_get (&fresh.errors), 0);
  fail_unless (g_atomic_int_get (&fresh.outputs) >= 5);
  null_within_1s (&fresh, N_HUNG);
  gst_object_unref (fresh.pipe);
  g_free (fresh.error_text);
}

GST_END_TEST;

/* ---- a flush while the spectrogram waits for a hung device ------------- */

typedef struct
{
  GstHarness *h;
  const gdouble *x;
  gsize n;
  GstFlowReturn ret;
} Pusher;

/* pushes 10 ms buffers of p->x from 1 s on until a push is refused */
static gpointer
push_until_refused (gpointer data)
{
  Pusher *p = data;
  Fmt f = { "F32LE", RATE, 1, FALSE };
  gsize off;

  p->ret = GST_FLOW_OK;
  for (off = 0; off + CHUNK <= p->n && p->ret == GST_FLOW_OK; off += CHUNK)
    p->ret = gst_harness_push (p->h, fmt_make_buffer (&f, p->x + off, CHUNK,
            GST_SECOND + gst_util_uint64_scale_int (off, GST_SECOND, RATE)));
  return NULL;
}

/* gpufftspectrogram's streaming thread waits for the analysis of a device
 * that stopped signalling (the stall deadline 60 s away): a flush
 * cancels the wait, the push returns FLUSHING, and no ERROR is posted (a
 * flush is no failure). */
GST_START_TEST (test_spectrogram_flush_while_hung)
{
  void (*hang) (int) = (void (*)(int)) dlsym (RTLD_DEFAULT, "gpufft_test_hang");
  Fmt f = { "F32LE", RATE, 1, FALSE };
  gchar *caps = fmt_caps_string (&f);
  gdouble *x = g_new0 (gdouble, RATE * 10);
  GstBus *bus;
  GstHarness *h;
  GThread *t;
  Pusher p;
  Msgs *m;

  fail_unless (hang != NULL, "vk-hang-shim is not preloaded");
  g_unsetenv ("GPUFFT_FENCE_TIMEOUT");
  g_setenv ("GPUFFT_STALL", "60", TRUE);
  h = harness_new_element ("gpufftspectrogram", &bus, caps, "fft-size", "512",
      NULL);
  g_free (caps);
  gst_harness_set_sink_caps_str (h,
      "video/x-raw,format=RGBA,width=160,height=120,framerate=10/1");
  gen_tone (x, RATE * 10, 1, 0.5, 1000.0, RATE, 0.0);

  /* working first: 1 s, ten pictures */
  push_samples (h, &f, x, RATE, CHUNK, 0, FALSE);
  fail_unless (gst_harness_buffers_received (h) >= 9);

  hang (1);
  p.h = h;
  p.x = x;
  p.n = RATE * 10;
  t = g_thread_new ("pusher", push_until_refused, &p);
  /* (the pusher fills the device's slots and waits for the hung device) */
  g_usleep (G_USEC_PER_SEC);
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  g_thread_join (t);
  fail_unless_equals_int (p.ret, GST_FLOW_FLUSHING);
  m = msgs_collect (bus, G_MAXUINT, 0);
  fail_unless_equals_int (m->errors->len, 0);
  msgs_free (m);
  hang (0);
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  harness_free (h, bus);
  g_free (x);
}

GST_END_TEST;

static Suite *
hung_suite (void)
{
  Suite *s = suite_create ("gpufftspectrum-hung-gpu");
  TCase *tc = tcase_create ("hung");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, test_hung_gpu);
  tcase_add_test (tc, test_hung_default_deadlines);
  tcase_add_test (tc, test_spectrogram_flush_while_hung);
  return s;
}

GST_CHECK_MAIN (hung);
