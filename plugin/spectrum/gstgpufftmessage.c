/* GstGpuFftBase: message structures (see the header). */
#include "gstgpufftmessage.h"
#include "gstgpufftpeak.h"

#include <math.h>
#include <string.h>

/* The field names the messages set most, as quarks, made once (a name
 * given as a string is looked up in GLib's quark table at every set). */
enum
{
  F_SPECTRUM, F_TIMESTAMP, F_STREAM_TIME, F_RUNNING_TIME, F_DURATION,
  F_ENDTIME, F_RATE, F_FFT_SIZE, F_HOP_SIZE, F_FRAMES, F_CHANNELS,
  F_BIN_WIDTH, F_WINDOW, F_SCALING, F_DROPPED, F_FREQUENCY_SCALE,
  F_WEIGHTING, F_AVERAGING, F_LEVEL, F_MAGNITUDE, F_PHASE,
  F_FRAME_MAGNITUDE, F_FRAME_LEVEL, F_DOMINANT, F_FREQUENCY, F_BIN,
  F_PEAK_FREQUENCIES, F_PEAK_MAGNITUDES, F_BAND_FREQUENCIES, F_BAND_EDGES,
  F_BAND_NOMINAL, F_RESOLVED_FROM, F_FRAMES_LEFT_OUT, N_FIELDS
};

static GQuark field_quarks[N_FIELDS];

static const GQuark *
fields (void)
{
  static gsize once = 0;

  if (g_once_init_enter (&once)) {
    static const gchar *const names[N_FIELDS] = { "spectrum", "timestamp",
      "stream-time", "running-time", "duration", "endtime", "rate",
      "fft-size", "hop-size", "frames", "channels", "bin-width", "window",
      "scaling", "dropped", "frequency-scale", "weighting", "averaging",
      "level", "magnitude", "phase", "frame-magnitude", "frame-level",
      "dominant-frequency", "frequency", "bin", "peak-frequencies",
      "peak-magnitudes", "band-frequencies", "band-edges", "band-nominal",
      "resolved-from", "frames-left-out"
    };
    guint i;

    for (i = 0; i < N_FIELDS; i++)
      field_quarks[i] = g_quark_from_static_string (names[i]);
    g_once_init_leave (&once, 1);
  }
  return field_quarks;
}

/* Frames averaged: those of the interval less any left out for NaN or
 * infinite samples (the element hands samples beyond +-2^32 over as NaN,
 * gstgpufftbound.h) (the smallest count over the channels). */
static guint
frames_averaged (const GpufftGroupResult * r)
{
  guint c, n = r->n_frames;

  for (c = 0; r->channel_frames && c < r->channels; c++)
    n = MIN (n, r->channel_frames[c]);
  return n;
}

/* spectrum's endtime: stream-time + duration (saturating; none without a
 * stream time) */
static guint64
endtime (const GstGpuFftMessageParams * p)
{
  if (!GST_CLOCK_TIME_IS_VALID (p->stream_time))
    return GST_CLOCK_TIME_NONE;
  if (p->stream_time >= G_MAXUINT64 - 1 - p->duration)
    return G_MAXUINT64 - 1;
  return p->stream_time + p->duration;
}

static void
add_time_fields (GstStructure * s, const GstGpuFftMessageParams * p)
{
  const GQuark *q = fields ();

  gst_structure_id_set (s,
      q[F_TIMESTAMP], G_TYPE_UINT64, p->timestamp,
      q[F_STREAM_TIME], G_TYPE_UINT64, p->stream_time,
      q[F_RUNNING_TIME], G_TYPE_UINT64, p->running_time,
      q[F_DURATION], G_TYPE_UINT64, p->duration,
      q[F_ENDTIME], G_TYPE_UINT64, endtime (p), NULL);
}

