/* json.h - a generic JSON tokenizer over a contiguous buffer: no tree, no
 * allocation, no files.  As Perfetto keeps its JSON tokenizer apart from its
 * trace parser, this knows nothing of traces; src/read/chrome.c is the
 * Chrome trace-event parser on top of it.
 *
 * - A value is read as a span: a view into the buffer (pointer + length), its
 *   type, and for a string whether it has backslash escapes (only then does
 *   it need tf_json_unescape).  Objects and arrays are spans of their whole
 *   text, brackets included; tf_json_iter walks an object's members.
 * - Scanners take [p, end) and return TF_JSON_OK (*out just after the
 *   value), TF_JSON_NEED (the value may go on past end: nothing was changed;
 *   the caller gets more bytes and scans again from the same start) or a
 *   negative TF_JSON_E* code with a tf_json_error filled: the byte at fault
 *   and a message.  The caller turns `at` into its own position (a byte
 *   offset in its input).
 * - What is accepted: strict JSON, as JSON.parse (Chrome's importer) takes
 *   it, everywhere, skipped values included (json_check.c): a number in
 *   JSON's syntax, literals true, false, null and also NaN, Infinity and
 *   -Infinity, which are not JSON but are what Python's json module writes
 *   for non-finite floats (-Infinity reads as a number, which no conversion
 *   accepts).  A string is anything between quotes (escapes are checked in
 *   skipped values, control characters nowhere).  Nested values are read
 *   and checked in one pass (tf_json_nested); tf_json_skip_nested, which
 *   only pairs brackets, 64 bytes at a time, is kept for its tests.
 * - The hot primitives (whitespace, the SSE2 string and structure scanners,
 *   tf_json_string, tf_json_value) are static inline here so that a parser's
 *   event loop compiles as one piece; the rest is in json.c. */
#ifndef TRACEFOLD_READ_JSON_H
#define TRACEFOLD_READ_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* span types; a zeroed span is TF_JSON_NONE (absent) */
enum { TF_JSON_NONE = 0, TF_JSON_STRING, TF_JSON_NUMBER, TF_JSON_LITERAL, TF_JSON_OBJECT, TF_JSON_ARRAY };

typedef struct tf_json_span {
	const unsigned char *p; /* a string: the text between the quotes; else the value's text */
	size_t n;
	uint8_t type;           /* TF_JSON_NONE, TF_JSON_STRING, ... */
	uint8_t esc;            /* a string with backslash escapes */
} tf_json_span;

/* Scan results.  The errors are < 0 and name what is wrong; the message in
 * tf_json_error says it in words. */
enum {
	TF_JSON_OK = 0,
	TF_JSON_NEED = 1,      /* the value may go on after end */
	TF_JSON_EDEPTH = -1,   /* nested deeper than TF_JSON_MAX_DEPTH */
	TF_JSON_EBRACKET = -2, /* a closing bracket that does not match the open one */
	TF_JSON_EVALUE = -3,   /* no value starts here */
	TF_JSON_ELITERAL = -4, /* a word that is not a literal */
	TF_JSON_ESYNTAX = -5,  /* a caller's own rule (tf_json_fail) */
};

#define TF_JSON_MAX_DEPTH 1024

typedef struct tf_json_error {
	int code;                /* TF_JSON_E* */
	const unsigned char *at; /* the byte at fault, in the buffer scanned */
	char msg[128];           /* e.g. "mismatched bracket (found '}')" */
} tf_json_error;

/* Fills e and returns code: msg is `what`, and when found is set, the byte at
 * `at` after it: " (found 'x')" if printable ASCII, else " (found byte
 * 0xNN)".  For the tokenizer's errors and a parser's own. */
int tf_json_fail(tf_json_error *e, int code, const unsigned char *at, const char *what, bool found);

/* ---- character classes ---- */

static const uint8_t tf_json_ws[256] = { [' '] = 1, ['\t'] = 1, ['\n'] = 1, ['\r'] = 1 };
/* the bytes of a number or literal */
static const uint8_t tf_json_scalar[256] = {
	['0' ... '9'] = 1, ['a' ... 'z'] = 1, ['A' ... 'Z'] = 1, ['+'] = 1, ['-'] = 1, ['.'] = 1,
};
static const uint8_t tf_json_digit[256] = { ['0' ... '9'] = 1 };

