/* GstGpuFftBase: the abstract analyser that gpufftspectrum and
 * gpuspectrum derive from (a GstAudioFilter that passes audio through and
 * posts element messages with spectra computed by the gpufft engine; see
 * gstgpufftbase.c for what it does).
 *
 * The subclass API. A subclass installs its own properties and maps them
 * onto `settings`:
 *   - in its instance init it sets the defaults of `settings` (the base's
 *     init sets only device_index);
 *   - its set_property changes `settings` under the object lock, then
 *     calls gst_gpu_fft_base_settings_changed() with the settings as they
 *     were, still under the lock;
 *   - it may set `reset_pending` (atomically, any thread) to restart the
 *     averaging state at the next batch, and read `device` and
 *     `dropped_total` under the object lock (start and stop set them
 *     there);
 *   - its class init may set `spectrum_compat` in the base class.
 * Everything else in the instance belongs to the base's files
 * (gstgpufftbase-private.h): the streaming state to the streaming thread,
 * `error_posted` to any thread (atomic). */
#ifndef __GST_GPU_FFT_BASE_H__
#define __GST_GPU_FFT_BASE_H__

#include <gst/gst.h>
#include <gst/audio/audio.h>
#include <gst/audio/gstaudiofilter.h>

#include "gpufft.h"
#include "gstgpufftanalysis.h"
#include "gstgpufftdevice.h"
#include "gstgpufftenums.h"
#include "gstgpufftframing.h"
#include "gstgpufftposter.h"
#include "gstgpufftstore.h"

G_BEGIN_DECLS

