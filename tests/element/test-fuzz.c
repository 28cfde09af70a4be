/* Fuzzing, bounded and seeded, of the four elements (gpufftspectrum,
 * gpuspectrum, gpufftspectrogram, gpuloudness) in a GstHarness: random caps
 * (format, rate from 1 Hz to 2^31 - 1 Hz within each element's template,
 * channels, layout), random property values (every writable property of
 * the element, read from its GParamSpecs: ordinary values, the range's
 * extremes, values outside the range, which GLib refuses with a warning,
 * and values the element refuses with a warning naming what is valid),
 * then random buffers (0 bytes, 1 byte, sizes that are not a whole number
 * of frames, a few thousand frames, sometimes a second of audio; noise with
 * NaN, Inf and huge values; DISCONT, GAP, DROPPABLE and RESYNC flags;
 * timestamps contiguous, missing, jumping forwards or backwards, near the
 * end of the clock), GAP events, flushes, new segments (start, rate,
 * applied rate), renegotiations, property changes and reads, EOS
 * (mid-stream too, then a flush to go on).
 *
 * Invariants checked after every step:
 *  - every push of whole frames returns GST_FLOW_OK and the buffer comes
 *    out the same buffer, bit-identical (the analysers; the spectrogram's
 *    output is video: each picture has the negotiated size);
 *  - no ERROR message (a buffer that is not a whole number of frames may
 *    be refused, with a flow error, and that seed ends there);
 *  - every message's fields: no NaN anywhere; spectrum magnitudes finite,
 *    at or above the lowest threshold set and below 1000 dB; phases within
 *    [-pi, pi]; loudness values finite or -inf (silence), below 1000 LUFS;
 *    loudness range finite and >= 0; peaks >= 0; endtime >= timestamp;
 *  - timestamps monotonic per stream: in a "clean" seed (one in three:
 *    timestamps only contiguous or jumping forwards, no flush, segment,
 *    caps change or EOS before the end) every message's timestamp is above
 *    the one before, and every picture's PTS at or above the one before.
 * (G_DEBUG=fatal-criticals in the test environment: any CRITICAL fails.)
 *
 * Running it:
 *   GPUFFT_FUZZ_SECONDS=<s>   how long (default 4; the last seed started
 *                             finishes); seeds from GPUFFT_FUZZ_FIRST_SEED
 *                             (default 1) upwards, one element each in
 *                             turn (seed % 4);
 *   GPUFFT_FUZZ_SEED=<n>      replays seed n alone;
 *   GPUFFT_FUZZ_ELEMENT=<factory>  fuzzes that element only.
 * By hand, as long as wanted, e.g. an hour under AddressSanitizer from a
 * random start:
 *   scripts/sanitize.sh setup && GPUFFT_FUZZ_SECONDS=3600 \
 *     GPUFFT_FUZZ_FIRST_SEED=$RANDOM scripts/sanitize.sh asan element-fuzz
 * or in the plain build: GPUFFT_FUZZ_SECONDS=3600 meson test -C build
 * element-fuzz --timeout-multiplier 0. Each seed is logged ("fuzz: seed N
 * factory") before it runs, so the seed of a crash is the last one logged.
 * Every crash found becomes a fixed seed in test_known_seeds. */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <math.h>
#include <string.h>

#include "gpufft-test-common.h"

typedef enum
{
  EL_FFT,
  EL_SPECTRUM,
  EL_SPECTROGRAM,
  EL_LOUDNESS,
  N_EL
} El;

static const gchar *const el_factory[N_EL] = { "gpufftspectrum",
  "gpuspectrum", "gpufftspectrogram", "gpuloudness"
};

static const gchar *formats[] = { "S16LE", "S24LE", "S32LE", "F32LE",
  "F64LE"
};

/* the sink templates: gpuloudness takes 8000..384000 Hz, 1..64 channels;
 * the others 1..2^31-1 Hz, 1..4096 channels */
static const gint rates[] = { 44100, 48000, 8000, 22050, 96000, 1, 2, 7,
  100, 1000, 8001, 11025, 192000, 384000, 768000, 2147483647
};

static const gchar *video_formats[] = { "RGBA", "BGRA", "RGBx", "BGRx",
  "ARGB", "ABGR", "xRGB", "xBGR"
};

typedef struct
{
  GRand *r;
  El el;
  guint32 seed;
  Fmt f;
  gchar *format;
  GstClockTime next_pts;
  gint threshold_min;           /* the lowest threshold set */
  gboolean clean;               /* timestamps only forward, no resets */
  gboolean ended;               /* a push failed (partial frame): stop */
  gboolean refused;             /* settings refused with an ERROR: stop */
  gboolean discont;             /* a DISCONT buffer was pushed */
  GstBus *bus;
  GstClockTime last_ts;         /* last message's timestamp (clean) */
  GstClockTime last_dominant_ts;
  GstClockTime last_pic;        /* last picture's PTS (clean) */
  gint vw, vh;                  /* the spectrogram's picture */
  gint pvw, pvh;                /* the one before */
  guint messages, pictures, buffers;
} Fuzz;

