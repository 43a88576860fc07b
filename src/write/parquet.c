/* parquet.c - normalized event tables as Parquet files (docs/schema.md): a
 * span consumer that writes, in one streaming pass,
 *
 *   DIR/slices/     one row per matched region instance (at its close)
 *   DIR/counters/   counter samples, with the call path and slice open then
 *   DIR/instants/   instant events, likewise
 *   DIR/messages/   point-to-point messages, each send paired with its
 *                   receive (MPI order: first unmatched of the same ranks,
 *                   tag and communicator)
 *   DIR/flows/      flow events (Chrome s/t/f, Kineto's ac2g), start paired
 *                   with finish by id, with the slices they sit in
 *   DIR/tracks/     one row per track (written at the end)
 *   DIR/call_paths/ one row per call path (written at the end)
 *   DIR/collectives/ one row per collective call per rank (MPI, NCCL,
 *                   gloo: docs/collectives.md); only in runs that have
 *                   some (parquet_coll.c)
 *   DIR/collective_slices/ the collective facts of each slice that is or
 *                   is in one (what the tables reader notes back)
 *   DIR/samples/    one row per sampled stack (perf, Chrome CPU profiles),
 *                   with its call path and the slice open then
 *                   (parquet_samples.c)
 *
 * each as DIR/<table>/part-0.parquet, or DIR/<table>/rank=N/part-0.parquet
 * with --partition rank (and .../rank=N/step=S/ or time=T/ below it:
 * parquet_lake.c, which also writes a lake run's runs table).  Files go through pq (src/parquet/pq.c): one row group
 * buffered at a time, a temporary file renamed on success.  Memory: the
 * open slices of each track, the unmatched messages and flows, and one row
 * group per open file. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "sat.h"
#include "tracefold/outdir.h"
#include "tracefold/writer.h"
#include "tracefold/sink.h"
#include "tracefold/version.h"
#include "tracefold/coll.h"
#include "hmap.h"
#include "pq.h"
#include "pair.h"
#include "parquet_int.h"

static const char *const table_name[NTABLES + 1] = {
	"slices", "counters", "instants", "messages", "flows", "tracks", "call_paths", "collectives", "samples", "collective_slices", NULL,
};

/* column tables: name, type, nullable, dict, delta */
enum { S_ID, S_TRACK, S_RANK, S_THREAD, S_START, S_END, S_DUR, S_SELF, S_DEPTH, S_NAME, S_RAW, S_CAT, S_PATH, S_PARENT,
       S_CLIPPED, S_CUT, S_UNCLOSED, S_EARLY, S_NEG, S_LIMITED, S_KIND, S_CORR, S_OP, S_N };
