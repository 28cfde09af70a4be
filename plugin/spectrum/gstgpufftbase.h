/* GstGpuFftBase: the abstract analyser that gpufftspectrum and
 * gpuspectrum derive from (a GstAudioFilter that passes audio through and
 * posts element messages with spectra computed by the gpufft engine; see
 * gstgpufftbase.c for what it does).
 *
 * The subclass API. The instance holds nothing a subclass reads: its data
 * is private to the base's own files (gstgpufftbase-private.h). A
 * subclass installs its own properties and maps them onto the settings
 * (gst_gpu_fft_base_get_settings):
 *   - in its instance init it sets the defaults of the settings (the
 *     base's init sets only device_index);
 *   - its set_property changes the settings under the object lock, then
 *     calls gst_gpu_fft_base_settings_changed() with the settings as they
 *     were, still under the lock;
 *   - it may call gst_gpu_fft_base_request_reset() (any thread) to restart
 *     the averaging state at the next batch, and read the device's context
 *     and the counters under the object lock (start and stop set them
 *     there);
 *   - its class init may set `spectrum_compat` in the base class. */
#ifndef __GST_GPU_FFT_BASE_H__
#define __GST_GPU_FFT_BASE_H__

#include <gst/gst.h>
#include <gst/audio/audio.h>
#include <gst/audio/gstaudiofilter.h>

#include "gpufft.h"
#include "gstgpufftanalysis.h"
#include "gstgpufftenums.h"

G_BEGIN_DECLS

typedef struct _GstGpuFftBase GstGpuFftBase;
typedef struct _GstGpuFftBaseClass GstGpuFftBaseClass;
typedef struct _GstGpuFftBasePrivate GstGpuFftBasePrivate;

struct _GstGpuFftBaseClass
{
  GstAudioFilterClass parent_class;
  /* TRUE: spectrum's messages (its fields only), no dominant-frequency
   * message, and a geometry change drops what was measured with the old
   * one (the partial interval, and intervals not yet posted), so that the
   * very next message has the new geometry. */
  gboolean spectrum_compat;
};

#define GST_TYPE_GPU_FFT_BASE (gst_gpu_fft_base_get_type ())
#define GST_GPU_FFT_BASE(obj) (G_TYPE_CHECK_INSTANCE_CAST ((obj), \
        GST_TYPE_GPU_FFT_BASE, GstGpuFftBase))
#define GST_GPU_FFT_BASE_GET_CLASS(obj) (G_TYPE_INSTANCE_GET_CLASS ((obj), \
        GST_TYPE_GPU_FFT_BASE, GstGpuFftBaseClass))
GType gst_gpu_fft_base_get_type (void);

/* The debug category "gpufftspectrum" of the base and its subclasses. */
GST_DEBUG_CATEGORY_EXTERN (gst_gpu_fft_base_debug);

/* The properties, as set by the application (under the object lock). */
typedef struct
{
  guint fft_size;
  guint hop_size;               /* 0: fft_size / 2 */
  GstGpuFftWindow window;
  GstGpuFftScaling scaling;
  guint64 interval;             /* ns */
  gint threshold;               /* dB */
  gboolean multi_channel;
  guint peaks;
  gdouble min_frequency;
  gdouble max_frequency;        /* 0: Nyquist */
  gboolean post_messages;
  gboolean message_magnitude;
  gboolean message_phase;
  gboolean message_dominant;
  GstGpuFftMessageFormat message_format;
  guint batch_size;             /* 0: automatic */
  gint device_index;            /* -1: automatic */
  gdouble level_offset;         /* dB added to every level (gpuspectrum:
                                 * -20 log10 (nfft)) */
  gboolean hop_within_interval; /* gpuspectrum: the hop is at most the
                                 * interval, so that every interval but
                                 * the first has a frame */
  guint reset_gen;              /* gpuspectrum: bumped by a change of bands,
                                 * interval or multi-channel (what spectrum
                                 * resets on) */
  /* gpufftspectrum's analyser modes (its min/max_frequency are the ones
   * above) */
  GstGpuFftAnalysis analysis;
} GstGpuFftBaseSettings;

struct _GstGpuFftBase
{
  GstAudioFilter parent;

  /*< private >*/
  GstGpuFftBasePrivate *priv;   /* the base's own files only
                                 * (gstgpufftbase-private.h) */
};

/* gstgpufftbase-settings.c: after a property changed self->settings
 * (object lock held; old: before): a change of what the plan or the
 * framing is made from restarts the analysis at the next buffer
 * (geometry_gen). */
void gst_gpu_fft_base_settings_changed (GstGpuFftBase * self,
    const GstGpuFftBaseSettings * old);
/* gstgpufftbase-settings.c: the settings the subclass's properties map
 * onto (owned by the instance; read and written under the object lock, or
 * in the subclass's instance init). */
GstGpuFftBaseSettings *gst_gpu_fft_base_get_settings (GstGpuFftBase * self);
/* gstgpufftbase-settings.c: the next batch restarts the averaging state
 * (the `reset` action; any thread, atomic). */
void gst_gpu_fft_base_request_reset (GstGpuFftBase * self);

/* gstgpufftbase.c, object lock held: the device's context (NULL while it
 * is being opened, without one and on the host alone; valid while the
 * lock is held) ... */
GpufftContext *gst_gpu_fft_base_peek_context (GstGpuFftBase * self);
/* ... and the counters since the start: intervals dropped (live input
 * behind), intervals analysed by host plans, messages the poster
 * dropped. */
void gst_gpu_fft_base_get_counts (GstGpuFftBase * self,
    guint64 * dropped_intervals, guint64 * host_intervals,
    guint64 * dropped_messages);

G_END_DECLS

#endif /* __GST_GPU_FFT_BASE_H__ */
