/* gpufft-watch: MQTT publishing (watch/watch-mqtt.c) against a real
 * broker, mosquitto, started here on a free 127.0.0.1 port, and read by a
 * libmosquitto subscriber: the reading retained (QoS 0) and cleared when
 * its stream is removed, the event at QoS 1, "online"/"offline", the last will when the publishing process is
 * killed, and a broker that only starts after the publisher: messages
 * wait in the bounded queue (the oldest readings dropped, counted, the
 * events kept), every call quick, and all flows once it answers.
 * Exits 77 (skipped) when mosquitto is not installed. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <glib/gstdio.h>
#include <gio/gio.h>
#include <mosquitto.h>
#include "watch-mqtt.h"
#include "watch-json.h"

#define PREFIX "gpufft/test"

static gchar *mosquitto_path;
static gchar *self_path;

/* ---- the broker ---- */

typedef struct
{
  GPid pid;
  guint port;
  gchar *dir;
  gchar *conf;
} Broker;

static guint
free_port (void)
{
  struct sockaddr_in a = { 0 };
  socklen_t len = sizeof (a);
  gint fd = socket (AF_INET, SOCK_STREAM, 0);

  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
  g_assert_cmpint (bind (fd, (struct sockaddr *) &a, sizeof (a)), ==, 0);
  g_assert_cmpint (getsockname (fd, (struct sockaddr *) &a, &len), ==, 0);
  close (fd);
  return ntohs (a.sin_port);
}

static gboolean
port_answers (guint port)
{
  struct sockaddr_in a = { 0 };
  gint fd = socket (AF_INET, SOCK_STREAM, 0);
  gboolean ok;

  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
  a.sin_port = htons (port);
  ok = connect (fd, (struct sockaddr *) &a, sizeof (a)) == 0;
  close (fd);
  return ok;
}

static Broker *
broker_new (void)
{
  Broker *b = g_new0 (Broker, 1);
  GError *error = NULL;
  gchar *text;

  b->port = free_port ();
  b->dir = g_dir_make_tmp ("watch-mqtt-XXXXXX", &error);
  g_assert_no_error (error);
  b->conf = g_build_filename (b->dir, "mosquitto.conf", NULL);
  /* persistence: a subscriber's session outlives a restart; run as this
   * user (mosquitto started as root would change to its own user) */
  text = g_strdup_printf ("listener %u 127.0.0.1\nallow_anonymous true\n"
      "persistence true\npersistence_location %s/\nlog_type error\n"
      "user %s\n", b->port, b->dir, g_get_user_name ());
  g_assert_true (g_file_set_contents (b->conf, text, -1, NULL));
  g_free (text);
  return b;
}

/* the broker ends with the test, even one that fails */
static void
die_with_parent (gpointer data)
{
  prctl (PR_SET_PDEATHSIG, SIGKILL);
}

static void
broker_start (Broker * b)
{
  gchar *argv[] = { mosquitto_path, (gchar *) "-c", b->conf, NULL };
  GError *error = NULL;
  gint64 deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;

  g_assert_true (g_spawn_async (NULL, argv, NULL, G_SPAWN_DO_NOT_REAP_CHILD |
          G_SPAWN_STDOUT_TO_DEV_NULL, die_with_parent, NULL, &b->pid,
          &error));
  g_assert_no_error (error);
  while (!port_answers (b->port)) {
    g_assert_cmpint (g_get_monotonic_time (), <, deadline);
    g_usleep (10000);
  }
}

static void
broker_stop (Broker * b)
{
  gint status, i;

  if (b->pid == 0)
    return;
  kill (b->pid, SIGTERM);
  for (i = 0; i < 500 && waitpid (b->pid, &status, WNOHANG) == 0; i++)
    g_usleep (10000);
  if (i == 500) {
    kill (b->pid, SIGKILL);
    waitpid (b->pid, &status, 0);
  }
  b->pid = 0;
}