static const pq_col slices_cols[S_N] = {
	{ "slice_id", PQ_INT64, false, false, true, false },
	{ "track_id", PQ_INT64, false, false, false, false },
	{ "rank", PQ_INT64, true, false, false, false },
	{ "thread", PQ_STRING, false, true, false, false },
	{ "start_ns", PQ_INT64, false, false, false, false },
	{ "end_ns", PQ_INT64, false, false, false, false },
	{ "dur_ns", PQ_INT64, false, false, false, false },
	{ "self_ns", PQ_INT64, false, false, false, false },
	{ "depth", PQ_INT32, false, false, false, false },
	{ "name", PQ_STRING, false, true, false, false },
	{ "raw_name", PQ_STRING, false, true, false, false },
	{ "category", PQ_STRING, true, true, false, false },
	{ "call_path_id", PQ_INT64, false, false, false, false },
	{ "parent_slice_id", PQ_INT64, true, false, false, false },
	{ "clipped", PQ_BOOL, false, false, false, false },
	{ "cut", PQ_BOOL, false, false, false, false },
	{ "unclosed", PQ_BOOL, false, false, false, false },
	{ "closed_early", PQ_BOOL, false, false, false, false },
	{ "negative_duration", PQ_BOOL, false, false, false, false },
	{ "depth_limited", PQ_BOOL, false, false, false, false },
	{ "kind", PQ_STRING, false, true, false, false },
	{ "correlation", PQ_INT64, true, false, false, false },
	{ "op", PQ_STRING, true, true, false, false },
};
enum { C_TRACK, C_RANK, C_TS, C_NAME, C_VALUE, C_PATH, C_SLICE, C_N };
static const pq_col counters_cols[C_N] = {
	{ "track_id", PQ_INT64, false, false, false, false },
	{ "rank", PQ_INT64, true, false, false, false },
	{ "ts_ns", PQ_INT64, false, false, true, false },
	{ "name", PQ_STRING, false, true, false, false },
	{ "value", PQ_DOUBLE, false, false, false, false },
	{ "call_path_id", PQ_INT64, true, false, false, false },
	{ "slice_id", PQ_INT64, true, false, false, false },
};
enum { I_TRACK, I_RANK, I_TS, I_NAME, I_CAT, I_PATH, I_SLICE, I_VALUE, I_DEVICE, I_DTYPE, I_DINDEX, I_ADDR, I_N };
static const pq_col instants_cols[I_N] = {
	{ "track_id", PQ_INT64, false, false, false, false },
	{ "rank", PQ_INT64, true, false, false, false },
	{ "ts_ns", PQ_INT64, false, false, true, false },
	{ "name", PQ_STRING, true, true, false, false },
	{ "category", PQ_STRING, true, true, false, false },
	{ "call_path_id", PQ_INT64, true, false, false, false },
	{ "slice_id", PQ_INT64, true, false, false, false },
	{ "value", PQ_DOUBLE, true, false, false, false },
	{ "device", PQ_STRING, true, true, false, false },
	{ "device_type", PQ_INT32, true, false, false, false },
	{ "device_index", PQ_INT32, true, false, false, false },
	{ "address", PQ_INT64, true, false, false, false },
};
enum { K_TRACK, K_INPUT, K_PKEY, K_PNAME, K_TKEY, K_TNAME, K_RANK, K_KIND, K_INPLACE, K_SORT, K_N };
static const pq_col tracks_cols[K_N] = {
	{ "track_id", PQ_INT64, false, false, false, false },
	{ "input", PQ_STRING, false, true, false, false },
	{ "process_key", PQ_STRING, false, true, false, false },
	{ "process_name", PQ_STRING, true, true, false, false },
	{ "thread_key", PQ_STRING, false, false, false, false },
	{ "thread_name", PQ_STRING, true, true, false, false },
	{ "rank", PQ_INT64, true, false, false, false },
	{ "kind", PQ_STRING, false, true, false, false },
	{ "gpu_in_place", PQ_BOOL, false, false, false, false },
	{ "sort_index", PQ_INT64, false, false, false, false },
};
enum { P_ID, P_PARENT, P_NAME, P_DEPTH, P_N };
static const pq_col paths_cols[P_N] = {
	{ "call_path_id", PQ_INT64, false, false, true, false },
	{ "parent_id", PQ_INT64, true, false, false, false },
	{ "name", PQ_STRING, false, true, false, false },
	{ "depth", PQ_INT32, false, false, false, false },
};
static const struct { const pq_col *cols; int n; bool by_rank; } table_cols[NTABLES] = {
	{ slices_cols, S_N, true }, { counters_cols, C_N, true }, { instants_cols, I_N, true },
	{ tf_pq_messages_cols, TF_PQ_MESSAGES_NCOLS, true }, { tf_pq_flows_cols, TF_PQ_FLOWS_NCOLS, true }, { tracks_cols, K_N, true },
	{ paths_cols, P_N, false }, { tf_pq_coll_cols, TF_PQ_COLL_NCOLS, true }, { tf_pq_samples_cols, TF_PQ_SAMPLES_NCOLS, true },
	{ tf_pq_csl_cols, TF_PQ_CSL_NCOLS, true },
};

/* Its options (tf_writer_opt): zeroed for the defaults. */
typedef struct parquet_conf {
	pq_partition part; /* --partition (first: parquet_int.h) */
	bool codec_set; /* --compression given: codec; else zstd */
	int codec;
} parquet_conf;

/* ---- files ---- */

static int mkdirs(const char *path)
{
	char p[4096];
	snprintf(p, sizeof(p), "%s", path);
	for (char *s = p + 1; *s; s++)
		if (*s == '/') {
			*s = 0;
			if (mkdir(p, 0777) < 0 && errno != EEXIST)
				return -1;
			*s = '/';
		}
	return mkdir(p, 0777) < 0 && errno != EEXIST ? -1 : 0;
}

int64_t pqw_rank(tf_events *w, uint32_t track)
{
	const tf_track *t = tf_ctx_track_get(w->ctx, track);
	return t ? t->rank : -1;
}

/* A Parquet file's error names its path in the temporary folder: say
 * the output's instead ("cannot write 'OUT/slices/part-0.parquet'"). */
static void name_out(const tf_events *w, tf_error *e)
{
	size_t n = strlen(w->dir);
	char *at = n ? strstr(e->msg, w->dir) : NULL;
	if (!at || !strcmp(w->dir, w->out))
		return;
	char msg[sizeof(e->msg)];
	snprintf(msg, sizeof(msg), "%.*s%s%s", (int)(at - e->msg), e->msg, w->out, at + n);
	memcpy(e->msg, msg, sizeof(msg));
}

pq_file *pqw_file(tf_events *w, int t, int64_t rank)
{
	return pqw_file_at(w, t, rank, UINT32_MAX, INT64_MIN);
}

/* The file of table t for rows of that rank, and of the step or time of
 * ts on track (opened on first use).  Tables with a rank have the step or
 * time folders too (not call_paths, tracks: no time). */
