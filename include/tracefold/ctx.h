/* ctx.h - what one run shares across all its inputs: the string table, the
 * track (thread) table, diagnostics and options.  One tf_ctx per command run. */
#ifndef TRACEFOLD_CTX_H
#define TRACEFOLD_CTX_H

#include <stdint.h>
#include <stdbool.h>
#include "strtab.h"
#include "diag.h"
#include "err.h"
#include "sink.h"
#include "cpath.h"

typedef enum { TF_TRACK_CPU = 0, TF_TRACK_GPU = 1 } tf_track_kind;

/* One timeline: a thread of a process/rank (or a GPU stream). */
/* A tables input (src/read/tables.c) made of several inputs makes the
 * tracks of the k-th of them as those of input index + k x this, so that
 * their tracks and correlation ids stay apart (docs/format-tables.md). */
#define TF_TRACK_INPUT_STRIDE 65536u

typedef struct tf_track {
	uint32_t input;        /* index of the input file that defined it */
	tf_str process_key;    /* the input's own process id text (Chrome pid, TAU node, OTF2 group) */
	tf_str thread_key;     /* the input's own thread id text */
	tf_str process_name;   /* 0 if unknown */
	tf_str thread_name;    /* 0 if unknown */
	int64_t rank;          /* MPI rank / TAU node, -1 if unknown */
	uint8_t kind;          /* tf_track_kind */
	bool needs_sort;       /* reader cannot promise time order: buffer and sort per track */
	bool gpu_in_place;     /* a GPU stream whose regions nest where they are instead of
				* going under their launches (Score-P's GPU locations record
				* none), even when sorted: what a timeline of one says */
	int64_t sort_index;    /* Chrome thread_sort_index, else 0 */
	bool joined;           /* a sampled input's samples were put on it (tf_read_opts.join_from):
				* sorted with them, whatever its reader says (docs/samples.md) */
	bool counters_own;     /* its counters are the thread's own, not its process's (telemetry:
				* a device each): the Chrome writer gives them the thread's name as
				* id, which viewers key counters by with the name (docs/telemetry.md) */
} tf_track;

/* Whether the stack builder puts the track's regions under the CPU calls
 * that launched them (docs/gpu.md): a GPU stream of a sorted track (Kineto)
 * unless it nests in place; the timeline writers say so in their output. */
static inline bool tf_track_gpu_joined(const tf_track *t)
{
	return t->kind == TF_TRACK_GPU && t->needs_sort && !t->gpu_in_place;
}

typedef struct tf_ctx tf_ctx;

/* Default of tf_read_opts.clip_tolerance_ns: Kineto and PyTorch's legacy
 * exporter round start and end to microseconds independently. */
#define TF_CLIP_TOLERANCE_NS_DEFAULT 1000

/* Default of tf_read_opts.sort_mem_bytes: what the stack builder keeps of
 * the tracks it must sort (Chrome JSON) before it writes sorted runs to a
 * temporary file (docs/stack-rules.md, "Memory"). */
#define TF_SORT_MEM_DEFAULT (4u << 20)

/* Options that readers and the stack builder honour (tf_ctx_new sets the
 * defaults). */
/* What readers that read an input on two threads did (-v; tf_read_opts.
 * stage_stats): summed over such inputs. */
typedef struct tf_stage_stats {
	uint32_t inputs;          /* inputs read in two stages */
	uint64_t bytes;           /* their bytes (decompressed) */
	double wall_s;            /* the reads' wall time */
	double s1_cpu_s;          /* stage 1's thread's CPU time (bytes, top level, tokens) */
	double s1_wait_s;         /* stage 1 waiting for room in the queue */
	double s2_wait_s;         /* stage 2 (this thread) waiting for stage 1 */
	uint64_t events;          /* events handed over */
	uint64_t raw_events;      /* of them, tokenized by stage 2 (stage 1 found their end) */
	/* inputs whose end ran on two threads (src/core/stack_par.c), their
	 * CPU tracks, and of them those nested on the second thread: added
	 * atomically (several threads' inputs may end at once) */
	uint64_t end_inputs, end_tracks, end_moved;
} tf_stage_stats;

