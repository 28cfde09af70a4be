/* gst-gpufft engine: batched windowed real FFT -> power spectrum -> group
 * average -> peaks, on any Vulkan device, from precompiled SPIR-V.
 *
 * The engine's public contract is its include/ folder: this header
 * (contexts, plans, their analysis), gpufft-render.h (the spectrogram's
 * renderer, on the same contexts) and gpufft-loudness.h (BS.1770 loudness
 * blocks, jobs of the same scheduler). Both use GLib but no GStreamer type.
 *
 * Objects
 *   GpufftContext  one Vulkan device + compute queue, on the process's one
 *                  Vulkan instance (made at the first use, kept). There is one
 *                  context per device per process: gpufft_context_get() with
 *                  the same resolved device returns the same, reference-
 *                  counted context. Thread-safe: plans on one context may be
 *                  used from different threads at the same time.
 *   GpufftPlan     everything for one analysis geometry (fft size, hop,
 *                  window, format, channels, scaling, batch size, peaks). It
 *                  allocates all its GPU memory in gpufft_plan_new(); batches
 *                  then run with no allocation (except the imports of
 *                  segments read in place, GpufftSegment.release). Submit,
 *                  collect, rerun and free are called from one thread at a
 *                  time (the plan's owner); results may arrive on the
 *                  device's completion thread
 *                  (gpufft_plan_set_result_func()). A host plan
 *                  (gpufft_plan_new_host()) computes the same on the CPU,
 *                  without a device, on a thread of its own.
 *
 * Scheduling (one scheduler per context, shared by all its plans)
 *   gpufft_plan_submit() only copies the batch's samples into one of the
 *   plan's staging slots (8; 2 to 7 where a batch's samples pass 32 MiB,
 *   so that staging stays within 256 MiB) (or, for large interleaved segments whose
 *   caller lets it, imports their memory for the GPU to read in place:
 *   VK_EXT_external_memory_host) and queues it: it never waits for the GPU
 *   while a slot is free. The device's submit thread gathers the queued slots of
 *   every plan into one command buffer and submits it as soon as the
 *   previous submissions leave room (at most 4 in flight): under load the
 *   submissions grow instead of multiplying. A batch alone in its
 *   submission runs in its slot's own command buffer, recorded again only
 *   when the batch's shape differs from the slot's last (frames, groups,
 *   copy regions, parameters): a steady live stream's intervals are
 *   recorded once per slot and then only submitted (GPUFFT_RECORD_ONCE=0,
 *   read when a plan is made, records every batch). The device's
 *   completion thread
 *   waits for each submission's fence (a blocking wait, bounded by the
 *   stall deadline below), then delivers the results of each slot, in
 *   submission order per plan.
 *
 * Deadlines (a device that stops responding)
 *   Vulkan tells nothing of a submission's progress before its fence
 *   signals, on GPUs and CPU devices alike, so "no progress" is told from
 *   "slow" by the work a submission carries: each job states its work (the
 *   samples its kernels read), the scheduler measures the device's rate on
 *   the submissions that complete (the slowest recent rate, so that a
 *   loaded CPU device raises it), and a submission whose fence has not
 *   signalled GPUFFT_STALL_S seconds plus 4x its expected time after the
 *   device could start it (the previous one done) counts as a stall (but
 *   for a submission that runs kernels for the first time, a new plan's
 *   first batch: a driver may compile them only then, which takes seconds
 *   on a CPU device; it waits up to the fence timeout): the
 *   device is declared hung (GPUFFT_ERROR_DEVICE_LOST, "the GPU stopped
 *   responding"), every batch in flight or queued on it fails at once, the
 *   context is marked lost (the next gpufft_context_get() makes a new one)
 *   and nothing waits for the device again. The deadline never passes the
 *   fence timeout (GPUFFT_FENCE_TIMEOUT_S, 30x on CPU devices), the
 *   longest any wait on the device may take. So a plan's error reaches
 *   its owner a few seconds after its device stopped: a live stream's
 *   small batches within GPUFFT_STALL_S and a little more, a large batch
 *   on a slow CPU device later, in proportion to its work.
 *   The environment variable GPUFFT_STALL (seconds, read when a context is
 *   made) overrides GPUFFT_STALL_S.
 *
 * Abandoned work
 *   gpufft_plan_free(), gpufft_loudness_free() and gpufft_render_free()
 *   never wait for the device: what is still in flight is abandoned to the
 *   engine, which frees it on a thread of its own once the device has
 *   finished it, failed it, or was declared hung (the stall deadline), all
 *   within the deadlines above (declared hung, the objects' Vulkan
 *   objects and device memory are kept by the lost context, which no new
 *   object uses: its last reference hands it to a thread of the engine's
 *   that destroys it once the device has finished what it was running,
 *   or leaks it, with a warning, if the device has not within the fence
 *   timeout or 10 s, whichever is longer). The caller may
 *   assume, once free returns:
 *   no result function or callback of the object runs any more (one being
 *   called when free was called has returned), and the object must not be
 *   used again; memory handed in with a release function (GpufftSegment)
 *   is released when the device no longer reads it (where it was declared
 *   hung with the read in flight: once it has finished it after all,
 *   within the fence timeout, or its driver reports it lost; else, or if
 *   the process exits first, never); the tags of the groups whose results
 *   never come go to the plan's tag_free (gpufft_plan_set_tag_free()).
 *   gpufft_wait_released() waits for what was abandoned (not for such
 *   late releases); the process's exit waits for both, at most 10 s, then
 *   tells the late releases to give up and waits for them to return
 *   (again at most 10 s).
 *   (A host plan, gpufft_plan_new_host(), has no device: its free waits
 *   for its own thread's CPU work, as described there.)
 *
 * Waits on the caller's thread
 *   gpufft_plan_submit() (every slot in flight), gpufft_plan_collect()
 *   with wait, gpufft_loudness_submit() and _flush() (every slot in
 *   flight) and gpufft_render_run() wait for the device, at most until the
 *   stall deadline. Given a cancel flag (gpufft_plan_set_cancel(),
 *   gpufft_loudness_set_cancel(), GpufftRenderRun.cancel), they also give
 *   up within GPUFFT_CANCEL_POLL_MS of the flag being set non-zero
 *   (GPUFFT_ERROR_CANCELLED: the work goes on, nothing is lost but the
 *   wait): what a flush or a stop of a streaming thread sets.
 *
 * Data flow of one batch
 *   The caller hands a span of raw samples (one or more segments that are
 *   concatenated; each sample reaches the GPU once, overlap does not
 *   multiply what is uploaded). Frame i of the batch covers span samples
 *   [i*hop, i*hop + fft_size). Frames are gathered into groups (the element
 *   uses one group per message interval); the GPU sums the power of the
 *   frames of a group and hands back only the group mean. A group may span
 *   several batches: a group whose `close` is FALSE stays open and the first
 *   group of the next batch continues it.
 *
 * Conversion (on the GPU)
 *   S16, S24 (3 packed bytes, little-endian), S32: value / 2^(bits-1).
 *   F32, F64: as is (F64 converted to float with rounding; denormals -> 0).
 *   downmix = TRUE analyses the arithmetic mean of all channels (one output
 *   channel); FALSE analyses each channel (channels output channels).
 *
 * Window: periodic (DFT-even) form, identical to scipy.signal.get_window
 *   (name, N): see gpufft_window_fill().
 *
 * Power, per bin k = 0 .. N/2 (n_bins = N/2 + 1, bin k at k*rate/N Hz),
 *   exactly scipy.signal.welch's one-sided scalings:
 *     SPECTRUM: |X_k|^2 / (sum w)^2
 *     DENSITY : |X_k|^2 / (rate * sum w^2)
 *   both multiplied by 2 except at k = 0 and k = N/2. The group result is
 *   the arithmetic mean of those values over the group's frames (Welch).
 *
 * Complex output (config.complex_out): X_k of the last frame of each closed
 *   group, unscaled: X_k = sum_n w[n] x[n] exp(-2 pi i k n / N).
 *   With config.phase_mean (MEAN_DB averaging only, GStreamer's spectrum
 *   element), the result's `phase` instead: per bin, the mean over the
 *   group's frames of each frame's atan2 (Im X_k, Re X_k), in radians
 *   (each in [-pi, pi]; bins 0 and N/2, which are real, 0 or pi; 0 for a
 *   group without a frame).
 *
 * Averaging (config.averaging): MEAN as above; EXPONENTIAL: per frame
 *   y = a y + (1 - a) x with a = exp (-hop / (rate * time_constant)),
 *   carried across groups and batches (the IEC 61672 time weighting,
 *   starting from 0), the group result is y after its last frame;
 *   PEAK_HOLD: the per-bin maximum over the group's frames; MAX_HOLD: the
 *   per-bin maximum since the plan started or the last group with `reset`;
 *   MEAN_DB (GStreamer's spectrum element): the mean over the group's frames
 *   of max (10 log10 (gain[k] p) + db_offset, db_floor), each frame floored
 *   before the mean (so the result depends on db_floor, and reads below the
 *   dB of the mean power wherever the level varies from frame to frame);
 *   output_db only, without bands, level or peaks; a group without a frame reads
 *   db_floor. A frame with a NaN or infinite sample leaves y as it is (is
 *   left out of the mean).
 *
 * Analysis stage (gpufft-plan-analysis.c), in this order, on the group result:
 *   bin_gain    power x gain[k] (a frequency weighting), before peaks,
 *               bands and level;
 *   bands       band b = sum_j w_bj p[first_b + j] (sparse rows: fractional
 *               octave, log and mel bands are all such sums);
 *   level       sum_k lw[k] p[k];
 *   frames_out  every frame's own (weighted) bins, or bands, and level,
 *               besides the group result.
 *   With output_db, bands and frame values become max (10 log10 v +
 *   db_offset, db_floor), levels max (10 log10 v, db_floor).
 *
 * Peaks (config.n_peaks > 0): the n_peaks largest local maxima of the group
 *   mean power with peak_min_bin <= k <= peak_max_bin, loudest first. A
 *   local maximum has p[k] > p[k-1] and p[k] >= p[k+1] (a missing neighbour
 *   at the ends of the spectrum counts as -inf). Each comes with its two
 *   neighbours' power so the caller can refine the frequency.
 *
 * Errors: every function that can fail takes a GError ** (domain
 *   GPUFFT_ERROR) and returns FALSE / NULL / -1 on failure. Nothing aborts.
 */
