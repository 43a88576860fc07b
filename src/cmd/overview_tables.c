/* overview_tables.c - what `tracefold overview` takes from the aggregate
 * (its labels rank and step): the call path where each straggler spent
 * the difference, and the "where the time goes" tables (docs/overview.md). */
#include <stdlib.h>
#include <string.h>
#include "cmd.h"
#include "overview.h"
#include "hmap.h"
#include "grow.h"
#include "sat.h"

/* The rank and step labels of a sample (INT64_MIN none); waiting: the
 * thread only waits. */
static void sample_labels(const tf_agg *a, uint32_t ls, tf_str krank, tf_str kstep, int64_t *rank, int64_t *step)
{
	const tf_label *l;
	int n = tf_agg_labelset_get(a, ls, &l);
	*rank = *step = INT64_MIN;
	for (int i = 0; i < n; i++) {
		if (l[i].key == krank) /* a string: tf_track_labels */
			*rank = l[i].str ? strtoll(tf_strtab_get(tf_agg_strtab(a), l[i].str), NULL, 10) : l[i].num;
		else if (l[i].key == kstep && !l[i].str)
			*step = l[i].num;
	}
}

/* The call path "a;b;c" of node (root first), malloc'd. */
char *tf_ov_path_text(const tf_agg *a, uint32_t node)
{
	const tf_strtab *st = tf_agg_strtab(a);
	size_t len = 0;
	for (uint32_t n = node; n != TF_AGG_ROOT; n = tf_agg_node_get(a, n)->parent)
		len += tf_strtab_len(st, tf_agg_node_get(a, n)->frame) + 1;
	char *s = malloc(len + 1);
	if (!s)
		return NULL;
	size_t end = len ? len - 1 : 0; /* the text is len - 1 bytes: no ';' before the root */
	s[end] = 0;
	for (uint32_t n = node; n != TF_AGG_ROOT; n = tf_agg_node_get(a, n)->parent) {
		tf_str f = tf_agg_node_get(a, n)->frame;
		size_t fl = tf_strtab_len(st, f);
		end -= fl;
		memcpy(s + end, tf_strtab_get(st, f), fl);
		if (end)
			s[--end] = ';';
	}
	return s;
}

static int i64_cmp(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
	return (a > b) - (a < b);
}

/* The rank and step of each label set (INT64_MIN none), for where_of. */
typedef struct ls_labels {
	int64_t *rank, *step;
	uint32_t n;
} ls_labels;

/* where_of's sums: per call path met (in the order met), its wall time per rank. */
typedef struct where_acc {
	const tf_ov_result *res;
	tf_hmap idx;
	uint32_t *nodes, nn, capn;
	int64_t *v;
	size_t capv;
} where_acc;

/* Adds a sample's wall time w of rank `rank` at node (w > 0). */
static int where_add(where_acc *c, uint32_t node, int64_t rank, int64_t w)
{
	size_t nr = c->res->nranks, ri = 0;
	while (ri < nr && c->res->ranks[ri].rank != rank)
		ri++;
	if (ri == nr)
		return 0;
	uint32_t k = tf_hmap_get(&c->idx, tf_mix64(node));
	if (k == UINT32_MAX) {
		k = c->nn;
		if (tf_grow((void **)&c->nodes, &c->capn, c->nn + 1, sizeof(uint32_t)) < 0 ||
		    tf_grow_n((void **)&c->v, &c->capv, (size_t)(c->nn + 1) * nr, sizeof(int64_t), true) < 0 ||
		    tf_hmap_put(&c->idx, tf_mix64(node), k) < 0)
			return TF_ENOMEM;
		c->nodes[c->nn++] = node;
	}
	c->v[(size_t)k * nr + ri] = tf_sat_add(c->v[(size_t)k * nr + ri], w);
	return 0;
}

/* The samples under the stragglers' steps set aside (agg.h), read in one
 * pass: per step, each (call path, label set) summed over its notes, in
 * the order of its first note (the order the samples were made in). */
typedef struct stepped_one_step {
	tf_hmap idx;
	tf_agg_stepped *s;
	uint32_t ns, caps;
} stepped_one_step;

typedef struct stepped_acc {
	const int32_t *slot;    /* label set -> index into per, -1 not a straggler's step */
	uint32_t nls;
	stepped_one_step *per;  /* one per distinct step of a straggler */
} stepped_acc;

