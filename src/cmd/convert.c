/* convert.c - `tracefold convert INPUT... -o OUT [-o OUT ...]`: reads the
 * inputs once and writes every output from that one read, each in the format
 * its name (or --to) says (the writer table, include/tracefold/writer.h).
 * `tracefold profile INPUT... -o OUT.pb.gz` is its short form for one pprof
 * profile (or, for an OUT named like folded stacks, OUT.folded, those:
 * profile writes what an aggregate writer gives, never a span writer's). */
#include <stdlib.h>
#include <string.h>
#include "cmd.h"
#include "tracefold/lake.h"
#include "tracefold/outdir.h"
#include "tracefold/reader.h"
#include "tracefold/writer.h"

static void list_writers(void)
{
	for (int i = 0; tf_writers[i]; i++) {
		const tf_writer *w = tf_writers[i];
		char text[512];
		size_t n = (size_t)snprintf(text, sizeof(text), "%s (", w->description);
		if (!w->suffixes[0] && n < sizeof(text)) /* a folder: no name says it */
			n += (size_t)snprintf(text + n, sizeof(text) - n, "--to %s", w->name);
		for (const char *const *x = w->suffixes; *x && n < sizeof(text); x++)
			n += (size_t)snprintf(text + n, sizeof(text) - n, "%s%s", x == w->suffixes ? "" : " ", *x);
		if (n < sizeof(text))
			snprintf(text + n, sizeof(text) - n, ")");
		tf_help_item(w->name, NULL, text);
	}
}

/* profile, convert, or a writer's own command (tf_writer.command). */
enum { MODE_PROFILE, MODE_CONVERT, MODE_WRITER };

/* The options of every writer convert can write, each name once (--compression
 * is parquet's and perfetto's), or of the one writer w. */
static int writer_opt_names(const tf_writer *w, const char **names, int max)
{
	int n = 0;
	for (int i = 0; tf_writers[i]; i++) {
		if (w && tf_writers[i] != w)
			continue;
		for (const tf_writer_opt *o = tf_writers[i]->opts; o && o->name; o++) {
			int k = 0;
			while (k < n && strcmp(names[k], o->name))
				k++;
			if (k == n && n < max)
				names[n++] = o->name;
		}
	}
	return n;
}

/* The --help lines of the writers' options: each writer's own text, said
 * once per writer that has it ("parquet: ..."). */
static void help_writer_opts(const tf_writer *only)
{
	const char *names[32];
	int n = writer_opt_names(only, names, 32);
	for (int k = 0; k < n; k++)
		for (int i = 0; tf_writers[i]; i++) {
			const tf_writer_opt *o = tf_writer_opt_find(tf_writers[i], names[k]);
			if (!o || (only && tf_writers[i] != only))
				continue;
			char h[1024];
			snprintf(h, sizeof(h), "%s%s%s", only ? "" : tf_writers[i]->name, only ? "" : ": ", o->help);
			tf_help_opt(NULL, o->name, o->value, h);
		}
}

#define FORCE_HELP "a folder output (-o DIR) that holds files tracefold\n" \
	"did not write: write beside them (its own entries\n" \
	"are replaced, the rest kept); without it, refused"

