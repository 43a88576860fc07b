/* test_agg_order.c - the aggregate's canonical orders: tf_agg_sample_order
 * (call paths in preorder by frame bytes, then label sets by content),
 * labels inside a label set by content, tf_agg_permute_types (dense and
 * sparse values, default type), tf_agg_sink_order_types, and pprof bytes
 * that do not depend on the order an aggregate was built in. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include "tracefold/agg.h"
#include "tracefold/agg_sink.h"
#include "tracefold/pprof.h"

static tf_str S(tf_strtab *st, const char *s) { return tf_strtab_intern_cstr(st, s); }

/* The node of path "a;b;c". */
static uint32_t path(tf_agg *a, const char *p)
{
	tf_strtab *st = tf_agg_strtab(a);
	char buf[256];
	strcpy(buf, p);
	uint32_t n = TF_AGG_ROOT;
	for (char *s = strtok(buf, ";"); s; s = strtok(NULL, ";"))
		n = tf_agg_child(a, n, S(st, s));
	return n;
}

/* "a;b;c|k=v" of sample i. */
static void sample_text(const tf_agg *a, size_t i, char *out, size_t len)
{
	const tf_strtab *st = tf_agg_strtab(a);
	tf_agg_sample s = tf_agg_sample_get(a, i);
	const char *fr[32];
	int d = 0;
	for (uint32_t n = s.node; n != TF_AGG_ROOT; n = tf_agg_node_get(a, n)->parent)
		fr[d++] = tf_strtab_get(st, tf_agg_node_get(a, n)->frame);
	out[0] = '\0';
	while (d--) {
		strncat(out, fr[d], len - strlen(out) - 1);
		if (d)
			strncat(out, ";", len - strlen(out) - 1);
	}
	const tf_label *l;
	int nl = tf_agg_labelset_get(a, s.labelset, &l);
	for (int k = 0; k < nl; k++) {
		char b[64];
		if (l[k].str)
			snprintf(b, sizeof(b), "|%s=%s", tf_strtab_get(st, l[k].key), tf_strtab_get(st, l[k].str));
		else
			snprintf(b, sizeof(b), "|%s=%lld", tf_strtab_get(st, l[k].key), (long long)l[k].num);
		strncat(out, b, len - strlen(out) - 1);
	}
}

static const char *const paths[] = { "b", "a;z", "a", "ab", "a;y;x", "a;y", "b;a", "" };
/* the same label sets, the keys given in different orders */
static uint32_t lset(tf_agg *a, int which, int reversed)
{
	tf_strtab *st = tf_agg_strtab(a);
	tf_label l[3] = { { S(st, "thread"), S(st, "t1"), 0, 0 }, { S(st, "rank"), 0, which, 0 },
			  { S(st, "pid"), S(st, which ? "9" : "10"), 0, 0 } };
	if (reversed) {
		tf_label t = l[0];
		l[0] = l[2];
		l[2] = t;
	}
	return tf_agg_labelset(a, l, 3);
}

/* An aggregate with the same content, built in order (rev = 0) or backwards,
 * with the strings interned in another order. */
static tf_agg *build(tf_strtab *st, int rev)
{
	tf_agg *a = tf_agg_new(st);
	assert_non_null(a);
	assert_int_equal(tf_agg_type(a, "calls", "count"), 0);
	assert_int_equal(tf_agg_type(a, "wall", "nanoseconds"), 1);
	tf_agg_set_default_type(a, 1);
	size_t np = sizeof(paths) / sizeof(paths[0]) - 1;
	for (size_t k = 0; k < np * 2; k++) {
		size_t j = rev ? np * 2 - 1 - k : k;
		uint32_t n = path(a, paths[j % np]);
		uint32_t l = lset(a, (int)(j / np), rev);
		assert_int_equal(tf_agg_add(a, n, l, 0, 1), 0);
		assert_int_equal(tf_agg_add(a, n, l, 1, (int64_t)(j % np) * 10 + 1), 0);
	}
	return a;
}

