/* top.c - `tracefold top`: hotspot table of traces or profiles.
 *
 * Per function (frame name): self value (samples whose leaf it is),
 * inclusive value (samples with it anywhere on the path, once per sample
 * even under recursion, like pprof's cum), their shares of the total, and
 * calls.  With a rank label of more than one value, per-rank min / mean /
 * max of the INCLUSIVE value and imbalance = max / mean (a rank without the
 * function counts as 0). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cmd.h"
#include "report.h"
#include "sat.h"
#include "tracefold/reader.h"
#include "top_label.h"

enum { BY_SELF, BY_TOTAL, BY_CALLS };
enum { FMT_TEXT = TF_OUT_TEXT, FMT_MD = TF_OUT_MARKDOWN, FMT_JSON = TF_OUT_JSON };

static void help(const tf_opt *opts)
{
	tf_help_printf("usage: tracefold top [options] INPUT|PROFILE...\n"
	       "\n"
	       "Prints the functions with the most time: self time (time with the function\n"
	       "on top of the stack), inclusive time (time with it anywhere on the stack,\n"
	       "counted once per sample under recursion, like pprof's cum), their shares of\n"
	       "the total, and calls.  When the profile has a 'rank' label with more than one\n"
	       "value: per-rank min / mean / max of the inclusive time and the imbalance\n"
	       "max/mean.  Inputs are traces (as for 'tracefold profile') or profiles:\n"
	       "pprof (gzipped or not, ours or any other tool's) or folded stacks\n"
	       "(--folded-type); all are summed.\n"
	       "\n"
	       "options:\n");
	tf_opts_help(opts);
	tf_help_printf("\n"
	       "trace inputs:\n");
	tf_input_opts_help();
	tf_help_printf("\n"
	       "exit status: 0 ok, 2 usage error, 3 unreadable or invalid input\n");
}

typedef struct top_ctx {
	tf_fnstats *s;
	int by;
	const tf_agg *agg;
} top_ctx;

static top_ctx g_sort; /* qsort has no user pointer in C11 */

static int cmp_fn(const void *x, const void *y)
{
	const tf_fnstat *a = &g_sort.s->fn[*(const uint32_t *)x];
	const tf_fnstat *b = &g_sort.s->fn[*(const uint32_t *)y];
	int64_t ka, kb, ta = a->total, tb = b->total;
	switch (g_sort.by) {
	case BY_TOTAL: ka = a->total; kb = b->total; ta = a->self; tb = b->self; break;
	case BY_CALLS: ka = a->calls; kb = b->calls; break;
	default: ka = a->self; kb = b->self; break;
	}
	if (ka != kb)
		return ka > kb ? -1 : 1;
	if (ta != tb)
		return ta > tb ? -1 : 1;
	/* then by name (bytes), not by the order functions were first seen in */
	tf_strtab *st = tf_agg_strtab(g_sort.agg);
	int c = strcmp(tf_strtab_get(st, a->name), tf_strtab_get(st, b->name));
	if (c)
		return c;
	return *(const uint32_t *)x < *(const uint32_t *)y ? -1 : 1;
}

static double pct(double v, double total)
{
	return total != 0 ? 100.0 * v / total : 0.0;
}

typedef struct rankstat {
	int64_t min, max;
	double mean, imbalance;
} rankstat;

/* Per-rank inclusive values of the selected functions; returns nranks (0 or
 * 1: none), -1 when out of memory.
 *
 * No functions x ranks matrix (100k functions on 100k ranks would be 80 GB):
 * the samples are visited rank by rank (a counting sort of their indices),
 * a function's inclusive value on the current rank accumulates in acc[], and
 * when the rank is done each function it touched leaves one (function,
 * value) cell.  Memory: the samples, the functions, and the (function, rank)
 * pairs that have samples.  A rank without the function counts as 0, and a
 * function's values are summed in rank order, as the rows of the matrix
 * were: the figures are the same. */
