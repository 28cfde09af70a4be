/* GLib's synchronisation made visible to ThreadSanitizer: preloaded
 * (LD_PRELOAD) into the tests under TSan by scripts/sanitize.sh, built
 * only in a -Db_sanitize=thread build.
 *
 * GLib's GMutex, GRecMutex, GRWLock and GCond are futexes on Linux and
 * GLib is not built with TSan, so TSan sees no happens-before edge between
 * a g_mutex_unlock () and the next g_mutex_lock () of the same mutex, and
 * reports every access made under a GMutex (ours and GstObject's LOCK) as a
 * race. Each wrapper calls GLib's own function (dlsym RTLD_NEXT) and tells
 * TSan what it did: a release at the address of the lock before unlocking
 * (and before a wait), an acquire after locking (and after a wait).
 * Reference counts get the same: a release then an acquire before each
 * unref (the thread that frees the object is ordered after every thread
 * that dropped a reference before it). A GThreadPool's push is ordered
 * before the call of its function for that item. Only calls made across
 * libraries (ours into GLib, GStreamer into GLib) go through these
 * wrappers. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <glib.h>
#include <pthread.h>
#include <stdlib.h>

#undef g_once_init_enter
#undef g_once_init_leave

extern void __tsan_acquire (void *addr);
extern void __tsan_release (void *addr);

/* GLib's and GStreamer's own functions, looked up once at load time
 * (before any thread of the test starts) */
static void (*real_g_mutex_lock) (GMutex *);
static gboolean (*real_g_mutex_trylock) (GMutex *);
static void (*real_g_mutex_unlock) (GMutex *);
static void (*real_g_rec_mutex_lock) (GRecMutex *);
static gboolean (*real_g_rec_mutex_trylock) (GRecMutex *);
static void (*real_g_rec_mutex_unlock) (GRecMutex *);
static void (*real_g_rw_lock_writer_lock) (GRWLock *);
static void (*real_g_rw_lock_writer_unlock) (GRWLock *);
static void (*real_g_rw_lock_reader_lock) (GRWLock *);
static void (*real_g_rw_lock_reader_unlock) (GRWLock *);
static void (*real_g_cond_wait) (GCond *, GMutex *);
static gboolean (*real_g_cond_wait_until) (GCond *, GMutex *, gint64);
static void (*real_g_async_queue_push) (GAsyncQueue *, gpointer);
static gpointer (*real_g_async_queue_pop) (GAsyncQueue *);
static gpointer (*real_g_async_queue_timeout_pop) (GAsyncQueue *, guint64);
static gpointer (*real_g_async_queue_try_pop) (GAsyncQueue *);
static void (*real_g_object_unref) (gpointer);
static void (*real_gst_mini_object_unref) (gpointer);
static void (*real_g_once_init_leave) (volatile void *, gsize);
static gboolean (*real_g_once_init_enter) (volatile void *);
static GThreadPool *(*real_g_thread_pool_new) (GFunc, gpointer, gint,
    gboolean, GError **);
static gboolean (*real_g_thread_pool_push) (GThreadPool *, gpointer,
    GError **);

#define RESOLVE(name) *(void **) (&real_##name) = dlsym (RTLD_NEXT, #name)

/* at load time, and by the first wrapper called if a library's
 * constructor comes first (no thread of the test has started then) */
static void resolve (void) __attribute__ ((constructor));

static void
resolve (void)
{
  RESOLVE (g_mutex_lock);
  RESOLVE (g_mutex_trylock);
  RESOLVE (g_mutex_unlock);
  RESOLVE (g_rec_mutex_lock);
  RESOLVE (g_rec_mutex_trylock);
  RESOLVE (g_rec_mutex_unlock);
  RESOLVE (g_rw_lock_writer_lock);
  RESOLVE (g_rw_lock_writer_unlock);
  RESOLVE (g_rw_lock_reader_lock);
  RESOLVE (g_rw_lock_reader_unlock);
  RESOLVE (g_cond_wait);
  RESOLVE (g_cond_wait_until);
  RESOLVE (g_async_queue_push);
  RESOLVE (g_async_queue_pop);
  RESOLVE (g_async_queue_timeout_pop);
  RESOLVE (g_async_queue_try_pop);
  RESOLVE (g_object_unref);
  RESOLVE (gst_mini_object_unref);
  RESOLVE (g_once_init_leave);
  RESOLVE (g_once_init_enter);
  RESOLVE (g_thread_pool_new);
  RESOLVE (g_thread_pool_push);
}

