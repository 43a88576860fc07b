/* filter.h - the input filters every trace-reading command shares
 * (docs/cli.md "Filters"): --ranks LIST keeps the tracks of some MPI ranks,
 * --window START:END keeps what happened in [START, END).  One span
 * consumer placed between the stack builder and all its other consumers,
 * the aggregate's included (tf_stacks_new's filter), so profiles, tables and
 * timelines all see the same spans:
 *
 *   stack builder --spans--> filter --spans--> aggregate, writers, checks
 *
 * On spans: a track whose rank is not in the list (or that has no rank) is
 * left out whole; a span entirely outside the window is left out, one that
 * overlaps it is clipped to it and its self time becomes its clipped
 * duration less its kept direct children's clipped durations.  Other events
 * are kept when START <= ts < END.  What is left out is counted in the
 * diagnostics (ranks_*, window_*: info severity). */
#ifndef TRACEFOLD_FILTER_H
#define TRACEFOLD_FILTER_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include "ctx.h"
#include "err.h"
#include "span.h"

/* An inclusive range of ranks: "5" is {5, 5}, "5-7" is {5, 7}. */
typedef struct tf_rank_range {
	int64_t lo, hi;
} tf_rank_range;

/* --window START:END as written: each bound absent, relative (from the
 * run's first timestamp) or absolute ('@': the inputs' own time base). */
typedef struct tf_window {
	bool has_start, has_end;
	bool start_abs, end_abs;
	int64_t start_ns, end_ns;
} tf_window;

typedef struct tf_filter_opts {
	const tf_rank_range *ranks; /* nranks == 0: every track */
	size_t nranks;
	const char *ranks_text;     /* the LIST as written, for messages */
	tf_window window;
	const char *window_text;    /* NULL: no --window */
	/* --steps A:B (Kineto's ProfilerStep#N, A <= N <= B): the pipeline
	 * turns it into an absolute window (tf_pipeline_steps); NULL: none */
	const char *steps_text;
	int64_t step_lo, step_hi;
	/* --label-steps: no filter, a step label on every sample (agg_sink.h);
	 * here because every command hands these options to the pipeline */
	bool label_steps;
	/* --step-region NAME: the steps are the instances of region NAME (per
	 * rank), not Kineto's ProfilerStep#N; NULL: those */
	const char *step_region;
} tf_filter_opts;

/* "0,2,5-7" -> ranges (*out malloc'd, the caller frees it).  TF_EUSAGE with
 * a message naming the bad part, or TF_ENOMEM. */
int tf_ranks_parse(const char *list, tf_rank_range **out, size_t *n, tf_error *err);
/* "1.5s", "250ms", "10us", "1795346157100000000ns" -> exact nanoseconds
 * (decimal arithmetic, no rounding: a value finer than 1 ns is an error).
 * A unit (ns, us, ms, s) is required.  TF_EUSAGE with a message. */
int tf_time_parse(const char *s, int64_t *ns_out, tf_error *err);
/* "START:END", each side empty, a time (relative) or '@' and a time
 * (absolute).  START < END when both are of the same kind. */
int tf_window_parse(const char *spec, tf_window *w, tf_error *err);
/* "5:8", "5" (one step), "5:" (from 5 on), ":8" -> [*lo, *hi].  TF_EUSAGE. */
int tf_steps_parse(const char *spec, int64_t *lo, int64_t *hi, tf_error *err);

/* Does --ranks keep a track of this rank (-1: none)?  True without --ranks. */
bool tf_filter_rank_kept(const tf_filter_opts *o, int64_t rank);
/* Does o filter anything? (NULL-safe) */
bool tf_filter_active(const tf_filter_opts *o);
/* Does the window need the run's first timestamp (a relative bound)? */
bool tf_window_relative(const tf_window *w);
/* The absolute [*start, *end) of w, relative bounds counted from first_ns;
 * an absent bound is INT64_MIN / INT64_MAX.  TF_EUSAGE if start >= end. */
int tf_window_resolve(const tf_window *w, int64_t first_ns, int64_t *start, int64_t *end, tf_error *err);

typedef struct tf_filter tf_filter;

/* A filter with the window [start_ns, end_ns) (absolute, from
 * tf_window_resolve; INT64_MIN, INT64_MAX: none); first_ns is what relative
 * bounds count from (for messages; has_first false: no relative bound).  o
 * and ctx are borrowed. */
tf_filter *tf_filter_new(tf_ctx *ctx, const tf_filter_opts *o, int64_t start_ns, int64_t end_ns, bool has_first,
			 int64_t first_ns);
void tf_filter_free(tf_filter *f); /* NULL-safe */
/* Adds a consumer of the filtered spans (borrowed; at most 8). */
int tf_filter_add_consumer(tf_filter *f, tf_span_sink *k);
/* What the stack builder hands the spans to. */
tf_span_sink *tf_filter_spans(tf_filter *f);
/* After the last track: 0 if anything was kept, else TF_EFORMAT with a
 * message naming the filter and what the run holds (the ranks present, the
 * run's time span). */
int tf_filter_check(const tf_filter *f, tf_error *err);
/* The time the kept regions and events cover (first start, last end); 0 if
 * none was kept. */
int tf_filter_time_span(const tf_filter *f, int64_t *first_ns, int64_t *last_ns);

#endif
