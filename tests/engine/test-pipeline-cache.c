/* The pipeline cache file (gpufft-pipeline-cache.h): written after a plan
 * made its pipelines, read by the next process, and ignored, with a debug
 * line saying why, when it is truncated, corrupt, foreign or not ours;
 * no file where GPUFFT_CACHE_DIR is empty, the default folder
 * ($XDG_CACHE_HOME/gst-gpufft) where it is unset, and plans still made
 * where the folder cannot be written; no file written, and the plan made
 * without the driver's cache, once the driver's data are beyond
 * GPUFFT_PIPELINE_CACHE_MAX_BYTES.
 *
 * Each run is a fresh process (g_test_trap_subprocess), as a new
 * pipeline is: a context reads its file once. The file's layout is written
 * out here from the header's contract, not taken from the engine. */
#include <string.h>
#include <glib/gstdio.h>

#include "engine-test.h"

#define PREFIX 56               /* magic, version, 0, size, SHA-256 */

static gchar *cache_dir;        /* GPUFFT_CACHE_DIR of the children */
static gchar *xdg_dir;          /* their XDG_CACHE_HOME */

/* The child: one context, one plan (its pipelines), nothing else. */
static void
make_plan (void)
{
  GpufftPlanConfig cfg;
  GpufftContext *ctx;
  GpufftPlan *plan;
  GError *err = NULL;

  ctx = gpufft_context_get (-1, &err);
  g_assert_no_error (err);
  gpufft_plan_config_init (&cfg);
  cfg.fft_size = 64;
  cfg.hop = 32;
  plan = gpufft_plan_new (ctx, &cfg, &err);
  g_assert_no_error (err);
  g_assert_nonnull (plan);
  gpufft_plan_free (plan);
  gpufft_context_unref (ctx);
}

/* Runs make_plan() in a new process (the current test again, there:
 * wrap()); the engine's debug lines, on its stdout in a test program,
 * must match `pattern` (NULL: anything). */
static void
run_child (const gchar * pattern)
{
  g_test_trap_subprocess (NULL, 120 * G_USEC_PER_SEC, 0);
  g_test_trap_assert_passed ();
  if (pattern)
    g_test_trap_assert_stdout (pattern);
}

/* The one file in cache_dir (NULL: none), its contents in *data. */
static gchar *
the_file (gchar ** data, gsize * len)
{
  GDir *dir = g_dir_open (cache_dir, 0, NULL);
  const gchar *name;
  gchar *path = NULL;
  guint n = 0;

  while (dir && (name = g_dir_read_name (dir))) {
    g_free (path);
    path = g_build_filename (cache_dir, name, NULL);
    n++;
  }
  if (dir)
    g_dir_close (dir);
  g_assert_cmpuint (n, <=, 1);
  if (path && data)
    g_assert_true (g_file_get_contents (path, data, len, NULL));
  return path;
}

static guint32
u32 (const gchar * p)
{
  const guint8 *b = (const guint8 *) p;

  return b[0] | (guint32) b[1] << 8 | (guint32) b[2] << 16 |
      (guint32) b[3] << 24;
}

/* The file is whole: magic, version 1, its size, its checksum, and the
 * driver's header (VkPipelineCacheHeaderVersionOne) behind. */
static void
assert_valid (const gchar * data, gsize len)
{
  GChecksum *c = g_checksum_new (G_CHECKSUM_SHA256);
  guint8 sum[32];
  gsize n = 32;

  g_assert_cmpuint (len, >=, PREFIX + 32);
  g_assert_cmpmem (data, 8, "GPUFFTPC", 8);
  g_assert_cmpuint (u32 (data + 8), ==, 1);
  g_assert_cmpuint (u32 (data + 16), ==, len - PREFIX);
  g_assert_cmpuint (u32 (data + 20), ==, 0);
  g_checksum_update (c, (const guchar *) data + PREFIX, len - PREFIX);
  g_checksum_get_digest (c, sum, &n);
  g_checksum_free (c);
  g_assert_cmpmem (sum, 32, data + 24, 32);
  g_assert_cmpuint (u32 (data + PREFIX), >=, 32);       /* headerSize */
  g_assert_cmpuint (u32 (data + PREFIX + 4), ==, 1);    /* its version */
}

