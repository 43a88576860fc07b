/* filter.c - --ranks and --window (include/tracefold/filter.h): the option
 * values' parsers and the span filter between the stack builder and its
 * consumers.
 *
 * The filter keeps a stack per track of the spans opened there.  Opens come
 * in start order and closes innermost first (span.h), so:
 *  - a span that starts at or after the window's end is left out, and so is
 *    everything inside it (it starts later still);
 *  - a span that starts inside the window is handed on at once;
 *  - a span that starts before the window is held back (pending): it is
 *    handed on, with its start moved to the window's start, as soon as
 *    something inside the window happens within it (a descendant opens
 *    there, an event fires there) or it closes after the window's start;
 *    one that closes at or before the window's start is left out.
 *    Ancestors are always handed on before their descendants.
 * At its close a handed-on span is clipped to the window and, when it or
 * one of its children changed, its self time is recomputed: its clipped
 * duration less its kept direct children's clipped durations.  Otherwise
 * the stack builder's self time is passed on as it is, so a window that
 * covers the whole run changes nothing. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tracefold/filter.h"
#include "grow.h"
#include "sat.h"

#define MAX_CONSUMERS 8

/* ---- option values ---- */

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* A non-negative decimal integer at *p (advanced); false on overflow or none. */
static bool parse_u63(const char **p, int64_t *out)
{
	const char *s = *p;
	int64_t v = 0;
	if (!is_digit(*s))
		return false;
	for (; is_digit(*s); s++) {
		if (v > (INT64_MAX - (*s - '0')) / 10)
			return false;
		v = v * 10 + (*s - '0');
	}
	*p = s;
	*out = v;
	return true;
}

int tf_ranks_parse(const char *list, tf_rank_range **out, size_t *n, tf_error *err)
{
	*out = NULL;
	*n = 0;
	size_t cap = 1;
	for (const char *c = list; *c; c++)
		cap += *c == ',';
	tf_rank_range *r = calloc(cap, sizeof(*r));
	if (!r)
		return tf_error_set(err, TF_ENOMEM, NULL, -1, -1, "out of memory");
	const char *p = list;
	for (;;) {
		const char *tok = p, *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		int64_t lo, hi;
		const char *q = p;
		bool good = parse_u63(&q, &lo);
		hi = lo;
		if (good && *q == '-') {
			q++;
			good = parse_u63(&q, &hi);
		}
		good = good && q == tok + len;
		if (!good || hi < lo) {
			free(r);
			*n = 0;
			if (!len)
				return tf_error_set(err, TF_EUSAGE, NULL, -1, -1,
						    "--ranks '%s': an empty item (want ranks and ranges like 0,2,5-7)", list);
			return tf_error_set(err, TF_EUSAGE, NULL, -1, -1,
					    "--ranks '%s': '%.*s' is %s (want ranks and ranges like 0,2,5-7)", list,
					    (int)(len > 100 ? 100 : len), tok,
					    good ? "a range that ends before it starts" : "not a rank or a range of ranks");
		}
		r[(*n)++] = (tf_rank_range){ lo, hi };
		if (!end)
			break;
		p = end + 1;
	}
	*out = r;
	return 0;
}

int tf_time_parse(const char *s, int64_t *ns_out, tf_error *err)
{
	static const struct { const char *unit; int exp; } units[] = {
		{ "ns", 0 }, { "us", 3 }, { "ms", 6 }, { "s", 9 },
	};
	const char *p = s;
	int64_t ip = 0;
	bool has_int = is_digit(*p);
	if (has_int && !parse_u63(&p, &ip))
		return tf_error_set(err, TF_EUSAGE, NULL, -1, -1, "'%s' is too large a time", s);
	const char *frac = NULL;
	size_t nfrac = 0;
	if (*p == '.') {
		frac = ++p;
		while (is_digit(*p))
			p++;
		nfrac = (size_t)(p - frac);
	}
	if ((!has_int && !nfrac) || (frac && !nfrac))
		return tf_error_set(err, TF_EUSAGE, NULL, -1, -1,
				    "'%s' is not a time: want a number and a unit, like 1.5s, 250ms, 10us or 100ns", s);
	int exp = -1;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(p, units[i].unit))
			exp = units[i].exp;
	if (exp < 0)
		return tf_error_set(err, TF_EUSAGE, NULL, -1, -1,
				    *p ? "'%s': unknown unit (want ns, us, ms or s)"
				       : "'%s' has no unit: write it with ns, us, ms or s (like 5s or 250ms)", s);
	/* ns = ip * 10^exp + the fraction's first exp digits; the rest must be 0 */
	int64_t v = ip, f = 0;
	for (int k = 0; k < exp; k++) {
		if (v > INT64_MAX / 10)
			return tf_error_set(err, TF_EUSAGE, NULL, -1, -1, "'%s' is too large a time", s);
		v *= 10;
		f = f * 10 + ((size_t)k < nfrac ? frac[k] - '0' : 0);
	}
	for (size_t k = (size_t)exp; k < nfrac; k++)
		if (frac[k] != '0')
			return tf_error_set(err, TF_EUSAGE, NULL, -1, -1,
					    "'%s' is finer than a nanosecond", s);
	if (v > INT64_MAX - f)
		return tf_error_set(err, TF_EUSAGE, NULL, -1, -1, "'%s' is too large a time", s);
	*ns_out = v + f;
	return 0;
}

