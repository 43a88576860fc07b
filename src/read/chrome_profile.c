/* chrome_profile.c - the V8 CPU profile inside a Chrome trace (chrome_int.h,
 * docs/format-chrome-cpuprofile.md): `Profile` events (ph P: the profiled
 * thread, args.data.startTime) and `ProfileChunk` events (ph P, same pid and
 * id: args.data.cpuProfile.nodes and .samples, args.data.timeDeltas) become
 * TF_EV_SAMPLE events on the Profile's (pid, tid) track.
 *
 * Chunks may come before their Profile and nodes after the samples that
 * name them, so a profile's nodes and samples are kept (24 bytes a sample)
 * and emitted at the end of the input, sorted by time as DevTools sorts them;
 * each sample is weighed by the time to the next one of its profile. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "chrome_int.h"

#define US_TO_NS 3
#define NO_PARENT INT64_MIN

typedef struct pnode {
	int64_t id, parent;
	tf_str frame;
	uint32_t stack;     /* our stack id once resolved */
	uint8_t state;      /* 0 not yet, 1 being resolved, 2 done */
	uint8_t root;       /* "(root)" without a parent: no frame of its own */
} pnode;

typedef struct psample {
	int64_t rel_ns;     /* since startTime */
	int64_t node;
	uint64_t seq;
} psample;

typedef struct pchild {
	int64_t child, parent;
} pchild;

typedef struct prof {
	bool has_start;
	int64_t start_ns;
	uint32_t track;
	uint64_t index;     /* the Profile event's index (for notes) */
	int64_t cum_ns;     /* the sum of the time deltas read so far */
	pnode *nodes;
	size_t nnodes, capnodes;
	tf_hmap node_idx;   /* node id -> index in nodes */
	psample *s;
	size_t ns, caps;
	pchild *kids;
	size_t nkids, capkids;
} prof;

struct tf_chrome_prof {
	prof *p;
	size_t np, capp;
	tf_hmap idx;        /* pid key << 32 | id key -> index in p */
	tf_str cpu, nanoseconds, root, anon;
	uint64_t seq;
	uint32_t *chain;    /* node_stack's walk */
	size_t capchain;
};

void tf_chrome_prof_free(tf_chrome_prof *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->np; i++) {
		free(c->p[i].nodes);
		tf_hmap_free(&c->p[i].node_idx);
		free(c->p[i].s);
		free(c->p[i].kids);
	}
	free(c->p);
	free(c->chain);
	tf_hmap_free(&c->idx);
	free(c);
}

/* The next element of an array span; it was checked as JSON when read. */
static bool arr_next(const u8 **p, const u8 *end, tf_json_span *v)
{
	tf_json_error e;
	const u8 *q = tf_json_skip_ws(*p, end);
	if (q < end && (*q == '[' || *q == ','))
		q = tf_json_skip_ws(q + 1, end);
	if (q >= end || *q == ']')
		return false;
	if (tf_json_value(q, end, v, &q, &e) != TF_JSON_OK)
		return false;
	*p = q;
	return true;
}

static void arr_begin(const tf_json_span *a, const u8 **p, const u8 **end)
{
	if (a->type != TF_JSON_ARRAY) { /* absent: no pointer to offset */
		*p = *end = NULL;
		return;
	}
	*p = a->p;
	*end = a->p + a->n;
}

static int prof_get(tf_chrome *r, const tf_chrome_fields *f, prof **out)
{
	if (!r->prof) {
		tf_chrome_prof *c = calloc(1, sizeof(*c));
		if (!c)
			return TF_ENOMEM;
		r->prof = c;
		c->cpu = tf_strtab_intern_cstr(r->st, "cpu");
		c->nanoseconds = tf_strtab_intern_cstr(r->st, "nanoseconds");
		c->root = tf_strtab_intern_cstr(r->st, "(root)");
		c->anon = tf_strtab_intern_cstr(r->st, "(anonymous)");
		if (c->cpu == (tf_str)-1 || c->nanoseconds == (tf_str)-1 || c->root == (tf_str)-1 ||
		    c->anon == (tf_str)-1)
			return TF_ENOMEM;
	}
	tf_chrome_prof *c = r->prof;
	tf_str pk, ik;
	TF_TRY(tf_chrome_intern(r, &f->pid, 2, &pk));
	TF_TRY(tf_chrome_intern(r, &f->id, 3, &ik));
	uint64_t key = (uint64_t)pk << 32 | ik;
	uint32_t i = tf_hmap_get(&c->idx, key);
	if (i == UINT32_MAX) {
		if (tf_grow_n((void **)&c->p, &c->capp, c->np + 1, sizeof(prof), false) < 0 ||
		    tf_hmap_put(&c->idx, key, (uint32_t)c->np) < 0)
			return TF_ENOMEM;
		i = (uint32_t)c->np++;
		memset(&c->p[i], 0, sizeof(prof));
	}
	*out = &c->p[i];
	return 0;
}

