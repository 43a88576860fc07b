/* info.c - `tracefold info INPUT...`: what is in a trace, for every format.
 *
 * A tf_sink that keeps running statistics (no event is stored): tracks, time
 * span, events by kind, distinct regions, counters (samples, min, max, sum),
 * messages, metadata; plus the run's diagnostics counters and notes.  The
 * events are also fed to the stack builder (tee), so the repairs it would make
 * for a profile are counted too.  Memory grows with the number of distinct
 * names, call paths and tracks, not with the events. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cmd.h"
#include "report.h"
#include "tracefold/reader.h"
#include "tracefold/stack.h"
#include "tracefold/agg_sink.h"
#include "sat.h"
#include "info_int.h"

static uint32_t *str_slot(info_sink *s, tf_str id)
{
	if (tf_grow_n((void **)&s->by_str, &s->nby_str, (size_t)id + 1, sizeof(*s->by_str), true) < 0)
		return NULL;
	return &s->by_str[id];
}

static info_track *track_stat(info_sink *s, uint32_t t)
{
	if (tf_grow_n((void **)&s->trk, &s->ntrk, (size_t)t + 1, sizeof(*s->trk), true) < 0)
		return NULL;
	return &s->trk[t];
}

/* Keeps distinct (track, key, value) metadata entries, at most INFO_MAX_METADATA. */
static int meta_add(info_sink *s, uint32_t track, tf_str key, tf_str value)
{
	uint64_t h = tf_mix64(((uint64_t)key << 32 | value) ^ tf_mix64(track));
	uint32_t first = tf_hmap_get(&s->meta_idx, h), last = UINT32_MAX;
	for (uint32_t i = first; i != UINT32_MAX; i = s->meta[i].next) {
		const info_meta *m = &s->meta[i];
		if (m->track == track && m->key == key && m->value == value)
			return 0;
		last = i;
	}
	if (s->nmeta >= INFO_MAX_METADATA) {
		s->meta_dropped++;
		return 0;
	}
	if (tf_grow((void **)&s->meta, &s->capmeta, s->nmeta + 1, sizeof(*s->meta)) < 0 ||
	    (first == UINT32_MAX && tf_hmap_put(&s->meta_idx, h, s->nmeta) < 0))
		return TF_ENOMEM;
	if (last != UINT32_MAX)
		s->meta[last].next = s->nmeta;
	s->meta[s->nmeta++] = (info_meta){ key, value, track, UINT32_MAX };
	return 0;
}

static void see_time(info_sink *s, info_track *t, int64_t a, int64_t b)
{
	if (!s->any_ts || a < s->min_ns)
		s->min_ns = a;
	if (!s->any_ts || b > s->max_ns)
		s->max_ns = b;
	s->any_ts = true;
	if (!t)
		return;
	if (!t->any || a < t->first_ns)
		t->first_ns = a;
	if (!t->any || b > t->last_ns)
		t->last_ns = b;
	t->any = true;
}

