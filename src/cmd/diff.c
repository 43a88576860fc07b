/* diff.c - `tracefold diff BASE NEW`: what changed between two runs.
 *
 * Per function (or, with --paths, per call path), counted by tf_fnstats as
 * top counts them: self and inclusive value (and calls, in JSON) in BASE and NEW, the change, absolute and relative; rows sorted by the
 * absolute change of self (or inclusive, --by total), largest first.
 * --fail-above PCT makes it a CI gate (exit 1): a function with at least
 * --min-share PCT of the total (in BASE or NEW) whose --by value grew by more
 * than PCT (a new function grew from 0: infinitely), or the total grew by
 * more than PCT. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cmd.h"
#include "report.h"
#include "gate_cli.h"
#include "top_label.h"
#include "tracefold/flame.h"
#include "tracefold/reader.h"

enum { BY_SELF, BY_TOTAL };
enum { O_COUNT, O_BY, O_FORMAT, O_FAIL_ABOVE, O_MIN_SHARE, O_NORMALIZE, O_PATHS, O_SAMPLE_INDEX, O_NAME_WIDTH,
       O_FLAME, O_FLAME_URL, O_GATE, O_HISTORY, O_HISTORY_MAX, O_SAVE_HISTORY, O_MIN_EFFECT, O_ALPHA,
       O_FAIL_UNRESOLVED, O_STEADY, O_BY_LABEL, O_KEEP_WAITING };
enum { FMT_TEXT = TF_OUT_TEXT, FMT_MD = TF_OUT_MARKDOWN, FMT_JSON = TF_OUT_JSON };

static void help(const tf_opt *opts)
{
	tf_help_printf("usage: tracefold diff [options] BASE NEW\n"
	       "\n"
	       "Compares two runs.  BASE and NEW are each a trace, a profile (pprof or\n"
	       "folded stacks), or several of them joined with ',' (summed).  Per function\n"
	       "(or call path, --paths): self and inclusive time before and after, the\n"
	       "change in absolute and relative terms; functions that appeared or vanished;\n"
	       "the totals.  Rows are sorted by the absolute change of self time, largest\n"
	       "first.\n"
	       "\n"
	       "options:\n");
	tf_opts_help(opts);
	tf_help_printf("\n"
	       "trace inputs:\n");
	tf_input_opts_help();
	tf_help_printf("\n"
	       "exit status: 0 ok (no regression), 1 regression (above --fail-above, or a\n"
	       "             regressed row or total of --gate), 2 usage error, 3 unreadable\n"
	       "             or invalid input, 4 --fail-unresolved and an unresolved change\n");
}

typedef struct row {
	tf_str name;
	double bs, ns, bt, nt; /* base/new self, base/new total (NEW scaled by --normalize) */
	int64_t bcalls, ncalls;
	int status;            /* 0 both, 1 new, 2 gone */
	int regress;
} row;

static int g_by;
static const tf_strtab *g_st; /* qsort has no user pointer in C11 */

static double key_of(const row *r)
{
	return g_by == BY_TOTAL ? fabs(r->nt - r->bt) : fabs(r->ns - r->bs);
}

static int cmp_row(const void *x, const void *y)
{
	const row *a = x, *b = y;
	double ka = key_of(a), kb = key_of(b);
	if (ka != kb)
		return ka > kb ? -1 : 1;
	double ta = fabs(a->nt - a->bt), tb = fabs(b->nt - b->bt);
	if (ta != tb)
		return ta > tb ? -1 : 1;
	double sa = a->bt + a->nt, sb = b->bt + b->nt;
	if (sa != sb)
		return sa > sb ? -1 : 1;
	if (a->name == b->name)
		return 0;
	/* by name (bytes), not by the order names were interned in */
	return strcmp(tf_strtab_get(g_st, a->name), tf_strtab_get(g_st, b->name));
}

/* Relative change in percent; +inf for growth from 0; NAN for 0 -> 0. */
static double rel(double b, double n)
{
	if (b == 0)
		return n == 0 ? 0 : n > 0 ? INFINITY : -INFINITY;
	return 100.0 * (n - b) / b;
}

static void fmt_rel(char *buf, size_t len, double b, double n)
{
	double r = rel(b, n);
	if (isinf(r))
		snprintf(buf, len, "new");
	else if (n == 0 && b != 0)
		snprintf(buf, len, "gone");
	else
		snprintf(buf, len, "%+.1f%%", r);
}

#define jv tf_json_int

