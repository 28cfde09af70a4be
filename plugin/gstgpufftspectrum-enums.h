/* gpufftspectrum: the enum types of the element's properties. */
#ifndef __GST_GPU_FFT_SPECTRUM_ENUMS_H__
#define __GST_GPU_FFT_SPECTRUM_ENUMS_H__

#include <glib-object.h>

G_BEGIN_DECLS

/* Same values as GpufftWindow / GpufftScaling of the engine. */
typedef enum
{
  GST_GPU_FFT_SPECTRUM_WINDOW_RECTANGULAR,
  GST_GPU_FFT_SPECTRUM_WINDOW_HANN,
  GST_GPU_FFT_SPECTRUM_WINDOW_HAMMING,
  GST_GPU_FFT_SPECTRUM_WINDOW_BLACKMAN,
  GST_GPU_FFT_SPECTRUM_WINDOW_BLACKMAN_HARRIS,
  GST_GPU_FFT_SPECTRUM_WINDOW_FLAT_TOP,
  GST_GPU_FFT_SPECTRUM_WINDOW_HAMMING_GST
} GstGpuFftSpectrumWindow;

typedef enum
{
  GST_GPU_FFT_SPECTRUM_SCALING_SPECTRUM,
  GST_GPU_FFT_SPECTRUM_SCALING_DENSITY,
  GST_GPU_FFT_SPECTRUM_SCALING_RAW
} GstGpuFftSpectrumScaling;

typedef enum
{
  GST_GPU_FFT_SPECTRUM_MESSAGE_FORMAT_LIST,
  GST_GPU_FFT_SPECTRUM_MESSAGE_FORMAT_BYTES
} GstGpuFftSpectrumMessageFormat;

#define GST_TYPE_GPU_FFT_SPECTRUM_WINDOW (gst_gpu_fft_spectrum_window_get_type ())
GType gst_gpu_fft_spectrum_window_get_type (void);
#define GST_TYPE_GPU_FFT_SPECTRUM_SCALING (gst_gpu_fft_spectrum_scaling_get_type ())
GType gst_gpu_fft_spectrum_scaling_get_type (void);
#define GST_TYPE_GPU_FFT_SPECTRUM_MESSAGE_FORMAT (gst_gpu_fft_spectrum_message_format_get_type ())
GType gst_gpu_fft_spectrum_message_format_get_type (void);

/* The analyser modes (values: GstGpuFftFrequencyScale, GstGpuFftWeighting,
 * GstGpuFftMelScale, GstGpuFftMelNorm of gstgpufftspectrum-bands.h, and
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
const gchar *gst_gpu_fft_spectrum_enum_nick (GType type, gint value);

G_END_DECLS

#endif /* __GST_GPU_FFT_SPECTRUM_ENUMS_H__ */
