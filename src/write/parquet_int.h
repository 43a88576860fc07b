/* parquet_int.h - what the event tables' writer (src/write/parquet.c)
 * shares with its samples table (src/write/parquet_samples.c): the
 * writer's state and the helpers that open a table's file and write a row.
 * Private to src/write. */
#ifndef TRACEFOLD_PARQUET_INT_H
#define TRACEFOLD_PARQUET_INT_H

#include <stdbool.h>
#include <stdint.h>
#include "tracefold/ctx.h"
#include "tracefold/cpath.h"
#include "tracefold/span.h"
#include "tracefold/coll.h"
#include "tracefold/samples.h"
#include "hmap.h"
#include "pq.h"
#include "pair.h"

enum { T_SLICES, T_COUNTERS, T_INSTANTS, T_MESSAGES, T_FLOWS, T_TRACKS, T_CALL_PATHS, T_COLL, T_SAMPLES, NTABLES };

/* The samples table's columns (parquet_samples.c). */
enum { X_TRACK, X_RANK, X_TS, X_PATH, X_SLICE, X_COUNT, X_TYPE, X_UNIT, X_WEIGHT, X_FRAMES, TF_PQ_SAMPLES_NCOLS };
extern const pq_col tf_pq_samples_cols[TF_PQ_SAMPLES_NCOLS];

/* One open file of a table: its rank partition (INT64_MIN = unpartitioned). */
typedef struct tfile {
	pq_file *f;
	int64_t rank;
} tfile;

typedef struct table {
	tfile *files;
	uint32_t nfiles, capfiles;
	tf_hmap by_rank;       /* rank partition -> files index */
} table;

typedef struct trackst {
	int64_t *open;         /* slice ids of the open spans, outermost first */
	uint32_t depth, cap;
	bool seen;             /* it had a span or event (the tracks a part lists) */
	tf_gpu_recent gpu;     /* a GPU stream's activities a flow may still end on */
} trackst;

typedef struct tf_events {
	tf_span_sink spans;
	tf_ctx *ctx;
	tf_cpath *cp;
	tf_strtab *st;
	char dir[4096];        /* where the tables go (the temporary folder of out) */
	const char *out;       /* the output, for messages */
	pq_opts po;
	bool by_rank;
	const char *const *inputs, *const *input_formats;
	int ninputs;
	table tab[NTABLES];
	trackst *tk;
	uint32_t ntk;
	int64_t next_slice;
	int part, nparts;      /* the part-N.parquet of each table (a distributed run's process), of nparts */
	bool distributed;      /* ids are part << 40 | the process's own; tracks: only its own */
	int64_t id_base;       /* part << 40 when distributed, else 0 */
	tf_pairs pairs;        /* messages and flows waiting for the other end */
	tf_coll_spans *cspans; /* the collective of each span */
	tf_sample_paths *spaths; /* the call paths of samples (made at the first) */
	int rc;                /* first failure: every later hook fails */
	tf_error err;
} tf_events;

/* The open file of table t for rows of that rank (opened on first use);
 * NULL after a failure (w->rc, kept in the ctx). */
pq_file *pqw_file(tf_events *w, int t, int64_t rank);
/* A string column's value; 0 is null where nullable. */
void pqw_str(pq_file *f, int col, tf_str s, tf_strtab *st, bool nullable);
/* v, or null unless have. */
void pqw_opt(pq_file *f, int col, int64_t v, bool have);
/* Ends the row; w->rc (a failure kept). */
int pqw_end_row(tf_events *w, pq_file *f);
/* The state of a track (grown on first use); NULL when out of memory. */
trackst *pqw_track(tf_events *w, uint32_t track);
int64_t pqw_rank(tf_events *w, uint32_t track);

/* Track and call path ids as written (tracks, call_paths): unique across
 * the parts of a distributed run. */
static inline int64_t tid(const tf_events *w, uint32_t track) { return w->id_base + track; }
static inline int64_t cid(const tf_events *w, uint32_t node) { return w->id_base + node; }

/* A TF_EV_SAMPLE: its row of the samples table (node: the regions open,
 * slice: the innermost open slice's id, -1 none). */
int tf_pq_write_sample(tf_events *w, const tf_event *ev, uint32_t node, int64_t slice);

#endif
