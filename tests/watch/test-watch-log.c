/* gpufft-watch: the loudness log (watch/watch-log.c): its lines against
 * texts written out by hand, the day's file by the readings' times,
 * appending, file names, buffering, closing, and a full disk (a file size
 * limit, RLIMIT_FSIZE). */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <glib/gstdio.h>
#include <gio/gio.h>
#include "watch-log.h"

/* 2026-12-07T00:00:00Z */
#define DAY0_US G_GINT64_CONSTANT (1796601600000000)
#define SEC_US G_GINT64_CONSTANT (1000000)

#define HEADER "time,momentary_lufs,shortterm_lufs,integrated_lufs,lra_lu," \
  "true_peak_dbtp\n"

static gchar *
make_dir (void)
{
  GError *error = NULL;
  gchar *dir = g_dir_make_tmp ("watch-log-XXXXXX", &error);

  g_assert_no_error (error);
  return dir;
}

static void
remove_dir (gchar * dir)
{
  GDir *d = g_dir_open (dir, 0, NULL);
  const gchar *name;

  while ((name = g_dir_read_name (d)) != NULL) {
    gchar *path = g_build_filename (dir, name, NULL);
    g_unlink (path);
    g_free (path);
  }
  g_dir_close (d);
  g_rmdir (dir);
  g_free (dir);
}

static gchar *
read_file (const gchar * dir, const gchar * name)
{
  gchar *path = g_build_filename (dir, name, NULL);
  gchar *text = NULL;
  GError *error = NULL;

  g_file_get_contents (path, &text, NULL, &error);
  g_assert_no_error (error);
  g_free (path);
  return text;
}

static void
reading (WatchReading * r, const gchar * stream, gint64 wall_us, gdouble m)
{
  memset (r, 0, sizeof (*r));
  r->stream = (gchar *) stream;
  r->wall_us = wall_us;
  r->up = TRUE;
  r->channels = 2;
  r->momentary_lufs = m;
  r->shortterm_lufs = -24.256;
  r->integrated_lufs = NAN;
  r->lra_lu = 3.0;
  r->true_peak_dbtp = -INFINITY;
}

static void
write_ok (WatchLog * log, const WatchReading * r)
{
  GError *error = NULL;

  g_assert_true (watch_log_write (log, r, &error));
  g_assert_no_error (error);
}

static void
test_lines (void)
{
  gchar *dir = make_dir ();
  GError *error = NULL;
  WatchLog *log = watch_log_new (dir, &error);
  WatchReading r;
  gchar *text;

  g_assert_no_error (error);
  reading (&r, "studio", DAY0_US + 6 * 3600 * SEC_US + 123456, -23.004);
  write_ok (log, &r);
  reading (&r, "studio", DAY0_US + 6 * 3600 * SEC_US + SEC_US, -INFINITY);
  r.integrated_lufs = -22.995;
  write_ok (log, &r);
  watch_log_flush (log);
  text = read_file (dir, "studio-2026-12-07.csv");
  g_assert_cmpstr (text, ==, HEADER
      "2026-12-07T06:00:00.123Z,-23.00,-24.26,,3.00,-inf\n"
      "2026-12-07T06:00:01.000Z,-inf,-24.26,-23.00,3.00,-inf\n");
  g_free (text);
  watch_log_free (log);
  remove_dir (dir);
}

/* the readings' times decide the day: midnight UTC starts a new file */
static void
test_rotation (void)
{
  gchar *dir = make_dir ();
  WatchLog *log = watch_log_new (dir, NULL);
  WatchReading r;
  gchar *text;
  gint i;

  for (i = -2; i < 2; i++) {
    reading (&r, "news", DAY0_US + i * SEC_US, -20.0 + i);
    write_ok (log, &r);
  }
  /* the previous day's file is complete as soon as the new day began */
  text = read_file (dir, "news-2026-12-06.csv");
  g_assert_cmpstr (text, ==, HEADER
      "2026-12-06T23:59:58.000Z,-22.00,-24.26,,3.00,-inf\n"
      "2026-12-06T23:59:59.000Z,-21.00,-24.26,,3.00,-inf\n");
  g_free (text);
  watch_log_free (log);
  text = read_file (dir, "news-2026-12-07.csv");
  g_assert_cmpstr (text, ==, HEADER
      "2026-12-07T00:00:00.000Z,-20.00,-24.26,,3.00,-inf\n"
      "2026-12-07T00:00:01.000Z,-19.00,-24.26,,3.00,-inf\n");
  g_free (text);
  remove_dir (dir);
}

