/* gpufft-watch: the alarm event log (see watch-events.h). */
#include "watch-events.h"
#include "watch-json.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <gio/gio.h>

struct _WatchEvents
{
  GMutex lock;
  gchar *path;
  gint fd;
  gboolean own_fd;              /* FALSE for standard output */
  gboolean may_wait;            /* a pipe, FIFO, socket or terminal */
  gboolean failing;
  guint64 dropped;
};

static gint
open_file (const gchar * path, GError ** error)
{
  /* (non-blocking: a FIFO nobody reads is an error, not a wait) */
  gint fd = open (path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY
      | O_NONBLOCK, 0644);

  if (fd < 0) {
    gint e = errno;
    g_set_error (error, G_IO_ERROR, g_io_error_from_errno (e),
        "alarm event log %s: %s", path, g_strerror (e));
  }
  return fd;
}

WatchEvents *
watch_events_new (const gchar * path, GError ** error)
{
  WatchEvents *ev;
  gint fd;
  gboolean own = TRUE;
  struct stat st;

  g_return_val_if_fail (path != NULL && *path != '\0', NULL);

  if (strcmp (path, "-") == 0) {
    fd = STDOUT_FILENO;
    own = FALSE;
  } else if ((fd = open_file (path, error)) < 0) {
    return NULL;
  }
  ev = g_new0 (WatchEvents, 1);
  g_mutex_init (&ev->lock);
  ev->path = g_strdup (path);
  ev->fd = fd;
  ev->own_fd = own;
  ev->may_wait = fstat (fd, &st) != 0 || !S_ISREG (st.st_mode);
  return ev;
}

gboolean
watch_events_emit (WatchEvents * ev, const WatchEvent * e, GError ** error)
{
  gchar *json;
  gsize len, done = 0;
  gint err = 0;
  gboolean ret = TRUE;

  g_return_val_if_fail (ev != NULL && e != NULL, FALSE);

  json = watch_event_to_json (e);
  len = strlen (json);
  /* the line with its newline, so that one write carries all of it */
  json = g_realloc (json, len + 2);
  json[len++] = '\n';
  json[len] = '\0';

  g_mutex_lock (&ev->lock);
  while (done < len) {
    struct pollfd pfd = { ev->fd, POLLOUT, 0 };
    gssize n;

    /* a reader that does not keep up is not waited for (standard output
     * is not ours to make non-blocking) */
    if (ev->may_wait && poll (&pfd, 1, 0) == 0) {
      err = EAGAIN;
      break;
    }
    n = write (ev->fd, json + done, len - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      err = n < 0 ? errno : ENOSPC;
      break;
    }
    done += n;
  }
  if (err != 0) {
    ev->dropped++;
    if (!ev->failing) {
      ev->failing = TRUE;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (err),
          "alarm event log %s: %s (events are dropped until writing works "
          "again)", ev->path, err == EAGAIN ? "its reader does not keep up"
          : g_strerror (err));
      ret = FALSE;
    }
  } else {
    ev->failing = FALSE;
  }
  g_mutex_unlock (&ev->lock);
  g_free (json);
  return ret;
}

gboolean
watch_events_reopen (WatchEvents * ev, GError ** error)
{
  gint fd;
  struct stat st;

  g_return_val_if_fail (ev != NULL, FALSE);

  if (!ev->own_fd)
    return TRUE;
  if ((fd = open_file (ev->path, error)) < 0)
    return FALSE;
  g_mutex_lock (&ev->lock);
  close (ev->fd);
  ev->fd = fd;
  ev->may_wait = fstat (fd, &st) != 0 || !S_ISREG (st.st_mode);
  g_mutex_unlock (&ev->lock);
  return TRUE;
}

void
watch_events_flush (WatchEvents * ev)
{
  g_return_if_fail (ev != NULL);

  g_mutex_lock (&ev->lock);
  if (ev->own_fd)
    fdatasync (ev->fd);
  g_mutex_unlock (&ev->lock);
}

guint64
watch_events_get_dropped (WatchEvents * ev)
{
  guint64 n;

  g_return_val_if_fail (ev != NULL, 0);
  g_mutex_lock (&ev->lock);
  n = ev->dropped;
  g_mutex_unlock (&ev->lock);
  return n;
}

void
watch_events_free (WatchEvents * ev)
{
  if (ev == NULL)
    return;
  if (ev->own_fd)
    close (ev->fd);
  g_mutex_clear (&ev->lock);
  g_free (ev->path);
  g_free (ev);
}
