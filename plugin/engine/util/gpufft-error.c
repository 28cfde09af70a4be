/* The engine's error domain and its helpers: see gpufft-error.h. */
#include "gpufft-error.h"

G_DEFINE_QUARK (gpufft-error-quark, gpufft_error);

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
