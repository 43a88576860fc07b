/* chrome-read.c - benchmark and debug driver for the Chrome JSON reader:
 * reads each FILE through the reader into a counting sink and prints the
 * diagnostic counters (and with -t the tracks, with -e every event).
 *
 *   cc -O2 -Iinclude -Isrc/core bench/chrome-read.c build/rel/libtracefold.a -lz ... */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "tracefold/reader.h"
#include "tracefold/io.h"

typedef struct counting {
	tf_sink sink;
	uint64_t n;
	int64_t sum_ts;
	int dump;
	tf_ctx *ctx;
} counting;

static int on_event(tf_sink *s, const tf_event *ev)
{
	counting *c = tf_container_of(s, counting, sink);
	c->n++;
	c->sum_ts += ev->ts_ns;
	if (c->dump) {
		tf_strtab *st = tf_ctx_strtab(c->ctx);
		printf("%llu %c %s track=%d ts=%lld dur=%lld name=%s cat=%s value=%g id=%llu\n",
		       (unsigned long long)ev->index, ev->phase ? ev->phase : '-',
		       tf_ev_kind_name((tf_ev_kind)ev->kind), ev->track == TF_TRACK_NONE ? -1 : (int)ev->track,
		       (long long)ev->ts_ns, (long long)ev->dur_ns, tf_strtab_get(st, ev->name),
		       tf_strtab_get(st, ev->cat), ev->value, (unsigned long long)ev->id);
	}
	return 0;
}

int main(int argc, char **argv)
{
	int tracks = 0, dump = 0, i = 1;
	for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
		if (strcmp(argv[i], "-t") == 0)
			tracks = 1;
		else if (strcmp(argv[i], "-e") == 0)
			dump = 1;
		else {
			fprintf(stderr, "usage: chrome-read [-t] [-e] FILE...\n");
			return 2;
		}
	}
	if (i >= argc) {
		fprintf(stderr, "usage: chrome-read [-t] [-e] FILE...\n");
		return 2;
	}
	tf_ctx *ctx = tf_ctx_new();
	counting c = { .sink = { .event = on_event }, .dump = dump, .ctx = ctx };
	const tf_format *f = tf_format_by_name("chrome");
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int k = i; k < argc; k++) {
		tf_error err;
		tf_error_clear(&err);
		int rc = f->read(argv[k], (uint32_t)(k - i), ctx, &c.sink, &err);
		if (rc < 0 && rc != TF_ESTOP) {
			char buf[1400];
			tf_error_format(&err, buf, sizeof(buf));
			fprintf(stderr, "chrome-read: %s\n", buf);
			tf_ctx_free(ctx);
			return 3;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	char buf[4096];
	tf_diag_format(tf_ctx_diag(ctx), TF_SEV_INFO, "\n", 0, buf, sizeof(buf));
	printf("%s\n", buf);
	printf("sink_events=%llu\ntracks=%u\nseconds=%.3f\n", (unsigned long long)c.n,
	       tf_ctx_track_count(ctx), s);
	if (tracks) {
		tf_strtab *st = tf_ctx_strtab(ctx);
		for (uint32_t t = 0; t < tf_ctx_track_count(ctx); t++) {
			const tf_track *tr = tf_ctx_track_get(ctx, t);
			printf("track %u input=%u pid=%s tid=%s process=%s thread=%s rank=%lld kind=%s sort=%lld needs_sort=%d\n",
			       t, tr->input, tf_strtab_get(st, tr->process_key), tf_strtab_get(st, tr->thread_key),
			       tf_strtab_get(st, tr->process_name), tf_strtab_get(st, tr->thread_name),
			       (long long)tr->rank, tr->kind == TF_TRACK_GPU ? "gpu" : "cpu",
			       (long long)tr->sort_index, tr->needs_sort);
		}
	}
	tf_ctx_free(ctx);
	return 0;
}
