/* profile.c - `tracefold profile`: traces -> one gzipped pprof profile. */
#include <stdlib.h>
#include <string.h>
#include "cmd.h"
#include "tracefold/reader.h"
#include "tracefold/stack.h"
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
	       "pid when no rank is known) and thread.\n"
	       "\n"
	       "options:\n"
	       "  -o, --output FILE    where to write the profile ('-' = stdout); required\n"
	       "  -f, --format NAME    read inputs as NAME (chrome, tau, otf2) instead of sniffing\n"
	       "  -c, --counters LIST  add a sample type per named counter (comma-separated,\n"
	       "                       or 'all'), attributed to the call path active when it fired\n"
	       "      --edf FILE       TAU: event definitions for a lone .trc file\n"
	       "      --tau-flush      TAU: show trace-buffer flushes as a [TAU trace flush] frame\n"
	       "  -h, --help           this text\n"
	       "\n"
	       "exit status: 0 ok, 2 usage error, 3 unreadable input or unwritable output\n");
}

int tf_cmd_profile(int argc, char **argv)
{
	const char *out = NULL, *format = NULL, *counters_arg = NULL;
	const char **inputs = calloc((size_t)argc, sizeof(char *));
	int ninputs = 0, rc = TF_EXIT_OK;
	tf_ctx *ctx = NULL;
	tf_agg *agg = NULL;
	tf_stacks *stacks = NULL;
	char *counters_buf = NULL;
	const char **counters = NULL;
	if (!inputs)
		return TF_EXIT_INPUT;
	ctx = tf_ctx_new();
	if (!ctx) {
		free(inputs);
		return TF_EXIT_INPUT;
	}
	tf_read_opts *ropts = tf_ctx_opts(ctx);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
#define NEED_ARG()                                                                  \
	do {                                                                        \
		if (i + 1 >= argc) {                                                \
			rc = tf_usage_error("profile", "option '%s' needs a value", a); \
			goto done;                                                  \
		}                                                                   \
	} while (0)
		if (tf_is_help(a)) {
			help();
			goto done;
		} else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
			NEED_ARG();
			out = argv[++i];
		} else if (!strcmp(a, "-f") || !strcmp(a, "--format")) {
			NEED_ARG();
			format = argv[++i];
			if (!tf_format_by_name(format)) {
				rc = tf_usage_error("profile", "unknown format '%s'", format);
				goto done;
			}
		} else if (!strcmp(a, "-c") || !strcmp(a, "--counters")) {
			NEED_ARG();
			counters_arg = argv[++i];
		} else if (!strcmp(a, "--edf")) {
			NEED_ARG();
			ropts->edf_path = argv[++i];
		} else if (!strcmp(a, "--tau-flush")) {
			ropts->show_tau_flush = true;
		} else if (a[0] == '-' && a[1]) {
			rc = tf_usage_error("profile", "unknown option '%s'", a);
			goto done;
		} else {
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
	if (counters_arg) {
		counters_buf = strdup(counters_arg);
		counters = calloc(strlen(counters_arg) + 2, sizeof(char *));
		if (!counters_buf || !counters) {
			rc = TF_EXIT_INPUT;
			goto done;
		}
		int n = 0;
		for (char *tok = strtok(counters_buf, ","); tok; tok = strtok(NULL, ","))
			counters[n++] = tok;
	}
	agg = tf_agg_new(tf_ctx_strtab(ctx));
	tf_stacks_opts sopts = { .counters = counters };
	stacks = agg ? tf_stacks_new(ctx, agg, &sopts) : NULL;
	if (!stacks) {
		tf_msg("out of memory");
		rc = TF_EXIT_INPUT;
		goto done;
	}
	char note[2100];
	snprintf(note, sizeof(note), "tracefold %s", TRACEFOLD_VERSION);
	tf_agg_comment(agg, note);
	for (int i = 0; i < ninputs; i++) {
		tf_error err;
		tf_error_clear(&err);
		const tf_format *f = tf_format_find(inputs[i], format, &err);
		if (!f) {
			rc = tf_report(&err);
			goto done;
		}
		int r = f->read(inputs[i], (uint32_t)i, ctx, tf_stacks_sink(stacks), &err);
		if (r >= 0 || r == TF_ESTOP)
			r = tf_stacks_sink(stacks)->end_input(tf_stacks_sink(stacks), (uint32_t)i);
		if (r < 0 && r != TF_ESTOP) {
			if (!err.code)
				tf_error_set(&err, r, inputs[i], -1, -1, "%s", tf_strerror(r));
			rc = tf_report(&err);
			goto done;
		}
		snprintf(note, sizeof(note), "input: %s (%s)", inputs[i], f->name);
		tf_agg_comment(agg, note);
	}
	int r = tf_stacks_finish(stacks);
	if (r < 0) {
		tf_msg("cannot build stacks: %s", tf_strerror(r));
		rc = TF_EXIT_INPUT;
		goto done;
	}
	const tf_diag *d = tf_ctx_diag(ctx);
	char diagbuf[2048];
	tf_diag_format(d, TF_SEV_INFO, ", ", diagbuf, sizeof(diagbuf));
	snprintf(note, sizeof(note), "events: %s", diagbuf);
	tf_agg_comment(agg, note);
	tf_error err;
	tf_error_clear(&err);
	if (tf_pprof_write(agg, out, &err) < 0) {
		rc = tf_report(&err);
		goto done;
	}
	tf_report_diag(d);
	if (tf_verbose)
		tf_msg("%s: %zu samples, %u call paths, %u threads; %s", out, tf_agg_nsamples(agg),
		       tf_agg_nnodes(agg) - 1, tf_ctx_track_count(ctx), diagbuf);
done:
	tf_stacks_free(stacks);
	tf_agg_free(agg);
	tf_ctx_free(ctx);
	free(inputs);
	free(counters);
	free(counters_buf);
	return rc;
}
