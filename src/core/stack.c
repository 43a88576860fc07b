/* stack.c - rebuilds every track's call stack and feeds the aggregate.
 *
 * Rules (docs/stack-rules.md):
 *  - streamed tracks (TAU, OTF2): events in input order; BEGIN pushes, END
 *    pops the innermost region; an END naming a deeper region closes the
 *    inner ones first (exit_mismatch); an END with nothing open, or naming
 *    nothing open, is dropped (end_without_begin).
 *  - sorted tracks (Chrome JSON): buffered per track; B/E are matched
 *    innermost-first in (ts, file order) order; then all spans (X and
 *    matched B/E) are ordered by start, longer first, file order, and
 *    nested.  A span starting where the open one ends is its sibling, unless
 *    both are B/E and the open one's E comes after the span's B in the file.
 *    A child that ends after its parent by at most the clip tolerance is
 *    clipped to the parent's end (child_clipped); a larger overlap ends the
 *    parent where the child starts (overlap_cut), so no time is lost.
 *  - regions still open at the end of a track, and X events without dur,
 *    are closed at the track's last timestamp (begin_unclosed).
 * Every repair adds the time it moved to tf_diag.ns.
 * A closed region adds 1 call and its self time (duration minus the
 * durations of its direct children) to its call path. */
#include <stdlib.h>
#include <string.h>
#include <inttypes.h>
#include <stdio.h>
#include "tracefold/stack.h"
#include "hmap.h"
#include "sat.h"

/* Call paths longer than this are folded (depth_limited). */
#define TF_STACK_MAX_DEPTH 4096u

/* When a sorted span ends, against events at its end timestamp (end_seq):
 * an X ends before anything that starts there (END_X); a B/E pair ends at
 * its E, whose place in the file is seq + 1; a region closed at the end of
 * its track ends after everything (END_LAST). */
#define END_X 0u
#define END_LAST UINT32_MAX

typedef struct frame {
	int64_t start_ns, end_ns; /* end known only for sorted tracks */
	int64_t child_ns;
	uint32_t node;
	tf_str name;
	uint32_t end_seq;
	uint8_t limited;          /* deeper than TF_STACK_MAX_DEPTH: folded */
} frame;

typedef struct span {
	int64_t start_ns, end_ns; /* end_ns INT64_MIN: X without dur, until the track's end */
	tf_str name;
	uint32_t seq;             /* the begin's place among the track's events */
	uint32_t end_seq;
	uint32_t unused;
} span;

typedef struct bemark {
	int64_t ts_ns;
	tf_str name;
	uint32_t seq;
	uint8_t is_end;
} bemark;

typedef struct cmark {
	int64_t ts_ns;
	double value;
	int type;
	uint32_t seq;
} cmark;

typedef struct tstate {
	frame *stack;
	uint32_t depth, capstack;
	span *spans;
	uint32_t nspans, capspans;
	bemark *marks;
	uint32_t nmarks, capmarks;
	cmark *counters;
	uint32_t ncounters, capcounters;
	uint32_t seq;
	int64_t first_ns, last_ns;
	uint32_t labelset;
	uint8_t seen, has_labels;
	uint8_t mode;      /* 0 unknown, 1 streamed, 2 sorted (tf_track.needs_sort) */
} tstate;

struct tf_stacks {
	tf_sink sink;
	tf_ctx *ctx;
	tf_agg *agg;
	tf_diag *diag;
	int t_calls, t_wall;
	bool dense_cw;        /* both in the agg's dense value vectors: always, on a new agg */
	tstate *tracks;
	uint32_t ntracks, captracks;
	/* counter selection: name id -> type index + 1 (0 = not selected) */
	const char *const *counters;
	int all_counters;
	tf_hmap counter_type; /* tf_str -> type index; UINT32_MAX-1 for "not selected" */
	int64_t min_ns, max_ns;
	int any_time;
	int64_t clip_tol_ns;
	tf_str unnamed;       /* "[unnamed]", interned on first use */
};

/* The track's label set, resolved when its first sample is added (for sorted
 * tracks that is after the input's metadata has been read). */
static int resolve_labels(tf_stacks *s, tstate *t)
{
	tf_label l[TF_AGG_MAX_LABELS];
	int n = tf_track_labels(s->ctx, (uint32_t)(t - s->tracks), l, TF_AGG_MAX_LABELS);
	t->labelset = tf_agg_labelset(s->agg, l, n);
	if (t->labelset == (uint32_t)-1)
		return TF_ENOMEM;
	t->has_labels = 1;
	return 0;
}

