/* overview.h - the report of `tracefold overview` as its printers see it
 * (overview.c: text, Markdown, JSON; overview_html.c: the HTML page). */
#ifndef TRACEFOLD_CMD_OVERVIEW_H
#define TRACEFOLD_CMD_OVERVIEW_H

#include <stdio.h>
#include "tracefold/overview.h"
#include "tracefold/agg.h"
#include "tracefold/ctx.h"
#include "cmd.h"

/* One row of a "where the time goes" table. */
typedef struct tf_ov_row {
	char *name;             /* the function, kernel, op, Python line (owned) */
	int64_t value;          /* ns */
	double share;           /* of the table's total, 0..1; imbalance: max/mean */
	int64_t max_rank;       /* imbalance: the rank with the most; else -1 */
} tf_ov_row;

typedef struct tf_ov_table {
	const char *title;      /* "GPU kernels by GPU time" */
	const char *what;       /* the name column's header: "kernel" */
	const char *value;      /* the value column's header: "gpu", "cpu", "max-mean" */
	bool imbalance;         /* share is max/mean */
	tf_ov_row *rows;
	size_t n;
} tf_ov_table;

#define TF_OV_MAX_TABLES 8

typedef struct tf_ov_report {
	tf_ctx *ctx;
	tf_agg *agg;                    /* the run's aggregate (labels rank, step) */
	int wall_type, gpu_type;        /* its sample types, -1 none */
	const tf_ov_result *res;
	const char *const *inputs;
	int ninputs;
	int ranks_from;                 /* TF_OV_RANKS_* */
	const char *step_region;        /* --step-region NAME, or NULL */
	char **where;                   /* per straggler: its call path "a;b;c" (owned), or NULL */
	tf_ov_table tables[TF_OV_MAX_TABLES];
	int ntables;
	size_t max_rows;                /* --max-rows: steps kept per rank in JSON; tables' rows */
	const char *title;              /* the page's title */
} tf_ov_report;

/* The HTML page (overview_html.c): self-contained, inline SVG, no script
 * from the network.  0 or an errno-like negative value from writing. */
int tf_ov_print_html(FILE *f, const tf_ov_report *r);

/* overview_tables.c: each straggler's call path (r->where), the tables
 * (r->tables), the path text of a node, and what they hold freed. */
int tf_ov_wheres(tf_ov_report *r);
int tf_ov_tables(tf_ov_report *r);
char *tf_ov_path_text(const tf_agg *a, uint32_t node);
void tf_ov_report_free(tf_ov_report *r);

/* overview_jobs.c: -j, the inputs in shares of whole inputs on jobs
 * threads, added into ctx, agg and ov (no spans of its own); *trace_ranks
 * set when a trace named its ranks.  An exit status (said). */
int tf_ov_jobs(int jobs, tf_ctx *ctx, tf_agg *agg, tf_ov *ov, const char *const *inputs, int n,
	       const tf_format *const *fmts, const tf_input_opts *io, const int64_t *irank, int64_t late_min_ns,
	       bool *trace_ranks);

#endif
