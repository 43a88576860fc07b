/* otf2.c - any input as an OTF2 archive (docs/otf2-out.md), for Vampir,
 * Scalasca and the Score-P tools: a span consumer that writes, through
 * libotf2's writer, in one streaming pass
 *
 *   per track a location (a CPU thread, or an accelerator stream for a GPU
 *     stream; overlapping GPU activities on extra locations "NAME (overlap
 *     N)", so that each location's regions nest), with Enter at each
 *     region's open and Leave at its close: the stack builder's nesting
 *     order, so that regions of equal timestamps never cross;
 *   counters as Metric events of one metric class per counter name;
 *   MPI messages as MpiSend / MpiRecv on one communicator of all ranks;
 *
 * and at the end the global definitions: strings (each once), the system
 * tree (machine -> node), a location group per process (rank N) and one
 * per GPU device (created by its process), locations with their event
 * counts, regions (each name once), metrics, the MPI communicator, the
 * attributes and the clock (1 ns ticks, the inputs' own timestamps).
 *
 * A location's events must be in time order.  The stack builder closes
 * the regions that ended before a counter or message before it hands the
 * event over; one that still comes later than the innermost open region's
 * end would wait in a per-track queue until that region's Leave (empty on
 * every fixture); one written later than its own time (a counter inside a
 * GPU activity, whose Enter and Leave are written at once) is counted in
 * a warning.  Memory: per location libotf2's event buffer (OTF2 chunks of
 * 256 KiB) while its track is being written, closed at the track's end;
 * the definitions (strings, regions, metrics, locations). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>
#include <otf2/otf2.h>
#include "tracefold/writer.h"
#include "tracefold/sink.h"
#include "grow.h"
#include "hmap.h"
#include "tids.h"

#define NONE UINT32_MAX
#define CHUNK_EVENTS (256u << 10)  /* libotf2's smallest event chunk */
#define CHUNK_DEFS (1u << 20)
#define ARCHIVE "traces"           /* DIR/traces.otf2, as Score-P names it */

/* Attributes (their refs; the correlation's last: it is defined only
 * when written, and definitions are numbered without gaps). */
enum { AT_REPAIRED, AT_GPU, AT_CORRELATION, AT_COUNT };

/* A deferred counter or message (see above). */
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
	int64_t min_ts, max_ts;
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

/* libotf2 prints its errors unless told otherwise; the library never
 * prints: the first message is kept for the error. */
static __thread char otf2_msg[512];
static OTF2_ErrorCode quiet(void *ud, const char *file, uint64_t line, const char *fn, OTF2_ErrorCode code,
			    const char *fmt, va_list va)
{
	(void)ud, (void)file, (void)line, (void)fn;
	if (!otf2_msg[0] && fmt)
		vsnprintf(otf2_msg, sizeof(otf2_msg), fmt, va);
	return code;
}

static int fail(tf_otf2_out *w, OTF2_ErrorCode e, const char *what)
{
	if (!w->rc) {
		w->rc = TF_EIO;
		errno = 0; /* libotf2's message says why, not errno */
		tf_error_set(&w->err, TF_EIO, NULL, -1, -1, "cannot write the OTF2 archive '%s': %s: %s", w->path, what,
			     otf2_msg[0] ? otf2_msg : OTF2_Error_GetDescription(e));
	}
	return w->rc;
}

static int oom(tf_otf2_out *w)
{
	if (!w->rc) {
		w->rc = TF_ENOMEM;
		tf_error_set(&w->err, TF_ENOMEM, NULL, -1, -1, "out of memory");
	}
	return w->rc;
}

/* ---- definitions gathered on the way ---- */

/* The ref of name s in table t, numbered if new (0 when out of memory:
 * w->rc says so). */
static uint32_t ref_of(tf_otf2_out *w, nametab *t, tf_str s)
{
	uint32_t r = tf_hmap_get(&t->ref, s);
	if (r != NONE)
		return r;
	if (tf_grow((void **)&t->name, &t->cap, t->n + 1, sizeof(tf_str)) < 0 || tf_hmap_put(&t->ref, s, t->n) < 0) {
		oom(w);
		return 0;
	}
	t->name[t->n] = s;
	return t->n++;
}

static uint32_t string_ref(tf_otf2_out *w, tf_str s)
{
	return ref_of(w, &w->strings, s);
}

static uint32_t string_cstr(tf_otf2_out *w, const char *s)
{
	tf_str id = tf_strtab_intern_cstr(w->st, s);
	if (id == (tf_str)-1) {
		oom(w);
		return 0;
	}
	return string_ref(w, id);
}

/* A region or metric class of a name, whose string is defined too. */
static uint32_t named_ref(tf_otf2_out *w, nametab *t, tf_str name)
{
	string_ref(w, name);
	return ref_of(w, t, name);
}

/* The location group of a track: its process's, or for a GPU stream its
 * device's (an accelerator group created by the process of the same rank
 * or input). */
static uint32_t group_of(tf_otf2_out *w, const tf_track *t, bool gpu)
{
	/* a process: its rank, or its input and key */
	uint64_t key = t->rank >= 0 ? (uint64_t)t->rank : (1ull << 62) | (uint64_t)t->input << 32 | t->process_key;
	key ^= gpu ? 1ull << 63 : 0;
	uint32_t g = tf_hmap_get(&w->grp_of, key);
	if (g != NONE)
		return g;
	if (tf_grow((void **)&w->grp, &w->capgrp, w->ngrp + 1, sizeof(ogroup)) < 0 ||
	    tf_hmap_put(&w->grp_of, key, w->ngrp) < 0) {
		oom(w);
		return NONE;
	}
	char buf[600];
	const char *pn = t->process_name ? tf_strtab_get(w->st, t->process_name) : NULL;
	if (t->rank >= 0)
		snprintf(buf, sizeof(buf), "rank %lld%s", (long long)t->rank, gpu ? " GPU" : "");
	else if (pn)
		snprintf(buf, sizeof(buf), "%.500s", pn);
	else
		snprintf(buf, sizeof(buf), "process %.500s", tf_strtab_get(w->st, t->process_key));
	tf_str name = tf_strtab_intern_cstr(w->st, buf);
	if (name == (tf_str)-1) {
		oom(w);
		return NONE;
	}
	w->grp[w->ngrp] = (ogroup){ .name = name, .rank = t->rank, .accel = gpu, .creator = NONE,
				    .first_loc = NONE, .input = t->input, .key = key };
	string_ref(w, name);
	if (t->rank > w->max_rank)
		w->max_rank = t->rank;
	return w->ngrp++;
}

