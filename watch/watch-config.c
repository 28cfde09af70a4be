/* gpufft-watch: the key file read and checked (watch-config.h). */
#include "watch-config.h"

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

G_DEFINE_QUARK (watch-config-error-quark, watch_config_error);

#define STREAM_PREFIX "stream "

static const gchar *const service_keys[] = {
  "listen", "device-index", "restart-max", "fft-size", "log-dir", "events", "mqtt-host",
  "mqtt-port", "mqtt-topic", NULL
};

static const gchar *const alarm_keys[] = {
  "alarms", "silence-level", "silence-hold", "clipping-level",
  "clipping-hold", "loudness-measure", "loudness-target",
  "loudness-tolerance", "loudness-hold", "tone-tolerance", "tone-hold",
  "down-hold", NULL
};

static const gchar *const stream_keys[] = {
  "source", "rtp-encoding", "rtp-payload", "rate", "channels",
  "rtp-latency", "test-wave", "test-freq", "test-level", "test-on",
  "test-off", NULL
};

static const gchar *const test_waves[] = {
  "sine", "square", "saw", "triangle", "silence", "white-noise",
  "pink-noise", "ticks", NULL
};

/* the alarm names as the "alarms" key spells them (WatchAlarmKind order) */
static const gchar *const alarm_key_names[WATCH_N_ALARMS] = {
  "silence", "clipping", "loudness", "stuck-tone", "down"
};

static gboolean
fail (GError ** error, const gchar * group, const gchar * key,
    const gchar * fmt, ...) G_GNUC_PRINTF (4, 5);

/* @text with its control characters written as escapes (\n, \t, \r,
 * \xNN): a message is one line, whatever a value holds */
static gchar *
one_line (const gchar * text)
{
  GString *out = g_string_sized_new (strlen (text));
  const gchar *p;

  for (p = text; *p != '\0'; p++) {
    guchar c = (guchar) * p;

    if (c == '\n')
      g_string_append (out, "\\n");
    else if (c == '\t')
      g_string_append (out, "\\t");
    else if (c == '\r')
      g_string_append (out, "\\r");
    else if (c < 0x20 || c == 0x7f)
      g_string_append_printf (out, "\\x%02x", c);
    else
      g_string_append_c (out, (gchar) c);
  }
  return g_string_free (out, FALSE);
}

static gboolean
fail (GError ** error, const gchar * group, const gchar * key,
    const gchar * fmt, ...)
{
  va_list ap;
  gchar *text, *what;

  va_start (ap, fmt);
  text = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  what = one_line (text);
  g_free (text);
  if (key != NULL)
    g_set_error (error, WATCH_CONFIG_ERROR, 0, "[%s] %s: %s", group, key,
        what);
  else
    g_set_error (error, WATCH_CONFIG_ERROR, 0, "[%s]: %s", group, what);
  g_free (what);
  return FALSE;
}

static gboolean
in_list (const gchar * const *list, const gchar * s)
{
  return s != NULL && g_strv_contains (list, s);
}

/* the raw value of a key, or NULL when absent */
static gchar *
raw_value (GKeyFile * kf, const gchar * group, const gchar * key)
{
  gchar *v;

  if (!g_key_file_has_key (kf, group, key, NULL))
    return NULL;
  v = g_key_file_get_string (kf, group, key, NULL);
  if (v != NULL)
    g_strstrip (v);
  return v;
}

static gboolean
get_double (GKeyFile * kf, const gchar * group, const gchar * key,
    gdouble min, gdouble max, gdouble * out, GError ** error)
{
  gchar *v = raw_value (kf, group, key), *end = NULL;
  gdouble d;
  gboolean ok = TRUE;

  if (v == NULL)
    return TRUE;
  d = g_ascii_strtod (v, &end);
  if (*v == '\0' || end == NULL || *end != '\0' || !isfinite (d))
    ok = fail (error, group, key, "'%s' is not a number", v);
  else if (d < min || d > max)
    ok = fail (error, group, key, "%s is outside %g .. %g", v, min, max);
  else
    *out = d;
  g_free (v);
  return ok;
}