/* First byte at or after p that is not JSON whitespace, or end.  Runs of
 * none or one byte (", " and ": " in compact traces) are looked at byte by
 * byte; longer ones (Kineto's newline and indent) 16 bytes at a time: the
 * byte loop was 12% of the instructions of a Kineto read (issue 33). */
static inline const unsigned char *tf_json_skip_ws(const unsigned char *p, const unsigned char *end)
{
	if (p >= end || !tf_json_ws[*p])
		return p;
	if (++p >= end || !tf_json_ws[*p])
		return p;
#ifdef __SSE2__
	const __m128i sp = _mm_set1_epi8(' '), nl = _mm_set1_epi8('\n'), cr = _mm_set1_epi8('\r'),
		      tb = _mm_set1_epi8('\t');
	while (end - p >= 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
		__m128i w = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, sp), _mm_cmpeq_epi8(v, nl)),
					 _mm_or_si128(_mm_cmpeq_epi8(v, cr), _mm_cmpeq_epi8(v, tb)));
		unsigned m = ~(unsigned)_mm_movemask_epi8(w) & 0xFFFFu;
		if (m)
			return p + __builtin_ctz(m);
		p += 16;
	}
#endif
	while (p < end && tf_json_ws[*p])
		p++;
	return p;
}

/* First byte at or after p that is not a digit 0-9, or end (16 bytes at a
 * time where 16 are left: timestamps have 13 to 16 digits). */
static inline const unsigned char *tf_json_skip_digits(const unsigned char *p, const unsigned char *end)
{
#ifdef __SSE2__
	if (end - p >= 16) {
		const __m128i zero = _mm_set1_epi8('0'), nine = _mm_set1_epi8(9);
		do {
			__m128i t = _mm_sub_epi8(_mm_loadu_si128((const __m128i *)(const void *)p), zero);
			/* a digit: t (unsigned) <= 9 */
			unsigned m = ~(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_min_epu8(t, nine), t)) & 0xFFFFu;
			if (m)
				return p + __builtin_ctz(m);
			p += 16;
		} while (end - p >= 16);
	}
#endif
	while (p < end && tf_json_digit[*p])
		p++;
	return p;
}

/* ---- scanners (SSE2 where available, a byte loop elsewhere) ---- */

/* First '"' or '\\' at or after p, or end. */
static inline const unsigned char *tf_json_scan_str(const unsigned char *p, const unsigned char *end)
{
#ifdef __SSE2__
	const __m128i q = _mm_set1_epi8('"'), b = _mm_set1_epi8('\\');
	while (end - p >= 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
		unsigned m = (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, q), _mm_cmpeq_epi8(v, b)));
		if (m)
			return p + __builtin_ctz(m);
		p += 16;
	}
#endif
	while (p < end && *p != '"' && *p != '\\')
		p++;
	return p;
}

/* First of " { } [ ] at or after p, or end. */
static inline const unsigned char *tf_json_scan_struct(const unsigned char *p, const unsigned char *end)
{
#ifdef __SSE2__
	const __m128i q = _mm_set1_epi8('"'), ob = _mm_set1_epi8('{'), cb = _mm_set1_epi8('}');
	const __m128i os = _mm_set1_epi8('['), cs = _mm_set1_epi8(']');
	while (end - p >= 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
		__m128i m = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, q), _mm_cmpeq_epi8(v, ob)),
					 _mm_or_si128(_mm_cmpeq_epi8(v, cb),
						      _mm_or_si128(_mm_cmpeq_epi8(v, os), _mm_cmpeq_epi8(v, cs))));
		unsigned mm = (unsigned)_mm_movemask_epi8(m);
		if (mm)
			return p + __builtin_ctz(mm);
		p += 16;
	}
#endif
	while (p < end && *p != '"' && *p != '{' && *p != '}' && *p != '[' && *p != ']')
		p++;
	return p;
}

/* ---- values ---- */

