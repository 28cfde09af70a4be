/* Many elements on one device, driven from many threads at once: 8 worker
 * threads each own 4 elements (gpufftspectrum, gpuspectrum and gpuloudness
 * in GstHarnesses, 32 in all; GPUFFT_STRESS_ELEMENTS up to 64) and, for a
 * bounded time, push buffers, flush, renegotiate (channels, rate), end the
 * stream and go on after a flush, and destroy the element and make a new
 * one, in an order drawn from a seeded generator; a ninth thread changes
 * the elements' properties (fft-size, bands, interval) meanwhile. The seed
 * is GPUFFT_STRESS_SEED, or the hour since the epoch, so that CI runs
 * rotate through seeds; the log names it.
 *
 * Checks, for every element: no ERROR and no critical warning (the tests
 * run with G_DEBUG=fatal-criticals); every buffer pushed is taken
 * (GST_FLOW_OK) and comes out unchanged; after EOS leaves the element no
 * message of its stream comes; nothing deadlocks (the test's timeout).
 * Then a final, known stream through every element: a flush (and, for
 * gpuloudness, new caps: a flush does not restart its intervals, and it
 * reads its interval when caps are set), 1 s of a 1 kHz tone, EOS: each posts its 10 interval messages, in order, with
 * the intervals' timestamps, before EOS leaves it, and they measure the
 * tone (the loudest bin at 1 kHz; the momentary loudness of the sine of
 * peak 0.5, -6.02 LUFS). */
#include "gpufft-test-common.h"

#define N_WORKERS 8
#define MAX_PER_WORKER 8
#define STRESS_SECONDS 6
#define TONE_HZ 1000.0
#define TONE_AMP 0.5

typedef enum
{
  KIND_FFT,
  KIND_GPUSPECTRUM,
  KIND_LOUDNESS
} Kind;

static const gchar *const kind_factory[] =
    { "gpufftspectrum", "gpuspectrum", "gpuloudness" };
static const gchar *const kind_message[] =
    { "spectrum", "spectrum", "ebur128-level" };

typedef struct
{
  GMutex lock;                  /* h and element, for the property thread */
  GstHarness *h;
  GstElement *element;          /* a reference while h lives */
  GstBus *bus;
  Kind kind;
  Fmt f;
  guint64 pushed;               /* samples since the segment's start */
  guint id;
} Slot;

typedef struct
{
  GRand *rand;
  Slot *slots;
  guint n;
  gint64 deadline;
  guint ops[5];
} Worker;

static GMutex errors_lock;
static GString *errors;

/* (any thread: the workers report instead of failing, which libcheck
 * allows on the test's own thread only) */
static void
report (const Slot * s, const gchar * fmt, ...)
{
  va_list ap;

  g_mutex_lock (&errors_lock);
  g_string_append_printf (errors, "element %u (%s): ", s->id,
      kind_factory[s->kind]);
  va_start (ap, fmt);
  g_string_append_vprintf (errors, fmt, ap);
  va_end (ap);
  g_string_append_c (errors, '\n');
  g_mutex_unlock (&errors_lock);
}

static void
slot_make (Slot * s)
{
  gchar *caps = fmt_caps_string (&s->f);
  GstHarness *h;

  switch (s->kind) {
    case KIND_FFT:
      h = harness_new_element ("gpufftspectrum", &s->bus, caps,
          "fft-size", "1024", "interval", "100000000", NULL);
      break;
    case KIND_GPUSPECTRUM:
      h = harness_new_element ("gpuspectrum", &s->bus, caps,
          "bands", "128", "interval", "100000000", NULL);
      break;
    default:
      h = harness_new_element ("gpuloudness", &s->bus, caps,
          "interval", "100000000", NULL);
      break;
  }
  g_free (caps);
  g_mutex_lock (&s->lock);
  s->h = h;
  s->element = gst_object_ref (h->element);
  g_mutex_unlock (&s->lock);
  s->pushed = 0;
}

