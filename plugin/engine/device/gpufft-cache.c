/* The per-device cache: see gpufft-cache.h. */
#include <math.h>
#include <string.h>

#include "gpufft-cache.h"
#include "gpufft-bluestein.h"
#include "gpufft-command.h"
#include "gpufft-context-private.h"
#include "gpufft-pipeline-cache.h"
#include "gpufft-warmup.h"

typedef enum
{
  KIND_PIPELINE,
  KIND_WINDOW,
  KIND_TWIDDLES,
  KIND_CHIRP
} Kind;

/* Under the cache's lock, but for the object, which its maker fills
 * before `ready` and nobody changes after. */
typedef struct
{
  Kind kind;
  gboolean ready;               /* made */
  GBytes *key;
  guint64 serial;               /* gpufft_cache_serial () */
  guint users;                  /* references taken and not released */
  gsize bytes;                  /* what it holds (entry_bytes ()) */
  GList lru;                    /* in Cache.unused while users == 0 */
  GpufftPipeline pipeline;
  GpufftBuffer buffer;
} Entry;

static void
entry_free (GpufftContext * ctx, Entry * e)
{
  if (e->kind == KIND_PIPELINE)
    gpufft_pipeline_clear (&e->pipeline, ctx);
  else
    gpufft_buffer_clear (&e->buffer, ctx);
  g_bytes_unref (e->key);
  g_free (e);
}

/* The bytes an entry counts for: a buffer's size, a pipeline's estimate. */
static gsize
entry_bytes (const Entry * e)
{
  return e->kind == KIND_PIPELINE ? GPUFFT_CACHE_PIPELINE_BYTES :
      (gsize) e->buffer.size;
}

static gconstpointer
entry_object (Entry * e)
{
  return e->kind == KIND_PIPELINE ? (gconstpointer) & e->pipeline :
      (gconstpointer) & e->buffer;
}

/* How an entry is made (and, for constants, filled) on first use. */
typedef gboolean (*MakeFunc) (GpufftContext * ctx, Entry * e,
    gconstpointer args, GError ** error);

static void cache_free (gpointer data);

/* The context's cache (service GPUFFT_SERVICE_CACHE), under lock: GBytes
 * key -> Entry, and object -> Entry of the ready ones; cond: an entry was
 * made (or given up). */
typedef struct
{
  GpufftContext *ctx;
  GMutex lock;
  GCond cond;
  GHashTable *entries;
  GHashTable *objects;
  GQueue unused;                /* Entry.lru, most recently released first */
  gsize unused_bytes;           /* of the entries in `unused` */
  gsize max_bytes;              /* the limit of unused_bytes */
  guint64 next_serial, made, evicted;
} Cache;

/* GPUFFT_CACHE_MAX_BYTES, else GPUFFT_CACHE_MAX_BYTES_DEFAULT. */
static gsize
max_bytes_from_env (void)
{
  const gchar *v = g_getenv ("GPUFFT_CACHE_MAX_BYTES");
  gchar *end = NULL;
  guint64 b;

  if (v == NULL)
    return GPUFFT_CACHE_MAX_BYTES_DEFAULT;
  b = g_ascii_strtoull (v, &end, 10);
  if (end == v || *end != '\0' || v[0] == '-' || b > G_MAXSIZE) {
    g_warning ("gpufft: GPUFFT_CACHE_MAX_BYTES must be a number of bytes "
        "(0 to %" G_GSIZE_FORMAT "); the default, %u, is used",
        (gsize) G_MAXSIZE, GPUFFT_CACHE_MAX_BYTES_DEFAULT);
    return GPUFFT_CACHE_MAX_BYTES_DEFAULT;
  }
  return (gsize) b;
}

static gpointer
cache_new (GpufftContext * ctx, gconstpointer data, GError ** error)
{
  Cache *c = g_new0 (Cache, 1);

  c->ctx = ctx;
  g_mutex_init (&c->lock);
  g_cond_init (&c->cond);
  c->entries = g_hash_table_new (g_bytes_hash, g_bytes_equal);
  c->objects = g_hash_table_new (NULL, NULL);
  g_queue_init (&c->unused);
  c->max_bytes = max_bytes_from_env ();
  return c;
}

