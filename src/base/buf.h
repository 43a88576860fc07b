/* buf.h - the one growable byte buffer, and LEB128 varints (7 bits a byte,
 * low group first, at most 10 bytes: protobuf, the Thrift compact
 * protocol, Parquet's encodings, packed aggregates) put into it or into
 * raw bytes, and read back with bounds checks. */
#ifndef TRACEFOLD_BUF_H
#define TRACEFOLD_BUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A growable byte buffer; { 0 } is an empty one.  A failed growth sets oom
 * and drops the bytes (and every later put), so a writer checks oom once,
 * at the end of a page, a footer or a message. */
typedef struct tf_buf {
	unsigned char *p;
	size_t n, cap;
	bool oom;
} tf_buf;

/* Frees the bytes; the buffer is empty again (oom stays as it was). */
void tf_buf_free(tf_buf *b);
/* Makes room for n more bytes; returns a pointer to them (b->n is not
 * moved: the caller adds what it wrote) or NULL with oom set. */
unsigned char *tf_buf_room(tf_buf *b, size_t n);
void tf_buf_put(tf_buf *b, const void *p, size_t n);
void tf_buf_byte(tf_buf *b, unsigned v);
void tf_buf_le32(tf_buf *b, uint32_t v);
void tf_buf_le64(tf_buf *b, uint64_t v);
/* An unsigned LEB128 varint. */
void tf_buf_varint(tf_buf *b, uint64_t v);
/* A signed value as the varint of its zigzag encoding. */
void tf_buf_svarint(tf_buf *b, int64_t v);

#define TF_VARINT_MAX 10 /* bytes of the longest varint (a uint64_t) */

static inline uint64_t tf_zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t tf_unzigzag(uint64_t u)
{
	return (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
}

/* The bytes v takes as a varint (1 to TF_VARINT_MAX). */
static inline size_t tf_varint_size(uint64_t v)
{
	size_t n = 1;
	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

/* Writes v as a varint at d, which has room for TF_VARINT_MAX bytes;
 * returns the bytes written. */
static inline size_t tf_varint_encode(unsigned char *d, uint64_t v)
{
	size_t n = 0;
	while (v >= 0x80) {
		d[n++] = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	d[n++] = (unsigned char)v;
	return n;
}

/* What tf_varint_get found wrong. */
enum {
	TF_VARINT_TRUNCATED = -1, /* the bytes end inside the varint */
	TF_VARINT_TOO_LARGE = -2, /* a 10th byte with bits past the 64th */
	TF_VARINT_TOO_LONG = -3,  /* an 11th byte */
};

/* Reads the varint at p[*i] (p holds n bytes) into *v and moves *i past
 * it; returns 0 or a TF_VARINT_* (then *v is 0 and *i is past the bytes
 * looked at). */
static inline int tf_varint_get(const unsigned char *p, size_t n, size_t *i, uint64_t *v)
{
	uint64_t x = 0;
	*v = 0;
	for (int sh = 0; sh < 70; sh += 7) {
		if (*i >= n)
			return TF_VARINT_TRUNCATED;
		unsigned char b = p[(*i)++];
		if (sh == 63 && (b & 0x7e))
			return TF_VARINT_TOO_LARGE;
		x |= (uint64_t)(b & 0x7f) << sh;
		if (!(b & 0x80)) {
			*v = x;
			return 0;
		}
	}
	return TF_VARINT_TOO_LONG;
}

#endif
