/* otf2_events.c - the OTF2 reader's event callbacks, written once for
 * both event paths: each turns libotf2's arguments into a record (prec)
 * and puts it, and the put step is the only difference between the paths
 * (d->piped: one predictable branch per record).  The serial path
 * applies each record at once, on this thread; the pipelined path
 * (otf2_pipe.c) queues it on its decode thread and applies it on the main
 * thread.  Applying a record (apply) is the only place that emits, skips,
 * counts and notes.  Also here: reading one location at a time (local
 * definitions, then events) and the serial path.  docs/format-otf2.md. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys/stat.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include "otf2.h"
#include "tracefold/coll.h"

/* ------------------------------------------- ticks to ns (tf_otf2_clock_set) */

/* floor(x / d) and x % d without a divide instruction (the hot path runs
 * two per event): magic = floor((2^64 - 1) / d) >= 2^64 / d - 1, so the
 * high half of x * magic is at most 2 below the quotient; the remainder
 * test corrects it exactly. */
static inline uint64_t div_fast(uint64_t x, uint64_t d, uint64_t magic, uint64_t *rem_out)
{
	uint64_t q = (uint64_t)(((unsigned __int128)x * magic) >> 64);
	uint64_t rem = x - q * d;
	while (rem >= d) {
		q++;
		rem -= d;
	}
	*rem_out = rem;
	return q;
}

/* What ticks_to_ns() returns for a time beyond int64 nanoseconds (after or
 * before the offset): no event has it, so no event time is INT64_MIN. */
#define TS_BEYOND INT64_MIN

static int64_t ticks_slow(const rd *r, __int128 d)
{
	__int128 num = d * 1000000000, res = (__int128)r->res;
	__int128 q = num / res;
	if (num % res != 0 && num < 0)
		q--; /* floor */
	if (q > INT64_MAX || q <= INT64_MIN)
		return TS_BEYOND;
	return (int64_t)q;
}

/* (t - off) * 1e9 / res rounded down, exactly; TS_BEYOND when that is
 * beyond int64. */
static inline int64_t ticks_to_ns(const rd *r, uint64_t t)
{
	if (t >= r->off) {
		uint64_t d = t - r->off;
		if (r->mul) {
			if (d <= r->mul_max)
				return (int64_t)(d * r->mul);
		} else if (r->fast) {
			uint64_t m, m2;
			uint64_t q = div_fast(d, r->res, r->magic, &m);
			if (q < (uint64_t)INT64_MAX / 1000000000ull)
				return (int64_t)(q * 1000000000ull +
						 div_fast(m * 1000000000ull, r->res, r->magic, &m2));
		}
		return ticks_slow(r, (__int128)d);
	}
	return ticks_slow(r, -(__int128)(r->off - t));
}

void tf_otf2_decoder_init(decoder *d, rd *r, OTF2_Reader *rdr, const OTF2_EvtReaderCallbacks *cb,
			  bool defs_open, bool piped)
{
	*d = (decoder){ .piped = piped, .rdr = rdr, .cb = cb, .defs_open = defs_open, .locs = r->locs,
			.nlocs = r->nlocs, .region_dense = r->region_dense, .ndense = r->ndense,
			.region_ids = r->region_ids, .region_str = r->region_str, .attr_corr = r->attr_corr,
			.attr_gpu = r->attr_gpu, .l = { .r = r } };
}

/* ------------------------------------------------------ applying records */

static inline OTF2_CallbackCode emit(rd *r, const tf_event *ev)
{
	int rc = tf_emit(r->ctx, r->sink, ev);
	if (rc < 0) {
		r->rc = rc;
		return OTF2_CALLBACK_INTERRUPT;
	}
	return OTF2_CALLBACK_SUCCESS;
}

static inline OTF2_CallbackCode skip(rd *r, tf_diag_id why)
{
	tf_count_skip(r->ctx, why);
	r->index++;
	return OTF2_CALLBACK_SUCCESS;
}

/* Says where an undefined id was met (once per location); pos is libotf2's
 * 1-based record number within the location. */
static OTF2_CallbackCode skip_undefined(locst *l, const char *what, uint64_t id, uint64_t pos)
{
	if (!l->noted) {
		l->noted = true;
		tf_ctx_note(l->r->ctx, "'%s': location %" PRIu64 " record #%" PRIu64 ": %s %" PRIu64
			    " is not defined: skipped (and any later ones on this location)",
			    l->r->path, l->loc, pos, what, id);
	}
	return skip(l->r, TF_DIAG_unknown_event_id);
}

