/* test_pq.c - the Parquet writer (src/parquet/pq.h): the encodings against
 * the byte examples of the format's Encodings.md and hand-worked ones, the
 * Thrift compact protocol, then whole files covering every column type,
 * nullable and not, PLAIN / RLE_DICTIONARY / DELTA_BINARY_PACKED, each
 * codec, several row groups, zero rows, long strings, extreme integers and
 * sorted and unsorted delta columns, re-read here by a small checker (the
 * magic at both ends, the footer length, and the footer walked as Thrift
 * compact: version, num_rows, row group count, key-value metadata), and
 * misuse (a null in a REQUIRED column, a missing value) that leaves no file.
 *
 * The files are written into $TF_PQ_DIR when set (kept there, each with
 * NAME.json: the values written, for tests/e2e/parquet_file.sh to compare
 * with independent readers), else into a temporary directory under $TMPDIR
 * or /tmp, removed at the end. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "../../src/parquet/pq.h"
#include "../../src/parquet/pq_int.h"
#include "../../src/parquet/pq_read.h"

typedef unsigned char u8;

static void expect_bytes(const tf_buf *b, const u8 *want, size_t n, const char *what)
{
	if (b->oom || b->n != n || memcmp(b->p, want, n) != 0) {
		char got[512] = "";
		for (size_t i = 0; i < b->n && i < 100; i++)
			snprintf(got + strlen(got), sizeof(got) - strlen(got), "%02x ", b->p[i]);
		fail_msg("%s: %zu bytes, want %zu: %s", what, b->n, n, got);
	}
}

/* ---- encodings */

static void test_rle_hybrid(void **state)
{
	(void)state;
	tf_buf b = { 0 };
	/* Encodings.md: 0..7 bit-packed at width 3 */
	static const uint32_t seq[8] = { 0, 1, 2, 3, 4, 5, 6, 7 };
	pq_rle_hybrid(&b, seq, 4, 8, 3);
	expect_bytes(&b, (const u8[]){ 0x03, 0x88, 0xc6, 0xfa }, 4, "0..7 at width 3");
	/* ten 1s: one RLE run, header 10 << 1, value in one byte */
	b.n = 0;
	static const u8 ones[10] = { 1, 1, 1, 1, 1, 1, 1, 1, 1, 1 };
	pq_rle_hybrid(&b, ones, 1, 10, 1);
	expect_bytes(&b, (const u8[]){ 0x14, 0x01 }, 2, "ten 1s");
	/* 3 values, then a run of 9 (the bit-packed group is padded with
	 * zeros to 8 values, which swallows 5 of the run; the 4 left are
	 * bit-packed too) */
	b.n = 0;
	static const u8 mix[12] = { 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1 };
	pq_rle_hybrid(&b, mix, 1, 12, 1);
	expect_bytes(&b, (const u8[]){ 0x05, 0xfd, 0x0f }, 3, "1 0 1 and nine 1s");
	/* 300 at width 9: the value of an RLE run takes 2 bytes */
	b.n = 0;
	uint32_t big[8];
	for (int i = 0; i < 8; i++)
		big[i] = 300;
	pq_rle_hybrid(&b, big, 4, 8, 9);
	expect_bytes(&b, (const u8[]){ 0x10, 0x2c, 0x01 }, 3, "eight 300s at width 9");
	tf_buf_free(&b);
}

