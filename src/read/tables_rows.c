/* tables_rows.c - the rows of the event tables back into events
 * (docs/format-tables.md): slices, counters, instants, samples, messages
 * and flows, each file row group by row group (tables.c opens them). */
#include <stdlib.h>
#include <string.h>
#include "tracefold/span.h"
#include "tables_int.h"
#include "sat.h"

/* Ends a file's rows: its reader closed; rc, or the read's error. */
static int done(tin_file *f, int rc)
{
	pq_rclose(f->r);
	return rc < 0 ? rc : 0;
}

static tf_event event_of(uint8_t kind, uint32_t track, int64_t ts)
{
	tf_event ev = { 0 };
	ev.kind = kind;
	ev.track = track;
	ev.ts_ns = ts;
	ev.msg = (tf_message){ -1, 0, 0, -1 };
	return ev;
}

/* ---- slices ---- */

/* The slices of a track that end together: written innermost first (at
 * their close), they go out outermost first (least depth, then in the
 * file's order: siblings close in the order they opened; without a depth
 * column, the reverse of the file's order), so that the stack builder,
 * which puts the first of two equal spans outside, nests them as they were. */
static int pend_cmp(const void *a, const void *b)
{
	const tin_pend *x = a, *y = b;
	if (x->depth != y->depth)
		return x->depth < y->depth ? -1 : 1;
	if (x->depth)
		return x->ev.index < y->ev.index ? -1 : x->ev.index > y->ev.index;
	return x->ev.index > y->ev.index ? -1 : x->ev.index < y->ev.index;
}

static int flush(tin *t, tin_tk *k)
{
	if (k->npend > 1)
		qsort(k->pend, k->npend, sizeof(tin_pend), pend_cmp);
	for (uint32_t i = 0; i < k->npend; i++) {
		tf_event ev = k->pend[i].ev;
		t->emitted++;
		TF_TRY(tf_emit(t->ctx, t->sink, &ev));
	}
	k->npend = 0;
	return 0;
}

int tin_flush_all(tin *t)
{
	for (uint32_t i = 0; i < t->ntracks; i++)
		TF_TRY(flush(t, &t->tracks[i]));
	return 0;
}

enum { S_TRACK, S_START, S_END, S_DUR, S_RAW, S_NAME, S_CAT, S_KIND, S_CORR, S_OP, S_ID, S_DEPTH, S_THREAD, S_RANK,
       S_CLIPPED, S_CUT, S_UNCLOSED, S_EARLY, S_NEG, S_N };
static const tin_col slice_cols[S_N] = {
	{ "track_id", true, -1 }, { "start_ns", true, -1 }, { "end_ns", true, S_DUR }, { "dur_ns", false, -1 },
	{ "raw_name", true, S_NAME }, { "name", false, -1 }, { "category", false, -1 }, { "kind", false, -1 },
	{ "correlation", false, -1 }, { "op", false, -1 }, { "slice_id", false, -1 }, { "depth", false, -1 },
	{ "thread", false, -1 }, { "rank", false, -1 }, { "clipped", false, -1 }, { "cut", false, -1 },
	{ "unclosed", false, -1 }, { "closed_early", false, -1 }, { "negative_duration", false, -1 },
};

_Static_assert(S_N <= TIN_MAXCOLS, "a tin_file binds every column of the slices");

/* The repairs the slice had (its span says them again). */
static uint16_t repairs_of(const tin_file *f)
{
	static const uint16_t flag[] = { TF_SPAN_CLIPPED, TF_SPAN_CUT, TF_SPAN_UNCLOSED, TF_SPAN_CLOSED_EARLY,
					 TF_SPAN_NEG_DURATION };
	uint16_t r = 0;
	for (int i = 0; i < 5; i++)
		if (tin_have(f, S_CLIPPED + i) && pq_rbool(f->r, f->col[S_CLIPPED + i]))
			r |= flag[i];
	return r;
}

