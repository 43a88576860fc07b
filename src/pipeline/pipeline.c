/* pipeline.c - the library's one pipeline stage that wires the others:
 *
 *   inputs -> readers (tf_formats) -> events -> stack builder -> aggregate
 *          -> profiles (tf_format.read_profile) added as they are
 *
 * shared by every command (profile, convert, top, diff, merge, fold).  Each
 * input's format is resolved once (tf_inputs_resolve; the caller's answer in
 * tf_pipeline_opts.formats, else here) and is of one kind (reader.h): a
 * trace (TF_INPUT_EVENTS; the stack builder turns it into calls/count and
 * wall/nanoseconds samples) or a profile (TF_INPUT_PROFILE: pprof, folded
 * stacks as the one sample type of --folded-type).  Traces are read first, in the given order, through
 * one stack builder; then each profile is read into a scratch aggregate and
 * added: the result has the union of the sample types (a type one input
 * lacks is 0 in its samples; one name with two units is an error).
 * Standard input ("-") is always read as
 * a trace (sniffing would consume it).  Like the whole library it never
 * prints: errors come back in tf_error, warnings as ctx warnings
 * (tf_ctx_warn), and the command prints them.
 *
 * With filters (--ranks, --window; filter.h) a tf_filter stands between the
 * stack builder and every consumer, the aggregate's included; a relative
 * window first reads every input once (tf_pipeline_first_ts) for the run's
 * first timestamp, so its inputs are read twice.
 *
 * The agg's main_file (the file name of the written profile's mapping) is
 * the bytewise least of the inputs' names: a trace's base name, a profile's
 * file name of its own first mapping (so a merge keeps the original trace's
 * name), else its base name; the same whatever the order of the inputs.
 *
 * The sample types of traces are put in their canonical order
 * (tf_agg_sink_order_types) once the stack builder has finished, before
 * profile inputs are added; profiles read as inputs keep their own order. */
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include "tracefold/pipeline.h"
#include "tracefold/reader.h"
#include "tracefold/stack.h"
#include "hmap.h"
#include "sat.h"
#include "pipeline_int.h"

/* The name of a sample type of b that a has with another unit, else NULL. */
static const char *unit_clash(const tf_agg *a, const tf_agg *b)
{
	tf_strtab *st = tf_agg_strtab(a);
	for (int t = 0; t < tf_agg_ntypes(b); t++) {
		tf_sample_type ty = tf_agg_type_get(b, t);
		int i = tf_agg_type_find(a, tf_strtab_get(st, ty.type));
		if (i >= 0 && tf_agg_type_get(a, i).unit != ty.unit)
			return tf_strtab_get(st, ty.type);
	}
	return NULL;
}

/* -c NAME that selects nothing is said, not silently ignored. */
static void warn_unmatched_counters(tf_ctx *ctx, const tf_agg *agg, const char *const *counters)
{
	if (!counters)
		return;
	for (int i = 0; counters[i]; i++) {
		char tn[512];
		snprintf(tn, sizeof(tn), "%s%s", TF_COUNTER_TYPE_PREFIX, counters[i]);
		if (!strcmp(counters[i], "all")) {
			if (!tf_ctx_diag(ctx)->n[TF_DIAG_ev_counter])
				tf_ctx_warn(ctx, "--counters all: the input has no counters");
		} else if (tf_agg_type_find(agg, tn) < 0) {
			tf_ctx_warn(ctx, "--counters: no counter named '%s' in the input ('tracefold info' lists them)",
				    counters[i]);
		}
	}
}

/* Counters of events a reader passed on (kinds), and of input it lost. */
static uint64_t sum_sev(const tf_diag *d, tf_severity sev, bool kinds)
{
	uint64_t n = 0;
	for (int i = 0; i < TF_DIAG_COUNT; i++)
		if (tf_diag_severity(i) == sev && (!kinds || !strncmp(tf_diag_name(i), "ev_", 3)))
			n += d->n[i];
	return n;
}

static int input_check_delta(tf_ctx *ctx, const char *path, tf_diag delta, tf_error *err);

int tf_input_check(tf_ctx *ctx, const char *path, const tf_diag *before, tf_error *err)
{
	tf_diag delta = *tf_ctx_diag(ctx);
	for (int i = 0; i < TF_DIAG_COUNT; i++) {
		delta.n[i] -= before->n[i];
		delta.ns[i] -= before->ns[i];
	}
	return input_check_delta(ctx, path, delta, err);
}