static void
slot_free (Slot * s)
{
  GstHarness *h;
  GstElement *el;

  g_mutex_lock (&s->lock);
  h = s->h;
  el = s->element;
  s->h = NULL;
  s->element = NULL;
  g_mutex_unlock (&s->lock);
  harness_free (h, s->bus);
  gst_object_unref (el);
}

/* Pops what the element posted; ERRORs are reported. Returns how many of
 * the element's interval messages came; keep (optional) takes them. */
static guint
drain_into (Slot * s, GPtrArray * keep)
{
  GstMessage *m;
  guint n = 0;

  while ((m = gst_bus_pop (s->bus)) != NULL) {
    if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR) {
      GError *e = NULL;

      gst_message_parse_error (m, &e, NULL);
      report (s, "ERROR: %s", e->message);
      g_error_free (e);
    } else if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ELEMENT
        && gst_structure_has_name (gst_message_get_structure (m),
            kind_message[s->kind])) {
      n++;
      if (keep) {
        g_ptr_array_add (keep, m);
        continue;
      }
    }
    gst_message_unref (m);
  }
  return n;
}

static guint
drain (Slot * s)
{
  return drain_into (s, NULL);
}

/* x[n * channels]: the tone on every channel, from sample `first` */
static void
tone (const Fmt * f, guint64 first, gsize n, gdouble * x)
{
  gsize i;
  gint c;

  for (i = 0; i < n; i++)
    for (c = 0; c < f->channels; c++)
      x[i * f->channels + c] = TONE_AMP * sin (2.0 * G_PI * TONE_HZ *
          (gdouble) (first + i) / f->rate);
}

/* Pushes n buffers of 10 ms of the tone; each must be taken and come out
 * as it went in. */
static void
push_buffers (Slot * s, guint n)
{
  gsize len = s->f.rate / 100;
  gdouble *x = g_new (gdouble, len * s->f.channels);
  guint i;

  for (i = 0; i < n; i++) {
    GstBuffer *in, *out, *expect;
    GstFlowReturn ret;
    GstMapInfo a, b;

    tone (&s->f, s->pushed, len, x);
    in = fmt_make_buffer (&s->f, x, len, gst_util_uint64_scale_int_round
        (s->pushed, GST_SECOND, s->f.rate));
    expect = gst_buffer_ref (in);
    ret = gst_harness_push (s->h, in);
    s->pushed += len;
    if (ret != GST_FLOW_OK) {
      report (s, "a buffer was refused: %s", gst_flow_get_name (ret));
      gst_buffer_unref (expect);
      break;
    }
    out = gst_harness_pull (s->h);
    if (out == NULL) {
      report (s, "a buffer did not come out");
      gst_buffer_unref (expect);
      break;
    }
    gst_buffer_map (out, &a, GST_MAP_READ);
    gst_buffer_map (expect, &b, GST_MAP_READ);
    if (a.size != b.size || memcmp (a.data, b.data, a.size) != 0)
      report (s, "a buffer came out changed");
    gst_buffer_unmap (out, &a);
    gst_buffer_unmap (expect, &b);
    gst_buffer_unref (out);
    gst_buffer_unref (expect);
  }
  g_free (x);
}

static void
push_segment (Slot * s)
{
  GstSegment seg;

  gst_segment_init (&seg, GST_FORMAT_TIME);
  if (!gst_harness_push_event (s->h, gst_event_new_segment (&seg)))
    report (s, "the segment was refused");
  s->pushed = 0;
}

static void
flush (Slot * s)
{
  if (!gst_harness_push_event (s->h, gst_event_new_flush_start ())
      || !gst_harness_push_event (s->h, gst_event_new_flush_stop (TRUE)))
    report (s, "a flush was refused");
  push_segment (s);
}

/* Pushes EOS and waits until it has left the element; FALSE (reported)
 * when it was refused or did not come out. */
