/* perfetto.c - Perfetto protobuf traces (TrackEvent-based: what tracefold's
 * writer, Perfetto's SDK and SDK-style tools write) -> tf_event.
 *
 * A trace is a sequence of (tag 0x0a, length, TracePacket); packets are read
 * one at a time from a growing buffer and unpacked by protobuf-c
 * (proto/perfetto_trace.proto, the fields this reader knows; the others are
 * skipped) into an arena emptied after each packet.  Format facts and the
 * choices made here: docs/perfetto.md.
 *
 *   TrackDescriptor  a thread (pid, tid) -> a track of process pid; a process
 *                    -> its name (and rank, see rank_of); a counter -> its
 *                    values go to the parent's track; any other track (a GPU
 *                    stream, an async track) -> a track of its nearest
 *                    process ancestor, named after it
 *   TrackEvent       SLICE_BEGIN/END -> begin/end, INSTANT -> instant (or,
 *                    carrying flow ids only, the flow's end), COUNTER ->
 *                    counter; flow_ids -> flow start (first time an id is
 *                    seen) or step, terminating_flow_ids -> flow end
 *   InternedData     event names and categories per sequence
 *                    (trusted_packet_sequence_id)
 *   defaults         TracePacketDefaults: the track and clock of events
 *                    that do not name theirs
 *   ClockSnapshot    sequence-scoped clocks (ids 64-127), incremental or
 *                    scaled, are turned into the snapshot's reference clock;
 *                    the built-in clocks are taken as one time base
 *
 * Perfetto files are not sorted per track (trace processor sorts them), so
 * every track is buffered and sorted by the stack builder (tf_track
 * needs_sort): memory grows with the events of a track, like Chrome JSON. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tracefold/reader.h"
#include "tracefold/io.h"
#include <zlib.h>
#include "grow.h"
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

/* ---- arena for protobuf-c ---- */

typedef struct arena {
	char *block;
	size_t cap, used, spill; /* spill: bytes malloc'd beyond the block since the last reset */
	size_t limit;            /* the most one packet may take (arena_limit) */
	void **extra;            /* those allocations */
	uint32_t nextra, capextra;
} arena;

static void *arena_alloc(void *u, size_t n)
{
	arena *a = u;
	n = (n + 15) & ~(size_t)15;
	if (a->used + n <= a->cap) {
		void *p = a->block + a->used;
		a->used += n;
		return p;
	}
	if (a->used + a->spill + n > a->limit) /* hostile nesting: the packet fails (bad_event) */
		return NULL;
	void *p = malloc(n);
	if (!p || tf_grow((void **)&a->extra, &a->capextra, a->nextra + 1, sizeof(void *)) < 0) {
		free(p);
		return NULL;
	}
	a->extra[a->nextra++] = p;
	a->spill += n;
	return p;
}

static void arena_free(void *u, void *p)
{
	(void)u;
	(void)p;
}

/* What unpacking a packet of len bytes may take: 32 bytes of structures
 * per byte (empty sub-messages are 2 bytes each), at most 256 MiB, plus 1
 * MiB.  A real packet needs a few times its size. */
static size_t arena_limit(uint64_t len)
{
	uint64_t l = len * 32;
	return (size_t)((l < (256u << 20) ? l : (256u << 20)) + (1u << 20));
}

/* Empties the arena; a block that was too small is replaced by one that
 * holds what the last packet needed. */
static void arena_reset(arena *a)
{
	for (uint32_t i = 0; i < a->nextra; i++)
		free(a->extra[i]);
	if (a->spill) {
		size_t want = (a->used + a->spill) * 2;
		char *b = malloc(want);
		if (b) {
			free(a->block);
			a->block = b;
			a->cap = want;
		}
	}
	a->nextra = 0;
	a->used = a->spill = 0;
}

/* ---- state ---- */

enum { TK_OTHER = 0, TK_PROCESS, TK_THREAD, TK_COUNTER };

typedef struct ptrack {
	uint64_t uuid, parent;
	uint8_t kind;          /* TK_* */
	bool has_parent, incremental;
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
	tf_hmap flows;         /* flow id -> 1: seen */
	uint64_t index;        /* events so far (tf_event.index) */
	uint64_t packet;       /* packets so far */
	uint64_t offset;       /* byte offset of the packet being read */
} tf_pf;

static tf_str intern(tf_pf *r, const char *s)
{
	if (!s)
		return 0;
	tf_str id = tf_strtab_intern(r->st, s, strlen(s));
	return id == (tf_str)-1 ? (tf_str)-1 : id;
}

