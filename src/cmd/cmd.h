/* cmd.h - the commands (one file each in src/cmd/) and what they share.
 * Only main.c and src/cmd/ print; exit codes are the same everywhere: */
#ifndef TRACEFOLD_CMD_H
#define TRACEFOLD_CMD_H

#include <stdbool.h>
#include <stdio.h>
#include "tracefold/err.h"
#include "tracefold/ctx.h"
#include "tracefold/agg.h"
#include "tracefold/pipeline.h"
#include "help.h"

enum {
	TF_EXIT_OK = 0,         /* success */
	TF_EXIT_REGRESSION = 1, /* diff --fail-above (or --gate) found a regression */
	TF_EXIT_USAGE = 2,      /* bad command line */
	TF_EXIT_INPUT = 3,      /* unreadable or invalid input, or output failure */
	TF_EXIT_UNRESOLVED = 4, /* diff --gate --fail-unresolved: a material change unresolved */
	TF_EXIT_WORKER = 100,   /* internal, never an exit status: a process of a distributed
				 * run other than 0 has handed its share on (tf_mpi_load) */
};

#include "tracefold/version.h"

typedef struct tf_cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
} tf_cmd;

int tf_cmd_profile(int argc, char **argv);
int tf_cmd_convert(int argc, char **argv);
/* A writer's own command (tf_writer.command: events, chrome, perfetto,
 * otf2, ...): convert with that one output. */
struct tf_writer;
int tf_cmd_write(const struct tf_writer *w, int argc, char **argv);
int tf_cmd_info(int argc, char **argv);
int tf_cmd_top(int argc, char **argv);
int tf_cmd_diff(int argc, char **argv);
int tf_cmd_merge(int argc, char **argv);
int tf_cmd_fold(int argc, char **argv);
int tf_cmd_flame(int argc, char **argv);
int tf_cmd_history(int argc, char **argv);
int tf_cmd_overview(int argc, char **argv);
int tf_cmd_completion(int argc, char **argv);
int tf_cmd_manpage(int argc, char **argv);

/* The command table (commands.c): every command's name and summary in
 * --help's order, the writers' commands included (at most TF_CMD_MAX;
 * returns how many are stored); runs command name (-1: there is none);
 * tracefold's own --help (tf_help_* calls); a tf_help_fn: the --help of
 * command cmd, or tracefold's for NULL. */
#define TF_CMD_MAX 64
size_t tf_cmd_names(const char **names, const char **summaries);
int tf_cmd_run(const char *name, int argc, char **argv);
void tf_usage(void);
void tf_cmd_help(const char *cmd);

/* Shared helpers (src/cmd/util.c). */
extern int tf_verbose;   /* -v count */
extern int tf_quiet;     /* -q */
/* "tracefold: <msg>" on stderr. */
void tf_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints err as "tracefold: cannot read 'F' at byte N: ..." and returns TF_EXIT_INPUT
 * (TF_EXIT_USAGE for TF_EUSAGE). */
int tf_report(const tf_error *err);
/* Prints "tracefold CMD: <msg>\nTry 'tracefold CMD --help'." and returns TF_EXIT_USAGE. */
int tf_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* One option's lines in a --help: "  -o, --output FILE    help", the help
 * from column 23, its further lines ('\n' between) indented as far. */
void tf_help_opt(const char *short_name, const char *long_name, const char *value, const char *help);
/* True if arg is -h or --help. */
bool tf_is_help(const char *arg);
/* Parses a non-negative integer / a double option value; false if malformed. */
bool tf_parse_i64(const char *s, long long *out);
bool tf_parse_double(const char *s, double *out);
/* "1us", "500ns", "2.5ms", "1s" (or "0") -> ns; false if malformed. */
bool tf_parse_duration_ns(const char *s, int64_t *ns_out);
/* Prints the run's repair/warning counters and where they happened (the
 * ctx notes, first 10) to stderr, unless quiet. */
void tf_report_diag(tf_ctx *ctx);

/* The progress line on stderr while inputs are read (progress.c): drawn
 * only when stderr is a terminal and not -q; stop erases it. */
void tf_progress_start(const char *const *inputs, int n, const tf_format *const *fmts);
void tf_progress_stop(void);

/* Input options every trace-reading command shares (docs/cli.md "Inputs"):
 *   -F, --input-format NAME   read traces as NAME instead of sniffing
 *   -c, --counters LIST       counters that become sample types ("all" = every one)
 *       --edf FILE            TAU: definitions for a lone .trc file
 *       --tau-flush           TAU: show buffer flushes as a [TAU trace flush] frame
 *       --keep-trace-span     Chrome: keep Kineto's whole-trace span
 *       --clip-tolerance DUR  stack builder: largest overhang clipped (default 1us)
 *       --sort-mem SIZE       stack builder: memory for unsorted tracks before runs go to $TMPDIR
 *       --strict              any repair or lost input is an error (exit 3)
 *       --ranks LIST          keep the tracks of these MPI ranks (filter.h)
 *       --window START:END    keep what happened in [START, END) (filter.h)
 *       --steps A:B           the window of ProfilerStep#A..#B (filter.h)
 *       --folded-type T/U     the sample type of folded stack inputs (folded.h) */
