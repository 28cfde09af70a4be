/* gpufft-watch: one stream's pipeline, values and restarts
 * (watch-stream.h). */
#include "watch-stream.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define ANALYSIS_INTERVAL_NS (GST_SECOND)
#define START_GRACE_S 30.0
#define BACKOFF_FIRST_S 1.0
#define BACKOFF_RESET_S 10.0

typedef enum
{
  STATE_IDLE,                   /* not started, or waiting for its backoff */
  STATE_RUNNING,
  STATE_STOPPING                /* the last pipeline is being stopped */
} StreamState;

struct _WatchStream
{
  WatchStreamConfig *config;
  gint device_index;
  guint fft_size;
  gdouble restart_max_s;

  /* main thread */
  GstElement *pipeline;
  GThread *starter;             /* playing the pipeline; joined by its stop */
  GstElement *testsrc;
  guint bus_watch;
  StreamState state;
  gboolean released;
  gboolean started_once;
  gdouble backoff_s;
  /* times: g_get_monotonic_time () */
  gint64 start_us;              /* when the pipeline started */
  gint64 next_start_us;         /* IDLE: when to start again; 0: at once */
  gint64 test_start_us;
  gint test_on;                 /* -1 unknown */
  guint64 restarts;

  /* under lock: written by the posting threads */
  GMutex lock;
  gint64 last_audio_us;         /* through the analysers; 0 never */
  gint64 first_audio_us;        /* of this pipeline; 0 none yet */
  guint channels;
  gdouble momentary, shortterm, integrated, lra, true_peak;
  gdouble peak[WATCH_MAX_CHANNELS], rms[WATCH_MAX_CHANNELS];
  guint n_bands;
  gdouble band_hz[WATCH_MAX_BANDS], band_db[WATCH_MAX_BANDS];
  gdouble dominant;
};

static gint stopping_count;

/* plays a pipeline (a thread of its own: a source's open may wait on
 * its server, pulsesrc up to 30 s, and must hold nothing else); the
 * pipeline's stop joins this thread first, so NULL always comes after */
static gpointer
start_thread (gpointer data)
{
  GstElement *pipeline = data;

  /* a failure posts its error on the bus, where the watch restarts */
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  gst_object_unref (pipeline);
  return NULL;
}

static void
log_stream (WatchStream * s, const gchar * what)
{
  GDateTime *now = g_date_time_new_now_utc ();
  gchar *t = g_date_time_format_iso8601 (now);
  gchar *line = g_strdup_printf ("%s gpufft-watch: stream '%s': %s\n", t,
      s->config->name, what);

  /* (UTF-8 whatever the locale, one write: as the service's log_line) */
  fputs (line, stderr);
  g_date_time_unref (now);
  g_free (line);
  g_free (t);
}

static WatchStream *
stream_ref (WatchStream * s)
{
  return g_atomic_rc_box_acquire (s);
}

static void
stream_clear (gpointer p)
{
  WatchStream *s = p;

  watch_stream_config_free (s->config);
  g_mutex_clear (&s->lock);
}

static void
stream_unref (gpointer s)
{
  g_atomic_rc_box_release_full (s, stream_clear);
}

static void
reset_values (WatchStream * s)
{
  guint i;

  s->channels = 0;
  s->momentary = s->shortterm = s->integrated = s->lra = s->true_peak = NAN;
  for (i = 0; i < WATCH_MAX_CHANNELS; i++)
    s->peak[i] = s->rms[i] = NAN;
  s->n_bands = 0;
  s->dominant = NAN;
  s->first_audio_us = 0;
}

WatchStream *
watch_stream_new (const WatchStreamConfig * config, gint device_index,
    guint fft_size, gdouble restart_max_s)
{
  WatchStream *s = g_atomic_rc_box_new0 (WatchStream);

  s->config = watch_stream_config_copy (config);
  s->device_index = device_index;
  s->fft_size = fft_size;
  s->restart_max_s = restart_max_s;
  s->backoff_s = BACKOFF_FIRST_S;
  s->test_on = -1;
  g_mutex_init (&s->lock);
  reset_values (s);
  return s;
}

const gchar *
watch_stream_name (WatchStream * s)
{
  return s->config->name;
}

const WatchStreamConfig *
watch_stream_config (WatchStream * s)
{
  return s->config;
}

guint
watch_stream_stopping (void)
{
  return (guint) g_atomic_int_get (&stopping_count);
}

