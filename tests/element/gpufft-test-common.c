/* Shared helpers for the gpufftspectrum element tests (see the header). */
#include "gpufft-test-common.h"

#include <stdarg.h>

const gchar *const ref_window_nick[REF_N_WINDOWS] = {
  "rectangular", "hann", "hamming", "blackman", "blackman-harris", "flat-top"
};

/* sum_k (-1)^k a_k cos (2 pi k n / N), scipy's periodic (DFT-even) windows */
static const gdouble win_coef[REF_N_WINDOWS][5] = {
  {1.0},
  {0.5, 0.5},
  {0.54, 0.46},
  {0.42, 0.5, 0.08},
  {0.35875, 0.48829, 0.14128, 0.01168},
  {0.21557895, 0.41663158, 0.277263158, 0.083578947, 0.006947368},
};

void
ref_window (RefWindow w, guint n, gdouble * out)
{
  guint i, k;

  for (i = 0; i < n; i++) {
    gdouble v = 0.0;
    for (k = 0; k < 5; k++) {
      gdouble a = win_coef[w][k] * ((k & 1) ? -1.0 : 1.0);
      v += a * cos (2.0 * G_PI * k * i / n);
    }
    out[i] = v;
  }
}

guint64
ref_interval_start (const RefConfig * c, guint64 k)
{
  return gst_util_uint64_scale_round (k * c->interval, c->rate, GST_SECOND);
}

static void
ref_interval_free (gpointer p)
{
  RefInterval *r = p;

  g_free (r->power);
  g_free (r->re);
  g_free (r->im);
  g_free (r);
}

GPtrArray *
ref_welch (const RefConfig * c, const gdouble * x, gsize n)
{
  guint N = c->fft_size, nb = N / 2 + 1, i, b;
  gdouble *w = g_new (gdouble, N), *y = g_new (gdouble, N);
  gdouble *ct = g_new (gdouble, N), *st = g_new (gdouble, N);
  gdouble sumw = 0, sumw2 = 0, base;
  GPtrArray *arr = g_ptr_array_new_with_free_func (ref_interval_free);
  RefInterval *cur = NULL;
  guint64 k = 0, j;

  ref_window (c->window, N, w);
  for (i = 0; i < N; i++) {
    sumw += w[i];
    sumw2 += w[i] * w[i];
    ct[i] = cos (2.0 * G_PI * i / N);
    st[i] = sin (2.0 * G_PI * i / N);
  }
  base = c->density ? 1.0 / (c->rate * sumw2) : 1.0 / (sumw * sumw);

  for (j = 0; j * c->hop + N <= n; j++) {
    guint64 last = j * c->hop + N - 1;

    while (ref_interval_start (c, k + 1) <= last)
      k++;
    if (cur == NULL || cur->index != k) {
      cur = g_new0 (RefInterval, 1);
      cur->index = k;
      cur->first = ref_interval_start (c, k);
      cur->end = MIN (ref_interval_start (c, k + 1), n);
      cur->power = g_new0 (gdouble, nb);
      cur->re = g_new0 (gdouble, nb);
      cur->im = g_new0 (gdouble, nb);
      g_ptr_array_add (arr, cur);
    }
    for (i = 0; i < N; i++)
      y[i] = w[i] * x[j * c->hop + i];
    for (b = 0; b < nb; b++) {
      gdouble re = 0, im = 0, s;
      guint idx = 0;
      for (i = 0; i < N; i++) {
        re += y[i] * ct[idx];
        im -= y[i] * st[idx];
        idx += b;
        if (idx >= N)
          idx -= N;
      }
      s = base * (b == 0 || b == N / 2 ? 1.0 : 2.0);
      cur->power[b] += (re * re + im * im) * s;
      cur->re[b] = re;
      cur->im[b] = im;
    }
    cur->frames++;
  }
  for (i = 0; i < arr->len; i++) {
    RefInterval *r = g_ptr_array_index (arr, i);
    for (b = 0; b < nb; b++)
      r->power[b] /= r->frames;
  }
  g_free (w);
  g_free (y);
  g_free (ct);
  g_free (st);
  return arr;
}

static gdouble
ref_unit (const RefConfig * c, gdouble power)
{
  return c->density ? power : 2.0 * power;
}

gdouble
ref_db (const RefConfig * c, gdouble power, gdouble threshold)
{
  gdouble u = ref_unit (c, power);

  if (!(u > 0))
    return threshold;
  return MAX (10.0 * log10 (u), threshold);
}

