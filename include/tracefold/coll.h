/* coll.h - what a trace says of its collectives (NCCL, RCCL, gloo):
 * the facts a reader found on a region, kept beside the event stream so
 * that no event, sorter record or span grows for traces without any.
 *
 *   chrome reader --tf_coll_note(track, ts, name, facts)--> tf_coll (in the ctx)
 *   aggregate sink --tf_coll_find(span's track, start, name)--> labels
 *
 *   OTF2 reader --tf_coll_note (MpiCollectiveEnd: op, communicator, root,
 *   sizes) on the region its MpiCollectiveBegin was in
 *   Parquet writer --the collectives table, one row per call (parquet_coll.c)
 *
 * A record is one distinct set of facts, numbered from 1 (0: none);
 * equal facts share a record, so the label sets stay as few as the
 * distinct (collective, size, dtype, group) of the run (docs/collectives.md). */
#ifndef TRACEFOLD_COLL_H
#define TRACEFOLD_COLL_H

#include <stdint.h>
#include "strtab.h"
#include "agg.h"
#include "ctx.h"
#include "span.h"

typedef struct tf_coll tf_coll;

/* The facts of one collective; 0 or -1 where unknown. */
typedef struct tf_coll_facts {
	tf_str name;      /* the collective, normalized: all_reduce, all_gather, ... */
	tf_str dtype;     /* element type as the trace names it (Float, BFloat16) */
	tf_str pg;        /* process group name */
	tf_str pg_ranks;  /* its ranks, "[0,1]" */
	int64_t bytes;    /* message size in bytes, -1 unknown */
	int64_t nelems;   /* message size in elements, -1 unknown (used when bytes is) */
	int64_t root;     /* the root rank (MPI: OTF2's root), -1 none or unknown */
	int64_t bytes_recv; /* bytes received (MPI: OTF2's sizeReceived), -1 unknown */
} tf_coll_facts;

/* Facts with nothing known. */
#define TF_COLL_FACTS_NONE ((tf_coll_facts){ 0, 0, 0, 0, -1, -1, -1, -1 })

/* The most labels a record gives (tf_coll_labels). */
#define TF_COLL_MAX_LABELS 5

tf_coll *tf_coll_new(void);
void tf_coll_free(tf_coll *c); /* NULL-safe */

/* The region of track that starts at ts_ns and is named name has facts f
 * (copied).  0 or TF_ENOMEM. */
int tf_coll_note(tf_coll *c, uint32_t track, int64_t ts_ns, tf_str name, const tf_coll_facts *f);
/* The record of such a region, 0 when none was noted. */
uint32_t tf_coll_find(const tf_coll *c, uint32_t track, int64_t ts_ns, tf_str name);
/* The record of outer's facts with inner's known facts over them (a
 * region inside a collective, or a kernel it launched); 0 when both are
 * 0, (uint32_t)-1 on allocation failure. */
uint32_t tf_coll_merge(tf_coll *c, uint32_t outer, uint32_t inner);
/* A record's labels (collective, comm_bytes or comm_nelems, dtype, pg,
 * pg_ranks: those known) into out (room for TF_COLL_MAX_LABELS);
 * returns how many. */
int tf_coll_labels(const tf_coll *c, uint32_t rec, tf_strtab *st, tf_label *out);

/* A record's facts (rec from 1 to the number of records), NULL for 0. */
const tf_coll_facts *tf_coll_get(const tf_coll *c, uint32_t rec);

/* The collective of each span, for a span consumer (the aggregate's, the
 * Parquet writer's): a region's own facts over those of the collective
 * regions it is in (same track), and a GPU activity's own over those of
 * the collective its launch (args.correlation) was in.  Feed it every
 * span's open and close in the order the consumer gets them; it keeps a
 * stack per track and the launches seen inside collectives.  The ctx's
 * tf_coll is looked up at each call: a run without collectives costs one
 * NULL test per span. */
typedef struct tf_coll_spans tf_coll_spans;
tf_coll_spans *tf_coll_spans_new(tf_ctx *ctx);
void tf_coll_spans_free(tf_coll_spans *cs); /* NULL-safe */
int tf_coll_spans_open(tf_coll_spans *cs, const tf_span *s);
/* The record of the closing span s into *rec_out, 0 when it is in none. */
int tf_coll_spans_close(tf_coll_spans *cs, const tf_span *s, uint32_t *rec_out);

/* The normalized name of a collective from a name as traces spell it
 * ("allreduce", "AllReduce", "_allgather_base", "all_gather_into_tensor"):
 * lower case, the snake_case of the c10d op (docs/collectives.md), into
 * buf (NUL-terminated); its length. */
size_t tf_coll_normalize(const char *s, size_t n, char *buf, size_t cap);
/* Bytes per element of a c10 ScalarType name (Float 4, BFloat16 2), 0 unknown. */
int tf_coll_dtype_size(const char *s, size_t n);

#endif
