/* report.h - what top and diff share: per-function (or per-call-path)
 * statistics of one sample type of an aggregate, and value formatting for
 * text, Markdown and JSON. */
#ifndef TRACEFOLD_REPORT_H
#define TRACEFOLD_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "tracefold/agg.h"
#include "hmap.h"
#include "fmt.h"

typedef struct tf_fnstat {
	tf_str name;     /* frame text, or the call path "a;b;c" (root first) */
	int64_t self;    /* value of samples whose leaf is this function / path */
	int64_t total;   /* inclusive: counted once per sample even under recursion */
	int64_t calls;   /* calls/count of the samples whose leaf it is; 0 without a calls type */
} tf_fnstat;

/* The one way top and diff count functions (or call paths): fn[] holds, in
 * first-seen order, those whose self, total or calls is non-zero; a name
 * that occurs only in samples that are all zero (pprof drops those) or only
 * with other sample types is not a function of the report. */
typedef struct tf_fnstats {
	tf_fnstat *fn;
	uint32_t n, cap;
	tf_hmap idx;        /* name -> index */
	int64_t total;      /* sum of the type over all samples */
	int64_t calls_total;
	int type;           /* the sample type */
	bool saturated;     /* a sum reached the int64 range and was clamped */
	int calls_type;     /* index of "calls", -1 none */
	uint32_t *node_fn;  /* agg node -> index into fn (of its frame, or of its path with
	                     * paths); UINT32_MAX for the root and names that do not count */
} tf_fnstats;

/* Builds statistics of type t; paths: per call path instead of per function. */
int tf_fnstats_build(tf_fnstats *s, tf_agg *a, int t, int paths);
void tf_fnstats_free(tf_fnstats *s);
/* Index of name, or -1. */
int64_t tf_fnstats_find(const tf_fnstats *s, tf_str name);

/* Says on stderr (unless quiet) that s's sums were clamped at the int64
 * range; returns 0 (never an error: the values are clamped, not wrapped). */
int tf_fnstats_warn_saturated(const tf_fnstats *s);
/* Value for JSON: time units in integer ns, others as they are; clamped to
 * the int64 range (never through an out-of-range conversion to a wrong sign). */
long long tf_json_int(double v, const char *unit);

/* tf_unit_ns, tf_fmt_value, tf_fmt_delta: fmt.h */
/* JSON string literal (quotes, escapes, invalid UTF-8 -> U+FFFD). */
void tf_json_str(FILE *f, const char *s);
/* s with control characters (ESC of ANSI sequences, newlines, ...) shown as
 * "\x1b": text output never lets a name drive the terminal.  malloc'd, NULL
 * if out of memory.  tf_text_str prints it. */
char *tf_text_safe(const char *s);
void tf_text_str(FILE *f, const char *s);
/* Markdown table cell holding s as a code span (pipes escaped). */
void tf_md_code(FILE *f, const char *s);
/* A Markdown link [`text`](url), the url percent-encoded where Markdown
 * would end it (spaces, <, >, parentheses, controls). */
void tf_md_link(FILE *f, const char *text, const char *url);

/* A name shortened for a text or Markdown table to at most max_width code
 * points (0 = never shorten); a name that fits is returned unchanged.
 * Otherwise, until it fits: template argument lists lose their contents
 * ("kernel<...>", innermost first), then argument lists after an identifier
 * ("fn(...)"; not "file.py(123)", a line number), then the middle of the
 * name is cut ("start...end").  Unbalanced brackets are left alone; only
 * ASCII "..." is inserted.  Returns a malloc'd string, NULL if out of memory. */
char *tf_name_short(const char *name, size_t max_width);

/* The names of one table's rows (n, all different), shortened as
 * tf_name_short does, then told apart where that made two the same: those
 * are shortened around the text where they differ ("start...Array<char*,
 * 3>, Triv...end"), and names still equal get " #2", " #3", ... in place
 * of their last code points.  out[i] malloc'd (the caller frees each).
 * 0 or TF_ENOMEM (out all NULL then). */
int tf_names_short(const char *const *names, size_t n, size_t width, char **out);

/* A table printed as aligned text or as a GitHub Markdown table.  Row 0 is
 * the header.  align: one char per column, 'r' or 'l'; the column code_col
 * (or -1) is written as a Markdown code span. */
typedef struct tf_table {
	int ncols;
	const char *align;
	int code_col;
	char **cells;       /* nrows x ncols, owned */
	size_t nrows, caprows;
} tf_table;
void tf_table_init(tf_table *t, int ncols, const char *align, int code_col);
int tf_table_add(tf_table *t, const char *const *cells);
void tf_table_print(const tf_table *t, FILE *f, int markdown);
void tf_table_free(tf_table *t);

/* GPU coverage (coverage.c, docs/gpu.md "Coverage"): of total_ns of GPU
 * time, unattributed_ns under "[unattributed gpu]", the reasons from d's
 * gpu_unattributed_* counters (d NULL or without them: a profile, reasons
 * not known).  The text is one line "gpu: 97.3% of 1.93 s under a CPU call
 * path; unattributed ...: N activities (T) REASON, ..."; the JSON one object,
 * its inner lines indented by indent. */
struct tf_diag;
void tf_gpu_coverage_text(FILE *f, const struct tf_diag *d, int64_t total_ns, int64_t unattributed_ns);
void tf_gpu_coverage_json(FILE *f, const struct tf_diag *d, int64_t total_ns, int64_t unattributed_ns,
			  const char *indent);

#endif