/* ---- signals ------------------------------------------------------------ */

void
gen_tone (gdouble * x, gsize n, guint stride, gdouble amp, gdouble freq,
    gint rate, gdouble phase)
{
  gsize i;

  for (i = 0; i < n; i++)
    x[i * stride] += amp * sin (2.0 * G_PI * freq * i / rate + phase);
}

void
gen_noise (gdouble * x, gsize n, guint stride, gdouble sigma, guint32 seed)
{
  GRand *r = g_rand_new_with_seed (seed);
  gsize i;

  for (i = 0; i < n; i++) {
    gdouble u1 = g_rand_double_range (r, 1e-300, 1.0);
    gdouble u2 = g_rand_double (r);
    x[i * stride] += sigma * sqrt (-2.0 * log (u1)) * cos (2.0 * G_PI * u2);
  }
  g_rand_free (r);
}

/* ---- formats ------------------------------------------------------------ */

static guint
fmt_bits (const Fmt * f)
{
  if (!strcmp (f->format, "S16LE"))
    return 16;
  if (!strcmp (f->format, "S24LE"))
    return 24;
  if (!strcmp (f->format, "S32LE"))
    return 32;
  return 0;
}

static guint
fmt_bps (const Fmt * f)
{
  if (!strcmp (f->format, "S16LE"))
    return 2;
  if (!strcmp (f->format, "S24LE"))
    return 3;
  if (!strcmp (f->format, "F64LE"))
    return 8;
  return 4;
}

gchar *
fmt_caps_string (const Fmt * f)
{
  return g_strdup_printf ("audio/x-raw,format=%s,rate=%d,channels=%d,"
      "layout=%s%s", f->format, f->rate, f->channels,
      f->planar ? "non-interleaved" : "interleaved",
      f->channels > 2 ? ",channel-mask=(bitmask)0x0" : "");
}

static gint64
fmt_int (gdouble x, guint bits)
{
  gdouble scale = ldexp (1.0, bits - 1);
  gdouble v = rint (x * scale);

  v = CLAMP (v, -scale, scale - 1.0);
  return (gint64) v;
}

void
fmt_quantize (const Fmt * f, gdouble * x, gsize n)
{
  guint bits = fmt_bits (f);
  gsize i;

  for (i = 0; i < n; i++) {
    if (bits)
      x[i] = (gdouble) fmt_int (x[i], bits) / ldexp (1.0, bits - 1);
    else if (!strcmp (f->format, "F32LE"))
      x[i] = (gfloat) x[i];
  }
}

static void
fmt_store (const Fmt * f, guint8 * p, gdouble x)
{
  guint bits = fmt_bits (f);

  if (bits == 16) {
    GST_WRITE_UINT16_LE (p, (guint16) (gint16) fmt_int (x, 16));
  } else if (bits == 24) {
    guint32 v = (guint32) (gint32) fmt_int (x, 24);
    p[0] = v & 0xff;
    p[1] = (v >> 8) & 0xff;
    p[2] = (v >> 16) & 0xff;
  } else if (bits == 32) {
    GST_WRITE_UINT32_LE (p, (guint32) (gint32) fmt_int (x, 32));
  } else if (!strcmp (f->format, "F32LE")) {
    GST_WRITE_FLOAT_LE (p, (gfloat) x);
  } else {
    GST_WRITE_DOUBLE_LE (p, x);
  }
}

GstBuffer *
fmt_make_buffer (const Fmt * f, const gdouble * x, gsize n_samples,
    GstClockTime pts)
{
  guint bps = fmt_bps (f), ch = f->channels, c;
  gsize size = n_samples * ch * bps, i;
  GstBuffer *buf = gst_buffer_new_allocate (NULL, size, NULL);
  GstMapInfo map;

  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  for (i = 0; i < n_samples; i++)
    for (c = 0; c < ch; c++) {
      gsize pos = f->planar ? (c * n_samples + i) : (i * ch + c);
      fmt_store (f, map.data + pos * bps, x[i * ch + c]);
    }
  gst_buffer_unmap (buf, &map);

  if (f->planar) {
    GstAudioInfo info;
    gchar *s = fmt_caps_string (f);
    GstCaps *caps = gst_caps_from_string (s);

    fail_unless (gst_audio_info_from_caps (&info, caps));
    gst_buffer_add_audio_meta (buf, &info, n_samples, NULL);
    gst_caps_unref (caps);
    g_free (s);
  }
  GST_BUFFER_PTS (buf) = pts;
  if (GST_CLOCK_TIME_IS_VALID (pts))
    GST_BUFFER_DURATION (buf) =
        gst_util_uint64_scale_int_round (n_samples, GST_SECOND, f->rate);
  return buf;
}

