/* gpufftspectrogram: audio in, a spectrogram video out, rendered on a
 * Vulkan device (see gstgpufftspectrogram.c for the element's contract).
 *
 * Files
 *   gstgpufftspectrogram.c          the element: properties, pads, caps
 *                                   negotiation, events, buffer pool, QoS
 *   gstgpufftspectrogram-stream.c   the streaming path: audio FIFO ->
 *                                   engine plan (one group of frames per
 *                                   waterfall column) -> columns ->
 *                                   renderer (gpufft-render.h) -> frames
 *   gstgpufftspectrogram-layout.c   geometry, pixel maps, the overlay
 *   gstgpufftspectrogram-font.c     the built-in bitmap font
 *   gstgpufftspectrogram-colormap.c the colour maps
 *
 * Locking: `settings` and `info` are under the object lock (properties);
 * everything else belongs to the streaming thread (the sink pad's chain
 * and serialized events), except `qos_*` (object lock, the src pad's QOS
 * events). No bus message is posted with a lock held. */
#ifndef __GST_GPU_FFT_SPECTROGRAM_H__
#define __GST_GPU_FFT_SPECTROGRAM_H__

#include <gst/gst.h>
#include <gst/audio/audio.h>
#include <gst/video/video.h>

#include "gpufft.h"
#include "gpufft-render.h"
#include "gstgpufftspectrogram-layout.h"
#include "gstgpufftenums.h"

G_BEGIN_DECLS

#define GST_TYPE_GPU_FFT_SPECTROGRAM (gst_gpu_fft_spectrogram_get_type ())
G_DECLARE_FINAL_TYPE (GstGpuFftSpectrogram, gst_gpu_fft_spectrogram,
    GST, GPU_FFT_SPECTROGRAM, GstElement)

GST_ELEMENT_REGISTER_DECLARE (gpufftspectrogram);

#define GST_TYPE_GPU_FFT_SPECTROGRAM_MODE (gst_gpu_fft_spectrogram_mode_get_type ())
GType gst_gpu_fft_spectrogram_mode_get_type (void);
#define GST_TYPE_GPU_FFT_SPECTROGRAM_AXIS (gst_gpu_fft_spectrogram_axis_get_type ())
GType gst_gpu_fft_spectrogram_axis_get_type (void);
#define GST_TYPE_GPU_FFT_SPECTROGRAM_COLORMAP (gst_gpu_fft_spectrogram_colormap_get_type ())
GType gst_gpu_fft_spectrogram_colormap_get_type (void);

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

  /* --- streaming thread --- */
  GstAudioInfo ainfo;
  gboolean have_audio;
  GstVideoInfo vinfo;
  gboolean have_video;
  GstSegment segment;
  GstBufferPool *pool;
  GpufftContext *ctx;

  guint cookie;                 /* settings_cookie the state below is for */
  GstGpuFftSpectrogramSettings cur;     /* copy of the settings in use */
  GpufftPlan *plan;
  GpufftRender *render;
  GstGpuFftBands *bands;        /* octave axis */
  GstGpuFftLayout layout;
  GstGpuFftFreqAxis axis;
  guint fft_size, frame_hop, column_hop, n_values, max_columns;

  /* audio: the padded stream (fft_size / 2 zeros, then the samples) from
   * padded sample fifo_origin on, interleaved raw samples */
  GByteArray *fifo;
  guint64 fifo_origin;
  guint64 next_frame;           /* next analysis frame to submit */
  guint64 next_column;          /* column of the open (or next) group */
  guint open_frames;            /* frames of that column submitted so far */
  guint64 samples;              /* real samples received since the origin */
  GstClockTime t0;              /* PTS of real sample 0 */
  guint64 video_frame;          /* next video frame to push */
  GArray *columns;              /* closed columns not yet rendered (floats,
                                 * n_values each) */
  guint64 columns_rendered;     /* columns handed to the renderer */
  gboolean eos_pending;
};

/* gstgpufftspectrogram-stream.c */
void gst_gpu_fft_spectrogram_stream_reset (GstGpuFftSpectrogram * self);
void gst_gpu_fft_spectrogram_stream_free (GstGpuFftSpectrogram * self);
GstFlowReturn gst_gpu_fft_spectrogram_stream_push (GstGpuFftSpectrogram *
    self, GstBuffer * buf);
GstFlowReturn gst_gpu_fft_spectrogram_stream_eos (GstGpuFftSpectrogram *
    self);

/* gstgpufftspectrogram.c: silence for a GAP event (dur from ts) */
GstFlowReturn gst_gpu_fft_spectrogram_push_silence (GstGpuFftSpectrogram *
    self, GstClockTime ts, GstClockTime dur);
/* gstgpufftspectrogram.c: a writable output buffer of the negotiated size */
GstFlowReturn gst_gpu_fft_spectrogram_alloc (GstGpuFftSpectrogram * self,
    GstBuffer ** out);
gboolean gst_gpu_fft_spectrogram_negotiate (GstGpuFftSpectrogram * self);

G_END_DECLS

#endif /* __GST_GPU_FFT_SPECTROGRAM_H__ */
