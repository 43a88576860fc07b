/* flame.c - `tracefold flame`: a flame graph picture (SVG or HTML) of
 * traces or profiles, or with --diff the differential flame graph of two
 * runs.  The drawing is the library's (include/tracefold/flame.h). */
#include <stdlib.h>
#include <string.h>
#include "cmd.h"
#include "tracefold/flame.h"

static void help(const tf_opt *opts)
{
	tf_help_printf("usage: tracefold flame [options] INPUT|PROFILE... -o OUT.svg\n"
	       "       tracefold flame --diff BASE [options] NEW... -o OUT.svg\n"
	       "\n"
	       "Draws a flame graph as one standalone file: SVG (no scripts, fonts or\n"
	       "links; opens offline in any browser, fits a CI artifact or a report), or\n"
	       "HTML (--html, or a name ending in .html) with click-to-zoom and a search\n"
	       "box.  A frame's width is its inclusive value of the sample type; frames\n"
	       "are ordered by name and colored by a hash of it, so a function keeps its\n"
	       "place and color from run to run; tooltips give total, self, calls and\n"
	       "shares.  Frames narrower than --min-width are merged into one [...] box\n"
	       "per parent.  With --diff, widths come from NEW and colors from the change\n"
	       "of each frame's self value since BASE: red grew, blue shrank, deeper for a\n"
	       "larger change; frames new in NEW are outlined, and a tooltip names the\n"
	       "children gone since BASE.  Inputs are traces (as for 'tracefold profile')\n"
	       "or profiles; BASE may join several with ','.  docs/flame.md.\n"
	       "\n"
	       "options:\n");
	tf_opts_help(opts);
	tf_help_printf("\n"
	       "trace inputs:\n");
	tf_input_opts_help();
	tf_help_printf("\n"
	       "exit status: 0 ok, 2 usage error, 3 unreadable or invalid input, nothing to\n"
	       "draw, or unwritable output\n");
}

/* Whether any label set of a has the label --by KEY draws (rank: rank;
 * thread: thread; else KEY). */
static bool has_label(const tf_agg *a, const char *by)
{
	tf_strtab *st = tf_agg_strtab(a);
	for (uint32_t l = 0; l < tf_agg_nlabelsets(a); l++) {
		const tf_label *ls;
		int n = tf_agg_labelset_get(a, l, &ls);
		for (int k = 0; k < n; k++)
			if (!strcmp(tf_strtab_get(st, ls[k].key), by))
				return true;
	}
	return false;
}

/* What flame was asked for. */
typedef struct flame_args {
	const char **inputs;
	int ninputs;
	const char *out, *type_name, *base_arg;
	tf_input_opts iopts;
	tf_flame_opts fo;
} flame_args;

/* The command line into *a; TF_EXIT_OK, or the status of help (*helped)
 * or a usage error (printed). */
