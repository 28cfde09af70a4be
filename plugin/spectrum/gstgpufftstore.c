/* GstGpuFftBase: raw sample store (see the header). */
#include "gstgpufftstore.h"

#include <string.h>

/* bytes of one sample slot in a plane (planar) or of one frame of all
 * channels (interleaved) */
static gsize
unit_bytes (const GstGpuFftStore * store)
{
  return store->planar ? store->bps : (gsize) store->bps * store->channels;
}

static guint
n_planes (const GstGpuFftStore * store)
{
  return store->planar ? store->channels : 1;
}

static guint8 *
plane (const GstGpuFftStore * store, guint p)
{
  return store->data + (gsize) p * store->capacity * unit_bytes (store);
}

void
gst_gpu_fft_store_init (GstGpuFftStore * store, guint bps, guint channels,
    gboolean planar)
{
  memset (store, 0, sizeof (*store));
  store->bps = bps;
  store->channels = channels;
  store->planar = planar;
}

void
gst_gpu_fft_store_clear (GstGpuFftStore * store)
{
  g_free (store->data);
  store->data = NULL;
  store->capacity = 0;
  store->len = 0;
  store->start = 0;
}

void
gst_gpu_fft_store_reset (GstGpuFftStore * store, guint64 start)
{
  store->len = 0;
  store->start = start;
}

guint64
gst_gpu_fft_store_end (const GstGpuFftStore * store)
{
  return store->start + store->len;
}

const guint8 *
gst_gpu_fft_store_at (const GstGpuFftStore * store, guint channel,
    guint64 sample)
{
  gsize off = (gsize) (sample - store->start);

  return plane (store, store->planar ? channel : 0) + off * unit_bytes (store);
}

/* Makes room for `need` samples per channel, keeping the held ones. */
static void
ensure_capacity (GstGpuFftStore * store, gsize need)
{
  gsize cap, ub = unit_bytes (store);
  guint8 *data;
  guint p;

  if (need <= store->capacity)
    return;
  cap = MAX (need, store->capacity + store->capacity / 2);
  cap = MAX (cap, 1024);
  if (!store->planar || store->len == 0) {
    if (store->planar) {
      g_free (store->data);
      store->data = g_malloc ((gsize) cap * ub * store->channels);
    } else {
      store->data = g_realloc (store->data, (gsize) cap * ub);
    }
    store->capacity = cap;
    return;
  }
  data = g_malloc ((gsize) cap * ub * store->channels);
  for (p = 0; p < n_planes (store); p++)
    memcpy (data + (gsize) p * cap * ub, plane (store, p), store->len * ub);
  g_free (store->data);
  store->data = data;
  store->capacity = cap;
}

void
gst_gpu_fft_store_keep_and_append (GstGpuFftStore * store, guint64 keep_from,
    guint64 buf_start, const gpointer * planes, gsize n)
{
  gsize ub = unit_bytes (store);
  guint64 buf_end = buf_start + n;
  gsize skip;
  guint p;

  /* drop what is no longer needed */
  if (store->len == 0 || keep_from >= gst_gpu_fft_store_end (store)) {
    store->len = 0;
    store->start = MAX (keep_from, buf_start);
  } else if (keep_from > store->start) {
    gsize drop = (gsize) (keep_from - store->start);

    for (p = 0; p < n_planes (store); p++)
      memmove (plane (store, p), plane (store, p) + drop * ub,
          (store->len - drop) * ub);
    store->len -= drop;
    store->start = keep_from;
  }

  if (keep_from >= buf_end) {
    /* nothing of this input is needed (frames leave a gap) */
    store->len = 0;
    store->start = keep_from;
    return;
  }

  /* append [max (keep_from, buf_start), buf_end) */
  skip = keep_from > buf_start ? (gsize) (keep_from - buf_start) : 0;
  if (store->len == 0 || gst_gpu_fft_store_end (store) != buf_start + skip) {
    /* (the second case cannot happen: the held samples always end where
     * the input starts) */
    store->len = 0;
    store->start = buf_start + skip;
  }
  ensure_capacity (store, store->len + (n - skip));
  for (p = 0; p < n_planes (store); p++)
    memcpy (plane (store, p) + store->len * ub,
        (const guint8 *) planes[p] + skip * ub, (n - skip) * ub);
  store->len += n - skip;
}