/* A call path's time beyond the int64 range: clamped, counted, said once. */
static void note_saturated(tf_stacks *s)
{
	if (!s->diag->n[TF_DIAG_saturated]++)
		tf_ctx_note(s->ctx, "the time of a call path exceeds the int64 range (292 years in ns): "
			    "clamped at its largest value");
}

static int close_frame(tf_stacks *s, tstate *t, int64_t end_ns)
{
	frame *f = &t->stack[--t->depth];
	int64_t dur = tf_sat_sub(end_ns, f->start_ns);
	if (dur < 0) {
		tf_diag_repair(s->diag, TF_DIAG_negative_duration, tf_sat_sub(0, dur));
		dur = 0;
	}
	int64_t self = tf_sat_sub(dur, f->child_ns);
	if (self < 0) /* children longer than the parent: only with non-monotonic clocks */
		self = 0;
	if (f->limited && self > 0) /* counted when opened; the time it folds */
		s->diag->ns[TF_DIAG_depth_limited] += (uint64_t)self;
	if (!t->has_labels)
		TF_TRY(resolve_labels(s, t));
	if (s->dense_cw) {
		int64_t *v = tf_agg_values(s->agg, f->node, t->labelset);
		if (!v)
			return TF_ENOMEM;
		v[s->t_calls] += 1;
		if (self > INT64_MAX - v[s->t_wall] && v[s->t_wall] >= 0)
			note_saturated(s);
		v[s->t_wall] = tf_sat_add(v[s->t_wall], self);
	} else {
		TF_TRY(tf_agg_add(s->agg, f->node, t->labelset, s->t_calls, 1));
		TF_TRY(tf_agg_add(s->agg, f->node, t->labelset, s->t_wall, self));
	}
	if (t->depth)
		t->stack[t->depth - 1].child_ns = tf_sat_add(t->stack[t->depth - 1].child_ns, dur);
	return 0;
}

static int push_frame(tf_stacks *s, tstate *t, tf_str name, int64_t start_ns, int64_t end_ns,
		      uint32_t end_seq)
{
	if (tf_grow((void **)&t->stack, &t->capstack, t->depth + 1, sizeof(frame)) < 0)
		return TF_ENOMEM;
	if (!name) { /* an event without a name still gets a visible frame */
		if (!s->unnamed)
			s->unnamed = tf_strtab_intern_cstr(tf_ctx_strtab(s->ctx), "[unnamed]");
		if (s->unnamed == (tf_str)-1) {
			s->unnamed = 0;
			return TF_ENOMEM;
		}
		name = s->unnamed;
	}
	uint32_t parent = t->depth ? t->stack[t->depth - 1].node : TF_AGG_ROOT;
	uint32_t node = parent;
	bool limited = t->depth >= TF_STACK_MAX_DEPTH;
	if (!limited) {
		node = tf_agg_child(s->agg, parent, name);
		if (node == (uint32_t)-1)
			return TF_ENOMEM;
	} else {
		/* damaged input (lost exits): every sample carries its whole path,
		 * so an unbounded depth d makes a profile of size d^2 (30000 B
		 * events without E: 4 GB).  Deeper frames still nest and match
		 * here, but their calls and self time go to the frame at the limit. */
		s->diag->n[TF_DIAG_depth_limited]++;
	}
	t->stack[t->depth++] = (frame){ start_ns, end_ns, 0, node, name, end_seq, limited };
	return 0;
}

static int counter_type(tf_stacks *s, tf_str name)
{
	if (!s->counters)
		return -1;
	uint32_t v = tf_hmap_get(&s->counter_type, name);
	if (v != UINT32_MAX)
		return v == UINT32_MAX - 1 ? -1 : (int)v;
	const char *text = tf_strtab_get(tf_ctx_strtab(s->ctx), name);
	int selected = s->all_counters;
	for (int i = 0; !selected && s->counters[i]; i++)
		selected = strcmp(s->counters[i], text) == 0;
	int type = -1;
	if (selected) {
		/* its own sample type, "counter:NAME": never the built-in calls or
		 * wall, whatever the counter is called */
		size_t n = strlen(text);
		char *tn = malloc(sizeof(TF_COUNTER_TYPE_PREFIX) + n);
		if (!tn)
			return -1;
		memcpy(tn, TF_COUNTER_TYPE_PREFIX, sizeof(TF_COUNTER_TYPE_PREFIX) - 1);
		memcpy(tn + sizeof(TF_COUNTER_TYPE_PREFIX) - 1, text, n + 1);
		type = tf_agg_type(s->agg, tn, "count");
		free(tn);
		if (type < 0)
			type = -1;
	}
	if (tf_hmap_put(&s->counter_type, name, type < 0 ? UINT32_MAX - 1 : (uint32_t)type) < 0)
		return -1;
	return type;
}

