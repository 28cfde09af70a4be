/* gpufft-watch: readings and events as JSON (one object, one line), the
 * text that MQTT, the alarm event log and the HTTP API send.
 *
 * Values: numbers in the units of watch-reading.h, written with the C
 * locale (a '.' always) and two decimals; a value not measured yet (NaN)
 * is null; an infinite value (silence in LUFS or dBFS is -inf) is the
 * string "-inf" (or "inf"), so that "silent" and "not known" stay
 * distinct. Times are ISO 8601 UTC with milliseconds,
 * "2026-12-07T06:00:00.123Z". Strings are escaped per RFC 8259: '"' and
 * '\\' with a backslash, control characters as \b \f \n \r \t or \u00XX;
 * characters beyond ASCII are written as they are (UTF-8); bytes that are
 * not UTF-8 become U+FFFD.
 *
 * Bounds: a reading writes at most WATCH_MAX_CHANNELS channels and
 * WATCH_MAX_BANDS bands whatever its counts say; an event's detail is cut
 * to WATCH_JSON_MAX_DETAIL bytes (at a character boundary).
 *
 * Threading: pure functions, any thread. Ownership: the returned strings
 * belong to the caller (g_free). */
#ifndef __WATCH_JSON_H__
#define __WATCH_JSON_H__

#include <glib.h>
#include "watch-reading.h"

G_BEGIN_DECLS

#define WATCH_JSON_MAX_DETAIL 1024

/* {"stream":"..","time":"..","up":true,"channels":2,
 *  "momentary_lufs":..,"shortterm_lufs":..,"integrated_lufs":..,
 *  "lra_lu":..,"true_peak_dbtp":..,"sample_peak_dbfs":[..],
 *  "rms_dbfs":[..],"band_hz":[..],"band_db":[..],"dominant_hz":..,
 *  "restarts":0} */
gchar *watch_reading_to_json (const WatchReading * r);

/* {"time":"..","stream":"..","alarm":"silence","state":"raised",
 *  "detail":".."}; "state" is "raised" or "cleared"; "detail" is null
 * when the event has none */
gchar *watch_event_to_json (const WatchEvent * e);

/* s as a JSON string, quotes included, appended to out (NULL: null) */
void watch_json_append_string (GString * out, const gchar * s);
/* v as above (null, "-inf", "inf" or a number with two decimals) */
void watch_json_append_double (GString * out, gdouble v);
/* wall_us (microseconds since the epoch) as "YYYY-MM-DDTHH:MM:SS.mmmZ",
 * appended to out without quotes */
void watch_json_append_time (GString * out, gint64 wall_us);

G_END_DECLS
#endif /* __WATCH_JSON_H__ */
