/* test_agg_pack.c - the packed aggregate (agg_pack.h): round trips over the
 * same and over another string table equal tf_agg_merge (plus the comments),
 * merging A then B, real traces with every counter, the size with thousands
 * of sparse types, and bad bytes: every truncation, byte flips and
 * hand-made damage are errors with the byte offset (or succeed), never a
 * crash, and leave the destination as it was.
 *
 * With TF_AGG_PACK_SEEDS=DIR the packed buffers are also written to DIR
 * (the seeds of tests/fuzz/corpus/agg_pack/). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tracefold/agg.h"
#include "tracefold/agg_pack.h"
#include "tracefold/ctx.h"
#include "tracefold/pipeline.h"
#include "tracefold/pprof.h"

static void seed(const char *name, const void *buf, size_t len)
{
	const char *dir = getenv("TF_AGG_PACK_SEEDS");
	if (!dir || !*dir || len >= 8000)
		return;
	char p[1024];
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	FILE *f = fopen(p, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(buf, 1, len, f), len);
	fclose(f);
}

static tf_str S(tf_strtab *st, const char *s) { return tf_strtab_intern_cstr(st, s); }

/* Strings of the aggregates below, to pre-intern elsewhere in another order. */
static const char *const words[] = {
	"calls", "count", "wall", "nanoseconds", "d2", "d3", "d4", "d5", "d6", "d7", "bytes", "main", "worker",
	"thread", "rank", "step", "app", "other", "", "f\xc3\xa9", "a;b", "counter:c0", "counter:c7",
};

/* An aggregate with 8 dense types, sparse counters, labels of each kind,
 * zero-valued samples, extreme values, meta and comments.  v varies it. */
static tf_agg *make_agg(tf_strtab *st, int v)
{
	tf_agg *a = tf_agg_new(st);
	assert_non_null(a);
	assert_int_equal(tf_agg_type(a, "calls", "count"), 0);
	assert_int_equal(tf_agg_type(a, "wall", "nanoseconds"), 1);
	char n[64];
	for (int t = 2; t < TF_AGG_DENSE_TYPES; t++) {
		snprintf(n, sizeof(n), "d%d", v ? 9 - t : t); /* B: same names, other order */
		assert_true(tf_agg_type(a, n, "count") >= 0);
	}
	int nsparse = v ? 14 : 20;
	for (int k = 0; k < nsparse; k++) {
		snprintf(n, sizeof(n), "counter:c%d", v ? 30 - 2 * k : k); /* some shared, some new */
		assert_true(tf_agg_type(a, n, (v ? 30 - 2 * k : k) % 3 == 1 ? "bytes" : "count") >= TF_AGG_DENSE_TYPES);
	}
	int nt = tf_agg_ntypes(a);
	tf_agg_set_default_type(a, v ? 3 : 1);
	tf_label l1[2] = { { S(st, "thread"), S(st, v ? "worker" : "main"), 0, 0 }, { S(st, "rank"), 0, v, 0 } };
	tf_label l2[1] = { { S(st, "bytes"), 0, -4096 - v, S(st, "bytes") } };
	tf_label l3[1] = { { S(st, "step"), 0, 7, 0 } };
	uint32_t ls[4] = { tf_agg_labelset(a, NULL, 0), tf_agg_labelset(a, l1, 2), tf_agg_labelset(a, l2, 1),
			   tf_agg_labelset(a, l3, 1) };
	const char *frames[] = { "main", "f\xc3\xa9", "a;b", "", "leaf" };
	uint32_t nodes[12];
	int nn = 0;
	nodes[nn++] = TF_AGG_ROOT;
	for (int d = 0; d < 5; d++) { /* a chain and a few siblings */
		uint32_t parent = nodes[nn - 1];
		nodes[nn++] = tf_agg_child(a, parent, S(st, frames[d]));
	}
	for (int d = 0; d < 4; d++) {
		snprintf(n, sizeof(n), "sib%d_%d", d, v);
		nodes[nn++] = tf_agg_child(a, nodes[1 + d], S(st, n));
	}
	for (int i = 0; i < nn; i++)
		for (int l = 0; l < 4; l++) {
			if ((i + l + v) % 3 == 0)
				continue;
			uint32_t nd = nodes[(i + v) % nn];
			if ((i * 7 + l) % 5 == 0) { /* a sample without values */
				assert_non_null(tf_agg_values(a, nd, ls[l]));
				continue;
			}
			assert_int_equal(tf_agg_add(a, nd, ls[l], 0, 1 + i), 0);
			assert_int_equal(tf_agg_add(a, nd, ls[l], 1, (int64_t)1000 * i - 3000 * l), 0);
			assert_int_equal(tf_agg_add(a, nd, ls[l], 2 + (i + l) % 6, i == 3 ? INT64_MIN : INT64_MAX - i), 0);
			assert_int_equal(tf_agg_add(a, nd, ls[l], TF_AGG_DENSE_TYPES + (i * 3 + l) % (nt - TF_AGG_DENSE_TYPES),
						    -(int64_t)i * 77 + 5),
					 0);
			int t2 = TF_AGG_DENSE_TYPES + (i + 5 * l) % (nt - TF_AGG_DENSE_TYPES);
			assert_int_equal(tf_agg_add(a, nd, ls[l], t2, 123456789012345ll), 0);
			if (l == 2) /* a sparse entry back to 0 */
				assert_int_equal(tf_agg_add(a, nd, ls[l], t2, -123456789012345ll), 0);
		}
	tf_agg_meta *m = tf_agg_meta_get(a);
	m->time_nanos = v ? 800 : 1000;
	m->duration_nanos = v ? 100 : 500;
	m->period = 3;
	m->main_file = S(st, v ? "other" : "app");
	snprintf(n, sizeof(n), "comment %d", v);
	assert_int_equal(tf_agg_comment(a, n), 0);
	assert_int_equal(tf_agg_comment(a, "input: x.json (chrome)"), 0);
	return a;
}

