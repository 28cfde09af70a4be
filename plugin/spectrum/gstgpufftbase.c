/* GstGpuFftBase: the spectrum analyser that gpufftspectrum and
 * gpuspectrum derive from; it runs its FFTs on a Vulkan device.
 *
 * Passes audio through untouched (in place, bit-exact, no latency) and posts
 * element messages with the Welch-averaged power spectrum (`spectrum`) and
 * the dominant frequency (`dominant-frequency`) of every interval (with
 * the class's spectrum_compat: GStreamer's spectrum message only).
 *
 * Framing: frame j covers samples [j*hop, j*hop + fft-size) counted from the
 * stream start or the last restart (DISCONT, flush, new segment, new caps).
 * Interval k covers [round (k*interval*rate/1e9), round ((k+1)*...)); a
 * frame belongs to the interval that holds its last sample; every frame is
 * analysed. An interval's messages are posted once it is complete (on EOS
 * and restarts: the partial interval), if it holds at least one frame; a
 * partial interval that a restart closes before it holds a frame is
 * counted in the next message's `dropped`, so that messages tile the
 * stream or say what they leave out.
 * Geometry settings (fft-size, hop-size, window, scaling, interval,
 * multi-channel, peaks, min/max-frequency, message-phase, batch-size and
 * the analyser modes) apply at once, as in `spectrum`: at the next buffer
 * the open interval closes where the stream stands (a partial interval,
 * old settings) and the analysis restarts there; the others apply from the
 * next buffer. device-index is read when the element starts (READY ->
 * PAUSED).
 *
 * NaN / Inf samples: every frame is transformed on its own and a frame
 * holding a non-finite sample (in the analysed channel, or in any channel
 * when downmixing) is left out of its interval's average by the engine, so
 * it spoils no other frame and no other interval. The message's `frames`
 * says how many frames were averaged (the smallest count over channels),
 * `frames-left-out` how many were not; an interval whose frames were all
 * left out reads the threshold in every bin and has no dominant frequency
 * (0). Finite samples beyond +-2^32 (F32, F64) would overflow the float
 * power: the engine gets them as NaN (from a copy of the buffer), so
 * their frames are left out the same way, and the first one since the
 * start posts a WARNING naming the bound (gstgpufftbound.h). The audio
 * passes through as is.
 *
 * Segments: every buffer passes through whole; only what lies in a TIME
 * segment is analysed (a buffer outside it is not, one across its edge in
 * part).
 *
 * Buffers: a buffer without a whole sample frame is ignored, whatever its
 * timestamp and flags; a buffer's trailing bytes that do not make a whole
 * sample frame are ignored;
 * buffers without PTS continue the sample count (the first one after a
 * restart takes the end of what came before, else the segment start). A
 * timestamp more than 40 ms away from where the sample count puts it, and
 * a GAP event, restart the framing like a DISCONT (gpuspectrum: as
 * spectrum, only a DISCONT flag cuts, and a GAP or a new SEGMENT changes
 * nothing). A buffer that cannot be
 * read (non-interleaved without GstAudioMeta) passes through untouched with
 * a WARNING message, and the framing restarts after it.
 *
 * The element never talks to Vulkan itself: everything goes through the
 * gpufft engine (gpufft.h).
 *
 * Threads: the properties (the device ones here, the others in the
 * subclasses) take only the object lock; start, stop, setup, the events
 * and transform_ip run serialised with the streaming thread; results are
 * handed to the poster on the engine's completion thread and posted by
 * the posting threads, or, for gpuspectrum on a stream that is not live,
 * by the streaming thread before each buffer leaves
 * (gstgpufftbase-results.c).
 *
 * Files: this one is the class (device properties, GstBaseTransform entry
 * points, caps, start and stop); gstgpufftbase-input.c the input side of
 * transform_ip (mapping, segment, timing, the plan's wait);
 * gstgpufftbase-settings.c the settings shared with the subclasses'
 * properties; gstgpufftbase-plan.c the plan's life (its configuration,
 * the job that makes it, its installation and the wait for it);
 * gstgpufftbase-host.c the host handover (host start, host only);
 * gstgpufftbase-stream.c the streaming path (framing into batches, drops,
 * restarts and cuts); gstgpufftbase-results.c the result path (messages
 * from the engine's completion thread, drain, engine errors);
 * gstgpufftbase-private.h the instance's data, which only these files see;
 * gstgpufftmessage.c the message structures, gstgpufftpeak.c the sub-bin
 * peaks, gstgpufftframing.c the frame and interval bookkeeping,
 * gstgpufftstore.c the samples kept between buffers, gstgpufftbound.c the
 * bound on sample magnitudes. The subclasses: gstgpufftspectrum.c
 * (gpufftspectrum) and gstgpuspectrum.c (gpuspectrum: GStreamer's
 * spectrum, with the class flag that gives spectrum's messages).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstgpufftbase-private.h"
#include "gstgpufftallocator.h"
#include "gstgpufftdevice.h"
#include "gstgpuffthostbudget.h"


GST_DEBUG_CATEGORY (gst_gpu_fft_base_debug);
#define GST_CAT_DEFAULT gst_gpu_fft_base_debug

#define DEFAULT_DEVICE_INDEX -1
/* finalize: how long it waits for the engine's releases */
#define RELEASE_WAIT_MS 10000

