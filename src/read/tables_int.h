/* tables_int.h - what the event tables' reader (tables.c: the folder, its
 * files, tracks, call paths, collectives) shares with its rows
 * (tables_rows.c: slices, counters, instants, samples, messages, flows).
 * Private to src/read.  docs/format-tables.md. */
#ifndef TRACEFOLD_TABLES_INT_H
#define TRACEFOLD_TABLES_INT_H

#include <stdbool.h>
#include <stdint.h>
#include "tracefold/reader.h"
#include "tracefold/coll.h"
#include "hmap.h"
#include "pq_read.h"

/* The most columns a table's rows are read from. */
#define TIN_MAXCOLS 24

/* A column a table's rows are read from: need 1 = the table is refused
 * without it; alt: another column that will do instead (-1 none). */
typedef struct tin_col {
	const char *name;
	bool need;
	int alt;
} tin_col;

/* One open file of a table, its columns bound (col[i] -1: absent). */
typedef struct tin_file {
	pq_reader *r;
	int col[TIN_MAXCOLS];
	int64_t dir_rank;      /* a rank=N folder above it, -1 none */
} tin_file;

/* A slice held back: those of a track that end together come in close
 * order (innermost first) and go out outermost first (tables_rows.c). */
typedef struct tin_pend {
	tf_event ev;
	int64_t end;           /* its end as the row says it */
	int32_t depth;
} tin_pend;

typedef struct tin_tk {
	uint32_t id;           /* the ctx's */
	tin_pend *pend;
	uint32_t npend, cap;
} tin_tk;

/* A call path (call_paths), for the samples' stacks. */
typedef struct tin_path {
	int64_t parent;        /* call_path_id, -1 root */
	tf_str name;
} tin_path;

typedef struct tin {
	const char *path;      /* the folder (or file) the user named */
	char root[4096];       /* the tables' folder (a lake's, for LAKE/<table>/run=NAME) */
	char run[256];         /* a lake's run: its tables are <table>/run=NAME; "" none */
	tf_str *sbuf;          /* a sample's frames, leaf first */
	uint32_t capsbuf;
	uint32_t input;
	tf_ctx *ctx;
	tf_sink *sink;
	tf_error *err;
	tf_strtab *st;
	tf_hmap track_of;      /* track_id -> tracks index */
	tin_tk *tracks;
	uint32_t ntracks, captracks;
	tf_hmap path_of;       /* call_path_id -> paths index */
	tin_path *paths;
	uint32_t npaths, cappaths;
	tf_hmap coll_of;       /* slice_id -> colls index */
	tf_coll_facts *colls;
	uint32_t ncolls, capcolls;
	uint64_t index;        /* events decoded, for messages */
	uint64_t emitted;
	bool diag_done;        /* the repairs of tracefold.diagnostics were added */
	bool single;           /* path is one Parquet file of slices */
} tin;

/* The files of table name under the folder (any depth), sorted; *n of
 * them (malloc'd; tin_files_free).  0, or a negative TF_E*. */
int tin_files(tin *t, const char *table, char ***out, uint32_t *n);
void tin_files_free(char **v, uint32_t n);
/* Opens file and binds cols[0..ncols); a needed column that is absent
 * (and has no alt) is an error naming the file and column. */
int tin_open(tin *t, const char *file, const char *table, const tin_col *cols, int ncols, tin_file *f);
/* The ctx track of a table's track_id (a track made from what the row
 * says when the tracks table lacks it: thread, rank). */
int tin_track(tin *t, int64_t track_id, const char *thread, size_t tlen, int64_t rank, uint32_t *out);
tf_str tin_intern(tin *t, const char *s, size_t n);
/* The row's string of column c (0 when null or absent). */
tf_str tin_str(tin *t, const tin_file *f, int c);
bool tin_have(const tin_file *f, int c);
int64_t tin_i64(const tin_file *f, int c, int64_t dflt);
/* Passes ev on (its index set). */
int tin_emit(tin *t, tf_event *ev);

/* tables_rows.c */
int tin_slices(tin *t, const char *file);
int tin_flush_all(tin *t);
int tin_counters(tin *t, const char *file);
int tin_instants(tin *t, const char *file);
int tin_samples(tin *t, const char *file);
int tin_messages(tin *t, const char *file);
int tin_flows(tin *t, const char *file);

#endif
