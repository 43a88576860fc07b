/* test_folded.c - folded stacks (src/write/folded.c, src/read/folded.c): the
 * writer's self values over label sets, bytewise order, name rewriting and
 * merged lines, its errors (no file); the reader's lines across input
 * chunks, line numbers and byte offsets, types; the sniffer's rules. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include "tracefold/agg.h"
#include "tracefold/folded.h"

static char tmpdir[256];

static int setup(void **state)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/tf-unit-folded.XXXXXX");
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

static char *read_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	size_t cap = 1 << 16, n = 0, k;
	char *b = malloc(cap + 1);
	while ((k = fread(b + n, 1, cap - n, f)) > 0)
		if ((n += k) == cap)
			b = realloc(b, (cap *= 2) + 1);
	fclose(f);
	b[n] = '\0';
	return b;
}

/* The node of "a;b;c" (frames split on ';', or on '|' when given). */
static uint32_t path(tf_agg *a, const char *p, char sep)
{
	tf_strtab *st = tf_agg_strtab(a);
	uint32_t node = TF_AGG_ROOT;
	const char *s = p;
	for (;;) {
		const char *e = strchr(s, sep);
		size_t n = e ? (size_t)(e - s) : strlen(s);
		node = tf_agg_child(a, node, tf_strtab_intern(st, s, n));
		if (!e)
			return node;
		s = e + 1;
	}
}

static uint32_t rank(tf_agg *a, const char *r)
{
	tf_strtab *st = tf_agg_strtab(a);
	tf_label l = { tf_strtab_intern_cstr(st, "rank"), tf_strtab_intern_cstr(st, r), 0, 0 };
	return tf_agg_labelset(a, &l, 1);
}

static void test_write(void **state)
{
	tf_strtab *st = tf_strtab_new();
	tf_agg *a = tf_agg_new(st);
	int calls = tf_agg_type(a, "calls", "count"), wall = tf_agg_type(a, "wall", "nanoseconds");
	/* self values add over label sets; an inner node without self time has no line */
	tf_agg_add(a, path(a, "main|solve", '|'), rank(a, "0"), wall, 30);
	tf_agg_add(a, path(a, "main|solve", '|'), rank(a, "1"), wall, 12);
	tf_agg_add(a, path(a, "main|solve", '|'), rank(a, "1"), calls, 2);
	tf_agg_add(a, path(a, "main|idle", '|'), rank(a, "1"), calls, 1); /* wall 0: left out */
	/* bytewise order: "main.x" < "main;..." ('.' 0x2e < ';' 0x3b), "Z" < "[" < "a" */
	tf_agg_add(a, path(a, "main.x", '|'), rank(a, "0"), wall, 1);
	tf_agg_add(a, path(a, "[unknown]", '|'), rank(a, "0"), wall, 2);
	tf_agg_add(a, path(a, "Zeta", '|'), rank(a, "0"), wall, 3);
	/* rewritten names; two paths that become one text are one line */
	tf_agg_add(a, path(a, "main|a;b", '|'), rank(a, "0"), wall, 4);
	tf_agg_add(a, path(a, "main|a:b", '|'), rank(a, "0"), wall, 5);
	tf_agg_add(a, path(a, "main|two\nlines\r", '|'), rank(a, "0"), wall, 6);
	tf_agg_add(a, path(a, "main|", '|'), rank(a, "0"), wall, 7);
	/* a value outside every call path has no stack */
	tf_agg_add(a, TF_AGG_ROOT, rank(a, "0"), wall, 1000);
	tf_error err;
	tf_error_clear(&err);
	assert_int_equal(tf_folded_write(a, wall, tmp("w.folded"), &err), 0);
	char *got = read_file(tmp("w.folded"));
	assert_string_equal(got, "Zeta 3\n"
				 "[unknown] 2\n"
				 "main.x 1\n"
				 "main;[unnamed] 7\n"
				 "main;a:b 9\n"
				 "main;solve 42\n"
				 "main;two lines  6\n");
	free(got);
	assert_int_equal(tf_folded_write(a, calls, tmp("c.folded"), &err), 0);
	got = read_file(tmp("c.folded"));
	assert_string_equal(got, "main;idle 1\nmain;solve 2\n");
	free(got);
	/* gzip by the name */
	assert_int_equal(tf_folded_write(a, calls, tmp("c.folded.gz"), &err), 0);
	gzFile z = gzopen(tmp("c.folded.gz"), "rb");
	char buf[64] = "";
	assert_int_equal(gzread(z, buf, sizeof(buf) - 1), 25);
	gzclose(z);
	assert_string_equal(buf, "main;idle 1\nmain;solve 2\n");
	/* a type without values: an error, and no file */
	int empty = tf_agg_type(a, "gpu", "nanoseconds");
	tf_error_clear(&err);
	assert_int_equal(tf_folded_write(a, empty, tmp("e.folded"), &err), TF_EFORMAT);
	assert_non_null(strstr(err.msg, "no call path has a value of type gpu"));
	assert_int_not_equal(access(tmp("e.folded"), F_OK), 0);
	/* a negative value: an error, and the file that was there stays */
	write_file(tmp("n.folded"), "old\n", 4);
	int ctr = tf_agg_type(a, "counter:delta", "count");
	tf_agg_add(a, path(a, "main|solve", '|'), rank(a, "0"), ctr, -5);
	tf_error_clear(&err);
	assert_int_equal(tf_folded_write(a, ctr, tmp("n.folded"), &err), TF_EFORMAT);
	assert_non_null(strstr(err.msg, "'main;solve' has the negative value -5"));
	got = read_file(tmp("n.folded"));
	assert_string_equal(got, "old\n");
	free(got);
	assert_int_equal(tf_folded_write(a, 99, tmp("x.folded"), &err), TF_EUSAGE);
	tf_agg_free(a);
	tf_strtab_free(st);
}

