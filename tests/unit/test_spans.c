/* test_spans.c - a checking span consumer on every fixture (tests/data):
 * opens and closes nest per track, events come with the call path open at
 * the time, the spans' calls and self time per call path are the
 * aggregate's (so the profile's), and every repair flag agrees with its
 * diagnostics counter.  Runs from the repository root (tests/run.sh). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tracefold/ctx.h"
#include "tracefold/pipeline.h"
#include "tracefold/sink.h"
#include "tracefold/stack.h"
#include "tracefold/reader.h"
#include "hmap.h"
#include "stack_int.h"

#define MAXTRACKS 4096

typedef struct checker {
	tf_span_sink spans;
	/* per track: the open spans (node, start) */
	struct open { uint32_t node; int64_t start; } *stack[MAXTRACKS];
	uint32_t depth[MAXTRACKS], cap[MAXTRACKS];
	uint8_t ended[MAXTRACKS];
	/* per call path: calls and self time of the spans that closed there */
	int64_t *calls, *self;
	uint32_t nnodes;
	uint64_t flag_n[6];
	uint64_t nopen, nclose, nevents;
	char err[256];
} checker;

static void bad(checker *c, const char *fmt, ...)
{
	if (c->err[0])
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(c->err, sizeof(c->err), fmt, ap);
	va_end(ap);
}

static int on_open(tf_span_sink *k, const tf_span *s)
{
	checker *c = tf_container_of(k, checker, spans);
	c->nopen++;
	if (s->track >= MAXTRACKS)
		return 0;
	uint32_t t = s->track;
	if (c->ended[t])
		bad(c, "track %u: open after end_track", t);
	if (s->depth != c->depth[t] + 1)
		bad(c, "track %u: open at depth %u with %u open", t, s->depth, c->depth[t]);
	if (c->depth[t] && s->start_ns < c->stack[t][c->depth[t] - 1].start)
		bad(c, "track %u: a child starts before its parent", t);
	if (c->depth[t] == c->cap[t]) {
		c->cap[t] = c->cap[t] ? 2 * c->cap[t] : 16;
		c->stack[t] = realloc(c->stack[t], c->cap[t] * sizeof(*c->stack[t]));
	}
	c->stack[t][c->depth[t]++] = (struct open){ s->node, s->start_ns };
	return 0;
}

static int on_close(tf_span_sink *k, const tf_span *s)
{
	checker *c = tf_container_of(k, checker, spans);
	c->nclose++;
	if (s->track >= MAXTRACKS)
		return 0;
	uint32_t t = s->track;
	if (!c->depth[t] || c->stack[t][c->depth[t] - 1].node != s->node ||
	    c->stack[t][c->depth[t] - 1].start != s->start_ns || s->depth != c->depth[t])
		bad(c, "track %u: a close that is not the innermost open span", t);
	else
		c->depth[t]--;
	if (s->end_ns < s->start_ns || s->self_ns < 0 || s->self_ns > s->end_ns - s->start_ns)
		bad(c, "track %u: span [%lld, %lld] self %lld", t, (long long)s->start_ns, (long long)s->end_ns,
		    (long long)s->self_ns);
	if (s->node >= c->nnodes) {
		uint32_t n = s->node + 1024;
		c->calls = realloc(c->calls, n * sizeof(int64_t));
		c->self = realloc(c->self, n * sizeof(int64_t));
		memset(c->calls + c->nnodes, 0, (n - c->nnodes) * sizeof(int64_t));
		memset(c->self + c->nnodes, 0, (n - c->nnodes) * sizeof(int64_t));
		c->nnodes = n;
	}
	if (s->kind != TF_SPAN_KIND_GPU_LABEL) { /* a GPU annotation: no call, no time (docs/gpu.md) */
		c->calls[s->node]++;
		c->self[s->node] += s->self_ns;
	}
	for (int b = 0; b < 6; b++)
		if (s->flags & (1u << b))
			c->flag_n[b]++;
	return 0;
}

static int on_event(tf_span_sink *k, const tf_event *ev, uint32_t node)
{
	checker *c = tf_container_of(k, checker, spans);
	c->nevents++;
	uint32_t t = ev->track;
	if (t < MAXTRACKS) {
		uint32_t want = c->depth[t] ? c->stack[t][c->depth[t] - 1].node : TF_CPATH_ROOT;
		if (node != want)
			bad(c, "track %u: an event with call path %u while %u is open", t, node, want);
	}
	return 0;
}

