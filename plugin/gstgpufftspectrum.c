/* gpufftspectrum: a spectrum analyser that runs its FFTs on a Vulkan device.
 *
 * SECTION:element-gpufftspectrum
 *
 * Passes audio through untouched (in place, bit-exact, no latency) and posts
 * element messages with the Welch-averaged power spectrum (`spectrum`) and
 * the dominant frequency (`dominant-frequency`) of every interval.
 *
 *   gst-launch-1.0 audiotestsrc ! gpufftspectrum ! fakesink -m
 *
 * Framing: frame j covers samples [j*hop, j*hop + fft-size) counted from the
 * stream start or the last restart (DISCONT, flush, new segment, new caps).
 * Interval k covers [round (k*interval*rate/1e9), round ((k+1)*...)); a
 * frame belongs to the interval that holds its last sample; every frame is
 * analysed. An interval's messages are posted once it is complete (on EOS
 * and restarts: the partial interval), if it holds at least one frame.
 * Geometry properties (fft-size, hop-size, window, scaling, interval,
 * multi-channel, peaks, min/max-frequency, message-phase, batch-size) take
 * effect at the next interval boundary; the others at the next buffer.
 * device-index is read when the element starts (READY -> PAUSED).
 *
 * NaN / Inf samples: every frame is transformed on its own and a frame
 * holding a non-finite sample (in the analysed channel, or in any channel
 * when downmixing) is left out of its interval's average by the engine, so
 * it spoils no other frame and no other interval. The message's `frames`
 * says how many frames were averaged (the smallest count over channels);
 * an interval whose frames were all left out reads the threshold in every
 * bin and has no dominant frequency (0). The audio passes through as is.
 *
 * Buffers: empty buffers are ignored; a buffer's trailing bytes that do not
 * make a whole sample frame are ignored (as gst_audio_buffer_map does);
 * buffers without PTS continue the sample count (the first one after a
 * restart takes the end of what came before, else the segment start). A
 * timestamp more than 40 ms away from where the sample count puts it, and
 * a GAP event, restart the framing like a DISCONT. A buffer that cannot be
 * read (non-interleaved without GstAudioMeta) passes through untouched with
 * a WARNING message, and the framing restarts after it.
 *
 * The element never talks to Vulkan itself: everything goes through the
 * gpufft engine (gpufft.h).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstgpufftspectrum.h"
#include "gstgpufftspectrum-message.h"

#include <math.h>
#include <string.h>

GST_DEBUG_CATEGORY_STATIC (gst_gpu_fft_spectrum_debug);
#define GST_CAT_DEFAULT gst_gpu_fft_spectrum_debug

#define DEFAULT_FFT_SIZE 1024
#define DEFAULT_HOP_SIZE 0
#define DEFAULT_WINDOW GST_GPU_FFT_SPECTRUM_WINDOW_HANN
#define DEFAULT_SCALING GST_GPU_FFT_SPECTRUM_SCALING_SPECTRUM
#define DEFAULT_INTERVAL (GST_SECOND / 10)
#define MIN_INTERVAL GST_MSECOND
#define DEFAULT_THRESHOLD -90
#define DEFAULT_MULTI_CHANNEL FALSE
#define DEFAULT_PEAKS 1
#define DEFAULT_MIN_FREQUENCY 0.0
#define DEFAULT_MAX_FREQUENCY 0.0
#define DEFAULT_POST_MESSAGES TRUE
#define DEFAULT_MESSAGE_MAGNITUDE TRUE
#define DEFAULT_MESSAGE_PHASE FALSE
#define DEFAULT_MESSAGE_DOMINANT TRUE
#define DEFAULT_MESSAGE_FORMAT GST_GPU_FFT_SPECTRUM_MESSAGE_FORMAT_LIST
#define DEFAULT_BATCH_SIZE 0
#define DEFAULT_DEVICE_INDEX -1

#define MAX_HOP_SIZE (1 << 20)
#define MAX_BATCH_SIZE (1 << 20)

enum
{
  PROP_0,
  PROP_FFT_SIZE,
  PROP_HOP_SIZE,
  PROP_WINDOW,
  PROP_SCALING,
  PROP_INTERVAL,
  PROP_THRESHOLD,
  PROP_MULTI_CHANNEL,
  PROP_PEAKS,
  PROP_MIN_FREQUENCY,
  PROP_MAX_FREQUENCY,
  PROP_POST_MESSAGES,
  PROP_MESSAGE_MAGNITUDE,
  PROP_MESSAGE_PHASE,
  PROP_MESSAGE_DOMINANT,
  PROP_MESSAGE_FORMAT,
  PROP_BATCH_SIZE,
  PROP_DEVICE_INDEX,
  PROP_DEVICE_NAME,
  PROP_STATS
};

#define CAPS_STR \
  "audio/x-raw, " \
  "format = (string) { S16LE, S24LE, S32LE, F32LE, F64LE }, " \
  "rate = (int) [ 1, MAX ], " \
  "channels = (int) [ 1, MAX ], " \
  "layout = (string) { interleaved, non-interleaved }"

#define gst_gpu_fft_spectrum_parent_class parent_class
G_DEFINE_TYPE (GstGpuFftSpectrum, gst_gpu_fft_spectrum, GST_TYPE_AUDIO_FILTER);
GST_ELEMENT_REGISTER_DEFINE (gpufftspectrum, "gpufftspectrum", GST_RANK_NONE,
    GST_TYPE_GPU_FFT_SPECTRUM);

static void gst_gpu_fft_spectrum_set_property (GObject * object,
    guint prop_id, const GValue * value, GParamSpec * pspec);
static void gst_gpu_fft_spectrum_get_property (GObject * object,
    guint prop_id, GValue * value, GParamSpec * pspec);
static void gst_gpu_fft_spectrum_finalize (GObject * object);
static gboolean gst_gpu_fft_spectrum_start (GstBaseTransform * trans);
static gboolean gst_gpu_fft_spectrum_stop (GstBaseTransform * trans);
static gboolean gst_gpu_fft_spectrum_sink_event (GstBaseTransform * trans,
    GstEvent * event);
static GstFlowReturn gst_gpu_fft_spectrum_transform_ip (GstBaseTransform *
    trans, GstBuffer * buf);
static gboolean gst_gpu_fft_spectrum_setup (GstAudioFilter * filter,
    const GstAudioInfo * info);

/* ------------------------------------------------------------------------ */
/* class                                                                    */

