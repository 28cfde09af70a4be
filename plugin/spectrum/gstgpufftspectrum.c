/* gpufftspectrum: a spectrum analyser that runs its FFTs on a Vulkan
 * device.
 *
 * SECTION:element-gpufftspectrum
 *
 * Passes audio through untouched (in place, bit-exact, no latency) and posts
 * element messages with the Welch-averaged power spectrum (`spectrum`) and
 * the dominant frequency (`dominant-frequency`) of every interval.
 *
 *   gst-launch-1.0 audiotestsrc ! gpufftspectrum ! fakesink -m
 *
 * Frames holding a NaN, an infinite sample or a finite one beyond +-2^32
 * are left out of their interval's average and counted in the message's
 * frames-left-out (the first sample beyond +-2^32 also posts a warning:
 * gstgpufftbound.h says why the bound is where it is).
 *
 * This file is the element's own part: its properties (fft-size, window,
 * scaling, peaks, message options, the analyser modes, stats ...), their
 * defaults, and the `reset` action, mapped onto the settings of the
 * analyser it derives from, GstGpuFftBase (gstgpufftbase.c: framing,
 * segments, restarts, the streaming and result paths). Properties take
 * only the object lock and never wait on the streaming thread; `reset`
 * may be emitted from any thread. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstgpufftspectrum.h"
#include "gstgpufftbase.h"

#define GST_CAT_DEFAULT gst_gpu_fft_base_debug

#define DEFAULT_FFT_SIZE 1024
#define MIN_FFT_SIZE 16         /* (the engine takes sizes from 2) */
#define DEFAULT_HOP_SIZE 0
#define DEFAULT_WINDOW GST_GPU_FFT_WINDOW_HANN
#define DEFAULT_SCALING GST_GPU_FFT_SCALING_SPECTRUM
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
#define DEFAULT_MESSAGE_FORMAT GST_GPU_FFT_MESSAGE_FORMAT_LIST
#define DEFAULT_BATCH_SIZE 0

#define DEFAULT_FREQUENCY_SCALE GST_GPU_FFT_FREQUENCY_SCALE_LINEAR
#define DEFAULT_OCTAVE_FRACTION 3
#define DEFAULT_MEL_BANDS 128
#define DEFAULT_MEL_SCALE GST_GPU_FFT_MEL_SCALE_SLANEY
#define DEFAULT_MEL_NORM GST_GPU_FFT_MEL_NORM_SLANEY
#define DEFAULT_LOG_BANDS 64
#define DEFAULT_WEIGHTING GST_GPU_FFT_WEIGHTING_Z
#define DEFAULT_AVERAGING GPUFFT_AVERAGING_MEAN
#define DEFAULT_TIME_CONSTANT 0.125
#define DEFAULT_MESSAGE_FRAMES FALSE

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
  PROP_STATS,
  PROP_FREQUENCY_SCALE,
  PROP_OCTAVE_FRACTION,
  PROP_MEL_BANDS,
  PROP_MEL_SCALE,
  PROP_MEL_NORM,
  PROP_LOG_BANDS,
  PROP_WEIGHTING,
  PROP_AVERAGING,
  PROP_TIME_CONSTANT,
  PROP_MESSAGE_FRAMES
};

/* (no state of its own: everything is in the base's settings) */
struct _GstGpuFftSpectrum
{
  GstGpuFftBase parent;
};

typedef struct
{
  GstGpuFftBaseClass parent_class;
} GstGpuFftSpectrumClass;

G_DEFINE_TYPE (GstGpuFftSpectrum, gst_gpu_fft_spectrum, GST_TYPE_GPU_FFT_BASE);
GST_ELEMENT_REGISTER_DEFINE (gpufftspectrum, "gpufftspectrum", GST_RANK_NONE,
    GST_TYPE_GPU_FFT_SPECTRUM);

static void gst_gpu_fft_spectrum_set_property (GObject * object,
    guint prop_id, const GValue * value, GParamSpec * pspec);
static void gst_gpu_fft_spectrum_get_property (GObject * object,
    guint prop_id, GValue * value, GParamSpec * pspec);

