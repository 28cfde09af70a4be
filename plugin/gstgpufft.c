/* gst-gpufft: GStreamer plugin `gpufft` (spectrum analysis on a Vulkan
 * device). plugin_init only registers the elements (gpufftspectrum, and
 * gpuspectrum: GStreamer's spectrum on the GPU, gpufftspectrogram:
 * a spectrogram video, and gpuloudness: EBU R128 loudness): it never touches Vulkan,
 * so the registry cache does not depend on a GPU being present; the device
 * is opened when the element starts. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/gst.h>
#include "gstgpufftspectrum.h"
#include "gstgpuspectrum.h"
#include "gstgpufftspectrogram.h"
#include "gstgpuloudness.h"

static gboolean
plugin_init (GstPlugin * plugin)
{
  gboolean ok = GST_ELEMENT_REGISTER (gpufftspectrum, plugin);

  ok = GST_ELEMENT_REGISTER (gpuspectrum, plugin) && ok;
  ok = GST_ELEMENT_REGISTER (gpufftspectrogram, plugin) && ok;
  ok = GST_ELEMENT_REGISTER (gpuloudness, plugin) && ok;
  return ok;
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, gpufft,
    "Spectrum analysis with FFTs and EBU R128 loudness on a Vulkan device (precompiled SPIR-V)",
    plugin_init, VERSION, "LGPL", GST_PACKAGE_NAME, GST_PACKAGE_ORIGIN)
