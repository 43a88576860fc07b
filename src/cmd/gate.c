/* gate.c - `tracefold diff --gate BASE NEW`: runs compared per step with a
 * verdict per row (the analysis: src/core/gate.c, docs/gate.md); and
 * `tracefold history add DIR RUN...`, the earlier runs of a baseline.
 *
 * Each input of BASE and NEW (joined with ',') is one run, read on its own
 * with step labels (--label-steps: Kineto's ProfilerStep#N, or
 * --step-region NAME); --history DIR adds earlier runs of the baseline
 * (tracefold's profiles with step labels) to the noise estimate.  One
 * section per sample type judged; the exit status says the worst. */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include "cmd.h"
#include "report.h"
#include "gate_cli.h"
#include "tracefold/gate.h"
#include "tracefold/pprof.h"
#include "tracefold/flame.h"

/* The runs of one side (or the history), each its own aggregate. */
typedef struct runs {
	const char **names;
	tf_agg **agg;
	int n;
} runs;

static void runs_free(runs *r)
{
	for (int i = 0; i < r->n; i++)
		tf_agg_free(r->agg[i]);
	free(r->agg);
	free(r->names);
	memset(r, 0, sizeof(*r));
}

/* Reads each of inputs[0..n) into an aggregate of its own, with step labels. */
static int load_runs(tf_ctx *ctx, tf_input_opts *iopts, const char *const *inputs, int n, uint32_t *first, runs *out)
{
	out->agg = calloc((size_t)n + 1, sizeof(tf_agg *));
	out->names = calloc((size_t)n + 1, sizeof(char *));
	if (!out->agg || !out->names) {
		tf_msg("out of memory");
		return TF_EXIT_INPUT;
	}
	iopts->filter.label_steps = true;
	for (int i = 0; i < n; i++) {
		tf_agg *a = tf_agg_new(tf_ctx_strtab(ctx));
		if (!a) {
			tf_msg("out of memory");
			return TF_EXIT_INPUT;
		}
		out->agg[out->n] = a;
		out->names[out->n++] = inputs[i];
		tf_load_opts lo = tf_input_load_opts(iopts);
		lo.first_input = (*first)++;
		int rc = tf_load_inputs(ctx, a, &inputs[i], 1, &lo);
		if (rc != TF_EXIT_OK)
			return rc;
	}
	return TF_EXIT_OK;
}

