/* test_chrome_keys.c - the Chrome reader's predicted members
 * (tf_chrome_parse_event, chrome_event.c; tf_chrome's kp in chrome_int.h):
 * an event parsed by a reader that has learned the separators and keys of
 * other events, and their whole members with short values (chrome_keys.c),
 * must come out exactly as from a fresh reader that has learned nothing (the fields' spans, ts and dur in ns, the picked args,
 * where it ends, or NEED, or the same error message at the same byte).
 * The events: several shapes (compact, the legacy PyTorch one, Kineto's
 * indented one, flows, unknown keys, keys with escapes, spaces before ':',
 * more members than are predicted), each also with every byte replaced by
 * a structural one, cut at every length, and at every alignment of a
 * 16-byte block.  Each buffer is allocated to its exact size, so that the
 * sanitizer build catches a read past its end. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../../src/read/chrome_int.h"

static const char *const shapes[] = {
	"{\"name\": \"aten::empty\", \"ph\": \"X\", \"ts\": 26831, \"dur\": 80, \"tid\": 1, \"pid\": \"CPU functions\", "
	"\"args\": {}}",
	"{\n    \"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::fill_\", \"pid\": 448, \"tid\": 478,\n"
	"    \"ts\": 4874506480600.818, \"dur\": 67.298,\n    \"args\": {\n      \"External id\": 1029,"
	"\"Record function id\": 0, \"Python id\": 7, \"correlation\": 8382, \"Ev Idx\": 4\n    }\n  }",
	"{\n    \"ph\": \"f\", \"id\": 8382, \"pid\": 0, \"tid\": 7, \"ts\": 4874506467001.066,\n"
	"    \"cat\": \"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\"\n  }",
	"{\n    \"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"s\": \"t\", \"name\": \"[memory]\", \"pid\": 448, "
	"\"tid\": 448,\n    \"ts\": 4874506466969.015,\n    \"args\": {\"Bytes\": -512, \"Addr\": 1, \"Device Id\": 0}\n  }",
	"{\"ph\":\"X\",\"name\":\"a\",\"ts\":1.5,\"dur\":2,\"pid\":1,\"tid\":1}",
	"{\"ph\" : \"B\" , \"na\\u006de\" :\"x\\\"y\", \"ts\" :-3 ,\"pid\":\"p\", \"tid\": \"t\", \"id2\": {\"local\": 5}, "
	"\"sort_index\": 2}",
	"{\"a\": 1, \"b\": 2, \"c\": 3, \"d\": 4, \"e\": 5, \"f\": 6, \"g\": 7, \"h\": 8, \"i\": 9, \"j\": 10, "
	"\"k\": 11, \"l\": 12, \"m\": 13, \"n\": 14, \"o\": 15, \"p\": 16, \"q\": 17, \"r\": {\"s\": 18}, "
	"\"ph\": \"X\", \"ts\": 1, \"dur\": 1}",
	"{\"ph\": \"X\", \"ts\": 1e3, \"dur\": 0.0001, \"pid\": 1, \"tid\": 1, \"name\": \"n\", \"cat\": null}",
	"{ }",
	"{}",
};
#define NSHAPES (sizeof(shapes) / sizeof(shapes[0]))

typedef struct result {
	int rc;
	long out;
	long at[11];
	size_t n[11];
	uint8_t type[11], esc[11];
	int64_t ts_ns, dur_ns;
	uint8_t ts_ok, dur_ok, picks;
	uint16_t picked, dup;
	char msg[512];
	long err_off;
} result;

/* text[0..n) at `align` bytes into an exact-size buffer (spaces before it),
 * parsed by r as one event from its '{' */
static void parse(tf_chrome *r, const char *text, size_t n, size_t align, result *res)
{
	unsigned char *b = malloc(align + n + 1);
	assert_non_null(b);
	memset(b, ' ', align);
	memcpy(b + align, text, n);
	tf_error err;
	tf_error_clear(&err);
	r->err = &err;
	r->buf0 = b;
	r->buf_base = 0;
	tf_chrome_fields f;
	memset(&f, 0x5A, sizeof(f));
	const unsigned char *out = NULL;
	memset(res, 0, sizeof(*res));
	res->rc = tf_chrome_parse_event(r, b + align, b + align + n, &f, &out);
	res->out = out ? (long)(out - b) : -1;
	if (res->rc == R_OK) {
		const tf_json_span *s[11] = { &f.ph, &f.name, &f.cat, &f.ts, &f.dur, &f.pid,
					      &f.tid, &f.id, &f.id2, &f.args, &f.sort_index };
		for (int i = 0; i < 11; i++) {
			res->at[i] = s[i]->p ? (long)(s[i]->p - b) : -1;
			res->n[i] = s[i]->n;
			res->type[i] = s[i]->type;
			res->esc[i] = s[i]->esc;
		}
		res->ts_ok = f.ts_ok;
		res->dur_ok = f.dur_ok;
		res->ts_ns = f.ts_ok ? f.ts_ns : 0;
		res->dur_ns = f.dur_ok ? f.dur_ns : 0;
		res->picks = f.picks;
		res->picked = f.picks ? f.picked : 0;
		res->dup = f.picks ? f.pick_dup : 0;
	} else if (res->rc < 0) {
		snprintf(res->msg, sizeof(res->msg), "%s", err.msg);
		res->err_off = (long)err.offset;
	}
	free(b);
	r->err = NULL;
}