/* n events at a time beyond int64 ns: skipped as bad_event (saturated, a
 * region would last until 2262), the first of each location noted. */
static OTF2_CallbackCode skip_beyond(locst *l, uint64_t ticks, uint32_t n)
{
	rd *r = l->r;
	if (!l->time_noted) {
		l->time_noted = true;
		uint32_t i = idmap_get(&r->loc_ids, l->loc);
		tf_ctx_note(r->ctx, "'%s': location %" PRIu64 " (\"%s\"): event time %" PRIu64 " ticks is beyond "
			    "int64 nanoseconds (timer resolution %" PRIu64 " ticks/s, global offset %" PRIu64 "): "
			    "skipped (bad_event), as is any later one on this location",
			    r->path, l->loc, i == IDMAP_NONE ? "" : tf_otf2_loc_name(r, &r->locs[i]), ticks, r->res, r->off);
	}
	for (uint32_t k = 0; k < n; k++)
		skip(r, TF_DIAG_bad_event);
	return OTF2_CALLBACK_SUCCESS;
}

static inline OTF2_CallbackCode do_region(locst *l, uint8_t kind, tf_str name, uint64_t ticks)
{
	rd *r = l->r;
	int64_t ts = ticks_to_ns(r, ticks);
	if (__builtin_expect(ts == TS_BEYOND, 0))
		return skip_beyond(l, ticks, 1);
	tf_event *ev = &r->rev; /* no tf_event zeroed per event */
	ev->kind = kind;
	ev->track = l->track;
	ev->name = name;
	ev->ts_ns = ts;
	ev->index = r->index++;
	if (kind == TF_EV_BEGIN) { /* where an MpiCollectiveBegin goes */
		l->enter_name = name;
		l->enter_ns = ts;
	}
	return emit(r, ev);
}

/* MpiCollectiveEnd: the facts of the collective whose MpiCollectiveBegin
 * came in the region entered last (MPI_Allreduce), noted on that region
 * for the collectives table (docs/collectives.md "MPI (OTF2)").  Counted
 * as ev_other, as before they were read (the event stream has no
 * collective event). */
static OTF2_CallbackCode do_coll_end(locst *l, const prec *q)
{
	static const char *const ops[] = { "barrier", "broadcast", "gather", "gather", "scatter", "scatter",
		"all_gather", "all_gather", "all_to_all", "all_to_all", "all_to_all", "all_reduce", "reduce",
		"reduce_scatter", "scan", "exscan", "reduce_scatter" };
	rd *r = l->r;
	tf_str region = l->coll_name;
	l->coll_name = 0;
	if (!region || q->k >= sizeof(ops) / sizeof(ops[0])) /* no Begin, or a one-sided window op */
		return skip(r, TF_DIAG_ev_other);
	tf_coll_facts f = TF_COLL_FACTS_NONE;
	char comm[24];
	uint32_t root = (uint32_t)q->x.u;
	f.name = tf_strtab_intern_cstr(tf_ctx_strtab(r->ctx), ops[q->k]);
	if (q->a != OTF2_UNDEFINED_COMM) {
		snprintf(comm, sizeof(comm), "%" PRIu32, q->a);
		f.pg = tf_strtab_intern_cstr(tf_ctx_strtab(r->ctx), comm);
	}
	if (root != OTF2_COLLECTIVE_ROOT_NONE && root != OTF2_COLLECTIVE_ROOT_SELF &&
	    root != OTF2_COLLECTIVE_ROOT_THIS_GROUP)
		f.root = tf_otf2_peer_rank(r, l, q->a, root);
	f.bytes = q[1].x.u > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)q[1].x.u;
	f.bytes_recv = q[2].x.u > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)q[2].x.u;
	tf_coll *c = tf_ctx_coll(r->ctx, true);
	if (f.name == (tf_str)-1 || f.pg == (tf_str)-1 || !c ||
	    tf_coll_note(c, l->track, l->coll_ns, region, &f) < 0) {
		r->rc = TF_ENOMEM;
		return OTF2_CALLBACK_INTERRUPT;
	}
	return skip(r, TF_DIAG_ev_other);
}

/* An Enter with tracefold's attributes: the correlation id of a launch or
 * GPU activity, and whether a GPU region is an annotation (no GPU time). */