/* A Profile event, or a chunk with nodes only: passed on as metadata (as M
 * events are: no track, no place in time) so that every event is counted
 * once by its kind. */
static int emit_meta(tf_chrome *r, const tf_chrome_fields *f, uint64_t idx)
{
	tf_event ev;
	memset(&ev, 0, sizeof(ev));
	ev.kind = TF_EV_METADATA;
	ev.phase = 'P';
	ev.track = TF_TRACK_NONE;
	ev.index = idx;
	ev.msg.peer = ev.msg.comm = -1;
	TF_TRY(tf_chrome_intern(r, &f->name, 0, &ev.name));
	TF_TRY(tf_chrome_intern(r, &f->cat, 1, &ev.cat));
	int rc = tf_emit(r->ctx, r->sink, &ev);
	if (rc == TF_ESTOP)
		r->stopped = true;
	return rc;
}

/* `Profile`: the thread profiled (this event's pid and tid, as DevTools
 * takes it: the chunks come from V8's profiler thread) and the start. */
static int on_profile(tf_chrome *r, const tf_chrome_fields *f, prof *p, uint64_t idx)
{
	tf_json_span data = tf_json_member(&f->args, "data"), st = tf_json_member(&data, "startTime");
	int64_t ns;
	if (p->has_start || !tf_json_scaled(&st, US_TO_NS, &ns)) {
		tf_count_skip(r->ctx, TF_DIAG_bad_event);
		tf_ctx_note(r->ctx, "%s: Profile event %llu %s: ignored", r->path, (unsigned long long)idx,
			    p->has_start ? "repeats its profile id" : "has no args.data.startTime");
		return 0;
	}
	TF_TRY(tf_chrome_track_for(r, &f->pid, &f->tid, &p->track));
	p->has_start = true;
	p->start_ns = ns;
	p->index = idx;
	return emit_meta(r, f, idx);
}

/* The frame of a node's callFrame: "functionName url:line" (line 1-based;
 * "(anonymous)" for an empty name; the name alone without a url). */
static int node_frame(tf_chrome *r, const tf_json_span *cf, tf_str *out)
{
	tf_json_span fn = tf_json_member(cf, "functionName"), url = tf_json_member(cf, "url");
	tf_json_span ln = tf_json_member(cf, "lineNumber");
	const char *ft, *ut;
	size_t fnn, un;
	int64_t line = -1;
	TF_TRY(tf_chrome_text(r, &fn, 0, &ft, &fnn));
	TF_TRY(tf_chrome_text(r, &url, 1, &ut, &un));
	if (fnn == 0) {
		ft = "(anonymous)";
		fnn = 11;
	}
	if (ln.type == TF_JSON_NUMBER && !tf_json_i64(&ln, &line))
		line = -1;
	if (tf_grow_n((void **)&r->tmp, &r->tmp_cap, fnn + un + 32, 1, false) < 0)
		return TF_ENOMEM;
	memcpy(r->tmp, ft, fnn);
	size_t n = fnn;
	if (un) {
		r->tmp[n++] = ' ';
		memcpy(r->tmp + n, ut, un);
		n += un;
		if (line >= 0 && line < INT64_MAX)
			n += (size_t)snprintf(r->tmp + n, 24, ":%lld", (long long)line + 1);
	}
	*out = tf_strtab_intern(r->st, r->tmp, n);
	return *out == (tf_str)-1 ? TF_ENOMEM : 0;
}