/* ---- messages (posting threads) ---- */

static gdouble
lin_to_db (gdouble v)
{
  return v > 0 ? 20.0 * log10 (v) : -INFINITY;
}

static gdouble
array_max (const GValue * v)
{
  gdouble m = NAN;
  guint i, n;

  if (v == NULL || !GST_VALUE_HOLDS_ARRAY (v))
    return NAN;
  n = gst_value_array_get_size (v);
  for (i = 0; i < n; i++) {
    const GValue *e = gst_value_array_get_value (v, i);
    if (G_VALUE_HOLDS_DOUBLE (e) && (isnan (m) || g_value_get_double (e) > m))
      m = g_value_get_double (e);
  }
  return m;
}

static void
read_loudness (WatchStream * s, const GstStructure * st)
{
  gdouble m = NAN, sh = NAN, i = NAN, lra = NAN, tp;

  gst_structure_get_double (st, "momentary-loudness", &m);
  gst_structure_get_double (st, "shortterm-loudness", &sh);
  gst_structure_get_double (st, "global-loudness", &i);
  gst_structure_get_double (st, "loudness-range", &lra);
  tp = array_max (gst_structure_get_value (st, "true-peak"));
  g_mutex_lock (&s->lock);
  s->momentary = m;
  s->shortterm = sh;
  s->integrated = i;
  s->lra = lra;
  s->true_peak = isnan (tp) ? NAN : lin_to_db (tp);
  g_mutex_unlock (&s->lock);
}

static void
read_spectrum (WatchStream * s, const GstStructure * st)
{
  const GValue *mag = gst_structure_get_value (st, "magnitude");
  const GValue *nom = gst_structure_get_value (st, "band-nominal");
  gdouble hz[WATCH_MAX_BANDS], db[WATCH_MAX_BANDS];
  GBytes *bytes;
  gsize size = 0;
  const gfloat *f;
  guint n, i;

  if (mag == NULL || nom == NULL || !G_VALUE_HOLDS (mag, G_TYPE_BYTES)
      || !GST_VALUE_HOLDS_ARRAY (nom))
    return;
  bytes = g_value_get_boxed (mag);
  f = g_bytes_get_data (bytes, &size);
  n = MIN (gst_value_array_get_size (nom), size / sizeof (gfloat));
  n = MIN (n, WATCH_MAX_BANDS);
  for (i = 0; i < n; i++) {
    const GValue *e = gst_value_array_get_value (nom, i);
    hz[i] = G_VALUE_HOLDS_DOUBLE (e) ? g_value_get_double (e) : NAN;
    db[i] = GFLOAT_FROM_LE (f[i]);
  }
  g_mutex_lock (&s->lock);
  s->n_bands = n;
  memcpy (s->band_hz, hz, n * sizeof (gdouble));
  memcpy (s->band_db, db, n * sizeof (gdouble));
  g_mutex_unlock (&s->lock);
}

static void
read_dominant (WatchStream * s, const GstStructure * st)
{
  gdouble f;

  if (!gst_structure_get_double (st, "frequency", &f))
    return;
  g_mutex_lock (&s->lock);
  s->dominant = f;
  g_mutex_unlock (&s->lock);
}

static guint
read_db_array (const GstStructure * st, const gchar * field, gdouble * out)
{
  const GValue *v = gst_structure_get_value (st, field);
  GValueArray *arr;
  guint i, n;

  G_GNUC_BEGIN_IGNORE_DEPRECATIONS;
  if (v == NULL || !G_VALUE_HOLDS (v, g_value_array_get_type ()))
    return 0;
  arr = g_value_get_boxed (v);
  n = MIN (arr->n_values, WATCH_MAX_CHANNELS);
  for (i = 0; i < n; i++)
    out[i] = g_value_get_double (g_value_array_get_nth (arr, i));
  G_GNUC_END_IGNORE_DEPRECATIONS;
  return n;
}

static void
read_level (WatchStream * s, const GstStructure * st)
{
  gdouble peak[WATCH_MAX_CHANNELS], rms[WATCH_MAX_CHANNELS];
  guint np = read_db_array (st, "peak", peak);
  guint nr = read_db_array (st, "rms", rms);
  guint n = MIN (np, nr);

  g_mutex_lock (&s->lock);
  s->channels = n;
  memcpy (s->peak, peak, n * sizeof (gdouble));
  memcpy (s->rms, rms, n * sizeof (gdouble));
  g_mutex_unlock (&s->lock);
}

