/* perfetto_tracks.c - what the Perfetto reader's packets say
 * (perfetto_int.h): sequences (their defaults, clocks and interned data),
 * track descriptors -> tf tracks, track events -> tf_event. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "perfetto_int.h"
#include "grow.h"

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
pseq *tf_pf_seq_get(tf_pf *r, uint32_t id, bool add)
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

/* A process's rank: its name is "rank N" (tracefold's perfetto output,
 * libtracefold-record's tfr_rank and its default name), or its
 * legacy_sort_index equals its pid, the pid being the rank (tracefold's
 * output); else unknown. */
static int64_t rank_of(const Perfetto__Protos__ProcessDescriptor *p)
{
	const char *n = p->process_name;
	if (n && !strncmp(n, "rank ", 5) && n[5] >= '0' && n[5] <= '9') {
		char *end;
		errno = 0;
		long long k = strtoll(n + 5, &end, 10);
		if (!*end && !errno && k <= INT32_MAX)
			return k;
	}
	if (!p->has_pid || p->pid < 0)
		return -1;
	if (p->has_legacy_sort_index && p->legacy_sort_index == p->pid)
		return p->pid;
	return -1;
}

int tf_pf_on_descriptor(tf_pf *r, const PB_Track *d)
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
		t->dropped = d->name && !strcmp(d->name, "tracefold.dropped_events");
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
			if (p->rank >= 0)
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
		if (p->rank >= 0)
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

int tf_pf_on_clocks(tf_pf *r, pseq *s, const Perfetto__Protos__ClockSnapshot *c)
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

int tf_pf_emit(tf_pf *r, tf_event *ev)
{
	ev->index = r->index++;
	return tf_emit(r->ctx, r->sink, ev);
}

/* Flows.  A flow's roles come from its events' times, as trace processor
 * takes them, not from the file's order, in which a recorder writes each
 * thread's buffer when it fills (a step on a short-lived thread comes
 * before its begin).  So a flow's events are held, compactly, until its
 * terminating event (then its events, in time order, are handed on) or the
 * input's end: memory grows with the flows still open in the file, and an
 * id per flow. */
static void flow_event(const pflow *f, tf_event *ev)
{
	memset(ev, 0, sizeof(*ev));
	ev->kind = TF_EV_FLOW;
	ev->phase = f->phase;
	ev->track = f->track;
	ev->name = f->name;
	ev->cat = f->cat;
	ev->ts_ns = f->ts;
	ev->id = f->id;
	ev->corr = f->corr;
	ev->flags = f->flags;
	ev->index = f->index; /* its place in the file: after its begin, before its end */
}

static int flow_cmp(const void *a, const void *b)
{
	const pflow *x = a, *y = b;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* The id of a flow's k-th segment: the flow's own for the first, one
 * drawn from it for the next (never 0). */
static uint64_t segment_id(uint64_t id, uint64_t k)
{
	if (!k)
		return id;
	uint64_t v = tf_mix64(id ^ (k * 0x9E3779B97F4A7C15ull));
	return v ? v : 1;
}

/* v[0..n) (held flow events), per id in time order: one that does not end
 * the flow starts it (s) when none is open, else steps it (t); a
 * terminating one ends it (f).  Each segment (an arrow) gets an id of its
 * own, so that the writers pair a flow's events in whatever order its
 * tracks reach them: a step ends the segment of its id and starts the one
 * of its parent_id (event.h).  Handed on. */
static int flows_emit(tf_pf *r, pflow *v, uint32_t n)
{
	qsort(v, n, sizeof(pflow), flow_cmp);
	bool open = false;
	uint64_t seg = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (i == 0 || v[i].id != v[i - 1].id)
			open = false, seg = 0;
		tf_event ev;
		if (v[i].phase == 'f') {
			flow_event(&v[i], &ev);
			ev.id = segment_id(v[i].id, seg++);
			open = false;
		} else {
			v[i].phase = open ? 't' : 's';
			flow_event(&v[i], &ev);
			if (open) {
				ev.id = segment_id(v[i].id, seg++);
				ev.parent_id = segment_id(v[i].id, seg);
			} else {
				ev.id = segment_id(v[i].id, seg);
			}
			open = true;
		}
		TF_TRY(tf_emit(r->ctx, r->sink, &ev));
	}
	return 0;
}