static void
broker_free (Broker * b)
{
  GDir *d;
  const gchar *name;

  broker_stop (b);
  d = g_dir_open (b->dir, 0, NULL);
  while ((name = g_dir_read_name (d)) != NULL) {
    gchar *path = g_build_filename (b->dir, name, NULL);
    g_unlink (path);
    g_free (path);
  }
  g_dir_close (d);
  g_rmdir (b->dir);
  g_free (b->dir);
  g_free (b->conf);
  g_free (b);
}

/* ---- a subscriber ---- */

typedef struct
{
  gchar *topic;
  gchar *payload;
  gint qos;
  gboolean retain;
  gboolean taken;               /* returned by sub_wait already */
} Message;

typedef struct
{
  struct mosquitto *mosq;
  GMutex lock;
  GCond cond;
  GPtrArray *messages;          /* Message, in arrival order */
  gboolean subscribed;
} Sub;

static void
message_free (gpointer data)
{
  Message *m = data;

  g_free (m->topic);
  g_free (m->payload);
  g_free (m);
}

static void
sub_on_message (struct mosquitto *mosq, void *data,
    const struct mosquitto_message *msg)
{
  Sub *s = data;
  Message *m = g_new0 (Message, 1);

  m->topic = g_strdup (msg->topic);
  m->payload = g_strndup (msg->payload, msg->payloadlen);
  m->qos = msg->qos;
  m->retain = msg->retain;
  g_mutex_lock (&s->lock);
  g_ptr_array_add (s->messages, m);
  g_cond_broadcast (&s->cond);
  g_mutex_unlock (&s->lock);
}

static void
sub_on_subscribe (struct mosquitto *mosq, void *data, int mid, int n,
    const int *granted)
{
  Sub *s = data;

  g_mutex_lock (&s->lock);
  s->subscribed = TRUE;
  g_cond_broadcast (&s->cond);
  g_mutex_unlock (&s->lock);
}

static void
sub_subscribe (Sub * s)
{
  gint64 deadline = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;

  g_mutex_lock (&s->lock);
  s->subscribed = FALSE;
  g_mutex_unlock (&s->lock);
  g_assert_cmpint (mosquitto_subscribe (s->mosq, NULL, PREFIX "/#", 1), ==,
      MOSQ_ERR_SUCCESS);
  g_mutex_lock (&s->lock);
  while (!s->subscribed)
    g_assert_true (g_cond_wait_until (&s->cond, &s->lock, deadline));
  g_mutex_unlock (&s->lock);
}

/* id NULL: a clean session; else a session kept by the broker */
static Sub *
sub_new (guint port, const gchar * id, gboolean subscribe)
{
  Sub *s = g_new0 (Sub, 1);

  g_mutex_init (&s->lock);
  g_cond_init (&s->cond);
  s->messages = g_ptr_array_new_with_free_func (message_free);
  s->mosq = mosquitto_new (id, id == NULL, s);
  g_assert_nonnull (s->mosq);
  mosquitto_message_callback_set (s->mosq, sub_on_message);
  mosquitto_subscribe_callback_set (s->mosq, sub_on_subscribe);
  g_assert_cmpint (mosquitto_connect (s->mosq, "127.0.0.1", port, 10), ==,
      MOSQ_ERR_SUCCESS);
  g_assert_cmpint (mosquitto_loop_start (s->mosq), ==, MOSQ_ERR_SUCCESS);
  if (subscribe)
    sub_subscribe (s);
  return s;
}

static void
sub_free (Sub * s)
{
  mosquitto_disconnect (s->mosq);
  mosquitto_loop_stop (s->mosq, FALSE);
  mosquitto_destroy (s->mosq);
  g_ptr_array_unref (s->messages);
  g_mutex_clear (&s->lock);
  g_cond_clear (&s->cond);
  g_free (s);
}

/* the first message not returned yet on topic whose payload contains
 * part (NULL: any), waiting up to timeout_ms; NULL when none came */