pq_file *pqw_file_at(tf_events *w, int t, int64_t rank, uint32_t track, int64_t ts)
{
	if (w->rc < 0)
		return NULL;
	table *tb = &w->tab[t];
	int64_t part = w->by_rank && table_cols[t].by_rank ? (rank < 0 ? -1 : rank) : INT64_MIN;
	if (ts != INT64_MIN)
		pqw_span(w, ts);
	bool has_sub = w->sub != PQ_SUB_NONE && part != INT64_MIN && t != T_TRACKS;
	int64_t sub = has_sub ? (ts == INT64_MIN ? -1 : tf_pq_sub(w, track, ts)) : INT64_MIN;
	uint32_t ri = tf_pq_dense(&w->rank_ix, &w->nrank_ix, part), si = tf_pq_dense(&w->sub_ix, &w->nsub_ix, sub);
	if (ri == UINT32_MAX || si == UINT32_MAX) {
		w->rc = tf_error_set(&w->err, TF_ENOMEM, NULL, -1, -1, "out of memory");
		tf_ctx_fail(w->ctx, &w->err);
		return NULL;
	}
	uint64_t key = (uint64_t)ri << 32 | si;
	uint32_t i = tf_hmap_get(&tb->by_rank, key);
	if (i != UINT32_MAX)
		return tb->files[i].f;
	char dir[4200], path[4300];
	if (part == INT64_MIN)
		snprintf(dir, sizeof(dir), "%s/%s", w->dir, table_name[t]);
	else if (!has_sub)
		snprintf(dir, sizeof(dir), "%s/%s/rank=%" PRId64, w->dir, table_name[t], part);
	else
		snprintf(dir, sizeof(dir), "%s/%s/rank=%" PRId64 "/%s=%" PRId64, w->dir, table_name[t], part,
			 w->sub == PQ_SUB_STEP ? "step" : "time", sub);
	snprintf(path, sizeof(path), "%s/part-%d.parquet", dir, w->part);
	if (mkdirs(dir) < 0) {
		w->rc = tf_error_set(&w->err, TF_EIO, NULL, -1, -1, "cannot write '%s': cannot create the folder '%s': %s",
				     w->out, dir + strlen(w->dir) + 1, strerror(errno));
		w->err.sys_errno = 0; /* said */
		tf_ctx_fail(w->ctx, &w->err); /* under the read: the run names the output */
		return NULL;
	}
	pq_file *f;
	int rc = pq_open(&f, path, table_cols[t].cols, table_cols[t].n, &w->po, &w->err);
	if (rc < 0 || tf_grow((void **)&tb->files, &tb->capfiles, tb->nfiles + 1, sizeof(tfile)) < 0 ||
	    tf_hmap_put(&tb->by_rank, key, tb->nfiles) < 0) {
		if (rc >= 0)
			pq_abort(f);
		w->rc = rc < 0 ? rc : tf_error_set(&w->err, TF_ENOMEM, NULL, -1, -1, "out of memory");
		name_out(w, &w->err);
		tf_ctx_fail(w->ctx, &w->err);
		return NULL;
	}
	tb->files[tb->nfiles++] = (tfile){ f, part };
	return f;
}

void pqw_str(pq_file *f, int col, tf_str s, tf_strtab *st, bool nullable)
{
	if (!s && nullable) {
		pq_null(f, col);
		return;
	}
	pq_str(f, col, tf_strtab_get(st, s), tf_strtab_len(st, s));
}

void pqw_opt(pq_file *f, int col, int64_t v, bool have)
{
	if (have)
		pq_i64(f, col, v);
	else
		pq_null(f, col);
}

int pqw_end_row(tf_events *w, pq_file *f)
{
	int rc = pq_end_row(f);
	if (rc < 0 && w->rc == 0) { /* the file's own error names it and says why */
		if (pq_error(f))
			w->err = *pq_error(f);
		else
			tf_error_set(&w->err, rc, NULL, -1, -1, "cannot write '%s': %s", w->out, tf_strerror(rc));
		name_out(w, &w->err);
		w->rc = rc;
		tf_ctx_fail(w->ctx, &w->err);
	}
	return w->rc;
}

/* ---- spans ---- */

trackst *pqw_track(tf_events *w, uint32_t track)
{
	if (track >= w->ntk) {
		uint32_t n = w->ntk;
		if (tf_grow((void **)&w->tk, &w->ntk, track + 1, sizeof(trackst)) < 0)
			return NULL;
		memset(w->tk + n, 0, (size_t)(w->ntk - n) * sizeof(trackst));
	}
	w->tk[track].seen = true;
	return &w->tk[track];
}

static int on_open(tf_span_sink *k, const tf_span *s)
{
	tf_events *w = tf_container_of(k, tf_events, spans);
	trackst *t = pqw_track(w, s->track);
	if (!t || tf_grow((void **)&t->open, &t->cap, t->depth + 1, sizeof(int64_t)) < 0)
		return TF_ENOMEM;
	t->open[t->depth++] = w->next_slice++;
	if (tf_coll_spans_open(w->cspans, s) < 0 || tf_pq_coll_open(w, s) < 0)
		return TF_ENOMEM;
	/* a stream's activity closes before the flow events at its start come */
	if (s->kind == TF_SPAN_KIND_GPU && s->depth == 1 &&
	    tf_gpu_recent_add(&t->gpu, s->start_ns, s->end_ns, s->corr, t->open[t->depth - 1]) < 0)
		return TF_ENOMEM;
	return w->rc;
}

