/* gst-gpufft engine: the spectrogram picture on the device (the
 * gpufftspectrogram element's renderer). No GStreamer type.
 *
 * What it keeps on the device
 *   ring      the waterfall: wf_w columns of wf_h values (dB), one per
 *             plot row, row 0 at the bottom; a new column overwrites the
 *             oldest (nothing scrolls in memory: the compose pass reads
 *             the ring from its head)
 *   spec      the spectrum panel: sp_w current values and sp_w peak-hold
 *             values (dB)
 *   map       how a column of n_values values (the plan's bins or bands)
 *             becomes the wf_h rows and the sp_w panel positions
 *             (GpufftRenderMap)
 * and in host-visible memory the caller writes between runs, in the
 * output's byte order (gpufft_render_pack()):
 *   lut       256 words, the colour map from the lowest level up
 *   overlay   width x height words around the plots (axes, labels,
 *             colour bar, title): 0 is transparent (the background), any
 *             other word is the pixel; read only outside the waterfall and
 *             the spectrum panel
 *   columns   the next run's new columns, [max_columns][n_values] floats
 *
 * One run (gpufft_render_run) records: the ring and spec reset (after
 * gpufft_render_reset), the column pass (shaders/render.comp MODE 0) when
 * there are new columns, the compose pass (MODE 1) when asked; submits one
 * command buffer and waits for its fence, then the frame is readable at
 * gpufft_render_pixels(). The wait has a deadline and can be given up:
 *   - the stall deadline (gpufft.h, "Deadlines"): GPUFFT_STALL_S plus 4x
 *     the render's expected time (the slowest recent run, measured from
 *     its submission: it includes the device's queue ahead of it; before
 *     the first, 1 us a pixel on CPU devices, 10 ns on GPUs), at most
 *     the fence timeout (the first run, whose kernels the driver may
 *     compile only then, the fence timeout); past it the device counts as
 *     hung
 *     (GPUFFT_ERROR_DEVICE_LOST, "the GPU stopped responding") and its
 *     context is marked lost;
 *   - the run's cancel flag (GpufftRenderRun.cancel): set non-zero (a flush
 *     or a stop of the streaming thread), the wait ends within
 *     GPUFFT_CANCEL_POLL_MS with GPUFFT_ERROR_CANCELLED; the run's work
 *     stays in flight (its columns are lost to the picture), the next run
 *     first waits for it, and gpufft_render_free() abandons it.
 *
 * What crosses the bus per run: up, the new columns (n_columns x n_values
 * floats) and whatever the caller changed in the overlay and LUT (they
 * live in host-visible memory the device reads in place); down, the
 * finished frame, width x height x 4 bytes: copied by the device straight
 * into the caller's memory (a GpufftRenderTarget, imported) or, where the
 * device cannot import host memory, left in host-visible memory for the
 * caller to copy.
 *
 * Threading: one GpufftRender is used by one thread at a time (its owner);
 * different renders on one context may run on different threads. Pointers
 * returned by the accessors stay valid until gpufft_render_free().
 *
 * Abandoned work: gpufft_render_free() never waits for the device. A run
 * still in flight (a cancelled wait) is left to a thread of the engine's
 * (gpufft_wait_released() waits for it), which frees the render once its
 * fence signals or its stall deadline passed (then the device counts as
 * hung). The target memory of such a run may still be written by the
 * device until then: a caller that cancels a run keeps the target's
 * memory (the output buffer) until the render is freed, or forgets it
 * (gpufft_render_forget_targets() waits like a run does). */
#ifndef __GPUFFT_RENDER_H__
#define __GPUFFT_RENDER_H__

#include "gpufft.h"

G_BEGIN_DECLS

#define GPUFFT_RENDER_MAX_SIZE 8192     /* largest width or height */
#define GPUFFT_RENDER_FLOOR_DB (-1000.0f)       /* the ring before any column */

typedef struct
{
  guint first;                  /* value index */
  guint count;                  /* > 0: the largest of count values from
                                 * first; 0: linear between first and
                                 * first + 1 at frac */
  gfloat frac;
} GpufftRenderMap;