static int on_end_track(tf_span_sink *k, uint32_t track)
{
	checker *c = tf_container_of(k, checker, spans);
	if (track < MAXTRACKS) {
		if (c->depth[track])
			bad(c, "track %u: ended with %u spans open", track, c->depth[track]);
		c->ended[track] = 1;
	}
	return 0;
}

static void check_input(const char *path, const char *const *counters)
{
	tf_ctx *ctx = tf_ctx_new();
	tf_agg *agg = tf_agg_new(tf_ctx_strtab(ctx));
	checker *c = calloc(1, sizeof(*c));
	c->spans = (tf_span_sink){ .open = on_open, .close = on_close, .event = on_event,
				   .end_track = on_end_track,
				   .event_kinds = (1u << TF_EV_COUNTER) | (1u << TF_EV_INSTANT) | (1u << TF_EV_SEND) |
						  (1u << TF_EV_RECV) | (1u << TF_EV_FLOW) | (1u << TF_EV_ASYNC) };
	tf_span_sink *consumers[] = { &c->spans, NULL };
	tf_pipeline_opts o = { .counters = counters, .consumers = consumers };
	tf_error err;
	tf_error_clear(&err);
	const char *one[] = { path };
	int rc = tf_pipeline_run(ctx, agg, one, 1, &o, &err);
	if (rc < 0)
		fail_msg("%s: %s", path, err.msg);
	if (c->err[0])
		fail_msg("%s: %s", path, c->err);
	if (c->nopen != c->nclose)
		fail_msg("%s: %llu opens, %llu closes", path, (unsigned long long)c->nopen,
			 (unsigned long long)c->nclose);
	/* calls and self time per call path: the aggregate's */
	/* self time: wall for CPU regions, gpu for GPU activities */
	int tc = tf_agg_type_find(agg, "calls"), tw = tf_agg_type_find(agg, "wall"), tg = tf_agg_type_find(agg, "gpu");
	uint32_t nn = tf_agg_nnodes(agg);
	int64_t *acalls = calloc(nn, sizeof(int64_t)), *aself = calloc(nn, sizeof(int64_t));
	for (size_t i = 0; i < tf_agg_nsamples(agg); i++) {
		tf_agg_sample smp = tf_agg_sample_get(agg, i);
		acalls[smp.node] += tf_agg_sample_value(agg, i, tc);
		aself[smp.node] += tf_agg_sample_value(agg, i, tw) + (tg >= 0 ? tf_agg_sample_value(agg, i, tg) : 0);
	}
	for (uint32_t n = 0; n < nn; n++) {
		int64_t sc = n < c->nnodes ? c->calls[n] : 0, ss = n < c->nnodes ? c->self[n] : 0;
		if (sc != acalls[n] || ss != aself[n])
			fail_msg("%s: call path %u: spans %lld calls %lld ns, aggregate %lld calls %lld ns", path, n,
				 (long long)sc, (long long)ss, (long long)acalls[n], (long long)aself[n]);
	}
	/* repair flags == diagnostics counters */
	const tf_diag *d = tf_ctx_diag(ctx);
	static const struct { uint32_t flag; tf_diag_id id; } same[] = {
		{ TF_SPAN_CLIPPED, TF_DIAG_child_clipped }, { TF_SPAN_CUT, TF_DIAG_overlap_cut },
		{ TF_SPAN_UNCLOSED, TF_DIAG_begin_unclosed }, { TF_SPAN_NEG_DURATION, TF_DIAG_negative_duration },
		{ TF_SPAN_DEPTH_LIMITED, TF_DIAG_depth_limited },
	};
	for (size_t k = 0; k < sizeof(same) / sizeof(same[0]); k++) {
		uint64_t f = c->flag_n[__builtin_ctz(same[k].flag)];
		if (f != d->n[same[k].id])
			fail_msg("%s: %llu spans flagged, %s=%llu", path, (unsigned long long)f, tf_diag_name(same[k].id),
				 (unsigned long long)d->n[same[k].id]);
	}
	/* one exit_mismatch closes one or more inner spans early */
	uint64_t early = c->flag_n[__builtin_ctz(TF_SPAN_CLOSED_EARLY)];
	if ((early == 0) != (d->n[TF_DIAG_exit_mismatch] == 0) || early < d->n[TF_DIAG_exit_mismatch])
		fail_msg("%s: %llu spans closed early, exit_mismatch=%llu", path, (unsigned long long)early,
			 (unsigned long long)d->n[TF_DIAG_exit_mismatch]);
	print_message("%s: %llu spans, %llu events, %u call paths\n", path, (unsigned long long)c->nclose,
		      (unsigned long long)c->nevents, nn);
	free(acalls);
	free(aself);
	for (int t = 0; t < MAXTRACKS; t++)
		free(c->stack[t]);
	free(c->calls);
	free(c->self);
	free(c);
	tf_agg_free(agg);
	tf_ctx_free(ctx);
}