typedef struct tf_read_opts {
	const char *edf_path;     /* TAU: --edf for a lone .trc */
	bool show_tau_flush;      /* TAU: show buffer flushes as a [TAU trace flush] frame */
	bool keep_trace_span;     /* Chrome: keep Kineto's whole-trace span (X of cat "Trace") */
	int64_t clip_tolerance_ns; /* stack builder: a child overhanging its parent by at most
				    * this is clipped; a larger overlap cuts the parent */
	size_t sort_mem_bytes;     /* stack builder: buffered events of sorted tracks kept in
				    * memory before sorted runs go to a temporary file; 0 never */
	const char *tmp_dir;       /* where that file is made (NULL: /tmp) */
	const uint8_t *part_mask;  /* distributed runs: read only the parts i of the input with
				    * part_mask[i] != 0 (i < npart_mask; tf_format.parts); NULL all */
	size_t npart_mask;
	bool parts_for_threads;    /* tf_format.parts asked for threads of one process (-j): a
				    * format read one input at a time in a process answers one part */
	/* -j N where an input is read whole by this thread (fewer parts than
	 * threads: src/parallel/threads.c): how many threads its reader may
	 * use (a Chrome JSON file: 2, stage 1 tokenizing on its own thread,
	 * src/read/chrome_pipe.c); 0 or 1: this one only */
	int reader_threads;
	/* whether such a Chrome JSON regular file is read in two stages: 0 no
	 * (tf_ctx_new's default), 1 yes (stage 1 leaves events to stage 2 to
	 * tokenize while stage 2 would wait, to balance them), 2 yes with every
	 * event tokenized by stage 2 (for tests) */
	int two_stage;
	/* OTF2: events decoded on a thread of their own, the stacks built on
	 * this one (src/read/otf2_pipe.c; TRACEFOLD_THREADS=2, read by the
	 * command: docs/format-otf2.md); false (the default): one thread */
	bool otf2_pipeline;
	tf_stage_stats *stage_stats; /* out, added to by such readers; NULL: not asked */
	/* distributed runs: asked between parts and inputs; true stops the read
	 * with TF_ECANCEL (another process failed).  NULL: never */
	bool (*cancelled)(void *arg);
	void *cancel_arg;
	/* stable names (names.h): the rules applied to the frames of call
	 * paths (TF_NAMES_*; tf_ctx_new: all of them; --raw-names: none) */
	unsigned name_rules;
	/* --backward-to-forward: backward ops under their forward op's call
	 * path (docs/gpu.md "Backward under forward") */
	bool backward_to_forward;
	/* overview: the rank the labels of profiles give the tracks of input i
	 * (i - input_rank_first < ninput_rank) whose trace names none
	 * (tf_track.rank -1: from the file names, else the input's place:
	 * docs/overview.md "Ranks"); NULL: none, their pid is the label */
	const int64_t *input_rank;
	uint32_t input_rank_first, ninput_rank;
	/* sampled inputs (docs/samples.md): while join is set, the tracks that
	 * readers make for input join_from are those of input join_to (the
	 * trace the samples were taken of), so that the stack builder puts
	 * each sample under the regions open on its thread; and shift_ns is
	 * added to the time of every event (metadata aside) that tf_emit passes
	 * on (--clock-offset, set by the pipeline while it reads a sampled
	 * input: its samples, and a speedscope file's evented regions) */
	bool join;
	uint32_t join_from, join_to;
	int64_t shift_ns;
	int64_t clock_offset_ns;   /* --clock-offset: the sampled inputs' shift_ns */
	/* telemetry (docs/telemetry.md): the wall-clock time (CLOCK_REALTIME
	 * ns) of the time 0 of the first trace read whose reader knows it
	 * (tf_ctx_set_wall_base), the trace and how it was known; telemetry
	 * inputs are read after the traces and shifted by -wall_base_ns */
	bool wall_base_known;
	int64_t wall_base_ns;
	const char *wall_base_how;  /* "Kineto baseTimeNanoseconds" (static) */
	char wall_base_from[256];   /* the trace's path */
	/* the first later trace whose base differs (the telemetry says so) */
	char wall_base_other[256];
	int64_t wall_base_other_ns;
} tf_read_opts;

/* Half of --sort-mem, rounded up: the budget in memory of the notes kept
 * beside the sorted tracks (the GPU join's launches, the memory events, the
 * overview's notes) before they go to the temporary file; 0 (never) only
 * for --sort-mem 0. */
static inline size_t tf_sort_mem_half(const tf_read_opts *o)
{
	return o->sort_mem_bytes / 2 + (o->sort_mem_bytes & 1);
}

/* A trace reader that knows the wall-clock time of its time 0 says so
 * (how: a static text naming the source); the first one wins. */
void tf_ctx_set_wall_base(tf_ctx *c, int64_t ns, const char *trace, const char *how);

tf_ctx *tf_ctx_new(void);
/* A copy of c for a second thread that reads what c holds while c's own
 * thread goes on (src/core/stack_par.c): the same options, strings (the
 * same ids, in a table of its own) and tracks; diagnostics, notes,
 * failure, frames and collectives of its own (none).  NULL: out of memory. */
tf_ctx *tf_ctx_twin(const tf_ctx *c);
void tf_ctx_free(tf_ctx *c); /* NULL-safe */
tf_strtab *tf_ctx_strtab(tf_ctx *c);
/* The run's collectives (coll.h): NULL while none was noted, unless make
 * (then NULL only when out of memory). */
