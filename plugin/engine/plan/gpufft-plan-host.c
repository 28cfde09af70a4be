/* The host plan: a plan's analysis in C on the CPU (see
 * gpufft-plan-host.h for its contract, gpufft.h for the definitions and
 * shaders/reduce.comp for the device's arithmetic it follows).
 *
 * Per batch (the worker thread), frame after frame and output channel
 * after output channel: the samples converted (load.glsl's rules), mixed
 * down or not, windowed, transformed (gpufft-host-fft.h: four
 * frame-channels at a time, in order), turned into scaled power and added
 * into the open group's sums (MEAN), its dB sums (MEAN_DB) or its maximum
 * (PEAK_HOLD); a closed group's result then follows reduce.comp: mean, bin gains,
 * peaks (on the float linear power), bands, level, dB (gpufft-host-db.h).
 * A slot of F32 samples none of which is NaN or infinite (checked once per
 * slot), each channel analysed alone, is read where it lies by the FFT's
 * first pass, which converts and windows as load_frame does; the FFT
 * gives each bin's |X_k|^2 too, so that the pairs are written only where
 * complex output or the phase wants them. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "gpufft-plan-host.h"
#include "gpufft-host-db.h"
#include "gpufft-host-fft.h"
#include "gpufft-error.h"
#include "gpufft-result-copy.h"
#include "gpufft-simd.h"

#define N_SLOTS GPUFFT_HOST_PLAN_SLOTS
#define LANES GPUFFT_HOST_FFT_LANES

/* ---- the plan ----------------------------------------------------------- */

typedef struct
{
  guint8 *data;                 /* interleaved: [span][channels] samples;
                                 * planar: [channels][span] */
  gsize cap;                    /* bytes allocated */
  gsize span;                   /* samples per channel */
  GpufftGroup *groups;          /* [max_groups] */
  guint n_groups;
  gfloat db_floor;
} HostSlot;

typedef struct
{
  gfloat v;
  guint k;
} PeakCand;

struct _GpufftHostPlan
{
  GpufftPlanConfig cfg;         /* (arrays NULL: copied below) */
  guint n, m, nb, out_ch, bps, max_frames, max_groups;
  guint n_peaks, peak_lo, peak_hi, n_bands, frame_values, frame_row;
  gboolean has_level;
  gsize frame_bytes;            /* one instant of every channel */

  gdouble *win;                 /* [n] */
  gdouble *fac;                 /* [nb] |X_k|^2 -> scaled power */
  gdouble *gain;                /* [nb] (1 without gains) */
  gdouble *level_w;             /* [nb] or NULL */
  guint *band_first, *band_bins, *band_off;     /* [n_bands] */
  gdouble *band_w;              /* the bands' weights, band after band */
  GpufftHostFft *fft;

  /* the submitter's */
  HostSlot slots[N_SLOTS];
  guint next;                   /* slot of the next submission */
  gboolean open;                /* the last batch left a group open */

  /* the worker's */
  gdouble *x;                   /* [LANES][n]: frames, windowed */
  gdouble *xk;                  /* pairs wanted (complex output, phase):
                                 * [LANES][nb] pairs, their X_k; else NULL */
  gdouble *xp;                  /* [LANES][nb] their |X_k|^2 */
  gboolean x_ok[LANES];         /* no NaN or infinite sample in frame */
  gboolean frames_in_place;     /* F32 frames of one channel each, no NaN
                                 * or infinite sample in the slot being
                                 * computed: frames read where they lie,
                                 * unchecked */
  guint x_first, x_n;           /* the slot's units (frame * out_ch + ch)
                                 * in x and xk */
  guint slot_units;             /* units of the slot being computed */
  gdouble *pw;                  /* [nb] scaled power of the frame */
  gdouble *lin;                 /* [nb] the group's gained linear power */
  gdouble *row;                 /* [nb] a row's values, then their dB */
  gdouble *mix;                 /* downmix: [n] one channel's samples */
  gdouble *acc;                 /* [out_ch][nb] sums, dB sums or maxima */
  gdouble *psum;                /* phase_mean: [out_ch][nb] phase sums */
  guint *used;                  /* [out_ch] frames averaged */
  gboolean w_open;              /* a group is open */
  guint group_frames;           /* its frames so far */
  guint64 next_index;           /* group_index of the next closed group */
  gfloat *rows;                 /* frames_out: the open group's frame rows */
  gsize rows_len, rows_cap;     /* floats */
  gboolean rows_lost;           /* rows that could not be allocated: none */
  PeakCand *top;                /* [n_peaks] */
  /* the result handed out */
  gfloat *r_power, *r_cplx, *r_phase, *r_bands, *r_level;
  guint *r_counts;
  GpufftPeak *r_peaks;

