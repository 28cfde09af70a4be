/* gpufftspectrogram: known signals rendered to pictures and checked by
 * their pixels, against formulas written out here:
 *
 *   axis position u(f) (0 at the bottom row, 1 at the top):
 *     linear (f - lo) / (hi - lo); log ln (f / lo) / ln (hi / lo);
 *     mel (Slaney: f / (200/3) below 1 kHz, 15 + ln (f / 1000) / (ln 6.4 /
 *     27) above) (mel (f) - mel (lo)) / (mel (hi) - mel (lo));
 *     octave as log, every row of a 1/3-octave band (IEC 61260-1 base ten:
 *     edges 1000 G^((2x -+ 1) / 6), G = 10^0.3) showing the band's level
 *   row of f: floor (u (f) H) of a waterfall H rows high (row 0 at the
 *     bottom, picture row wf_y + H - 1 - row)
 *   level: a sine of amplitude A reads 20 log10 A dB (a tone on a bin
 *     centre, Hann window); colour entry round (255 (L - min) / (max -
 *     min)), the entries of matplotlib's viridis (its published floats,
 *     copied below) or grayscale (entry i = (i, i, i))
 *   frames: frame f covers samples [S(f), S(f+1)), S(f) = f rate / fps,
 *     PTS f / fps; at EOS the rest makes one shorter frame.
 *
 * The pictures come out of a GstHarness (the element's video pool). */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/audio/audio.h>
#include <gst/video/video.h>
#include <math.h>
#include <string.h>

#define RATE 48000
#define N 4096
#define DF ((gdouble) RATE / N)

typedef struct
{
  GPtrArray *frames;            /* GstBuffer* */
  GstCaps *caps;                /* of the last frame */
  GstStructure *layout;
  GstStructure *stats;
  gboolean eos;
} Pictures;

static void
pictures_free (Pictures * p)
{
  g_ptr_array_unref (p->frames);
  if (p->caps)
    gst_caps_unref (p->caps);
  if (p->layout)
    gst_structure_free (p->layout);
  if (p->stats)
    gst_structure_free (p->stats);
  g_free (p);
}

static GstHarness *
spectrogram_harness (const gchar * video_caps, const gchar * const *props)
{
  GstHarness *h = gst_harness_new ("gpufftspectrogram");
  guint i;

  /* (not live, as a file: every frame is drawn; a live stream's frames do
   * not wait for the plan, test_live_plan_wait) */
  gst_harness_set_live (h, FALSE);
  for (i = 0; props && props[i]; i += 2)
    gst_util_set_object_arg (G_OBJECT (h->element), props[i], props[i + 1]);
  gst_harness_set_sink_caps_str (h, video_caps);
  gst_harness_set_src_caps_str (h, "audio/x-raw, format=F32LE, rate="
      G_STRINGIFY (RATE) ", channels=1, layout=interleaved");
  return h;
}

static void
push_mono (GstHarness * h, const gdouble * x, gsize n, gsize chunk,
    gsize * offset)
{
  gsize i, j;

  for (i = 0; i < n; i += chunk) {
    gsize m = MIN (chunk, n - i);
    GstBuffer *b = gst_buffer_new_allocate (NULL, m * 4, NULL);
    GstMapInfo map;

    gst_buffer_map (b, &map, GST_MAP_WRITE);
    for (j = 0; j < m; j++)
      ((gfloat *) map.data)[j] = (gfloat) x[i + j];
    gst_buffer_unmap (b, &map);
    GST_BUFFER_PTS (b) = gst_util_uint64_scale (*offset, GST_SECOND, RATE);
    GST_BUFFER_DURATION (b) = gst_util_uint64_scale (m, GST_SECOND, RATE);
    *offset += m;
    fail_unless_equals_int (gst_harness_push (h, b), GST_FLOW_OK);
  }
}

static void
pull_all (GstHarness * h, Pictures * p)
{
  GstBuffer *b;

  while ((b = gst_harness_try_pull (h)))
    g_ptr_array_add (p->frames, b);
}

/* The harness's current caps and the element's layout, for the checks. */
static void
take_layout (GstHarness * h, Pictures * p)
{
  p->caps = gst_pad_get_current_caps (h->sinkpad);
  g_object_get (h->element, "layout", &p->layout, "stats", &p->stats, NULL);
}

/* x[n] mono at RATE through an element with props, then EOS */
static Pictures *
render (const gchar * video_caps, const gchar * const *props,
    const gdouble * x, gsize n)
{
  GstHarness *h = spectrogram_harness (video_caps, props);
  Pictures *p = g_new0 (Pictures, 1);
  gsize offset = 0;
  GstEvent *ev;

  p->frames = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_buffer_unref);
  push_mono (h, x, n, 4800, &offset);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  pull_all (h, p);
  while ((ev = gst_harness_try_pull_event (h))) {
    if (GST_EVENT_TYPE (ev) == GST_EVENT_EOS)
      p->eos = TRUE;
    gst_event_unref (ev);
  }
  take_layout (h, p);
  gst_harness_teardown (h);
  fail_unless (p->frames->len > 0, "no frame came out");
  return p;
}

static guint
lay (Pictures * p, const gchar * field)
{
  guint v = 0;

  fail_unless (gst_structure_get_uint (p->layout, field, &v),
      "layout has no %s: %" GST_PTR_FORMAT, field, p->layout);
  return v;
}

static gdouble
lay_d (Pictures * p, const gchar * field)
{
  gdouble v = 0;

  fail_unless (gst_structure_get_double (p->layout, field, &v));
  return v;
}

/* RGBA pixel (x, y) of frame i */
static void
pixel (Pictures * p, guint i, guint x, guint y, guint8 rgb[3])
{
  GstVideoInfo info;
  GstVideoFrame f;
  const guint8 *px;

  fail_unless (gst_video_info_from_caps (&info, p->caps));
  fail_unless (gst_video_frame_map (&f, &info,
          g_ptr_array_index (p->frames, i), GST_MAP_READ));
  px = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&f, 0) +
      y * GST_VIDEO_FRAME_PLANE_STRIDE (&f, 0) + x * 4;
  memcpy (rgb, px, 3);
  gst_video_frame_unmap (&f);
}

static gdouble *
tone (gsize n, gdouble amp, gdouble f)
{
  gdouble *x = g_new (gdouble, n);
  gsize i;

  for (i = 0; i < n; i++)
    x[i] = amp * sin (2 * G_PI * f * i / RATE + 0.3);
  return x;
}

/* ---- the axis formulas -------------------------------------------------- */

static gdouble
slaney_mel (gdouble f)
{
  return f < 1000 ? f / (200.0 / 3) : 15 + log (f / 1000) / (log (6.4) / 27);
}

static gdouble
axis_u (const gchar * axis, gdouble lo, gdouble hi, gdouble f)
{
  if (!strcmp (axis, "linear"))
    return (f - lo) / (hi - lo);
  if (!strcmp (axis, "mel"))
    return (slaney_mel (f) - slaney_mel (lo)) / (slaney_mel (hi) -
        slaney_mel (lo));
  return log (f / lo) / log (hi / lo);
}

static guint
axis_row (const gchar * axis, gdouble lo, gdouble hi, gdouble f, guint rows)
{
  gdouble r = floor (axis_u (axis, lo, hi, f) * rows);

  return (guint) CLAMP (r, 0, rows - 1);
}

/* grayscale value along waterfall column x (from the right edge: age
 * columns before the newest) of the last frame: v[row] */
static guint8 *
gray_column (Pictures * p, guint age)
{
  guint wx = lay (p, "waterfall-x"), wy = lay (p, "waterfall-y");
  guint ww = lay (p, "waterfall-width"), wh = lay (p, "waterfall-height");
  guint8 *v = g_new (guint8, wh), rgb[3];
  guint r;

  for (r = 0; r < wh; r++) {
    pixel (p, p->frames->len - 1, wx + ww - 1 - age, wy + wh - 1 - r, rgb);
    fail_unless (rgb[0] == rgb[1] && rgb[1] == rgb[2],
        "grayscale pixel is (%u, %u, %u)", rgb[0], rgb[1], rgb[2]);
    v[r] = rgb[0];
  }
  return v;
}

static guint
expected_gray (gdouble db, gdouble min_db, gdouble max_db)
{
  return (guint) round (255 * CLAMP ((db - min_db) / (max_db - min_db), 0, 1));
}

/* A tone of amplitude 0.1 (-20 dB) on bin k lights row floor (u(f) H) with
 * the colour of -20 dB, and that row is the brightest of its column. */
