/* gpuspectrum: GStreamer's spectrum element on the GPU (see the .c file).
 * What the plugin needs to register it; the instance is private to
 * gstgpuspectrum.c. */
#ifndef __GST_GPU_SPECTRUM_H__
#define __GST_GPU_SPECTRUM_H__

#include <gst/gst.h>

G_BEGIN_DECLS

typedef struct _GstGpuSpectrum GstGpuSpectrum;

#define GST_TYPE_GPU_SPECTRUM (gst_gpu_spectrum_get_type ())
GType gst_gpu_spectrum_get_type (void);

GST_ELEMENT_REGISTER_DECLARE (gpuspectrum);

G_END_DECLS

#endif /* __GST_GPU_SPECTRUM_H__ */
