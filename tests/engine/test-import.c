/* Input the GPU reads in place (GpufftSegment.release, gpufft-import.h;
 * GpufftSegment.host, the engine's host memory, gpufft_host_memory_new()):
 * results equal the double-precision reference and the copy path's bit for
 * bit, every release function is called exactly once (after the GPU read
 * the memory, on the completion thread; at once for what was copied or
 * refused), and memory changed after submit but before the device started
 * is what the GPU reads (so nothing was copied behind the caller's back).
 *
 * Run with GPUFFT_IMPORT_MIN_BYTES=1 and GPUFFT_DEBUG_LATE_START_MS (set by
 * main ()), so that every segment with a release function is imported on
 * a device that can (lavapipe can). */
#include <math.h>
#include <string.h>

#include "engine-test.h"

#define N 256
#define HOP 128
#define FRAMES 24
#define CHANNELS 2

typedef struct
{
  gint calls;                   /* atomic */
  gint off_thread;              /* atomic: calls from another thread */
  GThread *caller;
} Release;

static void
count_release (gpointer data)
{
  Release *r = data;

  g_atomic_int_inc (&r->calls);
  if (g_thread_self () != r->caller)
    g_atomic_int_inc (&r->off_thread);
}

static GpufftPlan *
make_plan (gboolean planar)
{
  GpufftPlanConfig cfg;
  GError *err = NULL;
  GpufftPlan *plan;

  gpufft_plan_config_init (&cfg);
  cfg.fft_size = N;
  cfg.hop = HOP;
  cfg.channels = CHANNELS;
  cfg.planar = planar;
  cfg.downmix = FALSE;
  cfg.max_frames = FRAMES;
  plan = gpufft_plan_new (et_context (), &cfg, &err);
  g_assert_no_error (err);
  return plan;
}

static guint64
imported_bytes (void)
{
  GpufftContextStats st;

  gpufft_context_get_stats (et_context (), &st);
  return st.imported_bytes;
}

static guint64
host_memory_bytes (void)
{
  GpufftContextStats st;

  gpufft_context_get_stats (et_context (), &st);
  return st.host_memory_bytes;
}

/* One batch of FRAMES frames in three segments, each with a release
 * function (or none); results into res. */
static void
run_batch (GpufftPlan * plan, const EtInput * in, gboolean with_release,
    Release * rel, GPtrArray * res)
{
  GpufftSegment segs[3];
  gconstpointer planes[3 * CHANNELS];
  GpufftGroup group = { FRAMES, TRUE, NULL };
  GpufftBatch batch = { segs, 3, FRAMES, &group, 1, 0, FALSE };
  guint i;

  et_input_segments (in, 0, (FRAMES - 1) * HOP + N, 3, segs, planes);
  for (i = 0; with_release && i < 3; i++) {
    segs[i].release = count_release;
    segs[i].release_data = rel;
  }
  et_submit_collect (plan, &batch, res);
}

static void
check_reference (const EtInput * in, const EtResult * r)
{
  gdouble ref[N / 2 + 1];
  guint c;

  g_assert_cmpuint (r->n_frames, ==, FRAMES);
  for (c = 0; c < CHANNELS; c++) {
    et_ref_power (in, c, 0, HOP, FRAMES, N, GPUFFT_WINDOW_HANN,
        GPUFFT_SCALING_SPECTRUM, 48000, ref);
    et_check_power (r->power + c * r->n_bins, ref, r->n_bins, 100.0, 1e-5,
        "in place");
  }
}

/* Interleaved: imported (where the device can), the same numbers as the
 * copy path, released once each, off the caller's thread. */
