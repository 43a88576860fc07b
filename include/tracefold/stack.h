/* stack.h - the stack builder: a tf_sink that rebuilds each track's call
 * stack from BEGIN/END/COMPLETE events, applies the rules and repairs of
 * docs/stack-rules.md and hands the matched regions (spans, span.h) to its
 * consumers.  It knows nothing of profiles: its caller adds the consumers
 * (the pipeline: the aggregate's, agg_sink.h, and any writer's) and puts
 * its time span where it wants it.
 *
 *   readers --tf_event--> stack builder --tf_span--> consumers
 *
 * Tracks whose tf_track.needs_sort is set (Chrome JSON: no order promise) are
 * buffered as compact spans and nested when their input ends; other tracks
 * (TAU, OTF2) are processed as the events stream in, in input order, never
 * re-sorted by timestamp.  Inside (src/core/stack_int.h): the nesting here,
 * the sorter of buffered tracks (sorter.c) and the GPU join (gpu_join.c). */
#ifndef TRACEFOLD_STACK_H
#define TRACEFOLD_STACK_H

#include "sink.h"
#include "ctx.h"
#include "cpath.h"
#include "span.h"
#include "filter.h"
#include "agg_sink.h"

typedef struct tf_stacks tf_stacks;

/* A stack builder whose spans name their call paths in cp; with a filter
 * (filter.h), every span and event passes through it on its way to every
 * consumer: the consumers added later are added behind it.  All borrowed;
 * NULL when out of memory. */
tf_stacks *tf_stacks_new(tf_ctx *ctx, tf_cpath *cp, tf_filter *filter);
void tf_stacks_free(tf_stacks *s); /* NULL-safe */
/* Adds a consumer (borrowed; at most 8), before the first event. */
int tf_stacks_add_consumer(tf_stacks *s, tf_span_sink *k);
tf_sink *tf_stacks_sink(tf_stacks *s);
/* k, over agg, is the one consumer added: with a thread to spare
 * (tf_read_opts.reader_threads >= 2), the end of an input may nest part of
 * its CPU tracks on a second thread, into a twin of k and agg added to agg
 * (docs/architecture.md "The end of an input on two threads"). */
void tf_stacks_end_agg(tf_stacks *s, tf_agg_sink *k, tf_agg *agg);
/* Closes whatever is still open (counted as repairs).  Call once after the
 * last input. */
int tf_stacks_finish(tf_stacks *s);
/* The first and last timestamp of all tracks; 0 if there was none. */
int tf_stacks_time_span(const tf_stacks *s, int64_t *first_ns, int64_t *last_ns);

#endif
