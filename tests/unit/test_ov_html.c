/* test_ov_html.c - the HTML page of `tracefold overview`
 * (src/cmd/overview_html.c) on a report filled by hand: 3 ranks of 3 steps,
 * one straggler, a flame graph from an aggregate built with the tf_agg API,
 * tables whose names hold markup, quotes, invalid UTF-8 and controls.
 * With TF_OVHTML_DIR set, the pages are kept there (gpu.html, cpu.html)
 * for tests/e2e/overview_html.sh, which opens them in headless Chromium. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "overview.h"

#define NR 3
#define NS 3

static const char hostile[] = "<script>alert(\"x\")</script> & 'q' \xff\xfe bad\x01 \xc2\x85 end";
static const char hostile_html[] =
	"&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;q&#39; \xEF\xBF\xBD\xEF\xBF\xBD bad\xEF\xBF\xBD "
	"\xEF\xBF\xBD\xEF\xBF\xBD end";

typedef struct fixture {
	tf_ctx *ctx;
	tf_agg *agg;
	tf_ov_result res;
	tf_ov_rank ranks[NR];
	tf_ov_step steps[NR * NS];
	tf_ov_straggler strag[1];
	tf_ov_wait waits[2];
	tf_ov_row rows[3];
	char *where[1];
	tf_ov_report rep;
} fixture;

static uint32_t path(tf_agg *a, const char *const *frames, int n)
{
	tf_strtab *st = tf_agg_strtab(a);
	uint32_t node = TF_AGG_ROOT;
	for (int i = 0; i < n; i++)
		node = tf_agg_child(a, node, tf_strtab_intern_cstr(st, frames[i]));
	return node;
}

/* The run: ranks 0, 1, 2 with steps 10, 11, 12; rank 2 late at step 11. */
static void fill(fixture *x, bool gpu)
{
	memset(x, 0, sizeof(*x));
	x->ctx = tf_ctx_new();
	assert_non_null(x->ctx);
	tf_ctx_diag(x->ctx)->n[TF_DIAG_exit_mismatch] = 2;
	x->agg = tf_agg_new(tf_ctx_strtab(x->ctx));
	int wall = tf_agg_type(x->agg, "wall", "nanoseconds"), g = tf_agg_type(x->agg, "gpu", "nanoseconds");
	uint32_t ls = tf_agg_labelset(x->agg, NULL, 0);
	const char *const p1[] = { "main", "forward", "aten::mm" }, *const p2[] = { "main", "backward" },
			  *const p3[] = { "main", hostile }, *const p4[] = { "main", "forward", "aten::mm", "sgemm_kernel" };
	assert_int_equal(tf_agg_add(x->agg, path(x->agg, p1, 3), ls, wall, 3000000), 0);
	assert_int_equal(tf_agg_add(x->agg, path(x->agg, p2, 2), ls, wall, 5000000), 0);
	assert_int_equal(tf_agg_add(x->agg, path(x->agg, p3, 2), ls, wall, 1000000), 0);
	if (gpu)
		assert_int_equal(tf_agg_add(x->agg, path(x->agg, p4, 4), ls, g, 4000000), 0);
	for (int r = 0; r < NR; r++) {
		x->ranks[r] = (tf_ov_rank){ .rank = r, .input = (uint32_t)r, .threads = 2, .devices = gpu, .first = (size_t)r * NS,
					    .nsteps = NS, .mpi_ns = 1000 * r };
		x->ranks[r].wait_ns[TF_OV_COLL_WAIT] = 500000 * (2 - r);
		for (int s = 0; s < NS; s++) {
			tf_ov_step *st = &x->steps[r * NS + s];
			int64_t t = 10000000 + 100000 * s + (r == 2 && s == 1 ? 4000000 : 0);
			*st = (tf_ov_step){ .rank = r, .step = 10 + s, .start_ns = 1000000000 + 12000000LL * s, .time_ns = t,
					    .cpu_ns = t / 2, .comm_wait_ns = 1000 * (2 - r), .late_ns = r == 2 && s == 1 ? 3900000 : -100,
					    .ncoll = 1, .bound = gpu ? TF_OV_BOUND_GPU : TF_OV_BOUND_CPU };
			if (gpu) {
				st->gpu_compute_ns = t / 2;
				st->gpu_comm_ns = t / 5;
				st->gpu_memcpy_ns = t / 20;
				st->gpu_memset_ns = t / 100;
				st->gpu_idle_ns = t / 4;
				st->comm_exposed_ns = t / 10;
			}
		}
	}
	x->strag[0] = (tf_ov_straggler){ .rank = 2, .step = 11, .late_ns = 3900000 };
	x->where[0] = strdup(hostile);
	x->waits[0] = (tf_ov_wait){ .node = path(x->agg, p3, 2), .kind = TF_OV_COLL_WAIT, .ns = 1500000 };
	x->waits[1] = (tf_ov_wait){ .node = path(x->agg, p2, 2), .kind = TF_OV_LATE_SENDER, .ns = 7000 };
	x->res = (tf_ov_result){ .ranks = x->ranks, .nranks = NR, .steps = x->steps, .nsteps = NR * NS,
				 .stragglers = x->strag, .nstragglers = 1, .waits = x->waits, .nwaits = 2,
				 .steps_from = TF_OV_STEPS_PROFILER, .any_time = true, .start_ns = 1000000000,
				 .end_ns = 1040000000, .late_min_ns = 1000000, .devices = gpu ? NR : 0, .threads = 2 * NR,
				 .coll_matched = 9, .mpi = true };
	x->res.wait_ns[TF_OV_COLL_WAIT] = 1500000;
	x->rows[0] = (tf_ov_row){ .name = strdup("aten::mm"), .value = 9000000, .share = 0.6, .max_rank = -1 };
	x->rows[1] = (tf_ov_row){ .name = strdup(hostile), .value = 6000000, .share = 0.4, .max_rank = -1 };
	x->rows[2] = (tf_ov_row){ .name = strdup("aten::mm"), .value = 4000000, .share = 1.37, .max_rank = 2 };
	static const char *const inputs[] = { "rank0.json", "rank1.json", "rank<2>.json" };
	x->rep = (tf_ov_report){ .ctx = x->ctx, .agg = x->agg, .wall_type = wall, .gpu_type = g, .res = &x->res,
				 .inputs = inputs, .ninputs = NR, .ranks_from = TF_OV_RANKS_FILE_NAMES,
				 .where = x->where, .ntables = 2, .title = "overview & <test>" };
	x->rep.tables[0] = (tf_ov_table){ .title = "CPU functions by self time", .what = "function", .value = "cpu",
					  .rows = x->rows, .n = 2 };
	x->rep.tables[1] = (tf_ov_table){ .title = "imbalance", .what = "function", .value = "max-mean",
					  .imbalance = true, .rows = x->rows + 2, .n = 1 };
}