static int stepped_one(void *arg, const tf_agg_stepped *r)
{
	stepped_acc *c = arg;
	if (r->labelset >= c->nls || c->slot[r->labelset] < 0)
		return 0;
	stepped_one_step *p = &c->per[c->slot[r->labelset]];
	uint64_t key = tf_mix64((uint64_t)r->node << 32 | r->labelset);
	uint32_t k = tf_hmap_get(&p->idx, key);
	if (k == UINT32_MAX) {
		if (tf_grow((void **)&p->s, &p->caps, p->ns + 1, sizeof(*p->s)) < 0 || tf_hmap_put(&p->idx, key, p->ns) < 0)
			return TF_ENOMEM;
		p->s[k = p->ns++] = (tf_agg_stepped){ r->node, r->labelset, 0 };
	}
	p->s[k].wall = tf_sat_add(p->s[k].wall, r->wall);
	return 0;
}

/* Step n's sums (stepped_one) added to c. */
static int where_stepped(where_acc *c, const ls_labels *ll, const stepped_one_step *p)
{
	int rc = 0;
	for (uint32_t k = 0; p && k < p->ns && rc == 0; k++)
		if (p->s[k].wall > 0)
			rc = where_add(c, p->s[k].node, ll->rank[p->s[k].labelset], p->s[k].wall);
	return rc;
}

/* The node where rank r spent the most more than the median rank in step
 * n (self wall time of CPU call paths), UINT32_MAX none. */
static uint32_t where_of(const tf_ov_report *rp, const ls_labels *ll, const stepped_one_step *stepped, int64_t r,
			 int64_t n, int64_t *excess)
{
	const tf_agg *a = rp->agg;
	const tf_ov_result *res = rp->res;
	size_t nr = res->nranks;
	where_acc c = { .res = res };
	uint32_t best = UINT32_MAX;
	*excess = 0;
	for (size_t i = 0; i < tf_agg_nsamples(a); i++) {
		tf_agg_sample s = tf_agg_sample_get(a, i);
		int64_t w = tf_agg_sample_value(a, i, rp->wall_type);
		if (w <= 0 || s.labelset >= ll->n)
			continue;
		int64_t step = ll->step[s.labelset];
		if (step != n && !(res->steps_from == TF_OV_STEPS_WHOLE && step == INT64_MIN))
			continue;
		if (where_add(&c, s.node, ll->rank[s.labelset], w) < 0)
			goto out;
	}
	if (where_stepped(&c, ll, stepped) < 0)
		goto out;
	int64_t *tmp = malloc((nr + 1) * sizeof(int64_t));
	for (uint32_t k = 0; tmp && k < c.nn; k++) {
		size_t ri = 0;
		while (ri < nr && res->ranks[ri].rank != r)
			ri++;
		memcpy(tmp, c.v + (size_t)k * nr, nr * sizeof(int64_t));
		int64_t mine = ri < nr ? tmp[ri] : 0;
		qsort(tmp, nr, sizeof(int64_t), i64_cmp);
		int64_t med = nr & 1 ? tmp[nr / 2] : tmp[nr / 2 - 1] / 2 + tmp[nr / 2] / 2;
		if (mine - med > *excess || (best == UINT32_MAX && mine - med > 0)) {
			*excess = mine - med;
			best = c.nodes[k];
		}
	}
	free(tmp);
out:
	tf_hmap_free(&c.idx);
	free(c.nodes);
	free(c.v);
	return best;
}

/* The distinct steps of the stragglers, sorted, in *steps (*n of them);
 * each label set's index among them (-1 none) in slot. */
static int straggler_steps(const tf_ov_result *res, const ls_labels *ll, int64_t **steps, size_t *n, int32_t *slot)
{
	int64_t *v = malloc((res->nstragglers + 1) * sizeof(int64_t));
	if (!v)
		return TF_ENOMEM;
	for (size_t i = 0; i < res->nstragglers; i++)
		v[i] = res->stragglers[i].step;
	qsort(v, res->nstragglers, sizeof(int64_t), i64_cmp);
	size_t d = 0;
	for (size_t i = 0; i < res->nstragglers; i++)
		if (!d || v[d - 1] != v[i])
			v[d++] = v[i];
	for (uint32_t i = 0; i < ll->n; i++) {
		int64_t *hit = bsearch(&ll->step[i], v, d, sizeof(int64_t), i64_cmp);
		slot[i] = hit ? (int32_t)(hit - v) : -1;
	}
	*steps = v;
	*n = d;
	return 0;
}

