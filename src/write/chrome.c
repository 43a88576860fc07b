/* chrome.c - a timeline as Chrome trace-event JSON (docs/chrome-out.md), for
 * Perfetto UI, chrome://tracing and speedscope: a span consumer that writes,
 * in one streaming pass,
 *
 *   {"traceEvents":[   (with --phases be: B at the open, E at the close)
 *     M events naming each process (its rank) and thread, with sort indices,
 *     one X event per matched region (at its close, after the stack rules
 *       and repairs) with its self time, call path and repairs in args,
 *     C events for counters, i events for instants,
 *     s/f flow events for messages (send paired with receive) and the
 *       input's flows (start paired with end), drawn as arrows
 *   ],
 *   "displayTimeUnit":"ns",
 *   "otherData":{inputs, formats, clock, time shift, tool, diagnostics}}
 *
 * Strict JSON: every string escaped valid UTF-8 (src/base/jsonq.c), numbers
 * plain decimals, no trailing commas.  ts and dur are microseconds written
 * from the integer nanoseconds exactly ("12.345").  Epoch-sized timestamps
 * lose precision in the doubles browser viewers use, so they are shifted by
 * whole 1000 s to below ~2000 s (see shifted()), and a run that starts
 * before 0 forward to after 0; the shift is in otherData.time_shift_ns.
 * Memory: per track, its open spans and the closed ones that share their
 * ancestors' start (on_open). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sat.h"
#include "tracefold/writer.h"
#include "tracefold/sink.h"
#include "tracefold/io.h"
#include "tracefold/version.h"
#include "grow.h"
#include "hmap.h"
#include "jsonq.h"
#include "pair.h"
#include "tids.h"

/* Its options (tf_writer_opt): zeroed for the defaults. */
typedef struct chrome_conf {
	bool be; /* --phases be: regions as B/E pairs instead of X */
} chrome_conf;

typedef struct ctrack {
	uint8_t seen;          /* its M events were written */
	int64_t pid, tid;      /* as written (tf_tids_assign) */
	int64_t *open_start;   /* start of each open span, outermost first */
	uint32_t *open_pend;   /* where its waiting descendants begin in pend */
	uint32_t depth, cap;
	tf_span *pend;         /* closed spans waiting for an ancestor with the same start */
	uint32_t npend, cappend;
	/* GPU activities that overlap (a GPU stream's are not nested) go to
	 * lanes: lane 0 is the thread, lane l > 0 a thread "NAME (overlap l)" */
	tf_lanes lanes;
	int64_t *lane_tid;     /* the tid of each lane */
	uint32_t caplanetid, lane;
} ctrack;

typedef struct tf_chrome_out {
	tf_span_sink spans;
	tf_ctx *ctx;
	tf_strtab *st;
	tf_out *o;
	const char *const *inputs, *const *input_formats;
	int ninputs;
	ctrack *tk;
	uint32_t ntk;
	tf_tids ids;           /* integer pid and tid of each track */
	bool be;               /* B/E pairs instead of X */
	bool have_shift;
	int64_t shift_ns;
	uint64_t nevents;
	tf_pairs pairs;        /* message and flow ends waiting for the other */
	uint64_t nflows;       /* flow ids written: unique in the trace */
	const char *path;      /* for messages */
	int rc;                /* first write failure */
} tf_chrome_out;

static void put_out(void *u, const char *p, size_t n)
{
	tf_chrome_out *w = u;
	if (tf_out_write(w->o, p, n) < 0 && w->rc == 0)
		w->rc = tf_writer_fail_out(w->ctx, w->o);
}

static void put_s(tf_chrome_out *w, const char *s)
{
	put_out(w, s, strlen(s));
}

static void put_q(tf_chrome_out *w, const char *s, size_t n)
{
	tf_json_quote(s, n, put_out, w);
}