static void json_rel(double b, double n)
{
	double r = rel(b, n);
	if (isinf(r) || isnan(r))
		printf("null");
	else
		printf("%.4f", r);
}


typedef struct dopt {
	int by, fmt, paths, normalize;
	double fail_above, min_share;
	bool has_min_share, gate;
	long long count;
	size_t name_width;
	const char *type_name, *pos[2], *flame, *flame_url;
	const char *by_label;  /* --by-label KEYS: rows per label value (top_label.c) */
	tf_gate_cli gc;
} dopt;

/* What one comparison found. */
typedef struct drun {
	const dopt *o;
	const tf_strtab *st;
	const char *tname, *unit;
	row *rows;
	size_t nrows, nshow;
	double btot, ntot, scale;
	int nregress, total_regress, nnew, ngone;
	bool has_calls;
} drun;

enum { DIFF_GO = -1 }; /* parse_opts: no exit yet, go on */

static int parse_value(int id, const char *v, const tf_optstate *os, dopt *o);

/* The options; DIFF_GO, or an exit status (help printed: TF_EXIT_OK). */
static int parse_opts(int argc, char **argv, dopt *o, tf_input_opts *iopts)
{
	static const tf_opt opts[] = {
		{ O_FORMAT, NULL, "--format", true, "FMT", "text (default), markdown (GitHub table) or json" },
		{ O_FAIL_ABOVE, NULL, "--fail-above", true, "PCT", "exit 1 when a function with at least --min-share "
		  "of\nthe total grew by more than PCT percent (a new one\ncounts as infinite growth), or when the total "
		  "did;\nthe reasons go to stderr and into the report" },
		{ O_MIN_SHARE, NULL, "--min-share", true, "PCT", "share of the total (BASE or NEW) below which a "
		  "function\nis not checked by --fail-above (default 1)" },
		{ O_NORMALIZE, NULL, "--normalize", false, NULL, "scale NEW so that its total equals BASE's (compare\n"
		  "shares, not absolute times)" },
		{ O_PATHS, NULL, "--paths", false, NULL, "per call path (root;...;leaf) instead of per function" },
		{ O_BY_LABEL, NULL, "--by-label", true, "KEYS", "per value of these labels (comma-separated) instead\n"
		  "of per function: --by-label collective,comm_bytes" },
		{ O_FLAME, NULL, "--flame", true, "FILE", "also draw the differential flame graph of the same\nruns and "
		  "sample type (SVG, or HTML for a .html name;\n'tracefold flame --diff'); the report links to it" },
		{ O_FLAME_URL, NULL, "--flame-url", true, "URL", "where the report's link points (default: FILE), e.g.\n"
		  "the CI artifact's address" },
		{ O_BY, NULL, "--by", true, "KEY", "sort and check by self (default) or total (inclusive)" },
		{ O_COUNT, "-n", "--count", true, "N", "show the N first rows (default 20, 0 = all); the\n--fail-above "
		  "check always covers every row" },
		{ O_SAMPLE_INDEX, NULL, "--sample-index", true, "T", "the sample type to compare (default: BASE's "
		  "default\ntype, else wall, else the last type); --sample-type\nT is the same (gpu: GPU time)" },
		{ O_NAME_WIDTH, NULL, "--name-width", true, "N", TF_NAME_WIDTH_TEXT },
		{ O_KEEP_WAITING, NULL, "--keep-waiting", false, NULL, "keep the threads that only wait (left out by\n"
		  "default, also by --gate; 'tracefold info' lists them)" },
		{ TF_OPT_SECTION, NULL, "", false, NULL, "the gate (docs/gate.md):" },
		{ O_GATE, NULL, "--gate", false, NULL, "compare runs per step with a verdict per row:\nregressed, "
		  "improved, unchanged, unresolved (too\nnoisy to decide) or immaterial; each input joined\nwith ',' is a "
		  "run of its own; steps are Kineto's\nProfilerStep#N or --step-region NAME; values are\nper-step means "
		  "with a simultaneous interval" },
		{ O_SAMPLE_INDEX, NULL, "--sample-type", true, "LIST", "types judged (default: wall and gpu, those the "
		  "runs\nhave; 'all': every one)" },
		{ O_MIN_EFFECT, NULL, "--min-effect", true, "PCT", "a change matters from PCT of the row's own value\n"
		  "(default 3) and --min-share PCT of the step total\n(default 0.5 under --gate)" },
		{ O_ALPHA, NULL, "--alpha", true, "A", "false alarms allowed over all rows at once (0.05)" },
		{ O_HISTORY, NULL, "--history", true, "DIR", "earlier runs of the baseline ('tracefold history\nadd'): "
		  "their spread is run-to-run noise" },
		{ O_HISTORY_MAX, NULL, "--history-max", true, "N", "the newest N of them (default 30)" },
		{ O_SAVE_HISTORY, NULL, "--save-history", true, "DIR", "add NEW's runs to DIR after comparing" },
		{ O_STEADY, NULL, "--steady-noise", true, "PCT", "run-to-run noise assumed for gpu, calls and\n"
		  "allocations, decided from the steps (default 0.5)" },
		{ O_FAIL_UNRESOLVED, NULL, "--fail-unresolved", false, NULL, "exit 4 when a material change is "
		  "unresolved" },
		{ 0, NULL, NULL, false, NULL, NULL },
	};
	tf_optstate os = { 0 };
	const char *v;
	int npos = 0;
	for (int id; (id = tf_opt_next("diff", argc, argv, opts, iopts, &os, &v)) != TF_OPT_DONE;) {
		if (id == TF_OPT_USAGE)
			return TF_EXIT_USAGE;
		if (id == TF_OPT_HELP) {
			help(opts);
			return TF_EXIT_OK;
		}
		if (id == O_KEEP_WAITING) {
			iopts->keep_waiting = true;
			continue;
		}
		if (id == TF_OPT_ARG) {
			if (npos == 2)
				return tf_usage_error("diff", "too many inputs: give BASE and NEW (join several with ',')");
			o->pos[npos++] = v;
			continue;
		}
		int rc = parse_value(id, v, &os, o);
		if (rc != DIFF_GO)
			return rc;
	}
	if (npos != 2)
		return tf_usage_error("diff", "need two inputs, BASE and NEW");
	if (o->flame && !strcmp(o->flame, "-"))
		return tf_usage_error("diff", "--flame needs a file: the report goes to standard output");
	if (o->flame_url && !o->flame)
		return tf_usage_error("diff", "--flame-url says where the picture of --flame FILE is: give --flame too");
	if (!o->gate && (o->gc.history || o->gc.save_history || o->gc.fail_unresolved))
		return tf_usage_error("diff", "--history, --save-history and --fail-unresolved are options of --gate");
	if (o->gate && (o->fail_above >= 0 || o->normalize))
		return tf_usage_error("diff", "--gate decides by its verdicts: not with %s",
				      o->fail_above >= 0 ? "--fail-above" : "--normalize");
	return DIFF_GO;
}