static Message *
sub_wait (Sub * s, const gchar * topic, const gchar * part, gint timeout_ms)
{
  gint64 deadline = g_get_monotonic_time () + timeout_ms * 1000;
  Message *found = NULL;
  guint i;

  g_mutex_lock (&s->lock);
  for (;;) {
    for (i = 0; i < s->messages->len && found == NULL; i++) {
      Message *m = g_ptr_array_index (s->messages, i);

      if (!m->taken && strcmp (m->topic, topic) == 0 &&
          (part == NULL || strstr (m->payload, part) != NULL)) {
        m->taken = TRUE;
        found = m;
      }
    }
    if (found != NULL || !g_cond_wait_until (&s->cond, &s->lock, deadline))
      break;
  }
  g_mutex_unlock (&s->lock);
  return found;
}

static gint
cmp_gint64 (const void *a, const void *b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;

  return x < y ? -1 : x > y;
}

static void
wait_connected (WatchMqtt * m, gint timeout_s)
{
  gint64 deadline = g_get_monotonic_time () + timeout_s * G_USEC_PER_SEC;

  while (!watch_mqtt_is_connected (m)) {
    g_assert_cmpint (g_get_monotonic_time (), <, deadline);
    g_usleep (10000);
  }
}

static void
reading (WatchReading * r, const gchar * stream, guint64 n)
{
  memset (r, 0, sizeof (*r));
  r->stream = (gchar *) stream;
  r->wall_us = G_GINT64_CONSTANT (1796623200000000) + n * G_USEC_PER_SEC;
  r->up = TRUE;
  r->channels = 2;
  r->momentary_lufs = -23.0;
  r->shortterm_lufs = -23.5;
  r->integrated_lufs = -24.0;
  r->lra_lu = 2.0;
  r->true_peak_dbtp = -3.0;
  r->sample_peak_dbfs[0] = r->sample_peak_dbfs[1] = -3.5;
  r->rms_dbfs[0] = r->rms_dbfs[1] = -20.0;
  r->dominant_hz = 997.0;
  r->restarts = n;
}

static void
event (WatchEvent * e, const gchar * stream, const gchar * detail)
{
  memset (e, 0, sizeof (*e));
  e->stream = (gchar *) stream;
  e->kind = WATCH_ALARM_SILENCE;
  e->raised = TRUE;
  e->wall_us = G_GINT64_CONSTANT (1796623200000000);
  e->detail = (gchar *) detail;
}

/* FNV-1a, 32 bits, of @s (offset basis 2166136261, prime 16777619) */
static guint32
fnv1a32 (const gchar * s)
{
  guint32 h = 2166136261u;

  for (; *s != '\0'; s++) {
    h ^= (guchar) * s;
    h *= 16777619u;
  }
  return h;
}

/* ---- the tests ---- */