  GThread *thread;
  GMutex lock;
  GCond cond;
  /* --- under lock --- */
  guint head;                   /* oldest busy slot */
  guint n_busy;                 /* slots queued or being computed */
  guint n_waiting;              /* threads waiting on cond: a change
                                 * wakes them only where there are some
                                 * (each wake is a system call) */
  gboolean quit;                /* free: the worker stops once idle */
  gboolean doomed;              /* freed on the worker: it frees the plan */
  GpufftResultFunc func;
  gpointer func_data;
  GDestroyNotify tag_free;      /* tags that are not delivered */
  GQueue stash;                 /* GpufftGroupResult (gpufft_result_copy) */
  guint n_stashed;              /* batches whose results are stashed */
};

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

/* ---- one frame (worker) ------------------------------------------------- */

/* Sample bits of an F64 as the device rounds them to float (load.glsl's
 * f64_to_f32: to nearest even; NaN and infinities kept; results below the
 * smallest normal float to a signed zero). */
static gfloat
f64_to_f32 (guint64 v)
{
  guint32 hi = (guint32) (v >> 32), lo = (guint32) v;
  guint32 sign = hi & 0x80000000u, e = (hi >> 20) & 0x7ffu, mant, rest, bits;
  gint fe = (gint) e - 1023 + 127;
  gfloat f;

  if (e == 0x7ffu)
    bits = sign | 0x7f800000u | ((((hi & 0xfffffu) | lo) != 0) ? 0x400000u :
        0u);
  else if (e == 0 || fe <= 0)
    bits = sign;
  else if (fe >= 255)
    bits = sign | 0x7f800000u;
  else {
    mant = ((hi & 0xfffffu) << 3) | (lo >> 29);
    rest = lo & 0x1fffffffu;
    bits = sign | ((guint32) fe << 23) | mant;
    if (rest > 0x10000000u || (rest == 0x10000000u && (mant & 1u)))
      bits += 1u;
  }
  memcpy (&f, &bits, 4);
  return f;
}

/* (a sample converted into out[i]: windowed where win is given, + 0.0 so
 * that a sample of -0 is windowed as +0, as a sum from zero gives it) */
#define STORE(i, v) (out[i] = win ? ((v) + 0.0) * win[i] : (v))

/* (the slot's bytes read as the bits of floats) */
#if defined(__GNUC__)
typedef guint32 __attribute__((may_alias)) guint32_alias;
#else
typedef guint32 guint32_alias;
#endif

/* TRUE where none of the n F32 samples (their bits) is NaN or infinite */
static gboolean GPUFFT_AVX2_CLONES
all_finite_f32 (const guint32_alias * restrict bits, gsize n)
{
  guint32 bad = 0;
  gsize i;

  for (i = 0; i < n; i++)
    bad |= (bits[i] & 0x7f800000u) == 0x7f800000u;
  return bad == 0;
}

/* n samples from p (step bytes apart), converted as the device converts
 * them, into out, times win where win is not NULL; FALSE where one of them
 * is NaN or infinite. */
