/* json_check.c - the strict check of values that are skipped (json.h): the
 * resumable skip of a top-level value fed in pieces, and the read of a
 * nested value (an event's "args") from a buffer (tf_json_nested).
 *
 * Chrome's importer reads a trace with JSON.parse, which refuses the whole
 * file for one malformed byte anywhere; so does tracefold (docs/format-chrome.md
 * "Errors"): a number in JSON's own syntax (-?(0|[1-9]d*)(.d+)?([eE][+-]?d+)?,
 * so not 01, 1., .5, +1 or 0x10), the literals true, false, null (and NaN,
 * Infinity and -Infinity, which Python's json module writes), ':' after each
 * key, ',' between members and elements (none trailing) and string escapes
 * among \" \\ \/ \b \f \n \r \t \uXXXX.  Control characters inside strings
 * are not looked for: that would cost a second scan of every string.
 *
 * The resumable skip is a byte-at-a-time state machine (strings go 16
 * bytes at a time through tf_json_scan_str), resumable at any byte: its
 * state is the container stack, what comes next, and the token being read.
 * tf_json_nested walks a value held whole in one pass with inner loops: it
 * runs on every event's args (the machine made the read 1.5x slower). */
#include "json.h"

typedef unsigned char u8;

/* what comes next between tokens */
enum { X_VALUE, X_VALUE_OR_CLOSE, X_KEY, X_KEY_OR_CLOSE, X_COLON, X_NEXT, X_DONE };
/* the token being read */
enum { T_NONE, T_STR, T_NUM, T_LIT };
/* where a number is: after '-', after a leading 0, in the integer digits,
 * after '.', in the fraction, after 'e', after its sign, in the exponent */
enum { N_SIGN, N_ZERO, N_INT, N_DOT, N_FRAC, N_E, N_ESIGN, N_EXP };

/* The next number state after byte c, or -1: c does not go on the number. */
static inline int num_step(int st, u8 c)
{
	bool d = tf_json_digit[c];
	switch (st) {
	case N_SIGN:
		return c == '0' ? N_ZERO : d ? N_INT : -1;
	case N_ZERO:
		return c == '.' ? N_DOT : (c == 'e' || c == 'E') ? N_E : -1;
	case N_INT:
		return d ? N_INT : c == '.' ? N_DOT : (c == 'e' || c == 'E') ? N_E : -1;
	case N_DOT:
		return d ? N_FRAC : -1;
	case N_FRAC:
		return d ? N_FRAC : (c == 'e' || c == 'E') ? N_E : -1;
	case N_E:
		return d ? N_EXP : (c == '+' || c == '-') ? N_ESIGN : -1;
	default: /* N_ESIGN, N_EXP */
		return d ? N_EXP : -1;
	}
}

static inline bool num_final(int st)
{
	return st == N_ZERO || st == N_INT || st == N_FRAC || st == N_EXP;
}

bool tf_json_number_slow(const u8 *p, size_t n)
{
	if (n == 9 && memcmp(p, "-Infinity", 9) == 0)
		return true;
	if (!n || (p[0] != '-' && !tf_json_digit[p[0]]))
		return false;
	int st = p[0] == '-' ? N_SIGN : p[0] == '0' ? N_ZERO : N_INT;
	for (size_t i = 1; i < n; i++)
		if ((st = num_step(st, p[i])) < 0)
			return false;
	return num_final(st);
}

static const char *literal_for(u8 c)
{
	switch (c) {
	case 't': return "true";
	case 'f': return "false";
	case 'n': return "null";
	case 'N': return "NaN";
	case 'I': return "Infinity";
	default: return NULL;
	}
}

int tf_json_skip_begin(tf_json_skip *s, const u8 *p, tf_json_error *e)
{
	u8 c = *p;
	s->depth = 0;
	s->expect = X_VALUE;
	s->tok = T_NONE;
	s->esc = 0;
	if (c == '"' || c == '{' || c == '[' || c == '-' || tf_json_digit[c] || literal_for(c))
		return 0;
	return tf_json_fail(e, TF_JSON_EVALUE, p, "expected a JSON value", true);
}

/* A value ended (a scalar, or the bracket that closed a container). */
static inline void value_end(tf_json_skip *s)
{
	s->expect = s->depth ? X_NEXT : X_DONE;
}