static gboolean
get_uint (GKeyFile * kf, const gchar * group, const gchar * key,
    guint min, guint max, guint * out, GError ** error)
{
  gchar *v = raw_value (kf, group, key);
  guint64 u;
  gboolean ok = TRUE;

  if (v == NULL)
    return TRUE;
  if (!g_ascii_string_to_unsigned (v, 10, 0, G_MAXUINT64, &u, NULL))
    ok = fail (error, group, key, "'%s' is not a whole number", v);
  else if (u < min || u > max)
    ok = fail (error, group, key, "%s is outside %u .. %u", v, min, max);
  else
    *out = (guint) u;
  g_free (v);
  return ok;
}

static gboolean
get_choice (GKeyFile * kf, const gchar * group, const gchar * key,
    const gchar * const *choices, guint * out, GError ** error)
{
  gchar *v = raw_value (kf, group, key), *valid;
  guint i;
  gboolean ok = FALSE;

  if (v == NULL)
    return TRUE;
  for (i = 0; choices[i] != NULL; i++) {
    if (strcmp (v, choices[i]) == 0) {
      *out = i;
      ok = TRUE;
    }
  }
  if (!ok) {
    valid = g_strjoinv (", ", (gchar **) choices);
    fail (error, group, key, "'%s' is not one of %s", v, valid);
    g_free (valid);
  }
  g_free (v);
  return ok;
}

static gboolean
check_keys (GKeyFile * kf, const gchar * group, const gchar * const *a,
    const gchar * const *b, GError ** error)
{
  gchar **keys = g_key_file_get_keys (kf, group, NULL, NULL);
  guint i;
  gboolean ok = TRUE;

  for (i = 0; keys != NULL && keys[i] != NULL && ok; i++) {
    if (!in_list (a, keys[i]) && !(b != NULL && in_list (b, keys[i])))
      ok = fail (error, group, keys[i], "unknown key");
  }
  g_strfreev (keys);
  return ok;
}

static void
alarm_defaults (WatchAlarmSettings * a)
{
  guint i;

  for (i = 0; i < WATCH_N_ALARMS; i++)
    a->enabled[i] = TRUE;
  a->silence_level_dbfs = -60.0;
  a->silence_hold_s = 10.0;
  a->clipping_level_dbfs = -0.1;
  a->clipping_hold_s = 5.0;
  a->loudness_measure = WATCH_LOUDNESS_INTEGRATED;
  a->loudness_target_lufs = -23.0;
  a->loudness_tolerance_lu = 1.0;
  a->loudness_hold_s = 10.0;
  a->tone_tolerance_hz = 1.0;
  a->tone_hold_s = 30.0;
  a->down_hold_s = 5.0;
}

static gboolean
read_alarms (GKeyFile * kf, const gchar * group, WatchAlarmSettings * a,
    GError ** error)
{
  static const gchar *const measures[] = { "short-term", "integrated", NULL };
  guint measure = a->loudness_measure;

  if (g_key_file_has_key (kf, group, "alarms", NULL)) {
    gchar **names = g_key_file_get_string_list (kf, group, "alarms", NULL,
        NULL);
    guint i, k;

    for (k = 0; k < WATCH_N_ALARMS; k++)
      a->enabled[k] = FALSE;
    for (i = 0; names != NULL && names[i] != NULL; i++) {
      gboolean found = FALSE;

      g_strstrip (names[i]);
      if (names[i][0] == '\0' || strcmp (names[i], "none") == 0)
        continue;
      for (k = 0; k < WATCH_N_ALARMS; k++) {
        if (strcmp (names[i], alarm_key_names[k]) == 0) {
          a->enabled[k] = TRUE;
          found = TRUE;
        }
      }
      if (!found) {
        fail (error, group, "alarms", "'%s' is not one of silence, clipping,"
            " loudness, stuck-tone, down (a list separated by ';')",
            names[i]);
        g_strfreev (names);
        return FALSE;
      }
    }
    g_strfreev (names);
  }
  if (!get_double (kf, group, "silence-level", -200, 0,
          &a->silence_level_dbfs, error)
      || !get_double (kf, group, "silence-hold", 0, 86400,
          &a->silence_hold_s, error)
      || !get_double (kf, group, "clipping-level", -200, 0,
          &a->clipping_level_dbfs, error)
      || !get_double (kf, group, "clipping-hold", 0, 86400,
          &a->clipping_hold_s, error)
      || !get_choice (kf, group, "loudness-measure", measures, &measure, error)
      || !get_double (kf, group, "loudness-target", -70, 0,
          &a->loudness_target_lufs, error)
      || !get_double (kf, group, "loudness-tolerance", 0, 70,
          &a->loudness_tolerance_lu, error)
      || !get_double (kf, group, "loudness-hold", 0, 86400,
          &a->loudness_hold_s, error)
      || !get_double (kf, group, "tone-tolerance", 0, 100000,
          &a->tone_tolerance_hz, error)
      || !get_double (kf, group, "tone-hold", 0, 86400, &a->tone_hold_s,
          error)
      || !get_double (kf, group, "down-hold", 1, 86400, &a->down_hold_s,
          error))
    return FALSE;
  a->loudness_measure = measure;
  return TRUE;
}