static int rank_stats(tf_agg *a, const tf_fnstats *s, const uint32_t *order, size_t nsel, rankstat *out)
{
	tf_strtab *st = tf_agg_strtab(a);
	tf_str rank_key = tf_strtab_intern_cstr(st, "rank");
	uint32_t nls = tf_agg_nlabelsets(a);
	size_t nsamp = tf_agg_nsamples(a);
	int32_t *rank_of = malloc(((size_t)nls + 1) * sizeof(int32_t));
	tf_hmap ranks = { 0 };
	int nranks = 0;
	int32_t *sel = NULL;
	uint32_t *stamp = NULL, *first = NULL, *by_rank = NULL, *seen = NULL, *touched = NULL;
	uint32_t *cell_fn = NULL, *fn_first = NULL;
	int64_t *acc = NULL, *cell_v = NULL, *fn_v = NULL;
	uint32_t ncells = 0, capcells = 0, capv = 0;
	if (!rank_of)
		return -1;
	for (uint32_t l = 0; l < nls; l++) {
		const tf_label *ls;
		int n = tf_agg_labelset_get(a, l, &ls);
		rank_of[l] = -1;
		for (int k = 0; k < n; k++) {
			if (ls[k].key != rank_key)
				continue;
			/* key: the string id, or the number tagged in the top bit */
			uint64_t key = ls[k].str ? ls[k].str : (1ull << 63) ^ (uint64_t)ls[k].num;
			uint32_t r = tf_hmap_get(&ranks, key);
			if (r == UINT32_MAX) {
				r = (uint32_t)nranks++;
				if (tf_hmap_put(&ranks, key, r) < 0)
					goto oom;
			}
			rank_of[l] = (int32_t)r;
		}
	}
	if (nranks < 2)
		goto out;
	sel = malloc(((size_t)s->n + 1) * sizeof(int32_t));
	stamp = calloc((size_t)s->n + 1, sizeof(uint32_t));
	first = calloc((size_t)nranks + 2, sizeof(uint32_t));
	by_rank = malloc((nsamp + 1) * sizeof(uint32_t));
	acc = calloc(nsel + 1, sizeof(int64_t));
	seen = calloc(nsel + 1, sizeof(uint32_t));
	touched = malloc((nsel + 1) * sizeof(uint32_t));
	fn_first = calloc(nsel + 2, sizeof(uint32_t));
	if (!sel || !stamp || !first || !by_rank || !acc || !seen || !touched || !fn_first)
		goto oom;
	for (uint32_t f = 0; f < s->n; f++)
		sel[f] = -1;
	for (size_t i = 0; i < nsel; i++)
		sel[order[i]] = (int32_t)i;
	/* the samples by rank, in sample order within a rank: first[r] ..
	 * first[r + 1] index rank r's samples in by_rank */
	for (size_t k = 0; k < nsamp; k++) {
		tf_agg_sample smp = tf_agg_sample_get(a, k);
		int32_t r = rank_of[smp.labelset];
		if (r >= 0 && smp.node != TF_AGG_ROOT)
			first[r + 2]++;
	}
	for (int r = 0; r < nranks; r++)
		first[r + 2] += first[r + 1];
	for (size_t k = 0; k < nsamp; k++) {
		tf_agg_sample smp = tf_agg_sample_get(a, k);
		int32_t r = rank_of[smp.labelset];
		if (r >= 0 && smp.node != TF_AGG_ROOT)
			by_rank[first[r + 1]++] = (uint32_t)k;
	}
	for (int r = 0; r < nranks; r++) {
		uint32_t ntouched = 0;
		for (uint32_t j = first[r]; j < first[r + 1]; j++) {
			uint32_t k = by_rank[j];
			tf_agg_sample smp = tf_agg_sample_get(a, k);
			int64_t v = tf_agg_sample_value(a, k, s->type);
			/* inclusive: each function once per sample, even under recursion */
			for (uint32_t n = smp.node; n != TF_AGG_ROOT; n = tf_agg_node_get(a, n)->parent) {
				uint32_t f = s->node_fn[n];
				if (f == UINT32_MAX || sel[f] < 0 || stamp[f] == k + 1)
					continue;
				stamp[f] = k + 1;
				uint32_t i = (uint32_t)sel[f];
				if (seen[i] != (uint32_t)r + 1) {
					seen[i] = (uint32_t)r + 1;
					touched[ntouched++] = i;
				}
				acc[i] = tf_sat_add(acc[i], v);
			}
		}
		if (tf_grow((void **)&cell_fn, &capcells, ncells + ntouched, sizeof(uint32_t)) < 0 ||
		    tf_grow((void **)&cell_v, &capv, ncells + ntouched, sizeof(int64_t)) < 0)
			goto oom;
		for (uint32_t t = 0; t < ntouched; t++) {
			uint32_t i = touched[t];
			cell_fn[ncells] = i;
			cell_v[ncells++] = acc[i];
			fn_first[i + 2]++;
			acc[i] = 0;
		}
	}
	/* the cells by function, in rank order within a function (stable) */
	fn_v = malloc(((size_t)ncells + 1) * sizeof(int64_t));
	if (!fn_v)
		goto oom;
	for (size_t i = 0; i < nsel; i++)
		fn_first[i + 2] += fn_first[i + 1];
	for (uint32_t c = 0; c < ncells; c++)
		fn_v[fn_first[cell_fn[c] + 1]++] = cell_v[c];
	for (size_t i = 0; i < nsel; i++) {
		uint32_t c0 = fn_first[i], c1 = fn_first[i + 1];
		/* ranks without the function hold 0 */
		int64_t mn = c1 - c0 < (uint32_t)nranks ? 0 : fn_v[c0], mx = mn;
		double sum = 0;
		for (uint32_t c = c0; c < c1; c++) {
			if (fn_v[c] < mn)
				mn = fn_v[c];
			if (fn_v[c] > mx)
				mx = fn_v[c];
			sum += (double)fn_v[c];
		}
		rankstat rs = { mn, mx, sum / nranks, 0 };
		rs.imbalance = rs.mean > 0 ? (double)rs.max / rs.mean : 0;
		out[i] = rs;
	}
	goto out;
oom:
	nranks = -1;
out:
	free(rank_of);
	free(sel);
	free(stamp);
	free(first);
	free(by_rank);
	free(acc);
	free(seen);
	free(touched);
	free(cell_fn);
	free(cell_v);
	free(fn_first);
	free(fn_v);
	tf_hmap_free(&ranks);
	return nranks;
}

