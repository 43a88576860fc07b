/* perfetto.c - a timeline as a Perfetto protobuf trace (docs/perfetto.md),
 * for ui.perfetto.dev and trace processor: a span consumer that writes, in
 * one streaming pass, a Trace (proto/perfetto_trace.proto) whose packets are
 *
 *   a TrackDescriptor per process (pid = rank when known, name "rank N"),
 *     per thread (ThreadDescriptor pid/tid) and per GPU stream (a named
 *     track of its process), before the first event on it,
 *   TrackEvent SLICE_BEGIN at each region's open and SLICE_END at its close
 *     (debug annotations self_ns, call_path and the repairs on the END;
 *     Perfetto merges them into the slice's args),
 *   TYPE_INSTANT for instants, counter tracks (one per thread and counter)
 *     with TYPE_COUNTER values,
 *   messages (a send paired with its receive) and the input's flows as a
 *     pair of instants joined by a flow id (flow_ids on the start,
 *     terminating_flow_ids on the end), drawn as an arrow,
 *   a PerfSample per sampled stack, its callstack interned on the
 *     thread's sequence (perfetto_samples.c).
 *
 * Small, the way Perfetto's SDK writes: each track has its own packet
 * sequence (trusted_packet_sequence_id = track + 2) that starts by clearing
 * its incremental state, setting its default track and an incremental
 * clock (id 64, BOOTTIME's ns), so that an event carries neither its track
 * nor a full timestamp, only the ns since the sequence's previous one; an
 * event earlier than that one (a message end paired late) carries its
 * absolute time on BOOTTIME (clock 6) instead.  Event names, categories and
 * annotation names are interned per sequence as they first appear (the iid
 * of a string is its string-table id).  Timestamps are the inputs' own
 * nanoseconds, unshifted (Perfetto keeps 64-bit ns), unless the run starts
 * before 0 (tf_time_shift: Perfetto's times are unsigned).  Slices carry no self
 * time or call path (Perfetto computes self time; the other outputs have
 * call paths): only their repairs.  Packets go out as they are made, each
 * packed by protobuf-c into one reused buffer; memory: per track its
 * sequence state, the interned (track, string) pairs, the ids of processes
 * and counters, and the message and flow ends waiting for their partner
 * (src/write/pair.c). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tracefold/writer.h"
#include "tracefold/sink.h"
#include "tracefold/io.h"
#include <zlib.h>
#include "grow.h"
#include "hmap.h"
#include "pair.h"
#include "tids.h"
#include "perfetto_int.h"

#define CHUNK_BYTES (256u << 10) /* packets per compressed chunk, before compression */
/* zlib level: on the 200 MB bench trace, 1 gives 5.10 MB in 0.69 s, 3 4.67 MB
 * in 0.72 s, 6 (zlib's default) 4.26 MB in 0.99 s */
#define CHUNK_LEVEL 3
/* The debug annotation names (iid = the index). */
enum { AN_REPAIRED = 1, AN_TAG, AN_COMMUNICATOR, AN_BYTES, AN_GPU, AN_CORRELATION, AN_GPU_IN_PLACE, AN_COUNT };
static const char *const annot_names[AN_COUNT] = { NULL, "repaired", "tag", "communicator", "bytes",
						   "gpu", "correlation", "gpu_in_place" };

/* Its options (tf_writer_opt): zeroed for the defaults. */
enum { PF_BY_NAME = 0, PF_NONE, PF_DEFLATE };
typedef struct perfetto_conf {
	int compression; /* --compression; PF_BY_NAME: deflate unless the name ends in .gz */
} perfetto_conf;

/* ---- packets ---- */

static void put_bytes(tf_perfetto_out *w, const void *p, size_t n)
{
	if (w->rc == 0 && tf_out_write(w->o, p, n) < 0)
		w->rc = tf_writer_fail_out(w->ctx, w->o);
}

static size_t put_varint(uint8_t *b, uint64_t v)
{
	size_t h = 0;
	for (;; v >>= 7) {
		b[h++] = (uint8_t)(v & 0x7f) | (v >= 0x80 ? 0x80 : 0);
		if (v < 0x80)
			return h;
	}
}

/* --compress deflate: the packets gathered so far, as one packet whose
 * compressed_packets (field 50) is their zlib stream. */