void
push_samples (GstHarness * h, const Fmt * f, const gdouble * x, gsize n,
    gsize chunk, GstClockTime pts0, gboolean discont)
{
  gsize off;

  for (off = 0; off < n; off += chunk) {
    gsize len = MIN (chunk, n - off);
    GstClockTime pts = GST_CLOCK_TIME_NONE;
    GstBuffer *buf;
    GstFlowReturn ret;

    if (GST_CLOCK_TIME_IS_VALID (pts0))
      pts = pts0 + gst_util_uint64_scale_int_round (off, GST_SECOND, f->rate);
    buf = fmt_make_buffer (f, x + off * f->channels, len, pts);
    if (GST_CLOCK_TIME_IS_VALID (pts0))
      GST_BUFFER_DURATION (buf) = pts0 +
          gst_util_uint64_scale_int_round (off + len, GST_SECOND,
          f->rate) - pts;
    if (discont && off == 0)
      GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_DISCONT);
    ret = gst_harness_push (h, buf);
    fail_unless_equals_int (ret, GST_FLOW_OK);
  }
}

/* ---- harness ------------------------------------------------------------ */

static GstHarness *
harness_new_factory (const gchar * factory, GstBus ** bus, const gchar * caps,
    GPtrArray * props)
{
  GstElement *el = gst_element_factory_make (factory, NULL);
  GstHarness *h;
  guint i;

  fail_unless (el != NULL, "no %s element (GST_PLUGIN_PATH?)", factory);
  for (i = 0; i + 1 < props->len; i += 2)
    gst_util_set_object_arg (G_OBJECT (el), g_ptr_array_index (props, i),
        g_ptr_array_index (props, i + 1));
  *bus = gst_bus_new ();
  gst_element_set_bus (el, *bus);
  h = gst_harness_new_with_element (el, "sink", "src");
  gst_object_unref (el);
  /* tests push faster than real time: a non-live upstream (back-pressure,
   * nothing dropped); test-streams checks the live behaviour */
  gst_harness_set_live (h, FALSE);
  if (caps)
    gst_harness_set_src_caps_str (h, caps);
  return h;
}

Msgs *
start_must_error (GstElement * el, GstState state)
{
  GstBus *bus = gst_bus_new ();
  Msgs *m;

  gst_element_set_bus (el, bus);
  gst_element_set_state (el, state);
  /* (until an ERROR: no spectrum message can come first) */
  m = msgs_collect (bus, 1, 30);
  gst_object_unref (bus);       /* (the element holds it) */
  fail_unless (m->errors->len >= 1, "no ERROR message");
  fail_unless_equals_int (m->spectrum->len, 0);
  return m;
}