/* One option's value into o; DIFF_GO or TF_EXIT_USAGE (said). */
static int parse_value(int id, const char *v, const tf_optstate *os, dopt *o)
{
	double pct;
	long long n;
	switch (id) {
	case O_COUNT:
		if (!tf_parse_i64(v, &o->count))
			return tf_usage_error("diff", "'%s' needs a non-negative integer, not '%s'", os->opt, v);
		break;
	case O_BY_LABEL:
		o->by_label = v;
		break;
	case O_BY:
		if (strcmp(v, "self") && strcmp(v, "total"))
			return tf_usage_error("diff", "--by takes self or total, not '%s'", v);
		o->by = !strcmp(v, "total") ? BY_TOTAL : BY_SELF;
		break;
	case O_FORMAT:
		if (tf_out_format("diff", v, TF_OUT_TEXT | TF_OUT_MARKDOWN | TF_OUT_JSON, &o->fmt) < 0)
			return TF_EXIT_USAGE;
		break;
	case O_FAIL_ABOVE:
	case O_MIN_SHARE:
	case O_MIN_EFFECT:
	case O_STEADY:
		if (!tf_parse_double(v, &pct) || pct < 0 || !isfinite(pct))
			return tf_usage_error("diff", "'%s' needs a non-negative percentage, not '%s'", os->opt, v);
		if (id == O_FAIL_ABOVE)
			o->fail_above = pct;
		else if (id == O_MIN_SHARE)
			o->min_share = pct, o->has_min_share = true;
		else if (id == O_MIN_EFFECT)
			o->gc.gopts.min_effect = pct / 100;
		else
			o->gc.gopts.steady_cv = pct / 100;
		break;
	case O_ALPHA:
		if (!tf_parse_double(v, &pct) || !(pct > 0 && pct < 1))
			return tf_usage_error("diff", "--alpha needs a false-alarm rate between 0 and 1, not '%s'", v);
		o->gc.gopts.alpha = pct;
		break;
	case O_HISTORY_MAX:
		if (!tf_parse_i64(v, &n) || n < 1 || n > 100000)
			return tf_usage_error("diff", "--history-max needs a number of runs, not '%s'", v);
		o->gc.history_max = (int)n;
		break;
	case O_NAME_WIDTH:
		if (tf_name_width("diff", v, &o->name_width) < 0)
			return TF_EXIT_USAGE;
		break;
	case O_GATE: o->gate = true; break;
	case O_HISTORY: o->gc.history = v; break;
	case O_SAVE_HISTORY: o->gc.save_history = v; break;
	case O_FAIL_UNRESOLVED: o->gc.fail_unresolved = true; break;
	case O_NORMALIZE: o->normalize = 1; break;
	case O_PATHS: o->paths = 1; break;
	case O_SAMPLE_INDEX: o->type_name = v; break;
	case O_FLAME: o->flame = v; break;
	case O_FLAME_URL: o->flame_url = v; break;
	}
	return DIFF_GO;
}