/* tf_input_check of what was read of one input (delta). */
static int input_check_delta(tf_ctx *ctx, const char *path, tf_diag delta, tf_error *err)
{
	/* metadata alone (names of threads that never ran) is not usable */
	uint64_t used = sum_sev(&delta, TF_SEV_INFO, true) - delta.n[TF_DIAG_ev_metadata];
	/* events a recorder dropped are lost before the file: not a reading's */
	uint64_t dropped = delta.n[TF_DIAG_recorder_dropped];
	uint64_t lost = sum_sev(&delta, TF_SEV_WARN, false) - dropped;
	char buf[1024];
	tf_diag_format(&delta, TF_SEV_WARN, ", ", 1, buf, sizeof(buf));
	if (!used) {
		if (lost)
			return tf_error_set(err, TF_EFORMAT, NULL, -1, -1,
					    "cannot use '%s': nothing in it could be read (%s)", path, buf);
		delta.n[TF_DIAG_events_read] = 0;
		tf_diag_format(&delta, TF_SEV_INFO, ", ", 1, buf, sizeof(buf));
		return tf_error_set(err, TF_EFORMAT, NULL, -1, -1, "cannot use '%s': it holds no events%s%s%s",
				    path, *buf ? " (only " : "", buf, *buf ? ")" : "");
	}
	if (lost > used)
		tf_ctx_warn(ctx, "WARNING: most of '%s' could not be read: %llu events read, %s", path,
			    (unsigned long long)used, buf);
	if (dropped)
		tf_ctx_warn(ctx, "WARNING: '%s': its recorder dropped %llu events (its buffer was full, drop_when_full): "
			    "they are not in the trace (recorder_dropped)", path, (unsigned long long)dropped);
	return 0;
}

typedef struct first_sink {
	tf_sink sink;
	bool any;
	int64_t min_ns;
} first_sink;

static int first_event(tf_sink *k, const tf_event *ev)
{
	first_sink *f = tf_container_of(k, first_sink, sink);
	if (ev->kind == TF_EV_METADATA) /* no place in the time span (as in info) */
		return 0;
	if (!f->any || ev->ts_ns < f->min_ns)
		f->min_ns = ev->ts_ns;
	f->any = true;
	return 0;
}

/* A first pass for the filters (pipeline_int.h). */
int tf_pipeline_first_pass(tf_ctx *ctx, const char *const *inputs, int n, const tf_format *const *fmts,
			   tf_sink *sink, tf_ctx **cur, uint32_t *cur_input, tf_error *err)
{
	for (int i = 0; i < n; i++) {
		const tf_format *f = fmts[i];
		if (!f->read)
			continue; /* a profile: no events */
		tf_ctx *scratch = tf_ctx_new();
		if (!scratch)
			return tf_error_set(err, TF_ENOMEM, NULL, -1, -1, "out of memory");
		*tf_ctx_opts(scratch) = *tf_ctx_opts(ctx);
		/* a sampled input's times as the run sees them (--clock-offset) */
		tf_ctx_opts(scratch)->shift_ns = f->kind == TF_INPUT_SAMPLES ? tf_ctx_opts(ctx)->clock_offset_ns : 0;
		tf_ctx_opts(scratch)->join = false;
		if (cur)
			*cur = scratch;
		if (cur_input)
			*cur_input = (uint32_t)i;
		int r = f->read(inputs[i], (uint32_t)i, scratch, sink, err);
		tf_ctx_free(scratch);
		if (r < 0 && r != TF_ESTOP) {
			if (err && !err->code)
				tf_error_set(err, r, inputs[i], -1, -1, "%s", tf_strerror(r));
			return r;
		}
	}
	return 0;
}

int tf_pipeline_first_ts(tf_ctx *ctx, const char *const *inputs, int n, const tf_format *const *fmts,
			 int64_t *first_ns, tf_error *err)
{
	first_sink fs = { .sink = { .event = first_event } };
	TF_TRY(tf_pipeline_first_pass(ctx, inputs, n, fmts, &fs.sink, NULL, NULL, err));
	if (!fs.any)
		return 0;
	*first_ns = fs.min_ns;
	return 1;
}


int tf_pipeline_window(tf_ctx *ctx, const char *const *inputs, int n, const tf_format *const *fmts,
		       const tf_filter_opts **fo,
		       tf_window_opts *steps, int64_t *lo, int64_t *hi, bool *rel, int64_t *first, tf_error *err)
{
	const tf_filter_opts *o = *fo;
	*lo = INT64_MIN;
	*hi = INT64_MAX;
	*rel = o->window_text && tf_window_relative(&o->window);
	*first = 0;
	if (*rel || o->steps_text)
		for (int i = 0; i < n; i++)
			if (!strcmp(inputs[i], "-"))
				return tf_error_set(err, TF_EUSAGE, NULL, -1, -1,
						    "%s %s needs the inputs read twice, which standard input cannot be%s",
						    o->steps_text ? "--steps" : "--window",
						    o->steps_text ? o->steps_text : o->window_text,
						    o->steps_text ? "" : ": give absolute bounds (@START:@END)");
	if (*rel)
		TF_TRY(tf_pipeline_first_ts(ctx, inputs, n, fmts, first, err));
	if (o->window_text)
		TF_TRY(tf_window_resolve(&o->window, *first, lo, hi, err));
	if (o->steps_text) {
		TF_TRY(tf_pipeline_steps(ctx, inputs, n, fmts, o, lo, hi, err));
		/* from here on, a window like any other */
		steps->fo = *o;
		steps->fo.window = (tf_window){ true, true, true, true, *lo, *hi };
		snprintf(steps->text, sizeof(steps->text), "@%lldns:@%lldns (--steps %.200s)", (long long)*lo,
			 (long long)*hi, o->steps_text);
		steps->fo.window_text = steps->text;
		*fo = &steps->fo;
	}
	return 0;
}

