/* gpuloudness: EBU R128 / ITU-R BS.1770-4 loudness on a Vulkan device,
 * with the properties, flags, action signal and message of
 * gst-plugins-rs's ebur128level (an application written for it runs with
 * the element's name changed).
 *
 * The audio passes through untouched. Its samples go to the device
 * (gpufft-loudness.h: the K-weighting filter, 10 ms block energies,
 * sample and true peaks, batched with every other element's work on the
 * device); the gating, the windows and the loudness range are the host's
 * (gstgpuloudnessmeter.h).
 *
 * Every `interval` of samples (floor (interval x rate / 1 s) frames from
 * the start or the last reset) it posts an element message
 * "ebur128-level" with
 *   timestamp, running-time, stream-time   (guint64) the interval's end:
 *                 the buffer's PTS + the frames up to it; NONE without PTS
 *                 (running and stream time: NONE too without a TIME
 *                 segment, as after a flush before the next segment)
 *   duration      (guint64) the interval's length
 *   momentary-loudness, shortterm-loudness, global-loudness,
 *   relative-threshold (LUFS), loudness-range (LU)        (gdouble)
 *   max-momentary-loudness, max-shortterm-loudness (LUFS, since the
 *                 start or reset)                          (gdouble)
 *   sample-peak, true-peak   (GstValueArray of gdouble, linear, one per
 *                 channel, the largest since the start or reset)
 * which fields as ebur128level: momentary with any mode, short-term with
 * short-term or loudness-range, global and relative-threshold with global,
 * loudness-range, sample-peak with sample-peak or true-peak, true-peak;
 * max-momentary with momentary and max-shortterm with short-term.
 * Momentary and short-term are those of the 10 ms blocks complete at the
 * interval's end (exactly the last 400 ms and 3 s when the interval is a
 * multiple of 10 ms at a rate divisible by 100). At EOS the last partial
 * interval is posted too (ebur128level does not).
 *
 * A buffer that cannot be read (non-interleaved without a GstAudioMeta)
 * passes through untouched, not measured, with a WARNING message; the
 * times are taken again from the next buffer's PTS.
 *
 * Float samples that are not finite or lie beyond +-1e6 (+120 dBFS,
 * MAX_SAMPLE) are measured as 0, with one WARNING message for the caps:
 * every loudness field stays finite (or -inf, silence).
 *
 * Channel weights from the channel positions: front left, right and
 * centre 1; rear, side and surround left and right 1.41 (+1.5 dB, BS.1770's
 * Ls and Rs; ebur128level gives rear channels 1, reading 5.1 material
 * with rear positions 0.4 dB low); LFE 0 (left out); a single channel 2
 * (a dual-mono programme, as ebur128level's mono); every other position,
 * and channels without positions, 1.
 *
 * A live stream within the process's host budget (gstgpuffthostbudget.h;
 * a sample costs about two FFT points there), with the automatic device
 * while no GPU is open in the process, is measured on the host alone: the
 * engine's host path, with no device (gpufft_loudness_new without a
 * context), from its first buffer, for as long as its caps last. Every
 * other stream opens the device at its first buffer (or at the start,
 * with a device-index).
 *
 * Threads: the streaming thread converts each buffer's samples into the
 * device's staging (a bounded store while the device's kernels are being
 * made by the maker, on the plugin's bounded pool of workers,
 * gstgpufftworkers.h, once the device is open: the audio is never held by
 * it; a maker given up before it began is skipped) and
 * queues the interval marks; the device's completion thread (on the host
 * path, the streaming thread) feeds the meter and builds the messages
 * (under the element's `lock`), which its poster posts, in order, outside
 * every lock. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>
#include <gst/audio/audio.h>
#include <gst/audio/gstaudiofilter.h>

#include "gstgpuloudness.h"
#include "gstgpuloudnessmeter.h"
#include "gstgpufftbands.h"
#include "gstgpufftdevice.h"
#include "gstgpuffthostbudget.h"
#include "gstgpufftlive.h"
#include "gstgpufftposter.h"
#include "gstgpufftworkers.h"
#include "gpufft-loudness.h"

GST_DEBUG_CATEGORY_STATIC (gst_gpu_loudness_debug);
#define GST_CAT_DEFAULT gst_gpu_loudness_debug

#define GST_GPU_LOUDNESS(obj) ((GstGpuLoudness *) (obj))

enum
{
  MODE_MOMENTARY = 1 << 0,
  MODE_SHORT_TERM = 1 << 1,
  MODE_GLOBAL = 1 << 2,
  MODE_LOUDNESS_RANGE = 1 << 3,
  MODE_SAMPLE_PEAK = 1 << 4,
  MODE_TRUE_PEAK = 1 << 5
};

#define DEFAULT_MODE 0x3f
#define DEFAULT_INTERVAL GST_SECOND
#define MIN_INTERVAL GST_MSECOND
#define DEFAULT_POST_MESSAGES TRUE
#define DEFAULT_DEVICE_INDEX -1
#define STORE_SECONDS 30        /* kept while the kernels are made, */
#define STORE_BYTES (64 << 20)  /* and at most this much */
#define STAGING_BYTES (8 << 20) /* a batch's samples at most */
#define MAX_BATCH_BLOCKS 50     /* 10 ms blocks a batch at most */
#define MAX_SAMPLE 1e6          /* +120 dBFS: a float sample beyond it, or
                                 * not finite, reads as 0 */

enum
{
  PROP_0,
  PROP_MODE,
  PROP_POST_MESSAGES,
  PROP_INTERVAL,
  PROP_DEVICE_INDEX,
  PROP_DEVICE_NAME
};

enum
{
  SIGNAL_RESET,
  LAST_SIGNAL
};

static guint signals[LAST_SIGNAL];

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

typedef struct
{
  GstAudioFilterClass parent_class;
} GstGpuLoudnessClass;

#define CAPS_STR \
  "audio/x-raw, " \
  "format = (string) { " GST_AUDIO_NE (S16) ", " GST_AUDIO_NE (S24) ", " \
  GST_AUDIO_NE (S32) ", " GST_AUDIO_NE (F32) ", " GST_AUDIO_NE (F64) " }, " \
  "rate = (int) [ 8000, 384000 ], channels = (int) [ 1, 64 ], " \
  "layout = (string) { interleaved, non-interleaved }"