/* ---- caps ---------------------------------------------------------------- */

static void
random_caps (Fuzz * z)
{
  guint k = g_rand_int_range (z->r, 0, 100);
  gint rate;

  g_free (z->format);
  z->format = g_strdup (formats[g_rand_int_range (z->r, 0, 5)]);
  z->f.format = z->format;
  /* mostly the ordinary rates, one in five an extreme one */
  rate = rates[k < 80 ? g_rand_int_range (z->r, 0, 5) :
      g_rand_int_range (z->r, 0, G_N_ELEMENTS (rates))];
  if (z->el == EL_LOUDNESS)
    rate = CLAMP (rate, 8000, 384000);
  z->f.rate = rate;
  k = g_rand_int_range (z->r, 0, 100);
  z->f.channels = k < 85 ? g_rand_int_range (z->r, 1, 9) :
      k < 95 ? g_rand_int_range (z->r, 9, 65) : 64;
  z->f.planar = g_rand_boolean (z->r);
}

static void
set_caps (Fuzz * z, GstHarness * h)
{
  gchar *caps = fmt_caps_string (&z->f);

  gst_harness_set_src_caps_str (h, caps);
  g_free (caps);
}

static void
random_video_caps (Fuzz * z, GstHarness * h)
{
  gchar *caps;

  z->pvw = z->vw;
  z->pvh = z->vh;
  z->vw = g_rand_int_range (z->r, 0, 4) == 0 ? g_rand_int_range (z->r, 16,
      64) : g_rand_int_range (z->r, 64, 480);
  z->vh = g_rand_int_range (z->r, 0, 4) == 0 ? g_rand_int_range (z->r, 16,
      64) : g_rand_int_range (z->r, 64, 320);
  caps = g_strdup_printf ("video/x-raw, format=%s, width=%d, height=%d, "
      "framerate=%d/1", video_formats[g_rand_int_range (z->r, 0, 8)], z->vw,
      z->vh, g_rand_int_range (z->r, 1, 61));
  gst_harness_set_sink_caps_str (h, caps);
  g_free (caps);
}

/* ---- properties ---------------------------------------------------------- */

typedef struct
{
  GstElement *el;
  GParamSpec *p;
  GValue v;
} SetProp;

static void
set_prop (gpointer data)
{
  SetProp *s = data;

  g_object_set_property (G_OBJECT (s->el), s->p->name, &s->v);
}

/* Runs code with g_log's warnings captured (returned, g_free) instead of
 * failing the test: GLib's refusal of a value outside a property's range.
 * (Not capture_warnings (): GStreamer keeps the old list of log functions
 * at every gst_debug_remove_log_function (), which LeakSanitizer reports
 * at exit.) */
static void
capture_glog (const gchar * domain, GLogLevelFlags level, const gchar * msg,
    gpointer data)
{
  g_string_append_printf (data, "[%s] %s\n", GST_STR_NULL (domain), msg);
}

static gchar *
capture_g_warnings (void (*code) (gpointer), gpointer data)
{
  static const gchar *domains[] = { NULL, "GStreamer", "GLib-GObject", "GLib",
    "gpufft", "gpufftspectrum"
  };
  guint ids[G_N_ELEMENTS (domains)], i;
  GString *text = g_string_new (NULL);

  _gst_check_expecting_log = TRUE;
  for (i = 0; i < G_N_ELEMENTS (domains); i++)
    ids[i] = g_log_set_handler (domains[i], G_LOG_LEVEL_WARNING |
        G_LOG_LEVEL_MESSAGE, capture_glog, text);
  code (data);
  for (i = 0; i < G_N_ELEMENTS (domains); i++)
    g_log_remove_handler (domains[i], ids[i]);
  _gst_check_expecting_log = FALSE;
  return g_string_free (text, FALSE);
}

/* an ordinary value of a numeric property, by name */
static gdouble
ordinary (Fuzz * z, const gchar * name)
{
  if (!strcmp (name, "fft-size"))
    return g_rand_boolean (z->r) ? (gdouble) (32u << g_rand_int_range (z->r,
            0, 8)) : 2.0 * g_rand_int_range (z->r, 8, 2500);
  if (!strcmp (name, "bands"))
    return g_rand_int_range (z->r, 2, 1025);
  if (!strcmp (name, "interval"))
    return g_rand_int_range (z->r, 1, 500) * (gdouble) GST_MSECOND;
  if (!strcmp (name, "threshold"))
    return g_rand_int_range (z->r, -150, 1);
  if (!strcmp (name, "hop-size"))
    return g_rand_int_range (z->r, 0, 3000);
  if (!strcmp (name, "peaks"))
    return g_rand_int_range (z->r, 1, 6);
  if (!strcmp (name, "octave-fraction"))
    return g_rand_int_range (z->r, 1, 25);
  if (g_str_has_suffix (name, "-db"))
    return g_rand_double_range (z->r, -150, 20);
  if (g_str_has_suffix (name, "frequency"))
    return g_rand_double_range (z->r, 0, 30000);
  return g_rand_int_range (z->r, 0, 1000);
}

