/* steps.c - the first passes that find a run's steps: the window of
 * --steps A:B, and the step list of --label-steps and diff --gate
 * (Kineto's ProfilerStep#N regions, or each instance of a region named by
 * --step-region, per rank).  Both read the inputs through scratch contexts
 * (pipeline_int.h), so the run's own tracks and diagnostics stay as they
 * are. */
#include <stdlib.h>
#include <string.h>
#include "tracefold/pipeline.h"
#include "tracefold/reader.h"
#include "tracefold/stack.h"
#include "hmap.h"
#include "sat.h"
#include "pipeline_int.h"

/* --steps: the first pass that finds Kineto's ProfilerStep#N regions in
 * [lo, hi], and the launches and GPU activities (by correlation id, per
 * input) to extend the window to the end of the GPU work the steps
 * launched.  Memory: 16 bytes per launch and per GPU activity. */
typedef struct steps_sink {
	tf_sink sink;
	tf_ctx *ctx;                     /* the input's (scratch) ctx */
	uint32_t input;
	int64_t lo, hi;                  /* the step numbers wanted */
	bool any, any_step;
	int64_t start, end;              /* of the steps wanted */
	int64_t seen_lo, seen_hi;        /* the step numbers present */
	tf_hmap launch, gpu;             /* (input, corr) -> index in ts/gend */
	int64_t *ts, *gend;
	uint32_t nts, capts, ngend, capgend;
	tf_step *list;                   /* --label-steps: every step, when collecting */
	uint32_t first;                  /* the input index of inputs[0] */
	uint32_t nlist, caplist;
	bool collect;
} steps_sink;

static int put_max(tf_hmap *m, int64_t **v, uint32_t *n, uint32_t *cap, uint64_t key, int64_t x, bool keep_max)
{
	uint32_t i = tf_hmap_get(m, key);
	if (i == UINT32_MAX) {
		if (tf_grow((void **)v, cap, *n + 1, sizeof(int64_t)) < 0 || tf_hmap_put(m, key, *n) < 0)
			return TF_ENOMEM;
		(*v)[(*n)++] = x;
	} else if (!keep_max || x > (*v)[i]) {
		(*v)[i] = x;
	}
	return 0;
}

static int steps_event(tf_sink *k, const tf_event *ev)
{
	steps_sink *s = tf_container_of(k, steps_sink, sink);
	if (ev->kind != TF_EV_COMPLETE && ev->kind != TF_EV_BEGIN)
		return 0;
	int64_t end = ev->kind == TF_EV_COMPLETE && ev->dur_ns > 0 ? tf_sat_add(ev->ts_ns, ev->dur_ns) : ev->ts_ns;
	/* the input its track is of: the one read, or one the tables were made
	 * of (src/read/tables.c: their tracks stay apart) */
	const tf_track *t = tf_ctx_track_get(s->ctx, ev->track);
	uint32_t input = t ? t->input : s->input;
	if (ev->corr && !s->collect) { /* --steps: launches and GPU work, to extend the window */
		uint64_t key = tf_mix64(ev->corr * 0x9E3779B97F4A7C15ull ^ input);
		if (t && t->kind == TF_TRACK_GPU)
			return put_max(&s->gpu, &s->gend, &s->ngend, &s->capgend, key, end, true);
		TF_TRY(put_max(&s->launch, &s->ts, &s->nts, &s->capts, key, ev->ts_ns, false));
	}
	const char *name = ev->name ? tf_strtab_get(tf_ctx_strtab(s->ctx), ev->name) : "";
	if (ev->kind != TF_EV_COMPLETE || strncmp(name, "ProfilerStep#", 13) != 0)
		return 0;
	char *stop;
	long long n = strtoll(name + 13, &stop, 10);
	if (stop == name + 13 || *stop || n < 0)
		return 0;
	if (!s->any_step || n < s->seen_lo)
		s->seen_lo = n;
	if (!s->any_step || n > s->seen_hi)
		s->seen_hi = n;
	s->any_step = true;
	if (s->collect) {
		if (tf_grow((void **)&s->list, &s->caplist, s->nlist + 1, sizeof(tf_step)) < 0)
			return TF_ENOMEM;
		s->list[s->nlist++] = (tf_step){ s->first + input, TF_STEP_ANY_RANK, n, ev->ts_ns, end };
		return 0;
	}
	if (n < s->lo || n > s->hi)
		return 0;
	if (!s->any || ev->ts_ns < s->start)
		s->start = ev->ts_ns;
	if (!s->any || end > s->end)
		s->end = end;
	s->any = true;
	return 0;
}

static void steps_free(steps_sink *s)
{
	tf_hmap_free(&s->launch);
	tf_hmap_free(&s->gpu);
	free(s->ts);
	free(s->gend);
}