static gboolean
convert_samples (GpufftFormat format, const guint8 * p, gsize step, guint n,
    const gdouble * restrict win, gdouble * restrict out)
{
  guint32 bad = 0;              /* a float's exponent bits all set: NaN or
                                 * infinite */
  guint i;

  switch (format) {
    case GPUFFT_FORMAT_S16:
      for (i = 0; i < n; i++, p += step) {
        gint16 v;

        memcpy (&v, p, 2);
        STORE (i, v * (1.0 / 32768.0));
      }
      break;
    case GPUFFT_FORMAT_S24:
      for (i = 0; i < n; i++, p += step) {
        gint32 v = (gint32) ((guint32) p[0] << 8 | (guint32) p[1] << 16 |
            (guint32) p[2] << 24) >> 8;

        STORE (i, v * (1.0 / 8388608.0));
      }
      break;
    case GPUFFT_FORMAT_S32:
      for (i = 0; i < n; i++, p += step) {
        gint32 v;

        memcpy (&v, p, 4);
        /* (rounded to float first, as the device converts it) */
        STORE (i, (gdouble) ((gfloat) v * (1.0f / 2147483648.0f)));
      }
      break;
    case GPUFFT_FORMAT_F32:
      for (i = 0; i < n; i++, p += step) {
        guint32 bits;
        gfloat v;

        /* (as it is, denormals too: the device reads the float's bits) */
        memcpy (&bits, p, 4);
        memcpy (&v, &bits, 4);
        bad |= ~bits & 0x7f800000u ? 0u : 1u;
        STORE (i, (gdouble) v);
      }
      break;
    case GPUFFT_FORMAT_F64:
      for (i = 0; i < n; i++, p += step) {
        guint64 bits;
        guint32 fb;
        gfloat v;

        memcpy (&bits, p, 8);
        v = f64_to_f32 (bits);
        memcpy (&fb, &v, 4);
        bad |= ~fb & 0x7f800000u ? 0u : 1u;
        STORE (i, (gdouble) v);
      }
      break;
  }
  return bad == 0;
}

#undef STORE

/* The frame at `start` of output channel ch into x (mixed down where the
 * plan does), windowed; FALSE where a sample it reads is NaN or infinite. */
static gboolean
load_frame (GpufftHostPlan * h, const HostSlot * s, gsize start, guint ch,
    gdouble * x)
{
  const GpufftPlanConfig *c = &h->cfg;
  gboolean mix = c->downmix && c->channels > 1, ok = TRUE;
  guint first = c->downmix ? 0 : ch, last = c->downmix ? c->channels : ch + 1;
  guint i, j;

  if (mix)
    memset (x, 0, h->n * sizeof (gdouble));
  for (i = first; i < last; i++) {
    const guint8 *p;
    gsize step;

    if (c->planar) {
      p = s->data + ((gsize) i * s->span + start) * h->bps;
      step = h->bps;
    } else {
      p = s->data + start * h->frame_bytes + h->bps * (gsize) i;
      step = h->frame_bytes;
    }
    /* (one channel: converted and windowed in one pass) */
    if (!convert_samples (c->format, p, step, h->n, mix ? NULL : h->win,
            mix ? h->mix : x))
      ok = FALSE;
    if (mix)
      for (j = 0; j < h->n; j++)
        x[j] += h->mix[j];
  }
  if (mix) {
    for (j = 0; j < h->n; j++)
      x[j] /= c->channels;
    /* (+ 0.0: a sample of -0 windowed as +0, as a sum from zero gives it) */
    for (j = 0; j < h->n; j++)
      x[j] = (x[j] + 0.0) * h->win[j];
  }
  return ok;
}

/* The |X_k|^2 of unit u of slot s (frame u / out_ch, output channel
 * u % out_ch), and in *pairs its X_k (pairs; NULL where the plan wants
 * none: no complex output or phase); *ok FALSE where a sample of its frame
 * is NaN or infinite. The units are transformed LANES at a time, in
 * order. */
