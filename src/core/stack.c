/* stack.c - rebuilds every track's call stack and hands the matched regions
 * (spans, include/tracefold/span.h) to its consumers.
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
 * Every repair adds the time it moved to tf_diag.ns.  The stack builder
 * knows nothing of profiles: the aggregate is one consumer (agg_sink.c). */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <inttypes.h>
#include <stdio.h>
#include "tracefold/stack.h"
#include "hmap.h"
#include "sat.h"
#include "spill.h"

const tf_span_repair tf_span_repairs[TF_SPAN_NREPAIRS] = {
	{ TF_SPAN_CLIPPED, "clipped" },           { TF_SPAN_CUT, "cut" },
	{ TF_SPAN_UNCLOSED, "unclosed" },         { TF_SPAN_CLOSED_EARLY, "closed_early" },
	{ TF_SPAN_NEG_DURATION, "negative_duration" }, { TF_SPAN_DEPTH_LIMITED, "depth_limited" },
};

/* Call paths longer than this are folded (depth_limited). */
#define TF_STACK_MAX_DEPTH 4096u
#define MAX_CONSUMERS 8

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
	tf_str name, cat;
	uint32_t end_seq;
	uint32_t flags;           /* TF_SPAN_* so far */
	bool end_known;           /* sorted: end_ns is its end (so far) */
	uint32_t kind;            /* TF_SPAN_KIND_* */
	uint64_t corr;            /* tf_event.corr of its begin */
} frame;

typedef struct span {
	int64_t start_ns, end_ns; /* end_ns INT64_MIN: X without dur, until the track's end */
	tf_str name, cat;
	uint32_t seq;             /* the begin's place among the track's events */
	uint32_t end_seq;
	uint32_t flags;
	uint32_t label;           /* TF_EVF_GPU_LABEL of its begin */
	uint64_t corr;            /* tf_event.corr of its begin */
} span;

typedef struct bemark {
	int64_t ts_ns;
	tf_str name, cat;
	uint32_t seq;
	uint8_t is_end;
	uint8_t label;            /* TF_EVF_GPU_LABEL */
	uint64_t corr;
} bemark;

/* A non-region event kept for the consumers until its sorted track is nested. */
typedef struct kept {
	tf_event ev;
	uint32_t seq;
} kept;

/* A Python frame's place among a sorted track's spans, and its parent's
 * Python id (Kineto), for nesting by id (fix_python). */
typedef struct pylink {
	uint32_t span;
	uint64_t parent;
} pylink;

typedef struct tstate {
	frame *stack;
	uint32_t depth, capstack;
	span *spans;
	uint32_t nspans, capspans;
	bemark *marks;
	uint32_t nmarks, capmarks;
	kept *events;
	uint32_t nevents, capevents;
	pylink *py;            /* the Python frames with a parent id */
	uint32_t npy, cappy;
	tf_hmap pyidx;         /* Python id -> span index */
	bool has_py;           /* spans with a Python id: they stay in memory (fix_python) */
	size_t mem_bytes;      /* what spans, marks and events hold (counted in tf_stacks.mem_bytes) */
	tf_runs span_runs, event_runs; /* sorted runs written to tf_stacks.spill */
	uint32_t seq;
	int64_t first_ns, last_ns;
	uint8_t seen;
	uint8_t mode;      /* 0 unknown, 1 streamed, 2 sorted (tf_track.needs_sort) */
	uint8_t gpu;       /* streamed: a GPU stream (tf_track.kind, known when it is defined) */
} tstate;

struct tf_stacks {
	tf_sink sink;
	tf_ctx *ctx;
	tf_cpath *cp;
	tf_diag *diag;
	tf_span_sink *consumer[MAX_CONSUMERS];
	int nconsumers;
	tf_span_sink wants;    /* union of the consumers' event_kinds and event_flags */
	tstate *tracks;
	uint32_t ntracks, captracks;
	int64_t min_ns, max_ns;
	int any_time;
	int64_t clip_tol_ns;
	tf_str unnamed;        /* "[unnamed]", interned on first use */
	tf_str unattributed;   /* "[unattributed gpu]", likewise */
	/* (input, correlation id) -> call path of the CPU call with it: the
	 * launches of the input being finished, past sort_mem_bytes / 2 in
	 * sorted runs (join_launches) */
	struct launch *launch;
	uint32_t nlaunch, caplaunch, launch_seq;
	bool launch_dirty;     /* launch[] not sorted yet */
	tf_runs launch_runs;
	/* tf_stacks_new: the aggregate consumer it made, and where to put the time span */
	tf_agg_sink *own_agg_sink;
	tf_agg *agg;
	tf_filter *filter;     /* tf_stacks_opts.filter: the one consumer, in front of the others */
	/* sorted tracks past the memory budget: sorted runs in a temporary file */
	size_t mem_bytes, spill_at; /* buffered now; spill when it reaches spill_at (0 never) */
	tf_spill *spill;
	int spill_state;       /* 0 no file yet, 1 open, -1 none can be made: memory only */
};

/* ---- consumers ---- */

static int emit_open(tf_stacks *s, uint32_t track, const frame *f, uint32_t depth)
{
	tf_span sp = { track, f->node, depth, f->flags, f->name, f->cat, f->start_ns,
		       f->end_known ? f->end_ns : TF_SPAN_END_UNKNOWN, 0, f->kind, f->corr,
		       f->kind == TF_SPAN_KIND_GPU ? TF_SPAN_END_UNKNOWN : 0 };
	for (int i = 0; i < s->nconsumers; i++)
		if (s->consumer[i]->open)
			TF_TRY(s->consumer[i]->open(s->consumer[i], &sp));
	return 0;
}

