/* The host plan: its tables, slots, worker thread, submissions and
 * results (see gpufft-host-plan.h for its contract; the analysis the
 * worker runs on each slot is gpufft-host-analysis.c). No Vulkan. */
#include <string.h>

#include "gpufft-host-plan-private.h"
#include "gpufft-error.h"
#include "gpufft-result-copy.h"

/* ---- tables ------------------------------------------------------------- */

/* g_try_malloc0 of n x size bytes; NULL (and *ok FALSE) where it overflows
 * or fails (nothing allocated once *ok is FALSE). */
static gpointer
try_alloc (gsize n, gsize size, gboolean * ok)
{
  gsize bytes;
  gpointer p;

  if (!*ok)
    return NULL;
  if (!g_size_checked_mul (&bytes, n, size)) {
    *ok = FALSE;
    return NULL;
  }
  p = g_try_malloc0 (MAX (bytes, 1));
  if (!p)
    *ok = FALSE;
  return p;
}

static void
slot_free (HostSlot * s)
{
  g_free (s->data);
  g_free (s->groups);
  memset (s, 0, sizeof (*s));
}

/* Passes the tags of slot s's closed groups from group `from` on, which
 * are never delivered, to tag_free. */
static void
drop_tags (GpufftHostPlan * h, const HostSlot * s, guint from)
{
  guint g;

  for (g = from; h->tag_free && g < s->n_groups; g++)
    if (s->groups[g].close && s->groups[g].tag)
      h->tag_free (s->groups[g].tag);
}

/* Frees the stashed results, their tags to tag_free. */
static void
drop_stash (GpufftHostPlan * h)
{
  GpufftGroupResult *r;

  while ((r = g_queue_pop_head (&h->stash)) != NULL) {
    if (r->tag && h->tag_free)
      h->tag_free (r->tag);
    g_free (r);
  }
  h->n_stashed = 0;
}

/* Frees everything but the thread (the caller's: joined or unreferenced). */
static void
destroy (GpufftHostPlan * h)
{
  guint i;

  for (i = 0; i < N_SLOTS; i++)
    slot_free (&h->slots[i]);
  gpufft_host_fft_free (h->fft);
  g_free (h->win);
  g_free (h->fac);
  g_free (h->gain);
  g_free (h->level_w);
  g_free (h->band_first);
  g_free (h->band_bins);
  g_free (h->band_off);
  g_free (h->band_w);
  g_free (h->x);
  g_free (h->xk);
  g_free (h->xp);
  g_free (h->pw);
  g_free (h->lin);
  g_free (h->row);
  g_free (h->mix);
  g_free (h->acc);
  g_free (h->psum);
  g_free (h->used);
  g_free (h->rows);
  g_free (h->top);
  g_free (h->r_power);
  g_free (h->r_cplx);
  g_free (h->r_phase);
  g_free (h->r_bands);
  g_free (h->r_level);
  g_free (h->r_counts);
  g_free (h->r_peaks);
  drop_stash (h);
  g_mutex_clear (&h->lock);
  g_cond_clear (&h->cond);
  g_free (h);
}