/* A new location (an event writer opened for it). */
static uint32_t new_loc(tf_otf2_out *w, uint32_t track, uint32_t lane, bool gpu, tf_str name)
{
	const tf_track *t = tf_ctx_track_get(w->ctx, track);
	uint32_t g = group_of(w, t, gpu);
	if (g == NONE || tf_grow((void **)&w->loc, &w->caploc, w->nloc + 1, sizeof(oloc)) < 0) {
		oom(w);
		return NONE;
	}
	uint32_t id = w->nloc;
	OTF2_EvtWriter *ew = OTF2_Archive_GetEvtWriter(w->ar, id);
	if (!ew) {
		fail(w, OTF2_ERROR_MEM_ALLOC_FAILED, "an event writer");
		return NONE;
	}
	w->loc[w->nloc++] = (oloc){ .ew = ew, .last = INT64_MIN, .group = g, .track = track, .lane = lane,
				    .gpu = gpu, .name = name };
	if (!gpu && w->grp[g].first_loc == NONE)
		w->grp[g].first_loc = id;
	return id;
}

static otrack *track_state(tf_otf2_out *w, uint32_t track)
{
	if (track >= w->ntk) {
		uint32_t n = w->ntk;
		if (tf_grow((void **)&w->tk, &w->ntk, track + 1, sizeof(otrack)) < 0) {
			oom(w);
			return NULL;
		}
		for (uint32_t i = n; i < w->ntk; i++)
			w->tk[i] = (otrack){ .loc = NONE };
	}
	return &w->tk[track];
}

/* The location of a track's lane (lane 0: the track's own). */
static uint32_t loc_of(tf_otf2_out *w, uint32_t track, uint32_t lane)
{
	otrack *k = track_state(w, track);
	if (!k)
		return NONE;
	const tf_track *t = tf_ctx_track_get(w->ctx, track);
	bool gpu = t && t->kind == TF_TRACK_GPU;
	if (lane == 0) {
		if (k->loc == NONE)
			k->loc = new_loc(w, track, 0, gpu, 0);
		return k->loc;
	}
	if (tf_grow((void **)&k->lane_loc, &k->caplanes, lane + 1, sizeof(uint32_t)) < 0) {
		oom(w);
		return NONE;
	}
	for (; k->nlanes <= lane; k->nlanes++)
		k->lane_loc[k->nlanes] = NONE;
	if (k->lane_loc[lane] == NONE) {
		char name[600];
		tf_lane_name(w->ctx, track, lane, name, sizeof(name));
		tf_str s = tf_strtab_intern_cstr(w->st, name);
		if (s == (tf_str)-1) {
			oom(w);
			return NONE;
		}
		k->lane_loc[lane] = new_loc(w, track, lane, gpu, s);
	}
	return k->lane_loc[lane];
}

/* The time an event of location l is written at: its own, or, when the
 * location already has a later event, that one's (counted). */
static uint64_t stamp(tf_otf2_out *w, oloc *l, int64_t ts)
{
	if (ts < 0) { /* OTF2's are unsigned: the run fails, nothing goes to libotf2 */
		if (!w->rc) {
			tf_error_set(&w->err, w->rc = TF_EFORMAT, NULL, -1, -1,
				     "cannot write '%s': a timestamp before 0 (%lld ns); OTF2 timestamps are unsigned "
				     "(--window can leave out what comes before 0)", w->path, (long long)ts);
			/* the pipeline reports the input; this says why */
			tf_ctx_warn(w->ctx, "%s", w->err.msg);
		}
		return 0;
	}
	if (ts < l->last) {
		w->moved++;
		w->moved_ns += (uint64_t)(l->last - ts);
		ts = l->last;
	}
	l->last = ts;
	l->nevents++;
	if (ts < w->min_ts)
		w->min_ts = ts;
	if (ts > w->max_ts)
		w->max_ts = ts;
	return (uint64_t)ts;
}

static int write_pend(tf_otf2_out *w, uint32_t li, const pend *p)
{
	oloc *l = &w->loc[li];
	OTF2_ErrorCode e;
	if (p->kind == TF_EV_COUNTER) {
		OTF2_Type type = OTF2_TYPE_DOUBLE;
		OTF2_MetricValue v;
		v.floating_point = p->value;
		e = OTF2_EvtWriter_Metric(l->ew, NULL, stamp(w, l, p->ts), p->ref, 1, &type, &v);
	} else {
		w->any_mpi = true;
		uint32_t tag = (uint32_t)p->tag, peer = p->ref;
		uint64_t bytes = p->bytes > 0 ? (uint64_t)p->bytes : 0;
		if (p->kind == TF_EV_SEND)
			e = OTF2_EvtWriter_MpiSend(l->ew, NULL, stamp(w, l, p->ts), peer, 0, tag, bytes);
		else
			e = OTF2_EvtWriter_MpiRecv(l->ew, NULL, stamp(w, l, p->ts), peer, 0, tag, bytes);
	}
	return e == OTF2_SUCCESS ? 0 : fail(w, e, "an event");
}