/* p at '"': a string.  TF_JSON_OK or TF_JSON_NEED. */
static inline int tf_json_string(const unsigned char *p, const unsigned char *end, tf_json_span *s,
				 const unsigned char **out)
{
	const unsigned char *b = p + 1, *q = b;
	uint8_t esc = 0;
	for (;;) {
		q = tf_json_scan_str(q, end);
		if (q >= end)
			return TF_JSON_NEED;
		if (*q == '"')
			break;
		esc = 1;
		if (end - q < 2)
			return TF_JSON_NEED;
		q += 2;
	}
	s->p = b;
	s->n = (size_t)(q - b);
	s->type = TF_JSON_STRING;
	s->esc = esc;
	*out = q + 1;
	return TF_JSON_OK;
}

/* p at '{' or '[': *out after its closing bracket.  Checks bracket pairing
 * (TF_JSON_EBRACKET) and depth (TF_JSON_EDEPTH), and skips strings. */
int tf_json_skip_nested(const unsigned char *p, const unsigned char *end, const unsigned char **out,
			tf_json_error *e);
#ifdef __SSE2__
/* The scalar loop the 64-byte one replaces, for tests. */
int tf_json_skip_nested_slow(const unsigned char *p, const unsigned char *end, const unsigned char **out,
			     tf_json_error *e);
#endif

int tf_json_nested(const unsigned char *p, const unsigned char *end, const unsigned char **out,
		   tf_json_error *e);
bool tf_json_number_slow(const unsigned char *p, size_t n);

/* A number token [p, p + n) as JSON writes it (and -Infinity): plain
 * integers and decimals here, the rest in json_check.c. */
static inline bool tf_json_number(const unsigned char *p, size_t n)
{
	size_t i = p[0] == '-';
	if (i < n && p[i] >= '1' && p[i] <= '9') {
		while (++i < n && tf_json_digit[p[i]])
			;
		if (i < n && p[i] == '.' && i + 1 < n && tf_json_digit[p[i + 1]])
			for (i += 2; i < n && tf_json_digit[p[i]]; i++)
				;
		if (i == n)
			return true;
	}
	return tf_json_number_slow(p, n);
}

/* true, false, null, NaN, Infinity (see the top of this file). */
static inline bool tf_json_literal_ok(const unsigned char *p, size_t n)
{
	uint32_t w, t, u;
	switch (n) { /* one load and compare each ("finished": false, "Python parent id": null) */
	case 3:
		return p[0] == 'N' && p[1] == 'a' && p[2] == 'N';
	case 4:
		memcpy(&w, p, 4);
		memcpy(&t, "true", 4);
		memcpy(&u, "null", 4);
		return w == t || w == u;
	case 5:
		memcpy(&w, p, 4);
		memcpy(&t, "fals", 4);
		return w == t && p[4] == 'e';
	case 8:
		return memcmp(p, "Infinity", 8) == 0;
	}
	return false;
}

/* Any value at p (p < end, not whitespace).  A number or literal that
 * reaches end is TF_JSON_NEED: it may go on in the next bytes.  Always
 * inlined: a parser calls it for every member of every event, and as a call
 * (what gcc -O2 chose for it on its own) it cost about 5% of the read. */