/* tf_agg_merge(dst, src, 1) plus src's comments: what unpack promises. */
static void ref_merge(tf_agg *dst, const tf_agg *src)
{
	assert_int_equal(tf_agg_merge(dst, src, 1), 0);
	for (size_t i = 0; i < tf_agg_ncomments(src); i++)
		assert_int_equal(tf_agg_comment(dst, tf_agg_comment_get(src, i)), 0);
}

static int label_cmp(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

static void put_str(FILE *f, const tf_strtab *st, tf_str s)
{
	fprintf(f, "[%zu:", tf_strtab_len(st, s));
	fwrite(tf_strtab_get(st, s), 1, tf_strtab_len(st, s), f);
	fputc(']', f);
}

/* Everything tf_agg_merge carries, by strings (independent of tf_str ids):
 * types, default, meta, comments, nodes, and each sample (in order) with its
 * path, labels (sorted by text) and every value. */
static char *dump(tf_agg *a)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	const tf_strtab *st = tf_agg_strtab(a);
	int nt = tf_agg_ntypes(a);
	fprintf(f, "types %d:", nt);
	for (int t = 0; t < nt; t++) {
		put_str(f, st, tf_agg_type_get(a, t).type);
		put_str(f, st, tf_agg_type_get(a, t).unit);
	}
	fprintf(f, "\ndefault %d\n", tf_agg_default_type(a));
	tf_agg_meta *m = tf_agg_meta_get(a);
	fprintf(f, "meta %lld %lld %lld ", (long long)m->time_nanos, (long long)m->duration_nanos, (long long)m->period);
	put_str(f, st, m->main_file);
	fprintf(f, "\ncomments %zu\n", tf_agg_ncomments(a));
	for (size_t i = 0; i < tf_agg_ncomments(a); i++)
		fprintf(f, "  %s\n", tf_agg_comment_get(a, i));
	fprintf(f, "nodes %u\n", tf_agg_nnodes(a));
	for (uint32_t n = 1; n < tf_agg_nnodes(a); n++) {
		fprintf(f, "  %u<-%u ", n, tf_agg_node_get(a, n)->parent);
		put_str(f, st, tf_agg_node_get(a, n)->frame);
		fputc('\n', f);
	}
	int64_t *vals = calloc((size_t)nt + 1, sizeof(int64_t));
	fprintf(f, "samples %zu\n", tf_agg_nsamples(a));
	for (size_t i = 0; i < tf_agg_nsamples(a); i++) {
		tf_agg_sample s = tf_agg_sample_get(a, i);
		fprintf(f, "  node %u {", s.node);
		const tf_label *l;
		int nl = tf_agg_labelset_get(a, s.labelset, &l);
		char *txt[TF_AGG_MAX_LABELS];
		for (int j = 0; j < nl; j++) {
			char b[300];
			if (l[j].str)
				snprintf(b, sizeof(b), "%s=%s", tf_strtab_get(st, l[j].key), tf_strtab_get(st, l[j].str));
			else
				snprintf(b, sizeof(b), "%s=#%lld %s", tf_strtab_get(st, l[j].key), (long long)l[j].num,
					 tf_strtab_get(st, l[j].num_unit));
			txt[j] = strdup(b);
		}
		qsort(txt, (size_t)nl, sizeof(char *), label_cmp);
		for (int j = 0; j < nl; j++) {
			fprintf(f, "%s;", txt[j]);
			free(txt[j]);
		}
		fprintf(f, "}");
		tf_agg_sample_values(a, i, vals);
		for (int t = 0; t < nt; t++)
			fprintf(f, " %lld", (long long)vals[t]);
		fputc('\n', f);
	}
	free(vals);
	fclose(f);
	return out;
}