static Cache *
cache_of (GpufftContext * ctx, GError ** error)
{
  return gpufft_context_service (ctx, GPUFFT_SERVICE_CACHE, cache_new,
      cache_free, NULL, error);
}

/* (context destruction: no plan or renderer is left, so every entry is
 * unused) */
static void
cache_free (gpointer data)
{
  Cache *c = data;
  GHashTableIter it;
  gpointer value;

  g_hash_table_iter_init (&it, c->entries);
  while (g_hash_table_iter_next (&it, NULL, &value)) {
    if (((Entry *) value)->users > 0)
      g_warning ("gpufft: a cached object is still in use as its context "
          "is destroyed");
    entry_free (c->ctx, value);
  }
  g_hash_table_destroy (c->entries);
  g_hash_table_destroy (c->objects);
  g_mutex_clear (&c->lock);
  g_cond_clear (&c->cond);
  g_free (c);
}

/* Takes the unused entries beyond the limit, least recently used first,
 * out of the cache (lock held): they are to be freed (entry_free ()) once
 * the lock is released. */
static GSList *
cache_trim (Cache * c)
{
  GSList *gone = NULL;

  while (c->unused_bytes > c->max_bytes) {
    GList *l = g_queue_peek_tail_link (&c->unused);
    Entry *e = l->data;

    g_queue_unlink (&c->unused, l);
    c->unused_bytes -= e->bytes;
    g_hash_table_remove (c->entries, e->key);
    g_hash_table_remove (c->objects, entry_object (e));
    c->evicted++;
    gone = g_slist_prepend (gone, e);
  }
  return gone;
}

static void
free_entries (GpufftContext * ctx, GSList * gone)
{
  GSList *l;

  for (l = gone; l; l = l->next) {
    Entry *e = l->data;

    g_debug ("cache: %s of %" G_GSIZE_FORMAT " bytes evicted",
        e->kind == KIND_PIPELINE ? "pipeline" : "table", e->bytes);
    entry_free (ctx, e);
  }
  g_slist_free (gone);
}

/* The entry for the key words[0..n_words), with a reference taken, made by
 * make (args) on first use (*made set then), outside the cache's lock: a
 * request for the same key meanwhile waits for it, others go on (a
 * pipeline compiled beside a stream does not hold up another plan's).
 * NULL with error set when making it failed (nothing is kept then). */
static Entry *
cache_get (GpufftContext * ctx, const guint64 * words, gsize n_words,
    Kind kind, MakeFunc make, gconstpointer args, gboolean * made,
    GError ** error)
{
  Cache *c = cache_of (ctx, error);
  GBytes *key;
  Entry *e;

  if (c == NULL)
    return NULL;
  key = g_bytes_new (words, n_words * sizeof (guint64));
  g_mutex_lock (&c->lock);
  /* (being made by another thread: wait; given up there: make it here) */
  while ((e = g_hash_table_lookup (c->entries, key)) && !e->ready)
    g_cond_wait (&c->cond, &c->lock);
  if (e == NULL) {
    gboolean ok;

    e = g_new0 (Entry, 1);
    e->kind = kind;
    e->key = g_bytes_ref (key);
    e->lru.data = e;
    g_hash_table_insert (c->entries, e->key, e);
    g_mutex_unlock (&c->lock);
    ok = make (ctx, e, args, error);
    g_mutex_lock (&c->lock);
    if (ok) {
      e->ready = TRUE;
      e->serial = ++c->next_serial;
      e->bytes = entry_bytes (e);
      e->users = 1;
      g_hash_table_insert (c->objects, (gpointer) entry_object (e), e);
      c->made++;
      *made = TRUE;
    } else {
      g_hash_table_remove (c->entries, key);
      g_mutex_unlock (&c->lock);
      entry_free (ctx, e);
      g_mutex_lock (&c->lock);
      e = NULL;
    }
    g_cond_broadcast (&c->cond);
  } else {
    /* (unused until now: no longer to be evicted) */
    if (e->users++ == 0) {
      g_queue_unlink (&c->unused, &e->lru);
      c->unused_bytes -= e->bytes;
    }
  }
  g_mutex_unlock (&c->lock);
  g_bytes_unref (key);
  return e;
}