static tf_str intern_fmt(tf_pf *r, const char *fmt, int64_t v)
{
	char b[48];
	snprintf(b, sizeof(b), fmt, v);
	return intern(r, b);
}

/* A sequence's state: made only when a packet sets some (add), so that
 * packets on countless sequences cost nothing. */
static pseq *seq_get(tf_pf *r, uint32_t id, bool add)
{
	uint32_t i = tf_hmap_get(&r->by_seq, id);
	if (i != UINT32_MAX)
		return &r->seqs[i];
	if (!add)
		return NULL;
	if (tf_grow((void **)&r->seqs, &r->capseqs, r->nseqs + 1, sizeof(pseq)) < 0 ||
	    tf_hmap_put(&r->by_seq, id, r->nseqs) < 0)
		return NULL;
	pseq *s = &r->seqs[r->nseqs++];
	memset(s, 0, sizeof(*s));
	s->id = id;
	return s;
}

static uint64_t iid_key(uint32_t seq, unsigned kind, uint64_t iid)
{
	return tf_mix64(tf_mix64(iid) ^ ((uint64_t)seq << 2 | kind));
}

static tf_str interned(tf_pf *r, uint32_t seq, unsigned kind, uint64_t iid)
{
	uint32_t v = tf_hmap_get(&r->interned, iid_key(seq, kind, iid));
	return v == UINT32_MAX ? 0 : v;
}

static pproc *proc_get(tf_pf *r, int32_t pid, bool add)
{
	uint64_t key = (uint64_t)(uint32_t)pid;
	uint32_t i = tf_hmap_get(&r->by_pid, key);
	if (i != UINT32_MAX)
		return &r->procs[i];
	if (!add)
		return NULL;
	if (tf_grow((void **)&r->procs, &r->capprocs, r->nprocs + 1, sizeof(pproc)) < 0 ||
	    tf_hmap_put(&r->by_pid, key, r->nprocs) < 0)
		return NULL;
	pproc *p = &r->procs[r->nprocs++];
	*p = (pproc){ pid, -1, 0 };
	return p;
}

static ptrack *track_info(tf_pf *r, uint64_t uuid)
{
	uint32_t i = tf_hmap_get(&r->by_uuid, uuid);
	return i == UINT32_MAX ? NULL : &r->tracks[i];
}

/* ---- tracks ---- */

/* A process's rank: the one tracefold wrote (its name is "rank N" or its
 * legacy_sort_index equals its pid, the pid being the rank), else unknown. */
static int64_t rank_of(const Perfetto__Protos__ProcessDescriptor *p)
{
	if (!p->has_pid || p->pid < 0)
		return -1;
	if (p->has_legacy_sort_index && p->legacy_sort_index == p->pid)
		return p->pid;
	char b[32];
	snprintf(b, sizeof(b), "rank %" PRId32, p->pid);
	return p->process_name && !strcmp(p->process_name, b) ? p->pid : -1;
}

static int on_descriptor(tf_pf *r, const PB_Track *d)
{
	if (!d->has_uuid)
		return 0;
	ptrack *t = track_info(r, d->uuid);
	if (!t) {
		if (tf_grow((void **)&r->tracks, &r->captracks, r->ntracks + 1, sizeof(ptrack)) < 0 ||
		    tf_hmap_put(&r->by_uuid, d->uuid, r->ntracks) < 0)
			return TF_ENOMEM;
		t = &r->tracks[r->ntracks++];
		memset(t, 0, sizeof(*t));
		t->uuid = d->uuid;
		t->track = UINT32_MAX;
		t->multiplier = 1;
	}
	t->has_parent = d->has_parent_uuid;
	t->parent = d->parent_uuid;
	if (d->name && (t->name = intern(r, d->name)) == (tf_str)-1)
		return TF_ENOMEM;
	if (d->thread) {
		t->kind = TK_THREAD;
		t->pid = d->thread->pid;
		t->tid = d->thread->tid;
		if (d->thread->thread_name && (t->name = intern(r, d->thread->thread_name)) == (tf_str)-1)
			return TF_ENOMEM;
	} else if (d->counter) {
		t->kind = TK_COUNTER;
		t->incremental = d->counter->has_is_incremental && d->counter->is_incremental;
		t->multiplier = d->counter->has_unit_multiplier && d->counter->unit_multiplier ? d->counter->unit_multiplier : 1;
	} else if (d->process) {
		t->kind = TK_PROCESS;
		t->pid = d->process->pid;
		pproc *p = proc_get(r, d->process->pid, true);
		if (!p)
			return TF_ENOMEM;
		p->rank = rank_of(d->process);
		if (d->process->process_name && (p->name = intern(r, d->process->process_name)) == (tf_str)-1)
			return TF_ENOMEM;
		tf_str pk = intern_fmt(r, "%" PRId64, p->pid);
		if (pk == (tf_str)-1)
			return TF_ENOMEM;
		if (p->name)
			tf_ctx_set_process_name(r->ctx, r->input, pk, p->name);
		for (uint32_t id = tf_ctx_process_first(r->ctx, r->input, pk); id != UINT32_MAX;
		     id = tf_ctx_process_next(r->ctx, id))
			tf_ctx_track_get(r->ctx, id)->rank = p->rank;
	} else {
		t->kind = TK_OTHER;
	}
	return 0;
}

