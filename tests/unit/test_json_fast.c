/* test_json_fast.c - the JSON tokenizer's fast paths (src/read/json.h,
 * json.c, json_check.c) against the general paths they stand for: numbers
 * converted as they are scanned (tf_json_number_scaled, 8 digits at a time,
 * and its one-pass path where 33 bytes are left) against tf_json_value +
 * tf_json_decimal_scaled, every digit count and at every distance from the
 * buffer's end; the members picked out while an
 * object is checked (tf_json_nested_pick) against a walk of the object
 * (tf_json_iter_next), and its errors against tf_json_nested's (code, byte,
 * message) on mutated objects; integers read as doubles without strtod;
 * the literals, each read with one load; the Chrome reader's last-track
 * cache (pid and tid compared 8 or 4 bytes at a time) never taking a pid
 * or tid that differs in one byte for the last one.
 * Each buffer is allocated to its exact size, so that the sanitizer build
 * catches a read past its end. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tracefold/reader.h"
#include "../../src/read/chrome.h"
#include "../../src/read/json.h"

typedef unsigned char u8;

static uint64_t rnd(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* a copy of s[0..n) in a block of exactly n bytes */
static u8 *exact(const char *s, size_t n)
{
	u8 *b = malloc(n ? n : 1);
	assert_non_null(b);
	memcpy(b, s, n);
	return b;
}

static void test_swar8(void **state)
{
	(void)state;
	const char *d = "9876543210123456";
	for (size_t k = 1; k <= 8; k++)
		for (size_t at = 0; at + 8 <= 16; at++) {
			uint64_t want = 0;
			for (size_t i = 0; i < k; i++)
				want = want * 10 + (uint64_t)(d[at + i] - '0');
			assert_int_equal(tf_json_swar8((const u8 *)d + at, k), want);
		}
	/* the bytes after the digits, whatever they are, do not count */
	assert_int_equal(tf_json_swar8((const u8 *)"12,\"\x00\xff/ ", 2), 12);
	assert_int_equal(tf_json_swar8((const u8 *)"0000000\x01", 7), 0);
}

/* One text: tf_json_number_scaled must agree with tf_json_value and
 * tf_json_decimal_scaled of the span. */
static void check_scaled(const char *s, size_t n, int scale)
{
	u8 *b = exact(s, n);
	const u8 *end = b + n, *o1 = NULL, *o2 = (const u8 *)"";
	tf_json_span v1, v2;
	tf_json_error e;
	memset(&v1, 0, sizeof(v1));
	memset(&v2, 0xAB, sizeof(v2));
	int64_t x = 0x5555, want;
	uint8_t ok = 7;
	int rc1 = tf_json_value(b, end, &v1, &o1, &e);
	bool read = tf_json_number_scaled(b, end, &v2, &o2, scale, &x, &ok);
	if (!read) {
		assert_int_equal(ok, 0);
		assert_true(o2 == (const u8 *)""); /* nothing read */
	} else {
		if (rc1 != TF_JSON_OK)
			fail_msg("'%.*s': read, tf_json_value says %d", (int)n, s, rc1);
		assert_true(o1 == o2);
		assert_true(v1.p == v2.p && v1.n == v2.n && v1.type == v2.type && v1.esc == v2.esc);
		if (ok) {
			if (tf_json_decimal_scaled((const char *)v1.p, v1.n, scale, &want) != 0)
				fail_msg("'%.*s': converted, not by tf_json_decimal_scaled", (int)n, s);
			if (x != want)
				fail_msg("'%.*s': %lld, want %lld", (int)n, s, (long long)x, (long long)want);
		} else {
			assert_int_equal(ok, 0);
		}
	}
	free(b);
}

