/* sorter.c - the sorted tracks' buffers (stack_int.h): X events, B/E
 * marks and the other events of a track that promises no time order
 * (Chrome JSON), kept until its input ends, then read back in order.
 *
 * B/E are matched innermost-first in (ts, file order) order; all spans (X
 * and matched B/E) come back ordered by start, longer first, file order.
 * Past the memory budget (--sort-mem) every track's spans and events go to
 * a temporary file as sorted runs (spill.h) and are merged back when the
 * track is read.  The nesting is stack.c's; the sorter knows nothing of
 * call paths or consumers. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "stack_int.h"
#include "grow.h"
#include "hmap.h"
#include "sat.h"

typedef struct bemark {
	int64_t ts_ns;
	tf_str name, cat;
	uint32_t seq;
	uint8_t is_end;
	uint8_t label;            /* TF_EVF_GPU_LABEL */
	uint64_t corr;
	tf_str op;                /* tf_event.op */
} bemark;

typedef struct strack {
	tf_sorted_span *spans;
	uint32_t nspans, capspans;
	bemark *marks;
	uint32_t nmarks, capmarks;
	tf_sorted_event *events;
	uint32_t nevents, capevents;
	size_t mem_bytes;      /* what spans, marks and events hold (counted in tf_sorter.mem_bytes) */
	tf_runs span_runs, event_runs; /* sorted runs written to tf_sorter.spill */
	uint32_t seq;
	uint64_t corr;         /* the correlation ids of its regions or'ed: 0 when it launches no GPU work */
} strack;

struct tf_sorter {
	tf_ctx *ctx;
	tf_diag *diag;
	strack *tracks;
	uint32_t ntracks, captracks;
	size_t mem_bytes, spill_at; /* buffered now; spill when it reaches spill_at (0 never) */
	tf_spill *spill;
	int spill_state;       /* 0 no file yet, 1 open, -1 none can be made: memory only */
};

