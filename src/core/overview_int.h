/* overview_int.h - the overview sink's state, shared by overview.c (the
 * span consumer: what it keeps as the spans go by) and overview_finish.c
 * (collectives and messages matched, each step's numbers). */
#ifndef TRACEFOLD_OVERVIEW_INT_H
#define TRACEFOLD_OVERVIEW_INT_H

#include "tracefold/overview.h"
#include "hmap.h"

#define OV_NO_STEP UINT32_MAX

/* A rank of the run (its number is ranks[i].rank). */
typedef struct ov_rank {
	int64_t rank;
	uint32_t input;
	uint32_t threads, devices;
	bool any_time;
	int64_t min_ns, max_ns;     /* of its spans: the whole run's step */
	int64_t mpi_ns;
	int64_t wait[TF_OV_NWAIT];
	bool has_steps;             /* its steps are the list's (else: its whole run) */
	bool rows_done;             /* its rows are made (at the end of its first input) */
	uint32_t main_track;        /* its main thread (this sink's ctx), UINT32_MAX none */
} ov_rank;

/* A track as the overview sees it. */
typedef struct ov_track {
	bool known;
	bool gpu;
	uint32_t rank;              /* index in ranks */
	uint32_t device;            /* gpu: index in devices */
	int64_t depth1_ns;          /* time of its depth-1 regions (the whole run's cpu_ns) */
	bool had_step;              /* holds step regions */
	/* the open regions, by depth - 1 */
	struct ov_open {
		int64_t start;
		int64_t child_ns;           /* its children's time */
	} *open;
	uint32_t nopen, capopen;
	uint32_t coll_depth;        /* depth of the collective call open, 0 none */
	uint32_t gloo_depth;        /* depth of the gloo:* worker region open, 0 none */
	uint32_t mpi_depth;         /* depth of the outermost MPI_* region open, 0 none */
	uint32_t *pending;          /* messages whose call is still open (indices) */
	uint32_t npending, cappending;
} ov_track;

/* A GPU activity. */
typedef struct ov_act {
	int64_t start, end;
	uint32_t device;
	uint32_t row;               /* its step's row (set at finish), from step */
	uint32_t step;              /* index in steps, OV_NO_STEP none */
	uint8_t cat;                /* TF_OV_GPU_* */
} ov_act;

/* A collective call. */
typedef struct ov_call {
	tf_str key;
	uint32_t rank;              /* index */
	uint32_t step;              /* step index holding its arrival, OV_NO_STEP none */
	uint32_t node;
	bool in_step;               /* (tf_ov_local) in a step of its rank, number stepn */
	int64_t stepn;
	int64_t start, end;
} ov_call;

/* A message's send or receive. */
typedef struct ov_msg {
	int64_t rank, peer, tag, comm;  /* rank: its rank number */
	int64_t ts;                 /* the event's time */
	int64_t start, end;         /* its call */
	uint32_t node;              /* its call's call path */
	uint32_t track, depth;      /* for the call's end */
	uint32_t rank_idx;
	bool send;
} ov_msg;

/* Telemetry sums of a step or a rank's whole run. */
typedef struct ov_tel {
	double util, power;
	uint32_t nutil, npower;
} ov_tel;

/* A row: one step of one rank. */
typedef struct ov_row {
	tf_ov_step s;
	uint32_t rank;              /* index */
	uint32_t step;              /* index in steps, OV_NO_STEP: the whole run */
	int64_t cpu_end;            /* the step's CPU window's end */
} ov_row;

struct tf_ov {
	tf_span_sink sink;
	tf_ctx *ctx;
	tf_ov_opts o;
	ov_rank *ranks;
	uint32_t nranks, capranks;
	tf_hmap rank_idx;           /* rank number -> index */
	ov_track *tracks;
	uint32_t ntracks;
	size_t captracks;
	tf_hmap device_idx;         /* (input, process key) -> device index */
	uint32_t ndevices;
	uint32_t *device_rank;      /* device -> rank index */
	uint32_t capdevice_rank;
	ov_act *acts;
	size_t nacts, capacts;
	uint8_t *name_class;        /* per interned GPU activity name: its class by name + 1, 0 not yet */
	size_t capname_class;
	ov_call *calls;
	size_t ncalls, capcalls;
	ov_call *gloo;              /* gloo's worker regions (gloo:all_reduce): key, rank, start, end */
	size_t ngloo, capgloo;
	ov_msg *msgs;
	size_t nmsgs, capmsgs;
	int64_t *step_cpu;          /* per step index: cpu_ns of its region (-1 not seen) */
	uint32_t *step_track;       /* per step index: the track holding its region */
	int64_t *step_mpi;          /* per step index: time in MPI */
	uint32_t *step_depth;       /* per step index: its region's depth */
	tf_hmap waits;              /* (node, kind) -> index in res.waits */
	uint32_t capwaits;
	bool mpi;
	bool local_done;            /* tf_ov_local ran */
	tf_hmap by_step;            /* (rank, step index) -> row */
	ov_tel *tel_step;           /* per step index (telemetry read after the traces) */
	ov_tel *tel_rank;           /* per rank index: the whole run of a rank without steps */
	size_t captel_rank;
	size_t *groups;             /* the first step of each (input, rank) of o.steps, then o.nsteps */
	size_t ngroups;
	bool telemetry;
	tf_ov_result res;
	ov_row *rows;
	size_t nrows, caprows;
};

/* The step of steps[] holding ts for a track of input `input` and rank
 * `rank` (its own, -1 none), OV_NO_STEP when none. */
uint32_t tf_ov_step_of(const tf_ov *v, uint32_t input, int64_t rank, int64_t ts);
/* Every track of input was handed over: its ranks' rows made, its GPU
 * activities added to them and forgotten.  0 or TF_ENOMEM. */
int tf_ov_input_done(tf_ov *v, uint32_t input);
/* The telemetry means into every row (tf_ov_finish). */
void tf_ov_tel_rows(tf_ov *v);
/* Adds ns to the wait of kind at node.  0 or TF_ENOMEM. */
int tf_ov_add_wait(tf_ov *v, uint32_t node, int kind, int64_t ns);

#endif
