/* gpuloudness: what the element's files share (gstgpuloudness.c, its
 * -stream and -message files): the instance, the interval marks, the
 * kernels' maker, and the functions they call in one another. Not for any
 * other file. Which field belongs to which thread and lock: see the
 * instance. */
#ifndef __GST_GPU_LOUDNESS_PRIVATE_H__
#define __GST_GPU_LOUDNESS_PRIVATE_H__

#include <gst/audio/audio.h>
#include <gst/audio/gstaudiofilter.h>

#include "gstgpuloudness.h"
#include "gstgpuloudnessmeter.h"
#include "gstgpufftdevice.h"
#include "gstgpufftposter.h"
#include "gpufft-loudness.h"

G_BEGIN_DECLS

GST_DEBUG_CATEGORY_EXTERN (gst_gpu_loudness_debug);

#define GST_GPU_LOUDNESS(obj) ((GstGpuLoudness *) (obj))

/* the `mode` flags (ebur128level's) */
enum
{
  MODE_MOMENTARY = 1 << 0,
  MODE_SHORT_TERM = 1 << 1,
  MODE_GLOBAL = 1 << 2,
  MODE_LOUDNESS_RANGE = 1 << 3,
  MODE_SAMPLE_PEAK = 1 << 4,
  MODE_TRUE_PEAK = 1 << 5
};

#define STORE_SECONDS 30        /* kept while the kernels are made, */
#define STORE_BYTES (64 << 20)  /* and at most this much */
#define STAGING_BYTES (8 << 20) /* a batch's samples at most */
#define MAX_BATCH_BLOCKS 50     /* 10 ms blocks a batch at most */
#define MAX_SAMPLE 1e6          /* +120 dBFS: a float sample beyond it, or
                                 * not finite, reads as 0 */

/* frames [off, off + n) of a mapped buffer -> dst, interleaved floats,
 * what is not finite or beyond MAX_SAMPLE as 0; returns how many samples
 * were */
typedef gsize (*ConvertFunc) (const GstAudioBuffer * ab, guint channels,
    gsize off, gsize n, gfloat * dst);

typedef struct
{
  guint64 blocks;               /* the meter's blocks at the interval's end */
  GstClockTime ts, running_time, stream_time, duration;
  gboolean post;                /* post-messages when the interval ended */
} Mark;

/* The making of the device's kernels: queued for the plugin's workers
 * once the device is open (gst_gpu_fft_device_when_open), shared by the
 * element and its work. */
typedef struct
{
  gint ref_count;               /* atomic: the element's and its work's */
  GstGpuFftDevice *device;      /* (a reference) */
  GpufftLoudnessConfig cfg;
  gpointer element;             /* the results' (read once begun: a maker
                                 * that began is waited for) */
  GMutex lock;
  GCond cond;
  /* --- under lock --- */
  gboolean begun;
  gboolean done;                /* made, failed, or given up before begun */
  GpufftLoudness *made;
  GError *error;
} Maker;

struct _GstGpuLoudness
{
  GstAudioFilter parent;

  /* properties (object lock) */
  guint mode;
  guint64 interval;
  gboolean post_messages;
  gint device_index;
  gint reset_requested;         /* atomic: the `reset` signal */
  /* atomic: set from PAUSED to READY (a stop): a streaming thread waiting
   * for the device (every slot in flight) lets go at once
   * (gpufft_loudness_set_cancel) */
  gint wait_cancel;

  GstGpuFftPoster *poster;
  GstGpuFftDevice *device;      /* start (a device-index) or the first
                                 * buffer that needs it .. stop; set under
                                 * the object lock */
  gint index_now;               /* device-index at the start */

  /* streaming thread */
  gboolean configured;
  guint rate, channels, block_frames, max_blocks, mode_now;
  ConvertFunc convert;
  GpufftLoudnessConfig cfg;
  gdouble *weights;
  gboolean decided;             /* host alone or the device: at the first
                                 * buffer after caps */
  gdouble host_points;          /* > 0: on the host alone, this much of the
                                 * process's host budget taken; set under
                                 * the object lock */
  Maker *maker;                 /* makes the kernels (see maker_work) */
  gint adopt_cancel;            /* atomic: a flush or a stop lets a wait
                                 * for the maker go */
  GpufftLoudness *lo;           /* once adopted from the maker */
  GArray *store;                /* floats, while lo is not made */
  gfloat *staging;
  gsize fill;                   /* frames in staging */
  guint64 frames;               /* since the start or the reset */
  guint64 interval_frames, since_mark;
  gboolean reset_next;          /* the next batch starts from rest */
  guint64 bad_samples;          /* read as 0 (MAX_SAMPLE) since the caps */
  gboolean warned_bad;          /* their WARNING posted (once a stream) */
  gboolean failed;              /* the device failed (its error posted):
                                 * every later buffer fails at once */
  gint is_live;                 /* atomic: the latency query (any thread)
                                 * sets it */
  GstClockTime next_ts;         /* the end of the last buffer */
  GstClockTime base_ts;         /* the time of frame base_frames */
  guint64 base_frames;

  /* the measurement (lock) */
  GMutex lock;
  GstGpuLoudnessMeter *meter;
  guint gen;                    /* batches of older generations are
                                 * dropped (a reset, new caps) */
  GQueue marks;                 /* Mark *, in order */
};

/* gstgpuloudness-stream.c (streaming thread, and setup, stop and the
 * events, which GStreamer serialises with it) */
/* The converter of a format's samples (NULL: not one of the caps'). */
ConvertFunc gst_gpu_loudness_stream_converter_for (GstAudioFormat format);
/* The measurement starts again from rest (a reset, new caps): the
 * meter, the marks, the staging and the times. */
void gst_gpu_loudness_stream_reset (GstGpuLoudness * self);
/* Lets go of the device's work and of the caps' state (new caps, stop,
 * finalize): a maker not begun is given up, one that began waited for;
 * the batches in flight are left to the engine. */
void gst_gpu_loudness_stream_clear (GstGpuLoudness * self);
/* Measures what was pushed: every interval that ended is posted (and,
 * with partial, the interval under way ends here). */
void gst_gpu_loudness_stream_drain (GstGpuLoudness * self, gboolean partial);
/* GstBaseTransform's transform_ip: the buffer passes through untouched,
 * its samples measured. */
GstFlowReturn gst_gpu_loudness_stream_transform_ip (GstBaseTransform * trans,
    GstBuffer * buf);

/* gstgpuloudness-message.c */
/* The engine's result function (the device's completion thread, or on
 * the host path the streaming thread): the meter fed, the messages of the
 * intervals it completes handed to the poster. */
void gst_gpu_loudness_message_on_result (const GpufftLoudnessResult * r,
    const GError * error, gpointer user_data);
/* Marks whose blocks the meter has: their messages, appended to out
 * (self->lock held). */
void gst_gpu_loudness_message_take_marks (GstGpuLoudness * self,
    GPtrArray * out);
/* Hands the messages to the poster, in order, and frees the array
 * (self->lock held: the poster's push only queues them). */
void gst_gpu_loudness_message_post_all (GstGpuLoudness * self,
    GPtrArray * msgs);

G_END_DECLS

#endif /* __GST_GPU_LOUDNESS_PRIVATE_H__ */
