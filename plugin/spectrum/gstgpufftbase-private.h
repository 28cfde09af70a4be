/* GstGpuFftBase: what the base's own files share (gstgpufftbase.c, its
 * -input, -settings, -plan, -host, -stream and -results files): the
 * instance's data and the functions they call in one another. Not for subclasses, which use
 * gstgpufftbase.h. Which file does what: see gstgpufftbase.c. */
#ifndef __GST_GPU_FFT_BASE_PRIVATE_H__
#define __GST_GPU_FFT_BASE_PRIVATE_H__

#include "gstgpufftbase.h"
#include "gstgpufftdevice.h"
#include "gstgpufftframing.h"
#include "gstgpufftmessage.h"
#include "gstgpufftplanjob.h"
#include "gstgpufftposter.h"
#include "gstgpufftstore.h"

G_BEGIN_DECLS

/* The instance's data (G_ADD_PRIVATE; self->priv), in the threads and
 * under the locks each field names. */
/* the host lead of a stream that is not live (gstgpufftbase-host.c) */
typedef enum
{
  GST_GPU_FFT_LEAD_NONE,
  GST_GPU_FFT_LEAD_ON,          /* the host plan analyses the intervals */
  GST_GPU_FFT_LEAD_SWITCH       /* the device's plan is waited for */
} GstGpuFftLead;

