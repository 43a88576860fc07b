/* stack.c - rebuilds every track's call stack and hands the matched regions
 * (spans, include/tracefold/span.h) to its consumers.
 *
 * Rules (docs/stack-rules.md):
 *  - streamed tracks (TAU, OTF2): events in input order; BEGIN pushes, END
 *    pops the innermost region; an END naming a deeper region closes the
 *    inner ones first (exit_mismatch); an END with nothing open, or naming
 *    nothing open, is dropped (end_without_begin).
 *  - sorted tracks (Chrome JSON): buffered per track by the sorter
 *    (sorter.c), which matches B/E and gives back all spans (X and matched
 *    B/E) ordered by start, longer first, file order; here they are nested.
 *    A span starting where the open one ends is its sibling, unless both
 *    are B/E and the open one's E comes after the span's B in the file.  A
 *    child that ends after its parent by at most the clip tolerance is
 *    clipped to the parent's end (child_clipped); a larger overlap ends the
 *    parent where the child starts (overlap_cut), so no time is lost.
 *    Python frames are first clipped to their parents by id (pyframe.c).
 *  - regions still open at the end of a track, and X events without dur,
 *    are closed at the track's last timestamp (begin_unclosed).
 *  - a GPU stream's activities are not nested: each goes under the CPU call
 *    that launched it (gpu_join.c).
 * Every repair adds the time it moved to tf_diag.ns.  The stack builder
 * knows nothing of profiles: its caller adds the consumers (the pipeline:
 * the aggregate's, agg_sink.c, and any writer's). */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "tracefold/stack.h"
#include "stack_int.h"
#include "grow.h"
#include "sat.h"

const tf_span_repair tf_span_repairs[TF_SPAN_NREPAIRS] = {
	{ TF_SPAN_CLIPPED, "clipped" },           { TF_SPAN_CUT, "cut" },
	{ TF_SPAN_UNCLOSED, "unclosed" },         { TF_SPAN_CLOSED_EARLY, "closed_early" },
	{ TF_SPAN_NEG_DURATION, "negative_duration" }, { TF_SPAN_DEPTH_LIMITED, "depth_limited" },
};

/* ---- consumers ---- */

static int emit_open(tf_stacks *s, const frame *f)
{
	for (int i = 0; i < s->nconsumers; i++)
		if (s->consumer[i]->open)
			TF_TRY(s->consumer[i]->open(s->consumer[i], &f->sp));
	return 0;
}

static int emit_event(tf_stacks *s, tstate *t, const tf_event *ev)
{
	uint32_t node = t->depth ? t->stack[t->depth - 1].sp.node : TF_CPATH_ROOT;
	for (int i = 0; i < s->nconsumers; i++)
		if (s->consumer[i]->event && tf_span_sink_wants(s->consumer[i], ev))
			TF_TRY(s->consumer[i]->event(s->consumer[i], ev, node));
	return 0;
}

static int emit_gpu(tf_stacks *s, const tf_span *sp)
{
	for (int i = 0; i < s->nconsumers; i++)
		if (s->consumer[i]->open)
			TF_TRY(s->consumer[i]->open(s->consumer[i], sp));
	for (int i = 0; i < s->nconsumers; i++)
		if (s->consumer[i]->close)
			TF_TRY(s->consumer[i]->close(s->consumer[i], sp));
	return 0;
}

static int close_frame(tf_stacks *s, tstate *t, int64_t end_ns, uint32_t add_flags)
{
	frame *f = &t->stack[--t->depth];
	f->sp.flags |= add_flags;
	if (t->bwd_root > t->depth)
		t->bwd_root = 0;
	int64_t dur = tf_sat_sub(end_ns, f->sp.start_ns);
	if (dur < 0) {
		tf_diag_repair(s->diag, TF_DIAG_negative_duration, tf_sat_sub(0, dur));
		f->sp.flags |= TF_SPAN_NEG_DURATION;
		dur = 0;
	}
	int64_t self = tf_sat_sub(dur, f->child_ns);
	if (self < 0) /* children longer than the parent: only with non-monotonic clocks */
		self = 0;
	if ((f->sp.flags & TF_SPAN_DEPTH_LIMITED) && self > 0) /* counted when opened; the time it folds */
		s->diag->ns[TF_DIAG_depth_limited] += (uint64_t)self;
	f->sp.end_ns = tf_sat_add(f->sp.start_ns, dur);
	f->sp.self_ns = self;
	if (f->sp.corr && f->sp.kind == TF_SPAN_KIND_CPU && !s->gpu) /* a split's twin: never (stack_par.c) */
		return TF_ENOTIMPL;
	if (f->sp.corr && f->sp.kind == TF_SPAN_KIND_CPU) /* a launch: its GPU work goes under this path */
		TF_TRY(tf_gpu_join_launch(s->gpu, f->sp.track, f->sp.corr, f->sp.node, f->sp.start_ns));
	for (int i = 0; i < s->nconsumers; i++)
		if (s->consumer[i]->close)
			TF_TRY(s->consumer[i]->close(s->consumer[i], &f->sp));
	if (t->depth)
		t->stack[t->depth - 1].child_ns = tf_sat_add(t->stack[t->depth - 1].child_ns, dur);
	return 0;
}