static void test_delta(void **state)
{
	(void)state;
	tf_buf b = { 0 };
	/* Encodings.md example 1 (1 2 3 4 5) with our block of 128 in 4
	 * miniblocks: header 128 4 5 zigzag(1); min delta zigzag(1), widths 0 */
	static const int64_t a[5] = { 1, 2, 3, 4, 5 };
	pq_delta(&b, a, 8, 5);
	expect_bytes(&b, (const u8[]){ 0x80, 0x01, 0x04, 0x05, 0x02, 0x02, 0, 0, 0, 0 }, 10, "1..5");
	/* Encodings.md example 2 (7 5 3 1 2 3 4 5): deltas -2 -2 -2 1 1 1 1,
	 * min -2, so 0 0 0 3 3 3 3 at width 2, padded to 32 values (8 bytes) */
	b.n = 0;
	static const int32_t c[8] = { 7, 5, 3, 1, 2, 3, 4, 5 };
	pq_delta(&b, c, 4, 8);
	expect_bytes(&b, (const u8[]){ 0x80, 0x01, 0x04, 0x08, 0x0e, 0x03, 0x02, 0, 0, 0,
				       0xc0, 0x3f, 0, 0, 0, 0, 0, 0 }, 18, "7 5 3 1 2 3 4 5");
	/* one value: the header only; none: first value 0 */
	b.n = 0;
	pq_delta(&b, a, 8, 1);
	expect_bytes(&b, (const u8[]){ 0x80, 0x01, 0x04, 0x01, 0x02 }, 5, "one value");
	b.n = 0;
	pq_delta(&b, a, 8, 0);
	expect_bytes(&b, (const u8[]){ 0x80, 0x01, 0x04, 0x00, 0x00 }, 5, "no value");
	/* INT64_MIN, INT64_MAX: the delta wraps to -1, width 0 */
	b.n = 0;
	static const int64_t x[2] = { INT64_MIN, INT64_MAX };
	pq_delta(&b, x, 8, 2);
	expect_bytes(&b, (const u8[]){ 0x80, 0x01, 0x04, 0x02,
				       0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, /* zigzag(INT64_MIN) */
				       0x01, 0, 0, 0, 0 }, 19, "INT64_MIN, INT64_MAX");
	/* INT32: deltas wrap at 32 bits: INT32_MAX, INT32_MIN is +1 */
	b.n = 0;
	static const int32_t y[2] = { INT32_MAX, INT32_MIN };
	pq_delta(&b, y, 4, 2);
	expect_bytes(&b, (const u8[]){ 0x80, 0x01, 0x04, 0x02, 0xfe, 0xff, 0xff, 0xff, 0x0f, 0x02, 0, 0, 0, 0 }, 14,
		     "INT32_MAX, INT32_MIN");
	/* 0, 1, 0, 1 ... over two blocks: deltas +1 -1 ..., min -1, so 2 0 2 0
	 * at width 2 (0x22 a byte); the partial block's unused miniblock has
	 * width 0 and no bytes */
	b.n = 0;
	int64_t z[200];
	for (int i = 0; i < 200; i++)
		z[i] = i & 1;
	pq_delta(&b, z, 8, 200);
	/* header 6 (200 is 2 bytes) + block 1 (1 + 4 + 4 * 8) + block 2 (71
	 * deltas: 1 + 4 + 3 * 8) */
	assert_int_equal(b.n, 6 + 37 + 29);
	assert_int_equal(b.p[6], 0x01);   /* zigzag(-1) */
	assert_int_equal(b.p[7], 2);      /* width of miniblock 0 */
	assert_int_equal(b.p[11], 0x22);
	assert_int_equal(b.p[43], 0x01);  /* block 2 */
	assert_int_equal(b.p[44], 2);
	assert_int_equal(b.p[47], 0);     /* its 4th miniblock */
	assert_int_equal(b.p[48], 0x22);
	/* miniblock 3 of block 2 holds deltas 65..71: 2 0 2 0, 2 0 2, padding */
	assert_int_equal(b.p[6 + 37 + 5 + 16], 0x22);
	assert_int_equal(b.p[6 + 37 + 5 + 17], 0x22);
	assert_int_equal(b.p[6 + 37 + 5 + 18], 0);
	tf_buf_free(&b);
}

static void test_thrift(void **state)
{
	(void)state;
	tf_buf b = { 0 };
	pq_thrift t;
	pq_t_init(&t, &b);
	pq_t_i32(&t, 1, 2);          /* 0x15 0x04 */
	pq_t_i64(&t, 3, -1);         /* delta 2, i64: 0x26 0x01 */
	pq_t_bool(&t, 4, true);      /* 0x11 */
	pq_t_begin(&t, 20);          /* delta 16: long form 0x0c, zigzag(20) = 40 */
	pq_t_bool(&t, 1, false);     /* 0x12 */
	pq_t_end(&t);                /* 0x00 */
	pq_t_list(&t, 21, PQ_T_I32, 15); /* 0x19 0xf5 0x0f */
	for (int i = 0; i < 15; i++)
		pq_t_elem_i32(&t, i == 0 ? -64 : 1); /* 0x7f, then 0x02 */
	pq_t_str(&t, 22, "ab");      /* 0x18 0x02 'a' 'b' */
	pq_t_i16(&t, 2, 7);          /* backwards: long form 0x04 0x04, 0x0e */
	pq_t_stop(&t);
	u8 want[64];
	size_t n = 0;
	const u8 head[] = { 0x15, 0x04, 0x26, 0x01, 0x11, 0x0c, 40, 0x12, 0x00, 0x19, 0xf5, 0x0f, 0x7f };
	memcpy(want, head, sizeof(head));
	n = sizeof(head);
	for (int i = 1; i < 15; i++)
		want[n++] = 0x02;
	const u8 tail[] = { 0x18, 0x02, 'a', 'b', 0x04, 0x04, 0x0e, 0x00 };
	memcpy(want + n, tail, sizeof(tail));
	n += sizeof(tail);
	expect_bytes(&b, want, n, "thrift struct");
	tf_buf_free(&b);
}

/* ---- files: a small table generator shared by the writer and the JSON
 * of expected values */

enum gen {
	G_SEQ,      /* sorted: timestamps, increasing steps */
	G_RAND,     /* the full range, with the extremes every few rows */
	G_SMALL,    /* -50..49 */
	G_DOUBLE,   /* fractions, large and small, -0.0 and infinities */
	G_NAN,      /* doubles with NaNs */
	G_FINITE,   /* fractions only */
	G_ZMIN,     /* 0.0, -0.0 and positive: the min is a zero */
	G_ZMAX,     /* 0.0, -0.0 and negative: the max is a zero */
	G_BOOL,
	G_LOWCARD,  /* strings from 7 values (UTF-8 among them) */
	G_UNIQUE,   /* distinct strings */
	G_LONG,     /* strings of 50 to 200 KB */
	G_JSON,     /* JSON objects */
	G_EXTREME,  /* only min and max of the type, alternating */
};
enum nulls { N_NONE, N_SOME, N_ALL };