#define gst_gpu_loudness_parent_class parent_class
G_DEFINE_TYPE (GstGpuLoudness, gst_gpu_loudness, GST_TYPE_AUDIO_FILTER);
GST_ELEMENT_REGISTER_DEFINE (gpuloudness, "gpuloudness", GST_RANK_NONE,
    GST_TYPE_GPU_LOUDNESS);

#define GST_TYPE_GPU_LOUDNESS_MODE (gst_gpu_loudness_mode_get_type ())
static GType
gst_gpu_loudness_mode_get_type (void)
{
  static GType type = 0;
  static const GFlagsValue values[] = {
    {MODE_MOMENTARY, "Calculate momentary loudness (400ms)", "momentary"},
    {MODE_SHORT_TERM, "Calculate short-term loudness (3s)", "short-term"},
    {MODE_GLOBAL, "Calculate relative threshold and global loudness",
        "global"},
    {MODE_LOUDNESS_RANGE, "Calculate loudness range", "loudness-range"},
    {MODE_SAMPLE_PEAK, "Calculate sample peak", "sample-peak"},
    {MODE_TRUE_PEAK, "Calculate true peak", "true-peak"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&type)) {
    GType t = g_flags_register_static ("GstGpuLoudnessMode", values);

    g_once_init_leave (&type, t);
  }
  return type;
}

/* ---- conversion ----------------------------------------------------------- */

/* (its energy, squared and summed over a block, stays far within a
 * float) */
static inline gfloat
in_range_or_zero (gdouble v, gsize * bad)
{
  if (isfinite (v) && fabs (v) <= MAX_SAMPLE)
    return (gfloat) v;
  (*bad)++;
  return 0.0f;
}

#define DEFINE_CONVERT(name, type, expr)                                  \
static gsize                                                              \
name (const GstAudioBuffer * ab, guint channels, gsize off, gsize n,      \
    gfloat * dst)                                                         \
{                                                                         \
  gsize f, bad = 0;                                                       \
  guint c;                                                                \
                                                                          \
  if (ab->n_planes == 1) {                                                \
    const type *s = (const type *) ab->planes[0] + off * channels;        \
    for (f = 0; f < n * channels; f++) {                                  \
      type v = s[f];                                                      \
      dst[f] = (expr);                                                    \
    }                                                                     \
    return bad;                                                           \
  }                                                                       \
  for (c = 0; c < channels; c++) {                                        \
    const type *s = (const type *) ab->planes[c] + off;                   \
    for (f = 0; f < n; f++) {                                             \
      type v = s[f];                                                      \
      dst[f * channels + c] = (expr);                                     \
    }                                                                     \
  }                                                                       \
  return bad;                                                             \
}

DEFINE_CONVERT (convert_s16, gint16, v * (1.0f / 32768.0f));
DEFINE_CONVERT (convert_s32, gint32, (gfloat) (v * (1.0 / 2147483648.0)));
DEFINE_CONVERT (convert_f32, gfloat, in_range_or_zero (v, &bad));
DEFINE_CONVERT (convert_f64, gdouble, in_range_or_zero (v, &bad));

/* S24: 3 bytes, native order */
static inline gfloat
s24_value (const guint8 * p)
{
#if G_BYTE_ORDER == G_LITTLE_ENDIAN
  gint32 v = (gint32) (((guint32) p[0] << 8) | ((guint32) p[1] << 16) |
      ((guint32) p[2] << 24)) >> 8;
#else
  gint32 v = (gint32) (((guint32) p[0] << 24) | ((guint32) p[1] << 16) |
      ((guint32) p[2] << 8)) >> 8;
#endif
  return v * (1.0f / 8388608.0f);
}

static gsize
convert_s24 (const GstAudioBuffer * ab, guint channels, gsize off, gsize n,
    gfloat * dst)
{
  gsize f;
  guint c;

  if (ab->n_planes == 1) {
    const guint8 *s = (const guint8 *) ab->planes[0] + off * channels * 3;

    for (f = 0; f < n * channels; f++)
      dst[f] = s24_value (s + 3 * f);
    return 0;
  }
  for (c = 0; c < channels; c++) {
    const guint8 *s = (const guint8 *) ab->planes[c] + off * 3;

    for (f = 0; f < n; f++)
      dst[f * channels + c] = s24_value (s + 3 * f);
  }
  return 0;
}

static ConvertFunc
converter_for (GstAudioFormat format)
{
  switch (format) {
    case GST_AUDIO_FORMAT_S16:
      return convert_s16;
    case GST_AUDIO_FORMAT_S24:
      return convert_s24;
    case GST_AUDIO_FORMAT_S32:
      return convert_s32;
    case GST_AUDIO_FORMAT_F32:
      return convert_f32;
    case GST_AUDIO_FORMAT_F64:
      return convert_f64;
    default:
      return NULL;
  }
}

/* ---- channel weights -------------------------------------------------- */

static gdouble
position_weight (GstAudioChannelPosition pos)
{
  switch (pos) {
    case GST_AUDIO_CHANNEL_POSITION_MONO:
      return 2.0;
    case GST_AUDIO_CHANNEL_POSITION_LFE1:
    case GST_AUDIO_CHANNEL_POSITION_LFE2:
      return 0.0;
    case GST_AUDIO_CHANNEL_POSITION_REAR_LEFT:
    case GST_AUDIO_CHANNEL_POSITION_REAR_RIGHT:
    case GST_AUDIO_CHANNEL_POSITION_SIDE_LEFT:
    case GST_AUDIO_CHANNEL_POSITION_SIDE_RIGHT:
    case GST_AUDIO_CHANNEL_POSITION_SURROUND_LEFT:
    case GST_AUDIO_CHANNEL_POSITION_SURROUND_RIGHT:
      return 1.41;
    default:
      return 1.0;
  }
}

/* ---- results (the device's completion thread) --------------------------- */

static GValue *
peaks_array (GstGpuLoudness * self, gboolean true_peak, GValue * arr)
{
  guint c;

  g_value_init (arr, GST_TYPE_ARRAY);
  for (c = 0; c < self->channels; c++) {
    GValue v = G_VALUE_INIT;

    g_value_init (&v, G_TYPE_DOUBLE);
    g_value_set_double (&v, true_peak ?
        gst_gpu_loudness_meter_true_peak (self->meter, c) :
        gst_gpu_loudness_meter_sample_peak (self->meter, c));
    gst_value_array_append_and_take_value (arr, &v);
  }
  return arr;
}