static tf_chrome *reader(tf_ctx *ctx)
{
	static tf_sink none;
	tf_chrome *r = tf_chrome_new("t.json", 0, ctx, &none);
	assert_non_null(r);
	return r;
}

static void same(const char *what, const char *text, size_t n, const result *a, const result *b)
{
	if (memcmp(a, b, sizeof(*a)) == 0)
		return;
	fail_msg("%s: '%.*s': rc %d/%d out %ld/%ld msg '%s'/'%s' at %ld/%ld", what, (int)n, text, a->rc, b->rc,
		 a->out, b->out, a->msg, b->msg, a->err_off, b->err_off);
}

/* text parsed by a reader that learned every shape (each once, then
 * `last` again: its members with short values are then taken whole)
 * against a fresh one, at each alignment */
static void check(tf_ctx *ctx, tf_chrome *learned, const char *text, size_t n, size_t last)
{
	result a, b, c;
	for (size_t k = 0; k < NSHAPES; k++)
		parse(learned, shapes[k], strlen(shapes[k]), 0, &c);
	parse(learned, shapes[last], strlen(shapes[last]), 0, &c);
	for (size_t align = 0; align < 16; align += 5) {
		tf_chrome *fresh = reader(ctx);
		parse(fresh, text, n, align, &a);
		tf_chrome_free(fresh);
		parse(learned, text, n, align, &b);
		same("learned", text, n, &a, &b);
	}
}

static void test_shapes(void **state)
{
	(void)state;
	tf_ctx *ctx = tf_ctx_new();
	assert_non_null(ctx);
	tf_chrome *r = reader(ctx);
	/* each shape whole, and learned: its members come from the table */
	for (size_t k = 0; k < NSHAPES; k++) {
		size_t n = strlen(shapes[k]);
		check(ctx, r, shapes[k], n, k);
		result a;
		parse(r, shapes[k], n, 0, &a);
		assert_int_equal(a.rc, R_OK);
		assert_int_equal(a.out, (long)n);
	}
	/* cut at every length: NEED (or the same error) either way */
	for (size_t k = 0; k < NSHAPES; k++)
		for (size_t n = 1; n < strlen(shapes[k]); n++)
			check(ctx, r, shapes[k], n, k);
	tf_chrome_free(r);
	tf_ctx_free(ctx);
}

static void test_mutated(void **state)
{
	(void)state;
	static const char bytes[] = "\"{}[],: \n\\x0-.e";
	tf_ctx *ctx = tf_ctx_new();
	assert_non_null(ctx);
	tf_chrome *r = reader(ctx);
	char buf[512];
	for (size_t k = 0; k < NSHAPES; k++) {
		size_t n = strlen(shapes[k]);
		assert_true(n < sizeof(buf));
		for (size_t i = 0; i < n; i++)
			for (size_t j = 0; j < sizeof(bytes) - 1; j++) {
				if (shapes[k][i] == bytes[j])
					continue;
				memcpy(buf, shapes[k], n);
				buf[i] = bytes[j];
				result a, b;
				tf_chrome *fresh = reader(ctx);
				parse(fresh, buf, n, 3, &a);
				tf_chrome_free(fresh);
				parse(r, shapes[k], n, 0, &b); /* this shape learned last */
				parse(r, buf, n, 3, &b);
				same("mutated", buf, n, &a, &b);
			}
	}
	tf_chrome_free(r);
	tf_ctx_free(ctx);
}

/* A member after the 16th is never taken for the first: `{` right after a
 * value there is an error, whatever the first member's bytes were. */
static void test_many_members(void **state)
{
	(void)state;
	tf_ctx *ctx = tf_ctx_new();
	assert_non_null(ctx);
	tf_chrome *r = reader(ctx);
	char buf[1024];
	for (int m = 1; m <= 40; m++) {
		size_t n = 0;
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "{\"ph\": \"X\"");
		for (int i = 1; i < m; i++) /* the 17th and 33rd with the first's bytes: '{' */
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s\"ph\": \"X\"", i == 16 || i == 32 ? "{" : ", ");
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "}");
		result a, b;
		tf_chrome *fresh = reader(ctx);
		parse(fresh, buf, n, 0, &a);
		tf_chrome_free(fresh);
		parse(r, buf, n, 0, &b);
		same("members", buf, n, &a, &b);
		parse(r, buf, n, 0, &b);
		same("members, again", buf, n, &a, &b);
		assert_int_equal(a.rc == R_OK, m <= 16);
	}
	tf_chrome_free(r);
	tf_ctx_free(ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shapes),
		cmocka_unit_test(test_mutated),
		cmocka_unit_test(test_many_members),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