void
g_mutex_lock (GMutex * m)
{
  if (G_UNLIKELY (!real_g_mutex_lock))
    resolve ();
  real_g_mutex_lock (m);
  __tsan_acquire (m);
}

gboolean
g_mutex_trylock (GMutex * m)
{
  gboolean ok;
  if (G_UNLIKELY (!real_g_mutex_trylock))
    resolve ();
  ok = real_g_mutex_trylock (m);
  if (ok)
    __tsan_acquire (m);
  return ok;
}

void
g_mutex_unlock (GMutex * m)
{
  if (G_UNLIKELY (!real_g_mutex_unlock))
    resolve ();
  __tsan_release (m);
  real_g_mutex_unlock (m);
}

void
g_rec_mutex_lock (GRecMutex * m)
{
  if (G_UNLIKELY (!real_g_rec_mutex_lock))
    resolve ();
  real_g_rec_mutex_lock (m);
  __tsan_acquire (m);
}

gboolean
g_rec_mutex_trylock (GRecMutex * m)
{
  gboolean ok;
  if (G_UNLIKELY (!real_g_rec_mutex_trylock))
    resolve ();
  ok = real_g_rec_mutex_trylock (m);
  if (ok)
    __tsan_acquire (m);
  return ok;
}

void
g_rec_mutex_unlock (GRecMutex * m)
{
  if (G_UNLIKELY (!real_g_rec_mutex_unlock))
    resolve ();
  __tsan_release (m);
  real_g_rec_mutex_unlock (m);
}

void
g_rw_lock_writer_lock (GRWLock * l)
{
  if (G_UNLIKELY (!real_g_rw_lock_writer_lock))
    resolve ();
  real_g_rw_lock_writer_lock (l);
  __tsan_acquire (l);
}

void
g_rw_lock_writer_unlock (GRWLock * l)
{
  if (G_UNLIKELY (!real_g_rw_lock_writer_unlock))
    resolve ();
  __tsan_release (l);
  real_g_rw_lock_writer_unlock (l);
}

void
g_rw_lock_reader_lock (GRWLock * l)
{
  if (G_UNLIKELY (!real_g_rw_lock_reader_lock))
    resolve ();
  real_g_rw_lock_reader_lock (l);
  __tsan_acquire (l);
}

void
g_rw_lock_reader_unlock (GRWLock * l)
{
  if (G_UNLIKELY (!real_g_rw_lock_reader_unlock))
    resolve ();
  __tsan_release (l);
  real_g_rw_lock_reader_unlock (l);
}

void
g_cond_wait (GCond * c, GMutex * m)
{
  if (G_UNLIKELY (!real_g_cond_wait))
    resolve ();
  __tsan_release (m);
  real_g_cond_wait (c, m);
  __tsan_acquire (m);
}

gboolean
g_cond_wait_until (GCond * c, GMutex * m, gint64 end_time)
{
  gboolean ok;
  if (G_UNLIKELY (!real_g_cond_wait_until))
    resolve ();
  __tsan_release (m);
  ok = real_g_cond_wait_until (c, m, end_time);
  __tsan_acquire (m);
  return ok;
}

void
g_async_queue_push (GAsyncQueue * q, gpointer data)
{
  if (G_UNLIKELY (!real_g_async_queue_push))
    resolve ();
  __tsan_release (q);
  real_g_async_queue_push (q, data);
}