/* the message of one interval, from the meter as it is (lock held) */
static GstMessage *
make_message (GstGpuLoudness * self, const Mark * mk)
{
  GstGpuLoudnessMeter *m = self->meter;
  guint mode = self->mode_now;
  GstStructure *s;
  GValue arr = G_VALUE_INIT;

  s = gst_structure_new ("ebur128-level",
      "timestamp", G_TYPE_UINT64, mk->ts,
      "running-time", G_TYPE_UINT64, mk->running_time,
      "stream-time", G_TYPE_UINT64, mk->stream_time,
      "duration", G_TYPE_UINT64, mk->duration,
      "momentary-loudness", G_TYPE_DOUBLE,
      gst_gpu_loudness_meter_momentary (m), NULL);
  if (mode & MODE_MOMENTARY)
    gst_structure_set (s, "max-momentary-loudness", G_TYPE_DOUBLE,
        gst_gpu_loudness_meter_max_momentary (m), NULL);
  if (mode & (MODE_SHORT_TERM | MODE_LOUDNESS_RANGE))
    gst_structure_set (s, "shortterm-loudness", G_TYPE_DOUBLE,
        gst_gpu_loudness_meter_shortterm (m), NULL);
  if (mode & MODE_SHORT_TERM)
    gst_structure_set (s, "max-shortterm-loudness", G_TYPE_DOUBLE,
        gst_gpu_loudness_meter_max_shortterm (m), NULL);
  if (mode & MODE_GLOBAL) {
    gdouble rel, g = gst_gpu_loudness_meter_integrated (m, &rel);

    gst_structure_set (s, "global-loudness", G_TYPE_DOUBLE, g,
        "relative-threshold", G_TYPE_DOUBLE, rel, NULL);
  }
  if (mode & MODE_LOUDNESS_RANGE)
    gst_structure_set (s, "loudness-range", G_TYPE_DOUBLE,
        gst_gpu_loudness_meter_range (m), NULL);
  if (mode & (MODE_SAMPLE_PEAK | MODE_TRUE_PEAK))
    gst_structure_take_value (s, "sample-peak", peaks_array (self, FALSE,
            &arr));
  if (mode & MODE_TRUE_PEAK) {
    memset (&arr, 0, sizeof (arr));
    gst_structure_take_value (s, "true-peak", peaks_array (self, TRUE, &arr));
  }
  return gst_message_new_element (GST_OBJECT (self), s);
}

/* Marks whose blocks the meter has: their messages, appended to out
 * (lock held). */
static void
take_marks (GstGpuLoudness * self, GPtrArray * out)
{
  Mark *mk;

  while ((mk = g_queue_peek_head (&self->marks)) != NULL
      && mk->blocks <= gst_gpu_loudness_meter_blocks (self->meter)) {
    g_queue_pop_head (&self->marks);
    if (mk->post)
      g_ptr_array_add (out, make_message (self, mk));
    g_free (mk);
  }
}

/* Hands the messages to the poster, in order (lock held: the poster's
 * push only queues them) */
static void
post_all (GstGpuLoudness * self, GPtrArray * msgs)
{
  guint i;

  for (i = 0; i < msgs->len; i++)
    gst_gpu_fft_poster_push (self->poster, g_ptr_array_index (msgs, i), NULL,
        FALSE, 0, g_atomic_int_get (&self->is_live));
  g_ptr_array_free (msgs, TRUE);
}

static void
result_func (const GpufftLoudnessResult * r, const GError * error,
    gpointer user_data)
{
  GstGpuLoudness *self = user_data;
  GPtrArray *msgs = g_ptr_array_new ();
  guint b;

  if (error) {
    /* (the streaming thread reports it at its next batch) */
    GST_WARNING_OBJECT (self, "a batch failed: %s", error->message);
    g_ptr_array_free (msgs, TRUE);
    return;
  }
  g_mutex_lock (&self->lock);
  if (r->tag == self->gen && self->meter) {
    take_marks (self, msgs);
    for (b = 0; b < r->n_blocks; b++) {
      gst_gpu_loudness_meter_add_block (self->meter,
          r->values + (gsize) b * r->channels * 4);
      take_marks (self, msgs);
    }
  }
  /* (pushed under the lock, which orders them with the streaming thread's:
   * a push neither blocks nor posts) */
  post_all (self, msgs);
  g_mutex_unlock (&self->lock);
}

/* ---- the device's kernels, made beside the stream ------------------------ */

static void
maker_unref (Maker * m)
{
  if (!g_atomic_int_dec_and_test (&m->ref_count))
    return;
  g_clear_pointer (&m->made, gpufft_loudness_free);
  g_clear_error (&m->error);
  gst_gpu_fft_device_unref (m->device);
  g_mutex_clear (&m->lock);
  g_cond_clear (&m->cond);
  g_free (m);
}

/* (a worker, once the device's opening is done or the device closed) */
static void
maker_work (gpointer data)
{
  Maker *m = data;
  GpufftContext *ctx;
  GpufftLoudness *lo = NULL;
  GError *err = NULL;

  g_mutex_lock (&m->lock);
  if (m->done) {
    /* given up before it began: skipped */
    g_mutex_unlock (&m->lock);
    maker_unref (m);
    return;
  }
  m->begun = TRUE;
  g_mutex_unlock (&m->lock);
  ctx = gst_gpu_fft_device_wait (m->device, NULL);
  if (ctx)
    lo = gpufft_loudness_new (ctx, &m->cfg, result_func, m->element, &err);
  else if (!gst_gpu_fft_device_failed (m->device, NULL))
    g_set_error (&err, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_FAILED,
        "stopped before the device was open");
  g_mutex_lock (&m->lock);
  m->made = lo;
  m->error = err;
  m->done = TRUE;
  g_cond_broadcast (&m->cond);
  g_mutex_unlock (&m->lock);
  maker_unref (m);
}

/* The stream's first buffer since its caps: on the host alone (a live
 * stream within the host budget, with the automatic device, while no GPU
 * is open in the process; GPUFFT_HOST_START=off: never), or the device's
 * kernels made by the maker, the device opened first if the start did
 * not. FALSE on failure (the element error posted). */