/* GBytes of little-endian float32 from n host floats */
static GBytes *
floats_to_bytes (const gfloat * v, gsize n)
{
#if G_BYTE_ORDER == G_LITTLE_ENDIAN
  return g_bytes_new (v, n * sizeof (gfloat));
#else
  guint32 *le = g_new (guint32, n);
  gsize i;

  for (i = 0; i < n; i++) {
    guint32 u;

    memcpy (&u, &v[i], 4);
    le[i] = GUINT32_TO_LE (u);
  }
  return g_bytes_new_take (le, n * sizeof (gfloat));
#endif
}

/* `name`: a GBytes of n little-endian float32 */
static void
set_bytes (GstStructure * s, GQuark name, const gfloat * v, gsize n)
{
  GBytes *bytes = floats_to_bytes (v, n);

  gst_structure_id_set (s, name, G_TYPE_BYTES, bytes, NULL);
  g_bytes_unref (bytes);
}

/* GstValueArray of n floats */
static void
float_array (GValue * arr, const gfloat * v, guint n, guint stride)
{
  guint i;

  gst_value_array_init (arr, n);
  for (i = 0; i < n; i++) {
    GValue f = G_VALUE_INIT;

    g_value_init (&f, G_TYPE_FLOAT);
    g_value_set_float (&f, v[(gsize) i * stride]);
    gst_value_array_append_and_take_value (arr, &f);
  }
}

/* Sets `name` from rows x n floats: list format (mono GstValueList,
 * multi-channel GstValueArray of GstValueArray) or bytes. */
static void
set_float_rows (GstStructure * s, GQuark name,
    const GstGpuFftMessageParams * p, const gfloat * v, guint rows, guint n)
{
  GValue outer = G_VALUE_INIT;
  guint c, i;

  if (p->format == GST_GPU_FFT_MESSAGE_FORMAT_BYTES) {
    set_bytes (s, name, v, (gsize) rows * n);
    return;
  }

  if (!p->multi_channel) {
    gst_value_list_init (&outer, n);
    for (i = 0; i < n; i++) {
      GValue f = G_VALUE_INIT;

      g_value_init (&f, G_TYPE_FLOAT);
      g_value_set_float (&f, v[i]);
      gst_value_list_append_and_take_value (&outer, &f);
    }
  } else {
    gst_value_array_init (&outer, rows);
    for (c = 0; c < rows; c++) {
      GValue row = G_VALUE_INIT;

      float_array (&row, v + (gsize) c * n, n, 1);
      gst_value_array_append_and_take_value (&outer, &row);
    }
  }
  gst_structure_id_take_value (s, name, &outer);
}

/* `phase`: the angle of each bin of the interval's last frame, or the
 * mean angle of its frames (gpuspectrum: the engine's phase_mean) */
static void
add_phase (GstStructure * s, const GstGpuFftMessageParams * p,
    const GpufftGroupResult * r)
{
  gsize i, n = (gsize) r->channels * r->n_bins;
  gfloat *ph;

  if (r->phase) {
    set_float_rows (s, fields ()[F_PHASE], p, r->phase, r->channels, r->n_bins);
    return;
  }
  ph = g_new (gfloat, n);
  for (i = 0; i < n; i++)
    ph[i] = atan2f (r->complex_data[2 * i + 1], r->complex_data[2 * i]);
  set_float_rows (s, fields ()[F_PHASE], p, ph, r->channels, r->n_bins);
  g_free (ph);
}

void
gst_gpu_fft_message_params_free (GstGpuFftMessageParams * p)
{
  if (!p)
    return;
  gst_gpu_fft_bands_unref (p->bands);
  g_free (p);
}

static void
value_set_double (GValue * v, gdouble d)
{
  g_value_init (v, G_TYPE_DOUBLE);
  g_value_set_double (v, d);
}

/* GstValueArray of the n doubles at d, stride bytes apart */
static void
double_array (GValue * arr, const gdouble * d, guint n, gsize stride)
{
  guint i;

  gst_value_array_init (arr, n);
  for (i = 0; i < n; i++) {
    GValue v = G_VALUE_INIT;

    value_set_double (&v, *(const gdouble *) ((const guint8 *) d + i * stride));
    gst_value_array_append_and_take_value (arr, &v);
  }
}

