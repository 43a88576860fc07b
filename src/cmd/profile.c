/* profile.c - `tracefold profile`: traces -> one gzipped pprof profile. */
#include <stdlib.h>
#include <string.h>
#include "cmd.h"
#include "tracefold/reader.h"
#include "tracefold/pprof.h"

static void help(void)
{
	printf("usage: tracefold profile [options] INPUT... -o OUT.pb.gz\n"
	       "\n"
	       "Reads every INPUT (Chrome/PyTorch trace JSON, optionally gzipped; a TAU\n"
	       "trace directory, .trc file or merged tau.trc; an OTF2 anchor or its\n"
	       "directory), rebuilds each thread's call stack and writes one gzipped\n"
	       "pprof profile of all of them.  Sample types: calls/count and\n"
	       "wall/nanoseconds (default); wall is each call path's SELF time, so\n"
	       "pprof's flat = self time and cum = inclusive time.  Labels: rank (or\n"
	       "pid when no rank is known) and thread.  An INPUT may also be a pprof\n"
	       "profile (ours or another tool's): it is added as it is.\n"
	       "\n"
	       "options:\n"
	       "  -o, --output FILE    where to write the profile ('-' = stdout); required\n"
	       TF_INPUT_OPTS_HELP
	       "  -h, --help           this text\n"
	       "\n"
	       "The profile is written to a temporary file and renamed to OUT when it is\n"
	       "complete: a failed run leaves whatever was at OUT untouched.  OUT may not\n"
	       "be one of the inputs.  An input from which nothing could be read, or a\n"
	       "run with nothing to profile, is an error.\n"
	       "\n"
	       "exit status: 0 ok, 2 usage error, 3 unreadable or unusable input (or, with\n"
	       "--strict, any repair) or unwritable output\n");
}

int tf_cmd_profile(int argc, char **argv)
{
	const char *out = NULL;
	const char **inputs = (const char **)calloc((size_t)argc, sizeof(char *));
	int ninputs = 0, rc = TF_EXIT_OK;
	tf_ctx *ctx = NULL;
	tf_agg *agg = NULL;
	tf_input_opts iopts = { 0 };
	if (!inputs)
		return TF_EXIT_INPUT;
	ctx = tf_ctx_new();
	if (!ctx) {
		free(inputs);
		return TF_EXIT_INPUT;
	}
	bool endopts = false; /* after "--" every argument is an input */
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!endopts && !strcmp(a, "--")) {
			endopts = true;
			continue;
		}
		if (endopts)
			goto positional;
		int io = tf_input_option("profile", argc, argv, &i, &iopts);
		if (io < 0) {
			rc = TF_EXIT_USAGE;
			goto done;
		} else if (io > 0) {
			continue;
		} else if (tf_is_help(a)) {
			help();
			goto done;
		} else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
			if (tf_missing_value("profile", argc, argv, i)) {
				rc = TF_EXIT_USAGE;
				goto done;
			}
			out = argv[++i];
		} else if (a[0] == '-' && a[1]) {
			rc = tf_usage_error("profile", "unknown option '%s'", a);
			goto done;
		} else {
		positional:
			inputs[ninputs++] = a;
		}
	}
	if (!ninputs) {
		rc = tf_usage_error("profile", "no input given");
		goto done;
	}
	if (!out) {
		rc = tf_usage_error("profile", "no output given (use -o OUT.pb.gz, or -o - for stdout)");
		goto done;
	}
	rc = tf_output_is_input("profile", out, inputs, ninputs);
	if (rc != TF_EXIT_OK)
		goto done;
	tf_input_opts_apply(&iopts, ctx);
	agg = tf_agg_new(tf_ctx_strtab(ctx));
	if (!agg) {
		tf_msg("out of memory");
		rc = TF_EXIT_INPUT;
		goto done;
	}
	char note[64];
	snprintf(note, sizeof(note), "tracefold %s", TRACEFOLD_VERSION);
	tf_agg_comment(agg, note);
	tf_load_opts lopts = { .format = iopts.format, .counters = iopts.counters, .comments = true };
	rc = tf_load_inputs(ctx, agg, inputs, ninputs, &lopts);
	if (rc == TF_EXIT_OK)
		rc = tf_check_strict(&iopts, ctx);
	if (rc != TF_EXIT_OK)
		goto done;
	const tf_diag *d = tf_ctx_diag(ctx);
	char diagbuf[2048];
	tf_diag_format(d, TF_SEV_INFO, ", ", 0, diagbuf, sizeof(diagbuf));
	tf_error err;
	tf_error_clear(&err);
	if (tf_pprof_write(agg, out, &err) < 0) {
		rc = tf_report(&err);
		goto done;
	}
	tf_report_diag(ctx);
	if (tf_verbose)
		tf_msg("%s: %zu samples, %u call paths, %u threads; %s", out, tf_agg_nsamples(agg),
		       tf_agg_nnodes(agg) - 1, tf_ctx_track_count(ctx), diagbuf);
done:
	tf_agg_free(agg);
	tf_ctx_free(ctx);
	free(inputs);
	tf_input_opts_free(&iopts);
	return rc;
}
