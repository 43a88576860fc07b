/* xplane_hlo.c - the protobuf wire format by hand, for the XPlane reader
 * (xplane_int.h): the HloProto that the /host:metadata plane holds as a
 * bytes stat (XLA's hlo.proto, fields in docs/format-xplane.md), read for
 * the op path of each instruction; and, when protobuf-c refuses an XSpace,
 * the byte offset where it goes wrong, for the error message. */
#include <stdbool.h>
#include <string.h>
#include "tracefold/err.h"
#include "xplane_int.h"

typedef struct pbuf {
	const uint8_t *p;
	size_t n, i;
} pbuf;

/* One field: its number, wire type, and value (varint v, or bytes at
 * d[0..len) for length-delimited).  0 at the end, -1 damaged, -2 a length
 * past the end of b (d[0..len): what there is of it). */
typedef struct pfield {
	uint64_t num, v;
	unsigned wt;
	const uint8_t *d;
	size_t len;
} pfield;

static int varint(pbuf *b, uint64_t *v)
{
	*v = 0;
	for (unsigned s = 0; s < 64; s += 7) {
		if (b->i >= b->n)
			return -1;
		uint8_t c = b->p[b->i++];
		*v |= (uint64_t)(c & 0x7f) << s;
		if (!(c & 0x80))
			return 0;
	}
	return -1;
}

static int next_field(pbuf *b, pfield *f)
{
	if (b->i >= b->n)
		return 0;
	uint64_t tag;
	if (varint(b, &tag) < 0 || !(tag >> 3))
		return -1;
	f->num = tag >> 3;
	f->wt = (unsigned)(tag & 7);
	switch (f->wt) {
	case 0:
		return varint(b, &f->v) < 0 ? -1 : 1;
	case 1:
	case 5: {
		size_t k = f->wt == 1 ? 8 : 4;
		if (b->n - b->i < k)
			return -1;
		b->i += k;
		return 1;
	}
	case 2:
		if (varint(b, &f->v) < 0)
			return -1;
		f->d = b->p + b->i;
		if (f->v > b->n - b->i) {
			f->len = b->n - b->i;
			return -2;
		}
		f->len = (size_t)f->v;
		b->i += f->len;
		return 1;
	default:
		return -1;
	}
}

/* ---- HloProto -> (module, instruction) -> op path ---- */

typedef struct hlo {
	tf_strtab *st;
	tf_hmap *ops;
	tf_str module;
	char *tmp;
	size_t cap;
} hlo;

static int put(hlo *h, const uint8_t *name, size_t n, tf_str op, bool sanitize)
{
	if (sanitize) {
		if (n > h->cap) {
			char *t = realloc(h->tmp, n);
			if (!t)
				return TF_ENOMEM;
			h->tmp = t;
			h->cap = n;
		}
		for (size_t i = 0; i < n; i++)
			h->tmp[i] = name[i] == '.' || name[i] == '-' ? '_' : (char)name[i];
		name = (const uint8_t *)h->tmp;
	}
	tf_str s = tf_strtab_intern(h->st, (const char *)name, n);
	if (s == (tf_str)-1)
		return TF_ENOMEM;
	uint64_t key = tf_xplane_op_key(h->module, s);
	if (tf_hmap_get(h->ops, key) != UINT32_MAX)
		return 0;
	return tf_hmap_put(h->ops, key, op) < 0 ? TF_ENOMEM : 0;
}

/* HloInstructionProto: name = 1, metadata = 7 (OpMetadata: op_name = 2). */
static int instruction(hlo *h, const uint8_t *p, size_t n)
{
	pbuf b = { p, n, 0 };
	pfield f;
	const uint8_t *name = NULL, *op = NULL;
	size_t nname = 0, nop = 0;
	int r;
	while ((r = next_field(&b, &f)) > 0) {
		if (f.num == 1 && f.wt == 2) {
			name = f.d;
			nname = f.len;
		} else if (f.num == 7 && f.wt == 2) {
			pbuf m = { f.d, f.len, 0 };
			pfield g;
			int q;
			while ((q = next_field(&m, &g)) > 0)
				if (g.num == 2 && g.wt == 2) {
					op = g.d;
					nop = g.len;
				}
			if (q < 0)
				return 1;
		}
	}
	if (r < 0)
		return 1;
	if (!nname || !nop)
		return 0;
	tf_str ops = tf_strtab_intern(h->st, (const char *)op, nop);
	if (ops == (tf_str)-1)
		return TF_ENOMEM;
	TF_TRY(put(h, name, nname, ops, false));
	return put(h, name, nname, ops, true);
}

/* HloComputationProto: instructions = 2, id = 5.  Only the computation
 * whose id is entry (want_entry), or only the others. */
static int computation(hlo *h, const uint8_t *p, size_t n, uint64_t entry, bool want_entry)
{
	pbuf b = { p, n, 0 };
	pfield f;
	uint64_t id = UINT64_MAX;
	int r;
	while ((r = next_field(&b, &f)) > 0)
		if (f.num == 5 && f.wt == 0)
			id = f.v;
	if (r < 0)
		return 1;
	if ((id == entry) != want_entry)
		return 0;
	b.i = 0;
	while ((r = next_field(&b, &f)) > 0)
		if (f.num == 2 && f.wt == 2) {
			int q = instruction(h, f.d, f.len);
			if (q != 0)
				return q;
		}
	return r < 0 ? 1 : 0;
}