/* diff --gate gets the options it shares with diff. */
static int run_gate(dopt *o, tf_input_opts *iopts)
{
	tf_gate_cli *gc = &o->gc;
	gc->pos[0] = o->pos[0];
	gc->pos[1] = o->pos[1];
	gc->types = o->type_name;
	gc->gopts.paths = o->paths;
	gc->gopts.by_total = o->by == BY_TOTAL;
	if (o->has_min_share)
		gc->gopts.min_share = o->min_share / 100;
	gc->fmt = o->fmt;
	gc->count = o->count;
	gc->name_width = o->name_width;
	gc->flame = o->flame;
	gc->flame_url = o->flame_url;
	return tf_diff_gate(gc, iopts);
}

/* BASE and NEW, each into its aggregate (inputs joined with ',' summed). */
static int load_sides(tf_ctx *ctx, tf_input_opts *iopts, const dopt *o, tf_agg *agg[2], char *argcopy[2],
		      const char **inputs[2], int ninputs[2], bool *worker, tf_waiting_left *left)
{
	uint32_t first = 0;
	for (int k = 0; k < 2; k++) {
		agg[k] = tf_agg_new(tf_ctx_strtab(ctx));
		ninputs[k] = tf_split_inputs(o->pos[k], &argcopy[k], &inputs[k]);
		if (ninputs[k] < 0 || !agg[k]) {
			tf_msg("out of memory");
			return TF_EXIT_INPUT;
		}
		if (!ninputs[k])
			return tf_usage_error("diff", "empty input '%s'", o->pos[k]);
		tf_input_opts_apply(iopts, ctx);
		tf_load_opts lo = tf_input_load_opts(iopts);
		lo.first_input = first;
		int rc = tf_load_inputs(ctx, agg[k], inputs[k], ninputs[k], &lo);
		if (rc == TF_EXIT_WORKER) { /* --mpi: process 0 reports; BASE and NEW are two runs */
			*worker = true;
			rc = TF_EXIT_OK;
		}
		if (rc == TF_EXIT_OK)
			rc = tf_leave_out_waiting(&agg[k], iopts, left);
		if (rc != TF_EXIT_OK)
			return rc;
		first += (uint32_t)ninputs[k];
	}
	return TF_EXIT_OK;
}

/* The type compared: BASE's (by name, or its default), else NEW's; a side
 * that lacks it has it as 0 everywhere (it is added there).  Its index in
 * each side into t[2]. */
static int pick_type(const dopt *o, tf_strtab *st, tf_agg *agg[2], int t[2], const char **tname, const char **unit)
{
	int tb = tf_agg_type_pick(agg[0], o->type_name);
	const tf_agg *from = agg[0];
	if (tb < 0 && o->type_name && (tb = tf_agg_type_pick(agg[1], o->type_name)) >= 0)
		from = agg[1];
	if (tb < 0) {
		if (o->type_name)
			tf_msg("no sample type '%s' in '%s' nor in '%s'", o->type_name, o->pos[0], o->pos[1]);
		else
			tf_msg("'%s' has no sample types", o->pos[0]);
		return TF_EXIT_INPUT;
	}
	tf_sample_type ty = tf_agg_type_get(from, tb);
	*tname = tf_strtab_get(st, ty.type);
	*unit = tf_strtab_get(st, ty.unit);
	for (int k = 0; k < 2; k++) {
		t[k] = tf_agg_type_find(agg[k], *tname);
		if (t[k] >= 0 && tf_agg_type_get(agg[k], t[k]).unit != ty.unit) {
			tf_msg("cannot compare: sample type %s is in %s in '%s' and in %s in '%s'", *tname, *unit,
			       o->pos[from == agg[0] ? 0 : 1], tf_strtab_get(st, tf_agg_type_get(agg[k], t[k]).unit),
			       o->pos[k]);
			return TF_EXIT_INPUT;
		}
		if (t[k] < 0 && (t[k] = tf_agg_type(agg[k], *tname, *unit)) < 0) {
			tf_msg("out of memory");
			return TF_EXIT_INPUT;
		}
	}
	return TF_EXIT_OK;
}