typedef struct tf_input_opts {
	const char *format;
	const char **counters;  /* NULL-terminated, split from the LIST */
	char *counters_buf;
	const char *edf;
	bool tau_flush;
	bool keep_trace_span;
	bool strict;
	bool has_clip_tolerance;
	int64_t clip_tolerance_ns;
	int64_t clock_offset_ns;      /* --clock-offset */
	bool has_sort_mem;
	size_t sort_mem_bytes;
	tf_filter_opts filter;  /* --ranks, --window: tf_pipeline_opts.filter */
	tf_rank_range *ranks_buf;
	const char *folded_type; /* --folded-type TYPE/UNIT: tf_pipeline_opts.folded_type */
	unsigned names_off;      /* stable-name rules turned off (TF_NAMES_*: --raw-names all,
				  * --step-frames the ProfilerStep one) */
	bool backward_to_forward; /* --backward-to-forward (docs/gpu.md) */
	bool keep_waiting;       /* --keep-waiting of top and diff (waiting.c) */
} tf_input_opts;
/* If argv[*i] is one of the input options, consumes it and its value and
 * returns 1; returns 0 if it is not one; prints a usage error for a missing
 * or bad value and returns -1. */
int tf_input_option(const char *cmd, int argc, char **argv, int *i, tf_input_opts *o);
typedef struct tf_pipeline_opts tf_load_opts; /* include/tracefold/pipeline.h */
/* The pipeline options the shared input options give (format, counters,
 * filters, folded type); a command adds its own (first_input, comments,
 * consumers). */
tf_load_opts tf_input_load_opts(const tf_input_opts *o);
/* The sample type a command shows (tf_agg_type_pick: name, else the
 * default one); when there is none, says so ("no sample type 'T' in
 * WHERE ...") and returns -1. */
int tf_pick_type(const tf_agg *a, const char *name, const char *where);
/* Sets the reader options (edf, tau_flush) of ctx. */
void tf_input_opts_apply(const tf_input_opts *o, tf_ctx *ctx);
void tf_input_opts_free(tf_input_opts *o);
/* A --folded-type value: TYPE/UNIT, both non-empty (split at the last '/');
 * prints a usage error and returns false if it is not one. */
bool tf_folded_type_ok(const char *cmd, const char *value);
/* A -F value: the name of a row of tf_formats; prints a usage error listing
 * them and returns false if it is not one. */
bool tf_input_format_ok(const char *cmd, const char *value);
/* The help lines of the input options (one row each in util.c, with the
 * hook that checks and stores its value), for each command's --help. */
void tf_input_opts_help(void);

/* --name-width N of top and diff: names in text and Markdown tables are
 * shortened to N code points (tf_name_short); 0 = never. */
#define TF_NAME_WIDTH_DEFAULT 80
#define TF_NAME_WIDTH_MIN 10
#define TF_NAME_WIDTH_TEXT                                                          \
	"shorten longer function names to N characters in text\nand Markdown (default " \
	"80, 0 = never; not in JSON):\nkernel<...>(...), then start...end"
/* Parses a --name-width value (0, or TF_NAME_WIDTH_MIN or more); prints a
 * usage error and returns -1 if it is not one. */
int tf_name_width(const char *cmd, const char *value, size_t *width_out);

/* The one option parser of the commands: a table per command, walked by
 * tf_opt_next, which also handles "--" (every later argument is
 * positional), -h/--help, the shared trace input options (when iopts is
 * given) and the usage errors (a missing value, an unknown option). */
typedef struct tf_opt {
	int id;                 /* >= 0, returned for this option (TF_OPT_SECTION: a heading) */
	const char *short_name; /* "-n", or NULL */
	const char *long_name;  /* "--count" */
	bool has_value;         /* takes the next argument */
	const char *value;      /* for --help: what it takes ("N") */
	const char *help;       /* for --help ('\n' between lines; tf_opts_help); NULL: not
				 * listed (another name of an option listed) */
} tf_opt;
enum {
	TF_OPT_DONE = -1,       /* no argument left */
	TF_OPT_ARG = -2,        /* a positional argument (*value) */
	TF_OPT_USAGE = -3,      /* a usage error, already printed */
	TF_OPT_HELP = -4,       /* -h or --help */
	TF_OPT_SECTION = -5,    /* a row that heads the options after it in --help (its help) */
};
/* The --help lines of the options of table (tf_help_opt each), then -h. */
void tf_opts_help(const tf_opt *table);
typedef struct tf_optstate {
	int i;                  /* the argument looked at (0 before the first) */
	bool endopts;           /* "--" was seen */
	const char *opt;        /* the option as written, for messages */
} tf_optstate;
/* The next option (its id, *value = its argument or NULL), positional
 * argument, help request, usage error or the end.  Table ends with a row
 * whose long_name is NULL. */