#ifndef __GPUFFT_H__
#define __GPUFFT_H__

#include <glib.h>

G_BEGIN_DECLS

#define GPUFFT_MIN_SIZE 2
#define GPUFFT_MAX_SIZE 65536
#define GPUFFT_MAX_CHANNELS 4096
#define GPUFFT_MAX_PEAKS 64
#define GPUFFT_MAX_BANDS 4096

#define GPUFFT_ERROR (gpufft_error_quark ())
GQuark gpufft_error_quark (void);

typedef enum
{
  GPUFFT_ERROR_NO_VULKAN,       /* no Vulkan loader / instance could be made */
  GPUFFT_ERROR_NO_DEVICE,       /* no Vulkan physical device */
  GPUFFT_ERROR_DEVICE_INDEX,    /* device index out of range */
  GPUFFT_ERROR_NO_COMPUTE_QUEUE,        /* device has no compute queue */
  GPUFFT_ERROR_INVALID_ARGUMENT,        /* bad plan config or batch */
  GPUFFT_ERROR_UNSUPPORTED,     /* valid, but beyond this device's limits */
  GPUFFT_ERROR_OUT_OF_MEMORY,   /* host or device memory exhausted */
  GPUFFT_ERROR_DEVICE_LOST,     /* the device was lost (or hung): make a
                                 * new context */
  GPUFFT_ERROR_FAILED,          /* any other Vulkan failure */
  GPUFFT_ERROR_BUSY,            /* batch.no_wait: every slot is in flight */
  GPUFFT_ERROR_CANCELLED        /* a wait given up: its cancel flag was set
                                 * (the work goes on) */
} GpufftError;

