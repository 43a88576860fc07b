/* span.h - matched regions as a stream: what the stack builder hands every
 * consumer after its rules and repairs (docs/stack-rules.md).
 *
 *   readers --tf_event--> stack builder --spans--> consumers
 *                                                  (aggregate -> pprof/top/diff,
 *                                                   writers of timelines, tables)
 *
 * A span is one region instance on a track.  Per track, `open` comes in
 * start order and `close` in nesting order (innermost first), so opens and
 * closes nest properly and a consumer can write Enter/Leave or B/E as they
 * come.  The track's other events (counters, instants, messages, flows,
 * async) come through `event` in time order among them, each with the call
 * path active when it fired.  Every hook may be NULL. */
#ifndef TRACEFOLD_SPAN_H
#define TRACEFOLD_SPAN_H

#include <stdint.h>
#include "event.h"

/* What the stack builder repaired on a span (tf_span.flags); each agrees
 * with a diagnostics counter (diag.def). */
enum {
	TF_SPAN_CLIPPED = 1u << 0,        /* end clipped to its parent's (child_clipped) */
	TF_SPAN_CUT = 1u << 1,            /* ended where an overlapping region starts (overlap_cut) */
	TF_SPAN_UNCLOSED = 1u << 2,       /* closed at the end of its track (begin_unclosed) */
	TF_SPAN_CLOSED_EARLY = 1u << 3,   /* closed by an outer region's exit (exit_mismatch) */
	TF_SPAN_NEG_DURATION = 1u << 4,   /* a negative length made zero (negative_duration) */
	TF_SPAN_DEPTH_LIMITED = 1u << 5,  /* deeper than the limit: folded (depth_limited) */
};

/* Each TF_SPAN_* flag with the name the outputs give it ("clipped", "cut",
 * "unclosed", "closed_early", "negative_duration", "depth_limited"). */
#define TF_SPAN_NREPAIRS 6
typedef struct tf_span_repair {
	uint32_t flag;
	const char *name;
} tf_span_repair;
extern const tf_span_repair tf_span_repairs[TF_SPAN_NREPAIRS];

typedef struct tf_span {
	uint32_t track;
	uint32_t node;      /* call path (tf_cpath id); at the depth limit, the limit's node */
	uint32_t depth;     /* 1 = no enclosing region */
	uint32_t flags;     /* TF_SPAN_*: final at close */
	tf_str name, cat;
	int64_t start_ns;
	int64_t end_ns;     /* at open: known for sorted tracks (it may still be
			     * cut), TF_SPAN_END_UNKNOWN for streamed ones; final at close */
	int64_t self_ns;    /* at close: duration minus its direct children's */
	uint32_t kind;      /* TF_SPAN_KIND_* */
	uint64_t corr;      /* the correlation id of a GPU launch or activity (tf_event.corr), 0 none */
	int64_t launch_ns;  /* TF_SPAN_KIND_GPU: when the CPU call that launched it started
			     * (TF_SPAN_END_UNKNOWN: no launch found); else unused (0) */
	tf_str op;          /* TF_SPAN_KIND_GPU: the framework op it ran for (tf_event.op), 0 none */
} tf_span;

/* What a span's time is (docs/gpu.md). */
enum {
	TF_SPAN_KIND_CPU = 0,       /* a region on a CPU thread: wall time */
	TF_SPAN_KIND_GPU = 1,       /* an activity on a GPU stream (kernel, memcpy, memset):
				     * gpu time, its whole duration; node = the launching
				     * call path + the activity */
	TF_SPAN_KIND_GPU_LABEL = 2, /* an annotation on a GPU stream: no time of its own */
};

#define TF_SPAN_END_UNKNOWN INT64_MIN

typedef struct tf_span_sink tf_span_sink;
struct tf_span_sink {
	int (*open)(tf_span_sink *k, const tf_span *s);
	int (*close)(tf_span_sink *k, const tf_span *s);
	/* A non-region event of the track; node = the innermost open region's
	 * call path, TF_CPATH_ROOT outside any region. */
	int (*event)(tf_span_sink *k, const tf_event *ev, uint32_t node);
	/* Everything of the track was handed over. */
	int (*end_track)(tf_span_sink *k, uint32_t track);
	/* Everything of the input (tf_track.input) was handed over: each of
	 * its tracks ended. */
	int (*end_input)(tf_span_sink *k, uint32_t input);
	/* Each non-region event of the kinds wanted, as it arrives (input
	 * order, before a sorted track keeps it): for what a consumer numbers
	 * in input order (a sample type per counter), so that its output does
	 * not depend on the buffering. */
	int (*prepare)(tf_span_sink *k, const tf_event *ev);
	/* Which tf_ev_kind `event` wants (1u << kind; 0 = none): sorted tracks
	 * keep those events until the track is nested. */
	uint32_t event_kinds;
	/* And the events of other kinds with any of these tf_event.flags
	 * (TF_EVF_*: the aggregate wants memory events, not every instant). */
	uint32_t event_flags;
};

/* Does k want ev (through `event` and `prepare`)? */
static inline int tf_span_sink_wants(const tf_span_sink *k, const tf_event *ev)
{
	return (k->event_kinds & (1u << ev->kind)) || (k->event_flags & ev->flags);
}

#endif
