/* info.c - `tracefold info INPUT...`: what is in a trace, for every format.
 *
 * A tf_sink that keeps running statistics (no event is stored): tracks, time
 * span, events by kind, distinct regions, counters (samples, min, max, sum),
 * messages, metadata; plus the run's diagnostics counters and notes.  The
 * events are also fed to the stack builder (tee), so the repairs it would make
 * for a profile are counted too.  Memory grows with the number of distinct
 * names, call paths and tracks, not with the events. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cmd.h"
#include "report.h"
#include "tracefold/reader.h"
#include "tracefold/stack.h"
#include "tracefold/agg_sink.h"
#include "hmap.h"
#include "sat.h"

#define INFO_MAX_METADATA 100000

typedef struct info_counter {
	tf_str name;
	uint64_t n;
	double min, max, sum;
} info_counter;

typedef struct info_track {
	uint64_t events;
	int64_t first_ns, last_ns;
	bool any;
	/* a GPU stream's activities (docs/gpu.md): their number, their time,
	 * the time they kept the stream busy (union), the time under a launch */
	uint64_t gpu_n;
	int64_t gpu_ns, gpu_busy_ns, gpu_att_ns, gpu_last_end;
} info_track;

typedef struct info_meta {
	tf_str key, value;
	uint32_t track;
	uint32_t next; /* next entry with the same hash, UINT32_MAX: none */
} info_meta;

typedef struct info_input {
	const char *path;
	const char *format;
	uint64_t events;
} info_input;

typedef struct info_sink {
	tf_sink sink;
	tf_span_sink spans;    /* with filters: the kept regions (names, time span) */
	tf_span_sink gpu;      /* the GPU activities (after the filters) */
	const tf_cpath *cp;    /* the call paths of their spans */
	tf_str unattributed;   /* "[unattributed gpu]" */
	tf_ctx *ctx;
	uint64_t kind_n[TF_EV_KIND_COUNT];
	int64_t min_ns, max_ns;
	bool any_ts;
	/* by tf_str id: bit 0 region seen, counter index + 1 in the rest */
	uint32_t *by_str;
	size_t nby_str;
	uint64_t nregions;
	info_counter *ctrs;
	uint32_t nctrs, capctrs;
	info_track *trk;
	size_t ntrk;
	uint64_t msg_n[2], msg_bytes[2]; /* [0] send, [1] recv */
	info_meta *meta;       /* distinct (track, key, value), first-seen order */
	uint32_t nmeta, capmeta;
	tf_hmap meta_idx;      /* hash of (track, key, value) -> first entry with it */
	uint64_t meta_events, meta_dropped;
	int oom;
	/* --ranks, --window: only the events kept count (a region overlapping
	 * the window is kept); NULL: every event */
	const tf_filter_opts *fo;
	int64_t win_lo, win_hi;
} info_sink;

static uint32_t *str_slot(info_sink *s, tf_str id)
{
	if (tf_grow_n((void **)&s->by_str, &s->nby_str, (size_t)id + 1, sizeof(*s->by_str), true) < 0)
		return NULL;
	return &s->by_str[id];
}

static info_track *track_stat(info_sink *s, uint32_t t)
{
	if (tf_grow_n((void **)&s->trk, &s->ntrk, (size_t)t + 1, sizeof(*s->trk), true) < 0)
		return NULL;
	return &s->trk[t];
}

/* Keeps distinct (track, key, value) metadata entries, at most INFO_MAX_METADATA. */
static int meta_add(info_sink *s, uint32_t track, tf_str key, tf_str value)
{
	uint64_t h = tf_mix64(((uint64_t)key << 32 | value) ^ tf_mix64(track));
	uint32_t first = tf_hmap_get(&s->meta_idx, h), last = UINT32_MAX;
	for (uint32_t i = first; i != UINT32_MAX; i = s->meta[i].next) {
		const info_meta *m = &s->meta[i];
		if (m->track == track && m->key == key && m->value == value)
			return 0;
		last = i;
	}
	if (s->nmeta >= INFO_MAX_METADATA) {
		s->meta_dropped++;
		return 0;
	}
	if (tf_grow((void **)&s->meta, &s->capmeta, s->nmeta + 1, sizeof(*s->meta)) < 0 ||
	    (first == UINT32_MAX && tf_hmap_put(&s->meta_idx, h, s->nmeta) < 0))
		return TF_ENOMEM;
	if (last != UINT32_MAX)
		s->meta[last].next = s->nmeta;
	s->meta[s->nmeta++] = (info_meta){ key, value, track, UINT32_MAX };
	return 0;
}

