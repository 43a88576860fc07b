/* test_dist.c - a distributed run (dist.h) over an in-process transport:
 * P threads, each a process, with barrier collectives and one mailbox per
 * (sender, receiver) pair.  Process 0's profile is the single run's, byte
 * for byte, for P = 1..5 (the tree with odd sizes, processes with nothing
 * to read); a broken input on one process fails every process (its own
 * error naming the file, TF_ECANCEL elsewhere) and nobody waits forever.
 * mpirun does the same with MPI in tests/e2e/mpi.sh; this one runs under
 * ASan without MPI. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tracefold/dist.h"
#include "tracefold/pprof.h"

#define MAXP 8

typedef struct msg {
	void *buf;
	size_t len;
	bool full;
} msg;

typedef struct world {
	int size;
	pthread_barrier_t bar;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	void *bcast_buf;
	int64_t maxv[MAXP];
	msg box[MAXP][MAXP]; /* [from][to] */
	int failed;
} world;

typedef struct proc {
	tf_comm c;
	world *w;
	const char *const *inputs;
	int n;
	int rc;
	tf_error err;
	unsigned char *pprof;
	size_t pprof_len;
} proc;

static int t_bcast(tf_comm *c, void *buf, size_t len, int root)
{
	world *w = ((proc *)c)->w;
	if (c->rank == root)
		w->bcast_buf = buf;
	pthread_barrier_wait(&w->bar);
	if (c->rank != root)
		memcpy(buf, w->bcast_buf, len);
	pthread_barrier_wait(&w->bar);
	return 0;
}

static int t_max(tf_comm *c, int64_t *v, int n)
{
	world *w = ((proc *)c)->w;
	assert_int_equal(n, 1);
	w->maxv[c->rank] = v[0];
	pthread_barrier_wait(&w->bar);
	for (int r = 0; r < w->size; r++)
		v[0] = w->maxv[r] > v[0] ? w->maxv[r] : v[0];
	pthread_barrier_wait(&w->bar);
	return 0;
}

static int t_send(tf_comm *c, const void *buf, size_t len, int dest)
{
	world *w = ((proc *)c)->w;
	pthread_mutex_lock(&w->mu);
	msg *m = &w->box[c->rank][dest];
	assert_false(m->full);
	m->buf = malloc(len ? len : 1);
	if (len)
		memcpy(m->buf, buf, len);
	m->len = len;
	m->full = true;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
	return 0;
}

static int t_recv(tf_comm *c, void **buf, size_t *len, int src)
{
	world *w = ((proc *)c)->w;
	pthread_mutex_lock(&w->mu);
	msg *m = &w->box[src][c->rank];
	while (!m->full)
		pthread_cond_wait(&w->cv, &w->mu);
	*buf = m->buf;
	*len = m->len;
	m->full = false;
	pthread_mutex_unlock(&w->mu);
	return 0;
}

static void t_fail(tf_comm *c) { __atomic_store_n(&((proc *)c)->w->failed, 1, __ATOMIC_SEQ_CST); }
static bool t_failed(tf_comm *c) { return __atomic_load_n(&((proc *)c)->w->failed, __ATOMIC_SEQ_CST); }

static void t_abort(tf_comm *c) { abort(); }

static void *run(void *arg)
{
	proc *p = arg;
	tf_ctx *ctx = tf_ctx_new();
	tf_agg *agg = tf_agg_new(tf_ctx_strtab(ctx));
	tf_agg_comment(agg, "tracefold test");
	tf_pipeline_opts o = { .comments = true };
	tf_error_clear(&p->err);
	p->rc = tf_dist_run(&p->c, ctx, agg, p->inputs, p->n, &o, NULL, &p->err);
	if (p->rc == 0) {
		tf_error e;
		assert_int_equal(tf_pprof_encode(agg, &p->pprof, &p->pprof_len, &e), 0);
	}
	tf_agg_free(agg);
	tf_ctx_free(ctx);
	return NULL;
}

