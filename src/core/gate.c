/* gate.c - the statistical comparison of runs per step (gate.h; the model
 * and its reasons: docs/gate.md).
 *
 * Per run: the rows' values per step (a matrix rows x steps), reduced to
 * each row's mean per step and its variance over the steps.  Per row: the
 * change of the mean between the sides, the noise of that change from the
 * runs (pooled over the sides, moderated across rows) or, for steady types,
 * from the steps plus a floor, and a verdict from a
 * simultaneous interval over the family of rows that could matter. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "tracefold/gate.h"
#include "hmap.h"
#include "grow.h"
#include "stats.h"

const char *const tf_verdict_names[TF_VERDICT_COUNT] = { "unchanged", "immaterial", "unresolved", "improved",
							  "regressed" };

enum { SIDE_BASE = 0, SIDE_NEW = 1, SIDE_HIST = 2 };

/* One run, per row (rows are numbered across all runs; a row first met in
 * a later run is 0 in this one: r >= nrows). */
typedef struct run {
	int side;
	int k;                     /* steps */
	uint32_t nrows;
	double *mean, *var;        /* the judged value: mean per step, variance over steps */
	double *self, *total, *calls; /* per-step means for the report */
	double tmean, tvar;        /* the step total */
} run;

typedef struct gate {
	const tf_gate_opts *o;
	tf_strtab *st;
	tf_str step_key;
	tf_hmap row_idx;           /* name -> row */
	tf_str *row_name;
	uint8_t *present;          /* per row: 1 seen in BASE, 2 in NEW */
	uint32_t nrows, caprows, cappresent;
	tf_hmap gpu[2];            /* per side: frames of GPU activities */
	tf_hmap kern;              /* row << 32 | frame -> 1 new, 2 gone: a GPU activity of
				    * one side only whose values went to that row */
	run *runs;
	int nruns;
	char *buf;
	size_t capbuf;
} gate;

static uint32_t row_of(gate *g, tf_str name)
{
	uint32_t r = tf_hmap_get(&g->row_idx, name);
	if (r != UINT32_MAX)
		return r;
	if (tf_grow((void **)&g->row_name, &g->caprows, g->nrows + 1, sizeof(tf_str)) < 0 ||
	    tf_grow((void **)&g->present, &g->cappresent, g->nrows + 1, 1) < 0 ||
	    tf_hmap_put(&g->row_idx, name, g->nrows) < 0)
		return UINT32_MAX;
	g->row_name[g->nrows] = name;
	g->present[g->nrows] = 0;
	return g->nrows++;
}

/* The call path "a;b;c" of node n whose parent's path is pp. */
static tf_str path_name(gate *g, tf_str pp, tf_str frame)
{
	const char *a = pp ? tf_strtab_get(g->st, pp) : "", *b = tf_strtab_get(g->st, frame);
	size_t la = strlen(a), lb = strlen(b);
	if (tf_grow_n((void **)&g->buf, &g->capbuf, la + lb + 2, 1, false) < 0)
		return (tf_str)-1;
	memcpy(g->buf, a, la);
	size_t k = la;
	if (pp)
		g->buf[k++] = ';';
	memcpy(g->buf + k, b, lb);
	return tf_strtab_intern(g->st, g->buf, k + lb);
}

/* The frames with GPU time (a GPU activity's own), into set. */
static int gpu_frames(const tf_agg *a, tf_hmap *set)
{
	int t = tf_agg_type_find(a, "gpu");
	if (t < 0)
		return 0;
	for (size_t i = 0, n = tf_agg_nsamples(a); i < n; i++) {
		tf_agg_sample s = tf_agg_sample_get(a, i);
		if (s.node != TF_AGG_ROOT && tf_agg_sample_value(a, i, t) > 0 &&
		    tf_hmap_set(set, tf_agg_node_get(a, s.node)->frame, 1) < 0)
			return TF_ENOMEM;
	}
	return 0;
}

