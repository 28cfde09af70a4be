/* The engine's error domain and its helpers: see gpufft-error.h. */
#include "gpufft-error.h"

/* (made once, under g_once: plan threads may ask for it at the same time) */
GQuark
gpufft_error_quark (void)
{
  static gsize quark = 0;

  if (g_once_init_enter (&quark)) {
    GQuark q = g_quark_from_static_string ("gpufft-error-quark");

    g_once_init_leave (&quark, q);
  }
  return (GQuark) quark;
}

gboolean
gpufft_error_invalid (GError ** error, const gchar * fmt, ...)
{
  va_list args;
  gchar *msg;

  va_start (args, fmt);
  msg = g_strdup_vprintf (fmt, args);
  va_end (args);
  g_set_error_literal (error, GPUFFT_ERROR, GPUFFT_ERROR_INVALID_ARGUMENT, msg);
  g_free (msg);
  return FALSE;
}
