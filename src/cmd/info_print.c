/* info_print.c - `tracefold info`'s text and JSON (docs/cli.md "tracefold
 * info"), from what info.c gathered (info_int.h). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmd.h"
#include "report.h"
#include "info_int.h"
#include "sat.h"

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* Number of distinct processes (input, process key); the distinct ranks, sorted. */
static size_t count_processes(tf_ctx *ctx, int64_t **ranks_out, size_t *nranks_out)
{
	uint32_t n = tf_ctx_track_count(ctx);
	int64_t *r = malloc((n ? n : 1) * sizeof(*r));
	size_t nr = 0;
	tf_hmap procs = { 0 }, ranks = { 0 };
	for (uint32_t i = 0; i < n && r; i++) {
		const tf_track *t = tf_ctx_track_get(ctx, i);
		uint64_t pk = (uint64_t)t->input << 32 | t->process_key;
		if (tf_hmap_get(&procs, pk) == UINT32_MAX && tf_hmap_put(&procs, pk, i) < 0)
			break;
		if (t->rank >= 0 && tf_hmap_get(&ranks, (uint64_t)t->rank) == UINT32_MAX) {
			if (tf_hmap_put(&ranks, (uint64_t)t->rank, i) < 0)
				break;
			r[nr++] = t->rank;
		}
	}
	size_t nproc = procs.n;
	tf_hmap_free(&procs);
	tf_hmap_free(&ranks);
	if (r)
		qsort(r, nr, sizeof(*r), cmp_i64);
	*ranks_out = r;
	*nranks_out = nr;
	return nproc;
}

/* A duration (never negative here: last - first, saturated) for people. */
static const char *fmt_dur(int64_t ns, char *buf, size_t len)
{
	tf_fmt_ns(ns > 0 ? (uint64_t)ns : 0, buf, len);
	return buf;
}

static const char *sev_name(tf_severity s)
{
	switch (s) {
	case TF_SEV_INFO: return "info";
	case TF_SEV_SKIP: return "skip";
	case TF_SEV_REPAIR: return "repair";
	default: return "warning";
	}
}

/* Text output never passes control characters (ANSI escapes) from the
 * input to the terminal: names go through tf_text_safe; a small ring of
 * results stays valid for the few uses in one printf. */
static const char *txt(const char *raw)
{
	static char *ring[4];
	static int k;
	k = (k + 1) & 3;
	free(ring[k]);
	ring[k] = tf_text_safe(raw);
	return ring[k] ? ring[k] : "?";
}
#define TXT(x) txt(x)

static void mem_text(const info_sink *s, tf_strtab *st);

/* The threads that only wait, when there are any (docs/stack-rules.md). */
static void print_waiting_text(const info_sink *s, tf_strtab *st)
{
	char b1[64], b2[64];
	if (s->nwt <= 0)
		return;
	printf("waiting threads: %d, %s of %s wall (%.1f%%), left out of top, diff and --gate "
	       "(--keep-waiting keeps them)\n",
	       s->nwt, fmt_dur(s->wait_ns, b1, sizeof(b1)), fmt_dur(s->wall_ns, b2, sizeof(b2)),
	       s->wall_ns > 0 ? 100.0 * (double)s->wait_ns / (double)s->wall_ns : 0.0);
	for (int i = 0; i < s->nwt; i++) {
		const tf_waiting_thread *w = &s->wt[i];
		printf(" ");
		for (int j = 0; j < w->nlabels; j++)
			if (w->labels[j].str)
				printf(" %s=%s", TXT(tf_strtab_get(st, w->labels[j].key)),
				       TXT(tf_strtab_get(st, w->labels[j].str)));
			else
				printf(" %s=%lld", TXT(tf_strtab_get(st, w->labels[j].key)), (long long)w->labels[j].num);
		printf(": %s\n", fmt_dur(w->value, b1, sizeof(b1)));
	}
}

