/* gpuspectrum: GStreamer's `spectrum` element on the GPU. An application
 * written for `spectrum` runs by renaming the element.
 *
 * SECTION:element-gpuspectrum
 *
 *   gst-launch-1.0 audiotestsrc ! gpuspectrum bands=128 ! fakesink -m
 *
 * The properties of GStreamer 1.22's spectrum, with its types, ranges and
 * defaults (post-messages, message-magnitude, message-phase, interval,
 * bands, threshold, multi-channel), plus the read-only device-name and the
 * device-index of every gpufft element. Its messages: the structure
 * `spectrum` with endtime (stream-time + duration), timestamp, stream-time,
 * running-time, duration (the interval), then magnitude and phase as
 * spectrum lays them out (mono: GstValueList of `bands` floats;
 * multi-channel: GstValueArray of GstValueArray, [channel][band]), and no
 * other field and no other message (but one WARNING where a finite sample
 * is beyond +-2^32: its frames are left out, gstgpufftbound.h).
 *
 * The numbers are spectrum's: nfft = 2 * bands - 2 points, GStreamer's
 * Hamming window (0.53836/0.46164), levels 10 log10 (|X_k|^2 / nfft^2) dB
 * (a full-scale sine reads about -11.4 dB), integers divided by
 * 2^(bits-1) - 1, spectrum's intervals (floor (interval * rate) samples,
 * one more where the remainders add up to a sample), its frames (restarting
 * at each interval, without overlap, the samples after the last whole frame
 * left out; in an interval shorter than nfft, the nfft samples that end
 * with it, zeros before the stream's first sample), each frame's dB
 * floored at threshold and then averaged (on the GPU: the reduce kernel's
 * mean-of-dB mode), its phase (the mean of the frames' angles, on the GPU
 * too), its message times (the PTS of the buffer an interval
 * begins with, else the last message's time plus the interval's samples),
 * its message count (the interval that EOS, a flush or new caps cut
 * short is not posted), and its DISCONT (the interval cut is not posted, its sums of dB
 * go into the next message, divided by that one's frame count; the
 * intervals start again there, the first as long as the one cut; the
 * frames go on over the samples before; a timestamp jump alone, a GAP or
 * a new SEGMENT change nothing). A change of bands, interval or multi-channel applies as
 * spectrum's does: the interval it cuts short is not posted, the intervals
 * complete before it are (still on the GPU, they come a few ms after the
 * change; as with spectrum, messages already queued on the bus for an
 * asynchronous watch stay there); a change made by a synchronous bus
 * handler of one of its messages reaches the very next message (what was
 * measured with the old values and not yet posted is dropped).
 * message-phase changed while playing restarts the analysis as those do
 * (spectrum goes on, adding phases from its next frame). What it keeps of its own, spectrum's
 * faults: S24 downmix works; a synchronous bus handler may change any property;
 * no reference is kept on buffers; non-interleaved input and up to 4096
 * channels. Its messages are posted as spectrum's where that matters: on a
 * stream that is not live, those of the intervals a buffer completes are
 * posted on the streaming thread before the buffer leaves (the class flag
 * holds the poster, gstgpufftbase-results.c); a live stream's come from
 * the posting threads, so that the audio is never held.
 *
 * This file is the element's own part: spectrum's properties and
 * defaults, mapped onto the settings of the analyser it derives from,
 * GstGpuFftBase (gstgpufftbase.c), and the class flag that gives
 * spectrum's messages. Properties take only the object lock and never
 * wait on the streaming thread. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>

#include "gstgpuspectrum.h"
#include "gstgpufftbase.h"

#define GST_CAT_DEFAULT gst_gpu_fft_base_debug

/* spectrum's defaults and ranges (GStreamer 1.22) */
#define DEFAULT_POST_MESSAGES TRUE
#define DEFAULT_MESSAGE_MAGNITUDE TRUE
#define DEFAULT_MESSAGE_PHASE FALSE
#define DEFAULT_INTERVAL (GST_SECOND / 10)
#define DEFAULT_BANDS 128
#define DEFAULT_THRESHOLD -60
#define DEFAULT_MULTI_CHANNEL FALSE
/* what the engine takes: nfft = 2 * bands - 2 <= 65536 */
#define MAX_BANDS (GPUFFT_MAX_SIZE / 2 + 1)
#define MIN_INTERVAL GST_MSECOND

