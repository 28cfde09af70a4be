/* gpufft-watch: a monitoring service measuring many audio streams'
 * loudness, levels and spectra with the gpufft elements, raising alarms
 * and serving Prometheus metrics.
 *
 * This file holds the options, the main loop, the signals and the
 * service's table of streams. Everything runs on the main thread but the
 * analysis (the streams' pipelines) and the stopping of pipelines
 * (watch-stream.h). Once a second every stream's reading is taken,
 * its alarms stepped (watch-alarm.h), and the reading, its events and a
 * snapshot for the HTTP endpoints kept (watch-metrics.h).
 *
 * Exit status: 0 after SIGTERM or SIGINT (or --check on a good file),
 * 1 when the service cannot run (the port in use, an element missing),
 * 2 for a bad command line or configuration. */
#include <gst/gst.h>
#include <glib-unix.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "watch-alarm.h"
#include "watch-config.h"
#include "watch-events.h"
#include "watch-http.h"
#include "watch-log.h"
#include "watch-metrics.h"
#include "watch-mqtt.h"
#include "watch-reading.h"
#include "watch-shard.h"
#include "watch-stream.h"

#define EXIT_RUNTIME 1
#define EXIT_USAGE 2
#define TICK_MS 250
#define STOP_DEADLINE_S 5
/* the largest body an endpoint builds (about 4096 streams of 2 channels) */
#define MAX_BODY_BYTES (64 * 1024 * 1024)

typedef struct
{
  WatchStream *stream;
  WatchAlarms alarms;
  WatchSnapshot snap;
} Entry;

typedef struct
{
  gchar *config_path;
  WatchShard shard;
  WatchConfig *config;
  GPtrArray *entries;           /* Entry*, in the config's order */
  WatchHttp *http;
  GMainLoop *loop;
  gint64 next_reading_us;       /* g_get_monotonic_time () */
  gboolean stopping;
} Service;

static void
log_line (const gchar * fmt, ...) G_GNUC_PRINTF (1, 2);

/* a line of the service's log on stderr, in UTF-8 whatever the locale
 * (g_printerr would write a stream's name beyond ASCII as '?' in the C
 * locale), one write */
static void
log_line (const gchar * fmt, ...)
{
  va_list ap;
  gchar *text, *t, *line;
  GDateTime *now = g_date_time_new_now_utc ();

  va_start (ap, fmt);
  text = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  t = g_date_time_format_iso8601 (now);
  line = g_strdup_printf ("%s gpufft-watch: %s\n", t, text);
  fputs (line, stderr);
  g_date_time_unref (now);
  g_free (line);
  g_free (t);
  g_free (text);
}

/* The outputs beside the HTTP endpoints, each optional ([service]
 * log-dir, events, mqtt-host): made once at the start, main thread only.
 * None blocks the main loop for long: the logs write a few hundred bytes
 * a second through a bounded buffer, MQTT queues with a bound
 * (watch-log.h, watch-events.h, watch-mqtt.h). */
static struct
{
  WatchLog *log;
  WatchEvents *events;
  WatchMqtt *mqtt;
} outputs;

static gboolean
outputs_open (const WatchConfig * config, GError ** error)
{
  if (config->log_dir != NULL
      && (outputs.log = watch_log_new (config->log_dir, error)) == NULL)
    return FALSE;
  if (config->events != NULL
      && (outputs.events = watch_events_new (config->events, error)) == NULL)
    return FALSE;
  if (config->mqtt_host != NULL
      && (outputs.mqtt = watch_mqtt_new (config->mqtt_host,
              config->mqtt_port, config->mqtt_topic, error)) == NULL)
    return FALSE;
  return TRUE;
}

/* flushes and closes what outputs_open () opened (SIGTERM) */
static void
outputs_close (void)
{
  if (outputs.log != NULL) {
    watch_log_flush (outputs.log);
    watch_log_free (outputs.log);
  }
  if (outputs.events != NULL) {
    watch_events_flush (outputs.events);
    watch_events_free (outputs.events);
  }
  if (outputs.mqtt != NULL)
    watch_mqtt_free (outputs.mqtt);
  memset (&outputs, 0, sizeof (outputs));
}

/* Every stream's reading, once a second: the loudness log and MQTT's
 * readings topic (an output that fails says so once a failure, the
 * outputs' own rule, and goes on). */