/* "TYPE/UNIT" of --folded-type split at its last '/' into *type and *unit
 * (malloc'd together in *type); NULL: the defaults (NULL, NULL). */
static int folded_type_split(const char *ft, char **type, const char **unit, tf_error *err)
{
	*type = NULL;
	*unit = NULL;
	if (!ft)
		return 0;
	const char *slash = strrchr(ft, '/');
	if (!slash || slash == ft || !slash[1])
		return tf_error_set(err, TF_EUSAGE, NULL, -1, -1,
				    "--folded-type takes TYPE/UNIT (e.g. wall/nanoseconds), not '%s'", ft);
	if (!(*type = strdup(ft)))
		return tf_error_set(err, TF_ENOMEM, NULL, -1, -1, "out of memory");
	(*type)[slash - ft] = '\0';
	*unit = *type + (slash - ft) + 1;
	return 0;
}

/* Adds text to agg's comments unless it is there (seen: interned text ->
 * 1); add = false only records it. */
static int add_comment(tf_ctx *ctx, tf_agg *agg, tf_hmap *seen, const char *text, bool add)
{
	tf_str id = tf_strtab_intern_cstr(tf_ctx_strtab(ctx), text);
	if (id == (tf_str)-1)
		return -1;
	if (tf_hmap_get(seen, id) != UINT32_MAX)
		return 0;
	if (tf_hmap_put(seen, id, 1) < 0)
		return -1;
	return add ? tf_agg_comment(agg, text) : 0;
}

/* Interned base name of an input path ("dir/run.json.gz" -> "run.json.gz",
 * "traces/" -> "traces", "-" -> "stdin"); (tf_str)-1 on allocation failure. */
static tf_str base_name(tf_strtab *st, const char *path)
{
	if (!strcmp(path, "-"))
		return tf_strtab_intern_cstr(st, "stdin");
	size_t end = strlen(path);
	while (end > 1 && path[end - 1] == '/')
		end--;
	size_t start = end;
	while (start > 0 && path[start - 1] != '/')
		start--;
	if (start == end) /* "/" */
		return tf_strtab_intern(st, path, end);
	return tf_strtab_intern(st, path + start, end - start);
}

int tf_pipeline_partial_ok(const tf_filter_opts *fo, tf_error *err)
{
	if (!fo)
		return 0;
	const tf_window *w = &fo->window;
	if (fo->window_text && ((w->has_start && !w->start_abs) || (w->has_end && !w->end_abs)))
		return tf_error_set(err, TF_EUSAGE, NULL, -1, -1,
				    "--window %s: a distributed run takes absolute bounds only (@TIME, in the inputs' "
				    "own time base; 'tracefold info' prints the first timestamp)", fo->window_text);
	if (fo->steps_text || fo->label_steps)
		return tf_error_set(err, TF_EUSAGE, NULL, -1, -1,
				    "%s is not supported in a distributed run (it needs a first pass over every input)",
				    fo->steps_text ? "--steps" : "--label-steps");
	return 0;
}

/* The profile's time span from the stack builder's (any, a, b), once it
 * finished, then (window) cut to a --window [lo, hi). */
static void span_meta(tf_agg *agg, bool any, int64_t a, int64_t b, bool window, int64_t lo, int64_t hi)
{
	if (!any)
		return;
	tf_agg_meta *m = tf_agg_meta_get(agg);
	/* pprof's time_nanos is wall-clock since the epoch: only when the
	 * trace's clock looks like one (after 2001-09-09), else 0 */
	bool epoch = a >= 1000000000000000000ll;
	if (window) {
		a = a < lo ? lo : a;
		b = b > hi ? hi : b;
		b = b < a ? a : b;
	}
	m->time_nanos = epoch ? a : 0;
	m->duration_nanos = tf_sat_sub(b, a);
}

static void filter_comments(tf_agg *agg, const tf_filter_opts *fo, int64_t lo, int64_t hi)
{
	char note[1200];
	if (fo->nranks) {
		snprintf(note, sizeof(note), "filter: --ranks %.1000s", fo->ranks_text ? fo->ranks_text : "");
		tf_agg_comment(agg, note);
	}
	if (fo->window_text) {
		snprintf(note, sizeof(note), "filter: --window %.1000s = [%lld, %lld) ns", fo->window_text,
			 (long long)lo, (long long)hi);
		tf_agg_comment(agg, note);
	}
}

