/* gst-gpufft: the process's budget for host-only live streams (see
 * gstgpuffthostbudget.h). */
#include "gstgpuffthostbudget.h"

static GMutex budget_lock;
static gdouble budget_used;     /* points a second taken (budget_lock) */
static gint warned;             /* a bad GPUFFT_HOST_BUDGET was reported */

static gdouble
budget_limit (gboolean cpu_devices)
{
  const gchar *env = g_getenv ("GPUFFT_HOST_BUDGET");
  gdouble def = cpu_devices ? GST_GPU_FFT_HOST_BUDGET_CPU_DEVICES :
      GST_GPU_FFT_HOST_BUDGET_DEFAULT;
  gchar *end = NULL;
  gdouble v;

  if (env == NULL || *env == '\0')
    return def;
  v = g_ascii_strtod (env, &end);
  if (end == env || *end != '\0' || !(v >= 0.0)) {
    /* (once a process) */
    if (g_atomic_int_compare_and_exchange (&warned, 0, 1))
      g_warning ("gst-gpufft: GPUFFT_HOST_BUDGET=%s is not a number of FFT "
          "points a second (0 or more): the default applies (%.0f, %.0f "
          "once the only devices opened are CPU devices)", env,
          GST_GPU_FFT_HOST_BUDGET_DEFAULT, GST_GPU_FFT_HOST_BUDGET_CPU_DEVICES);
    return def;
  }
  return v;
}

gboolean
gst_gpu_fft_host_budget_take (gdouble points, gboolean cpu_devices)
{
  gdouble limit = budget_limit (cpu_devices);
  gboolean ok;

  g_mutex_lock (&budget_lock);
  ok = points > 0.0 && budget_used + points <= limit;
  if (ok)
    budget_used += points;
  g_mutex_unlock (&budget_lock);
  return ok;
}

void
gst_gpu_fft_host_budget_give (gdouble points)
{
  g_mutex_lock (&budget_lock);
  budget_used = MAX (budget_used - points, 0.0);
  g_mutex_unlock (&budget_lock);
}
