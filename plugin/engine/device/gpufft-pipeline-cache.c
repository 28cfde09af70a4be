/* The driver's pipeline cache in a file: see gpufft-pipeline-cache.h. */
#include <string.h>

#include "gpufft-pipeline-cache.h"
#include "gpufft-vk-error.h"

#define MAGIC "GPUFFTPC"
#define FORMAT_VERSION 1u
#define PREFIX_BYTES 56u        /* magic, version, 0, size, SHA-256 */
#define VK_HEADER_BYTES 32u     /* VkPipelineCacheHeaderVersionOne */

typedef struct
{
  GpufftContext *ctx;
  VkPipelineCache cache;
  gchar *path;                  /* NULL: no file */
  GMutex lock;                  /* the file, and: */
  guint8 sum[32];               /* SHA-256 of the data last read or written */
  gboolean dirty;               /* a pipeline was made since */
  gsize max_bytes;              /* of the driver's data */
  gint full;                    /* atomic: beyond max_bytes: no longer used */
} PipelineCache;

static guint32
read_u32 (const guint8 * p)
{
  return p[0] | (guint32) p[1] << 8 | (guint32) p[2] << 16 | (guint32) p[3] <<
      24;
}

static void
write_u32 (guint8 * p, guint32 v)
{
  p[0] = v;
  p[1] = v >> 8;
  p[2] = v >> 16;
  p[3] = v >> 24;
}

/* SHA-256 of data[0..len) into out[0..32). */
static void
sha256 (const guint8 * data, gsize len, guint8 * out)
{
  GChecksum *c = g_checksum_new (G_CHECKSUM_SHA256);
  gsize n = 32;

  g_checksum_update (c, data, len);
  g_checksum_get_digest (c, out, &n);
  g_checksum_free (c);
}

gchar *
gpufft_pipeline_cache_path (GpufftContext * ctx)
{
  const gchar *dir = g_getenv ("GPUFFT_CACHE_DIR");
  GString *name;
  gchar *path;
  guint i;

  if (dir && dir[0] == '\0')
    return NULL;
  name = g_string_new (NULL);
  g_string_append_printf (name, "pipelines-%04x-%04x-%08x-",
      ctx->props.vendorID, ctx->props.deviceID, ctx->props.driverVersion);
  for (i = 0; i < VK_UUID_SIZE; i++)
    g_string_append_printf (name, "%02x", ctx->props.pipelineCacheUUID[i]);
  g_string_append (name, ".vkcache");
  if (dir)
    path = g_build_filename (dir, name->str, NULL);
  else
    path = g_build_filename (g_get_user_cache_dir (), "gst-gpufft",
        name->str, NULL);
  g_string_free (name, TRUE);
  return path;
}

/* The driver's data in the file's contents, or NULL with *why set. */
static const guint8 *
file_data (GpufftContext * ctx, const guint8 * file, gsize len,
    gsize * data_len, const gchar ** why)
{
  const guint8 *data = file + PREFIX_BYTES;
  guint64 size;
  guint8 sum[32];

  if (len < PREFIX_BYTES || memcmp (file, MAGIC, 8) != 0) {
    *why = "not a pipeline cache of gst-gpufft";
    return NULL;
  }
  if (read_u32 (file + 8) != FORMAT_VERSION) {
    *why = "another format version";
    return NULL;
  }
  size = read_u32 (file + 16) | (guint64) read_u32 (file + 20) << 32;
  if (size != len - PREFIX_BYTES) {
    *why = size > len - PREFIX_BYTES ? "truncated" : "longer than it says";
    return NULL;
  }
  sha256 (data, size, sum);
  if (memcmp (sum, file + 24, 32) != 0) {
    *why = "corrupt (its checksum does not match)";
    return NULL;
  }
  /* VkPipelineCacheHeaderVersionOne: headerSize, headerVersion, vendorID,
   * deviceID, pipelineCacheUUID */
  if (size < VK_HEADER_BYTES || read_u32 (data) < VK_HEADER_BYTES
      || read_u32 (data + 4) != VK_PIPELINE_CACHE_HEADER_VERSION_ONE) {
    *why = "no valid header of the driver";
    return NULL;
  }
  if (read_u32 (data + 8) != ctx->props.vendorID
      || read_u32 (data + 12) != ctx->props.deviceID
      || memcmp (data + 16, ctx->props.pipelineCacheUUID, VK_UUID_SIZE) != 0) {
    *why = "made by another device or driver";
    return NULL;
  }
  *data_len = size;
  return data;
}