static void test_sample_order(void **state)
{
	(void)state;
	tf_strtab *st1 = tf_strtab_new(), *st2 = tf_strtab_new();
	/* st2 interns the label keys and frames in another order first */
	static const char *const pre[] = { "thread", "rank", "pid", "z", "b", "ab" };
	for (size_t k = 0; k < sizeof(pre) / sizeof(pre[0]); k++)
		S(st2, pre[k]);
	tf_agg *a = build(st1, 0), *b = build(st2, 1);
	uint32_t *oa, *ob;
	assert_int_equal(tf_agg_sample_order(a, &oa), 0);
	assert_int_equal(tf_agg_sample_order(b, &ob), 0);
	static const char *const want[] = {
		"a|pid=10|rank=0|thread=t1", "a|pid=9|rank=1|thread=t1",
		"a;y|pid=10|rank=0|thread=t1", "a;y|pid=9|rank=1|thread=t1",
		"a;y;x|pid=10|rank=0|thread=t1", "a;y;x|pid=9|rank=1|thread=t1",
		"a;z|pid=10|rank=0|thread=t1", "a;z|pid=9|rank=1|thread=t1",
		"ab|pid=10|rank=0|thread=t1", "ab|pid=9|rank=1|thread=t1",
		"b|pid=10|rank=0|thread=t1", "b|pid=9|rank=1|thread=t1",
		"b;a|pid=10|rank=0|thread=t1", "b;a|pid=9|rank=1|thread=t1",
	};
	assert_int_equal(tf_agg_nsamples(a), sizeof(want) / sizeof(want[0]));
	assert_int_equal(tf_agg_nsamples(b), sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < tf_agg_nsamples(a); i++) {
		char ta[256], tb[256];
		sample_text(a, oa[i], ta, sizeof(ta));
		sample_text(b, ob[i], tb, sizeof(tb));
		assert_string_equal(ta, want[i]);
		assert_string_equal(tb, want[i]);
		assert_int_equal(tf_agg_sample_value(a, oa[i], 1), tf_agg_sample_value(b, ob[i], 1));
	}
	/* built in another order: the same pprof bytes */
	unsigned char *pa, *pb;
	size_t la, lb;
	assert_int_equal(tf_pprof_encode(a, &pa, &la, NULL), 0);
	assert_int_equal(tf_pprof_encode(b, &pb, &lb, NULL), 0);
	assert_int_equal(la, lb);
	assert_memory_equal(pa, pb, la);
	free(pa);
	free(pb);
	free(oa);
	free(ob);
	tf_agg_free(a);
	tf_agg_free(b);
	/* an empty aggregate */
	tf_agg *e = tf_agg_new(st1);
	uint32_t *oe = NULL;
	assert_int_equal(tf_agg_sample_order(e, &oe), 0);
	assert_non_null(oe);
	free(oe);
	tf_agg_free(e);
	tf_strtab_free(st1);
	tf_strtab_free(st2);
}

