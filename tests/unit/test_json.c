/* test_json.c - the generic JSON tokenizer (src/read/json.h): values and
 * their spans, TF_JSON_NEED for values cut by the end of the buffer, errors
 * as values (code, byte at fault, message), object members, the resumable
 * skip, unescaping, numbers and ids.  Its use by the Chrome reader is
 * tested in test_chrome.c. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include "../../src/read/json.h"

typedef unsigned char u8;

/* tf_json_value over all of s */
static int value(const char *s, tf_json_span *v, size_t *used, tf_json_error *e)
{
	const u8 *p = (const u8 *)s, *end = p + strlen(s), *out = NULL;
	memset(e, 0, sizeof(*e));
	int rc = tf_json_value(p, end, v, &out, e);
	*used = rc == TF_JSON_OK ? (size_t)(out - p) : 0;
	return rc;
}

static void test_values(void **state)
{
	(void)state;
	static const struct { const char *s; int type; size_t n, used; uint8_t esc; } c[] = {
		{ "\"abc\",", TF_JSON_STRING, 3, 5, 0 },
		{ "\"a\\\"b\"}", TF_JSON_STRING, 4, 6, 1 },
		{ "\"\"]", TF_JSON_STRING, 0, 2, 0 },
		{ "12.5e3,", TF_JSON_NUMBER, 6, 6, 0 },
		{ "-Infinity}", TF_JSON_NUMBER, 9, 9, 0 }, /* a number no conversion accepts */
		{ "true ", TF_JSON_LITERAL, 4, 4, 0 },
		{ "null]", TF_JSON_LITERAL, 4, 4, 0 },
		{ "NaN,", TF_JSON_LITERAL, 3, 3, 0 },
		{ "Infinity}", TF_JSON_LITERAL, 8, 8, 0 },
		{ "{\"a\":[1,{\"b\":\"]}\"}]} ,", TF_JSON_OBJECT, 20, 20, 0 },
		{ "[[],{},\"\\\\\"]x", TF_JSON_ARRAY, 12, 12, 0 },
	};
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		tf_json_span v;
		tf_json_error e;
		size_t used;
		int rc = value(c[i].s, &v, &used, &e);
		if (rc != TF_JSON_OK || v.type != c[i].type || v.n != c[i].n || used != c[i].used || v.esc != c[i].esc)
			fail_msg("'%s': rc %d type %d n %zu used %zu esc %d", c[i].s, rc, v.type, v.n, used, v.esc);
	}
}

/* A value cut by the end of the buffer: TF_JSON_NEED, at every cut. */
static void test_need(void **state)
{
	(void)state;
	static const char *c[] = {
		"\"abc\\\"def\"", "12345", "true", "{\"a\":[1,2,{\"b\":\"x\\\\\"}]}", "[\"]\",\"\\\"\"]",
	};
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		size_t n = strlen(c[i]);
		for (size_t k = 1; k < n; k++) {
			tf_json_span v;
			tf_json_error e;
			const u8 *out;
			int rc = tf_json_value((const u8 *)c[i], (const u8 *)c[i] + k, &v, &out, &e);
			if (rc != TF_JSON_NEED)
				fail_msg("'%s' cut at %zu: rc %d", c[i], k, rc);
		}
	}
	/* a number or literal that reaches the end may go on */
	tf_json_span v;
	tf_json_error e;
	size_t used;
	assert_int_equal(value("12", &v, &used, &e), TF_JSON_NEED);
	assert_int_equal(value("nul", &v, &used, &e), TF_JSON_NEED);
}

