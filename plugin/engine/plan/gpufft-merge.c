/* Shared dispatches: see gpufft-merge.h. */
#include <string.h>

#include "gpufft-merge.h"
#include "gpufft-plan-private.h"
#include "gpufft-cache.h"
#include "gpufft-vk-error.h"

#define MERGE_INPUT_BYTES (16u << 20)
#define MERGE_PARTIAL_BYTES (16u << 20)
#define MERGE_CHUNKS 16384      /* chunk table entries per record */
#define MERGE_GEOMETRIES 64     /* geometries with descriptor sets */
#define MERGE_ALIGN 16          /* floats: start of a dispatch's rows */
#define NONE G_MAXUINT

/* The descriptor sets of one geometry's shared dispatch, per record. The
 * geometry is known by its cached objects' serials (gpufft_cache_serial ()):
 * an object the cache destroyed once no plan used it may leave its address
 * to another, never its serial. */
typedef struct
{
  guint64 fft, window, twiddles;
  VkDescriptorSet *sets;        /* [n_records], made on first use */
} Geometry;

/* One shared dispatch of the current round. */
typedef struct
{
  GpufftSlot *first;            /* the geometry's first slot (the key) */
  guint n_slots;                /* slots of this geometry in the round */
  VkDescriptorSet set;          /* VK_NULL_HANDLE: not dispatched */
  FftParams fp;                 /* with chunk_base, partial_base */
  guint n_chunks;
} Group;

struct _GpufftMerge
{
  GpufftContext *ctx;
  guint n_records;
  GpufftBuffer input, partial, dummy;
  GpufftBuffer *tables;         /* [n_records] uvec4 per chunk */
  /* [n_records] the same in device memory, which the kernels read (NULL
   * buffers where the host tables are device-local already) */
  GpufftBuffer *tables_dev;
  GpufftDescriptorPool pool;
  GArray *geometries;           /* Geometry */
  GArray *groups;               /* Group, the current round's */
  GArray *member;               /* guint per slot of the round: its group */
  GPtrArray *round_slots;       /* GpufftSlot *, the current round's */
  guint record;
  guint table_used;             /* entries of the record's table */
  guint round_first;            /* the current round's first entry */
  guint64 dispatches;
};

static void merge_free (gpointer data);

static gpointer
merge_new (GpufftContext * ctx, guint n_records, GError ** error)
{
  GpufftMerge *m = g_new0 (GpufftMerge, 1);
  guint i;

  m->ctx = ctx;
  m->n_records = n_records;
  m->tables = g_new0 (GpufftBuffer, n_records);
  m->tables_dev = g_new0 (GpufftBuffer, n_records);
  m->geometries = g_array_new (FALSE, TRUE, sizeof (Geometry));
  m->groups = g_array_new (FALSE, TRUE, sizeof (Group));
  m->member = g_array_new (FALSE, TRUE, sizeof (guint));
  m->round_slots = g_ptr_array_new ();
  if (!gpufft_buffer_init (&m->input, ctx, MERGE_INPUT_BYTES,
          GPUFFT_MEMORY_DEVICE, error)
      || !gpufft_buffer_init (&m->partial, ctx, MERGE_PARTIAL_BYTES,
          GPUFFT_MEMORY_DEVICE, error)
      || !gpufft_buffer_init (&m->dummy, ctx, 16, GPUFFT_MEMORY_DEVICE, error)
      || !gpufft_descriptor_pool_init (&m->pool, ctx,
          MERGE_GEOMETRIES * n_records, 9, error)) {
    merge_free (m);
    return NULL;
  }
  for (i = 0; i < n_records; i++)
    if (!gpufft_buffer_init (&m->tables[i], ctx,
            (gsize) MERGE_CHUNKS * 4 * sizeof (guint32), GPUFFT_MEMORY_UPLOAD,
            error)
        || (gpufft_buffer_wants_device_copy (&m->tables[i])
            && !gpufft_buffer_init (&m->tables_dev[i], ctx,
                m->tables[i].size, GPUFFT_MEMORY_DEVICE, error))) {
      merge_free (m);
      return NULL;
    }
  return m;
}