static VkPipelineCache
create_cache (GpufftContext * ctx, const guint8 * data, gsize len)
{
  VkPipelineCacheCreateInfo info = {
    .sType = VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO,
    .initialDataSize = len,
    .pInitialData = data,
  };
  VkPipelineCache cache = VK_NULL_HANDLE;
  VkResult res = vkCreatePipelineCache (ctx->device, &info, NULL, &cache);

  if (res != VK_SUCCESS) {
    g_debug ("vkCreatePipelineCache with %" G_GSIZE_FORMAT " bytes: %s",
        len, gpufft_vk_result_string (res));
    return VK_NULL_HANDLE;
  }
  return cache;
}

/* GPUFFT_PIPELINE_CACHE_MAX_BYTES, else the default. */
static gsize
max_bytes_from_env (void)
{
  const gchar *v = g_getenv ("GPUFFT_PIPELINE_CACHE_MAX_BYTES");
  gchar *end = NULL;
  guint64 b;

  if (v == NULL)
    return GPUFFT_PIPELINE_CACHE_MAX_BYTES_DEFAULT;
  b = g_ascii_strtoull (v, &end, 10);
  if (end == v || *end != '\0' || v[0] == '-' || b > G_MAXSIZE) {
    g_warning ("gpufft: GPUFFT_PIPELINE_CACHE_MAX_BYTES must be a number of "
        "bytes (0 to %" G_GSIZE_FORMAT "); the default, %u, is used",
        (gsize) G_MAXSIZE, GPUFFT_PIPELINE_CACHE_MAX_BYTES_DEFAULT);
    return GPUFFT_PIPELINE_CACHE_MAX_BYTES_DEFAULT;
  }
  return (gsize) b;
}

static gpointer
pipeline_cache_new (GpufftContext * ctx, gconstpointer unused, GError ** error)
{
  PipelineCache *pc = g_new0 (PipelineCache, 1);
  gchar *contents = NULL;
  const guint8 *data = NULL;
  gsize len = 0, data_len = 0;
  const gchar *why = NULL;
  GError *err = NULL;

  pc->ctx = ctx;
  g_mutex_init (&pc->lock);
  pc->max_bytes = max_bytes_from_env ();
  pc->path = gpufft_pipeline_cache_path (ctx);
  if (pc->path && !g_file_get_contents (pc->path, &contents, &len, &err)) {
    if (!g_error_matches (err, G_FILE_ERROR, G_FILE_ERROR_NOENT))
      g_debug ("pipeline cache %s not read: %s", pc->path, err->message);
    g_clear_error (&err);
  } else if (pc->path) {
    data = file_data (ctx, (const guint8 *) contents, len, &data_len, &why);
    if (data == NULL)
      g_debug ("pipeline cache %s ignored: %s", pc->path, why);
  }
  if (data) {
    pc->cache = create_cache (ctx, data, data_len);
    memcpy (pc->sum, contents + 24, 32);
  }
  if (data && pc->cache == VK_NULL_HANDLE)
    g_debug ("pipeline cache %s ignored: refused by the driver", pc->path);
  else if (data)
    g_debug ("pipeline cache %s: %" G_GSIZE_FORMAT " bytes loaded", pc->path,
        data_len);
  if (pc->cache == VK_NULL_HANDLE)
    pc->cache = create_cache (ctx, NULL, 0);
  g_free (contents);
  return pc;
}

static void
pipeline_cache_free (gpointer data)
{
  PipelineCache *pc = data;

  if (pc->cache != VK_NULL_HANDLE)
    vkDestroyPipelineCache (pc->ctx->device, pc->cache, NULL);
  g_free (pc->path);
  g_mutex_clear (&pc->lock);
  g_free (pc);
}

static PipelineCache *
get (GpufftContext * ctx)
{
  /* (making it cannot fail: without a driver's cache it holds none) */
  return gpufft_context_service (ctx, GPUFFT_SERVICE_PIPELINE_CACHE,
      pipeline_cache_new, pipeline_cache_free, NULL, NULL);
}

