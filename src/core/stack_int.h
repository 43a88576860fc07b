/* stack_int.h - the pieces of the stack builder (stack.h), each with its own
 * state, as Perfetto keeps its sorter apart from its slice tracker:
 *
 *   events --> stack.c: streamed tracks nested as they come -------------> spans
 *                 |  sorted tracks (and X events)                          ^
 *                 v                                                        |
 *              sorter.c: buffer, B/E matching, sort, spill (spill.h) --> stack.c nests
 *                                                                          |
 *              gpu_join.c: launches noted by stack.c; a GPU stream's ------+
 *                          activities joined to them
 *
 * stack.c drives both: the sorter and the GPU join never call stack.c, and
 * the GPU join uses the sorter only for its temporary file and to read a
 * stream's activities twice. */
#ifndef TF_STACK_INT_H
#define TF_STACK_INT_H

#include <stdbool.h>
#include "tracefold/ctx.h"
#include "tracefold/cpath.h"
#include "tracefold/event.h"
#include "tracefold/span.h"
#include "tracefold/stack.h"
#include "tracefold/agg_sink.h"
#include "spill.h"

/* ---- the sorter (sorter.c) ---- */

/* When a sorted span ends, against events at its end timestamp (end_seq):
 * an X ends before anything that starts there (TF_END_X); a B/E pair ends
 * at its E, whose place in the file is seq + 1; a region closed at the end
 * of its track ends after everything (TF_END_LAST). */
#define TF_END_X 0u
#define TF_END_LAST UINT32_MAX

/* A region of a sorted track (an X event, or a matched B/E pair). */
typedef struct tf_sorted_span {
	int64_t start_ns, end_ns; /* end_ns INT64_MIN: X without dur, until the track's end */
	tf_str name, cat;
	uint32_t seq;             /* the begin's place among the track's events */
	uint32_t end_seq;
	uint16_t flags;           /* TF_SPAN_* (6 bits) */
	uint16_t label;           /* TF_EVF_GPU_LABEL of its begin */
	tf_str op;                /* tf_event.op of its begin */
	uint64_t corr;            /* tf_event.corr of its begin */
} tf_sorted_span;
_Static_assert(sizeof(tf_sorted_span) == 48, "a span record of the sorter is 48 bytes (the sort budget counts them)");

/* A non-region event kept for the consumers until its sorted track is nested. */
typedef struct tf_sorted_event {
	tf_event ev;
	uint32_t seq;
	uint32_t zero;  /* no padding: the spill file codes every byte (spill.c) */
} tf_sorted_event;
_Static_assert(sizeof(tf_sorted_event) == sizeof(tf_event) + 8, "a kept event has no padding of its own");

typedef struct tf_sorter tf_sorter;

/* Buffers per track, within tf_read_opts.sort_mem_bytes (past it, sorted
 * runs in a temporary file in tf_read_opts.tmp_dir).  ctx is borrowed. */
tf_sorter *tf_sorter_new(tf_ctx *ctx);
void tf_sorter_free(tf_sorter *so); /* NULL-safe */

/* Buffers ev (an X, B or E, or another event a consumer wants) of track;
 * repairs a negative dur (negative_duration).  0 or a negative TF_E*. */
int tf_sorter_add(tf_sorter *so, uint32_t track, const tf_event *ev);
/* tf_sorter_add of an X with dur (a Kineto Python frame): clip(arg, sp) is
 * called with its span as the event made it (seq given, negative dur
 * repaired) before it is buffered, and may move its start, end and end_seq. */
typedef int (*tf_span_clip_fn)(void *arg, tf_sorted_span *sp);
int tf_sorter_add_x(tf_sorter *so, uint32_t track, const tf_event *ev, tf_span_clip_fn clip, void *arg);
/* All the track's spans in memory (those written to the temporary file
 * read back), the X events without dur ended at last_ns (begin_unclosed),
 * for tf_sorter_spans: the Python frames' exact path (pyframe.c). */
