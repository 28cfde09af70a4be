/* The result path: the completion thread finishes each slot (readback
 * invalidated, results handed to the plan's result function or copied to
 * its stash, slot freed); collect() hands the stash to its caller and is
 * also the plan's drain. See gpufft-plan-private.h. */
#include <string.h>

#include "gpufft-plan-private.h"
#include "gpufft-result-copy.h"
#include "gpufft-scheduler.h"

void
gpufft_plan_stash_clear (GpufftPlan * plan)
{
  GpufftGroupResult *r;

  /* (results never collected: their tags go to tag_free) */
  while ((r = g_queue_pop_head (&plan->stash)) != NULL) {
    if (r->tag && plan->tag_free)
      plan->tag_free (r->tag);
    g_free (r);
  }
  plan->n_stashed = 0;
}

/* Fills result r for closed group g of slot s (failed: only the group's
 * identity and tag). */
static void
fill_result (GpufftPlan * plan, GpufftSlot * s, guint g, gboolean failed,
    GpufftGroupResult * r)
{
  gsize row = (gsize) plan->out_ch * plan->nb;

  memset (r, 0, sizeof (*r));
  r->group_index = s->first_index + g;
  r->n_frames = s->closed_frames[g];
  r->channels = plan->out_ch;
  r->n_bins = plan->nb;
  r->tag = s->closed_tags[g];
  r->failed = failed;
  if (failed)
    return;
  r->power = (const gfloat *) s->out.mapped + g * row;
  r->channel_frames = (const guint *) s->counts.mapped + g * plan->out_ch;
  if (plan->cfg.phase_mean)
    r->phase = (const gfloat *) s->cplx.mapped + 2 * g * row;
  else if (plan->cfg.complex_out)
    r->complex_data = (const gfloat *) s->cplx.mapped + 2 * g * row;
  if (plan->n_peaks > 0) {
    const guint32 *pk = s->peaks.mapped;
    guint n = plan->out_ch * plan->n_peaks, i;

    for (i = 0; i < n; i++) {
      const guint32 *e = pk + 4 * ((gsize) g * n + i);

      plan->peak_scratch[i].bin = e[0] == 0xffffffffu ? G_MAXUINT : e[0];
      memcpy (plan->peak_scratch[i].power, e + 1, 3 * sizeof (gfloat));
    }
    r->peaks = plan->peak_scratch;
    r->n_peaks = plan->n_peaks;
  }
  gpufft_plan_analysis_fill (plan, s, g, r);
}

/* An import a lost or hung device may still read, released once it has
 * finished (gpufft_context_release_later). */
typedef struct
{
  GpufftContext *ctx;
  SlotImport si;
} LateImport;

static void
late_import_release (gpointer data)
{
  LateImport *li = data;

  if (!li->si.borrowed)
    gpufft_import_clear (li->ctx, &li->si.imp);
  if (li->si.release)
    li->si.release (li->si.release_data);
  gpufft_context_unref (li->ctx);
  g_free (li);
}

void
gpufft_plan_finish_slot (GpufftPlan * plan, GpufftSlot * s,
    const GpufftTimings * timings, const GError * error)
{
  GError *err = NULL;
  GpufftResultFunc func;
  gpointer func_data;
  GDestroyNotify tag_free;
  GQueue local = G_QUEUE_INIT;
  gboolean failed;
  guint g, i, frame = 0;

  /* The GPU has read the imported input, or never will; but a device that
   * is lost or hangs may still read it: then it stays allocated and
   * referenced until the device has finished what was submitted
   * (gpufft_context_release_later: never, if it does not within the fence
   * timeout), rather than freed under the device. */
  if (error && g_error_matches (error, GPUFFT_ERROR, GPUFFT_ERROR_DEVICE_LOST)) {
    for (i = 0; i < s->imports->len; i++) {
      LateImport *li = g_new (LateImport, 1);

      li->ctx = gpufft_context_ref (plan->ctx);
      li->si = g_array_index (s->imports, SlotImport, i);
      gpufft_context_release_later (plan->ctx, late_import_release, li);
    }
    g_array_set_size (s->imports, 0);
  } else
    gpufft_plan_release_imports (plan, s);
  if (error == NULL && (!gpufft_buffer_invalidate (&s->out, plan->ctx, &err)
          || !gpufft_buffer_invalidate (&s->counts, plan->ctx, &err)
          || (s->peaks.buffer && !gpufft_buffer_invalidate (&s->peaks,
                  plan->ctx, &err))
          || (s->cplx.buffer && !gpufft_buffer_invalidate (&s->cplx,
                  plan->ctx, &err))
          || (s->ext.buffer && !gpufft_buffer_invalidate (&s->ext,
                  plan->ctx, &err))
          || (s->frames.buffer && !gpufft_buffer_invalidate (&s->frames,
                  plan->ctx, &err))))
    error = err;
  failed = error != NULL;

  g_mutex_lock (&plan->lock);
  func = plan->func;
  func_data = plan->func_data;
  tag_free = plan->tag_free;
  /* (gpufft_plan_free waits for the calls under way) */
  if (func)
    plan->delivering++;
  if (failed && plan->error == NULL)
    plan->error = g_error_copy (error);
  if (timings)
    plan->timings = *timings;
  g_mutex_unlock (&plan->lock);

  for (i = 0, g = 0; i < s->n_groups; i++) {
    GpufftGroupResult r;
    guint n = s->group_frames[i] & ~GROUP_CLOSES;

    /* (frame rows: a group that spans batches collects them batch after
     * batch) */
    if (!failed)
      gpufft_plan_analysis_add_frames (plan, s, frame, n);
    frame += n;
    if (!(s->group_frames[i] & GROUP_CLOSES))
      continue;
    fill_result (plan, s, g, failed, &r);
    /* (a group whose earlier batch failed has rows missing: none) */
    if (plan->cfg.frames_out && !failed && plan->frame_acc->len ==
        (gsize) r.n_frames * plan->out_ch * plan->frame_row) {
      r.frames = (const gfloat *) plan->frame_acc->data;
      r.frame_values = plan->frame_values;
      r.frame_stride = plan->frame_row;
    }
    g++;
    if (g_atomic_int_get (&plan->doomed)) {
      /* (freed, or freed by the last result function's callee: nobody
       * listens; the tag goes to tag_free) */
      if (r.tag && tag_free)
        tag_free (r.tag);
    } else if (func) {
      func (&r, func_data);
    } else {
      g_queue_push_tail (&local, gpufft_result_copy (&r));
    }
    if (plan->frame_acc)
      g_array_set_size (plan->frame_acc, 0);
  }
  if (failed && plan->frame_acc)
    g_array_set_size (plan->frame_acc, 0);
  g_clear_error (&err);

  g_mutex_lock (&plan->lock);
  if (func)
    plan->delivering--;
  if (!func) {
    GList *l;

    while ((l = g_queue_pop_head_link (&local)) != NULL)
      g_queue_push_tail_link (&plan->stash, l);
    plan->n_stashed++;
  }
  plan->n_busy--;
  g_cond_broadcast (&plan->cond);
  g_mutex_unlock (&plan->lock);
  /* (the plan may be freed by its owner from here on) */
}

