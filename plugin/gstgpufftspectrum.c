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
 * multi-channel, peaks, min/max-frequency, message-phase, batch-size) apply
 * at once, as in `spectrum`: at the next buffer the open interval closes
 * where the stream stands (a partial interval, old settings) and the
 * analysis restarts there; the others apply from the next buffer.
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
 * Segments: every buffer passes through whole; only what lies in a TIME
 * segment is analysed (a buffer outside it is not, one across its edge in
 * part).
 *
 * Buffers: a buffer without a whole sample frame is ignored, whatever its
 * timestamp and flags; a buffer's trailing bytes that do not make a whole
 * sample frame are ignored;
 * buffers without PTS continue the sample count (the first one after a
 * restart takes the end of what came before, else the segment start). A
 * timestamp more than 40 ms away from where the sample count puts it, and
 * a GAP event, restart the framing like a DISCONT. A buffer that cannot be
 * read (non-interleaved without GstAudioMeta) passes through untouched with
 * a WARNING message, and the framing restarts after it.
 *
 * The element never talks to Vulkan itself: everything goes through the
 * gpufft engine (gpufft.h).
 *
 * Files: this one is the element (class, properties, GstBaseTransform
 * entry points); gstgpufftspectrum-stream.c the streaming path (plan and
 * geometry, framing into batches, restarts); gstgpufftspectrum-results.c
 * the result path (messages from the engine's completion thread, drain,
 * engine errors).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstgpufftspectrum.h"
#include "gstgpufftspectrum-private.h"

#include <math.h>
#include <string.h>

GST_DEBUG_CATEGORY (gst_gpu_fft_spectrum_debug);
#define GST_CAT_DEFAULT gst_gpu_fft_spectrum_debug

#define DEFAULT_FFT_SIZE 1024
#define MIN_FFT_SIZE 16         /* (the engine takes sizes from 2) */
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
  "channels = (int) [ 1, " G_STRINGIFY (GPUFFT_MAX_CHANNELS) " ], " \
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
static GstFlowReturn gst_gpu_fft_spectrum_submit_input_buffer
    (GstBaseTransform * trans, gboolean is_discont, GstBuffer * input);
static gboolean gst_gpu_fft_spectrum_accept_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps);
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
          "Samples per frame: any even size from 16 to 65536 (odd sizes are "
          "refused). Powers of two are fastest; sizes whose other factors "
          "are 3, 5 and 7 run as mixed-radix passes, any other size through "
          "Bluestein's algorithm. Bins: fft-size/2+1",
          MIN_FFT_SIZE, GPUFFT_MAX_SIZE, DEFAULT_FFT_SIZE, rw));
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
          "gpufftspectrum-stats: device (gint: the Vulkan device index in "
          "use, -1 before start), dropped-intervals (guint64: intervals of a "
          "live stream left unanalysed because the GPU fell behind, since "
          "the element started), device-submissions and device-batches "
          "(guint64: GPU submissions made by the device's scheduler for "
          "every element on the device, and the element batches they "
          "carried, since the device was opened; 0 before start), "
          "device-max-batches (most in one submission), device-record-ns, "
          "device-wait-ns, device-gpu-ns, device-deliver-ns (guint64 ns: "
          "the scheduler's time recording and submitting, waiting for the "
          "device, the device's own time, and delivering results), "
          "device-copied-bytes and device-imported-bytes (guint64: input "
          "copied into upload memory, and input the device read in place "
          "from the buffers, VK_EXT_external_memory_host), device-plans and "
          "device-plan-ns (plans made on the device and the time spent "
          "making them)",
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
  trans_class->accept_caps =
      GST_DEBUG_FUNCPTR (gst_gpu_fft_spectrum_accept_caps);
  trans_class->submit_input_buffer =
      GST_DEBUG_FUNCPTR (gst_gpu_fft_spectrum_submit_input_buffer);
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
  g_free (self->in_planes);
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
    g_warning ("gpufftspectrum: fft-size %u refused: it must be even, from "
        "%u to %u; keeping %u", g_value_get_uint (value), MIN_FFT_SIZE,
        GPUFFT_MAX_SIZE, s->fft_size);
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
              "device", G_TYPE_INT, self->ctx ?
              gpufft_context_get_device_index (self->ctx) : -1,
              "dropped-intervals", G_TYPE_UINT64, self->dropped_total,
              "device-submissions", G_TYPE_UINT64, st.submissions,
              "device-batches", G_TYPE_UINT64, st.batches,
              "device-max-batches", G_TYPE_UINT64, st.max_batches,
              "device-record-ns", G_TYPE_UINT64, st.record_ns,
              "device-wait-ns", G_TYPE_UINT64, st.wait_ns,
              "device-gpu-ns", G_TYPE_UINT64, st.gpu_ns,
              "device-deliver-ns", G_TYPE_UINT64, st.deliver_ns,
              "device-copied-bytes", G_TYPE_UINT64, st.copied_bytes,
              "device-imported-bytes", G_TYPE_UINT64, st.imported_bytes,
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
void
gst_gpu_fft_spectrum_read_settings (GstGpuFftSpectrum * self,
    GstGpuFftSpectrumSettings * out, guint * gen)
{
  GST_OBJECT_LOCK (self);
  *out = self->settings;
  *gen = self->geometry_gen;
  GST_OBJECT_UNLOCK (self);
}