static void see_time(info_sink *s, info_track *t, int64_t a, int64_t b)
{
	if (!s->any_ts || a < s->min_ns)
		s->min_ns = a;
	if (!s->any_ts || b > s->max_ns)
		s->max_ns = b;
	s->any_ts = true;
	if (!t)
		return;
	if (!t->any || a < t->first_ns)
		t->first_ns = a;
	if (!t->any || b > t->last_ns)
		t->last_ns = b;
	t->any = true;
}

static int info_event(tf_sink *sk, const tf_event *ev)
{
	info_sink *s = tf_container_of(sk, info_sink, sink);
	if (s->fo && ev->track != TF_TRACK_NONE) {
		const tf_track *tr = tf_ctx_track_get(s->ctx, ev->track);
		if (!tf_filter_rank_kept(s->fo, tr ? tr->rank : -1))
			return 0;
	}
	bool region = ev->kind == TF_EV_BEGIN || ev->kind == TF_EV_END || ev->kind == TF_EV_COMPLETE;
	if (s->fo && ev->kind != TF_EV_METADATA) {
		int64_t e = ev->kind == TF_EV_COMPLETE && ev->dur_ns > 0 ? tf_sat_add(ev->ts_ns, ev->dur_ns) : ev->ts_ns;
		if (!((ev->ts_ns >= s->win_lo && ev->ts_ns < s->win_hi) || (ev->ts_ns < s->win_hi && e > s->win_lo)))
			return 0;
	}
	if (s->fo && region) { /* counted; names and times come from the kept spans (info_close) */
		s->kind_n[ev->kind]++;
		if (ev->track != TF_TRACK_NONE) {
			info_track *t = track_stat(s, ev->track);
			if (!t)
				return TF_ENOMEM;
			t->events++;
		}
		return 0;
	}
	if (ev->kind < TF_EV_KIND_COUNT)
		s->kind_n[ev->kind]++;
	info_track *t = NULL; /* none for events of no track (TF_TRACK_NONE) */
	if (ev->track != TF_TRACK_NONE) {
		if (!(t = track_stat(s, ev->track)))
			return TF_ENOMEM;
		t->events++;
	}
	switch (ev->kind) {
	case TF_EV_BEGIN:
	case TF_EV_COMPLETE: {
		uint32_t *slot = str_slot(s, ev->name);
		if (!slot)
			return TF_ENOMEM;
		if (!(*slot & 1)) {
			*slot |= 1;
			s->nregions++;
		}
		break;
	}
	case TF_EV_COUNTER: {
		uint32_t *slot = str_slot(s, ev->name);
		if (!slot)
			return TF_ENOMEM;
		if (!(*slot >> 1)) {
			if (tf_grow((void **)&s->ctrs, &s->capctrs, s->nctrs + 1, sizeof(*s->ctrs)) < 0)
				return TF_ENOMEM;
			s->ctrs[s->nctrs] = (info_counter){ ev->name, 0, ev->value, ev->value, 0 };
			*slot |= (uint32_t)(++s->nctrs) << 1;
		}
		info_counter *c = &s->ctrs[(*slot >> 1) - 1];
		c->n++;
		c->sum += ev->value;
		if (ev->value < c->min)
			c->min = ev->value;
		if (ev->value > c->max)
			c->max = ev->value;
		break;
	}
	case TF_EV_SEND:
	case TF_EV_RECV: {
		int k = ev->kind == TF_EV_RECV;
		s->msg_n[k]++;
		if (ev->msg.bytes > 0)
			s->msg_bytes[k] += (uint64_t)ev->msg.bytes;
		break;
	}
	case TF_EV_METADATA:
		s->meta_events++;
		return meta_add(s, ev->track, ev->name, ev->cat); /* no place in the time span */
	default:
		break;
	}
	int64_t end = ev->ts_ns;
	if (ev->kind == TF_EV_COMPLETE && ev->dur_ns > 0)
		end = tf_sat_add(end, ev->dur_ns);
	see_time(s, t, ev->ts_ns, end);
	return 0;
}