/* How long the completion thread waits for one submission on a GPU before
 * it declares the device hung (30x on CPU devices; the environment variable
 * GPUFFT_FENCE_TIMEOUT, in seconds, overrides it). */
#define GPUFFT_FENCE_TIMEOUT_S 10

/* The stall deadline's base: how long the device may go without finishing
 * a submission that is due (plus 4x the submission's expected time, see
 * "Deadlines" above) before it counts as hung (GPUs and CPU devices
 * alike; the environment variable GPUFFT_STALL, in seconds, overrides
 * it). */
#define GPUFFT_STALL_S 3

/* How often a wait given a cancel flag looks at it (each look follows a
 * blocking wait of at most this long: no spinning). */
#define GPUFFT_CANCEL_POLL_MS 50

/* ---- Context ------------------------------------------------------------ */

typedef struct _GpufftContext GpufftContext;

/* device_index -1: automatic (discrete > integrated > virtual > CPU; among
 * several devices of the best type, the one with the fewest users in this
 * process, so that elements spread over the GPUs); >= 0: that index in
 * vkEnumeratePhysicalDevices order. */
GpufftContext *gpufft_context_get (gint device_index, GError ** error);
GpufftContext *gpufft_context_ref (GpufftContext * ctx);
/* The last unref destroys the context (its scheduler's threads joined);
 * dropped on one of those threads, a thread of the engine's does it. A
 * lost context (its device declared hung) is destroyed on a thread of its
 * own once the device has finished (see "Abandoned work"): the unref
 * returns at once. */
void gpufft_context_unref (GpufftContext * ctx);
/* Waits, at most timeout_ms, until every plan and context dropped on an
 * engine thread (by a result function, or a synchronous bus handler it
 * posted to) has been released by the thread the engine started for it:
 * their device work ends before the caller goes on (a process that exits
 * meanwhile would tear the driver down under that thread). Returns at once
 * (TRUE) on an engine thread; FALSE when the time ran out. Call it where
 * nothing the engine's threads wait for is held. */
gboolean gpufft_wait_released (guint timeout_ms);
const gchar *gpufft_context_get_device_name (GpufftContext * ctx);
gint gpufft_context_get_device_index (GpufftContext * ctx);
/* TRUE for a CPU Vulkan device (VK_PHYSICAL_DEVICE_TYPE_CPU, such as Mesa's
 * lavapipe): plans there run the CPU-shaped kernel (gpufft_plan_get_kernels) */
gboolean gpufft_context_is_cpu (GpufftContext * ctx);