static const gdouble *
unit_spectrum (GpufftHostPlan * h, const HostSlot * s, guint u,
    const gdouble ** pairs, gboolean * ok)
{
  if (u < h->x_first || u >= h->x_first + h->x_n) {
    const GpufftPlanConfig *c = &h->cfg;
    guint i, n = MIN (LANES, h->slot_units - u);

    if (h->frames_in_place) {
      /* (floats without NaN or infinity, each channel alone: read where
       * they lie, converted and windowed as load_frame does) */
      const gfloat *src[LANES];

      for (i = 0; i < n; i++) {
        gsize start = (gsize) ((u + i) / h->out_ch) * c->hop;
        guint ch = (u + i) % h->out_ch;

        src[i] = (const gfloat *) (gconstpointer) (c->planar ?
            s->data + ((gsize) ch * s->span + start) * 4 :
            s->data + start * h->frame_bytes + 4 * (gsize) ch);
        h->x_ok[i] = TRUE;
      }
      gpufft_host_fft_real_f32 (h->fft, src, c->planar ? 1 : c->channels,
          h->win, n, h->xk, h->xp);
    } else {
      for (i = 0; i < n; i++)
        h->x_ok[i] = load_frame (h, s, (gsize) ((u + i) / h->out_ch) *
            c->hop, (u + i) % h->out_ch, h->x + (gsize) i * h->n);
      gpufft_host_fft_real (h->fft, h->x, n, h->xk, h->xp);
    }
    h->x_first = u;
    h->x_n = n;
  }
  *ok = h->x_ok[u - h->x_first];
  *pairs = h->xk ? h->xk + (gsize) (u - h->x_first) * 2 * h->nb : NULL;
  return h->xp + (gsize) (u - h->x_first) * h->nb;
}

static gfloat
out_value (const GpufftHostPlan * h, gdouble v, gdouble offset,
    gdouble floor_db)
{
  v = MIN (v, FLT_MAX);
  return (gfloat) (h->cfg.output_db ? gpufft_host_db (v, offset, floor_db) : v);
}

/* The dB of v's n values (through h->row, which v may be) into dst as
 * floats */
static void
db_floats (GpufftHostPlan * h, const gdouble * v, guint n, gdouble offset,
    gdouble floor_db, gfloat * dst)
{
  guint k;

  gpufft_host_db_row (v, n, offset, floor_db, h->row);
  for (k = 0; k < n; k++)
    dst[k] = (gfloat) h->row[k];
}

/* h->row's n values, each at most FLT_MAX, into dst as floats: in dB
 * where the plan outputs dB */
static void
out_row (GpufftHostPlan * h, guint n, gdouble offset, gdouble floor_db,
    gfloat * dst)
{
  guint k;

  if (h->cfg.output_db)
    db_floats (h, h->row, n, offset, floor_db, dst);
  else
    for (k = 0; k < n; k++)
      dst[k] = (gfloat) h->row[k];
}

/* The frame row of one output channel (frames_out): its gained power or
 * bands, then its level; a frame left out reads as zero power. */
static void
frame_row (GpufftHostPlan * h, gboolean ok, gfloat floor_db, gfloat * dst)
{
  const gdouble *pw = h->pw, *g = h->gain;
  gdouble off = h->cfg.db_offset;
  guint k, b;

  if (h->n_bands == 0) {
    for (k = 0; k < h->nb; k++)
      h->row[k] = MIN (ok ? pw[k] * g[k] : 0.0, FLT_MAX);
    out_row (h, h->nb, off, floor_db, dst);
  } else {
    for (b = 0; b < h->n_bands; b++) {
      const gdouble *w = h->band_w + h->band_off[b];
      guint f = h->band_first[b];
      gdouble v = 0.0;

      for (k = 0; ok && k < h->band_bins[b]; k++)
        v += w[k] * g[f + k] * pw[f + k];
      dst[b] = out_value (h, v, off, floor_db);
    }
  }
  if (h->has_level) {
    gdouble l = 0.0;

    for (k = 0; ok && k < h->nb; k++)
      l += h->level_w[k] * g[k] * pw[k];
    dst[h->frame_values] = out_value (h, l, 0.0, floor_db);
  }
}