static void
gst_gpu_fft_spectrum_class_init (GstGpuFftSpectrumClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstAudioFilterClass *filter_class = GST_AUDIO_FILTER_CLASS (klass);
  GstCaps *caps;
  const GParamFlags rw =
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING;

  GST_DEBUG_CATEGORY_INIT (gst_gpu_fft_spectrum_debug, "gpufftspectrum", 0,
      "GPU (Vulkan) FFT spectrum analyser");

  gobject_class->set_property = gst_gpu_fft_spectrum_set_property;
  gobject_class->get_property = gst_gpu_fft_spectrum_get_property;
  gobject_class->finalize = gst_gpu_fft_spectrum_finalize;

  g_object_class_install_property (gobject_class, PROP_FFT_SIZE,
      g_param_spec_uint ("fft-size", "FFT size",
          "Samples per frame: a power of two from 32 to 65536 (32, 64, 128, "
          "256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536); other "
          "values are refused. Bins: fft-size/2+1",
          0, G_MAXUINT, DEFAULT_FFT_SIZE, rw));
  g_object_class_install_property (gobject_class, PROP_HOP_SIZE,
      g_param_spec_uint ("hop-size", "Hop size",
          "Samples between the starts of consecutive frames (0 = fft-size/2)",
          0, MAX_HOP_SIZE, DEFAULT_HOP_SIZE, rw));
  g_object_class_install_property (gobject_class, PROP_WINDOW,
      g_param_spec_enum ("window", "Window",
          "Analysis window (periodic form, as scipy.signal.get_window)",
          GST_TYPE_GPU_FFT_SPECTRUM_WINDOW, DEFAULT_WINDOW, rw));
  g_object_class_install_property (gobject_class, PROP_SCALING,
      g_param_spec_enum ("scaling", "Scaling",
          "spectrum: dBFS, 10*log10(2*S) with scipy's 'spectrum' scaling (a "
          "full-scale sine on a bin reads 0 dB); density: 10*log10(D) with "
          "scipy's 'density' scaling (dB re full-scale^2/Hz)",
          GST_TYPE_GPU_FFT_SPECTRUM_SCALING, DEFAULT_SCALING, rw));
  g_object_class_install_property (gobject_class, PROP_INTERVAL,
      g_param_spec_uint64 ("interval", "Interval",
          "Interval of time between messages (in nanoseconds, at least 1 ms)",
          MIN_INTERVAL, G_MAXUINT64, DEFAULT_INTERVAL,
          rw | G_PARAM_LAX_VALIDATION));
  g_object_class_install_property (gobject_class, PROP_THRESHOLD,
      g_param_spec_int ("threshold", "Threshold",
          "Floor of the reported dB values (applied after averaging), and "
          "the level a peak must exceed", -1000, 1000, DEFAULT_THRESHOLD, rw));
  g_object_class_install_property (gobject_class, PROP_MULTI_CHANNEL,
      g_param_spec_boolean ("multi-channel", "Multichannel results",
          "Analyse each channel (TRUE) or the mean of the channels (FALSE)",
          DEFAULT_MULTI_CHANNEL, rw));
  g_object_class_install_property (gobject_class, PROP_PEAKS,
      g_param_spec_uint ("peaks", "Peaks",
          "How many peaks the dominant-frequency message lists "
          "(peak-frequencies/peak-magnitudes when more than 1)",
          1, GPUFFT_MAX_PEAKS, DEFAULT_PEAKS, rw));
  g_object_class_install_property (gobject_class, PROP_MIN_FREQUENCY,
      g_param_spec_double ("min-frequency", "Minimum frequency",
          "Lowest frequency of the peak search (Hz)",
          0.0, G_MAXDOUBLE, DEFAULT_MIN_FREQUENCY, rw));
  g_object_class_install_property (gobject_class, PROP_MAX_FREQUENCY,
      g_param_spec_double ("max-frequency", "Maximum frequency",
          "Highest frequency of the peak search (Hz, 0 = Nyquist)",
          0.0, G_MAXDOUBLE, DEFAULT_MAX_FREQUENCY, rw));
  g_object_class_install_property (gobject_class, PROP_POST_MESSAGES,
      g_param_spec_boolean ("post-messages", "Post messages",
          "Post the spectrum and dominant-frequency element messages",
          DEFAULT_POST_MESSAGES, rw));
  g_object_class_install_property (gobject_class, PROP_MESSAGE_MAGNITUDE,
      g_param_spec_boolean ("message-magnitude", "Magnitude",
          "Put the magnitudes (dB) in the spectrum message",
          DEFAULT_MESSAGE_MAGNITUDE, rw));
  g_object_class_install_property (gobject_class, PROP_MESSAGE_PHASE,
      g_param_spec_boolean ("message-phase", "Phase",
          "Put the phases (radians, of the interval's last frame) in the "
          "spectrum message", DEFAULT_MESSAGE_PHASE, rw));
  g_object_class_install_property (gobject_class, PROP_MESSAGE_DOMINANT,
      g_param_spec_boolean ("message-dominant", "Dominant frequency",
          "Post the dominant-frequency message", DEFAULT_MESSAGE_DOMINANT, rw));
  g_object_class_install_property (gobject_class, PROP_MESSAGE_FORMAT,
      g_param_spec_enum ("message-format", "Message format",
          "How magnitude and phase arrays are carried: list (GstValueList / "
          "GstValueArray of float) or bytes (GBytes of little-endian float32, "
          "channel-major)", GST_TYPE_GPU_FFT_SPECTRUM_MESSAGE_FORMAT,
          DEFAULT_MESSAGE_FORMAT, rw));
  g_object_class_install_property (gobject_class, PROP_BATCH_SIZE,
      g_param_spec_uint ("batch-size", "Batch size",
          "Most frames per GPU submission (0 = automatic)",
          0, MAX_BATCH_SIZE, DEFAULT_BATCH_SIZE, rw));
  g_object_class_install_property (gobject_class, PROP_DEVICE_INDEX,
      g_param_spec_int ("device-index", "Device index",
          "Vulkan device to use (-1 = automatic: discrete > integrated > "
          "virtual > CPU); read when the element starts",
          -1, G_MAXINT, DEFAULT_DEVICE_INDEX,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_DEVICE_NAME,
      g_param_spec_string ("device-name", "Device name",
          "Name of the Vulkan device in use (NULL before the first start)",
          NULL, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  g_object_class_install_property (gobject_class, PROP_STATS,
      g_param_spec_boxed ("stats", "Statistics",
          "gpufftspectrum-stats: dropped-intervals (guint64: intervals of a "
          "live stream left unanalysed because the GPU fell behind, since "
          "the element started), device-submissions and device-batches "
          "(guint64: GPU submissions made by the device's scheduler for "
          "every element on the device, and the element batches they "
          "carried, since the device was opened; 0 before start), "
          "device-max-batches (most in one submission), device-record-ns, "
          "device-wait-ns, device-gpu-ns, device-deliver-ns (guint64 ns: "
          "the scheduler's time recording and submitting, waiting for the "
          "device, the device's own time, and delivering results), "
          "device-plans and device-plan-ns (plans made on the device and "
          "the time spent making them)",
          GST_TYPE_STRUCTURE, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  gst_element_class_set_static_metadata (element_class,
      "GPU spectrum analyzer", "Filter/Analyzer/Audio",
      "Posts Welch-averaged spectra and dominant frequencies of audio, "
      "computed on a Vulkan device", "gst-gpufft developers");

  caps = gst_caps_from_string (CAPS_STR);
  gst_audio_filter_class_add_pad_templates (filter_class, caps);
  gst_caps_unref (caps);

  trans_class->start = GST_DEBUG_FUNCPTR (gst_gpu_fft_spectrum_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_gpu_fft_spectrum_stop);
  trans_class->sink_event = GST_DEBUG_FUNCPTR (gst_gpu_fft_spectrum_sink_event);
  trans_class->transform_ip =
      GST_DEBUG_FUNCPTR (gst_gpu_fft_spectrum_transform_ip);
  trans_class->passthrough_on_same_caps = TRUE;
  trans_class->transform_ip_on_passthrough = TRUE;
  filter_class->setup = GST_DEBUG_FUNCPTR (gst_gpu_fft_spectrum_setup);

  gst_type_mark_as_plugin_api (GST_TYPE_GPU_FFT_SPECTRUM_WINDOW, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_GPU_FFT_SPECTRUM_SCALING, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_GPU_FFT_SPECTRUM_MESSAGE_FORMAT, 0);
}

static void
gst_gpu_fft_spectrum_init (GstGpuFftSpectrum * self)
{
  GstGpuFftSpectrumSettings *s = &self->settings;

  s->fft_size = DEFAULT_FFT_SIZE;
  s->hop_size = DEFAULT_HOP_SIZE;
  s->window = DEFAULT_WINDOW;
  s->scaling = DEFAULT_SCALING;
  s->interval = DEFAULT_INTERVAL;
  s->threshold = DEFAULT_THRESHOLD;
  s->multi_channel = DEFAULT_MULTI_CHANNEL;
  s->peaks = DEFAULT_PEAKS;
  s->min_frequency = DEFAULT_MIN_FREQUENCY;
  s->max_frequency = DEFAULT_MAX_FREQUENCY;
  s->post_messages = DEFAULT_POST_MESSAGES;
  s->message_magnitude = DEFAULT_MESSAGE_MAGNITUDE;
  s->message_phase = DEFAULT_MESSAGE_PHASE;
  s->message_dominant = DEFAULT_MESSAGE_DOMINANT;
  s->message_format = DEFAULT_MESSAGE_FORMAT;
  s->batch_size = DEFAULT_BATCH_SIZE;
  s->device_index = DEFAULT_DEVICE_INDEX;
  self->geometry_gen = 1;

  self->base_pts = GST_CLOCK_TIME_NONE;
  self->next_pts = GST_CLOCK_TIME_NONE;
  self->is_live = -1;
  gst_gpu_fft_store_init (&self->store, 2, 1, FALSE);
}

static void
gst_gpu_fft_spectrum_finalize (GObject * object)
{
  GstGpuFftSpectrum *self = GST_GPU_FFT_SPECTRUM (object);

  if (self->plan)
    gpufft_plan_free (self->plan);
  if (self->ctx)
    gpufft_context_unref (self->ctx);
  gst_gpu_fft_store_clear (&self->store);
  g_free (self->batch_groups);
  g_free (self->engine_groups);
  g_free (self->seg_planes);
  g_free (self->device_name);

  G_OBJECT_CLASS (parent_class)->finalize (object);
}

/* ------------------------------------------------------------------------ */
/* properties: only the object lock, never waiting on the streaming thread  */

static void
gst_gpu_fft_spectrum_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstGpuFftSpectrum *self = GST_GPU_FFT_SPECTRUM (object);
  GstGpuFftSpectrumSettings *s = &self->settings;
  GstGpuFftSpectrumSettings old;
  gboolean geometry = TRUE;

  if (prop_id == PROP_FFT_SIZE && !gpufft_size_is_valid (g_value_get_uint
          (value))) {
    g_warning ("gpufftspectrum: fft-size %u refused: it must be a power of "
        "two from %u to %u (32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, "
        "16384, 32768 or 65536); keeping %u", g_value_get_uint (value),
        GPUFFT_MIN_SIZE, GPUFFT_MAX_SIZE, s->fft_size);
    return;
  }

  GST_OBJECT_LOCK (self);
  old = *s;
  switch (prop_id) {
    case PROP_FFT_SIZE:
      s->fft_size = g_value_get_uint (value);
      break;
    case PROP_HOP_SIZE:
      s->hop_size = g_value_get_uint (value);
      break;
    case PROP_WINDOW:
      s->window = g_value_get_enum (value);
      break;
    case PROP_SCALING:
      s->scaling = g_value_get_enum (value);
      break;
    case PROP_INTERVAL:
      s->interval = MAX (g_value_get_uint64 (value), MIN_INTERVAL);
      break;
    case PROP_MULTI_CHANNEL:
      s->multi_channel = g_value_get_boolean (value);
      break;
    case PROP_PEAKS:
      s->peaks = g_value_get_uint (value);
      break;
    case PROP_MIN_FREQUENCY:
      s->min_frequency = g_value_get_double (value);
      break;
    case PROP_MAX_FREQUENCY:
      s->max_frequency = g_value_get_double (value);
      break;
    case PROP_MESSAGE_PHASE:
      s->message_phase = g_value_get_boolean (value);
      break;
    case PROP_BATCH_SIZE:
      s->batch_size = g_value_get_uint (value);
      break;
    default:
      geometry = FALSE;
      switch (prop_id) {
        case PROP_THRESHOLD:
          s->threshold = g_value_get_int (value);
          break;
        case PROP_POST_MESSAGES:
          s->post_messages = g_value_get_boolean (value);
          break;
        case PROP_MESSAGE_MAGNITUDE:
          s->message_magnitude = g_value_get_boolean (value);
          break;
        case PROP_MESSAGE_DOMINANT:
          s->message_dominant = g_value_get_boolean (value);
          break;
        case PROP_MESSAGE_FORMAT:
          s->message_format = g_value_get_enum (value);
          break;
        case PROP_DEVICE_INDEX:
          s->device_index = g_value_get_int (value);
          break;
        default:
          G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
          break;
      }
      break;
  }
  /* (setting a value it already has changes nothing, not even batching) */
  if (geometry && memcmp (&old, s, sizeof (old)) != 0)
    self->geometry_gen++;
  GST_OBJECT_UNLOCK (self);
}

static void
gst_gpu_fft_spectrum_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstGpuFftSpectrum *self = GST_GPU_FFT_SPECTRUM (object);
  GstGpuFftSpectrumSettings *s = &self->settings;

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_FFT_SIZE:
      g_value_set_uint (value, s->fft_size);
      break;
    case PROP_HOP_SIZE:
      g_value_set_uint (value, s->hop_size);
      break;
    case PROP_WINDOW:
      g_value_set_enum (value, s->window);
      break;
    case PROP_SCALING:
      g_value_set_enum (value, s->scaling);
      break;
    case PROP_INTERVAL:
      g_value_set_uint64 (value, s->interval);
      break;
    case PROP_THRESHOLD:
      g_value_set_int (value, s->threshold);
      break;
    case PROP_MULTI_CHANNEL:
      g_value_set_boolean (value, s->multi_channel);
      break;
    case PROP_PEAKS:
      g_value_set_uint (value, s->peaks);
      break;
    case PROP_MIN_FREQUENCY:
      g_value_set_double (value, s->min_frequency);
      break;
    case PROP_MAX_FREQUENCY:
      g_value_set_double (value, s->max_frequency);
      break;
    case PROP_POST_MESSAGES:
      g_value_set_boolean (value, s->post_messages);
      break;
    case PROP_MESSAGE_MAGNITUDE:
      g_value_set_boolean (value, s->message_magnitude);
      break;
    case PROP_MESSAGE_PHASE:
      g_value_set_boolean (value, s->message_phase);
      break;
    case PROP_MESSAGE_DOMINANT:
      g_value_set_boolean (value, s->message_dominant);
      break;
    case PROP_MESSAGE_FORMAT:
      g_value_set_enum (value, s->message_format);
      break;
    case PROP_BATCH_SIZE:
      g_value_set_uint (value, s->batch_size);
      break;
    case PROP_DEVICE_INDEX:
      g_value_set_int (value, s->device_index);
      break;
    case PROP_DEVICE_NAME:
      g_value_set_string (value, self->device_name);
      break;
    case PROP_STATS:{
      GpufftContextStats st = { 0 };

      /* (ctx is set and cleared by start/stop, under this lock) */
      if (self->ctx)
        gpufft_context_get_stats (self->ctx, &st);
      g_value_take_boxed (value, gst_structure_new ("gpufftspectrum-stats",
              "dropped-intervals", G_TYPE_UINT64,
              self->dropped_total,
              "device-submissions", G_TYPE_UINT64, st.submissions,
              "device-batches", G_TYPE_UINT64, st.batches,
              "device-max-batches", G_TYPE_UINT64, st.max_batches,
              "device-record-ns", G_TYPE_UINT64, st.record_ns,
              "device-wait-ns", G_TYPE_UINT64, st.wait_ns,
              "device-gpu-ns", G_TYPE_UINT64, st.gpu_ns,
              "device-deliver-ns", G_TYPE_UINT64, st.deliver_ns,
              "device-plans", G_TYPE_UINT64, st.plans,
              "device-plan-ns", G_TYPE_UINT64, st.plan_ns, NULL));
      break;
    }
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

/* Copies the settings (and their geometry generation) under the lock. */
static void
read_settings (GstGpuFftSpectrum * self, GstGpuFftSpectrumSettings * out,
    guint * gen)
{
  GST_OBJECT_LOCK (self);
  *out = self->settings;
  *gen = self->geometry_gen;
  GST_OBJECT_UNLOCK (self);
}

static void
read_live_settings (GstGpuFftSpectrum * self)
{
  read_settings (self, &self->live, &self->live_gen);
}

/* ------------------------------------------------------------------------ */
/* errors                                                                   */

static void
post_engine_error (GstGpuFftSpectrum * self, const gchar * what,
    const GError * error)
{
  /* the streaming thread and the completion thread may both see one
   * device failure: one error message */
  if (!g_atomic_int_compare_and_exchange (&self->error_posted, 0, 1))
    return;
  if (error && error->domain == GPUFFT_ERROR &&
      error->code == GPUFFT_ERROR_DEVICE_LOST) {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
        ("The Vulkan device was lost: %s", error->message),
        ("%s failed; restart the pipeline (a new device context is made at "
            "the next start)", what));
  } else {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
        ("%s", error ? error->message : "GPU FFT engine failure"),
        ("%s failed", what));
  }
}

/* ------------------------------------------------------------------------ */
/* time                                                                     */

/* A buffer timestamp further than this from where the sample count puts it
 * is a discontinuity (as audiobasesink's default tolerance). */
#define PTS_TOLERANCE (40 * GST_MSECOND)

static GstClockTime
sample_to_time (GstGpuFftSpectrum * self, guint64 sample)
{
  return self->base_pts + gst_util_uint64_scale_round (sample, GST_SECOND,
      GST_AUDIO_INFO_RATE (&self->info));
}

/* ------------------------------------------------------------------------ */
/* results and messages                                                     */

/* The engine's result function: runs on the device's completion thread,
 * in interval order, with no lock held. The group's tag is the message
 * parameters computed when its batch was submitted (NULL: no message). */
static void
on_group_result (const GpufftGroupResult * result, gpointer user_data)
{
  GstGpuFftSpectrum *self = user_data;
  GstGpuFftMessageParams *p = result->tag;
  GstMessage *spectrum = NULL, *dominant = NULL;

  if (result->failed) {
    GError *error = NULL;

    /* the plan's error says why */
    if (self->plan && gpufft_plan_collect (self->plan, FALSE, NULL, NULL,
            &error) < 0) {
      post_engine_error (self, "Analysing on the GPU", error);
      g_clear_error (&error);
    }
    g_free (p);
    return;
  }
  if (p == NULL)
    return;
  GST_LOG_OBJECT (self, "interval at %" GST_TIME_FORMAT ": %u frames",
      GST_TIME_ARGS (p->timestamp), result->n_frames);
  if (result->n_frames > 0) {
    spectrum = gst_message_new_element (GST_OBJECT (self),
        gst_gpu_fft_spectrum_build_spectrum (p, result));
    if (p->dominant)
      dominant = gst_message_new_element (GST_OBJECT (self),
          gst_gpu_fft_spectrum_build_dominant (p, result));
  }
  g_free (p);
  if (spectrum)
    gst_element_post_message (GST_ELEMENT (self), spectrum);
  if (dominant)
    gst_element_post_message (GST_ELEMENT (self), dominant);
}

/* Waits until every interval handed to the GPU has been posted: only where
 * ordering demands it (EOS, flush, caps, a new plan, stop). */
static gboolean
drain (GstGpuFftSpectrum * self)
{
  GError *error = NULL;

  if (self->plan == NULL)
    return TRUE;
  if (gpufft_plan_collect (self->plan, TRUE, NULL, NULL, &error) < 0) {
    post_engine_error (self, "Analysing on the GPU", error);
    g_clear_error (&error);
    return FALSE;
  }
  return TRUE;
}

/* ------------------------------------------------------------------------ */
/* plan and geometry                                                        */

/* batch-size 0: room for two intervals or two buffers (the first buffer's
 * size), whichever is more, within AUTO_BATCH_BYTES of samples: intervals
 * are handed to the GPU when they close, so a batch rarely holds more
 * than one buffer's worth of them, and the engine's 8 slots of this size
 * bound the plan's memory in flight. */
#define AUTO_BATCH_BYTES (4u << 20)

static guint
auto_batch_frames (GstGpuFftSpectrum * self,
    const GstGpuFftSpectrumSettings * s, guint hop)
{
  guint64 rate = GST_AUDIO_INFO_RATE (&self->info);
  guint64 per_interval = gst_util_uint64_scale_ceil (s->interval, rate,
      GST_SECOND) / hop + 2;
  guint64 per_buffer = self->buffer_hint / hop + 2;
  guint64 samples = AUTO_BATCH_BYTES / GST_AUDIO_INFO_BPF (&self->info);
  guint64 fit = samples > s->fft_size ? (samples - s->fft_size) / hop + 1 : 1;

  return (guint) MAX (1, MIN (MAX (2 * MAX (per_interval, per_buffer), 16),
          fit));
}

static void
make_plan_config (GstGpuFftSpectrum * self,
    const GstGpuFftSpectrumSettings * s, GpufftPlanConfig * c,
    guint * min_bin, guint * max_bin)
{
  const GstAudioInfo *info = &self->info;
  gint rate = GST_AUDIO_INFO_RATE (info);
  guint nyq = s->fft_size / 2;
  gdouble lo, hi;

  memset (c, 0, sizeof (*c));
  gpufft_plan_config_init (c);
  c->fft_size = s->fft_size;
  c->hop = s->hop_size ? s->hop_size : s->fft_size / 2;
  c->window = (GpufftWindow) s->window;
  c->format = self->format;
  c->channels = GST_AUDIO_INFO_CHANNELS (info);
  c->planar = GST_AUDIO_INFO_LAYOUT (info) == GST_AUDIO_LAYOUT_NON_INTERLEAVED;
  c->downmix = !s->multi_channel;
  c->scaling = (GpufftScaling) s->scaling;
  c->rate = rate;
  c->max_frames = s->batch_size ? s->batch_size :
      auto_batch_frames (self, s, c->hop);
  c->max_groups = 0;
  c->n_peaks = s->peaks;
  c->complex_out = s->message_phase;
  c->output_db = TRUE;
  c->db_offset = s->scaling == GST_GPU_FFT_SPECTRUM_SCALING_SPECTRUM ?
      10.0 * log10 (2.0) : 0.0;

  /* peak search range in bins: [ceil (min f), floor (max f)] */
  lo = ceil (s->min_frequency * s->fft_size / rate - 1e-9);
  hi = s->max_frequency > 0.0 ?
      floor (s->max_frequency * s->fft_size / rate + 1e-9) : nyq;
  *min_bin = (guint) MIN (lo, (gdouble) nyq + 1);
  *max_bin = (guint) MIN (hi, (gdouble) nyq);
  if (*min_bin <= *max_bin && *max_bin > 0) {
    c->peak_min_bin = *min_bin;
    c->peak_max_bin = *max_bin;
  } else {
    /* empty range or DC only: the engine searches everything and the
     * message filters */
    c->peak_min_bin = 0;
    c->peak_max_bin = nyq;
  }
}

static gboolean
plan_config_equal (const GpufftPlanConfig * a, const GpufftPlanConfig * b)
{
  return a->fft_size == b->fft_size && a->hop == b->hop &&
      a->window == b->window && a->format == b->format &&
      a->channels == b->channels && a->planar == b->planar &&
      a->downmix == b->downmix && a->scaling == b->scaling &&
      a->rate == b->rate && a->max_frames == b->max_frames &&
      a->max_groups == b->max_groups && a->n_peaks == b->n_peaks &&
      a->peak_min_bin == b->peak_min_bin &&
      a->peak_max_bin == b->peak_max_bin &&
      a->complex_out == b->complex_out && a->output_db == b->output_db &&
      a->db_offset == b->db_offset;
}

/* Applies the current settings: at a restart (framing from sample 0) or at
 * the interval boundary the framing stopped at. Rebuilds the plan when its
 * configuration changed. */
static gboolean
apply_settings (GstGpuFftSpectrum * self, gboolean restart)
{
  GstGpuFftSpectrumSettings s;
  GpufftPlanConfig config;
  guint gen, min_bin, max_bin;

  read_settings (self, &s, &gen);
  make_plan_config (self, &s, &config, &min_bin, &max_bin);

  if (self->plan && !plan_config_equal (&config, &self->plan_config)) {
    if (!drain (self))
      return FALSE;
    gpufft_plan_free (self->plan);
    self->plan = NULL;
  }
  if (self->plan == NULL) {
    GError *error = NULL;

    GST_DEBUG_OBJECT (self, "new plan: N %u hop %u window %d channels %u%s "
        "%s rate %g batch %u peaks %u [%u, %u]%s", config.fft_size,
        config.hop, config.window, config.channels,
        config.planar ? " planar" : "", config.downmix ? "downmix" : "multi",
        config.rate, config.max_frames, config.n_peaks, config.peak_min_bin,
        config.peak_max_bin, config.complex_out ? " complex" : "");
    self->plan = gpufft_plan_new (self->ctx, &config, &error);
    if (self->plan == NULL) {
      post_engine_error (self, "Creating the GPU FFT plan", error);
      g_clear_error (&error);
      self->running = FALSE;    /* no plan: the next buffer starts over */
      return FALSE;
    }
    gpufft_plan_set_result_func (self->plan, on_group_result, self);
    self->plan_config = config;
    self->max_frames = MAX (gpufft_plan_get_max_frames (self->plan), 1);
    self->max_groups = MAX (gpufft_plan_get_max_groups (self->plan), 1);
    self->batch_groups = g_renew (GstGpuFftBatchGroup, self->batch_groups,
        self->max_groups);
    self->engine_groups = g_renew (GpufftGroup, self->engine_groups,
        self->max_groups);
    GST_DEBUG_OBJECT (self, "plan: %u frames, %u groups per batch",
        self->max_frames, self->max_groups);
  }
  self->min_bin = min_bin;
  self->max_bin = max_bin;

  if (restart)
    gst_gpu_fft_framing_init (&self->framing, config.fft_size, config.hop,
        GST_AUDIO_INFO_RATE (&self->info), s.interval);
  else
    gst_gpu_fft_framing_set_geometry (&self->framing, config.fft_size,
        config.hop, s.interval);
  self->applied_gen = gen;
  return TRUE;
}

/* ------------------------------------------------------------------------ */
/* batches                                                                  */

/* The message parameters of a closing interval, computed now (the
 * segment, settings and plan in force) and handed to the engine as the
 * group's tag; NULL when no message is to be posted. */
static GstGpuFftMessageParams *
make_message_params (GstGpuFftSpectrum * self, const GstGpuFftBatchGroup * g)
{
  const GstGpuFftSpectrumSettings *live = &self->live;
  GstSegment *segment = &GST_BASE_TRANSFORM (self)->segment;
  GstGpuFftMessageParams *p;

  if (!live->post_messages)
    return NULL;
  p = g_new0 (GstGpuFftMessageParams, 1);
  p->timestamp = sample_to_time (self, g->start);
  p->duration = sample_to_time (self, g->end) - p->timestamp;
  if (segment->format == GST_FORMAT_TIME) {
    p->stream_time = gst_segment_to_stream_time (segment, GST_FORMAT_TIME,
        p->timestamp);
    p->running_time = gst_segment_to_running_time (segment, GST_FORMAT_TIME,
        p->timestamp);
  } else {
    /* a non-TIME segment (e.g. appsrc in bytes): no conversion applies */
    p->stream_time = p->running_time = p->timestamp;
  }
  p->rate = GST_AUDIO_INFO_RATE (&self->info);
  p->fft_size = self->plan_config.fft_size;
  p->hop = self->plan_config.hop;
  p->window = self->plan_config.window;
  p->scaling = self->plan_config.scaling;
  p->multi_channel = !self->plan_config.downmix;
  p->format = live->message_format;
  p->magnitude = live->message_magnitude;
  p->phase = live->message_phase;
  p->db_offset = self->plan_config.db_offset;
  p->threshold = live->threshold;
  p->min_bin = self->min_bin;
  p->max_bin = self->max_bin;
  p->n_peaks = self->plan_config.n_peaks;
  p->dominant = live->message_dominant;
  p->dropped = self->dropped_pending;
  return p;
}

/* Live input whose analysis is behind: the batch's intervals are not
 * analysed (the audio passes on time); counted in the next message, with a
 * warning at most every 10 s. */
#define DROP_WARNING_INTERVAL_US (10 * G_USEC_PER_SEC)

static void
drop_intervals (GstGpuFftSpectrum * self, const GstGpuFftBatchPlan * bp)
{
  guint i, n = 0;
  gint64 now = g_get_monotonic_time ();

  for (i = 0; i < bp->n_groups; i++)
    n += bp->groups[i].close ? 1 : 0;
  self->dropped_pending += n;
  GST_OBJECT_LOCK (self);       /* (read by the stats property) */
  self->dropped_total += n;
  GST_OBJECT_UNLOCK (self);
  GST_DEBUG_OBJECT (self, "GPU behind: %u intervals dropped", n);
  if (self->drop_warned_at == 0
      || now - self->drop_warned_at >= DROP_WARNING_INTERVAL_US) {
    self->drop_warned_at = now;
    GST_ELEMENT_WARNING (self, RESOURCE, BUSY,
        ("The GPU falls behind the live stream: intervals of analysis are "
            "dropped (the audio passes on time)"),
        ("%" G_GUINT64_FORMAT " intervals dropped so far; the next message "
            "says how many in its `dropped` field", self->dropped_total));
  }
}

/* Hands one planned batch to the engine. Its span comes from the store
 * (samples before `pos`) and from the current input (`planes`, n samples
 * from `pos`). Posts the messages of the groups it closes. */
static gboolean
submit_batch (GstGpuFftSpectrum * self, const GstGpuFftBatchPlan * bp,
    guint64 pos, gpointer const *planes, gsize n)
{
  const GstAudioInfo *info = &self->info;
  guint channels = GST_AUDIO_INFO_CHANNELS (info);
  gboolean planar = self->plan_config.planar;
  gsize bps = GST_AUDIO_INFO_BPS (info);
  GpufftSegment segs[2];
  GpufftBatch batch;
  GError *error = NULL;
  guint64 s0 = bp->span_start;
  guint64 s1 = s0 + gst_gpu_fft_framing_span (&self->framing, bp->n_frames);
  guint i, c;

  /* (the framing was updated by the planner; its N and hop are those the
   * batch was planned with) */
  memset (&batch, 0, sizeof (batch));
  memset (segs, 0, sizeof (segs));
  if (bp->n_frames > 0) {
    if (s0 < pos) {
      GpufftSegment *seg = &segs[batch.n_segments++];

      if (s0 < self->store.start || pos > gst_gpu_fft_store_end (&self->store)) {
        GST_ELEMENT_ERROR (self, CORE, FAILED, (NULL),
            ("internal: samples %" G_GUINT64_FORMAT "..%" G_GUINT64_FORMAT
                " not stored", s0, pos));
        return FALSE;
      }
      seg->n_samples = MIN (pos, s1) - s0;
      if (planar) {
        for (c = 0; c < channels; c++)
          self->seg_planes[c] = gst_gpu_fft_store_at (&self->store, c, s0);
        seg->planes = self->seg_planes;
      } else {
        seg->data = gst_gpu_fft_store_at (&self->store, 0, s0);
      }
    }
    if (s1 > pos) {
      GpufftSegment *seg = &segs[batch.n_segments++];
      guint64 from = MAX (s0, pos);
      gsize off = (gsize) (from - pos);

      if (s1 > pos + n) {
        GST_ELEMENT_ERROR (self, CORE, FAILED, (NULL),
            ("internal: batch beyond the input"));
        return FALSE;
      }
      seg->n_samples = s1 - from;
      if (planar) {
        for (c = 0; c < channels; c++)
          self->seg_planes[channels + c] =
              (const guint8 *) planes[c] + off * bps;
        seg->planes = self->seg_planes + channels;
      } else {
        seg->data = (const guint8 *) planes[0] + off * bps * channels;
      }
    }
  }

  for (i = 0; i < bp->n_groups; i++) {
    self->engine_groups[i].n_frames = bp->groups[i].n_frames;
    self->engine_groups[i].close = bp->groups[i].close;
    self->engine_groups[i].tag = bp->groups[i].close ?
        make_message_params (self, &bp->groups[i]) : NULL;
  }
  batch.segments = segs;
  batch.n_frames = bp->n_frames;
  batch.groups = self->engine_groups;
  batch.n_groups = bp->n_groups;
  batch.db_floor = (gfloat) self->live.threshold;
  /* live: never hold the audio for the GPU */
  batch.no_wait = self->is_live > 0;

  GST_LOG_OBJECT (self, "batch: %u frames from %" G_GUINT64_FORMAT
      ", %u groups%s", bp->n_frames, s0, bp->n_groups,
      bp->closes ? " (closing)" : "");
  if (gpufft_plan_submit (self->plan, &batch, &error)) {
    self->dropped_pending = 0;  /* (carried by the tags just handed over) */
    return TRUE;
  }
  for (i = 0; i < bp->n_groups; i++)
    g_free (self->engine_groups[i].tag);
  if (g_error_matches (error, GPUFFT_ERROR, GPUFFT_ERROR_BUSY)) {
    g_clear_error (&error);
    drop_intervals (self, bp);
    return TRUE;
  }
  post_engine_error (self, "Submitting a GPU batch", error);
  g_clear_error (&error);
  return FALSE;
}

#define HANDOVER_BYTES (256u << 10)

/* Runs the planner over what was received up to `avail_end` (the input
 * being [pos, pos + n)), submitting every batch that is due. */
static gboolean
run_batches (GstGpuFftSpectrum * self, guint64 avail_end, gboolean flush,
    guint64 pos, gpointer const *planes, gsize n)
{
  gboolean stop = !flush && self->live_gen != self->applied_gen;

  for (;;) {
    GstGpuFftBatchPlan bp;

    bp.groups = self->batch_groups;
    gst_gpu_fft_framing_next_batch (&self->framing, avail_end, flush, stop,
        self->max_frames, self->max_groups, &bp);
    if (bp.submit && !submit_batch (self, &bp, pos, planes, n))
      return FALSE;
    if (bp.boundary) {
      GST_DEBUG_OBJECT (self, "settings changed: applying them at sample %"
          G_GUINT64_FORMAT,
          gst_gpu_fft_framing_current_boundary (&self->framing));
      if (!apply_settings (self, FALSE))
        return FALSE;
      stop = FALSE;
      continue;
    }
    if (!bp.submit || bp.flushed)
      break;
  }

  /* batch-size 0 (automatic), and at least HANDOVER_BYTES of samples
   * waiting (big buffers, long intervals): hand the complete frames of the
   * open interval over now rather than keep their samples until the
   * interval ends: the store then holds less than a frame and a hop, so
   * each sample is copied once (into staging), and the GPU works while the
   * stream goes on. Smaller buffers wait for the interval to close: one
   * batch per interval, whatever the buffer size. */
  if (!flush && !stop && self->live.batch_size == 0
      && (avail_end - self->framing.next_start) *
      GST_AUDIO_INFO_BPF (&self->info) >= HANDOVER_BYTES
      && avail_end >= self->framing.next_start + self->framing.fft_size) {
    guint64 ready = (avail_end - self->framing.next_start -
        self->framing.fft_size) / self->framing.hop + 1;
    GstGpuFftBatchPlan bp;

    bp.groups = self->batch_groups;
    gst_gpu_fft_framing_next_batch (&self->framing, avail_end, FALSE, FALSE,
        (guint) MIN (ready, self->max_frames), self->max_groups, &bp);
    if (bp.submit && !submit_batch (self, &bp, pos, planes, n))
      return FALSE;
  }
  return TRUE;
}

/* Posts the pending interval (if it holds frames) and restarts the
 * framing: nothing before can reach a frame after. */
static gboolean
flush_and_restart (GstGpuFftSpectrum * self)
{
  gboolean ok = TRUE;

  if (self->running && self->plan) {
    GST_DEBUG_OBJECT (self, "restart after %" G_GUINT64_FORMAT " samples",
        self->received);
    ok = run_batches (self, self->received, TRUE, self->received, NULL, 0);
    self->next_pts = sample_to_time (self, self->received);
  }
  self->running = FALSE;
  self->received = 0;
  gst_gpu_fft_store_reset (&self->store, 0);
  return ok;
}

/* ------------------------------------------------------------------------ */
/* GstBaseTransform / GstAudioFilter                                        */

static gboolean
gst_gpu_fft_spectrum_start (GstBaseTransform * trans)
{
  GstGpuFftSpectrum *self = GST_GPU_FFT_SPECTRUM (trans);
  GpufftContext *ctx;
  GError *error = NULL;
  gint index;

  GST_OBJECT_LOCK (self);
  index = self->settings.device_index;
  GST_OBJECT_UNLOCK (self);

  ctx = gpufft_context_get (index, &error);
  if (ctx == NULL) {
    gboolean missing = error && error->domain == GPUFFT_ERROR &&
        (error->code == GPUFFT_ERROR_NO_VULKAN ||
        error->code == GPUFFT_ERROR_NO_DEVICE ||
        error->code == GPUFFT_ERROR_DEVICE_INDEX ||
        error->code == GPUFFT_ERROR_NO_COMPUTE_QUEUE);

    if (missing)
      GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND,
          ("%s", error->message), ("device-index %d", index));
    else
      GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
          ("%s", error ? error->message : "Cannot open a Vulkan device"),
          ("device-index %d", index));
    g_clear_error (&error);
    return FALSE;
  }

  GST_OBJECT_LOCK (self);
  self->ctx = ctx;              /* (under the lock for the stats property) */
  g_free (self->device_name);
  self->device_name = g_strdup (gpufft_context_get_device_name (ctx));
  self->dropped_total = 0;
  GST_OBJECT_UNLOCK (self);
  GST_INFO_OBJECT (self, "using Vulkan device %d: %s",
      gpufft_context_get_device_index (self->ctx),
      gpufft_context_get_device_name (self->ctx));
  g_object_notify (G_OBJECT (self), "device-name");

  self->running = FALSE;
  self->received = 0;
  self->next_pts = GST_CLOCK_TIME_NONE;
  self->is_live = -1;
  self->dropped_pending = 0;
  self->drop_warned_at = 0;
  g_atomic_int_set (&self->error_posted, 0);
  return TRUE;
}

