/* The kernel path for CPU Vulkan devices (VK_PHYSICAL_DEVICE_TYPE_CPU, such
 * as Mesa's lavapipe): fft_cpu.comp in place of fft.comp, the rest of the
 * plan (tables, reduce, results, shared dispatches) unchanged. See
 * shaders/fft_cpu.comp for the kernel and why it is shaped so.
 *
 * Which path a plan takes: GPUFFT_KERNEL_PATH=gpu|cpu|other|any|auto in
 * the environment, read when the plan is made (auto, the default: the CPU
 * path on CPU devices; other: the path auto would not take, so that the
 * tests run both on any device; any: the generic kernel, gpufft-plan-any.c,
 * for every size, which lavapipe translates in a fraction of the time of
 * the CPU modules of 8192 and more). Forcing `cpu` on a GPU works (the tests
 * do, on the H200) but is slow there.
 *
 * Quick start (GpufftPlanConfig.quick_start): fft_cpu.comp's unrolled
 * module takes lavapipe long to translate (0.28 s at 1024 in every
 * process, more with an empty shader cache), so a plan of a size that has
 * a quick module (fft_cpu_large.comp, translated in a quarter of that, its
 * kernel slower on big batches) starts on it, and, at the first
 * submission once the plan is UPGRADE_AFTER_S old (a live stream's small batches run as fast on the
 * quick module: a session shorter than that never pays the translation;
 * GPUFFT_CPU_UPGRADE_AFTER, seconds, overrides), a thread of the engine's
 * makes the unrolled pipeline beside the stream; gpufft_plan_submit()
 * switches to it at the first submission after it is made (each slot records the
 * pipeline it was submitted with; the two modules have the same bindings
 * and push constants; their results differ in the last bits). A plan freed
 * before the thread starts is not waited for: nothing is made. GPUFFT_CPU_QUICK overrides the configuration: off (the
 * unrolled module from the start), only (the quick module for good: the
 * tests), auto (a quick start for every plan). The thread is counted with
 * the releases (gpufft_wait_released), so that a process does not exit
 * under it.
 *
 * What the CPU kernels need, else the plan runs the GPU kernels: a
 * power-of-two size they have a module for (on a GPU, where only the tests
 * force them, up to 16384), subgroups of at least 8 invocations with
 * shuffle and vote operations in compute shaders, and shaderFloat64. */
#include <math.h>

#include "gpufft-plan-private.h"
#include "gpufft-cache.h"
#include "gpufft-context-private.h"
#include "gpufft-pipeline-cache.h"

/* seconds a plan runs on the quick module before the unrolled one is made */
#define UPGRADE_AFTER_S 120.0

/* One module per size, N = 32 << i (shaders/meson.build): fft_cpu.comp
 * up to 1024, fft_cpu_large.comp from 2048 (tests/bench/README.md,
 * "lavapipe": its four-step compiles in a fraction of the time the
 * unrolled kernel took there). */
static const guint32 fft_cpu_n32[] =
#include "fft_cpu_n32.spv.h"
    ;
static const guint32 fft_cpu_n64[] =
#include "fft_cpu_n64.spv.h"
    ;
static const guint32 fft_cpu_n128[] =
#include "fft_cpu_n128.spv.h"
    ;
static const guint32 fft_cpu_n256[] =
#include "fft_cpu_n256.spv.h"
    ;
static const guint32 fft_cpu_n512[] =
#include "fft_cpu_n512.spv.h"
    ;
static const guint32 fft_cpu_n1024[] =
#include "fft_cpu_n1024.spv.h"
    ;
static const guint32 fft_cpu_n2048[] =
#include "fft_cpu_n2048.spv.h"
    ;
static const guint32 fft_cpu_n4096[] =
#include "fft_cpu_n4096.spv.h"
    ;
static const guint32 fft_cpu_n8192[] =
#include "fft_cpu_n8192.spv.h"
    ;
static const guint32 fft_cpu_n16384[] =
#include "fft_cpu_n16384.spv.h"
    ;
static const guint32 fft_cpu_n32768[] =
#include "fft_cpu_n32768.spv.h"
    ;
