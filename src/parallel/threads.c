/* threads.c - `-j N`: a distributed run (dist.c) whose processes are
 * threads of this one, over shared memory:
 *
 *   collectives    a barrier: process 0's broadcast buffer is copied by
 *                  the others between two barriers; the maximum likewise
 *   send/recv      one mailbox per (sender, receiver) pair: the tree sends
 *                  each pair at most one message
 *   fail/failed    one flag
 *
 * Each thread has its own context (strings, tracks, diagnostics; the
 * reader options of the caller's) and aggregate; nothing of the library is
 * shared between them but read-only tables (libotf2's error callback is
 * registered once for all: src/read/otf2.c).  The partial aggregates are
 * packed and added up as between processes: the price is a copy of each
 * aggregate (small: it grows with call paths, not with events), for one
 * code path whose output is checked byte for byte against one process. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "tracefold/dist.h"
#include "tracefold/reader.h"
#include "procs.h"

#define MAXT 256

typedef struct mbox {
	void *buf;
	size_t len;
	bool full;
} mbox;

typedef struct world {
	int size;
	pthread_barrier_t bar;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	void *bcast_buf;
	int64_t *maxv;         /* size values */
	mbox *box;             /* size x size: [from * size + to] */
	int failed;
	int gate;              /* 0 wait, 1 go, -1 give up (a thread did not start) */
} world;

typedef struct worker {
	tf_comm c;             /* first: the transport's functions get it */
	world *w;
	tf_ctx *ctx;           /* its own (process 0: the caller's) */
	tf_agg *agg;
	const char *const *inputs;
	int n;
	const tf_pipeline_opts *o;
	tf_dist_stats *stats;  /* its row of the caller's, or NULL */
	int rc;
	tf_error err;
} worker;

static int w_bcast(tf_comm *c, void *buf, size_t len, int root)
{
	world *w = ((worker *)c)->w;
	if (c->rank == root)
		w->bcast_buf = buf;
	pthread_barrier_wait(&w->bar);
	if (c->rank != root && len)
		memcpy(buf, w->bcast_buf, len);
	pthread_barrier_wait(&w->bar);
	return 0;
}

static int w_max(tf_comm *c, int64_t *v, int n)
{
	world *w = ((worker *)c)->w;
	for (int k = 0; k < n; k++) { /* n is 1 in dist.c: one value at a time */
		w->maxv[c->rank] = v[k];
		pthread_barrier_wait(&w->bar);
		for (int r = 0; r < w->size; r++)
			v[k] = w->maxv[r] > v[k] ? w->maxv[r] : v[k];
		pthread_barrier_wait(&w->bar);
	}
	return 0;
}

static int w_send(tf_comm *c, const void *buf, size_t len, int dest)
{
	world *w = ((worker *)c)->w;
	void *copy = malloc(len ? len : 1);
	if (!copy)
		len = 0; /* an empty message: the receiver stops (dist.c) */
	else if (len)
		memcpy(copy, buf, len);
	pthread_mutex_lock(&w->mu);
	mbox *m = &w->box[c->rank * w->size + dest];
	m->buf = copy;
	m->len = len;
	m->full = true;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
	return copy ? 0 : TF_ENOMEM;
}

static int w_recv(tf_comm *c, void **buf, size_t *len, int src)
{
	world *w = ((worker *)c)->w;
	pthread_mutex_lock(&w->mu);
	mbox *m = &w->box[src * w->size + c->rank];
	while (!m->full)
		pthread_cond_wait(&w->cv, &w->mu);
	*buf = m->buf;
	*len = m->len;
	m->full = false;
	m->buf = NULL;
	pthread_mutex_unlock(&w->mu);
	return 0;
}

static void w_fail(tf_comm *c) { __atomic_store_n(&((worker *)c)->w->failed, 1, __ATOMIC_RELEASE); }
static bool w_failed(tf_comm *c) { return __atomic_load_n(&((worker *)c)->w->failed, __ATOMIC_ACQUIRE) != 0; }

static void w_abort(tf_comm *c)
{
	abort(); /* out of memory where a thread would miss a collective call */
}