/* A numeric value: ordinary, an extreme of the range, or (out_of_range)
 * just outside it. */
static gdouble
pick_number (Fuzz * z, const gchar * name, gdouble min, gdouble max,
    gdouble type_min, gdouble type_max, gboolean * out_of_range)
{
  guint k = g_rand_int_range (z->r, 0, 100);
  gdouble v;

  *out_of_range = FALSE;
  if (k < 55) {
    v = ordinary (z, name);
  } else if (k < 85) {
    const gdouble ext[] = { min, max, min + 1, max - 1, 0, 1 };
    v = ext[g_rand_int_range (z->r, 0, 6)];
  } else if (k < 92 && (min > type_min || max < type_max)) {
    v = (min > type_min && (max >= type_max || g_rand_boolean (z->r))) ?
        min - 1 : max + 1;
    *out_of_range = TRUE;
    return v;
  } else {
    v = min + g_rand_double (z->r) * (max - min);
  }
  return CLAMP (v, min, max);
}

/* Sets one random writable property of the element to a random value
 * (through its GParamSpec); values outside the range must be refused with
 * a warning. Some properties are left alone: device-index (a device that
 * does not exist is an element error, tested in test-robustness),
 * post-messages and message-magnitude (the checks need messages), qos. */
static void
random_property (Fuzz * z, GstElement * el)
{
  GParamSpec **ps;
  GParamSpec *p = NULL;
  guint n, tries;
  SetProp s = { el, NULL, G_VALUE_INIT };
  gboolean bad = FALSE;
  gchar *w, *vs;

  ps = g_object_class_list_properties (G_OBJECT_GET_CLASS (el), &n);
  for (tries = 0; tries < 50 && !p; tries++) {
    GParamSpec *c = ps[g_rand_int_range (z->r, 0, n)];

    if (!(c->flags & G_PARAM_WRITABLE) || (c->flags & G_PARAM_CONSTRUCT_ONLY)
        || !strcmp (c->name, "name") || !strcmp (c->name, "parent")
        || !strcmp (c->name, "device-index") || !strcmp (c->name, "qos")
        || !strcmp (c->name, "post-messages")
        || !strcmp (c->name, "message-magnitude"))
      continue;
    p = c;
  }
  g_free (ps);
  if (!p)
    return;
  s.p = p;
  g_value_init (&s.v, p->value_type);
  if (G_IS_PARAM_SPEC_BOOLEAN (p)) {
    g_value_set_boolean (&s.v, g_rand_boolean (z->r));
  } else if (G_IS_PARAM_SPEC_INT (p)) {
    GParamSpecInt *q = G_PARAM_SPEC_INT (p);
    g_value_set_int (&s.v, (gint) pick_number (z, p->name, q->minimum,
            q->maximum, G_MININT, G_MAXINT, &bad));
  } else if (G_IS_PARAM_SPEC_UINT (p)) {
    GParamSpecUInt *q = G_PARAM_SPEC_UINT (p);
    g_value_set_uint (&s.v, (guint) pick_number (z, p->name, q->minimum,
            q->maximum, 0, G_MAXUINT, &bad));
  } else if (G_IS_PARAM_SPEC_INT64 (p)) {
    GParamSpecInt64 *q = G_PARAM_SPEC_INT64 (p);
    g_value_set_int64 (&s.v, (gint64) pick_number (z, p->name, q->minimum,
            q->maximum, G_MININT64, G_MAXINT64, &bad));
  } else if (G_IS_PARAM_SPEC_UINT64 (p)) {
    GParamSpecUInt64 *q = G_PARAM_SPEC_UINT64 (p);
    gdouble d = pick_number (z, p->name, q->minimum, (gdouble) q->maximum,
        0, (gdouble) G_MAXUINT64, &bad);
    /* (doubles above 2^64 - 2048 would overflow the conversion) */
    g_value_set_uint64 (&s.v, d >= (gdouble) q->maximum ? q->maximum :
        d < (gdouble) q->minimum ? q->minimum - (bad ? 1 : 0) : (guint64) d);
    if (bad && d >= (gdouble) q->maximum)
      bad = FALSE;
  } else if (G_IS_PARAM_SPEC_DOUBLE (p)) {
    GParamSpecDouble *q = G_PARAM_SPEC_DOUBLE (p);
    g_value_set_double (&s.v, pick_number (z, p->name, q->minimum,
            q->maximum, -G_MAXDOUBLE, G_MAXDOUBLE, &bad));
  } else if (G_IS_PARAM_SPEC_ENUM (p)) {
    GEnumClass *ec = G_PARAM_SPEC_ENUM (p)->enum_class;
    if (g_rand_int_range (z->r, 0, 12) == 0) {
      g_value_set_enum (&s.v, ec->maximum + 1);
      bad = TRUE;
    } else {
      g_value_set_enum (&s.v,
          ec->values[g_rand_int_range (z->r, 0, ec->n_values)].value);
    }
  } else if (G_IS_PARAM_SPEC_FLAGS (p)) {
    GFlagsClass *fc = G_PARAM_SPEC_FLAGS (p)->flags_class;
    g_value_set_flags (&s.v, g_rand_int (z->r) & fc->mask);
  } else {
    g_value_unset (&s.v);
    return;
  }
  vs = g_strdup_value_contents (&s.v);
  if (g_getenv ("GPUFFT_FUZZ_VERBOSE"))
    g_print ("fuzz: seed %u: %s = %s%s\n", z->seed, p->name, vs,
        bad ? " (out of range)" : "");
  w = capture_g_warnings (set_prop, &s);
  /* GLib refuses a value outside the property's range, with a warning */
  if (bad)
    fail_unless (w[0] != '\0', "%s = %s: no warning", p->name, vs);
  if (!strcmp (p->name, "threshold")) {
    gint t;
    g_object_get (el, "threshold", &t, NULL);
    z->threshold_min = MIN (z->threshold_min, t);
  }
  g_free (w);
  g_free (vs);
  g_value_unset (&s.v);
}

