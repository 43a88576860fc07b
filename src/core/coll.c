/* coll.c - the collectives' facts (include/tracefold/coll.h): records
 * deduplicated by content, and the regions that carry them, keyed by
 * (track, start, name). */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tracefold/coll.h"
#include "tracefold/err.h"
#include "tracefold/ctx.h"
#include "grow.h"
#include "hmap.h"

typedef struct region {
	uint32_t track;
	tf_str name;
	int64_t ts_ns;
	uint32_t rec;
} region;

struct tf_coll {
	tf_coll_facts *recs;    /* record r at recs[r - 1] */
	uint32_t nrecs, caprecs;
	tf_hmap rec_idx;        /* content hash -> record index */
	region *regions;
	uint32_t nregions, capregions;
	tf_hmap region_idx;     /* (track, ts, name) hash -> regions index */
	tf_hmap merged;         /* (outer, inner) -> record */
};

tf_coll *tf_coll_new(void)
{
	return calloc(1, sizeof(tf_coll));
}

void tf_coll_free(tf_coll *c)
{
	if (!c)
		return;
	free(c->recs);
	free(c->regions);
	tf_hmap_free(&c->rec_idx);
	tf_hmap_free(&c->region_idx);
	tf_hmap_free(&c->merged);
	free(c);
}

static uint64_t facts_hash(const tf_coll_facts *f)
{
	uint64_t h = tf_mix64(f->name ^ (uint64_t)f->dtype << 32);
	h = tf_mix64(h ^ f->pg ^ (uint64_t)f->pg_ranks << 32);
	h = tf_mix64(h ^ (uint64_t)f->bytes);
	h = tf_mix64(h ^ (uint64_t)f->nelems);
	return tf_mix64(h ^ (uint64_t)f->root ^ (uint64_t)f->bytes_recv << 17);
}

static int facts_eq(const tf_coll_facts *a, const tf_coll_facts *b)
{
	return a->name == b->name && a->dtype == b->dtype && a->pg == b->pg && a->pg_ranks == b->pg_ranks &&
	       a->bytes == b->bytes && a->nelems == b->nelems && a->root == b->root && a->bytes_recv == b->bytes_recv;
}

/* The record of facts f, made if new; 0 on failure.  Two facts with the
 * same hash but other content (never seen in practice) get records of
 * their own, the second not found again by content: more label sets,
 * never wrong ones. */
static uint32_t rec_of(tf_coll *c, const tf_coll_facts *f)
{
	uint64_t h = facts_hash(f);
	uint32_t i = tf_hmap_get(&c->rec_idx, h);
	if (i != UINT32_MAX && facts_eq(&c->recs[i], f))
		return i + 1;
	if (tf_grow((void **)&c->recs, &c->caprecs, c->nrecs + 1, sizeof(*c->recs)) < 0)
		return 0;
	c->recs[c->nrecs] = *f;
	if (i == UINT32_MAX && tf_hmap_put(&c->rec_idx, h, c->nrecs) < 0)
		return 0;
	return ++c->nrecs;
}

static uint64_t region_hash(uint32_t track, int64_t ts_ns, tf_str name)
{
	return tf_mix64(tf_mix64((uint64_t)ts_ns) ^ ((uint64_t)track << 32 | name));
}

int tf_coll_note(tf_coll *c, uint32_t track, int64_t ts_ns, tf_str name, const tf_coll_facts *f)
{
	uint32_t rec = rec_of(c, f);
	if (!rec)
		return TF_ENOMEM;
	uint64_t h = region_hash(track, ts_ns, name);
	uint32_t i = tf_hmap_get(&c->region_idx, h);
	if (i != UINT32_MAX) { /* the same region twice: the later facts win */
		region *g = &c->regions[i];
		if (g->track == track && g->ts_ns == ts_ns && g->name == name)
			g->rec = rec;
		return 0;
	}
	if (tf_grow((void **)&c->regions, &c->capregions, c->nregions + 1, sizeof(*c->regions)) < 0)
		return TF_ENOMEM;
	c->regions[c->nregions] = (region){ track, name, ts_ns, rec };
	if (tf_hmap_put(&c->region_idx, h, c->nregions) < 0)
		return TF_ENOMEM;
	c->nregions++;
	return 0;
}

uint32_t tf_coll_find(const tf_coll *c, uint32_t track, int64_t ts_ns, tf_str name)
{
	if (!c || !c->nregions)
		return 0;
	uint32_t i = tf_hmap_get(&c->region_idx, region_hash(track, ts_ns, name));
	if (i == UINT32_MAX)
		return 0;
	const region *g = &c->regions[i];
	return g->track == track && g->ts_ns == ts_ns && g->name == name ? g->rec : 0;
}