static void test_number_scaled(void **state)
{
	(void)state;
	static const char *const fixed[] = {
		"0,", "-0,", "0.5,", "-0.125}", "01,", "00", "-", "-,", "1.,", "1.5e3,", "1e5,", "-Infinity,",
		"NaN,", "\"12\",", "4874506480595.926, ", "4874506480595.9265, ", "9223372036854775.807,",
		"9223372036854775.808,", "9999999999999999,", "99999999999999999,", "12345678,", "123456789,",
		"1.5 ", "7]", "3\n", "2x,", "2.x,", "26831, \"dur\"",
	};
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		for (int pad = 0; pad <= 48; pad++) { /* past 33 bytes from the start: the one-pass path */
			char buf[128];
			size_t n = strlen(fixed[i]);
			memcpy(buf, fixed[i], n);
			memset(buf + n, ' ', (size_t)pad);
			for (int scale = 0; scale <= 8; scale++)
				check_scaled(buf, n + (size_t)pad, scale);
		}
	/* every count of integer and decimal digits, each terminator, at every
	 * distance from the end */
	uint64_t r = 88172645463325252ull;
	static const char term[] = ",} \n]\"x.eE0";
	for (int it = 0; it < 40000; it++) {
		char buf[128];
		size_t n = 0;
		if (rnd(&r) % 3 == 0)
			buf[n++] = '-';
		size_t ni = 1 + rnd(&r) % 21;
		buf[n++] = (char)(rnd(&r) % 5 == 0 ? '0' : '1' + rnd(&r) % 9);
		for (size_t i = 1; i < ni; i++)
			buf[n++] = (char)('0' + rnd(&r) % 10);
		if (rnd(&r) % 2) {
			buf[n++] = '.';
			size_t nf = rnd(&r) % 6;
			for (size_t i = 0; i < nf; i++)
				buf[n++] = (char)('0' + rnd(&r) % 10);
		}
		buf[n++] = term[rnd(&r) % (sizeof(term) - 1)];
		size_t pad = rnd(&r) % (it % 2 ? 12 : 48); /* half of them 33 bytes or more: the one-pass path */
		for (size_t i = 0; i < pad; i++)
			buf[n++] = (char)(rnd(&r) % 2 ? ' ' : '9');
		check_scaled(buf, n, (int)(rnd(&r) % 9));
		check_scaled(buf, n - pad, 3);
	}
}

/* the keys picked in these tests, as the Chrome reader's */
enum { K_BYTES, K_ADDR, K_DEV_ID, K_PY_ID, K_PY_PARENT, K_CORR, K_CORR_ID, NK };
static const char *const keys[NK] = { "Bytes", "Addr", "Device Id", "Python id", "Python parent id", "correlation",
				      "correlation_id" };
static const uint8_t lens[NK] = { 5, 4, 9, 9, 16, 11, 14 };
static const uint16_t first[256] = {
	['B'] = 1 << K_BYTES, ['A'] = 1 << K_ADDR, ['D'] = 1 << K_DEV_ID,
	['P'] = 1 << K_PY_ID | 1 << K_PY_PARENT, ['c'] = 1 << K_CORR | 1 << K_CORR_ID,
};

/* One object text: tf_json_nested_pick returns what tf_json_nested
 * returns (the same error, byte and message), and picks what a walk of
 * the object finds (the last value of each key). */
static void check_pick(const char *s, size_t n)
{
	u8 *b = exact(s, n);
	const u8 *end = b + n, *o1 = NULL, *o2 = NULL;
	tf_json_error e1, e2;
	tf_json_span val[NK];
	tf_json_pick pk = { first, keys, lens, val, 0xFFFF, 0xFFFF };
	memset(&e1, 0, sizeof(e1));
	memset(&e2, 0, sizeof(e2));
	int rc1 = tf_json_nested(b, end, &o1, &e1);
	int rc2 = tf_json_nested_pick(b, end, &o2, &e2, &pk);
	if (rc1 != rc2)
		fail_msg("'%.*s': %d, tf_json_nested %d", (int)n, s, rc2, rc1);
	if (rc1 < 0) {
		assert_true(e1.at == e2.at);
		assert_string_equal(e1.msg, e2.msg);
	}
	if (rc1 != TF_JSON_OK) {
		free(b);
		return;
	}
	assert_true(o1 == o2);
	tf_json_span obj = { b, (size_t)(o1 - b), TF_JSON_OBJECT, 0 }, k, v, want[NK];
	uint16_t seen = 0, dup = 0;
	tf_json_iter it;
	for (tf_json_iter_begin(&it, &obj); tf_json_iter_next(&it, &k, &v);)
		for (int i = 0; i < NK; i++)
			if (tf_json_is(&k, keys[i])) {
				dup |= seen & 1u << i;
				seen |= (uint16_t)(1u << i);
				want[i] = v;
			}
	if (pk.seen != seen || pk.dup != dup)
		fail_msg("'%.*s': seen %x dup %x, want %x %x", (int)n, s, pk.seen, pk.dup, seen, dup);
	for (int i = 0; i < NK; i++)
		if (seen & 1u << i)
			assert_true(val[i].p == want[i].p && val[i].n == want[i].n && val[i].type == want[i].type &&
				    val[i].esc == want[i].esc);
	free(b);
}

