/* test_pq_read.c - the Parquet reader (src/parquet/pq_read.h).
 *
 * Without arguments: cmocka tests.  Files written by tracefold's own writer
 * (pq.h: every column type, nullable and not, PLAIN / RLE_DICTIONARY /
 * DELTA_BINARY_PACKED, each codec, several row groups, zero rows, long
 * strings, extreme integers) are read back and every value compared with
 * what was written; the same files cut at every length and with bytes
 * flipped must fail with an error naming the file, never crash (ASan).
 *
 * "test_pq_read dump FILE": prints FILE as text for tests/e2e/pq_read.sh:
 * a line "#" with the columns (name:type:nullable), then one line per
 * row, values separated by tabs: NULL, integers, doubles as %.17g,
 * true/false, strings as upper-case hex.  An error prints tf_error_format's
 * message and exits 1. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../../src/parquet/pq.h"
#include "../../src/parquet/pq_read.h"

static int dump(const char *path)
{
	tf_error err;
	tf_error_clear(&err);
	pq_reader *r;
	int rc = pq_ropen(&r, path, &err);
	int n = rc ? 0 : pq_rncols(r);
	if (!rc) {
		printf("#");
		for (int c = 0; c < n && !rc; c++) {
			static const char *tn[] = { "int64", "int32", "double", "string", "bool" };
			int t = pq_rcol_type(r, c);
			printf("%s%s:%s:%d", c ? "\t" : "", pq_rcol_name(r, c), t >= 0 ? tn[t] : "?",
			       pq_rcol_nullable(r, c));
			rc = pq_ruse(r, c, &err);
		}
		printf("\n");
	}
	while (!rc && (rc = pq_rnext(r, &err)) == 1) {
		rc = 0;
		for (int c = 0; c < n; c++) {
			if (c)
				putchar('\t');
			if (pq_rnull(r, c)) {
				fputs("NULL", stdout);
				continue;
			}
			switch (pq_rcol_type(r, c)) {
			case PQ_INT64: printf("%" PRId64, pq_ri64(r, c)); break;
			case PQ_DOUBLE: printf("%.17g", pq_rf64(r, c)); break;
			case PQ_BOOL: fputs(pq_rbool(r, c) ? "true" : "false", stdout); break;
			default: {
				size_t len;
				const char *s = pq_rstr(r, c, &len);
				for (size_t i = 0; i < len; i++)
					printf("%02X", (unsigned char)s[i]);
			}
			}
		}
		putchar('\n');
	}
	pq_rclose(r);
	if (rc < 0) {
		char m[1200];
		tf_error_format(&err, m, sizeof(m));
		fflush(stdout);
		fprintf(stderr, "%s\n", m);
		return 1;
	}
	return 0;
}

/* ---- round trips through the writer */

static char dir[256];

static const pq_col cols[] = {
	{ "ts", PQ_INT64, false, false, true, false },
	{ "i32", PQ_INT32, true, false, false, false },
	{ "d32", PQ_INT32, false, false, true, false },
	{ "x", PQ_DOUBLE, true, false, false, false },
	{ "name", PQ_STRING, true, true, false, false },
	{ "text", PQ_STRING, false, false, false, true },
	{ "flag", PQ_BOOL, true, false, false, false },
	{ "i64", PQ_INT64, false, false, false, false },
};
#define NC ((int)(sizeof(cols) / sizeof(cols[0])))

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* row i's values, from a seed: the same for the writer and the check */
typedef struct rowv {
	int64_t ts, i64;
	int32_t i32, d32;
	double x;
	char name[32], text[300];
	size_t textn;
	bool flag, null_i32, null_x, null_name, null_flag;
} rowv;