/* ---- messages ------------------------------------------------------------ */

static void check_value (Fuzz * z, const gchar * field, const GValue * v,
    const gchar * what);

static void
check_number (Fuzz * z, const gchar * field, gdouble d, const gchar * what)
{
  fail_if (isnan (d), "%s: %s is NaN", what, field);
  if (!strcmp (field, "magnitude")) {
    /* gpuspectrum, as spectrum, adds the dB sums of an interval cut by a
     * DISCONT to the next message's and divides them by that message's
     * frame count: after a DISCONT a message may read below the threshold
     * (GPUFFT_FUZZ_SEED=13: -731 dB with threshold -60; the value itself is
     * checked against spectrum in test-gpuspectrum.c,
     * test_discont_carry_below_threshold) */
    gboolean floor = z->el != EL_SPECTRUM || !z->discont;

    fail_unless (isfinite (d) && (!floor || d >= z->threshold_min - 0.5)
        && d < 1000, "%s: magnitude %g (lowest threshold %d)", what, d,
        z->threshold_min);
  } else if (!strcmp (field, "phase")) {
    fail_unless (fabs (d) <= G_PI + 1e-3, "%s: phase %g", what, d);
  } else if (g_str_has_suffix (field, "loudness")
      || !strcmp (field, "relative-threshold")) {
    fail_unless ((isfinite (d) || (isinf (d) && d < 0)) && d < 1000,
        "%s: %s %g", what, field, d);
  } else if (!strcmp (field, "loudness-range")) {
    fail_unless (isfinite (d) && d >= 0, "%s: %s %g", what, field, d);
  } else if (g_str_has_suffix (field, "-peak")) {
    fail_unless (d >= 0, "%s: %s %g", what, field, d);
  }
}

static void
check_value (Fuzz * z, const gchar * field, const GValue * v,
    const gchar * what)
{
  if (G_VALUE_HOLDS_DOUBLE (v)) {
    check_number (z, field, g_value_get_double (v), what);
  } else if (G_VALUE_HOLDS_FLOAT (v)) {
    check_number (z, field, g_value_get_float (v), what);
  } else if (GST_VALUE_HOLDS_LIST (v) || GST_VALUE_HOLDS_ARRAY (v)) {
    guint i, n = GST_VALUE_HOLDS_LIST (v) ? gst_value_list_get_size (v) :
        gst_value_array_get_size (v);
    for (i = 0; i < n; i++)
      check_value (z, field, GST_VALUE_HOLDS_LIST (v) ?
          gst_value_list_get_value (v, i) : gst_value_array_get_value (v, i),
          what);
  } else if (G_VALUE_HOLDS (v, G_TYPE_BYTES)) {
    /* (message-format=bytes: float32, channel-major) */
    GBytes *b = g_value_get_boxed (v);
    gsize size, i;
    const gfloat *f = g_bytes_get_data (b, &size);

    fail_unless (size % sizeof (gfloat) == 0, "%s: %s of %" G_GSIZE_FORMAT
        " bytes", what, field, size);
    for (i = 0; i < size / sizeof (gfloat); i++) {
      gfloat x;
      memcpy (&x, f + i, sizeof x);
      check_number (z, field, x, what);
    }
  }
}

static gboolean
check_field (GQuark q, const GValue * v, gpointer data)
{
  Fuzz *z = data;

  check_value (z, g_quark_to_string (q), v, el_factory[z->el]);
  return TRUE;
}