typedef struct _GstGpuFftBase GstGpuFftBase;
typedef struct _GstGpuFftBaseClass GstGpuFftBaseClass;

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

  /* --- settings: GST_OBJECT_LOCK --- */
  GstGpuFftBaseSettings settings;
  guint geometry_gen;           /* bumped by changes that restart the
                                 * analysis at the next buffer */
  guint handler_gen;            /* gpuspectrum: settings.reset_gen as a bus
                                 * handler of the element's own messages
                                 * last changed it */
  gchar *device_name;
  /* the device's allocator once it is open (gstgpufftallocator.h; not
   * gpuspectrum's), and whether an ALLOCATION query was answered without
   * it meanwhile (upstream is asked to query again once it is there) */
  GstAllocator *allocator;
  gboolean allocation_unanswered;

  /* --- state: streaming thread (and start/stop) --- */
  /* being opened or open (gstgpufftdevice.h); NULL until a plan job needs
   * it (at READY->PAUSED with a device-index of 0 or more); written under
   * the object lock */
  GstGpuFftDevice *device;
  GpufftPlan *plan;
  /* the plan being made (gstgpufftplanjob.h); `plan` NULL meanwhile, or
   * the host plan (on_host) */
  struct _GstGpuFftPlanJob *plan_job;
  /* `plan` is a host plan (gpufft_plan_new_host) of plan_job's
   * configuration: it analyses the intervals due while the device's plan
   * is being made, which takes over at the first batch that starts an
   * interval once made (gstgpufftbase-stream.c) */
  gboolean on_host;
  /* the plan's own thread posts its messages (a host plan on the host
   * alone, gst_gpu_fft_base_results_on_host_result): a bus handler on it
   * can hold it, so the streaming thread waits for it only as for the
   * poster, until the element stops or flushes */
  gboolean posts_here;
  /* such plans replaced while a stop or a flush cut the wait for them
   * short: freed at the stop (or finalize), not by the streaming thread,
   * which a bus handler on their thread may be waiting for */
  GSList *retired_plans;
  gboolean host_refused;        /* no host plan for plan_job's configuration */
  /* a light live stream analysed on the host alone (gstgpuffthostbudget.h):
   * no plan job, no device; the host plan (on_host) is made when the first
   * batch is due and never hands over. host_points: what it took from the
   * process's budget. host_only is written under the object lock (the
   * device-name property reads it). */
  gboolean host_only;
  gdouble host_points;
  /* host-only beyond the budget while the process's first device opens
   * (its own opening, self->device): once open, a CPU device's budget
   * keeps it on the host, else it moves (gstgpufftbase-stream.c) */
  gboolean host_pending;
  gboolean group_open;          /* the last batch left an interval open */
  guint64 host_total;           /* intervals analysed by host plans (object
                                 * lock: the stats property) */
  GstGpuFftPoster *poster;      /* posts the messages (gstgpufftposter.h) */
  GPtrArray *given_up_jobs;     /* plan jobs given up, until their threads
                                 * are done (gstgpufftplanjob.h) */
  /* live: the plan came after samples were stored; closed intervals wait
   * in the store for a free slot instead of being dropped, until it has
   * caught up */
  gboolean catching_up;
  GpufftPlanConfig plan_config; /* what `plan` (or plan_job) is built from
                                 * (its arrays: NULL) ... */
  GstGpuFftAnalysis plan_analysis;      /* ... with these modes */
  GstGpuFftBands *bands;        /* the plan's bands (NULL: linear) */
  guint applied_gen;            /* geometry_gen of plan_config/framing */
  guint applied_reset_gen;      /* settings.reset_gen of the same */
  guint min_bin, max_bin;       /* peak range of the applied settings */
  guint frame_values;           /* the plan's values a frame (bins or
                                 * bands), for message-frames' bound */
  guint64 frames_warned_ns;     /* message-frames: the shortened interval
                                 * last warned about (0: none) */
  guint max_frames, max_groups; /* the plan's limits per batch */

  /* settings read once per buffer / event for thresholds and messages */
  GstGpuFftBaseSettings live;
  guint live_gen;

  gboolean have_format;
  GstAudioInfo info;
  GpufftFormat format;

  gboolean running;             /* samples counted since the last restart */
  guint64 received;             /* samples since the restart */
  GstClockTime base_pts;        /* PTS of sample 0 */
  GstClockTime next_pts;        /* end of what was analysed before the
                                 * restart (buffers without PTS continue) */
  GstGpuFftFraming framing;
  GstGpuFftStore store;

  GstGpuFftBatchGroup *batch_groups;    /* max_groups */
  GpufftGroup *engine_groups;   /* max_groups */
  gconstpointer *seg_planes;    /* 3 x channels plane pointers */
  gpointer *in_planes;          /* channels: the mapped input's planes */
  GstBuffer *in_buf;            /* the input being handled (interleaved: the
                                 * engine may read it in place) ... */
  const guint8 *in_data;        /* ... and its mapped data */
  gsize buffer_hint;            /* samples of the first buffer after caps:
                                 * sizes the automatic batch */
  /* a sample beyond the analysis's bound (gstgpufftbound.h) was reported
   * since the element started */
  gboolean bound_warned;

  /* live input: the analysis drops whole intervals rather than hold the
   * audio when the GPU falls behind (-1: not asked yet) */
  gint is_live;
  guint dropped_pending;        /* intervals dropped since the last message */
  guint64 dropped_total;
  gint64 drop_warned_at;        /* monotonic us of the last warning */

  /* the `reset` action (any thread): the next batch restarts the
   * averaging state */
  gint reset_pending;
  /* set (atomically) from FLUSH_START to FLUSH_STOP and while stopping: a
   * streaming thread waiting for the plan lets go */
  gint plan_wait_cancel;
  /* set (atomically) while stopping (PAUSED to READY): a streaming thread
   * waiting for the device (a slot, a drain) lets go at once
   * (gpufft_plan_set_cancel: the device's work is left to the engine) */
  gint plan_stop_cancel;

  /* set once an engine error was posted (any thread) */
  gint error_posted;
  /* streaming thread: the intervals closed now get no message (gpuspectrum
   * drops the partial interval a geometry change ends) */
  gboolean discarding;
  /* streaming thread, gpuspectrum: spectrum's message timestamps. The
   * interval last timed (its index, its time), and the intervals since
   * that began with a buffer (GstGpuFftCompatStart: that buffer's PTS);
   * reset at each restart. */
  gpointer zeros;               /* zeros_size bytes of zeros (a batch's lead) */
  gsize zeros_size;
  gboolean compat_timed;
  guint64 compat_k;
  GstClockTime compat_ts;
  GArray *compat_starts;
  /* gpuspectrum, as spectrum at a DISCONT: streaming thread: the
   * intervals closed now are cut (their sums go into the next message),
   * and whether one was; restart_gen counts the restarts (a carry does
   * not cross one), cut_seq the cuts (a carry goes to the first interval
   * of the grid its cut starts, and to no other) */
  gboolean cutting;
  gboolean cut_closed;
  guint restart_gen;
  guint cut_seq;
  /* result thread only (the completion thread, or a host plan's before
   * it): the sums of the intervals cut ([channels]
   * [bins] dB sums, then as many phase sums), whether there are, and the
   * restart and cut they belong to */
  gdouble *carry;
  gsize carry_len;
  gboolean carry_any;
  guint carry_gen;
  guint carry_seq;
};

typedef struct
{
  guint64 interval;
  GstClockTime pts;
} GstGpuFftCompatStart;

/* gstgpufftbase-settings.c: after a property changed self->settings
 * (object lock held; old: before): a change of what the plan or the
 * framing is made from restarts the analysis at the next buffer
 * (geometry_gen). */
void gst_gpu_fft_base_settings_changed (GstGpuFftBase * self,
    const GstGpuFftBaseSettings * old);

G_END_DECLS

#endif /* __GST_GPU_FFT_BASE_H__ */