/* The collective call slice id is, or is in (parquet_coll.c). */
static int write_coll(tf_events *w, const tf_span *s, int64_t id)
{
	uint32_t rec;
	if (tf_coll_spans_close(w->cspans, s, &rec) < 0)
		return TF_ENOMEM;
	int rc = tf_pq_coll_close(w, s, id, rec);
	if (rc == 0 && rec)
		rc = tf_pq_coll_slice(w, s, id, rec);
	return rc < 0 ? rc : w->rc;
}

static int on_end_input(tf_span_sink *k, uint32_t input)
{
	tf_events *w = tf_container_of(k, tf_events, spans);
	int rc = tf_pq_coll_end_input(w, input);
	return rc < 0 ? rc : w->rc;
}

static int on_close(tf_span_sink *k, const tf_span *s)
{
	tf_events *w = tf_container_of(k, tf_events, spans);
	trackst *t = &w->tk[s->track];
	int64_t id = t->open[--t->depth];
	int64_t rank = pqw_rank(w, s->track);
	pq_file *f = pqw_file_at(w, T_SLICES, rank, s->track, s->start_ns);
	if (!f)
		return w->rc;
	w->nslices++;
	pqw_span(w, s->end_ns);
	const tf_track *tr = tf_ctx_track_get(w->ctx, s->track);
	pq_i64(f, S_ID, id);
	pq_i64(f, S_TRACK, tid(w, s->track));
	pqw_opt(f, S_RANK, rank, rank >= 0);
	pqw_str(f, S_THREAD, tr->thread_name ? tr->thread_name : tr->thread_key, w->st, false);
	pq_i64(f, S_START, s->start_ns);
	pq_i64(f, S_END, s->end_ns);
	pq_i64(f, S_DUR, tf_sat_sub(s->end_ns, s->start_ns));
	pq_i64(f, S_SELF, s->self_ns);
	pq_i32(f, S_DEPTH, (int32_t)s->depth);
	/* the frame of its call path (stable names), and the text it had */
	tf_str frame = tf_ctx_frame_name(w->ctx, s->name);
	if (frame == (tf_str)-1)
		return TF_ENOMEM;
	pqw_str(f, S_NAME, frame, w->st, false);
	pqw_str(f, S_RAW, s->name, w->st, false);
	pqw_str(f, S_CAT, s->cat, w->st, true);
	pq_i64(f, S_PATH, cid(w, s->node));
	pqw_opt(f, S_PARENT, t->depth ? t->open[t->depth - 1] : 0, t->depth > 0);
	pq_bool(f, S_CLIPPED, s->flags & TF_SPAN_CLIPPED);
	pq_bool(f, S_CUT, s->flags & TF_SPAN_CUT);
	pq_bool(f, S_UNCLOSED, s->flags & TF_SPAN_UNCLOSED);
	pq_bool(f, S_EARLY, s->flags & TF_SPAN_CLOSED_EARLY);
	pq_bool(f, S_NEG, s->flags & TF_SPAN_NEG_DURATION);
	pq_bool(f, S_LIMITED, s->flags & TF_SPAN_DEPTH_LIMITED);
	/* what its time is: a GPU annotation's range holds activities, so a
	 * GPU track's sum(dur_ns) is over kind 'gpu' (docs/schema.md) */
	static const char *const kinds[] = { "cpu", "gpu", "gpu_annotation" };
	const char *kn = kinds[s->kind <= TF_SPAN_KIND_GPU_LABEL ? s->kind : 0];
	pq_str(f, S_KIND, kn, strlen(kn));
	/* what a re-read needs to put a GPU activity under its launch (format-tables.md) */
	pqw_opt(f, S_CORR, (int64_t)s->corr, s->corr != 0);
	pqw_str(f, S_OP, s->op, w->st, true);
	if (pqw_end_row(w, f) < 0)
		return w->rc;
	return write_coll(w, s, id);
}

/* ---- messages and flows: pairing ---- */

/* A memory event's bytes, device and block (TF_EVF_MEMORY); nulls for
 * other instants.  Ends the row. */
static int write_memory(tf_events *w, pq_file *f, const tf_event *ev)
{
	bool mem = ev->flags & TF_EVF_MEMORY;
	if (mem)
		pq_f64(f, I_VALUE, ev->value);
	else
		pq_null(f, I_VALUE);
	pqw_str(f, I_DEVICE, mem ? ev->mem_device : 0, w->st, true);
	if (mem && ev->mem_dev_type) {
		pq_i32(f, I_DTYPE, ev->mem_dev_type);
		pq_i32(f, I_DINDEX, ev->mem_dev_id);
	} else {
		pq_null(f, I_DTYPE);
		pq_null(f, I_DINDEX);
	}
	pqw_opt(f, I_ADDR, (int64_t)ev->mem_addr, mem && ev->mem_addr);
	return pqw_end_row(w, f);
}