/* (no state of its own: everything is in the base's settings) */
struct _GstGpuSpectrum
{
  GstGpuFftBase parent;
};

typedef struct
{
  GstGpuFftBaseClass parent_class;
} GstGpuSpectrumClass;

enum
{
  PROP_0,
  PROP_POST_MESSAGES,
  PROP_MESSAGE_MAGNITUDE,
  PROP_MESSAGE_PHASE,
  PROP_INTERVAL,
  PROP_BANDS,
  PROP_THRESHOLD,
  PROP_MULTI_CHANNEL
};

G_DEFINE_TYPE (GstGpuSpectrum, gst_gpu_spectrum, GST_TYPE_GPU_FFT_BASE);
GST_ELEMENT_REGISTER_DEFINE (gpuspectrum, "gpuspectrum", GST_RANK_NONE,
    GST_TYPE_GPU_SPECTRUM);

static void gst_gpu_spectrum_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec);
static void gst_gpu_spectrum_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec);

static void
gst_gpu_spectrum_class_init (GstGpuSpectrumClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  const GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS;

  gobject_class->set_property = gst_gpu_spectrum_set_property;
  gobject_class->get_property = gst_gpu_spectrum_get_property;
  klass->parent_class.spectrum_compat = TRUE;

  /* (spectrum's order, names, blurbs, ranges and defaults) */
  g_object_class_install_property (gobject_class, PROP_POST_MESSAGES,
      g_param_spec_boolean ("post-messages", "Post Messages",
          "Whether to post a 'spectrum' element message on the bus for each "
          "passed interval", DEFAULT_POST_MESSAGES, rw));
  g_object_class_install_property (gobject_class, PROP_MESSAGE_MAGNITUDE,
      g_param_spec_boolean ("message-magnitude", "Magnitude",
          "Whether to add a 'magnitude' field to the structure of any "
          "'spectrum' element messages posted on the bus",
          DEFAULT_MESSAGE_MAGNITUDE, rw));
  g_object_class_install_property (gobject_class, PROP_MESSAGE_PHASE,
      g_param_spec_boolean ("message-phase", "Phase",
          "Whether to add a 'phase' field to the structure of any "
          "'spectrum' element messages posted on the bus",
          DEFAULT_MESSAGE_PHASE, rw));
  g_object_class_install_property (gobject_class, PROP_INTERVAL,
      g_param_spec_uint64 ("interval", "Interval",
          "Interval of time between message posts (in nanoseconds; values "
          "below 1 ms are raised to 1 ms)", 1, G_MAXUINT64, DEFAULT_INTERVAL,
          rw));
  g_object_class_install_property (gobject_class, PROP_BANDS,
      g_param_spec_uint ("bands", "Bands",
          "Number of frequency bands (2 to 32769 on the GPU: nfft = 2 * "
          "bands - 2 up to 65536)", 2, ((guint) G_MAXINT + 2) / 2,
          DEFAULT_BANDS, rw));
  g_object_class_install_property (gobject_class, PROP_THRESHOLD,
      g_param_spec_int ("threshold", "Threshold",
          "dB threshold for result. All lower values will be set to this",
          G_MININT, 0, DEFAULT_THRESHOLD, rw));
  g_object_class_install_property (gobject_class, PROP_MULTI_CHANNEL,
      g_param_spec_boolean ("multi-channel", "Multichannel results",
          "Send separate results for each channel", DEFAULT_MULTI_CHANNEL, rw));

  gst_element_class_set_static_metadata (element_class,
      "Spectrum analyzer on the GPU", "Filter/Analyzer/Audio",
      "Run an FFT on the audio signal, output spectrum data (GStreamer's "
      "spectrum, computed on a Vulkan device)", "gst-gpufft developers");
}

/* The analyser's settings for `bands` (nfft = 2 * bands - 2). */
static void
set_bands (GstGpuFftBaseSettings * s, guint bands)
{
  s->fft_size = 2 * bands - 2;
  s->hop_size = s->fft_size;
  s->level_offset = -20.0 * log10 ((gdouble) s->fft_size);
}

