/* record_bench: the cost of recording a begin/end pair with
 * libtracefold-record, beside plain Chrome JSON fprintf (docs/performance.md,
 * "Recording overhead").
 *
 *   record_bench MODE[,MODE...] THREADS PAIRS [--nested] [--reps N]
 *                [--dir DIR] [--keep] [--json FILE] [--buffer-kb KB]
 *
 * MODE (or "all"):
 *   none         the loop alone (no clock read): the floor
 *   clock        two clock_gettime(CLOCK_MONOTONIC) a pair, nothing written
 *   tfr          tfr_begin/tfr_end on each thread's own track, constant names
 *   tfr-arg      the same with one tfr_arg_int on each begin
 *   tfr-drop     tfr with drop_when_full (nothing waits; drops counted)
 *   fprintf      Chrome JSON, one fprintf a begin or end, to one shared FILE*
 *                (stdio's lock: the naive baseline)
 *   fprintf-own  the same with one FILE* a thread
 * Every thread does PAIRS pairs (--nested: in stacks of 4 different names,
 * b b b b e e e e, instead of b e b e).  Each measurement is run --reps
 * times (5); the table gives the median and the min-max of
 *   ns/pair   the wall time of the threads' loops (from the release of the
 *             start barrier to the last thread's end) / PAIRS: the latency
 *             one thread sees, contention included
 *   Mpairs/s  THREADS * PAIRS / that wall time: the throughput
 *   close ms  tfr_close (the writer drains the rest, renames) or fclose
 *   bytes     the file(s) written
 * Files go to a fresh folder under DIR ($TMPDIR or /tmp), removed after
 * each run (--keep: the last run's files are kept, their names printed);
 * the folder's file system is printed (a tmpfs is not a disk).  --json
 * FILE writes the rows as JSON; --buffer-kb sets the tfr modes'
 * tfr_opts.buffer_bytes (default 0: the library's 8 MiB).  Exit 0, or 2 on a usage or I/O error. */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include "tracefold/record.h"

enum { M_NONE, M_CLOCK, M_TFR, M_TFR_ARG, M_TFR_DROP, M_FPRINTF, M_FPRINTF_OWN, M_N };
static const char *const mode_names[M_N] = { "none", "clock", "tfr", "tfr-arg", "tfr-drop", "fprintf",
					     "fprintf-own" };
static const char *const names[4] = { "step", "forward", "backward", "optimizer" };

typedef struct {
	int mode, threads, nested;
	long pairs;
	size_t buffer_bytes;
	const char *dir;
} config;

typedef struct run run;
typedef struct {
	run *rn;
	int idx;
	FILE *f; /* fprintf-own */
	uint64_t t0, t1;
} worker;
struct run {
	const config *cf;
	pthread_barrier_t bar;
	tfr *r;
	FILE *f; /* fprintf */
	pthread_mutex_t fmu;
	char path[4096];
	worker *w;
};

static volatile uint64_t sink;

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* One Chrome JSON event: ts in µs with 3 decimals (integer formatting:
 * kinder to the baseline than %.3f of a double). */
static inline void json_event(FILE *f, const char *name, char ph, int pid, int tid)
{
	uint64_t ns = now_ns();
	fprintf(f, "{\"name\":\"%s\",\"ph\":\"%c\",\"ts\":%" PRIu64 ".%03u,\"pid\":%d,\"tid\":%d},\n", name, ph,
		ns / 1000, (unsigned)(ns % 1000), pid, tid);
}

/* The loop of one mode: a begin and an end per pair; depth names at a
 * time (1: b e b e; 4: b b b b e e e e). */
#define LOOP(BEGIN, END)                                              \
	do {                                                          \
		for (long i = 0; i < pairs; i += depth) {             \
			int d = (int)(pairs - i < depth ? pairs - i : depth); \
			for (int k = 0; k < d; k++) {                 \
				const char *nm = names[k];            \
				(void)nm;                             \
				BEGIN;                                \
			}                                             \
			for (int k = d - 1; k >= 0; k--) {            \
				const char *nm = names[k];            \
				(void)nm;                             \
				END;                                  \
			}                                             \
		}                                                     \
	} while (0)

