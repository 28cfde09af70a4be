/* The poster alone (plugin/common/gstgpufftposter.c, compiled in): messages
 * of many elements pushed in one round are posted by few thread
 * wake-ups; a synchronous bus handler that blocks holds its own element's
 * messages only; a live stream's queue keeps the newest 1024 and counts
 * the others; a bus handler that waits for its own poster returns; a
 * held poster's messages, pushed from another thread, are posted by the
 * thread that waits, in order, and by no posting thread. No device. */
#include <gst/check/gstcheck.h>
#include "gstgpufftposter.h"

GST_DEBUG_CATEGORY (gst_gpu_fft_base_debug);

/* an element that only posts */
typedef GstElement TestPoster;
typedef GstElementClass TestPosterClass;
G_DEFINE_TYPE (TestPoster, test_poster, GST_TYPE_ELEMENT);
static void
test_poster_class_init (TestPosterClass * klass)
{
}

static void
test_poster_init (TestPoster * self)
{
}

#define MAX_ELEMENTS 64
/* (element 0's handler blocks for this long unless released; element 1's
 * messages are expected long before) */
#define BLOCK_US (5 * G_USEC_PER_SEC)

/* what the bus handler saw, per element */
typedef struct
{
  GMutex lock;
  GCond cond;
  GstElement *elements[MAX_ELEMENTS];
  GstGpuFftPoster *posters[MAX_ELEMENTS];
  guint n;
  GArray *seen[MAX_ELEMENTS];   /* guint: the messages' "n", in order */
  /* element 0's first message blocks its handler until released or
   * BLOCK_US passed */
  gboolean block_first;
  gboolean blocking;            /* the handler is blocked now */
  gboolean released;
  /* in a handler of element 0: its own poster's wait returned, and
   * is_posting told the posters apart */
  gboolean reentrant;
  gboolean reentrant_ok;
  /* element 0's messages posted by a thread other than `expect` (where
   * set) */
  GThread *expect;
  guint foreign;
} Ctx;

static GstBusSyncReply
on_message (GstBus * bus, GstMessage * m, gpointer data)
{
  Ctx *c = data;
  const GstStructure *s = gst_message_get_structure (m);
  guint i, n = 0;
  gint64 deadline;

  /* (a handler that drops a message unrefs it) */
  if (s == NULL || !gst_structure_has_name (s, "test")) {
    gst_message_unref (m);
    return GST_BUS_DROP;
  }
  gst_structure_get_uint (s, "i", &i);
  gst_structure_get_uint (s, "n", &n);
  if (i == 0 && c->reentrant) {
    gst_gpu_fft_poster_wait (c->posters[0]);
    c->reentrant_ok = gst_gpu_fft_poster_is_posting (c->posters[0])
        && !gst_gpu_fft_poster_is_posting (c->posters[1]);
  }
  g_mutex_lock (&c->lock);
  g_array_append_val (c->seen[i], n);
  if (i == 0 && c->expect && g_thread_self () != c->expect)
    c->foreign++;
  if (i == 0 && n == 0 && c->block_first) {
    deadline = g_get_monotonic_time () + BLOCK_US;
    c->blocking = TRUE;
    g_cond_broadcast (&c->cond);
    while (!c->released && g_cond_wait_until (&c->cond, &c->lock, deadline));
    c->blocking = FALSE;
  }
  g_cond_broadcast (&c->cond);
  g_mutex_unlock (&c->lock);
  gst_message_unref (m);
  return GST_BUS_DROP;
}

static Ctx *
ctx_new (guint n)
{
  Ctx *c = g_new0 (Ctx, 1);
  GstBus *bus = gst_bus_new ();
  guint i;

  g_mutex_init (&c->lock);
  g_cond_init (&c->cond);
  gst_bus_set_sync_handler (bus, on_message, c, NULL);
  c->n = n;
  for (i = 0; i < n; i++) {
    c->elements[i] = g_object_new (test_poster_get_type (), NULL);
    gst_object_ref_sink (c->elements[i]);
    gst_element_set_bus (c->elements[i], bus);
    c->posters[i] = gst_gpu_fft_poster_new (c->elements[i], NULL);
    c->seen[i] = g_array_new (FALSE, FALSE, sizeof (guint));
  }
  gst_object_unref (bus);
  return c;
}