static gboolean
push_eos (Slot * s)
{
  GstEvent *e;

  if (!gst_harness_push_event (s->h, gst_event_new_eos ())) {
    report (s, "EOS was refused");
    return FALSE;
  }
  while ((e = gst_harness_pull_event (s->h)) != NULL) {
    gboolean eos = GST_EVENT_TYPE (e) == GST_EVENT_EOS;

    gst_event_unref (e);
    if (eos)
      return TRUE;
  }
  report (s, "EOS did not come out");
  return FALSE;
}

/* Ends the stream: once EOS has left the element, no message of the
 * stream may come. */
static void
end_stream (Slot * s)
{
  if (!push_eos (s))
    return;
  drain (s);
  g_usleep (50 * 1000);
  if (drain (s) > 0)
    report (s, "a message came after EOS left");
}

/* New caps (s->f) and a segment from 0 */
static void
push_caps (Slot * s)
{
  gchar *caps = fmt_caps_string (&s->f);
  GstCaps *c = gst_caps_from_string (caps);

  if (!gst_harness_push_event (s->h, gst_event_new_caps (c)))
    report (s, "the caps %s were refused", caps);
  gst_caps_unref (c);
  g_free (caps);
  push_segment (s);
}

static void
renegotiate (Slot * s, GRand * r)
{
  if (g_rand_boolean (r))
    s->f.channels = s->f.channels == 1 ? 2 : 1;
  else
    s->f.rate = s->f.rate == 48000 ? 44100 : 48000;
  push_caps (s);
}

static gpointer
worker_run (gpointer data)
{
  Worker *w = data;

  while (g_get_monotonic_time () < w->deadline) {
    Slot *s = &w->slots[g_rand_int_range (w->rand, 0, w->n)];
    gint op = g_rand_int_range (w->rand, 0, 100);

    if (op < 55) {
      push_buffers (s, g_rand_int_range (w->rand, 1, 25));
      w->ops[0]++;
    } else if (op < 70) {
      flush (s);
      w->ops[1]++;
    } else if (op < 82) {
      renegotiate (s, w->rand);
      w->ops[2]++;
    } else if (op < 92) {
      end_stream (s);
      flush (s);
      w->ops[3]++;
    } else {
      slot_free (s);
      slot_make (s);
      w->ops[4]++;
    }
    drain (s);
  }
  return NULL;
}

typedef struct
{
  Slot *slots;
  guint n;
  gint64 deadline;
  guint32 seed;
  guint changes;
} Changer;

/* Property changes from a thread of their own, while the workers push. */
static gpointer
changer_run (gpointer data)
{
  static const gchar *const ffts[] = { "512", "1024", "2048" };
  static const gchar *const bands[] = { "64", "128", "257" };
  static const gchar *const intervals[] = { "50000000", "100000000" };
  Changer *c = data;
  GRand *r = g_rand_new_with_seed (c->seed);

  while (g_get_monotonic_time () < c->deadline) {
    Slot *s = &c->slots[g_rand_int_range (r, 0, c->n)];
    GstElement *el;

    g_mutex_lock (&s->lock);
    el = s->element ? gst_object_ref (s->element) : NULL;
    g_mutex_unlock (&s->lock);
    if (el) {
      switch (s->kind) {
        case KIND_FFT:
          gst_util_set_object_arg (G_OBJECT (el), "fft-size",
              ffts[g_rand_int_range (r, 0, 3)]);
          break;
        case KIND_GPUSPECTRUM:
          gst_util_set_object_arg (G_OBJECT (el), "bands",
              bands[g_rand_int_range (r, 0, 3)]);
          break;
        default:
          gst_util_set_object_arg (G_OBJECT (el), "interval",
              intervals[g_rand_int_range (r, 0, 2)]);
          break;
      }
      gst_object_unref (el);
      c->changes++;
    }
    g_usleep (g_rand_int_range (r, 5, 40) * 1000);
  }
  g_rand_free (r);
  return NULL;
}

/* The final stream: every element back to its first settings, a flush, 1 s
 * of the tone, EOS; the interval messages are checked. */
