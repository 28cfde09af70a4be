/* GstGpuFftBase: the result path. gst_gpu_fft_base_results_on_result()
 * is the engine's result function: it runs on the device's completion
 * thread (or a host plan's thread, which has delivered everything before
 * the device's plan takes over: one thread at a time, gstgpufftbase-
 * stream.c), in interval order per element, with no lock held (it takes the
 * object lock only to read handler_gen), builds the interval's
 * messages from the parameters its batch was tagged with
 * (gstgpufftmessage.c), and hands them to the element's poster, which
 * posts them from a thread of its own (gstgpufftposter.h: a bus handler
 * that blocks delays this element only); on the host alone the host
 * plan's thread, which works for this element only, posts them itself
 * (gst_gpu_fft_base_results_on_host_result). It owns the tag it is handed.
 * gst_gpu_fft_base_results_drain() waits (streaming thread) until every
 * interval handed to the GPU is posted (or the element is stopping).
 * gpuspectrum on a stream that is not live posts as spectrum does: the
 * poster is held (gst_gpu_fft_base_results_choose_posting), the results
 * are queued as they come, and the streaming thread, once a buffer's
 * batches are handed over, waits for the plan (its deadline-bounded wait,
 * which a stop cancels) and posts the messages itself, in order, before
 * the buffer leaves (gst_gpu_fft_base_results_post_buffer); a live stream
 * keeps the posting threads. Engine errors become one element error, from
 * whichever thread sees them first. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstgpufftbase-private.h"

#define GST_CAT_DEFAULT gst_gpu_fft_base_debug

/* ------------------------------------------------------------------------ */
/* errors                                                                   */

void
gst_gpu_fft_base_results_post_engine_error (GstGpuFftBase * self,
    const gchar * what, const GError * error)
{
  /* (a stop let a wait for the device go: no error) */
  if (g_error_matches (error, GPUFFT_ERROR, GPUFFT_ERROR_CANCELLED))
    return;
  /* the streaming thread and the completion thread may both see one
   * device failure: one error message */
  if (!g_atomic_int_compare_and_exchange (&self->priv->error_posted, 0, 1))
    return;
  if (error && error->domain == GPUFFT_ERROR &&
      error->code == GPUFFT_ERROR_DEVICE_LOST) {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
        ("The Vulkan device was lost: %s", error->message),
        ("%s failed; restart the pipeline (a new device context is made at "
            "the next start)", what));
  } else {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
        ("%s", error ? error->message : "GPU FFT engine failure"),
        ("%s failed", what));
  }
}

/* ------------------------------------------------------------------------ */
/* results and messages                                                     */

/* gpuspectrum, as spectrum at a DISCONT: the dB sums (mean x frames) of
 * the interval cut, and its phase sums, are added to the next message's,
 * which is divided by its own frame count. self->priv->carry: [channels][bins]
 * dB sums, then as many phase sums. A carry goes to the first interval of
 * the grid its cut starts (interval 0 of cut_seq) and to no other: any
 * other closed interval, posted or not, ends it (spectrum zeroes its sums
 * at every interval's end); a cut of that interval 0 adds to it. It
 * belongs to one restart (restart_gen). Completion thread only. */
static gboolean
carry_pending (GstGpuFftBase * self, const GstGpuFftMessageParams * p,
    guint seq, gsize len)
{
  return self->priv->carry_any && self->priv->carry_gen == p->restart_gen
      && self->priv->carry_seq == seq && self->priv->carry_len == len;
}

static void
carry_add (GstGpuFftBase * self, const GstGpuFftMessageParams * p,
    const GpufftGroupResult * r)
{
  gsize len = (gsize) r->channels * r->n_bins, i;
  guint c;

  if (!(p->interval == 0 && carry_pending (self, p, p->cut_seq - 1, len))) {
    if (self->priv->carry_len != len) {
      g_free (self->priv->carry);
      self->priv->carry = g_new (gdouble, 2 * len);
      self->priv->carry_len = len;
    }
    memset (self->priv->carry, 0, 2 * len * sizeof (gdouble));
  }
  self->priv->carry_any = TRUE;
  self->priv->carry_gen = p->restart_gen;
  self->priv->carry_seq = p->cut_seq;
  for (c = 0; r->power && c < r->channels; c++) {
    gdouble used = r->channel_frames ? r->channel_frames[c] : r->n_frames;

    for (i = 0; i < r->n_bins; i++) {
      gsize j = (gsize) c * r->n_bins + i;

      self->priv->carry[j] += used * r->power[j];
      if (r->phase)
        self->priv->carry[len + j] += used * r->phase[j];
    }
  }
  GST_DEBUG_OBJECT (self, "sums of an interval cut by a DISCONT (%u frames) "
      "carried into the next message", r->n_frames);
}

