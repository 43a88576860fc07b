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
 * message and exits 1.  "test_pq_read count FILE" reads every value and
 * prints only the row count and a checksum (the reader's own speed). */
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
#include "../../src/parquet/pq_int.h"
#include "../../src/parquet/pq_read.h"
#include <zlib.h>

/* "count FILE": every value of every column read, nothing printed but the
 * rows and a checksum (the reader's speed without printf's). */
static int count(const char *path)
{
	tf_error err;
	tf_error_clear(&err);
	pq_reader *r;
	int rc = pq_ropen(&r, path, &err);
	int n = rc ? 0 : pq_rncols(r);
	for (int c = 0; c < n && !rc; c++)
		rc = pq_ruse(r, c, &err);
	uint64_t rows = 0, sum = 0;
	while (!rc && (rc = pq_rnext(r, &err)) == 1) {
		rc = 0;
		rows++;
		for (int c = 0; c < n; c++) {
			size_t len;
			const char *s = pq_rstr(r, c, &len);
			sum += len + (len ? (unsigned char)s[0] : 0) + (uint64_t)pq_ri64(r, c) + pq_rnull(r, c);
		}
	}
	pq_rclose(r);
	if (rc < 0) {
		char m[1200];
		tf_error_format(&err, m, sizeof(m));
		fprintf(stderr, "%s\n", m);
		return 1;
	}
	printf("%llu rows, checksum %llu\n", (unsigned long long)rows, (unsigned long long)sum);
	return 0;
}

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
	pq_opts o = { codec, 0, rg, NULL, 0 };
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


/* ---- hand-made files: one column, one row group, pages built here with
 * the writer's Thrift encoder and encoders (pq_int.h), each a fact of the
 * format the writer never produces or a damage at a known place */

/* A page header (v1 data page or dictionary page) then the body. */
static void page(tf_buf *b, int type, const void *body, size_t n, size_t uncomp, int32_t nv, int enc)
{
	pq_thrift t;
	pq_t_init(&t, b);
	pq_t_i32(&t, 1, type);
	pq_t_i32(&t, 2, (int32_t)uncomp);
	pq_t_i32(&t, 3, (int32_t)n);
	pq_t_begin(&t, type == P_DICT ? 7 : 5);
	pq_t_i32(&t, 1, nv);
	pq_t_i32(&t, 2, enc);
	if (type != P_DICT) {
		pq_t_i32(&t, 3, E_RLE);
		pq_t_i32(&t, 4, E_RLE);
	}
	pq_t_end(&t);
	pq_t_stop(&t);
	tf_buf_put(b, body, n);
}

/* Writes PAR1, the chunk, a footer for one REQUIRED column of physical
 * type phys and rows rows (codec: parquet.thrift's number), PAR1. */
static void craft(const char *path, int phys, const tf_buf *chunk, int64_t rows, int codec)
{
	tf_buf f = { 0 }, m = { 0 };
	tf_buf_put(&f, "PAR1", 4);
	tf_buf_put(&f, chunk->p, chunk->n);
	pq_thrift t;
	pq_t_init(&t, &m);
	pq_t_i32(&t, 1, 2);
	pq_t_list(&t, 2, PQ_T_STRUCT, 2);
	pq_t_elem_begin(&t);
	pq_t_str(&t, 4, "schema");
	pq_t_i32(&t, 5, 1);
	pq_t_end(&t);
	pq_t_elem_begin(&t);
	pq_t_i32(&t, 1, phys);
	pq_t_i32(&t, 3, 0);
	pq_t_str(&t, 4, "c");
	pq_t_end(&t);
	pq_t_i64(&t, 3, rows);
	pq_t_list(&t, 4, PQ_T_STRUCT, 1);
	pq_t_elem_begin(&t);
	pq_t_list(&t, 1, PQ_T_STRUCT, 1);
	pq_t_elem_begin(&t);
	pq_t_i64(&t, 2, 4);
	pq_t_begin(&t, 3);
	pq_t_i32(&t, 1, phys);
	pq_t_list(&t, 2, PQ_T_I32, 1);
	pq_t_elem_i32(&t, E_PLAIN);
	pq_t_list(&t, 3, PQ_T_BINARY, 1);
	pq_t_elem_bin(&t, "c", 1);
	pq_t_i32(&t, 4, codec);
	pq_t_i64(&t, 5, rows);
	pq_t_i64(&t, 6, (int64_t)chunk->n);
	pq_t_i64(&t, 7, (int64_t)chunk->n);
	pq_t_i64(&t, 9, 4);
	pq_t_end(&t);
	pq_t_end(&t);
	pq_t_i64(&t, 2, (int64_t)chunk->n); /* total_byte_size: required by Thrift readers */
	pq_t_i64(&t, 3, rows);
	pq_t_end(&t);
	pq_t_stop(&t);
	tf_buf_put(&f, m.p, m.n);
	tf_buf_le32(&f, (uint32_t)m.n);
	tf_buf_put(&f, "PAR1", 4);
	assert_false(f.oom || m.oom);
	spill(path, f.p, f.n);
	tf_buf_free(&f);
	tf_buf_free(&m);
}

/* Reads column 0 of path: its rows as text ("a|b|..."), or the error. */
static void read_text(const char *path, char *out, size_t cap)
{
	tf_error err;
	tf_error_clear(&err);
	pq_reader *r;
	int rc = pq_ropen(&r, path, &err);
	out[0] = 0;
	if (!rc)
		rc = pq_ruse(r, 0, &err);
	while (!rc && (rc = pq_rnext(r, &err)) == 1) {
		rc = 0;
		size_t n = strlen(out), len;
		if (pq_rcol_type(r, 0) == PQ_STRING) {
			const char *s = pq_rstr(r, 0, &len);
			snprintf(out + n, cap - n, "%.*s|", (int)len, s);
		} else {
			snprintf(out + n, cap - n, "%lld|", (long long)pq_ri64(r, 0));
		}
	}
	if (!rc || rc == 1 ? false : true) {
		char m[1200];
		tf_error_format(&err, m, sizeof(m));
		snprintf(out, cap, "%s", m);
	}
	pq_rclose(r);
}

/* With $TF_PQ_READ_SEEDS set (test_crafted alone runs then), the files
 * that read are copied there as craftedN.parquet, in order: 0
 * DELTA_BYTE_ARRAY, 1 BYTE_STREAM_SPLIT INT64, 2 a dictionary, 3
 * DELTA_BINARY_PACKED at width 64, 4 GZIP, 5 SNAPPY (pq_read.sh has DuckDB
 * read them too; the fuzz corpus's hand-made seeds). */
static int nseed;

static void expect_text(const char *path, const char *want)
{
	char got[2000];
	read_text(path, got, sizeof(got));
	if (!strstr(got, want))
		fail_msg("%s: got \"%s\", want \"%s\"", path, got, want);
	const char *sd = getenv("TF_PQ_READ_SEEDS");
	if (sd && *sd && !strstr(got, "cannot read")) {
		char to[600];
		size_t n;
		snprintf(to, sizeof(to), "%s/crafted%d.parquet", sd, nseed++);
		unsigned char *b = slurp(path, &n);
		spill(to, b, n);
		free(b);
	}
}

static void test_crafted(void **state)
{
	(void)state;
	char path[512];
	snprintf(path, sizeof(path), "%s/crafted.parquet", dir);
	tf_buf c = { 0 }, body = { 0 };
	/* DELTA_BYTE_ARRAY (Encodings.md): "abc" "abd" "b" as prefix lengths
	 * 0 2 0 and suffixes "abc" "d" "b" (DELTA_LENGTH_BYTE_ARRAY) */
	static const int64_t pre[3] = { 0, 2, 0 }, suf[3] = { 3, 1, 1 };
	pq_delta(&body, pre, 8, 3);
	pq_delta(&body, suf, 8, 3);
	tf_buf_put(&body, "abcdb", 5);
	page(&c, P_DATA, body.p, body.n, body.n, 3, 7);
	craft(path, T_BYTE_ARRAY, &c, 3, Z_UNCOMPRESSED);
	expect_text(path, "abc|abd|b|");
	/* a prefix longer than the previous value */
	c.n = body.n = 0;
	static const int64_t pre2[3] = { 0, 4, 0 };
	pq_delta(&body, pre2, 8, 3);
	pq_delta(&body, suf, 8, 3);
	tf_buf_put(&body, "abcdb", 5);
	page(&c, P_DATA, body.p, body.n, body.n, 3, 7);
	craft(path, T_BYTE_ARRAY, &c, 3, Z_UNCOMPRESSED);
	expect_text(path, "column 'c': a DELTA_BYTE_ARRAY prefix of 4 bytes, the previous value has 3");
	/* BYTE_STREAM_SPLIT of INT64 1, 258: byte k of value i at k * 2 + i */
	c.n = 0;
	static const unsigned char bss[16] = { 1, 2, 0, 1 };
	page(&c, P_DATA, bss, 16, 16, 2, 9);
	craft(path, T_INT64, &c, 2, Z_UNCOMPRESSED);
	expect_text(path, "1|258|");
	/* a dictionary index out of range: 2 entries, index 3 */
	c.n = body.n = 0;
	tf_buf_le32(&body, 1);
	tf_buf_put(&body, "x", 1);
	tf_buf_le32(&body, 1);
	tf_buf_put(&body, "y", 1);
	page(&c, P_DICT, body.p, body.n, body.n, 2, E_PLAIN);
	static const unsigned char idx[3] = { 2, 3 << 1, 3 }; /* width 2, an RLE run of 3 x 3 */
	page(&c, P_DATA, idx, 3, 3, 3, E_RLE_DICTIONARY);
	craft(path, T_BYTE_ARRAY, &c, 3, Z_UNCOMPRESSED);
	expect_text(path, "at byte 27: column 'c': dictionary index 3 out of range (2 entries)");
	/* the same with index 1: read */
	c.n = 0;
	page(&c, P_DICT, body.p, body.n, body.n, 2, E_PLAIN);
	static const unsigned char idx1[3] = { 2, 3 << 1, 1 };
	page(&c, P_DATA, idx1, 3, 3, 3, E_RLE_DICTIONARY);
	craft(path, T_BYTE_ARRAY, &c, 3, Z_UNCOMPRESSED);
	expect_text(path, "y|y|y|");
	/* a dictionary index bit width of 33 */
	c.n = 0;
	page(&c, P_DICT, body.p, body.n, body.n, 2, E_PLAIN);
	static const unsigned char idx33[3] = { 33, 3 << 1, 1 };
	page(&c, P_DATA, idx33, 3, 3, 3, E_RLE_DICTIONARY);
	craft(path, T_BYTE_ARRAY, &c, 3, Z_UNCOMPRESSED);
	expect_text(path, "column 'c': a dictionary index bit width of 33 (over 32)");
	/* a DELTA_BINARY_PACKED miniblock width of 65 */
	c.n = body.n = 0;
	tf_buf_varint(&body, 128);
	tf_buf_varint(&body, 4);
	tf_buf_varint(&body, 5);
	tf_buf_varint(&body, 0);
	tf_buf_varint(&body, 0);
	tf_buf_put(&body, (const unsigned char[]){ 65, 0, 0, 0 }, 4);
	for (int k = 0; k < 300; k++)
		tf_buf_byte(&body, 0);
	page(&c, P_DATA, body.p, body.n, body.n, 5, E_DELTA_BINARY_PACKED);
	craft(path, T_INT64, &c, 5, Z_UNCOMPRESSED);
	expect_text(path, "at byte 4: column 'c': a DELTA_BINARY_PACKED bit width over 64");
	/* width 64 is allowed: deltas of 2^64 - 1 wrap to -1 */
	body.p[6] = 64; /* after 128 (2 bytes), 4, 5, 0 and the min delta 0 */
	memset(body.p + 10, 0xff, 256);
	c.n = 0;
	page(&c, P_DATA, body.p, body.n, body.n, 5, E_DELTA_BINARY_PACKED);
	craft(path, T_INT64, &c, 5, Z_UNCOMPRESSED);
	expect_text(path, "0|-1|-2|-3|-4|");
	/* a page header whose page runs past the column chunk */
	c.n = 0;
	static const int64_t two[2] = { 7, 8 };
	page(&c, P_DATA, two, 16, 16, 2, E_PLAIN);
	c.n -= 1;
	craft(path, T_INT64, &c, 2, Z_UNCOMPRESSED);
	expect_text(path, "at byte 4: column 'c': a page of 16 bytes past the column chunk's end");
	/* gzip: 16 bytes that the page header says are 24 */
	/* (a gzip member, RFC 1952, as Compression.md asks) */
	unsigned char z[64];
	z_stream zs;
	memset(&zs, 0, sizeof(zs));
	assert_int_equal(deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
	zs.next_in = (Bytef *)(uintptr_t)two;
	zs.avail_in = 16;
	zs.next_out = z;
	zs.avail_out = sizeof(z);
	assert_int_equal(deflate(&zs, Z_FINISH), Z_STREAM_END);
	size_t zn = sizeof(z) - zs.avail_out;
	deflateEnd(&zs);
	c.n = 0;
	page(&c, P_DATA, z, zn, 24, 2, E_PLAIN);
	craft(path, T_INT64, &c, 2, Z_GZIP);
	expect_text(path, "column 'c': gzip: 16 bytes decompressed, the page header says 24");
	c.n = 0;
	page(&c, P_DATA, z, zn, 16, 2, E_PLAIN);
	craft(path, T_INT64, &c, 2, Z_GZIP);
	expect_text(path, "7|8|");
	/* a chunk that ends before its rows */
	craft(path, T_INT64, &c, 3, Z_GZIP);
	char want[200]; /* at the chunk's end: where the next page header would be */
	snprintf(want, sizeof(want), "at byte %zu: column 'c': the column chunk ends after 2 of its 3 rows", 4 + c.n);
	expect_text(path, want);
	/* and one whose page holds more rows than the row group */
	craft(path, T_INT64, &c, 1, Z_GZIP);
	expect_text(path, "at byte 4: column 'c': pages of more rows than the row group's 1");
	/* snappy with a copy from before the start: a literal "ab" then a
	 * copy of 4 from offset 3 */
	static const unsigned char sn[] = { 6, 1 << 2, 'a', 'b', 1 | (0 << 2), 3 };
	c.n = 0;
	page(&c, P_DATA, sn, sizeof(sn), 6, 1, E_PLAIN);
	craft(path, T_BYTE_ARRAY, &c, 1, 1);
	expect_text(path, "column 'c': snappy: a snappy copy from before the start");
	/* snappy, valid: literal 4 bytes length prefix + "ab", copy 2x "ab" */
	static const unsigned char sn2[] = { 10, 5 << 2, 6, 0, 0, 0, 'a', 'b', 1 | (0 << 2), 2 };
	c.n = 0;
	page(&c, P_DATA, sn2, sizeof(sn2), 10, 1, E_PLAIN);
	craft(path, T_BYTE_ARRAY, &c, 1, 1);
	expect_text(path, "ababab|");
	/* INT96 (deprecated timestamps): refused when asked for, naming the
	 * column and its schema element's place in the footer */
	c.n = 0;
	static const unsigned char i96[12] = { 0 };
	page(&c, P_DATA, i96, 12, 12, 1, E_PLAIN);
	craft(path, 3, &c, 1, Z_UNCOMPRESSED);
	expect_text(path, "column 'c': physical type INT96 is not read");
	tf_buf_free(&c);
	tf_buf_free(&body);
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "dump") == 0)
		return dump(argv[2]);
	if (argc == 3 && strcmp(argv[1], "count") == 0)
		return count(argv[2]);
	const char *t = getenv("TMPDIR");
	snprintf(dir, sizeof(dir), "%s/test_pq_read.XXXXXX", t && *t ? t : "/tmp");
	if (!mkdtemp(dir))
		return 1;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_damaged),
		cmocka_unit_test(test_crafted),
	};
	const struct CMUnitTest crafted_only[] = { cmocka_unit_test(test_crafted) };
	const char *sd = getenv("TF_PQ_READ_SEEDS");
	int rc = sd && *sd ? cmocka_run_group_tests(crafted_only, NULL, NULL) : cmocka_run_group_tests(tests, NULL, NULL);
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		rc = 1;
	return rc;
}