static bool has_suffix(const char *s, const char *suf)
{
	size_t n = strlen(s), k = strlen(suf);
	return n >= k && strcmp(s + n - k, suf) == 0;
}

/* Every Chrome trace file under tests/data/chrome (one level of folders). */
static void test_chrome_fixtures(void **state)
{
	(void)state;
	static const char *const all[] = { "all", NULL };
	DIR *d = opendir("tests/data/chrome");
	assert_non_null(d);
	struct dirent *e;
	int n = 0;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char dir[512];
		snprintf(dir, sizeof(dir), "tests/data/chrome/%s", e->d_name);
		DIR *d2 = opendir(dir);
		if (!d2)
			continue;
		struct dirent *f;
		while ((f = readdir(d2))) {
			const char *nm = f->d_name;
			if (!has_suffix(nm, ".json") && !has_suffix(nm, ".json.gz") && !has_suffix(nm, ".jsonl") &&
			    !has_suffix(nm, ".pfw") && !has_suffix(nm, ".pfw.gz"))
				continue;
			char path[1024];
			snprintf(path, sizeof(path), "%s/%s", dir, nm);
			check_input(path, all);
			n++;
		}
		closedir(d2);
	}
	closedir(d);
	assert_true(n >= 10);
}

static void test_tau_otf2_fixtures(void **state)
{
	(void)state;
	static const char *const all[] = { "all", NULL };
	static const char *const paths[] = {
		"tests/data/tau/tiny", "tests/data/tau/threads", "tests/data/tau/threads/merged",
		"tests/data/tau/mpi_small", "tests/data/otf2/tiny_otf2/traces.otf2",
		"tests/data/otf2/scorep-ping-pong-mpi/traces.otf2", "tests/data/otf2/scorep-mi300-hip/traces.otf2",
	};
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		check_input(paths[i], NULL);
		check_input(paths[i], all);
	}
}

/* Streamed repairs on events made here: an exit that closes inner regions
 * early, a clock going backwards, regions left open, the depth limit. */
