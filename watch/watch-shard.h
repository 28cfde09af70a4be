/* gpufft-watch: which streams a shard takes.
 *
 * A stream belongs to shard I of N when FNV-1a 64 of its name's UTF-8
 * bytes, modulo N, is I (offset basis 14695981039346656037, prime
 * 1099511628211, arithmetic modulo 2^64). The hash depends on nothing but
 * the name, so every host running `--shard I/N` with one config agrees.
 * Pure functions, any thread. */
#ifndef __WATCH_SHARD_H__
#define __WATCH_SHARD_H__

#include <glib.h>

G_BEGIN_DECLS

typedef struct
{
  guint index;                  /* I, 0 .. count-1 */
  guint count;                  /* N, 1 .. WATCH_SHARD_MAX */
} WatchShard;

#define WATCH_SHARD_MAX 65536

guint64 watch_shard_hash (const gchar * name);
/* TRUE when @name belongs to @shard (always TRUE with count 1) */
gboolean watch_shard_takes (const WatchShard * shard, const gchar * name);
/* parses "I/N" (decimal, 0 <= I < N <= WATCH_SHARD_MAX) */
gboolean watch_shard_parse (const gchar * text, WatchShard * shard,
    GError ** error);

G_END_DECLS
#endif /* __WATCH_SHARD_H__ */
