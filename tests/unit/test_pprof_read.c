/* test_pprof_read.c - pprof reader: round trip agg -> pprof -> agg, inline
 * frames, name choice, validation errors, sample-type clashes, meta merge, sniffing. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tracefold/agg.h"
#include "tracefold/pprof.h"
#include "profile.pb-c.h"

static char tmpdir[256];

static int setup(void **state)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/tf-unit-pprof.XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

static const char *tmp(const char *name)
{
	static char buf[4][512];
	static int k;
	k = (k + 1) % 4;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", tmpdir, name);
	return buf[k];
}

static void write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

/* Canonical text of an agg: sorted lines "labels|path|values", zero samples dropped. */
static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *canon(tf_agg *a)
{
	tf_strtab *st = tf_agg_strtab(a);
	size_t n = tf_agg_nsamples(a), k = 0;
	char **lines = calloc(n + 1, sizeof(char *));
	assert_non_null(lines);
	for (size_t i = 0; i < n; i++) {
		tf_agg_sample s = tf_agg_sample_get(a, i);
		if (!tf_agg_sample_nonzero(a, i))
			continue;
		char buf[4096] = "";
		const tf_label *ls;
		int nl = tf_agg_labelset_get(a, s.labelset, &ls);
		/* labels sorted by key text */
		const char *lt[TF_AGG_MAX_LABELS];
		char lbuf[TF_AGG_MAX_LABELS][256];
		for (int j = 0; j < nl; j++) {
			if (ls[j].str)
				snprintf(lbuf[j], 256, "%s=%s", tf_strtab_get(st, ls[j].key), tf_strtab_get(st, ls[j].str));
			else
				snprintf(lbuf[j], 256, "%s=#%lld%s", tf_strtab_get(st, ls[j].key), (long long)ls[j].num,
					 tf_strtab_get(st, ls[j].num_unit));
			lt[j] = lbuf[j];
		}
		qsort(lt, (size_t)nl, sizeof(char *), cmp_str);
		for (int j = 0; j < nl; j++) {
			strcat(buf, lt[j]);
			strcat(buf, ",");
		}
		strcat(buf, "|");
		const char *names[128];
		int d = 0;
		for (uint32_t nd = s.node; nd; nd = tf_agg_node_get(a, nd)->parent)
			names[d++] = tf_strtab_get(st, tf_agg_node_get(a, nd)->frame);
		while (d--) {
			strcat(buf, names[d]);
			strcat(buf, d ? ";" : "|");
		}
		for (int t = 0; t < tf_agg_ntypes(a); t++) {
			char v[64];
			tf_sample_type ty = tf_agg_type_get(a, t);
			snprintf(v, sizeof(v), " %s=%lld", tf_strtab_get(st, ty.type), (long long)tf_agg_sample_value(a, i, t));
			strcat(buf, v);
		}
		lines[k++] = strdup(buf);
	}
	qsort(lines, k, sizeof(char *), cmp_str);
	size_t total = 1;
	for (size_t i = 0; i < k; i++)
		total += strlen(lines[i]) + 1;
	char *out = calloc(total, 1);
	for (size_t i = 0; i < k; i++) {
		strcat(out, lines[i]);
		strcat(out, "\n");
		free(lines[i]);
	}
	free(lines);
	return out;
}

static uint32_t path(tf_agg *a, const char *p)
{
	tf_strtab *st = tf_agg_strtab(a);
	char buf[512];
	snprintf(buf, sizeof(buf), "%s", p);
	uint32_t node = TF_AGG_ROOT;
	for (char *tok = strtok(buf, ";"); tok; tok = strtok(NULL, ";"))
		node = tf_agg_child(a, node, tf_strtab_intern_cstr(st, tok));
	return node;
}