static void assert_same(tf_agg *x, tf_agg *y)
{
	char *a = dump(x), *b = dump(y);
	if (strcmp(a, b) != 0) {
		FILE *f1 = fopen("/tmp/tf_pack_want.txt", "w"), *f2 = fopen("/tmp/tf_pack_got.txt", "w");
		fputs(a, f1);
		fputs(b, f2);
		fclose(f1);
		fclose(f2);
		fail_msg("aggregates differ (/tmp/tf_pack_want.txt, /tmp/tf_pack_got.txt)");
	}
	free(a);
	free(b);
}

static void assert_same_pprof(tf_agg *x, tf_agg *y)
{
	unsigned char *b1, *b2;
	size_t l1, l2;
	tf_error err;
	tf_error_clear(&err);
	assert_int_equal(tf_pprof_encode(x, &b1, &l1, &err), 0);
	assert_int_equal(tf_pprof_encode(y, &b2, &l2, &err), 0);
	assert_int_equal(l1, l2);
	assert_memory_equal(b1, b2, l1);
	free(b1);
	free(b2);
}

static void pack(const tf_agg *a, void **buf, size_t *len)
{
	assert_int_equal(tf_agg_pack(a, buf, len), 0);
	assert_non_null(*buf);
	assert_true(*len > 8);
}

static void unpack_ok(tf_agg *dst, const void *buf, size_t len)
{
	tf_error err;
	tf_error_clear(&err);
	int rc = tf_agg_unpack_merge(dst, buf, len, "rank 3", &err);
	if (rc < 0)
		fail_msg("unpack: %d %s", rc, err.msg);
}

/* A string table with our words (and junk) interned in another order. */
static tf_strtab *other_strtab(void)
{
	tf_strtab *st = tf_strtab_new();
	S(st, "junk 1");
	for (size_t i = sizeof(words) / sizeof(words[0]); i-- > 0;) {
		S(st, words[i]);
		if (i % 4 == 0)
			S(st, "junk");
	}
	return st;
}

static void test_round_trip(void **state)
{
	(void)state;
	tf_strtab *st = tf_strtab_new();
	tf_agg *a = make_agg(st, 0);
	assert_true(tf_agg_ntypes(a) > TF_AGG_DENSE_TYPES + 10);
	void *buf;
	size_t len;
	pack(a, &buf, &len);
	seed("a", buf, len);

	/* same string table: identical, to the pprof byte */
	tf_agg *ref = tf_agg_new(st), *got = tf_agg_new(st);
	ref_merge(ref, a);
	unpack_ok(got, buf, len);
	assert_same(ref, got);
	assert_same_pprof(ref, got);
	/* the packed aggregate itself, less what merge does not take (period) */
	tf_agg_meta_get(a)->period = 1;
	assert_same(a, got);

	/* another string table, strings interned in another order */
	tf_strtab *st2 = other_strtab();
	tf_agg *got2 = tf_agg_new(st2);
	unpack_ok(got2, buf, len);
	assert_same(ref, got2);
	/* packing what came back gives the same size (same strings and values) */
	void *buf2;
	size_t len2;
	pack(got2, &buf2, &len2);
	assert_int_equal(len2, len);
	free(buf2);

	/* an empty aggregate */
	tf_agg *e = tf_agg_new(st), *e2 = tf_agg_new(st2);
	void *eb;
	size_t el;
	pack(e, &eb, &el);
	seed("empty", eb, el);
	unpack_ok(e2, eb, el);
	assert_same(e, e2);
	unpack_ok(got2, eb, el); /* adding nothing changes nothing */
	assert_same(ref, got2);
	free(eb);

	free(buf);
	tf_agg_free(a);
	tf_agg_free(ref);
	tf_agg_free(got);
	tf_agg_free(got2);
	tf_agg_free(e);
	tf_agg_free(e2);
	tf_strtab_free(st);
	tf_strtab_free(st2);
}