static int slice_row(tin *t, tin_file *f)
{
	size_t tl = 0;
	const char *th = tin_have(f, S_THREAD) ? pq_rstr(f->r, f->col[S_THREAD], &tl) : NULL;
	uint32_t track;
	TF_TRY(tin_track(t, tin_i64(f, S_TRACK, 0), th, tl, tin_i64(f, S_RANK, f->dir_rank), &track));
	tf_event ev = event_of(TF_EV_COMPLETE, track, tin_i64(f, S_START, 0));
	int64_t end = tin_have(f, S_END) ? tin_i64(f, S_END, 0) : tf_sat_add(ev.ts_ns, tin_i64(f, S_DUR, 0));
	ev.dur_ns = tf_sat_sub(end, ev.ts_ns);
	ev.name = tin_str(t, f, f->col[S_RAW] >= 0 ? S_RAW : S_NAME);
	ev.cat = tin_str(t, f, S_CAT);
	ev.corr = (uint64_t)tin_i64(f, S_CORR, 0);
	ev.op = tin_str(t, f, S_OP);
	ev.repaired = repairs_of(f);
	size_t kl = 0;
	const char *k = tin_have(f, S_KIND) ? pq_rstr(f->r, f->col[S_KIND], &kl) : "";
	if (kl == 14 && !memcmp(k, "gpu_annotation", 14))
		ev.flags |= TF_EVF_GPU_LABEL;
	if (ev.name == (tf_str)-1 || ev.cat == (tf_str)-1 || ev.op == (tf_str)-1)
		return tf_error_set(t->err, TF_ENOMEM, t->path, -1, -1, "out of memory");
	/* its collective's facts, where the stack builder looks them up */
	uint32_t ci = tin_have(f, S_ID) ? tf_hmap_get(&t->coll_of, (uint64_t)tin_i64(f, S_ID, 0)) : UINT32_MAX;
	if (ci != UINT32_MAX) {
		tf_coll *c = tf_ctx_coll(t->ctx, true);
		if (!c || tf_coll_note(c, track, ev.ts_ns, ev.name, &t->colls[ci]) < 0)
			return tf_error_set(t->err, TF_ENOMEM, t->path, -1, -1, "out of memory");
	}
	uint32_t ki = tf_hmap_get(&t->track_of, (uint64_t)tin_i64(f, S_TRACK, 0));
	tin_tk *kt = &t->tracks[ki];
	if (kt->npend && kt->pend[0].end != end)
		TF_TRY(flush(t, kt));
	if (tf_grow((void **)&kt->pend, &kt->cap, kt->npend + 1, sizeof(tin_pend)) < 0)
		return tf_error_set(t->err, TF_ENOMEM, t->path, -1, -1, "out of memory");
	ev.index = t->index++;
	kt->pend[kt->npend++] = (tin_pend){ ev, end, (int32_t)tin_i64(f, S_DEPTH, 0) };
	return 0;
}

int tin_slices(tin *t, const char *file)
{
	tin_file f;
	TF_TRY(tin_open(t, file, "slices", slice_cols, S_N, &f));
	int rc;
	while ((rc = pq_rnext(f.r, t->err)) > 0)
		if ((rc = slice_row(t, &f)) < 0)
			break;
	return done(&f, rc);
}

/* ---- counters and instants ---- */

enum { C_TRACK, C_TS, C_NAME, C_VALUE, C_RANK, C_N };
static const tin_col counter_cols[C_N] = {
	{ "track_id", true, -1 }, { "ts_ns", true, -1 }, { "name", true, -1 }, { "value", true, -1 }, { "rank", false, -1 },
};

int tin_counters(tin *t, const char *file)
{
	tin_file f;
	TF_TRY(tin_open(t, file, "counters", counter_cols, C_N, &f));
	int rc;
	while ((rc = pq_rnext(f.r, t->err)) > 0) {
		uint32_t track;
		if ((rc = tin_track(t, tin_i64(&f, C_TRACK, 0), NULL, 0, tin_i64(&f, C_RANK, f.dir_rank), &track)) < 0)
			break;
		tf_event ev = event_of(TF_EV_COUNTER, track, tin_i64(&f, C_TS, 0));
		ev.name = tin_str(t, &f, C_NAME);
		ev.value = tin_have(&f, C_VALUE) ? pq_rf64(f.r, f.col[C_VALUE]) : 0;
		if ((rc = tin_emit(t, &ev)) < 0)
			break;
	}
	return done(&f, rc);
}

enum { I_TRACK, I_TS, I_NAME, I_CAT, I_VALUE, I_DEVICE, I_DTYPE, I_DINDEX, I_ADDR, I_RANK, I_N };
static const tin_col instant_cols[I_N] = {
	{ "track_id", true, -1 }, { "ts_ns", true, -1 }, { "name", false, -1 }, { "category", false, -1 },
	{ "value", false, -1 }, { "device", false, -1 }, { "device_type", false, -1 }, { "device_index", false, -1 },
	{ "address", false, -1 }, { "rank", false, -1 },
};

