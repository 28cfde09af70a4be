/* gpufftspectrogram: audio in (the formats, rates and layouts of
 * gpufftspectrum), a spectrogram picture out (video/x-raw, 32-bit RGB
 * formats), rendered on a Vulkan device.
 *
 * Time: video frame f covers the audio samples [S(f), S(f+1)) counted from
 * the first sample after the start, a flush or a timestamp discontinuity,
 * S(f) = f rate fps_d / fps_n; it is pushed as soon as its last sample
 * came, with PTS t0 + f fps_d / fps_n s (t0 the PTS of sample 0) and that
 * duration. At EOS the samples after the last whole frame make one last,
 * shorter frame. Waterfall column j shows the spectrum centred on sample
 * j * column_hop (rate * time-span / columns, rounded): the mean power of
 * the analysis frames (fft-size long, frame_hop = min (column_hop,
 * fft-size (1 - overlap)) apart, the stream padded with fft-size / 2
 * samples at the start, the stream reflected through its first sample)
 * whose centres fall within half a column of it. A frame
 * shows every column complete by its end (the newest at the right edge).
 *
 * Levels: dB re a full-scale sine (a sine of amplitude A reads 20 log10 A
 * in its bin, or in its band on the octave axis); colour entry round (255
 * clamp ((v - min-db) / (max-db - min-db), 0, 1)) of the colour map.
 *
 * Negotiation: the video caps are fixated toward 1280x720 at 30/1 from
 * what downstream accepts, when the audio caps arrive and again whenever
 * downstream asks (RECONFIGURE): a new size rebuilds the picture. Caps
 * changing meanwhile are no error: caps refused right after they were
 * offered are asked for again (NEGOTIATE_ATTEMPTS in all), a flush
 * during the negotiation leaves it to the next buffer, and a frame that
 * downstream refuses while asking for new caps is dropped and the next
 * buffer negotiates again (MAX_REFUSALS frames in a row at most).
 * QoS: a frame already late is not composed nor pushed (its columns still
 * enter the waterfall).
 *
 * Threads: properties may be set from any thread (object lock); a change
 * takes effect at the next frame (geometry changes restart the picture).
 *
 * This file: properties, pads, caps negotiation and the buffer pool,
 * events, QoS, state changes. The streaming path (audio to frames, in
 * buffers of the pool negotiated here) is gstgpufftspectrogram-stream.c,
 * with the plan and renderer in gstgpufftspectrogram-state.c and the
 * audio FIFO in gstgpufftspectrogram-fifo.c;
 * gstgpufftspectrogram-private.h lists the element's files. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstgpufftspectrogram-private.h"
#include "gstgpufftdevice.h"

GST_DEBUG_CATEGORY (gst_gpu_fft_spectrogram_debug);
#define GST_CAT_DEFAULT gst_gpu_fft_spectrogram_debug

#define DEFAULT_MODE GST_GPU_FFT_SPECTROGRAM_MODE_WATERFALL
#define DEFAULT_AXIS GST_GPU_FFT_AXIS_LINEAR
#define DEFAULT_MIN_DB -100.0
#define DEFAULT_MAX_DB 0.0
#define DEFAULT_COLORMAP GST_GPU_FFT_COLORMAP_VIRIDIS
#define DEFAULT_WINDOW GST_GPU_FFT_WINDOW_HANN
#define DEFAULT_OVERLAP 0.5
#define DEFAULT_TIME_SPAN 10.0
#define DEFAULT_OCTAVE_FRACTION 3
#define DEFAULT_PEAK_FALL 20.0

/* caps refused right after downstream offered them: asked again this many
 * times in all before it is an error */
#define NEGOTIATE_ATTEMPTS 3
/* frames refused in a row by downstream that asks for new caps (each one
 * renegotiated with the next buffer) before NOT_NEGOTIATED goes upstream */
#define MAX_REFUSALS 16

enum
{
  PROP_0,
  PROP_MODE,
  PROP_FREQUENCY_AXIS,
  PROP_MIN_FREQUENCY,
  PROP_MAX_FREQUENCY,
  PROP_OCTAVE_FRACTION,
  PROP_MIN_DB,
  PROP_MAX_DB,
  PROP_COLORMAP,
  PROP_FFT_SIZE,
  PROP_WINDOW,
  PROP_OVERLAP,
  PROP_TIME_SPAN,
  PROP_AXES,
  PROP_TITLE,
  PROP_PEAK_FALL,
  PROP_DEVICE_INDEX,
  PROP_LAYOUT,
  PROP_STATS
};

#define SINK_CAPS \
  "audio/x-raw, " \
  "format = (string) { S16LE, S24LE, S32LE, F32LE, F64LE }, " \
  "rate = (int) [ 1, MAX ], " \
  "channels = (int) [ 1, " G_STRINGIFY (GPUFFT_MAX_CHANNELS) " ], " \
  "layout = (string) { interleaved, non-interleaved }"

#define SRC_CAPS \
  "video/x-raw, " \
  "format = (string) { RGBA, BGRA, RGBx, BGRx, ARGB, ABGR, xRGB, xBGR }, " \
  "width = (int) [ 16, 8192 ], height = (int) [ 16, 8192 ], " \
  "framerate = (fraction) [ 1/3600, 1000/1 ]"

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS (SINK_CAPS));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS (SRC_CAPS));

