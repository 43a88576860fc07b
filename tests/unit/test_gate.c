/* test_gate.c - the statistics of diff --gate (src/base/stats.c, with
 * reference values computed with scipy 1.10: scipy.special.digamma,
 * polygamma(1, x), betainc, scipy.stats.t.cdf/ppf), the stable-name rules
 * (src/core/names.c) and the gate on hand-made aggregates (src/core/gate.c):
 * runs of known per-step values give known changes, noise bases and
 * verdicts. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "stats.h"
#include "tracefold/gate.h"
#include "tracefold/names.h"

static void near(double got, double want, double rel)
{
	if (!(fabs(got - want) <= rel * fmax(1e-300, fabs(want)))) {
		print_error("got %.17g, want %.17g\n", got, want);
		fail();
	}
}

static void test_special(void **state)
{
	near(tf_digamma(0.5), -1.9635100260214235, 1e-12);
	near(tf_digamma(3.7), 1.1671535393615113, 1e-12);
	near(tf_trigamma(0.5), 4.93480220054468, 1e-12);
	near(tf_trigamma(3.7), 0.31003785767003833, 1e-12);
	near(tf_trigamma_inv(tf_trigamma(2.5)), 2.5, 1e-9);
	near(tf_trigamma_inv(tf_trigamma(0.05)), 0.05, 1e-7);
	near(tf_betainc(2.5, 0.5, 0.3), 0.01892712407194565, 1e-10);
}

static void test_t(void **state)
{
	near(tf_t_cdf(2.0, 5), 0.9490302605850709, 1e-12);
	near(tf_t_cdf(-1.3, 2.5), 0.15024339463535397, 1e-10);
	near(tf_t_cdf(1.96, INFINITY), 0.9750021048517795, 1e-12);
	near(tf_t_quantile(0.975, 5), 2.5705818366147395, 1e-9);
	near(tf_t_quantile(1 - 0.05 / 200, 8.3), 5.507973282386472, 1e-9);
	near(tf_t_quantile(0.8, 30), 0.853767259839686, 1e-8);
	near(tf_t_quantile(1 - 1e-7, 3), 222.57159098625087, 1e-9);
	near(tf_t_quantile(0.025, 12), -2.178812829663418, 1e-9);
}

/* Variances from one scaled chi-square give the prior back: a large
 * family of equal variances with d = 4 has an infinite d0 (they differ no
 * more than chance). */
static void test_prior(void **state)
{
	double s2[5] = { 1, 1, 1, 1, 1 }, d[5] = { 4, 4, 4, 4, 4 }, s0, d0;
	tf_fit_fdist(s2, d, 5, &s0, &d0);
	assert_true(isinf(d0));
	near(s0, 1.310439851632207, 1e-9); /* exp(-digamma(2) + log 2): the unbiased log estimate */
	tf_fit_fdist(s2, d, 2, &s0, &d0); /* too few */
	assert_true(d0 == 0 && s0 == 0);
	/* spread-out variances: a finite prior, scipy/limma's numbers */
	double v[6] = { 0.5, 2.0, 1.0, 8.0, 0.25, 3.0 }, dd[6] = { 3, 3, 3, 3, 3, 3 };
	tf_fit_fdist(v, dd, 6, &s0, &d0);
	near(d0, 4.0199210745957235, 1e-6);
	near(s0, 1.48984916460901, 1e-6);
}

