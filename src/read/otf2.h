/* otf2.h - internals shared by the files of the OTF2 reader (not part of
 * the public interface):
 *
 *   otf2.c         sniffing, finding the anchor, the read entry point and
 *                  the format row (tf_format_otf2), libotf2's messages
 *   otf2_defs.c    global definitions and their resolution: names, ranks,
 *                  communicators, metrics, tracks, the clock
 *   otf2_events.c  the event callbacks (one set for both paths), the
 *                  records they put, applying a record, the location
 *                  loop, the serial path
 *   otf2_pipe.c    the pipelined path: decode thread, batches, queue
 *
 * Format facts and the reading strategy: docs/format-otf2.md. */
#ifndef TRACEFOLD_READ_OTF2_H
#define TRACEFOLD_READ_OTF2_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <otf2/otf2.h>
#include "tracefold/reader.h"
#include "hmap.h"

/* ---------------------------------------------------------------- id maps */

/* uint64 definition id -> uint32 index: the shared hash map (hmap.h); an
 * absent id is IDMAP_NONE.  Definitions are looked up before they are
 * added, so a key is never added twice. */
typedef tf_hmap idmap;
#define IDMAP_NONE UINT32_MAX
#define idmap_get tf_hmap_get

/* ------------------------------------------------------------ definitions */

typedef struct d_loc {
	uint64_t id;
	uint32_t name;      /* string ref */
	uint32_t group;     /* location group ref */
	uint8_t type;       /* OTF2_LocationType */
	uint64_t nevents;   /* as announced by the definition */
	int64_t rank;       /* index in the MPI COMM_LOCATIONS group, -1 */
	uint32_t track;
	uint8_t ldefs;      /* LDEFS_*: its local definitions, once its events were read */
	uint8_t launched;   /* property tracefold::gpu_launches: its GPU work goes under its launches */
	uint8_t skip;       /* not read here: another process of a distributed run reads it */
} d_loc;

/* A location's local definitions (mapping tables, clock offsets). */
enum { LDEFS_NOT_READ = 0, LDEFS_OK, LDEFS_MISSING, LDEFS_DAMAGED };

typedef struct d_lgroup {
	uint32_t id, name, creator;
	uint8_t type;       /* OTF2_LocationGroupType */
	int64_t rank;
} d_lgroup;

typedef struct d_group {
	uint8_t type;       /* OTF2_GroupType */
	uint8_t paradigm;
	uint32_t n;
	uint64_t *members;
} d_group;

typedef struct d_comm {
	uint32_t group;
	bool resolved, self;
	uint32_t n;
	int64_t *world;     /* comm rank -> world rank */
} d_comm;

typedef struct d_metric {
	uint32_t id;
	bool is_instance;
	uint32_t klass;     /* instance: its class ref */
	uint64_t recorder;  /* instance: the location that records it */
	uint8_t n;
	uint32_t *members;  /* class: member refs */
	tf_str *names;      /* resolved member names (class only) */
	bool resolved;
} d_metric;

/* A name that could not be had (resolve_regions: an undefined string). */
#define NO_STR ((tf_str)-1)

typedef struct rd {
	tf_ctx *ctx;
	tf_sink *sink;
	tf_error *err;
	const char *path;   /* as the user named it */
	const char *anchor; /* the anchor file read */
	uint32_t input;
	int rc;             /* failure raised inside a callback */
	uint64_t index;     /* events decoded so far (tf_event.index) */

	/* clock: ns = (ticks - off) * 1e9 / res, exactly */
	bool clock_seen;       /* a ClockProperties definition was read */
	uint64_t res_given;    /* its resolution (0: taken as 1e9) */
	uint64_t res, off;
	uint64_t mul, mul_max; /* res divides 1e9: ns = d * mul */
	bool fast;             /* res * 1e9 fits in 64 bits */
	uint64_t magic;        /* floor((2^64 - 1) / res), for div_fast */

	idmap str_ids;
	char **strs;
	size_t nstrs, capstrs;

	idmap region_ids;
	uint32_t *region_names;
	tf_str *region_str;
	size_t nregions, capregions;
	tf_str *region_dense; /* region id -> name, when ids are dense */
	size_t ndense;

	idmap loc_ids;
	d_loc *locs;
	size_t nlocs, caplocs;

	idmap lgroup_ids;
	d_lgroup *lgroups;
	size_t nlgroups, caplgroups;

	idmap group_ids;
	d_group *groups;
	size_t ngroups, capgroups;

	idmap comm_ids;
	d_comm *comms;
	size_t ncomms, capcomms;

	idmap member_ids;
	uint32_t *member_names;
	size_t nmembers, capmembers;

	idmap metric_ids;
	d_metric *metrics;
	size_t nmetrics, capmetrics;

	/* the attributes tracefold's OTF2 writer puts on Enter events
	 * (docs/otf2-out.md): their refs, OTF2_UNDEFINED_ATTRIBUTE when the
	 * archive has none; a GPU stream with the location property
	 * tracefold::gpu_launches is a sorted track, so that its activities go
	 * under the calls that launched them, as in the trace it came from */
	uint64_t *attrs;       /* attribute ref << 32 | its name's string ref, while defs are read */
	size_t nattrs, capattrs;
	uint64_t *lprops;      /* location property: location ref, then its name's string ref */
	size_t nlprops, caplprops;
	OTF2_AttributeRef attr_corr, attr_gpu;
	/* Enter/Leave as handed on (do_region): msg as unknown, the rest zero
	 * but for what each one sets (kind, track, name, ts_ns, index) */
	tf_event rev;
} rd;