void
gpufft_plan_set_cancel (GpufftPlan * plan, const gint * cancel)
{
  g_return_if_fail (plan != NULL);
  plan->ops->set_cancel (plan, cancel);
}

void
gpufft_plan_device_set_cancel (GpufftPlan * plan, const gint * cancel)
{
  g_mutex_lock (&plan->lock);
  plan->cancel = cancel;
  g_mutex_unlock (&plan->lock);
}

void
gpufft_plan_set_result_func (GpufftPlan * plan, GpufftResultFunc func,
    gpointer user_data)
{
  plan->ops->set_result_func (plan, func, user_data);
}

void
gpufft_plan_device_set_result_func (GpufftPlan * plan, GpufftResultFunc func,
    gpointer user_data)
{
  g_mutex_lock (&plan->lock);
  plan->func = func;
  plan->func_data = user_data;
  g_mutex_unlock (&plan->lock);
}

void
gpufft_plan_set_tag_free (GpufftPlan * plan, GDestroyNotify tag_free)
{
  plan->ops->set_tag_free (plan, tag_free);
}

void
gpufft_plan_device_set_tag_free (GpufftPlan * plan, GDestroyNotify tag_free)
{
  g_mutex_lock (&plan->lock);
  plan->tag_free = tag_free;
  g_mutex_unlock (&plan->lock);
}

gint
gpufft_plan_collect (GpufftPlan * plan, gboolean wait, GpufftResultFunc func,
    gpointer user_data, GError ** error)
{
  g_return_val_if_fail (plan != NULL, -1);
  return plan->ops->collect (plan, wait, func, user_data, error);
}

gint
gpufft_plan_device_collect (GpufftPlan * plan, gboolean wait,
    GpufftResultFunc func, gpointer user_data, GError ** error)
{
  GQueue got = G_QUEUE_INIT;
  GError *err = NULL;
  GpufftGroupResult *st;
  gint n;

  g_mutex_lock (&plan->lock);
  /* (the scheduler finishes every slot at the latest at its stall
   * deadline) */
  if (wait && !gpufft_context_in_worker ())
    while (plan->n_busy > 0)
      if (!gpufft_plan_wait (plan)) {
        g_mutex_unlock (&plan->lock);
        g_set_error (error, GPUFFT_ERROR, GPUFFT_ERROR_CANCELLED,
            "the wait for the plan's batches was cancelled");
        return -1;
      }
  got = plan->stash;
  g_queue_init (&plan->stash);
  n = plan->n_stashed;
  plan->n_stashed = 0;
  if (plan->error)
    err = g_error_copy (plan->error);
  g_mutex_unlock (&plan->lock);

  while ((st = g_queue_pop_head (&got)) != NULL) {
    if (func)
      func (st, user_data);
    g_free (st);
  }
  if (err) {
    g_propagate_error (error, err);
    return -1;
  }
  return n;
}

guint
gpufft_plan_in_flight (GpufftPlan * plan)
{
  return plan->ops->in_flight (plan);
}

guint
gpufft_plan_device_in_flight (GpufftPlan * plan)
{
  guint n;

  g_mutex_lock (&plan->lock);
  n = plan->n_busy + plan->n_stashed;
  g_mutex_unlock (&plan->lock);
  return n;
}

void
gpufft_plan_get_timings (GpufftPlan * plan, GpufftTimings * timings)
{
  plan->ops->get_timings (plan, timings);
}

void
gpufft_plan_device_get_timings (GpufftPlan * plan, GpufftTimings * timings)
{
  g_mutex_lock (&plan->lock);
  *timings = plan->timings;
  g_mutex_unlock (&plan->lock);
}