/* One side of START:END (len bytes at s). */
static int parse_bound(const char *spec, const char *s, size_t len, bool *has, bool *abs, int64_t *ns,
		       tf_error *err)
{
	*has = len > 0;
	*abs = false;
	if (!len)
		return 0;
	char buf[128];
	if (len >= sizeof(buf))
		return tf_error_set(err, TF_EUSAGE, NULL, -1, -1, "--window '%.100s...': a bound is too long", spec);
	memcpy(buf, s, len);
	buf[len] = 0;
	const char *t = buf;
	if (*t == '@') {
		*abs = true;
		t++;
	}
	tf_error e;
	tf_error_clear(&e);
	if (tf_time_parse(t, ns, &e) < 0)
		return tf_error_set(err, TF_EUSAGE, NULL, -1, -1, "--window '%s': %s", spec, e.msg);
	return 0;
}

int tf_window_parse(const char *spec, tf_window *w, tf_error *err)
{
	memset(w, 0, sizeof(*w));
	const char *colon = strchr(spec, ':');
	if (!colon || strchr(colon + 1, ':'))
		return tf_error_set(err, TF_EUSAGE, NULL, -1, -1,
				    "--window '%s': want START:END (like 10s:20s, :5s, 1.5s:, or @START:@END "
				    "in the inputs' own time base)", spec);
	TF_TRY(parse_bound(spec, spec, (size_t)(colon - spec), &w->has_start, &w->start_abs, &w->start_ns, err));
	TF_TRY(parse_bound(spec, colon + 1, strlen(colon + 1), &w->has_end, &w->end_abs, &w->end_ns, err));
	if (w->has_start && w->has_end && w->start_abs == w->end_abs && w->start_ns >= w->end_ns)
		return tf_error_set(err, TF_EUSAGE, NULL, -1, -1, "--window '%s': START must be before END", spec);
	return 0;
}

int tf_steps_parse(const char *spec, int64_t *lo, int64_t *hi, tf_error *err)
{
	const char *p = spec, *colon = strchr(spec, ':');
	*lo = 0;
	*hi = INT64_MAX;
	bool ok = true;
	if (p != colon && *p)
		ok = parse_u63(&p, lo) && (colon ? p == colon : !*p);
	if (ok && colon) {
		p = colon + 1;
		if (*p)
			ok = parse_u63(&p, hi) && !*p;
	} else if (ok) {
		*hi = *lo;
	}
	if (!ok || !*spec || (colon && colon == spec && !colon[1]))
		return tf_error_set(err, TF_EUSAGE, NULL, -1, -1,
				    "--steps '%s': want A:B, N, A: or :B (the numbers of Kineto's ProfilerStep#N)", spec);
	if (*lo > *hi)
		return tf_error_set(err, TF_EUSAGE, NULL, -1, -1, "--steps '%s': %lld is after %lld", spec,
				    (long long)*lo, (long long)*hi);
	return 0;
}

static bool rank_in(const tf_filter_opts *o, int64_t rank)
{
	for (size_t i = 0; i < o->nranks; i++)
		if (rank >= o->ranks[i].lo && rank <= o->ranks[i].hi)
			return true;
	return false;
}