static void test_names(void **state)
{
	static const struct { const char *in, *out; unsigned rules; } cases[] = {
		{ "ProfilerStep#12", "ProfilerStep", TF_NAMES_ALL },
		{ "ProfilerStep#12", "ProfilerStep#12", TF_NAMES_ALL & ~TF_NAMES_STEP },
		{ "ProfilerStep#", "ProfilerStep#", TF_NAMES_ALL },
		{ "ProfilerStep#1a", "ProfilerStep#1a", TF_NAMES_ALL },
		{ "<built-in method item of Tensor object at 0x7f6ff8fb07e0>", "<built-in method item of Tensor object>",
		  TF_NAMES_ALL },
		{ "<function f at 0xdeadbeefz>", "<function f at 0xdeadbeefz>", TF_NAMES_ALL },
		{ "x at 0x", "x at 0x", TF_NAMES_ALL },
		{ "aten::view, seq = 46174, op_id = 314290", "aten::view", TF_NAMES_ALL },
		{ "aten::mm, seq = 7, sizes = [[2, 3]], input_op_ids = [(5, 0)]", "aten::mm, sizes = [[2, 3]]",
		  TF_NAMES_ALL },
		{ "f, seq = 12x", "f, seq = 12x", TF_NAMES_ALL },
		{ "f, seq = ", "f, seq = ", TF_NAMES_ALL },
		{ "a, seq = 1 at 0x10", "a", TF_NAMES_ALL }, /* addresses first, then NVTX */
		{ "aten::view, seq = 1", "aten::view, seq = 1", 0 },
		{ "ProfilerStep#5, op_id = 12", "ProfilerStep", TF_NAMES_ALL },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char out[256];
		size_t n = tf_name_normalize(cases[i].in, strlen(cases[i].in), cases[i].rules, out);
		out[n] = 0;
		if (strcmp(out, cases[i].out)) {
			print_error("%s -> '%s', want '%s'\n", cases[i].in, out, cases[i].out);
			fail();
		}
	}
}

/* One run: rows "a" (per step: a[k]) and "b" (b[k]) under a root frame
 * "step", wall values in 2 steps ... k steps labelled step=k. */
static tf_agg *run(tf_strtab *st, const double *a, const double *b, int k)
{
	tf_agg *g = tf_agg_new(st);
	assert_int_equal(tf_agg_type(g, "calls", "count"), 0);
	assert_int_equal(tf_agg_type(g, "wall", "nanoseconds"), 1);
	uint32_t root = tf_agg_child(g, TF_AGG_ROOT, tf_strtab_intern_cstr(st, "step"));
	uint32_t na = tf_agg_child(g, root, tf_strtab_intern_cstr(st, "a"));
	uint32_t nb = tf_agg_child(g, root, tf_strtab_intern_cstr(st, "b"));
	for (int i = 0; i < k; i++) {
		tf_label l = { tf_strtab_intern_cstr(st, "step"), 0, i, 0 };
		uint32_t ls = tf_agg_labelset(g, &l, 1);
		tf_agg_add(g, na, ls, 1, (int64_t)a[i]);
		tf_agg_add(g, nb, ls, 1, (int64_t)b[i]);
		tf_agg_add(g, na, ls, 0, 1);
		tf_agg_add(g, nb, ls, 0, 1);
	}
	return g;
}

static const tf_gate_row *row(const tf_gate_result *r, tf_strtab *st, const char *name)
{
	for (size_t i = 0; i < r->nrows; i++)
		if (!strcmp(tf_strtab_get(st, r->rows[i].name), name))
			return &r->rows[i];
	return NULL;
}

