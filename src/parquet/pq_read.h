/* pq_read.h - a streaming Parquet file reader (src/parquet/pq_read.c): the
 * footer is read at open, then the rows of the columns a caller asked for,
 * one row group at a time (memory: one row group of those columns, decoded).
 *
 * Reads what tracefold's own writer (pq.h) and DuckDB's COPY ... (FORMAT
 * parquet) write: flat schemas (no nesting: repetition level 0), physical
 * types BOOLEAN, INT32, INT64, FLOAT, DOUBLE, BYTE_ARRAY; encodings PLAIN,
 * PLAIN_DICTIONARY / RLE_DICTIONARY, RLE (levels, booleans),
 * DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY,
 * BYTE_STREAM_SPLIT; DATA_PAGE (v1) and DATA_PAGE_V2; codecs UNCOMPRESSED,
 * SNAPPY, GZIP, ZSTD.  Anything else is refused with an error naming the
 * file, the byte offset and the column.
 *
 * Format facts relied on: the Apache Parquet format specification
 * (parquet.thrift, Encodings.md, Compression.md); see docs/parquet.md. */
#ifndef TRACEFOLD_PQ_READ_H
#define TRACEFOLD_PQ_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "tracefold/err.h"

typedef struct pq_reader pq_reader;

/* A column's value type as the reader hands it out (pq.h's enum pq_type:
 * PQ_INT64 for INT64 and INT32 columns alike, PQ_DOUBLE for DOUBLE and
 * FLOAT, PQ_STRING for BYTE_ARRAY, PQ_BOOL), or -1 for a column of a type
 * the reader cannot hand out (it may still be present and unused). */

/* Opens path and reads its footer.  TF_EFORMAT (path and byte offset in err)
 * when it is not a Parquet file or its footer is damaged; TF_EIO when it
 * cannot be read. */
int pq_ropen(pq_reader **out, const char *path, tf_error *err);
/* The columns (leaf columns of a flat schema, in file order). */
int pq_rncols(const pq_reader *r);
const char *pq_rcol_name(const pq_reader *r, int col);
int pq_rcol_type(const pq_reader *r, int col);
bool pq_rcol_nullable(const pq_reader *r, int col);
/* The index of the column of that name, or -1. */
int pq_rcol_find(const pq_reader *r, const char *name);
/* The file's row count (the footer's num_rows). */
uint64_t pq_rrows(const pq_reader *r);
/* A key-value metadata value (borrowed, NUL-terminated), or NULL. */
const char *pq_rkv(const pq_reader *r, const char *key);
/* Asks for column col's values: only asked-for columns are decoded.  Call
 * before the first pq_rnext.  Returns 0, or TF_EFORMAT when its type cannot
 * be handed out. */
int pq_ruse(pq_reader *r, int col, tf_error *err);
/* Moves to the next row: 1 a row, 0 the end, or a negative TF_E* with err
 * filled: its path, the byte offset of the damage (a page header's, a
 * footer field's) and a message naming the column ("column 'C': ...";
 * tf_error_format: "cannot read 'PATH' at byte N: column 'C': ..."). */
int pq_rnext(pq_reader *r, tf_error *err);
/* The current row's value of an asked-for column.  A null reads as 0,
 * 0.0, false or an empty string: test pq_rnull first. */
bool pq_rnull(const pq_reader *r, int col);
/* pq_ri64 of a DOUBLE column: the value saturated to int64 (NaN: 0); pq_rf64
 * of an integer column: the nearest double. */
int64_t pq_ri64(const pq_reader *r, int col);
double pq_rf64(const pq_reader *r, int col);
bool pq_rbool(const pq_reader *r, int col);
/* Borrowed until the next row group is decoded (pq_rnext may move to it);
 * not NUL-terminated. */
const char *pq_rstr(const pq_reader *r, int col, size_t *len);
/* The row's index in the file (0-based), for messages. */
uint64_t pq_rrow(const pq_reader *r);
const char *pq_rpath(const pq_reader *r);
/* Frees r (NULL-safe). */
void pq_rclose(pq_reader *r);

#endif