static void row_at(uint64_t i, rowv *v)
{
	uint64_t s = i * 0x9e3779b97f4a7c15ull + 1;
	rnd(&s);
	v->ts = (int64_t)(i * 1000 + rnd(&s) % 7);
	v->i64 = i % 5 == 0 ? INT64_MIN + (int64_t)i : i % 5 == 1 ? INT64_MAX - (int64_t)i : (int64_t)rnd(&s);
	v->i32 = (int32_t)rnd(&s);
	v->d32 = i % 3 ? INT32_MIN : INT32_MAX - (int32_t)(i % 100);
	uint64_t b = rnd(&s);
	memcpy(&v->x, &b, 8);
	if (v->x != v->x)
		v->x = -0.0;
	snprintf(v->name, sizeof(v->name), "name%u", (unsigned)(rnd(&s) % 40));
	v->textn = i % 17 == 0 ? 290 : (size_t)(rnd(&s) % 12);
	for (size_t k = 0; k < v->textn; k++)
		v->text[k] = (char)(rnd(&s) & 0xff);
	v->flag = rnd(&s) & 1;
	v->null_i32 = i % 4 == 1;
	v->null_x = i % 9 == 2;
	v->null_name = i % 6 == 3;
	v->null_flag = i % 2 == 0 && i % 10 != 0;
}

static void write_file(const char *path, int codec, uint32_t rg, uint64_t rows)
{
	tf_error err;
	tf_error_clear(&err);
	pq_opts o = { codec, 0, rg, NULL };
	pq_file *f;
	assert_int_equal(pq_open(&f, path, cols, NC, &o, &err), 0);
	for (uint64_t i = 0; i < rows; i++) {
		rowv v;
		row_at(i, &v);
		pq_i64(f, 0, v.ts);
		if (v.null_i32) pq_null(f, 1); else pq_i32(f, 1, v.i32);
		pq_i32(f, 2, v.d32);
		if (v.null_x) pq_null(f, 3); else pq_f64(f, 3, v.x);
		if (v.null_name) pq_null(f, 4); else pq_str(f, 4, v.name, strlen(v.name));
		pq_str(f, 5, v.text, v.textn);
		if (v.null_flag) pq_null(f, 6); else pq_bool(f, 6, v.flag);
		pq_i64(f, 7, v.i64);
		assert_int_equal(pq_end_row(f), 0);
	}
	pq_kv(f, "k1", "v1");
	assert_int_equal(pq_close(f, &err), 0);
}

static void check_file(const char *path, uint64_t rows)
{
	tf_error err;
	tf_error_clear(&err);
	pq_reader *r;
	assert_int_equal(pq_ropen(&r, path, &err), 0);
	assert_int_equal(pq_rncols(r), NC);
	assert_int_equal(pq_rrows(r), rows);
	assert_string_equal(pq_rkv(r, "k1"), "v1");
	assert_null(pq_rkv(r, "k2"));
	for (int c = 0; c < NC; c++) {
		assert_string_equal(pq_rcol_name(r, c), cols[c].name);
		assert_int_equal(pq_rcol_find(r, cols[c].name), c);
		assert_int_equal(pq_rcol_nullable(r, c), cols[c].nullable);
		assert_int_equal(pq_rcol_type(r, c), cols[c].type == PQ_INT32 ? PQ_INT64 : cols[c].type);
		if (c != 2) /* one column left out: not decoded */
			assert_int_equal(pq_ruse(r, c, &err), 0);
	}
	uint64_t i = 0;
	int rc;
	while ((rc = pq_rnext(r, &err)) == 1) {
		rowv v;
		row_at(i, &v);
		assert_int_equal(pq_rrow(r), i);
		assert_int_equal(pq_ri64(r, 0), v.ts);
		assert_int_equal(pq_rnull(r, 1), v.null_i32);
		if (!v.null_i32)
			assert_int_equal(pq_ri64(r, 1), v.i32);
		assert_int_equal(pq_rnull(r, 3), v.null_x);
		if (!v.null_x) {
			double x = pq_rf64(r, 3);
			assert_memory_equal(&x, &v.x, 8);
		}
		assert_int_equal(pq_rnull(r, 4), v.null_name);
		size_t n;
		const char *s = pq_rstr(r, 4, &n);
		if (!v.null_name) {
			assert_int_equal(n, strlen(v.name));
			assert_memory_equal(s, v.name, n);
		}
		s = pq_rstr(r, 5, &n);
		assert_int_equal(n, v.textn);
		if (n)
			assert_memory_equal(s, v.text, n);
		assert_int_equal(pq_rnull(r, 6), v.null_flag);
		if (!v.null_flag)
			assert_int_equal(pq_rbool(r, 6), v.flag);
		assert_true(pq_ri64(r, 7) == v.i64);
		i++;
	}
	assert_int_equal(rc, 0);
	assert_int_equal(i, rows);
	pq_rclose(r);
}