/* Writes the track's deferred events up to time `until`. */
static int drain(tf_otf2_out *w, uint32_t track, int64_t until)
{
	otrack *k = &w->tk[track];
	while (k->qn && k->q[k->qhead].ts <= until) {
		TF_TRY(write_pend(w, k->loc, &k->q[k->qhead]));
		k->qhead++;
		k->qn--;
	}
	if (!k->qn)
		k->qhead = 0;
	return w->rc;
}

/* What the open regions allow now: events up to the innermost one's end. */
static int64_t safe_until(const otrack *k)
{
	return k->depth ? k->ends[k->depth - 1] : INT64_MAX;
}

/* ---- the span consumer ---- */

static int on_open(tf_span_sink *sk, const tf_span *s)
{
	tf_otf2_out *w = tf_container_of(sk, tf_otf2_out, spans);
	if (w->rc)
		return w->rc;
	otrack *k = track_state(w, s->track);
	if (!k || loc_of(w, s->track, 0) == NONE)
		return w->rc;
	TF_TRY(drain(w, s->track, s->start_ns));
	if (s->depth == 1) {
		k->lane = 0;
		if (s->kind != TF_SPAN_KIND_CPU && s->end_ns != TF_SPAN_END_UNKNOWN) {
			bool is_new;
			if (tf_lanes_pick(&k->lanes, s->start_ns, s->end_ns, &k->lane, &is_new) < 0)
				return oom(w);
		}
	}
	uint32_t li = loc_of(w, s->track, k->lane);
	if (li == NONE)
		return w->rc;
	if (tf_grow((void **)&k->ends, &k->capends, k->depth + 1, sizeof(int64_t)) < 0)
		return oom(w);
	int64_t end = s->end_ns == TF_SPAN_END_UNKNOWN ? INT64_MAX : s->end_ns;
	k->ends[k->depth] = k->depth && end > k->ends[k->depth - 1] ? k->ends[k->depth - 1] : end;
	k->depth++;
	uint32_t r = named_ref(w, &w->regions, s->name);
	OTF2_AttributeList *al = NULL;
	if (s->corr || s->kind != TF_SPAN_KIND_CPU) {
		al = w->attrs;
		OTF2_AttributeList_RemoveAllAttributes(al);
		if (s->corr) {
			OTF2_AttributeList_AddUint64(al, AT_CORRELATION, s->corr);
			w->any_corr = true;
		}
		if (s->kind != TF_SPAN_KIND_CPU)
			OTF2_AttributeList_AddUint8(al, AT_GPU, (uint8_t)s->kind);
	}
	oloc *l = &w->loc[li];
	OTF2_ErrorCode e = OTF2_EvtWriter_Enter(l->ew, al, stamp(w, l, s->start_ns), r);
	return e == OTF2_SUCCESS ? w->rc : fail(w, e, "an Enter event");
}

static int on_close(tf_span_sink *sk, const tf_span *s)
{
	tf_otf2_out *w = tf_container_of(sk, tf_otf2_out, spans);
	if (w->rc)
		return w->rc;
	otrack *k = &w->tk[s->track];
	TF_TRY(drain(w, s->track, s->end_ns));
	uint32_t li = k->lane ? k->lane_loc[k->lane] : k->loc;
	if (li == NONE)
		return w->rc;
	OTF2_AttributeList *al = NULL;
	if (s->flags) {
		char rep[128] = "";
		size_t len = 0;
		for (size_t i = 0; i < TF_SPAN_NREPAIRS; i++)
			if (s->flags & tf_span_repairs[i].flag)
				len += (size_t)snprintf(rep + len, sizeof(rep) - len, "%s%s", len ? "," : "",
							tf_span_repairs[i].name);
		al = w->attrs;
		OTF2_AttributeList_RemoveAllAttributes(al);
		OTF2_AttributeList_AddStringRef(al, AT_REPAIRED, string_cstr(w, rep));
	}
	oloc *l = &w->loc[li];
	OTF2_ErrorCode e = OTF2_EvtWriter_Leave(l->ew, al, stamp(w, l, s->end_ns), named_ref(w, &w->regions, s->name));
	if (e != OTF2_SUCCESS)
		return fail(w, e, "a Leave event");
	if (k->depth)
		k->depth--;
	if (s->depth == 1)
		k->lane = 0;
	return drain(w, s->track, safe_until(k));
}

static int on_event(tf_span_sink *sk, const tf_event *ev, uint32_t node)
{
	tf_otf2_out *w = tf_container_of(sk, tf_otf2_out, spans);
	(void)node;
	if (w->rc)
		return w->rc;
	pend p = { .kind = ev->kind, .ts = ev->ts_ns };
	if (ev->kind == TF_EV_COUNTER) {
		p.value = ev->value;
		p.ref = named_ref(w, &w->metrics, ev->name);
	} else if (ev->kind == TF_EV_SEND || ev->kind == TF_EV_RECV) {
		const tf_track *t = tf_ctx_track_get(w->ctx, ev->track);
		if (!t || t->rank < 0 || ev->msg.peer < 0 || ev->msg.peer > UINT32_MAX - 1) {
			w->skipped_msgs++;
			return 0;
		}
		if (ev->msg.peer > w->max_peer)
			w->max_peer = ev->msg.peer;
		p.ref = (uint32_t)ev->msg.peer;
		p.tag = ev->msg.tag;
		p.bytes = ev->msg.bytes;
	} else {
		return 0;
	}
	otrack *k = track_state(w, ev->track);
	if (!k || loc_of(w, ev->track, 0) == NONE)
		return w->rc;
	if (!k->qn && ev->ts_ns <= safe_until(k))
		return write_pend(w, k->loc, &p);
	if (k->qhead && k->qhead + k->qn == k->capq) { /* reuse the front */
		memmove(k->q, k->q + k->qhead, k->qn * sizeof(pend));
		k->qhead = 0;
	}
	if (tf_grow((void **)&k->q, &k->capq, k->qhead + k->qn + 1, sizeof(pend)) < 0)
		return oom(w);
	k->q[k->qhead + k->qn++] = p;
	return 0;
}