static void put_str(tf_chrome_out *w, tf_str s)
{
	put_q(w, tf_strtab_get(w->st, s), tf_strtab_len(w->st, s));
}

/* ns as exact decimal microseconds: 12345 -> "12.345", 12000 -> "12". */
static void put_us(tf_chrome_out *w, int64_t ns)
{
	char b[40];
	uint64_t a = ns < 0 ? 0 - (uint64_t)ns : (uint64_t)ns;
	unsigned frac = (unsigned)(a % 1000);
	int n = snprintf(b, sizeof(b), "%s%" PRIu64, ns < 0 ? "-" : "", a / 1000);
	if (frac) {
		n += snprintf(b + n, sizeof(b) - (size_t)n, ".%03u", frac);
		while (b[n - 1] == '0')
			n--;
	}
	put_out(w, b, (size_t)n);
}

static void put_i64(tf_chrome_out *w, int64_t v)
{
	char b[24];
	int n = snprintf(b, sizeof(b), "%" PRId64, v);
	put_out(w, b, (size_t)n);
}

#define SHIFT_STEP 1000000000000LL /* 1000 s in ns */

static int64_t shifted(tf_chrome_out *w, int64_t ts, uint32_t track, tf_str name)
{
	if (!w->have_shift) {
		w->have_shift = true;
		/* whole 1000 s, one step back: times stay below ~2000 s plus the
		 * trace's length (exact as doubles to the ns), and events up to
		 * 1000 s before the first one handed over stay positive; a run
		 * that starts before 0 (Bazel's), which Perfetto's importer does
		 * not take, goes forward by as many to start after 0 */
		int64_t lo = ts, f;
		if (tf_ctx_first_ns(w->ctx, &f) && f < lo)
			lo = f;
		w->shift_ns = ts >= 2 * SHIFT_STEP ? ts - ts % SHIFT_STEP - SHIFT_STEP : 0;
		if (lo < 0 && __builtin_sub_overflow(lo - lo % SHIFT_STEP, SHIFT_STEP, &w->shift_ns))
			w->shift_ns = lo; /* near INT64_MIN: to 0 */
	}
	int64_t r;
	if (__builtin_sub_overflow(ts, w->shift_ns, &r))
		r = ts < 0 ? -1 : INT64_MAX;
	if (r < 0 && !w->rc) { /* an input read later that starts earlier */
		tf_error e = { 0 };
		w->rc = tf_time_refuse(w->ctx, w->path, "the Chrome timeline's", w->inputs, w->ninputs, track, name, ts,
				       w->shift_ns, &e);
	}
	return r;
}

/* "pid":P,"tid":T: integers, as the format wants them (string ids break
 * viewers such as speedscope).  Set once per track by track_meta. */
static void put_ids(tf_chrome_out *w, const ctrack *c)
{
	put_s(w, "\"pid\":");
	put_i64(w, c->pid);
	put_s(w, ",\"tid\":");
	put_i64(w, c->tid);
}

static void begin_event(tf_chrome_out *w)
{
	put_s(w, w->nevents++ ? ",\n{" : "\n{");
}

/* {PH,"pid":P,"tid":T,"ts":TS: the start of every timed event. */
static void put_head(tf_chrome_out *w, const char *ph, uint32_t track, int64_t ts_ns, tf_str name)
{
	begin_event(w);
	put_s(w, ph);
	put_s(w, ",");
	put_ids(w, &w->tk[track]);
	put_s(w, ",\"ts\":");
	put_us(w, shifted(w, ts_ns, track, name));
}

/* ,"name":N[,"cat":C] ("" for no name) */
static void put_name_cat(tf_chrome_out *w, tf_str name, tf_str cat)
{
	put_s(w, ",\"name\":");
	if (name)
		put_str(w, name);
	else
		put_s(w, "\"\"");
	if (cat) {
		put_s(w, ",\"cat\":");
		put_str(w, cat);
	}
}