static void test_nested_pick(void **state)
{
	(void)state;
	static const char *const mkey[] = {
		"\"Bytes\"", "\"Addr\"", "\"Device Id\"", "\"Python id\"", "\"Python parent id\"", "\"correlation\"",
		"\"correlation_id\"", "\"B\"", "\"Byte\"", "\"Bytes \"", "\"By\\u0074es\"", "\"context\"", "\"\"",
		"\"Ev Idx\"", "\"Pythonid\"",
	};
	static const char *const mval[] = {
		"12", "-0", "0.5", "\"x\"", "\"a\\\"b\"", "\"\"", "null", "true", "[1,{\"Bytes\":2}]",
		"{\"Addr\":3,\"Python id\":[4]}", "[]", "{}", "1e5", "-Infinity", "0x1f", "\"0x1f\"", "[[],[[1]]]",
	};
	static const char *const ws[] = { "", "", " ", "\n      ", "\t\r\n " };
	static const char repl[] = "\"{}[],:\\0-.e \x01\xff" "a1";
	uint64_t r = 0x9E3779B97F4A7C15ull;
	for (int it = 0; it < 20000; it++) {
		char buf[1024];
		size_t n = 0;
		int nm = (int)(rnd(&r) % 8);
#define PUT(str) do { const char *s_ = (str); size_t l_ = strlen(s_); memcpy(buf + n, s_, l_); n += l_; } while (0)
		PUT("{");
		for (int m = 0; m < nm; m++) {
			if (m)
				PUT(",");
			PUT(ws[rnd(&r) % 5]);
			PUT(mkey[rnd(&r) % (sizeof(mkey) / sizeof(mkey[0]))]);
			PUT(ws[rnd(&r) % 5]);
			PUT(":");
			PUT(ws[rnd(&r) % 5]);
			PUT(mval[rnd(&r) % (sizeof(mval) / sizeof(mval[0]))]);
			PUT(ws[rnd(&r) % 5]);
		}
		PUT("}");
		size_t obj = n;
		PUT(rnd(&r) % 2 ? ",\n  {\"ph\": \"X\"}" : "]");
#undef PUT
		check_pick(buf, n);
		check_pick(buf, obj); /* the object ends the buffer */
		check_pick(buf, obj - 1 - rnd(&r) % (obj - 1 ? obj - 1 : 1)); /* cut */
		/* one byte replaced, deleted or inserted */
		size_t at = 1 + rnd(&r) % (n - 1); /* the first byte stays '{' */
		char mut[1100];
		memcpy(mut, buf, n);
		switch (rnd(&r) % 3) {
		case 0:
			mut[at] = repl[rnd(&r) % (sizeof(repl) - 1)];
			check_pick(mut, n);
			break;
		case 1:
			memmove(mut + at, mut + at + 1, n - at - 1);
			check_pick(mut, n - 1);
			break;
		default:
			memmove(mut + at + 1, mut + at, n - at);
			mut[at] = repl[rnd(&r) % (sizeof(repl) - 1)];
			check_pick(mut, n + 1);
		}
	}
}