static void events_comment(tf_ctx *ctx, tf_agg *agg)
{
	char diagbuf[2048], note[2100];
	tf_diag_format(tf_ctx_diag(ctx), TF_SEV_INFO, ", ", 0, diagbuf, sizeof(diagbuf));
	snprintf(note, sizeof(note), "events: %s", diagbuf);
	tf_agg_comment(agg, note);
}

static void input_comment(tf_agg *agg, const char *path, const char *format)
{
	char note[2100];
	snprintf(note, sizeof(note), "input: %s (%s)", path, format);
	tf_agg_comment(agg, note);
}

/* An empty profile is never a success: says what there was. */
static int empty_error(tf_ctx *ctx, const char *const *inputs, int n, const tf_filter_opts *fo, bool counters,
		       tf_error *err)
{
	uint64_t nctr = tf_ctx_diag(ctx)->n[TF_DIAG_ev_counter];
	return tf_error_set(err, TF_EFORMAT, NULL, -1, -1, "nothing to profile in '%s'%s: no regions%s%s%s%s%s",
			    inputs[0], n > 1 ? " and the other inputs" : "", fo && fo->nranks ? " on the tracks of --ranks " : "",
			    fo && fo->nranks && fo->ranks_text ? fo->ranks_text : "", fo && fo->window_text ? " in --window " : "",
			    fo && fo->window_text ? fo->window_text : "",
			    nctr && !counters ? " (it has counters: select them with -c)" : "");
}

/* The bytewise least base name of the traces among inputs (fmts NULL:
 * all are) into *out (0 when none). */
static int least_name(tf_ctx *ctx, const char *const *inputs, int n, const tf_format *const *fmts, tf_str *out,
		      tf_error *err)
{
	tf_strtab *st = tf_ctx_strtab(ctx);
	*out = 0;
	for (int i = 0; i < n; i++) {
		if (fmts && !tf_format_streams(fmts[i]))
			continue;
		tf_str name = base_name(st, inputs[i]);
		if (name == (tf_str)-1)
			return tf_error_set(err, TF_ENOMEM, NULL, -1, -1, "out of memory");
		if (!*out || strcmp(tf_strtab_get(st, name), tf_strtab_get(st, *out)) < 0)
			*out = name;
	}
	return 0;
}

/* One tf_pipeline_run: what its stages share. */
typedef struct run {
	tf_ctx *ctx;
	tf_agg *agg;
	const char *const *inputs;
	int n;
	const tf_pipeline_opts *o;
	const tf_format *const *fmts;   /* each input's, resolved once */
	tf_pipeline_partial *partial;   /* a partial run, or NULL */
	const tf_input_sel *sel;
	bool comments;
	const tf_filter_opts *fo;       /* the active filter's options, or NULL */
	tf_filter *filter;
	int64_t win_lo, win_hi;         /* the window, absolute */
	tf_window_opts steps_w;         /* --steps: fo with its window */
	tf_stacks *stacks;
	tf_agg_sink *asink;             /* the aggregate's consumer of the spans */
	const char *types_from;         /* the first input whose sample types agg took */
	tf_error *err;
} run;

/* Checks what the inputs' kinds allow, sets the profile's file name, and
 * makes the filter (reading the inputs first where its window needs it). */
static int run_prepare(run *r, int ntraces)
{
	tf_error *err = r->err;
	if (r->partial && ntraces < r->n)
		return tf_error_set(err, TF_EUSAGE, NULL, -1, -1, "a partial run reads traces only");
	if (r->partial)
		TF_TRY(tf_pipeline_partial_ok(r->o->filter, err));
	tf_agg_meta *meta = tf_agg_meta_get(r->agg);
	/* the bytewise least base name of the traces (profiles' names come with
	 * tf_agg_merge, which keeps the least too): the same in any input order */
	tf_str main_name = 0;
	if (!meta->main_file)
		TF_TRY(least_name(r->ctx, r->inputs, r->n, r->fmts, &main_name, err));
	if (main_name)
		meta->main_file = main_name;
	if (!ntraces && r->o && r->o->consumers && r->o->consumers[0])
		return tf_error_set(err, TF_EUSAGE, NULL, -1, -1, "'%s' is a %s: event tables and timelines need traces",
				    r->inputs[0], r->fmts[0]->noun);
	if (!r->fo)
		return 0;
	for (int i = 0; i < r->n; i++)
		if (!tf_format_streams(r->fmts[i]))
			return tf_error_set(err, TF_EUSAGE, NULL, -1, -1, "'%s' is a %s: --ranks and --window need traces",
					    r->inputs[i], r->fmts[i]->noun);
	bool rel = false;
	int64_t first_ts = 0;
	TF_TRY(tf_pipeline_window(r->ctx, r->inputs, r->n, r->fmts, &r->fo, &r->steps_w, &r->win_lo, &r->win_hi, &rel,
				  &first_ts, err));
	if (!(r->filter = tf_filter_new(r->ctx, r->fo, r->win_lo, r->win_hi, rel, first_ts)))
		return tf_error_set(err, TF_ENOMEM, NULL, -1, -1, "out of memory");
	return 0;
}