static void
test_publish (void)
{
  Broker *b = broker_new ();
  Sub *live, *late;
  WatchMqtt *m;
  GError *error = NULL;
  WatchReading r;
  WatchEvent e;
  Message *msg;
  gchar *rjson, *ejson, *other_json;
  gint64 t0;
  /* the name's topic level: '/', '+' and '#' replaced, and the name's
   * hash so that no other name shares it */
  gchar *level = g_strdup_printf ("studio a_b__.%08x",
      fnv1a32 ("studio a/b+#"));
  gchar *reading_topic = g_strdup_printf (PREFIX "/%s/reading", level);
  gchar *event_topic = g_strdup_printf (PREFIX "/%s/event", level);

  broker_start (b);
  live = sub_new (b->port, NULL, TRUE);
  m = watch_mqtt_new ("127.0.0.1", b->port, PREFIX "/", &error);
  g_assert_no_error (error);
  wait_connected (m, 10);
  msg = sub_wait (live, PREFIX "/status", NULL, 5000);
  g_assert_nonnull (msg);
  g_assert_cmpstr (msg->payload, ==, "online");

  /* '/', '+' and '#' in a stream's name stay inside its topic level */
  reading (&r, "studio a/b+#", 7);
  event (&e, "studio a/b+#", "below -60 dBFS for 10 s \"quoted\"");
  rjson = watch_reading_to_json (&r);
  ejson = watch_event_to_json (&e);
  watch_mqtt_publish_reading (m, &r);
  watch_mqtt_publish_event (m, &e);

  msg = sub_wait (live, reading_topic, NULL, 5000);
  g_assert_nonnull (msg);
  g_assert_cmpstr (msg->payload, ==, rjson);
  g_assert_cmpint (msg->qos, ==, 0);
  msg = sub_wait (live, event_topic, NULL, 5000);
  g_assert_nonnull (msg);
  g_assert_cmpstr (msg->payload, ==, ejson);
  g_assert_cmpint (msg->qos, ==, 1);
  g_assert_false (msg->retain);

  /* a name that is its own topic level keeps it, apart from the one
   * above */
  reading (&r, "studio a_b__", 8);
  other_json = watch_reading_to_json (&r);
  watch_mqtt_publish_reading (m, &r);
  msg = sub_wait (live, PREFIX "/studio a_b__/reading", NULL, 5000);
  g_assert_nonnull (msg);
  g_assert_cmpstr (msg->payload, ==, other_json);

  /* a subscriber coming later gets the readings (retained), not the
   * event */
  late = sub_new (b->port, NULL, TRUE);
  msg = sub_wait (late, reading_topic, NULL, 5000);
  g_assert_nonnull (msg);
  g_assert_true (msg->retain);
  g_assert_cmpstr (msg->payload, ==, rjson);
  msg = sub_wait (late, PREFIX "/studio a_b__/reading", NULL, 5000);
  g_assert_nonnull (msg);
  g_assert_cmpstr (msg->payload, ==, other_json);
  msg = sub_wait (late, PREFIX "/status", NULL, 5000);
  g_assert_nonnull (msg);
  g_assert_cmpstr (msg->payload, ==, "online");
  g_assert_true (msg->retain);
  g_assert_null (sub_wait (late, event_topic, NULL, 300));

  /* the stream removed: its retained reading is cleared (an empty
   * message), and a subscriber coming after gets none */
  watch_mqtt_forget (m, "studio a/b+#");
  msg = sub_wait (live, reading_topic, NULL, 5000);
  g_assert_nonnull (msg);
  /* (an empty payload arrives as NULL) */
  g_assert_true (msg->payload == NULL || msg->payload[0] == '\0');
  sub_free (late);
  late = sub_new (b->port, NULL, TRUE);
  g_assert_nonnull (sub_wait (late, PREFIX "/status", NULL, 5000));
  g_assert_null (sub_wait (late, reading_topic, NULL, 300));
  /* (the other name's reading stays) */
  msg = sub_wait (late, PREFIX "/studio a_b__/reading", NULL, 5000);
  g_assert_nonnull (msg);
  g_assert_cmpstr (msg->payload, ==, other_json);

  g_assert_cmpuint (watch_mqtt_get_dropped (m), ==, 0);
  t0 = g_get_monotonic_time ();
  watch_mqtt_free (m);
  g_test_message ("watch_mqtt_free: %" G_GINT64_FORMAT " us",
      g_get_monotonic_time () - t0);
  g_assert_cmpint (g_get_monotonic_time () - t0, <, 3 * G_USEC_PER_SEC);
  msg = sub_wait (live, PREFIX "/status", NULL, 5000);
  g_assert_nonnull (msg);
  g_assert_cmpstr (msg->payload, ==, "offline");

  g_free (rjson);
  g_free (ejson);
  g_free (other_json);
  g_free (level);
  g_free (reading_topic);
  g_free (event_topic);
  sub_free (live);
  sub_free (late);
  broker_free (b);
}