static OTF2_CallbackCode do_enter_x(locst *l, tf_str name, uint64_t ticks, uint8_t gpu, uint64_t corr)
{
	rd *r = l->r;
	int64_t ts = ticks_to_ns(r, ticks);
	if (ts == TS_BEYOND)
		return skip_beyond(l, ticks, 1);
	tf_event ev = { .kind = TF_EV_BEGIN, .track = l->track, .name = name, .ts_ns = ts, .corr = corr,
			.flags = gpu == 2 ? TF_EVF_GPU_LABEL : 0, .msg = { -1, 0, 0, -1 }, .index = r->index++ };
	return emit(r, &ev);
}

/* Member k of a metric record; m is its class (NULL: undefined). */
static inline OTF2_CallbackCode do_metric_value(locst *l, const d_metric *m, uint32_t metric, uint8_t k,
						int64_t ts, uint64_t ticks, uint64_t pos, double v)
{
	if (!m || k >= m->n) {
		skip_undefined(l, m ? "member index" : "metric", m ? k : metric, pos);
		return OTF2_CALLBACK_SUCCESS;
	}
	if (ts == TS_BEYOND)
		return skip_beyond(l, ticks, 1);
	rd *r = l->r;
	tf_event ev = { .kind = TF_EV_COUNTER, .track = l->track, .name = m->names[k], .ts_ns = ts,
			.value = v, .msg = { -1, 0, 0, -1 }, .index = r->index++ };
	return emit(r, &ev);
}

static inline OTF2_CallbackCode do_msg(locst *l, uint8_t kind, uint64_t ticks, uint32_t peer, OTF2_CommRef comm,
				       uint32_t tag, uint64_t len)
{
	rd *r = l->r;
	int64_t ts = ticks_to_ns(r, ticks);
	if (ts == TS_BEYOND)
		return skip_beyond(l, ticks, 1);
	tf_event ev = { .kind = kind, .track = l->track, .ts_ns = ts, .index = r->index++ };
	ev.msg.peer = tf_otf2_peer_rank(r, l, comm, peer);
	ev.msg.tag = tag;
	ev.msg.bytes = len > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)len;
	ev.msg.comm = comm == OTF2_UNDEFINED_COMM ? -1 : (int64_t)comm;
	return emit(r, &ev);
}

static void missing(rd *r, d_loc *L, const char *msg)
{
	L->ldefs = LDEFS_NOT_READ; /* its events are gone: its definitions do not matter */
	if (!L->nevents)
		return;
	tf_ctx_diag(r->ctx)->n[TF_DIAG_missing_location]++;
	tf_ctx_note(r->ctx, "'%s': location %" PRIu64 " (\"%s\"): event data missing or unreadable (libotf2: %s): "
		    "skipped, the other locations are read", r->anchor, L->id, tf_otf2_loc_name(r, L),
		    msg[0] ? msg : "?");
}

/* After a location's events: ec and n (records libotf2 decoded, with or
 * without a callback) say whether all of it was read. */
static void location_done(rd *r, d_loc *L, OTF2_ErrorCode ec, uint64_t n, const char *msg)
{
	if (ec == OTF2_SUCCESS)
		return;
	/* nothing read: the event file is missing or unreadable;
	 * something read: the rest of it is damaged */
	if (n == 0) {
		missing(r, L, msg);
	} else {
		/* the undecodable rest counts as one truncated record */
		tf_count_skip(r->ctx, TF_DIAG_truncated_record);
		r->index++;
		tf_ctx_note(r->ctx, "'%s': location %" PRIu64 " (\"%s\"): event data damaged after %"
			    PRIu64 " events (libotf2: %s): the rest of this location is lost",
			    r->anchor, L->id, tf_otf2_loc_name(r, L), n, msg[0] ? msg : "?");
	}
}

static locst location_state(rd *r, const d_loc *L)
{
	locst ls = { .r = r, .track = L->track, .loc = L->id };
	const tf_track *t = tf_ctx_track_get(r->ctx, L->track);
	ls.rank = t ? t->rank : -1;
	return ls;
}

/* Main thread, once read_local_defs() said how a location's definitions
 * were: a damaged file is noted now, missing ones at the end (tf_otf2_note_ldefs). */
