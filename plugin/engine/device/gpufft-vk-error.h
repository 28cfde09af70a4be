/* VkResult -> GError: the one place Vulkan failures become errors. */
#ifndef __GPUFFT_VK_ERROR_H__
#define __GPUFFT_VK_ERROR_H__

#include "gpufft-vk.h"
#include "gpufft.h"

G_BEGIN_DECLS

/* "VK_ERROR_DEVICE_LOST" etc.; never NULL. */
const gchar *gpufft_vk_result_string (VkResult result);

/* TRUE when result is VK_SUCCESS. Otherwise sets error (if not already set)
 * to "<what> failed: <VK_...>" with the GpufftError code that fits
 * (OUT_OF_MEMORY, DEVICE_LOST, FAILED) and returns FALSE. */
gboolean gpufft_vk_check (VkResult result, const gchar * what, GError ** error);

G_END_DECLS

#endif