/* The pid of a track's nearest process ancestor (or its own), if any. */
static bool ancestor_pid(tf_pf *r, const ptrack *t, int32_t *pid)
{
	for (int hops = 0; t && hops < 64; hops++) {
		if (t->kind == TK_PROCESS || t->kind == TK_THREAD) {
			*pid = t->pid;
			return true;
		}
		t = t->has_parent ? track_info(r, t->parent) : NULL;
	}
	return false;
}

/* The tf track of the events on track uuid (a counter's: its parent's). */
static int tf_track_of(tf_pf *r, uint64_t uuid, uint32_t *out)
{
	ptrack *t = track_info(r, uuid);
	if (t && t->kind == TK_COUNTER && t->has_parent) {
		ptrack *p = track_info(r, t->parent);
		if (p)
			t = p, uuid = p->uuid;
	}
	if (t && t->track != UINT32_MAX) {
		*out = t->track;
		return 0;
	}
	int32_t pid = 0;
	bool has_pid = ancestor_pid(r, t, &pid);
	tf_str pk = has_pid ? intern_fmt(r, "%" PRId64, pid) : intern(r, "global");
	tf_str tk = t && t->kind == TK_THREAD ? intern_fmt(r, "%" PRId64, t->tid) : intern_fmt(r, "track %" PRId64, (int64_t)uuid);
	if (pk == (tf_str)-1 || tk == (tf_str)-1)
		return TF_ENOMEM;
	uint32_t id = tf_ctx_track(r->ctx, r->input, pk, tk);
	if (id == (uint32_t)-1)
		return TF_ENOMEM;
	tf_track *k = tf_ctx_track_get(r->ctx, id);
	k->needs_sort = true;
	pproc *p = has_pid ? proc_get(r, pid, false) : NULL;
	if (p) {
		k->rank = p->rank;
		if (p->name && !k->process_name)
			k->process_name = p->name;
	}
	if (t) {
		if (t->name && t->kind != TK_PROCESS)
			k->thread_name = t->name;
		else if (t->kind == TK_PROCESS)
			k->thread_name = p && p->name ? p->name : pk;
		const char *n = t->name ? tf_strtab_get(r->st, t->name) : "";
		if (t->kind == TK_OTHER && (!strncmp(n, "stream ", 7) || !strncmp(n, "GPU", 3)))
			k->kind = TF_TRACK_GPU;
		t->track = id;
	}
	*out = id;
	return 0;
}

/* ---- clocks ---- */

static int on_clocks(tf_pf *r, pseq *s, const Perfetto__Protos__ClockSnapshot *c)
{
	/* the reference: the primary trace clock, else BOOTTIME (6), else the
	 * first built-in clock of the snapshot */
	const Perfetto__Protos__ClockSnapshot__Clock *ref = NULL;
	for (size_t i = 0; i < c->n_clocks; i++) {
		const Perfetto__Protos__ClockSnapshot__Clock *k = c->clocks[i];
		if (k->clock_id >= 64)
			continue;
		if ((c->has_primary_trace_clock && (int32_t)k->clock_id == c->primary_trace_clock) ||
		    (!ref || (k->clock_id == 6 && !(c->has_primary_trace_clock && (int32_t)ref->clock_id == c->primary_trace_clock))))
			ref = k;
	}
	if (!ref)
		return 0;
	for (size_t i = 0; i < c->n_clocks; i++) {
		const Perfetto__Protos__ClockSnapshot__Clock *k = c->clocks[i];
		if (k->clock_id < 64 || k->clock_id > 127)
			continue;
		pclock *pc = NULL;
		for (uint32_t j = 0; j < s->nclocks; j++)
			if (s->clocks[j].id == k->clock_id)
				pc = &s->clocks[j];
		if (!pc) {
			if (s->nclocks == MAX_SEQ_CLOCKS)
				continue;
			pc = &s->clocks[s->nclocks++];
		}
		pc->id = k->clock_id;
		pc->incremental = k->has_is_incremental && k->is_incremental;
		pc->mult = k->has_unit_multiplier_ns && k->unit_multiplier_ns ? k->unit_multiplier_ns : 1;
		pc->snap = pc->last = (int64_t)k->timestamp;
		pc->ref = (int64_t)ref->timestamp;
	}
	(void)r;
	return 0;
}