/* The stack builder every trace goes through and its consumers: the
 * filter (when one is asked for) in front of all of them, the aggregate's
 * (with the selected counters and --label-steps' step labels), then the
 * span writers'. */
static int run_stacks(run *r, tf_step **steps, size_t *nsteps)
{
	const tf_pipeline_opts *o = r->o;
	uint32_t first = o ? o->first_input : 0;
	if (o && o->filter && o->filter->label_steps && !o->steps)
		TF_TRY(tf_pipeline_step_list(r->ctx, r->inputs, r->n, r->fmts, first, o->filter->step_region, steps,
					     nsteps, r->err));
	tf_stacks *s = r->stacks = tf_stacks_new(r->ctx, tf_agg_cpath(r->agg), r->filter);
	tf_agg_sink *k = r->asink = s ? tf_agg_sink_new(r->ctx, r->agg, o ? o->counters : NULL) : NULL;
	if (k && *steps)
		tf_agg_sink_label_steps(k, *steps, *nsteps);
	else if (k && o && o->filter && o->filter->label_steps && o->steps)
		tf_agg_sink_label_steps(k, o->steps, o->nsteps);
	if (!k || tf_stacks_add_consumer(s, tf_agg_sink_spans(k)) < 0)
		return tf_error_set(r->err, TF_ENOMEM, NULL, -1, -1, "out of memory");
	for (int i = 0; o && o->consumers && o->consumers[i]; i++)
		if (tf_stacks_add_consumer(s, o->consumers[i]) < 0)
			return tf_error_set(r->err, TF_EUSAGE, NULL, -1, -1, "too many span consumers");
	if (!(o && o->consumers && o->consumers[0])) /* only adding up: an input's end may split */
		tf_stacks_end_agg(s, k, r->agg);
	return 0;
}

/* Reads trace input i through the stack builder. */
static int run_trace(run *r, int i)
{
	tf_error *err = r->err;
	const char *path = r->inputs[i];
	const tf_read_opts *cro = tf_ctx_opts(r->ctx);
	if (cro->cancelled && cro->cancelled(cro->cancel_arg))
		return tf_error_set(err, TF_ECANCEL, path, -1, -1, "%s", tf_strerror(TF_ECANCEL));
	if (!r->types_from)
		r->types_from = path;
	uint32_t idx = (r->o ? r->o->first_input : 0) + (uint32_t)i;
	tf_diag before = *tf_ctx_diag(r->ctx);
	tf_read_opts *ro = tf_ctx_opts(r->ctx);
	if (r->sel && r->sel[i].mode == TF_SEL_PARTS) {
		ro->part_mask = r->sel[i].mask;
		ro->npart_mask = r->sel[i].nmask;
	}
	tf_sink *sink = tf_stacks_sink(r->stacks);
	int rc = r->fmts[i]->read(path, idx, r->ctx, sink, err);
	ro->part_mask = NULL;
	ro->npart_mask = 0;
	if (rc >= 0 || rc == TF_ESTOP)
		rc = sink->end_input(sink, idx);
	if (rc < 0 && rc != TF_ESTOP) {
		if (err && !err->code)
			tf_error_set(err, rc, path, -1, -1, "%s", tf_strerror(rc));
		return rc;
	}
	if (r->partial) { /* checked once the parts are added up */
		tf_diag d = *tf_ctx_diag(r->ctx);
		for (int k = 0; k < TF_DIAG_COUNT; k++) {
			d.n[k] -= before.n[k];
			d.ns[k] -= before.ns[k];
		}
		r->partial->input_diags[i] = d;
		return 0;
	}
	TF_TRY(tf_input_check(r->ctx, path, &before, err));
	if (r->comments)
		input_comment(r->agg, path, r->fmts[i]->name);
	return 0;
}

int tf_pipeline_join_of(const tf_format *const *fmts, int n, int i)
{
	if (!fmts || fmts[i]->kind != TF_INPUT_SAMPLES)
		return -1;
	for (int t = i - 1; t >= 0; t--)
		if (tf_format_is_trace(fmts[t]))
			return t;
	for (int t = i + 1; t < n; t++)
		if (tf_format_is_trace(fmts[t]))
			return t;
	return -1;
}