uint32_t tf_coll_merge(tf_coll *c, uint32_t outer, uint32_t inner)
{
	if (!outer || !inner || outer == inner)
		return outer ? outer : inner;
	uint64_t key = (uint64_t)outer << 32 | inner;
	uint32_t m = tf_hmap_get(&c->merged, key);
	if (m != UINT32_MAX)
		return m;
	tf_coll_facts f = c->recs[outer - 1];
	const tf_coll_facts *in = &c->recs[inner - 1];
	if (in->name)
		f.name = in->name;
	if (in->dtype)
		f.dtype = in->dtype;
	if (in->pg)
		f.pg = in->pg;
	if (in->pg_ranks)
		f.pg_ranks = in->pg_ranks;
	if (in->bytes >= 0 || in->nelems >= 0) { /* a size: both of the inner */
		f.bytes = in->bytes;
		f.nelems = in->nelems;
	}
	if (in->root >= 0)
		f.root = in->root;
	if (in->bytes_recv >= 0)
		f.bytes_recv = in->bytes_recv;
	m = rec_of(c, &f);
	if (!m || tf_hmap_put(&c->merged, key, m) < 0)
		return (uint32_t)-1;
	return m;
}

int tf_coll_labels(const tf_coll *c, uint32_t rec, tf_strtab *st, tf_label *out)
{
	if (!rec || rec > c->nrecs)
		return 0;
	const tf_coll_facts *f = &c->recs[rec - 1];
	int n = 0;
	if (f->name)
		out[n++] = (tf_label){ tf_strtab_intern_cstr(st, "collective"), f->name, 0, 0 };
	if (f->bytes >= 0)
		out[n++] = (tf_label){ tf_strtab_intern_cstr(st, "comm_bytes"), 0, f->bytes,
				       tf_strtab_intern_cstr(st, "bytes") };
	else if (f->nelems >= 0)
		out[n++] = (tf_label){ tf_strtab_intern_cstr(st, "comm_nelems"), 0, f->nelems,
				       tf_strtab_intern_cstr(st, "count") };
	if (f->dtype)
		out[n++] = (tf_label){ tf_strtab_intern_cstr(st, "dtype"), f->dtype, 0, 0 };
	if (f->pg)
		out[n++] = (tf_label){ tf_strtab_intern_cstr(st, "pg"), f->pg, 0, 0 };
	if (f->pg_ranks)
		out[n++] = (tf_label){ tf_strtab_intern_cstr(st, "pg_ranks"), f->pg_ranks, 0, 0 };
	return n;
}

const tf_coll_facts *tf_coll_get(const tf_coll *c, uint32_t rec)
{
	return c && rec && rec <= c->nrecs ? &c->recs[rec - 1] : NULL;
}

/* ---- the collective of each span ---- */

struct tf_coll_spans {
	tf_ctx *ctx;
	/* per track, the open collective regions, innermost last */
	struct coll_stack { struct coll_open { uint32_t depth, rec; } *e; uint32_t n, cap; } *stk;
	uint32_t capstk;
	tf_hmap launch;         /* (input, correlation id) -> record of a launch inside a collective */
};

tf_coll_spans *tf_coll_spans_new(tf_ctx *ctx)
{
	tf_coll_spans *cs = calloc(1, sizeof(*cs));
	if (cs)
		cs->ctx = ctx;
	return cs;
}

void tf_coll_spans_free(tf_coll_spans *cs)
{
	if (!cs)
		return;
	for (uint32_t i = 0; i < cs->capstk; i++)
		free(cs->stk[i].e);
	free(cs->stk);
	tf_hmap_free(&cs->launch);
	free(cs);
}

static struct coll_stack *stack_of(tf_coll_spans *cs, uint32_t track)
{
	if (track >= cs->capstk) {
		uint32_t cap = cs->capstk;
		if (tf_grow((void **)&cs->stk, &cs->capstk, track + 1, sizeof(*cs->stk)) < 0)
			return NULL;
		memset(cs->stk + cap, 0, (size_t)(cs->capstk - cap) * sizeof(*cs->stk));
	}
	return &cs->stk[track];
}

/* Correlation ids are unique within one input (as in gpu_join.c). */
static uint64_t launch_key(tf_coll_spans *cs, uint32_t track, uint64_t corr)
{
	const tf_track *t = tf_ctx_track_get(cs->ctx, track);
	return tf_mix64(corr * 0x9E3779B97F4A7C15ull ^ (t ? t->input : 0));
}

/* A CPU region opens: when it is a collective, its facts over those of the
 * collective it is in, until it closes. */