/* The notes of every straggler's step read once (they may be in the
 * temporary file), then each straggler's call path found. */
static int wheres(tf_ov_report *rp, const ls_labels *ll)
{
	const tf_ov_result *res = rp->res;
	int64_t *steps = NULL;
	size_t nsteps = 0;
	int32_t *slot = malloc(((size_t)ll->n + 1) * sizeof(int32_t));
	int rc = slot ? straggler_steps(res, ll, &steps, &nsteps, slot) : TF_ENOMEM;
	stepped_acc sa = { .slot = slot, .nls = ll->n };
	if (rc == 0 && !(sa.per = calloc(nsteps + 1, sizeof(*sa.per))))
		rc = TF_ENOMEM;
	if (rc == 0)
		rc = tf_agg_steps_each(rp->agg, stepped_one, &sa);
	for (size_t i = 0; rc == 0 && i < res->nstragglers; i++) {
		int64_t ex, n = res->stragglers[i].step;
		int64_t *hit = bsearch(&n, steps, nsteps, sizeof(int64_t), i64_cmp);
		uint32_t node = where_of(rp, ll, hit ? &sa.per[hit - steps] : NULL, res->stragglers[i].rank, n, &ex);
		if (node != UINT32_MAX && !(rp->where[i] = tf_ov_path_text(rp->agg, node)))
			rc = TF_ENOMEM;
	}
	for (size_t k = 0; sa.per && k < nsteps; k++) {
		tf_hmap_free(&sa.per[k].idx);
		free(sa.per[k].s);
	}
	free(sa.per);
	free(steps);
	free(slot);
	return rc;
}

int tf_ov_wheres(tf_ov_report *rp)
{
	const tf_ov_result *res = rp->res;
	rp->where = calloc(res->nstragglers + 1, sizeof(char *));
	if (!rp->where)
		return TF_ENOMEM;
	if (!res->nstragglers || rp->wall_type < 0)
		return 0;
	tf_agg *a = rp->agg;
	tf_strtab *st = tf_agg_strtab(a);
	tf_str krank = tf_strtab_intern_cstr(st, "rank"), kstep = tf_strtab_intern_cstr(st, "step");
	ls_labels ll = { .n = tf_agg_nlabelsets(a) };
	ll.rank = malloc(((size_t)ll.n + 1) * sizeof(int64_t));
	ll.step = malloc(((size_t)ll.n + 1) * sizeof(int64_t));
	int rc = ll.rank && ll.step ? 0 : TF_ENOMEM;
	for (uint32_t i = 0; rc == 0 && i < ll.n; i++)
		sample_labels(a, i, krank, kstep, &ll.rank[i], &ll.step[i]);
	if (rc == 0)
		rc = wheres(rp, &ll);
	free(ll.rank);
	free(ll.step);
	return rc == 0 && tf_agg_steps_error(a) ? TF_EIO : rc; /* a note not read back: said by the caller */
}

/* ---- the tables ---- */

typedef struct acc {
	tf_hmap idx;            /* frame -> row */
	tf_str *name;
	int64_t *val;
	int64_t *per_rank;      /* imbalance: row x rank */
	uint32_t n, cap;
	size_t capr;
	int64_t total;
} acc;

static int acc_add(acc *t, tf_str name, int64_t v, size_t rank, size_t nranks)
{
	uint32_t i = tf_hmap_get(&t->idx, tf_mix64(name));
	if (i == UINT32_MAX) {
		uint32_t c1 = t->cap, c2 = t->cap;
		i = t->n;
		if (tf_grow((void **)&t->name, &c1, i + 1, sizeof(tf_str)) < 0 ||
		    tf_grow((void **)&t->val, &c2, i + 1, sizeof(int64_t)) < 0 || tf_hmap_put(&t->idx, tf_mix64(name), i) < 0)
			return TF_ENOMEM;
		t->cap = c1 < c2 ? c1 : c2;
		t->name[i] = name;
		t->val[i] = 0;
		t->n++;
	}
	t->val[i] = tf_sat_add(t->val[i], v);
	t->total = tf_sat_add(t->total, v);
	if (nranks) {
		if (tf_grow_n((void **)&t->per_rank, &t->capr, (size_t)t->n * nranks, sizeof(int64_t), true) < 0)
			return TF_ENOMEM;
		t->per_rank[(size_t)i * nranks + rank] += v;
	}
	return 0;
}