static void gst_gpu_fft_spectrum_reset (GstGpuFftSpectrum * self);

static void
gst_gpu_fft_spectrum_class_init (GstGpuFftSpectrumClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  const GParamFlags rw =
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING;

  gobject_class->set_property = gst_gpu_fft_spectrum_set_property;
  gobject_class->get_property = gst_gpu_fft_spectrum_get_property;

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
          GST_TYPE_GPU_FFT_WINDOW, DEFAULT_WINDOW, rw));
  g_object_class_install_property (gobject_class, PROP_SCALING,
      g_param_spec_enum ("scaling", "Scaling",
          "spectrum: dBFS, 10*log10(2*S) with scipy's 'spectrum' scaling (a "
          "full-scale sine on a bin reads 0 dB); density: 10*log10(D) with "
          "scipy's 'density' scaling (dB re full-scale^2/Hz); raw: "
          "10*log10(|X|^2), no window normalisation, no one-sided doubling",
          GST_TYPE_GPU_FFT_SCALING, DEFAULT_SCALING, rw));
  g_object_class_install_property (gobject_class, PROP_INTERVAL,
      g_param_spec_uint64 ("interval", "Interval",
          "Interval of time between messages (in nanoseconds, at least 1 ms)",
          MIN_INTERVAL, G_MAXUINT64, DEFAULT_INTERVAL, rw));
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
          "channel-major)", GST_TYPE_GPU_FFT_MESSAGE_FORMAT,
          DEFAULT_MESSAGE_FORMAT, rw));
  g_object_class_install_property (gobject_class, PROP_BATCH_SIZE,
      g_param_spec_uint ("batch-size", "Batch size",
          "Most frames per GPU submission (0 = automatic)",
          0, MAX_BATCH_SIZE, DEFAULT_BATCH_SIZE, rw));
  g_object_class_install_property (gobject_class, PROP_STATS,
      g_param_spec_boxed ("stats", "Statistics",
          "gpufftspectrum-stats: device (gint: the Vulkan device index in "
          "use, -1 before start and on the host alone), device-is-cpu "
          "(gboolean: that device is a CPU Vulkan device, such as "
          "lavapipe), dropped-intervals "
          "(guint64: intervals of a live stream left unanalysed because the "
          "GPU fell behind, or on the host alone the CPU or a blocking bus "
          "handler, since the element started), host-intervals "
          "(guint64: intervals of a live stream analysed on the CPU, on the "
          "host alone or while the device's plan was being made, since the "
          "element started), "
          "dropped-messages (guint64: messages of a "
          "live stream dropped because the application's bus handler did "
          "not keep up: the oldest of more than 1024 waiting, since the "
          "element started; not on the host alone, where such a handler "
          "holds the analysis), device-submissions and device-batches "
          "(guint64: GPU submissions made by the device's scheduler for "
          "every element on the device, and the element batches they "
          "carried, since the device was opened; 0 before start), "
          "device-reused-submissions (guint64: of the submissions, those "
          "that ran a batch's commands as recorded for an earlier batch of "
          "the same shape), "
          "device-max-batches (most in one submission), device-record-ns, "
          "device-wait-ns, device-gpu-ns, device-deliver-ns (guint64 ns: "
          "the scheduler's time recording and submitting, waiting for the "
          "device, the device's own time, and delivering results), "
          "device-copied-bytes and device-imported-bytes (guint64: input "
          "copied into upload memory, and input the device read in place "
          "from the buffers), device-host-memory-bytes (guint64: of that, "
          "input in buffers of the element's allocator), device-plans and "
          "device-plan-ns (plans made on the device and the time spent "
          "making them)",
          GST_TYPE_STRUCTURE, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  g_object_class_install_property (gobject_class, PROP_FREQUENCY_SCALE,
      g_param_spec_enum ("frequency-scale", "Frequency scale",
          "What magnitude holds: linear (the FFT bins), octave "
          "(octave-fraction bands, IEC 61260-1), mel (mel-bands filters, "
          "librosa / torchaudio) or log (log-bands bands evenly spaced in "
          "log frequency); the bands lie within min-frequency .. "
          "max-frequency (octave and log: 0 means 20 Hz)",
          GST_TYPE_GPU_FFT_FREQUENCY_SCALE, DEFAULT_FREQUENCY_SCALE, rw));
  g_object_class_install_property (gobject_class, PROP_OCTAVE_FRACTION,
      g_param_spec_uint ("octave-fraction", "Octave fraction",
          "frequency-scale=octave: 1/b-octave bands, b = 1, 2, 3, 6, 12 or 24",
          1, 24, DEFAULT_OCTAVE_FRACTION, rw));
  g_object_class_install_property (gobject_class, PROP_MEL_BANDS,
      g_param_spec_uint ("mel-bands", "Mel bands",
          "frequency-scale=mel: number of mel filters", 1, GPUFFT_MAX_BANDS,
          DEFAULT_MEL_BANDS, rw));
  g_object_class_install_property (gobject_class, PROP_MEL_SCALE,
      g_param_spec_enum ("mel-scale", "Mel scale",
          "frequency-scale=mel: slaney (librosa's default) or htk "
          "(torchaudio's)", GST_TYPE_GPU_FFT_MEL_SCALE, DEFAULT_MEL_SCALE, rw));
  g_object_class_install_property (gobject_class, PROP_MEL_NORM,
      g_param_spec_enum ("mel-norm", "Mel normalisation",
          "frequency-scale=mel: slaney (each filter's area 1, librosa's "
          "default) or none (torchaudio's)", GST_TYPE_GPU_FFT_MEL_NORM,
          DEFAULT_MEL_NORM, rw));
  g_object_class_install_property (gobject_class, PROP_LOG_BANDS,
      g_param_spec_uint ("log-bands", "Log bands",
          "frequency-scale=log: number of bands", 1, GPUFFT_MAX_BANDS,
          DEFAULT_LOG_BANDS, rw));
  g_object_class_install_property (gobject_class, PROP_WEIGHTING,
      g_param_spec_enum ("weighting", "Frequency weighting",
          "z (none), a or c (IEC 61672-1), k (ITU-R BS.1770-4's K weighting "
          "for the stream's rate, 0 dB at 997 Hz), applied to every bin's power "
          "before bands, peaks and level", GST_TYPE_GPU_FFT_WEIGHTING,
          DEFAULT_WEIGHTING, rw));
  g_object_class_install_property (gobject_class, PROP_AVERAGING,
      g_param_spec_enum ("averaging", "Averaging",
          "mean (Welch over the interval), exponential (time weighting with "
          "time-constant, carried across intervals), peak-hold (per-bin "
          "maximum over the interval) or max-hold (per-bin maximum until "
          "the reset action or a property change)",
          GST_TYPE_GPU_FFT_AVERAGING, DEFAULT_AVERAGING, rw));
  g_object_class_install_property (gobject_class, PROP_TIME_CONSTANT,
      g_param_spec_double ("time-constant", "Time constant",
          "averaging=exponential: seconds (0.125 Fast, 1 Slow)", 0.001,
          3600.0, DEFAULT_TIME_CONSTANT, rw));
  g_object_class_install_property (gobject_class, PROP_MESSAGE_FRAMES,
      g_param_spec_boolean ("message-frames", "Frames in the message",
          "The spectrum message also carries every frame of the interval: "
          "frame-timestamps, frame-magnitude ([channels][frames][values]) "
          "and frame-level. A message carries at most 4096 frames and 2^18 "
          "values (frames x channels x (bins or bands + 1); at least one "
          "frame): a longer interval is shortened to the longest that fits "
          "(4096 hops at most), with a warning", DEFAULT_MESSAGE_FRAMES, rw));

  /**
   * GstGpuFftSpectrum::reset:
   *
   * Action signal: the averaging state (max-hold's maxima, exponential's
   * running value) restarts at the next buffer.
   */
  g_signal_new_class_handler ("reset", G_TYPE_FROM_CLASS (klass),
      G_SIGNAL_RUN_LAST | G_SIGNAL_ACTION,
      G_CALLBACK (gst_gpu_fft_spectrum_reset), NULL, NULL, NULL,
      G_TYPE_NONE, 0);

  gst_element_class_set_static_metadata (element_class,
      "GPU spectrum analyzer", "Filter/Analyzer/Audio",
      "Posts Welch-averaged spectra and dominant frequencies of audio, "
      "computed on a Vulkan device", "gst-gpufft developers");

  gst_type_mark_as_plugin_api (GST_TYPE_GPU_FFT_WINDOW, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_GPU_FFT_SCALING, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_GPU_FFT_MESSAGE_FORMAT, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_GPU_FFT_FREQUENCY_SCALE, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_GPU_FFT_WEIGHTING, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_GPU_FFT_AVERAGING, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_GPU_FFT_MEL_SCALE, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_GPU_FFT_MEL_NORM, 0);
}

static void
gst_gpu_fft_spectrum_init (GstGpuFftSpectrum * self)
{
  GstGpuFftBaseSettings *s =
      gst_gpu_fft_base_get_settings (GST_GPU_FFT_BASE (self));

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
  s->analysis.scale = DEFAULT_FREQUENCY_SCALE;
  s->analysis.octave_fraction = DEFAULT_OCTAVE_FRACTION;
  s->analysis.mel_bands = DEFAULT_MEL_BANDS;
  s->analysis.mel_scale = DEFAULT_MEL_SCALE;
  s->analysis.mel_norm = DEFAULT_MEL_NORM;
  s->analysis.log_bands = DEFAULT_LOG_BANDS;
  s->analysis.weighting = DEFAULT_WEIGHTING;
  s->analysis.averaging = DEFAULT_AVERAGING;
  s->analysis.time_constant = DEFAULT_TIME_CONSTANT;
  s->analysis.frames = DEFAULT_MESSAGE_FRAMES;
  s->analysis.level = TRUE;     /* every message has `level` */
}

static void
gst_gpu_fft_spectrum_reset (GstGpuFftSpectrum * self)
{
  gst_gpu_fft_base_request_reset (GST_GPU_FFT_BASE (self));
}

/* ------------------------------------------------------------------------ */
/* properties: only the object lock, never waiting on the streaming thread  */

static void
gst_gpu_fft_spectrum_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstGpuFftBase *self = GST_GPU_FFT_BASE (object);
  GstGpuFftBaseSettings *s = gst_gpu_fft_base_get_settings (self);
  GstGpuFftBaseSettings old;

  if (prop_id == PROP_FFT_SIZE && !gpufft_size_is_valid (g_value_get_uint
          (value))) {
    g_warning ("gpufftspectrum: fft-size %u refused: it must be even, from "
        "%u to %u; keeping %u", g_value_get_uint (value), MIN_FFT_SIZE,
        GPUFFT_MAX_SIZE, s->fft_size);
    return;
  }
  if (prop_id == PROP_OCTAVE_FRACTION
      && !gst_gpu_fft_bands_octave_fraction_valid (g_value_get_uint (value))) {
    g_warning ("gpufftspectrum: octave-fraction %u refused: use 1, 2, 3, 6, "
        "12 or 24; keeping %u", g_value_get_uint (value),
        s->analysis.octave_fraction);
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
      s->interval = g_value_get_uint64 (value); /* (GObject: >= 1 ms) */
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
    case PROP_FREQUENCY_SCALE:
      s->analysis.scale = g_value_get_enum (value);
      break;
    case PROP_OCTAVE_FRACTION:
      s->analysis.octave_fraction = g_value_get_uint (value);
      break;
    case PROP_MEL_BANDS:
      s->analysis.mel_bands = g_value_get_uint (value);
      break;
    case PROP_MEL_SCALE:
      s->analysis.mel_scale = g_value_get_enum (value);
      break;
    case PROP_MEL_NORM:
      s->analysis.mel_norm = g_value_get_enum (value);
      break;
    case PROP_LOG_BANDS:
      s->analysis.log_bands = g_value_get_uint (value);
      break;
    case PROP_WEIGHTING:
      s->analysis.weighting = g_value_get_enum (value);
      break;
    case PROP_AVERAGING:
      s->analysis.averaging = g_value_get_enum (value);
      break;
    case PROP_TIME_CONSTANT:
      s->analysis.time_constant = g_value_get_double (value);
      break;
    case PROP_MESSAGE_FRAMES:
      s->analysis.frames = g_value_get_boolean (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  gst_gpu_fft_base_settings_changed (self, &old);
  /* any property change restarts max-hold */
  if (s->analysis.averaging == GPUFFT_AVERAGING_MAX_HOLD
      && memcmp (&old, s, sizeof (old)) != 0)
    gst_gpu_fft_base_request_reset (self);
  GST_OBJECT_UNLOCK (self);
}

static void
gst_gpu_fft_spectrum_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstGpuFftBase *self = GST_GPU_FFT_BASE (object);
  GstGpuFftBaseSettings *s = gst_gpu_fft_base_get_settings (self);

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
    case PROP_STATS:{
      GpufftContextStats st = { 0 };
      GpufftContext *ctx = gst_gpu_fft_base_peek_context (self);
      guint64 dropped_intervals, host_intervals, dropped_messages;

      gst_gpu_fft_base_get_counts (self, &dropped_intervals, &host_intervals,
          &dropped_messages);
      if (ctx)
        gpufft_context_get_stats (ctx, &st);
      g_value_take_boxed (value, gst_structure_new ("gpufftspectrum-stats",
              "device", G_TYPE_INT, ctx ?
              gpufft_context_get_device_index (ctx) : -1,
              "device-is-cpu", G_TYPE_BOOLEAN, ctx ?
              gpufft_context_is_cpu (ctx) : FALSE,
              "dropped-intervals", G_TYPE_UINT64, dropped_intervals,
              "host-intervals", G_TYPE_UINT64, host_intervals,
              "dropped-messages", G_TYPE_UINT64, dropped_messages,
              "device-submissions", G_TYPE_UINT64, st.submissions,
              "device-reused-submissions", G_TYPE_UINT64,
              st.reused_submissions,
              "device-batches", G_TYPE_UINT64, st.batches,
              "device-max-batches", G_TYPE_UINT64, st.max_batches,
              "device-record-ns", G_TYPE_UINT64, st.record_ns,
              "device-submit-ns", G_TYPE_UINT64, st.submit_ns,
              "device-wait-ns", G_TYPE_UINT64, st.wait_ns,
              "device-gpu-ns", G_TYPE_UINT64, st.gpu_ns,
              "device-deliver-ns", G_TYPE_UINT64, st.deliver_ns,
              "device-copied-bytes", G_TYPE_UINT64, st.copied_bytes,
              "device-imported-bytes", G_TYPE_UINT64, st.imported_bytes,
              "device-host-memory-bytes", G_TYPE_UINT64,
              st.host_memory_bytes,
              "device-plans", G_TYPE_UINT64, st.plans,
              "device-plan-ns", G_TYPE_UINT64, st.plan_ns,
              "device-shared-batches", G_TYPE_UINT64, st.shared_batches,
              "device-shared-dispatches", G_TYPE_UINT64, st.shared_dispatches,
              NULL));
      break;
    }
    case PROP_FREQUENCY_SCALE:
      g_value_set_enum (value, s->analysis.scale);
      break;
    case PROP_OCTAVE_FRACTION:
      g_value_set_uint (value, s->analysis.octave_fraction);
      break;
    case PROP_MEL_BANDS:
      g_value_set_uint (value, s->analysis.mel_bands);
      break;
    case PROP_MEL_SCALE:
      g_value_set_enum (value, s->analysis.mel_scale);
      break;
    case PROP_MEL_NORM:
      g_value_set_enum (value, s->analysis.mel_norm);
      break;
    case PROP_LOG_BANDS:
      g_value_set_uint (value, s->analysis.log_bands);
      break;
    case PROP_WEIGHTING:
      g_value_set_enum (value, s->analysis.weighting);
      break;
    case PROP_AVERAGING:
      g_value_set_enum (value, s->analysis.averaging);
      break;
    case PROP_TIME_CONSTANT:
      g_value_set_double (value, s->analysis.time_constant);
      break;
    case PROP_MESSAGE_FRAMES:
      g_value_set_boolean (value, s->analysis.frames);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}