static void
check_message (Fuzz * z, const GstStructure * s)
{
  guint64 ts, end;

  z->messages++;
  gst_structure_foreach (s, check_field, z);
  if (!gst_structure_get_uint64 (s, "timestamp", &ts))
    return;
  if (gst_structure_get_uint64 (s, "endtime", &end)
      && GST_CLOCK_TIME_IS_VALID (ts) && GST_CLOCK_TIME_IS_VALID (end))
    fail_unless (end >= ts, "endtime %" G_GUINT64_FORMAT " before timestamp %"
        G_GUINT64_FORMAT, end, ts);
  /* (per kind of message: a dominant-frequency message shares its
   * spectrum message's timestamp) */
  if (z->clean && GST_CLOCK_TIME_IS_VALID (ts)) {
    GstClockTime *last = gst_structure_has_name (s, "dominant-frequency") ?
        &z->last_dominant_ts : &z->last_ts;

    if (GST_CLOCK_TIME_IS_VALID (*last))
      fail_unless (ts > *last, "seed %u (%s): %s timestamp %" GST_TIME_FORMAT
          " after %" GST_TIME_FORMAT, z->seed, el_factory[z->el],
          gst_structure_get_name (s), GST_TIME_ARGS (ts),
          GST_TIME_ARGS (*last));
    *last = ts;
  }
}

/* Takes every queued message: no ERROR, every analysis message sane. */
static void
drain_bus (Fuzz * z, GstBus * bus)
{
  GstMessage *msg;

  while ((msg = gst_bus_pop (bus))) {
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
      GError *err = NULL;
      gchar *dbg = NULL;

      gst_message_parse_error (msg, &err, &dbg);
      /* a clear error for settings that do not go together (e.g. the
       * spectrogram's min-frequency above max-frequency) ends the seed */
      if (g_error_matches (err, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_SETTINGS)
          || g_error_matches (err, GST_RESOURCE_ERROR,
              GST_RESOURCE_ERROR_SETTINGS)) {
        g_print ("fuzz: seed %u: refused: %s\n", z->seed, GST_STR_NULL (dbg));
        z->refused = TRUE;
      } else {
        fail ("seed %u (%s): ERROR %s | %s", z->seed, el_factory[z->el],
            err->message, GST_STR_NULL (dbg));
      }
      g_error_free (err);
      g_free (dbg);
    } else if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ELEMENT) {
      const GstStructure *s = gst_message_get_structure (msg);

      if (gst_structure_has_name (s, "spectrum")
          || gst_structure_has_name (s, "ebur128-level")
          || gst_structure_has_name (s, "dominant-frequency"))
        check_message (z, s);
    }
    gst_message_unref (msg);
  }
}

/* The spectrogram's pictures: the negotiated size, PTS monotonic (clean). */
static void
pull_pictures (Fuzz * z, GstHarness * h)
{
  GstBuffer *b;

  while ((b = gst_harness_try_pull (h))) {
    z->pictures++;
    /* (pictures made before new video caps keep the old size) */
    fail_unless (gst_buffer_get_size (b) == (gsize) z->vw * z->vh * 4
        || gst_buffer_get_size (b) == (gsize) z->pvw * z->pvh * 4,
        "seed %u: a picture of %" G_GSIZE_FORMAT " bytes, %dx%d RGBA is %d",
        z->seed, gst_buffer_get_size (b), z->vw, z->vh, z->vw * z->vh * 4);
    if (z->clean && GST_BUFFER_PTS_IS_VALID (b)) {
      if (GST_CLOCK_TIME_IS_VALID (z->last_pic))
        fail_unless (GST_BUFFER_PTS (b) >= z->last_pic, "seed %u: picture at %"
            GST_TIME_FORMAT " after %" GST_TIME_FORMAT, z->seed,
            GST_TIME_ARGS (GST_BUFFER_PTS (b)), GST_TIME_ARGS (z->last_pic));
      z->last_pic = GST_BUFFER_PTS (b);
    }
    gst_buffer_unref (b);
  }
}

/* ---- buffers -------------------------------------------------------------- */


static void
random_samples (Fuzz * z, gdouble * x, gsize n)
{
  gsize i;
  gboolean ints = strcmp (z->f.format, "F32LE") && strcmp (z->f.format,
      "F64LE");
  guint kind = g_rand_int_range (z->r, 0, 4);

  for (i = 0; i < n; i++) {
    guint32 k = g_rand_int_range (z->r, 0, 1000);

    if (kind == 0)
      x[i] = 0.0;               /* digital silence */
    else
      x[i] = k == 0 ? NAN : k == 1 ? INFINITY : k == 2 ? -INFINITY :
          k == 3 ? 1e30 : k == 4 ? 1e-40 : g_rand_double_range (z->r, -1.0,
          1.0);
    if (ints && (!isfinite (x[i]) || fabs (x[i]) > 1.0))
      x[i] = 0.5;
  }
}

/* Pushes one random buffer (whole frames, or a size that is not) and
 * checks what comes out. */
