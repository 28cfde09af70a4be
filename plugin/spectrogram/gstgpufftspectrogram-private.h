/* gpufftspectrogram: what the element's files share (gstgpufftspectrogram.c
 * and its -state, -fifo and -stream files): the instance and the functions
 * they call in one another. Not for any other file.
 *
 * Files
 *   gstgpufftspectrogram.c          the element: properties, pads, caps
 *                                   negotiation, buffer pool, events, QoS
 *   gstgpufftspectrogram-state.c    the plan, the renderer and the layout
 *                                   made from the settings, beside the
 *                                   stream; reset and release
 *   gstgpufftspectrogram-fifo.c     the audio FIFO and its pads
 *   gstgpufftspectrogram-stream.c   the streaming path: audio FIFO ->
 *                                   engine plan (one group of frames per
 *                                   waterfall column) -> columns ->
 *                                   renderer (gpufft-render.h) -> frames
 *                                   in buffers of the element's pool
 *   gstgpufftlayout.c               geometry, pixel maps, the overlay
 *   gstgpufftfont.c                 the built-in bitmap font
 *   gstgpufftcolormap.c             the colour maps
 *
 * Locking: `settings` and `info` are under the object lock (properties);
 * everything else belongs to the streaming thread (the sink pad's chain
 * and serialized events), except `qos_*` (object lock, the src pad's QOS
 * events). No bus message is posted with a lock held. */
#ifndef __GST_GPU_FFT_SPECTROGRAM_PRIVATE_H__
#define __GST_GPU_FFT_SPECTROGRAM_PRIVATE_H__

#include <gst/gst.h>
#include <gst/audio/audio.h>
#include <gst/video/video.h>

#include "gpufft.h"
#include "gpufft-render.h"
#include "gstgpufftspectrogram.h"
#include "gstgpufftlayout.h"
#include "gstgpufftenums.h"
#include "gstgpufftdevice.h"
#include "gstgpufftplanjob.h"

G_BEGIN_DECLS GST_DEBUG_CATEGORY_EXTERN (gst_gpu_fft_spectrogram_debug);

/* The audio FIFO: bytes, sized in gsize (gstgpufftspectrogram-fifo.c). */
typedef struct
{
  guint8 *data;
  gsize len, size;
} GstGpuFftSpectrogramFifo;

typedef struct
{
  GstGpuFftSpectrogramMode mode;
  GstGpuFftAxis axis;
  gdouble min_frequency, max_frequency; /* 0: automatic */
  guint octave_fraction;
  gdouble min_db, max_db;
  GstGpuFftColormap colormap;
  guint fft_size;               /* 0: from the plot's height */
  GstGpuFftWindow window;
  gdouble overlap;              /* of the analysis frames, 0..0.95 */
  gdouble time_span;            /* seconds across the waterfall */
  gboolean axes;
  gchar *title;
  gdouble peak_fall;            /* dB per second */
  gint device_index;
} GstGpuFftSpectrogramSettings;

/* What the streaming thread resolved (the `layout` property). */
typedef struct
{
  gboolean valid;
  GstGpuFftLayout layout;
  GstGpuFftFreqAxis axis;
  guint fft_size, frame_hop, column_hop, n_values;
  gdouble rate;
} GstGpuFftSpectrogramInfo;

struct _GstGpuFftSpectrogram
{
  GstElement parent;
  GstPad *sinkpad, *srcpad;

  /* --- object lock --- */
  GstGpuFftSpectrogramSettings settings;
  guint settings_cookie;        /* bumped by every property change */
  GstGpuFftSpectrogramInfo info;
  GstClockTime qos_earliest;
  gdouble qos_proportion;
  guint64 frames_rendered, frames_dropped;
  guint64 frames_written;       /* by the device into the output buffer */
  guint64 fifo_peak;            /* most bytes the audio FIFO held */
  guint64 columns_peak;         /* most columns held between buffers */

  /* set (atomically, any thread) from FLUSH_START to FLUSH_STOP and while
   * stopping: a streaming thread waiting for the plan lets go */
  gint plan_wait_cancel;

  /* --- streaming thread --- */
  GstAudioInfo ainfo;
  gboolean have_audio;
  GstVideoInfo vinfo;
  gboolean have_video;
  GstSegment segment;
  GstBufferPool *pool;
  GstGpuFftDevice *device;      /* being opened or open (gstgpufftdevice.h) */

  guint cookie;                 /* settings_cookie the state below is for */
  GstGpuFftSpectrogramSettings cur;     /* copy of the settings in use */
  GpufftPlan *plan;             /* NULL while the job makes it */
  GpufftRender *render;         /* likewise */
  GstGpuFftPlanJob *job;        /* making plan and renderer */
  GPtrArray *given_up;          /* jobs given up, until they are done */
  gint is_live;                 /* upstream: -1 not asked yet */
  guint refusals;               /* frames refused in a row by downstream
                                 * asking for new caps */
  gboolean gapped;              /* frames went out as GAP events since the
                                 * last one drawn */
  GstGpuFftBands *bands;        /* octave axis */
  GstGpuFftLayout layout;
  GstGpuFftFreqAxis axis;
  guint fft_size, frame_hop, column_hop, n_values, max_columns;