static void test_permute_types(void **state)
{
	(void)state;
	tf_strtab *st = tf_strtab_new();
	tf_agg *a = tf_agg_new(st);
	enum { NT = TF_AGG_DENSE_TYPES + 4 }; /* dense and sparse */
	char name[32];
	for (int t = 0; t < NT; t++) {
		snprintf(name, sizeof(name), "t%d", t);
		assert_int_equal(tf_agg_type(a, name, "count"), t);
	}
	tf_agg_set_default_type(a, 2);
	uint32_t l = tf_agg_labelset(a, NULL, 0);
	for (int s = 0; s < 5; s++) {
		snprintf(name, sizeof(name), "f%d", s);
		uint32_t n = tf_agg_child(a, TF_AGG_ROOT, S(st, name));
		for (int t = 0; t < NT; t++)
			if ((s + t) % 3) /* some values 0: nothing stored for sparse ones */
				assert_int_equal(tf_agg_add(a, n, l, t, 100 * s + t + 1), 0);
	}
	/* reversed: dense types become sparse and sparse ones dense */
	int perm[NT];
	for (int i = 0; i < NT; i++)
		perm[i] = NT - 1 - i;
	assert_int_equal(tf_agg_permute_types(a, perm), 0);
	assert_int_equal(tf_agg_ntypes(a), NT);
	assert_int_equal(tf_agg_default_type(a), NT - 1 - 2);
	for (int i = 0; i < NT; i++) {
		snprintf(name, sizeof(name), "t%d", perm[i]);
		assert_string_equal(tf_strtab_get(st, tf_agg_type_get(a, i).type), name);
	}
	int64_t v[NT];
	for (size_t s = 0; s < tf_agg_nsamples(a); s++) {
		tf_agg_sample_values(a, s, v);
		for (int i = 0; i < NT; i++) {
			int t = perm[i];
			int64_t want = ((int)s + t) % 3 ? 100 * (int64_t)s + t + 1 : 0;
			assert_int_equal(tf_agg_sample_value(a, s, i), want);
			assert_int_equal(v[i], want);
		}
	}
	/* adding after a permutation goes to the new index */
	uint32_t n0 = tf_agg_sample_get(a, 0).node;
	int64_t before = tf_agg_sample_value(a, 0, NT - 1);
	assert_int_equal(tf_agg_add(a, n0, l, NT - 1, 5), 0);
	assert_int_equal(tf_agg_sample_value(a, 0, NT - 1), before + 5);
	assert_int_equal(before, 0); /* old type 0 of sample 0 held none: (0 + 0) % 3 == 0 */
	/* not a permutation: refused, nothing changed */
	int bad[NT];
	for (int i = 0; i < NT; i++)
		bad[i] = 0;
	assert_int_equal(tf_agg_permute_types(a, bad), TF_EUSAGE);
	snprintf(name, sizeof(name), "t%d", NT - 1);
	assert_string_equal(tf_strtab_get(st, tf_agg_type_get(a, 0).type), name);
	/* back: the original layout */
	assert_int_equal(tf_agg_permute_types(a, perm), 0);
	assert_int_equal(tf_agg_default_type(a), 2);
	for (size_t s = 1; s < tf_agg_nsamples(a); s++)
		for (int t = 0; t < NT; t++)
			assert_int_equal(tf_agg_sample_value(a, s, t), ((int)s + t) % 3 ? 100 * (int64_t)s + t + 1 : 0);
	tf_agg_free(a);
	tf_strtab_free(st);
}

static void test_order_types(void **state)
{
	(void)state;
	tf_strtab *st = tf_strtab_new();
	tf_agg *a = tf_agg_new(st);
	/* met in this order by a trace */
	const char *met[] = { "calls", "wall", "counter:zeta", "alloc_space", "alloc_objects", "counter:alpha",
			      "gpu", "counter:mid", "counter:beta" };
	int nt = (int)(sizeof(met) / sizeof(met[0]));
	for (int t = 0; t < nt; t++)
		assert_int_equal(tf_agg_type(a, met[t], "count"), t);
	tf_agg_set_default_type(a, 1);
	uint32_t n = tf_agg_child(a, TF_AGG_ROOT, S(st, "f"));
	uint32_t l = tf_agg_labelset(a, NULL, 0);
	for (int t = 0; t < nt; t++)
		assert_int_equal(tf_agg_add(a, n, l, t, t + 1), 0);
	/* -c mid,zeta,all: the named ones in list order, then the others by name */
	const char *const counters[] = { "mid", "zeta", "all", NULL };
	assert_int_equal(tf_agg_sink_order_types(a, counters), 0);
	const char *want[] = { "calls", "wall", "gpu", "alloc_space", "alloc_objects", "counter:mid", "counter:zeta",
			       "counter:alpha", "counter:beta" };
	for (int t = 0; t < nt; t++) {
		tf_sample_type ty = tf_agg_type_get(a, t);
		assert_string_equal(tf_strtab_get(st, ty.type), want[t]);
		int old = -1;
		for (int k = 0; k < nt; k++)
			if (!strcmp(met[k], want[t]))
				old = k;
		assert_int_equal(tf_agg_sample_value(a, 0, t), old + 1);
	}
	assert_int_equal(tf_agg_default_type(a), 1);
	/* -c all alone: every counter by name; already canonical: unchanged */
	const char *const all[] = { "all", NULL };
	assert_int_equal(tf_agg_sink_order_types(a, all), 0);
	assert_string_equal(tf_strtab_get(st, tf_agg_type_get(a, 5).type), "counter:alpha");
	assert_string_equal(tf_strtab_get(st, tf_agg_type_get(a, 8).type), "counter:zeta");
	assert_int_equal(tf_agg_sink_order_types(a, NULL), 0);
	assert_string_equal(tf_strtab_get(st, tf_agg_type_get(a, 2).type), "gpu");
	tf_agg_free(a);
	tf_strtab_free(st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sample_order),
		cmocka_unit_test(test_permute_types),
		cmocka_unit_test(test_order_types),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