static const guint32 fft_cpu_n65536[] =
#include "fft_cpu_n65536.spv.h"
    ;
static const guint32 fft_cpu_quick_n1024[] =
#include "fft_cpu_quick_n1024.spv.h"
    ;

typedef struct
{
  const guint32 *spv;
  gsize bytes;
  guint q1, q2;                 /* fft_cpu_large.comp: its Q1, Q2 */
} Module;

static const Module modules[] = {
  {fft_cpu_n32, sizeof (fft_cpu_n32), 0, 0},
  {fft_cpu_n64, sizeof (fft_cpu_n64), 0, 0},
  {fft_cpu_n128, sizeof (fft_cpu_n128), 0, 0},
  {fft_cpu_n256, sizeof (fft_cpu_n256), 0, 0},
  {fft_cpu_n512, sizeof (fft_cpu_n512), 0, 0},
  {fft_cpu_n1024, sizeof (fft_cpu_n1024), 0, 0},
  {fft_cpu_n2048, sizeof (fft_cpu_n2048), 8, 8},
  {fft_cpu_n4096, sizeof (fft_cpu_n4096), 16, 8},
  {fft_cpu_n8192, sizeof (fft_cpu_n8192), 16, 16},
  {fft_cpu_n16384, sizeof (fft_cpu_n16384), 32, 16},
  {fft_cpu_n32768, sizeof (fft_cpu_n32768), 32, 32},
  {fft_cpu_n65536, sizeof (fft_cpu_n65536), 64, 32},
};

/* The quick modules (fft_cpu_large.comp) of sizes whose own module is
 * slow to make: the plan starts on them. */
static const struct
{
  guint n;
  Module module;
} quick_modules[] = {
  {1024, {fft_cpu_quick_n1024, sizeof (fft_cpu_quick_n1024), 8, 4}
      },
};

#define CPU_LANES 8             /* fft_cpu.comp's L */
/* On a GPU (the CPU kernels forced, for the tests) up to N = 16384: from
 * 32768 NVIDIA's driver (H200, 580.159) fails vkCreateComputePipelines on
 * fft_cpu_large.comp's private arrays (VK_ERROR_UNKNOWN); those sizes keep
 * the GPU kernels there. */
#define CPU_MAX_LOG2_N_ON_GPU 14
#define CPU_MIN_LOG2_N 5        /* modules[0] */
/* Lavapipe ends a shader invocation after 65535 loop iterations in all
 * (LP_MAX_TGSI_LOOP_ITERATIONS): a chunk's loops stay well below
 * (gpufft_plan_cpu_chunk_cap). */
#define CPU_LOOP_BUDGET 48000

/* fft_cpu.comp's LOAD */
enum
{ LOAD_WORDS, LOAD_VEC, LOAD_IL2, LOAD_IL4 };

static const GpufftBindingKind cpu_bindings[] = {
  GPUFFT_BIND_TEXEL_U32X4,      /* input, 16-byte texels */
  GPUFFT_BIND_TEXEL_F32X4,      /* window */
  GPUFFT_BIND_TEXEL_U32,        /* input, words */
  GPUFFT_BIND_STORAGE,          /* chunk table */
  GPUFFT_BIND_STORAGE,          /* partial rows */
  GPUFFT_BIND_STORAGE,          /* complex output */
  GPUFFT_BIND_TEXEL_F32X2,      /* twiddles */
};

GpufftKernelPath
gpufft_plan_cpu_path_requested (void)
{
  const gchar *v = g_getenv ("GPUFFT_KERNEL_PATH");

  if (v && g_ascii_strcasecmp (v, "cpu") == 0)
    return GPUFFT_KERNEL_PATH_CPU;
  if (v && g_ascii_strcasecmp (v, "gpu") == 0)
    return GPUFFT_KERNEL_PATH_GPU;
  if (v && g_ascii_strcasecmp (v, "other") == 0)
    return GPUFFT_KERNEL_PATH_OTHER;
  if (v && g_ascii_strcasecmp (v, "any") == 0)
    return GPUFFT_KERNEL_PATH_ANY;
  return GPUFFT_KERNEL_PATH_AUTO;
}