static int flush_chunk(tf_perfetto_out *w)
{
	if (!w->nchunk || w->rc)
		return w->rc;
	uLongf zn = compressBound((uLong)w->nchunk);
	if (tf_grow_n((void **)&w->zbuf, &w->capzbuf, zn, 1, false) < 0)
		return w->rc = TF_ENOMEM;
	if (compress2(w->zbuf, &zn, w->chunk, (uLong)w->nchunk, CHUNK_LEVEL) != Z_OK)
		return w->rc = TF_ENOMEM;
	uint8_t head[32];
	size_t inner = 2 /* tag 50, wire type 2 */ + put_varint(head, zn) + zn;
	size_t h = 0;
	head[h++] = 0x0a;
	h += put_varint(head + h, inner);
	head[h++] = 0x92; /* field 50 << 3 | 2, as a varint */
	head[h++] = 0x03;
	h += put_varint(head + h, zn);
	put_bytes(w, head, h);
	put_bytes(w, w->zbuf, zn);
	w->nchunk = 0;
	return w->rc;
}

/* One packet of the Trace (field 1, length-delimited), on sequence seq. */
int pfw_put_packet(tf_perfetto_out *w, PB_Packet *p, uint32_t seq)
{
	p->has_trusted_packet_sequence_id = 1;
	p->trusted_packet_sequence_id = seq;
	size_t n = perfetto__protos__trace_packet__get_packed_size(p);
	if (tf_grow_n((void **)&w->buf, &w->capbuf, n, 1, false) < 0)
		return w->rc = TF_ENOMEM;
	perfetto__protos__trace_packet__pack(p, w->buf);
	uint8_t head[11];
	size_t h = 0;
	head[h++] = 0x0a; /* Trace.packet: field 1, wire type 2 */
	h += put_varint(head + h, n);
	if (!w->deflate) {
		put_bytes(w, head, h);
		put_bytes(w, w->buf, n);
		return w->rc;
	}
	if (tf_grow_n((void **)&w->chunk, &w->capchunk, w->nchunk + h + n, 1, false) < 0)
		return w->rc = TF_ENOMEM;
	memcpy(w->chunk + w->nchunk, head, h);
	memcpy(w->chunk + w->nchunk + h, w->buf, n);
	w->nchunk += h + n;
	return w->nchunk >= CHUNK_BYTES ? flush_chunk(w) : w->rc;
}

char *pfw_cstr(tf_perfetto_out *w, tf_str s)
{
	return (char *)tf_strtab_get(w->st, s);
}

/* Whether string (or annotation) s of kind which was interned on the
 * sequence of track; marks it.  Returns -1 when the map cannot grow. */
int pfw_intern_once(tf_perfetto_out *w, uint32_t track, unsigned which, uint64_t s)
{
	uint64_t key = tf_mix64((uint64_t)track << 35 ^ (uint64_t)which << 32 ^ s);
	if (tf_hmap_get(&w->interned, key) != UINT32_MAX)
		return 1;
	return tf_hmap_put(&w->interned, key, 1) < 0 ? -1 : 0;
}

static char *annot_name(int which)
{
	return (char *)annot_names[which];
}

/* ---- tracks ---- */

static int put_track(tf_perfetto_out *w, PB_Track *t)
{
	PB_Packet p = PERFETTO__PROTOS__TRACE_PACKET__INIT;
	p.track_descriptor = t;
	return pfw_put_packet(w, &p, SEQ_DESCRIPTORS);
}

static pseq *seq_state(tf_perfetto_out *w, uint32_t track)
{
	if (track >= w->nseq) {
		uint32_t n = w->nseq;
		if (tf_grow((void **)&w->seq, &w->nseq, track + 1, sizeof(pseq)) < 0)
			return NULL;
		memset(w->seq + n, 0, (size_t)(w->nseq - n) * sizeof(pseq));
	}
	return &w->seq[track];
}

