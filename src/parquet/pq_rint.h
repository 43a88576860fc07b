/* pq_rint.h - the parts of the Parquet reader (pq_read.h) below pq_read.c,
 * private to src/parquet/: the Thrift compact protocol decoder
 * (pq_thrift.c), the value decoders (pq_dec.c: bit unpacking, the
 * RLE/bit-packed hybrid, DELTA_BINARY_PACKED), the snappy decompressor
 * (pq_snappy.c) and the column chunk decoder (pq_rpage.c).  Format facts
 * and their sources: docs/parquet.md, "Reading". */
#ifndef TRACEFOLD_PQ_RINT_H
#define TRACEFOLD_PQ_RINT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "pq_read.h"

/* ---- Thrift compact protocol decoder (pq_thrift.c).  Every call checks
 * the bounds; a damaged input sets bad and later calls return zeros. */
typedef struct pq_tin {
	const uint8_t *p, *end;
	bool bad;
	int depth;
} pq_tin;

uint64_t pq_tin_varint(pq_tin *t);
int64_t pq_tin_zz(pq_tin *t);
/* A struct's next field: 0 at its stop byte (or when bad), else 1 with
 * *type (PQ_T_*) and *id (last: the previous field's id, updated). */
int pq_tin_field(pq_tin *t, int16_t *last, int *type, int16_t *id);
/* A field's value: an integer (i8..i64), a boolean (given its field type)
 * or a binary (borrowed). */
int64_t pq_tin_int(pq_tin *t, int type);
bool pq_tin_bool(pq_tin *t, int type);
const uint8_t *pq_tin_bin(pq_tin *t, size_t *n);
/* A list header: its element count, *etype the elements' type. */
size_t pq_tin_list(pq_tin *t, int *etype);
/* Skips a value of that type (structs and lists nested at most 32 deep). */
void pq_tin_skip(pq_tin *t, int type);

/* ---- decoders (pq_dec.c).  Each returns the bytes read, or -1 when the
 * input is short or invalid (*why says which). */

/* The RLE/bit-packed hybrid (no length prefix): n values of width bits
 * (0..32) into out. */
ptrdiff_t pq_rle_dec(const uint8_t *p, size_t len, int width, uint32_t *out, size_t n, const char **why);
/* DELTA_BINARY_PACKED: up to max values (the header's count must not be
 * more) into out as 64-bit (is32: wrapped at 32 bits, sign extended);
 * *count: the header's count. */
ptrdiff_t pq_delta_dec(const uint8_t *p, size_t len, bool is32, int64_t *out, size_t max, size_t *count,
		       const char **why);
/* Snappy raw format (pq_snappy.c): exactly outlen bytes, or -1. */
int pq_snappy_dec(const uint8_t *p, size_t len, uint8_t *out, size_t outlen, const char **why);
/* The uncompressed length a snappy block says it holds, or -1. */
int64_t pq_snappy_len(const uint8_t *p, size_t len);

/* ---- the reader's state */
/* A row group is decoded whole: one of more rows is refused (a bound on
 * the memory a damaged or hostile footer can ask for). */
#define PQ_RMAX_RG_ROWS (4u << 20)

enum { PQR_BOOL = 0, PQR_INT32 = 1, PQR_INT64 = 2, PQR_INT96 = 3, PQR_FLOAT = 4, PQR_DOUBLE = 5,
       PQR_BYTE_ARRAY = 6, PQR_FLBA = 7 };

typedef struct pq_rchunk {
	int64_t start, len;     /* the chunk's bytes in the file */
	int64_t num_values;
	int codec;
} pq_rchunk;

typedef struct pq_rcol {
	char *name;
	int phys;               /* PQR_* */
	int type;               /* enum pq_type as handed out, or -1 */
	bool nullable, used;
	int64_t schema_off;     /* its SchemaElement's end in the file (messages) */
	/* the current row group, decoded: v holds int64 bits, double bits,
	 * 0/1, or a string's offset in arena (with len) */
	uint64_t *v;
	uint32_t *len;
	uint8_t *null;
	size_t cap;
	char *arena;
	size_t arena_n, arena_cap;
	/* the dictionary of the current chunk: offsets into v-like slots */
	uint64_t *dv;
	uint32_t *dlen;
	size_t ndict, dcap;
} pq_rcol;

struct pq_reader {
	FILE *f;
	char *path;
	int64_t size;
	int ncols;
	pq_rcol *cols;
	uint64_t rows;
	int nrg;
	int64_t *rg_rows;        /* per row group */
	pq_rchunk *chunks;       /* nrg * ncols */
	char **kv;               /* key, value, ... */
	size_t nkv;
	int rg;                  /* the current row group, -1 before the first */
	uint64_t rg_n, rg_i;     /* rows in it, the current one (1-based after pq_rnext) */
	uint64_t row0;           /* the file row of its first row */
	bool started, done;
	/* scratch */
	uint8_t *raw, *page;
	size_t raw_cap, page_cap;
	uint32_t *idx;
	size_t idx_cap;
	int64_t *ival;
	size_t ival_cap;
};

/* Reads and decodes row group g of every used column (pq_rpage.c). */
int pq_rload(pq_reader *r, int g, tf_error *err);
/* n bytes at file offset off (pq_read.c) */
int pq_rread(pq_reader *r, int64_t off, void *buf, size_t n, tf_error *err);
int pq_rfail(const pq_reader *r, tf_error *err, int64_t off, int col, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

#endif