static void
test_in_place_interleaved (void)
{
  GpufftPlan *plan;
  EtInput *in;
  GPtrArray *copied, *imported;
  Release rel = { 0, 0, g_thread_self () };
  guint64 before;
  EtResult *a, *b;

  if (et_context () == NULL)
    return;
  plan = make_plan (FALSE);
  in = et_input_new (GPUFFT_FORMAT_F32, FALSE, CHANNELS,
      (FRAMES - 1) * HOP + N, 0.3, 0.5, 7);
  copied = et_results_new ();
  imported = et_results_new ();

  run_batch (plan, in, FALSE, NULL, copied);
  before = imported_bytes ();
  run_batch (plan, in, TRUE, &rel, imported);
  g_assert_cmpint (g_atomic_int_get (&rel.calls), ==, 3);
  g_assert_cmpuint (copied->len, ==, 1);
  g_assert_cmpuint (imported->len, ==, 1);
  a = g_ptr_array_index (copied, 0);
  b = g_ptr_array_index (imported, 0);
  check_reference (in, b);
  g_assert_cmpmem (a->power, a->channels * a->n_bins * sizeof (gfloat),
      b->power, b->channels * b->n_bins * sizeof (gfloat));

  if (gpufft_plan_get_import_min_bytes (plan) > 0) {
    g_test_message ("imported %" G_GUINT64_FORMAT " bytes",
        imported_bytes () - before);
    g_assert_cmpuint (imported_bytes () - before, ==,
        (gsize) ((FRAMES - 1) * HOP + N) * CHANNELS * sizeof (gfloat));
    g_assert_cmpint (g_atomic_int_get (&rel.off_thread), ==, 3);
  } else {
    g_test_skip ("the device cannot import host memory: copied (checked "
        "against the reference only)");
  }
  g_ptr_array_unref (copied);
  g_ptr_array_unref (imported);
  et_input_free (in);
  gpufft_plan_free (plan);
}

/* The GPU reads the memory when it runs, not at submit: samples changed
 * after submit (the device starts late, GPUFFT_DEBUG_LATE_START_MS) are the
 * ones analysed. This is why callers must keep the memory unchanged until
 * release: the element holds a reference on its buffer. */
static void
test_read_when_run (void)
{
  GpufftPlan *plan;
  EtInput *in, *quiet;
  GpufftSegment seg = { 0 };
  GpufftGroup group = { FRAMES, TRUE, NULL };
  GpufftBatch batch = { &seg, 1, FRAMES, &group, 1, 0, FALSE };
  Release rel = { 0, 0, g_thread_self () };
  gsize span = (FRAMES - 1) * HOP + N;
  GPtrArray *res;
  GError *err = NULL;
  guint8 *mem;

  if (et_context () == NULL)
    return;
  plan = make_plan (FALSE);
  if (gpufft_plan_get_import_min_bytes (plan) == 0) {
    gpufft_plan_free (plan);
    g_test_skip ("the device cannot import host memory");
    return;
  }
  in = et_input_new (GPUFFT_FORMAT_F32, FALSE, CHANNELS, span, 0.3, 0.5, 9);
  quiet = et_input_new (GPUFFT_FORMAT_F32, FALSE, CHANNELS, span, 0.0, 0.25,
      11);
  mem = g_memdup2 (quiet->bytes, span * CHANNELS * sizeof (gfloat));
  seg.data = mem;
  seg.n_samples = span;
  seg.release = count_release;
  seg.release_data = &rel;
  res = et_results_new ();
  g_assert_true (gpufft_plan_submit (plan, &batch, &err));
  g_assert_no_error (err);
  /* the device starts late: this is what it reads */
  memcpy (mem, in->bytes, span * CHANNELS * sizeof (gfloat));
  g_assert_cmpint (gpufft_plan_collect (plan, TRUE, et_collect_cb, res,
          &err), ==, 1);
  g_assert_no_error (err);
  g_assert_cmpint (g_atomic_int_get (&rel.calls), ==, 1);
  check_reference (in, g_ptr_array_index (res, 0));
  g_ptr_array_unref (res);
  g_free (mem);
  et_input_free (in);
  et_input_free (quiet);
  gpufft_plan_free (plan);
}

/* Planar input is copied (planes are not imported): released during
 * submit, on the caller's thread, with the right numbers. */
static void
test_planar_copied (void)
{
  GpufftPlan *plan;
  EtInput *in;
  GPtrArray *res;
  Release rel = { 0, 0, g_thread_self () };
  guint64 before;

  if (et_context () == NULL)
    return;
  plan = make_plan (TRUE);
  g_assert_cmpuint (gpufft_plan_get_import_min_bytes (plan), ==, 0);
  in = et_input_new (GPUFFT_FORMAT_F32, TRUE, CHANNELS,
      (FRAMES - 1) * HOP + N, 0.3, 0.5, 5);
  res = et_results_new ();
  before = imported_bytes ();
  run_batch (plan, in, TRUE, &rel, res);
  g_assert_cmpint (g_atomic_int_get (&rel.calls), ==, 3);
  g_assert_cmpint (g_atomic_int_get (&rel.off_thread), ==, 0);
  g_assert_cmpuint (imported_bytes (), ==, before);
  check_reference (in, g_ptr_array_index (res, 0));
  g_ptr_array_unref (res);
  et_input_free (in);
  gpufft_plan_free (plan);
}

