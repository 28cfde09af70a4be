/* VkFFT 1D batched R2C (forward, FFT only, out of place) on the engine's
 * Vulkan device. Kept in its own translation unit: VkFFT's header takes
 * about half a minute to compile. */
#ifndef __VKFFT_PEER_H__
#define __VKFFT_PEER_H__

#include "gpufft-context-private.h"

G_BEGIN_DECLS

typedef struct _VkfftPeer VkfftPeer;

/* in: frames * n floats; out: frames * (n/2 + 1) complex floats (re, im).
 * Both buffers must outlive the peer. */
VkfftPeer *vkfft_peer_new (GpufftContext * ctx, guint n, guint frames,
    VkBuffer in, VkDeviceSize in_size, VkBuffer out, VkDeviceSize out_size,
    GError ** error);

/* Appends one forward transform of all frames to cmd (recording). */
gboolean vkfft_peer_record (VkfftPeer * peer, VkCommandBuffer cmd,
    GError ** error);

void vkfft_peer_free (VkfftPeer * peer);

/* "VkFFT 1.3.4" or so. */
const gchar *vkfft_peer_version (void);

G_END_DECLS

#endif