/* Room for one frame's rows at the end of h->rows; NULL (and the group's
 * rows dropped) where memory runs out. */
static gfloat *
rows_append (GpufftHostPlan * h)
{
  gsize need = (gsize) h->out_ch * h->frame_row, len;

  if (h->rows_lost)
    return NULL;
  if (!g_size_checked_add (&len, h->rows_len, need))
    len = G_MAXSIZE;
  if (len > h->rows_cap) {
    gsize cap = MAX (len, h->rows_cap * 2), bytes;
    gfloat *p = NULL;

    if (g_size_checked_mul (&bytes, cap, sizeof (gfloat)))
      p = g_try_realloc (h->rows, bytes);
    if (!p) {
      g_debug ("no memory for a group's frame rows: the group comes "
          "without them");
      h->rows_lost = TRUE;
      return NULL;
    }
    h->rows = p;
    h->rows_cap = cap;
  }
  h->rows_len = len;
  return h->rows + len - need;
}

/* Frame i of slot s (the group's last of this batch: `last`) into the open
 * group. */
static void
run_frame (GpufftHostPlan * h, const HostSlot * s, guint i, gboolean last)
{
  const GpufftPlanConfig *c = &h->cfg;
  gboolean want_cplx = last && c->complex_out && !c->phase_mean;
  gfloat *rows = c->frames_out ? rows_append (h) : NULL;
  guint ch, k;

  for (ch = 0; ch < h->out_ch; ch++) {
    gboolean ok;
    const gdouble *x;
    const gdouble *restrict p2 = unit_spectrum (h, s, i * h->out_ch + ch,
        &x, &ok);
    gdouble *acc = h->acc + (gsize) ch * h->nb;

    /* (the group's last frame: its X_k, usable or not, as the device) */
    if (want_cplx) {
      gfloat *dst = h->r_cplx + (gsize) ch * h->nb * 2;

      for (k = 0; k < 2 * h->nb; k++)
        dst[k] = (gfloat) x[k];
    }
    if (ok) {
      if (c->averaging == GPUFFT_AVERAGING_MEAN && !rows) {
        /* (the scaled power added as it is computed: the same sums as
         * through h->pw, no multiply-add being contracted in the engine) */
        const gdouble *restrict fac = h->fac;
        gdouble *restrict a = acc;

        for (k = 0; k < h->nb; k++)
          a[k] += p2[k] * fac[k];
      } else {
        for (k = 0; k < h->nb; k++)
          h->pw[k] = p2[k] * h->fac[k];
        switch (c->averaging) {
          case GPUFFT_AVERAGING_PEAK_HOLD:
            for (k = 0; k < h->nb; k++)
              acc[k] = MAX (acc[k], MIN (h->pw[k], FLT_MAX));
            break;
          case GPUFFT_AVERAGING_MEAN_DB:
            for (k = 0; k < h->nb; k++)
              h->row[k] = MIN (h->pw[k] * h->gain[k], FLT_MAX);
            gpufft_host_db_row (h->row, h->nb, c->db_offset, s->db_floor,
                h->row);
            for (k = 0; k < h->nb; k++)
              acc[k] += h->row[k];
            break;
          default:
            for (k = 0; k < h->nb; k++)
              acc[k] += h->pw[k];
            break;
        }
      }
      if (c->phase_mean) {
        gdouble *ps = h->psum + (gsize) ch * h->nb;

        /* (bins 0 and N/2 are real: 0 or pi) */
        ps[0] += atan2 (0.0, x[0]);
        for (k = 1; k < h->m; k++)
          ps[k] += atan2 (x[2 * k + 1], x[2 * k]);
        ps[h->m] += atan2 (0.0, x[2 * h->m]);
      }
      h->used[ch]++;
    }
    if (rows)
      frame_row (h, ok, s->db_floor, rows + (gsize) ch * h->frame_row);
  }
}

/* ---- a closed group (worker) -------------------------------------------- */

