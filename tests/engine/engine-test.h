/* Shared helpers of the engine tests: device handling, the double-precision
 * references (FFT, windows, scipy's scalings), test signals in every sample
 * format, and a collector that copies group results.
 *
 * Everything here is independent of the engine's own code: the references
 * use their own window coefficients and their own FFT. */
#ifndef __ENGINE_TEST_H__
#define __ENGINE_TEST_H__

#include <glib.h>
#include "gpufft.h"

G_BEGIN_DECLS

/* g_test_init, then opens the Vulkan device (GPUFFT_TEST_DEVICE, default
 * -1). Without a device the device tests skip, unless the environment has
 * GPUFFT_TESTS_REQUIRE_DEVICE=1 (CI): then the program bails out. */
void et_init (int *argc, char ***argv);

/* The shared context, or NULL after g_test_skip () when there is none. */
GpufftContext *et_context (void);

/* Frees the shared context; returns g_test_run ()'s result. */
int et_run (void);

/* Fails the current test with a message that also goes to stderr at once
 * (a later g_assert would otherwise hide it). */
#define et_fail(...) G_STMT_START {                         \
    gchar *et_fail_msg_ = g_strdup_printf (__VA_ARGS__);    \
    g_printerr ("FAIL: %s\n", et_fail_msg_);                 \
    g_test_fail_printf ("%s", et_fail_msg_);                \
    g_free (et_fail_msg_);                                  \
  } G_STMT_END

/* ---- References (double precision) ------------------------------------- */

/* In-place forward complex FFT, X_k = sum x_n exp(-2 pi i k n / n),
 * iterative radix-2, twiddles from exact angles. n: power of two. */
void et_fft_double (gdouble * re, gdouble * im, guint n);

/* In-place forward complex DFT of any length n in double: recursive on
 * the smallest prime factor, direct sums for primes, exact angles. */
void et_dft_double (gdouble * re, gdouble * im, guint n);

/* X_0 .. X_{n/2} of a real sequence (any even n). */
void et_rfft_double (const gdouble * x, guint n, gdouble * re, gdouble * im);

/* The periodic window from its coefficients written out here. */
void et_window (GpufftWindow window, guint n, gdouble * out);

/* Number of cosine terms and the coefficients a_k of a window. */
guint et_window_coefs (GpufftWindow window, const gdouble ** coefs);

/* scipy's one-sided factor for bin k: 1/(sum w)^2 or 1/(rate sum w^2), times
 * 2 except at k = 0 and k = n/2. */
gdouble et_scale (GpufftScaling scaling, const gdouble * w, guint n,
    gdouble rate, guint k);

/* ---- Signals ------------------------------------------------------------ */

/* A stream of `len` samples per channel in a sample format: `x` holds the
 * exact values the engine must see (integers already divided by
 * 2^(bits-1)), `bytes` / `planes` the encoded data. */
typedef struct
{
  GpufftFormat format;
  gboolean planar;
  guint channels;
  gsize len;
  gdouble **x;                  /* [channels][len] */
  guint8 *bytes;                /* interleaved: len * channels samples */
  guint8 **planes;              /* planar: [channels], len samples each */
} EtInput;

/* Channel c: noise_amp * uniform(-1, 1) + sum of tones amp*sin(2 pi f t + ph)
 * with f in cycles per sample chosen per channel from the seed, quantised
 * to the format. */
EtInput *et_input_new (GpufftFormat format, gboolean planar, guint channels,
    gsize len, gdouble noise_amp, gdouble tone_amp, guint32 seed);
void et_input_free (EtInput * in);

/* Fills segs[0..n_split) (and plane pointer storage, n_split * channels)
 * with the stream samples [off, off + n) split at uneven points. */
void et_input_segments (const EtInput * in, gsize off, gsize n,
    guint n_split, GpufftSegment * segs, gconstpointer * plane_store);

/* The analysed signal at stream sample t: channel c, or the mean of all
 * channels when c < 0. */
gdouble et_input_value (const EtInput * in, gint c, gsize t);

/* Reference group power: mean over n_frames frames starting at stream
 * sample first + i*hop of the scaled one-sided power; out[n/2+1]. */
void et_ref_power (const EtInput * in, gint c, gsize first, guint hop,
    guint n_frames, guint n, GpufftWindow window, GpufftScaling scaling,
    gdouble rate, gdouble * out);

/* Reference unscaled windowed X_k of the frame at stream sample start. */
void et_ref_complex (const EtInput * in, gint c, gsize start, guint n,
    GpufftWindow window, gdouble * re, gdouble * im);

/* ---- Results ------------------------------------------------------------ */

typedef struct
{
  guint64 group_index;
  guint n_frames;
  guint channels;
  guint n_bins;
  guint n_peaks;
  guint *channel_frames;        /* [channels] frames used */
  gfloat *power;                /* [channels][n_bins] */
  gfloat *complex_data;         /* [channels][n_bins][2] or NULL */
  GpufftPeak *peaks;            /* [channels][n_peaks] or NULL */
} EtResult;

/* GPtrArray of EtResult*, filled by et_collect_cb. */
GPtrArray *et_results_new (void);
void et_collect_cb (const GpufftGroupResult * result, gpointer user_data);

/* Submits, then collects with wait = TRUE into `results`; fails the test
 * and returns FALSE on an error. */
gboolean et_submit_collect (GpufftPlan * plan, const GpufftBatch * batch,
    GPtrArray * results);

/* ---- Checks ------------------------------------------------------------- */

/* Per-bin power check for the bins with r within dyn_db of the largest r:
 *   |g - r| / r <= tol + 2 ET_FFT_EPS sqrt (mean (r) / r)
 * The second term is what any single-precision FFT does to a bin far below
 * the mean: an error of ET_FFT_EPS times the rms bin magnitude (the
 * relative L2 error, measured at 1.1e-7 to 1.6e-7 here) moves |X_k|^2 by
 * up to 2 ET_FFT_EPS |X_k| rms|X|. Near and above the mean it adds
 * ~1e-6 to tol. Fails the test (with `what` and the bin) beyond it;
 * returns the worst plain relative error |g - r| / r. */
#define ET_FFT_EPS 5e-7
/* The same without touching the test framework (thread-safe): returns the
 * worst plain relative error, and the worst error / allowed ratio (> 1:
 * fails) with its bin. */
gdouble et_power_error (const gfloat * gpu, const gdouble * ref,
    guint n_bins, gdouble dyn_db, gdouble tol, gdouble * worst_ratio,
    guint * worst_bin);
gdouble et_check_power (const gfloat * gpu, const gdouble * ref,
    guint n_bins, gdouble dyn_db, gdouble tol, const gchar * what);

/* Relative L2 error of complex gpu[n_bins][2] vs (re, im). */
gdouble et_complex_error (const gfloat * gpu, const gdouble * re,
    const gdouble * im, guint n_bins);

G_END_DECLS

#endif
