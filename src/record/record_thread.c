/* record_thread.c - a thread's side of a recording (docs/record.md): its
 * state, found through a thread-local cache; its packet sequence (first
 * packets: incremental state cleared, its track and clock 64 as defaults,
 * clock 64 = CLOCK_MONOTONIC at the start, counting ns since the previous
 * packet); its interned event names; the events encoded into its buffer
 * with no lock; the buffer handed to the writer when full (record.c).
 *
 * Recordings closed while threads still hold their state in thread-local
 * storage: each recording has a generation, live ones are in a registry
 * (a mutex, slow paths only); a thread's cache entry of a dead generation
 * is never used, and is freed when the thread next misses or exits. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "record_int.h"
#include "record_enc.h"

__thread struct tfr_tls *tfr_tls_last;
static __thread struct tfr_tls *tls_head;

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_key_t g_key;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static struct live_rec {
	uint64_t gen;
	tfr *r;
} *g_live; /* open recordings */
static size_t g_nlive, g_caplive;
static uint64_t g_gen;

static bool live(uint64_t gen)
{
	for (size_t i = 0; i < g_nlive; i++)
		if (g_live[i].gen == gen)
			return true;
	return false;
}

/* fork: the child has no writer thread; its inherited recordings become
 * no-ops (gen 0 matches no cache entry; the slow path refuses them), and
 * tfr_close on one only lets go of its memory and descriptor.  The
 * registry's mutex and every live recording's are taken around fork (in
 * that order, as a thread's exit takes them), so that the child's are
 * free and its copies of the queues and lists whole (a mutex held by the
 * writer at the fork hung tfr_get_stats in the child). */
static void before_fork(void)
{
	pthread_mutex_lock(&g_mu);
	for (size_t i = 0; i < g_nlive; i++)
		pthread_mutex_lock(&g_live[i].r->mu);
}

static void after_fork_parent(void)
{
	for (size_t i = g_nlive; i-- > 0;)
		pthread_mutex_unlock(&g_live[i].r->mu);
	pthread_mutex_unlock(&g_mu);
}

static void after_fork_child(void)
{
	for (size_t i = g_nlive; i-- > 0;) {
		g_live[i].r->forked = true;
		g_live[i].r->gen = 0;
		pthread_mutex_unlock(&g_live[i].r->mu);
	}
	g_nlive = 0;
	tfr_tls_last = NULL;
	pthread_mutex_unlock(&g_mu);
}

/* a thread's exit: its state in every live recording retired */
static void on_exit_thread(void *unused)
{
	pthread_mutex_lock(&g_mu);
	for (struct tfr_tls *e = tls_head, *n; e; e = n) {
		n = e->next;
		if (live(e->gen)) {
			pthread_mutex_lock(&e->r->mu);
			tfr_thread_retire(e->t);
			pthread_mutex_unlock(&e->r->mu);
		}
		free(e);
	}
	pthread_mutex_unlock(&g_mu);
	tls_head = tfr_tls_last = NULL;
}

static void make_key(void)
{
	pthread_key_create(&g_key, on_exit_thread);
	pthread_atfork(before_fork, after_fork_parent, after_fork_child);
}

int tfr_registry_add(tfr *r)
{
	pthread_once(&g_once, make_key);
	pthread_mutex_lock(&g_mu);
	int rc = 0;
	if (g_nlive == g_caplive) {
		size_t cap = g_caplive ? g_caplive * 2 : 8;
		struct live_rec *n = realloc(g_live, cap * sizeof(*n));
		if (!n)
			rc = -ENOMEM;
		else
			g_live = n, g_caplive = cap;
	}
	if (!rc) {
		r->gen = ++g_gen;
		g_live[g_nlive++] = (struct live_rec){ r->gen, r };
	}
	pthread_mutex_unlock(&g_mu);
	return rc;
}

void tfr_tls_forget(tfr *r)
{
	pthread_mutex_lock(&g_mu);
	for (size_t i = 0; i < g_nlive; i++)
		if (g_live[i].gen == r->gen && g_live[i].r == r) {
			g_live[i] = g_live[--g_nlive];
			break;
		}
	pthread_mutex_unlock(&g_mu);
}

/* ---- a thread's state ---- */