guint
gpufft_plan_cpu_max_size (GpufftContext * ctx)
{
  const VkSubgroupFeatureFlags ops = VK_SUBGROUP_FEATURE_BASIC_BIT |
      VK_SUBGROUP_FEATURE_VOTE_BIT | VK_SUBGROUP_FEATURE_SHUFFLE_BIT |
      VK_SUBGROUP_FEATURE_SHUFFLE_RELATIVE_BIT;
  guint log2_max = CPU_MIN_LOG2_N + G_N_ELEMENTS (modules) - 1;

  /* (the modules' constant twiddles are computed in double: shaderFloat64) */
  if (ctx->subgroup_size < CPU_LANES || (ctx->subgroup_ops & ops) != ops
      || !ctx->features.shaderFloat64
      || ctx->props.limits.maxComputeWorkGroupSize[0] < CPU_LANES)
    return 0;
  if (!gpufft_context_is_cpu (ctx))
    log2_max = MIN (log2_max, CPU_MAX_LOG2_N_ON_GPU);
  return 1u << log2_max;
}

/* The CPU kernel can run this plan on this device. */
static gboolean
cpu_kernel_fits (GpufftPlan * plan)
{
  guint log2_n = plan->log2_m + 1;

  return !plan->any && log2_n >= CPU_MIN_LOG2_N
      && (1u << log2_n) <= gpufft_plan_cpu_max_size (plan->ctx);
}

gboolean
gpufft_plan_cpu_wanted (GpufftPlan * plan)
{
  GpufftKernelPath want = gpufft_plan_cpu_path_requested ();
  gboolean is_cpu = gpufft_context_is_cpu (plan->ctx);

  if (!cpu_kernel_fits (plan))
    return FALSE;
  if (want == GPUFFT_KERNEL_PATH_AUTO)
    return is_cpu;
  if (want == GPUFFT_KERNEL_PATH_OTHER)
    return !is_cpu;
  return want == GPUFFT_KERNEL_PATH_CPU;
}

/* How a lane reads its samples: the fastest load the layout allows for
 * every frame of every batch (fft_cpu.comp, LOAD). Frames start at f * hop
 * instants of a buffer that starts on 16 bytes (a plan's input, or a
 * shared dispatch's region: a whole number of frames, gpufft-merge.c);
 * planar planes start on 8 samples (gpufft-plan-input.c). */
static guint
load_mode (const GpufftPlanConfig * c)
{
  guint bps = gpufft_format_bytes (c->format);
  gboolean words32 = c->format == GPUFFT_FORMAT_F32
      || c->format == GPUFFT_FORMAT_S32;

  if (c->format == GPUFFT_FORMAT_S24)
    return LOAD_WORDS;
  if (c->planar || c->channels == 1)
    return c->hop % (16 / bps) == 0 ? LOAD_VEC : LOAD_WORDS;
  if (words32 && c->channels == 2 && c->hop % 2 == 0)
    return LOAD_IL2;
  if (words32 && c->channels == 4)
    return LOAD_IL4;
  return LOAD_WORDS;
}

/* The most frames one chunk of module m may hold. */
static guint
module_chunk_cap (GpufftPlan * plan, const Module * m)
{
  guint mix = plan->cfg.downmix && plan->cfg.channels > 1 ?
      plan->cfg.channels : 0;
  guint per_frame, per_chunk = 0;

  if (m->q1 > 0) {
    /* fft_cpu_large.comp: per frame Q2 columns (each with the channel loop
     * of a downmix that adds the channels one by one) and Q1/2 + 1 row
     * pairs; per chunk the Q sums set and stored */
    per_frame = 1 + m->q2 * (1 + mix) + m->q1 / 2 + 1;
    per_chunk = 2 * m->q1 * m->q2;
  } else {
    /* fft_cpu.comp: per frame one load, with the channel loop of a
     * downmix */
    per_frame = 1 + (1 + mix);
  }
  return MAX (1, (CPU_LOOP_BUDGET - per_chunk) / per_frame);
}

/* The quick module of the plan's size, or NULL (no quick start, or none
 * for this size). */