/* The descriptors of a track (and of its process), before its first event. */
int pfw_describe(tf_perfetto_out *w, uint32_t track)
{
	pseq *q = seq_state(w, track);
	if (!q)
		return w->rc = TF_ENOMEM;
	if (q->described)
		return w->rc;
	q->described = 1;
	tf_tid id;
	if (tf_tids_assign(&w->ids, w->ctx, track, &id) < 0)
		return w->rc = TF_ENOMEM;
	const tf_track *t = tf_ctx_track_get(w->ctx, track);
	uint64_t proc_uuid = UUID_PROCESS | id.process;
	q->proc_uuid = proc_uuid;
	q->pid = (uint32_t)id.pid;
	q->tid = (uint32_t)id.tid;
	if (id.new_process) {
		Perfetto__Protos__ProcessDescriptor pd = PERFETTO__PROTOS__PROCESS_DESCRIPTOR__INIT;
		PB_Track td = PERFETTO__PROTOS__TRACK_DESCRIPTOR__INIT;
		char rank[32];
		pd.has_pid = 1;
		pd.pid = (int32_t)id.pid;
		if (t->process_name) {
			pd.process_name = pfw_cstr(w, t->process_name);
		} else if (t->rank >= 0) {
			snprintf(rank, sizeof(rank), "rank %" PRId64, t->rank);
			pd.process_name = rank;
		} else if (!id.pid_is_key) {
			pd.process_name = pfw_cstr(w, t->process_key); /* a key that is no integer: its name */
		}
		if (t->rank >= 0 && t->rank <= INT32_MAX) { /* ranks in order */
			pd.has_legacy_sort_index = 1;
			pd.legacy_sort_index = (int32_t)t->rank;
		}
		td.has_uuid = 1;
		td.uuid = proc_uuid;
		td.process = &pd;
		TF_TRY(put_track(w, &td));
	}
	PB_Track td = PERFETTO__PROTOS__TRACK_DESCRIPTOR__INIT;
	Perfetto__Protos__ThreadDescriptor thd = PERFETTO__PROTOS__THREAD_DESCRIPTOR__INIT;
	td.has_uuid = 1;
	td.uuid = thread_uuid(track);
	td.has_parent_uuid = 1;
	td.parent_uuid = proc_uuid;
	char *tname = t->thread_name ? pfw_cstr(w, t->thread_name) : !id.tid_is_key ? pfw_cstr(w, t->thread_key) : NULL;
	if (t->kind == TF_TRACK_GPU) {
		/* a GPU stream is no thread: a named track of its process */
		td.name = tname ? tname : pfw_cstr(w, t->thread_key);
	} else {
		thd.has_pid = thd.has_tid = 1;
		thd.pid = (int32_t)id.pid;
		thd.tid = (int32_t)id.tid;
		thd.thread_name = tname;
		if (t->sort_index && t->sort_index <= INT32_MAX && t->sort_index >= INT32_MIN) {
			thd.has_legacy_sort_index = 1;
			thd.legacy_sort_index = (int32_t)t->sort_index;
		}
		td.thread = &thd;
	}
	return put_track(w, &td);
}

/* The counter track of (track, counter name), described on first use. */
static int counter_uuid(tf_perfetto_out *w, uint32_t track, tf_str name, uint64_t *uuid)
{
	uint64_t key = tf_mix64((uint64_t)track << 32 | name);
	uint32_t i = tf_hmap_get(&w->counters, key);
	if (i == UINT32_MAX) {
		i = w->ncounters++;
		if (tf_hmap_put(&w->counters, key, i) < 0)
			return w->rc = TF_ENOMEM;
		Perfetto__Protos__CounterDescriptor cd = PERFETTO__PROTOS__COUNTER_DESCRIPTOR__INIT;
		PB_Track td = PERFETTO__PROTOS__TRACK_DESCRIPTOR__INIT;
		td.has_uuid = 1;
		td.uuid = UUID_COUNTER | i;
		td.has_parent_uuid = 1;
		td.parent_uuid = thread_uuid(track);
		td.name = name ? pfw_cstr(w, name) : "counter";
		td.counter = &cd;
		TF_TRY(put_track(w, &td));
	}
	*uuid = UUID_COUNTER | i;
	return w->rc;
}

/* ---- event packets ---- */

/* A packet with one track event on a track's sequence, and the interned
 * data it needs that its sequence does not have yet. */