bool tf_pipeline_any_join(const tf_format *const *fmts, int n)
{
	bool samples = false, traces = false;
	for (int i = 0; fmts && i < n; i++) {
		samples |= fmts[i]->kind == TF_INPUT_SAMPLES;
		traces |= tf_format_is_trace(fmts[i]);
	}
	return samples && traces;
}

void tf_pipeline_join_begin(tf_ctx *ctx, uint32_t first, int i, int t)
{
	tf_read_opts *ro = tf_ctx_opts(ctx);
	ro->join = t >= 0;
	ro->join_from = first + (uint32_t)i;
	ro->join_to = first + (uint32_t)(t >= 0 ? t : i);
	ro->shift_ns = ro->clock_offset_ns;
}

void tf_pipeline_join_end(tf_ctx *ctx)
{
	tf_read_opts *ro = tf_ctx_opts(ctx);
	ro->join = false;
	ro->shift_ns = 0;
}

int tf_pipeline_read_order(const tf_format *const *fmts, int n, int *order, int *join)
{
	/* join[i]: the nearest trace before sampled input i, else the first
	 * after it (tf_pipeline_join_of), in two sweeps */
	int last = -1, m = 0;
	for (int i = 0; i < n; i++) {
		join[i] = fmts[i]->kind == TF_INPUT_SAMPLES ? last : -1;
		if (tf_format_is_trace(fmts[i]))
			last = i;
	}
	int next = -1;
	for (int i = n - 1; i >= 0; i--) {
		if (fmts[i]->kind == TF_INPUT_SAMPLES && join[i] < 0)
			join[i] = next;
		if (tf_format_is_trace(fmts[i]))
			next = i;
	}
	/* each trace's sampled inputs just before it, in command-line order:
	 * those before the first trace (which have no trace before them),
	 * then those after it up to the next trace */
	bool first = true;
	for (int i = 0; i < n; i++) {
		if (!tf_format_streams(fmts[i]) || fmts[i]->telemetry ||
		    (fmts[i]->kind == TF_INPUT_SAMPLES && join[i] >= 0))
			continue;
		if (tf_format_is_trace(fmts[i])) {
			for (int k = 0; first && k < i; k++)
				if (join[k] == i)
					order[m++] = k;
			first = false;
			for (int k = i + 1; k < n && !tf_format_is_trace(fmts[k]); k++)
				if (join[k] == i)
					order[m++] = k;
		}
		order[m++] = i;
	}
	/* telemetry last: the traces' wall-clock base is known by then */
	for (int i = 0; i < n; i++)
		if (fmts[i]->telemetry)
			order[m++] = i;
	return m;
}

/* Reads the traces and sampled inputs in tf_pipeline_read_order, each
 * sampled one joined to its trace (docs/samples.md). */
static int run_inputs(run *r)
{
	int *order = malloc(((size_t)r->n + 1) * 2 * sizeof(int));
	if (!order)
		return tf_error_set(r->err, TF_ENOMEM, NULL, -1, -1, "out of memory");
	int *join = order + r->n + 1;
	int m = tf_pipeline_read_order(r->fmts, r->n, order, join), rc = 0;
	for (int k = 0; rc == 0 && k < m; k++) {
		int i = order[k];
		if (r->sel && r->sel[i].mode == TF_SEL_NONE)
			continue;
		if (r->fmts[i]->kind != TF_INPUT_SAMPLES) {
			rc = run_trace(r, i);
			continue;
		}
		int t = join[i];
		if (t >= 0 && r->sel && r->sel[t].mode == TF_SEL_NONE)
			t = -1;
		tf_pipeline_join_begin(r->ctx, r->o ? r->o->first_input : 0, i, t);
		rc = run_trace(r, i);
		tf_pipeline_join_end(r->ctx);
	}
	free(order);
	return rc;
}

/* Once every trace was read: the stack builder's end, the sample types in
 * order, the filter's checks and the comments. */
static int run_traces_end(run *r)
{
	tf_error *err = r->err;
	const char *const *counters = r->o ? r->o->counters : NULL;
	int rc = tf_stacks_finish(r->stacks);
	if (rc < 0)
		return tf_error_set(err, rc, NULL, -1, -1, "cannot build stacks: %s", tf_strerror(rc));
	if ((rc = tf_agg_sink_finish(r->asink)) < 0) /* the memory peaks: every thread is in */
		return tf_error_set(err, rc, NULL, -1, -1, "cannot replay memory events: %s", tf_strerror(rc));
	int64_t first_ns = 0, last_ns = 0;
	bool any = tf_stacks_time_span(r->stacks, &first_ns, &last_ns);
	span_meta(r->agg, any, first_ns, last_ns, false, 0, 0);
	if (r->partial) {
		r->partial->any_time = tf_stacks_time_span(r->stacks, &r->partial->min_ns, &r->partial->max_ns);
		return 0; /* the rest needs the whole run: tf_pipeline_conclude */
	}
	/* the trace's sample types in their canonical order, whatever order
	 * they were met in (profiles added below keep theirs) */
	if ((rc = tf_agg_sink_order_types(r->agg, counters)) < 0)
		return tf_error_set(err, rc, NULL, -1, -1, "cannot order sample types: %s", tf_strerror(rc));
	if (r->filter) {
		TF_TRY(tf_filter_check(r->filter, err));
		int64_t a, b;
		/* the profile's time span: the window's part of the run */
		if (r->fo->window_text && tf_stacks_time_span(r->stacks, &a, &b))
			span_meta(r->agg, true, a, b, true, r->win_lo, r->win_hi);
		if (r->comments)
			filter_comments(r->agg, r->fo, r->win_lo, r->win_hi);
	}
	warn_unmatched_counters(r->ctx, r->agg, counters);
	if (r->comments)
		events_comment(r->ctx, r->agg);
	return 0;
}

