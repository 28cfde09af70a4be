/* gpufft-watch: MQTT publishing (see watch-mqtt.h). */
#include "watch-mqtt.h"
#include "watch-json.h"

#include <string.h>
#include <mosquitto.h>
#include <gio/gio.h>

typedef struct
{
  gchar *topic;
  gchar *payload;
  gboolean event;               /* QoS 1; else a reading: QoS 0, dropped
                                 * first when the queue is full */
  gboolean retain;
} Msg;

struct _WatchMqtt
{
  struct mosquitto *mosq;
  gchar *prefix;
  gchar *status_topic;

  GMutex lock;
  GCond cond;
  GQueue queue;                 /* Msg, oldest first */
  guint queued_readings;
  gboolean connected;           /* CONNACK received, not lost since */
  guint inflight;               /* handed to the library, not confirmed */
  guint64 dropped;
  gint offline_mid;             /* "offline" being published, or -1 */
  gboolean offline_done;
  gboolean stopping;            /* watch_mqtt_free has begun */
  GThread *connect_thread;      /* first connection's retries, or NULL */
  gboolean stopped;             /* the network thread has ended */
  gboolean abandoned;           /* watch_mqtt_free gave up waiting */
};

static void
msg_free (Msg * msg)
{
  g_free (msg->topic);
  g_free (msg->payload);
  g_free (msg);
}

/* hands queued messages to the library while connected and under the
 * in-flight bound; never called with m->lock held */
static void
drain (WatchMqtt * m)
{
  for (;;) {
    Msg *msg;
    gint rc;

    g_mutex_lock (&m->lock);
    if (!m->connected || m->inflight >= WATCH_MQTT_INFLIGHT ||
        (msg = g_queue_pop_head (&m->queue)) == NULL) {
      g_mutex_unlock (&m->lock);
      return;
    }
    if (!msg->event)
      m->queued_readings--;
    m->inflight++;
    g_mutex_unlock (&m->lock);

    rc = mosquitto_publish (m->mosq, NULL, msg->topic,
        (gint) strlen (msg->payload), msg->payload, msg->event ? 1 : 0,
        msg->retain);

    if (rc == MOSQ_ERR_SUCCESS) {
      msg_free (msg);
      continue;
    }
    g_mutex_lock (&m->lock);
    if (m->inflight > 0)
      m->inflight--;
    if (rc == MOSQ_ERR_NO_CONN && m->queue.length < WATCH_MQTT_QUEUE) {
      /* the connection went between the check and the call: it waits
       * for the next one */
      g_queue_push_head (&m->queue, msg);
      if (!msg->event)
        m->queued_readings++;
      msg = NULL;
    } else {
      m->dropped++;
    }
    g_mutex_unlock (&m->lock);
    if (msg != NULL)
      msg_free (msg);
    if (rc == MOSQ_ERR_NO_CONN)
      return;
  }
}

static void
on_connect (struct mosquitto *mosq, void *data, int rc)
{
  WatchMqtt *m = data;

  if (rc != 0)
    return;
  g_mutex_lock (&m->lock);
  m->connected = TRUE;
  /* what was handed to the library before is sent again (QoS 1) or gone
   * (QoS 0): the bound starts afresh with this connection */
  m->inflight = 0;
  g_mutex_unlock (&m->lock);
  mosquitto_publish (mosq, NULL, m->status_topic, 6, "online", 1, TRUE);
  drain (m);
}

static void
on_disconnect (struct mosquitto *mosq, void *data, int rc)
{
  WatchMqtt *m = data;

  g_mutex_lock (&m->lock);
  m->connected = FALSE;
  g_cond_broadcast (&m->cond);
  g_mutex_unlock (&m->lock);
}

