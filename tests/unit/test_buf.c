/* test_buf.c - the growable byte buffer and the LEB128 varints of
 * src/base/buf.h against the protobuf encoding guide's examples (150 is
 * 96 01, zigzag maps 0 -1 1 -2 to 0 1 2 3 and INT64_MIN to 2^64-1), every
 * length from 1 to 10 bytes, and the reader's refusals: cut short, a 10th
 * byte with bits past the 64th, an 11th byte. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include "buf.h"

typedef unsigned char u8;

static void test_examples(void **state)
{
	(void)state;
	static const struct { uint64_t v; u8 b[10]; size_t n; } c[] = {
		{ 0, { 0x00 }, 1 },
		{ 1, { 0x01 }, 1 },
		{ 127, { 0x7f }, 1 },
		{ 128, { 0x80, 0x01 }, 2 },
		{ 150, { 0x96, 0x01 }, 2 },
		{ 300, { 0xac, 0x02 }, 2 },
		{ 16384, { 0x80, 0x80, 0x01 }, 3 },
		{ UINT64_MAX, { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01 }, 10 },
	};
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		u8 d[TF_VARINT_MAX];
		assert_int_equal(tf_varint_encode(d, c[i].v), c[i].n);
		assert_memory_equal(d, c[i].b, c[i].n);
		assert_int_equal(tf_varint_size(c[i].v), c[i].n);
		tf_buf b = { 0 };
		tf_buf_varint(&b, c[i].v);
		assert_false(b.oom);
		assert_int_equal(b.n, c[i].n);
		assert_memory_equal(b.p, c[i].b, c[i].n);
		size_t at = 0;
		uint64_t v = 1;
		assert_int_equal(tf_varint_get(b.p, b.n, &at, &v), 0);
		assert_true(v == c[i].v);
		assert_int_equal(at, c[i].n);
		tf_buf_free(&b);
	}
	static const struct { int64_t v; uint64_t z; } zz[] = {
		{ 0, 0 }, { -1, 1 }, { 1, 2 }, { -2, 3 }, { 2147483647, 4294967294u },
		{ -2147483648LL, 4294967295u }, { INT64_MAX, UINT64_MAX - 1 }, { INT64_MIN, UINT64_MAX },
	};
	for (size_t i = 0; i < sizeof(zz) / sizeof(zz[0]); i++) {
		assert_true(tf_zigzag(zz[i].v) == zz[i].z);
		assert_true(tf_unzigzag(zz[i].z) == zz[i].v);
		tf_buf b = { 0 };
		tf_buf_svarint(&b, zz[i].v);
		size_t at = 0;
		uint64_t u;
		assert_int_equal(tf_varint_get(b.p, b.n, &at, &u), 0);
		assert_true(u == zz[i].z);
		tf_buf_free(&b);
	}
}

/* every power of two and its neighbours, one after the other in a buffer */
static void test_round_trip(void **state)
{
	(void)state;
	tf_buf b = { 0 };
	uint64_t want[64 * 3];
	size_t n = 0, bytes = 0;
	for (int k = 0; k < 64; k++) {
		uint64_t p = (uint64_t)1 << k;
		uint64_t v[3] = { p - 1, p, p + 1 };
		for (int j = 0; j < 3; j++) {
			want[n++] = v[j];
			tf_buf_varint(&b, v[j]);
			bytes += tf_varint_size(v[j]);
		}
	}
	assert_false(b.oom);
	assert_int_equal(b.n, bytes);
	size_t at = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t v;
		assert_int_equal(tf_varint_get(b.p, b.n, &at, &v), 0);
		assert_true(v == want[i]);
	}
	assert_int_equal(at, b.n);
	tf_buf_free(&b);
	assert_null(b.p);
	assert_int_equal(b.n, 0);
}

static void test_refused(void **state)
{
	(void)state;
	uint64_t v = 7;
	size_t at = 0;
	assert_int_equal(tf_varint_get((const u8 *)"", 0, &at, &v), TF_VARINT_TRUNCATED);
	assert_true(v == 0);
	static const u8 cut[] = { 0x96 };
	at = 0;
	assert_int_equal(tf_varint_get(cut, sizeof(cut), &at, &v), TF_VARINT_TRUNCATED);
	/* 2^64: a 10th byte of 2 */
	static const u8 big[] = { 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x02 };
	at = 0;
	assert_int_equal(tf_varint_get(big, sizeof(big), &at, &v), TF_VARINT_TOO_LARGE);
	/* a 10th byte that goes on */
	static const u8 longer[] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x81, 0x00 };
	at = 0;
	assert_int_equal(tf_varint_get(longer, sizeof(longer), &at, &v), TF_VARINT_TOO_LONG);
	assert_int_equal(at, 10);
	/* a read starting inside the bytes stops at their end */
	static const u8 two[] = { 0x01, 0x80 };
	at = 1;
	assert_int_equal(tf_varint_get(two, sizeof(two), &at, &v), TF_VARINT_TRUNCATED);
}

static void test_bytes(void **state)
{
	(void)state;
	tf_buf b = { 0 };
	tf_buf_byte(&b, 0x1ab); /* the low byte */
	tf_buf_le32(&b, 0x04030201u);
	tf_buf_le64(&b, 0x0c0b0a0908070605ull);
	tf_buf_put(&b, "xyz", 3);
	tf_buf_put(&b, NULL, 0);
	static const u8 want[] = { 0xab, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 'x', 'y', 'z' };
	assert_int_equal(b.n, sizeof(want));
	assert_memory_equal(b.p, want, sizeof(want));
	/* room hands out space without counting it */
	u8 *d = tf_buf_room(&b, 100000);
	assert_non_null(d);
	assert_int_equal(b.n, sizeof(want));
	assert_true(b.cap >= b.n + 100000);
	/* a size that cannot be: oom, and every later put is dropped */
	assert_null(tf_buf_room(&b, SIZE_MAX));
	assert_true(b.oom);
	tf_buf_varint(&b, 5);
	assert_int_equal(b.n, sizeof(want));
	tf_buf_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_examples),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_bytes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
