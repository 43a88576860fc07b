/* pq_int.h - the parts of the Parquet writer below pq.c (private to
 * src/write/): a growable byte buffer, the Thrift compact protocol encoder
 * (pq_thrift.c) and the value encodings (pq_enc.c): PLAIN bit-packed
 * booleans, the RLE/bit-packed hybrid and DELTA_BINARY_PACKED.  Format
 * facts and their sources: docs/parquet.md. */
#ifndef TRACEFOLD_PQ_INT_H
#define TRACEFOLD_PQ_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A growable byte buffer.  A failed growth sets oom and drops the bytes;
 * the writer checks oom once per page or footer. */
typedef struct pq_buf {
	unsigned char *p;
	size_t n, cap;
	bool oom;
} pq_buf;

void pq_buf_free(pq_buf *b);
/* Makes room for n more bytes; returns a pointer to them or NULL (oom set). */
unsigned char *pq_buf_room(pq_buf *b, size_t n);
void pq_buf_put(pq_buf *b, const void *p, size_t n);
void pq_buf_byte(pq_buf *b, unsigned v);
void pq_buf_le32(pq_buf *b, uint32_t v);
void pq_buf_le64(pq_buf *b, uint64_t v);
void pq_buf_uleb(pq_buf *b, uint64_t v);
static inline uint64_t pq_zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

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
	pq_buf *b;
	int16_t last[PQ_T_DEPTH];
	int depth;
} pq_thrift;

void pq_t_init(pq_thrift *t, pq_buf *b);
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
	pq_buf *b;
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
void pq_rle_hybrid(pq_buf *b, const void *v, int vsize, size_t n, int width);
/* DELTA_BINARY_PACKED of n signed integers of vsize bytes each (4: an
 * INT32 column, the deltas wrap at 32 bits; 8: INT64, they wrap at 64):
 * blocks of 128 values in 4 miniblocks of 32. */
void pq_delta(pq_buf *b, const void *v, int vsize, size_t n);

#endif