static void ldefs_read(rd *r, d_loc *L, uint8_t st, uint32_t ec, const char *msg)
{
	L->ldefs = st;
	if (st != LDEFS_DAMAGED)
		return;
	tf_ctx_diag(r->ctx)->n[TF_DIAG_missing_local_defs]++;
	tf_ctx_note(r->ctx, "'%s': location %" PRIu64 " (\"%s\"): local definitions damaged (libotf2: %s): "
			    "its events are read without the mapping tables and clock offsets after the damage "
			    "(ids may be taken as global ones, times not corrected)", r->anchor, L->id, tf_otf2_loc_name(r, L),
			    msg[0] ? msg : OTF2_Error_GetDescription((OTF2_ErrorCode)ec));
}

/* Every record kind but Enter and Leave. */
static __attribute__((noinline)) uint32_t apply_rest(locst *l, const prec *q, const msgbuf *note)
{
	rd *r = l->r;
	switch (q->kind) {
	case P_UNDEF:
		skip_undefined(l, "region", q->a, q->x.u);
		return 1;
	case P_METRIC: {
		const d_metric *m = tf_otf2_metric_class(r, q->a);
		if (q->k == 0)
			skip(r, TF_DIAG_ev_other);
		int64_t ts = q->k ? ticks_to_ns(r, q->x.u) : 0;
		for (uint8_t k = 0; k < q->k; k++)
			if (do_metric_value(l, m, q->a, k, ts, q->x.u, q[1].x.u, q[2 + k].x.v) != OTF2_CALLBACK_SUCCESS)
				return 0;
		return 2 + (uint32_t)q->k;
	}
	case P_SEND:
	case P_RECV:
		if (do_msg(l, q->kind == P_SEND ? TF_EV_SEND : TF_EV_RECV, q->x.u, q->a, q[1].a, q[2].a,
			   q[1].x.u) != OTF2_CALLBACK_SUCCESS)
			return 0;
		return 3;
	case P_OTHER:
		skip(r, TF_DIAG_ev_other);
		return 1;
	case P_ENTERX:
		return do_enter_x(l, q->a, q->x.u, q->k, q[1].x.u) == OTF2_CALLBACK_SUCCESS ? 2 : 0;
	case P_COLLB:
		l->coll_name = l->enter_name;
		l->coll_ns = l->enter_ns;
		skip(r, TF_DIAG_ev_other);
		return 1;
	case P_COLLE:
		return do_coll_end(l, q) == OTF2_CALLBACK_SUCCESS ? 3 : 0;
	case P_LOC: {
		uint8_t st = (uint8_t)q->x.u;
		*l = location_state(r, &r->locs[q->a]);
		ldefs_read(r, &r->locs[q->a], st, (uint32_t)(q->x.u >> 8), st == LDEFS_DAMAGED ? note[q->k] : "");
		return 1;
	}
	case P_MISSING:
		missing(r, &r->locs[q->a], note[q->k]);
		return 1;
	case P_END:
		location_done(r, &r->locs[q->a], (OTF2_ErrorCode)q[1].a, q->x.u,
			      q[1].a == OTF2_SUCCESS ? "" : note[q->k]);
		return 2;
	default: /* P_DATA: never first */
		return 1;
	}
}

/* Applies the record in q[0] (and the P_DATA slots after it) to the
 * location l on the main thread; note: the messages its note slot refers
 * to.  Returns the number of slots it took, 0 when the sink stopped the
 * read (r->rc says why). */
static inline uint32_t apply(locst *l, const prec *q, const msgbuf *note)
{
	/* one well-predicted branch: most records are Enter or Leave */
	if (__builtin_expect(q->kind <= P_LEAVE, 1))
		return do_region(l, q->kind, q->a, q->x.u) == OTF2_CALLBACK_SUCCESS;
	return apply_rest(l, q, note);
}

/* n slots of records, in order.  Returns 0, or r->rc when the sink stopped
 * the read. */
int tf_otf2_apply_records(locst *l, const prec *rec, uint32_t n, const msgbuf *note)
{
	for (uint32_t i = 0; i < n;) {
		uint32_t k = apply(l, &rec[i], note);
		if (!k)
			return l->r->rc;
		i += k;
	}
	return 0;
}

/* ------------------------------------------------------------ put steps
 *
 * Serial: a record is applied at once (the callbacks run on the main
 * thread).  Pipelined: it is queued in the batch being filled (the
 * callbacks run on the decode thread).  d->piped chooses, one predictable
 * branch per record. */

