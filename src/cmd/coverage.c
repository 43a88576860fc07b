/* coverage.c - the share of GPU time under a CPU call path and why the rest
 * is not, as info and top say it (docs/gpu.md "Coverage"): from the
 * gpu_unattributed_* diagnostics the GPU join counts. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "tracefold/diag.h"
#include "report.h"

/* The reasons, in the order they are said, with their text and JSON key. */
static const struct {
	tf_diag_id id;
	const char *text, *key;
} why[] = {
	{ TF_DIAG_gpu_unattributed_no_corr, "with no correlation id", "no_correlation_id" },
	{ TF_DIAG_gpu_unattributed_early, "with no launch in the trace (launch before the trace started)",
	  "launch_before_trace" },
	{ TF_DIAG_gpu_unattributed_no_launch, "with no launch in the trace (trace cut, or launch lost)",
	  "launch_not_in_trace" },
};

void tf_gpu_coverage_text(FILE *f, const tf_diag *d, int64_t total_ns, int64_t unattributed_ns)
{
	char t[32], u[32];
	tf_fmt_value(t, sizeof(t), (double)total_ns, "nanoseconds");
	tf_fmt_value(u, sizeof(u), (double)unattributed_ns, "nanoseconds");
	double pct = total_ns > 0 ? 100.0 * (double)(total_ns - unattributed_ns) / (double)total_ns : 100.0;
	fprintf(f, "gpu: %.1f%% of %s under a CPU call path", pct, t);
	if (!unattributed_ns) {
		fprintf(f, "\n");
		return;
	}
	fprintf(f, "; unattributed %s", u);
	const char *sep = ": ";
	size_t nwhy = 0;
	for (size_t i = 0; d && i < sizeof(why) / sizeof(why[0]); i++)
		nwhy += d->n[why[i].id] != 0;
	for (size_t i = 0; d && i < sizeof(why) / sizeof(why[0]); i++) {
		if (!d->n[why[i].id])
			continue;
		/* one reason: its time is the unattributed time just said */
		char w[40] = "";
		if (nwhy > 1) {
			char v[32];
			tf_fmt_value(v, sizeof(v), (double)d->ns[why[i].id], "nanoseconds");
			snprintf(w, sizeof(w), " (%s)", v);
		}
		fprintf(f, "%s%" PRIu64 " activities%s %s", sep, d->n[why[i].id], w, why[i].text);
		sep = ", ";
	}
	if (!strcmp(sep, ": ")) /* a profile: its inputs' diagnostics are not in it */
		fprintf(f, " (reasons not known: read the trace)");
	fprintf(f, "\n");
}

void tf_gpu_coverage_json(FILE *f, const tf_diag *d, int64_t total_ns, int64_t unattributed_ns, const char *indent)
{
	fprintf(f, "{\"gpu_ns\": %lld, \"attributed_ns\": %lld, \"unattributed_ns\": %lld, \"attributed_pct\": %.4f, "
		   "\"unattributed\": {",
		(long long)total_ns, (long long)(total_ns - unattributed_ns), (long long)unattributed_ns,
		total_ns > 0 ? 100.0 * (double)(total_ns - unattributed_ns) / (double)total_ns : 100.0);
	for (size_t i = 0; i < sizeof(why) / sizeof(why[0]); i++)
		fprintf(f, "%s\n%s  \"%s\": {\"activities\": %" PRIu64 ", \"ns\": %" PRIu64 "}", i ? "," : "", indent,
			why[i].key, d ? d->n[why[i].id] : 0, d ? d->ns[why[i].id] : 0);
	fprintf(f, "\n%s}}", indent);
}