static int info_event(tf_sink *sk, const tf_event *ev)
{
	info_sink *s = tf_container_of(sk, info_sink, sink);
	if (s->fo && ev->track != TF_TRACK_NONE) {
		const tf_track *tr = tf_ctx_track_get(s->ctx, ev->track);
		if (!tf_filter_rank_kept(s->fo, tr ? tr->rank : -1))
			return 0;
	}
	bool region = ev->kind == TF_EV_BEGIN || ev->kind == TF_EV_END || ev->kind == TF_EV_COMPLETE;
	if (s->fo && ev->kind != TF_EV_METADATA) {
		int64_t e = ev->kind == TF_EV_COMPLETE && ev->dur_ns > 0 ? tf_sat_add(ev->ts_ns, ev->dur_ns) : ev->ts_ns;
		if (!((ev->ts_ns >= s->win_lo && ev->ts_ns < s->win_hi) || (ev->ts_ns < s->win_hi && e > s->win_lo)))
			return 0;
	}
	if (s->fo && region) { /* counted; names and times come from the kept spans (info_close) */
		s->kind_n[ev->kind]++;
		if (ev->track != TF_TRACK_NONE) {
			info_track *t = track_stat(s, ev->track);
			if (!t)
				return TF_ENOMEM;
			t->events++;
		}
		return 0;
	}
	if (ev->kind < TF_EV_KIND_COUNT)
		s->kind_n[ev->kind]++;
	info_track *t = NULL; /* none for events of no track (TF_TRACK_NONE) */
	if (ev->track != TF_TRACK_NONE) {
		if (!(t = track_stat(s, ev->track)))
			return TF_ENOMEM;
		t->events++;
	}
	switch (ev->kind) {
	case TF_EV_BEGIN:
	case TF_EV_COMPLETE: {
		uint32_t *slot = str_slot(s, ev->name);
		if (!slot)
			return TF_ENOMEM;
		if (!(*slot & 1)) {
			*slot |= 1;
			s->nregions++;
		}
		break;
	}
	case TF_EV_COUNTER: {
		uint32_t *slot = str_slot(s, ev->name);
		if (!slot)
			return TF_ENOMEM;
		if (!(*slot >> 1)) {
			if (tf_grow((void **)&s->ctrs, &s->capctrs, s->nctrs + 1, sizeof(*s->ctrs)) < 0)
				return TF_ENOMEM;
			s->ctrs[s->nctrs] = (info_counter){ ev->name, 0, ev->value, ev->value, 0 };
			*slot |= (uint32_t)(++s->nctrs) << 1;
		}
		info_counter *c = &s->ctrs[(*slot >> 1) - 1];
		c->n++;
		c->sum += ev->value;
		if (ev->value < c->min)
			c->min = ev->value;
		if (ev->value > c->max)
			c->max = ev->value;
		break;
	}
	case TF_EV_SEND:
	case TF_EV_RECV: {
		int k = ev->kind == TF_EV_RECV;
		s->msg_n[k]++;
		if (ev->msg.bytes > 0)
			s->msg_bytes[k] += (uint64_t)ev->msg.bytes;
		break;
	}
	case TF_EV_METADATA:
		s->meta_events++;
		return meta_add(s, ev->track, ev->name, ev->cat); /* no place in the time span */
	default:
		break;
	}
	int64_t end = ev->ts_ns;
	if (ev->kind == TF_EV_COMPLETE && ev->dur_ns > 0)
		end = tf_sat_add(end, ev->dur_ns);
	see_time(s, t, ev->ts_ns, end);
	return 0;
}

/* With filters: a kept region (clipped to the window). */
static int info_close(tf_span_sink *k, const tf_span *sp)
{
	info_sink *s = tf_container_of(k, info_sink, spans);
	uint32_t *slot = str_slot(s, sp->name);
	info_track *t = track_stat(s, sp->track);
	if (!slot || !t)
		return TF_ENOMEM;
	if (!(*slot & 1)) {
		*slot |= 1;
		s->nregions++;
	}
	see_time(s, t, sp->start_ns, sp->end_ns);
	return 0;
}

/* A GPU activity: the time per stream, busy time (the activities come in
 * start order), and whether it went under its launch. */
static int info_gpu(tf_span_sink *k, const tf_span *sp)
{
	info_sink *s = tf_container_of(k, info_sink, gpu);
	if (sp->kind != TF_SPAN_KIND_GPU)
		return 0;
	info_track *t = track_stat(s, sp->track);
	if (!t)
		return TF_ENOMEM;
	int64_t dur = tf_sat_sub(sp->end_ns, sp->start_ns);
	int64_t from = t->gpu_n && t->gpu_last_end > sp->start_ns ? t->gpu_last_end : sp->start_ns;
	if (sp->end_ns > from)
		t->gpu_busy_ns = tf_sat_add(t->gpu_busy_ns, tf_sat_sub(sp->end_ns, from));
	if (!t->gpu_n || sp->end_ns > t->gpu_last_end)
		t->gpu_last_end = sp->end_ns;
	t->gpu_n++;
	t->gpu_ns = tf_sat_add(t->gpu_ns, dur);
	const tf_cpath_node *n = tf_cpath_get(s->cp, sp->node);
	while (n && n->depth > 1)
		n = tf_cpath_get(s->cp, n->parent);
	if (!n || n->frame != s->unattributed)
		t->gpu_att_ns = tf_sat_add(t->gpu_att_ns, dur);
	return 0;
}

