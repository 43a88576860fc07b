/* chrome.c - streaming reader of Chrome trace-event JSON (Chrome, Perfetto
 * exports, PyTorch/Kineto, rocprofiler, TAU's tau_trace2json).
 *
 * Design (docs/format-chrome.md has the user-facing rules):
 * - A push parser over the chunks tf_in_chunk() hands out (already gunzipped).
 *   The top level ({"traceEvents":[...], ...} or a bare [...]) is a small
 *   resumable state machine; every event object is parsed in one go from a
 *   contiguous buffer.  When an event (or a top-level key) is cut by the end
 *   of a chunk, its bytes so far go to a carry buffer, the next chunk's bytes
 *   are appended in growing pieces and the unit is parsed again from the
 *   carry; after it, parsing continues in the chunk itself.  So only one
 *   unfinished unit is ever copied, and chunk boundaries may fall anywhere.
 * - No DOM: an event is parsed into spans (pointers into the buffer) of the
 *   fields we use; every other value, `args` included, is skipped by a
 *   bracket/string scanner (SSE2 where available).  `args` is only looked
 *   into for counters (C), metadata (M) and nothing else.
 * - No per-event allocation: names are interned (tf_strtab), strings with
 *   escapes are decoded into reusable scratch buffers, the last (pid, tid)
 *   -> track lookup is cached.
 */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "tracefold/reader.h"
#include "tracefold/io.h"
#include "chrome.h"
#include "hmap.h"
#ifdef __SSE2__
#include <emmintrin.h>
#endif

typedef unsigned char u8;

/* step/parse results; negative values are TF_E* codes */
enum { R_OK = 0, R_NEED = 1 };

enum { V_NONE = 0, V_STR, V_NUM, V_LIT, V_OBJ, V_ARR };

typedef struct span {
	const u8 *p;  /* strings: the text between the quotes; else the value's text */
	size_t n;
	uint8_t type; /* V_* */
	uint8_t esc;  /* string has backslash escapes */
} span;

typedef struct fields {
	span ph, name, cat, ts, dur, pid, tid, id, id2, args, sort_index;
} fields;

enum {
	S_START, S_TOP_KEY_FIRST, S_TOP_KEY, S_TOP_COLON, S_TOP_VALUE, S_TOP_SKIP, S_TOP_NEXT,
	S_ARR_FIRST, S_ARR_ELEM, S_ARR_NEXT, S_DONE,
};
enum { K_OTHER, K_TRACE_EVENTS, K_DIST_INFO };

#define WANT0 4096u
#define MAX_DEPTH 1024
#define NSCRATCH 4
#define CACHE_KEY 64

typedef struct pending_thread {
	tf_str pk, tk;
	tf_str name;
	int64_t sort_index;
	bool has_name, has_sort;
} pending_thread;

struct tf_chrome {
	tf_ctx *ctx;
	tf_strtab *st;
	tf_sink *sink;
	uint32_t input;
	char path[512];
	tf_error *err;

	int state;
	bool object_form;
	bool stopped;
	int topkey;
	/* resumable skip of a top-level value */
	int sk_depth;
	bool sk_str, sk_esc, sk_scalar;

	/* the buffer being parsed: its first byte's absolute offset */
	const u8 *buf0;
	int64_t buf_base;
	int64_t base;          /* absolute offset of the next fed chunk */

	u8 *carry;
	size_t carry_len, carry_cap;
	int64_t carry_off;
	size_t retry_at;       /* parse the carry again once it holds this many bytes */
	bool untried;          /* the carry got bytes since it was last parsed */

	uint64_t index;        /* next event's 0-based index in the input */
	int64_t rank;          /* distributedInfo.rank, -1 none */
	tf_str trace_cat;      /* "Trace" (Kineto's whole-trace span) */
	bool lines;            /* JSON lines: events separated by newlines, no commas */
	bool has_events;       /* object form: a traceEvents array was met */
	bool nl;               /* a newline since the last event (S_ARR_NEXT) */

	/* scratch for decoded strings: 0 name, 1 cat, 2 pid, 3 tid */
	char *scr[NSCRATCH];
	size_t scr_cap[NSCRATCH];
	char *tmp;             /* counter names */
	size_t tmp_cap;

	/* last (pid, tid) text -> track */
	bool tc_valid;
	uint32_t tc_track;
	size_t tc_pn, tc_tn;
	char tc_pid[CACHE_KEY], tc_tid[CACHE_KEY];

	/* cat id -> 0 unknown, 1 GPU category, 2 other */
	uint8_t *catcls;
	size_t catcls_cap;
	tf_hmap gpu_pids;      /* process key -> 1: marked GPU by its metadata */
	pending_thread *pend;  /* thread metadata, also for tracks not yet seen */
	uint32_t npend, cappend;
	tf_hmap pend_idx;      /* process key << 32 | thread key -> pend index */
};

/* ---- character classes ---- */

static const u8 is_ws[256] = { [' '] = 1, ['\t'] = 1, ['\n'] = 1, ['\r'] = 1 };
static const u8 is_scalar[256] = {
	['0' ... '9'] = 1, ['a' ... 'z'] = 1, ['A' ... 'Z'] = 1, ['+'] = 1, ['-'] = 1, ['.'] = 1,
};
static const u8 is_digit[256] = { ['0' ... '9'] = 1 };

#define SKIP_WS(p, end)                           \
	do {                                      \
		while ((p) < (end) && is_ws[*(p)]) \
			(p)++;                    \
	} while (0)

/* First '"' or '\\' at or after p, or end. */
static inline const u8 *scan_str(const u8 *p, const u8 *end)
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
static inline const u8 *scan_struct(const u8 *p, const u8 *end)
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

/* ---- errors ---- */

static int fail_at(tf_chrome *r, const u8 *at, const char *what)
{
	int64_t off = r->buf_base + (at - r->buf0);
	return tf_error_set(r->err, TF_EFORMAT, r->path, off, (int64_t)r->index, "%s", what);
}

static int fail_char(tf_chrome *r, const u8 *at, const char *what)
{
	int64_t off = r->buf_base + (at - r->buf0);
	u8 ch = *at;
	if (ch >= 0x20 && ch < 0x7f)
		return tf_error_set(r->err, TF_EFORMAT, r->path, off, (int64_t)r->index,
				    "%s (found '%c')", what, ch);
	return tf_error_set(r->err, TF_EFORMAT, r->path, off, (int64_t)r->index,
			    "%s (found byte 0x%02x)", what, ch);
}