static void
check_tone_row (const gchar * axis, guint k)
{
  gdouble f = k * DF;
  const gchar *props[] = { "frequency-axis", axis, "fft-size", "4096",
    "colormap", "grayscale", "min-db", "-100", "max-db", "0", NULL
  };
  gdouble *x = tone (RATE, 0.1, f);
  Pictures *p = render ("video/x-raw, format=RGBA, width=640, height=400, "
      "framerate=10/1", props, x, RATE);
  guint wh = lay (p, "waterfall-height"), r, best = 0, row, age;
  gdouble lo = lay_d (p, "min-frequency"), hi = lay_d (p, "max-frequency");

  fail_unless_equals_int (lay (p, "fft-size"), N);
  fail_unless (fabs (hi - RATE / 2.0) < 1e-9);
  fail_unless (fabs (lo - (!strcmp (axis, "linear") || !strcmp (axis, "mel")
              ? 0.0 : 20.0)) < 1e-9, "min-frequency %g", lo);
  row = axis_row (axis, lo, hi, f, wh);
  /* columns well inside the tone (the newest ones see the end) */
  for (age = 8; age < 40; age += 7) {
    guint8 *v = gray_column (p, age);

    for (r = 0; r < wh; r++)
      if (v[r] > v[best])
        best = r;
    if (!strcmp (axis, "octave")) {
      /* every row of the band (centre inside its edges) is as bright */
      gdouble g = pow (10, 0.3), x_band = round (3 * log (f / 1000) /
          log (g)), fm = 1000 * pow (g, x_band / 3);
      gdouble f_lo = fm * pow (g, -1.0 / 6), f_hi = fm * pow (g, 1.0 / 6);

      fail_unless (abs ((gint) v[row] - (gint) v[best]) <= 1,
          "octave: row %u (%.1f Hz) is %u, the brightest (row %u) %u", row,
          f, v[row], best, v[best]);
      for (r = 0; r < wh; r++) {
        gdouble fc = lo * pow (hi / lo, (r + 0.5) / wh);

        if (fc >= f_lo * 1.001 && fc < f_hi * 0.999)
          fail_unless (abs ((gint) v[r] - (gint) v[row]) <= 1,
              "octave band %.0f..%.0f Hz: row %u is %u, row %u is %u",
              f_lo, f_hi, r, v[r], row, v[row]);
        else if (fc < f_lo * 0.97 || fc > f_hi * 1.03)
          fail_unless (v[r] < v[row] - 10,
              "outside the band (%.0f Hz, row %u): %u, band %u", fc, r,
              v[r], v[row]);
      }
    } else {
      fail_unless (best == row, "%s axis: %.2f Hz at row %u, expected "
          "row %u (of %u)", axis, f, best, row, wh);
    }
    /* -20 dB, within the window's scalloping of a bin-centred tone:
     * none; allow 0.3 dB of float rounding (1 grey level is 0.39 dB) */
    fail_unless (abs ((gint) v[row] - (gint) expected_gray (-20, -100,
                0)) <= 1, "%s: level %u, expected %u (-20 dB)", axis,
        v[row], expected_gray (-20, -100, 0));
    g_free (v);
  }
  GST_INFO ("%s axis: %.2f Hz at row %u of %u", axis, f, row, wh);
  pictures_free (p);
  g_free (x);
}

GST_START_TEST (test_tone_row_linear)
{
  check_tone_row ("linear", 85);
  check_tone_row ("linear", 512);
}

GST_END_TEST;

GST_START_TEST (test_tone_row_log)
{
  check_tone_row ("log", 85);
  check_tone_row ("log", 9);
}

GST_END_TEST;

GST_START_TEST (test_tone_row_mel)
{
  check_tone_row ("mel", 85);
  check_tone_row ("mel", 700);
}

GST_END_TEST;

GST_START_TEST (test_tone_row_octave)
{
  check_tone_row ("octave", 85);
  check_tone_row ("octave", 341);
}

GST_END_TEST;

/* A linear sweep from 2 to 14 kHz over 2 s draws a line rising by
 * (df/dt) (column_hop / rate) H / (hi - lo) rows per column. */
/* rows of a grey column at or above -80 dB (min-db -100, max-db 0) */
static guint
rows_above_80 (const guint8 * v, guint wh)
{
  guint r, n = 0;

  for (r = 0; r < wh; r++)
    if (v[r] >= expected_gray (-80, -100, 0))
      n++;
  return n;
}

/* A steady tone's first and last columns (the stream's edges, where the
 * analysis frames reach past the audio). With the stream padded by zeros
 * the tone started and stopped abruptly there: the first column lit 157 of
 * 368 rows at or above -80 dB against 5 in the middle (a mirror, 140).
 * Reflected through its edge sample (value and slope go on) it lights 46:
 * fewer than 60 here; the last column as the middle ones. */
GST_START_TEST (test_edge_columns)
{
  const gchar *props[] = { "frequency-axis", "linear", "fft-size", "4096",
    "colormap", "grayscale", "min-db", "-100", "max-db", "0", NULL
  };
  gdouble *x = tone (RATE, 0.5, 85 * DF + 0.37 * DF);
  Pictures *p = render ("video/x-raw, format=RGBA, width=640, height=400, "
      "framerate=10/1", props, x, RATE);
  guint wh = lay (p, "waterfall-height"), ww = lay (p, "waterfall-width");
  guint age, first = 0, mid, n_last, n_first, n_mid;
  guint8 *v;

  /* the oldest column of the stream: the last one with the tone's row */
  for (age = 0; age < ww; age++) {
    guint8 *c = gray_column (p, age);
    guint r, top = 0;

    for (r = 0; r < wh; r++)
      top = MAX (top, c[r]);
    g_free (c);
    if (top < expected_gray (-30, -100, 0))
      break;
    first = age;
  }
  fail_unless (first >= 20, "only %u columns of tone", first + 1);
  mid = first / 2;
  v = gray_column (p, 0);
  n_last = rows_above_80 (v, wh);
  g_free (v);
  v = gray_column (p, first);
  n_first = rows_above_80 (v, wh);
  g_free (v);
  v = gray_column (p, mid);
  n_mid = rows_above_80 (v, wh);
  g_free (v);
  GST_INFO ("rows at or above -80 dB: first column %u, middle %u, last %u "
      "(of %u; %u columns)", n_first, n_mid, n_last, wh, first + 1);
  fail_unless (n_first < 60, "first column: %u rows above -80 dB, middle "
      "%u", n_first, n_mid);
  fail_unless (n_last <= 2 * n_mid + 4, "last column: %u rows above "
      "-80 dB, middle %u", n_last, n_mid);
  pictures_free (p);
  g_free (x);
}

GST_END_TEST;

GST_START_TEST (test_chirp_slope)
{
  const gchar *props[] = { "fft-size", "1024", "colormap", "grayscale",
    "time-span", "2.5", NULL
  };
  gdouble f0 = 2000, f1 = 14000, T = 2.0, *x, sx = 0, sy = 0, sxx = 0,
      sxy = 0, slope, expect, cph;
  gsize n = (gsize) (T * RATE), i;
  Pictures *p;
  guint wh, age, count = 0;

  x = g_new (gdouble, n);
  for (i = 0; i < n; i++) {
    gdouble t = (gdouble) i / RATE;

    x[i] = 0.5 * sin (2 * G_PI * (f0 * t + (f1 - f0) * t * t / (2 * T)));
  }
  p = render ("video/x-raw, format=RGBA, width=800, height=400, "
      "framerate=20/1", props, x, n);
  wh = lay (p, "waterfall-height");
  cph = lay (p, "column-hop");
  expect = (f1 - f0) / T * (cph / RATE) * wh / lay_d (p, "max-frequency");
  /* columns of the middle of the sweep: brightest row against x */
  for (age = 30; age < 0.8 * T * RATE / cph; age += 3) {
    guint8 *v = gray_column (p, age);
    guint r, best = 0;
    gdouble xc = -(gdouble) age;

    for (r = 0; r < wh; r++)
      if (v[r] > v[best])
        best = r;
    sx += xc;
    sy += best;
    sxx += xc * xc;
    sxy += xc * best;
    count++;
    g_free (v);
  }
  slope = (count * sxy - sx * sy) / (count * sxx - sx * sx);
  GST_INFO ("chirp: %.5f rows per column, expected %.5f (%u columns)",
      slope, expect, count);
  fail_unless (count > 20);
  fail_unless (fabs (slope / expect - 1) < 0.02,
      "chirp slope %.5f rows/column, expected %.5f", slope, expect);
  pictures_free (p);
  g_free (x);
}

GST_END_TEST;

/* matplotlib's viridis, entries used below (floats of _cm_listed.py) */
static const struct
{
  guint index;
  gdouble rgb[3];
} viridis_ref[] = {
  {0, {0.267004, 0.004874, 0.329415}},
  {152, {0.132268, 0.655014, 0.519661}},
  {153, {0.134692, 0.658636, 0.517649}},
  {154, {0.137339, 0.662252, 0.515571}},
  {203, {0.468053, 0.818921, 0.323998}},
  {204, {0.477504, 0.821444, 0.318195}},
  {205, {0.487026, 0.823929, 0.312321}},
};

/* TRUE when rgb is viridis entry index (8-bit rounding of the floats) */
static gboolean
is_viridis (const guint8 rgb[3], guint index)
{
  guint i, c;

  for (i = 0; i < G_N_ELEMENTS (viridis_ref); i++)
    if (viridis_ref[i].index == index) {
      for (c = 0; c < 3; c++)
        if (abs ((gint) rgb[c] - (gint) round (255 *
                    viridis_ref[i].rgb[c])) > 0)
          return FALSE;
      return TRUE;
    }
  fail ("no reference for viridis entry %u", index);
  return FALSE;
}

