/* Shared helpers for the gpufftspectrum element tests: an independent
 * double-precision Welch reference, signal generation, pushing samples in
 * every format through a GstHarness, and reading the element's messages.
 *
 * The reference is written from the formulas of scipy.signal.welch:
 *   w[n] = sum_k (-1)^k a_k cos (2 pi k n / N)          (periodic windows)
 *   X_b  = sum_n w[n] x[j*hop + n] exp (-2 pi i b n / N) (plain DFT, double)
 *   spectrum: S_b = |X_b|^2 / (sum w)^2
 *   density:  D_b = |X_b|^2 / (rate * sum w^2)
 * both x2 except b = 0 and b = N/2, averaged over the frames of an interval.
 * The element reports 10 log10 (2 S) (spectrum) or 10 log10 (D) (density),
 * floored at `threshold`. */
#ifndef __GPUFFT_TEST_COMMON_H__
#define __GPUFFT_TEST_COMMON_H__

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/audio/audio.h>
#include <math.h>
#include <string.h>

G_BEGIN_DECLS

typedef enum
{
  REF_RECTANGULAR,
  REF_HANN,
  REF_HAMMING,
  REF_BLACKMAN,
  REF_BLACKMAN_HARRIS,
  REF_FLAT_TOP,
  REF_N_WINDOWS
} RefWindow;

/* the element's enum nicks, in RefWindow order */
extern const gchar *const ref_window_nick[REF_N_WINDOWS];

void ref_window (RefWindow w, guint n, gdouble * out);

typedef struct
{
  guint fft_size;
  guint hop;
  RefWindow window;
  gboolean density;
  gint rate;
  guint64 interval;             /* ns */
} RefConfig;

typedef struct
{
  guint64 index;                /* interval number k */
  guint64 first, end;           /* its samples [first, end) (end clipped at EOS) */
  guint frames;
  gdouble *power;               /* n_bins mean one-sided S or D */
  gdouble *re, *im;             /* X of the interval's last frame */
} RefInterval;

/* round (k * interval * rate / 1e9) */
guint64 ref_interval_start (const RefConfig * c, guint64 k);

/* Welch over x[0..n) of one stream segment (from stream start or the last
 * discontinuity), ending with EOS: every interval that holds at least one
 * frame, in order. Frees with g_ptr_array_unref. */
GPtrArray *ref_welch (const RefConfig * c, const gdouble * x, gsize n);

/* dB as the element reports it, floored at threshold */
gdouble ref_db (const RefConfig * c, gdouble power, gdouble threshold);

/* ---- signals ------------------------------------------------------------ */

void gen_tone (gdouble * x, gsize n, guint stride, gdouble amp, gdouble freq,
    gint rate, gdouble phase);
void gen_noise (gdouble * x, gsize n, guint stride, gdouble sigma,
    guint32 seed);

/* ---- pushing ------------------------------------------------------------ */

typedef struct
{
  const gchar *format;          /* "S16LE", "S24LE", "S32LE", "F32LE", "F64LE" */
  gint rate;
  gint channels;
  gboolean planar;
} Fmt;

gchar *fmt_caps_string (const Fmt * f);
/* The value the element sees for x in this format (integers: clamp (rint
 * (x * 2^(bits-1))) / 2^(bits-1); F32: (float) x). In place on n values. */
void fmt_quantize (const Fmt * f, gdouble * x, gsize n);
/* One buffer from interleaved doubles x[n_samples * channels]. pts may be
 * GST_CLOCK_TIME_NONE. Planar buffers carry a GstAudioMeta. */
GstBuffer *fmt_make_buffer (const Fmt * f, const gdouble * x, gsize n_samples,
    GstClockTime pts);

/* Pushes x[n * channels] (interleaved) in buffers of `chunk` samples, PTS
 * from pts0 (+ offset/rate) or none when pts0 is GST_CLOCK_TIME_NONE; the
 * first buffer gets DISCONT when discont is TRUE. Asserts GST_FLOW_OK. */
/* Reads every readable property of el (device-name waits while the device
 * is being opened). */
void read_properties (GstElement * el);

void push_samples (GstHarness * h, const Fmt * f, const gdouble * x, gsize n,
    gsize chunk, GstClockTime pts0, gboolean discont);

/* A gpufftspectrum with string-valued properties ("name", "value", ...,
 * NULL), a fresh bus, in a harness (PLAYING), caps set when caps != NULL. */
GstHarness *harness_new (GstBus ** bus, const gchar * caps,
    const gchar * first_prop, ...) G_GNUC_NULL_TERMINATED;
/* The same for any element (spectrum, gpuspectrum, ...). */
GstHarness *harness_new_element (const gchar * factory, GstBus ** bus,
    const gchar * caps, const gchar * first_prop, ...) G_GNUC_NULL_TERMINATED;
