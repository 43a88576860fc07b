/* perfetto_int.h - private to the Perfetto protobuf reader: its state and
 * what its files share.
 *
 *   perfetto.c         the stream of packets, their unpacking (protobuf-c,
 *                      into an arena), compressed chunks, what each packet
 *                      holds handed on, the sniff and the format row
 *   perfetto_tracks.c  sequences (defaults, clocks, interned data), track
 *                      descriptors and their tf tracks, track events ->
 *                      tf_event
 *
 * Format facts and the choices made: docs/perfetto.md. */
#ifndef TRACEFOLD_READ_PERFETTO_INT_H
#define TRACEFOLD_READ_PERFETTO_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "tracefold/reader.h"
#include "hmap.h"
#include "perfetto_trace.pb-c.h"

typedef Perfetto__Protos__TracePacket PB_Packet;
typedef Perfetto__Protos__TrackEvent PB_Event;
typedef Perfetto__Protos__TrackDescriptor PB_Track;

#define TYPE_BEGIN PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_BEGIN
#define TYPE_END PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_END
#define TYPE_INSTANT PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_INSTANT
#define TYPE_COUNTER PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_COUNTER
#define SEQ_CLEARED 1u
#define MAX_PACKET (256u << 20) /* larger is no packet: damage */
#define MAX_SEQ_CLOCKS 8

/* An arena for protobuf-c (perfetto.c): emptied after each packet. */
typedef struct arena {
	char *block;
	size_t cap, used, spill; /* spill: bytes malloc'd beyond the block since the last reset */
	size_t limit;            /* the most one packet may take (arena_limit) */
	void **extra;            /* those allocations */
	uint32_t nextra, capextra;
} arena;

enum { TK_OTHER = 0, TK_PROCESS, TK_THREAD, TK_COUNTER };

typedef struct ptrack {
	uint64_t uuid, parent;
	uint8_t kind;          /* TK_* */
	bool has_parent, incremental;
	bool dropped;          /* "tracefold.dropped_events": a recorder's drops */
	int32_t pid, tid;
	tf_str name;
	uint32_t track;        /* tf track, UINT32_MAX none yet */
	int64_t multiplier;    /* counter unit_multiplier (1) */
	double last;           /* incremental counter's running value */
} ptrack;

typedef struct pclock {
	uint32_t id;
	bool incremental;
	uint64_t mult;
	int64_t snap, ref, last;  /* its value in the snapshot, the reference clock's, the running value */
} pclock;

typedef struct pseq {
	uint32_t id;
	bool has_track;
	uint64_t track;        /* TrackEventDefaults.track_uuid */
	uint32_t clock;        /* TracePacketDefaults.timestamp_clock_id, 0 none */
	pclock clocks[MAX_SEQ_CLOCKS];
	uint32_t nclocks;
} pseq;

/* A flow event held until its flow is whole (perfetto_tracks.c). */
typedef struct pflow {
	int64_t ts;
	uint64_t id, index, corr;
	uint32_t track, flags;
	uint32_t next;         /* the same id's earlier held event, UINT32_MAX none; the free list */
	tf_str name, cat;
	uint8_t phase;         /* 'f' terminating, 0 not yet known, 0xff a free slot */
} pflow;

typedef struct pproc {
	int32_t pid;
	int64_t rank;
	tf_str name;
} pproc;

typedef struct tf_pf {
	arena inner;           /* the packets of a compressed_packets chunk */
	unsigned char *zbuf;   /* a chunk, inflated */
	size_t capzbuf;
	tf_ctx *ctx;
	tf_strtab *st;
	tf_sink *sink;
	const char *path;
	uint32_t input;
	ptrack *tracks;
	uint32_t ntracks, captracks;
	tf_hmap by_uuid;       /* uuid -> index in tracks */
	pproc *procs;
	uint32_t nprocs, capprocs;
	tf_hmap by_pid;        /* pid -> index in procs */
	pseq *seqs;
	uint32_t nseqs, capseqs;
	tf_hmap by_seq;        /* sequence id -> index in seqs */
	tf_hmap interned;      /* (sequence, kind, iid) -> tf_str */
	pflow *fl;             /* flow events held until their flow ends (slots) */
	uint32_t nfl, capfl, flfree; /* slots used, allocated; the first free one (UINT32_MAX none) */
	tf_hmap flopen;        /* flow id -> its last held event's slot + 1; 0: none open */
	pflow *flv;            /* a flow's events, being handed on */
	uint32_t capflv;
	uint64_t index;        /* events so far (tf_event.index) */
	uint64_t packet;       /* packets so far */
	uint64_t offset;       /* byte offset of the packet being read */
} tf_pf;

/* perfetto_tracks.c */
/* A sequence's state: made only when a packet sets some (add), so that
 * packets on countless sequences cost nothing.  NULL: none (or, with add,
 * out of memory). */
pseq *tf_pf_seq_get(tf_pf *r, uint32_t id, bool add);
/* A ClockSnapshot: the sequence's clocks in its reference clock. */
int tf_pf_on_clocks(tf_pf *r, pseq *s, const Perfetto__Protos__ClockSnapshot *c);
/* An interned name of sequence seq (kind 0 event names, 1 categories, 2
 * debug annotation names). */
int tf_pf_put_interned(tf_pf *r, uint32_t seq, unsigned kind, uint64_t iid, const char *name);
/* A TrackDescriptor: the track of its uuid (a thread, process, counter). */
int tf_pf_on_descriptor(tf_pf *r, const PB_Track *d);
/* A TrackEvent -> tf_emit / tf_count_skip. */
int tf_pf_on_track_event(tf_pf *r, pseq *s, uint32_t seq, const PB_Packet *p);
/* The flows still open at the input's end, their roles decided by time,
 * handed on. */
int tf_pf_flows_end(tf_pf *r);
/* tf_emit with the next event index. */
int tf_pf_emit(tf_pf *r, tf_event *ev);

#endif