/* Errors are values: the code, the byte at fault and the message. */
static void test_errors(void **state)
{
	(void)state;
	static const struct { const char *s; int code; size_t at; const char *msg; } c[] = {
		{ "@,", TF_JSON_EVALUE, 0, "expected a JSON value (found '@')" },
		{ "}", TF_JSON_EVALUE, 0, "expected a JSON value (found '}')" },
		{ "\x01 ", TF_JSON_EVALUE, 0, "expected a JSON value (found byte 0x01)" },
		{ "\xff ", TF_JSON_EVALUE, 0, "expected a JSON value (found byte 0xff)" },
		{ "tru}", TF_JSON_ELITERAL, 0, "invalid JSON literal" },
		{ "+5,", TF_JSON_ELITERAL, 0, "invalid JSON literal" },
		{ "nan,", TF_JSON_ELITERAL, 0, "invalid JSON literal" },
		{ "[1}", TF_JSON_EBRACKET, 2, "mismatched bracket (found '}')" },
		{ "{\"a\":[1,2}}", TF_JSON_EBRACKET, 9, "mismatched bracket (found '}')" },
		{ "{\"]\":[\"}\"]]", TF_JSON_EBRACKET, 10, "mismatched bracket (found ']')" },
	};
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		tf_json_span v;
		tf_json_error e;
		size_t used;
		int rc = value(c[i].s, &v, &used, &e);
		if (rc != c[i].code || e.code != c[i].code || e.at != (const u8 *)c[i].s + c[i].at ||
		    strcmp(e.msg, c[i].msg) != 0)
			fail_msg("'%s': rc %d code %d at %td '%s', want %d at %zu '%s'", c[i].s, rc, e.code,
				 e.at ? e.at - (const u8 *)c[i].s : -1, e.msg, c[i].code, c[i].at, c[i].msg);
	}
	/* depth: TF_JSON_MAX_DEPTH brackets are fine, one more is not */
	static char deep[2 * TF_JSON_MAX_DEPTH + 8];
	for (int extra = 0; extra <= 1; extra++) {
		int d = TF_JSON_MAX_DEPTH + extra;
		memset(deep, '[', (size_t)d);
		memset(deep + d, ']', (size_t)d);
		deep[2 * d] = 0;
		tf_json_span v;
		tf_json_error e;
		size_t used;
		int rc = value(deep, &v, &used, &e);
		if (!extra) {
			assert_int_equal(rc, TF_JSON_OK);
			assert_int_equal(used, 2 * d);
		} else {
			assert_int_equal(rc, TF_JSON_EDEPTH);
			assert_ptr_equal(e.at, (const u8 *)deep + TF_JSON_MAX_DEPTH);
			assert_string_equal(e.msg, "JSON nested too deeply");
		}
	}
	/* a caller's own error */
	tf_json_error e;
	const u8 *s = (const u8 *)"ab";
	assert_int_equal(tf_json_fail(&e, TF_JSON_ESYNTAX, s + 1, "expected ':' after a key", true), TF_JSON_ESYNTAX);
	assert_ptr_equal(e.at, s + 1);
	assert_string_equal(e.msg, "expected ':' after a key (found 'b')");
	tf_json_fail(&e, TF_JSON_ESYNTAX, s, "no progress", false);
	assert_string_equal(e.msg, "no progress");
}

static void test_iter(void **state)
{
	(void)state;
	const char *obj = "{ \"a\" : 1 , \"b\\n\":\"x\",\"c\":{\"d\":[]}, \"e\":null }";
	tf_json_span o, k, v;
	tf_json_error e;
	size_t used;
	assert_int_equal(value(obj, &o, &used, &e), TF_JSON_OK);
	assert_int_equal(o.type, TF_JSON_OBJECT);
	assert_int_equal(used, strlen(obj));
	tf_json_iter it;
	tf_json_iter_begin(&it, &o);
	const char *keys[] = { "a", "b\\n", "c", "e" };
	int types[] = { TF_JSON_NUMBER, TF_JSON_STRING, TF_JSON_OBJECT, TF_JSON_LITERAL };
	int n = 0;
	while (tf_json_iter_next(&it, &k, &v)) {
		assert_true(n < 4);
		assert_int_equal(k.n, strlen(keys[n]));
		assert_memory_equal(k.p, keys[n], k.n);
		assert_int_equal(v.type, types[n]);
		n++;
	}
	assert_int_equal(n, 4);
	assert_true(tf_json_is(&k, "e"));
	assert_true(tf_json_is_null(&v));
	/* a walk ends quietly at anything unexpected */
	static const char *bad[] = { "{\"a\" 1}", "{1:2}", "{\"a\":@}", "{}" };
	for (size_t i = 0; i < 4; i++) {
		tf_json_span b = { (const u8 *)bad[i], strlen(bad[i]), TF_JSON_OBJECT, 0 };
		tf_json_iter_begin(&it, &b);
		assert_false(tf_json_iter_next(&it, &k, &v));
	}
}