void
gst_gpu_fft_spectrum_read_live_settings (GstGpuFftSpectrum * self)
{
  gst_gpu_fft_spectrum_read_settings (self, &self->live, &self->live_gen);
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
  gst_gpu_fft_spectrum_read_live_settings (self);
  if (self->running && !gst_gpu_fft_spectrum_flush_and_restart (self))
    return FALSE;
  if (!gst_gpu_fft_spectrum_drain (self))
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
  self->in_planes = g_renew (gpointer, self->in_planes, channels);
  return TRUE;
}

/* GstAudioFilter clips buffers to the segment before the transform: an
 * analyser passes every buffer through untouched (transform_ip analyses
 * only what lies in the segment), so skip it for GstBaseTransform's. */
static GstFlowReturn
gst_gpu_fft_spectrum_submit_input_buffer (GstBaseTransform * trans,
    gboolean is_discont, GstBuffer * input)
{
  GstBaseTransformClass *base =
      g_type_class_peek_static (GST_TYPE_BASE_TRANSFORM);

  return base->submit_input_buffer (trans, is_discont, input);
}

/* The template refuses more than GPUFFT_MAX_CHANNELS channels at
 * negotiation; say so, with the valid range, rather than leave only the
 * source's not-negotiated error. */
static gboolean
gst_gpu_fft_spectrum_accept_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps)
{
  GstStructure *s = gst_caps_get_size (caps) == 1 ?
      gst_caps_get_structure (caps, 0) : NULL;
  gint channels;

  if (s && gst_structure_get_int (s, "channels", &channels)
      && channels > GPUFFT_MAX_CHANNELS) {
    GST_ELEMENT_WARNING (trans, STREAM, FORMAT,
        ("%d channels: gpufftspectrum handles 1 to %d channels",
            channels, GPUFFT_MAX_CHANNELS), ("caps %" GST_PTR_FORMAT, caps));
    return FALSE;
  }
  return GST_BASE_TRANSFORM_CLASS (parent_class)->accept_caps (trans,
      direction, caps);
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
        gst_gpu_fft_spectrum_read_live_settings (self);
        gst_gpu_fft_spectrum_flush_and_restart (self);
      }
      gst_gpu_fft_spectrum_drain (self);
      self->next_pts = GST_CLOCK_TIME_NONE;
      break;
    case GST_EVENT_SEGMENT:
      /* before the base class takes the new segment: the pending interval
       * is timed in the old one */
      if (self->running) {
        gst_gpu_fft_spectrum_read_live_settings (self);
        gst_gpu_fft_spectrum_flush_and_restart (self);
      }
      self->next_pts = GST_CLOCK_TIME_NONE;
      break;
    case GST_EVENT_GAP:
      /* no data for a while: no frame may span it */
      if (self->running) {
        gst_gpu_fft_spectrum_read_live_settings (self);
        gst_gpu_fft_spectrum_flush_and_restart (self);
      }
      self->next_pts = GST_CLOCK_TIME_NONE;
      break;
    default:
      break;
  }
  return GST_BASE_TRANSFORM_CLASS (parent_class)->sink_event (trans, event);
}

/* A buffer timestamp further than this from where the sample count puts it
 * is a discontinuity (as audiobasesink's default tolerance). */
#define PTS_TOLERANCE (40 * GST_MSECOND)

