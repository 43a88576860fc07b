/* json.c - the generic JSON tokenizer (json.h): errors, nested values,
 * object members, string decoding, exact decimal
 * conversion, ids.  The hot scanners are static inline in json.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "json.h"

typedef unsigned char u8;

int tf_json_fail(tf_json_error *e, int code, const u8 *at, const char *what, bool found)
{
	e->code = code;
	e->at = at;
	if (!found)
		snprintf(e->msg, sizeof(e->msg), "%s", what);
	else if (*at >= 0x20 && *at < 0x7f)
		snprintf(e->msg, sizeof(e->msg), "%s (found '%c')", what, *at);
	else
		snprintf(e->msg, sizeof(e->msg), "%s (found byte 0x%02x)", what, *at);
	return code;
}

/* ---- nested values ---- */

#ifdef __SSE2__
/* Bits of the 64 bytes at p equal to c. */
static inline uint64_t eq64(const u8 *p, u8 c)
{
	const __m128i k = _mm_set1_epi8((char)c);
	uint64_t m = 0;
	for (int i = 0; i < 4; i++) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + 16 * i));
		m |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, k)) << (16 * i);
	}
	return m;
}

/* Bit i set: an odd number of quotes at or before i (simdjson's prefix xor). */
static inline uint64_t prefix_xor(uint64_t x)
{
	x ^= x << 1;
	x ^= x << 2;
	x ^= x << 4;
	x ^= x << 8;
	x ^= x << 16;
	x ^= x << 32;
	return x;
}

/* tf_json_skip_nested 64 bytes at a time: masks of quotes and brackets;
 * the bytes inside strings are the prefix xor of the quotes; only the
 * brackets outside strings are looked at one by one, with the same stack
 * and errors as the scalar loop.  A block with a backslash (rare in
 * traces) is walked byte by byte, as the scalar loop walks it.  The last
 * bytes (under 64) are copied into a block padded with spaces. */
int tf_json_skip_nested(const u8 *p, const u8 *end, const u8 **out, tf_json_error *e)
{
	u8 stack[TF_JSON_MAX_DEPTH];
	int d = 0;
	stack[d++] = *p++;
	uint64_t in_str = 0;  /* all ones: the block starts inside a string */
	int esc_next = 0;      /* the block's first byte is escaped (inside a string) */
	u8 tail[64];
	while (p < end) {
		const u8 *b = p;
		size_t n = (size_t)(end - p);
		if (n < 64) {
			memcpy(tail, p, n);
			memset(tail + n, ' ', 64 - n);
			b = tail;
		}
		size_t lim = n < 64 ? n : 64;
		if (eq64(b, '\\') || esc_next) {
			/* a backslash: byte by byte, as the scalar loop (it escapes
			 * only inside a string) */
			for (size_t i = 0; i < lim; i++) {
				u8 c = b[i];
				if (in_str) {
					if (esc_next)
						esc_next = 0;
					else if (c == '\\')
						esc_next = 1;
					else if (c == '"')
						in_str = 0;
					continue;
				}
				if (c == '"') {
					in_str = ~0ull;
					continue;
				}
				if (c == '{' || c == '[') {
					if (d == TF_JSON_MAX_DEPTH)
						return tf_json_fail(e, TF_JSON_EDEPTH, p + i, "JSON nested too deeply", false);
					stack[d++] = c;
				} else if (c == '}' || c == ']') {
					if (stack[d - 1] != (c == '}' ? '{' : '['))
						return tf_json_fail(e, TF_JSON_EBRACKET, p + i, "mismatched bracket", true);
					if (--d == 0) {
						*out = p + i + 1;
						return TF_JSON_OK;
					}
				}
			}
			p += lim;
			continue;
		}
		uint64_t q = eq64(b, '"');
		uint64_t br = eq64(b, '{') | eq64(b, '}') | eq64(b, '[') | eq64(b, ']');
		uint64_t s = prefix_xor(q) ^ in_str;
		in_str = (uint64_t)((int64_t)s >> 63); /* the last byte's state, as all ones or zero */
		for (uint64_t m = br & ~s; m; m &= m - 1) {
			int i = __builtin_ctzll(m);
			u8 c = b[i];
			if (c == '{' || c == '[') {
				if (d == TF_JSON_MAX_DEPTH)
					return tf_json_fail(e, TF_JSON_EDEPTH, p + i, "JSON nested too deeply", false);
				stack[d++] = c;
				continue;
			}
			if (stack[d - 1] != (c == '}' ? '{' : '['))
				return tf_json_fail(e, TF_JSON_EBRACKET, p + i, "mismatched bracket", true);
			if (--d == 0) {
				*out = p + i + 1;
				return TF_JSON_OK;
			}
		}
		p += lim;
	}
	return TF_JSON_NEED;
}