static void help(int mode, const tf_writer *w)
{
	if (mode == MODE_WRITER) {
		tf_help_printf("usage: tracefold %s [options] INPUT... %s\n\n%s\noptions:\n", w->command, w->usage, w->help);
		tf_help_opt("-o", "--output", w->flags & TF_WRITER_DIR ? "DIR" : "FILE",
			    w->flags & TF_WRITER_LAKE ? "the folder to write; required, unless --lake"
			    : w->flags & TF_WRITER_DIR ? "the folder to write; required" : "the file to write; required");
		if (w->flags & TF_WRITER_DIR)
			tf_help_opt(NULL, "--force", NULL, FORCE_HELP);
		if (w->flags & TF_WRITER_LAKE) {
			tf_help_opt(NULL, "--lake", "DIR", "instead of -o: add the run to the lake DIR\n"
				    "(DIR/<table>/run=NAME/...; made when missing)");
			tf_help_opt(NULL, "--run", "NAME", "the run's name in the lake: a letter, then letters,\n"
				    "digits, '.', '_', '-'; required with --lake");
			tf_help_opt(NULL, "--replace", NULL, "--lake: replace the run NAME when the lake has it\n"
				    "(without it, refused)");
		}
		help_writer_opts(w);
	} else if (mode == MODE_PROFILE) {
		char traces[256], samples[256], profiles[256];
		tf_formats_list(TF_INPUT_EVENTS, traces, sizeof(traces));
		tf_formats_list(TF_INPUT_SAMPLES, samples, sizeof(samples));
		tf_formats_list(TF_INPUT_PROFILE, profiles, sizeof(profiles));
		tf_help_printf("usage: tracefold profile [options] INPUT... -o OUT.pb.gz\n"
		       "\n"
		       "Reads every INPUT (a trace: %s, gzipped or not;\n"
		       "'tracefold --help' describes each), rebuilds each thread's call stack\n"
		       "and writes one gzipped pprof profile of all of them.  Sample types:\n"
		       "calls/count and wall/nanoseconds (default); wall is each call path's SELF\n"
		       "time of CPU threads, so pprof's flat = self time and cum = inclusive\n"
		       "time; with GPU streams (PyTorch/Kineto) also gpu/nanoseconds, GPU time\n"
		       "under the CPU call that launched it (docs/gpu.md).  Labels: rank (or\n"
		       "pid when no rank is known) and thread.  An INPUT may be sampled\n"
		       "(%s): samples/count and each sample's weight (cpu, a\n"
		       "perf event) under the regions open on its thread (docs/samples.md).  An\n"
		       "INPUT may also be a profile (%s): it is added as it is.\n"
		       "The short form of 'tracefold convert' for one pprof output; an OUT that\n"
		       "ends in .folded or .folded.gz gets folded stacks of the wall time instead\n"
		       "('tracefold fold' picks the sample type).\n"
		       "\n"
		       "options:\n", traces, samples, profiles);
		tf_help_opt("-o", "--output", "FILE", "where to write the profile ('-' = stdout); required");
		tf_help_opt(NULL, "--sample-types", "LIST", "only these sample types, in this order (e.g.\n"
			    "calls,wall,gpu: profiles that go tool pprof -diff_base\n"
			    "can compare, whatever events each run had)");
	} else {
		tf_help_printf("usage: tracefold convert [options] INPUT... [--to FORMAT] -o OUT [-o OUT ...]\n"
		       "\n"
		       "Reads every INPUT once (the inputs of 'tracefold profile') and writes each\n"
		       "OUT from that one read, in the format its name says, or --to FORMAT.\n"
		       "\n"
		       "options:\n");
		tf_help_opt("-o", "--output", "OUT", "an output ('-' = stdout, for the formats that can);\n"
			    "at least one, as many as you like");
		tf_help_opt(NULL, "--to", "FORMAT", "the format of the -o options that follow it");
		tf_help_opt(NULL, "--force", NULL, FORCE_HELP);
		tf_help_opt(NULL, "--sample-types", "LIST", "profiles (pprof, folded, flame): only these\n"
			    "sample types, in this order");
		help_writer_opts(NULL);
	}
	tf_input_opts_help();
	tf_help_opt("-h", "--help", NULL, "this text");
	tf_help_printf("\n");
	if (mode == MODE_CONVERT) {
		tf_help_printf("output formats:\n");
		list_writers();
		tf_help_printf("\n");
	}
	tf_help_printf("writing the outputs:\n"
		       "Every output file is written to a temporary file and renamed when it\n"
	       "is complete: a failed run never leaves a half-written file nor replaces\n"
	       "one with it (files it had finished before the failure stay).\n");
	if (mode != MODE_PROFILE)
		tf_help_printf("A folder output is written to a temporary folder beside it and swapped\n"
		       "in whole: an earlier output of the same kind there is replaced, a\n"
		       "folder of other things refused (--force); links in it are never\n"
		       "followed (docs/robustness.md).\n");
	tf_help_printf("An output may not be one of the inputs nor hold one.  An input from\n"
	       "which nothing could be read, or a run with nothing to profile, is an\n"
	       "error.\n"
	       "\n"
	       "exit status: 0 ok, 2 usage error, 3 unreadable or unusable input (or, with\n"
	       "--strict, any repair) or unwritable output\n");
}