static void *work(void *arg)
{
	worker *w = arg;
	run *rn = w->rn;
	const config *cf = rn->cf;
	long pairs = cf->pairs;
	int depth = cf->nested ? 4 : 1, pid = (int)getpid(), tid = (int)gettid();
	tfr *r = rn->r;
	FILE *f = w->f ? w->f : rn->f;
	uint64_t acc = 0;
	if (r)
		tfr_thread_name(r, "bench");
	pthread_barrier_wait(&rn->bar);
	w->t0 = now_ns();
	switch (cf->mode) {
	case M_NONE:
		LOOP(__asm__ volatile("" : : "r"(nm) : "memory"), __asm__ volatile("" ::: "memory"));
		break;
	case M_CLOCK:
		LOOP(acc += now_ns(), acc += now_ns());
		break;
	case M_TFR:
	case M_TFR_DROP:
		LOOP(tfr_begin(r, 0, nm), tfr_end(r, 0));
		break;
	case M_TFR_ARG:
		LOOP((tfr_arg_int(r, "i", i), tfr_begin(r, 0, nm)), tfr_end(r, 0));
		break;
	case M_FPRINTF:
	case M_FPRINTF_OWN:
		LOOP(json_event(f, nm, 'B', pid, tid), json_event(f, nm, 'E', pid, tid));
		break;
	}
	w->t1 = now_ns();
	sink = acc;
	return NULL;
}

typedef struct {
	double ns_pair, mpairs_s, close_ms;
	uint64_t bytes, dropped, waits;
} result;

static uint64_t file_size(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 ? (uint64_t)st.st_size : 0;
}

static FILE *json_open(const char *path)
{
	FILE *f = fopen(path, "w");
	if (f)
		fputs("{\"traceEvents\":[\n", f);
	return f;
}

static int json_close(FILE *f)
{
	fputs("{}]}\n", f);
	return fclose(f);
}

/* Opens what mode writes to (in rn->path and beside it). */
static int outputs_open(run *rn)
{
	const config *cf = rn->cf;
	char p[4200];
	switch (cf->mode) {
	case M_TFR:
	case M_TFR_ARG:
	case M_TFR_DROP: {
		tfr_opts o = { cf->buffer_bytes, cf->mode == M_TFR_DROP };
		snprintf(rn->path, sizeof(rn->path), "%s/%s.pftrace", cf->dir, mode_names[cf->mode]);
		rn->r = tfr_open(rn->path, &o);
		return rn->r ? 0 : -1;
	}
	case M_FPRINTF:
		snprintf(rn->path, sizeof(rn->path), "%s/fprintf.json", cf->dir);
		rn->f = json_open(rn->path);
		return rn->f ? 0 : -1;
	case M_FPRINTF_OWN:
		snprintf(rn->path, sizeof(rn->path), "%s/fprintf-own", cf->dir);
		for (int i = 0; i < cf->threads; i++) {
			snprintf(p, sizeof(p), "%s.%d.json", rn->path, i);
			if (!(rn->w[i].f = json_open(p)))
				return -1;
		}
		return 0;
	}
	return 0;
}

/* Closes them (timed by the caller); the bytes written; -1 on error. */
static int64_t outputs_close(run *rn, result *res)
{
	const config *cf = rn->cf;
	char p[4200];
	int64_t bytes = 0;
	int bad = 0;
	if (rn->r) {
		tfr_stats s;
		tfr_get_stats(rn->r, &s);
		res->dropped = s.dropped;
		res->waits = s.waits;
		bad |= tfr_close(rn->r) != 0;
		return bad ? -1 : (int64_t)file_size(rn->path);
	}
	if (rn->f) {
		bad |= json_close(rn->f) != 0;
		bytes = (int64_t)file_size(rn->path);
	}
	for (int i = 0; cf->mode == M_FPRINTF_OWN && i < cf->threads; i++) {
		bad |= json_close(rn->w[i].f) != 0;
		snprintf(p, sizeof(p), "%s.%d.json", rn->path, i);
		bytes += (int64_t)file_size(p);
	}
	return bad ? -1 : bytes;
}

static void outputs_remove(run *rn)
{
	char p[4200];
	if (!rn->path[0])
		return;
	if (rn->cf->mode != M_FPRINTF_OWN) {
		unlink(rn->path);
		return;
	}
	for (int i = 0; i < rn->cf->threads; i++) {
		snprintf(p, sizeof(p), "%s.%d.json", rn->path, i);
		unlink(p);
	}
}