/* Maps buf for reading: one map of the whole buffer; the planes of
 * non-interleaved audio from its GstAudioMeta (gst_audio_buffer_map()'s map
 * of each plane fails on 1.22 with more than 256 channels and leaves the
 * memory locked). Sets self->in_planes and the samples per channel. */
static gboolean
map_input (GstGpuFftSpectrum * self, GstBuffer * buf, GstMapInfo * map,
    gsize * n_samples)
{
  const GstAudioInfo *info = &self->info;
  guint c, channels = GST_AUDIO_INFO_CHANNELS (info);
  gsize bps = GST_AUDIO_INFO_BPS (info);

  if (GST_AUDIO_INFO_LAYOUT (info) == GST_AUDIO_LAYOUT_INTERLEAVED) {
    if (!gst_buffer_map (buf, map, GST_MAP_READ))
      return FALSE;
    self->in_planes[0] = map->data;
    *n_samples = map->size / GST_AUDIO_INFO_BPF (info);
    return TRUE;
  } else {
    GstAudioMeta *meta = gst_buffer_get_audio_meta (buf);

    if (meta == NULL || meta->info.channels != (gint) channels
        || meta->info.finfo != info->finfo || meta->offsets == NULL)
      return FALSE;
    if (!gst_buffer_map (buf, map, GST_MAP_READ))
      return FALSE;
    for (c = 0; c < channels; c++) {
      if (meta->offsets[c] + meta->samples * bps > map->size) {
        gst_buffer_unmap (buf, map);
        return FALSE;
      }
      self->in_planes[c] = map->data + meta->offsets[c];
    }
    *n_samples = meta->samples;
    return TRUE;
  }
}

/* The part of a mapped buffer of n samples that lies in a TIME segment:
 * FALSE when none does; else *skip samples from its start, *n left, *pts
 * of the first. Other segments, and buffers without PTS, are whole. */
static gboolean
clip_to_segment (GstGpuFftSpectrum * self, GstBuffer * buf, gsize * skip,
    gsize * n, GstClockTime * pts)
{
  GstSegment *seg = &GST_BASE_TRANSFORM (self)->segment;
  gint rate = GST_AUDIO_INFO_RATE (&self->info);
  guint64 start, stop, cstart, cstop, first, end;
  gboolean off_clock;

  *skip = 0;
  *pts = GST_BUFFER_PTS (buf);
  if (seg->format != GST_FORMAT_TIME || !GST_BUFFER_PTS_IS_VALID (buf))
    return TRUE;
  start = GST_BUFFER_PTS (buf);
  stop = gst_util_uint64_scale_int_round (*n, GST_SECOND, rate);
  /* (a span that runs off the clock's range is saturated, and not clipped
   * at its end) */
  off_clock = stop >= G_MAXUINT64 - 1 - start;
  stop = off_clock ? G_MAXUINT64 - 1 : start + stop;
  if (!gst_segment_clip (seg, GST_FORMAT_TIME, start, stop, &cstart, &cstop))
    return FALSE;
  first = gst_util_uint64_scale_int_round (cstart - start, rate, GST_SECOND);
  end = off_clock ? *n :
      gst_util_uint64_scale_int_round (cstop - start, rate, GST_SECOND);
  end = MIN (end, *n);
  if (first >= end)
    return FALSE;
  *skip = first;
  *n = end - first;
  *pts = start + gst_util_uint64_scale_int_round (first, GST_SECOND, rate);
  return TRUE;
}

