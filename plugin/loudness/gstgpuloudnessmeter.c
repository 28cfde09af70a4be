/* gpuloudness's measurement from the device's blocks (see
 * gstgpuloudnessmeter.h). */
#include <math.h>
#include <string.h>

#include "gstgpuloudnessmeter.h"

#define M_BLOCKS 40             /* blocks of the momentary window */
#define RING 300                /* blocks of the short-term window */
#define STEP 10                 /* blocks between gating blocks */
#define BIN_LU 0.01
#define LO_LUFS (-70.0)
#define HI_LUFS 30.0
#define N_BINS ((guint) ((HI_LUFS - LO_LUFS) / BIN_LU + 0.5))
#define OFFSET_DB (-0.691)

typedef struct
{
  guint64 *count;               /* [N_BINS] */
  gdouble *sum;                 /* [N_BINS], powers */
  guint64 n;
  gdouble total;
} Histogram;

struct _GstGpuLoudnessMeter
{
  guint channels, block_frames;
  gdouble *weights;
  gdouble ring[RING];           /* the last blocks' powers */
  guint64 blocks;
  gdouble max_m, max_s;
  gdouble *sample_peak, *true_peak;
  Histogram gating, range;
  gdouble abs_gate;             /* power of -70 LUFS */
};

gdouble
gst_gpu_loudness_lufs (gdouble power)
{
  return power > 0.0 ? OFFSET_DB + 10.0 * log10 (power) : -INFINITY;
}

static void
histogram_init (Histogram * h)
{
  h->count = g_new0 (guint64, N_BINS);
  h->sum = g_new0 (gdouble, N_BINS);
}

static void
histogram_clear (Histogram * h)
{
  memset (h->count, 0, N_BINS * sizeof (guint64));
  memset (h->sum, 0, N_BINS * sizeof (gdouble));
  h->n = 0;
  h->total = 0.0;
}

static void
histogram_free (Histogram * h)
{
  g_free (h->count);
  g_free (h->sum);
}

/* the bin of a power at or above the absolute gate */
static guint
bin_of (gdouble power)
{
  gdouble b = floor ((gst_gpu_loudness_lufs (power) - LO_LUFS) / BIN_LU);

  return (guint) CLAMP (b, 0.0, N_BINS - 1.0);
}

static gdouble
bin_centre (guint b)
{
  return LO_LUFS + (b + 0.5) * BIN_LU;
}

static void
histogram_add (Histogram * h, gdouble power)
{
  guint b = bin_of (power);

  h->count[b]++;
  h->sum[b] += power;
  h->n++;
  h->total += power;
}

/* the first bin whose centre is at or above `lufs` */
static guint
first_bin_from (gdouble lufs)
{
  gdouble b = ceil ((lufs - LO_LUFS) / BIN_LU - 0.5);

  /* (at or above +30 LUFS: the last bin, where those blocks are kept) */
  return (guint) CLAMP (b, 0.0, N_BINS - 1.0);
}

GstGpuLoudnessMeter *
gst_gpu_loudness_meter_new (guint channels, const gdouble * weights,
    guint block_frames)
{
  GstGpuLoudnessMeter *m = g_new0 (GstGpuLoudnessMeter, 1);

  m->channels = channels;
  m->block_frames = block_frames;
  m->weights = g_memdup2 (weights, channels * sizeof (gdouble));
  m->sample_peak = g_new0 (gdouble, channels);
  m->true_peak = g_new0 (gdouble, channels);
  histogram_init (&m->gating);
  histogram_init (&m->range);
  m->abs_gate = pow (10.0, (LO_LUFS - OFFSET_DB) / 10.0);
  gst_gpu_loudness_meter_reset (m);
  return m;
}

void
gst_gpu_loudness_meter_free (GstGpuLoudnessMeter * m)
{
  if (!m)
    return;
  histogram_free (&m->gating);
  histogram_free (&m->range);
  g_free (m->weights);
  g_free (m->sample_peak);
  g_free (m->true_peak);
  g_free (m);
}

void
gst_gpu_loudness_meter_reset (GstGpuLoudnessMeter * m)
{
  memset (m->ring, 0, sizeof (m->ring));
  m->blocks = 0;
  m->max_m = m->max_s = -INFINITY;
  memset (m->sample_peak, 0, m->channels * sizeof (gdouble));
  memset (m->true_peak, 0, m->channels * sizeof (gdouble));
  histogram_clear (&m->gating);
  histogram_clear (&m->range);
}

/* sum of ring[lo .. hi) in four running sums (independent additions) */
static gdouble
ring_sum (const gdouble * ring, guint lo, guint hi)
{
  gdouble s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
  guint i = lo;

  for (; i + 4 <= hi; i += 4) {
    s0 += ring[i];
    s1 += ring[i + 1];
    s2 += ring[i + 2];
    s3 += ring[i + 3];
  }
  for (; i < hi; i++)
    s0 += ring[i];
  return (s0 + s1) + (s2 + s3);
}

