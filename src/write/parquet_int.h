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
#include "tracefold/agg_sink.h"
#include "hmap.h"
#include "pq.h"
#include "pair.h"

enum { T_SLICES, T_COUNTERS, T_INSTANTS, T_MESSAGES, T_FLOWS, T_TRACKS, T_CALL_PATHS, T_COLL, T_SAMPLES, T_COLL_SLICES, NTABLES };

/* The samples table's columns (parquet_samples.c). */
enum { X_TRACK, X_RANK, X_TS, X_PATH, X_SLICE, X_COUNT, X_TYPE, X_UNIT, X_WEIGHT, X_FRAMES, TF_PQ_SAMPLES_NCOLS };
extern const pq_col tf_pq_samples_cols[TF_PQ_SAMPLES_NCOLS];

/* --partition: rank folders, and below them step or time folders
 * (parquet_lake.c). */
enum { PQ_SUB_NONE, PQ_SUB_STEP, PQ_SUB_TIME };
typedef struct pq_partition {
	bool by_rank;          /* rank=N folders */
	bool none;             /* --partition none given */
	int sub;               /* PQ_SUB_*: step=S or time=T folders below the rank's */
	int64_t width_ns;      /* PQ_SUB_TIME: the bucket width */
} pq_partition;
/* --partition rank | none | rank,step | rank,time=WIDTH (WIDTH: a number
 * and ns, us, ms, s, m or h).  TF_EUSAGE. */
int tf_pq_partition_parse(pq_partition *p, const char *v, tf_error *err);
/* The writer's needs_steps and lake_keys (writer.h), of its options conf,
 * which start with their pq_partition (parquet.c parquet_conf). */
bool tf_pq_needs_steps(const void *conf);
const char *tf_pq_lake_keys(const void *conf, const char **why);
/* A small number for v in m (*n: the next one, when new); UINT32_MAX
 * when out of memory. */
uint32_t tf_pq_dense(tf_hmap *m, uint32_t *n, int64_t v);
/* The messages and flows tables (parquet_msgs.c): their columns, and the
 * pairs of pair.c written as rows (u: the tf_events). */
enum { TF_PQ_MESSAGES_NCOLS = 9, TF_PQ_FLOWS_NCOLS = 9 };
extern const pq_col tf_pq_messages_cols[TF_PQ_MESSAGES_NCOLS];
extern const pq_col tf_pq_flows_cols[TF_PQ_FLOWS_NCOLS];
int tf_pq_message_pair(void *u, const tf_pend *s, const tf_pend *r);
int tf_pq_flow_pair(void *u, const tf_pend *s, const tf_pend *e);

/* The collectives table's columns (parquet_coll.c). */
enum { CL_ID, CL_MATCH, CL_KIND, CL_COMM, CL_GROUP, CL_ROOT, CL_BYTES, CL_BRECV, CL_NELEMS, CL_DTYPE, CL_RANK,
       CL_TRACK, CL_SLICE, CL_BEGIN, CL_END, CL_GBEGIN, CL_GEND, CL_GSLICE, TF_PQ_COLL_NCOLS };
extern const pq_col tf_pq_coll_cols[TF_PQ_COLL_NCOLS];
typedef struct tf_pq_coll tf_pq_coll;
/* The collective_slices table (parquet_coll.c): the facts of the
 * collective each slice is or is in, as the profile's labels have them
 * (what the tables reader notes back, src/read/tables.c). */
enum { CS_SLICE, CS_RANK, CS_COLL, CS_BYTES, CS_NELEMS, CS_DTYPE, CS_PG, CS_RANKS, CS_ROOT, CS_BRECV, TF_PQ_CSL_NCOLS };
extern const pq_col tf_pq_csl_cols[TF_PQ_CSL_NCOLS];

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
	int sub;               /* PQ_SUB_* (pq_partition) */
	int64_t width_ns;
	const tf_step *steps;  /* PQ_SUB_STEP: the run's steps */
	size_t nsteps;
	tf_hmap rank_ix, sub_ix; /* a rank / step or bucket -> a small number, for the files' keys */
	uint32_t nrank_ix, nsub_ix;
	const char *run, *cmdline; /* a lake's run: its runs table (parquet_lake.c) */
	int64_t first_ns, last_ns; /* the run's time span, over every row's times */
	uint64_t nslices;
	const char *const *inputs, *const *input_formats;
	int ninputs;
	table tab[NTABLES];
	trackst *tk;
	uint32_t ntk;
	int64_t next_slice;
	int part, nparts;      /* the part-N.parquet of each table (a distributed run's process), of nparts */
	bool distributed;      /* ids are part << 40 | the process's own; tracks: only its own */
	int64_t id_base;       /* part << 40 when distributed, else 0 */
	tf_pairs pairs;        /* messages and flows waiting for the other end (flows past
	                        * half of --sort-mem set aside: pair.h) */
	bool pairs_warned;     /* said that the flows stay in memory (no temporary file) */
	tf_coll_spans *cspans; /* the collective of each span */
	tf_pq_coll *coll;      /* the collective calls (made at the first) */
	tf_sample_paths *spaths; /* the call paths of samples (made at the first) */
	int rc;                /* first failure: every later hook fails */
	tf_error err;
} tf_events;

/* The open file of table t for rows of that rank (opened on first use);
 * NULL after a failure (w->rc, kept in the ctx).  pqw_file_at: for a row
 * of that track at ts (the step or time folder; INT64_MIN: none, -1). */
pq_file *pqw_file(tf_events *w, int t, int64_t rank);
pq_file *pqw_file_at(tf_events *w, int t, int64_t rank, uint32_t track, int64_t ts);
/* The step or time folder of a row of track at ts (PQ_SUB_*): its value,
 * -1 outside every step. */
int64_t tf_pq_sub(const tf_events *w, uint32_t track, int64_t ts);
/* The run's time span grown by ts (the runs table). */
static inline void pqw_span(tf_events *w, int64_t ts)
{
	if (ts < w->first_ns)
		w->first_ns = ts;
	if (ts > w->last_ns)
		w->last_ns = ts;
}
/* The runs table of a lake's run: DIR/runs/part-0.parquet (w->run). */
int tf_pq_write_run(tf_events *w, const char *created_by);
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

/* The collectives table (parquet_coll.c): every CPU span's open, every
 * span's close (id: its slice id, rec: tf_coll_spans_close's record), the
 * end of each input. */
int tf_pq_coll_open(tf_events *w, const tf_span *s);
int tf_pq_coll_close(tf_events *w, const tf_span *s, int64_t id, uint32_t rec);
/* Slice id's row of collective_slices: rec, the facts of the collective it
 * is or is in (tf_coll_spans_close). */
int tf_pq_coll_slice(tf_events *w, const tf_span *s, int64_t id, uint32_t rec);
/* The end of an input: its calls still waiting for a kernel are written
 * (input UINT32_MAX: every one left, at the end of the run). */
int tf_pq_coll_end_input(tf_events *w, uint32_t input);
void tf_pq_coll_free(tf_pq_coll *c); /* NULL-safe */

#endif
