/* info_int.h - what `tracefold info` gathers (info.c: a tf_sink of running
 * statistics) and prints (info_print.c: text and JSON). */
#ifndef TRACEFOLD_INFO_INT_H
#define TRACEFOLD_INFO_INT_H

#include <stdbool.h>
#include <stdint.h>
#include "tracefold/ctx.h"
#include "tracefold/sink.h"
#include "tracefold/span.h"
#include "tracefold/filter.h"
#include "tracefold/cpath.h"
#include "tracefold/agg_sink.h"
#include "tracefold/waiting.h"
#include "hmap.h"

#define INFO_MAX_METADATA 100000

typedef struct info_counter {
	tf_str name;
	uint64_t n;
	double min, max, sum;
} info_counter;

typedef struct info_track {
	uint64_t events;
	int64_t first_ns, last_ns;
	bool any;
	/* a GPU stream's activities (docs/gpu.md): their number, their time,
	 * the time they kept the stream busy (union), the time under a launch */
	uint64_t gpu_n;
	int64_t gpu_ns, gpu_busy_ns, gpu_att_ns, gpu_last_end;
} info_track;

typedef struct info_meta {
	tf_str key, value;
	uint32_t track;
	uint32_t next; /* next entry with the same hash, UINT32_MAX: none */
} info_meta;

typedef struct info_input {
	const char *path;
	const char *format;
	uint64_t events;
} info_input;

typedef struct info_sink {
	tf_sink sink;
	tf_span_sink spans;    /* with filters: the kept regions (names, time span) */
	tf_span_sink gpu;      /* the GPU activities (after the filters) */
	const tf_cpath *cp;    /* the call paths of their spans */
	tf_str unattributed;   /* "[unattributed gpu]" */
	tf_ctx *ctx;
	uint64_t kind_n[TF_EV_KIND_COUNT];
	int64_t min_ns, max_ns;
	bool any_ts;
	/* by tf_str id: bit 0 region seen, counter index + 1 in the rest */
	uint32_t *by_str;
	size_t nby_str;
	uint64_t nregions;
	info_counter *ctrs;
	uint32_t nctrs, capctrs;
	info_track *trk;
	size_t ntrk;
	uint64_t msg_n[2], msg_bytes[2]; /* [0] send, [1] recv */
	info_meta *meta;       /* distinct (track, key, value), first-seen order */
	uint32_t nmeta, capmeta;
	tf_hmap meta_idx;      /* hash of (track, key, value) -> first entry with it */
	uint64_t meta_events, meta_dropped;
	int oom;
	/* --ranks, --window: only the events kept count (a region overlapping
	 * the window is kept); NULL: every event */
	const tf_filter_opts *fo;
	int64_t win_lo, win_hi;
	/* Kineto's memory per device (docs/memory.md), from the aggregate's
	 * consumer once the stack builder finished; borrowed */
	const tf_mem_device *mem;
	size_t nmem;
	/* threads that only wait (waiting.h), from the aggregate's labels:
	 * each with its wall time, their sum and the wall time of all */
	tf_waiting_thread *wt;
	int nwt;
	int64_t wait_ns, wall_ns;
} info_sink;

void tf_info_print_text(info_sink *s, tf_ctx *ctx, const info_input *in, int nin, bool list_meta);
void tf_info_print_json(info_sink *s, tf_ctx *ctx, const info_input *in, int nin);

#endif
