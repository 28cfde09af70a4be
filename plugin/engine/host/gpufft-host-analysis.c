/* The host plan's analysis of one slot (the worker thread): a plan's
 * analysis in C on the CPU (see gpufft-host-plan.h for its contract,
 * shaders/reduce.comp for the device's arithmetic it follows).
 *
 * Per batch (the worker thread), frame after frame and output channel
 * after output channel: the samples converted (load.glsl's rules), mixed
 * down or not, windowed, transformed (gpufft-host-fft.h: four
 * frame-channels at a time, in order), turned into scaled power and added
 * into the open group's sums (MEAN), its dB sums (MEAN_DB) or its maximum
 * (PEAK_HOLD); a closed group's result then follows reduce.comp: mean, bin
 * gains, peaks (on the float linear power), bands, level, dB
 * (gpufft-host-db.h).
 * A slot of F32 samples none of which is NaN or infinite (checked once per
 * slot), each channel analysed alone, is read where it lies by the FFT's
 * first pass, which converts and windows as load_frame does; the FFT
 * gives each bin's |X_k|^2 too, so that the pairs are written only where
 * complex output or the phase wants them. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "gpufft-host-plan-private.h"
#include "gpufft-host-db.h"
#include "gpufft-simd.h"

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

/* The closed group's result, in the worker's buffers, into r. */
static void
close_group (GpufftHostPlan * h, const HostSlot * s, const GpufftGroup * grp,
    GpufftGroupResult * r)
{
  const GpufftPlanConfig *c = &h->cfg;
  guint ch;

  for (ch = 0; ch < h->out_ch; ch++)
    finish_channel (h, ch, s->db_floor);
  memset (r, 0, sizeof (*r));
  r->group_index = h->next_index++;
  r->n_frames = h->group_frames;
  r->channels = h->out_ch;
  r->n_bins = h->nb;
  r->channel_frames = h->r_counts;
  r->power = h->r_power;
  r->complex_data = h->r_cplx;
  r->phase = h->r_phase;
  if (h->n_peaks > 0) {
    r->peaks = h->r_peaks;
    r->n_peaks = h->n_peaks;
  }
  r->tag = grp->tag;
  if (h->n_bands > 0) {
    r->bands = h->r_bands;
    r->n_bands = h->n_bands;
  }
  r->level = h->r_level;
  if (c->frames_out && !h->rows_lost) {
    r->frames = h->rows;
    r->frame_values = h->frame_values;
    r->frame_stride = h->frame_row;
  }
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

void
gpufft_host_analysis_begin (GpufftHostPlan * h, const HostSlot * s)
{
  guint g;

  h->slot_units = 0;
  h->slot_group = 0;
  h->slot_frame = 0;
  h->x_n = 0;
  /* (F32 frames of one channel each: a slot of finite floats, the rule,
   * is checked once, and its frames read where they lie, unit_spectrum;
   * any other slot's frames are checked one by one, load_frame) */
  h->frames_in_place = h->cfg.format == GPUFFT_FORMAT_F32 && (!h->cfg.downmix
      || h->cfg.channels == 1) && all_finite_f32 ((const guint32_alias *)
      (gconstpointer) s->data, s->span * h->cfg.channels);
  for (g = 0; g < s->n_groups; g++)
    h->slot_units += s->groups[g].n_frames * h->out_ch;
}

gboolean
gpufft_host_analysis_next (GpufftHostPlan * h, const HostSlot * s,
    GpufftGroupResult * r)
{
  guint f;

  while (h->slot_group < s->n_groups) {
    const GpufftGroup *grp = &s->groups[h->slot_group++];

    if (!h->w_open)
      start_group (h);
    for (f = 0; f < grp->n_frames; f++)
      run_frame (h, s, h->slot_frame + f, f + 1 == grp->n_frames);
    h->slot_frame += grp->n_frames;
    h->group_frames += grp->n_frames;
    h->w_open = !grp->close;
    if (grp->close) {
      close_group (h, s, grp, r);
      return TRUE;
    }
  }
  return FALSE;
}