/* mean power of the last n blocks (those before the start: 0): the ring
 * up to the newest, and what the window takes from its end */
static gdouble
window_power (GstGpuLoudnessMeter * m, guint n)
{
  guint end = (guint) ((m->blocks + RING - 1) % RING) + 1;
  guint first = end >= n ? end - n : 0;

  return (ring_sum (m->ring, first, end) + ring_sum (m->ring,
          RING - (n - (end - first)), RING)) / n;
}

void
gst_gpu_loudness_meter_add_block (GstGpuLoudnessMeter * m,
    const gfloat * values)
{
  gdouble z = 0.0;
  guint c;

  for (c = 0; c < m->channels; c++) {
    const gfloat *v = values + 4 * c;

    z += m->weights[c] * v[0];
    m->sample_peak[c] = MAX (m->sample_peak[c], v[1]);
    m->true_peak[c] = MAX (m->true_peak[c], v[2]);
  }
  m->ring[m->blocks % RING] = z / m->block_frames;
  m->blocks++;
  if (m->blocks >= M_BLOCKS) {
    gdouble p = window_power (m, M_BLOCKS);

    m->max_m = MAX (m->max_m, gst_gpu_loudness_lufs (p));
    if (m->blocks % STEP == 0 && p >= m->abs_gate)
      histogram_add (&m->gating, p);
  }
  if (m->blocks >= RING) {
    gdouble p = window_power (m, RING);

    m->max_s = MAX (m->max_s, gst_gpu_loudness_lufs (p));
    if (m->blocks % STEP == 0 && p >= m->abs_gate)
      histogram_add (&m->range, p);
  }
}

guint64
gst_gpu_loudness_meter_blocks (GstGpuLoudnessMeter * m)
{
  return m->blocks;
}

gdouble
gst_gpu_loudness_meter_momentary (GstGpuLoudnessMeter * m)
{
  return gst_gpu_loudness_lufs (window_power (m, M_BLOCKS));
}

gdouble
gst_gpu_loudness_meter_shortterm (GstGpuLoudnessMeter * m)
{
  return gst_gpu_loudness_lufs (window_power (m, RING));
}

gdouble
gst_gpu_loudness_meter_max_momentary (GstGpuLoudnessMeter * m)
{
  return m->max_m;
}

gdouble
gst_gpu_loudness_meter_max_shortterm (GstGpuLoudnessMeter * m)
{
  return m->max_s;
}

gdouble
gst_gpu_loudness_meter_integrated (GstGpuLoudnessMeter * m,
    gdouble * relative_threshold)
{
  Histogram *h = &m->gating;
  gdouble rel, sum = 0.0;
  guint64 n = 0;
  guint b;

  if (h->n == 0) {
    if (relative_threshold)
      *relative_threshold = LO_LUFS;
    return -INFINITY;
  }
  rel = gst_gpu_loudness_lufs (h->total / h->n) - 10.0;
  if (relative_threshold)
    *relative_threshold = rel;
  for (b = first_bin_from (rel); b < N_BINS; b++) {
    n += h->count[b];
    sum += h->sum[b];
  }
  return n ? gst_gpu_loudness_lufs (sum / n) : -INFINITY;
}

/* the bin holding the i-th smallest counted block from bin `from` */
static guint
nth_bin (const Histogram * h, guint from, guint64 i)
{
  guint64 seen = 0;
  guint b;

  for (b = from; b < N_BINS; b++) {
    seen += h->count[b];
    if (seen > i)
      return b;
  }
  return N_BINS - 1;
}

gdouble
gst_gpu_loudness_meter_range (GstGpuLoudnessMeter * m)
{
  Histogram *h = &m->range;
  guint from, b;
  guint64 n = 0;
  gdouble rel;

  if (h->n == 0)
    return 0.0;
  rel = gst_gpu_loudness_lufs (h->total / h->n) - 20.0;
  from = first_bin_from (rel);
  for (b = from; b < N_BINS; b++)
    n += h->count[b];
  if (n == 0)
    return 0.0;
  return bin_centre (nth_bin (h, from, (guint64) ((n - 1) * 0.95 + 0.5))) -
      bin_centre (nth_bin (h, from, (guint64) ((n - 1) * 0.1 + 0.5)));
}

gdouble
gst_gpu_loudness_meter_sample_peak (GstGpuLoudnessMeter * m, guint channel)
{
  return channel < m->channels ? m->sample_peak[channel] : 0.0;
}

gdouble
gst_gpu_loudness_meter_true_peak (GstGpuLoudnessMeter * m, guint channel)
{
  return channel < m->channels ? m->true_peak[channel] : 0.0;
}