/* With filters: a kept region (clipped to the window). */
static int info_close(tf_span_sink *k, const tf_span *sp)
{
	info_sink *s = tf_container_of(k, info_sink, spans);
	uint32_t *slot = str_slot(s, sp->name);
	info_track *t = track_stat(s, sp->track);
	if (!slot || !t)
		return TF_ENOMEM;
	if (!(*slot & 1)) {
		*slot |= 1;
		s->nregions++;
	}
	see_time(s, t, sp->start_ns, sp->end_ns);
	return 0;
}

/* A GPU activity: the time per stream, busy time (the activities come in
 * start order), and whether it went under its launch. */
static int info_gpu(tf_span_sink *k, const tf_span *sp)
{
	info_sink *s = tf_container_of(k, info_sink, gpu);
	if (sp->kind != TF_SPAN_KIND_GPU)
		return 0;
	info_track *t = track_stat(s, sp->track);
	if (!t)
		return TF_ENOMEM;
	int64_t dur = tf_sat_sub(sp->end_ns, sp->start_ns);
	int64_t from = t->gpu_n && t->gpu_last_end > sp->start_ns ? t->gpu_last_end : sp->start_ns;
	if (sp->end_ns > from)
		t->gpu_busy_ns = tf_sat_add(t->gpu_busy_ns, tf_sat_sub(sp->end_ns, from));
	if (!t->gpu_n || sp->end_ns > t->gpu_last_end)
		t->gpu_last_end = sp->end_ns;
	t->gpu_n++;
	t->gpu_ns = tf_sat_add(t->gpu_ns, dur);
	const tf_cpath_node *n = tf_cpath_get(s->cp, sp->node);
	while (n && n->depth > 1)
		n = tf_cpath_get(s->cp, n->parent);
	if (!n || n->frame != s->unattributed)
		t->gpu_att_ns = tf_sat_add(t->gpu_att_ns, dur);
	return 0;
}

static void info_free(info_sink *s)
{
	free(s->by_str);
	free(s->ctrs);
	free(s->trk);
	free(s->meta);
	tf_hmap_free(&s->meta_idx);
}

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

static void print_text(info_sink *s, tf_ctx *ctx, const info_input *in, int nin, bool list_meta)
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

static void print_json(info_sink *s, tf_ctx *ctx, const info_input *in, int nin)
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
	if (s->any_ts)
		printf("  \"time_span\": {\"first_ns\": %lld, \"last_ns\": %lld, \"duration_ns\": %lld},\n",
		       (long long)s->min_ns, (long long)s->max_ns, (long long)tf_sat_sub(s->max_ns, s->min_ns));
	else
		printf("  \"time_span\": null,\n");
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

static void help(void)
{
	printf("usage: tracefold info [OPTIONS] INPUT...\n"
	       "\n"
	       "Describes traces without writing a profile: inputs and their formats,\n"
	       "processes/ranks, threads (with names), time span, events by kind, distinct\n"
	       "regions, counters (samples, min, max, sum), messages, metadata, and every\n"
	       "repair or warning (docs/diagnostics.md), with notes saying where.  With\n"
	       "--ranks or --window the numbers are of the events kept (region events\n"
	       "by their own time; a region that overlaps the window counts for the\n"
	       "regions and the time span) and the diagnostics say what was left out.\n"
	       "\n"
	       "options:\n"
	       "      --format FMT    text (default) or json\n"
	       "      --json          the same as --format json\n"
	       "      --metadata      list metadata entries (text output; JSON always has them)\n"
	       "  -h, --help          this text\n"
	       "\n"
	       "trace inputs:\n"
	       TF_INPUT_OPTS_HELP
	       "\n"
	       "exit status: 0 ok, 2 usage error, 3 unreadable input\n");
}

