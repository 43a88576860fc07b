/* test_chrome_pipe.c - the two-stage Chrome reader's end scan
 * (src/read/chrome_pipe.c tf_chrome_pipe_end): the end of an event
 * object that stage 1 finds without tokenizing it must be where the
 * tokenizer's own bracket walk (tf_json_skip_nested) ends it, for strings
 * that hold brackets and quotes, nested values, every length and every
 * place in the 32-byte blocks; it gives up (false) on a backslash and
 * near the end of the bytes.  The outputs and errors of whole reads are
 * tests/e2e/jobs_one_file.sh's. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../../src/read/chrome_int.h"

/* pieces of an event's members, bracket-heavy inside and outside strings */
static const char *const piece[] = {
	"\"ph\": \"X\"", "\"name\": \"a}b\"", "\"name\": \"[}]{\"", "\"ts\": 12.5", "\"args\": {}",
	"\"args\": {\"k]\": [1, {\"v}\": \"}{\"}], \"s\": \"xx\"}", "\"a\": [[], [[]], {}]", "\"q\": \"{{{{\"",
	"\"long\": \"0123456789abcdef0123456789abcdef0123456789\"", "\"n\": null", "\"o\": {\"p\": {\"q\": [\"]\"]}}",
};
#define NPIECE (sizeof(piece) / sizeof(piece[0]))

/* an event of up to k members drawn by *seed at buf (pad spaces first),
 * then another event and 80 bytes more; returns the first event's length */
static size_t make(char *buf, unsigned *seed, int pad, int k)
{
	size_t n = 0;
	for (int i = 0; i < pad; i++)
		buf[n++] = ' ';
	size_t start = n;
	buf[n++] = '{';
	for (int i = 0; i < k; i++) {
		const char *s = piece[(unsigned)rand_r(seed) % NPIECE];
		if (i)
			n += (size_t)sprintf(buf + n, ", ");
		n += (size_t)sprintf(buf + n, "%s", s);
	}
	buf[n++] = '}';
	size_t len = n - start;
	n += (size_t)sprintf(buf + n, ", {\"ph\": \"X\", \"name\": \"}]\"}");
	memset(buf + n, ' ', 80);
	buf[n + 80] = 0;
	return len;
}

static void test_end_as_walk(void **state)
{
	(void)state;
	char buf[4096];
	unsigned seed = 7;
	int found = 0;
	for (int t = 0; t < 20000; t++) {
		int pad = t % 64, k = 1 + t % 9;
		size_t len = make(buf, &seed, pad, k);
		const u8 *p = (const u8 *)buf + pad, *end = (const u8 *)buf + strlen(buf), *a, *b;
		tf_json_error e;
		assert_int_equal(tf_json_skip_nested(p, end, &b, &e), TF_JSON_OK);
		assert_ptr_equal(b, p + len);
		if (tf_chrome_pipe_end(p, end, &a)) {
			assert_ptr_equal(a, b);
			found++;
		}
	}
	assert_int_equal(found, 20000); /* no backslash, 80 bytes after: always found */
}

static void test_gives_up(void **state)
{
	(void)state;
	const u8 *out = NULL;
	/* a backslash in the first block: false, whatever follows */
	const char *esc = "{\"name\": \"a\\\"}\", \"ph\": \"X\"}                                                  ";
	assert_false(tf_chrome_pipe_end((const u8 *)esc, (const u8 *)esc + strlen(esc), &out));
	/* fewer than 32 bytes to scan: false (the caller tokenizes) */
	const char *shortev = "{\"ph\": \"X\"}";
	assert_false(tf_chrome_pipe_end((const u8 *)shortev, (const u8 *)shortev + strlen(shortev), &out));
	/* an object that does not end before end: false */
	char open[200];
	memset(open, ' ', sizeof(open));
	memcpy(open, "{\"a\": [1, 2, {\"b\": \"}}}\"", 24);
	assert_false(tf_chrome_pipe_end((const u8 *)open, (const u8 *)open + sizeof(open), &out));
	/* a string left open runs to end: false */
	char str[100];
	memset(str, 'x', sizeof(str));
	memcpy(str, "{\"a\": \"}]", 9);
	assert_false(tf_chrome_pipe_end((const u8 *)str, (const u8 *)str + sizeof(str), &out));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_end_as_walk),
		cmocka_unit_test(test_gives_up),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