static void
ctx_free (Ctx * c)
{
  guint i;

  for (i = 0; i < c->n; i++) {
    gst_gpu_fft_poster_stop (c->posters[i]);
    gst_gpu_fft_poster_free (c->posters[i]);
    gst_element_set_bus (c->elements[i], NULL);
    gst_object_unref (c->elements[i]);
    g_array_free (c->seen[i], TRUE);
  }
  g_mutex_clear (&c->lock);
  g_cond_clear (&c->cond);
  g_free (c);
}

static void
push (Ctx * c, guint i, guint n, gboolean bounded)
{
  GstMessage *m = gst_message_new_element (GST_OBJECT (c->elements[i]),
      gst_structure_new ("test", "i", G_TYPE_UINT, i, "n", G_TYPE_UINT, n,
          NULL));

  gst_gpu_fft_poster_push (c->posters[i], m, NULL, FALSE, 0, bounded);
}

static guint
seen (Ctx * c, guint i)
{
  guint n;

  g_mutex_lock (&c->lock);
  n = c->seen[i]->len;
  g_mutex_unlock (&c->lock);
  return n;
}

/* the messages of element i are n0..n0+count-1, in order, from index
 * from of what it saw */
static void
check_seen (Ctx * c, guint i, guint from, guint n0, guint count)
{
  guint k;

  fail_unless (c->seen[i]->len >= from + count, "element %u: %u messages, "
      "%u expected", i, c->seen[i]->len, from + count);
  for (k = 0; k < count; k++)
    fail_unless_equals_int (g_array_index (c->seen[i], guint, from + k),
        n0 + k);
}

/* 64 elements' messages pushed in one round: a few thread wake-ups post
 * them all (a thread per element costs 64): at most 4 in the best of 3
 * rounds, at most 16 in each (a pushing thread descheduled for long on a
 * busy machine ends a posting thread's pause empty-handed) */
GST_START_TEST (test_wakeups_coalesced)
{
  Ctx *c = ctx_new (MAX_ELEMENTS);
  guint64 before, after, best = G_MAXUINT64;
  guint i, round;

  /* (a first round: the threads exist) */
  for (i = 0; i < c->n; i++)
    push (c, i, 0, TRUE);
  for (i = 0; i < c->n; i++)
    gst_gpu_fft_poster_wait (c->posters[i]);
  for (round = 1; round <= 3; round++) {
    before = gst_gpu_fft_poster_get_wakeups (NULL);
    for (i = 0; i < c->n; i++)
      push (c, i, round, TRUE);
    for (i = 0; i < c->n; i++)
      gst_gpu_fft_poster_wait (c->posters[i]);
    after = gst_gpu_fft_poster_get_wakeups (NULL);
    GST_INFO ("round %u: %" G_GUINT64_FORMAT " wake-ups for %u elements",
        round, after - before, c->n);
    fail_unless (after - before <= 16, "round %u: %" G_GUINT64_FORMAT
        " posting-thread wake-ups for %u elements' messages (16 at most)",
        round, after - before, c->n);
    best = MIN (best, after - before);
  }
  fail_unless (best <= 4, "%" G_GUINT64_FORMAT " posting-thread wake-ups "
      "for %u elements' messages in the best round (4 at most)", best, c->n);
  for (i = 0; i < c->n; i++)
    check_seen (c, i, 0, 0, 4);
  ctx_free (c);
}

GST_END_TEST;

/* Element 0's handler blocks on its first message: element 1's messages,
 * pushed then, with no push nor wait after, and in rounds beside element
 * 0's after, are posted meanwhile, then element 0's, in order, once its
 * handler returns */