/* Serial: applies the record at q. */
static inline OTF2_CallbackCode put_applied(decoder *d, const prec *q)
{
	if (__builtin_expect(apply(&d->l, q, (const msgbuf *)&tf_otf2_msg) != 0, 1))
		return OTF2_CALLBACK_SUCCESS;
	d->stopped = true;
	return OTF2_CALLBACK_INTERRUPT;
}

/* A record of one slot (Enter, Leave, an undefined region, other). */
static inline OTF2_CallbackCode put1(decoder *d, uint8_t kind, uint32_t a, uint64_t x)
{
	if (!d->piped) {
		prec q = { .kind = kind, .a = a, .x.u = x };
		return put_applied(d, &q);
	}
	if (__builtin_expect(d->wp == d->wend, 0))
		if (!tf_otf2_pipe_flush(d))
			return OTF2_CALLBACK_INTERRUPT;
	prec *q = d->wp++;
	/* a non-temporal store: the main thread reads it on another core, so
	 * keeping it in this core's cache only costs a transfer later (and one
	 * more when the batch is refilled) */
#ifdef __SSE2__
	_mm_stream_si128((__m128i *)q, _mm_set_epi64x((long long)x, (long long)((uint64_t)a << 32 | kind)));
#else
	q->kind = kind;
	q->a = a;
	q->x.u = x;
#endif
	return OTF2_CALLBACK_SUCCESS;
}

/* Room for a record of n slots (n <= PREC_MAX); with note, it carries
 * libotf2's current message.  NULL once stopped.  Fill it in, then
 * put_end(). */
static inline prec *put_begin(decoder *d, uint8_t kind, uint32_t n, bool note)
{
	if (d->piped)
		return note ? tf_otf2_pipe_put_note(d, kind, n) : pipe_room(d, kind, n);
	prec *q = d->one;
	q->kind = kind;
	q->k = 0; /* note slot 0: tf_otf2_msg itself */
	return q;
}

static inline OTF2_CallbackCode put_end(decoder *d, const prec *q)
{
	return d->piped ? OTF2_CALLBACK_SUCCESS : put_applied(d, q);
}

/* ------------------------------------------------------- event callbacks
 *
 * One set, for both paths: each decodes libotf2's arguments into a record
 * and puts it. */

#define EV_ARGS OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *ud, OTF2_AttributeList *al

static inline tf_str region_name(const decoder *d, uint32_t region)
{
	if (region < d->ndense)
		return d->region_dense[region];
	if (d->region_dense)
		return NO_STR;
	uint32_t i = idmap_get(&d->region_ids, region);
	return i == IDMAP_NONE ? NO_STR : d->region_str[i];
}

static inline OTF2_CallbackCode put_region(decoder *d, uint8_t kind, uint32_t region, uint64_t t, uint64_t pos)
{
	tf_str name = region_name(d, region);
	if (__builtin_expect(name == NO_STR, 0))
		return put1(d, P_UNDEF, region, pos);
	return put1(d, kind, name, t);
}

static OTF2_CallbackCode ev_enter(EV_ARGS, OTF2_RegionRef region)
{
	decoder *d = ud;
	/* only archives of tracefold's writer define its attributes */
	if (__builtin_expect(al != NULL && d->attr_gpu != OTF2_UNDEFINED_ATTRIBUTE, 0) &&
	    OTF2_AttributeList_GetNumberOfElements(al)) {
		uint64_t corr = 0;
		uint8_t gpu = 0;
		if (d->attr_corr != OTF2_UNDEFINED_ATTRIBUTE)
			OTF2_AttributeList_GetUint64(al, d->attr_corr, &corr);
		OTF2_AttributeList_GetUint8(al, d->attr_gpu, &gpu);
		tf_str name = region_name(d, region);
		if (name != NO_STR && (corr || gpu)) {
			prec *q = put_begin(d, P_ENTERX, 2, false);
			if (!q)
				return OTF2_CALLBACK_INTERRUPT;
			q->a = name;
			q->k = gpu;
			q->x.u = t;
			q[1].x.u = corr;
			return put_end(d, q);
		}
	}
	return put_region(ud, P_ENTER, region, t, pos);
}

static OTF2_CallbackCode ev_leave(EV_ARGS, OTF2_RegionRef region)
{
	return put_region(ud, P_LEAVE, region, t, pos);
}

