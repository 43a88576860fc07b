/* tracefold/record.h - record a Perfetto trace from a C or C++ program
 * (libtracefold-record; pkg-config tracefold-record; docs/record.md).
 *
 *   tfr *r = tfr_open("run.%p.pftrace", NULL);      // %p: the process id
 *   tfr_begin(r, 0, "step");                        // 0: this thread's track
 *   tfr_arg_int(r, "batch", 32);                    // on the next event
 *   tfr_begin(r, 0, "forward");
 *   tfr_end(r, 0);
 *   tfr_end(r, 0);
 *   tfr_close(r);                                   // then: tracefold profile run.*.pftrace
 *
 * What it writes: a Perfetto protobuf trace (a sequence of TracePackets)
 * that tracefold and Perfetto's UI and trace processor read: one packet
 * sequence per thread (its own track, interned event and annotation names,
 * timestamps as nanoseconds since the sequence's previous packet on an
 * incremental clock whose base is CLOCK_MONOTONIC), a descriptor per
 * process, thread, track and counter track.
 *
 * Threads: every call may come from any thread at once.  Each thread
 * encodes its events into a buffer of its own (no lock, no atomic
 * read-modify-write on the fast path); a full buffer is handed to the
 * recording's one writer thread, which writes it to the file.  The buffers
 * handed over and not yet written are bounded by tfr_opts.buffer_bytes;
 * when they are full, the calling thread waits for the writer (the
 * default: nothing is lost), or, with drop_when_full, the event is dropped
 * and counted: every thread's count is written into the trace (a counter
 * track "tracefold.dropped_events" of its thread; tracefold reports the
 * total as the recorder_dropped diagnostic).  An end whose begin was
 * written is not dropped while its thread has room kept for ends.
 *
 * A thread's buffer reaches the file when it is full, on tfr_flush from
 * that thread, when the thread exits, and at tfr_close.  tfr_close must come
 * after every other thread has stopped recording into r (they may still be
 * running); the calls on r from then on are undefined, as after free().
 *
 * The file: written as PATH.tmp-PID and renamed to PATH by tfr_close (a
 * crashed program leaves its packets so far in the .tmp file, readable
 * as a trace).  "%p" in PATH is replaced by the process id, "%%" by "%":
 * several processes (MPI ranks, multiprocessing workers) write a file each,
 * and tracefold reads them together (tracefold profile run.*.pftrace: one
 * input, one rank, each).  TFR_SHARED in tfr_open_ex's flags instead
 * appends every buffer to PATH itself with one write (O_APPEND): several
 * processes may share one file (sequence ids and track uuids are drawn per
 * process so that they do not meet).
 *
 * fork: the child's copies of the parent's recordings do nothing (their
 * writer thread is not in the child; tfr_close on one frees it and leaves
 * the parent's file alone); the child may open one of its own ("%p").
 *
 * Names and strings are copied: they need not outlive the call.  Nothing
 * here prints or exits; a failing write is kept and returned by tfr_close
 * (and tfr_flush), and recording goes on (its buffers are discarded). */
#ifndef TRACEFOLD_RECORD_H
#define TRACEFOLD_RECORD_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define TFR_API __attribute__((visibility("default")))
#else
#define TFR_API
#endif

typedef struct tfr tfr;     /* one recording: owns its output file */
typedef uint64_t tfr_track; /* 0: the calling thread's own track */

typedef struct {
	size_t buffer_bytes; /* memory of the handed-over buffers not yet written, at most (0: 8 MiB) */
	int drop_when_full;  /* 0: wait for the writer; 1: drop and count */
} tfr_opts;

#define TFR_SHARED 1u /* tfr_open_ex: append to PATH itself, shared by processes */

/* NULL on error, errno set (EINVAL: a bad option or path; the open's). */
TFR_API tfr *tfr_open(const char *path, const tfr_opts *opts);
TFR_API tfr *tfr_open_ex(const char *path, const tfr_opts *opts, unsigned flags);
/* Flushes every thread's buffer, stops the writer, renames the file into
 * place, frees r.  0, or a negative errno of the first failing write,
 * close or rename (the .tmp file is then removed). */
TFR_API int tfr_close(tfr *r);
/* Hands the calling thread's buffer to the writer and waits until
 * everything handed over so far is written.  0 or a negative errno. */
TFR_API int tfr_flush(tfr *r);

/* Names of this process and of the calling thread (default: its pthread
 * name).  The process's default name is "rank N" where the environment
 * says its rank (RANK, OMPI_COMM_WORLD_RANK, PMI_RANK, SLURM_PROCID, in
 * that order), its command name otherwise; tracefold takes a process
 * named "rank N" as rank N, and tfr_rank(r, N) names it so. */