/* Ends any carry; returns the result with the carried sums added (a copy
 * of r in *out, with power and phase from the returned array, to be
 * freed) where r is the interval it goes to, else NULL. */
static gfloat *
carry_take (GstGpuFftBase * self, const GstGpuFftMessageParams * p,
    const GpufftGroupResult * r, GpufftGroupResult * out)
{
  gsize len = (gsize) r->channels * r->n_bins, i;
  gfloat *values;
  guint c;

  if (!self->priv->carry_any)
    return NULL;
  if (r->power == NULL || p->interval != 0
      || !carry_pending (self, p, p->cut_seq, len)) {
    self->priv->carry_any = FALSE;
    return NULL;
  }
  self->priv->carry_any = FALSE;
  values = g_new (gfloat, 2 * len);
  for (c = 0; c < r->channels; c++) {
    gdouble used = r->channel_frames ? r->channel_frames[c] : r->n_frames;

    for (i = 0; i < r->n_bins; i++) {
      gsize j = (gsize) c * r->n_bins + i;

      values[j] = r->power[j];
      values[len + j] = r->phase ? r->phase[j] : 0.0f;
      if (used > 0) {
        values[j] += self->priv->carry[j] / used;
        values[len + j] += self->priv->carry[len + j] / used;
      }
    }
  }
  *out = *r;
  out->power = values;
  if (r->phase)
    out->phase = values + len;
  return values;
}

/* The engine's result function: runs on the device's completion thread
 * (or a host plan's), in interval order, with no lock held. The group's
 * tag is the message parameters computed when its batch was submitted
 * (NULL: no message). here: this thread posts the messages itself where
 * no other is posting them (gst_gpu_fft_poster_post_here). */
static void
on_result (const GpufftGroupResult * result, GstGpuFftBase * self,
    gboolean here)
{
  GstGpuFftMessageParams *p = result->tag;
  GstMessage *spectrum = NULL, *dominant = NULL;
  gboolean compat;
  guint gen;

  if (result->failed) {
    GError *error = NULL;

    /* the plan's error says why */
    if (self->priv->plan
        && gpufft_plan_collect (self->priv->plan, FALSE, NULL, NULL,
            &error) < 0) {
      gst_gpu_fft_base_results_post_engine_error (self, "Analysing on the GPU",
          error);
      g_clear_error (&error);
    }
    gst_gpu_fft_message_params_free (p);
    return;
  }
  if (p == NULL)
    return;
  GST_LOG_OBJECT (self, "interval at %" GST_TIME_FORMAT ": %u frames",
      GST_TIME_ARGS (p->timestamp), result->n_frames);
  /* gpuspectrum: nothing measured before a change of geometry by a bus
   * handler of an earlier message reaches it (the very next message has
   * the new one) */
  if (p->compat && !gst_gpu_fft_base_results_still_wanted (GST_ELEMENT (self),
          p->gen)) {
    gst_gpu_fft_message_params_free (p);
    return;
  }
  if (p->compat && p->carry) {
    carry_add (self, p, result);
    gst_gpu_fft_message_params_free (p);
    return;
  }
  if (p->compat) {
    GpufftGroupResult with_carry;
    gfloat *values = carry_take (self, p, result, &with_carry);

    if (result->n_frames > 0 && p->post)
      spectrum = gst_message_new_element (GST_OBJECT (self),
          gst_gpu_fft_message_build_compat (p, values ? &with_carry : result));
    g_free (values);
    if (!p->post) {
      gst_gpu_fft_message_params_free (p);
      return;
    }
  } else if (result->n_frames > 0) {
    spectrum = gst_message_new_element (GST_OBJECT (self),
        gst_gpu_fft_message_build_spectrum (p, result));
    if (p->dominant)
      dominant = gst_message_new_element (GST_OBJECT (self),
          gst_gpu_fft_message_build_dominant (p, result));
  }
  compat = p->compat;
  gen = p->gen;
  gst_gpu_fft_message_params_free (p);
  /* (gpuspectrum: checked again just before posting, for a change made
   * by a bus handler of an earlier message) */
  /* (not live: the streaming thread waits for the poster before each
   * batch, so nothing is dropped; is_live is the streaming thread's, set
   * before any batch) */
  if (here)
    gst_gpu_fft_poster_post_here (self->priv->poster, spectrum, dominant,
        compat, gen, self->priv->is_live > 0);
  else
    gst_gpu_fft_poster_push (self->priv->poster, spectrum, dominant, compat,
        gen, self->priv->is_live > 0);
}