typedef struct evpacket {
	PB_Packet p;
	PB_Event e;
	PB_Interned in;
	PB_Name name, *names[1];
	PB_Cat cat, *cats[1];
	Perfetto__Protos__DebugAnnotationName an[AN_COUNT], *ans[AN_COUNT];
	PB_Annot a[AN_COUNT], *ap[AN_COUNT];
	uint64_t cat_iid;
	uint32_t track;
} evpacket;

/* The first packet of a track's sequence, before its first event:
 * incremental state cleared, the track as the default, clock 64 counting
 * ns from ts, where BOOTTIME is ts. */
static int start_sequence(tf_perfetto_out *w, uint32_t track, int64_t ts)
{
	PB_Packet p = PERFETTO__PROTOS__TRACE_PACKET__INIT;
	Perfetto__Protos__TracePacketDefaults d = PERFETTO__PROTOS__TRACE_PACKET_DEFAULTS__INIT;
	Perfetto__Protos__TrackEventDefaults ed = PERFETTO__PROTOS__TRACK_EVENT_DEFAULTS__INIT;
	Perfetto__Protos__ClockSnapshot cs = PERFETTO__PROTOS__CLOCK_SNAPSHOT__INIT;
	Perfetto__Protos__ClockSnapshot__Clock c[2], *cp[2];
	p.has_sequence_flags = 1;
	p.sequence_flags = SEQ_CLEARED;
	p.has_first_packet_on_sequence = 1;
	p.first_packet_on_sequence = 1;
	ed.has_track_uuid = 1;
	ed.track_uuid = thread_uuid(track);
	d.track_event_defaults = &ed;
	d.has_timestamp_clock_id = 1;
	d.timestamp_clock_id = CLOCK_DELTA;
	p.trace_packet_defaults = &d;
	for (int i = 0; i < 2; i++) { /* clock 64 = BOOTTIME = ts */
		c[i] = (Perfetto__Protos__ClockSnapshot__Clock)PERFETTO__PROTOS__CLOCK_SNAPSHOT__CLOCK__INIT;
		c[i].has_clock_id = c[i].has_timestamp = 1;
		c[i].timestamp = (uint64_t)ts;
		cp[i] = &c[i];
	}
	c[0].clock_id = CLOCK_DELTA;
	c[0].has_is_incremental = 1;
	c[0].is_incremental = 1;
	c[1].clock_id = CLOCK_BOOTTIME;
	cs.n_clocks = 2;
	cs.clocks = cp;
	TF_TRY(pfw_put_packet(w, &p, seq_of(track)));
	/* the clock in a packet of its own: trace processor takes a packet
	 * with a clock snapshot for nothing else */
	PB_Packet pc = PERFETTO__PROTOS__TRACE_PACKET__INIT;
	pc.clock_snapshot = &cs;
	return pfw_put_packet(w, &pc, seq_of(track));
}

int pfw_timed_packet(tf_perfetto_out *w, PB_Packet *p, uint32_t track, int64_t ts, tf_str name)
{
	return pfw_packet_at(w, p, track, ts, name, false);
}

int pfw_packet_at(tf_perfetto_out *w, PB_Packet *p, uint32_t track, int64_t ts, tf_str name, bool absolute)
{
	pseq *q = seq_state(w, track);
	if (!q)
		return w->rc = TF_ENOMEM;
	/* TracePacket times are unsigned: a run that starts before 0 is
	 * shifted to start at 0 (tf_time_shift), unchanged otherwise */
	int64_t orig = ts;
	ts = tf_time_shifted(w->ctx, &w->have_shift, &w->shift_ns, orig);
	if (ts < 0) {
		tf_error e = { 0 };
		return w->rc = tf_time_refuse(w->ctx, w->path, "Perfetto", w->inputs, w->ninputs, track, name, orig,
					      w->shift_ns, &e);
	}
	p->has_sequence_flags = 1;
	p->sequence_flags = SEQ_NEEDS;
	if (!q->started) {
		q->started = 1;
		q->last = ts;
		TF_TRY(start_sequence(w, track, ts));
	}
	p->has_timestamp = 1;
	if (ts >= q->last && !absolute) { /* ns since the sequence's previous packet (clock 64) */
		p->timestamp = (uint64_t)ts - (uint64_t)q->last; /* fits: ts >= last */
		q->last = ts;
	} else { /* earlier: absolute (never before 0: shifted above) */
		p->timestamp = (uint64_t)ts;
		p->has_timestamp_clock_id = 1;
		p->timestamp_clock_id = CLOCK_BOOTTIME;
	}
	return 0;
}

