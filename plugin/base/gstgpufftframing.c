/* GstGpuFftBase: sample, frame and interval bookkeeping (see the header). */
#include "gstgpufftframing.h"

#define NS_PER_S G_GUINT64_CONSTANT (1000000000)

/* round (a * rate / 1e9), exact without 128-bit arithmetic:
 * a = q*1e9 + r  ->  q*rate + round (r*rate / 1e9), r*rate < 2^63. */
static guint64
scale_to_samples_round (guint64 a, guint rate)
{
  guint64 q = a / NS_PER_S, r = a % NS_PER_S;

  return q * rate + (r * rate + NS_PER_S / 2) / NS_PER_S;
}

guint64
gst_gpu_fft_framing_grid_boundary (const GstGpuFftGrid * grid, guint64 k)
{
  guint64 t;

  /* k * interval_ns is the interval's start in ns: saturate instead of
   * wrapping for absurd values. */
  if (grid->interval_ns != 0 && k > G_MAXUINT64 / grid->interval_ns)
    return G_MAXUINT64;
  t = k * grid->interval_ns;
  return grid->origin + scale_to_samples_round (t, grid->rate);
}

guint64
gst_gpu_fft_framing_grid_index_of (const GstGpuFftGrid * grid, guint64 sample)
{
  guint64 rel, q, r, t, k;

  if (sample <= grid->origin)
    return 0;
  rel = sample - grid->origin;
  /* t = floor (rel * 1e9 / rate) ns, then k = t / interval: within one or
   * two of the answer because of the rounding of the boundaries. */
  q = rel / grid->rate;
  r = rel % grid->rate;
  t = q * NS_PER_S + r * NS_PER_S / grid->rate;
  k = t / grid->interval_ns;
  while (gst_gpu_fft_framing_grid_boundary (grid, k + 1) <= sample)
    k++;
  while (k > 0 && gst_gpu_fft_framing_grid_boundary (grid, k) > sample)
    k--;
  return k;
}

void
gst_gpu_fft_framing_init (GstGpuFftFraming * f, guint fft_size, guint hop,
    guint rate, guint64 interval_ns)
{
  f->fft_size = fft_size;
  f->hop = MAX (hop, 1);
  f->grid.origin = 0;
  f->grid.interval_ns = MAX (interval_ns, 1);
  f->grid.rate = MAX (rate, 1);
  f->next_start = 0;
  f->cur = 0;
  f->cur_frames = 0;
}

guint64
gst_gpu_fft_framing_span (const GstGpuFftFraming * f, guint n_frames)
{
  if (n_frames == 0)
    return 0;
  return (guint64) (n_frames - 1) * f->hop + f->fft_size;
}

/* Frames starting at s (then every hop) that end before lim. */
static guint64
frames_before (guint64 s, guint fft_size, guint hop, guint64 lim)
{
  if (s + fft_size > lim)
    return 0;
  return (lim - fft_size - s) / hop + 1;
}

gboolean
gst_gpu_fft_framing_next_batch (GstGpuFftFraming * f, guint64 avail_end,
    gboolean flush, gboolean closed_only, guint max_frames,
    guint max_groups, GstGpuFftBatchPlan * plan)
{
  guint64 s = f->next_start;
  guint64 k = f->cur;
  guint kf = f->cur_frames;
  const guint n = f->fft_size, hop = f->hop;

  max_frames = MAX (max_frames, 1);
  max_groups = MAX (max_groups, 1);
  plan->span_start = s;
  plan->n_frames = 0;
  plan->n_groups = 0;
  plan->submit = FALSE;
  plan->closes = FALSE;
  plan->flushed = FALSE;

  for (;;) {
    guint64 kend = gst_gpu_fft_framing_grid_boundary (&f->grid, k + 1);
    guint64 lim = MIN (kend, avail_end);
    gboolean complete = avail_end >= kend || flush;
    guint64 count = frames_before (s, n, hop, lim);
    guint take = (guint) MIN (count, (guint64) (max_frames - plan->n_frames));
    gboolean closes = complete && take == count && kf + take > 0;

    if (!complete && closed_only && plan->n_frames + count < max_frames) {
      /* the open interval's frames wait for it to close */
      plan->submit = plan->closes;
      break;
    }
    if (take > 0 || closes) {
      GstGpuFftBatchGroup *g;

      if (plan->n_groups == max_groups) {
        /* all groups so far are closed: hand them over first */
        plan->submit = TRUE;
        break;
      }
      g = &plan->groups[plan->n_groups++];
      g->interval = k;
      g->start = gst_gpu_fft_framing_grid_boundary (&f->grid, k);
      g->end = avail_end >= kend ? kend : avail_end;
      g->n_frames = take;
      g->close = closes;
      plan->n_frames += take;
      plan->closes |= closes;
      s += (guint64) take *hop;
      kf += take;
    }

    if (!complete) {
      /* the open interval: its frames wait unless the batch is full or
       * carries a closed group anyway */
      plan->submit = plan->closes || plan->n_frames == max_frames;
      break;
    }
    if (take < count) {
      /* batch full before the interval's last frame */
      plan->submit = TRUE;
      break;
    }

    /* interval k is complete and closed (or empty) */
    if (flush && avail_end <= kend) {
      plan->flushed = TRUE;
      plan->submit = plan->closes;
      k++;
      kf = 0;
      break;
    }
    {
      /* next interval that can hold a frame, but never past the one that
       * holds sample avail_end (so that b(cur) <= avail_end) */
      guint64 k_frame = gst_gpu_fft_framing_grid_index_of (&f->grid, s + n - 1);
      guint64 k_avail = gst_gpu_fft_framing_grid_index_of (&f->grid, avail_end);

      k = MAX (k + 1, MIN (k_frame, k_avail));
      kf = 0;
    }
    if (plan->n_frames == max_frames) {
      plan->submit = TRUE;
      break;
    }
  }

  if (plan->submit) {
    f->next_start = s;
    f->cur = k;
    f->cur_frames = kf;
  } else {
    /* nothing handed out: only empty intervals were passed */
    plan->n_frames = 0;
    plan->n_groups = 0;
    if (k != f->cur) {
      f->cur = k;
      f->cur_frames = 0;
    }
  }
  return plan->submit;
}