static gboolean
begin_measuring (GstGpuLoudness * self)
{
  const gchar *env = g_getenv ("GPUFFT_HOST_START");
  gdouble points = 2.0 * self->channels * self->rate;
  GError *err = NULL;
  Maker *m;

  self->decided = TRUE;
  if (self->device == NULL && self->index_now < 0
      && !(env && (g_str_equal (env, "off") || g_str_equal (env, "0")))
      && gst_gpu_fft_upstream_is_live (GST_BASE_TRANSFORM_SINK_PAD (self))
      && !gst_gpu_fft_device_gpu_opened ()
      && gst_gpu_fft_host_budget_take (points,
          gst_gpu_fft_device_any_opened ())) {
    GpufftLoudness *lo = gpufft_loudness_new (NULL, &self->cfg, result_func,
        self, &err);

    if (lo) {
      GST_OBJECT_LOCK (self);
      self->host_points = points;
      GST_OBJECT_UNLOCK (self);
      self->lo = lo;
      self->fill = 0;
      self->staging = gpufft_loudness_staging (lo, NULL);
      GST_DEBUG_OBJECT (self, "measured on the host alone (%.0f points a "
          "second of the host budget)", points);
      return TRUE;
    }
    gst_gpu_fft_host_budget_give (points);
    GST_WARNING_OBJECT (self, "not on the host alone: %s", err->message);
    g_clear_error (&err);
  }
  if (self->device == NULL) {
    GstGpuFftDevice *device = gst_gpu_fft_device_open (GST_ELEMENT (self),
        -1, NULL);

    if (!device) {
      self->failed = TRUE;
      return FALSE;
    }
    GST_OBJECT_LOCK (self);
    self->device = device;
    GST_OBJECT_UNLOCK (self);
  }
  m = g_new0 (Maker, 1);
  m->ref_count = 2;
  m->device = gst_gpu_fft_device_ref (self->device);
  m->cfg = self->cfg;
  m->element = self;
  g_mutex_init (&m->lock);
  g_cond_init (&m->cond);
  if (!gst_gpu_fft_device_when_open (self->device, maker_work, m, &err)) {
    m->ref_count = 1;
    maker_unref (m);
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED, (NULL),
        ("no thread to make the kernels: %s", err->message));
    g_clear_error (&err);
    self->failed = TRUE;
    return FALSE;
  }
  self->maker = m;
  return TRUE;
}

/* Waits for the maker (wait: until it is done, a flush or a stop) or looks
 * whether it is done; on success the object is ours, the store goes to the
 * device. FALSE on failure (the element error posted, unless the device's
 * opening posted it), or when a flush or a stop came first
 * (self->adopt_cancel set: nothing posted). */
static gboolean put_floats (GstGpuLoudness * self, const gfloat * src, gsize n);

static gboolean
adopt (GstGpuLoudness * self, gboolean wait)
{
  GError *err = NULL;
  GpufftLoudness *lo;
  GArray *store;
  Maker *m = self->maker;

  if (self->lo || !m)
    return self->lo != NULL;
  g_mutex_lock (&m->lock);
  /* (the cancel flag is looked at every 20 ms) */
  while (wait && !m->done && !g_atomic_int_get (&self->adopt_cancel))
    g_cond_wait_until (&m->cond, &m->lock, g_get_monotonic_time () +
        20 * G_TIME_SPAN_MILLISECOND);
  if (!m->done) {
    g_mutex_unlock (&m->lock);
    return !wait;
  }
  lo = m->made;
  m->made = NULL;
  err = m->error;
  m->error = NULL;
  g_mutex_unlock (&m->lock);
  self->maker = NULL;
  maker_unref (m);
  if (!lo) {
    self->failed = TRUE;
    if (!gst_gpu_fft_device_failed (self->device, NULL))
      GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
          ("The loudness kernels could not be made on the device."),
          ("%s", err ? err->message : "unknown error"));
    g_clear_error (&err);
    return FALSE;
  }
  self->lo = lo;
  gpufft_loudness_set_cancel (lo, &self->wait_cancel);
  self->staging = gpufft_loudness_staging (lo, &err);
  self->fill = 0;
  if (!self->staging) {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED, ("The device failed."),
        ("%s", err->message));
    g_clear_error (&err);
    self->failed = TRUE;
    return FALSE;
  }
  store = self->store;
  self->store = g_array_new (FALSE, FALSE, sizeof (gfloat));
  GST_DEBUG_OBJECT (self, "device ready: %u samples kept meanwhile",
      store->len);
  if (!put_floats (self, (const gfloat *) store->data,
          store->len / self->channels)) {
    g_array_unref (store);
    return FALSE;
  }
  g_array_unref (store);
  return TRUE;
}

/* ---- batches (streaming thread) ----------------------------------------- */

static gboolean
submit (GstGpuLoudness * self, guint n_blocks)
{
  GError *err = NULL;
  gfloat *old = self->staging;
  gsize rest;

  /* (a stream that is not live waits for its earlier messages to be
   * posted: a slow bus handler slows it instead of queueing without end) */
  if (!g_atomic_int_get (&self->is_live))
    gst_gpu_fft_poster_wait (self->poster);
  if (!gpufft_loudness_submit (self->lo, n_blocks, self->reset_next,
          self->gen, &err)
      || !(self->staging = gpufft_loudness_staging (self->lo, &err))) {
    /* (a stop let the wait for the device go: no error, the stop clears
     * the state) */
    if (g_error_matches (err, GPUFFT_ERROR, GPUFFT_ERROR_CANCELLED))
      GST_DEBUG_OBJECT (self, "stopping: %s", err->message);
    else
      GST_ELEMENT_ERROR (self, RESOURCE, FAILED, ("The device failed."),
          ("%s", err->message));
    g_clear_error (&err);
    self->staging = NULL;
    self->failed = TRUE;
    return FALSE;
  }
  self->reset_next = FALSE;
  rest = self->fill - (gsize) n_blocks *self->block_frames;
  memcpy (self->staging, old + (gsize) n_blocks * self->block_frames *
      self->channels, rest * self->channels * sizeof (gfloat));
  self->fill = rest;
  return TRUE;
}

/* Room for more frames in the staging (a full staging is submitted). */
static gboolean
make_room (GstGpuLoudness * self)
{
  if (self->fill < (gsize) self->max_blocks * self->block_frames)
    return TRUE;
  return submit (self, self->max_blocks);
}

static gboolean
put_floats (GstGpuLoudness * self, const gfloat * src, gsize n)
{
  while (n > 0) {
    gsize take;

    if (!make_room (self))
      return FALSE;
    take = MIN (n, (gsize) self->max_blocks * self->block_frames - self->fill);
    memcpy (self->staging + self->fill * self->channels, src,
        take * self->channels * sizeof (gfloat));
    self->fill += take;
    src += take * self->channels;
    n -= take;
  }
  return TRUE;
}

