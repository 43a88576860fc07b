/* gate_cli.h - what diff --gate's files share (src/cmd/gate.c: runs and
 * history; gate_report.c: text, Markdown and JSON; the flame graph). */
#ifndef TRACEFOLD_GATE_CLI_H
#define TRACEFOLD_GATE_CLI_H

#include "cmd.h"
#include "tracefold/gate.h"

typedef struct tf_gate_cli {
	const char *pos[2];        /* BASE, NEW as given */
	const char *types;         /* --sample-type LIST (or all), NULL: wall and gpu */
	tf_gate_opts gopts;        /* paths, by, alpha, thresholds */
	int fmt;                   /* TF_OUT_* */
	long long count;           /* -n: rows shown (0 all); regressions always */
	size_t name_width;
	const char *history;       /* --history DIR */
	int history_max;
	const char *save_history;  /* --save-history DIR */
	bool fail_unresolved;
	const char *flame, *flame_url;
} tf_gate_cli;

/* diff --gate (gate.c): the whole command once the options are parsed. */
int tf_diff_gate(const tf_gate_cli *c, tf_input_opts *iopts);

typedef struct tf_gate_report {
	const tf_gate_cli *c;
	tf_ctx *ctx;
	const char **types, **units;
	const tf_gate_result *res; /* per type */
	int ntypes;
	int nruns[3];              /* BASE, NEW, history */
	const char **names[3];     /* their inputs */
} tf_gate_report;

/* The report on stdout in c->fmt (gate_report.c). */
void tf_gate_print(const tf_gate_report *r);
/* --flame: the differential flame graph of the first type, frames colored
 * by their rows' verdicts (gate_report.c). */
int tf_gate_flame(const tf_gate_cli *c, tf_agg *const *base, int nb, tf_agg *const *neu, int nn,
		  const tf_gate_result *res, const char *type, const char *unit);

#endif