/* ---- JSON primitives over a contiguous buffer ---- */

/* p at '"'.  Fills s with the contents; *out after the closing quote. */
static inline int parse_string(const u8 *p, const u8 *end, span *s, const u8 **out)
{
	const u8 *b = p + 1, *q = b;
	uint8_t esc = 0;
	for (;;) {
		q = scan_str(q, end);
		if (q >= end)
			return R_NEED;
		if (*q == '"')
			break;
		esc = 1;
		if (end - q < 2)
			return R_NEED;
		q += 2;
	}
	s->p = b;
	s->n = (size_t)(q - b);
	s->type = V_STR;
	s->esc = esc;
	*out = q + 1;
	return R_OK;
}

/* p at '{' or '['.  Checks bracket pairing and strings, nothing else. */
static int skip_nested(tf_chrome *r, const u8 *p, const u8 *end, const u8 **out)
{
	u8 stack[MAX_DEPTH];
	int d = 0;
	stack[d++] = *p++;
	for (;;) {
		p = scan_struct(p, end);
		if (p >= end)
			return R_NEED;
		u8 c = *p;
		if (c == '"') {
			const u8 *q = p + 1;
			for (;;) {
				q = scan_str(q, end);
				if (q >= end)
					return R_NEED;
				if (*q == '"')
					break;
				if (end - q < 2)
					return R_NEED;
				q += 2;
			}
			p = q + 1;
			continue;
		}
		if (c == '{' || c == '[') {
			if (d == MAX_DEPTH)
				return fail_at(r, p, "JSON nested too deeply");
			stack[d++] = c;
			p++;
			continue;
		}
		if (stack[d - 1] != (c == '}' ? '{' : '['))
			return fail_char(r, p, "mismatched bracket");
		p++;
		if (--d == 0) {
			*out = p;
			return R_OK;
		}
	}
}

/* true, false, null; and NaN and Infinity, which are not JSON but are what
 * Python's json module writes for non-finite floats (-Infinity is read as a
 * number).  Used as a time or value they make the event bad_event. */
static bool lit_ok(const u8 *p, size_t n)
{
	return (n == 4 && (memcmp(p, "true", 4) == 0 || memcmp(p, "null", 4) == 0)) ||
	       (n == 5 && memcmp(p, "false", 5) == 0) || (n == 3 && memcmp(p, "NaN", 3) == 0) ||
	       (n == 8 && memcmp(p, "Infinity", 8) == 0);
}

/* Any JSON value at p (p < end, not whitespace). */
static inline int get_value(tf_chrome *r, const u8 *p, const u8 *end, span *v, const u8 **out)
{
	u8 c = *p;
	if (c == '"')
		return parse_string(p, end, v, out);
	if (c == '{' || c == '[') {
		int rc = skip_nested(r, p, end, out);
		if (rc != R_OK)
			return rc;
		v->p = p;
		v->n = (size_t)(*out - p);
		v->type = c == '{' ? V_OBJ : V_ARR;
		v->esc = 0;
		return R_OK;
	}
	const u8 *q = p;
	while (q < end && is_scalar[*q])
		q++;
	if (q >= end)
		return R_NEED; /* a number may go on in the next chunk */
	if (q == p)
		return fail_char(r, p, "expected a JSON value");
	v->p = p;
	v->n = (size_t)(q - p);
	v->esc = 0;
	if (is_digit[c] || c == '-') {
		v->type = V_NUM;
	} else {
		if (!lit_ok(p, v->n))
			return fail_at(r, p, "invalid JSON literal");
		v->type = V_LIT;
	}
	*out = q;
	return R_OK;
}

/* ---- event fields ---- */

static inline span *field_for(fields *f, const span *k)
{
	const u8 *s = k->p;
	if (k->esc)
		return NULL;
	switch (k->n) {
	case 2:
		if (s[0] == 'p' && s[1] == 'h')
			return &f->ph;
		if (s[0] == 't' && s[1] == 's')
			return &f->ts;
		if (s[0] == 'i' && s[1] == 'd')
			return &f->id;
		return NULL;
	case 3:
		if (memcmp(s, "dur", 3) == 0)
			return &f->dur;
		if (memcmp(s, "pid", 3) == 0)
			return &f->pid;
		if (memcmp(s, "tid", 3) == 0)
			return &f->tid;
		if (memcmp(s, "cat", 3) == 0)
			return &f->cat;
		if (memcmp(s, "id2", 3) == 0)
			return &f->id2;
		return NULL;
	case 4:
		if (memcmp(s, "name", 4) == 0)
			return &f->name;
		if (memcmp(s, "args", 4) == 0)
			return &f->args;
		return NULL;
	case 10:
		if (memcmp(s, "sort_index", 10) == 0)
			return &f->sort_index;
		return NULL;
	}
	return NULL;
}

/* p at '{'.  Fills f (spans into the buffer). */
static int parse_event(tf_chrome *r, const u8 *p, const u8 *end, fields *f, const u8 **out)
{
	memset(f, 0, sizeof(*f));
	p++;
	SKIP_WS(p, end);
	if (p >= end)
		return R_NEED;
	if (*p == '}') {
		*out = p + 1;
		return R_OK;
	}
	for (;;) {
		if (*p != '"')
			return fail_char(r, p, "expected a quoted key in an event");
		span k, tmp;
		int rc = parse_string(p, end, &k, &p);
		if (rc != R_OK)
			return rc;
		SKIP_WS(p, end);
		if (p >= end)
			return R_NEED;
		if (*p != ':')
			return fail_char(r, p, "expected ':' after a key");
		p++;
		SKIP_WS(p, end);
		if (p >= end)
			return R_NEED;
		span *dst = field_for(f, &k);
		rc = get_value(r, p, end, dst ? dst : &tmp, &p);
		if (rc != R_OK)
			return rc;
		SKIP_WS(p, end);
		if (p >= end)
			return R_NEED;
		if (*p == ',') {
			p++;
			SKIP_WS(p, end);
			if (p >= end)
				return R_NEED;
			continue;
		}
		if (*p == '}') {
			*out = p + 1;
			return R_OK;
		}
		return fail_char(r, p, "expected ',' or '}' in an event");
	}
}

/* Members of an object span already checked by skip_nested.  Anything
 * unexpected ends the walk. */
