/* What the driver compiled for each compute pipeline (registers, spills,
 * shared memory, instruction counts: whatever it reports), for tuning the
 * kernels, through VK_KHR_pipeline_executable_properties.
 *
 * With the environment variable GPUFFT_PIPELINE_STATS set (to anything but
 * "" or "0") and a device that offers the extension and its feature
 * pipelineExecutableInfo, the context enables both
 * (gpufft_pipeline_stats_supported(), gpufft_pipeline_stats_enable()),
 * every pipeline is created with VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR
 * (gpufft_pipeline_stats_flags()) and, once made, has its statistics
 * printed to stderr (g_printerr), one line per executable:
 *
 *   gpufft-pipeline-stats: module=spirv-BYTES-HASH spec=ID=VALUE,...
 *       executable="NAME" subgroup_size=N STAT=VALUE ...
 *
 * (one line). BYTES: the SPIR-V module's size; HASH: the first 8 hex
 * digits of its SHA-256; spec: the specialization constants (ID: the
 * constant_id, VALUE: decimal), "-" for none; NAME: the driver's name of
 * the executable, '"', '\' and control characters as '_'; STAT: the
 * driver's name of a statistic, every character but letters, digits, '_',
 * '-' and '.' as '_' ("Register Count": Register_Count); VALUE: a decimal
 * integer, true or false, or a float (%g). At most
 * GPUFFT_PIPELINE_STATS_MAX_EXECUTABLES executables per pipeline and
 * GPUFFT_PIPELINE_STATS_MAX_STATISTICS statistics per executable are
 * printed (a line says what was left out). A query that fails is a
 * one-line warning; the pipeline is unaffected.
 *
 * Printed once per pipeline made: a pipeline that the context's cache
 * (gpufft-cache.h) hands out again was printed when it was made; one that
 * the driver takes from its pipeline cache (gpufft-pipeline-cache.h) is
 * created with the flag like any other, and printed. With the variable
 * unset, nothing changes: no extension, no flag, no line. On a device
 * without the extension the variable does nothing (a debug line says so).
 *
 * Thread-safe (each line is one g_printerr call: lines of pipelines made
 * at once do not mix). */
#ifndef __GPUFFT_PIPELINE_STATS_H__
#define __GPUFFT_PIPELINE_STATS_H__

#include "gpufft-context-private.h"

G_BEGIN_DECLS

#define GPUFFT_PIPELINE_STATS_MAX_EXECUTABLES 16
#define GPUFFT_PIPELINE_STATS_MAX_STATISTICS 64

/* TRUE when GPUFFT_PIPELINE_STATS asks for statistics and phys offers
 * VK_KHR_pipeline_executable_properties with pipelineExecutableInfo (the
 * context then enables both on its device). Unset: FALSE, without a call
 * to the driver. */
gboolean gpufft_pipeline_stats_supported (VkPhysicalDevice phys);

/* On a device made with the extension and feature: resolves the two
 * functions into ctx (ctx->get_executable_props, get_executable_stats),
 * which turns the statistics on for its pipelines. */
void gpufft_pipeline_stats_enable (GpufftContext * ctx);

/* The flags a compute pipeline of ctx is created with. */
VkPipelineCreateFlags gpufft_pipeline_stats_flags (GpufftContext * ctx);

/* Prints the statistics of pipeline, made from spirv with spec_values
 * (constant_id i: spec_values[i]); nothing when they are off. */
void gpufft_pipeline_stats_print (GpufftContext * ctx, VkPipeline pipeline,
    const guint32 * spirv, gsize spirv_bytes, const guint32 * spec_values,
    guint n_spec);

G_END_DECLS

#endif /* __GPUFFT_PIPELINE_STATS_H__ */