static void
outputs_reading (const WatchReading * reading)
{
  GError *err = NULL;

  if (outputs.log != NULL && !watch_log_write (outputs.log, reading, &err)) {
    log_line ("the loudness log: %s", err->message);
    g_clear_error (&err);
  }
  if (outputs.mqtt != NULL)
    watch_mqtt_publish_reading (outputs.mqtt, reading);
}

/* SIGHUP: the files opened again by their names (log rotation): the
 * events file, and each stream's loudness log (written out and closed;
 * its next line opens it) */
static void
outputs_reopen (Service * svc)
{
  GError *err = NULL;
  guint i;

  if (outputs.events != NULL && !watch_events_reopen (outputs.events, &err)) {
    log_line ("the alarm events: %s (the open file stays)", err->message);
    g_clear_error (&err);
  }
  for (i = 0; outputs.log != NULL && i < svc->entries->len; i++)
    watch_log_forget (outputs.log, watch_stream_name (((Entry *)
                g_ptr_array_index (svc->entries, i))->stream));
}

/* a stream removed: its loudness log written out and closed, its
 * retained MQTT reading cleared */
static void
outputs_forget (const gchar * stream)
{
  if (outputs.log != NULL)
    watch_log_forget (outputs.log, stream);
  if (outputs.mqtt != NULL)
    watch_mqtt_forget (outputs.mqtt, stream);
}

/* Every alarm raised or cleared: the service's log (stderr), the alarm
 * events file and MQTT's events topic. */
static void
outputs_event (const WatchEvent * event)
{
  GError *err = NULL;

  log_line ("stream '%s': alarm %s %s%s%s", event->stream,
      watch_alarm_name (event->kind), event->raised ? "raised" : "cleared",
      event->detail != NULL ? ": " : "",
      event->detail != NULL ? event->detail : "");
  if (outputs.events != NULL
      && !watch_events_emit (outputs.events, event, &err)) {
    log_line ("the alarm events: %s", err->message);
    g_clear_error (&err);
  }
  if (outputs.mqtt != NULL)
    watch_mqtt_publish_event (outputs.mqtt, event);
}

static void
entry_free (gpointer p)
{
  Entry *e = p;

  watch_stream_release (e->stream);
  g_free (e->snap.reading.stream);
  g_free (e);
}

static Entry *
entry_new (Service * svc, const WatchStreamConfig * sc)
{
  Entry *e = g_new0 (Entry, 1);

  e->stream = watch_stream_new (sc, svc->config->device_index,
      svc->config->fft_size, svc->config->restart_max_s);
  e->snap.start_us = g_get_real_time ();
  watch_alarms_init (&e->alarms, g_get_monotonic_time ());
  watch_stream_read (e->stream, e->snap.start_us, g_get_monotonic_time (),
      &e->snap.reading);
  return e;
}

/* clears the alarms of a stream that goes away, saying @why */
static void
entry_clear_alarms (Entry * e, const gchar * why)
{
  guint k;
  WatchEvent ev = { 0 };

  for (k = 0; k < WATCH_N_ALARMS; k++) {
    if (!e->alarms.state[k].active)
      continue;
    ev.stream = (gchar *) watch_stream_name (e->stream);
    ev.kind = k;
    ev.raised = FALSE;
    ev.wall_us = g_get_real_time ();
    ev.detail = (gchar *) why;
    outputs_event (&ev);
  }
}

static void
take_readings (Service * svc, gint64 wall_us, gint64 mono_us)
{
  GPtrArray *events = g_ptr_array_new_with_free_func ((GDestroyNotify)
      watch_event_free);
  guint i, j, k;

  for (i = 0; i < svc->entries->len; i++) {
    Entry *e = g_ptr_array_index (svc->entries, i);

    g_free (e->snap.reading.stream);
    watch_stream_read (e->stream, wall_us, mono_us, &e->snap.reading);
    watch_alarms_update (&e->alarms,
        &watch_stream_config (e->stream)->alarms, &e->snap.reading, events);
    for (k = 0; k < WATCH_N_ALARMS; k++)
      e->snap.alarm[k] = e->alarms.state[k].active;
    outputs_reading (&e->snap.reading);
    for (j = 0; j < events->len; j++)
      outputs_event (g_ptr_array_index (events, j));
    g_ptr_array_set_size (events, 0);
  }
  g_ptr_array_unref (events);
}

