/* gpufftspectrogram: the audio FIFO (streaming thread only): raw samples
 * of the negotiated format, interleaved (planar input is interleaved on
 * the way in), counted from fifo_origin in padded samples (the stream's
 * start padded with fft_size / 2 samples, which mirror its first ones
 * once they came; at EOS its end is padded with its last ones mirrored).
 * Sizes are gsize with checked arithmetic: a buffer too large to keep is
 * an element error (posted here, no lock held). How much it keeps is the
 * streaming path's to bound (gstgpufftspectrogram-stream.c): what the next
 * analysis frame needs and the last fft_size / 2 + 1 samples, at most
 * fft_size + frame_hop samples, and one incoming buffer; memory much
 * larger than what stays is given back. */
#include <math.h>
#include <string.h>

#include "gstgpufftspectrogram-private.h"

#define GST_CAT_DEFAULT gst_gpu_fft_spectrogram_debug

/* padded sample index -> FIFO byte offset */
guint8 *
gst_gpu_fft_spectrogram_fifo_at (GstGpuFftSpectrogram * self, guint64 padded)
{
  return self->fifo->data + (gsize) (padded - self->fifo_origin) *
      GST_AUDIO_INFO_BPF (&self->ainfo);
}

/* n more samples at the FIFO's end (not written): their first byte, or
 * NULL after posting the error when the sizes overflow or the memory is
 * not there. */
static guint8 *
fifo_grow (GstGpuFftSpectrogram * self, guint64 n)
{
  GstGpuFftSpectrogramFifo *q = self->fifo;
  gsize add, len, size;
  guint8 *data;

  if (n > G_MAXSIZE || !g_size_checked_mul (&add, (gsize) n,
          GST_AUDIO_INFO_BPF (&self->ainfo))
      || !g_size_checked_add (&len, q->len, add)) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, (NULL),
        ("a buffer of %" G_GUINT64_FORMAT " samples of %u bytes is too "
            "large to keep", n, GST_AUDIO_INFO_BPF (&self->ainfo)));
    return NULL;
  }
  if (len > q->size) {
    if (!g_size_checked_mul (&size, q->size, 2))
      size = len;
    size = MAX (size, len);
    data = g_try_realloc (q->data, size);
    if (!data) {
      GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT, (NULL),
          ("no memory for %" G_GSIZE_FORMAT " bytes of audio", size));
      return NULL;
    }
    q->data = data;
    q->size = size;
  }
  data = q->data + q->len;
  q->len = len;
  return data;
}

/* Drops the FIFO's first n samples (n at most what it holds); gives the
 * memory of a buffer much larger than what stays back. */
void
gst_gpu_fft_spectrogram_fifo_drop (GstGpuFftSpectrogram * self, gsize n)
{
  GstGpuFftSpectrogramFifo *q = self->fifo;
  gsize bytes = n * GST_AUDIO_INFO_BPF (&self->ainfo);
  guint8 *data;

  memmove (q->data, q->data + bytes, q->len - bytes);
  q->len -= bytes;
  self->fifo_origin += n;
  if (q->size > (1u << 20) && q->len < q->size / 4) {
    data = g_try_realloc (q->data, MAX (q->len * 2, 4096));
    if (data) {
      q->data = data;
      q->size = MAX (q->len * 2, 4096);
    }
  }
}

gboolean
gst_gpu_fft_spectrogram_fifo_append_zeros (GstGpuFftSpectrogram * self,
    guint64 n)
{
  guint8 *dst = fifo_grow (self, n);

  if (!dst)
    return FALSE;
  memset (dst, 0, (gsize) n * GST_AUDIO_INFO_BPF (&self->ainfo));
  return TRUE;
}

/* One raw sample of the FIFO's format as a double, and back (integers
 * rounded and clamped). */
static gdouble
sample_get (GstAudioFormat f, const guint8 * p)
{
  switch (f) {
    case GST_AUDIO_FORMAT_S16LE:
      return (gint16) GST_READ_UINT16_LE (p);
    case GST_AUDIO_FORMAT_S24LE:
      return ((gint32) (GST_READ_UINT24_LE (p) << 8)) >> 8;
    case GST_AUDIO_FORMAT_S32LE:
      return (gint32) GST_READ_UINT32_LE (p);
    case GST_AUDIO_FORMAT_F32LE:
      return GST_READ_FLOAT_LE (p);
    default:
      return GST_READ_DOUBLE_LE (p);
  }
}

static void
sample_set (GstAudioFormat f, guint8 * p, gdouble v)
{
  switch (f) {
    case GST_AUDIO_FORMAT_S16LE:
      GST_WRITE_UINT16_LE (p, (guint16) (gint16) CLAMP (round (v), -32768,
              32767));
      break;
    case GST_AUDIO_FORMAT_S24LE:
      GST_WRITE_UINT24_LE (p, (guint32) (gint32) CLAMP (round (v), -8388608,
              8388607));
      break;
    case GST_AUDIO_FORMAT_S32LE:
      GST_WRITE_UINT32_LE (p, (guint32) (gint32) CLAMP (round (v),
              -2147483648.0, 2147483647.0));
      break;
    case GST_AUDIO_FORMAT_F32LE:
      GST_WRITE_FLOAT_LE (p, (gfloat) v);
      break;
    default:
      GST_WRITE_DOUBLE_LE (p, v);
      break;
  }
}