/* A packet's timestamp in the trace's time base. */
static int64_t packet_ts(pseq *s, const PB_Packet *p)
{
	int64_t ts = (int64_t)p->timestamp;
	uint32_t clock = p->has_timestamp_clock_id ? p->timestamp_clock_id : s ? s->clock : 0;
	if (!s || clock < 64)
		return ts;
	for (uint32_t j = 0; j < s->nclocks; j++) {
		pclock *c = &s->clocks[j];
		if (c->id != clock)
			continue;
		/* unsigned, wrapping, as Perfetto's timestamps are */
		uint64_t v = (uint64_t)ts;
		if (c->incremental) {
			v += (uint64_t)c->last;
			c->last = (int64_t)v;
		}
		return (int64_t)((uint64_t)c->ref + (v - (uint64_t)c->snap) * c->mult);
	}
	return ts;
}

/* ---- events ---- */

static int emit(tf_pf *r, tf_event *ev)
{
	ev->index = r->index++;
	return tf_emit(r->ctx, r->sink, ev);
}

static int flows(tf_pf *r, const tf_event *base, const uint64_t *ids, size_t n, bool terminating)
{
	for (size_t i = 0; i < n; i++) {
		tf_event ev = *base;
		ev.kind = TF_EV_FLOW;
		ev.id = ids[i];
		if (terminating) {
			ev.phase = 'f';
		} else {
			bool seen = tf_hmap_get(&r->flows, ids[i]) != UINT32_MAX;
			if (!seen && tf_hmap_put(&r->flows, ids[i], 1) < 0)
				return TF_ENOMEM;
			ev.phase = seen ? 't' : 's';
		}
		TF_TRY(emit(r, &ev));
	}
	return 0;
}

/* What tracefold's writer says of a slice in its debug annotations: "gpu"
 * (1 a GPU activity, 2 a GPU annotation: its track is a GPU stream) and
 * "correlation" (the id that links a GPU activity to its launch). */
static int gpu_annotations(tf_pf *r, uint32_t seq, const PB_Event *e, tf_event *ev)
{
	for (size_t i = 0; i < e->n_debug_annotations; i++) {
		const Perfetto__Protos__DebugAnnotation *a = e->debug_annotations[i];
		const char *name = NULL;
		if (a->name_field_case == PERFETTO__PROTOS__DEBUG_ANNOTATION__NAME_FIELD_NAME)
			name = a->name;
		else if (a->name_field_case == PERFETTO__PROTOS__DEBUG_ANNOTATION__NAME_FIELD_NAME_IID) {
			tf_str s = interned(r, seq, 2, a->name_iid);
			name = s ? tf_strtab_get(r->st, s) : NULL;
		}
		uint64_t v = a->value_case == PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_INT_VALUE ? (uint64_t)a->int_value
			     : a->value_case == PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_UINT_VALUE ? a->uint_value
												      : 0;
		if (!name || !v)
			continue;
		if (!strcmp(name, "correlation")) {
			ev->corr = v;
		} else if (!strcmp(name, "gpu")) {
			tf_ctx_track_get(r->ctx, ev->track)->kind = TF_TRACK_GPU;
			if (v == 2)
				ev->flags |= TF_EVF_GPU_LABEL;
		}
	}
	return 0;
}