/* What the device's scheduler did since the context was made. */
typedef struct
{
  guint64 submissions;          /* command buffers submitted */
  guint64 reused_submissions;   /* of which submitted again as recorded for
                                 * an earlier one (a batch alone in its
                                 * submission whose commands had not
                                 * changed) */
  guint64 batches;              /* plan batches they carried */
  guint64 max_batches;          /* most batches in one submission */
  guint64 record_ns;            /* CPU time recording and submitting */
  guint64 submit_ns;            /* of which in vkQueueSubmit (every
                                 * submission: also a plan's one-off work) */
  guint64 wait_ns;              /* time the completion thread waited */
  guint64 gpu_ns;               /* GPU time of the submissions (0 without
                                 * timestamps, and on CPU devices, whose
                                 * submissions carry none) */
  guint64 deliver_ns;           /* CPU time delivering results (the result
                                 * functions included) */
  guint64 copied_bytes;         /* input copied into staging */
  guint64 imported_bytes;       /* input the GPU read in place */
  guint64 host_memory_bytes;    /* of which from host memory of the
                                 * engine's (gpufft_host_memory_new()) */
  guint64 plans;                /* plans made */
  guint64 plan_ns;              /* time spent making them */
  guint64 plans_freed;          /* plans freed (their memory returned) */
  guint64 shared_batches;       /* batches whose FFTs shared a dispatch
                                 * with other plans of their geometry */
  guint64 shared_dispatches;    /* those shared dispatches */
} GpufftContextStats;

void gpufft_context_get_stats (GpufftContext * ctx,
    GpufftContextStats * stats);

/* ---- Host memory -------------------------------------------------------- */

/* Host memory of the context's that the device reads in place: a caller
 * that writes its samples here (the element's allocator, which upstream
 * elements allocate their buffers from) and hands them in a GpufftSegment
 * with `host` set saves the CPU copy into staging: the device's own copy
 * engine reads them (an interleaved segment with a release function).
 * Host-visible and coherent memory, cached where the device has such (so
 * that other readers of the buffer read it at the speed of ordinary
 * memory), outside the device's own memory where it can be; mapped for as
 * long as it lives, at an address aligned to at least 64 bytes.
 *
 * Threading: any thread. Ownership: the memory holds a reference on its
 * context; free it once no submitted segment still reads it (after the
 * segment's release). */
typedef struct _GpufftHostMemory GpufftHostMemory;

/* NULL with error set when the device has no such memory or too little. */
GpufftHostMemory *gpufft_host_memory_new (GpufftContext * ctx, gsize size,
    GError ** error);
gpointer gpufft_host_memory_get_data (GpufftHostMemory * mem);
gsize gpufft_host_memory_get_size (GpufftHostMemory * mem);   /* as asked */
GpufftContext *gpufft_host_memory_get_context (GpufftHostMemory * mem);
void gpufft_host_memory_free (GpufftHostMemory * mem);

/* Names of all Vulkan devices, in index order (NULL-terminated, g_strfreev). */
gchar **gpufft_list_devices (GError ** error);

/* ---- Enums -------------------------------------------------------------- */

typedef enum
{
  GPUFFT_FORMAT_S16,
  GPUFFT_FORMAT_S24,            /* 3 bytes per sample, packed */
  GPUFFT_FORMAT_S32,
  GPUFFT_FORMAT_F32,
  GPUFFT_FORMAT_F64
} GpufftFormat;

guint gpufft_format_bytes (GpufftFormat format);

typedef enum
{
  GPUFFT_WINDOW_RECTANGULAR,
  GPUFFT_WINDOW_HANN,
  GPUFFT_WINDOW_HAMMING,
  GPUFFT_WINDOW_BLACKMAN,
  GPUFFT_WINDOW_BLACKMAN_HARRIS,
  GPUFFT_WINDOW_FLAT_TOP,
  GPUFFT_WINDOW_HAMMING_GST     /* GStreamer's gst_fft Hamming: 0.53836,
                                 * 0.46164 (what spectrum uses) */
} GpufftWindow;

/* The scipy name: "boxcar", "hann", "hamming", "blackman", "blackmanharris",
 * "flattop"; ("general_hamming" for HAMMING_GST: scipy's
 * general_hamming (N, 0.53836)). */
const gchar *gpufft_window_scipy_name (GpufftWindow window);

/* Fills out[0..n) with the periodic window, computed in double:
 *   w[n] = sum_k (-1)^k a_k cos (2 pi k n / N)
 * rectangular a = {1}; hann {0.5, 0.5}; hamming {0.54, 0.46};
 * blackman {0.42, 0.5, 0.08}; blackman-harris {0.35875, 0.48829, 0.14128,
 * 0.01168}; flat-top {0.21557895, 0.41663158, 0.277263158, 0.083578947,
 * 0.006947368}. */
void gpufft_window_fill (GpufftWindow window, guint n, gdouble * out);

