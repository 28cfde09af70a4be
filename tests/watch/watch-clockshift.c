/* A preload library for gpufft-watch's clock test (test-clock.py): the
 * process's wall clock (gettimeofday, clock_gettime of CLOCK_REALTIME and
 * CLOCK_REALTIME_COARSE) runs shifted by a whole number of seconds read
 * from the file named by $WATCH_CLOCK_SHIFT_FILE (absent or unreadable:
 * 0), read again at most every 20 ms, so a test can step the clock as an
 * NTP correction or an operator would; the monotonic clocks are left
 * alone. Any thread; no allocation but the file's reading. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>

typedef int (*ClockGettimeFunc) (clockid_t, struct timespec *);

#define RECHECK_NS 20000000

static ClockGettimeFunc
real_clock_gettime (void)
{
  static ClockGettimeFunc fn;
  ClockGettimeFunc f = __atomic_load_n (&fn, __ATOMIC_ACQUIRE);

  if (f == NULL) {
    f = (ClockGettimeFunc) dlsym (RTLD_NEXT, "clock_gettime");
    __atomic_store_n (&fn, f, __ATOMIC_RELEASE);
  }
  return f;
}

static int64_t
shift_ns (void)
{
  static int64_t shift, checked_ns = -RECHECK_NS;
  struct timespec mono;
  int64_t now;
  const char *path;
  FILE *f;
  long long s;

  real_clock_gettime () (CLOCK_MONOTONIC, &mono);
  now = (int64_t) mono.tv_sec * 1000000000 + mono.tv_nsec;
  if (now - __atomic_load_n (&checked_ns, __ATOMIC_ACQUIRE) < RECHECK_NS)
    return __atomic_load_n (&shift, __ATOMIC_ACQUIRE);
  __atomic_store_n (&checked_ns, now, __ATOMIC_RELEASE);
  path = getenv ("WATCH_CLOCK_SHIFT_FILE");
  if (path != NULL && (f = fopen (path, "re")) != NULL) {
    if (fscanf (f, "%lld", &s) == 1)
      __atomic_store_n (&shift, (int64_t) s * 1000000000, __ATOMIC_RELEASE);
    fclose (f);
  }
  return __atomic_load_n (&shift, __ATOMIC_ACQUIRE);
}

static void
add_ns (struct timespec *ts, int64_t ns)
{
  int64_t t = (int64_t) ts->tv_sec * 1000000000 + ts->tv_nsec + ns;

  ts->tv_sec = t / 1000000000;
  ts->tv_nsec = t % 1000000000;
}

int
clock_gettime (clockid_t id, struct timespec *ts)
{
  int r = real_clock_gettime () (id, ts);

  if (r == 0 && (id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE))
    add_ns (ts, shift_ns ());
  return r;
}

int
gettimeofday (struct timeval *tv, void *tz)
{
  struct timespec ts;

  clock_gettime (CLOCK_REALTIME, &ts);
  tv->tv_sec = ts.tv_sec;
  tv->tv_usec = ts.tv_nsec / 1000;
  return 0;
}