/* The scalar loop: what the above must give (tests/unit/test_json.c). */
int tf_json_skip_nested_slow(const u8 *p, const u8 *end, const u8 **out, tf_json_error *e)
#else
int tf_json_skip_nested(const u8 *p, const u8 *end, const u8 **out, tf_json_error *e)
#endif
{
	u8 stack[TF_JSON_MAX_DEPTH];
	int d = 0;
	stack[d++] = *p++;
	for (;;) {
		p = tf_json_scan_struct(p, end);
		if (p >= end)
			return TF_JSON_NEED;
		u8 c = *p;
		if (c == '"') {
			tf_json_span str;
			if (tf_json_string(p, end, &str, &p) != TF_JSON_OK)
				return TF_JSON_NEED;
			continue;
		}
		if (c == '{' || c == '[') {
			if (d == TF_JSON_MAX_DEPTH)
				return tf_json_fail(e, TF_JSON_EDEPTH, p, "JSON nested too deeply", false);
			stack[d++] = c;
			p++;
			continue;
		}
		if (stack[d - 1] != (c == '}' ? '{' : '['))
			return tf_json_fail(e, TF_JSON_EBRACKET, p, "mismatched bracket", true);
		p++;
		if (--d == 0) {
			*out = p;
			return TF_JSON_OK;
		}
	}
}

bool tf_json_iter_next(tf_json_iter *it, tf_json_span *key, tf_json_span *val)
{
	const u8 *p = it->p, *end = it->end;
	p = tf_json_skip_ws(p, end);
	if (p < end && *p == ',') {
		p++;
		p = tf_json_skip_ws(p, end);
	}
	if (p >= end || *p != '"' || tf_json_string(p, end, key, &p) != TF_JSON_OK)
		return false;
	p = tf_json_skip_ws(p, end);
	if (p >= end || *p != ':')
		return false;
	p++;
	p = tf_json_skip_ws(p, end);
	if (p >= end)
		return false;
	tf_json_error e; /* a second look at checked bytes: an error only ends the walk */
	if (tf_json_value(p, end, val, &p, &e) != TF_JSON_OK)
		return false;
	it->p = p;
	return true;
}

tf_json_span tf_json_member(const tf_json_span *obj, const char *key)
{
	tf_json_iter it;
	tf_json_span k, v, none = { 0 };
	if (obj->type != TF_JSON_OBJECT)
		return none;
	for (tf_json_iter_begin(&it, obj); tf_json_iter_next(&it, &k, &v);)
		if (tf_json_is(&k, key))
			return v;
	return none;
}

bool tf_json_head_has(const unsigned char *h, size_t n, const char *lit)
{
	size_t k = strlen(lit);
	for (size_t i = 0; i + k <= n; i++)
		if (memcmp(h + i, lit, k) == 0)
			return true;
	return false;
}

/* ---- strings ---- */

static unsigned hex4(const u8 *p)
{
	unsigned v = 0;
	for (int i = 0; i < 4; i++) {
		u8 c = p[i];
		unsigned d;
		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			return 0xFFFFFFFFu;
		v = v << 4 | d;
	}
	return v;
}