bool tf_filter_rank_kept(const tf_filter_opts *o, int64_t rank)
{
	return !o->nranks || (rank >= 0 && rank_in(o, rank));
}

bool tf_filter_active(const tf_filter_opts *o)
{
	return o && (o->nranks || o->window_text || o->steps_text);
}

bool tf_window_relative(const tf_window *w)
{
	return (w->has_start && !w->start_abs) || (w->has_end && !w->end_abs);
}

int tf_window_resolve(const tf_window *w, int64_t first_ns, int64_t *start, int64_t *end, tf_error *err)
{
	*start = !w->has_start ? INT64_MIN : w->start_abs ? w->start_ns : tf_sat_add(first_ns, w->start_ns);
	*end = !w->has_end ? INT64_MAX : w->end_abs ? w->end_ns : tf_sat_add(first_ns, w->end_ns);
	if (*start >= *end) {
		char base[96] = "";
		if (tf_window_relative(w))
			snprintf(base, sizeof(base), "; relative bounds count from the run's first timestamp, %" PRId64 " ns",
				 first_ns);
		return tf_error_set(err, TF_EUSAGE, NULL, -1, -1,
				    "--window: START (%" PRId64 " ns) must be before END (%" PRId64 " ns)%s", *start, *end,
				    base);
	}
	return 0;
}

/* ---- the span filter ---- */

enum { PENDING = 0, EMITTED = 1, DROPPED = 2 };
enum { RANK_UNKNOWN = 0, RANK_KEPT = 1, RANK_OUT = 2 };

typedef struct fent {
	tf_span sp;            /* as opened */
	int64_t kept_child_ns; /* clipped durations of the direct children handed on */
	uint8_t state;
	bool changed;          /* a direct child was clipped or left out */
} fent;

typedef struct ftrack {
	fent *st;
	uint32_t depth, cap;
	uint32_t nemitted;     /* st[0..nemitted) were handed on */
	uint8_t rank;          /* RANK_* */
} ftrack;

struct tf_filter {
	tf_span_sink spans;
	tf_ctx *ctx;
	tf_diag *diag;
	const tf_filter_opts *o;
	tf_span_sink *consumer[MAX_CONSUMERS];
	int nconsumers;
	int64_t start, end;    /* absolute window */
	bool has_first;
	int64_t first_ns;
	ftrack *tracks;
	uint32_t ntracks, captracks;
	uint64_t tracks_kept, spans_kept, events_kept;
	/* what the kept-rank tracks hold before the window, and what was kept */
	bool any_seen, any_kept;
	int64_t seen_lo, seen_hi, kept_lo, kept_hi;
};

static void widen(bool *any, int64_t *lo, int64_t *hi, int64_t a, int64_t b)
{
	if (!*any || a < *lo)
		*lo = a;
	if (!*any || b > *hi)
		*hi = b;
	*any = true;
}

/* The track's state; NULL on allocation failure. */
static ftrack *ftrack_get(tf_filter *f, uint32_t id)
{
	if (id >= f->ntracks) {
		if (tf_grow((void **)&f->tracks, &f->captracks, id + 1, sizeof(ftrack)) < 0)
			return NULL;
		memset(f->tracks + f->ntracks, 0, (size_t)(id + 1 - f->ntracks) * sizeof(ftrack));
		f->ntracks = id + 1;
	}
	ftrack *t = &f->tracks[id];
	if (t->rank == RANK_UNKNOWN) {
		/* decided at the track's first span or event: sorted tracks come
		 * after their input's metadata, which may name the rank */
		const tf_track *tr = tf_ctx_track_get(f->ctx, id);
		bool keep = tf_filter_rank_kept(f->o, tr ? tr->rank : -1);
		t->rank = keep ? RANK_KEPT : RANK_OUT;
		if (keep)
			f->tracks_kept++;
		else
			f->diag->n[TF_DIAG_ranks_tracks_out]++;
	}
	return t;
}

static int64_t clip_lo(const tf_filter *f, int64_t ts)
{
	return ts < f->start ? f->start : ts;
}

static int64_t clip_hi(const tf_filter *f, int64_t ts)
{
	return ts > f->end ? f->end : ts;
}