static uint32_t labels(tf_agg *a, const char *rank, const char *thread, int64_t num)
{
	tf_strtab *st = tf_agg_strtab(a);
	tf_label l[3];
	int n = 0;
	l[n++] = (tf_label){ tf_strtab_intern_cstr(st, "rank"), tf_strtab_intern_cstr(st, rank), 0, 0 };
	l[n++] = (tf_label){ tf_strtab_intern_cstr(st, "thread"), tf_strtab_intern_cstr(st, thread), 0, 0 };
	if (num >= 0)
		l[n++] = (tf_label){ tf_strtab_intern_cstr(st, "bytes"), 0, num, tf_strtab_intern_cstr(st, "bytes") };
	return tf_agg_labelset(a, l, n);
}

/* A profile as tracefold builds it: calls + wall, frames with file(line) text, recursion. */
static tf_agg *sample_agg(tf_strtab *st)
{
	tf_agg *a = tf_agg_new(st);
	assert_int_equal(tf_agg_type(a, "calls", "count"), 0);
	assert_int_equal(tf_agg_type(a, "wall", "nanoseconds"), 1);
	tf_agg_set_default_type(a, 1);
	int64_t v[2];
	v[0] = 1, v[1] = 1000;
	tf_agg_add_values(a, path(a, "main"), labels(a, "0", "main", -1), v);
	v[0] = 3, v[1] = 250000;
	tf_agg_add_values(a, path(a, "main;torch/nn/module.py(1501): _call_impl"), labels(a, "0", "main", -1), v);
	v[0] = 2, v[1] = 777;
	tf_agg_add_values(a, path(a, "main;rec;rec;rec"), labels(a, "1", "worker 1", 4096), v);
	v[0] = 0, v[1] = 5;
	tf_agg_add_values(a, path(a, "main;a|b <c> `d`"), labels(a, "1", "main", -1), v);
	v[0] = 0, v[1] = 0; /* all zero: the writer drops it */
	tf_agg_add_values(a, path(a, "main;zero"), labels(a, "1", "main", -1), v);
	tf_agg_meta *m = tf_agg_meta_get(a);
	m->time_nanos = 1700000000000000000ll;
	m->duration_nanos = 5000;
	m->main_file = tf_strtab_intern_cstr(st, "run.trace.json.gz");
	tf_agg_comment(a, "tracefold test");
	return a;
}

static void test_round_trip(void **state)
{
	tf_strtab *st = tf_strtab_new();
	tf_agg *a = sample_agg(st);
	tf_error err;
	tf_error_clear(&err);
	/* gzipped */
	assert_int_equal(tf_pprof_write(a, tmp("rt.pb.gz"), &err), 0);
	/* and raw */
	unsigned char *buf;
	size_t len;
	assert_int_equal(tf_pprof_encode(a, &buf, &len, &err), 0);
	write_file(tmp("rt.pb"), buf, len);
	free(buf);
	char *want = canon(a);
	for (int k = 0; k < 2; k++) {
		tf_strtab *st2 = tf_strtab_new();
		tf_agg *b = tf_agg_new(st2);
		assert_int_equal(tf_pprof_read(b, tmp(k ? "rt.pb" : "rt.pb.gz"), &err), 0);
		char *got = canon(b);
		assert_string_equal(got, want);
		assert_int_equal(tf_agg_ntypes(b), 2);
		assert_int_equal(tf_agg_default_type(b), 1);
		assert_int_equal(tf_agg_meta_get(b)->time_nanos, 1700000000000000000ll);
		assert_int_equal(tf_agg_meta_get(b)->duration_nanos, 5000);
		assert_int_equal(tf_agg_ncomments(b), 1);
		assert_string_equal(tf_agg_comment_get(b, 0), "tracefold test");
		/* the mapping's file name comes back as main_file */
		assert_string_equal(tf_strtab_get(st2, tf_agg_meta_get(b)->main_file), "run.trace.json.gz");
		/* re-encoding the read-back agg gives the same bytes */
		unsigned char *b1, *b2;
		size_t l1, l2;
		assert_int_equal(tf_pprof_encode(a, &b1, &l1, &err), 0);
		assert_int_equal(tf_pprof_encode(b, &b2, &l2, &err), 0);
		assert_int_equal(l1, l2);
		assert_memory_equal(b1, b2, l1);
		free(b1);
		free(b2);
		free(got);
		tf_agg_free(b);
		tf_strtab_free(st2);
	}
	/* reading twice into one agg doubles every value; the span is kept */
	tf_agg *c = tf_agg_new(st);
	assert_int_equal(tf_pprof_read(c, tmp("rt.pb.gz"), &err), 0);
	assert_int_equal(tf_pprof_read(c, tmp("rt.pb"), &err), 0);
	assert_int_equal(tf_agg_ncomments(c), 1); /* identical comments are not repeated */
	tf_agg *d = sample_agg(st);
	assert_int_equal(tf_agg_merge(d, a, 0), 0);
	char *x = canon(c), *y = canon(d);
	assert_string_equal(x, y);
	free(x);
	free(y);
	free(want);
	tf_agg_free(a);
	tf_agg_free(c);
	tf_agg_free(d);
	tf_strtab_free(st);
}