static void
set_doubles (GstStructure * s, GQuark name, const gdouble * d, guint n)
{
  GValue arr = G_VALUE_INIT;

  double_array (&arr, d, n, sizeof (gdouble));
  gst_structure_id_take_value (s, name, &arr);
}

/* band-frequencies, band-edges, band-nominal, resolved-from */
static void
add_band_fields (GstStructure * s, const GstGpuFftMessageParams * p)
{
  const GstGpuFftBands *b = p->bands;
  const GQuark *q = fields ();
  guint n = b->n_bands, i;
  gdouble *edges = g_new (gdouble, n + 2);
  guint n_edges;

  set_doubles (s, q[F_BAND_FREQUENCIES], b->centre, n);
  if (p->analysis.scale == GST_GPU_FFT_FREQUENCY_SCALE_MEL) {
    /* the n + 2 mel points: band m rises from m, peaks at m + 1, ends at
     * m + 2 */
    for (i = 0; i < n; i++)
      edges[i] = b->lower[i];
    edges[n] = n >= 2 ? b->upper[n - 2] : b->centre[0];
    edges[n + 1] = b->upper[n - 1];
    n_edges = n + 2;
  } else {
    for (i = 0; i < n; i++)
      edges[i] = b->lower[i];
    edges[n] = b->upper[n - 1];
    n_edges = n + 1;
  }
  set_doubles (s, q[F_BAND_EDGES], edges, n_edges);
  g_free (edges);
  if (b->nominal)
    set_doubles (s, q[F_BAND_NOMINAL], b->nominal, n);
  gst_structure_id_set (s, q[F_RESOLVED_FROM], G_TYPE_UINT, b->resolved_from,
      NULL);
}

/* `level`: a double, or by channel */
static void
add_level (GstStructure * s, const GstGpuFftMessageParams * p,
    const GpufftGroupResult * r)
{
  guint c;

  if (!p->multi_channel) {
    gst_structure_id_set (s, fields ()[F_LEVEL], G_TYPE_DOUBLE,
        (gdouble) r->level[0], NULL);
  } else {
    gdouble *d = g_new (gdouble, r->channels);

    for (c = 0; c < r->channels; c++)
      d[c] = r->level[c];
    set_doubles (s, fields ()[F_LEVEL], d, r->channels);
    g_free (d);
  }
}

/* frame-timestamps, frame-magnitude, frame-level from the engine's
 * [frames][channels][stride] rows */