static void
final_stream (Slot * s)
{
  GPtrArray *msgs = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_message_unref);
  guint i, posted;

  switch (s->kind) {
    case KIND_FFT:
      gst_util_set_object_arg (G_OBJECT (s->element), "fft-size", "1024");
      break;
    case KIND_GPUSPECTRUM:
      gst_util_set_object_arg (G_OBJECT (s->element), "bands", "128");
      break;
    default:
      gst_util_set_object_arg (G_OBJECT (s->element), "interval", "100000000");
      break;
  }
  flush (s);
  /* (gpuloudness reads its interval when caps are set, and a flush does
   * not restart its intervals, as ebur128level's: new caps do both, the
   * stream before posted first) */
  if (s->kind == KIND_LOUDNESS) {
    s->f.channels = s->f.channels == 1 ? 2 : 1;
    push_caps (s);
  }
  drain (s);
  push_buffers (s, 100);
  if (!push_eos (s)) {
    g_ptr_array_unref (msgs);
    return;
  }
  /* (what is on the bus now was posted before EOS left) */
  posted = drain_into (s, msgs);
  if (posted != 10) {
    GString *ts = g_string_new (NULL);

    for (i = 0; i < posted; i++) {
      const GstStructure *st =
          gst_message_get_structure (g_ptr_array_index (msgs, i));
      guint64 t = 0, d = 0;

      gst_structure_get_uint64 (st, "timestamp", &t);
      gst_structure_get_uint64 (st, "duration", &d);
      g_string_append_printf (ts, " %.4f+%.4f", t / 1e9, d / 1e9);
    }
    report (s, "%u interval messages for 1 s of 100 ms intervals (%d Hz, "
        "%d channels):%s", posted, s->f.rate, s->f.channels, ts->str);
    g_string_free (ts, TRUE);
    g_ptr_array_unref (msgs);
    return;
  }
  for (i = 0; i < posted; i++) {
    const GstStructure *st =
        gst_message_get_structure (g_ptr_array_index (msgs, i));
    /* (gpuloudness: its interval's end) */
    guint64 want = (i + (s->kind == KIND_LOUDNESS ? 1 : 0)) * 100 * GST_MSECOND;
    guint64 ts = 0;

    gst_structure_get_uint64 (st, "timestamp", &ts);
    if (ts != want)
      report (s, "message %u at %" GST_TIME_FORMAT ", not %" GST_TIME_FORMAT,
          i, GST_TIME_ARGS (ts), GST_TIME_ARGS (want));
    if (s->kind == KIND_FFT && i == posted - 1) {
      guint ch = 0, nb = 0, k, best = 0;
      gfloat *mag = msg_floats (st, "magnitude", &ch, &nb, NULL);
      gdouble bin_hz = (gdouble) s->f.rate / 1024;

      for (k = 1; k < nb; k++)
        if (mag[k] > mag[best])
          best = k;
      if (fabs (best * bin_hz - TONE_HZ) > bin_hz)
        report (s, "the loudest bin is at %.1f Hz, not %.0f", best * bin_hz,
            TONE_HZ);
      g_free (mag);
    }
    if (s->kind == KIND_LOUDNESS && i == posted - 1) {
      /* BS.1770's -0.691 dB offsets the K-weighting's gain at 1 kHz (EBU
       * Tech 3341 case 1: a stereo 1 kHz sine of peak -23 dBFS reads -23
       * LUFS); the mean square A^2/2 on each of two channels, or on one
       * channel counted twice */
      gdouble want_m = 20.0 * log10 (TONE_AMP);
      gdouble got = msg_double (st, "momentary-loudness");

      if (fabs (got - want_m) > 0.1)
        report (s, "momentary loudness %.3f LUFS, not %.3f", got, want_m);
    }
  }
  g_ptr_array_unref (msgs);
}