typedef struct
{
  guint width, height;          /* frame, 1..GPUFFT_RENDER_MAX_SIZE */
  /* waterfall rectangle (wf_w = columns shown; 0 x 0: none) and spectrum
   * panel rectangle (0 x 0: none), inside the frame */
  guint wf_x, wf_y, wf_w, wf_h;
  guint sp_x, sp_y, sp_w, sp_h;
  guint n_values;               /* values per column, >= 1 */
  guint max_columns;            /* most new columns per run, >= 1 */
  const GpufftRenderMap *map;   /* [wf_h + sp_w], read by _new() only;
                                 * first (+ count) < n_values */
  /* bit offsets of r, g, b and alpha (or the unused byte) in the packed
   * output word: RGBA in memory is 0, 8, 16, 24 (little-endian words) */
  guint shift[4];
  /* colours of the background, of the spectrum panel above its bars and
   * of the peak-hold trace, as 0xRRGGBB */
  guint32 background, bar_background, peak;
} GpufftRenderConfig;

typedef struct _GpufftRender GpufftRender;

GpufftRender *gpufft_render_new (GpufftContext * ctx,
    const GpufftRenderConfig * config, GError ** error);
/* Frees the render at once, or, with a run in flight, abandons it to a
 * thread of the engine's (see "Abandoned work" above). */
void gpufft_render_free (GpufftRender * render);

/* r, g, b as one output word (alpha or the unused byte 255; never 0) */
guint32 gpufft_render_pack (GpufftRender * render, guint8 r, guint8 g,
    guint8 b);
guint32 *gpufft_render_lut (GpufftRender * render);     /* [256] */
guint32 *gpufft_render_overlay (GpufftRender * render); /* [width*height] */
gfloat *gpufft_render_columns (GpufftRender * render);  /* [max_columns]
                                                         * [n_values] */

/* The next run first sets every ring value and the spectrum panel's
 * values and peaks to GPUFFT_RENDER_FLOOR_DB. New renders start so. */
void gpufft_render_reset (GpufftRender * render);

typedef struct
{
  guint n_columns;              /* new columns in gpufft_render_columns(),
                                 * 0..max_columns, oldest first */
  gfloat min_db, max_db;        /* the colour map's range, min < max */
  gfloat peak_fall_db;          /* the peak-hold trace falls by this much
                                 * per run with new columns */
  gboolean compose;             /* FALSE: only take the columns in (a
                                 * frame that will not be shown) */
  /* optional: a flag of the caller's (read atomically) that gives the
   * wait up (GPUFFT_ERROR_CANCELLED) within GPUFFT_CANCEL_POLL_MS of it
   * becoming non-zero */
  const gint *cancel;
} GpufftRenderRun;

/* Where the caller wants the composed frame: dst (size bytes, rows
 * stride bytes apart, at least width * 4) in host memory that stays valid
 * and is not otherwise written until the run returns. `key` names the
 * memory: the renderer keeps the import of dst (VK_EXT_external_memory_
 * host, pinned pages) for the next runs into the same memory, and a known
 * address with a new key is taken as new memory (the old import is
 * dropped). */
typedef struct
{
  gpointer data;
  gsize size, stride;
  guint64 key;
} GpufftRenderTarget;

/* target may be NULL. With a target the device copies the frame into it
 * (*written TRUE) when it is a GPU that can import host memory (on CPU
 * devices, such as lavapipe, that copy is a CPU copy too: not done; the
 * environment variable GPUFFT_RENDER_IMPORT = 1 or 0 overrides), and the
 * driver took this memory; otherwise *written is FALSE and the frame is at
 * gpufft_render_pixels() for the caller to copy. */
gboolean gpufft_render_run (GpufftRender * render, const GpufftRenderRun * run,
    const GpufftRenderTarget * target, gboolean * written, GError ** error);

/* After a run whose wait was cancelled (GPUFFT_ERROR_CANCELLED): the
 * device may still write that run's target. release (data) is called once
 * it no longer can: when the run is seen done (the next run's wait, or the
 * engine's thread that frees an abandoned render); never when its device
 * was declared hung with the run in flight (the memory stays referenced,
 * a deliberate leak). Without a run in flight, at once. Owner's thread. */
void gpufft_render_hold (GpufftRender * render, GDestroyNotify release,
    gpointer data);

/* Forgets every kept import (call when the memory they name may be freed:
 * a new buffer pool). */
void gpufft_render_forget_targets (GpufftRender * render);

/* The last composed frame: height rows of width packed words, tightly
 * packed. Valid until the next run. */
const guint32 *gpufft_render_pixels (GpufftRender * render);

G_END_DECLS

#endif /* __GPUFFT_RENDER_H__ */
