/* overview_print.c - `tracefold overview` as text, Markdown (verdict lines
 * first, for a CI comment) and JSON (schema tracefold-overview/1:
 * docs/overview.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmd.h"
#include "overview.h"
#include "report.h"
#include "fmt.h"
#include "sat.h"

static const char *const ranks_from[] = { "trace", "file names", "inputs" };
static const char *const ranks_from_text[] = { "the traces", "file names", "one per input" };

static void steps_from(const tf_ov_report *r, char *buf, size_t n)
{
	if (r->res->steps_from == TF_OV_STEPS_PROFILER)
		snprintf(buf, n, "ProfilerStep");
	else if (r->res->steps_from == TF_OV_STEPS_REGION)
		snprintf(buf, n, "region %s", r->step_region ? r->step_region : "?");
	else
		snprintf(buf, n, "whole run");
}

static const char *ns(char *b, int64_t v)
{
	tf_fmt_value(b, 32, (double)v, "nanoseconds");
	return b;
}

static void verdict(FILE *f, const tf_ov_report *r, bool md)
{
	const tf_ov_result *res = r->res;
	char b1[32], b2[32], sf[160];
	steps_from(r, sf, sizeof sf);
	fprintf(f, "%s%zu rank%s (from %s), %u GPU%s, %u thread%s, %zu rank-step%s (%s), wall %s%s\n",
		md ? "**tracefold overview**: " : "tracefold overview: ", res->nranks, res->nranks == 1 ? "" : "s",
		ranks_from_text[r->ranks_from], res->devices, res->devices == 1 ? "" : "s", res->threads,
		res->threads == 1 ? "" : "s", res->nsteps, res->nsteps == 1 ? "" : "s", sf,
		ns(b1, res->any_time ? tf_sat_sub(res->end_ns, res->start_ns) : 0), md ? "\n" : "");
	if (!res->coll_matched)
		fprintf(f, "%sstragglers: not judged: no collective call matched across ranks\n", md ? "- " : "");
	else if (!res->nstragglers)
		fprintf(f, "%sno straggler: no rank %s late at a step's collectives (%llu matched across ranks)\n",
			md ? "- " : "", ns(b1, res->late_min_ns), (unsigned long long)res->coll_matched);
	else
		fprintf(f, "%s%zu straggler%s (%s or more late at a step's collectives):\n", md ? "- " : "",
			res->nstragglers, res->nstragglers == 1 ? "" : "s", ns(b1, res->late_min_ns));
	for (size_t i = 0; i < res->nstragglers && i < r->max_rows; i++) {
		const tf_ov_straggler *s = &res->stragglers[i];
		fprintf(f, "%srank %lld step %lld: %s late", md ? "  - " : "  ", (long long)s->rank, (long long)s->step,
			ns(b2, s->late_ns));
		if (r->where && r->where[i]) {
			fputs(", the difference in ", f);
			if (md)
				tf_md_code(f, r->where[i]);
			else
				tf_text_str(f, r->where[i]);
		}
		fputc('\n', f);
	}
	if (res->nstragglers > r->max_rows)
		fprintf(f, "%s... %zu more (JSON has them all)\n", md ? "  - " : "  ", res->nstragglers - r->max_rows);
	if (res->coll_unmatched || res->coll_no_step)
		fprintf(f, "%scollectives: %llu matched, %llu calls of no other rank, %llu in no step\n", md ? "- " : "",
			(unsigned long long)res->coll_matched, (unsigned long long)res->coll_unmatched,
			(unsigned long long)res->coll_no_step);
	if (res->mpi) {
		char b3[32], b4[32];
		int64_t mpi = 0;
		for (size_t i = 0; i < res->nranks; i++)
			mpi += res->ranks[i].mpi_ns;
		fprintf(f, "%sMPI: %s in MPI; waiting: late sender %s, late receiver %s, at collectives %s; "
			"%llu messages matched, %llu not\n", md ? "- " : "", ns(b1, mpi),
			ns(b2, res->wait_ns[TF_OV_LATE_SENDER]), ns(b3, res->wait_ns[TF_OV_LATE_RECEIVER]),
			ns(b4, res->wait_ns[TF_OV_COLL_WAIT]), (unsigned long long)res->msg_matched,
			(unsigned long long)res->msg_unmatched);
	}
}

static int time_desc(const void *x, const void *y);

static int steps_table(FILE *f, const tf_ov_report *r, bool md)
{
	static const char *hdr[] = { "rank", "step", "time", "cpu", "gpu compute", "gpu comm", "memcpy", "memset",
				     "gpu idle", "comm exposed", "comm wait", "late", "bound" };
	const tf_ov_result *res = r->res;
	size_t n = res->nsteps;
	const tf_ov_step **rows = malloc((n + 1) * sizeof(*rows));
	if (!rows)
		return TF_ENOMEM;
	for (size_t i = 0; i < n; i++)
		rows[i] = &res->steps[i];
	bool cut = n > 64 && n > r->max_rows; /* a big run: its slowest rank-steps */
	if (cut) {
		qsort(rows, n, sizeof(*rows), time_desc);
		n = r->max_rows;
	}
	tf_table t;
	int nc = res->telemetry ? 15 : 13; /* telemetry: gpu util and gpu power (docs/telemetry.md) */
	const char *h[15];
	memcpy(h, hdr, sizeof(hdr));
	h[13] = "gpu util";
	h[14] = "gpu power";
	tf_table_init(&t, nc, "rrrrrrrrrrrrlrr", -1);
	int rc = tf_table_add(&t, h);
	for (size_t i = 0; i < n && rc == 0; i++) {
		const tf_ov_step *s = rows[i];
		char b[15][32];
		const char *c[15];
		snprintf(b[0], 32, "%lld", (long long)s->rank);
		snprintf(b[1], 32, "%lld", (long long)s->step);
		int64_t v[] = { s->time_ns, s->cpu_ns, s->gpu_compute_ns, s->gpu_comm_ns, s->gpu_memcpy_ns,
				s->gpu_memset_ns, s->gpu_idle_ns, s->comm_exposed_ns, s->comm_wait_ns };
		for (int k = 0; k < 9; k++)
			ns(b[2 + k], v[k]);
		if (s->ncoll)
			tf_fmt_delta(b[11], 32, (double)s->late_ns, "nanoseconds");
		else
			snprintf(b[11], 32, "-");
		snprintf(b[12], 32, "%s", tf_ov_bound_names[s->bound]);
		if (s->gpu_util >= 0)
			snprintf(b[13], 32, "%.1f%%", s->gpu_util);
		else
			snprintf(b[13], 32, "-");
		if (s->gpu_power >= 0)
			snprintf(b[14], 32, "%.1f W", s->gpu_power);
		else
			snprintf(b[14], 32, "-");
		for (int k = 0; k < nc; k++)
			c[k] = b[k];
		rc = tf_table_add(&t, c);
	}
	if (rc == 0 && cut)
		fprintf(f, md ? "\n### The %zu slowest of %zu rank-steps (JSON: each rank's)\n\n"
			      : "\nthe %zu slowest of %zu rank-steps (JSON: each rank's):\n", n, res->nsteps);
	else if (rc == 0)
		fprintf(f, md ? "\n### Per rank and step\n\n" : "\nper rank and step:\n");
	if (rc == 0)
		tf_table_print(&t, f, md);
	tf_table_free(&t);
	free(rows);
	return rc;
}