static void info_free(info_sink *s)
{
	free(s->by_str);
	free(s->ctrs);
	free(s->trk);
	free(s->meta);
	free(s->wt);
	tf_hmap_free(&s->meta_idx);
}

static void help(const tf_opt *opts)
{
	tf_help_printf("usage: tracefold info [OPTIONS] INPUT...\n"
	       "\n"
	       "Describes traces without writing a profile: inputs and their formats,\n"
	       "processes/ranks, threads (with names), time span, events by kind, distinct\n"
	       "regions, counters (samples, min, max, sum), messages, metadata, and every\n"
	       "repair or warning (docs/diagnostics.md), with notes saying where.  With\n"
	       "--ranks or --window the numbers are of the events kept (region events\n"
	       "by their own time; a region that overlaps the window counts for the\n"
	       "regions and the time span) and the diagnostics say what was left out.\n"
	       "\n"
	       "options:\n");
	tf_opts_help(opts);
	tf_help_printf("\n"
	       "trace inputs:\n");
	tf_input_opts_help();
	tf_help_printf("\n"
	       "exit status: 0 ok, 2 usage error, 3 unreadable input\n");
}

/* The stack builder wired as the pipeline wires it (tf_pipeline_run): the
 * filter, the aggregate's consumer (*asink_out, the caller's to free), then
 * ours.  NULL when out of memory. */
static tf_stacks *info_stacks(tf_ctx *ctx, tf_agg *agg, tf_filter *filter, info_sink *s, tf_agg_sink **asink_out)
{
	tf_stacks *stacks = tf_stacks_new(ctx, tf_agg_cpath(agg), filter);
	tf_agg_sink *k = *asink_out = stacks ? tf_agg_sink_new(ctx, agg, NULL) : NULL;
	s->cp = tf_agg_cpath(agg);
	s->unattributed = tf_strtab_intern_cstr(tf_ctx_strtab(ctx), "[unattributed gpu]");
	if (!k || tf_stacks_add_consumer(stacks, tf_agg_sink_spans(k)) < 0 ||
	    (filter && tf_stacks_add_consumer(stacks, &s->spans) < 0) || tf_stacks_add_consumer(stacks, &s->gpu) < 0) {
		tf_stacks_free(stacks);
		return NULL;
	}
	return stacks;
}

/* The threads that only wait and their wall time, apart from the rest
 * (docs/stack-rules.md "Threads that only wait"). */
static int info_waiting(info_sink *s, const tf_agg *agg)
{
	int t = tf_agg_type_find(agg, "wall");
	s->wall_ns = 0;
	for (size_t i = 0; t >= 0 && i < tf_agg_nsamples(agg); i++)
		s->wall_ns = tf_sat_add(s->wall_ns, tf_agg_sample_value(agg, i, t));
	s->nwt = tf_waiting_threads(agg, t, &s->wt, &s->wait_ns);
	return s->nwt;
}

/* What info was asked for. */
typedef struct info_args {
	bool json, list_meta;
	tf_input_opts iopts;
	char **paths;
	int npaths;
} info_args;

/* The command line into *a; TF_EXIT_OK, or the status of help (*helped)
 * or a usage error (printed). */
