/* gpufft-watch: HTTP endpoints on libsoup 3 (watch-http.h). */
#include "watch-http.h"

#include <gio/gio.h>
#include <libsoup/soup.h>
#include <string.h>

typedef struct
{
  gchar *content_type;
  WatchHttpBuilder builder;
  gpointer user_data;
} Endpoint;

struct _WatchHttp
{
  SoupServer *server;
  GHashTable *in_flight;        /* SoupServerMessage* -> start time (gint64*) */
};

static void
endpoint_free (gpointer p)
{
  Endpoint *e = p;

  g_free (e->content_type);
  g_free (e);
}

static void
request_started (SoupServer * server, SoupServerMessage * msg, gpointer data)
{
  WatchHttp *h = data;
  gint64 *t = g_new (gint64, 1);

  *t = g_get_monotonic_time ();
  g_hash_table_insert (h->in_flight, msg, t);
}

static void
request_done (SoupServer * server, SoupServerMessage * msg, gpointer data)
{
  WatchHttp *h = data;

  g_hash_table_remove (h->in_flight, msg);
}

static void
handle (SoupServer * server, SoupServerMessage * msg, const char *path,
    GHashTable * query, gpointer data)
{
  Endpoint *e = data;
  const gchar *method = soup_server_message_get_method (msg);
  WatchHttp *h = g_object_get_data (G_OBJECT (server), "watch-http");
  gchar *body;
  gsize len = 0;
  guint status = SOUP_STATUS_OK;

  /* one request a connection: a connection lives no longer than its
   * request's deadline */
  soup_message_headers_replace (soup_server_message_get_response_headers
      (msg), "Connection", "close");
  if (strcmp (method, "GET") != 0 && strcmp (method, "HEAD") != 0) {
    soup_server_message_set_status (msg, SOUP_STATUS_METHOD_NOT_ALLOWED,
        NULL);
    soup_message_headers_append (soup_server_message_get_response_headers
        (msg), "Allow", "GET, HEAD");
    return;
  }
  if (h != NULL && g_hash_table_size (h->in_flight) > WATCH_HTTP_MAX_IN_FLIGHT) {
    soup_server_message_set_status (msg, SOUP_STATUS_SERVICE_UNAVAILABLE,
        NULL);
    return;
  }
  body = e->builder (e->user_data, &len, &status);
  soup_server_message_set_status (msg, status, NULL);
  if (body != NULL)
    soup_server_message_set_response (msg, e->content_type,
        SOUP_MEMORY_TAKE, body, len);
}

WatchHttp *
watch_http_new (const gchar * host, guint port, GError ** error)
{
  WatchHttp *h = g_new0 (WatchHttp, 1);
  GInetAddress *ia = g_inet_address_new_from_string (host);
  GSocketAddress *sa;
  GSocket *sock;
  GError *err = NULL;

  if (ia == NULL) {
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
        "[service] listen: '%s' is not an IP address", host);
    g_free (h);
    return NULL;
  }
  sa = g_inet_socket_address_new (ia, (guint16) port);
  g_object_unref (ia);
  h->server = soup_server_new ("server-header", "gpufft-watch ", NULL);
  h->in_flight = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL,
      g_free);
  g_object_set_data (G_OBJECT (h->server), "watch-http", h);
  g_signal_connect (h->server, "request-started",
      G_CALLBACK (request_started), h);
  g_signal_connect (h->server, "request-finished", G_CALLBACK (request_done),
      h);
  g_signal_connect (h->server, "request-aborted", G_CALLBACK (request_done),
      h);
  sock = g_socket_new (g_socket_address_get_family (sa),
      G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP, &err);
  if (sock != NULL) {
    g_socket_set_listen_backlog (sock, WATCH_HTTP_BACKLOG);
    if (!g_socket_bind (sock, sa, TRUE, &err)
        || !g_socket_listen (sock, &err)
        || !soup_server_listen_socket (h->server, sock, 0, &err))
      g_clear_object (&sock);
  }
  g_object_unref (sa);
  if (sock == NULL) {
    g_set_error (error, G_IO_ERROR, err->code,
        "[service] listen: cannot listen on %s:%u: %s", host, port,
        err->message);
    g_error_free (err);
    watch_http_free (h);
    return NULL;
  }
  g_object_unref (sock);
  return h;
}

void
watch_http_add (WatchHttp * h, const gchar * path,
    const gchar * content_type, WatchHttpBuilder builder, gpointer user_data)
{
  Endpoint *e = g_new0 (Endpoint, 1);

  e->content_type = g_strdup (content_type);
  e->builder = builder;
  e->user_data = user_data;
  soup_server_add_handler (h->server, path, handle, e, endpoint_free);
}

void
watch_http_tick (WatchHttp * h, gint64 now_us)
{
  GHashTableIter it;
  gpointer key, value;
  GPtrArray *late = g_ptr_array_new ();
  gint64 now = g_get_monotonic_time ();
  guint i;

  g_hash_table_iter_init (&it, h->in_flight);
  while (g_hash_table_iter_next (&it, &key, &value)) {
    if (now - *(gint64 *) value > WATCH_HTTP_DEADLINE_S * G_USEC_PER_SEC)
      g_ptr_array_add (late, key);
  }
  for (i = 0; i < late->len; i++) {
    SoupServerMessage *msg = g_ptr_array_index (late, i);
    GSocket *sock = soup_server_message_get_socket (msg);

    g_hash_table_remove (h->in_flight, msg);
    if (sock != NULL)
      g_socket_shutdown (sock, TRUE, TRUE, NULL);
  }
  g_ptr_array_unref (late);
}

void
watch_http_free (WatchHttp * h)
{
  if (h == NULL)
    return;
  if (h->server != NULL) {
    soup_server_disconnect (h->server);
    g_object_unref (h->server);
  }
  g_hash_table_unref (h->in_flight);
  g_free (h);
}