typedef struct output {
	const char *path;
	const tf_writer *w;
	void *state;              /* a span writer's, between open and finish */
	tf_span_sink *sink;
	tf_outdir *dir;           /* a folder's, between open and commit (outdir.h) */
	tf_lake *lake;            /* --lake: the run's, between open and commit (lake.h) */
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


#define MAX_WOPTS 32

/* One run of profile, convert or a writer's command. */
typedef struct conv {
	const char *cmd;
	int mode;                     /* MODE_* */
	const tf_writer *only;        /* MODE_WRITER: its writer */
	const char **inputs;
	int ninputs;
	output *outs;
	int nouts;
	const char *sample_types;     /* --sample-types */
	const char *wopt[MAX_WOPTS];  /* the writers' option names taken (writer_opt_names) */
	const char *wval[MAX_WOPTS];  /* and the value each was given, or NULL */
	int nwopt;
	void *conf[64];               /* the options of each writer (by index in tf_writers), or NULL */
	bool force;                   /* --force: a folder output may hold other things */
	const char *lake, *run;       /* --lake DIR --run NAME: the output is a run of a lake */
	bool replace;                 /* --replace */
	char *cmdline;                /* the command line, for a lake's runs table */
	tf_step *steps;               /* the run's steps, for a writer that needs them */
	size_t nsteps;
	tf_input_opts iopts;
} conv;

enum { O_OUTPUT, O_TO, O_SAMPLE_TYPES, O_FORCE, O_LAKE, O_RUN, O_REPLACE, O_WRITER };

/* The command line into c; TF_EXIT_OK, or the exit status of help or a
 * usage error (printed). */
static int parse(conv *c, int argc, char **argv, bool *helped)
{
	tf_opt opts[8 + MAX_WOPTS] = {
		{ O_OUTPUT, "-o", "--output", true, NULL, NULL },
	};
	int n = 1;
	if (c->mode == MODE_CONVERT)
		opts[n++] = (tf_opt){ O_TO, NULL, "--to", true, NULL, NULL };
	if (c->mode != MODE_WRITER)
		opts[n++] = (tf_opt){ O_SAMPLE_TYPES, NULL, "--sample-types", true, NULL, NULL };
	if (c->mode == MODE_CONVERT || (c->only && (c->only->flags & TF_WRITER_DIR)))
		opts[n++] = (tf_opt){ O_FORCE, NULL, "--force", false, NULL, NULL };
	if (c->only && (c->only->flags & TF_WRITER_LAKE)) {
		opts[n++] = (tf_opt){ O_LAKE, NULL, "--lake", true, NULL, NULL };
		opts[n++] = (tf_opt){ O_RUN, NULL, "--run", true, NULL, NULL };
		opts[n++] = (tf_opt){ O_REPLACE, NULL, "--replace", false, NULL, NULL };
	}
	if (c->mode != MODE_PROFILE)
		c->nwopt = writer_opt_names(c->only, c->wopt, MAX_WOPTS);
	for (int k = 0; k < c->nwopt; k++)
		opts[n++] = (tf_opt){ O_WRITER + k, NULL, c->wopt[k], true, NULL, NULL };
	opts[n] = (tf_opt){ 0, NULL, NULL, false, NULL, NULL };
	const tf_writer *to = c->only;
	tf_optstate os = { 0 };
	const char *v;
	for (int id; (id = tf_opt_next(c->cmd, argc, argv, opts, &c->iopts, &os, &v)) != TF_OPT_DONE;) {
		if (id == TF_OPT_USAGE)
			return TF_EXIT_USAGE;
		if (id == TF_OPT_HELP) {
			help(c->mode, c->only);
			*helped = true;
			return TF_EXIT_OK;
		}
		if (id == TF_OPT_ARG) {
			c->inputs[c->ninputs++] = v;
		} else if (id == O_OUTPUT) {
			if (c->mode != MODE_CONVERT && c->nouts)
				return tf_usage_error(c->cmd, "one output only (tracefold convert writes several)");
			c->outs[c->nouts++] = (output){ v, to, NULL, NULL, NULL, NULL };
		} else if (id == O_TO) {
			if (!(to = tf_writer_by_name(v)))
				return tf_usage_error(c->cmd, "unknown output format '%s' ('tracefold convert --help' "
						      "lists them)", v);
		} else if (id == O_SAMPLE_TYPES) {
			c->sample_types = v;
		} else if (id == O_FORCE) {
			c->force = true;
		} else if (id == O_LAKE) {
			c->lake = v;
		} else if (id == O_RUN) {
			c->run = v;
		} else if (id == O_REPLACE) {
			c->replace = true;
		} else {
			c->wval[id - O_WRITER] = v;
		}
	}
	if (!c->ninputs)
		return tf_usage_error(c->cmd, "no input given");
	if (c->lake && c->nouts)
		return tf_usage_error(c->cmd, "--lake DIR is the output: no -o with it");
	if ((c->run || c->replace) && !c->lake)
		return tf_usage_error(c->cmd, "%s is for --lake DIR", c->run ? "--run" : "--replace");
	if (c->lake && !c->run)
		return tf_usage_error(c->cmd, "--lake needs --run NAME (the run's name in the lake)");
	if (c->lake && c->force)
		return tf_usage_error(c->cmd, "--force is for -o DIR, not --lake (a lake keeps what else it holds)");
	tf_error err;
	tf_error_clear(&err);
	if (c->lake && tf_lake_name_check(c->run, &err) < 0)
		return tf_usage_error(c->cmd, "%s", err.msg);
	if (c->lake)
		c->outs[c->nouts++] = (output){ c->lake, c->only, NULL, NULL, NULL, NULL };
	if (!c->nouts)
		return tf_usage_error(c->cmd, c->mode == MODE_PROFILE ? "no output given (use -o OUT.pb.gz, or -o - for "
									"stdout)"
								      : "no output given (use -o OUT, once per output)");
	return TF_EXIT_OK;
}

/* The writer of each output, and what it may be given. */
static int pick_writers(conv *c)
{
	for (int k = 0; k < c->nouts; k++) {
		output *o = &c->outs[k];
		bool out_std = !strcmp(o->path, "-");
		if (c->mode == MODE_PROFILE) { /* pprof, unless the name asks for another aggregate writer */
			o->w = out_std ? NULL : tf_writer_for_path(o->path);
			if (!o->w || o->w->consumes != TF_WRITER_AGG)
				o->w = tf_writer_by_name("pprof");
		}
		if (!o->w)
			o->w = !out_std ? tf_writer_for_path(o->path) : tf_writer_by_name("pprof");
		if (!o->w)
			return tf_usage_error(c->cmd, "cannot tell the format of '%s' from its name: use --to FORMAT "
					      "before -o ('tracefold convert --help' lists the formats)", o->path);
		if (out_std && !(o->w->flags & TF_WRITER_STDOUT))
			return tf_usage_error(c->cmd, "%s cannot write to standard output: give -o %s", o->w->name,
					      o->w->flags & TF_WRITER_DIR ? "DIR" : "FILE");
		for (int j = 0; j < k; j++)
			if (!strcmp(c->outs[j].path, o->path))
				return tf_usage_error(c->cmd, "the output '%s' is given twice", o->path);
		int rc = tf_output_is_input(c->cmd, o->path, c->inputs, c->ninputs);
		if (rc != TF_EXIT_OK)
			return rc;
	}
	bool dirs = false;
	for (int k = 0; k < c->nouts; k++)
		dirs |= (c->outs[k].w->flags & TF_WRITER_DIR) != 0;
	if (c->force && !dirs)
		return tf_usage_error(c->cmd, "--force is for a folder output (-o DIR), and no output here is one");
	return TF_EXIT_OK;
}

static int writer_index(const tf_writer *w)
{
	int i = 0;
	while (tf_writers[i] && tf_writers[i] != w)
		i++;
	return i;
}

/* The writers' options given, checked and stored by each writer of an
 * output that takes them (c->conf): a value goes to every output whose
 * writer takes that value (convert --compression gzip: parquet's; perfetto
 * keeps its default), and one that no output takes is an error (the first
 * writer's reason). */
static int set_writer_opts(conv *c)
{
	for (int k = 0; k < c->nouts; k++) {
		int i = writer_index(c->outs[k].w);
		if (i >= 64)
			return tf_usage_error(c->cmd, "too many output formats");
		if (!c->conf[i] && c->outs[k].w->conf_size && !(c->conf[i] = calloc(1, c->outs[k].w->conf_size))) {
			tf_msg("out of memory");
			return TF_EXIT_INPUT;
		}
	}
	for (int k = 0; k < c->nwopt; k++) {
		if (!c->wval[k])
			continue;
		bool used = false, tried = false;
		char takers[256] = "";
		tf_error first;
		tf_error_clear(&first);
		for (int i = 0; tf_writers[i] && i < 64; i++) {
			const tf_writer_opt *o = tf_writer_opt_find(tf_writers[i], c->wopt[k]);
			if (!o)
				continue;
			size_t at = strlen(takers);
			snprintf(takers + at, sizeof(takers) - at, "%s%s", at ? " or " : "", tf_writers[i]->name);
			if (!c->conf[i])
				continue;
			tf_error err;
			tf_error_clear(&err);
			if (o->set(c->conf[i], c->wval[k], &err) == 0)
				used = true;
			else if (!tried)
				first = err;
			tried = true;
		}
		if (!used && tried)
			return tf_usage_error(c->cmd, "%s", first.msg);
		if (!used)
			return tf_usage_error(c->cmd, "%s is an option of %s output, and no output here is one",
					      c->wopt[k], takers);
	}
	return TF_EXIT_OK;
}

/* --mpi: every process writes its part of the outputs that have parts;
 * aggregate outputs come from process 0; a timeline or an archive is one
 * file in time order, which parts cannot make. */
static int mpi_outputs(conv *c, tf_writer_args *wa)
{
	for (int k = 0; k < c->nouts; k++)
		if (c->outs[k].w->consumes == TF_WRITER_SPANS && !(c->outs[k].w->flags & TF_WRITER_MPI_PARTS))
			return tf_usage_error(c->cmd, "--mpi: %s output is not supported in a distributed run (it is "
					      "one file in time order); write it without --mpi, or write Parquet "
					      "event tables (docs/distributed.md)", c->outs[k].w->name);
	return tf_mpi_start(&wa->part, &wa->nparts);
}

/* --lake: the run's temporary folder in the lake, once its name and the
 * partition keys of the writer's options were checked (lake.h). */
static int open_lake(conv *c, output *o)
{
	const char *why = "";
	const char *keys = o->w->lake_keys ? o->w->lake_keys(c->conf[writer_index(o->w)], &why) : "rank";
	if (!keys)
		return tf_usage_error(c->cmd, "--lake: %s", why);
	tf_error err;
	tf_error_clear(&err);
	if (tf_lake_open(&o->lake, o->path, c->run, keys, c->replace, &err) < 0)
		return tf_report(&err);
	return TF_EXIT_OK;
}

/* The run's steps (tf_pipeline_step_list: what --label-steps finds), for
 * a writer whose options partition by them; a first read of the inputs. */
static int find_steps(conv *c, tf_ctx *ctx, const tf_format **fmts)
{
	bool need = false;
	for (int k = 0; k < c->nouts; k++)
		need |= c->outs[k].w->needs_steps && c->outs[k].w->needs_steps(c->conf[writer_index(c->outs[k].w)]);
	if (!need)
		return TF_EXIT_OK;
	tf_error err;
	tf_error_clear(&err);
	if (tf_pipeline_step_list(ctx, c->inputs, c->ninputs, fmts, 0, c->iopts.filter.step_region, &c->steps,
				  &c->nsteps, &err) < 0)
		return tf_report(&err);
	return TF_EXIT_OK;
}

/* The temporary folder of each folder output (outdir.h), checked and made
 * before the inputs are read.  --mpi: process 0 makes it and tells the
 * others, which write their parts into it (every process takes every
 * output in the same order, failed or not: one collective call each). */
static int open_dirs(conv *c, int part)
{
	int rc = TF_EXIT_OK;
	for (int k = 0; k < c->nouts; k++) {
		output *o = &c->outs[k];
		if (c->lake) { /* the one output (no --mpi) */
			rc = open_lake(c, o);
			continue;
		}
		if (!(o->w->flags & TF_WRITER_DIR))
			continue;
		char buf[8192] = ""; /* process 0's: the output's name, '\n', its temporary folder */
		tf_error err;
		tf_error_clear(&err);
		if (part == 0 && rc == TF_EXIT_OK) {
			if (tf_outdir_open(&o->dir, o->path, o->w->dir_kind, c->force ? TF_OUTDIR_FORCE : 0, &err) < 0)
				rc = tf_report(&err);
			else
				snprintf(buf, sizeof(buf), "%s\n%s", o->path, tf_outdir_tmp(o->dir));
		}
		if (tf_mpi) {
			int r = tf_mpi_bcast_text(buf, sizeof(buf));
			char *tmp = strchr(buf, '\n');
			if (rc == TF_EXIT_OK)
				rc = r;
			if (part == 0 || rc != TF_EXIT_OK)
				continue;
			if (!tmp) {
				rc = TF_EXIT_INPUT; /* process 0 said why */
			} else if ((*tmp++ = '\0', strcmp(buf, o->path))) {
				tf_msg("[process %d] --mpi: every process writes the output of process 0, '%s', not '%s'",
				       part, buf, o->path);
				rc = TF_EXIT_USAGE;
			} else if (tf_outdir_join(&o->dir, o->path, tmp, &err) < 0) {
				rc = tf_report(&err);
			}
		}
	}
	return rc;
}

/* Opens the span writers before the inputs are read: they take the spans
 * as they come (consumers, NULL-terminated). */
static int open_span_writers(conv *c, tf_writer_args *wa, tf_span_sink **consumers)
{
	int n = 0, rc = open_dirs(c, wa->part);
	for (int k = 0; k < c->nouts && rc == TF_EXIT_OK; k++) {
		output *o = &c->outs[k];
		if (o->w->consumes != TF_WRITER_SPANS)
			continue;
		tf_error err;
		tf_error_clear(&err);
		wa->conf = c->conf[writer_index(o->w)];
		wa->dir = o->dir ? tf_outdir_tmp(o->dir) : o->lake ? tf_lake_tmp(o->lake) : NULL;
		wa->run = o->lake ? c->run : NULL;
		wa->cmdline = c->cmdline;
		wa->steps = c->steps;
		wa->nsteps = c->nsteps;
		if (o->w->span_open(wa, o->path, &o->sink, &o->state, &err) < 0)
			rc = tf_report(&err);
		else
			consumers[n++] = o->sink;
	}
	wa->conf = NULL;
	wa->dir = NULL;
	wa->run = NULL;
	return rc;
}

/* The span writers' ends, once every input was read (under --mpi each
 * process its parts). */
static int finish_spans(conv *c, tf_ctx *ctx)
{
	int rc = TF_EXIT_OK;
	for (int k = 0; k < c->nouts && rc == TF_EXIT_OK; k++) {
		output *o = &c->outs[k];
		if (o->w->consumes != TF_WRITER_SPANS)
			continue;
		tf_error err;
		tf_error_clear(&err);
		int r = o->w->span_finish(o->state, &err);
		o->state = NULL;
		tf_print_warnings(ctx); /* what the writer said on finishing */
		if (r < 0)
			rc = tf_report(&err);
	}
	return rc;
}

/* Every folder written swapped in (--mpi: by process 0, once every
 * process finished its parts; the others only let go). */
static int commit_dirs(conv *c)
{
	for (int k = 0; k < c->nouts; k++) {
		output *o = &c->outs[k];
		tf_error err;
		tf_error_clear(&err);
		if (o->lake) {
			int r = tf_lake_commit(o->lake, &err);
			o->lake = NULL;
			if (r < 0)
				return tf_report(&err);
			continue;
		}
		if (!o->dir)
			continue;
		char note[4200];
		int r = tf_outdir_commit(o->dir, note, sizeof(note), &err);
		o->dir = NULL;
		if (r < 0)
			return tf_report(&err);
		if (note[0])
			tf_msg("warning: %s", note);
	}
	return TF_EXIT_OK;
}

/* The aggregate outputs, from the one read. */
static int write_aggs(conv *c, const tf_agg *agg)
{
	for (int k = 0; k < c->nouts; k++) {
		output *o = &c->outs[k];
		tf_error err;
		tf_error_clear(&err);
		if (o->w->consumes != TF_WRITER_SPANS && o->w->write_agg(agg, o->path, &err) < 0)
			return tf_report(&err);
	}
	return TF_EXIT_OK;
}

/* Each input's format, resolved once for the writers (their metadata) and
 * the pipeline. */
static int resolve_inputs(conv *c, const tf_format **fmts, const char **names)
{
	tf_error err;
	tf_error_clear(&err);
	if (tf_inputs_resolve(c->inputs, c->ninputs, c->iopts.format, fmts, &err) < 0)
		return tf_report(&err);
	for (int i = 0; i < c->ninputs; i++)
		names[i] = fmts[i]->name;
	return TF_EXIT_OK;
}

/* Reads the inputs once, through the span writers, into agg. */
static int run(conv *c, tf_ctx *ctx, tf_agg *agg, tf_span_sink **consumers, const tf_format **fmts,
	       const char **names)
{
	tf_writer_args wa = { .ctx = ctx, .cp = tf_agg_cpath(agg), .inputs = c->inputs, .input_formats = names,
			      .ninputs = c->ninputs };
	if (tf_mpi && c->lake)
		return tf_usage_error(c->cmd, "--lake is not supported with --mpi: write the tables with -o DIR "
				      "(docs/distributed.md), or the run without --mpi");
	int rc = tf_mpi ? mpi_outputs(c, &wa) : TF_EXIT_OK;
	if (rc == TF_EXIT_OK)
		rc = resolve_inputs(c, fmts, names);
	if (rc == TF_EXIT_OK)
		rc = find_steps(c, ctx, fmts);
	if (rc == TF_EXIT_OK)
		rc = open_span_writers(c, &wa, consumers);
	/* --mpi: an output one process cannot open stops them all (each would
	 * otherwise wait for the others in a different call) */
	if (tf_mpi && (rc = tf_mpi_agree(rc)) != TF_EXIT_OK)
		return rc;
	if (rc != TF_EXIT_OK)
		return rc;
	tf_load_opts lopts = tf_input_load_opts(&c->iopts);
	lopts.comments = true;
	lopts.consumers = consumers;
	lopts.formats = fmts;
	rc = tf_load_inputs(ctx, agg, c->inputs, c->ninputs, &lopts);
	bool worker = rc == TF_EXIT_WORKER, loaded = rc == TF_EXIT_OK || worker;
	if (rc == TF_EXIT_OK)
		rc = tf_check_strict(&c->iopts, ctx);
	/* --mpi: the run read well everywhere or nowhere (dist.h); --strict is
	 * process 0's to judge: no process finishes its part of the tables
	 * unless all of the run succeeded */
	if (tf_mpi && loaded && (rc = tf_mpi_agree(worker ? TF_EXIT_OK : rc)) == TF_EXIT_OK && worker)
		rc = TF_EXIT_WORKER;
	return rc;
}

/* "tracefold CMD ARG...", an argument with other than [A-Za-z0-9_./=,:+-]
 * in single quotes (a lake's runs table keeps it). */
static char *command_line(const char *cmd, int argc, char **argv)
{
	size_t n = strlen(cmd) + 16;
	for (int i = 0; i < argc; i++)
		n += 4 * strlen(argv[i]) + 3;
	char *s = malloc(n);
	if (!s)
		return NULL;
	size_t at = (size_t)snprintf(s, n, "tracefold %s", cmd);
	for (int i = argc && !strcmp(argv[0], cmd); i < argc; i++) {
		const char *a = argv[i];
		bool plain = a[0] && strspn(a, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./=,:+-") ==
				     strlen(a);
		s[at++] = ' ';
		if (!plain)
			s[at++] = '\'';
		for (; *a; a++) {
			if (*a == '\'' && !plain) {
				memcpy(s + at, "'\\''", 4);
				at += 4;
			} else {
				s[at++] = *a;
			}
		}
		if (!plain)
			s[at++] = '\'';
	}
	s[at] = '\0';
	return s;
}

static int convert(const char *cmd, int mode, const tf_writer *only, int argc, char **argv)
{
	conv c = { .cmd = cmd, .mode = mode, .only = only };
	tf_span_sink **consumers = calloc((size_t)argc + 1, sizeof(tf_span_sink *));
	const tf_format **fmts = calloc((size_t)argc + 1, sizeof(*fmts));
	const char **names = calloc((size_t)argc + 1, sizeof(char *));
	c.inputs = calloc((size_t)argc + 1, sizeof(char *));
	c.outs = calloc((size_t)argc + 1, sizeof(output));
	tf_ctx *ctx = tf_ctx_new();
	tf_agg *agg = ctx ? tf_agg_new(tf_ctx_strtab(ctx)) : NULL;
	bool helped = false;
	int rc = TF_EXIT_OK;
	if (!consumers || !fmts || !names || !c.inputs || !c.outs || !agg) {
		tf_msg("out of memory");
		rc = TF_EXIT_INPUT;
	}
	if (rc == TF_EXIT_OK && !(c.cmdline = command_line(cmd, argc, argv))) {
		tf_msg("out of memory");
		rc = TF_EXIT_INPUT;
	}
	if (rc == TF_EXIT_OK && (rc = parse(&c, argc, argv, &helped)) == TF_EXIT_OK && !helped &&
	    (rc = pick_writers(&c)) == TF_EXIT_OK && (rc = set_writer_opts(&c)) == TF_EXIT_OK) {
		tf_input_opts_apply(&c.iopts, ctx);
		char note[64];
		snprintf(note, sizeof(note), "tracefold %s", TRACEFOLD_VERSION);
		tf_agg_comment(agg, note);
		rc = run(&c, ctx, agg, consumers, fmts, names);
		/* --mpi: every process that read comes to the agreement below */
		bool worker = rc == TF_EXIT_WORKER, agree = tf_mpi && (rc == TF_EXIT_OK || worker);
		if (rc == TF_EXIT_OK && c.sample_types)
			rc = keep_types(cmd, &agg, c.sample_types);
		if (rc == TF_EXIT_OK || worker)
			rc = finish_spans(&c, ctx);
		if (agree)
			rc = tf_mpi_agree(rc);
		if (rc == TF_EXIT_OK)
			rc = commit_dirs(&c);
		if (rc == TF_EXIT_OK && worker)
			rc = TF_EXIT_WORKER;
		if (rc == TF_EXIT_OK && (rc = write_aggs(&c, agg)) == TF_EXIT_OK) {
			tf_report_diag(ctx);
			char diagbuf[2048];
			tf_diag_format(tf_ctx_diag(ctx), TF_SEV_INFO, ", ", 0, diagbuf, sizeof(diagbuf));
			for (int k = 0; tf_verbose && k < c.nouts; k++)
				tf_msg("%s (%s): %zu samples, %u call paths, %u threads; %s", c.outs[k].path,
				       c.outs[k].w->name, tf_agg_nsamples(agg), tf_agg_nnodes(agg) - 1,
				       tf_ctx_track_count(ctx), diagbuf);
		}
	}
	for (int k = 0; c.outs && k < c.nouts; k++) {
		if (c.outs[k].state)
			c.outs[k].w->span_abort(c.outs[k].state);
		tf_outdir_abort(c.outs[k].dir);
		tf_lake_abort(c.outs[k].lake);
	}
	free(c.steps);
	free(c.cmdline);
	for (size_t i = 0; i < sizeof(c.conf) / sizeof(c.conf[0]); i++)
		free(c.conf[i]);
	tf_agg_free(agg);
	tf_ctx_free(ctx);
	free(c.inputs);
	free(c.outs);
	free(consumers);
	free(fmts);
	free(names);
	tf_input_opts_free(&c.iopts);
	return rc;
}

int tf_cmd_profile(int argc, char **argv) { return convert("profile", MODE_PROFILE, NULL, argc, argv); }
int tf_cmd_convert(int argc, char **argv) { return convert("convert", MODE_CONVERT, NULL, argc, argv); }
int tf_cmd_write(const tf_writer *w, int argc, char **argv) { return convert(w->command, MODE_WRITER, w, argc, argv); }