/* What pairing returned, its failure said (the log's file: pair.h). */
static int pair_rc(tf_events *w, int rc)
{
	if (!w->pairs_warned && tf_pairs_no_file(&w->pairs)) {
		const tf_read_opts *o = tf_ctx_opts(w->ctx);
		tf_ctx_warn(w->ctx, "cannot make a temporary file in %s (%s): the flows stay in memory",
			    o->tmp_dir && *o->tmp_dir ? o->tmp_dir : "/tmp", strerror(errno));
		w->pairs_warned = true;
	}
	if (rc >= 0 || w->rc < 0)
		return rc < 0 ? rc : w->rc;
	const tf_error *e = rc == TF_EIO ? tf_pairs_error(&w->pairs) : NULL;
	if (e)
		w->err = *e;
	else
		tf_error_set(&w->err, rc, NULL, -1, -1, "cannot write '%s': %s", w->out, tf_strerror(rc));
	w->rc = rc;
	tf_ctx_fail(w->ctx, &w->err);
	return rc;
}

static int on_event(tf_span_sink *k, const tf_event *ev, uint32_t node)
{
	tf_events *w = tf_container_of(k, tf_events, spans);
	if (w->rc < 0)
		return w->rc;
	trackst *t = pqw_track(w, ev->track);
	if (!t)
		return TF_ENOMEM;
	int64_t slice = t->depth ? t->open[t->depth - 1] : -1;
	int64_t rank = pqw_rank(w, ev->track);
	pq_file *f;
	switch (ev->kind) {
	case TF_EV_COUNTER:
		if (!(f = pqw_file_at(w, T_COUNTERS, rank, ev->track, ev->ts_ns)))
			return w->rc;
		pq_i64(f, C_TRACK, tid(w, ev->track));
		pqw_opt(f, C_RANK, rank, rank >= 0);
		pq_i64(f, C_TS, ev->ts_ns);
		pqw_str(f, C_NAME, ev->name, w->st, false);
		pq_f64(f, C_VALUE, ev->value);
		pqw_opt(f, C_PATH, cid(w, node), node != TF_CPATH_ROOT);
		pqw_opt(f, C_SLICE, slice, slice >= 0);
		return pqw_end_row(w, f);
	case TF_EV_INSTANT:
		if (!(f = pqw_file_at(w, T_INSTANTS, rank, ev->track, ev->ts_ns)))
			return w->rc;
		pq_i64(f, I_TRACK, tid(w, ev->track));
		pqw_opt(f, I_RANK, rank, rank >= 0);
		pq_i64(f, I_TS, ev->ts_ns);
		pqw_str(f, I_NAME, ev->name, w->st, true);
		pqw_str(f, I_CAT, ev->cat, w->st, true);
		pqw_opt(f, I_PATH, cid(w, node), node != TF_CPATH_ROOT);
		pqw_opt(f, I_SLICE, slice, slice >= 0);
		return write_memory(w, f, ev);
	case TF_EV_SEND:
	case TF_EV_RECV:
	case TF_EV_FLOW: {
		const tf_track *tr = tf_ctx_track_get(w->ctx, ev->track);
		if (slice < 0 && ev->kind == TF_EV_FLOW) /* on a GPU stream: the activity it ends on */
			slice = tf_gpu_recent_find(&t->gpu, ev->ts_ns, ev->id);
		return pair_rc(w, tf_pair_event(&w->pairs, ev, rank, tr ? tr->input : 0, slice, tf_pq_message_pair,
						 tf_pq_flow_pair, w));
	}
	case TF_EV_SAMPLE:
		return tf_pq_write_sample(w, ev, node, slice);
	default:
		return 0;
	}
}

/* ---- the end: tracks, call paths, what never met its partner ---- */

static int write_tracks(tf_events *w)
{
	uint32_t n = tf_ctx_track_count(w->ctx);
	for (uint32_t i = 0; i < n; i++) {
		const tf_track *t = tf_ctx_track_get(w->ctx, i);
		if (w->distributed && (i >= w->ntk || !w->tk[i].seen))
			continue; /* another process's (its definitions are everywhere) */
		pq_file *f = pqw_file(w, T_TRACKS, t->rank);
		if (!f)
			return w->rc;
		/* a track of the k-th input of a tables input (src/read/tables.c):
		 * that input's path, then #k, so that a second read keeps them apart */
		uint32_t in_ix = t->input % TF_TRACK_INPUT_STRIDE, in_k = t->input / TF_TRACK_INPUT_STRIDE;
		char inb[4200];
		const char *in = (int)in_ix < w->ninputs ? w->inputs[in_ix] : "";
		if (in_k) {
			snprintf(inb, sizeof(inb), "%s#%u", in, in_k);
			in = inb;
		}
		pq_i64(f, K_TRACK, tid(w, i));
		pq_str(f, K_INPUT, in, strlen(in));
		pqw_str(f, K_PKEY, t->process_key, w->st, false);
		pqw_str(f, K_PNAME, t->process_name, w->st, true);
		pqw_str(f, K_TKEY, t->thread_key, w->st, false);
		pqw_str(f, K_TNAME, t->thread_name, w->st, true);
		pqw_opt(f, K_RANK, t->rank, t->rank >= 0);
		pq_str(f, K_KIND, t->kind == TF_TRACK_GPU ? "gpu" : "cpu", 3);
		pq_bool(f, K_INPLACE, t->gpu_in_place);
		pq_i64(f, K_SORT, t->sort_index);
		TF_TRY(pqw_end_row(w, f));
	}
	return 0;
}

