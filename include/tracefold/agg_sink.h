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

/* A training step (Kineto's ProfilerStep#N) of an input: its CPU span. */
typedef struct tf_step {
	uint32_t input;
	int64_t n, start_ns, end_ns;
} tf_step;
/* --label-steps: every sample gets a numeric label step = N, the
 * ProfilerStep#N among its call path's frames (a GPU activity: its
 * launch's), else the step of its input whose span holds its start, else
 * none.  steps: sorted by (input, start), borrowed. */
void tf_agg_sink_label_steps(tf_agg_sink *k, const tf_step *steps, size_t n);
void tf_agg_sink_free(tf_agg_sink *k); /* NULL-safe */
tf_span_sink *tf_agg_sink_spans(tf_agg_sink *k);

/* Labels of a track as written to profiles: rank (or pid), thread. */
int tf_track_labels(tf_ctx *ctx, uint32_t track, tf_label *out, int max);

#endif