static int top_tables(FILE *f, const tf_ov_report *r, bool md)
{
	int rc = 0;
	for (int k = 0; k < r->ntables && rc == 0; k++) {
		const tf_ov_table *tb = &r->tables[k];
		int nc = tb->imbalance ? 4 : 3;
		const char *hdr[] = { tb->value, tb->imbalance ? "max/mean" : "share", tb->imbalance ? "max rank" : tb->what,
				      tb->what };
		tf_table t;
		tf_table_init(&t, nc, tb->imbalance ? "rrrl" : "rrl", nc - 1);
		rc = tf_table_add(&t, hdr);
		for (size_t i = 0; i < tb->n && rc == 0; i++) {
			char b[3][32];
			ns(b[0], tb->rows[i].value);
			if (tb->imbalance) {
				snprintf(b[1], 32, "%.2f", tb->rows[i].share);
				snprintf(b[2], 32, "%lld", (long long)tb->rows[i].max_rank);
			} else {
				snprintf(b[1], 32, "%.1f%%", 100 * tb->rows[i].share);
				b[2][0] = 0;
			}
			char *shown = tf_name_short(tb->rows[i].name, TF_NAME_WIDTH_DEFAULT);
			const char *c[] = { b[0], b[1], tb->imbalance ? b[2] : shown ? shown : "", shown ? shown : "" };
			rc = shown ? tf_table_add(&t, c) : TF_ENOMEM;
			free(shown);
		}
		if (rc == 0) {
			fprintf(f, md ? "\n### %s\n\n" : "\n%s:\n", tb->title);
			tf_table_print(&t, f, md);
		}
		tf_table_free(&t);
	}
	return rc;
}