void tf_info_print_text(info_sink *s, tf_ctx *ctx, const info_input *in, int nin, bool list_meta)
{
	tf_strtab *st = tf_ctx_strtab(ctx);
	const tf_diag *d = tf_ctx_diag(ctx);
	char b1[64];
	for (int i = 0; i < nin; i++)
		printf("input %d: %s (format %s, %" PRIu64 " events)\n", i, in[i].path, in[i].format,
		       in[i].events);
	int64_t *ranks = NULL;
	size_t nranks = 0, nproc = count_processes(ctx, &ranks, &nranks);
	uint32_t ntr = tf_ctx_track_count(ctx);
	printf("processes: %zu", nproc);
	if (nranks) {
		printf(" (ranks");
		for (size_t k = 0; k < nranks && k < 32; k++)
			printf(" %lld", (long long)ranks[k]);
		printf("%s)", nranks > 32 ? " ..." : "");
	}
	printf("\nthreads: %u\n", ntr);
	for (uint32_t i = 0; i < ntr; i++) {
		const tf_track *t = tf_ctx_track_get(ctx, i);
		const info_track *it = i < s->ntrk ? &s->trk[i] : NULL;
		printf("  track %u: input %u, process %s", i, t->input, TXT(tf_strtab_get(st, t->process_key)));
		if (t->process_name)
			printf(" \"%s\"", TXT(tf_strtab_get(st, t->process_name)));
		if (t->rank >= 0)
			printf(", rank %lld", (long long)t->rank);
		printf(", thread %s", TXT(tf_strtab_get(st, t->thread_key)));
		if (t->thread_name)
			printf(" \"%s\"", TXT(tf_strtab_get(st, t->thread_name)));
		if (t->kind == TF_TRACK_GPU)
			printf(" (gpu)");
		printf(": %" PRIu64 " events", it ? it->events : 0);
		if (it && it->any)
			printf(", %s", fmt_dur(tf_sat_sub(it->last_ns, it->first_ns), b1, sizeof(b1)));
		if (it && it->gpu_n)
			printf(", gpu busy %s", fmt_dur(it->gpu_busy_ns, b1, sizeof(b1)));
		printf("\n");
	}
	free(ranks);
	if (s->any_ts)
		printf("time span: %s (%lld .. %lld ns)\n", fmt_dur(tf_sat_sub(s->max_ns, s->min_ns), b1, sizeof(b1)),
		       (long long)s->min_ns, (long long)s->max_ns);
	else
		printf("time span: none\n");
	print_waiting_text(s, st);
	uint64_t gn = 0;
	int64_t gt = 0, ga = 0, gb = 0;
	for (size_t i = 0; i < s->ntrk; i++) {
		gn += s->trk[i].gpu_n;
		gt = tf_sat_add(gt, s->trk[i].gpu_ns);
		ga = tf_sat_add(ga, s->trk[i].gpu_att_ns);
		gb = tf_sat_add(gb, s->trk[i].gpu_busy_ns);
	}
	if (gn) { /* docs/gpu.md */
		char b2[32], b3[32];
		printf("gpu: %" PRIu64 " activities, %s (streams busy %s); under their launch: %s (%.1f%%)\n", gn,
		       fmt_dur(gt, b1, sizeof(b1)), fmt_dur(gb, b3, sizeof(b3)), fmt_dur(ga, b2, sizeof(b2)),
		       gt ? 100.0 * (double)ga / (double)gt : 100.0);
		printf("  "); /* the share again, with why the rest is unattributed */
		tf_gpu_coverage_text(stdout, d, gt, tf_sat_sub(gt, ga));
	}
	printf("events: %" PRIu64 " decoded\n", d->n[TF_DIAG_events_read]);
	for (int i = 0; i < TF_DIAG_COUNT; i++) {
		tf_severity sev = tf_diag_severity(i);
		if (i == TF_DIAG_events_read || !d->n[i] || (sev != TF_SEV_INFO && sev != TF_SEV_SKIP))
			continue;
		char cut[48] = "";
		if (d->ns[i]) { /* window_clipped: the time cut off */
			char t[32];
			tf_fmt_ns(d->ns[i], t, sizeof(t));
			snprintf(cut, sizeof(cut), " (%s)", t);
		}
		printf("  %12" PRIu64 "  %-20s %s%s%s\n", d->n[i], tf_diag_name(i),
		       sev == TF_SEV_SKIP ? "(skipped) " : "", tf_diag_text(i), cut);
	}
	printf("  by kind:");
	int any = 0;
	for (int k = 0; k < TF_EV_KIND_COUNT; k++)
		if (s->kind_n[k])
			printf("%s %s %" PRIu64, any++ ? "," : "", tf_ev_kind_name(k), s->kind_n[k]);
	printf("%s\n", any ? "" : " none");
	printf("regions: %" PRIu64 " distinct\n", s->nregions);
	printf("counters: %u\n", s->nctrs);
	if (s->nctrs)
		printf("  %12s %14s %14s %16s  name\n", "samples", "min", "max", "sum");
	for (size_t i = 0; i < s->nctrs; i++) {
		const info_counter *c = &s->ctrs[i];
		printf("  %12" PRIu64 " %14.6g %14.6g %16.10g  %s\n", c->n, c->min, c->max, c->sum,
		       TXT(tf_strtab_get(st, c->name)));
	}
	mem_text(s, st);
	printf("messages: %" PRIu64 " sent (%" PRIu64 " bytes), %" PRIu64 " received (%" PRIu64 " bytes)\n",
	       s->msg_n[0], s->msg_bytes[0], s->msg_n[1], s->msg_bytes[1]);
	printf("metadata: %u distinct entries%s from %" PRIu64 " events%s\n", s->nmeta,
	       s->meta_dropped ? " (more not kept)" : "", s->meta_events,
	       s->nmeta && !list_meta ? " (--metadata lists them)" : "");
	if (list_meta)
		for (size_t i = 0; i < s->nmeta; i++) {
			if (s->meta[i].track == TF_TRACK_NONE)
				printf("  global: %s", TXT(tf_strtab_get(st, s->meta[i].key)));
			else
				printf("  track %u: %s", s->meta[i].track, TXT(tf_strtab_get(st, s->meta[i].key)));
			if (s->meta[i].value)
				printf(" = %s", TXT(tf_strtab_get(st, s->meta[i].value)));
			printf("\n");
		}
	uint64_t np = tf_diag_problems(d);
	printf("repairs and warnings: %s\n", np ? "" : "none");
	for (int i = 0; i < TF_DIAG_COUNT; i++) {
		tf_severity sev = tf_diag_severity(i);
		if (!d->n[i] || (sev != TF_SEV_REPAIR && sev != TF_SEV_WARN))
			continue;
		char moved[48] = "";
		if (d->ns[i]) {
			char t[32];
			tf_fmt_ns(d->ns[i], t, sizeof(t));
			snprintf(moved, sizeof(moved), ", moved %s", t);
		}
		printf("  %12" PRIu64 "  %-20s (%s%s) %s\n", d->n[i], tf_diag_name(i), sev_name(sev), moved,
		       tf_diag_text(i));
	}
	size_t nn = tf_ctx_nnotes(ctx);
	if (nn) {
		printf("notes:\n");
		for (size_t i = 0; i < nn; i++) {
			const char *n = tf_ctx_note_get(ctx, i);
			if (!n) {
				printf("  ... and %zu more\n", nn - i);
				break;
			}
			printf("  %s\n", TXT(n));
		}
	}
}