static int write_call_paths(tf_events *w)
{
	uint32_t n = tf_cpath_count(w->cp);
	pq_file *f = pqw_file(w, T_CALL_PATHS, -1);
	if (!f)
		return w->rc;
	for (uint32_t i = 1; i < n; i++) {
		const tf_cpath_node *c = tf_cpath_get(w->cp, i);
		pq_i64(f, P_ID, cid(w, i));
		pqw_opt(f, P_PARENT, cid(w, c->parent), c->parent != TF_CPATH_ROOT);
		pqw_str(f, P_NAME, c->frame, w->st, false);
		pq_i32(f, P_DEPTH, (int32_t)c->depth);
		TF_TRY(pqw_end_row(w, f));
	}
	return 0;
}

static int write_unmatched(tf_events *w)
{
	for (uint32_t i = 0; i < w->pairs.sends.n; i++)
		if (!w->pairs.sends.v[i].used)
			TF_TRY(tf_pq_message_pair(w, &w->pairs.sends.v[i], NULL));
	for (uint32_t i = 0; i < w->pairs.recvs.n; i++)
		if (!w->pairs.recvs.v[i].used)
			TF_TRY(tf_pq_message_pair(w, NULL, &w->pairs.recvs.v[i]));
	for (uint32_t i = 0; i < w->pairs.starts.n; i++)
		if (!w->pairs.starts.v[i].used)
			TF_TRY(tf_pq_flow_pair(w, &w->pairs.starts.v[i], NULL));
	for (uint32_t i = 0; i < w->pairs.ends.n; i++)
		if (!w->pairs.ends.v[i].used)
			TF_TRY(tf_pq_flow_pair(w, NULL, &w->pairs.ends.v[i]));
	/* the flows set aside, in the order they would have come (pair.h) */
	return pair_rc(w, tf_pairs_flush_flows(&w->pairs, tf_pq_flow_pair, w));
}

static void events_free(tf_events *w, bool abort)
{
	if (!w)
		return;
	for (int t = 0; t < NTABLES; t++) {
		for (uint32_t i = 0; i < w->tab[t].nfiles; i++)
			if (abort)
				pq_abort(w->tab[t].files[i].f);
		free(w->tab[t].files);
		tf_hmap_free(&w->tab[t].by_rank);
	}
	tf_hmap_free(&w->rank_ix);
	tf_hmap_free(&w->sub_ix);
	for (uint32_t i = 0; i < w->ntk; i++) {
		free(w->tk[i].open);
		tf_gpu_recent_free(&w->tk[i].gpu);
	}
	free(w->tk);
	tf_pairs_free(&w->pairs);
	tf_coll_spans_free(w->cspans);
	tf_pq_coll_free(w->coll);
	tf_sample_paths_free(w->spaths);
	free(w);
}

/* "part-N.parquet" (N a number), or the temporary ".part-N.parquet.XXXXXX"
 * of a run that was killed. */
static bool part_name(const char *f)
{
	int n = -1, used = 0;
	bool hidden = f[0] == '.';
	f += hidden;
	if (sscanf(f, "part-%d.parquet%n", &n, &used) != 1 || n < 0 || f[0] != 'p')
		return false;
	return hidden ? f[used] == '.' && strlen(f + used) == 7 : !f[used];
}

/* What the event tables are (outdir.h): DIR/<table>/part-N.parquet and
 * DIR/<table>/rank=R/part-N.parquet. */
static bool tables_ours(const char *rel, bool is_dir)
{
	const char *s1 = strchr(rel, '/');
	size_t tl = s1 ? (size_t)(s1 - rel) : strlen(rel);
	int t = 0;
	while (t < NTABLES && (strlen(table_name[t]) != tl || strncmp(rel, table_name[t], tl)))
		t++;
	if (t == NTABLES)
		return false;
	if (!s1)
		return is_dir;
	const char *s2 = strchr(s1 + 1, '/');
	long long r;
	int used = 0;
	bool rank_dir = sscanf(s1 + 1, "rank=%lld%n", &r, &used) == 1 && (s1 + 1)[used] == (s2 ? '/' : '\0');
	if (!s2)
		return is_dir ? rank_dir : part_name(s1 + 1);
	if (!rank_dir)
		return false;
	/* rank=R/step=S or rank=R/time=T (--partition rank,step | rank,time=W) */
	const char *s3 = strchr(s2 + 1, '/');
	used = 0;
	bool sub_dir = (sscanf(s2 + 1, "step=%lld%n", &r, &used) == 1 || sscanf(s2 + 1, "time=%lld%n", &r, &used) == 1) &&
		       (s2 + 1)[used] == (s3 ? '/' : '\0');
	if (sub_dir)
		return !s3 ? is_dir : !is_dir && !strchr(s3 + 1, '/') && part_name(s3 + 1);
	return !is_dir && !s3 && part_name(s2 + 1);
}

