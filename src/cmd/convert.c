/* convert.c - `tracefold convert INPUT... -o OUT [-o OUT ...]`: reads the
 * inputs once and writes every output from that one read, each in the format
 * its name (or --to) says (the writer table, include/tracefold/writer.h).
 * `tracefold profile INPUT... -o OUT.pb.gz` is its short form for one pprof
 * profile. */
#include <stdlib.h>
#include <string.h>
#include "cmd.h"
#include "tracefold/reader.h"
#include "tracefold/writer.h"

static void list_writers(void)
{
	for (int i = 0; tf_writers[i]; i++) {
		printf("  %-8s %s (", tf_writers[i]->name, tf_writers[i]->description);
		for (const char *const *s = tf_writers[i]->suffixes; *s; s++)
			printf("%s%s", s == tf_writers[i]->suffixes ? "" : " ", *s);
		printf(")\n");
	}
}

static void help(bool profile)
{
	if (profile)
		printf("usage: tracefold profile [options] INPUT... -o OUT.pb.gz\n"
		       "\n"
		       "Reads every INPUT (Chrome/PyTorch trace JSON, optionally gzipped, or JSON\n"
		       "lines; a TAU trace directory, .trc file or merged tau.trc; an OTF2 anchor\n"
		       "or its directory), rebuilds each thread's call stack and writes one\n"
		       "gzipped pprof profile of all of them.  Sample types: calls/count and\n"
		       "wall/nanoseconds (default); wall is each call path's SELF time, so\n"
		       "pprof's flat = self time and cum = inclusive time.  Labels: rank (or\n"
		       "pid when no rank is known) and thread.  An INPUT may also be a pprof\n"
		       "profile (ours or another tool's): it is added as it is.  The short form\n"
		       "of 'tracefold convert' for one pprof output.\n"
		       "\n"
		       "options:\n"
		       "  -o, --output FILE    where to write the profile ('-' = stdout); required\n");
	else
		printf("usage: tracefold convert [options] INPUT... [--to FORMAT] -o OUT [-o OUT ...]\n"
		       "\n"
		       "Reads every INPUT once (the inputs of 'tracefold profile') and writes each\n"
		       "OUT from that one read, in the format its name says, or --to FORMAT.\n"
		       "\n"
		       "options:\n"
		       "  -o, --output FILE    an output ('-' = stdout); at least one, as many as you like\n"
		       "      --to FORMAT      the format of the -o options that follow it\n");
	printf(TF_INPUT_OPTS_HELP
	       "  -h, --help           this text\n"
	       "\n");
	if (!profile) {
		printf("output formats:\n");
		list_writers();
		printf("\n");
	}
	printf("Every output is written to a temporary file and renamed when it is\n"
	       "complete: a failed run leaves whatever was there untouched.  An output\n"
	       "may not be one of the inputs.  An input from which nothing could be\n"
	       "read, or a run with nothing to profile, is an error.\n"
	       "\n"
	       "exit status: 0 ok, 2 usage error, 3 unreadable or unusable input (or, with\n"
	       "--strict, any repair) or unwritable output\n");
}

typedef struct output {
	const char *path;
	const tf_writer *w;
} output;

static int convert(const char *cmd, bool profile, int argc, char **argv)
{
	const char **inputs = (const char **)calloc((size_t)argc, sizeof(char *));
	output *outs = calloc((size_t)argc, sizeof(output));
	int ninputs = 0, nouts = 0, rc = TF_EXIT_OK;
	const tf_writer *to = NULL;
	tf_ctx *ctx = NULL;
	tf_agg *agg = NULL;
	tf_input_opts iopts = { 0 };
	if (!inputs || !outs || !(ctx = tf_ctx_new())) {
		tf_msg("out of memory");
		rc = TF_EXIT_INPUT;
		goto done;
	}
	enum { O_OUTPUT, O_TO };
	static const tf_opt opts[] = {
		{ O_OUTPUT, "-o", "--output", true }, { O_TO, NULL, "--to", true }, { 0, NULL, NULL, false },
	};
	tf_optstate os = { 0 };
	const char *v;
	for (int id; (id = tf_opt_next(cmd, argc, argv, opts, &iopts, &os, &v)) != TF_OPT_DONE;) {
		switch (id) {
		case TF_OPT_USAGE:
			rc = TF_EXIT_USAGE;
			goto done;
		case TF_OPT_HELP:
			help(profile);
			goto done;
		case TF_OPT_ARG:
			inputs[ninputs++] = v;
			break;
		case O_OUTPUT:
			if (profile && nouts) {
				rc = tf_usage_error(cmd, "one output only (tracefold convert writes several)");
				goto done;
			}
			outs[nouts++] = (output){ v, to };
			break;
		case O_TO:
			if (profile) {
				rc = tf_usage_error(cmd, "unknown option '%s'", os.opt);
				goto done;
			}
			to = tf_writer_by_name(v);
			if (!to) {
				rc = tf_usage_error(cmd, "unknown output format '%s' ('tracefold convert --help' lists them)", v);
				goto done;
			}
			break;
		}
	}
	if (!ninputs) {
		rc = tf_usage_error(cmd, "no input given");
		goto done;
	}
	if (!nouts) {
		rc = tf_usage_error(cmd, profile ? "no output given (use -o OUT.pb.gz, or -o - for stdout)"
						 : "no output given (use -o OUT, once per output)");
		goto done;
	}
	for (int k = 0; k < nouts; k++) {
		output *o = &outs[k];
		if (profile)
			o->w = tf_writer_by_name("pprof");
		if (!o->w)
			o->w = strcmp(o->path, "-") ? tf_writer_for_path(o->path) : tf_writer_by_name("pprof");
		if (!o->w) {
			rc = tf_usage_error(cmd, "cannot tell the format of '%s' from its name: use --to FORMAT "
					    "before -o ('tracefold convert --help' lists the formats)", o->path);
			goto done;
		}
		for (int j = 0; j < k; j++)
			if (!strcmp(outs[j].path, o->path)) {
				rc = tf_usage_error(cmd, "the output '%s' is given twice", o->path);
				goto done;
			}
		rc = tf_output_is_input(cmd, o->path, inputs, ninputs);
		if (rc != TF_EXIT_OK)
			goto done;
	}
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
	/* every output from the one read */
	for (int k = 0; k < nouts; k++) {
		tf_error err;
		tf_error_clear(&err);
		if (outs[k].w->write_agg(agg, outs[k].path, &err) < 0) {
			rc = tf_report(&err);
			goto done;
		}
	}
	tf_report_diag(ctx);
	if (tf_verbose)
		for (int k = 0; k < nouts; k++)
			tf_msg("%s (%s): %zu samples, %u call paths, %u threads; %s", outs[k].path, outs[k].w->name,
			       tf_agg_nsamples(agg), tf_agg_nnodes(agg) - 1, tf_ctx_track_count(ctx), diagbuf);
done:
	tf_agg_free(agg);
	tf_ctx_free(ctx);
	free(inputs);
	free(outs);
	tf_input_opts_free(&iopts);
	return rc;
}

int tf_cmd_profile(int argc, char **argv) { return convert("profile", true, argc, argv); }
int tf_cmd_convert(int argc, char **argv) { return convert("convert", false, argc, argv); }
