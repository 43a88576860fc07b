/* pq_int.h - the parts of the Parquet writer below pq.c (private to
 * src/parquet/; their bytes go into a tf_buf, buf.h): the Thrift compact
 * protocol encoder (pq_thrift.c) and the value encodings (pq_enc.c): PLAIN bit-packed
 * booleans, the RLE/bit-packed hybrid and DELTA_BINARY_PACKED.  Format
 * facts and their sources: docs/parquet.md. */
#ifndef TRACEFOLD_PQ_INT_H
#define TRACEFOLD_PQ_INT_H
#include "buf.h"
#include "hmap.h"
#include "pq.h"
#include "tracefold/io.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- Thrift compact protocol (pq_thrift.c) */
enum {
	PQ_T_TRUE = 1, PQ_T_FALSE = 2, PQ_T_BYTE = 3, PQ_T_I16 = 4, PQ_T_I32 = 5,
	PQ_T_I64 = 6, PQ_T_DOUBLE = 7, PQ_T_BINARY = 8, PQ_T_LIST = 9, PQ_T_SET = 10,
	PQ_T_MAP = 11, PQ_T_STRUCT = 12,
};
#define PQ_T_DEPTH 16

/* One struct being written: the last field id per nesting level (field
 * headers carry the id as a delta from the previous one). */
typedef struct pq_thrift {
	tf_buf *b;
	int16_t last[PQ_T_DEPTH];
	int depth;
} pq_thrift;

void pq_t_init(pq_thrift *t, tf_buf *b);
void pq_t_i16(pq_thrift *t, int16_t id, int16_t v);
void pq_t_i32(pq_thrift *t, int16_t id, int32_t v);
void pq_t_i64(pq_thrift *t, int16_t id, int64_t v);
void pq_t_bool(pq_thrift *t, int16_t id, bool v);
void pq_t_bin(pq_thrift *t, int16_t id, const void *p, size_t n);
void pq_t_str(pq_thrift *t, int16_t id, const char *s);
/* A field holding a struct: pq_t_begin, its fields, pq_t_end. */
void pq_t_begin(pq_thrift *t, int16_t id);
void pq_t_end(pq_thrift *t);
/* A list field's header; then n elements: structs (pq_t_elem_begin ..
 * pq_t_end), i32s (pq_t_elem_i32) or binaries (pq_t_elem_bin). */
void pq_t_list(pq_thrift *t, int16_t id, int elem_type, size_t n);
void pq_t_elem_begin(pq_thrift *t);
void pq_t_elem_i32(pq_thrift *t, int32_t v);
void pq_t_elem_bin(pq_thrift *t, const void *p, size_t n);
/* The stop byte of the outermost struct. */
void pq_t_stop(pq_thrift *t);

/* ---- Encodings (pq_enc.c) */

/* Bits needed for v (0 for 0). */
int pq_bits(uint64_t v);
/* LSB-first bit packing, as the RLE/bit-packed hybrid, PLAIN booleans and
 * DELTA_BINARY_PACKED miniblocks use it. */
typedef struct pq_bitw {
	tf_buf *b;
	uint64_t acc;
	int nacc;
} pq_bitw;
void pq_bits_put(pq_bitw *w, uint64_t v, int width);
/* Pads with zero bits to a byte boundary. */
void pq_bits_flush(pq_bitw *w);

/* The RLE/bit-packed hybrid of n values of width bits (no length prefix,
 * no bit-width byte): runs of 8 or more equal values as RLE runs, the rest
 * in bit-packed groups of 8 (the last padded with zeros).  v holds n
 * unsigned integers of vsize bytes each (1 or 4). */
void pq_rle_hybrid(tf_buf *b, const void *v, int vsize, size_t n, int width);
/* DELTA_BINARY_PACKED of n signed integers of vsize bytes each (4: an
 * INT32 column, the deltas wrap at 32 bits; 8: INT64, they wrap at 64):
 * blocks of 128 values in 4 miniblocks of 32. */
void pq_delta(tf_buf *b, const void *v, int vsize, size_t n);


/* ---- the writer's state, shared by pq.c (values, pages, row groups) and
 * pq_meta.c (statistics, footer) */
#define PQ_DEFAULT_RG_ROWS 122880u  /* DuckDB's own row group size */
/* A row group also ends when its buffered values would hold PQ_RG_BYTES
 * of memory as they are (the fixed widths, sizeof(sref) + length per
 * string, a byte per row of an OPTIONAL column; pq_opts.row_group_bytes,
 * 0 = this): each table's buffer stays under about twice that (the arrays
 * grow by doubling) however many rows it gets, and in fact holds far less
 * (the values coded, a dictionary column's repeated strings once: pq.c);
 * rows of long strings give smaller row groups.  docs/parquet.md. */
#define PQ_RG_BYTES ((size_t)8 << 20)
#define PQ_PAGE_BYTES ((size_t)1 << 20)  /* a data page holds about 1 MiB (PLAIN size) */
#define PQ_PAGE_ROWS ((size_t)1 << 20)   /* and at most 1Mi rows */
#define PQ_DICT_BYTES ((size_t)1 << 20)  /* a dictionary past 1 MiB (PLAIN) ... */
#define PQ_DICT_ENTRIES 65536u           /* ... or 64Ki entries: the chunk is PLAIN */
#define PQ_STAT_BYTES 64                 /* string min/max truncated to 64 bytes */