static int run_once(const config *cf, result *res, int keep)
{
	run rn = { .cf = cf };
	int n = cf->threads, rc = 0;
	memset(res, 0, sizeof(*res));
	rn.w = calloc((size_t)n, sizeof(worker));
	pthread_t *th = calloc((size_t)n, sizeof(pthread_t));
	if (!rn.w || !th || outputs_open(&rn) < 0) {
		fprintf(stderr, "record_bench: %s: %s\n", rn.path, strerror(errno));
		exit(2);
	}
	pthread_barrier_init(&rn.bar, NULL, (unsigned)n);
	for (int i = 0; i < n; i++) {
		rn.w[i] = (worker){ .rn = &rn, .idx = i, .f = rn.w[i].f };
		if (pthread_create(&th[i], NULL, work, &rn.w[i]) != 0) {
			fprintf(stderr, "record_bench: cannot start thread %d\n", i);
			exit(2);
		}
	}
	for (int i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	uint64_t t0 = rn.w[0].t0, t1 = rn.w[0].t1;
	for (int i = 1; i < n; i++) {
		t0 = rn.w[i].t0 < t0 ? rn.w[i].t0 : t0;
		t1 = rn.w[i].t1 > t1 ? rn.w[i].t1 : t1;
	}
	uint64_t c0 = now_ns();
	int64_t bytes = outputs_close(&rn, res);
	uint64_t c1 = now_ns();
	if (bytes < 0) {
		fprintf(stderr, "record_bench: writing %s failed\n", rn.path);
		rc = -1;
	}
	res->ns_pair = (double)(t1 - t0) / (double)cf->pairs;
	res->mpairs_s = (double)n * (double)cf->pairs / ((double)(t1 - t0) / 1e9) / 1e6;
	res->close_ms = (double)(c1 - c0) / 1e6;
	res->bytes = bytes < 0 ? 0 : (uint64_t)bytes;
	if (keep && rn.path[0])
		printf("# kept: %s%s\n", rn.path, cf->mode == M_FPRINTF_OWN ? ".N.json" : "");
	else
		outputs_remove(&rn);
	pthread_barrier_destroy(&rn.bar);
	free(th);
	free(rn.w);
	return rc;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

typedef struct {
	double med, min, max;
} stat3;

static stat3 stats_of(const result *rs, int n, size_t off)
{
	double v[64];
	for (int i = 0; i < n; i++)
		v[i] = *(const double *)((const char *)&rs[i] + off);
	qsort(v, (size_t)n, sizeof(double), cmp_double);
	return (stat3){ n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2, v[0], v[n - 1] };
}

static const char *fs_name(const char *dir)
{
	struct statfs s;
	if (statfs(dir, &s) != 0)
		return "?";
	switch ((unsigned long)s.f_type) {
	case 0x01021994: return "tmpfs";
	case 0xEF53: return "ext2/3/4";
	case 0x58465342: return "xfs";
	case 0x9123683E: return "btrfs";
	case 0x794c7630: return "overlayfs";
	}
	return "other";
}

static void usage(void)
{
	fputs("usage: record_bench MODE[,MODE...]|all THREADS PAIRS [--nested] [--reps N] [--dir DIR] [--keep] "
	      "[--json FILE] [--buffer-kb KB]\n"
	      "MODE: none clock tfr tfr-arg tfr-drop fprintf fprintf-own\n",
	      stderr);
	exit(2);
}

static int parse_modes(const char *s, int *modes)
{
	int n = 0;
	if (!strcmp(s, "all")) {
		for (int m = 0; m < M_N; m++)
			modes[n++] = m;
		return n;
	}
	char *copy = strdup(s), *save = NULL;
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		int m = 0;
		while (m < M_N && strcmp(t, mode_names[m]))
			m++;
		if (m == M_N || n == M_N) {
			fprintf(stderr, "record_bench: unknown mode '%s'\n", t);
			usage();
		}
		modes[n++] = m;
	}
	free(copy);
	return n;
}

static void print_row(FILE *js, int first, const config *cf, const result *rs, int reps)
{
	stat3 ns = stats_of(rs, reps, offsetof(result, ns_pair));
	stat3 tp = stats_of(rs, reps, offsetof(result, mpairs_s));
	stat3 cl = stats_of(rs, reps, offsetof(result, close_ms));
	uint64_t dropped = 0, waits = 0;
	for (int i = 0; i < reps; i++) {
		dropped += rs[i].dropped;
		waits += rs[i].waits;
	}
	printf("%-12s %3d %10ld %9.1f %8.1f-%-8.1f %9.2f %10.1f %12" PRIu64 " %8" PRIu64 "\n", mode_names[cf->mode],
	       cf->threads, cf->pairs, ns.med, ns.min, ns.max, tp.med, cl.med, rs[reps / 2].bytes, dropped / reps);
	fflush(stdout);
	if (!js)
		return;
	fprintf(js,
		"%s  {\"mode\":\"%s\",\"threads\":%d,\"pairs\":%ld,\"nested\":%s,\"reps\":%d,"
		"\"ns_per_pair\":{\"median\":%.2f,\"min\":%.2f,\"max\":%.2f},"
		"\"mpairs_per_s\":{\"median\":%.3f,\"min\":%.3f,\"max\":%.3f},"
		"\"close_ms\":{\"median\":%.3f,\"min\":%.3f,\"max\":%.3f},"
		"\"bytes\":%" PRIu64 ",\"dropped_mean\":%" PRIu64 ",\"waits_mean\":%" PRIu64 "}",
		first ? "" : ",\n", mode_names[cf->mode], cf->threads, cf->pairs, cf->nested ? "true" : "false", reps,
		ns.med, ns.min, ns.max, tp.med, tp.min, tp.max, cl.med, cl.min, cl.max, rs[reps / 2].bytes,
		dropped / reps, waits / reps);
}

int main(int argc, char **argv)
{
	config cf = { 0 };
	int modes[M_N], nmodes, reps = 5, keep = 0;
	const char *json = NULL, *base = getenv("TMPDIR");
	if (argc < 4)
		usage();
	nmodes = parse_modes(argv[1], modes);
	cf.threads = atoi(argv[2]);
	cf.pairs = atol(argv[3]);
	for (int i = 4; i < argc; i++) {
		if (!strcmp(argv[i], "--nested"))
			cf.nested = 1;
		else if (!strcmp(argv[i], "--keep"))
			keep = 1;
		else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
			reps = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--dir") && i + 1 < argc)
			base = argv[++i];
		else if (!strcmp(argv[i], "--json") && i + 1 < argc)
			json = argv[++i];
		else if (!strcmp(argv[i], "--buffer-kb") && i + 1 < argc)
			cf.buffer_bytes = (size_t)atol(argv[++i]) << 10;
		else
			usage();
	}
	if (cf.threads < 1 || cf.threads > 1024 || cf.pairs < 1 || reps < 1 || reps > 64)
		usage();
	char dir[4096];
	snprintf(dir, sizeof(dir), "%s/record_bench.XXXXXX", base && *base ? base : "/tmp");
	if (!mkdtemp(dir)) {
		fprintf(stderr, "record_bench: %s: %s\n", dir, strerror(errno));
		return 2;
	}
	cf.dir = dir;
	FILE *js = json ? fopen(json, "w") : NULL;
	if (json && !js) {
		fprintf(stderr, "record_bench: %s: %s\n", json, strerror(errno));
		return 2;
	}
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	printf("# record_bench: %ld CPUs online; files in %s (%s); %d reps, median (min-max)%s\n", ncpu, dir,
	       fs_name(dir), reps, cf.nested ? "; nested 4 deep" : "");
	printf("%-12s %3s %10s %9s %-17s %9s %10s %12s %8s\n", "mode", "thr", "pairs/thr", "ns/pair", "(min-max)",
	       "Mpairs/s", "close ms", "bytes", "dropped");
	if (js)
		fprintf(js, "{\"cpus\":%ld,\"fs\":\"%s\",\"rows\":[\n", ncpu, fs_name(dir));
	result rs[64];
	int rc = 0;
	for (int m = 0; m < nmodes; m++) {
		cf.mode = modes[m];
		for (int i = 0; i < reps; i++)
			rc |= run_once(&cf, &rs[i], keep && i == reps - 1);
		print_row(js, m == 0, &cf, rs, reps);
	}
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	printf("# peak RSS %ld KiB\n", ru.ru_maxrss);
	if (js) {
		fprintf(js, "\n],\"peak_rss_kib\":%ld}\n", ru.ru_maxrss);
		rc |= fclose(js) != 0;
	}
	if (!keep)
		rmdir(dir);
	return rc ? 2 : 0;
}