void
start_failed_free (GstElement * el, Msgs * m)
{
  fail_unless_equals_int (gst_element_set_state (el, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  msgs_free (m);
  gst_element_set_bus (el, NULL);
  gst_object_unref (el);
}

gchar *
pipeline_first_error (const gchar * desc, const gchar * name)
{
  GError *err = NULL;
  GstElement *pipe = gst_parse_launch (desc, &err);
  GstElement *el;
  GstBus *bus;
  GstMessage *msg;
  gchar *debug = NULL, *out;

  fail_unless (pipe != NULL && err == NULL, "%s", desc);
  el = gst_bin_get_by_name (GST_BIN (pipe), name);
  fail_unless (el != NULL, "no element %s", name);
  bus = gst_element_get_bus (pipe);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
      GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
  fail_unless (msg != NULL, "no ERROR and no EOS in 60 s");
  fail_unless_equals_int (GST_MESSAGE_TYPE (msg), GST_MESSAGE_ERROR);
  fail_unless (GST_MESSAGE_SRC (msg) == GST_OBJECT (el),
      "the first ERROR is not %s's", name);
  gst_message_parse_error (msg, &err, &debug);
  out = g_strdup_printf ("%s | %s", err->message, debug ? debug : "");
  g_clear_error (&err);
  g_free (debug);
  gst_message_unref (msg);
  fail_unless_equals_int (gst_element_set_state (pipe, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  gst_object_unref (el);
  gst_object_unref (bus);
  gst_object_unref (pipe);
  return out;
}

static GstHarness *
harness_new_valist (const gchar * factory, GstBus ** bus, const gchar * caps,
    const gchar * first_prop, va_list ap)
{
  GPtrArray *props = g_ptr_array_new ();
  const gchar *p = first_prop;
  GstHarness *h;

  while (p) {
    g_ptr_array_add (props, (gpointer) p);
    g_ptr_array_add (props, va_arg (ap, gpointer));
    p = va_arg (ap, const gchar *);
  }
  h = harness_new_factory (factory, bus, caps, props);
  g_ptr_array_unref (props);
  return h;
}

GstHarness *
harness_new (GstBus ** bus, const gchar * caps, const gchar * first_prop, ...)
{
  GstHarness *h;
  va_list ap;

  va_start (ap, first_prop);
  h = harness_new_valist ("gpufftspectrum", bus, caps, first_prop, ap);
  va_end (ap);
  return h;
}

GstHarness *
harness_new_element (const gchar * factory, GstBus ** bus, const gchar * caps,
    const gchar * first_prop, ...)
{
  GstHarness *h;
  va_list ap;

  va_start (ap, first_prop);
  h = harness_new_valist (factory, bus, caps, first_prop, ap);
  va_end (ap);
  return h;
}

void
harness_free (GstHarness * h, GstBus * bus)
{
  gst_harness_teardown (h);
  gst_bus_set_flushing (bus, TRUE);
  gst_object_unref (bus);
}

/* ---- messages ----------------------------------------------------------- */

Msgs *
msgs_collect (GstBus * bus, guint n_spectrum, gdouble timeout_s)
{
  Msgs *m = g_new0 (Msgs, 1);
  gint64 deadline = g_get_monotonic_time () + (gint64) (timeout_s * 1e6);

  m->spectrum = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_structure_free);
  m->dominant = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_structure_free);
  m->errors = g_ptr_array_new_with_free_func (g_free);
  m->warnings = g_ptr_array_new_with_free_func (g_free);

  for (;;) {
    GstClockTime wait = 0;
    GstMessage *msg;
    gint64 now = g_get_monotonic_time ();

    if (m->spectrum->len < n_spectrum && m->errors->len == 0 && now < deadline)
      wait = (deadline - now) * GST_USECOND;
    msg = gst_bus_timed_pop (bus, wait);
    if (!msg)
      break;
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ELEMENT) {
      const GstStructure *s = gst_message_get_structure (msg);
      if (gst_structure_has_name (s, "spectrum"))
        g_ptr_array_add (m->spectrum, gst_structure_copy (s));
      else if (gst_structure_has_name (s, "dominant-frequency"))
        g_ptr_array_add (m->dominant, gst_structure_copy (s));
    } else if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR ||
        GST_MESSAGE_TYPE (msg) == GST_MESSAGE_WARNING) {
      GError *err = NULL;
      gchar *dbg = NULL;
      if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR)
        gst_message_parse_error (msg, &err, &dbg);
      else
        gst_message_parse_warning (msg, &err, &dbg);
      g_ptr_array_add (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR ?
          m->errors : m->warnings, g_strdup_printf ("%s | %s", err->message,
              GST_STR_NULL (dbg)));
      g_error_free (err);
      g_free (dbg);
    }
    gst_message_unref (msg);
  }
  return m;
}

static void
move_all (GPtrArray * into, GPtrArray * from)
{
  guint i;

  /* (from's free function would free them: take them out first) */
  for (i = 0; i < from->len; i++)
    g_ptr_array_add (into, g_ptr_array_index (from, i));
  g_ptr_array_set_free_func (from, NULL);
  g_ptr_array_set_size (from, 0);
}

void
msgs_append (Msgs * into, Msgs * from)
{
  move_all (into->spectrum, from->spectrum);
  move_all (into->dominant, from->dominant);
  move_all (into->errors, from->errors);
  move_all (into->warnings, from->warnings);
  msgs_free (from);
}

guint64
stats_u64 (GstElement * el, const gchar * field)
{
  GstStructure *st = NULL;
  guint64 v = 0;

  g_object_get (el, "stats", &st, NULL);
  fail_unless (st != NULL);
  fail_unless (gst_structure_get_uint64 (st, field, &v), "no %s in stats",
      field);
  gst_structure_free (st);
  return v;
}

void
msgs_free (Msgs * m)
{
  g_ptr_array_unref (m->spectrum);
  g_ptr_array_unref (m->dominant);
  g_ptr_array_unref (m->errors);
  g_ptr_array_unref (m->warnings);
  g_free (m);
}