static void
on_publish (struct mosquitto *mosq, void *data, int mid)
{
  WatchMqtt *m = data;

  g_mutex_lock (&m->lock);
  if (mid == m->offline_mid) {
    m->offline_done = TRUE;
    g_cond_broadcast (&m->cond);
  } else if (m->inflight > 0) {
    /* "online" is not counted: at most one too many confirmations per
     * connection, which the bound's restart absorbs */
    m->inflight--;
  }
  g_mutex_unlock (&m->lock);
  drain (m);
}

static guint32
fnv1a (const gchar * s)
{
  guint32 h = 2166136261u;

  for (; *s; s++) {
    h ^= (guchar) * s;
    h *= 16777619u;
  }
  return h;
}

/* the stream's topic level: its name, or, where characters had to be
 * replaced, the name so changed and ".XXXXXXXX", the name's FNV-1a 32
 * hash, so that two streams never share a topic (as the loudness log's
 * file names) */
static gchar *
topic_part (const gchar * stream)
{
  gchar *valid = g_utf8_make_valid (stream, -1);
  gboolean changed = strcmp (valid, stream) != 0 || *valid == '\0';
  gchar *p, *part;

  for (p = valid; *p; p++) {
    if (*p == '/' || *p == '+' || *p == '#' || (guchar) * p < 0x20 ||
        *p == 0x7f) {
      *p = '_';
      changed = TRUE;
    }
  }
  if (!changed)
    return valid;
  part = g_strdup_printf ("%s.%08x", valid, fnv1a (stream));
  g_free (valid);
  return part;
}

static void
enqueue (WatchMqtt * m, const gchar * stream, const gchar * kind,
    gchar * payload, gboolean event, gboolean retain)
{
  Msg *msg = g_new0 (Msg, 1);
  gchar *part = topic_part (stream);

  msg->topic = g_strconcat (m->prefix, "/", part, "/", kind, NULL);
  msg->payload = payload;
  msg->event = event;
  msg->retain = retain;
  g_free (part);

  g_mutex_lock (&m->lock);
  if (m->queue.length >= WATCH_MQTT_QUEUE) {
    GList *l = m->queue.head;
    Msg *old;

    /* the oldest reading goes first; only events: the oldest event */
    if (m->queued_readings > 0)
      while (((Msg *) l->data)->event)
        l = l->next;
    old = l->data;
    g_queue_delete_link (&m->queue, l);
    if (!old->event)
      m->queued_readings--;
    msg_free (old);
    m->dropped++;
  }
  g_queue_push_tail (&m->queue, msg);
  if (!event)
    m->queued_readings++;
  g_mutex_unlock (&m->lock);
  drain (m);
}

void
watch_mqtt_publish_reading (WatchMqtt * m, const WatchReading * r)
{
  g_return_if_fail (m != NULL && r != NULL && r->stream != NULL);
  enqueue (m, r->stream, "reading", watch_reading_to_json (r), FALSE, TRUE);
}

void
watch_mqtt_forget (WatchMqtt * m, const gchar * stream)
{
  g_return_if_fail (m != NULL && stream != NULL);
  /* an empty retained message deletes the retained one (QoS 1, and kept
   * like an event when the queue is full) */
  enqueue (m, stream, "reading", g_strdup (""), TRUE, TRUE);
}

void
watch_mqtt_publish_event (WatchMqtt * m, const WatchEvent * e)
{
  g_return_if_fail (m != NULL && e != NULL && e->stream != NULL);
  enqueue (m, e->stream, "event", watch_event_to_json (e), TRUE, FALSE);
}

guint64
watch_mqtt_get_dropped (WatchMqtt * m)
{
  guint64 n;

  g_return_val_if_fail (m != NULL, 0);
  g_mutex_lock (&m->lock);
  n = m->dropped;
  g_mutex_unlock (&m->lock);
  return n;
}

gboolean
watch_mqtt_is_connected (WatchMqtt * m)
{
  gboolean c;

  g_return_val_if_fail (m != NULL, FALSE);
  g_mutex_lock (&m->lock);
  c = m->connected;
  g_mutex_unlock (&m->lock);
  return c;
}