/* The call path node of frame `name` (raw, before the name rules) under
 * parent; (uint32_t)-1 when out of memory.  The tree only grows, and
 * a name's frame never changes, so a cached answer stays right. */
static uint32_t child_node(tf_stacks *s, uint32_t parent, tf_str name)
{
	struct kid *c = &s->kid[(parent * 0x9E3779B1u ^ name * 0x85EBCA77u) >> 20];
	if (c->node && c->parent == parent && c->name == name)
		return c->node;
	tf_str fname = tf_ctx_frame_name(s->ctx, name); /* stable names: names.h */
	uint32_t node = fname == (tf_str)-1 ? (uint32_t)-1 : tf_cpath_child(s->cp, parent, fname);
	if (node != (uint32_t)-1)
		*c = (struct kid){ parent, node, name };
	return node;
}

static __attribute__((noinline)) int stack_grow(tstate *t)
{
	uint32_t cap = t->capstack;
	if (tf_grow((void **)&t->stack, &t->capstack, t->depth + 1, sizeof(frame)) < 0)
		return TF_ENOMEM;
	/* zeroed: the frames are filled field by field, so their padding (in
	 * the tf_span handed over) stays defined */
	memset(t->stack + cap, 0, (size_t)(t->capstack - cap) * sizeof(frame));
	return 0;
}

/* The next frame of t filled in with what its event says (then
 * push_frame), NULL when out of memory. */
static inline frame *frame_next(tstate *t, int64_t start_ns, tf_str name, tf_str cat, uint32_t flags, uint64_t corr,
				uint32_t kind)
{
	if (t->depth >= t->capstack && stack_grow(t) < 0)
		return NULL;
	frame *f = &t->stack[t->depth];
	f->sp.start_ns = start_ns;
	f->sp.name = name;
	f->sp.cat = cat;
	f->sp.flags = flags;
	f->sp.corr = corr;
	f->sp.kind = kind;
	return f;
}

/* Opens the frame filled in by frame_next (and its end_ns, end_known and
 * end_seq): its call path, then the consumers. */
static int push_frame(tf_stacks *s, tstate *t)
{
	frame *f = &t->stack[t->depth];
	if (!f->sp.name) { /* an event without a name still gets a visible frame */
		TF_TRY(tf_intern_once(s->ctx, &s->unnamed, "[unnamed]"));
		f->sp.name = s->unnamed;
	}
	uint32_t parent = t->depth ? t->stack[t->depth - 1].sp.node : TF_CPATH_ROOT;
	bool bwd = s->bwd && f->sp.kind == TF_SPAN_KIND_CPU;
	if (bwd && !t->bwd_root) { /* a backward op: under its forward op */
		int r = tf_bwd_parent(s->bwd, t->id, f->sp.start_ns,
				      f->end_known ? tf_sat_sub(f->end_ns, f->sp.start_ns) : 0, &parent);
		if (r < 0)
			return r;
		if (r)
			t->bwd_root = t->depth + 1;
	}
	f->sp.node = parent;
	f->child_ns = 0;
	if (t->depth < TF_STACK_MAX_DEPTH) {
		f->sp.node = child_node(s, parent, f->sp.name);
		if (f->sp.node == (uint32_t)-1)
			return TF_ENOMEM;
	} else {
		/* damaged input (lost exits): every sample carries its whole path,
		 * so an unbounded depth d makes a profile of size d^2 (30000 B
		 * events without E: 4 GB).  Deeper frames still nest and match
		 * here, but their calls and self time go to the frame at the limit. */
		s->diag->n[TF_DIAG_depth_limited]++;
		f->sp.flags |= TF_SPAN_DEPTH_LIMITED;
	}
	if (bwd)
		TF_TRY(tf_bwd_forward(s->bwd, t->id, f->sp.start_ns, f->sp.node));
	f->sp.track = t->id;
	f->sp.depth = ++t->depth;
	f->sp.end_ns = f->end_known ? f->end_ns : TF_SPAN_END_UNKNOWN;
	f->sp.self_ns = 0;
	f->sp.launch_ns = f->sp.kind == TF_SPAN_KIND_GPU ? TF_SPAN_END_UNKNOWN : 0;
	f->sp.op = 0;
	return emit_open(s, f);
}

