/* gpufft-watch: readings and alarm events published to an MQTT broker
 * (libmosquitto), for dashboards and automation.
 *
 * Topics (PREFIX as given, without a trailing '/'; STREAM the stream's
 * name, or, where it holds '/', '+', '#', control characters or bytes
 * that are not UTF-8, the name with each of those replaced by '_' (by
 * U+FFFD for the bytes) and ".XXXXXXXX", its FNV-1a 32-bit hash in hex,
 * appended, so that no two streams share a topic):
 *   PREFIX/STREAM/reading  watch_reading_to_json, QoS 0, retained (the
 *                          last reading is the stream's state)
 *                          until watch_mqtt_forget (a stream removed)
 *                          clears it with an empty retained message
 *                          (QoS 1)
 *   PREFIX/STREAM/event    watch_event_to_json, QoS 1, not retained
 *   PREFIX/status          "online" (retained, QoS 1) once connected;
 *                          "offline" (retained) as the broker's last will
 *                          when the connection dies, and published by
 *                          watch_mqtt_free before it disconnects
 *
 * The client has its own network thread (mosquitto_loop_start); it
 * connects and reconnects by itself (a delay of 1 s growing to
 * WATCH_MQTT_RECONNECT_MAX_S), and while the very first connection has
 * not started (a broker not running yet) a second thread retries it on
 * the same schedule (libmosquitto's thread only retries connections it
 * once had). Publishing never waits on the network: a
 * message goes into a queue of at most WATCH_MQTT_QUEUE messages, and at
 * most WATCH_MQTT_INFLIGHT of them are handed to the client library at a
 * time (the rest wait for its confirmations: sent for QoS 0, PUBACK for
 * QoS 1). While the broker is unreachable the queue fills; when it is
 * full the oldest reading is dropped for a new message (or, holding only
 * events and clearings, the oldest of those), and watch_mqtt_get_dropped counts it, as it
 * counts messages the library refuses. Messages handed to the library
 * when a connection breaks may be lost (QoS 0) or sent again (QoS 1)
 * without being counted.
 *
 * The host name is resolved in watch_mqtt_new (the caller's thread) and
 * at each reconnection (the network threads); once connected, a name
 * that stops resolving ends the reconnecting (libmosquitto treats it as
 * fatal). A reconnection
 * to a host that does not answer waits for the system's TCP connect
 * timeout in the network thread, never in the caller's.
 *
 * Threading: watch_mqtt_publish_* and watch_mqtt_get_dropped from any
 * thread; watch_mqtt_free from one, once, after the last publish.
 * watch_mqtt_free returns within about WATCH_MQTT_STOP_MS (plus up to
 * 1 s for "offline" to be confirmed): a network thread that does not stop
 * by then is left to finish alone and frees what it still uses.
 * Ownership: readings and events are only read (their JSON is made in the
 * caller's thread). */
#ifndef __WATCH_MQTT_H__
#define __WATCH_MQTT_H__

#include <glib.h>
#include "watch-reading.h"

G_BEGIN_DECLS

#define WATCH_MQTT_QUEUE 1024
#define WATCH_MQTT_INFLIGHT 64
#define WATCH_MQTT_RECONNECT_MAX_S 5
#define WATCH_MQTT_KEEPALIVE_S 30
#define WATCH_MQTT_STOP_MS 2000

typedef struct _WatchMqtt WatchMqtt;

/* starts connecting to host:port (1..65535) and returns at once; NULL
 * and an error for a bad prefix (empty, not UTF-8, or with '+', '#' or a
 * control character), a bad port,
 * or a client the library cannot make. An unreachable broker is no
 * error: messages wait in the queue until it answers. */
WatchMqtt *watch_mqtt_new (const gchar * host, guint port,
    const gchar * prefix, GError ** error);
void watch_mqtt_publish_reading (WatchMqtt * m, const WatchReading * r);
void watch_mqtt_publish_event (WatchMqtt * m, const WatchEvent * e);
/* a stream gone: its retained reading cleared on the broker */
void watch_mqtt_forget (WatchMqtt * m, const gchar * stream);
/* messages dropped (queue full, refused by the library) so far */
guint64 watch_mqtt_get_dropped (WatchMqtt * m);
/* whether the broker has accepted the connection (and not lost it) */
gboolean watch_mqtt_is_connected (WatchMqtt * m);
/* "offline", disconnects, stops the network thread; NULL is ignored */
void watch_mqtt_free (WatchMqtt * m);

G_END_DECLS
#endif /* __WATCH_MQTT_H__ */
