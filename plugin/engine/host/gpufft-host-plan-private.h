/* The host plan's insides (gpufft-host-plan.h), shared by its two files:
 *
 *   gpufft-host-plan.c      the plan: its tables, slots, worker thread,
 *                           submissions and results (the lock, the stash,
 *                           the result function)
 *   gpufft-host-analysis.c  the analysis of one slot on the worker
 *                           thread: its frames converted, windowed,
 *                           transformed and summed into the open group,
 *                           each closed group's result
 *
 * Threading: as gpufft-host-plan.h; the fields marked "the worker's" are
 * touched on the worker thread only, those "under lock" with h->lock
 * held. No Vulkan. */
#ifndef __GPUFFT_HOST_PLAN_PRIVATE_H__
#define __GPUFFT_HOST_PLAN_PRIVATE_H__

#include "gpufft-host-plan.h"
#include "gpufft-host-fft.h"

G_BEGIN_DECLS

#define N_SLOTS GPUFFT_HOST_PLAN_SLOTS
#define LANES GPUFFT_HOST_FFT_LANES

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
  guint slot_group, slot_frame; /* its next group, and that group's first
                                 * frame */
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

/* gpufft-host-analysis.c (worker thread): a slot's analysis, group
 * after group. begin() readies slot s (its groups from the first); each
 * next() computes its frames into the open group up to the next group
 * it closes and returns TRUE with that group's result in r (the worker's
 * buffers: valid until the next call), FALSE once the slot's groups are
 * all computed. */
void gpufft_host_analysis_begin (GpufftHostPlan * h, const HostSlot * s);
gboolean gpufft_host_analysis_next (GpufftHostPlan * h, const HostSlot * s,
    GpufftGroupResult * r);

G_END_DECLS

#endif /* __GPUFFT_HOST_PLAN_PRIVATE_H__ */