/* (a_v, a_k) comes before (b_v, b_k): louder first, then the lower bin */
static gboolean
before (gfloat a_v, guint a_k, gfloat b_v, guint b_k)
{
  return a_v > b_v || (a_v == b_v && a_k < b_k);
}

/* The n_peaks largest local maxima of p in [peak_lo, peak_hi] into out. */
static void
find_peaks (GpufftHostPlan * h, const gfloat * p, GpufftPeak * out)
{
  guint n = 0, k, j;

  for (k = h->peak_lo; k <= h->peak_hi; k++) {
    gfloat v = p[k];
    gfloat l = k > 0 ? p[k - 1] : -INFINITY;
    gfloat r = k < h->m ? p[k + 1] : -INFINITY;

    if (!(v > l && v >= r))
      continue;
    if (n == h->n_peaks && !before (v, k, h->top[n - 1].v, h->top[n - 1].k))
      continue;
    j = n < h->n_peaks ? n++ : n - 1;
    for (; j > 0 && before (v, k, h->top[j - 1].v, h->top[j - 1].k); j--)
      h->top[j] = h->top[j - 1];
    h->top[j].v = v;
    h->top[j].k = k;
  }
  for (j = 0; j < h->n_peaks; j++) {
    if (j < n) {
      k = h->top[j].k;
      out[j].bin = k;
      out[j].power[0] = k > 0 ? p[k - 1] : 0.0f;
      out[j].power[1] = p[k];
      out[j].power[2] = k < h->m ? p[k + 1] : 0.0f;
    } else {
      out[j].bin = G_MAXUINT;
      out[j].power[0] = out[j].power[1] = out[j].power[2] = 0.0f;
    }
  }
}

/* The result of the closed group's output channel ch. */
static void
finish_channel (GpufftHostPlan * h, guint ch, gfloat floor_db)
{
  const GpufftPlanConfig *c = &h->cfg;
  const gdouble *acc = h->acc + (gsize) ch * h->nb;
  gfloat *power = h->r_power + (gsize) ch * h->nb;
  guint used = h->used[ch], k, b;

  h->r_counts[ch] = used;
  if (c->phase_mean) {
    const gdouble *ps = h->psum + (gsize) ch * h->nb;
    gfloat *dst = h->r_phase + (gsize) ch * h->nb;

    for (k = 0; k < h->nb; k++)
      dst[k] = used > 0 ? (gfloat) (ps[k] / used) : 0.0f;
  }
  if (c->averaging == GPUFFT_AVERAGING_MEAN_DB) {
    for (k = 0; k < h->nb; k++)
      power[k] = used > 0 ? (gfloat) (acc[k] / used) : floor_db;
    return;
  }
  for (k = 0; k < h->nb; k++) {
    gdouble v = c->averaging == GPUFFT_AVERAGING_PEAK_HOLD ? acc[k] :
        used > 0 ? acc[k] / used : 0.0;

    h->lin[k] = MIN (v * h->gain[k], FLT_MAX);
    power[k] = (gfloat) h->lin[k];
  }
  if (h->n_peaks > 0)
    find_peaks (h, power, h->r_peaks + (gsize) ch * h->n_peaks);
  for (b = 0; b < h->n_bands; b++) {
    const gdouble *w = h->band_w + h->band_off[b];
    guint f = h->band_first[b];
    gdouble v = 0.0;

    for (k = 0; k < h->band_bins[b]; k++)
      v += w[k] * h->lin[f + k];
    h->r_bands[(gsize) ch * h->n_bands + b] = out_value (h, v, c->db_offset,
        floor_db);
  }
  if (h->has_level) {
    gdouble l = 0.0;

    for (k = 0; k < h->nb; k++)
      l += h->level_w[k] * h->lin[k];
    h->r_level[ch] = out_value (h, l, 0.0, floor_db);
  }
  if (c->output_db)
    db_floats (h, h->lin, h->nb, c->db_offset, floor_db, power);
}

/* Hands the closed group's result on: to func, or (func NULL) into
 * `local`. FALSE once the plan is doomed (freed by the result function):
 * nothing more is computed or delivered. */
