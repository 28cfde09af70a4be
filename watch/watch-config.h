/* gpufft-watch: the configuration, read from a GLib key file.
 *
 * Groups: [service] (the service's own settings), [defaults] (alarm
 * settings every stream inherits) and one [stream NAME] per stream, which
 * may override any [defaults] key. Every key is checked: an unknown group
 * or key, a value of the wrong type or outside its range, a stream without
 * a source or a source of an unknown kind is one error naming the group
 * and the key (GError domain WATCH_CONFIG_ERROR); nothing is half-read.
 *
 * Bounds: at most WATCH_CONFIG_MAX_STREAMS streams, names of at most
 * WATCH_CONFIG_MAX_NAME bytes of printable UTF-8, files of at most
 * WATCH_CONFIG_MAX_FILE bytes.
 *
 * Units: seconds for holds, dBFS for levels, LUFS for the loudness target,
 * LU for its tolerance, Hz for frequencies. A WatchConfig is plain data
 * owned by its creator (watch_config_free); used from the main thread. */
#ifndef __WATCH_CONFIG_H__
#define __WATCH_CONFIG_H__

#include <glib.h>
#include "watch-reading.h"

G_BEGIN_DECLS

#define WATCH_CONFIG_ERROR (watch_config_error_quark ())
GQuark watch_config_error_quark (void);

#define WATCH_CONFIG_MAX_STREAMS 4096
#define WATCH_CONFIG_MAX_NAME 200
#define WATCH_CONFIG_MAX_FILE (16 * 1024 * 1024)

typedef enum
{
  WATCH_SOURCE_URI,             /* file://, http(s)://, rtsp://, srt://, ... */
  WATCH_SOURCE_RTP,             /* rtp://HOST:PORT */
  WATCH_SOURCE_PULSE,           /* pulse:DEVICE */
  WATCH_SOURCE_ALSA,            /* alsa:DEVICE */
  WATCH_SOURCE_TEST             /* test: */
} WatchSourceKind;

typedef enum
{
  WATCH_RTP_L16,
  WATCH_RTP_L24,
  WATCH_RTP_OPUS
} WatchRtpEncoding;

typedef enum
{
  WATCH_LOUDNESS_SHORTTERM,
  WATCH_LOUDNESS_INTEGRATED
} WatchLoudnessMeasure;

typedef struct
{
  /* which alarms are on (index WatchAlarmKind) */
  gboolean enabled[WATCH_N_ALARMS];
  gdouble silence_level_dbfs;   /* every channel's RMS below it is silence */
  gdouble silence_hold_s;
  gdouble clipping_level_dbfs;  /* a sample peak at or above it clips */
  gdouble clipping_hold_s;      /* cleared after this long without */
  WatchLoudnessMeasure loudness_measure;
  gdouble loudness_target_lufs;
  gdouble loudness_tolerance_lu;
  gdouble loudness_hold_s;
  gdouble tone_tolerance_hz;    /* a dominant frequency staying within it */
  gdouble tone_hold_s;
  gdouble down_hold_s;          /* no audio this long: down */
} WatchAlarmSettings;

typedef struct
{
  gchar *name;
  gchar *source;                /* as written */
  WatchSourceKind kind;
  gchar *location;              /* URI, HOST (rtp), DEVICE or "" */
  guint port;                   /* rtp */
  WatchRtpEncoding rtp_encoding;
  guint rtp_payload;
  guint rate;                   /* rtp and test, Hz */
  guint channels;               /* rtp and test */
  guint rtp_latency_ms;
  gchar *test_wave;             /* audiotestsrc's wave nick */
  gdouble test_freq_hz;
  gdouble test_level_dbfs;      /* the sine's peak */
  gdouble test_on_s, test_off_s;        /* off > 0: sound and silence alternate */
  WatchAlarmSettings alarms;
} WatchStreamConfig;

typedef struct
{
  gchar *listen_host;
  guint listen_port;
  gint device_index;
  gdouble restart_max_s;        /* the restart backoff's bound */
  guint fft_size;               /* gpufftspectrum's, every stream's */
  gchar *log_dir;               /* NULL: no loudness log */
  gchar *events;                /* NULL: none; "-": stdout; else a path */
  gchar *mqtt_host;             /* NULL: no MQTT */
  guint mqtt_port;
  gchar *mqtt_topic;
  WatchAlarmSettings defaults;
  GPtrArray *streams;           /* WatchStreamConfig*, in file order */
} WatchConfig;

WatchConfig *watch_config_load_data (const gchar * data, gsize len,
    GError ** error);
WatchConfig *watch_config_load_file (const gchar * path, GError ** error);
void watch_config_free (WatchConfig * config);

const WatchStreamConfig *watch_config_find (const WatchConfig * config,
    const gchar * name);
WatchStreamConfig *watch_stream_config_copy (const WatchStreamConfig * s);
void watch_stream_config_free (WatchStreamConfig * s);
/* TRUE when two streams' settings (all but the name) are the same */
gboolean watch_stream_config_equal (const WatchStreamConfig * a,
    const WatchStreamConfig * b);

G_END_DECLS
#endif /* __WATCH_CONFIG_H__ */
