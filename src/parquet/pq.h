/* pq.h - a streaming Parquet file writer (private to src/write/): rows are
 * appended one value per column, buffered for one row group at a time
 * (bounded memory: a row group ends at row_group_rows rows or at
 * row_group_bytes of buffered values), encoded and compressed per column
 * chunk, and the footer (Thrift compact protocol FileMetaData) is written
 * at close.  The file is written through tf_out: a temporary file renamed
 * only on success.
 *
 * Format facts relied on: the Apache Parquet format specification
 * (parquet.thrift, Encodings.md, Compression.md); see docs/parquet.md. */
#ifndef TRACEFOLD_PQ_H
#define TRACEFOLD_PQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "tracefold/err.h"

typedef struct pq_file pq_file;

enum pq_type { PQ_INT64, PQ_INT32, PQ_DOUBLE, PQ_STRING, PQ_BOOL };
enum pq_codec { PQ_UNCOMPRESSED, PQ_ZSTD, PQ_GZIP };

typedef struct pq_col {
	const char *name;
	int type;          /* enum pq_type */
	bool nullable;     /* OPTIONAL (definition levels) or REQUIRED */
	bool dict;         /* PQ_STRING: RLE_DICTIONARY (PLAIN when the dictionary grows past a bound) */
	bool delta;        /* PQ_INT64/PQ_INT32: DELTA_BINARY_PACKED (sorted timestamps, ids) */
	bool json;         /* PQ_STRING: logical type JSON */
} pq_col;

typedef struct pq_opts {
	int codec;                /* enum pq_codec */
	int level;                /* 0 = the codec's default */
	uint32_t row_group_rows;  /* 0 = 122,880 (DuckDB's row group size) */
	const char *created_by;   /* the footer's created_by (copied); NULL = "tracefold" */
	size_t row_group_bytes;   /* 0 = PQ_RG_BYTES (8 MiB): a row group also ends when its
				   * buffered values take this much memory (docs/parquet.md) */
} pq_opts;

/* Opens path for a table of ncols columns (cols and names borrowed until
 * pq_close).  Returns 0 or TF_E* with err filled. */
int pq_open(pq_file **out, const char *path, const pq_col *cols, int ncols, const pq_opts *o, tf_error *err);
/* One value of column col of the current row (columns in any order, each
 * exactly once per row; a null only for nullable columns). */
void pq_i64(pq_file *f, int col, int64_t v);
void pq_i32(pq_file *f, int col, int32_t v);
void pq_f64(pq_file *f, int col, double v);
void pq_bool(pq_file *f, int col, bool v);
void pq_str(pq_file *f, int col, const char *s, size_t n);
void pq_null(pq_file *f, int col);
/* Ends the row; writes a row group when it holds row_group_rows rows or
 * row_group_bytes of values.
 * Returns 0 or TF_E* (kept: pq_close reports it too). */
int pq_end_row(pq_file *f);
/* The file's first failure ("cannot write 'PATH'..."), or NULL: borrowed. */
const tf_error *pq_error(const pq_file *f);
/* A key-value pair of the file's metadata (copied). */
int pq_kv(pq_file *f, const char *key, const char *value);
uint64_t pq_rows(const pq_file *f);
/* Writes the last row group and the footer, renames the file into place;
 * frees f.  A table with zero rows is a valid file.  Returns 0 or TF_E*. */
int pq_close(pq_file *f, tf_error *err);
/* Discards the file (the temporary is removed); frees f.  NULL-safe. */
void pq_abort(pq_file *f);

#endif