/* Hands on the pending spans of t (ancestors first). */
static int flush(tf_filter *f, ftrack *t)
{
	while (t->nemitted < t->depth && t->st[t->nemitted].state == PENDING) {
		fent *e = &t->st[t->nemitted++];
		e->state = EMITTED;
		tf_span sp = e->sp;
		sp.start_ns = clip_lo(f, sp.start_ns);
		if (sp.end_ns != TF_SPAN_END_UNKNOWN) {
			sp.end_ns = clip_hi(f, sp.end_ns);
			if (sp.end_ns < sp.start_ns)
				sp.end_ns = sp.start_ns;
		}
		for (int i = 0; i < f->nconsumers; i++)
			if (f->consumer[i]->open)
				TF_TRY(f->consumer[i]->open(f->consumer[i], &sp));
	}
	return 0;
}

static int on_open(tf_span_sink *k, const tf_span *s)
{
	tf_filter *f = tf_container_of(k, tf_filter, spans);
	ftrack *t = ftrack_get(f, s->track);
	if (!t)
		return TF_ENOMEM;
	if (t->rank == RANK_OUT)
		return 0;
	widen(&f->any_seen, &f->seen_lo, &f->seen_hi, s->start_ns, s->start_ns);
	if (tf_grow((void **)&t->st, &t->cap, t->depth + 1, sizeof(fent)) < 0)
		return TF_ENOMEM;
	fent *e = &t->st[t->depth++];
	*e = (fent){ .sp = *s, .state = PENDING };
	if (s->start_ns >= f->end)
		e->state = DROPPED; /* and everything inside it */
	else if (s->start_ns >= f->start)
		return flush(f, t); /* it, and the ancestors still held back */
	return 0;
}

static int on_close(tf_span_sink *k, const tf_span *s)
{
	tf_filter *f = tf_container_of(k, tf_filter, spans);
	ftrack *t = ftrack_get(f, s->track);
	if (!t)
		return TF_ENOMEM;
	if (t->rank == RANK_OUT) {
		f->diag->n[TF_DIAG_ranks_spans_out]++;
		return 0;
	}
	widen(&f->any_seen, &f->seen_lo, &f->seen_hi, s->end_ns, s->end_ns);
	if (!t->depth) /* never: closes pair with opens */
		return TF_EFORMAT;
	fent *e = &t->st[t->depth - 1];
	fent *parent = t->depth > 1 ? &t->st[t->depth - 2] : NULL;
	if (e->state == PENDING && s->end_ns > f->start)
		TF_TRY(flush(f, t));
	if (e->state != EMITTED) {
		f->diag->n[TF_DIAG_window_spans_out]++;
		if (parent)
			parent->changed = true;
		t->depth--;
		return 0;
	}
	int64_t a = s->start_ns, b = s->end_ns;
	int64_t cs = clip_lo(f, a), ce = clip_hi(f, b);
	if (ce < cs)
		ce = cs;
	int64_t dur = tf_sat_sub(ce, cs);
	bool clipped = cs != a || ce != b;
	tf_span out = *s;
	out.start_ns = cs;
	out.end_ns = ce;
	if (clipped || e->changed) {
		out.self_ns = tf_sat_sub(dur, e->kept_child_ns);
		if (out.self_ns < 0)
			out.self_ns = 0;
	}
	if (clipped) {
		int64_t full = tf_sat_sub(b, a);
		tf_diag_repair(f->diag, TF_DIAG_window_clipped, full > dur ? tf_sat_sub(full, dur) : 0);
	}
	t->depth--;
	t->nemitted--;
	if (parent) {
		parent->kept_child_ns = tf_sat_add(parent->kept_child_ns, dur);
		if (clipped)
			parent->changed = true;
	}
	f->spans_kept++;
	widen(&f->any_kept, &f->kept_lo, &f->kept_hi, cs, ce);
	for (int i = 0; i < f->nconsumers; i++)
		if (f->consumer[i]->close)
			TF_TRY(f->consumer[i]->close(f->consumer[i], &out));
	return 0;
}