/* Is frame a GPU activity of one side only: 1 NEW's, 2 BASE's, else 0. */
static int one_sided(const gate *g, tf_str frame)
{
	bool b = tf_hmap_get(&g->gpu[0], frame) != UINT32_MAX, n = tf_hmap_get(&g->gpu[1], frame) != UINT32_MAX;
	return b == n ? 0 : n ? 1 : 2;
}

/* Each node's row; a GPU activity of one side only is the row of the op
 * that launched it (the launch's parent), which carries the change when a
 * library chose other kernels. */
static int node_rows(gate *g, const tf_agg *a, uint32_t *row)
{
	uint32_t nn = tf_agg_nnodes(a);
	tf_str *path = g->o->paths ? malloc((size_t)nn * sizeof(tf_str)) : NULL;
	if (g->o->paths && !path)
		return TF_ENOMEM;
	int rc = 0;
	row[TF_AGG_ROOT] = UINT32_MAX;
	for (uint32_t n = 1; n < nn && rc == 0; n++) {
		const tf_agg_node *nd = tf_agg_node_get(a, n);
		tf_str name = nd->frame;
		if (path) {
			path[n] = path_name(g, nd->parent == TF_AGG_ROOT ? 0 : path[nd->parent], nd->frame);
			name = path[n];
			if (name == (tf_str)-1) {
				rc = TF_ENOMEM;
				break;
			}
		}
		int side = nd->parent != TF_AGG_ROOT ? one_sided(g, nd->frame) : 0;
		if (side) {
			/* a GPU activity hangs under its launch (cudaLaunchKernel ...):
			 * the op that made the launch is the launch's parent */
			uint32_t op = tf_agg_node_get(a, nd->parent)->parent;
			row[n] = row[op != TF_AGG_ROOT ? op : nd->parent];
			if (row[n] != UINT32_MAX &&
			    tf_hmap_set(&g->kern, (uint64_t)row[n] << 32 | nd->frame, (uint32_t)side) < 0)
				rc = TF_ENOMEM;
			continue;
		}
		if (name == (tf_str)-1 || (row[n] = row_of(g, name)) == UINT32_MAX)
			rc = TF_ENOMEM;
	}
	free(path);
	return rc;
}

/* The step index of each label set (-1: none), *k the steps; a run
 * without steps is one step (*whole). */
static int step_index(gate *g, const tf_agg *a, int *lidx, int *k, bool *whole)
{
	tf_hmap steps = { 0 };
	uint32_t nls = tf_agg_nlabelsets(a);
	*k = 0;
	for (uint32_t l = 0; l < nls; l++) {
		const tf_label *lab;
		int n = tf_agg_labelset_get(a, l, &lab);
		lidx[l] = -1;
		for (int j = 0; j < n; j++) {
			if (lab[j].key != g->step_key || lab[j].str)
				continue;
			uint32_t v = tf_hmap_get(&steps, (uint64_t)lab[j].num);
			if (v == UINT32_MAX) {
				if (tf_hmap_put(&steps, (uint64_t)lab[j].num, (uint32_t)*k) < 0) {
					tf_hmap_free(&steps);
					return TF_ENOMEM;
				}
				v = (uint32_t)(*k)++;
			}
			lidx[l] = (int)v;
		}
	}
	tf_hmap_free(&steps);
	if (*k == 0) {
		*k = 1;
		*whole = true;
		for (uint32_t l = 0; l < nls; l++)
			lidx[l] = 0;
	}
	return 0;
}

/* Mean and variance (n - 1) of x[0..n) with stride s. */
static void mean_var(const double *x, int n, size_t s, double *mean, double *var)
{
	double m = 0, v = 0;
	for (int i = 0; i < n; i++)
		m += x[(size_t)i * s];
	m /= n;
	for (int i = 0; i < n; i++)
		v += (x[(size_t)i * s] - m) * (x[(size_t)i * s] - m);
	*mean = m;
	*var = n > 1 ? v / (n - 1) : 0;
}

/* Fills r from aggregate a of type t: every sample with a step adds to its
 * row's (and, inclusive, its ancestors' rows') value of that step. */