/* The constants and the worker's buffers; FALSE where memory runs out. */
static gboolean
make_tables (GpufftHostPlan * h, const GpufftPlanConfig * c)
{
  gboolean ok = TRUE;
  gsize row;
  gdouble sum = 0.0, sum2 = 0.0;
  guint i, b, n_w = 0;

  if (!g_size_checked_mul (&row, h->out_ch, h->nb))
    return FALSE;
  h->win = try_alloc (h->n, sizeof (gdouble), &ok);
  h->fac = try_alloc (h->nb, sizeof (gdouble), &ok);
  h->gain = try_alloc (h->nb, sizeof (gdouble), &ok);
  if (h->has_level)
    h->level_w = try_alloc (h->nb, sizeof (gdouble), &ok);
  for (b = 0; b < h->n_bands; b++)
    n_w += c->band_bins[b];     /* (each at most nb: no overflow) */
  if (h->n_bands > 0) {
    h->band_first = try_alloc (h->n_bands, sizeof (guint), &ok);
    h->band_bins = try_alloc (h->n_bands, sizeof (guint), &ok);
    h->band_off = try_alloc (h->n_bands, sizeof (guint), &ok);
    h->band_w = try_alloc (n_w, sizeof (gdouble), &ok);
  }
  h->x = try_alloc ((gsize) LANES * h->n, sizeof (gdouble), &ok);
  if (c->complex_out || c->phase_mean)
    h->xk = try_alloc ((gsize) LANES * h->nb, 2 * sizeof (gdouble), &ok);
  h->xp = try_alloc ((gsize) LANES * h->nb, sizeof (gdouble), &ok);
  h->pw = try_alloc (h->nb, sizeof (gdouble), &ok);
  h->lin = try_alloc (h->nb, sizeof (gdouble), &ok);
  h->row = try_alloc (h->nb, sizeof (gdouble), &ok);
  if (c->downmix && c->channels > 1)
    h->mix = try_alloc (h->n, sizeof (gdouble), &ok);
  h->acc = try_alloc (row, sizeof (gdouble), &ok);
  if (c->phase_mean)
    h->psum = try_alloc (row, sizeof (gdouble), &ok);
  h->used = try_alloc (h->out_ch, sizeof (guint), &ok);
  h->top = try_alloc (MAX (h->n_peaks, 1), sizeof (PeakCand), &ok);
  h->r_power = try_alloc (row, sizeof (gfloat), &ok);
  if (c->complex_out && !c->phase_mean)
    h->r_cplx = try_alloc (row, 2 * sizeof (gfloat), &ok);
  if (c->phase_mean)
    h->r_phase = try_alloc (row, sizeof (gfloat), &ok);
  if (h->n_bands > 0)
    h->r_bands = try_alloc ((gsize) h->out_ch * h->n_bands, sizeof (gfloat),
        &ok);
  if (h->has_level)
    h->r_level = try_alloc (h->out_ch, sizeof (gfloat), &ok);
  h->r_counts = try_alloc (h->out_ch, sizeof (guint), &ok);
  if (h->n_peaks > 0)
    h->r_peaks = try_alloc ((gsize) h->out_ch * h->n_peaks,
        sizeof (GpufftPeak), &ok);
  /* (frames_out: one frame's rows to start with, so that a group without
   * frames has rows too) */
  if (c->frames_out) {
    h->rows_cap = (gsize) h->out_ch * h->frame_row;
    h->rows = try_alloc (h->rows_cap, sizeof (gfloat), &ok);
  }
  for (i = 0; ok && i < N_SLOTS; i++)
    h->slots[i].groups = try_alloc (h->max_groups, sizeof (GpufftGroup), &ok);
  if (ok)
    h->fft = gpufft_host_fft_new (h->n);
  if (!ok || !h->fft)
    return FALSE;

  gpufft_window_fill (c->window, h->n, h->win);
  for (i = 0; i < h->n; i++) {
    sum += h->win[i];
    sum2 += h->win[i] * h->win[i];
  }
  /* scipy's one-sided scalings: doubled but at 0 and N/2; RAW as it is */
  for (i = 0; i < h->nb; i++) {
    gdouble f = 1.0;

    if (c->scaling == GPUFFT_SCALING_SPECTRUM)
      f = 1.0 / (sum * sum);
    else if (c->scaling == GPUFFT_SCALING_DENSITY)
      f = 1.0 / (c->rate * sum2);
    if (c->scaling != GPUFFT_SCALING_RAW && i != 0 && i != h->m)
      f *= 2.0;
    h->fac[i] = f;
    h->gain[i] = c->bin_gain ? c->bin_gain[i] : 1.0;
    if (h->has_level)
      h->level_w[i] = c->level_weights[i];
  }
  for (b = 0, n_w = 0; b < h->n_bands; b++) {
    h->band_first[b] = c->band_first[b];
    h->band_bins[b] = c->band_bins[b];
    h->band_off[b] = n_w;
    for (i = 0; i < c->band_bins[b]; i++)
      h->band_w[n_w + i] = c->band_weights[n_w + i];
    n_w += c->band_bins[b];
  }
  return TRUE;
}