/* The rows: the functions tf_fnstats counts on either side (as top counts
 * them), sorted; status by values: a function present with 0 on one side
 * is new / gone too.  0 or TF_ENOMEM. */
static int build_rows(drun *d, const tf_fnstats fs[2])
{
	const dopt *o = d->o;
	d->scale = o->normalize && fs[1].total != 0 ? (double)fs[0].total / (double)fs[1].total : 1;
	d->btot = (double)fs[0].total;
	d->ntot = (double)fs[1].total * d->scale;
	d->rows = calloc((size_t)fs[0].n + fs[1].n + 1, sizeof(row));
	if (!d->rows)
		return TF_ENOMEM;
	for (uint32_t i = 0; i < fs[0].n; i++) {
		const tf_fnstat *b = &fs[0].fn[i];
		int64_t j = tf_fnstats_find(&fs[1], b->name);
		row r = { b->name, (double)b->self, 0, (double)b->total, 0, b->calls, 0, 2, 0 };
		if (j >= 0) {
			const tf_fnstat *n = &fs[1].fn[j];
			r.ns = (double)n->self * d->scale;
			r.nt = (double)n->total * d->scale;
			r.ncalls = n->calls;
			r.status = 0;
		}
		d->rows[d->nrows++] = r;
	}
	for (uint32_t j = 0; j < fs[1].n; j++) {
		const tf_fnstat *n = &fs[1].fn[j];
		if (tf_fnstats_find(&fs[0], n->name) < 0)
			d->rows[d->nrows++] = (row){ n->name, 0, (double)n->self * d->scale, 0, (double)n->total * d->scale,
						     0, n->calls, 1, 0 };
	}
	for (size_t i = 0; i < d->nrows; i++) {
		row *r = &d->rows[i];
		if (r->bt == 0 && r->nt != 0)
			r->status = 1;
		else if (r->nt == 0 && r->bt != 0)
			r->status = 2;
		d->nnew += r->status == 1;
		d->ngone += r->status == 2;
	}
	g_by = o->by;
	g_st = d->st;
	qsort(d->rows, d->nrows, sizeof(row), cmp_row);
	d->nshow = o->count == 0 || (unsigned long long)o->count > d->nrows ? d->nrows : (size_t)o->count;
	d->has_calls = fs[0].calls_type >= 0 && fs[1].calls_type >= 0;
	return 0;
}

/* --fail-above over every row; the reasons on stderr.  TF_EXIT_REGRESSION
 * or TF_EXIT_OK. */
static int check_regressions(drun *d)
{
	const dopt *o = d->o;
	if (o->fail_above < 0)
		return TF_EXIT_OK;
	const char *what = o->by == BY_TOTAL ? "inclusive" : "self", *item = o->paths ? "call path" : "function";
	d->total_regress = rel(d->btot, d->ntot) > o->fail_above;
	char x[64], y[64];
	if (d->total_regress) {
		tf_fmt_value(x, sizeof(x), d->btot, d->unit);
		tf_fmt_value(y, sizeof(y), d->ntot, d->unit);
		tf_msg("regression: the total %s grew by %.1f%% (%s -> %s), more than %g%%", d->tname,
		       rel(d->btot, d->ntot), x, y, o->fail_above);
	}
	for (size_t i = 0; i < d->nrows; i++) {
		row *r = &d->rows[i];
		double b = o->by == BY_TOTAL ? r->bt : r->bs, n = o->by == BY_TOTAL ? r->nt : r->ns;
		double share = fmax(d->btot ? 100.0 * b / d->btot : 0, d->ntot ? 100.0 * n / d->ntot : 0);
		if (!(share >= o->min_share && n > b && rel(b, n) > o->fail_above))
			continue;
		r->regress = 1;
		d->nregress++;
		tf_fmt_value(x, sizeof(x), b, d->unit);
		tf_fmt_value(y, sizeof(y), n, d->unit);
		if (b == 0)
			tf_msg("regression: new %s '%s' has %s %s time %s (%.1f%% of the total), more than --min-share %g%%",
			       item, tf_strtab_get(d->st, r->name), what, d->tname, y, d->ntot ? 100 * n / d->ntot : 0,
			       o->min_share);
		else
			tf_msg("regression: %s '%s' %s %s time grew by %.1f%% (%s -> %s), more than %g%%", item,
			       tf_strtab_get(d->st, r->name), what, d->tname, rel(b, n), x, y, o->fail_above);
	}
	return d->nregress || d->total_regress ? TF_EXIT_REGRESSION : TF_EXIT_OK;
}