static int read_run(gate *g, const tf_agg *a, run *r, bool *whole)
{
	int t = tf_agg_type_find(a, g->o->type), tc = tf_agg_type_find(a, "calls");
	uint32_t nn = tf_agg_nnodes(a), nls = tf_agg_nlabelsets(a);
	uint32_t *row = malloc(((size_t)nn + 1) * sizeof(uint32_t));
	int *lidx = malloc(((size_t)nls + 1) * sizeof(int));
	double *m = NULL, *step_tot = NULL;
	uint32_t *stamp = NULL;
	int rc = row && lidx ? 0 : TF_ENOMEM;
	if (rc == 0)
		rc = node_rows(g, a, row);
	if (rc == 0)
		rc = step_index(g, a, lidx, &r->k, whole);
	size_t nr = g->nrows, k = (size_t)r->k;
	r->nrows = g->nrows;
	if (rc == 0) {
		m = calloc(nr * k + 1, sizeof(double));
		step_tot = calloc(k, sizeof(double));
		stamp = calloc(nr + 1, sizeof(uint32_t));
		r->mean = calloc(nr + 1, sizeof(double));
		r->var = calloc(nr + 1, sizeof(double));
		r->self = calloc(nr + 1, sizeof(double));
		r->total = calloc(nr + 1, sizeof(double));
		r->calls = calloc(nr + 1, sizeof(double));
		if (!m || !step_tot || !stamp || !r->mean || !r->var || !r->self || !r->total || !r->calls)
			rc = TF_ENOMEM;
	}
	uint8_t bit = r->side == SIDE_NEW ? 2 : r->side == SIDE_BASE ? 1 : 0;
	for (size_t i = 0, ns = tf_agg_nsamples(a); rc == 0 && i < ns; i++) {
		tf_agg_sample s = tf_agg_sample_get(a, i);
		int st = lidx[s.labelset];
		if (st < 0)
			continue; /* outside every step */
		double v = t >= 0 ? (double)tf_agg_sample_value(a, i, t) : 0;
		double c = tc >= 0 ? (double)tf_agg_sample_value(a, i, tc) : 0;
		step_tot[st] += v;
		if (s.node == TF_AGG_ROOT)
			continue;
		uint32_t leaf = row[s.node];
		r->self[leaf] += v;
		r->calls[leaf] += c;
		if (v || c)
			g->present[leaf] |= bit;
		if (!g->o->by_total)
			m[(size_t)leaf * k + (size_t)st] += v;
		uint32_t mark = (uint32_t)i + 1;
		for (uint32_t n = s.node; n != TF_AGG_ROOT; n = tf_agg_node_get(a, n)->parent) {
			uint32_t rr = row[n];
			if (stamp[rr] == mark)
				continue;
			stamp[rr] = mark;
			r->total[rr] += v;
			if (g->o->by_total)
				m[(size_t)rr * k + (size_t)st] += v;
		}
	}
	for (size_t i = 0; rc == 0 && i < nr; i++) {
		mean_var(m + i * k, (int)k, 1, &r->mean[i], &r->var[i]);
		r->self[i] /= (double)k;
		r->total[i] /= (double)k;
		r->calls[i] /= (double)k;
	}
	if (rc == 0)
		mean_var(step_tot, (int)k, 1, &r->tmean, &r->tvar);
	free(row);
	free(lidx);
	free(m);
	free(step_tot);
	free(stamp);
	return rc;
}

/* ---- the statistics ---- */

static double at(const double *v, const run *r, uint32_t i) { return i < r->nrows ? v[i] : 0; }

/* What the runs say of one row (or of the total): x(run) its mean per step
 * and w(run) their variance over the steps. */
typedef struct rowstat {
	double mean[3];            /* per side: the mean of its runs' values */
	double scale;              /* |BASE| + |NEW| over 2: the unit of the variances */
	double rss, df_run;        /* runs around their side's mean, in scale units */
	double s2_step, df_step;   /* the steps around their run's mean, pooled */
	double step_part;          /* var(delta) the steps alone make, per s2_step */
	double runs_part;          /* var(delta) per unit of run variance: 1/R_B + 1/R_N */
} rowstat;