/* A hand-made profile: inlined frames, C++ names, a location without lines. */
typedef Perftools__Profiles__Profile PB_Profile;

typedef struct pb {
	PB_Profile p;
	char *strings[32];
	Perftools__Profiles__ValueType vt[2], *vtp[2];
	Perftools__Profiles__Function fn[4], *fnp[4];
	Perftools__Profiles__Line ln[4], *lnp[4];
	Perftools__Profiles__Location loc[3], *locp[3];
	Perftools__Profiles__Sample smp[2], *smpp[2];
	uint64_t ids0[2], ids1[1];
	int64_t val0[2], val1[2];
	Perftools__Profiles__Label lab[1], *labp[1];
	Perftools__Profiles__Mapping map[2], *mapp[2];
} pb;

static void pb_init(pb *b)
{
	memset(b, 0, sizeof(*b));
	PB_Profile p = PERFTOOLS__PROFILES__PROFILE__INIT;
	b->p = p;
	const char *s[] = { "", "cpu", "nanoseconds", "samples", "count", "outer", "inner",
			    "_ZN3foo3barEv", "foo::bar()", "leaf", "x.cc", "key", "val", "/usr/bin/app",
			    "libc.so.6" };
	for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++)
		b->strings[i] = (char *)s[i];
	b->p.string_table = b->strings;
	b->p.n_string_table = sizeof(s) / sizeof(s[0]);
	for (int i = 0; i < 2; i++) {
		Perftools__Profiles__ValueType v = PERFTOOLS__PROFILES__VALUE_TYPE__INIT;
		b->vt[i] = v;
		b->vtp[i] = &b->vt[i];
	}
	b->vt[0].type = 3, b->vt[0].unit = 4; /* samples/count */
	b->vt[1].type = 1, b->vt[1].unit = 2; /* cpu/nanoseconds */
	b->p.sample_type = b->vtp;
	b->p.n_sample_type = 2;
	/* functions: 1 outer, 2 inner, 3 foo::bar (mangled system name), 4 leaf */
	int64_t names[4][2] = { { 5, 5 }, { 6, 6 }, { 8, 7 }, { 9, 0 } };
	for (int i = 0; i < 4; i++) {
		Perftools__Profiles__Function f = PERFTOOLS__PROFILES__FUNCTION__INIT;
		f.id = (uint64_t)i + 1;
		f.name = names[i][0];
		f.system_name = names[i][1];
		f.filename = 10;
		b->fn[i] = f;
		b->fnp[i] = &b->fn[i];
		Perftools__Profiles__Line l = PERFTOOLS__PROFILES__LINE__INIT;
		b->ln[i] = l;
		b->lnp[i] = &b->ln[i];
	}
	b->p.function = b->fnp;
	b->p.n_function = 4;
	/* location 10: inner inlined into outer (line[0] innermost); 20: foo::bar; 30: no lines */
	for (int i = 0; i < 3; i++) {
		Perftools__Profiles__Location l = PERFTOOLS__PROFILES__LOCATION__INIT;
		b->loc[i] = l;
		b->locp[i] = &b->loc[i];
		b->loc[i].id = (uint64_t)(i + 1) * 10;
	}
	b->ln[0].function_id = 2; /* inner */
	b->ln[1].function_id = 1; /* outer */
	b->ln[2].function_id = 3;
	b->loc[0].line = &b->lnp[0];
	b->loc[0].n_line = 2;
	b->loc[1].line = &b->lnp[2];
	b->loc[1].n_line = 1;
	b->loc[2].address = 0x401000;
	b->p.location = b->locp;
	b->p.n_location = 3;
	/* sample 0: leaf first: foo::bar, then (inner, outer) => outer;inner;foo::bar */
	for (int i = 0; i < 2; i++) {
		Perftools__Profiles__Sample smp0 = PERFTOOLS__PROFILES__SAMPLE__INIT;
		b->smp[i] = smp0;
		b->smpp[i] = &b->smp[i];
	}
	b->ids0[0] = 20, b->ids0[1] = 10;
	b->smp[0].location_id = b->ids0;
	b->smp[0].n_location_id = 2;
	b->val0[0] = 3, b->val0[1] = 30000000;
	b->smp[0].value = b->val0;
	b->smp[0].n_value = 2;
	Perftools__Profiles__Label lb = PERFTOOLS__PROFILES__LABEL__INIT;
	b->lab[0] = lb;
	b->lab[0].key = 11, b->lab[0].str = 12;
	b->labp[0] = &b->lab[0];
	b->smp[0].label = b->labp;
	b->smp[0].n_label = 1;
	b->ids1[0] = 30;
	b->smp[1].location_id = b->ids1;
	b->smp[1].n_location_id = 1;
	b->val1[0] = 1, b->val1[1] = 10000000;
	b->smp[1].value = b->val1;
	b->smp[1].n_value = 2;
	b->p.sample = b->smpp;
	b->p.n_sample = 2;
	b->p.time_nanos = 100;
	b->p.duration_nanos = 50;
	/* mappings 7 (the main binary) and 9 (libc, holding location 30) */
	for (int i = 0; i < 2; i++) {
		Perftools__Profiles__Mapping m = PERFTOOLS__PROFILES__MAPPING__INIT;
		b->map[i] = m;
		b->mapp[i] = &b->map[i];
	}
	b->map[0].id = 7, b->map[0].filename = 13, b->map[0].memory_start = 0x400000, b->map[0].memory_limit = 0x500000;
	b->map[1].id = 9, b->map[1].filename = 14, b->map[1].memory_start = 0x7f0000, b->map[1].memory_limit = 0x800000;
	b->loc[0].mapping_id = 7;
	b->loc[1].mapping_id = 7;
	b->loc[2].mapping_id = 9;
	b->p.mapping = b->mapp;
	b->p.n_mapping = 2;
}

