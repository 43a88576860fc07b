/* overview.h - what a run did per rank and step, and what held it back
 * (docs/overview.md): a span consumer beside the aggregate.
 *
 *   stack builder --spans--> overview sink --tf_ov_finish--> tf_ov_result
 *                                  (per rank and step: CPU, GPU breakdown,
 *                                   collectives matched across ranks, MPI
 *                                   messages matched, wait states)
 *
 * Every number is defined in docs/overview.md; the command (src/cmd/
 * overview.c) adds the call path of each straggler from the aggregate's
 * step labels and prints. */
#ifndef TRACEFOLD_OVERVIEW_H
#define TRACEFOLD_OVERVIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "ctx.h"
#include "span.h"
#include "agg_sink.h"

/* Where the ranks came from (tf_ov_result.ranks_from). */
enum { TF_OV_RANKS_TRACE = 0, TF_OV_RANKS_FILE_NAMES, TF_OV_RANKS_INPUTS };
/* Where the steps came from. */
enum { TF_OV_STEPS_PROFILER = 0, TF_OV_STEPS_REGION, TF_OV_STEPS_WHOLE };
/* What bounds a step (tf_ov_step.bound). */
enum { TF_OV_BOUND_CPU = 0, TF_OV_BOUND_GPU, TF_OV_BOUND_LAUNCH, TF_OV_BOUND_OTHER };
extern const char *const tf_ov_bound_names[4]; /* "cpu", "gpu", "launch", "other" */

/* The kinds of wait state (tf_ov_wait.kind). */
enum { TF_OV_LATE_SENDER = 0, TF_OV_LATE_RECEIVER, TF_OV_COLL_WAIT, TF_OV_NWAIT };
extern const char *const tf_ov_wait_names[TF_OV_NWAIT]; /* late_sender, late_receiver, coll_wait */

/* One step of one rank. */
typedef struct tf_ov_step {
	int64_t rank;
	int64_t step;              /* ProfilerStep#N's N, the region's instance, 0 for the whole run */
	int64_t start_ns, time_ns;
	int64_t cpu_ns;
	int64_t gpu_compute_ns, gpu_comm_ns, gpu_memcpy_ns, gpu_memset_ns, gpu_idle_ns;
	int64_t comm_exposed_ns, comm_wait_ns;
	int64_t late_ns;           /* meaningful when ncoll > 0 */
	int64_t mpi_ns;
	uint32_t ncoll;            /* matched collectives of the step this rank took part in */
	uint8_t bound;             /* TF_OV_BOUND_* */
	/* telemetry (docs/telemetry.md): the mean of the gpu.utilization (%)
	 * and gpu.power (W) samples of every telemetry track inside the step,
	 * -1 when none */
	double gpu_util, gpu_power;
} tf_ov_step;

/* One rank. */
typedef struct tf_ov_rank {
	int64_t rank;
	uint32_t input;            /* the first input that has it */
	uint32_t threads, devices; /* CPU threads, GPUs */
	uint32_t main_track;       /* UINT32_MAX none */
	size_t first, nsteps;      /* its steps: tf_ov_result.steps[first .. first + nsteps) */
	int64_t mpi_ns;
	int64_t wait_ns[TF_OV_NWAIT];
} tf_ov_rank;

/* A (rank, step) that held the others back. */
typedef struct tf_ov_straggler {
	int64_t rank, step, late_ns;
} tf_ov_straggler;

/* Wait time of one kind at one call path (node: a tf_cpath id of the
 * aggregate's call-path tree). */
typedef struct tf_ov_wait {
	uint32_t node;
	uint8_t kind;
	int64_t ns;
} tf_ov_wait;

typedef struct tf_ov_result {
	tf_ov_rank *ranks;         /* by rank */
	size_t nranks;
	tf_ov_step *steps;         /* by rank, then step */
	size_t nsteps;
	tf_ov_straggler *stragglers; /* largest late_ns first */
	size_t nstragglers;
	tf_ov_wait *waits;         /* largest first */
	size_t nwaits;
	int steps_from;            /* TF_OV_STEPS_* */
	bool any_time;
	int64_t start_ns, end_ns;
	int64_t late_min_ns;
	uint32_t devices, threads;
	uint64_t coll_matched, coll_unmatched, coll_no_step;
	uint64_t msg_matched, msg_unmatched;
	bool mpi;                  /* the run has MPI regions or messages */
	bool telemetry;            /* telemetry gave gpu.utilization or gpu.power samples */
	int64_t wait_ns[TF_OV_NWAIT];
} tf_ov_result;

typedef struct tf_ov_opts {
	/* per input (index - first_input), the rank of its tracks that name
	 * none; borrowed, n = ninputs */
	const int64_t *input_rank;
	uint32_t first_input, ninputs;
	/* the steps (tf_pipeline_step_list), sorted; borrowed; NULL: each
	 * rank's whole run is its step 0 */
	const tf_step *steps;
	size_t nsteps;
	bool step_region;          /* the steps are --step-region's */
	int64_t late_min_ns;       /* < 0: 10% of the median step time, at least 1 us */
} tf_ov_opts;

typedef struct tf_ov tf_ov;
/* ctx borrowed; opts copied (its arrays borrowed).  NULL when out of memory. */
tf_ov *tf_ov_new(tf_ctx *ctx, const tf_ov_opts *o);
void tf_ov_free(tf_ov *v); /* NULL-safe */
tf_span_sink *tf_ov_spans(tf_ov *v);
/* Once the stack builder finished: matches the collectives and messages
 * and computes every step's numbers.  The result is owned by v.  0 or
 * TF_ENOMEM. */
int tf_ov_finish(tf_ov *v, const tf_ov_result **out);

/* -j: what a sink can tell alone (each rank's rows, its GPU breakdown:
 * the sink has read every input of its ranks), done once; tf_ov_finish
 * does it when not done.  0 or TF_ENOMEM. */
int tf_ov_local(tf_ov *v);
/* -j: moves what src (tf_ov_local done; another ctx) holds into dst (no
 * spans of its own), for dst's tf_ov_finish: ranks, rows, collective calls
 * (keys interned in dst's ctx) and messages, their call paths mapped by
 * node_map (src's node -> dst's; UINT32_MAX: out of memory).  0 or
 * TF_ENOMEM. */
int tf_ov_absorb(tf_ov *dst, tf_ov *src, uint32_t (*node_map)(void *arg, uint32_t node), void *arg);

/* The category of a GPU activity by its name and category (docs/overview.md). */
enum { TF_OV_GPU_COMPUTE = 0, TF_OV_GPU_COMM, TF_OV_GPU_MEMCPY, TF_OV_GPU_MEMSET };
int tf_ov_gpu_class(const char *name, size_t n, const char *cat, size_t ncat);
/* The rank a file name gives ("rank3", "Rank-3", "rank_3": the last such
 * in its base name), -1 none. */
int64_t tf_ov_rank_of_path(const char *path);

#endif
