/* agg_steps.c - the samples of an aggregate with step labels, set aside
 * (tf_agg_steps_aside in agg.h; docs/performance.md "The overview's
 * rank-steps").  A sample under a label set with the step label first
 * goes to an open table (an aggregate of its own over the same call
 * paths, created in the same order); when that holds TF_AGG_STEPS_OPEN
 * samples, or before the aggregate is read or its types change, it is
 * folded: each sample, in the order it was made, is added to the
 * aggregate under its label set without the step, and noted as (call
 * path, label set with the step, wall time).  The notes keep the order
 * the samples were first made in: a sample made again in a later window
 * has a later note, and its first note is its place.  Past the budget
 * (half of --sort-mem) the notes in memory go to a temporary file
 * (spill.c) as a run, in the order they were made, and are read back in
 * that order (a merge by their number); without a file they stay in
 * memory. */
#include <stdlib.h>
#include <string.h>
#include "agg_steps.h"
#include "tracefold/err.h"
#include "grow.h"
#include "spill.h"

#define TF_AGG_STEPS_OPEN 16384

struct tf_agg_steps {
	tf_str key;             /* the step label's key */
	tf_agg *open;           /* the open table, NULL when empty */
	uint32_t *base;         /* per label set: 0 not known yet, 1 no step, else its set without the step + 2 */
	uint32_t capbase;
	struct srec *rec;       /* the notes after those in the file */
	size_t nrec, caprec;
	uint64_t seq;           /* notes made */
	size_t budget;          /* bytes of notes in memory before they go to the file, 0 never */
	char *tmp_dir;          /* where the file is made (NULL: /tmp) */
	tf_spill *spill;
	int spill_state;        /* 0 no file yet, 1 made, -1 cannot be made */
	tf_runs runs;
};

/* A note as held and spilled: its number (the order), no padding (the
 * spill file codes every byte). */
typedef struct srec {
	uint64_t seq;
	uint32_t node, labelset;
	int64_t wall;
} srec;
_Static_assert(sizeof(srec) == 24, "a note has no padding");

static int srec_cmp(const void *x, const void *y)
{
	uint64_t a = ((const srec *)x)->seq, b = ((const srec *)y)->seq;
	return (a > b) - (a < b);
}

void tf_agg_steps_free_(tf_agg_steps *s)
{
	if (!s)
		return;
	tf_agg_free(s->open);
	free(s->base);
	free(s->rec);
	free(s->tmp_dir);
	tf_spill_free(s->spill);
	tf_runs_free(&s->runs);
	free(s);
}

int tf_agg_steps_aside(tf_agg *a, const char *key, size_t budget, const char *tmp_dir)
{
	tf_agg_steps **slot = tf_agg_steps_slot_(a);
	if (*slot)
		return 0;
	tf_str k = tf_strtab_intern_cstr(tf_agg_strtab(a), key);
	if (k == (tf_str)-1 || !(*slot = calloc(1, sizeof(tf_agg_steps))))
		return TF_ENOMEM;
	(*slot)->key = k;
	(*slot)->budget = budget;
	if (tmp_dir && !((*slot)->tmp_dir = strdup(tmp_dir)))
		return TF_ENOMEM;
	return 0;
}

/* A note; past the budget, the notes in memory to the file as a run. */
static int note(tf_agg_steps *s, uint32_t node, uint32_t lset, int64_t wall)
{
	if (tf_grow_n((void **)&s->rec, &s->caprec, s->nrec + 1, sizeof(srec), false) < 0)
		return TF_ENOMEM;
	s->rec[s->nrec++] = (srec){ s->seq++, node, lset, wall };
	if (!s->budget || s->nrec * sizeof(srec) < s->budget || s->spill_state < 0)
		return 0;
	if (tf_spill_lazy(&s->spill, &s->spill_state, s->tmp_dir) < 0)
		return 0; /* they stay in memory */
	TF_TRY(tf_spill_write(s->spill, &s->runs, s->rec, s->nrec, sizeof(srec), srec_cmp));
	s->nrec = 0;
	return 0;
}

/* The label set of lset without the step label, lset itself when it has
 * none; UINT32_MAX when out of memory. */
