/* fuzz_overview.c - the overview's span consumer (src/core/overview.c,
 * overview_finish.c) behind the Chrome reader and the stack builder.
 *
 * Input: Chrome trace JSON bytes, read twice as two ranks (inputs 0 and 1,
 * ranks 0 and 1: the collectives of one match those of the other) with
 * their ProfilerStep#N steps (tf_pipeline_step_list).  On every input that
 * reads, the result keeps the promises docs/overview.md makes:
 *  - every rank-step's GPU numbers fit in its time on its devices
 *    (compute, comm, memcpy, memset, idle <= time x devices; exposed <=
 *    comm), no number is negative, and the steps are sorted;
 *  - the two ranks are the same trace: their rows are equal, so no
 *    straggler and no wait (every collective's arrivals are equal);
 *  - the stragglers are the rows with late_ns >= late_min. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz.h"
#include "tracefold/overview.h"
#include "tracefold/pipeline.h"

static void check_result(const tf_ov_result *r)
{
	/* a trace that names its rank (distributedInfo) is that rank twice */
	bool two = r->nranks == 2;
	if (r->nranks > 2 || (two && r->nstragglers))
		fz_fail("overview: %zu ranks, %zu stragglers of two equal ranks", r->nranks, r->nstragglers);
	const tf_ov_rank *a = &r->ranks[0], *b = &r->ranks[two ? 1 : 0];
	if (a->nsteps != b->nsteps || a->devices != b->devices)
		fz_fail("overview: the two equal ranks have %zu and %zu steps", a->nsteps, b->nsteps);
	for (size_t i = 0; i < r->nsteps; i++) {
		const tf_ov_step *s = &r->steps[i];
		int64_t dev = (int64_t)(s->rank ? b : a)->devices, t = s->time_ns;
		int64_t g[] = { s->gpu_compute_ns, s->gpu_comm_ns, s->gpu_memcpy_ns, s->gpu_memset_ns, s->gpu_idle_ns };
		for (int k = 0; k < 5; k++)
			if (g[k] < 0 || (t >= 0 && g[k] / (dev ? dev : 1) > t))
				fz_fail("overview: rank %lld step %lld: GPU number %d = %lld over time %lld x %lld devices",
					(long long)s->rank, (long long)s->step, k, (long long)g[k], (long long)t, (long long)dev);
		if (s->comm_exposed_ns < 0 || s->comm_exposed_ns > s->gpu_comm_ns || s->comm_wait_ns < 0 ||
		    (two && s->comm_wait_ns != 0) || s->cpu_ns < 0)
			fz_fail("overview: rank %lld step %lld: exposed %lld comm %lld wait %lld cpu %lld",
				(long long)s->rank, (long long)s->step, (long long)s->comm_exposed_ns,
				(long long)s->gpu_comm_ns, (long long)s->comm_wait_ns, (long long)s->cpu_ns);
		if (i && s->rank == s[-1].rank && s->step < s[-1].step)
			fz_fail("overview: steps out of order");
		if (two && s->ncoll && s->late_ns != 0)
			fz_fail("overview: late %lld of two equal arrivals", (long long)s->late_ns);
	}
	for (size_t i = 0; two && i < a->nsteps; i++) {
		tf_ov_step x = r->steps[a->first + i], y = r->steps[b->first + i];
		x.rank = y.rank = 0;
		if (memcmp(&x, &y, sizeof x))
			fz_fail("overview: step %zu differs between two equal ranks", i);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p0 = fz_path("rank0.json"), *p1 = fz_path("rank1.json");
	fz_write(p0, data, size);
	fz_write(p1, data, size);
	const char *inputs[2] = { p0, p1 };
	extern const tf_format tf_format_chrome;
	const tf_format *fmts[2] = { &tf_format_chrome, &tf_format_chrome };
	static const int64_t irank[2] = { 0, 1 };
	tf_ctx *ctx = tf_ctx_new();
	tf_agg *agg = tf_agg_new(tf_ctx_strtab(ctx));
	tf_ctx_opts(ctx)->input_rank = irank;
	tf_ctx_opts(ctx)->ninput_rank = 2;
	tf_error err;
	tf_error_clear(&err);
	tf_step *steps = NULL;
	size_t nsteps = 0;
	int rc = tf_pipeline_step_list(ctx, inputs, 2, fmts, 0, NULL, &steps, &nsteps, &err);
	tf_ov_opts oo = { .input_rank = irank, .ninputs = 2, .steps = steps, .nsteps = nsteps, .late_min_ns = -1 };
	tf_ov *ov = rc == 0 ? tf_ov_new(ctx, &oo) : NULL;
	if (ov) {
		tf_span_sink *cons[2] = { tf_ov_spans(ov), NULL };
		tf_filter_opts fo = { .label_steps = true };
		tf_pipeline_opts po = { .formats = fmts, .consumers = cons, .filter = &fo, .steps = steps,
					.nsteps = nsteps };
		rc = tf_pipeline_run(ctx, agg, inputs, 2, &po, &err);
		if (rc < 0 && rc != TF_ESTOP && (!err.code || !err.msg[0])) /* the readers' contract: fuzz_chrome */
			fz_fail("overview: run failed (%d) without an error message", rc);
		const tf_ov_result *res;
		if (rc == 0 && tf_ov_finish(ov, &res) == 0)
			check_result(res);
	}
	tf_ov_free(ov);
	free(steps);
	tf_agg_free(agg);
	tf_ctx_free(ctx);
	return 0;
}