/* The 16-byte whitespace and digit scanners against byte loops: every run
 * length up to 40, every byte value after the run, every end. */
static void test_scanners(void **state)
{
	(void)state;
	static const char ws[] = " \n\t\r";
	u8 buf[64];
	for (size_t run = 0; run <= 40; run++)
		for (int stop = 0; stop < 256; stop++)
			for (size_t len = run; len <= run + 1 + 16 && len <= sizeof(buf); len += 1 + (len > run + 2) * 7) {
				for (size_t i = 0; i < run; i++)
					buf[i] = (u8)ws[(i * 7 + run) % 4];
				buf[run] = (u8)stop;
				memset(buf + run + 1, ' ', sizeof(buf) - run - 1);
				const u8 *end = buf + len, *q = buf;
				while (q < end && tf_json_ws[*q])
					q++;
				assert_ptr_equal(tf_json_skip_ws(buf, end), q);
				for (size_t i = 0; i < run; i++)
					buf[i] = (u8)('0' + (i * 3 + run) % 10);
				memset(buf + run + 1, '7', sizeof(buf) - run - 1);
				for (q = buf; q < end && tf_json_digit[*q]; q++)
					;
				assert_ptr_equal(tf_json_skip_digits(buf, end), q);
			}
}

/* Nested values met by the member walk (paired again, not checked again):
 * the same spans as tf_json_value gives, brackets in strings ignored. */
static void test_iter_nested(void **state)
{
	(void)state;
	const char *obj = "{\"Input Dims\": [[2048, 8192], [], [1]], \"s\": {\"x\": \"]}\\\"[\", \"y\": [{}]},"
			  " \"Ev Idx\": 3, \"t\": [\"a\\\\\", \"}\"]}";
	tf_json_span o, k, v, w;
	tf_json_error e;
	size_t used;
	assert_int_equal(value(obj, &o, &used, &e), TF_JSON_OK);
	assert_int_equal(used, strlen(obj));
	tf_json_iter it;
	tf_json_iter_begin(&it, &o);
	const char *vals[] = { "[[2048, 8192], [], [1]]", "{\"x\": \"]}\\\"[\", \"y\": [{}]}", "3", "[\"a\\\\\", \"}\"]" };
	int n = 0;
	while (tf_json_iter_next(&it, &k, &v)) {
		assert_true(n < 4);
		assert_int_equal(v.n, strlen(vals[n]));
		assert_memory_equal(v.p, vals[n], v.n);
		const u8 *out;
		assert_int_equal(tf_json_value(v.p, o.p + o.n, &w, &out, &e), TF_JSON_OK);
		assert_int_equal(w.type, v.type);
		assert_int_equal(w.n, v.n);
		n++;
	}
	assert_int_equal(n, 4);
}

/* The resumable skip, fed one byte at a time and in one piece. */
static void test_skip(void **state)
{
	(void)state;
	static const struct { const char *s; size_t len; } c[] = {
		{ "{\"a\":[1,\"}\\\"\"],\"b\":{}} ,", 22 },
		{ "\"x\\\"y\" ,", 6 },
		{ "-12.5e3,", 7 },
		{ "true}", 4 },
	};
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		const u8 *p = (const u8 *)c[i].s, *end = p + strlen(c[i].s);
		for (int piece = 0; piece <= 1; piece++) {
			tf_json_skip sk;
			tf_json_error e;
			int b = tf_json_skip_begin(&sk, p, &e);
			assert_true(b == 0 || b == 1);
			const u8 *q = p + b;
			bool done = false;
			while (!done && q < end) {
				const u8 *pe = piece ? end : q + 1;
				ptrdiff_t n = tf_json_skip_feed(&sk, q, pe, &done, &e);
				assert_true(n >= 0);
				q += n;
			}
			assert_true(done);
			if ((size_t)(q - p) != c[i].len)
				fail_msg("'%s' in %s: skipped %td, want %zu", c[i].s, piece ? "one piece" : "bytes",
					 q - p, c[i].len);
		}
	}
	tf_json_skip sk;
	tf_json_error e;
	const u8 *s = (const u8 *)":";
	assert_int_equal(tf_json_skip_begin(&sk, s, &e), TF_JSON_EVALUE);
	assert_string_equal(e.msg, "expected a JSON value (found ':')");
	assert_ptr_equal(e.at, s);
}

