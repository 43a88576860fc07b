/* overview_finish.c - once every span went by: the rows (one per rank and
 * step), the GPU breakdown over each device's union of activities, the
 * collectives matched across ranks (arrival, lateness, waits) and the MPI
 * messages matched (late sender, late receiver).  docs/overview.md defines
 * each number. */
#include <stdlib.h>
#include <string.h>
#include "tracefold/overview.h"
#include "overview_int.h"
#include "grow.h"
#include "sat.h"

/* A union of intervals: sorted, disjoint, with the covered length before
 * each piece (pre[i]: of pieces 0..i-1). */
typedef struct ov_union {
	int64_t *a, *b, *pre;
	size_t n, cap;
} ov_union;

static int union_add(ov_union *u, int64_t a, int64_t b)
{
	if (b <= a)
		return 0;
	if (u->n && a <= u->b[u->n - 1]) { /* added in start order: overlaps the last */
		if (b > u->b[u->n - 1])
			u->b[u->n - 1] = b;
		return 0;
	}
	size_t c = u->cap;
	if (tf_grow_n((void **)&u->a, &c, u->n + 1, sizeof(int64_t), false) < 0)
		return TF_ENOMEM;
	c = u->cap;
	if (tf_grow_n((void **)&u->b, &c, u->n + 1, sizeof(int64_t), false) < 0)
		return TF_ENOMEM;
	c = u->cap;
	if (tf_grow_n((void **)&u->pre, &c, u->n + 1, sizeof(int64_t), false) < 0)
		return TF_ENOMEM;
	u->cap = c;
	u->a[u->n] = a;
	u->b[u->n] = b;
	u->n++;
	return 0;
}

static void union_seal(ov_union *u)
{
	int64_t s = 0;
	for (size_t i = 0; i < u->n; i++) {
		u->pre[i] = s;
		s = tf_sat_add(s, tf_sat_sub(u->b[i], u->a[i]));
	}
}