static void row_stat(const gate *g, uint32_t i, bool total, rowstat *s)
{
	int nr[3] = { 0, 0, 0 };
	double sum[3] = { 0, 0, 0 }, inv_k[3] = { 0, 0, 0 }, wsum = 0;
	memset(s, 0, sizeof(*s));
	for (int j = 0; j < g->nruns; j++) {
		const run *r = &g->runs[j];
		nr[r->side]++;
		sum[r->side] += total ? r->tmean : at(r->mean, r, i);
		inv_k[r->side] += 1.0 / r->k;
	}
	for (int sd = 0; sd < 3; sd++)
		s->mean[sd] = nr[sd] ? sum[sd] / nr[sd] : 0;
	s->scale = (fabs(s->mean[0]) + fabs(s->mean[1])) / 2;
	if (s->scale == 0)
		return;
	for (int j = 0; j < g->nruns; j++) {
		const run *r = &g->runs[j];
		double x = (total ? r->tmean : at(r->mean, r, i)) / s->scale - s->mean[r->side] / s->scale;
		double w = (total ? r->tvar : at(r->var, r, i)) / (s->scale * s->scale);
		s->rss += x * x;
		wsum += (r->k - 1) * w;
		s->df_step += r->k - 1;
	}
	for (int sd = 0; sd < 3; sd++)
		s->df_run += nr[sd] ? nr[sd] - 1 : 0;
	s->s2_step = s->df_step > 0 ? wsum / s->df_step : 0;
	/* a side's mean of runs: var = s2_step * sum(1/k) / R^2 from the steps */
	s->step_part = inv_k[0] / ((double)nr[0] * nr[0]) + inv_k[1] / ((double)nr[1] * nr[1]);
	s->runs_part = 1.0 / nr[0] + 1.0 / nr[1];
}

/* The material change of a row: min_share of the step total, and
 * min_effect of its own value (BASE's, NEW's for a new row). */
static double material(const tf_gate_opts *o, double total, double base, double neu)
{
	double own = o->min_effect * fabs(base != 0 ? base : neu), share = o->min_share * fabs(total);
	return own > share ? own : share;
}

/* A tested row's verdict from its change, its noise (se) and threshold. */
static int verdict(double delta, double se, double crit, double thr)
{
	double lo = delta - crit * se, hi = delta + crit * se;
	if (lo > 0 || hi < 0 || (se == 0 && delta != 0))
		return fabs(delta) < thr ? TF_VERDICT_IMMATERIAL : delta > 0 ? TF_VERDICT_REGRESSED : TF_VERDICT_IMPROVED;
	return lo > -thr && hi < thr ? TF_VERDICT_UNCHANGED : TF_VERDICT_UNRESOLVED;
}

/* The prior of the family's variances (Smyth's moments on the log scale),
 * flat: one s0^2 for every row of the type.  Rows of 1% of the step vary
 * more between runs, relatively, than ops of a third of it (run-to-run CV
 * 12-19% against 1.5%, measured), but a trend in size, fitted to the 7 to 10
 * rows a comparison tests or with its slope from the steps, tripled the
 * false alarms of 3 runs against 1 (docs/gate.md): the flat prior errs on
 * the side of large rows' noise. */
static int fit_prior(const double *v, const double *d, size_t n, double *s0sq, double *d0)
{
	double *pv = malloc((n + 1) * sizeof(double)), *pd = malloc((n + 1) * sizeof(double));
	if (!pv || !pd) {
		free(pv);
		free(pd);
		return TF_ENOMEM;
	}
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		if (v[i] > 0 && d[i] > 0) {
			pv[m] = v[i];
			pd[m++] = d[i];
		}
	tf_fit_fdist(pv, pd, m, s0sq, d0);
	/* a prior fitted to a few rows is no surer than their pooled degrees
	 * of freedom: d0 is at most their sum (with few rows, an infinite d0
	 * comes by chance and would ignore each row's own spread) */
	double cap = 0;
	for (size_t i = 0; i < m; i++)
		cap += pd[i];
	if (*d0 > cap) {
		/* s0^2 = exp(E + digamma(d0/2) - log(d0/2)), E the mean log moment */
		double e = log(*s0sq) - (isinf(*d0) ? 0 : tf_digamma(*d0 / 2) - log(*d0 / 2));
		*s0sq = exp(e + tf_digamma(cap / 2) - log(cap / 2));
		*d0 = cap;
	}
	free(pv);
	free(pd);
	return 0;
}