TFR_API void tfr_process_name(tfr *r, const char *name);
TFR_API void tfr_rank(tfr *r, int rank);
TFR_API void tfr_thread_name(tfr *r, const char *name);

/* A track under parent (0: this process): a group when tracks are made
 * under it, a track of slices otherwise.  0 on error (out of memory). */
TFR_API tfr_track tfr_track_new(tfr *r, tfr_track parent, const char *name);
/* A counter track; unit: "ns", "count", "bytes" (Perfetto's units) or any
 * other name (shown as is), NULL none. */
TFR_API tfr_track tfr_counter_track_new(tfr *r, tfr_track parent, const char *name, const char *unit);

TFR_API void tfr_begin(tfr *r, tfr_track t, const char *name);
TFR_API void tfr_end(tfr *r, tfr_track t);
TFR_API void tfr_instant(tfr *r, tfr_track t, const char *name);
TFR_API void tfr_counter(tfr *r, tfr_track t, double value);

/* Flows: arrows between events, across threads.  A begin is an instant
 * named name that starts a new flow (its id returned), a step an instant
 * on it, an end the instant that ends it.  A begin and a step hand the
 * thread's buffer to the writer at once, so that a flow's events reach the
 * file in the order they happened. */
TFR_API uint64_t tfr_flow_begin(tfr *r, tfr_track t, const char *name);
TFR_API void tfr_flow_step(tfr *r, tfr_track t, uint64_t flow);
TFR_API void tfr_flow_end(tfr *r, tfr_track t, uint64_t flow);

/* Debug annotations on the calling thread's next event (a begin, end,
 * instant, counter or flow instant; Perfetto shows them as the slice's
 * args, an end's merged into its slice's).  A dict or array holds what is
 * added until its tfr_arg_close; an array's entries have no key (pass
 * NULL).  Up to 8 levels; 64 KiB of annotations per event (the rest left
 * out; the event is kept).  Names over 64 KiB are cut (at a UTF-8
 * character's start), track names over 4 KiB. */
TFR_API void tfr_arg_int(tfr *r, const char *key, int64_t v);
TFR_API void tfr_arg_uint(tfr *r, const char *key, uint64_t v);
TFR_API void tfr_arg_double(tfr *r, const char *key, double v);
TFR_API void tfr_arg_bool(tfr *r, const char *key, int v);
TFR_API void tfr_arg_string(tfr *r, const char *key, const char *v);
TFR_API void tfr_arg_dict(tfr *r, const char *key);
TFR_API void tfr_arg_array(tfr *r, const char *key);
TFR_API void tfr_arg_close(tfr *r);

/* What the recording has done so far (any thread). */
typedef struct {
	uint64_t events;       /* events encoded */
	uint64_t dropped;      /* events dropped (drop_when_full) */
	uint64_t bytes;        /* bytes written to the file */
	uint64_t waits;        /* times a thread waited for the writer */
	uint32_t threads;      /* threads that recorded */
} tfr_stats;
TFR_API void tfr_get_stats(tfr *r, tfr_stats *s);

/* A scope: begins name on this thread's track, ends at the end of the
 * enclosing block (GCC and Clang's cleanup attribute). */
typedef struct {
	tfr *r;
} tfr_scope_t;
static inline void tfr_scope_end_(tfr_scope_t *s)
{
	if (s->r)
		tfr_end(s->r, 0);
}
static inline tfr_scope_t tfr_scope_begin_(tfr *r, const char *name)
{
	tfr_scope_t s = { r };
	if (r)
		tfr_begin(r, 0, name);
	return s;
}
#define TFR_CAT2_(a, b) a##b
#define TFR_CAT_(a, b) TFR_CAT2_(a, b)
#define TFR_SCOPE(r, name) \
	tfr_scope_t TFR_CAT_(tfr_scope_, __LINE__) __attribute__((cleanup(tfr_scope_end_), unused)) = tfr_scope_begin_(r, name)

#ifdef __cplusplus
} /* extern "C" */

/* C++: a slice for the lifetime of an object. */
struct tfr_span {
	tfr *r;
	tfr_track t;
	tfr_span(tfr *rec, const char *name, tfr_track track = 0) : r(rec), t(track)
	{
		if (r)
			tfr_begin(r, t, name);
	}
	~tfr_span()
	{
		if (r)
			tfr_end(r, t);
	}
	tfr_span(const tfr_span &) = delete;
	tfr_span &operator=(const tfr_span &) = delete;
};
#endif

#endif