void
dump_msgs_refs (Msgs * m, GPtrArray * refs, gint rate)
{
  guint i;

  for (i = 0; i < MAX (m->spectrum->len, refs->len); i++) {
    if (i < m->spectrum->len) {
      const GstStructure *s = g_ptr_array_index (m->spectrum, i);
      guint64 ts = 0, dur = 0;
      guint frames = 0;
      gst_structure_get_uint64 (s, "timestamp", &ts);
      gst_structure_get_uint64 (s, "duration", &dur);
      gst_structure_get_uint (s, "frames", &frames);
      g_printerr ("message %2u: ts %" G_GUINT64_FORMAT " dur %"
          G_GUINT64_FORMAT " frames %u", i, ts, dur, frames);
    } else {
      g_printerr ("message %2u: -", i);
    }
    if (i < refs->len) {
      RefInterval *r = g_ptr_array_index (refs, i);
      g_printerr ("   | reference interval %" G_GUINT64_FORMAT ": samples [%"
          G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT ") ts %" G_GUINT64_FORMAT
          " frames %u\n", r->index, r->first, r->end,
          gst_util_uint64_scale_int_round (r->first, GST_SECOND, rate),
          r->frames);
    } else {
      g_printerr ("\n");
    }
  }
}

guint64
msg_u64 (const GstStructure * s, const gchar * field)
{
  guint64 v = 0;

  fail_unless (gst_structure_get_uint64 (s, field, &v),
      "field %s missing or not guint64 in %" GST_PTR_FORMAT, field, s);
  return v;
}

guint
msg_uint (const GstStructure * s, const gchar * field)
{
  guint v = 0;

  fail_unless (gst_structure_get_uint (s, field, &v),
      "field %s missing or not guint in %" GST_PTR_FORMAT, field, s);
  return v;
}

gint
msg_int (const GstStructure * s, const gchar * field)
{
  gint v = 0;

  fail_unless (gst_structure_get_int (s, field, &v),
      "field %s missing or not gint in %" GST_PTR_FORMAT, field, s);
  return v;
}

gdouble
msg_double (const GstStructure * s, const gchar * field)
{
  gdouble v = 0;

  fail_unless (gst_structure_get_double (s, field, &v),
      "field %s missing or not gdouble in %" GST_PTR_FORMAT, field, s);
  return v;
}

gdouble
msg_double_ch (const GstStructure * s, const gchar * field, guint channel)
{
  const GValue *v = gst_structure_get_value (s, field), *e;

  fail_unless (v != NULL, "no field %s", field);
  if (G_VALUE_HOLDS_DOUBLE (v)) {
    fail_unless_equals_int (channel, 0);
    return g_value_get_double (v);
  }
  fail_unless (GST_VALUE_HOLDS_ARRAY (v), "%s is neither double nor array",
      field);
  fail_unless (channel < gst_value_array_get_size (v));
  e = gst_value_array_get_value (v, channel);
  fail_unless (G_VALUE_HOLDS_DOUBLE (e), "%s[%u] not a double", field, channel);
  return g_value_get_double (e);
}

static void
read_float_values (const GValue * v, gboolean list, gfloat * out, guint nb,
    const gchar * field)
{
  guint n = list ? gst_value_list_get_size (v) : gst_value_array_get_size (v);
  guint i;

  fail_unless_equals_int (n, nb);
  for (i = 0; i < n; i++) {
    const GValue *e = list ? gst_value_list_get_value (v, i) :
        gst_value_array_get_value (v, i);
    fail_unless (G_VALUE_HOLDS_FLOAT (e), "%s[%u] is %s, not float", field, i,
        G_VALUE_TYPE_NAME (e));
    out[i] = g_value_get_float (e);
  }
}

