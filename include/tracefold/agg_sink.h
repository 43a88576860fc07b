/* agg_sink.h - the aggregate as a span consumer: calls and self time per
 * (call path, labels), and the selected counters at the call path active
 * when they fired.
 *
 *   stack builder --spans--> agg sink --> tf_agg --> pprof, top, diff, merge */
#ifndef TRACEFOLD_AGG_SINK_H
#define TRACEFOLD_AGG_SINK_H

#include "ctx.h"
#include "agg.h"
#include "span.h"

typedef struct tf_agg_sink tf_agg_sink;

/* ctx and agg are borrowed; the spans' node ids must be agg's call paths
 * (a stack builder over tf_agg_cpath(agg)).  Adds the sample types
 * calls/count and wall/nanoseconds (default wall).  counters: names
 * (NULL-terminated, or NULL) whose values become sample types; "all"
 * selects every counter. */
tf_agg_sink *tf_agg_sink_new(tf_ctx *ctx, tf_agg *agg, const char *const *counters);

/* A step of an input: Kineto's ProfilerStep#N (n = N; its CPU span; rank
 * TF_STEP_ANY_RANK: every track of the input), or with --step-region NAME
 * the n-th instance (from 0) of region NAME on one rank's first track that
 * has it (rank: that track's rank, -1 none). */
#define TF_STEP_ANY_RANK INT64_MIN
typedef struct tf_step {
	uint32_t input;
	int64_t rank;
	int64_t n, start_ns, end_ns;
} tf_step;
/* --label-steps (and diff --gate): every sample gets a numeric label step =
 * n of the step of its input (and rank) whose span holds the time it
 * happened: a region's start, a GPU activity's launch (its own start when
 * no launch is known), an event's time; none outside every step.  steps:
 * sorted by (input, rank, start), borrowed. */
void tf_agg_sink_label_steps(tf_agg_sink *k, const tf_step *steps, size_t n);
void tf_agg_sink_free(tf_agg_sink *k); /* NULL-safe */
tf_span_sink *tf_agg_sink_spans(tf_agg_sink *k);

/* Puts the sample types of a trace aggregate in their canonical order,
 * which does not depend on the order the types were met in: calls, wall,
 * then those of gpu, alloc_space and alloc_objects present, then any other
 * type that is not a counter (by name), then the counter types
 * (TF_COUNTER_TYPE_PREFIX NAME) that counters (the -c list, as given to
 * tf_agg_sink_new; may be NULL) names, in its order, then the other
 * counters (-c all) by name; names compared as bytes (memcmp, the shorter
 * first on a common prefix).  Run once the agg sink is done (its type
 * indices are stale afterwards): the pipeline does after the stack builder
 * finished, and a merge of partial aggregates does again.  0, or
 * TF_ENOMEM (the agg unchanged then). */
int tf_agg_sink_order_types(tf_agg *agg, const char *const *counters);

/* Labels of a track as written to profiles: rank (or pid), thread. */
int tf_track_labels(tf_ctx *ctx, uint32_t track, tf_label *out, int max);

#endif
