/* chrome.c - streaming reader of Chrome trace-event JSON (Chrome, Perfetto
 * exports, PyTorch/Kineto, rocprofiler, TAU's tau_trace2json): the parser.
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
 * - No DOM: the JSON tokenizer (json.h, json.c) returns spans (views into
 *   the buffer) of the fields we use; every other value, `args` included, is
 *   skipped by its bracket/string scanner (SSE2 where available).  `args` is
 *   only looked into for counters (C), metadata (M) and nothing else.  The
 *   tokenizer's errors (a code, the byte at fault, a message) become a
 *   tf_error here, with the byte's offset in the input.
 * - No per-event allocation: names are interned (tf_strtab), strings with
 *   escapes are decoded into reusable scratch buffers, the last (pid, tid)
 *   -> track lookup is cached (chrome_tracks.c: tracks, metadata, GPU).
 */
#include <stdlib.h>
#include <string.h>
#include "tracefold/io.h"
#include "chrome_int.h"

typedef unsigned char u8;

/* step/parse results: the tokenizer's OK and NEED; negative values are
 * TF_E* codes (a tokenizer error is turned into one at once) */
enum { R_OK = TF_JSON_OK, R_NEED = TF_JSON_NEED };

enum {
	S_START, S_TOP_KEY_FIRST, S_TOP_KEY, S_TOP_COLON, S_TOP_VALUE, S_TOP_SKIP, S_TOP_NEXT,
	S_ARR_FIRST, S_ARR_ELEM, S_ARR_NEXT, S_DONE,
};
enum { K_OTHER, K_TRACE_EVENTS, K_DIST_INFO };

#define WANT0 4096u
#define US_TO_NS 3 /* decimal places from microseconds to nanoseconds */

/* ---- errors ---- */

/* r->jerr (the tokenizer's error, or one of ours) as r->err. */
static int fail_json(tf_chrome *r)
{
	int64_t off = r->buf_base + (r->jerr.at - r->buf0);
	return tf_error_set(r->err, TF_EFORMAT, r->path, off, (int64_t)r->index, "%s", r->jerr.msg);
}

/* A tokenizer result: OK and NEED as they are, an error as r->err. */
static inline int json_rc(tf_chrome *r, int rc)
{
	return rc < 0 ? fail_json(r) : rc;
}

static int fail_at(tf_chrome *r, const u8 *at, const char *what)
{
	tf_json_fail(&r->jerr, TF_JSON_ESYNTAX, at, what, false);
	return fail_json(r);
}

/* what, and the byte at `at` */
static int fail_char(tf_chrome *r, const u8 *at, const char *what)
{
	tf_json_fail(&r->jerr, TF_JSON_ESYNTAX, at, what, true);
	return fail_json(r);
}

/* ---- event fields ---- */

