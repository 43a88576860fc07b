/* pq_thrift.c - the Thrift compact protocol encoder of the Parquet writer
 * (pq_int.h), into a tf_buf (buf.h).  Compact protocol, as Parquet's footer
 * and page headers use it (Thrift's doc/specs/thrift-compact-protocol.md):
 * integers are zigzag ULEB128 varints; a field header is one byte
 * (id delta << 4 | type) when the id is 1..15 above the previous field's,
 * else the type byte and the id as a zigzag varint; booleans are the field
 * type (1 true, 2 false); binaries are a varint length and the bytes; a list
 * header is (size << 4 | element type) below 15 elements, else
 * (0xf0 | element type) and the size as a varint; a struct ends with 0. */
#include <string.h>
#include "pq_int.h"

void pq_t_init(pq_thrift *t, tf_buf *b)
{
	memset(t, 0, sizeof(*t));
	t->b = b;
}

static void field(pq_thrift *t, int16_t id, int type)
{
	int16_t d = (int16_t)(id - t->last[t->depth]);
	if (d > 0 && d <= 15) {
		tf_buf_byte(t->b, (unsigned)(d << 4 | type));
	} else {
		tf_buf_byte(t->b, (unsigned)type);
		tf_buf_varint(t->b, tf_zigzag(id));
	}
	t->last[t->depth] = id;
}

void pq_t_i16(pq_thrift *t, int16_t id, int16_t v)
{
	field(t, id, PQ_T_I16);
	tf_buf_varint(t->b, tf_zigzag(v));
}

void pq_t_i32(pq_thrift *t, int16_t id, int32_t v)
{
	field(t, id, PQ_T_I32);
	tf_buf_varint(t->b, tf_zigzag(v));
}

void pq_t_i64(pq_thrift *t, int16_t id, int64_t v)
{
	field(t, id, PQ_T_I64);
	tf_buf_varint(t->b, tf_zigzag(v));
}

void pq_t_bool(pq_thrift *t, int16_t id, bool v)
{
	field(t, id, v ? PQ_T_TRUE : PQ_T_FALSE);
}

void pq_t_bin(pq_thrift *t, int16_t id, const void *p, size_t n)
{
	field(t, id, PQ_T_BINARY);
	pq_t_elem_bin(t, p, n);
}

void pq_t_str(pq_thrift *t, int16_t id, const char *s)
{
	pq_t_bin(t, id, s, strlen(s));
}

/* Enters a struct: its field ids start again from 0. */
static void push(pq_thrift *t)
{
	if (t->depth + 1 >= PQ_T_DEPTH) {
		t->b->oom = true; /* cannot happen with Parquet's schema */
		return;
	}
	t->last[++t->depth] = 0;
}

void pq_t_begin(pq_thrift *t, int16_t id)
{
	field(t, id, PQ_T_STRUCT);
	push(t);
}

void pq_t_end(pq_thrift *t)
{
	tf_buf_byte(t->b, 0);
	if (t->depth > 0)
		t->depth--;
}

void pq_t_list(pq_thrift *t, int16_t id, int elem_type, size_t n)
{
	field(t, id, PQ_T_LIST);
	if (n < 15) {
		tf_buf_byte(t->b, (unsigned)(n << 4 | (unsigned)elem_type));
	} else {
		tf_buf_byte(t->b, 0xf0u | (unsigned)elem_type);
		tf_buf_varint(t->b, n);
	}
}

void pq_t_elem_begin(pq_thrift *t)
{
	push(t);
}

void pq_t_elem_i32(pq_thrift *t, int32_t v)
{
	tf_buf_varint(t->b, tf_zigzag(v));
}

void pq_t_elem_bin(pq_thrift *t, const void *p, size_t n)
{
	tf_buf_varint(t->b, n);
	tf_buf_put(t->b, p, n);
}

void pq_t_stop(pq_thrift *t)
{
	tf_buf_byte(t->b, 0);
}