static int on_track_event(tf_pf *r, pseq *s, uint32_t seq, const PB_Packet *p)
{
	const PB_Event *e = p->track_event;
	uint64_t uuid = e->has_track_uuid ? e->track_uuid : s && s->has_track ? s->track : 0;
	tf_event ev;
	memset(&ev, 0, sizeof(ev));
	ev.ts_ns = packet_ts(s, p);
	if (e->name_field_case == PERFETTO__PROTOS__TRACK_EVENT__NAME_FIELD_NAME_IID)
		ev.name = interned(r, seq, 0, e->name_iid);
	else if (e->name_field_case == PERFETTO__PROTOS__TRACK_EVENT__NAME_FIELD_NAME &&
		 (ev.name = intern(r, e->name)) == (tf_str)-1)
		return TF_ENOMEM;
	if (e->n_category_iids)
		ev.cat = interned(r, seq, 1, e->category_iids[0]);
	else if (e->n_categories && (ev.cat = intern(r, e->categories[0])) == (tf_str)-1)
		return TF_ENOMEM;
	TF_TRY(tf_track_of(r, uuid, &ev.track));
	size_t nflow = e->n_flow_ids + e->n_flow_ids_old + e->n_terminating_flow_ids + e->n_terminating_flow_ids_old;
	int type = e->has_type ? (int)e->type : 0;
	if (type == TYPE_COUNTER) {
		ptrack *t = track_info(r, uuid);
		double v = e->counter_value_field_case ==
				   PERFETTO__PROTOS__TRACK_EVENT__COUNTER_VALUE_FIELD_DOUBLE_COUNTER_VALUE
			   ? e->double_counter_value
			   : (double)e->counter_value;
		if (t) {
			v *= (double)t->multiplier;
			if (t->incremental)
				v = t->last += v;
			if (!ev.name)
				ev.name = t->name;
		}
		if (e->counter_value_field_case == PERFETTO__PROTOS__TRACK_EVENT__COUNTER_VALUE_FIELD__NOT_SET ||
		    v != v || v - v != 0) {
			tf_count_skip(r->ctx, TF_DIAG_bad_event);
			return 0;
		}
		ev.kind = TF_EV_COUNTER;
		ev.value = v;
		return emit(r, &ev);
	}
	if (type == TYPE_END) {
		ev.name = 0; /* the innermost open slice */
		ev.cat = 0;
	}
	if (type == TYPE_BEGIN)
		TF_TRY(gpu_annotations(r, seq, e, &ev));
	/* flows sit inside the slice they are attached to: after a begin,
	 * before an end */
	if (type != TYPE_BEGIN) {
		TF_TRY(flows(r, &ev, e->flow_ids, e->n_flow_ids, false));
		TF_TRY(flows(r, &ev, e->flow_ids_old, e->n_flow_ids_old, false));
		TF_TRY(flows(r, &ev, e->terminating_flow_ids, e->n_terminating_flow_ids, true));
		TF_TRY(flows(r, &ev, e->terminating_flow_ids_old, e->n_terminating_flow_ids_old, true));
	}
	if (type == TYPE_BEGIN || type == TYPE_END || (type == TYPE_INSTANT && !nflow)) {
		tf_event k = ev;
		k.kind = type == TYPE_BEGIN ? TF_EV_BEGIN : type == TYPE_END ? TF_EV_END : TF_EV_INSTANT;
		TF_TRY(emit(r, &k));
	} else if (type != TYPE_INSTANT) {
		tf_count_skip(r->ctx, TF_DIAG_ev_other); /* legacy or unspecified events */
	}
	if (type == TYPE_BEGIN) {
		TF_TRY(flows(r, &ev, e->flow_ids, e->n_flow_ids, false));
		TF_TRY(flows(r, &ev, e->flow_ids_old, e->n_flow_ids_old, false));
		TF_TRY(flows(r, &ev, e->terminating_flow_ids, e->n_terminating_flow_ids, true));
		TF_TRY(flows(r, &ev, e->terminating_flow_ids_old, e->n_terminating_flow_ids_old, true));
	}
	return 0;
}

static int put_interned(tf_pf *r, uint32_t seq, unsigned kind, uint64_t iid, const char *name)
{
	tf_str s = intern(r, name ? name : "");
	if (s == (tf_str)-1 || tf_hmap_set(&r->interned, iid_key(seq, kind, iid), s) < 0)
		return TF_ENOMEM;
	return 0;
}

static int on_packet(tf_pf *r, const PB_Packet *p);

/* A chunk of compressed packets (what Perfetto's service and tracefold's
 * writer by default write): inflated (zlib, or gzip) into a buffer of at
 * most 256 MiB, its packets read one after the other. */