static void
destroy (WatchMqtt * m)
{
  mosquitto_destroy (m->mosq);
  g_queue_clear_full (&m->queue, (GDestroyNotify) msg_free);
  g_mutex_clear (&m->lock);
  g_cond_clear (&m->cond);
  g_free (m->prefix);
  g_free (m->status_topic);
  g_free (m);
}

/* libmosquitto's network thread reconnects a connection it had, but
 * after a first connection that failed it only waits for another
 * connect call: this thread makes them, 1 s apart growing to
 * WATCH_MQTT_RECONNECT_MAX_S, until one starts (the network thread then
 * carries on) or watch_mqtt_free stops it. A call does not wait on the
 * network (a non-blocking connect), only on resolving the host name. */
static gpointer
connect_retry (gpointer data)
{
  WatchMqtt *m = data;
  guint delay_s = 1;
  gint rc;

  g_mutex_lock (&m->lock);
  while (!m->stopping) {
    gint64 deadline = g_get_monotonic_time () + delay_s * G_USEC_PER_SEC;

    while (!m->stopping && g_cond_wait_until (&m->cond, &m->lock, deadline));
    if (m->stopping)
      break;
    g_mutex_unlock (&m->lock);
    rc = mosquitto_reconnect_async (m->mosq);
    g_mutex_lock (&m->lock);
    if (rc == MOSQ_ERR_SUCCESS)
      break;
    delay_s = MIN (delay_s * 2, WATCH_MQTT_RECONNECT_MAX_S);
  }
  g_mutex_unlock (&m->lock);
  return NULL;
}

static gpointer
init_library (gpointer data)
{
  mosquitto_lib_init ();
  return NULL;
}

WatchMqtt *
watch_mqtt_new (const gchar * host, guint port, const gchar * prefix,
    GError ** error)
{
  static GOnce once = G_ONCE_INIT;
  WatchMqtt *m;
  gchar *p;
  gint rc;
  gboolean connected;

  g_return_val_if_fail (host != NULL && prefix != NULL, NULL);

  g_once (&once, init_library, NULL);

  if (port == 0 || port > 65535) {
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
        "MQTT port %u: valid are 1 to 65535", port);
    return NULL;
  }
  p = g_strdup (prefix);
  while (*p != '\0' && p[strlen (p) - 1] == '/')
    p[strlen (p) - 1] = '\0';
  /* (the library refuses every publish to a topic with a control
   * character, U+0000..U+001F or U+007F..U+009F) */
  if (*p == '\0' || mosquitto_pub_topic_check (p) != MOSQ_ERR_SUCCESS ||
      mosquitto_validate_utf8 (p, (gint) strlen (p)) != MOSQ_ERR_SUCCESS) {
    gchar *shown = g_strescape (prefix, NULL);

    g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
        "MQTT topic prefix \"%s\": it must be UTF-8 without control "
        "characters, not empty, and without '+' or '#'", shown);
    g_free (shown);
    g_free (p);
    return NULL;
  }

  m = g_new0 (WatchMqtt, 1);
  g_mutex_init (&m->lock);
  g_cond_init (&m->cond);
  g_queue_init (&m->queue);
  m->prefix = p;
  m->status_topic = g_strconcat (p, "/status", NULL);
  m->offline_mid = -1;
  m->mosq = mosquitto_new (NULL, TRUE, m);
  if (m->mosq == NULL) {
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED,
        "MQTT: cannot make a client");
    m->stopped = TRUE;
    g_free (m->prefix);
    g_free (m->status_topic);
    g_mutex_clear (&m->lock);
    g_cond_clear (&m->cond);
    g_free (m);
    return NULL;
  }
  mosquitto_connect_callback_set (m->mosq, on_connect);
  mosquitto_disconnect_callback_set (m->mosq, on_disconnect);
  mosquitto_publish_callback_set (m->mosq, on_publish);
  mosquitto_will_set (m->mosq, m->status_topic, 7, "offline", 1, TRUE);
  mosquitto_reconnect_delay_set (m->mosq, 1, WATCH_MQTT_RECONNECT_MAX_S,
      TRUE);

  /* a broker not answering yet is no error: the network thread retries */
  rc = mosquitto_connect_async (m->mosq, host, (gint) port,
      WATCH_MQTT_KEEPALIVE_S);
  if (rc == MOSQ_ERR_INVAL) {
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
        "MQTT host \"%s\": %s", host, mosquitto_strerror (rc));
    destroy (m);
    return NULL;
  }
  connected = rc == MOSQ_ERR_SUCCESS;
  rc = mosquitto_loop_start (m->mosq);
  if (rc != MOSQ_ERR_SUCCESS) {
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED,
        "MQTT: cannot start the network thread: %s", mosquitto_strerror (rc));
    destroy (m);
    return NULL;
  }
  if (!connected) {
    m->connect_thread = g_thread_try_new ("watch-mqtt-connect",
        connect_retry, m, NULL);
    if (m->connect_thread == NULL) {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED,
          "MQTT: cannot start the thread that connects to the broker");
      mosquitto_loop_stop (m->mosq, TRUE);
      destroy (m);
      return NULL;
    }
  }
  return m;
}

