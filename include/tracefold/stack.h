/* stack.h - the stack builder: a tf_sink that rebuilds each track's call
 * stack from BEGIN/END/COMPLETE events and feeds self time and call counts
 * into a tf_agg (rules and repairs: docs/stack-rules.md).
 *
 * Tracks whose tf_track.needs_sort is set (Chrome JSON: no order promise) are
 * buffered as compact spans and sorted when their input ends; other tracks
 * (TAU, OTF2) are processed as the events stream in, in input order, never
 * re-sorted by timestamp. */
#ifndef TRACEFOLD_STACK_H
#define TRACEFOLD_STACK_H

#include "sink.h"
#include "ctx.h"
#include "agg.h"

typedef struct tf_stacks tf_stacks;

/* Sample types of counters are named TF_COUNTER_TYPE_PREFIX + the counter's
 * name ("counter:bytes processed"), so they never collide with calls/wall. */
#define TF_COUNTER_TYPE_PREFIX "counter:"

typedef struct tf_stacks_opts {
	/* Counter names (NULL-terminated array, or NULL) whose values become
	 * sample types attributed to the call path active when they fire;
	 * "all" selects every counter. */
	const char *const *counters;
} tf_stacks_opts;

/* ctx and agg are borrowed.  The agg gets sample types calls/count and
 * wall/nanoseconds (default wall) added. */
tf_stacks *tf_stacks_new(tf_ctx *ctx, tf_agg *agg, const tf_stacks_opts *opts);
void tf_stacks_free(tf_stacks *s); /* NULL-safe */
tf_sink *tf_stacks_sink(tf_stacks *s);
/* Closes whatever is still open (counted as repairs) and resolves labels.
 * Call once after the last input; also sets the agg's time span. */
int tf_stacks_finish(tf_stacks *s);

/* Labels of a track as written to profiles: rank (or pid), thread. */
int tf_track_labels(tf_ctx *ctx, uint32_t track, tf_label *out, int max);

#endif