static const tf_dir_kind tables_kind = {
	.what = "Parquet event tables",
	.names = table_name,
	.ours = tables_ours,
};

static int events_finish(void *state, tf_error *err)
{
	tf_events *w = state;
	int rc = w->rc;
	if (rc == 0)
		rc = write_unmatched(w);
	if (rc == 0 && (rc = tf_pq_coll_end_input(w, UINT32_MAX)) == 0)
		rc = w->rc;
	if (rc == 0)
		rc = write_tracks(w);
	if (rc == 0)
		rc = write_call_paths(w);
	/* every table exists, even with no rows; collectives only in runs with some
	 * (a run whose traces note collectives, or one that wrote a call) */
	for (int t = 0; t < NTABLES && rc == 0; t++)
		if (!w->tab[t].nfiles && ((t != T_COLL && t != T_COLL_SLICES) || tf_ctx_coll(w->ctx, false)) && !pqw_file(w, t, -1))
			rc = w->rc;
	if (rc < 0) {
		if (err)
			*err = w->err;
		events_free(w, true);
		return rc;
	}
	/* trace-level metadata in every file */
	char diag[4096], ins[4096] = "", fmts[1024] = "", ver[64];
	tf_diag_format(tf_ctx_diag(w->ctx), TF_SEV_INFO, ", ", 0, diag, sizeof(diag));
	for (int i = 0; i < w->ninputs; i++) {
		snprintf(ins + strlen(ins), sizeof(ins) - strlen(ins), "%s%s", i ? "\n" : "", w->inputs[i]);
		snprintf(fmts + strlen(fmts), sizeof(fmts) - strlen(fmts), "%s%s", i ? "\n" : "",
			 w->input_formats && w->input_formats[i] ? w->input_formats[i] : "?");
	}
	snprintf(ver, sizeof(ver), "%s", TRACEFOLD_VERSION);
	if (w->run && (rc = tf_pq_write_run(w, w->po.created_by)) < 0 && err)
		*err = w->err;
	for (int t = 0; t < NTABLES; t++)
		for (uint32_t i = 0; i < w->tab[t].nfiles; i++) {
			pq_file *f = w->tab[t].files[i].f;
			w->tab[t].files[i].f = NULL;
			int r = pq_kv(f, "tracefold.version", ver);
			if (r == 0)
				r = pq_kv(f, "tracefold.inputs", ins);
			if (r == 0)
				r = pq_kv(f, "tracefold.diagnostics", diag);
			if (r == 0)
				r = pq_kv(f, "tracefold.input_formats", fmts);
			if (r == 0)
				r = pq_kv(f, "tracefold.time_unit", "nanoseconds");
			if (r == 0)
				r = pq_kv(f, "tracefold.clock", "each input's own time base, in ns: Chrome ts x 1000, "
					 "TAU's microsecond clock x 1000, OTF2 ticks / timer resolution (docs/schema.md)");
			if (r < 0) {
				pq_abort(f);
				if (rc == 0)
					rc = tf_error_set(err, r, NULL, -1, -1, "out of memory");
				continue;
			}
			r = pq_close(f, rc == 0 ? err : NULL);
			if (r < 0 && rc == 0 && err)
				name_out(w, err);
			if (r < 0 && rc == 0)
				rc = r;
		}
	w->rc = rc;
	events_free(w, false);
	return rc;
}

static void events_abort(void *state)
{
	events_free(state, true);
}

