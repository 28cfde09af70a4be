/* gpufftspectrogram: audio in, a spectrogram video out, rendered on a
 * Vulkan device (see gstgpufftspectrogram.c for the element's contract).
 * What the plugin needs to register it; the instance is private to the
 * element's files (spectrogram/gstgpufftspectrogram-private.h). */
#ifndef __GST_GPU_FFT_SPECTROGRAM_H__
#define __GST_GPU_FFT_SPECTROGRAM_H__

#include <gst/gst.h>

G_BEGIN_DECLS

#define GST_TYPE_GPU_FFT_SPECTROGRAM (gst_gpu_fft_spectrogram_get_type ())
G_DECLARE_FINAL_TYPE (GstGpuFftSpectrogram, gst_gpu_fft_spectrogram,
    GST, GPU_FFT_SPECTROGRAM, GstElement)

GST_ELEMENT_REGISTER_DECLARE (gpufftspectrogram);

G_END_DECLS

#endif /* __GST_GPU_FFT_SPECTROGRAM_H__ */
