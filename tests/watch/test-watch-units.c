/* gpufft-watch's pure parts: configuration checks, alarm state machines,
 * the shard hash and the exposition's escaping (GLib's g_test). */
#include <glib.h>
#include <math.h>
#include <string.h>

#include "watch-alarm.h"
#include "watch-config.h"
#include "watch-metrics.h"
#include "watch-shard.h"

static WatchConfig *
load (const gchar * text, GError ** error)
{
  return watch_config_load_data (text, strlen (text), error);
}

/* the text must be refused with a message holding every @needle */
static void
assert_refused (const gchar * text, const gchar * n1, const gchar * n2)
{
  GError *err = NULL;
  WatchConfig *c = load (text, &err);

  g_assert_null (c);
  g_assert_nonnull (err);
  if (n1 != NULL && strstr (err->message, n1) == NULL)
    g_error ("'%s' does not name '%s'", err->message, n1);
  if (n2 != NULL && strstr (err->message, n2) == NULL)
    g_error ("'%s' does not name '%s'", err->message, n2);
  g_error_free (err);
}

static void
test_config_good (void)
{
  GError *err = NULL;
  WatchConfig *c = load ("[service]\nlisten=127.0.0.1:9999\n"
      "mqtt-host=broker\n"
      "[defaults]\nsilence-hold=2\nalarms=silence;down\n"
      "[stream a]\nsource=test:\ntest-freq=440\n"
      "[stream b]\nsource=rtp://0.0.0.0:5004\nrtp-encoding=L24\n"
      "channels=1\nsilence-hold=7\n"
      "[stream c]\nsource=https://example.org/x.mp3\n"
      "[stream d]\nsource=alsa:hw:0\n", &err);
  const WatchStreamConfig *a, *b, *cc, *d;

  g_assert_no_error (err);
  g_assert_cmpstr (c->listen_host, ==, "127.0.0.1");
  g_assert_cmpuint (c->listen_port, ==, 9999);
  g_assert_cmpuint (c->mqtt_port, ==, 1883);
  g_assert_true (g_str_has_prefix (c->mqtt_topic, "gpufft/"));
  g_assert_cmpstr (c->mqtt_host, ==, "broker");
  g_assert_null (c->log_dir);
  g_assert_cmpuint (c->streams->len, ==, 4);
  a = watch_config_find (c, "a");
  b = watch_config_find (c, "b");
  cc = watch_config_find (c, "c");
  d = watch_config_find (c, "d");
  g_assert_cmpint (a->kind, ==, WATCH_SOURCE_TEST);
  g_assert_cmpfloat (a->test_freq_hz, ==, 440);
  g_assert_cmpfloat (a->alarms.silence_hold_s, ==, 2);
  g_assert_true (a->alarms.enabled[WATCH_ALARM_SILENCE]);
  g_assert_false (a->alarms.enabled[WATCH_ALARM_CLIPPING]);
  g_assert_cmpint (b->kind, ==, WATCH_SOURCE_RTP);
  g_assert_cmpstr (b->location, ==, "0.0.0.0");
  g_assert_cmpuint (b->port, ==, 5004);
  g_assert_cmpint (b->rtp_encoding, ==, WATCH_RTP_L24);
  g_assert_cmpuint (b->channels, ==, 1);
  g_assert_cmpfloat (b->alarms.silence_hold_s, ==, 7);
  g_assert_cmpint (cc->kind, ==, WATCH_SOURCE_URI);
  g_assert_cmpint (d->kind, ==, WATCH_SOURCE_ALSA);
  g_assert_cmpstr (d->location, ==, "hw:0");
  g_assert_false (watch_stream_config_equal (a, b));
  g_assert_true (watch_stream_config_equal (a, a));
  watch_config_free (c);
}

