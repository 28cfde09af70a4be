/* The Vulkan loader, opened at run time: see gpufft-vk.h. */
#include <dlfcn.h>

#include "gpufft-vk.h"
#include "gpufft.h"

#define GPUFFT_VK_DEFINE(name) PFN_vk##name gpufft_vk##name;
GPUFFT_VK_FUNCTIONS (GPUFFT_VK_DEFINE)
#undef GPUFFT_VK_DEFINE

static GMutex load_lock;
static gboolean loaded;

/* A definition already in the process's global scope (a preloaded library)
 * first, then the loader's. */
static gpointer
resolve (gpointer lib, const gchar * name)
{
  gpointer f = dlsym (RTLD_DEFAULT, name);

  return f ? f : dlsym (lib, name);
}

gboolean
gpufft_vk_load (GError ** error)
{
  const gchar *path = g_getenv ("GPUFFT_VULKAN_LOADER");
  const gchar *missing = NULL;
  gpointer lib;

  g_mutex_lock (&load_lock);
  if (loaded) {
    g_mutex_unlock (&load_lock);
    return TRUE;
  }
  if (path == NULL || *path == '\0')
    path = "libvulkan.so.1";
  lib = dlopen (path, RTLD_NOW | RTLD_LOCAL);
  if (lib == NULL) {
    g_set_error (error, GPUFFT_ERROR, GPUFFT_ERROR_NO_VULKAN,
        "no Vulkan loader: install libvulkan1, and a Vulkan driver (your "
        "GPU's, or mesa-vulkan-drivers to run on the CPU) (%s)", dlerror ());
    g_mutex_unlock (&load_lock);
    return FALSE;
  }
#define GPUFFT_VK_RESOLVE(name) \
  if (missing == NULL && (gpufft_vk##name = (PFN_vk##name) \
          resolve (lib, "vk" #name)) == NULL) \
    missing = "vk" #name;
  GPUFFT_VK_FUNCTIONS (GPUFFT_VK_RESOLVE)
#undef GPUFFT_VK_RESOLVE
  if (missing) {
    g_set_error (error, GPUFFT_ERROR, GPUFFT_ERROR_NO_VULKAN,
        "the Vulkan loader %s has no %s: install a Vulkan 1.1 loader "
        "(libvulkan1)", path, missing);
    dlclose (lib);
    g_mutex_unlock (&load_lock);
    return FALSE;
  }
  /* (the loader stays open for the life of the process) */
  loaded = TRUE;
  g_mutex_unlock (&load_lock);
  return TRUE;
}