static inline __attribute__((always_inline)) int tf_json_value(const unsigned char *p, const unsigned char *end, tf_json_span *v,
				const unsigned char **out, tf_json_error *e)
{
	unsigned char c = *p;
	if (c == '"')
		return tf_json_string(p, end, v, out);
	if (c == '{' || c == '[') {
		int rc = tf_json_nested(p, end, out, e);
		if (rc != TF_JSON_OK)
			return rc;
		v->p = p;
		v->n = (size_t)(*out - p);
		v->type = c == '{' ? TF_JSON_OBJECT : TF_JSON_ARRAY;
		v->esc = 0;
		return TF_JSON_OK;
	}
	const unsigned char *q = p + (c == '-');
	if (q < end && tf_json_digit[*q]) { /* most numbers: -?(0|[1-9]digits)[.digits], checked as read */
		q = *q == '0' ? q + 1 : tf_json_skip_digits(q + 1, end);
		if (q + 1 < end && *q == '.' && tf_json_digit[q[1]])
			q = tf_json_skip_digits(q + 2, end);
		if (q < end && !tf_json_scalar[*q]) {
			v->p = p;
			v->n = (size_t)(q - p);
			v->esc = 0;
			v->type = TF_JSON_NUMBER;
			*out = q;
			return TF_JSON_OK;
		}
	}
	q = p;
	while (q < end && tf_json_scalar[*q])
		q++;
	if (q >= end)
		return TF_JSON_NEED;
	if (q == p)
		return tf_json_fail(e, TF_JSON_EVALUE, p, "expected a JSON value", true);
	v->p = p;
	v->n = (size_t)(q - p);
	v->esc = 0;
	if (tf_json_digit[c] || c == '-') {
		if (!tf_json_number(p, v->n))
			return tf_json_fail(e, TF_JSON_ESYNTAX, p, "malformed JSON number", false);
		v->type = TF_JSON_NUMBER;
	} else {
		if (!tf_json_literal_ok(p, v->n))
			return tf_json_fail(e, TF_JSON_ELITERAL, p, "invalid JSON literal", false);
		v->type = TF_JSON_LITERAL;
	}
	*out = q;
	return TF_JSON_OK;
}

/* ---- numbers read as they are scanned ---- */

#ifdef __SSE2__
/* Bit i set: p[i] is a digit 0-9 (16 bytes readable at p). */
static inline unsigned tf_json_digit_mask16(const unsigned char *p)
{
	__m128i t = _mm_sub_epi8(_mm_loadu_si128((const __m128i *)(const void *)p), _mm_set1_epi8('0'));
	return (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_min_epu8(t, _mm_set1_epi8(9)), t));
}
#endif

static const uint64_t tf_json_pow10[10] = { 1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000,
					    1000000000 };

/* The value of the k (1 to 8) digits at s, 8 bytes readable from s: all
 * eight at once (SWAR: the bytes after the digits are shifted out, pairs,
 * then fours, then eights summed by three multiplies). */
static inline uint64_t tf_json_swar8(const unsigned char *s, size_t k)
{
	uint64_t v;
	memcpy(&v, s, 8);
	v = (v - 0x3030303030303030ull) << (8 * (8 - k)); /* a borrow only runs into the bytes shifted out */
	v = (v * 10 + (v >> 8)) & 0x00FF00FF00FF00FFull;
	v = (v * 100 + (v >> 16)) & 0x0000FFFF0000FFFFull;
	return (v * 10000 + (v >> 32)) & 0xFFFFFFFFull;
}

/* p at a value (not whitespace), scale 0 to 8: a number -?(0|[1-9]d*)(.d+)?
 * with at most 16 and 19 - scale integer digits and at most scale decimals
 * is read as tf_json_value reads it (*v, *out) and its value times
 * 10^scale set in *x with *ok = 1, in the same pass over the digits: what
 * tf_json_decimal_scaled gives for that text.  *ok = 0 otherwise: a number
 * of another form (or within 8 bytes of end) is read as tf_json_value reads
 * it with *ok = 0 (the caller converts the span), and any other value
 * returns false with nothing read (the caller calls tf_json_value). */