gpointer
g_async_queue_pop (GAsyncQueue * q)
{
  gpointer p;
  if (G_UNLIKELY (!real_g_async_queue_pop))
    resolve ();
  p = real_g_async_queue_pop (q);
  __tsan_acquire (q);
  return p;
}

gpointer
g_async_queue_timeout_pop (GAsyncQueue * q, guint64 timeout)
{
  gpointer p;
  if (G_UNLIKELY (!real_g_async_queue_timeout_pop))
    resolve ();
  p = real_g_async_queue_timeout_pop (q, timeout);
  __tsan_acquire (q);
  return p;
}

gpointer
g_async_queue_try_pop (GAsyncQueue * q)
{
  gpointer p;
  if (G_UNLIKELY (!real_g_async_queue_try_pop))
    resolve ();
  p = real_g_async_queue_try_pop (q);
  __tsan_acquire (q);
  return p;
}

void
g_object_unref (gpointer o)
{
  if (G_UNLIKELY (!real_g_object_unref))
    resolve ();
  __tsan_release (o);
  __tsan_acquire (o);
  real_g_object_unref (o);
}

void gst_mini_object_unref (gpointer o);

void
gst_mini_object_unref (gpointer o)
{
  if (G_UNLIKELY (!real_gst_mini_object_unref))
    resolve ();
  __tsan_release (o);
  __tsan_acquire (o);
  real_gst_mini_object_unref (o);
}

void
g_once_init_leave (volatile void *location, gsize result)
{
  if (G_UNLIKELY (!real_g_once_init_leave))
    resolve ();
  __tsan_release ((void *) location);
  real_g_once_init_leave (location, result);
}

gboolean
g_once_init_enter (volatile void *location)
{
  gboolean r;
  if (G_UNLIKELY (!real_g_once_init_enter))
    resolve ();
  r = real_g_once_init_enter (location);
  __tsan_acquire ((void *) location);
  return r;
}

/* GThreadPool: a push is a release, and the pool's function is called
 * through a trampoline that acquires first (the hand-over goes through
 * GLib's internal queue). The pools' trampolines are kept in a small
 * table under a pthread mutex (TSan sees those); a pool that does not fit
 * is left as it is. */
typedef struct
{
  GThreadPool *pool;
  GFunc func;
  gpointer user_data;
} Pool;

#define MAX_POOLS 64
static Pool *pools[MAX_POOLS];
static pthread_mutex_t pools_lock = PTHREAD_MUTEX_INITIALIZER;

static void
pool_trampoline (gpointer data, gpointer user_data)
{
  Pool *p = user_data;

  __tsan_acquire (p);
  p->func (data, p->user_data);
}

GThreadPool *
g_thread_pool_new (GFunc func, gpointer user_data, gint max_threads,
    gboolean exclusive, GError ** error)
{
  Pool *p = calloc (1, sizeof (Pool));
  GThreadPool *pool;
  guint i;

  if (G_UNLIKELY (!real_g_thread_pool_new))
    resolve ();
  p->func = func;
  p->user_data = user_data;
  pool = real_g_thread_pool_new (pool_trampoline, p, max_threads, exclusive,
      error);
  if (!pool) {
    free (p);
    return NULL;
  }
  p->pool = pool;
  pthread_mutex_lock (&pools_lock);
  for (i = 0; i < MAX_POOLS && pools[i]; i++);
  if (i < MAX_POOLS)
    pools[i] = p;
  pthread_mutex_unlock (&pools_lock);
  return pool;
}

gboolean
g_thread_pool_push (GThreadPool * pool, gpointer data, GError ** error)
{
  Pool *p = NULL;
  guint i;

  if (G_UNLIKELY (!real_g_thread_pool_push))
    resolve ();
  pthread_mutex_lock (&pools_lock);
  for (i = 0; i < MAX_POOLS && pools[i]; i++)
    if (pools[i]->pool == pool)
      p = pools[i];
  pthread_mutex_unlock (&pools_lock);
  if (p)
    __tsan_release (p);
  return real_g_thread_pool_push (pool, data, error);
}