static int events_open(const tf_writer_args *a, const char *path, tf_span_sink **sink_out, void **state_out,
		       tf_error *err)
{
	tf_events *w = calloc(1, sizeof(*w));
	if (w && !(w->cspans = tf_coll_spans_new(a->ctx))) {
		free(w);
		w = NULL;
	}
	if (!w)
		return tf_error_set(err, TF_ENOMEM, NULL, -1, -1, "out of memory");
	w->ctx = a->ctx;
	w->cp = a->cp;
	w->st = tf_ctx_strtab(a->ctx);
	w->inputs = a->inputs;
	w->input_formats = a->input_formats;
	w->ninputs = a->ninputs;
	const parquet_conf *conf = a->conf;
	w->by_rank = (conf && conf->part.by_rank) || a->run;
	w->sub = conf ? conf->part.sub : PQ_SUB_NONE;
	w->width_ns = conf ? conf->part.width_ns : 0;
	w->steps = a->steps;
	w->nsteps = a->nsteps;
	w->run = a->run;
	w->cmdline = a->cmdline;
	w->first_ns = INT64_MAX;
	w->last_ns = INT64_MIN;
	w->part = a->part;
	w->nparts = a->nparts;
	w->distributed = a->nparts > 1;
	w->id_base = w->distributed ? (int64_t)a->part << 40 : 0;
	w->next_slice = w->id_base;
	snprintf(w->dir, sizeof(w->dir), "%s", a->dir ? a->dir : path);
	w->out = path;
	w->po.created_by = "tracefold " TRACEFOLD_VERSION;
	w->po.codec = conf && conf->codec_set ? conf->codec : PQ_ZSTD;
	if (mkdirs(w->dir) < 0) {
		events_free(w, false); /* its collective spans too */
		return tf_error_set(err, TF_EIO, NULL, -1, -1, "cannot write '%s': cannot create the folder", path);
	}
	/* flows waiting past half of --sort-mem go to a temporary file */
	const tf_read_opts *ro = tf_ctx_opts(a->ctx);
	if (tf_pairs_aside(&w->pairs, tf_sort_mem_half(ro), ro->tmp_dir) < 0) {
		events_free(w, false);
		return tf_error_set(err, TF_ENOMEM, NULL, -1, -1, "out of memory");
	}
	w->spans = (tf_span_sink){ .open = on_open, .close = on_close, .event = on_event, .end_input = on_end_input,
				   .event_kinds = (1u << TF_EV_COUNTER) | (1u << TF_EV_INSTANT) | (1u << TF_EV_SEND) |
						  (1u << TF_EV_RECV) | (1u << TF_EV_FLOW) | (1u << TF_EV_SAMPLE) };
	*sink_out = &w->spans;
	*state_out = w;
	return 0;
}

static int set_partition(void *conf, const char *v, tf_error *err)
{
	return tf_pq_partition_parse(&((parquet_conf *)conf)->part, v, err);
}

static int set_compression(void *conf, const char *v, tf_error *err)
{
	parquet_conf *c = conf;
	if (strcmp(v, "none") && strcmp(v, "gzip") && strcmp(v, "zstd"))
		return tf_error_set(err, TF_EUSAGE, NULL, -1, -1, "--compression takes none, zstd or gzip, not '%s'", v);
	c->codec = !strcmp(v, "none") ? PQ_UNCOMPRESSED : !strcmp(v, "gzip") ? PQ_GZIP : PQ_ZSTD;
	c->codec_set = true;
	return 0;
}

static const tf_writer_opt parquet_opts[] = {
	{ "--partition", "P", "rank: Hive-style DIR/<table>/rank=N/part-0.parquet;\n"
	  "rank,step: .../rank=N/step=S/ (ProfilerStep#S);\nrank,time=1s: .../rank=N/time=T/ (T: the bucket's\n"
	  "start in ns); none: one file", set_partition },
	{ "--compression", "C", "none, zstd (default) or gzip", set_compression },
	{ NULL, NULL, NULL, NULL },
};

const tf_writer tf_writer_parquet = {
	.name = "parquet",
	.description = "normalized event tables as Parquet files in a folder (DuckDB, Polars, Spark; docs/schema.md)",
	.suffixes = (const char *const[]){ NULL },
	.consumes = TF_WRITER_SPANS,
	.span_open = events_open,
	.span_finish = events_finish,
	.span_abort = events_abort,
	.flags = TF_WRITER_DIR | TF_WRITER_MPI_PARTS | TF_WRITER_LAKE,
	.dir_kind = &tables_kind,
	.opts = parquet_opts,
	.conf_size = sizeof(parquet_conf),
	.needs_steps = tf_pq_needs_steps,
	.lake_keys = tf_pq_lake_keys,
	.command = "events",
	.summary = "every event as Parquet tables for SQL (DuckDB); docs/schema.md",
	.usage = "-o DIR | --lake DIR --run NAME",
	.help = "Writes every event of the INPUTs (the inputs of 'tracefold profile') into\n"
		"one normalized schema of Parquet tables, in one streaming pass:\n"
		"DIR/<table>/part-0.parquet for slices (one row per region instance, after\n"
		"the stack rules and repairs), counters, instants, messages (each send\n"
		"paired with its receive), flows, samples (sampled stacks: perf script),\n"
		"tracks and call_paths (docs/schema.md), and collectives (one row per\n"
		"collective call per rank: MPI, NCCL, gloo) when the traces have some\n"
		"(docs/collectives.md).\n"
		"Query them with DuckDB: SELECT name, sum(self_ns) FROM\n"
		"read_parquet('DIR/slices/**/*.parquet') GROUP BY name.  The tables are\n"
		"written aside and swapped in whole: an earlier run's at DIR are\n"
		"replaced in full; a folder holding anything else is refused and kept, or\n"
		"with --force written beside it.\n"
		"With --lake DIR --run NAME the run is added to a lake of runs instead:\n"
		"DIR/<table>/run=NAME/rank=R/part-0.parquet and a row in DIR/runs, moved\n"
		"in under a lock when complete (docs/schema.md, \"The lake\").\n",
};