static void test_round_trip(void **state)
{
	(void)state;
	static const struct { int codec; uint32_t rg; uint64_t rows; } cases[] = {
		{ PQ_UNCOMPRESSED, 0, 1000 }, { PQ_ZSTD, 100, 1000 }, { PQ_GZIP, 333, 1000 },
		{ PQ_UNCOMPRESSED, 1, 5 }, { PQ_ZSTD, 0, 0 }, { PQ_GZIP, 0, 1 },
	};
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		char path[512];
		snprintf(path, sizeof(path), "%s/rt%zu.parquet", dir, k);
		write_file(path, cases[k].codec, cases[k].rg, cases[k].rows);
		check_file(path, cases[k].rows);
	}
}

static unsigned char *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	*n = (size_t)ftell(f);
	fseek(f, 0, SEEK_SET);
	unsigned char *b = malloc(*n + 1);
	assert_non_null(b);
	assert_int_equal(fread(b, 1, *n, f), *n);
	fclose(f);
	return b;
}

static void spill(const char *path, const unsigned char *b, size_t n)
{
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(b, 1, n, f), n);
	fclose(f);
}

/* Reads every row of every column: 0, or the error's code (named path). */
static int read_all(const char *path)
{
	tf_error err;
	tf_error_clear(&err);
	pq_reader *r;
	int rc = pq_ropen(&r, path, &err);
	if (rc) {
		assert_string_equal(err.path, path);
		return rc;
	}
	for (int c = 0; c < pq_rncols(r); c++)
		pq_ruse(r, c, &err);
	while ((rc = pq_rnext(r, &err)) == 1) {
		size_t n;
		for (int c = 0; c < pq_rncols(r); c++) {
			(void)pq_ri64(r, c);
			(void)pq_rf64(r, c);
			(void)pq_rstr(r, c, &n);
		}
	}
	if (rc)
		assert_string_equal(err.path, path);
	pq_rclose(r);
	return rc;
}

/* A file cut at every length is refused; a byte flipped anywhere is
 * refused or read, never a crash. */
static void test_damaged(void **state)
{
	(void)state;
	char src[512], dst[512];
	snprintf(src, sizeof(src), "%s/dmg.parquet", dir);
	snprintf(dst, sizeof(dst), "%s/cut.parquet", dir);
	write_file(src, PQ_ZSTD, 40, 100);
	size_t n;
	unsigned char *b = slurp(src, &n);
	size_t step = n / 500 + 1;
	for (size_t cut = 0; cut < n; cut += (cut < 64 || cut > n - 64) ? 1 : step) {
		spill(dst, b, cut);
		assert_int_not_equal(read_all(dst), 0);
	}
	for (size_t at = 0; at < n; at += (at > n - 400) ? 1 : step) {
		unsigned char o = b[at];
		b[at] ^= (unsigned char)(0x5a + at);
		spill(dst, b, n);
		(void)read_all(dst);
		b[at] = o;
	}
	free(b);
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "dump") == 0)
		return dump(argv[2]);
	const char *t = getenv("TMPDIR");
	snprintf(dir, sizeof(dir), "%s/test_pq_read.XXXXXX", t && *t ? t : "/tmp");
	if (!mkdtemp(dir))
		return 1;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_damaged),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		rc = 1;
	return rc;
}