static void test_gate(void **state)
{
	tf_strtab *st = tf_strtab_new();
	/* three BASE runs, "a" 1000 ns a step with 1% run noise, "b" 3000 */
	double a1[4] = { 1000, 1002, 998, 1000 }, a2[4] = { 1010, 1012, 1008, 1010 }, a3[4] = { 990, 992, 988, 990 };
	double b1[4] = { 3000, 3000, 3000, 3000 }, b2[4] = { 3030, 3030, 3030, 3030 }, b3[4] = { 2970, 2970, 2970, 2970 };
	tf_agg *base[3] = { run(st, a1, b1, 4), run(st, a2, b2, 4), run(st, a3, b3, 4) };
	/* NEW: "a" 20% slower, "b" as before */
	double na[4] = { 1200, 1202, 1198, 1200 }, nb[4] = { 3000, 3000, 3000, 3000 };
	tf_agg *neu[1] = { run(st, na, nb, 4) };
	tf_gate_opts o = TF_GATE_OPTS_DEFAULT;
	o.type = "wall";
	tf_gate_result r;
	tf_error err;
	tf_error_clear(&err);
	assert_int_equal(tf_gate_compare(base, 3, neu, 1, NULL, 0, &o, &r, &err), 0);
	assert_int_equal(r.basis, TF_GATE_BASIS_RUNS);
	assert_int_equal(r.runs[0], 3);
	assert_int_equal(r.steps[1], 4);
	const tf_gate_row *ra = row(&r, st, "a"), *rb = row(&r, st, "b"), *rs = row(&r, st, "step");
	assert_non_null(ra);
	assert_non_null(rb);
	assert_null(rs); /* the root frame has no self value: no row when self is judged */
	near(ra->delta, 200, 1e-9);
	near(ra->base, 1000, 1e-9);
	assert_int_equal(ra->verdict, TF_VERDICT_REGRESSED);
	assert_true(ra->lo > 0 && ra->hi > ra->lo);
	assert_int_equal(rb->verdict == TF_VERDICT_UNCHANGED || rb->verdict == TF_VERDICT_UNRESOLVED, 1);
	near(r.total.delta, 200, 1e-9); /* the self changes add up to the total's */
	assert_int_equal(r.verdict, TF_VERDICT_REGRESSED);
	assert_ptr_equal(&r.rows[0], ra); /* the severest first */
	tf_gate_result_free(&r);
	/* one run per side: wall time never regressed, only unresolved */
	assert_int_equal(tf_gate_compare(base, 1, neu, 1, NULL, 0, &o, &r, &err), 0);
	assert_int_equal(r.basis, TF_GATE_BASIS_NONE);
	ra = row(&r, st, "a");
	assert_int_equal(ra->verdict, TF_VERDICT_UNRESOLVED);
	assert_true(isnan(ra->lo));
	tf_gate_result_free(&r);
	/* ... unless a history gives the noise (4 runs: 3 degrees of freedom) */
	double h1[4] = { 1005, 1007, 1003, 1005 }, h2[4] = { 995, 997, 993, 995 };
	tf_agg *hist[4] = { base[1], base[2], run(st, h1, b1, 4), run(st, h2, b2, 4) };
	assert_int_equal(tf_gate_compare(base, 1, neu, 1, hist, 4, &o, &r, &err), 0);
	assert_int_equal(r.basis, TF_GATE_BASIS_RUNS);
	assert_int_equal(r.runs[2], 4);
	assert_int_equal(row(&r, st, "a")->verdict, TF_VERDICT_REGRESSED);
	tf_gate_result_free(&r);
	tf_agg_free(hist[2]);
	tf_agg_free(hist[3]);
	/* calls: steady, from the steps of one run per side; unchanged */
	o.type = "calls";
	assert_int_equal(tf_gate_compare(base, 1, neu, 1, NULL, 0, &o, &r, &err), 0);
	assert_int_equal(r.basis, TF_GATE_BASIS_STEPS);
	assert_int_equal(row(&r, st, "a")->verdict, TF_VERDICT_UNCHANGED);
	assert_int_equal(r.verdict, TF_VERDICT_UNCHANGED);
	tf_gate_result_free(&r);
	/* a type no run has */
	o.type = "nope";
	assert_int_equal(tf_gate_compare(base, 3, neu, 1, NULL, 0, &o, &r, &err), TF_EUSAGE);
	for (int i = 0; i < 3; i++)
		tf_agg_free(base[i]);
	tf_agg_free(neu[0]);
	tf_strtab_free(st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_special), cmocka_unit_test(test_t), cmocka_unit_test(test_prior),
		cmocka_unit_test(test_names), cmocka_unit_test(test_gate),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
