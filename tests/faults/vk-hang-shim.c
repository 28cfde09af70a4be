/* A fault-injection shim for tests, preloaded with LD_PRELOAD (and
 * GPUFFT_VK_INTERPOSE=1, so that the engine takes its functions): it wraps
 * vkWaitForFences and vkDeviceWaitIdle of the Vulkan loader. Until
 * gpufft_test_hang (TRUE) is called (find it with dlsym), both pass
 * through. After it, the device behaves as if hung: vkWaitForFences waits
 * out its timeout and returns VK_TIMEOUT (nothing completes), unless
 * gpufft_test_hang (FALSE) comes first (the device recovers: the wait goes
 * on as the real one for what is left of its timeout), and
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
    /* wait as a hung GPU does: the whole timeout, unless the device
     * recovers meanwhile (gpufft_test_hang (FALSE)); then the real wait
     * for what is left of it (a timeout beyond an hour means "forever") */
    uint64_t waited = 0, step = 10000000ull;

    while (hanging ()) {
      struct timespec ts;

      if (timeout <= 3600000000000ull && waited >= timeout)
        return VK_TIMEOUT;
      if (timeout <= 3600000000000ull && timeout - waited < step)
        step = timeout - waited;
      ts.tv_sec = 0;
      ts.tv_nsec = (long) step;
      nanosleep (&ts, NULL);
      waited += step;
    }
    timeout = timeout <= 3600000000000ull && waited < timeout ?
        timeout - waited : (timeout > 3600000000000ull ? timeout : 0);
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