static int info_parse(info_args *a, int argc, char **argv, bool *helped)
{
	enum { O_FORMAT, O_JSON, O_METADATA };
	static const tf_opt opts[] = {
		{ O_FORMAT, NULL, "--format", true, "FMT", "text (default) or json" },
		{ O_JSON, NULL, "--json", false, NULL, "the same as --format json" },
		{ O_METADATA, NULL, "--metadata", false, NULL, "list metadata entries (text output; JSON always has "
		  "them)" },
		{ 0, NULL, NULL, false, NULL, NULL },
	};
	tf_optstate os = { 0 };
	const char *v;
	for (int id; (id = tf_opt_next("info", argc, argv, opts, &a->iopts, &os, &v)) != TF_OPT_DONE;) {
		int fmt;
		switch (id) {
		case TF_OPT_USAGE:
			return TF_EXIT_USAGE;
		case TF_OPT_HELP:
			help(opts);
			*helped = true;
			return TF_EXIT_OK;
		case TF_OPT_ARG:
			a->paths[a->npaths++] = (char *)v;
			break;
		case O_FORMAT:
			if (tf_out_format("info", v, TF_OUT_TEXT | TF_OUT_JSON, &fmt) < 0)
				return TF_EXIT_USAGE;
			a->json = fmt == TF_OUT_JSON;
			break;
		case O_JSON:
			a->json = true;
			break;
		case O_METADATA:
			a->list_meta = true;
			break;
		}
	}
	if (!a->npaths || tf_mpi)
		return tf_usage_error("info", a->npaths ? "--mpi is not supported here: info reads its inputs once, in "
					   "one process (docs/distributed.md)" : "no input given");
	return TF_EXIT_OK;
}