static const Module *
quick_module (GpufftPlan * plan)
{
  const gchar *v = g_getenv ("GPUFFT_CPU_QUICK");
  guint i;

  if (v && g_ascii_strcasecmp (v, "off") == 0)
    return NULL;
  if (!plan->cfg.quick_start && !(v && (g_ascii_strcasecmp (v, "only") == 0
              || g_ascii_strcasecmp (v, "auto") == 0)))
    return NULL;
  for (i = 0; i < G_N_ELEMENTS (quick_modules); i++)
    if (quick_modules[i].n == plan->cfg.fft_size)
      return &quick_modules[i].module;
  return NULL;
}

/* The plan's own module (its size's). */
static const Module *
own_module (GpufftPlan * plan)
{
  return &modules[plan->log2_m + 1 - CPU_MIN_LOG2_N];
}

/* The module whose pipeline the plan runs at its first batch. */
static const Module *
first_module (GpufftPlan * plan)
{
  const Module *q = quick_module (plan);

  return q ? q : own_module (plan);
}

/* The unrolled pipeline made beside the stream: shared by the plan and
 * the thread that makes it (the last one frees it). */
struct _GpufftCpuUpgrade
{
  gint ref_count;               /* atomic */
  gint64 start_at;              /* plan's thread: monotonic us to start the
                                 * thread at; G_MAXINT64 once started */
  GpufftContext *ctx;
  const Module *module;
  guint32 spec[4];
  const GpufftPipeline *ready;  /* atomic: set once it is made (a cache
                                 * reference, the plan's once it takes it) */
};

static void
upgrade_unref (GpufftCpuUpgrade * u)
{
  if (!g_atomic_int_dec_and_test (&u->ref_count))
    return;
  /* (made, and the plan gone before it took it) */
  gpufft_cache_release (u->ctx, g_atomic_pointer_get (&u->ready));
  gpufft_context_unref (u->ctx);
  g_free (u);
}

static gpointer
upgrade_thread (gpointer data)
{
  GpufftCpuUpgrade *u = data;
  GError *err = NULL;
  const GpufftPipeline *p;

  /* (the plan is gone: nothing to make) */
  if (g_atomic_int_get (&u->ref_count) == 1) {
    upgrade_unref (u);
    return NULL;
  }
  p = gpufft_cache_pipeline (u->ctx, u->module->spv, u->module->bytes,
      G_N_ELEMENTS (cpu_bindings), cpu_bindings, sizeof (FftParams), u->spec,
      G_N_ELEMENTS (u->spec), &err);
  if (p) {
    gpufft_pipeline_cache_save (u->ctx);
    g_atomic_pointer_set (&u->ready, p);
  } else {
    g_debug ("the unrolled CPU kernel could not be made (the quick one "
        "stays): %s", err->message);
    g_clear_error (&err);
  }
  upgrade_unref (u);
  return NULL;
}

/* The plan runs its quick module: the unrolled one is to be made (not
 * with GPUFFT_CPU_QUICK=only). Armed by gpufft_plan_cpu_start_upgrade(),
 * its thread started by gpufft_plan_cpu_maybe_upgrade(). */
static void
want_upgrade (GpufftPlan * plan, const guint32 * spec)
{
  const gchar *v = g_getenv ("GPUFFT_CPU_QUICK");
  GpufftCpuUpgrade *u;

  if (v && g_ascii_strcasecmp (v, "only") == 0)
    return;
  u = g_new0 (GpufftCpuUpgrade, 1);
  u->ref_count = 1;
  u->ctx = gpufft_context_ref (plan->ctx);
  u->module = own_module (plan);
  memcpy (u->spec, spec, sizeof (u->spec));
  plan->cpu_upgrade = u;
}

void
gpufft_plan_cpu_start_upgrade (GpufftPlan * plan)
{
  GpufftCpuUpgrade *u = plan->cpu_upgrade;
  const gchar *v = g_getenv ("GPUFFT_CPU_UPGRADE_AFTER");
  gchar *end = NULL;
  gdouble after = v ? g_ascii_strtod (v, &end) : UPGRADE_AFTER_S;

  /* (a value that is not a number of seconds: the default) */
  if (v && (end == v || !isfinite (after)))
    after = UPGRADE_AFTER_S;
  if (!u)
    return;
  u->start_at = g_get_monotonic_time () + (gint64) (CLAMP (after, 0, 1e6) *
      G_USEC_PER_SEC);
}