/* A refused batch releases its segments before submit returns. */
static void
test_refused_batch_releases (void)
{
  GpufftPlan *plan;
  GpufftSegment segs[2] = { {0} };
  GpufftGroup group = { FRAMES + 1, TRUE, NULL };
  GpufftBatch batch = { segs, 2, FRAMES + 1, &group, 1, 0, FALSE };
  Release rel = { 0, 0, g_thread_self () };
  gfloat x[64] = { 0 };
  GError *err = NULL;
  guint i;

  if (et_context () == NULL)
    return;
  plan = make_plan (FALSE);
  for (i = 0; i < 2; i++) {
    segs[i].data = x;
    segs[i].n_samples = 32;
    segs[i].release = count_release;
    segs[i].release_data = &rel;
  }
  g_assert_false (gpufft_plan_submit (plan, &batch, &err));
  g_assert_error (err, GPUFFT_ERROR, GPUFFT_ERROR_INVALID_ARGUMENT);
  g_clear_error (&err);
  g_assert_cmpint (g_atomic_int_get (&rel.calls), ==, 2);
  gpufft_plan_free (plan);
}

/* Host memory: mapped, aligned, the size asked; segments in it are read by
 * the device (released off the caller's thread, counted as read in place),
 * one beside it (without a release function, so never imported) is copied,
 * and the results are the copy path's bit for bit and the reference's. */
static void
test_host_memory (void)
{
  GpufftPlan *plan;
  EtInput *in;
  GpufftHostMemory *host[2];
  GpufftSegment segs[3];
  gconstpointer planes[3 * CHANNELS];
  GpufftGroup group = { FRAMES, TRUE, NULL };
  GpufftBatch batch = { segs, 3, FRAMES, &group, 1, 0, FALSE };
  Release rel_host = { 0, 0, g_thread_self () };
  GPtrArray *copied, *in_place;
  GError *err = NULL;
  gsize frame_bytes = CHANNELS * sizeof (gfloat), bytes;
  guint64 before;
  EtResult *a, *b;
  guint i;

  if (et_context () == NULL)
    return;
  plan = make_plan (FALSE);
  in = et_input_new (GPUFFT_FORMAT_F32, FALSE, CHANNELS,
      (FRAMES - 1) * HOP + N, 0.3, 0.5, 13);
  copied = et_results_new ();
  in_place = et_results_new ();
  run_batch (plan, in, FALSE, NULL, copied);

  /* segments 0 and 2 in two host memories (at an odd offset in the
   * second), segment 1 in the caller's own memory */
  et_input_segments (in, 0, (FRAMES - 1) * HOP + N, 3, segs, planes);
  for (i = 0; i < 2; i++) {
    const GpufftSegment *seg = &segs[i * 2];
    gsize off = i * 3 * frame_bytes;

    bytes = seg->n_samples * frame_bytes;
    host[i] = gpufft_host_memory_new (et_context (), bytes + off, &err);
    g_assert_no_error (err);
    g_assert_nonnull (host[i]);
    g_assert_cmpuint (gpufft_host_memory_get_size (host[i]), ==, bytes + off);
    g_assert_true (gpufft_host_memory_get_context (host[i]) == et_context ());
    g_assert_cmpuint ((guintptr) gpufft_host_memory_get_data (host[i]) % 64,
        ==, 0);
    memcpy ((guint8 *) gpufft_host_memory_get_data (host[i]) + off,
        seg->data, bytes);
  }
  segs[0].data = gpufft_host_memory_get_data (host[0]);
  segs[0].host = host[0];
  segs[2].data = (guint8 *) gpufft_host_memory_get_data (host[1]) +
      3 * frame_bytes;
  segs[2].host = host[1];
  segs[0].release = segs[2].release = count_release;
  segs[0].release_data = segs[2].release_data = &rel_host;
  /* (segment 1 names a host memory it is not in) */
  segs[1].host = host[0];

  before = host_memory_bytes ();
  et_submit_collect (plan, &batch, in_place);
  g_assert_cmpint (g_atomic_int_get (&rel_host.calls), ==, 2);
  g_assert_cmpint (g_atomic_int_get (&rel_host.off_thread), ==, 2);
  g_assert_cmpuint (host_memory_bytes () - before, ==,
      (segs[0].n_samples + segs[2].n_samples) * frame_bytes);

  g_assert_cmpuint (copied->len, ==, 1);
  g_assert_cmpuint (in_place->len, ==, 1);
  a = g_ptr_array_index (copied, 0);
  b = g_ptr_array_index (in_place, 0);
  check_reference (in, b);
  g_assert_cmpmem (a->power, a->channels * a->n_bins * sizeof (gfloat),
      b->power, b->channels * b->n_bins * sizeof (gfloat));

  for (i = 0; i < 2; i++)
    gpufft_host_memory_free (host[i]);
  g_ptr_array_unref (copied);
  g_ptr_array_unref (in_place);
  et_input_free (in);
  gpufft_plan_free (plan);
}