static GstBusSyncReply
sync_handler (GstBus * bus, GstMessage * msg, gpointer data)
{
  WatchStream *s = data;
  const GstStructure *st;

  if (GST_MESSAGE_TYPE (msg) != GST_MESSAGE_ELEMENT)
    return GST_BUS_PASS;
  st = gst_message_get_structure (msg);
  if (gst_structure_has_name (st, "ebur128-level"))
    read_loudness (s, st);
  else if (gst_structure_has_name (st, "spectrum"))
    read_spectrum (s, st);
  else if (gst_structure_has_name (st, "dominant-frequency"))
    read_dominant (s, st);
  else if (gst_structure_has_name (st, "level"))
    read_level (s, st);
  else
    return GST_BUS_PASS;
  gst_message_unref (msg);
  return GST_BUS_DROP;
}

static GstPadProbeReturn
audio_probe (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  WatchStream *s = data;
  gint64 now = g_get_monotonic_time ();

  g_mutex_lock (&s->lock);
  s->last_audio_us = now;
  if (s->first_audio_us == 0)
    s->first_audio_us = now;
  g_mutex_unlock (&s->lock);
  return GST_PAD_PROBE_OK;
}

/* ---- the pipeline (main thread) ---- */

static gboolean
stop_done (gpointer data)
{
  WatchStream *s = data;

  g_atomic_int_dec_and_test (&stopping_count);
  if (s->state == STATE_STOPPING)
    s->state = STATE_IDLE;
  return G_SOURCE_REMOVE;
}

static gpointer
stop_thread (gpointer data)
{
  GstElement *pipeline = data;
  WatchStream *s = g_object_get_data (G_OBJECT (pipeline), "watch-stream");
  GThread *starter = g_object_steal_data (G_OBJECT (pipeline),
      "watch-starter");

  if (starter != NULL)
    g_thread_join (starter);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
  g_idle_add_full (G_PRIORITY_DEFAULT, stop_done, s, stream_unref);
  return NULL;
}

/* ends the running pipeline; the next start waits for @backoff (or for
 * nothing with FALSE) */
static void
stop_pipeline (WatchStream * s, gboolean backoff)
{
  GThread *t;
  GstBus *bus;

  if (s->pipeline == NULL)
    return;
  if (s->bus_watch != 0) {
    g_source_remove (s->bus_watch);
    s->bus_watch = 0;
  }
  bus = gst_element_get_bus (s->pipeline);
  gst_bus_set_flushing (bus, TRUE);
  gst_object_unref (bus);
  g_object_set_data_full (G_OBJECT (s->pipeline), "watch-stream",
      stream_ref (s), NULL);
  g_object_set_data (G_OBJECT (s->pipeline), "watch-starter", s->starter);
  s->starter = NULL;
  s->state = STATE_STOPPING;
  g_atomic_int_inc (&stopping_count);
  t = g_thread_try_new ("watch-stop", stop_thread, s->pipeline, NULL);
  if (t != NULL)
    g_thread_unref (t);
  else
    stop_thread (s->pipeline);  /* (no thread to be had: here) */
  s->pipeline = NULL;
  s->testsrc = NULL;
  g_mutex_lock (&s->lock);
  reset_values (s);
  g_mutex_unlock (&s->lock);
  if (backoff) {
    s->next_start_us = g_get_monotonic_time () +
        (gint64) (s->backoff_s * 1e6);
    s->backoff_s = MIN (s->backoff_s * 2, s->restart_max_s);
  } else {
    s->next_start_us = 0;
  }
}

static void
fail_and_restart (WatchStream * s, const gchar * why)
{
  gchar *text = g_strdup_printf ("%s; restarting in %.0f s", why,
      s->backoff_s);

  log_stream (s, text);
  g_free (text);
  stop_pipeline (s, TRUE);
}