typedef struct tf_coll tf_coll;
tf_coll *tf_ctx_coll(tf_ctx *c, bool make);
tf_diag *tf_ctx_diag(tf_ctx *c);
tf_read_opts *tf_ctx_opts(tf_ctx *c);

/* Finds or creates the track (input, process_key, thread_key); returns its
 * id or (uint32_t)-1 on allocation failure.  The returned id is stable. */
uint32_t tf_ctx_track(tf_ctx *c, uint32_t input, tf_str process_key, tf_str thread_key);
tf_track *tf_ctx_track_get(tf_ctx *c, uint32_t id); /* valid until the next tf_ctx_track() */
/* The track (input, process_key, thread_key) if it exists, else UINT32_MAX. */
uint32_t tf_ctx_track_find(const tf_ctx *c, uint32_t input, tf_str process_key, tf_str thread_key);
/* The tracks of one process (input, process_key), in no particular order:
 * for (id = tf_ctx_process_first(..); id != UINT32_MAX; id = tf_ctx_process_next(c, id)). */
uint32_t tf_ctx_process_first(tf_ctx *c, uint32_t input, tf_str process_key);
uint32_t tf_ctx_process_next(const tf_ctx *c, uint32_t track);
uint32_t tf_ctx_track_count(const tf_ctx *c);

/* Sets the process name of every track of (input, process_key), present and future. */
void tf_ctx_set_process_name(tf_ctx *c, uint32_t input, tf_str process_key, tf_str name);

/* The frame a region named raw gets in call paths: raw with the stable-name
 * rules of the ctx's options applied (names.h), interned; raw itself when
 * no rule changes it.  Cached per name.  (tf_str)-1 when out of memory. */
tf_str tf_ctx_frame_name(tf_ctx *c, tf_str raw);

/* The run's sample stacks (TF_EV_SAMPLE's id, event.h): a tree of raw frame
 * names like the call-path tree (cpath.h), so that a sample is one id and a
 * stack met again costs no memory.  The child of stack parent
 * (TF_CPATH_ROOT: the empty stack) named frame, created if new;
 * (uint32_t)-1 when out of memory.  tf_ctx_stacks: the tree, NULL while
 * no stack was made. */
uint32_t tf_ctx_stack_child(tf_ctx *c, uint32_t parent, tf_str frame);
const tf_cpath *tf_ctx_stacks(const tf_ctx *c);

/* Notes: where a diag counter says what was repaired or skipped, a note says
 * where ("truncated last record at byte N of 'F'").  Readers add them, commands
 * print them.  The first TF_CTX_MAX_NOTES are kept, later ones only counted. */
#define TF_CTX_MAX_NOTES 64
/* The earliest time of the run's regions and counters known so far: the
 * stack builder notes each input's before it hands over the spans of its
 * sorted tracks, so that a timeline writer whose times cannot be negative
 * (Bazel's profiles start at -85 ms) can shift them all before it writes
 * the first (docs/robustness.md, issue 26).  False when none is known. */
void tf_ctx_note_first_ns(tf_ctx *c, int64_t ns);
bool tf_ctx_first_ns(const tf_ctx *c, int64_t *ns);

void tf_ctx_note(tf_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
size_t tf_ctx_nnotes(const tf_ctx *c);       /* all notes, kept or not */
const char *tf_ctx_note_get(const tf_ctx *c, size_t i); /* NULL if not kept */
/* Warnings: what a command must say even without repairs (an input mostly
 * lost, a --counters name that matched nothing).  Kept like notes. */
void tf_ctx_warn(tf_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
size_t tf_ctx_nwarnings(const tf_ctx *c);
const char *tf_ctx_warning_get(const tf_ctx *c, size_t i);

/* Failures that are not an input's: an output's writer (a full disk) or
 * the stack builder's temporary file failed while the inputs were read.
 * The consumer keeps its error here before it returns the code, and the
 * pipeline reports it instead of blaming the input that was being read
 * ("cannot write 'OUT': No space left on device", not "cannot read 'IN'").
 * The first is kept; returns e->code. */
int tf_ctx_fail(tf_ctx *c, const tf_error *e);
/* The failure kept, or NULL. */
const tf_error *tf_ctx_failure(const tf_ctx *c);

/* Accounting: every event a reader decodes goes through exactly one of these.
 * tf_emit counts it by kind (events_read and ev_<kind>) and passes it on;
 * tf_count_skip counts an event that is not passed on (events_read and `why`,
 * e.g. TF_DIAG_ev_other, TF_DIAG_ev_tracer, TF_DIAG_bad_event). */
int tf_emit(tf_ctx *ctx, tf_sink *sink, const tf_event *ev);
void tf_count_skip(tf_ctx *ctx, tf_diag_id why);

#endif