static int on_event(tf_span_sink *k, const tf_event *ev, uint32_t node)
{
	tf_filter *f = tf_container_of(k, tf_filter, spans);
	ftrack *t = ftrack_get(f, ev->track);
	if (!t)
		return TF_ENOMEM;
	if (t->rank == RANK_OUT) {
		f->diag->n[TF_DIAG_ranks_events_out]++;
		return 0;
	}
	widen(&f->any_seen, &f->seen_lo, &f->seen_hi, ev->ts_ns, ev->ts_ns);
	if (ev->ts_ns < f->start || ev->ts_ns >= f->end) {
		f->diag->n[TF_DIAG_window_events_out]++;
		return 0;
	}
	/* the regions open around it overlap the window: hand them on first */
	TF_TRY(flush(f, t));
	f->events_kept++;
	widen(&f->any_kept, &f->kept_lo, &f->kept_hi, ev->ts_ns, ev->ts_ns);
	for (int i = 0; i < f->nconsumers; i++)
		if (f->consumer[i]->event && tf_span_sink_wants(f->consumer[i], ev))
			TF_TRY(f->consumer[i]->event(f->consumer[i], ev, node));
	return 0;
}

static int on_prepare(tf_span_sink *k, const tf_event *ev)
{
	tf_filter *f = tf_container_of(k, tf_filter, spans);
	/* not by time: a counter's sample type exists even when the window
	 * leaves none of its samples (so -c NAME is not said to match nothing) */
	if (ev->track != TF_TRACK_NONE) {
		const tf_track *tr = tf_ctx_track_get(f->ctx, ev->track);
		if (!tf_filter_rank_kept(f->o, tr ? tr->rank : -1))
			return 0;
	}
	for (int i = 0; i < f->nconsumers; i++)
		if (f->consumer[i]->prepare && tf_span_sink_wants(f->consumer[i], ev))
			TF_TRY(f->consumer[i]->prepare(f->consumer[i], ev));
	return 0;
}

static int on_end_track(tf_span_sink *k, uint32_t track)
{
	tf_filter *f = tf_container_of(k, tf_filter, spans);
	ftrack *t = ftrack_get(f, track);
	if (!t)
		return TF_ENOMEM;
	if (t->rank == RANK_OUT)
		return 0;
	t->depth = t->nemitted = 0;
	for (int i = 0; i < f->nconsumers; i++)
		if (f->consumer[i]->end_track)
			TF_TRY(f->consumer[i]->end_track(f->consumer[i], track));
	return 0;
}

static int on_end_input(tf_span_sink *k, uint32_t input)
{
	tf_filter *f = tf_container_of(k, tf_filter, spans);
	for (int i = 0; i < f->nconsumers; i++)
		if (f->consumer[i]->end_input)
			TF_TRY(f->consumer[i]->end_input(f->consumer[i], input));
	return 0;
}

tf_filter *tf_filter_new(tf_ctx *ctx, const tf_filter_opts *o, int64_t start_ns, int64_t end_ns, bool has_first,
			 int64_t first_ns)
{
	tf_filter *f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->ctx = ctx;
	f->diag = tf_ctx_diag(ctx);
	f->o = o;
	f->start = start_ns;
	f->end = end_ns;
	f->has_first = has_first;
	f->first_ns = first_ns;
	f->spans = (tf_span_sink){ .open = on_open, .close = on_close, .event = on_event,
				   .end_track = on_end_track, .end_input = on_end_input, .prepare = on_prepare };
	return f;
}

void tf_filter_free(tf_filter *f)
{
	if (!f)
		return;
	for (uint32_t i = 0; i < f->ntracks; i++)
		free(f->tracks[i].st);
	free(f->tracks);
	free(f);
}

int tf_filter_add_consumer(tf_filter *f, tf_span_sink *k)
{
	if (f->nconsumers == MAX_CONSUMERS)
		return TF_EUSAGE;
	f->consumer[f->nconsumers++] = k;
	f->spans.event_kinds |= k->event_kinds;
	f->spans.event_flags |= k->event_flags;
	return 0;
}

tf_span_sink *tf_filter_spans(tf_filter *f) { return &f->spans; }