/* Reads path into a fresh agg; returns rc, err filled. */
static int read_into(tf_agg **out, tf_strtab *st, const char *p, const char *type, const char *unit, tf_error *err)
{
	*out = tf_agg_new(st);
	tf_error_clear(err);
	return tf_folded_read(*out, p, type, unit, err);
}

static int64_t value_of(tf_agg *a, const char *p)
{
	uint32_t node = path(a, p, ';');
	int64_t v = 0;
	for (size_t i = 0; i < tf_agg_nsamples(a); i++)
		if (tf_agg_sample_get(a, i).node == node)
			v += tf_agg_sample_value(a, i, 0);
	return v;
}

static void test_read(void **state)
{
	tf_strtab *st = tf_strtab_new();
	tf_agg *a;
	tf_error err;
	/* a line longer than a 256 KiB input chunk, values that add, CRLF, blanks */
	size_t big = 600000;
	char *text = malloc(big + 200);
	size_t n = 0;
	n += (size_t)sprintf(text + n, "main;a 5\r\n\n \t\nmain;");
	memset(text + n, 'x', big);
	n += big;
	n += (size_t)sprintf(text + n, " 7\nmain;a\t2\nmain;b  1\nmain;z 0\nlast 3");
	write_file(tmp("r.folded"), text, n);
	assert_int_equal(read_into(&a, st, tmp("r.folded"), "wall", "nanoseconds", &err), 0);
	assert_int_equal(tf_agg_ntypes(a), 1);
	assert_string_equal(tf_strtab_get(st, tf_agg_type_get(a, 0).type), "wall");
	assert_string_equal(tf_strtab_get(st, tf_agg_type_get(a, 0).unit), "nanoseconds");
	assert_int_equal(tf_agg_default_type(a), 0);
	assert_int_equal(value_of(a, "main;a"), 7);
	assert_int_equal(value_of(a, "main;b "), 1); /* one blank is the separator */
	assert_int_equal(value_of(a, "last"), 3);
	memcpy(text, "main;", 5);
	memset(text + 5, 'x', big);
	text[5 + big] = '\0';
	assert_int_equal(value_of(a, text), 7);
	/* folded stacks are added to an agg of the same one type, refused by another */
	tf_error_clear(&err);
	assert_int_equal(tf_folded_read(a, tmp("r.folded"), "wall", "nanoseconds", &err), 0);
	assert_int_equal(value_of(a, "last"), 6);
	tf_error_clear(&err);
	assert_int_equal(tf_folded_read(a, tmp("r.folded"), NULL, NULL, &err), TF_ECLASH);
	assert_non_null(strstr(err.msg, "[samples/count]"));
	tf_agg_free(a);

	/* errors: the line and the byte offset (after the big line: chunked);
	 * lines 1-3 are fine, line 4 is "ok 1", line 5 is bad */
	static const struct {
		const char *tail, *msg;
		int64_t off; /* from the start of the tail */
	} bad[] = {
		{ "ok 1\nmain;b 1.5\n", "line 5: the value is not a non-negative integer: '1.5'", 12 },
		{ "ok 1\nmain;b\n", "line 5: no value", 5 },
		{ "ok 1\nmain;b \n", "line 5: no value after the stack", 12 },
		{ "ok 1\nmain;;b 3\n", "line 5: an empty frame", 10 },
		{ "ok 1\n;b 3\n", "line 5: an empty frame", 5 },
		{ "ok 1\nb; 3\n", "line 5: an empty frame", 7 },
		{ "ok 1\n 3\n", "line 5: no stack", 5 },
		{ "ok 1\nb -3\n", "line 5: the value is not a non-negative integer: '-3'", 7 },
		{ "ok 1\nb 9223372036854775808\n", "line 5: the value is larger than 2^63-1", 7 },
		{ "ok 1\nb\0c 2\n", "line 5: a NUL byte", 6 },
	};
	size_t head = (size_t)sprintf(text, "main;a 5\n\nmain;");
	memset(text + head, 'y', big);
	head += big;
	text[head++] = ' ';
	text[head++] = '1';
	text[head++] = '\n';
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		size_t tl = strlen(bad[i].tail) + (strstr(bad[i].msg, "NUL") ? 5 : 0);
		memcpy(text + head, bad[i].tail, tl);
		write_file(tmp("bad.folded"), text, head + tl);
		assert_int_equal(read_into(&a, st, tmp("bad.folded"), NULL, NULL, &err), TF_EFORMAT);
		assert_string_equal(err.path, tmp("bad.folded"));
		if (!strstr(err.msg, bad[i].msg))
			fail_msg("case %zu: '%s' is not '%s'", i, err.msg, bad[i].msg);
		assert_int_equal(err.offset, (int64_t)head + bad[i].off);
		tf_agg_free(a);
	}
	/* nothing above 0 */
	write_file(tmp("z.folded"), "a 0\n\nb;c 0\n", 11);
	assert_int_equal(read_into(&a, st, tmp("z.folded"), NULL, NULL, &err), TF_EFORMAT);
	assert_non_null(strstr(err.msg, "no samples"));
	tf_agg_free(a);
	write_file(tmp("empty.folded"), "", 0);
	assert_int_equal(read_into(&a, st, tmp("empty.folded"), NULL, NULL, &err), TF_EFORMAT);
	tf_agg_free(a);
	assert_int_equal(read_into(&a, st, tmp("missing.folded"), NULL, NULL, &err), TF_EIO);
	tf_agg_free(a);
	free(text);
	tf_strtab_free(st);
}

