/* test_agg_steps.c - samples under a step label set aside (agg.h,
 * agg_steps.c): the same adds into an aggregate without it and into one
 * with it (budgets: never spilled, spilled every few notes, into memory
 * only) give the same sums per (call path, label set without the step),
 * and the notes, summed per (call path, label set) in the order of their
 * first note, are the plain aggregate's samples under a step in the order
 * they were made, with their wall time; over several open-table windows
 * (samples made again after a fold), a type added midway, and the notes
 * of two aggregates absorbed into a third in order. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tracefold/agg.h"

#define NODES 24
#define RANKS 3
#define STEPS 1200

static tf_str S(tf_strtab *st, const char *s) { return tf_strtab_intern_cstr(st, s); }

static uint32_t ls_of(tf_agg *a, int rank, int step)
{
	tf_strtab *st = tf_agg_strtab(a);
	tf_label l[2] = { { S(st, "rank"), 0, rank, 0 }, { S(st, "step"), 0, step, 0 } };
	uint32_t id = tf_agg_labelset(a, l, step < 0 ? 1 : 2);
	assert_int_not_equal(id, (uint32_t)-1);
	return id;
}

static void labels_of(const tf_agg *a, uint32_t ls, int64_t *rank, int64_t *step)
{
	const tf_label *l;
	int n = tf_agg_labelset_get(a, ls, &l);
	*rank = *step = -1;
	for (int i = 0; i < n; i++) {
		const char *k = tf_strtab_get(tf_agg_strtab(a), l[i].key);
		if (!strcmp(k, "rank"))
			*rank = l[i].num;
		else if (!strcmp(k, "step"))
			*step = l[i].num;
	}
}

/* The same adds, whatever a sets aside: two passes over the (rank, step,
 * node) of a pseudo-random walk, the second after a type is added. */
static void fill(tf_agg *a, uint32_t *nodes, unsigned seed)
{
	tf_strtab *st = tf_agg_strtab(a);
	int tc = tf_agg_type(a, "calls", "count"), tw = tf_agg_type(a, "wall", "nanoseconds");
	assert_true(tc >= 0 && tw >= 0);
	uint32_t p = TF_AGG_ROOT;
	char name[32];
	for (int i = 0; i < NODES; i++) {
		snprintf(name, sizeof(name), "f%d", i);
		nodes[i] = p = tf_agg_child(a, i % 3 ? p : TF_AGG_ROOT, S(st, name));
	}
	uint32_t kern[NODES]; /* a kernel under each: GPU activities' call paths are their own */
	for (int i = 0; i < NODES; i++)
		kern[i] = tf_agg_child(a, nodes[i], S(st, "kernel"));
	for (int pass = 0; pass < 2; pass++) {
		int tg = pass ? tf_agg_type(a, "gpu", "nanoseconds") : -1;
		unsigned x = seed;
		for (int step = -1; step < STEPS; step++)
			for (int r = 0; r < RANKS; r++)
				for (int k = 0; k < 12; k++) {
					x = x * 1103515245u + 12345u;
					uint32_t node = nodes[(x >> 16) % NODES], ls = ls_of(a, r, step);
					uint32_t kn = kern[(x >> 16) % NODES];
					int64_t w = (int64_t)((x >> 8) % 5) * 1000; /* 0 sometimes: a call of no self time */
					if (tg >= 0 && k == 0) { /* a GPU activity: not noted */
						assert_int_equal(tf_agg_add(a, kn, ls, tc, 1), 0);
						assert_int_equal(tf_agg_add(a, kn, ls, tg, 777), 0);
					} else if (k % 3 == 1) {
						int64_t v[3] = { 1, w, 0 };
						assert_int_equal(tf_agg_add_values(a, node, ls, v), 0);
					} else {
						int64_t *v = tf_agg_values(a, node, ls);
						assert_non_null(v);
						v[tc] += 1;
						v[tw] += w;
					}
				}
	}
	assert_int_equal(tf_agg_steps_fold(a), 0);
}

typedef struct sums {
	int64_t v[NODES][RANKS][3]; /* calls, wall, gpu per (node, rank), all steps and none */
} sums;