static gpointer
stop_thread (gpointer data)
{
  WatchMqtt *m = data;
  gboolean abandoned;

  mosquitto_loop_stop (m->mosq, FALSE);
  g_mutex_lock (&m->lock);
  m->stopped = TRUE;
  abandoned = m->abandoned;
  g_cond_broadcast (&m->cond);
  g_mutex_unlock (&m->lock);
  if (abandoned)
    destroy (m);
  return NULL;
}

void
watch_mqtt_free (WatchMqtt * m)
{
  gint64 deadline;
  gboolean connected, stopped;
  GThread *stopper;
  gint mid = -1;

  if (m == NULL)
    return;

  g_mutex_lock (&m->lock);
  m->stopping = TRUE;
  g_cond_broadcast (&m->cond);
  connected = m->connected;
  g_mutex_unlock (&m->lock);
  if (m->connect_thread != NULL)
    g_thread_join (m->connect_thread);
  if (connected) {
    /* the will is only sent when the connection dies: say it here, and
     * wait (bounded) for the broker to take it */
    g_mutex_lock (&m->lock);
    m->offline_mid = -2;        /* no id can match until the call returns */
    g_mutex_unlock (&m->lock);
    if (mosquitto_publish (m->mosq, &mid, m->status_topic, 7, "offline", 1,
            TRUE) == MOSQ_ERR_SUCCESS) {
      deadline = g_get_monotonic_time () + G_USEC_PER_SEC;
      g_mutex_lock (&m->lock);
      m->offline_mid = mid;
      while (!m->offline_done && m->connected &&
          g_cond_wait_until (&m->cond, &m->lock, deadline));
      g_mutex_unlock (&m->lock);
    }
  }
  mosquitto_disconnect (m->mosq);

  /* mosquitto_loop_stop has no deadline: it runs in a thread of its own,
   * waited for up to WATCH_MQTT_STOP_MS */
  stopper = g_thread_try_new ("watch-mqtt-stop", stop_thread, m, NULL);
  if (stopper == NULL) {
    g_warning ("MQTT: no thread to stop the network thread; it is left to "
        "end alone");
    return;
  }
  deadline = g_get_monotonic_time () + WATCH_MQTT_STOP_MS * 1000;
  g_mutex_lock (&m->lock);
  while (!m->stopped && g_cond_wait_until (&m->cond, &m->lock, deadline));
  stopped = m->stopped;
  if (!stopped)
    m->abandoned = TRUE;
  g_mutex_unlock (&m->lock);
  if (stopped) {
    g_thread_join (stopper);
    destroy (m);
  } else {
    g_warning ("MQTT: the network thread did not stop within %d ms; it is "
        "left to end alone", WATCH_MQTT_STOP_MS);
    g_thread_unref (stopper);
  }
}