static GstFlowReturn
gst_gpu_fft_spectrum_transform_ip (GstBaseTransform * trans, GstBuffer * buf)
{
  GstGpuFftSpectrum *self = GST_GPU_FFT_SPECTRUM (trans);
  GstMapInfo map;
  GstClockTime pts;
  guint64 pos;
  gsize n, skip;
  guint c;
  gboolean ok;

  if (!self->have_format || self->ctx == NULL)
    return GST_FLOW_NOT_NEGOTIATED;

  /* A buffer without a whole sample frame carries no samples: it changes
   * nothing, whatever its timestamp or flags say (a real discontinuity
   * shows on the next buffer that has samples). */
  if (gst_buffer_get_size (buf) < (gsize) GST_AUDIO_INFO_BPF (&self->info))
    return GST_FLOW_OK;

  gst_gpu_fft_spectrum_read_live_settings (self);

  /* A buffer that cannot be read (e.g. non-interleaved without its
   * GstAudioMeta) is passed through but breaks the sample count: restart
   * after it. */
  if (!map_input (self, buf, &map, &n)) {
    GST_ELEMENT_WARNING (self, STREAM, FORMAT, (NULL),
        ("cannot read buffer %" GST_PTR_FORMAT " (non-interleaved audio needs "
            "a GstAudioMeta): passed through, not analysed; the analysis "
            "restarts after it", buf));
    if (self->running && !gst_gpu_fft_spectrum_flush_and_restart (self))
      return GST_FLOW_ERROR;
    return GST_FLOW_OK;
  }
  if (n == 0) {
    gst_buffer_unmap (buf, &map);
    return GST_FLOW_OK;
  }

  /* Analyse only what lies in the segment (the buffer passes whole). */
  if (!clip_to_segment (self, buf, &skip, &n, &pts)) {
    gst_buffer_unmap (buf, &map);
    return GST_FLOW_OK;
  }
  if (skip > 0) {
    gboolean interleaved = GST_AUDIO_INFO_LAYOUT (&self->info) ==
        GST_AUDIO_LAYOUT_INTERLEAVED;
    gsize unit = interleaved ? GST_AUDIO_INFO_BPF (&self->info) :
        GST_AUDIO_INFO_BPS (&self->info);
    guint planes = interleaved ? 1 : GST_AUDIO_INFO_CHANNELS (&self->info);

    for (c = 0; c < planes; c++)
      self->in_planes[c] = (guint8 *) self->in_planes[c] + skip * unit;
  }

  /* A geometry setting changed: it applies at once, as in `spectrum`: the
   * open interval closes where the stream stands (posted as a partial
   * interval, with the old geometry) and the analysis restarts here. A
   * discontinuity, flagged or not (a timestamp more than 40 ms away from
   * where the sample count puts it), does the same: no frame may span it. */
  if (self->running && (self->live_gen != self->applied_gen
          || GST_BUFFER_FLAG_IS_SET (buf, GST_BUFFER_FLAG_DISCONT)
          || (GST_CLOCK_TIME_IS_VALID (pts)
              && ABS (GST_CLOCK_DIFF (gst_gpu_fft_spectrum_sample_to_time (self,
                          self->received), pts)) > PTS_TOLERANCE))) {
    GST_DEBUG_OBJECT (self, "%s", self->live_gen != self->applied_gen ?
        "settings changed" : "discontinuity");
    if (!gst_gpu_fft_spectrum_flush_and_restart (self))
      goto error;
  }

  if (self->is_live < 0)
    self->is_live = gst_gpu_fft_spectrum_upstream_is_live (self) ? 1 : 0;
  if (self->buffer_hint == 0)
    self->buffer_hint = n;

  if (!self->running) {
    GstSegment *segment = &trans->segment;

    if (GST_CLOCK_TIME_IS_VALID (pts))
      self->base_pts = pts;
    else if (GST_CLOCK_TIME_IS_VALID (self->next_pts))
      self->base_pts = self->next_pts;
    else if (segment->format == GST_FORMAT_TIME)
      self->base_pts = segment->start;
    else
      self->base_pts = 0;
    if (!gst_gpu_fft_spectrum_apply_settings (self))
      goto error;
    self->received = 0;
    gst_gpu_fft_store_reset (&self->store, 0);
    self->running = TRUE;
    GST_DEBUG_OBJECT (self, "start at %" GST_TIME_FORMAT,
        GST_TIME_ARGS (self->base_pts));
  }

  pos = self->received;
  if (GST_AUDIO_INFO_LAYOUT (&self->info) == GST_AUDIO_LAYOUT_INTERLEAVED
      && gst_buffer_n_memory (buf) == 1) {
    self->in_buf = buf;
    self->in_data = map.data;
  }
  ok = gst_gpu_fft_spectrum_run_batches (self, pos + n, FALSE, pos,
      (gpointer const *) self->in_planes, n);
  self->in_buf = NULL;
  self->in_data = NULL;
  if (ok)
    gst_gpu_fft_store_keep_and_append (&self->store,
        self->framing.next_start, pos, (const gpointer *) self->in_planes, n);
  self->received = pos + n;
  gst_buffer_unmap (buf, &map);

  return ok ? GST_FLOW_OK : GST_FLOW_ERROR;

error:
  gst_buffer_unmap (buf, &map);
  return GST_FLOW_ERROR;
}