static inline double metric_value(OTF2_Type type, OTF2_MetricValue v)
{
	switch (type) {
	case OTF2_TYPE_INT64: return (double)v.signed_int;
	case OTF2_TYPE_DOUBLE: return v.floating_point;
	default: return (double)v.unsigned_int;
	}
}

static OTF2_CallbackCode ev_metric(EV_ARGS, OTF2_MetricRef metric, uint8_t n, const OTF2_Type *types,
				   const OTF2_MetricValue *values)
{
	decoder *d = ud;
	prec *q = put_begin(d, P_METRIC, 2 + (uint32_t)n, false);
	if (!q)
		return OTF2_CALLBACK_INTERRUPT;
	q->a = metric;
	q->k = n;
	q->x.u = t;
	q[1].x.u = pos;
	for (uint8_t k = 0; k < n; k++)
		q[2 + k].x.v = metric_value(types[k], values[k]);
	return put_end(d, q);
}

static inline OTF2_CallbackCode put_msg(decoder *d, uint8_t kind, OTF2_TimeStamp t, uint32_t peer,
					OTF2_CommRef comm, uint32_t tag, uint64_t len)
{
	prec *q = put_begin(d, kind, 3, false);
	if (!q)
		return OTF2_CALLBACK_INTERRUPT;
	q->a = peer;
	q->x.u = t;
	q[1].a = comm;
	q[1].x.u = len;
	q[2].a = tag;
	return put_end(d, q);
}

static OTF2_CallbackCode ev_send(EV_ARGS, uint32_t receiver, OTF2_CommRef comm, uint32_t tag, uint64_t len)
{
	return put_msg(ud, P_SEND, t, receiver, comm, tag, len);
}

static OTF2_CallbackCode ev_isend(EV_ARGS, uint32_t receiver, OTF2_CommRef comm, uint32_t tag, uint64_t len,
				  uint64_t req)
{
	return put_msg(ud, P_SEND, t, receiver, comm, tag, len);
}

static OTF2_CallbackCode ev_recv(EV_ARGS, uint32_t sender, OTF2_CommRef comm, uint32_t tag, uint64_t len)
{
	return put_msg(ud, P_RECV, t, sender, comm, tag, len);
}

static OTF2_CallbackCode ev_irecv(EV_ARGS, uint32_t sender, OTF2_CommRef comm, uint32_t tag, uint64_t len,
				  uint64_t req)
{
	return put_msg(ud, P_RECV, t, sender, comm, tag, len);
}

/* Read and counted, not used: thread fork/join, calling context records
 * (docs/format-otf2.md). */
static OTF2_CallbackCode ev_other(void *ud)
{
	return put1(ud, P_OTHER, 0, 0);
}

/* MPI collectives: their facts go on the region they are in (do_coll_end). */
static OTF2_CallbackCode ev_coll_begin(EV_ARGS)
{
	return put1(ud, P_COLLB, 0, 0);
}

static OTF2_CallbackCode ev_coll_end(EV_ARGS, OTF2_CollectiveOp op, OTF2_CommRef comm, uint32_t root,
				     uint64_t sent, uint64_t received)
{
	prec *q = put_begin(ud, P_COLLE, 3, false);
	if (!q)
		return OTF2_CALLBACK_INTERRUPT;
	q->a = comm;
	q->k = op;
	q->x.u = root;
	q[1].x.u = sent;
	q[2].x.u = received;
	return put_end(ud, q);
}

static OTF2_CallbackCode ev_fork(EV_ARGS, OTF2_Paradigm model, uint32_t n)
{
	return ev_other(ud);
}

static OTF2_CallbackCode ev_join(EV_ARGS, OTF2_Paradigm model)
{
	return ev_other(ud);
}

static OTF2_CallbackCode ev_cc_enter(EV_ARGS, OTF2_CallingContextRef cc, uint32_t unwind)
{
	return ev_other(ud);
}

static OTF2_CallbackCode ev_cc_leave(EV_ARGS, OTF2_CallingContextRef cc)
{
	return ev_other(ud);
}

static OTF2_CallbackCode ev_cc_sample(EV_ARGS, OTF2_CallingContextRef cc, uint32_t unwind,
				      OTF2_InterruptGeneratorRef gen)
{
	return ev_other(ud);
}