static int event_packet(tf_perfetto_out *w, evpacket *k, uint32_t track, int64_t ts, int type, tf_str name,
			tf_str cat)
{
	k->p = (PB_Packet)PERFETTO__PROTOS__TRACE_PACKET__INIT;
	k->e = (PB_Event)PERFETTO__PROTOS__TRACK_EVENT__INIT;
	k->in = (PB_Interned)PERFETTO__PROTOS__INTERNED_DATA__INIT;
	k->track = track;
	TF_TRY(pfw_timed_packet(w, &k->p, track, ts, name));
	k->p.track_event = &k->e;
	k->e.has_type = 1;
	k->e.type = (Perfetto__Protos__TrackEvent__Type)type;
	int r;
	if (name) {
		k->e.name_field_case = PERFETTO__PROTOS__TRACK_EVENT__NAME_FIELD_NAME_IID;
		k->e.name_iid = name;
		if ((r = pfw_intern_once(w, track, IN_NAME, name)) < 0)
			return w->rc = TF_ENOMEM;
		if (r == 0) {
			k->name = (PB_Name)PERFETTO__PROTOS__EVENT_NAME__INIT;
			k->name.has_iid = 1;
			k->name.iid = name;
			k->name.name = pfw_cstr(w, name);
			k->names[0] = &k->name;
			k->in.n_event_names = 1;
			k->in.event_names = k->names;
		}
	}
	if (cat) {
		k->cat_iid = cat;
		k->e.n_category_iids = 1;
		k->e.category_iids = &k->cat_iid;
		if ((r = pfw_intern_once(w, track, IN_CAT, cat)) < 0)
			return w->rc = TF_ENOMEM;
		if (r == 0) {
			k->cat = (PB_Cat)PERFETTO__PROTOS__EVENT_CATEGORY__INIT;
			k->cat.has_iid = 1;
			k->cat.iid = cat;
			k->cat.name = pfw_cstr(w, cat);
			k->cats[0] = &k->cat;
			k->in.n_event_categories = 1;
			k->in.event_categories = k->cats;
		}
	}
	k->p.interned_data = &k->in;
	return 0;
}

/* Adds a debug annotation (its name interned on the sequence when new);
 * the caller sets its value. */
static PB_Annot *annot(tf_perfetto_out *w, evpacket *k, int which)
{
	int r = pfw_intern_once(w, k->track, IN_ANNOT, (uint64_t)which);
	if (r < 0) {
		w->rc = TF_ENOMEM;
		r = 1;
	}
	if (r == 0) {
		Perfetto__Protos__DebugAnnotationName *n = &k->an[k->in.n_debug_annotation_names];
		*n = (Perfetto__Protos__DebugAnnotationName)PERFETTO__PROTOS__DEBUG_ANNOTATION_NAME__INIT;
		n->has_iid = 1;
		n->iid = (uint64_t)which;
		n->name = annot_name(which);
		k->ans[k->in.n_debug_annotation_names++] = n;
		k->in.debug_annotation_names = k->ans;
	}
	PB_Annot *a = &k->a[k->e.n_debug_annotations];
	*a = (PB_Annot)PERFETTO__PROTOS__DEBUG_ANNOTATION__INIT;
	a->name_field_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__NAME_FIELD_NAME_IID;
	a->name_iid = (uint64_t)which;
	k->ap[k->e.n_debug_annotations++] = a;
	k->e.debug_annotations = k->ap;
	return a;
}

static void annot_int(tf_perfetto_out *w, evpacket *k, int which, int64_t v)
{
	PB_Annot *a = annot(w, k, which);
	a->value_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_INT_VALUE;
	a->int_value = v;
}

/* The packet, without the interned data when it has none. */
static int put_event(tf_perfetto_out *w, evpacket *k)
{
	if (!k->in.n_event_names && !k->in.n_event_categories && !k->in.n_debug_annotation_names)
		k->p.interned_data = NULL;
	TF_TRY(w->rc);
	return pfw_put_packet(w, &k->p, seq_of(k->track));
}