/* A track is done: its deferred events out, its event writers closed
 * (libotf2 writes their last chunk and frees them). */
static int on_end_track(tf_span_sink *sk, uint32_t track)
{
	tf_otf2_out *w = tf_container_of(sk, tf_otf2_out, spans);
	if (w->rc || track >= w->ntk)
		return w->rc;
	otrack *k = &w->tk[track];
	if (k->loc == NONE)
		return 0;
	k->depth = 0;
	TF_TRY(drain(w, track, INT64_MAX));
	for (uint32_t lane = 0; lane < (k->nlanes ? k->nlanes : 1); lane++) {
		uint32_t li = lane ? k->lane_loc[lane] : k->loc;
		if (li == NONE || !w->loc[li].ew)
			continue;
		OTF2_ErrorCode e = OTF2_Archive_CloseEvtWriter(w->ar, w->loc[li].ew);
		w->loc[li].ew = NULL;
		if (e != OTF2_SUCCESS)
			return fail(w, e, "an event file");
	}
	free(k->q);
	free(k->ends);
	tf_lanes_free(&k->lanes);
	k->q = NULL;
	k->ends = NULL;
	k->qhead = k->qn = k->capq = k->capends = 0;
	return 0;
}

/* ---- the archive ---- */

static OTF2_FlushType pre_flush(void *u, OTF2_FileType ft, OTF2_LocationRef loc, void *cb, bool final)
{
	(void)u, (void)ft, (void)loc, (void)cb, (void)final;
	return OTF2_FLUSH;
}

static OTF2_TimeStamp post_flush(void *u, OTF2_FileType ft, OTF2_LocationRef loc)
{
	(void)u, (void)ft, (void)loc;
	return 0;
}

static const OTF2_FlushCallbacks flush_cbs = { .otf2_pre_flush = pre_flush, .otf2_post_flush = post_flush };

static const char *location_name(tf_otf2_out *w, const oloc *l, char *buf, size_t n)
{
	if (l->name)
		return tf_strtab_get(w->st, l->name);
	const tf_track *t = tf_ctx_track_get(w->ctx, l->track);
	if (t->thread_name)
		return tf_strtab_get(w->st, t->thread_name);
	snprintf(buf, n, "thread %.500s", tf_strtab_get(w->st, t->thread_key));
	return buf;
}

#define GDW(call, what)                                                                                    \
	do {                                                                                               \
		OTF2_ErrorCode e_ = (call);                                                                \
		if (e_ != OTF2_SUCCESS)                                                                    \
			return fail(w, e_, what);                                                          \
	} while (0)

/* The processes of no track: a rank with no track of its own (a message
 * peer, a rank left out by --ranks), so that MPI_COMM_WORLD lists every
 * rank in order; a GPU device whose process is not in the input.  Each is
 * a process with an empty location, whose (empty) event file is written
 * now, as readers open one per location. */
static int plan_extras(tf_otf2_out *w)
{
	/* MPI_COMM_WORLD: the run's ranks (those of every track read, written
	 * or left out by --ranks), not the largest peer a damaged message
	 * names, which would make a process per number up to it */
	for (uint32_t i = 0, n = tf_ctx_track_count(w->ctx); i < n; i++) {
		const tf_track *u = tf_ctx_track_get(w->ctx, i);
		if (u && u->rank > w->run_max_rank)
			w->run_max_rank = u->rank;
	}
	int64_t top = w->max_peer < w->run_max_rank ? w->max_peer : w->run_max_rank;
	top = w->max_rank > top ? w->max_rank : top;
	int64_t nranks = w->any_mpi ? top + 1 : 0;
	if (w->max_peer > top)
		tf_ctx_warn(w->ctx, "OTF2: messages name peers up to rank %lld, beyond the run's ranks (0..%lld): their "
			    "receivers or senders are not in MPI_COMM_WORLD", (long long)w->max_peer, (long long)top);
	char buf[700];
	if (nranks > (1 << 24))
		return tf_error_set(&w->err, w->rc = TF_EFORMAT, NULL, -1, -1,
				    "rank %lld is too large for an OTF2 communicator", (long long)w->max_rank);
	w->nranks = nranks;
	if (!(w->rank_loc = malloc(((size_t)nranks + 1) * sizeof(uint32_t))) ||
	    !(w->ex = calloc((size_t)nranks + w->ngrp + 1, sizeof(*w->ex))))
		return oom(w);
	for (int64_t r = 0; r < nranks; r++)
		w->rank_loc[r] = NONE;
	for (uint32_t g = 0; g < w->ngrp; g++)
		if (!w->grp[g].accel && w->grp[g].rank >= 0 && w->grp[g].rank < nranks)
			w->rank_loc[w->grp[g].rank] = w->grp[g].first_loc;
	/* every accelerator group is created by a process: the one of its rank
	 * or key, else the input's first (Kineto puts GPU streams under the
	 * device's pid, not the process's), else one of its own ("NAME host") */
	for (uint32_t g = 0; g < w->ngrp; g++) {
		ogroup *a = &w->grp[g];
		if (!a->accel)
			continue;
		uint32_t c = tf_hmap_get(&w->grp_of, a->key ^ (1ull << 63));
		for (uint32_t k = 0; k < w->ngrp && (c == NONE || w->grp[c].first_loc == NONE); k++)
			if (!w->grp[k].accel && w->grp[k].first_loc != NONE &&
			    (a->rank >= 0 ? w->grp[k].rank == a->rank : w->grp[k].input == a->input))
				c = k;
		a->creator = c != NONE && w->grp[c].first_loc != NONE ? c : NONE;
	}
	uint32_t gnext = w->ngrp, lnext = w->nloc;
	for (int64_t r = 0; r < nranks; r++)
		if (w->rank_loc[r] == NONE) {
			snprintf(buf, sizeof(buf), "rank %lld", (long long)r);
			w->ex[w->nex++] = (struct extra){ tf_strtab_intern_cstr(w->st, buf), gnext++, lnext };
			w->rank_loc[r] = lnext++;
		}
	for (uint32_t g = 0; g < w->ngrp; g++) {
		ogroup *a = &w->grp[g];
		if (!a->accel || a->creator != NONE)
			continue;
		snprintf(buf, sizeof(buf), "%.600s host", tf_strtab_get(w->st, a->name));
		w->ex[w->nex++] = (struct extra){ tf_strtab_intern_cstr(w->st, buf), gnext, lnext++ };
		a->creator = gnext++;
	}
	for (uint32_t k = 0; k < w->nex; k++) {
		if (w->ex[k].name == (tf_str)-1)
			return oom(w);
		OTF2_EvtWriter *ew = OTF2_Archive_GetEvtWriter(w->ar, w->ex[k].loc);
		OTF2_ErrorCode e = ew ? OTF2_Archive_CloseEvtWriter(w->ar, ew) : OTF2_ERROR_MEM_ALLOC_FAILED;
		if (e != OTF2_SUCCESS)
			return fail(w, e, "an event file");
	}
	return w->rc;
}