static void pb_write(pb *b, const char *path)
{
	size_t len = perftools__profiles__profile__get_packed_size(&b->p);
	unsigned char *buf = malloc(len + 1);
	perftools__profiles__profile__pack(&b->p, buf);
	write_file(path, buf, len);
	free(buf);
}

static void test_foreign(void **state)
{
	pb b;
	pb_init(&b);
	pb_write(&b, tmp("foreign.pb"));
	assert_true(tf_pprof_sniff(tmp("foreign.pb")));
	tf_strtab *st = tf_strtab_new();
	tf_agg *a = tf_agg_new(st);
	tf_error err;
	tf_error_clear(&err);
	assert_int_equal(tf_pprof_read(a, tmp("foreign.pb"), &err), 0);
	char *got = canon(a);
	assert_string_equal(got, "key=val,|outer;inner;foo::bar()| samples=3 cpu=30000000\n"
				 "|0x401000| samples=1 cpu=10000000\n");
	free(got);
	assert_int_equal(tf_agg_default_type(a), -1); /* none given: viewers take the last */
	/* the first mapping names the profile's main file; written back as our one mapping */
	assert_string_equal(tf_strtab_get(st, tf_agg_meta_get(a)->main_file), "/usr/bin/app");
	unsigned char *buf;
	size_t len;
	assert_int_equal(tf_pprof_encode(a, &buf, &len, &err), 0);
	PB_Profile *q = perftools__profiles__profile__unpack(NULL, len, buf);
	assert_non_null(q);
	assert_int_equal(q->n_mapping, 1);
	assert_int_equal(q->mapping[0]->id, 1);
	assert_string_equal(q->string_table[q->mapping[0]->filename], "/usr/bin/app");
	assert_true(q->mapping[0]->has_functions && q->mapping[0]->has_filenames && q->mapping[0]->has_line_numbers);
	for (size_t i = 0; i < q->n_location; i++)
		assert_int_equal(q->location[i]->mapping_id, 1);
	perftools__profiles__profile__free_unpacked(q, NULL);
	free(buf);
	/* a profile without mappings leaves main_file alone; a later one with them sets it */
	tf_agg *nm = tf_agg_new(st);
	b.p.n_mapping = 0;
	b.loc[0].mapping_id = b.loc[1].mapping_id = b.loc[2].mapping_id = 0;
	pb_write(&b, tmp("nomap.pb"));
	assert_int_equal(tf_pprof_read(nm, tmp("nomap.pb"), &err), 0);
	assert_int_equal(tf_agg_meta_get(nm)->main_file, 0);
	assert_int_equal(tf_pprof_read(nm, tmp("foreign.pb"), &err), 0);
	assert_string_equal(tf_strtab_get(st, tf_agg_meta_get(nm)->main_file), "/usr/bin/app");
	tf_agg_free(nm);
	pb_init(&b);
	/* a second profile with another span: earliest start, latest end */
	b.p.time_nanos = 120;
	b.p.duration_nanos = 100;
	pb_write(&b, tmp("foreign2.pb"));
	assert_int_equal(tf_pprof_read(a, tmp("foreign2.pb"), &err), 0);
	assert_int_equal(tf_agg_meta_get(a)->time_nanos, 100);
	assert_int_equal(tf_agg_meta_get(a)->duration_nanos, 120);
	/* other types than a tracefold profile's: the union, 0 where a profile lacks one */
	tf_agg *ours = sample_agg(st);
	assert_int_equal(tf_pprof_write(ours, tmp("ours.pb.gz"), &err), 0);
	tf_error_clear(&err);
	assert_int_equal(tf_pprof_read(a, tmp("ours.pb.gz"), &err), 0);
	assert_int_equal(tf_agg_ntypes(a), 4);
	assert_true(tf_agg_type_find(a, "calls") >= 0 && tf_agg_type_find(a, "wall") >= 0);
	assert_true(tf_agg_type_find(a, "samples") >= 0 && tf_agg_type_find(a, "cpu") >= 0);
	/* a type of the same name in another unit is a clash, naming both */
	tf_agg *other = tf_agg_new(st);
	assert_int_equal(tf_agg_type(other, "wall", "microseconds"), 0);
	tf_agg_add(other, tf_agg_child(other, TF_AGG_ROOT, tf_strtab_intern_cstr(st, "f")), tf_agg_labelset(other, NULL, 0), 0, 1);
	assert_int_equal(tf_pprof_write(other, tmp("other.pb.gz"), &err), 0);
	assert_int_equal(tf_pprof_read(a, tmp("other.pb.gz"), &err), TF_ECLASH);
	assert_non_null(strstr(err.msg, "wall/microseconds"));
	assert_non_null(strstr(err.msg, "wall/nanoseconds"));
	assert_non_null(strstr(err.path, "other.pb.gz"));
	tf_agg_free(other);
	tf_agg_free(ours);
	tf_agg_free(a);
	tf_strtab_free(st);
}

