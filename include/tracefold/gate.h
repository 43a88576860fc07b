/* gate.h - a statistical comparison of two sets of runs, per step: the
 * verdicts of `tracefold diff --gate` (docs/gate.md).
 *
 *   runs (aggregates with `step` labels: --label-steps) --> per-step means
 *   per run, per function or call path --> a variance model shared by the
 *   rows of a sample type --> a verdict per row and for the step total
 *
 * Replicates are runs (an input each), and steps inside runs.  A row's
 * value in a run is its mean per step.  The change of a row is NEW's mean
 * of its runs' values less BASE's; its noise comes from the spread of the
 * runs' values around their side's mean (both sides pooled, plus a history
 * of earlier runs), moderated across the rows (an empirical Bayes prior,
 * Smyth 2004), and for the sample types that barely vary from run to run
 * (gpu, calls, allocations) from the steps plus a floor (from the runs when
 * they have no steps).  The
 * false-alarm rate is controlled over the whole family of rows at once
 * (Bonferroni).  The library never prints: the command reports. */
#ifndef TRACEFOLD_GATE_H
#define TRACEFOLD_GATE_H

#include <stdbool.h>
#include <stddef.h>
#include "agg.h"
#include "err.h"

/* Verdicts, least severe first. */
enum {
	TF_VERDICT_UNCHANGED = 0,  /* the interval lies within the material change */
	TF_VERDICT_IMMATERIAL,     /* a change, but below the material change (or
				    * the row is too small for any to be material) */
	TF_VERDICT_UNRESOLVED,     /* too noisy to decide: the interval holds 0 and
				    * material changes, or no noise estimate */
	TF_VERDICT_IMPROVED,
	TF_VERDICT_REGRESSED,
	TF_VERDICT_COUNT
};
extern const char *const tf_verdict_names[TF_VERDICT_COUNT]; /* "unchanged", ... */

/* Where a row's noise comes from. */
enum {
	TF_GATE_BASIS_NONE = 0,    /* nowhere: one run per side, no history, and a type
				    * that varies between runs (wall) or runs without steps */
	TF_GATE_BASIS_STEPS,       /* the steps, plus the floor of run-to-run noise
				    * (steady types) */
	TF_GATE_BASIS_RUNS,        /* the runs (and the history) */
};

typedef struct tf_gate_opts {
	const char *type;          /* the sample type's name ("wall", "gpu") */
	bool paths;                /* rows per call path, not per function */
	bool by_total;             /* judge inclusive values, not self */
	double alpha;              /* false alarms over the family (0.05) */
	double min_effect;         /* material: this share of the row's own value (0.03) */
	double min_share;          /* and this share of the step total (0.005) */
	double steady_cv;          /* run-to-run noise floor of steady types (0.005) */
} tf_gate_opts;
#define TF_GATE_OPTS_DEFAULT { NULL, false, false, 0.05, 0.03, 0.005, 0.005 }

typedef struct tf_gate_row {
	tf_str name;               /* a function (frame) or a call path "a;b;c" */
	int status;                /* 0 on both sides, 1 new, 2 gone */
	int verdict;               /* TF_VERDICT_* */
	bool tested;               /* one of the family */
	/* per-step means over each side's runs */
	double base_self, new_self, base_total, new_total, base_calls, new_calls;
	double base, neu;          /* of the judged value (self or total) */
	double delta;              /* neu - base */
	double lo, hi;             /* the simultaneous interval of delta; NAN: none */
	double mde;                /* the change found with 80% power; NAN: none */
	double threshold;          /* the smallest material change */
	double p;                  /* Bonferroni-adjusted p; NAN: not tested */
	uint32_t kernels_new, kernels_gone; /* GPU activities of one side only, whose
					     * values this row took (a library chose
					     * other kernels below it) */
} tf_gate_row;

typedef struct tf_gate_result {
	tf_gate_row total;         /* the step total (name 0) */
	tf_gate_row *rows;         /* every row with a value on either side, sorted:
				    * severest verdict first, then |delta| */
	size_t nrows;
	int basis;                 /* TF_GATE_BASIS_* */
	bool steady;               /* the type is decided from steps when it must */
	int runs[3], steps[3];     /* BASE, NEW, history: runs and steps */
	bool whole_runs;           /* a run had no steps: it is one step */
	double df;                 /* degrees of freedom of the intervals (NAN: basis none) */
	double d0, s0sq;           /* the prior: degrees of freedom (0: none; at most the
				    * tested rows' pooled degrees of freedom) and scale */
	size_t family;             /* rows tested, the total included */
	double crit;               /* the critical t of the family */
	int verdict;               /* regressed if the total or a row is, else improved if
				    * one is, else unresolved if the total or a row is,
				    * else unchanged */
} tf_gate_result;

/* Compares the runs base[0..nb) with neu[0..nn) (history: earlier runs of
 * the baseline, for the noise only; may be 0) in the sample type o->type,
 * all aggregates over one string table.  A run's steps are its samples'
 * numeric `step` labels; a run without any is one step.  A type one run
 * lacks is 0 there.  Returns 0 (out filled; free it with
 * tf_gate_result_free), TF_EUSAGE when no run has the type, or TF_ENOMEM. */
int tf_gate_compare(tf_agg *const *base, int nb, tf_agg *const *neu, int nn, tf_agg *const *hist, int nh,
		    const tf_gate_opts *o, tf_gate_result *out, tf_error *err);
void tf_gate_result_free(tf_gate_result *r);

#endif