gfloat *
msg_floats (const GstStructure * s, const gchar * field, guint * channels,
    guint * n_bins, gchar * layout_out)
{
  const GValue *v = gst_structure_get_value (s, field);
  guint nb = msg_uint (s, "fft-size") / 2 + 1, ch, c;
  gfloat *out;
  gchar layout;

  fail_unless (v != NULL, "no %s field in %" GST_PTR_FORMAT, field, s);
  if (GST_VALUE_HOLDS_LIST (v)) {
    layout = 'l';
    ch = 1;
    out = g_new (gfloat, nb);
    read_float_values (v, TRUE, out, nb, field);
  } else if (GST_VALUE_HOLDS_ARRAY (v)) {
    layout = 'a';
    ch = gst_value_array_get_size (v);
    fail_unless (ch >= 1);
    out = g_new (gfloat, (gsize) ch * nb);
    for (c = 0; c < ch; c++) {
      const GValue *inner = gst_value_array_get_value (v, c);
      fail_unless (GST_VALUE_HOLDS_ARRAY (inner),
          "%s[%u] is %s, not a GstValueArray", field, c,
          G_VALUE_TYPE_NAME (inner));
      read_float_values (inner, FALSE, out + (gsize) c * nb, nb, field);
    }
  } else if (G_VALUE_HOLDS (v, G_TYPE_BYTES)) {
    GBytes *bytes = g_value_get_boxed (v);
    gsize size = 0, i;
    const guint8 *d = g_bytes_get_data (bytes, &size);

    layout = 'b';
    fail_unless (size > 0 && size % (4 * nb) == 0,
        "%s: %" G_GSIZE_FORMAT " bytes, not a multiple of 4*%u", field, size,
        nb);
    ch = size / (4 * nb);
    out = g_new (gfloat, (gsize) ch * nb);
    for (i = 0; i < (gsize) ch * nb; i++)
      out[i] = GST_READ_FLOAT_LE (d + 4 * i);
  } else {
    fail ("%s has unexpected type %s", field, G_VALUE_TYPE_NAME (v));
    return NULL;
  }
  if (channels)
    *channels = ch;
  if (n_bins)
    *n_bins = nb;
  if (layout_out)
    *layout_out = layout;
  return out;
}

gdouble
compare_db (const RefConfig * c, const gfloat * got, const gdouble * ref_power,
    gdouble threshold, gdouble tol_db, const gchar * what)
{
  guint nb = c->fft_size / 2 + 1, b;
  gdouble maxu = 0, maxerr = 0;

  for (b = 0; b < nb; b++)
    maxu = MAX (maxu, ref_unit (c, ref_power[b]));
  for (b = 0; b < nb; b++) {
    gdouble u = ref_unit (c, ref_power[b]);
    gdouble rdb = ref_db (c, ref_power[b], threshold);
    gdouble err = fabs (got[b] - rdb);

    fail_unless (got[b] >= (gfloat) threshold,
        "%s: bin %u = %g below threshold %g", what, b, got[b], threshold);
    if (err > tol_db) {
      gdouble ug = pow (10.0, got[b] / 10.0);
      fail_unless (fabs (ug - u) <= 1e-8 * maxu,
          "%s: bin %u: got %.5f dB, reference %.5f dB (error %.5f dB, "
          "loudest %.2f dB)", what, b, got[b], rdb, err, 10 * log10 (maxu));
    }
    if (u >= 1e-6 * maxu && rdb > threshold)
      maxerr = MAX (maxerr, err);
  }
  return maxerr;
}

void
check_spectrum_fields (const GstStructure * s, const RefConfig * c,
    const RefInterval * r, GstClockTime ts0, gint channels)
{
  guint64 ts = msg_u64 (s, "timestamp"), dur = msg_u64 (s, "duration");
  guint64 ets = ts0 + gst_util_uint64_scale_int_round (r->first, GST_SECOND,
      c->rate);
  guint64 eend = ts0 + gst_util_uint64_scale_int_round (r->end, GST_SECOND,
      c->rate);
  const gchar *str;

  fail_unless (ts + 1 >= ets && ts <= ets + 1,
      "timestamp %" G_GUINT64_FORMAT " expected %" G_GUINT64_FORMAT
      " (interval %" G_GUINT64_FORMAT ")", ts, ets, r->index);
  fail_unless (ts + dur + 1 >= eend && ts + dur <= eend + 1,
      "timestamp+duration %" G_GUINT64_FORMAT " expected %" G_GUINT64_FORMAT
      " (interval %" G_GUINT64_FORMAT ")", ts + dur, eend, r->index);
  /* (spectrum's endtime: stream-time + duration) */
  fail_unless_equals_uint64 (msg_u64 (s, "endtime"),
      msg_u64 (s, "stream-time") + dur);
  fail_unless_equals_uint64 (msg_u64 (s, "stream-time"), ts);
  fail_unless_equals_uint64 (msg_u64 (s, "running-time"), ts);
  fail_unless_equals_int (msg_int (s, "rate"), c->rate);
  fail_unless_equals_int (msg_uint (s, "fft-size"), c->fft_size);
  fail_unless_equals_int (msg_uint (s, "hop-size"), c->hop);
  fail_unless_equals_int (msg_uint (s, "frames"), r->frames);
  if (channels > 0)
    fail_unless_equals_int (msg_int (s, "channels"), channels);
  fail_unless (fabs (msg_double (s, "bin-width") -
          (gdouble) c->rate / c->fft_size) < 1e-9);
  str = gst_structure_get_string (s, "window");
  fail_unless (str != NULL, "no window string");
  fail_unless_equals_string (str, ref_window_nick[c->window]);
  str = gst_structure_get_string (s, "scaling");
  fail_unless (str != NULL, "no scaling string");
  fail_unless_equals_string (str, c->density ? "density" : "spectrum");
}

