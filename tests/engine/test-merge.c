/* Shared dispatches (gpufft-merge.h): plans of one geometry whose batches
 * meet in a submission run their FFTs in one dispatch; each plan's results
 * must be bit for bit what the same batches give the plan alone. Sixteen
 * plans, four of each of four geometries (F32 stereo with peaks; S16 mono
 * with an odd hop, so that the shared input's frame unit is not a whole
 * number of words; S24 stereo downmixed with exponential averaging and
 * per-frame rows; F32 mono with max-hold and bands), plus two plans that
 * cannot share (complex output) in the same submissions, each fed its own
 * signal, batches alternating between plans, groups spanning batches.
 *
 * Loudness blocks on the device (GPUFFT_LOUDNESS_PATH=chunks) queued in
 * the same rounds are jobs of another kind: the shared dispatches take
 * nothing from them, and the blocks' values and the plans' results are bit
 * for bit what each gives alone.
 *
 * Runs with GPUFFT_DEBUG_LATE_START_MS (meson.build): the device's submit
 * thread sleeps before each recording, so the batches queued meanwhile
 * meet in one submission, as they do with many live streams. */
#include <math.h>
#include <string.h>

#include "engine-test.h"
#include "gpufft-loudness.h"

#define N_GEOMETRIES 4
#define PER_GEOMETRY 4
#define N_OTHER 2
#define N_PLANS (N_GEOMETRIES * PER_GEOMETRY + N_OTHER)
#define N_BATCHES 6

typedef struct
{
  guint id;
  GpufftPlanConfig cfg;
  guint band_first[3], band_bins[3];
  gfloat band_weights[64];
  EtInput *in;
  GpufftPlan *plan;
  gsize next;                   /* stream sample of the next batch */
  guint64 tag;
  GByteArray *got;              /* every delivered value, in order */
  guint n_results;
  gboolean failed;
} Stream;

static void
config_of (Stream * st)
{
  GpufftPlanConfig *cfg = &st->cfg;
  guint g = st->id < N_GEOMETRIES * PER_GEOMETRY ? st->id % N_GEOMETRIES : 0;
  guint i;

  gpufft_plan_config_init (cfg);
  cfg->max_frames = 16;
  switch (g) {
    case 0:
      cfg->fft_size = 256;
      cfg->hop = 128;
      cfg->channels = 2;
      cfg->downmix = FALSE;
      cfg->n_peaks = 2;
      break;
    case 1:
      cfg->fft_size = 64;
      cfg->hop = 37;
      cfg->format = GPUFFT_FORMAT_S16;
      cfg->channels = 1;
      cfg->window = GPUFFT_WINDOW_BLACKMAN;
      break;
    case 2:
      cfg->fft_size = 1024;
      cfg->hop = 300;
      cfg->format = GPUFFT_FORMAT_S24;
      cfg->channels = 2;
      cfg->downmix = TRUE;
      cfg->averaging = GPUFFT_AVERAGING_EXPONENTIAL;
      cfg->time_constant = 0.01;
      cfg->frames_out = TRUE;
      cfg->output_db = TRUE;
      break;
    default:
      cfg->fft_size = 128;
      cfg->hop = 64;
      cfg->channels = 1;
      cfg->averaging = GPUFFT_AVERAGING_MAX_HOLD;
      /* three bands of a few bins each, uneven weights */
      for (i = 0; i < 3; i++) {
        st->band_first[i] = 3 + 9 * i;
        st->band_bins[i] = 4 + i;
      }
      for (i = 0; i < G_N_ELEMENTS (st->band_weights); i++)
        st->band_weights[i] = 0.25f + 0.125f * (i % 5);
      cfg->n_bands = 3;
      cfg->band_first = st->band_first;
      cfg->band_bins = st->band_bins;
      cfg->band_weights = st->band_weights;
      cfg->frames_out = TRUE;
      break;
  }
  if (st->id >= N_GEOMETRIES * PER_GEOMETRY)
    cfg->complex_out = TRUE;    /* (cannot share a dispatch) */
}