static inline tf_json_span *field_for(tf_chrome_fields *f, const tf_json_span *k)
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
static int parse_event(tf_chrome *r, const u8 *p, const u8 *end, tf_chrome_fields *f, const u8 **out)
{
	memset(f, 0, sizeof(*f));
	p++;
	p = tf_json_skip_ws(p, end);
	if (p >= end)
		return R_NEED;
	if (*p == '}') {
		*out = p + 1;
		return R_OK;
	}
	for (;;) {
		if (*p != '"')
			return fail_char(r, p, "expected a quoted key in an event");
		tf_json_span k, tmp;
		int rc = tf_json_string(p, end, &k, &p);
		if (rc != R_OK)
			return rc;
		p = tf_json_skip_ws(p, end);
		if (p >= end)
			return R_NEED;
		if (*p != ':')
			return fail_char(r, p, "expected ':' after a key");
		p++;
		p = tf_json_skip_ws(p, end);
		if (p >= end)
			return R_NEED;
		tf_json_span *dst = field_for(f, &k);
		rc = tf_json_value(p, end, dst ? dst : &tmp, &p, &r->jerr);
		if (rc != R_OK)
			return json_rc(r, rc);
		p = tf_json_skip_ws(p, end);
		if (p >= end)
			return R_NEED;
		if (*p == ',') {
			p++;
			p = tf_json_skip_ws(p, end);
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

/* ---- strings ---- */

static int grow(char **buf, size_t *cap, size_t need)
{
	return tf_grow_n((void **)buf, cap, need, 1, false) < 0 ? TF_ENOMEM : 0;
}

int tf_chrome_text(tf_chrome *r, const tf_json_span *s, int slot, const char **t, size_t *n)
{
	if (s->type == TF_JSON_STRING && s->esc) {
		if (grow(&r->scr[slot], &r->scr_cap[slot], s->n + 1) < 0)
			return TF_ENOMEM;
		*n = tf_json_unescape(s->p, s->n, r->scr[slot]);
		*t = r->scr[slot];
		return 0;
	}
	if (s->type == TF_JSON_STRING || s->type == TF_JSON_NUMBER) {
		*t = (const char *)s->p;
		*n = s->n;
		return 0;
	}
	*t = "";
	*n = 0;
	return 0;
}

int tf_chrome_intern(tf_chrome *r, const tf_json_span *s, int slot, tf_str *out)
{
	const char *t;
	size_t n;
	TF_TRY(tf_chrome_text(r, s, slot, &t, &n));
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

int tf_chrome_us_to_ns(const char *s, size_t n, int64_t *ns_out)
{
	return tf_json_decimal_scaled(s, n, US_TO_NS, ns_out);
}

static inline bool span_ns(const tf_json_span *s, int64_t *ns)
{
	return tf_json_scaled(s, US_TO_NS, ns);
}

/* ---- events ---- */

static int emit(tf_chrome *r, const tf_event *ev)
{
	int rc = tf_emit(r->ctx, r->sink, ev);
	if (rc == TF_ESTOP)
		r->stopped = true;
	return rc;
}

static int do_counter(tf_chrome *r, const tf_chrome_fields *f, tf_event *ev)
{
	tf_json_span key, val;
	tf_json_iter it;
	int nnum = 0;
	double v;
	if (f->args.type == TF_JSON_OBJECT) {
		tf_json_iter_begin(&it, &f->args);
		while (tf_json_iter_next(&it, &key, &val))
			nnum += tf_json_double(&val, &v);
	}
	if (nnum == 0) {
		tf_count_skip(r->ctx, TF_DIAG_bad_event);
		return 0;
	}
	const char *nt;
	size_t nn;
	TF_TRY(tf_chrome_text(r, &f->name, 0, &nt, &nn));
	ev->kind = TF_EV_COUNTER;
	tf_json_iter_begin(&it, &f->args);
	while (tf_json_iter_next(&it, &key, &val)) {
		if (!tf_json_double(&val, &ev->value))
			continue;
		if (nnum == 1) {
			ev->name = ev->name ? ev->name : (nn ? tf_strtab_intern(r->st, nt, nn) : 0);
		} else {
			const char *kt;
			size_t kn;
			TF_TRY(tf_chrome_text(r, &key, 1, &kt, &kn));
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

/* A Kineto Python frame's "Python id" and "Python parent id" (0: none). */
static void python_ids(const tf_chrome_fields *f, tf_event *ev)
{
	if (f->args.type != TF_JSON_OBJECT)
		return;
	tf_json_iter it;
	tf_json_span key, val;
	tf_json_iter_begin(&it, &f->args);
	while (tf_json_iter_next(&it, &key, &val))
		if (tf_json_is(&key, "Python id"))
			ev->id = tf_json_id(&val);
		else if (tf_json_is(&key, "Python parent id"))
			ev->parent_id = tf_json_id(&val);
}

/* args.correlation of a GPU activity or launch (Kineto), 0 when none. */
static uint64_t correlation(const tf_chrome_fields *f)
{
	if (f->args.type != TF_JSON_OBJECT)
		return 0;
	tf_json_iter it;
	tf_json_span key, val;
	tf_json_iter_begin(&it, &f->args);
	while (tf_json_iter_next(&it, &key, &val))
		if (tf_json_is(&key, "correlation"))
			return tf_json_id(&val);
	return 0;
}

/* One decoded event object (f) -> tf_emit / tf_count_skip. */
static int process_event(tf_chrome *r, const tf_chrome_fields *f)
{
	uint64_t idx = r->index++;
	if (f->ph.type != TF_JSON_STRING || f->ph.n == 0) {
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
	TF_TRY(tf_chrome_intern(r, &f->name, 0, &ev.name));
	TF_TRY(tf_chrome_intern(r, &f->cat, 1, &ev.cat));
	if (ph == 'M') {
		TF_TRY(tf_chrome_metadata(r, f));
		ev.track = TF_TRACK_NONE;
		if (!span_ns(&f->ts, &ev.ts_ns))
			ev.ts_ns = 0;
		return emit(r, &ev);
	}
	if (ev.kind == TF_EV_INSTANT && ev.name == r->memory_name && f->args.type == TF_JSON_OBJECT) {
		/* Kineto: args.Bytes allocated (negative: freed) */
		tf_json_iter it;
		tf_json_span k, v;
		tf_json_iter_begin(&it, &f->args);
		while (tf_json_iter_next(&it, &k, &v))
			if (tf_json_is(&k, "Bytes") && tf_json_double(&v, &ev.value)) {
				ev.flags |= TF_EVF_MEMORY;
				break;
			}
	}
	if (ph == 'X' && ev.cat && ev.cat == r->trace_cat && !tf_ctx_opts(r->ctx)->keep_trace_span) {
		/* Kineto's "PyTorch Profiler (0)": the trace window, not work */
		tf_count_skip(r->ctx, TF_DIAG_trace_span);
		return 0;
	}
	int64_t end_ns;
	bool no_dur = ph == 'X' && (f->dur.type == TF_JSON_NONE || tf_json_is_null(&f->dur));
	if (!span_ns(&f->ts, &ev.ts_ns) || (ph == 'X' && !no_dur && !span_ns(&f->dur, &ev.dur_ns)) ||
	    (ph == 'X' && !no_dur && __builtin_add_overflow(ev.ts_ns, ev.dur_ns, &end_ns))) { /* ends beyond int64 ns */
		tf_count_skip(r->ctx, TF_DIAG_bad_event);
		return 0;
	}
	if (no_dur) /* still running when tracing stopped (Chrome writes these) */
		ev.dur_ns = TF_DUR_UNTIL_END;
	TF_TRY(tf_chrome_track_for(r, &f->pid, &f->tid, &ev.track));
	int cls = tf_chrome_cat_class(r, ev.cat);
	if (cls == CAT_GPU || cls == CAT_SYNC || cls == CAT_GPU_LABEL)
		tf_ctx_track_get(r->ctx, ev.track)->kind = TF_TRACK_GPU;
	if (cls != CAT_OTHER && (ph == 'X' || ph == 'B'))
		TF_TRY(tf_chrome_note_class(r, ev.track, cls));
	if (cls == CAT_PYTHON && ph == 'X')
		python_ids(f, &ev);
	if ((cls == CAT_GPU || cls == CAT_LAUNCH || cls == CAT_GPU_LABEL || cls == CAT_SYNC) && (ph == 'X' || ph == 'B')) {
		if (cls == CAT_GPU_LABEL)
			ev.flags |= TF_EVF_GPU_LABEL;
		ev.corr = correlation(f);
	}
	if (ev.kind == TF_EV_FLOW || ev.kind == TF_EV_ASYNC) {
		if (f->id.type)
			ev.id = tf_json_id(&f->id);
		else if (f->id2.type == TF_JSON_OBJECT) {
			tf_json_iter it;
			tf_json_span k, v;
			tf_json_iter_begin(&it, &f->id2);
			while (tf_json_iter_next(&it, &k, &v))
				if (tf_json_is(&k, "local") || tf_json_is(&k, "global"))
					ev.id = tf_json_id(&v);
		}
	}
	if (ph == 'C') {
		ev.name = 0; /* set per value */
		return do_counter(r, f, &ev);
	}
	return emit(r, &ev);
}

/* ---- top level ---- */

static void array_end(tf_chrome *r)
{
	r->state = r->object_form ? S_TOP_NEXT : S_DONE;
}

/* Feeds bytes to the resumable skip of a top-level value; returns bytes used
 * and sets state S_TOP_NEXT when the value ended. */
static size_t skip_feed(tf_chrome *r, const u8 *p, const u8 *end)
{
	bool done;
	size_t n = tf_json_skip_feed(&r->skip, p, end, &done);
	if (done)
		r->state = S_TOP_NEXT;
	return n;
}

/* q at an event's '{': parses and emits it (R_NEED if it is cut). */
static int read_event(tf_chrome *r, const u8 *q, const u8 *end, const u8 **np)
{
	tf_chrome_fields f;
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
	q = tf_json_skip_ws(q, end);
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
			k = tf_json_skip_ws(k, end);
			if (k >= end)
				return R_NEED;
			if (*k == '"') {
				tf_json_span key;
				tf_chrome_fields unused;
				int rc = tf_json_string(k, end, &key, &after);
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
			tf_json_span k;
			int rc = tf_json_string(q, end, &k, np);
			if (rc != R_OK)
				return rc;
			r->topkey = tf_json_is(&k, "traceEvents") ? K_TRACE_EVENTS
				    : tf_json_is(&k, "distributedInfo") ? K_DIST_INFO : K_OTHER;
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
			tf_json_span v;
			int rc = tf_json_value(q, end, &v, np, &r->jerr);
			if (rc != R_OK)
				return json_rc(r, rc);
			tf_chrome_set_rank(r, &v);
			r->state = S_TOP_NEXT;
			return R_OK;
		}
		{
			int used = tf_json_skip_begin(&r->skip, q, &r->jerr);
			if (used < 0)
				return fail_json(r);
			q += used;
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
			tf_json_span v;
			int rc = tf_json_value(q, end, &v, np, &r->jerr);
			if (rc != R_OK)
				return json_rc(r, rc);
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
	if (tf_grow_n((void **)&r->carry, &r->carry_cap, r->carry_len + n, 1, false) < 0)
		return tf_error_set(r->err, TF_ENOMEM, r->path, -1, -1, "out of memory");
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
		if (r->state == S_ARR_FIRST || r->state == S_ARR_ELEM) {
			tf_count_skip(r->ctx, TF_DIAG_truncated_record);
		} else if (r->state == S_START) {
			/* at the first byte that is not whitespace, wherever the
			 * chunks ended (whitespace before it may not be carried) */
			size_t k = 0;
			while (k < r->carry_len && (r->carry[k] == ' ' || r->carry[k] == '\t' ||
						    r->carry[k] == '\n' || r->carry[k] == '\r'))
				k++;
			return tf_error_set(err, TF_EFORMAT, r->path, r->carry_off + (int64_t)k, -1,
					    "not a JSON trace");
		}
		r->carry_len = 0;
	}
	if (r->state == S_START)
		return tf_error_set(err, TF_EFORMAT, r->path, r->base, -1, "empty input: no JSON trace");
	if (r->object_form && !r->has_events)
		return tf_error_set(err, TF_EFORMAT, r->path, r->base, -1,
				    "a JSON object without a \"traceEvents\" array is not a trace "
				    "(expected {\"traceEvents\": [...]} or a bare array of events)");
	tf_chrome_settle_gpu(r);
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
	r->memory_name = tf_strtab_intern_cstr(r->st, "[memory]");
	if (r->trace_cat == (tf_str)-1 || r->memory_name == (tf_str)-1) {
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
	free(r->trkcls);
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
	while (i < n && tf_json_ws[h[i]])
		i++;
	if (i >= n || (h[i] != '[' && h[i] != '{'))
		return TF_SNIFF_NO;
	u8 open = h[i++];
	while (i < n && tf_json_ws[h[i]])
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

static int sniff(const char *path, int is_dir, const unsigned char *head, size_t n, bool whole)
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
	.name = "chrome",
	.description = "Chrome trace-event JSON (Chrome, Perfetto, PyTorch/Kineto, rocprofiler, TAU json)",
	.sniff = sniff,
	.read = read_input, /* one part */
};
