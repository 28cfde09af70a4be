/* bench-wake: what a thread's wake-up costs this machine, the floor under
 * any element that hands an interval's work to a thread of its own and
 * posts a message for it. No GStreamer, no engine: GLib's GCond (a futex,
 * as the host plan's worker waits on one) and a UNIX socket pair (as
 * GStreamer's bus wakes an application's main loop with a byte on one).
 *
 * Rounds of: the waker sleeps P ms (g_usleep, as a live source's clock
 * wait), wakes a thread asleep on the cond (or in poll() on the socket),
 * then sleeps 0.2 ms while the woken thread goes back to sleep. Per round,
 * in µs of thread CPU time (CLOCK_THREAD_CPUTIME_ID: user and kernel
 * time): the waker's signal (g_cond_signal, or write() of one byte), the
 * waker's P ms sleep and the process's CPU time; per wake (`wakes`: a
 * signal that comes before the woken thread sleeps again makes none), the
 * woken thread's CPU time from the start of its wait to its return (going
 * to sleep, waking, the byte read). At P =
 * 0 the threads' CPUs stay awake; at P = 100 (an interval's pace) they
 * idle between rounds, and in a virtual machine an idle vCPU's wake-up
 * costs what the table shows. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <glib.h>

static gint rounds_arg = 0;
static gchar *paces_str = NULL;

static const GOptionEntry entries[] = {
  {"paces", 0, 0, G_OPTION_ARG_STRING, &paces_str,
      "Sleeps between rounds, ms (default 0,1,10,100)", "P,..."},
  {"rounds", 0, 0, G_OPTION_ARG_INT, &rounds_arg,
      "Rounds per pace (default: 2 s of sleeps, 20 to 300)", "R"},
  {NULL}
};

typedef struct
{
  gboolean socket;              /* TRUE: poll() on fds[0]; else the cond */
  GMutex lock;
  GCond cond;
  gboolean pending, quit;
  int fds[2];
  gdouble cpu_us;               /* the woken thread's CPU time from the start
                                 * of each wait to its return, the waits a
                                 * round ended (not the last, for quit) */
  guint wakes;                  /* those waits */
} Waiter;

static gdouble
thread_us (void)
{
  struct timespec t;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec * 1e6 + t.tv_nsec * 1e-3;
}

static gdouble
process_us (void)
{
  struct timespec t;

  clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec * 1e6 + t.tv_nsec * 1e-3;
}

static gpointer
waiter_main (gpointer data)
{
  Waiter *w = data;
  gdouble t0;

  if (!w->socket) {
    g_mutex_lock (&w->lock);
    for (;;) {
      t0 = thread_us ();
      while (!w->pending && !w->quit)
        g_cond_wait (&w->cond, &w->lock);
      if (w->quit)
        break;
      w->pending = FALSE;
      w->cpu_us += thread_us () - t0;
      w->wakes++;
    }
    g_mutex_unlock (&w->lock);
  } else {
    struct pollfd p = { w->fds[0], POLLIN, 0 };
    gchar b[64];

    for (;;) {
      ssize_t n;

      t0 = thread_us ();
      if (poll (&p, 1, -1) < 0 && errno != EINTR)
        break;
      n = read (w->fds[0], b, sizeof (b));
      if (n <= 0 || b[n - 1] == 'q')
        break;
      w->cpu_us += thread_us () - t0;
      w->wakes++;
    }
  }
  return NULL;
}