/* ---- spans and events ---- */

/* The lane of a top-level GPU activity: the first whose last activity has
 * ended, described when new.  Returns 0 or TF_ENOMEM. */
static int pick_lane(tf_perfetto_out *w, uint32_t track, pseq *q, const tf_span *s)
{
	uint32_t l;
	bool is_new;
	if (tf_lanes_pick(&q->lanes, s->kind == TF_SPAN_KIND_GPU_LABEL, s->start_ns, s->end_ns, &l, &is_new) < 0)
		return w->rc = TF_ENOMEM;
	if (is_new && l > 0) {
		char name[600];
		tf_lane_name(w->ctx, track, &q->lanes, l, name, sizeof(name));
		PB_Track td = PERFETTO__PROTOS__TRACK_DESCRIPTOR__INIT;
		td.has_uuid = td.has_parent_uuid = 1;
		td.uuid = UUID_LANE | (uint64_t)track << 16 | l;
		td.parent_uuid = q->proc_uuid;
		td.name = name;
		TF_TRY(put_track(w, &td));
	}
	q->lane = l;
	return 0;
}

/* The event on the span's lane (the track itself for lane 0). */
static void on_lane(evpacket *e, uint32_t track, const pseq *q)
{
	if (!q->lane)
		return;
	e->e.has_track_uuid = 1;
	e->e.track_uuid = UUID_LANE | (uint64_t)track << 16 | q->lane;
}

static int on_open(tf_span_sink *k, const tf_span *s)
{
	tf_perfetto_out *w = tf_container_of(k, tf_perfetto_out, spans);
	TF_TRY(pfw_describe(w, s->track));
	pseq *q = &w->seq[s->track];
	if (s->depth == 1) {
		q->lane = 0;
		if (s->kind != TF_SPAN_KIND_CPU && s->end_ns != TF_SPAN_END_UNKNOWN)
			TF_TRY(pick_lane(w, s->track, q, s));
	}
	evpacket e;
	TF_TRY(event_packet(w, &e, s->track, s->start_ns, PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_BEGIN, s->name,
			    s->cat));
	on_lane(&e, s->track, &w->seq[s->track]);
	if (s->kind != TF_SPAN_KIND_CPU) /* 1 a GPU activity, 2 a GPU annotation (docs/gpu.md) */
		annot_int(w, &e, AN_GPU, s->kind);
	/* a GPU stream that nests in place (Score-P's): read back, it does again */
	if (s->kind != TF_SPAN_KIND_CPU && !tf_track_gpu_joined(tf_ctx_track_get(w->ctx, s->track)))
		annot_int(w, &e, AN_GPU_IN_PLACE, 1);
	if (s->corr) /* read back, it puts GPU work under its launch again */
		annot_int(w, &e, AN_CORRELATION, (int64_t)s->corr);
	return put_event(w, &e);
}

/* END, with the span's repairs ("cut,unclosed") when it has any. */
static int on_close(tf_span_sink *k, const tf_span *s)
{
	tf_perfetto_out *w = tf_container_of(k, tf_perfetto_out, spans);
	evpacket e;
	TF_TRY(event_packet(w, &e, s->track, s->end_ns, PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_END, 0, 0));
	on_lane(&e, s->track, &w->seq[s->track]);
	char rep[128] = "";
	if (s->flags) {
		size_t len = 0;
		for (size_t i = 0; i < TF_SPAN_NREPAIRS; i++)
			if (s->flags & tf_span_repairs[i].flag)
				len += (size_t)snprintf(rep + len, sizeof(rep) - len, "%s%s", len ? "," : "",
							tf_span_repairs[i].name);
		PB_Annot *a = annot(w, &e, AN_REPAIRED);
		a->value_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_STRING_VALUE;
		a->string_value = rep;
	}
	return put_event(w, &e);
}

/* One end of an arrow: an instant carrying the flow id, in flow_ids on the
 * earlier end and terminating_flow_ids on the later one (trace processor
 * takes a flow's events in time order: a receive before its send, clocks
 * skewed, would otherwise end a flow that has not started). */