static void
add_frames (GstStructure * s, const GstGpuFftMessageParams * p,
    const GpufftGroupResult * r)
{
  guint nf = r->n_frames, ch = r->channels, nv = r->frame_values;
  guint st = r->frame_stride, f, c;
  gboolean has_level = r->level != NULL;
  GValue ts = G_VALUE_INIT;

  gst_value_array_init (&ts, nf);
  for (f = 0; f < nf; f++) {
    GValue v = G_VALUE_INIT;

    g_value_init (&v, G_TYPE_UINT64);
    g_value_set_uint64 (&v, p->base_pts + gst_util_uint64_scale_round
        ((p->first_frame + f) * p->hop, GST_SECOND, p->rate));
    gst_value_array_append_and_take_value (&ts, &v);
  }
  gst_structure_take_value (s, "frame-timestamps", &ts);

  if (p->format == GST_GPU_FFT_MESSAGE_FORMAT_BYTES) {
    gfloat *m = g_new (gfloat, (gsize) ch * nf * nv);
    gfloat *l = g_new (gfloat, (gsize) ch * nf);

    for (c = 0; c < ch; c++)
      for (f = 0; f < nf; f++) {
        const gfloat *row = r->frames + ((gsize) f * ch + c) * st;

        memcpy (m + ((gsize) c * nf + f) * nv, row, nv * sizeof (gfloat));
        l[(gsize) c * nf + f] = has_level ? row[nv] : 0.0f;
      }
    set_bytes (s, fields ()[F_FRAME_MAGNITUDE], m, (gsize) ch * nf * nv);
    if (has_level)
      set_bytes (s, fields ()[F_FRAME_LEVEL], l, (gsize) ch * nf);
    g_free (m);
    g_free (l);
    return;
  }

  {
    GValue mag = G_VALUE_INIT, lev = G_VALUE_INIT;

    if (p->multi_channel) {
      gst_value_array_init (&mag, ch);
      gst_value_array_init (&lev, ch);
    }
    for (c = 0; c < (p->multi_channel ? ch : 1); c++) {
      GValue frames = G_VALUE_INIT, levels = G_VALUE_INIT;

      gst_value_array_init (&frames, nf);
      for (f = 0; f < nf; f++) {
        GValue row = G_VALUE_INIT;

        float_array (&row, r->frames + ((gsize) f * ch + c) * st, nv, 1);
        gst_value_array_append_and_take_value (&frames, &row);
      }
      if (has_level)
        float_array (&levels, r->frames + (gsize) c * st + nv, nf, ch * st);
      if (p->multi_channel) {
        gst_value_array_append_and_take_value (&mag, &frames);
        if (has_level)
          gst_value_array_append_and_take_value (&lev, &levels);
      } else {
        gst_structure_take_value (s, "frame-magnitude", &frames);
        if (has_level)
          gst_structure_take_value (s, "frame-level", &levels);
      }
    }
    if (p->multi_channel) {
      gst_structure_take_value (s, "frame-magnitude", &mag);
      if (has_level)
        gst_structure_take_value (s, "frame-level", &lev);
      else
        g_value_unset (&lev);
    }
  }
}

/* The nick strings the messages carry, by field and value: interned
 * (not copied into a message, nor by its copies), looked up once. */
enum
{
  NICK_WINDOW, NICK_SCALING, NICK_FREQUENCY_SCALE, NICK_WEIGHTING,
  NICK_AVERAGING, N_NICKS
};
#define NICK_VALUES 32

static void
set_nick (GstStructure * s, GQuark name, guint slot, GType type, gint value)
{
  static const gchar *nicks[N_NICKS][NICK_VALUES];
  gboolean cached = value >= 0 && value < NICK_VALUES;
  const gchar *nick = cached ? g_atomic_pointer_get (&nicks[slot][value]) :
      NULL;
  GValue v = G_VALUE_INIT;

  if (nick == NULL) {
    nick = g_intern_static_string (gst_gpu_fft_enum_nick (type, value));
    if (cached)
      g_atomic_pointer_set (&nicks[slot][value], nick);
  }
  g_value_init (&v, G_TYPE_STRING);
#if GLIB_CHECK_VERSION (2, 66, 0)
  g_value_set_interned_string (&v, nick);
#else
  g_value_set_static_string (&v, nick);
#endif
  gst_structure_id_take_value (s, name, &v);
}

