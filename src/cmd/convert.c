/* convert.c - `tracefold convert INPUT... -o OUT [-o OUT ...]`: reads the
 * inputs once and writes every output from that one read, each in the format
 * its name (or --to) says (the writer table, include/tracefold/writer.h).
 * `tracefold profile INPUT... -o OUT.pb.gz` is its short form for one pprof
 * profile (or, for an OUT named like folded stacks, OUT.folded, those:
 * profile writes what an aggregate writer gives, never a span writer's). */
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

enum { MODE_PROFILE, MODE_CONVERT, MODE_EVENTS, MODE_CHROME, MODE_PERFETTO, MODE_OTF2 };

static void help(int mode)
{
	bool profile = mode == MODE_PROFILE;
	if (mode == MODE_CHROME)
		printf("usage: tracefold chrome [options] INPUT... -o OUT.json[.gz]\n"
		       "\n"
		       "Writes the INPUTs (the inputs of 'tracefold profile') as one timeline in\n"
		       "Chrome trace-event JSON, in one streaming pass: every matched region as an\n"
		       "X event (after the stack rules and repairs; args: self time, call path,\n"
		       "repairs), counters as C, instants as i, process names (rank N) and\n"
		       "thread names as M events, MPI messages and flows as arrows.  Gzipped when\n"
		       "OUT ends in .gz.  Open it in Perfetto UI (ui.perfetto.dev, Open trace\n"
		       "file) or chrome://tracing (Load).  Epoch-sized times are shifted to stay\n"
		       "exact in a viewer; otherData.time_shift_ns says by how much\n"
		       "(docs/chrome-out.md).\n"
		       "\n"
		       "options:\n"
		       "  -o, --output FILE    the trace to write; required\n"
		       "      --phases P       x (default): a region as one X event; be: a B event at\n"
		       "                       its start and an E at its end, written as they come\n");
	else if (mode == MODE_PERFETTO)
		printf("usage: tracefold perfetto [options] INPUT... -o OUT.pftrace[.gz]\n"
		       "\n"
		       "Writes the INPUTs (the inputs of 'tracefold profile') as one timeline in\n"
		       "Perfetto's protobuf trace format, in one streaming pass: a track per\n"
		       "process (rank N), thread and GPU stream, every matched region as a slice\n"
		       "(after the stack rules and repairs; repaired ones carry a 'repaired'\n"
		       "annotation), instants, counters as counter tracks, MPI messages and\n"
		       "flows as flow arrows; names interned, times delta-coded.  Several times\n"
		       "smaller than the same trace as Chrome JSON.  Gzipped when OUT ends in\n"
		       ".gz.  Open it in Perfetto UI (ui.perfetto.dev, Open trace file) or\n"
		       "trace processor; 'tracefold profile' reads it back (docs/perfetto.md).\n"
		       "\n"
		       "options:\n"
		       "  -o, --output FILE    the trace to write; required\n"
		       "      --compression C  deflate (default; none for .gz names): packets in\n"
		       "                       zlib-compressed chunks (compressed_packets), as\n"
		       "                       Perfetto's own service writes them; none: plain\n"
		       "                       packets (for protoc --decode)\n");
	else if (mode == MODE_OTF2)
		printf("usage: tracefold otf2 [options] INPUT... -o DIR\n"
		       "\n"
		       "Writes the INPUTs (the inputs of 'tracefold profile') as one OTF2 archive\n"
		       "(DIR/traces.otf2, as Score-P writes it) through libotf2, in one streaming\n"
		       "pass, for Vampir, Scalasca, Cube and the OTF2 tools: a location group per\n"
		       "process (rank N) and per GPU device, a location per thread and GPU stream,\n"
		       "Enter/Leave per region in the nesting the stack builder rebuilt (equal\n"
		       "timestamps never cross), counters as metrics, MPI messages as\n"
		       "MpiSend/MpiRecv on MPI_COMM_WORLD; 1 ns clock ticks, the inputs' own\n"
		       "times; repairs as the attribute tracefold::repaired.  An archive already\n"
		       "at DIR is replaced; a folder holding anything else (a Score-P experiment\n"
		       "folder) is refused and kept (docs/otf2-out.md).\n"
		       "\n"
		       "options:\n"
		       "  -o, --output DIR     the archive's folder; required\n");
	else if (mode == MODE_EVENTS)
		printf("usage: tracefold events [options] INPUT... -o DIR\n"
		       "\n"
		       "Writes every event of the INPUTs (the inputs of 'tracefold profile') into\n"
		       "one normalized schema of Parquet tables, in one streaming pass:\n"
		       "DIR/<table>/part-0.parquet for slices (one row per region instance, after\n"
		       "the stack rules and repairs), counters, instants, messages (each send\n"
		       "paired with its receive), flows, tracks and call_paths (docs/schema.md).\n"
		       "Query them with DuckDB: SELECT name, sum(self_ns) FROM\n"
		       "read_parquet('DIR/slices/**/*.parquet') GROUP BY name.\n"
		       "\n"
		       "options:\n"
		       "  -o, --output DIR     the folder of the tables; required\n"
		       "      --partition rank  Hive-style DIR/<table>/rank=N/part-0.parquet (none: one file)\n"
		       "      --compression C  none, zstd (default) or gzip\n");
	else if (profile)
		printf("usage: tracefold profile [options] INPUT... -o OUT.pb.gz\n"
		       "\n"
		       "Reads every INPUT (Chrome/PyTorch trace JSON, optionally gzipped, or JSON\n"
		       "lines; a TAU trace directory, .trc file or merged tau.trc; an OTF2 anchor\n"
		       "or its directory; a Perfetto protobuf trace), rebuilds each thread's call\n"
		       "stack and writes one gzipped pprof profile of all of them.  Sample types:\n"
		       "calls/count and wall/nanoseconds (default); wall is each call path's SELF\n"
		       "time of CPU threads, so pprof's flat = self time and cum = inclusive\n"
		       "time; with GPU streams (PyTorch/Kineto) also gpu/nanoseconds, GPU time\n"
		       "under the CPU call that launched it (docs/gpu.md).  Labels: rank (or\n"
		       "pid when no rank is known) and thread.  An INPUT may also be a profile,\n"
		       "pprof (ours or another tool's) or folded stacks: it is added as it is.\n"
		       "The short form of 'tracefold convert' for one pprof output; an OUT that\n"
		       "ends in .folded or .folded.gz gets folded stacks of the wall time instead\n"
		       "('tracefold fold' picks the sample type).\n"
		       "\n"
		       "options:\n"
		       "  -o, --output FILE    where to write the profile ('-' = stdout); required\n"
		       "      --sample-types LIST  only these sample types, in this order (e.g.\n"
		       "                       calls,wall,gpu: profiles that go tool pprof -diff_base\n"
		       "                       can compare, whatever events each run had)\n");
	else
		printf("usage: tracefold convert [options] INPUT... [--to FORMAT] -o OUT [-o OUT ...]\n"
		       "\n"
		       "Reads every INPUT once (the inputs of 'tracefold profile') and writes each\n"
		       "OUT from that one read, in the format its name says, or --to FORMAT.\n"
		       "\n"
		       "options:\n"
		       "  -o, --output FILE    an output ('-' = stdout); at least one, as many as you like\n"
		       "      --to FORMAT      the format of the -o options that follow it\n"
		       "      --partition rank  parquet: Hive-style rank=N folders\n"
		       "      --compression C  parquet: none, zstd (default) or gzip; perfetto: none\n"
		       "                       or compressed packets (default)\n"
		       "      --phases P       chrome: x (default) or be (B/E pairs)\n"
		       "      --sample-types LIST  profiles (pprof, folded, flame): only these\n"
		       "                       sample types, in this order\n");
	printf(TF_INPUT_OPTS_HELP
	       "  -h, --help           this text\n"
	       "\n");
	if (mode == MODE_CONVERT) {
		printf("output formats:\n");
		list_writers();
		printf("\n");
	}
	printf("Every output file is written to a temporary file and renamed when it\n"
	       "is complete: a failed run never leaves a half-written file nor replaces\n"
	       "one with it (files it had finished before the failure stay).  An output\n"
	       "may not be one of the inputs.  An input from which nothing could be\n"
	       "read, or a run with nothing to profile, is an error.\n"
	       "\n"
	       "exit status: 0 ok, 2 usage error, 3 unreadable or unusable input (or, with\n"
	       "--strict, any repair) or unwritable output\n");
}