/* c starts a value (expect was X_VALUE or X_VALUE_OR_CLOSE). */
static int start_value(tf_json_skip *s, const u8 *p, tf_json_error *e)
{
	u8 c = *p;
	if (c == '{' || c == '[') {
		if (s->depth == TF_JSON_MAX_DEPTH)
			return tf_json_fail(e, TF_JSON_EDEPTH, p, "JSON nested too deeply", false);
		s->stack[s->depth++] = c;
		s->expect = c == '{' ? X_KEY_OR_CLOSE : X_VALUE_OR_CLOSE;
	} else if (c == '"') {
		s->tok = T_STR;
		s->key = 0;
	} else if (c == '-' || tf_json_digit[c]) {
		s->tok = T_NUM;
		s->sub = c == '-' ? N_SIGN : c == '0' ? N_ZERO : N_INT;
	} else if ((s->lit = literal_for(c))) {
		s->tok = T_LIT;
		s->sub = 1;
	} else {
		return tf_json_fail(e, TF_JSON_EVALUE, p, "expected a JSON value", true);
	}
	return 0;
}

/* c is '}' or ']' where a container may end. */
static int close_container(tf_json_skip *s, const u8 *p, tf_json_error *e)
{
	if (s->stack[s->depth - 1] != (*p == '}' ? '{' : '['))
		return tf_json_fail(e, TF_JSON_EBRACKET, p, "mismatched bracket", true);
	s->depth--;
	value_end(s);
	return 0;
}

/* One byte between tokens (not whitespace). */
static int structure(tf_json_skip *s, const u8 *p, tf_json_error *e)
{
	u8 c = *p;
	switch (s->expect) {
	case X_VALUE_OR_CLOSE:
		if (c == ']')
			return close_container(s, p, e);
		/* fall through */
	case X_VALUE:
		return start_value(s, p, e);
	case X_KEY_OR_CLOSE:
		if (c == '}')
			return close_container(s, p, e);
		/* fall through */
	case X_KEY:
		if (c != '"')
			return tf_json_fail(e, TF_JSON_ESYNTAX, p, "expected a quoted key", true);
		s->tok = T_STR;
		s->key = 1;
		return 0;
	case X_COLON:
		if (c != ':')
			return tf_json_fail(e, TF_JSON_ESYNTAX, p, "expected ':' after a key", true);
		s->expect = X_VALUE;
		return 0;
	default: /* X_NEXT */
		if (c == ',') {
			s->expect = s->stack[s->depth - 1] == '{' ? X_KEY : X_VALUE;
			return 0;
		}
		if (c == '}' || c == ']')
			return close_container(s, p, e);
		return tf_json_fail(e, TF_JSON_ESYNTAX, p, "expected ',' or a closing bracket", true);
	}
}

/* Inside a string at p: *pp moves past what was read; true when the
 * string ended there. */
static int string_bytes(tf_json_skip *s, const u8 **pp, const u8 *end, tf_json_error *e)
{
	const u8 *p = *pp;
	while (p < end) {
		if (s->esc) {
			if (s->esc > 1) { /* \uXXXX: one of its hex digits */
				if (!((*p >= '0' && *p <= '9') || ((*p | 0x20) >= 'a' && (*p | 0x20) <= 'f')))
					return tf_json_fail(e, TF_JSON_ESYNTAX, p, "bad \\u escape in a string", true);
				s->esc = s->esc == 5 ? 0 : s->esc + 1;
			} else if (*p == 'u') {
				s->esc = 2;
			} else if (*p == '"' || *p == '\\' || *p == '/' || *p == 'b' || *p == 'f' || *p == 'n' ||
				   *p == 'r' || *p == 't') {
				s->esc = 0;
			} else {
				return tf_json_fail(e, TF_JSON_ESYNTAX, p, "bad escape in a string", true);
			}
			p++;
			continue;
		}
		p = tf_json_scan_str(p, end);
		if (p >= end)
			break;
		if (*p++ == '\\') {
			s->esc = 1;
			continue;
		}
		s->tok = T_NONE;
		if (s->key)
			s->expect = X_COLON;
		else
			value_end(s);
		*pp = p;
		return 1;
	}
	*pp = p;
	return 0;
}

ptrdiff_t tf_json_skip_feed(tf_json_skip *s, const u8 *p, const u8 *end, bool *done, tf_json_error *e)
{
	const u8 *p0 = p;
	int rc;
	*done = false;
	while (p < end) {
		u8 c = *p;
		switch (s->tok) {
		case T_STR:
			if ((rc = string_bytes(s, &p, end, e)) < 0)
				return rc;
			break;
		case T_NUM:
			if ((rc = num_step(s->sub, c)) >= 0) {
				s->sub = (uint8_t)rc;
				p++;
				continue;
			}
			if (s->sub == N_SIGN && c == 'I') { /* -Infinity */
				s->tok = T_LIT;
				s->lit = "Infinity";
				s->sub = 1;
				p++;
				continue;
			}
			if (!num_final(s->sub))
				return tf_json_fail(e, TF_JSON_ESYNTAX, p, "malformed JSON number", true);
			s->tok = T_NONE; /* c is not the number's: it is looked at again */
			value_end(s);
			break;
		case T_LIT:
			if (c != (u8)s->lit[s->sub])
				return tf_json_fail(e, TF_JSON_ELITERAL, p, "invalid JSON literal", true);
			p++;
			if (!s->lit[++s->sub]) {
				s->tok = T_NONE;
				value_end(s);
			}
			break;
		default:
			if (!tf_json_ws[c] && (rc = structure(s, p, e)) < 0)
				return rc;
			p++;
		}
		if (s->expect == X_DONE && s->tok == T_NONE) {
			*done = true;
			break;
		}
	}
	return p - p0;
}