#define json_val tf_json_int

/* What top was asked for. */
typedef struct top_args {
	const char **inputs;
	int ninputs;
	int by, fmt;
	long long count;
	size_t name_width;
	const char *type_name;
	const char *by_label;   /* --by-label KEYS: totals per label value (top_label.c) */
	tf_input_opts iopts;
} top_args;

/* The command line into *a; TF_EXIT_OK, or the status of help (*helped)
 * or a usage error (printed). */
static int top_parse(top_args *a, int argc, char **argv, bool *helped)
{
	enum { O_COUNT, O_BY, O_FORMAT, O_SAMPLE_INDEX, O_NAME_WIDTH, O_BY_LABEL, O_KEEP_WAITING };
	static const tf_opt opts[] = {
		{ O_COUNT, "-n", "--count", true, "N", "show the N first functions (default 20, 0 = all)" },
		{ O_BY, NULL, "--by", true, "KEY", "sort by self (default), total (inclusive) or calls" },
		{ O_FORMAT, NULL, "--format", true, "FMT", "text (default), markdown (GitHub table) or json" },
		{ O_SAMPLE_INDEX, NULL, "--sample-index", true, "T", "the sample type to rank by (default: the profile's\n"
		  "default type, else wall, else the last type);\n--sample-type T is the same (gpu: GPU time)" },
		{ O_SAMPLE_INDEX, NULL, "--sample-type", true, "T", NULL },
		{ O_NAME_WIDTH, NULL, "--name-width", true, "N", TF_NAME_WIDTH_TEXT },
		{ O_BY_LABEL, NULL, "--by-label", true, "KEYS", "totals per value of these labels (comma-separated),\n"
		  "not per function: --by-label collective,comm_bytes" },
		{ O_KEEP_WAITING, NULL, "--keep-waiting", false, NULL, "keep the threads that only wait (left out by\n"
		  "default; 'tracefold info' lists them)" },
		{ 0, NULL, NULL, false, NULL, NULL },
	};
	tf_optstate os = { 0 };
	const char *v;
	for (int id; (id = tf_opt_next("top", argc, argv, opts, &a->iopts, &os, &v)) != TF_OPT_DONE;) {
		switch (id) {
		case TF_OPT_USAGE:
			return TF_EXIT_USAGE;
		case TF_OPT_HELP:
			help(opts);
			*helped = true;
			return TF_EXIT_OK;
		case TF_OPT_ARG:
			a->inputs[a->ninputs++] = v;
			break;
		case O_COUNT:
			if (!tf_parse_i64(v, &a->count))
				return tf_usage_error("top", "'%s' needs a non-negative integer, not '%s'", os.opt, v);
			break;
		case O_BY:
			if (!strcmp(v, "self"))
				a->by = BY_SELF;
			else if (!strcmp(v, "total"))
				a->by = BY_TOTAL;
			else if (!strcmp(v, "calls"))
				a->by = BY_CALLS;
			else
				return tf_usage_error("top", "--by takes self, total or calls, not '%s'", v);
			break;
		case O_FORMAT:
			if (tf_out_format("top", v, TF_OUT_TEXT | TF_OUT_MARKDOWN | TF_OUT_JSON, &a->fmt) < 0)
				return TF_EXIT_USAGE;
			break;
		case O_SAMPLE_INDEX:
			a->type_name = v;
			break;
		case O_NAME_WIDTH:
			if (tf_name_width("top", v, &a->name_width) < 0)
				return TF_EXIT_USAGE;
			break;
		case O_BY_LABEL:
			a->by_label = v;
			break;
		case O_KEEP_WAITING:
			a->iopts.keep_waiting = true;
			break;
		}
	}
	return a->ninputs ? TF_EXIT_OK : tf_usage_error("top", "no input given");
}

