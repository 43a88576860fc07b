/* overview.c - `tracefold overview`: what a run did per rank and step, and
 * what held it back (docs/overview.md).  One read of the traces through
 * the aggregate (with step labels) and the overview sink (overview.h);
 * printed as text, Markdown, JSON or an HTML page (overview_html.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmd.h"
#include "overview.h"
#include "report.h"
#include "tracefold/io.h"
#include "tracefold/reader.h"
#include "fmt.h"
#include <unistd.h>

enum { OUT_TEXT = 0, OUT_MD, OUT_JSON, OUT_HTML };
enum { OPT_OUT, OPT_FORMAT, OPT_LATE_MIN, OPT_MAX_ROWS };

typedef struct ov_args {
	tf_input_opts iopts;
	const char **inputs;
	int ninputs;
	const char *out;
	int fmt;
	bool fmt_given;
	int64_t late_min_ns;
	long long max_rows;
} ov_args;

static const tf_opt opts[] = {
	{ OPT_OUT, "-o", "--output", true, "FILE", "write the report to FILE (text, or by its name:\n.md Markdown, "
	  ".json JSON, .html a page); default\nstdout, text" },
	{ OPT_FORMAT, NULL, "--format", true, "F", "text, markdown or json (on stdout, or for -o FILE\nwith another name)" },
	{ OPT_LATE_MIN, NULL, "--late-min", true, "DUR", "a rank this late at a step's collective (its arrival\nafter "
	  "the median rank's) is a straggler (default 10%\nof the median step time)" },
	{ OPT_MAX_ROWS, NULL, "--max-rows", true, "N", "rows per table (default 10); JSON: past 64 rank-steps,\nthe "
	  "slowest N steps of each rank" },
	{ 0, NULL, NULL, false, NULL, NULL },
};

static void help(void)
{
	tf_help_printf("usage: tracefold overview [options] INPUT...\n"
	       "\n"
	       "What a run did per rank and step and what held it back: step time, CPU\n"
	       "busy time of the main thread, GPU time as compute, communication, memcpy,\n"
	       "memset and idle, exposed communication, the collectives matched across\n"
	       "ranks (who arrived last, who waited), the stragglers and the call path\n"
	       "where they spent the difference, MPI wait states (late sender, late\n"
	       "receiver, wait at collectives), and where the time goes.  Ranks are the\n"
	       "trace's own, else from file names (rank3, rank-3, rank_3), else one per\n"
	       "input; steps are ProfilerStep#N, --step-region NAME, or the whole run.\n"
	       "Every number: docs/overview.md.\n"
	       "\n"
	       "options:\n");
	tf_opts_help(opts);
	tf_help_printf("\ninput options:\n");
	tf_input_opts_help();
}

static int out_kind(const char *path)
{
	size_t n = strlen(path);
#define ENDS(s) (n >= sizeof(s) - 1 && !strcmp(path + n - (sizeof(s) - 1), s))
	if (ENDS(".html") || ENDS(".htm"))
		return OUT_HTML;
	if (ENDS(".md") || ENDS(".markdown"))
		return OUT_MD;
	if (ENDS(".json"))
		return OUT_JSON;
#undef ENDS
	return OUT_TEXT;
}

static int parse(ov_args *a, int argc, char **argv, bool *helped)
{
	tf_optstate st = { 0 };
	const char *v;
	int id, f;
	long long n;
	while ((id = tf_opt_next("overview", argc, argv, opts, &a->iopts, &st, &v)) != TF_OPT_DONE) {
		switch (id) {
		case TF_OPT_HELP:
			help();
			*helped = true;
			return TF_EXIT_OK;
		case TF_OPT_USAGE:
			return TF_EXIT_USAGE;
		case TF_OPT_ARG:
			a->inputs[a->ninputs++] = v;
			break;
		case OPT_OUT:
			a->out = v;
			break;
		case OPT_FORMAT:
			if (tf_out_format("overview", v, TF_OUT_TEXT | TF_OUT_MARKDOWN | TF_OUT_JSON, &f) < 0)
				return TF_EXIT_USAGE;
			a->fmt = f == TF_OUT_JSON ? OUT_JSON : f == TF_OUT_MARKDOWN ? OUT_MD : OUT_TEXT;
			a->fmt_given = true;
			break;
		case OPT_LATE_MIN:
			if (!tf_parse_duration_ns(v, &a->late_min_ns))
				return tf_usage_error("overview", "--late-min takes a duration (2ms, 500us), not '%s'", v);
			break;
		case OPT_MAX_ROWS:
			if (!tf_parse_i64(v, &n) || n < 1 || n > 1000000)
				return tf_usage_error("overview", "--max-rows takes a number from 1, not '%s'", v);
			a->max_rows = n;
			break;
		}
	}
	if (!a->ninputs)
		return tf_usage_error("overview", "give the traces of a run (one or more files)");
	if (a->out && !a->fmt_given)
		a->fmt = out_kind(a->out);
	if (tf_mpi)
		return tf_usage_error("overview", "--mpi: not yet; read the ranks with -j on one machine "
				      "(docs/overview.md \"At scale\")");
	return tf_output_is_input("overview", a->out, a->inputs, a->ninputs);
}

/* The rank of each input whose trace names none: the file names' when
 * each has one and they differ, else the input's place. */
