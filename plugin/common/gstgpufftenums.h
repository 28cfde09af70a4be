/* gst-gpufft: the enum types of the elements' properties, shared by every
 * element (gpufftspectrum, gpuspectrum, gpufftspectrogram). Registered
 * once, thread-safe; the registered type names are those gst-inspect
 * shows. */
#ifndef __GST_GPU_FFT_ENUMS_H__
#define __GST_GPU_FFT_ENUMS_H__

#include <glib-object.h>

G_BEGIN_DECLS

/* Same values as GpufftWindow / GpufftScaling of the engine. */
typedef enum
{
  GST_GPU_FFT_WINDOW_RECTANGULAR,
  GST_GPU_FFT_WINDOW_HANN,
  GST_GPU_FFT_WINDOW_HAMMING,
  GST_GPU_FFT_WINDOW_BLACKMAN,
  GST_GPU_FFT_WINDOW_BLACKMAN_HARRIS,
  GST_GPU_FFT_WINDOW_FLAT_TOP,
  GST_GPU_FFT_WINDOW_HAMMING_GST
} GstGpuFftWindow;

typedef enum
{
  GST_GPU_FFT_SCALING_SPECTRUM,
  GST_GPU_FFT_SCALING_DENSITY,
  GST_GPU_FFT_SCALING_RAW
} GstGpuFftScaling;

typedef enum
{
  GST_GPU_FFT_MESSAGE_FORMAT_LIST,
  GST_GPU_FFT_MESSAGE_FORMAT_BYTES
} GstGpuFftMessageFormat;

#define GST_TYPE_GPU_FFT_WINDOW (gst_gpu_fft_window_get_type ())
GType gst_gpu_fft_window_get_type (void);
#define GST_TYPE_GPU_FFT_SCALING (gst_gpu_fft_scaling_get_type ())
GType gst_gpu_fft_scaling_get_type (void);
#define GST_TYPE_GPU_FFT_MESSAGE_FORMAT (gst_gpu_fft_message_format_get_type ())
GType gst_gpu_fft_message_format_get_type (void);

/* The analyser modes (values: GstGpuFftFrequencyScale, GstGpuFftWeighting,
 * GstGpuFftMelScale, GstGpuFftMelNorm of gstgpufftbands.h, and
 * the engine's GpufftAveraging). */
#define GST_TYPE_GPU_FFT_FREQUENCY_SCALE (gst_gpu_fft_frequency_scale_get_type ())
GType gst_gpu_fft_frequency_scale_get_type (void);
#define GST_TYPE_GPU_FFT_WEIGHTING (gst_gpu_fft_weighting_get_type ())
GType gst_gpu_fft_weighting_get_type (void);
#define GST_TYPE_GPU_FFT_AVERAGING (gst_gpu_fft_averaging_get_type ())
GType gst_gpu_fft_averaging_get_type (void);
#define GST_TYPE_GPU_FFT_MEL_SCALE (gst_gpu_fft_mel_scale_get_type ())
GType gst_gpu_fft_mel_scale_get_type (void);
#define GST_TYPE_GPU_FFT_MEL_NORM (gst_gpu_fft_mel_norm_get_type ())
GType gst_gpu_fft_mel_norm_get_type (void);

/* The nick of a value ("hann", "density", ...). */
const gchar *gst_gpu_fft_enum_nick (GType type, gint value);

G_END_DECLS

#endif /* __GST_GPU_FFT_ENUMS_H__ */
