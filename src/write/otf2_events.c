/* otf2_events.c - the OTF2 writer's span consumer (otf2_int.h): a
 * location per track lane, each region's Enter and Leave, counters and
 * messages in time order (deferred while an open region ends before them). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "otf2_int.h"
#include "grow.h"

/* A new location (an event writer opened for it). */
static uint32_t new_loc(tf_otf2_out *w, uint32_t track, uint32_t lane, bool gpu, tf_str name)
{
	const tf_track *t = tf_ctx_track_get(w->ctx, track);
	uint32_t g = tf_otf2_out_group_of(w, t, gpu);
	if (g == NONE || tf_grow((void **)&w->loc, &w->caploc, w->nloc + 1, sizeof(oloc)) < 0) {
		tf_otf2_out_oom(w);
		return NONE;
	}
	uint32_t id = w->nloc;
	OTF2_EvtWriter *ew = OTF2_Archive_GetEvtWriter(w->ar, id);
	if (!ew) {
		tf_otf2_out_fail(w, OTF2_ERROR_MEM_ALLOC_FAILED, "an event writer");
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
			tf_otf2_out_oom(w);
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
		tf_otf2_out_oom(w);
		return NONE;
	}
	for (; k->nlanes <= lane; k->nlanes++)
		k->lane_loc[k->nlanes] = NONE;
	if (k->lane_loc[lane] == NONE) {
		char name[600];
		tf_lane_name(w->ctx, track, &k->lanes, lane, name, sizeof(name));
		tf_str s = tf_strtab_intern_cstr(w->st, name);
		if (s == (tf_str)-1) {
			tf_otf2_out_oom(w);
			return NONE;
		}
		k->lane_loc[lane] = new_loc(w, track, lane, gpu, s);
	}
	return k->lane_loc[lane];
}

/* The time an event of location l is written at: its own, or, when the
 * location already has a later event, that one's (counted).  OTF2's are
 * unsigned: a run that starts before 0 is shifted to start at 0
 * (tf_time_shift; the clock's offset is then 0), unchanged otherwise; a
 * time still before 0 fails the run, nothing goes to libotf2. */
static uint64_t stamp(tf_otf2_out *w, oloc *l, int64_t ts, tf_str name)
{
	int64_t orig = ts;
	ts = tf_time_shifted(w->ctx, &w->have_shift, &w->shift_ns, orig);
	if (ts < 0) {
		if (!w->rc) {
			w->rc = tf_time_refuse(w->ctx, w->path, "OTF2", w->inputs, w->ninputs, l->track, name, orig,
					       w->shift_ns, &w->err);
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
		e = OTF2_EvtWriter_Metric(l->ew, NULL, stamp(w, l, p->ts, 0), p->ref, 1, &type, &v);
	} else {
		w->any_mpi = true;
		uint32_t tag = (uint32_t)p->tag, peer = p->ref;
		uint64_t bytes = p->bytes > 0 ? (uint64_t)p->bytes : 0;
		if (p->kind == TF_EV_SEND)
			e = OTF2_EvtWriter_MpiSend(l->ew, NULL, stamp(w, l, p->ts, 0), peer, 0, tag, bytes);
		else
			e = OTF2_EvtWriter_MpiRecv(l->ew, NULL, stamp(w, l, p->ts, 0), peer, 0, tag, bytes);
	}
	return e == OTF2_SUCCESS ? 0 : tf_otf2_out_fail(w, e, "an event");
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

int tf_otf2_out_on_open(tf_span_sink *sk, const tf_span *s)
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
			if (tf_lanes_pick(&k->lanes, s->kind == TF_SPAN_KIND_GPU_LABEL, s->start_ns, s->end_ns, &k->lane, &is_new) < 0)
				return tf_otf2_out_oom(w);
		}
	}
	uint32_t li = loc_of(w, s->track, k->lane);
	if (li == NONE)
		return w->rc;
	if (tf_grow((void **)&k->ends, &k->capends, k->depth + 1, sizeof(int64_t)) < 0)
		return tf_otf2_out_oom(w);
	int64_t end = s->end_ns == TF_SPAN_END_UNKNOWN ? INT64_MAX : s->end_ns;
	k->ends[k->depth] = k->depth && end > k->ends[k->depth - 1] ? k->ends[k->depth - 1] : end;
	k->depth++;
	uint32_t r = tf_otf2_out_named_ref(w, &w->regions, s->name);
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
	OTF2_ErrorCode e = OTF2_EvtWriter_Enter(l->ew, al, stamp(w, l, s->start_ns, s->name), r);
	return e == OTF2_SUCCESS ? w->rc : tf_otf2_out_fail(w, e, "an Enter event");
}

int tf_otf2_out_on_close(tf_span_sink *sk, const tf_span *s)
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
		OTF2_AttributeList_AddStringRef(al, AT_REPAIRED, tf_otf2_out_string_cstr(w, rep));
	}
	oloc *l = &w->loc[li];
	OTF2_ErrorCode e = OTF2_EvtWriter_Leave(l->ew, al, stamp(w, l, s->end_ns, s->name), tf_otf2_out_named_ref(w, &w->regions, s->name));
	if (e != OTF2_SUCCESS)
		return tf_otf2_out_fail(w, e, "a Leave event");
	if (k->depth)
		k->depth--;
	if (s->depth == 1)
		k->lane = 0;
	return drain(w, s->track, safe_until(k));
}

int tf_otf2_out_on_event(tf_span_sink *sk, const tf_event *ev, uint32_t node)
{
	tf_otf2_out *w = tf_container_of(sk, tf_otf2_out, spans);
	(void)node;
	if (w->rc)
		return w->rc;
	pend p = { .kind = ev->kind, .ts = ev->ts_ns };
	if (ev->kind == TF_EV_COUNTER) {
		p.value = ev->value;
		p.ref = tf_otf2_out_named_ref(w, &w->metrics, ev->name);
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
		return tf_otf2_out_oom(w);
	k->q[k->qhead + k->qn++] = p;
	return 0;
}

/* A track is done: its deferred events out, its event writers closed
 * (libotf2 writes their last chunk and frees them). */
int tf_otf2_out_on_end_track(tf_span_sink *sk, uint32_t track)
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
			return tf_otf2_out_fail(w, e, "an event file");
	}
	free(k->q);
	free(k->ends);
	tf_lanes_free(&k->lanes);
	k->q = NULL;
	k->ends = NULL;
	k->qhead = k->qn = k->capq = k->capends = 0;
	return 0;
}