/* SPECTRUM and DENSITY: scipy.signal's one-sided scalings (|X|^2 / (sum
 * w)^2 or / (rate sum w^2), doubled except at 0 and N/2); RAW: |X_k|^2, no
 * normalisation, no doubling (what librosa and GStreamer's spectrum start
 * from). */
typedef enum
{
  GPUFFT_SCALING_SPECTRUM,
  GPUFFT_SCALING_DENSITY,
  GPUFFT_SCALING_RAW
} GpufftScaling;

typedef enum
{
  GPUFFT_AVERAGING_MEAN,        /* Welch: the mean of the group's frames */
  GPUFFT_AVERAGING_EXPONENTIAL, /* time weighting, time_constant seconds */
  GPUFFT_AVERAGING_PEAK_HOLD,   /* the maximum over the group */
  GPUFFT_AVERAGING_MAX_HOLD,    /* the maximum since the last reset */
  GPUFFT_AVERAGING_MEAN_DB      /* GStreamer spectrum's: the mean of the
                                 * frames' dB values, each floored first
                                 * (output_db only) */
} GpufftAveraging;

/* TRUE for every even size GPUFFT_MIN_SIZE..GPUFFT_MAX_SIZE (powers of two
 * from 32 in the fused radix-16 kernel, four-step from 32768 where shared
 * memory ends; 2-3-5-7 sizes as mixed-radix passes, any other through
 * Bluestein, gpufft-plan-any.c). */
gboolean gpufft_size_is_valid (guint n);

/* ---- Plan --------------------------------------------------------------- */

typedef struct
{
  guint fft_size;               /* N, even, 2..65536 */
  guint hop;                    /* samples between frame starts, >= 1 */
  GpufftWindow window;
  GpufftFormat format;
  guint channels;               /* input channels, 1..GPUFFT_MAX_CHANNELS */
  gboolean planar;              /* segments carry one plane per channel */
  gboolean downmix;             /* TRUE: analyse the mean of the channels */
  GpufftScaling scaling;
  gdouble rate;                 /* sample rate in Hz (> 0) */
  guint max_frames;             /* most frames in one batch; 0 = automatic */
  guint max_groups;             /* most groups in one batch; 0 = automatic */
  guint n_peaks;                /* 0..GPUFFT_MAX_PEAKS */
  guint peak_min_bin;           /* inclusive */
  guint peak_max_bin;           /* inclusive; 0 or > N/2 means N/2 */
  gboolean complex_out;
  gboolean phase_mean;          /* with complex_out and MEAN_DB: the mean
                                 * phase (result.phase), not X_k */
  /* output_db: the group results' `power` holds
   *   max (10*log10 (mean power) + db_offset, batch.db_floor)
   * computed on the GPU, instead of the linear mean power (peaks keep
   * linear power). Saves the host a log10 per bin. */
  gboolean output_db;
  gfloat db_offset;
  /* Averaging and the analysis stage (see above). The arrays are read by
   * gpufft_plan_new() only (gpufft_plan_get_config() returns them NULL,
   * n_bands kept); NULL: no gain (1), no level, no bands. */
  GpufftAveraging averaging;
  gdouble time_constant;        /* EXPONENTIAL: seconds, > 0 */
  const gfloat *bin_gain;       /* [n_bins], >= 0 */
  const gfloat *level_weights;  /* [n_bins] */
  guint n_bands;                /* 0..GPUFFT_MAX_BANDS */
  const guint *band_first;      /* [n_bands] first bin */
  const guint *band_bins;       /* [n_bands] bins (first + bins <= n_bins) */
  const gfloat *band_weights;   /* [sum of band_bins], band after band */
  gboolean frames_out;
  /* quick_start (CPU devices): where the plan's own kernel is slow for the
   * driver to make (lavapipe: fft_size 1024), the plan starts on a kernel
   * made in a fraction of that time, and runs its own, faster but rounded
   * differently, from the first batch submitted once that is made beside
   * it, by a thread of the engine's that holds a reference on the context
   * until then (gpufft_wait_released() and the process's exit wait for
   * it). For live streams, whose first results matter more than
   * bit-for-bit repeatable ones. GPUFFT_CPU_QUICK in the environment
   * overrides it: off, only (the quick kernel for good), auto (a quick
   * start for every plan). */
  gboolean quick_start;
} GpufftPlanConfig;

/* Defaults: N 1024, hop 512, hann, F32, 1 channel interleaved, downmix,
 * spectrum scaling, rate 48000, automatic batch, 1 peak over all bins, no
 * complex output, linear power output, mean, no analysis stage, no quick
 * start. */
void gpufft_plan_config_init (GpufftPlanConfig * config);

typedef struct _GpufftPlan GpufftPlan;

GpufftPlan *gpufft_plan_new (GpufftContext * ctx,
    const GpufftPlanConfig * config, GError ** error);
