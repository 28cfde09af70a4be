/* gpufft-watch: one stream's alarms, as pure state machines.
 *
 * Each alarm has a condition, evaluated on every reading, that is true,
 * false or unknown (a value not measured yet, or the stream down for the
 * alarms on its audio: unknown changes nothing). An alarm is raised once
 * its condition has held for the raise hold, and cleared once it has been
 * false for the clear hold:
 *
 * | alarm | condition | raise hold | clear hold |
 * | --- | --- | --- | --- |
 * | silence | every channel's RMS below silence-level | silence-hold | 0 |
 * | clipping | a channel's sample peak at or above clipping-level | 0 | clipping-hold |
 * | loudness | the measure (short-term or integrated) further than loudness-tolerance from loudness-target; -inf (nothing above the gates) is unknown | loudness-hold | 0 |
 * | stuck_tone | a dominant frequency (above 0 Hz) within tone-tolerance of where it was when the run began | tone-hold | 0 |
 * | down | no audio within down-hold (the reading's `up` is FALSE); unknown until down-hold has passed since the stream was added, or audio came | 0 | 0 |
 *
 * Holds count on the readings' monotonic times (mono_us), so a step of
 * the wall clock raises, clears or delays nothing; events carry the
 * readings' wall times. Nothing here reads a clock, so the machines are
 * tested with made-up readings. Not thread-safe: one
 * owner (the main thread). */
#ifndef __WATCH_ALARM_H__
#define __WATCH_ALARM_H__

#include <glib.h>
#include "watch-reading.h"
#include "watch-config.h"

G_BEGIN_DECLS

typedef enum
{
  WATCH_COND_FALSE,
  WATCH_COND_TRUE,
  WATCH_COND_UNKNOWN
} WatchCondition;

typedef struct
{
  gboolean active;
  gboolean cond;                /* the last known condition */
  gint64 since_us;              /* when it last changed */
} WatchAlarmState;

typedef struct
{
  WatchAlarmState state[WATCH_N_ALARMS];
  gdouble tone_ref_hz;
  gint64 start_us;
  gboolean ever_up;
} WatchAlarms;

/* @start_us: when the stream was added (the readings' mono_us clock) */
void watch_alarms_init (WatchAlarms * alarms, gint64 start_us);

/* One step of one machine at @now_us: returns +1 when it is raised now,
 * -1 when it is cleared now, 0 otherwise. Holds in seconds. */
gint watch_alarm_step (WatchAlarmState * st, WatchCondition cond,
    gint64 now_us, gdouble raise_hold_s, gdouble clear_hold_s);

/* Evaluates every alarm on @reading and appends a new WatchEvent (owned
 * by @events, which should free with watch_event_free) for each one
 * raised or cleared. A disabled alarm that is active is cleared. */
void watch_alarms_update (WatchAlarms * alarms,
    const WatchAlarmSettings * settings, const WatchReading * reading,
    GPtrArray * events);

G_END_DECLS
#endif /* __WATCH_ALARM_H__ */
