/* GstGpuFftBase: what the base's own files share (gstgpufftbase.c, its
 * -settings, -stream and -results files). Not for subclasses, which use
 * gstgpufftbase.h. Which file does what: see gstgpufftbase.c. */
#ifndef __GST_GPU_FFT_BASE_PRIVATE_H__
#define __GST_GPU_FFT_BASE_PRIVATE_H__

#include "gstgpufftbase.h"
#include "gstgpufftmessage.h"
#include "gstgpufftplanjob.h"

G_BEGIN_DECLS

/* gstgpufftbase-settings.c: the settings (and their geometry generation),
 * copied under the object lock (any thread but the object lock's
 * holder). */
void gst_gpu_fft_base_settings_read (GstGpuFftBase * self,
    GstGpuFftBaseSettings * out, guint * gen);
/* ... into self->live / self->live_gen (streaming thread) */
void gst_gpu_fft_base_settings_read_live (GstGpuFftBase * self);

/* gstgpufftbase.c: the device's opening calls it (gstgpufftdevice.h:
 * names the device, offers its allocator upstream) */
void gst_gpu_fft_base_device_opened (GstElement * element,
    GpufftContext * ctx);

/* gstgpufftbase-stream.c (streaming thread) */
GstClockTime gst_gpu_fft_base_stream_sample_to_time (GstGpuFftBase * self,
    guint64 sample);
/* Applies the settings at a restart (the framing from sample 0); makes a
 * new plan when needed. */
gboolean gst_gpu_fft_base_stream_apply_settings (GstGpuFftBase * self);
/* TRUE when the plan is ready (made by self->plan_job, which is then
 * finished: the plan installed), or a host plan stands in for it (on_host:
 * installed here where `due`, a batch is due, and the host start applies).
 * wait: waits for the job. FALSE with *failed set when there is no plan to
 * wait for or making it failed (the error posted). */
gboolean gst_gpu_fft_base_stream_plan_ready (GstGpuFftBase * self,
    gboolean wait, gboolean due, gboolean * failed);
/* A stream analysed on the host alone gives its share of the process's
 * budget back and is no longer host-only (nothing when it is not). */
void gst_gpu_fft_base_stream_host_only_end (GstGpuFftBase * self);
/* Frames what was received up to avail_end (the input being n samples
 * from pos, `planes`) into batches and hands them to the engine. */
gboolean gst_gpu_fft_base_stream_run_batches (GstGpuFftBase * self,
    guint64 avail_end, gboolean flush, guint64 pos, gpointer const *planes,
    gsize n);
/* Live input: n intervals are not analysed (counted in the next message
 * and the stats; a warning at most every 10 s, which says why:
 * plan_pending, the plan is still being made; else the GPU is behind). */
void gst_gpu_fft_base_stream_drop (GstGpuFftBase * self, guint n,
    gboolean plan_pending);
/* Live input whose plan is still being made: what the store holds is not
 * analysed (counted as dropped intervals); the analysis restarts. */
void gst_gpu_fft_base_stream_drop_stored (GstGpuFftBase * self);
/* Closes the pending interval (partial) and restarts the framing. ending
 * (EOS, flush): a live stream waits for a plan still being made, to
 * analyse what the store holds; otherwise only a non-live one does. */
gboolean gst_gpu_fft_base_stream_flush_and_restart (GstGpuFftBase * self,
    gboolean ending);
/* gpuspectrum at a DISCONT, as spectrum: the pending interval is cut
 * where the stream stands (not posted: its sums go into the next
 * message), the intervals start again here and the samples go on. A
 * stream whose plan is not ready restarts instead. */
gboolean gst_gpu_fft_base_stream_cut (GstGpuFftBase * self);

/* gstgpufftbase-results.c */
void gst_gpu_fft_base_results_on_result (const GpufftGroupResult * result,
    gpointer user_data);
void gst_gpu_fft_base_results_on_host_result (const GpufftGroupResult *
    result, gpointer user_data);
gboolean gst_gpu_fft_base_results_drain (GstGpuFftBase * self);
gboolean gst_gpu_fft_base_results_still_wanted (GstElement * element,
    guint gen);
void gst_gpu_fft_base_results_post_engine_error (GstGpuFftBase * self,
    const gchar * what, const GError * error);

/* gstgpufftbase-stream.c: gpuspectrum's record of the intervals a buffer
 * begins (their messages take its PTS, as spectrum's do) */
void gst_gpu_fft_base_stream_compat_buffer (GstGpuFftBase * self,
    guint64 pos, GstClockTime pts);

G_END_DECLS

#endif /* __GST_GPU_FFT_BASE_PRIVATE_H__ */
