/* Sample formats (GpufftFormat, gpufft.h): their sizes. No Vulkan. */
#include "gpufft.h"

guint
gpufft_format_bytes (GpufftFormat format)
{
  switch (format) {
    case GPUFFT_FORMAT_S16:
      return 2;
    case GPUFFT_FORMAT_S24:
      return 3;
    case GPUFFT_FORMAT_S32:
    case GPUFFT_FORMAT_F32:
      return 4;
    case GPUFFT_FORMAT_F64:
      return 8;
  }
  return 0;
}