/* One JSON string writer for every command (report.c): invalid UTF-8
 * becomes \ufffd, so the output always parses. */
static void json_str(const char *p)
{
	tf_json_str(stdout, p);
}

static void json_num(double v)
{
	if (isfinite(v))
		printf("%.17g", v);
	else
		printf("null");
}

/* A call path's frames, outermost first, joined by ';' (as folded stacks). */
static void print_path(const tf_cpath *cp, tf_strtab *st, uint32_t node, bool json)
{
	const tf_cpath_node *n = tf_cpath_get(cp, node);
	if (!n || node == TF_CPATH_ROOT)
		return;
	uint32_t parent = n->parent;
	tf_str frame = n->frame;
	print_path(cp, st, parent, json);
	if (json) {
		printf("%s", parent != TF_CPATH_ROOT ? ", " : "");
		json_str(tf_strtab_get(st, frame));
	} else {
		printf("%s%s", parent != TF_CPATH_ROOT ? ";" : "", txt(tf_strtab_get(st, frame)));
	}
}

/* Kineto's memory per device (docs/memory.md). */
static void mem_text(const info_sink *s, tf_strtab *st)
{
	if (!s->nmem)
		return;
	printf("memory: %zu device%s ([memory] events; docs/memory.md)\n", s->nmem, s->nmem == 1 ? "" : "s");
	for (size_t i = 0; i < s->nmem; i++) {
		const tf_mem_device *m = &s->mem[i];
		const char *dev = m->device ? tf_strtab_get(st, m->device) : "unknown";
		printf("  %s, process %s: %" PRIu64 " allocations (%" PRId64 " bytes), %" PRIu64 " frees (%" PRId64
		       " bytes; %" PRIu64 " of blocks not allocated in the trace)\n", txt(dev),
		       txt(tf_strtab_get(st, m->process)), m->allocs, m->alloc_bytes, m->frees, m->free_bytes,
		       m->frees_unknown);
		if (m->peak_ns == INT64_MIN) {
			printf("    no peak: no allocation with an address (PyTorch before 1.10 wrote none)\n");
			continue;
		}
		char at[32];
		printf("    peak: %" PRId64 " bytes live (allocated in the trace), at %s from the start (ts %.3f us)\n",
		       m->peak_bytes, fmt_dur(tf_sat_sub(m->peak_ns, s->min_ns), at, sizeof(at)),
		       (double)m->peak_ns / 1e3);
		printf("    most of it held by (%" PRId64 " bytes): ", m->peak_node_bytes);
		print_path(s->cp, st, m->peak_node, false);
		printf("\n");
	}
}

