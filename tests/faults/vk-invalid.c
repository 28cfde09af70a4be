/* A program for the validation layer's own check (tests/vk-validation.sh,
 * the meson test vk-validation-self): it opens the first Vulkan device and
 * creates one buffer, of 4 bytes (`vk-invalid valid`) or of 0 bytes
 * (`vk-invalid invalid`: against VUID-VkBufferCreateInfo-size-00912, which
 * the layer reports; lavapipe itself accepts it). Exits 0 when every call it needs
 * succeeded, 77 when no device can be opened, 2 on a bad argument. */
#include <stdio.h>
#include <string.h>
#include <vulkan/vulkan.h>

int
main (int argc, char **argv)
{
  VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
    .apiVersion = VK_API_VERSION_1_1
  };
  VkInstanceCreateInfo ici = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
    .pApplicationInfo = &app
  };
  float prio = 1.0f;
  VkDeviceQueueCreateInfo qci = {.sType =
        VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
    .queueFamilyIndex = 0,.queueCount = 1,.pQueuePriorities = &prio
  };
  VkDeviceCreateInfo dci = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
    .queueCreateInfoCount = 1,.pQueueCreateInfos = &qci
  };
  VkBufferCreateInfo bci = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
    .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
    .sharingMode = VK_SHARING_MODE_EXCLUSIVE
  };
  VkInstance inst;
  VkPhysicalDevice phys;
  VkDevice dev;
  VkBuffer buf = VK_NULL_HANDLE;
  uint32_t n = 1;
  VkResult res;

  if (argc != 2 || (strcmp (argv[1], "valid") != 0
          && strcmp (argv[1], "invalid") != 0)) {
    fprintf (stderr, "usage: %s valid|invalid\n", argv[0]);
    return 2;
  }
  bci.size = strcmp (argv[1], "valid") == 0 ? 4 : 0;
  if (vkCreateInstance (&ici, NULL, &inst) != VK_SUCCESS)
    return 77;
  res = vkEnumeratePhysicalDevices (inst, &n, &phys);
  if ((res != VK_SUCCESS && res != VK_INCOMPLETE) || n == 0) {
    vkDestroyInstance (inst, NULL);
    return 77;
  }
  if (vkCreateDevice (phys, &dci, NULL, &dev) != VK_SUCCESS) {
    vkDestroyInstance (inst, NULL);
    return 77;
  }
  res = vkCreateBuffer (dev, &bci, NULL, &buf);
  printf ("vk-invalid: vkCreateBuffer of %u bytes: %d\n",
      (unsigned) bci.size, (int) res);
  if (res == VK_SUCCESS)
    vkDestroyBuffer (dev, buf, NULL);
  vkDestroyDevice (dev, NULL);
  vkDestroyInstance (inst, NULL);
  return res == VK_SUCCESS ? 0 : 1;
}
