/* gpufft-watch: the HTTP endpoints (libsoup 3's SoupServer on the main
 * context).
 *
 * Each path has a builder the server calls on the main thread to make the
 * whole body at once (from snapshots: nothing waits on the analysis);
 * the body goes out asynchronously. Bounds: at most
 * WATCH_HTTP_MAX_IN_FLIGHT requests are served at once (more are answered
 * 503 at once), a body is at most the builder's own bound, and a request
 * not finished within WATCH_HTTP_DEADLINE_S (a client that does not read)
 * has its connection shut down (also one that has sent nothing yet), so
 * a slow client holds at most one body for that long and stalls nothing.
 * Each connection serves one request (Connection: close) and is shut
 * down WATCH_HTTP_DEADLINE_S after it was accepted; at most
 * WATCH_HTTP_MAX_CONNECTIONS are open at once (more are closed as they
 * arrive). GET and HEAD only. */
#ifndef __WATCH_HTTP_H__
#define __WATCH_HTTP_H__

#include <glib.h>

G_BEGIN_DECLS

#define WATCH_HTTP_MAX_IN_FLIGHT 64
#define WATCH_HTTP_DEADLINE_S 10
/* open connections at once (more are closed as they arrive) */
#define WATCH_HTTP_MAX_CONNECTIONS 256
/* connections the kernel queues before they are accepted */
#define WATCH_HTTP_BACKLOG 256

typedef struct _WatchHttp WatchHttp;

/* returns the body (g_free) and sets the status (200 unless it says
 * otherwise) */
typedef gchar *(*WatchHttpBuilder) (gpointer user_data, gsize * len,
    guint * status);

/* binds HOST:PORT; an error (such as the port in use) says which */
WatchHttp *watch_http_new (const gchar * host, guint port, GError ** error);
void watch_http_add (WatchHttp * http, const gchar * path,
    const gchar * content_type, WatchHttpBuilder builder,
    gpointer user_data);
/* shuts the connections older than the deadline */
void watch_http_tick (WatchHttp * http, gint64 now_us);
void watch_http_free (WatchHttp * http);

G_END_DECLS
#endif /* __WATCH_HTTP_H__ */