/* the element's own enum types (GstGpuFftSpectrogramMode, GstGpuFftAxis,
 * GstGpuFftColormap of gstgpufftlayout.h and gstgpufftcolormap.h) */
static GType gst_gpu_fft_spectrogram_mode_get_type (void);
#define GST_TYPE_GPU_FFT_SPECTROGRAM_MODE (gst_gpu_fft_spectrogram_mode_get_type ())
static GType gst_gpu_fft_spectrogram_axis_get_type (void);
#define GST_TYPE_GPU_FFT_SPECTROGRAM_AXIS (gst_gpu_fft_spectrogram_axis_get_type ())
static GType gst_gpu_fft_spectrogram_colormap_get_type (void);
#define GST_TYPE_GPU_FFT_SPECTROGRAM_COLORMAP (gst_gpu_fft_spectrogram_colormap_get_type ())

#define gst_gpu_fft_spectrogram_parent_class parent_class
G_DEFINE_TYPE (GstGpuFftSpectrogram, gst_gpu_fft_spectrogram, GST_TYPE_ELEMENT);
GST_ELEMENT_REGISTER_DEFINE (gpufftspectrogram, "gpufftspectrogram",
    GST_RANK_NONE, GST_TYPE_GPU_FFT_SPECTROGRAM);

static GType
gst_gpu_fft_spectrogram_mode_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_GPU_FFT_SPECTROGRAM_MODE_WATERFALL,
        "Scrolling spectrogram: time across, frequency up", "waterfall"},
    {GST_GPU_FFT_SPECTROGRAM_MODE_SPECTRUM,
          "The current spectrum (frequency across, level up) with peak hold",
        "spectrum"},
    {GST_GPU_FFT_SPECTROGRAM_MODE_BOTH,
        "Waterfall above, spectrum below", "both"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstGpuFftSpectrogramMode", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

static GType
gst_gpu_fft_spectrogram_axis_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_GPU_FFT_AXIS_LINEAR, "Linear in frequency", "linear"},
    {GST_GPU_FFT_AXIS_LOG, "Logarithmic in frequency", "log"},
    {GST_GPU_FFT_AXIS_MEL, "Mel scale (Slaney)", "mel"},
    {GST_GPU_FFT_AXIS_OCTAVE,
        "Fractional-octave bands (IEC 61260-1) on a log axis", "octave"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstGpuFftSpectrogramAxis", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

static GType
gst_gpu_fft_spectrogram_colormap_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_GPU_FFT_COLORMAP_VIRIDIS, "matplotlib's viridis", "viridis"},
    {GST_GPU_FFT_COLORMAP_MAGMA, "matplotlib's magma", "magma"},
    {GST_GPU_FFT_COLORMAP_INFERNO, "matplotlib's inferno", "inferno"},
    {GST_GPU_FFT_COLORMAP_GRAYSCALE, "Black to white", "grayscale"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstGpuFftSpectrogramColormap",
        values);
    g_once_init_leave (&type, t);
  }
  return type;
}

/* ---- properties --------------------------------------------------------- */

static void
gst_gpu_fft_spectrogram_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstGpuFftSpectrogram *self = GST_GPU_FFT_SPECTROGRAM (object);
  GstGpuFftSpectrogramSettings *s = &self->settings;
  gchar *warning = NULL;

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_MODE:
      s->mode = g_value_get_enum (value);
      break;
    case PROP_FREQUENCY_AXIS:
      s->axis = g_value_get_enum (value);
      break;
    case PROP_MIN_FREQUENCY:
      s->min_frequency = g_value_get_double (value);
      break;
    case PROP_MAX_FREQUENCY:
      s->max_frequency = g_value_get_double (value);
      break;
    case PROP_OCTAVE_FRACTION:
      if (gst_gpu_fft_bands_octave_fraction_valid (g_value_get_uint (value)))
        s->octave_fraction = g_value_get_uint (value);
      else
        warning = g_strdup_printf ("octave-fraction %u is not valid: use 1, "
            "2, 3, 6, 12 or 24", g_value_get_uint (value));
      break;
    case PROP_MIN_DB:
      s->min_db = g_value_get_double (value);
      break;
    case PROP_MAX_DB:
      s->max_db = g_value_get_double (value);
      break;
    case PROP_COLORMAP:
      s->colormap = g_value_get_enum (value);
      break;
    case PROP_FFT_SIZE:
      if (g_value_get_uint (value) == 0
          || gpufft_size_is_valid (g_value_get_uint (value)))
        s->fft_size = g_value_get_uint (value);
      else
        warning = g_strdup_printf ("fft-size %u is not valid: use 0 "
            "(automatic) or an even size from %u to %u",
            g_value_get_uint (value), GPUFFT_MIN_SIZE, GPUFFT_MAX_SIZE);
      break;
    case PROP_WINDOW:
      s->window = g_value_get_enum (value);
      break;
    case PROP_OVERLAP:
      s->overlap = g_value_get_double (value);
      break;
    case PROP_TIME_SPAN:
      s->time_span = g_value_get_double (value);
      break;
    case PROP_AXES:
      s->axes = g_value_get_boolean (value);
      break;
    case PROP_TITLE:
      g_free (s->title);
      s->title = g_value_dup_string (value);
      break;
    case PROP_PEAK_FALL:
      s->peak_fall = g_value_get_double (value);
      break;
    case PROP_DEVICE_INDEX:
      s->device_index = g_value_get_int (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  self->settings_cookie++;
  GST_OBJECT_UNLOCK (self);
  if (warning) {
    GST_WARNING_OBJECT (self, "%s", warning);
    g_warning ("gpufftspectrogram: %s", warning);
    g_free (warning);
  }
}

