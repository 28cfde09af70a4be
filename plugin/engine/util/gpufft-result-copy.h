/* An owned copy of a GpufftGroupResult (gpufft.h): what a plan without a
 * result function keeps in its stash until gpufft_plan_collect() hands it
 * over. Device plans (gpufft-plan-results.c) and host plans
 * (gpufft-plan-host.c) copy their results with it.
 *
 * Layout: one allocation, the GpufftGroupResult first, then every array
 * it points to (peaks, channel frames, power, complex data, phase, bands,
 * level, frame rows: each as long as gpufft.h gives it); an array that is
 * NULL in the original stays NULL, one of no elements points to an empty
 * part of the block. Freed with g_free(). Any thread. */
#ifndef __GPUFFT_RESULT_COPY_H__
#define __GPUFFT_RESULT_COPY_H__

#include "gpufft.h"

G_BEGIN_DECLS

GpufftGroupResult *gpufft_result_copy (const GpufftGroupResult * r);

G_END_DECLS

#endif /* __GPUFFT_RESULT_COPY_H__ */