int tin_instants(tin *t, const char *file)
{
	tin_file f;
	TF_TRY(tin_open(t, file, "instants", instant_cols, I_N, &f));
	int rc;
	while ((rc = pq_rnext(f.r, t->err)) > 0) {
		uint32_t track;
		if ((rc = tin_track(t, tin_i64(&f, I_TRACK, 0), NULL, 0, tin_i64(&f, I_RANK, f.dir_rank), &track)) < 0)
			break;
		tf_event ev = event_of(TF_EV_INSTANT, track, tin_i64(&f, I_TS, 0));
		ev.name = tin_str(t, &f, I_NAME);
		ev.cat = tin_str(t, &f, I_CAT);
		if (tin_have(&f, I_VALUE)) { /* a memory event (docs/memory.md) */
			ev.flags |= TF_EVF_MEMORY;
			ev.value = pq_rf64(f.r, f.col[I_VALUE]);
			ev.mem_device = tin_str(t, &f, I_DEVICE);
			ev.mem_dev_type = (int32_t)tin_i64(&f, I_DTYPE, 0);
			ev.mem_dev_id = (int32_t)tin_i64(&f, I_DINDEX, -1);
			ev.mem_addr = (uint64_t)tin_i64(&f, I_ADDR, 0);
		}
		if ((rc = tin_emit(t, &ev)) < 0)
			break;
	}
	return done(&f, rc);
}

/* ---- samples ---- */

enum { X_TRACK, X_TS, X_PATH, X_COUNT, X_TYPE, X_UNIT, X_WEIGHT, X_FRAMES, X_RANK, X_N };
static const tin_col sample_cols[X_N] = {
	{ "track_id", true, -1 }, { "ts_ns", true, -1 }, { "call_path_id", false, -1 }, { "count", false, -1 },
	{ "weight_type", false, -1 }, { "weight_unit", false, -1 }, { "weight", false, -1 }, { "frames", false, -1 },
	{ "rank", false, -1 },
};

/* The sample's stack: the last `frames` frames of its call path (all of
 * them without the column), root first. */
static int sample_stack(tin *t, int64_t path, int64_t frames, uint32_t *out)
{
	uint32_t n = 0;
	for (uint32_t i; path >= 0 && (frames < 0 || n < frames); path = t->paths[i].parent) {
		if ((i = tf_hmap_get(&t->path_of, (uint64_t)path)) == UINT32_MAX)
			return tf_error_set(t->err, TF_EFORMAT, t->path, -1, (int64_t)t->index,
					    "a sample's call_path_id %lld is not in the call_paths table", (long long)path);
		if (n >= t->npaths) /* longer than there are call paths: a cycle */
			return tf_error_set(t->err, TF_EFORMAT, t->path, -1, (int64_t)t->index,
					    "the call_paths table's parent_id make a cycle at %lld", (long long)path);
		if (tf_grow((void **)&t->sbuf, &t->capsbuf, n + 1, sizeof(tf_str)) < 0)
			return tf_error_set(t->err, TF_ENOMEM, t->path, -1, -1, "out of memory");
		t->sbuf[n++] = t->paths[i].name;
	}
	tf_str *names = t->sbuf;
	uint32_t node = TF_CPATH_ROOT;
	while (n-- > 0 && node != (uint32_t)-1)
		node = tf_ctx_stack_child(t->ctx, node, names[n]);
	if (node == (uint32_t)-1)
		return tf_error_set(t->err, TF_ENOMEM, t->path, -1, -1, "out of memory");
	*out = node;
	return 0;
}

int tin_samples(tin *t, const char *file)
{
	tin_file f;
	TF_TRY(tin_open(t, file, "samples", sample_cols, X_N, &f));
	int rc;
	while ((rc = pq_rnext(f.r, t->err)) > 0) {
		uint32_t track, stack = TF_CPATH_ROOT;
		if ((rc = tin_track(t, tin_i64(&f, X_TRACK, 0), NULL, 0, tin_i64(&f, X_RANK, f.dir_rank), &track)) < 0 ||
		    (rc = sample_stack(t, tin_i64(&f, X_PATH, -1), tin_i64(&f, X_FRAMES, -1), &stack)) < 0)
			break;
		tf_event ev = event_of(TF_EV_SAMPLE, track, tin_i64(&f, X_TS, 0));
		ev.id = stack;
		ev.dur_ns = tin_i64(&f, X_COUNT, 1);
		ev.name = tin_str(t, &f, X_TYPE);
		ev.cat = ev.name ? tin_str(t, &f, X_UNIT) : 0;
		ev.value = tin_have(&f, X_WEIGHT) ? pq_rf64(f.r, f.col[X_WEIGHT]) : 0;
		if ((rc = tin_emit(t, &ev)) < 0)
			break;
	}
	return done(&f, rc);
}