/* Strict JSON in skipped values (json_check.c): what JSON.parse refuses is
 * refused, with the byte at fault (the token's first byte), whole
 * (tf_json_value) and fed in pieces of one byte (the resumable skip). */
static void test_strict(void **state)
{
	(void)state;
	static const struct { const char *s; int at; } c[] = {
		{ "{\"a\":tru}", 5 },          { "{\"a\":01}", 5 },        { "[1.]", 1 },
		{ "[.5]", 1 },                   { "[+1]", 1 },                { "[0x10]", 1 },
		{ "[1,]", 3 },                   { "{\"a\":1,}", 7 },         { "{\"a\" 1}", 5 },
		{ "[1 2]", 3 },                  { "{1:2}", 1 },               { "[\"\\x\"]", 3 },
		{ "[\"\\u12G4\"]", 6 },      { "[truex]", 1 },             { "[-]", 1 },
		{ "[1e]", 1 },                   { "{\"a\":[1,{\"b\":nul}]}", 13 },
		{ "[-Infinity, NaN, Infinity, true, false, null, 0, -0.5e-3, 10E+2, \"\\u00e9\\n\", [], {}]", -1 },
	};
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		const u8 *p = (const u8 *)c[i].s, *end = p + strlen(c[i].s), *out;
		tf_json_span v;
		tf_json_error e;
		char padded[256];
		snprintf(padded, sizeof(padded), "%s ", c[i].s); /* a scalar needs the byte after it */
		const u8 *pp = (const u8 *)padded;
		int rc = tf_json_value(pp, pp + strlen(padded), &v, &out, &e);
		if (c[i].at < 0) {
			assert_int_equal(rc, TF_JSON_OK);
		} else {
			if (rc >= 0)
				fail_msg("'%s' accepted", c[i].s);
			if (e.at - pp != c[i].at)
				fail_msg("'%s': fault at %td, want %d (%s)", c[i].s, e.at - pp, c[i].at, e.msg);
		}
		/* byte by byte through the resumable skip */
		tf_json_skip sk;
		assert_int_equal(tf_json_skip_begin(&sk, p, &e), 0);
		const u8 *q = p;
		bool done = false;
		ptrdiff_t n = 0;
		while (!done && q < end && (n = tf_json_skip_feed(&sk, q, q + 1, &done, &e)) >= 0)
			q += n;
		if (c[i].at < 0) {
			assert_true(done && q == end);
		} else {
			if (n >= 0)
				fail_msg("'%s' accepted by the skip", c[i].s);
			/* the skip sees a bad token at the byte that breaks it */
			if (e.at - p < c[i].at || e.at - p > c[i].at + 6)
				fail_msg("'%s': skip's fault at %td, want %d (%s)", c[i].s, e.at - p, c[i].at, e.msg);
		}
	}
	assert_true(tf_json_number((const u8 *)"-Infinity", 9));
	assert_true(tf_json_number((const u8 *)"0", 1));
	assert_false(tf_json_number((const u8 *)"00", 2));
	assert_false(tf_json_number((const u8 *)"-", 1));
	assert_false(tf_json_number((const u8 *)"12.", 3));
	assert_true(tf_json_number((const u8 *)"-12.50", 6));
	assert_true(tf_json_number((const u8 *)"1.5e-3", 6));
}

