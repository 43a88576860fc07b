/* procs.c - `-j N` over processes: a distributed run (dist.c) whose
 * processes are this one and N-1 children forked from it, for runs with
 * OTF2 archives.  Threads (threads.c) read an archive one at a time,
 * because two libotf2 readers on two threads were seen to misread a
 * damaged location (docs/format-otf2.md); processes share nothing of
 * libotf2, so an archive's locations are shared out among them as among
 * the processes of --mpi.
 *
 *   world          one shared anonymous mapping made before the fork: a
 *                  process-shared mutex and condition, a barrier of our own
 *                  (it fails, instead of waiting forever, once a process
 *                  died), the mailboxes, each process's result, and an
 *                  arena the messages are copied into (bump-allocated)
 *   collectives    as in threads.c, through the arena
 *   a child        runs tf_dist_run, leaves its result and error in the
 *                  world and ends with _exit (nothing of the parent's
 *                  stdio is flushed twice); it dies with its parent
 *                  (PR_SET_PDEATHSIG)
 *   the parent     is process 0; a watcher thread reaps the children and
 *                  marks the world dead when one ends without a result
 *                  (a crash), so no process waits forever
 *
 * The library never prints: a child's error comes back in the world and
 * the caller prints it, as for threads. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include "tracefold/dist.h"
#include "procs.h"

#define MAXP 64
/* the arena's address space (MAP_NORESERVE: only what is written is
 * memory); the messages are packed aggregates, small beside the inputs */
#define ARENA_BYTES ((size_t)4 << 30)

typedef struct pbox {
	uint64_t off, len;
	int full;
} pbox;

typedef struct presult {
	int rc, done;
	tf_error err;
} presult;

typedef struct pworld {
	int size;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	unsigned bar_count, bar_gen;
	int dead;              /* a process ended without a result */
	int failed;
	int gate;              /* 0 wait, 1 go, -1 give up */
	pid_t pid[MAXP];
	int64_t maxv[MAXP];
	uint64_t bcast_off;
	pbox box[MAXP * MAXP]; /* [from * size + to] */
	presult res[MAXP];
	uint64_t used;         /* arena bytes handed out */
	char arena[];
} pworld;

typedef struct pworker {
	tf_comm c; /* first: the transport's functions get it */
	pworld *w;
} pworker;

static pworld *W(tf_comm *c) { return ((pworker *)c)->w; }

/* Waits for every process; TF_EIO once one died. */
static int barrier(pworld *w)
{
	pthread_mutex_lock(&w->mu);
	unsigned gen = w->bar_gen;
	if (++w->bar_count == (unsigned)w->size) {
		w->bar_count = 0;
		w->bar_gen++;
		pthread_cond_broadcast(&w->cv);
	} else {
		while (gen == w->bar_gen && !w->dead)
			pthread_cond_wait(&w->cv, &w->mu);
	}
	int rc = gen == w->bar_gen && w->dead ? TF_EIO : 0;
	pthread_mutex_unlock(&w->mu);
	return rc;
}

/* An arena copy of buf[0..len): its offset, or UINT64_MAX when full. */
static uint64_t put(pworld *w, const void *buf, size_t len)
{
	pthread_mutex_lock(&w->mu);
	uint64_t off = w->used, need = (len + 15) & ~(uint64_t)15;
	if (need > ARENA_BYTES - sizeof(pworld) - off)
		off = UINT64_MAX;
	else
		w->used += need;
	pthread_mutex_unlock(&w->mu);
	if (off != UINT64_MAX && len)
		memcpy(w->arena + off, buf, len);
	return off;
}

static int p_bcast(tf_comm *c, void *buf, size_t len, int root)
{
	pworld *w = W(c);
	if (c->rank == root)
		w->bcast_off = put(w, buf, len);
	int b = barrier(w);
	/* a full arena fails the broadcast for every process alike */
	int rc = b ? b : w->bcast_off == UINT64_MAX ? TF_ENOMEM : 0;
	if (rc == 0 && c->rank != root && len)
		memcpy(buf, w->arena + w->bcast_off, len);
	if (b == 0)
		b = barrier(w);
	return rc ? rc : b;
}