static int on_node(tf_chrome *r, prof *p, const tf_json_span *node)
{
	tf_json_span id = tf_json_member(node, "id"), par = tf_json_member(node, "parent");
	tf_json_span cf = tf_json_member(node, "callFrame");
	tf_json_span kids = tf_json_member(node, "children");
	pnode nd = { .parent = NO_PARENT };
	if (!tf_json_i64(&id, &nd.id) || tf_hmap_get(&p->node_idx, (uint64_t)nd.id) != UINT32_MAX)
		return 1;
	if (par.type && !tf_json_i64(&par, &nd.parent))
		nd.parent = NO_PARENT;
	TF_TRY(node_frame(r, &cf, &nd.frame));
	nd.root = nd.frame == r->prof->root && !par.type;
	if (tf_grow_n((void **)&p->nodes, &p->capnodes, p->nnodes + 1, sizeof(pnode), false) < 0 ||
	    tf_hmap_put(&p->node_idx, (uint64_t)nd.id, (uint32_t)p->nnodes) < 0)
		return TF_ENOMEM;
	p->nodes[p->nnodes++] = nd;
	const u8 *q, *e;
	tf_json_span v;
	int64_t k;
	for (arr_begin(&kids, &q, &e); arr_next(&q, e, &v);) {
		if (!tf_json_i64(&v, &k))
			continue;
		if (tf_grow_n((void **)&p->kids, &p->capkids, p->nkids + 1, sizeof(pchild), false) < 0)
			return TF_ENOMEM;
		p->kids[p->nkids++] = (pchild){ k, nd.id };
	}
	return 0;
}

/* `ProfileChunk`: its nodes, and its samples with their times. */
static int on_chunk(tf_chrome *r, const tf_chrome_fields *f, prof *p, uint64_t idx)
{
	tf_json_span data = tf_json_member(&f->args, "data"), cp = tf_json_member(&data, "cpuProfile");
	tf_json_span nodes = tf_json_member(&cp, "nodes"), samples = tf_json_member(&cp, "samples");
	tf_json_span deltas = tf_json_member(&data, "timeDeltas"), v, d;
	const u8 *q, *e, *dq, *de;
	size_t bad = 0, n = 0;
	int rc;
	for (arr_begin(&nodes, &q, &e); arr_next(&q, e, &v);)
		if ((rc = on_node(r, p, &v)) < 0)
			return rc;
		else
			bad += (size_t)rc;
	arr_begin(&deltas, &dq, &de);
	for (arr_begin(&samples, &q, &e); arr_next(&q, e, &v); n++) {
		int64_t node, dns;
		if (!arr_next(&dq, de, &d) || !tf_json_scaled(&d, US_TO_NS, &dns) || !tf_json_i64(&v, &node) ||
		    __builtin_add_overflow(p->cum_ns, dns, &p->cum_ns)) {
			bad++;
			continue;
		}
		if (tf_grow_n((void **)&p->s, &p->caps, p->ns + 1, sizeof(psample), false) < 0)
			return TF_ENOMEM;
		p->s[p->ns++] = (psample){ p->cum_ns, node, r->prof->seq++ };
	}
	if (bad) {
		tf_count_skip(r->ctx, TF_DIAG_bad_event);
		tf_ctx_note(r->ctx, "%s: ProfileChunk event %llu: %zu nodes or samples without an id, "
			    "a repeated node id, or a sample without a time delta: skipped",
			    r->path, (unsigned long long)idx, bad);
	} else if (n == 0) {
		return emit_meta(r, f, idx); /* nodes only: read, counted once */
	}
	return 0;
}

int tf_chrome_profile_event(tf_chrome *r, const tf_chrome_fields *f, uint64_t idx)
{
	bool prof_ev = tf_json_is(&f->name, "Profile"), chunk = tf_json_is(&f->name, "ProfileChunk");
	if (!prof_ev && !chunk) {
		tf_count_skip(r->ctx, TF_DIAG_ev_other);
		return 0;
	}
	prof *p;
	TF_TRY(prof_get(r, f, &p));
	return prof_ev ? on_profile(r, f, p, idx) : on_chunk(r, f, p, idx);
}

/* The stack of node i, its ancestors first (a missing parent or a cycle
 * ends the walk: that node is a top frame).  (uint32_t)-1 on OOM. */