/* parquet.thrift enums */
enum { T_BOOLEAN = 0, T_INT32 = 1, T_INT64 = 2, T_DOUBLE = 5, T_BYTE_ARRAY = 6 };
enum { E_PLAIN = 0, E_RLE = 3, E_DELTA_BINARY_PACKED = 5, E_RLE_DICTIONARY = 8 };
enum { P_DATA = 0, P_DICT = 2 };
enum { C_UTF8 = 0, C_JSON = 19 };
enum { Z_UNCOMPRESSED = 0, Z_GZIP = 2, Z_ZSTD = 6 };

typedef struct sref {
	uint64_t off;   /* in the column's arena */
	uint32_t len;
} sref;

typedef struct colbuf {
	unsigned char *code;  /* non-null values as put, coded (pq.c): integers and a
	                       * string's offset as their zigzagged difference from
	                       * the value before, a string's length, as LEB128;
	                       * doubles and booleans as they are */
	size_t code_n, code_cap;
	uint64_t prev;        /* the last integer or string offset coded */
	unsigned char *vals;  /* while its chunk is written: the values decoded, fixed
	                       * width, or sref for strings (pq_file.dec) */
	size_t nvals;
	uint8_t *def;         /* OPTIONAL: 1 = value, 0 = null, one per row */
	size_t def_cap;
	char *arena;
	size_t arena_n, arena_cap;
	struct pq_seen *seen; /* a dictionary column's strings put in this row group
	                       * (seen_cap slots, by the caller's pointer and length):
	                       * a string put again is kept once in the arena */
	uint32_t seen_cap;    /* PQ_SEEN_MIN, doubled up to PQ_SEEN as the column
	                       * fills: a file of few values (a partition's) keeps
	                       * a small table per column */
	bool set;             /* given in the current row */
} colbuf;

/* A string of a dictionary column as last put: the caller's pointer and
 * length, and where its bytes are in the arena (checked equal before use:
 * the caller's pointer may since hold another string). */
struct pq_seen {
	const char *p;
	uint64_t off;
	uint32_t len;
};
#define PQ_SEEN 512
#define PQ_SEEN_MIN 16

/* Serialized statistics (kept past the row group). */
typedef struct pq_stats {
	int64_t nulls;
	bool has_min, has_max, min_exact, max_exact;
	uint8_t minn, maxn;
	unsigned char min[PQ_STAT_BYTES], max[PQ_STAT_BYTES];
} pq_stats;

/* Statistics as they are gathered over a page. */
typedef struct live_stats {
	int64_t nulls;
	bool has;
	int64_t imin, imax;
	double dmin, dmax;
	const char *smin, *smax;
	uint32_t sminn, smaxn;
} live_stats;

typedef struct chunk_meta {
	int64_t start, data_off, dict_off;  /* dict_off -1: none */
	int64_t uncomp, comp, num_values;
	int data_enc, data_pages;
	pq_stats st;
} chunk_meta;

typedef struct rg_meta {
	int64_t rows, off, uncomp, comp;
} rg_meta;

struct pq_file {
	tf_out *out;
	const pq_col *cols;
	int ncols;
	int codec, level;
	uint32_t rg_rows;
	size_t rg_max_bytes;     /* row_group_bytes */
	char *created_by;
	colbuf *cb;
	uint32_t nrows;          /* in the current row group */
	size_t rg_bytes;         /* memory of the buffered values (PQ_RG_BYTES) */
	uint64_t total_rows;
	int64_t pos;             /* bytes written */
	chunk_meta *chunks;      /* ncols per row group */
	size_t chunks_cap;
	rg_meta *rgs;
	size_t nrg, rgs_cap;
	char **kv;               /* key, value, key, value ... */
	size_t nkv, kv_cap;
	int rc;                  /* the first error, kept */
	tf_error err;
	char path[512];
	/* scratch, reused per chunk and page */
	tf_buf page, comp, hdr;
	unsigned char *dec;           /* a column's values decoded (colbuf.vals) */
	size_t dec_cap;
	uint32_t *idx, *dent, *dnext; /* dictionary index per value; entry -> first value; chain */
	size_t idx_cap, dent_cap, dnext_cap;
	tf_hmap dmap;                 /* string hash -> first entry */
};


extern const size_t pq_type_width[];
extern const int pq_phys_type[];
int pq_fail(pq_file *f, int code, const char *fmt, const char *what);
int pq_oom(pq_file *f);
void pq_emit(pq_file *f, const void *p, size_t n);
/* statistics (pq_meta.c) */
sref pq_sref_at(const colbuf *cb, size_t i);
void pq_live_add(live_stats *ls, int type, const colbuf *cb, size_t i);
void pq_live_merge(live_stats *a, const live_stats *b, int type);
void pq_le_bytes(unsigned char *d, uint64_t v, int n);
void pq_stats_fix(pq_stats *s, const live_stats *ls, int type);
void pq_stats_thrift(pq_thrift *t, int16_t id, const pq_stats *s, int type);
/* the footer (pq_meta.c) */
void pq_write_footer(pq_file *f);

#endif