static gboolean
gst_gpu_fft_spectrum_stop (GstBaseTransform * trans)
{
  GstGpuFftSpectrum *self = GST_GPU_FFT_SPECTRUM (trans);
  GpufftContext *ctx;

  if (self->plan) {
    gpufft_plan_free (self->plan);
    self->plan = NULL;
  }
  GST_OBJECT_LOCK (self);
  ctx = self->ctx;
  self->ctx = NULL;
  GST_OBJECT_UNLOCK (self);
  gpufft_context_unref (ctx);
  gst_gpu_fft_store_clear (&self->store);
  self->is_live = -1;
  self->buffer_hint = 0;
  self->running = FALSE;
  self->received = 0;
  self->have_format = FALSE;
  self->next_pts = GST_CLOCK_TIME_NONE;
  return TRUE;
}

static gboolean
gst_gpu_fft_spectrum_setup (GstAudioFilter * filter, const GstAudioInfo * info)
{
  GstGpuFftSpectrum *self = GST_GPU_FFT_SPECTRUM (filter);
  guint channels = GST_AUDIO_INFO_CHANNELS (info);
  GpufftFormat format;

  if (channels < 1 || channels > GPUFFT_MAX_CHANNELS) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("%u channels: gpufftspectrum handles at most %u", channels,
            GPUFFT_MAX_CHANNELS), (NULL));
    return FALSE;
  }
  switch (GST_AUDIO_INFO_FORMAT (info)) {
    case GST_AUDIO_FORMAT_S16LE:
      format = GPUFFT_FORMAT_S16;
      break;
    case GST_AUDIO_FORMAT_S24LE:
      format = GPUFFT_FORMAT_S24;
      break;
    case GST_AUDIO_FORMAT_S32LE:
      format = GPUFFT_FORMAT_S32;
      break;
    case GST_AUDIO_FORMAT_F32LE:
      format = GPUFFT_FORMAT_F32;
      break;
    case GST_AUDIO_FORMAT_F64LE:
      format = GPUFFT_FORMAT_F64;
      break;
    default:
      GST_ELEMENT_ERROR (self, STREAM, FORMAT, (NULL),
          ("unsupported format %s",
              gst_audio_format_to_string (GST_AUDIO_INFO_FORMAT (info))));
      return FALSE;
  }

  /* new caps: the pending interval is posted with the old format, then
   * the framing restarts (a new plan is made if the format needs one) */
  read_live_settings (self);
  if (self->running && !flush_and_restart (self))
    return FALSE;
  if (!drain (self))
    return FALSE;
  self->buffer_hint = 0;        /* sized again by the next buffer */

  GST_DEBUG_OBJECT (self, "format %s, %d Hz, %u channels, %s",
      gst_audio_format_to_string (GST_AUDIO_INFO_FORMAT (info)),
      GST_AUDIO_INFO_RATE (info), channels,
      GST_AUDIO_INFO_LAYOUT (info) == GST_AUDIO_LAYOUT_INTERLEAVED ?
      "interleaved" : "non-interleaved");
  self->info = *info;
  self->format = format;
  self->have_format = TRUE;
  gst_gpu_fft_store_clear (&self->store);
  gst_gpu_fft_store_init (&self->store, GST_AUDIO_INFO_BPS (info), channels,
      GST_AUDIO_INFO_LAYOUT (info) == GST_AUDIO_LAYOUT_NON_INTERLEAVED);
  self->seg_planes = g_renew (gconstpointer, self->seg_planes, 2 * channels);
  return TRUE;
}