static void test_unescape(void **state)
{
	(void)state;
	static const struct { const char *in, *out; } c[] = {
		{ "plain", "plain" },
		{ "a\\\"b\\\\c\\/d", "a\"b\\c/d" },
		{ "\\b\\f\\n\\r\\t", "\b\f\n\r\t" },
		{ "\\u00e9\\u20AC", "\xc3\xa9\xe2\x82\xac" },
		{ "\\ud83d\\ude00", "\xf0\x9f\x98\x80" },           /* a surrogate pair */
		{ "\\ud83dx", "\xef\xbf\xbdx" },                    /* lone high surrogate */
		{ "\\ude00", "\xef\xbf\xbd" },                      /* lone low surrogate */
		{ "a\\u0000b", "a\xef\xbf\xbd" "b" },              /* NUL: names are C strings */
		{ "\\u12g4", "?12g4" },                             /* a bad \u escape */
		{ "\\u12", "?12" },                                 /* cut short */
		{ "\\q", "q" },                                     /* an unknown escape */
		{ "\xc3\xa9", "\xc3\xa9" },                         /* bytes copied as they are */
	};
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		char out[64];
		size_t n = tf_json_unescape((const u8 *)c[i].in, strlen(c[i].in), out);
		if (n != strlen(c[i].out) || memcmp(out, c[i].out, n) != 0)
			fail_msg("'%s': %zu bytes '%.*s', want '%s'", c[i].in, n, (int)n, out, c[i].out);
	}
}

/* A xorshift64 step: the generated texts of the comparisons below. */
static void xorshift(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
}

