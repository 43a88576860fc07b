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

#endif
