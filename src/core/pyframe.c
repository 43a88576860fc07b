/* pyframe.c - Kineto's Python frames clipped to their parents by id
 * (docs/stack-rules.md), without keeping their track in memory.
 *
 * The rule (the last frame with an id is the parent of every frame naming
 * it; links in arrival order; each child clipped to its parent as it
 * stands at the child's turn) is applied as each frame comes, while that
 * gives the same spans: while the track's ids rise (no id can come again)
 * and each parent is one of the frames still open (an ancestor of the
 * frame before: its span is final, clipped itself before), a child is
 * clipped to its parent at once and goes to the sorter as it will stay,
 * and memory holds only the open frames.  A frame that breaks this (an id
 * not above the last, a parent not open: named before it comes, missing,
 * or closed) makes the track's end replay the whole rule on the log of the
 * frames as they came (kept in the sorter's temporary file past its
 * budget), on all the track's spans read back into memory. */
#include <stdlib.h>
#include <string.h>
#include "stack_int.h"
#include "grow.h"
#include "hmap.h"
#include "sat.h"

/* the log goes to the temporary file (once there is one) in runs of this many */
#define PY_LOG_RUN 1024u

static uint64_t replays;

uint64_t tf_py_replays(void) { return __atomic_load_n(&replays, __ATOMIC_RELAXED); }

/* The child (s, e, es) clipped to its parent's span: the time it moved. */
static int64_t clip_to(int64_t *s, int64_t *e, uint32_t *es, int64_t ps, int64_t pe, uint32_t pes)
{
	int64_t moved = 0;
	if (*s < ps) {
		moved = tf_sat_add(moved, tf_sat_sub(ps, *s));
		*s = ps;
	}
	if (*e > pe) {
		moved = tf_sat_add(moved, tf_sat_sub(*e, pe));
		*e = pe;
		*es = pes;
	}
	if (*e < *s)
		*e = *s;
	return moved;
}