static void *work(void *arg)
{
	worker *k = arg;
	world *w = k->w;
	/* every thread starts before any enters the run: one that cannot
	 * start would leave the others at a barrier */
	pthread_mutex_lock(&w->mu);
	while (!w->gate)
		pthread_cond_wait(&w->cv, &w->mu);
	int go = w->gate > 0;
	pthread_mutex_unlock(&w->mu);
	tf_error_clear(&k->err);
	if (!go) {
		k->rc = TF_ECANCEL;
		return NULL;
	}
	k->rc = tf_dist_run(&k->c, k->ctx, k->agg, k->inputs, k->n, k->o, k->stats, &k->err);
	return NULL;
}

/* Is one of the inputs an OTF2 archive? */
static bool has_otf2(const char *const *inputs, int n, const tf_format *const *fmts)
{
	for (int i = 0; i < n; i++)
		if (strcmp(inputs[i], "-") != 0 && strcmp(fmts[i]->name, "otf2") == 0)
			return true;
	return false;
}

static int threads_run(int nthreads, tf_ctx *ctx, tf_agg *agg, const char *const *inputs, int n,
		       const tf_pipeline_opts *o, tf_dist_stats *stats, tf_error *err)
{
	tf_plan_part *plan = NULL;
	int np = -1;
	/* what a distributed run cannot take goes the single way, with its own
	 * messages */
	bool can = nthreads > 1 && !(o && o->consumers && o->consumers[0]) && !(o && o->select) &&
		   !(o && tf_filter_active(o->filter)); /* a filter's "keeps nothing" names what there is */
	/* samples joined to a trace are read with it, by one reader */
	can = can && !(o && tf_pipeline_any_join(o->formats, n));
	if (can && has_otf2(inputs, n, o->formats)) {
		/* processes: an archive's locations are read in parallel */
		tf_error perr;
		tf_error_clear(&perr);
		np = tf_pipeline_plan(ctx, inputs, n, o->formats, &plan, &perr);
		if (np < 0 && perr.code && perr.code != TF_EUSAGE && perr.code != TF_ENOMEM) {
			/* an input that cannot be read (an archive's definitions):
			 * said now, not opened again on one thread (libotf2 3.0 can
			 * read a cut traces.def's chunk for ever when the same
			 * process opens it a second time: tests/e2e/damaged.sh) */
			if (err)
				*err = perr;
			return perr.code;
		}
		int rc = np >= 2 ? tf_dist_procs(nthreads < np ? nthreads : np, ctx, agg, inputs, n, o, plan, (size_t)np, err)
				 : 1;
		free(plan);
		plan = NULL;
		if (rc != 1)
			return rc;
		return tf_pipeline_run(ctx, agg, inputs, n, o, err);
	}
	if (can) {
		tf_error perr;
		tf_error_clear(&perr);
		tf_ctx_opts(ctx)->parts_for_threads = true;
		np = tf_pipeline_plan(ctx, inputs, n, o->formats, &plan, &perr);
		tf_ctx_opts(ctx)->parts_for_threads = false;
	}
	if (np < 2) {
		/* one thread reads every input: each may use the others
		 * (a Chrome JSON file in two stages: src/read/chrome_pipe.c) */
		free(plan);
		tf_read_opts *ro = tf_ctx_opts(ctx);
		int save = ro->reader_threads;
		ro->reader_threads = nthreads;
		int rc = tf_pipeline_run(ctx, agg, inputs, n, o, err);
		ro->reader_threads = save;
		return rc;
	}
	if (nthreads > np)
		nthreads = np;
	if (nthreads > MAXT)
		nthreads = MAXT;
	tf_pipeline_plan_assign(plan, (size_t)np, (uint32_t)nthreads);
	world w = { .size = nthreads };
	worker *ws = calloc((size_t)nthreads, sizeof(worker));
	pthread_t *th = calloc((size_t)nthreads, sizeof(pthread_t));
	w.maxv = calloc((size_t)nthreads, sizeof(int64_t));
	w.box = calloc((size_t)nthreads * (size_t)nthreads, sizeof(mbox));
	int rc = 0, started = 1;
	if (!ws || !th || !w.maxv || !w.box) {
		rc = tf_error_set(err, TF_ENOMEM, NULL, -1, -1, "out of memory");
		goto out;
	}
	for (int r = 0; r < nthreads; r++) {
		ws[r] = (worker){ .c = { r, nthreads, w_bcast, w_max, w_send, w_recv, w_fail, w_failed, w_abort,
					 r == 0 ? plan : NULL, r == 0 ? (size_t)np : 0 },
				  .w = &w, .ctx = ctx, .agg = agg, .inputs = inputs, .n = n, .o = o,
				  .stats = stats ? &stats[r] : NULL };
		if (r == 0)
			continue;
		ws[r].ctx = tf_ctx_new();
		ws[r].agg = ws[r].ctx ? tf_agg_new(tf_ctx_strtab(ws[r].ctx)) : NULL;
		if (!ws[r].agg) {
			rc = tf_error_set(err, TF_ENOMEM, NULL, -1, -1, "out of memory");
			goto out;
		}
		*tf_ctx_opts(ws[r].ctx) = *tf_ctx_opts(ctx);
	}
	pthread_barrier_init(&w.bar, NULL, (unsigned)nthreads);
	pthread_mutex_init(&w.mu, NULL);
	pthread_cond_init(&w.cv, NULL);
	for (; started < nthreads; started++)
		if (pthread_create(&th[started], NULL, work, &ws[started]) != 0)
			break;
	pthread_mutex_lock(&w.mu);
	w.gate = started == nthreads ? 1 : -1;
	pthread_cond_broadcast(&w.cv);
	pthread_mutex_unlock(&w.mu);
	if (started == nthreads)
		work(&ws[0]);
	for (int r = 1; r < started; r++)
		pthread_join(th[r], NULL);
	pthread_barrier_destroy(&w.bar);
	pthread_mutex_destroy(&w.mu);
	pthread_cond_destroy(&w.cv);
	if (started < nthreads) { /* no threads to be had: one at a time */
		rc = tf_pipeline_run(ctx, agg, inputs, n, o, err);
		goto out;
	}
	/* process 0's result, or the error of the thread that failed */
	rc = ws[0].rc;
	*err = ws[0].err;
	if (rc == TF_ECANCEL)
		for (int r = 1; r < nthreads; r++)
			if (ws[r].rc < 0 && ws[r].rc != TF_ECANCEL) {
				rc = ws[r].rc;
				*err = ws[r].err;
				break;
			}
	if (rc == 1)
		rc = 0;
out:
	for (int r = 1; ws && r < nthreads; r++) {
		tf_agg_free(ws[r].agg);
		tf_ctx_free(ws[r].ctx);
	}
	for (size_t i = 0; w.box && i < (size_t)nthreads * (size_t)nthreads; i++)
		free(w.box[i].buf);
	free(ws);
	free(th);
	free(w.maxv);
	free(w.box);
	free(plan);
	return rc;
}

int tf_dist_threads(int nthreads, tf_ctx *ctx, tf_agg *agg, const char *const *inputs, int n,
		    const tf_pipeline_opts *o, tf_dist_stats *stats, tf_error *err)
{
	tf_error scratch;
	if (stats)
		memset(stats, 0, (size_t)(nthreads > 0 ? nthreads : 0) * sizeof(*stats));
	if (!err) {
		tf_error_clear(&scratch);
		err = &scratch;
	}
	if (o && o->formats)
		return threads_run(nthreads, ctx, agg, inputs, n, o, stats, err);
	/* each input resolved once, for the plan and every thread */
	tf_pipeline_opts with = o ? *o : (tf_pipeline_opts){ 0 };
	const tf_format **fmts = NULL;
	int rc = tf_inputs_resolve_new(inputs, n, with.format, &fmts, err);
	with.formats = fmts;
	if (rc == 0)
		rc = threads_run(nthreads, ctx, agg, inputs, n, &with, stats, err);
	free(fmts);
	return rc;
}