GST_START_TEST (test_blocked_handler_holds_its_element_only)
{
  Ctx *c = ctx_new (2);
  gint64 deadline = g_get_monotonic_time () + BLOCK_US - G_USEC_PER_SEC;
  gboolean b_meanwhile;
  guint k, b_seen;

  c->block_first = TRUE;
  push (c, 0, 0, TRUE);
  g_mutex_lock (&c->lock);
  while (!c->blocking && g_cond_wait_until (&c->cond, &c->lock, deadline));
  g_mutex_unlock (&c->lock);
  fail_unless (c->blocking);
  push (c, 1, 0, TRUE);
  /* (nothing more pushed and nobody waiting for element 1's poster: the
   * message is posted nonetheless, by the watcher's look at the latest) */
  g_mutex_lock (&c->lock);
  while ((c->seen[1]->len < 1 || !c->blocking)
      && g_cond_wait_until (&c->cond, &c->lock, deadline));
  b_meanwhile = c->blocking && c->seen[1]->len == 1;
  g_mutex_unlock (&c->lock);
  fail_unless (b_meanwhile, "element 1's message waited for element 0's "
      "blocked bus handler");
  for (k = 1; k <= 20; k++) {
    push (c, 0, k, TRUE);
    push (c, 1, k, TRUE);
    gst_gpu_fft_poster_wait (c->posters[1]);
  }
  g_mutex_lock (&c->lock);
  b_seen = c->blocking ? c->seen[1]->len : 0;
  b_meanwhile = c->blocking && b_seen == 21 && c->seen[0]->len == 1;
  c->released = TRUE;
  g_cond_broadcast (&c->cond);
  g_mutex_unlock (&c->lock);
  fail_unless (b_meanwhile, "element 1's messages waited for element 0's "
      "blocked bus handler (%u of 21 posted meanwhile)", b_seen);
  gst_gpu_fft_poster_wait (c->posters[0]);
  check_seen (c, 0, 0, 0, 21);
  check_seen (c, 1, 0, 0, 21);
  fail_unless_equals_int (gst_gpu_fft_poster_get_dropped (c->posters[0]), 0);
  ctx_free (c);
}

GST_END_TEST;

/* A live stream's queue behind a blocked handler: the newest 1024 wait,
 * the others are dropped and counted */
GST_START_TEST (test_bounded_queue_drops_oldest)
{
  Ctx *c = ctx_new (1);
  gint64 deadline = g_get_monotonic_time () + BLOCK_US;
  guint k;

  c->block_first = TRUE;
  push (c, 0, 0, TRUE);
  g_mutex_lock (&c->lock);
  while (!c->blocking && g_cond_wait_until (&c->cond, &c->lock, deadline));
  g_mutex_unlock (&c->lock);
  fail_unless (c->blocking);
  for (k = 1; k <= 1500; k++)
    push (c, 0, k, TRUE);
  fail_unless_equals_int (gst_gpu_fft_poster_get_dropped (c->posters[0]),
      1500 - 1024);
  g_mutex_lock (&c->lock);
  c->released = TRUE;
  g_cond_broadcast (&c->cond);
  g_mutex_unlock (&c->lock);
  gst_gpu_fft_poster_wait (c->posters[0]);
  fail_unless_equals_int (seen (c, 0), 1 + 1024);
  check_seen (c, 0, 0, 0, 1);
  check_seen (c, 0, 1, 1500 - 1024 + 1, 1024);
  /* (not live: nothing dropped, the ring grows) */
  for (k = 0; k < 3000; k++)
    push (c, 0, k, FALSE);
  gst_gpu_fft_poster_wait (c->posters[0]);
  fail_unless_equals_int (seen (c, 0), 1 + 1024 + 3000);
  check_seen (c, 0, 1 + 1024, 0, 3000);
  fail_unless_equals_int (gst_gpu_fft_poster_get_dropped (c->posters[0]),
      1500 - 1024);
  ctx_free (c);
}

GST_END_TEST;

/* A stop while element 0's handler blocks: element 1's queued messages
 * are dropped (or posted before) and the stop returns; element 0's stop
 * drops what waits behind its handler; both post again after */