static uint32_t base_of(tf_agg *a, tf_agg_steps *s, uint32_t lset)
{
	if (lset >= s->capbase) {
		uint32_t cap = s->capbase;
		if (tf_grow((void **)&s->base, &s->capbase, lset + 1, sizeof(uint32_t)) < 0)
			return UINT32_MAX;
		memset(s->base + cap, 0, (size_t)(s->capbase - cap) * sizeof(uint32_t));
	}
	if (!s->base[lset]) {
		const tf_label *l;
		tf_label m[TF_AGG_MAX_LABELS];
		int n = tf_agg_labelset_get(a, lset, &l), k = 0;
		for (int i = 0; i < n; i++)
			if (l[i].key != s->key || l[i].str)
				m[k++] = l[i];
		uint32_t b = k == n ? lset : tf_agg_labelset(a, m, k);
		if (b == (uint32_t)-1)
			return UINT32_MAX;
		s->base[lset] = b == lset ? 1 : b + 2;
	}
	return s->base[lset] == 1 ? lset : s->base[lset] - 2;
}

int tf_agg_steps_is_(tf_agg *a, uint32_t lset)
{
	tf_agg_steps *s = *tf_agg_steps_slot_(a);
	uint32_t b = base_of(a, s, lset);
	return b == UINT32_MAX ? TF_ENOMEM : b != lset;
}

/* The open table, made with a's sample types (folded first when full). */
static tf_agg *open_table(tf_agg *a, tf_agg_steps *s)
{
	if (s->open && tf_agg_nsamples(s->open) >= TF_AGG_STEPS_OPEN && tf_agg_steps_fold(a) < 0)
		return NULL;
	if (s->open)
		return s->open;
	tf_agg *o = tf_agg_new_cpath(tf_agg_strtab(a), tf_agg_cpath(a));
	const tf_strtab *st = tf_agg_strtab(a);
	for (int t = 0; o && t < tf_agg_ntypes(a); t++) {
		tf_sample_type ty = tf_agg_type_get(a, t);
		if (tf_agg_type(o, tf_strtab_get(st, ty.type), tf_strtab_get(st, ty.unit)) != t) {
			tf_agg_free(o);
			o = NULL;
		}
	}
	return s->open = o;
}

int64_t *tf_agg_steps_values_(tf_agg *a, uint32_t node, uint32_t lset)
{
	tf_agg *o = open_table(a, *tf_agg_steps_slot_(a));
	return o ? tf_agg_values(o, node, lset) : NULL;
}

int tf_agg_steps_add_(tf_agg *a, uint32_t node, uint32_t lset, int t, int64_t v)
{
	tf_agg *o = open_table(a, *tf_agg_steps_slot_(a));
	return o ? tf_agg_add(o, node, lset, t, v) : TF_ENOMEM;
}

int tf_agg_steps_add_values_(tf_agg *a, uint32_t node, uint32_t lset, const int64_t *values)
{
	for (int t = 0; t < tf_agg_ntypes(a); t++)
		TF_TRY(tf_agg_steps_add_(a, node, lset, t, values[t]));
	return 0;
}

/* Whether a folded sample is noted: every one but a GPU activity's
 * (its call path is its own and never has wall time).  A sample with no
 * wall time yet (a counter's value, a call of no self time) is noted
 * too: its first note keeps its place among the call paths as the
 * aggregate made them, which decides a tie in where_of (overview_tables.c). */
static bool noted(const int64_t *v, int tw, int tg)
{
	return (tw >= 0 && v[tw]) || tg < 0 || !v[tg];
}

int tf_agg_steps_fold(tf_agg *a)
{
	tf_agg_steps *s = *tf_agg_steps_slot_(a);
	if (!s || !s->open)
		return 0;
	tf_agg *o = s->open;
	s->open = NULL;
	int nt = tf_agg_ntypes(a), rc = 0;
	int tw = tf_agg_type_find(a, "wall"), tg = tf_agg_type_find(a, "gpu");
	int64_t *v = malloc(((size_t)nt + 1) * sizeof(int64_t));
	if (!v)
		rc = TF_ENOMEM;
	for (size_t i = 0; rc == 0 && i < tf_agg_nsamples(o); i++) {
		tf_agg_sample x = tf_agg_sample_get(o, i);
		uint32_t b = base_of(a, s, x.labelset);
		tf_agg_sample_values(o, i, v);
		if (b == UINT32_MAX || (rc = tf_agg_add_values(a, x.node, b, v)) < 0) {
			rc = TF_ENOMEM;
			break;
		}
		if (noted(v, tw, tg))
			rc = note(s, x.node, x.labelset, tw >= 0 ? v[tw] : 0);
	}
	free(v);
	tf_agg_free(o);
	return rc;
}