int tf_coll_spans_open(tf_coll_spans *cs, const tf_span *s)
{
	tf_coll *c = tf_ctx_coll(cs->ctx, false);
	if (!c || s->kind != TF_SPAN_KIND_CPU)
		return 0;
	uint32_t own = tf_coll_find(c, s->track, s->start_ns, s->name);
	if (!own)
		return 0;
	struct coll_stack *t = stack_of(cs, s->track);
	if (!t)
		return TF_ENOMEM;
	while (t->n && t->e[t->n - 1].depth >= s->depth)
		t->n--;
	uint32_t rec = tf_coll_merge(c, t->n ? t->e[t->n - 1].rec : 0, own);
	if (rec == (uint32_t)-1 || tf_grow((void **)&t->e, &t->cap, t->n + 1, sizeof(*t->e)) < 0)
		return TF_ENOMEM;
	t->e[t->n++] = (struct coll_open){ s->depth, rec };
	return 0;
}

int tf_coll_spans_close(tf_coll_spans *cs, const tf_span *s, uint32_t *rec_out)
{
	tf_coll *c = tf_ctx_coll(cs->ctx, false);
	*rec_out = 0;
	if (!c)
		return 0;
	if (s->kind == TF_SPAN_KIND_GPU) {
		uint32_t via = s->corr ? tf_hmap_get(&cs->launch, launch_key(cs, s->track, s->corr)) : UINT32_MAX;
		*rec_out = tf_coll_merge(c, via == UINT32_MAX ? 0 : via, tf_coll_find(c, s->track, s->start_ns, s->name));
		return *rec_out == (uint32_t)-1 ? TF_ENOMEM : 0;
	}
	if (s->kind != TF_SPAN_KIND_CPU || s->track >= cs->capstk)
		return 0;
	struct coll_stack *t = &cs->stk[s->track];
	while (t->n && t->e[t->n - 1].depth > s->depth)
		t->n--;
	if (!t->n)
		return 0;
	*rec_out = t->e[t->n - 1].rec;
	if (t->e[t->n - 1].depth == s->depth)
		t->n--;
	if (s->corr && tf_hmap_put(&cs->launch, launch_key(cs, s->track, s->corr), *rec_out) < 0)
		return TF_ENOMEM;
	return 0;
}

/* Collectives by their compact spelling (lower case, no '_'), the ones
 * whose variants share a prefix first. */
static const struct { const char *compact, *name; int prefix; } coll_names[] = {
	{ "allreduce", "all_reduce", 1 },
	{ "allgather", "all_gather", 1 },
	{ "reducescatter", "reduce_scatter", 1 },
	{ "alltoall", "all_to_all", 1 },
	{ "sendrecv", "send_recv", 0 },
	{ "broadcast", "broadcast", 1 },
	{ "barrier", "barrier", 0 },
	{ "reduce", "reduce", 0 },
	{ "gather", "gather", 0 },
	{ "scatter", "scatter", 0 },
	{ "send", "send", 0 },
	{ "recv", "recv", 1 },
};

size_t tf_coll_normalize(const char *s, size_t n, char *buf, size_t cap)
{
	size_t k = 0;
	if (!cap)
		return 0;
	for (size_t i = 0; i < n && k + 1 < cap; i++)
		if (s[i] != '_' && s[i] != ' ')
			buf[k++] = (char)tolower((unsigned char)s[i]);
	buf[k] = 0;
	for (size_t i = 0; i < sizeof(coll_names) / sizeof(coll_names[0]); i++) {
		size_t l = strlen(coll_names[i].compact);
		if (coll_names[i].prefix ? k >= l && memcmp(buf, coll_names[i].compact, l) == 0
					 : strcmp(buf, coll_names[i].compact) == 0)
			return (size_t)snprintf(buf, cap, "%s", coll_names[i].name);
	}
	return k;
}

/* c10::ScalarType names, as Kineto's "dtype" writes them. */
static const struct { const char *name; int size; } dtypes[] = {
	{ "Byte", 1 }, { "Char", 1 }, { "Short", 2 }, { "Int", 4 }, { "Long", 8 },
	{ "Half", 2 }, { "Float", 4 }, { "Double", 8 }, { "ComplexHalf", 4 },
	{ "ComplexFloat", 8 }, { "ComplexDouble", 16 }, { "Bool", 1 }, { "BFloat16", 2 },
	{ "QInt8", 1 }, { "QUInt8", 1 }, { "QInt32", 4 }, { "UInt16", 2 }, { "UInt32", 4 },
	{ "UInt64", 8 }, { "Float8_e5m2", 1 }, { "Float8_e4m3fn", 1 }, { "Float8_e5m2fnuz", 1 },
	{ "Float8_e4m3fnuz", 1 },
};

int tf_coll_dtype_size(const char *s, size_t n)
{
	for (size_t i = 0; i < sizeof(dtypes) / sizeof(dtypes[0]); i++)
		if (strlen(dtypes[i].name) == n && memcmp(dtypes[i].name, s, n) == 0)
			return dtypes[i].size;
	return 0;
}
