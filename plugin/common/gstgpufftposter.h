/* GstGpuFftBase: an element's messages, posted off the device's completion
 * thread.
 *
 * The completion thread hands each interval's messages to the element's
 * poster and goes on; a few posting threads shared by the process (at
 * most 32) post them, in order per element: one thread's wake-up serves
 * the messages of every element that a completion round produced. A
 * synchronous bus handler that blocks then delays its own element's
 * messages only: a thread posting for one element for more than 4 ms no
 * longer counts as serving the others, and another takes them (the
 * device's work and the other elements' messages go on). A thread that
 * works for one element alone may post them itself
 * (gst_gpu_fft_poster_post_here). A stream that is
 * not live waits for it before each batch (gst_gpu_fft_poster_wait); on a
 * live one a handler that never keeps up loses the oldest of at most 1024
 * queued messages (a debug warning says so once, and they are counted:
 * gst_gpu_fft_poster_get_dropped). A stop drops what is queued.
 * A poster that is held (gst_gpu_fft_poster_set_held: a stream that is
 * not live, whose application may read a buffer's messages as soon as the
 * buffer has passed) calls no posting thread: its messages wait until
 * the element's streaming thread waits for them, and are posted then, on
 * that thread, in order (at most what the plan's batches in flight
 * close: the streaming thread waits before each batch).
 *
 * Threads: push, wait, stop and the flags from any thread; free once the
 * element is done with it (its finalize), when no posting thread holds it
 * any more (the element is referenced while its messages wait or are
 * posted). No lock of the poster
 * is held while a message is posted. */
#ifndef __GST_GPU_FFT_POSTER_H__
#define __GST_GPU_FFT_POSTER_H__

#include <gst/gst.h>

G_BEGIN_DECLS typedef struct _GstGpuFftPoster GstGpuFftPoster;

/* Asked on the posting thread, just before a message pushed with a
 * generation is posted: FALSE drops it (settings changed since it was
 * measured, by a bus handler of an earlier message, say). */
typedef gboolean (*GstGpuFftPosterCheck) (GstElement * element, guint gen);

/* A poster for element (not referenced: it owns the poster). */
GstGpuFftPoster *gst_gpu_fft_poster_new (GstElement * element,
    GstGpuFftPosterCheck check);

/* Queues the messages (either may be NULL; taken) to be posted in order;
 * with_gen: each is checked against gen first; bounded (a live stream): at
 * most 1024 wait, the oldest are dropped beyond. */
void gst_gpu_fft_poster_push (GstGpuFftPoster * poster, GstMessage * first,
    GstMessage * second, gboolean with_gen, guint gen, gboolean bounded);

/* As push, but where no thread is posting the element's messages, the
 * calling thread posts them itself, with those queued meanwhile, instead
 * of handing them to a posting thread (whose wake-up costs more than
 * the posting): for a thread that works for this element alone (the host
 * plan's worker of a stream on the host alone). A synchronous bus handler
 * that blocks then holds that thread, and with it this element's
 * analysis; messages pushed by other threads meanwhile are queued and
 * posted by it, in order. */
void gst_gpu_fft_poster_post_here (GstGpuFftPoster * poster,
    GstMessage * first, GstMessage * second, gboolean with_gen, guint gen,
    gboolean bounded);

/* Waits until every message pushed so far is posted; held, posts them on
 * this thread. Returns at once on the poster's own posting thread (a bus
 * handler that stops its pipeline), and once the poster is stopping or
 * flushing (what is held then waits for the next wait). */
void gst_gpu_fft_poster_wait (GstGpuFftPoster * poster);

/* Waits until done (data) is TRUE: asked after each message the poster
 * has finished posting, and at least every 5 ms; FALSE where the element
 * stops or flushes first (as wait), and at once on the poster's own
 * posting thread. For what a thread that posts its own
 * messages (gst_gpu_fft_poster_post_here) has still to deliver: a bus
 * handler on that thread may be stopping the pipeline. */
typedef gboolean (*GstGpuFftPosterDone) (gpointer data);
gboolean gst_gpu_fft_poster_wait_until (GstGpuFftPoster * poster,
    GstGpuFftPosterDone done, gpointer data);

/* From FLUSH_START to FLUSH_STOP, waits return at once (a flushing seek
 * lets the streaming thread go). */
void gst_gpu_fft_poster_set_flushing (GstGpuFftPoster * poster,
    gboolean flushing);

/* The element's stop: drops the messages not posted yet and waits for the
 * one being posted (not on a posting thread: a bus handler stopping its
 * pipeline). From the element's PAUSED->READY on (set_stopping), a posting
 * thread drops what it has not posted yet. */
void gst_gpu_fft_poster_stop (GstGpuFftPoster * poster);

/* Held: pushes (and post_here) only queue the messages, and
 * gst_gpu_fft_poster_wait posts them on the waiting thread; no posting
 * thread holds the element or its messages meanwhile. Released: what is
 * queued goes to a posting thread. Set before the messages it is for are
 * pushed (the stream's start). */
void gst_gpu_fft_poster_set_held (GstGpuFftPoster * poster, gboolean held);

/* The element's start: the count of dropped messages starts at 0. */
void gst_gpu_fft_poster_start (GstGpuFftPoster * poster);

/* Messages dropped from the full queue of a live stream since the
 * element's start (its `stats`). */
guint64 gst_gpu_fft_poster_get_dropped (GstGpuFftPoster * poster);

/* While stopping, waits return at once (set when the element goes from
 * PAUSED to READY, so that a streaming thread waiting for a bus handler
 * that stops the pipeline lets the state change through). */
void gst_gpu_fft_poster_set_stopping (GstGpuFftPoster * poster,
    gboolean stopping);

/* TRUE on the poster's posting thread while it posts (in a synchronous
 * bus handler of one of the element's messages). */
gboolean gst_gpu_fft_poster_is_posting (GstGpuFftPoster * poster);

/* The process's posting threads' wake-ups so far: those that found
 * messages to post (a thread started, woken by a push, or back from a
 * pause with messages waiting) and, in idle (may be NULL), those that
 * found none (a pause that ended empty, the watcher's look). For tests and
 * benchmarks. */
guint64 gst_gpu_fft_poster_get_wakeups (guint64 * idle);

/* Drops the messages not posted yet and frees the poster. */
void gst_gpu_fft_poster_free (GstGpuFftPoster * poster);

G_END_DECLS
#endif /* __GST_GPU_FFT_POSTER_H__ */