static tfr_thread *thread_new(tfr *r)
{
	tfr_thread *t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->r = r;
	t->tid = (int32_t)syscall(SYS_gettid);
	t->uuid = tfr_draw(r);
	char name[64] = "";
	pthread_getname_np(pthread_self(), name, sizeof(name));
	pthread_mutex_lock(&r->mu);
	t->seq = r->seq_next++;
	t->next = r->threads;
	r->threads = t;
	r->nthreads++;
	tfr_thread_descriptor(r, t, name);
	pthread_mutex_unlock(&r->mu);
	return t;
}

tfr_thread *tfr_thread_slow(tfr *r)
{
	if (!r || r->forked)
		return NULL;
	pthread_once(&g_once, make_key);
	/* this thread's entries: r's, and those of closed recordings freed */
	pthread_mutex_lock(&g_mu);
	struct tfr_tls **pp = &tls_head, *hit = NULL;
	while (*pp) {
		struct tfr_tls *e = *pp;
		if (!live(e->gen)) {
			*pp = e->next;
			free(e);
			continue;
		}
		if (e->r == r && e->gen == r->gen)
			hit = e;
		pp = &e->next;
	}
	pthread_mutex_unlock(&g_mu);
	if (!hit) {
		hit = malloc(sizeof(*hit));
		tfr_thread *t = hit ? thread_new(r) : NULL;
		if (!t) {
			free(hit);
			tfr_tls_last = NULL;
			return NULL;
		}
		hit->r = r;
		hit->gen = r->gen;
		hit->t = t;
		hit->next = tls_head;
		tls_head = hit;
		pthread_setspecific(g_key, hit);
	}
	tfr_tls_last = hit;
	return hit->t;
}

/* The interned names' strings freed (the table kept, empty). */
static void names_clear(tfr_thread *t)
{
	for (uint32_t i = 0; i < t->capnames; i++) {
		free(t->names[i].s);
		t->names[i].s = NULL;
	}
	t->nnames = 0;
}

/* What a thread's state holds beyond itself: its names, annotations,
 * open-slice marks and buffer. */
static void thread_release(tfr_thread *t)
{
	names_clear(t);
	free(t->names);
	free(t->args);
	free(t->own);
	free(t->c);
	t->names = NULL;
	t->capnames = 0;
	t->args = t->own = NULL;
	t->capargs = t->nargs = 0;
	t->capown = t->nown = 0;
	t->c = NULL;
}

void tfr_thread_free(tfr_thread *t)
{
	thread_release(t);
	free(t);
}

/* ---- buffers ---- */

/* Room for need bytes in t's buffer: the full one handed over (waiting
 * for room in the queue, or, dropping, giving up: -1). */
/* The queue holding q bytes has no room for a buffer of cap: an empty
 * queue takes any buffer. */
static inline bool queue_full(const tfr *r, size_t q, size_t cap)
{
	return q && q + cap > r->limit;
}

static int refill(tfr_thread *t, size_t need, bool force)
{
	tfr *r = t->r;
	size_t q = __atomic_load_n(&r->qbytes, __ATOMIC_RELAXED);
	if (r->drop && !force && t->c && t->c->len && queue_full(r, q, t->c->cap))
		return -1; /* no lock taken to drop (an empty queue takes any buffer) */
	pthread_mutex_lock(&r->mu);
	if (t->c && t->c->len) {
		if (!force) {
			bool waited = false;
			while (!r->drop && queue_full(r, r->qbytes, t->c->cap)) {
				waited = true;
				pthread_cond_wait(&r->cv_space, &r->mu);
			}
			r->waits += waited;
			if (r->drop && queue_full(r, r->qbytes, t->c->cap)) {
				pthread_mutex_unlock(&r->mu);
				return -1;
			}
		}
		tfr_enqueue(r, t->c);
		t->c = NULL;
	}
	if (t->c && t->c->cap < need) {
		free(t->c);
		t->c = NULL;
	}
	if (!t->c)
		t->c = tfr_chunk_get(r, need);
	pthread_mutex_unlock(&r->mu);
	return t->c ? 0 : -1;
}

/* Room for need bytes (ends may use the room kept for them). */
static inline uint8_t *room(tfr_thread *t, size_t need, bool is_end)
{
	tfr_chunk *c = t->c;
	size_t keep = t->r->drop && !is_end ? t->r->reserve : 0;
	if (c && c->cap - c->len >= need + keep)
		return c->data + c->len;
	if (refill(t, need + keep, false) < 0)
		return NULL;
	return t->c->data + t->c->len;
}

/* ---- the sequence ---- */