static uint32_t node_stack(tf_chrome *r, prof *p, uint32_t i)
{
	tf_chrome_prof *c = r->prof;
	size_t n = 0;
	uint32_t parent_stack = TF_CPATH_ROOT;
	for (uint32_t j = i; p->nodes[j].state != 2;) { /* up to a resolved node or a top */
		if (tf_grow_n((void **)&c->chain, &c->capchain, n + 1, sizeof(uint32_t), false) < 0)
			return (uint32_t)-1;
		c->chain[n++] = j;
		p->nodes[j].state = 1;
		int64_t par = p->nodes[j].parent;
		uint32_t up = par == NO_PARENT ? UINT32_MAX : tf_hmap_get(&p->node_idx, (uint64_t)par);
		if (up == UINT32_MAX || p->nodes[up].state == 1)
			break;
		if (p->nodes[up].state == 2)
			parent_stack = p->nodes[up].stack;
		j = up;
	}
	while (n > 0) { /* down again, parents first */
		pnode *nd = &p->nodes[c->chain[--n]];
		nd->stack = nd->root && parent_stack == TF_CPATH_ROOT ? TF_CPATH_ROOT
			  : tf_ctx_stack_child(r->ctx, parent_stack, nd->frame);
		nd->state = 2;
		if (nd->stack == (uint32_t)-1)
			return (uint32_t)-1;
		parent_stack = nd->stack;
	}
	return p->nodes[i].stack;
}

static int cmp_sample(const void *a, const void *b)
{
	const psample *x = a, *y = b;
	if (x->rel_ns != y->rel_ns)
		return x->rel_ns < y->rel_ns ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int emit_profile(tf_chrome *r, prof *p)
{
	tf_chrome_prof *c = r->prof;
	for (size_t k = 0; k < p->nkids; k++) { /* older profiles: children lists */
		uint32_t j = tf_hmap_get(&p->node_idx, (uint64_t)p->kids[k].child);
		if (j != UINT32_MAX && p->nodes[j].parent == NO_PARENT) {
			p->nodes[j].parent = p->kids[k].parent;
			p->nodes[j].root = 0;
		}
	}
	if (p->ns > 1)
		qsort(p->s, p->ns, sizeof(psample), cmp_sample);
	size_t lost = 0;
	tf_event ev;
	memset(&ev, 0, sizeof(ev));
	ev.kind = TF_EV_SAMPLE;
	ev.phase = 'P';
	ev.track = p->track;
	ev.name = c->cpu;
	ev.cat = c->nanoseconds;
	ev.dur_ns = 1;
	ev.index = p->index;
	ev.msg.peer = ev.msg.comm = -1;
	for (size_t k = 0; k < p->ns; k++) {
		uint32_t j = tf_hmap_get(&p->node_idx, (uint64_t)p->s[k].node);
		if (j == UINT32_MAX) {
			lost++;
			continue;
		}
		uint32_t st = node_stack(r, p, j);
		if (st == TF_CPATH_ROOT) /* a sample of "(root)" itself */
			st = tf_ctx_stack_child(r->ctx, TF_CPATH_ROOT, c->root);
		if (st == (uint32_t)-1)
			return TF_ENOMEM;
		if (__builtin_add_overflow(p->start_ns, p->s[k].rel_ns, &ev.ts_ns)) {
			lost++;
			continue;
		}
		ev.id = st;
		int64_t gap = 0; /* to the next sample; the last: 0 (beyond int64: the double's) */
		if (k + 1 < p->ns && __builtin_sub_overflow(p->s[k + 1].rel_ns, p->s[k].rel_ns, &gap))
			gap = INT64_MAX;
		ev.value = (double)gap;
		int rc = tf_emit(r->ctx, r->sink, &ev);
		if (rc == TF_ESTOP)
			r->stopped = true;
		if (rc)
			return rc;
	}
	if (lost) {
		for (size_t k = 0; k < lost; k++)
			tf_count_skip(r->ctx, TF_DIAG_bad_event);
		tf_ctx_note(r->ctx, "%s: CPU profile of Profile event %llu: %zu samples of a node its "
			    "ProfileChunks do not define: skipped", r->path, (unsigned long long)p->index, lost);
	}
	return 0;
}

int tf_chrome_profile_finish(tf_chrome *r)
{
	tf_chrome_prof *c = r->prof;
	if (!c)
		return 0;
	for (size_t i = 0; i < c->np; i++) {
		prof *p = &c->p[i];
		if (!p->has_start) {
			for (size_t k = 0; k < p->ns; k++)
				tf_count_skip(r->ctx, TF_DIAG_bad_event);
			if (p->ns)
				tf_ctx_note(r->ctx, "%s: %zu CPU profile samples of ProfileChunks without "
					    "their Profile event (no thread, no start time): skipped", r->path, p->ns);
			continue;
		}
		TF_TRY(emit_profile(r, p));
	}
	return 0;
}