int tf_pipeline_steps(tf_ctx *ctx, const char *const *inputs, int n, const tf_format *const *fmts,
		      const tf_filter_opts *fo, int64_t *start, int64_t *end, tf_error *err)
{
	steps_sink ss = { .sink = { .event = steps_event }, .lo = fo->step_lo, .hi = fo->step_hi };
	int rc = tf_pipeline_first_pass(ctx, inputs, n, fmts, &ss.sink, &ss.ctx, &ss.input, err);
	if (rc == 0 && !ss.any) {
		if (ss.any_step)
			rc = tf_error_set(err, TF_EUSAGE, NULL, -1, -1,
					  "--steps %s: no ProfilerStep#N with N in it (the inputs have steps %lld to %lld)",
					  fo->steps_text, (long long)ss.seen_lo, (long long)ss.seen_hi);
		else
			rc = tf_error_set(err, TF_EUSAGE, NULL, -1, -1,
					  "--steps %s: the inputs have no ProfilerStep#N regions (PyTorch profiler "
					  "traces recorded with a schedule have them)", fo->steps_text);
	}
	if (rc == 0) {
		/* to the end of the GPU work launched inside the steps */
		*start = ss.start;
		*end = ss.end;
		for (uint32_t k = 0; k < ss.launch.cap; k++) {
			if (!ss.launch.vals[k])
				continue;
			int64_t ts = ss.ts[ss.launch.vals[k] - 1];
			uint32_t g = tf_hmap_get(&ss.gpu, ss.launch.keys[k]);
			if (ts >= ss.start && ts <= ss.end && g != UINT32_MAX && ss.gend[g] > *end)
				*end = ss.gend[g];
		}
		if (*end <= *start)
			*end = *start + 1; /* a window of at least 1 ns */
	}
	steps_free(&ss);
	return rc;
}

static int step_cmp(const void *x, const void *y)
{
	const tf_step *a = x, *b = y;
	if (a->input != b->input)
		return a->input < b->input ? -1 : 1;
	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	return (a->start_ns > b->start_ns) - (a->start_ns < b->start_ns);
}


/* --step-region NAME: the outermost instances of region NAME (its frame
 * name, or the name as the trace has it) on every track of one input. */
typedef struct region_inst {
	uint32_t track;
	int64_t start_ns, end_ns;
} region_inst;

typedef struct region_sink {
	tf_span_sink spans;
	tf_ctx *ctx;                     /* the input's scratch ctx */
	const char *name;
	tf_hmap match;                   /* name id -> 1 it is NAME, 0 not */
	uint32_t *depth;                 /* per track: NAME regions open */
	int64_t *start;                  /* per track: when the outermost opened */
	int64_t *end;                    /* its end as the trace has it (sorted tracks), else TF_SPAN_END_UNKNOWN */
	uint32_t captracks;
	region_inst *list;
	uint32_t nlist, caplist;
	int rc;
} region_sink;

static int region_is(region_sink *r, tf_str name)
{
	uint32_t v = tf_hmap_get(&r->match, name);
	if (v != UINT32_MAX)
		return (int)v;
	tf_strtab *st = tf_ctx_strtab(r->ctx);
	tf_str frame = tf_ctx_frame_name(r->ctx, name);
	if (frame == (tf_str)-1)
		return TF_ENOMEM;
	int is = !strcmp(tf_strtab_get(st, name), r->name) || !strcmp(tf_strtab_get(st, frame), r->name);
	return tf_hmap_put(&r->match, name, (uint32_t)is) < 0 ? TF_ENOMEM : is;
}

static int region_open(tf_span_sink *k, const tf_span *s)
{
	region_sink *r = tf_container_of(k, region_sink, spans);
	if (s->kind != TF_SPAN_KIND_CPU)
		return 0;
	int is = region_is(r, s->name);
	if (is <= 0)
		return is;
	if (s->track >= r->captracks) {
		uint32_t cap = r->captracks, cap2 = cap, cap3 = cap;
		if (tf_grow((void **)&r->depth, &cap, s->track + 1, sizeof(uint32_t)) < 0 ||
		    tf_grow((void **)&r->start, &cap2, cap, sizeof(int64_t)) < 0 ||
		    tf_grow((void **)&r->end, &cap3, cap, sizeof(int64_t)) < 0)
			return TF_ENOMEM;
		memset(r->depth + r->captracks, 0, (cap - r->captracks) * sizeof(uint32_t));
		r->captracks = cap;
	}
	if (r->depth[s->track]++ == 0) {
		r->start[s->track] = s->start_ns;
		r->end[s->track] = s->end_ns; /* before a repair cuts it (docs/overview.md "Steps") */
	}
	return 0;
}

static int region_close(tf_span_sink *k, const tf_span *s)
{
	region_sink *r = tf_container_of(k, region_sink, spans);
	if (s->kind != TF_SPAN_KIND_CPU || s->track >= r->captracks || !r->depth[s->track])
		return 0;
	int is = region_is(r, s->name);
	if (is <= 0 || --r->depth[s->track])
		return is < 0 ? is : 0;
	if (tf_grow((void **)&r->list, &r->caplist, r->nlist + 1, sizeof(region_inst)) < 0)
		return TF_ENOMEM;
	int64_t end = r->end[s->track] != TF_SPAN_END_UNKNOWN ? r->end[s->track] : s->end_ns;
	r->list[r->nlist++] = (region_inst){ s->track, r->start[s->track], end };
	return 0;
}