typedef struct locst {
	rd *r;
	uint32_t track;
	int64_t rank;
	uint64_t loc;       /* location id */
	bool noted;         /* an undefined id on this location was noted */
	bool time_noted;    /* a time beyond int64 ns on this location was noted */
	tf_str enter_name;  /* the last region entered, and when (ns) */
	int64_t enter_ns;
	tf_str coll_name;   /* the region an MpiCollectiveBegin came in (0 none), and its start */
	int64_t coll_ns;
} locst;

/* ------------------------------------------------------------ otf2_defs.c */

void tf_otf2_rd_free(rd *r);
/* ns = (ticks - off) * 1e9 / res from now on (res 0: ticks taken as ns). */
void tf_otf2_clock_set(rd *r, uint64_t res, uint64_t off);
/* Reads the global definitions into r. */
int tf_otf2_read_defs(rd *r, OTF2_Reader *rdr);
/* Once they are read: notes on an unusable clock, region names, ranks,
 * one track per location. */
int tf_otf2_resolve_defs(rd *r);
/* A communicator's rank as a world rank (-1: none). */
int64_t tf_otf2_peer_rank(rd *r, const locst *l, uint32_t comm, uint32_t rank);
/* The metric (class or instance) -> its class with member names resolved
 * (NULL: undefined). */
const d_metric *tf_otf2_metric_class(rd *r, uint32_t metric);
/* The location's name ("" when it has none). */
const char *tf_otf2_loc_name(const rd *r, const d_loc *L);

/* ----------------------------------------------------------------- otf2.c */

/* libotf2 prints its errors to stderr unless a callback is registered; a
 * library must not print, so the first message is kept here instead, per
 * thread (the pipelined path's decode thread has its own). */
#define TF_OTF2_MSG_MAX 256
extern __thread char tf_otf2_msg[TF_OTF2_MSG_MAX];
extern __thread OTF2_ErrorCode tf_otf2_code; /* the code of that message */
/* A TF_EFORMAT error on the anchor: what failed, and libotf2's message. */
int tf_otf2_fail(rd *r, const char *what, OTF2_ErrorCode ec);

/* ---------------------------------------------------------------- records
 *
 * What an event callback decodes from libotf2's arguments: a record of one
 * or more 16-byte slots, put through the path's put step (otf2_events.c).  The
 * serial path applies each record as it is put; the pipelined path queues
 * records in batches on its decode thread, and its main thread applies
 * them in the order they were put.  Applying (apply) is the only place
 * that emits, skips, counts and notes, for both paths. */

enum {
	P_ENTER = TF_EV_BEGIN, /* a = tf_str name, x.u = ticks */
	P_LEAVE = TF_EV_END,
	P_UNDEF,   /* Enter/Leave of undefined region a, x.u = pos */
	P_METRIC,  /* a = metric, k = member count, x.u = ticks; then P_DATA x.u = pos, k x P_DATA x.v */
	P_SEND,    /* a = peer, x.u = ticks; then P_DATA a = comm, x.u = length; P_DATA a = tag */
	P_RECV,
	P_OTHER,   /* counted as ev_other */
	P_LOC,     /* a = location index: its events follow; x.u = LDEFS_* | error code << 8, k = note if damaged */
	P_MISSING, /* a = location index, k = note: no event reader */
	P_END,     /* a = location index, k = note, x.u = records decoded; then P_DATA a = error code */
	P_DATA,    /* more of the record before */
	P_ENTERX,  /* an Enter with tracefold's attributes: a = tf_str name, x.u = ticks, k = gpu kind;
		    * then P_DATA x.u = correlation id */
	P_COLLB,   /* MpiCollectiveBegin: no fields */
	P_COLLE,   /* MpiCollectiveEnd: a = communicator, k = OTF2_CollectiveOp, x.u = root;
		    * then P_DATA x.u = bytes sent; P_DATA x.u = bytes received */
};
_Static_assert(TF_EV_BEGIN == 0 && TF_EV_END == 1, "P_ENTER, P_LEAVE are the event kinds");