static void
random_buffer (Fuzz * z, GstHarness * h)
{
  guint k = g_rand_int_range (z->r, 0, 100);
  gsize n, bpf, max_frames;
  gdouble *x;
  GstClockTime pts = z->next_pts;
  GstBuffer *in, *out;
  gboolean partial = FALSE;
  GstFlowReturn ret;

  {
    GstAudioInfo info;
    gchar *c = fmt_caps_string (&z->f);
    GstCaps *caps = gst_caps_from_string (c);

    gst_audio_info_from_caps (&info, caps);
    bpf = GST_AUDIO_INFO_BPF (&info);
    gst_caps_unref (caps);
    g_free (c);
  }
  /* (at most 64 Ki samples of all channels: 512 KiB of doubles) */
  max_frames = MAX (1, 65536 / z->f.channels);
  if (k < 8)
    n = 0;
  else if (k < 10)
    n = MIN (max_frames, (gsize) MIN (z->f.rate, 48000));       /* ~1 s */
  else if (k < 15)
    n = 1;
  else
    n = MIN (max_frames, (gsize) g_rand_int_range (z->r, 1, 4000));
  x = g_new (gdouble, MAX (n, 1) * z->f.channels);
  random_samples (z, x, n * z->f.channels);

  k = g_rand_int_range (z->r, 0, 100);
  if (k < 8)
    pts = GST_CLOCK_TIME_NONE;
  else if (k < 16)
    pts += g_rand_int_range (z->r, 0, 2000) * GST_MSECOND;
  else if (k < 18)
    pts += (guint64) g_rand_int_range (z->r, 1, 100000) * GST_SECOND;
  else if (k < 22 && GST_CLOCK_TIME_IS_VALID (pts))
    pts -= MIN (pts, (guint64) g_rand_int_range (z->r, 1, 2000) *
        GST_MSECOND);
  else if (k < 23)
    pts = G_MAXUINT64 - 1 - g_rand_int_range (z->r, 0, 1000) * GST_MSECOND;
  if (z->clean && (!GST_CLOCK_TIME_IS_VALID (pts) || pts < z->next_pts
          || pts > G_MAXUINT64 / 2))
    pts = z->next_pts;

  if (n == 0 && g_rand_boolean (z->r)) {
    /* a buffer of 1 byte, or of a size that is not whole frames */
    gsize size = g_rand_boolean (z->r) ? 1 :
        bpf * g_rand_int_range (z->r, 1, 50) + g_rand_int_range (z->r, 1,
        (gint) bpf + 1);
    partial = size % bpf != 0;
    in = gst_buffer_new_allocate (NULL, size, NULL);
    gst_buffer_memset (in, 0, 0x11, size);
    GST_BUFFER_PTS (in) = pts;
  } else {
    in = fmt_make_buffer (&z->f, x, n, pts);
  }
  k = g_rand_int_range (z->r, 0, 100);
  if (k < 7) {
    GST_BUFFER_FLAG_SET (in, GST_BUFFER_FLAG_DISCONT);
    z->discont = TRUE;
  }
  else if (k < 11)
    GST_BUFFER_FLAG_SET (in, GST_BUFFER_FLAG_GAP);
  else if (k < 14)
    GST_BUFFER_FLAG_SET (in, GST_BUFFER_FLAG_DROPPABLE);
  else if (k < 16)
    GST_BUFFER_FLAG_SET (in, GST_BUFFER_FLAG_RESYNC);
  if (g_rand_int_range (z->r, 0, 4) == 0 && GST_CLOCK_TIME_IS_VALID (pts))
    GST_BUFFER_DURATION (in) = gst_util_uint64_scale_int_round (n,
        GST_SECOND, z->f.rate);
  if (GST_CLOCK_TIME_IS_VALID (pts) && pts < G_MAXUINT64 / 2)
    z->next_pts = pts + gst_util_uint64_scale_int_round (n, GST_SECOND,
        z->f.rate);

  z->buffers++;
  if (z->el == EL_SPECTROGRAM) {
    ret = gst_harness_push (h, in);
    if (ret != GST_FLOW_OK)
      drain_bus (z, z->bus);
    if ((partial || z->refused) && ret != GST_FLOW_OK) {
      z->ended = TRUE;
    } else {
      fail_unless_equals_int (ret, GST_FLOW_OK);
    }
    pull_pictures (z, h);
    g_free (x);
    return;
  }

  {
    GstMapInfo a;
    guint8 *copy;
    gsize size;

    gst_buffer_map (in, &a, GST_MAP_READ);
    copy = g_memdup2 (a.data, a.size);
    size = a.size;
    gst_buffer_unmap (in, &a);
    gst_buffer_ref (in);
    ret = gst_harness_push (h, in);
    if (ret != GST_FLOW_OK)
      drain_bus (z, z->bus);
    if ((partial || z->refused) && ret != GST_FLOW_OK) {
      GST_INFO ("seed %u: a buffer of %" G_GSIZE_FORMAT " bytes (%"
          G_GSIZE_FORMAT " a frame): %s", z->seed, size, bpf,
          gst_flow_get_name (ret));
      z->ended = TRUE;
    } else {
      fail_unless_equals_int (ret, GST_FLOW_OK);
      out = gst_harness_pull (h);
      /* the analysers pass the buffer itself; gpuloudness may pass
       * another buffer with the same bytes (seed 7: a DISCONT or GAP
       * buffer), and a GAP buffer may be replaced by any element */
      fail_unless (out == in || z->el == EL_LOUDNESS
          || GST_BUFFER_FLAG_IS_SET (in, GST_BUFFER_FLAG_GAP),
          "seed %u (%s): a buffer of %" G_GSIZE_FORMAT " bytes, flags 0x%x, "
          "came out as another of %" G_GSIZE_FORMAT " bytes", z->seed,
          el_factory[z->el], size, GST_BUFFER_FLAGS (in),
          out ? gst_buffer_get_size (out) : 0);
      gst_buffer_map (out, &a, GST_MAP_READ);
      fail_unless_equals_int (a.size, size);
      fail_unless (size == 0 || memcmp (a.data, copy, size) == 0,
          "seed %u (%s): a buffer of %" G_GSIZE_FORMAT " bytes, flags 0x%x, "
          "changed", z->seed, el_factory[z->el], size, GST_BUFFER_FLAGS (in));
      gst_buffer_unmap (out, &a);
      gst_buffer_unref (out);
    }
    gst_buffer_unref (in);
    g_free (copy);
  }
  g_free (x);
}