/* Silence is the floor colour everywhere in the waterfall. */
GST_START_TEST (test_silence_floor)
{
  gdouble *x = g_new0 (gdouble, RATE / 2);
  Pictures *p = render ("video/x-raw, format=RGBA, width=320, height=200, "
      "framerate=10/1", NULL, x, RATE / 2);
  guint wx = lay (p, "waterfall-x"), wy = lay (p, "waterfall-y");
  guint ww = lay (p, "waterfall-width"), wh = lay (p, "waterfall-height");
  guint i, xx, yy;
  guint8 rgb[3];

  for (i = 0; i < p->frames->len; i += MAX (1, p->frames->len / 3))
    for (yy = wy; yy < wy + wh; yy++)
      for (xx = wx; xx < wx + ww; xx++) {
        pixel (p, i, xx, yy, rgb);
        fail_unless (is_viridis (rgb, 0), "frame %u (%u, %u) is (%u, %u, %u)"
            ", not viridis[0]", i, xx, yy, rgb[0], rgb[1], rgb[2]);
      }
  pictures_free (p);
  g_free (x);
}

GST_END_TEST;

/* Tones at -20 and -40 dB get viridis entries 204 and 153 (min-db -100,
 * max-db 0): round (255 * 80 / 100) and round (255 * 60 / 100). */
GST_START_TEST (test_two_tone_colours)
{
  const gchar *props[] = { "fft-size", "4096", NULL };
  guint k1 = 171, k2 = 597;     /* 2003.9 and 6996.1 Hz */
  gsize n = RATE, i;
  gdouble *x = g_new (gdouble, n);
  Pictures *p;
  guint wx, wy, ww, wh, r1, r2, age;
  gdouble hi;

  for (i = 0; i < n; i++)
    x[i] = 0.1 * sin (2 * G_PI * k1 * DF * i / RATE) +
        0.01 * sin (2 * G_PI * k2 * DF * i / RATE + 1.0);
  p = render ("video/x-raw, format=RGBA, width=640, height=400, "
      "framerate=10/1", props, x, n);
  wx = lay (p, "waterfall-x");
  wy = lay (p, "waterfall-y");
  ww = lay (p, "waterfall-width");
  wh = lay (p, "waterfall-height");
  hi = lay_d (p, "max-frequency");
  r1 = axis_row ("linear", 0, hi, k1 * DF, wh);
  r2 = axis_row ("linear", 0, hi, k2 * DF, wh);
  for (age = 8; age < 30; age += 5) {
    guint8 a[3], b[3];

    pixel (p, p->frames->len - 1, wx + ww - 1 - age, wy + wh - 1 - r1, a);
    pixel (p, p->frames->len - 1, wx + ww - 1 - age, wy + wh - 1 - r2, b);
    fail_unless (is_viridis (a, 204) || is_viridis (a, 203)
        || is_viridis (a, 205), "-20 dB tone is (%u, %u, %u), not viridis "
        "204 (+-1)", a[0], a[1], a[2]);
    fail_unless (is_viridis (b, 153) || is_viridis (b, 152)
        || is_viridis (b, 154), "-40 dB tone is (%u, %u, %u), not viridis "
        "153 (+-1)", b[0], b[1], b[2]);
  }
  pictures_free (p);
  g_free (x);
}

GST_END_TEST;

/* The bounding box of the label ink (0xe6) in columns [x0, x1) within
 * 12 s rows of row y, in the first frame; bottom < 0 when there is none. */
static void
label_box (Pictures * p, gint x0, gint x1, gint y, guint s, gint * top,
    gint * bottom, gint * left, gint * right)
{
  gint yy, xx;
  guint8 rgb[3];

  *top = *left = G_MAXINT;
  *bottom = *right = -1;
  for (yy = y - 12 * (gint) s; yy <= y + 12 * (gint) s; yy++)
    for (xx = x0; xx < x1; xx++) {
      if (yy < 0 || yy >= 720)
        continue;
      pixel (p, 0, xx, yy, rgb);
      if (rgb[0] == 0xe6) {
        *top = MIN (*top, yy);
        *bottom = MAX (*bottom, yy);
        *left = MIN (*left, xx);
        *right = MAX (*right, xx);
      }
    }
}

/* The frequency tick of 1 kHz (log axis) is at the row the axis puts
 * 1 kHz at (100 Hz and 10 kHz too), and its label ("1k": 7 s pixels high,
 * as wide as the ink of its glyphs) is centred on it, left of the tick.
 * The labels of the waterfall's bottom row, the lowest frequency ("20")
 * left of it and the lowest level ("-100") right of the colour bar, are
 * whole too: 7 s rows of ink, centred on that row (the time strip below
 * used to be cleared over their lower half). */
GST_START_TEST (test_tick_labels)
{
  const gchar *props[] = { "frequency-axis", "log", NULL };
  gdouble *x = g_new0 (gdouble, RATE / 5);
  Pictures *p = render ("video/x-raw, format=RGBA, width=720, height=720, "
      "framerate=10/1", props, x, RATE / 5);
  guint wx = lay (p, "waterfall-x"), wy = lay (p, "waterfall-y");
  guint wh = lay (p, "waterfall-height"), s = lay (p, "font-scale");
  gdouble lo = lay_d (p, "min-frequency"), hi = lay_d (p, "max-frequency");
  const gdouble freqs[] = { 100, 1000, 10000 };
  /* ink widths at scale 1 (glyphs 6 pixels apart; '1' has its first ink
   * in column 1, '0' its last in column 4, 'k' in column 3):
   * "100" 1..16, "1k" 1..9, "10k" 1..15 */
  const guint widths[] = { 16, 9, 15 };
  guint bx = lay (p, "colorbar-x"), bw = lay (p, "colorbar-width");
  gint bottom_row = (gint) (wy + wh - 1), top, bottom, left, right;
  guint i;

  fail_unless_equals_int (s, 2);
  for (i = 0; i < G_N_ELEMENTS (freqs); i++) {
    guint row = axis_row ("log", lo, hi, freqs[i], wh);
    gint y = (gint) (wy + wh - 1 - row);
    guint8 rgb[3];

    /* the tick mark: 4 s pixels left of the plot, on that row only */
    pixel (p, 0, wx - 2, y, rgb);
    fail_unless (rgb[0] == 0xe6 && rgb[1] == 0xe6, "no tick at %g Hz "
        "(row %d): (%u, %u, %u)", freqs[i], y, rgb[0], rgb[1], rgb[2]);
    pixel (p, 0, wx - 2, y - 1, rgb);
    fail_unless (rgb[0] == 0, "the tick of %g Hz is thicker", freqs[i]);
    /* the label's bounding box in the margin around the row */
    label_box (p, 0, (gint) wx - 5 * (gint) s, y, s, &top, &bottom, &left,
        &right);
    fail_unless (bottom >= 0, "no label near %g Hz", freqs[i]);
    fail_unless_equals_int (bottom - top + 1, 7 * s);
    fail_unless_equals_int (right - left + 1, widths[i] * s);
    fail_unless (abs ((top + bottom) / 2 - y) <= (gint) s,
        "label of %g Hz centred on %d, tick at %d", freqs[i],
        (top + bottom) / 2, y);
  }
  fail_unless_equals_int ((gint) lo, 20);
  for (i = 0; i < 2; i++) {
    label_box (p, i == 0 ? 0 : (gint) (bx + bw + 4 * s), i == 0 ?
        (gint) wx - 5 * (gint) s : 720, bottom_row, s, &top, &bottom, &left,
        &right);
    fail_unless (bottom >= 0, "no %s label at the bottom row", i ? "dB" :
        "frequency");
    fail_unless_equals_int (bottom - top + 1, 7 * s);
    fail_unless (abs ((top + bottom) / 2 - bottom_row) <= (gint) s,
        "%s label centred on %d, the bottom row is %d", i ? "dB" :
        "frequency", (top + bottom) / 2, bottom_row);
  }
  pictures_free (p);
  g_free (x);
}

GST_END_TEST;

/* Frames: sizes and rates negotiated within the limits, PTS f / fps,
 * the last (shorter) frame at EOS, then EOS. */
static void
check_frames (const gchar * caps, guint w, guint h, gint fps_n, gint fps_d,
    gsize n_samples)
{
  gdouble *x = tone (n_samples, 0.1, 1000);
  Pictures *p = render (caps, NULL, x, n_samples);
  GstVideoInfo info;
  guint64 whole = gst_util_uint64_scale (n_samples, fps_n,
      (guint64) RATE * fps_d), i;
  guint64 rest = n_samples - gst_util_uint64_scale (whole,
      (guint64) RATE * fps_d, fps_n);

  fail_unless (gst_video_info_from_caps (&info, p->caps));
  fail_unless_equals_int (GST_VIDEO_INFO_WIDTH (&info), w);
  fail_unless_equals_int (GST_VIDEO_INFO_HEIGHT (&info), h);
  fail_unless_equals_int (GST_VIDEO_INFO_FPS_N (&info), fps_n);
  fail_unless_equals_int (GST_VIDEO_INFO_FPS_D (&info), fps_d);
  fail_unless_equals_int (p->frames->len, whole + (rest > 0));
  fail_unless (p->eos, "EOS did not come out");
  for (i = 0; i < p->frames->len; i++) {
    GstBuffer *b = g_ptr_array_index (p->frames, i);
    GstClockTime pts = gst_util_uint64_scale (i, GST_SECOND * fps_d, fps_n);
    GstClockTime dur = i < whole ?
        gst_util_uint64_scale (i + 1, GST_SECOND * fps_d, fps_n) - pts :
        gst_util_uint64_scale (rest, GST_SECOND, RATE);

    fail_unless_equals_uint64 (GST_BUFFER_PTS (b), pts);
    fail_unless_equals_uint64 (GST_BUFFER_DURATION (b), dur);
    fail_unless (gst_buffer_get_size (b) >= (gsize) w * h * 4);
  }
  pictures_free (p);
  g_free (x);
}