static gpointer worker (gpointer data);

GpufftHostPlan *
gpufft_host_plan_new (const GpufftPlanConfig * config, guint max_frames,
    guint max_groups, GError ** error)
{
  GpufftHostPlan *h;
  GError *err = NULL;

  g_return_val_if_fail (config != NULL && max_frames > 0 && max_groups > 0,
      NULL);
  if (config->averaging == GPUFFT_AVERAGING_EXPONENTIAL
      || config->averaging == GPUFFT_AVERAGING_MAX_HOLD) {
    g_set_error (error, GPUFFT_ERROR, GPUFFT_ERROR_UNSUPPORTED,
        "a host plan does not average %s: its state carries across groups "
        "(use a device plan)",
        config->averaging == GPUFFT_AVERAGING_EXPONENTIAL ?
        "exponentially" : "with a max hold");
    return NULL;
  }

  h = g_new0 (GpufftHostPlan, 1);
  g_mutex_init (&h->lock);
  g_cond_init (&h->cond);
  g_queue_init (&h->stash);
  h->cfg = *config;
  h->cfg.bin_gain = h->cfg.level_weights = NULL;
  h->cfg.band_first = h->cfg.band_bins = NULL;
  h->cfg.band_weights = NULL;
  h->n = config->fft_size;
  h->m = h->n / 2;
  h->nb = h->m + 1;
  h->out_ch = config->downmix ? 1 : config->channels;
  h->bps = gpufft_format_bytes (config->format);
  h->frame_bytes = (gsize) config->channels * h->bps;
  h->max_frames = max_frames;
  h->max_groups = max_groups;
  h->n_peaks = config->n_peaks;
  h->peak_lo = MIN (config->peak_min_bin, h->m);
  h->peak_hi = config->peak_max_bin == 0 || config->peak_max_bin > h->m ?
      h->m : config->peak_max_bin;
  h->n_bands = config->n_bands;
  h->has_level = config->level_weights != NULL;
  h->frame_values = h->n_bands > 0 ? h->n_bands : h->nb;
  h->frame_row = h->frame_values + (h->has_level ? 1 : 0);

  if (!make_tables (h, config)) {
    g_set_error (error, GPUFFT_ERROR, GPUFFT_ERROR_OUT_OF_MEMORY,
        "no memory for a host plan of %u output channels of %u bins",
        h->out_ch, h->nb);
    destroy (h);
    return NULL;
  }
  h->thread = g_thread_try_new ("gpufft-host", worker, h, &err);
  if (!h->thread) {
    g_set_error (error, GPUFFT_ERROR, GPUFFT_ERROR_FAILED,
        "no thread for a host plan: %s", err->message);
    g_error_free (err);
    destroy (h);
    return NULL;
  }
  return h;
}

/* Waits on h->cond (h->lock held). */
static void
wait_locked (GpufftHostPlan * h)
{
  h->n_waiting++;
  g_cond_wait (&h->cond, &h->lock);
  h->n_waiting--;
}

/* Wakes the threads waiting on h->cond, if any (h->lock held). */
static void
wake_locked (GpufftHostPlan * h)
{
  if (h->n_waiting > 0)
    g_cond_broadcast (&h->cond);
}