static int p_max(tf_comm *c, int64_t *v, int n)
{
	pworld *w = W(c);
	for (int k = 0; k < n; k++) {
		w->maxv[c->rank] = v[k];
		TF_TRY(barrier(w));
		for (int r = 0; r < w->size; r++)
			v[k] = w->maxv[r] > v[k] ? w->maxv[r] : v[k];
		TF_TRY(barrier(w));
	}
	return 0;
}

static int p_send(tf_comm *c, const void *buf, size_t len, int dest)
{
	pworld *w = W(c);
	uint64_t off = put(w, buf, len);
	pthread_mutex_lock(&w->mu);
	pbox *m = &w->box[c->rank * w->size + dest];
	m->off = off;
	m->len = off == UINT64_MAX ? 0 : len; /* an empty message: the receiver stops (dist.c) */
	m->full = 1;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
	return off == UINT64_MAX ? TF_ENOMEM : 0;
}

static int p_recv(tf_comm *c, void **buf, size_t *len, int src)
{
	pworld *w = W(c);
	pthread_mutex_lock(&w->mu);
	pbox *m = &w->box[src * w->size + c->rank];
	while (!m->full && !w->dead)
		pthread_cond_wait(&w->cv, &w->mu);
	int full = m->full;
	pbox got = *m;
	m->full = 0;
	pthread_mutex_unlock(&w->mu);
	if (!full)
		return TF_EIO;
	*len = (size_t)got.len;
	if (!(*buf = malloc(got.len ? got.len : 1)))
		return TF_ENOMEM;
	if (got.len)
		memcpy(*buf, w->arena + got.off, got.len);
	return 0;
}

static void p_fail(tf_comm *c) { __atomic_store_n(&W(c)->failed, 1, __ATOMIC_RELEASE); }
static bool p_failed(tf_comm *c) { return __atomic_load_n(&W(c)->failed, __ATOMIC_ACQUIRE) != 0; }

static void p_abort(tf_comm *c)
{
	pworld *w = W(c);
	for (int r = 0; r < w->size; r++)
		if (r != c->rank && w->pid[r] > 0)
			kill(w->pid[r], SIGKILL);
	abort();
}

typedef struct job {
	tf_ctx *ctx;
	tf_agg *agg;
	const char *const *inputs;
	int n;
	const tf_pipeline_opts *o;
	const tf_plan_part *plan;
	size_t nplan;
} job;

/* Process r's share of the run; its result goes into the world. */
static void run(pworld *w, int r, tf_ctx *ctx, tf_agg *agg, const job *j)
{
	pworker k = { { r, w->size, p_bcast, p_max, p_send, p_recv, p_fail, p_failed, p_abort,
			r == 0 ? j->plan : NULL, r == 0 ? j->nplan : 0 },
		      w };
	presult *res = &w->res[r];
	tf_error_clear(&res->err);
	pthread_mutex_lock(&w->mu);
	while (!w->gate)
		pthread_cond_wait(&w->cv, &w->mu);
	int go = w->gate > 0;
	pthread_mutex_unlock(&w->mu);
	res->rc = go ? tf_dist_run(&k.c, ctx, agg, j->inputs, j->n, j->o, NULL, &res->err) : TF_ECANCEL;
	pthread_mutex_lock(&w->mu);
	res->done = 1;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
}

static void child(pworld *w, int r, tf_ctx *parent_ctx, const job *j, pid_t parent)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent) /* the parent is already gone */
		_exit(1);
	/* a testing aid (tests/e2e/jobs.sh): worker r dies at once */
	const char *die = getenv("TRACEFOLD_TEST_WORKER_DIES");
	if (die && atoi(die) == r)
		raise(SIGKILL);
	tf_ctx *ctx = tf_ctx_new();
	tf_agg *agg = ctx ? tf_agg_new(tf_ctx_strtab(ctx)) : NULL;
	if (!agg) { /* no result: the watcher marks the world dead */
		_exit(1);
	}
	*tf_ctx_opts(ctx) = *tf_ctx_opts(parent_ctx);
	run(w, r, ctx, agg, j);
	_exit(0); /* no atexit handlers, no flushing of the parent's stdio */
}