static void
test_config_bad (void)
{
  assert_refused ("[service]\nlisten=127.0.0.1\n", "[service]", "listen");
  assert_refused ("[service]\nlisten=127.0.0.1:70000\n", "listen", "70000");
  assert_refused ("[service]\nbogus=1\n", "[service]", "bogus");
  assert_refused ("[servic]\n", "[servic]", "unknown group");
  assert_refused ("[defaults]\nsilence-hold=-1\n", "[defaults]",
      "silence-hold");
  assert_refused ("[defaults]\nsilence-hold=abc\n", "silence-hold", "abc");
  assert_refused ("[defaults]\nalarms=silence;loud\n", "alarms", "loud");
  assert_refused ("[stream x]\ntest-freq=1000\n", "[stream x]", "source");
  assert_refused ("[stream x]\nsource=test:\ncolour=red\n", "[stream x]",
      "colour");
  assert_refused ("[stream x]\nsource=rtp://host\n", "[stream x]",
      "rtp://HOST:PORT");
  assert_refused ("[stream x]\nsource=not a uri\n", "[stream x]", "source");
  assert_refused ("[stream x]\nsource=test:\nchannels=65\n", "channels",
      "65");
  assert_refused ("[stream x]\nsource=test:\nrtp-encoding=MP3\n",
      "rtp-encoding", "L16");
  assert_refused ("[stream x]\nsource=test:\nloudness-measure=peak\n",
      "loudness-measure", "short-term");
  assert_refused ("[stream x]\nsource=rtp://h:5000\nrtp-encoding=OPUS\n"
      "rate=44100\n", "[stream x]", "rate");
  assert_refused ("[service]\nmqtt-topic=a/#\n", "mqtt-topic", NULL);
  assert_refused ("[service]\nevents=\n", "events", NULL);
  assert_refused ("[service]\nmqtt-port=0\n", "mqtt-port", NULL);
  assert_refused ("[service]\nfft-size=1001\n", "fft-size", "odd");
  assert_refused ("[service]\nfft-size=128\n", "fft-size", "128");
  assert_refused ("no group\n", NULL, NULL);
  assert_refused ("[stream ]\nsource=test:\n", "[stream ]", "name");
  /* a value's escaped control characters (\n, \t, \r in the key file)
   * stay escaped in the message: one line, no forged log line */
  assert_refused ("[defaults]\nsilence-hold=1\\tA\\r\\nFAKE\n",
      "silence-hold", "'1\\tA\\r\\nFAKE'");
  assert_refused ("[stream x]\nsource=test:\nrtp-encoding=L16\\nX\n",
      "rtp-encoding", "'L16\\nX'");
}

static WatchReading
reading (gint64 t_s, gboolean up, gdouble rms, gdouble peak, gdouble st,
    gdouble hz)
{
  WatchReading r;

  memset (&r, 0, sizeof (r));
  r.stream = (gchar *) "s";
  r.wall_us = r.mono_us = t_s * G_USEC_PER_SEC;
  r.up = up;
  r.channels = up ? 2 : 0;
  r.rms_dbfs[0] = r.rms_dbfs[1] = rms;
  r.sample_peak_dbfs[0] = r.sample_peak_dbfs[1] = peak;
  r.momentary_lufs = r.shortterm_lufs = r.integrated_lufs = st;
  r.dominant_hz = hz;
  return r;
}

/* steps the machines one reading; returns the events as "+kind" "-kind"
 * joined by spaces */
static gchar *
step (WatchAlarms * a, const WatchAlarmSettings * s, WatchReading r)
{
  GPtrArray *ev = g_ptr_array_new_with_free_func ((GDestroyNotify)
      watch_event_free);
  GString *out = g_string_new ("");
  guint i;

  watch_alarms_update (a, s, &r, ev);
  for (i = 0; i < ev->len; i++) {
    WatchEvent *e = g_ptr_array_index (ev, i);
    g_string_append_printf (out, "%s%c%s", i ? " " : "",
        e->raised ? '+' : '-', watch_alarm_name (e->kind));
  }
  g_ptr_array_unref (ev);
  return g_string_free (out, FALSE);
}

#define STEP(t, up, rms, peak, lufs, hz, expect) G_STMT_START { \
  gchar *got = step (&a, &s, reading (t, up, rms, peak, lufs, hz)); \
  g_assert_cmpstr (got, ==, expect); g_free (got); } G_STMT_END