static size_t put_utf8(char *o, unsigned cp)
{
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xC0 | cp >> 6);
		o[1] = (char)(0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xE0 | cp >> 12);
		o[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		o[2] = (char)(0x80 | (cp & 0x3F));
		return 3;
	}
	o[0] = (char)(0xF0 | cp >> 18);
	o[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
	o[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
	o[3] = (char)(0x80 | (cp & 0x3F));
	return 4;
}

size_t tf_json_unescape(const u8 *s, size_t n, char *out)
{
	size_t o = 0, i = 0;
	while (i < n) {
		u8 c = s[i];
		if (c != '\\') {
			out[o++] = (char)c;
			i++;
			continue;
		}
		if (i + 1 >= n)
			break;
		u8 e = s[i + 1];
		i += 2;
		switch (e) {
		case 'b': out[o++] = '\b'; break;
		case 'f': out[o++] = '\f'; break;
		case 'n': out[o++] = '\n'; break;
		case 'r': out[o++] = '\r'; break;
		case 't': out[o++] = '\t'; break;
		case 'u': {
			unsigned cp = i + 4 <= n ? hex4(s + i) : 0xFFFFFFFFu;
			if (cp == 0xFFFFFFFFu) {
				out[o++] = '?';
				break;
			}
			i += 4;
			if (cp >= 0xD800 && cp <= 0xDBFF) {
				unsigned lo = (i + 6 <= n && s[i] == '\\' && s[i + 1] == 'u') ? hex4(s + i + 2) : 0xFFFFFFFFu;
				if (lo >= 0xDC00 && lo <= 0xDFFF) {
					cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
					i += 6;
				} else {
					cp = 0xFFFD;
				}
			} else if ((cp >= 0xDC00 && cp <= 0xDFFF) || cp == 0) {
				cp = 0xFFFD; /* \u0000 too: names are C strings */
			}
			o += put_utf8(out + o, cp);
			break;
		}
		default: out[o++] = (char)e; break;
		}
	}
	return o;
}

/* ---- numbers ---- */

static const uint64_t pow10_u64[20] = {
	1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull,
	100000000ull, 1000000000ull, 10000000000ull, 100000000000ull, 1000000000000ull,
	10000000000000ull, 100000000000000ull, 1000000000000000ull, 10000000000000000ull,
	100000000000000000ull, 1000000000000000000ull, 10000000000000000000ull,
};

/* The common case, trace timestamps and durations ("1623142623460016",
 * "1419247332509.906", "-4.5"): an optional '-', digits, and at most
 * scale digits after a '.', 19 digits at most: exact with no rounding, in
 * about a third of the general path's instructions.  Anything else (an
 * exponent, '+', more decimals than scale, ".5", a missing digit, too
 * many digits) returns false for the general path. */
static inline bool decimal_fast(const char *s, size_t n, int scale, int64_t *out)
{
	size_t i = 0;
	bool neg = n && s[0] == '-';
	i = neg;
	uint64_t m = 0;
	size_t d0 = i;
	for (; i < n && (unsigned)(s[i] - '0') < 10u; i++)
		m = m * 10 + (uint64_t)(s[i] - '0');
	size_t nint = i - d0, nfrac = 0;
	if (!nint)
		return false;
	if (i < n && s[i] == '.') {
		size_t f0 = ++i;
		for (; i < n && (unsigned)(s[i] - '0') < 10u; i++)
			m = m * 10 + (uint64_t)(s[i] - '0');
		nfrac = i - f0;
		if (!nfrac)
			return false;
	}
	if (i != n || nint + nfrac > 19 || scale < 0 || nfrac > (size_t)scale || scale > 19)
		return false;
	uint64_t q;
	if (__builtin_mul_overflow(m, pow10_u64[(size_t)scale - nfrac], &q) || q > (uint64_t)INT64_MAX)
		return false;
	*out = neg ? -(int64_t)q : (int64_t)q;
	return true;
}

int tf_json_decimal_scaled(const char *s, size_t n, int scale, int64_t *out)
{
	return decimal_fast(s, n, scale, out) ? 0 : tf_json_decimal_scaled_slow(s, n, scale, out);
}

int tf_json_decimal_scaled_slow(const char *s, size_t n, int scale, int64_t *out)
{
	size_t i = 0;
	bool neg = false, digits = false;
	if (i < n && (s[i] == '-' || s[i] == '+')) {
		neg = s[i] == '-';
		i++;
	}
	uint64_t mant = 0;
	int ndig = 0;
	int64_t exp10 = 0;
	int first_drop = -1;    /* first digit beyond 19 significant ones */
	bool rest_drop = false; /* a nonzero digit after it */
	for (; i < n && tf_json_digit[(u8)s[i]]; i++) {
		int d = s[i] - '0';
		digits = true;
		if (ndig < 19) {
			if (mant || d) {
				mant = mant * 10 + (uint64_t)d;
				ndig++;
			}
		} else {
			exp10++;
			if (first_drop < 0)
				first_drop = d;
			else if (d)
				rest_drop = true;
		}
	}
	if (i < n && s[i] == '.') {
		for (i++; i < n && tf_json_digit[(u8)s[i]]; i++) {
			int d = s[i] - '0';
			digits = true;
			if (ndig < 19) {
				if (mant || d) {
					mant = mant * 10 + (uint64_t)d;
					ndig++;
				}
				exp10--;
			} else if (first_drop < 0) {
				first_drop = d;
			} else if (d) {
				rest_drop = true;
			}
		}
	}
	if (!digits)
		return -1;
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		bool eneg = false;
		int64_t e = 0;
		i++;
		if (i < n && (s[i] == '+' || s[i] == '-')) {
			eneg = s[i] == '-';
			i++;
		}
		if (i >= n || !tf_json_digit[(u8)s[i]])
			return -1;
		for (; i < n && tf_json_digit[(u8)s[i]]; i++)
			if (e < 1000000)
				e = e * 10 + (s[i] - '0');
		exp10 += eneg ? -e : e;
	}
	if (i != n)
		return -1;
	int64_t E = exp10 + scale;
	uint64_t q;
	if (mant == 0) {
		q = 0;
	} else if (E >= 0) {
		if (E > 19)
			return -1;
		if (__builtin_mul_overflow(mant, pow10_u64[E], &q))
			return -1;
		if (E == 0 && first_drop >= 0 &&
		    (first_drop > 5 || (first_drop == 5 && (rest_drop || (q & 1)))))
			q++;
	} else if (-E > 19) {
		q = 0; /* below 0.1 of the unit */
	} else {
		uint64_t p = pow10_u64[-E], rem = mant % p, half = p / 2;
		bool more = first_drop > 0 || rest_drop;
		q = mant / p;
		if (rem > half || (rem == half && (more || (q & 1))))
			q++;
	}
	if (q > (uint64_t)INT64_MAX)
		return -1;
	*out = neg ? -(int64_t)q : (int64_t)q;
	return 0;
}