/* an existing file is appended to, its header not repeated */
static void
test_append (void)
{
  gchar *dir = make_dir ();
  WatchLog *log = watch_log_new (dir, NULL);
  WatchReading r;
  gchar *text;

  reading (&r, "a", DAY0_US, -30.0);
  write_ok (log, &r);
  watch_log_free (log);
  log = watch_log_new (dir, NULL);
  reading (&r, "a", DAY0_US + 60 * SEC_US, -31.0);
  write_ok (log, &r);
  watch_log_free (log);
  text = read_file (dir, "a-2026-12-07.csv");
  g_assert_cmpstr (text, ==, HEADER
      "2026-12-07T00:00:00.000Z,-30.00,-24.26,,3.00,-inf\n"
      "2026-12-07T00:01:00.000Z,-31.00,-24.26,,3.00,-inf\n");
  g_free (text);
  remove_dir (dir);
}

static gboolean
name_is_plain (const gchar * name)
{
  const gchar *p;

  for (p = name; *p; p++)
    if (!g_ascii_isalnum (*p) && *p != '.' && *p != '_' && *p != '-')
      return FALSE;
  return TRUE;
}

/* names: only [A-Za-z0-9._-], never a path or a pattern, distinct for
 * distinct streams, the same for the same stream */
static void
test_names (void)
{
  const gchar *streams[] = { "plain-Name_1.x", "a b", "a_b", "a/b",
    "../../etc/passwd", "%s%n%%", "\xc3\x9cml\xc3\xa4ut", "\xff\xfe", "",
    NULL, NULL
  };
  gchar *longname = g_strnfill (300, 'L');
  gchar *dir = make_dir ();
  WatchLog *log = watch_log_new (dir, NULL);
  GHashTable *seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
      NULL);
  GDir *d;
  const gchar *name;
  guint i, n_files = 0;
  WatchReading r;

  streams[G_N_ELEMENTS (streams) - 2] = longname;
  for (i = 0; streams[i] != NULL; i++) {
    gchar *f = watch_log_file_name (streams[i], DAY0_US);
    gchar *again = watch_log_file_name (streams[i], DAY0_US + SEC_US);

    g_assert_cmpstr (f, ==, again);
    g_assert_true (name_is_plain (f));
    g_assert_true (g_str_has_suffix (f, "-2026-12-07.csv"));
    g_assert_cmpuint (strlen (f), <, 200);
    g_assert_false (g_hash_table_contains (seen, f));
    g_hash_table_add (seen, f);
    g_free (again);
    reading (&r, streams[i], DAY0_US, -23.0);
    write_ok (log, &r);
  }
  {
    gchar *f = watch_log_file_name ("plain-Name_1.x", DAY0_US);
    g_assert_cmpstr (f, ==, "plain-Name_1.x-2026-12-07.csv");
    g_free (f);
    f = watch_log_file_name ("a b", DAY0_US);
    g_assert_true (g_str_has_prefix (f, "a_b."));
    g_free (f);
  }
  watch_log_free (log);
  /* every file in the folder, none elsewhere */
  d = g_dir_open (dir, 0, NULL);
  while ((name = g_dir_read_name (d)) != NULL) {
    g_assert_true (g_hash_table_contains (seen, name));
    n_files++;
  }
  g_dir_close (d);
  g_assert_cmpuint (n_files, ==, i);
  g_hash_table_destroy (seen);
  g_free (longname);
  remove_dir (dir);
}

static guint
count_fds (void)
{
  GDir *d = g_dir_open ("/proc/self/fd", 0, NULL);
  guint n = 0;

  while (g_dir_read_name (d) != NULL)
    n++;
  g_dir_close (d);
  return n;
}

static goffset
file_size (const gchar * dir, const gchar * name)
{
  gchar *path = g_build_filename (dir, name, NULL);
  GStatBuf st;
  goffset size = -1;

  if (g_stat (path, &st) == 0)
    size = st.st_size;
  g_free (path);
  return size;
}

/* lines wait in a buffer for at most WATCH_LOG_FLUSH_S s; one file open
 * per stream, closed by watch_log_forget */