VkPipelineCache
gpufft_pipeline_cache_get (GpufftContext * ctx)
{
  PipelineCache *pc = get (ctx);

  return g_atomic_int_get (&pc->full) ? VK_NULL_HANDLE : pc->cache;
}

/* TRUE while the driver's data are within the limit; else the cache is
 * no longer used (lock held). */
static gboolean
within_limit (PipelineCache * pc)
{
  gsize size = 0;
  VkResult res = vkGetPipelineCacheData (pc->ctx->device, pc->cache, &size,
      NULL);

  /* (a size the driver cannot tell: the writing says why) */
  if (res != VK_SUCCESS || size <= pc->max_bytes)
    return TRUE;
  g_debug ("pipeline cache of %" G_GSIZE_FORMAT " bytes is beyond its limit "
      "(%" G_GSIZE_FORMAT ", GPUFFT_PIPELINE_CACHE_MAX_BYTES): pipelines are "
      "made without it from here on, and its file is no longer written",
      size, pc->max_bytes);
  g_atomic_int_set (&pc->full, TRUE);
  return FALSE;
}

/* Writes the file: the driver's data behind the prefix. TRUE when it is
 * written or holds these data already. */
static gboolean
write_file (PipelineCache * pc)
{
  gsize size = 0;
  guint8 *file;
  gchar *dir;
  GError *err = NULL;
  VkResult res;
  gboolean ok = FALSE;

  res = vkGetPipelineCacheData (pc->ctx->device, pc->cache, &size, NULL);
  if (res != VK_SUCCESS || size < VK_HEADER_BYTES) {
    g_debug ("pipeline cache not written: vkGetPipelineCacheData: %s, %"
        G_GSIZE_FORMAT " bytes", gpufft_vk_result_string (res), size);
    return FALSE;
  }
  file = g_malloc0 (PREFIX_BYTES + size);
  res = vkGetPipelineCacheData (pc->ctx->device, pc->cache, &size,
      file + PREFIX_BYTES);
  /* (VK_INCOMPLETE: it grew meanwhile; the next save writes it whole) */
  if (res != VK_SUCCESS) {
    g_debug ("pipeline cache not written: vkGetPipelineCacheData: %s",
        gpufft_vk_result_string (res));
    g_free (file);
    return FALSE;
  }
  memcpy (file, MAGIC, 8);
  write_u32 (file + 8, FORMAT_VERSION);
  write_u32 (file + 16, (guint32) size);
  write_u32 (file + 20, (guint32) ((guint64) size >> 32));
  sha256 (file + PREFIX_BYTES, size, file + 24);
  /* (a driver that keeps nothing, or only what the file has) */
  if (memcmp (file + 24, pc->sum, 32) == 0) {
    g_free (file);
    return TRUE;
  }

  dir = g_path_get_dirname (pc->path);
  if (g_mkdir_with_parents (dir, 0700) != 0)
    g_debug ("pipeline cache not written: cannot make %s", dir);
  else if (!g_file_set_contents (pc->path, (const gchar *) file,
          PREFIX_BYTES + size, &err))
    g_debug ("pipeline cache not written: %s", err->message);
  else {
    g_debug ("pipeline cache %s: %" G_GSIZE_FORMAT " bytes written",
        pc->path, size);
    memcpy (pc->sum, file + 24, 32);
    ok = TRUE;
  }
  g_clear_error (&err);
  g_free (dir);
  g_free (file);
  return ok;
}

void
gpufft_pipeline_cache_made (GpufftContext * ctx)
{
  PipelineCache *pc = get (ctx);

  g_mutex_lock (&pc->lock);
  pc->dirty = TRUE;
  g_mutex_unlock (&pc->lock);
}

void
gpufft_pipeline_cache_save (GpufftContext * ctx)
{
  PipelineCache *pc = get (ctx);

  if (pc->cache == VK_NULL_HANDLE || g_atomic_int_get (&pc->full))
    return;
  g_mutex_lock (&pc->lock);
  if (pc->dirty && (!within_limit (pc) || pc->path == NULL
          || write_file (pc)))
    pc->dirty = FALSE;
  g_mutex_unlock (&pc->lock);
}