typedef struct tcol {
	pq_col c;
	int gen;
	int nulls;
} tcol;

typedef struct tcase {
	const char *name;
	int codec;
	uint32_t rg_rows;
	uint32_t rows;
	int ncols;
	tcol cols[12];
	size_t rg_bytes;  /* pq_opts.row_group_bytes (0: the writer's 8 MiB) */
} tcase;

#define I64(n, g, nl, dl) { { n, PQ_INT64, nl != N_NONE, false, dl, false }, g, nl }
#define I32(n, g, nl, dl) { { n, PQ_INT32, nl != N_NONE, false, dl, false }, g, nl }
#define F64(n, g, nl) { { n, PQ_DOUBLE, nl != N_NONE, false, false, false }, g, nl }
#define BOOL(n, nl) { { n, PQ_BOOL, nl != N_NONE, false, false, false }, G_BOOL, nl }
#define STR(n, g, nl, dc) { { n, PQ_STRING, nl != N_NONE, dc, false, false }, g, nl }
#define JSON(n, nl) { { n, PQ_STRING, nl != N_NONE, false, false, true }, G_JSON, nl }

static const tcase cases[] = {
	{ "types_plain", PQ_UNCOMPRESSED, 1000, 2500, 10, {
		I64("i64", G_RAND, N_NONE, false), I64("i64_null", G_SMALL, N_SOME, false),
		I32("i32", G_RAND, N_NONE, false), I32("i32_null", G_SMALL, N_SOME, false),
		F64("f64", G_DOUBLE, N_NONE), F64("f64_null", G_DOUBLE, N_SOME),
		BOOL("b", N_NONE), BOOL("b_null", N_SOME),
		STR("s", G_UNIQUE, N_NONE, false), STR("s_null", G_LOWCARD, N_SOME, false) }, 0 },
	{ "dict_zstd", PQ_ZSTD, 700, 2000, 5, {
		STR("name", G_LOWCARD, N_NONE, true), STR("cat", G_LOWCARD, N_SOME, true),
		STR("uniq", G_UNIQUE, N_NONE, true), JSON("args", N_SOME), I64("ts", G_SEQ, N_NONE, true) }, 0 },
	{ "delta_gzip", PQ_GZIP, 1000, 3001, 7, {
		I64("ts", G_SEQ, N_NONE, true), I64("rand", G_RAND, N_NONE, true),
		I64("ts_null", G_SEQ, N_SOME, true), I32("i32", G_RAND, N_NONE, true),
		I32("i32_small", G_SMALL, N_SOME, true), I64("extreme", G_EXTREME, N_NONE, true),
		F64("dur", G_FINITE, N_SOME) }, 0 },
	{ "empty", PQ_ZSTD, 0, 0, 6, {
		I64("i64", G_SEQ, N_NONE, true), I32("i32", G_SMALL, N_SOME, false),
		F64("f64", G_DOUBLE, N_SOME), BOOL("b", N_NONE), STR("s", G_LOWCARD, N_SOME, true), JSON("j", N_SOME) }, 0 },
	{ "long_strings", PQ_ZSTD, 40, 100, 3, {
		STR("long", G_LONG, N_NONE, false), STR("long_dict", G_LONG, N_SOME, true),
		I32("n", G_SMALL, N_NONE, false) }, 0 },
	{ "extremes", PQ_UNCOMPRESSED, 0, 64, 10, {
		I64("i64", G_EXTREME, N_NONE, false), I32("i32", G_EXTREME, N_NONE, false),
		I64("i64_delta", G_EXTREME, N_SOME, true), I32("i32_delta", G_EXTREME, N_SOME, true),
		F64("nan", G_NAN, N_NONE), F64("f64", G_DOUBLE, N_NONE), BOOL("b", N_SOME),
		STR("s", G_LOWCARD, N_NONE, true), F64("zero_min", G_ZMIN, N_NONE), F64("zero_max", G_ZMAX, N_SOME) }, 0 },
	{ "all_null", PQ_GZIP, 100, 250, 5, {
		I64("i64", G_SEQ, N_ALL, true), I32("i32", G_SMALL, N_ALL, false), F64("f64", G_DOUBLE, N_ALL),
		BOOL("b", N_ALL), STR("s", G_LOWCARD, N_ALL, true) }, 0 },
	{ "pages", PQ_UNCOMPRESSED, 1u << 20, 300000, 5, { /* one row group of several pages */
		I64("ts", G_SEQ, N_NONE, false), I64("ts_delta", G_SEQ, N_SOME, true),
		STR("name", G_LOWCARD, N_SOME, true), F64("f64", G_FINITE, N_NONE),
		STR("uniq_dict", G_UNIQUE, N_NONE, true) }, /* over 64Ki entries: PLAIN */
	  256u << 20 }, /* (24 MB of values: one row group under this budget) */
	/* row groups ended by the buffered values' memory (100,000 bytes), not
	 * by rows: long and short strings, nulls, fixed widths */
	{ "budget", PQ_ZSTD, 0, 3000, 5, {
		I64("ts", G_SEQ, N_NONE, true), STR("name", G_LOWCARD, N_SOME, true),
		STR("uniq", G_UNIQUE, N_SOME, false), I32("i32", G_SMALL, N_SOME, false), BOOL("b", N_NONE) },
	  100000 },
	{ "one_row", PQ_ZSTD, 0, 1, 5, {
		I64("i64", G_SEQ, N_NONE, true), I32("i32", G_SMALL, N_NONE, true), STR("s", G_LOWCARD, N_NONE, true),
		BOOL("b", N_NONE), F64("f64", G_NAN, N_NONE) }, 0 },
};
#define NCASES (sizeof(cases) / sizeof(cases[0]))