OTF2_EvtReaderCallbacks *tf_otf2_event_callbacks(void)
{
	OTF2_EvtReaderCallbacks *cb = OTF2_EvtReaderCallbacks_New();
	if (!cb)
		return NULL;
	OTF2_EvtReaderCallbacks_SetEnterCallback(cb, ev_enter);
	OTF2_EvtReaderCallbacks_SetLeaveCallback(cb, ev_leave);
	OTF2_EvtReaderCallbacks_SetMetricCallback(cb, ev_metric);
	OTF2_EvtReaderCallbacks_SetMpiSendCallback(cb, ev_send);
	OTF2_EvtReaderCallbacks_SetMpiIsendCallback(cb, ev_isend);
	OTF2_EvtReaderCallbacks_SetMpiRecvCallback(cb, ev_recv);
	OTF2_EvtReaderCallbacks_SetMpiIrecvCallback(cb, ev_irecv);
	OTF2_EvtReaderCallbacks_SetMpiCollectiveBeginCallback(cb, ev_coll_begin);
	OTF2_EvtReaderCallbacks_SetMpiCollectiveEndCallback(cb, ev_coll_end);
	OTF2_EvtReaderCallbacks_SetThreadForkCallback(cb, ev_fork);
	OTF2_EvtReaderCallbacks_SetThreadJoinCallback(cb, ev_join);
	OTF2_EvtReaderCallbacks_SetCallingContextEnterCallback(cb, ev_cc_enter);
	OTF2_EvtReaderCallbacks_SetCallingContextLeaveCallback(cb, ev_cc_leave);
	OTF2_EvtReaderCallbacks_SetCallingContextSampleCallback(cb, ev_cc_sample);
	return cb;
}

/* ------------------------------------------------------------- locations */

/* Reads one location's local definitions: mapping tables and clock offsets,
 * which libotf2 applies to the events read after them.  Returns LDEFS_OK,
 * LDEFS_MISSING (no such file, or the archive's definition files could not
 * be opened) or LDEFS_DAMAGED (*ec_out and tf_otf2_msg say why). */
static uint8_t read_local_defs(OTF2_Reader *rdr, const d_loc *L, bool defs_open, uint32_t *ec_out)
{
	*ec_out = OTF2_SUCCESS;
	if (!defs_open)
		return LDEFS_MISSING;
	tf_otf2_msg[0] = 0;
	OTF2_DefReader *dr = OTF2_Reader_GetDefReader(rdr, L->id);
	if (!dr) { /* no file, or one whose first chunk is damaged */
		*ec_out = tf_otf2_msg[0] ? (uint32_t)tf_otf2_code : OTF2_ERROR_ENOENT;
		return *ec_out == OTF2_ERROR_ENOENT ? LDEFS_MISSING : LDEFS_DAMAGED;
	}
	uint64_t nd = 0;
	OTF2_ErrorCode ec = OTF2_Reader_ReadAllLocalDefinitions(rdr, dr, &nd);
	OTF2_Reader_CloseDefReader(rdr, dr);
	*ec_out = (uint32_t)ec;
	return ec == OTF2_SUCCESS ? LDEFS_OK : LDEFS_DAMAGED;
}

/* Reads one location's events into cb with ud (its local definitions were
 * read before: read_local_defs).  Returns false when its event reader
 * cannot be had (then tf_otf2_msg says why); else *ec_out and *n_out are as
 * location_done() wants them. */
static bool read_location(OTF2_Reader *rdr, const d_loc *L, const OTF2_EvtReaderCallbacks *cb,
			  void *ud, OTF2_ErrorCode *ec_out, uint64_t *n_out)
{
	tf_otf2_msg[0] = 0;
	OTF2_EvtReader *er = OTF2_Reader_GetEvtReader(rdr, L->id);
	if (!er)
		return false;
	uint64_t n = 0;
	OTF2_ErrorCode ec = OTF2_Reader_RegisterEvtCallbacks(rdr, er, cb, ud);
	if (ec == OTF2_SUCCESS)
		ec = OTF2_Reader_ReadAllLocalEvents(rdr, er, &n);
	OTF2_Reader_CloseEvtReader(rdr, er);
	*ec_out = ec;
	*n_out = n;
	return true;
}

/* Every location, one at a time in definition order, for either path: how
 * its local definitions were read (P_LOC), its events (the callbacks), how
 * they ended (P_MISSING, P_END).  Returns when done or stopped. */