static int on_compressed(tf_pf *r, const ProtobufCBinaryData *z)
{
	z_stream s;
	memset(&s, 0, sizeof(s));
	if (inflateInit2(&s, 15 + 32) != Z_OK)
		return TF_ENOMEM;
	size_t n = 0;
	int zr = Z_OK;
	s.next_in = z->data;
	s.avail_in = (uInt)z->len;
	while (zr == Z_OK) {
		if (n == r->capzbuf && (n >= (256u << 20) ||
					tf_grow_n((void **)&r->zbuf, &r->capzbuf, n ? n * 2 : 1u << 20, 1, false) < 0))
			break;
		s.next_out = r->zbuf + n;
		s.avail_out = (uInt)(r->capzbuf - n);
		zr = inflate(&s, Z_NO_FLUSH);
		n = r->capzbuf - s.avail_out;
	}
	inflateEnd(&s);
	if (zr != Z_STREAM_END) {
		tf_count_skip(r->ctx, TF_DIAG_bad_event);
		tf_ctx_note(r->ctx, "compressed packets at byte %" PRIu64 " of '%s' do not inflate: skipped", r->offset,
			    r->path);
		return 0;
	}
	ProtobufCAllocator alloc = { arena_alloc, arena_free, &r->inner };
	for (size_t i = 0; i < n;) {
		uint64_t tag = r->zbuf[i++], len = 0;
		int sh = 0;
		while (i < n && sh < 64) {
			len |= (uint64_t)(r->zbuf[i] & 0x7f) << sh;
			sh += 7;
			if (!(r->zbuf[i++] & 0x80))
				break;
		}
		if (tag != 0x0a || len > n - i) {
			tf_count_skip(r->ctx, TF_DIAG_bad_event);
			tf_ctx_note(r->ctx, "compressed packets at byte %" PRIu64 " of '%s': damaged after %zu bytes",
				    r->offset, r->path, i);
			return 0;
		}
		r->inner.limit = arena_limit(len);
		PB_Packet *p = perfetto__protos__trace_packet__unpack(&alloc, (size_t)len, r->zbuf + i);
		int rc = 0;
		if (!p)
			tf_count_skip(r->ctx, TF_DIAG_bad_event);
		else if (p->has_compressed_packets) /* chunks in chunks: no */
			tf_count_skip(r->ctx, TF_DIAG_bad_event);
		else
			rc = on_packet(r, p);
		arena_reset(&r->inner);
		TF_TRY(rc);
		i += (size_t)len;
	}
	return 0;
}

static int on_packet(tf_pf *r, const PB_Packet *p)
{
	if (p->has_compressed_packets)
		return on_compressed(r, &p->compressed_packets);
	uint32_t seq = p->has_trusted_packet_sequence_id ? p->trusted_packet_sequence_id : 0;
	bool cleared = (p->has_sequence_flags && (p->sequence_flags & SEQ_CLEARED)) ||
		       (p->has_incremental_state_cleared && p->incremental_state_cleared);
	pseq *s = seq_get(r, seq, cleared || p->trace_packet_defaults || p->clock_snapshot);
	if (!s && (cleared || p->trace_packet_defaults || p->clock_snapshot))
		return TF_ENOMEM;
	if (s && cleared) {
		s->has_track = false;
		s->clock = 0;
		s->nclocks = 0;
	}
	bool used = false;
	if (p->trace_packet_defaults) {
		const Perfetto__Protos__TracePacketDefaults *d = p->trace_packet_defaults;
		s->clock = d->has_timestamp_clock_id ? d->timestamp_clock_id : 0;
		s->has_track = d->track_event_defaults && d->track_event_defaults->has_track_uuid;
		s->track = s->has_track ? d->track_event_defaults->track_uuid : 0;
		used = true;
	}
	if (p->clock_snapshot) {
		TF_TRY(on_clocks(r, s, p->clock_snapshot));
		used = true;
	}
	if (p->interned_data) {
		const Perfetto__Protos__InternedData *in = p->interned_data;
		for (size_t i = 0; i < in->n_event_names; i++)
			TF_TRY(put_interned(r, seq, 0, in->event_names[i]->iid, in->event_names[i]->name));
		for (size_t i = 0; i < in->n_event_categories; i++)
			TF_TRY(put_interned(r, seq, 1, in->event_categories[i]->iid, in->event_categories[i]->name));
		for (size_t i = 0; i < in->n_debug_annotation_names; i++)
			TF_TRY(put_interned(r, seq, 2, in->debug_annotation_names[i]->iid,
					    in->debug_annotation_names[i]->name));
		used = true;
	}
	if (p->track_descriptor) {
		TF_TRY(on_descriptor(r, p->track_descriptor));
		tf_event ev;
		memset(&ev, 0, sizeof(ev));
		ev.kind = TF_EV_METADATA;
		ev.track = TF_TRACK_NONE;
		TF_TRY(emit(r, &ev));
		return 0;
	}
	if (p->track_event)
		return on_track_event(r, s, seq, p);
	if (!used && (p->base.n_unknown_fields || !p->has_timestamp))
		tf_count_skip(r->ctx, TF_DIAG_ev_other); /* packets of other data sources */
	return 0;
}