static gboolean
put_frames (GstGpuLoudness * self, const GstAudioBuffer * ab, gsize off,
    gsize n)
{
  if (!self->lo) {
    guint len = self->store->len;

    if (len / self->channels + n > (gsize) STORE_SECONDS * self->rate
        || (len + n * self->channels) * sizeof (gfloat) > STORE_BYTES) {
      /* (the store is full: the kernels are awaited) */
      GST_INFO_OBJECT (self, "waiting for the device's kernels");
      if (!adopt (self, TRUE))
        return FALSE;
      return put_frames (self, ab, off, n);
    }
    g_array_set_size (self->store, len + n * self->channels);
    self->bad_samples += self->convert (ab, self->channels, off, n,
        &g_array_index (self->store, gfloat, len));
    return TRUE;
  }
  while (n > 0) {
    gsize take;

    if (!make_room (self))
      return FALSE;
    take = MIN (n, (gsize) self->max_blocks * self->block_frames - self->fill);
    self->bad_samples += self->convert (ab, self->channels, off, take,
        self->staging + self->fill * self->channels);
    self->fill += take;
    off += take;
    n -= take;
  }
  return TRUE;
}

/* Submits the staging's whole blocks when a waiting interval needs them. */
static gboolean
submit_for_marks (GstGpuLoudness * self)
{
  guint64 staged, need = 0;
  guint n = self->lo ? self->fill / self->block_frames : 0;
  Mark *mk;

  if (n == 0)
    return TRUE;
  staged = self->frames / self->block_frames;
  g_mutex_lock (&self->lock);
  mk = g_queue_peek_tail (&self->marks);
  if (mk)
    need = mk->blocks;
  g_mutex_unlock (&self->lock);
  /* (the staging's blocks end at block `staged`) */
  if (!mk || need + n <= staged)
    return TRUE;
  return submit (self, n);
}

static void
add_mark (GstGpuLoudness * self, GstClockTime ts, guint64 frames)
{
  GstSegment *seg = &GST_BASE_TRANSFORM (self)->segment;
  Mark *mk = g_new0 (Mark, 1);
  GPtrArray *msgs = g_ptr_array_new ();

  mk->blocks = self->frames / self->block_frames;
  mk->ts = ts;
  /* (no running or stream time without a TIME segment: after a flush,
   * before the next segment, it is undefined) */
  mk->running_time = GST_CLOCK_TIME_IS_VALID (ts)
      && seg->format == GST_FORMAT_TIME ?
      gst_segment_to_running_time (seg, GST_FORMAT_TIME, ts) :
      GST_CLOCK_TIME_NONE;
  mk->stream_time = GST_CLOCK_TIME_IS_VALID (ts)
      && seg->format == GST_FORMAT_TIME ?
      gst_segment_to_stream_time (seg, GST_FORMAT_TIME, ts) :
      GST_CLOCK_TIME_NONE;
  mk->duration = gst_util_uint64_scale_int (frames, GST_SECOND, self->rate);
  GST_OBJECT_LOCK (self);
  mk->post = self->post_messages;
  GST_OBJECT_UNLOCK (self);
  g_mutex_lock (&self->lock);
  g_queue_push_tail (&self->marks, mk);
  take_marks (self, msgs);
  post_all (self, msgs);
  g_mutex_unlock (&self->lock);
}

static void
do_reset (GstGpuLoudness * self)
{
  Mark *mk;

  g_mutex_lock (&self->lock);
  self->gen++;
  if (self->meter)
    gst_gpu_loudness_meter_reset (self->meter);
  while ((mk = g_queue_pop_head (&self->marks)))
    g_free (mk);
  g_mutex_unlock (&self->lock);
  self->fill = 0;
  if (self->store)
    g_array_set_size (self->store, 0);
  self->frames = 0;
  self->since_mark = 0;
  self->reset_next = TRUE;
  self->next_ts = self->base_ts = GST_CLOCK_TIME_NONE;
  self->base_frames = 0;
}

/* ---- the element ---------------------------------------------------------- */

static void
release_device_work (GstGpuLoudness * self)
{
  Maker *m = self->maker;

  if (m) {
    /* (one not begun is given up; one that began is waited for: it may
     * hand its results to the element) */
    g_mutex_lock (&m->lock);
    if (!m->begun)
      m->done = TRUE;
    while (!m->done)
      g_cond_wait (&m->cond, &m->lock);
    g_mutex_unlock (&m->lock);
    self->maker = NULL;
    maker_unref (m);
  }
  g_mutex_lock (&self->lock);
  self->gen++;
  g_mutex_unlock (&self->lock);
  /* (no result after it; the batches in flight are left to the engine,
   * which frees them when the device is done with them or stopped
   * responding: a stop never waits for the device) */
  g_clear_pointer (&self->lo, gpufft_loudness_free);
  self->staging = NULL;
  self->fill = 0;
  if (self->host_points > 0.0)
    gst_gpu_fft_host_budget_give (self->host_points);
  GST_OBJECT_LOCK (self);
  self->host_points = 0.0;
  GST_OBJECT_UNLOCK (self);
  self->decided = FALSE;
}

static void
clear_config (GstGpuLoudness * self)
{
  Mark *mk;

  release_device_work (self);
  g_mutex_lock (&self->lock);
  g_clear_pointer (&self->meter, gst_gpu_loudness_meter_free);
  while ((mk = g_queue_pop_head (&self->marks)))
    g_free (mk);
  g_mutex_unlock (&self->lock);
  g_clear_pointer (&self->store, g_array_unref);
  g_clear_pointer (&self->weights, g_free);
  self->configured = FALSE;
  self->failed = FALSE;
}

static void drain (GstGpuLoudness * self, gboolean partial);