/* HloModuleProto: name = 1, computations = 3, entry_computation_id = 6. */
static int module(hlo *h, const uint8_t *p, size_t n)
{
	pbuf b = { p, n, 0 };
	pfield f;
	uint64_t entry = UINT64_MAX;
	int r;
	h->module = 0;
	while ((r = next_field(&b, &f)) > 0) {
		if (f.num == 1 && f.wt == 2 &&
		    (h->module = tf_strtab_intern(h->st, (const char *)f.d, f.len)) == (tf_str)-1)
			return TF_ENOMEM;
		if (f.num == 6 && f.wt == 0)
			entry = f.v;
	}
	if (r < 0)
		return 1;
	if (!h->module)
		return 0;
	for (int pass = 0; pass < 2; pass++) { /* the entry computation first */
		b.i = 0;
		while ((r = next_field(&b, &f)) > 0)
			if (f.num == 3 && f.wt == 2) {
				int q = computation(h, f.d, f.len, entry, pass == 0);
				if (q != 0)
					return q;
			}
	}
	return 0;
}

int tf_xplane_hlo_ops(const uint8_t *p, size_t n, tf_strtab *st, tf_hmap *ops)
{
	hlo h = { .st = st, .ops = ops };
	pbuf b = { p, n, 0 };
	pfield f;
	int r, q = 0;
	while (q == 0 && (r = next_field(&b, &f)) > 0)
		if (f.num == 1 && f.wt == 2) /* HloProto.hlo_module */
			q = module(&h, f.d, f.len);
	free(h.tmp);
	return q ? q : r < 0 ? 1 : 0;
}

/* ---- where a damaged XSpace goes wrong ---- */

enum { M_SPACE, M_PLANE, M_LINE, M_EVENT, M_STAT, M_EMENTRY, M_SMENTRY, M_EMETA, M_SMETA, M_NONE };

/* The fields of proto/xplane.proto: message, field, wire type, the message
 * it holds (M_NONE: a scalar or string). */
static const struct { uint8_t msg, num, wt, sub; } schema[] = {
	{ M_SPACE, 1, 2, M_PLANE },
	{ M_PLANE, 1, 0, M_NONE }, { M_PLANE, 2, 2, M_NONE }, { M_PLANE, 3, 2, M_LINE },
	{ M_PLANE, 4, 2, M_EMENTRY }, { M_PLANE, 5, 2, M_SMENTRY }, { M_PLANE, 6, 2, M_STAT },
	{ M_LINE, 1, 0, M_NONE }, { M_LINE, 2, 2, M_NONE }, { M_LINE, 3, 0, M_NONE }, { M_LINE, 4, 2, M_EVENT },
	{ M_LINE, 9, 0, M_NONE }, { M_LINE, 10, 0, M_NONE }, { M_LINE, 11, 2, M_NONE },
	{ M_EVENT, 1, 0, M_NONE }, { M_EVENT, 2, 0, M_NONE }, { M_EVENT, 3, 0, M_NONE }, { M_EVENT, 4, 2, M_STAT },
	{ M_EVENT, 5, 0, M_NONE },
	{ M_STAT, 1, 0, M_NONE }, { M_STAT, 2, 1, M_NONE }, { M_STAT, 3, 0, M_NONE }, { M_STAT, 4, 0, M_NONE },
	{ M_STAT, 5, 2, M_NONE }, { M_STAT, 6, 2, M_NONE }, { M_STAT, 7, 0, M_NONE },
	{ M_EMENTRY, 1, 0, M_NONE }, { M_EMENTRY, 2, 2, M_EMETA },
	{ M_SMENTRY, 1, 0, M_NONE }, { M_SMENTRY, 2, 2, M_SMETA },
	{ M_EMETA, 1, 0, M_NONE }, { M_EMETA, 2, 2, M_NONE }, { M_EMETA, 3, 2, M_NONE }, { M_EMETA, 4, 2, M_NONE },
	{ M_EMETA, 5, 2, M_STAT },
	{ M_SMETA, 1, 0, M_NONE }, { M_SMETA, 2, 2, M_NONE }, { M_SMETA, 3, 2, M_NONE },
};

static int sub_message(int msg, const pfield *f, int *sub)
{
	for (size_t k = 0; k < sizeof(schema) / sizeof(schema[0]); k++)
		if (schema[k].msg == msg && schema[k].num == f->num) {
			*sub = schema[k].sub;
			return schema[k].wt == f->wt ? 0 : -1;
		}
	*sub = M_NONE;
	return 0;
}

/* The innermost damage: a message cut short is walked as far as it goes. */
static size_t walk(const uint8_t *base, const uint8_t *p, size_t n, int msg, const char **why)
{
	pbuf b = { p, n, 0 };
	pfield f;
	for (;;) {
		size_t at = (size_t)(p - base) + b.i;
		int r = next_field(&b, &f), sub;
		if (r == 0)
			return SIZE_MAX;
		if (r == -1) {
			*why = "a field cut short or without a valid tag or wire type (truncated, or not an XPlane)";
			return at;
		}
		if (sub_message(msg, &f, &sub) < 0) {
			*why = "a field of the wrong wire type for the XPlane schema";
			return at;
		}
		if (sub != M_NONE) {
			size_t bad = walk(base, f.d, f.len, sub, why);
			if (bad != SIZE_MAX)
				return bad;
		}
		if (r == -2) {
			*why = "a field whose length runs past the end of the data (truncated file)";
			return at;
		}
	}
}

size_t tf_xplane_damage(const uint8_t *p, size_t n, const char **why)
{
	return walk(p, p, n, M_SPACE, why);
}