/* dst starting with its own content: other type order, a default type, a
 * main file and a span; then A and B added. */
static tf_agg *make_dst(tf_strtab *st)
{
	tf_agg *d = tf_agg_new(st);
	assert_int_equal(tf_agg_type(d, "wall", "nanoseconds"), 0);
	assert_int_equal(tf_agg_type(d, "counter:c7", "bytes"), 1);
	tf_label l = { S(st, "thread"), S(st, "main"), 0, 0 };
	uint32_t ls = tf_agg_labelset(d, &l, 1);
	uint32_t n = tf_agg_child(d, tf_agg_child(d, 0, S(st, "main")), S(st, "mine"));
	assert_int_equal(tf_agg_add(d, n, ls, 0, 5), 0);
	assert_int_equal(tf_agg_add(d, n, ls, 1, 6), 0);
	tf_agg_meta *m = tf_agg_meta_get(d);
	m->time_nanos = 900;
	m->duration_nanos = 50;
	m->period = 2;
	assert_int_equal(tf_agg_comment(d, "dst's own"), 0);
	return d;
}

static void test_merge_a_then_b(void **state)
{
	(void)state;
	tf_strtab *st = tf_strtab_new();
	tf_agg *a = make_agg(st, 0), *b = make_agg(st, 1);
	void *pa, *pb;
	size_t la, lb;
	pack(a, &pa, &la);
	pack(b, &pb, &lb);
	seed("b", pb, lb);
	tf_strtab *st2 = other_strtab();
	for (int with_dst = 0; with_dst < 2; with_dst++) {
		tf_agg *ref = with_dst ? make_dst(st) : tf_agg_new(st);
		tf_agg *got = with_dst ? make_dst(st2) : tf_agg_new(st2);
		tf_agg *got1 = with_dst ? make_dst(st) : tf_agg_new(st);
		ref_merge(ref, a);
		ref_merge(ref, b);
		unpack_ok(got, pa, la);
		unpack_ok(got, pb, lb);
		assert_same(ref, got);
		unpack_ok(got1, pa, la);
		unpack_ok(got1, pb, lb);
		assert_same_pprof(ref, got1);
		if (!with_dst) { /* the merged result, packed: a seed with both */
			void *p;
			size_t l;
			pack(got, &p, &l);
			seed("a+b", p, l);
			free(p);
		}
		/* meta: earliest start, latest end; main file and default type dst's first */
		tf_agg_meta *m = tf_agg_meta_get(got);
		assert_int_equal(m->time_nanos, 800);
		assert_int_equal(m->duration_nanos, 700);
		assert_int_equal(m->period, with_dst ? 2 : 1);
		assert_string_equal(tf_strtab_get(st2, m->main_file), "app");
		assert_int_equal(tf_agg_ncomments(got), with_dst ? 5 : 4);
		tf_agg_free(ref);
		tf_agg_free(got);
		tf_agg_free(got1);
	}
	/* a type whose unit differs from dst's: TF_ECLASH, dst unchanged */
	tf_agg *c = tf_agg_new(st2);
	assert_int_equal(tf_agg_type(c, "counter:c1", "seconds"), 0);
	char *before = dump(c);
	tf_error err;
	tf_error_clear(&err);
	assert_int_equal(tf_agg_unpack_merge(c, pa, la, "rank 1", &err), TF_ECLASH);
	assert_string_equal(err.path, "rank 1");
	assert_non_null(strstr(err.msg, "counter:c1"));
	char *after = dump(c);
	assert_string_equal(before, after);
	free(before);
	free(after);
	tf_agg_free(c);
	free(pa);
	free(pb);
	tf_agg_free(a);
	tf_agg_free(b);
	tf_strtab_free(st);
	tf_strtab_free(st2);
}