static void
append (GByteArray * a, gconstpointer p, gsize bytes)
{
  if (p && bytes)
    g_byte_array_append (a, p, bytes);
}

/* Result function (completion thread): keeps every value delivered. */
static void
on_result (const GpufftGroupResult * r, gpointer user_data)
{
  Stream *st = user_data;
  gsize ch = r->channels;

  st->n_results++;
  if (r->failed) {
    st->failed = TRUE;
    return;
  }
  append (st->got, &r->group_index, sizeof (r->group_index));
  append (st->got, &r->n_frames, sizeof (r->n_frames));
  append (st->got, r->channel_frames, ch * sizeof (guint));
  append (st->got, r->power, ch * r->n_bins * sizeof (gfloat));
  append (st->got, r->complex_data, ch * r->n_bins * 2 * sizeof (gfloat));
  append (st->got, r->peaks, ch * r->n_peaks * sizeof (GpufftPeak));
  append (st->got, r->bands, ch * r->n_bands * sizeof (gfloat));
  append (st->got, r->level, ch * sizeof (gfloat));
  append (st->got, r->frames, (gsize) r->n_frames * ch * r->frame_stride *
      sizeof (gfloat));
}

static void
stream_init (Stream * st, guint id)
{
  GError *err = NULL;

  memset (st, 0, sizeof (*st));
  st->id = id;
  config_of (st);
  st->in = et_input_new (st->cfg.format, FALSE, st->cfg.channels,
      (gsize) 40 * 16 * st->cfg.hop + st->cfg.fft_size, 0.4, 0.3, 100 + id);
  st->got = g_byte_array_new ();
  st->plan = gpufft_plan_new (et_context (), &st->cfg, &err);
  g_assert_no_error (err);
  gpufft_plan_set_result_func (st->plan, on_result, st);
}

/* Batch b: 1 + (id + b) % 5 frames; the first group closes, the second
 * stays open on odd batches (it goes on in the next one). */
static void
submit_batch (Stream * st, guint b)
{
  guint frames = 1 + (st->id + b) % 5;
  GpufftSegment seg = { 0 };
  GpufftGroup groups[2] = { {0} };
  GpufftBatch batch = { 0 };
  GError *err = NULL;

  et_input_segments (st->in, st->next, (gsize) (frames - 1) * st->cfg.hop +
      st->cfg.fft_size, 1, &seg, NULL);
  st->next += (gsize) frames *st->cfg.hop;
  groups[0].n_frames = 1;
  groups[0].close = TRUE;
  groups[0].tag = GUINT_TO_POINTER ((guint)++ st->tag);
  groups[1].n_frames = frames - 1;
  groups[1].close = b % 2 == 0 || b + 1 == N_BATCHES;
  batch.segments = &seg;
  batch.n_segments = 1;
  batch.n_frames = frames;
  batch.groups = groups;
  batch.n_groups = frames > 1 || groups[1].close ? 2 : 1;
  if (batch.n_groups == 1)
    groups[0].close = TRUE;
  batch.db_floor = -200.0f;
  g_assert_true (gpufft_plan_submit (st->plan, &batch, &err));
  g_assert_no_error (err);
}

static void
stream_finish (Stream * st)
{
  g_assert_cmpint (gpufft_plan_collect (st->plan, TRUE, NULL, NULL, NULL),
      >=, 0);
  gpufft_plan_free (st->plan);
  st->plan = NULL;
}

static void
stream_clear (Stream * st)
{
  et_input_free (st->in);
  g_byte_array_unref (st->got);
}