/* Each damage must give TF_EFORMAT naming the file and saying what. */
static void expect_invalid(pb *b, const char *what)
{
	pb_write(b, tmp("bad.pb"));
	tf_strtab *st = tf_strtab_new();
	tf_agg *a = tf_agg_new(st);
	tf_error err;
	tf_error_clear(&err);
	assert_int_equal(tf_pprof_read(a, tmp("bad.pb"), &err), TF_EFORMAT);
	assert_non_null(strstr(err.path, "bad.pb"));
	if (!strstr(err.msg, what))
		fail_msg("message '%s' lacks '%s'", err.msg, what);
	tf_agg_free(a);
	tf_strtab_free(st);
}

static void test_invalid(void **state)
{
	pb b;
	pb_init(&b);
	b.strings[0] = (char *)"x";
	expect_invalid(&b, "string_table[0]");
	pb_init(&b);
	b.fn[1].id = 1;
	expect_invalid(&b, "function id 1 is defined twice");
	pb_init(&b);
	b.loc[2].id = 0;
	expect_invalid(&b, "location #2 has id 0");
	pb_init(&b);
	b.ids1[0] = 99;
	expect_invalid(&b, "undefined location id 99");
	pb_init(&b);
	b.ln[2].function_id = 77;
	expect_invalid(&b, "undefined function id 77");
	pb_init(&b);
	b.smp[1].n_value = 1;
	expect_invalid(&b, "sample #1 has 1 values");
	pb_init(&b);
	b.fn[0].name = 400;
	expect_invalid(&b, "name 400 is out of range");
	pb_init(&b);
	b.lab[0].str = -1;
	expect_invalid(&b, "label str");
	pb_init(&b);
	b.loc[0].mapping_id = 5;
	expect_invalid(&b, "undefined mapping id 5");
	pb_init(&b);
	b.map[1].id = 7;
	expect_invalid(&b, "mapping id 7 is defined twice");
	pb_init(&b);
	b.map[0].filename = 99;
	expect_invalid(&b, "filename 99 is out of range");
	/* not protobuf at all */
	write_file(tmp("junk.pb"), "\x0a\xff\xff\xff\xff\x0f garbage", 14);
	tf_strtab *st = tf_strtab_new();
	tf_agg *a = tf_agg_new(st);
	tf_error err;
	tf_error_clear(&err);
	assert_int_equal(tf_pprof_read(a, tmp("junk.pb"), &err), TF_EFORMAT);
	assert_non_null(strstr(err.path, "junk.pb"));
	/* missing file */
	tf_error_clear(&err);
	assert_true(tf_pprof_read(a, tmp("missing.pb"), &err) < 0);
	tf_agg_free(a);
	tf_strtab_free(st);
}