/* Its first packets (again after TFR_INTERN_MAX names): incremental state
 * cleared, the defaults, the clock. */
static uint8_t *start_sequence(tfr_thread *t, uint8_t *p, uint64_t now)
{
	uint8_t *pk, *d, *ed, *cs, *ck;
	p = pb_open(p, TRACE_PACKET, &pk);
	p = pb_uint(p, TP_SEQ_ID, t->seq);
	p = pb_uint(p, TP_SEQ_FLAGS, SEQ_CLEARED);
	if (!t->started)
		p = pb_uint(p, TP_FIRST_ON_SEQ, 1);
	p = pb_open(p, TP_DEFAULTS, &d);
	p = pb_uint(p, TPD_CLOCK_ID, TFR_CLOCK_DELTA);
	p = pb_open(p, TPD_TRACK_EVENT_DEFAULTS, &ed);
	p = pb_uint(p, TED_TRACK_UUID, t->uuid);
	pb_close(ed, p);
	pb_close(d, p);
	pb_close(pk, p);
	/* the clock in a packet of its own */
	p = pb_open(p, TRACE_PACKET, &pk);
	p = pb_uint(p, TP_SEQ_ID, t->seq);
	p = pb_open(p, TP_CLOCK_SNAPSHOT, &cs);
	p = pb_open(p, CS_CLOCKS, &ck);
	p = pb_uint(p, CK_ID, TFR_CLOCK_DELTA);
	p = pb_uint(p, CK_TIMESTAMP, now);
	p = pb_uint(p, CK_INCREMENTAL, 1);
	pb_close(ck, p);
	p = pb_open(p, CS_CLOCKS, &ck);
	p = pb_uint(p, CK_ID, TFR_CLOCK_MONOTONIC);
	p = pb_uint(p, CK_TIMESTAMP, now);
	pb_close(ck, p);
	pb_close(cs, p);
	pb_close(pk, p);
	t->started = true;
	t->last_ts = now;
	names_clear(t);
	return p;
}
#define START_BYTES 192

static inline uint64_t hash_name(const char *s, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull ^ n;
	size_t i = 0;
	for (; i + 8 <= n; i += 8) {
		uint64_t w;
		memcpy(&w, s + i, 8);
		h = (h ^ w) * 0x100000001b3ull;
		h ^= h >> 29;
	}
	uint64_t w = 0;
	memcpy(&w, s + i, n - i);
	h = (h ^ w) * 0x100000001b3ull;
	return h ^ (h >> 32);
}

static int names_grow(tfr_thread *t)
{
	uint32_t cap = t->capnames ? t->capnames * 2 : 64;
	tfr_name *n = calloc(cap, sizeof(*n));
	if (!n)
		return -1;
	for (uint32_t i = 0; i < t->capnames; i++) {
		tfr_name *e = &t->names[i];
		if (!e->s)
			continue;
		uint32_t j = (uint32_t)e->h & (cap - 1);
		while (n[j].s)
			j = (j + 1) & (cap - 1);
		n[j] = *e;
	}
	free(t->names);
	t->names = n;
	t->capnames = cap;
	return 0;
}

/* The iid of name on t's sequence; *fresh: new (its interned data goes in
 * this packet).  0: out of memory. */
static uint32_t intern(tfr_thread *t, const char *s, size_t n, bool *fresh)
{
	uint64_t h = hash_name(s, n);
	*fresh = false;
	if (t->capnames) {
		for (uint32_t j = (uint32_t)h & (t->capnames - 1);; j = (j + 1) & (t->capnames - 1)) {
			tfr_name *e = &t->names[j];
			if (!e->s)
				break;
			if (e->h == h && e->len == n && !memcmp(e->s, s, n))
				return e->iid;
		}
	}
	if ((t->nnames + 1) * 2 > t->capnames && names_grow(t) < 0)
		return 0;
	char *copy = malloc(n + 1);
	if (!copy)
		return 0;
	memcpy(copy, s, n);
	copy[n] = 0;
	uint32_t j = (uint32_t)h & (t->capnames - 1);
	while (t->names[j].s)
		j = (j + 1) & (t->capnames - 1);
	t->names[j] = (tfr_name){ h, copy, (uint32_t)n, ++t->nnames };
	*fresh = true;
	return t->nnames;
}

/* ---- events ---- */

