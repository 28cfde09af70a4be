/* Fuzzing, bounded and seeded: random caps (format, rate, channels,
 * layout), random properties, then random buffers (sizes from empty to a
 * few thousand samples, noise with NaN, Inf and huge values, timestamps
 * contiguous, jumping, missing, DISCONT), GAP events, flushes, new
 * segments, renegotiations and property changes (valid or not), and EOS.
 * Every buffer must come out bit-identical, every flow OK, no ERROR, and
 * every message sane (time fields ordered, levels finite and floored).
 *
 * GPUFFT_FUZZ_SEED=<n> replays one seed; GPUFFT_FUZZ_SECONDS (default 4)
 * bounds the run (the last seed started finishes). */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <math.h>
#include <string.h>

#include "gpufft-test-common.h"

static const gchar *formats[] = { "S16LE", "S24LE", "S32LE", "F32LE",
  "F64LE"
};
static const gint rates[] = { 8000, 22050, 44100, 48000, 96000 };

static const gchar *windows[] = { "rectangular", "hann", "hamming",
  "blackman", "blackman-harris", "flat-top"
};

typedef struct
{
  GRand *r;
  Fmt f;
  gchar *format;
  GstClockTime next_pts;
  gsize pushed, pulled;
  gint threshold;
} Fuzz;

static void
random_caps (Fuzz * z)
{
  g_free (z->format);
  z->format = g_strdup (formats[g_rand_int_range (z->r, 0, 5)]);
  z->f.format = z->format;
  z->f.rate = rates[g_rand_int_range (z->r, 0, 5)];
  z->f.channels = g_rand_int_range (z->r, 1, 9);
  z->f.planar = g_rand_boolean (z->r);
}

static void
set_caps (Fuzz * z, GstHarness * h)
{
  gchar *caps = fmt_caps_string (&z->f);

  gst_harness_set_src_caps_str (h, caps);
  g_free (caps);
}

typedef struct
{
  GstElement *el;
  guint size;
} SetSize;

static void
set_size (gpointer data)
{
  SetSize *s = data;

  g_object_set (s->el, "fft-size", s->size, NULL);
}

/* A random property change (sometimes a value the element refuses). */
static void
random_property (Fuzz * z, GstElement * el)
{
  switch (g_rand_int_range (z->r, 0, 9)) {
    case 0:
      /* powers of two 32..4096, any even size 16..5000, or an odd one */
      if (g_rand_int_range (z->r, 0, 6) == 0) {
        SetSize ss = { el, (guint) g_rand_int_range (z->r, 16, 5000) | 1 };
        gchar *w = capture_warnings (el, set_size, &ss);

        /* refused with a warning that names what is valid */
        fail_unless (strstr (w, "refused") && strstr (w, "even"),
            "fft-size %u: %s", ss.size, w);
        g_free (w);
      } else if (g_rand_boolean (z->r)) {
        g_object_set (el, "fft-size", 2 * (guint) g_rand_int_range (z->r, 8,
                2500), NULL);
      } else
        g_object_set (el, "fft-size", 32u << g_rand_int_range (z->r, 0, 8),
            NULL);
      break;
    case 1:
      g_object_set (el, "hop-size", (guint) g_rand_int_range (z->r, 0,
              3000), NULL);
      break;
    case 2:
      g_object_set (el, "interval", (guint64) g_rand_int_range (z->r, 0,
              200) * GST_MSECOND, NULL);
      break;
    case 3:
      g_object_set (el, "multi-channel", g_rand_boolean (z->r), NULL);
      break;
    case 4:
      gst_util_set_object_arg (G_OBJECT (el), "window",
          windows[g_rand_int_range (z->r, 0, 6)]);
      break;
    case 5:
      z->threshold = g_rand_int_range (z->r, -150, 0);
      g_object_set (el, "threshold", z->threshold, NULL);
      break;
    case 6:
      g_object_set (el, "peaks", (guint) g_rand_int_range (z->r, 1, 6), NULL);
      break;
    case 7:
      gst_util_set_object_arg (G_OBJECT (el), "message-format",
          g_rand_boolean (z->r) ? "bytes" : "list");
      break;
    default:
      g_object_set (el, "message-phase", g_rand_boolean (z->r), NULL);
      break;
  }
}

/* Pushes one random buffer and checks what comes out. */
static void
random_buffer (Fuzz * z, GstHarness * h)
{
  gsize n = g_rand_int_range (z->r, 0, 8) == 0 ? 0 :
      (gsize) g_rand_int_range (z->r, 1, 4000);
  gdouble *x = g_new (gdouble, MAX (n, 1) * z->f.channels);
  GstClockTime pts = z->next_pts;
  GstBuffer *in, *out;
  GstMapInfo a, b;
  gsize i;

  for (i = 0; i < n * z->f.channels; i++) {
    guint32 k = g_rand_int_range (z->r, 0, 1000);

    x[i] = k == 0 ? NAN : k == 1 ? INFINITY : k == 2 ? 1e30 :
        g_rand_double_range (z->r, -1.0, 1.0);
  }
  if (strcmp (z->f.format, "F32LE") && strcmp (z->f.format, "F64LE"))
    for (i = 0; i < n * z->f.channels; i++)
      if (!isfinite (x[i]) || fabs (x[i]) > 1.0)
        x[i] = 0.5;
  switch (g_rand_int_range (z->r, 0, 10)) {
    case 0:
      pts = GST_CLOCK_TIME_NONE;
      break;
    case 1:
      pts += g_rand_int_range (z->r, 0, 2000) * GST_MSECOND;
      break;
    default:
      break;
  }
  in = fmt_make_buffer (&z->f, x, n, pts);
  if (g_rand_int_range (z->r, 0, 15) == 0)
    GST_BUFFER_FLAG_SET (in, GST_BUFFER_FLAG_DISCONT);
  if (GST_CLOCK_TIME_IS_VALID (pts))
    z->next_pts = pts + gst_util_uint64_scale_int_round (n, GST_SECOND,
        z->f.rate);
  gst_buffer_ref (in);
  fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
  out = gst_harness_pull (h);
  fail_unless (out == in, "a buffer was replaced");
  gst_buffer_map (out, &b, GST_MAP_READ);
  {
    GstBuffer *ref = fmt_make_buffer (&z->f, x, n, pts);

    gst_buffer_map (ref, &a, GST_MAP_READ);
    fail_unless_equals_int (a.size, b.size);
    fail_unless (memcmp (a.data, b.data, a.size) == 0, "buffer changed");
    gst_buffer_unmap (ref, &a);
    gst_buffer_unref (ref);
  }
  gst_buffer_unmap (out, &b);
  gst_buffer_unref (out);
  gst_buffer_unref (in);
  g_free (x);
}

