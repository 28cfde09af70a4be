/* Device extensions a physical device offers. Any thread (the Vulkan
 * functions must be loaded: gpufft_vk_load). */
#ifndef __GPUFFT_EXTENSION_H__
#define __GPUFFT_EXTENSION_H__

#include <glib.h>

#include "gpufft-vk.h"

G_BEGIN_DECLS

/* Whether phys offers the device extension `name`; FALSE where the list
 * cannot be read. */
gboolean gpufft_extension_offered (VkPhysicalDevice phys, const gchar * name);

G_END_DECLS

#endif /* __GPUFFT_EXTENSION_H__ */