typedef struct evspec {
	int type;
	tfr_track track;
	const char *name;   /* NULL: none */
	bool has_value;
	double value;
	uint64_t flow;
	int flow_field;     /* 0, TE_FLOW_IDS or TE_TERM_FLOW_IDS */
} evspec;

/* One event as a packet in t's buffer; false: dropped. */
static bool put_event(tfr_thread *t, const evspec *v, uint64_t now)
{
	size_t n = v->name ? tfr_cut(v->name, TFR_NAME_MAX) : 0;
	size_t args = t->nargs;
	size_t need = 128 + 2 * n + args + (!t->started || t->nnames >= TFR_INTERN_MAX ? START_BYTES : 0);
	uint8_t *p = room(t, need, v->type == TE_SLICE_END);
	if (!p)
		return false;
	uint8_t *p0 = p, *pk, *te, *in, *en;
	if (!t->started || t->nnames >= TFR_INTERN_MAX)
		p = start_sequence(t, p, now);
	bool fresh = false;
	uint32_t iid = v->name ? intern(t, v->name, n, &fresh) : 0;
	p = pb_open(p, TRACE_PACKET, &pk);
	p = pb_uint(p, TP_TIMESTAMP, now - t->last_ts);
	t->last_ts = now;
	p = pb_uint(p, TP_SEQ_ID, t->seq);
	p = pb_open(p, TP_TRACK_EVENT, &te);
	p = pb_uint(p, TE_TYPE, (uint64_t)v->type);
	if (v->track)
		p = pb_uint(p, TE_TRACK_UUID, v->track);
	if (iid)
		p = pb_uint(p, TE_NAME_IID, iid);
	else if (v->name)
		p = pb_str(p, 23, v->name, n); /* TrackEvent.name: out of memory to intern */
	if (v->has_value)
		p = pb_double(p, TE_DOUBLE_COUNTER, v->value);
	if (v->flow_field)
		p = pb_fixed64(p, (uint32_t)v->flow_field, v->flow);
	if (args) {
		memcpy(p, t->args, args);
		p += args;
	}
	pb_close(te, p);
	if (fresh) {
		p = pb_open(p, TP_INTERNED, &in);
		p = pb_open(p, ID_EVENT_NAMES, &en);
		p = pb_uint(p, EN_IID, iid);
		p = pb_str(p, EN_NAME, v->name, n);
		pb_close(en, p);
		pb_close(in, p);
	}
	p = pb_uint(p, TP_SEQ_FLAGS, SEQ_NEEDS);
	if (t->lost) {
		p = pb_uint(p, TP_PREV_DROPPED, 1);
		t->lost = false;
	}
	pb_close(pk, p);
	t->c->len += (size_t)(p - p0);
	__atomic_store_n(&t->events, t->events + 1, __ATOMIC_RELAXED);
	return true;
}

static void drop(tfr_thread *t)
{
	t->lost = true;
	__atomic_store_n(&t->dropped, t->dropped + 1, __ATOMIC_RELAXED);
}

static inline void args_clear(tfr_thread *t)
{
	t->nargs = 0;
	t->argdepth = 0;
	t->argskip = 0;
	t->argfull = false;
}

static void args_close_all(tfr_thread *t)
{
	while (t->argdepth > 0) {
		t->argdepth--;
		pb_close(t->args + t->argstack[t->argdepth], t->args + t->nargs);
	}
}

static void event(tfr *r, evspec *v)
{
	uint64_t now = tfr_now();
	tfr_thread *t = tfr_self(r);
	if (!t)
		return;
	args_close_all(t);
	bool own = r->drop && !v->track && (v->type == TE_SLICE_BEGIN || v->type == TE_SLICE_END);
	if (own && v->type == TE_SLICE_END && t->nown && !t->own[t->nown - 1]) {
		t->nown--; /* its begin was dropped */
		drop(t);
		args_clear(t);
		return;
	}
	bool ok = put_event(t, v, now);
	if (!ok)
		drop(t);
	args_clear(t);
	if (!own)
		return;
	if (v->type == TE_SLICE_END) {
		if (t->nown)
			t->nown--;
	} else {
		if (t->nown == t->capown) {
			uint32_t cap = t->capown ? t->capown * 2 : 64;
			uint8_t *o = realloc(t->own, cap);
			if (!o)
				return;
			t->own = o;
			t->capown = cap;
		}
		t->own[t->nown++] = ok;
	}
}