Run *
run_mono (const RefConfig * c, gdouble threshold, const gdouble * x, gsize n,
    gsize chunk, const gchar * const *extra_props)
{
  Fmt f = { "F32LE", c->rate, 1, FALSE };
  gchar *caps = fmt_caps_string (&f);
  GPtrArray *props = g_ptr_array_new_with_free_func (g_free);
  gdouble *xq = g_new (gdouble, n);
  Run *run = g_new0 (Run, 1);
  GstHarness *h;
  GstBus *bus;
  guint i;

#define ADDP(k, ...) G_STMT_START { \
  g_ptr_array_add (props, g_strdup (k)); \
  g_ptr_array_add (props, g_strdup_printf (__VA_ARGS__)); } G_STMT_END
  ADDP ("fft-size", "%u", c->fft_size);
  ADDP ("hop-size", "%u", c->hop);
  ADDP ("window", "%s", ref_window_nick[c->window]);
  ADDP ("scaling", "%s", c->density ? "density" : "spectrum");
  ADDP ("interval", "%" G_GUINT64_FORMAT, c->interval);
  ADDP ("threshold", "%d", (gint) threshold);
#undef ADDP
  for (i = 0; extra_props && extra_props[i] && extra_props[i + 1]; i += 2) {
    g_ptr_array_add (props, g_strdup (extra_props[i]));
    g_ptr_array_add (props, g_strdup (extra_props[i + 1]));
  }

  memcpy (xq, x, n * sizeof (gdouble));
  fmt_quantize (&f, xq, n);
  run->refs = ref_welch (c, xq, n);
  h = harness_new_factory ("gpufftspectrum", &bus, caps, props);
  push_samples (h, &f, xq, n, chunk, 0, FALSE);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  run->m = msgs_collect (bus, run->refs->len, 120);
  fail_unless_equals_int (run->m->errors->len, 0);
  if (run->m->spectrum->len != run->refs->len)
    dump_msgs_refs (run->m, run->refs, c->rate);
  fail_unless_equals_int (run->m->spectrum->len, run->refs->len);
  for (i = 0; i < run->refs->len; i++)
    check_spectrum_fields (g_ptr_array_index (run->m->spectrum, i), c,
        g_ptr_array_index (run->refs, i), 0, -1);
  harness_free (h, bus);
  g_ptr_array_unref (props);
  g_free (xq);
  g_free (caps);
  return run;
}

void
run_free (Run * run)
{
  msgs_free (run->m);
  g_ptr_array_unref (run->refs);
  g_free (run);
}

gdouble
run_and_compare (const RefConfig * c, gdouble threshold, const gdouble * x,
    gsize n, gsize chunk, gdouble tol_db, const gchar * const *extra_props)
{
  Run *run = run_mono (c, threshold, x, n, chunk, extra_props);
  gdouble maxerr = 0;
  guint i;

  for (i = 0; i < run->refs->len; i++) {
    RefInterval *r = g_ptr_array_index (run->refs, i);
    const GstStructure *s = g_ptr_array_index (run->m->spectrum, i);
    guint ch;
    gfloat *got = msg_floats (s, "magnitude", &ch, NULL, NULL);
    gchar *what = g_strdup_printf ("interval %" G_GUINT64_FORMAT, r->index);

    fail_unless_equals_int (ch, 1);
    maxerr = MAX (maxerr, compare_db (c, got, r->power, threshold, tol_db,
            what));
    g_free (got);
    g_free (what);
  }
  run_free (run);
  return maxerr;
}

/* ---- warning capture ---------------------------------------------------- */

typedef struct
{
  GString *text;
  GstElement *el;
} Capture;