/* The stack builder wired as the pipeline wires it (tf_pipeline_run): the
 * filter, the aggregate's consumer (*asink_out, the caller's to free), then
 * ours.  NULL when out of memory. */
static tf_stacks *info_stacks(tf_ctx *ctx, tf_agg *agg, tf_filter *filter, info_sink *s, tf_agg_sink **asink_out)
{
	tf_stacks *stacks = tf_stacks_new(ctx, tf_agg_cpath(agg), filter);
	tf_agg_sink *k = *asink_out = stacks ? tf_agg_sink_new(ctx, agg, NULL) : NULL;
	s->cp = tf_agg_cpath(agg);
	s->unattributed = tf_strtab_intern_cstr(tf_ctx_strtab(ctx), "[unattributed gpu]");
	if (!k || tf_stacks_add_consumer(stacks, tf_agg_sink_spans(k)) < 0 ||
	    (filter && tf_stacks_add_consumer(stacks, &s->spans) < 0) || tf_stacks_add_consumer(stacks, &s->gpu) < 0) {
		tf_stacks_free(stacks);
		return NULL;
	}
	return stacks;
}

int tf_cmd_info(int argc, char **argv)
{
	bool json = false, list_meta = false;
	tf_input_opts iopts = { 0 };
	char **paths = calloc((size_t)argc, sizeof(*paths));
	int npaths = 0;
	if (!paths) {
		tf_msg("out of memory");
		return TF_EXIT_INPUT;
	}
	enum { O_FORMAT, O_JSON, O_METADATA };
	static const tf_opt opts[] = {
		{ O_FORMAT, NULL, "--format", true }, { O_JSON, NULL, "--json", false },
		{ O_METADATA, NULL, "--metadata", false }, { 0, NULL, NULL, false },
	};
	tf_optstate os = { 0 };
	const char *v;
	for (int id; (id = tf_opt_next("info", argc, argv, opts, &iopts, &os, &v)) != TF_OPT_DONE;) {
		int fmt;
		switch (id) {
		case TF_OPT_USAGE:
			free(paths);
			tf_input_opts_free(&iopts);
			return TF_EXIT_USAGE;
		case TF_OPT_HELP:
			free(paths);
			tf_input_opts_free(&iopts);
			help();
			return TF_EXIT_OK;
		case TF_OPT_ARG:
			paths[npaths++] = (char *)v;
			break;
		case O_FORMAT:
			if (tf_out_format("info", v, TF_OUT_TEXT | TF_OUT_JSON, &fmt) < 0) {
				free(paths);
				tf_input_opts_free(&iopts);
				return TF_EXIT_USAGE;
			}
			json = fmt == TF_OUT_JSON;
			break;
		case O_JSON:
			json = true;
			break;
		case O_METADATA:
			list_meta = true;
			break;
		}
	}
	if (!npaths || tf_mpi) {
		free(paths);
		tf_input_opts_free(&iopts);
		return tf_usage_error("info", npaths ? "--mpi is not supported here: info reads its inputs once, in "
					"one process (docs/distributed.md)" : "no input given");
	}
	tf_ctx *ctx = tf_ctx_new();
	info_input *in = calloc((size_t)npaths, sizeof(*in));
	const tf_format **fmts = calloc((size_t)npaths + 1, sizeof(*fmts));
	info_sink s = { .sink = { .event = info_event }, .spans = { .close = info_close }, .gpu = { .close = info_gpu },
			.ctx = ctx };
	tf_agg *agg = ctx ? tf_agg_new(tf_ctx_strtab(ctx)) : NULL;
	tf_stacks *stacks = NULL;
	tf_agg_sink *asink = NULL;
	tf_filter *filter = NULL;
	tf_window_opts steps_w; /* --steps: the filter options with its window */
	tf_tee tee;
	tf_tee_init(&tee);
	tf_tee_add(&tee, &s.sink);
	int rc = TF_EXIT_OK;
	if (!ctx || !in || !agg || !fmts) {
		tf_msg("out of memory");
		rc = TF_EXIT_INPUT;
		goto out;
	}
	tf_input_opts_apply(&iopts, ctx);
	/* each input's format, resolved once */
	tf_error ferr;
	tf_error_clear(&ferr);
	if (tf_inputs_resolve((const char *const *)paths, npaths, iopts.format, fmts, &ferr) < 0) {
		rc = tf_report(&ferr);
		goto out;
	}
	for (int i = 0; i < npaths; i++)
		if (fmts[i]->kind != TF_INPUT_EVENTS) {
			tf_msg("'%s' is a %s, not a trace: use 'tracefold top', 'diff', 'merge' or 'fold'", paths[i],
			       fmts[i]->noun);
			rc = TF_EXIT_INPUT;
			goto out;
		}
	if (tf_filter_active(&iopts.filter)) {
		/* the pipeline's filter (tf_pipeline_run), in front of the stack builder's aggregate */
		const tf_filter_opts *fo = &iopts.filter;
		tf_error err;
		tf_error_clear(&err);
		bool rel = false;
		int64_t first = 0;
		if (tf_pipeline_window(ctx, (const char *const *)paths, npaths, fmts, &fo, &steps_w, &s.win_lo,
				       &s.win_hi, &rel, &first, &err) < 0) {
			rc = tf_report(&err);
			goto out;
		}
		filter = tf_filter_new(ctx, fo, s.win_lo, s.win_hi, rel, first);
		s.fo = fo;
	}
	stacks = !tf_filter_active(&iopts.filter) || filter ? info_stacks(ctx, agg, filter, &s, &asink) : NULL;
	if (!stacks) {
		tf_msg("out of memory");
		rc = TF_EXIT_INPUT;
		goto out;
	}
	tf_tee_add(&tee, tf_stacks_sink(stacks));
	for (int i = 0; i < npaths; i++) {
		tf_error err;
		tf_error_clear(&err);
		in[i].path = paths[i];
		const tf_format *f = fmts[i];
		in[i].format = f->name;
		tf_diag dbefore = *tf_ctx_diag(ctx);
		uint64_t before = dbefore.n[TF_DIAG_events_read];
		int r = f->read(paths[i], (uint32_t)i, ctx, &tee.sink, &err);
		if (r >= 0 || r == TF_ESTOP)
			r = tee.sink.end_input(&tee.sink, (uint32_t)i);
		if (r < 0 && r != TF_ESTOP) {
			if (!err.code)
				tf_error_set(&err, r, paths[i], -1, -1, "%s", tf_strerror(r));
			rc = tf_report(&err);
			goto out;
		}
		in[i].events = tf_ctx_diag(ctx)->n[TF_DIAG_events_read] - before;
		r = tf_input_check(ctx, paths[i], &dbefore, &err);
		tf_print_warnings(ctx);
		if (r < 0) {
			rc = tf_report(&err);
			goto out;
		}
	}
	int r = tf_stacks_finish(stacks);
	if (r < 0) {
		tf_msg("cannot build stacks: %s", tf_strerror(r));
		rc = TF_EXIT_INPUT;
		goto out;
	}
	if (filter) {
		tf_error err;
		tf_error_clear(&err);
		if (tf_filter_check(filter, &err) < 0) {
			rc = tf_report(&err);
			goto out;
		}
	}
	if (json)
		print_json(&s, ctx, in, npaths);
	else
		print_text(&s, ctx, in, npaths, list_meta);
	rc = tf_check_strict(&iopts, ctx);
out:
	tf_stacks_free(stacks);
	tf_agg_sink_free(asink);
	tf_filter_free(filter);
	tf_agg_free(agg);
	info_free(&s);
	free(in);
	free(fmts);
	free(paths);
	tf_input_opts_free(&iopts);
	tf_ctx_free(ctx);
	return rc;
}