void harness_free (GstHarness * h, GstBus * bus);

/* ---- messages ----------------------------------------------------------- */

typedef struct
{
  GPtrArray *spectrum;          /* GstStructure*, in posting order */
  GPtrArray *dominant;          /* GstStructure* */
  GPtrArray *errors;            /* gchar*: "message | debug" of ERRORs */
  GPtrArray *warnings;          /* gchar*: same for WARNINGs */
} Msgs;

/* Pops the bus, waiting up to timeout_s until at least n_spectrum spectrum
 * messages came, then takes what else is queued. */
Msgs *msgs_collect (GstBus * bus, guint n_spectrum, gdouble timeout_s);
void msgs_free (Msgs * m);
/* Moves every message of `from` to the end of `into`'s lists; frees from. */
void msgs_append (Msgs * into, Msgs * from);

/* A guint64 field of the element's `stats` property (gpufftspectrum). */
guint64 stats_u64 (GstElement * el, const gchar * field);

/* Prints the messages' timestamp/duration/frames next to the reference
 * intervals (for failure diagnosis). */
void dump_msgs_refs (Msgs * m, GPtrArray * refs, gint rate);

/* Reads a float array field (magnitude / phase) in any of its layouts:
 * GstValueList of float (mono), GstValueArray of GstValueArray of float
 * ([channel][bin]) or GBytes of float32 (channel-major). Returns
 * channels * n_bins floats (g_free); n_bins from fft-size/2+1. layout_out
 * (optional): 'l' list, 'a' array of arrays, 'b' bytes. */
gfloat *msg_floats (const GstStructure * s, const gchar * field,
    guint * channels, guint * n_bins, gchar * layout_out);

guint64 msg_u64 (const GstStructure * s, const gchar * field);
guint msg_uint (const GstStructure * s, const gchar * field);
gint msg_int (const GstStructure * s, const gchar * field);
gdouble msg_double (const GstStructure * s, const gchar * field);
/* a double or the channel-th double of a GstValueArray of doubles */
gdouble msg_double_ch (const GstStructure * s, const gchar * field,
    guint channel);

/* Compares one channel of reported dB against the reference power. A bin
 * passes when |got - ref_dB| <= tol_db, or (bins far below the loudest,
 * where float32 rounding dominates) when the linear difference is within
 * 1e-8 of the loudest bin's power. Every value must be >= threshold.
 * Returns the largest dB error over bins within 60 dB of the loudest. */
gdouble compare_db (const RefConfig * c, const gfloat * got,
    const gdouble * ref_power, gdouble threshold, gdouble tol_db,
    const gchar * what);

/* Checks the time and geometry fields of a spectrum message against a
 * reference interval; ts0 = PTS of the segment's first sample. */
void check_spectrum_fields (const GstStructure * s, const RefConfig * c,
    const RefInterval * r, GstClockTime ts0, gint channels);

/* Runs one mono F32 stream (PTS from 0, then EOS) through an element with
 * fft-size, hop-size, window, scaling, interval, threshold from c plus
 * extra_props; checks message count and every spectrum message's fields
 * against ref_welch. */
typedef struct
{
  Msgs *m;
  GPtrArray *refs;              /* RefInterval*, one per spectrum message */
} Run;
Run *run_mono (const RefConfig * c, gdouble threshold, const gdouble * x,
    gsize n, gsize chunk, const gchar * const *extra_props);
void run_free (Run * run);

/* Runs one mono (or downmixed) F32 stream through an element with the given
 * properties and compares every message to ref_welch: count, frames, values.
 * Returns the largest dB error (bins within 60 dB of the loudest). */
gdouble run_and_compare (const RefConfig * c, gdouble threshold,
    const gdouble * x, gsize n, gsize chunk, gdouble tol_db,
    const gchar * const *extra_props);

/* Puts el on a fresh bus and sets it to `state`; an ERROR message must
 * come within 30 s (the device is opened beside the state change, so its
 * failure is posted from there): returns what was posted (errors[0] is
 * that ERROR). */
Msgs *start_must_error (GstElement * el, GstState state);
/* Back to NULL (which must succeed), then frees el, its bus and m. */
void start_failed_free (GstElement * el, Msgs * m);
/* Runs the pipeline `desc` (gst_parse_launch) until its first ERROR, which
 * must come within 60 s, before any EOS, from the element named `name`:
 * its "message | debug" (g_free); the pipeline is back to NULL. */
gchar *pipeline_first_error (const gchar * desc, const gchar * name);

/* Expect (and capture) g_log warnings and element WARNING/log lines while
 * `code` runs; returns the captured text (g_free). */
typedef void (*CaptureFunc) (gpointer data);
gchar *capture_warnings (GstElement * el, CaptureFunc code, gpointer data);

G_END_DECLS

#endif
