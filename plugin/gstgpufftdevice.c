/* gst-gpufft: an element opens its engine device (see the header). */
#include "gstgpufftdevice.h"

GpufftContext *
gst_gpu_fft_device_open (GstElement * element, gint index)
{
  GError *error = NULL;
  GpufftContext *ctx = gpufft_context_get (index, &error);
  gboolean missing;

  if (ctx != NULL)
    return ctx;
  missing = error && error->domain == GPUFFT_ERROR &&
      (error->code == GPUFFT_ERROR_NO_VULKAN ||
      error->code == GPUFFT_ERROR_NO_DEVICE ||
      error->code == GPUFFT_ERROR_DEVICE_INDEX ||
      error->code == GPUFFT_ERROR_NO_COMPUTE_QUEUE);
  if (missing)
    GST_ELEMENT_ERROR (element, RESOURCE, NOT_FOUND,
        ("%s", error->message), ("device-index %d", index));
  else
    GST_ELEMENT_ERROR (element, RESOURCE, FAILED,
        ("%s", error ? error->message : "Cannot open a Vulkan device"),
        ("device-index %d", index));
  g_clear_error (&error);
  return NULL;
}