static void sums_of(const tf_agg *a, const uint32_t *nodes, sums *s)
{
	memset(s, 0, sizeof(*s));
	const char *ty[3] = { "calls", "wall", "gpu" };
	for (size_t i = 0; i < tf_agg_nsamples(a); i++) {
		tf_agg_sample x = tf_agg_sample_get(a, i);
		int64_t rank, step;
		labels_of(a, x.labelset, &rank, &step);
		int n = 0;
		while (n < NODES && nodes[n] != x.node && nodes[n] != tf_agg_node_get(a, x.node)->parent)
			n++;
		assert_true(n < NODES);
		for (int t = 0; t < 3; t++) {
			int ti = tf_agg_type_find(a, ty[t]);
			s->v[n][rank][t] += ti >= 0 ? tf_agg_sample_value(a, i, ti) : 0;
		}
	}
}

/* A sample under a step: (node, rank, step, wall), in order. */
typedef struct ent {
	uint32_t node;
	int64_t rank, step, wall;
} ent;

typedef struct ents {
	const tf_agg *a;
	ent *e;
	size_t n;
	uint32_t *at;           /* (step, rank, node index) -> its entry + 1 */
} ents;

static uint32_t *ent_at(ents *c, const ent *e)
{
	if (!c->at)
		c->at = calloc((size_t)STEPS * RANKS * NODES * 2, sizeof(uint32_t));
	assert_non_null(c->at);
	uint32_t k = 0; /* nodes are 1..NODES in each test's tree (made first, in order) */
	assert_true(e->node >= 1 && e->node <= 2 * NODES && e->step >= 0 && e->step < STEPS);
	k = e->node - 1;
	return &c->at[((size_t)e->step * RANKS + (size_t)e->rank) * NODES * 2 + k];
}

/* Adds e's wall to its entry, made at the end if new. */
static void ent_add(ents *c, ent e)
{
	uint32_t *at = ent_at(c, &e);
	if (!*at) {
		c->e = realloc(c->e, (c->n + 1) * sizeof(ent));
		c->e[c->n++] = (ent){ e.node, e.rank, e.step, 0 };
		*at = (uint32_t)c->n;
	}
	c->e[*at - 1].wall += e.wall;
}

static void ents_free(ents *c)
{
	free(c->e);
	free(c->at);
}

/* The entries with wall time (what the overview reads), in the same
 * order; a GPU activity's calls and time may be split by a fold, which
 * notes a call without time: not compared. */
static void ents_equal(const ents *x, const ents *y)
{
	size_t i = 0, j = 0, n = 0;
	for (;; i++, j++, n++) {
		while (i < x->n && !x->e[i].wall)
			i++;
		while (j < y->n && !y->e[j].wall)
			j++;
		if (i == x->n || j == y->n)
			break;
		assert_int_equal(x->e[i].node, y->e[j].node);
		assert_int_equal(x->e[i].rank, y->e[j].rank);
		assert_int_equal(x->e[i].step, y->e[j].step);
		assert_int_equal(x->e[i].wall, y->e[j].wall);
	}
	assert_int_equal(i, x->n);
	assert_int_equal(j, y->n);
	assert_true(n > 16384);
}

static int note_one(void *arg, const tf_agg_stepped *r)
{
	ents *c = arg;
	int64_t rank, step;
	labels_of(c->a, r->labelset, &rank, &step);
	assert_true(step >= 0);
	ent_add(c, (ent){ r->node, rank, step, r->wall });
	return 0;
}

/* The plain aggregate's samples under a step that a note is made for. */
static void plain_ents(const tf_agg *a, ents *c)
{
	int tc = tf_agg_type_find(a, "calls"), tw = tf_agg_type_find(a, "wall"), tg = tf_agg_type_find(a, "gpu");
	for (size_t i = 0; i < tf_agg_nsamples(a); i++) {
		tf_agg_sample x = tf_agg_sample_get(a, i);
		int64_t rank, step, w = tf_agg_sample_value(a, i, tw), g = tf_agg_sample_value(a, i, tg);
		labels_of(a, x.labelset, &rank, &step);
		if (step < 0 || (!w && (!tf_agg_sample_value(a, i, tc) || g)))
			continue;
		c->e = realloc(c->e, (c->n + 1) * sizeof(ent));
		c->e[c->n++] = (ent){ x.node, rank, step, w };
	}
}