static void test_streamed_repairs(void **state)
{
	(void)state;
	tf_ctx *ctx = tf_ctx_new();
	tf_strtab *st = tf_ctx_strtab(ctx);
	tf_agg *agg = tf_agg_new(st);
	checker *c = calloc(1, sizeof(*c));
	c->spans = (tf_span_sink){ .open = on_open, .close = on_close, .end_track = on_end_track };
	tf_stacks *s = tf_stacks_new(ctx, tf_agg_cpath(agg), NULL);
	assert_int_equal(tf_stacks_add_consumer(s, &c->spans), 0);
	uint32_t tr = tf_ctx_track(ctx, 0, tf_strtab_intern_cstr(st, "1"), tf_strtab_intern_cstr(st, "1"));
	tf_str a = tf_strtab_intern_cstr(st, "a"), b = tf_strtab_intern_cstr(st, "b"), x = tf_strtab_intern_cstr(st, "x");
	struct { uint8_t kind; tf_str name; int64_t ts; } evs[] = {
		{ TF_EV_BEGIN, a, 10 }, { TF_EV_BEGIN, b, 20 }, { TF_EV_BEGIN, x, 25 },
		{ TF_EV_END, a, 30 },          /* closes x and b early */
		{ TF_EV_BEGIN, b, 40 }, { TF_EV_END, b, 35 }, /* the clock went back */
		{ TF_EV_BEGIN, a, 50 },        /* never closed */
	};
	uint64_t idx = 0;
	for (size_t i = 0; i < sizeof(evs) / sizeof(evs[0]); i++) {
		tf_event e = { .kind = evs[i].kind, .track = tr, .name = evs[i].name, .ts_ns = evs[i].ts, .index = idx++ };
		assert_int_equal(tf_emit(ctx, tf_stacks_sink(s), &e), 0);
	}
	for (int i = 0; i < 5000; i++) { /* deeper than the limit */
		tf_event e = { .kind = TF_EV_BEGIN, .track = tr, .name = x, .ts_ns = 60 + i, .index = idx++ };
		assert_int_equal(tf_emit(ctx, tf_stacks_sink(s), &e), 0);
	}
	assert_int_equal(tf_stacks_sink(s)->end_input(tf_stacks_sink(s), 0), 0);
	assert_int_equal(tf_stacks_finish(s), 0);
	if (c->err[0])
		fail_msg("%s", c->err);
	const tf_diag *d = tf_ctx_diag(ctx);
	assert_int_equal(d->n[TF_DIAG_exit_mismatch], 1);
	assert_int_equal(c->flag_n[__builtin_ctz(TF_SPAN_CLOSED_EARLY)], 2);
	assert_int_equal(c->flag_n[__builtin_ctz(TF_SPAN_NEG_DURATION)], d->n[TF_DIAG_negative_duration]);
	assert_int_equal(d->n[TF_DIAG_negative_duration], 1);
	assert_int_equal(c->flag_n[__builtin_ctz(TF_SPAN_UNCLOSED)], d->n[TF_DIAG_begin_unclosed]);
	assert_int_equal(d->n[TF_DIAG_begin_unclosed], 5001);
	assert_int_equal(c->flag_n[__builtin_ctz(TF_SPAN_DEPTH_LIMITED)], d->n[TF_DIAG_depth_limited]);
	assert_int_equal(d->n[TF_DIAG_depth_limited], 5001 - 4096);
	assert_int_equal(c->nopen, c->nclose);
	tf_stacks_free(s);
	for (int t = 0; t < MAXTRACKS; t++)
		free(c->stack[t]);
	free(c->calls);
	free(c->self);
	free(c);
	tf_agg_free(agg);
	tf_ctx_free(ctx);
}

/* Kineto's Python frames (pyframe.c): clipped as they come while ids rise
 * and parents are open, else by the replay of the rule at the track's end
 * (tf_py_replays), with the same spans: the rule's last frame with an id
 * wins, links in arrival order, each child clipped to its parent as it
 * stands at its turn.  At every --sort-mem: 0 (memory), 1 (a run an event). */
typedef struct pyrec {
	tf_span_sink spans;
	tf_str name[16];
	int n;
	struct { int64_t start, end; } by[16]; /* by name */
} pyrec;

static int py_close(tf_span_sink *k, const tf_span *s)
{
	pyrec *r = (pyrec *)k;
	for (int i = 0; i < r->n; i++)
		if (r->name[i] == s->name) {
			r->by[i].start = s->start_ns;
			r->by[i].end = s->end_ns;
		}
	return 0;
}

typedef struct pyev { uint64_t id, parent; int64_t ts, dur; } pyev;

/* Runs evs as X events named by their place (frame i: the string "i");
 * want[i]: frame i's span; the replays it took and python_parent_clipped. */
static void py_case(const pyev *evs, int n, const int64_t (*want)[2], uint64_t replays, uint64_t clipped,
		    uint64_t moved_ns)
{
	for (size_t mem = 0; mem < 2; mem++) {
		tf_ctx *ctx = tf_ctx_new();
		tf_ctx_opts(ctx)->sort_mem_bytes = mem;
		tf_strtab *st = tf_ctx_strtab(ctx);
		tf_agg *agg = tf_agg_new(st);
		pyrec r = { .spans = { .close = py_close } };
		tf_stacks *s = tf_stacks_new(ctx, tf_agg_cpath(agg), NULL);
		assert_int_equal(tf_stacks_add_consumer(s, &r.spans), 0);
		uint32_t tr = tf_ctx_track(ctx, 0, tf_strtab_intern_cstr(st, "1"), tf_strtab_intern_cstr(st, "1"));
		tf_str *name = r.name;
		r.n = n;
		for (int i = 0; i < n; i++) {
			char b[8];
			snprintf(b, sizeof(b), "f%d", i);
			name[i] = tf_strtab_intern_cstr(st, b);
		}
		uint64_t before = tf_py_replays();
		for (int i = 0; i < n; i++) {
			tf_event e = { .kind = TF_EV_COMPLETE, .track = tr, .name = name[i], .ts_ns = evs[i].ts,
				       .dur_ns = evs[i].dur, .id = evs[i].id, .parent_id = evs[i].parent,
				       .index = (uint64_t)i };
			assert_int_equal(tf_emit(ctx, tf_stacks_sink(s), &e), 0);
		}
		assert_int_equal(tf_stacks_sink(s)->end_input(tf_stacks_sink(s), 0), 0);
		assert_int_equal(tf_stacks_finish(s), 0);
		assert_int_equal(tf_py_replays() - before, replays);
		for (int i = 0; i < n; i++) {
			if (r.by[i].start != want[i][0] || r.by[i].end != want[i][1])
				fail_msg("--sort-mem %zu: frame %d: [%lld, %lld], want [%lld, %lld]", mem, i,
					 (long long)r.by[i].start, (long long)r.by[i].end, (long long)want[i][0],
					 (long long)want[i][1]);
		}
		const tf_diag *d = tf_ctx_diag(ctx);
		assert_int_equal(d->n[TF_DIAG_python_parent_clipped], clipped);
		assert_int_equal(d->ns[TF_DIAG_python_parent_clipped], moved_ns);
		tf_stacks_free(s);
		tf_agg_free(agg);
		tf_ctx_free(ctx);
	}
}