int tf_filter_time_span(const tf_filter *f, int64_t *first_ns, int64_t *last_ns)
{
	if (!f->any_kept)
		return 0;
	*first_ns = f->kept_lo;
	*last_ns = f->kept_hi;
	return 1;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* " 0 1 2" (the distinct ranks of the run's tracks, at most 32) into buf. */
static size_t ranks_present(tf_ctx *ctx, char *buf, size_t len)
{
	uint32_t n = tf_ctx_track_count(ctx);
	int64_t *r = malloc((n ? n : 1) * sizeof(*r));
	size_t nr = 0;
	buf[0] = 0;
	if (!r)
		return 0;
	for (uint32_t i = 0; i < n; i++) {
		int64_t rank = tf_ctx_track_get(ctx, i)->rank;
		if (rank >= 0)
			r[nr++] = rank;
	}
	qsort(r, nr, sizeof(*r), cmp_i64);
	size_t used = 0, nd = 0;
	for (size_t i = 0; i < nr; i++) {
		if (i && r[i] == r[i - 1])
			continue;
		if (++nd > 32) {
			snprintf(buf + used, len - used, " ...");
			break;
		}
		int w = snprintf(buf + used, len - used, " %" PRId64, r[i]);
		if (w < 0 || (size_t)w >= len - used)
			break;
		used += (size_t)w;
	}
	free(r);
	return nd;
}

/* "12.5 ms" */
static const char *dur_text(int64_t ns, char *buf, size_t len)
{
	tf_fmt_ns(ns > 0 ? (uint64_t)ns : 0, buf, len);
	return buf;
}

int tf_filter_check(const tf_filter *f, tf_error *err)
{
	if (f->spans_kept || f->events_kept)
		return 0;
	if (f->o->nranks && !f->tracks_kept) {
		char present[400];
		size_t nd = ranks_present(f->ctx, present, sizeof(present));
		if (!nd)
			return tf_error_set(err, TF_EFORMAT, NULL, -1, -1,
					    "--ranks %s keeps nothing: no track of the inputs has an MPI rank "
					    "(--ranks needs traces of MPI runs, such as TAU or OTF2 ones)",
					    f->o->ranks_text ? f->o->ranks_text : "");
		return tf_error_set(err, TF_EFORMAT, NULL, -1, -1,
				    "--ranks %s keeps nothing: no track of rank %s (ranks present:%s)",
				    f->o->ranks_text ? f->o->ranks_text : "", f->o->ranks_text ? f->o->ranks_text : "",
				    present);
	}
	const char *ranks = f->o->nranks ? " on the tracks of --ranks " : "";
	if (!f->o->window_text)
		return tf_error_set(err, TF_EFORMAT, NULL, -1, -1,
				    "--ranks %s keeps nothing: its tracks hold no regions or events",
				    f->o->ranks_text ? f->o->ranks_text : "");
	char d1[32], d2[32], d3[32], a[32] = "", b[32] = "", win[200], span[240];
	if (f->has_first) {
		if (f->start != INT64_MIN)
			dur_text(tf_sat_sub(f->start, f->first_ns), a, sizeof(a));
		if (f->end != INT64_MAX)
			dur_text(tf_sat_sub(f->end, f->first_ns), b, sizeof(b));
		snprintf(win, sizeof(win), "%s .. %s after the run's first timestamp (%" PRId64 " ns)", a, b,
			 f->first_ns);
	} else {
		if (f->start != INT64_MIN)
			snprintf(a, sizeof(a), "%" PRId64, f->start);
		if (f->end != INT64_MAX)
			snprintf(b, sizeof(b), "%" PRId64, f->end);
		snprintf(win, sizeof(win), "%s .. %s ns", a, b);
	}
	if (f->any_seen) {
		if (f->has_first)
			snprintf(span, sizeof(span), "%s .. %s after its first timestamp (%" PRId64 " .. %" PRId64 " ns)",
				 dur_text(tf_sat_sub(f->seen_lo, f->first_ns), d1, sizeof(d1)),
				 dur_text(tf_sat_sub(f->seen_hi, f->first_ns), d2, sizeof(d2)), f->seen_lo, f->seen_hi);
		else
			snprintf(span, sizeof(span), "%" PRId64 " .. %" PRId64 " ns (%s)", f->seen_lo, f->seen_hi,
				 dur_text(tf_sat_sub(f->seen_hi, f->seen_lo), d3, sizeof(d3)));
		return tf_error_set(err, TF_EFORMAT, NULL, -1, -1,
				    "--window %s keeps nothing%s%s: it is %s; the run's regions and events span %s",
				    f->o->window_text, ranks, f->o->nranks ? f->o->ranks_text : "", win, span);
	}
	return tf_error_set(err, TF_EFORMAT, NULL, -1, -1, "--window %s keeps nothing%s%s: the run has no regions",
			    f->o->window_text, ranks, f->o->nranks ? f->o->ranks_text : "");
}