static void test_sniff(void **state)
{
	write_file(tmp("t.json"), "{\"traceEvents\": []}\n", 20);
	write_file(tmp("a.json"), "[{\"ph\":\"X\"}]", 12);
	write_file(tmp("nl.json"), "\n  {\"traceEvents\": []}", 22);
	write_file(tmp("empty"), "", 0);
	write_file(tmp("text"), "hello, not a trace\n", 19);
	assert_false(tf_pprof_sniff(tmp("t.json")));
	assert_false(tf_pprof_sniff(tmp("a.json")));
	assert_false(tf_pprof_sniff(tmp("nl.json")));
	assert_false(tf_pprof_sniff(tmp("empty")));
	assert_false(tf_pprof_sniff(tmp("text")));
	assert_false(tf_pprof_sniff(tmp("no-such-file")));
	assert_false(tf_pprof_sniff(tmpdir));
	tf_strtab *st = tf_strtab_new();
	tf_agg *a = sample_agg(st);
	tf_error err;
	tf_error_clear(&err);
	assert_int_equal(tf_pprof_write(a, tmp("s.pb.gz"), &err), 0);
	assert_true(tf_pprof_sniff(tmp("s.pb.gz")));
	/* an empty profile (no types, no samples) is still a profile */
	tf_agg *e = tf_agg_new(st);
	assert_int_equal(tf_pprof_write(e, tmp("e.pb.gz"), &err), 0);
	assert_true(tf_pprof_sniff(tmp("e.pb.gz")));
	tf_agg_free(e);
	tf_agg_free(a);
	tf_strtab_free(st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_foreign),
		cmocka_unit_test(test_invalid),
		cmocka_unit_test(test_sniff),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