static void
merge_free (gpointer data)
{
  GpufftMerge *m = data;
  guint i;

  if (!m)
    return;
  for (i = 0; i < m->geometries->len; i++)
    g_free (g_array_index (m->geometries, Geometry, i).sets);
  /* (the sets go with their pool) */
  gpufft_descriptor_pool_clear (&m->pool, m->ctx);
  for (i = 0; i < m->n_records; i++) {
    gpufft_buffer_clear (&m->tables[i], m->ctx);
    gpufft_buffer_clear (&m->tables_dev[i], m->ctx);
  }
  gpufft_buffer_clear (&m->input, m->ctx);
  gpufft_buffer_clear (&m->partial, m->ctx);
  gpufft_buffer_clear (&m->dummy, m->ctx);
  g_free (m->tables);
  g_free (m->tables_dev);
  g_array_unref (m->geometries);
  g_array_unref (m->groups);
  g_array_unref (m->member);
  g_ptr_array_unref (m->round_slots);
  g_free (m);
}

GpufftBuffer *
gpufft_merge_partial (GpufftMerge * m)
{
  return &m->partial;
}

gboolean
gpufft_merge_plan_ok (const GpufftPlan * plan)
{
  return !plan->any && !plan->four_step && !plan->cfg.planar
      && !plan->cfg.complex_out;
}

void
gpufft_merge_slot_alone (GpufftSlot * s)
{
  s->merged = FALSE;
  s->merge_in = NULL;
  s->merge_offset = 0;
  s->reduce_params.partial_base = 0;
}

static void
merge_begin (gpointer data, guint record)
{
  GpufftMerge *m = data;

  g_return_if_fail (record < m->n_records);
  m->record = record;
  m->table_used = 0;
}

static gboolean
same_geometry (const GpufftSlot * a, const GpufftSlot * b)
{
  return a->fft == b->fft && a->plan->window == b->plan->window
      && a->plan->twiddles == b->plan->twiddles
      && memcmp (&a->fft_params, &b->fft_params, sizeof (FftParams)) == 0;
}

/* The record's descriptor set for the geometry of the plan's slot s
 * (VK_NULL_HANDLE when there is no room for another geometry, or it cannot
 * be made). */
static VkDescriptorSet
geometry_set (GpufftMerge * m, GpufftSlot * s)
{
  GpufftPlan *plan = s->plan;
  Geometry *g = NULL;
  GpufftBuffer *bufs[9];
  GError *err = NULL;
  guint64 fft = gpufft_cache_serial (m->ctx, s->fft);
  guint64 window = gpufft_cache_serial (m->ctx, plan->window);
  guint64 twiddles = gpufft_cache_serial (m->ctx, plan->twiddles);
  guint i;

  for (i = 0; i < m->geometries->len && !g; i++) {
    Geometry *x = &g_array_index (m->geometries, Geometry, i);

    if (x->fft == fft && x->window == window && x->twiddles == twiddles)
      g = x;
  }
  if (!g) {
    Geometry n = { fft, window, twiddles,
      g_new0 (VkDescriptorSet, m->n_records)
    };

    if (m->geometries->len == MERGE_GEOMETRIES) {
      g_free (n.sets);
      return VK_NULL_HANDLE;
    }
    g_array_append_val (m->geometries, n);
    g = &g_array_index (m->geometries, Geometry, m->geometries->len - 1);
  }
  if (g->sets[m->record] != VK_NULL_HANDLE)
    return g->sets[m->record];

  bufs[0] = &m->input;
  bufs[1] = plan->window;
  bufs[2] = plan->twiddles;
  bufs[3] = m->tables_dev[m->record].buffer ? &m->tables_dev[m->record] :
      &m->tables[m->record];
  bufs[4] = &m->partial;
  for (i = 5; i < 9; i++)
    bufs[i] = &m->dummy;
  /* (the CPU devices' kernel reads the input through texel views, made
   * here, on the submit thread, the input's only user) */
  if (plan->cpu) {
    if (!gpufft_plan_cpu_input_views (plan, &m->input, &err)) {
      g_debug ("no shared dispatch: %s", err->message);
      g_clear_error (&err);
      return VK_NULL_HANDLE;
    }
    gpufft_plan_cpu_fft_buffers (plan, &m->input, bufs);
  }
  if (!gpufft_descriptor_pool_alloc (&m->pool, m->ctx, s->fft, bufs,
          &g->sets[m->record], &err)) {
    g_debug ("no shared dispatch: %s", err->message);
    g_clear_error (&err);
    g->sets[m->record] = VK_NULL_HANDLE;
  }
  return g->sets[m->record];
}