GST_START_TEST (test_caps_default)
{
  /* nothing fixed downstream: 1280x720 at 30/1 */
  check_frames ("video/x-raw, format=BGRx", 1280, 720, 30, 1, RATE / 2);
}

GST_END_TEST;

GST_START_TEST (test_caps_sizes_and_rates)
{
  check_frames ("video/x-raw, format=RGBA, width=16, height=16, "
      "framerate=60/1", 16, 16, 60, 1, RATE / 4 + 100);
  check_frames ("video/x-raw, format=ARGB, width=317, height=203, "
      "framerate=25/2", 317, 203, 25, 2, RATE + 1);
  check_frames ("video/x-raw, format=xBGR, width=[ 100, 200 ], "
      "height=[ 1000, 9000 ], framerate=[ 1/1, 7/1 ]", 200, 1000, 7, 1,
      RATE / 2);
  check_frames ("video/x-raw, format=RGBA, width=1920, height=1080, "
      "framerate=1000/1", 1920, 1080, 1000, 1, RATE / 50 + 7);
  /* a frame longer than the audio: only the short last frame */
  check_frames ("video/x-raw, format=RGBA, width=64, height=64, "
      "framerate=1/3600", 64, 64, 1, 3600, RATE / 10);
}

GST_END_TEST;

/* The byte order of each format: silence is viridis[0] = (68, 1, 84) in
 * every format (its channels where the format puts them). */
GST_START_TEST (test_formats_byte_order)
{
  const gchar *formats[] = { "RGBA", "BGRA", "RGBx", "BGRx", "ARGB", "ABGR",
    "xRGB", "xBGR"
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (formats); i++) {
    gchar *caps = g_strdup_printf ("video/x-raw, format=%s, width=320, "
        "height=200, framerate=10/1", formats[i]);
    gdouble *x = g_new0 (gdouble, RATE / 5);
    Pictures *p = render (caps, NULL, x, RATE / 5);
    GstVideoInfo info;
    GstVideoFrame f;
    const guint8 *px;
    guint wx = lay (p, "waterfall-x"), wy = lay (p, "waterfall-y");
    guint8 rgb[3];
    guint c;

    fail_unless (gst_video_info_from_caps (&info, p->caps));
    fail_unless (gst_video_frame_map (&f, &info, g_ptr_array_index (p->frames,
                p->frames->len - 1), GST_MAP_READ));
    px = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&f, 0) +
        (wy + 1) * GST_VIDEO_FRAME_PLANE_STRIDE (&f, 0) + (wx + 1) * 4;
    for (c = 0; c < 3; c++)
      rgb[c] = px[GST_VIDEO_FORMAT_INFO_POFFSET (info.finfo, c)];
    gst_video_frame_unmap (&f);
    fail_unless (is_viridis (rgb, 0), "%s: floor is (%u, %u, %u)",
        formats[i], rgb[0], rgb[1], rgb[2]);
    pictures_free (p);
    g_free (x);
    g_free (caps);
  }
}

GST_END_TEST;

/* The frame written by the device straight into the output buffer (host
 * memory imported: GPUFFT_RENDER_IMPORT=1) is bit for bit the frame the
 * element copies itself (GPUFFT_RENDER_IMPORT=0), every frame, mode both. */
GST_START_TEST (test_written_in_place)
{
  const gchar *props[] = { "mode", "both", "frequency-axis", "log", NULL };
  const gchar *caps = "video/x-raw, format=BGRx, width=480, height=300, "
      "framerate=20/1";
  gdouble *x = tone (RATE / 2, 0.3, 2500);
  Pictures *a, *b;
  guint i;

  g_setenv ("GPUFFT_RENDER_IMPORT", "1", TRUE);
  a = render (caps, props, x, RATE / 2);
  g_setenv ("GPUFFT_RENDER_IMPORT", "0", TRUE);
  b = render (caps, props, x, RATE / 2);
  g_unsetenv ("GPUFFT_RENDER_IMPORT");
  fail_unless_equals_int (a->frames->len, b->frames->len);
  {
    guint64 wa = 0, wb = 1;

    fail_unless (gst_structure_get_uint64 (a->stats, "device-written", &wa));
    fail_unless (gst_structure_get_uint64 (b->stats, "device-written", &wb));
    fail_unless_equals_uint64 (wa, a->frames->len);
    fail_unless_equals_uint64 (wb, 0);
  }
  for (i = 0; i < a->frames->len; i++) {
    GstMapInfo ma, mb;
    GstBuffer *ba = g_ptr_array_index (a->frames, i);
    GstBuffer *bb = g_ptr_array_index (b->frames, i);

    fail_unless (gst_buffer_map (ba, &ma, GST_MAP_READ));
    fail_unless (gst_buffer_map (bb, &mb, GST_MAP_READ));
    fail_unless_equals_int (ma.size, mb.size);
    fail_unless (memcmp (ma.data, mb.data, ma.size) == 0,
        "frame %u differs between the device's write and the copy", i);
    gst_buffer_unmap (ba, &ma);
    gst_buffer_unmap (bb, &mb);
  }
  pictures_free (a);
  pictures_free (b);
  g_free (x);
}

GST_END_TEST;

/* Non-interleaved stereo gives the picture interleaved stereo gives (the
 * channels averaged either way): frames bit for bit equal. */
static GPtrArray *
render_stereo (gboolean planar, const gdouble * l, const gdouble * r, gsize n)
{
  GstHarness *h = gst_harness_new ("gpufftspectrogram");
  GPtrArray *frames = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_buffer_unref);
  GstAudioInfo info;
  GstBuffer *b;
  gsize i, chunk = 4800;

  gst_harness_set_live (h, FALSE);
  gst_harness_set_sink_caps_str (h, "video/x-raw, format=RGBA, width=320, "
      "height=200, framerate=10/1");
  gst_audio_info_set_format (&info, GST_AUDIO_FORMAT_F32LE, RATE, 2, NULL);
  info.layout = planar ? GST_AUDIO_LAYOUT_NON_INTERLEAVED :
      GST_AUDIO_LAYOUT_INTERLEAVED;
  gst_harness_set_src_caps (h, gst_audio_info_to_caps (&info));
  for (i = 0; i < n; i += chunk) {
    gsize m = MIN (chunk, n - i), j;
    GstMapInfo map;
    gfloat *d;

    b = gst_buffer_new_allocate (NULL, m * 8, NULL);
    gst_buffer_map (b, &map, GST_MAP_WRITE);
    d = (gfloat *) map.data;
    for (j = 0; j < m; j++) {
      if (planar) {
        d[j] = (gfloat) l[i + j];
        d[m + j] = (gfloat) r[i + j];
      } else {
        d[2 * j] = (gfloat) l[i + j];
        d[2 * j + 1] = (gfloat) r[i + j];
      }
    }
    gst_buffer_unmap (b, &map);
    if (planar)
      gst_buffer_add_audio_meta (b, &info, m, NULL);
    GST_BUFFER_PTS (b) = gst_util_uint64_scale (i, GST_SECOND, RATE);
    fail_unless_equals_int (gst_harness_push (h, b), GST_FLOW_OK);
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  while ((b = gst_harness_try_pull (h)))
    g_ptr_array_add (frames, b);
  gst_harness_teardown (h);
  return frames;
}

GST_START_TEST (test_non_interleaved)
{
  gdouble *l = tone (RATE / 2, 0.3, 1500), *r = tone (RATE / 2, 0.05, 7000);
  GPtrArray *a = render_stereo (FALSE, l, r, RATE / 2);
  GPtrArray *b = render_stereo (TRUE, l, r, RATE / 2);
  guint i;

  fail_unless_equals_int (a->len, 5);
  fail_unless_equals_int (a->len, b->len);
  for (i = 0; i < a->len; i++) {
    GstMapInfo ma;

    fail_unless (gst_buffer_map (g_ptr_array_index (a, i), &ma, GST_MAP_READ));
    fail_unless (gst_buffer_memcmp (g_ptr_array_index (b, i), 0, ma.data,
            ma.size) == 0, "frame %u differs (planar vs interleaved)", i);
    gst_buffer_unmap (g_ptr_array_index (a, i), &ma);
  }
  g_ptr_array_unref (a);
  g_ptr_array_unref (b);
  g_free (l);
  g_free (r);
}

GST_END_TEST;

/* Downstream changes the size while playing: the frames after it have the
 * new size and a picture (the tone's row lit again). */