int tf_sorter_gather(tf_sorter *so, uint32_t track, int64_t last_ns);
/* What the sorter holds of track (spans, B/E pairs, kept events, in
 * memory and in runs), for the split of an input's end (stack_par.c);
 * *movable: it launches no GPU work and keeps no events (a counter, a
 * sample, a memory event), so a twin stack builder may nest it. */
uint64_t tf_sorter_weight(const tf_sorter *so, uint32_t track, bool *movable);
/* The sorter as a second thread reads it back at an input's end: the same
 * tracks (that thread reads only its own), ctx's diagnostics and failure, a
 * reader of the same file (tf_spill_reader) and a memory count of its own,
 * added back by tf_sorter_twin_end (which frees the twin).  Nothing may be
 * added to a twin. */
tf_sorter *tf_sorter_twin(const tf_sorter *so, tf_ctx *ctx);
void tf_sorter_twin_end(tf_sorter *so, tf_sorter *twin); /* NULL-safe */
/* Does the sorter hold anything of track? */
bool tf_sorter_holds(const tf_sorter *so, uint32_t track);
/* The track's spans in memory (after tf_sorter_gather: all of them, in
 * order), once the X events without dur end at last_ns (begin_unclosed):
 * for the Python-parent fix, before tf_sorter_open.  Borrowed. */
tf_sorted_span *tf_sorter_spans(tf_sorter *so, uint32_t track, int64_t last_ns, uint32_t *n_out);

/* A held track read back in order: its spans (start, longer first, file
 * order) and its other events (timestamp, file order). */
typedef struct tf_sorted {
	tf_merge spans, events;
} tf_sorted;

/* Matches the track's B/E marks (end_without_begin; what is still open ends
 * at last_ns: begin_unclosed) and opens c over everything held of it. */
int tf_sorter_open(tf_sorter *so, uint32_t track, int64_t last_ns, tf_sorted *c);
/* c->spans from the start again. */
int tf_sorter_rewind(tf_sorter *so, uint32_t track, tf_sorted *c);
/* Frees c and everything held of the track (also after a failed open). */
void tf_sorter_close(tf_sorter *so, uint32_t track, tf_sorted *c);

/* The temporary file, shared with the GPU join's launch table: made on
 * first use; 1 usable, -1 none can be made (the tracks stay in memory). */
int tf_sorter_spill_open(tf_sorter *so);
/* The file as it is (NULL before tf_sorter_spill_open made it), for runs
 * already written and their merges. */
tf_spill *tf_sorter_spill(const tf_sorter *so);
/* rc, after a write or read back of the file failed (TF_EIO): its error
 * (tf_spill_error: the folder and the cause) kept in the ctx as the run's
 * failure (tf_ctx_fail), so that the run fails naming it, not the input. */
int tf_sorter_failed(tf_sorter *so, int rc);

/* ---- Kineto Python frames (pyframe.c, docs/stack-rules.md) ---- */

/* A frame that can still be a parent: its id and its span as clipped. */
typedef struct tf_pyent {
	uint64_t id;
	int64_t start_ns, end_ns;
	uint32_t end_seq, zero;
} tf_pyent;

/* A frame as it came (the log the exact path replays), in arrival order. */
typedef struct tf_pyrec {
	int64_t start_ns, end_ns;
	uint64_t id, parent;
	uint32_t seq, end_seq;
} tf_pyrec;
_Static_assert(sizeof(tf_pyrec) == 40, "a Python frame's record has no padding (the spill file codes every byte)");

/* A sorted track's Python frames: while their ids rise and every parent
 * is one of the open frames, each is clipped as it comes; otherwise
 * (broken) the log is replayed at the track's end. */
typedef struct tf_pytrack {
	tf_pyent *open;        /* the frames that can still be parents, ids rising */
	uint32_t nopen, capopen;
	tf_pyrec *log;         /* the frames not yet in runs */
	uint32_t nlog, caplog;
	tf_runs runs;          /* the log's runs in the sorter's temporary file */
	uint64_t nframes, max_id;
	uint64_t nclip, clip_ns; /* python_parent_clipped so far (counted at the end) */
	bool broken;
} tf_pytrack;