/* ---- events --------------------------------------------------------------- */

static void
push_segment (Fuzz * z, GstHarness * h, gboolean random)
{
  GstSegment seg;

  gst_segment_init (&seg, GST_FORMAT_TIME);
  if (random) {
    guint k = g_rand_int_range (z->r, 0, 6);

    seg.start = seg.time = GST_CLOCK_TIME_IS_VALID (z->next_pts) ?
        z->next_pts : 0;
    if (k == 0)
      seg.rate = g_rand_boolean (z->r) ? 2.0 : 0.5;
    else if (k == 1)
      seg.applied_rate = 2.0;
    else if (k == 2)
      seg.base = (guint64) g_rand_int_range (z->r, 0, 100000) * GST_SECOND;
    else if (k == 3)
      seg.stop = seg.start + g_rand_int_range (z->r, 0, 2000) * GST_MSECOND;
    else if (k == 4)
      seg.start = seg.time = 0;
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&seg)));
}

static void
flush (Fuzz * z, GstHarness * h)
{
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  push_segment (z, h, FALSE);
  z->next_pts = 0;
  z->ended = FALSE;
}

static void
fuzz_one (guint32 seed, El el)
{
  Fuzz z = { 0 };
  GstBus *bus;
  GstHarness *h;
  gchar *caps;
  guint step, steps;

  z.r = g_rand_new_with_seed (seed);
  z.seed = seed;
  z.el = el;
  z.threshold_min = G_MAXINT;
  z.clean = g_rand_int_range (z.r, 0, 3) == 0;
  z.last_ts = z.last_dominant_ts = z.last_pic = GST_CLOCK_TIME_NONE;
  random_caps (&z);
  caps = fmt_caps_string (&z.f);
  g_print ("fuzz: seed %u %s%s\n", seed, el_factory[el],
      z.clean ? " (clean)" : "");
  if (el == EL_SPECTROGRAM) {
    h = harness_new_element (el_factory[el], &bus, NULL, NULL, NULL);
    gst_harness_set_live (h, FALSE);
    random_video_caps (&z, h);
    gst_harness_set_src_caps_str (h, caps);
  } else {
    h = harness_new_element (el_factory[el], &bus, caps, NULL, NULL);
  }
  g_free (caps);
  z.bus = bus;
  if (g_object_class_find_property (G_OBJECT_GET_CLASS (h->element),
          "threshold"))
    g_object_get (h->element, "threshold", &z.threshold_min, NULL);
  random_property (&z, h->element);
  random_property (&z, h->element);
  steps = g_rand_int_range (z.r, 20, 80);
  for (step = 0; step < steps; step++) {
    guint32 what = g_rand_int_range (z.r, 0, 100);

    if (z.refused)
      break;
    if (z.ended) {
      /* a refused buffer ended the stream: a flush starts it again */
      if (z.clean)
        break;
      flush (&z, h);
    }
    if (what < 65) {
      random_buffer (&z, h);
    } else if (what < 75) {
      random_property (&z, h->element);
    } else if (what < 77) {
      read_properties (h->element);
    } else if (what < 81) {
      GstClockTime dur = g_rand_boolean (z.r) ? GST_CLOCK_TIME_NONE :
          (guint64) g_rand_int_range (z.r, 0, 500) * GST_MSECOND;

      gboolean ok = gst_harness_push_event (h, gst_event_new_gap (z.next_pts,
              dur));

      /* a GAP may be refused only with the settings refused (the
       * spectrogram analyses silence for it: GPUFFT_FUZZ_SEED=6) */
      if (!ok)
        drain_bus (&z, bus);
      fail_unless (ok || z.refused, "seed %u: a GAP event refused", seed);
      if (GST_CLOCK_TIME_IS_VALID (dur))
        z.next_pts += dur;
    } else if (z.clean) {
      random_buffer (&z, h);
    } else if (what < 85) {
      flush (&z, h);
    } else if (what < 89) {
      push_segment (&z, h, TRUE);
    } else if (what < 92) {
      /* EOS mid-stream, then a flush to go on */
      fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
      drain_bus (&z, bus);
      flush (&z, h);
    } else if (what < 97) {
      random_caps (&z);
      set_caps (&z, h);
    } else if (el == EL_SPECTROGRAM) {
      random_video_caps (&z, h);
    } else {
      random_caps (&z);
      set_caps (&z, h);
    }
    if (el == EL_SPECTROGRAM)
      pull_pictures (&z, h);
    drain_bus (&z, bus);
    if (g_getenv ("GPUFFT_FUZZ_VERBOSE"))
      g_print ("fuzz: seed %u: step %u (%u) at %.3f s, %s %d Hz %d ch\n",
          seed, step, what, g_get_monotonic_time () / 1e6, z.f.format,
          z.f.rate, z.f.channels);
  }
  if (!z.ended && !z.refused)
    fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  if (el == EL_SPECTROGRAM)
    pull_pictures (&z, h);
  drain_bus (&z, bus);
  harness_free (h, bus);
  g_print ("fuzz: seed %u %s: %u buffers, %u messages, %u pictures\n", seed,
      el_factory[el], z.buffers, z.messages, z.pictures);
  g_free (z.format);
  g_rand_free (z.r);
}