static int span_cmp(const void *x, const void *y)
{
	const tf_sorted_span *a = x, *b = y;
	if (a->start_ns != b->start_ns)
		return a->start_ns < b->start_ns ? -1 : 1;
	if (a->end_ns != b->end_ns)
		return a->end_ns > b->end_ns ? -1 : 1; /* longer first */
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* Stable by timestamp: at equal timestamps B and E keep their file order
 * (a region entered and left in the same microsecond stays one region). */
static int mark_cmp(const void *x, const void *y)
{
	const bemark *a = x, *b = y;
	if (a->ts_ns != b->ts_ns)
		return a->ts_ns < b->ts_ns ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static int kept_cmp(const void *x, const void *y)
{
	const tf_sorted_event *a = x, *b = y;
	if (a->ev.ts_ns != b->ev.ts_ns)
		return a->ev.ts_ns < b->ev.ts_ns ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* Sorts only when needed: inputs are often already in order. */
static void sort_if_needed(void *base, size_t n, size_t sz, int (*cmp)(const void *, const void *))
{
	char *p = base;
	for (size_t i = 1; i < n; i++)
		if (cmp(p + (i - 1) * sz, p + i * sz) > 0) {
			qsort(base, n, sz, cmp);
			return;
		}
}

static strack *track_get(tf_sorter *so, uint32_t track)
{
	if (track >= so->ntracks) {
		if (tf_grow((void **)&so->tracks, &so->captracks, track + 1, sizeof(strack)) < 0)
			return NULL;
		memset(so->tracks + so->ntracks, 0, (size_t)(track + 1 - so->ntracks) * sizeof(strack));
		so->ntracks = track + 1;
	}
	return &so->tracks[track];
}

/* ---- memory bound: sorted runs in a temporary file ---- */

/* span_cmp, with the X events still running when tracing stopped last:
 * their end is the track's last timestamp, known only at its end, so they
 * stay in memory. */
static int spill_span_cmp(const void *x, const void *y)
{
	const tf_sorted_span *a = x, *b = y;
	bool ua = a->end_ns == INT64_MIN, ub = b->end_ns == INT64_MIN;
	if (ua != ub)
		return ua ? 1 : -1;
	return span_cmp(x, y);
}

/* Are the spans in spill_span_cmp's order?  (The check of every spill:
 * inputs are often in order; inlined, not a call per span.) */
static bool spans_in_spill_order(const tf_sorted_span *sp, uint32_t n)
{
	for (uint32_t i = 1; i < n; i++) {
		const tf_sorted_span *a = &sp[i - 1], *b = &sp[i];
		if (a->start_ns < b->start_ns && a->end_ns != INT64_MIN && b->end_ns != INT64_MIN)
			continue; /* the usual case, decided by the start */
		if (spill_span_cmp(a, b) > 0)
			return false;
	}
	return true;
}

/* Is a before b in spill_span_cmp's order (inline: the sort below)? */
static inline bool span_before(const tf_sorted_span *a, const tf_sorted_span *b)
{
	bool ua = a->end_ns == INT64_MIN, ub = b->end_ns == INT64_MIN;
	if (ua != ub)
		return ub;
	if (a->start_ns != b->start_ns)
		return a->start_ns < b->start_ns;
	if (a->end_ns != b->end_ns)
		return a->end_ns > b->end_ns;
	return a->seq < b->seq;
}

/* Sorts sp[0..n) as qsort with spill_span_cmp would (a stable merge sort
 * there, and the order is total: seq differs): the runs already in order
 * (Kineto's tracks are mostly sorted) merged pairwise by index, the
 * comparison inline, then the records moved once, cycle by cycle.  8 bytes
 * a span beside them; qsort when those cannot be had. */
static void sort_spans(tf_sorted_span *sp, uint32_t n)
{
	uint32_t *ix = malloc(2 * (size_t)n * sizeof(uint32_t));
	if (!ix) {
		qsort(sp, n, sizeof(*sp), spill_span_cmp);
		return;
	}
	uint32_t *src = ix, *dst = ix + n;
	for (uint32_t i = 0; i < n; i++)
		src[i] = i;
	for (;;) { /* a pass merges each two runs in order into one */
		uint32_t lo = 0, nruns = 0;
		while (lo < n) {
			uint32_t mid = lo + 1;
			while (mid < n && !span_before(&sp[src[mid]], &sp[src[mid - 1]]))
				mid++;
			uint32_t hi = mid < n ? mid + 1 : n;
			while (hi < n && !span_before(&sp[src[hi]], &sp[src[hi - 1]]))
				hi++;
			uint32_t i = lo, j = mid, k = lo;
			while (i < mid && j < hi) /* the left one first when equal: stable */
				dst[k++] = span_before(&sp[src[j]], &sp[src[i]]) ? src[j++] : src[i++];
			while (i < mid)
				dst[k++] = src[i++];
			while (j < hi)
				dst[k++] = src[j++];
			lo = hi;
			nruns++;
		}
		uint32_t *t = src;
		src = dst;
		dst = t;
		if (nruns <= 1)
			break;
	}
	for (uint32_t i = 0; i < n; i++) { /* position k takes record src[k] */
		if (src[i] == i)
			continue;
		tf_sorted_span keep = sp[i];
		uint32_t j = i;
		while (src[j] != i) {
			uint32_t k = src[j];
			sp[j] = sp[k];
			src[j] = j;
			j = k;
		}
		sp[j] = keep;
		src[j] = j;
	}
	free(ix);
}

static int spill_track(tf_sorter *so, strack *t)
{
	if (t->nspans) {
		if (!spans_in_spill_order(t->spans, t->nspans))
			sort_spans(t->spans, t->nspans);
		uint32_t n = t->nspans;
		while (n && t->spans[n - 1].end_ns == INT64_MIN)
			n--;
		TF_TRY(tf_spill_write(so->spill, &t->span_runs, t->spans, n, sizeof(*t->spans), span_cmp));
		memmove(t->spans, t->spans + n, (size_t)(t->nspans - n) * sizeof(*t->spans));
		t->nspans -= n;
		t->mem_bytes -= (size_t)n * sizeof(*t->spans);
	}
	if (t->nevents) {
		sort_if_needed(t->events, t->nevents, sizeof(*t->events), kept_cmp);
		TF_TRY(tf_spill_write(so->spill, &t->event_runs, t->events, t->nevents, sizeof(*t->events), kept_cmp));
		t->mem_bytes -= (size_t)t->nevents * sizeof(*t->events);
		t->nevents = 0;
	}
	return 0;
}

int tf_sorter_spill_open(tf_sorter *so)
{
	if (so->spill_state)
		return so->spill_state;
	const char *dir = tf_ctx_opts(so->ctx)->tmp_dir;
	if (tf_spill_lazy(&so->spill, &so->spill_state, dir) < 0)
		tf_ctx_warn(so->ctx, "cannot make a temporary file in %s (%s): the events of sorted tracks "
			    "stay in memory", dir && *dir ? dir : "/tmp", strerror(errno));
	return so->spill_state;
}

tf_spill *tf_sorter_spill(const tf_sorter *so) { return so->spill; }

int tf_sorter_failed(tf_sorter *so, int rc)
{
	const tf_error *e = rc == TF_EIO ? tf_spill_error(so->spill) : NULL;
	if (e)
		tf_ctx_fail(so->ctx, e);
	return rc;
}

/* Past the budget: every sorted track's spans and events go to the file as
 * sorted runs; their buffers are kept for what comes next.  Without a
 * file (none can be made) everything stays in memory, as with a budget of
 * 0, and a warning says so; a write that fails (the disk is full) fails
 * the run: what it held is neither in memory nor whole in the file. */
static int spill_all(tf_sorter *so)
{
	size_t budget = tf_ctx_opts(so->ctx)->sort_mem_bytes;
	tf_sorter_spill_open(so);
	for (uint32_t i = 0; i < so->ntracks && so->spill_state == 1; i++) {
		strack *t = &so->tracks[i];
		size_t before = t->mem_bytes;
		int r = spill_track(so, t);
		so->mem_bytes -= before - t->mem_bytes;
		if (r < 0)
			return tf_sorter_failed(so, r);
	}
	/* what could not go (B/E pairs, X events without dur) does not make every
	 * later event spill again: the next time is a budget further */
	so->spill_at = so->spill_state == 1 ? so->mem_bytes + budget : 0;
	return 0;
}

/* ---- buffering ---- */

/* The record of an X event with a duration of 0 or more (dur), flags its
 * repairs (add_x, and tf_sorter_add's inline path). */
static inline tf_sorted_span x_record(const tf_event *ev, uint32_t seq, int64_t dur, uint32_t flags)
{
	return (tf_sorted_span){ .start_ns = ev->ts_ns, .end_ns = tf_sat_add(ev->ts_ns, dur), .name = ev->name,
				 .cat = ev->cat, .seq = seq, .end_seq = TF_END_X, .flags = (uint16_t)flags,
				 .label = ev->flags & TF_EVF_GPU_LABEL, .op = ev->op, .corr = ev->corr };
}

#define X_REPAIRS (TF_SPAN_CLIPPED | TF_SPAN_CUT | TF_SPAN_UNCLOSED | TF_SPAN_CLOSED_EARLY | TF_SPAN_NEG_DURATION)

static int add_x(tf_sorter *so, strack *t, const tf_event *ev, uint32_t seq)
{
	if (tf_grow((void **)&t->spans, &t->capspans, t->nspans + 1, sizeof(*t->spans)) < 0)
		return TF_ENOMEM;
	int64_t dur = ev->dur_ns;
	t->mem_bytes += sizeof(*t->spans);
	if (dur == TF_DUR_UNTIL_END) { /* still running when tracing stopped */
		t->spans[t->nspans++] = (tf_sorted_span){ .start_ns = ev->ts_ns, .end_ns = INT64_MIN, .name = ev->name,
							  .cat = ev->cat, .seq = seq, .end_seq = TF_END_LAST,
							  .flags = TF_SPAN_UNCLOSED,
							  .label = ev->flags & TF_EVF_GPU_LABEL,
							  .op = ev->op, .corr = ev->corr };
		return 0;
	}
	uint32_t flags = ev->repaired & X_REPAIRS;
	if (dur < 0) {
		tf_diag_repair(so->diag, TF_DIAG_negative_duration, -dur);
		flags = TF_SPAN_NEG_DURATION;
		dur = 0;
	}
	t->spans[t->nspans++] = x_record(ev, seq, dur, flags);
	return 0;
}

static int add_one(tf_sorter *so, strack *t, const tf_event *ev, uint32_t seq)
{
	switch (ev->kind) {
	case TF_EV_COMPLETE:
		return add_x(so, t, ev, seq);
	case TF_EV_BEGIN:
	case TF_EV_END:
		if (tf_grow((void **)&t->marks, &t->capmarks, t->nmarks + 1, sizeof(bemark)) < 0)
			return TF_ENOMEM;
		t->marks[t->nmarks++] = (bemark){ ev->ts_ns, ev->name, ev->cat, seq, ev->kind == TF_EV_END,
						  (ev->flags & TF_EVF_GPU_LABEL) != 0, ev->corr, ev->op };
		t->mem_bytes += sizeof(bemark);
		return 0;
	default:
		if (tf_grow((void **)&t->events, &t->capevents, t->nevents + 1, sizeof(*t->events)) < 0)
			return TF_ENOMEM;
		t->events[t->nevents++] = (tf_sorted_event){ *ev, seq, 0 };
		t->mem_bytes += sizeof(*t->events);
		return 0;
	}
}

static int add_clipped(tf_sorter *so, uint32_t track, const tf_event *ev, tf_span_clip_fn clip, void *arg)
{
	strack *t = track < so->ntracks ? &so->tracks[track] : track_get(so, track);
	if (!t)
		return TF_ENOMEM;
	uint32_t seq = t->seq++;
	size_t before = t->mem_bytes;
	t->corr |= ev->corr;
	int rc = add_one(so, t, ev, seq);
	if (rc < 0 || t->mem_bytes == before)
		return rc;
	so->mem_bytes += t->mem_bytes - before;
	if (clip && (rc = clip(arg, &t->spans[t->nspans - 1])) < 0) /* before it can go to a run */
		return rc;
	return so->spill_at && so->mem_bytes >= so->spill_at ? spill_all(so) : 0;
}

int tf_sorter_add(tf_sorter *so, uint32_t track, const tf_event *ev)
{
	/* the usual event, inline: an X event with a duration of 0 or more on a
	 * track seen before, room left in its buffer (add_x's record) */
	strack *t = track < so->ntracks ? &so->tracks[track] : NULL;
	if (t && ev->kind == TF_EV_COMPLETE && ev->dur_ns >= 0 && t->nspans < t->capspans) {
		t->spans[t->nspans++] = x_record(ev, t->seq++, ev->dur_ns, ev->repaired & X_REPAIRS);
		t->corr |= ev->corr;
		t->mem_bytes += sizeof(*t->spans);
		so->mem_bytes += sizeof(*t->spans);
		return so->spill_at && so->mem_bytes >= so->spill_at ? spill_all(so) : 0;
	}
	return add_clipped(so, track, ev, NULL, NULL);
}

int tf_sorter_add_x(tf_sorter *so, uint32_t track, const tf_event *ev, tf_span_clip_fn clip, void *arg)
{
	return add_clipped(so, track, ev, ev->kind == TF_EV_COMPLETE && ev->dur_ns != TF_DUR_UNTIL_END ? clip : NULL,
			   arg);
}

bool tf_sorter_holds(const tf_sorter *so, uint32_t track)
{
	if (track >= so->ntracks)
		return false;
	const strack *t = &so->tracks[track];
	return t->nspans || t->nmarks || t->nevents || t->span_runs.n || t->event_runs.n;
}

static uint64_t runs_n(const tf_runs *rs)
{
	uint64_t n = 0;
	for (uint32_t i = 0; i < rs->n; i++)
		n += rs->r[i].n;
	return n;
}

uint64_t tf_sorter_weight(const tf_sorter *so, uint32_t track, bool *movable)
{
	*movable = false;
	if (track >= so->ntracks)
		return 0;
	const strack *t = &so->tracks[track];
	*movable = !t->corr && !t->nevents && !t->event_runs.n;
	return (uint64_t)t->nspans + t->nmarks / 2 + t->nevents + runs_n(&t->span_runs) + runs_n(&t->event_runs);
}

tf_sorter *tf_sorter_twin(const tf_sorter *so, tf_ctx *ctx)
{
	tf_sorter *v = malloc(sizeof(*v));
	if (!v)
		return NULL;
	*v = *so;
	v->ctx = ctx;
	v->diag = tf_ctx_diag(ctx);
	v->mem_bytes = 0;
	v->spill_at = 0;
	if (so->spill && !(v->spill = tf_spill_reader(so->spill))) {
		free(v);
		return NULL;
	}
	return v;
}

void tf_sorter_twin_end(tf_sorter *so, tf_sorter *twin)
{
	if (!twin)
		return;
	so->mem_bytes += twin->mem_bytes; /* what its tracks gave back (modulo 2^64) */
	tf_spill_free(twin->spill);
	free(twin);
}

/* ---- reading a track back ---- */

tf_sorted_span *tf_sorter_spans(tf_sorter *so, uint32_t track, int64_t last_ns, uint32_t *n_out)
{
	strack *t = &so->tracks[track];
	for (uint32_t i = 0; i < t->nspans; i++)
		if (t->spans[i].end_ns == INT64_MIN) { /* X without dur: until the track's end */
			tf_sorted_span *sp = &t->spans[i];
			sp->end_ns = last_ns > sp->start_ns ? last_ns : sp->start_ns;
			tf_diag_repair(so->diag, TF_DIAG_begin_unclosed, tf_sat_sub(sp->end_ns, sp->start_ns));
		}
	*n_out = t->nspans;
	return t->spans;
}

int tf_sorter_gather(tf_sorter *so, uint32_t track, int64_t last_ns)
{
	strack *t = &so->tracks[track];
	uint32_t n;
	tf_sorter_spans(so, track, last_ns, &n);
	if (!t->span_runs.n)
		return 0;
	sort_if_needed(t->spans, t->nspans, sizeof(*t->spans), span_cmp);
	tf_merge m;
	TF_TRY(tf_merge_init(&m, so->spill, &t->span_runs, t->spans, t->nspans, sizeof(*t->spans), span_cmp));
	tf_sorted_span *all = NULL;
	uint32_t nall = 0, cap = 0;
	int r = tf_merge_drain(&m, (void **)&all, &nall, &cap);
	tf_merge_free(&m);
	if (r < 0) {
		free(all);
		return r;
	}
	size_t more = (size_t)(nall - t->nspans) * sizeof(*t->spans);
	t->mem_bytes += more;
	so->mem_bytes += more;
	free(t->spans);
	t->spans = all;
	t->nspans = nall;
	t->capspans = cap;
	tf_runs_free(&t->span_runs);
	return 0;
}

static int add_span(strack *t, const tf_sorted_span *sp)
{
	if (tf_grow((void **)&t->spans, &t->capspans, t->nspans + 1, sizeof(*t->spans)) < 0)
		return TF_ENOMEM;
	t->spans[t->nspans++] = *sp;
	return 0;
}

/* B/E marks -> spans, innermost-first. */
static int match_marks(tf_sorter *so, strack *t, int64_t last_ns)
{
	sort_if_needed(t->marks, t->nmarks, sizeof(bemark), mark_cmp);
	uint32_t *open = NULL, nopen = 0, capopen = 0;
	int rc = 0;
	for (uint32_t i = 0; i < t->nmarks && rc == 0; i++) {
		const bemark *m = &t->marks[i];
		if (!m->is_end) {
			if (tf_grow((void **)&open, &capopen, nopen + 1, sizeof(uint32_t)) < 0)
				rc = TF_ENOMEM;
			else
				open[nopen++] = i;
			continue;
		}
		if (!nopen) {
			so->diag->n[TF_DIAG_end_without_begin]++;
			continue;
		}
		const bemark *b = &t->marks[open[--nopen]];
		rc = add_span(t, &(tf_sorted_span){ .start_ns = b->ts_ns, .end_ns = m->ts_ns, .name = b->name,
						    .cat = b->cat, .seq = b->seq, .end_seq = m->seq + 1,
						    .label = b->label, .op = b->op, .corr = b->corr });
	}
	/* still open at the end of the track: close at its last timestamp */
	for (uint32_t k = 0; k < nopen && rc == 0; k++) {
		const bemark *b = &t->marks[open[k]];
		tf_diag_repair(so->diag, TF_DIAG_begin_unclosed, tf_sat_sub(last_ns, b->ts_ns));
		rc = add_span(t, &(tf_sorted_span){ .start_ns = b->ts_ns, .end_ns = last_ns, .name = b->name,
						    .cat = b->cat, .seq = b->seq, .end_seq = TF_END_LAST,
						    .flags = TF_SPAN_UNCLOSED, .label = b->label, .op = b->op,
						    .corr = b->corr });
	}
	free(open);
	t->nmarks = 0;
	return rc;
}

int tf_sorter_open(tf_sorter *so, uint32_t track, int64_t last_ns, tf_sorted *c)
{
	strack *t = &so->tracks[track];
	uint32_t n;
	tf_sorter_spans(so, track, last_ns, &n);
	TF_TRY(match_marks(so, t, last_ns));
	sort_if_needed(t->spans, t->nspans, sizeof(*t->spans), span_cmp);
	sort_if_needed(t->events, t->nevents, sizeof(*t->events), kept_cmp);
	TF_TRY(tf_merge_init(&c->spans, so->spill, &t->span_runs, t->spans, t->nspans, sizeof(*t->spans),
			     span_cmp));
	int r = tf_merge_init(&c->events, so->spill, &t->event_runs, t->events, t->nevents, sizeof(*t->events),
			      kept_cmp);
	if (r < 0)
		tf_merge_free(&c->spans);
	return r;
}

int tf_sorter_rewind(tf_sorter *so, uint32_t track, tf_sorted *c)
{
	const strack *t = &so->tracks[track];
	tf_merge_free(&c->spans);
	return tf_merge_init(&c->spans, so->spill, &t->span_runs, t->spans, t->nspans, sizeof(*t->spans), span_cmp);
}

void tf_sorter_close(tf_sorter *so, uint32_t track, tf_sorted *c)
{
	tf_merge_free(&c->spans);
	tf_merge_free(&c->events);
	if (track >= so->ntracks)
		return;
	strack *t = &so->tracks[track];
	tf_runs_free(&t->span_runs);
	tf_runs_free(&t->event_runs);
	so->mem_bytes -= t->mem_bytes;
	t->mem_bytes = 0;
	free(t->spans);
	free(t->marks);
	free(t->events);
	t->spans = NULL;
	t->marks = NULL;
	t->events = NULL;
	t->nspans = t->capspans = t->nmarks = t->capmarks = t->nevents = t->capevents = 0;
}

/* ---- construction ---- */

tf_sorter *tf_sorter_new(tf_ctx *ctx)
{
	tf_sorter *so = calloc(1, sizeof(*so));
	if (!so)
		return NULL;
	so->ctx = ctx;
	so->diag = tf_ctx_diag(ctx);
	so->spill_at = tf_ctx_opts(ctx)->sort_mem_bytes;
	return so;
}

void tf_sorter_free(tf_sorter *so)
{
	if (!so)
		return;
	for (uint32_t i = 0; i < so->ntracks; i++) {
		free(so->tracks[i].spans);
		free(so->tracks[i].marks);
		free(so->tracks[i].events);
		tf_runs_free(&so->tracks[i].span_runs);
		tf_runs_free(&so->tracks[i].event_runs);
	}
	free(so->tracks);
	tf_spill_free(so->spill);
	free(so);
}