static gboolean
gst_gpu_fft_spectrum_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  GstGpuFftSpectrum *self = GST_GPU_FFT_SPECTRUM (trans);

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_EOS:
    case GST_EVENT_FLUSH_STOP:
      /* every interval's messages are posted before these go on */
      if (self->running) {
        read_live_settings (self);
        flush_and_restart (self);
      }
      drain (self);
      self->next_pts = GST_CLOCK_TIME_NONE;
      break;
    case GST_EVENT_SEGMENT:
      /* before the base class takes the new segment: the pending interval
       * is timed in the old one */
      if (self->running) {
        read_live_settings (self);
        flush_and_restart (self);
      }
      self->next_pts = GST_CLOCK_TIME_NONE;
      break;
    case GST_EVENT_GAP:
      /* no data for a while: no frame may span it */
      if (self->running) {
        read_live_settings (self);
        flush_and_restart (self);
      }
      self->next_pts = GST_CLOCK_TIME_NONE;
      break;
    default:
      break;
  }
  return GST_BASE_TRANSFORM_CLASS (parent_class)->sink_event (trans, event);
}

/* Asked once per start: a live upstream gets its intervals dropped when
 * the GPU falls behind, a non-live one waits (back-pressure). */
static gboolean
upstream_is_live (GstGpuFftSpectrum * self)
{
  GstQuery *q = gst_query_new_latency ();
  gboolean live = FALSE;

  if (gst_pad_peer_query (GST_BASE_TRANSFORM_SINK_PAD (self), q))
    gst_query_parse_latency (q, &live, NULL, NULL);
  gst_query_unref (q);
  GST_DEBUG_OBJECT (self, "upstream is %slive", live ? "" : "not ");
  return live;
}

