/* parquet_msgs.c - the messages and flows tables of the event tables
 * (docs/schema.md): a send and its receive, a flow's start and its end,
 * written as pair.c pairs them (parquet.c hands them over). */
#include "parquet_int.h"

enum { M_SRC_RANK, M_DST_RANK, M_SRC_TRACK, M_DST_TRACK, M_SEND_TS, M_RECV_TS, M_TAG, M_COMM, M_BYTES, M_N };
_Static_assert((int)M_N == (int)TF_PQ_MESSAGES_NCOLS, "the messages table's columns");
const pq_col tf_pq_messages_cols[TF_PQ_MESSAGES_NCOLS] = {
	{ "src_rank", PQ_INT64, true, false, false, false },
	{ "dst_rank", PQ_INT64, true, false, false, false },
	{ "src_track", PQ_INT64, true, false, false, false },
	{ "dst_track", PQ_INT64, true, false, false, false },
	{ "send_ts_ns", PQ_INT64, true, false, false, false },
	{ "recv_ts_ns", PQ_INT64, true, false, false, false },
	{ "tag", PQ_INT64, true, false, false, false },
	{ "communicator", PQ_INT64, true, false, false, false },
	{ "bytes", PQ_INT64, true, false, false, false },
};
enum { F_ID, F_NAME, F_CAT, F_SRC_TRACK, F_DST_TRACK, F_SRC_TS, F_DST_TS, F_SRC_SLICE, F_DST_SLICE, F_N };
_Static_assert((int)F_N == (int)TF_PQ_FLOWS_NCOLS, "the flows table's columns");
const pq_col tf_pq_flows_cols[TF_PQ_FLOWS_NCOLS] = {
	{ "flow_id", PQ_INT64, false, false, false, false },
	{ "name", PQ_STRING, true, true, false, false },
	{ "category", PQ_STRING, true, true, false, false },
	{ "src_track", PQ_INT64, true, false, false, false },
	{ "dst_track", PQ_INT64, true, false, false, false },
	{ "src_ts_ns", PQ_INT64, true, false, false, false },
	{ "dst_ts_ns", PQ_INT64, true, false, false, false },
	{ "src_slice_id", PQ_INT64, true, false, false, false },
	{ "dst_slice_id", PQ_INT64, true, false, false, false },
};

static int write_message(tf_events *w, const tf_pend *s, const tf_pend *r)
{
	const tf_pend *any = s ? s : r;
	int64_t src = s ? pqw_rank(w, (uint32_t)s->track) : any->src;
	int64_t dst = r ? pqw_rank(w, (uint32_t)r->track) : any->dst;
	pq_file *f = pqw_file_at(w, T_MESSAGES, src >= 0 ? src : dst, (uint32_t)any->track, any->ts);
	if (!f)
		return w->rc;
	pqw_opt(f, M_SRC_RANK, src, src >= 0);
	pqw_opt(f, M_DST_RANK, dst, dst >= 0);
	pqw_opt(f, M_SRC_TRACK, s ? tid(w, (uint32_t)s->track) : 0, s != NULL);
	pqw_opt(f, M_DST_TRACK, r ? tid(w, (uint32_t)r->track) : 0, r != NULL);
	pqw_opt(f, M_SEND_TS, s ? s->ts : 0, s != NULL);
	pqw_opt(f, M_RECV_TS, r ? r->ts : 0, r != NULL);
	pqw_opt(f, M_TAG, any->tag, true);
	pqw_opt(f, M_COMM, any->comm, any->comm >= 0);
	pqw_opt(f, M_BYTES, s ? s->bytes : r->bytes, (s ? s->bytes : r->bytes) >= 0);
	return pqw_end_row(w, f);
}

int tf_pq_message_pair(void *u, const tf_pend *s, const tf_pend *r)
{
	return write_message(u, s, r);
}

static int write_flow(tf_events *w, const tf_pend *s, const tf_pend *e)
{
	const tf_pend *any = s ? s : e;
	pq_file *f = pqw_file_at(w, T_FLOWS, pqw_rank(w, (uint32_t)any->track), (uint32_t)any->track, any->ts);
	if (!f)
		return w->rc;
	pq_i64(f, F_ID, (int64_t)any->id);
	pqw_str(f, F_NAME, any->name, w->st, true);
	pqw_str(f, F_CAT, any->cat, w->st, true);
	pqw_opt(f, F_SRC_TRACK, s ? tid(w, (uint32_t)s->track) : 0, s != NULL);
	pqw_opt(f, F_DST_TRACK, e ? tid(w, (uint32_t)e->track) : 0, e != NULL);
	pqw_opt(f, F_SRC_TS, s ? s->ts : 0, s != NULL);
	pqw_opt(f, F_DST_TS, e ? e->ts : 0, e != NULL);
	pqw_opt(f, F_SRC_SLICE, s ? s->slice : 0, s && s->slice >= 0);
	pqw_opt(f, F_DST_SLICE, e ? e->slice : 0, e && e->slice >= 0);
	return pqw_end_row(w, f);
}

int tf_pq_flow_pair(void *u, const tf_pend *s, const tf_pend *e)
{
	return write_flow(u, s, e);
}