/* {"ph":"M","name":WHAT,"pid":P,"tid":T,"args":{: the caller writes the
 * argument and the closing "}}". */
static void put_meta(tf_chrome_out *w, const ctrack *c, const char *what)
{
	begin_event(w);
	put_s(w, "\"ph\":\"M\",\"name\":\"");
	put_s(w, what);
	put_s(w, "\",");
	put_ids(w, c);
	put_s(w, ",\"args\":{");
}

/* A GPU stream's mark, for tracefold's Chrome reader (docs/chrome-out.md):
 * Kineto's are its categories and its "stream N" thread names, which an
 * OTF2 or Perfetto input does not have; launches 1 when its activities go
 * under their launches, 0 when they nest in place (Score-P's). */
static void put_gpu_mark(tf_chrome_out *w, const ctrack *c, const tf_track *t)
{
	if (t->kind != TF_TRACK_GPU)
		return;
	put_meta(w, c, "tracefold_gpu_stream");
	put_s(w, tf_track_gpu_joined(t) ? "\"launches\":1}}" : "\"launches\":0}}");
}

static ctrack *tstate(tf_chrome_out *w, uint32_t track)
{
	if (track >= w->ntk) {
		uint32_t n = w->ntk;
		if (tf_grow((void **)&w->tk, &w->ntk, track + 1, sizeof(ctrack)) < 0)
			return NULL;
		memset(w->tk + n, 0, (size_t)(w->ntk - n) * sizeof(ctrack));
	}
	return &w->tk[track];
}

/* The M events of a track, before its first event. */
static int track_meta(tf_chrome_out *w, uint32_t track)
{
	if (!tstate(w, track))
		return TF_ENOMEM;
	if (w->tk[track].seen)
		return 0;
	w->tk[track].seen = 1;
	ctrack *c = &w->tk[track];
	tf_tid id;
	TF_TRY(tf_tids_assign(&w->ids, w->ctx, track, &id));
	const tf_track *t = tf_ctx_track_get(w->ctx, track);
	c->pid = id.pid;
	c->tid = id.tid;
	if (id.new_process) {
		if (t->process_name || t->rank >= 0 || !id.pid_is_key) {
			put_meta(w, c, "process_name");
			put_s(w, "\"name\":");
			if (t->process_name) {
				put_str(w, t->process_name);
			} else if (t->rank >= 0) {
				char b[32];
				snprintf(b, sizeof(b), "rank %" PRId64, t->rank);
				put_q(w, b, strlen(b));
			} else {
				put_str(w, t->process_key); /* a key that is no integer: its name */
			}
			put_s(w, "}}");
		}
		if (t->rank >= 0) { /* ranks in order */
			put_meta(w, c, "process_sort_index");
			put_s(w, "\"sort_index\":");
			put_i64(w, t->rank);
			put_s(w, "}}");
		}
	}
	if (t->thread_name || !id.tid_is_key) {
		put_meta(w, c, "thread_name");
		put_s(w, "\"name\":");
		put_str(w, t->thread_name ? t->thread_name : t->thread_key);
		put_s(w, "}}");
	}
	put_gpu_mark(w, c, t);
	if (t->sort_index) {
		put_meta(w, c, "thread_sort_index");
		put_s(w, "\"sort_index\":");
		put_i64(w, t->sort_index);
		put_s(w, "}}");
	}
	return w->rc;
}

static void put_span_args(tf_chrome_out *w, const tf_span *s);

/* The lane of a top-level span: 0 for a CPU region; for a GPU activity the
 * first lane whose last activity has ended, a new one (its thread named in
 * an M event) when none has. */