static int waits_table(FILE *f, const tf_ov_report *r, bool md)
{
	const tf_ov_result *res = r->res;
	if (!res->nwaits)
		return 0;
	tf_table t;
	tf_table_init(&t, 3, "rll", 2);
	const char *hdr[] = { "wait", "kind", "call path" };
	int rc = tf_table_add(&t, hdr);
	for (size_t i = 0; i < res->nwaits && i < r->max_rows && rc == 0; i++) {
		char b[32], *p = tf_ov_path_text(r->agg, res->waits[i].node);
		char *shown = p ? tf_name_short(p, TF_NAME_WIDTH_DEFAULT) : NULL;
		const char *c[] = { ns(b, res->waits[i].ns), tf_ov_wait_names[res->waits[i].kind], shown ? shown : "" };
		rc = shown ? tf_table_add(&t, c) : TF_ENOMEM;
		free(shown);
		free(p);
	}
	if (rc == 0) {
		fprintf(f, md ? "\n### Wait states by call path\n\n" : "\nwait states by call path:\n");
		tf_table_print(&t, f, md);
	}
	tf_table_free(&t);
	return rc;
}

/* ---- JSON ---- */

static void json_step(FILE *f, const tf_ov_step *s, bool telemetry)
{
	fprintf(f, "{\"step\":%lld,\"time_ns\":%lld,\"cpu_ns\":%lld,\"gpu_compute_ns\":%lld,\"gpu_comm_ns\":%lld,"
		"\"gpu_memcpy_ns\":%lld,\"gpu_memset_ns\":%lld,\"gpu_idle_ns\":%lld,\"comm_exposed_ns\":%lld,"
		"\"comm_wait_ns\":%lld,\"late_ns\":%lld,\"mpi_ns\":%lld,\"bound\":\"%s\"",
		(long long)s->step, (long long)s->time_ns, (long long)s->cpu_ns, (long long)s->gpu_compute_ns,
		(long long)s->gpu_comm_ns, (long long)s->gpu_memcpy_ns, (long long)s->gpu_memset_ns,
		(long long)s->gpu_idle_ns, (long long)s->comm_exposed_ns, (long long)s->comm_wait_ns,
		(long long)s->late_ns, (long long)s->mpi_ns, tf_ov_bound_names[s->bound]);
	if (telemetry) { /* the telemetry means, null when none (docs/telemetry.md) */
		double v[2] = { s->gpu_util, s->gpu_power };
		for (int k = 0; k < 2; k++) {
			fputs(k ? ",\"gpu_power_w\":" : ",\"gpu_utilization\":", f);
			if (v[k] >= 0)
				fprintf(f, "%.17g", v[k]);
			else
				fputs("null", f);
		}
	}
	fputc('}', f);
}