struct _GstGpuFftBasePrivate
{
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
   * interval once made (gstgpufftbase-plan.c) */
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
   * keeps it on the host, else it moves (gstgpufftbase-host.c) */
  gboolean host_pending;
  /* a stream that is not live starts on a host plan (the host lead,
   * gstgpufftbase-host.c): no plan job until `received` reaches
   * lead_open_at; the device's plan takes over at the first batch from
   * lead_switch_at on (LEAD_SWITCH: waited for there, the host plan
   * handed nothing more). Written under the object lock (the device-name
   * property reads it). */
  GstGpuFftLead host_lead;
  guint64 lead_open_at, lead_switch_at;
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
  /* a stream that is not live of an element whose messages a buffer's
   * application may read as soon as the buffer has passed (gpuspectrum):
   * the poster is held, and the streaming thread posts each buffer's
   * messages before the buffer leaves
   * (gst_gpu_fft_base_results_post_buffer) */
  gboolean posts_sync;
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

/* gstgpufftbase-settings.c: the settings (and their geometry generation),
 * copied under the object lock (any thread but the object lock's
 * holder). */
void gst_gpu_fft_base_settings_read (GstGpuFftBase * self,
    GstGpuFftBaseSettings * out, guint * gen);
/* ... into self->live / self->live_gen (streaming thread) */
void gst_gpu_fft_base_settings_read_live (GstGpuFftBase * self);

/* gstgpufftbase.c: the device's opening calls it (gstgpufftdevice.h:
 * names the device, offers its allocator upstream) */
void gst_gpu_fft_base_device_opened (GstElement * element,
    GpufftContext * ctx);

/* gstgpufftbase-input.c: GstBaseTransform's transform_ip (streaming
 * thread) */
GstFlowReturn gst_gpu_fft_base_input_transform_ip (GstBaseTransform * trans,
    GstBuffer * buf);

/* gstgpufftbase-plan.c (streaming thread) */
/* Applies the settings at a restart (the framing from sample 0); makes a
 * new plan when needed. */
gboolean gst_gpu_fft_base_plan_apply_settings (GstGpuFftBase * self);
/* TRUE when the plan is ready (made by self->priv->plan_job, which is
 * then finished: the plan installed), or a host plan stands in for it
 * (on_host: installed here where `due`, a batch is due, and the host
 * start applies). wait: waits for the job. FALSE with *failed set when
 * there is no plan to wait for or making it failed (the error posted). */
gboolean gst_gpu_fft_base_plan_ready (GstGpuFftBase * self,
    gboolean wait, gboolean due, gboolean * failed);
/* The element's device, its opening started where it has none yet; NULL
 * where no thread could be started (the error posted). */
GstGpuFftDevice *gst_gpu_fft_base_plan_need_device (GstGpuFftBase * self);
/* Sets self->priv->plan's result function (posted from its own thread on
 * the host alone, else handed to the poster). */
void gst_gpu_fft_base_plan_set_result_func (GstGpuFftBase * self);
/* Makes plan the element's: results, limits per batch. */
void gst_gpu_fft_base_plan_install (GstGpuFftBase * self, GpufftPlan * plan);

/* gstgpufftbase-host.c (streaming thread) */
/* Whether the host start applies to this stream (GPUFFT_HOST_START, the
 * stream's liveness, the analysis's size). */
gboolean gst_gpu_fft_base_host_start_wanted (GstGpuFftBase * self);
/* TRUE when the stream is analysed on the host alone from now on (its
 * share of the process's budget taken, or pending its device). */
gboolean gst_gpu_fft_base_host_only_begin (GstGpuFftBase * self);
/* TRUE where a host-only stream moves to the device now. */
gboolean gst_gpu_fft_base_host_only_moves (GstGpuFftBase * self);
/* A stream analysed on the host alone gives its share of the process's
 * budget back and is no longer host-only (nothing when it is not). */
void gst_gpu_fft_base_host_only_end (GstGpuFftBase * self);
/* Installs a host plan of plan_job's configuration; FALSE (and no second
 * try for this job) where the host plan cannot take it. */
gboolean gst_gpu_fft_base_host_start (GstGpuFftBase * self);
/* TRUE when a stream that is not live starts on the host (the host lead:
 * self->priv->plan_config and plan_analysis set; no plan job yet). */
gboolean gst_gpu_fft_base_host_lead_begin (GstGpuFftBase * self);
void gst_gpu_fft_base_host_lead_set (GstGpuFftBase * self, GstGpuFftLead lead);

/* gstgpufftbase-stream.c (streaming thread) */
GstClockTime gst_gpu_fft_base_stream_sample_to_time (GstGpuFftBase * self,
    guint64 sample);
/* Frames what was received up to avail_end (the input being n samples
 * from pos, `planes`) into batches and hands them to the engine. */
gboolean gst_gpu_fft_base_stream_run_batches (GstGpuFftBase * self,
    guint64 avail_end, gboolean flush, guint64 pos, gpointer const *planes,
    gsize n);
/* Live input: n intervals are not analysed (counted in the next message
 * and the stats; a warning at most every 10 s, which says why:
 * plan_pending, the plan is still being made; else the GPU is behind). */
void gst_gpu_fft_base_stream_drop (GstGpuFftBase * self, guint n,
    gboolean plan_pending);
/* Live input whose plan is still being made: what the store holds is not
 * analysed (counted as dropped intervals); the analysis restarts. */
void gst_gpu_fft_base_stream_drop_stored (GstGpuFftBase * self);
/* Closes the pending interval (partial) and restarts the framing. ending
 * (EOS, flush): a live stream waits for a plan still being made, to
 * analyse what the store holds; otherwise only a non-live one does. */
gboolean gst_gpu_fft_base_stream_flush_and_restart (GstGpuFftBase * self,
    gboolean ending);
/* gpuspectrum at a DISCONT, as spectrum: the pending interval is cut
 * where the stream stands (not posted: its sums go into the next
 * message), the intervals start again here and the samples go on. A
 * stream whose plan is not ready restarts instead. */
gboolean gst_gpu_fft_base_stream_cut (GstGpuFftBase * self);

/* gstgpufftbase-results.c */
void gst_gpu_fft_base_results_on_result (const GpufftGroupResult * result,
    gpointer user_data);
void gst_gpu_fft_base_results_on_host_result (const GpufftGroupResult *
    result, gpointer user_data);
gboolean gst_gpu_fft_base_results_drain (GstGpuFftBase * self);
void gst_gpu_fft_base_results_choose_posting (GstGpuFftBase * self);
gboolean gst_gpu_fft_base_results_post_buffer (GstGpuFftBase * self);
gboolean gst_gpu_fft_base_results_still_wanted (GstElement * element,
    guint gen);
void gst_gpu_fft_base_results_post_engine_error (GstGpuFftBase * self,
    const gchar * what, const GError * error);

/* gstgpufftbase-stream.c: gpuspectrum's record of the intervals a buffer
 * begins (their messages take its PTS, as spectrum's do) */
void gst_gpu_fft_base_stream_compat_buffer (GstGpuFftBase * self,
    guint64 pos, GstClockTime pts);

G_END_DECLS

#endif /* __GST_GPU_FFT_BASE_PRIVATE_H__ */