static int pick_lane(tf_chrome_out *w, const tf_span *s)
{
	ctrack *c = &w->tk[s->track];
	c->lane = 0;
	if (s->kind == TF_SPAN_KIND_CPU || s->end_ns == TF_SPAN_END_UNKNOWN)
		return 0;
	uint32_t l;
	bool is_new;
	TF_TRY(tf_lanes_pick(&c->lanes, s->kind == TF_SPAN_KIND_GPU_LABEL, s->start_ns, s->end_ns, &l, &is_new));
	if (is_new) {
		if (tf_grow((void **)&c->lane_tid, &c->caplanetid, l + 1, sizeof(int64_t)) < 0)
			return TF_ENOMEM;
		c->lane_tid[l] = c->tid;
		if (l > 0) {
			TF_TRY(tf_tids_extra(&w->ids, c->pid, &c->lane_tid[l]));
			char name[600];
			int n = tf_lane_name(w->ctx, s->track, &c->lanes, l, name, sizeof(name));
			ctrack lc = *c;
			lc.tid = c->lane_tid[l];
			put_meta(w, &lc, "thread_name");
			put_s(w, "\"name\":");
			put_q(w, name, (size_t)n);
			put_s(w, "}}");
			put_gpu_mark(w, &lc, tf_ctx_track_get(w->ctx, s->track));
		}
	}
	c->lane = l;
	return w->rc;
}

/* put_head for a span: on its lane's thread. */
static void put_span_head(tf_chrome_out *w, const char *ph, const tf_span *s, int64_t ts)
{
	ctrack *c = &w->tk[s->track];
	int64_t tid = c->tid;
	if (c->lane)
		c->tid = c->lane_tid[c->lane];
	put_head(w, ph, s->track, ts, s->name);
	c->tid = tid;
}

static int write_x(tf_chrome_out *w, const tf_span *s)
{
	if (s->depth == 1)
		TF_TRY(pick_lane(w, s));
	put_span_head(w, "\"ph\":\"X\"", s, s->start_ns);
	put_s(w, ",\"dur\":");
	put_us(w, tf_sat_sub(s->end_ns, s->start_ns));
	put_name_cat(w, s->name, s->cat);
	put_span_args(w, s);
	return w->rc;
}

/* ,"args":{...} of a closed span */
static void put_span_args(tf_chrome_out *w, const tf_span *s)
{
	put_s(w, ",\"args\":{\"self_us\":");
	put_us(w, s->self_ns);
	put_s(w, ",\"call_path\":");
	put_i64(w, s->node);
	if (s->corr) { /* read back, it puts GPU work under its launch again */
		put_s(w, ",\"correlation\":");
		char b[24];
		put_out(w, b, (size_t)snprintf(b, sizeof(b), "%" PRIu64, s->corr));
	}
	if (s->flags) {
		put_s(w, ",\"repaired\":[");
		int n = 0;
		for (size_t i = 0; i < TF_SPAN_NREPAIRS; i++)
			if (s->flags & tf_span_repairs[i].flag) {
				put_s(w, n++ ? ",\"" : "\"");
				put_s(w, tf_span_repairs[i].name);
				put_s(w, "\"");
			}
		put_s(w, "]");
	}
	put_s(w, "}}");
}

/* --phases be: B at the open (name, category), E at the close (its args:
 * self time, call path, repairs); the file order is the nesting. */
static int write_b(tf_chrome_out *w, const tf_span *s)
{
	TF_TRY(track_meta(w, s->track));
	if (s->depth == 1)
		TF_TRY(pick_lane(w, s));
	put_span_head(w, "\"ph\":\"B\"", s, s->start_ns);
	put_name_cat(w, s->name, s->cat);
	put_s(w, "}");
	return w->rc;
}

static int write_e(tf_chrome_out *w, const tf_span *s)
{
	put_span_head(w, "\"ph\":\"E\"", s, s->end_ns);
	put_span_args(w, s);
	return w->rc;
}

/* Spans are closed innermost first, but a reader nests spans of equal
 * start and end by file order: a span whose parent starts at the same time
 * waits, and is written right after it (memory: the spans that share their
 * ancestors' start). */