static int name_cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The newest `max` profiles of DIR (*.pb.gz, by name: history add names
 * them by time), as paths (malloc'd, into *paths; *n of them). */
static int history_list(const char *dir, int max, char ***paths, int *n)
{
	DIR *d = opendir(dir);
	*paths = NULL;
	*n = 0;
	if (!d) {
		tf_msg("cannot read the history '%s': %s", dir, strerror(errno));
		return TF_EXIT_INPUT;
	}
	char **list = NULL;
	uint32_t cap = 0, cnt = 0;
	int rc = TF_EXIT_OK;
	for (struct dirent *e; (e = readdir(d));) {
		size_t l = strlen(e->d_name);
		if (e->d_name[0] == '.' || l < 7 || strcmp(e->d_name + l - 6, ".pb.gz"))
			continue;
		char *p = malloc(strlen(dir) + l + 2);
		if (!p || tf_grow((void **)&list, &cap, cnt + 1, sizeof(char *)) < 0) {
			free(p);
			rc = TF_EXIT_INPUT;
			break;
		}
		sprintf(p, "%s/%s", dir, e->d_name);
		list[cnt++] = p;
	}
	closedir(d);
	if (rc != TF_EXIT_OK) {
		tf_msg("out of memory");
		for (uint32_t i = 0; i < cnt; i++)
			free(list[i]);
		free(list);
		return rc;
	}
	qsort(list, cnt, sizeof(char *), name_cmp);
	uint32_t skip = max > 0 && cnt > (uint32_t)max ? cnt - (uint32_t)max : 0;
	for (uint32_t i = 0; i < skip; i++)
		free(list[i]);
	if (skip)
		memmove(list, list + skip, (cnt - skip) * sizeof(char *));
	*paths = list;
	*n = (int)(cnt - skip);
	return TF_EXIT_OK;
}

/* Writes each run of r as DIR/run-<UTC time>-<k>.pb.gz (made if missing). */
static int history_save(const char *dir, const runs *r)
{
	if (mkdir(dir, 0777) < 0 && errno != EEXIST) {
		tf_msg("cannot make the history folder '%s': %s", dir, strerror(errno));
		return TF_EXIT_INPUT;
	}
	char stamp[32];
	time_t now = time(NULL);
	struct tm tm;
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", gmtime_r(&now, &tm));
	for (int i = 0; i < r->n; i++) {
		char path[4096];
		struct stat sb;
		int k = 0;
		do /* never over an earlier run saved in the same second */
			snprintf(path, sizeof(path), "%s/run-%s-%03d.pb.gz", dir, stamp, i + k++);
		while (stat(path, &sb) == 0);
		tf_error err;
		tf_error_clear(&err);
		if (tf_pprof_write(r->agg[i], path, &err) < 0)
			return tf_report(&err);
		if (!tf_quiet)
			tf_msg("history: %s saved as %s", r->names[i], path);
	}
	return TF_EXIT_OK;
}

/* The sample types to judge: the list, or "all" there is, else wall and gpu
 * where some run has them. */
static int pick_types(const char *list, const runs *side, int nsides, const char ***out, int *n, char **buf)
{
	*out = calloc(256, sizeof(char *));
	*n = 0;
	*buf = NULL;
	if (!*out)
		return TF_ENOMEM;
	bool all = list && !strcmp(list, "all");
	if (list && !all) {
		if (!(*buf = strdup(list)))
			return TF_ENOMEM;
		char *save = NULL;
		for (char *t = strtok_r(*buf, ",", &save); t && *n < 255; t = strtok_r(NULL, ",", &save))
			(*out)[(*n)++] = t;
		return 0;
	}
	for (int s = 0; s < nsides; s++)
		for (int i = 0; i < side[s].n; i++) {
			const tf_agg *a = side[s].agg[i];
			tf_strtab *st = tf_agg_strtab(a);
			/* a run of samples only has neither: its default type (cpu) */
			int dt = tf_agg_type_find(a, "wall") < 0 && tf_agg_type_find(a, "gpu") < 0 ? tf_agg_default_type(a) : -1;
			for (int t = 0; t < tf_agg_ntypes(a); t++) {
				const char *name = tf_strtab_get(st, tf_agg_type_get(a, t).type);
				if (!all && strcmp(name, "wall") && strcmp(name, "gpu") && t != dt)
					continue;
				bool have = false;
				for (int k = 0; k < *n && !have; k++)
					have = !strcmp((*out)[k], name);
				if (!have && *n < 255)
					(*out)[(*n)++] = name;
			}
		}
	return 0;
}

/* The unit of sample type `type`: the first run's that has it ("count" if none). */
static const char *type_unit(const runs side[3], const char *type)
{
	for (int k = 0; k < 3; k++)
		for (int i = 0; i < side[k].n; i++) {
			int t = tf_agg_type_find(side[k].agg[i], type);
			if (t >= 0)
				return tf_strtab_get(tf_agg_strtab(side[k].agg[i]), tf_agg_type_get(side[k].agg[i], t).unit);
		}
	return "count";
}

/* Is something material unresolved in res (--fail-unresolved)? */
static bool material_unresolved(const tf_gate_result *res)
{
	if (res->total.verdict == TF_VERDICT_UNRESOLVED && fabs(res->total.delta) >= res->total.threshold)
		return true;
	for (size_t k = 0; k < res->nrows; k++)
		if (res->rows[k].verdict == TF_VERDICT_UNRESOLVED && fabs(res->rows[k].delta) >= res->rows[k].threshold)
			return true;
	return false;
}

int tf_diff_gate(const tf_gate_cli *c, tf_input_opts *iopts)
{
	runs side[3] = { { 0 }, { 0 }, { 0 } };
	char *argcopy[2] = { NULL, NULL }, **hist = NULL, *typebuf = NULL;
	const char **inputs[2] = { NULL, NULL }, **types = NULL, **units = NULL;
	int nhist = 0, ntypes = 0, rc = TF_EXIT_OK;
	tf_gate_result *res = NULL;
	tf_ctx *ctx = tf_ctx_new();
	if (!ctx) {
		tf_msg("out of memory");
		return TF_EXIT_INPUT;
	}
	if (tf_mpi) {
		rc = tf_usage_error("diff", "--gate reads each run on its own with its steps: not with --mpi");
		goto done;
	}
	tf_input_opts_apply(iopts, ctx);
	uint32_t first = 0;
	for (int k = 0; k < 2 && rc == TF_EXIT_OK; k++) {
		int n = tf_split_inputs(c->pos[k], &argcopy[k], &inputs[k]);
		if (n < 0) {
			tf_msg("out of memory");
			rc = TF_EXIT_INPUT;
		} else if (!n) {
			rc = tf_usage_error("diff", "empty input '%s'", c->pos[k]);
		} else {
			rc = load_runs(ctx, iopts, inputs[k], n, &first, &side[k]);
		}
	}
	if (rc == TF_EXIT_OK && c->history &&
	    (rc = history_list(c->history, c->history_max, &hist, &nhist)) == TF_EXIT_OK)
		rc = load_runs(ctx, iopts, (const char *const *)hist, nhist, &first, &side[2]);
	tf_waiting_left left = { 0, 0 };
	for (int k = 0; k < 3 && rc == TF_EXIT_OK; k++)
		for (int i = 0; i < side[k].n && rc == TF_EXIT_OK; i++)
			rc = tf_leave_out_waiting(&side[k].agg[i], iopts, &left);
	if (rc != TF_EXIT_OK)
		goto done;
	tf_report_diag(ctx);
	tf_say_waiting(&left);
	if ((rc = tf_check_strict(iopts, ctx)) != TF_EXIT_OK)
		goto done;
	if (pick_types(c->types, side, 2, &types, &ntypes, &typebuf) < 0 ||
	    !(res = calloc((size_t)ntypes + 1, sizeof(*res))) || !(units = calloc((size_t)ntypes + 1, sizeof(char *)))) {
		tf_msg("out of memory");
		rc = TF_EXIT_INPUT;
		goto done;
	}
	if (!ntypes) {
		tf_msg("no sample type to compare: the runs have neither wall nor gpu time (--sample-type T, or all)");
		rc = TF_EXIT_INPUT;
		goto done;
	}
	for (int t = 0; t < ntypes; t++)
		units[t] = type_unit(side, types[t]);
	for (int t = 0; t < ntypes; t++) {
		tf_gate_opts o = c->gopts;
		o.type = types[t];
		o.alpha /= ntypes; /* the false alarms of the whole comparison: Bonferroni over the types too */
		tf_error err;
		tf_error_clear(&err);
		if (tf_gate_compare(side[0].agg, side[0].n, side[1].agg, side[1].n, side[2].agg, side[2].n, &o, &res[t],
				    &err) < 0) {
			if (err.code == TF_EUSAGE)
				tf_msg("no sample type '%s' in '%s' nor in '%s'", types[t], c->pos[0], c->pos[1]);
			else
				tf_msg("%s", err.msg);
			rc = TF_EXIT_INPUT;
			goto done;
		}
	}
	for (int k = 0; c->flame && k < 2 && rc == TF_EXIT_OK; k++)
		rc = tf_output_is_input("diff", c->flame, (const char *const *)side[k].names, side[k].n);
	if (rc != TF_EXIT_OK)
		goto done;
	if (c->flame && (rc = tf_gate_flame(c, side[0].agg, side[0].n, side[1].agg, side[1].n, &res[0], types[0],
					    units[0])) != TF_EXIT_OK)
		goto done;
	tf_gate_report rep = { c, ctx, types, units, res, ntypes, { side[0].n, side[1].n, side[2].n },
			       { side[0].names, side[1].names, side[2].names } };
	tf_gate_print(&rep);
	bool regressed = false, unresolved = false;
	for (int t = 0; t < ntypes; t++) {
		regressed |= res[t].verdict == TF_VERDICT_REGRESSED;
		unresolved |= material_unresolved(&res[t]);
	}
	if (c->save_history && (rc = history_save(c->save_history, &side[1])) != TF_EXIT_OK)
		goto done;
	rc = regressed ? TF_EXIT_REGRESSION : c->fail_unresolved && unresolved ? TF_EXIT_UNRESOLVED : TF_EXIT_OK;
done:
	for (int t = 0; res && t < ntypes; t++)
		tf_gate_result_free(&res[t]);
	free(res);
	for (int k = 0; k < 3; k++)
		runs_free(&side[k]);
	for (int i = 0; i < nhist; i++)
		free(hist[i]);
	free(hist);
	free(types);
	free(units);
	free(typebuf);
	for (int k = 0; k < 2; k++) {
		free(inputs[k]);
		free(argcopy[k]);
	}
	tf_ctx_free(ctx);
	return rc;
}

static void history_help(const tf_opt *opts)
{
	tf_help_printf("usage: tracefold history add [options] DIR RUN...\n"
	       "\n"
	       "Keeps earlier runs of a baseline for 'tracefold diff --gate --history DIR':\n"
	       "each RUN (a trace, or a profile) is read on its own with its steps (as\n"
	       "--label-steps does: Kineto's ProfilerStep#N, or --step-region NAME) and\n"
	       "written to DIR (made if missing) as a pprof profile with step labels,\n"
	       "named run-<UTC time>-<n>.pb.gz, so the newest sort last.  The gate uses\n"
	       "them for the run-to-run noise only, never as the baseline's values\n"
	       "(docs/gate.md).\n"
	       "\n"
	       "options:\n");
	tf_opts_help(opts);
	tf_help_printf("\n"
	       "trace inputs:\n");
	tf_input_opts_help();
	tf_help_printf("\n"
	       "exit status: 0 ok, 2 usage error, 3 unreadable input or unwritable DIR\n");
}

int tf_cmd_history(int argc, char **argv)
{
	tf_input_opts iopts = { 0 };
	const char **pos = calloc((size_t)argc + 1, sizeof(char *));
	int npos = 0, rc = TF_EXIT_OK;
	runs r = { 0 };
	tf_ctx *ctx = NULL;
	static const tf_opt opts[] = { { 0, NULL, NULL, false, NULL, NULL } };
	tf_optstate os = { 0 };
	const char *v;
	if (!pos) {
		tf_msg("out of memory");
		return TF_EXIT_INPUT;
	}
	for (int id; (id = tf_opt_next("history", argc, argv, opts, &iopts, &os, &v)) != TF_OPT_DONE;) {
		if (id == TF_OPT_USAGE) {
			rc = TF_EXIT_USAGE;
			goto done;
		}
		if (id == TF_OPT_HELP) {
			history_help(opts);
			goto done;
		}
		pos[npos++] = v;
	}
	if (npos && strcmp(pos[0], "add")) {
		rc = tf_usage_error("history", "unknown subcommand '%s' (add)", pos[0]);
		goto done;
	}
	if (npos < 3) {
		rc = tf_usage_error("history", "want: history add DIR RUN...");
		goto done;
	}
	if (tf_mpi) {
		rc = tf_usage_error("history", "not with --mpi");
		goto done;
	}
	if (!(ctx = tf_ctx_new())) {
		tf_msg("out of memory");
		rc = TF_EXIT_INPUT;
		goto done;
	}
	tf_input_opts_apply(&iopts, ctx);
	uint32_t first = 0;
	if ((rc = load_runs(ctx, &iopts, pos + 2, npos - 2, &first, &r)) == TF_EXIT_OK) {
		tf_report_diag(ctx);
		rc = history_save(pos[1], &r);
	}
done:
	runs_free(&r);
	tf_ctx_free(ctx);
	free(pos);
	tf_input_opts_free(&iopts);
	return rc;
}