/* The table top shows: the functions in order, the first nsel of them. */
typedef struct top_view {
	tf_fnstats s;
	uint32_t *order;
	size_t nsel;
	rankstat *rs;
	int nranks;
	const char *tname, *unit;
	int64_t unattributed; /* gpu: the time under "[unattributed gpu]", -1 another type */
	const tf_diag *diag;  /* the run's, for the reasons */
} top_view;

/* The functions of type t of agg sorted by a->by, and their ranks' spread. */
static int top_compute(const top_args *a, tf_agg *agg, int t, top_view *v)
{
	tf_strtab *st = tf_agg_strtab(agg);
	tf_sample_type ty = tf_agg_type_get(agg, t);
	v->tname = tf_strtab_get(st, ty.type);
	v->unit = tf_strtab_get(st, ty.unit);
	if (tf_fnstats_build(&v->s, agg, t, 0) < 0 || tf_fnstats_warn_saturated(&v->s)) {
		tf_msg("out of memory");
		return TF_EXIT_INPUT;
	}
	if (a->by == BY_CALLS && v->s.calls_type < 0)
		return tf_usage_error("top", "--by calls: the input has no 'calls' sample type");
	if (!(v->order = malloc(((size_t)v->s.n + 1) * sizeof(uint32_t)))) {
		tf_msg("out of memory");
		return TF_EXIT_INPUT;
	}
	for (uint32_t i = 0; i < v->s.n; i++)
		v->order[i] = i;
	g_sort = (top_ctx){ &v->s, a->by, agg };
	qsort(v->order, v->s.n, sizeof(uint32_t), cmp_fn);
	v->unattributed = -1;
	if (!strcmp(v->tname, "gpu") && tf_unit_ns(v->unit) == 1) { /* docs/gpu.md "Coverage" */
		tf_str u = tf_strtab_intern_cstr(st, "[unattributed gpu]");
		int64_t k = u ? tf_fnstats_find(&v->s, u) : -1;
		v->unattributed = k >= 0 ? v->s.fn[k].total : 0;
	}
	v->nsel = a->count == 0 || (unsigned long long)a->count > v->s.n ? v->s.n : (size_t)a->count;
	v->rs = calloc(v->nsel + 1, sizeof(rankstat));
	v->nranks = v->rs ? rank_stats(agg, &v->s, v->order, v->nsel, v->rs) : -1;
	if (v->nranks < 0) {
		tf_msg("out of memory");
		return TF_EXIT_INPUT;
	}
	return TF_EXIT_OK;
}

static const char *by_name(int by)
{
	return by == BY_TOTAL ? "total" : by == BY_CALLS ? "calls" : "self";
}

