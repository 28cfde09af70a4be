/* The Vulkan loader, opened at run time: see gpufft-vk.h. */
#include <dlfcn.h>

#include "gpufft-vk.h"
#include "gpufft.h"

#define GPUFFT_VK_DEFINE(name) PFN_vk##name gpufft_vk##name;
GPUFFT_VK_FUNCTIONS (GPUFFT_VK_DEFINE)
#undef GPUFFT_VK_DEFINE
     static GMutex load_lock;
     static gboolean loaded;

/* The loader's function; with GPUFFT_VK_INTERPOSE set (the tests' fault
 * injection), a definition preloaded into the process comes first. */
     static gpointer
         resolve (gpointer lib, const gchar * name, gboolean interpose)
{
  gpointer f = interpose ? dlsym (RTLD_DEFAULT, name) : NULL;

  return f ? f : dlsym (lib, name);
}

gboolean
gpufft_vk_load (GError ** error)
{
  const gchar *path = g_getenv ("GPUFFT_VULKAN_LOADER");
  const gchar *missing = NULL;
  gboolean interpose = g_getenv ("GPUFFT_VK_INTERPOSE") != NULL;
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
          resolve (lib, "vk" #name, interpose)) == NULL) \
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