static void mem_json(const info_sink *s, tf_strtab *st)
{
	if (!s->nmem)
		return;
	printf("  \"memory\": [");
	for (size_t i = 0; i < s->nmem; i++) {
		const tf_mem_device *m = &s->mem[i];
		printf("%s\n    {\"input\": %u, \"process\": ", i ? "," : "", m->input);
		json_str(tf_strtab_get(st, m->process));
		printf(", \"rank\": %lld, \"device\": ", (long long)m->rank);
		json_str(m->device ? tf_strtab_get(st, m->device) : "unknown");
		printf(", \"allocations\": %" PRIu64 ", \"alloc_bytes\": %" PRId64 ", \"frees\": %" PRIu64
		       ", \"free_bytes\": %" PRId64 ", \"frees_unknown\": %" PRIu64 ", \"peak_bytes\": %" PRId64,
		       m->allocs, m->alloc_bytes, m->frees, m->free_bytes, m->frees_unknown, m->peak_bytes);
		if (m->peak_ns != INT64_MIN) {
			printf(", \"peak_ns\": %" PRId64 ", \"peak_call_path\": [", m->peak_ns);
			print_path(s->cp, st, m->peak_node, true);
			printf("], \"peak_call_path_bytes\": %" PRId64, m->peak_node_bytes);
		}
		printf("}");
	}
	printf("\n  ],\n");
}

/* "waiting": the threads that only wait, each with its labels and wall
 * time, their sum and the wall time of all (docs/stack-rules.md). */
static void print_waiting_json(const info_sink *s, tf_strtab *st)
{
	printf("  \"waiting\": {\"wall_ns\": %lld, \"total_wall_ns\": %lld, \"threads\": [",
	       (long long)(s->nwt > 0 ? s->wait_ns : 0), (long long)s->wall_ns);
	for (int i = 0; i < s->nwt; i++) {
		const tf_waiting_thread *w = &s->wt[i];
		printf("%s\n    {\"labels\": {", i ? "," : "");
		for (int j = 0; j < w->nlabels; j++) {
			printf("%s", j ? ", " : "");
			json_str(tf_strtab_get(st, w->labels[j].key));
			printf(": ");
			if (w->labels[j].str)
				json_str(tf_strtab_get(st, w->labels[j].str));
			else
				printf("%lld", (long long)w->labels[j].num);
		}
		printf("}, \"wall_ns\": %lld}", (long long)w->value);
	}
	printf("%s]},\n", s->nwt > 0 ? "\n  " : "");
}

