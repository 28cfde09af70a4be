/* gpufft-watch: the alarm event log (watch/watch-events.c): JSON lines
 * read back by json-glib (quotes, newlines, control characters, non-ASCII
 * and bytes that are not UTF-8), appending, standard output, and a full
 * disk (a file size limit, RLIMIT_FSIZE), and a reader that stalls (a
 * full pipe or FIFO: the event is dropped, never waited for) or is
 * missing (a FIFO nobody reads: an error, not a wait). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
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

/* log rotation: the file renamed away, then reopened by its path */
static void
test_reopen (void)
{
  gchar *path = tmp_path ();
  gchar *moved = g_strconcat (path, ".1", NULL);
  GError *error = NULL;
  WatchEvents *ev = watch_events_new (path, &error);
  WatchEvent e;
  gchar *text;

  g_assert_no_error (error);
  fill (&e, 0);
  g_assert_true (watch_events_emit (ev, &e, NULL));
  g_assert_cmpint (g_rename (path, moved), ==, 0);
  g_assert_true (watch_events_reopen (ev, &error));
  g_assert_no_error (error);
  fill (&e, 1);
  g_assert_true (watch_events_emit (ev, &e, NULL));
  g_assert_true (g_file_get_contents (moved, &text, NULL, NULL));
  check_lines (text, 0, 1);
  g_free (text);
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  check_lines (text, 1, 1);
  g_free (text);
  /* a path that cannot be opened: the open file stays */
  g_unlink (moved);
  g_assert_cmpint (g_rename (path, moved), ==, 0);
  g_assert_cmpint (g_mkdir (path, 0700), ==, 0);
  g_assert_false (watch_events_reopen (ev, &error));
  g_assert_nonnull (error);
  g_clear_error (&error);
  fill (&e, 2);
  g_assert_true (watch_events_emit (ev, &e, NULL));
  watch_events_free (ev);
  g_assert_true (g_file_get_contents (moved, &text, NULL, NULL));
  check_lines (text, 1, 2);
  g_free (text);
  g_rmdir (path);
  g_unlink (moved);
  g_free (moved);
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

/* fills the pipe behind @fd (non-blocking) to the brim */
static void
fill_pipe (gint fd)
{
  gchar block[4096];
  gint flags = fcntl (fd, F_GETFL);

  memset (block, 'x', sizeof (block));
  g_assert_cmpint (fcntl (fd, F_SETFL, flags | O_NONBLOCK), ==, 0);
  while (write (fd, block, sizeof (block)) > 0);
  g_assert_cmpint (errno, ==, EAGAIN);
  while (write (fd, block, 1) > 0);
  g_assert_cmpint (fcntl (fd, F_SETFL, flags), ==, 0);
}

/* reads what the pipe behind @fd holds; the bytes that are not 'x' */
static gchar *
drain_pipe (gint fd)
{
  GString *out = g_string_new ("");
  gchar block[4096];
  gssize n, i;

  g_assert_cmpint (fcntl (fd, F_SETFL, fcntl (fd, F_GETFL) | O_NONBLOCK),
      ==, 0);
  while ((n = read (fd, block, sizeof (block))) > 0)
    for (i = 0; i < n; i++)
      if (block[i] != 'x')
        g_string_append_c (out, block[i]);
  return g_string_free (out, FALSE);
}

typedef struct
{
  GMutex lock;
  GCond cond;
  WatchEvents *ev;
  const gchar *path;
  gboolean done, result;
  GError *error;
} Call;

static gpointer
emit_thread (gpointer data)
{
  Call *c = data;
  WatchEvent e;
  gboolean r;
  GError *error = NULL;

  fill (&e, 0);
  if (c->ev != NULL) {
    r = watch_events_emit (c->ev, &e, &error);
  } else {
    c->ev = watch_events_new (c->path, &error);
    r = c->ev != NULL;
  }
  g_mutex_lock (&c->lock);
  c->result = r;
  c->error = error;
  c->done = TRUE;
  g_cond_signal (&c->cond);
  g_mutex_unlock (&c->lock);
  return NULL;
}

/* runs watch_events_emit (or, with c->ev NULL, watch_events_new) on a
 * thread; TRUE when it returned within 2 s (when it did not, the reading
 * end @unblock_fd is drained, or the FIFO @unblock_fifo opened for
 * reading, so that the thread can end) */
static gboolean
returns_promptly (Call * c, gint unblock_fd, const gchar * unblock_fifo)
{
  gint rd;
  GThread *t;
  gint64 deadline = g_get_monotonic_time () + 2 * G_USEC_PER_SEC;
  gboolean done;

  c->done = FALSE;
  c->error = NULL;
  t = g_thread_new ("emit", emit_thread, c);
  g_mutex_lock (&c->lock);
  while (!c->done && g_cond_wait_until (&c->cond, &c->lock, deadline));
  done = c->done;
  g_mutex_unlock (&c->lock);
  if (!done && unblock_fd >= 0)
    g_free (drain_pipe (unblock_fd));
  if (!done && unblock_fifo != NULL) {
    rd = open (unblock_fifo, O_RDONLY | O_NONBLOCK);
    g_thread_join (t);
    close (rd);
    return FALSE;
  }
  g_thread_join (t);
  return done;
}

static void
test_stalled_reader (void)
{
  gint fds[2];
  Call c = { 0 };
  gchar *got;
  gint saved = dup (1);

  g_mutex_init (&c.lock);
  g_cond_init (&c.cond);
  /* standard output a pipe nobody reads */
  g_assert_cmpint (pipe (fds), ==, 0);
  g_assert_cmpint (dup2 (fds[1], 1), ==, 1);
  c.ev = watch_events_new ("-", NULL);
  g_assert_nonnull (c.ev);
  fill_pipe (fds[1]);
  g_assert_true (returns_promptly (&c, fds[0], NULL));
  g_assert_false (c.result);
  g_assert_nonnull (c.error);
  g_assert_nonnull (strstr (c.error->message, "dropped"));
  g_clear_error (&c.error);
  g_assert_cmpuint (watch_events_get_dropped (c.ev), ==, 1);
  /* the reader is back: the next event is written whole */
  g_free (drain_pipe (fds[0]));
  g_assert_true (returns_promptly (&c, fds[0], NULL));
  g_assert_true (c.result);
  got = drain_pipe (fds[0]);
  check_lines (got, 0, 1);
  g_free (got);
  /* stalled again: said again */
  fill_pipe (fds[1]);
  g_assert_true (returns_promptly (&c, fds[0], NULL));
  g_assert_false (c.result);
  g_clear_error (&c.error);
  g_assert_cmpuint (watch_events_get_dropped (c.ev), ==, 2);
  watch_events_free (c.ev);
  g_assert_cmpint (dup2 (saved, 1), ==, 1);
  close (saved);
  close (fds[0]);
  close (fds[1]);
  g_mutex_clear (&c.lock);
  g_cond_clear (&c.cond);
}

static void
test_fifo (void)
{
  gchar *path = tmp_path ();
  Call c = { 0 };
  gint rd, wr;

  g_mutex_init (&c.lock);
  g_cond_init (&c.cond);
  g_assert_cmpint (mkfifo (path, 0600), ==, 0);
  c.path = path;
  /* nobody reads it: an error at once, naming it */
  g_assert_true (returns_promptly (&c, -1, path));
  g_assert_false (c.result);
  g_assert_nonnull (c.error);
  g_assert_nonnull (strstr (c.error->message, path));
  g_clear_error (&c.error);
  /* a reader that stalls */
  rd = open (path, O_RDONLY | O_NONBLOCK);
  g_assert_cmpint (rd, >=, 0);
  c.ev = watch_events_new (path, NULL);
  g_assert_nonnull (c.ev);
  wr = open (path, O_WRONLY | O_NONBLOCK);
  fill_pipe (wr);
  g_assert_true (returns_promptly (&c, rd, NULL));
  g_assert_false (c.result);
  g_clear_error (&c.error);
  g_assert_cmpuint (watch_events_get_dropped (c.ev), ==, 1);
  watch_events_free (c.ev);
  close (wr);
  close (rd);
  remove_path (path);
  g_mutex_clear (&c.lock);
  g_cond_clear (&c.cond);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/watch/events/lines-and-append", test_lines_and_append);
  g_test_add_func ("/watch/events/stdout", test_stdout);
  g_test_add_func ("/watch/events/full-disk", test_full_disk);
  g_test_add_func ("/watch/events/bad-path", test_bad_path);
  g_test_add_func ("/watch/events/reopen", test_reopen);
  g_test_add_func ("/watch/events/stalled-reader", test_stalled_reader);
  g_test_add_func ("/watch/events/fifo", test_fifo);
  return g_test_run ();
}