void tfr_begin(tfr *r, tfr_track track, const char *name)
{
	evspec v = { .type = TE_SLICE_BEGIN, .track = track, .name = name ? name : "" };
	if (r)
		event(r, &v);
}

void tfr_end(tfr *r, tfr_track track)
{
	evspec v = { .type = TE_SLICE_END, .track = track };
	if (r)
		event(r, &v);
}

void tfr_instant(tfr *r, tfr_track track, const char *name)
{
	evspec v = { .type = TE_INSTANT, .track = track, .name = name ? name : "" };
	if (r)
		event(r, &v);
}

void tfr_counter(tfr *r, tfr_track track, double value)
{
	evspec v = { .type = TE_COUNTER, .track = track, .has_value = true, .value = value };
	if (r && track) {
		event(r, &v);
	} else if (r) { /* no counter track: nothing recorded, its annotations dropped too */
		tfr_thread *t = tfr_self(r);
		if (t)
			args_clear(t);
	}
}

/* A flow's begin and steps reach the file before what follows them on
 * other threads (the thread's buffer handed over at once), so that a
 * reader that takes a flow's events in the file's order meets them in the
 * order they happened. */
static void flow_handover(tfr *r)
{
	tfr_thread *t = tfr_self(r);
	if (t && t->c && t->c->len)
		refill(t, 0, false);
}

uint64_t tfr_flow_begin(tfr *r, tfr_track track, const char *name)
{
	if (!r)
		return 0;
	evspec v = { .type = TE_INSTANT, .track = track, .name = name ? name : "", .flow = tfr_draw(r),
		     .flow_field = TE_FLOW_IDS };
	event(r, &v);
	flow_handover(r);
	return v.flow;
}

void tfr_flow_step(tfr *r, tfr_track track, uint64_t flow)
{
	evspec v = { .type = TE_INSTANT, .track = track, .flow = flow, .flow_field = TE_FLOW_IDS };
	if (r && flow) {
		event(r, &v);
		flow_handover(r);
	}
}

void tfr_flow_end(tfr *r, tfr_track track, uint64_t flow)
{
	evspec v = { .type = TE_INSTANT, .track = track, .flow = flow, .flow_field = TE_TERM_FLOW_IDS };
	if (r && flow)
		event(r, &v);
}

void tfr_thread_name(tfr *r, const char *name)
{
	tfr_thread *t = r && name ? tfr_self(r) : NULL;
	if (!t)
		return;
	pthread_mutex_lock(&r->mu);
	tfr_thread_descriptor(r, t, name);
	pthread_mutex_unlock(&r->mu);
}

/* ---- the thread's end ---- */

/* Under r->mu: what t dropped as a counter of its own (a control
 * descriptor, then the value on t's sequence), its buffer handed over. */
void tfr_thread_retire(tfr_thread *t)
{
	tfr *r = t->r;
	if (t->dropped) {
		uint64_t uuid = tfr_draw(r);
		uint8_t *p, *pk, *te;
		tfr_track_descriptor(r, uuid, t->uuid, "tracefold.dropped_events", true, "count");
		/* the value: on t's sequence, at its last time */
		if (!t->c || t->c->cap - t->c->len < 64 + START_BYTES) {
			if (t->c && t->c->len)
				tfr_enqueue(r, t->c);
			else
				free(t->c);
			t->c = tfr_chunk_get(r, 64 + START_BYTES);
		}
		if (t->c) {
			uint64_t now = t->started ? t->last_ts : tfr_now();
			p = t->c->data + t->c->len;
			uint8_t *p0 = p;
			if (!t->started)
				p = start_sequence(t, p, now);
			p = pb_open(p, TRACE_PACKET, &pk);
			p = pb_uint(p, TP_TIMESTAMP, 0);
			p = pb_uint(p, TP_SEQ_ID, t->seq);
			p = pb_open(p, TP_TRACK_EVENT, &te);
			p = pb_uint(p, TE_TYPE, TE_COUNTER);
			p = pb_uint(p, TE_TRACK_UUID, uuid);
			p = pb_double(p, TE_DOUBLE_COUNTER, (double)t->dropped);
			pb_close(te, p);
			if (t->lost)
				p = pb_uint(p, TP_PREV_DROPPED, 1);
			pb_close(pk, p);
			t->c->len += (size_t)(p - p0);
		}
	}
	if (t->c && t->c->len) {
		tfr_enqueue(r, t->c);
		t->c = NULL;
	}
	r->events_retired += t->events;
	r->dropped_retired += t->dropped;
	t->retired = true;
	/* never used again: what it holds goes now, not at close (a program
	 * whose threads come and go kept every one's names until then) */
	thread_release(t);
}