static tstate *track_state(tf_stacks *s, uint32_t track)
{
	if (track >= s->ntracks) {
		if (tf_grow((void **)&s->tracks, &s->captracks, track + 1, sizeof(tstate)) < 0)
			return NULL;
		memset(s->tracks + s->ntracks, 0, (size_t)(track + 1 - s->ntracks) * sizeof(tstate));
		for (uint32_t i = s->ntracks; i <= track; i++)
			s->tracks[i].id = i;
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

/* A sample's time: it bounds the run's time span, never the track's
 * regions (a sample after the trace's end must not stretch what is still
 * open there). */
static void note_sample_time(tstate *t, int64_t ts_ns)
{
	if (!t->sseen || ts_ns < t->sfirst_ns)
		t->sfirst_ns = ts_ns;
	if (!t->sseen || ts_ns > t->slast_ns)
		t->slast_ns = ts_ns;
	t->sseen = 1;
}

/* ---- streamed tracks ---- */

static int stream_event(tf_stacks *s, tstate *t, const tf_event *ev)
{
	switch (ev->kind) {
	case TF_EV_BEGIN: {
		frame *f = frame_next(t, ev->ts_ns, ev->name, ev->cat, 0, ev->corr,
				      !t->gpu ? TF_SPAN_KIND_CPU
				      : (ev->flags & TF_EVF_GPU_LABEL) ? TF_SPAN_KIND_GPU_LABEL : TF_SPAN_KIND_GPU);
		if (!f)
			return TF_ENOMEM;
		f->end_ns = 0;
		f->end_seq = TF_END_LAST;
		f->end_known = false;
		return push_frame(s, t);
	}
	case TF_EV_END: {
		if (!t->depth) {
			s->diag->n[TF_DIAG_end_without_begin]++;
			return 0;
		}
		uint32_t k = t->depth; /* 1-based level of the region this END closes */
		if (ev->name && t->stack[t->depth - 1].sp.name != ev->name) {
			k = 0;
			/* only the innermost TF_STACK_MAX_DEPTH open regions: on a
			 * deeper (damaged) stack, unmatched exits would make the
			 * scan quadratic */
			uint32_t stop = t->depth > TF_STACK_MAX_DEPTH ? t->depth - TF_STACK_MAX_DEPTH : 0;
			for (uint32_t i = t->depth; i-- > stop;)
				if (t->stack[i].sp.name == ev->name) {
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

/* An event of a sorted track, or an X event, to the sorter; an X's end
 * bounds the track's time, and a Python frame (an X with an id) is clipped
 * to its parent on the way (pyframe.c). */
static int buffer_event(tf_stacks *s, tstate *t, const tf_event *ev)
{
	bool x = ev->kind == TF_EV_COMPLETE && ev->dur_ns != TF_DUR_UNTIL_END;
	if (x && ev->id)
		TF_TRY(tf_py_add(&t->py, s->sorter, ev->track, ev));
	else
		TF_TRY(tf_sorter_add(s->sorter, ev->track, ev));
	if (x)
		note_time(t, tf_sat_add(ev->ts_ns, ev->dur_ns < 0 ? 0 : ev->dur_ns));
	return 0;
}

static bool is_region(uint8_t kind)
{
	return kind == TF_EV_BEGIN || kind == TF_EV_END || kind == TF_EV_COMPLETE;
}

static __attribute__((noinline)) int any_event(tf_stacks *s, const tf_event *ev)
{
	if (s->bwd) /* fwdbwd flows and backward keys, whoever wants them */
		TF_TRY(tf_bwd_note(s->bwd, ev));
	bool region = is_region(ev->kind), wanted = tf_span_sink_wants(&s->wants, ev);
	/* regions, counters and samples bound a track's time (its last
	 * timestamp closes what is still open); other events only go to
	 * consumers that want them */
	bool bounds = region || ev->kind == TF_EV_COUNTER || ev->kind == TF_EV_SAMPLE;
	if ((!bounds && !wanted) || ev->track == TF_TRACK_NONE)
		return 0;
	tstate *t = ev->track < s->ntracks ? &s->tracks[ev->track] : track_state(s, ev->track);
	if (!t)
		return TF_ENOMEM;
	if (ev->kind == TF_EV_SAMPLE)
		note_sample_time(t, ev->ts_ns);
	else if (bounds)
		note_time(t, ev->ts_ns);
	if (!region && !wanted)
		return 0;
	if (!region)
		for (int i = 0; i < s->nconsumers; i++)
			if (s->consumer[i]->prepare && tf_span_sink_wants(s->consumer[i], ev))
				TF_TRY(s->consumer[i]->prepare(s->consumer[i], ev));
	if (!t->mode) {
		const tf_track *tr = tf_ctx_track_get(s->ctx, ev->track);
		t->mode = tr && (tr->needs_sort || tr->joined) ? 2 : 1;
		t->gpu = tr && tr->kind == TF_TRACK_GPU;
	}
	if (t->mode == 2 || ev->kind == TF_EV_COMPLETE)
		return buffer_event(s, t, ev);
	return stream_event(s, t, ev);
}

/* The usual events of a track seen before, as any_event would take them:
 * a BEGIN or END of a streamed track (TAU, OTF2: most events) straight to
 * stream_event, an X event or a sorted track's region straight to the
 * sorter (buffer_event); a counter no consumer wants only bounds the track's time;
 * another event no consumer wants that does not bound it (metadata) is
 * dropped. */
static int on_event(tf_sink *sink, const tf_event *ev)
{
	tf_stacks *s = tf_container_of(sink, tf_stacks, sink);
	if (ev->track < s->ntracks && !s->bwd) {
		tstate *t = &s->tracks[ev->track];
		if ((ev->kind == TF_EV_BEGIN || ev->kind == TF_EV_END) && t->mode == 1) {
			note_time(t, ev->ts_ns);
			return stream_event(s, t, ev);
		}
		/* an X event (Chrome JSON: most events), or a B or E of a sorted
		 * track: to the sorter */
		if (t->mode && (ev->kind == TF_EV_COMPLETE || (t->mode == 2 && is_region(ev->kind)))) {
			note_time(t, ev->ts_ns);
			return buffer_event(s, t, ev);
		}
		if (!tf_span_sink_wants(&s->wants, ev)) {
			if (ev->kind == TF_EV_COUNTER) {
				note_time(t, ev->ts_ns);
				return 0;
			}
			if (!is_region(ev->kind) && ev->kind != TF_EV_SAMPLE)
				return 0;
		}
	}
	return any_event(s, ev);
}

/* Hands over the kept events before upto_ns (or at it, when inclusive),
 * each after closing the regions that ended by its time; *next_ns: the
 * time of the next one left, INT64_MAX when none is (a span before it
 * needs no call: nest_sorted). */
static int drain_events(tf_stacks *s, tstate *t, tf_merge *em, int64_t upto_ns, int inclusive, int64_t *next_ns)
{
	const tf_sorted_event *p;
	while ((p = tf_merge_peek(em)) && (p->ev.ts_ns < upto_ns || (inclusive && p->ev.ts_ns == upto_ns))) {
		tf_sorted_event c = *p;
		TF_TRY(tf_merge_pop(em));
		while (t->depth && t->stack[t->depth - 1].end_ns <= c.ev.ts_ns)
			TF_TRY(close_frame(s, t, t->stack[t->depth - 1].end_ns, 0));
		TF_TRY(emit_event(s, t, &c.ev));
	}
	*next_ns = p ? p->ev.ts_ns : INT64_MAX;
	return 0;
}

/* Has the open frame f ended before span sp begins? */
static inline bool ended_before(const frame *f, const tf_sorted_span *sp)
{
	return f->end_ns < sp->start_ns || (f->end_ns == sp->start_ns && f->end_seq <= sp->seq);
}

/* A sorted GPU stream: every activity on its own, in start order, under
 * its launch (gpu_join.c); the stream's other events between them. */
static int flush_gpu(tf_stacks *s, tstate *t, tf_sorted *c)
{
	tf_gpu_stream gs;
	int64_t next_ns;
	int r = tf_gpu_stream_open(s->gpu, t->id, c, &gs);
	for (const tf_sorted_span *p; r == 0 && (p = tf_merge_peek(&c->spans));) {
		tf_sorted_span sp = *p;
		tf_span o;
		r = tf_merge_pop(&c->spans);
		if (r == 0)
			r = drain_events(s, t, &c->events, sp.start_ns, 0, &next_ns);
		if (r == 0)
			r = tf_gpu_stream_span(&gs, &sp, &o);
		if (r == 0)
			r = emit_gpu(s, &o);
	}
	tf_gpu_stream_close(&gs);
	return r < 0 ? r : drain_events(s, t, &c->events, INT64_MAX, 1, &next_ns);
}

/* Nests a sorted track's spans (c) and hands them to the consumers. */
static int nest_sorted(tf_stacks *s, tstate *t, tf_sorted *c)
{
	const tf_sorted_event *e = tf_merge_peek(&c->events);
	int64_t next_ns = e ? e->ev.ts_ns : INT64_MAX; /* the next kept event's time */
	for (const tf_sorted_span *p; (p = tf_merge_peek(&c->spans));) {
		tf_sorted_span sp = *p;
		TF_TRY(tf_merge_pop(&c->spans));
		if (next_ns < sp.start_ns)
			TF_TRY(drain_events(s, t, &c->events, sp.start_ns, 0, &next_ns));
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
		/* a GPU stream here nests in place, as a streamed one does */
		frame *f = frame_next(t, sp.start_ns, sp.name, sp.cat, sp.flags, sp.corr,
				      !t->gpu ? TF_SPAN_KIND_CPU : sp.label ? TF_SPAN_KIND_GPU_LABEL : TF_SPAN_KIND_GPU);
		if (!f)
			return TF_ENOMEM;
		f->end_ns = sp.end_ns;
		f->end_seq = sp.end_seq;
		f->end_known = true;
		TF_TRY(push_frame(s, t));
	}
	TF_TRY(drain_events(s, t, &c->events, INT64_MAX, 1, &next_ns));
	while (t->depth)
		TF_TRY(close_frame(s, t, t->stack[t->depth - 1].end_ns, 0));
	return 0;
}

/* A sorted track, at its end: what the sorter holds of it, in order. */
static int flush_sorted(tf_stacks *s, tstate *t)
{
	uint32_t track = t->id;
	const tf_track *tr = tf_ctx_track_get(s->ctx, track);
	tf_sorted c = { 0 };
	int r = tf_py_fix(&t->py, s->sorter, track, t->last_ns, s->diag);
	if (r == 0)
		r = tf_sorter_open(s->sorter, track, t->last_ns, &c);
	if (r < 0) {
		tf_sorter_close(s->sorter, track, &c);
		return tf_sorter_failed(s->sorter, r);
	}
	t->gpu = tr && tr->kind == TF_TRACK_GPU; /* a reader may have said so after the first event */
	r = tr && tf_track_gpu_joined(tr) ? flush_gpu(s, t, &c) : nest_sorted(s, t, &c);
	tf_sorter_close(s->sorter, track, &c);
	return tf_sorter_failed(s->sorter, r); /* the temporary file's, when it failed */
}

void tf_stacks_note_range(tf_stacks *s, int64_t first_ns, int64_t last_ns)
{
	if (!s->any_time || first_ns < s->min_ns)
		s->min_ns = first_ns;
	if (!s->any_time || last_ns > s->max_ns)
		s->max_ns = last_ns;
	s->any_time = 1;
}

static void note_span(tf_stacks *s, const tstate *t)
{
	if (t->seen)
		tf_stacks_note_range(s, t->first_ns, t->last_ns);
	if (t->sseen)
		tf_stacks_note_range(s, t->sfirst_ns, t->slast_ns);
}

int tf_stacks_finish_track(tf_stacks *s, uint32_t id)
{
	tstate *t = &s->tracks[id];
	TF_TRY(tf_bwd_track_open(s->bwd, id));
	if (tf_sorter_holds(s->sorter, id))
		TF_TRY(flush_sorted(s, t));
	while (t->depth) {
		tf_diag_repair(s->diag, TF_DIAG_begin_unclosed,
			       tf_sat_sub(t->last_ns, t->stack[t->depth - 1].sp.start_ns));
		TF_TRY(close_frame(s, t, t->last_ns, TF_SPAN_UNCLOSED));
	}
	if (t->seen || t->sseen)
		for (int i = 0; i < s->nconsumers; i++)
			if (s->consumer[i]->end_track)
				TF_TRY(s->consumer[i]->end_track(s->consumer[i], id));
	note_span(s, t);
	t->seen = t->sseen = 0;
	tf_bwd_track_done(s->bwd, id);
	return 0;
}

/* The order tracks are nested in: CPU tracks, then (--backward-to-forward)
 * those with backward ops, which need the forward ops' call paths, then
 * GPU streams, which need their launches'. */
static int track_pass(const tf_stacks *s, uint32_t id, const tf_track *tr)
{
	return tr && tr->kind == TF_TRACK_GPU ? 2 : tf_bwd_track_ends(s->bwd, id) ? 1 : 0;
}

/* The CPU tracks of the input first: their launches are where its GPU
 * activities go.  Correlation ids are the input's own: its launches are
 * forgotten once its GPU streams are done. */
static int on_end_input(tf_sink *sink, uint32_t input)
{
	tf_stacks *s = tf_container_of(sink, tf_stacks, sink);
	for (uint32_t i = 0; i < s->ntracks; i++) { /* for the timeline writers, first */
		const tf_track *tr = tf_ctx_track_get(s->ctx, i);
		if (tr && tr->input == input && s->tracks[i].seen)
			tf_ctx_note_first_ns(s->ctx, s->tracks[i].first_ns);
		if (tr && tr->input == input && s->tracks[i].sseen)
			tf_ctx_note_first_ns(s->ctx, s->tracks[i].sfirst_ns);
	}
	for (int pass = 0; pass < 3; pass++) {
		int split = pass == 0 ? tf_stacks_end_split(s, input) : 0; /* stack_par.c */
		if (split < 0)
			return split;
		for (uint32_t i = 0; i < s->ntracks && !split; i++) {
			const tf_track *tr = tf_ctx_track_get(s->ctx, i);
			if (tr && tr->input == input && track_pass(s, i, tr) == pass)
				TF_TRY(tf_stacks_finish_track(s, i));
		}
	}
	tf_gpu_join_forget(s->gpu);
	tf_bwd_forget(s->bwd);
	for (int i = 0; i < s->nconsumers; i++)
		if (s->consumer[i]->end_input)
			TF_TRY(s->consumer[i]->end_input(s->consumer[i], input));
	return 0;
}

/* ---- construction ---- */

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

tf_stacks *tf_stacks_new(tf_ctx *ctx, tf_cpath *cp, tf_filter *filter)
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
	s->sorter = tf_sorter_new(ctx);
	s->gpu = s->sorter ? tf_gpu_join_new(ctx, cp, s->sorter) : NULL;
	if (tf_ctx_opts(ctx)->backward_to_forward)
		s->bwd = tf_bwd_new(ctx, cp);
	if (!s->gpu || (tf_ctx_opts(ctx)->backward_to_forward && !s->bwd) || (filter && tf_stacks_add_consumer(s, tf_filter_spans(filter)) < 0)) {
		tf_stacks_free(s);
		return NULL;
	}
	s->filter = filter;
	return s;
}

void tf_stacks_free(tf_stacks *s)
{
	if (!s)
		return;
	for (uint32_t i = 0; i < s->ntracks; i++) {
		free(s->tracks[i].stack);
		tf_py_free(&s->tracks[i].py);
	}
	free(s->tracks);
	tf_bwd_free(s->bwd);
	tf_gpu_join_free(s->gpu);
	tf_sorter_free(s->sorter);
	free(s);
}

tf_sink *tf_stacks_sink(tf_stacks *s) { return &s->sink; }

int tf_stacks_finish(tf_stacks *s)
{
	for (int pass = 0; pass < 3; pass++) /* CPU tracks first, as at the end of an input */
		for (uint32_t i = 0; i < s->ntracks; i++)
			if (track_pass(s, i, tf_ctx_track_get(s->ctx, i)) == pass)
				TF_TRY(tf_stacks_finish_track(s, i));
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
