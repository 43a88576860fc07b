/* event.h - the normalized event stream every reader produces.
 *
 *   reader (tau | chrome | otf2) --tf_event--> sink (stack builder, dumps, info)
 *
 * Events are borrowed: a sink must copy what it keeps.  Strings are tf_str ids
 * of the run's tf_ctx string table.  Times are integer nanoseconds (ts_ns) in
 * the input's own time base (Chrome: the trace's microseconds x 1000, exactly;
 * TAU: its microsecond clock x 1000; OTF2: ticks scaled by the archive's timer
 * resolution, offset removed). */
#ifndef TRACEFOLD_EVENT_H
#define TRACEFOLD_EVENT_H

#include <stdint.h>
#include "strtab.h"

typedef enum tf_ev_kind {
	TF_EV_BEGIN = 0,  /* region entered (Chrome B, OTF2 Enter, TAU entry) */
	TF_EV_END,        /* region left (E, Leave, TAU exit); name 0 = innermost */
	TF_EV_COMPLETE,   /* Chrome X: [ts_ns, ts_ns + dur_ns) */
	TF_EV_INSTANT,    /* i/I, marks */
	TF_EV_COUNTER,    /* name = counter, value */
	TF_EV_SEND,       /* message sent: msg.peer = destination rank */
	TF_EV_RECV,       /* message received: msg.peer = source rank */
	TF_EV_FLOW,       /* s/t/f */
	TF_EV_ASYNC,      /* b/n/e */
	TF_EV_METADATA,   /* M and similar; handled by the reader, passed for counting */
	TF_EV_SAMPLE,     /* a sampled stack (perf, Chrome's CPU profile): see below */
	TF_EV_KIND_COUNT
} tf_ev_kind;

/* tf_event.dur_ns of a complete event whose end is unknown: it lasts until
 * the end of its track (the stack builder closes it there, begin_unclosed). */
#define TF_DUR_UNTIL_END INT64_MIN

/* tf_event.track of events that belong to no track (Chrome M metadata). */
#define TF_TRACK_NONE UINT32_MAX

/* A TF_EV_SAMPLE is one or more samples of one stack on a track (thread)
 * at ts_ns (docs/samples.md):
 *   id      the stack: a node of the ctx's sample-stack tree
 *           (tf_ctx_stack_child: root-to-leaf frames, raw names);
 *   dur_ns  how many samples it stands for (>= 1);
 *   name    its weight's sample type ("cpu", "cpu-clock", "cycles"),
 *           0 for samples that carry no weight (a count only);
 *   cat     that type's unit ("nanoseconds", "count");
 *   value   the weight, in that unit (perf's period, Chrome's interval).
 * The stack builder hands it to the consumers under the regions open on its
 * track at ts_ns, like a counter. */

typedef struct tf_message {
	int64_t peer;     /* partner rank, -1 unknown */
	int64_t tag;
	int64_t bytes;
	int64_t comm;     /* communicator id, -1 unknown */
} tf_message;

typedef struct tf_event {
	uint8_t kind;     /* tf_ev_kind */
	uint8_t phase;    /* the input's own phase letter when it has one (Chrome), else 0 */
	uint32_t track;   /* id from tf_ctx_track() */
	tf_str name;
	tf_str cat;
	int64_t ts_ns;
	int64_t dur_ns;   /* TF_EV_COMPLETE only (may be negative in bad input;
			   * TF_DUR_UNTIL_END: an X without dur, still running
			   * when tracing stopped) */
	double value;     /* TF_EV_COUNTER */
	tf_message msg;     /* TF_EV_SEND / TF_EV_RECV */
	uint64_t id;      /* flow/async id when present; a Python frame's "Python id" (Kineto) */
	uint64_t index;   /* 0-based index of this event in its input (for errors) */
	/* TF_EV_COMPLETE/BEGIN: the id that links a GPU activity to the CPU
	 * call that launched it, unique within one input (Kineto's
	 * args.correlation, on both the launch and the activity); 0 none */
	uint64_t corr;
	/* TF_EV_COMPLETE: the id of the region it was called from, when the
	 * input says (Kineto's "Python parent id"; id is its "Python id"); 0 none.
	 * TF_EV_FLOW, a step (phase 't'): the id of the segment it starts, when
	 * the reader gives each segment of a flow an id of its own (Perfetto's:
	 * id is then the segment it ends); 0: the flow's id, as Chrome's steps */
	uint64_t parent_id;
	uint32_t flags;   /* TF_EVF_* */
	/* TF_EV_COMPLETE: the TF_SPAN_* repairs (span.h) an earlier read already
	 * made on it (a slice of the event tables read back: format-tables.md),
	 * kept on its span so that the outputs say them; 0 for every other reader */
	uint16_t repaired;
	/* TF_EV_COMPLETE/BEGIN: a backward op's key, the same on every region
	 * of one autograd node's run (Kineto's "Fwd thread id" > 0 and
	 * "Sequence number": the engine's evaluate_function wrapper and the op
	 * inside it); read only with --backward-to-forward; 0 none */
	uint64_t bwd_key;
	/* TF_EV_COMPLETE/BEGIN of a GPU activity: the framework op it ran for
	 * (XLA's tf_op: the JAX op path), a frame between the launch's call
	 * path and the activity (docs/gpu.md "The op of an activity"); 0 none */
	tf_str op;
	/* TF_EVF_MEMORY: the device whose memory it is, as torch names it
	 * ("cpu", "cuda:0"; 0 unknown), as Kineto's numbers (c10's DeviceType
	 * + 1, 0 unknown; the device's index, -1 none), and the block's
	 * address (args.Addr; 0 unknown): a free is matched to its allocation by it */
	tf_str mem_device;
	int32_t mem_dev_type, mem_dev_id;
	uint64_t mem_addr;
} tf_event;

/* tf_event.flags */
enum {
	/* a region on a GPU stream that labels the activities inside it and
	 * is no GPU time itself (Kineto's gpu_user_annotation) */
	TF_EVF_GPU_LABEL = 1u << 0,
	/* TF_EV_INSTANT: a memory event (Kineto's "[memory]"): value = the
	 * bytes allocated, negative for a free */
	TF_EVF_MEMORY = 1u << 1,
};

const char *tf_ev_kind_name(tf_ev_kind k);

#endif