typedef struct prec {
	uint8_t kind, k;
	uint32_t a;
	union {
		uint64_t u;
		double v;
	} x;
} prec;

/* The most slots a record takes: a metric of 255 members. */
#define PREC_MAX (2 + UINT8_MAX)

/* A copy of libotf2's message that a record's note slot (k) refers to. */
typedef char msgbuf[TF_OTF2_MSG_MAX];

struct batch; /* otf2_pipe.c */

/* The decoding side of either path: what libotf2's event callbacks get as
 * userData.  Serial: on the main thread, each record applied to l as it is
 * put.  Pipelined: inside the pipeline's shared state on cache lines of its
 * own, used by the decode thread only: records go into the batch cur. */
typedef struct decoder {
	bool piped;
	bool stopped;       /* serial: the sink stopped the read; piped: the main thread did */
	OTF2_Reader *rdr;
	const OTF2_EvtReaderCallbacks *cb;
	bool defs_open;     /* the local definition files could be opened */
	const d_loc *locs;  /* read here: the location ids */
	size_t nlocs;
	/* region id -> name: a copy of rd's tables (fixed once the definitions
	 * are read; the decode thread reads nothing else of rd) */
	const tf_str *region_dense;
	size_t ndense;
	idmap region_ids;
	const tf_str *region_str;
	OTF2_AttributeRef attr_corr, attr_gpu; /* rd's */
	/* pipelined */
	struct batch *cur;  /* being filled; NULL once stopped */
	prec *wp, *wend;    /* next free slot in cur, its end */
	/* serial */
	locst l;            /* the location being read */
	prec one[PREC_MAX]; /* the record being put */
} decoder;

/* ---------------------------------------------------------- otf2_events.c */

/* d for either path, from r's definitions and reader (before the decode
 * thread starts: it reads rd no more). */
void tf_otf2_decoder_init(decoder *d, rd *r, OTF2_Reader *rdr, const OTF2_EvtReaderCallbacks *cb,
			  bool defs_open, bool piped);
/* The event callbacks, for either path (NULL: out of memory). */
OTF2_EvtReaderCallbacks *tf_otf2_event_callbacks(void);
/* Every location, one at a time: its local definitions, its events, how
 * they ended, each as records put through d. */
void tf_otf2_decode(decoder *d);
/* Main thread: applies n slots of records in order; note: the messages
 * their note slots refer to.  Returns 0, or r->rc when the sink stopped
 * the read. */
int tf_otf2_apply_records(locst *l, const prec *rec, uint32_t n, const msgbuf *note);
/* The serial path: no thread, each record applied as it is put. */
int tf_otf2_read_serial(rd *r, OTF2_Reader *rdr, bool defs_open);
/* After every location: notes on missing local definitions. */
void tf_otf2_note_ldefs(rd *r);

/* ------------------------------------------------------------ otf2_pipe.c */

/* The pipelined path.  Returns 1 when the pipeline could not be started
 * (then nothing was read: the caller reads serially). */
int tf_otf2_read_piped(rd *r, OTF2_Reader *rdr, bool defs_open);
/* Decode thread: queues the current batch and takes a spare one; false
 * (and d->stopped) when the main thread said stop. */
bool tf_otf2_pipe_flush(decoder *d);
/* Decode thread: room for a record of n slots that carries libotf2's
 * current message (copied into the batch, note slot k); NULL once stopped. */
prec *tf_otf2_pipe_put_note(decoder *d, uint8_t kind, uint32_t n);

/* Pipelined: room for n consecutive slots in the batch (NULL: stopped). */
static inline prec *pipe_room(decoder *d, uint8_t kind, uint32_t n)
{
	if (__builtin_expect((size_t)(d->wend - d->wp) < n, 0))
		if (!tf_otf2_pipe_flush(d))
			return NULL;
	prec *q = d->wp;
	d->wp = q + n;
	q->kind = kind;
	for (uint32_t i = 1; i < n; i++)
		q[i].kind = P_DATA;
	return q;
}

#endif