int tf_cmd_info(int argc, char **argv)
{
	info_args args = { .paths = calloc((size_t)argc + 1, sizeof(char *)) };
	bool helped = false;
	if (!args.paths) {
		tf_msg("out of memory");
		return TF_EXIT_INPUT;
	}
	int prc = info_parse(&args, argc, argv, &helped);
	if (prc != TF_EXIT_OK || helped) {
		free(args.paths);
		tf_input_opts_free(&args.iopts);
		return prc;
	}
	bool json = args.json, list_meta = args.list_meta;
	char **paths = args.paths;
	int npaths = args.npaths;
	tf_input_opts iopts = args.iopts;
	tf_ctx *ctx = tf_ctx_new();
	info_input *in = calloc((size_t)npaths, sizeof(*in));
	const tf_format **fmts = calloc((size_t)npaths + 1, sizeof(*fmts));
	int *order = calloc(((size_t)npaths + 1) * 2, sizeof(int));
	info_sink s = { .sink = { .event = info_event }, .spans = { .close = info_close }, .gpu = { .close = info_gpu },
			.ctx = ctx };
	tf_agg *agg = ctx ? tf_agg_new(tf_ctx_strtab(ctx)) : NULL;
	tf_stacks *stacks = NULL;
	tf_agg_sink *asink = NULL;
	tf_filter *filter = NULL;
	tf_window_opts steps_w; /* --steps: the filter options with its window */
	tf_tee tee;
	tf_tee_init(&tee);
	tf_tee_add(&tee, &s.sink);
	int rc = TF_EXIT_OK;
	if (!ctx || !in || !agg || !fmts || !order) {
		tf_msg("out of memory");
		rc = TF_EXIT_INPUT;
		goto out;
	}
	tf_input_opts_apply(&iopts, ctx);
	/* each input's format, resolved once */
	tf_error ferr;
	tf_error_clear(&ferr);
	if (tf_inputs_resolve((const char *const *)paths, npaths, iopts.format, fmts, &ferr) < 0) {
		rc = tf_report(&ferr);
		goto out;
	}
	for (int i = 0; i < npaths; i++)
		if (!tf_format_streams(fmts[i])) {
			tf_msg("'%s' is a %s, not a trace: use 'tracefold top', 'diff', %s", paths[i], fmts[i]->noun,
			       strcmp(fmts[i]->name, "pprof") ? "'merge' or 'fold'" : "or 'merge' (or go tool pprof)");
			rc = TF_EXIT_INPUT;
			goto out;
		}
	if (tf_filter_active(&iopts.filter)) {
		/* the pipeline's filter (tf_pipeline_run), in front of the stack builder's aggregate */
		const tf_filter_opts *fo = &iopts.filter;
		tf_error err;
		tf_error_clear(&err);
		bool rel = false;
		int64_t first = 0;
		if (tf_pipeline_window(ctx, (const char *const *)paths, npaths, fmts, &fo, &steps_w, &s.win_lo,
				       &s.win_hi, &rel, &first, &err) < 0) {
			rc = tf_report(&err);
			goto out;
		}
		filter = tf_filter_new(ctx, fo, s.win_lo, s.win_hi, rel, first);
		s.fo = fo;
	}
	stacks = !tf_filter_active(&iopts.filter) || filter ? info_stacks(ctx, agg, filter, &s, &asink) : NULL;
	if (!stacks) {
		tf_msg("out of memory");
		rc = TF_EXIT_INPUT;
		goto out;
	}
	tf_tee_add(&tee, tf_stacks_sink(stacks));
	/* samples joined to their traces, as the pipeline reads them */
	int norder = tf_pipeline_read_order(fmts, npaths, order, order + npaths + 1);
	for (int k = 0; k < norder; k++) {
		int i = order[k];
		tf_error err;
		tf_error_clear(&err);
		in[i].path = paths[i];
		const tf_format *f = fmts[i];
		in[i].format = f->name;
		tf_diag dbefore = *tf_ctx_diag(ctx);
		uint64_t before = dbefore.n[TF_DIAG_events_read];
		if (f->kind == TF_INPUT_SAMPLES)
			tf_pipeline_join_begin(ctx, 0, i, order[npaths + 1 + i]);
		int r = f->read(paths[i], (uint32_t)i, ctx, &tee.sink, &err);
		tf_pipeline_join_end(ctx);
		if (r >= 0 || r == TF_ESTOP)
			r = tee.sink.end_input(&tee.sink, (uint32_t)i);
		if (r < 0 && r != TF_ESTOP) {
			if (!err.code)
				tf_error_set(&err, r, paths[i], -1, -1, "%s", tf_strerror(r));
			rc = tf_report(&err);
			goto out;
		}
		in[i].events = tf_ctx_diag(ctx)->n[TF_DIAG_events_read] - before;
		r = tf_input_check(ctx, paths[i], &dbefore, &err);
		tf_print_warnings(ctx);
		if (r < 0) {
			rc = tf_report(&err);
			goto out;
		}
	}
	int r = tf_stacks_finish(stacks);
	if (r >= 0 && (r = tf_agg_sink_finish(asink)) >= 0)
		s.nmem = tf_agg_sink_memory(asink, &s.mem);
	if (r < 0) {
		tf_msg("cannot build stacks: %s", tf_strerror(r));
		rc = TF_EXIT_INPUT;
		goto out;
	}
	if (filter) {
		tf_error err;
		tf_error_clear(&err);
		if (tf_filter_check(filter, &err) < 0) {
			rc = tf_report(&err);
			goto out;
		}
	}
	if (info_waiting(&s, agg) < 0) {
		tf_msg("out of memory");
		rc = TF_EXIT_INPUT;
		goto out;
	}
	if (json)
		tf_info_print_json(&s, ctx, in, npaths);
	else
		tf_info_print_text(&s, ctx, in, npaths, list_meta);
	rc = tf_check_strict(&iopts, ctx);
out:
	tf_stacks_free(stacks);
	tf_agg_sink_free(asink);
	tf_filter_free(filter);
	tf_agg_free(agg);
	info_free(&s);
	free(in);
	free(fmts);
	free(order);
	free(paths);
	tf_input_opts_free(&iopts);
	tf_ctx_free(ctx);
	return rc;
}