static GstFlowReturn
gst_gpu_fft_spectrum_transform_ip (GstBaseTransform * trans, GstBuffer * buf)
{
  GstGpuFftSpectrum *self = GST_GPU_FFT_SPECTRUM (trans);
  GstAudioBuffer abuf;
  guint64 pos;
  gsize n;
  gboolean ok;

  if (!self->have_format || self->ctx == NULL)
    return GST_FLOW_NOT_NEGOTIATED;

  read_live_settings (self);

  /* A discontinuity, flagged or not (a timestamp more than 40 ms away from
   * where the sample count puts it): no frame may span it. */
  if (self->running && (GST_BUFFER_FLAG_IS_SET (buf, GST_BUFFER_FLAG_DISCONT)
          || (GST_BUFFER_PTS_IS_VALID (buf)
              && ABS (GST_CLOCK_DIFF (sample_to_time (self, self->received),
                      GST_BUFFER_PTS (buf))) > PTS_TOLERANCE))) {
    GST_DEBUG_OBJECT (self, "discontinuity");
    if (!flush_and_restart (self))
      return GST_FLOW_ERROR;
  }

  /* A buffer that cannot be read (e.g. non-interleaved without its
   * GstAudioMeta) is passed through but breaks the sample count: restart
   * after it. */
  if ((GST_AUDIO_INFO_LAYOUT (&self->info) == GST_AUDIO_LAYOUT_NON_INTERLEAVED
          && gst_buffer_get_audio_meta (buf) == NULL
          && gst_buffer_get_size (buf) > 0)
      || !gst_audio_buffer_map (&abuf, &self->info, buf, GST_MAP_READ)) {
    GST_ELEMENT_WARNING (self, STREAM, FORMAT, (NULL),
        ("cannot read buffer %" GST_PTR_FORMAT " (non-interleaved audio needs "
            "a GstAudioMeta): passed through, not analysed; the analysis "
            "restarts after it", buf));
    if (self->running && !flush_and_restart (self))
      return GST_FLOW_ERROR;
    return GST_FLOW_OK;
  }
  n = abuf.n_samples;
  if (n == 0) {
    gst_audio_buffer_unmap (&abuf);
    return GST_FLOW_OK;
  }

  if (self->is_live < 0)
    self->is_live = upstream_is_live (self) ? 1 : 0;
  if (self->buffer_hint == 0)
    self->buffer_hint = n;

  if (!self->running) {
    GstSegment *segment = &trans->segment;

    if (GST_BUFFER_PTS_IS_VALID (buf))
      self->base_pts = GST_BUFFER_PTS (buf);
    else if (GST_CLOCK_TIME_IS_VALID (self->next_pts))
      self->base_pts = self->next_pts;
    else if (segment->format == GST_FORMAT_TIME)
      self->base_pts = segment->start;
    else
      self->base_pts = 0;
    if (!apply_settings (self, TRUE)) {
      gst_audio_buffer_unmap (&abuf);
      return GST_FLOW_ERROR;
    }
    self->received = 0;
    gst_gpu_fft_store_reset (&self->store, 0);
    self->running = TRUE;
    GST_DEBUG_OBJECT (self, "start at %" GST_TIME_FORMAT,
        GST_TIME_ARGS (self->base_pts));
  }

  pos = self->received;
  ok = run_batches (self, pos + n, FALSE, pos, (gpointer const *) abuf.planes,
      n);
  if (ok)
    gst_gpu_fft_store_keep_and_append (&self->store,
        self->framing.next_start, pos, (const gpointer *) abuf.planes, n);
  self->received = pos + n;
  gst_audio_buffer_unmap (&abuf);

  return ok ? GST_FLOW_OK : GST_FLOW_ERROR;
}