/* JSON, schema tracefold-diff/1. */
static void print_json(const drun *d, int rc)
{
	const dopt *o = d->o;
	const char *unit = d->unit;
	const row *rows = d->rows;
	printf("{\n  \"schema\": \"tracefold-diff/1\",\n  \"base\": ");
	tf_json_str(stdout, o->pos[0]);
	printf(",\n  \"new\": ");
	tf_json_str(stdout, o->pos[1]);
	printf(",\n  \"sample_type\": ");
	tf_json_str(stdout, d->tname);
	printf(",\n  \"unit\": ");
	tf_json_str(stdout, unit);
	printf(",\n  \"value_unit\": ");
	tf_json_str(stdout, tf_unit_ns(unit) ? "nanoseconds" : unit);
	printf(",\n  \"by\": \"%s\",\n  \"paths\": %s,\n  \"normalized\": %s,\n  \"scale\": %.6f,\n",
	       o->by == BY_TOTAL ? "total" : "self", o->paths ? "true" : "false", o->normalize ? "true" : "false", d->scale);
	printf("  \"total\": {\"base\": %lld, \"new\": %lld, \"delta\": %lld, \"delta_pct\": ", jv(d->btot, unit),
	       jv(d->ntot, unit), jv(d->ntot - d->btot, unit));
	json_rel(d->btot, d->ntot);
	printf("},\n  \"flame\": ");
	if (o->flame)
		tf_json_str(stdout, o->flame_url ? o->flame_url : o->flame);
	else
		printf("null");
	printf(",\n  \"rows_count\": %zu,\n  \"new_count\": %d,\n  \"gone_count\": %d,\n", d->nrows, d->nnew, d->ngone);
	if (o->fail_above >= 0)
		printf("  \"fail_above_pct\": %g,\n  \"min_share_pct\": %g,\n  \"regression\": %s,\n"
		       "  \"total_regressed\": %s,\n",
		       o->fail_above, o->min_share, rc == TF_EXIT_REGRESSION ? "true" : "false",
		       d->total_regress ? "true" : "false");
	else
		printf("  \"fail_above_pct\": null,\n  \"min_share_pct\": %g,\n  \"regression\": false,\n"
		       "  \"total_regressed\": false,\n", o->min_share);
	printf("  \"rows\": [");
	size_t shown = 0;
	for (size_t i = 0; i < d->nrows; i++) {
		const row *r = &rows[i];
		if (i >= d->nshow && !r->regress)
			continue; /* regressions are always listed */
		printf("%s\n    {\"name\": ", shown++ ? "," : "");
		tf_json_str(stdout, tf_strtab_get(d->st, r->name));
		printf(", \"status\": \"%s\", ", r->status == 1 ? "new" : r->status == 2 ? "gone" : "both");
		printf("\"self\": {\"base\": %lld, \"new\": %lld, \"delta\": %lld, \"delta_pct\": ", jv(r->bs, unit),
		       jv(r->ns, unit), jv(r->ns - r->bs, unit));
		json_rel(r->bs, r->ns);
		printf("}, \"total\": {\"base\": %lld, \"new\": %lld, \"delta\": %lld, \"delta_pct\": ",
		       jv(r->bt, unit), jv(r->nt, unit), jv(r->nt - r->bt, unit));
		json_rel(r->bt, r->nt);
		if (d->has_calls)
			printf("}, \"calls\": {\"base\": %lld, \"new\": %lld, \"delta\": %lld}",
			       (long long)r->bcalls, (long long)r->ncalls, (long long)(r->ncalls - r->bcalls));
		else
			printf("}, \"calls\": null");
		printf(", \"regressed\": %s}", r->regress ? "true" : "false");
	}
	printf("%s]\n}\n", shown ? "\n  " : "");
}

