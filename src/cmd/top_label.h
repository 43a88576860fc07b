/* top_label.h - `tracefold top --by-label KEY[,KEY...]` (top_label.c). */
#ifndef TRACEFOLD_CMD_TOP_LABEL_H
#define TRACEFOLD_CMD_TOP_LABEL_H

#include "tracefold/agg.h"

/* Prints the totals of sample type t (and calls) per distinct value of the
 * labels keys (comma-separated) of agg, most first, count rows (0 all), as
 * text, Markdown or JSON (TF_OUT_*); inputs name the run in JSON.
 * Returns an exit status. */
int tf_top_by_label(tf_agg *agg, int t, const char *keys, int fmt, long long count,
		    const char *const *inputs, int ninputs);

/* The aggregate agg seen by the labels keys (comma-separated): one call
 * path per distinct tuple of their values, a frame such as
 * "collective=all_reduce comm_bytes=4194304", "[without the labels]" for
 * the samples with none of them, with every sample type's values summed
 * (the types at the same indices), into *out (free it); for `diff
 * --by-label`.  Returns an exit status (a usage error is printed). */
int tf_agg_label_view(tf_agg *agg, const char *keys, tf_agg **out);

#endif
