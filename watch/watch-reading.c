/* gpufft-watch: readings and events (see watch-reading.h). */
#include "watch-reading.h"

static const gchar *const alarm_names[WATCH_N_ALARMS] = {
  "silence", "clipping", "loudness", "stuck_tone", "down"
};

const gchar *
watch_alarm_name (WatchAlarmKind kind)
{
  return (guint) kind < WATCH_N_ALARMS ? alarm_names[kind] : "unknown";
}

WatchReading *
watch_reading_copy (const WatchReading * r)
{
  WatchReading *c = g_memdup2 (r, sizeof (*r));

  c->stream = g_strdup (r->stream);
  return c;
}

void
watch_reading_free (WatchReading * r)
{
  if (r == NULL)
    return;
  g_free (r->stream);
  g_free (r);
}

WatchEvent *
watch_event_copy (const WatchEvent * e)
{
  WatchEvent *c = g_memdup2 (e, sizeof (*e));

  c->stream = g_strdup (e->stream);
  c->detail = g_strdup (e->detail);
  return c;
}

void
watch_event_free (WatchEvent * e)
{
  if (e == NULL)
    return;
  g_free (e->stream);
  g_free (e->detail);
  g_free (e);
}
