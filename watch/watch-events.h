/* gpufft-watch: the alarm event log, one JSON object a line (JSON Lines),
 * appended to a file or written to standard output, for people and for
 * log shippers:
 *   {"time":"2026-12-07T06:00:00.123Z","stream":"studio","alarm":"silence",
 *    "state":"raised","detail":"below -60 dBFS for 10 s"}
 * (the format of watch_event_to_json, watch-json.h: strings escaped per
 * RFC 8259, the detail cut to WATCH_JSON_MAX_DETAIL bytes).
 *
 * Each event is one write(2) of its whole line, at once (events are rare:
 * a few per alarm change), on a file opened O_APPEND, so that lines of
 * several writers never mix; nothing is buffered, so watch_events_flush
 * only asks the system to keep the file (fdatasync; nothing for standard
 * output). A failed write (a full disk) loses that event (counted,
 * watch_events_get_dropped) and gives an error once: watch_events_emit
 * returns FALSE with a GError on the first failure, then TRUE while
 * failures go on, until a write succeeds again. Nothing waits on a
 * reader: on a pipe, FIFO, socket or terminal (standard output included)
 * an event that cannot be written at once is dropped the same way (the
 * service's lines, a name of at most 200 bytes and a short detail, are
 * under PIPE_BUF, 4096 bytes, so one goes whole or not at all), and a FIFO nobody reads is an error of watch_events_new.
 *
 * Threading: any thread; calls are serialised by an internal lock.
 * Ownership: the WatchEvents belongs to its creator; events are only
 * read. Standard output is never closed. */
#ifndef __WATCH_EVENTS_H__
#define __WATCH_EVENTS_H__

#include <glib.h>
#include "watch-reading.h"

G_BEGIN_DECLS

typedef struct _WatchEvents WatchEvents;

/* path: a file (created mode 0644 when missing, appended to), or "-" for
 * standard output; NULL and an error when the file cannot be opened */
WatchEvents *watch_events_new (const gchar * path, GError ** error);
gboolean watch_events_emit (WatchEvents * ev, const WatchEvent * e,
    GError ** error);
/* opens the path again (a file renamed away by log rotation: the next
 * events go to a new file at the path); on failure the old file stays,
 * FALSE and an error; nothing for standard output */
gboolean watch_events_reopen (WatchEvents * ev, GError ** error);
void watch_events_flush (WatchEvents * ev);
/* events lost to failed writes since watch_events_new */
guint64 watch_events_get_dropped (WatchEvents * ev);
/* closes (a file) and frees; NULL is ignored */
void watch_events_free (WatchEvents * ev);

G_END_DECLS
#endif /* __WATCH_EVENTS_H__ */
