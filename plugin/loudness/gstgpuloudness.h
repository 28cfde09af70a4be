/* gpuloudness: EBU R128 / BS.1770-4 loudness on the GPU (see the .c
 * file). What the plugin needs to register it; the instance is private to
 * the element's files (gstgpuloudness-private.h). */
#ifndef __GST_GPU_LOUDNESS_H__
#define __GST_GPU_LOUDNESS_H__

#include <gst/gst.h>

G_BEGIN_DECLS typedef struct _GstGpuLoudness GstGpuLoudness;

#define GST_TYPE_GPU_LOUDNESS (gst_gpu_loudness_get_type ())
GType gst_gpu_loudness_get_type (void);

GST_ELEMENT_REGISTER_DECLARE (gpuloudness);

G_END_DECLS
#endif /* __GST_GPU_LOUDNESS_H__ */