GST_START_TEST (test_renegotiate_size)
{
  const gchar *props[] = { "colormap", "grayscale", NULL };
  GstHarness *h = spectrogram_harness ("video/x-raw, format=RGBA, "
      "width=320, height=200, framerate=10/1", props);
  gdouble *x = tone (RATE, 0.1, 3000);
  gsize offset = 0;
  GstBuffer *b;
  GstCaps *caps;
  GstVideoInfo info;
  guint n_before = 0, n_after = 0;

  push_mono (h, x, RATE / 2, 4800, &offset);
  while ((b = gst_harness_try_pull (h))) {
    fail_unless_equals_int (gst_buffer_get_size (b), 320 * 200 * 4);
    gst_buffer_unref (b);
    n_before++;
  }
  gst_harness_set_sink_caps_str (h, "video/x-raw, format=RGBA, width=400, "
      "height=300, framerate=10/1");
  push_mono (h, x + RATE / 2, RATE / 2, 4800, &offset);
  while ((b = gst_harness_try_pull (h))) {
    GstBuffer *last = b;

    n_after++;
    caps = gst_pad_get_current_caps (h->sinkpad);
    fail_unless (gst_video_info_from_caps (&info, caps));
    gst_caps_unref (caps);
    fail_unless_equals_int (GST_VIDEO_INFO_WIDTH (&info), 400);
    fail_unless_equals_int (gst_buffer_get_size (last), 400 * 300 * 4);
    gst_buffer_unref (last);
  }
  fail_unless_equals_int (n_before, 5);
  fail_unless (n_after >= 4, "%u frames after the new size", n_after);
  {
    GstStructure *l;
    guint ww = 0;

    g_object_get (h->element, "layout", &l, NULL);
    fail_unless (gst_structure_get_uint (l, "width", &ww));
    fail_unless_equals_int (ww, 400);
    gst_structure_free (l);
  }
  gst_harness_teardown (h);
  g_free (x);
}

GST_END_TEST;

/* Properties changed while playing take effect at the next frame: the
 * picture restarts with the new mode, axis and colours; frames keep their
 * size and times run on (PTS strictly increasing, no gap beyond a frame). */
GST_START_TEST (test_properties_while_playing)
{
  const gchar *changes[][2] = { {"mode", "both"}, {"frequency-axis", "mel"},
  {"colormap", "magma"}, {"min-db", "-80"}, {"axes", "false"},
  {"time-span", "3"}, {"fft-size", "512"}, {"frequency-axis", "octave"},
  {"mode", "spectrum"}, {"title", "changed"}
  };
  GstHarness *h = spectrogram_harness ("video/x-raw, format=RGBA, "
      "width=320, height=240, framerate=10/1", NULL);
  gdouble *x = tone (RATE / 5, 0.2, 1200);
  gsize offset = 0;
  GstClockTime last = GST_CLOCK_TIME_NONE;
  guint i, frames = 0;
  GstBuffer *b;

  for (i = 0; i < G_N_ELEMENTS (changes); i++) {
    gst_util_set_object_arg (G_OBJECT (h->element), changes[i][0],
        changes[i][1]);
    push_mono (h, x, RATE / 5, 4800, &offset);
    while ((b = gst_harness_try_pull (h))) {
      fail_unless_equals_int (gst_buffer_get_size (b), 320 * 240 * 4);
      if (GST_CLOCK_TIME_IS_VALID (last)) {
        fail_unless (GST_BUFFER_PTS (b) > last, "PTS went back after %s",
            changes[i][0]);
        fail_unless (GST_BUFFER_PTS (b) - last <= GST_SECOND / 10 + 1,
            "a gap after %s", changes[i][0]);
      }
      last = GST_BUFFER_PTS (b);
      frames++;
      gst_buffer_unref (b);
    }
  }
  /* 2 s of audio at 10 frames per second */
  fail_unless_equals_int (frames, 20);
  gst_harness_teardown (h);
  g_free (x);
}

GST_END_TEST;

/* A GAP event is silence: 0.5 s of tone, a 0.5 s gap, 0.5 s of tone give
 * 15 frames at 10 fps with contiguous PTS, and the columns of the gap are
 * the floor grey (0) on the tone's row while the tone's columns are lit. */
GST_START_TEST (test_gap_is_silence)
{
  const gchar *props[] = { "colormap", "grayscale", "time-span", "2",
    "fft-size", "1024", NULL
  };
  GstHarness *h = spectrogram_harness ("video/x-raw, format=RGBA, "
      "width=400, height=200, framerate=10/1", props);
  gdouble *x = tone (RATE / 2, 0.1, 3000);
  gsize offset = 0;
  GstBuffer *b, *last = NULL;
  guint n = 0;
  GstStructure *l;
  guint wx, wy, ww, wh, row, age;
  gdouble cps;
  GstMapInfo map;

  push_mono (h, x, RATE / 2, 4800, &offset);
  fail_unless (gst_harness_push_event (h, gst_event_new_gap (GST_SECOND / 2,
              GST_SECOND / 2)));
  offset += RATE / 2;
  push_mono (h, x, RATE / 2, 4800, &offset);
  while ((b = gst_harness_try_pull (h))) {
    fail_unless_equals_uint64 (GST_BUFFER_PTS (b), n * GST_SECOND / 10);
    n++;
    if (last)
      gst_buffer_unref (last);
    last = b;
  }
  fail_unless_equals_int (n, 15);
  g_object_get (h->element, "layout", &l, NULL);
  fail_unless (gst_structure_get (l, "waterfall-x", G_TYPE_UINT, &wx,
          "waterfall-y", G_TYPE_UINT, &wy, "waterfall-width", G_TYPE_UINT,
          &ww, "waterfall-height", G_TYPE_UINT, &wh, "columns-per-second",
          G_TYPE_DOUBLE, &cps, NULL));
  gst_structure_free (l);
  row = axis_row ("linear", 0, RATE / 2.0, 3000, wh);
  fail_unless (gst_buffer_map (last, &map, GST_MAP_READ));
  /* the newest column is at 1.5 s - latency; the gap's middle (0.75 s)
   * and the first tone's middle (0.25 s) are about 0.75 s and 1.25 s back */
  for (age = (guint) (0.6 * cps); age < 0.9 * cps; age++) {
    guint8 *px = map.data + ((wy + wh - 1 - row) * 400 + wx + ww - 1 - age) * 4;

    fail_unless (px[0] == 0, "gap column %u back: grey %u", age, px[0]);
  }
  for (age = (guint) (1.15 * cps); age < 1.35 * cps; age++) {
    guint8 *px = map.data + ((wy + wh - 1 - row) * 400 + wx + ww - 1 - age) * 4;

    fail_unless (px[0] > 150, "tone column %u back: grey %u", age, px[0]);
  }
  gst_buffer_unmap (last, &map);
  gst_buffer_unref (last);
  gst_harness_teardown (h);
  g_free (x);
}

GST_END_TEST;

/* ---- a live stream whose plan is slow to make -------------------------- */

#define LIVE_F (85 * RATE / 1024.0)     /* a bin centre at fft-size 1024 */

/* A live harness (640x400 at 10 fps, fft-size 1024, grayscale -100..0 dB,
 * time_span s of waterfall) whose plans take slow_ms to make
 * (GPUFFT_DEBUG_SLOW_PLAN_MS, read by the engine as it makes the plan). */
static GstHarness *
live_slow_harness (const gchar * slow_ms, const gchar * time_span, Pictures * p)
{
  const gchar *props[] = { "fft-size", "1024", "time-span", time_span,
    "colormap", "grayscale", "min-db", "-100", "max-db", "0", NULL
  };
  GstHarness *h;

  g_setenv ("GPUFFT_DEBUG_SLOW_PLAN_MS", slow_ms, TRUE);
  h = spectrogram_harness ("video/x-raw, format=RGBA, width=640, "
      "height=400, framerate=10/1", props);
  gst_harness_set_live (h, TRUE);
  p->frames = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_buffer_unref);
  return h;
}

/* The GAP events pulled so far; with `check`, each has the time and
 * duration of the next video frame at 10 fps. */
static guint
pull_gaps (GstHarness * h, gboolean check)
{
  GstEvent *ev;
  guint gaps = 0;

  while ((ev = gst_harness_try_pull_event (h))) {
    if (GST_EVENT_TYPE (ev) == GST_EVENT_GAP) {
      GstClockTime ts, dur;

      gst_event_parse_gap (ev, &ts, &dur);
      if (check) {
        fail_unless_equals_uint64 (ts, gaps * GST_SECOND / 10);
        fail_unless_equals_uint64 (dur, GST_SECOND / 10);
      }
      gaps++;
    }
    gst_event_unref (ev);
  }
  return gaps;
}

/* In the one frame of p, whose newest column ends at `newest`, the column
 * of time t lights LIVE_F's row brightest; its grey. */
static guint
tone_column (Pictures * p, GstClockTime newest, gdouble t)
{
  guint age = (guint) round ((newest / 1e9 - t) * RATE / lay (p,
          "column-hop"));
  guint wh = lay (p, "waterfall-height"), r, best = 0, grey;
  guint row = axis_row ("linear", 0, RATE / 2.0, LIVE_F, wh);
  guint8 *v;

  fail_unless (age < lay (p, "waterfall-width"), "t = %g s is off the "
      "picture (age %u)", t, age);
  v = gray_column (p, age);
  for (r = 0; r < wh; r++)
    if (v[r] > v[best])
      best = r;
  fail_unless_equals_int (best, row);
  grey = v[row];
  g_free (v);
  return grey;
}

