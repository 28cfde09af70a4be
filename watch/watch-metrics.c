/* gpufft-watch: exposition and JSON from snapshots (watch-metrics.h). */
#include "watch-metrics.h"

#include <math.h>
#include <string.h>

void
watch_metrics_escape_label (GString * out, const gchar * v)
{
  for (; *v != '\0'; v++) {
    if (*v == '\\')
      g_string_append (out, "\\\\");
    else if (*v == '"')
      g_string_append (out, "\\\"");
    else if (*v == '\n')
      g_string_append (out, "\\n");
    else
      g_string_append_c (out, *v);
  }
}

void
watch_metrics_json_string (GString * out, const gchar * v)
{
  g_string_append_c (out, '"');
  for (; *v != '\0'; v++) {
    guchar c = (guchar) * v;

    if (c == '"' || c == '\\') {
      g_string_append_c (out, '\\');
      g_string_append_c (out, c);
    } else if (c < 0x20) {
      g_string_append_printf (out, "\\u%04x", c);
    } else {
      g_string_append_c (out, c);
    }
  }
  g_string_append_c (out, '"');
}

void
watch_metrics_number (GString * out, gdouble v)
{
  gchar buf[G_ASCII_DTOSTR_BUF_SIZE];

  if (isnan (v))
    g_string_append (out, "NaN");
  else if (isinf (v))
    g_string_append (out, v > 0 ? "+Inf" : "-Inf");
  else
    g_string_append (out, g_ascii_dtostr (buf, sizeof (buf), v));
}

static void
json_number (GString * out, gdouble v)
{
  if (!isfinite (v))
    g_string_append (out, "null");
  else
    watch_metrics_number (out, v);
}

typedef enum
{
  F_UP,
  F_MOMENTARY,
  F_SHORTTERM,
  F_INTEGRATED,
  F_LRA,
  F_TRUE_PEAK,
  F_SAMPLE_PEAK,
  F_RMS,
  F_BAND,
  F_DOMINANT,
  F_RESTARTS,
  F_START,
  F_ALARM,
  N_FAMILIES
} Family;

static const struct
{
  const gchar *name, *type, *help;
} families[N_FAMILIES] = {
  {"gpufft_stream_up", "gauge",
      "1 while audio arrives within the stream's down-hold, else 0"},
  {"gpufft_loudness_momentary_lufs", "gauge",
      "EBU R128 momentary loudness (last 400 ms)"},
  {"gpufft_loudness_shortterm_lufs", "gauge",
      "EBU R128 short-term loudness (last 3 s)"},
  {"gpufft_loudness_integrated_lufs", "gauge",
      "EBU R128 integrated loudness since the source (re)started"},
  {"gpufft_loudness_range_lu", "gauge",
      "EBU Tech 3342 loudness range since the source (re)started"},
  {"gpufft_true_peak_dbtp", "gauge",
      "Largest true peak of the channels since the source (re)started"},
  {"gpufft_sample_peak_dbfs", "gauge",
      "Per channel sample peak over the last second"},
  {"gpufft_rms_dbfs", "gauge",
      "Per channel RMS over the last second (a full-scale sine reads -3.01)"},
  {"gpufft_band_level_db", "gauge",
      "1/3-octave band level of the channels' mean over the last second, "
        "dBFS; band_hz is the nominal mid-band frequency"},
  {"gpufft_dominant_frequency_hertz", "gauge",
      "Loudest spectral peak over the last second (0: none)"},
  {"gpufft_source_restarts_total", "counter",
      "Restarts of the stream's source since the service started"},
  {"gpufft_stream_start_time_seconds", "gauge",
      "When the service began to measure the stream (added or changed), "
        "seconds since the epoch"},
  {"gpufft_alarm_active", "gauge",
      "1 while the alarm is raised, else 0"},
};

static void
sample_start (GString * out, Family f, const WatchReading * r)
{
  g_string_append (out, families[f].name);
  g_string_append (out, "{stream=\"");
  watch_metrics_escape_label (out, r->stream);
  g_string_append_c (out, '"');
}