  /* audio: the padded stream (fft_size / 2 mirrored samples, then the
   * samples) from padded sample fifo_origin on, interleaved raw samples:
   * what the next analysis frame needs and the last fft_size / 2 + 1
   * samples, and one incoming buffer (while a live stream's plan is being
   * made: PLAN_WAIT_SECONDS, PLAN_WAIT_BYTES at most) */
  GstGpuFftSpectrogramFifo *fifo;
  guint64 fifo_origin;
  /* the start's pad (fft_size / 2 samples before the first) is not
   * written yet: it mirrors the first samples once they came */
  gboolean pad_pending;
  guint64 next_frame;           /* next analysis frame to submit */
  guint64 next_column;          /* column of the open (or next) group */
  guint open_frames;            /* frames of that column submitted so far */
  guint64 samples;              /* real samples received since the origin */
  GstClockTime t0;              /* PTS of real sample 0 */
  guint64 video_frame;          /* next video frame to push */
  GArray *columns;              /* closed columns not yet rendered (floats,
                                 * n_values each): the newest waterfall
                                 * width (or one) of them, and those of one
                                 * plan batch */
  guint64 columns_rendered;     /* columns handed to the renderer */
  gboolean eos_pending;
};

/* gstgpufftspectrogram-state.c (streaming thread; start, stop, finalize) */
/* Drops the picture, the plan and the audio: the next sample starts anew. */
void gst_gpu_fft_spectrogram_state_reset (GstGpuFftSpectrogram * self);
/* ... and frees the FIFO and the columns. */
void gst_gpu_fft_spectrogram_state_free (GstGpuFftSpectrogram * self);
/* Waits for the plans given up to be made and freed, then at most
 * timeout_ms for the engine's releases: finalize. FALSE when the time ran
 * out. */
gboolean gst_gpu_fft_spectrogram_state_wait_released (GstGpuFftSpectrogram
    * self, guint timeout_ms);
/* Makes sure plan and renderer match the settings, or are being made for
 * them. A rebuild restarts the analysis. FALSE after posting the error. */
gboolean gst_gpu_fft_spectrogram_state_ensure (GstGpuFftSpectrogram * self);
/* TRUE once plan and renderer are ready (wait: blocks until then, or a
 * flush or stop). FALSE with *failed set after posting the error when
 * making them failed. */
gboolean gst_gpu_fft_spectrogram_state_ready (GstGpuFftSpectrogram * self,
    gboolean wait, gboolean * failed);
/* The analysis starts afresh with the next sample (FIFO, pad and columns
 * dropped); the timing goes on from there. */
void gst_gpu_fft_spectrogram_state_restart_analysis (GstGpuFftSpectrogram *
    self);
/* The output's frame rate (frames a second). */
gdouble gst_gpu_fft_spectrogram_state_fps (GstGpuFftSpectrogram * self);

/* gstgpufftspectrogram-fifo.c (streaming thread) */
/* padded sample index -> FIFO byte offset */
guint8 *gst_gpu_fft_spectrogram_fifo_at (GstGpuFftSpectrogram * self,
    guint64 padded);
/* Drops the FIFO's first n samples (n at most what it holds). */
void gst_gpu_fft_spectrogram_fifo_drop (GstGpuFftSpectrogram * self, gsize n);
/* Appends n zero samples, the n samples of buf (interleaving planar
 * ones), the start's pad, the end's pad. FALSE after posting the error. */
gboolean gst_gpu_fft_spectrogram_fifo_append_zeros (GstGpuFftSpectrogram *
    self, guint64 n);
gboolean gst_gpu_fft_spectrogram_fifo_append (GstGpuFftSpectrogram * self,
    GstBuffer * buf, guint64 n);
void gst_gpu_fft_spectrogram_fifo_mirror_start (GstGpuFftSpectrogram * self);
gboolean gst_gpu_fft_spectrogram_fifo_append_mirror_end (GstGpuFftSpectrogram
    * self);

/* gstgpufftspectrogram-stream.c (streaming thread) */
/* Takes the samples of buf (the caller keeps its reference) and pushes
 * every video frame they complete, in buffers of self->pool. */
GstFlowReturn gst_gpu_fft_spectrogram_stream_push (GstGpuFftSpectrogram *
    self, GstBuffer * buf);
/* EOS: pushes the last, shorter frame. */
GstFlowReturn gst_gpu_fft_spectrogram_stream_eos (GstGpuFftSpectrogram * self);

G_END_DECLS

#endif /* __GST_GPU_FFT_SPECTROGRAM_PRIVATE_H__ */
