/* pipeline.h - the stage that wires the others, shared by every command:
 *
 *   inputs -> readers -> events -> stack builder -> aggregate (+ pprof and
 *                                                              folded inputs)
 *
 * It returns errors as values (tf_error naming the input) and leaves
 * warnings in the ctx (tf_ctx_warn); commands print them.  It never prints. */
#ifndef TRACEFOLD_PIPELINE_H
#define TRACEFOLD_PIPELINE_H

#include <stdbool.h>
#include "ctx.h"
#include "agg.h"
#include "err.h"
#include "span.h"
#include "filter.h"
#include "agg_sink.h"
#include "reader.h"

/* Distributed runs (docs/distributed.md): each process reads a share of
 * the inputs' parts (tf_format.parts) into its own aggregate, the partial
 * aggregates are added up, and one process concludes the run. */
enum { TF_SEL_ALL = 0, TF_SEL_NONE, TF_SEL_PARTS };
typedef struct tf_input_sel {
	int mode;                       /* TF_SEL_*: all of the input, none of it, or parts */
	const uint8_t *mask;            /* TF_SEL_PARTS: part i is read when i < nmask && mask[i] */
	size_t nmask;
} tf_input_sel;

/* What a partial run read, for tf_pipeline_conclude once the partial
 * aggregates are added up (sums and extremes, so they add up too). */
typedef struct tf_pipeline_partial {
	tf_diag *input_diags;           /* the caller's, one per input: what was read of each */
	bool any_time;                  /* the stack builder's time span (tf_stacks_time_span) */
	int64_t min_ns, max_ns;
} tf_pipeline_partial;

typedef struct tf_pipeline_opts {
	const char *format;             /* force this format (a row of tf_formats), or NULL to sniff */
	const tf_format *const *formats; /* each input's format, resolved once by the caller
					 * (tf_inputs_resolve), or NULL: resolved here (format) */
	const char *const *counters;    /* tf_agg_sink_new's counters */
	uint32_t first_input;           /* input index of inputs[0] (distinct per run in one ctx) */
	bool comments;                  /* record inputs and event counts as profile comments */
	tf_span_sink *const *consumers; /* more span consumers beside the aggregate (writers,
					 * checks), NULL-terminated, or NULL; borrowed */
	const tf_filter_opts *filter;   /* --ranks, --window (filter.h), or NULL; borrowed */
	const char *folded_type;        /* --folded-type "TYPE/UNIT": the sample type of folded
					 * stack inputs (folded.h), or NULL for samples/count */
	const tf_input_sel *select;     /* a partial run: per input, what this process reads */
	/* --label-steps with the steps found already (tf_pipeline_step_list:
	 * the overview's), borrowed; NULL: found here */
	const tf_step *steps;
	size_t nsteps;
	tf_pipeline_partial *partial;   /* a partial run (with select): what it read, out.  The
					 * checks that need the whole run (an input with nothing
					 * usable, an empty result, unmatched -c names), the comments
					 * and the profile's time span are left to tf_pipeline_conclude
					 * (--ranks or --window that keep nothing: its empty-result
					 * error, without the ranks present).  Traces only; no relative window,
					 * --steps or --label-steps (they need a first pass over all). */
} tf_pipeline_opts;

/* Reads inputs[0..n) into agg (empty, over ctx's string table): traces
 * through their readers and one stack builder, profiles (pprof, folded
 * stacks) added as they are, with the union of their sample types (one
 * an input lacks is 0 there).  An input from which nothing usable was
 * read, a profile with no samples, a sample type with two units, and an
 * empty result are errors.
 * With o->filter, the spans pass through a tf_filter on their way to the
 * aggregate and every consumer; a window with a relative bound first reads
 * every input once more (tf_pipeline_first_ts) for the run's first
 * timestamp.  Filters need traces: a profile input is then TF_EUSAGE.
 * Returns 0 or a negative TF_E* with err filled (err may be NULL). */
int tf_pipeline_run(tf_ctx *ctx, tf_agg *agg, const char *const *inputs, int n, const tf_pipeline_opts *o,
		    tf_error *err);

/* The end of a distributed run, on the process that writes the outputs:
 * agg is the sum of the partial aggregates, total the sum of their
 * tf_pipeline_partial (input diagnostics added up, time span widened) and
 * ctx's diagnostics the sum of theirs.  Does what tf_pipeline_run does
 * after reading, so that the profile is the one a single process writes:
 * the per-input checks, comments, the time span, the sample type order,
 * warnings and the empty-result error.  Returns 0 or a negative TF_E*. */
int tf_pipeline_conclude(tf_ctx *ctx, tf_agg *agg, const char *const *inputs, int n, const tf_pipeline_opts *o,
			 const tf_pipeline_partial *total, tf_error *err);

/* The filters a partial run takes: --ranks and a --window with absolute
 * bounds; TF_EUSAGE (saying why) for the others. */
int tf_pipeline_partial_ok(const tf_filter_opts *fo, tf_error *err);

/* A part of the run's inputs (tf_format.parts) and its share-out. */
typedef struct tf_plan_part {
	uint32_t input;                 /* index in inputs */
	uint32_t part;                  /* index among the input's parts */
	uint64_t bytes;
	uint32_t owner;                 /* the process that reads it (tf_pipeline_plan_assign) */
} tf_plan_part;

/* Lists the parts of every input (a trace; profiles and standard input
 * are usage errors: they cannot be shared out) into *out (malloc'd, the
 * caller frees it).  Returns the number of parts or a negative TF_E*. */