/* The length of the union before x. */
static int64_t union_before(const ov_union *u, int64_t x)
{
	size_t lo = 0, hi = u->n; /* pieces starting before x: [0, lo) */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (u->a[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return 0;
	int64_t end = u->b[lo - 1] < x ? u->b[lo - 1] : x;
	return tf_sat_add(u->pre[lo - 1], tf_sat_sub(end, u->a[lo - 1]));
}

static int64_t union_cover(const ov_union *u, int64_t a, int64_t b)
{
	return b > a ? tf_sat_sub(union_before(u, b), union_before(u, a)) : 0;
}

static void union_free(ov_union *u)
{
	free(u->a);
	free(u->b);
	free(u->pre);
	*u = (ov_union){ 0 };
}

static uint64_t row_key(uint32_t rank, uint32_t step)
{
	return tf_mix64((uint64_t)rank << 32 | step) ^ 0x5bd1e995u;
}

static uint64_t num_key(uint32_t rank, int64_t n)
{
	return tf_mix64(tf_mix64((uint64_t)rank) ^ (uint64_t)n);
}

static int add_row(tf_ov *v, tf_hmap *by_step, uint32_t rank, uint32_t step)
{
	if (tf_hmap_get(by_step, row_key(rank, step)) != UINT32_MAX)
		return 0;
	if (tf_grow_n((void **)&v->rows, &v->caprows, v->nrows + 1, sizeof(ov_row), false) < 0)
		return TF_ENOMEM;
	ov_row *w = &v->rows[v->nrows];
	*w = (ov_row){ .rank = rank, .step = step };
	w->s.rank = v->ranks[rank].rank;
	if (step == OV_NO_STEP) {
		const ov_rank *r = &v->ranks[rank];
		w->s.start_ns = r->any_time ? r->min_ns : 0;
		w->cpu_end = r->any_time ? r->max_ns : 0;
		w->s.mpi_ns = r->mpi_ns;
		for (uint32_t t = 0; t < v->ntracks; t++)
			if (v->tracks[t].known && !v->tracks[t].gpu && v->tracks[t].rank == rank &&
			    v->tracks[t].depth1_ns > w->s.cpu_ns)
				w->s.cpu_ns = v->tracks[t].depth1_ns;
	} else {
		const tf_step *st = &v->o.steps[step];
		w->s.step = st->n;
		w->s.start_ns = st->start_ns;
		w->cpu_end = st->end_ns;
		w->s.cpu_ns = v->step_cpu[step] > 0 ? v->step_cpu[step] : 0;
		w->s.mpi_ns = v->step_mpi[step];
	}
	w->s.time_ns = tf_sat_sub(w->cpu_end, w->s.start_ns);
	if (tf_hmap_put(by_step, row_key(rank, step), (uint32_t)v->nrows) < 0)
		return TF_ENOMEM;
	v->nrows++;
	return 0;
}

/* The rank (index) of step i: its region's track's, else the rank of its
 * input (or the rank it names). */
static uint32_t step_rank(const tf_ov *v, size_t i)
{
	if (v->step_track[i] != UINT32_MAX)
		return v->tracks[v->step_track[i]].rank;
	const tf_step *st = &v->o.steps[i];
	for (uint32_t r = 0; r < v->nranks; r++)
		if (v->ranks[r].input == st->input && (st->rank == TF_STEP_ANY_RANK || st->rank == v->ranks[r].rank))
			return r;
	return UINT32_MAX;
}

/* The rows of the ranks first met in input `input` (all: UINT32_MAX) that
 * have none yet, and the GPU activities' rows. */
static int make_rows(tf_ov *v, tf_hmap *by_step, uint32_t input)
{
	for (size_t i = 0; i < v->o.nsteps; i++) {
		if ((input != UINT32_MAX && v->o.steps[i].input != input) || v->step_track[i] == UINT32_MAX)
			continue; /* another input's, or its region was not handed over (--steps, --window) */
		uint32_t r = step_rank(v, i);
		if (r == UINT32_MAX || v->ranks[r].rows_done)
			continue;
		v->ranks[r].has_steps = true;
		TF_TRY(add_row(v, by_step, r, (uint32_t)i));
	}
	for (uint32_t r = 0; r < v->nranks; r++) {
		if (v->ranks[r].rows_done || (input != UINT32_MAX && v->ranks[r].input != input))
			continue;
		if (!v->ranks[r].has_steps)
			TF_TRY(add_row(v, by_step, r, OV_NO_STEP));
		v->ranks[r].rows_done = true;
	}
	/* each GPU activity's row, and the steps' time to the end of their GPU work */
	for (size_t i = 0; i < v->nacts; i++) {
		ov_act *a = &v->acts[i];
		uint32_t r = v->device_rank[a->device];
		bool has_steps = v->ranks[r].has_steps;
		uint32_t row = tf_hmap_get(by_step, row_key(r, has_steps ? a->step : OV_NO_STEP));
		if (has_steps && a->step == OV_NO_STEP)
			row = UINT32_MAX;
		a->row = row;
		int64_t t = row != UINT32_MAX ? tf_sat_sub(a->end, v->rows[row].s.start_ns) : 0;
		if (row != UINT32_MAX && t > v->rows[row].s.time_ns)
			v->rows[row].s.time_ns = t;
	}
	return 0;
}

static int wait_add(tf_ov *v, uint32_t rank, uint32_t node, int kind, int64_t ns);

static const tf_ov *g_sort; /* for the comparators of one finish (qsort has no context) */

static int act_cmp(const void *x, const void *y)
{
	const ov_act *a = x, *b = y;
	if (a->device != b->device)
		return a->device < b->device ? -1 : 1;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return (a->end > b->end) - (a->end < b->end);
}

static int act_row_cmp(const void *x, const void *y)
{
	const ov_act *a = x, *b = y;
	if (a->row != b->row)
		return a->row < b->row ? -1 : 1;
	if (a->cat != b->cat)
		return a->cat < b->cat ? -1 : 1;
	return (a->start > b->start) - (a->start < b->start);
}

/* The GPU numbers of the rows of one device's rank, from its activities
 * acts[0..n) (sorted by start). */
static int device_rows(tf_ov *v, ov_act *acts, size_t n)
{
	ov_union all = { 0 }, comp = { 0 }, cat = { 0 };
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++) {
		rc = union_add(&all, acts[i].start, acts[i].end);
		if (rc == 0 && acts[i].cat == TF_OV_GPU_COMPUTE)
			rc = union_add(&comp, acts[i].start, acts[i].end);
	}
	if (rc) {
		union_free(&all);
		union_free(&comp);
		return rc;
	}
	union_seal(&all);
	union_seal(&comp);
	uint32_t rank = v->device_rank[acts[0].device];
	for (size_t i = 0; i < v->nrows; i++) {
		ov_row *w = &v->rows[i];
		if (w->rank != rank)
			continue;
		int64_t end = tf_sat_add(w->s.start_ns, w->s.time_ns);
		w->s.gpu_idle_ns = tf_sat_add(w->s.gpu_idle_ns, tf_sat_sub(w->s.time_ns, union_cover(&all, w->s.start_ns, end)));
	}
	qsort(acts, n, sizeof(ov_act), act_row_cmp);
	for (size_t i = 0; i < n && rc == 0;) {
		size_t j = i;
		cat.n = 0;
		while (j < n && acts[j].row == acts[i].row && acts[j].cat == acts[i].cat && rc == 0)
			rc = union_add(&cat, acts[j].start, acts[j].end), j++;
		if (rc || acts[i].row == UINT32_MAX) {
			i = j;
			continue;
		}
		union_seal(&cat);
		tf_ov_step *s = &v->rows[acts[i].row].s;
		int64_t len = union_cover(&cat, INT64_MIN, INT64_MAX);
		int64_t *f[] = { &s->gpu_compute_ns, &s->gpu_comm_ns, &s->gpu_memcpy_ns, &s->gpu_memset_ns };
		*f[acts[i].cat] += len;
		if (acts[i].cat == TF_OV_GPU_COMM)
			for (size_t k = 0; k < cat.n; k++)
				s->comm_exposed_ns += (cat.b[k] - cat.a[k]) - union_cover(&comp, cat.a[k], cat.b[k]);
		i = j;
	}
	union_free(&all);
	union_free(&comp);
	union_free(&cat);
	return rc;
}

static int gpu_rows(tf_ov *v)
{
	if (v->nacts)
		qsort(v->acts, v->nacts, sizeof(ov_act), act_cmp);
	for (size_t i = 0; i < v->nacts;) {
		size_t j = i;
		while (j < v->nacts && v->acts[j].device == v->acts[i].device)
			j++;
		TF_TRY(device_rows(v, v->acts + i, j - i));
		i = j;
	}
	return 0;
}

static int call_cmp(const void *x, const void *y)
{
	const ov_call *a = x, *b = y;
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	if (a->rank != b->rank) {
		int64_t ra = g_sort->ranks[a->rank].rank, rb = g_sort->ranks[b->rank].rank;
		return ra < rb ? -1 : 1;
	}
	return (a->start > b->start) - (a->start < b->start);
}

static int arrival_cmp(const void *x, const void *y)
{
	const ov_call *a = *(ov_call *const *)x, *b = *(ov_call *const *)y;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	int64_t ra = g_sort->ranks[a->rank].rank, rb = g_sort->ranks[b->rank].rank;
	return (ra > rb) - (ra < rb);
}

static int64_t floor_mean(int64_t a, int64_t b)
{
	return (a >> 1) + (b >> 1) + (a & b & 1); /* floor((a + b) / 2) without overflow */
}

/* One collective: the k calls of its ranks, in arrival order. */
static int one_collective(tf_ov *v, ov_call **in, size_t k, tf_hmap *by_num)
{
	qsort(in, k, sizeof(ov_call *), arrival_cmp);
	int64_t m = k & 1 ? in[k / 2]->start : floor_mean(in[k / 2 - 1]->start, in[k / 2]->start);
	const ov_call *med = in[(k - 1) / 2];
	if (!med->in_step) {
		v->res.coll_no_step++;
		return 0;
	}
	int64_t n = med->stepn;
	v->res.coll_matched++;
	int64_t last = in[k - 1]->start;
	for (size_t i = 0; i < k; i++) {
		const ov_call *c = in[i];
		int64_t until = c->end < last ? c->end : last;
		int64_t wait = until > c->start ? until - c->start : 0;
		TF_TRY(wait_add(v, c->rank, c->node, TF_OV_COLL_WAIT, wait));
		uint32_t row = tf_hmap_get(by_num, num_key(c->rank, v->ranks[c->rank].has_steps ? n : 0));
		if (row == UINT32_MAX)
			continue;
		tf_ov_step *s = &v->rows[row].s;
		int64_t late = c->start - m;
		if (!s->ncoll || late > s->late_ns)
			s->late_ns = late;
		s->ncoll++;
		s->comm_wait_ns = tf_sat_add(s->comm_wait_ns, wait);
	}
	return 0;
}

static int match_collectives(tf_ov *v, tf_hmap *by_num)
{
	if (v->ncalls)
		qsort(v->calls, v->ncalls, sizeof(ov_call), call_cmp);
	size_t *first = malloc((v->nranks + 1) * sizeof(size_t));
	size_t *cnt = malloc((v->nranks + 1) * sizeof(size_t));
	ov_call **in = malloc((v->nranks + 1) * sizeof(ov_call *));
	int rc = first && cnt && in ? 0 : TF_ENOMEM;
	for (size_t i = 0; i < v->ncalls && rc == 0;) {
		size_t j = i, nr = 0, most = 0;
		while (j < v->ncalls && v->calls[j].key == v->calls[i].key) { /* the key's ranks */
			size_t s = j;
			while (j < v->ncalls && v->calls[j].key == v->calls[s].key && v->calls[j].rank == v->calls[s].rank)
				j++;
			first[nr] = s;
			cnt[nr] = j - s;
			most = cnt[nr] > most ? cnt[nr] : most;
			nr++;
		}
		for (size_t x = 0; x < most && rc == 0; x++) { /* the x-th call of every rank */
			size_t k = 0;
			for (size_t r = 0; r < nr; r++)
				if (x < cnt[r])
					in[k++] = &v->calls[first[r] + x];
			if (k < 2)
				v->res.coll_unmatched += k;
			else
				rc = one_collective(v, in, k, by_num);
		}
		i = j;
	}
	free(first);
	free(cnt);
	free(in);
	return rc;
}

/* The key a send or receive matches on: (sender, receiver, communicator, tag). */
static void msg_key(const ov_msg *m, int64_t k[4])
{
	k[0] = m->send ? m->rank : m->peer;
	k[1] = m->send ? m->peer : m->rank;
	k[2] = m->comm;
	k[3] = m->tag;
}

/* Sends and receives in the order they match in: the key, the sends
 * first, then time. */
static int msg_cmp(const void *x, const void *y)
{
	const ov_msg *a = x, *b = y;
	int64_t ka[4], kb[4];
	msg_key(a, ka);
	msg_key(b, kb);
	for (int i = 0; i < 4; i++)
		if (ka[i] != kb[i])
			return ka[i] < kb[i] ? -1 : 1;
	if (a->send != b->send)
		return a->send ? -1 : 1;
	return (a->ts > b->ts) - (a->ts < b->ts);
}

static bool same_key(const ov_msg *a, const ov_msg *b)
{
	int64_t ka[4], kb[4];
	msg_key(a, ka);
	msg_key(b, kb);
	return !memcmp(ka, kb, sizeof ka);
}

static int wait_add(tf_ov *v, uint32_t rank, uint32_t node, int kind, int64_t ns)
{
	if (ns <= 0)
		return 0;
	v->ranks[rank].wait[kind] = tf_sat_add(v->ranks[rank].wait[kind], ns);
	v->res.wait_ns[kind] = tf_sat_add(v->res.wait_ns[kind], ns);
	return tf_ov_add_wait(v, node, kind, ns);
}

/* A wait of a call: late sender on a receive call, late receiver on a
 * send call, one per matched message; a call that completes several
 * (MPI_Waitall) waits once, the largest (Scalasca's rule). */
typedef struct msg_wait {
	uint32_t rank, node;
	uint8_t kind;
	int64_t start, ns;
} msg_wait;

static int msg_wait_cmp(const void *x, const void *y)
{
	const msg_wait *a = x, *b = y;
	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return (a->node > b->node) - (a->node < b->node);
}

/* A matched pair's wait, if any, into w[*n]. */
static void msg_pair(const ov_msg *sd, const ov_msg *rv, msg_wait *w, size_t *n)
{
	if (sd->start > rv->start) {
		int64_t until = sd->start < rv->end ? sd->start : rv->end;
		if (until > rv->start)
			w[(*n)++] = (msg_wait){ rv->rank_idx, rv->node, TF_OV_LATE_SENDER, rv->start, until - rv->start };
	} else if (rv->start > sd->start && sd->end > rv->start) {
		w[(*n)++] = (msg_wait){ sd->rank_idx, sd->node, TF_OV_LATE_RECEIVER, sd->start, rv->start - sd->start };
	}
}

/* The calls' waits: the largest of each call's (same rank, kind, start
 * and call path). */
static int msg_waits(tf_ov *v, msg_wait *w, size_t n)
{
	if (n)
		qsort(w, n, sizeof(msg_wait), msg_wait_cmp);
	for (size_t i = 0; i < n;) {
		size_t j = i;
		int64_t most = 0;
		while (j < n && !msg_wait_cmp(&w[i], &w[j]))
			most = w[j].ns > most ? w[j].ns : most, j++;
		TF_TRY(wait_add(v, w[i].rank, w[i].node, w[i].kind, most));
		i = j;
	}
	return 0;
}

static int match_messages(tf_ov *v)
{
	msg_wait *w = malloc(v->nmsgs * sizeof(msg_wait) + 1);
	size_t nw = 0;
	if (!w)
		return TF_ENOMEM;
	if (v->nmsgs)
		qsort(v->msgs, v->nmsgs, sizeof(ov_msg), msg_cmp);
	for (size_t i = 0; i < v->nmsgs;) {
		size_t j = i;
		while (j < v->nmsgs && same_key(&v->msgs[i], &v->msgs[j]))
			j++;
		size_t ns = 0;
		while (i + ns < j && v->msgs[i + ns].send)
			ns++;
		size_t nr = j - i - ns, pairs = ns < nr ? ns : nr;
		v->res.msg_matched += pairs;
		v->res.msg_unmatched += ns + nr - 2 * pairs;
		for (size_t p = 0; p < pairs; p++)
			msg_pair(&v->msgs[i + p], &v->msgs[i + ns + p], w, &nw);
		i = j;
	}
	int rc = msg_waits(v, w, nw);
	free(w);
	return rc;
}

static int i64_cmp(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
	return (a > b) - (a < b);
}

static int row_cmp(const void *x, const void *y)
{
	const ov_row *a = x, *b = y;
	if (a->s.rank != b->s.rank)
		return a->s.rank < b->s.rank ? -1 : 1;
	return (a->s.step > b->s.step) - (a->s.step < b->s.step);
}

static int straggler_cmp(const void *x, const void *y)
{
	const tf_ov_straggler *a = x, *b = y;
	if (a->late_ns != b->late_ns)
		return a->late_ns > b->late_ns ? -1 : 1;
	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	return (a->step > b->step) - (a->step < b->step);
}

static int wait_cmp(const void *x, const void *y)
{
	const tf_ov_wait *a = x, *b = y;
	if (a->ns != b->ns)
		return a->ns > b->ns ? -1 : 1;
	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	return (a->node > b->node) - (a->node < b->node);
}

/* --late-min, the bound of each step, the stragglers. */
static int conclude_rows(tf_ov *v)
{
	tf_ov_result *res = &v->res;
	int64_t *t = malloc((v->nrows + 1) * sizeof(int64_t));
	if (!t)
		return TF_ENOMEM;
	for (size_t i = 0; i < v->nrows; i++)
		t[i] = v->rows[i].s.time_ns;
	if (v->nrows)
		qsort(t, v->nrows, sizeof(int64_t), i64_cmp);
	int64_t med = v->nrows ? (v->nrows & 1 ? t[v->nrows / 2] : floor_mean(t[v->nrows / 2 - 1], t[v->nrows / 2])) : 0;
	free(t);
	res->late_min_ns = v->o.late_min_ns >= 0 ? v->o.late_min_ns : med / 10 > 1000 ? med / 10 : 1000;
	size_t nstrag = 0;
	for (size_t i = 0; i < v->nrows; i++) {
		tf_ov_step *s = &v->rows[i].s;
		if (!v->ranks[v->rows[i].rank].devices)
			s->bound = TF_OV_BOUND_CPU;
		else if (s->gpu_idle_ns < s->time_ns / 2)
			s->bound = TF_OV_BOUND_GPU;
		else
			s->bound = s->cpu_ns >= s->time_ns / 2 ? TF_OV_BOUND_LAUNCH : TF_OV_BOUND_OTHER;
		if (!s->ncoll)
			s->late_ns = 0;
		else if (s->late_ns >= res->late_min_ns)
			nstrag++;
	}
	res->stragglers = malloc((nstrag + 1) * sizeof(tf_ov_straggler));
	if (!res->stragglers)
		return TF_ENOMEM;
	for (size_t i = 0; i < v->nrows; i++) {
		const tf_ov_step *s = &v->rows[i].s;
		if (s->ncoll && s->late_ns >= res->late_min_ns)
			res->stragglers[res->nstragglers++] = (tf_ov_straggler){ s->rank, s->step, s->late_ns };
	}
	if (res->nstragglers)
		qsort(res->stragglers, res->nstragglers, sizeof(tf_ov_straggler), straggler_cmp);
	return 0;
}

/* The result's ranks and steps, in rank order. */
static int make_result(tf_ov *v)
{
	tf_ov_result *res = &v->res;
	if (v->nrows)
		qsort(v->rows, v->nrows, sizeof(ov_row), row_cmp);
	res->steps = malloc((v->nrows + 1) * sizeof(tf_ov_step));
	res->ranks = calloc(v->nranks + 1, sizeof(tf_ov_rank));
	if (!res->steps || !res->ranks)
		return TF_ENOMEM;
	for (size_t i = 0; i < v->nrows; i++) {
		res->steps[i] = v->rows[i].s;
		if (!res->nranks || res->ranks[res->nranks - 1].rank != v->rows[i].s.rank) {
			const ov_rank *r = &v->ranks[v->rows[i].rank];
			tf_ov_rank *o = &res->ranks[res->nranks++];
			*o = (tf_ov_rank){ .rank = r->rank, .input = r->input, .threads = r->threads,
				.devices = r->devices, .first = i, .mpi_ns = r->mpi_ns, .main_track = r->main_track };
			memcpy(o->wait_ns, r->wait, sizeof o->wait_ns);
			res->devices += r->devices;
			res->threads += r->threads;
			if (r->any_time) {
				if (!res->any_time || r->min_ns < res->start_ns)
					res->start_ns = r->min_ns;
				if (!res->any_time || r->max_ns > res->end_ns)
					res->end_ns = r->max_ns;
				res->any_time = true;
			}
		}
		res->ranks[res->nranks - 1].nsteps++;
	}
	res->nsteps = v->nrows;
	bool any_steps = false;
	for (uint32_t r = 0; r < v->nranks; r++)
		any_steps |= v->ranks[r].has_steps;
	res->steps_from = !any_steps ? TF_OV_STEPS_WHOLE : v->o.step_region ? TF_OV_STEPS_REGION : TF_OV_STEPS_PROFILER;
	res->mpi = v->mpi;
	if (res->nwaits)
		qsort(res->waits, res->nwaits, sizeof(tf_ov_wait), wait_cmp);
	return 0;
}

static int gloo_cmp(const void *x, const void *y)
{
	const ov_call *a = x, *b = y;
	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return (a->start > b->start) - (a->start < b->start);
}

/* The collective's name of a call's key (without "@group"). */
static tf_str key_name(tf_ov *v, tf_str key)
{
	const tf_strtab *st = tf_ctx_strtab(v->ctx);
	const char *s = tf_strtab_get(st, key), *at = strchr(s, '@');
	return at ? tf_strtab_intern(tf_ctx_strtab(v->ctx), s, (size_t)(at - s)) : key;
}

/* gloo: a c10d call only queues the work and returns; gloo's worker runs
 * it (gloo:all_reduce, on another thread) until every rank came.  The
 * n-th call of a collective on a rank ends no sooner than the n-th worker
 * region of that collective on the rank (docs/overview.md). */
static int gloo_ends(tf_ov *v)
{
	if (!v->ngloo)
		return 0;
	ov_call *c = malloc(v->ncalls * sizeof(ov_call) + 1);
	if (!c)
		return TF_ENOMEM;
	for (size_t i = 0; i < v->ncalls; i++) { /* in (rank, name, start) order, with their place */
		c[i] = v->calls[i];
		c[i].key = key_name(v, v->calls[i].key);
		c[i].node = (uint32_t)i;
		if (c[i].key == (tf_str)-1) {
			free(c);
			return TF_ENOMEM;
		}
	}
	qsort(c, v->ncalls, sizeof(ov_call), gloo_cmp);
	qsort(v->gloo, v->ngloo, sizeof(ov_call), gloo_cmp);
	size_t g = 0;
	for (size_t i = 0; i < v->ncalls;) {
		size_t j = i;
		while (j < v->ncalls && c[j].rank == c[i].rank && c[j].key == c[i].key)
			j++;
		while (g < v->ngloo && gloo_cmp(&v->gloo[g], &(ov_call){ .rank = c[i].rank, .key = c[i].key,
									  .start = INT64_MIN }) < 0)
			g++;
		for (size_t k = i; k < j && g < v->ngloo && v->gloo[g].rank == c[i].rank && v->gloo[g].key == c[i].key;
		     k++, g++)
			if (v->gloo[g].end > v->calls[c[k].node].end)
				v->calls[c[k].node].end = v->gloo[g].end;
		i = j;
	}
	free(c);
	free(v->gloo);
	v->gloo = NULL;
	v->ngloo = v->capgloo = 0;
	return 0;
}

/* Each rank's main thread: the thread of its steps, else the busiest. */
static void main_tracks(tf_ov *v)
{
	for (uint32_t r = 0; r < v->nranks; r++)
		v->ranks[r].main_track = UINT32_MAX;
	for (uint32_t t = 0; t < v->ntracks; t++) {
		const ov_track *k = &v->tracks[t];
		if (!k->known || k->gpu)
			continue;
		uint32_t *m = &v->ranks[k->rank].main_track;
		if (*m == UINT32_MAX || k->had_step > v->tracks[*m].had_step ||
		    (k->had_step == v->tracks[*m].had_step && k->depth1_ns > v->tracks[*m].depth1_ns))
			*m = t;
	}
}

/* The rows of the ranks first met in input (UINT32_MAX: every rank), and
 * the GPU activities read so far into them, which are then forgotten: a
 * device's activities are all in its input. */
static int input_rows(tf_ov *v, uint32_t input)
{
	int rc = make_rows(v, &v->by_step, input);
	if (rc == 0)
		rc = gpu_rows(v);
	free(v->acts);
	v->acts = NULL;
	v->nacts = v->capacts = 0;
	return rc;
}

int tf_ov_input_done(tf_ov *v, uint32_t input)
{
	return v->local_done ? 0 : input_rows(v, input);
}

int tf_ov_local(tf_ov *v)
{
	if (v->local_done)
		return 0;
	main_tracks(v);
	int rc = input_rows(v, UINT32_MAX);
	if (rc == 0)
		rc = gloo_ends(v);
	for (size_t i = 0; i < v->ncalls && rc == 0; i++) {
		ov_call *c = &v->calls[i];
		c->in_step = !v->ranks[c->rank].has_steps || c->step != OV_NO_STEP;
		c->stepn = v->ranks[c->rank].has_steps && c->step != OV_NO_STEP ? v->o.steps[c->step].n : 0;
	}
	v->local_done = rc == 0;
	return rc;
}

int tf_ov_finish(tf_ov *v, const tf_ov_result **out)
{
	tf_hmap by_num = { 0 };
	g_sort = v;
	int rc = tf_ov_local(v);
	tf_ov_tel_rows(v);
	for (size_t i = 0; i < v->nrows && rc == 0; i++)
		if (tf_hmap_get(&by_num, num_key(v->rows[i].rank, v->rows[i].s.step)) == UINT32_MAX &&
		    tf_hmap_put(&by_num, num_key(v->rows[i].rank, v->rows[i].s.step), (uint32_t)i) < 0)
			rc = TF_ENOMEM;
	if (rc == 0)
		rc = match_collectives(v, &by_num);
	if (rc == 0)
		rc = match_messages(v);
	if (rc == 0)
		rc = conclude_rows(v);
	if (rc == 0)
		rc = make_result(v);
	g_sort = NULL;
	tf_hmap_free(&by_num);
	*out = rc == 0 ? &v->res : NULL;
	return rc;
}
