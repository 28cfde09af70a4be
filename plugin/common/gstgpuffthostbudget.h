/* gst-gpufft: the process's budget for live streams analysed on the host
 * alone (gstgpufftbase-host.c, "host only").
 *
 * A light live stream (a microphone, a monitor) costs less CPU analysed in
 * C on the CPU, without any Vulkan device, than through a device, whose
 * opening and whose driver's own threads cost more than its analysis
 * (docs/performance.md). Many streams are the device's: the budget
 * bounds what the host-only streams of one process take together, in FFT
 * points a second (each stream's output channels x rate / hop x fft-size;
 * a gpuloudness stream's 2 x channels x rate).
 * A stream that does not fit uses a device, as every stream did before,
 * and once a GPU is open in the process the host-only streams of the
 * analysers move to it (gst_gpu_fft_device_gpu_opened); gpuloudness's stay
 * on the host until their caps change (their filter state is the host's).
 *
 * The default budget, 2^19 points a second, takes two stereo streams of
 * fft 1024 and hop 512 at 48 kHz analysed per channel (multi-channel),
 * five mixed down. Once the only devices opened in the process are CPU
 * devices (lavapipe: their analysis runs on the same cores, with more
 * overhead than the host's), the budget is 2^26 points a second (128 such
 * stereo streams; the host start's own limit for one stream, 64 M points a
 * second). GPUFFT_HOST_BUDGET in the environment sets it instead in both
 * cases (points a second; 0: no stream is analysed on the host alone),
 * read at each take.
 *
 * Any thread; a process-wide lock of its own, never held across a call
 * out. */
#ifndef __GST_GPU_FFT_HOST_BUDGET_H__
#define __GST_GPU_FFT_HOST_BUDGET_H__

#include <glib.h>

G_BEGIN_DECLS

/* What an element's device-name reads while its stream is on the host
 * alone. */
#define GST_GPU_FFT_HOST_DEVICE_NAME "CPU (host analysis)"

#define GST_GPU_FFT_HOST_BUDGET_DEFAULT 524288.0
#define GST_GPU_FFT_HOST_BUDGET_CPU_DEVICES 67108864.0

/* Takes `points` (FFT points a second) from the budget: TRUE when the
 * host-only streams' total stays within it (the caller gives them back
 * with gst_gpu_fft_host_budget_give), FALSE (nothing taken) otherwise.
 * cpu_devices: the devices opened in the process so far are all CPU
 * devices, and there is one. */
gboolean gst_gpu_fft_host_budget_take (gdouble points, gboolean cpu_devices);

/* Gives back what a take of `points` took. */
void gst_gpu_fft_host_budget_give (gdouble points);

G_END_DECLS

#endif /* __GST_GPU_FFT_HOST_BUDGET_H__ */