static void done(fixture *x)
{
	for (int i = 0; i < 3; i++)
		free(x->rows[i].name);
	free(x->where[0]);
	tf_agg_free(x->agg);
	tf_ctx_free(x->ctx);
}

/* The page as a string (malloc'd). */
static char *page(const tf_ov_report *r, size_t *n)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, n);
	assert_non_null(f);
	assert_int_equal(tf_ov_print_html(f, r), 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static size_t count(const char *s, const char *what)
{
	size_t n = 0;
	for (const char *p = strstr(s, what); p; p = strstr(p + 1, what))
		n++;
	return n;
}

static void keep(const char *name, const char *s, size_t n)
{
	const char *dir = getenv("TF_OVHTML_DIR");
	if (!dir)
		return;
	char p[4096];
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	FILE *f = fopen(p, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(s, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
}

/* Valid UTF-8 from end to end (the page's bytes). */
static int utf8_ok(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	for (size_t i = 0; i < n;) {
		int k = p[i] < 0x80 ? 1 : (p[i] & 0xe0) == 0xc0 ? 2 : (p[i] & 0xf0) == 0xe0 ? 3 : (p[i] & 0xf8) == 0xf0 ? 4 : 0;
		if (!k || i + (size_t)k > n)
			return 0;
		for (int j = 1; j < k; j++)
			if ((p[i + j] & 0xc0) != 0x80)
				return 0;
		i += (size_t)k;
	}
	return 1;
}

static void test_gpu_page(void **state)
{
	(void)state;
	fixture x;
	fill(&x, true);
	size_t n, n2;
	char *s = page(&x.rep, &n), *s2 = page(&x.rep, &n2);
	keep("gpu.html", s, n);
	assert_true(n == n2 && !memcmp(s, s2, n)); /* the same bytes twice */
	assert_true(!strncmp(s, "<!DOCTYPE html>\n", 16));
	assert_non_null(strstr(s, "</body>\n</html>\n"));
	assert_true(utf8_ok(s, n));
	assert_int_equal(strlen(s), n); /* no NUL */
	assert_int_equal(count(s, "class=\"ov-cell\""), NR * NS);
	assert_int_equal(count(s, "class=\"ov-mark\""), 1);
	assert_int_equal(count(s, "class=\"ov-bar\""), NR);
	assert_int_equal(count(s, "class=\"ov-seg\""), NR * 5);
	assert_int_equal(count(s, "<svg "), 3); /* heat map, bars, flame graph */
	assert_int_equal(count(s, "<script"), 0);
	assert_int_equal(count(s, "http"), 0);
	assert_int_equal(count(s, "<?xml"), 0);
	/* trace text escaped: the straggler's call path, a table row, a frame
	 * of the flame graph (its own escaping), the wait's call path */
	assert_true(count(s, hostile_html) >= 3);
	assert_non_null(strstr(s, "main;&lt;script&gt;"));
	assert_null(strstr(s, "<script>alert"));
	assert_non_null(strstr(s, "<title>overview &amp; &lt;test&gt;</title>"));
	assert_non_null(strstr(s, "<code>rank&lt;2&gt;.json</code>"));
	/* the straggler: verdict, outlined cell, highlighted row */
	assert_non_null(strstr(s, "straggler</span>: rank 2 at step 11 arrived 3.90 ms after"));
	assert_non_null(strstr(s, "<title>rank 2, step 11 (straggler)\ntime 14.10 ms\ncpu 7.05 ms\nGPU compute 7.05 ms"));
	assert_int_equal(count(s, "class=\"ov-strag-row\""), 1);
	/* the fastest and slowest steps at the ends of the scale */
	assert_non_null(strstr(s, "fastest 10.00 ms"));
	assert_non_null(strstr(s, "14.10 ms slowest"));
	assert_non_null(strstr(s, "fill=\"#bd0026\"><title>rank 2, step 11"));
	assert_non_null(strstr(s, "fill=\"#ffffb2\"><title>rank 0, step 10"));
	/* repairs from the ctx's counters, the GPU flame graph */
	assert_non_null(strstr(s, "exit_mismatch=2"));
	assert_non_null(strstr(s, "GPU time by launching call path"));
	assert_non_null(strstr(s, "<td class=\"ov-n\">1.37</td><td class=\"ov-n\">2</td>"));
	assert_non_null(strstr(s, "Late Sender"));
	free(s);
	free(s2);
	done(&x);
}

static void test_cpu_page(void **state)
{
	(void)state;
	fixture x;
	fill(&x, false);
	x.res.mpi = false;
	size_t n;
	char *s = page(&x.rep, &n);
	keep("cpu.html", s, n);
	assert_int_equal(count(s, "class=\"ov-bar\""), NR);
	assert_int_equal(count(s, "class=\"ov-seg\""), NR * 2);
	assert_non_null(strstr(s, "CPU time per rank"));
	assert_null(strstr(s, "GPU compute"));
	assert_null(strstr(s, "MPI wait states"));
	assert_non_null(strstr(s, "Wall time by call path"));
	assert_int_equal(count(s, "<svg "), 3);
	free(s);
	done(&x);
}

/* No step, no sample: still a page, saying so. */
static void test_empty(void **state)
{
	(void)state;
	fixture x;
	fill(&x, false);
	tf_agg_free(x.agg);
	x.agg = tf_agg_new(tf_ctx_strtab(x.ctx));
	x.rep.agg = x.agg;
	x.rep.wall_type = x.rep.gpu_type = -1;
	x.res.nsteps = x.res.nstragglers = x.res.nwaits = 0;
	x.res.coll_matched = 0;
	for (int r = 0; r < NR; r++)
		x.ranks[r].nsteps = 0;
	size_t n;
	char *s = page(&x.rep, &n);
	assert_non_null(strstr(s, "<p>No step.</p>"));
	assert_non_null(strstr(s, "no straggler: no collective was matched"));
	assert_non_null(strstr(s, "No flame graph"));
	assert_int_equal(count(s, "<svg "), 1); /* the bars, empty */
	assert_non_null(strstr(s, "</html>\n"));
	free(s);
	done(&x);
}

/* Extreme numbers (damaged input): no overflow (the sanitizer build), every
 * cell still drawn, the extremes at the ends of the scale. */
static void test_extreme(void **state)
{
	(void)state;
	fixture x;
	fill(&x, true);
	x.steps[0].time_ns = INT64_MIN;
	x.steps[1].time_ns = INT64_MAX;
	x.steps[1].cpu_ns = INT64_MIN;
	x.steps[2].gpu_idle_ns = INT64_MAX;
	x.steps[3].gpu_idle_ns = INT64_MAX;
	x.res.start_ns = INT64_MIN;
	x.res.end_ns = INT64_MAX;
	size_t n;
	char *s = page(&x.rep, &n);
	assert_int_equal(count(s, "class=\"ov-cell\""), NR * NS);
	assert_non_null(strstr(s, "fill=\"#ffffb2\"><title>rank 0, step 10"));
	assert_non_null(strstr(s, "fill=\"#bd0026\"><title>rank 0, step 11"));
	free(s);
	done(&x);
}

/* A full disk is an error. */
static void test_full(void **state)
{
	(void)state;
	fixture x;
	fill(&x, true);
	FILE *f = fopen("/dev/full", "w");
	if (!f) {
		done(&x);
		skip();
	}
	assert_int_equal(tf_ov_print_html(f, &x.rep), TF_EIO);
	fclose(f);
	done(&x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gpu_page),
		cmocka_unit_test(test_cpu_page),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_extreme),
		cmocka_unit_test(test_full),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
