/* gpufft-watch: readings and events as JSON (see watch-json.h). */
#include "watch-json.h"

#include <math.h>
#include <string.h>
#include <time.h>

void
watch_json_append_string (GString * out, const gchar * s)
{
  const gchar *p, *end;

  if (s == NULL) {
    g_string_append (out, "null");
    return;
  }
  g_string_append_c (out, '"');
  p = s;
  end = s + strlen (s);
  while (p < end) {
    gunichar c = g_utf8_get_char_validated (p, end - p);

    if (c == (gunichar) - 1 || c == (gunichar) - 2) {
      /* not UTF-8: one byte becomes U+FFFD */
      g_string_append (out, "\xef\xbf\xbd");
      p++;
      continue;
    }
    switch (c) {
      case '"':
        g_string_append (out, "\\\"");
        break;
      case '\\':
        g_string_append (out, "\\\\");
        break;
      case '\b':
        g_string_append (out, "\\b");
        break;
      case '\f':
        g_string_append (out, "\\f");
        break;
      case '\n':
        g_string_append (out, "\\n");
        break;
      case '\r':
        g_string_append (out, "\\r");
        break;
      case '\t':
        g_string_append (out, "\\t");
        break;
      default:
        if (c < 0x20 || c == 0x7f)
          g_string_append_printf (out, "\\u%04x", (guint) c);
        else if (c == 0x2028 || c == 0x2029)
          /* valid JSON, but not inside JavaScript source */
          g_string_append_printf (out, "\\u%04x", (guint) c);
        else
          g_string_append_len (out, p, g_utf8_next_char (p) - p);
        break;
    }
    p = g_utf8_next_char (p);
  }
  g_string_append_c (out, '"');
}

void
watch_json_append_double (GString * out, gdouble v)
{
  /* %.2f of the largest double is about 310 characters */
  gchar buf[400];

  if (isnan (v))
    g_string_append (out, "null");
  else if (isinf (v))
    g_string_append (out, v < 0 ? "\"-inf\"" : "\"inf\"");
  else
    g_string_append (out, g_ascii_formatd (buf, sizeof (buf), "%.2f", v));
}

void
watch_json_append_time (GString * out, gint64 wall_us)
{
  /* 9999-12-31T23:59:59.999Z, the last moment with four digits */
  const gint64 last_us = G_GINT64_CONSTANT (253402300799999999);
  gint64 secs, ms;
  time_t t;
  struct tm tm;

  if (wall_us < 0)
    wall_us = 0;
  if (wall_us > last_us)
    wall_us = last_us;
  secs = wall_us / G_USEC_PER_SEC;
  ms = (wall_us % G_USEC_PER_SEC) / 1000;
  t = (time_t) secs;
  if (gmtime_r (&t, &tm) == NULL) {
    g_string_append (out, "1970-01-01T00:00:00.000Z");
    return;
  }
  g_string_append_printf (out, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ",
      tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
      tm.tm_sec, (gint) ms);
}

static void
append_array (GString * out, const gchar * key, const gdouble * v, guint n)
{
  guint i;

  g_string_append_printf (out, ",\"%s\":[", key);
  for (i = 0; i < n; i++) {
    if (i > 0)
      g_string_append_c (out, ',');
    watch_json_append_double (out, v[i]);
  }
  g_string_append_c (out, ']');
}

static void
append_number (GString * out, const gchar * key, gdouble v)
{
  g_string_append_printf (out, ",\"%s\":", key);
  watch_json_append_double (out, v);
}

gchar *
watch_reading_to_json (const WatchReading * r)
{
  GString *out;
  guint channels, bands;

  g_return_val_if_fail (r != NULL, NULL);

  channels = MIN (r->channels, WATCH_MAX_CHANNELS);
  bands = MIN (r->n_bands, WATCH_MAX_BANDS);
  out = g_string_sized_new (256 + 16 * (2 * channels + 2 * bands));
  g_string_append (out, "{\"stream\":");
  watch_json_append_string (out, r->stream);
  g_string_append (out, ",\"time\":\"");
  watch_json_append_time (out, r->wall_us);
  g_string_append_printf (out, "\",\"up\":%s,\"channels\":%u",
      r->up ? "true" : "false", channels);
  append_number (out, "momentary_lufs", r->momentary_lufs);
  append_number (out, "shortterm_lufs", r->shortterm_lufs);
  append_number (out, "integrated_lufs", r->integrated_lufs);
  append_number (out, "lra_lu", r->lra_lu);
  append_number (out, "true_peak_dbtp", r->true_peak_dbtp);
  append_array (out, "sample_peak_dbfs", r->sample_peak_dbfs, channels);
  append_array (out, "rms_dbfs", r->rms_dbfs, channels);
  append_array (out, "band_hz", r->band_hz, bands);
  append_array (out, "band_db", r->band_db, bands);
  append_number (out, "dominant_hz", r->dominant_hz);
  g_string_append_printf (out, ",\"restarts\":%" G_GUINT64_FORMAT "}",
      r->restarts);
  return g_string_free (out, FALSE);
}

gchar *
watch_event_to_json (const WatchEvent * e)
{
  GString *out;

  g_return_val_if_fail (e != NULL, NULL);

  out = g_string_sized_new (160);
  g_string_append (out, "{\"time\":\"");
  watch_json_append_time (out, e->wall_us);
  g_string_append (out, "\",\"stream\":");
  watch_json_append_string (out, e->stream);
  g_string_append (out, ",\"alarm\":");
  watch_json_append_string (out, watch_alarm_name (e->kind));
  g_string_append_printf (out, ",\"state\":\"%s\",\"detail\":",
      e->raised ? "raised" : "cleared");
  if (e->detail != NULL && strlen (e->detail) > WATCH_JSON_MAX_DETAIL) {
    /* cut at a character boundary at or before the bound */
    const gchar *cut = e->detail + WATCH_JSON_MAX_DETAIL;
    gchar *part;

    while (cut > e->detail && (((guchar) * cut) & 0xc0) == 0x80)
      cut--;
    part = g_strndup (e->detail, cut - e->detail);
    watch_json_append_string (out, part);
    g_free (part);
  } else {
    watch_json_append_string (out, e->detail);
  }
  g_string_append_c (out, '}');
  return g_string_free (out, FALSE);
}