typedef struct output {
	const char *path;
	const tf_writer *w;
	void *state;              /* a span writer's, between open and finish */
	tf_span_sink *sink;
} output;


/* --sample-types LIST: *agg with only those types, in that order. */
static int keep_types(const char *cmd, tf_agg **agg, const char *list)
{
	int n = 0, *idx = malloc((strlen(list) / 2 + 2) * sizeof(int));
	char *copy = strdup(list), *save = NULL;
	int rc = idx && copy ? TF_EXIT_OK : TF_EXIT_INPUT;
	for (char *t = copy ? strtok_r(copy, ",", &save) : NULL; t && rc == TF_EXIT_OK; t = strtok_r(NULL, ",", &save)) {
		int i = tf_agg_type_pick(*agg, t);
		if (i < 0) {
			char have[600];
			tf_agg_types_text(*agg, have, sizeof(have));
			tf_msg("--sample-types: no sample type '%s' in the inputs (they have %s)", t, have);
			rc = TF_EXIT_INPUT;
		}
		for (int k = 0; k < n && rc == TF_EXIT_OK; k++)
			if (idx[k] == i)
				rc = tf_usage_error(cmd, "--sample-types names '%s' twice", t);
		if (rc == TF_EXIT_OK)
			idx[n++] = i;
	}
	if (rc == TF_EXIT_OK && !n)
		rc = tf_usage_error(cmd, "--sample-types needs a comma-separated list of sample types");
	tf_agg *a = rc == TF_EXIT_OK ? tf_agg_select_types(*agg, idx, n) : NULL;
	if (rc == TF_EXIT_OK && !a) {
		tf_msg("out of memory");
		rc = TF_EXIT_INPUT;
	}
	if (a) {
		tf_agg_free(*agg);
		*agg = a;
	}
	free(idx);
	free(copy);
	return rc;
}