int tf_pipeline_plan(tf_ctx *ctx, const char *const *inputs, int n, const tf_format *const *fmts,
		     tf_plan_part **out, tf_error *err);
/* Shares the parts out among nproc processes, balanced by bytes (the
 * largest first, each to the process with the fewest bytes so far, the
 * lower number on a tie): the same answer on every process. */
void tf_pipeline_plan_assign(tf_plan_part *parts, size_t n, uint32_t nproc);
/* The selection (tf_pipeline_opts.select) of process `me`: sel[0..ninputs)
 * and one mask buffer (*masks, malloc'd; the caller frees it).  Returns 0
 * or TF_ENOMEM. */
int tf_pipeline_plan_select(const tf_plan_part *parts, size_t n, int ninputs, uint32_t me, tf_input_sel *sel,
			    uint8_t **masks);

/* The run's first timestamp: the smallest ts_ns of any event but metadata
 * in inputs[0..n) (what 'tracefold info' calls the start of the time span),
 * read through each input's reader into a scratch context (so ctx's tracks
 * and diagnostics are untouched; its reader options are used).  Returns 1
 * and sets *first_ns, 0 if no event has a timestamp, or a negative TF_E*. */
int tf_pipeline_first_ts(tf_ctx *ctx, const char *const *inputs, int n, const tf_format *const *fmts,
			 int64_t *first_ns, tf_error *err);

/* --steps (fo->steps_text): reads the inputs once (scratch contexts, as
 * above) for the window [*start, *end) of Kineto's ProfilerStep#N regions
 * with fo->step_lo <= N <= fo->step_hi, extended to the end of the last GPU
 * activity launched inside them (docs/gpu.md).  TF_EUSAGE when no such
 * step exists (saying which steps do). */
int tf_pipeline_steps(tf_ctx *ctx, const char *const *inputs, int n, const tf_format *const *fmts,
		      const tf_filter_opts *fo, int64_t *start, int64_t *end, tf_error *err);

/* The absolute window [*lo, *hi) of the filter options *fo (INT64_MIN,
 * INT64_MAX: none): relative --window bounds from the run's first timestamp
 * (*rel, *first: read by a first pass), --steps from its steps (then *fo
 * points to a copy in *steps whose window says so).  Standard input cannot
 * be read twice: a usage error.  Returns 0 or a negative TF_E*. */
/* --label-steps and diff --gate: the run's steps (agg_sink.h tf_step), a
 * first pass over the inputs (as above): every ProfilerStep#N (Kineto), or
 * with region non-NULL the outermost instances of the region of that name
 * (its frame name or its name as the trace has it), per rank, those of the
 * rank's first track that has one, numbered from 0.  Input indices count
 * from first_input (tf_pipeline_opts.first_input).  Sorted by (input, rank,
 * start); *out malloc'd (the caller frees it), NULL when none.  Returns 0
 * or a negative TF_E*. */
int tf_pipeline_step_list(tf_ctx *ctx, const char *const *inputs, int n, const tf_format *const *fmts,
			  uint32_t first_input,
			  const char *region, tf_step **out, size_t *nout, tf_error *err);

typedef struct tf_window_opts {
	tf_filter_opts fo;
	char text[320];
} tf_window_opts;
int tf_pipeline_window(tf_ctx *ctx, const char *const *inputs, int n, const tf_format *const *fmts,
		       const tf_filter_opts **fo,
		       tf_window_opts *steps, int64_t *lo, int64_t *hi, bool *rel, int64_t *first, tf_error *err);

/* After reading one trace input (before = the ctx's counters before it):
 * no usable event is an error (TF_EFORMAT naming path); an input that lost
 * more events than it gave gets a ctx warning.  Returns 0 or TF_EFORMAT. */
int tf_input_check(tf_ctx *ctx, const char *path, const tf_diag *before, tf_error *err);

/* The libraries this build was linked with and their versions, as they
 * give them at run time ("zlib 1.3, zstd 1.5.4, ..."; build_info.c). */
void tf_build_libraries(char *buf, size_t n);

/* The trace input that sampled input i of fmts[0..n) is joined to
 * (docs/samples.md, "Samples under regions"): the nearest trace before it
 * on the command line, else the first after it; -1 when i is no sampled
 * input or there is no trace.  Its samples go on that trace's tracks. */
int tf_pipeline_join_of(const tf_format *const *fmts, int n, int i);
/* Are there sampled inputs and traces among fmts[0..n) (so samples are
 * joined)?  Linear. */
bool tf_pipeline_any_join(const tf_format *const *fmts, int n);
/* The order the traces and sampled inputs of fmts[0..n) are read in:
 * each sampled input joined to a trace just before that trace (its
 * samples wait on the trace's tracks, which the trace's end nests), the
 * others in their place, telemetry inputs last (tf_format.telemetry);
 * profiles left out.  order and join: room for n
 * each; join[i] gets tf_pipeline_join_of(fmts, n, i).  Returns how many
 * order holds.  Linear in n. */
int tf_pipeline_read_order(const tf_format *const *fmts, int n, int *order, int *join);
/* Around the read of sampled input i (first: the index of the run's first
 * input): its tracks are those of trace t (-1: its own) and its times
 * shifted by --clock-offset (tf_read_opts.join, shift_ns). */
void tf_pipeline_join_begin(tf_ctx *ctx, uint32_t first, int i, int t);
void tf_pipeline_join_end(tf_ctx *ctx);

#endif