static gboolean
gst_gpu_loudness_setup (GstAudioFilter * filter, const GstAudioInfo * info)
{
  GstGpuLoudness *self = GST_GPU_LOUDNESS (filter);
  guint c, mode;
  guint64 interval;
  GstGpuLoudnessMeter *meter;

  /* new caps: the stream so far is posted up to here (on the bus before
   * the caps go on, as at EOS and a flush), then a new meter */
  drain (self, TRUE);
  gst_gpu_fft_poster_wait (self->poster);
  clear_config (self);
  GST_OBJECT_LOCK (self);
  mode = self->mode;
  interval = self->interval;
  GST_OBJECT_UNLOCK (self);
  if (mode == 0) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, (NULL),
        ("mode is empty: set at least one of momentary, short-term, global, "
            "loudness-range, sample-peak, true-peak"));
    return FALSE;
  }

  self->rate = GST_AUDIO_INFO_RATE (info);
  self->channels = GST_AUDIO_INFO_CHANNELS (info);
  self->convert = converter_for (GST_AUDIO_INFO_FORMAT (info));
  if (!self->convert)
    return FALSE;
  self->mode_now = mode;
  /* 10 ms blocks (at rates that are not a multiple of 100 Hz, a hundredth
   * rounded: 221 frames at 22050 Hz, windows 0.2 % long) */
  self->block_frames = (self->rate + 50) / 100;
  /* (a batch of at most 0.5 s, and 8 MiB: the device memory of hundreds
   * of streams stays small, and many channels still go in large batches) */
  self->max_blocks = CLAMP (STAGING_BYTES / ((gsize) self->block_frames *
          self->channels * sizeof (gfloat)), 1, MAX_BATCH_BLOCKS);
  self->interval_frames = MAX (1, gst_util_uint64_scale_int (interval,
          self->rate, GST_SECOND));
  self->weights = g_new (gdouble, self->channels);
  for (c = 0; c < self->channels; c++)
    self->weights[c] = GST_AUDIO_INFO_IS_UNPOSITIONED (info) ? 1.0 :
        position_weight (GST_AUDIO_INFO_POSITION (info, c));
  /* (one channel, however its caps name it, is a mono programme) */
  if (self->channels == 1)
    self->weights[0] = position_weight (GST_AUDIO_CHANNEL_POSITION_MONO);

  memset (&self->cfg, 0, sizeof (self->cfg));
  self->cfg.channels = self->channels;
  self->cfg.block_frames = self->block_frames;
  self->cfg.max_blocks = self->max_blocks;
  gst_gpu_fft_bands_k_filter (self->rate, self->cfg.b, self->cfg.a);
  self->cfg.tp_phases = (mode & MODE_TRUE_PEAK) ?
      gpufft_loudness_tp_taps (self->rate, self->cfg.tp_taps) : 0;

  meter = gst_gpu_loudness_meter_new (self->channels, self->weights,
      self->block_frames);
  g_mutex_lock (&self->lock);
  self->meter = meter;
  g_mutex_unlock (&self->lock);
  self->store = g_array_new (FALSE, FALSE, sizeof (gfloat));
  do_reset (self);
  g_atomic_int_set (&self->reset_requested, 0);
  self->bad_samples = 0;
  self->warned_bad = FALSE;
  self->configured = TRUE;
  GST_DEBUG_OBJECT (self, "%u Hz, %u channels, blocks of %u frames, %u a "
      "batch at most, mode 0x%x", self->rate, self->channels,
      self->block_frames, self->max_blocks, mode);
  return TRUE;
}

/* the time of a frame (counted since the start or the reset) */
static GstClockTime
time_of (GstGpuLoudness * self, guint64 frames)
{
  if (!GST_CLOCK_TIME_IS_VALID (self->base_ts))
    return GST_CLOCK_TIME_NONE;
  return self->base_ts + gst_util_uint64_scale_int_round (frames -
      self->base_frames, GST_SECOND, self->rate);
}

/* Whether gst_audio_buffer_map () can read buf: non-interleaved audio
 * needs a GstAudioMeta that matches the caps. */
static gboolean
readable (GstGpuLoudness * self, GstBuffer * buf)
{
  const GstAudioInfo *info = GST_AUDIO_FILTER_INFO (self);
  GstAudioMeta *meta;

  if (GST_AUDIO_INFO_LAYOUT (info) == GST_AUDIO_LAYOUT_INTERLEAVED)
    return TRUE;
  meta = gst_buffer_get_audio_meta (buf);
  return meta != NULL && meta->info.layout == GST_AUDIO_LAYOUT_NON_INTERLEAVED
      && meta->info.channels == GST_AUDIO_INFO_CHANNELS (info)
      && meta->info.finfo == info->finfo;
}

static GstFlowReturn
gst_gpu_loudness_transform_ip (GstBaseTransform * trans, GstBuffer * buf)
{
  GstGpuLoudness *self = GST_GPU_LOUDNESS (trans);
  GstAudioBuffer ab;
  GstClockTime pts = GST_BUFFER_PTS (buf);
  gsize n, off = 0;
  gboolean ok = TRUE;

  if (!self->configured)
    return GST_FLOW_NOT_NEGOTIATED;
  if (self->failed)
    return GST_FLOW_ERROR;
  if (g_atomic_int_compare_and_exchange (&self->reset_requested, 1, 0)) {
    /* (the intervals that ended before it are posted first) */
    drain (self, FALSE);
    do_reset (self);
  }
  if (!self->decided && !begin_measuring (self))
    return GST_FLOW_ERROR;
  if (!adopt (self, FALSE))
    return GST_FLOW_ERROR;
  if (!readable (self, buf)) {
    GST_ELEMENT_WARNING (self, STREAM, FORMAT, (NULL),
        ("cannot read buffer %" GST_PTR_FORMAT " (non-interleaved audio needs "
            "a GstAudioMeta): passed through, not measured; the times are "
            "taken again from the next buffer's PTS", buf));
    self->next_ts = GST_CLOCK_TIME_NONE;
    return GST_FLOW_OK;
  }
  if (!gst_audio_buffer_map (&ab, GST_AUDIO_FILTER_INFO (self), buf,
          GST_MAP_READ)) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, (NULL),
        ("a buffer could not be mapped"));
    return GST_FLOW_ERROR;
  }
  n = ab.n_samples;
  /* (times counted in frames from the first PTS, anchored again where the
   * PTS departs from them by more than half a millisecond) */
  if (!GST_CLOCK_TIME_IS_VALID (pts))
    self->base_ts = GST_CLOCK_TIME_NONE;
  else if (!GST_CLOCK_TIME_IS_VALID (self->next_ts)
      || (pts > self->next_ts ? pts - self->next_ts : self->next_ts - pts) >
      GST_MSECOND / 2) {
    self->base_ts = pts;
    self->base_frames = self->frames;
  }
  while (ok && off < n) {
    gsize step = MIN (n - off, self->interval_frames - self->since_mark);

    ok = put_frames (self, &ab, off, step);
    off += step;
    self->since_mark += step;
    self->frames += step;
    if (ok && self->since_mark == self->interval_frames) {
      add_mark (self, time_of (self, self->frames), self->interval_frames);
      self->since_mark = 0;
    }
  }
  gst_audio_buffer_unmap (&ab);
  self->next_ts = time_of (self, self->frames);
  if (self->bad_samples > 0 && !self->warned_bad) {
    self->warned_bad = TRUE;
    GST_ELEMENT_WARNING (self, STREAM, FORMAT, (NULL),
        ("%" G_GUINT64_FORMAT " samples not finite or beyond +-1e6 (+120 "
            "dBFS) measured as 0 (warned once for these caps)",
            self->bad_samples));
  }
  if (ok)
    ok = submit_for_marks (self);
  /* (a wait for the maker that a flush or a stop let go, or a wait for
   * the device that a stop let go) */
  if (!ok && !self->failed && g_atomic_int_get (&self->adopt_cancel))
    return GST_FLOW_FLUSHING;
  if (!ok && g_atomic_int_get (&self->wait_cancel))
    return GST_FLOW_FLUSHING;   /* (stopping) */
  return ok ? GST_FLOW_OK : GST_FLOW_ERROR;
}