bool tf_json_is_decimal(const u8 *p, size_t n)
{
	size_t i = 0, d = 0;
	if (i < n && (p[i] == '-' || p[i] == '+'))
		i++;
	for (; i < n && tf_json_digit[p[i]]; i++)
		d++;
	if (i < n && p[i] == '.')
		for (i++; i < n && tf_json_digit[p[i]]; i++)
			d++;
	if (!d)
		return false;
	if (i < n && (p[i] == 'e' || p[i] == 'E')) {
		i++;
		if (i < n && (p[i] == '-' || p[i] == '+'))
			i++;
		if (i >= n || !tf_json_digit[p[i]])
			return false;
		while (i < n && tf_json_digit[p[i]])
			i++;
	}
	return i == n;
}

bool tf_json_double(const tf_json_span *s, double *out)
{
	if ((s->type != TF_JSON_NUMBER && s->type != TF_JSON_STRING) || s->esc)
		return false;
	/* an integer of up to 15 digits (Kineto's "Bytes"): exact as a double,
	 * so strtod's (correctly rounded) result, "-0" included; strtod was 1%
	 * of a Kineto read */
	size_t neg = s->n && s->p[0] == '-';
	if (s->n > neg && s->n - neg <= 15) {
		uint64_t x = 0;
		size_t i = neg;
		for (; i < s->n && tf_json_digit[s->p[i]]; i++)
			x = x * 10 + (uint64_t)(s->p[i] - '0');
		if (i == s->n) {
			*out = neg ? -(double)x : (double)x;
			return true;
		}
	}
	if (s->n >= 64 || !tf_json_is_decimal(s->p, s->n))
		return false;
	char b[64];
	memcpy(b, s->p, s->n);
	b[s->n] = 0;
	char *e;
	*out = strtod(b, &e);
	return *e == 0 && isfinite(*out);
}

bool tf_json_i64(const tf_json_span *s, int64_t *v)
{
	if ((s->type != TF_JSON_NUMBER && s->type != TF_JSON_STRING) || s->esc || s->n == 0)
		return false;
	const u8 *p = s->p, *e = s->p + s->n;
	bool neg = false;
	if (*p == '-') {
		neg = true;
		p++;
	}
	uint64_t x = 0;
	const u8 *d0 = p;
	/* 19 digits cannot overflow: the check per digit only after them */
	for (const u8 *lim = e - p > 19 ? p + 19 : e; p < lim && tf_json_digit[*p]; p++)
		x = x * 10 + (uint64_t)(*p - '0');
	while (p < e && tf_json_digit[*p]) {
		/* beyond the int64 range is not an integer here (ids hash it) */
		if (x > (UINT64_MAX - 9) / 10)
			return false;
		x = x * 10 + (uint64_t)(*p - '0');
		p++;
	}
	if (p == d0 || (p < e && *p != '.' && *p != 'e' && *p != 'E'))
		return false;
	if (x > (uint64_t)INT64_MAX + neg)
		return false;
	*v = neg ? (int64_t)(0 - x) : (int64_t)x; /* 0 - 2^63 wraps to INT64_MIN, no UB */
	return true;
}

static uint64_t hash_bytes(const u8 *p, size_t n)
{
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < n; i++) {
		h ^= p[i];
		h *= 1099511628211ull;
	}
	return h;
}

uint64_t tf_json_id(const tf_json_span *s)
{
	if (s->type == TF_JSON_NUMBER) {
		int64_t v;
		return tf_json_i64(s, &v) ? (uint64_t)v : hash_bytes(s->p, s->n);
	}
	if (s->type != TF_JSON_STRING)
		return 0;
	const u8 *p = s->p, *e = p + s->n;
	uint64_t x = 0;
	if (s->n > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		for (p += 2; p < e; p++) {
			unsigned d = hex4((const u8[]){ '0', '0', '0', *p });
			if (d > 15)
				return hash_bytes(s->p, s->n);
			x = x << 4 | d;
		}
		return x;
	}
	int64_t v;
	if (tf_json_i64(s, &v))
		return (uint64_t)v;
	return hash_bytes(s->p, s->n);
}
