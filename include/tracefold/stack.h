/* stack.h - the stack builder: a tf_sink that rebuilds each track's call
 * stack from BEGIN/END/COMPLETE events, applies the rules and repairs of
 * docs/stack-rules.md and hands the matched regions (spans, span.h) to its
 * consumers: the aggregate (agg_sink.h) and any writer.
 *
 *   readers --tf_event--> stack builder --tf_span--> consumers
 *
 * Tracks whose tf_track.needs_sort is set (Chrome JSON: no order promise) are
 * buffered as compact spans and nested when their input ends; other tracks
 * (TAU, OTF2) are processed as the events stream in, in input order, never
 * re-sorted by timestamp. */
#ifndef TRACEFOLD_STACK_H
#define TRACEFOLD_STACK_H

#include "sink.h"
#include "ctx.h"
#include "cpath.h"
#include "span.h"
#include "agg_sink.h"
#include "filter.h"

typedef struct tf_stacks tf_stacks;

/* A stack builder whose spans name their call paths in cp (borrowed). */
tf_stacks *tf_stacks_new_spans(tf_ctx *ctx, tf_cpath *cp);
/* Adds a consumer (borrowed; at most 8), before the first event. */
int tf_stacks_add_consumer(tf_stacks *s, tf_span_sink *k);

typedef struct tf_stacks_opts {
	/* Counter names (NULL-terminated array, or NULL) whose values become
	 * sample types attributed to the call path active when they fire;
	 * "all" selects every counter. */
	const char *const *counters;
	/* When set, every span and event passes through this filter
	 * (filter.h) on its way to every consumer, the aggregate's included:
	 * the consumers added to the stack builder are added to it.  Borrowed. */
	tf_filter *filter;
	/* --label-steps: the run's steps (agg_sink.h), sorted by (input,
	 * start); NULL: no step labels.  Borrowed. */
	const tf_step *steps;
	size_t nsteps;
} tf_stacks_opts;

/* The usual wiring: a stack builder over agg's call paths with an aggregate
 * consumer (tf_agg_sink) of its own; tf_stacks_finish also sets the agg's
 * time span.  ctx and agg are borrowed. */
tf_stacks *tf_stacks_new(tf_ctx *ctx, tf_agg *agg, const tf_stacks_opts *opts);
void tf_stacks_free(tf_stacks *s); /* NULL-safe */
tf_sink *tf_stacks_sink(tf_stacks *s);
/* Closes whatever is still open (counted as repairs).  Call once after the
 * last input. */
int tf_stacks_finish(tf_stacks *s);
/* The first and last timestamp of all tracks; 0 if there was none. */
int tf_stacks_time_span(const tf_stacks *s, int64_t *first_ns, int64_t *last_ns);

#endif