static int add_counter(tf_stacks *s, tstate *t, int type, double value)
{
	if (!t->has_labels)
		TF_TRY(resolve_labels(s, t));
	uint32_t node = t->depth ? t->stack[t->depth - 1].node : TF_AGG_ROOT;
	int64_t v = tf_sat_from_double(value);
	if (node == TF_AGG_ROOT) {
		/* pprof samples need a location: a counter outside any region goes to "[no region]" */
		node = tf_agg_child(s->agg, TF_AGG_ROOT, tf_strtab_intern_cstr(tf_ctx_strtab(s->ctx), "[no region]"));
		if (node == (uint32_t)-1)
			return TF_ENOMEM;
	}
	return tf_agg_add(s->agg, node, t->labelset, type, v);
}

static tstate *track_state(tf_stacks *s, uint32_t track)
{
	if (track >= s->ntracks) {
		if (tf_grow((void **)&s->tracks, &s->captracks, track + 1, sizeof(tstate)) < 0)
			return NULL;
		memset(s->tracks + s->ntracks, 0, (size_t)(track + 1 - s->ntracks) * sizeof(tstate));
		s->ntracks = track + 1;
	}
	return &s->tracks[track];
}

static void note_time(tstate *t, int64_t ts_ns)
{
	if (!t->seen) {
		t->first_ns = t->last_ns = ts_ns;
		t->seen = 1;
		return;
	}
	if (ts_ns < t->first_ns)
		t->first_ns = ts_ns;
	if (ts_ns > t->last_ns)
		t->last_ns = ts_ns;
}

static int stream_event(tf_stacks *s, tstate *t, const tf_event *ev)
{
	switch (ev->kind) {
	case TF_EV_BEGIN:
		return push_frame(s, t, ev->name, ev->ts_ns, 0, END_LAST);
	case TF_EV_END: {
		if (!t->depth) {
			s->diag->n[TF_DIAG_end_without_begin]++;
			return 0;
		}
		uint32_t k = t->depth; /* 1-based level of the region this END closes */
		if (ev->name && t->stack[t->depth - 1].name != ev->name) {
			k = 0;
			/* only the innermost TF_STACK_MAX_DEPTH open regions: on a
			 * deeper (damaged) stack, unmatched exits would make the
			 * scan quadratic */
			uint32_t stop = t->depth > TF_STACK_MAX_DEPTH ? t->depth - TF_STACK_MAX_DEPTH : 0;
			for (uint32_t i = t->depth; i-- > stop;)
				if (t->stack[i].name == ev->name) {
					k = i + 1;
					break;
				}
			if (!k) {
				s->diag->n[TF_DIAG_end_without_begin]++;
				return 0;
			}
			s->diag->n[TF_DIAG_exit_mismatch]++;
		}
		while (t->depth >= k)
			TF_TRY(close_frame(s, t, ev->ts_ns));
		return 0;
	}
	case TF_EV_COUNTER: {
		int type = counter_type(s, ev->name);
		return type >= 0 ? add_counter(s, t, type, ev->value) : 0;
	}
	default:
		return 0;
	}
}

