/* pair.c - pairing the two ends of messages and flows, and the GPU
 * activities a flow ends on (pair.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "pair.h"
#include "grow.h"
#include "spill.h"
#include "tracefold/err.h"

/* 1: p is paired in memory; else 0 or an error (it went to the log). */
static int log_flow(tf_pairs *q, const tf_pend *p, uint64_t kin, uint64_t kout, int phase);

static uint64_t mix(uint64_t h, uint64_t v)
{
	return tf_mix64(h ^ (v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2)));
}

/* The first waiting entry of key (taken off its list), or NULL. */
static tf_pend *take(tf_pqueue *q, uint64_t key)
{
	uint32_t h = tf_hmap_get(&q->head, key);
	if (h == UINT32_MAX || h == 0)
		return NULL;
	tf_pend *p = &q->v[h - 1];
	tf_hmap_set(&q->head, key, p->next == UINT32_MAX ? 0 : p->next + 1);
	p->used = 1;
	q->nused++;
	return p;
}

/* v[i] to the end of the list of its key. */
static int enqueue(tf_pqueue *q, uint32_t i)
{
	const tf_pend *p = &q->v[i];
	uint32_t h = tf_hmap_get(&q->head, p->key);
	if (h == UINT32_MAX || h == 0) {
		if (tf_hmap_set(&q->head, p->key, i + 1) < 0)
			return TF_ENOMEM;
	} else {
		q->v[tf_hmap_get(&q->tail, p->key)].next = i;
	}
	return tf_hmap_set(&q->tail, p->key, i) < 0 ? TF_ENOMEM : 0;
}

/* The ends matched so far dropped, the waiting ones kept in their order
 * (and so their lists), the key maps made anew: a queue holds what waits,
 * not every end the trace had. */
static int compact(tf_pqueue *q)
{
	uint32_t k = 0;
	tf_hmap_free(&q->head);
	tf_hmap_free(&q->tail);
	for (uint32_t i = 0; i < q->n; i++) {
		if (q->v[i].used)
			continue;
		q->v[k] = q->v[i];
		q->v[k].next = UINT32_MAX;
		TF_TRY(enqueue(q, k));
		k++;
	}
	q->n = k;
	q->nused = 0;
	return 0;
}

static int wait(tf_pqueue *q, const tf_pend *p)
{
	if (q->nused >= 4096 && q->nused >= q->n / 2)
		TF_TRY(compact(q));
	if (tf_grow((void **)&q->v, &q->cap, q->n + 1, sizeof(tf_pend)) < 0)
		return TF_ENOMEM;
	uint32_t i = q->n++;
	q->v[i] = *p;
	q->v[i].next = UINT32_MAX;
	q->v[i].used = 0;
	return enqueue(q, i);
}

static int pair_message(tf_pairs *q, tf_pend *p, bool send, tf_pair_fn fn, void *u)
{
	p->key = mix(mix(mix(mix(1, (uint64_t)p->src), (uint64_t)p->dst), (uint64_t)p->tag), (uint64_t)p->comm);
	tf_pend *other = take(send ? &q->recvs : &q->sends, p->key);
	if (other)
		return send ? fn(u, p, other) : fn(u, other, p);
	return wait(send ? &q->sends : &q->recvs, p);
}

/* A flow event: an end (f) takes the waiting start of its id, a start
 * (s) the waiting end; a step (t) is both, an end of its id and the start
 * of its next_id (a step's parent_id: a segment id of its own), or of its
 * id again (Chrome's steps, which share the flow's id). */
static int pair_flow(tf_pairs *q, tf_pend *p, uint32_t input, int phase, uint64_t next_id, tf_pair_fn fn, void *u)
{
	uint64_t kin = mix(mix(2, input), p->id);
	uint64_t kout = next_id ? mix(mix(2, input), next_id) : kin;
	int logged = q->aside ? log_flow(q, p, kin, kout, phase) : 1;
	if (logged != 1)
		return logged;
	bool end_waits = false;
	if (phase == 'f' || phase == 't') {
		p->key = kin;
		tf_pend *s = take(&q->starts, kin);
		if (s)
			TF_TRY(fn(u, s, p));
		else
			end_waits = true;
	}
	if (phase == 's' || phase == 't') {
		p->key = kout;
		tf_pend *e = take(&q->ends, kout);
		if (e)
			TF_TRY(fn(u, p, e));
		else
			TF_TRY(wait(&q->starts, p));
	}
	if (!end_waits)
		return 0;
	p->key = kin;
	return wait(&q->ends, p);
}