void tf_info_print_json(info_sink *s, tf_ctx *ctx, const info_input *in, int nin)
{
	tf_strtab *st = tf_ctx_strtab(ctx);
	const tf_diag *d = tf_ctx_diag(ctx);
	printf("{\n  \"inputs\": [");
	for (int i = 0; i < nin; i++) {
		printf("%s\n    {\"path\": ", i ? "," : "");
		json_str(in[i].path);
		printf(", \"format\": ");
		json_str(in[i].format);
		printf(", \"events\": %" PRIu64 "}", in[i].events);
	}
	int64_t *ranks = NULL;
	size_t nranks = 0, nproc = count_processes(ctx, &ranks, &nranks);
	printf("\n  ],\n  \"processes\": %zu,\n  \"ranks\": [", nproc);
	for (size_t k = 0; k < nranks; k++)
		printf("%s%lld", k ? ", " : "", (long long)ranks[k]);
	free(ranks);
	uint32_t ntr = tf_ctx_track_count(ctx);
	printf("],\n  \"threads\": [");
	for (uint32_t i = 0; i < ntr; i++) {
		const tf_track *t = tf_ctx_track_get(ctx, i);
		const info_track *it = i < s->ntrk ? &s->trk[i] : NULL;
		printf("%s\n    {\"track\": %u, \"input\": %u, \"process\": ", i ? "," : "", i, t->input);
		json_str(tf_strtab_get(st, t->process_key));
		printf(", \"process_name\": ");
		json_str(tf_strtab_get(st, t->process_name));
		printf(", \"rank\": %lld, \"thread\": ", (long long)t->rank);
		json_str(tf_strtab_get(st, t->thread_key));
		printf(", \"thread_name\": ");
		json_str(tf_strtab_get(st, t->thread_name));
		printf(", \"gpu\": %s, \"events\": %" PRIu64, t->kind == TF_TRACK_GPU ? "true" : "false",
		       it ? it->events : 0);
		if (it && it->any)
			printf(", \"first_ns\": %lld, \"last_ns\": %lld", (long long)it->first_ns,
			       (long long)it->last_ns);
		if (it && it->gpu_n) /* docs/gpu.md */
			printf(", \"gpu_activities\": %" PRIu64 ", \"gpu_ns\": %lld, \"gpu_busy_ns\": %lld, "
			       "\"gpu_attributed_ns\": %lld",
			       it->gpu_n, (long long)it->gpu_ns, (long long)it->gpu_busy_ns, (long long)it->gpu_att_ns);
		printf("}");
	}
	printf("\n  ],\n");
	print_waiting_json(s, st);
	if (s->any_ts)
		printf("  \"time_span\": {\"first_ns\": %lld, \"last_ns\": %lld, \"duration_ns\": %lld},\n",
		       (long long)s->min_ns, (long long)s->max_ns, (long long)tf_sat_sub(s->max_ns, s->min_ns));
	else
		printf("  \"time_span\": null,\n");
	uint64_t gn = 0;
	int64_t gt = 0, ga = 0;
	for (size_t i = 0; i < s->ntrk; i++) {
		gn += s->trk[i].gpu_n;
		gt = tf_sat_add(gt, s->trk[i].gpu_ns);
		ga = tf_sat_add(ga, s->trk[i].gpu_att_ns);
	}
	if (gn) { /* docs/gpu.md "Coverage" */
		printf("  \"gpu_coverage\": ");
		tf_gpu_coverage_json(stdout, d, gt, tf_sat_sub(gt, ga), "  ");
		printf(",\n");
	}
	mem_json(s, st);
	printf("  \"diagnostics\": {");
	int any = 0;
	for (int i = 0; i < TF_DIAG_COUNT; i++) {
		printf("%s\"%s\": %" PRIu64, any++ ? ", " : "", tf_diag_name(i), d->n[i]);
		if (tf_diag_timed(i))
			printf(", \"%s_ns\": %" PRIu64, tf_diag_name(i), d->ns[i]);
	}
	printf("},\n  \"events_by_kind\": {");
	for (int k = 0; k < TF_EV_KIND_COUNT; k++)
		printf("%s\"%s\": %" PRIu64, k ? ", " : "", tf_ev_kind_name(k), s->kind_n[k]);
	printf("},\n  \"regions\": %" PRIu64 ",\n  \"counters\": [", s->nregions);
	for (size_t i = 0; i < s->nctrs; i++) {
		const info_counter *c = &s->ctrs[i];
		printf("%s\n    {\"name\": ", i ? "," : "");
		json_str(tf_strtab_get(st, c->name));
		printf(", \"samples\": %" PRIu64 ", \"min\": ", c->n);
		json_num(c->min);
		printf(", \"max\": ");
		json_num(c->max);
		printf(", \"sum\": ");
		json_num(c->sum);
		printf("}");
	}
	printf("%s],\n", s->nctrs ? "\n  " : "");
	printf("  \"messages\": {\"sent\": %" PRIu64 ", \"sent_bytes\": %" PRIu64 ", \"received\": %" PRIu64
	       ", \"received_bytes\": %" PRIu64 "},\n",
	       s->msg_n[0], s->msg_bytes[0], s->msg_n[1], s->msg_bytes[1]);
	printf("  \"metadata\": [");
	for (size_t i = 0; i < s->nmeta; i++) {
		printf("%s\n    {\"track\": ", i ? "," : "");
		if (s->meta[i].track == TF_TRACK_NONE)
			printf("null");
		else
			printf("%u", s->meta[i].track);
		printf(", \"key\": ");
		json_str(tf_strtab_get(st, s->meta[i].key));
		printf(", \"value\": ");
		json_str(tf_strtab_get(st, s->meta[i].value));
		printf("}");
	}
	printf("%s],\n  \"problems\": %" PRIu64 ",\n  \"notes\": [", s->nmeta ? "\n  " : "",
	       tf_diag_problems(d));
	size_t nn = tf_ctx_nnotes(ctx);
	for (size_t i = 0; i < nn; i++) {
		const char *n = tf_ctx_note_get(ctx, i);
		if (!n)
			break;
		printf("%s", i ? ", " : "");
		json_str(n);
	}
	printf("]\n}\n");
}
