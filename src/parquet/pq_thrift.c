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
#include "pq_rint.h"

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

/* ---- the decoder (pq_rint.h): the same protocol read back, every byte
 * bounds-checked; a damaged input sets t->bad and reads as zeros. */

uint64_t pq_tin_varint(pq_tin *t)
{
	uint64_t v = 0;
	for (int s = 0; s < 64 && !t->bad; s += 7) {
		if (t->p >= t->end)
			break;
		uint8_t c = *t->p++;
		v |= (uint64_t)(c & 0x7f) << s;
		if (!(c & 0x80))
			return v;
	}
	t->bad = true;
	return 0;
}

int64_t pq_tin_zz(pq_tin *t)
{
	uint64_t u = pq_tin_varint(t);
	return (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
}

int pq_tin_field(pq_tin *t, int16_t *last, int *type, int16_t *id)
{
	if (t->bad || t->p >= t->end) {
		t->bad = true;
		return 0;
	}
	uint8_t c = *t->p++;
	if (c == 0)
		return 0;
	*type = c & 0x0f;
	if (c >> 4)
		*id = (int16_t)(*last + (c >> 4));
	else
		*id = (int16_t)pq_tin_zz(t);
	*last = *id;
	return !t->bad;
}

int64_t pq_tin_int(pq_tin *t, int type)
{
	if (type == PQ_T_BYTE) {
		if (t->p >= t->end) {
			t->bad = true;
			return 0;
		}
		return (int8_t)*t->p++;
	}
	if (type == PQ_T_I16 || type == PQ_T_I32 || type == PQ_T_I64)
		return pq_tin_zz(t);
	pq_tin_skip(t, type); /* a field of another type than the spec's */
	t->bad = true;
	return 0;
}

bool pq_tin_bool(pq_tin *t, int type)
{
	if (type == PQ_T_TRUE)
		return true;
	if (type != PQ_T_FALSE)
		t->bad = true;
	return false;
}

const uint8_t *pq_tin_bin(pq_tin *t, size_t *n)
{
	uint64_t len = pq_tin_varint(t);
	*n = 0;
	if (t->bad || len > (uint64_t)(t->end - t->p)) {
		t->bad = true;
		return NULL;
	}
	const uint8_t *p = t->p;
	t->p += len;
	*n = (size_t)len;
	return p;
}

size_t pq_tin_list(pq_tin *t, int *etype)
{
	if (t->bad || t->p >= t->end) {
		t->bad = true;
		*etype = 0;
		return 0;
	}
	uint8_t c = *t->p++;
	*etype = c & 0x0f;
	size_t n = c >> 4;
	if (n == 15)
		n = (size_t)pq_tin_varint(t);
	/* every element takes at least one byte (but booleans) */
	if (n > (size_t)(t->end - t->p) && *etype != PQ_T_TRUE && *etype != PQ_T_FALSE)
		t->bad = true;
	return t->bad ? 0 : n;
}

void pq_tin_skip(pq_tin *t, int type)
{
	if (t->bad)
		return;
	if (++t->depth > 32) {
		t->bad = true;
		return;
	}
	size_t n;
	int et;
	switch (type) {
	case PQ_T_TRUE:
	case PQ_T_FALSE:
		break;
	case PQ_T_BYTE:
		if (t->p >= t->end)
			t->bad = true;
		else
			t->p++;
		break;
	case PQ_T_I16:
	case PQ_T_I32:
	case PQ_T_I64:
		pq_tin_varint(t);
		break;
	case PQ_T_DOUBLE:
		if (t->end - t->p < 8)
			t->bad = true;
		else
			t->p += 8;
		break;
	case PQ_T_BINARY:
		pq_tin_bin(t, &n);
		break;
	case PQ_T_LIST:
	case PQ_T_SET:
		n = pq_tin_list(t, &et);
		for (size_t i = 0; i < n && !t->bad; i++) {
			if (et == PQ_T_TRUE || et == PQ_T_FALSE)
				pq_tin_skip(t, PQ_T_BYTE); /* a list's booleans are bytes */
			else
				pq_tin_skip(t, et);
		}
		break;
	case PQ_T_MAP: {
		n = (size_t)pq_tin_varint(t);
		if (n > (size_t)(t->end - t->p))
			t->bad = true;
		if (n && !t->bad) {
			if (t->p >= t->end) {
				t->bad = true;
				break;
			}
			uint8_t kv = *t->p++;
			for (size_t i = 0; i < n && !t->bad; i++) {
				pq_tin_skip(t, kv >> 4);
				pq_tin_skip(t, kv & 0x0f);
			}
		}
		break;
	}
	case PQ_T_STRUCT: {
		int16_t last = 0, id;
		int ft;
		while (pq_tin_field(t, &last, &ft, &id))
			pq_tin_skip(t, ft);
		break;
	}
	default:
		t->bad = true;
	}
	t->depth--;
}