/* Text or Markdown. */
static int print_text(const drun *d, int rc)
{
	const dopt *o = d->o;
	const char *unit = d->unit, *item = o->paths ? "call path" : "function";
	const char *what = o->by == BY_TOTAL ? "inclusive" : "self";
	const row *rows = d->rows;
	int fmt = o->fmt;
	char b1[64], b2[64], b3[64];
	tf_fmt_value(b1, sizeof(b1), d->btot, unit);
	tf_fmt_value(b2, sizeof(b2), d->ntot, unit);
	tf_fmt_delta(b3, sizeof(b3), d->ntot - d->btot, unit);
	char trel_txt[32];
	fmt_rel(trel_txt, sizeof(trel_txt), d->btot, d->ntot);
	if (fmt == FMT_MD)
		printf("**%s** (%s)%s: total %s → %s (%s, %s); %zu %ss, %d new, %d gone; sorted by %s change\n\n", d->tname,
		       unit, o->normalize ? ", NEW normalized to BASE's total" : "", b1, b2, b3, trel_txt, d->nrows, item,
		       d->nnew, d->ngone, what);
	else
		printf("%s (%s)%s: total %s -> %s (%s, %s); %zu %ss, %d new, %d gone; sorted by %s change\n", d->tname,
		       unit, o->normalize ? ", NEW normalized to BASE's total" : "", b1, b2, b3, trel_txt, d->nrows, item,
		       d->nnew, d->ngone, what);
	const char *hdr[] = { "self base", "self new", "self Δ", "self Δ%", "total base", "total new", "total Δ",
			      "total Δ%", o->paths ? "call path" : "function" };
	tf_table tbl;
	tf_table_init(&tbl, 9, "rrrrrrrrl", 8);
	int trc = tf_table_add(&tbl, hdr);
	const char **full = malloc((d->nshow + 1) * sizeof(char *));
	char **shown = malloc((d->nshow + 1) * sizeof(char *));
	if (!full || !shown)
		trc = TF_ENOMEM;
	for (size_t i = 0; i < d->nshow && trc == 0; i++)
		full[i] = tf_strtab_get(d->st, rows[i].name);
	if (trc == 0)
		trc = tf_names_short(full, d->nshow, o->name_width, shown);
	for (size_t i = 0; i < d->nshow && trc == 0; i++) {
		const row *r = &rows[i];
		char c[8][64];
		tf_fmt_value(c[0], 64, r->bs, unit);
		tf_fmt_value(c[1], 64, r->ns, unit);
		tf_fmt_delta(c[2], 64, r->ns - r->bs, unit);
		fmt_rel(c[3], 64, r->bs, r->ns);
		tf_fmt_value(c[4], 64, r->bt, unit);
		tf_fmt_value(c[5], 64, r->nt, unit);
		tf_fmt_delta(c[6], 64, r->nt - r->bt, unit);
		fmt_rel(c[7], 64, r->bt, r->nt);
		const char *cell[9] = { c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], shown[i] };
		trc = tf_table_add(&tbl, cell);
	}
	for (size_t i = 0; shown && full && i < d->nshow; i++)
		free(shown[i]);
	free(shown);
	free(full);
	if (trc < 0) {
		tf_table_free(&tbl);
		tf_msg("out of memory");
		return TF_EXIT_INPUT;
	}
	tf_table_print(&tbl, stdout, fmt == FMT_MD);
	tf_table_free(&tbl);
	if (d->nshow < d->nrows)
		printf("%s(%zu more %ss not shown; -n 0 shows all)\n", fmt == FMT_MD ? "\n" : "", d->nrows - d->nshow, item);
	if (o->fail_above >= 0) {
		if (rc == TF_EXIT_REGRESSION)
			printf("%sREGRESSION: %d %s%s above %g%%%s (min share %g%%)%s\n", fmt == FMT_MD ? "\n**" : "",
			       d->nregress, item, d->nregress == 1 ? "" : "s", o->fail_above,
			       d->total_regress ? ", and the total" : "", o->min_share, fmt == FMT_MD ? "**" : "");
		else
			printf("%sno regression above %g%% (min share %g%%)\n", fmt == FMT_MD ? "\n" : "", o->fail_above,
			       o->min_share);
	}
	if (o->flame && fmt == FMT_MD) {
		printf("\nDifferential flame graph (widths: NEW; red grew, blue shrank since BASE): ");
		tf_md_link(stdout, o->flame, o->flame_url ? o->flame_url : o->flame);
		printf("\n");
	} else if (o->flame) {
		printf("differential flame graph: %s\n", o->flame_url ? o->flame_url : o->flame);
	}
	return TF_EXIT_OK;
}