/* The comments of profile input i (read into tmp) added to agg's, each
 * once (seen: the strings in agg; *nseen: seen holds agg's comments). */
static int profile_comments(run *r, int i, const tf_agg *tmp, tf_hmap *seen, int *nseen)
{
	char note[2100];
	int cr = 0;
	/* de-duplicated through the string table: linear in comments */
	for (size_t k = 0; k < tf_agg_ncomments(r->agg) && !*nseen; k++)
		cr |= add_comment(r->ctx, r->agg, seen, tf_agg_comment_get(r->agg, k), false);
	*nseen = 1;
	for (size_t k = 0; k < tf_agg_ncomments(tmp); k++)
		cr |= add_comment(r->ctx, r->agg, seen, tf_agg_comment_get(tmp, k), true);
	snprintf(note, sizeof(note), "input: %s (%s)", r->inputs[i], r->fmts[i]->name);
	cr |= add_comment(r->ctx, r->agg, seen, note, true);
	return cr < 0 ? tf_error_set(r->err, TF_ENOMEM, NULL, -1, -1, "out of memory") : 0;
}

/* Reads profile input i into tmp (empty) and adds it into agg. */
static int run_profile(run *r, int i, tf_agg *tmp, const tf_profile_opts *po, tf_hmap *seen, int *nseen)
{
	tf_error *err = r->err;
	const char *path = r->inputs[i];
	TF_TRY(r->fmts[i]->read_profile(tmp, path, po, err));
	if (!tf_agg_nsamples(tmp))
		return tf_error_set(err, TF_EFORMAT, NULL, -1, -1, "cannot use '%s': the profile has no samples", path);
	tf_agg_meta *tm = tf_agg_meta_get(tmp);
	if (!tm->main_file && (tm->main_file = base_name(tf_ctx_strtab(r->ctx), path)) == (tf_str)-1)
		return tf_error_set(err, TF_ENOMEM, NULL, -1, -1, "out of memory");
	const char *clash = unit_clash(r->agg, tmp);
	if (r->types_from && clash) {
		char a[800], b[800];
		tf_agg_types_text(r->agg, a, sizeof(a));
		tf_agg_types_text(tmp, b, sizeof(b));
		return tf_error_set(err, TF_ECLASH, NULL, -1, -1,
				    "cannot combine '%s' with '%s': sample type '%s' has another unit: '%s' has [%s], "
				    "'%s' has [%s]", path, r->types_from, clash, path, b, r->types_from, a);
	}
	bool was_empty = !r->types_from;
	/* the union of the sample types: one an input lacks is 0 there */
	int rc = tf_agg_merge(r->agg, tmp, TF_AGG_TYPES_ADD);
	if (rc < 0)
		return tf_error_set(err, rc, NULL, -1, -1, "cannot combine '%s': %s", path, tf_strerror(rc));
	if (was_empty) {
		tf_agg_meta_get(r->agg)->period = tf_agg_meta_get(tmp)->period;
		r->types_from = path;
	}
	return r->comments ? profile_comments(r, i, tmp, seen, nseen) : 0;
}

/* Every profile input, each read into a scratch aggregate and added. */
static int run_profiles(run *r)
{
	char *ftype = NULL; /* --folded-type, split */
	const char *funit = NULL;
	tf_hmap seen = { 0 }; /* comment strings already in agg */
	int nseen = 0, rc = folded_type_split(r->o ? r->o->folded_type : NULL, &ftype, &funit, r->err);
	tf_profile_opts po = { ftype, funit };
	for (int i = 0; rc == 0 && i < r->n; i++) {
		if (r->fmts[i]->kind != TF_INPUT_PROFILE)
			continue;
		tf_agg *tmp = tf_agg_new(tf_ctx_strtab(r->ctx));
		rc = tmp ? run_profile(r, i, tmp, &po, &seen, &nseen)
			 : tf_error_set(r->err, TF_ENOMEM, NULL, -1, -1, "out of memory");
		tf_agg_free(tmp);
	}
	tf_hmap_free(&seen);
	free(ftype);
	return rc;
}