static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static uint64_t rnd(size_t ci, int col, uint32_t row)
{
	return mix((uint64_t)ci << 48 ^ (uint64_t)col << 40 ^ row);
}

static bool is_null(size_t ci, int col, uint32_t row)
{
	const tcol *t = &cases[ci].cols[col];
	return t->nulls == N_ALL || (t->nulls == N_SOME && rnd(ci, col + 100, row) % 5 == 0);
}

static int64_t gen_int(size_t ci, int col, uint32_t row)
{
	const tcol *t = &cases[ci].cols[col];
	bool i32 = t->c.type == PQ_INT32;
	uint64_t r = rnd(ci, col, row);
	switch (t->gen) {
	case G_SEQ:
		return 1700000000000000000ll + (int64_t)row * 1000 + (int64_t)(r % 997);
	case G_SMALL:
		return (int64_t)(r % 100) - 50;
	case G_EXTREME:
		return row & 1 ? (i32 ? INT32_MAX : INT64_MAX) : (i32 ? INT32_MIN : INT64_MIN);
	default:
		if (row % 17 == 3)
			return i32 ? INT32_MIN : INT64_MIN;
		if (row % 17 == 9)
			return i32 ? INT32_MAX : INT64_MAX;
		return i32 ? (int32_t)(uint32_t)r : (int64_t)r;
	}
}

static double gen_double(size_t ci, int col, uint32_t row)
{
	const tcol *t = &cases[ci].cols[col];
	uint64_t r = rnd(ci, col, row);
	if (t->gen == G_NAN && row % 3 == 0)
		return NAN;
	if (t->gen == G_ZMIN || t->gen == G_ZMAX)
		return row % 3 == 0 ? (row % 2 ? -0.0 : 0.0) : (t->gen == G_ZMIN ? 1.0 : -1.0) * (double)row / 4;
	if (t->gen == G_FINITE)
		return (double)(r % 1000000) / 1000.0 - 300.0;
	switch (row % 11) {
	case 1: return -0.0;
	case 2: return INFINITY;
	case 3: return -INFINITY;
	case 4: return 1e300 * (double)(r % 7);
	case 5: return -5e-324;
	default: return ((double)(int64_t)(r % 2000001) - 1000000) / 64.0;
	}
}

static char strbuf[256 * 1024];

static size_t gen_str(size_t ci, int col, uint32_t row)
{
	static const char *const low[] = { "main", "compute", "MPI_Send", "caf\xc3\xa9", "\xe6\x97\xa5\xe6\x9c\xac",
					   "a \"quoted\" \\ name", "" };
	const tcol *t = &cases[ci].cols[col];
	uint64_t r = rnd(ci, col, row);
	switch (t->gen) {
	case G_LOWCARD:
		return (size_t)snprintf(strbuf, sizeof(strbuf), "%s", low[r % 7]);
	case G_JSON:
		return (size_t)snprintf(strbuf, sizeof(strbuf), "{\"row\":%u,\"tag\":\"%s\",\"v\":[1,2.5,null]}", row,
					row % 2 ? "x" : "y");
	case G_LONG: {
		size_t n = 50000 + (size_t)(r % 150000);
		for (size_t i = 0; i < n; i++)
			strbuf[i] = (char)('a' + (mix(r + i / 64) % 26));
		/* a few share a value so the dictionary has repeats */
		if (row % 4 == 0)
			n = (size_t)snprintf(strbuf, sizeof(strbuf), "short %u", row % 3);
		return n;
	}
	default:
		return (size_t)snprintf(strbuf, sizeof(strbuf), "span-%u-%016llx\ttab\nnewline", row,
					(unsigned long long)r);
	}
}

/* The oracle of the row groups' sizes (docs/parquet.md, "Row groups"): a
 * row group ends at rg_rows rows or when the memory of its buffered values
 * reaches the budget: 8, 4 or 1 bytes per integer, double or boolean, 16
 * (a string's offset and length) plus its bytes per string, one byte per
 * row of a nullable column.  Fills rg[] (up to max) with the rows of
 * each; returns their number. */
