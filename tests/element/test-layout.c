/* The spectrogram's layout alone (plain C, no device): the frequency ticks
 * of every axis are found in bounded time and are sane (inside the axis,
 * ascending, at least min_gap pixels apart, no more than fit) whatever the
 * axis' range: a range of one ulp at 900 MHz (rate 2 GHz) or 1 GHz wide
 * took a step below half an ulp for ever, or a million mel candidates
 * compared pairwise. The whole overlay is drawn for the same axes. */
#include <math.h>
#include <string.h>

#include "gstgpufftlayout.h"

#define ROWS 200
#define GAP 20
#define MAX_TICKS 64

typedef struct
{
  GstGpuFftFreqAxis axis;
  GMutex lock;
  GCond cond;
  gboolean done;
  guint n;
  gdouble f[MAX_TICKS];
  guint pixel[MAX_TICKS];
} Job;

static gpointer
ticks_thread (gpointer data)
{
  Job *j = data;
  GstGpuFftLayout l;
  const guint shift[4] = { 0, 8, 16, 24 };
  guint32 lut[256] = { 0 }, *overlay;
  guint n;

  n = gst_gpu_fft_layout_freq_ticks (&j->axis, NULL, ROWS, GAP, j->f,
      j->pixel, MAX_TICKS);
  gst_gpu_fft_layout_compute (&l, 320, 240,
      GST_GPU_FFT_SPECTROGRAM_MODE_BOTH, TRUE, shift);
  overlay = g_new (guint32, 320 * 240);
  gst_gpu_fft_layout_draw (&l, overlay, &j->axis, NULL, -100, 0, lut, "t");
  g_free (overlay);
  g_mutex_lock (&j->lock);
  j->n = n;
  j->done = TRUE;
  g_cond_signal (&j->cond);
  g_mutex_unlock (&j->lock);
  return NULL;
}

/* The ticks of axis (lo, hi), within 10 s; FALSE when they did not come
 * (the thread is left running: the test fails). */
static gboolean
ticks_within (GstGpuFftAxis axis, gdouble lo, gdouble hi, Job * j)
{
  gint64 end = g_get_monotonic_time () + 10 * G_TIME_SPAN_SECOND;
  gboolean done;

  memset (j, 0, sizeof (*j));
  j->axis.axis = axis;
  j->axis.f_lo = lo;
  j->axis.f_hi = hi;
  g_mutex_init (&j->lock);
  g_cond_init (&j->cond);
  g_thread_unref (g_thread_new ("ticks", ticks_thread, j));
  g_mutex_lock (&j->lock);
  while (!j->done && g_cond_wait_until (&j->cond, &j->lock, end));
  done = j->done;
  g_mutex_unlock (&j->lock);
  return done;
}

static void
check_axis (GstGpuFftAxis axis, gdouble lo, gdouble hi, guint least)
{
  /* (leaked when the thread does not finish: it may still write there) */
  Job *j = g_new0 (Job, 1);
  guint i;

  if (!ticks_within (axis, lo, hi, j)) {
    g_test_fail_printf ("axis %d, %.17g..%.17g Hz: no ticks after 10 s",
        axis, lo, hi);
    return;
  }
  if (j->n > ROWS / GAP + 1 || j->n > MAX_TICKS)
    g_test_fail_printf ("axis %d, %.17g..%.17g Hz: %u ticks on %u rows %u "
        "apart", axis, lo, hi, j->n, ROWS, GAP);
  if (j->n < least)
    g_test_fail_printf ("axis %d, %.17g..%.17g Hz: %u ticks, at least %u "
        "expected", axis, lo, hi, j->n, least);
  for (i = 0; i < MIN (j->n, MAX_TICKS); i++) {
    if (!(j->f[i] >= lo - 1e-9 && j->f[i] <= hi + 1e-9) || j->pixel[i] >= ROWS)
      g_test_fail_printf ("axis %d: tick %.17g Hz at pixel %u is outside "
          "%.17g..%.17g Hz", axis, j->f[i], j->pixel[i], lo, hi);
    if (i > 0 && (j->f[i] <= j->f[i - 1] || j->pixel[i] < j->pixel[i - 1] +
            GAP))
      g_test_fail_printf ("axis %d: ticks %.17g Hz (pixel %u) and %.17g Hz "
          "(pixel %u) out of order or closer than %u", axis, j->f[i - 1],
          j->pixel[i - 1], j->f[i], j->pixel[i], GAP);
  }
  g_mutex_clear (&j->lock);
  g_cond_clear (&j->cond);
  g_free (j);
}

/* an axis one ulp wide at 900 MHz (rate 2 GHz, min-frequency 9e8,
 * max-frequency just above): at most a tick, and it comes */
static void
test_one_ulp (void)
{
  gdouble lo = 9e8, hi = nextafter (9e8, G_MAXDOUBLE);

  check_axis (GST_GPU_FFT_AXIS_LINEAR, lo, hi, 0);
  check_axis (GST_GPU_FFT_AXIS_LOG, lo, hi, 0);
  check_axis (GST_GPU_FFT_AXIS_MEL, lo, hi, 0);
  check_axis (GST_GPU_FFT_AXIS_OCTAVE, lo, hi, 0);
}

/* the whole axis of a 2 GHz rate */
static void
test_gigahertz (void)
{
  check_axis (GST_GPU_FFT_AXIS_LINEAR, 0, 1e9, 3);
  check_axis (GST_GPU_FFT_AXIS_LOG, 20, 1e9, 3);
  check_axis (GST_GPU_FFT_AXIS_MEL, 0, 1e9, 3);
  check_axis (GST_GPU_FFT_AXIS_OCTAVE, 20, 1e9, 3);
}

/* an audio axis keeps its ticks */
static void
test_audio (void)
{
  check_axis (GST_GPU_FFT_AXIS_LINEAR, 0, 24000, 3);
  check_axis (GST_GPU_FFT_AXIS_LOG, 20, 24000, 3);
  check_axis (GST_GPU_FFT_AXIS_MEL, 0, 24000, 3);
  check_axis (GST_GPU_FFT_AXIS_OCTAVE, 20, 24000, 3);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/layout/one-ulp", test_one_ulp);
  g_test_add_func ("/layout/gigahertz", test_gigahertz);
  g_test_add_func ("/layout/audio", test_audio);
  return g_test_run ();
}
