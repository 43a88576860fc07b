/* overview_jobs.c - `tracefold overview -j N`: the inputs shared out in
 * runs of whole inputs (balanced by bytes) among N threads, each with its
 * own context, aggregate and overview sink; each sink tells its ranks'
 * rows alone (tf_ov_local: every input of a rank is in one share), and the
 * caller adds the aggregates up (packed, as between processes), the
 * diagnostics, notes and warnings, and moves every sink's rows,
 * collective calls and messages into its own (tf_ov_absorb) to match them
 * across ranks.  The result is the one thread's, byte for byte
 * (tests/e2e/overview_synth.sh compares them). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cmd.h"
#include "overview.h"
#include "tracefold/agg_pack.h"
#include "tracefold/agg_sink.h"

typedef struct ov_job {
	const char *const *inputs;
	const tf_format *const *fmts;
	int start, n;
	const tf_ctx *parent;
	const tf_input_opts *io;
	const int64_t *irank;
	const char *region;
	int64_t late_min_ns;
	tf_ctx *ctx;
	tf_agg *agg;
	tf_ov *ov;
	tf_step *steps;
	size_t nsteps;
	int rc;
	tf_error err;
	pthread_t tid;
	bool started;
} ov_job;

static void *job_main(void *arg)
{
	ov_job *j = arg;
	tf_error_clear(&j->err);
	j->ctx = tf_ctx_new();
	j->agg = j->ctx ? tf_agg_new(tf_ctx_strtab(j->ctx)) : NULL;
	if (!j->agg) {
		j->rc = tf_error_set(&j->err, TF_ENOMEM, NULL, -1, -1, "out of memory");
		return NULL;
	}
	*tf_ctx_opts(j->ctx) = *tf_ctx_opts((tf_ctx *)j->parent);
	const tf_read_opts *ro = tf_ctx_opts(j->ctx);
	if (tf_agg_steps_aside(j->agg, "step", tf_sort_mem_half(ro), ro->tmp_dir) < 0) {
		j->rc = tf_error_set(&j->err, TF_ENOMEM, NULL, -1, -1, "out of memory");
		return NULL;
	}
	j->rc = tf_pipeline_step_list(j->ctx, j->inputs + j->start, j->n, j->fmts + j->start, (uint32_t)j->start,
				      j->region, &j->steps, &j->nsteps, &j->err);
	if (j->rc < 0)
		return NULL;
	tf_ov_opts oo = { .input_rank = j->irank + j->start, .first_input = (uint32_t)j->start,
			  .ninputs = (uint32_t)j->n, .steps = j->steps, .nsteps = j->nsteps,
			  .step_region = j->region != NULL, .late_min_ns = j->late_min_ns };
	if (!(j->ov = tf_ov_new(j->ctx, &oo))) {
		j->rc = tf_error_set(&j->err, TF_ENOMEM, NULL, -1, -1, "out of memory");
		return NULL;
	}
	tf_span_sink *cons[2] = { tf_ov_spans(j->ov), NULL };
	tf_load_opts lo = tf_input_load_opts(j->io);
	tf_filter_opts fo = lo.filter ? *lo.filter : (tf_filter_opts){ 0 };
	fo.label_steps = true;
	lo.filter = &fo;
	lo.formats = j->fmts + j->start;
	lo.first_input = (uint32_t)j->start;
	lo.steps = j->steps;
	lo.nsteps = j->nsteps;
	lo.consumers = cons;
	j->rc = tf_pipeline_run(j->ctx, j->agg, j->inputs + j->start, j->n, &lo, &j->err);
	if (j->rc == 0 && (j->rc = tf_ov_local(j->ov)) < 0)
		tf_error_set(&j->err, j->rc, NULL, -1, -1, "out of memory");
	return NULL;
}

/* Runs of whole inputs, about total/jobs bytes each: start[k] of job k. */
static int share_out(const char *const *inputs, int n, int jobs, int *start)
{
	int64_t *sz = malloc(((size_t)n + 1) * sizeof(int64_t)), total = 0;
	if (!sz)
		return -1;
	for (int i = 0; i < n; i++) {
		struct stat st;
		sz[i] = stat(inputs[i], &st) == 0 && st.st_size > 0 ? st.st_size : 1;
		total += sz[i];
	}
	int k = 0;
	int64_t acc = 0;
	start[0] = 0;
	for (int i = 0; i < n && k + 1 < jobs; i++) {
		acc += sz[i];
		if (acc >= total / jobs * (k + 1) && i + 1 < n)
			start[++k] = i + 1;
	}
	free(sz);
	return k + 1;
}

typedef struct node_map_ctx {
	const tf_agg *src;
	tf_agg *dst;
	uint32_t *map;          /* src node -> dst node + 1; 0 not yet */
} node_map_ctx;

