/* parquet_lake.c - the event tables' partitions below rank=N (step=S: the
 * run's steps, time=T: buckets of a fixed width) and the runs table of a
 * run added to a lake (lake.h, docs/schema.md "The lake: several runs").
 *
 * A row's step is the n of the step (tf_step_find: Kineto's ProfilerStep#n
 * of its input, or --step-region's instances of its rank) whose span holds
 * the row's own time (a slice's start, an event's ts), -1 outside every
 * step.  Its time bucket is floor(ts / width) * width, in ns. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include "tracefold/writer.h"
#include "parquet_int.h"

int tf_pq_partition_parse(pq_partition *p, const char *v, tf_error *err)
{
	pq_partition q = { 0 };
	if (!strcmp(v, "none")) {
		q.none = true;
	} else if (!strcmp(v, "rank")) {
		q.by_rank = true;
	} else if (!strcmp(v, "rank,step")) {
		q.by_rank = true;
		q.sub = PQ_SUB_STEP;
	} else if (!strncmp(v, "rank,time=", 10)) {
		static const struct { const char *unit; int64_t ns; } units[] = {
			{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000 },
			{ "m", 60000000000 }, { "h", 3600000000000 },
		};
		char *end;
		long long n = strtoll(v + 10, &end, 10);
		size_t u = 0;
		while (u < sizeof(units) / sizeof(units[0]) && strcmp(end, units[u].unit))
			u++;
		if (end == v + 10 || n <= 0 || u == sizeof(units) / sizeof(units[0]) || n > INT64_MAX / units[u].ns)
			return tf_error_set(err, TF_EUSAGE, NULL, -1, -1, "--partition rank,time=WIDTH: '%s' is not a "
					    "width (a positive whole number and ns, us, ms, s, m or h: rank,time=1s)",
					    v + 10);
		q.by_rank = true;
		q.sub = PQ_SUB_TIME;
		q.width_ns = n * units[u].ns;
	} else {
		return tf_error_set(err, TF_EUSAGE, NULL, -1, -1, "--partition takes rank, rank,step, rank,time=WIDTH "
				    "(rank,time=1s) or none, not '%s'", v);
	}
	*p = q;
	return 0;
}

bool tf_pq_needs_steps(const void *conf)
{
	return conf && ((const pq_partition *)conf)->sub == PQ_SUB_STEP;
}

const char *tf_pq_lake_keys(const void *conf, const char **why)
{
	const pq_partition *p = conf;
	if (p && p->none) {
		*why = "--partition none: a lake's tables are in rank=N folders";
		return NULL;
	}
	return !p || p->sub == PQ_SUB_NONE ? "rank" : p->sub == PQ_SUB_STEP ? "rank,step" : "rank,time";
}

uint32_t tf_pq_dense(tf_hmap *m, uint32_t *n, int64_t v)
{
	uint32_t i = tf_hmap_get(m, (uint64_t)v);
	if (i != UINT32_MAX)
		return i;
	if (tf_hmap_put(m, (uint64_t)v, *n) < 0)
		return UINT32_MAX;
	return (*n)++;
}

int64_t tf_pq_sub(const tf_events *w, uint32_t track, int64_t ts)
{
	if (w->sub == PQ_SUB_TIME) {
		int64_t b = ts / w->width_ns;
		if (ts % w->width_ns < 0)
			b--;
		return b * w->width_ns;
	}
	const tf_track *t = tf_ctx_track_get(w->ctx, track);
	if (!w->steps || !t)
		return -1;
	size_t i = tf_step_find(w->steps, w->nsteps, t->input, t->rank, ts);
	return i == SIZE_MAX ? -1 : w->steps[i].n;
}

/* The runs table's columns. */
enum { R_NAME, R_INPUTS, R_FORMATS, R_FIRST, R_LAST, R_SPAN, R_RANKS, R_TRACKS, R_SLICES, R_PART, R_VERSION,
       R_CMD, R_CREATED_NS, R_CREATED, R_N };
