/* gpufft-watch: alarm state machines (watch-alarm.h). */
#include "watch-alarm.h"

#include <math.h>
#include <string.h>

void
watch_alarms_init (WatchAlarms * alarms, gint64 start_us)
{
  memset (alarms, 0, sizeof (*alarms));
  alarms->start_us = start_us;
}

gint
watch_alarm_step (WatchAlarmState * st, WatchCondition cond, gint64 now_us,
    gdouble raise_hold_s, gdouble clear_hold_s)
{
  gboolean c;

  if (cond == WATCH_COND_UNKNOWN)
    return 0;
  c = cond == WATCH_COND_TRUE;
  if (c != st->cond || st->since_us == 0) {
    st->cond = c;
    st->since_us = now_us;
  }
  if (c && !st->active
      && (gdouble) (now_us - st->since_us) >= raise_hold_s * 1e6) {
    st->active = TRUE;
    return 1;
  }
  if (!c && st->active
      && (gdouble) (now_us - st->since_us) >= clear_hold_s * 1e6) {
    st->active = FALSE;
    return -1;
  }
  return 0;
}

static WatchCondition
silence_cond (const WatchAlarmSettings * s, const WatchReading * r)
{
  guint c;

  if (!r->up || r->channels == 0)
    return WATCH_COND_UNKNOWN;
  for (c = 0; c < r->channels; c++) {
    if (isnan (r->rms_dbfs[c]))
      return WATCH_COND_UNKNOWN;
    if (r->rms_dbfs[c] >= s->silence_level_dbfs)
      return WATCH_COND_FALSE;
  }
  return WATCH_COND_TRUE;
}

static WatchCondition
clipping_cond (const WatchAlarmSettings * s, const WatchReading * r)
{
  guint c;
  gboolean known = FALSE;

  if (!r->up || r->channels == 0)
    return WATCH_COND_UNKNOWN;
  for (c = 0; c < r->channels; c++) {
    if (isnan (r->sample_peak_dbfs[c]))
      continue;
    known = TRUE;
    if (r->sample_peak_dbfs[c] >= s->clipping_level_dbfs)
      return WATCH_COND_TRUE;
  }
  return known ? WATCH_COND_FALSE : WATCH_COND_UNKNOWN;
}

static WatchCondition
loudness_cond (const WatchAlarmSettings * s, const WatchReading * r)
{
  gdouble v = s->loudness_measure == WATCH_LOUDNESS_SHORTTERM ?
      r->shortterm_lufs : r->integrated_lufs;

  if (!r->up || !isfinite (v))
    return WATCH_COND_UNKNOWN;
  return fabs (v - s->loudness_target_lufs) > s->loudness_tolerance_lu ?
      WATCH_COND_TRUE : WATCH_COND_FALSE;
}

static WatchCondition
tone_cond (WatchAlarms * a, const WatchAlarmSettings * s,
    const WatchReading * r)
{
  gdouble f = r->dominant_hz;

  if (!r->up || isnan (f))
    return WATCH_COND_UNKNOWN;
  if (!(f > 0)) {
    a->tone_ref_hz = 0;
    return WATCH_COND_FALSE;
  }
  if (a->tone_ref_hz > 0 && fabs (f - a->tone_ref_hz) <= s->tone_tolerance_hz)
    return WATCH_COND_TRUE;
  /* a new frequency: a run may begin here */
  a->tone_ref_hz = f;
  return WATCH_COND_FALSE;
}

static void
add_event (GPtrArray * events, const WatchReading * r, WatchAlarmKind kind,
    gboolean raised, const WatchAlarmSettings * s)
{
  WatchEvent *e = g_new0 (WatchEvent, 1);

  e->stream = g_strdup (r->stream);
  e->kind = kind;
  e->raised = raised;
  e->wall_us = r->wall_us;
  if (raised) {
    switch (kind) {
      case WATCH_ALARM_SILENCE:
        e->detail = g_strdup_printf ("every channel below %.1f dBFS RMS for"
            " %.1f s", s->silence_level_dbfs, s->silence_hold_s);
        break;
      case WATCH_ALARM_CLIPPING:
        e->detail = g_strdup_printf ("a sample at or above %.2f dBFS",
            s->clipping_level_dbfs);
        break;
      case WATCH_ALARM_LOUDNESS:
        e->detail = g_strdup_printf ("%s loudness %.1f LUFS outside %.1f "
            "+- %.1f LU for %.1f s",
            s->loudness_measure == WATCH_LOUDNESS_SHORTTERM ? "short-term" :
            "integrated", s->loudness_measure == WATCH_LOUDNESS_SHORTTERM ?
            r->shortterm_lufs : r->integrated_lufs, s->loudness_target_lufs,
            s->loudness_tolerance_lu, s->loudness_hold_s);
        break;
      case WATCH_ALARM_STUCK_TONE:
        e->detail = g_strdup_printf ("dominant frequency %.1f Hz for %.1f s",
            r->dominant_hz, s->tone_hold_s);
        break;
      case WATCH_ALARM_DOWN:
        e->detail = g_strdup_printf ("no audio for %.1f s", s->down_hold_s);
        break;
      default:
        break;
    }
  }
  g_ptr_array_add (events, e);
}

void
watch_alarms_update (WatchAlarms * a, const WatchAlarmSettings * s,
    const WatchReading * r, GPtrArray * events)
{
  WatchCondition cond[WATCH_N_ALARMS];
  gdouble raise[WATCH_N_ALARMS] = { s->silence_hold_s, 0, s->loudness_hold_s,
    s->tone_hold_s, 0
  };
  gdouble clear[WATCH_N_ALARMS] = { 0, s->clipping_hold_s, 0, 0, 0 };
  guint k;

  cond[WATCH_ALARM_SILENCE] = silence_cond (s, r);
  cond[WATCH_ALARM_CLIPPING] = clipping_cond (s, r);
  cond[WATCH_ALARM_LOUDNESS] = loudness_cond (s, r);
  cond[WATCH_ALARM_STUCK_TONE] = tone_cond (a, s, r);
  if (r->up)
    a->ever_up = TRUE;
  if (r->up)
    cond[WATCH_ALARM_DOWN] = WATCH_COND_FALSE;
  else if (!a->ever_up
      && (gdouble) (r->mono_us - a->start_us) < s->down_hold_s * 1e6)
    cond[WATCH_ALARM_DOWN] = WATCH_COND_UNKNOWN;
  else
    cond[WATCH_ALARM_DOWN] = WATCH_COND_TRUE;
  for (k = 0; k < WATCH_N_ALARMS; k++) {
    gint step;

    if (!s->enabled[k]) {
      cond[k] = WATCH_COND_FALSE;
      clear[k] = 0;
    }
    step = watch_alarm_step (&a->state[k], cond[k], r->mono_us, raise[k],
        clear[k]);
    if (step != 0)
      add_event (events, r, k, step > 0, s);
  }
}
