/* procs.h - -j over processes (procs.c), for threads.c. */
#ifndef TF_PROCS_H
#define TF_PROCS_H
#include "tracefold/dist.h"

/* tf_dist_threads's run on nproc processes (this one and forked children)
 * with the plan[0..nplan) made for them (parts of OTF2 archives are their
 * locations).  Returns 0 or a negative TF_E* with err filled (the error of
 * the process that failed), or 1 when no processes could be had (nothing
 * was read: the caller reads another way). */
int tf_dist_procs(int nproc, tf_ctx *ctx, tf_agg *agg, const char *const *inputs, int n, const tf_pipeline_opts *o,
		  tf_plan_part *plan, size_t nplan, tf_error *err);
#endif