static void
gst_gpu_spectrum_init (GstGpuSpectrum * self)
{
  GstGpuFftBaseSettings *s =
      gst_gpu_fft_base_get_settings (GST_GPU_FFT_BASE (self));

  set_bands (s, DEFAULT_BANDS);
  s->window = GST_GPU_FFT_WINDOW_HAMMING_GST;
  s->scaling = GST_GPU_FFT_SCALING_RAW;
  s->interval = DEFAULT_INTERVAL;
  s->threshold = DEFAULT_THRESHOLD;
  s->multi_channel = DEFAULT_MULTI_CHANNEL;
  s->peaks = 0;
  s->post_messages = DEFAULT_POST_MESSAGES;
  s->message_magnitude = DEFAULT_MESSAGE_MAGNITUDE;
  s->message_phase = DEFAULT_MESSAGE_PHASE;
  s->message_dominant = FALSE;
  s->message_format = GST_GPU_FFT_MESSAGE_FORMAT_LIST;
  s->batch_size = 0;
  s->hop_within_interval = TRUE;
  /* spectrum's: the mean of each frame's floored dB */
  s->analysis.averaging = GPUFFT_AVERAGING_MEAN_DB;
}

static void
gst_gpu_spectrum_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstGpuFftBase *self = GST_GPU_FFT_BASE (object);
  GstGpuFftBaseSettings *s = gst_gpu_fft_base_get_settings (self);
  GstGpuFftBaseSettings old;
  guint64 interval = 0;

  if (prop_id == PROP_BANDS && g_value_get_uint (value) > MAX_BANDS) {
    g_warning ("gpuspectrum: bands %u refused: from 2 to %u on the GPU (an "
        "FFT of up to %u points); keeping %u", g_value_get_uint (value),
        MAX_BANDS, GPUFFT_MAX_SIZE, s->fft_size / 2 + 1);
    return;
  }
  if (prop_id == PROP_INTERVAL) {
    interval = g_value_get_uint64 (value);
    if (interval < MIN_INTERVAL) {
      /* (spectrum takes it silently: a debug warning, not g_warning, which
       * would stop an application run with fatal warnings) */
      GST_WARNING_OBJECT (object, "interval %" G_GUINT64_FORMAT " ns raised "
          "to 1 ms, the shortest interval the GPU analyser posts", interval);
      interval = MIN_INTERVAL;
    }
  }

  GST_OBJECT_LOCK (self);
  old = *s;
  switch (prop_id) {
    case PROP_BANDS:
      set_bands (s, g_value_get_uint (value));
      s->reset_gen += s->fft_size != old.fft_size;
      break;
    case PROP_INTERVAL:
      s->interval = interval;
      s->reset_gen += s->interval != old.interval;
      break;
    case PROP_MULTI_CHANNEL:
      s->multi_channel = g_value_get_boolean (value);
      s->reset_gen += s->multi_channel != old.multi_channel;
      break;
    case PROP_MESSAGE_PHASE:
      /* (the phase is measured by another plan: a restart, as bands) */
      s->message_phase = g_value_get_boolean (value);
      s->reset_gen += s->message_phase != old.message_phase;
      break;
    case PROP_POST_MESSAGES:
      s->post_messages = g_value_get_boolean (value);
      break;
    case PROP_MESSAGE_MAGNITUDE:
      s->message_magnitude = g_value_get_boolean (value);
      break;
    case PROP_THRESHOLD:
      s->threshold = g_value_get_int (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  gst_gpu_fft_base_settings_changed (self, &old);
  GST_OBJECT_UNLOCK (self);
}

static void
gst_gpu_spectrum_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstGpuFftBase *self = GST_GPU_FFT_BASE (object);
  GstGpuFftBaseSettings *s = gst_gpu_fft_base_get_settings (self);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_POST_MESSAGES:
      g_value_set_boolean (value, s->post_messages);
      break;
    case PROP_MESSAGE_MAGNITUDE:
      g_value_set_boolean (value, s->message_magnitude);
      break;
    case PROP_MESSAGE_PHASE:
      g_value_set_boolean (value, s->message_phase);
      break;
    case PROP_INTERVAL:
      g_value_set_uint64 (value, s->interval);
      break;
    case PROP_BANDS:
      g_value_set_uint (value, s->fft_size / 2 + 1);
      break;
    case PROP_THRESHOLD:
      g_value_set_int (value, s->threshold);
      break;
    case PROP_MULTI_CHANNEL:
      g_value_set_boolean (value, s->multi_channel);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}