static void check(size_t budget)
{
	tf_strtab *st = tf_strtab_new();
	tf_agg *plain = tf_agg_new(st), *aside = tf_agg_new(st);
	uint32_t np[NODES], na[NODES];
	assert_int_equal(tf_agg_steps_aside(aside, "step", budget, NULL), 0);
	fill(plain, np, 7);
	fill(aside, na, 7);
	assert_memory_equal(np, na, sizeof(np));
	static sums sp, sa;
	sums_of(plain, np, &sp);
	sums_of(aside, na, &sa);
	assert_memory_equal(&sp, &sa, sizeof(sp));
	for (size_t i = 0; i < tf_agg_nsamples(aside); i++) { /* no step label left */
		int64_t rank, step;
		labels_of(aside, tf_agg_sample_get(aside, i).labelset, &rank, &step);
		assert_int_equal(step, -1);
	}
	ents want = { plain, NULL, 0, NULL }, got = { aside, NULL, 0, NULL };
	plain_ents(plain, &want);
	assert_int_equal(tf_agg_steps_each(aside, note_one, &got), 0);
	assert_true(want.n > 16384 * 2); /* several windows of the open table */
	assert_true(tf_agg_nstepped(aside) > got.n); /* samples made again after a fold */
	ents_equal(&got, &want);
	assert_null(tf_agg_steps_error(aside));
	ents_free(&want);
	ents_free(&got);
	tf_agg_free(plain);
	tf_agg_free(aside);
	tf_strtab_free(st);
}

static void test_never_spilled(void **state) { (void)state; check(0); }
static void test_spilled(void **state) { (void)state; check(24 * 5); }
static void test_budget(void **state) { (void)state; check(2u << 20); }

static uint32_t same_node(void *arg, uint32_t node) { (void)arg; return node; }

/* Two aggregates' notes absorbed into a third: the first's, then the second's. */
static void test_absorb(void **state)
{
	(void)state;
	tf_strtab *st = tf_strtab_new();
	tf_agg *x = tf_agg_new(st), *y = tf_agg_new_cpath(st, tf_agg_cpath(x)), *d = tf_agg_new_cpath(st, tf_agg_cpath(x));
	uint32_t n1[NODES], n2[NODES];
	assert_int_equal(tf_agg_steps_aside(x, "step", 240, NULL), 0);
	assert_int_equal(tf_agg_steps_aside(y, "step", 0, NULL), 0);
	assert_int_equal(tf_agg_steps_aside(d, "step", 480, NULL), 0);
	fill(x, n1, 3);
	fill(y, n2, 5);
	assert_memory_equal(n1, n2, sizeof(n1));
	ents ex = { x, NULL, 0, NULL }, ey = { y, NULL, 0, NULL }, ed = { d, NULL, 0, NULL };
	assert_int_equal(tf_agg_steps_each(x, note_one, &ex), 0);
	assert_int_equal(tf_agg_steps_each(y, note_one, &ey), 0);
	assert_int_equal(tf_agg_steps_absorb(d, x, same_node, NULL), 0);
	assert_int_equal(tf_agg_steps_absorb(d, y, same_node, NULL), 0);
	assert_int_equal(tf_agg_nstepped(d), tf_agg_nstepped(x) + tf_agg_nstepped(y));
	/* d's notes: x's then y's, summed per sample over both */
	ents want = { d, NULL, 0, NULL };
	for (size_t i = 0; i < ex.n + ey.n; i++)
		ent_add(&want, i < ex.n ? ex.e[i] : ey.e[i - ex.n]);
	assert_int_equal(tf_agg_steps_each(d, note_one, &ed), 0);
	ents_equal(&ed, &want);
	tf_agg *plain = tf_agg_new(st); /* without notes set aside: refused */
	assert_int_equal(tf_agg_steps_absorb(plain, x, same_node, NULL), TF_EUSAGE);
	ents_free(&ex);
	ents_free(&ey);
	ents_free(&ed);
	ents_free(&want);
	tf_agg_free(plain);
	tf_agg_free(x);
	tf_agg_free(y);
	tf_agg_free(d);
	tf_strtab_free(st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_never_spilled),
		cmocka_unit_test(test_spilled),
		cmocka_unit_test(test_budget),
		cmocka_unit_test(test_absorb),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
