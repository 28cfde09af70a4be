/* gst-gpufft: the enum types of the elements' properties (see the
 * header). */
#include "gstgpufftenums.h"
#include "gpufft.h"
#include "gstgpufftbands.h"

G_STATIC_ASSERT ((gint) GST_GPU_FFT_WINDOW_FLAT_TOP ==
    (gint) GPUFFT_WINDOW_FLAT_TOP);
G_STATIC_ASSERT ((gint) GST_GPU_FFT_WINDOW_HANN == (gint) GPUFFT_WINDOW_HANN);
G_STATIC_ASSERT ((gint) GST_GPU_FFT_SCALING_DENSITY ==
    (gint) GPUFFT_SCALING_DENSITY);
G_STATIC_ASSERT ((gint) GST_GPU_FFT_SCALING_RAW == (gint) GPUFFT_SCALING_RAW);
G_STATIC_ASSERT ((gint) GST_GPU_FFT_WINDOW_HAMMING_GST ==
    (gint) GPUFFT_WINDOW_HAMMING_GST);

GType
gst_gpu_fft_window_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_GPU_FFT_WINDOW_RECTANGULAR, "Rectangular (boxcar)",
        "rectangular"},
    {GST_GPU_FFT_WINDOW_HANN, "Hann", "hann"},
    {GST_GPU_FFT_WINDOW_HAMMING, "Hamming (0.54/0.46)", "hamming"},
    {GST_GPU_FFT_WINDOW_BLACKMAN, "Blackman", "blackman"},
    {GST_GPU_FFT_WINDOW_BLACKMAN_HARRIS,
        "Blackman-Harris (4 terms)", "blackman-harris"},
    {GST_GPU_FFT_WINDOW_FLAT_TOP, "Flat top", "flat-top"},
    {GST_GPU_FFT_WINDOW_HAMMING_GST,
          "Hamming as GStreamer's spectrum has it (0.53836/0.46164)",
        "hamming-gst"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstGpuFftSpectrumWindow", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

GType
gst_gpu_fft_scaling_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_GPU_FFT_SCALING_SPECTRUM,
        "Power spectrum, dBFS (full-scale sine on a bin = 0 dB)", "spectrum"},
    {GST_GPU_FFT_SCALING_DENSITY,
        "Power spectral density, dB re full-scale^2/Hz", "density"},
    {GST_GPU_FFT_SCALING_RAW,
        "|X|^2 in dB: no window normalisation, no one-sided doubling "
          "(what librosa and spectrum start from)", "raw"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstGpuFftSpectrumScaling", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

GType
gst_gpu_fft_message_format_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_GPU_FFT_MESSAGE_FORMAT_LIST,
        "GstValueList / GstValueArray of floats", "list"},
    {GST_GPU_FFT_MESSAGE_FORMAT_BYTES,
        "GBytes of little-endian float32, channel-major", "bytes"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstGpuFftSpectrumMessageFormat",
        values);
    g_once_init_leave (&type, t);
  }
  return type;
}

const gchar *
gst_gpu_fft_enum_nick (GType type, gint value)
{
  GEnumClass *klass = g_type_class_peek (type);
  GEnumValue *v;

  /* the element's param specs hold a reference on each enum class; keep
   * one here otherwise (static types: it lives as long as the process) */
  if (klass == NULL)
    klass = g_type_class_ref (type);
  v = g_enum_get_value (klass, value);
  return v ? v->value_nick : "unknown";
}

#define DEFINE_ENUM(fn, name, ...)                                      \
GType                                                                   \
fn (void)                                                               \
{                                                                       \
  static GType type = 0;                                                \
  static const GEnumValue values[] = { __VA_ARGS__, {0, NULL, NULL} };  \
                                                                        \
  if (g_once_init_enter (&type)) {                                      \
    GType t = g_enum_register_static (name, values);                    \
    g_once_init_leave (&type, t);                                       \
  }                                                                     \
  return type;                                                          \
}

DEFINE_ENUM (gst_gpu_fft_frequency_scale_get_type, "GstGpuFftFrequencyScale", {
    GST_GPU_FFT_FREQUENCY_SCALE_LINEAR, "Linear: the FFT bins", "linear"}

    , {
    GST_GPU_FFT_FREQUENCY_SCALE_OCTAVE,
      "Fractional-octave bands (IEC 61260-1, base ten)", "octave"}
    , {
    GST_GPU_FFT_FREQUENCY_SCALE_MEL,
      "Mel filterbank (librosa / torchaudio)", "mel"}
    , {
    GST_GPU_FFT_FREQUENCY_SCALE_LOG,
      "Bands evenly spaced in log frequency", "log"}
);

DEFINE_ENUM (gst_gpu_fft_weighting_get_type, "GstGpuFftWeighting", {
    GST_GPU_FFT_WEIGHTING_Z, "Z: none", "z"}

    , {
    GST_GPU_FFT_WEIGHTING_A, "A (IEC 61672-1)", "a"}

    , {
    GST_GPU_FFT_WEIGHTING_C, "C (IEC 61672-1)", "c"}

    , {
    GST_GPU_FFT_WEIGHTING_K, "K (ITU-R BS.1770-4, 0 dB at 997 Hz)", "k"}

);

DEFINE_ENUM (gst_gpu_fft_averaging_get_type, "GstGpuFftAveraging", {
    GPUFFT_AVERAGING_MEAN, "Mean of the interval's frames (Welch)", "mean"}

    , {
    GPUFFT_AVERAGING_EXPONENTIAL,
      "Exponential time weighting (time-constant), carried across intervals",
      "exponential"}
    , {
    GPUFFT_AVERAGING_PEAK_HOLD, "Per-bin maximum over the interval",
      "peak-hold"}
    , {
    GPUFFT_AVERAGING_MAX_HOLD,
      "Per-bin maximum until the reset action or a property change", "max-hold"}
);

DEFINE_ENUM (gst_gpu_fft_mel_scale_get_type, "GstGpuFftMelScale", {
    GST_GPU_FFT_MEL_SCALE_SLANEY, "Slaney (librosa's default)", "slaney"}

    , {
    GST_GPU_FFT_MEL_SCALE_HTK, "HTK (torchaudio's default)", "htk"}

);

DEFINE_ENUM (gst_gpu_fft_mel_norm_get_type, "GstGpuFftMelNorm", {
    GST_GPU_FFT_MEL_NORM_NONE, "None (torchaudio's default)", "none"}

    , {
    GST_GPU_FFT_MEL_NORM_SLANEY,
      "Slaney: each filter's area 1 (librosa's default)", "slaney"}
);
