/* Device extensions a physical device offers: see gpufft-extension.h. */
#include "gpufft-extension.h"

gboolean
gpufft_extension_offered (VkPhysicalDevice phys, const gchar * name)
{
  VkExtensionProperties *exts;
  guint32 n = 0, i;
  gboolean found = FALSE;

  if (vkEnumerateDeviceExtensionProperties (phys, NULL, &n, NULL) !=
      VK_SUCCESS || n == 0)
    return FALSE;
  exts = g_new0 (VkExtensionProperties, n);
  if (vkEnumerateDeviceExtensionProperties (phys, NULL, &n, exts) ==
      VK_SUCCESS) {
    for (i = 0; i < n && !found; i++)
      found = g_strcmp0 (exts[i].extensionName, name) == 0;
  }
  g_free (exts);
  return found;
}