void
gpufft_host_plan_free (GpufftHostPlan * h)
{
  if (!h)
    return;
  if (g_thread_self () == h->thread) {
    /* (a result function frees the plan: the worker frees it once this
     * delivery returns) */
    g_mutex_lock (&h->lock);
    h->doomed = TRUE;
    h->func = NULL;
    h->func_data = NULL;
    g_mutex_unlock (&h->lock);
    return;
  }
  g_mutex_lock (&h->lock);
  while (h->n_busy > 0)
    wait_locked (h);
  h->quit = TRUE;
  wake_locked (h);
  g_mutex_unlock (&h->lock);
  g_thread_join (h->thread);
  destroy (h);
}

/* ---- input (submitter) -------------------------------------------------- */

gboolean
gpufft_host_plan_submit (GpufftHostPlan * h, const GpufftBatch * batch,
    gsize span, GError ** error)
{
  /* (as a device plan: a batch that continues or leaves open a group
   * waits) */
  gboolean may_refuse = batch->no_wait && !h->open
      && batch->groups[batch->n_groups - 1].close;
  HostSlot *s;
  gsize bytes, done = 0;
  guint i, c;
  gboolean wake;

  g_mutex_lock (&h->lock);
  while (h->n_busy == N_SLOTS) {
    if (may_refuse) {
      g_mutex_unlock (&h->lock);
      g_set_error (error, GPUFFT_ERROR, GPUFFT_ERROR_BUSY,
          "all %u slots of the host plan are in flight", N_SLOTS);
      return FALSE;
    }
    wait_locked (h);
  }
  g_mutex_unlock (&h->lock);

  /* The slot is free and the submitter's until it is queued. */
  s = &h->slots[h->next];
  if (!g_size_checked_mul (&bytes, span, h->frame_bytes)) {
    g_set_error (error, GPUFFT_ERROR, GPUFFT_ERROR_OUT_OF_MEMORY,
        "a span of %" G_GSIZE_FORMAT " samples does not fit the memory", span);
    return FALSE;
  }
  if (bytes > s->cap) {
    guint8 *p = g_try_realloc (s->data, bytes);

    if (!p) {
      g_set_error (error, GPUFFT_ERROR, GPUFFT_ERROR_OUT_OF_MEMORY,
          "no memory for a batch of %" G_GSIZE_FORMAT " bytes", bytes);
      return FALSE;
    }
    s->data = p;
    s->cap = bytes;
  }
  for (i = 0; i < batch->n_segments && done < span; i++) {
    const GpufftSegment *seg = &batch->segments[i];
    gsize n = MIN (seg->n_samples, span - done);

    if (n == 0)
      continue;
    if (!h->cfg.planar)
      memcpy (s->data + done * h->frame_bytes, seg->data, n * h->frame_bytes);
    else
      for (c = 0; c < h->cfg.channels; c++)
        memcpy (s->data + ((gsize) c * span + done) * h->bps,
            seg->planes[c], n * h->bps);
    done += n;
  }
  s->span = span;
  s->n_groups = batch->n_groups;
  s->db_floor = batch->db_floor;
  memcpy (s->groups, batch->groups, batch->n_groups * sizeof (GpufftGroup));
  h->open = !batch->groups[batch->n_groups - 1].close;
  h->next = (h->next + 1) % N_SLOTS;

  /* (the worker is woken after the lock is let go, so that it does not
   * wake only to wait for the lock) */
  g_mutex_lock (&h->lock);
  h->n_busy++;
  wake = h->n_waiting > 0;
  g_mutex_unlock (&h->lock);
  if (wake)
    g_cond_broadcast (&h->cond);
  return TRUE;
}

/* ---- the worker --------------------------------------------------------- */

/* Hands the closed group's result on: to func, or (func NULL) into
 * `local`. FALSE once the plan is doomed (freed by the result function):
 * nothing more is computed or delivered. */
static gboolean
finish_group (GpufftHostPlan * h, const GpufftGroupResult * r,
    GpufftResultFunc func, gpointer func_data, GQueue * local)
{
  gboolean doomed;

  if (func)
    func (r, func_data);
  else
    g_queue_push_tail (local, gpufft_result_copy (r));
  /* (only a result function, on this thread, dooms the plan) */
  g_mutex_lock (&h->lock);
  doomed = h->doomed;
  g_mutex_unlock (&h->lock);
  return !doomed;
}