static GstStructure *
layout_structure (GstGpuFftSpectrogram * self)
{
  GstGpuFftSpectrogramInfo *i = &self->info;
  const GstGpuFftLayout *l = &i->layout;

  if (!i->valid)
    return gst_structure_new_empty ("layout");
  return gst_structure_new ("layout",
      "width", G_TYPE_UINT, l->width, "height", G_TYPE_UINT, l->height,
      "waterfall-x", G_TYPE_UINT, l->wf_x,
      "waterfall-y", G_TYPE_UINT, l->wf_y,
      "waterfall-width", G_TYPE_UINT, l->wf_w,
      "waterfall-height", G_TYPE_UINT, l->wf_h,
      "spectrum-x", G_TYPE_UINT, l->sp_x,
      "spectrum-y", G_TYPE_UINT, l->sp_y,
      "spectrum-width", G_TYPE_UINT, l->sp_w,
      "spectrum-height", G_TYPE_UINT, l->sp_h,
      "colorbar-x", G_TYPE_UINT, l->bar_x,
      "colorbar-width", G_TYPE_UINT, l->bar_w,
      "font-scale", G_TYPE_UINT, l->scale,
      "axes", G_TYPE_BOOLEAN, l->axes,
      "min-frequency", G_TYPE_DOUBLE, i->axis.f_lo,
      "max-frequency", G_TYPE_DOUBLE, i->axis.f_hi,
      "fft-size", G_TYPE_UINT, i->fft_size,
      "frame-hop", G_TYPE_UINT, i->frame_hop,
      "column-hop", G_TYPE_UINT, i->column_hop,
      "columns-per-second", G_TYPE_DOUBLE, i->rate / i->column_hop,
      "values", G_TYPE_UINT, i->n_values, NULL);
}

static void
gst_gpu_fft_spectrogram_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstGpuFftSpectrogram *self = GST_GPU_FFT_SPECTROGRAM (object);
  GstGpuFftSpectrogramSettings *s = &self->settings;

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_MODE:
      g_value_set_enum (value, s->mode);
      break;
    case PROP_FREQUENCY_AXIS:
      g_value_set_enum (value, s->axis);
      break;
    case PROP_MIN_FREQUENCY:
      g_value_set_double (value, s->min_frequency);
      break;
    case PROP_MAX_FREQUENCY:
      g_value_set_double (value, s->max_frequency);
      break;
    case PROP_OCTAVE_FRACTION:
      g_value_set_uint (value, s->octave_fraction);
      break;
    case PROP_MIN_DB:
      g_value_set_double (value, s->min_db);
      break;
    case PROP_MAX_DB:
      g_value_set_double (value, s->max_db);
      break;
    case PROP_COLORMAP:
      g_value_set_enum (value, s->colormap);
      break;
    case PROP_FFT_SIZE:
      g_value_set_uint (value, s->fft_size);
      break;
    case PROP_WINDOW:
      g_value_set_enum (value, s->window);
      break;
    case PROP_OVERLAP:
      g_value_set_double (value, s->overlap);
      break;
    case PROP_TIME_SPAN:
      g_value_set_double (value, s->time_span);
      break;
    case PROP_AXES:
      g_value_set_boolean (value, s->axes);
      break;
    case PROP_TITLE:
      g_value_set_string (value, s->title);
      break;
    case PROP_PEAK_FALL:
      g_value_set_double (value, s->peak_fall);
      break;
    case PROP_DEVICE_INDEX:
      g_value_set_int (value, s->device_index);
      break;
    case PROP_LAYOUT:
      g_value_take_boxed (value, layout_structure (self));
      break;
    case PROP_STATS:
      g_value_take_boxed (value, gst_structure_new ("stats",
              "rendered", G_TYPE_UINT64, self->frames_rendered,
              "dropped", G_TYPE_UINT64, self->frames_dropped,
              "device-written", G_TYPE_UINT64, self->frames_written,
              "fifo-peak-bytes", G_TYPE_UINT64, self->fifo_peak,
              "columns-peak", G_TYPE_UINT64, self->columns_peak, NULL));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

/* ---- negotiation and allocation ----------------------------------------- */