static int emit_event(tf_stacks *s, tstate *t, const tf_event *ev)
{
	uint32_t node = t->depth ? t->stack[t->depth - 1].node : TF_CPATH_ROOT;
	for (int i = 0; i < s->nconsumers; i++)
		if (s->consumer[i]->event && tf_span_sink_wants(s->consumer[i], ev))
			TF_TRY(s->consumer[i]->event(s->consumer[i], ev, node));
	return 0;
}

static uint64_t launch_key(uint32_t input, uint64_t corr)
{
	return tf_mix64(corr * 0x9E3779B97F4A7C15ull ^ input);
}

/* A launch: by key, the latest (seq) wins when a correlation id repeats. */
typedef struct launch {
	uint64_t key;
	uint32_t node, seq;
	int64_t ts;               /* the launch's start */
} launch;

static int launch_cmp(const void *x, const void *y)
{
	const launch *a = x, *b = y;
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return (a->seq > b->seq) - (a->seq < b->seq);
}

static int spill_open(tf_stacks *s);

static int note_launch(tf_stacks *s, uint32_t track, uint64_t corr, uint32_t node, int64_t ts)
{
	const tf_track *tr = tf_ctx_track_get(s->ctx, track);
	if (tf_grow((void **)&s->launch, &s->caplaunch, s->nlaunch + 1, sizeof(launch)) < 0)
		return TF_ENOMEM;
	s->launch[s->nlaunch++] = (launch){ launch_key(tr ? tr->input : 0, corr), node, s->launch_seq++, ts };
	s->launch_dirty = true;
	size_t budget = tf_ctx_opts(s->ctx)->sort_mem_bytes / 2;
	if (budget && (size_t)s->nlaunch * sizeof(launch) >= budget && spill_open(s) == 1) {
		qsort(s->launch, s->nlaunch, sizeof(launch), launch_cmp);
		int r = tf_spill_write(s->spill, &s->launch_runs, s->launch, s->nlaunch, sizeof(launch), launch_cmp);
		if (r == TF_ENOMEM)
			return r;
		if (r == 0)
			s->nlaunch = 0;
		else /* keep them here; the runs written so far stay good */
			tf_ctx_warn(s->ctx, "cannot write the temporary file of sorted tracks (%s): the rest "
				    "stays in memory", strerror(errno));
		if (r < 0)
			s->spill_state = -1;
	}
	return 0;
}

static void forget_launches(tf_stacks *s)
{
	free(s->launch);
	s->launch = NULL;
	s->nlaunch = s->caplaunch = 0;
	s->launch_dirty = false;
	tf_runs_free(&s->launch_runs);
}

static int close_frame(tf_stacks *s, tstate *t, int64_t end_ns, uint32_t add_flags)
{
	frame *f = &t->stack[--t->depth];
	f->flags |= add_flags;
	int64_t dur = tf_sat_sub(end_ns, f->start_ns);
	if (dur < 0) {
		tf_diag_repair(s->diag, TF_DIAG_negative_duration, tf_sat_sub(0, dur));
		f->flags |= TF_SPAN_NEG_DURATION;
		dur = 0;
	}
	int64_t self = tf_sat_sub(dur, f->child_ns);
	if (self < 0) /* children longer than the parent: only with non-monotonic clocks */
		self = 0;
	if ((f->flags & TF_SPAN_DEPTH_LIMITED) && self > 0) /* counted when opened; the time it folds */
		s->diag->ns[TF_DIAG_depth_limited] += (uint64_t)self;
	uint32_t track = (uint32_t)(t - s->tracks);
	tf_span sp = { track, f->node, t->depth + 1, f->flags, f->name, f->cat,
		       f->start_ns, tf_sat_add(f->start_ns, dur), self, f->kind, f->corr,
		       f->kind == TF_SPAN_KIND_GPU ? TF_SPAN_END_UNKNOWN : 0 };
	if (f->corr && f->kind == TF_SPAN_KIND_CPU) /* a launch: its GPU work goes under this path */
		TF_TRY(note_launch(s, track, f->corr, f->node, f->start_ns));
	for (int i = 0; i < s->nconsumers; i++)
		if (s->consumer[i]->close)
			TF_TRY(s->consumer[i]->close(s->consumer[i], &sp));
	if (t->depth)
		t->stack[t->depth - 1].child_ns = tf_sat_add(t->stack[t->depth - 1].child_ns, dur);
	return 0;
}

/* *slot: text, interned on first use. */
static int intern_once(tf_stacks *s, tf_str *slot, const char *text)
{
	if (!*slot)
		*slot = tf_strtab_intern_cstr(tf_ctx_strtab(s->ctx), text);
	if (*slot == (tf_str)-1) {
		*slot = 0;
		return TF_ENOMEM;
	}
	return 0;
}