static void test_numbers(void **state)
{
	(void)state;
	static const struct { const char *s; int scale, ok; long long v; } c[] = {
		{ "1.5", 0, 0, 2 },   /* half to even */
		{ "2.5", 0, 0, 2 },
		{ "2.5000001", 0, 0, 3 },
		{ "-0.5", 0, 0, 0 },
		{ "1.5", 3, 0, 1500 },
		{ "0.0015", 3, 0, 2 },
		{ "7", 9, 0, 7000000000ll },
		{ "1234", -2, 0, 12 },
		{ "1250", -2, 0, 12 },
		{ "1e2", 1, 0, 1000 },
		{ "+.5", 1, 0, 5 },
		{ "5.", 1, 0, 50 },
		{ "9223372036854775807", 0, 0, 9223372036854775807ll },
		{ "9223372036854775808", 0, -1, 0 },
		{ "1e30", 0, -1, 0 },
		{ "1e-30", 0, 0, 0 },
		{ "0x10", 0, -1, 0 },
		{ "Infinity", 0, -1, 0 },
		{ "", 0, -1, 0 },
	};
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		int64_t v = 42;
		int rc = tf_json_decimal_scaled(c[i].s, strlen(c[i].s), c[i].scale, &v);
		if (rc != c[i].ok || (rc == 0 && v != c[i].v))
			fail_msg("'%s' scale %d: rc %d v %lld, want rc %d v %lld", c[i].s, c[i].scale, rc, (long long)v,
				 c[i].ok, c[i].v);
	}
	/* the fast path for plain decimals gives what the general path gives,
	 * result and refusal alike, on many generated texts */
	{
		static const char alpha[] = "0123456789999.-+e";
		uint64_t x = 0x9E3779B97F4A7C15ull;
		char t[32];
		for (int k = 0; k < 400000; k++) {
			xorshift(&x);
			size_t len = 1 + x % 24;
			uint64_t y = x;
			for (size_t j = 0; j < len; j++) {
				/* mostly digits, now and then a '.', a sign or an 'e' */
				unsigned r = (unsigned)(y % 97);
				y = y / 97 ^ (y << 29);
				t[j] = r < 80 ? (char)('0' + r % 10) : alpha[r % (sizeof(alpha) - 1)];
			}
			int scale = (int)(x >> 40) % 13 - 2;
			int64_t a = 1, b = 2;
			int ra = tf_json_decimal_scaled(t, len, scale, &a), rb = tf_json_decimal_scaled_slow(t, len, scale, &b);
			if (ra != rb || (ra == 0 && a != b))
				fail_msg("'%.*s' scale %d: fast %d %lld, general %d %lld", (int)len, t, scale, ra, (long long)a,
					 rb, (long long)b);
		}
		const char *edge[] = { "9223372036854775.807", "9223372036854775.808", "-9223372036854775.807",
				       "1623142623460016", "1419247332509.906", "0.000", "-0", "00012.5",
				       "99999999999999999999", "1.2345", "12.", ".5" };
		for (size_t k = 0; k < sizeof(edge) / sizeof(edge[0]); k++) {
			int64_t a = 1, b = 2;
			int ra = tf_json_decimal_scaled(edge[k], strlen(edge[k]), 3, &a);
			int rb = tf_json_decimal_scaled_slow(edge[k], strlen(edge[k]), 3, &b);
			if (ra != rb || (ra == 0 && a != b))
				fail_msg("'%s': fast %d %lld, general %d %lld", edge[k], ra, (long long)a, rb, (long long)b);
		}
	}
	/* the fast path: every byte value at every place of the first 8,
	 * before more digits and a fraction, gives what the general path gives */
	for (int at = 0; at < 8; at++)
		for (int ch = 0; ch < 256; ch++) {
			char t[] = "12345678901.25";
			t[at] = (char)ch;
			for (size_t len = 8; len <= sizeof(t) - 1; len += 3) {
				int64_t a = 1, b = 2;
				int ra = tf_json_decimal_scaled(t, len, 3, &a), rb = tf_json_decimal_scaled_slow(t, len, 3, &b);
				if (ra != rb || (ra == 0 && a != b))
					fail_msg("byte 0x%02x at %d, %zu bytes: fast %d %lld, general %d %lld", ch, at, len, ra,
						 (long long)a, rb, (long long)b);
			}
		}
	/* integers near the int64 and uint64 limits (19 digits unchecked) */
	{
		static const struct { const char *s; bool ok; int64_t v; } iv[] = {
			{ "9223372036854775807", true, INT64_MAX }, { "-9223372036854775808", true, INT64_MIN },
			{ "9223372036854775808", false, 0 }, { "9999999999999999999", false, 0 },
			{ "18446744073709551615", false, 0 }, { "00000000000000000000042", true, 42 },
			{ "1844674407370955161", true, 1844674407370955161LL }, { "123.9", true, 123 },
		};
		for (size_t k = 0; k < sizeof(iv) / sizeof(iv[0]); k++) {
			tf_json_span sp = { (const u8 *)iv[k].s, strlen(iv[k].s), TF_JSON_NUMBER, 0 };
			int64_t v = 0;
			assert_int_equal(tf_json_i64(&sp, &v), iv[k].ok);
			if (iv[k].ok)
				assert_int_equal(v, iv[k].v);
		}
	}
	assert_true(tf_json_is_decimal((const u8 *)"-1.5e+3", 7));
#ifdef __SSE2__
	/* the 64-byte skip of nested values gives what the scalar loop gives:
	 * the end, NEED, or the same error at the same byte, on generated
	 * texts of brackets, strings, escapes and padding of every length */
	{
		static const char alpha[] = "{}[]\"\\ ab,:1{[\"x\\\"";
		uint64_t x = 0x2545F4914F6CDD1Dull;
		u8 t[300];
		for (int k = 0; k < 200000; k++) {
			xorshift(&x);
			size_t len = 1 + x % (sizeof(t) - 1);
			uint64_t y = x * 0x9E3779B97F4A7C15ull;
			t[0] = (x >> 20) & 1 ? '{' : '[';
			for (size_t j = 1; j < len; j++) {
				xorshift(&y);
				t[j] = (u8)alpha[y % (sizeof(alpha) - 1)];
				if ((x >> 33) & 1 && t[j] == '\\') /* half the texts without backslashes: the mask path */
					t[j] = 'a';
			}
			const u8 *oa = NULL, *ob = NULL;
			tf_json_error ea, eb;
			memset(&ea, 0, sizeof(ea));
			memset(&eb, 0, sizeof(eb));
			int ra = tf_json_skip_nested(t, t + len, &oa, &ea);
			int rb = tf_json_skip_nested_slow(t, t + len, &ob, &eb);
			if (ra != rb || (ra == TF_JSON_OK && oa != ob) || (ra < 0 && ra != TF_JSON_NEED && ea.at != eb.at))
				fail_msg("skip of '%.*s': fast %d at %td, scalar %d at %td", (int)len, t, ra,
					 ra == TF_JSON_OK ? oa - t : -1, rb, rb == TF_JSON_OK ? ob - t : -1);
		}
	}