/* rate .. averaging (and dropped) */
static void
add_fixed_fields (GstStructure * s, const GstGpuFftMessageParams * p,
    const GpufftGroupResult * r)
{
  const GQuark *q = fields ();
  guint averaged = frames_averaged (r);

  gst_structure_id_set (s,
      q[F_RATE], G_TYPE_INT, p->rate,
      q[F_FFT_SIZE], G_TYPE_UINT, p->fft_size,
      q[F_HOP_SIZE], G_TYPE_UINT, p->hop,
      q[F_FRAMES], G_TYPE_UINT, averaged,
      q[F_CHANNELS], G_TYPE_INT, (gint) r->channels,
      q[F_BIN_WIDTH], G_TYPE_DOUBLE, (gdouble) p->rate / p->fft_size, NULL);
  set_nick (s, q[F_WINDOW], NICK_WINDOW, GST_TYPE_GPU_FFT_WINDOW, p->window);
  set_nick (s, q[F_SCALING], NICK_SCALING, GST_TYPE_GPU_FFT_SCALING,
      p->scaling);
  if (p->dropped > 0)
    gst_structure_id_set (s, q[F_DROPPED], G_TYPE_UINT, p->dropped, NULL);
  if (averaged < r->n_frames)
    gst_structure_id_set (s, q[F_FRAMES_LEFT_OUT], G_TYPE_UINT,
        r->n_frames - averaged, NULL);
  set_nick (s, q[F_FREQUENCY_SCALE], NICK_FREQUENCY_SCALE,
      GST_TYPE_GPU_FFT_FREQUENCY_SCALE, p->analysis.scale);
  set_nick (s, q[F_WEIGHTING], NICK_WEIGHTING, GST_TYPE_GPU_FFT_WEIGHTING,
      p->analysis.weighting);
  set_nick (s, q[F_AVERAGING], NICK_AVERAGING, GST_TYPE_GPU_FFT_AVERAGING,
      p->analysis.averaging);
}

GstStructure *
gst_gpu_fft_message_build_spectrum (const GstGpuFftMessageParams * p,
    const GpufftGroupResult * r)
{
  GstStructure *s = gst_structure_new_id_empty (fields ()[F_SPECTRUM]);

  add_time_fields (s, p);
  add_fixed_fields (s, p, r);
  if (r->level)
    add_level (s, p, r);
  if (p->magnitude) {
    if (r->bands)
      set_float_rows (s, fields ()[F_MAGNITUDE], p, r->bands, r->channels,
          r->n_bands);
    else
      set_float_rows (s, fields ()[F_MAGNITUDE], p, r->power, r->channels,
          r->n_bins);
  }
  if (p->bands && r->bands)
    add_band_fields (s, p);
  if (r->frames)
    add_frames (s, p, r);
  if (p->phase && (r->complex_data || r->phase))
    add_phase (s, p, r);
  return s;
}

GstStructure *
gst_gpu_fft_message_build_compat (const GstGpuFftMessageParams * p,
    const GpufftGroupResult * r)
{
  const GQuark *q = fields ();
  GstStructure *s = gst_structure_new_id (q[F_SPECTRUM],
      q[F_ENDTIME], G_TYPE_UINT64, endtime (p),
      q[F_TIMESTAMP], G_TYPE_UINT64, p->timestamp,
      q[F_STREAM_TIME], G_TYPE_UINT64, p->stream_time,
      q[F_RUNNING_TIME], G_TYPE_UINT64, p->running_time,
      q[F_DURATION], G_TYPE_UINT64, p->duration, NULL);

  if (p->magnitude)
    set_float_rows (s, fields ()[F_MAGNITUDE], p, r->power, r->channels,
        r->n_bins);
  if (p->phase && (r->complex_data || r->phase))
    add_phase (s, p, r);
  return s;
}

typedef struct
{
  gdouble frequency;
  gdouble magnitude;
  gdouble bin;
} Peak;

static gint
peak_cmp_louder (gconstpointer a, gconstpointer b)
{
  const Peak *pa = a, *pb = b;

  if (pa->magnitude > pb->magnitude)
    return -1;
  if (pa->magnitude < pb->magnitude)
    return 1;
  return 0;
}

/* The peaks of channel c above threshold in range, loudest first. */
static guint
channel_peaks (const GstGpuFftMessageParams * p, const GpufftGroupResult * r,
    guint c, Peak * out)
{
  guint i, n = 0;

  if (r->peaks == NULL)
    return 0;
  for (i = 0; i < r->n_peaks; i++) {
    const GpufftPeak *pk = &r->peaks[(gsize) c * r->n_peaks + i];
    gdouble pw[3] = { pk->power[0], pk->power[1], pk->power[2] };
    gdouble bin, power, bin_db;

    if (pk->bin == G_MAXUINT)
      break;
    if (pk->bin < p->min_bin || pk->bin > p->max_bin)
      continue;
    bin_db = 10.0 * log10 (pw[1]) + p->db_offset;
    if (!(bin_db > p->threshold))
      continue;
    if (!gst_gpu_fft_peak_refine (p->window, p->fft_size, p->hop,
            r->channel_frames ? r->channel_frames[c] : r->n_frames, pk->bin,
            pw, &bin, &power))
      continue;
    out[n].bin = bin;
    out[n].frequency = bin * p->rate / p->fft_size;
    out[n].magnitude = 10.0 * log10 (power) + p->db_offset;
    n++;
  }
  qsort (out, n, sizeof (Peak), peak_cmp_louder);
  return MIN (n, p->n_peaks);
}