static int on_open(tf_span_sink *k, const tf_span *s)
{
	tf_chrome_out *w = tf_container_of(k, tf_chrome_out, spans);
	if (w->be)
		return write_b(w, s);
	ctrack *t = tstate(w, s->track);
	if (!t)
		return TF_ENOMEM;
	if (t->depth == t->cap) {
		uint32_t cap = t->cap;
		if (tf_grow((void **)&t->open_start, &cap, t->depth + 1, sizeof(int64_t)) < 0 ||
		    tf_grow((void **)&t->open_pend, &t->cap, t->depth + 1, sizeof(uint32_t)) < 0)
			return TF_ENOMEM;
	}
	t->open_start[t->depth] = s->start_ns;
	t->open_pend[t->depth++] = t->npend;
	return w->rc;
}

static int on_close(tf_span_sink *k, const tf_span *s)
{
	tf_chrome_out *w = tf_container_of(k, tf_chrome_out, spans);
	if (w->be)
		return write_e(w, s);
	TF_TRY(track_meta(w, s->track));
	ctrack *t = &w->tk[s->track];
	uint32_t from = t->open_pend[--t->depth];
	if (t->depth && t->open_start[t->depth - 1] == s->start_ns) { /* wait, before its descendants */
		if (tf_grow((void **)&t->pend, &t->cappend, t->npend + 1, sizeof(tf_span)) < 0)
			return TF_ENOMEM;
		memmove(t->pend + from + 1, t->pend + from, (size_t)(t->npend - from) * sizeof(tf_span));
		t->pend[from] = *s;
		t->npend++;
		return w->rc;
	}
	TF_TRY(write_x(w, s));
	for (uint32_t i = from; i < t->npend; i++)
		TF_TRY(write_x(w, &t->pend[i]));
	t->npend = from;
	return w->rc;
}

/* One end of an arrow: s at the start (bound to the slice around it), f at
 * the end with bp "e" (bound to the slice around it, not the next one). */
static void put_flow_end(tf_chrome_out *w, const tf_pend *p, const char *ph, const char *name, tf_str cat,
			 const tf_pend *msg)
{
	put_head(w, ph, (uint32_t)p->track, p->ts, 0);
	put_s(w, ",\"id\":");
	put_i64(w, (int64_t)w->nflows);
	put_s(w, ",\"name\":");
	put_q(w, name, strlen(name));
	put_s(w, ",\"cat\":");
	if (cat)
		put_str(w, cat);
	else
		put_s(w, msg ? "\"message\"" : "\"flow\"");
	if (msg) {
		put_s(w, ",\"args\":{\"tag\":");
		put_i64(w, msg->tag);
		if (msg->comm >= 0) {
			put_s(w, ",\"communicator\":");
			put_i64(w, msg->comm);
		}
		if (msg->bytes >= 0) {
			put_s(w, ",\"bytes\":");
			put_i64(w, msg->bytes);
		}
		put_s(w, "}");
	}
	put_s(w, "}");
}

static int arrow(tf_chrome_out *w, const tf_pend *s, const tf_pend *e, bool msg)
{
	TF_TRY(track_meta(w, (uint32_t)s->track));
	TF_TRY(track_meta(w, (uint32_t)e->track));
	w->nflows++;
	const char *name = msg ? "message" : s->name ? tf_strtab_get(w->st, s->name) : "flow";
	put_flow_end(w, s, "\"ph\":\"s\"", name, s->cat, msg ? s : NULL);
	put_flow_end(w, e, "\"ph\":\"f\",\"bp\":\"e\"", name, s->cat, msg ? s : NULL);
	return w->rc;
}

static int message_pair(void *u, const tf_pend *s, const tf_pend *r)
{
	return arrow(u, s, r, true);
}

static int flow_pair(void *u, const tf_pend *s, const tf_pend *e)
{
	return arrow(u, s, e, false);
}