int tf_pair_event(tf_pairs *q, const tf_event *ev, int64_t rank, uint32_t input, int64_t slice,
		  tf_pair_fn message_fn, tf_pair_fn flow_fn, void *u)
{
	tf_pend p = { 0 };
	p.ts = ev->ts_ns;
	p.track = ev->track;
	p.slice = slice;
	p.name = ev->name;
	p.cat = ev->cat;
	if (ev->kind == TF_EV_FLOW) {
		p.id = ev->id;
		return pair_flow(q, &p, input, ev->phase, ev->phase == 't' ? ev->parent_id : 0, flow_fn, u);
	}
	if (ev->kind != TF_EV_SEND && ev->kind != TF_EV_RECV)
		return 0;
	bool send = ev->kind == TF_EV_SEND;
	p.src = send ? rank : ev->msg.peer;
	p.dst = send ? ev->msg.peer : rank;
	p.tag = ev->msg.tag;
	p.comm = ev->msg.comm;
	p.bytes = ev->msg.bytes;
	return pair_message(q, &p, send, message_fn, u);
}

static void free_queue(tf_pqueue *q)
{
	free(q->v);
	tf_hmap_free(&q->head);
	tf_hmap_free(&q->tail);
}

static void log_free(tf_flow_log *g);

void tf_pairs_free(tf_pairs *q)
{
	free_queue(&q->sends);
	free_queue(&q->recvs);
	free_queue(&q->starts);
	free_queue(&q->ends);
	log_free(q->aside);
	q->aside = NULL;
}

int tf_gpu_recent_add(tf_gpu_recent *r, int64_t start, int64_t end, uint64_t corr, int64_t slice)
{
	uint32_t k = 0;
	for (uint32_t i = 0; i < r->n; i++) /* later events are at start or after */
		if (r->v[i].end >= start)
			r->v[k++] = r->v[i];
	r->n = k;
	if (tf_grow((void **)&r->v, &r->cap, r->n + 1, sizeof(*r->v)) < 0)
		return TF_ENOMEM;
	r->v[r->n++] = (struct tf_gpu_act){ start, end, slice, corr };
	return 0;
}

int64_t tf_gpu_recent_find(const tf_gpu_recent *r, int64_t ts, uint64_t id)
{
	int64_t any = -1;
	for (uint32_t i = 0; i < r->n; i++) {
		const struct tf_gpu_act *a = &r->v[i];
		if (a->start > ts || a->end < ts)
			continue;
		if (id && a->corr == id)
			return a->slice;
		any = a->slice;
	}
	return any;
}

void tf_gpu_recent_free(tf_gpu_recent *r)
{
	free(r->v);
	r->v = NULL;
	r->n = r->cap = 0;
}

/* ---- flows set aside (tf_pairs_aside) ----
 *
 * Pairing is per key (an input and an id): an end takes the first waiting
 * start of its key, a start the first waiting end, and nothing else moves
 * a key's queues.  So the log, sorted by key and then by the order the
 * events came, pairs each key's events as the queues would have, one key
 * after another, in memory for one key only; each pair is then written
 * where its second end came (its place in the order of events), so a
 * second sort by that place gives flow_fn the order of the memory path. */

enum { R_START, R_END, R_BOTH, R_WSTART, R_WEND }; /* R_BOTH: a step (t) of one key; W: waiting when set aside */

typedef struct flog { /* one flow event's end or start: 64 bytes, no padding */
	uint64_t key;
	uint64_t seq; /* the event's number << 1 | 1 for a step's start of another key */
	int64_t ts, track, slice;
	uint64_t id;
	uint32_t name, cat;
	uint32_t role, pad;
} flog;

typedef struct frow { /* a flows row to hand over: 72 bytes, no padding */
	uint64_t ord; /* class << 62 | seq: 0 paired (seq: where), 1 a start alone, 2 an end alone */
	uint64_t id;
	int64_t sts, strack, sslice, ets, etrack, eslice;
	uint32_t name, cat;
} frow;

struct tf_flow_log {
	size_t budget;
	const char *dir;
	bool on;                /* the flows go to the log */
	uint64_t nev;           /* events numbered */
	flog *v;                /* in memory, before a run */
	uint32_t n, cap;
	frow *rows;             /* tf_pairs_flush_flows' rows, before a run */
	uint32_t nrows, caprows;
	tf_spill *file;
	int state;              /* tf_spill_lazy's */
	int no_file_errno;
	tf_runs runs, row_runs;
};