typedef struct objit {
	tf_chrome *r;
	const u8 *p, *end;
} objit;

static void obj_begin(objit *it, tf_chrome *r, const span *obj)
{
	it->r = r;
	it->p = obj->p + 1;
	it->end = obj->p + obj->n;
}

static bool obj_next(objit *it, span *key, span *val)
{
	const u8 *p = it->p, *end = it->end;
	SKIP_WS(p, end);
	if (p < end && *p == ',') {
		p++;
		SKIP_WS(p, end);
	}
	if (p >= end || *p != '"' || parse_string(p, end, key, &p) != R_OK)
		return false;
	SKIP_WS(p, end);
	if (p >= end || *p != ':')
		return false;
	p++;
	SKIP_WS(p, end);
	if (p >= end)
		return false;
	/* Errors in args are not fatal here: this is a second look at bytes
	 * that already passed skip_nested.  Keep err untouched. */
	tf_error *saved = it->r->err;
	it->r->err = NULL;
	int rc = get_value(it->r, p, end, val, &p);
	it->r->err = saved;
	if (rc != R_OK)
		return false;
	it->p = p;
	return true;
}

static bool span_is(const span *s, const char *lit)
{
	size_t n = strlen(lit);
	return s->type == V_STR && !s->esc && s->n == n && memcmp(s->p, lit, n) == 0;
}

static bool span_is_null(const span *s)
{
	return s->type == V_LIT && s->n == 4 && memcmp(s->p, "null", 4) == 0;
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

/* Decodes JSON string contents s[0..n) into out (at least n bytes: the
 * decoded text is never longer).  Lone surrogates and \u0000 become U+FFFD,
 * a bad \u escape '?', an unknown escape its character. */
static size_t json_unescape(const u8 *s, size_t n, char *out)
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
				cp = 0xFFFD; /* \u0000 too: names are C strings in pprof */
			}
			o += put_utf8(out + o, cp);
			break;
		}
		default: out[o++] = (char)e; break;
		}
	}
	return o;
}

static int grow(char **buf, size_t *cap, size_t need)
{
	if (need <= *cap)
		return 0;
	size_t nc = *cap ? *cap : 256;
	while (nc < need)
		nc *= 2;
	char *nb = realloc(*buf, nc);
	if (!nb)
		return TF_ENOMEM;
	*buf = nb;
	*cap = nc;
	return 0;
}

/* The text of a string (decoded) or of a number/literal (as written);
 * "" for absent, null, objects and arrays. */
static int span_text(tf_chrome *r, const span *s, int slot, const char **t, size_t *n)
{
	if (s->type == V_STR && s->esc) {
		if (grow(&r->scr[slot], &r->scr_cap[slot], s->n + 1) < 0)
			return TF_ENOMEM;
		*n = json_unescape(s->p, s->n, r->scr[slot]);
		*t = r->scr[slot];
		return 0;
	}
	if (s->type == V_STR || s->type == V_NUM) {
		*t = (const char *)s->p;
		*n = s->n;
		return 0;
	}
	*t = "";
	*n = 0;
	return 0;
}

static int intern_span(tf_chrome *r, const span *s, int slot, tf_str *out)
{
	const char *t;
	size_t n;
	TF_TRY(span_text(r, s, slot, &t, &n));
	if (n == 0) {
		*out = 0;
		return 0;
	}
	tf_str id = tf_strtab_intern(r->st, t, n);
	if (id == (tf_str)-1)
		return TF_ENOMEM;
	*out = id;
	return 0;
}

/* ---- numbers ---- */

static const uint64_t pow10_u64[20] = {
	1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull,
	100000000ull, 1000000000ull, 10000000000ull, 100000000000ull, 1000000000000ull,
	10000000000000ull, 100000000000000ull, 1000000000000000ull, 10000000000000000ull,
	100000000000000000ull, 1000000000000000000ull, 10000000000000000000ull,
};

int tf_chrome_us_to_ns(const char *s, size_t n, int64_t *ns_out)
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
	for (; i < n && is_digit[(u8)s[i]]; i++) {
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
		for (i++; i < n && is_digit[(u8)s[i]]; i++) {
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
		if (i >= n || !is_digit[(u8)s[i]])
			return -1;
		for (; i < n && is_digit[(u8)s[i]]; i++)
			if (e < 1000000)
				e = e * 10 + (s[i] - '0');
		exp10 += eneg ? -e : e;
	}
	if (i != n)
		return -1;
	int64_t E = exp10 + 3; /* microseconds -> nanoseconds */
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
		q = 0; /* below 0.1 ns */
	} else {
		uint64_t p = pow10_u64[-E], rem = mant % p, half = p / 2;
		bool more = first_drop > 0 || rest_drop;
		q = mant / p;
		if (rem > half || (rem == half && (more || (q & 1))))
			q++;
	}
	if (q > (uint64_t)INT64_MAX)
		return -1;
	*ns_out = neg ? -(int64_t)q : (int64_t)q;
	return 0;
}

static bool span_ns(const span *s, int64_t *ns)
{
	if ((s->type != V_NUM && s->type != V_STR) || s->esc)
		return false;
	return tf_chrome_us_to_ns((const char *)s->p, s->n, ns) == 0;
}

