/* gpu_join.c - GPU activities joined to the CPU calls that launched them
 * (docs/gpu.md, stack_int.h).
 *
 * stack.c notes every CPU call with a correlation id as it closes (an
 * input's CPU tracks are nested before its GPU streams); each activity of
 * a GPU stream then goes under the call path of the latest launch with its
 * (input, correlation id), else under "[unattributed gpu]".  The launch
 * table lives in memory up to half of sort_mem_bytes (tf_sort_mem_half), past it in sorted runs in
 * the sorter's temporary file, and is then joined to a stream's
 * activities by a sort-merge join in bounded memory. */
#include <stdlib.h>
#include <string.h>
#include "stack_int.h"
#include "grow.h"
#include "hmap.h"
#include "sat.h"

/* A launch: by key, the latest (seq) wins when a correlation id repeats. */
typedef struct launch {
	uint64_t key;
	uint32_t node, seq;
	int64_t ts;               /* the launch's start */
} launch;

struct tf_gpu_join {
	tf_ctx *ctx;
	tf_cpath *cp;
	tf_diag *diag;
	tf_sorter *so;         /* its temporary file */
	/* (input, correlation id) -> call path of the CPU call with it: the
	 * launches of the input being finished, past half of sort_mem_bytes in
	 * sorted runs (join_launches) */
	launch *launch;
	uint32_t nlaunch, caplaunch, launch_seq;
	bool launch_dirty;     /* launch[] not sorted yet */
	tf_runs launch_runs;
	tf_str unnamed;        /* "[unnamed]", interned on first use */
	tf_str unattributed;   /* "[unattributed gpu]", likewise */
	/* the smallest correlation id of the input's launches per numbering
	 * (the id's upper 32 bits: a reader whose ids are per process puts the
	 * process there), to tell a launch before the trace from one missing
	 * (docs/gpu.md "Coverage"); few numberings, searched in turn */
	struct corr_min { uint64_t hi, min; } *cmin;
	uint32_t ncmin, capcmin;
};

static uint64_t launch_key(uint32_t input, uint64_t corr)
{
	return tf_mix64(corr * 0x9E3779B97F4A7C15ull ^ input);
}

static int launch_cmp(const void *x, const void *y)
{
	const launch *a = x, *b = y;
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return (a->seq > b->seq) - (a->seq < b->seq);
}

static uint32_t track_input(const tf_gpu_join *g, uint32_t track)
{
	const tf_track *tr = tf_ctx_track_get(g->ctx, track);
	return tr ? tr->input : 0;
}

int tf_gpu_join_launch(tf_gpu_join *g, uint32_t track, uint64_t corr, uint32_t node, int64_t start_ns)
{
	if (tf_grow((void **)&g->launch, &g->caplaunch, g->nlaunch + 1, sizeof(launch)) < 0)
		return TF_ENOMEM;
	g->launch[g->nlaunch++] = (launch){ launch_key(track_input(g, track), corr), node, g->launch_seq++, start_ns };
	uint32_t i = 0;
	while (i < g->ncmin && g->cmin[i].hi != corr >> 32)
		i++;
	if (i == g->ncmin) {
		if (tf_grow((void **)&g->cmin, &g->capcmin, i + 1, sizeof(*g->cmin)) < 0)
			return TF_ENOMEM;
		g->cmin[g->ncmin++] = (struct corr_min){ corr >> 32, corr };
	}
	if (corr < g->cmin[i].min)
		g->cmin[i].min = corr;
	g->launch_dirty = true;
	size_t budget = tf_sort_mem_half(tf_ctx_opts(g->ctx));
	if (budget && (size_t)g->nlaunch * sizeof(launch) >= budget && tf_sorter_spill_open(g->so) == 1) {
		qsort(g->launch, g->nlaunch, sizeof(launch), launch_cmp);
		int r = tf_spill_write(tf_sorter_spill(g->so), &g->launch_runs, g->launch, g->nlaunch, sizeof(launch),
				       launch_cmp);
		if (r < 0) /* the disk is full: the run fails (sorter.c) */
			return tf_sorter_failed(g->so, r);
		g->nlaunch = 0;
	}
	return 0;
}

void tf_gpu_join_forget(tf_gpu_join *g)
{
	free(g->launch);
	g->launch = NULL;
	g->nlaunch = g->caplaunch = 0;
	g->launch_dirty = false;
	tf_runs_free(&g->launch_runs);
	free(g->cmin);
	g->cmin = NULL;
	g->ncmin = g->capcmin = 0;
}

static void sort_launches(tf_gpu_join *g)
{
	if (g->launch_dirty) {
		qsort(g->launch, g->nlaunch, sizeof(launch), launch_cmp);
		g->launch_dirty = false;
	}
}

/* The latest launch with key in the sorted launch[] (nothing spilled), or
 * NULL. */