/* the publishing process killed: the broker says "offline" for it */
static void
test_last_will (void)
{
  Broker *b = broker_new ();
  Sub *s;
  gchar *port = NULL;
  gchar *argv[] = { self_path, (gchar *) "--publisher", NULL, NULL };
  GError *error = NULL;
  GPid pid;
  gint out, status;
  gchar line[64] = { 0 };
  Message *msg;

  broker_start (b);
  s = sub_new (b->port, NULL, TRUE);
  port = g_strdup_printf ("%u", b->port);
  argv[2] = port;
  g_assert_true (g_spawn_async_with_pipes (NULL, argv, NULL,
          G_SPAWN_DO_NOT_REAP_CHILD, die_with_parent, NULL, &pid, NULL, &out, NULL,
          &error));
  g_assert_no_error (error);
  g_assert_cmpint (read (out, line, sizeof (line) - 1), >, 0);
  g_assert_cmpstr (line, ==, "connected\n");
  msg = sub_wait (s, PREFIX "/status", "online", 5000);
  g_assert_nonnull (msg);
  msg = sub_wait (s, PREFIX "/killed/reading", NULL, 5000);
  g_assert_nonnull (msg);

  kill (pid, SIGKILL);
  waitpid (pid, &status, 0);
  close (out);
  msg = sub_wait (s, PREFIX "/status", NULL, 5000);
  g_assert_nonnull (msg);
  g_assert_cmpstr (msg->payload, ==, "offline");

  g_free (port);
  sub_free (s);
  broker_free (b);
}

/* the child of test_last_will: connects, publishes, waits to be killed */
static int
publisher_main (const gchar * port)
{
  WatchMqtt *m = watch_mqtt_new ("127.0.0.1", atoi (port), PREFIX, NULL);
  WatchReading r;

  if (m == NULL)
    return 1;
  wait_connected (m, 10);
  reading (&r, "killed", 1);
  watch_mqtt_publish_reading (m, &r);
  printf ("connected\n");
  fflush (stdout);
  for (;;)
    g_usleep (G_USEC_PER_SEC);
  return 0;
}

/* the broker down when the publisher starts: calls stay quick, the queue
 * keeps WATCH_MQTT_QUEUE messages, the oldest readings going first, and
 * everything kept flows once the broker runs */
