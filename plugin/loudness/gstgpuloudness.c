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
 * Every buffer passes through; only the part of it that lies in the
 * segment is measured (a buffer outside it is not, one across its edge in
 * part), as the analysers do.
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
 * every lock.
 *
 * Files: this one is the class (properties, the `reset` signal, caps and
 * channel weights, events, start and stop); gstgpuloudness-stream.c the
 * streaming path (the samples' conversion, the device's kernels made
 * beside the stream, batches, the interval marks, reset and drain);
 * gstgpuloudness-message.c the result path (the meter fed, the messages
 * built and handed to the poster); gstgpuloudness-private.h the instance,
 * which only these files see; gstgpuloudnessmeter.c the gating, windows
 * and range. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstgpuloudness-private.h"
#include "gstgpufftbands.h"
#include "gstgpuffthostbudget.h"

GST_DEBUG_CATEGORY (gst_gpu_loudness_debug);
#define GST_CAT_DEFAULT gst_gpu_loudness_debug

#define DEFAULT_MODE 0x3f
#define DEFAULT_INTERVAL GST_SECOND
#define MIN_INTERVAL GST_MSECOND
#define DEFAULT_POST_MESSAGES TRUE
#define DEFAULT_DEVICE_INDEX -1

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



static gboolean
gst_gpu_loudness_setup (GstAudioFilter * filter, const GstAudioInfo * info)
{
  GstGpuLoudness *self = GST_GPU_LOUDNESS (filter);
  guint c, mode;
  guint64 interval;
  GstGpuLoudnessMeter *meter;

  /* new caps: the stream so far is posted up to here (on the bus before
   * the caps go on, as at EOS and a flush), then a new meter */
  gst_gpu_loudness_stream_drain (self, TRUE);
  gst_gpu_fft_poster_wait (self->poster);
  gst_gpu_loudness_stream_clear (self);
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
  self->convert =
      gst_gpu_loudness_stream_converter_for (GST_AUDIO_INFO_FORMAT (info));
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
  gst_gpu_loudness_stream_reset (self);
  g_atomic_int_set (&self->reset_requested, 0);
  self->bad_samples = 0;
  self->warned_bad = FALSE;
  self->configured = TRUE;
  GST_DEBUG_OBJECT (self, "%u Hz, %u channels, blocks of %u frames, %u a "
      "batch at most, mode 0x%x", self->rate, self->channels,
      self->block_frames, self->max_blocks, mode);
  return TRUE;
}


static gboolean
gst_gpu_loudness_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  GstGpuLoudness *self = GST_GPU_LOUDNESS (trans);

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_EOS:
      /* (the messages reach the bus before EOS leaves) */
      gst_gpu_loudness_stream_drain (self, TRUE);
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
      gst_gpu_loudness_stream_drain (self, FALSE);
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

  gst_gpu_loudness_stream_clear (self);
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

  gst_gpu_loudness_stream_clear (self);
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

/* GstAudioFilter clips buffers to the segment before the transform, and
 * so drops those outside it: the audio passes through whole instead
 * (transform_ip measures only what lies in the segment), through
 * GstBaseTransform's own. */
static GstFlowReturn
gst_gpu_loudness_submit_input_buffer (GstBaseTransform * trans,
    gboolean is_discont, GstBuffer * input)
{
  GstBaseTransformClass *base =
      g_type_class_peek_static (GST_TYPE_BASE_TRANSFORM);

  return base->submit_input_buffer (trans, is_discont, input);
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
  trans_class->transform_ip =
      GST_DEBUG_FUNCPTR (gst_gpu_loudness_stream_transform_ip);
  trans_class->submit_input_buffer =
      GST_DEBUG_FUNCPTR (gst_gpu_loudness_submit_input_buffer);
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
