/* gpufft-watch: the alarm event log (watch/watch-events.c): JSON lines
 * read back by json-glib (quotes, newlines, control characters, non-ASCII
 * and bytes that are not UTF-8), appending, standard output, and a full
 * disk (a file size limit, RLIMIT_FSIZE). */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <glib/gstdio.h>
#include <gio/gio.h>
#include <json-glib/json-glib.h>
#include "watch-events.h"

/* 2026-12-07T06:00:00.123Z */
#define T0_US G_GINT64_CONSTANT (1796623200123456)

static const struct
{
  const gchar *stream;
  WatchAlarmKind kind;
  gboolean raised;
  const gchar *detail;
  /* what a JSON reader gets back */
  const gchar *stream_back, *detail_back;
} events[] = {
  {"studio", WATCH_ALARM_SILENCE, TRUE, "below -60 dBFS for 10 s",
      "studio", "below -60 dBFS for 10 s"},
  {"news \"live\"\\1", WATCH_ALARM_CLIPPING, FALSE, "line 1\nline 2\r\t\x01\x1f",
      "news \"live\"\\1", "line 1\nline 2\r\t\x01\x1f"},
  {"Kan\xc3\xa4l \xe2\x82\xac \xf0\x9f\x8e\xa4", WATCH_ALARM_LOUDNESS, TRUE,
        "\xff bad byte",
      "Kan\xc3\xa4l \xe2\x82\xac \xf0\x9f\x8e\xa4", "\xef\xbf\xbd bad byte"},
  {"x", WATCH_ALARM_DOWN, TRUE, NULL, "x", NULL},
};

static const gchar *alarm_names[] = { "silence", "clipping", "loudness",
  "stuck_tone", "down"
};

static void
fill (WatchEvent * e, guint i)
{
  memset (e, 0, sizeof (*e));
  e->stream = (gchar *) events[i].stream;
  e->kind = events[i].kind;
  e->raised = events[i].raised;
  e->detail = (gchar *) events[i].detail;
  e->wall_us = T0_US + i * G_USEC_PER_SEC;
}

static void
check_lines (const gchar * text, guint first, guint n)
{
  gchar **lines = g_strsplit (text, "\n", -1);
  guint i;

  g_assert_cmpuint (g_strv_length (lines), ==, n + 1);
  g_assert_cmpstr (lines[n], ==, "");
  for (i = 0; i < n; i++) {
    guint k = (first + i) % G_N_ELEMENTS (events);
    JsonParser *parser = json_parser_new ();
    GError *error = NULL;
    JsonObject *o;
    gchar *time;

    g_assert_true (json_parser_load_from_data (parser, lines[i], -1, &error));
    g_assert_no_error (error);
    o = json_node_get_object (json_parser_get_root (parser));
    g_assert_cmpuint (json_object_get_size (o), ==, 5);
    time = g_strdup_printf ("2026-12-07T06:00:%02u.123Z", k);
    g_assert_cmpstr (json_object_get_string_member (o, "time"), ==, time);
    g_free (time);
    g_assert_cmpstr (json_object_get_string_member (o, "stream"), ==,
        events[k].stream_back);
    g_assert_cmpstr (json_object_get_string_member (o, "alarm"), ==,
        alarm_names[events[k].kind]);
    g_assert_cmpstr (json_object_get_string_member (o, "state"), ==,
        events[k].raised ? "raised" : "cleared");
    if (events[k].detail_back == NULL)
      g_assert_true (json_object_get_null_member (o, "detail"));
    else
      g_assert_cmpstr (json_object_get_string_member (o, "detail"), ==,
          events[k].detail_back);
    g_object_unref (parser);
  }
  g_strfreev (lines);
}

static gchar *
tmp_path (void)
{
  GError *error = NULL;
  gchar *dir = g_dir_make_tmp ("watch-events-XXXXXX", &error);
  gchar *path;

  g_assert_no_error (error);
  path = g_build_filename (dir, "events.jsonl", NULL);
  g_free (dir);
  return path;
}

static void
remove_path (gchar * path)
{
  gchar *dir = g_path_get_dirname (path);

  g_unlink (path);
  g_rmdir (dir);
  g_free (dir);
  g_free (path);
}