static int time_desc(const void *x, const void *y)
{
	const tf_ov_step *a = *(const tf_ov_step *const *)x, *b = *(const tf_ov_step *const *)y;
	if (a->time_ns != b->time_ns)
		return a->time_ns > b->time_ns ? -1 : 1;
	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	return (a->step > b->step) - (a->step < b->step);
}

static int step_asc(const void *x, const void *y)
{
	const tf_ov_step *a = *(const tf_ov_step *const *)x, *b = *(const tf_ov_step *const *)y;
	return (a->step > b->step) - (a->step < b->step);
}

/* One rank's steps: all, or past 64 rank-steps the slowest max_rows. */
static int json_rank(FILE *f, const tf_ov_report *r, const tf_ov_rank *k)
{
	const tf_ov_step **s = malloc((k->nsteps + 1) * sizeof(*s));
	if (!s)
		return TF_ENOMEM;
	size_t n = k->nsteps;
	for (size_t i = 0; i < n; i++)
		s[i] = &r->res->steps[k->first + i];
	if (r->res->nsteps > 64 && n > r->max_rows) {
		qsort(s, n, sizeof(*s), time_desc);
		n = r->max_rows;
		qsort(s, n, sizeof(*s), step_asc);
	}
	fprintf(f, "{\"rank\":%lld,\"threads\":%u,\"devices\":%u,\"mpi_ns\":%lld,\"steps\":[", (long long)k->rank,
		k->threads, k->devices, (long long)k->mpi_ns);
	for (size_t i = 0; i < n; i++) {
		fputs(i ? ",\n   " : "\n   ", f);
		json_step(f, s[i], r->res->telemetry);
	}
	fprintf(f, "],\"cut\":%zu}", k->nsteps - n);
	free(s);
	return 0;
}

static void json_run(FILE *f, const tf_ov_report *r)
{
	const tf_ov_result *res = r->res;
	char sf[160];
	steps_from(r, sf, sizeof sf);
	fputs("{\"schema\":\"tracefold-overview/1\",\n \"run\":{\"inputs\":[", f);
	for (int i = 0; i < r->ninputs; i++) {
		if (i)
			fputc(',', f);
		tf_json_str(f, r->inputs[i]);
	}
	fprintf(f, "],\"ranks_from\":\"%s\",\"nranks\":%zu,\"devices\":%u,\"threads\":%u,\"steps_from\":",
		ranks_from[r->ranks_from], res->nranks, res->devices, res->threads);
	tf_json_str(f, sf);
	fprintf(f, ",\"rank_steps\":%zu,\"start_ns\":%lld,\"end_ns\":%lld,\"wall_ns\":%lld,\"late_min_ns\":%lld,"
		"\"collectives\":{\"matched\":%llu,\"unmatched_calls\":%llu,\"no_step\":%llu},\"repairs\":{",
		res->nsteps, (long long)res->start_ns, (long long)res->end_ns,
		(long long)(res->any_time ? tf_sat_sub(res->end_ns, res->start_ns) : 0), (long long)res->late_min_ns,
		(unsigned long long)res->coll_matched, (unsigned long long)res->coll_unmatched,
		(unsigned long long)res->coll_no_step);
	const tf_diag *d = tf_ctx_diag(r->ctx);
	int n = 0;
	for (int k = 0; k < TF_DIAG_COUNT; k++)
		if (d->n[k] && tf_diag_severity((tf_diag_id)k) >= TF_SEV_REPAIR)
			fprintf(f, "%s\"%s\":%llu", n++ ? "," : "", tf_diag_name((tf_diag_id)k),
				(unsigned long long)d->n[k]);
	fputs("}},\n", f);
}