int tf_pipeline_run(tf_ctx *ctx, tf_agg *agg, const char *const *inputs, int n, const tf_pipeline_opts *o,
		    tf_error *err)
{
	tf_error scratch;
	if (!err) {
		tf_error_clear(&scratch);
		err = &scratch;
	}
	tf_pipeline_partial *partial = o && o->select ? o->partial : NULL;
	run r = { .ctx = ctx, .agg = agg, .inputs = inputs, .n = n, .o = o, .partial = partial,
		  .sel = partial ? o->select : NULL, .comments = o && o->comments && !partial,
		  .fo = o && tf_filter_active(o->filter) ? o->filter : NULL, .win_lo = INT64_MIN,
		  .win_hi = INT64_MAX, .err = err };
	const tf_format **own = NULL; /* the formats, when the caller did not resolve them */
	tf_step *steps = NULL;        /* --label-steps: the run's steps */
	size_t nsteps = 0;
	int rc = 0, ntraces = 0;
	if (o && o->formats) {
		r.fmts = o->formats;
	} else {
		rc = tf_inputs_resolve_new(inputs, n, o ? o->format : NULL, &own, err);
		r.fmts = own;
	}
	for (int i = 0; rc == 0 && i < n; i++)
		ntraces += tf_format_streams(r.fmts[i]);
	if (rc == 0)
		rc = run_prepare(&r, ntraces);
	if (rc == 0 && ntraces)
		rc = run_stacks(&r, &steps, &nsteps);
	if (rc == 0)
		rc = run_inputs(&r);
	if (rc == 0 && r.stacks)
		rc = run_traces_end(&r);
	if (rc == 0 && !partial)
		rc = run_profiles(&r);
	/* samples set aside under a step (the overview) are in the table
	 * once folded: a run whose every region is in a step has samples */
	if (rc == 0 && !partial && (rc = tf_agg_steps_fold(agg)) < 0)
		rc = tf_agg_steps_error(agg) ? (*err = *tf_agg_steps_error(agg), err->code)
					      : tf_error_set(err, rc, NULL, -1, -1, "out of memory");
	if (rc == 0 && !partial && !tf_agg_nsamples(agg))
		rc = empty_error(ctx, inputs, n, r.fo, o && o->counters, err);
	/* an output or the temporary file failed under the read: say so,
	 * not "cannot read" the input (whatever the reader made of the code) */
	if (rc < 0 && rc != TF_ESTOP && tf_ctx_failure(ctx))
		*err = *tf_ctx_failure(ctx);
	tf_stacks_free(r.stacks);
	tf_agg_sink_free(r.asink);
	tf_filter_free(r.filter);
	free(steps);
	free(own);
	return rc;
}

int tf_pipeline_conclude(tf_ctx *ctx, tf_agg *agg, const char *const *inputs, int n, const tf_pipeline_opts *o,
			 const tf_pipeline_partial *total, tf_error *err)
{
	const tf_filter_opts *fo = o && tf_filter_active(o->filter) ? o->filter : NULL;
	tf_agg_meta *meta = tf_agg_meta_get(agg);
	TF_TRY(least_name(ctx, inputs, n, NULL, &meta->main_file, err));
	const tf_format **own = NULL;
	const tf_format *const *fmts = o ? o->formats : NULL;
	if (!fmts) {
		TF_TRY(tf_inputs_resolve_new(inputs, n, o ? o->format : NULL, &own, err));
		fmts = own;
	}
	int rc = 0;
	for (int i = 0; rc == 0 && i < n; i++) {
		rc = input_check_delta(ctx, inputs[i], total->input_diags[i], err);
		if (rc == 0 && o && o->comments)
			input_comment(agg, inputs[i], fmts[i]->name);
	}
	free(own);
	TF_TRY(rc);
	int64_t lo = INT64_MIN, hi = INT64_MAX;
	if (fo) { /* absolute bounds only (a partial run refuses the others): no reading */
		tf_window_opts steps_w;
		bool rel = false;
		int64_t first_ts = 0;
		/* absolute bounds need no formats: nothing is read */
		TF_TRY(tf_pipeline_window(ctx, inputs, n, NULL, &fo, &steps_w, &lo, &hi, &rel, &first_ts, err));
	}
	span_meta(agg, total->any_time, total->min_ns, total->max_ns, fo && fo->window_text, lo, hi);
	if (fo && o->comments)
		filter_comments(agg, fo, lo, hi);
	TF_TRY(tf_agg_sink_order_types(agg, o ? o->counters : NULL));
	warn_unmatched_counters(ctx, agg, o ? o->counters : NULL);
	if (o && o->comments)
		events_comment(ctx, agg);
	if (!tf_agg_nsamples(agg))
		return empty_error(ctx, inputs, n, fo, o && o->counters, err);
	return 0;
}