static void
test_buffer_and_forget (void)
{
  gchar *dir = make_dir ();
  WatchLog *log = watch_log_new (dir, NULL);
  WatchReading r;
  guint fds0 = count_fds (), i;
  gchar *text, **lines;

  for (i = 0; i < WATCH_LOG_FLUSH_S; i++) {
    reading (&r, "one", DAY0_US + i * SEC_US, -23.0);
    write_ok (log, &r);
    reading (&r, "two", DAY0_US + i * SEC_US, -23.0);
    write_ok (log, &r);
  }
  g_assert_cmpuint (count_fds (), ==, fds0 + 2);
  g_assert_cmpint (file_size (dir, "one-2026-12-07.csv"), ==, 0);
  /* the 11th line is WATCH_LOG_FLUSH_S s after the first: all written */
  reading (&r, "one", DAY0_US + WATCH_LOG_FLUSH_S * SEC_US, -23.0);
  write_ok (log, &r);
  text = read_file (dir, "one-2026-12-07.csv");
  g_assert_true (g_str_has_prefix (text, HEADER));
  lines = g_strsplit (text, "\n", -1);
  /* the header, 11 lines, and nothing after the last newline */
  g_assert_cmpuint (g_strv_length (lines), ==, 1 + WATCH_LOG_FLUSH_S + 1 + 1);
  g_strfreev (lines);
  g_free (text);
  g_assert_cmpint (file_size (dir, "two-2026-12-07.csv"), ==, 0);
  watch_log_forget (log, "two");
  g_assert_cmpuint (count_fds (), ==, fds0 + 1);
  g_assert_cmpint (file_size (dir, "two-2026-12-07.csv"), ==,
      strlen (HEADER) + WATCH_LOG_FLUSH_S * 50);
  watch_log_forget (log, "not-a-stream");
  watch_log_free (log);
  g_assert_cmpuint (count_fds (), ==, fds0);
  remove_dir (dir);
}

/* a full disk (a file size limit): the error once, lines dropped and
 * counted, calls quick; writing resumes on a new line once there is room */
static void
test_full_disk (void)
{
  gchar *dir = make_dir ();
  WatchLog *log = watch_log_new (dir, NULL);
  WatchReading r;
  struct rlimit old, small;
  guint i, errors = 0;
  gint64 t0, slowest = 0;
  gchar *text, **lines;

  signal (SIGXFSZ, SIG_IGN);
  g_assert_cmpint (getrlimit (RLIMIT_FSIZE, &old), ==, 0);
  small = old;
  small.rlim_cur = 300;
  g_assert_cmpint (setrlimit (RLIMIT_FSIZE, &small), ==, 0);
  for (i = 0; i < 20; i++) {
    GError *error = NULL;
    gboolean ok;

    /* 10 s apart: every line is written at once */
    reading (&r, "full", DAY0_US + i * WATCH_LOG_FLUSH_S * SEC_US, -23.0);
    t0 = g_get_monotonic_time ();
    ok = watch_log_write (log, &r, &error);
    slowest = MAX (slowest, g_get_monotonic_time () - t0);
    if (!ok) {
      g_assert_error (error, G_IO_ERROR, G_IO_ERROR_FAILED);
      g_assert_nonnull (strstr (error->message, g_strerror (EFBIG)));
      g_clear_error (&error);
      errors++;
    } else {
      g_assert_no_error (error);
    }
  }
  g_assert_cmpint (setrlimit (RLIMIT_FSIZE, &old), ==, 0);
  g_assert_cmpuint (errors, ==, 1);
  g_assert_cmpint (file_size (dir, "full-2026-12-07.csv"), ==, 300);
  /* header 73 + 4 lines of 50 = 273 bytes, then 27 bytes of the 5th */
  /* lines go out in pairs (10 s apart): 2 pairs written, 8 lost */
  g_assert_cmpuint (watch_log_get_dropped (log), ==, 16);
  g_test_message ("slowest write with a full disk: %" G_GINT64_FORMAT " us",
      slowest);
  g_assert_cmpint (slowest, <, 100000);

  /* room again: the next lines follow on a line of their own */
  reading (&r, "full", DAY0_US + 1000 * SEC_US, -40.0);
  write_ok (log, &r);
  watch_log_free (log);
  text = read_file (dir, "full-2026-12-07.csv");
  lines = g_strsplit (text, "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, 8);
  g_assert_cmpuint (strlen (lines[4]), ==, 49);
  g_assert_cmpstr (lines[5], ==, "2026-12-07T00:00:40.000Z,-2");
  g_assert_cmpstr (lines[6], ==,
      "2026-12-07T00:16:40.000Z,-40.00,-24.26,,3.00,-inf");
  g_assert_cmpstr (lines[7], ==, "");
  g_strfreev (lines);
  g_free (text);
  remove_dir (dir);
}

static void
test_bad_dir (void)
{
  GError *error = NULL;

  g_assert_null (watch_log_new ("/proc/no-such/folder", &error));
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, "/proc/no-such/folder"));
  g_clear_error (&error);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/watch/log/lines", test_lines);
  g_test_add_func ("/watch/log/rotation", test_rotation);
  g_test_add_func ("/watch/log/append", test_append);
  g_test_add_func ("/watch/log/names", test_names);
  g_test_add_func ("/watch/log/buffer-and-forget", test_buffer_and_forget);
  g_test_add_func ("/watch/log/full-disk", test_full_disk);
  g_test_add_func ("/watch/log/bad-dir", test_bad_dir);
  return g_test_run ();
}