static void
test_alarm_machines (void)
{
  WatchConfig *c = load ("[defaults]\nsilence-hold=2\nclipping-hold=3\n"
      "loudness-hold=2\nloudness-measure=short-term\ntone-hold=3\n"
      "down-hold=2\n", NULL);
  WatchAlarmSettings s = c->defaults;
  WatchAlarms a;

  watch_alarms_init (&a, 1);
  /* sound at -23 LUFS, a wandering dominant frequency: nothing */
  STEP (100, TRUE, -26, -20, -23, 500, "");
  STEP (101, TRUE, -26, -20, -23, 600, "");
  /* silence: raised once it has held 2 s, cleared at the first sound */
  STEP (102, TRUE, -INFINITY, -INFINITY, -INFINITY, 0, "");
  STEP (103, TRUE, -80, -70, -INFINITY, 0, "");
  STEP (104, TRUE, -90, -80, -INFINITY, 0, "+silence");
  STEP (105, TRUE, -90, -80, -INFINITY, 0, "");
  STEP (106, TRUE, -26, -20, -23, 700, "-silence");
  /* a silence shorter than the hold raises nothing */
  STEP (107, TRUE, -90, -80, -23, 0, "");
  STEP (108, TRUE, -26, -20, -23, 800, "");
  /* clipping: at once, cleared after 3 s without */
  STEP (109, TRUE, -3, -0.1, -23, 900, "+clipping");
  STEP (110, TRUE, -3, -1, -23, 1000, "");
  STEP (111, TRUE, -3, -0.05, -23, 1100, "");
  STEP (112, TRUE, -3, -1, -23, 1200, "");
  STEP (114, TRUE, -3, -1, -23, 1300, "");
  STEP (115, TRUE, -3, -1, -23, 1400, "-clipping");
  /* loudness outside -23 +- 1 for 2 s */
  STEP (116, TRUE, -10, -6, -15, 1500, "");
  STEP (117, TRUE, -10, -6, -15, 1600, "");
  STEP (118, TRUE, -10, -6, -15, 1700, "+loudness");
  STEP (119, TRUE, -10, -6, -23.5, 1800, "-loudness");
  /* a tone within 1 Hz for 3 s */
  STEP (120, TRUE, -26, -20, -23, 997, "");
  STEP (121, TRUE, -26, -20, -23, 997.5, "");
  STEP (123, TRUE, -26, -20, -23, 997.2, "");
  STEP (124, TRUE, -26, -20, -23, 996.6, "+stuck_tone");
  STEP (125, TRUE, -26, -20, -23, 440, "-stuck_tone");
  /* down: at once (the hold is in `up`); the audio alarms stay as they
   * are while down, and go on when audio is back */
  STEP (126, TRUE, -90, -80, -23, 0, "");
  STEP (127, FALSE, NAN, NAN, NAN, NAN, "+down");
  STEP (130, FALSE, NAN, NAN, NAN, NAN, "");
  STEP (131, TRUE, -90, -80, -23, 0, "+silence -down");
  watch_config_free (c);
}

static void
test_alarm_disabled (void)
{
  WatchConfig *c = load ("[defaults]\nalarms=down\nsilence-hold=0\n", NULL);
  WatchAlarmSettings s = c->defaults;
  WatchAlarms a;

  watch_alarms_init (&a, 1);
  STEP (1, TRUE, -90, 0, -50, 997, "");
  STEP (2, TRUE, -90, 0, -50, 997, "");
  STEP (3, FALSE, NAN, NAN, NAN, NAN, "+down");
  watch_config_free (c);
}

/* a stream just added has had no time to deliver audio yet: down only
 * once the down-hold has passed since the machines began */
static void
test_alarm_start_grace (void)
{
  WatchConfig *c = load ("[defaults]\ndown-hold=5\n", NULL);
  WatchAlarmSettings s = c->defaults;
  WatchAlarms a;

  watch_alarms_init (&a, 100 * G_USEC_PER_SEC);
  STEP (101, FALSE, NAN, NAN, NAN, NAN, "");
  STEP (104, FALSE, NAN, NAN, NAN, NAN, "");
  STEP (105, FALSE, NAN, NAN, NAN, NAN, "+down");
  /* once audio came, down is at once (the hold is in `up`) */
  watch_alarms_init (&a, 200 * G_USEC_PER_SEC);
  STEP (201, TRUE, -20, -10, -23, 0, "");
  STEP (202, FALSE, NAN, NAN, NAN, NAN, "+down");
  watch_config_free (c);
}