static int convert(const char *cmd, int mode, int argc, char **argv)
{
	bool profile = mode == MODE_PROFILE;
	const char *compression = NULL;
	bool partition_rank = false, phases_be = false;
	tf_span_sink **consumers = calloc((size_t)argc + 1, sizeof(tf_span_sink *));
	const char **input_formats = NULL;
	const tf_format **in_formats = NULL; /* each input's */
	int nconsumers = 0;
	const char **inputs = (const char **)calloc((size_t)argc, sizeof(char *));
	output *outs = calloc((size_t)argc, sizeof(output));
	int ninputs = 0, nouts = 0, rc = TF_EXIT_OK;
	const tf_writer *to = mode == MODE_EVENTS ? tf_writer_by_name("parquet")
			      : mode == MODE_CHROME ? tf_writer_by_name("chrome")
			      : mode == MODE_PERFETTO ? tf_writer_by_name("perfetto")
			      : mode == MODE_OTF2 ? tf_writer_by_name("otf2") : NULL;
	tf_ctx *ctx = NULL;
	tf_agg *agg = NULL;
	tf_input_opts iopts = { 0 };
	if (!inputs || !outs || !consumers || !(ctx = tf_ctx_new())) {
		tf_msg("out of memory");
		rc = TF_EXIT_INPUT;
		goto done;
	}
	enum { O_OUTPUT, O_TO, O_PARTITION, O_COMPRESSION, O_PHASES, O_SAMPLE_TYPES };
	const char *sample_types = NULL;
	static const tf_opt opts[] = {
		{ O_OUTPUT, "-o", "--output", true }, { O_TO, NULL, "--to", true },
		{ O_SAMPLE_TYPES, NULL, "--sample-types", true },
		{ O_PARTITION, NULL, "--partition", true }, { O_COMPRESSION, NULL, "--compression", true },
		{ O_PHASES, NULL, "--phases", true },
		{ 0, NULL, NULL, false },
	};
	tf_optstate os = { 0 };
	const char *v;
	for (int id; (id = tf_opt_next(cmd, argc, argv, opts, &iopts, &os, &v)) != TF_OPT_DONE;) {
		switch (id) {
		case TF_OPT_USAGE:
			rc = TF_EXIT_USAGE;
			goto done;
		case TF_OPT_HELP:
			help(mode);
			goto done;
		case TF_OPT_ARG:
			inputs[ninputs++] = v;
			break;
		case O_OUTPUT:
			if (mode != MODE_CONVERT && nouts) {
				rc = tf_usage_error(cmd, "one output only (tracefold convert writes several)");
				goto done;
			}
			outs[nouts++] = (output){ v, to, NULL, NULL };
			break;
		case O_PHASES:
			if (mode != MODE_CHROME && mode != MODE_CONVERT) {
				rc = tf_usage_error(cmd, "unknown option '%s'", os.opt);
				goto done;
			}
			if (strcmp(v, "x") && strcmp(v, "be")) {
				rc = tf_usage_error(cmd, "--phases takes x or be, not '%s'", v);
				goto done;
			}
			phases_be = !strcmp(v, "be");
			break;
		case O_PARTITION:
		case O_COMPRESSION:
			if (profile || mode == MODE_CHROME || mode == MODE_OTF2 || (mode == MODE_PERFETTO && id == O_PARTITION)) {
				rc = tf_usage_error(cmd, "unknown option '%s'", os.opt);
				goto done;
			}
			if (id == O_PARTITION && strcmp(v, "rank") && strcmp(v, "none")) {
				rc = tf_usage_error(cmd, "--partition takes rank or none, not '%s'", v);
				goto done;
			}
			if (id == O_COMPRESSION && mode == MODE_PERFETTO && strcmp(v, "none") && strcmp(v, "deflate")) {
				rc = tf_usage_error(cmd, "--compression takes none or deflate, not '%s'", v);
				goto done;
			}
			if (id == O_COMPRESSION && mode != MODE_PERFETTO && strcmp(v, "none") && strcmp(v, "zstd") &&
			    strcmp(v, "gzip")) {
				rc = tf_usage_error(cmd, "--compression takes none, zstd or gzip, not '%s'", v);
				goto done;
			}
			if (id == O_PARTITION)
				partition_rank = !strcmp(v, "rank");
			else
				compression = v;
			break;
		case O_SAMPLE_TYPES:
			if (mode != MODE_CONVERT && !profile) {
				rc = tf_usage_error(cmd, "unknown option '%s'", os.opt);
				goto done;
			}
			sample_types = v;
			break;
		case O_TO:
			if (mode != MODE_CONVERT) {
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
		if (profile) { /* pprof, unless the name asks for another aggregate writer */
			o->w = strcmp(o->path, "-") ? tf_writer_for_path(o->path) : NULL;
			if (!o->w || o->w->consumes != TF_WRITER_AGG)
				o->w = tf_writer_by_name("pprof");
		}
		if (!o->w)
			o->w = strcmp(o->path, "-") ? tf_writer_for_path(o->path) : tf_writer_by_name("pprof");
		if (!o->w) {
			rc = tf_usage_error(cmd, "cannot tell the format of '%s' from its name: use --to FORMAT "
					    "before -o ('tracefold convert --help' lists the formats)", o->path);
			goto done;
		}
		if (o->w->consumes == TF_WRITER_SPANS && !strcmp(o->path, "-")) {
			rc = tf_usage_error(cmd, "%s cannot write to standard output: give -o %s", o->w->name,
					    strcmp(o->w->name, "parquet") ? "FILE" : "DIR");
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
	/* each input's format, resolved once for the writers and the pipeline */
	const char **fmts = calloc((size_t)ninputs + 1, sizeof(char *));
	in_formats = calloc((size_t)ninputs + 1, sizeof(*in_formats));
	if (!fmts || !in_formats) {
		free(fmts);
		tf_msg("out of memory");
		rc = TF_EXIT_INPUT;
		goto done;
	}
	input_formats = fmts;
	tf_error ferr;
	tf_error_clear(&ferr);
	if (tf_inputs_resolve(inputs, ninputs, iopts.format, in_formats, &ferr) < 0) {
		rc = tf_report(&ferr);
		goto done;
	}
	for (int i = 0; i < ninputs; i++)
		fmts[i] = in_formats[i]->name;
	/* span writers consume the spans as the inputs are read */
	tf_writer_args wa = { ctx, tf_agg_cpath(agg), inputs, fmts, ninputs, compression, partition_rank, phases_be, 0, 0 };
	if (tf_mpi) {
		/* a distributed run: every process writes its part of the event
		 * tables; aggregate outputs come from process 0; a timeline or
		 * an archive is one file in time order, which parts cannot make */
		for (int k = 0; k < nouts; k++)
			if (outs[k].w->consumes == TF_WRITER_SPANS && strcmp(outs[k].w->name, "parquet")) {
				rc = tf_usage_error(cmd, "--mpi: %s output is not supported in a distributed run (it is "
						    "one file in time order); write it without --mpi, or write Parquet "
						    "event tables (docs/distributed.md)", outs[k].w->name);
				goto done;
			}
		if ((rc = tf_mpi_start(&wa.part, &wa.nparts)) != TF_EXIT_OK)
			goto done;
	}
	for (int k = 0; k < nouts; k++) {
		if (outs[k].w->consumes != TF_WRITER_SPANS)
			continue;
		tf_error err;
		tf_error_clear(&err);
		if (outs[k].w->span_open(&wa, outs[k].path, &outs[k].sink, &outs[k].state, &err) < 0) {
			rc = tf_report(&err);
			break;
		}
		consumers[nconsumers++] = outs[k].sink;
	}
	/* --mpi: an output one process cannot open stops them all (each would
	 * otherwise wait for the others in a different call) */
	if (tf_mpi && (rc = tf_mpi_agree(rc)) != TF_EXIT_OK)
		goto done;
	if (rc != TF_EXIT_OK)
		goto done;
	tf_load_opts lopts = tf_input_load_opts(&iopts);
	lopts.comments = true;
	lopts.consumers = consumers;
	lopts.formats = in_formats;
	rc = tf_load_inputs(ctx, agg, inputs, ninputs, &lopts);
	bool worker = rc == TF_EXIT_WORKER, loaded = rc == TF_EXIT_OK || worker;
	if (rc == TF_EXIT_OK)
		rc = tf_check_strict(&iopts, ctx);
	/* --mpi: the run read well everywhere or nowhere (dist.h); --strict is
	 * process 0's to judge: no process finishes its part of the tables
	 * unless all of the run succeeded */
	if (tf_mpi && loaded && (rc = tf_mpi_agree(worker ? TF_EXIT_OK : rc)) == TF_EXIT_OK && worker)
		rc = TF_EXIT_WORKER;
	if (rc == TF_EXIT_WORKER) { /* --mpi: this process's parts of the event tables */
		for (int k = 0; k < nouts && rc == TF_EXIT_WORKER; k++) {
			if (outs[k].w->consumes != TF_WRITER_SPANS)
				continue;
			tf_error err;
			tf_error_clear(&err);
			int r = outs[k].w->span_finish(outs[k].state, &err);
			outs[k].state = NULL;
			if (r < 0)
				rc = tf_report(&err);
		}
		goto done;
	}
	if (rc != TF_EXIT_OK)
		goto done;
	if (sample_types && (rc = keep_types(cmd, &agg, sample_types)) != TF_EXIT_OK)
		goto done;
	const tf_diag *d = tf_ctx_diag(ctx);
	char diagbuf[2048];
	tf_diag_format(d, TF_SEV_INFO, ", ", 0, diagbuf, sizeof(diagbuf));
	/* every output from the one read */
	for (int k = 0; k < nouts; k++) {
		tf_error err;
		tf_error_clear(&err);
		int r;
		if (outs[k].w->consumes == TF_WRITER_SPANS) {
			r = outs[k].w->span_finish(outs[k].state, &err);
			outs[k].state = NULL;
			tf_print_warnings(ctx); /* what the writer said on finishing */
		} else {
			r = outs[k].w->write_agg(agg, outs[k].path, &err);
		}
		if (r < 0) {
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
	for (int k = 0; outs && k < nouts; k++)
		if (outs[k].state)
			outs[k].w->span_abort(outs[k].state);
	tf_agg_free(agg);
	tf_ctx_free(ctx);
	free(inputs);
	free(outs);
	free(consumers);
	free(input_formats);
	free(in_formats);
	tf_input_opts_free(&iopts);
	return rc;
}

int tf_cmd_profile(int argc, char **argv) { return convert("profile", MODE_PROFILE, argc, argv); }
int tf_cmd_convert(int argc, char **argv) { return convert("convert", MODE_CONVERT, argc, argv); }
int tf_cmd_events(int argc, char **argv) { return convert("events", MODE_EVENTS, argc, argv); }
int tf_cmd_chrome(int argc, char **argv) { return convert("chrome", MODE_CHROME, argc, argv); }
int tf_cmd_perfetto(int argc, char **argv) { return convert("perfetto", MODE_PERFETTO, argc, argv); }
int tf_cmd_otf2(int argc, char **argv) { return convert("otf2", MODE_OTF2, argc, argv); }