/* Integer value of a number (fraction dropped) or a numeric string. */
static bool span_i64(const span *s, int64_t *v)
{
	if ((s->type != V_NUM && s->type != V_STR) || s->esc || s->n == 0)
		return false;
	const u8 *p = s->p, *e = s->p + s->n;
	bool neg = false;
	if (*p == '-') {
		neg = true;
		p++;
	}
	uint64_t x = 0;
	const u8 *d0 = p;
	while (p < e && is_digit[*p]) {
		x = x * 10 + (uint64_t)(*p - '0');
		p++;
	}
	if (p == d0 || (p < e && *p != '.' && *p != 'e' && *p != 'E'))
		return false;
	*v = neg ? -(int64_t)x : (int64_t)x;
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

/* Flow/async id: a number, "0x..." hex or decimal text; other text hashed. */
static uint64_t span_id(const span *s)
{
	if (s->type == V_NUM) {
		int64_t v;
		return span_i64(s, &v) ? (uint64_t)v : hash_bytes(s->p, s->n);
	}
	if (s->type != V_STR)
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
	if (span_i64(s, &v))
		return (uint64_t)v;
	return hash_bytes(s->p, s->n);
}

/* A decimal number as JSON writes it, also with a leading '+', ".5" or "5."
 * (the forms tf_chrome_us_to_ns accepts); no hex, inf, nan or spaces. */
static bool is_decimal(const u8 *p, size_t n)
{
	size_t i = 0, d = 0;
	if (i < n && (p[i] == '-' || p[i] == '+'))
		i++;
	for (; i < n && is_digit[p[i]]; i++)
		d++;
	if (i < n && p[i] == '.')
		for (i++; i < n && is_digit[p[i]]; i++)
			d++;
	if (!d)
		return false;
	if (i < n && (p[i] == 'e' || p[i] == 'E')) {
		i++;
		if (i < n && (p[i] == '-' || p[i] == '+'))
			i++;
		if (i >= n || !is_digit[p[i]])
			return false;
		while (i < n && is_digit[p[i]])
			i++;
	}
	return i == n;
}

/* A finite number, written as a JSON number or as a numeric string (Bazel
 * writes counter values as "8.395000000000001"). */
static bool span_double(const span *s, double *out)
{
	if ((s->type != V_NUM && s->type != V_STR) || s->esc || s->n >= 64 || !is_decimal(s->p, s->n))
		return false;
	char b[64];
	memcpy(b, s->p, s->n);
	b[s->n] = 0;
	char *e;
	*out = strtod(b, &e);
	return *e == 0 && isfinite(*out);
}

/* ---- tracks ---- */

static bool is_gpu_name(const char *t, size_t n)
{
	return n >= 3 && memcmp(t, "GPU", 3) == 0;
}

static bool gpu_pid(const tf_chrome *r, tf_str pk)
{
	return tf_hmap_get(&r->gpu_pids, pk) != UINT32_MAX;
}

static int mark_gpu_process(tf_chrome *r, tf_str pk)
{
	if (gpu_pid(r, pk))
		return 0;
	if (tf_hmap_put(&r->gpu_pids, pk, 1) < 0)
		return TF_ENOMEM;
	for (uint32_t id = tf_ctx_process_first(r->ctx, r->input, pk); id != UINT32_MAX;
	     id = tf_ctx_process_next(r->ctx, id))
		tf_ctx_track_get(r->ctx, id)->kind = TF_TRACK_GPU;
	return 0;
}

static pending_thread *pending_find(tf_chrome *r, tf_str pk, tf_str tk, bool add)
{
	uint64_t key = (uint64_t)pk << 32 | tk;
	uint32_t i = tf_hmap_get(&r->pend_idx, key);
	if (i != UINT32_MAX)
		return &r->pend[i];
	if (!add)
		return NULL;
	if (tf_grow((void **)&r->pend, &r->cappend, r->npend + 1, sizeof(*r->pend)) < 0 ||
	    tf_hmap_put(&r->pend_idx, key, r->npend) < 0)
		return NULL;
	pending_thread *p = &r->pend[r->npend++];
	memset(p, 0, sizeof(*p));
	p->pk = pk;
	p->tk = tk;
	return p;
}

/* The existing track (input, pk, tk) of this input, or -1. */
static uint32_t track_find(tf_chrome *r, tf_str pk, tf_str tk)
{
	return tf_ctx_track_find(r->ctx, r->input, pk, tk);
}

static int track_for(tf_chrome *r, const span *pid, const span *tid, uint32_t *out)
{
	const char *pt, *tt;
	size_t pn, tn;
	TF_TRY(span_text(r, pid, 2, &pt, &pn));
	TF_TRY(span_text(r, tid, 3, &tt, &tn));
	if (r->tc_valid && pn == r->tc_pn && tn == r->tc_tn && memcmp(pt, r->tc_pid, pn) == 0 &&
	    memcmp(tt, r->tc_tid, tn) == 0) {
		*out = r->tc_track;
		return 0;
	}
	tf_str pk = pn ? tf_strtab_intern(r->st, pt, pn) : 0;
	tf_str tk = tn ? tf_strtab_intern(r->st, tt, tn) : 0;
	if (pk == (tf_str)-1 || tk == (tf_str)-1)
		return TF_ENOMEM;
	uint32_t before = tf_ctx_track_count(r->ctx);
	uint32_t id = tf_ctx_track(r->ctx, r->input, pk, tk);
	if (id == (uint32_t)-1)
		return TF_ENOMEM;
	if (tf_ctx_track_count(r->ctx) != before) {
		tf_track *t = tf_ctx_track_get(r->ctx, id);
		t->needs_sort = true;
		t->rank = r->rank;
		if (gpu_pid(r, pk) || (tn > 7 && memcmp(tt, "stream ", 7) == 0))
			t->kind = TF_TRACK_GPU;
		pending_thread *pt_ = pending_find(r, pk, tk, false);
		if (pt_) {
			if (pt_->has_name)
				t->thread_name = pt_->name;
			if (pt_->has_sort)
				t->sort_index = pt_->sort_index;
		}
	}
	if (pn <= CACHE_KEY && tn <= CACHE_KEY) {
		memcpy(r->tc_pid, pt, pn);
		memcpy(r->tc_tid, tt, tn);
		r->tc_pn = pn;
		r->tc_tn = tn;
		r->tc_track = id;
		r->tc_valid = true;
	} else {
		r->tc_valid = false;
	}
	*out = id;
	return 0;
}

static const char *const gpu_cats[] = {
	"kernel", "gpu_memcpy", "gpu_memset", "Kernel", "Memcpy", "Memset", NULL,
};

static bool cat_is_gpu(tf_chrome *r, tf_str cat)
{
	if (cat == 0)
		return false;
	if (cat >= r->catcls_cap) {
		size_t nc = r->catcls_cap ? r->catcls_cap : 64;
		while (nc <= cat)
			nc *= 2;
		uint8_t *n = realloc(r->catcls, nc);
		if (!n)
			return false;
		memset(n + r->catcls_cap, 0, nc - r->catcls_cap);
		r->catcls = n;
		r->catcls_cap = nc;
	}
	if (!r->catcls[cat]) {
		const char *t = tf_strtab_get(r->st, cat);
		r->catcls[cat] = 2;
		for (int i = 0; gpu_cats[i]; i++)
			if (strcmp(t, gpu_cats[i]) == 0)
				r->catcls[cat] = 1;
	}
	return r->catcls[cat] == 1;
}

/* ---- events ---- */

static int emit(tf_chrome *r, const tf_event *ev)
{
	int rc = tf_emit(r->ctx, r->sink, ev);
	if (rc == TF_ESTOP)
		r->stopped = true;
	return rc;
}

static int do_metadata(tf_chrome *r, const fields *f, tf_event *ev)
{
	span key, val, aname = { 0 }, asort = { 0 }, alabels = { 0 };
	if (f->args.type == V_OBJ) {
		objit it;
		obj_begin(&it, r, &f->args);
		while (obj_next(&it, &key, &val)) {
			if (span_is(&key, "name"))
				aname = val;
			else if (span_is(&key, "sort_index"))
				asort = val;
			else if (span_is(&key, "labels"))
				alabels = val;
		}
	}
	if (asort.type == V_NONE)
		asort = f->sort_index; /* rocprofiler writes it beside args */
	const span *nm = &f->name;
	bool pname = span_is(nm, "process_name"), tname = span_is(nm, "thread_name");
	bool tsort = span_is(nm, "thread_sort_index"), plabels = span_is(nm, "process_labels");
	if (pname || tname || tsort || plabels) {
		const char *pt;
		size_t pn;
		TF_TRY(span_text(r, &f->pid, 2, &pt, &pn));
		tf_str pk = pn ? tf_strtab_intern(r->st, pt, pn) : 0;
		if (pk == (tf_str)-1)
			return TF_ENOMEM;
		if (pname && aname.type == V_STR) {
			tf_str v;
			TF_TRY(intern_span(r, &aname, 0, &v));
			tf_ctx_set_process_name(r->ctx, r->input, pk, v);
			if (is_gpu_name(tf_strtab_get(r->st, v), tf_strtab_len(r->st, v)))
				TF_TRY(mark_gpu_process(r, pk));
		}
		if (plabels && alabels.type == V_STR && !alabels.esc && is_gpu_name((const char *)alabels.p, alabels.n))
			TF_TRY(mark_gpu_process(r, pk));
		int64_t si = 0;
		bool has_sort = tsort && span_i64(&asort, &si);
		if ((tname && aname.type == V_STR) || has_sort) {
			tf_str tk, v = 0;
			TF_TRY(intern_span(r, &f->tid, 3, &tk));
			if (tname)
				TF_TRY(intern_span(r, &aname, 0, &v));
			pending_thread *p = pending_find(r, pk, tk, true);
			if (!p)
				return TF_ENOMEM;
			if (tname) {
				p->name = v;
				p->has_name = true;
			} else {
				p->sort_index = si;
				p->has_sort = true;
			}
			uint32_t id = track_find(r, pk, tk);
			if (id != (uint32_t)-1) {
				tf_track *t = tf_ctx_track_get(r->ctx, id);
				if (tname)
					t->thread_name = v;
				else
					t->sort_index = si;
			}
		}
	}
	ev->kind = TF_EV_METADATA;
	ev->track = TF_TRACK_NONE;
	if (!span_ns(&f->ts, &ev->ts_ns))
		ev->ts_ns = 0;
	return emit(r, ev);
}

static int do_counter(tf_chrome *r, const fields *f, tf_event *ev)
{
	span key, val;
	objit it;
	int nnum = 0;
	double v;
	if (f->args.type == V_OBJ) {
		obj_begin(&it, r, &f->args);
		while (obj_next(&it, &key, &val))
			nnum += span_double(&val, &v);
	}
	if (nnum == 0) {
		tf_count_skip(r->ctx, TF_DIAG_bad_event);
		return 0;
	}
	const char *nt;
	size_t nn;
	TF_TRY(span_text(r, &f->name, 0, &nt, &nn));
	ev->kind = TF_EV_COUNTER;
	obj_begin(&it, r, &f->args);
	while (obj_next(&it, &key, &val)) {
		if (!span_double(&val, &ev->value))
			continue;
		if (nnum == 1) {
			ev->name = ev->name ? ev->name : (nn ? tf_strtab_intern(r->st, nt, nn) : 0);
		} else {
			const char *kt;
			size_t kn;
			TF_TRY(span_text(r, &key, 1, &kt, &kn));
			TF_TRY(grow(&r->tmp, &r->tmp_cap, nn + kn + 2));
			memcpy(r->tmp, nt, nn);
			r->tmp[nn] = '.';
			memcpy(r->tmp + nn + 1, kt, kn);
			ev->name = tf_strtab_intern(r->st, r->tmp, nn + 1 + kn);
		}
		if (ev->name == (tf_str)-1)
			return TF_ENOMEM;
		TF_TRY(emit(r, ev));
	}
	return 0;
}

/* One decoded event object (f) -> tf_emit / tf_count_skip. */
static int process_event(tf_chrome *r, const fields *f)
{
	uint64_t idx = r->index++;
	if (f->ph.type != V_STR || f->ph.n == 0) {
		tf_count_skip(r->ctx, TF_DIAG_bad_event);
		return 0;
	}
	u8 ph = f->ph.n == 1 ? f->ph.p[0] : 0;
	tf_event ev;
	memset(&ev, 0, sizeof(ev));
	ev.phase = ph;
	ev.index = idx;
	ev.msg.peer = -1;
	ev.msg.comm = -1;
	switch (ph) {
	case 'X': ev.kind = TF_EV_COMPLETE; break;
	case 'B': ev.kind = TF_EV_BEGIN; break;
	case 'E': ev.kind = TF_EV_END; break;
	case 'i': case 'I': ev.kind = TF_EV_INSTANT; break;
	case 'C': ev.kind = TF_EV_COUNTER; break;
	case 's': case 't': case 'f': ev.kind = TF_EV_FLOW; break;
	case 'b': case 'n': case 'e':
	case 'S': case 'T': case 'p': case 'F': ev.kind = TF_EV_ASYNC; break;
	case 'M': ev.kind = TF_EV_METADATA; break;
	default:
		tf_count_skip(r->ctx, TF_DIAG_ev_other);
		return 0;
	}
	TF_TRY(intern_span(r, &f->name, 0, &ev.name));
	TF_TRY(intern_span(r, &f->cat, 1, &ev.cat));
	if (ph == 'M')
		return do_metadata(r, f, &ev);
	if (ph == 'X' && ev.cat && ev.cat == r->trace_cat && !tf_ctx_opts(r->ctx)->keep_trace_span) {
		/* Kineto's "PyTorch Profiler (0)": the trace window, not work */
		tf_count_skip(r->ctx, TF_DIAG_trace_span);
		return 0;
	}
	int64_t end_ns;
	bool no_dur = ph == 'X' && (f->dur.type == V_NONE || span_is_null(&f->dur));
	if (!span_ns(&f->ts, &ev.ts_ns) || (ph == 'X' && !no_dur && !span_ns(&f->dur, &ev.dur_ns)) ||
	    (ph == 'X' && !no_dur && __builtin_add_overflow(ev.ts_ns, ev.dur_ns, &end_ns))) { /* ends beyond int64 ns */
		tf_count_skip(r->ctx, TF_DIAG_bad_event);
		return 0;
	}
	if (no_dur) /* still running when tracing stopped (Chrome writes these) */
		ev.dur_ns = TF_DUR_UNTIL_END;
	TF_TRY(track_for(r, &f->pid, &f->tid, &ev.track));
	if (cat_is_gpu(r, ev.cat))
		tf_ctx_track_get(r->ctx, ev.track)->kind = TF_TRACK_GPU;
	if (ev.kind == TF_EV_FLOW || ev.kind == TF_EV_ASYNC) {
		if (f->id.type)
			ev.id = span_id(&f->id);
		else if (f->id2.type == V_OBJ) {
			objit it;
			span k, v;
			obj_begin(&it, r, &f->id2);
			while (obj_next(&it, &k, &v))
				if (span_is(&k, "local") || span_is(&k, "global"))
					ev.id = span_id(&v);
		}
	}
	if (ph == 'C') {
		ev.name = 0; /* set per value */
		return do_counter(r, f, &ev);
	}
	return emit(r, &ev);
}

/* ---- top level ---- */

static int set_rank(tf_chrome *r, const span *obj)
{
	objit it;
	span k, v;
	int64_t rank;
	obj_begin(&it, r, obj);
	while (obj_next(&it, &k, &v)) {
		if (span_is(&k, "rank") && span_i64(&v, &rank)) {
			r->rank = rank;
			uint32_t nt = tf_ctx_track_count(r->ctx);
			for (uint32_t i = 0; i < nt; i++) {
				tf_track *t = tf_ctx_track_get(r->ctx, i);
				if (t->input == r->input)
					t->rank = rank;
			}
		}
	}
	return 0;
}

static void array_end(tf_chrome *r)
{
	r->state = r->object_form ? S_TOP_NEXT : S_DONE;
}

/* Feeds bytes to the resumable skip of a top-level value; returns bytes used
 * and sets state S_TOP_NEXT when the value ended. */
static size_t skip_feed(tf_chrome *r, const u8 *p, const u8 *end)
{
	const u8 *s = p;
	while (p < end) {
		u8 c = *p;
		if (r->sk_str) {
			p++;
			if (r->sk_esc)
				r->sk_esc = false;
			else if (c == '\\')
				r->sk_esc = true;
			else if (c == '"') {
				r->sk_str = false;
				if (r->sk_depth == 0)
					goto done;
			}
			continue;
		}
		if (r->sk_scalar) {
			if (is_scalar[c]) {
				p++;
				continue;
			}
			goto done;
		}
		p++;
		if (c == '"')
			r->sk_str = true;
		else if (c == '{' || c == '[')
			r->sk_depth++;
		else if ((c == '}' || c == ']') && --r->sk_depth == 0)
			goto done;
	}
	return (size_t)(p - s);
done:
	r->state = S_TOP_NEXT;
	return (size_t)(p - s);
}

/* q at an event's '{': parses and emits it (R_NEED if it is cut). */
static int read_event(tf_chrome *r, const u8 *q, const u8 *end, const u8 **np)
{
	fields f;
	int rc = parse_event(r, q, end, &f, np);
	if (rc != R_OK)
		return rc;
	r->state = S_ARR_NEXT;
	r->nl = false;
	return process_event(r, &f);
}

/* One unit at the current state.  R_OK: *np is where the next starts.
 * R_NEED: the unit is cut by `end`; nothing was changed. */
static int step(tf_chrome *r, const u8 *p, const u8 *end, const u8 **np)
{
	const u8 *q = p;
	if (r->state == S_TOP_SKIP) {
		*np = p + skip_feed(r, p, end);
		return R_OK;
	}
	if (r->state == S_START && *q == 0xEF) {
		if (end - q < 3)
			return R_NEED;
		if (q[1] != 0xBB || q[2] != 0xBF)
			return fail_char(r, q, "not a JSON trace");
		*np = q + 3;
		return R_OK;
	}
	SKIP_WS(q, end);
	if (r->state == S_ARR_NEXT && memchr(p, '\n', (size_t)(q - p)))
		r->nl = true;
	if (q >= end) {
		*np = q;
		return R_OK;
	}
	u8 c = *q;
	switch (r->state) {
	case S_START:
		if (c == '[') {
			r->state = S_ARR_FIRST;
		} else if (c == '{') {
			/* JSON lines with no enclosing array: the first object's
			 * first key is an event field, not a top-level key */
			const u8 *k = q + 1, *after;
			SKIP_WS(k, end);
			if (k >= end)
				return R_NEED;
			if (*k == '"') {
				span key;
				fields unused;
				int rc = parse_string(k, end, &key, &after);
				if (rc != R_OK)
					return rc;
				if (field_for(&unused, &key)) {
					r->lines = true;
					return read_event(r, q, end, np);
				}
			}
			r->object_form = true;
			r->state = S_TOP_KEY_FIRST;
		} else {
			return fail_char(r, q, "not a JSON trace: expected '[' or '{'");
		}
		*np = q + 1;
		return R_OK;
	case S_TOP_KEY_FIRST:
	case S_TOP_KEY:
		if (c == '}') {
			r->state = S_DONE;
			*np = q + 1;
			return R_OK;
		}
		if (c != '"')
			return fail_char(r, q, "expected a quoted key at the top level");
		{
			span k;
			int rc = parse_string(q, end, &k, np);
			if (rc != R_OK)
				return rc;
			r->topkey = span_is(&k, "traceEvents") ? K_TRACE_EVENTS
				    : span_is(&k, "distributedInfo") ? K_DIST_INFO : K_OTHER;
		}
		r->state = S_TOP_COLON;
		return R_OK;
	case S_TOP_COLON:
		if (c != ':')
			return fail_char(r, q, "expected ':' after a top-level key");
		r->state = S_TOP_VALUE;
		*np = q + 1;
		return R_OK;
	case S_TOP_VALUE:
		if (r->topkey == K_TRACE_EVENTS) {
			if (c != '[')
				return fail_char(r, q, "\"traceEvents\" is not an array");
			r->has_events = true;
			r->state = S_ARR_FIRST;
			*np = q + 1;
			return R_OK;
		}
		if (r->topkey == K_DIST_INFO && c == '{') {
			span v;
			int rc = get_value(r, q, end, &v, np);
			if (rc != R_OK)
				return rc;
			set_rank(r, &v);
			r->state = S_TOP_NEXT;
			return R_OK;
		}
		r->sk_depth = 0;
		r->sk_str = r->sk_esc = r->sk_scalar = false;
		if (c == '"' || c == '{' || c == '[') {
			if (c == '"')
				r->sk_str = true;
			else
				r->sk_depth = 1;
			q++;
		} else if (is_scalar[c]) {
			r->sk_scalar = true;
		} else {
			return fail_char(r, q, "expected a JSON value");
		}
		r->state = S_TOP_SKIP;
		*np = q + skip_feed(r, q, end);
		return R_OK;
	case S_TOP_NEXT:
		if (c == ',')
			r->state = S_TOP_KEY;
		else if (c == '}')
			r->state = S_DONE;
		else
			return fail_char(r, q, "expected ',' or '}' at the top level");
		*np = q + 1;
		return R_OK;
	case S_ARR_FIRST:
	case S_ARR_ELEM:
		if (c == ']') {
			array_end(r);
			*np = q + 1;
			return R_OK;
		}
		if (c == '{') {
			return read_event(r, q, end, np);
		} else {
			span v;
			int rc = get_value(r, q, end, &v, np);
			if (rc != R_OK)
				return rc;
			r->state = S_ARR_NEXT;
			r->index++;
			tf_count_skip(r->ctx, TF_DIAG_bad_event);
			return R_OK;
		}
	case S_ARR_NEXT:
		if (c == '{' && (r->lines || r->nl)) {
			/* JSON lines (DFTracer .pfw): one event per line, no commas */
			r->lines = true;
			return read_event(r, q, end, np);
		}
		if (c == ',')
			r->state = S_ARR_ELEM;
		else if (c == ']')
			array_end(r);
		else
			return fail_char(r, q, "expected ',' or ']' after an event");
		*np = q + 1;
		return R_OK;
	case S_DONE:
	default:
		return fail_char(r, q, "unexpected data after the end of the trace");
	}
}

static int carry_append(tf_chrome *r, const u8 *p, size_t n)
{
	if (r->carry_len + n > r->carry_cap) {
		size_t nc = r->carry_cap ? r->carry_cap : 2 * WANT0;
		while (nc < r->carry_len + n)
			nc *= 2;
		u8 *nb = realloc(r->carry, nc);
		if (!nb)
			return tf_error_set(r->err, TF_ENOMEM, r->path, -1, -1, "out of memory");
		r->carry = nb;
		r->carry_cap = nc;
	}
	memcpy(r->carry + r->carry_len, p, n);
	r->carry_len += n;
	return 0;
}

/* Parses units from buf (absolute offset base) until it is used up. */
static int run(tf_chrome *r, const u8 *buf, size_t len, int64_t base)
{
	const u8 *p = buf, *end = buf + len, *np;
	r->buf0 = buf;
	r->buf_base = base;
	while (p < end) {
		int rc = step(r, p, end, &np);
		if (rc == R_OK) {
			p = np;
			continue;
		}
		if (rc == R_NEED) {
			r->carry_len = 0;
			r->retry_at = 0;
			r->carry_off = base + (p - buf);
			return carry_append(r, p, (size_t)(end - p));
		}
		return rc;
	}
	return 0;
}

int tf_chrome_feed(tf_chrome *r, const unsigned char *data, size_t n, tf_error *err)
{
	r->err = err;
	if (r->stopped)
		return TF_ESTOP;
	int64_t base = r->base;
	r->base += (int64_t)n;
	size_t pos = 0;
	while (r->carry_len) {
		/* A unit cut by the end of a chunk is parsed again only when
		 * the carry has grown to retry_at, which doubles after every
		 * failed try: a huge event costs O(its size), not O(size x
		 * chunks). */
		size_t l0 = r->carry_len, cur = 0;
		bool done = false;
		for (;;) {
			size_t target = r->retry_at > r->carry_len ? r->retry_at : r->carry_len + WANT0;
			size_t add = target - r->carry_len;
			if (add > n - cur)
				add = n - cur;
			TF_TRY(carry_append(r, data + cur, add));
			cur += add;
			if (r->carry_len < target) {
				r->untried = true;
				return 0; /* all of this chunk is in the carry: wait for more */
			}
			r->untried = false;
			r->buf0 = r->carry;
			r->buf_base = r->carry_off;
			const u8 *np;
			int rc = step(r, r->carry, r->carry + r->carry_len, &np);
			if (rc == R_OK) {
				size_t used = (size_t)(np - r->carry);
				r->retry_at = 0;
				if (used >= l0) { /* the unit needed bytes of this chunk */
					pos = used - l0;
					r->carry_len = 0;
					done = true;
					break;
				}
				if (used == 0)
					return fail_at(r, r->carry, "internal error: no progress");
				/* the unit ended inside the old carry (it looked ahead):
				 * keep the rest of the carry and go on from there */
				memmove(r->carry, r->carry + used, l0 - used);
				r->carry_len = l0 - used;
				r->carry_off += (int64_t)used;
				break;
			}
			if (rc != R_NEED)
				return rc;
			r->retry_at = 2 * r->carry_len;
			if (cur == n)
				return 0;
		}
		if (done)
			break;
	}
	return run(r, data + pos, n - pos, base + (int64_t)pos);
}

int tf_chrome_finish(tf_chrome *r, tf_error *err)
{
	r->err = err;
	if (r->stopped)
		return TF_ESTOP;
	if (r->carry_len && r->untried) {
		/* bytes held back until the carry grew: parse what there is */
		u8 *buf = r->carry;
		size_t len = r->carry_len;
		int64_t off = r->carry_off;
		r->carry = NULL;
		r->carry_len = r->carry_cap = 0;
		r->retry_at = 0;
		r->untried = false;
		int rc = run(r, buf, len, off);
		free(buf);
		if (rc < 0)
			return rc;
		if (r->stopped)
			return TF_ESTOP;
	}
	if (r->carry_len) {
		if (r->state == S_ARR_FIRST || r->state == S_ARR_ELEM)
			tf_count_skip(r->ctx, TF_DIAG_truncated_record);
		else if (r->state == S_START)
			return tf_error_set(err, TF_EFORMAT, r->path, r->carry_off, -1, "not a JSON trace");
		r->carry_len = 0;
	}
	if (r->state == S_START)
		return tf_error_set(err, TF_EFORMAT, r->path, r->base, -1, "empty input: no JSON trace");
	if (r->object_form && !r->has_events)
		return tf_error_set(err, TF_EFORMAT, r->path, r->base, -1,
				    "a JSON object without a \"traceEvents\" array is not a trace "
				    "(expected {\"traceEvents\": [...]} or a bare array of events)");
	return 0;
}

tf_chrome *tf_chrome_new(const char *path, uint32_t input, tf_ctx *ctx, tf_sink *sink)
{
	tf_chrome *r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->ctx = ctx;
	r->st = tf_ctx_strtab(ctx);
	r->sink = sink;
	r->input = input;
	snprintf(r->path, sizeof(r->path), "%s", path ? path : "");
	r->state = S_START;
	r->rank = -1;
	r->trace_cat = tf_strtab_intern_cstr(r->st, "Trace");
	if (r->trace_cat == (tf_str)-1) {
		free(r);
		return NULL;
	}
	return r;
}

void tf_chrome_free(tf_chrome *r)
{
	if (!r)
		return;
	free(r->carry);
	for (int i = 0; i < NSCRATCH; i++)
		free(r->scr[i]);
	free(r->tmp);
	free(r->catcls);
	tf_hmap_free(&r->gpu_pids);
	tf_hmap_free(&r->pend_idx);
	free(r->pend);
	free(r);
}

int tf_chrome_parse_buffer(const char *path, uint32_t input, tf_ctx *ctx, tf_sink *sink,
			   const void *data, size_t n, size_t chunk, tf_error *err)
{
	tf_chrome *r = tf_chrome_new(path, input, ctx, sink);
	if (!r)
		return tf_error_set(err, TF_ENOMEM, path, -1, -1, "out of memory");
	if (chunk == 0)
		chunk = n ? n : 1;
	int rc = 0;
	for (size_t off = 0; off < n && rc == 0; off += chunk)
		rc = tf_chrome_feed(r, (const u8 *)data + off, n - off < chunk ? n - off : chunk, err);
	if (rc == 0)
		rc = tf_chrome_finish(r, err);
	tf_chrome_free(r);
	return rc;
}

/* ---- sniff and read ---- */

static bool head_has(const unsigned char *h, size_t n, const char *lit)
{
	size_t k = strlen(lit);
	for (size_t i = 0; i + k <= n; i++)
		if (memcmp(h + i, lit, k) == 0)
			return true;
	return false;
}

int tf_chrome_sniff(const unsigned char *h, size_t n)
{
	size_t i = 0;
	if (n >= 3 && h[0] == 0xEF && h[1] == 0xBB && h[2] == 0xBF)
		i = 3;
	while (i < n && is_ws[h[i]])
		i++;
	if (i >= n || (h[i] != '[' && h[i] != '{'))
		return TF_SNIFF_NO;
	u8 open = h[i++];
	while (i < n && is_ws[h[i]])
		i++;
	if (i >= n)
		return TF_SNIFF_MAYBE;
	if (open == '[')
		return h[i] == '{' ? TF_SNIFF_YES : TF_SNIFF_MAYBE;
	if (h[i] != '"')
		return h[i] == '}' ? TF_SNIFF_MAYBE : TF_SNIFF_NO;
	/* keys that only trace-event JSON has (Chrome, Kineto, rocprofiler) */
	static const char *const keys[] = {
		"\"traceEvents\"", "\"ph\"", "\"schemaVersion\"", "\"deviceProperties\"",
		"\"displayTimeUnit\"", "\"otherData\"", "\"systemTraceEvents\"", "\"distributedInfo\"",
		"\"baseTimeNanoseconds\"", NULL,
	};
	for (int k = 0; keys[k]; k++)
		if (head_has(h + i, n - i, keys[k]))
			return TF_SNIFF_YES;
	return TF_SNIFF_MAYBE;
}

static int sniff(const char *path, int is_dir, const unsigned char *head, size_t n)
{
	if (is_dir)
		return TF_SNIFF_NO;
	return tf_chrome_sniff(head, n);
}

static int read_input(const char *path, uint32_t input, tf_ctx *ctx, tf_sink *sink, tf_error *err)
{
	tf_in *in;
	TF_TRY(tf_in_open(&in, path, err));
	tf_chrome *r = tf_chrome_new(path, input, ctx, sink);
	if (!r) {
		tf_in_close(in);
		return tf_error_set(err, TF_ENOMEM, path, -1, -1, "out of memory");
	}
	int rc;
	for (;;) {
		const unsigned char *data;
		ptrdiff_t n = tf_in_chunk(in, &data, err);
		if (n <= 0) {
			rc = (int)n;
			break;
		}
		rc = tf_chrome_feed(r, data, (size_t)n, err);
		if (rc < 0)
			break;
	}
	uint64_t cut = tf_ctx_diag(ctx)->n[TF_DIAG_truncated_record];
	if (rc == 0)
		rc = tf_chrome_finish(r, err);
	if (rc == 0 && tf_in_truncated(in)) {
		/* the events before the cut are read; the lost rest counts as
		 * one truncated record unless the cut one already did */
		if (tf_ctx_diag(ctx)->n[TF_DIAG_truncated_record] == cut)
			tf_count_skip(ctx, TF_DIAG_truncated_record);
		tf_ctx_note(ctx, "'%s': gzip data ends early (truncated file) after %llu bytes of JSON: "
			    "the events before the cut are read", path, (unsigned long long)tf_in_offset(in));
	}
	tf_chrome_free(r);
	tf_in_close(in);
	return rc;
}

const tf_format tf_format_chrome = {
	"chrome", "Chrome trace-event JSON (Chrome, Perfetto, PyTorch/Kineto, rocprofiler, TAU json)",
	sniff, read_input,
};