/* The moderated variance of a row: (d0 s0^2 + d s^2) / (d0 + d). */
static double moderate(double s2, double d, double s0sq, double d0)
{
	if (isinf(d0))
		return s0sq;
	if (d0 + d <= 0)
		return s2;
	return (d0 * s0sq + d * s2) / (d0 + d);
}

static bool steady_type(const char *t)
{
	return !strcmp(t, "gpu") || !strcmp(t, "calls") || !strcmp(t, "alloc_space") || !strcmp(t, "alloc_objects") ||
	       !strcmp(t, "free_space") || !strcmp(t, "free_objects");
}

/* The variance of a row's change in scale units, for the basis. */
static double change_var(const tf_gate_result *res, const rowstat *s, double s0sq, double d0, double floor2)
{
	double v;
	if (res->basis == TF_GATE_BASIS_RUNS) {
		v = moderate(s->rss / s->df_run, s->df_run, s0sq, d0) * s->runs_part;
		if (v < s->s2_step * s->step_part) /* runs cannot vary less than their steps make them */
			v = s->s2_step * s->step_part;
		if (v < floor2 * s->runs_part)
			v = floor2 * s->runs_part;
	} else {
		v = moderate(s->s2_step, s->df_step, s0sq, d0) * s->step_part + floor2 * s->runs_part;
	}
	return v;
}

/* Fills row (or the total) from its stat. */
static void judge(const tf_gate_opts *o, const tf_gate_result *res, const rowstat *s, double T, double var,
		  double crit, double t80, size_t m, tf_gate_row *row)
{
	row->base = s->mean[0];
	row->neu = s->mean[1];
	row->delta = row->neu - row->base;
	row->threshold = material(o, T, row->base, row->neu);
	row->lo = row->hi = row->mde = row->p = NAN;
	if (!row->tested) {
		row->verdict = TF_VERDICT_IMMATERIAL;
		return;
	}
	if (res->basis == TF_GATE_BASIS_NONE) {
		row->verdict = TF_VERDICT_UNRESOLVED;
		return;
	}
	double se = s->scale * sqrt(var);
	row->lo = row->delta - crit * se;
	row->hi = row->delta + crit * se;
	row->mde = (crit + t80) * se;
	double tail = se > 0 ? tf_t_cdf(-fabs(row->delta) / se, res->df) : row->delta != 0 ? 0 : 0.5;
	row->p = fmin(1, 2 * tail * (double)m);
	row->verdict = verdict(row->delta, se, crit, row->threshold);
}

static const tf_strtab *g_cmp_st; /* qsort has no context in C11 */
static int row_cmp(const void *x, const void *y)
{
	const tf_gate_row *a = x, *b = y;
	if (a->verdict != b->verdict)
		return b->verdict - a->verdict;
	double da = fabs(a->delta), db = fabs(b->delta);
	if (da != db)
		return da > db ? -1 : 1;
	return a->name == b->name ? 0 : strcmp(tf_strtab_get(g_cmp_st, a->name), tf_strtab_get(g_cmp_st, b->name));
}