static void
test_broker_later (void)
{
  Broker *b = broker_new ();
  Sub *s;
  WatchMqtt *m;
  WatchReading r;
  WatchEvent e;
  Message *msg;
  gint64 t0, slowest = 0, dt;
  guint i, n = WATCH_MQTT_QUEUE + 6;
  gint64 times[WATCH_MQTT_QUEUE + 6];
  GError *error = NULL;
  gchar *last;

  /* a subscriber's session, kept by the broker across its restart */
  broker_start (b);
  s = sub_new (b->port, "watch-test-late", TRUE);
  sub_free (s);
  broker_stop (b);

  m = watch_mqtt_new ("127.0.0.1", b->port, PREFIX, &error);
  g_assert_no_error (error);
  event (&e, "late", "first");
  t0 = g_get_monotonic_time ();
  watch_mqtt_publish_event (m, &e);
  slowest = g_get_monotonic_time () - t0;
  for (i = 0; i < n; i++) {
    reading (&r, "late", i);
    t0 = g_get_monotonic_time ();
    watch_mqtt_publish_reading (m, &r);
    dt = g_get_monotonic_time () - t0;
    slowest = MAX (slowest, dt);
    times[i] = dt;
  }
  qsort (times, n, sizeof (gint64), cmp_gint64);
  event (&e, "late", "last");
  t0 = g_get_monotonic_time ();
  watch_mqtt_publish_event (m, &e);
  dt = g_get_monotonic_time () - t0;
  slowest = MAX (slowest, dt);
  g_test_message ("publish with the broker down: median %" G_GINT64_FORMAT
      " us, 99th percentile %" G_GINT64_FORMAT " us, slowest %"
      G_GINT64_FORMAT " us", times[n / 2], times[n * 99 / 100], slowest);
  /* waiting on the network would take a second or more (the retries'
   * delay, a connect, resolving); single calls on a busy machine can be
   * preempted for tens of ms */
  g_assert_cmpint (times[n * 99 / 100], <, 5000);
  g_assert_cmpint (slowest, <, 500000);
  g_assert_false (watch_mqtt_is_connected (m));
  /* n + 2 messages, WATCH_MQTT_QUEUE kept: the oldest readings dropped */
  g_assert_cmpuint (watch_mqtt_get_dropped (m), ==, n + 2 - WATCH_MQTT_QUEUE);

  g_usleep (G_USEC_PER_SEC / 2);
  broker_start (b);
  wait_connected (m, 20);
  s = sub_new (b->port, "watch-test-late", FALSE);
  msg = sub_wait (s, PREFIX "/late/event", NULL, 10000);
  g_assert_nonnull (msg);
  g_assert_nonnull (strstr (msg->payload, "\"detail\":\"first\""));
  g_assert_cmpint (msg->qos, ==, 1);
  msg = sub_wait (s, PREFIX "/late/event", NULL, 10000);
  g_assert_nonnull (msg);
  g_assert_nonnull (strstr (msg->payload, "\"detail\":\"last\""));
  /* the last reading arrives, live or retained (subscribing again) */
  sub_subscribe (s);
  last = g_strdup_printf ("\"restarts\":%u}", n - 1);
  msg = sub_wait (s, PREFIX "/late/reading", last, 10000);
  g_assert_nonnull (msg);
  g_free (last);
  g_assert_cmpuint (watch_mqtt_get_dropped (m), ==, n + 2 - WATCH_MQTT_QUEUE);

  watch_mqtt_free (m);
  sub_free (s);
  broker_free (b);
}

/* the broker restarted under a connected publisher: events published
 * meanwhile wait in the queue and arrive after the reconnection */
static void
test_broker_restart (void)
{
  Broker *b = broker_new ();
  Sub *s;
  WatchMqtt *m;
  WatchEvent e;
  Message *msg;
  gint64 t0, dt, slowest = 0;
  guint i;

  broker_start (b);
  s = sub_new (b->port, "watch-test-restart", TRUE);
  sub_free (s);
  m = watch_mqtt_new ("127.0.0.1", b->port, PREFIX, NULL);
  wait_connected (m, 10);
  broker_stop (b);
  t0 = g_get_monotonic_time ();
  while (watch_mqtt_is_connected (m)) {
    g_assert_cmpint (g_get_monotonic_time () - t0, <, 5 * G_USEC_PER_SEC);
    g_usleep (10000);
  }
  for (i = 0; i < 3; i++) {
    gchar detail[16];

    g_snprintf (detail, sizeof (detail), "down %u", i);
    event (&e, "restart", detail);
    t0 = g_get_monotonic_time ();
    watch_mqtt_publish_event (m, &e);
    dt = g_get_monotonic_time () - t0;
    slowest = MAX (slowest, dt);
  }
  g_test_message ("slowest publish with the broker gone: %" G_GINT64_FORMAT
      " us", slowest);
  g_assert_cmpint (slowest, <, 500000);
  broker_start (b);
  wait_connected (m, 20);
  s = sub_new (b->port, "watch-test-restart", FALSE);
  for (i = 0; i < 3; i++) {
    gchar detail[32];

    g_snprintf (detail, sizeof (detail), "\"detail\":\"down %u\"", i);
    msg = sub_wait (s, PREFIX "/restart/event", detail, 10000);
    g_assert_nonnull (msg);
  }
  g_assert_cmpuint (watch_mqtt_get_dropped (m), ==, 0);
  watch_mqtt_free (m);
  sub_free (s);
  broker_free (b);
}

