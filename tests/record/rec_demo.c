/* rec_demo.c - a deterministic program that uses every call of
 * libtracefold-record (include/tracefold/record.h) and prints, as JSON, what
 * it recorded: the slices and instants by name on each track, counter values,
 * flows, annotations by type, and tfr_get_stats (tests/e2e/record.sh compares
 * it with tests/tools/record_check.py's summary of the trace).
 *
 *   rec_demo demo  TRACE OUT.json [STEPS]  every call, 3 worker threads
 *                                    of STEPS steps (4)
 *   rec_demo drop  TRACE OUT.json N  N events from 2 threads, buffer_bytes
 *                                    16384, drop_when_full
 *   rec_demo block TRACE OUT.json N  the same, waiting when full
 *   rec_demo shared TRACE OUT.json [RANK]  a small recording appended to
 *                                    TRACE (TFR_SHARED: processes share
 *                                    it), named rank RANK by tfr_rank
 *   rec_demo enoent PATH             tfr_open of PATH (its folder missing):
 *                                    exits 0 when NULL and errno ENOENT
 *   rec_demo closefail DIR           records into DIR/t.pftrace, removes DIR
 *                                    before tfr_close: exits 0 when close is
 *                                    negative and DIR is gone
 *   rec_demo crash TRACE             10 slices in one, tfr_flush, then
 *                                    abort(): TRACE.tmp-PID is left
 *   rec_demo renamefail DIR          DIR/t.pftrace a folder: exits 0 when
 *                                    close is negative and DIR holds only
 *                                    that folder (no .tmp file) */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>
#include "tracefold/record.h"

#define WORKERS 3
static int STEPS = 4; /* demo: steps per worker (argv[4]) */

static tfr *R;
static tfr_track dev[WORKERS], load[WORKERS];
static uint64_t flows[WORKERS];

static void annotate(int w, int s)
{
	tfr_arg_int(R, "step", -s);
	tfr_arg_uint(R, "worker", (uint64_t)w);
	tfr_arg_double(R, "lr", 0.5 * s);
	tfr_arg_bool(R, "last", s == STEPS - 1);
	tfr_arg_string(R, "phase", "backward");
	tfr_arg_dict(R, "shape");
	tfr_arg_int(R, "rows", 32);
	tfr_arg_array(R, "dims");
	tfr_arg_int(R, NULL, 3);
	tfr_arg_string(R, NULL, "x");
	tfr_arg_dict(R, NULL);
	tfr_arg_bool(R, "deep", 1);
	tfr_arg_close(R);
	tfr_arg_close(R);
	tfr_arg_close(R);
} /* per call: 3 int, 1 uint, 1 double, 2 bool, 2 string, 2 dict, 1 array */

static void *worker(void *arg)
{
	int w = (int)(intptr_t)arg;
	char name[32];
	snprintf(name, sizeof(name), "worker %d", w);
	tfr_thread_name(R, name);
	tfr_flow_step(R, 0, flows[w]);
	for (int s = 0; s < STEPS; s++) {
		TFR_SCOPE(R, "step");
		tfr_begin(R, 0, "forward");
		for (int k = 0; k <= w; k++) {
			tfr_begin(R, 0, "matmul");
			tfr_end(R, 0);
		}
		tfr_end(R, 0);
		annotate(w, s);
		tfr_begin(R, 0, "backward");
		tfr_begin(R, dev[w], "kernel");
		tfr_end(R, dev[w]);
		tfr_end(R, 0);
		tfr_instant(R, 0, "tick");
		tfr_counter(R, load[w], 10.0 * s + w);
	}
	return NULL;
}