static int on_event(tf_span_sink *k, const tf_event *ev, uint32_t node)
{
	tf_chrome_out *w = tf_container_of(k, tf_chrome_out, spans);
	(void)node;
	if (ev->kind == TF_EV_SEND || ev->kind == TF_EV_RECV || ev->kind == TF_EV_FLOW) {
		const tf_track *t = tf_ctx_track_get(w->ctx, ev->track);
		return tf_pair_event(&w->pairs, ev, t->rank, t->input, -1, message_pair, flow_pair, w);
	}
	if (ev->kind != TF_EV_COUNTER && ev->kind != TF_EV_INSTANT)
		return w->rc;
	TF_TRY(track_meta(w, ev->track));
	put_head(w, ev->kind == TF_EV_COUNTER ? "\"ph\":\"C\"" : "\"ph\":\"i\",\"s\":\"t\"", ev->track, ev->ts_ns,
		 ev->name);
	put_name_cat(w, ev->name, ev->cat);
	const tf_track *t = ev->kind == TF_EV_COUNTER ? tf_ctx_track_get(w->ctx, ev->track) : NULL;
	if (t && t->counters_own && t->thread_name) { /* one series per thread, not per process */
		put_s(w, ",\"id\":");
		put_str(w, t->thread_name);
	}
	if (ev->kind == TF_EV_COUNTER || (ev->flags & TF_EVF_MEMORY)) {
		char b[40];
		/* readers never pass NaN or infinities (bad_event) */
		int n = snprintf(b, sizeof(b), "%.17g", ev->value);
		/* a memory event keeps Kineto's name for its bytes: read back, it allocates again */
		put_s(w, ev->kind == TF_EV_COUNTER ? ",\"args\":{\"value\":" : ",\"args\":{\"Bytes\":");
		put_out(w, b, (size_t)n);
		if (ev->kind == TF_EV_INSTANT && ev->mem_dev_type) { /* and its device and address (docs/memory.md) */
			n = snprintf(b, sizeof(b), ",\"Device Type\":%d,\"Device Id\":%d", ev->mem_dev_type - 1,
				     ev->mem_dev_id);
			put_out(w, b, (size_t)n);
		}
		if (ev->kind == TF_EV_INSTANT && ev->mem_addr) {
			n = snprintf(b, sizeof(b), ",\"Addr\":%" PRIu64, ev->mem_addr);
			put_out(w, b, (size_t)n);
		}
		put_s(w, "}");
	}
	put_s(w, "}");
	return w->rc;
}

static void chrome_free(tf_chrome_out *w, bool abort)
{
	if (!w)
		return;
	if (abort)
		tf_out_abort(w->o);
	for (uint32_t i = 0; i < w->ntk; i++) {
		free(w->tk[i].open_start);
		free(w->tk[i].open_pend);
		free(w->tk[i].pend);
		tf_lanes_free(&w->tk[i].lanes);
		free(w->tk[i].lane_tid);
	}
	free(w->tk);
	tf_tids_free(&w->ids);
	tf_pairs_free(&w->pairs);
	free(w);
}

static void put_list(tf_chrome_out *w, const char *const *v, int n)
{
	put_s(w, "[");
	for (int i = 0; i < n; i++) {
		if (i)
			put_s(w, ",");
		const char *s = v && v[i] ? v[i] : "?";
		put_q(w, s, strlen(s));
	}
	put_s(w, "]");
}