static gboolean
parse_listen (const gchar * group, const gchar * v, gchar ** host,
    guint * port, GError ** error)
{
  const gchar *colon;
  guint64 p;

  if (v[0] == '[') {
    const gchar *close = strchr (v, ']');
    if (close == NULL || close[1] != ':')
      return fail (error, group, "listen", "'%s' is not HOST:PORT "
          "(e.g. 127.0.0.1:9750 or [::1]:9750)", v);
    colon = close + 1;
    *host = g_strndup (v + 1, close - v - 1);
  } else {
    colon = strrchr (v, ':');
    if (colon == NULL || colon == v)
      return fail (error, group, "listen", "'%s' is not HOST:PORT "
          "(e.g. 127.0.0.1:9750 or [::1]:9750)", v);
    *host = g_strndup (v, colon - v);
  }
  if (!g_ascii_string_to_unsigned (colon + 1, 10, 1, 65535, &p, NULL)) {
    g_clear_pointer (host, g_free);
    return fail (error, group, "listen", "port '%s' is not 1 .. 65535",
        colon + 1);
  }
  *port = (guint) p;
  return TRUE;
}

static gboolean
read_service (GKeyFile * kf, WatchConfig * c, GError ** error)
{
  const gchar *g = "service";
  gchar *v;
  gdouble dev = -1;

  c->listen_host = g_strdup ("127.0.0.1");
  c->listen_port = 9750;
  c->device_index = -1;
  c->restart_max_s = 30.0;
  c->fft_size = 8192;
  c->mqtt_port = 1883;
  c->mqtt_topic = g_strdup_printf ("gpufft/%s", g_get_host_name ());
  if (!g_key_file_has_group (kf, g))
    return TRUE;
  if (!check_keys (kf, g, service_keys, NULL, error))
    return FALSE;
  if ((v = raw_value (kf, g, "listen")) != NULL) {
    g_clear_pointer (&c->listen_host, g_free);
    if (!parse_listen (g, v, &c->listen_host, &c->listen_port, error)) {
      g_free (v);
      return FALSE;
    }
    g_free (v);
  }
  if (!get_double (kf, g, "device-index", -1, 1024, &dev, error))
    return FALSE;
  if (dev != floor (dev))
    return fail (error, g, "device-index", "%g is not a whole number", dev);
  c->device_index = (gint) dev;
  if (!get_double (kf, g, "restart-max", 1, 3600, &c->restart_max_s, error)
      || !get_uint (kf, g, "mqtt-port", 1, 65535, &c->mqtt_port, error)
      || !get_uint (kf, g, "fft-size", 256, 65536, &c->fft_size, error))
    return FALSE;
  if (c->fft_size % 2 != 0)
    return fail (error, g, "fft-size", "%u is odd (an even size, 256 .. "
        "65536)", c->fft_size);
  c->log_dir = raw_value (kf, g, "log-dir");
  if (c->log_dir != NULL && c->log_dir[0] == '\0')
    return fail (error, g, "log-dir", "empty (leave the key out for no log)");
  c->events = raw_value (kf, g, "events");
  if (c->events != NULL && c->events[0] == '\0')
    return fail (error, g, "events",
        "empty (a file's path, '-' for stdout, or leave the key out)");
  c->mqtt_host = raw_value (kf, g, "mqtt-host");
  if (c->mqtt_host != NULL && c->mqtt_host[0] == '\0')
    return fail (error, g, "mqtt-host",
        "empty (leave the key out for no MQTT)");
  if ((v = raw_value (kf, g, "mqtt-topic")) != NULL) {
    if (v[0] == '\0' || strpbrk (v, "+#") != NULL || strlen (v) > 1024) {
      fail (error, g, "mqtt-topic", "'%s' is not a topic (1 to 1024 bytes,"
          " no '+' or '#')", v);
      g_free (v);
      return FALSE;
    }
    g_free (c->mqtt_topic);
    c->mqtt_topic = v;
  }
  return TRUE;
}