/* A live stream whose plan takes 3 s to make: its first second of buffers
 * is taken at once, and each of the 10 video frames due meanwhile is a
 * GAP event with the frame's time and duration, no frame; once the plan
 * is ready, the first frame drawn shows the samples that waited: a tone's
 * row, at its level, in the columns of that first second. */
GST_START_TEST (test_live_plan_wait)
{
  gdouble *x = tone (30 * RATE, 0.1, LIVE_F);
  Pictures *p = g_new0 (Pictures, 1);
  GstHarness *h = live_slow_harness ("3000", "30", p);
  gsize offset = 0;
  GstClockTime end;
  guint grey;

  push_mono (h, x, RATE, 4800, &offset);
  pull_all (h, p);
  fail_unless_equals_int (p->frames->len, 0);
  fail_unless_equals_int (pull_gaps (h, TRUE), 10);

  /* on in real time until a frame comes */
  while (p->frames->len == 0 && offset + 4800 <= 30 * RATE) {
    g_usleep (G_USEC_PER_SEC / 10);
    push_mono (h, x + offset, 4800, 4800, &offset);
    pull_all (h, p);
  }
  fail_unless (p->frames->len > 0, "no frame after %.1f s",
      (gdouble) offset / RATE);
  g_ptr_array_set_size (p->frames, 1);
  take_layout (h, p);

  /* the column of t = 0.5 s, before the frame's newest column, the one
   * that ends with the frame */
  end = GST_BUFFER_PTS (g_ptr_array_index (p->frames, 0)) +
      GST_BUFFER_DURATION (g_ptr_array_index (p->frames, 0));
  grey = tone_column (p, end, 0.5);
  fail_unless (abs ((gint) grey - (gint) expected_gray (-20, -100, 0)) <= 1,
      "level %u, expected %u (-20 dB)", grey, expected_gray (-20, -100, 0));
  GST_INFO ("first frame at %" GST_TIME_FORMAT ", %.1f s of audio pushed",
      GST_TIME_ARGS (end), (gdouble) offset / RATE);
  gst_harness_teardown (h);
  g_unsetenv ("GPUFFT_DEBUG_SLOW_PLAN_MS");
  pictures_free (p);
  g_free (x);
}

GST_END_TEST;

/* A live stream that ends (0.5 s) before its plan is ready (1.5 s): EOS
 * waits for it, and after the 5 GAP events one frame shows the samples
 * that waited (the tone's row in the column of 0.25 s). */
GST_START_TEST (test_live_ends_before_plan)
{
  gdouble *x = tone (RATE / 2, 0.1, LIVE_F);
  Pictures *p = g_new0 (Pictures, 1);
  GstHarness *h = live_slow_harness ("1500", "10", p);
  gsize offset = 0;
  GstClockTime end;

  push_mono (h, x, RATE / 2, 4800, &offset);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  pull_all (h, p);
  fail_unless_equals_int (pull_gaps (h, FALSE), 5);
  fail_unless_equals_int (p->frames->len, 1);
  take_layout (h, p);
  end = GST_BUFFER_PTS (g_ptr_array_index (p->frames, 0));
  fail_unless_equals_uint64 (end, GST_SECOND / 2);
  tone_column (p, end, 0.25);
  gst_harness_teardown (h);
  g_unsetenv ("GPUFFT_DEBUG_SLOW_PLAN_MS");
  pictures_free (p);
  g_free (x);
}

GST_END_TEST;

/* A bad property combination is an element error naming the properties. */
GST_START_TEST (test_bad_range)
{
  GstHarness *h = gst_harness_new ("gpufftspectrogram");
  GstBus *bus = gst_bus_new ();
  GstMessage *m;
  GError *err = NULL;
  gchar *dbg = NULL;
  GstBuffer *b;

  gst_element_set_bus (h->element, bus);
  g_object_set (h->element, "min-db", -10.0, "max-db", -20.0, NULL);
  gst_harness_set_sink_caps_str (h, "video/x-raw, format=RGBA, width=64, "
      "height=64, framerate=10/1");
  gst_harness_set_src_caps_str (h, "audio/x-raw, format=F32LE, rate=48000, "
      "channels=1, layout=interleaved");
  b = gst_buffer_new_allocate (NULL, 4800 * 4, NULL);
  gst_buffer_memset (b, 0, 0, 4800 * 4);
  fail_unless_equals_int (gst_harness_push (h, b), GST_FLOW_ERROR);
  m = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (m != NULL);
  gst_message_parse_error (m, &err, &dbg);
  fail_unless (strstr (dbg, "min-db") && strstr (dbg, "max-db"), "%s", dbg);
  g_error_free (err);
  g_free (dbg);
  gst_message_unref (m);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* The first frame follows the audio's timestamps: audio from PTS 5 s
 * (in a segment from 0, and in one from 5 s) gives frames from PTS 5 s,
 * a frame (0.1 s) apart. */
static void
check_first_pts (GstClockTime segment_start)
{
  GstHarness *h = spectrogram_harness ("video/x-raw, format=RGBA, "
      "width=64, height=64, framerate=10/1", NULL);
  gdouble *x = tone (RATE / 2, 0.1, 1000);
  gsize offset = 5 * RATE;
  GstBuffer *b;
  guint i = 0;

  if (segment_start > 0) {
    GstSegment seg;

    gst_segment_init (&seg, GST_FORMAT_TIME);
    seg.start = seg.time = seg.position = segment_start;
    fail_unless (gst_harness_push_event (h, gst_event_new_segment (&seg)));
  }
  push_mono (h, x, RATE / 2, 4800, &offset);
  while ((b = gst_harness_try_pull (h))) {
    fail_unless_equals_uint64 (GST_BUFFER_PTS (b), 5 * GST_SECOND +
        i * (GST_SECOND / 10));
    gst_buffer_unref (b);
    i++;
  }
  fail_unless_equals_int (i, 5);
  gst_harness_teardown (h);
  g_free (x);
}

GST_START_TEST (test_first_pts_follows_audio)
{
  check_first_pts (0);
  check_first_pts (5 * GST_SECOND);
}

GST_END_TEST;

typedef struct
{
  GstHarness *h;
  gint refusals;                /* accept-caps queries still to refuse */
  gboolean flush;               /* a flush starts at the next caps query */
} Race;

/* Downstream whose caps change between the element's query and its caps
 * event: it refuses them (accept-caps) and asks upstream to negotiate
 * again (RECONFIGURE), as a capsfilter whose caps change does. Or a flush
 * (a seek from another thread) that starts while the element negotiates. */
static GstPadProbeReturn
race_probe (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  GstQuery *q = GST_PAD_PROBE_INFO_QUERY (info);
  Race *r = data;

  if (GST_QUERY_TYPE (q) == GST_QUERY_CAPS && r->flush) {
    r->flush = FALSE;
    fail_unless (gst_harness_push_event (r->h, gst_event_new_flush_start ()));
  }
  if (GST_QUERY_TYPE (q) != GST_QUERY_ACCEPT_CAPS || r->refusals == 0)
    return GST_PAD_PROBE_OK;
  r->refusals--;
  gst_query_set_accept_caps_result (q, FALSE);
  gst_pad_push_event (pad, gst_event_new_reconfigure ());
  return GST_PAD_PROBE_HANDLED;
}

/* Caps changes racing with the element's negotiation are no error: caps
 * refused (at the caps event, the allocation query and the first frame)
 * while downstream asks for new ones: the first frame is lost, the
 * element negotiates again with the next buffer and the other frames
 * come; a flush starting during the negotiation: the
 * buffer is refused as flushing, and after the flush the frames come. */
GST_START_TEST (test_caps_race)
{
  GstHarness *h = spectrogram_harness ("video/x-raw, format=RGBA, "
      "width=320, height=200, framerate=10/1", NULL);
  GstBus *bus = gst_bus_new ();
  gdouble *x = tone (RATE, 0.1, 1000);
  gsize offset = 0;
  Race r = { h, 0, FALSE };
  gulong probe;
  GstMessage *m;
  GstBuffer *b;
  GstSegment seg;
  guint frames = 0;

  gst_element_set_bus (h->element, bus);
  probe = gst_pad_add_probe (h->sinkpad, GST_PAD_PROBE_TYPE_QUERY_DOWNSTREAM,
      race_probe, &r, NULL);
  r.refusals = 3;
  push_mono (h, x, RATE / 2, 4800, &offset);
  fail_unless_equals_int (r.refusals, 0);
  while ((b = gst_harness_try_pull (h))) {
    frames++;
    gst_buffer_unref (b);
  }
  fail_unless (frames >= 4, "%u frames after the caps were refused", frames);

  /* a new size asked for, and a flush starting meanwhile */
  r.flush = TRUE;
  gst_harness_set_sink_caps_str (h, "video/x-raw, format=RGBA, width=400, "
      "height=300, framerate=10/1");
  b = gst_buffer_new_allocate (NULL, 4800 * 4, NULL);
  gst_buffer_memset (b, 0, 0, 4800 * 4);
  fail_unless_equals_int (gst_harness_push (h, b), GST_FLOW_FLUSHING);
  fail_unless (!r.flush);
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  gst_segment_init (&seg, GST_FORMAT_TIME);
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&seg)));
  while ((b = gst_harness_try_pull (h)))
    gst_buffer_unref (b);
  frames = 0;
  offset = 0;
  push_mono (h, x, RATE / 2, 4800, &offset);
  gst_pad_remove_probe (h->sinkpad, probe);
  while ((b = gst_harness_try_pull (h))) {
    fail_unless_equals_int (gst_buffer_get_size (b), 400 * 300 * 4);
    frames++;
    gst_buffer_unref (b);
  }
  fail_unless_equals_int (frames, 5);
  m = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (m == NULL, "an error: %" GST_PTR_FORMAT, m);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
  g_free (x);
}