static gboolean
setup_pool (GstGpuFftSpectrogram * self, GstCaps * caps)
{
  GstQuery *query = gst_query_new_allocation (caps, TRUE);
  GstBufferPool *pool = NULL;
  GstStructure *config;
  guint size = GST_VIDEO_INFO_SIZE (&self->vinfo), min = 0, max = 0;

  if (gst_pad_peer_query (self->srcpad, query)
      && gst_query_get_n_allocation_pools (query) > 0) {
    gst_query_parse_nth_allocation_pool (query, 0, &pool, &size, &min, &max);
    size = MAX (size, GST_VIDEO_INFO_SIZE (&self->vinfo));
  }
  gst_query_unref (query);
  if (pool == NULL)
    pool = gst_video_buffer_pool_new ();
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, caps, size, min, max);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  if (!gst_buffer_pool_set_config (pool, config)) {
    /* the pool wants other parameters: take ours */
    gst_object_unref (pool);
    pool = gst_video_buffer_pool_new ();
    config = gst_buffer_pool_get_config (pool);
    gst_buffer_pool_config_set_params (config, caps,
        GST_VIDEO_INFO_SIZE (&self->vinfo), 0, 0);
    if (!gst_buffer_pool_set_config (pool, config)) {
      gst_object_unref (pool);
      return FALSE;
    }
  }
  if (self->pool) {
    /* its memory goes: the renderer must not keep imports of it */
    if (self->render)
      gpufft_render_forget_targets (self->render);
    gst_buffer_pool_set_active (self->pool, FALSE);
    gst_object_unref (self->pool);
  }
  self->pool = pool;
  return gst_buffer_pool_set_active (pool, TRUE);
}

/* Negotiates the video caps: OK, FLUSHING (the src pad is flushing: the
 * caps are set again after the flush, no error) or NOT_NEGOTIATED (an
 * error was posted). Caps that downstream refuses right after offering
 * them (they changed meanwhile) are asked for again, NEGOTIATE_ATTEMPTS
 * times in all. */
static GstFlowReturn
gst_gpu_fft_spectrogram_negotiate (GstGpuFftSpectrogram * self)
{
  GstCaps *templ, *caps;
  GstStructure *s;
  GstVideoInfo vinfo;
  gboolean size_changed;
  guint attempt = 0;

again:
  templ = gst_pad_get_pad_template_caps (self->srcpad);
  caps = gst_pad_peer_query_caps (self->srcpad, templ);
  gst_caps_unref (templ);
  if (gst_caps_is_empty (caps)) {
    gst_caps_unref (caps);
    if (GST_PAD_IS_FLUSHING (self->srcpad)) {
      gst_pad_mark_reconfigure (self->srcpad);
      return GST_FLOW_FLUSHING;
    }
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, (NULL),
        ("downstream takes none of %s", SRC_CAPS));
    return GST_FLOW_NOT_NEGOTIATED;
  }
  caps = gst_caps_truncate (caps);
  caps = gst_caps_make_writable (caps);
  s = gst_caps_get_structure (caps, 0);
  gst_structure_fixate_field_nearest_int (s, "width", 1280);
  gst_structure_fixate_field_nearest_int (s, "height", 720);
  gst_structure_fixate_field_nearest_fraction (s, "framerate", 30, 1);
  caps = gst_caps_fixate (caps);
  if (!gst_video_info_from_caps (&vinfo, caps)
      || GST_VIDEO_INFO_FPS_N (&vinfo) <= 0) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, (NULL),
        ("cannot use the caps %" GST_PTR_FORMAT
            " (a frame rate above 0 is needed)", caps));
    gst_caps_unref (caps);
    return GST_FLOW_NOT_NEGOTIATED;
  }
  size_changed = !self->have_video
      || GST_VIDEO_INFO_WIDTH (&vinfo) != GST_VIDEO_INFO_WIDTH (&self->vinfo)
      || GST_VIDEO_INFO_HEIGHT (&vinfo) != GST_VIDEO_INFO_HEIGHT (&self->vinfo)
      || GST_VIDEO_INFO_FORMAT (&vinfo) != GST_VIDEO_INFO_FORMAT (&self->vinfo)
      || GST_VIDEO_INFO_FPS_N (&vinfo) != GST_VIDEO_INFO_FPS_N (&self->vinfo)
      || GST_VIDEO_INFO_FPS_D (&vinfo) != GST_VIDEO_INFO_FPS_D (&self->vinfo);
  GST_INFO_OBJECT (self, "video caps %" GST_PTR_FORMAT, caps);
  if (!gst_pad_set_caps (self->srcpad, caps)) {
    gst_pad_mark_reconfigure (self->srcpad);
    if (GST_PAD_IS_FLUSHING (self->srcpad)) {
      /* (a flush, a seek's, started meanwhile) */
      GST_DEBUG_OBJECT (self, "flushing: the caps %" GST_PTR_FORMAT " are "
          "set again after the flush", caps);
      gst_caps_unref (caps);
      return GST_FLOW_FLUSHING;
    }
    if (++attempt < NEGOTIATE_ATTEMPTS) {
      GST_DEBUG_OBJECT (self, "the caps %" GST_PTR_FORMAT " were refused: "
          "asking downstream again", caps);
      gst_caps_unref (caps);
      goto again;
    }
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, (NULL),
        ("downstream refused the caps %" GST_PTR_FORMAT " it offered, %u "
            "times", caps, attempt));
    gst_caps_unref (caps);
    return GST_FLOW_NOT_NEGOTIATED;
  }
  if (size_changed && self->have_video)
    /* frames restart from the next sample: timing and picture anew */
    gst_gpu_fft_spectrogram_state_reset (self);
  self->vinfo = vinfo;
  self->have_video = TRUE;
  if (!setup_pool (self, caps)) {
    gst_caps_unref (caps);
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS, (NULL),
        ("could not set up a buffer pool"));
    return GST_FLOW_NOT_NEGOTIATED;
  }
  gst_caps_unref (caps);
  /* a new geometry: the picture is rebuilt */
  GST_OBJECT_LOCK (self);
  self->settings_cookie++;
  GST_OBJECT_UNLOCK (self);
  return GST_FLOW_OK;
}

