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
 *   only looked into for counters (C), metadata (M) and nothing else
 *   (chrome_event.c: an event's fields, strings, numbers, the tf_event).  The
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

enum {
	S_START, S_TOP_KEY_FIRST, S_TOP_KEY, S_TOP_COLON, S_TOP_VALUE, S_TOP_SKIP, S_TOP_NEXT,
	S_ARR_FIRST, S_ARR_ELEM, S_ARR_NEXT, S_DONE,
};
enum { K_OTHER, K_TRACE_EVENTS, K_DIST_INFO, K_BASE_TIME };
#define WANT0 4096u

/* ---- errors ---- */

int tf_chrome_fail_json(tf_chrome *r)
{
	int64_t off = r->buf_base + (r->jerr.at - r->buf0);
	return tf_error_set(r->err, TF_EFORMAT, r->path, off, (int64_t)r->index, "%s", r->jerr.msg);
}

static int fail_at(tf_chrome *r, const u8 *at, const char *what)
{
	tf_json_fail(&r->jerr, TF_JSON_ESYNTAX, at, what, false);
	return tf_chrome_fail_json(r);
}

int tf_chrome_fail_char(tf_chrome *r, const u8 *at, const char *what)
{
	tf_json_fail(&r->jerr, TF_JSON_ESYNTAX, at, what, true);
	return tf_chrome_fail_json(r);
}

/* ---- top level ---- */

static void array_end(tf_chrome *r)
{
	r->state = r->object_form ? S_TOP_NEXT : S_DONE;
}

/* Feeds bytes to the resumable skip of a top-level value (checked as
 * strict JSON); *np after the bytes used, state S_TOP_NEXT when the value
 * ended. */
static int skip_feed(tf_chrome *r, const u8 *p, const u8 *end, const u8 **np)
{
	bool done;
	ptrdiff_t n = tf_json_skip_feed(&r->skip, p, end, &done, &r->jerr);
	if (n < 0)
		return tf_chrome_fail_json(r);
	if (done)
		r->state = S_TOP_NEXT;
	*np = p + n;
	return R_OK;
}

/* Stage 1's read_event: the event's fields (or, while stage 2 has time
 * for it, only its end: tf_chrome_pipe_end) into the queue; its index
 * counted as stage 2 will.  An event whose end that scan does not find
 * (near end, a backslash) is tokenized here. */
static int pipe_event(tf_chrome *r, const u8 *q, const u8 *end, const u8 **np)
{
	tf_chrome_fields *fp = NULL;
	if (!tf_chrome_pipe_raw(r) || !tf_chrome_pipe_end(q, end, np)) {
		TF_TRY(tf_chrome_pipe_fields(r, &fp));
		int rc = tf_chrome_parse_event(r, q, end, fp, np);
		if (rc != R_OK)
			return rc;
	}
	r->state = S_ARR_NEXT;
	r->nl = false;
	TF_TRY(tf_chrome_pipe_event(r, q, *np, fp));
	r->index++;
	return R_OK;
}

/* q at an event's '{': parses and emits it (R_NEED if it is cut). */
static int read_event(tf_chrome *r, const u8 *q, const u8 *end, const u8 **np)
{
	if (r->pipe)
		return pipe_event(r, q, end, np);
	tf_chrome_fields f;
	int rc = tf_chrome_parse_event(r, q, end, &f, np);
	if (rc != R_OK)
		return rc;
	r->state = S_ARR_NEXT;
	r->nl = false;
	return tf_chrome_process_event(r, &f);
}

/* What a top-level value of key `key` says (stage 2's, or the only stage). */
void tf_chrome_top_value(tf_chrome *r, int key, const tf_json_span *v)
{
	int64_t ns;
	if (key == K_DIST_INFO) {
		tf_chrome_set_rank(r, v);
	} else if (key == K_BASE_TIME) {
		/* Kineto: the wall-clock ns of ts 0 (telemetry is put on the
		 * trace's clock by it: docs/telemetry.md) */
		if (tf_json_scaled(v, 0, &ns))
			tf_ctx_set_wall_base(r->ctx, ns, r->path, "Kineto baseTimeNanoseconds");
	}
}

static int top_value(tf_chrome *r, const tf_json_span *v)
{
	if (r->pipe)
		return tf_chrome_pipe_top(r, r->topkey, v);
	tf_chrome_top_value(r, r->topkey, v);
	return 0;
}

/* The first character of the trace: '[' (an array of events), '{' (an
 * object with a traceEvents array, or JSON lines with no array). */
static int top_start(tf_chrome *r, const u8 *q, const u8 *end, const u8 **np)
{
	u8 c = *q;
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
			if (tf_chrome_field_for(&unused, &key)) {
				r->lines = true;
				return read_event(r, q, end, np);
			}
		}
		r->object_form = true;
		r->state = S_TOP_KEY_FIRST;
	} else {
		return tf_chrome_fail_char(r, q, "not a JSON trace: expected '[' or '{'");
	}
	*np = q + 1;
	return R_OK;
}

/* One unit at the current state.  R_OK: *np is where the next starts.
 * R_NEED: the unit is cut by `end`; nothing was changed. */
