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

/* floor (a * e / 1e9) for e < 1e9 */
static guint64
scale_steps (guint64 a, guint64 e)
{
  return (a / NS_PER_S) * e + (a % NS_PER_S) * e / NS_PER_S;
}

guint64
gst_gpu_fft_framing_grid_boundary (const GstGpuFftGrid * grid, guint64 k)
{
  guint64 t;

  if (grid->spectrum_steps) {
    if (k > 1 && k > (G_MAXUINT64 - grid->origin) / (grid->steps_f + 1))
      return G_MAXUINT64;
    if (k == 0)
      return grid->origin;
    if (k == 1)
      return grid->origin + grid->steps_f + grid->first_extra;
    return grid->origin + k * grid->steps_f + grid->first_extra +
        scale_steps (k - 2, grid->steps_e);
  }

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
  if (grid->spectrum_steps) {
    /* b(k) lies in [k F, k (F + 1)]: a binary search between rel / (F + 1)
     * and rel / F (+ 1) */
    guint64 lo = rel / (grid->steps_f + 1), hi = rel / grid->steps_f + 1;

    while (lo < hi) {
      guint64 mid = lo + (hi - lo + 1) / 2;

      if (gst_gpu_fft_framing_grid_boundary (grid, mid) <= sample)
        lo = mid;
      else
        hi = mid - 1;
    }
    return lo;
  }
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
  f->grid.spectrum_steps = FALSE;
  f->grid.steps_f = f->grid.steps_e = 0;
  f->grid.first_extra = 0;
  f->next_start = 0;
  f->cur = 0;
  f->cur_frames = 0;
  f->restart_frames = FALSE;
}

void
gst_gpu_fft_framing_set_spectrum_steps (GstGpuFftFraming * f)
{
  guint64 ns = f->grid.interval_ns;
  guint64 r = f->grid.rate;

  /* F = floor (ns * rate / 1e9), e = (ns * rate) mod 1e9, as 128-bit
   * products would give them */
  f->grid.steps_f = (ns / NS_PER_S) * r + (ns % NS_PER_S) * r / NS_PER_S;
  f->grid.steps_e = ((ns % NS_PER_S) * r) % NS_PER_S;
  if (f->grid.steps_f == 0)
    f->grid.steps_f = 1;
  f->grid.spectrum_steps = TRUE;
  f->restart_frames = TRUE;
}

static gint64 interval_first_frame (const GstGpuFftFraming * f, guint64 k);

guint64
gst_gpu_fft_framing_cut (GstGpuFftFraming * f, guint64 at, guint64 first_len)
{
  gint64 s;

  f->grid.origin = at;
  f->grid.first_extra = first_len > f->grid.steps_f ?
      MIN (first_len - f->grid.steps_f, 1) : 0;
  f->cur = 0;
  f->cur_frames = 0;
  s = interval_first_frame (f, 0);
  f->next_start = (guint64) MAX (s, 0);
  return f->next_start;
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
frames_before (gint64 s, guint fft_size, guint hop, guint64 lim)
{
  if (s + (gint64) fft_size > (gint64) lim)
    return 0;
  return (guint64) ((gint64) lim - (gint64) fft_size - s) / hop + 1;
}

/* (restarting frames) where interval k's first frame starts: with it, or,
 * in an interval shorter than a frame, fft_size samples before its end
 * (negative: before the stream's first sample) */
static gint64
interval_first_frame (const GstGpuFftFraming * f, guint64 k)
{
  guint64 b0 = gst_gpu_fft_framing_grid_boundary (&f->grid, k);
  guint64 b1 = gst_gpu_fft_framing_grid_boundary (&f->grid, k + 1);

  if (b1 - b0 >= f->fft_size)
    return (gint64) b0;
  return (gint64) b1 - (gint64) f->fft_size;
}

gboolean
gst_gpu_fft_framing_next_batch (GstGpuFftFraming * f, guint64 avail_end,
    gboolean flush, gboolean closed_only, guint max_frames,
    guint max_groups, GstGpuFftBatchPlan * plan)
{
  gint64 s = (gint64) f->next_start, s0;
  guint64 k = f->cur;
  guint kf = f->cur_frames;
  const guint n = f->fft_size, hop = f->hop;

  max_frames = MAX (max_frames, 1);
  max_groups = MAX (max_groups, 1);
  plan->n_frames = 0;
  plan->n_groups = 0;
  plan->submit = FALSE;
  plan->closes = FALSE;
  plan->flushed = FALSE;
  plan->flushed_empty = FALSE;

  /* (restarting frames: where the interval's first frame starts) */
  if (f->restart_frames && kf == 0)
    s = interval_first_frame (f, k);
  s0 = s;

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
      s += (gint64) take *hop;
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
      plan->flushed_empty = kf == 0
          && avail_end > gst_gpu_fft_framing_grid_boundary (&f->grid, k);
      plan->submit = plan->closes;
      k++;
      kf = 0;
      break;
    }
    if (f->restart_frames) {
      /* the next interval's frames start anew: in this batch only where
       * they continue its grid */
      gint64 next;

      k++;
      kf = 0;
      next = interval_first_frame (f, k);
      if (next != s) {
        s = next;
        if (plan->n_frames > 0) {
          plan->submit = TRUE;
          break;
        }
        s0 = s;
      }
    } else {
      /* next interval that can hold a frame, but never past the one that
       * holds sample avail_end (so that b(cur) <= avail_end) */
      guint64 k_frame = gst_gpu_fft_framing_grid_index_of (&f->grid,
          (guint64) s + n - 1);
      guint64 k_avail = gst_gpu_fft_framing_grid_index_of (&f->grid, avail_end);

      k = MAX (k + 1, MIN (k_frame, k_avail));
      kf = 0;
    }
    if (plan->n_frames == max_frames) {
      plan->submit = TRUE;
      break;
    }
  }

  plan->span_start = (guint64) MAX (s0, 0);
  plan->lead = s0 < 0 ? (guint) - s0 : 0;
  if (plan->submit) {
    f->next_start = (guint64) MAX (s, 0);
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