static uint32_t node_map(void *arg, uint32_t node)
{
	node_map_ctx *m = arg;
	if (node == TF_AGG_ROOT)
		return TF_AGG_ROOT;
	if (m->map[node])
		return m->map[node] - 1;
	const tf_agg_node *sn = tf_agg_node_get(m->src, node);
	uint32_t parent = node_map(arg, sn->parent);
	const tf_strtab *st = tf_agg_strtab(m->src);
	tf_str f = tf_strtab_intern(tf_agg_strtab(m->dst), tf_strtab_get(st, sn->frame), tf_strtab_len(st, sn->frame));
	if (parent == UINT32_MAX || f == (tf_str)-1)
		return UINT32_MAX;
	uint32_t d = tf_agg_child(m->dst, parent, f);
	if (d == UINT32_MAX)
		return UINT32_MAX;
	m->map[node] = d + 1;
	return d;
}

/* Job j's share added to the caller's ctx, agg and ov. */
static int absorb(ov_job *j, tf_ctx *ctx, tf_agg *agg, tf_ov *ov)
{
	void *buf = NULL;
	size_t len = 0;
	tf_error err;
	tf_error_clear(&err);
	if (tf_agg_steps_fold(j->agg) < 0 || tf_agg_pack(j->agg, &buf, &len) < 0 ||
	    tf_agg_unpack_merge(agg, buf, len, "a thread's share", &err) < 0) {
		free(buf);
		return TF_ENOMEM;
	}
	free(buf);
	tf_diag_add(tf_ctx_diag(ctx), tf_ctx_diag(j->ctx));
	for (size_t i = 0; i < tf_ctx_nnotes(j->ctx); i++)
		if (tf_ctx_note_get(j->ctx, i))
			tf_ctx_note(ctx, "%s", tf_ctx_note_get(j->ctx, i));
	for (size_t i = 0; i < tf_ctx_nwarnings(j->ctx); i++)
		if (tf_ctx_warning_get(j->ctx, i))
			tf_ctx_warn(ctx, "%s", tf_ctx_warning_get(j->ctx, i));
	node_map_ctx m = { j->agg, agg, calloc(tf_agg_nnodes(j->agg) + 1, sizeof(uint32_t)) };
	int rc = m.map ? tf_ov_absorb(ov, j->ov, node_map, &m) : TF_ENOMEM;
	if (rc == 0) /* its samples under a step, after the shares before it: the order -j 1 notes them in */
		rc = tf_agg_steps_absorb(agg, j->agg, node_map, &m);
	free(m.map);
	return rc;
}

static void job_free(ov_job *j)
{
	tf_ov_free(j->ov);
	free(j->steps);
	tf_agg_free(j->agg);
	tf_ctx_free(j->ctx);
}

int tf_ov_jobs(int jobs, tf_ctx *ctx, tf_agg *agg, tf_ov *ov, const char *const *inputs, int n,
	       const tf_format *const *fmts, const tf_input_opts *io, const int64_t *irank, int64_t late_min_ns,
	       bool *trace_ranks)
{
	int *start = malloc(((size_t)jobs + 1) * sizeof(int));
	ov_job *j = calloc((size_t)jobs + 1, sizeof(ov_job));
	int nj = start && j ? share_out(inputs, n, jobs, start) : -1;
	if (nj < 0) {
		free(start);
		free(j);
		tf_msg("out of memory");
		return TF_EXIT_INPUT;
	}
	for (int k = 0; k < nj; k++) {
		j[k] = (ov_job){ .inputs = inputs, .fmts = fmts, .start = start[k],
				 .n = (k + 1 < nj ? start[k + 1] : n) - start[k], .parent = ctx, .io = io, .irank = irank,
				 .region = io->filter.step_region, .late_min_ns = late_min_ns };
		j[k].started = pthread_create(&j[k].tid, NULL, job_main, &j[k]) == 0;
		if (!j[k].started)
			job_main(&j[k]);
	}
	int rc = TF_EXIT_OK;
	for (int k = 0; k < nj; k++)
		if (j[k].started)
			pthread_join(j[k].tid, NULL);
	for (int k = 0; k < nj && rc == TF_EXIT_OK; k++) {
		if (j[k].rc < 0) {
			if (!j[k].err.code)
				tf_error_set(&j[k].err, j[k].rc, NULL, -1, -1, "%s", tf_strerror(j[k].rc));
			rc = tf_report(&j[k].err);
			break;
		}
		for (uint32_t t = 0; t < tf_ctx_track_count(j[k].ctx); t++) {
			const tf_track *tr = tf_ctx_track_get(j[k].ctx, t);
			if (tr->rank >= 0)
				*trace_ranks = true;
		}
		if (absorb(&j[k], ctx, agg, ov) < 0) {
			tf_msg("out of memory");
			rc = TF_EXIT_INPUT;
		}
	}
	for (int k = 0; k < nj; k++)
		job_free(&j[k]);
	free(j);
	free(start);
	if (rc == TF_EXIT_OK && tf_agg_sink_order_types(agg, (const char *const *)io->counters) < 0) {
		tf_msg("out of memory");
		rc = TF_EXIT_INPUT;
	}
	tf_print_warnings(ctx);
	return rc;
}