static int json(FILE *f, const tf_ov_report *r)
{
	const tf_ov_result *res = r->res;
	json_run(f, r);
	fputs(" \"ranks\":[", f);
	for (size_t i = 0; i < res->nranks; i++) {
		fputs(i ? ",\n  " : "\n  ", f);
		TF_TRY(json_rank(f, r, &res->ranks[i]));
	}
	fputs("],\n \"stragglers\":[", f);
	for (size_t i = 0; i < res->nstragglers; i++) {
		const tf_ov_straggler *s = &res->stragglers[i];
		fprintf(f, "%s{\"rank\":%lld,\"step\":%lld,\"late_ns\":%lld,\"where\":", i ? ",\n  " : "\n  ",
			(long long)s->rank, (long long)s->step, (long long)s->late_ns);
		if (r->where && r->where[i])
			tf_json_str(f, r->where[i]);
		else
			fputs("null", f);
		fputc('}', f);
	}
	fputs("]", f);
	if (res->mpi) {
		fprintf(f, ",\n \"mpi\":{\"late_sender_ns\":%lld,\"late_receiver_ns\":%lld,\"coll_wait_ns\":%lld,"
			"\"messages\":{\"matched\":%llu,\"unmatched\":%llu},\"ranks\":[",
			(long long)res->wait_ns[0], (long long)res->wait_ns[1], (long long)res->wait_ns[2],
			(unsigned long long)res->msg_matched, (unsigned long long)res->msg_unmatched);
		for (size_t i = 0; i < res->nranks; i++) {
			const tf_ov_rank *k = &res->ranks[i];
			fprintf(f, "%s{\"rank\":%lld,\"mpi_ns\":%lld,\"late_sender_ns\":%lld,\"late_receiver_ns\":%lld,"
				"\"coll_wait_ns\":%lld}", i ? ",\n  " : "\n  ", (long long)k->rank, (long long)k->mpi_ns,
				(long long)k->wait_ns[0], (long long)k->wait_ns[1], (long long)k->wait_ns[2]);
		}
		fputs("],\n  \"where\":[", f);
		for (size_t i = 0; i < res->nwaits && i < r->max_rows; i++) {
			char *p = tf_ov_path_text(r->agg, res->waits[i].node);
			fprintf(f, "%s{\"kind\":\"%s\",\"path\":", i ? ",\n   " : "\n   ", tf_ov_wait_names[res->waits[i].kind]);
			tf_json_str(f, p ? p : "");
			fprintf(f, ",\"ns\":%lld}", (long long)res->waits[i].ns);
			free(p);
		}
		fputs("]}", f);
	}
	fputs(",\n \"top\":[", f);
	for (int k = 0; k < r->ntables; k++) {
		const tf_ov_table *tb = &r->tables[k];
		fprintf(f, "%s{\"title\":", k ? ",\n  " : "\n  ");
		tf_json_str(f, tb->title);
		fprintf(f, ",\"rows\":[");
		for (size_t i = 0; i < tb->n; i++) {
			fputs(i ? "," : "", f);
			fputs("{\"name\":", f);
			tf_json_str(f, tb->rows[i].name);
			fprintf(f, ",\"ns\":%lld,\"%s\":%.4f", (long long)tb->rows[i].value,
				tb->imbalance ? "max_over_mean" : "share", tb->rows[i].share);
			if (tb->imbalance)
				fprintf(f, ",\"max_rank\":%lld", (long long)tb->rows[i].max_rank);
			fputc('}', f);
		}
		fputs("]}", f);
	}
	fputs("]}\n", f);
	return 0;
}

int tf_ov_print(FILE *f, const tf_ov_report *r, int fmt)
{
	if (fmt == 2)
		return json(f, r);
	bool md = fmt == 1;
	verdict(f, r, md);
	TF_TRY(steps_table(f, r, md));
	TF_TRY(waits_table(f, r, md));
	return top_tables(f, r, md);
}