static int count_cb(void *arg, int t, int64_t v)
{
	(void)t;
	assert_true(v != 0);
	(*(int *)arg)++;
	return 0;
}

static int stop_cb(void *arg, int t, int64_t v)
{
	(void)t;
	(void)v;
	return ++*(int *)arg == 2 ? TF_ESTOP : 0;
}

/* Thousands of sparse types, each in a few samples: the bytes grow with the
 * values, not with samples x types. */
static void test_many_sparse(void **state)
{
	(void)state;
	enum { N = 3000 };
	tf_strtab *st = tf_strtab_new();
	tf_agg *a = tf_agg_new(st);
	tf_agg_type(a, "calls", "count");
	tf_agg_type(a, "wall", "nanoseconds");
	uint32_t ls = tf_agg_labelset(a, NULL, 0);
	char n[64];
	for (int k = 0; k < N; k++) {
		snprintf(n, sizeof(n), "counter:%d", k);
		int t = tf_agg_type(a, n, "count");
		snprintf(n, sizeof(n), "r%d", k);
		uint32_t nd = tf_agg_child(a, 0, S(st, n));
		assert_int_equal(tf_agg_add(a, nd, ls, 0, 1), 0);
		assert_int_equal(tf_agg_add(a, nd, ls, t, k + 1), 0);
	}
	int c = 0;
	tf_agg_sample_each(a, 5, count_cb, &c);
	assert_int_equal(c, 2);
	c = 0;
	assert_int_equal(tf_agg_sample_each(a, 5, stop_cb, &c), TF_ESTOP);
	void *buf;
	size_t len;
	pack(a, &buf, &len);
	assert_true(len < 20 * N + 40 * N); /* ~ strings + 9 bytes a sample */
	tf_strtab *st2 = other_strtab();
	tf_agg *got = tf_agg_new(st2), *ref = tf_agg_new(st);
	unpack_ok(got, buf, len);
	ref_merge(ref, a);
	assert_same(ref, got);
	free(buf);

	/* a small one for the fuzz seeds */
	tf_agg *small = tf_agg_new(st);
	for (int k = 0; k < 300; k += 7) {
		snprintf(n, sizeof(n), "counter:%d", k);
		int t = tf_agg_type(small, n, k % 2 ? "bytes" : "count");
		assert_int_equal(tf_agg_add(small, tf_agg_child(small, 0, S(st, "x")), ls, t, -k), 0);
	}
	/* its samples name label set 0, which it never made (read as no
	 * labels): packed with an empty label set */
	assert_int_equal(tf_agg_nlabelsets(small), 0);
	pack(small, &buf, &len);
	seed("sparse", buf, len);
	tf_agg *sg = tf_agg_new(st2);
	unpack_ok(sg, buf, len);
	assert_int_equal(tf_agg_nlabelsets(sg), 1);
	assert_same(small, sg);
	tf_agg_free(sg);
	free(buf);
	tf_agg_free(small);
	tf_agg_free(a);
	tf_agg_free(got);
	tf_agg_free(ref);
	tf_strtab_free(st);
	tf_strtab_free(st2);
}

/* Real traces with every counter and the run's comments. */
static void test_fixtures(void **state)
{
	(void)state;
	static const char *const all[] = { "all", NULL };
	static const char *const paths[] = { "tests/data/tau/mpi_small", "tests/data/otf2/scorep-ping-pong-mpi/traces.otf2",
					     "tests/data/otf2/tiny_otf2/traces.otf2" };
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		tf_ctx *ctx = tf_ctx_new();
		tf_agg *agg = tf_agg_new(tf_ctx_strtab(ctx));
		tf_pipeline_opts o = { .counters = all, .comments = true };
		tf_error err;
		tf_error_clear(&err);
		if (tf_pipeline_run(ctx, agg, &paths[i], 1, &o, &err) < 0)
			fail_msg("%s: %s", paths[i], err.msg);
		void *buf;
		size_t len;
		pack(agg, &buf, &len);
		char name[32];
		snprintf(name, sizeof(name), "fixture%zu", i);
		seed(name, buf, len);
		tf_strtab *st2 = other_strtab();
		tf_agg *got = tf_agg_new(st2), *ref = tf_agg_new(tf_ctx_strtab(ctx));
		unpack_ok(got, buf, len);
		unpack_ok(got, buf, len); /* twice: every value doubled */
		ref_merge(ref, agg);
		ref_merge(ref, agg);
		assert_same(ref, got);
		free(buf);
		tf_agg_free(got);
		tf_agg_free(ref);
		tf_strtab_free(st2);
		tf_agg_free(agg);
		tf_ctx_free(ctx);
	}
}