GST_START_TEST (test_stress)
{
  const gchar *env_seed = g_getenv ("GPUFFT_STRESS_SEED");
  const gchar *env_n = g_getenv ("GPUFFT_STRESS_ELEMENTS");
  guint32 seed = env_seed ? (guint32) g_ascii_strtoull (env_seed, NULL, 10) :
      (guint32) (g_get_real_time () / G_USEC_PER_SEC / 3600);
  /* (a whole number of elements per worker) */
  guint n = env_n ? CLAMP (g_ascii_strtoull (env_n, NULL, 10), N_WORKERS,
      N_WORKERS * MAX_PER_WORKER) / N_WORKERS * N_WORKERS : 32;
  Slot *slots = g_new0 (Slot, n);
  Worker workers[N_WORKERS];
  GThread *threads[N_WORKERS], *changer_thread;
  Changer changer;
  gint64 deadline;
  guint i, j, totals[5] = { 0 };

  errors = g_string_new (NULL);
  GST_INFO ("seed %u (GPUFFT_STRESS_SEED), %u elements", seed, n);
  g_print ("# stress: seed %u, %u elements\n", seed, n);
  for (i = 0; i < n; i++) {
    Slot *s = &slots[i];

    g_mutex_init (&s->lock);
    s->id = i;
    /* (three of four gpufftspectrum) */
    s->kind = i % 8 == 3 ? KIND_GPUSPECTRUM : i % 8 == 7 ? KIND_LOUDNESS :
        KIND_FFT;
    s->f.format = "F32LE";
    s->f.rate = 48000;
    s->f.channels = 1 + i % 2;
    s->f.planar = FALSE;
    slot_make (s);
  }
  /* (every device opened: the plans, not the opening, under stress) */
  for (i = 0; i < n; i++) {
    gchar *name = NULL;

    if (!g_object_class_find_property (G_OBJECT_GET_CLASS (slots[i].element),
            "device-name"))
      continue;
    g_object_get (slots[i].element, "device-name", &name, NULL);
    g_free (name);
  }

  deadline = g_get_monotonic_time () + STRESS_SECONDS * G_TIME_SPAN_SECOND;
  for (i = 0; i < N_WORKERS; i++) {
    Worker *w = &workers[i];

    memset (w, 0, sizeof (*w));
    w->rand = g_rand_new_with_seed (seed * 131u + i);
    w->n = n / N_WORKERS;
    w->slots = &slots[i * w->n];
    w->deadline = deadline;
    threads[i] = g_thread_new ("stress-worker", worker_run, w);
  }
  changer.slots = slots;
  changer.n = n;
  changer.deadline = deadline;
  changer.seed = seed * 131u + 1000;
  changer.changes = 0;
  changer_thread = g_thread_new ("stress-changer", changer_run, &changer);

  for (i = 0; i < N_WORKERS; i++) {
    g_thread_join (threads[i]);
    for (j = 0; j < 5; j++)
      totals[j] += workers[i].ops[j];
    g_rand_free (workers[i].rand);
  }
  g_thread_join (changer_thread);
  g_print ("# stress: %u pushes, %u flushes, %u renegotiations, %u ends, "
      "%u new elements, %u property changes\n", totals[0], totals[1],
      totals[2], totals[3], totals[4], changer.changes);

  for (i = 0; i < n; i++)
    final_stream (&slots[i]);
  for (i = 0; i < n; i++) {
    slot_free (&slots[i]);
    g_mutex_clear (&slots[i].lock);
  }
  g_free (slots);
  fail_unless (errors->len == 0, "seed %u:\n%s", seed, errors->str);
  g_string_free (errors, TRUE);
  errors = NULL;
}

GST_END_TEST;

static Suite *
stress_suite (void)
{
  Suite *s = suite_create ("stress");
  TCase *tc = tcase_create ("stress");

  tcase_set_timeout (tc, 600);
  tcase_add_test (tc, test_stress);
  suite_add_tcase (s, tc);
  return s;
}

GST_CHECK_MAIN (stress);
