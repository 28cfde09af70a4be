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
  /* accepts the connections and hands them to the server (libsoup's own
   * listener keeps a reference to every socket it accepts before 3.4) */
  GSocketService *service;
  GHashTable *in_flight;        /* SoupServerMessage* -> start time (gint64*) */
  GHashTable *conns;            /* GSocketConnection* (weak) -> accept time */
};

static void
conn_gone (gpointer data, GObject * where_the_object_was)
{
  WatchHttp *h = data;

  g_hash_table_remove (h->conns, where_the_object_was);
}

static gboolean
incoming (GSocketService * service, GSocketConnection * conn,
    GObject * source, gpointer data)
{
  WatchHttp *h = data;
  GSocketAddress *local, *remote;
  gint64 *t;
  GError *err = NULL;

  if (g_hash_table_size (h->conns) >= WATCH_HTTP_MAX_CONNECTIONS) {
    g_io_stream_close (G_IO_STREAM (conn), NULL, NULL);
    return TRUE;
  }
  local = g_socket_connection_get_local_address (conn, NULL);
  remote = g_socket_connection_get_remote_address (conn, NULL);
  if (local == NULL || remote == NULL) {
    /* (the client is already gone) */
    g_clear_object (&local);
    g_clear_object (&remote);
    g_io_stream_close (G_IO_STREAM (conn), NULL, NULL);
    return TRUE;
  }
  t = g_new (gint64, 1);
  *t = g_get_monotonic_time ();
  g_hash_table_insert (h->conns, conn, t);
  g_object_weak_ref (G_OBJECT (conn), conn_gone, h);
  if (!soup_server_accept_iostream (h->server, G_IO_STREAM (conn), local,
          remote, &err)) {
    g_clear_error (&err);
    g_io_stream_close (G_IO_STREAM (conn), NULL, NULL);
  }
  g_object_unref (local);
  g_object_unref (remote);
  return TRUE;
}

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
  h->conns = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL,
      g_free);
  h->service = g_socket_service_new ();
  g_socket_service_stop (h->service);
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
        || !g_socket_listener_add_socket (G_SOCKET_LISTENER (h->service),
            sock, NULL, &err))
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
  g_signal_connect (h->service, "incoming", G_CALLBACK (incoming), h);
  g_socket_service_start (h->service);
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
  for (i = 0; i < late->len; i++)
    g_hash_table_remove (h->in_flight, g_ptr_array_index (late, i));
  g_ptr_array_set_size (late, 0);
  /* a connection lives no longer than the deadline, whether it sent a
   * request or not */
  g_hash_table_iter_init (&it, h->conns);
  while (g_hash_table_iter_next (&it, &key, &value)) {
    if (now - *(gint64 *) value > WATCH_HTTP_DEADLINE_S * G_USEC_PER_SEC)
      g_ptr_array_add (late, key);
  }
  for (i = 0; i < late->len; i++) {
    GSocketConnection *conn = g_ptr_array_index (late, i);

    g_socket_shutdown (g_socket_connection_get_socket (conn), TRUE, TRUE,
        NULL);
  }
  g_ptr_array_unref (late);
}

void
watch_http_free (WatchHttp * h)
{
  GHashTableIter it;
  gpointer key;

  if (h == NULL)
    return;
  if (h->service != NULL) {
    g_socket_service_stop (h->service);
    g_socket_listener_close (G_SOCKET_LISTENER (h->service));
    g_object_unref (h->service);
  }
  if (h->server != NULL) {
    soup_server_disconnect (h->server);
    g_object_unref (h->server);
  }
  g_hash_table_iter_init (&it, h->conns);
  while (g_hash_table_iter_next (&it, &key, NULL))
    g_object_weak_unref (key, conn_gone, h);
  g_hash_table_unref (h->conns);
  g_hash_table_unref (h->in_flight);
  g_free (h);
}
