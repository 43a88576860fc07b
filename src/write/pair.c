/* pair.c - pairing the two ends of messages and flows, and the GPU
 * activities a flow ends on (pair.h). */
#include "pair.h"
#include "grow.h"
#include "tracefold/err.h"

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

void tf_pairs_free(tf_pairs *q)
{
	free_queue(&q->sends);
	free_queue(&q->recvs);
	free_queue(&q->starts);
	free_queue(&q->ends);
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