/* The properties of both elements (the others are each element's own:
 * gstgpufftspectrum.c, gstgpuspectrum.c). */
enum
{
  PROP_0,
  PROP_DEVICE_INDEX,
  PROP_DEVICE_NAME
};

#define CAPS_STR \
  "audio/x-raw, " \
  "format = (string) { S16LE, S24LE, S32LE, F32LE, F64LE }, " \
  "rate = (int) [ 1, MAX ], " \
  "channels = (int) [ 1, " G_STRINGIFY (GPUFFT_MAX_CHANNELS) " ], " \
  "layout = (string) { interleaved, non-interleaved }"

#define gst_gpu_fft_base_parent_class parent_class
G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (GstGpuFftBase, gst_gpu_fft_base,
    GST_TYPE_AUDIO_FILTER);

static void gst_gpu_fft_base_set_property (GObject * object,
    guint prop_id, const GValue * value, GParamSpec * pspec);
static void gst_gpu_fft_base_get_property (GObject * object,
    guint prop_id, GValue * value, GParamSpec * pspec);
static void gst_gpu_fft_base_finalize (GObject * object);
static gboolean gst_gpu_fft_base_start (GstBaseTransform * trans);
static gboolean gst_gpu_fft_base_stop (GstBaseTransform * trans);
static GstFlowReturn gst_gpu_fft_base_submit_input_buffer
    (GstBaseTransform * trans, gboolean is_discont, GstBuffer * input);
static gboolean gst_gpu_fft_base_accept_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps);
static gboolean gst_gpu_fft_base_sink_event (GstBaseTransform * trans,
    GstEvent * event);
static gboolean gst_gpu_fft_base_setup (GstAudioFilter * filter,
    const GstAudioInfo * info);
static gboolean gst_gpu_fft_base_propose_allocation (GstBaseTransform *
    trans, GstQuery * decide_query, GstQuery * query);

/* ------------------------------------------------------------------------ */
/* class                                                                    */

/* PAUSED to READY: a streaming thread that waits for the element's
 * messages to be posted stops waiting (a synchronous bus handler that
 * stops the pipeline from the posting thread would otherwise wait for that
 * streaming thread), and one that waits for the plan (the pads'
 * deactivation takes the stream lock); READY to PAUSED: they wait again. */