static const pq_col runs_cols[R_N] = {
	{ "name", PQ_STRING, false, false, false, false },
	{ "inputs", PQ_STRING, false, false, false, false },
	{ "input_formats", PQ_STRING, false, false, false, false },
	{ "first_ns", PQ_INT64, true, false, false, false },
	{ "last_ns", PQ_INT64, true, false, false, false },
	{ "span_ns", PQ_INT64, true, false, false, false },
	{ "ranks", PQ_INT64, false, false, false, false },
	{ "tracks", PQ_INT64, false, false, false, false },
	{ "slices", PQ_INT64, false, false, false, false },
	{ "partition", PQ_STRING, false, false, false, false },
	{ "tool_version", PQ_STRING, false, false, false, false },
	{ "command_line", PQ_STRING, false, false, false, false },
	{ "created_unix_ns", PQ_INT64, false, false, false, false },
	{ "created_utc", PQ_STRING, false, false, false, false },
};

static void put_str(pq_file *f, int col, const char *s)
{
	pq_str(f, col, s, strlen(s));
}

/* The run's ranks (distinct, known ones) and tracks. */
static void count_tracks(tf_events *w, int64_t *ranks, int64_t *tracks)
{
	tf_hmap seen = { 0 };
	uint32_t n = tf_ctx_track_count(w->ctx);
	*ranks = *tracks = 0;
	for (uint32_t i = 0; i < n; i++) {
		const tf_track *t = tf_ctx_track_get(w->ctx, i);
		++*tracks;
		if (t->rank >= 0 && tf_hmap_get(&seen, (uint64_t)t->rank) == UINT32_MAX &&
		    tf_hmap_put(&seen, (uint64_t)t->rank, 1) == 0)
			++*ranks;
	}
	tf_hmap_free(&seen);
}

int tf_pq_write_run(tf_events *w, const char *created_by)
{
	char dir[4200], path[4300], ins[8192] = "", fmts[2048] = "", part[64], utc[32];
	snprintf(dir, sizeof(dir), "%s/runs", w->dir);
	snprintf(path, sizeof(path), "%s/part-0.parquet", dir);
	for (int i = 0; i < w->ninputs; i++) {
		snprintf(ins + strlen(ins), sizeof(ins) - strlen(ins), "%s%s", i ? "\n" : "", w->inputs[i]);
		snprintf(fmts + strlen(fmts), sizeof(fmts) - strlen(fmts), "%s%s", i ? "\n" : "",
			 w->input_formats && w->input_formats[i] ? w->input_formats[i] : "?");
	}
	if (w->sub == PQ_SUB_TIME)
		snprintf(part, sizeof(part), "rank,time=%" PRId64 "ns", w->width_ns);
	else
		snprintf(part, sizeof(part), "%s", w->sub == PQ_SUB_STEP ? "rank,step" : "rank");
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	struct tm tm;
	gmtime_r(&now.tv_sec, &tm);
	strftime(utc, sizeof(utc), "%Y-%m-%dT%H:%M:%SZ", &tm);
	int64_t ranks, tracks;
	count_tracks(w, &ranks, &tracks);
	bool any = w->first_ns <= w->last_ns;
	pq_opts po = w->po;
	po.created_by = created_by;
	pq_file *f;
	if (mkdir(dir, 0777) < 0 && errno != EEXIST)
		return w->rc = tf_error_set(&w->err, TF_EIO, NULL, -1, -1, "cannot write '%s': cannot create the folder "
					    "'runs'", w->out);
	int rc = pq_open(&f, path, runs_cols, R_N, &po, &w->err);
	if (rc < 0)
		return w->rc = rc;
	put_str(f, R_NAME, w->run);
	put_str(f, R_INPUTS, ins);
	put_str(f, R_FORMATS, fmts);
	pqw_opt(f, R_FIRST, w->first_ns, any);
	pqw_opt(f, R_LAST, w->last_ns, any);
	pqw_opt(f, R_SPAN, w->last_ns - w->first_ns, any);
	pq_i64(f, R_RANKS, ranks);
	pq_i64(f, R_TRACKS, tracks);
	pq_i64(f, R_SLICES, (int64_t)w->nslices);
	put_str(f, R_PART, part);
	put_str(f, R_VERSION, created_by);
	put_str(f, R_CMD, w->cmdline ? w->cmdline : "");
	pq_i64(f, R_CREATED_NS, (int64_t)now.tv_sec * 1000000000 + now.tv_nsec);
	put_str(f, R_CREATED, utc);
	if ((rc = pq_end_row(f)) < 0) {
		pq_abort(f);
		return w->rc = tf_error_set(&w->err, rc, NULL, -1, -1, "cannot write '%s': the runs table", w->out);
	}
	return w->rc = pq_close(f, &w->err);
}