static inline bool tf_json_number_scaled(const unsigned char *p, const unsigned char *end, tf_json_span *v,
					 const unsigned char **out, int scale, int64_t *x, uint8_t *ok)
{
	*ok = 0;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#ifdef __SSE2__
	if (end - p >= 33) { /* the usual case in one pass: 1 to 15 integer digits, at most scale decimals */
		const unsigned char *a = p + (*p == '-');
		unsigned ni = (unsigned)__builtin_ctz(~tf_json_digit_mask16(a)), nf = 0;
		const unsigned char *c = a + ni, *d = c;
		if (ni - 1 < 15 && *c == '.') { /* c + 17 at most p + 33 */
			nf = (unsigned)__builtin_ctz(~tf_json_digit_mask16(c + 1));
			d = c + 1 + nf;
		}
		if (ni - 1 < 15 && (*a != '0' || ni == 1) && (nf || *c != '.') && nf <= (unsigned)scale &&
		    ni + (unsigned)scale <= 18 && !tf_json_scalar[*d]) {
			/* as below: d at most a + 24, so 8 bytes are left after it */
			v->p = p;
			v->n = (size_t)(d - p);
			v->type = TF_JSON_NUMBER;
			v->esc = 0;
			*out = d;
			uint64_t m = ni > 8 ? tf_json_swar8(a, ni - 8) * 100000000u + tf_json_swar8(a + ni - 8, 8)
					    : tf_json_swar8(a, ni);
			uint64_t q = m * tf_json_pow10[scale] + (nf ? tf_json_swar8(c + 1, nf) * tf_json_pow10[scale - nf] : 0);
			*x = p == a ? (int64_t)q : -(int64_t)q; /* below 10^18 */
			*ok = 1;
			return true;
		}
	}
#endif
	const unsigned char *a = p + (*p == '-');
	if (a >= end || !tf_json_digit[*a])
		return false;
	const unsigned char *b = *a == '0' ? a + 1 : tf_json_skip_digits(a + 1, end), *c = b, *d = b;
	if (b + 1 < end && *b == '.' && tf_json_digit[b[1]]) {
		c = b + 1;
		d = tf_json_skip_digits(b + 2, end);
	}
	if (end - d < 8 || tf_json_scalar[*d])
		return false;
	v->p = p;
	v->n = (size_t)(d - p);
	v->type = TF_JSON_NUMBER;
	v->esc = 0;
	*out = d;
	size_t ni = (size_t)(b - a), nf = (size_t)(d - c);
	if (ni > 16 || ni + (size_t)scale > 19 || nf > (size_t)scale)
		return true;
	uint64_t m = ni > 8 ? tf_json_swar8(a, ni - 8) * 100000000u + tf_json_swar8(a + ni - 8, 8) : tf_json_swar8(a, ni);
	uint64_t q = m * tf_json_pow10[scale] + (nf ? tf_json_swar8(c, nf) * tf_json_pow10[scale - nf] : 0);
	if (q > (uint64_t)INT64_MAX)
		return true;
	*x = p == a ? (int64_t)q : -(int64_t)q;
	*ok = 1;
	return true;
#else
	(void)p, (void)end, (void)v, (void)out, (void)scale, (void)x;
	return false;
#endif
}

/* A string without escapes equal to lit. */
static inline bool tf_json_is(const tf_json_span *s, const char *lit)
{
	size_t n = strlen(lit);
	return s->type == TF_JSON_STRING && !s->esc && s->n == n && memcmp(s->p, lit, n) == 0;
}

static inline bool tf_json_is_null(const tf_json_span *s)
{
	return s->type == TF_JSON_LITERAL && s->n == 4 && memcmp(s->p, "null", 4) == 0;
}

/* ---- object members ---- */

/* Walks the members of an object span that tf_json_value returned (so its
 * brackets are checked); anything unexpected ends the walk, quietly. */
typedef struct tf_json_iter {
	const unsigned char *p, *end;
} tf_json_iter;

static inline void tf_json_iter_begin(tf_json_iter *it, const tf_json_span *obj)
{
	it->p = obj->p + 1;
	it->end = obj->p + obj->n;
}

/* The next member: true with key (a string span) and val, false at the end. */
bool tf_json_iter_next(tf_json_iter *it, tf_json_span *key, tf_json_span *val);
/* The member key (a string without escapes) of an object span: its value,
 * or a span of type TF_JSON_NONE when obj is no object or has none. */
tf_json_span tf_json_member(const tf_json_span *obj, const char *key);

/* For sniffers: does h[0..n) (a file's head) hold the bytes of lit? */
bool tf_json_head_has(const unsigned char *h, size_t n, const char *lit);

/* ---- resumable skip, strict (json_check.c) ---- */

/* Skips one value fed in pieces of any size, for values too big to hold in
 * one buffer, and checks it as JSON.parse would (json_check.c has the
 * rules): what comes next, the open containers, the token being read. */
typedef struct tf_json_skip {
	int depth;
	uint8_t expect, tok, sub, esc, key;
	const char *lit;                     /* the literal being read */
	uint8_t stack[TF_JSON_MAX_DEPTH];    /* '{' or '[' per open container */
} tf_json_skip;