typedef struct watch {
	pworld *w;
	int nchild;
} watch;

/* Reaps the children; one that ends without a result (a crash, no memory)
 * makes the world dead, which fails every wait. */
static void *watcher(void *arg)
{
	watch *wa = arg;
	pworld *w = wa->w;
	for (int left = wa->nchild; left > 0;) {
		int st;
		pid_t p = waitpid(-1, &st, __WALL);
		if (p < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (int r = 1; r < w->size; r++)
			if (w->pid[r] == p) {
				left--;
				pthread_mutex_lock(&w->mu);
				if (!w->res[r].done) {
					w->dead = 1;
					w->res[r].rc = TF_EIO;
					tf_error_set(&w->res[r].err, TF_EIO, NULL, -1, -1,
						     "-j: worker process %d ended without a result (%s %d)", r,
						     WIFSIGNALED(st) ? "signal" : "exit status",
						     WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
					pthread_cond_broadcast(&w->cv);
				}
				pthread_mutex_unlock(&w->mu);
			}
	}
	return NULL;
}

int tf_dist_procs(int nproc, tf_ctx *ctx, tf_agg *agg, const char *const *inputs, int n, const tf_pipeline_opts *o,
		  tf_plan_part *plan, size_t nplan, tf_error *err)
{
	if (nproc > MAXP)
		nproc = MAXP;
	tf_pipeline_plan_assign(plan, nplan, (uint32_t)nproc);
	pworld *w = mmap(NULL, ARENA_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (w == MAP_FAILED)
		return 1; /* the caller reads with threads instead */
	w->size = nproc;
	pthread_mutexattr_t ma;
	pthread_condattr_t ca;
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
	pthread_condattr_init(&ca);
	pthread_condattr_setpshared(&ca, PTHREAD_PROCESS_SHARED);
	pthread_mutex_init(&w->mu, &ma);
	pthread_cond_init(&w->cv, &ca);
	pthread_mutexattr_destroy(&ma);
	pthread_condattr_destroy(&ca);
	job j = { ctx, agg, inputs, n, o, plan, nplan };
	pid_t self = getpid();
	w->pid[0] = self;
	int started = 1;
	for (; started < nproc; started++) {
		pid_t p = fork();
		if (p == 0)
			child(w, started, ctx, &j, self); /* does not return */
		if (p < 0)
			break;
		w->pid[started] = p;
	}
	watch wa = { w, started - 1 };
	pthread_t wt;
	bool watching = started > 1 && pthread_create(&wt, NULL, watcher, &wa) == 0;
	pthread_mutex_lock(&w->mu);
	w->gate = started == nproc && (watching || started == 1) ? 1 : -1;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
	int rc;
	if (w->gate > 0) {
		run(w, 0, ctx, agg, &j);
		rc = w->res[0].rc;
		*err = w->res[0].err;
	} else {
		rc = 1; /* no processes to be had: threads instead */
	}
	if (watching) {
		pthread_join(wt, NULL);
	} else {
		for (int r = 1; r < started; r++)
			waitpid(w->pid[r], NULL, 0);
	}
	if (rc != 1 && rc < 0 && (rc == TF_ECANCEL || rc == TF_EIO))
		for (int r = 1; r < nproc; r++)
			if (w->res[r].rc < 0 && w->res[r].rc != TF_ECANCEL) {
				rc = w->res[r].rc;
				*err = w->res[r].err;
				break;
			}
	pthread_mutex_destroy(&w->mu);
	pthread_cond_destroy(&w->cv);
	munmap(w, ARENA_BYTES);
	return rc;
}