static const launch *launch_find(const tf_gpu_join *g, uint64_t key)
{
	uint32_t lo = 0, hi = g->nlaunch;
	while (lo < hi) { /* the first launch with a larger key */
		uint32_t mid = lo + (hi - lo) / 2;
		if (g->launch[mid].key <= key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && g->launch[lo - 1].key == key ? &g->launch[lo - 1] : NULL;
}

/* ---- the join in bounded memory ---- */

/* What a GPU activity asks of the launch table: its key, its place. */
typedef struct lreq {
	uint64_t key;
	uint32_t idx;
	uint32_t zero; /* no padding: the spill file codes every byte (spill.c) */
} lreq;
_Static_assert(sizeof(lreq) == 16, "a request has no padding");

static int lreq_cmp(const void *x, const void *y)
{
	const lreq *a = x, *b = y;
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return (a->idx > b->idx) - (a->idx < b->idx);
}

typedef struct lres {
	uint32_t idx, node;
	int64_t ts;
} lres;

static int lres_cmp(const void *x, const void *y)
{
	const lres *a = x, *b = y;
	return (a->idx > b->idx) - (a->idx < b->idx);
}

/* Sorts n records and writes them as a run of rs. */
static int put_run(tf_gpu_join *g, tf_runs *rs, void *base, size_t n, size_t sz, tf_cmp_fn cmp)
{
	qsort(base, n, sz, cmp);
	return tf_spill_write(tf_sorter_spill(g->so), rs, base, n, sz, cmp);
}

/* (1) each activity's (key, place), read from sm, to runs by key. */
static int put_requests(tf_gpu_join *g, tf_merge *sm, uint32_t input, lreq *req, size_t cap, tf_runs *reqs)
{
	int r = 0;
	size_t n = 0;
	uint32_t idx = 0;
	for (const tf_sorted_span *p; r == 0 && (p = tf_merge_peek(sm)); idx++) {
		if (!p->label && p->corr) {
			req[n++] = (lreq){ launch_key(input, p->corr), idx, 0 };
			if (n == cap) {
				r = put_run(g, reqs, req, n, sizeof(lreq), lreq_cmp);
				n = 0;
			}
		}
		if (r == 0)
			r = tf_merge_pop(sm);
	}
	return r < 0 ? r : put_run(g, reqs, req, n, sizeof(lreq), lreq_cmp);
}

/* With launches in the temporary file, a sort-merge join in bounded memory:
 * (1) each activity's (key, place) to runs by key; (2) those merged beside
 * the launch table (by key) give (place, call path), to runs by place; (3)
 * the caller reads them back by place as it hands the activities on. */
static int join_launches(tf_gpu_join *g, tf_merge *sm, uint32_t input, tf_runs *out)
{
	size_t cap = tf_ctx_opts(g->ctx)->sort_mem_bytes / 8 / sizeof(lreq);
	if (cap < 4096)
		cap = 4096;
	tf_runs reqs = { 0 };
	lreq *req = malloc(cap * sizeof(lreq));
	lres *res = malloc(cap * sizeof(lres));
	int r = req && res ? 0 : TF_ENOMEM;
	if (r == 0)
		r = put_requests(g, sm, input, req, cap, &reqs);
	if (r == 0)
		sort_launches(g);
	tf_merge rm = { 0 }, lm = { 0 };
	if (r == 0)
		r = tf_merge_init(&rm, tf_sorter_spill(g->so), &reqs, NULL, 0, sizeof(lreq), lreq_cmp);
	if (r == 0)
		r = tf_merge_init(&lm, tf_sorter_spill(g->so), &g->launch_runs, g->launch, g->nlaunch, sizeof(launch),
				  launch_cmp);
	uint64_t key = 0;
	uint32_t found = UINT32_MAX;
	int64_t found_ts = 0;
	bool have = false;
	size_t n = 0;
	for (const lreq *q; r == 0 && (q = tf_merge_peek(&rm));) {
		if (!have || q->key != key) {
			key = q->key;
			found = UINT32_MAX;
			have = true;
			for (const launch *l; r == 0 && (l = tf_merge_peek(&lm)) && l->key <= key;) {
				if (l->key == key) { /* equal keys come by seq: the last is the latest */
					found = l->node;
					found_ts = l->ts;
				}
				r = tf_merge_pop(&lm);
			}
		}
		res[n++] = (lres){ q->idx, found, found_ts };
		if (r == 0 && n == cap) {
			r = put_run(g, out, res, n, sizeof(lres), lres_cmp);
			n = 0;
		}
		if (r == 0)
			r = tf_merge_pop(&rm);
	}
	if (r == 0)
		r = put_run(g, out, res, n, sizeof(lres), lres_cmp);
	tf_merge_free(&rm);
	tf_merge_free(&lm);
	tf_runs_free(&reqs);
	free(req);
	free(res);
	return r;
}

/* Why an activity with correlation id corr found no launch: none in the
 * trace, or one before it (its id below every launch's of its numbering). */
static tf_diag_id unattributed_why(const tf_gpu_join *g, uint64_t corr)
{
	if (!corr)
		return TF_DIAG_gpu_unattributed_no_corr;
	for (uint32_t i = 0; i < g->ncmin; i++)
		if (g->cmin[i].hi == corr >> 32)
			return corr < g->cmin[i].min ? TF_DIAG_gpu_unattributed_early : TF_DIAG_gpu_unattributed_no_launch;
	return TF_DIAG_gpu_unattributed_no_launch;
}

/* ---- a GPU stream ---- */

int tf_gpu_stream_open(tf_gpu_join *g, uint32_t track, tf_sorted *c, tf_gpu_stream *gs)
{
	*gs = (tf_gpu_stream){ .g = g, .track = track, .input = track_input(g, track) };
	if (!g->launch_runs.n) { /* the launch table is in memory */
		sort_launches(g);
		return 0;
	}
	gs->spilled = true;
	int r = join_launches(g, &c->spans, gs->input, &gs->res);
	/* the activities again, from the start (the join only read them) */
	if (r == 0)
		r = tf_sorter_rewind(g->so, track, c);
	else
		tf_merge_free(&c->spans);
	if (r == 0)
		r = tf_merge_init(&gs->rm, tf_sorter_spill(g->so), &gs->res, NULL, 0, sizeof(lres), lres_cmp);
	return r;
}

/* The launch of the next activity sp: its call path (UINT32_MAX none) and start. */
static int next_launch(tf_gpu_stream *gs, const tf_sorted_span *sp, uint32_t *node, int64_t *ts)
{
	*node = UINT32_MAX;
	*ts = 0;
	uint32_t idx = gs->idx++;
	if (!gs->spilled) {
		const launch *l = !sp->label && sp->corr ? launch_find(gs->g, launch_key(gs->input, sp->corr)) : NULL;
		if (l) {
			*node = l->node;
			*ts = l->ts;
		}
		return 0;
	}
	const lres *q = tf_merge_peek(&gs->rm);
	if (!q || q->idx != idx)
		return 0;
	*node = q->node;
	*ts = q->ts;
	return tf_merge_pop(&gs->rm);
}

int tf_gpu_stream_span(tf_gpu_stream *gs, const tf_sorted_span *sp, tf_span *out)
{
	tf_gpu_join *g = gs->g;
	uint32_t launched;
	int64_t launch_ns;
	TF_TRY(next_launch(gs, sp, &launched, &launch_ns));
	tf_str name = sp->name;
	if (!name) {
		TF_TRY(tf_intern_once(g->ctx, &g->unnamed, "[unnamed]"));
		name = g->unnamed;
	}
	int64_t dur = tf_sat_sub(sp->end_ns, sp->start_ns);
	uint32_t kind = sp->label ? TF_SPAN_KIND_GPU_LABEL : TF_SPAN_KIND_GPU, parent = TF_CPATH_ROOT;
	if (!sp->label) {
		parent = launched;
		if (parent == UINT32_MAX) {
			TF_TRY(tf_intern_once(g->ctx, &g->unattributed, "[unattributed gpu]"));
			parent = tf_cpath_child(g->cp, TF_CPATH_ROOT, g->unattributed);
			tf_diag_repair(g->diag, TF_DIAG_gpu_unattributed, dur);
			tf_diag_repair(g->diag, unattributed_why(g, sp->corr), dur);
		} else {
			tf_diag_repair(g->diag, TF_DIAG_gpu_attributed, dur);
		}
		if (sp->op) { /* the op it ran for (XLA's tf_op): between launch and kernel */
			tf_str oname = tf_ctx_frame_name(g->ctx, sp->op);
			if (oname == (tf_str)-1)
				return TF_ENOMEM;
			parent = tf_cpath_child(g->cp, parent, oname);
		}
	}
	tf_str fname = tf_ctx_frame_name(g->ctx, name);
	uint32_t node = parent == (uint32_t)-1 || fname == (tf_str)-1 ? (uint32_t)-1
									: tf_cpath_child(g->cp, parent, fname);
	if (node == (uint32_t)-1)
		return TF_ENOMEM;
	*out = (tf_span){ gs->track, node, 1, sp->flags, name, sp->cat, sp->start_ns, sp->end_ns,
			  kind == TF_SPAN_KIND_GPU_LABEL ? 0 : dur, kind, sp->corr,
			  kind == TF_SPAN_KIND_GPU && launched != UINT32_MAX ? launch_ns : TF_SPAN_END_UNKNOWN,
			  kind == TF_SPAN_KIND_GPU ? sp->op : 0 };
	return 0;
}

void tf_gpu_stream_close(tf_gpu_stream *gs)
{
	tf_merge_free(&gs->rm);
	tf_runs_free(&gs->res);
}

/* ---- construction ---- */

tf_gpu_join *tf_gpu_join_new(tf_ctx *ctx, tf_cpath *cp, tf_sorter *so)
{
	tf_gpu_join *g = calloc(1, sizeof(*g));
	if (!g)
		return NULL;
	g->ctx = ctx;
	g->cp = cp;
	g->diag = tf_ctx_diag(ctx);
	g->so = so;
	return g;
}

void tf_gpu_join_free(tf_gpu_join *g)
{
	if (!g)
		return;
	tf_gpu_join_forget(g);
	free(g);
}