static void top_json(const top_args *a, const tf_strtab *st, const top_view *v)
{
	const tf_fnstats *s = &v->s;
	const char *unit = v->unit;
	bool has_calls = s->calls_type >= 0, has_ranks = v->nranks > 1;
	bool time = tf_unit_ns(unit) != 0;
	printf("{\n  \"schema\": \"tracefold-top/1\",\n  \"inputs\": [");
	for (int i = 0; i < a->ninputs; i++) {
		printf(i ? ", " : "");
		tf_json_str(stdout, a->inputs[i]);
	}
	printf("],\n  \"sample_type\": ");
	tf_json_str(stdout, v->tname);
	printf(",\n  \"unit\": ");
	tf_json_str(stdout, unit);
	printf(",\n  \"value_unit\": ");
	tf_json_str(stdout, time ? "nanoseconds" : unit);
	printf(",\n  \"by\": \"%s\",\n  \"total\": %lld,\n", by_name(a->by), json_val((double)s->total, unit));
	if (has_calls)
		printf("  \"calls_total\": %lld,\n", (long long)s->calls_total);
	else
		printf("  \"calls_total\": null,\n");
	printf("  \"functions_count\": %u,\n  \"ranks\": %d,\n  \"functions\": [", s->n, has_ranks ? v->nranks : 0);
	for (size_t i = 0; i < v->nsel; i++) {
		const tf_fnstat *f = &s->fn[v->order[i]];
		const rankstat *r = &v->rs[i];
		printf("%s\n    {\"name\": ", i ? "," : "");
		tf_json_str(stdout, tf_strtab_get(st, f->name));
		printf(", \"self\": %lld, \"self_pct\": %.4f, \"total\": %lld, \"total_pct\": %.4f, ",
		       json_val((double)f->self, unit), pct((double)f->self, (double)s->total),
		       json_val((double)f->total, unit), pct((double)f->total, (double)s->total));
		if (has_calls)
			printf("\"calls\": %lld, ", (long long)f->calls);
		else
			printf("\"calls\": null, ");
		if (has_ranks)
			printf("\"rank_total\": {\"min\": %lld, \"mean\": %lld, \"max\": %lld, \"imbalance\": %.4f}}",
			       json_val((double)r->min, unit), json_val(r->mean, unit), json_val((double)r->max, unit),
			       r->imbalance);
		else
			printf("\"rank_total\": null}");
	}
	printf("%s]", v->nsel ? "\n  " : "");
	if (v->unattributed >= 0) {
		printf(",\n  \"coverage\": ");
		tf_gpu_coverage_json(stdout, v->diag, s->total, v->unattributed, "  ");
	}
	printf("\n}\n");
}

/* The rows of the text and Markdown table into tb (its header added). */
static int top_rows(const top_args *a, const tf_strtab *st, const top_view *v, tf_table *tb)
{
	const tf_fnstats *s = &v->s;
	bool has_calls = s->calls_type >= 0, has_ranks = v->nranks > 1;
	const char **full = malloc((v->nsel + 1) * sizeof(char *));
	char **shown = calloc(v->nsel + 1, sizeof(char *));
	int trc = full && shown ? 0 : TF_ENOMEM;
	for (size_t i = 0; i < v->nsel && trc == 0; i++)
		full[i] = tf_strtab_get(st, s->fn[v->order[i]].name);
	if (trc == 0)
		trc = tf_names_short(full, v->nsel, a->name_width, shown);
	for (size_t i = 0; i < v->nsel && trc == 0; i++) {
		const tf_fnstat *f = &s->fn[v->order[i]];
		const rankstat *r = &v->rs[i];
		char b[10][64];
		const char *cell[10];
		int c = 0;
		tf_fmt_value(b[c], 64, (double)f->self, v->unit), cell[c] = b[c], c++;
		snprintf(b[c], 64, "%.2f%%", pct((double)f->self, (double)s->total)), cell[c] = b[c], c++;
		tf_fmt_value(b[c], 64, (double)f->total, v->unit), cell[c] = b[c], c++;
		snprintf(b[c], 64, "%.2f%%", pct((double)f->total, (double)s->total)), cell[c] = b[c], c++;
		if (has_calls)
			snprintf(b[c], 64, "%lld", (long long)f->calls), cell[c] = b[c], c++;
		if (has_ranks) {
			tf_fmt_value(b[c], 64, (double)r->min, v->unit), cell[c] = b[c], c++;
			tf_fmt_value(b[c], 64, r->mean, v->unit), cell[c] = b[c], c++;
			tf_fmt_value(b[c], 64, (double)r->max, v->unit), cell[c] = b[c], c++;
			snprintf(b[c], 64, "%.2f", r->imbalance), cell[c] = b[c], c++;
		}
		cell[c++] = shown[i];
		trc = tf_table_add(tb, cell);
	}
	for (size_t i = 0; shown && i < v->nsel; i++)
		free(shown[i]);
	free(shown);
	free(full);
	return trc;
}