GST_END_TEST;

/* min-db set at or above max-db while playing: a warning naming the
 * valid range, the old levels stay, the frames go on (no error); a valid
 * value later takes effect. */
GST_START_TEST (test_bad_range_while_playing)
{
  GstHarness *h = spectrogram_harness ("video/x-raw, format=RGBA, "
      "width=64, height=64, framerate=10/1", NULL);
  GstBus *bus = gst_bus_new ();
  gdouble *x = tone (RATE / 2, 0.1, 1000);
  gsize offset = 0;
  GstMessage *m;
  GError *err = NULL;
  gchar *dbg = NULL;
  GstBuffer *b;
  guint frames = 0, warnings = 0;

  gst_element_set_bus (h->element, bus);
  push_mono (h, x, RATE / 10, 4800, &offset);
  g_object_set (h->element, "min-db", 10.0, NULL);
  push_mono (h, x, RATE / 5, 4800, &offset);
  g_object_set (h->element, "min-db", -60.0, NULL);
  push_mono (h, x, RATE / 5, 4800, &offset);
  while ((b = gst_harness_try_pull (h))) {
    frames++;
    gst_buffer_unref (b);
  }
  fail_unless_equals_int (frames, 5);
  while ((m = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR |
              GST_MESSAGE_WARNING))) {
    fail_unless (GST_MESSAGE_TYPE (m) == GST_MESSAGE_WARNING,
        "an error: %" GST_PTR_FORMAT, m);
    gst_message_parse_warning (m, &err, &dbg);
    fail_unless (strstr (dbg, "min-db") && strstr (dbg, "max-db"), "%s", dbg);
    g_error_free (err);
    g_free (dbg);
    gst_message_unref (m);
    warnings++;
  }
  fail_unless_equals_int (warnings, 1);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
  g_free (x);
}

GST_END_TEST;

/* A frame an hour long (framerate 1/3600) of 6 s of audio: the audio is
 * analysed as it comes, the element never holds more than an FFT frame,
 * a hop and a buffer of audio, nor more columns than the waterfall shows;
 * the frame at EOS (the last, shorter one) is, byte for byte, the picture
 * a stream of 10 frames per second ends with (the same columns, the same
 * times). */
#define LONG_SAMPLES (6 * RATE + RATE / 20)

static GstBuffer *
last_frame (const gchar * framerate, const gdouble * x, GstStructure ** stats,
    GstStructure ** layout, guint * n_frames)
{
  const gchar *props[] = { "colormap", "grayscale", "time-span", "2",
    "fft-size", "1024", NULL
  };
  gchar *caps = g_strdup_printf ("video/x-raw, format=RGBA, width=320, "
      "height=240, framerate=%s", framerate);
  GstHarness *h = spectrogram_harness (caps, props);
  GstBuffer *b, *last = NULL;
  gsize offset = 0;

  *n_frames = 0;
  push_mono (h, x, LONG_SAMPLES, 4800, &offset);
  g_object_get (h->element, "stats", stats, "layout", layout, NULL);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  while ((b = gst_harness_try_pull (h))) {
    if (last)
      gst_buffer_unref (last);
    last = b;
    (*n_frames)++;
  }
  fail_unless (last != NULL);
  gst_harness_teardown (h);
  g_free (caps);
  return last;
}

GST_START_TEST (test_long_frame_bounded)
{
  gdouble *x = g_new (gdouble, LONG_SAMPLES);
  GstStructure *stats, *layout, *ref_stats, *ref_layout;
  GstBuffer *frame, *ref;
  GstMapInfo a, b;
  guint64 fifo = 0, columns = 0;
  guint fft = 0, hop = 0, wf_w = 0, n, n_ref, i, differ = 0;

  /* a chirp, so that every column differs */
  for (i = 0; i < LONG_SAMPLES; i++) {
    gdouble t = (gdouble) i / RATE;

    x[i] = 0.3 * sin (2 * G_PI * (200 * t + 500 * t * t));
  }
  frame = last_frame ("1/3600", x, &stats, &layout, &n);
  fail_unless_equals_int (n, 1);
  fail_unless_equals_uint64 (GST_BUFFER_PTS (frame), 0);
  fail_unless_equals_uint64 (GST_BUFFER_DURATION (frame),
      gst_util_uint64_scale (LONG_SAMPLES, GST_SECOND, RATE));
  fail_unless (gst_structure_get_uint64 (stats, "fifo-peak-bytes", &fifo));
  fail_unless (gst_structure_get_uint64 (stats, "columns-peak", &columns));
  fail_unless (gst_structure_get_uint (layout, "fft-size", &fft));
  fail_unless (gst_structure_get_uint (layout, "frame-hop", &hop));
  fail_unless (gst_structure_get_uint (layout, "waterfall-width", &wf_w));
  fail_unless (fifo <= (guint64) (fft + hop + 4800) * 4,
      "the FIFO held %" G_GUINT64_FORMAT " bytes: more than fft-size %u + "
      "hop %u + a buffer 4800 samples", fifo, fft, hop);
  fail_unless (columns <= wf_w, "%" G_GUINT64_FORMAT " columns held, the "
      "waterfall shows %u", columns, wf_w);

  ref = last_frame ("10/1", x, &ref_stats, &ref_layout, &n_ref);
  fail_unless_equals_int (n_ref, 61);
  fail_unless_equals_uint64 (GST_BUFFER_PTS (ref), 6 * GST_SECOND);
  fail_unless (gst_buffer_map (frame, &a, GST_MAP_READ));
  fail_unless (gst_buffer_map (ref, &b, GST_MAP_READ));
  fail_unless_equals_int (a.size, b.size);
  for (i = 0; i < a.size; i++)
    if (a.data[i] != b.data[i] && differ++ < 10)
      GST_ERROR ("byte %u (x %u, y %u): %u, at 10 fps %u", i, i / 4 % 320,
          i / 4 / 320, a.data[i], b.data[i]);
  fail_unless (differ == 0, "%u bytes of the hour's frame differ from the "
      "last frame at 10 fps", differ);
  gst_buffer_unmap (frame, &a);
  gst_buffer_unmap (ref, &b);
  gst_buffer_unref (frame);
  gst_buffer_unref (ref);
  gst_structure_free (stats);
  gst_structure_free (layout);
  gst_structure_free (ref_stats);
  gst_structure_free (ref_layout);
  g_free (x);
}

GST_END_TEST;

/* Hops beyond 32 bits are clamped, not wrapped: at 2 MHz a spectrum-only
 * picture at a frame an hour would take a column of 7.2e9 samples; it
 * takes 2^32 - 1 (the largest hop) and the stream goes on. */
