/* gpufftspectrum: what the element's files share (see gstgpufftspectrum.c
 * for which file does what). Not installed. */
#ifndef __GST_GPU_FFT_SPECTRUM_PRIVATE_H__
#define __GST_GPU_FFT_SPECTRUM_PRIVATE_H__

#include "gstgpufftspectrum.h"
#include "gstgpufftspectrum-message.h"

G_BEGIN_DECLS

GST_DEBUG_CATEGORY_EXTERN (gst_gpu_fft_spectrum_debug);

/* gstgpufftspectrum.c: the settings, copied under the object lock. */
void gst_gpu_fft_spectrum_read_settings (GstGpuFftSpectrum * self,
    GstGpuFftSpectrumSettings * out, guint * gen);
/* ... into self->live / self->live_gen */
void gst_gpu_fft_spectrum_read_live_settings (GstGpuFftSpectrum * self);
/* After a property changed self->settings (object lock held; old: before):
 * a change of what the plan or the framing is made from restarts the
 * analysis at the next buffer (geometry_gen). */
void gst_gpu_fft_spectrum_settings_changed (GstGpuFftSpectrum * self,
    const GstGpuFftSpectrumSettings * old);

/* gstgpufftspectrum-stream.c (streaming thread) */
GstClockTime gst_gpu_fft_spectrum_sample_to_time (GstGpuFftSpectrum * self,
    guint64 sample);
gboolean gst_gpu_fft_spectrum_upstream_is_live (GstGpuFftSpectrum * self);
/* Applies the settings at a restart (the framing from sample 0); makes a
 * new plan when needed. */
gboolean gst_gpu_fft_spectrum_apply_settings (GstGpuFftSpectrum * self);
/* Frames what was received up to avail_end (the input being n samples
 * from pos, `planes`) into batches and hands them to the engine. */
gboolean gst_gpu_fft_spectrum_run_batches (GstGpuFftSpectrum * self,
    guint64 avail_end, gboolean flush, guint64 pos, gpointer const *planes,
    gsize n);
/* Closes the pending interval (partial) and restarts the framing. */
gboolean gst_gpu_fft_spectrum_flush_and_restart (GstGpuFftSpectrum * self);

/* gstgpufftspectrum-results.c */
void gst_gpu_fft_spectrum_on_result (const GpufftGroupResult * result,
    gpointer user_data);
gboolean gst_gpu_fft_spectrum_drain (GstGpuFftSpectrum * self);
void gst_gpu_fft_spectrum_post_engine_error (GstGpuFftSpectrum * self,
    const gchar * what, const GError * error);

G_END_DECLS

#endif /* __GST_GPU_FFT_SPECTRUM_PRIVATE_H__ */