static void test_python_frames(void **state)
{
	(void)state;
	/* in order: clipped as they come; a new root, then a frame of it */
	const pyev a[] = { { 1, 0, 10, 90 }, { 2, 1, 5, 45 }, { 3, 2, 40, 20 }, { 4, 1, 60, 50 }, { 5, 0, 200, 10 },
			   { 6, 5, 199, 5 } };
	const int64_t wa[][2] = { { 10, 100 }, { 10, 50 }, { 40, 50 }, { 60, 100 }, { 200, 210 }, { 200, 204 } };
	py_case(a, 6, wa, 0, 4, 5 + 10 + 10 + 1);
	/* a child before its parent: clipped to the parent as it came */
	const pyev b[] = { { 1, 0, 10, 90 }, { 3, 2, 15, 80 }, { 2, 1, 20, 90 } };
	const int64_t wb[][2] = { { 10, 100 }, { 20, 95 }, { 20, 100 } };
	py_case(b, 3, wb, 1, 2, 5 + 10);
	/* an id again: the last frame with it is every child's parent */
	const pyev c[] = { { 1, 0, 10, 90 }, { 2, 1, 5, 45 }, { 1, 0, 20, 10 }, { 3, 1, 25, 10 } };
	const int64_t wc[][2] = { { 10, 100 }, { 20, 30 }, { 20, 30 }, { 25, 30 } };
	py_case(c, 4, wc, 1, 2, 15 + 20 + 5);
	/* a closed parent named again, a missing one, a frame naming itself */
	const pyev d[] = { { 1, 0, 10, 90 }, { 2, 1, 20, 10 }, { 3, 1, 40, 10 }, { 4, 2, 35, 10 }, { 5, 9, 60, 5 },
			   { 6, 6, 70, 5 } };
	const int64_t wd[][2] = { { 10, 100 }, { 20, 30 }, { 40, 50 }, { 35, 35 }, { 60, 65 }, { 70, 75 } };
	py_case(d, 6, wd, 1, 1, 15);
}

/* The stack builder's fast paths (issue 33), each on its miss cases: the
 * (parent, name) -> call path cache with a name under another parent and
 * more pairs than it holds; the sorter's inline X record beside a negative
 * duration, an X without dur, a full buffer and a new track; the kept
 * events handed over between spans only when one is due (at a span's
 * start, after it closed, after the last); a sorted track's B/E and a
 * streamed track's X straight to the sorter.  At --sort-mem 0 and 1. */
typedef struct fastrec {
	tf_span_sink spans;
	tf_cpath *cp;
	uint32_t open[2][8192]; /* per track: the open spans' nodes */
	uint32_t depth[2];
	uint64_t nclose, neg, unclosed;
	struct { tf_str name; int64_t start, end; } last; /* the last span closed */
	struct { int64_t ts; uint32_t node; } ev[8];
	int nev;
	char err[256];
} fastrec;

