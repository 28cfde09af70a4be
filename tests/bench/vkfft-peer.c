/* The only translation unit that includes VkFFT (Vulkan backend). */
#define VKFFT_BACKEND 0
#include <vkFFT.h>

#include "vkfft-peer.h"

struct _VkfftPeer
{
  /* VkFFT keeps pointers to all of these */
  VkPhysicalDevice physical;
  VkDevice device;
  VkQueue queue;
  VkCommandPool pool;
  VkFence fence;
  VkBuffer in, out;
  pfUINT in_size, out_size;
  VkFFTApplication app;
  gboolean app_ready;
};

static gchar version[32];

const gchar *
vkfft_peer_version (void)
{
  int v = VkFFTGetVersion ();

  g_snprintf (version, sizeof version, "VkFFT %d.%d.%d", v / 10000,
      (v / 100) % 100, v % 100);
  return version;
}

VkfftPeer *
vkfft_peer_new (GpufftContext * ctx, guint n, guint frames, VkBuffer in,
    VkDeviceSize in_size, VkBuffer out, VkDeviceSize out_size,
    GError ** error)
{
  VkfftPeer *p = g_new0 (VkfftPeer, 1);
  VkCommandPoolCreateInfo pinfo = {
    .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
    .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
    .queueFamilyIndex = ctx->queue_family,
  };
  VkFenceCreateInfo finfo = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO };
  VkFFTConfiguration conf = { 0 };
  VkFFTResult r;
  VkResult res;

  p->physical = ctx->physical;
  p->device = ctx->device;
  p->queue = ctx->queue;
  p->in = in;
  p->out = out;
  p->in_size = in_size;
  p->out_size = out_size;
  res = vkCreateCommandPool (ctx->device, &pinfo, NULL, &p->pool);
  if (res != VK_SUCCESS) {
    g_set_error (error, GPUFFT_ERROR, GPUFFT_ERROR_FAILED,
        "vkCreateCommandPool: %d", res);
    p->pool = VK_NULL_HANDLE;
    goto fail;
  }
  res = vkCreateFence (ctx->device, &finfo, NULL, &p->fence);
  if (res != VK_SUCCESS) {
    g_set_error (error, GPUFFT_ERROR, GPUFFT_ERROR_FAILED,
        "vkCreateFence: %d", res);
    p->fence = VK_NULL_HANDLE;
    goto fail;
  }

  conf.FFTdim = 1;
  conf.size[0] = n;
  conf.numberBatches = frames;
  conf.performR2C = 1;
  conf.makeForwardPlanOnly = 1;
  conf.isInputFormatted = 1;    /* real input, unpadded, in its own buffer */
  conf.inputBufferStride[0] = n;
  conf.bufferStride[0] = n / 2 + 1;
  conf.physicalDevice = &p->physical;
  conf.device = &p->device;
  conf.queue = &p->queue;
  conf.commandPool = &p->pool;
  conf.fence = &p->fence;
  conf.inputBuffer = &p->in;
  conf.inputBufferSize = &p->in_size;
  conf.buffer = &p->out;
  conf.bufferSize = &p->out_size;
  if ((guint64) frames * n >= G_GUINT64_CONSTANT (1) << 31)
    conf.useUint64 = 1;

  r = initializeVkFFT (&p->app, conf);
  if (r != VKFFT_SUCCESS) {
    g_set_error (error, GPUFFT_ERROR, GPUFFT_ERROR_FAILED,
        "initializeVkFFT (N=%u, %u frames): %s (%d)", n, frames,
        getVkFFTErrorString (r), (int) r);
    goto fail;
  }
  p->app_ready = TRUE;
  return p;

fail:
  vkfft_peer_free (p);
  return NULL;
}

gboolean
vkfft_peer_record (VkfftPeer * p, VkCommandBuffer cmd, GError ** error)
{
  VkFFTLaunchParams lp = { 0 };
  VkFFTResult r;

  lp.commandBuffer = &cmd;
  r = VkFFTAppend (&p->app, -1, &lp);
  if (r != VKFFT_SUCCESS) {
    g_set_error (error, GPUFFT_ERROR, GPUFFT_ERROR_FAILED,
        "VkFFTAppend: %s (%d)", getVkFFTErrorString (r), (int) r);
    return FALSE;
  }
  return TRUE;
}

void
vkfft_peer_free (VkfftPeer * p)
{
  if (!p)
    return;
  if (p->app_ready)
    deleteVkFFT (&p->app);
  if (p->fence != VK_NULL_HANDLE)
    vkDestroyFence (p->device, p->fence, NULL);
  if (p->pool != VK_NULL_HANDLE)
    vkDestroyCommandPool (p->device, p->pool, NULL);
  g_free (p);
}
