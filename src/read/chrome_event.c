/* chrome_event.c - the Chrome trace-event reader's events (chrome_int.h):
 * an event object's fields picked out by the tokenizer (spans into the
 * buffer, every other value skipped), its strings decoded and interned,
 * its numbers in nanoseconds, and the tf_event it makes (counters one per
 * value, Kineto's memory, correlation and Python ids, flow and async ids),
 * or the diagnostic it counts. */
#include <string.h>
#include "chrome_int.h"

#define US_TO_NS 3 /* decimal places from microseconds to nanoseconds */

/* ---- event fields ---- */

tf_json_span *tf_chrome_field_for(tf_chrome_fields *f, const tf_json_span *k)
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
int tf_chrome_parse_event(tf_chrome *r, const u8 *p, const u8 *end, tf_chrome_fields *f, const u8 **out)
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
			return tf_chrome_fail_char(r, p, "expected a quoted key in an event");
		tf_json_span k, tmp;
		int rc = tf_json_string(p, end, &k, &p);
		if (rc != R_OK)
			return rc;
		p = tf_json_skip_ws(p, end);
		if (p >= end)
			return R_NEED;
		if (*p != ':')
			return tf_chrome_fail_char(r, p, "expected ':' after a key");
		p++;
		p = tf_json_skip_ws(p, end);
		if (p >= end)
			return R_NEED;
		tf_json_span *dst = tf_chrome_field_for(f, &k);
		rc = tf_json_value(p, end, dst ? dst : &tmp, &p, &r->jerr);
		if (rc != R_OK)
			return tf_chrome_json_rc(r, rc);
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
		return tf_chrome_fail_char(r, p, "expected ',' or '}' in an event");
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

/* args.correlation of a GPU activity or launch (Kineto), or its
 * args.correlation_id (the XLA profiler's, on the kernel and on the host
 * call that launched it: cuLaunchKernel, cuGraphLaunch); 0 when none. */
static uint64_t correlation(const tf_chrome_fields *f)
{
	if (f->args.type != TF_JSON_OBJECT)
		return 0;
	tf_json_iter it;
	tf_json_span key, val;
	tf_json_iter_begin(&it, &f->args);
	while (tf_json_iter_next(&it, &key, &val))
		if (tf_json_is(&key, "correlation") || tf_json_is(&key, "correlation_id"))
			return tf_json_id(&val);
	return 0;
}

/* One decoded event object (f) -> tf_emit / tf_count_skip. */
int tf_chrome_process_event(tf_chrome *r, const tf_chrome_fields *f)
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
	/* XLA's events have no category: every region of its trace may carry
	 * a correlation id (its GPU streams are its /device:GPU:N processes) */
	if ((cls == CAT_GPU || cls == CAT_LAUNCH || cls == CAT_GPU_LABEL || cls == CAT_SYNC || r->xla) &&
	    (ph == 'X' || ph == 'B')) {
		if (cls == CAT_GPU_LABEL)
			ev.flags |= TF_EVF_GPU_LABEL;
		ev.corr = correlation(f);
	}
	if (ph == 'X' || ph == 'B') /* a collective's facts, beside the event (docs/collectives.md) */
		TF_TRY(tf_chrome_collective(r, f, &ev));
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