static int step(tf_chrome *r, const u8 *p, const u8 *end, const u8 **np)
{
	const u8 *q = p;
	if (r->state == S_TOP_SKIP)
		return skip_feed(r, p, end, np);
	if (r->state == S_START && *q == 0xEF) {
		if (end - q < 3)
			return R_NEED;
		if (q[1] != 0xBB || q[2] != 0xBF)
			return tf_chrome_fail_char(r, q, "not a JSON trace");
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
		return top_start(r, q, end, np);
	case S_TOP_KEY_FIRST:
	case S_TOP_KEY:
		if (c == '}') {
			r->state = S_DONE;
			*np = q + 1;
			return R_OK;
		}
		if (c != '"')
			return tf_chrome_fail_char(r, q, "expected a quoted key at the top level");
		{
			tf_json_span k;
			int rc = tf_json_string(q, end, &k, np);
			if (rc != R_OK)
				return rc;
			r->topkey = tf_json_is(&k, "traceEvents") ? K_TRACE_EVENTS
				    : tf_json_is(&k, "distributedInfo") ? K_DIST_INFO
				    : tf_json_is(&k, "baseTimeNanoseconds") ? K_BASE_TIME : K_OTHER;
		}
		r->state = S_TOP_COLON;
		return R_OK;
	case S_TOP_COLON:
		if (c != ':')
			return tf_chrome_fail_char(r, q, "expected ':' after a top-level key");
		r->state = S_TOP_VALUE;
		*np = q + 1;
		return R_OK;
	case S_TOP_VALUE:
		if (r->topkey == K_TRACE_EVENTS) {
			if (c != '[')
				return tf_chrome_fail_char(r, q, "\"traceEvents\" is not an array");
			r->has_events = true;
			r->state = S_ARR_FIRST;
			*np = q + 1;
			return R_OK;
		}
		if ((r->topkey == K_DIST_INFO && c == '{') || (r->topkey == K_BASE_TIME && c >= '0' && c <= '9')) {
			tf_json_span v = { 0 };
			int rc = tf_json_value(q, end, &v, np, &r->jerr);
			if (rc != R_OK)
				return tf_chrome_json_rc(r, rc);
			TF_TRY(top_value(r, &v));
			r->state = S_TOP_NEXT;
			return R_OK;
		}
		{
			int used = tf_json_skip_begin(&r->skip, q, &r->jerr);
			if (used < 0)
				return tf_chrome_fail_json(r);
			q += used;
		}
		r->state = S_TOP_SKIP;
		return skip_feed(r, q, end, np);
	case S_TOP_NEXT:
		if (c == ',')
			r->state = S_TOP_KEY;
		else if (c == '}')
			r->state = S_DONE;
		else
			return tf_chrome_fail_char(r, q, "expected ',' or '}' at the top level");
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
				return tf_chrome_json_rc(r, rc);
			r->state = S_ARR_NEXT;
			if (r->pipe)
				TF_TRY(tf_chrome_pipe_skip(r));
			else
				tf_count_skip(r->ctx, TF_DIAG_bad_event);
			r->index++;
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
			return tf_chrome_fail_char(r, q, "expected ',' or ']' after an event");
		*np = q + 1;
		return R_OK;
	case S_DONE:
	default:
		return tf_chrome_fail_char(r, q, "unexpected data after the end of the trace");
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
			if (r->pipe)
				r->fin_truncated = true;
			else
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
	return r->pipe ? 0 : tf_chrome_finish_events(r);
}

int tf_chrome_finish_events(tf_chrome *r)
{
	tf_chrome_settle_gpu(r);
	int rc = tf_chrome_profile_finish(r);
	if (rc < 0)
		return rc;
	return r->stopped ? TF_ESTOP : 0;
}

tf_chrome *tf_chrome_new_stage1(const char *path, tf_chrome_pipe *pipe)
{
	tf_chrome *r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	snprintf(r->path, sizeof(r->path), "%s", path ? path : "");
	r->state = S_START;
	r->rank = -1;
	r->pipe = pipe;
	return r;
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
	tf_chrome_prof_free(r->prof);
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
		if (tf_json_head_has(h + i, n - i, keys[k]))
			return TF_SNIFF_YES;
	return TF_SNIFF_MAYBE;
}

static int sniff(const char *path, int is_dir, const unsigned char *head, size_t n, bool whole)
{
	if (is_dir)
		return TF_SNIFF_NO;
	return tf_chrome_sniff(head, n);
}

void tf_chrome_gzip_cut(tf_ctx *ctx, const char *path, uint64_t cut, uint64_t offset)
{
	/* the events before the cut are read; the lost rest counts as one
	 * truncated record unless the cut one already did */
	if (tf_ctx_diag(ctx)->n[TF_DIAG_truncated_record] == cut)
		tf_count_skip(ctx, TF_DIAG_truncated_record);
	tf_ctx_note(ctx, "'%s': gzip data ends early (truncated file) after %llu bytes of JSON: "
		    "the events before the cut are read", path, (unsigned long long)offset);
}

/* The input read on this thread alone. */
static int read_one(const char *path, uint32_t input, tf_ctx *ctx, tf_sink *sink, tf_in *in, tf_error *err)
{
	tf_chrome *r = tf_chrome_new(path, input, ctx, sink);
	if (!r)
		return tf_error_set(err, TF_ENOMEM, path, -1, -1, "out of memory");
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
	if (rc == 0 && tf_in_truncated(in))
		tf_chrome_gzip_cut(ctx, path, cut, tf_in_offset(in));
	tf_chrome_free(r);
	return rc;
}

static int read_input(const char *path, uint32_t input, tf_ctx *ctx, tf_sink *sink, tf_error *err)
{
	tf_in *in;
	TF_TRY(tf_in_open(&in, path, err));
	/* -j N with a thread to spare: bytes and tokens on one, the events
	 * on this one (chrome_pipe.c) */
	int rc = tf_chrome_read_piped(path, input, ctx, sink, in, err);
	if (rc == 1)
		rc = read_one(path, input, ctx, sink, in, err);
	tf_in_close(in);
	return rc;
}

const tf_format tf_format_chrome = {
	.name = "chrome",
	.description = "Chrome trace-event JSON (Chrome, Perfetto, PyTorch/Kineto, JAX/XLA, rocprofiler, TAU json)",
	.sniff = sniff,
	.read = read_input, /* one part */
};