static void test_double_int(void **state)
{
	(void)state;
	uint64_t r = 1234567ull;
	for (int it = 0; it < 20000; it++) {
		char buf[32];
		size_t n = 0;
		if (rnd(&r) % 2)
			buf[n++] = '-';
		size_t nd = 1 + rnd(&r) % 18;
		for (size_t i = 0; i < nd; i++)
			buf[n++] = (char)('0' + rnd(&r) % 10);
		buf[n] = 0;
		tf_json_span s = { (const u8 *)buf, n, rnd(&r) % 2 ? TF_JSON_NUMBER : TF_JSON_STRING, 0 };
		double d = 0, want = strtod(buf, NULL);
		assert_true(tf_json_double(&s, &d));
		if (memcmp(&d, &want, sizeof(d)) != 0)
			fail_msg("'%s': %.17g, strtod %.17g", buf, d, want);
	}
	tf_json_span neg0 = { (const u8 *)"-0", 2, TF_JSON_NUMBER, 0 }, esc = { (const u8 *)"12", 2, TF_JSON_STRING, 1 };
	double d = 1;
	assert_true(tf_json_double(&neg0, &d));
	assert_true(d == 0 && 1 / d < 0);
	assert_false(tf_json_double(&esc, &d));
}

static void test_literals(void **state)
{
	(void)state;
	static const char *const yes[] = { "true", "false", "null", "NaN", "Infinity" };
	static const char *const no[] = { "", "t", "tru", "truE", "True", "fals", "falsE", "falsee", "nul", "nulL",
					  "Nan", "NAN", "Infinit", "Infinitx", "infinity", "nullnull", "1234" };
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		u8 *b = exact(yes[i], strlen(yes[i]));
		assert_true(tf_json_literal_ok(b, strlen(yes[i])));
		free(b);
	}
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
		u8 *b = exact(no[i], strlen(no[i]));
		if (tf_json_literal_ok(b, strlen(no[i])))
			fail_msg("'%s' taken for a literal", no[i]);
		free(b);
	}
}

/* a sink that keeps each event's track */
typedef struct tracks {
	tf_sink sink;
	uint32_t t[256];
	size_t n;
} tracks;

static int keep_track(tf_sink *s, const tf_event *ev)
{
	tracks *k = tf_container_of(s, tracks, sink);
	if (k->n < 256)
		k->t[k->n] = ev->track;
	k->n++;
	return 0;
}

static void test_track_cache(void **state)
{
	(void)state;
	for (int field = 0; field < 2; field++)
		for (size_t len = 1; len <= 24; len++) {
			/* A, B_i, A for each byte i of A: B_i is A with byte i changed */
			char a[32], b[32], json[8192];
			size_t n = 0;
			for (size_t j = 0; j < len; j++)
				a[j] = (char)('a' + j % 26);
			a[len] = 0;
			n += (size_t)snprintf(json + n, sizeof(json) - n, "[");
			for (size_t i = 0; i < len; i++) {
				memcpy(b, a, len + 1);
				b[i] = 'Z';
				const char *x[3] = { a, b, a };
				for (int k = 0; k < 3; k++)
					n += (size_t)snprintf(json + n, sizeof(json) - n,
							      "%s{\"ph\":\"i\",\"ts\":1,\"pid\":\"%s\",\"tid\":\"%s\"}",
							      i || k ? "," : "", field ? "p" : x[k], field ? x[k] : "t");
			}
			n += (size_t)snprintf(json + n, sizeof(json) - n, "]");
			tf_ctx *ctx = tf_ctx_new();
			assert_non_null(ctx);
			tracks k = { .sink.event = keep_track };
			tf_error err;
			tf_error_clear(&err);
			assert_int_equal(tf_chrome_parse_buffer("t.json", 0, ctx, &k.sink, json, n, 0, &err), 0);
			assert_int_equal(k.n, 3 * len);
			for (size_t i = 0; i < len; i++) {
				if (k.t[3 * i + 1] == k.t[0] || k.t[3 * i] != k.t[0] || k.t[3 * i + 2] != k.t[0])
					fail_msg("%s of %zu bytes, byte %zu changed: tracks %u %u %u", field ? "tid" : "pid",
						 len, i, k.t[3 * i], k.t[3 * i + 1], k.t[3 * i + 2]);
			}
			assert_int_equal(tf_ctx_track_count(ctx), len + 1);
			tf_ctx_free(ctx);
		}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_swar8),
		cmocka_unit_test(test_number_scaled),
		cmocka_unit_test(test_nested_pick),
		cmocka_unit_test(test_double_int),
		cmocka_unit_test(test_literals),
		cmocka_unit_test(test_track_cache),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