static int input_ranks(const ov_args *a, int64_t *rank)
{
	bool names = true;
	for (int i = 0; i < a->ninputs; i++) {
		rank[i] = tf_ov_rank_of_path(a->inputs[i]);
		for (int k = 0; k < i && names; k++)
			names = rank[k] != rank[i];
		names = names && rank[i] >= 0;
	}
	if (!names)
		for (int i = 0; i < a->ninputs; i++)
			rank[i] = i;
	return names ? TF_OV_RANKS_FILE_NAMES : TF_OV_RANKS_INPUTS;
}

/* Did the traces name their ranks? */
static bool trace_ranks(tf_ctx *ctx)
{
	for (uint32_t t = 0; t < tf_ctx_track_count(ctx); t++)
		if (tf_ctx_track_get(ctx, t)->rank >= 0)
			return true;
	return false;
}

int tf_ov_print(FILE *f, const tf_ov_report *r, int fmt);
static int conclude(const ov_args *a, tf_ctx *ctx, tf_agg *agg, tf_ov_report *rp, tf_ov *ov);

static int run(ov_args *a, tf_ctx *ctx, tf_agg *agg, tf_ov_report *rp, tf_ov **ovp, tf_step **steps,
	       int64_t *irank)
{
	tf_error err;
	tf_error_clear(&err);
	tf_input_opts_apply(&a->iopts, ctx);
	rp->ranks_from = input_ranks(a, irank);
	tf_read_opts *ro = tf_ctx_opts(ctx);
	/* the samples under a step: set aside, past half of --sort-mem in a
	 * temporary file (agg.h; only the stragglers' call paths read them) */
	if (tf_agg_steps_aside(agg, "step", tf_sort_mem_half(ro), ro->tmp_dir) < 0) {
		tf_msg("out of memory");
		return TF_EXIT_INPUT;
	}
	ro->input_rank = irank;
	ro->ninput_rank = (uint32_t)a->ninputs;
	const tf_format **fmts = NULL;
	size_t nsteps = 0;
	int rc = tf_inputs_resolve_new(a->inputs, a->ninputs, a->iopts.format, &fmts, &err);
	for (int i = 0; rc == 0 && i < a->ninputs; i++) /* samples: no rank, step or wait of their own */
		if (fmts[i]->kind == TF_INPUT_SAMPLES)
			rc = tf_error_set(&err, TF_EUSAGE, NULL, -1, -1,
					  "'%s' is a sampled profile (%s): the overview reads traces (docs/samples.md)",
					  a->inputs[i], fmts[i]->name);
	int jobs = tf_jobs ? tf_jobs : (int)sysconf(_SC_NPROCESSORS_ONLN);
	jobs = jobs > a->ninputs ? a->ninputs : jobs;
	for (int i = 0; rc == 0 && i < a->ninputs; i++) /* telemetry needs its traces' base and steps: one thread */
		if (fmts[i]->telemetry)
			jobs = 1;
	if (rc == 0 && jobs > 1) { /* shares of whole inputs on threads: overview_jobs.c */
		tf_ov_opts oo = { .step_region = a->iopts.filter.step_region != NULL, .late_min_ns = a->late_min_ns };
		bool traced = false;
		if (!(*ovp = tf_ov_new(ctx, &oo)))
			rc = TF_ENOMEM;
		else
			rc = tf_ov_jobs(jobs, ctx, agg, *ovp, a->inputs, a->ninputs, fmts, &a->iopts, irank,
					a->late_min_ns, &traced);
		free(fmts);
		if (rc == TF_ENOMEM) {
			tf_msg("out of memory");
			return TF_EXIT_INPUT;
		}
		if (rc != TF_EXIT_OK)
			return rc;
		if (traced)
			rp->ranks_from = TF_OV_RANKS_TRACE;
		return conclude(a, ctx, agg, rp, *ovp);
	}
	if (rc == 0)
		rc = tf_pipeline_step_list(ctx, a->inputs, a->ninputs, fmts, 0, a->iopts.filter.step_region, steps,
					   &nsteps, &err);
	if (rc < 0) {
		free(fmts);
		return tf_report(&err);
	}
	tf_ov_opts oo = { .input_rank = irank, .ninputs = (uint32_t)a->ninputs, .steps = *steps, .nsteps = nsteps,
			  .step_region = a->iopts.filter.step_region != NULL, .late_min_ns = a->late_min_ns };
	tf_ov *ov = *ovp = tf_ov_new(ctx, &oo);
	if (!ov) {
		free(fmts);
		tf_msg("out of memory");
		return TF_EXIT_INPUT;
	}
	tf_span_sink *cons[2] = { tf_ov_spans(ov), NULL };
	tf_load_opts lo = tf_input_load_opts(&a->iopts);
	tf_filter_opts fo = lo.filter ? *lo.filter : (tf_filter_opts){ 0 };
	fo.label_steps = true;
	lo.filter = &fo;
	lo.formats = fmts;
	lo.steps = *steps;
	lo.nsteps = nsteps;
	lo.consumers = cons;
	/* a span consumer: one thread reads the inputs (tf_dist_threads says
	 * so), a Chrome JSON file with the other threads' help when -j allows
	 * (src/read/chrome_pipe.c) */
	rc = tf_load_inputs(ctx, agg, a->inputs, a->ninputs, &lo);
	free(fmts);
	if (rc != TF_EXIT_OK)
		return rc;
	if (trace_ranks(ctx))
		rp->ranks_from = TF_OV_RANKS_TRACE;
	return conclude(a, ctx, agg, rp, ov);
}