/* ---- messages and flows: each row's two ends ---- */

enum { M_SRC_RANK, M_DST_RANK, M_SRC_TRACK, M_DST_TRACK, M_SEND, M_RECV, M_TAG, M_COMM, M_BYTES, M_N };
static const tin_col message_cols[M_N] = {
	{ "src_rank", false, -1 }, { "dst_rank", false, -1 }, { "src_track", true, -1 }, { "dst_track", true, -1 },
	{ "send_ts_ns", true, -1 }, { "recv_ts_ns", true, -1 }, { "tag", false, -1 }, { "communicator", false, -1 },
	{ "bytes", false, -1 },
};

static int message_end(tin *t, tin_file *f, bool send)
{
	if (!tin_have(f, send ? M_SRC_TRACK : M_DST_TRACK) || !tin_have(f, send ? M_SEND : M_RECV))
		return 0;
	uint32_t track;
	int64_t rank = tin_i64(f, send ? M_SRC_RANK : M_DST_RANK, -1);
	TF_TRY(tin_track(t, tin_i64(f, send ? M_SRC_TRACK : M_DST_TRACK, 0), NULL, 0, rank, &track));
	tf_event ev = event_of(send ? TF_EV_SEND : TF_EV_RECV, track, tin_i64(f, send ? M_SEND : M_RECV, 0));
	ev.msg = (tf_message){ tin_i64(f, send ? M_DST_RANK : M_SRC_RANK, -1), tin_i64(f, M_TAG, 0),
			       tin_i64(f, M_BYTES, -1), tin_i64(f, M_COMM, -1) };
	return tin_emit(t, &ev);
}

int tin_messages(tin *t, const char *file)
{
	tin_file f;
	TF_TRY(tin_open(t, file, "messages", message_cols, M_N, &f));
	int rc;
	while ((rc = pq_rnext(f.r, t->err)) > 0)
		if ((rc = message_end(t, &f, true)) < 0 || (rc = message_end(t, &f, false)) < 0)
			break;
	return done(&f, rc);
}

enum { F_ID, F_NAME, F_CAT, F_SRC_TRACK, F_DST_TRACK, F_SRC_TS, F_DST_TS, F_N };
static const tin_col flow_cols[F_N] = {
	{ "flow_id", true, -1 }, { "name", false, -1 }, { "category", false, -1 }, { "src_track", true, -1 },
	{ "dst_track", true, -1 }, { "src_ts_ns", true, -1 }, { "dst_ts_ns", true, -1 },
};

static int flow_end(tin *t, tin_file *f, bool start)
{
	if (!tin_have(f, start ? F_SRC_TRACK : F_DST_TRACK) || !tin_have(f, start ? F_SRC_TS : F_DST_TS))
		return 0;
	uint32_t track;
	TF_TRY(tin_track(t, tin_i64(f, start ? F_SRC_TRACK : F_DST_TRACK, 0), NULL, 0, -1, &track));
	tf_event ev = event_of(TF_EV_FLOW, track, tin_i64(f, start ? F_SRC_TS : F_DST_TS, 0));
	ev.phase = start ? 's' : 'f';
	ev.id = (uint64_t)tin_i64(f, F_ID, 0);
	ev.name = tin_str(t, f, F_NAME);
	ev.cat = tin_str(t, f, F_CAT);
	return tin_emit(t, &ev);
}

int tin_flows(tin *t, const char *file)
{
	tin_file f;
	TF_TRY(tin_open(t, file, "flows", flow_cols, F_N, &f));
	int rc;
	while ((rc = pq_rnext(f.r, t->err)) > 0)
		if ((rc = flow_end(t, &f, true)) < 0 || (rc = flow_end(t, &f, false)) < 0)
			break;
	return done(&f, rc);
}
