/* buf.c - the growable byte buffer of buf.h. */
#include <stdlib.h>
#include <string.h>
#include "buf.h"
#include "grow.h"

void tf_buf_free(tf_buf *b)
{
	free(b->p);
	b->p = NULL;
	b->n = b->cap = 0;
}

unsigned char *tf_buf_room(tf_buf *b, size_t n)
{
	if (b->oom)
		return NULL;
	if (n > SIZE_MAX - b->n || tf_grow_n((void **)&b->p, &b->cap, b->n + n, 1, false) < 0) {
		b->oom = true;
		return NULL;
	}
	return b->p + b->n;
}

void tf_buf_put(tf_buf *b, const void *p, size_t n)
{
	unsigned char *d = tf_buf_room(b, n);
	if (!d)
		return;
	if (n)
		memcpy(d, p, n);
	b->n += n;
}

void tf_buf_byte(tf_buf *b, unsigned v)
{
	unsigned char c = (unsigned char)v;
	tf_buf_put(b, &c, 1);
}

void tf_buf_le32(tf_buf *b, uint32_t v)
{
	unsigned char d[4];
	for (int i = 0; i < 4; i++)
		d[i] = (unsigned char)(v >> (8 * i));
	tf_buf_put(b, d, 4);
}

void tf_buf_le64(tf_buf *b, uint64_t v)
{
	unsigned char d[8];
	for (int i = 0; i < 8; i++)
		d[i] = (unsigned char)(v >> (8 * i));
	tf_buf_put(b, d, 8);
}

void tf_buf_varint(tf_buf *b, uint64_t v)
{
	unsigned char d[TF_VARINT_MAX];
	tf_buf_put(b, d, tf_varint_encode(d, v));
}

void tf_buf_svarint(tf_buf *b, int64_t v)
{
	tf_buf_varint(b, tf_zigzag(v));
}