static int flow_end(tf_perfetto_out *w, const tf_pend *p, tf_str name, tf_str cat, const tf_pend *msg, bool start)
{
	uint32_t track = (uint32_t)p->track;
	TF_TRY(pfw_describe(w, track));
	evpacket e;
	TF_TRY(event_packet(w, &e, track, p->ts, PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_INSTANT, name, cat));
	uint64_t id = w->nflows;
	if (start) {
		e.e.n_flow_ids = 1;
		e.e.flow_ids = &id;
	} else {
		e.e.n_terminating_flow_ids = 1;
		e.e.terminating_flow_ids = &id;
	}
	if (msg) {
		annot_int(w, &e, AN_TAG, msg->tag);
		if (msg->comm >= 0)
			annot_int(w, &e, AN_COMMUNICATOR, msg->comm);
		if (msg->bytes >= 0)
			annot_int(w, &e, AN_BYTES, msg->bytes);
	}
	return put_event(w, &e);
}

static tf_str intern(tf_perfetto_out *w, const char *s)
{
	tf_str id = tf_strtab_intern(w->st, s, strlen(s));
	if (id == (tf_str)-1) {
		w->rc = TF_ENOMEM;
		return 0;
	}
	return id;
}

static int arrow(tf_perfetto_out *w, const tf_pend *s, const tf_pend *e, bool msg)
{
	w->nflows++;
	tf_str name = msg ? intern(w, "message") : s->name ? s->name : intern(w, "flow");
	tf_str cat = s->cat ? s->cat : intern(w, msg ? "message" : "flow");
	TF_TRY(w->rc);
	bool send_first = s->ts <= e->ts;
	TF_TRY(flow_end(w, s, name, cat, msg ? s : NULL, send_first));
	return flow_end(w, e, name, cat, msg ? s : NULL, !send_first);
}

static int message_pair(void *u, const tf_pend *s, const tf_pend *r)
{
	return arrow(u, s, r, true);
}

static int flow_pair(void *u, const tf_pend *s, const tf_pend *e)
{
	return arrow(u, s, e, false);
}

static int on_event(tf_span_sink *k, const tf_event *ev, uint32_t node)
{
	tf_perfetto_out *w = tf_container_of(k, tf_perfetto_out, spans);
	(void)node;
	if (ev->kind == TF_EV_SEND || ev->kind == TF_EV_RECV || ev->kind == TF_EV_FLOW) {
		const tf_track *t = tf_ctx_track_get(w->ctx, ev->track);
		return tf_pair_event(&w->pairs, ev, t->rank, t->input, -1, message_pair, flow_pair, w);
	}
	TF_TRY(pfw_describe(w, ev->track));
	evpacket e;
	if (ev->kind == TF_EV_COUNTER) {
		uint64_t uuid;
		TF_TRY(counter_uuid(w, ev->track, ev->name, &uuid));
		TF_TRY(event_packet(w, &e, ev->track, ev->ts_ns, PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_COUNTER, 0, 0));
		e.e.has_track_uuid = 1;
		e.e.track_uuid = uuid;
		e.e.counter_value_field_case = PERFETTO__PROTOS__TRACK_EVENT__COUNTER_VALUE_FIELD_DOUBLE_COUNTER_VALUE;
		e.e.double_counter_value = ev->value;
	} else if (ev->kind == TF_EV_SAMPLE) {
		return pfw_sample(w, ev);
	} else if (ev->kind == TF_EV_INSTANT) {
		TF_TRY(event_packet(w, &e, ev->track, ev->ts_ns, PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_INSTANT, ev->name,
				    ev->cat));
	} else {
		return w->rc;
	}
	return put_event(w, &e);
}

/* ---- the writer ---- */

static void perfetto_free(tf_perfetto_out *w, bool abort)
{
	if (!w)
		return;
	if (abort)
		tf_out_abort(w->o);
	for (uint32_t i = 0; i < w->nseq; i++)
		tf_lanes_free(&w->seq[i].lanes);
	free(w->seq);
	tf_tids_free(&w->ids);
	tf_hmap_free(&w->counters);
	tf_hmap_free(&w->interned);
	free(w->buf);
	free(w->chunk);
	free(w->zbuf);
	tf_pairs_free(&w->pairs);
	free(w->frames);
	free(w);
}