/* A GAP's silence goes to the analysis in buffers of this size at most
 * (a whole frame at least) */
#define SILENCE_CHUNK_BYTES 65536

/* GAP: silence from ts for dur, so that the picture keeps moving */
static GstFlowReturn
gst_gpu_fft_spectrogram_push_silence (GstGpuFftSpectrogram * self,
    GstClockTime ts, GstClockTime dur)
{
  gint rate = GST_AUDIO_INFO_RATE (&self->ainfo);
  guint bpf = GST_AUDIO_INFO_BPF (&self->ainfo);
  guint64 n = gst_util_uint64_scale_round (dur, rate, GST_SECOND), done = 0;
  GstFlowReturn ret = GST_FLOW_OK;

  if (!self->have_video) {
    ret = gst_gpu_fft_spectrogram_negotiate (self);
    if (ret != GST_FLOW_OK)
      return ret;
  }
  /* at most an hour, in buffers of at most SILENCE_CHUNK_BYTES */
  n = MIN (n, (guint64) rate * 3600);
  while (ret == GST_FLOW_OK && done < n) {
    guint64 m = MIN (n - done, MAX (SILENCE_CHUNK_BYTES / bpf, 1));
    GstBuffer *buf = gst_buffer_new_allocate (NULL, m * bpf, NULL);

    gst_buffer_memset (buf, 0, 0, m * bpf);
    if (GST_AUDIO_INFO_LAYOUT (&self->ainfo) ==
        GST_AUDIO_LAYOUT_NON_INTERLEAVED)
      gst_buffer_add_audio_meta (buf, &self->ainfo, m, NULL);
    GST_BUFFER_PTS (buf) = ts + gst_util_uint64_scale_int (done, GST_SECOND,
        rate);
    ret = gst_gpu_fft_spectrogram_stream_push (self, buf);
    gst_buffer_unref (buf);
    done += m;
  }
  return ret;
}

/* ---- pads --------------------------------------------------------------- */

static gboolean
gst_gpu_fft_spectrogram_sink_event (GstPad * pad, GstObject * parent,
    GstEvent * event)
{
  GstGpuFftSpectrogram *self = GST_GPU_FFT_SPECTROGRAM (parent);

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_CAPS:{
      GstCaps *caps;
      GstAudioInfo info;

      gst_event_parse_caps (event, &caps);
      if (!gst_audio_info_from_caps (&info, caps)) {
        gst_event_unref (event);
        GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, (NULL),
            ("cannot use the audio caps %" GST_PTR_FORMAT, caps));
        return FALSE;
      }
      if (!self->have_audio || !gst_audio_info_is_equal (&info, &self->ainfo)) {
        if (self->have_audio)
          gst_gpu_fft_spectrogram_state_reset (self);
        self->ainfo = info;
        self->have_audio = TRUE;
        GST_OBJECT_LOCK (self);
        self->settings_cookie++;
        GST_OBJECT_UNLOCK (self);
      }
      gst_event_unref (event);
      if (!self->have_video || gst_pad_check_reconfigure (self->srcpad))
        return gst_gpu_fft_spectrogram_negotiate (self) == GST_FLOW_OK;
      return TRUE;
    }
    case GST_EVENT_SEGMENT:
      gst_event_copy_segment (event, &self->segment);
      if (self->segment.format != GST_FORMAT_TIME) {
        GST_ELEMENT_ERROR (self, STREAM, FORMAT, (NULL),
            ("a TIME segment is needed, got %s",
                gst_format_get_name (self->segment.format)));
        gst_event_unref (event);
        return FALSE;
      }
      return gst_pad_push_event (self->srcpad, event);
    case GST_EVENT_FLUSH_START:
      /* a streaming thread waiting for the plan lets go */
      g_atomic_int_set (&self->plan_wait_cancel, 1);
      return gst_pad_push_event (self->srcpad, event);
    case GST_EVENT_FLUSH_STOP:
      gst_gpu_fft_spectrogram_state_reset (self);
      g_atomic_int_set (&self->plan_wait_cancel, 0);
      GST_OBJECT_LOCK (self);
      self->qos_earliest = GST_CLOCK_TIME_NONE;
      GST_OBJECT_UNLOCK (self);
      return gst_pad_push_event (self->srcpad, event);
    case GST_EVENT_GAP:{
      GstClockTime ts, dur;

      /* no audio for a while: silence, so the picture keeps moving */
      gst_event_parse_gap (event, &ts, &dur);
      gst_event_unref (event);
      if (self->have_audio && GST_CLOCK_TIME_IS_VALID (ts)
          && GST_CLOCK_TIME_IS_VALID (dur))
        return gst_gpu_fft_spectrogram_push_silence (self, ts, dur) >=
            GST_FLOW_EOS;
      return TRUE;
    }
    case GST_EVENT_EOS:
      if (gst_gpu_fft_spectrogram_stream_eos (self) < GST_FLOW_EOS)
        GST_DEBUG_OBJECT (self, "the last frame could not be pushed");
      return gst_pad_push_event (self->srcpad, event);
    default:
      return gst_pad_event_default (pad, parent, event);
  }
}