static GstStateChangeReturn
gst_gpu_fft_base_change_state (GstElement * element, GstStateChange transition)
{
  GstGpuFftBase *self = GST_GPU_FFT_BASE (element);

  GstStateChangeReturn ret;

  if (transition == GST_STATE_CHANGE_PAUSED_TO_READY) {
    gst_gpu_fft_poster_set_stopping (self->priv->poster, TRUE);
    g_atomic_int_set (&self->priv->plan_wait_cancel, 1);
    g_atomic_int_set (&self->priv->plan_stop_cancel, 1);
  } else if (transition == GST_STATE_CHANGE_READY_TO_PAUSED) {
    gst_gpu_fft_poster_set_stopping (self->priv->poster, FALSE);
    g_atomic_int_set (&self->priv->plan_wait_cancel, 0);
    g_atomic_int_set (&self->priv->plan_stop_cancel, 0);
  }
  ret = GST_ELEMENT_CLASS (parent_class)->change_state (element, transition);
  if (ret == GST_STATE_CHANGE_FAILURE
      && transition == GST_STATE_CHANGE_PAUSED_TO_READY) {
    gst_gpu_fft_poster_set_stopping (self->priv->poster, FALSE);
    g_atomic_int_set (&self->priv->plan_wait_cancel, 0);
    g_atomic_int_set (&self->priv->plan_stop_cancel, 0);
  }
  return ret;
}