static gboolean
tick (gpointer data)
{
  Service *svc = data;
  /* schedules and holds count on the monotonic clock; the wall clock
   * only stamps the readings (it may step) */
  gint64 now = g_get_monotonic_time ();
  guint i;

  for (i = 0; i < svc->entries->len; i++)
    watch_stream_tick (((Entry *) g_ptr_array_index (svc->entries,
                i))->stream, now);
  if (now >= svc->next_reading_us) {
    take_readings (svc, g_get_real_time (), now);
    svc->next_reading_us += G_USEC_PER_SEC;
    if (svc->next_reading_us <= now)
      svc->next_reading_us = now + G_USEC_PER_SEC;
  }
  watch_http_tick (svc->http, now);
  return G_SOURCE_CONTINUE;
}

/* ---- endpoints ---- */

static WatchSnapshot **
snapshots (Service * svc)
{
  WatchSnapshot **s = g_new (WatchSnapshot *, svc->entries->len + 1);
  guint i;

  for (i = 0; i < svc->entries->len; i++)
    s[i] = &((Entry *) g_ptr_array_index (svc->entries, i))->snap;
  return s;
}

static gchar *
build_metrics (gpointer data, gsize * len, guint * status)
{
  Service *svc = data;
  WatchSnapshot **s = snapshots (svc);
  WatchOutputDrops drops = { -1, -1, -1 };
  gchar *body;

  if (outputs.log != NULL)
    drops.log_lines = (gint64) watch_log_get_dropped (outputs.log);
  if (outputs.events != NULL)
    drops.events = (gint64) watch_events_get_dropped (outputs.events);
  if (outputs.mqtt != NULL)
    drops.mqtt_messages = (gint64) watch_mqtt_get_dropped (outputs.mqtt);
  body = watch_metrics_exposition (s, svc->entries->len, &drops,
      MAX_BODY_BYTES, len);

  g_free (s);
  if (body == NULL) {
    *status = 500;
    body = g_strdup ("the exposition is larger than its bound\n");
    *len = strlen (body);
  }
  return body;
}

static gchar *
build_json (gpointer data, gsize * len, guint * status)
{
  Service *svc = data;
  WatchSnapshot **s = snapshots (svc);
  gchar *body = watch_metrics_json (s, svc->entries->len, MAX_BODY_BYTES,
      len);

  g_free (s);
  if (body == NULL) {
    *status = 500;
    body = g_strdup ("{\"error\":\"larger than its bound\"}\n");
    *len = strlen (body);
  }
  return body;
}

static gchar *
build_health (gpointer data, gsize * len, guint * status)
{
  Service *svc = data;
  guint i, up = 0;
  gchar *body;

  for (i = 0; i < svc->entries->len; i++)
    up += ((Entry *) g_ptr_array_index (svc->entries, i))->snap.reading.up;
  body = g_strdup_printf ("ok streams=%u up=%u\n", svc->entries->len, up);
  *len = strlen (body);
  return body;
}

/* ---- configuration ---- */

static gboolean
service_settings_equal (const WatchConfig * a, const WatchConfig * b)
{
  return g_strcmp0 (a->listen_host, b->listen_host) == 0
      && a->listen_port == b->listen_port
      && a->device_index == b->device_index
      && a->restart_max_s == b->restart_max_s
      && a->fft_size == b->fft_size
      && g_strcmp0 (a->log_dir, b->log_dir) == 0
      && g_strcmp0 (a->events, b->events) == 0
      && g_strcmp0 (a->mqtt_host, b->mqtt_host) == 0
      && a->mqtt_port == b->mqtt_port
      && g_strcmp0 (a->mqtt_topic, b->mqtt_topic) == 0;
}

/* makes the table of streams follow @config: streams gone or changed are
 * stopped, new ones started, the others left running untouched */
