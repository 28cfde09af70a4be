/* A fault-injection shim for tests, preloaded with LD_PRELOAD (and
 * GPUFFT_VK_INTERPOSE=1, so that the engine takes its functions): it wraps
 * vkWaitForFences and vkDeviceWaitIdle of the Vulkan loader. Until
 * gpufft_test_hang (TRUE) is called (find it with dlsym), both pass
 * through. After it, the device behaves as if hung: vkWaitForFences waits
 * out its timeout and returns VK_TIMEOUT (nothing ever completes), and
 * vkDeviceWaitIdle never returns (so a test hangs, and fails by its
 * timeout, if the code under test calls it on a hung device). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <time.h>
#include <unistd.h>
#include <vulkan/vulkan.h>

static volatile int hang;

void gpufft_test_hang (int on);

void
gpufft_test_hang (int on)
{
  __atomic_store_n (&hang, on, __ATOMIC_SEQ_CST);
}

/* The loader's own function: next in the global scope, or in libvulkan
 * loaded later by dlopen (the plugin's dependency, outside that scope). */
static void *
real_function (const char *name)
{
  void *f = dlsym (RTLD_NEXT, name);

  if (f == NULL) {
    void *lib = dlopen ("libvulkan.so.1", RTLD_NOW | RTLD_NOLOAD);

    if (lib == NULL)
      lib = dlopen ("libvulkan.so.1", RTLD_NOW);
    if (lib)
      f = dlsym (lib, name);
  }
  return f;
}

static int
hanging (void)
{
  return __atomic_load_n (&hang, __ATOMIC_SEQ_CST);
}

VKAPI_ATTR VkResult VKAPI_CALL
vkWaitForFences (VkDevice device, uint32_t count, const VkFence * fences,
    VkBool32 all, uint64_t timeout)
{
  static PFN_vkWaitForFences real;

  if (hanging ()) {
    /* a timeout beyond an hour means "forever": sleep as a hung GPU does,
     * an hour at a time */
    do {
      uint64_t ns = timeout > 3600000000000ull ? 3600000000000ull : timeout;
      struct timespec ts = { (time_t) (ns / 1000000000ull),
        (long) (ns % 1000000000ull)
      };

      nanosleep (&ts, NULL);
    } while (timeout > 3600000000000ull);
    return VK_TIMEOUT;
  }
  if (!real)
    real = (PFN_vkWaitForFences) real_function ("vkWaitForFences");
  if (!real)
    return VK_ERROR_INITIALIZATION_FAILED;
  return real (device, count, fences, all, timeout);
}

VKAPI_ATTR VkResult VKAPI_CALL
vkDeviceWaitIdle (VkDevice device)
{
  static PFN_vkDeviceWaitIdle real;

  while (hanging ())
    sleep (3600);
  if (!real)
    real = (PFN_vkDeviceWaitIdle) real_function ("vkDeviceWaitIdle");
  if (!real)
    return VK_ERROR_INITIALIZATION_FAILED;
  return real (device);
}
