/* waiting.h - threads that only wait (docs/stack-rules.md "Threads that only
 * wait"): a CPU track whose every region is a Kineto Python frame (category
 * python_function: no operator, no annotation, no runtime call, no launch)
 * and whose regions without a child that last TF_WAITING_LEAF_MIN_NS (1 ms)
 * or more hold at least TF_WAITING_LEAF_PCT percent of its wall time: a
 * background thread blocked in one call
 * (queue.get, a pipe's recv, Event.wait, sleep) for nearly all the trace.
 *
 *   stack builder --spans--> agg sink (+ tf_waiting: per-track counters)
 *                            --> samples labelled waiting=1 --> top, diff,
 *                                --gate leave them out (tf_agg_without_waiting)
 *
 * Decided per track from what the aggregate's span consumer sees, streaming:
 * counters per track, and while a track can still be waiting its samples
 * (call path, labels, calls, wall: one entry per distinct call path, never
 * per event) are held back; at the track's end they go to the aggregate
 * with the label waiting=1 added, or without it.  Nothing else knows what
 * an operator is, so tracks of other inputs (TAU, OTF2, Perfetto, Chrome
 * JSON without Kineto's categories) are never waiting. */
#ifndef TRACEFOLD_WAITING_H
#define TRACEFOLD_WAITING_H

#include <stdint.h>
#include "ctx.h"
#include "agg.h"
#include "span.h"

#define TF_WAITING_LABEL "waiting"
#define TF_WAITING_CATEGORY "python_function"
#define TF_WAITING_LEAF_PCT 90
#define TF_WAITING_LEAF_MIN_NS 1000000

typedef struct tf_waiting tf_waiting;

/* ctx and agg borrowed; t_calls and t_wall: the agg's calls and wall types. */
tf_waiting *tf_waiting_new(tf_ctx *ctx, tf_agg *agg, int t_calls, int t_wall);
void tf_waiting_free(tf_waiting *w); /* NULL-safe */

/* A closed CPU region whose sample is (s->node, ls).  1: held back (the
 * caller adds nothing), 0: the caller adds it, < 0: TF_ENOMEM. */
int tf_waiting_close(tf_waiting *w, const tf_span *s, uint32_t ls);
/* Something else of the track became a sample (an allocation, a
 * counter): it is not waiting; what was held goes to the aggregate. */
int tf_waiting_touch(tf_waiting *w, uint32_t track);
/* The track is done: what it held goes to the aggregate, labelled
 * waiting=1 when it is waiting. */
int tf_waiting_end_track(tf_waiting *w, uint32_t track);

/* Whether the label set has the label waiting (any value). */
int tf_waiting_labelset(const tf_agg *a, uint32_t labelset);

/* A copy of src (over its string table and call-path tree's frames)
 * without the samples labelled waiting, with src's types, default type,
 * comments and metadata.  NULL when out of memory. */
tf_agg *tf_agg_without_waiting(const tf_agg *src);

/* The waiting threads of an aggregate: the label sets of its waiting
 * samples less the waiting label (the thread's rank or pid, thread name,
 * and step with --label-steps... merged: step is left out too), each with
 * its total of type t (wall), in the order of their first sample; total_out
 * = their sum.  *out malloc'd (free it); returns the number, < 0 on
 * TF_ENOMEM. */
typedef struct tf_waiting_thread {
	tf_label labels[TF_AGG_MAX_LABELS];
	int nlabels;
	int64_t value;
} tf_waiting_thread;
int tf_waiting_threads(const tf_agg *a, int t, tf_waiting_thread **out, int64_t *total_out);

#endif