static void
sample_end (GString * out, gdouble v)
{
  g_string_append (out, "} ");
  watch_metrics_number (out, v);
  g_string_append_c (out, '\n');
}

static void
scalar (GString * out, Family f, const WatchReading * r, gdouble v)
{
  if (isnan (v))
    return;
  sample_start (out, f, r);
  sample_end (out, v);
}

static void
family_samples (GString * out, Family f, const WatchSnapshot * s)
{
  const WatchReading *r = &s->reading;
  guint i;

  switch (f) {
    case F_UP:
      scalar (out, f, r, r->up ? 1 : 0);
      break;
    case F_MOMENTARY:
      scalar (out, f, r, r->momentary_lufs);
      break;
    case F_SHORTTERM:
      scalar (out, f, r, r->shortterm_lufs);
      break;
    case F_INTEGRATED:
      scalar (out, f, r, r->integrated_lufs);
      break;
    case F_LRA:
      scalar (out, f, r, r->lra_lu);
      break;
    case F_TRUE_PEAK:
      scalar (out, f, r, r->true_peak_dbtp);
      break;
    case F_SAMPLE_PEAK:
    case F_RMS:
      for (i = 0; i < r->channels && i < WATCH_MAX_CHANNELS; i++) {
        gdouble v = f == F_RMS ? r->rms_dbfs[i] : r->sample_peak_dbfs[i];
        if (isnan (v))
          continue;
        sample_start (out, f, r);
        g_string_append_printf (out, ",channel=\"%u\"", i);
        sample_end (out, v);
      }
      break;
    case F_BAND:
      for (i = 0; i < r->n_bands && i < WATCH_MAX_BANDS; i++) {
        gchar buf[G_ASCII_DTOSTR_BUF_SIZE];
        if (isnan (r->band_db[i]) || isnan (r->band_hz[i]))
          continue;
        sample_start (out, f, r);
        g_string_append_printf (out, ",band_hz=\"%s\"",
            g_ascii_formatd (buf, sizeof (buf), "%g", r->band_hz[i]));
        sample_end (out, r->band_db[i]);
      }
      break;
    case F_DOMINANT:
      scalar (out, f, r, r->dominant_hz);
      break;
    case F_RESTARTS:
      scalar (out, f, r, (gdouble) r->restarts);
      break;
    case F_START:
      if (s->start_us > 0)
        scalar (out, f, r, s->start_us / 1e6);
      break;
    case F_ALARM:
      for (i = 0; i < WATCH_N_ALARMS; i++) {
        sample_start (out, f, r);
        g_string_append_printf (out, ",alarm=\"%s\"", watch_alarm_name (i));
        sample_end (out, s->alarm[i] ? 1 : 0);
      }
      break;
    default:
      break;
  }
}

static gchar *
finish (GString * out, gsize max_bytes, gsize * len)
{
  if (out->len > max_bytes) {
    g_string_free (out, TRUE);
    return NULL;
  }
  if (len != NULL)
    *len = out->len;
  return g_string_free (out, FALSE);
}

static void
drops_family (GString * out, const WatchOutputDrops * d)
{
  const struct
  {
    const gchar *name;
    gint64 count;
  } outputs[] = {
    {"loudness_log", d->log_lines},
    {"events", d->events},
    {"mqtt", d->mqtt_messages},
  };
  guint i;

  g_string_append (out, "# HELP gpufft_output_dropped_total Loudness log "
      "lines, alarm events and MQTT messages lost by an output (a full "
      "disk, a stalled reader, a full queue)\n"
      "# TYPE gpufft_output_dropped_total counter\n");
  for (i = 0; i < G_N_ELEMENTS (outputs); i++) {
    if (outputs[i].count < 0)
      continue;
    g_string_append_printf (out, "gpufft_output_dropped_total{output=\"%s\"} "
        "%" G_GINT64_FORMAT "\n", outputs[i].name, outputs[i].count);
  }
}