static gboolean
parse_source (const gchar * group, WatchStreamConfig * s, GError ** error)
{
  const gchar *v = s->source;

  if (g_str_has_prefix (v, "rtp://")) {
    const gchar *hp = v + strlen ("rtp://");
    const gchar *colon = strrchr (hp, ':');
    guint64 p;

    if (colon == NULL || colon == hp
        || !g_ascii_string_to_unsigned (colon + 1, 10, 1, 65535, &p, NULL))
      return fail (error, group, "source",
          "'%s' is not rtp://HOST:PORT (PORT 1 .. 65535)", v);
    s->kind = WATCH_SOURCE_RTP;
    s->location = g_strndup (hp, colon - hp);
    s->port = (guint) p;
  } else if (g_str_has_prefix (v, "pulse:")) {
    s->kind = WATCH_SOURCE_PULSE;
    s->location = g_strdup (v + strlen ("pulse:"));
  } else if (g_str_has_prefix (v, "alsa:")) {
    s->kind = WATCH_SOURCE_ALSA;
    s->location = g_strdup (v + strlen ("alsa:"));
    if (s->location[0] == '\0')
      return fail (error, group, "source", "'%s': alsa:DEVICE needs a device"
          " (e.g. alsa:hw:0)", v);
  } else if (strcmp (v, "test:") == 0 || strcmp (v, "test") == 0) {
    s->kind = WATCH_SOURCE_TEST;
    s->location = g_strdup ("");
  } else {
    gchar *scheme = g_uri_parse_scheme (v);

    if (scheme == NULL || !g_uri_is_valid (v, G_URI_FLAGS_NONE, NULL)) {
      g_free (scheme);
      return fail (error, group, "source", "'%s' is not a URI (file://, "
          "http(s)://, rtsp://, srt://), rtp://HOST:PORT, pulse:DEVICE, "
          "alsa:DEVICE or test:", v);
    }
    g_free (scheme);
    s->kind = WATCH_SOURCE_URI;
    s->location = g_strdup (v);
  }
  return TRUE;
}

WatchStreamConfig *
watch_stream_config_copy (const WatchStreamConfig * s)
{
  WatchStreamConfig *c = g_memdup2 (s, sizeof (*s));

  c->name = g_strdup (s->name);
  c->source = g_strdup (s->source);
  c->location = g_strdup (s->location);
  c->test_wave = g_strdup (s->test_wave);
  return c;
}

void
watch_stream_config_free (WatchStreamConfig * s)
{
  if (s == NULL)
    return;

  g_free (s->name);
  g_free (s->source);
  g_free (s->location);
  g_free (s->test_wave);
  g_free (s);
}

static void
stream_free (gpointer p)
{
  watch_stream_config_free (p);
}

static gboolean
name_ok (const gchar * name)
{
  const gchar *p;

  if (name[0] == '\0' || strlen (name) > WATCH_CONFIG_MAX_NAME
      || !g_utf8_validate (name, -1, NULL))
    return FALSE;
  for (p = name; *p != '\0'; p = g_utf8_next_char (p)) {
    if (!g_unichar_isprint (g_utf8_get_char (p)))
      return FALSE;
  }
  return TRUE;
}

