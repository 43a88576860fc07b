/* parquet_samples.c - the samples table of the event tables (docs/schema.md):
 * one row per TF_EV_SAMPLE (event.h), with the call path of its frames
 * under the regions open on its track (samples.h: the same call-path tree
 * as the slices', so call_paths has a row for each), the slice open then,
 * how many samples it stands for and its weight. */
#include <string.h>
#include "parquet_int.h"

const pq_col tf_pq_samples_cols[TF_PQ_SAMPLES_NCOLS] = {
	{ "track_id", PQ_INT64, false, false, false, false },
	{ "rank", PQ_INT64, true, false, false, false },
	{ "ts_ns", PQ_INT64, false, false, true, false },
	{ "call_path_id", PQ_INT64, true, false, false, false },
	{ "slice_id", PQ_INT64, true, false, false, false },
	{ "count", PQ_INT64, false, false, false, false },
	{ "weight_type", PQ_STRING, true, true, false, false },
	{ "weight_unit", PQ_STRING, true, true, false, false },
	{ "weight", PQ_DOUBLE, true, false, false, false },
	{ "frames", PQ_INT32, false, false, false, false },
};

int tf_pq_write_sample(tf_events *w, const tf_event *ev, uint32_t node, int64_t slice)
{
	if (!w->spaths && !(w->spaths = tf_sample_paths_new(w->ctx, w->cp)))
		return TF_ENOMEM;
	uint32_t path = tf_sample_path(w->spaths, node, (uint32_t)ev->id);
	if (path == (uint32_t)-1)
		return TF_ENOMEM;
	int64_t rank = pqw_rank(w, ev->track);
	pq_file *f = pqw_file_at(w, T_SAMPLES, rank, ev->track, ev->ts_ns);
	if (!f)
		return w->rc;
	pq_i64(f, X_TRACK, tid(w, ev->track));
	pqw_opt(f, X_RANK, rank, rank >= 0);
	pq_i64(f, X_TS, ev->ts_ns);
	/* an empty stack outside any region has no call path */
	pqw_opt(f, X_PATH, cid(w, path), path != TF_CPATH_ROOT);
	pqw_opt(f, X_SLICE, slice, slice >= 0);
	pq_i64(f, X_COUNT, ev->dur_ns);
	pqw_str(f, X_TYPE, ev->name, w->st, true);
	pqw_str(f, X_UNIT, ev->name ? ev->cat : 0, w->st, true);
	if (ev->name)
		pq_f64(f, X_WEIGHT, ev->value);
	else
		pq_null(f, X_WEIGHT);
	/* how many of the path's last frames are the sample's own (a re-read
	 * rebuilds its stack from them: format-tables.md) */
	const tf_cpath *stacks = tf_ctx_stacks(w->ctx);
	const tf_cpath_node *sn = stacks && ev->id != TF_CPATH_ROOT ? tf_cpath_get(stacks, (uint32_t)ev->id) : NULL;
	pq_i32(f, X_FRAMES, sn ? (int32_t)sn->depth : 0);
	return pqw_end_row(w, f);
}