/* Frees the plan without waiting for the device (see "Abandoned work"):
 * with no batch in flight, at once, on this thread; else it waits only for
 * a result being delivered (the result function's own time, never the
 * device's) and abandons the batches in flight: no result reaches the
 * result function after it returns, and a thread of the engine's frees
 * the plan once the device has finished or failed them (at the latest at
 * the stall deadline). Called from one of the device's scheduler threads
 * (a result function's callee, such as a synchronous bus handler that
 * stops its pipeline), it does not wait for the delivery either. */
void gpufft_plan_free (GpufftPlan * plan);

/* A flag of the caller's (read atomically, NULL: none) that cuts the
 * plan's waits short: gpufft_plan_submit() waiting for a slot and
 * gpufft_plan_collect() with wait fail with GPUFFT_ERROR_CANCELLED within
 * GPUFFT_CANCEL_POLL_MS of it becoming non-zero (a submit changes
 * nothing then; the batches in flight go on). The flag must outlive the
 * plan's use. Owner's thread. */
void gpufft_plan_set_cancel (GpufftPlan * plan, const gint * cancel);

/* A plan that runs on the host: no device, no context, nothing to compile.
 * It computes what a device plan of the same configuration computes (the
 * definitions above, in double precision on the CPU, results stored as
 * float: equal to a device plan's to float rounding), so that a caller can
 * analyse its first intervals while its device plan is being made (device
 * opening, shader compilation) and hand over to it between groups. Every
 * plan function takes it with the same contract, with these differences:
 *   - results arrive on the plan's own worker thread (one per plan, named
 *     "gpufft-host"), in order, with no lock held; from that thread (a
 *     result function's callee) gpufft_plan_collect() does not wait and
 *     gpufft_plan_free() returns at once, as they do on a device's
 *     scheduler threads (no result after it; the worker frees the plan);
 *   - gpufft_plan_submit() always copies the span (segments in host
 *     memory are read as ordinary memory): a segment's release function
 *     is called at the end of the submit; 8 slots
 *     (gpufft_plan_get_n_slots()); a submission fails only for a bad
 *     batch, BUSY (no_wait) or memory that runs out;
 *   - gpufft_plan_get_import_min_bytes() is 0, gpufft_plan_get_kernels()
 *     GPUFFT_KERNELS_GPU (it runs no kernel: gpufft_plan_is_host() tells),
 *     gpufft_plan_rerun() fails (GPUFFT_ERROR_UNSUPPORTED) and
 *     gpufft_plan_get_timings() is not valid;
 *   - gpufft_plan_get_max_frames() and _get_max_groups() resolve as a
 *     device plan's on a device with no limits of its own below 32-bit
 *     sizes (automatic: the frames of 4 MiB of samples, the groups of the
 *     results' budget, at most frames + 1): the numbers a device plan
 *     gives on most devices (one whose buffers, workgroup counts or CPU
 *     kernel cap them gives fewer).
 * The configuration is checked as gpufft_plan_new() checks it
 * (GPUFFT_ERROR_INVALID_ARGUMENT); EXPONENTIAL and MAX_HOLD averaging,
 * whose state carries across groups, are refused
 * (GPUFFT_ERROR_UNSUPPORTED). Cost: an FFT of N/2 complex points in double
 * per frame and output channel (Bluestein's, of twice that or more, for
 * sizes whose N/2 is not a power of two); measured on one x86-64 core:
 * about 5 us a frame at N 1024, 0.7 ms at N 65536. */
GpufftPlan *gpufft_plan_new_host (const GpufftPlanConfig * config,
    GError ** error);
/* TRUE for a plan of gpufft_plan_new_host() */
gboolean gpufft_plan_is_host (GpufftPlan * plan);

const GpufftPlanConfig *gpufft_plan_get_config (GpufftPlan * plan);
guint gpufft_plan_get_max_frames (GpufftPlan * plan);  /* resolved */
guint gpufft_plan_get_max_groups (GpufftPlan * plan);  /* resolved */
guint gpufft_plan_get_n_bins (GpufftPlan * plan);      /* N/2 + 1 */
guint gpufft_plan_get_out_channels (GpufftPlan * plan);        /* 1 or channels */
/* Smallest interleaved segment (bytes) the plan reads in place when its
 * GpufftSegment has a release function; 0 when the device cannot (then
 * every segment is copied). */
gsize gpufft_plan_get_import_min_bytes (GpufftPlan * plan);
/* Most samples (per channel) one batch can take: (max_frames-1)*hop + N. */
gsize gpufft_plan_get_max_span (GpufftPlan * plan);
/* The plan's staging slots: at most this many batches are in flight
 * (gpufft_plan_in_flight()). */
guint gpufft_plan_get_n_slots (GpufftPlan * plan);