void
gpufft_cache_release (GpufftContext * ctx, gconstpointer object)
{
  Cache *c;
  Entry *e;
  GSList *gone = NULL;

  if (object == NULL)
    return;
  c = cache_of (ctx, NULL);
  g_return_if_fail (c != NULL);
  g_mutex_lock (&c->lock);
  e = g_hash_table_lookup (c->objects, object);
  if (e == NULL || e->users == 0) {
    g_mutex_unlock (&c->lock);
    g_critical ("gpufft_cache_release: %p is not a cached object in use",
        object);
    return;
  }
  if (--e->users == 0) {
    g_queue_push_head_link (&c->unused, &e->lru);
    c->unused_bytes += e->bytes;
    gone = cache_trim (c);
  }
  g_mutex_unlock (&c->lock);
  free_entries (ctx, gone);
}

guint64
gpufft_cache_serial (GpufftContext * ctx, gconstpointer object)
{
  Cache *c = cache_of (ctx, NULL);
  Entry *e;
  guint64 serial;

  g_return_val_if_fail (c != NULL && object != NULL, 0);
  g_mutex_lock (&c->lock);
  e = g_hash_table_lookup (c->objects, object);
  serial = e ? e->serial : 0;
  g_mutex_unlock (&c->lock);
  g_return_val_if_fail (serial != 0, 0);
  return serial;
}

void
gpufft_cache_stats (GpufftContext * ctx, GpufftCacheStats * stats)
{
  Cache *c = cache_of (ctx, NULL);
  GHashTableIter it;
  gpointer value;

  memset (stats, 0, sizeof (*stats));
  g_return_if_fail (c != NULL);
  g_mutex_lock (&c->lock);
  g_hash_table_iter_init (&it, c->objects);
  while (g_hash_table_iter_next (&it, NULL, &value)) {
    stats->entries++;
    stats->bytes += ((Entry *) value)->bytes;
  }
  stats->unused = c->unused.length;
  stats->unused_bytes = c->unused_bytes;
  stats->max_bytes = c->max_bytes;
  stats->made = c->made;
  stats->evicted = c->evicted;
  g_mutex_unlock (&c->lock);
}

typedef struct
{
  const guint32 *spirv;
  gsize spirv_bytes;
  guint n_buffers;
  const GpufftBindingKind *kinds;
  guint push_size, n_spec;
  const guint32 *spec_values;
} PipelineArgs;

static gboolean
make_pipeline (GpufftContext * ctx, Entry * e, gconstpointer args,
    GError ** error)
{
  const PipelineArgs *a = args;
  gint64 t0 = g_get_monotonic_time (), t1;

  if (!gpufft_pipeline_init (&e->pipeline, ctx, a->spirv, a->spirv_bytes,
          a->n_buffers, a->kinds, a->push_size, a->spec_values, a->n_spec,
          error))
    return FALSE;
  t1 = g_get_monotonic_time ();
  /* (CPU devices: compiled now, not in the first batch) */
  if (!gpufft_warmup_pipeline (ctx, &e->pipeline, error)) {
    gpufft_pipeline_clear (&e->pipeline, ctx);
    return FALSE;
  }
  g_debug ("pipeline of %" G_GSIZE_FORMAT " bytes of SPIR-V, %u constants: "
      "made in %.1f ms, warmed up in %.1f ms", a->spirv_bytes, a->n_spec,
      (t1 - t0) / 1e3, (g_get_monotonic_time () - t1) / 1e3);
  return TRUE;
}

