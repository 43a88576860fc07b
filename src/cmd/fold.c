/* fold.c - `tracefold fold INPUT|PROFILE... -o OUT.folded`: folded stacks
 * (Brendan Gregg's collapsed stacks, docs/folded.md) of traces or profiles,
 * one line per call path with its self value of one sample type, for
 * flamegraph.pl, speedscope and inferno.  The writer is the table's
 * "folded" (src/write/folded.c); this command adds the choice of the
 * sample type, as top's --sample-type. */
#include <stdlib.h>
#include <string.h>
#include "cmd.h"
#include "report.h"
#include "tracefold/folded.h"

static void help(const tf_opt *opts)
{
	tf_help_printf("usage: tracefold fold [options] INPUT|PROFILE... -o OUT.folded\n"
	       "\n"
	       "Writes folded stacks (Brendan Gregg's collapsed stacks): one line per call\n"
	       "path, frames root first joined by ';', then the path's self value of one\n"
	       "sample type, summed over every rank and thread:\n"
	       "    main;solve;kernel 66000000\n"
	       "Open it with flamegraph.pl, speedscope or inferno.  Lines are sorted by\n"
	       "their text and lines of value 0 left out; in frame names ';' becomes ':'\n"
	       "and a line end a space (docs/folded.md).  Inputs are traces (as for\n"
	       "'tracefold profile'), pprof profiles or folded stacks; all are summed.\n"
	       "Gzipped when OUT ends in .gz.\n"
	       "\n"
	       "options:\n");
	tf_opts_help(opts);
	tf_help_printf("\n"
	       "trace inputs:\n");
	tf_input_opts_help();
	tf_help_printf("\n"
	       "The output is written to a temporary file and renamed when complete:\n"
	       "nothing is written when an input fails or no call path has a value, and\n"
	       "the output may not be one of the inputs.\n"
	       "\n"
	       "exit status: 0 ok, 2 usage error, 3 unreadable or invalid input, no such\n"
	       "sample type, nothing to write, or unwritable output\n");
}

int tf_cmd_fold(int argc, char **argv)
{
	const char **inputs = (const char **)calloc((size_t)argc, sizeof(char *));
	int ninputs = 0, rc = TF_EXIT_OK;
	const char *out = NULL, *type_name = NULL;
	tf_input_opts iopts = { 0 };
	tf_ctx *ctx = NULL;
	tf_agg *agg = NULL;
	if (!inputs || !(ctx = tf_ctx_new())) {
		free(inputs);
		tf_msg("out of memory");
		return TF_EXIT_INPUT;
	}
	enum { O_OUTPUT, O_SAMPLE_TYPE };
	static const tf_opt opts[] = {
		{ O_OUTPUT, "-o", "--output", true, "FILE", "the file to write ('-' = stdout); required" },
		{ O_SAMPLE_TYPE, NULL, "--sample-type", true, "T", "the sample type of the values (default: the\n"
		  "profile's default type, else wall, else the last\ntype); --sample-index T is the same (calls: call\n"
		  "counts, gpu: GPU time)" },
		{ O_SAMPLE_TYPE, NULL, "--sample-index", true, "T", NULL }, { 0, NULL, NULL, false, NULL, NULL },
	};
	tf_optstate os = { 0 };
	const char *v;
	for (int id; (id = tf_opt_next("fold", argc, argv, opts, &iopts, &os, &v)) != TF_OPT_DONE;) {
		switch (id) {
		case TF_OPT_USAGE:
			rc = TF_EXIT_USAGE;
			goto done;
		case TF_OPT_HELP:
			help(opts);
			goto done;
		case TF_OPT_ARG:
			inputs[ninputs++] = v;
			break;
		case O_OUTPUT:
			if (out) {
				rc = tf_usage_error("fold", "one output only");
				goto done;
			}
			out = v;
			break;
		case O_SAMPLE_TYPE:
			type_name = v;
			break;
		}
	}
	if (!ninputs) {
		rc = tf_usage_error("fold", "no input given");
		goto done;
	}
	if (!out) {
		rc = tf_usage_error("fold", "no output given (use -o OUT.folded, or -o - for stdout)");
		goto done;
	}
	if ((rc = tf_output_is_input("fold", out, inputs, ninputs)) != TF_EXIT_OK)
		goto done;
	agg = tf_agg_new(tf_ctx_strtab(ctx));
	if (!agg) {
		tf_msg("out of memory");
		rc = TF_EXIT_INPUT;
		goto done;
	}
	int t;
	if ((rc = tf_load_report(ctx, agg, inputs, ninputs, &iopts, type_name, &t)) != TF_EXIT_OK)
		goto done;
	tf_error err;
	tf_error_clear(&err);
	if (tf_folded_write(agg, t, out, &err) < 0) {
		rc = tf_report(&err);
		goto done;
	}
	if (tf_verbose)
		tf_msg("%s: %s, %zu samples, %u call paths", out,
		       tf_strtab_get(tf_agg_strtab(agg), tf_agg_type_get(agg, t).type), tf_agg_nsamples(agg),
		       tf_agg_nnodes(agg) - 1);
done:
	tf_agg_free(agg);
	tf_ctx_free(ctx);
	free(inputs);
	tf_input_opts_free(&iopts);
	return rc;
}