/* Computes slot s and delivers its closed groups. */
static void
run_slot (GpufftHostPlan * h, const HostSlot * s)
{
  GpufftResultFunc func;
  gpointer func_data;
  GQueue local = G_QUEUE_INIT;
  GpufftGroupResult r;
  gboolean alive = TRUE;

  g_mutex_lock (&h->lock);
  func = h->func;
  func_data = h->func_data;
  g_mutex_unlock (&h->lock);

  gpufft_host_analysis_begin (h, s);
  while (alive && gpufft_host_analysis_next (h, s, &r))
    alive = finish_group (h, &r, func, func_data, &local);
  /* (freed by the result function: the groups left are never delivered) */
  if (!alive)
    drop_tags (h, s, h->slot_group);
  g_mutex_lock (&h->lock);
  if (!func && alive) {
    GList *l;

    while ((l = g_queue_pop_head_link (&local)) != NULL)
      g_queue_push_tail_link (&h->stash, l);
    h->n_stashed++;
  }
  g_mutex_unlock (&h->lock);
  g_queue_clear_full (&local, g_free);
}

static gpointer
worker (gpointer data)
{
  GpufftHostPlan *h = data;
  gboolean doomed;

  g_mutex_lock (&h->lock);
  for (;;) {
    while (h->n_busy == 0 && !h->quit && !h->doomed)
      wait_locked (h);
    if (h->doomed || h->n_busy == 0)
      break;
    g_mutex_unlock (&h->lock);
    run_slot (h, &h->slots[h->head]);
    g_mutex_lock (&h->lock);
    h->head = (h->head + 1) % N_SLOTS;
    h->n_busy--;
    wake_locked (h);
  }
  doomed = h->doomed;
  g_mutex_unlock (&h->lock);
  if (doomed) {
    guint i;

    /* (freed by a result function: nobody joins this thread; the slots
     * still queued are never computed) */
    for (i = 0; i < h->n_busy; i++)
      drop_tags (h, &h->slots[(h->head + i) % N_SLOTS], 0);
    g_thread_unref (h->thread);
    destroy (h);
  }
  return NULL;
}

/* ---- results (owner) ---------------------------------------------------- */

void
gpufft_host_plan_set_result_func (GpufftHostPlan * h, GpufftResultFunc func,
    gpointer user_data)
{
  g_mutex_lock (&h->lock);
  h->func = func;
  h->func_data = user_data;
  g_mutex_unlock (&h->lock);
}

void
gpufft_host_plan_set_tag_free (GpufftHostPlan * h, GDestroyNotify tag_free)
{
  g_mutex_lock (&h->lock);
  h->tag_free = tag_free;
  g_mutex_unlock (&h->lock);
}

gint
gpufft_host_plan_collect (GpufftHostPlan * h, gboolean wait,
    GpufftResultFunc func, gpointer user_data)
{
  GQueue got;
  GpufftGroupResult *st;
  gint n;

  g_mutex_lock (&h->lock);
  if (wait && g_thread_self () != h->thread)
    while (h->n_busy > 0)
      wait_locked (h);
  got = h->stash;
  g_queue_init (&h->stash);
  n = h->n_stashed;
  h->n_stashed = 0;
  g_mutex_unlock (&h->lock);

  while ((st = g_queue_pop_head (&got)) != NULL) {
    if (func)
      func (st, user_data);
    g_free (st);
  }
  return n;
}

guint
gpufft_host_plan_in_flight (GpufftHostPlan * h)
{
  guint n;

  g_mutex_lock (&h->lock);
  n = h->n_busy + h->n_stashed;
  g_mutex_unlock (&h->lock);
  return n;
}