/* The FFT kernels a plan runs. GPUFFT_KERNELS_CPU: shaped for CPU Vulkan
 * devices (fft_cpu.comp, fft_cpu_large.comp: one subgroup of 8 lanes per
 * frame, no shared memory, no barriers, the input read as texels), for the
 * power-of-two sizes 32..65536 on devices with subgroups of at least 8
 * invocations and their shuffle and vote operations; GPUFFT_KERNELS_GPU:
 * the workgroup-wide kernels (fft.comp, the four-step, and fft_any.comp,
 * which every other size runs on any device). Which one: by device type
 * (CPU devices take the CPU kernels); GPUFFT_KERNEL_PATH=cpu|gpu|other|any|
 * auto in the environment forces a path for the plans made while it is set
 * (other: the path the device would not take; any: fft_any.comp for every
 * size, GPUFFT_KERNELS_GPU; auto: by device type). A host plan
 * (gpufft_plan_new_host()), which runs no kernel, returns
 * GPUFFT_KERNELS_GPU. */
typedef enum
{
  GPUFFT_KERNELS_GPU,
  GPUFFT_KERNELS_CPU
} GpufftKernels;

GpufftKernels gpufft_plan_get_kernels (GpufftPlan * plan);

/* ---- Batches ------------------------------------------------------------ */

typedef struct
{
  /* Interleaved: `data` holds n_samples * channels samples.
   * Planar: `planes[c]` holds n_samples samples of channel c (data unused). */
  gconstpointer data;
  const gconstpointer *planes;
  gsize n_samples;              /* samples per channel */
  /* Optional (interleaved input): release != NULL lets the engine read the
   * memory in place instead of copying it, when the device can import host
   * memory and the segment is large enough (gpufft_plan_get_import_min_
   * bytes()). The caller keeps `data` valid and unchanged until the engine
   * calls release (release_data), exactly once: at the end of
   * gpufft_plan_submit() when it copied the segment or the submit failed,
   * else on the device's completion thread once the GPU has read it. When
   * the device is lost or hangs with the read in flight, once a fence
   * submitted behind it signals (the device has finished it), on a thread
   * of the engine's; never if that does not happen within the fence
   * timeout (the memory might still be read: it stays referenced, a
   * deliberate leak). */
  GDestroyNotify release;
  gpointer release_data;
  /* Optional (interleaved input, with release): `data` lies in this host
   * memory of the plan's context (gpufft_host_memory_new()): the device
   * reads the segment there, with no CPU copy, from 64 KiB (smaller ones
   * are copied: the copy costs less than recording the batch's commands
   * anew, which a new copy region makes necessary; the environment
   * variable GPUFFT_HOST_MEMORY_MIN_BYTES, read when a plan is made,
   * overrides it). A segment outside it, or memory of another context, is
   * copied. */
  GpufftHostMemory *host;
} GpufftSegment;

typedef struct
{
  guint n_frames;               /* frames of this group in this batch (>= 0) */
  gboolean close;               /* the group ends here: its result comes back */
  gpointer tag;                 /* close only: handed back in the result */
  gboolean reset;               /* EXPONENTIAL, MAX_HOLD: the state starts
                                 * afresh at this group's first frame */
} GpufftGroup;

typedef struct
{
  const GpufftSegment *segments;        /* concatenated into the span */
  guint n_segments;
  guint n_frames;               /* sum of groups[].n_frames, <= max_frames */
  const GpufftGroup *groups;    /* 1..max_groups; only the last may stay open */
  guint n_groups;
  gfloat db_floor;              /* output_db only: floor in dB (e.g. -90) */
  /* TRUE: when every slot is in flight, fail with GPUFFT_ERROR_BUSY (and
   * change nothing) instead of waiting for one; only for a batch that
   * neither continues nor leaves open a group (one that does waits). */
  gboolean no_wait;
} GpufftBatch;

/* Copies the span (one copy into persistently mapped upload memory) into a
 * free slot and queues it for the device's scheduler; returns without
 * waiting for the GPU. The span must hold at least (n_frames-1)*hop + N
 * samples when n_frames > 0 (extra samples are ignored and not uploaded).
 * When all of the plan's slots are in flight it waits for the oldest to
 * complete (or fails with GPUFFT_ERROR_BUSY, see no_wait; or with
 * GPUFFT_ERROR_CANCELLED, see gpufft_plan_set_cancel(); at the latest at
 * the oldest's stall deadline). Fails with the plan's error once a batch
 * has failed on the device. */
gboolean gpufft_plan_submit (GpufftPlan * plan, const GpufftBatch * batch,
    GError ** error);

typedef struct
{
  guint bin;                    /* G_MAXUINT: no (further) peak */
  gfloat power[3];              /* mean power at bin-1, bin, bin+1 (0 outside) */
} GpufftPeak;