#endif
	assert_false(tf_json_is_decimal((const u8 *)"1.5 ", 4));
	assert_false(tf_json_is_decimal((const u8 *)"inf", 3));

	double d;
	tf_json_span s = { (const u8 *)"8.395000000000001", 17, TF_JSON_STRING, 0 };
	assert_true(tf_json_double(&s, &d));
	assert_true(d > 8.39 && d < 8.40);
	s = (tf_json_span){ (const u8 *)"1e999", 5, TF_JSON_NUMBER, 0 }; /* not finite */
	assert_false(tf_json_double(&s, &d));
	s = (tf_json_span){ (const u8 *)"NaN", 3, TF_JSON_LITERAL, 0 };
	assert_false(tf_json_double(&s, &d));
	s = (tf_json_span){ (const u8 *)"1\\u0030", 7, TF_JSON_STRING, 1 }; /* escaped: not read */
	assert_false(tf_json_double(&s, &d));

	int64_t v;
	s = (tf_json_span){ (const u8 *)"-42.9", 5, TF_JSON_NUMBER, 0 };
	assert_true(tf_json_i64(&s, &v));
	assert_int_equal(v, -42);
	s = (tf_json_span){ (const u8 *)"2e3", 3, TF_JSON_NUMBER, 0 };
	assert_true(tf_json_i64(&s, &v));
	assert_int_equal(v, 2);
	s = (tf_json_span){ (const u8 *)"12x", 3, TF_JSON_STRING, 0 };
	assert_false(tf_json_i64(&s, &v));

	int64_t ns;
	s = (tf_json_span){ (const u8 *)"26831.5", 7, TF_JSON_STRING, 0 };
	assert_true(tf_json_scaled(&s, 3, &ns));
	assert_int_equal(ns, 26831500);
	s = (tf_json_span){ (const u8 *)"true", 4, TF_JSON_LITERAL, 0 };
	assert_false(tf_json_scaled(&s, 3, &ns));
}

static void test_ids(void **state)
{
	(void)state;
	tf_json_span s = { (const u8 *)"0x1F", 4, TF_JSON_STRING, 0 };
	assert_int_equal(tf_json_id(&s), 31);
	s = (tf_json_span){ (const u8 *)"123", 3, TF_JSON_STRING, 0 };
	assert_int_equal(tf_json_id(&s), 123);
	s = (tf_json_span){ (const u8 *)"77", 2, TF_JSON_NUMBER, 0 };
	assert_int_equal(tf_json_id(&s), 77);
	s = (tf_json_span){ (const u8 *)"true", 4, TF_JSON_LITERAL, 0 };
	assert_int_equal(tf_json_id(&s), 0);
	/* other text is hashed: equal text, equal id; and not its digits */
	tf_json_span a = { (const u8 *)"abc", 3, TF_JSON_STRING, 0 };
	tf_json_span b = { (const u8 *)"xabcx" + 1, 3, TF_JSON_STRING, 0 };
	tf_json_span h = { (const u8 *)"0xZZ", 4, TF_JSON_STRING, 0 };
	assert_int_equal(tf_json_id(&a), tf_json_id(&b));
	assert_int_not_equal(tf_json_id(&a), 0);
	assert_int_not_equal(tf_json_id(&h), tf_json_id(&a));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_need),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_iter),
		cmocka_unit_test(test_iter_nested),
		cmocka_unit_test(test_scanners),
		cmocka_unit_test(test_skip),
		cmocka_unit_test(test_strict),
		cmocka_unit_test(test_unescape),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_ids),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