/* The rows from the runs read: every row with a value on either side. */
static int fill_rows(gate *g, const tf_gate_opts *o, tf_gate_result *res)
{
	rowstat ts;
	row_stat(g, 0, true, &ts);
	double T = ts.mean[0] != 0 ? ts.mean[0] : ts.mean[1];
	/* steady types: from the steps (their run-to-run noise is the floor),
	 * or from the runs when the runs have no steps to tell; the others
	 * from the runs, or not at all */
	res->steady = steady_type(o->type);
	res->basis = res->steady && ts.df_step >= 1 ? TF_GATE_BASIS_STEPS
		     : ts.df_run >= 1			 ? TF_GATE_BASIS_RUNS
							 : TF_GATE_BASIS_NONE;
	rowstat *st = malloc(((size_t)g->nrows + 1) * sizeof(rowstat));
	double *v = malloc(((size_t)g->nrows + 1) * sizeof(double)), *d = malloc(((size_t)g->nrows + 1) * sizeof(double));
	res->rows = calloc((size_t)g->nrows + 1, sizeof(tf_gate_row));
	if (!st || !v || !d || !res->rows) {
		free(st);
		free(v);
		free(d);
		return TF_ENOMEM;
	}
	size_t n = 0, ntested = 0;
	for (uint32_t i = 0; i < g->nrows; i++) {
		row_stat(g, i, false, &st[n]);
		if (st[n].scale == 0)
			continue;
		tf_gate_row *r = &res->rows[n];
		r->name = g->row_name[i];
		r->status = g->present[i] == 1 ? 2 : g->present[i] == 2 ? 1 : 0;
		r->tested = fmax(fabs(st[n].mean[0]), fabs(st[n].mean[1])) >= o->min_share * fabs(T);
		for (int j = 0; j < g->nruns; j++) {
			const run *rr = &g->runs[j];
			int sd = rr->side;
			if (sd == SIDE_HIST)
				continue;
			double w = 1.0 / res->runs[sd];
			*(sd ? &r->new_self : &r->base_self) += w * at(rr->self, rr, i);
			*(sd ? &r->new_total : &r->base_total) += w * at(rr->total, rr, i);
			*(sd ? &r->new_calls : &r->base_calls) += w * at(rr->calls, rr, i);
		}
		if (r->tested) {
			v[ntested] = res->basis == TF_GATE_BASIS_RUNS ? st[n].rss / st[n].df_run : st[n].s2_step;
			d[ntested++] = res->basis == TF_GATE_BASIS_RUNS ? st[n].df_run : st[n].df_step;
		}
		n++;
	}
	res->nrows = n;
	int rc = res->basis != TF_GATE_BASIS_NONE ? fit_prior(v, d, ntested, &res->s0sq, &res->d0) : 0;
	double df = res->basis == TF_GATE_BASIS_RUNS ? ts.df_run : ts.df_step;
	res->df = res->basis == TF_GATE_BASIS_NONE ? NAN : isinf(res->d0) ? INFINITY : df + res->d0;
	res->family = ntested + 1;
	double q = 1 - o->alpha / (2.0 * (double)res->family), floor2 = res->steady ? o->steady_cv * o->steady_cv : 0;
	res->crit = res->basis != TF_GATE_BASIS_NONE ? tf_t_quantile(q, res->df) : NAN;
	double t80 = res->basis != TF_GATE_BASIS_NONE ? tf_t_quantile(0.8, res->df) : NAN;
	/* each row (and the total, one more member of the family) moderated
	 * toward the prior */
	for (size_t k = 0; rc == 0 && k < n; k++)
		judge(o, res, &st[k], T, change_var(res, &st[k], res->s0sq, res->d0, floor2), res->crit, t80,
		      res->family, &res->rows[k]);
	res->total.tested = true;
	res->total.lo = res->total.hi = res->total.mde = res->total.p = NAN;
	if (rc == 0 && ts.scale > 0)
		judge(o, res, &ts, T, change_var(res, &ts, res->s0sq, res->d0, floor2), res->crit, t80, res->family,
		      &res->total);
	res->total.base_self = res->total.base_total = res->total.base;
	res->total.new_self = res->total.new_total = res->total.neu;
	free(st);
	free(v);
	free(d);
	return rc;
}