const GpufftPipeline *
gpufft_cache_pipeline (GpufftContext * ctx, const guint32 * spirv,
    gsize spirv_bytes, guint n_buffers, const GpufftBindingKind * kinds,
    guint push_size, const guint32 * spec_values, guint n_spec, GError ** error)
{
  PipelineArgs args = { spirv, spirv_bytes, n_buffers, kinds, push_size,
    n_spec, spec_values
  };
  /* (the module's address identifies it: every module is embedded) */
  guint64 words[4 + 8 + GPUFFT_MAX_BINDINGS / 8];
  guint8 *kind_bytes = (guint8 *) (words + 12);
  gboolean made = FALSE;
  guint i;
  Entry *e;

  g_return_val_if_fail (n_spec <= 16, NULL);
  g_return_val_if_fail (n_buffers <= GPUFFT_MAX_BINDINGS, NULL);
  memset (words, 0, sizeof (words));
  words[0] = KIND_PIPELINE;
  words[1] = (guint64) (guintptr) spirv;
  words[2] = n_buffers | ((guint64) push_size << 32);
  words[3] = n_spec;
  memcpy (words + 4, spec_values, n_spec * sizeof (guint32));
  for (i = 0; kinds && i < n_buffers; i++)
    kind_bytes[i] = kinds[i];
  e = cache_get (ctx, words, G_N_ELEMENTS (words), KIND_PIPELINE,
      make_pipeline, &args, &made, error);
  /* (the file is written when the plan or renderer is made) */
  if (made)
    gpufft_pipeline_cache_made (ctx);
  return e ? &e->pipeline : NULL;
}

typedef struct
{
  Kind kind;
  GpufftWindow window;
  guint n;
} ConstantArgs;

/* Fills the window or twiddle table, computed in double. */
static gboolean
make_constants (GpufftContext * ctx, Entry * e, gconstpointer args,
    GError ** error)
{
  const ConstantArgs *a = args;
  guint l = a->kind == KIND_CHIRP ? gpufft_bluestein_length (a->n) : 0;
  gsize floats = a->kind == KIND_WINDOW ? a->n : 2 * ((gsize) a->n + l);
  gfloat *v = g_new (gfloat, floats);
  gboolean ok;
  guint i;

  if (a->kind == KIND_CHIRP) {
    gpufft_bluestein_fill (a->n, l, v);
  } else if (a->kind == KIND_WINDOW) {
    gdouble *w = g_new (gdouble, a->n);

    gpufft_window_fill (a->window, a->n, w);
    for (i = 0; i < a->n; i++)
      v[i] = (gfloat) w[i];
    g_free (w);
  } else {
    for (i = 0; i < a->n; i++) {
      /* the angle from the integer phase, in double */
      v[2 * i] = (gfloat) cos (2.0 * G_PI * i / a->n);
      v[2 * i + 1] = (gfloat) - sin (2.0 * G_PI * i / a->n);
    }
  }
  ok = gpufft_buffer_init (&e->buffer, ctx, floats * sizeof (gfloat),
      GPUFFT_MEMORY_DEVICE, error)
      && gpufft_buffer_upload (&e->buffer, ctx, v, floats * sizeof (gfloat),
      error);
  g_free (v);
  /* The views the CPU devices' kernels read them through (formats every
   * Vulkan device reads as uniform texel buffers; were one missing, a CPU
   * kernel's descriptor set would fail with an error naming the binding,
   * gpufft_descriptor_pool_alloc ()). */
  if (ok && a->kind != KIND_CHIRP) {
    GError *err = NULL;

    if (!gpufft_buffer_add_view (&e->buffer, ctx, a->kind == KIND_WINDOW ?
            GPUFFT_VIEW_F32X4 : GPUFFT_VIEW_F32X2, &err)) {
      g_debug ("no texel view of a constant table: %s", err->message);
      g_clear_error (&err);
    }
  }
  return ok;
}

/* The constant buffer of kind/window/n, made and filled on first use. */
static GpufftBuffer *
cache_constants (GpufftContext * ctx, Kind kind, GpufftWindow window,
    guint n, GError ** error)
{
  ConstantArgs args = { kind, window, n };
  guint64 words[3] = { kind, window, n };
  gboolean made = FALSE;
  Entry *e = cache_get (ctx, words, G_N_ELEMENTS (words), kind,
      make_constants, &args, &made, error);

  return e ? &e->buffer : NULL;
}

GpufftBuffer *
gpufft_cache_window (GpufftContext * ctx, GpufftWindow window, guint n,
    GError ** error)
{
  return cache_constants (ctx, KIND_WINDOW, window, n, error);
}

GpufftBuffer *
gpufft_cache_twiddles (GpufftContext * ctx, guint n, GError ** error)
{
  return cache_constants (ctx, KIND_TWIDDLES, 0, n, error);
}

GpufftBuffer *
gpufft_cache_chirp (GpufftContext * ctx, guint m, GError ** error)
{
  return cache_constants (ctx, KIND_CHIRP, 0, m, error);
}