static int fast_open(tf_span_sink *k, const tf_span *s)
{
	fastrec *r = (fastrec *)k;
	if (s->track > 1 || r->depth[s->track] >= 8192)
		return TF_EUSAGE;
	uint32_t want = r->depth[s->track] ? r->open[s->track][r->depth[s->track] - 1] : TF_CPATH_ROOT;
	const tf_cpath_node *n = tf_cpath_get(r->cp, s->node);
	if (!r->err[0] && (n->parent != want || n->frame != s->name))
		snprintf(r->err, sizeof(r->err), "span at %lld: node %u (parent %u, frame %u), want parent %u frame %u",
			 (long long)s->start_ns, s->node, n->parent, n->frame, want, s->name);
	r->open[s->track][r->depth[s->track]++] = s->node;
	return 0;
}

static int fast_close(tf_span_sink *k, const tf_span *s)
{
	fastrec *r = (fastrec *)k;
	r->depth[s->track]--;
	r->nclose++;
	r->neg += (s->flags & TF_SPAN_NEG_DURATION) != 0;
	r->unclosed += (s->flags & TF_SPAN_UNCLOSED) != 0;
	r->last.name = s->name;
	r->last.start = s->start_ns;
	r->last.end = s->end_ns;
	return 0;
}

static int fast_event(tf_span_sink *k, const tf_event *ev, uint32_t node)
{
	fastrec *r = (fastrec *)k;
	if (r->nev < 8)
		r->ev[r->nev++].node = node, r->ev[r->nev - 1].ts = ev->ts_ns;
	return 0;
}

/* The node of path names[0..n) from the root, UINT32_MAX when absent. */
static uint32_t path_node(const tf_cpath *cp, const tf_str *names, int n)
{
	uint32_t at = TF_CPATH_ROOT;
	for (int d = 0; d < n; d++) {
		uint32_t found = UINT32_MAX;
		for (uint32_t i = 1; i < tf_cpath_count(cp) && found == UINT32_MAX; i++)
			if (tf_cpath_get(cp, i)->parent == at && tf_cpath_get(cp, i)->frame == names[d])
				found = i;
		if (found == UINT32_MAX)
			return UINT32_MAX;
		at = found;
	}
	return at;
}