/* The GPU activities of one side only that each row took. */
static void count_kernels(const gate *g, tf_gate_result *res)
{
	uint32_t *row_at = malloc(((size_t)g->nrows + 1) * sizeof(uint32_t)); /* row id -> result index */
	if (!row_at)
		return; /* counts only: the verdicts stand */
	for (uint32_t i = 0; i < g->nrows; i++)
		row_at[i] = UINT32_MAX;
	for (size_t k = 0; k < res->nrows; k++)
		row_at[tf_hmap_get(&g->row_idx, res->rows[k].name)] = (uint32_t)k;
	for (uint32_t j = 0; j < g->kern.cap; j++) {
		if (!g->kern.vals[j])
			continue;
		uint32_t row = (uint32_t)(g->kern.keys[j] >> 32), at_k = row < g->nrows ? row_at[row] : UINT32_MAX;
		if (at_k == UINT32_MAX)
			continue;
		if (g->kern.vals[j] - 1 == 1)
			res->rows[at_k].kernels_new++;
		else
			res->rows[at_k].kernels_gone++;
	}
	free(row_at);
}

static void gate_free(gate *g)
{
	for (int j = 0; j < g->nruns; j++) {
		run *r = &g->runs[j];
		free(r->mean);
		free(r->var);
		free(r->self);
		free(r->total);
		free(r->calls);
	}
	free(g->runs);
	tf_hmap_free(&g->row_idx);
	tf_hmap_free(&g->gpu[0]);
	tf_hmap_free(&g->gpu[1]);
	tf_hmap_free(&g->kern);
	free(g->row_name);
	free(g->present);
	free(g->buf);
}

int tf_gate_compare(tf_agg *const *base, int nb, tf_agg *const *neu, int nn, tf_agg *const *hist, int nh,
		    const tf_gate_opts *o, tf_gate_result *out, tf_error *err)
{
	memset(out, 0, sizeof(*out));
	if (nb < 1 || nn < 1)
		return tf_error_set(err, TF_EUSAGE, NULL, -1, -1, "a comparison needs a run on each side");
	bool any = false;
	tf_agg *const *side[3] = { base, neu, hist };
	int count[3] = { nb, nn, nh };
	for (int sd = 0; sd < 3; sd++)
		for (int j = 0; j < count[sd]; j++)
			any |= tf_agg_type_find(side[sd][j], o->type) >= 0;
	if (!any)
		return tf_error_set(err, TF_EUSAGE, NULL, -1, -1, "no run has the sample type '%s'", o->type);
	gate g = { .o = o, .st = tf_agg_strtab(base[0]) };
	int rc = (g.step_key = tf_strtab_intern_cstr(g.st, "step")) == (tf_str)-1 ? TF_ENOMEM : 0;
	for (int sd = 0; sd < 2 && rc == 0; sd++)
		for (int j = 0; j < count[sd] && rc == 0; j++)
			rc = gpu_frames(side[sd][j], &g.gpu[sd]);
	if (rc == 0 && !(g.runs = calloc((size_t)(nb + nn + nh), sizeof(run))))
		rc = TF_ENOMEM;
	for (int sd = 0; sd < 3 && rc == 0; sd++)
		for (int j = 0; j < count[sd] && rc == 0; j++) {
			run *r = &g.runs[g.nruns++];
			r->side = sd;
			rc = read_run(&g, side[sd][j], r, &out->whole_runs);
			out->runs[sd]++;
			out->steps[sd] += r->k;
		}
	if (rc == 0)
		rc = fill_rows(&g, o, out);
	if (rc == 0) {
		count_kernels(&g, out);
		g_cmp_st = g.st;
		qsort(out->rows, out->nrows, sizeof(tf_gate_row), row_cmp);
		int worst = out->total.verdict;
		for (size_t k = 0; k < out->nrows; k++)
			if (out->rows[k].verdict > worst)
				worst = out->rows[k].verdict;
		out->verdict = worst == TF_VERDICT_IMMATERIAL ? TF_VERDICT_UNCHANGED : worst;
	}
	gate_free(&g);
	if (rc < 0) {
		tf_gate_result_free(out);
		return tf_error_set(err, rc, NULL, -1, -1, "out of memory");
	}
	return 0;
}

void tf_gate_result_free(tf_gate_result *r)
{
	free(r->rows);
	r->rows = NULL;
	r->nrows = 0;
}