static int push_frame(tf_stacks *s, tstate *t, const frame *fr)
{
	if (tf_grow((void **)&t->stack, &t->capstack, t->depth + 1, sizeof(frame)) < 0)
		return TF_ENOMEM;
	frame f = *fr;
	if (!f.name) { /* an event without a name still gets a visible frame */
		TF_TRY(intern_once(s, &s->unnamed, "[unnamed]"));
		f.name = s->unnamed;
	}
	uint32_t parent = t->depth ? t->stack[t->depth - 1].node : TF_CPATH_ROOT;
	f.node = parent;
	f.child_ns = 0;
	if (t->depth < TF_STACK_MAX_DEPTH) {
		tf_str fname = tf_ctx_frame_name(s->ctx, f.name); /* stable names: names.h */
		f.node = fname == (tf_str)-1 ? (uint32_t)-1 : tf_cpath_child(s->cp, parent, fname);
		if (f.node == (uint32_t)-1)
			return TF_ENOMEM;
	} else {
		/* damaged input (lost exits): every sample carries its whole path,
		 * so an unbounded depth d makes a profile of size d^2 (30000 B
		 * events without E: 4 GB).  Deeper frames still nest and match
		 * here, but their calls and self time go to the frame at the limit. */
		s->diag->n[TF_DIAG_depth_limited]++;
		f.flags |= TF_SPAN_DEPTH_LIMITED;
	}
	t->stack[t->depth++] = f;
	return emit_open(s, (uint32_t)(t - s->tracks), &t->stack[t->depth - 1], t->depth);
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

/* ---- streamed tracks ---- */

static int stream_event(tf_stacks *s, tstate *t, const tf_event *ev)
{
	switch (ev->kind) {
	case TF_EV_BEGIN: {
		frame f = { .start_ns = ev->ts_ns, .name = ev->name, .cat = ev->cat, .end_seq = END_LAST,
			    .corr = ev->corr,
			    .kind = !t->gpu ? TF_SPAN_KIND_CPU : (ev->flags & TF_EVF_GPU_LABEL) ? TF_SPAN_KIND_GPU_LABEL
											     : TF_SPAN_KIND_GPU };
		return push_frame(s, t, &f);
	}
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
		while (t->depth > k)
			TF_TRY(close_frame(s, t, ev->ts_ns, TF_SPAN_CLOSED_EARLY));
		return close_frame(s, t, ev->ts_ns, 0);
	}
	default:
		return emit_event(s, t, ev);
	}
}

/* ---- sorted tracks ---- */

static int spill_all(tf_stacks *s);
static int buffer_one(tf_stacks *s, tstate *t, const tf_event *ev, uint32_t seq);

static int buffer_event(tf_stacks *s, tstate *t, const tf_event *ev)
{
	uint32_t seq = t->seq++;
	size_t before = t->mem_bytes;
	int rc = buffer_one(s, t, ev, seq);
	if (rc < 0 || t->mem_bytes == before)
		return rc;
	s->mem_bytes += t->mem_bytes - before;
	return s->spill_at && s->mem_bytes >= s->spill_at ? spill_all(s) : 0;
}

static int buffer_one(tf_stacks *s, tstate *t, const tf_event *ev, uint32_t seq)
{
	switch (ev->kind) {
	case TF_EV_COMPLETE: {
		if (tf_grow((void **)&t->spans, &t->capspans, t->nspans + 1, sizeof(span)) < 0)
			return TF_ENOMEM;
		int64_t dur = ev->dur_ns;
		t->mem_bytes += sizeof(span);
		if (dur == TF_DUR_UNTIL_END) { /* still running when tracing stopped */
			t->spans[t->nspans++] = (span){ ev->ts_ns, INT64_MIN, ev->name, ev->cat, seq, END_LAST,
							TF_SPAN_UNCLOSED, ev->flags & TF_EVF_GPU_LABEL, ev->corr };
			return 0;
		}
		uint32_t flags = 0;
		if (dur < 0) {
			tf_diag_repair(s->diag, TF_DIAG_negative_duration, -dur);
			flags = TF_SPAN_NEG_DURATION;
			dur = 0;
		}
		int64_t end_ns = tf_sat_add(ev->ts_ns, dur);
		t->spans[t->nspans++] = (span){ ev->ts_ns, end_ns, ev->name, ev->cat, seq, END_X, flags,
						ev->flags & TF_EVF_GPU_LABEL, ev->corr };
		note_time(t, end_ns);
		if (ev->id)
			t->has_py = true;
		if (ev->id && tf_hmap_set(&t->pyidx, ev->id, t->nspans - 1) < 0)
			return TF_ENOMEM;
		if (ev->id && ev->parent_id) {
			if (tf_grow((void **)&t->py, &t->cappy, t->npy + 1, sizeof(pylink)) < 0)
				return TF_ENOMEM;
			t->py[t->npy++] = (pylink){ t->nspans - 1, ev->parent_id };
		}
		return 0;
	}
	case TF_EV_BEGIN:
	case TF_EV_END:
		if (tf_grow((void **)&t->marks, &t->capmarks, t->nmarks + 1, sizeof(bemark)) < 0)
			return TF_ENOMEM;
		t->marks[t->nmarks++] = (bemark){ ev->ts_ns, ev->name, ev->cat, seq, ev->kind == TF_EV_END,
						  (ev->flags & TF_EVF_GPU_LABEL) != 0, ev->corr };
		t->mem_bytes += sizeof(bemark);
		return 0;
	default:
		if (!tf_span_sink_wants(&s->wants, ev))
			return 0;
		if (tf_grow((void **)&t->events, &t->capevents, t->nevents + 1, sizeof(kept)) < 0)
			return TF_ENOMEM;
		t->events[t->nevents++] = (kept){ *ev, seq };
		t->mem_bytes += sizeof(kept);
		return 0;
	}
}

static bool is_region(uint8_t kind)
{
	return kind == TF_EV_BEGIN || kind == TF_EV_END || kind == TF_EV_COMPLETE;
}