static size_t expect_rgs(size_t ci, uint32_t *rg, size_t max)
{
	static const size_t width[] = { [PQ_INT64] = 8, [PQ_INT32] = 4, [PQ_DOUBLE] = 8, [PQ_BOOL] = 1 };
	const tcase *tc = &cases[ci];
	uint32_t rows = tc->rg_rows ? tc->rg_rows : 122880u, n = 0;
	size_t budget = tc->rg_bytes ? tc->rg_bytes : (size_t)8 << 20, bytes = 0, k = 0;
	for (uint32_t row = 0; row < tc->rows; row++) {
		for (int c = 0; c < tc->ncols; c++) {
			const pq_col *pc = &tc->cols[c].c;
			bytes += pc->nullable;
			if (!is_null(ci, c, row))
				bytes += pc->type == PQ_STRING ? 16 + gen_str(ci, c, row) : width[pc->type];
		}
		if (++n == rows || bytes >= budget || row + 1 == tc->rows) {
			assert_true(k < max);
			rg[k++] = n;
			n = 0;
			bytes = 0;
		}
	}
	return k;
}

static char dir[4096];
static bool keep;

static void path_of(char *p, size_t n, const char *name, const char *ext)
{
	snprintf(p, n, "%s/%s.%s", dir, name, ext);
}

static int write_case(size_t ci, tf_error *err)
{
	const tcase *tc = &cases[ci];
	pq_col cols[12];
	for (int c = 0; c < tc->ncols; c++)
		cols[c] = tc->cols[c].c;
	char path[4200];
	path_of(path, sizeof(path), tc->name, "parquet");
	pq_opts o = { tc->codec, 0, tc->rg_rows, "tracefold version test", tc->rg_bytes };
	pq_file *f;
	int rc = pq_open(&f, path, cols, tc->ncols, &o, err);
	if (rc < 0)
		return rc;
	pq_kv(f, "tracefold.case", tc->name);
	pq_kv(f, "tracefold.note", "caf\xc3\xa9");
	for (uint32_t row = 0; row < tc->rows; row++) {
		for (int c = tc->ncols - 1; c >= 0; c--) { /* any column order */
			if (is_null(ci, c, row)) {
				pq_null(f, c);
				continue;
			}
			switch (cols[c].type) {
			case PQ_INT64: pq_i64(f, c, gen_int(ci, c, row)); break;
			case PQ_INT32: pq_i32(f, c, (int32_t)gen_int(ci, c, row)); break;
			case PQ_DOUBLE: pq_f64(f, c, gen_double(ci, c, row)); break;
			case PQ_BOOL: pq_bool(f, c, rnd(ci, c, row) & 1); break;
			case PQ_STRING: {
				size_t n = gen_str(ci, c, row);
				pq_str(f, c, strbuf, n);
				break;
			}
			}
		}
		rc = pq_end_row(f);
		if (rc < 0) {
			pq_abort(f);
			return rc;
		}
	}
	assert_int_equal(pq_rows(f), tc->rows);
	return pq_close(f, err);
}

static void json_str(FILE *o, const char *s, size_t n)
{
	fputc('"', o);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '"' || c == '\\')
			fprintf(o, "\\%c", c);
		else if (c < 0x20)
			fprintf(o, "\\u%04x", c);
		else
			fputc(c, o);
	}
	fputc('"', o);
}

/* NAME.json: the columns and every value written (column-major; 64-bit
 * integers as strings, doubles as %.17g or "NaN"/"Infinity"/"-Infinity") */
static void write_expect(size_t ci)
{
	static const char *const tn[] = { "INT64", "INT32", "DOUBLE", "STRING", "BOOL" };
	static const char *const cn[] = { "UNCOMPRESSED", "ZSTD", "GZIP" };
	const tcase *tc = &cases[ci];
	char path[4200];
	path_of(path, sizeof(path), tc->name, "json");
	FILE *o = fopen(path, "w");
	assert_non_null(o);
	fprintf(o, "{\"name\":\"%s\",\"rows\":%u,\"row_group_rows\":%u,\"codec\":\"%s\",\"created_by\":\"tracefold version test\",",
		tc->name, tc->rows, tc->rg_rows ? tc->rg_rows : 122880u, cn[tc->codec]);
	uint32_t rgs[64];
	size_t nrg = expect_rgs(ci, rgs, 64);
	fputs("\"row_groups\":[", o);
	for (size_t g = 0; g < nrg; g++)
		fprintf(o, "%s%u", g ? "," : "", rgs[g]);
	fputs("],", o);
	fprintf(o, "\"kv\":{\"tracefold.case\":\"%s\",\"tracefold.note\":\"caf\xc3\xa9\"},\"columns\":[", tc->name);
	for (int c = 0; c < tc->ncols; c++) {
		const pq_col *pc = &tc->cols[c].c;
		fprintf(o, "%s{\"name\":\"%s\",\"type\":\"%s\",\"nullable\":%s,\"dict\":%s,\"delta\":%s,\"json\":%s,\"values\":[",
			c ? "," : "", pc->name, tn[pc->type], pc->nullable ? "true" : "false", pc->dict ? "true" : "false",
			pc->delta ? "true" : "false", pc->json ? "true" : "false");
		for (uint32_t row = 0; row < tc->rows; row++) {
			if (row)
				fputc(',', o);
			if (is_null(ci, c, row)) {
				fputs("null", o);
				continue;
			}
			switch (pc->type) {
			case PQ_INT64: fprintf(o, "\"%lld\"", (long long)gen_int(ci, c, row)); break;
			case PQ_INT32: fprintf(o, "%d", (int32_t)gen_int(ci, c, row)); break;
			case PQ_BOOL: fputs(rnd(ci, c, row) & 1 ? "true" : "false", o); break;
			case PQ_DOUBLE: {
				double d = gen_double(ci, c, row);
				if (isnan(d))
					fputs("\"NaN\"", o);
				else if (isinf(d))
					fputs(d > 0 ? "\"Infinity\"" : "\"-Infinity\"", o);
				else
					fprintf(o, "%.17g", d);
				break;
			}
			case PQ_STRING: {
				size_t n = gen_str(ci, c, row);
				json_str(o, strbuf, n);
				break;
			}
			}
		}
		fputs("]}", o);
	}
	fputs("]}\n", o);
	assert_int_equal(fclose(o), 0);
}