GstStructure *
gst_gpu_fft_message_build_dominant (const GstGpuFftMessageParams * p,
    const GpufftGroupResult * r)
{
  const GQuark *q = fields ();
  GstStructure *s = gst_structure_new_id_empty (q[F_DOMINANT]);
  guint max_n = MAX (r->n_peaks, 1);
  Peak *peaks = g_new0 (Peak, max_n);
  GValue freq = G_VALUE_INIT, mag = G_VALUE_INIT, bin = G_VALUE_INIT;
  GValue pfreq = G_VALUE_INIT, pmag = G_VALUE_INIT;
  gboolean lists = p->n_peaks > 1;
  guint c;

  add_time_fields (s, p);
  if (p->multi_channel) {
    gst_value_array_init (&freq, r->channels);
    gst_value_array_init (&mag, r->channels);
    gst_value_array_init (&bin, r->channels);
    if (lists) {
      gst_value_array_init (&pfreq, r->channels);
      gst_value_array_init (&pmag, r->channels);
    }
  }

  for (c = 0; c < (p->multi_channel ? r->channels : 1); c++) {
    guint n = channel_peaks (p, r, c, peaks);
    GValue vf = G_VALUE_INIT, vm = G_VALUE_INIT, vb = G_VALUE_INIT;
    GValue lf = G_VALUE_INIT, lm = G_VALUE_INIT;

    /* no peak above threshold: frequency 0, bin 0, magnitude threshold */
    value_set_double (&vf, n ? peaks[0].frequency : 0.0);
    value_set_double (&vm, n ? peaks[0].magnitude : p->threshold);
    value_set_double (&vb, n ? peaks[0].bin : 0.0);
    if (lists) {
      double_array (&lf, &peaks[0].frequency, n, sizeof (Peak));
      double_array (&lm, &peaks[0].magnitude, n, sizeof (Peak));
    }
    if (p->multi_channel) {
      gst_value_array_append_and_take_value (&freq, &vf);
      gst_value_array_append_and_take_value (&mag, &vm);
      gst_value_array_append_and_take_value (&bin, &vb);
      if (lists) {
        gst_value_array_append_and_take_value (&pfreq, &lf);
        gst_value_array_append_and_take_value (&pmag, &lm);
      }
    } else {
      gst_structure_id_take_value (s, q[F_FREQUENCY], &vf);
      gst_structure_id_take_value (s, q[F_MAGNITUDE], &vm);
      gst_structure_id_take_value (s, q[F_BIN], &vb);
      if (lists) {
        gst_structure_id_take_value (s, q[F_PEAK_FREQUENCIES], &lf);
        gst_structure_id_take_value (s, q[F_PEAK_MAGNITUDES], &lm);
      }
    }
  }

  if (p->multi_channel) {
    gst_structure_id_take_value (s, q[F_FREQUENCY], &freq);
    gst_structure_id_take_value (s, q[F_MAGNITUDE], &mag);
    gst_structure_id_take_value (s, q[F_BIN], &bin);
    if (lists) {
      gst_structure_id_take_value (s, q[F_PEAK_FREQUENCIES], &pfreq);
      gst_structure_id_take_value (s, q[F_PEAK_MAGNITUDES], &pmag);
    }
  }
  g_free (peaks);
  return s;
}