static void test_fast_paths(void **state)
{
	(void)state;
	for (size_t mem = 0; mem < 2; mem++) {
		tf_ctx *ctx = tf_ctx_new();
		tf_ctx_opts(ctx)->sort_mem_bytes = mem;
		tf_strtab *st = tf_ctx_strtab(ctx);
		tf_agg *agg = tf_agg_new(st);
		fastrec *r = calloc(1, sizeof(*r));
		r->spans = (tf_span_sink){ .open = fast_open, .close = fast_close, .event = fast_event,
					   .event_kinds = 1u << TF_EV_INSTANT };
		r->cp = tf_agg_cpath(agg);
		tf_stacks *s = tf_stacks_new(ctx, r->cp, NULL);
		assert_int_equal(tf_stacks_add_consumer(s, &r->spans), 0);
		uint32_t tr = tf_ctx_track(ctx, 0, tf_strtab_intern_cstr(st, "1"), tf_strtab_intern_cstr(st, "1"));
		tf_ctx_track_get(ctx, tr)->needs_sort = true;
		tf_str a = tf_strtab_intern_cstr(st, "a"), b = tf_strtab_intern_cstr(st, "b"),
		       c = tf_strtab_intern_cstr(st, "c"), e = tf_strtab_intern_cstr(st, "e"),
		       x = tf_strtab_intern_cstr(st, "x"), u = tf_strtab_intern_cstr(st, "u"),
		       mark = tf_strtab_intern_cstr(st, "mark");
		struct { uint8_t kind; tf_str name; int64_t ts, dur; } evs[] = {
			{ TF_EV_COMPLETE, a, 0, 100 }, { TF_EV_INSTANT, mark, 5, 0 }, { TF_EV_COMPLETE, b, 10, 40 },
			{ TF_EV_INSTANT, mark, 10, 0 }, { TF_EV_COMPLETE, a, 20, 10 }, { TF_EV_INSTANT, mark, 60, 0 },
			{ TF_EV_COMPLETE, a, 200, 100 }, { TF_EV_COMPLETE, b, 210, 40 },
			{ TF_EV_COMPLETE, c, 400, 100 }, { TF_EV_COMPLETE, b, 410, 10 }, { TF_EV_COMPLETE, a, 412, 2 },
			{ TF_EV_COMPLETE, x, 450, -5 },              /* negative: made 0 */
			{ TF_EV_BEGIN, e, 600, 0 }, { TF_EV_END, e, 700, 0 }, /* B/E of a sorted track */
			{ TF_EV_INSTANT, mark, 800, 0 },
		};
		uint64_t idx = 0;
		for (size_t i = 0; i < sizeof(evs) / sizeof(evs[0]); i++) {
			tf_event ev = { .kind = evs[i].kind, .track = tr, .name = evs[i].name, .ts_ns = evs[i].ts,
					.dur_ns = evs[i].dur, .index = idx++ };
			assert_int_equal(tf_emit(ctx, tf_stacks_sink(s), &ev), 0);
		}
		/* more (parent, name) pairs than the cache holds: n_i, then x under it */
		for (int i = 0; i < 6000; i++) {
			char nm[16];
			snprintf(nm, sizeof(nm), "n%d", i);
			tf_event ev = { .kind = TF_EV_COMPLETE, .track = tr, .name = tf_strtab_intern_cstr(st, nm),
					.ts_ns = 1000 + 10 * i, .dur_ns = 5, .index = idx++ };
			assert_int_equal(tf_emit(ctx, tf_stacks_sink(s), &ev), 0);
			ev = (tf_event){ .kind = TF_EV_COMPLETE, .track = tr, .name = i % 2 ? x : a,
					 .ts_ns = 1000 + 10 * i + 1, .dur_ns = 2, .index = idx++ };
			assert_int_equal(tf_emit(ctx, tf_stacks_sink(s), &ev), 0);
		}
		tf_event ev = { .kind = TF_EV_COMPLETE, .track = tr, .name = u, .ts_ns = 70000, .dur_ns = TF_DUR_UNTIL_END,
				.index = idx++ };
		assert_int_equal(tf_emit(ctx, tf_stacks_sink(s), &ev), 0);
		ev = (tf_event){ .kind = TF_EV_COMPLETE, .track = tr, .name = a, .ts_ns = 70100, .dur_ns = 10,
				 .index = idx++ };
		assert_int_equal(tf_emit(ctx, tf_stacks_sink(s), &ev), 0);
		/* a streamed track, made after the first one's events: its X to the sorter */
		uint32_t t2 = tf_ctx_track(ctx, 0, tf_strtab_intern_cstr(st, "1"), tf_strtab_intern_cstr(st, "2"));
		assert_int_equal(t2, 1);
		ev = (tf_event){ .kind = TF_EV_BEGIN, .track = t2, .name = a, .ts_ns = 0, .index = idx++ };
		assert_int_equal(tf_emit(ctx, tf_stacks_sink(s), &ev), 0);
		ev = (tf_event){ .kind = TF_EV_COMPLETE, .track = t2, .name = b, .ts_ns = 5, .dur_ns = 3, .index = idx++ };
		assert_int_equal(tf_emit(ctx, tf_stacks_sink(s), &ev), 0);
		ev = (tf_event){ .kind = TF_EV_END, .track = t2, .name = a, .ts_ns = 20, .index = idx++ };
		assert_int_equal(tf_emit(ctx, tf_stacks_sink(s), &ev), 0);
		assert_int_equal(tf_stacks_sink(s)->end_input(tf_stacks_sink(s), 0), 0);
		assert_int_equal(tf_stacks_finish(s), 0);
		if (r->err[0])
			fail_msg("--sort-mem %zu: %s", mem, r->err);
		/* the streamed track's X, nested at its end under nothing: a alone closed first */
		assert_int_equal(r->last.name, b);
		assert_int_equal(r->last.start, 5);
		assert_int_equal(r->last.end, 8);
		assert_int_equal(r->nclose, 10 + 12000 + 2 + 2);
		assert_int_equal(r->neg, 1);
		assert_int_equal(tf_ctx_diag(ctx)->n[TF_DIAG_negative_duration], 1);
		assert_int_equal(r->unclosed, 1);
		/* kept events: under a; at b's start, under b (after it opened);
		 * after b closed, under a; after everything, at the root */
		const tf_str pa[] = { a }, pab[] = { a, b }, pe[] = { e };
		assert_int_equal(r->nev, 4);
		assert_int_equal(r->ev[0].ts, 5);
		assert_int_equal(r->ev[0].node, path_node(r->cp, pa, 1));
		assert_int_equal(r->ev[1].ts, 10);
		assert_int_equal(r->ev[1].node, path_node(r->cp, pab, 2));
		assert_int_equal(r->ev[2].ts, 60);
		assert_int_equal(r->ev[2].node, path_node(r->cp, pa, 1));
		assert_int_equal(r->ev[3].ts, 800);
		assert_int_equal(r->ev[3].node, TF_CPATH_ROOT);
		assert_int_not_equal(path_node(r->cp, pe, 1), UINT32_MAX);
		/* a under b, b under a, b under c, a under b under c: each its own node */
		const tf_str pabA[] = { a, b, a }, pcb[] = { c, b }, pcba[] = { c, b, a };
		assert_int_not_equal(path_node(r->cp, pabA, 3), UINT32_MAX);
		assert_int_not_equal(path_node(r->cp, pcb, 2), UINT32_MAX);
		assert_int_not_equal(path_node(r->cp, pcba, 3), UINT32_MAX);
		assert_int_not_equal(path_node(r->cp, pcb, 2), path_node(r->cp, pab, 2));
		tf_stacks_free(s);
		free(r);
		tf_agg_free(agg);
		tf_ctx_free(ctx);
	}
}