/* check_string from its first backslash on (p at it; the scan finds it
 * again at once). */
static const u8 *check_escapes(const u8 *p, const u8 *end, tf_json_error *e)
{
	for (;;) {
		p = tf_json_scan_str(p, end);
		if (p >= end)
			return NULL;
		if (*p++ == '"')
			return p;
		if (p >= end)
			return NULL;
		u8 c = *p++;
		if (c == 'u') {
			for (int i = 0; i < 4; i++, p++)
				if (p >= end || !((*p >= '0' && *p <= '9') || ((*p | 0x20) >= 'a' && (*p | 0x20) <= 'f'))) {
					if (p < end)
						tf_json_fail(e, TF_JSON_ESYNTAX, p, "bad \\u escape in a string", true);
					return NULL;
				}
		} else if (c != '"' && c != '\\' && c != '/' && c != 'b' && c != 'f' && c != 'n' && c != 'r' &&
			   c != 't') {
			tf_json_fail(e, TF_JSON_ESYNTAX, p - 1, "bad escape in a string", true);
			return NULL;
		}
	}
}

/* p after a string's opening quote, inside [p, end): just after its closing
 * quote, escapes checked; NULL with e filled, or with e->code 0 when the
 * string is cut by end.  Inline for the common string without escapes
 * (args' keys and values: a call each was 1% of a Kineto read). */
static inline const u8 *check_string(const u8 *p, const u8 *end, tf_json_error *e)
{
	p = tf_json_scan_str(p, end);
	if (p >= end)
		return NULL;
	if (*p == '"')
		return p + 1;
	return check_escapes(p, end, e);
}

/* The key [k, ke) of a member at depth 1: its index in pk, or -1. */
static inline int pick_key(const tf_json_pick *pk, const u8 *k, const u8 *ke)
{
	for (unsigned m = pk->first[*k]; m; m &= m - 1) {
		int i = __builtin_ctz(m);
		if ((size_t)(ke - k) == pk->len[i] && memcmp(k, pk->key[i], pk->len[i]) == 0)
			return i;
	}
	return -1;
}

/* The value [v, ve) of key i, as tf_json_value spans it. */
static void pick_put(tf_json_pick *pk, int i, const u8 *v, const u8 *ve)
{
	tf_json_span *s = &pk->val[i];
	uint16_t bit = (uint16_t)(1u << i);
	u8 c = *v;
	pk->dup |= pk->seen & bit;
	pk->seen |= bit;
	if (c == '"') {
		s->p = v + 1;
		s->n = (size_t)(ve - v - 2);
		s->type = TF_JSON_STRING;
		s->esc = memchr(s->p, '\\', s->n) != NULL;
		return;
	}
	s->p = v;
	s->n = (size_t)(ve - v);
	s->esc = 0;
	s->type = c == '{' ? TF_JSON_OBJECT : c == '[' ? TF_JSON_ARRAY : c == '-' || tf_json_digit[c] ? TF_JSON_NUMBER
												: TF_JSON_LITERAL;
}

/* p at '{' or '[' in a buffer that ends at end: *out after its closing
 * bracket, the value checked on the way.  One pass with inner loops for
 * whitespace, strings and scalars, not the byte machine above: this runs on
 * every event's args (docs/performance.md "Strict JSON").  pk (NULL: none,
 * and the compiler drops its code) picks out the members it names. */