void tf_otf2_decode(decoder *d)
{
	for (size_t i = 0; i < d->nlocs && !d->stopped; i++) {
		const d_loc *L = &d->locs[i];
		if (L->skip)
			continue;
		const tf_read_opts *ro = tf_ctx_opts(d->l.r->ctx);
		if (!d->piped && ro->cancelled && ro->cancelled(ro->cancel_arg)) {
			d->l.r->rc = TF_ECANCEL; /* another process of a distributed run failed */
			d->stopped = true;
			break;
		}
		uint32_t lec;
		uint8_t st = read_local_defs(d->rdr, L, d->defs_open, &lec);
		prec *q = put_begin(d, P_LOC, 1, st == LDEFS_DAMAGED);
		if (!q)
			break;
		q->a = (uint32_t)i;
		q->x.u = st | (uint64_t)lec << 8;
		put_end(d, q);
		OTF2_ErrorCode ec;
		uint64_t n;
		if (!read_location(d->rdr, L, d->cb, d, &ec, &n)) {
			if ((q = put_begin(d, P_MISSING, 1, true))) {
				q->a = (uint32_t)i;
				put_end(d, q);
			}
			continue;
		}
		if (d->stopped)
			break; /* stopped inside the location */
		if ((q = put_begin(d, P_END, 2, ec != OTF2_SUCCESS))) {
			q->a = (uint32_t)i;
			q->x.u = n;
			q[1].a = (uint32_t)ec;
			put_end(d, q);
		}
	}
}

/* The serial path: the callbacks run on this thread and each record is
 * applied as it is put. */
int tf_otf2_read_serial(rd *r, OTF2_Reader *rdr, bool defs_open)
{
	OTF2_EvtReaderCallbacks *cb = tf_otf2_event_callbacks();
	if (!cb)
		return TF_ENOMEM;
	decoder d;
	tf_otf2_decoder_init(&d, r, rdr, cb, defs_open, false);
	tf_otf2_decode(&d);
	OTF2_EvtReaderCallbacks_Delete(cb);
	return d.stopped ? r->rc : 0;
}

/* After every location: local definitions are optional in OTF2, so an
 * archive without any is noted once; one where some locations have them
 * and others not (a lost file) gets a note for each of those. */
/* A location another process reads (a distributed run): has it a local
 * definitions file (ANCHOR-without-.otf2/ID.def)? */
static bool ldefs_file(const rd *r, const d_loc *L)
{
	char p[4200];
	size_t alen = strlen(r->anchor);
	struct stat sb;
	snprintf(p, sizeof(p), "%.*s/%" PRIu64 ".def", (int)(alen > 5 ? alen - 5 : alen), r->anchor, L->id);
	return stat(p, &sb) == 0;
}

void tf_otf2_note_ldefs(rd *r)
{
	size_t nread = 0, nmissing = 0;
	bool first_mine = false, seen = false; /* the first location with events is read here */
	for (size_t i = 0; i < r->nlocs; i++) {
		const d_loc *L = &r->locs[i];
		if (L->skip && L->nevents) { /* as the whole archive would count it */
			nread++;
			nmissing += !ldefs_file(r, L);
			seen = true;
			continue;
		}
		if (L->ldefs == LDEFS_NOT_READ || !L->nevents)
			continue;
		first_mine |= !seen;
		seen = true;
		nread++;
		nmissing += L->ldefs == LDEFS_MISSING;
	}
	if (!nmissing)
		return;
	if (nmissing == nread) {
		if (!first_mine)
			return; /* said once, by the process that reads the first one */
		tf_ctx_note(r->ctx, "'%s': no local definitions for any of the %zu locations with events: their events "
			    "are read without mapping tables or clock offsets (ids taken as global ones, times not "
			    "corrected); nothing is lost if the writer wrote none", r->anchor, nread);
		return;
	}
	for (size_t i = 0; i < r->nlocs; i++) {
		const d_loc *L = &r->locs[i];
		if (L->ldefs != LDEFS_MISSING || !L->nevents)
			continue;
		tf_ctx_diag(r->ctx)->n[TF_DIAG_missing_local_defs]++;
		tf_ctx_note(r->ctx, "'%s': location %" PRIu64 " (\"%s\"): local definitions missing, while other "
			    "locations have theirs: its events are read without mapping tables or clock offsets "
			    "(ids may be taken as global ones, times not corrected)", r->anchor, L->id, tf_otf2_loc_name(r, L));
	}
}