void
gst_gpu_fft_base_results_on_result (const GpufftGroupResult * result,
    gpointer user_data)
{
  on_result (result, user_data, FALSE);
}

/* A host plan's on the host alone: its worker thread is this element's
 * alone, and posts the messages itself */
void
gst_gpu_fft_base_results_on_host_result (const GpufftGroupResult * result,
    gpointer user_data)
{
  on_result (result, user_data, TRUE);
}

/* gpuspectrum: a message measured before a property change made by a bus
 * handler of an earlier message is not posted (the poster asks just
 * before posting); see gst_gpu_fft_base_settings_changed() */
gboolean
gst_gpu_fft_base_results_still_wanted (GstElement * element, guint gen)
{
  GstGpuFftBase *self = GST_GPU_FFT_BASE (element);
  guint now;

  GST_OBJECT_LOCK (self);
  now = self->priv->handler_gen;
  GST_OBJECT_UNLOCK (self);
  if ((gint) (now - gen) <= 0)
    return TRUE;
  GST_DEBUG_OBJECT (self, "interval measured before a property change by a "
      "bus handler: not posted");
  return FALSE;
}

static gboolean
plan_delivered (gpointer plan)
{
  return gpufft_plan_in_flight (plan) == 0;
}

/* Waits until every interval handed to the GPU has been posted: only where
 * ordering demands it (EOS, flush, caps, a new plan, stop). */
gboolean
gst_gpu_fft_base_results_drain (GstGpuFftBase * self)
{
  GError *error = NULL;

  if (self->priv->plan == NULL)
    return TRUE;
  /* (a plan whose thread posts: as long as the poster's wait, which a
   * stop or a flush lets go; a bus handler on that thread may be the one
   * stopping the pipeline, waiting for this streaming thread) */
  /* (held, the plan's thread only queues them) */
  if (self->priv->posts_here && !self->priv->posts_sync
      && !gst_gpu_fft_poster_wait_until (self->priv->poster, plan_delivered,
          self->priv->plan))
    return TRUE;
  if (gpufft_plan_collect (self->priv->plan, TRUE, NULL, NULL, &error) < 0) {
    gst_gpu_fft_base_results_post_engine_error (self, "Analysing on the GPU",
        error);
    g_clear_error (&error);
    return FALSE;
  }
  gst_gpu_fft_poster_wait (self->priv->poster);
  return TRUE;
}

/* Once the stream says whether it is live: gpuspectrum's messages of a
 * stream that is not live are posted on the streaming thread (the poster
 * held), as spectrum posts them; live streams, and gpufftspectrum's, go
 * through the posting threads (a bus handler that blocks holds neither
 * the audio nor the other elements' messages). */
void
gst_gpu_fft_base_results_choose_posting (GstGpuFftBase * self)
{
  self->priv->posts_sync = self->priv->is_live == 0
      && GST_GPU_FFT_BASE_GET_CLASS (self)->spectrum_compat;
  gst_gpu_fft_poster_set_held (self->priv->poster, self->priv->posts_sync);
}

/* Streaming thread, at the end of a buffer: where the poster is held,
 * waits for the batches handed over (the plan's drain: at most until
 * their stall deadline, cut short by a stop) and posts the messages of
 * the intervals they closed, and those queued before, here, in order. A
 * buffer that handed nothing over posts what is queued (warnings). */
gboolean
gst_gpu_fft_base_results_post_buffer (GstGpuFftBase * self)
{
  GError *error = NULL;
  gboolean cancelled;

  if (!self->priv->posts_sync)
    return TRUE;
  /* (held: no thread of the plan's posts, so its drain may wait) */
  if (self->priv->plan && gpufft_plan_in_flight (self->priv->plan) > 0
      && gpufft_plan_collect (self->priv->plan, TRUE, NULL, NULL,
          &error) < 0) {
    /* (a stop: what is queued is dropped) */
    cancelled = g_error_matches (error, GPUFFT_ERROR, GPUFFT_ERROR_CANCELLED);
    gst_gpu_fft_base_results_post_engine_error (self, "Analysing on the GPU",
        error);
    g_clear_error (&error);
    return cancelled;
  }
  gst_gpu_fft_poster_wait (self->priv->poster);
  return TRUE;
}