static void
test_lines_and_append (void)
{
  gchar *path = tmp_path ();
  GError *error = NULL;
  WatchEvents *ev = watch_events_new (path, &error);
  WatchEvent e;
  gchar *text;
  guint i;

  g_assert_no_error (error);
  for (i = 0; i < G_N_ELEMENTS (events); i++) {
    fill (&e, i);
    g_assert_true (watch_events_emit (ev, &e, &error));
    g_assert_no_error (error);
  }
  /* each line is in the file at once, before any flush */
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  check_lines (text, 0, G_N_ELEMENTS (events));
  g_free (text);
  watch_events_flush (ev);
  watch_events_free (ev);

  ev = watch_events_new (path, &error);
  g_assert_no_error (error);
  fill (&e, 0);
  g_assert_true (watch_events_emit (ev, &e, NULL));
  watch_events_free (ev);
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  check_lines (text, 0, G_N_ELEMENTS (events) + 1);
  g_free (text);
  remove_path (path);
}

static void
test_stdout (void)
{
  if (g_test_subprocess ()) {
    WatchEvents *ev = watch_events_new ("-", NULL);
    WatchEvent e;
    guint i;

    for (i = 0; i < G_N_ELEMENTS (events); i++) {
      fill (&e, i);
      watch_events_emit (ev, &e, NULL);
    }
    watch_events_flush (ev);
    watch_events_free (ev);
    /* standard output is still open */
    g_assert_cmpint (write (1, "end\n", 4), ==, 4);
    return;
  }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
  g_test_trap_assert_stdout ("{\"time\":\"2026-12-07T06:00:00.123Z\","
      "\"stream\":\"studio\",\"alarm\":\"silence\",\"state\":\"raised\","
      "\"detail\":\"below -60 dBFS for 10 s\"}\n"
      "{\"time\":\"2026-12-07T06:00:01.123Z\",\"stream\":\"news \\\"live\\\"\\\\1\","
      "\"alarm\":\"clipping\",\"state\":\"cleared\","
      "\"detail\":\"line 1\\nline 2\\r\\t\\u0001\\u001f\"}\n*end\n");
}

static void
test_full_disk (void)
{
  gchar *path = tmp_path ();
  WatchEvents *ev = watch_events_new (path, NULL);
  struct rlimit old, small;
  WatchEvent e;
  guint i, errors = 0;
  gchar *text;

  signal (SIGXFSZ, SIG_IGN);
  g_assert_cmpint (getrlimit (RLIMIT_FSIZE, &old), ==, 0);
  small = old;
  small.rlim_cur = 200;
  g_assert_cmpint (setrlimit (RLIMIT_FSIZE, &small), ==, 0);
  for (i = 0; i < 10; i++) {
    GError *error = NULL;

    fill (&e, 0);
    if (!watch_events_emit (ev, &e, &error)) {
      g_assert_error (error, G_IO_ERROR, G_IO_ERROR_FAILED);
      g_assert_nonnull (strstr (error->message, path));
      g_clear_error (&error);
      errors++;
    }
    g_assert_no_error (error);
  }
  g_assert_cmpint (setrlimit (RLIMIT_FSIZE, &old), ==, 0);
  /* one 124-byte line fits, the second is cut at 200 bytes: 9 lost, one
   * error */
  g_assert_cmpuint (errors, ==, 1);
  g_assert_cmpuint (watch_events_get_dropped (ev), ==, 9);
  fill (&e, 0);
  g_assert_true (watch_events_emit (ev, &e, NULL));
  watch_events_free (ev);
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  g_assert_cmpuint (strlen (text), ==, 200 + 124);
  g_free (text);
  remove_path (path);
}

static void
test_bad_path (void)
{
  GError *error = NULL;

  g_assert_null (watch_events_new ("/proc/no-such/events", &error));
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, "/proc/no-such/events"));
  g_clear_error (&error);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/watch/events/lines-and-append", test_lines_and_append);
  g_test_add_func ("/watch/events/stdout", test_stdout);
  g_test_add_func ("/watch/events/full-disk", test_full_disk);
  g_test_add_func ("/watch/events/bad-path", test_bad_path);
  return g_test_run ();
}
