/* cmd.h - the commands (one file each in src/cmd/) and what they share.
 * Only main.c and src/cmd/ print; exit codes are the same everywhere: */
#ifndef TRACEFOLD_CMD_H
#define TRACEFOLD_CMD_H

#include <stdbool.h>
#include <stdio.h>
#include "tracefold/err.h"
#include "tracefold/ctx.h"
#include "tracefold/agg.h"

enum {
	TF_EXIT_OK = 0,         /* success */
	TF_EXIT_REGRESSION = 1, /* diff --fail-above found a regression */
	TF_EXIT_USAGE = 2,      /* bad command line */
	TF_EXIT_INPUT = 3,      /* unreadable or invalid input, or output failure */
};

#define TRACEFOLD_VERSION "0.1.0"

typedef struct tf_cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
} tf_cmd;

int tf_cmd_profile(int argc, char **argv);
int tf_cmd_info(int argc, char **argv);
int tf_cmd_top(int argc, char **argv);
int tf_cmd_diff(int argc, char **argv);
int tf_cmd_merge(int argc, char **argv);

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
/* True if arg is -h or --help. */
bool tf_is_help(const char *arg);
/* Parses a non-negative integer / a double option value; false if malformed. */
bool tf_parse_i64(const char *s, long long *out);
bool tf_parse_double(const char *s, double *out);
/* Prints the run's repair/warning counters and where they happened (the
 * ctx notes, first 10) to stderr, unless quiet. */
void tf_report_diag(tf_ctx *ctx);

/* Inputs -> aggregate (src/cmd/load.c): traces go through the readers and
 * the stack builder, pprof profiles (tf_pprof_sniff) through tf_pprof_read;
 * all are summed into agg (empty, over ctx's string table).  Prints what
 * went wrong and returns an exit status (TF_EXIT_OK or TF_EXIT_INPUT). */
typedef struct tf_load_opts {
	const char *format;             /* force this trace reader (no pprof sniffing), or NULL */
	const char *const *counters;    /* tf_stacks_opts.counters */
	uint32_t first_input;           /* input index of inputs[0] (distinct per load in one ctx) */
	bool comments;                  /* record inputs and event counts as profile comments */
} tf_load_opts;
int tf_load_inputs(tf_ctx *ctx, tf_agg *agg, const char *const *inputs, int n, const tf_load_opts *o);

#endif