/* Buffers ev (an X with dur and a Python id) of track, clipped to its parent. */
int tf_py_add(tf_pytrack *p, tf_sorter *so, uint32_t track, const tf_event *ev);
/* The track's end, before tf_sorter_open: what is not yet exact made so
 * (python_parent_clipped counted); p is emptied. */
int tf_py_fix(tf_pytrack *p, tf_sorter *so, uint32_t track, int64_t last_ns, tf_diag *d);
void tf_py_free(tf_pytrack *p);
/* Tracks that took the exact path (tests). */
uint64_t tf_py_replays(void);

/* ---- the GPU join (gpu_join.c, docs/gpu.md) ---- */

typedef struct tf_gpu_join tf_gpu_join;

/* The launch table: (input, correlation id) -> the CPU call with it; past
 * sort_mem_bytes / 2 in sorted runs in so's file.  All borrowed. */
tf_gpu_join *tf_gpu_join_new(tf_ctx *ctx, tf_cpath *cp, tf_sorter *so);
void tf_gpu_join_free(tf_gpu_join *g); /* NULL-safe */
/* A CPU call of track with correlation id corr closed: its GPU work goes
 * under node; the latest wins when an id repeats. */
int tf_gpu_join_launch(tf_gpu_join *g, uint32_t track, uint64_t corr, uint32_t node, int64_t start_ns);
/* An input is done: its correlation ids mean nothing to the next. */
void tf_gpu_join_forget(tf_gpu_join *g);

/* A sorted GPU stream's activities, joined to their launches in order. */
typedef struct tf_gpu_stream {
	tf_gpu_join *g;
	uint32_t track, input, idx;
	bool spilled;             /* launches in the file: the join's results in res */
	tf_runs res;
	tf_merge rm;
} tf_gpu_stream;

/* Ready for the activities that c (tf_sorter_open) holds of GPU stream
 * track; with launches in the file, reads c->spans once and rewinds it. */
int tf_gpu_stream_open(tf_gpu_join *g, uint32_t track, tf_sorted *c, tf_gpu_stream *gs);
/* The next activity sp, just popped from c->spans, as the span to hand on
 * (docs/gpu.md): not nested; its call path its launch's plus the activity,
 * else "[unattributed gpu]" plus the activity (gpu_attributed,
 * gpu_unattributed); an annotation a root frame with no time. */
int tf_gpu_stream_span(tf_gpu_stream *gs, const tf_sorted_span *sp, tf_span *out);
void tf_gpu_stream_close(tf_gpu_stream *gs);

/* ---- backward ops under forward ops (bwd.c, docs/gpu.md) ---- */

typedef struct tf_bwd tf_bwd;

/* --backward-to-forward's links of an input.  All borrowed. */
tf_bwd *tf_bwd_new(tf_ctx *ctx, tf_cpath *cp);
void tf_bwd_free(tf_bwd *b); /* NULL-safe */
/* Every event as it is read: keeps Kineto's fwdbwd flows and the first
 * start of each backward key (tf_event.bwd_key) of a track. */
int tf_bwd_note(tf_bwd *b, const tf_event *ev);
/* Does track hold backward ops?  Then it is nested after the input's other
 * CPU tracks, whose forward ops it needs.  False when b is NULL. */
bool tf_bwd_track_ends(const tf_bwd *b, uint32_t track);
/* Before track is nested: where its backward ops start (NULL-safe). */
int tf_bwd_track_open(tf_bwd *b, uint32_t track);
/* A CPU region of track opened at start_ns with call path node: the
 * forward op of a link when a flow starts there. */
int tf_bwd_forward(tf_bwd *b, uint32_t track, int64_t start_ns, uint32_t node);
/* A CPU region of track opening at start_ns, outside any backward op: 1
 * when it is a backward op, with *parent its forward op's call path +
 * "[backward]" when the link is found (bwd_linked; else bwd_unlinked and
 * *parent unchanged), 0 when it is none, or a negative TF_E*. */