static int on_event(tf_sink *sink, const tf_event *ev)
{
	tf_stacks *s = tf_container_of(sink, tf_stacks, sink);
	bool region = is_region(ev->kind), wanted = tf_span_sink_wants(&s->wants, ev);
	/* regions and counters bound a track's time (its last timestamp closes
	 * what is still open); other events only go to consumers that want them */
	if ((!region && !wanted && ev->kind != TF_EV_COUNTER) || ev->track == TF_TRACK_NONE)
		return 0;
	tstate *t = ev->track < s->ntracks ? &s->tracks[ev->track] : track_state(s, ev->track);
	if (!t)
		return TF_ENOMEM;
	if (region || ev->kind == TF_EV_COUNTER)
		note_time(t, ev->ts_ns);
	if (!region && !wanted)
		return 0;
	if (!region)
		for (int i = 0; i < s->nconsumers; i++)
			if (s->consumer[i]->prepare && tf_span_sink_wants(s->consumer[i], ev))
				TF_TRY(s->consumer[i]->prepare(s->consumer[i], ev));
	if (!t->mode) {
		const tf_track *tr = tf_ctx_track_get(s->ctx, ev->track);
		t->mode = tr && tr->needs_sort ? 2 : 1;
		t->gpu = tr && tr->kind == TF_TRACK_GPU;
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

static int kept_cmp(const void *x, const void *y)
{
	const kept *a = x, *b = y;
	if (a->ev.ts_ns != b->ev.ts_ns)
		return a->ev.ts_ns < b->ev.ts_ns ? -1 : 1;
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

/* ---- memory bound: sorted runs in a temporary file ---- */

/* span_cmp, with the X events still running when tracing stopped last:
 * their end is the track's last timestamp, known only at its end, so they
 * stay in memory. */
static int spill_span_cmp(const void *x, const void *y)
{
	const span *a = x, *b = y;
	bool ua = a->end_ns == INT64_MIN, ub = b->end_ns == INT64_MIN;
	if (ua != ub)
		return ua ? 1 : -1;
	return span_cmp(x, y);
}

static int spill_track(tf_stacks *s, tstate *t)
{
	if (t->nspans && !t->has_py) { /* Python frames are nested by index (fix_python) */
		sort_if_needed(t->spans, t->nspans, sizeof(span), spill_span_cmp);
		uint32_t n = t->nspans;
		while (n && t->spans[n - 1].end_ns == INT64_MIN)
			n--;
		TF_TRY(tf_spill_write(s->spill, &t->span_runs, t->spans, n, sizeof(span), span_cmp));
		memmove(t->spans, t->spans + n, (size_t)(t->nspans - n) * sizeof(span));
		t->nspans -= n;
		t->mem_bytes -= (size_t)n * sizeof(span);
	}
	if (t->nevents) {
		sort_if_needed(t->events, t->nevents, sizeof(kept), kept_cmp);
		TF_TRY(tf_spill_write(s->spill, &t->event_runs, t->events, t->nevents, sizeof(kept), kept_cmp));
		t->mem_bytes -= (size_t)t->nevents * sizeof(kept);
		t->nevents = 0;
	}
	return 0;
}

/* The temporary file, made on first use: 1 open, -1 none can be made. */
static int spill_open(tf_stacks *s)
{
	if (!s->spill_state) {
		const char *dir = tf_ctx_opts(s->ctx)->tmp_dir;
		s->spill = tf_spill_new(dir);
		s->spill_state = s->spill ? 1 : -1;
		if (!s->spill)
			tf_ctx_warn(s->ctx, "cannot make a temporary file in %s (%s): the events of sorted tracks "
				    "stay in memory", dir && *dir ? dir : "/tmp", strerror(errno));
	}
	return s->spill_state;
}

/* Past the budget: every sorted track's spans and events go to the file as
 * sorted runs; their buffers are kept for what comes next.  Without a
 * file (none can be made, or the disk is full) everything stays in memory,
 * as with a budget of 0, and a note says so. */
static int spill_all(tf_stacks *s)
{
	size_t budget = tf_ctx_opts(s->ctx)->sort_mem_bytes;
	spill_open(s);
	for (uint32_t i = 0; i < s->ntracks && s->spill_state == 1; i++) {
		tstate *t = &s->tracks[i];
		size_t before = t->mem_bytes;
		int r = spill_track(s, t);
		s->mem_bytes -= before - t->mem_bytes;
		if (r == TF_EIO) {
			tf_ctx_warn(s->ctx, "cannot write the temporary file of sorted tracks (%s): the rest "
				    "stays in memory", strerror(errno));
			s->spill_state = -1;
		} else if (r < 0) {
			return r;
		}
	}
	/* what could not go (Python frames, B/E pairs) does not make every
	 * later event spill again: the next time is a budget further */
	s->spill_at = s->spill_state == 1 ? s->mem_bytes + budget : 0;
	return 0;
}

/* B/E marks -> spans, innermost-first. */
static int match_marks(tf_stacks *s, tstate *t)
{
	sort_if_needed(t->marks, t->nmarks, sizeof(bemark), mark_cmp);
	uint32_t *open = NULL, nopen = 0, capopen = 0;
	int rc = 0;
	for (uint32_t i = 0; i < t->nmarks && rc == 0; i++) {
		const bemark *m = &t->marks[i];
		if (!m->is_end) {
			if (tf_grow((void **)&open, &capopen, nopen + 1, sizeof(uint32_t)) < 0)
				rc = TF_ENOMEM;
			else
				open[nopen++] = i;
			continue;
		}
		if (!nopen) {
			s->diag->n[TF_DIAG_end_without_begin]++;
			continue;
		}
		const bemark *b = &t->marks[open[--nopen]];
		if (tf_grow((void **)&t->spans, &t->capspans, t->nspans + 1, sizeof(span)) < 0)
			rc = TF_ENOMEM;
		else
			t->spans[t->nspans++] = (span){ b->ts_ns, m->ts_ns, b->name, b->cat, b->seq, m->seq + 1, 0,
							b->label, b->corr };
	}
	/* still open at the end of the track: close at its last timestamp */
	for (uint32_t k = 0; k < nopen && rc == 0; k++) {
		const bemark *b = &t->marks[open[k]];
		tf_diag_repair(s->diag, TF_DIAG_begin_unclosed, tf_sat_sub(t->last_ns, b->ts_ns));
		if (tf_grow((void **)&t->spans, &t->capspans, t->nspans + 1, sizeof(span)) < 0)
			rc = TF_ENOMEM;
		else
			t->spans[t->nspans++] = (span){ b->ts_ns, t->last_ns, b->name, b->cat, b->seq, END_LAST,
							TF_SPAN_UNCLOSED, b->label, b->corr };
	}
	free(open);
	t->nmarks = 0;
	return rc;
}

/* Hands over the kept events before upto_ns (or at it, when inclusive),
 * each after closing the regions that ended by its time. */
static int drain_events(tf_stacks *s, tstate *t, tf_merge *em, int64_t upto_ns, int inclusive)
{
	for (const kept *p; (p = tf_merge_peek(em)) &&
			    (p->ev.ts_ns < upto_ns || (inclusive && p->ev.ts_ns == upto_ns));) {
		kept c = *p;
		TF_TRY(tf_merge_pop(em));
		while (t->depth && t->stack[t->depth - 1].end_ns <= c.ev.ts_ns)
			TF_TRY(close_frame(s, t, t->stack[t->depth - 1].end_ns, 0));
		TF_TRY(emit_event(s, t, &c.ev));
	}
	return 0;
}

/* Has the open frame f ended before span sp begins? */
static inline bool ended_before(const frame *f, const span *sp)
{
	return f->end_ns < sp->start_ns || (f->end_ns == sp->start_ns && f->end_seq <= sp->seq);
}

/* Python frames nest by their ids, not only by time: one that starts
 * before or ends after its parent (Kineto rounds each timestamp to the us
 * on its own) is clipped to the parent, counted with the time it moved. */
static void fix_python(tf_stacks *s, tstate *t)
{
	for (uint32_t i = 0; i < t->npy; i++) {
		uint32_t p = tf_hmap_get(&t->pyidx, t->py[i].parent);
		if (p == UINT32_MAX || p == t->py[i].span)
			continue;
		span *c = &t->spans[t->py[i].span];
		const span *par = &t->spans[p];
		int64_t moved = 0;
		if (c->start_ns < par->start_ns) {
			moved = tf_sat_add(moved, tf_sat_sub(par->start_ns, c->start_ns));
			c->start_ns = par->start_ns;
		}
		if (c->end_ns > par->end_ns) {
			moved = tf_sat_add(moved, tf_sat_sub(c->end_ns, par->end_ns));
			c->end_ns = par->end_ns;
			c->end_seq = par->end_seq;
		}
		if (c->end_ns < c->start_ns)
			c->end_ns = c->start_ns;
		if (moved)
			tf_diag_repair(s->diag, TF_DIAG_python_parent_clipped, moved);
	}
	free(t->py);
	t->py = NULL;
	t->npy = t->cappy = 0;
	tf_hmap_free(&t->pyidx);
}

/* A sorted track's buffered spans, complete and in start order, with its
 * runs in the temporary file merged in by sm and em. */
static int prepare_sorted(tf_stacks *s, tstate *t, tf_merge *sm, tf_merge *em)
{
	for (uint32_t i = 0; i < t->nspans; i++)
		if (t->spans[i].end_ns == INT64_MIN) { /* X without dur: until the track's end */
			span *sp = &t->spans[i];
			sp->end_ns = t->last_ns > sp->start_ns ? t->last_ns : sp->start_ns;
			tf_diag_repair(s->diag, TF_DIAG_begin_unclosed, tf_sat_sub(sp->end_ns, sp->start_ns));
		}
	fix_python(s, t);
	TF_TRY(match_marks(s, t));
	sort_if_needed(t->spans, t->nspans, sizeof(span), span_cmp);
	sort_if_needed(t->events, t->nevents, sizeof(kept), kept_cmp);
	TF_TRY(tf_merge_init(sm, s->spill, &t->span_runs, t->spans, t->nspans, sizeof(span), span_cmp));
	int r = tf_merge_init(em, s->spill, &t->event_runs, t->events, t->nevents, sizeof(kept), kept_cmp);
	if (r < 0)
		tf_merge_free(sm);
	return r;
}

static void free_sorted(tf_stacks *s, tstate *t, tf_merge *sm, tf_merge *em)
{
	tf_merge_free(sm);
	tf_merge_free(em);
	tf_runs_free(&t->span_runs);
	tf_runs_free(&t->event_runs);
	t->has_py = false;
	s->mem_bytes -= t->mem_bytes;
	t->mem_bytes = 0;
	free(t->spans);
	free(t->marks);
	free(t->events);
	t->spans = NULL;
	t->marks = NULL;
	t->events = NULL;
	t->nspans = t->capspans = t->nmarks = t->capmarks = t->nevents = t->capevents = 0;
}

/* One activity of a GPU stream, on its own (docs/gpu.md): no nesting (two
 * kernels that overlap both count in full), its call path the CPU launch
 * with the same correlation id (its input's CPU tracks were nested first)
 * plus the activity, else "[unattributed gpu]" plus the activity; an
 * annotation is a root frame of its own with no time (self 0). */
static int emit_gpu(tf_stacks *s, uint32_t track, const span *sp, uint32_t launched, int64_t launch_ns)
{
	tf_str name = sp->name;
	if (!name) {
		TF_TRY(intern_once(s, &s->unnamed, "[unnamed]"));
		name = s->unnamed;
	}
	int64_t dur = tf_sat_sub(sp->end_ns, sp->start_ns);
	uint32_t kind = sp->label ? TF_SPAN_KIND_GPU_LABEL : TF_SPAN_KIND_GPU, parent = TF_CPATH_ROOT;
	if (!sp->label) {
		parent = launched;
		if (parent == UINT32_MAX) {
			TF_TRY(intern_once(s, &s->unattributed, "[unattributed gpu]"));
			parent = tf_cpath_child(s->cp, TF_CPATH_ROOT, s->unattributed);
			tf_diag_repair(s->diag, TF_DIAG_gpu_unattributed, dur);
		} else {
			tf_diag_repair(s->diag, TF_DIAG_gpu_attributed, dur);
		}
	}
	tf_str fname = tf_ctx_frame_name(s->ctx, name);
	uint32_t node = parent == (uint32_t)-1 || fname == (tf_str)-1 ? (uint32_t)-1
									: tf_cpath_child(s->cp, parent, fname);
	if (node == (uint32_t)-1)
		return TF_ENOMEM;
	tf_span o = { track, node, 1, sp->flags, name, sp->cat, sp->start_ns, sp->end_ns,
		      kind == TF_SPAN_KIND_GPU_LABEL ? 0 : dur, kind, sp->corr,
		      kind == TF_SPAN_KIND_GPU && launched != UINT32_MAX ? launch_ns : TF_SPAN_END_UNKNOWN };
	for (int i = 0; i < s->nconsumers; i++)
		if (s->consumer[i]->open)
			TF_TRY(s->consumer[i]->open(s->consumer[i], &o));
	for (int i = 0; i < s->nconsumers; i++)
		if (s->consumer[i]->close)
			TF_TRY(s->consumer[i]->close(s->consumer[i], &o));
	return 0;
}

/* What a GPU activity asks of the launch table: its key, its place. */
typedef struct lreq {
	uint64_t key;
	uint32_t idx;
} lreq;

static int lreq_cmp(const void *x, const void *y)
{
	const lreq *a = x, *b = y;
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return (a->idx > b->idx) - (a->idx < b->idx);
}

/* The latest launch with key in the sorted launch[] (nothing spilled), or
 * NULL. */
static const launch *launch_find(const tf_stacks *s, uint64_t key)
{
	uint32_t lo = 0, hi = s->nlaunch;
	while (lo < hi) { /* the first launch with a larger key */
		uint32_t mid = lo + (hi - lo) / 2;
		if (s->launch[mid].key <= key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && s->launch[lo - 1].key == key ? &s->launch[lo - 1] : NULL;
}

typedef struct lres {
	uint32_t idx, node;
	int64_t ts;
} lres;

static int lres_cmp(const void *x, const void *y)
{
	const lres *a = x, *b = y;
	return (a->idx > b->idx) - (a->idx < b->idx);
}

/* Sorts n records and writes them as a run of rs. */
static int put_run(tf_stacks *s, tf_runs *rs, void *base, size_t n, size_t sz, tf_cmp_fn cmp)
{
	qsort(base, n, sz, cmp);
	return tf_spill_write(s->spill, rs, base, n, sz, cmp);
}

/* With launches in the temporary file, a sort-merge join in bounded memory:
 * (1) each activity's (key, place) to runs by key; (2) those merged beside
 * the launch table (by key) give (place, call path), to runs by place; (3)
 * the caller reads them back by place as it hands the activities on. */
static int join_launches(tf_stacks *s, tf_merge *sm, uint32_t input, tf_runs *out)
{
	size_t cap = tf_ctx_opts(s->ctx)->sort_mem_bytes / 8 / sizeof(lreq);
	if (cap < 4096)
		cap = 4096;
	tf_runs reqs = { 0 };
	lreq *req = malloc(cap * sizeof(lreq));
	lres *res = malloc(cap * sizeof(lres));
	int r = req && res ? 0 : TF_ENOMEM;
	size_t n = 0;
	uint32_t idx = 0;
	for (const span *p; r == 0 && (p = tf_merge_peek(sm)); idx++) {
		if (!p->label && p->corr) {
			req[n++] = (lreq){ launch_key(input, p->corr), idx };
			if (n == cap) {
				r = put_run(s, &reqs, req, n, sizeof(lreq), lreq_cmp);
				n = 0;
			}
		}
		if (r == 0)
			r = tf_merge_pop(sm);
	}
	if (r == 0)
		r = put_run(s, &reqs, req, n, sizeof(lreq), lreq_cmp);
	if (r == 0 && s->launch_dirty) {
		qsort(s->launch, s->nlaunch, sizeof(launch), launch_cmp);
		s->launch_dirty = false;
	}
	tf_merge rm = { 0 }, lm = { 0 };
	if (r == 0)
		r = tf_merge_init(&rm, s->spill, &reqs, NULL, 0, sizeof(lreq), lreq_cmp);
	if (r == 0)
		r = tf_merge_init(&lm, s->spill, &s->launch_runs, s->launch, s->nlaunch, sizeof(launch), launch_cmp);
	uint64_t key = 0;
	uint32_t found = UINT32_MAX;
	int64_t found_ts = 0;
	bool have = false;
	n = 0;
	for (const lreq *q; r == 0 && (q = tf_merge_peek(&rm));) {
		if (!have || q->key != key) {
			key = q->key;
			found = UINT32_MAX;
			have = true;
			for (const launch *l; r == 0 && (l = tf_merge_peek(&lm)) && l->key <= key;) {
				if (l->key == key) { /* equal keys come by seq: the last is the latest */
					found = l->node;
					found_ts = l->ts;
				}
				r = tf_merge_pop(&lm);
			}
		}
		res[n++] = (lres){ q->idx, found, found_ts };
		if (r == 0 && n == cap) {
			r = put_run(s, out, res, n, sizeof(lres), lres_cmp);
			n = 0;
		}
		if (r == 0)
			r = tf_merge_pop(&rm);
	}
	if (r == 0)
		r = put_run(s, out, res, n, sizeof(lres), lres_cmp);
	tf_merge_free(&rm);
	tf_merge_free(&lm);
	tf_runs_free(&reqs);
	free(req);
	free(res);
	return r;
}

/* A sorted GPU stream: every activity on its own, in start order. */
static int flush_gpu(tf_stacks *s, tstate *t, tf_merge *sm, tf_merge *em)
{
	uint32_t track = (uint32_t)(t - s->tracks);
	const tf_track *tr = tf_ctx_track_get(s->ctx, track);
	uint32_t input = tr ? tr->input : 0;
	if (!s->launch_runs.n) { /* the launch table is in memory */
		if (s->launch_dirty) {
			qsort(s->launch, s->nlaunch, sizeof(launch), launch_cmp);
			s->launch_dirty = false;
		}
		for (const span *p; (p = tf_merge_peek(sm));) {
			span sp = *p;
			TF_TRY(tf_merge_pop(sm));
			TF_TRY(drain_events(s, t, em, sp.start_ns, 0));
			const launch *l = !sp.label && sp.corr ? launch_find(s, launch_key(input, sp.corr)) : NULL;
			TF_TRY(emit_gpu(s, track, &sp, l ? l->node : UINT32_MAX, l ? l->ts : 0));
		}
		return drain_events(s, t, em, INT64_MAX, 1);
	}
	tf_runs resr = { 0 };
	tf_merge rm = { 0 };
	int r = join_launches(s, sm, input, &resr);
	/* the activities again, from the start (the merge only read them) */
	tf_merge_free(sm);
	if (r == 0)
		r = tf_merge_init(sm, s->spill, &t->span_runs, t->spans, t->nspans, sizeof(span), span_cmp);
	if (r == 0)
		r = tf_merge_init(&rm, s->spill, &resr, NULL, 0, sizeof(lres), lres_cmp);
	uint32_t idx = 0;
	for (const span *p; r == 0 && (p = tf_merge_peek(sm)); idx++) {
		span sp = *p;
		uint32_t node = UINT32_MAX;
		int64_t lts = 0;
		const lres *q = tf_merge_peek(&rm);
		if (q && q->idx == idx) {
			node = q->node;
			lts = q->ts;
			r = tf_merge_pop(&rm);
		}
		if (r == 0)
			r = tf_merge_pop(sm);
		if (r == 0)
			r = drain_events(s, t, em, sp.start_ns, 0);
		if (r == 0)
			r = emit_gpu(s, track, &sp, node, lts);
	}
	tf_merge_free(&rm);
	tf_runs_free(&resr);
	return r < 0 ? r : drain_events(s, t, em, INT64_MAX, 1);
}

/* Nests a sorted track's spans (sm) and hands them to the consumers. */
static int nest_sorted(tf_stacks *s, tstate *t, tf_merge *sm, tf_merge *em)
{
	for (const span *p; (p = tf_merge_peek(sm));) {
		span sp = *p;
		TF_TRY(tf_merge_pop(sm));
		TF_TRY(drain_events(s, t, em, sp.start_ns, 0));
		while (t->depth && ended_before(&t->stack[t->depth - 1], &sp))
			TF_TRY(close_frame(s, t, t->stack[t->depth - 1].end_ns, 0));
		/* overlapping by more than the tolerance (Bazel's merged spans
		 * run seconds into the next action): the open region ends where
		 * this one starts, and this one continues at its level */
		while (t->depth && sp.end_ns > tf_sat_add(t->stack[t->depth - 1].end_ns, s->clip_tol_ns)) {
			tf_diag_repair(s->diag, TF_DIAG_overlap_cut,
				       tf_sat_sub(t->stack[t->depth - 1].end_ns, sp.start_ns));
			TF_TRY(close_frame(s, t, sp.start_ns, TF_SPAN_CUT));
		}
		if (t->depth && sp.end_ns > t->stack[t->depth - 1].end_ns) {
			tf_diag_repair(s->diag, TF_DIAG_child_clipped,
				       tf_sat_sub(sp.end_ns, t->stack[t->depth - 1].end_ns));
			sp.end_ns = t->stack[t->depth - 1].end_ns;
			sp.end_seq = t->stack[t->depth - 1].end_seq; /* it now ends where its parent does */
			sp.flags |= TF_SPAN_CLIPPED;
		}
		frame f = { .start_ns = sp.start_ns, .end_ns = sp.end_ns, .name = sp.name, .cat = sp.cat,
			    .end_seq = sp.end_seq, .flags = sp.flags, .end_known = true, .corr = sp.corr };
		TF_TRY(push_frame(s, t, &f));
	}
	TF_TRY(drain_events(s, t, em, INT64_MAX, 1));
	while (t->depth)
		TF_TRY(close_frame(s, t, t->stack[t->depth - 1].end_ns, 0));
	return 0;
}

/* A sorted track, at its end: its buffered events (and runs) in order. */
static int flush_sorted(tf_stacks *s, tstate *t)
{
	const tf_track *tr = tf_ctx_track_get(s->ctx, (uint32_t)(t - s->tracks));
	tf_merge sm = { 0 }, em = { 0 };
	int r = prepare_sorted(s, t, &sm, &em);
	if (r < 0) {
		free_sorted(s, t, &sm, &em);
		return r;
	}
	r = tr && tr->kind == TF_TRACK_GPU ? flush_gpu(s, t, &sm, &em) : nest_sorted(s, t, &sm, &em);
	if (r == TF_EIO)
		tf_ctx_note(s->ctx, "cannot read back the temporary file of sorted tracks: %s", strerror(errno));
	free_sorted(s, t, &sm, &em);
	return r;
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
	if (t->nspans || t->nmarks || t->nevents || t->span_runs.n || t->event_runs.n)
		TF_TRY(flush_sorted(s, t));
	while (t->depth) {
		tf_diag_repair(s->diag, TF_DIAG_begin_unclosed,
			       tf_sat_sub(t->last_ns, t->stack[t->depth - 1].start_ns));
		TF_TRY(close_frame(s, t, t->last_ns, TF_SPAN_UNCLOSED));
	}
	if (t->seen)
		for (int i = 0; i < s->nconsumers; i++)
			if (s->consumer[i]->end_track)
				TF_TRY(s->consumer[i]->end_track(s->consumer[i], id));
	note_span(s, t);
	t->seen = 0;
	return 0;
}

/* The CPU tracks of the input first: their launches are where its GPU
 * activities go.  Correlation ids are the input's own: its launches are
 * forgotten once its GPU streams are done. */
static int on_end_input(tf_sink *sink, uint32_t input)
{
	tf_stacks *s = tf_container_of(sink, tf_stacks, sink);
	for (int gpu = 0; gpu < 2; gpu++)
		for (uint32_t i = 0; i < s->ntracks; i++) {
			const tf_track *tr = tf_ctx_track_get(s->ctx, i);
			if (tr && tr->input == input && (tr->kind == TF_TRACK_GPU) == gpu)
				TF_TRY(finish_track(s, i));
		}
	forget_launches(s);
	return 0;
}

/* ---- construction ---- */

tf_stacks *tf_stacks_new_spans(tf_ctx *ctx, tf_cpath *cp)
{
	tf_stacks *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->ctx = ctx;
	s->cp = cp;
	s->diag = tf_ctx_diag(ctx);
	s->clip_tol_ns = tf_ctx_opts(ctx)->clip_tolerance_ns;
	s->sink.event = on_event;
	s->sink.end_input = on_end_input;
	s->spill_at = tf_ctx_opts(ctx)->sort_mem_bytes;
	return s;
}

int tf_stacks_add_consumer(tf_stacks *s, tf_span_sink *k)
{
	if (s->filter) { /* behind the filter, which wants what they want */
		TF_TRY(tf_filter_add_consumer(s->filter, k));
		s->wants.event_kinds |= k->event_kinds;
		s->wants.event_flags |= k->event_flags;
		return 0;
	}
	if (s->nconsumers == MAX_CONSUMERS)
		return TF_EUSAGE;
	s->consumer[s->nconsumers++] = k;
	s->wants.event_kinds |= k->event_kinds;
	s->wants.event_flags |= k->event_flags;
	return 0;
}

tf_stacks *tf_stacks_new(tf_ctx *ctx, tf_agg *agg, const tf_stacks_opts *opts)
{
	tf_stacks *s = tf_stacks_new_spans(ctx, tf_agg_cpath(agg));
	if (!s)
		return NULL;
	s->agg = agg;
	if (opts && opts->filter) {
		if (tf_stacks_add_consumer(s, tf_filter_spans(opts->filter)) < 0) {
			tf_stacks_free(s);
			return NULL;
		}
		s->filter = opts->filter;
	}
	s->own_agg_sink = tf_agg_sink_new(ctx, agg, opts ? opts->counters : NULL);
	if (s->own_agg_sink && opts && opts->steps)
		tf_agg_sink_label_steps(s->own_agg_sink, opts->steps, opts->nsteps);
	if (!s->own_agg_sink || tf_stacks_add_consumer(s, tf_agg_sink_spans(s->own_agg_sink)) < 0) {
		tf_stacks_free(s);
		return NULL;
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
		free(s->tracks[i].events);
		free(s->tracks[i].py);
		tf_hmap_free(&s->tracks[i].pyidx);
		tf_runs_free(&s->tracks[i].span_runs);
		tf_runs_free(&s->tracks[i].event_runs);
	}
	tf_spill_free(s->spill);
	free(s->tracks);
	forget_launches(s);
	tf_agg_sink_free(s->own_agg_sink);
	free(s);
}

tf_sink *tf_stacks_sink(tf_stacks *s) { return &s->sink; }

int tf_stacks_finish(tf_stacks *s)
{
	for (int gpu = 0; gpu < 2; gpu++) /* CPU tracks first, as at the end of an input */
		for (uint32_t i = 0; i < s->ntracks; i++) {
			const tf_track *tr = tf_ctx_track_get(s->ctx, i);
			if ((tr && tr->kind == TF_TRACK_GPU) == gpu)
				TF_TRY(finish_track(s, i));
		}
	if (s->agg && s->any_time) {
		tf_agg_meta *m = tf_agg_meta_get(s->agg);
		/* pprof's time_nanos is wall-clock since the epoch: only when the
		 * trace's clock looks like one (after 2001-09-09), else 0 */
		m->time_nanos = s->min_ns >= 1000000000000000000ll ? s->min_ns : 0;
		m->duration_nanos = tf_sat_sub(s->max_ns, s->min_ns);
	}
	return 0;
}

int tf_stacks_time_span(const tf_stacks *s, int64_t *first_ns, int64_t *last_ns)
{
	if (!s->any_time)
		return 0;
	*first_ns = s->min_ns;
	*last_ns = s->max_ns;
	return 1;
}