static int flame_parse(flame_args *a, int argc, char **argv, bool *helped)
{
	const char **inputs = a->inputs;
	tf_flame_opts *fo = &a->fo;
	bool html = false;
	enum { O_OUTPUT, O_DIFF, O_NORMALIZE, O_TYPE, O_BY, O_MIN_WIDTH, O_WIDTH, O_TITLE, O_ICICLE, O_COLORS, O_HTML };
	static const tf_opt opts[] = {
		{ O_OUTPUT, "-o", "--output", true, "FILE", "the picture to write ('-' = stdout); required" },
		{ O_DIFF, NULL, "--diff", true, "BASE", "a differential flame graph against BASE" },
		{ O_NORMALIZE, NULL, "--normalize", false, NULL, "diff: scale BASE to NEW's total first (compare "
		  "shares)" },
		{ O_TYPE, NULL, "--sample-type", true, "T", "the value drawn (default: the profile's default type,\n"
		  "else wall, else the last type; gpu: GPU time);\n--sample-index T is the same" },
		{ O_TYPE, NULL, "--sample-index", true, "T", NULL },
		{ O_BY, NULL, "--by", true, "KEY", "a frame per rank ('rank'), per thread ('thread'), or\nper value of "
		  "another label under the root" },
		{ O_MIN_WIDTH, NULL, "--min-width", true, "PX", "frames narrower than PX pixels go into [...] (default\n"
		  "0.5)" },
		{ O_WIDTH, NULL, "--width", true, "PX", "picture width (default 1200)" },
		{ O_TITLE, NULL, "--title", true, "T", "the title (default: 'Flame graph: ' and the input)" },
		{ O_ICICLE, NULL, "--icicle", false, NULL, "root at the top, callees below it" },
		{ O_COLORS, NULL, "--colors", true, "C", "hash (default: by name) or category (Python, PyTorch\n"
		  "operator, GPU, CUDA/HIP runtime, MPI, other; with a\nlegend)" },
		{ O_HTML, NULL, "--html", false, NULL, "an HTML page with zoom and search (the default for a\nname "
		  "ending in .html)" },
		{ 0, NULL, NULL, false, NULL, NULL },
	};
	tf_optstate os = { 0 };
	const char *v;
	for (int id; (id = tf_opt_next("flame", argc, argv, opts, &a->iopts, &os, &v)) != TF_OPT_DONE;) {
		double d;
		long long n;
		switch (id) {
		case TF_OPT_USAGE:
			return TF_EXIT_USAGE;
		case TF_OPT_HELP:
			help(opts);
			*helped = true;
			return TF_EXIT_OK;
		case TF_OPT_ARG:
			inputs[a->ninputs++] = v;
			break;
		case O_OUTPUT:
			a->out = v;
			break;
		case O_DIFF:
			a->base_arg = v;
			break;
		case O_NORMALIZE:
			fo->normalize = true;
			break;
		case O_TYPE:
			a->type_name = v;
			break;
		case O_BY:
			if (!*v)
				return tf_usage_error("flame", "--by needs a label: rank, thread or another label key");
			fo->by = v;
			break;
		case O_MIN_WIDTH:
			if (!tf_parse_double(v, &d) || !(d > 0 && d <= 1000))
				return tf_usage_error("flame", "--min-width needs pixels above 0 and at most 1000 (0.5, 2), not '%s'", v);
			fo->min_width = d;
			break;
		case O_WIDTH:
			if (!tf_parse_i64(v, &n) || n < 100 || n > 100000)
				return tf_usage_error("flame", "--width needs pixels from 100 to 100000, not '%s'", v);
			fo->width = (int)n;
			break;
		case O_TITLE:
			fo->title = v;
			break;
		case O_ICICLE:
			fo->icicle = true;
			break;
		case O_COLORS:
			if (!strcmp(v, "hash"))
				fo->colors = TF_FLAME_COLOR_HASH;
			else if (!strcmp(v, "category"))
				fo->colors = TF_FLAME_COLOR_CATEGORY;
			else
				return tf_usage_error("flame", "--colors takes hash or category, not '%s'", v);
			break;
		case O_HTML:
			html = true;
			break;
		}
	}
	if (!a->ninputs)
		return tf_usage_error("flame", a->base_arg ? "no NEW input given (flame --diff BASE NEW -o OUT.svg)"
						      : "no input given");
	if (!a->out)
		return tf_usage_error("flame", "no output given (use -o OUT.svg, or -o - for stdout)");
	if (fo->normalize && !a->base_arg)
		return tf_usage_error("flame", "--normalize compares two runs: it needs --diff BASE");
	if (a->base_arg && fo->colors == TF_FLAME_COLOR_CATEGORY)
		return tf_usage_error("flame", "--colors category: a differential flame graph is colored by the change");
	fo->html = html || tf_flame_is_html(a->out);
	return tf_output_is_input("flame", a->out, inputs, a->ninputs);
}