/* The capture under way, under capture_lock. Each
 * gst_debug_add_log_function() and gst_debug_remove_log_function() after
 * gst_init() leaves GStreamer's previous list of log functions allocated
 * (another thread may be reading it), which LeakSanitizer reports as a
 * leak of the test. So the test programs' one log function,
 * capture_gstlog, takes the place of GStreamer's default one before
 * gst_init() (capture_install) and is never removed: it writes what the
 * default one would (gst_debug_log_default) and adds the warnings to the
 * capture under way. */
static GMutex capture_lock;
static Capture *capture_current;

static void
capture_glog (const gchar * domain, GLogLevelFlags level, const gchar * msg,
    gpointer data)
{
  Capture *cap = data;

  g_mutex_lock (&capture_lock);
  g_string_append_printf (cap->text, "[g_log %s] %s\n", GST_STR_NULL (domain),
      msg);
  g_mutex_unlock (&capture_lock);
}

static void
capture_gstlog (GstDebugCategory * cat, GstDebugLevel level,
    const gchar * file, const gchar * function, gint line, GObject * object,
    GstDebugMessage * message, gpointer data)
{
  Capture *cap;

  gst_debug_log_default (cat, level, file, function, line, object, message,
      NULL);
  if (level > GST_LEVEL_WARNING)
    return;
  g_mutex_lock (&capture_lock);
  cap = capture_current;
  if (cap && (object == (GObject *) cap->el ||
          strstr (gst_debug_category_get_name (cat), "gpufft")))
    g_string_append_printf (cap->text, "[gst %s] %s\n",
        gst_debug_category_get_name (cat), gst_debug_message_get (message));
  g_mutex_unlock (&capture_lock);
}

/* Before main (), so before gst_init (): removing the default log
 * function then only tells gst_init () not to add it, and adding to the
 * empty list leaves nothing behind. */
__attribute__ ((constructor))
static void
capture_install (void)
{
  gst_debug_remove_log_function (gst_debug_log_default);
  gst_debug_add_log_function (capture_gstlog, NULL, NULL);
}

gchar *
capture_warnings (GstElement * el, CaptureFunc code, gpointer data)
{
  static const gchar *domains[] = { NULL, "GStreamer", "GLib-GObject", "GLib",
    "gpufft", "gpufftspectrum"
  };
  guint ids[G_N_ELEMENTS (domains)], i;
  GstDebugLevel old = gst_debug_get_default_threshold ();
  gboolean was_active = gst_debug_is_active ();
  Capture cap;
  GstBus *bus;

  cap.text = g_string_new (NULL);
  cap.el = el;
  _gst_check_expecting_log = TRUE;
  for (i = 0; i < G_N_ELEMENTS (domains); i++)
    ids[i] = g_log_set_handler (domains[i], G_LOG_LEVEL_WARNING |
        G_LOG_LEVEL_MESSAGE, capture_glog, &cap);
  gst_debug_set_active (TRUE);
  if (old < GST_LEVEL_WARNING)
    gst_debug_set_default_threshold (GST_LEVEL_WARNING);
  g_mutex_lock (&capture_lock);
  capture_current = &cap;
  g_mutex_unlock (&capture_lock);

  code (data);

  g_mutex_lock (&capture_lock);
  capture_current = NULL;
  g_mutex_unlock (&capture_lock);
  gst_debug_set_default_threshold (old);
  gst_debug_set_active (was_active);
  for (i = 0; i < G_N_ELEMENTS (domains); i++)
    g_log_remove_handler (domains[i], ids[i]);
  _gst_check_expecting_log = FALSE;

  bus = gst_element_get_bus (el);
  if (bus) {
    GstMessage *msg;
    while ((msg = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING))) {
      GError *err = NULL;
      gchar *dbg = NULL;
      gst_message_parse_warning (msg, &err, &dbg);
      g_string_append_printf (cap.text, "[bus] %s | %s\n", err->message,
          GST_STR_NULL (dbg));
      g_error_free (err);
      g_free (dbg);
      gst_message_unref (msg);
    }
    gst_object_unref (bus);
  }
  return g_string_free (cap.text, FALSE);
}

void
read_properties (GstElement * el)
{
  GParamSpec **ps;
  guint n, i;

  ps = g_object_class_list_properties (G_OBJECT_GET_CLASS (el), &n);
  for (i = 0; i < n; i++) {
    GValue v = G_VALUE_INIT;

    if (!(ps[i]->flags & G_PARAM_READABLE))
      continue;
    g_value_init (&v, ps[i]->value_type);
    g_object_get_property (G_OBJECT (el), ps[i]->name, &v);
    g_value_unset (&v);
  }
  g_free (ps);
}