uint64_t tf_agg_nstepped(const tf_agg *a)
{
	const tf_agg_steps *s = tf_agg_steps_get_(a);
	return s ? s->seq : 0;
}

const tf_error *tf_agg_steps_error(const tf_agg *a)
{
	const tf_agg_steps *s = tf_agg_steps_get_(a);
	return s ? tf_spill_error(s->spill) : NULL;
}

int tf_agg_steps_each(const tf_agg *a, tf_agg_stepped_fn fn, void *arg)
{
	const tf_agg_steps *s = tf_agg_steps_get_(a);
	if (!s)
		return 0;
	tf_merge m;
	int rc = tf_merge_init(&m, s->spill, &s->runs, s->rec, s->nrec, sizeof(srec), srec_cmp);
	for (const srec *r; rc == 0 && (r = tf_merge_peek(&m));) {
		tf_agg_stepped x = { r->node, r->labelset, r->wall };
		if ((rc = fn(arg, &x)) == 0)
			rc = tf_merge_pop(&m);
	}
	tf_merge_free(&m);
	return rc;
}

/* tf_agg_steps_absorb's: a note of src made in dst. */
typedef struct absorb_ctx {
	tf_agg *dst, *src;
	tf_agg_steps *ds;
	uint32_t *lmap;         /* src label set -> dst's + 1 */
	uint32_t nl;
	uint32_t (*node_map)(void *arg, uint32_t node);
	void *arg;
} absorb_ctx;

static uint32_t map_labelset(absorb_ctx *c, uint32_t ls)
{
	if (ls >= c->nl)
		return UINT32_MAX;
	if (!c->lmap[ls]) {
		const tf_label *l;
		tf_label m[TF_AGG_MAX_LABELS];
		int n = tf_agg_labelset_get(c->src, ls, &l);
		const tf_strtab *st = tf_agg_strtab(c->src);
		tf_strtab *dt = tf_agg_strtab(c->dst);
		for (int k = 0; k < n; k++) { /* the strings in dst's table */
			m[k] = l[k];
			m[k].key = tf_strtab_intern(dt, tf_strtab_get(st, l[k].key), tf_strtab_len(st, l[k].key));
			if (l[k].str)
				m[k].str = tf_strtab_intern(dt, tf_strtab_get(st, l[k].str), tf_strtab_len(st, l[k].str));
			if (l[k].num_unit)
				m[k].num_unit = tf_strtab_intern(dt, tf_strtab_get(st, l[k].num_unit),
								 tf_strtab_len(st, l[k].num_unit));
		}
		uint32_t d = tf_agg_labelset(c->dst, m, n);
		if (d == (uint32_t)-1)
			return UINT32_MAX;
		c->lmap[ls] = d + 1;
	}
	return c->lmap[ls] - 1;
}

static int absorb_one(void *arg, const tf_agg_stepped *r)
{
	absorb_ctx *c = arg;
	uint32_t ls = map_labelset(c, r->labelset), node = c->node_map(c->arg, r->node);
	if (ls == UINT32_MAX || node == UINT32_MAX)
		return TF_ENOMEM;
	return note(c->ds, node, ls, r->wall);
}

int tf_agg_steps_absorb(tf_agg *dst, tf_agg *src, uint32_t (*node_map)(void *arg, uint32_t node), void *arg)
{
	TF_TRY(tf_agg_steps_fold(src));
	absorb_ctx c = { dst, src, *tf_agg_steps_slot_(dst), NULL, tf_agg_nlabelsets(src), node_map, arg };
	if (!tf_agg_nstepped(src))
		return 0;
	if (!c.ds)
		return TF_EUSAGE;
	if (!(c.lmap = calloc((size_t)c.nl + 1, sizeof(uint32_t))))
		return TF_ENOMEM;
	int rc = tf_agg_steps_each(src, absorb_one, &c);
	free(c.lmap);
	return rc;
}