typedef struct
{
  guint64 group_index;          /* closed groups counted from 0 since plan_new */
  guint n_frames;               /* frames in the group (0 for an empty one) */
  guint channels;               /* output channels */
  guint n_bins;
  /* [channels] frames actually averaged per channel: a frame with a NaN or
   * infinite sample (in that channel, or in any channel when downmixing)
   * is left out of its group's mean, so it spoils nothing else. A channel
   * with 0 frames used has power 0 (the floor in dB). Counted exactly up
   * to 2^24 frames per group. */
  const guint *channel_frames;
  const gfloat *power;          /* [channels][n_bins] mean scaled power
                                 * (dB when config.output_db) */
  const gfloat *complex_data;   /* [channels][n_bins][2] or NULL; zeros
                                 * for a group without frames */
  const gfloat *phase;          /* config.phase_mean: [channels][n_bins]
                                 * mean phase (radians); else NULL */
  const GpufftPeak *peaks;      /* [channels][n_peaks] or NULL */
  guint n_peaks;
  gpointer tag;                 /* the closing GpufftGroup's tag */
  const gfloat *bands;          /* [channels][n_bands] or NULL */
  guint n_bands;
  const gfloat *level;          /* [channels] or NULL */
  /* frames_out: [n_frames][channels][frame_stride]: each frame's own
   * frame_values values (n_bins bins, or n_bands bands), then its level
   * when there is one (frame_stride = frame_values + 1); a frame with a
   * NaN or infinite sample has zeros; NULL when a batch that held some of
   * the group's frames failed */
  const gfloat *frames;
  guint frame_values, frame_stride;
  /* TRUE: the batch failed on the device (the plan's error says why); only
   * group_index, n_frames and tag are set. */
  gboolean failed;
} GpufftGroupResult;

/* Called once per closed group, in order. The pointers are valid only for
 * the duration of the call; the callback must not call back into the plan
 * (no submit, collect or free from it). */
typedef void (*GpufftResultFunc) (const GpufftGroupResult * result,
    gpointer user_data);

/* Results go to func on the device's completion thread, as soon as each
 * batch is done (no engine lock is held during the call), instead of
 * waiting for gpufft_plan_collect(). Set it before the first submit. */
void gpufft_plan_set_result_func (GpufftPlan * plan, GpufftResultFunc func,
    gpointer user_data);

/* Who owns the tags (GpufftGroup.tag): a tag handed in with a batch that
 * gpufft_plan_submit() accepted is the engine's until it comes back in a
 * result (the result function's call or collect()); one that never will
 * (a plan freed with batches in flight or results in its stash, or freed
 * by its result function) is passed to tag_free instead, on whichever
 * thread drops it (the device's completion thread, a thread of the
 * engine's freeing an abandoned plan, a host plan's worker, or the caller
 * of gpufft_plan_free()), at the latest once gpufft_wait_released()
 * returns TRUE. NULL tags are never passed; tag_free NULL (the default):
 * such tags are dropped. A batch that submit refused stays the caller's,
 * tags included. Set it before the first submit. */
void gpufft_plan_set_tag_free (GpufftPlan * plan, GDestroyNotify tag_free);

/* Hands the results of finished batches, oldest first, to func (plans
 * without a result function), failed ones too (result->failed, with their
 * tags); a plan freed with results still in its stash drops them, their
 * tags to its tag_free. wait = TRUE: first waits until every batch
 * in flight is done (with a result function: until its results were
 * delivered; this is the plan's drain); FALSE: only those already done.
 * Returns the number of batches collected, or -1 with error set (device
 * lost, hung, ...; GPUFFT_ERROR_CANCELLED: the plan's cancel flag cut the
 * wait short, gpufft_plan_set_cancel()). The wait ends at the latest at
 * the stall deadline of the batches in flight. Called from one of the
 * device's scheduler threads (a result function's callee), wait does not
 * wait. */
gint gpufft_plan_collect (GpufftPlan * plan, gboolean wait,
    GpufftResultFunc func, gpointer user_data, GError ** error);

/* Batches submitted and not yet collected (or, with a result function, not
 * yet delivered). */
guint gpufft_plan_in_flight (GpufftPlan * plan);

/* ---- Benchmark helpers -------------------------------------------------- */

typedef struct
{
  gboolean valid;               /* FALSE when the device has no timestamps */
  gdouble upload_ns;            /* GPU time of the host->device copy */
  gdouble download_ns;          /* GPU time of the results' device->host copy */
  gdouble compute_ns;           /* GPU time of the kernels (all repeats) */
  gdouble reduce_ns;            /* rerun only: the part spent in the group
                                 * reduce + peak kernel; -1 otherwise */
} GpufftTimings;

/* Re-runs the kernels of the last submitted batch `repeats` times in one
 * submission on the input already on the GPU (no upload), waits, and
 * discards the results. For benchmarks; the last batch must have left no
 * group open, and the plan must average with MEAN (the other modes' state
 * would move on). */
gboolean gpufft_plan_rerun (GpufftPlan * plan, guint repeats, GError ** error);

/* GPU timings of the last completed batch's submission (which may have
 * carried other plans' batches too; not on CPU devices) or rerun. */
void gpufft_plan_get_timings (GpufftPlan * plan, GpufftTimings * timings);

G_END_DECLS

#endif /* __GPUFFT_H__ */