/* ---- the stream ---- */

typedef struct pbuf {
	tf_in *in;
	unsigned char *b;
	size_t cap, pos, len;
	uint64_t base;    /* input offset of b[0] */
} pbuf;

/* At least need bytes from pos, or fewer at the end of input (0 = some). */
static ptrdiff_t fill(pbuf *q, size_t need, tf_error *err)
{
	while (q->len - q->pos < need) {
		if (q->pos) {
			memmove(q->b, q->b + q->pos, q->len - q->pos);
			q->base += q->pos;
			q->len -= q->pos;
			q->pos = 0;
		}
		size_t want = need > 64 * 1024 ? need : 64 * 1024;
		if (tf_grow_n((void **)&q->b, &q->cap, want, 1, false) < 0)
			return TF_ENOMEM;
		ptrdiff_t n = tf_in_read(q->in, q->b + q->len, q->cap - q->len, err);
		if (n < 0)
			return n;
		if (n == 0)
			break;
		q->len += (size_t)n;
	}
	return (ptrdiff_t)(q->len - q->pos);
}

/* A varint at pos: 1 read, 0 the input ended inside it, -1 malformed. */
static int varint(pbuf *q, uint64_t *v, tf_error *err)
{
	ptrdiff_t n = fill(q, 10, err);
	if (n < 0)
		return (int)n;
	uint64_t x = 0;
	for (int i = 0; i < 10; i++) {
		if ((ptrdiff_t)i >= n)
			return 0;
		unsigned char c = q->b[q->pos + (size_t)i];
		x |= (uint64_t)(c & 0x7f) << (7 * i);
		if (!(c & 0x80)) {
			q->pos += (size_t)i + 1;
			*v = x;
			return 1;
		}
	}
	return -1;
}

static int read_input(const char *path, uint32_t input, tf_ctx *ctx, tf_sink *sink, tf_error *err)
{
	tf_pf r;
	memset(&r, 0, sizeof(r));
	r.ctx = ctx;
	r.st = tf_ctx_strtab(ctx);
	r.sink = sink;
	r.path = path;
	r.input = input;
	pbuf q;
	memset(&q, 0, sizeof(q));
	arena ar;
	memset(&ar, 0, sizeof(ar));
	ProtobufCAllocator alloc = { arena_alloc, arena_free, &ar };
	int rc = tf_in_open(&q.in, path, err);
	while (rc >= 0) {
		ptrdiff_t n = fill(&q, 1, err);
		if (n <= 0) {
			rc = n < 0 ? (int)n : 0;
			break;
		}
		r.offset = q.base + q.pos;
		uint64_t tag = 0, len = 0;
		int v = varint(&q, &tag, err);
		if (v == 1 && (tag & 7) == 2)
			v = varint(&q, &len, err);
		else if (v == 1)
			v = -1; /* a Trace holds only packets (field 1) */
		if (v < 0 && v != -1) {
			rc = v;
			break;
		}
		if (v == -1 || (v == 1 && len > MAX_PACKET)) {
			rc = tf_error_set(err, TF_EFORMAT, path, (int64_t)r.offset, -1,
					  "not a Perfetto trace packet at byte %" PRIu64 " (packet %" PRIu64 ")",
					  r.offset, r.packet);
			break;
		}
		if (v == 0 || (n = fill(&q, (size_t)len, err)) < (ptrdiff_t)len) {
			if (n < 0) {
				rc = (int)n;
				break;
			}
			tf_count_skip(ctx, TF_DIAG_truncated_record);
			tf_ctx_note(ctx, "truncated last packet at byte %" PRIu64 " of '%s'", r.offset, path);
			break;
		}
		const unsigned char *data = q.b + q.pos;
		q.pos += (size_t)len;
		if (tag >> 3 != 1) { /* other fields of Trace: none are known */
			r.packet++;
			continue;
		}
		ar.limit = arena_limit(len);
		PB_Packet *p = perfetto__protos__trace_packet__unpack(&alloc, (size_t)len, data);
		if (!p) {
			tf_count_skip(ctx, TF_DIAG_bad_event);
			tf_ctx_note(ctx, "undecodable packet %" PRIu64 " at byte %" PRIu64 " of '%s': skipped", r.packet,
				    r.offset, path);
		} else {
			rc = on_packet(&r, p);
			if (rc == TF_ENOMEM)
				tf_error_set(err, rc, path, (int64_t)r.offset, -1, "out of memory");
		}
		arena_reset(&ar);
		r.packet++;
	}
	tf_in_close(q.in);
	free(q.b);
	arena_reset(&ar);
	free(ar.block);
	free(ar.extra);
	arena_reset(&r.inner);
	free(r.inner.block);
	free(r.inner.extra);
	free(r.zbuf);
	free(r.tracks);
	free(r.procs);
	free(r.seqs);
	tf_hmap_free(&r.by_uuid);
	tf_hmap_free(&r.by_pid);
	tf_hmap_free(&r.by_seq);
	tf_hmap_free(&r.interned);
	tf_hmap_free(&r.flows);
	return rc;
}