/* A checksum that matches the data again. */
static void
resum (gchar * data, gsize len)
{
  GChecksum *c = g_checksum_new (G_CHECKSUM_SHA256);
  gsize n = 32;

  g_checksum_update (c, (const guchar *) data + PREFIX, len - PREFIX);
  g_checksum_get_digest (c, (guint8 *) data + 24, &n);
  g_checksum_free (c);
}

static void
test_written_and_read (void)
{
  gchar *data = NULL, *path;
  gsize len = 0;

  if (!et_context ())
    return;
  g_assert_null (the_file (NULL, NULL));
  run_child ("*pipeline cache *bytes written*");
  path = the_file (&data, &len);
  g_assert_nonnull (path);
  g_assert_true (g_str_has_suffix (path, ".vkcache"));
  assert_valid (data, len);
  g_free (data);
  /* read, and not written again: nothing new was made */
  run_child ("*pipeline cache *bytes loaded*");
  g_test_trap_assert_stdout_unmatched ("*bytes written*");
  g_free (path);
}

/* A bad file is ignored, named with its fault, and replaced by a whole one
 * (the driver's data differ from the empty cache's start). */
static void
check_ignored (const gchar * why, const gchar * bad, gsize bad_len)
{
  gchar *path, *data = NULL, *pattern;
  gsize len = 0;

  path = the_file (NULL, NULL);
  g_assert_nonnull (path);
  g_assert_true (g_file_set_contents (path, bad, bad_len, NULL));
  pattern = g_strdup_printf ("*pipeline cache %s ignored: %s*", path, why);
  run_child (pattern);
  g_free (pattern);
  g_free (the_file (&data, &len));
  assert_valid (data, len);
  g_free (data);
  g_free (path);
}

static void
test_bad_files (void)
{
  gchar *good = NULL, *bad, *path;
  gsize len = 0;

  if (!et_context ())
    return;
  run_child (NULL);
  path = the_file (&good, &len);
  g_assert_nonnull (path);
  assert_valid (good, len);

  /* truncated: the last 7 bytes, and everything behind the prefix */
  check_ignored ("truncated", good, len - 7);
  check_ignored ("truncated", good, PREFIX);
  /* corrupt: one bit of the driver's data */
  bad = g_memdup2 (good, len);
  bad[len - 1] ^= 0x10;
  check_ignored ("corrupt*", bad, len);
  /* foreign: another vendor, another pipelineCacheUUID (checksums right) */
  memcpy (bad, good, len);
  bad[PREFIX + 8] ^= 0x01;
  resum (bad, len);
  check_ignored ("made by another device or driver", bad, len);
  memcpy (bad, good, len);
  bad[PREFIX + 16 + 15] ^= 0x80;
  resum (bad, len);
  check_ignored ("made by another device or driver", bad, len);
  /* another format version; not ours at all */
  memcpy (bad, good, len);
  bad[8] = 2;
  check_ignored ("another format version", bad, len);
  check_ignored ("not a pipeline cache of gst-gpufft", "\x7f" "ELF\2\1\1", 6);
  /* longer than it says */
  bad = g_realloc (bad, len + 3);
  memcpy (bad, good, len);
  memset (bad + len, 0, 3);
  check_ignored ("longer than it says", bad, len + 3);

  /* and the good one is read again */
  g_assert_true (g_file_set_contents (path, good, len, NULL));
  run_child ("*pipeline cache *bytes loaded*");
  g_free (bad);
  g_free (good);
  g_free (path);
}

static void
test_no_file (void)
{
  gchar *blocker, *xdg_sub;

  if (!et_context ())
    return;
  xdg_sub = g_build_filename (xdg_dir, "gst-gpufft", NULL);
  /* GPUFFT_CACHE_DIR empty: none written, not even in the default folder */
  g_setenv ("GPUFFT_CACHE_DIR", "", TRUE);
  run_child (NULL);
  g_test_trap_assert_stdout_unmatched ("*pipeline cache*");
  g_assert_null (the_file (NULL, NULL));
  g_assert_false (g_file_test (xdg_sub, G_FILE_TEST_EXISTS));
  /* GPUFFT_CACHE_DIR unset: the default folder, $XDG_CACHE_HOME/gst-gpufft */
  g_unsetenv ("GPUFFT_CACHE_DIR");
  run_child ("*pipeline cache *gst-gpufft*bytes written*");
  g_setenv ("GPUFFT_CACHE_DIR", cache_dir, TRUE);
  g_assert_null (the_file (NULL, NULL));
  g_assert_true (g_file_test (xdg_sub, G_FILE_TEST_IS_DIR));
  {
    GDir *d = g_dir_open (xdg_sub, 0, NULL);
    const gchar *name;

    g_assert_nonnull (d);
    while ((name = g_dir_read_name (d))) {
      gchar *f = g_build_filename (xdg_sub, name, NULL);

      g_assert_true (g_str_has_suffix (name, ".vkcache"));
      g_remove (f);
      g_free (f);
    }
    g_dir_close (d);
  }
  g_rmdir (xdg_sub);
  g_free (xdg_sub);
  /* a folder that cannot be made (a file stands in its way): the plan is
   * made all the same */
  blocker = g_build_filename (cache_dir, "blocker", NULL);
  g_assert_true (g_file_set_contents (blocker, "x", 1, NULL));
  g_setenv ("GPUFFT_CACHE_DIR", blocker, TRUE);
  run_child ("*pipeline cache not written*");
  g_setenv ("GPUFFT_CACHE_DIR", cache_dir, TRUE);
  g_remove (blocker);
  g_free (blocker);
}

