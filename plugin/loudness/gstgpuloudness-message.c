/* gpuloudness: the result path. Runs on the device's completion thread
 * (on the host path, the streaming thread) and, for the marks, on the
 * streaming thread: under the element's `lock`, the meter takes each
 * batch's 10 ms blocks of the current generation (older ones, from before
 * a reset or new caps, are dropped), and every interval mark whose blocks
 * it has becomes an "ebur128-level" message (gstgpuloudness.c lists its
 * fields), handed to the element's poster in order; the poster posts
 * them outside every lock. A failed batch is logged here and reported by
 * the streaming thread at its next batch. The marks queue holds a mark
 * for each interval ended and not yet measured: the samples behind them
 * are bounded (the store, the staging, the engine's slots), and so are
 * they (an interval is at least 1 ms). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstgpuloudness-private.h"

#define GST_CAT_DEFAULT gst_gpu_loudness_debug

/* ---- results (the device's completion thread) --------------------------- */

static GValue *
peaks_array (GstGpuLoudness * self, gboolean true_peak, GValue * arr)
{
  guint c;

  g_value_init (arr, GST_TYPE_ARRAY);
  for (c = 0; c < self->channels; c++) {
    GValue v = G_VALUE_INIT;

    g_value_init (&v, G_TYPE_DOUBLE);
    g_value_set_double (&v, true_peak ?
        gst_gpu_loudness_meter_true_peak (self->meter, c) :
        gst_gpu_loudness_meter_sample_peak (self->meter, c));
    gst_value_array_append_and_take_value (arr, &v);
  }
  return arr;
}

/* the message of one interval, from the meter as it is (lock held) */
static GstMessage *
make_message (GstGpuLoudness * self, const Mark * mk)
{
  GstGpuLoudnessMeter *m = self->meter;
  guint mode = self->mode_now;
  GstStructure *s;
  GValue arr = G_VALUE_INIT;

  s = gst_structure_new ("ebur128-level",
      "timestamp", G_TYPE_UINT64, mk->ts,
      "running-time", G_TYPE_UINT64, mk->running_time,
      "stream-time", G_TYPE_UINT64, mk->stream_time,
      "duration", G_TYPE_UINT64, mk->duration,
      "momentary-loudness", G_TYPE_DOUBLE,
      gst_gpu_loudness_meter_momentary (m), NULL);
  if (mode & MODE_MOMENTARY)
    gst_structure_set (s, "max-momentary-loudness", G_TYPE_DOUBLE,
        gst_gpu_loudness_meter_max_momentary (m), NULL);
  if (mode & (MODE_SHORT_TERM | MODE_LOUDNESS_RANGE))
    gst_structure_set (s, "shortterm-loudness", G_TYPE_DOUBLE,
        gst_gpu_loudness_meter_shortterm (m), NULL);
  if (mode & MODE_SHORT_TERM)
    gst_structure_set (s, "max-shortterm-loudness", G_TYPE_DOUBLE,
        gst_gpu_loudness_meter_max_shortterm (m), NULL);
  if (mode & MODE_GLOBAL) {
    gdouble rel, g = gst_gpu_loudness_meter_integrated (m, &rel);

    gst_structure_set (s, "global-loudness", G_TYPE_DOUBLE, g,
        "relative-threshold", G_TYPE_DOUBLE, rel, NULL);
  }
  if (mode & MODE_LOUDNESS_RANGE)
    gst_structure_set (s, "loudness-range", G_TYPE_DOUBLE,
        gst_gpu_loudness_meter_range (m), NULL);
  if (mode & (MODE_SAMPLE_PEAK | MODE_TRUE_PEAK))
    gst_structure_take_value (s, "sample-peak", peaks_array (self, FALSE,
            &arr));
  if (mode & MODE_TRUE_PEAK) {
    memset (&arr, 0, sizeof (arr));
    gst_structure_take_value (s, "true-peak", peaks_array (self, TRUE, &arr));
  }
  return gst_message_new_element (GST_OBJECT (self), s);
}

/* Marks whose blocks the meter has: their messages, appended to out
 * (lock held). */
void
gst_gpu_loudness_message_take_marks (GstGpuLoudness * self, GPtrArray * out)
{
  Mark *mk;

  while ((mk = g_queue_peek_head (&self->marks)) != NULL
      && mk->blocks <= gst_gpu_loudness_meter_blocks (self->meter)) {
    g_queue_pop_head (&self->marks);
    if (mk->post)
      g_ptr_array_add (out, make_message (self, mk));
    g_free (mk);
  }
}

/* Hands the messages to the poster, in order (lock held: the poster's
 * push only queues them) */
void
gst_gpu_loudness_message_post_all (GstGpuLoudness * self, GPtrArray * msgs)
{
  guint i;

  for (i = 0; i < msgs->len; i++)
    gst_gpu_fft_poster_push (self->poster, g_ptr_array_index (msgs, i), NULL,
        FALSE, 0, g_atomic_int_get (&self->is_live));
  g_ptr_array_free (msgs, TRUE);
}

void
gst_gpu_loudness_message_on_result (const GpufftLoudnessResult * r,
    const GError * error, gpointer user_data)
{
  GstGpuLoudness *self = user_data;
  GPtrArray *msgs = g_ptr_array_new ();
  guint b;

  if (error) {
    /* (the streaming thread reports it at its next batch) */
    GST_WARNING_OBJECT (self, "a batch failed: %s", error->message);
    g_ptr_array_free (msgs, TRUE);
    return;
  }
  g_mutex_lock (&self->lock);
  if (r->tag == self->gen && self->meter) {
    gst_gpu_loudness_message_take_marks (self, msgs);
    for (b = 0; b < r->n_blocks; b++) {
      gst_gpu_loudness_meter_add_block (self->meter,
          r->values + (gsize) b * r->channels * 4);
      gst_gpu_loudness_message_take_marks (self, msgs);
    }
  }
  /* (pushed under the lock, which orders them with the streaming thread's:
   * a push neither blocks nor posts) */
  gst_gpu_loudness_message_post_all (self, msgs);
  g_mutex_unlock (&self->lock);
}