/* Measures what was pushed: the staging's whole blocks submitted and
 * their results delivered, so that every interval that ended is posted
 * (and, with partial, the interval under way ends here). EOS, new caps
 * and a reset. */
static void
drain (GstGpuLoudness * self, gboolean partial)
{
  if (!self->configured || self->failed)
    return;
  if (partial && self->since_mark > 0) {
    add_mark (self, self->next_ts, self->since_mark);
    self->since_mark = 0;
  }
  if (!adopt (self, TRUE))
    return;
  if (self->fill >= self->block_frames
      && !submit (self, self->fill / self->block_frames))
    return;
  gpufft_loudness_flush (self->lo);
}

static gboolean
gst_gpu_loudness_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  GstGpuLoudness *self = GST_GPU_LOUDNESS (trans);

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_EOS:
      /* (the messages reach the bus before EOS leaves) */
      drain (self, TRUE);
      gst_gpu_fft_poster_wait (self->poster);
      break;
    case GST_EVENT_FLUSH_START:
      g_atomic_int_set (&self->adopt_cancel, 1);
      gst_gpu_fft_poster_set_flushing (self->poster, TRUE);
      break;
    case GST_EVENT_FLUSH_STOP:
      g_atomic_int_set (&self->adopt_cancel, 0);
      gst_gpu_fft_poster_set_flushing (self->poster, FALSE);
      /* (the intervals that ended before the flush reach the bus before
       * it goes on, as gpufftspectrum's; the measurement goes on) */
      drain (self, FALSE);
      gst_gpu_fft_poster_wait (self->poster);
      break;
    default:
      break;
  }
  return GST_BASE_TRANSFORM_CLASS (parent_class)->sink_event (trans, event);
}

static gboolean
gst_gpu_loudness_start (GstBaseTransform * trans)
{
  GstGpuLoudness *self = GST_GPU_LOUDNESS (trans);
  gint index;

  GST_OBJECT_LOCK (self);
  index = self->device_index;
  GST_OBJECT_UNLOCK (self);
  self->index_now = index;
  /* (the automatic device: at the first buffer that needs it) */
  if (index >= 0) {
    GstGpuFftDevice *device = gst_gpu_fft_device_open (GST_ELEMENT (self),
        index, NULL);

    if (!device)
      return FALSE;
    GST_OBJECT_LOCK (self);
    self->device = device;
    GST_OBJECT_UNLOCK (self);
  }
  gst_gpu_fft_poster_start (self->poster);
  g_atomic_int_set (&self->is_live, FALSE);
  return TRUE;
}

static gboolean
gst_gpu_loudness_stop (GstBaseTransform * trans)
{
  GstGpuLoudness *self = GST_GPU_LOUDNESS (trans);
  GstGpuFftDevice *device;

  clear_config (self);
  gst_gpu_fft_poster_stop (self->poster);
  GST_OBJECT_LOCK (self);
  device = self->device;
  self->device = NULL;
  GST_OBJECT_UNLOCK (self);
  gst_gpu_fft_device_close (device);
  return TRUE;
}

static GstStateChangeReturn
gst_gpu_loudness_change_state (GstElement * element, GstStateChange transition)
{
  GstGpuLoudness *self = GST_GPU_LOUDNESS (element);
  GstStateChangeReturn ret;

  /* (a stop: a streaming thread waiting for the maker or the device lets
   * go; the pads' deactivation takes the stream lock) */
  if (transition == GST_STATE_CHANGE_PAUSED_TO_READY) {
    g_atomic_int_set (&self->adopt_cancel, 1);
    g_atomic_int_set (&self->wait_cancel, 1);
    gst_gpu_fft_poster_set_stopping (self->poster, TRUE);
  } else if (transition == GST_STATE_CHANGE_READY_TO_PAUSED) {
    g_atomic_int_set (&self->adopt_cancel, 0);
    g_atomic_int_set (&self->wait_cancel, 0);
    gst_gpu_fft_poster_set_stopping (self->poster, FALSE);
  }
  ret = GST_ELEMENT_CLASS (parent_class)->change_state (element, transition);
  if (ret == GST_STATE_CHANGE_FAILURE
      && transition == GST_STATE_CHANGE_PAUSED_TO_READY) {
    g_atomic_int_set (&self->adopt_cancel, 0);
    g_atomic_int_set (&self->wait_cancel, 0);
    gst_gpu_fft_poster_set_stopping (self->poster, FALSE);
  }
  return ret;
}

static gboolean
gst_gpu_loudness_query (GstBaseTransform * trans, GstPadDirection dir,
    GstQuery * query)
{
  GstGpuLoudness *self = GST_GPU_LOUDNESS (trans);
  gboolean res = GST_BASE_TRANSFORM_CLASS (parent_class)->query (trans, dir,
      query);

  if (res && GST_QUERY_TYPE (query) == GST_QUERY_LATENCY && dir == GST_PAD_SRC) {
    gboolean live;

    gst_query_parse_latency (query, &live, NULL, NULL);
    g_atomic_int_set (&self->is_live, live);
  }
  return res;
}

static void
gst_gpu_loudness_reset_signal (GstGpuLoudness * self)
{
  g_atomic_int_set (&self->reset_requested, 1);
}