static int rec_cmp(const void *x, const void *y)
{
	const tf_pyrec *a = x, *b = y;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static int log_frame(tf_pytrack *p, tf_sorter *so, const tf_pyrec *r)
{
	if (tf_grow((void **)&p->log, &p->caplog, p->nlog + 1, sizeof(*p->log)) < 0)
		return TF_ENOMEM;
	p->log[p->nlog++] = *r;
	tf_spill *f = tf_sorter_spill(so); /* only once the sorter made it: no file of its own */
	if (p->nlog >= PY_LOG_RUN && f) {
		int rc = tf_spill_write(f, &p->runs, p->log, p->nlog, sizeof(*p->log), NULL);
		if (rc < 0)
			return tf_sorter_failed(so, rc);
		p->nlog = 0;
	}
	return 0;
}

/* The open frame with id (ids rise from the bottom), or UINT32_MAX. */
static uint32_t find_open(const tf_pytrack *p, uint64_t id)
{
	uint32_t lo = 0, hi = p->nopen;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (p->open[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < p->nopen && p->open[lo].id == id ? lo : UINT32_MAX;
}

typedef struct addarg {
	tf_pytrack *p;
	tf_sorter *so;
	const tf_event *ev;
} addarg;

static int on_frame(void *arg, tf_sorted_span *sp)
{
	const addarg *a = arg;
	tf_pytrack *p = a->p;
	const tf_event *ev = a->ev;
	TF_TRY(log_frame(p, a->so, &(tf_pyrec){ sp->start_ns, sp->end_ns, ev->id, ev->parent_id, sp->seq, sp->end_seq }));
	bool first = !p->nframes++;
	if (p->broken)
		return 0;
	if (!first && ev->id <= p->max_id) {
		p->broken = true;
		return 0;
	}
	p->max_id = ev->id;
	if (ev->parent_id) {
		uint32_t k = find_open(p, ev->parent_id);
		if (k == UINT32_MAX) {
			p->broken = true;
			return 0;
		}
		p->nopen = k + 1; /* the frames above it have ended (else: broken, later) */
		const tf_pyent *par = &p->open[k];
		int64_t moved = clip_to(&sp->start_ns, &sp->end_ns, &sp->end_seq, par->start_ns, par->end_ns, par->end_seq);
		if (moved) {
			p->nclip++;
			p->clip_ns = tf_sat_addu(p->clip_ns, (uint64_t)moved);
		}
	} else {
		p->nopen = 0; /* a new root */
	}
	if (tf_grow((void **)&p->open, &p->capopen, p->nopen + 1, sizeof(*p->open)) < 0)
		return TF_ENOMEM;
	p->open[p->nopen++] = (tf_pyent){ ev->id, sp->start_ns, sp->end_ns, sp->end_seq, 0 };
	return 0;
}

int tf_py_add(tf_pytrack *p, tf_sorter *so, uint32_t track, const tf_event *ev)
{
	addarg a = { p, so, ev };
	return tf_sorter_add_x(so, track, ev, on_frame, &a);
}

/* The log in arrival order, in memory (*all: p->log itself when nothing
 * went to the file): its runs one after another (in order, never merged:
 * one read buffer at a time), then what is still in memory. */
static int read_log(tf_pytrack *p, tf_sorter *so, tf_pyrec **all, uint32_t *n)
{
	if (!p->runs.n) {
		*all = p->log;
		*n = p->nlog;
		return 0;
	}
	tf_pyrec *v = NULL;
	uint32_t nv = 0, cap = 0;
	int r = 0;
	for (uint32_t k = 0; k <= p->runs.n && r == 0; k++) {
		bool run = k < p->runs.n; /* else the log still in memory */
		tf_runs one = { run ? &p->runs.r[k] : NULL, run, 0 };
		tf_merge m;
		r = tf_merge_init(&m, tf_sorter_spill(so), &one, run ? NULL : p->log, run ? 0 : p->nlog, sizeof(*v), rec_cmp);
		if (r < 0)
			break;
		r = tf_merge_drain(&m, (void **)&v, &nv, &cap);
		tf_merge_free(&m);
	}
	if (r < 0) {
		free(v);
		return tf_sorter_failed(so, r);
	}
	*all = v;
	*n = nv;
	return 0;
}

/* The rule as it stands, on the log: the last frame with an id wins. */
static int replay(tf_pyrec *f, uint32_t n, tf_diag *d)
{
	tf_hmap idx = { 0 };
	for (uint32_t i = 0; i < n; i++)
		if (tf_hmap_set(&idx, f[i].id, i) < 0) {
			tf_hmap_free(&idx);
			return TF_ENOMEM;
		}
	for (uint32_t i = 0; i < n; i++) {
		if (!f[i].parent)
			continue;
		uint32_t q = tf_hmap_get(&idx, f[i].parent);
		if (q == UINT32_MAX || q == i)
			continue;
		int64_t moved = clip_to(&f[i].start_ns, &f[i].end_ns, &f[i].end_seq, f[q].start_ns, f[q].end_ns,
					f[q].end_seq);
		if (moved)
			tf_diag_repair(d, TF_DIAG_python_parent_clipped, moved);
	}
	tf_hmap_free(&idx);
	return 0;
}

/* The exact path: every Python frame's span from the replay, by its seq. */
static int exact(tf_pytrack *p, tf_sorter *so, uint32_t track, int64_t last_ns, tf_diag *d)
{
	__atomic_fetch_add(&replays, 1, __ATOMIC_RELAXED);
	int r = tf_sorter_gather(so, track, last_ns);
	if (r < 0)
		return tf_sorter_failed(so, r);
	tf_pyrec *f = NULL;
	uint32_t n = 0, nspans = 0;
	TF_TRY(read_log(p, so, &f, &n));
	r = replay(f, n, d);
	tf_sorted_span *sp = r < 0 ? NULL : tf_sorter_spans(so, track, last_ns, &nspans);
	for (uint32_t i = 0; sp && i < nspans; i++) {
		uint32_t lo = 0, hi = n;
		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;
			if (f[mid].seq < sp[i].seq)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < n && f[lo].seq == sp[i].seq) {
			sp[i].start_ns = f[lo].start_ns;
			sp[i].end_ns = f[lo].end_ns;
			sp[i].end_seq = f[lo].end_seq;
		}
	}
	if (f != p->log)
		free(f);
	return r;
}

int tf_py_fix(tf_pytrack *p, tf_sorter *so, uint32_t track, int64_t last_ns, tf_diag *d)
{
	int r = 0;
	if (p->nframes && p->broken) {
		r = exact(p, so, track, last_ns, d);
	} else if (p->nframes) {
		d->n[TF_DIAG_python_parent_clipped] += p->nclip;
		d->ns[TF_DIAG_python_parent_clipped] = tf_sat_addu(d->ns[TF_DIAG_python_parent_clipped], p->clip_ns);
	}
	tf_py_free(p);
	return r;
}

void tf_py_free(tf_pytrack *p)
{
	free(p->open);
	free(p->log);
	tf_runs_free(&p->runs);
	memset(p, 0, sizeof(*p));
}