gchar *
watch_metrics_exposition (WatchSnapshot * const *snaps, guint n,
    const WatchOutputDrops * drops, gsize max_bytes, gsize * len)
{
  GString *out = g_string_sized_new (4096);
  guint f, i;

  if (drops != NULL)
    drops_family (out, drops);
  for (f = 0; f < N_FAMILIES; f++) {
    g_string_append_printf (out, "# HELP %s %s\n# TYPE %s %s\n",
        families[f].name, families[f].help, families[f].name,
        families[f].type);
    for (i = 0; i < n; i++) {
      family_samples (out, f, snaps[i]);
      if (out->len > max_bytes)
        return finish (out, max_bytes, len);
    }
  }
  return finish (out, max_bytes, len);
}

static void
json_key (GString * out, const gchar * key)
{
  g_string_append_printf (out, ",\"%s\":", key);
}

gchar *
watch_metrics_json (WatchSnapshot * const *snaps, guint n, gsize max_bytes,
    gsize * len)
{
  GString *out = g_string_sized_new (4096);
  guint i, k;

  g_string_append (out, "{\"streams\":[");
  for (i = 0; i < n; i++) {
    const WatchReading *r = &snaps[i]->reading;

    g_string_append (out, i ? ",\n{\"name\":" : "\n{\"name\":");
    watch_metrics_json_string (out, r->stream);
    g_string_append_printf (out, ",\"up\":%s,\"time_us\":%" G_GINT64_FORMAT,
        r->up ? "true" : "false", r->wall_us);
    json_key (out, "momentary_lufs");
    json_number (out, r->momentary_lufs);
    json_key (out, "shortterm_lufs");
    json_number (out, r->shortterm_lufs);
    json_key (out, "integrated_lufs");
    json_number (out, r->integrated_lufs);
    json_key (out, "lra_lu");
    json_number (out, r->lra_lu);
    json_key (out, "true_peak_dbtp");
    json_number (out, r->true_peak_dbtp);
    json_key (out, "sample_peak_dbfs");
    g_string_append_c (out, '[');
    for (k = 0; k < r->channels && k < WATCH_MAX_CHANNELS; k++) {
      if (k)
        g_string_append_c (out, ',');
      json_number (out, r->sample_peak_dbfs[k]);
    }
    g_string_append_c (out, ']');
    json_key (out, "rms_dbfs");
    g_string_append_c (out, '[');
    for (k = 0; k < r->channels && k < WATCH_MAX_CHANNELS; k++) {
      if (k)
        g_string_append_c (out, ',');
      json_number (out, r->rms_dbfs[k]);
    }
    g_string_append_c (out, ']');
    json_key (out, "bands");
    g_string_append_c (out, '[');
    for (k = 0; k < r->n_bands && k < WATCH_MAX_BANDS; k++) {
      g_string_append (out, k ? ",{\"hz\":" : "{\"hz\":");
      json_number (out, r->band_hz[k]);
      g_string_append (out, ",\"db\":");
      json_number (out, r->band_db[k]);
      g_string_append_c (out, '}');
    }
    g_string_append_c (out, ']');
    json_key (out, "dominant_hz");
    json_number (out, r->dominant_hz);
    g_string_append_printf (out, ",\"restarts\":%" G_GUINT64_FORMAT
        ",\"start_time_us\":%" G_GINT64_FORMAT, r->restarts,
        snaps[i]->start_us);
    g_string_append (out, ",\"alarms\":{");
    for (k = 0; k < WATCH_N_ALARMS; k++)
      g_string_append_printf (out, "%s\"%s\":%s", k ? "," : "",
          watch_alarm_name (k), snaps[i]->alarm[k] ? "true" : "false");
    g_string_append (out, "}}");
    if (out->len > max_bytes)
      return finish (out, max_bytes, len);
  }
  g_string_append (out, "\n]}\n");
  return finish (out, max_bytes, len);
}