static GstFlowReturn
gst_gpu_fft_spectrogram_chain (GstPad * pad, GstObject * parent,
    GstBuffer * buf)
{
  GstGpuFftSpectrogram *self = GST_GPU_FFT_SPECTROGRAM (parent);
  GstFlowReturn ret;
  guint64 rendered;

  if (!self->have_audio) {
    gst_buffer_unref (buf);
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, (NULL),
        ("a buffer came before the audio caps"));
    return GST_FLOW_NOT_NEGOTIATED;
  }
  if (!self->have_video || gst_pad_check_reconfigure (self->srcpad)) {
    ret = gst_gpu_fft_spectrogram_negotiate (self);
    if (ret != GST_FLOW_OK) {
      gst_buffer_unref (buf);
      gst_pad_mark_reconfigure (self->srcpad);
      return ret;
    }
  }
  GST_OBJECT_LOCK (self);
  rendered = self->frames_rendered;
  GST_OBJECT_UNLOCK (self);
  ret = gst_gpu_fft_spectrogram_stream_push (self, buf);
  gst_buffer_unref (buf);
  if (ret == GST_FLOW_NOT_NEGOTIATED && gst_pad_needs_reconfigure
      (self->srcpad) && self->refusals < MAX_REFUSALS) {
    /* downstream refused the caps and asks for others (its caps changed
     * since it offered them): the frame is lost, the next buffer
     * negotiates again */
    self->refusals++;
    GST_DEBUG_OBJECT (self, "downstream refused the caps (%u in a row): "
        "negotiating again", self->refusals);
    return GST_FLOW_OK;
  }
  GST_OBJECT_LOCK (self);
  if (self->frames_rendered > rendered)
    self->refusals = 0;
  GST_OBJECT_UNLOCK (self);
  return ret;
}

static gboolean
gst_gpu_fft_spectrogram_src_event (GstPad * pad, GstObject * parent,
    GstEvent * event)
{
  GstGpuFftSpectrogram *self = GST_GPU_FFT_SPECTROGRAM (parent);

  if (GST_EVENT_TYPE (event) == GST_EVENT_QOS) {
    gdouble proportion;
    GstClockTimeDiff diff;
    GstClockTime ts;

    gst_event_parse_qos (event, NULL, &proportion, &diff, &ts);
    GST_OBJECT_LOCK (self);
    self->qos_proportion = proportion;
    if (diff >= 0)
      self->qos_earliest = ts + 2 * diff;
    else
      self->qos_earliest = ts + diff;
    GST_OBJECT_UNLOCK (self);
  }
  return gst_pad_event_default (pad, parent, event);
}

static gboolean
gst_gpu_fft_spectrogram_src_query (GstPad * pad, GstObject * parent,
    GstQuery * query)
{
  GstGpuFftSpectrogram *self = GST_GPU_FFT_SPECTROGRAM (parent);

  if (GST_QUERY_TYPE (query) == GST_QUERY_LATENCY) {
    gboolean live;
    GstClockTime min, max, ours = 0;
    gint rate = GST_AUDIO_INFO_RATE (&self->ainfo);

    if (!gst_pad_peer_query (self->sinkpad, query))
      return FALSE;
    gst_query_parse_latency (query, &live, &min, &max);
    /* a frame waits for its last sample, a column for half an FFT more */
    if (self->have_video && GST_VIDEO_INFO_FPS_N (&self->vinfo) > 0)
      ours = gst_util_uint64_scale_int (GST_SECOND,
          GST_VIDEO_INFO_FPS_D (&self->vinfo),
          GST_VIDEO_INFO_FPS_N (&self->vinfo));
    if (rate > 0 && self->fft_size > 0)
      ours += gst_util_uint64_scale_int (GST_SECOND, self->fft_size / 2, rate);
    min += ours;
    if (GST_CLOCK_TIME_IS_VALID (max))
      max += ours;
    gst_query_set_latency (query, live, min, max);
    return TRUE;
  }
  return gst_pad_query_default (pad, parent, query);
}

/* ---- state -------------------------------------------------------------- */

/* (on the device's opening thread: gstgpufftdevice.h) */
static void
device_opened (GstElement * element, GpufftContext * ctx)
{
  GST_INFO_OBJECT (element, "using Vulkan device %d: %s",
      gpufft_context_get_device_index (ctx),
      gpufft_context_get_device_name (ctx));
}

/* Starts opening the device (beside the stream: the plan job waits for
 * it). */