/* Unpacks bytes into a copy of make_dst's aggregate: 0, or an error that
 * names what and (TF_EFORMAT) a byte offset inside the bytes, dst unchanged. */
static int try_bad(const unsigned char *bytes, size_t n, const char *before, tf_strtab *st)
{
	unsigned char *exact = malloc(n ? n : 1); /* ASan sees reads past the end */
	memcpy(exact, bytes, n);
	tf_agg *d = make_dst(st);
	tf_error err;
	tf_error_clear(&err);
	int rc = tf_agg_unpack_merge(d, exact, n, "bad.bin", &err);
	if (rc < 0) {
		assert_true(rc == TF_EFORMAT || rc == TF_ECLASH);
		assert_int_equal(err.code, rc);
		assert_string_equal(err.path, "bad.bin");
		assert_true(err.msg[0] != '\0');
		if (rc == TF_EFORMAT)
			assert_true(err.offset >= 0 && (size_t)err.offset <= n);
		char *after = dump(d);
		assert_string_equal(before, after);
		free(after);
	} else {
		unsigned char *pb;
		size_t pl;
		assert_int_equal(tf_pprof_encode(d, &pb, &pl, &err), 0);
		free(pb);
	}
	tf_agg_free(d);
	free(exact);
	return rc;
}

static void test_damage(void **state)
{
	(void)state;
	tf_strtab *st = tf_strtab_new();
	tf_agg *a = make_agg(st, 0);
	unsigned char *buf;
	size_t len;
	pack(a, (void **)&buf, &len);
	tf_strtab *st2 = other_strtab();
	tf_agg *d0 = make_dst(st2);
	char *before = dump(d0);
	tf_agg_free(d0);
	/* every truncation is an error */
	for (size_t n = 0; n < len; n++)
		assert_int_equal(try_bad(buf, n, before, st2), TF_EFORMAT);
	assert_int_equal(try_bad(buf, len, before, st2), 0);
	/* byte flips: an error or a success, never a crash */
	unsigned char *cp = malloc(len + 1);
	static const unsigned char masks[] = { 0x01, 0x02, 0x40, 0x80, 0xff };
	int errors = 0;
	for (size_t i = 0; i < len; i++)
		for (size_t k = 0; k < sizeof(masks); k++) {
			memcpy(cp, buf, len);
			cp[i] ^= masks[k];
			errors += try_bad(cp, len, before, st2) < 0;
		}
	assert_true(errors > 0);
	/* one byte more: trailing bytes */
	memcpy(cp, buf, len);
	cp[len] = 0;
	assert_int_equal(try_bad(cp, len + 1, before, st2), TF_EFORMAT);
	free(cp);
	free(before);
	free(buf);
	tf_agg_free(a);
	tf_strtab_free(st);
	tf_strtab_free(st2);
}

/* Hand-made buffers: each error names its byte offset. */
typedef struct hb {
	unsigned char b[256];
	size_t n;
} hb;