/* p at a value's first byte (not whitespace): starts skipping it.  Returns
 * 0 (feed p on), or TF_JSON_EVALUE when no value starts there. */
int tf_json_skip_begin(tf_json_skip *s, const unsigned char *p, tf_json_error *e);
/* Feeds [p, end): returns the bytes used, or a negative TF_JSON_E* with e
 * filled (the byte at fault); *done is set when the value ended (then the
 * bytes after it are not used). */
ptrdiff_t tf_json_skip_feed(tf_json_skip *s, const unsigned char *p, const unsigned char *end, bool *done,
			    tf_json_error *e);
/* p at '{' or '[': *out after its closing bracket, the value checked as
 * strict JSON on the way (tf_json_value's nested values); TF_JSON_NEED when
 * end cuts it, a negative TF_JSON_E* with e filled when it is not JSON. */
int tf_json_nested(const unsigned char *p, const unsigned char *end, const unsigned char **out,
		   tf_json_error *e);
/* Members picked out of an object while tf_json_nested_pick checks it, so
 * that a caller need not walk it again: keys without escapes, at most 16. */
typedef struct tf_json_pick {
	const uint16_t *first;   /* [256]: a key's first byte -> bits of the keys that start with it */
	const char *const *key;
	const uint8_t *len;      /* strlen of each key */
	tf_json_span *val;       /* out: val[i] the value of key[i] (the last one met), as tf_json_value spans it */
	uint16_t seen, dup;      /* out: bit i: key[i] met; met more than once */
} tf_json_pick;

/* tf_json_nested, and the values of pk's keys among the members of the
 * outer object (depth 1) in pk (valid when it returns TF_JSON_OK). */
int tf_json_nested_pick(const unsigned char *p, const unsigned char *end, const unsigned char **out,
			tf_json_error *e, tf_json_pick *pk);
/* The general case of tf_json_number (exponents, a leading 0, -Infinity). */
bool tf_json_number_slow(const unsigned char *p, size_t n);

/* ---- strings ---- */

/* Decodes string contents s[0..n) into out (at least n bytes: the decoded
 * text is never longer) as UTF-8; returns its length.  Lone surrogates and
 * \u0000 become U+FFFD (a caller's names are C strings), a bad \u escape
 * '?', an unknown escape its character; bytes other than escapes are copied
 * as they are. */
size_t tf_json_unescape(const unsigned char *s, size_t n, char *out);

/* ---- numbers and ids ---- */

/* Decimal text (JSON number syntax, also with a leading '+', ".5" or "5.")
 * times 10^scale, exactly, to an integer: digits below 1 are rounded half
 * to even.  Returns 0, or -1 when the text is not such a number or the
 * result does not fit in int64. */
int tf_json_decimal_scaled(const char *s, size_t n, int scale, int64_t *out);
/* The same without the fast path for plain decimals (for tests). */
int tf_json_decimal_scaled_slow(const char *s, size_t n, int scale, int64_t *out);

/* tf_json_decimal_scaled of a number or a string without escapes. */
static inline bool tf_json_scaled(const tf_json_span *s, int scale, int64_t *out)
{
	if ((s->type != TF_JSON_NUMBER && s->type != TF_JSON_STRING) || s->esc)
		return false;
	return tf_json_decimal_scaled((const char *)s->p, s->n, scale, out) == 0;
}

/* A decimal number as JSON writes it, also with a leading '+', ".5" or "5."
 * (what tf_json_decimal_scaled accepts); no hex, inf, nan or spaces. */
bool tf_json_is_decimal(const unsigned char *p, size_t n);

/* A finite number, written as a JSON number or as a string holding one
 * (Bazel writes counter values as "8.395000000000001"). */
bool tf_json_double(const tf_json_span *s, double *out);

/* The integer part of a number (fraction and exponent dropped: 2e3 is 2) or
 * of a string holding one. */
bool tf_json_i64(const tf_json_span *s, int64_t *v);

/* An id (flow and async events): the integer part of a number or of a
 * string holding one (as tf_json_i64), a string "0x" + hex digits; any other
 * text hashed (FNV-1a); 0 for other types. */
uint64_t tf_json_id(const tf_json_span *s);

#endif