static int demo(const char *path, FILE *o)
{
	R = tfr_open(path, NULL);
	if (!R)
		return perror("tfr_open"), 1;
	if (!getenv("RANK")) /* else the library's default, "rank N" */
		tfr_process_name(R, "rec demo");
	tfr_thread_name(R, "main");
	tfr_track group = tfr_track_new(R, 0, "devices");
	tfr_track queue = tfr_counter_track_new(R, 0, "queue depth", "count");
	tfr_track mem = tfr_counter_track_new(R, 0, "memory", "bytes");
	tfr_track temp = tfr_counter_track_new(R, 0, "temperature", "celsius");
	for (int w = 0; w < WORKERS; w++) {
		char name[32];
		snprintf(name, sizeof(name), "dev %d", w);
		dev[w] = tfr_track_new(R, group, name);
		snprintf(name, sizeof(name), "load %d", w);
		load[w] = tfr_counter_track_new(R, 0, name, NULL);
	}
	{
		TFR_SCOPE(R, "setup");
		for (int w = 0; w < WORKERS; w++)
			flows[w] = tfr_flow_begin(R, 0, "launch");
		tfr_counter(R, queue, 3);
		tfr_counter(R, mem, 1 << 20);
		tfr_counter(R, temp, 41.5);
	}
	pthread_t th[WORKERS];
	for (int w = 0; w < WORKERS; w++)
		pthread_create(&th[w], NULL, worker, (void *)(intptr_t)w);
	for (int w = 0; w < WORKERS; w++)
		pthread_join(th[w], NULL);
	tfr_begin(R, dev[0], "sync");
	for (int w = 0; w < WORKERS; w++)
		tfr_flow_end(R, dev[0], flows[w]);
	tfr_end(R, dev[0]);
	tfr_counter(R, queue, 0);
	tfr_instant(R, 0, "done");
	tfr_stats st;
	tfr_get_stats(R, &st);
	if (tfr_flush(R) != 0)
		return fprintf(stderr, "tfr_flush failed\n"), 1;
	int rc = tfr_close(R);
	if (rc)
		return fprintf(stderr, "tfr_close: %s\n", strerror(-rc)), 1;

	fprintf(o, "{\"tracks\": {\n \"main\": {\"slices\": {\"setup\": 1}, \"instants\": {\"done\": 1}},\n");
	for (int w = 0; w < WORKERS; w++) {
		fprintf(o, " \"worker %d\": {\"slices\": {\"step\": %d, \"forward\": %d, \"matmul\": %d, \"backward\": %d},"
			   " \"instants\": {\"tick\": %d}},\n",
			w, STEPS, STEPS, STEPS * (w + 1), STEPS, STEPS);
		fprintf(o, " \"devices/dev %d\": {\"slices\": {\"kernel\": %d%s}, \"instants\": {}}%s\n", w, STEPS,
			w == 0 ? ", \"sync\": 1" : "", w + 1 < WORKERS ? "," : "");
	}
	fprintf(o, "},\n\"counters\": {\"queue depth\": [3, 0], \"memory\": [%d], \"temperature\": [41.5]", 1 << 20);
	for (int w = 0; w < WORKERS; w++) {
		fprintf(o, ", \"load %d\": [", w);
		for (int s = 0; s < STEPS; s++)
			fprintf(o, "%s%g", s ? ", " : "", 10.0 * s + w);
		fprintf(o, "]");
	}
	int n = WORKERS * STEPS;
	fprintf(o, "},\n\"flows\": {\"begun\": %d, \"steps\": %d, \"ended\": %d},\n", WORKERS, WORKERS, WORKERS);
	fprintf(o, "\"args\": {\"int\": %d, \"uint\": %d, \"double\": %d, \"bool\": %d, \"string\": %d, \"dict\": %d, \"array\": %d},\n",
		3 * n, n, n, 2 * n, 2 * n, 2 * n, n);
	fprintf(o, "\"events\": %llu, \"dropped\": %llu, \"threads\": %u}\n", (unsigned long long)st.events,
		(unsigned long long)st.dropped, st.threads);
	return 0;
}

/* drop/block: 2 threads, each n/2 events: begin (with 512 bytes of
 * annotation: the slowed writer writes about 3500 of them a second, far
 * fewer than any thread issues, so that drops are certain), instant, end
 * in turn (n a multiple of 6) */
static long each;
static char pad[513];
static void *spammer(void *arg)
{
	(void)arg;
	for (long i = 0; i < each / 3; i++) {
		tfr_arg_string(R, "pad", pad); /* a few events fill a buffer */
		tfr_begin(R, 0, "work");
		tfr_instant(R, 0, "mark");
		tfr_end(R, 0);
	}
	return NULL;
}

static int flood(const char *path, FILE *o, long n, int drop)
{
	tfr_opts opts = { 16384, drop };
	R = tfr_open(path, &opts);
	if (!R)
		return perror("tfr_open"), 1;
	each = n / 2;
	memset(pad, 'p', sizeof(pad) - 1);
	pthread_t th[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&th[i], NULL, spammer, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	tfr_stats st;
	tfr_get_stats(R, &st);
	int rc = tfr_close(R);
	if (rc)
		return fprintf(stderr, "tfr_close: %s\n", strerror(-rc)), 1;
	fprintf(o, "{\"issued\": %ld, \"events\": %llu, \"dropped\": %llu, \"threads\": %u}\n", 2 * each,
		(unsigned long long)st.events, (unsigned long long)st.dropped, st.threads);
	return 0;
}

static int shared(const char *path, FILE *o, int rank)
{
	R = tfr_open_ex(path, NULL, TFR_SHARED);
	if (!R)
		return perror("tfr_open_ex"), 1;
	if (rank >= 0)
		tfr_rank(R, rank);
	for (int i = 0; i < 5; i++) {
		tfr_begin(R, 0, "work");
		tfr_begin(R, 0, "inner");
		tfr_end(R, 0);
		tfr_end(R, 0);
	}
	int rc = tfr_close(R);
	if (rc)
		return fprintf(stderr, "tfr_close: %s\n", strerror(-rc)), 1;
	fprintf(o, "{\"work\": 5, \"inner\": 5}\n");
	return 0;
}

/* the final name is a folder: the rename fails (EISDIR), the .tmp goes */
static int renamefail(const char *dir)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/t.pftrace", dir);
	if (mkdir(path, 0777) < 0)
		return perror(path), 1;
	R = tfr_open(path, NULL);
	if (!R)
		return perror("tfr_open"), 1;
	tfr_instant(R, 0, "x");
	int rc = tfr_close(R);
	if (rc >= 0)
		return fprintf(stderr, "tfr_close returned %d\n", rc), 1;
	DIR *d = opendir(dir);
	if (!d)
		return 1;
	int n = 0;
	for (struct dirent *e; (e = readdir(d));)
		if (e->d_name[0] != '.')
			n++, printf("%s\n", e->d_name);
	closedir(d);
	return n == 1 ? 0 : (fprintf(stderr, "%d entries left in %s\n", n, dir), 1);
}