int tf_opt_next(const char *cmd, int argc, char **argv, const tf_opt *table, tf_input_opts *iopts,
		tf_optstate *st, const char **value);

/* Output formats of the report commands. */
enum { TF_OUT_TEXT = 1, TF_OUT_MARKDOWN = 2, TF_OUT_JSON = 4 };
/* Parses a --format value among the allowed ones (a mask); prints a usage
 * error and returns -1 if it is not one of them. */
int tf_out_format(const char *cmd, const char *value, int allowed, int *fmt_out);
/* True when argv[*i] needs a value and has none: prints the usage error. */
bool tf_missing_value(const char *cmd, int argc, char **argv, int i);

/* --mpi (src/cmd/mpi.c, docs/distributed.md): tf_mpi is set by the input
 * option; tf_load_inputs then runs the pipeline distributed over MPI's
 * processes (tf_mpi_load): process 0 gets TF_EXIT_OK and the whole run's
 * aggregate, the others TF_EXIT_WORKER once their share is handed on (the
 * command then writes nothing but its own part of a Parquet output).
 * tf_mpi_start starts MPI (once) and says which process this is;
 * tf_mpi_end (main, after the command) ends it, every process returning
 * the same, highest, exit status.  Without MPI (plain tracefold) start and
 * load say how to build tracefold-mpi and return TF_EXIT_USAGE. */
extern int tf_mpi;
/* -j N (util.c): threads that read the inputs' parts (dist.h
 * tf_dist_threads), 0 = one per core, 1 = the calling thread alone. */
extern int tf_jobs;
int tf_mpi_start(int *rank, int *size);
int tf_mpi_load(tf_ctx *ctx, tf_agg *agg, const char *const *inputs, int n, const tf_load_opts *o);
int tf_mpi_end(int rc);
/* --mpi, after tf_mpi_start: every process's status agreed (the highest;
 * TF_EXIT_WORKER counts as TF_EXIT_OK); a collective call, so every
 * process makes it at the same point.  Without MPI: rc. */
int tf_mpi_agree(int rc);
/* --mpi, after tf_mpi_start: process 0's buf (len bytes, a text) to every
 * process; TF_EXIT_OK or an exit status (said).  Without MPI: nothing. */
int tf_mpi_bcast_text(char *buf, size_t len);
/* "--mpi with Open MPI v4.1.4" in tracefold-mpi, NULL in tracefold (--version). */
const char *tf_mpi_build(void);

/* Threads that only wait (waiting.c, docs/stack-rules.md): top, diff and
 * diff --gate replace their aggregate with one without the samples
 * labelled waiting, unless io->keep_waiting, adding to *left what they
 * left out; tf_say_waiting says it on stderr (not -q).  An exit status
 * (out of memory: said). */
typedef struct tf_waiting_left {
	int threads;            /* the most of any one aggregate */
	int64_t wall_ns;        /* their wall time, all aggregates together */
} tf_waiting_left;
int tf_leave_out_waiting(tf_agg **agg, const tf_input_opts *io, tf_waiting_left *left);
void tf_say_waiting(const tf_waiting_left *left);

/* The pipeline (include/tracefold/pipeline.h) run for a command: prints its
 * warnings and, on failure, its error; returns an exit status. */
int tf_load_inputs(tf_ctx *ctx, tf_agg *agg, const char *const *inputs, int n, const tf_load_opts *o);
/* What every command that reads one aggregate and shows it does: the
 * input options applied to ctx, the inputs loaded (tf_load_inputs), the
 * repairs reported, --strict applied and, with type_out, the sample type
 * picked (type_name, or the default; said when there is none).  Returns
 * an exit status (TF_EXIT_WORKER: an --mpi process other than 0). */
int tf_load_report(tf_ctx *ctx, tf_agg *agg, const char *const *inputs, int n, const tf_input_opts *io,
		   const char *type_name, int *type_out);
/* Prints the ctx's warnings not printed yet (unless quiet). */
void tf_print_warnings(tf_ctx *ctx);

/* One argument naming several inputs joined with ',' ("a.json,b.json"), as
 * BASE and NEW of diff: a path that exists as given is one input even with
 * a ','.  *copy and *list are malloc'd (the caller frees both); returns the
 * number of inputs (0: none), -1 when out of memory. */
int tf_split_inputs(const char *arg, char **copy, const char ***list);

/* --strict: any repair or warning counter is an error (printed). */
int tf_check_strict(const tf_input_opts *o, tf_ctx *ctx);
/* An output that names one of the inputs (same file) is a usage error
 * (printed, TF_EXIT_USAGE); else TF_EXIT_OK. */
int tf_output_is_input(const char *cmd, const char *out, const char *const *inputs, int n);

#endif