GST_START_TEST (test_huge_hop)
{
  GstHarness *h = gst_harness_new ("gpufftspectrogram");
  GstStructure *l = NULL;
  GstBuffer *b;
  guint hop = 0;

  gst_harness_set_live (h, FALSE);
  gst_util_set_object_arg (G_OBJECT (h->element), "mode", "spectrum");
  gst_util_set_object_arg (G_OBJECT (h->element), "fft-size", "256");
  gst_harness_set_sink_caps_str (h, "video/x-raw, format=RGBA, width=64, "
      "height=64, framerate=1/3600");
  gst_harness_set_src_caps_str (h, "audio/x-raw, format=F32LE, "
      "rate=2000000, channels=1, layout=interleaved");
  b = gst_buffer_new_allocate (NULL, 4800 * 4, NULL);
  gst_buffer_memset (b, 0, 0, 4800 * 4);
  fail_unless_equals_int (gst_harness_push (h, b), GST_FLOW_OK);
  g_object_get (h->element, "layout", &l, NULL);
  fail_unless (gst_structure_get_uint (l, "column-hop", &hop));
  fail_unless_equals_uint64 (hop, G_MAXUINT);
  gst_structure_free (l);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A planar buffer whose audio meta claims more samples than the buffer
 * holds (2^31 of 4 bytes: sizes past 32 bits) is an element error, not a
 * crash (the FIFO's size wrapped and the memory after it was written). */
GST_START_TEST (test_planar_meta_too_long)
{
  GstHarness *h = gst_harness_new ("gpufftspectrogram");
  GstBus *bus = gst_bus_new ();
  GstAudioInfo info;
  GstAudioMeta *meta;
  GstMessage *m;
  GstBuffer *b;

  gst_element_set_bus (h->element, bus);
  gst_harness_set_live (h, FALSE);
  gst_harness_set_sink_caps_str (h, "video/x-raw, format=RGBA, width=64, "
      "height=64, framerate=10/1");
  gst_harness_set_src_caps_str (h, "audio/x-raw, format=F32LE, rate=48000, "
      "channels=1, layout=non-interleaved");
  gst_audio_info_set_format (&info, GST_AUDIO_FORMAT_F32LE, 48000, 1, NULL);
  info.layout = GST_AUDIO_LAYOUT_NON_INTERLEAVED;
  b = gst_buffer_new_allocate (NULL, 4800 * 4, NULL);
  gst_buffer_memset (b, 0, 0, 4800 * 4);
  meta = gst_buffer_add_audio_meta (b, &info, 4800, NULL);
  fail_unless (meta != NULL);
  meta->samples = (gsize) 1 << 31;
  fail_unless_equals_int (gst_harness_push (h, b), GST_FLOW_ERROR);
  m = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (m != NULL, "no error");
  gst_message_unref (m);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A GAP event's silence goes in chunks of at most 64 KiB: a second of
 * 8-channel F64 audio (3 MB) was one buffer, and the FIFO held it whole
 * (at extreme rates and channel counts, one allocation of gigabytes). */
GST_START_TEST (test_gap_silence_chunked)
{
  GstHarness *h = gst_harness_new ("gpufftspectrogram");
  GstStructure *stats = NULL, *l = NULL;
  GstBuffer *b;
  guint64 fifo = 0;
  guint fft = 0, hop = 0, bpf = 8 * 8;

  gst_harness_set_live (h, FALSE);
  gst_util_set_object_arg (G_OBJECT (h->element), "fft-size", "1024");
  gst_harness_set_sink_caps_str (h, "video/x-raw, format=RGBA, width=320, "
      "height=240, framerate=1/10");
  gst_harness_set_src_caps_str (h, "audio/x-raw, format=F64LE, "
      "rate=48000, channels=8, channel-mask=(bitmask)0x0, "
      "layout=interleaved");
  b = gst_buffer_new_allocate (NULL, 480 * bpf, NULL);
  gst_buffer_memset (b, 0, 0, 480 * bpf);
  GST_BUFFER_PTS (b) = 0;
  fail_unless_equals_int (gst_harness_push (h, b), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_gap (GST_SECOND / 100,
              GST_SECOND)));
  g_object_get (h->element, "stats", &stats, "layout", &l, NULL);
  fail_unless (gst_structure_get_uint64 (stats, "fifo-peak-bytes", &fifo));
  fail_unless (gst_structure_get_uint (l, "fft-size", &fft));
  fail_unless (gst_structure_get_uint (l, "frame-hop", &hop));
  fail_unless (fifo <= (guint64) (fft + hop) * bpf + 65536,
      "the FIFO held %" G_GUINT64_FORMAT " bytes: more than fft-size %u + "
      "hop %u + 64 KiB of silence", fifo, fft, hop);
  gst_structure_free (stats);
  gst_structure_free (l);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A non-interleaved buffer without a GstAudioMeta cannot be read: a
 * WARNING message, and its samples are counted as silence (the picture and
 * its timestamps keep going); no CRITICAL from gst_audio_buffer_map (). */
GST_START_TEST (test_planar_without_meta)
{
  GstHarness *h = gst_harness_new ("gpufftspectrogram");
  GstBus *bus = gst_bus_new ();
  GstAudioInfo info;
  GstMessage *m;
  GError *err = NULL;
  gchar *dbg = NULL;
  GstBuffer *b;
  guint i, frames = 0;

  gst_element_set_bus (h->element, bus);
  gst_harness_set_live (h, FALSE);
  gst_harness_set_sink_caps_str (h, "video/x-raw, format=RGBA, width=64, "
      "height=64, framerate=10/1");
  gst_harness_set_src_caps_str (h, "audio/x-raw, format=F32LE, rate=48000, "
      "channels=2, channel-mask=(bitmask)0x3, layout=non-interleaved");
  gst_audio_info_set_format (&info, GST_AUDIO_FORMAT_F32LE, 48000, 2, NULL);
  info.layout = GST_AUDIO_LAYOUT_NON_INTERLEAVED;
  /* 0.2 s without a meta, then 0.3 s with one */
  b = gst_buffer_new_allocate (NULL, 9600 * 8, NULL);
  gst_buffer_memset (b, 0, 0, 9600 * 8);
  GST_BUFFER_PTS (b) = 0;
  fail_unless_equals_int (gst_harness_push (h, b), GST_FLOW_OK);
  m = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING | GST_MESSAGE_ERROR);
  fail_unless (m != NULL && GST_MESSAGE_TYPE (m) == GST_MESSAGE_WARNING,
      "no WARNING for a buffer that cannot be read");
  gst_message_parse_warning (m, &err, &dbg);
  fail_unless (dbg && strstr (dbg, "GstAudioMeta"), "%s", GST_STR_NULL (dbg));
  g_error_free (err);
  g_free (dbg);
  gst_message_unref (m);
  for (i = 0; i < 3; i++) {
    b = gst_buffer_new_allocate (NULL, 4800 * 8, NULL);
    gst_buffer_memset (b, 0, 0, 4800 * 8);
    fail_unless (gst_buffer_add_audio_meta (b, &info, 4800, NULL) != NULL);
    GST_BUFFER_PTS (b) = GST_SECOND / 5 + i * GST_SECOND / 10;
    fail_unless_equals_int (gst_harness_push (h, b), GST_FLOW_OK);
  }
  while ((b = gst_harness_try_pull (h))) {
    frames++;
    gst_buffer_unref (b);
  }
  /* 0.5 s at 10 frames a second: the unreadable 0.2 s counted */
  fail_unless_equals_int (frames, 5);
  fail_if (gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR) != NULL);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A GAP event with a duration is analysed as silence: with settings that
 * do not go together (min-frequency above the Nyquist frequency) it is
 * refused with the same clear ERROR as a buffer, naming min-frequency; a
 * GAP without a duration changes nothing and is accepted. */
GST_START_TEST (test_gap_bad_range)
{
  GstHarness *h = gst_harness_new ("gpufftspectrogram");
  GstBus *bus = gst_bus_new ();
  GstMessage *m;
  GError *err = NULL;
  gchar *dbg = NULL;

  gst_element_set_bus (h->element, bus);
  gst_harness_set_live (h, FALSE);
  g_object_set (h->element, "min-frequency", 30000.0, NULL);
  gst_harness_set_sink_caps_str (h, "video/x-raw, format=RGBA, width=64, "
      "height=64, framerate=10/1");
  gst_harness_set_src_caps_str (h, "audio/x-raw, format=F32LE, rate=48000, "
      "channels=1, layout=interleaved");
  fail_unless (gst_harness_push_event (h, gst_event_new_gap (0,
              GST_CLOCK_TIME_NONE)));
  fail_if (gst_harness_push_event (h, gst_event_new_gap (0,
              GST_SECOND / 10)));
  m = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (m != NULL, "a GAP refused without an ERROR");
  gst_message_parse_error (m, &err, &dbg);
  fail_unless (g_error_matches (err, GST_LIBRARY_ERROR,
          GST_LIBRARY_ERROR_SETTINGS), "%s", err->message);
  fail_unless (strstr (dbg, "min-frequency") != NULL, "%s", dbg);
  g_error_free (err);
  g_free (dbg);
  gst_message_unref (m);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

GST_END_TEST;

static Suite *
spectrogram_suite (void)
{
  Suite *s = suite_create ("gpufftspectrogram");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_tone_row_linear);
  tcase_add_test (tc, test_tone_row_log);
  tcase_add_test (tc, test_tone_row_mel);
  tcase_add_test (tc, test_tone_row_octave);
  tcase_add_test (tc, test_chirp_slope);
  tcase_add_test (tc, test_edge_columns);
  tcase_add_test (tc, test_silence_floor);
  tcase_add_test (tc, test_two_tone_colours);
  tcase_add_test (tc, test_tick_labels);
  tcase_add_test (tc, test_caps_default);
  tcase_add_test (tc, test_caps_sizes_and_rates);
  tcase_add_test (tc, test_formats_byte_order);
  tcase_add_test (tc, test_written_in_place);
  tcase_add_test (tc, test_non_interleaved);
  tcase_add_test (tc, test_renegotiate_size);
  tcase_add_test (tc, test_properties_while_playing);
  tcase_add_test (tc, test_gap_is_silence);
  tcase_add_test (tc, test_live_plan_wait);
  tcase_add_test (tc, test_live_ends_before_plan);
  tcase_add_test (tc, test_bad_range);
  tcase_add_test (tc, test_first_pts_follows_audio);
  tcase_add_test (tc, test_caps_race);
  tcase_add_test (tc, test_bad_range_while_playing);
  tcase_add_test (tc, test_long_frame_bounded);
  tcase_add_test (tc, test_huge_hop);
  tcase_add_test (tc, test_planar_meta_too_long);
  tcase_add_test (tc, test_gap_silence_chunked);
  tcase_add_test (tc, test_planar_without_meta);
  tcase_add_test (tc, test_gap_bad_range);
  return s;
}

GST_CHECK_MAIN (spectrogram);