static gboolean
bus_watch (GstBus * bus, GstMessage * msg, gpointer data)
{
  WatchStream *s = data;
  GError *err = NULL;
  gchar *dbg = NULL, *text;

  switch (GST_MESSAGE_TYPE (msg)) {
    case GST_MESSAGE_ERROR:
      gst_message_parse_error (msg, &err, &dbg);
      text = g_strdup_printf ("error from %s: %s",
          GST_OBJECT_NAME (GST_MESSAGE_SRC (msg)), err->message);
      g_error_free (err);
      g_free (dbg);
      s->bus_watch = 0;
      fail_and_restart (s, text);
      g_free (text);
      return G_SOURCE_REMOVE;
    case GST_MESSAGE_EOS:
      s->bus_watch = 0;
      fail_and_restart (s, "end of stream");
      return G_SOURCE_REMOVE;
    case GST_MESSAGE_WARNING:
      gst_message_parse_warning (msg, &err, &dbg);
      text = g_strdup_printf ("warning from %s: %s",
          GST_OBJECT_NAME (GST_MESSAGE_SRC (msg)), err->message);
      log_stream (s, text);
      g_free (text);
      g_error_free (err);
      g_free (dbg);
      break;
    default:
      break;
  }
  return G_SOURCE_CONTINUE;
}

static GstElement *
make (const gchar * factory, GError ** error)
{
  GstElement *e = gst_element_factory_make (factory, NULL);

  if (e == NULL)
    g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_MISSING_PLUGIN,
        "the element '%s' is not installed", factory);
  return e;
}

static void
decodebin_pad_added (GstElement * dec, GstPad * pad, gpointer data)
{
  GstElement *convert = data;
  GstPad *sink = gst_element_get_static_pad (convert, "sink");
  GstCaps *caps = gst_pad_get_current_caps (pad);

  if (caps == NULL)
    caps = gst_pad_query_caps (pad, NULL);
  if (!gst_pad_is_linked (sink) && caps != NULL
      && g_str_has_prefix (gst_structure_get_name (gst_caps_get_structure
              (caps, 0)), "audio/"))
    gst_pad_link (pad, sink);
  if (caps != NULL)
    gst_caps_unref (caps);
  gst_object_unref (sink);
}

/* adds the source part to @bin; returns the element to link from, or
 * NULL with uridecodebin (linked on pad-added to @convert) */
static gboolean
add_source (WatchStream * s, GstBin * bin, GstElement * convert,
    GstElement ** last, GError ** error)
{
  const WatchStreamConfig *c = s->config;
  GstElement *src, *e;
  GstCaps *caps;

  *last = NULL;
  switch (c->kind) {
    case WATCH_SOURCE_URI:
      if ((src = make ("uridecodebin", error)) == NULL)
        return FALSE;
      g_object_set (src, "uri", c->location, NULL);
      gst_bin_add (bin, src);
      g_signal_connect (src, "pad-added", G_CALLBACK (decodebin_pad_added),
          convert);
      return TRUE;
    case WATCH_SOURCE_RTP:{
      static const gchar *const names[] = { "L16", "L24", "OPUS" };
      static const gchar *const depays[] =
          { "rtpL16depay", "rtpL24depay", "rtpopusdepay" };
      GstElement *jb, *depay;

      if ((src = make ("udpsrc", error)) == NULL
          || (jb = make ("rtpjitterbuffer", error)) == NULL
          || (depay = make (depays[c->rtp_encoding], error)) == NULL)
        return FALSE;
      caps = gst_caps_new_simple ("application/x-rtp",
          "media", G_TYPE_STRING, "audio",
          "clock-rate", G_TYPE_INT, (gint) c->rate,
          "encoding-name", G_TYPE_STRING, names[c->rtp_encoding],
          "payload", G_TYPE_INT, (gint) c->rtp_payload, NULL);
      if (c->rtp_encoding != WATCH_RTP_OPUS)
        gst_caps_set_simple (caps, "channels", G_TYPE_INT, (gint) c->channels,
            NULL);
      g_object_set (src, "address", c->location, "port", (gint) c->port,
          "caps", caps, NULL);
      gst_caps_unref (caps);
      g_object_set (jb, "latency", c->rtp_latency_ms, NULL);
      gst_bin_add_many (bin, src, jb, depay, NULL);
      if (!gst_element_link_many (src, jb, depay, NULL))
        goto link_failed;
      *last = depay;
      if (c->rtp_encoding == WATCH_RTP_OPUS) {
        if ((e = make ("opusdec", error)) == NULL)
          return FALSE;
        gst_bin_add (bin, e);
        if (!gst_element_link (depay, e))
          goto link_failed;
        *last = e;
      }
      return TRUE;
    }
    case WATCH_SOURCE_PULSE:
    case WATCH_SOURCE_ALSA:
      src = make (c->kind == WATCH_SOURCE_PULSE ? "pulsesrc" : "alsasrc",
          error);
      if (src == NULL)
        return FALSE;
      if (c->location[0] != '\0')
        g_object_set (src, "device", c->location, NULL);
      gst_bin_add (bin, src);
      *last = src;
      return TRUE;
    case WATCH_SOURCE_TEST:
      if ((src = make ("audiotestsrc", error)) == NULL
          || (e = make ("capsfilter", error)) == NULL)
        return FALSE;
      gst_util_set_object_arg (G_OBJECT (src), "wave", c->test_wave);
      g_object_set (src, "is-live", TRUE, "freq", c->test_freq_hz,
          "volume", pow (10.0, c->test_level_dbfs / 20.0),
          "samplesperbuffer", (gint) MAX (c->rate / 100, 1), NULL);
      caps = gst_caps_new_simple ("audio/x-raw", "format", G_TYPE_STRING,
          "F32LE", "rate", G_TYPE_INT, (gint) c->rate, "channels",
          G_TYPE_INT, (gint) c->channels, "layout", G_TYPE_STRING,
          "interleaved", NULL);
      g_object_set (e, "caps", caps, NULL);
      gst_caps_unref (caps);
      gst_bin_add_many (bin, src, e, NULL);
      if (!gst_element_link (src, e))
        goto link_failed;
      s->testsrc = src;
      s->test_on = -1;
      *last = e;
      return TRUE;
  }
link_failed:
  g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
      "the source's elements do not link");
  return FALSE;
}