static void
apply_streams (Service * svc, const WatchConfig * config)
{
  GPtrArray *next = g_ptr_array_new_with_free_func (entry_free);
  GHashTable *old = g_hash_table_new (g_str_hash, g_str_equal);
  guint i, added = 0, removed = 0, changed = 0;

  for (i = 0; i < svc->entries->len; i++) {
    Entry *e = g_ptr_array_index (svc->entries, i);
    g_hash_table_insert (old, (gpointer) watch_stream_name (e->stream), e);
  }
  for (i = 0; i < config->streams->len; i++) {
    const WatchStreamConfig *sc = g_ptr_array_index (config->streams, i);
    Entry *e;

    if (!watch_shard_takes (&svc->shard, sc->name))
      continue;
    e = g_hash_table_lookup (old, sc->name);
    if (e != NULL && watch_stream_config_equal (watch_stream_config
            (e->stream), sc)) {
      g_hash_table_remove (old, sc->name);
      g_ptr_array_add (next, e);
      continue;
    }
    if (e != NULL)
      changed++;
    else
      added++;
    e = entry_new (svc, sc);
    g_ptr_array_add (next, e);
  }
  /* the old entries kept have moved to @next; free the rest */
  for (i = 0; i < svc->entries->len; i++) {
    Entry *e = g_ptr_array_index (svc->entries, i);

    if (g_ptr_array_find (next, e, NULL))
      continue;
    entry_clear_alarms (e, "the stream was removed or changed");
    if (watch_config_find (config, watch_stream_name (e->stream)) == NULL
        || !watch_shard_takes (&svc->shard, watch_stream_name (e->stream))) {
      removed++;
      outputs_forget (watch_stream_name (e->stream));
    }
    entry_free (e);
  }
  g_ptr_array_set_free_func (svc->entries, NULL);
  g_ptr_array_unref (svc->entries);
  svc->entries = next;
  g_hash_table_unref (old);
  for (i = 0; i < svc->entries->len; i++) {
    Entry *e = g_ptr_array_index (svc->entries, i);
    watch_stream_tick (e->stream, g_get_monotonic_time ());
  }
  log_line ("%u streams (%u added, %u changed, %u removed)",
      svc->entries->len, added, changed, removed);
}

static gboolean
on_sighup (gpointer data)
{
  Service *svc = data;
  GError *err = NULL;
  WatchConfig *config;

  if (svc->stopping)
    return G_SOURCE_CONTINUE;
  outputs_reopen (svc);
  config = watch_config_load_file (svc->config_path, &err);
  if (config == NULL) {
    log_line ("reload refused, the running configuration stays: %s",
        err->message);
    g_error_free (err);
    return G_SOURCE_CONTINUE;
  }
  if (!service_settings_equal (svc->config, config))
    log_line ("reload: [service] changes apply at the next start");
  /* the new streams take the running service settings */
  config->device_index = svc->config->device_index;
  config->restart_max_s = svc->config->restart_max_s;
  config->fft_size = svc->config->fft_size;
  apply_streams (svc, config);
  watch_config_free (svc->config);
  svc->config = config;
  return G_SOURCE_CONTINUE;
}

static gboolean
on_sigterm (gpointer data)
{
  Service *svc = data;

  log_line ("stopping");
  g_main_loop_quit (svc->loop);
  return G_SOURCE_CONTINUE;
}

static gboolean
stop_deadline (gpointer data)
{
  *(gboolean *) data = TRUE;
  return G_SOURCE_REMOVE;
}

