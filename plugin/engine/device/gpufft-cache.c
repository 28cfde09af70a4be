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

typedef struct
{
  Kind kind;
  gboolean ready;               /* made (under the cache's lock) */
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
  g_free (e);
}

/* How an entry is made (and, for constants, filled) on first use. */
typedef gboolean (*MakeFunc) (GpufftContext * ctx, Entry * e,
    gconstpointer args, GError ** error);

/* The context's cache (service GPUFFT_SERVICE_CACHE): GBytes key -> Entry,
 * under lock; cond: an entry was made (or given up). */
typedef struct
{
  GpufftContext *ctx;
  GMutex lock;
  GCond cond;
  GHashTable *entries;
} Cache;

static gpointer
cache_new (GpufftContext * ctx, gconstpointer data, GError ** error)
{
  Cache *c = g_new0 (Cache, 1);

  c->ctx = ctx;
  g_mutex_init (&c->lock);
  g_cond_init (&c->cond);
  c->entries = g_hash_table_new_full (g_bytes_hash, g_bytes_equal,
      (GDestroyNotify) g_bytes_unref, NULL);
  return c;
}

/* (context destruction: no plan is left) */
static void
cache_free (gpointer data)
{
  Cache *c = data;
  GHashTableIter it;
  gpointer value;

  g_hash_table_iter_init (&it, c->entries);
  while (g_hash_table_iter_next (&it, NULL, &value))
    entry_free (c->ctx, value);
  g_hash_table_destroy (c->entries);
  g_mutex_clear (&c->lock);
  g_cond_clear (&c->cond);
  g_free (c);
}

/* The entry for the key words[0..n_words), made by make (args) on first
 * use (*made set then), outside the cache's lock: a request for the same
 * key meanwhile waits for it, others go on (a pipeline compiled beside a
 * stream does not hold up another plan's). NULL with error set when making
 * it failed (nothing is kept then). */
static Entry *
cache_get (GpufftContext * ctx, const guint64 * words, gsize n_words,
    Kind kind, MakeFunc make, gconstpointer args, gboolean * made,
    GError ** error)
{
  Cache *c = gpufft_context_service (ctx, GPUFFT_SERVICE_CACHE, cache_new,
      cache_free, NULL, error);
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
    g_hash_table_insert (c->entries, g_bytes_ref (key), e);
    g_mutex_unlock (&c->lock);
    ok = make (ctx, e, args, error);
    g_mutex_lock (&c->lock);
    if (ok) {
      e->ready = TRUE;
      *made = TRUE;
    } else {
      g_hash_table_remove (c->entries, key);
      entry_free (ctx, e);
      e = NULL;
    }
    g_cond_broadcast (&c->cond);
  }
  g_mutex_unlock (&c->lock);
  g_bytes_unref (key);
  return e;
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
