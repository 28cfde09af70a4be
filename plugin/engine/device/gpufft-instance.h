/* The process's one Vulkan instance, and the physical devices on it.
 *
 * The instance is made at the first gpufft_instance_get() and never
 * destroyed. Threads: gpufft_instance_get() is called under one lock of
 * the caller's (the context's driver lock); the others read an existing
 * instance and need none (the load function is called on the caller's
 * thread, under what the caller holds). The Vulkan functions must be
 * loaded (gpufft_vk_load). Errors: GPUFFT_ERROR_NO_VULKAN (no driver),
 * GPUFFT_ERROR_NO_DEVICE (no device), GPUFFT_ERROR_DEVICE_INDEX (an index
 * out of range, naming the devices there are), and the enumeration's own
 * failures (gpufft_vk_check's codes). */
#ifndef __GPUFFT_INSTANCE_H__
#define __GPUFFT_INSTANCE_H__

#include <glib.h>

#include "gpufft-vk.h"

G_BEGIN_DECLS

/* The process's instance, made now if need be. */
gboolean gpufft_instance_get (VkInstance * out, GError ** error);

/* The physical devices of instance (at least one); *out freed with
 * g_free. */
gboolean gpufft_instance_devices (VkInstance instance,
    VkPhysicalDevice ** out, guint32 * n_out, GError ** error);

/* How busy device `index` is (the caller's count: its context's
 * references), for the automatic choice */
typedef gint (*GpufftDeviceLoad) (gint index);

/* Device `requested`, or for -1 the best type (discrete, integrated,
 * virtual, CPU) and among devices of that type the least loaded
 * (load_of, asked of each device), so that elements
 * spread over several GPUs. */
gboolean gpufft_instance_pick_device (VkInstance instance, gint requested,
    GpufftDeviceLoad load_of, VkPhysicalDevice * phys_out, gint * index_out,
    GError ** error);

G_END_DECLS

#endif /* __GPUFFT_INSTANCE_H__ */