static int buffer_event(tf_stacks *s, tstate *t, const tf_event *ev)
{
	uint32_t seq = t->seq++;
	switch (ev->kind) {
	case TF_EV_COMPLETE: {
		if (tf_grow((void **)&t->spans, &t->capspans, t->nspans + 1, sizeof(span)) < 0)
			return TF_ENOMEM;
		int64_t dur = ev->dur_ns;
		if (dur == TF_DUR_UNTIL_END) { /* still running when tracing stopped */
			t->spans[t->nspans++] = (span){ ev->ts_ns, INT64_MIN, ev->name, seq, END_LAST, 0 };
			return 0;
		}
		if (dur < 0) {
			tf_diag_repair(s->diag, TF_DIAG_negative_duration, -dur);
			dur = 0;
		}
		int64_t end_ns = tf_sat_add(ev->ts_ns, dur);
		t->spans[t->nspans++] = (span){ ev->ts_ns, end_ns, ev->name, seq, END_X, 0 };
		note_time(t, end_ns);
		return 0;
	}
	case TF_EV_BEGIN:
	case TF_EV_END:
		if (tf_grow((void **)&t->marks, &t->capmarks, t->nmarks + 1, sizeof(bemark)) < 0)
			return TF_ENOMEM;
		t->marks[t->nmarks++] = (bemark){ ev->ts_ns, ev->name, seq, ev->kind == TF_EV_END };
		return 0;
	case TF_EV_COUNTER: {
		int type = counter_type(s, ev->name);
		if (type < 0)
			return 0;
		if (tf_grow((void **)&t->counters, &t->capcounters, t->ncounters + 1, sizeof(cmark)) < 0)
			return TF_ENOMEM;
		t->counters[t->ncounters++] = (cmark){ ev->ts_ns, ev->value, type, seq };
		return 0;
	}
	default:
		return 0;
	}
}

static int on_event(tf_sink *sink, const tf_event *ev)
{
	tf_stacks *s = tf_container_of(sink, tf_stacks, sink);
	if (ev->kind != TF_EV_BEGIN && ev->kind != TF_EV_END && ev->kind != TF_EV_COMPLETE &&
	    ev->kind != TF_EV_COUNTER)
		return 0;
	tstate *t = ev->track < s->ntracks ? &s->tracks[ev->track] : track_state(s, ev->track);
	if (!t)
		return TF_ENOMEM;
	note_time(t, ev->ts_ns);
	if (!t->mode) {
		const tf_track *tr = tf_ctx_track_get(s->ctx, ev->track);
		t->mode = tr && tr->needs_sort ? 2 : 1;
	}
	if (t->mode == 2 || ev->kind == TF_EV_COMPLETE)
		return buffer_event(s, t, ev);
	return stream_event(s, t, ev);
}