/* Padded sample `to` = 2 e - (padded sample `from`), e the edge sample at
 * padded index `edge`, channel by channel: the stream reflected through
 * its edge point, so that its value and slope go on through the pad (a
 * mirror kept the value only: its kink still drew a column of leakage). */
static void
reflect_sample (GstGpuFftSpectrogram * self, guint64 to, guint64 from,
    guint64 edge)
{
  GstAudioFormat f = GST_AUDIO_INFO_FORMAT (&self->ainfo);
  guint bps = GST_AUDIO_INFO_BPF (&self->ainfo) /
      GST_AUDIO_INFO_CHANNELS (&self->ainfo);
  guint c;

  for (c = 0; c < (guint) GST_AUDIO_INFO_CHANNELS (&self->ainfo); c++) {
    gdouble e =
        sample_get (f, gst_gpu_fft_spectrogram_fifo_at (self, edge) + c * bps);
    gdouble x =
        sample_get (f, gst_gpu_fft_spectrogram_fifo_at (self, from) + c * bps);
    gdouble y = 2 * e - x;

    /* (a non-finite sample spreads no further than the edge's own) */
    sample_set (f, gst_gpu_fft_spectrogram_fifo_at (self, to) + c * bps,
        isfinite (y) ? y : e);
  }
}

/* Writes the start's pad: padded sample h - k (h = fft_size / 2) is the
 * stream's sample k reflected through sample 0, k = 1 .. h, where the
 * stream has it (zeros otherwise). The FIFO still holds the pad and the
 * first samples. */
void
gst_gpu_fft_spectrogram_fifo_mirror_start (GstGpuFftSpectrogram * self)
{
  guint64 h = self->fft_size / 2, k;

  for (k = 1; k <= h && k < self->samples; k++)
    reflect_sample (self, h - k, h + k, h);
  self->pad_pending = FALSE;
}

/* Appends the end's pad: sample n - 1 - k of the stream reflected through
 * its last sample, k = 1 .. h (n samples so far), where the FIFO still
 * has it (zeros otherwise). */
gboolean
gst_gpu_fft_spectrogram_fifo_append_mirror_end (GstGpuFftSpectrogram * self)
{
  guint64 h = self->fft_size / 2, n = self->samples, k;
  guint64 last = h + n - 1;     /* padded index of the last sample */

  if (!gst_gpu_fft_spectrogram_fifo_append_zeros (self, h))
    return FALSE;
  if (n == 0 || last < self->fifo_origin)
    return TRUE;
  for (k = 1; k <= h; k++) {
    if (k + 1 > n || last - k < self->fifo_origin)
      break;
    reflect_sample (self, last + k, last - k, last);
  }
  return TRUE;
}

/* Appends the n samples of buf (interleaving planar ones). FALSE after
 * posting the error. */
gboolean
gst_gpu_fft_spectrogram_fifo_append (GstGpuFftSpectrogram * self,
    GstBuffer * buf, guint64 n)
{
  guint bpf = GST_AUDIO_INFO_BPF (&self->ainfo);
  guint bps = bpf / GST_AUDIO_INFO_CHANNELS (&self->ainfo);
  guint channels = GST_AUDIO_INFO_CHANNELS (&self->ainfo);
  guint8 *dst = fifo_grow (self, n);

  if (!dst)
    return FALSE;
  if (GST_AUDIO_INFO_LAYOUT (&self->ainfo) == GST_AUDIO_LAYOUT_INTERLEAVED) {
    gst_buffer_extract (buf, 0, dst, (gsize) n * bpf);
  } else {
    GstAudioMeta *meta = gst_buffer_get_audio_meta (buf);
    GstAudioBuffer ab;
    guint c;
    guint64 i;

    /* a buffer that cannot be read (no GstAudioMeta, or one that does not
     * match the caps) is counted as silence, so the time axis goes on */
    if (meta == NULL || meta->info.layout != GST_AUDIO_LAYOUT_NON_INTERLEAVED
        || meta->info.channels != (gint) channels
        || meta->info.finfo != self->ainfo.finfo
        || !gst_audio_buffer_map (&ab, &self->ainfo, buf, GST_MAP_READ)) {
      GST_ELEMENT_WARNING (self, STREAM, FORMAT, (NULL),
          ("cannot read buffer %" GST_PTR_FORMAT " (non-interleaved audio "
              "needs a GstAudioMeta): its %" G_GUINT64_FORMAT " samples are "
              "analysed as silence", buf, n));
      memset (dst, 0, (gsize) n * bpf);
      return TRUE;
    }
    for (c = 0; c < channels; c++) {
      const guint8 *src = ab.planes[c];
      guint8 *d = dst + (gsize) c * bps;

      for (i = 0; i < n; i++)
        memcpy (d + i * bpf, src + i * bps, bps);
    }
    gst_audio_buffer_unmap (&ab);
  }
  return TRUE;
}