static int write_defs(tf_otf2_out *w)
{
	uint32_t *rank_loc = w->rank_loc;
	int64_t nranks = w->nranks;
	char buf[700];
	OTF2_GlobalDefWriter *d = OTF2_Archive_GetGlobalDefWriter(w->ar);
	if (!d)
		return fail(w, OTF2_ERROR_MEM_ALLOC_FAILED, "the definitions");
	uint32_t s_empty = string_cstr(w, ""), s_machine = string_cstr(w, "tracefold"),
		 s_mclass = string_cstr(w, "machine"), s_node = string_cstr(w, "node");
	uint32_t s_attr[AT_COUNT] = { string_cstr(w, "tracefold::repaired"), string_cstr(w, "tracefold::gpu"),
				      string_cstr(w, "tracefold::correlation") };
	uint32_t s_launches = string_cstr(w, "tracefold::gpu_launches");
	uint32_t s_comm = string_cstr(w, "MPI_COMM_WORLD"), s_ranks = string_cstr(w, "MPI_COMM_WORLD ranks"),
		 s_locs = string_cstr(w, "MPI locations"), s_missing = string_cstr(w, "(not in this trace)");
	/* every string a definition names, before the strings are written */
	for (uint32_t i = 0; i < w->nloc; i++)
		string_cstr(w, location_name(w, &w->loc[i], buf, sizeof(buf)));
	for (uint32_t k = 0; k < w->nex; k++)
		string_ref(w, w->ex[k].name);
	if (w->rc)
		return w->rc;
	int64_t lo = w->min_ts == INT64_MAX ? 0 : w->min_ts, hi = w->max_ts == INT64_MIN ? 0 : w->max_ts;
	OTF2_ErrorCode e = OTF2_GlobalDefWriter_WriteClockProperties(d, 1000000000, (uint64_t)lo, (uint64_t)(hi - lo),
								     OTF2_UNDEFINED_TIMESTAMP);
	for (uint32_t i = 0; i < w->strings.n && e == OTF2_SUCCESS; i++)
		e = OTF2_GlobalDefWriter_WriteString(d, i, w->strings.name[i] ? tf_strtab_get(w->st, w->strings.name[i]) : "");
	if (e == OTF2_SUCCESS)
		e = OTF2_GlobalDefWriter_WriteSystemTreeNode(d, 0, s_machine, s_mclass, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
	if (e == OTF2_SUCCESS)
		e = OTF2_GlobalDefWriter_WriteSystemTreeNode(d, 1, s_node, s_node, 0);
	/* location groups: processes first (a creator comes before what it creates) */
	for (uint32_t g = 0; g < w->ngrp && e == OTF2_SUCCESS; g++)
		if (!w->grp[g].accel)
			e = OTF2_GlobalDefWriter_WriteLocationGroup(d, g, string_ref(w, w->grp[g].name),
								    OTF2_LOCATION_GROUP_TYPE_PROCESS, 1,
								    OTF2_UNDEFINED_LOCATION_GROUP);
	for (uint32_t k = 0; k < w->nex && e == OTF2_SUCCESS; k++) {
		e = OTF2_GlobalDefWriter_WriteLocationGroup(d, w->ex[k].group, string_ref(w, w->ex[k].name),
							    OTF2_LOCATION_GROUP_TYPE_PROCESS, 1, OTF2_UNDEFINED_LOCATION_GROUP);
		if (e == OTF2_SUCCESS)
			e = OTF2_GlobalDefWriter_WriteLocation(d, w->ex[k].loc, s_missing, OTF2_LOCATION_TYPE_CPU_THREAD, 0,
							       w->ex[k].group);
	}
	for (uint32_t g = 0; g < w->ngrp && e == OTF2_SUCCESS; g++)
		if (w->grp[g].accel)
			e = OTF2_GlobalDefWriter_WriteLocationGroup(d, g, string_ref(w, w->grp[g].name),
								    OTF2_LOCATION_GROUP_TYPE_ACCELERATOR, 1,
								    w->grp[g].creator);
	for (uint32_t i = 0; i < w->nloc && e == OTF2_SUCCESS; i++) {
		const oloc *l = &w->loc[i];
		e = OTF2_GlobalDefWriter_WriteLocation(d, i, string_cstr(w, location_name(w, l, buf, sizeof(buf))),
						       l->gpu ? OTF2_LOCATION_TYPE_ACCELERATOR_STREAM
							      : OTF2_LOCATION_TYPE_CPU_THREAD,
						       l->nevents, l->group);
	}
	/* GPU streams whose activities went under their launches (sorted
	 * tracks: Kineto, rocprofiler): read back, they do again */
	for (uint32_t i = 0; i < w->nloc && e == OTF2_SUCCESS; i++) {
		const tf_track *t = tf_ctx_track_get(w->ctx, w->loc[i].track);
		if (w->loc[i].gpu && t && t->needs_sort) {
			OTF2_AttributeValue v;
			v.uint8 = 1;
			e = OTF2_GlobalDefWriter_WriteLocationProperty(d, i, s_launches, OTF2_TYPE_UINT8, v);
		}
	}
	if (e != OTF2_SUCCESS)
		return fail(w, e, "the definitions");
	if (nranks) {
		uint64_t *m = malloc((size_t)nranks * sizeof(uint64_t));
		if (!m)
			return oom(w);
		for (int64_t r = 0; r < nranks; r++)
			m[r] = rank_loc[r];
		e = OTF2_GlobalDefWriter_WriteGroup(d, 0, s_locs, OTF2_GROUP_TYPE_COMM_LOCATIONS,
								   OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
								   (uint32_t)nranks, m);
		for (int64_t r = 0; r < nranks && e == OTF2_SUCCESS; r++)
			m[r] = (uint64_t)r;
		if (e == OTF2_SUCCESS)
			e = OTF2_GlobalDefWriter_WriteGroup(d, 1, s_ranks, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
							    OTF2_GROUP_FLAG_NONE, (uint32_t)nranks, m);
		if (e == OTF2_SUCCESS)
			e = OTF2_GlobalDefWriter_WriteComm(d, 0, s_comm, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
		free(m);
		if (e != OTF2_SUCCESS)
			return fail(w, e, "the MPI communicator");
	}
	for (uint32_t i = 0; i < w->regions.n; i++) {
		tf_str name = w->regions.name[i];
		const char *n = tf_strtab_get(w->st, name);
		/* MPI functions as MPI's (Scalasca and Vampir group them by paradigm) */
		OTF2_Paradigm par = !strncmp(n, "MPI_", 4) || !strncmp(n, "PMPI_", 5) ? OTF2_PARADIGM_MPI
										      : OTF2_PARADIGM_USER;
		OTF2_RegionRole role = OTF2_REGION_ROLE_FUNCTION;
		uint32_t sn = string_ref(w, name);
		GDW(OTF2_GlobalDefWriter_WriteRegion(d, i, sn, sn, s_empty, role, par, OTF2_REGION_FLAG_NONE, s_empty, 0,
						     0),
		    "a region");
	}
	for (uint32_t i = 0; i < w->metrics.n; i++) {
		OTF2_MetricMemberRef m = i;
		GDW(OTF2_GlobalDefWriter_WriteMetricMember(d, i, string_ref(w, w->metrics.name[i]), s_empty,
							   OTF2_METRIC_TYPE_USER, OTF2_METRIC_ABSOLUTE_POINT,
							   OTF2_TYPE_DOUBLE, OTF2_BASE_DECIMAL, 0, s_empty),
		    "a metric");
		GDW(OTF2_GlobalDefWriter_WriteMetricClass(d, i, 1, &m, OTF2_METRIC_ASYNCHRONOUS, OTF2_RECORDER_KIND_ABSTRACT),
		    "a metric");
	}
	/* tracefold::correlation only where an id was written: a reader
	 * that sees it nests GPU streams under their launches (Kineto), one
	 * that does not leaves them where they are (Score-P's GPU locations) */
	for (uint32_t a = 0; a < AT_COUNT; a++)
		if (a != AT_CORRELATION || w->any_corr)
			GDW(OTF2_GlobalDefWriter_WriteAttribute(d, a, s_attr[a], s_empty,
							a == AT_REPAIRED	? OTF2_TYPE_STRING
							: a == AT_CORRELATION ? OTF2_TYPE_UINT64
									      : OTF2_TYPE_UINT8),
		    "an attribute");
	e = OTF2_Archive_CloseGlobalDefWriter(w->ar, d);
	if (e != OTF2_SUCCESS)
		return fail(w, e, "the definitions");
	/* each location's (empty) local definitions, as readers expect them */
	if ((e = OTF2_Archive_OpenDefFiles(w->ar)) != OTF2_SUCCESS)
		return fail(w, e, "the definition files");
	for (uint32_t i = 0; i < w->nloc + w->nex; i++) {
		OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(w->ar, i);
		if (!dw || (e = OTF2_Archive_CloseDefWriter(w->ar, dw)) != OTF2_SUCCESS)
			return fail(w, dw ? e : OTF2_ERROR_MEM_ALLOC_FAILED, "a definition file");
	}
	if ((e = OTF2_Archive_CloseDefFiles(w->ar)) != OTF2_SUCCESS)
		return fail(w, e, "the definition files");
	return w->rc;
}

/* Removes an archive folder written by libotf2 (the temporary one, or an
 * earlier archive replaced): DIR/traces.otf2, DIR/traces.def and the files
 * of DIR/traces/; nothing else, so another folder is never emptied. */
static void rm_archive(const char *path)
{
	char p[4300];
	snprintf(p, sizeof(p), "%s/%s", path, ARCHIVE);
	DIR *dir = opendir(p);
	if (dir) {
		for (struct dirent *e; (e = readdir(dir));) {
			size_t n = strlen(e->d_name);
			if (n > 4 && (!strcmp(e->d_name + n - 4, ".evt") || !strcmp(e->d_name + n - 4, ".def"))) {
				snprintf(p, sizeof(p), "%s/%s/%s", path, ARCHIVE, e->d_name);
				unlink(p);
			}
		}
		closedir(dir);
		snprintf(p, sizeof(p), "%s/%s", path, ARCHIVE);
		rmdir(p);
	}
	snprintf(p, sizeof(p), "%s/%s.otf2", path, ARCHIVE);
	unlink(p);
	snprintf(p, sizeof(p), "%s/%s.def", path, ARCHIVE);
	unlink(p);
	rmdir(path);
}

/* ".NAME.old.XXXXXX" beside path (malloc'd; the name is free), NULL if none. */
static char *aside_name(const char *path)
{
	size_t n = strlen(path);
	char *p = malloc(n + 32);
	if (!p)
		return NULL;
	const char *slash = strrchr(path, '/');
	snprintf(p, n + 32, "%.*s.%s.old.XXXXXX", slash ? (int)(slash - path + 1) : 0, path, slash ? slash + 1 : path);
	if (!mkdtemp(p)) {
		free(p);
		return NULL;
	}
	rmdir(p);
	return p;
}

/* Whether path can take the archive: absent, an empty folder, or an
 * archive (traces.otf2, traces.def, traces/ of .evt and .def files and
 * nothing else: a Score-P experiment folder, which holds more, is not). */
static bool replaceable(const char *path, char *why, size_t n)
{
	struct stat sb;
	if (stat(path, &sb) != 0)
		return errno == ENOENT;
	if (!S_ISDIR(sb.st_mode)) {
		snprintf(why, n, "it is a file, not a folder");
		return false;
	}
	char p[4300];
	bool ok = true;
	for (int level = 0; level < 2 && ok; level++) {
		snprintf(p, sizeof(p), level ? "%s/" ARCHIVE : "%s", path);
		DIR *dir = opendir(p);
		if (!dir) {
			ok = level == 1 && errno == ENOENT;
			if (!ok)
				snprintf(why, n, "%s", strerror(errno));
			break;
		}
		for (struct dirent *e; ok && (e = readdir(dir));) {
			const char *f = e->d_name;
			size_t k = strlen(f);
			if (!strcmp(f, ".") || !strcmp(f, ".."))
				continue;
			if (level == 0)
				ok = !strcmp(f, ARCHIVE ".otf2") || !strcmp(f, ARCHIVE ".def") || !strcmp(f, ARCHIVE);
			else
				ok = k > 4 && (!strcmp(f + k - 4, ".evt") || !strcmp(f + k - 4, ".def"));
			if (!ok)
				snprintf(why, n, "it holds '%s%s', which is not part of an OTF2 archive", level ? ARCHIVE "/" : "", f);
		}
		closedir(dir);
	}
	return ok;
}

static void otf2_free(tf_otf2_out *w)
{
	if (!w)
		return;
	for (uint32_t i = 0; i < w->ntk; i++) {
		free(w->tk[i].q);
		free(w->tk[i].ends);
		free(w->tk[i].lane_loc);
		tf_lanes_free(&w->tk[i].lanes);
	}
	free(w->tk);
	free(w->loc);
	free(w->grp);
	tf_hmap_free(&w->grp_of);
	nametab *tabs[3] = { &w->strings, &w->regions, &w->metrics };
	for (int i = 0; i < 3; i++) {
		tf_hmap_free(&tabs[i]->ref);
		free(tabs[i]->name);
	}
	if (w->attrs)
		OTF2_AttributeList_Delete(w->attrs);
	if (w->old_cb)
		OTF2_Error_RegisterCallback(w->old_cb, NULL);
	free(w->ex);
	free(w->rank_loc);
	free(w->path);
	free(w->tmp);
	free(w);
}

static void otf2_abort(void *state)
{
	tf_otf2_out *w = state;
	if (!w)
		return;
	if (w->ar)
		OTF2_Archive_Close(w->ar);
	rm_archive(w->tmp);
	otf2_free(w);
}

static int otf2_finish(void *state, tf_error *err)
{
	tf_otf2_out *w = state;
	for (uint32_t t = 0; t < w->ntk && !w->rc; t++)
		on_end_track(&w->spans, t);
	if (!w->rc)
		plan_extras(w);
	if (!w->rc) {
		OTF2_ErrorCode e = OTF2_Archive_CloseEvtFiles(w->ar);
		if (e != OTF2_SUCCESS)
			fail(w, e, "the event files");
	}
	if (!w->rc && w->nloc == 0)
		tf_error_set(&w->err, w->rc = TF_EFORMAT, NULL, -1, -1, "nothing to write to '%s': no region, counter or message",
			     w->path);
	if (!w->rc)
		write_defs(w);
	if (!w->rc) {
		OTF2_ErrorCode e = OTF2_Archive_Close(w->ar);
		w->ar = NULL;
		if (e != OTF2_SUCCESS)
			fail(w, e, "the archive");
	}
	if (!w->rc) {
		/* the archive replaces an earlier one at path: moved aside, the new
		 * one renamed in, the old one removed; put back if the rename fails.
		 * Anything else at path was refused before the inputs were read. */
		char *old = NULL;
		struct stat sb;
		if (stat(w->path, &sb) == 0) {
			if (!(old = aside_name(w->path)) || rename(w->path, old) != 0) {
				tf_error_set(&w->err, w->rc = old ? TF_EIO : TF_ENOMEM, NULL, -1, -1, "cannot replace '%s'",
					     w->path);
				free(old);
				old = NULL;
			}
		}
		if (!w->rc && rename(w->tmp, w->path) != 0) {
			tf_error_set(&w->err, w->rc = TF_EIO, NULL, -1, -1, "cannot write '%s'", w->path);
			if (old)
				rename(old, w->path);
		} else if (old) {
			rm_archive(old);
		}
		free(old);
	}
	if (w->moved)
		tf_ctx_warn(w->ctx, "OTF2: %llu events written later than their time to keep their location in time order "
			    "(moved %llu ns in all)", (unsigned long long)w->moved, (unsigned long long)w->moved_ns);
	if (w->skipped_msgs)
		tf_ctx_warn(w->ctx, "OTF2: %llu messages of tracks without an MPI rank (or to none) not written",
			    (unsigned long long)w->skipped_msgs);
	int rc = w->rc;
	if (rc && err)
		*err = w->err;
	if (rc) {
		otf2_abort(w);
		return rc;
	}
	otf2_free(w);
	return 0;
}

static int otf2_open(const tf_writer_args *a, const char *path, tf_span_sink **sink_out, void **state_out,
		     tf_error *err)
{
	if (!strcmp(path, "-"))
		return tf_error_set(err, TF_EUSAGE, NULL, -1, -1, "an OTF2 archive is a folder: give its name, not '-'");
	tf_otf2_out *w = calloc(1, sizeof(*w));
	size_t n = strlen(path);
	if (!w || !(w->path = strdup(path)) || !(w->tmp = malloc(n + 32))) {
		otf2_free(w);
		return tf_error_set(err, TF_ENOMEM, NULL, -1, -1, "out of memory");
	}
	while (n > 1 && w->path[n - 1] == '/')
		w->path[--n] = '\0';
	char why[600] = "";
	if (!replaceable(w->path, why, sizeof(why))) {
		errno = 0; /* why says it */
		int rc = tf_error_set(err, TF_EIO, NULL, -1, -1,
				      "will not write the OTF2 archive into '%s': %s (an earlier archive there is "
				      "replaced, anything else is kept: choose another folder)", w->path, why);
		otf2_free(w);
		return rc;
	}
	/* a temporary folder beside the archive, renamed over it at the end */
	const char *slash = strrchr(w->path, '/');
	snprintf(w->tmp, n + 32, "%.*s.%s.XXXXXX", slash ? (int)(slash - w->path + 1) : 0, w->path,
		 slash ? slash + 1 : w->path);
	if (!mkdtemp(w->tmp)) {
		int e = errno;
		otf2_free(w);
		errno = e;
		return tf_error_set(err, TF_EIO, NULL, -1, -1, "cannot write '%s'", path);
	}
	rmdir(w->tmp); /* libotf2 makes the archive folder itself */
	w->ctx = a->ctx;
	w->st = tf_ctx_strtab(a->ctx);
	w->max_rank = w->run_max_rank = w->max_peer = -1;
	w->min_ts = INT64_MAX;
	w->max_ts = INT64_MIN;
	otf2_msg[0] = 0;
	w->old_cb = OTF2_Error_RegisterCallback(quiet, NULL);
	w->ar = OTF2_Archive_Open(w->tmp, ARCHIVE, OTF2_FILEMODE_WRITE, CHUNK_EVENTS, CHUNK_DEFS,
				  OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
	w->attrs = OTF2_AttributeList_New();
	OTF2_ErrorCode e = OTF2_SUCCESS;
	if (!w->ar || !w->attrs || (e = OTF2_Archive_SetFlushCallbacks(w->ar, &flush_cbs, NULL)) != OTF2_SUCCESS ||
	    (e = OTF2_Archive_SetSerialCollectiveCallbacks(w->ar)) != OTF2_SUCCESS ||
	    (e = OTF2_Archive_SetCreator(w->ar, "tracefold")) != OTF2_SUCCESS ||
	    (e = OTF2_Archive_OpenEvtFiles(w->ar)) != OTF2_SUCCESS) {
		errno = 0;
		int rc = tf_error_set(err, TF_EIO, NULL, -1, -1, "cannot write the OTF2 archive '%s': %s", path,
				      otf2_msg[0] ? otf2_msg : e != OTF2_SUCCESS ? OTF2_Error_GetDescription(e)
										  : "libotf2 failed to open it");
		otf2_abort(w);
		return rc;
	}
	w->spans = (tf_span_sink){ .open = on_open, .close = on_close, .event = on_event, .end_track = on_end_track,
				   .event_kinds = (1u << TF_EV_COUNTER) | (1u << TF_EV_SEND) | (1u << TF_EV_RECV) };
	*sink_out = &w->spans;
	*state_out = w;
	return 0;
}

const tf_writer tf_writer_otf2 = {
	.name = "otf2",
	.description = "an OTF2 archive in a folder (Vampir, Scalasca, Score-P tools; docs/otf2-out.md)",
	.suffixes = (const char *const[]){ NULL },
	.consumes = TF_WRITER_SPANS,
	.span_open = otf2_open,
	.span_finish = otf2_finish,
	.span_abort = otf2_abort,
	.flags = TF_WRITER_DIR,
	.command = "otf2",
	.summary = "an OTF2 archive for Vampir and Scalasca; docs/otf2-out.md",
	.usage = "-o DIR",
	.help = "Writes the INPUTs (the inputs of 'tracefold profile') as one OTF2 archive\n"
		"(DIR/traces.otf2, as Score-P writes it) through libotf2, in one streaming\n"
		"pass, for Vampir, Scalasca, Cube and the OTF2 tools: a location group per\n"
		"process (rank N) and per GPU device, a location per thread and GPU stream,\n"
		"Enter/Leave per region in the nesting the stack builder rebuilt (equal\n"
		"timestamps never cross), counters as metrics, MPI messages as\n"
		"MpiSend/MpiRecv on MPI_COMM_WORLD; 1 ns clock ticks, the inputs' own\n"
		"times; repairs as the attribute tracefold::repaired.  An archive already\n"
		"at DIR is replaced; a folder holding anything else (a Score-P experiment\n"
		"folder) is refused and kept (docs/otf2-out.md).\n",
};