static int closefail(const char *dir)
{
	char path[4096], cmd[4200];
	snprintf(path, sizeof(path), "%s/t.pftrace", dir);
	R = tfr_open(path, NULL);
	if (!R)
		return perror("tfr_open"), 1;
	tfr_begin(R, 0, "x");
	tfr_end(R, 0);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		return 1;
	int rc = tfr_close(R);
	if (rc >= 0)
		return fprintf(stderr, "tfr_close returned %d\n", rc), 1;
	if (access(dir, F_OK) == 0)
		return fprintf(stderr, "%s exists again\n", dir), 1;
	return 0;
}

/* flowlate: a flow begun on the main thread, stepped on a worker that
 * lives on, ended on the main thread, whose buffer is written (tfr_flush)
 * before the worker's: the step must still reach the file before the end
 * (the library hands a flow's begin and steps over at once). */
static pthread_mutex_t fl_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t fl_cv = PTHREAD_COND_INITIALIZER;
static int fl_state;
static uint64_t fl_id;

static void *flowlate_worker(void *unused)
{
	(void)unused;
	tfr_thread_name(R, "stepper");
	pthread_mutex_lock(&fl_mu);
	tfr_flow_step(R, 0, fl_id);
	fl_state = 1;
	pthread_cond_broadcast(&fl_cv);
	while (fl_state != 2)
		pthread_cond_wait(&fl_cv, &fl_mu);
	pthread_mutex_unlock(&fl_mu);
	tfr_begin(R, 0, "worker");
	tfr_end(R, 0);
	return NULL;
}

static int flowlate(const char *path)
{
	R = tfr_open(path, NULL);
	if (!R)
		return perror("tfr_open"), 1;
	pthread_t th;
	tfr_begin(R, 0, "main");
	fl_id = tfr_flow_begin(R, 0, "handoff");
	pthread_create(&th, NULL, flowlate_worker, NULL);
	pthread_mutex_lock(&fl_mu);
	while (fl_state != 1)
		pthread_cond_wait(&fl_cv, &fl_mu);
	tfr_flow_end(R, 0, fl_id);
	tfr_end(R, 0);
	tfr_flush(R); /* the main thread's buffer written now, the worker's later */
	fl_state = 2;
	pthread_cond_broadcast(&fl_cv);
	pthread_mutex_unlock(&fl_mu);
	pthread_join(th, NULL);
	return tfr_close(R) ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc < 3)
		return fprintf(stderr, "usage: rec_demo MODE ARGS\n"), 2;
	const char *m = argv[1];
	if (!strcmp(m, "enoent")) {
		errno = 0;
		tfr *r = tfr_open(argv[2], NULL);
		return r || errno != ENOENT ? (fprintf(stderr, "tfr_open: %p errno %d\n", (void *)r, errno), 1) : 0;
	}
	if (!strcmp(m, "closefail"))
		return closefail(argv[2]);
	if (!strcmp(m, "crash")) {
		R = tfr_open(argv[2], NULL);
		if (!R)
			return perror("tfr_open"), 1;
		tfr_begin(R, 0, "outer");
		for (int i = 0; i < 10; i++) {
			tfr_begin(R, 0, "inner");
			tfr_end(R, 0);
		}
		tfr_flush(R);
		tfr_begin(R, 0, "lost"); /* in no buffer handed over */
		abort();
	}
	if (!strcmp(m, "renamefail"))
		return renamefail(argv[2]);
	if (!strcmp(m, "flowlate"))
		return flowlate(argv[2]);
	if (argc < 4)
		return 2;
	FILE *o = fopen(argv[3], "w");
	if (!o)
		return perror(argv[3]), 1;
	int rc = 2;
	if (!strcmp(m, "demo")) {
		if (argc > 4)
			STEPS = atoi(argv[4]);
		rc = demo(argv[2], o);
	}
	else if (!strcmp(m, "shared"))
		rc = shared(argv[2], o, argc > 4 ? atoi(argv[4]) : -1);
	else if ((!strcmp(m, "drop") || !strcmp(m, "block")) && argc > 4)
		rc = flood(argv[2], o, atol(argv[4]), !strcmp(m, "drop"));
	fclose(o);
	return rc;
}
