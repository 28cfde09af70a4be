/* VkResult -> GError. */
#include "gpufft-vk-error.h"

const gchar *
gpufft_vk_result_string (VkResult result)
{
  gchar buf[32];

  switch (result) {
#define CASE(r) case r: return #r
      CASE (VK_SUCCESS);
      CASE (VK_NOT_READY);
      CASE (VK_TIMEOUT);
      CASE (VK_EVENT_SET);
      CASE (VK_EVENT_RESET);
      CASE (VK_INCOMPLETE);
      CASE (VK_ERROR_OUT_OF_HOST_MEMORY);
      CASE (VK_ERROR_OUT_OF_DEVICE_MEMORY);
      CASE (VK_ERROR_INITIALIZATION_FAILED);
      CASE (VK_ERROR_DEVICE_LOST);
      CASE (VK_ERROR_MEMORY_MAP_FAILED);
      CASE (VK_ERROR_LAYER_NOT_PRESENT);
      CASE (VK_ERROR_EXTENSION_NOT_PRESENT);
      CASE (VK_ERROR_FEATURE_NOT_PRESENT);
      CASE (VK_ERROR_INCOMPATIBLE_DRIVER);
      CASE (VK_ERROR_TOO_MANY_OBJECTS);
      CASE (VK_ERROR_FORMAT_NOT_SUPPORTED);
      CASE (VK_ERROR_FRAGMENTED_POOL);
      CASE (VK_ERROR_OUT_OF_POOL_MEMORY);
      CASE (VK_ERROR_INVALID_EXTERNAL_HANDLE);
#ifdef VK_VERSION_1_2
      CASE (VK_ERROR_UNKNOWN);
      CASE (VK_ERROR_FRAGMENTATION);
      CASE (VK_ERROR_INVALID_OPAQUE_CAPTURE_ADDRESS);
#endif
#undef CASE
    default:
      break;
  }

  /* Interned strings live for the life of the process and interning is
   * thread-safe; the set of unknown codes is tiny. */
  g_snprintf (buf, sizeof (buf), "VkResult %d", (gint) result);
  return g_intern_string (buf);
}

gboolean
gpufft_vk_check (VkResult result, const gchar * what, GError ** error)
{
  GpufftError code;

  if (result == VK_SUCCESS)
    return TRUE;

  switch (result) {
    case VK_ERROR_OUT_OF_HOST_MEMORY:
    case VK_ERROR_OUT_OF_DEVICE_MEMORY:
      code = GPUFFT_ERROR_OUT_OF_MEMORY;
      break;
    case VK_ERROR_DEVICE_LOST:
      code = GPUFFT_ERROR_DEVICE_LOST;
      break;
    default:
      code = GPUFFT_ERROR_FAILED;
      break;
  }

  if (error == NULL || *error == NULL)
    g_set_error (error, GPUFFT_ERROR, code, "%s failed: %s", what,
        gpufft_vk_result_string (result));
  return FALSE;
}