/* After reading: repairs said, --strict, the result, the stragglers' call
 * paths and the tables. */
static int conclude(const ov_args *a, tf_ctx *ctx, tf_agg *agg, tf_ov_report *rp, tf_ov *ov)
{
	int rc;
	tf_report_diag(ctx);
	if ((rc = tf_check_strict(&a->iopts, ctx)) != TF_EXIT_OK)
		return rc;
	rp->wall_type = tf_agg_type_find(agg, "wall");
	rp->gpu_type = tf_agg_type_find(agg, "gpu");
	rp->max_rows = (size_t)a->max_rows;
	if (tf_agg_steps_fold(agg) < 0 || tf_ov_finish(ov, &rp->res) < 0 || tf_ov_wheres(rp) < 0 || tf_ov_tables(rp) < 0) {
		if (!tf_agg_steps_error(agg)) /* else the notes' temporary file, said by tf_cmd_overview */
			tf_msg("out of memory");
		return TF_EXIT_INPUT;
	}
	return TF_EXIT_OK;
}

/* The report into memory, then to its output (written aside and renamed). */
static int emit(const ov_args *a, const tf_ov_report *rp)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f) {
		tf_msg("out of memory");
		return TF_EXIT_INPUT;
	}
	int rc = a->fmt == OUT_HTML ? tf_ov_print_html(f, rp) : tf_ov_print(f, rp, a->fmt);
	if (fclose(f) != 0 || rc < 0) {
		free(buf);
		tf_msg("out of memory");
		return TF_EXIT_INPUT;
	}
	if (!a->out || !strcmp(a->out, "-")) {
		fwrite(buf, 1, len, stdout);
		free(buf);
		return fflush(stdout) == 0 ? TF_EXIT_OK : TF_EXIT_INPUT;
	}
	tf_error err;
	tf_error_clear(&err);
	rc = tf_out_write_file(a->out, buf, len, &err);
	free(buf);
	return rc < 0 ? tf_report(&err) : TF_EXIT_OK;
}

int tf_cmd_overview(int argc, char **argv)
{
	ov_args a = { .inputs = (const char **)calloc((size_t)argc + 1, sizeof(char *)), .late_min_ns = -1,
		      .max_rows = 10 };
	int64_t *irank = calloc((size_t)argc + 1, sizeof(int64_t));
	tf_ctx *ctx = tf_ctx_new();
	tf_agg *agg = ctx ? tf_agg_new(tf_ctx_strtab(ctx)) : NULL;
	tf_ov_report rp = { .ctx = ctx, .agg = agg, .wall_type = -1, .gpu_type = -1 };
	tf_ov *ov = NULL;
	tf_step *steps = NULL;
	bool helped = false;
	int rc = a.inputs && irank && agg ? TF_EXIT_OK : TF_EXIT_INPUT;
	if (rc != TF_EXIT_OK)
		tf_msg("out of memory");
	if (rc == TF_EXIT_OK && (rc = parse(&a, argc, argv, &helped)) == TF_EXIT_OK && !helped)
		rc = run(&a, ctx, agg, &rp, &ov, &steps, irank);
	if (rc != TF_EXIT_OK && agg && tf_agg_steps_error(agg)) /* the notes' temporary file failed */
		rc = tf_report(tf_agg_steps_error(agg));
	if (rc == TF_EXIT_OK && !helped) {
		rp.inputs = a.inputs;
		rp.ninputs = a.ninputs;
		rp.step_region = a.iopts.filter.step_region;
		rp.title = "tracefold overview";
		rc = emit(&a, &rp);
	}
	if (rp.res)
		tf_ov_report_free(&rp);
	tf_ov_free(ov);
	free(steps);
	tf_agg_free(agg);
	tf_ctx_free(ctx);
	free(irank);
	free(a.inputs);
	tf_input_opts_free(&a.iopts);
	return rc;
}