static int inst_cmp(const void *x, const void *y)
{
	const region_inst *a = x, *b = y;
	if (a->track != b->track)
		return a->track < b->track ? -1 : 1;
	return (a->start_ns > b->start_ns) - (a->start_ns < b->start_ns);
}

/* The steps of one input from its region instances: per rank, those of
 * its first track (lowest id) that has any, numbered from 0. */
static int region_steps(region_sink *r, uint32_t input, tf_step **list, uint32_t *n, uint32_t *cap)
{
	if (r->nlist)
		qsort(r->list, r->nlist, sizeof(region_inst), inst_cmp);
	tf_hmap done = { 0 }; /* rank -> 1 */
	int rc = 0;
	for (uint32_t i = 0; i < r->nlist && rc == 0;) {
		uint32_t j = i;
		while (j < r->nlist && r->list[j].track == r->list[i].track)
			j++;
		const tf_track *t = tf_ctx_track_get(r->ctx, r->list[i].track);
		int64_t rank = t ? t->rank : -1;
		if (tf_hmap_get(&done, (uint64_t)rank) == UINT32_MAX) {
			rc = tf_hmap_put(&done, (uint64_t)rank, 1);
			for (uint32_t k = i; k < j && rc == 0; k++) {
				if (tf_grow((void **)list, cap, *n + 1, sizeof(tf_step)) < 0)
					rc = TF_ENOMEM;
				else
					(*list)[(*n)++] = (tf_step){ input, rank, (int64_t)(k - i), r->list[k].start_ns,
								     r->list[k].end_ns };
			}
		}
		i = j;
	}
	tf_hmap_free(&done);
	return rc;
}

/* Reads input i through a stack builder in a scratch ctx, into r. */
static int region_read(tf_ctx *ctx, const char *path, const tf_format *f, uint32_t i, region_sink *r,
		       tf_error *err)
{
	tf_ctx *scratch = tf_ctx_new();
	tf_cpath *cp = tf_cpath_new();
	tf_stacks *st = scratch && cp ? tf_stacks_new(scratch, cp, NULL) : NULL;
	int rc = st ? 0 : TF_ENOMEM;
	if (rc == 0) {
		*tf_ctx_opts(scratch) = *tf_ctx_opts(ctx);
		r->ctx = scratch;
		rc = tf_stacks_add_consumer(st, &r->spans);
	}
	if (rc == 0)
		rc = f->read(path, i, scratch, tf_stacks_sink(st), err);
	if (rc == 0 || rc == TF_ESTOP)
		rc = tf_stacks_finish(st);
	if (rc < 0 && err && !err->code)
		tf_error_set(err, rc, path, -1, -1, "%s", tf_strerror(rc));
	tf_stacks_free(st);
	tf_cpath_free(cp);
	r->ctx = NULL;
	if (rc < 0)
		tf_ctx_free(scratch);
	else
		r->ctx = scratch; /* for its tracks' ranks; the caller frees it */
	return rc;
}

int tf_pipeline_step_list(tf_ctx *ctx, const char *const *inputs, int n, const tf_format *const *fmts,
			  uint32_t first_input,
			  const char *region, tf_step **out, size_t *nout, tf_error *err)
{
	*out = NULL;
	*nout = 0;
	for (int i = 0; i < n; i++)
		if (!strcmp(inputs[i], "-"))
			return tf_error_set(err, TF_EUSAGE, NULL, -1, -1,
					    "steps (--label-steps, diff --gate) need the inputs read twice, which "
					    "standard input cannot be");
	int rc = 0;
	tf_step *list = NULL;
	uint32_t nlist = 0, caplist = 0;
	if (!region) {
		steps_sink ss = { .sink = { .event = steps_event }, .collect = true, .first = first_input };
		rc = tf_pipeline_first_pass(ctx, inputs, n, fmts, &ss.sink, &ss.ctx, &ss.input, err);
		steps_free(&ss);
		list = ss.list;
		nlist = ss.nlist;
	} else {
		for (int i = 0; i < n && rc == 0; i++) {
			if (!fmts[i]->read) /* a profile: no regions */
				continue;
			region_sink r = { .spans = { .open = region_open, .close = region_close }, .name = region };
			rc = region_read(ctx, inputs[i], fmts[i], first_input + (uint32_t)i, &r, err);
			if (rc == 0)
				rc = region_steps(&r, first_input + (uint32_t)i, &list, &nlist, &caplist);
			if (rc == TF_ENOMEM && err && !err->code)
				tf_error_set(err, rc, NULL, -1, -1, "out of memory");
			tf_ctx_free(r.ctx);
			tf_hmap_free(&r.match);
			free(r.depth);
			free(r.start);
			free(r.end);
			free(r.list);
		}
	}
	if (rc < 0) {
		free(list);
		return rc;
	}
	if (nlist)
		qsort(list, nlist, sizeof(tf_step), step_cmp);
	*out = list;
	*nout = nlist;
	return 0;
}
