/* gpufft-watch: shards by FNV-1a 64 of the stream name (watch-shard.h). */
#include "watch-shard.h"

#include <string.h>

guint64
watch_shard_hash (const gchar * name)
{
  guint64 h = G_GUINT64_CONSTANT (14695981039346656037);
  const guchar *p;

  for (p = (const guchar *) name; *p != '\0'; p++) {
    h ^= *p;
    h *= G_GUINT64_CONSTANT (1099511628211);
  }
  return h;
}

gboolean
watch_shard_takes (const WatchShard * shard, const gchar * name)
{
  if (shard->count <= 1)
    return TRUE;
  return watch_shard_hash (name) % shard->count == shard->index;
}

gboolean
watch_shard_parse (const gchar * text, WatchShard * shard, GError ** error)
{
  guint64 i, n;
  gchar **parts = g_strsplit (text, "/", 3);
  gboolean ok = FALSE;

  if (g_strv_length (parts) == 2
      && g_ascii_string_to_unsigned (parts[0], 10, 0, WATCH_SHARD_MAX - 1, &i,
          NULL)
      && g_ascii_string_to_unsigned (parts[1], 10, 1, WATCH_SHARD_MAX, &n,
          NULL)
      && i < n) {
    shard->index = (guint) i;
    shard->count = (guint) n;
    ok = TRUE;
  } else {
    g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
        "--shard '%s': expected I/N with 0 <= I < N <= %d (e.g. 0/2)", text,
        WATCH_SHARD_MAX);
  }
  g_strfreev (parts);
  return ok;
}