/* the holds count on the readings' monotonic times: the wall clock
 * stepping back or forth by hours raises, clears and delays nothing */
static void
test_alarm_wall_steps (void)
{
  WatchConfig *c = load ("[defaults]\nsilence-hold=3\ndown-hold=2\n", NULL);
  WatchAlarmSettings s = c->defaults;
  WatchAlarms a;
  static const gint64 wall_shift_s[] = { 0, 7200, 7200, -3600, -3600, 0 };
  guint i;

  watch_alarms_init (&a, 100 * G_USEC_PER_SEC);
  for (i = 0; i < G_N_ELEMENTS (wall_shift_s); i++) {
    WatchReading r = reading (101 + i, TRUE, -90, -80, -30, 0);
    GPtrArray *ev = g_ptr_array_new_with_free_func ((GDestroyNotify)
        watch_event_free);

    r.wall_us += wall_shift_s[i] * G_USEC_PER_SEC;
    watch_alarms_update (&a, &s, &r, ev);
    /* silence since 101 s: raised at 104 s, the fourth reading, and only
     * then; its event carries the reading's wall time */
    if (i == 3) {
      g_assert_cmpuint (ev->len, ==, 1);
      g_assert_cmpint (((WatchEvent *) ev->pdata[0])->kind, ==,
          WATCH_ALARM_SILENCE);
      g_assert_cmpint (((WatchEvent *) ev->pdata[0])->wall_us, ==,
          r.wall_us);
    } else {
      g_assert_cmpuint (ev->len, ==, 0);
    }
    g_ptr_array_unref (ev);
  }
  watch_config_free (c);
}

static void
test_shard_hash (void)
{
  WatchShard sh;
  GError *err = NULL;
  guint i, k, n = 5, taken[5] = { 0 };

  /* FNV-1a 64's published vectors */
  g_assert_cmphex (watch_shard_hash (""), ==,
      G_GUINT64_CONSTANT (0xcbf29ce484222325));
  g_assert_cmphex (watch_shard_hash ("a"), ==,
      G_GUINT64_CONSTANT (0xaf63dc4c8601ec8c));
  g_assert_cmphex (watch_shard_hash ("foobar"), ==,
      G_GUINT64_CONSTANT (0x85944171f73967e8));
  g_assert_true (watch_shard_parse ("1/3", &sh, &err));
  g_assert_cmpuint (sh.index, ==, 1);
  g_assert_cmpuint (sh.count, ==, 3);
  g_assert_false (watch_shard_parse ("3/3", &sh, NULL));
  g_assert_false (watch_shard_parse ("1/0", &sh, NULL));
  g_assert_false (watch_shard_parse ("1", &sh, NULL));
  g_assert_false (watch_shard_parse ("-1/2", &sh, NULL));
  g_assert_false (watch_shard_parse ("0/2/3", &sh, NULL));
  /* every name in exactly one of n shards */
  for (i = 0; i < 1000; i++) {
    gchar *name = g_strdup_printf ("stream-%u", i);
    guint hits = 0;
    for (k = 0; k < n; k++) {
      WatchShard s = { k, n };
      if (watch_shard_takes (&s, name)) {
        hits++;
        taken[k]++;
      }
    }
    g_assert_cmpuint (hits, ==, 1);
    g_free (name);
  }
  for (k = 0; k < n; k++)
    g_assert_cmpuint (taken[k], >, 150);
}

