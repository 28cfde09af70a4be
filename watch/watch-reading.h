/* gpufft-watch: one stream's measurements at one moment (a reading) and
 * an alarm's change (an event), as the analysis hands them to the
 * outputs (metrics, JSON, loudness log, alarm events, MQTT).
 *
 * Plain data, owned by whoever holds it; copied with watch_reading_copy
 * and freed with watch_reading_free (any thread). Units: LUFS for
 * loudness, LU for the loudness range, dBTP for the true peak, dBFS for
 * sample peak and RMS, dB for band levels, Hz for frequencies,
 * microseconds since the epoch (g_get_real_time ()) for times, and of
 * g_get_monotonic_time () for durations. A value
 * not measured yet is NAN; silence in LUFS or dBFS is -INFINITY. */
#ifndef __WATCH_READING_H__
#define __WATCH_READING_H__

#include <glib.h>

G_BEGIN_DECLS

/* the most channels and bands a reading holds (the service refuses
 * streams with more channels; 1/3-octave bands from 20 Hz to 20 kHz are
 * 31) */
#define WATCH_MAX_CHANNELS 64
#define WATCH_MAX_BANDS 64

typedef struct
{
  gchar *stream;                /* the stream's name (its config group) */
  gint64 wall_us;               /* when it was taken */
  gint64 mono_us;               /* the same moment on the monotonic clock
                                 * (g_get_monotonic_time): holds count on
                                 * it, so a wall clock step moves none */
  gboolean up;                  /* audio arrived within the stream-down hold */
  guint channels;               /* of the values below; 0 while down */
  gdouble momentary_lufs;
  gdouble shortterm_lufs;
  gdouble integrated_lufs;
  gdouble lra_lu;
  gdouble true_peak_dbtp;       /* the largest of the channels' */
  gdouble sample_peak_dbfs[WATCH_MAX_CHANNELS];
  gdouble rms_dbfs[WATCH_MAX_CHANNELS];
  guint n_bands;
  gdouble band_hz[WATCH_MAX_BANDS];     /* nominal centre frequencies */
  gdouble band_db[WATCH_MAX_BANDS];
  gdouble dominant_hz;
  guint64 restarts;             /* of its source since the service started */
} WatchReading;

typedef enum
{
  WATCH_ALARM_SILENCE,
  WATCH_ALARM_CLIPPING,
  WATCH_ALARM_LOUDNESS,
  WATCH_ALARM_STUCK_TONE,
  WATCH_ALARM_DOWN,
  WATCH_N_ALARMS
} WatchAlarmKind;

typedef struct
{
  gchar *stream;
  WatchAlarmKind kind;
  gboolean raised;              /* TRUE raised, FALSE cleared */
  gint64 wall_us;
  gchar *detail;                /* a short text for people, may be NULL */
} WatchEvent;

/* "silence", "clipping", "loudness", "stuck_tone", "down" */
const gchar *watch_alarm_name (WatchAlarmKind kind);

WatchReading *watch_reading_copy (const WatchReading * r);
void watch_reading_free (WatchReading * r);
WatchEvent *watch_event_copy (const WatchEvent * e);
void watch_event_free (WatchEvent * e);

G_END_DECLS
#endif /* __WATCH_READING_H__ */
