/* gpufft-watch: the loudness log, one CSV file per stream and UTC day,
 * one line per reading (the service writes one a second), kept for
 * compliance checks.
 *
 * Files: DIR/NAME-YYYY-MM-DD.csv, the day being the reading's wall_us in
 * UTC, so a file ends at midnight UTC and the next reading opens the next
 * day's file. NAME is the stream's name with every character but
 * [A-Za-z0-9._-] replaced by '_'; where that changed the name, or the
 * name is longer than WATCH_LOG_MAX_NAME bytes (then cut), ".XXXXXXXX"
 * (the name's 32-bit FNV-1a hash in hex) follows, so that two names never
 * share a file and the same name always gets the same file. A file name
 * is never a path (no separator can remain) nor a pattern. An existing
 * file is appended to; a new (empty) one starts with the header line
 *   time,momentary_lufs,shortterm_lufs,integrated_lufs,lra_lu,true_peak_dbtp
 * Lines: time as ISO 8601 UTC with milliseconds
 * (2026-12-07T06:00:00.000Z), values with two decimals in the C locale,
 * -inf (silence) written as -inf, a value not measured yet (NaN) left
 * empty.
 *
 * Bounds: at most one open file per stream (closed by watch_log_forget,
 * at the day's change and by watch_log_free); at most
 * WATCH_LOG_BUFFER_BYTES of lines buffered per stream, written when that
 * fills, when the buffer is WATCH_LOG_FLUSH_S seconds old (by the
 * readings' times), on watch_log_flush and on closing. Writes are plain
 * write(2) calls on files opened O_APPEND; a failed write (a full disk)
 * drops that stream's buffered lines (counted, watch_log_get_dropped) and
 * gives an error once: watch_log_write returns FALSE with a GError on the
 * first failure, then TRUE while failures go on (lines dropped, counted),
 * until a write succeeds again.
 *
 * Threading: any thread; calls are serialised by an internal lock (never
 * held while calling back into the caller). Ownership: the WatchLog
 * belongs to its creator; readings are only read. */
#ifndef __WATCH_LOG_H__
#define __WATCH_LOG_H__

#include <glib.h>
#include "watch-reading.h"

G_BEGIN_DECLS

#define WATCH_LOG_BUFFER_BYTES 4096
#define WATCH_LOG_FLUSH_S 10
#define WATCH_LOG_MAX_NAME 128

typedef struct _WatchLog WatchLog;

/* dir is created (with parents, mode 0755) when missing; NULL and an
 * error when it cannot be */
WatchLog *watch_log_new (const gchar * dir, GError ** error);
/* appends r's line to its stream's file of r's day (r->stream not NULL);
 * FALSE and error as above */
gboolean watch_log_write (WatchLog * log, const WatchReading * r,
    GError ** error);
/* writes every stream's buffered lines (SIGTERM, before exit) */
void watch_log_flush (WatchLog * log);
/* a stream removed: its lines written, its file closed */
void watch_log_forget (WatchLog * log, const gchar * stream);
/* lines lost to failed writes since watch_log_new */
guint64 watch_log_get_dropped (WatchLog * log);
/* flushes, closes and frees; NULL is ignored */
void watch_log_free (WatchLog * log);

/* the file name (no folder) of stream's log on the UTC day of wall_us */
gchar *watch_log_file_name (const gchar * stream, gint64 wall_us);

G_END_DECLS
#endif /* __WATCH_LOG_H__ */