static void
gst_gpu_fft_base_class_init (GstGpuFftBaseClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstAudioFilterClass *filter_class = GST_AUDIO_FILTER_CLASS (klass);
  GstCaps *caps;

  GST_DEBUG_CATEGORY_INIT (gst_gpu_fft_base_debug, "gpufftspectrum", 0,
      "GPU (Vulkan) FFT spectrum analysers");

  gobject_class->set_property = gst_gpu_fft_base_set_property;
  gobject_class->get_property = gst_gpu_fft_base_get_property;
  gobject_class->finalize = gst_gpu_fft_base_finalize;

  g_object_class_install_property (gobject_class, PROP_DEVICE_INDEX,
      g_param_spec_int ("device-index", "Device index",
          "Vulkan device to use (-1 = automatic: discrete > integrated > "
          "virtual > CPU, opened at the first buffer, and not at all for a "
          "light live stream analysed on the host alone; 0 or more: that "
          "device, opened when the element starts); read when the element "
          "starts",
          -1, G_MAXINT, DEFAULT_DEVICE_INDEX,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_DEVICE_NAME,
      g_param_spec_string ("device-name", "Device name",
          "Name of the Vulkan device in use (NULL until it is chosen: the "
          "first buffer, or the start with a device-index; \""
          GST_GPU_FFT_HOST_DEVICE_NAME "\" for a live stream analysed "
          "on the host alone; read while the device is being opened, it "
          "waits for it)", NULL, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  caps = gst_caps_from_string (CAPS_STR);
  gst_audio_filter_class_add_pad_templates (filter_class, caps);
  gst_caps_unref (caps);

  element_class->change_state =
      GST_DEBUG_FUNCPTR (gst_gpu_fft_base_change_state);
  trans_class->start = GST_DEBUG_FUNCPTR (gst_gpu_fft_base_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_gpu_fft_base_stop);
  trans_class->sink_event = GST_DEBUG_FUNCPTR (gst_gpu_fft_base_sink_event);
  trans_class->accept_caps = GST_DEBUG_FUNCPTR (gst_gpu_fft_base_accept_caps);
  trans_class->submit_input_buffer =
      GST_DEBUG_FUNCPTR (gst_gpu_fft_base_submit_input_buffer);
  trans_class->transform_ip =
      GST_DEBUG_FUNCPTR (gst_gpu_fft_base_input_transform_ip);
  trans_class->propose_allocation =
      GST_DEBUG_FUNCPTR (gst_gpu_fft_base_propose_allocation);
  trans_class->passthrough_on_same_caps = TRUE;
  trans_class->transform_ip_on_passthrough = TRUE;
  filter_class->setup = GST_DEBUG_FUNCPTR (gst_gpu_fft_base_setup);

  gst_type_mark_as_plugin_api (GST_TYPE_GPU_FFT_BASE, 0);
}

/* (each element's own init then sets its settings' defaults) */
static void
gst_gpu_fft_base_init (GstGpuFftBase * self)
{
  self->priv = gst_gpu_fft_base_get_instance_private (self);
  self->priv->settings.device_index = DEFAULT_DEVICE_INDEX;
  self->priv->geometry_gen = 1;

  self->priv->base_pts = GST_CLOCK_TIME_NONE;
  self->priv->next_pts = GST_CLOCK_TIME_NONE;
  self->priv->is_live = -1;
  gst_gpu_fft_store_init (&self->priv->store, 2, 1, FALSE);
  self->priv->given_up_jobs = g_ptr_array_new ();
  self->priv->poster = gst_gpu_fft_poster_new (GST_ELEMENT (self),
      gst_gpu_fft_base_results_still_wanted);
}

static void
gst_gpu_fft_base_finalize (GObject * object)
{
  GstGpuFftBase *self = GST_GPU_FFT_BASE (object);

  if (self->priv->plan_job)
    gst_gpu_fft_plan_job_abandon (self->priv->plan_job,
        self->priv->given_up_jobs);
  if (self->priv->plan)
    gpufft_plan_free (self->priv->plan);
  g_slist_free_full (self->priv->retired_plans,
      (GDestroyNotify) gpufft_plan_free);
  g_clear_pointer (&self->priv->bands, gst_gpu_fft_bands_unref);
  gst_gpu_fft_device_close (self->priv->device);
  if (!gst_gpu_fft_plan_job_wait_given_up (self->priv->given_up_jobs,
          RELEASE_WAIT_MS))
    GST_WARNING_OBJECT (self, "the GPU's release did not finish within "
        "%u ms", RELEASE_WAIT_MS);
  g_ptr_array_unref (self->priv->given_up_jobs);
  gst_gpu_fft_poster_free (self->priv->poster);
  gst_gpu_fft_store_clear (&self->priv->store);
  g_free (self->priv->batch_groups);
  g_free (self->priv->engine_groups);
  g_free (self->priv->seg_planes);
  g_free (self->priv->in_planes);
  g_free (self->priv->device_name);
  gst_clear_object (&self->priv->allocator);
  g_clear_pointer (&self->priv->compat_starts, g_array_unref);
  g_free (self->priv->carry);
  g_free (self->priv->zeros);

  G_OBJECT_CLASS (parent_class)->finalize (object);
}

/* ------------------------------------------------------------------------ */
/* properties: only the object lock, never waiting on the streaming thread  */

static void
gst_gpu_fft_base_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstGpuFftBase *self = GST_GPU_FFT_BASE (object);

  switch (prop_id) {
    case PROP_DEVICE_INDEX:
      GST_OBJECT_LOCK (self);
      self->priv->settings.device_index = g_value_get_int (value);
      GST_OBJECT_UNLOCK (self);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
gst_gpu_fft_base_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstGpuFftBase *self = GST_GPU_FFT_BASE (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_DEVICE_INDEX:
      g_value_set_int (value, self->priv->settings.device_index);
      break;
    case PROP_DEVICE_NAME:{
      GstGpuFftDevice *device = self->priv->device
          && self->priv->device_name ==
          NULL ? gst_gpu_fft_device_ref (self->priv->device) : NULL;

      /* (the device is being opened: its name once it is, a wait of at
       * most the opening's) */
      if (device) {
        GST_OBJECT_UNLOCK (self);
        gst_gpu_fft_device_wait (device, NULL);
        gst_gpu_fft_device_unref (device);
        GST_OBJECT_LOCK (self);
      }
      /* (a stream analysed on the host alone opens no device, nor one on
       * a host lead until it asks for one) */
      g_value_set_string (value, self->priv->host_only
          || (self->priv->device == NULL
              && self->priv->host_lead != GST_GPU_FFT_LEAD_NONE) ?
          GST_GPU_FFT_HOST_DEVICE_NAME : self->priv->device_name);
      break;
    }
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

GpufftContext *
gst_gpu_fft_base_peek_context (GstGpuFftBase * self)
{
  /* (device is set and cleared by start/stop, under the object lock; not
   * in use on the host alone) */
  return self->priv->device && !self->priv->host_only ?
      gst_gpu_fft_device_peek (self->priv->device) : NULL;
}

void
gst_gpu_fft_base_get_counts (GstGpuFftBase * self,
    guint64 * dropped_intervals, guint64 * host_intervals,
    guint64 * dropped_messages)
{
  *dropped_intervals = self->priv->dropped_total;
  *host_intervals = self->priv->host_total;
  *dropped_messages = gst_gpu_fft_poster_get_dropped (self->priv->poster);
}

/* ------------------------------------------------------------------------ */
/* GstBaseTransform / GstAudioFilter                                        */

/* "gpufftspectrum" or "gpuspectrum", for messages */
static const gchar *
element_kind (GstGpuFftBase * self)
{
  return GST_GPU_FFT_BASE_GET_CLASS (self)->spectrum_compat ? "gpuspectrum" :
      "gpufftspectrum";
}

/* (on the device's opening thread: gstgpufftdevice.h) */
void
gst_gpu_fft_base_device_opened (GstElement * element, GpufftContext * ctx)
{
  GstGpuFftBase *self = GST_GPU_FFT_BASE (element);
  GstAllocator *allocator = NULL;
  gboolean ask_again;

  if (!GST_GPU_FFT_BASE_GET_CLASS (self)->spectrum_compat)
    allocator = gst_gpu_fft_allocator_new (ctx);
  GST_OBJECT_LOCK (self);
  g_free (self->priv->device_name);
  self->priv->device_name = g_strdup (gpufft_context_get_device_name (ctx));
  gst_clear_object (&self->priv->allocator);
  self->priv->allocator = allocator;
  ask_again = allocator && self->priv->allocation_unanswered;
  self->priv->allocation_unanswered = FALSE;
  GST_OBJECT_UNLOCK (self);
  /* (upstream allocates from the device's memory from its next query on) */
  if (ask_again) {
    GST_DEBUG_OBJECT (self, "the device is open: asking upstream to query "
        "the allocation again");
    gst_pad_push_event (GST_BASE_TRANSFORM_SINK_PAD (self),
        gst_event_new_reconfigure ());
  }
  GST_INFO_OBJECT (self, "using Vulkan device %d: %s",
      gpufft_context_get_device_index (ctx),
      gpufft_context_get_device_name (ctx));
  g_object_notify (G_OBJECT (self), "device-name");
}

static gboolean
gst_gpu_fft_base_start (GstBaseTransform * trans)
{
  GstGpuFftBase *self = GST_GPU_FFT_BASE (trans);
  GstGpuFftDevice *device;
  gint index;

  GST_OBJECT_LOCK (self);
  index = self->priv->settings.device_index;
  GST_OBJECT_UNLOCK (self);

  gst_gpu_fft_plan_job_prune (self->priv->given_up_jobs);
  /* (before the opening starts: it may set the name and the allocator at
   * once) */
  GST_OBJECT_LOCK (self);
  g_clear_pointer (&self->priv->device_name, g_free);
  gst_clear_object (&self->priv->allocator);
  self->priv->allocation_unanswered = FALSE;
  GST_OBJECT_UNLOCK (self);
  /* (opened beside the stream: the plan job waits for it. A device named
   * by its index is opened now; the automatic one when a plan job first
   * needs it, so that a stream analysed on the host alone opens none:
   * gstgpuffthostbudget.h) */
  device = NULL;
  if (index >= 0) {
    device = gst_gpu_fft_device_open (GST_ELEMENT (self), index,
        gst_gpu_fft_base_device_opened);
    if (device == NULL)
      return FALSE;
  }

  GST_OBJECT_LOCK (self);
  self->priv->device = device;  /* (under the lock for the stats property) */
  self->priv->dropped_total = 0;
  self->priv->host_total = 0;
  GST_OBJECT_UNLOCK (self);
  gst_gpu_fft_poster_start (self->priv->poster);

  self->priv->running = FALSE;
  self->priv->received = 0;
  self->priv->next_pts = GST_CLOCK_TIME_NONE;
  self->priv->bound_warned = FALSE;
  self->priv->frames_warned_ns = 0;
  self->priv->is_live = -1;
  self->priv->dropped_pending = 0;
  self->priv->drop_warned_at = 0;
  g_atomic_int_set (&self->priv->error_posted, 0);
  return TRUE;
}

static gboolean
gst_gpu_fft_base_stop (GstBaseTransform * trans)
{
  GstGpuFftBase *self = GST_GPU_FFT_BASE (trans);
  GstGpuFftDevice *device;

  if (self->priv->plan_job) {
    gst_gpu_fft_plan_job_abandon (self->priv->plan_job,
        self->priv->given_up_jobs);
    self->priv->plan_job = NULL;
  }
  self->priv->catching_up = FALSE;
  if (self->priv->plan) {
    gpufft_plan_free (self->priv->plan);
    self->priv->plan = NULL;
  }
  g_slist_free_full (self->priv->retired_plans,
      (GDestroyNotify) gpufft_plan_free);
  self->priv->retired_plans = NULL;
  self->priv->on_host = FALSE;
  self->priv->host_refused = FALSE;
  gst_gpu_fft_base_host_only_end (self);
  gst_gpu_fft_base_host_lead_set (self, GST_GPU_FFT_LEAD_NONE);
  self->priv->group_open = FALSE;
  /* no message of this run is posted after stop returns (the one being
   * posted is waited for, except on its own thread: a bus handler that
   * stops the pipeline) */
  gst_gpu_fft_poster_stop (self->priv->poster);
  self->priv->posts_sync = FALSE;
  gst_gpu_fft_poster_set_held (self->priv->poster, FALSE);
  g_clear_pointer (&self->priv->bands, gst_gpu_fft_bands_unref);
  GST_OBJECT_LOCK (self);
  device = self->priv->device;
  self->priv->device = NULL;
  GST_OBJECT_UNLOCK (self);
  gst_gpu_fft_device_close (device);
  /* (after the close, which returns at once while the opening thread is in
   * device_opened: start clears a late one again; memory still in buffers
   * keeps it) */
  GST_OBJECT_LOCK (self);
  gst_clear_object (&self->priv->allocator);
  self->priv->allocation_unanswered = FALSE;
  GST_OBJECT_UNLOCK (self);
  gst_gpu_fft_store_clear (&self->priv->store);
  self->priv->is_live = -1;
  self->priv->buffer_hint = 0;
  self->priv->running = FALSE;
  self->priv->received = 0;
  self->priv->compat_timed = FALSE;
  if (self->priv->compat_starts)
    g_array_set_size (self->priv->compat_starts, 0);
  self->priv->have_format = FALSE;
  self->priv->next_pts = GST_CLOCK_TIME_NONE;
  return TRUE;
}

static gboolean
gst_gpu_fft_base_setup (GstAudioFilter * filter, const GstAudioInfo * info)
{
  GstGpuFftBase *self = GST_GPU_FFT_BASE (filter);
  guint channels = GST_AUDIO_INFO_CHANNELS (info);
  GpufftFormat format;

  if (channels < 1 || channels > GPUFFT_MAX_CHANNELS) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("%u channels: %s handles at most %u", channels,
            element_kind (self), GPUFFT_MAX_CHANNELS), (NULL));
    return FALSE;
  }
  switch (GST_AUDIO_INFO_FORMAT (info)) {
    case GST_AUDIO_FORMAT_S16LE:
      format = GPUFFT_FORMAT_S16;
      break;
    case GST_AUDIO_FORMAT_S24LE:
      format = GPUFFT_FORMAT_S24;
      break;
    case GST_AUDIO_FORMAT_S32LE:
      format = GPUFFT_FORMAT_S32;
      break;
    case GST_AUDIO_FORMAT_F32LE:
      format = GPUFFT_FORMAT_F32;
      break;
    case GST_AUDIO_FORMAT_F64LE:
      format = GPUFFT_FORMAT_F64;
      break;
    default:
      GST_ELEMENT_ERROR (self, STREAM, FORMAT, (NULL),
          ("unsupported format %s",
              gst_audio_format_to_string (GST_AUDIO_INFO_FORMAT (info))));
      return FALSE;
  }

  /* the same caps again (an upstream that negotiated again after a
   * RECONFIGURE): nothing changes */
  if (self->priv->have_format
      && gst_audio_info_is_equal (info, &self->priv->info))
    return TRUE;

  /* new caps: the pending interval is posted with the old format, then
   * the framing restarts (a new plan is made if the format needs one);
   * gpuspectrum, as spectrum (which starts anew at new caps): the interval
   * the new caps cut short is not posted, the complete ones are */
  gst_gpu_fft_base_settings_read_live (self);
  if (self->priv->running) {
    gboolean ok;

    self->priv->discarding =
        GST_GPU_FFT_BASE_GET_CLASS (self)->spectrum_compat;
    ok = gst_gpu_fft_base_stream_flush_and_restart (self, FALSE);
    self->priv->discarding = FALSE;
    if (!ok)
      return FALSE;
  }
  if (!gst_gpu_fft_base_results_drain (self))
    return FALSE;
  self->priv->buffer_hint = 0;  /* sized again by the next buffer */

  GST_DEBUG_OBJECT (self, "format %s, %d Hz, %u channels, %s",
      gst_audio_format_to_string (GST_AUDIO_INFO_FORMAT (info)),
      GST_AUDIO_INFO_RATE (info), channels,
      GST_AUDIO_INFO_LAYOUT (info) == GST_AUDIO_LAYOUT_INTERLEAVED ?
      "interleaved" : "non-interleaved");
  self->priv->info = *info;
  self->priv->format = format;
  self->priv->have_format = TRUE;
  gst_gpu_fft_store_clear (&self->priv->store);
  gst_gpu_fft_store_init (&self->priv->store, GST_AUDIO_INFO_BPS (info),
      channels,
      GST_AUDIO_INFO_LAYOUT (info) == GST_AUDIO_LAYOUT_NON_INTERLEAVED);
  self->priv->seg_planes =
      g_renew (gconstpointer, self->priv->seg_planes, 3 * channels);
  self->priv->in_planes = g_renew (gpointer, self->priv->in_planes, channels);
  return TRUE;
}

/* Upstream's ALLOCATION query: downstream's answer (the buffers go on
 * there), with the device's allocator in it where downstream asks for no
 * memory of its own (no pool, and no allocator but the system memory's,
 * whose allocation parameters are kept), so that upstream writes its audio
 * where the device reads it (gstgpufftallocator.h). Before the device is
 * open there is none yet: it asks upstream to query again once it is
 * (device_opened). */
static gboolean
gst_gpu_fft_base_propose_allocation (GstBaseTransform * trans,
    GstQuery * decide_query, GstQuery * query)
{
  GstGpuFftBase *self = GST_GPU_FFT_BASE (trans);
  GstAllocator *allocator = NULL, *theirs = NULL;
  GstAllocationParams params;
  gboolean ret, replace = FALSE;

  ret = GST_BASE_TRANSFORM_CLASS (parent_class)->propose_allocation (trans,
      decide_query, query);
  if (GST_GPU_FFT_BASE_GET_CLASS (self)->spectrum_compat
      || gst_query_get_n_allocation_pools (query) > 0)
    return ret;
  gst_allocation_params_init (&params);
  if (gst_query_get_n_allocation_params (query) > 0) {
    gst_query_parse_nth_allocation_param (query, 0, &theirs, &params);
    replace = TRUE;
    if (theirs && g_strcmp0 (theirs->mem_type, GST_ALLOCATOR_SYSMEM) != 0) {
      gst_object_unref (theirs);
      return ret;
    }
    gst_clear_object (&theirs);
  }

  GST_OBJECT_LOCK (self);
  if (self->priv->allocator)
    allocator = gst_object_ref (self->priv->allocator);
  else
    self->priv->allocation_unanswered = TRUE;
  GST_OBJECT_UNLOCK (self);
  if (allocator == NULL)
    return ret;
  GST_DEBUG_OBJECT (self, "offering the device's allocator upstream");
  if (replace)
    gst_query_set_nth_allocation_param (query, 0, allocator, &params);
  else
    gst_query_add_allocation_param (query, allocator, &params);
  gst_object_unref (allocator);
  return TRUE;
}

/* GstAudioFilter clips buffers to the segment before the transform: an
 * analyser passes every buffer through untouched (transform_ip analyses
 * only what lies in the segment), so skip it for GstBaseTransform's. */
static GstFlowReturn
gst_gpu_fft_base_submit_input_buffer (GstBaseTransform * trans,
    gboolean is_discont, GstBuffer * input)
{
  GstBaseTransformClass *base =
      g_type_class_peek_static (GST_TYPE_BASE_TRANSFORM);

  return base->submit_input_buffer (trans, is_discont, input);
}

/* The template refuses more than GPUFFT_MAX_CHANNELS channels at
 * negotiation; say so, with the valid range, rather than leave only the
 * source's not-negotiated error. */
static gboolean
gst_gpu_fft_base_accept_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps)
{
  GstStructure *s = gst_caps_get_size (caps) == 1 ?
      gst_caps_get_structure (caps, 0) : NULL;
  gint channels;

  if (s && gst_structure_get_int (s, "channels", &channels)
      && channels > GPUFFT_MAX_CHANNELS) {
    GST_ELEMENT_WARNING (trans, STREAM, FORMAT,
        ("%d channels: %s handles 1 to %d channels", channels,
            element_kind (GST_GPU_FFT_BASE (trans)), GPUFFT_MAX_CHANNELS),
        ("caps %" GST_PTR_FORMAT, caps));
    return FALSE;
  }
  return GST_BASE_TRANSFORM_CLASS (parent_class)->accept_caps (trans,
      direction, caps);
}

static gboolean
gst_gpu_fft_base_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  GstGpuFftBase *self = GST_GPU_FFT_BASE (trans);

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_FLUSH_START:
      /* a streaming thread waiting for the messages or the plan lets go */
      gst_gpu_fft_poster_set_flushing (self->priv->poster, TRUE);
      g_atomic_int_set (&self->priv->plan_wait_cancel, 1);
      break;
    case GST_EVENT_EOS:
    case GST_EVENT_FLUSH_STOP:
      if (GST_EVENT_TYPE (event) == GST_EVENT_FLUSH_STOP)
        gst_gpu_fft_poster_set_flushing (self->priv->poster, FALSE);
      /* every interval's messages are posted before these go on (at a
       * FLUSH_STOP the wait is still cancelled: what waits for a plan
       * being made is let go, uncounted) */
      if (self->priv->running) {
        gst_gpu_fft_base_settings_read_live (self);
        /* (gpuspectrum, as spectrum: the interval the end or the flush
         * cuts short is not posted) */
        self->priv->discarding =
            GST_GPU_FFT_BASE_GET_CLASS (self)->spectrum_compat;
        gst_gpu_fft_base_stream_flush_and_restart (self, TRUE);
        self->priv->discarding = FALSE;
      }
      if (GST_EVENT_TYPE (event) == GST_EVENT_FLUSH_STOP)
        g_atomic_int_set (&self->priv->plan_wait_cancel, 0);
      gst_gpu_fft_base_results_drain (self);
      self->priv->next_pts = GST_CLOCK_TIME_NONE;
      break;
    case GST_EVENT_SEGMENT:
    case GST_EVENT_GAP:
      /* a new segment: before the base class takes it (the pending
       * interval is timed in the old one); a gap: no data for a while, no
       * frame may span it. gpuspectrum goes on over both, as spectrum
       * does (its messages take the buffers' timestamps). */
      if (self->priv->running
          && !GST_GPU_FFT_BASE_GET_CLASS (self)->spectrum_compat) {
        gst_gpu_fft_base_settings_read_live (self);
        gst_gpu_fft_base_stream_flush_and_restart (self, FALSE);
      }
      self->priv->next_pts = GST_CLOCK_TIME_NONE;
      break;
    default:
      break;
  }
  return GST_BASE_TRANSFORM_CLASS (parent_class)->sink_event (trans, event);
}