/* Gives the group's slots their places in the shared buffers, from the
 * cursors *in_bytes and *part_floats; returns the slots placed. */
static guint
place_group (GpufftMerge * m, Group * grp, guint gi, GpufftSlot * const *slots,
    guint n_slots, gsize * in_bytes, gsize * part_floats)
{
  guint32 *table = m->tables[m->record].mapped;
  guint chunk_base = m->table_used;
  gsize in0 = *in_bytes, part0 = *part_floats;
  gsize part_base = (part0 + MERGE_ALIGN - 1) / MERGE_ALIGN * MERGE_ALIGN;
  guint i, c, placed = 0;

  grp->n_chunks = 0;
  for (i = 0; i < n_slots; i++) {
    GpufftSlot *s = slots[i];
    GpufftPlan *plan;
    gsize unit, f0, row, pb;
    const guint32 *src;
    guint32 *dst;

    if (g_array_index (m->member, guint, i) != gi)
      continue;
    plan = s->plan;
    unit = (gsize) plan->cfg.hop * plan->cfg.channels * plan->bps;
    f0 = (*in_bytes + unit - 1) / unit;
    row = (gsize) plan->out_ch * (plan->nb + 1);
    pb = part_base + grp->n_chunks * row;
    src = s->chunks.mapped;
    if (f0 * unit + s->span_bytes > MERGE_INPUT_BYTES
        || (pb + s->n_chunks * row) * sizeof (gfloat) > MERGE_PARTIAL_BYTES
        || chunk_base + grp->n_chunks + s->n_chunks > MERGE_CHUNKS
        || f0 > G_MAXUINT32 / 2) {
      g_array_index (m->member, guint, i) = NONE;
      continue;
    }
    dst = table + 4 * (gsize) (chunk_base + grp->n_chunks);
    for (c = 0; c < s->n_chunks; c++) {
      dst[4 * c] = src[4 * c] + (guint32) f0;
      dst[4 * c + 1] = src[4 * c + 1];
      dst[4 * c + 2] = src[4 * c + 2];
      dst[4 * c + 3] = src[4 * c + 3];
    }
    s->merged = TRUE;
    s->merge_in = &m->input;
    s->merge_offset = f0 * unit;
    s->reduce_params.partial_base = (guint32) pb;
    *in_bytes = f0 * unit + s->span_bytes;
    grp->n_chunks += s->n_chunks;
    placed++;
  }
  if (placed < 2) {
    /* alone after all: its plan's own dispatch */
    for (i = 0; i < n_slots; i++)
      if (g_array_index (m->member, guint, i) == gi) {
        slots[i]->merged = FALSE;
        slots[i]->reduce_params.partial_base = 0;
      }
    *in_bytes = in0;
    *part_floats = part0;
    return 0;
  }
  grp->fp = grp->first->fft_params;
  grp->fp.chunk_base = chunk_base;
  grp->fp.partial_base = (guint32) part_base;
  *part_floats = part_base + grp->n_chunks * (gsize) grp->first->plan->out_ch
      * (grp->first->plan->nb + 1);
  m->table_used += grp->n_chunks;
  return placed;
}