static void
test_shared_dispatch (void)
{
  Stream st[N_PLANS], solo;
  GpufftContextStats before, after;
  guint i, b, mergeable = 0;

  if (et_context () == NULL)
    return;
  for (i = 0; i < N_PLANS; i++)
    stream_init (&st[i], i);
  gpufft_context_get_stats (et_context (), &before);
  /* batch b of every plan, then batch b + 1 of every plan: while the
   * device sleeps before recording, the batches of many plans queue up */
  for (b = 0; b < N_BATCHES; b++)
    for (i = 0; i < N_PLANS; i++)
      submit_batch (&st[i], b);
  for (i = 0; i < N_PLANS; i++)
    stream_finish (&st[i]);
  gpufft_context_get_stats (et_context (), &after);

  /* each plan alone (one plan per submission round: nothing to share) */
  for (i = 0; i < N_PLANS; i++) {
    stream_init (&solo, i);
    for (b = 0; b < N_BATCHES; b++)
      submit_batch (&solo, b);
    stream_finish (&solo);
    g_assert_false (st[i].failed);
    g_assert_false (solo.failed);
    g_assert_cmpuint (st[i].n_results, >, N_BATCHES);
    g_assert_cmpuint (st[i].n_results, ==, solo.n_results);
    /* the same GPU work on the same input: bit for bit */
    g_assert_cmpmem (st[i].got->data, st[i].got->len, solo.got->data,
        solo.got->len);
    stream_clear (&solo);
    stream_clear (&st[i]);
    if (i < N_GEOMETRIES * PER_GEOMETRY)
      mergeable += N_BATCHES;
  }

  g_test_message ("%" G_GUINT64_FORMAT " of %u shareable batches in %"
      G_GUINT64_FORMAT " shared dispatches, %" G_GUINT64_FORMAT
      " submissions", after.shared_batches - before.shared_batches,
      mergeable, after.shared_dispatches - before.shared_dispatches,
      after.submissions - before.submissions);
  /* most batches met others of their geometry (the first submission may
   * hold a single batch), only the shareable ones shared, and each shared
   * dispatch carried at least two batches */
  g_assert_cmpuint (after.shared_batches - before.shared_batches, >=,
      mergeable / 2);
  g_assert_cmpuint (after.shared_batches - before.shared_batches, <=,
      mergeable);
  g_assert_cmpuint (after.shared_dispatches - before.shared_dispatches, >=, 1);
  g_assert_cmpuint (2 * (after.shared_dispatches - before.shared_dispatches),
      <=, after.shared_batches - before.shared_batches);
}

/* ---- loudness blocks in the plans' rounds -------------------------------- */

#define LO_CHANNELS 2
#define LO_BLOCK 256
#define LO_BLOCKS 3

typedef struct
{
  GMutex lock;
  GByteArray *got;              /* every value delivered, in order */
  guint batches;
  gboolean failed;
} LoudnessGot;

static void
on_loudness (const GpufftLoudnessResult * r, const GError * error,
    gpointer user_data)
{
  LoudnessGot *got = user_data;

  g_mutex_lock (&got->lock);
  if (error)
    got->failed = TRUE;
  else {
    got->batches++;
    append (got->got, &r->tag, sizeof (r->tag));
    append (got->got, r->values, (gsize) r->n_blocks * r->channels * 4 *
        sizeof (gfloat));
  }
  g_mutex_unlock (&got->lock);
}

static GpufftLoudness *
loudness_new (LoudnessGot * got)
{
  GpufftLoudnessConfig cfg;
  GpufftLoudness *lo;
  GError *err = NULL;

  memset (got, 0, sizeof (*got));
  g_mutex_init (&got->lock);
  got->got = g_byte_array_new ();
  memset (&cfg, 0, sizeof (cfg));
  cfg.channels = LO_CHANNELS;
  cfg.block_frames = LO_BLOCK;
  cfg.max_blocks = LO_BLOCKS;
  /* a high-pass and a low-pass stage, both stable */
  cfg.b[0][0] = 0.9;
  cfg.b[0][1] = -0.9;
  cfg.a[0][1] = -0.8;
  cfg.b[1][0] = 0.25;
  cfg.b[1][1] = 0.5;
  cfg.b[1][2] = 0.25;
  cfg.a[1][1] = -0.2;
  cfg.a[1][2] = 0.1;
  /* (the device path, whatever the device: jobs of the scheduler) */
  g_setenv ("GPUFFT_LOUDNESS_PATH", "chunks", TRUE);
  lo = gpufft_loudness_new (et_context (), &cfg, on_loudness, got, &err);
  g_unsetenv ("GPUFFT_LOUDNESS_PATH");
  g_assert_no_error (err);
  return lo;
}

