/* The driver's statistics of each pipeline: see gpufft-pipeline-stats.h. */
#include <string.h>

#include "gpufft-extension.h"
#include "gpufft-pipeline-stats.h"
#include "gpufft-vk-error.h"

#define PREFIX "gpufft-pipeline-stats: "

static gboolean
wanted (void)
{
  const gchar *v = g_getenv ("GPUFFT_PIPELINE_STATS");

  return v != NULL && v[0] != '\0' && strcmp (v, "0") != 0;
}

gboolean
gpufft_pipeline_stats_supported (VkPhysicalDevice phys)
{
  VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR exec = {
    .sType =
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR,
  };
  VkPhysicalDeviceFeatures2 feat2 = {
    .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
    .pNext = &exec,
  };

  if (!wanted ())
    return FALSE;
  if (!gpufft_extension_offered (phys,
          VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME)) {
    g_debug ("GPUFFT_PIPELINE_STATS: the device offers no "
        VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME ": no statistics");
    return FALSE;
  }
  vkGetPhysicalDeviceFeatures2 (phys, &feat2);
  if (!exec.pipelineExecutableInfo)
    g_debug ("GPUFFT_PIPELINE_STATS: the device has no pipelineExecutableInfo:"
        " no statistics");
  return exec.pipelineExecutableInfo;
}

void
gpufft_pipeline_stats_enable (GpufftContext * ctx)
{
  ctx->get_executable_props = (PFN_vkGetPipelineExecutablePropertiesKHR)
      vkGetDeviceProcAddr (ctx->device, "vkGetPipelineExecutablePropertiesKHR");
  ctx->get_executable_stats = (PFN_vkGetPipelineExecutableStatisticsKHR)
      vkGetDeviceProcAddr (ctx->device, "vkGetPipelineExecutableStatisticsKHR");
  if (ctx->get_executable_props == NULL || ctx->get_executable_stats == NULL) {
    g_debug ("GPUFFT_PIPELINE_STATS: the driver gives no "
        "vkGetPipelineExecutable*KHR: no statistics");
    ctx->get_executable_props = NULL;
    ctx->get_executable_stats = NULL;
  }
}

VkPipelineCreateFlags
gpufft_pipeline_stats_flags (GpufftContext * ctx)
{
  return ctx->get_executable_stats ?
      VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR : 0;
}

/* "module=spirv-BYTES-HASH spec=ID=VALUE,..." */
static gchar *
module_text (const guint32 * spirv, gsize spirv_bytes,
    const guint32 * spec_values, guint n_spec)
{
  gchar *sum = g_compute_checksum_for_data (G_CHECKSUM_SHA256,
      (const guchar *) spirv, spirv_bytes);
  GString *s = g_string_new (NULL);
  guint i;

  g_string_append_printf (s, "module=spirv-%" G_GSIZE_FORMAT "-%.8s spec=",
      spirv_bytes, sum);
  for (i = 0; i < n_spec; i++)
    g_string_append_printf (s, "%s%u=%u", i ? "," : "", i, spec_values[i]);
  if (n_spec == 0)
    g_string_append_c (s, '-');
  g_free (sum);
  return g_string_free (s, FALSE);
}

/* text[0..max) with every character not allowed as '_'. */
static void
append_clean (GString * s, const gchar * text, gsize max, gboolean name)
{
  gsize i;

  for (i = 0; i < max && text[i] != '\0'; i++) {
    gchar c = text[i];
    gboolean ok = name ? (g_ascii_isalnum (c) || c == '_' || c == '-'
        || c == '.') : ((guchar) c >= 0x20 && c != 0x7f && c != '"'
        && c != '\\');

    g_string_append_c (s, ok ? c : '_');
  }
}

static void
append_value (GString * s, const VkPipelineExecutableStatisticKHR * st)
{
  gchar buf[G_ASCII_DTOSTR_BUF_SIZE];

  switch (st->format) {
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR:
      g_string_append (s, st->value.b32 ? "true" : "false");
      break;
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR:
      g_string_append_printf (s, "%" G_GINT64_FORMAT, (gint64) st->value.i64);
      break;
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR:
      g_string_append_printf (s, "%" G_GUINT64_FORMAT, (guint64) st->value.u64);
      break;
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_FLOAT64_KHR:
      g_string_append (s, g_ascii_formatd (buf, sizeof (buf), "%g",
              st->value.f64));
      break;
    default:
      g_string_append (s, "?");
      break;
  }
}