static guint
merge_round (gpointer data, GpufftJob * const *jobs, guint n_slots)
{
  GpufftMerge *m = data;
  GpufftSlot **slots;
  gsize in_bytes = 0, part_floats = 0;
  guint i, j, merged = 0;

  g_ptr_array_set_size (m->round_slots, n_slots);
  slots = (GpufftSlot **) m->round_slots->pdata;
  /* (a plan's slots are the jobs that run the plans' job functions; the
   * jobs of other kinds, the loudness blocks', are left alone) */
  for (i = 0; i < n_slots; i++)
    slots[i] = jobs[i]->funcs == &gpufft_plan_slot_job_funcs ?
        GPUFFT_SLOT_OF_JOB (jobs[i]) : NULL;

  m->round_first = m->table_used;
  g_array_set_size (m->groups, 0);
  g_array_set_size (m->member, n_slots);
  for (i = 0; i < n_slots; i++) {
    GpufftSlot *s = slots[i];
    guint gi = NONE;

    if (!s) {
      g_array_index (m->member, guint, i) = NONE;
      continue;
    }
    gpufft_merge_slot_alone (s);
    if (s->plan->mergeable && s->n_chunks > 0) {
      for (j = 0; j < m->groups->len && gi == NONE; j++)
        if (same_geometry (g_array_index (m->groups, Group, j).first, s))
          gi = j;
      if (gi == NONE) {
        Group g = { s, 0, VK_NULL_HANDLE };

        g_array_append_val (m->groups, g);
        gi = m->groups->len - 1;
      }
      g_array_index (m->groups, Group, gi).n_slots++;
    }
    g_array_index (m->member, guint, i) = gi;
  }

  for (j = 0; j < m->groups->len; j++) {
    Group *grp = &g_array_index (m->groups, Group, j);
    guint placed;

    if (grp->n_slots < 2)
      continue;
    grp->set = geometry_set (m, grp->first);
    if (grp->set == VK_NULL_HANDLE)
      continue;
    placed = place_group (m, grp, j, slots, n_slots, &in_bytes, &part_floats);
    if (placed == 0)
      grp->set = VK_NULL_HANDLE;
    merged += placed;
  }
  return merged;
}

static void
merge_record_upload (gpointer data, VkCommandBuffer cmd)
{
  GpufftMerge *m = data;
  VkDeviceSize entry = 4 * sizeof (guint32);
  VkBufferCopy r = { m->round_first * entry, m->round_first * entry,
    (VkDeviceSize) (m->table_used - m->round_first) * entry
  };

  if (m->tables_dev[m->record].buffer && r.size > 0)
    vkCmdCopyBuffer (cmd, m->tables[m->record].buffer,
        m->tables_dev[m->record].buffer, 1, &r);
}

static void
merge_record_kernels (gpointer data, VkCommandBuffer cmd)
{
  GpufftMerge *m = data;
  guint j;

  for (j = 0; j < m->groups->len; j++) {
    Group *grp = &g_array_index (m->groups, Group, j);
    GpufftPlan *plan = grp->first->plan;
    const GpufftPipeline *fft = grp->first->fft;

    if (grp->set == VK_NULL_HANDLE)
      continue;
    vkCmdBindPipeline (cmd, VK_PIPELINE_BIND_POINT_COMPUTE, fft->pipeline);
    vkCmdBindDescriptorSets (cmd, VK_PIPELINE_BIND_POINT_COMPUTE,
        fft->layout, 0, 1, &grp->set, 0, NULL);
    vkCmdPushConstants (cmd, fft->layout, VK_SHADER_STAGE_COMPUTE_BIT,
        0, sizeof (FftParams), &grp->fp);
    vkCmdDispatch (cmd, grp->n_chunks / plan->fpw, plan->out_ch, 1);
    m->dispatches++;
  }
}

static guint64
merge_dispatches (gpointer data)
{
  GpufftMerge *m = data;

  return m->dispatches;
}

const GpufftRoundHooks gpufft_merge_hooks = {
  merge_new, merge_free, merge_begin, merge_round, merge_record_upload,
  merge_record_kernels, merge_dispatches
};