static int perfetto_finish(void *state, tf_error *err)
{
	tf_perfetto_out *w = state;
	flush_chunk(w);
	int rc = tf_out_finish(w->o, w->rc, err);
	w->o = NULL;
	perfetto_free(w, false);
	return rc;
}

static void perfetto_abort(void *state)
{
	perfetto_free(state, true);
}

static int perfetto_open(const tf_writer_args *a, const char *path, tf_span_sink **sink_out, void **state_out,
			 tf_error *err)
{
	tf_perfetto_out *w = calloc(1, sizeof(*w));
	if (!w)
		return tf_error_set(err, TF_ENOMEM, NULL, -1, -1, "out of memory");
	int rc = tf_out_open_named(&w->o, path, err);
	if (rc < 0) {
		free(w);
		return rc;
	}
	w->ctx = a->ctx;
	w->st = tf_ctx_strtab(a->ctx);
	w->path = path;
	w->inputs = a->inputs;
	w->ninputs = a->ninputs;
	w->ids.max = INT32_MAX; /* ProcessDescriptor.pid and ThreadDescriptor.tid are int32 */
	/* a gzipped file is compressed as a whole */
	const perfetto_conf *conf = a->conf;
	w->deflate = conf && conf->compression ? conf->compression == PF_DEFLATE
					       : !(strlen(path) > 3 && !strcmp(path + strlen(path) - 3, ".gz"));
	w->spans = (tf_span_sink){ .open = on_open, .close = on_close, .event = on_event,
				   .event_kinds = (1u << TF_EV_COUNTER) | (1u << TF_EV_INSTANT) | (1u << TF_EV_SEND) |
						  (1u << TF_EV_RECV) | (1u << TF_EV_FLOW) | (1u << TF_EV_SAMPLE) };
	*sink_out = &w->spans;
	*state_out = w;
	return 0;
}

static const char *const perfetto_suffixes[] = { ".pftrace", ".perfetto-trace", ".pftrace.gz", ".perfetto-trace.gz",
						  NULL };

static int set_compression(void *conf, const char *v, tf_error *err)
{
	if (strcmp(v, "none") && strcmp(v, "deflate"))
		return tf_error_set(err, TF_EUSAGE, NULL, -1, -1, "--compression takes none or deflate, not '%s'", v);
	((perfetto_conf *)conf)->compression = !strcmp(v, "none") ? PF_NONE : PF_DEFLATE;
	return 0;
}

static const tf_writer_opt perfetto_opts[] = {
	{ "--compression", "C", "deflate (default; none for .gz names): packets in\n"
				"zlib-compressed chunks (compressed_packets), as\n"
				"Perfetto's own service writes them; none: plain\n"
				"packets (for protoc --decode)", set_compression },
	{ NULL, NULL, NULL, NULL },
};

const tf_writer tf_writer_perfetto = {
	.name = "perfetto",
	.description = "a timeline as a Perfetto protobuf trace, gzipped for .gz (ui.perfetto.dev, trace processor; "
		       "docs/perfetto.md)",
	.suffixes = perfetto_suffixes,
	.consumes = TF_WRITER_SPANS,
	.span_open = perfetto_open,
	.span_finish = perfetto_finish,
	.span_abort = perfetto_abort,
	.opts = perfetto_opts,
	.conf_size = sizeof(perfetto_conf),
	.command = "perfetto",
	.summary = "a timeline as a Perfetto protobuf trace; docs/perfetto.md",
	.usage = "-o OUT.pftrace[.gz]",
	.help = "Writes the INPUTs (the inputs of 'tracefold profile') as one timeline in\n"
		"Perfetto's protobuf trace format, in one streaming pass: a track per\n"
		"process (rank N), thread and GPU stream, every matched region as a slice\n"
		"(after the stack rules and repairs; repaired ones carry a 'repaired'\n"
		"annotation), instants, counters as counter tracks, MPI messages and\n"
		"flows as flow arrows; names interned, times delta-coded.  Several times\n"
		"smaller than the same trace as Chrome JSON.  Gzipped when OUT ends in\n"
		".gz.  Open it in Perfetto UI (ui.perfetto.dev, Open trace file) or\n"
		"trace processor; 'tracefold profile' reads it back (docs/perfetto.md).\n",
};