static int chrome_finish(void *state, tf_error *err)
{
	tf_chrome_out *w = state;
	char diag[4096];
	tf_diag_format(tf_ctx_diag(w->ctx), TF_SEV_INFO, ", ", 0, diag, sizeof(diag));
	put_s(w, "\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":{\"tool\":\"tracefold " TRACEFOLD_VERSION "\",\"inputs\":");
	put_list(w, w->inputs, w->ninputs);
	put_s(w, ",\"input_formats\":");
	put_list(w, w->input_formats, w->ninputs);
	put_s(w, ",\"clock\":\"each input's own time base (Chrome ts, TAU's microsecond clock, OTF2 ticks / timer "
		 "resolution), shifted by time_shift_ns\",\"time_shift_ns\":");
	put_i64(w, w->shift_ns);
	put_s(w, ",\"diagnostics\":");
	put_q(w, diag, strlen(diag));
	put_s(w, "}}\n");
	int rc = tf_out_finish(w->o, w->rc, err);
	w->o = NULL;
	chrome_free(w, false);
	return rc;
}

static void chrome_abort(void *state)
{
	chrome_free(state, true);
}

static int chrome_open(const tf_writer_args *a, const char *path, tf_span_sink **sink_out, void **state_out,
		       tf_error *err)
{
	tf_chrome_out *w = calloc(1, sizeof(*w));
	if (!w)
		return tf_error_set(err, TF_ENOMEM, NULL, -1, -1, "out of memory");
	int rc = tf_out_open_named(&w->o, path, err);
	if (rc < 0) {
		free(w);
		return rc;
	}
	w->ctx = a->ctx;
	w->st = tf_ctx_strtab(a->ctx);
	w->path = path;
	w->inputs = a->inputs;
	w->input_formats = a->input_formats;
	w->ninputs = a->ninputs;
	const chrome_conf *conf = a->conf;
	w->be = conf && conf->be;
	put_s(w, "{\"traceEvents\":[");
	w->spans = (tf_span_sink){ .open = on_open, .close = on_close, .event = on_event,
				   .event_kinds = (1u << TF_EV_COUNTER) | (1u << TF_EV_INSTANT) | (1u << TF_EV_SEND) |
						  (1u << TF_EV_RECV) | (1u << TF_EV_FLOW) };
	*sink_out = &w->spans;
	*state_out = w;
	return 0;
}

static int set_phases(void *conf, const char *v, tf_error *err)
{
	if (strcmp(v, "x") && strcmp(v, "be"))
		return tf_error_set(err, TF_EUSAGE, NULL, -1, -1, "--phases takes x or be, not '%s'", v);
	((chrome_conf *)conf)->be = !strcmp(v, "be");
	return 0;
}

static const tf_writer_opt chrome_opts[] = {
	{ "--phases", "P", "x (default): a region as one X event; be: a B event at\n"
			   "its start and an E at its end, written as they come", set_phases },
	{ NULL, NULL, NULL, NULL },
};

static const char *const chrome_suffixes[] = { ".trace.json", ".trace.json.gz", NULL };

const tf_writer tf_writer_chrome = {
	.name = "chrome",
	.description = "a timeline as Chrome trace-event JSON, gzipped for .gz (Perfetto UI, chrome://tracing; "
		       "docs/chrome-out.md)",
	.suffixes = chrome_suffixes,
	.consumes = TF_WRITER_SPANS,
	.span_open = chrome_open,
	.span_finish = chrome_finish,
	.span_abort = chrome_abort,
	.opts = chrome_opts,
	.conf_size = sizeof(chrome_conf),
	.command = "chrome",
	.summary = "a timeline as Chrome trace JSON for Perfetto UI; docs/chrome-out.md",
	.usage = "-o OUT.json[.gz]",
	.help = "Writes the INPUTs (the inputs of 'tracefold profile') as one timeline in\n"
		"Chrome trace-event JSON, in one streaming pass: every matched region as an\n"
		"X event (after the stack rules and repairs; args: self time, call path,\n"
		"repairs), counters as C, instants as i, process names (rank N) and\n"
		"thread names as M events, MPI messages and flows as arrows.  Gzipped when\n"
		"OUT ends in .gz.  Open it in Perfetto UI (ui.perfetto.dev, Open trace\n"
		"file) or chrome://tracing (Load).  Epoch-sized times are shifted to stay\n"
		"exact in a viewer; otherData.time_shift_ns says by how much\n"
		"(docs/chrome-out.md).\n",
};