static gboolean
read_stream (GKeyFile * kf, const gchar * group, const WatchConfig * c,
    WatchStreamConfig ** out, GError ** error)
{
  static const gchar *const encodings[] = { "L16", "L24", "OPUS", NULL };
  WatchStreamConfig *s = g_new0 (WatchStreamConfig, 1);
  guint enc = WATCH_RTP_L16;
  guint wave = 0;

  s->name = g_strdup (group + strlen (STREAM_PREFIX));
  s->alarms = c->defaults;
  s->rate = 48000;
  s->channels = 2;
  s->rtp_payload = 96;
  s->rtp_latency_ms = 200;
  s->test_freq_hz = 997.0;
  s->test_level_dbfs = -20.0;
  if (!name_ok (s->name)) {
    fail (error, group, NULL, "a stream's name must be 1 to %d bytes of "
        "printable UTF-8", WATCH_CONFIG_MAX_NAME);
    goto bad;
  }
  if (!check_keys (kf, group, stream_keys, alarm_keys, error))
    goto bad;
  s->source = raw_value (kf, group, "source");
  if (s->source == NULL || s->source[0] == '\0') {
    fail (error, group, "source", "missing (every stream needs a source)");
    goto bad;
  }
  if (!parse_source (group, s, error)
      || !get_choice (kf, group, "rtp-encoding", encodings, &enc, error)
      || !get_uint (kf, group, "rtp-payload", 0, 127, &s->rtp_payload, error)
      || !get_uint (kf, group, "rtp-latency", 0, 10000, &s->rtp_latency_ms,
          error)
      || !get_uint (kf, group, "rate", 8000, 384000, &s->rate, error)
      || !get_uint (kf, group, "channels", 1, WATCH_MAX_CHANNELS,
          &s->channels, error)
      || !get_choice (kf, group, "test-wave", test_waves, &wave, error)
      || !get_double (kf, group, "test-freq", 1, 192000, &s->test_freq_hz,
          error)
      || !get_double (kf, group, "test-level", -200, 0, &s->test_level_dbfs,
          error)
      || !get_double (kf, group, "test-on", 0, 86400, &s->test_on_s, error)
      || !get_double (kf, group, "test-off", 0, 86400, &s->test_off_s, error)
      || !read_alarms (kf, group, &s->alarms, error))
    goto bad;
  s->rtp_encoding = enc;
  s->test_wave = g_strdup (test_waves[wave]);
  if (s->kind == WATCH_SOURCE_RTP && s->rtp_encoding == WATCH_RTP_OPUS
      && s->rate != 48000) {
    fail (error, group, "rate", "OPUS over RTP runs at 48000 Hz");
    goto bad;
  }
  if (s->test_off_s > 0 && s->test_on_s <= 0) {
    fail (error, group, "test-on", "test-off needs test-on > 0");
    goto bad;
  }
  *out = s;
  return TRUE;
bad:
  stream_free (s);
  return FALSE;
}

void
watch_config_free (WatchConfig * c)
{
  if (c == NULL)
    return;
  g_free (c->listen_host);
  g_free (c->log_dir);
  g_free (c->events);
  g_free (c->mqtt_host);
  g_free (c->mqtt_topic);
  if (c->streams != NULL)
    g_ptr_array_unref (c->streams);
  g_free (c);
}

WatchConfig *
watch_config_load_data (const gchar * data, gsize len, GError ** error)
{
  GKeyFile *kf = g_key_file_new ();
  WatchConfig *c = g_new0 (WatchConfig, 1);
  gchar **groups = NULL;
  GHashTable *seen = g_hash_table_new (g_str_hash, g_str_equal);
  GError *err = NULL;
  guint i;

  c->streams = g_ptr_array_new_with_free_func (stream_free);
  alarm_defaults (&c->defaults);
  if (!g_key_file_load_from_data (kf, data, len, G_KEY_FILE_NONE, &err)) {
    g_set_error (error, WATCH_CONFIG_ERROR, 0, "%s", err->message);
    g_error_free (err);
    goto bad;
  }
  groups = g_key_file_get_groups (kf, NULL);
  for (i = 0; groups[i] != NULL; i++) {
    if (strcmp (groups[i], "service") != 0
        && strcmp (groups[i], "defaults") != 0
        && !g_str_has_prefix (groups[i], STREAM_PREFIX)) {
      fail (error, groups[i], NULL, "unknown group (valid: [service], "
          "[defaults], [stream NAME])");
      goto bad;
    }
  }
  if (!read_service (kf, c, error))
    goto bad;
  if (g_key_file_has_group (kf, "defaults")
      && (!check_keys (kf, "defaults", alarm_keys, NULL, error)
          || !read_alarms (kf, "defaults", &c->defaults, error)))
    goto bad;
  for (i = 0; groups[i] != NULL; i++) {
    WatchStreamConfig *s;

    if (!g_str_has_prefix (groups[i], STREAM_PREFIX))
      continue;
    if (c->streams->len >= WATCH_CONFIG_MAX_STREAMS) {
      fail (error, groups[i], NULL, "more than %d streams",
          WATCH_CONFIG_MAX_STREAMS);
      goto bad;
    }
    if (!read_stream (kf, groups[i], c, &s, error))
      goto bad;
    if (g_hash_table_contains (seen, s->name)) {
      fail (error, groups[i], NULL, "a second stream of this name");
      stream_free (s);
      goto bad;
    }
    g_ptr_array_add (c->streams, s);
    g_hash_table_add (seen, s->name);
  }
  g_hash_table_unref (seen);
  g_strfreev (groups);
  g_key_file_unref (kf);
  return c;
bad:
  g_hash_table_unref (seen);
  g_strfreev (groups);
  g_key_file_unref (kf);
  watch_config_free (c);
  return NULL;
}