/* The flow id's held events handed on, their slots freed. */
static int flow_close(tf_pf *r, uint64_t id, uint32_t head)
{
	uint32_t n = 0;
	for (uint32_t k = head; k != UINT32_MAX; k = r->fl[k].next) {
		if (tf_grow((void **)&r->flv, &r->capflv, n + 1, sizeof(pflow)) < 0)
			return TF_ENOMEM;
		r->flv[n++] = r->fl[k];
	}
	for (uint32_t k = head, next; k != UINT32_MAX; k = next) {
		next = r->fl[k].next;
		r->fl[k].next = r->flfree;
		r->fl[k].phase = 0xff; /* free */
		r->flfree = k;
	}
	if (tf_hmap_set(&r->flopen, id, 0) < 0)
		return TF_ENOMEM;
	return flows_emit(r, r->flv, n);
}

static int flows(tf_pf *r, const tf_event *base, const uint64_t *ids, size_t n, bool terminating)
{
	for (size_t i = 0; i < n; i++) {
		uint32_t k = r->flfree;
		if (k != UINT32_MAX) {
			r->flfree = r->fl[k].next;
		} else {
			if (tf_grow((void **)&r->fl, &r->capfl, r->nfl + 1, sizeof(pflow)) < 0)
				return TF_ENOMEM;
			k = r->nfl++;
		}
		pflow *f = &r->fl[k];
		uint32_t head = tf_hmap_get(&r->flopen, ids[i]); /* slot + 1; 0 or absent: none open */
		*f = (pflow){ .ts = base->ts_ns, .id = ids[i], .index = r->index++, .corr = base->corr,
			      .track = base->track, .flags = base->flags, .name = base->name, .cat = base->cat,
			      .next = head == UINT32_MAX || head == 0 ? UINT32_MAX : head - 1,
			      .phase = terminating ? 'f' : 0 };
		if (terminating)
			TF_TRY(flow_close(r, ids[i], k));
		else if (tf_hmap_set(&r->flopen, ids[i], k + 1) < 0)
			return TF_ENOMEM;
	}
	return 0;
}

/* The flows still open at the input's end (never terminated). */
int tf_pf_flows_end(tf_pf *r)
{
	uint32_t n = 0;
	for (uint32_t k = 0; k < r->nfl; k++)
		if (r->fl[k].phase != 0xff)
			r->fl[n++] = r->fl[k];
	r->nfl = 0;
	r->flfree = UINT32_MAX;
	return n ? flows_emit(r, r->fl, n) : 0;
}

/* What tracefold's writer says of a slice in its debug annotations: "gpu"
 * (1 a GPU activity, 2 a GPU annotation: its track is a GPU stream) and
 * "correlation" (the id that links a GPU activity to its launch), and
 * "gpu_in_place" (its GPU stream nests in place, as Score-P's do). */
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
		} else if (!strcmp(name, "gpu_in_place")) {
			tf_ctx_track_get(r->ctx, ev->track)->gpu_in_place = true;
		}
	}
	return 0;
}

int tf_pf_on_track_event(tf_pf *r, pseq *s, uint32_t seq, const PB_Packet *p)
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
		if (t && t->dropped && v > 0) /* libtracefold-record's drops of a thread */
			tf_ctx_diag(r->ctx)->n[TF_DIAG_recorder_dropped] += v < 1e18 ? (uint64_t)v : (uint64_t)1e18;
		ev.kind = TF_EV_COUNTER;
		ev.value = v;
		return tf_pf_emit(r, &ev);
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
		TF_TRY(tf_pf_emit(r, &k));
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

int tf_pf_put_interned(tf_pf *r, uint32_t seq, unsigned kind, uint64_t iid, const char *name)
{
	tf_str s = intern(r, name ? name : "");
	if (s == (tf_str)-1 || tf_hmap_set(&r->interned, iid_key(seq, kind, iid), s) < 0)
		return TF_ENOMEM;
	return 0;
}