static gboolean
finish_group (GpufftHostPlan * h, const HostSlot * s, const GpufftGroup * grp,
    GpufftResultFunc func, gpointer func_data, GQueue * local)
{
  const GpufftPlanConfig *c = &h->cfg;
  GpufftGroupResult r;
  gboolean doomed;
  guint ch;

  for (ch = 0; ch < h->out_ch; ch++)
    finish_channel (h, ch, s->db_floor);
  memset (&r, 0, sizeof (r));
  r.group_index = h->next_index++;
  r.n_frames = h->group_frames;
  r.channels = h->out_ch;
  r.n_bins = h->nb;
  r.channel_frames = h->r_counts;
  r.power = h->r_power;
  r.complex_data = h->r_cplx;
  r.phase = h->r_phase;
  if (h->n_peaks > 0) {
    r.peaks = h->r_peaks;
    r.n_peaks = h->n_peaks;
  }
  r.tag = grp->tag;
  if (h->n_bands > 0) {
    r.bands = h->r_bands;
    r.n_bands = h->n_bands;
  }
  r.level = h->r_level;
  if (c->frames_out && !h->rows_lost) {
    r.frames = h->rows;
    r.frame_values = h->frame_values;
    r.frame_stride = h->frame_row;
  }

  if (func)
    func (&r, func_data);
  else
    g_queue_push_tail (local, gpufft_result_copy (&r));
  /* (only a result function, on this thread, dooms the plan) */
  g_mutex_lock (&h->lock);
  doomed = h->doomed;
  g_mutex_unlock (&h->lock);
  return !doomed;
}

/* A group starts: its sums, counts, complex row and frame rows zeroed. */
static void
start_group (GpufftHostPlan * h)
{
  gsize row = (gsize) h->out_ch * h->nb;

  memset (h->acc, 0, row * sizeof (gdouble));
  if (h->psum)
    memset (h->psum, 0, row * sizeof (gdouble));
  if (h->r_cplx)
    memset (h->r_cplx, 0, 2 * row * sizeof (gfloat));
  memset (h->used, 0, h->out_ch * sizeof (guint));
  h->group_frames = 0;
  h->rows_len = 0;
  h->rows_lost = FALSE;
}

/* Computes slot s and delivers its closed groups. */
static void
run_slot (GpufftHostPlan * h, const HostSlot * s)
{
  GpufftResultFunc func;
  gpointer func_data;
  GQueue local = G_QUEUE_INIT;
  gboolean alive = TRUE;
  guint g, f, frame = 0;

  g_mutex_lock (&h->lock);
  func = h->func;
  func_data = h->func_data;
  g_mutex_unlock (&h->lock);

  h->slot_units = 0;
  h->x_n = 0;
  /* (F32 frames of one channel each: a slot of finite floats, the rule,
   * is checked once, and its frames read where they lie, unit_spectrum;
   * any other slot's frames are checked one by one, load_frame) */
  h->frames_in_place = h->cfg.format == GPUFFT_FORMAT_F32 && (!h->cfg.downmix
      || h->cfg.channels == 1) && all_finite_f32 ((const guint32_alias *)
      (gconstpointer) s->data, s->span * h->cfg.channels);
  for (g = 0; g < s->n_groups; g++)
    h->slot_units += s->groups[g].n_frames * h->out_ch;
  for (g = 0; alive && g < s->n_groups; g++) {
    const GpufftGroup *grp = &s->groups[g];

    if (!h->w_open)
      start_group (h);
    for (f = 0; f < grp->n_frames; f++, frame++)
      run_frame (h, s, frame, f + 1 == grp->n_frames);
    h->group_frames += grp->n_frames;
    h->w_open = !grp->close;
    if (grp->close)
      alive = finish_group (h, s, grp, func, func_data, &local);
  }
  /* (freed by the result function: the rest is never delivered) */
  if (!alive)
    drop_tags (h, s, g);
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
