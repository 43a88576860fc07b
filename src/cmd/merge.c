/* merge.c - `tracefold merge PROFILE... -o OUT.pb.gz`: sums profiles.
 *
 * Values are added per (call path, label set), so merging is associative
 * and commutative: any grouping and order of the same inputs gives the same
 * samples, and the same bytes: the pprof writer walks them in the
 * aggregate's canonical order (tf_agg_sample_order), comments sorted, the
 * mapping named by the bytewise least input name (docs/cli.md "tracefold
 * profile").  Inputs must have the
 * same set of sample types (name and unit); otherwise exit 3 with a message
 * naming both inputs and their types.  Folded stacks are profiles of one
 * sample type (--folded-type TYPE/UNIT, default samples/count). */
#include <stdlib.h>
#include <string.h>
#include "cmd.h"
#include "tracefold/pprof.h"
#include "tracefold/reader.h"

static void help(const tf_opt *opts)
{
	tf_help_printf("usage: tracefold merge [options] PROFILE... -o OUT.pb.gz\n"
	       "\n"
	       "Sums pprof profiles (gzipped or not; tracefold's or any tool's with the\n"
	       "same sample types) into one gzipped profile: values are added per (call\n"
	       "path, labels), so the order and grouping of the inputs do not matter:\n"
	       "any order writes the same bytes.\n"
	       "Folded stacks and traces are accepted too (traces are profiled on the\n"
	       "way).  Inputs whose sample types differ (e.g. a Go CPU profile and a\n"
	       "tracefold wall-time profile) are refused.\n"
	       "\n"
	       "options:\n");
	tf_opts_help(opts);
	tf_help_printf("\n"
	       "exit status: 0 ok, 2 usage error, 3 unreadable or invalid input, sample types\n"
	       "that differ, or unwritable output\n");
}

int tf_cmd_merge(int argc, char **argv)
{
	const char **inputs = (const char **)calloc((size_t)argc, sizeof(char *));
	const char *out = NULL;
	int ninputs = 0, rc = TF_EXIT_OK;
	tf_ctx *ctx = NULL;
	tf_agg *agg = NULL;
	if (!inputs) {
		tf_msg("out of memory");
		return TF_EXIT_INPUT;
	}
	enum { O_OUTPUT, O_FOLDED_TYPE, O_FORMAT };
	static const tf_opt opts[] = {
		{ O_OUTPUT, "-o", "--output", true, "FILE", "where to write the profile ('-' = stdout); required" },
		{ O_FOLDED_TYPE, NULL, "--folded-type", true, "TYPE/UNIT", "folded stack inputs: the sample type of "
		  "their\nvalues (default samples/count)" },
		{ O_FORMAT, "-F", "--input-format", true, "NAME", "read the inputs as NAME (an input format of\n"
		  "'tracefold --help') instead of sniffing" },
		{ 0, NULL, NULL, false, NULL, NULL },
	};
	const char *folded_type = NULL, *format = NULL;
	tf_optstate os = { 0 };
	const char *v;
	for (int id; (id = tf_opt_next("merge", argc, argv, opts, NULL, &os, &v)) != TF_OPT_DONE;) {
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
			out = v;
			break;
		case O_FOLDED_TYPE:
			if (!tf_folded_type_ok("merge", v)) {
				rc = TF_EXIT_USAGE;
				goto done;
			}
			folded_type = v;
			break;
		case O_FORMAT:
			if (!tf_input_format_ok("merge", v)) {
				rc = TF_EXIT_USAGE;
				goto done;
			}
			format = v;
			break;
		}
	}
	if (!ninputs) {
		rc = tf_usage_error("merge", "no input given");
		goto done;
	}
	if (!out) {
		rc = tf_usage_error("merge", "no output given (use -o OUT.pb.gz, or -o - for stdout)");
		goto done;
	}
	ctx = tf_ctx_new();
	agg = ctx ? tf_agg_new(tf_ctx_strtab(ctx)) : NULL;
	if (!agg) {
		tf_msg("out of memory");
		rc = TF_EXIT_INPUT;
		goto done;
	}
	char note[64];
	snprintf(note, sizeof(note), "tracefold %s merge", TRACEFOLD_VERSION);
	tf_agg_comment(agg, note);
	tf_load_opts lo = { .comments = true, .folded_type = folded_type, .format = format };
	rc = tf_load_inputs(ctx, agg, inputs, ninputs, &lo);
	if (rc != TF_EXIT_OK)
		goto done;
	tf_report_diag(ctx);
	tf_error err;
	tf_error_clear(&err);
	if (tf_pprof_write(agg, out, &err) < 0) {
		rc = tf_report(&err);
		goto done;
	}
	if (tf_verbose)
		tf_msg("%s: %d inputs, %zu samples, %u call paths", out, ninputs, tf_agg_nsamples(agg),
		       tf_agg_nnodes(agg) - 1);
done:
	tf_agg_free(agg);
	tf_ctx_free(ctx);
	free(inputs);
	return rc;
}