static int flog_cmp(const void *pa, const void *pb)
{
	const flog *a = pa, *b = pb;
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static int frow_cmp(const void *pa, const void *pb)
{
	const frow *a = pa, *b = pb;
	return a->ord < b->ord ? -1 : a->ord > b->ord;
}

int tf_pairs_aside(tf_pairs *q, size_t budget, const char *dir)
{
	if (!budget)
		return 0;
	if (!(q->aside = calloc(1, sizeof(*q->aside))))
		return TF_ENOMEM;
	q->aside->budget = budget;
	q->aside->dir = dir;
	return 0;
}

const tf_error *tf_pairs_error(const tf_pairs *q)
{
	return q->aside ? tf_spill_error(q->aside->file) : NULL;
}

bool tf_pairs_no_file(const tf_pairs *q)
{
	if (q->aside && q->aside->state < 0)
		errno = q->aside->no_file_errno;
	return q->aside && q->aside->state < 0;
}

static void log_free(tf_flow_log *g)
{
	if (!g)
		return;
	free(g->v);
	free(g->rows);
	tf_runs_free(&g->runs);
	tf_runs_free(&g->row_runs);
	tf_spill_free(g->file);
	free(g);
}

/* n records at *v past the budget go to the file as a sorted run of rs
 * (none can be made: they stay). */
static int spill_run(tf_flow_log *g, void *v, uint32_t *n, size_t sz, tf_runs *rs, tf_cmp_fn cmp)
{
	if ((size_t)*n * sz < g->budget || g->state < 0)
		return 0;
	if (tf_spill_lazy(&g->file, &g->state, g->dir) < 0) {
		g->no_file_errno = errno;
		return 0;
	}
	qsort(v, *n, sz, cmp);
	TF_TRY(tf_spill_write(g->file, rs, v, *n, sz, cmp));
	*n = 0;
	return 0;
}

static int log_put(tf_flow_log *g, uint64_t key, uint64_t seq, const tf_pend *p, uint32_t role)
{
	if (tf_grow((void **)&g->v, &g->cap, g->n + 1, sizeof(flog)) < 0)
		return TF_ENOMEM;
	g->v[g->n++] = (flog){ key, seq, p->ts, p->track, p->slice, p->id, p->name, p->cat, role, 0 };
	return spill_run(g, g->v, &g->n, sizeof(flog), &g->runs, flog_cmp);
}

/* The waiting flow ends, in their queues' order, into the log (numbered
 * before every event to come); the queues emptied. */
static int log_on(tf_pairs *q)
{
	tf_flow_log *g = q->aside;
	tf_pqueue *qs[2] = { &q->starts, &q->ends };
	g->on = true;
	for (int k = 0; k < 2; k++) {
		for (uint32_t i = 0; i < qs[k]->n; i++)
			if (!qs[k]->v[i].used)
				TF_TRY(log_put(g, qs[k]->v[i].key, g->nev++ << 1, &qs[k]->v[i], k ? R_WEND : R_WSTART));
		free_queue(qs[k]);
		memset(qs[k], 0, sizeof(*qs[k]));
	}
	return 0;
}

static int log_flow(tf_pairs *q, const tf_pend *p, uint64_t kin, uint64_t kout, int phase)
{
	tf_flow_log *g = q->aside;
	if (!g->on) {
		size_t waiting = (size_t)(q->starts.n - q->starts.nused) + (q->ends.n - q->ends.nused);
		if (waiting * (sizeof(tf_pend) + 32) < g->budget)
			return 1;
		TF_TRY(log_on(q));
	}
	if (phase != 'f' && phase != 's' && phase != 't')
		return 0;
	uint64_t e = g->nev++ << 1;
	if (phase == 'f')
		return log_put(g, kin, e, p, R_END);
	if (phase == 's')
		return log_put(g, kout, e, p, R_START);
	if (kin == kout)
		return log_put(g, kin, e, p, R_BOTH);
	TF_TRY(log_put(g, kin, e, p, R_END));
	return log_put(g, kout, e | 1, p, R_START);
}

/* A key's waiting starts or ends, first at head. */
typedef struct fifo {
	flog *v;
	uint32_t head, n, cap;
} fifo;

static int fifo_push(fifo *f, const flog *r)
{
	if (tf_grow((void **)&f->v, &f->cap, f->n + 1, sizeof(flog)) < 0)
		return TF_ENOMEM;
	f->v[f->n++] = *r;
	return 0;
}

static int row_put(tf_flow_log *g, uint64_t ord, const flog *s, const flog *e)
{
	if (tf_grow((void **)&g->rows, &g->caprows, g->nrows + 1, sizeof(frow)) < 0)
		return TF_ENOMEM;
	const flog *any = s ? s : e;
	g->rows[g->nrows++] = (frow){ ord, any->id, s ? s->ts : 0, s ? s->track : 0, s ? s->slice : 0,
				      e ? e->ts : 0, e ? e->track : 0, e ? e->slice : 0, any->name, any->cat };
	return spill_run(g, g->rows, &g->nrows, sizeof(frow), &g->row_runs, frow_cmp);
}

/* One event of the current key, as pair_flow would take it. */
static int pair_logged(tf_flow_log *g, fifo *st, fifo *en, const flog *r)
{
	if (r->role == R_WSTART || r->role == R_WEND)
		return fifo_push(r->role == R_WSTART ? st : en, r);
	bool end_waits = false;
	if (r->role != R_START) { /* an end (f), or a step's */
		if (st->head < st->n)
			TF_TRY(row_put(g, r->seq, &st->v[st->head++], r));
		else
			end_waits = true;
	}
	if (r->role != R_END) { /* a start (s), or a step's: after its end's pair, before its end waits */
		if (en->head < en->n)
			TF_TRY(row_put(g, r->seq | (r->role == R_BOTH), r, &en->v[en->head++]));
		else
			TF_TRY(fifo_push(st, r));
	}
	return end_waits ? fifo_push(en, r) : 0;
}

/* The key's ends never paired, as rows of their class; the queues emptied. */
static int key_done(tf_flow_log *g, fifo *st, fifo *en)
{
	for (uint32_t i = st->head; i < st->n; i++)
		TF_TRY(row_put(g, 1ull << 62 | st->v[i].seq, &st->v[i], NULL));
	for (uint32_t i = en->head; i < en->n; i++)
		TF_TRY(row_put(g, 2ull << 62 | en->v[i].seq, NULL, &en->v[i]));
	st->head = st->n = en->head = en->n = 0;
	return 0;
}

/* The log read back by key: its rows. */
static int pair_log(tf_flow_log *g)
{
	tf_merge m;
	fifo st = { 0 }, en = { 0 };
	qsort(g->v, g->n, sizeof(flog), flog_cmp);
	int rc = tf_merge_init(&m, g->file, &g->runs, g->v, g->n, sizeof(flog), flog_cmp);
	uint64_t key = 0;
	bool any = false;
	for (const flog *r; rc == 0 && (r = tf_merge_peek(&m));) {
		if (any && r->key != key)
			rc = key_done(g, &st, &en);
		key = r->key;
		any = true;
		if (rc == 0)
			rc = pair_logged(g, &st, &en, r);
		if (rc == 0)
			rc = tf_merge_pop(&m);
	}
	if (rc == 0)
		rc = key_done(g, &st, &en);
	tf_merge_free(&m);
	free(st.v);
	free(en.v);
	free(g->v);
	g->v = NULL;
	g->n = g->cap = 0;
	tf_runs_free(&g->runs);
	return rc;
}

int tf_pairs_flush_flows(tf_pairs *q, tf_pair_fn flow_fn, void *u)
{
	tf_flow_log *g = q->aside;
	if (!g || !g->on)
		return 0;
	TF_TRY(pair_log(g));
	tf_merge m;
	qsort(g->rows, g->nrows, sizeof(frow), frow_cmp);
	int rc = tf_merge_init(&m, g->file, &g->row_runs, g->rows, g->nrows, sizeof(frow), frow_cmp);
	for (const frow *r; rc == 0 && (r = tf_merge_peek(&m));) {
		unsigned cls = (unsigned)(r->ord >> 62);
		tf_pend s = { 0 }, e = { 0 };
		s.ts = r->sts, s.track = r->strack, s.slice = r->sslice;
		e.ts = r->ets, e.track = r->etrack, e.slice = r->eslice;
		s.id = e.id = r->id;
		s.name = e.name = r->name;
		s.cat = e.cat = r->cat;
		rc = flow_fn(u, cls == 2 ? NULL : &s, cls == 1 ? NULL : &e);
		if (rc == 0)
			rc = tf_merge_pop(&m);
	}
	tf_merge_free(&m);
	g->on = false;
	g->nrows = 0;
	return rc;
}