/* ---- annotations ---- */

/* Room for an annotation of n more bytes; false: over TFR_ARGS_MAX. */
static bool args_room(tfr_thread *t, size_t n)
{
	if (t->argfull || t->nargs + n > TFR_ARGS_MAX) {
		t->argfull = true;
		return false;
	}
	if (t->nargs + n > t->capargs) {
		size_t cap = t->capargs ? t->capargs : 256;
		while (cap < t->nargs + n)
			cap *= 2;
		uint8_t *a = realloc(t->args, cap);
		if (!a)
			return false;
		t->args = a;
		t->capargs = cap;
	}
	return true;
}

/* The annotation's opening: its field in its parent, its name; returns
 * where its value goes (its length at *len_at), NULL: no room. */
static uint8_t *arg_open(tfr_thread *t, const char *key, size_t extra, uint8_t **len_at)
{
	size_t kn = key ? tfr_cut(key, 1024) : 0;
	if (!args_room(t, 32 + kn + extra))
		return NULL;
	uint32_t field = t->argdepth ? t->argkind[t->argdepth - 1] : TE_ANNOTATION;
	uint8_t *p = pb_open(t->args + t->nargs, field, len_at);
	if (kn && field != DA_ARRAY)
		p = pb_str(p, DA_NAME, key, kn);
	return p;
}

static void arg_done(tfr_thread *t, uint8_t *len_at, uint8_t *end)
{
	pb_close(len_at, end);
	t->nargs = (size_t)(end - t->args);
}

#define ARG_SELF(r, t)                  \
	tfr_thread *t = r ? tfr_self(r) : NULL; \
	if (!t)                         \
		return

void tfr_arg_int(tfr *r, const char *key, int64_t v)
{
	ARG_SELF(r, t);
	uint8_t *l, *p = arg_open(t, key, 16, &l);
	if (p)
		arg_done(t, l, pb_uint(p, DA_INT, (uint64_t)v));
}

void tfr_arg_uint(tfr *r, const char *key, uint64_t v)
{
	ARG_SELF(r, t);
	uint8_t *l, *p = arg_open(t, key, 16, &l);
	if (p)
		arg_done(t, l, pb_uint(p, DA_UINT, v));
}

void tfr_arg_double(tfr *r, const char *key, double v)
{
	ARG_SELF(r, t);
	uint8_t *l, *p = arg_open(t, key, 16, &l);
	if (p)
		arg_done(t, l, pb_double(p, DA_DOUBLE, v));
}

void tfr_arg_bool(tfr *r, const char *key, int v)
{
	ARG_SELF(r, t);
	uint8_t *l, *p = arg_open(t, key, 4, &l);
	if (p)
		arg_done(t, l, pb_uint(p, DA_BOOL, v ? 1 : 0));
}

void tfr_arg_string(tfr *r, const char *key, const char *v)
{
	ARG_SELF(r, t);
	size_t n = v ? tfr_cut(v, TFR_ARGS_MAX) : 0;
	uint8_t *l, *p = arg_open(t, key, 16 + n, &l);
	if (p)
		arg_done(t, l, pb_str(p, DA_STRING, v ? v : "", n));
}

static void arg_nest(tfr *r, const char *key, uint8_t kind)
{
	ARG_SELF(r, t);
	uint8_t *l, *p = t->argdepth < TFR_ARGS_DEPTH ? arg_open(t, key, 0, &l) : NULL;
	if (!p) { /* not kept: its close closes nothing */
		t->argfull = true;
		t->argskip++;
		return;
	}
	t->argstack[t->argdepth] = (size_t)(l - t->args);
	t->argkind[t->argdepth++] = kind;
	t->nargs = (size_t)(p - t->args);
}

void tfr_arg_dict(tfr *r, const char *key)
{
	arg_nest(r, key, DA_DICT);
}

void tfr_arg_array(tfr *r, const char *key)
{
	arg_nest(r, key, DA_ARRAY);
}

void tfr_arg_close(tfr *r)
{
	ARG_SELF(r, t);
	if (t->argskip)
		t->argskip--;
	else if (t->argdepth > 0) {
		t->argdepth--;
		pb_close(t->args + t->argstack[t->argdepth], t->args + t->nargs);
	}
}