/* One line: executable index's statistics. */
static void
print_executable (GpufftContext * ctx, VkPipeline pipeline, guint32 index,
    const VkPipelineExecutablePropertiesKHR * props, const gchar * module)
{
  VkPipelineExecutableInfoKHR info = {
    .sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR,
    .pipeline = pipeline,
    .executableIndex = index,
  };
  VkPipelineExecutableStatisticKHR *stats;
  guint32 n = 0, i;
  GString *line;
  VkResult res;

  res = ctx->get_executable_stats (ctx->device, &info, &n, NULL);
  if (res != VK_SUCCESS) {
    g_warning (PREFIX "%s: executable %u: statistics not read "
        "(vkGetPipelineExecutableStatisticsKHR: %s)", module, index,
        gpufft_vk_result_string (res));
    return;
  }
  n = MIN (n, GPUFFT_PIPELINE_STATS_MAX_STATISTICS);
  stats = g_new0 (VkPipelineExecutableStatisticKHR, MAX (n, 1));
  for (i = 0; i < n; i++)
    stats[i].sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR;
  res = ctx->get_executable_stats (ctx->device, &info, &n, stats);
  if (res != VK_SUCCESS && res != VK_INCOMPLETE) {
    g_warning (PREFIX "%s: executable %u: statistics not read "
        "(vkGetPipelineExecutableStatisticsKHR: %s)", module, index,
        gpufft_vk_result_string (res));
    g_free (stats);
    return;
  }

  line = g_string_new (PREFIX);
  g_string_append_printf (line, "%s executable=\"", module);
  append_clean (line, props->name, sizeof (props->name), FALSE);
  g_string_append_printf (line, "\" subgroup_size=%u", props->subgroupSize);
  for (i = 0; i < n; i++) {
    g_string_append_c (line, ' ');
    append_clean (line, stats[i].name, sizeof (stats[i].name), TRUE);
    g_string_append_c (line, '=');
    append_value (line, &stats[i]);
  }
  if (res == VK_INCOMPLETE)
    g_string_append_printf (line, " (statistics beyond the first %u left "
        "out)", n);
  g_printerr ("%s\n", line->str);
  g_string_free (line, TRUE);
  g_free (stats);
}

void
gpufft_pipeline_stats_print (GpufftContext * ctx, VkPipeline pipeline,
    const guint32 * spirv, gsize spirv_bytes, const guint32 * spec_values,
    guint n_spec)
{
  VkPipelineInfoKHR info = {
    .sType = VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR,
    .pipeline = pipeline,
  };
  VkPipelineExecutablePropertiesKHR *props;
  guint32 n = 0, i;
  gchar *module;
  VkResult res;

  if (ctx->get_executable_props == NULL)
    return;
  module = module_text (spirv, spirv_bytes, spec_values, n_spec);
  res = ctx->get_executable_props (ctx->device, &info, &n, NULL);
  if (res != VK_SUCCESS) {
    g_warning (PREFIX "%s: executables not read "
        "(vkGetPipelineExecutablePropertiesKHR: %s)", module,
        gpufft_vk_result_string (res));
    g_free (module);
    return;
  }
  n = MIN (n, GPUFFT_PIPELINE_STATS_MAX_EXECUTABLES);
  props = g_new0 (VkPipelineExecutablePropertiesKHR, MAX (n, 1));
  for (i = 0; i < n; i++)
    props[i].sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_PROPERTIES_KHR;
  res = ctx->get_executable_props (ctx->device, &info, &n, props);
  if (res != VK_SUCCESS && res != VK_INCOMPLETE)
    g_warning (PREFIX "%s: executables not read "
        "(vkGetPipelineExecutablePropertiesKHR: %s)", module,
        gpufft_vk_result_string (res));
  else if (n == 0)
    g_warning (PREFIX "%s: the driver reports no executable", module);
  else {
    for (i = 0; i < n; i++)
      print_executable (ctx, pipeline, i, &props[i], module);
    if (res == VK_INCOMPLETE)
      g_printerr (PREFIX "%s: executables beyond the first %u left out\n",
          module, n);
  }
  g_free (props);
  g_free (module);
}
