/* perfetto_int.h - what the Perfetto writer (src/write/perfetto.c) shares
 * with its samples (src/write/perfetto_samples.c): the writer's state and
 * the helpers that describe a track, intern on its sequence and write a
 * timed packet.  Private to src/write. */
#ifndef TRACEFOLD_PERFETTO_INT_H
#define TRACEFOLD_PERFETTO_INT_H

#include <stdbool.h>
#include <stdint.h>
#include "tracefold/ctx.h"
#include "tracefold/span.h"
#include "tracefold/io.h"
#include "hmap.h"
#include "pair.h"
#include "tids.h"
#include "perfetto_trace.pb-c.h"

typedef Perfetto__Protos__TracePacket PB_Packet;
typedef Perfetto__Protos__TrackEvent PB_Event;
typedef Perfetto__Protos__TrackDescriptor PB_Track;
typedef Perfetto__Protos__InternedData PB_Interned;
typedef Perfetto__Protos__EventName PB_Name;
typedef Perfetto__Protos__EventCategory PB_Cat;
typedef Perfetto__Protos__DebugAnnotation PB_Annot;

#define SEQ_DESCRIPTORS 1   /* the track descriptors' sequence; a track's is track + 2 */
#define CLOCK_BOOTTIME 6
#define CLOCK_DELTA 64      /* sequence-scoped, incremental, ns */
#define SEQ_CLEARED PERFETTO__PROTOS__TRACE_PACKET__SEQUENCE_FLAGS__SEQ_INCREMENTAL_STATE_CLEARED
#define SEQ_NEEDS PERFETTO__PROTOS__TRACE_PACKET__SEQUENCE_FLAGS__SEQ_NEEDS_INCREMENTAL_STATE

/* Track uuids: a thread track is its track id + 1; processes and counters
 * live in their own ranges above 2^60. */
#define UUID_PROCESS (1ull << 62)
#define UUID_COUNTER (1ull << 61)
#define UUID_LANE (1ull << 60)

/* What is interned on a sequence (intern_once). */
enum { IN_NAME, IN_CAT, IN_ANNOT, IN_FUNC, IN_FRAME, IN_STACK, IN_MAPPING };

typedef struct pseq {
	uint8_t started;       /* its first packet was written */
	uint8_t described;     /* its track's descriptors were written */
	int64_t last;          /* the time of its previous timed packet */
	uint64_t proc_uuid;    /* its process's track */
	/* GPU activities that overlap (a GPU stream's are not nested) go to
	 * lanes: lane 0 is the track, lane l > 0 a track "NAME (overlap l)" */
	tf_lanes lanes;
	uint32_t lane;         /* the lane of the open top-level span */
	uint32_t pid, tid;     /* its thread's ids (tids.h), for PerfSample */
} pseq;

typedef struct tf_perfetto_out {
	tf_span_sink spans;
	tf_ctx *ctx;
	tf_strtab *st;
	tf_out *o;
	pseq *seq;             /* per track */
	uint32_t nseq;
	tf_tids ids;
	tf_hmap counters;      /* (track, counter name) -> counter index */
	uint32_t ncounters;
	tf_hmap interned;      /* (track, IN_*, string) interned on the track's sequence */
	uint8_t *buf;          /* one packed packet */
	size_t capbuf;
	bool deflate;          /* --compress deflate: packets in compressed chunks */
	uint8_t *chunk, *zbuf; /* the chunk being gathered, its compressed form */
	size_t nchunk, capchunk, capzbuf;
	tf_pairs pairs;        /* message and flow ends waiting for the other */
	uint64_t nflows;       /* flow ids given out: unique in the trace */
	const char *path;      /* for messages */
	const char *const *inputs;
	int ninputs;
	bool have_shift;       /* times before 0: shift_ns (< 0) from the first written on */
	int64_t shift_ns;
	tf_str mapping_path;   /* the one Mapping's path ("tracefold"), 0 before the first sample */
	uint64_t *frames;      /* scratch: one callstack's frame ids */
	uint32_t capframes;
	int rc;                /* first failure */
} tf_perfetto_out;

static inline uint32_t seq_of(uint32_t track) { return track + 2; }
static inline uint64_t thread_uuid(uint32_t track) { return (uint64_t)track + 1; }

/* One packet of the Trace on sequence seq; w->rc. */
int pfw_put_packet(tf_perfetto_out *w, PB_Packet *p, uint32_t seq);
/* Whether s of kind which (IN_*) was interned on the sequence of track;
 * marks it.  -1 when the map cannot grow. */
int pfw_intern_once(tf_perfetto_out *w, uint32_t track, unsigned which, uint64_t s);
/* The descriptors of a track (and of its process), before its first event. */
int pfw_describe(tf_perfetto_out *w, uint32_t track);
char *pfw_cstr(tf_perfetto_out *w, tf_str s);
/* p (zeroed by the caller) as a packet of track's sequence at ts: the
 * sequence started first when new, the time shifted (tf_time_shift) and
 * written as the ns since the sequence's previous packet, or absolute
 * when earlier; name: what the error of a refused time names. */
int pfw_timed_packet(tf_perfetto_out *w, PB_Packet *p, uint32_t track, int64_t ts, tf_str name);
/* The same; absolute: at an absolute time (BOOTTIME), the sequence's
 * delta base left as it is (samples: readers that skip their packets,
 * tracefold's own, keep the slices' deltas right). */
int pfw_packet_at(tf_perfetto_out *w, PB_Packet *p, uint32_t track, int64_t ts, tf_str name, bool absolute);

/* A TF_EV_SAMPLE: a PerfSample per sample, its callstack interned
 * (perfetto_samples.c). */
int pfw_sample(tf_perfetto_out *w, const tf_event *ev);

#endif