/* A Trace starts with packet 1 (0x0a, a length), and the packet's first
 * bytes are well-formed fields, not text.  The name says yes on its own. */
static int sniff(const char *path, int is_dir, const unsigned char *h, size_t n, bool whole)
{
	if (is_dir)
		return TF_SNIFF_NO;
	size_t pl = strlen(path);
	static const char *const sfx[] = { ".pftrace", ".perfetto-trace", ".pftrace.gz", ".perfetto-trace.gz", NULL };
	bool named = false;
	for (int i = 0; sfx[i]; i++) {
		size_t k = strlen(sfx[i]);
		named |= pl > k && !strcmp(path + pl - k, sfx[i]);
	}
	if (n < 3 || h[0] != 0x0a)
		return TF_SNIFF_NO;
	/* text (JSON after blank lines starts with 0x0a too): packets hold
	 * varints and lengths, bytes below 0x20 that are no white space */
	bool binary = false;
	for (size_t k = 0; k < n && !binary; k++)
		binary = (h[k] < 0x20 && h[k] != '\t' && h[k] != '\n' && h[k] != '\r') || h[k] >= 0x7f;
	if (!binary)
		return named ? TF_SNIFF_MAYBE : TF_SNIFF_NO;
	size_t i = 1;
	uint64_t len = 0;
	for (int s = 0; i < n && s < 64; s += 7) {
		len |= (uint64_t)(h[i] & 0x7f) << s;
		if (!(h[i++] & 0x80))
			break;
	}
	if (len == 0 || len > MAX_PACKET)
		return named ? TF_SNIFF_MAYBE : TF_SNIFF_NO; /* the reader says where it is wrong */
	size_t end = len < n - i ? i + (size_t)len : n;
	int fields = 0;
	while (i < end) {
		uint64_t tag = 0;
		int s = 0;
		while (i < end && s < 64) {
			tag |= (uint64_t)(h[i] & 0x7f) << s;
			s += 7;
			if (!(h[i++] & 0x80))
				break;
		}
		uint64_t wt = tag & 7, f = tag >> 3;
		if (f == 0 || (wt != 0 && wt != 1 && wt != 2 && wt != 5))
			return TF_SNIFF_NO;
		if (i >= end)
			break;
		uint64_t v = 0;
		if (wt == 0 || wt == 2) {
			s = 0;
			while (i < end && s < 64) {
				v |= (uint64_t)(h[i] & 0x7f) << s;
				s += 7;
				if (!(h[i++] & 0x80))
					break;
			}
			if (wt == 2)
				i += v < end - i ? (size_t)v : end - i;
		} else {
			i += wt == 1 ? 8 : 4;
		}
		fields++;
	}
	return fields && (named || fields >= 2 || len <= n - 2) ? TF_SNIFF_YES : named ? TF_SNIFF_MAYBE : TF_SNIFF_NO;
}

const tf_format tf_format_perfetto = {
	.name = "perfetto",
	.description = "Perfetto protobuf traces with track events (.pftrace; tracefold's, Perfetto SDK's)",
	.sniff = sniff,
	.read = read_input, /* one part */
};