/* Text and Markdown: a title line and one table. */
static int top_table(const top_args *a, const tf_strtab *st, const top_view *v)
{
	const tf_fnstats *s = &v->s;
	bool has_calls = s->calls_type >= 0, has_ranks = v->nranks > 1;
	const char *hdr[10];
	char align[11];
	int nc = 0;
#define COL(h, al) (hdr[nc] = (h), align[nc++] = (al))
	COL("self", 'r');
	COL("self%", 'r');
	COL("total", 'r');
	COL("total%", 'r');
	if (has_calls)
		COL("calls", 'r');
	if (has_ranks) {
		COL("rank min", 'r');
		COL("rank mean", 'r');
		COL("rank max", 'r');
		COL("imbalance", 'r');
	}
	COL("function", 'l');
#undef COL
	align[nc] = '\0';
	tf_table tb;
	tf_table_init(&tb, nc, align, nc - 1);
	int trc = tf_table_add(&tb, hdr);
	if (trc == 0)
		trc = top_rows(a, st, v, &tb);
	if (trc < 0) {
		tf_table_free(&tb);
		tf_msg("out of memory");
		return TF_EXIT_INPUT;
	}
	char tot[64], calls_txt[64] = "", ranks_txt[64] = "";
	tf_fmt_value(tot, sizeof(tot), (double)s->total, v->unit);
	if (has_calls)
		snprintf(calls_txt, sizeof(calls_txt), ", %lld calls", (long long)s->calls_total);
	if (has_ranks)
		snprintf(ranks_txt, sizeof(ranks_txt), ", %d ranks", v->nranks);
	bool md = a->fmt == FMT_MD;
	printf(md ? "**%s** (%s): total %s%s in %u functions%s; top %zu by %s\n\n"
		  : "%s (%s): total %s%s in %u functions%s; top %zu by %s\n",
	       v->tname, v->unit, tot, calls_txt, s->n, ranks_txt, v->nsel, by_name(a->by));
	tf_table_print(&tb, stdout, md);
	tf_table_free(&tb);
	if (v->unattributed >= 0) {
		printf(md ? "\n" : "");
		tf_gpu_coverage_text(stdout, v->diag, s->total, v->unattributed);
	}
	return TF_EXIT_OK;
}

int tf_cmd_top(int argc, char **argv)
{
	top_args a = { .inputs = (const char **)calloc((size_t)argc + 1, sizeof(char *)), .by = BY_SELF,
		       .fmt = FMT_TEXT, .count = 20, .name_width = TF_NAME_WIDTH_DEFAULT };
	tf_ctx *ctx = tf_ctx_new();
	tf_agg *agg = ctx ? tf_agg_new(tf_ctx_strtab(ctx)) : NULL;
	top_view v;
	memset(&v, 0, sizeof(v));
	bool helped = false;
	int rc = TF_EXIT_OK, t = -1;
	tf_waiting_left left = { 0, 0 };
	if (!a.inputs || !agg) {
		tf_msg("out of memory");
		rc = TF_EXIT_INPUT;
	}
	if (rc == TF_EXIT_OK && (rc = top_parse(&a, argc, argv, &helped)) == TF_EXIT_OK && !helped &&
	    (rc = tf_load_report(ctx, agg, a.inputs, a.ninputs, &a.iopts, a.type_name, &t)) == TF_EXIT_OK &&
	    (rc = tf_leave_out_waiting(&agg, &a.iopts, &left)) == TF_EXIT_OK)
		tf_say_waiting(&left);
	if (rc == TF_EXIT_OK && !helped && a.by_label) {
		rc = tf_top_by_label(agg, t, a.by_label, a.fmt, a.count, a.inputs, a.ninputs);
	} else if (rc == TF_EXIT_OK && !helped &&
		   (v.diag = tf_ctx_diag(ctx), rc = top_compute(&a, agg, t, &v)) == TF_EXIT_OK) {
		if (a.fmt == FMT_JSON)
			top_json(&a, tf_agg_strtab(agg), &v);
		else
			rc = top_table(&a, tf_agg_strtab(agg), &v);
	}
	free(v.order);
	free(v.rs);
	tf_fnstats_free(&v.s);
	tf_agg_free(agg);
	tf_ctx_free(ctx);
	free(a.inputs);
	tf_input_opts_free(&a.iopts);
	return rc;
}