int tf_cmd_diff(int argc, char **argv)
{
	dopt o = { .by = BY_SELF, .fmt = FMT_TEXT, .fail_above = -1, .min_share = 1, .count = 20,
		   .name_width = TF_NAME_WIDTH_DEFAULT, .gc = { .gopts = TF_GATE_OPTS_DEFAULT, .history_max = 30 } };
	tf_input_opts iopts = { 0 };
	char *argcopy[2] = { NULL, NULL };
	const char **inputs[2] = { NULL, NULL };
	int ninputs[2] = { 0, 0 }, t[2];
	bool worker = false; /* --mpi: a process other than 0 */
	tf_ctx *ctx = NULL;
	tf_agg *agg[2] = { NULL, NULL };
	tf_fnstats fs[2];
	drun d = { .o = &o };
	memset(fs, 0, sizeof(fs));
	int rc = parse_opts(argc, argv, &o, &iopts);
	if (rc != DIFF_GO)
		goto done;
	if (o.gate) {
		rc = run_gate(&o, &iopts);
		goto done;
	}
	if (!(ctx = tf_ctx_new())) {
		tf_msg("out of memory");
		rc = TF_EXIT_INPUT;
		goto done;
	}
	tf_waiting_left left = { 0, 0 };
	if ((rc = load_sides(ctx, &iopts, &o, agg, argcopy, inputs, ninputs, &worker, &left)) != TF_EXIT_OK)
		goto done;
	if (worker) {
		rc = TF_EXIT_WORKER;
		goto done;
	}
	tf_report_diag(ctx);
	tf_say_waiting(&left);
	if ((rc = tf_check_strict(&iopts, ctx)) != TF_EXIT_OK)
		goto done;
	d.st = tf_ctx_strtab(ctx);
	if ((rc = pick_type(&o, tf_ctx_strtab(ctx), agg, t, &d.tname, &d.unit)) != TF_EXIT_OK)
		goto done;
	if (o.flame) {
		/* the picture first: a report that links to it is printed only when it exists */
		for (int k = 0; k < 2; k++)
			if ((rc = tf_output_is_input("diff", o.flame, inputs[k], ninputs[k])) != TF_EXIT_OK)
				goto done;
		tf_flame_opts fo = { .type = t[1], .base = agg[0], .base_name = o.pos[0], .normalize = o.normalize };
		fo.html = tf_flame_is_html(o.flame);
		tf_error ferr;
		tf_error_clear(&ferr);
		if (tf_flame_write(agg[1], &fo, o.flame, NULL, &ferr) < 0) {
			rc = tf_report(&ferr);
			goto done;
		}
	}
	for (int k = 0; k < 2 && o.by_label; k++) { /* a row per label value: the aggregates seen by them */
		tf_agg *view;
		if ((rc = tf_agg_label_view(agg[k], o.by_label, &view)) != TF_EXIT_OK)
			goto done;
		tf_agg_free(agg[k]);
		agg[k] = view;
	}
	if (tf_fnstats_build(&fs[0], agg[0], t[0], o.paths) < 0 || tf_fnstats_build(&fs[1], agg[1], t[1], o.paths) < 0 ||
	    tf_fnstats_warn_saturated(&fs[0]) || tf_fnstats_warn_saturated(&fs[1]) || build_rows(&d, fs) < 0) {
		tf_msg("out of memory");
		rc = TF_EXIT_INPUT;
		goto done;
	}
	rc = check_regressions(&d);
	if (o.fmt == FMT_JSON)
		print_json(&d, rc);
	else if (print_text(&d, rc) != TF_EXIT_OK)
		rc = TF_EXIT_INPUT;
done:
	free(d.rows);
	tf_fnstats_free(&fs[0]);
	tf_fnstats_free(&fs[1]);
	for (int k = 0; k < 2; k++) {
		tf_agg_free(agg[k]);
		free(inputs[k]);
		free(argcopy[k]);
	}
	tf_ctx_free(ctx);
	tf_input_opts_free(&iopts);
	return rc;
}
