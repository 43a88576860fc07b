/* tids.h - integer process and thread ids for the timeline writers
 * (src/write/tids.c), shared by the Chrome and Perfetto writers so that both
 * number a run's tracks the same way:
 *
 *   pid: the MPI rank when the track has one, else the input's own process
 *        key when it is an integer not taken yet (by another input), else a
 *        new id from 2^20 up;
 *   tid: the input's own thread key when it is an integer free within the
 *        process, else a new id likewise.
 *
 * A key that is no integer becomes the process or thread name (the caller
 * writes it).  Memory: a map entry per process and per thread. */
#ifndef TRACEFOLD_TIDS_H
#define TRACEFOLD_TIDS_H

#include <stdbool.h>
#include <stdint.h>
#include "tracefold/ctx.h"
#include "hmap.h"

typedef struct tf_tids {
	tf_hmap procs;     /* process (rank or input + key) -> index in pids */
	int64_t *pids;
	uint32_t npids, cappids;
	tf_hmap used;      /* pids, and (pid, tid) pairs, given out */
	int64_t next_id;   /* for keys that are not integers */
	int64_t max;       /* the largest id given out (INT32_MAX for Perfetto's int32) */
} tf_tids;

typedef struct tf_tid {
	int64_t pid, tid;
	bool new_process;  /* the first track of its process */
	bool pid_is_key;   /* pid is the input's own process key (no rank) */
	bool tid_is_key;   /* tid is the input's own thread key */
	uint32_t process;  /* the process's index (0, 1, ... in order of first use) */
} tf_tid;

/* The ids of a track (call once per track).  Returns 0 or TF_ENOMEM. */
int tf_tids_assign(tf_tids *t, tf_ctx *ctx, uint32_t track, tf_tid *out);
/* A new tid in process pid, for a thread of the writer's own (the lanes of
 * overlapping GPU activities).  Returns 0 or TF_ENOMEM. */
int tf_tids_extra(tf_tids *t, int64_t pid, int64_t *tid);

/* The lanes of a track: a GPU stream's activities are not nested, and one
 * that starts before the previous one ended goes to another lane (a
 * thread or track "NAME (overlap N)"), so that each lane's slices nest.
 * Lane 0 is the track itself and holds activities.  A stream's annotations
 * (Kineto's gpu_user_annotation: the GPU-side copy of a CPU range, which
 * holds kernels but is none) have lanes of their own, "NAME annotations"
 * (then "NAME annotations (overlap N)" where they overlap), so that they
 * never push an activity off lane 0 (docs/gpu.md). */
typedef struct tf_lanes {
	int64_t *end;      /* the end of the last span on each lane */
	uint8_t *label;    /* whether each lane holds annotations */
	uint32_t n, cap, caplabel;
} tf_lanes;
/* The first lane of the span's kind (label: an annotation) whose last span
 * ended by start, a new one when none has (*is_new); it now ends at end.
 * Returns 0 or TF_ENOMEM. */
int tf_lanes_pick(tf_lanes *l, bool label, int64_t start, int64_t end, uint32_t *lane, bool *is_new);
void tf_lanes_free(tf_lanes *l);
/* The name of lane N > 0 of a track, into buf: "NAME (overlap K)" for the
 * K-th lane of activities past lane 0, "NAME annotations" and "NAME
 * annotations (overlap K)" for annotations' lanes. */
int tf_lane_name(tf_ctx *ctx, uint32_t track, const tf_lanes *l, uint32_t lane, char *buf, size_t n);
void tf_tids_free(tf_tids *t);

/* Times before 0 (Bazel's profiles start at -85 ms) in a timeline whose
 * times are unsigned (Perfetto's, OTF2's; docs/robustness.md): the shift
 * decided once, at the first time written (ts): the run's earliest time
 * known then (tf_ctx_first_ns) when it is before 0, else 0.  A time that
 * is still before 0 once shifted (an input read later that starts earlier)
 * is refused by tf_time_refuse: err (TF_EFORMAT) and a warning name the
 * output, the event (its name, input, process and thread) and its time. */
int64_t tf_time_shift(tf_ctx *ctx, int64_t ts);
/* ts shifted by the writer's shift (*shift, decided by tf_time_shift at
 * the first call, when *have is still false); INT64_MAX where the
 * difference overflows. */
int64_t tf_time_shifted(tf_ctx *ctx, bool *have, int64_t *shift, int64_t ts);
int tf_time_refuse(tf_ctx *ctx, const char *out, const char *format, const char *const *inputs, int ninputs,
		   uint32_t track, tf_str name, int64_t ts, int64_t shift, tf_error *err);

#endif
