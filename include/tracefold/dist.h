/* dist.h - a distributed run (docs/distributed.md): several processes read
 * a share of the inputs each and add their aggregates up, over a message
 * transport the caller gives (MPI in tracefold-mpi; src/cmd/mpi.c).
 *
 *   process 0: plan (tf_pipeline_plan: parts by bytes) --broadcast-->
 *   every process: tf_pipeline_run on its parts (a partial run)
 *     --status agreed--> binomial-tree reduction of packed partial
 *     aggregates (agg_pack.h) and their diagnostics --> process 0:
 *     tf_pipeline_conclude --> the profile a single process gives
 *
 * Like the rest of the library it never prints: the caller prints errors
 * (each process its own: the one that failed names its file). */
#ifndef TRACEFOLD_DIST_H
#define TRACEFOLD_DIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "pipeline.h"

/* The transport.  Collective calls are made by every process in the same
 * order; each returns 0 or a negative TF_E*. */
typedef struct tf_comm {
	int rank, size;
	/* buf[0..len) from root to every process */
	int (*bcast)(struct tf_comm *c, void *buf, size_t len, int root);
	/* v[0..n) <- the elementwise maximum over the processes */
	int (*max)(struct tf_comm *c, int64_t *v, int n);
	/* point to point, for the tree: a whole message; recv mallocs *buf */
	int (*send)(struct tf_comm *c, const void *buf, size_t len, int dest);
	int (*recv)(struct tf_comm *c, void **buf, size_t *len, int src);
	/* not collective: tells the others that this process failed (they
	 * stop reading at their next part); has another one failed? */
	void (*fail)(struct tf_comm *c);
	bool (*failed)(struct tf_comm *c);
	/* ends every process at once (MPI_Abort): for the rare failures (out
	 * of memory) that would leave this one out of a collective call the
	 * others are in; does not return */
	void (*abort)(struct tf_comm *c);
	/* process 0: a plan already made (tf_pipeline_plan and _assign for
	 * size processes), or NULL to make it */
	const tf_plan_part *plan;
	size_t nplan;
} tf_comm;

/* What one process did, for -v and the benchmark (docs/distributed.md). */
typedef struct tf_dist_stats {
	uint32_t parts;        /* parts it read */
	uint64_t bytes;        /* their bytes */
	double read_s;         /* from the plan to the agreed status: its share */
	double own_s, own_cpu_s; /* its own reading, before waiting for the others: wall, and CPU of its thread */
	double reduce_s;       /* its part of the tree: receiving, adding up, sending */
	uint64_t sent, received; /* payload bytes */
	double conclude_s;     /* process 0: tf_pipeline_conclude */
} tf_dist_stats;

/* Reads inputs[0..n) shared out among c's processes into agg (empty, over
 * ctx's string table), as tf_pipeline_run would in one process, with
 * o->select and o->partial ignored (this sets them).  Returns 0 on process
 * 0 with agg holding the whole run's profile (its comments, time span and
 * checks those of a single process; ctx's diagnostics, notes and warnings
 * the whole run's), 1 on the others (their share was handed on and
 * process 0 concluded the run), or a negative TF_E*: this process's own
 * failure with err filled, TF_ECANCEL when another process failed (it says
 * so itself), or on the others the code of process 0's failure to plan or
 * conclude with err not filled (process 0 says why).  Every process
 * returns success or failure alike. */
int tf_dist_run(tf_comm *c, tf_ctx *ctx, tf_agg *agg, const char *const *inputs, int n, const tf_pipeline_opts *o,
		tf_dist_stats *stats, tf_error *err);

/* -j: tf_pipeline_run of inputs[0..n) on nthreads threads, each a process
 * of a distributed run over shared memory (the calling thread is process
 * 0, with ctx and agg; the others get their own context, with ctx's reader
 * options).  The same result as tf_pipeline_run, byte for byte; when the
 * inputs have fewer than two parts, or cannot be shared out (profiles,
 * standard input, span consumers, filters: their "keeps nothing" errors
 * name what the whole run has), it is tf_pipeline_run.  stats (NULL: not
 * wanted): nthreads rows, zeroed, then what each thread did (a row with no
 * parts: a thread not started, or no threads at all; OTF2 archives, read by
 * processes, fill none).  Returns 0 or a negative TF_E* with err filled (the
 * error of the thread that failed). */
int tf_dist_threads(int nthreads, tf_ctx *ctx, tf_agg *agg, const char *const *inputs, int n,
		    const tf_pipeline_opts *o, tf_dist_stats *stats, tf_error *err);

#endif
