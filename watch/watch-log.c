/* gpufft-watch: the loudness log (see watch-log.h). */
#include "watch-log.h"
#include "watch-json.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <gio/gio.h>
#include <glib/gstdio.h>

#define USEC_PER_DAY (G_GINT64_CONSTANT (86400) * G_USEC_PER_SEC)

static const gchar header[] =
    "time,momentary_lufs,shortterm_lufs,integrated_lufs,lra_lu,"
    "true_peak_dbtp\n";

typedef struct
{
  gchar *stream;
  gint fd;                      /* -1: none open */
  gint64 day;                   /* of the open file, days since the epoch */
  gchar buf[WATCH_LOG_BUFFER_BYTES];
  gsize len;
  guint lines;                  /* readings' lines in buf */
  gint64 first_us;              /* the first buffered line's time */
  gboolean broken;              /* the file ends in a partial line */
} StreamFile;

struct _WatchLog
{
  GMutex lock;
  gchar *dir;
  GHashTable *streams;          /* name -> StreamFile */
  gboolean failing;             /* the last write failed (error given) */
  guint64 dropped;
};

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

static gint64
day_of (gint64 wall_us)
{
  return MAX (wall_us, 0) / USEC_PER_DAY;
}

static gchar *
file_name_for_day (const gchar * stream, gint64 day)
{
  GString *name = g_string_sized_new (WATCH_LOG_MAX_NAME + 32);
  gboolean changed = FALSE;
  const gchar *p;
  time_t t = (time_t) (day * 86400);
  struct tm tm;

  for (p = stream; *p && name->len < WATCH_LOG_MAX_NAME; p++) {
    gchar c = *p;

    if (g_ascii_isalnum (c) || c == '.' || c == '_' || c == '-') {
      g_string_append_c (name, c);
    } else {
      /* one '_' per character: a UTF-8 sequence's continuation bytes
       * are skipped */
      if ((((guchar) c) & 0xc0) != 0x80)
        g_string_append_c (name, '_');
      changed = TRUE;
    }
  }
  if (*p != '\0')
    changed = TRUE;
  if (changed)
    g_string_append_printf (name, ".%08x", fnv1a (stream));
  if (gmtime_r (&t, &tm) == NULL)
    memset (&tm, 0, sizeof (tm));
  g_string_append_printf (name, "-%04d-%02d-%02d.csv", tm.tm_year + 1900,
      tm.tm_mon + 1, tm.tm_mday);
  return g_string_free (name, FALSE);
}

gchar *
watch_log_file_name (const gchar * stream, gint64 wall_us)
{
  g_return_val_if_fail (stream != NULL, NULL);
  return file_name_for_day (stream, day_of (wall_us));
}

static void
stream_file_free (gpointer data)
{
  StreamFile *sf = data;

  if (sf->fd >= 0)
    close (sf->fd);
  g_free (sf->stream);
  g_free (sf);
}

WatchLog *
watch_log_new (const gchar * dir, GError ** error)
{
  WatchLog *log;

  g_return_val_if_fail (dir != NULL && *dir != '\0', NULL);

  if (g_mkdir_with_parents (dir, 0755) != 0) {
    gint e = errno;
    g_set_error (error, G_IO_ERROR, g_io_error_from_errno (e),
        "loudness log folder %s: %s", dir, g_strerror (e));
    return NULL;
  }
  log = g_new0 (WatchLog, 1);
  g_mutex_init (&log->lock);
  log->dir = g_strdup (dir);
  log->streams = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
      stream_file_free);
  return log;
}

/* writes all of data; 0 or errno */
static gint
write_all (gint fd, const gchar * data, gsize len, gboolean * partial)
{
  gsize done = 0;

  while (done < len) {
    gssize n = write (fd, data + done, len - done);

    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      *partial = done > 0;
      return n < 0 ? errno : ENOSPC;
    }
    done += n;
  }
  *partial = FALSE;
  return 0;
}

/* writes sf's buffer (lock held); 0 or errno; the buffer is empty after
 * either (lines not written are counted as dropped) */
static gint
flush_stream (WatchLog * log, StreamFile * sf)
{
  gint err = 0;
  gboolean partial = FALSE;

  if (sf->len == 0)
    return 0;
  if (sf->fd < 0) {
    err = EBADF;
  } else {
    if (sf->broken)
      err = write_all (sf->fd, "\n", 1, &partial);
    if (err == 0) {
      sf->broken = FALSE;
      err = write_all (sf->fd, sf->buf, sf->len, &partial);
      if (partial)
        sf->broken = TRUE;
    }
  }
  if (err != 0)
    log->dropped += sf->lines;
  else
    log->failing = FALSE;
  sf->len = 0;
  sf->lines = 0;
  return err;
}

/* a failure: an error the first time (TRUE when error was set) */
static gboolean
report (WatchLog * log, GError ** error, gint err, const gchar * what,
    const gchar * stream)
{
  if (log->failing)
    return FALSE;
  log->failing = TRUE;
  g_set_error (error, G_IO_ERROR, g_io_error_from_errno (err),
      "loudness log of stream %s: %s: %s (lines are dropped until writing "
      "works again)", stream, what, g_strerror (err));
  return TRUE;
}