static void
test_escaping (void)
{
  GString *s = g_string_new ("");
  WatchSnapshot snap;
  WatchSnapshot *snaps[1] = { &snap };
  /* the loudness log not configured */
  WatchOutputDrops drops = { -1, 3, 0 };
  gchar *text;
  gsize len;

  watch_metrics_escape_label (s, "a\\b\"c\nd");
  g_assert_cmpstr (s->str, ==, "a\\\\b\\\"c\\nd");
  g_string_truncate (s, 0);
  watch_metrics_json_string (s, "q\"\\\n\x01");
  g_assert_cmpstr (s->str, ==, "\"q\\\"\\\\\\u000a\\u0001\"");
  g_string_truncate (s, 0);
  watch_metrics_number (s, -INFINITY);
  g_string_append_c (s, ' ');
  watch_metrics_number (s, -20.5);
  g_assert_cmpstr (s->str, ==, "-Inf -20.5");
  g_string_free (s, TRUE);

  memset (&snap, 0, sizeof (snap));
  snap.reading.stream = (gchar *) "x\"y";
  snap.reading.up = TRUE;
  snap.reading.channels = 1;
  snap.reading.momentary_lufs = -INFINITY;
  snap.reading.shortterm_lufs = NAN;
  snap.reading.integrated_lufs = NAN;
  snap.reading.lra_lu = NAN;
  snap.reading.true_peak_dbtp = NAN;
  snap.reading.dominant_hz = NAN;
  snap.reading.rms_dbfs[0] = -3;
  snap.reading.sample_peak_dbfs[0] = NAN;
  snap.reading.n_bands = 2;
  snap.reading.band_hz[0] = 1000;
  snap.reading.band_db[0] = -20;
  snap.reading.band_hz[1] = 12500;
  snap.reading.band_db[1] = -INFINITY;
  snap.alarm[WATCH_ALARM_DOWN] = TRUE;
  text = watch_metrics_exposition (snaps, 1, &drops, 1 << 20, &len);
  g_assert_cmpuint (strlen (text), ==, len);
  g_assert_nonnull (strstr (text,
          "gpufft_loudness_momentary_lufs{stream=\"x\\\"y\"} -Inf\n"));
  g_assert_nonnull (strstr (text,
          "gpufft_rms_dbfs{stream=\"x\\\"y\",channel=\"0\"} -3\n"));
  g_assert_nonnull (strstr (text,
          "gpufft_alarm_active{stream=\"x\\\"y\",alarm=\"down\"} 1\n"));
  /* the band label as docs/gpufft-watch.md and the dashboard name it */
  g_assert_nonnull (strstr (text,
          "gpufft_band_level_db{stream=\"x\\\"y\",band_hz=\"1000\"} -20\n"));
  g_assert_nonnull (strstr (text,
          "gpufft_band_level_db{stream=\"x\\\"y\",band_hz=\"12500\"} -Inf\n"));
  /* the outputs' losses, once, the log's left out */
  g_assert_nonnull (strstr (text, "# TYPE gpufft_output_dropped_total "
          "counter\ngpufft_output_dropped_total{output=\"events\"} 3\n"
          "gpufft_output_dropped_total{output=\"mqtt\"} 0\n"));
  g_assert_null (strstr (text, "output=\"loudness_log\""));
  /* not measured: left out */
  g_assert_null (strstr (text, "gpufft_loudness_shortterm_lufs{"));
  g_assert_null (strstr (text, "gpufft_sample_peak_dbfs{"));
  g_assert_null (strstr (text, "NaN"));
  g_free (text);
  /* the bound */
  g_assert_null (watch_metrics_exposition (snaps, 1, NULL, 100, &len));
  text = watch_metrics_json (snaps, 1, 1 << 20, &len);
  g_assert_nonnull (strstr (text, "\"name\":\"x\\\"y\""));
  g_assert_nonnull (strstr (text, "\"momentary_lufs\":null"));
  g_free (text);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/watch/config/good", test_config_good);
  g_test_add_func ("/watch/config/bad", test_config_bad);
  g_test_add_func ("/watch/alarm/machines", test_alarm_machines);
  g_test_add_func ("/watch/alarm/disabled", test_alarm_disabled);
  g_test_add_func ("/watch/alarm/start-grace", test_alarm_start_grace);
  g_test_add_func ("/watch/alarm/wall-clock-steps", test_alarm_wall_steps);
  g_test_add_func ("/watch/shard/hash", test_shard_hash);
  g_test_add_func ("/watch/metrics/escaping", test_escaping);
  return g_test_run ();
}