static void test_sniff(void **state)
{
	static const struct {
		const char *text;
		bool yes;
	} c[] = {
		{ "main;a 5\n", true },
		{ "\n\n  \nmain;a 5\r\nmain 3\r\n", true },
		{ "single 1", true },
		{ "[unknown];a 5\n", true },       /* a frame may start with '[' */
		{ "[param|cuda] 134157000\n", true },
		{ "main;a 5\nmain;b 1.5\n", true }, /* half the lines: the reader names the bad one */
		{ "main;a 5\nb 1\nc 1.5\nd\n", true },
		{ "main;a 1.5\nmain;b 5\n", false }, /* the first line decides */
		{ "main;a\n", false },
		{ "5\n", false },
		{ " 5\n", false },
		{ "{\"ts\": 5\n", false },
		{ "[1, 2, 3\n", false },
		{ "[ 5\n", false },
		{ "[\n", false },
		{ "# Notes, 2021\n\n- one\n- two\n", false }, /* one line of three ends in a number */
		{ "main;a 5\nmain;b 6\nx\ny\nz\n", false },
		{ "", false },
		{ "\n\n", false },
	};
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		write_file(tmp("s.txt"), c[i].text, strlen(c[i].text));
		if (tf_folded_sniff(tmp("s.txt")) != c[i].yes)
			fail_msg("case %zu: '%s' should%s be sniffed", i, c[i].text, c[i].yes ? "" : " not");
	}
	write_file(tmp("nul.txt"), "a 1\nb\0 2\n", 9);
	assert_false(tf_folded_sniff(tmp("nul.txt")));
	/* gzip is decompressed; a first line that does not end in 4 KiB is not judged */
	gzFile z = gzopen(tmp("s.folded.gz"), "wb");
	gzputs(z, "main;a 5\n");
	gzclose(z);
	assert_true(tf_folded_sniff(tmp("s.folded.gz")));
	char *longl = malloc(5000);
	memset(longl, 'a', 4990);
	memcpy(longl + 4990, " 1\n", 3);
	write_file(tmp("long.folded"), longl, 4993);
	assert_false(tf_folded_sniff(tmp("long.folded")));
	free(longl);
	assert_false(tf_folded_sniff(tmp("missing")));
	assert_false(tf_folded_sniff(tmpdir));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_write),
		cmocka_unit_test(test_read),
		cmocka_unit_test(test_sniff),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