static void
close_stream (WatchLog * log, StreamFile * sf)
{
  gint err = flush_stream (log, sf);

  if (err != 0 && !log->failing) {
    log->failing = TRUE;
    g_warning ("loudness log of stream %s: %s", sf->stream, g_strerror (err));
  }
  if (sf->fd >= 0)
    close (sf->fd);
  sf->fd = -1;
  sf->broken = FALSE;
}

static void
append_value (GString * line, gdouble v)
{
  gchar buf[400];

  g_string_append_c (line, ',');
  if (isnan (v))
    return;
  if (isinf (v))
    g_string_append (line, v < 0 ? "-inf" : "inf");
  else
    g_string_append (line, g_ascii_formatd (buf, sizeof (buf), "%.2f", v));
}

gboolean
watch_log_write (WatchLog * log, const WatchReading * r, GError ** error)
{
  StreamFile *sf;
  GString *line;
  gint64 day;
  gint err;
  gboolean ret = TRUE;

  g_return_val_if_fail (log != NULL, FALSE);
  g_return_val_if_fail (r != NULL && r->stream != NULL, FALSE);

  line = g_string_sized_new (128);
  watch_json_append_time (line, r->wall_us);
  append_value (line, r->momentary_lufs);
  append_value (line, r->shortterm_lufs);
  append_value (line, r->integrated_lufs);
  append_value (line, r->lra_lu);
  append_value (line, r->true_peak_dbtp);
  g_string_append_c (line, '\n');
  day = day_of (r->wall_us);

  g_mutex_lock (&log->lock);
  sf = g_hash_table_lookup (log->streams, r->stream);
  if (sf == NULL) {
    sf = g_new0 (StreamFile, 1);
    sf->stream = g_strdup (r->stream);
    sf->fd = -1;
    g_hash_table_insert (log->streams, sf->stream, sf);
  }
  if (sf->fd >= 0 && sf->day != day)
    close_stream (log, sf);
  if (sf->fd < 0) {
    gchar *name = file_name_for_day (r->stream, day);
    gchar *path = g_build_filename (log->dir, name, NULL);
    struct stat st;

    sf->fd = open (path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC |
        O_NOFOLLOW | O_NOCTTY, 0644);
    if (sf->fd < 0) {
      err = errno;
      log->dropped++;
      if (report (log, error, err, path, r->stream))
        ret = FALSE;
      g_free (name);
      g_free (path);
      goto done;
    }
    sf->day = day;
    if (fstat (sf->fd, &st) == 0 && st.st_size == 0) {
      memcpy (sf->buf, header, sizeof (header) - 1);
      sf->len = sizeof (header) - 1;
    }
    g_free (name);
    g_free (path);
  }
  if (sf->len + line->len > sizeof (sf->buf)) {
    err = flush_stream (log, sf);
    if (err != 0 && report (log, error, err, "write", r->stream))
      ret = FALSE;
  }
  /* a line is far shorter than the buffer: 6 numbers of at most ~320
   * characters, and the buffer is empty here when it did not fit */
  if (sf->len + line->len <= sizeof (sf->buf)) {
    memcpy (sf->buf + sf->len, line->str, line->len);
    sf->len += line->len;
    if (sf->lines++ == 0)
      sf->first_us = r->wall_us;
  } else {
    log->dropped++;
  }
  if (r->wall_us - sf->first_us >= WATCH_LOG_FLUSH_S * G_USEC_PER_SEC ||
      r->wall_us < sf->first_us) {
    err = flush_stream (log, sf);
    if (err != 0 && ret && report (log, error, err, "write", r->stream))
      ret = FALSE;
  }
done:
  g_mutex_unlock (&log->lock);
  g_string_free (line, TRUE);
  return ret;
}

void
watch_log_flush (WatchLog * log)
{
  GHashTableIter it;
  gpointer value;

  g_return_if_fail (log != NULL);

  g_mutex_lock (&log->lock);
  g_hash_table_iter_init (&it, log->streams);
  while (g_hash_table_iter_next (&it, NULL, &value)) {
    StreamFile *sf = value;
    gint err = flush_stream (log, sf);

    if (err != 0 && !log->failing) {
      log->failing = TRUE;
      g_warning ("loudness log of stream %s: %s", sf->stream,
          g_strerror (err));
    }
  }
  g_mutex_unlock (&log->lock);
}

void
watch_log_forget (WatchLog * log, const gchar * stream)
{
  StreamFile *sf;

  g_return_if_fail (log != NULL && stream != NULL);

  g_mutex_lock (&log->lock);
  sf = g_hash_table_lookup (log->streams, stream);
  if (sf != NULL) {
    close_stream (log, sf);
    g_hash_table_remove (log->streams, stream);
  }
  g_mutex_unlock (&log->lock);
}

guint64
watch_log_get_dropped (WatchLog * log)
{
  guint64 n;

  g_return_val_if_fail (log != NULL, 0);
  g_mutex_lock (&log->lock);
  n = log->dropped;
  g_mutex_unlock (&log->lock);
  return n;
}

void
watch_log_free (WatchLog * log)
{
  GHashTableIter it;
  gpointer value;

  if (log == NULL)
    return;
  g_mutex_lock (&log->lock);
  g_hash_table_iter_init (&it, log->streams);
  while (g_hash_table_iter_next (&it, NULL, &value))
    close_stream (log, value);
  g_mutex_unlock (&log->lock);
  g_hash_table_destroy (log->streams);
  g_mutex_clear (&log->lock);
  g_free (log->dir);
  g_free (log);
}