GST_START_TEST (test_stop_beside_blocked_handler)
{
  Ctx *c = ctx_new (2);
  gint64 deadline = g_get_monotonic_time () + BLOCK_US - G_USEC_PER_SEC;
  guint k, b_before;

  c->block_first = TRUE;
  push (c, 0, 0, TRUE);
  g_mutex_lock (&c->lock);
  while (!c->blocking && g_cond_wait_until (&c->cond, &c->lock, deadline));
  g_mutex_unlock (&c->lock);
  fail_unless (c->blocking);
  for (k = 1; k <= 10; k++) {
    push (c, 0, k, TRUE);
    push (c, 1, k, TRUE);
  }
  gst_gpu_fft_poster_stop (c->posters[1]);
  b_before = seen (c, 1);
  fail_unless (b_before <= 10);
  check_seen (c, 1, 0, 1, b_before);
  push (c, 1, 100, TRUE);
  gst_gpu_fft_poster_wait (c->posters[1]);
  check_seen (c, 1, b_before, 100, 1);
  /* (element 0's stop from another thread than its posting one: what
   * waits is dropped, then the stop waits for the handler) */
  g_mutex_lock (&c->lock);
  c->released = TRUE;
  g_cond_broadcast (&c->cond);
  g_mutex_unlock (&c->lock);
  gst_gpu_fft_poster_stop (c->posters[0]);
  fail_unless (seen (c, 0) <= 11);
  push (c, 0, 200, TRUE);
  gst_gpu_fft_poster_wait (c->posters[0]);
  fail_unless_equals_int (g_array_index (c->seen[0], guint,
          c->seen[0]->len - 1), 200);
  ctx_free (c);
}

GST_END_TEST;

/* A bus handler that waits for its own poster returns at once */
GST_START_TEST (test_handler_waits_for_its_own_poster)
{
  Ctx *c = ctx_new (2);

  c->reentrant = TRUE;
  push (c, 0, 0, TRUE);
  push (c, 1, 0, TRUE);
  gst_gpu_fft_poster_wait (c->posters[0]);
  gst_gpu_fft_poster_wait (c->posters[1]);
  fail_unless (c->reentrant_ok);
  check_seen (c, 0, 0, 0, 1);
  check_seen (c, 1, 0, 0, 1);
  ctx_free (c);
}

GST_END_TEST;

#define HELD_MESSAGES 100

static gpointer
push_held (gpointer data)
{
  Ctx *c = data;
  guint n;

  for (n = 0; n < HELD_MESSAGES; n++)
    push (c, 0, n, FALSE);
  return NULL;
}

/* A held poster: messages pushed by another thread (a completion
 * thread's) wait, and no posting thread holds the element meanwhile but
 * through the messages themselves; the waiting thread posts them all, in
 * order, itself; released, what it then queues goes to a posting thread */
GST_START_TEST (test_held_posts_on_waiting_thread)
{
  Ctx *c = ctx_new (1);
  GThread *t;

  gst_gpu_fft_poster_set_held (c->posters[0], TRUE);
  t = g_thread_new ("pusher", push_held, c);
  g_thread_join (t);
  /* (a posting thread would have posted some by now) */
  g_usleep (50 * G_TIME_SPAN_MILLISECOND);
  fail_unless_equals_int (seen (c, 0), 0);
  /* the queued messages reference the element, nothing else does */
  ASSERT_OBJECT_REFCOUNT (c->elements[0], "element", 1 + HELD_MESSAGES);
  c->expect = g_thread_self ();
  gst_gpu_fft_poster_wait (c->posters[0]);
  check_seen (c, 0, 0, 0, HELD_MESSAGES);
  fail_unless_equals_int (c->foreign, 0);
  ASSERT_OBJECT_REFCOUNT (c->elements[0], "element", 1);
  /* released: posted off this thread */
  c->expect = NULL;
  push (c, 0, HELD_MESSAGES, FALSE);
  gst_gpu_fft_poster_set_held (c->posters[0], FALSE);
  gst_gpu_fft_poster_wait (c->posters[0]);
  check_seen (c, 0, 0, 0, HELD_MESSAGES + 1);
  ctx_free (c);
}

GST_END_TEST;

static Suite *
poster_suite (void)
{
  Suite *s = suite_create ("gpufft-poster");
  TCase *tc = tcase_create ("general");

  GST_DEBUG_CATEGORY_INIT (gst_gpu_fft_base_debug, "gpufftbase", 0,
      "the poster");
  tcase_set_timeout (tc, 60);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_wakeups_coalesced);
  tcase_add_test (tc, test_blocked_handler_holds_its_element_only);
  tcase_add_test (tc, test_bounded_queue_drops_oldest);
  tcase_add_test (tc, test_stop_beside_blocked_handler);
  tcase_add_test (tc, test_handler_waits_for_its_own_poster);
  tcase_add_test (tc, test_held_posts_on_waiting_thread);
  return s;
}

GST_CHECK_MAIN (poster);