static GstElement *
build (WatchStream * s, GError ** error)
{
  GstElement *pipeline = gst_pipeline_new (s->config->name);
  GstElement *convert, *filter, *loud, *spec, *level, *sink, *last;
  GstCaps *caps;
  GstPad *pad;
  GstBus *bus;

  if ((convert = make ("audioconvert", error)) == NULL
      || (filter = make ("capsfilter", error)) == NULL
      || (loud = make ("gpuloudness", error)) == NULL
      || (spec = make ("gpufftspectrum", error)) == NULL
      || (level = make ("level", error)) == NULL
      || (sink = make ("fakesink", error)) == NULL)
    goto fail;
  caps = gst_caps_new_simple ("audio/x-raw", "format", G_TYPE_STRING,
      "F32LE", "layout", G_TYPE_STRING, "interleaved", NULL);
  g_object_set (filter, "caps", caps, NULL);
  gst_caps_unref (caps);
  g_object_set (loud, "interval", (guint64) ANALYSIS_INTERVAL_NS,
      "device-index", s->device_index, NULL);
  g_object_set (spec, "interval", (guint64) ANALYSIS_INTERVAL_NS,
      "fft-size", s->fft_size, "device-index", s->device_index,
      "multi-channel", FALSE, "octave-fraction", 3, NULL);
  gst_util_set_object_arg (G_OBJECT (spec), "frequency-scale", "octave");
  gst_util_set_object_arg (G_OBJECT (spec), "message-format", "bytes");
  g_object_set (level, "interval", (guint64) ANALYSIS_INTERVAL_NS,
      "post-messages", TRUE, NULL);
  g_object_set (sink, "sync", TRUE, "async", FALSE, NULL);
  gst_bin_add_many (GST_BIN (pipeline), convert, filter, loud, spec, level,
      sink, NULL);
  if (!gst_element_link_many (convert, filter, loud, spec, level, sink, NULL)) {
    g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
        "the analysis elements do not link");
    goto fail;
  }
  if (!add_source (s, GST_BIN (pipeline), convert, &last, error))
    goto fail;
  if (last != NULL && !gst_element_link (last, convert)) {
    g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
        "the source does not link to audioconvert");
    goto fail;
  }
  pad = gst_element_get_static_pad (sink, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER |
      GST_PAD_PROBE_TYPE_BUFFER_LIST, audio_probe, stream_ref (s),
      stream_unref);
  gst_object_unref (pad);
  bus = gst_element_get_bus (pipeline);
  gst_bus_set_sync_handler (bus, sync_handler, stream_ref (s), stream_unref);
  s->bus_watch = gst_bus_add_watch_full (bus, G_PRIORITY_DEFAULT, bus_watch,
      s, NULL);
  gst_object_unref (bus);
  return pipeline;
fail:
  gst_object_unref (pipeline);
  return NULL;
}

