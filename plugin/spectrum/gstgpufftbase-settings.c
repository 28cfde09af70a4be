/* GstGpuFftBase: the settings. The properties of the subclasses write
 * them (gst_gpu_fft_base_get_settings()) under the object lock and tell
 * the base what changed (gst_gpu_fft_base_settings_changed(), lock held);
 * the `reset` action asks for a restart of the averaging state
 * (gst_gpu_fft_base_request_reset(), any thread); the streaming thread
 * copies them under the lock (gst_gpu_fft_base_settings_read(), _live()),
 * once per buffer or event, and the geometry generation says whether the
 * analysis must restart. Takes only the object lock, never waits on the
 * streaming thread. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstgpufftbase-private.h"

/* Everything but threshold, post-messages, message-magnitude,
 * message-dominant, message-format and device-index, which apply from the
 * next buffer without a restart. */
static gboolean
geometry_equal (const GstGpuFftBaseSettings * a,
    const GstGpuFftBaseSettings * b)
{
  return a->fft_size == b->fft_size && a->hop_size == b->hop_size &&
      a->window == b->window && a->scaling == b->scaling &&
      a->interval == b->interval && a->multi_channel == b->multi_channel &&
      a->peaks == b->peaks && a->min_frequency == b->min_frequency &&
      a->max_frequency == b->max_frequency &&
      a->message_phase == b->message_phase &&
      a->batch_size == b->batch_size && a->level_offset == b->level_offset &&
      a->hop_within_interval == b->hop_within_interval &&
      a->reset_gen == b->reset_gen &&
      gst_gpu_fft_analysis_equal (&a->analysis, &b->analysis);
}

void
gst_gpu_fft_base_settings_changed (GstGpuFftBase * self,
    const GstGpuFftBaseSettings * old)
{
  /* (setting a value it already has changes nothing, not even batching) */
  if (!geometry_equal (old, &self->priv->settings))
    self->priv->geometry_gen++;
  /* (gpuspectrum: a change made by a synchronous bus handler of one of
   * its messages comes, as spectrum's would, before the intervals after
   * that message: those measured before it are not posted; a change from
   * any other thread comes after the intervals already complete, which
   * are posted, as spectrum posts them before its property returns) */
  if (self->priv->settings.reset_gen != old->reset_gen
      && gst_gpu_fft_poster_is_posting (self->priv->poster))
    self->priv->handler_gen = self->priv->settings.reset_gen;
}

/* Copies the settings (and their geometry generation) under the lock. */
void
gst_gpu_fft_base_settings_read (GstGpuFftBase * self,
    GstGpuFftBaseSettings * out, guint * gen)
{
  GST_OBJECT_LOCK (self);
  *out = self->priv->settings;
  *gen = self->priv->geometry_gen;
  GST_OBJECT_UNLOCK (self);
}

void
gst_gpu_fft_base_settings_read_live (GstGpuFftBase * self)
{
  gst_gpu_fft_base_settings_read (self, &self->priv->live,
      &self->priv->live_gen);
}

GstGpuFftBaseSettings *
gst_gpu_fft_base_get_settings (GstGpuFftBase * self)
{
  return &self->priv->settings;
}

void
gst_gpu_fft_base_request_reset (GstGpuFftBase * self)
{
  g_atomic_int_set (&self->priv->reset_pending, 1);
}