/* ---- the checker: a Thrift compact walker over the footer */

typedef struct rd {
	const u8 *p, *end;
	bool bad;
} rd;

static uint64_t rd_uleb(rd *r)
{
	uint64_t v = 0;
	for (int s = 0; s < 70; s += 7) {
		if (r->p >= r->end) {
			r->bad = true;
			return 0;
		}
		u8 c = *r->p++;
		v |= (uint64_t)(c & 0x7f) << s;
		if (!(c & 0x80))
			return v;
	}
	r->bad = true;
	return 0;
}

static int64_t rd_zz(rd *r)
{
	uint64_t v = rd_uleb(r);
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

static void th_skip(rd *r, int type, int depth);

static void th_skip_struct(rd *r, int depth)
{
	int16_t last = 0;
	while (!r->bad && r->p < r->end) {
		u8 h = *r->p++;
		if (h == 0)
			return;
		int type = h & 0x0f;
		if (h >> 4)
			last = (int16_t)(last + (h >> 4));
		else
			last = (int16_t)rd_zz(r);
		th_skip(r, type, depth + 1);
	}
	r->bad = true;
}

static void th_skip(rd *r, int type, int depth)
{
	if (depth > 20) {
		r->bad = true;
		return;
	}
	switch (type) {
	case PQ_T_TRUE: case PQ_T_FALSE: return;
	case PQ_T_BYTE: r->p++; return;
	case PQ_T_I16: case PQ_T_I32: case PQ_T_I64: rd_uleb(r); return;
	case PQ_T_DOUBLE: r->p += 8; return;
	case PQ_T_BINARY: { uint64_t n = rd_uleb(r); if (n > (uint64_t)(r->end - r->p)) r->bad = true; else r->p += n; return; }
	case PQ_T_LIST: case PQ_T_SET: {
		u8 h = *r->p++;
		uint64_t n = h >> 4 == 15 ? rd_uleb(r) : h >> 4;
		for (uint64_t i = 0; i < n && !r->bad; i++)
			th_skip(r, h & 0x0f, depth + 1);
		return;
	}
	case PQ_T_STRUCT: th_skip_struct(r, depth); return;
	default: r->bad = true;
	}
}

typedef struct footer {
	int64_t version, num_rows, row_groups, kv, schema;
	char created_by[64];
} footer;

static void check_file(const char *path, footer *ft)
{
	FILE *in = fopen(path, "rb");
	assert_non_null(in);
	struct stat st;
	assert_int_equal(fstat(fileno(in), &st), 0);
	size_t n = (size_t)st.st_size;
	u8 *data = malloc(n + 1);
	assert_non_null(data);
	assert_int_equal(fread(data, 1, n + 1, in), n);
	fclose(in);
	assert_true(n >= 12);
	if (memcmp(data, "PAR1", 4) != 0 || memcmp(data + n - 4, "PAR1", 4) != 0)
		fail_msg("%s: no PAR1 at both ends", path);
	uint32_t len = (uint32_t)data[n - 8] | (uint32_t)data[n - 7] << 8 | (uint32_t)data[n - 6] << 16 |
		       (uint32_t)data[n - 5] << 24;
	if (len == 0 || len > n - 12)
		fail_msg("%s: footer length %u in a file of %zu bytes", path, len, n);
	rd r = { data + n - 8 - len, data + n - 8, false };
	memset(ft, 0, sizeof(*ft));
	int16_t last = 0;
	while (!r.bad && r.p < r.end) {
		u8 h = *r.p++;
		if (h == 0)
			break;
		int type = h & 0x0f;
		last = h >> 4 ? (int16_t)(last + (h >> 4)) : (int16_t)rd_zz(&r);
		if (last == 1 && type == PQ_T_I32)
			ft->version = rd_zz(&r);
		else if (last == 3 && type == PQ_T_I64)
			ft->num_rows = rd_zz(&r);
		else if ((last == 2 || last == 4 || last == 5) && type == PQ_T_LIST) {
			const u8 *at = r.p;
			u8 lh = *at++;
			rd t = { at, r.end, false };
			int64_t cnt = lh >> 4 == 15 ? (int64_t)rd_uleb(&t) : lh >> 4;
			*(last == 2 ? &ft->schema : last == 4 ? &ft->row_groups : &ft->kv) = cnt;
			th_skip(&r, type, 0);
		} else if (last == 6 && type == PQ_T_BINARY) {
			uint64_t sn = rd_uleb(&r);
			assert_true(sn < sizeof(ft->created_by) && sn <= (uint64_t)(r.end - r.p));
			memcpy(ft->created_by, r.p, sn);
			r.p += sn;
		} else {
			th_skip(&r, type, 0);
		}
	}
	bool bad = r.bad || r.p != r.end;
	free(data);
	if (bad)
		fail_msg("%s: the footer is not one Thrift compact struct", path);
}

static void test_files(void **state)
{
	(void)state;
	for (size_t ci = 0; ci < NCASES; ci++) {
		const tcase *tc = &cases[ci];
		tf_error err;
		tf_error_clear(&err);
		int rc = write_case(ci, &err);
		if (rc < 0)
			fail_msg("%s: %s", tc->name, err.msg);
		if (keep)
			write_expect(ci);
		char path[4200];
		path_of(path, sizeof(path), tc->name, "parquet");
		footer ft;
		check_file(path, &ft);
		uint32_t rgs[64];
		size_t nrg = expect_rgs(ci, rgs, 64);
		if (tc->rg_bytes && tc->rg_bytes < 1u << 20 && nrg < 2)
			fail_msg("%s: the case does not reach its byte budget", tc->name);
		if (ft.version != 2 || ft.num_rows != tc->rows || ft.row_groups != (int64_t)nrg ||
		    ft.schema != tc->ncols + 1 || ft.kv != 2 || strcmp(ft.created_by, "tracefold version test") != 0)
			fail_msg("%s: footer: version %lld, %lld rows, %lld row groups, %lld schema elements, %lld kv, '%s'",
				 tc->name, (long long)ft.version, (long long)ft.num_rows, (long long)ft.row_groups,
				 (long long)ft.schema, (long long)ft.kv, ft.created_by);
	}
}

/* A dictionary column keeps a string put again once (pq_str: by the
 * caller's pointer and length), but only when its bytes are the same: the
 * same pointer may hold another string by then, and a row group's end
 * forgets them.  Written and read back. */
static void test_str_again(void **state)
{
	(void)state;
	static const pq_col cols[1] = { { "name", PQ_STRING, false, true, false, false } };
	static const char *const want[] = { "abcd", "abcd", "wxyz", "wxyz", "abcd", "wxyz", "abcd", "" };
	char path[4200], b[8], other[8] = "abcd";
	path_of(path, sizeof(path), "str_again", "parquet");
	pq_opts o = { PQ_UNCOMPRESSED, 0, 4, NULL, 0 };
	pq_file *f;
	tf_error err;
	tf_error_clear(&err);
	assert_int_equal(pq_open(&f, path, cols, 1, &o, &err), 0);
	for (int i = 0; i < 8; i++) {
		memcpy(b, want[i], strlen(want[i]) + 1);
		/* row 4: the same bytes from another pointer */
		pq_str(f, 0, i == 4 ? other : b, strlen(want[i]));
		assert_int_equal(pq_end_row(f), 0);
	}
	assert_int_equal(pq_close(f, &err), 0);
	pq_reader *r;
	assert_int_equal(pq_ropen(&r, path, &err), 0);
	assert_int_equal(pq_ruse(r, 0, &err), 0);
	for (int i = 0; i < 8; i++) {
		assert_int_equal(pq_rnext(r, &err), 1);
		size_t n;
		const char *v = pq_rstr(r, 0, &n);
		assert_int_equal(n, strlen(want[i]));
		assert_memory_equal(v, want[i], n);
	}
	assert_int_equal(pq_rnext(r, &err), 0);
	pq_rclose(r);
	remove(path);
}

/* The buffered values are coded (pq.c): times a few hundred apart take 2
 * bytes, not 8, and the extremes (the largest differences) come back as
 * they went in.  Written and read back. */
static void test_coded(void **state)
{
	(void)state;
	static const pq_col cols[4] = { { "ts", PQ_INT64, false, false, false, false },
					{ "x", PQ_INT64, true, false, false, false },
					{ "y", PQ_INT32, false, false, false, false },
					{ "d", PQ_DOUBLE, false, false, false, false } };
	enum { N = 10000 };
	char path[4200];
	path_of(path, sizeof(path), "coded", "parquet");
	pq_file *f;
	tf_error err;
	tf_error_clear(&err);
	assert_int_equal(pq_open(&f, path, cols, 4, NULL, &err), 0);
	for (int64_t i = 0; i < N; i++) {
		pq_i64(f, 0, 1700000000000000000ll + i * 300);
		if (i % 5 == 4)
			pq_null(f, 1);
		else
			pq_i64(f, 1, i % 3 == 0 ? INT64_MIN : i % 3 == 1 ? INT64_MAX : -i);
		pq_i32(f, 2, i & 1 ? INT32_MIN : INT32_MAX);
		pq_f64(f, 3, (double)i / 3);
		assert_int_equal(pq_end_row(f), 0);
	}
	assert_true(f->cb[0].code_n <= 2 * N + 8);
	assert_int_equal(pq_close(f, &err), 0);
	pq_reader *r;
	assert_int_equal(pq_ropen(&r, path, &err), 0);
	for (int c = 0; c < 4; c++)
		assert_int_equal(pq_ruse(r, c, &err), 0);
	for (int64_t i = 0; i < N; i++) {
		assert_int_equal(pq_rnext(r, &err), 1);
		assert_true(pq_ri64(r, 0) == 1700000000000000000ll + i * 300);
		assert_int_equal(pq_rnull(r, 1), i % 5 == 4);
		if (i % 5 != 4)
			assert_true(pq_ri64(r, 1) == (i % 3 == 0 ? INT64_MIN : i % 3 == 1 ? INT64_MAX : -i));
		assert_true(pq_ri64(r, 2) == (i & 1 ? INT32_MIN : INT32_MAX));
		assert_true(pq_rf64(r, 3) == (double)i / 3);
	}
	assert_int_equal(pq_rnext(r, &err), 0);
	pq_rclose(r);
	remove(path);
}

/* no file and no temporary left in dir named like name */
static void assert_no_file(const char *name)
{
	DIR *d = opendir(dir);
	assert_non_null(d);
	struct dirent *e;
	while ((e = readdir(d)))
		if (strstr(e->d_name, name))
			fail_msg("'%s' left in %s", e->d_name, dir);
	closedir(d);
}

static void test_misuse(void **state)
{
	(void)state;
	static const pq_col cols[2] = { { "a", PQ_INT64, false, false, false, false },
					{ "b", PQ_STRING, true, true, false, false } };
	char path[4200];
	path_of(path, sizeof(path), "misuse", "parquet");
	tf_error err;
	pq_file *f;
	/* a null in a REQUIRED column */
	assert_int_equal(pq_open(&f, path, cols, 2, NULL, &err), 0);
	pq_null(f, 0);
	pq_str(f, 1, "x", 1);
	assert_int_equal(pq_end_row(f), TF_EUSAGE);
	assert_int_equal(pq_close(f, &err), TF_EUSAGE);
	assert_non_null(strstr(err.msg, "REQUIRED"));
	assert_no_file("misuse");
	/* a row without a value of b */
	assert_int_equal(pq_open(&f, path, cols, 2, NULL, &err), 0);
	pq_i64(f, 0, 1);
	assert_int_equal(pq_end_row(f), TF_EUSAGE);
	assert_int_equal(pq_close(f, &err), TF_EUSAGE);
	assert_no_file("misuse");
	/* a value of the wrong type, a value given twice */
	assert_int_equal(pq_open(&f, path, cols, 2, NULL, &err), 0);
	pq_i32(f, 0, 1);
	assert_int_equal(pq_end_row(f), TF_EUSAGE);
	pq_abort(f);
	assert_int_equal(pq_open(&f, path, cols, 2, NULL, &err), 0);
	pq_i64(f, 0, 1);
	pq_i64(f, 0, 2);
	assert_int_equal(pq_end_row(f), TF_EUSAGE);
	pq_abort(f);
	/* abort after rows: nothing left */
	assert_int_equal(pq_open(&f, path, cols, 2, NULL, &err), 0);
	pq_i64(f, 0, 1);
	pq_null(f, 1);
	assert_int_equal(pq_end_row(f), 0);
	pq_abort(f);
	pq_abort(NULL);
	assert_no_file("misuse");
	/* bad definitions */
	static const pq_col bad[1] = { { "x", PQ_INT64, false, true, false, false } }; /* dict on an int */
	assert_int_equal(pq_open(&f, path, bad, 1, NULL, &err), TF_EUSAGE);
	assert_int_equal(pq_open(&f, path, cols, 0, NULL, &err), TF_EUSAGE);
	pq_opts o = { 9, 0, 0, NULL, 0 };
	assert_int_equal(pq_open(&f, path, cols, 2, &o, &err), TF_EUSAGE);
	/* a directory that does not exist */
	/* the file is created when its first bytes are written: the failure
	 * to create it comes at pq_close (or the first full row group) */
	assert_int_equal(pq_open(&f, "/nonexistent/dir/x.parquet", cols, 2, NULL, &err), 0);
	assert_int_equal(pq_close(f, &err), TF_EIO);
	assert_no_file("misuse");
}

static void rm_dir(void)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *e;
	char p[4400];
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' && (!e->d_name[1] || (e->d_name[1] == '.' && !e->d_name[2])))
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		unlink(p);
	}
	closedir(d);
	rmdir(dir);
}

int main(void)
{
	const char *keepdir = getenv("TF_PQ_DIR");
	if (keepdir && *keepdir) {
		snprintf(dir, sizeof(dir), "%s", keepdir);
		if (mkdir(dir, 0777) < 0 && errno != EEXIST) {
			perror(dir);
			return 1;
		}
		keep = true;
	} else {
		const char *tmp = getenv("TMPDIR");
		snprintf(dir, sizeof(dir), "%s/tf-pq.XXXXXX", tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(dir)) {
			perror(dir);
			return 1;
		}
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rle_hybrid),
		cmocka_unit_test(test_delta),
		cmocka_unit_test(test_thrift),
		cmocka_unit_test(test_files),
		cmocka_unit_test(test_str_again),
		cmocka_unit_test(test_coded),
		cmocka_unit_test(test_misuse),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	if (!keep)
		rm_dir();
	return rc;
}