static const gchar *help_description =
    "DESCRIPTION\n"
    "  Measures audio streams as a service: per stream the EBU R128 loudness\n"
    "  (momentary, short-term, integrated, LRA, true peak; gpuloudness), the\n"
    "  per-channel sample peak and RMS (level), 1/3-octave band levels and\n"
    "  the dominant frequency (gpufftspectrum), once a second, all analysers\n"
    "  sharing one Vulkan device. Raises and clears alarms, and serves them\n"
    "  over HTTP. A source that fails or stalls is restarted with a backoff\n"
    "  (1 s doubling up to [service] restart-max); it never affects others.\n"
    "\n"
    "CONFIGURATION (a GLib key file)\n"
    "  [service]\n"
    "    listen=127.0.0.1:9750    HOST:PORT of the HTTP endpoints\n"
    "    device-index=-1          Vulkan device (-1: automatic)\n"
    "    restart-max=30           s, the restart backoff's bound\n"
    "    fft-size=8192            gpufftspectrum's frame (even, 256 .. 65536)\n"
    "    log-dir=DIR              per-stream loudness logs (none if absent)\n"
    "    events=PATH|-            alarm events as JSON lines (- : stdout)\n"
    "    mqtt-host=HOST  mqtt-port=1883  mqtt-topic=gpufft/<hostname>\n"
    "  [defaults]  alarm settings every stream inherits:\n"
    "    alarms=silence;clipping;loudness;stuck-tone;down   (those on)\n"
    "    silence-level=-60 silence-hold=10   every channel's RMS below (dBFS), s\n"
    "    clipping-level=-0.1 clipping-hold=5 a sample peak at or above (dBFS);\n"
    "                                        cleared after hold s without\n"
    "    loudness-measure=integrated|short-term  loudness-target=-23 (LUFS)\n"
    "    loudness-tolerance=1 (LU)  loudness-hold=10 (s)\n"
    "    tone-tolerance=1 (Hz)  tone-hold=30 (s)   one dominant frequency\n"
    "    down-hold=5 (s)                           no audio this long\n"
    "  [stream NAME]  one per stream; any [defaults] key, and:\n"
    "    source=  file:///a.wav  http(s)://...  rtsp://...  srt://...  (any URI\n"
    "             GStreamer opens), rtp://HOST:PORT, pulse:DEVICE,\n"
    "             alsa:DEVICE, test:\n"
    "    rtp-encoding=L16|L24|OPUS rtp-payload=96 rtp-latency=200 (ms)\n"
    "    rate=48000 channels=2     (rtp and test)\n"
    "    test-wave=sine test-freq=997 test-level=-20 (dBFS peak)\n"
    "    test-on=S test-off=S      sound and silence alternate\n"
    "  A bad value, an unknown group or key is one error naming the group and\n"
    "  the key; the service does not start (or, on SIGHUP, keeps running\n"
    "  with the configuration it has).\n"
    "\n"
    "SHARDS\n"
    "  --shard I/N takes the streams whose name's FNV-1a 64 hash (of its\n"
    "  UTF-8 bytes; offset basis 14695981039346656037, prime 1099511628211)\n"
    "  modulo N is I: every host running one config with I = 0 .. N-1 takes\n"
    "  every stream exactly once.\n"
    "\n"
    "ENDPOINTS\n"
    "  /metrics      Prometheus text format 0.0.4 (gpufft_* families)\n"
    "  /healthz      200 while the service runs\n"
    "  /api/streams  JSON snapshot of every stream (non-finite values: null)\n"
    "\n"
    "SIGNALS\n"
    "  SIGHUP reloads the file: streams added, removed or changed are started\n"
    "  or stopped; the others run on untouched. It also opens the events\n"
    "  file and the loudness logs again (log rotation).\n"
    "  SIGTERM, SIGINT stop.\n"
    "\n"
    "EXIT STATUS\n"
    "  0 stopped by a signal, or --check passed; 1 cannot run (such as the\n"
    "  port in use or a missing element); 2 bad options or configuration.\n";

