/* gpufft-watch: the Prometheus exposition and the JSON snapshot.
 *
 * Built from snapshots (copies of the readings and the alarms' states
 * the main thread keeps), never from the streams themselves, so a scrape
 * holds no lock of the analysis. Text format 0.0.4: one family per
 * meaning, `gpufft_` names with the unit as the suffix, a `stream` label
 * (and `channel`, `band_hz`, `alarm` where they apply); label values escape
 * `\`, `"` and newline. A value not measured yet is left out; silence is
 * `-Inf`. The JSON writes numbers that are not finite as null.
 *
 * Bound: a text larger than @max_bytes is not built (NULL); the caller
 * answers with an error. Pure functions, any thread. */
#ifndef __WATCH_METRICS_H__
#define __WATCH_METRICS_H__

#include <glib.h>
#include "watch-reading.h"

G_BEGIN_DECLS

typedef struct
{
  WatchReading reading;         /* reading.stream owned by the snapshot */
  gboolean alarm[WATCH_N_ALARMS];
  gint64 start_us;              /* when the service began to measure the
                                 * stream (added, or last changed) */
} WatchSnapshot;

/* what the outputs beside HTTP have lost since the start (lines of the
 * loudness log, alarm events, MQTT messages: written nowhere, for a full
 * disk, a stalled reader or a full queue); -1: the output is not
 * configured (its sample is left out) */
typedef struct
{
  gint64 log_lines;
  gint64 events;
  gint64 mqtt_messages;
} WatchOutputDrops;

/* appends @value with `\`, `"` and newline escaped as the exposition's
 * label values need */
void watch_metrics_escape_label (GString * out, const gchar * value);
/* appends @value as a JSON string, quotes included */
void watch_metrics_json_string (GString * out, const gchar * value);
/* "+Inf", "-Inf", "NaN" or the shortest exact decimal */
void watch_metrics_number (GString * out, gdouble v);

/* @drops: the family gpufft_output_dropped_total{output=...} (NULL: none) */
gchar *watch_metrics_exposition (WatchSnapshot * const *snaps, guint n,
    const WatchOutputDrops * drops, gsize max_bytes, gsize * len);
gchar *watch_metrics_json (WatchSnapshot * const *snaps, guint n,
    gsize max_bytes, gsize * len);

G_END_DECLS
#endif /* __WATCH_METRICS_H__ */