/* One pace: prints its line; FALSE where a thread or socket fails. */
static gboolean
run (gboolean socket, guint pace_ms, guint rounds)
{
  Waiter w = { 0 };
  GThread *th;
  gdouble sig = 0, slept = 0, p0, p1;
  guint r;

  w.socket = socket;
  g_mutex_init (&w.lock);
  g_cond_init (&w.cond);
  if (socket && socketpair (AF_UNIX, SOCK_STREAM, 0, w.fds) != 0) {
    g_printerr ("bench-wake: socketpair: %s\n", g_strerror (errno));
    return FALSE;
  }
  th = g_thread_try_new ("bench-wake", waiter_main, &w, NULL);
  if (!th) {
    g_printerr ("bench-wake: no thread\n");
    return FALSE;
  }
  g_usleep (20000);
  p0 = process_us ();
  for (r = 0; r < rounds; r++) {
    gdouble c0 = thread_us (), c1, c2;

    if (pace_ms > 0)
      g_usleep ((gulong) pace_ms * 1000);
    c1 = thread_us ();
    if (socket) {
      if (write (w.fds[1], "W", 1) != 1)
        break;
    } else {
      g_mutex_lock (&w.lock);
      w.pending = TRUE;
      g_mutex_unlock (&w.lock);
      g_cond_signal (&w.cond);
    }
    c2 = thread_us ();
    slept += c1 - c0;
    sig += c2 - c1;
    g_usleep (200);
  }
  p1 = process_us ();
  if (socket) {
    if (write (w.fds[1], "q", 1) != 1)
      g_printerr ("bench-wake: write failed\n");
  } else {
    g_mutex_lock (&w.lock);
    w.quit = TRUE;
    g_cond_signal (&w.cond);
    g_mutex_unlock (&w.lock);
  }
  g_thread_join (th);
  if (socket) {
    close (w.fds[0]);
    close (w.fds[1]);
  }
  g_mutex_clear (&w.lock);
  g_cond_clear (&w.cond);
  if (r < rounds) {
    g_printerr ("bench-wake: write failed after %u rounds\n", r);
    return FALSE;
  }
  if (w.wakes == 0) {
    g_printerr ("bench-wake: the thread never woke\n");
    return FALSE;
  }
  g_print ("| %-6s | %4u | %5u | %5u | %8.2f | %8.2f | %8.2f | %8.2f |\n",
      socket ? "socket" : "cond", pace_ms, r, w.wakes, sig / r, slept / r,
      w.cpu_us / w.wakes, (p1 - p0) / r);
  g_print ("@wake kind=%s pace_ms=%u rounds=%u wakes=%u signal_us=%.3f "
      "sleep_us=%.3f woken_us=%.3f process_us=%.3f\n",
      socket ? "socket" : "cond", pace_ms, r, w.wakes, sig / r, slept / r,
      w.cpu_us / w.wakes, (p1 - p0) / r);
  return TRUE;
}

int
main (int argc, char **argv)
{
  GOptionContext *ctx = g_option_context_new (NULL);
  GError *err = NULL;
  gchar **paces;
  guint i, k;
  gboolean ok = TRUE;

  g_option_context_set_summary (ctx, "The CPU time of a thread's wake-up "
      "after a sleep of P ms: the waker's, the woken thread's, the "
      "process's, per round.");
  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, &argc, &argv, &err)) {
    g_printerr ("bench-wake: %s\n", err->message);
    return 2;
  }
  g_option_context_free (ctx);
  if (rounds_arg < 0) {
    g_printerr ("bench-wake: --rounds >= 1\n");
    return 2;
  }
  paces = g_strsplit (paces_str ? paces_str : "0,1,10,100", ",", -1);
  for (i = 0; paces[i]; i++) {
    gchar *end = NULL;

    if (g_ascii_strtoull (paces[i], &end, 10) > 10000 || end == paces[i]
        || *end != '\0') {
      g_printerr ("bench-wake: --paces: %s is not a pace (0 to 10000 ms)\n",
          paces[i]);
      g_strfreev (paces);
      return 2;
    }
  }
  g_print ("== thread wake-ups: CPU us per round (thread CPU time) ==\n");
  g_print ("| kind | pace ms | rounds | wakes | waker's signal | "
      "waker's sleep | woken thread, a wake | process |\n"
      "|---|---|---|---|---|---|---|---|\n");
  for (k = 0; k < 2; k++) {
    for (i = 0; paces[i]; i++) {
      guint p = (guint) g_ascii_strtoull (paces[i], NULL, 10);
      guint rounds = rounds_arg > 0 ? (guint) rounds_arg :
          (guint) CLAMP (2000 / MAX (p, 1), 20, 300);

      if (!run (k == 1, p, rounds))
        ok = FALSE;
    }
  }
  g_strfreev (paces);
  return ok ? 0 : 1;
}