static int span_cmp(const void *x, const void *y)
{
	const span *a = x, *b = y;
	if (a->start_ns != b->start_ns)
		return a->start_ns < b->start_ns ? -1 : 1;
	if (a->end_ns != b->end_ns)
		return a->end_ns > b->end_ns ? -1 : 1; /* longer first */
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* Stable by timestamp: at equal timestamps B and E keep their file order
 * (a region entered and left in the same microsecond stays one region). */
static int mark_cmp(const void *x, const void *y)
{
	const bemark *a = x, *b = y;
	if (a->ts_ns != b->ts_ns)
		return a->ts_ns < b->ts_ns ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static int cmark_cmp(const void *x, const void *y)
{
	const cmark *a = x, *b = y;
	if (a->ts_ns != b->ts_ns)
		return a->ts_ns < b->ts_ns ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* Sorts only when needed: inputs are often already in order. */
static void sort_if_needed(void *base, size_t n, size_t sz, int (*cmp)(const void *, const void *))
{
	char *p = base;
	for (size_t i = 1; i < n; i++)
		if (cmp(p + (i - 1) * sz, p + i * sz) > 0) {
			qsort(base, n, sz, cmp);
			return;
		}
}

/* B/E marks -> spans, innermost-first. */
static int match_marks(tf_stacks *s, tstate *t)
{
	sort_if_needed(t->marks, t->nmarks, sizeof(bemark), mark_cmp);
	uint32_t *open = NULL, nopen = 0, capopen = 0;
	for (uint32_t i = 0; i < t->nmarks; i++) {
		const bemark *m = &t->marks[i];
		if (!m->is_end) {
			if (tf_grow((void **)&open, &capopen, nopen + 1, sizeof(uint32_t)) < 0) {
				free(open);
				return TF_ENOMEM;
			}
			open[nopen++] = i;
			continue;
		}
		if (!nopen) {
			s->diag->n[TF_DIAG_end_without_begin]++;
			continue;
		}
		const bemark *b = &t->marks[open[--nopen]];
		if (tf_grow((void **)&t->spans, &t->capspans, t->nspans + 1, sizeof(span)) < 0) {
			free(open);
			return TF_ENOMEM;
		}
		t->spans[t->nspans++] = (span){ b->ts_ns, m->ts_ns, b->name, b->seq, m->seq + 1, 0 };
	}
	/* still open at the end of the track: close at its last timestamp */
	for (uint32_t k = 0; k < nopen; k++) {
		const bemark *b = &t->marks[open[k]];
		tf_diag_repair(s->diag, TF_DIAG_begin_unclosed, tf_sat_sub(t->last_ns, b->ts_ns));
		if (tf_grow((void **)&t->spans, &t->capspans, t->nspans + 1, sizeof(span)) < 0) {
			free(open);
			return TF_ENOMEM;
		}
		t->spans[t->nspans++] = (span){ b->ts_ns, t->last_ns, b->name, b->seq, END_LAST, 0 };
	}
	free(open);
	t->nmarks = 0;
	return 0;
}

static int drain_counters(tf_stacks *s, tstate *t, uint32_t *ci, int64_t upto_ns, int inclusive)
{
	while (*ci < t->ncounters &&
	       (t->counters[*ci].ts_ns < upto_ns || (inclusive && t->counters[*ci].ts_ns == upto_ns))) {
		const cmark *c = &t->counters[*ci];
		while (t->depth && t->stack[t->depth - 1].end_ns <= c->ts_ns)
			TF_TRY(close_frame(s, t, t->stack[t->depth - 1].end_ns));
		TF_TRY(add_counter(s, t, c->type, c->value));
		(*ci)++;
	}
	return 0;
}

/* Has the open frame f ended before span sp begins? */
static inline bool ended_before(const frame *f, const span *sp)
{
	return f->end_ns < sp->start_ns || (f->end_ns == sp->start_ns && f->end_seq <= sp->seq);
}

/* Nests a sorted track's buffered spans and feeds the aggregate. */
static int flush_sorted(tf_stacks *s, tstate *t)
{
	for (uint32_t i = 0; i < t->nspans; i++)
		if (t->spans[i].end_ns == INT64_MIN) { /* X without dur: until the track's end */
			span *sp = &t->spans[i];
			sp->end_ns = t->last_ns > sp->start_ns ? t->last_ns : sp->start_ns;
			tf_diag_repair(s->diag, TF_DIAG_begin_unclosed, tf_sat_sub(sp->end_ns, sp->start_ns));
		}
	TF_TRY(match_marks(s, t));
	sort_if_needed(t->spans, t->nspans, sizeof(span), span_cmp);
	sort_if_needed(t->counters, t->ncounters, sizeof(cmark), cmark_cmp);
	uint32_t ci = 0;
	for (uint32_t i = 0; i < t->nspans; i++) {
		span sp = t->spans[i];
		TF_TRY(drain_counters(s, t, &ci, sp.start_ns, 0));
		while (t->depth && ended_before(&t->stack[t->depth - 1], &sp))
			TF_TRY(close_frame(s, t, t->stack[t->depth - 1].end_ns));
		/* overlapping by more than the tolerance (Bazel's merged spans
		 * run seconds into the next action): the open region ends where
		 * this one starts, and this one continues at its level */
		while (t->depth && sp.end_ns > tf_sat_add(t->stack[t->depth - 1].end_ns, s->clip_tol_ns)) {
			tf_diag_repair(s->diag, TF_DIAG_overlap_cut,
				       tf_sat_sub(t->stack[t->depth - 1].end_ns, sp.start_ns));
			TF_TRY(close_frame(s, t, sp.start_ns));
		}
		if (t->depth && sp.end_ns > t->stack[t->depth - 1].end_ns) {
			tf_diag_repair(s->diag, TF_DIAG_child_clipped,
				       tf_sat_sub(sp.end_ns, t->stack[t->depth - 1].end_ns));
			sp.end_ns = t->stack[t->depth - 1].end_ns;
		}
		TF_TRY(push_frame(s, t, sp.name, sp.start_ns, sp.end_ns, sp.end_seq));
	}
	TF_TRY(drain_counters(s, t, &ci, INT64_MAX, 1));
	while (t->depth)
		TF_TRY(close_frame(s, t, t->stack[t->depth - 1].end_ns));
	free(t->spans);
	free(t->marks);
	free(t->counters);
	t->spans = NULL;
	t->marks = NULL;
	t->counters = NULL;
	t->nspans = t->capspans = t->nmarks = t->capmarks = t->ncounters = t->capcounters = 0;
	return 0;
}

static void note_span(tf_stacks *s, const tstate *t)
{
	if (!t->seen)
		return;
	if (!s->any_time || t->first_ns < s->min_ns)
		s->min_ns = t->first_ns;
	if (!s->any_time || t->last_ns > s->max_ns)
		s->max_ns = t->last_ns;
	s->any_time = 1;
}

static int finish_track(tf_stacks *s, uint32_t id)
{
	tstate *t = &s->tracks[id];
	if (t->nspans || t->nmarks || t->ncounters)
		TF_TRY(flush_sorted(s, t));
	while (t->depth) {
		tf_diag_repair(s->diag, TF_DIAG_begin_unclosed,
			       tf_sat_sub(t->last_ns, t->stack[t->depth - 1].start_ns));
		TF_TRY(close_frame(s, t, t->last_ns));
	}
	return 0;
}

static int on_end_input(tf_sink *sink, uint32_t input)
{
	tf_stacks *s = tf_container_of(sink, tf_stacks, sink);
	for (uint32_t i = 0; i < s->ntracks; i++) {
		const tf_track *tr = tf_ctx_track_get(s->ctx, i);
		if (tr && tr->input == input) {
			TF_TRY(finish_track(s, i));
			note_span(s, &s->tracks[i]);
			s->tracks[i].seen = 0;
		}
	}
	return 0;
}

tf_stacks *tf_stacks_new(tf_ctx *ctx, tf_agg *agg, const tf_stacks_opts *opts)
{
	tf_stacks *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->ctx = ctx;
	s->agg = agg;
	s->diag = tf_ctx_diag(ctx);
	s->clip_tol_ns = tf_ctx_opts(ctx)->clip_tolerance_ns;
	s->sink.event = on_event;
	s->sink.end_input = on_end_input;
	s->t_calls = tf_agg_type(agg, "calls", "count");
	s->t_wall = tf_agg_type(agg, "wall", "nanoseconds");
	if (s->t_calls < 0 || s->t_wall < 0) {
		free(s);
		return NULL;
	}
	tf_agg_set_default_type(agg, s->t_wall);
	s->dense_cw = s->t_calls < TF_AGG_DENSE_TYPES && s->t_wall < TF_AGG_DENSE_TYPES;
	if (opts && opts->counters && opts->counters[0]) {
		s->counters = opts->counters;
		for (int i = 0; opts->counters[i]; i++)
			if (strcmp(opts->counters[i], "all") == 0)
				s->all_counters = 1;
	}
	return s;
}

void tf_stacks_free(tf_stacks *s)
{
	if (!s)
		return;
	for (uint32_t i = 0; i < s->ntracks; i++) {
		free(s->tracks[i].stack);
		free(s->tracks[i].spans);
		free(s->tracks[i].marks);
		free(s->tracks[i].counters);
	}
	free(s->tracks);
	tf_hmap_free(&s->counter_type);
	free(s);
}

tf_sink *tf_stacks_sink(tf_stacks *s) { return &s->sink; }

int tf_stacks_finish(tf_stacks *s)
{
	for (uint32_t i = 0; i < s->ntracks; i++) {
		TF_TRY(finish_track(s, i));
		note_span(s, &s->tracks[i]);
		s->tracks[i].seen = 0;
	}
	if (s->any_time) {
		tf_agg_meta *m = tf_agg_meta_get(s->agg);
		/* pprof's time_nanos is wall-clock since the epoch: only when the
		 * trace's clock looks like one (after 2001-09-09), else 0 */
		m->time_nanos = s->min_ns >= 1000000000000000000ll ? s->min_ns : 0;
		m->duration_nanos = tf_sat_sub(s->max_ns, s->min_ns);
	}
	return 0;
}

int tf_track_labels(tf_ctx *ctx, uint32_t track, tf_label *out, int max)
{
	const tf_track *t = tf_ctx_track_get(ctx, track);
	tf_strtab *st = tf_ctx_strtab(ctx);
	int n = 0;
	if (!t || max < 2)
		return 0;
	char buf[32];
	if (t->rank >= 0) {
		snprintf(buf, sizeof(buf), "%" PRId64, t->rank);
		out[n++] = (tf_label){ tf_strtab_intern_cstr(st, "rank"), tf_strtab_intern_cstr(st, buf), 0, 0 };
	} else {
		out[n++] = (tf_label){ tf_strtab_intern_cstr(st, "pid"), t->process_key, 0, 0 };
	}
	out[n++] = (tf_label){ tf_strtab_intern_cstr(st, "thread"), t->thread_name ? t->thread_name : t->thread_key, 0, 0 };
	return n;
}
