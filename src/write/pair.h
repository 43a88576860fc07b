/* pair.h - pairing the two ends of messages and flows, for the span writers
 * (src/write/pair.c).  Tracks are handed over one after the other, not in
 * time order, so either end may come first: each waits for the other.
 *
 *   messages: a send with the first waiting receive of the same source and
 *             destination rank, tag and communicator (MPI's order), and back
 *   flows:    Chrome s starts, f finishes, t is a step (it finishes the
 *             segment before it and starts the next), by id within an input;
 *             a step whose parent_id is set starts the segment of that id
 *             (the Perfetto reader's flows: an id per segment, so that a
 *             flow across three tracks pairs in any order of its tracks)
 *
 * Memory: the ends still waiting for their partner; with tf_pairs_aside,
 * past a budget, the flows go to a temporary file instead and are paired
 * there at the end (tf_pairs_flush_flows), in the same order. */
#ifndef TRACEFOLD_PAIR_H
#define TRACEFOLD_PAIR_H

#include <stdbool.h>
#include <stdint.h>
#include "tracefold/err.h"
#include "tracefold/event.h"
#include "hmap.h"

/* One end of a message or flow. */
typedef struct tf_pend {
	uint64_t key;          /* hash of what must match (set by tf_pair_*) */
	int64_t ts, track, slice, bytes;
	int64_t src, dst, tag, comm;
	tf_str name, cat;
	uint64_t id;
	uint32_t next;         /* next waiting with the same key, UINT32_MAX none */
	uint8_t used;          /* matched */
} tf_pend;

typedef struct tf_pqueue {
	tf_pend *v;
	uint32_t n, cap, nused; /* nused: of v, matched (dropped now and then) */
	tf_hmap head, tail;    /* key -> first waiting + 1 (0 none) / last waiting */
} tf_pqueue;

typedef struct tf_flow_log tf_flow_log;

typedef struct tf_pairs {
	tf_pqueue sends, recvs;   /* messages waiting for the other side */
	tf_pqueue starts, ends;   /* flow ends waiting for the other end */
	tf_flow_log *aside;       /* tf_pairs_aside's log; NULL: flows in memory */
} tf_pairs;

/* Called for each matched pair, start (send) first. */
typedef int (*tf_pair_fn)(void *u, const tf_pend *start, const tf_pend *end);

/* A send, receive or flow event (other kinds are ignored) of a track of
 * the given rank (-1 unknown) and input, inside slice `slice` (-1 none, or
 * whatever id the caller gives its slices): paired with its other end.
 * message_fn gets each matched send and receive, flow_fn each matched flow
 * start and end; an end without its partner waits in q. */
int tf_pair_event(tf_pairs *q, const tf_event *ev, int64_t rank, uint32_t input, int64_t slice,
		  tf_pair_fn message_fn, tf_pair_fn flow_fn, void *u);
/* The ends that never met their partner: v[i] with !used of each queue. */
void tf_pairs_free(tf_pairs *q);

/* Flows past a budget set aside: once the waiting flow ends would take more
 * than `budget` bytes, they and every flow event after them go to a log
 * (records of 64 bytes, past `budget` in sorted runs in a temporary file in
 * dir, NULL /tmp: spill.h), and flow_fn is called for none of them until
 * tf_pairs_flush_flows.  Budget 0: never.  0 or TF_ENOMEM. */
int tf_pairs_aside(tf_pairs *q, size_t budget, const char *dir);
/* The flows set aside, paired by id as tf_pair_event pairs them, handed to
 * flow_fn in the order it would have handed them (each pair where its
 * second end came), then those never paired: the starts (end NULL), then
 * the ends (start NULL), each in the order they came, as the queues' v[i]
 * with !used would have been.  A pair's end carries its start's name,
 * category and id.  Call it after the queues' own unpaired ends.  0,
 * TF_ENOMEM, TF_EIO (tf_pairs_error), or what flow_fn returned. */
int tf_pairs_flush_flows(tf_pairs *q, tf_pair_fn flow_fn, void *u);
/* Why the log failed (its file could not be written or read back); NULL none. */
const tf_error *tf_pairs_error(const tf_pairs *q);
/* True once the log wanted its file and none could be made (errno then):
 * the flows stay in memory, as with budget 0. */
bool tf_pairs_no_file(const tf_pairs *q);

/* The activities of a GPU stream that a flow event may still end on.  A
 * stream's activities come as spans of their own, each closed before the
 * next opens (they are not nested), and a flow event at a kernel's start
 * (Kineto's ac2g finish) comes after it: the enclosing slice of such an
 * event is found here, not among the open spans.  An annotation (GPU-side
 * range, TF_SPAN_KIND_GPU_LABEL) is never added: a flow ends on the
 * activity.  Memory: the activities not ended at the last start. */
typedef struct tf_gpu_recent {
	struct tf_gpu_act {
		int64_t start, end, slice;
		uint64_t corr;
	} *v;
	uint32_t n, cap;
} tf_gpu_recent;
/* An activity, in start order (those ended before its start are dropped).
 * Returns 0 or TF_ENOMEM. */
int tf_gpu_recent_add(tf_gpu_recent *r, int64_t start, int64_t end, uint64_t corr, int64_t slice);
/* The slice a flow event at ts with id `id` ends on: the activity holding
 * ts whose correlation id is id (Kineto's flow ids are the correlation
 * ids), else the latest started that holds ts; -1 none. */
int64_t tf_gpu_recent_find(const tf_gpu_recent *r, int64_t ts, uint64_t id);
void tf_gpu_recent_free(tf_gpu_recent *r);

#endif