static inline __attribute__((always_inline)) int nested(const u8 *p, const u8 *end, const u8 **out,
							 tf_json_error *e, tf_json_pick *pk)
{
	u8 stack[TF_JSON_MAX_DEPTH];
	int d = 0, slot = -1;
	const u8 *vstart = p, *q;
	u8 c;
	e->code = 0;
	for (;;) {
		/* a value */
		p = tf_json_skip_ws(p, end);
		if (p >= end)
			return TF_JSON_NEED;
	value: /* p < end, not whitespace */
		c = *p;
		if (pk && d == 1)
			vstart = p;
		if (c == '{' || c == '[') {
			if (d == TF_JSON_MAX_DEPTH)
				return tf_json_fail(e, TF_JSON_EDEPTH, p, "JSON nested too deeply", false);
			stack[d++] = c;
			p = tf_json_skip_ws(p + 1, end);
			if (p >= end)
				return TF_JSON_NEED;
			if (*p == (c == '{' ? '}' : ']')) {
				d--;
				p++;
				goto after;
			}
			if (c == '[')
				goto value;
			goto key;
		}
		if (c == '"') {
			if (!(p = check_string(p + 1, end, e)))
				return e->code ? e->code : TF_JSON_NEED;
			goto after;
		}
		if (c == '}' || c == ']')
			return stack[d - 1] != (c == '}' ? '{' : '[')
				       ? tf_json_fail(e, TF_JSON_EBRACKET, p, "mismatched bracket", true)
				       : tf_json_fail(e, TF_JSON_EVALUE, p, "expected a JSON value", true);
		if (c == '-' || tf_json_digit[c]) { /* -?(0|[1-9]digits)[.digits] (most numbers in args) */
			q = p + (c == '-');
			if (q < end && tf_json_digit[*q]) {
				q = *q == '0' ? q + 1 : tf_json_skip_digits(q + 1, end);
				if (q + 1 < end && *q == '.' && tf_json_digit[q[1]])
					q = tf_json_skip_digits(q + 2, end);
				if (q < end && !tf_json_scalar[*q]) {
					p = q;
					goto after;
				}
			}
		}
		q = p;
		while (q < end && tf_json_scalar[*q])
			q++;
		if (q >= end)
			return TF_JSON_NEED; /* the number or literal may go on */
		if (q == p)
			return tf_json_fail(e, TF_JSON_EVALUE, p, "expected a JSON value", true);
		bool num = c == '-' || tf_json_digit[c];
		if (num ? !tf_json_number(p, (size_t)(q - p)) : !tf_json_literal_ok(p, (size_t)(q - p)))
			return tf_json_fail(e, num ? TF_JSON_ESYNTAX : TF_JSON_ELITERAL, p,
					    num ? "malformed JSON number" : "invalid JSON literal", false);
		p = q;
	after:
		/* a value ended: ',' and the next, or the container's end */
		for (;;) {
			if (d == 0) {
				*out = p;
				return TF_JSON_OK;
			}
			if (pk && d == 1 && slot >= 0) { /* a picked member's value ended */
				pick_put(pk, slot, vstart, p);
				slot = -1;
			}
			if (end - p >= 3 && p[0] == ',' && !tf_json_ws[*(q = p + 1 + (p[1] == ' '))]) {
				p = q; /* ',' or ', ' then the next: where the scans below stop */
				break;
			}
			p = tf_json_skip_ws(p, end);
			if (p >= end)
				return TF_JSON_NEED;
			c = *p++;
			if (c == ',') {
				p = tf_json_skip_ws(p, end);
				if (p >= end)
					return TF_JSON_NEED;
				break;
			}
			if (c != '}' && c != ']')
				return tf_json_fail(e, TF_JSON_ESYNTAX, p - 1, "expected ',' or a closing bracket", true);
			if (stack[--d] != (c == '}' ? '{' : '['))
				return tf_json_fail(e, TF_JSON_EBRACKET, p - 1, "mismatched bracket", true);
		}
		/* p < end, not whitespace: the next element or member */
		if (stack[d - 1] == '[')
			goto value;
	key: /* p < end, not whitespace */
		if (*p != '"')
			return tf_json_fail(e, TF_JSON_ESYNTAX, p, "expected a quoted key", true);
		const u8 *k = p + 1;
		if (!(p = check_string(k, end, e)))
			return e->code ? e->code : TF_JSON_NEED;
		if (pk && d == 1)
			slot = pick_key(pk, k, p - 1);
		if (end - p >= 3 && p[0] == ':' && !tf_json_ws[*(q = p + 1 + (p[1] == ' '))]) {
			p = q; /* ':' or ': ' then the value */
			goto value;
		}
		p = tf_json_skip_ws(p, end);
		if (p >= end)
			return TF_JSON_NEED;
		if (*p != ':')
			return tf_json_fail(e, TF_JSON_ESYNTAX, p, "expected ':' after a key", true);
		p++;
	}
}

int tf_json_nested(const u8 *p, const u8 *end, const u8 **out, tf_json_error *e)
{
	return nested(p, end, out, e, NULL);
}

int tf_json_nested_pick(const u8 *p, const u8 *end, const u8 **out, tf_json_error *e, tf_json_pick *pk)
{
	pk->seen = pk->dup = 0;
	return nested(p, end, out, e, pk);
}