/* Runs inputs on size processes; procs[] gets each one's result. */
static void dist(const char *const *inputs, int n, int size, proc *procs)
{
	world w = { .size = size };
	pthread_barrier_init(&w.bar, NULL, (unsigned)size);
	pthread_mutex_init(&w.mu, NULL);
	pthread_cond_init(&w.cv, NULL);
	pthread_t th[MAXP];
	for (int r = 0; r < size; r++) {
		procs[r] = (proc){ .c = { r, size, t_bcast, t_max, t_send, t_recv, t_fail, t_failed, t_abort, NULL, 0 },
				   .w = &w, .inputs = inputs, .n = n };
		pthread_create(&th[r], NULL, run, &procs[r]);
	}
	for (int r = 0; r < size; r++)
		pthread_join(th[r], NULL);
	for (int a = 0; a < size; a++)
		for (int b = 0; b < size; b++)
			assert_false(w.box[a][b].full); /* every message was received */
	pthread_barrier_destroy(&w.bar);
	pthread_mutex_destroy(&w.mu);
	pthread_cond_destroy(&w.cv);
}

static void single(const char *const *inputs, int n, unsigned char **out, size_t *len)
{
	tf_ctx *ctx = tf_ctx_new();
	tf_agg *agg = tf_agg_new(tf_ctx_strtab(ctx));
	tf_agg_comment(agg, "tracefold test");
	tf_pipeline_opts o = { .comments = true };
	tf_error e;
	assert_int_equal(tf_pipeline_run(ctx, agg, inputs, n, &o, &e), 0);
	assert_int_equal(tf_pprof_encode(agg, out, len, &e), 0);
	tf_agg_free(agg);
	tf_ctx_free(ctx);
}

static void same_as_single(const char *const *inputs, int n)
{
	unsigned char *one;
	size_t len;
	single(inputs, n, &one, &len);
	for (int size = 1; size <= 5; size++) {
		proc procs[MAXP];
		dist(inputs, n, size, procs);
		assert_int_equal(procs[0].rc, 0);
		for (int r = 1; r < size; r++)
			assert_int_equal(procs[r].rc, 1);
		if (procs[0].pprof_len != len || memcmp(procs[0].pprof, one, len))
			print_error("%d processes, %s: the profile differs\n", size, inputs[0]);
		assert_int_equal(procs[0].pprof_len, len);
		assert_memory_equal(procs[0].pprof, one, len);
		free(procs[0].pprof);
	}
	free(one);
}

static void test_same_profile(void **state)
{
	const char *tau[] = { "tests/data/tau/threads", "tests/data/tau/mpi_small" };
	const char *otf2[] = { "tests/data/otf2/scorep-mi300-hip", "tests/data/otf2/scorep-ping-pong-mpi" };
	const char *chrome[] = { "tests/data/chrome/pytorch-legacy-small/trace.json",
				 "tests/data/chrome/hta-simple-add-gpu/benchmark_result_493459_1694039959_trace.json.gz",
				 "tests/data/chrome/lighthouse-cpu-profiler-m86/cpu-profiler-m86.trace.json" };
	same_as_single(tau, 2);
	same_as_single(otf2, 2);
	same_as_single(chrome, 3);
}

static void test_one_broken_input(void **state)
{
	const char *path = "build/test_dist_broken.json";
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs("{\"traceEvents\": [{\"ph\": \"X\", \"name\": \"a\", \"ts\": 1, \"dur\": 2, \"pid\": 1, \"tid\": 1} {]}", f);
	fclose(f);
	const char *in[] = { "tests/data/tau/threads", "tests/data/chrome/pytorch-legacy-small/trace.json", path,
			     "tests/data/tau/mpi_small" };
	for (int size = 1; size <= 4; size++) {
		proc procs[MAXP];
		dist(in, 4, size, procs);
		int own = 0;
		for (int r = 0; r < size; r++) {
			assert_true(procs[r].rc < 0); /* every process fails */
			if (procs[r].rc != TF_ECANCEL) {
				own++;
				assert_string_equal(procs[r].err.path, path);
				assert_true(procs[r].err.offset > 0);
			}
			free(procs[r].pprof);
		}
		assert_int_equal(own, 1); /* the one that read it says why */
	}
	/* a usage error found by the plan (standard input) reaches every process */
	const char *bad[] = { "tests/data/tau/threads", "-" };
	proc procs[MAXP];
	dist(bad, 2, 3, procs);
	for (int r = 0; r < 3; r++) /* the same code everywhere; process 0 says why */
		assert_int_equal(procs[r].rc, TF_EUSAGE);
	assert_true(procs[0].err.code == TF_EUSAGE && !procs[1].err.code && !procs[2].err.code);
	remove(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_profile),
		cmocka_unit_test(test_one_broken_input),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