void
watch_stream_start (WatchStream * s)
{
  GError *err = NULL;
  gint64 now = g_get_monotonic_time ();
  gchar *text;

  if (s->pipeline != NULL || s->released || s->state == STATE_STOPPING)
    return;
  if (s->started_once)
    s->restarts++;
  s->started_once = TRUE;
  s->start_us = now;
  g_mutex_lock (&s->lock);
  reset_values (s);
  g_mutex_unlock (&s->lock);
  s->pipeline = build (s, &err);
  if (s->pipeline == NULL) {
    text = g_strdup_printf ("cannot build its pipeline: %s; trying again in"
        " %.0f s", err->message, s->backoff_s);
    log_stream (s, text);
    g_free (text);
    g_error_free (err);
    s->state = STATE_IDLE;
    s->next_start_us = now + (gint64) (s->backoff_s * 1e6);
    s->backoff_s = MIN (s->backoff_s * 2, s->restart_max_s);
    return;
  }
  s->state = STATE_RUNNING;
  s->test_start_us = now;
  s->starter = g_thread_try_new ("watch-start", start_thread,
      gst_object_ref (s->pipeline), NULL);
  /* (no thread to be had: here) */
  if (s->starter == NULL)
    start_thread (s->pipeline);
}

void
watch_stream_tick (WatchStream * s, gint64 now_us)
{
  const WatchStreamConfig *c = s->config;
  gint64 last, first;

  if (s->released)
    return;
  if (s->state == STATE_IDLE) {
    if (now_us >= s->next_start_us)
      watch_stream_start (s);
    return;
  }
  if (s->state != STATE_RUNNING)
    return;
  g_mutex_lock (&s->lock);
  last = s->last_audio_us;
  first = s->first_audio_us;
  g_mutex_unlock (&s->lock);
  if (first == 0 ? (gdouble) (now_us - s->start_us) >=
      MAX (c->alarms.down_hold_s, START_GRACE_S) * 1e6 :
      (gdouble) (now_us - last) >= c->alarms.down_hold_s * 1e6) {
    gchar *why = g_strdup_printf ("no audio for %.1f s",
        (now_us - MAX (last, s->start_us)) / 1e6);
    fail_and_restart (s, why);
    g_free (why);
    return;
  }
  if (first != 0 && (gdouble) (now_us - first) >= BACKOFF_RESET_S * 1e6)
    s->backoff_s = BACKOFF_FIRST_S;
  if (s->testsrc != NULL && c->test_off_s > 0) {
    gdouble t = (now_us - s->test_start_us) / 1e6;
    gint on = fmod (t, c->test_on_s + c->test_off_s) < c->test_on_s;

    if (on != s->test_on) {
      s->test_on = on;
      g_object_set (s->testsrc, "volume",
          on ? pow (10.0, c->test_level_dbfs / 20.0) : 0.0, NULL);
    }
  }
}

void
watch_stream_read (WatchStream * s, gint64 wall_us, gint64 mono_us,
    WatchReading * r)
{
  memset (r, 0, sizeof (*r));
  r->stream = g_strdup (s->config->name);
  r->wall_us = wall_us;
  r->mono_us = mono_us;
  r->restarts = s->restarts;
  g_mutex_lock (&s->lock);
  r->up = s->last_audio_us != 0 && (gdouble) (mono_us - s->last_audio_us) <
      s->config->alarms.down_hold_s * 1e6;
  r->momentary_lufs = s->momentary;
  r->shortterm_lufs = s->shortterm;
  r->integrated_lufs = s->integrated;
  r->lra_lu = s->lra;
  r->true_peak_dbtp = s->true_peak;
  r->channels = r->up ? s->channels : 0;
  memcpy (r->sample_peak_dbfs, s->peak, sizeof (s->peak));
  memcpy (r->rms_dbfs, s->rms, sizeof (s->rms));
  r->n_bands = s->n_bands;
  memcpy (r->band_hz, s->band_hz, sizeof (s->band_hz));
  memcpy (r->band_db, s->band_db, sizeof (s->band_db));
  r->dominant_hz = s->dominant;
  g_mutex_unlock (&s->lock);
  if (!r->up) {
    r->momentary_lufs = r->shortterm_lufs = r->integrated_lufs = NAN;
    r->lra_lu = r->true_peak_dbtp = r->dominant_hz = NAN;
    r->n_bands = 0;
  }
}

void
watch_stream_release (WatchStream * s)
{
  s->released = TRUE;
  stop_pipeline (s, FALSE);
  stream_unref (s);
}