/* no broker ever: publishing stays quick, free returns promptly */
static void
test_never_connected (void)
{
  WatchMqtt *m = watch_mqtt_new ("127.0.0.1", free_port (), PREFIX, NULL);
  WatchReading r;
  WatchEvent e;
  gint64 t0, dt;
  guint i;

  g_assert_nonnull (m);
  reading (&r, "nowhere", 1);
  event (&e, "nowhere", NULL);
  t0 = g_get_monotonic_time ();
  watch_mqtt_publish_reading (m, &r);
  watch_mqtt_publish_event (m, &e);
  dt = g_get_monotonic_time () - t0;
  g_assert_cmpint (dt, <, 500000);
  g_assert_cmpuint (watch_mqtt_get_dropped (m), ==, 0);
  /* the queue full of events: the reading goes first, then the oldest
   * events, one for each new one */
  for (i = 0; i < WATCH_MQTT_QUEUE; i++)
    watch_mqtt_publish_event (m, &e);
  g_assert_cmpuint (watch_mqtt_get_dropped (m), ==, 2);
  for (i = 0; i < 5; i++)
    watch_mqtt_publish_event (m, &e);
  g_assert_cmpuint (watch_mqtt_get_dropped (m), ==, 7);
  /* the first retry (after 1 s) has failed too */
  g_usleep (1200000);
  g_assert_false (watch_mqtt_is_connected (m));
  t0 = g_get_monotonic_time ();
  watch_mqtt_free (m);
  dt = g_get_monotonic_time () - t0;
  g_test_message ("watch_mqtt_free, never connected: %" G_GINT64_FORMAT
      " us", dt);
  g_assert_cmpint (dt, <, 500000);
}

static void
test_bad_arguments (void)
{
  GError *error = NULL;

  g_assert_null (watch_mqtt_new ("127.0.0.1", 1883, "a/+/b", &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "a/+/b"));
  g_clear_error (&error);
  g_assert_null (watch_mqtt_new ("127.0.0.1", 1883, "//", &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_null (watch_mqtt_new ("127.0.0.1", 70000, "x", &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "70000"));
  g_clear_error (&error);
  /* a control character (which every publish would be refused for) */
  g_assert_null (watch_mqtt_new ("127.0.0.1", 1883, "a\tb", &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_null (watch_mqtt_new ("127.0.0.1", 1883, "a\xc2\x85", &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
}

int
main (int argc, char **argv)
{
  const gchar *env = g_getenv ("WATCH_MOSQUITTO");

  if (argc == 3 && strcmp (argv[1], "--publisher") == 0)
    return publisher_main (argv[2]);

  if (env != NULL && g_file_test (env, G_FILE_TEST_IS_EXECUTABLE))
    mosquitto_path = g_strdup (env);
  if (mosquitto_path == NULL)
    mosquitto_path = g_find_program_in_path ("mosquitto");
  if (mosquitto_path == NULL &&
      g_file_test ("/usr/sbin/mosquitto", G_FILE_TEST_IS_EXECUTABLE))
    mosquitto_path = g_strdup ("/usr/sbin/mosquitto");
  if (mosquitto_path == NULL) {
    printf ("1..0 # SKIP mosquitto (the MQTT broker) is not installed\n");
    return 77;
  }
  self_path = g_file_read_link ("/proc/self/exe", NULL);
  if (self_path == NULL)
    self_path = g_strdup (argv[0]);
  mosquitto_lib_init ();

  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/watch/mqtt/publish", test_publish);
  g_test_add_func ("/watch/mqtt/last-will", test_last_will);
  g_test_add_func ("/watch/mqtt/broker-later", test_broker_later);
  g_test_add_func ("/watch/mqtt/broker-restart", test_broker_restart);
  g_test_add_func ("/watch/mqtt/never-connected", test_never_connected);
  g_test_add_func ("/watch/mqtt/bad-arguments", test_bad_arguments);
  return g_test_run ();
}
