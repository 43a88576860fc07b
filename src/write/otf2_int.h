/* otf2_int.h - private to the OTF2 archive writer (docs/otf2-out.md):
 * its state and what its files share.
 *
 *   otf2.c         the archive: opening it (a temporary folder beside the
 *                  one asked for), finishing it (renamed over an earlier
 *                  archive), libotf2's messages, the writer row
 *   otf2_events.c  the span consumer: locations (a track's lanes), the
 *                  Enter, Leave, Metric and MPI events in time order,
 *                  the deferred events of a track
 *   otf2_defs.c    the global definitions: names numbered on the way,
 *                  location groups, the processes of no track, and all
 *                  of them written at the end */
#ifndef TRACEFOLD_WRITE_OTF2_INT_H
#define TRACEFOLD_WRITE_OTF2_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <otf2/otf2.h>
#include "tracefold/sink.h"
#include "tracefold/span.h"
#include "hmap.h"
#include "tids.h"

#define NONE UINT32_MAX
#define CHUNK_EVENTS (256u << 10)  /* libotf2's smallest event chunk */
#define CHUNK_DEFS (1u << 20)
#define ARCHIVE "traces"           /* DIR/traces.otf2, as Score-P names it */

/* Attributes (their refs; the correlation's last: it is defined only
 * when written, and definitions are numbered without gaps). */
enum { AT_REPAIRED, AT_GPU, AT_CORRELATION, AT_COUNT };

/* A deferred counter or message (otf2.c says when). */
typedef struct pend {
	uint8_t kind;          /* TF_EV_COUNTER, TF_EV_SEND, TF_EV_RECV */
	int64_t ts;
	double value;
	uint32_t ref;          /* metric class, or peer rank */
	int64_t tag, bytes;
} pend;

typedef struct oloc {
	OTF2_EvtWriter *ew;    /* open while its track is written */
	uint64_t nevents;
	int64_t last;          /* the time of its last event */
	uint32_t group;        /* location group index */
	uint32_t track, lane;
	uint8_t gpu;
	tf_str name;           /* 0: the track's own name */
} oloc;

typedef struct otrack {
	uint32_t loc;          /* lane 0's location, NONE before the first event */
	uint32_t *lane_loc;    /* lane -> location */
	uint32_t nlanes, caplanes;
	tf_lanes lanes;
	uint32_t lane;         /* the lane of the open top-level span */
	int64_t *ends;         /* known ends of the open regions (INT64_MAX unknown) */
	uint32_t depth, capends;
	pend *q;               /* deferred events, in time order */
	uint32_t qhead, qn, capq;
} otrack;

typedef struct ogroup {
	tf_str name;
	int64_t rank;          /* -1 none */
	uint8_t accel;         /* a GPU device's group */
	uint32_t creator;      /* accel: its process group */
	uint32_t first_loc;    /* its first CPU location (the rank's in MPI_COMM_WORLD) */
	uint32_t input;
	uint64_t key;
} ogroup;

/* Names numbered in first-use order: an OTF2 definition's ref -> tf_str. */
typedef struct nametab {
	tf_hmap ref;           /* tf_str -> ref */
	tf_str *name;          /* ref -> tf_str (strings: 0 is "") */
	uint32_t n, cap;
} nametab;

typedef struct tf_otf2_out {
	tf_span_sink spans;
	tf_ctx *ctx;
	tf_strtab *st;
	char *path, *tmp;      /* the archive folder, the temporary one written */
	OTF2_Archive *ar;
	OTF2_AttributeList *attrs;
	otrack *tk;
	uint32_t ntk;
	oloc *loc;
	uint32_t nloc, caploc;
	ogroup *grp;
	uint32_t ngrp, capgrp;
	tf_hmap grp_of;        /* process key -> group */
	/* strings, regions (one per name: a CPU region and a GPU annotation
	 * of one name, such as Kineto's ProfilerStep#N, are one region; the
	 * Enter's tracefold::gpu attribute tells them apart), metric classes
	 * (one per counter name): each numbered in first-use order */
	nametab strings, regions, metrics;
	int64_t max_rank;      /* the largest rank of a track written, -1 none */
	int64_t run_max_rank;  /* the largest rank of any track of the run (filtered out or not) */
	int64_t max_peer;      /* the largest peer of a message written */
	bool any_mpi;
	bool any_corr;         /* a correlation id was written: its attribute is defined */
	int64_t min_ts, max_ts;     /* as written: shifted */
	bool have_shift;           /* times before 0: shift_ns (< 0) from the first written on */
	int64_t shift_ns;
	const char *const *inputs; /* for messages */
	int ninputs;
	uint64_t moved, moved_ns; /* events written at a later time than their own */
	uint64_t skipped_msgs; /* messages of a track without rank or to no rank */
	/* processes of no track (a rank with no track, a GPU device's host):
	 * a group and an empty location each, after ours */
	struct extra { tf_str name; uint32_t group, loc; } *ex;
	uint32_t nex;
	uint32_t *rank_loc;    /* rank -> its location in MPI_COMM_WORLD */
	int64_t nranks;
	int rc;
	tf_error err;
	OTF2_ErrorCallback old_cb; /* libotf2's error printer, restored at the end */
} tf_otf2_out;

/* otf2.c: the run fails (the first failure is kept in w->rc and w->err),
 * with libotf2's message, or out of memory; both return w->rc. */
int tf_otf2_out_fail(tf_otf2_out *w, OTF2_ErrorCode e, const char *what);
int tf_otf2_out_oom(tf_otf2_out *w);

/* otf2_defs.c */
/* The ref of a string (interned first; 0 when out of memory: w->rc says so). */
uint32_t tf_otf2_out_string_cstr(tf_otf2_out *w, const char *s);
/* A region or metric class of a name, whose string is defined too. */
uint32_t tf_otf2_out_named_ref(tf_otf2_out *w, nametab *t, tf_str name);
/* The location group of a track: its process's, or for a GPU stream its
 * device's; NONE when out of memory. */
uint32_t tf_otf2_out_group_of(tf_otf2_out *w, const tf_track *t, bool gpu);
/* At the end, before the definitions: the processes of no track (ranks,
 * GPU devices' hosts), each a group and an empty location. */
int tf_otf2_out_plan_extras(tf_otf2_out *w);
/* At the end: the global definitions and each location's (empty) local ones. */
int tf_otf2_out_write_defs(tf_otf2_out *w);

/* otf2_events.c: the span consumer's callbacks */
int tf_otf2_out_on_open(tf_span_sink *sk, const tf_span *s);
int tf_otf2_out_on_close(tf_span_sink *sk, const tf_span *s);
int tf_otf2_out_on_event(tf_span_sink *sk, const tf_event *ev, uint32_t node);
int tf_otf2_out_on_end_track(tf_span_sink *sk, uint32_t track);

#endif