WatchConfig *
watch_config_load_file (const gchar * path, GError ** error)
{
  gchar *data = NULL;
  gsize len = 0;
  WatchConfig *c;
  GError *err = NULL;
  GStatBuf st;

  if (g_stat (path, &st) == 0 && st.st_size > WATCH_CONFIG_MAX_FILE) {
    g_set_error (error, WATCH_CONFIG_ERROR, 0, "%s: larger than %d bytes",
        path, WATCH_CONFIG_MAX_FILE);
    return NULL;
  }
  if (!g_file_get_contents (path, &data, &len, &err)) {
    g_set_error (error, WATCH_CONFIG_ERROR, 0, "%s", err->message);
    g_error_free (err);
    return NULL;
  }
  c = watch_config_load_data (data, len, &err);
  g_free (data);
  if (c == NULL) {
    g_set_error (error, WATCH_CONFIG_ERROR, 0, "%s: %s", path, err->message);
    g_error_free (err);
  }
  return c;
}

const WatchStreamConfig *
watch_config_find (const WatchConfig * c, const gchar * name)
{
  guint i;

  for (i = 0; i < c->streams->len; i++) {
    const WatchStreamConfig *s = g_ptr_array_index (c->streams, i);
    if (strcmp (s->name, name) == 0)
      return s;
  }
  return NULL;
}

static gboolean
alarms_equal (const WatchAlarmSettings * a, const WatchAlarmSettings * b)
{
  guint i;

  for (i = 0; i < WATCH_N_ALARMS; i++) {
    if (!a->enabled[i] != !b->enabled[i])
      return FALSE;
  }
  return a->silence_level_dbfs == b->silence_level_dbfs
      && a->silence_hold_s == b->silence_hold_s
      && a->clipping_level_dbfs == b->clipping_level_dbfs
      && a->clipping_hold_s == b->clipping_hold_s
      && a->loudness_measure == b->loudness_measure
      && a->loudness_target_lufs == b->loudness_target_lufs
      && a->loudness_tolerance_lu == b->loudness_tolerance_lu
      && a->loudness_hold_s == b->loudness_hold_s
      && a->tone_tolerance_hz == b->tone_tolerance_hz
      && a->tone_hold_s == b->tone_hold_s
      && a->down_hold_s == b->down_hold_s;
}

gboolean
watch_stream_config_equal (const WatchStreamConfig * a,
    const WatchStreamConfig * b)
{
  return g_strcmp0 (a->source, b->source) == 0
      && a->rtp_encoding == b->rtp_encoding
      && a->rtp_payload == b->rtp_payload && a->rate == b->rate
      && a->channels == b->channels && a->rtp_latency_ms == b->rtp_latency_ms
      && g_strcmp0 (a->test_wave, b->test_wave) == 0
      && a->test_freq_hz == b->test_freq_hz
      && a->test_level_dbfs == b->test_level_dbfs
      && a->test_on_s == b->test_on_s && a->test_off_s == b->test_off_s
      && alarms_equal (&a->alarms, &b->alarms);
}
