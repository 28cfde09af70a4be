/* GstGpuFftBase: samples beyond the magnitude the analysis takes.
 *
 * The analysis computes in float: a frame of N samples of magnitude at
 * most M has bins of magnitude at most N M (windows peak at 1), so a power
 * of at most N^2 M^2 in the raw scaling (the others divide it). With N up
 * to 65536 = 2^16 and M = 2^32 that is 2^96 per bin and frame, and 2^31
 * frames of an interval still sum below the float's largest value (about
 * 2^128), bin gains and band weights included. A finite sample beyond
 * +-2^32 (192.7 dB above full scale: only float formats carry one) could
 * overflow the power instead, saturating bins and moving peaks. The
 * element therefore hands the engine such a sample as NaN: the frames that
 * hold it are left out of their interval's average as frames with NaN or
 * infinite samples are, and the element says so (a warning, and the
 * message's frames-left-out).
 *
 * Pure functions on sample memory (no GStreamer object); F32 and F64
 * samples (other formats never exceed 1), read as bits: exactly 2^32 is
 * taken, the next larger value is not; NaN and infinities are left as
 * they are. */
#ifndef __GST_GPU_FFT_BOUND_H__
#define __GST_GPU_FFT_BOUND_H__

#include <glib.h>

G_BEGIN_DECLS

/* The largest magnitude of a sample the analysis takes: 2^32 */
#define GST_GPU_FFT_BOUND_MAX 4294967296.0

/* The index of the first of n samples at p (F64 where f64, else F32; 4 or
 * 8 bytes each, in a row, any alignment) that is finite and beyond
 * +-GST_GPU_FFT_BOUND_MAX; n where none is. */
gsize gst_gpu_fft_bound_find (const guint8 * p, gsize n, gboolean f64);

/* Copies n samples from src to dst (as find), each one beyond the bound
 * replaced by a quiet NaN; returns how many were. */
gsize gst_gpu_fft_bound_copy (guint8 * dst, const guint8 * src, gsize n,
    gboolean f64);

G_END_DECLS

#endif /* __GST_GPU_FFT_BOUND_H__ */
