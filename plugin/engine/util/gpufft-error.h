/* The engine's errors (GPUFFT_ERROR, gpufft.h): helpers that set them.
 * Thread-safe; no Vulkan. */
#ifndef __GPUFFT_ERROR_H__
#define __GPUFFT_ERROR_H__

#include "gpufft.h"

G_BEGIN_DECLS

/* Sets error (if not already set) to GPUFFT_ERROR_INVALID_ARGUMENT with the
 * formatted message; returns FALSE. */
gboolean gpufft_error_invalid (GError ** error, const gchar * fmt, ...)
    G_GNUC_PRINTF (2, 3);

G_END_DECLS

#endif /* __GPUFFT_ERROR_H__ */
