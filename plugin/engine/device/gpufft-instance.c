/* The process's Vulkan instance and the choice of its physical device:
 * see gpufft-instance.h. */
#include "gpufft-instance.h"
#include "gpufft-vk-error.h"

#define DRIVER_ADVICE "install your GPU's Vulkan driver, or " \
  "mesa-vulkan-drivers for the CPU implementation (lavapipe)"

/* The process's one Vulkan instance, made at the first use and never
 * destroyed (made under the caller's lock): every context's devices are
 * made on it, since a driver may refuse new instances after some were
 * made and destroyed in the process (docs/design.md, "Threads and who
 * owns what"). */
static VkInstance process_instance;

static gboolean
create_instance (VkInstance * out, GError ** error)
{
  VkApplicationInfo app = {
    .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
    .pApplicationName = "gst-gpufft",
    .applicationVersion = 1,
    .pEngineName = "gpufft",
    .engineVersion = 1,
    .apiVersion = VK_API_VERSION_1_1,
  };
  VkInstanceCreateInfo info = {
    .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
    .pApplicationInfo = &app,
  };
  VkResult res;

  *out = VK_NULL_HANDLE;
  res = vkCreateInstance (&info, NULL, out);
  if (res == VK_SUCCESS)
    return TRUE;

  *out = VK_NULL_HANDLE;
  if (res == VK_ERROR_INCOMPATIBLE_DRIVER
      || res == VK_ERROR_INITIALIZATION_FAILED)
    g_set_error (error, GPUFFT_ERROR, GPUFFT_ERROR_NO_VULKAN,
        "no Vulkan driver found: " DRIVER_ADVICE " (vkCreateInstance: %s)",
        gpufft_vk_result_string (res));
  else
    g_set_error (error, GPUFFT_ERROR, GPUFFT_ERROR_NO_VULKAN,
        "could not create a Vulkan 1.1 instance (vkCreateInstance: %s)",
        gpufft_vk_result_string (res));
  return FALSE;
}

gboolean
gpufft_instance_get (VkInstance * out, GError ** error)
{
  if (process_instance == VK_NULL_HANDLE
      && !create_instance (&process_instance, error))
    return FALSE;
  *out = process_instance;
  return TRUE;
}

gboolean
gpufft_instance_devices (VkInstance instance, VkPhysicalDevice ** out,
    guint32 * n_out, GError ** error)
{
  VkPhysicalDevice *devs = NULL;
  guint32 n = 0;
  VkResult res;

  *out = NULL;
  *n_out = 0;
  res = vkEnumeratePhysicalDevices (instance, &n, NULL);
  if (!gpufft_vk_check (res, "vkEnumeratePhysicalDevices", error))
    return FALSE;
  if (n == 0) {
    g_set_error (error, GPUFFT_ERROR, GPUFFT_ERROR_NO_DEVICE,
        "no Vulkan device found: " DRIVER_ADVICE);
    return FALSE;
  }
  devs = g_new0 (VkPhysicalDevice, n);
  res = vkEnumeratePhysicalDevices (instance, &n, devs);
  if (res == VK_INCOMPLETE)
    res = VK_SUCCESS;           /* a device vanished in between: use those */
  if (!gpufft_vk_check (res, "vkEnumeratePhysicalDevices", error)) {
    g_free (devs);
    return FALSE;
  }
  if (n == 0) {
    g_free (devs);
    g_set_error (error, GPUFFT_ERROR, GPUFFT_ERROR_NO_DEVICE,
        "no Vulkan device found: " DRIVER_ADVICE);
    return FALSE;
  }
  *out = devs;
  *n_out = n;
  return TRUE;
}

static gint
type_rank (VkPhysicalDeviceType type)
{
  switch (type) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
      return 4;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
      return 3;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
      return 2;
    case VK_PHYSICAL_DEVICE_TYPE_CPU:
      return 1;
    default:
      return 0;
  }
}

gboolean
gpufft_instance_pick_device (VkInstance instance, gint requested,
    GpufftDeviceLoad load_of, VkPhysicalDevice * phys_out, gint * index_out,
    GError ** error)
{
  VkPhysicalDevice *devs;
  VkPhysicalDeviceProperties props;
  guint32 n, i;
  gint best = -1, best_rank = -1;

  if (!gpufft_instance_devices (instance, &devs, &n, error))
    return FALSE;

  if (requested >= 0) {
    if ((guint32) requested >= n) {
      GString *s = g_string_new (NULL);

      g_string_append_printf (s, "device index %d out of range: %u Vulkan "
          "device(s):", requested, n);
      for (i = 0; i < n; i++) {
        vkGetPhysicalDeviceProperties (devs[i], &props);
        g_string_append_printf (s, "%s %u '%s'", i ? "," : "", i,
            props.deviceName);
      }
      g_set_error_literal (error, GPUFFT_ERROR, GPUFFT_ERROR_DEVICE_INDEX,
          s->str);
      g_string_free (s, TRUE);
      g_free (devs);
      return FALSE;
    }
    best = requested;
  } else {
    /* The best type; among devices of that type the least used one (its
     * context's references: one per element and plan), so that elements
     * spread over several GPUs. */
    gint best_load = 0;

    for (i = 0; i < n; i++) {
      gint rank, load;

      vkGetPhysicalDeviceProperties (devs[i], &props);
      rank = type_rank (props.deviceType);
      load = load_of (i);
      if (rank > best_rank || (rank == best_rank && load < best_load)) {
        best_rank = rank;
        best = i;
        best_load = load;
      }
    }
  }

  *phys_out = devs[best];
  *index_out = best;
  g_free (devs);
  return TRUE;
}