static gboolean
open_device (GstGpuFftSpectrogram * self)
{
  gint index;

  GST_OBJECT_LOCK (self);
  index = self->settings.device_index;
  GST_OBJECT_UNLOCK (self);
  self->device = gst_gpu_fft_device_open (GST_ELEMENT (self), index,
      device_opened);
  return self->device != NULL;
}

static GstStateChangeReturn
gst_gpu_fft_spectrogram_change_state (GstElement * element,
    GstStateChange transition)
{
  GstGpuFftSpectrogram *self = GST_GPU_FFT_SPECTROGRAM (element);
  GstStateChangeReturn ret;

  if (transition == GST_STATE_CHANGE_PAUSED_TO_READY)
    /* (the pads' deactivation takes the stream lock) */
    g_atomic_int_set (&self->plan_wait_cancel, 1);
  if (transition == GST_STATE_CHANGE_READY_TO_PAUSED) {
    g_atomic_int_set (&self->plan_wait_cancel, 0);
    if (!open_device (self))
      return GST_STATE_CHANGE_FAILURE;
    gst_segment_init (&self->segment, GST_FORMAT_TIME);
    self->is_live = -1;
    self->refusals = 0;
    self->have_audio = FALSE;
    self->have_video = FALSE;
    GST_OBJECT_LOCK (self);
    self->qos_earliest = GST_CLOCK_TIME_NONE;
    self->frames_rendered = self->frames_dropped = self->frames_written = 0;
    self->fifo_peak = self->columns_peak = 0;
    GST_OBJECT_UNLOCK (self);
  }
  ret = GST_ELEMENT_CLASS (parent_class)->change_state (element, transition);
  if (ret == GST_STATE_CHANGE_FAILURE
      && transition == GST_STATE_CHANGE_PAUSED_TO_READY)
    g_atomic_int_set (&self->plan_wait_cancel, 0);
  if (ret == GST_STATE_CHANGE_FAILURE
      && transition == GST_STATE_CHANGE_READY_TO_PAUSED)
    g_clear_pointer (&self->device, gst_gpu_fft_device_close);
  if (transition == GST_STATE_CHANGE_PAUSED_TO_READY) {
    gst_gpu_fft_spectrogram_state_free (self);
    if (self->pool) {
      gst_buffer_pool_set_active (self->pool, FALSE);
      gst_clear_object (&self->pool);
    }
    g_clear_pointer (&self->device, gst_gpu_fft_device_close);
    self->have_audio = FALSE;
    self->have_video = FALSE;
  }
  return ret;
}

