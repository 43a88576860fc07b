/* otf2-read.c - read-only driver: runs tracefold's OTF2 reader into a sink
 * that only counts, and prints the counts.  Used by bench/bench-otf2.sh to
 * time the reader alone and by hand for cross-checks against otf2-print.
 *   usage: otf2-read ARCHIVE [-t]    (-t: also list the tracks) */
#include <stdio.h>
#include <string.h>
#include "tracefold/reader.h"

typedef struct counter {
	tf_sink sink;
	uint64_t n[TF_EV_KIND_COUNT];
	int64_t last_ts;
} counter;

static int count_event(tf_sink *s, const tf_event *ev)
{
	counter *c = tf_container_of(s, counter, sink);
	c->n[ev->kind]++;
	c->last_ts = ev->ts_ns;
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: otf2-read ARCHIVE [-t]\n");
		return 2;
	}
	tf_ctx *ctx = tf_ctx_new();
	counter c = { .sink = { .event = count_event } };
	tf_error err;
	tf_error_clear(&err);
	int rc = tf_read_input(argv[1], "otf2", 0, ctx, &c.sink, &err);
	if (rc < 0) {
		char buf[1200];
		tf_error_format(&err, buf, sizeof(buf));
		fprintf(stderr, "otf2-read: %s\n", buf);
		tf_ctx_free(ctx);
		return 3;
	}
	for (int k = 0; k < TF_EV_KIND_COUNT; k++)
		if (c.n[k])
			printf("%s %llu\n", tf_ev_kind_name(k), (unsigned long long)c.n[k]);
	const tf_diag *d = tf_ctx_diag(ctx);
	for (int i = 0; i < TF_DIAG_COUNT; i++)
		if (d->n[i])
			printf("diag %s %llu\n", tf_diag_name(i), (unsigned long long)d->n[i]);
	if (argc > 2 && strcmp(argv[2], "-t") == 0) {
		tf_strtab *st = tf_ctx_strtab(ctx);
		for (uint32_t i = 0; i < tf_ctx_track_count(ctx); i++) {
			const tf_track *t = tf_ctx_track_get(ctx, i);
			printf("track %u process=%s pname=\"%s\" thread=%s tname=\"%s\" rank=%lld kind=%s\n", i,
			       tf_strtab_get(st, t->process_key), tf_strtab_get(st, t->process_name),
			       tf_strtab_get(st, t->thread_key), tf_strtab_get(st, t->thread_name),
			       (long long)t->rank, t->kind == TF_TRACK_GPU ? "gpu" : "cpu");
		}
	}
	tf_ctx_free(ctx);
	return 0;
}
