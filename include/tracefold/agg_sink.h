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
/* A consumer like k (its counters) over another ctx and agg, for tracks
 * nested on another thread (src/core/stack_par.c); NULL when out of memory
 * or when k cannot have one (--label-steps). */
tf_agg_sink *tf_agg_sink_twin(const tf_agg_sink *k, tf_ctx *ctx, tf_agg *agg);

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
/* The step of steps[0..n) (sorted by (input, rank, start)) that holds ts
 * for a track of input and rank (its own, -1 none): its index, SIZE_MAX
 * when none does.  Steps that name no rank (TF_STEP_ANY_RANK: Kineto's,
 * one process per input) hold every rank of their input; the step labels
 * and the overview (overview.h) find steps by it. */
size_t tf_step_find(const tf_step *steps, size_t n, uint32_t input, int64_t rank, int64_t ts);
void tf_agg_sink_free(tf_agg_sink *k); /* NULL-safe */
tf_span_sink *tf_agg_sink_spans(tf_agg_sink *k);

/* Puts the sample types of a trace aggregate in their canonical order,
 * which does not depend on the order the types were met in: calls, wall,
 * then those of gpu, alloc_space, alloc_objects, free_space,
 * free_objects, inuse_space and inuse_objects present, then any other
 * type that is not a counter (by name), then the counter types
 * (TF_COUNTER_TYPE_PREFIX NAME) that counters (the -c list, as given to
 * tf_agg_sink_new; may be NULL) names, in its order, then the other
 * counters (-c all) by name; names compared as bytes (memcmp, the shorter
 * first on a common prefix).  Run once the agg sink is done (its type
 * indices are stale afterwards): the pipeline does after the stack builder
 * finished, and a merge of partial aggregates does again.  0, or
 * TF_ENOMEM (the agg unchanged then). */
int tf_agg_sink_order_types(tf_agg *agg, const char *const *counters);

/* Kineto's memory of one device of one process of one input
 * (docs/memory.md), from its "[memory]" events. */
typedef struct tf_mem_device {
	uint32_t input;
	tf_str process;            /* the track's process_key */
	int64_t rank;              /* -1 none */
	tf_str device;             /* "cuda:0", "cpu" (tf_event.mem_device; 0 unknown) */
	uint64_t allocs, frees;
	uint64_t frees_unknown;    /* of frees: no live allocation of the trace at that address */
	int64_t alloc_bytes, free_bytes;
	int64_t peak_bytes;        /* the most live bytes allocated in the trace at once, 0 none */
	int64_t peak_ns;           /* when first reached (INT64_MIN none) */
	uint32_t peak_node;        /* the call path that held the most of them then */
	int64_t peak_node_bytes;
} tf_mem_device;

/* Once the stack builder finished: the memory events replayed in time
 * order (each device's peak, its inuse_space and inuse_objects samples).
 * 0 or TF_ENOMEM. */
int tf_agg_sink_finish(tf_agg_sink *k);
/* The devices met, first met first (after tf_agg_sink_finish; borrowed). */
size_t tf_agg_sink_memory(const tf_agg_sink *k, const tf_mem_device **out);

/* Labels of a track as written to profiles: rank (or pid), thread. */
int tf_track_labels(tf_ctx *ctx, uint32_t track, tf_label *out, int max);

#endif