int tf_bwd_parent(tf_bwd *b, uint32_t track, int64_t start_ns, int64_t dur_ns, uint32_t *parent);
/* The track is nested: its state goes (NULL-safe). */
void tf_bwd_track_done(tf_bwd *b, uint32_t track);
/* An input is done: its flow ids mean nothing to the next (NULL-safe). */
void tf_bwd_forget(tf_bwd *b);

/* *slot: text, interned on first use ("[unnamed]", "[unattributed gpu]"). */
static inline int tf_intern_once(tf_ctx *ctx, tf_str *slot, const char *text)
{
	if (!*slot)
		*slot = tf_strtab_intern_cstr(tf_ctx_strtab(ctx), text);
	if (*slot == (tf_str)-1) {
		*slot = 0;
		return TF_ENOMEM;
	}
	return 0;
}

/* ---- the stack builder's state (stack.c; stack_par.c nests part of an
 * input's tracks on a second thread with a twin of it) ---- */

/* Call paths longer than this are folded (depth_limited). */
#define TF_STACK_MAX_DEPTH 4096u
#define MAX_CONSUMERS 8

typedef struct frame {
	/* as the consumers get it: filled when it opens (node, depth, track,
	 * the end known so far), its end and self time set when it closes; handed
	 * over in place, never copied (issue 33) */
	tf_span sp;
	int64_t end_ns;           /* end known only for sorted tracks */
	int64_t child_ns;
	uint32_t end_seq;
	bool end_known;           /* sorted: end_ns is its end (so far) */
} frame;

typedef struct tstate {
	frame *stack;
	uint32_t depth, capstack;
	tf_pytrack py;         /* its Python frames (Kineto), nested by id */
	int64_t first_ns, last_ns;  /* of its regions and counters: its end closes what is open */
	int64_t sfirst_ns, slast_ns; /* of its samples: the run's time span only */
	uint8_t seen, sseen;
	uint8_t mode;      /* 0 unknown, 1 streamed, 2 sorted (tf_track.needs_sort) */
	uint8_t gpu;       /* streamed: a GPU stream (tf_track.kind, known when it is defined) */
	uint32_t bwd_root; /* --backward-to-forward: level (1-based) of the backward op open, 0 none */
	uint32_t id;       /* its track */
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
	tf_filter *filter;     /* the one consumer, in front of the others (tf_stacks_new) */
	tf_sorter *sorter;     /* sorted tracks' buffers (sorter.c) */
	tf_gpu_join *gpu;      /* launches and GPU streams (gpu_join.c) */
	tf_bwd *bwd;           /* --backward-to-forward (bwd.c); NULL without it */
	/* the aggregate's consumer and its aggregate when they are the only
	 * consumer (tf_stacks_end_agg): an input's end may then be split */
	tf_agg_sink *asink;
	tf_agg *agg;
	/* (parent, raw name) -> call path node (child_node): call stacks
	 * repeat, and a hit skips the name rules' and the tree's hash maps */
	struct kid {
		uint32_t parent, node; /* node 0: empty (the root is nobody's child) */
		tf_str name;
	} kid[4096];
};

/* Nests what is held of track id, closes what is still open, and says
 * the track's end to the consumers (stack.c). */
int tf_stacks_finish_track(tf_stacks *s, uint32_t id);
/* The run's time span widened to [first_ns, last_ns] (stack.c). */
void tf_stacks_note_range(tf_stacks *s, int64_t first_ns, int64_t last_ns);
/* Pass 0 of the end of input (its CPU tracks) on two threads when the run
 * has a spare one and the consumers only add up (stack_par.c): 1 done, 0
 * not taken (the caller does it on its own thread), or a negative TF_E*. */
int tf_stacks_end_split(tf_stacks *s, uint32_t input);

#endif
