/* test_plan.c - the share-out of a distributed run (pipeline.h, plan.c):
 * the parts of TAU directories and OTF2 archives are what their readers
 * read, the greedy share-out by bytes keeps every process within one part
 * of the ideal and is the same on every call, and reading the parts one
 * process at a time adds up to reading everything (the partial runs). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include "tracefold/pipeline.h"
#include "tracefold/agg_pack.h"
#include "tracefold/pprof.h"

static void test_parts_of_inputs(void **state)
{
	tf_ctx *ctx = tf_ctx_new();
	const char *in[] = { "tests/data/tau/threads", "tests/data/otf2/scorep-mi300-hip",
			     "tests/data/chrome/pytorch-legacy-small/trace.json", "tests/data/tau/tiny/tautrace.0.0.0.trc" };
	tf_plan_part *p = NULL;
	tf_error err;
	tf_error_clear(&err);
	int n = tf_pipeline_plan(ctx, in, 4, NULL, &p, &err);
	assert_true(n > 8);
	int per[4] = { 0 };
	for (int i = 0; i < n; i++) {
		per[p[i].input]++;
		assert_true(p[i].bytes > 0);
	}
	assert_int_equal(per[0], 5); /* five tautrace files */
	assert_true(per[1] > 4);     /* the archive's locations */
	assert_int_equal(per[2], 1); /* a Chrome file is one part */
	assert_int_equal(per[3], 1); /* a lone .trc */
	free(p);
	/* what cannot be shared out */
	const char *stdin_in[] = { "-" };
	assert_int_equal(tf_pipeline_plan(ctx, stdin_in, 1, NULL, &p, &err), TF_EUSAGE);
	tf_ctx_free(ctx);
}

static void test_assign_balanced(void **state)
{
	enum { N = 1000 };
	tf_plan_part *p = calloc(N, sizeof(*p)), *q = calloc(N, sizeof(*q));
	uint64_t total = 0, maxpart = 0;
	for (int i = 0; i < N; i++) {
		p[i] = (tf_plan_part){ (uint32_t)(i / 100), (uint32_t)(i % 100), (uint64_t)((i * 7919) % 1000 + 1), 0 };
		total += p[i].bytes;
		maxpart = p[i].bytes > maxpart ? p[i].bytes : maxpart;
	}
	memcpy(q, p, N * sizeof(*p));
	for (uint32_t np = 1; np <= 7; np++) {
		tf_pipeline_plan_assign(p, N, np);
		tf_pipeline_plan_assign(q, N, np);
		uint64_t load[8] = { 0 };
		for (int i = 0; i < N; i++) {
			assert_true(p[i].owner < np);
			assert_int_equal(p[i].owner, q[i].owner); /* the same answer every time */
			load[p[i].owner] += p[i].bytes;
		}
		for (uint32_t k = 0; k < np; k++)
			assert_true(load[k] <= total / np + maxpart);
	}
	/* more processes than parts: the extra ones read nothing */
	tf_pipeline_plan_assign(p, 3, 5);
	assert_true(p[0].owner != p[1].owner && p[1].owner != p[2].owner && p[0].owner != p[2].owner);
	free(p);
	free(q);
}

/* Every process's partial run, packed and unpacked into one aggregate, gives
 * the single run's profile, byte for byte, when concluded. */
static void run_split(const char *const *in, int n, uint32_t np)
{
	tf_error err;
	tf_error_clear(&err);
	tf_ctx *one = tf_ctx_new();
	tf_agg *a1 = tf_agg_new(tf_ctx_strtab(one));
	tf_pipeline_opts o = { .comments = true };
	assert_int_equal(tf_pipeline_run(one, a1, in, n, &o, &err), 0);
	unsigned char *b1 = NULL;
	size_t l1 = 0;
	assert_int_equal(tf_pprof_encode(a1, &b1, &l1, &err), 0);

	tf_ctx *root = tf_ctx_new();
	tf_agg *sum = tf_agg_new(tf_ctx_strtab(root));
	tf_plan_part *p = NULL;
	int nparts = tf_pipeline_plan(root, in, n, NULL, &p, &err);
	assert_true(nparts > 0);
	tf_pipeline_plan_assign(p, (size_t)nparts, np);
	tf_diag *total = calloc((size_t)n, sizeof(tf_diag));
	tf_pipeline_partial tp = { .input_diags = total };
	for (uint32_t me = 0; me < np; me++) {
		tf_ctx *c = tf_ctx_new();
		tf_agg *a = tf_agg_new(tf_ctx_strtab(c));
		tf_input_sel sel[8];
		uint8_t *masks = NULL;
		assert_int_equal(tf_pipeline_plan_select(p, (size_t)nparts, n, me, sel, &masks), 0);
		tf_diag d[8];
		tf_pipeline_partial pt = { .input_diags = d };
		memset(d, 0, sizeof(d));
		tf_pipeline_opts po = { .comments = true, .select = sel, .partial = &pt };
		assert_int_equal(tf_pipeline_run(c, a, in, n, &po, &err), 0);
		void *b = NULL;
		size_t l = 0;
		assert_int_equal(tf_agg_pack(a, &b, &l), 0);
		assert_int_equal(tf_agg_unpack_merge(sum, b, l, "test", &err), 0);
		for (int i = 0; i < n; i++)
			tf_diag_add(&total[i], &d[i]);
		tf_diag_add(tf_ctx_diag(root), tf_ctx_diag(c));
		if (pt.any_time) {
			tp.min_ns = !tp.any_time || pt.min_ns < tp.min_ns ? pt.min_ns : tp.min_ns;
			tp.max_ns = !tp.any_time || pt.max_ns > tp.max_ns ? pt.max_ns : tp.max_ns;
			tp.any_time = true;
		}
		free(b);
		free(masks);
		tf_agg_free(a);
		tf_ctx_free(c);
	}
	assert_int_equal(tf_pipeline_conclude(root, sum, in, n, &o, &tp, &err), 0);
	unsigned char *b2 = NULL;
	size_t l2 = 0;
	assert_int_equal(tf_pprof_encode(sum, &b2, &l2, &err), 0);
	if (l1 != l2 || memcmp(b1, b2, l1)) { /* kept for a look: protoc --decode */
		print_error("np %u, %s: differs\n", np, in[0]);
		FILE *f = fopen("build/test_plan.one.pb", "wb");
		if (f) { fwrite(b1, 1, l1, f); fclose(f); }
		if ((f = fopen("build/test_plan.split.pb", "wb"))) { fwrite(b2, 1, l2, f); fclose(f); }
	}
	assert_int_equal(l1, l2);
	assert_memory_equal(b1, b2, l1);
	free(b1);
	free(b2);
	free(p);
	free(total);
	tf_agg_free(sum);
	tf_ctx_free(root);
	tf_agg_free(a1);
	tf_ctx_free(one);
}

static void test_partial_runs_add_up(void **state)
{
	const char *tau[] = { "tests/data/tau/threads", "tests/data/tau/mpi_small" };
	const char *otf2[] = { "tests/data/otf2/scorep-mi300-hip" };
	const char *mixed[] = { "tests/data/chrome/pytorch-legacy-small/trace.json", "tests/data/tau/threads",
				"tests/data/otf2/scorep-ping-pong-mpi" };
	for (uint32_t np = 1; np <= 4; np++) {
		run_split(tau, 2, np);
		run_split(otf2, 1, np);
		run_split(mixed, 3, np);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_partial_runs_add_up),
		cmocka_unit_test(test_parts_of_inputs),
		cmocka_unit_test(test_assign_balanced),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