/* The driver's data of one plan's pipelines, D bytes: written with a limit
 * of D, not with D - 1 (the plan made all the same). */
static void
test_limit (void)
{
  gchar *data = NULL, *path, *limit;
  gsize len = 0, d;

  if (!et_context ())
    return;
  run_child ("*pipeline cache *bytes written*");
  path = the_file (&data, &len);
  g_assert_nonnull (path);
  d = len - PREFIX;
  g_free (data);
  g_remove (path);

  limit = g_strdup_printf ("%" G_GSIZE_FORMAT, d - 1);
  g_setenv ("GPUFFT_PIPELINE_CACHE_MAX_BYTES", limit, TRUE);
  run_child ("*pipeline cache of * bytes is beyond its limit*");
  g_test_trap_assert_stdout_unmatched ("*bytes written*");
  g_assert_null (the_file (NULL, NULL));
  g_free (limit);

  limit = g_strdup_printf ("%" G_GSIZE_FORMAT, d);
  g_setenv ("GPUFFT_PIPELINE_CACHE_MAX_BYTES", limit, TRUE);
  run_child ("*pipeline cache *bytes written*");
  g_unsetenv ("GPUFFT_PIPELINE_CACHE_MAX_BYTES");
  g_free (limit);
  g_free (the_file (&data, &len));
  g_assert_cmpuint (len - PREFIX, ==, d);
  g_free (data);
  g_free (path);
}

/* empties cache_dir before each test */
static void
clear_dir (void)
{
  gchar *path;

  while ((path = the_file (NULL, NULL))) {
    g_remove (path);
    g_free (path);
  }
}

static void
wrap (gconstpointer func)
{
  if (g_test_subprocess ()) {
    g_setenv ("G_MESSAGES_DEBUG", "gpufft", TRUE);
    make_plan ();
    return;
  }
  clear_dir ();
  ((void (*)(void)) func) ();
  clear_dir ();
}

int
main (int argc, char **argv)
{
  int ret;
  gboolean child = FALSE;
  int i;

  for (i = 1; i < argc; i++)
    child = child || strcmp (argv[i], "--GTestSubprocess") == 0;
  if (!child) {
    /* (folders of its own, inherited by the children) */
    cache_dir = g_dir_make_tmp ("gpufft-pcache-XXXXXX", NULL);
    xdg_dir = g_dir_make_tmp ("gpufft-pcache-xdg-XXXXXX", NULL);
    g_assert_nonnull (cache_dir);
    g_assert_nonnull (xdg_dir);
    g_setenv ("GPUFFT_CACHE_DIR", cache_dir, TRUE);
    g_setenv ("XDG_CACHE_HOME", xdg_dir, TRUE);
  }
  et_init (&argc, &argv);
  g_test_add_data_func ("/pipeline-cache/written-and-read",
      test_written_and_read, wrap);
  g_test_add_data_func ("/pipeline-cache/bad-files", test_bad_files, wrap);
  g_test_add_data_func ("/pipeline-cache/no-file", test_no_file, wrap);
  g_test_add_data_func ("/pipeline-cache/limit", test_limit, wrap);
  ret = et_run ();
  if (cache_dir) {
    clear_dir ();
    g_rmdir (cache_dir);
    g_rmdir (xdg_dir);
    g_free (cache_dir);
    g_free (xdg_dir);
  }
  return ret;
}