static El
element_for_seed (guint32 seed)
{
  const gchar *only = g_getenv ("GPUFFT_FUZZ_ELEMENT");
  guint i;

  if (only && *only) {
    for (i = 0; i < N_EL; i++)
      if (!strcmp (only, el_factory[i]))
        return i;
    fail ("GPUFFT_FUZZ_ELEMENT=%s: one of gpufftspectrum, gpuspectrum, "
        "gpufftspectrogram, gpuloudness", only);
  }
  return seed % N_EL;
}

GST_START_TEST (test_fuzz)
{
  const gchar *seed_env = g_getenv ("GPUFFT_FUZZ_SEED");
  const gchar *secs_env = g_getenv ("GPUFFT_FUZZ_SECONDS");
  const gchar *first_env = g_getenv ("GPUFFT_FUZZ_FIRST_SEED");
  gdouble secs = secs_env ? g_ascii_strtod (secs_env, NULL) : 4.0;
  gint64 start = g_get_monotonic_time ();
  gint64 until = start + (gint64) (secs * 1e6);
  guint32 first = first_env ? (guint32) g_ascii_strtoull (first_env, NULL,
      10) : 1;
  guint32 seed;
  guint runs = 0;

  if (seed_env) {
    seed = (guint32) g_ascii_strtoull (seed_env, NULL, 10);
    fuzz_one (seed, element_for_seed (seed));
    return;
  }
  for (seed = first; runs == 0 || g_get_monotonic_time () < until; seed++) {
    fuzz_one (seed, element_for_seed (seed));
    runs++;
  }
  g_print ("fuzz: %u seeds (%u..%u) in %.0f s\n", runs, first,
      first + runs - 1, (g_get_monotonic_time () - start) / 1e6);
}

GST_END_TEST;

/* Seeds that once found a bug, replayed every run, with their element:
 * 2 a memcpy from NULL in gpufftspectrogram's render (UBSan), 3 an
 * unreadable planar buffer and huge samples in gpuloudness, 6 a GAP under
 * refused settings, 10 an unreadable planar buffer in gpufftspectrogram,
 * 13 gpuspectrum's message after a DISCONT. */
static const struct
{
  guint32 seed;
  guint el;
} known_seeds[] = {
  {2, EL_SPECTROGRAM}, {3, EL_LOUDNESS}, {6, EL_SPECTROGRAM},
  {10, EL_SPECTROGRAM}, {13, EL_SPECTRUM}, {105, EL_LOUDNESS}
};

GST_START_TEST (test_known_seeds)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (known_seeds); i++)
    fuzz_one (known_seeds[i].seed, known_seeds[i].el);
}

GST_END_TEST;

static Suite *
fuzz_suite (void)
{
  Suite *s = suite_create ("gpufft-fuzz");
  TCase *tc = tcase_create ("fuzz");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_known_seeds);
  tcase_add_test (tc, test_fuzz);
  return s;
}

GST_CHECK_MAIN (fuzz);