static void hu(hb *h, uint64_t v)
{
	do {
		h->b[h->n++] = (unsigned char)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
}

static void hstr(hb *h, const char *s)
{
	hu(h, strlen(s));
	memcpy(h->b + h->n, s, strlen(s));
	h->n += strlen(s);
}

/* Header, strings "f", "g", "count"; types as given (pairs of indices). */
static void head(hb *h, int ntypes, const int *types)
{
	memcpy(h->b, "TFAGG1", 7);
	h->n = 7;
	hu(h, 1);
	hu(h, 3);
	hstr(h, "f");
	hstr(h, "g");
	hstr(h, "count");
	hu(h, (uint64_t)ntypes);
	for (int i = 0; i < 2 * ntypes; i++)
		hu(h, (uint64_t)types[i]);
	hu(h, 0);          /* default */
	for (int i = 0; i < 4; i++)
		hu(h, 0);  /* meta */
	hu(h, 0);          /* comments */
}

static void expect(hb *h, int code, size_t off, const char *needle)
{
	tf_strtab *st = tf_strtab_new();
	tf_agg *d = tf_agg_new(st);
	tf_error err;
	tf_error_clear(&err);
	unsigned char *exact = malloc(h->n);
	memcpy(exact, h->b, h->n);
	int rc = tf_agg_unpack_merge(d, exact, h->n, "h.bin", &err);
	if (rc != code || (code == TF_EFORMAT && err.offset != (int64_t)off) ||
	    (needle && !strstr(err.msg, needle)))
		fail_msg("rc %d (want %d), offset %lld (want %zu): %s", rc, code, (long long)err.offset, off, err.msg);
	if (code < 0)
		assert_int_equal(tf_agg_nnodes(d), 1);
	free(exact);
	tf_agg_free(d);
	tf_strtab_free(st);
}

static void test_hand_made(void **state)
{
	(void)state;
	static const int one[] = { 0, 2 }, dup[] = { 0, 2, 0, 1 };
	hb h;
	/* a valid one: node 1 "f", node 2 "g" under it, a sample at 2 */
	head(&h, 1, one);
	hu(&h, 2);
	hu(&h, 0);
	hu(&h, 0);
	hu(&h, 1);
	hu(&h, 1);
	hu(&h, 1); /* label sets: one, empty */
	hu(&h, 0);
	hu(&h, 1); /* samples */
	hu(&h, 2);
	hu(&h, 0);
	hu(&h, 1);
	hu(&h, 0);
	hu(&h, 2 * 7); /* zigzag 7 */
	expect(&h, 0, 0, NULL);
	/* magic, version */
	h.b[0] = 'X';
	expect(&h, TF_EFORMAT, 0, "magic");
	h.b[0] = 'T';
	h.b[7] = 2;
	expect(&h, TF_EFORMAT, 7, "version 2");
	/* a parent after its child (node 1's parent must be the root) */
	head(&h, 1, one);
	hu(&h, 1);
	size_t at = h.n;
	hu(&h, 1);
	hu(&h, 0);
	expect(&h, TF_EFORMAT, at, "node parent 1");
	/* a frame string out of range */
	head(&h, 1, one);
	hu(&h, 1);
	hu(&h, 0);
	at = h.n;
	hu(&h, 3);
	expect(&h, TF_EFORMAT, at, "node frame 3");
	/* a count the bytes cannot hold */
	head(&h, 1, one);
	at = h.n;
	hu(&h, 1000000);
	expect(&h, TF_EFORMAT, at, "node count");
	/* a sample type named twice (units differ) */
	head(&h, 2, dup);
	hu(&h, 0);
	hu(&h, 0);
	hu(&h, 0);
	expect(&h, TF_EFORMAT, 7 + 1 + 1 + 2 + 2 + 6 + 1 + 2, "twice");
	/* too many labels, a value of a type that is not there */
	head(&h, 1, one);
	hu(&h, 0);
	hu(&h, 1);
	at = h.n;
	hu(&h, TF_AGG_MAX_LABELS + 1);
	expect(&h, TF_EFORMAT, at, "label count");
	head(&h, 1, one);
	hu(&h, 0);
	hu(&h, 1);
	hu(&h, 0);
	hu(&h, 1);
	hu(&h, 0);
	hu(&h, 0);
	hu(&h, 1);
	at = h.n;
	hu(&h, 1);
	hu(&h, 2);
	expect(&h, TF_EFORMAT, at, "value type 1");
	/* an overlong varint */
	head(&h, 0, NULL);
	at = h.n;
	for (int i = 0; i < 11; i++)
		h.b[h.n++] = 0x80;
	hu(&h, 0);
	expect(&h, TF_EFORMAT, at, "varint");
	/* NULL buffer */
	tf_strtab *st = tf_strtab_new();
	tf_agg *d = tf_agg_new(st);
	tf_error err;
	tf_error_clear(&err);
	assert_int_equal(tf_agg_unpack_merge(d, NULL, 0, "nil", &err), TF_EFORMAT);
	assert_int_equal(err.offset, 0);
	tf_agg_free(d);
	tf_strtab_free(st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_merge_a_then_b),
		cmocka_unit_test(test_many_sparse),
		cmocka_unit_test(test_fixtures),
		cmocka_unit_test(test_damage),
		cmocka_unit_test(test_hand_made),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