static void
gst_gpu_loudness_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstGpuLoudness *self = GST_GPU_LOUDNESS (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_MODE:
      self->mode = g_value_get_flags (value);
      break;
    case PROP_POST_MESSAGES:
      self->post_messages = g_value_get_boolean (value);
      break;
    case PROP_INTERVAL:
      self->interval = g_value_get_uint64 (value);
      break;
    case PROP_DEVICE_INDEX:
      self->device_index = g_value_get_int (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_gpu_loudness_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstGpuLoudness *self = GST_GPU_LOUDNESS (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_MODE:
      g_value_set_flags (value, self->mode);
      break;
    case PROP_POST_MESSAGES:
      g_value_set_boolean (value, self->post_messages);
      break;
    case PROP_INTERVAL:
      g_value_set_uint64 (value, self->interval);
      break;
    case PROP_DEVICE_INDEX:
      g_value_set_int (value, self->device_index);
      break;
    case PROP_DEVICE_NAME:{
      GstGpuFftDevice *device = self->host_points > 0.0 || !self->device ?
          NULL : gst_gpu_fft_device_ref (self->device);

      if (self->host_points > 0.0)
        g_value_set_string (value, GST_GPU_FFT_HOST_DEVICE_NAME);
      if (device) {
        GpufftContext *ctx;

        /* (the device is being opened: its name once it is, a wait of at
         * most the opening's) */
        GST_OBJECT_UNLOCK (self);
        ctx = gst_gpu_fft_device_wait (device, NULL);
        g_value_set_string (value, ctx ?
            gpufft_context_get_device_name (ctx) : NULL);
        gst_gpu_fft_device_unref (device);
        GST_OBJECT_LOCK (self);
      }
      break;
    }
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_gpu_loudness_finalize (GObject * object)
{
  GstGpuLoudness *self = GST_GPU_LOUDNESS (object);

  clear_config (self);
  gst_gpu_fft_poster_free (self->poster);
  g_mutex_clear (&self->lock);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_gpu_loudness_init (GstGpuLoudness * self)
{
  self->mode = DEFAULT_MODE;
  self->interval = DEFAULT_INTERVAL;
  self->post_messages = DEFAULT_POST_MESSAGES;
  self->device_index = DEFAULT_DEVICE_INDEX;
  g_mutex_init (&self->lock);
  g_queue_init (&self->marks);
  self->poster = gst_gpu_fft_poster_new (GST_ELEMENT (self), NULL);
  gst_base_transform_set_passthrough (GST_BASE_TRANSFORM (self), TRUE);
}

static void
gst_gpu_loudness_class_init (GstGpuLoudnessClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstAudioFilterClass *filter_class = GST_AUDIO_FILTER_CLASS (klass);
  GstCaps *caps;

  GST_DEBUG_CATEGORY_INIT (gst_gpu_loudness_debug, "gpuloudness", 0,
      "EBU R128 loudness on the GPU");

  gobject_class->set_property = gst_gpu_loudness_set_property;
  gobject_class->get_property = gst_gpu_loudness_get_property;
  gobject_class->finalize = gst_gpu_loudness_finalize;

  g_object_class_install_property (gobject_class, PROP_MODE,
      g_param_spec_flags ("mode", "Mode",
          "What to measure (as ebur128level; read when caps are set)",
          GST_TYPE_GPU_LOUDNESS_MODE, DEFAULT_MODE,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_POST_MESSAGES,
      g_param_spec_boolean ("post-messages", "Post Messages",
          "Whether to post an ebur128-level element message every interval",
          DEFAULT_POST_MESSAGES,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_INTERVAL,
      g_param_spec_uint64 ("interval", "Interval",
          "Interval in nanoseconds between messages (at least 1 ms; read "
          "when caps are set)", MIN_INTERVAL, G_MAXUINT64 - 1,
          DEFAULT_INTERVAL, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_DEVICE_INDEX,
      g_param_spec_int ("device-index", "Device index",
          "Vulkan device to use (-1 = automatic: discrete > integrated > "
          "virtual > CPU, opened at the first buffer, and not at all for a "
          "light live stream measured on the host alone; 0 or more: that "
          "device, opened when the element starts); read when the element "
          "starts",
          -1, G_MAXINT, DEFAULT_DEVICE_INDEX,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));

  g_object_class_install_property (gobject_class, PROP_DEVICE_NAME,
      g_param_spec_string ("device-name", "Device name",
          "Name of the Vulkan device in use (NULL until it is chosen: the "
          "first buffer, or the start with a device-index; \""
          GST_GPU_FFT_HOST_DEVICE_NAME "\" for a live stream measured on "
          "the host alone; read while the device is being opened, it waits "
          "for it)", NULL, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  signals[SIGNAL_RESET] = g_signal_new_class_handler ("reset",
      G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST | G_SIGNAL_ACTION,
      G_CALLBACK (gst_gpu_loudness_reset_signal), NULL, NULL, NULL,
      G_TYPE_NONE, 0);

  caps = gst_caps_from_string (CAPS_STR);
  gst_audio_filter_class_add_pad_templates (filter_class, caps);
  gst_caps_unref (caps);

  element_class->change_state =
      GST_DEBUG_FUNCPTR (gst_gpu_loudness_change_state);
  trans_class->start = GST_DEBUG_FUNCPTR (gst_gpu_loudness_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_gpu_loudness_stop);
  trans_class->sink_event = GST_DEBUG_FUNCPTR (gst_gpu_loudness_sink_event);
  trans_class->transform_ip = GST_DEBUG_FUNCPTR (gst_gpu_loudness_transform_ip);
  trans_class->query = GST_DEBUG_FUNCPTR (gst_gpu_loudness_query);
  trans_class->passthrough_on_same_caps = TRUE;
  trans_class->transform_ip_on_passthrough = TRUE;
  filter_class->setup = GST_DEBUG_FUNCPTR (gst_gpu_loudness_setup);

  gst_element_class_set_static_metadata (element_class,
      "Loudness meter on the GPU (EBU R128)", "Filter/Analyzer/Audio",
      "Measures EBU R128 / ITU-R BS.1770-4 loudness (momentary, short-term, "
      "integrated, loudness range, sample and true peak) on a Vulkan device, "
      "with ebur128level's properties and messages", "gst-gpufft developers");
  gst_type_mark_as_plugin_api (GST_TYPE_GPU_LOUDNESS_MODE, 0);
}