int
main (int argc, char **argv)
{
  Service svc = { 0 };
  gchar *config_path = NULL, *shard_text = NULL;
  gboolean check = FALSE;
  GOptionEntry entries[] = {
    {"config", 'c', 0, G_OPTION_ARG_FILENAME, &config_path,
        "The configuration file (required)", "FILE"},
    {"shard", 0, 0, G_OPTION_ARG_STRING, &shard_text,
        "Take only the streams of shard I of N (see SHARDS)", "I/N"},
    {"check", 0, 0, G_OPTION_ARG_NONE, &check,
        "Check the configuration and exit", NULL},
    {NULL}
  };
  GOptionContext *ctx;
  GError *err = NULL;
  static const gchar *const needed[] = {
    "gpuloudness", "gpufftspectrum", "level", "audioconvert", "fakesink",
    NULL
  };
  guint i, timer, tick_id;
  gboolean timed_out = FALSE;
  int status = EXIT_USAGE;

  ctx = g_option_context_new ("- measure audio streams' loudness and "
      "spectra as a service");
  g_option_context_set_summary (ctx, "NAME\n  gpufft-watch - a loudness and"
      " spectrum monitoring service\n\nSYNOPSIS\n  gpufft-watch --config FILE"
      " [--shard I/N] [--check]");
  g_option_context_set_description (ctx, help_description);
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  if (!g_option_context_parse (ctx, &argc, &argv, &err)) {
    g_printerr ("gpufft-watch: %s (see --help)\n", err->message);
    g_option_context_free (ctx);
    goto out;
  }
  g_option_context_free (ctx);
  if (config_path == NULL) {
    g_printerr ("gpufft-watch: --config FILE is required (see --help)\n");
    goto out;
  }
  svc.shard.index = 0;
  svc.shard.count = 1;
  if (shard_text != NULL && !watch_shard_parse (shard_text, &svc.shard,
          &err)) {
    fprintf (stderr, "gpufft-watch: %s\n", err->message);
    goto out;
  }
  svc.config_path = config_path;
  svc.config = watch_config_load_file (config_path, &err);
  if (svc.config == NULL) {
    /* (UTF-8 as it is, whatever the locale, as log_line) */
    fprintf (stderr, "gpufft-watch: %s\n", err->message);
    goto out;
  }
  if (check) {
    g_print ("%s: %u streams\n", config_path, svc.config->streams->len);
    status = 0;
    goto out;
  }
  status = EXIT_RUNTIME;
  for (i = 0; needed[i] != NULL; i++) {
    GstElementFactory *f = gst_element_factory_find (needed[i]);
    if (f == NULL) {
      g_printerr ("gpufft-watch: the element '%s' is not installed (check "
          "GST_PLUGIN_PATH and the gpufft plugin)\n", needed[i]);
      goto out;
    }
    gst_object_unref (f);
  }
  svc.http = watch_http_new (svc.config->listen_host,
      svc.config->listen_port, &err);
  if (svc.http == NULL) {
    fprintf (stderr, "gpufft-watch: %s\n", err->message);
    goto out;
  }
  watch_http_add (svc.http, "/metrics",
      "text/plain; version=0.0.4; charset=utf-8", build_metrics, &svc);
  watch_http_add (svc.http, "/api/streams", "application/json",
      build_json, &svc);
  watch_http_add (svc.http, "/healthz", "text/plain; charset=utf-8",
      build_health, &svc);

  if (!outputs_open (svc.config, &err)) {
    fprintf (stderr, "gpufft-watch: %s\n", err->message);
    outputs_close ();
    goto out;
  }
  svc.loop = g_main_loop_new (NULL, FALSE);
  svc.entries = g_ptr_array_new_with_free_func (entry_free);
  g_unix_signal_add (SIGHUP, on_sighup, &svc);
  g_unix_signal_add (SIGTERM, on_sigterm, &svc);
  g_unix_signal_add (SIGINT, on_sigterm, &svc);
  log_line ("listening on %s:%u, shard %u/%u", svc.config->listen_host,
      svc.config->listen_port, svc.shard.index, svc.shard.count);
  apply_streams (&svc, svc.config);
  svc.next_reading_us = g_get_monotonic_time () + G_USEC_PER_SEC;
  tick_id = g_timeout_add (TICK_MS, tick, &svc);
  g_main_loop_run (svc.loop);
  svc.stopping = TRUE;

  for (i = 0; i < svc.entries->len; i++)
    entry_clear_alarms (g_ptr_array_index (svc.entries, i),
        "the service stopped");
  g_ptr_array_unref (svc.entries);
  /* (a SIGHUP while the stops finish finds no stream to keep) */
  svc.entries = g_ptr_array_new_with_free_func (entry_free);
  g_source_remove (tick_id);
  watch_http_free (svc.http);
  svc.http = NULL;
  /* the stops finish on their threads and report on the main context */
  timer = g_timeout_add_seconds (STOP_DEADLINE_S, stop_deadline, &timed_out);
  while (watch_stream_stopping () > 0 && !timed_out)
    g_main_context_iteration (NULL, TRUE);
  if (!timed_out)
    g_source_remove (timer);
  if (watch_stream_stopping () > 0)
    log_line ("%u streams did not stop within %d s", watch_stream_stopping (),
        STOP_DEADLINE_S);
  g_ptr_array_unref (svc.entries);
  outputs_close ();
  g_main_loop_unref (svc.loop);
  status = 0;

out:
  /* (every exit, early ones included, frees what main made) */
  if (svc.http != NULL)
    watch_http_free (svc.http);
  if (svc.config != NULL)
    watch_config_free (svc.config);
  g_clear_error (&err);
  g_free (config_path);
  g_free (shard_text);
  return status;
}