static void
check_messages (Msgs * m)
{
  guint i, k;

  fail_unless_equals_int (m->errors->len, 0);
  for (i = 0; i < m->spectrum->len; i++) {
    const GstStructure *s = g_ptr_array_index (m->spectrum, i);
    guint64 ts = msg_u64 (s, "timestamp"), dur = msg_u64 (s, "duration");
    guint ch, nb;
    gfloat *mag;

    fail_unless (msg_u64 (s, "endtime") >= ts);
    fail_unless (msg_u64 (s, "stream-time") + dur == msg_u64 (s, "endtime")
        || ts + dur < ts);
    fail_unless (msg_uint (s, "frames") > 0
        || gst_structure_has_field (s, "magnitude"));
    mag = msg_floats (s, "magnitude", &ch, &nb, NULL);
    if (mag == NULL)
      continue;
    fail_unless_equals_int (nb, msg_uint (s, "fft-size") / 2 + 1);
    for (k = 0; k < ch * nb; k++)
      fail_unless (isfinite (mag[k]) && mag[k] >= -1000.0f,
          "bin %u of %u reads %g", k, nb, mag[k]);
    g_free (mag);
  }
}

static void
fuzz_one (guint32 seed)
{
  Fuzz z = { 0 };
  GstBus *bus;
  GstHarness *h;
  gchar *caps;
  guint step, steps;
  Msgs *m;

  z.r = g_rand_new_with_seed (seed);
  z.threshold = -90;
  random_caps (&z);
  caps = fmt_caps_string (&z.f);
  h = harness_new (&bus, caps, "fft-size", "256", NULL);
  g_free (caps);
  random_property (&z, h->element);
  random_property (&z, h->element);
  steps = g_rand_int_range (z.r, 20, 80);
  for (step = 0; step < steps; step++) {
    guint32 what = g_rand_int_range (z.r, 0, 100);

    if (what < 70) {
      random_buffer (&z, h);
    } else if (what < 80) {
      random_property (&z, h->element);
    } else if (what < 84) {
      fail_unless (gst_harness_push_event (h, gst_event_new_gap (z.next_pts,
                  GST_MSECOND * 10)));
      z.next_pts += GST_MSECOND * 10;
    } else if (what < 88) {
      fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
      fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
      {
        GstSegment seg;

        gst_segment_init (&seg, GST_FORMAT_TIME);
        fail_unless (gst_harness_push_event (h, gst_event_new_segment (&seg)));
      }
      z.next_pts = 0;
    } else if (what < 92) {
      GstSegment seg;

      gst_segment_init (&seg, GST_FORMAT_TIME);
      seg.start = seg.time = z.next_pts;
      fail_unless (gst_harness_push_event (h, gst_event_new_segment (&seg)));
    } else {
      random_caps (&z);
      set_caps (&z, h);
    }
    /* drain what was posted so far and check it */
    m = msgs_collect (bus, 0, 0);
    check_messages (m);
    msgs_free (m);
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  m = msgs_collect (bus, 0, 0);
  check_messages (m);
  msgs_free (m);
  harness_free (h, bus);
  g_free (z.format);
  g_rand_free (z.r);
}

GST_START_TEST (test_fuzz)
{
  const gchar *seed_env = g_getenv ("GPUFFT_FUZZ_SEED");
  const gchar *secs_env = g_getenv ("GPUFFT_FUZZ_SECONDS");
  gdouble secs = secs_env ? g_ascii_strtod (secs_env, NULL) : 4.0;
  gint64 until = g_get_monotonic_time () + (gint64) (secs * 1e6);
  guint32 seed;
  guint runs = 0;

  if (seed_env) {
    fuzz_one ((guint32) g_ascii_strtoull (seed_env, NULL, 10));
    return;
  }
  for (seed = 1; runs == 0 || g_get_monotonic_time () < until; seed++) {
    GST_INFO ("seed %u", seed);
    fuzz_one (seed);
    runs++;
  }
  g_print ("fuzz: %u seeds (1..%u) in %.0f s\n", runs, runs, secs);
}

GST_END_TEST;

static Suite *
fuzz_suite (void)
{
  Suite *s = suite_create ("gpufftspectrum-fuzz");
  TCase *tc = tcase_create ("fuzz");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_fuzz);
  return s;
}

GST_CHECK_MAIN (fuzz);