/* The sorter's runs sorted by its own merge sort (sorter.c sort_spans):
 * spans added out of order, with equal starts, equal starts and ends, X
 * events without dur (kept in memory) and negative durations, read back
 * with runs spilled every 700 spans in the same order as with everything
 * in memory (qsort). */
static void sorter_read(size_t mem, int64_t (*out)[3], uint32_t n)
{
	tf_ctx *ctx = tf_ctx_new();
	tf_ctx_opts(ctx)->sort_mem_bytes = mem;
	tf_sorter *so = tf_sorter_new(ctx);
	assert_non_null(so);
	for (uint32_t i = 0; i < n; i++) {
		int64_t dur = i % 97 == 0 ? TF_DUR_UNTIL_END : i % 89 == 0 ? -3 : (int64_t)((i * 31u) % 4);
		tf_event ev = { .kind = TF_EV_COMPLETE, .track = 0, .name = 1 + i % 5, .ts_ns = (i * 7919u) % 500,
				.dur_ns = dur, .index = i };
		assert_int_equal(tf_sorter_add(so, 0, &ev), 0);
	}
	tf_sorted c = { 0 };
	assert_int_equal(tf_sorter_open(so, 0, 1000, &c), 0);
	uint32_t k = 0;
	for (const tf_sorted_span *p; (p = tf_merge_peek(&c.spans)); k++) {
		assert_true(k < n);
		out[k][0] = p->start_ns;
		out[k][1] = p->end_ns;
		out[k][2] = p->seq;
		assert_int_equal(tf_merge_pop(&c.spans), 0);
	}
	assert_int_equal(k, n);
	tf_sorter_close(so, 0, &c);
	tf_sorter_free(so);
	tf_ctx_free(ctx);
}

static void test_sorter_order(void **state)
{
	(void)state;
	enum { N = 5000 };
	int64_t (*mem)[3] = calloc(N, sizeof(*mem)), (*spilled)[3] = calloc(N, sizeof(*spilled));
	sorter_read(0, mem, N);
	sorter_read(700 * sizeof(tf_sorted_span), spilled, N);
	for (uint32_t i = 0; i < N; i++) {
		if (memcmp(mem[i], spilled[i], sizeof(mem[i])))
			fail_msg("span %u: [%lld, %lld] seq %lld spilled, [%lld, %lld] seq %lld in memory", i,
				 (long long)spilled[i][0], (long long)spilled[i][1], (long long)spilled[i][2],
				 (long long)mem[i][0], (long long)mem[i][1], (long long)mem[i][2]);
		if (i && (mem[i - 1][0] > mem[i][0] ||
			  (mem[i - 1][0] == mem[i][0] && (mem[i - 1][1] < mem[i][1] ||
							  (mem[i - 1][1] == mem[i][1] && mem[i - 1][2] > mem[i][2])))))
			fail_msg("span %u out of order", i);
	}
	free(mem);
	free(spilled);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_streamed_repairs),
		cmocka_unit_test(test_python_frames),
		cmocka_unit_test(test_fast_paths),
		cmocka_unit_test(test_sorter_order),
		cmocka_unit_test(test_chrome_fixtures),
		cmocka_unit_test(test_tau_otf2_fixtures),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