/* The device reads host memory when it runs, not at submit (no CPU copy
 * behind the caller's back): samples written after submit, before the
 * device starts late (GPUFFT_DEBUG_LATE_START_MS), are the ones analysed.
 * And a segment without a release function is copied at submit. */
static void
test_host_memory_read_when_run (void)
{
  GpufftPlan *plan;
  EtInput *in, *quiet;
  GpufftHostMemory *host;
  GpufftSegment seg = { 0 };
  GpufftGroup group = { FRAMES, TRUE, NULL };
  GpufftBatch batch = { &seg, 1, FRAMES, &group, 1, 0, FALSE };
  Release rel = { 0, 0, g_thread_self () };
  gsize span = (FRAMES - 1) * HOP + N;
  gsize bytes = span * CHANNELS * sizeof (gfloat);
  GPtrArray *res;
  GError *err = NULL;
  guint pass;

  if (et_context () == NULL)
    return;
  plan = make_plan (FALSE);
  in = et_input_new (GPUFFT_FORMAT_F32, FALSE, CHANNELS, span, 0.3, 0.5, 17);
  quiet = et_input_new (GPUFFT_FORMAT_F32, FALSE, CHANNELS, span, 0.0, 0.25,
      19);
  host = gpufft_host_memory_new (et_context (), bytes, &err);
  g_assert_no_error (err);
  for (pass = 0; pass < 2; pass++) {
    guint64 before = host_memory_bytes ();

    /* pass 0: read in place, so the late write is what is analysed;
     * pass 1: no release function, so copied at submit: the early one */
    memcpy (gpufft_host_memory_get_data (host), quiet->bytes, bytes);
    seg.data = gpufft_host_memory_get_data (host);
    seg.n_samples = span;
    seg.host = host;
    seg.release = pass == 0 ? count_release : NULL;
    seg.release_data = pass == 0 ? &rel : NULL;
    res = et_results_new ();
    g_assert_true (gpufft_plan_submit (plan, &batch, &err));
    g_assert_no_error (err);
    memcpy (gpufft_host_memory_get_data (host), in->bytes, bytes);
    g_assert_cmpint (gpufft_plan_collect (plan, TRUE, et_collect_cb, res,
            &err), ==, 1);
    g_assert_no_error (err);
    check_reference (pass == 0 ? in : quiet, g_ptr_array_index (res, 0));
    g_assert_cmpuint (host_memory_bytes () - before, ==, pass == 0 ? bytes : 0);
    g_ptr_array_unref (res);
  }
  g_assert_cmpint (g_atomic_int_get (&rel.calls), ==, 1);
  gpufft_host_memory_free (host);
  et_input_free (in);
  et_input_free (quiet);
  gpufft_plan_free (plan);
}

int
main (int argc, char **argv)
{
  g_setenv ("GPUFFT_IMPORT_MIN_BYTES", "1", TRUE);
  g_setenv ("GPUFFT_DEBUG_LATE_START_MS", "100", TRUE);
  g_setenv ("GPUFFT_HOST_MEMORY_MIN_BYTES", "1", TRUE);
  et_init (&argc, &argv);
  g_test_add_func ("/import/interleaved", test_in_place_interleaved);
  g_test_add_func ("/import/read-when-run", test_read_when_run);
  g_test_add_func ("/import/planar-copied", test_planar_copied);
  g_test_add_func ("/import/refused-batch", test_refused_batch_releases);
  g_test_add_func ("/import/host-memory", test_host_memory);
  g_test_add_func ("/import/host-memory-read-when-run",
      test_host_memory_read_when_run);
  return et_run ();
}