static void acc_free(acc *t)
{
	tf_hmap_free(&t->idx);
	free(t->name);
	free(t->val);
	free(t->per_rank);
}

static bool runtime_frame(const char *s)
{
	return !strncmp(s, "cuda", 4) || !strncmp(s, "hip", 3) || (s[0] == 'c' && s[1] == 'u' && s[2] >= 'A' && s[2] <= 'Z') ||
	       s[0] == '[';
}

static bool python_frame(const char *s, size_t n)
{
	const char *p = memchr(s, '(', n);
	return p && p - s > 3 && !memcmp(p - 3, ".py", 3) && p[1] >= '0' && p[1] <= '9';
}

typedef struct tab_ctx {
	const tf_ov_report *rp;
	const tf_strtab *st;
	tf_str krank, kstep;
	acc t[6];               /* kernels, ops (gpu), functions (cpu), python (cpu), python (gpu), imbalance */
} tab_ctx;

static int take_sample(tab_ctx *c, size_t i)
{
	const tf_agg *a = c->rp->agg;
	const tf_ov_result *res = c->rp->res;
	tf_agg_sample s = tf_agg_sample_get(a, i);
	int64_t g = c->rp->gpu_type >= 0 ? tf_agg_sample_value(a, i, c->rp->gpu_type) : 0;
	int64_t w = c->rp->wall_type >= 0 ? tf_agg_sample_value(a, i, c->rp->wall_type) : 0;
	if (s.node == TF_AGG_ROOT || (g <= 0 && w <= 0))
		return 0;
	const tf_agg_node *leaf = tf_agg_node_get(a, s.node);
	if (g > 0) {
		TF_TRY(acc_add(&c->t[0], leaf->frame, g, 0, 0));
		uint32_t p = leaf->parent;
		while (p != TF_AGG_ROOT && runtime_frame(tf_strtab_get(c->st, tf_agg_node_get(a, p)->frame)))
			p = tf_agg_node_get(a, p)->parent;
		if (p != TF_AGG_ROOT)
			TF_TRY(acc_add(&c->t[1], tf_agg_node_get(a, p)->frame, g, 0, 0));
	}
	if (w > 0) {
		TF_TRY(acc_add(&c->t[2], leaf->frame, w, 0, 0));
		int64_t rank, step;
		sample_labels(a, s.labelset, c->krank, c->kstep, &rank, &step);
		size_t ri = 0;
		while (ri < res->nranks && res->ranks[ri].rank != rank)
			ri++;
		if (ri < res->nranks)
			TF_TRY(acc_add(&c->t[5], leaf->frame, w, ri, res->nranks));
	}
	tf_str seen[64]; /* Python lines: inclusive, each once per sample */
	int ns = 0;
	for (uint32_t p = s.node; p != TF_AGG_ROOT; p = tf_agg_node_get(a, p)->parent) {
		tf_str f = tf_agg_node_get(a, p)->frame;
		if (!python_frame(tf_strtab_get(c->st, f), tf_strtab_len(c->st, f)))
			continue;
		int k = 0;
		while (k < ns && seen[k] != f)
			k++;
		if (k < ns)
			continue;
		if (ns < 64)
			seen[ns++] = f;
		if (w > 0)
			TF_TRY(acc_add(&c->t[3], f, w, 0, 0));
		if (g > 0)
			TF_TRY(acc_add(&c->t[4], f, g, 0, 0));
	}
	return 0;
}

typedef struct rowsort {
	int64_t v;
	uint32_t i;
	const char *name;
} rowsort;

static int rowsort_cmp(const void *x, const void *y)
{
	const rowsort *a = x, *b = y;
	if (a->v != b->v)
		return a->v > b->v ? -1 : 1;
	return strcmp(a->name, b->name);
}