int tf_cmd_flame(int argc, char **argv)
{
	flame_args a = { .inputs = (const char **)calloc((size_t)argc + 1, sizeof(char *)) };
	int rc = TF_EXIT_OK;
	bool helped = false, worker = false; /* worker: --mpi, a process other than 0 */
	tf_ctx *ctx = NULL;
	tf_agg *agg = NULL, *base = NULL;
	char *base_copy = NULL;
	const char **base_inputs = NULL;
	if (!a.inputs) {
		tf_msg("out of memory");
		return TF_EXIT_INPUT;
	}
	if ((rc = flame_parse(&a, argc, argv, &helped)) != TF_EXIT_OK || helped)
		goto done;
	const char **inputs = a.inputs, *out = a.out, *type_name = a.type_name, *base_arg = a.base_arg;
	int ninputs = a.ninputs;
	tf_input_opts *iopts = &a.iopts;
	tf_flame_opts fo = a.fo;
	ctx = tf_ctx_new();
	agg = ctx ? tf_agg_new(tf_ctx_strtab(ctx)) : NULL;
	if (!agg) {
		tf_msg("out of memory");
		rc = TF_EXIT_INPUT;
		goto done;
	}
	tf_input_opts_apply(iopts, ctx);
	uint32_t first = 0;
	if (base_arg) {
		int nb = tf_split_inputs(base_arg, &base_copy, &base_inputs);
		if (nb < 0 || !(base = tf_agg_new(tf_ctx_strtab(ctx)))) {
			tf_msg("out of memory");
			rc = TF_EXIT_INPUT;
			goto done;
		}
		if (!nb) {
			rc = tf_usage_error("flame", "empty input '%s'", base_arg);
			goto done;
		}
		if ((rc = tf_output_is_input("flame", out, base_inputs, nb)) != TF_EXIT_OK)
			goto done;
		tf_load_opts lb = tf_input_load_opts(iopts);
		if ((rc = tf_load_inputs(ctx, base, base_inputs, nb, &lb)) == TF_EXIT_WORKER)
			worker = true; /* --mpi: process 0 draws; BASE and the inputs are two runs */
		else if (rc != TF_EXIT_OK)
			goto done;
		first = (uint32_t)nb;
	}
	tf_load_opts lo = tf_input_load_opts(iopts);
	lo.first_input = first;
	if ((rc = tf_load_inputs(ctx, agg, inputs, ninputs, &lo)) != TF_EXIT_OK)
		goto done;
	if (worker) {
		rc = TF_EXIT_WORKER;
		goto done;
	}
	tf_report_diag(ctx);
	if ((rc = tf_check_strict(iopts, ctx)) != TF_EXIT_OK)
		goto done;
	/* the type as diff picks it: from BASE in a diff, then the same name in NEW */
	if ((fo.type = tf_pick_type(base ? base : agg, type_name, base ? "BASE" : "the input")) < 0) {
		rc = TF_EXIT_INPUT;
		goto done;
	}
	if (base) {
		tf_strtab *st = tf_ctx_strtab(ctx);
		const char *tn = tf_strtab_get(st, tf_agg_type_get(base, fo.type).type);
		if ((fo.type = tf_agg_type_find(agg, tn)) < 0) {
			tf_msg("cannot compare: '%s' has sample type %s, the NEW inputs have not", base_arg, tn);
			rc = TF_EXIT_INPUT;
			goto done;
		}
	}
	if (fo.by && !has_label(agg, fo.by) && !(base && has_label(base, fo.by))) {
		tf_msg("--by %s: no sample has a '%s' label (see 'go tool pprof -raw' for the labels)", fo.by, fo.by);
		rc = TF_EXIT_INPUT;
		goto done;
	}
	fo.base = base;
	fo.base_name = base_arg;
	tf_flame_stats stats;
	tf_error err;
	tf_error_clear(&err);
	if (tf_flame_write(agg, &fo, out, &stats, &err) < 0) {
		rc = tf_report(&err);
		goto done;
	}
	if (tf_verbose)
		tf_msg("%s: %llu call paths, %llu frames drawn, %llu paths in [...] boxes", out,
		       (unsigned long long)stats.paths, (unsigned long long)stats.frames,
		       (unsigned long long)stats.merged);
done:
	tf_agg_free(agg);
	tf_agg_free(base);
	tf_ctx_free(ctx);
	free(a.inputs);
	free(base_copy);
	free(base_inputs);
	tf_input_opts_free(&a.iopts);
	return rc;
}