static void
gst_gpu_fft_spectrogram_finalize (GObject * object)
{
  GstGpuFftSpectrogram *self = GST_GPU_FFT_SPECTROGRAM (object);

  gst_gpu_fft_spectrogram_state_free (self);
  g_clear_pointer (&self->device, gst_gpu_fft_device_close);
  /* (no thread of the engine's keeps using the device after the element) */
  if (!gst_gpu_fft_spectrogram_state_wait_released (self, 10000))
    GST_WARNING_OBJECT (self, "the GPU's release did not finish within "
        "10 s");
  g_free (self->settings.title);
  g_free (self->cur.title);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_gpu_fft_spectrogram_init (GstGpuFftSpectrogram * self)
{
  GstGpuFftSpectrogramSettings *s = &self->settings;

  self->sinkpad = gst_pad_new_from_static_template (&sink_template, "sink");
  gst_pad_set_chain_function (self->sinkpad, gst_gpu_fft_spectrogram_chain);
  gst_pad_set_event_function (self->sinkpad,
      gst_gpu_fft_spectrogram_sink_event);
  gst_element_add_pad (GST_ELEMENT (self), self->sinkpad);
  self->srcpad = gst_pad_new_from_static_template (&src_template, "src");
  gst_pad_set_event_function (self->srcpad, gst_gpu_fft_spectrogram_src_event);
  gst_pad_set_query_function (self->srcpad, gst_gpu_fft_spectrogram_src_query);
  gst_pad_use_fixed_caps (self->srcpad);
  gst_element_add_pad (GST_ELEMENT (self), self->srcpad);

  s->mode = DEFAULT_MODE;
  s->axis = DEFAULT_AXIS;
  s->octave_fraction = DEFAULT_OCTAVE_FRACTION;
  s->min_db = DEFAULT_MIN_DB;
  s->max_db = DEFAULT_MAX_DB;
  s->colormap = DEFAULT_COLORMAP;
  s->window = DEFAULT_WINDOW;
  s->overlap = DEFAULT_OVERLAP;
  s->time_span = DEFAULT_TIME_SPAN;
  s->axes = TRUE;
  s->peak_fall = DEFAULT_PEAK_FALL;
  s->device_index = -1;
  self->qos_earliest = GST_CLOCK_TIME_NONE;
  self->settings_cookie = 1;
  self->t0 = GST_CLOCK_TIME_NONE;
  gst_segment_init (&self->segment, GST_FORMAT_TIME);
}

static void
gst_gpu_fft_spectrogram_class_init (GstGpuFftSpectrogramClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_PLAYING;

  GST_DEBUG_CATEGORY_INIT (gst_gpu_fft_spectrogram_debug,
      "gpufftspectrogram", 0, "GPU spectrogram video");

  gobject_class->set_property = gst_gpu_fft_spectrogram_set_property;
  gobject_class->get_property = gst_gpu_fft_spectrogram_get_property;
  gobject_class->finalize = gst_gpu_fft_spectrogram_finalize;
  element_class->change_state = gst_gpu_fft_spectrogram_change_state;

  g_object_class_install_property (gobject_class, PROP_MODE,
      g_param_spec_enum ("mode", "Mode", "What is drawn",
          GST_TYPE_GPU_FFT_SPECTROGRAM_MODE, DEFAULT_MODE, rw));
  g_object_class_install_property (gobject_class, PROP_FREQUENCY_AXIS,
      g_param_spec_enum ("frequency-axis", "Frequency axis",
          "How frequency maps to the picture",
          GST_TYPE_GPU_FFT_SPECTROGRAM_AXIS, DEFAULT_AXIS, rw));
  g_object_class_install_property (gobject_class, PROP_MIN_FREQUENCY,
      g_param_spec_double ("min-frequency", "Minimum frequency",
          "Lowest frequency shown in Hz (0: 0 Hz on linear and mel, 20 Hz "
          "on log and octave)", 0, G_MAXDOUBLE, 0, rw));
  g_object_class_install_property (gobject_class, PROP_MAX_FREQUENCY,
      g_param_spec_double ("max-frequency", "Maximum frequency",
          "Highest frequency shown in Hz (0 or above rate/2: rate/2)", 0,
          G_MAXDOUBLE, 0, rw));
  g_object_class_install_property (gobject_class, PROP_OCTAVE_FRACTION,
      g_param_spec_uint ("octave-fraction", "Octave fraction",
          "Bands per octave on the octave axis (1, 2, 3, 6, 12, 24)", 1, 24,
          DEFAULT_OCTAVE_FRACTION, rw));
  g_object_class_install_property (gobject_class, PROP_MIN_DB,
      g_param_spec_double ("min-db", "Minimum dB",
          "Level at the bottom of the colour map (dB re a full-scale sine)",
          -400, 400, DEFAULT_MIN_DB, rw));
  g_object_class_install_property (gobject_class, PROP_MAX_DB,
      g_param_spec_double ("max-db", "Maximum dB",
          "Level at the top of the colour map (dB re a full-scale sine)",
          -400, 400, DEFAULT_MAX_DB, rw));
  g_object_class_install_property (gobject_class, PROP_COLORMAP,
      g_param_spec_enum ("colormap", "Colour map", "Colours of the levels",
          GST_TYPE_GPU_FFT_SPECTROGRAM_COLORMAP, DEFAULT_COLORMAP, rw));
  g_object_class_install_property (gobject_class, PROP_FFT_SIZE,
      g_param_spec_uint ("fft-size", "FFT size",
          "Samples per analysis frame (0: from the plot's height)", 0,
          GPUFFT_MAX_SIZE, 0, rw));
  g_object_class_install_property (gobject_class, PROP_WINDOW,
      g_param_spec_enum ("window", "Window", "Window function",
          GST_TYPE_GPU_FFT_WINDOW, DEFAULT_WINDOW, rw));
  g_object_class_install_property (gobject_class, PROP_OVERLAP,
      g_param_spec_double ("overlap", "Overlap",
          "Least overlap of successive analysis frames (they overlap more "
          "when the columns are closer)", 0, 0.95, DEFAULT_OVERLAP, rw));
  g_object_class_install_property (gobject_class, PROP_TIME_SPAN,
      g_param_spec_double ("time-span", "Time span",
          "Seconds of audio across the waterfall", 0.001, 1e7,
          DEFAULT_TIME_SPAN, rw));
  g_object_class_install_property (gobject_class, PROP_AXES,
      g_param_spec_boolean ("axes", "Axes",
          "Draw the axes, labels, colour bar and title", TRUE, rw));
  g_object_class_install_property (gobject_class, PROP_TITLE,
      g_param_spec_string ("title", "Title", "Title above the picture",
          NULL, rw));
  g_object_class_install_property (gobject_class, PROP_PEAK_FALL,
      g_param_spec_double ("peak-fall", "Peak fall",
          "How fast the spectrum's peak-hold trace falls, dB per second", 0,
          1e6, DEFAULT_PEAK_FALL, rw));
  g_object_class_install_property (gobject_class, PROP_DEVICE_INDEX,
      g_param_spec_int ("device-index", "Device index",
          "Vulkan device (-1: automatic)", -1, G_MAXINT, -1,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_LAYOUT,
      g_param_spec_boxed ("layout", "Layout",
          "Where the plots are and the analysis in use (empty before the "
          "first frame)", GST_TYPE_STRUCTURE,
          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_STATS,
      g_param_spec_boxed ("stats", "Statistics",
          "Frames rendered, dropped (QoS) and written by the device straight "
          "into the output buffer; the most bytes of audio and the most "
          "columns held (fifo-peak-bytes, columns-peak)", GST_TYPE_STRUCTURE,
          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "GPU spectrogram", "Visualization",
      "Draws a waterfall spectrogram and spectrum with axes on a Vulkan "
      "device", "gst-gpufft");
}