/* The table of acc t: its largest rows; imbalance: by max - mean. */
static int make_table(tab_ctx *c, acc *t, tf_ov_table *out, bool imb)
{
	size_t nr = c->rp->res->nranks;
	rowsort *r = malloc((t->n + 1) * sizeof(rowsort));
	if (!r)
		return TF_ENOMEM;
	size_t m = 0;
	for (uint32_t i = 0; i < t->n; i++) {
		int64_t v = t->val[i];
		if (imb) {
			int64_t mx = 0;
			for (size_t k = 0; k < nr; k++)
				mx = t->per_rank[(size_t)i * nr + k] > mx ? t->per_rank[(size_t)i * nr + k] : mx;
			v = mx - (int64_t)((double)t->val[i] / (double)nr);
			if (v <= 0 || t->val[i] * 100 < t->total) /* even, or under 1% of the time */
				continue;
		}
		r[m++] = (rowsort){ v, i, tf_strtab_get(c->st, t->name[i]) };
	}
	qsort(r, m, sizeof(rowsort), rowsort_cmp);
	size_t keep = m < c->rp->max_rows ? m : c->rp->max_rows;
	out->rows = calloc(keep + 1, sizeof(tf_ov_row));
	if (!out->rows) {
		free(r);
		return TF_ENOMEM;
	}
	for (size_t k = 0; k < keep; k++) {
		tf_ov_row *o = &out->rows[k];
		uint32_t i = r[k].i;
		o->name = strdup(r[k].name);
		o->value = r[k].v;
		o->max_rank = -1;
		if (imb) {
			int64_t mx = -1;
			for (size_t q = 0; q < nr; q++)
				if (t->per_rank[(size_t)i * nr + q] > mx)
					mx = t->per_rank[(size_t)i * nr + q], o->max_rank = c->rp->res->ranks[q].rank;
			double mean = (double)t->val[i] / (double)nr;
			o->share = mean > 0 ? (double)mx / mean : 0;
		} else {
			o->share = t->total > 0 ? (double)r[k].v / (double)t->total : 0;
		}
		out->n++;
		if (!o->name) {
			free(r);
			return TF_ENOMEM;
		}
	}
	free(r);
	return 0;
}

int tf_ov_tables(tf_ov_report *rp)
{
	static const struct { const char *title, *what, *value; } spec[6] = {
		{ "GPU kernels by GPU time", "kernel", "gpu" },
		{ "ops by the GPU time they launched", "op", "gpu" },
		{ "functions by CPU time (self)", "function", "cpu" },
		{ "Python lines by CPU time (inclusive)", "line", "cpu" },
		{ "Python lines by the GPU time they launched", "line", "gpu" },
		{ "functions by imbalance across ranks (self CPU time: max - mean)", "function", "max-mean" },
	};
	tab_ctx c = { .rp = rp, .st = tf_agg_strtab(rp->agg) };
	c.krank = tf_strtab_intern_cstr(tf_agg_strtab(rp->agg), "rank");
	c.kstep = tf_strtab_intern_cstr(tf_agg_strtab(rp->agg), "step");
	int rc = 0;
	for (size_t i = 0; i < tf_agg_nsamples(rp->agg) && rc == 0; i++)
		rc = take_sample(&c, i);
	for (int k = 0; k < 6 && rc == 0; k++) {
		if (!c.t[k].n || (k == 5 && rp->res->nranks < 2))
			continue;
		tf_ov_table *t = &rp->tables[rp->ntables++];
		*t = (tf_ov_table){ .title = spec[k].title, .what = spec[k].what, .value = spec[k].value,
				    .imbalance = k == 5 };
		rc = make_table(&c, &c.t[k], t, k == 5);
	}
	for (int k = 0; k < 6; k++)
		acc_free(&c.t[k]);
	return rc;
}

void tf_ov_report_free(tf_ov_report *rp)
{
	for (size_t i = 0; rp->where && i < rp->res->nstragglers; i++)
		free(rp->where[i]);
	free(rp->where);
	for (int k = 0; k < rp->ntables; k++) {
		for (size_t i = 0; i < rp->tables[k].n; i++)
			free(rp->tables[k].rows[i].name);
		free(rp->tables[k].rows);
	}
}