static void
upgrade_thread_start (GpufftPlan * plan)
{
  GpufftCpuUpgrade *u = plan->cpu_upgrade;

  u->start_at = G_MAXINT64;
  g_atomic_int_inc (&u->ref_count);
  if (!gpufft_context_reap ("gpufft-upgrade", upgrade_thread, u)) {
    g_debug ("no thread to make the unrolled CPU kernel: the quick one "
        "stays");
    plan->cpu_upgrade = NULL;
    upgrade_unref (u);
    upgrade_unref (u);
  }
}

void
gpufft_plan_cpu_maybe_upgrade (GpufftPlan * plan)
{
  const GpufftPipeline *p;

  if (!plan->cpu_upgrade)
    return;
  if (plan->cpu_upgrade->start_at != G_MAXINT64
      && g_get_monotonic_time () >= plan->cpu_upgrade->start_at) {
    upgrade_thread_start (plan);
    if (!plan->cpu_upgrade)
      return;
  }
  p = g_atomic_pointer_get (&plan->cpu_upgrade->ready);
  if (!p)
    return;
  /* (the plan's reference now; slots in flight may still run the quick
   * pipeline: released with the plan) */
  g_atomic_pointer_set (&plan->cpu_upgrade->ready, NULL);
  plan->cpu_quick = plan->fft;
  plan->fft = p;
  upgrade_unref (plan->cpu_upgrade);
  plan->cpu_upgrade = NULL;
  g_debug ("plan N=%u: upgraded to the unrolled CPU kernel",
      plan->cfg.fft_size);
}

void
gpufft_plan_cpu_free (GpufftPlan * plan)
{
  if (plan->cpu_upgrade)
    upgrade_unref (plan->cpu_upgrade);
  plan->cpu_upgrade = NULL;
  gpufft_cache_release (plan->ctx, plan->cpu_quick);
  plan->cpu_quick = NULL;
}

gboolean
gpufft_plan_cpu_pipeline (GpufftPlan * plan, GError ** error)
{
  const Module *first = first_module (plan);
  const Module *own = own_module (plan);
  guint32 spec[4];

  /* (the chunks fit both modules the plan may run) */
  plan->cpu_chunk_cap = MIN (module_chunk_cap (plan, own),
      module_chunk_cap (plan, first));

  plan->cpu = TRUE;
  plan->four_step = FALSE;
  plan->fpw = 1;
  /* (lavapipe runs a thread per core, at most 16: four chunks each) */
  plan->cpu_chunks = 4 * CLAMP (g_get_num_processors (), 1, 16);
  spec[0] = plan->cfg.format;
  spec[1] = plan->cfg.complex_out ? 1 : 0;
  /* (one channel: nothing to mix) */
  spec[2] = plan->cfg.downmix && plan->cfg.channels > 1 ? 1 : 0;
  spec[3] = load_mode (&plan->cfg);
  plan->fft = gpufft_cache_pipeline (plan->ctx, first->spv, first->bytes,
      G_N_ELEMENTS (cpu_bindings), cpu_bindings, sizeof (FftParams), spec,
      G_N_ELEMENTS (spec), error);
  if (plan->fft && first != own)
    want_upgrade (plan, spec);
  return plan->fft != NULL;
}


guint
gpufft_plan_cpu_chunk_cap (GpufftPlan * plan)
{
  return plan->cpu_chunk_cap;
}

gboolean
gpufft_plan_cpu_input_views (GpufftPlan * plan, GpufftBuffer * input,
    GError ** error)
{
  return gpufft_buffer_add_view (input, plan->ctx, GPUFFT_VIEW_U32, error)
      && gpufft_buffer_add_view (input, plan->ctx, GPUFFT_VIEW_U32X4, error);
}

void
gpufft_plan_cpu_fft_buffers (GpufftPlan * plan, GpufftBuffer * input,
    GpufftBuffer ** bufs)
{
  bufs[0] = input;
  bufs[1] = plan->window;
  bufs[2] = input;
  bufs[6] = plan->twiddles;
}