/* Loudness batch b: LO_BLOCKS blocks of tones and a ramp. */
static void
loudness_submit (GpufftLoudness * lo, guint b)
{
  GError *err = NULL;
  gfloat *x = gpufft_loudness_staging (lo, &err);
  guint f, c;

  g_assert_no_error (err);
  for (f = 0; f < LO_BLOCKS * LO_BLOCK; f++)
    for (c = 0; c < LO_CHANNELS; c++)
      x[f * LO_CHANNELS + c] = (gfloat) (0.5 * sin (0.01 * (f + 1000.0 * b)
              * (c + 1)) + 1e-4 * f);
  g_assert_true (gpufft_loudness_submit (lo, LO_BLOCKS, FALSE, b, &err));
  g_assert_no_error (err);
}

static void
loudness_clear (GpufftLoudness * lo, LoudnessGot * got)
{
  gpufft_loudness_flush (lo);
  gpufft_loudness_free (lo);
  g_assert_false (got->failed);
  g_assert_cmpuint (got->batches, ==, N_BATCHES);
}

static void
test_loudness_beside (void)
{
  /* two plans of geometry 0, two of geometry 1 */
  static const guint ids[4] = { 0, N_GEOMETRIES, 1, N_GEOMETRIES + 1 };
  Stream st[4], solo;
  LoudnessGot got, alone;
  GpufftLoudness *lo;
  GpufftContextStats before, after;
  guint i, b;

  if (et_context () == NULL)
    return;
  for (i = 0; i < 4; i++)
    stream_init (&st[i], ids[i]);
  lo = loudness_new (&got);
  gpufft_context_get_stats (et_context (), &before);
  /* each round: the two plans of geometry 0, loudness blocks, the two of
   * geometry 1 (the blocks among the jobs the merge groups) */
  for (b = 0; b < N_BATCHES; b++) {
    submit_batch (&st[0], b);
    submit_batch (&st[1], b);
    loudness_submit (lo, b);
    submit_batch (&st[2], b);
    submit_batch (&st[3], b);
  }
  loudness_clear (lo, &got);
  for (i = 0; i < 4; i++)
    stream_finish (&st[i]);
  gpufft_context_get_stats (et_context (), &after);

  lo = loudness_new (&alone);
  for (b = 0; b < N_BATCHES; b++)
    loudness_submit (lo, b);
  loudness_clear (lo, &alone);
  g_assert_cmpmem (got.got->data, got.got->len, alone.got->data,
      alone.got->len);
  for (i = 0; i < 4; i++) {
    stream_init (&solo, ids[i]);
    for (b = 0; b < N_BATCHES; b++)
      submit_batch (&solo, b);
    stream_finish (&solo);
    g_assert_false (st[i].failed);
    g_assert_false (solo.failed);
    g_assert_cmpuint (st[i].n_results, ==, solo.n_results);
    g_assert_cmpmem (st[i].got->data, st[i].got->len, solo.got->data,
        solo.got->len);
    stream_clear (&solo);
    stream_clear (&st[i]);
  }
  g_test_message ("%" G_GUINT64_FORMAT " batches in %" G_GUINT64_FORMAT
      " shared dispatches beside the loudness blocks",
      after.shared_batches - before.shared_batches,
      after.shared_dispatches - before.shared_dispatches);
  /* the plans' batches, never the blocks, went into shared dispatches */
  g_assert_cmpuint (after.shared_batches - before.shared_batches, >=, 2);
  g_assert_cmpuint (after.shared_batches - before.shared_batches, <=,
      4 * N_BATCHES);
  g_byte_array_unref (got.got);
  g_byte_array_unref (alone.got);
  g_mutex_clear (&got.lock);
  g_mutex_clear (&alone.lock);
}

int
main (int argc, char **argv)
{
  et_init (&argc, &argv);
  g_test_add_func ("/merge/shared-dispatch", test_shared_dispatch);
  g_test_add_func ("/merge/loudness-beside", test_loudness_beside);
  return et_run ();
}
