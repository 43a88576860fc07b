/* agg.c - call-path tree + values per (call path, label set); merge by
 * addition.  Memory grows with distinct call paths x label sets, never with
 * trace length.  The first TF_AGG_DENSE_TYPES sample types are a vector per
 * sample; later ones (counters) are (sample, type, value) entries, a list
 * per sample plus a hash index, only where a value was added: memory grows
 * with the values there are, not with samples x types. */
#include <stdlib.h>
#include <string.h>
#include <stdbool.h>
#include "tracefold/agg.h"
#include "agg_steps.h"
#include "tracefold/err.h"
#include <stdio.h>
#include "hmap.h"
#include "msort.h"
#include "sat.h"

typedef struct labelset {
	int n;
	tf_label l[TF_AGG_MAX_LABELS];
} labelset;

typedef struct sample_key {
	uint32_t node, labelset;
} sample_key;

struct tf_agg {
	tf_strtab *st;
	tf_sample_type *types;
	uint32_t ntypes, captypes;
	int default_type;

	tf_cpath *cp;          /* the call-path tree (shared with the stack builder) */
	bool own_cp;
	/* per node: its last sample, which makes the hash lookup rare (call
	 * stacks repeat); grown as nodes are met, UINT32_MAX = none */
	struct node_cache {
		uint32_t last_sample, last_lset;
	} *ncache;
	uint32_t capncache;

	labelset *lsets;
	uint32_t nlsets, caplsets;
	tf_hmap lset_idx;      /* content hash -> first labelset with that hash */

	sample_key *samples;
	uint32_t nsamples, capsamples;
	tf_hmap sample_idx;    /* node<<32 | labelset -> sample */
	int64_t *values;       /* nsamples x stride: the dense types */
	uint32_t stride;       /* >= min(ntypes, TF_AGG_DENSE_TYPES) */
	uint32_t capvalues;    /* in samples */

	/* types >= TF_AGG_DENSE_TYPES: entries where a sample has a value */
	struct sparse_val {
		int64_t v;
		uint32_t type;
		uint32_t next;     /* the sample's next entry, UINT32_MAX none */
	} *sp;
	uint32_t nsp, capsp;
	uint32_t *sp_head;     /* sample -> its first entry (UINT32_MAX none); */
	uint32_t nsphead;      /* ... for samples below nsphead (allocated on first use) */
	tf_hmap sp_idx;        /* sample<<32 | type -> entry */

	tf_agg_meta meta;
	char **comments;
	uint32_t ncomments, capcomments;
	tf_agg_steps *steps;   /* samples under a step label set aside (agg_steps.c), NULL none */
};

tf_agg *tf_agg_new_cpath(tf_strtab *st, tf_cpath *cp)
{
	tf_agg *a = calloc(1, sizeof(*a));
	if (!a)
		return NULL;
	a->st = st;
	a->default_type = -1;
	a->stride = 4;
	a->meta.period = 1;
	a->cp = cp;
	if (!cp) {
		a->cp = tf_cpath_new();
		a->own_cp = true;
		if (!a->cp) {
			free(a);
			return NULL;
		}
	}
	return a;
}

tf_agg *tf_agg_new(tf_strtab *st) { return tf_agg_new_cpath(st, NULL); }

/* The node's cache entry, the cache grown to cover it; NULL on failure. */
static __attribute__((noinline)) struct node_cache *ncache_grow(tf_agg *a, uint32_t node)
{
	uint32_t cap = a->capncache;
	if (tf_grow((void **)&a->ncache, &a->capncache, node + 1, sizeof(struct node_cache)) < 0)
		return NULL;
	for (uint32_t i = cap; i < a->capncache; i++)
		a->ncache[i] = (struct node_cache){ UINT32_MAX, 0 };
	return &a->ncache[node];
}

void tf_agg_free(tf_agg *a)
{
	if (!a)
		return;
	free(a->types);
	if (a->own_cp)
		tf_cpath_free(a->cp);
	free(a->ncache);
	free(a->lsets);
	tf_hmap_free(&a->lset_idx);
	free(a->samples);
	tf_hmap_free(&a->sample_idx);
	free(a->values);
	free(a->sp);
	free(a->sp_head);
	tf_hmap_free(&a->sp_idx);
	for (uint32_t i = 0; i < a->ncomments; i++)
		free(a->comments[i]);
	free(a->comments);
	tf_agg_steps_free_(a->steps);
	free(a);
}

tf_agg_steps **tf_agg_steps_slot_(tf_agg *a) { return &a->steps; }
const tf_agg_steps *tf_agg_steps_get_(const tf_agg *a) { return a->steps; }

tf_strtab *tf_agg_strtab(const tf_agg *a) { return a->st; }
int tf_agg_ntypes(const tf_agg *a) { return (int)a->ntypes; }

int tf_agg_drop_types(tf_agg *a, int n)
{
	if (n < 0 || (uint32_t)n > a->ntypes)
		return TF_EUSAGE;
	for (uint32_t j = 0; j < a->nsp; j++) /* a sparse value of a type dropped */
		if (a->sp[j].type >= (uint32_t)n)
			return TF_EUSAGE;
	TF_TRY(tf_agg_steps_fold(a));
	if (a->default_type >= n)
		a->default_type = -1;
	a->ntypes = (uint32_t)n; /* dense values past n: zeros, unread from now on */
	return 0;
}
tf_sample_type tf_agg_type_get(const tf_agg *a, int i) { return a->types[i]; }
void tf_agg_set_default_type(tf_agg *a, int i) { a->default_type = i; }
int tf_agg_default_type(const tf_agg *a) { return a->default_type; }

int tf_agg_type_pick(const tf_agg *a, const char *name)
{
	if (name) {
		int t = tf_agg_type_find(a, name);
		if (t < 0 && strlen(name) < 4000) { /* a counter by its own name */
			char buf[4100];
			snprintf(buf, sizeof(buf), "%s%s", TF_COUNTER_TYPE_PREFIX, name);
			t = tf_agg_type_find(a, buf);
		}
		return t;
	}
	if (a->default_type >= 0)
		return a->default_type;
	int w = tf_agg_type_find(a, "wall");
	return w >= 0 ? w : tf_agg_ntypes(a) - 1;
}
uint32_t tf_agg_nnodes(const tf_agg *a) { return tf_cpath_count(a->cp); }
const tf_agg_node *tf_agg_node_get(const tf_agg *a, uint32_t id) { return tf_cpath_get(a->cp, id); }
tf_cpath *tf_agg_cpath(const tf_agg *a) { return a->cp; }
uint32_t tf_agg_nlabelsets(const tf_agg *a) { return a->nlsets; }
size_t tf_agg_nsamples(const tf_agg *a) { return a->nsamples; }
tf_agg_meta *tf_agg_meta_get(tf_agg *a) { return &a->meta; }
size_t tf_agg_ncomments(const tf_agg *a) { return a->ncomments; }
const char *tf_agg_comment_get(const tf_agg *a, size_t i) { return a->comments[i]; }

void tf_agg_types_text(const tf_agg *a, char *buf, size_t len)
{
	size_t o = 0;
	if (len)
		buf[0] = '\0';
	for (uint32_t t = 0; t < a->ntypes && o < len; t++) {
		int w = snprintf(buf + o, len - o, "%s%s/%s", t ? " " : "", tf_strtab_get(a->st, a->types[t].type),
				 tf_strtab_get(a->st, a->types[t].unit));
		if (w < 0)
			break;
		o += (size_t)w;
	}
}

int tf_agg_type_find(const tf_agg *a, const char *type)
{
	for (uint32_t i = 0; i < a->ntypes; i++)
		if (strcmp(tf_strtab_get(a->st, a->types[i].type), type) == 0)
			return (int)i;
	return -1;
}

/* Re-lays the value matrix out with a larger stride. */
static int widen(tf_agg *a, uint32_t stride)
{
	int64_t *v = calloc((size_t)(a->capvalues ? a->capvalues : 1) * stride, sizeof(int64_t));
	if (!v)
		return TF_ENOMEM;
	for (uint32_t s = 0; s < a->nsamples; s++)
		memcpy(v + (size_t)s * stride, a->values + (size_t)s * a->stride, a->stride * sizeof(int64_t));
	free(a->values);
	a->values = v;
	a->stride = stride;
	return 0;
}

int tf_agg_type(tf_agg *a, const char *type, const char *unit)
{
	int i = tf_agg_type_find(a, type);
	if (i >= 0)
		return strcmp(tf_strtab_get(a->st, a->types[i].unit), unit) == 0 ? i : TF_ECLASH;
	if (tf_agg_steps_fold(a) < 0 ||
	    tf_grow((void **)&a->types, &a->captypes, a->ntypes + 1, sizeof(tf_sample_type)) < 0)
		return TF_ENOMEM;
	if (a->ntypes + 1 > a->stride && a->stride < TF_AGG_DENSE_TYPES)
		TF_TRY(widen(a, a->stride * 2));
	tf_str t = tf_strtab_intern_cstr(a->st, type), u = tf_strtab_intern_cstr(a->st, unit);
	if (t == (tf_str)-1 || u == (tf_str)-1)
		return TF_ENOMEM;
	a->types[a->ntypes] = (tf_sample_type){ t, u };
	return (int)a->ntypes++;
}

uint32_t tf_agg_child(tf_agg *a, uint32_t parent, tf_str frame)
{
	return tf_cpath_child(a->cp, parent, frame);
}

static int str_cmp(const tf_strtab *st, tf_str x, tf_str y)
{
	if (x == y)
		return 0;
	return tf_bytes_cmp(tf_strtab_get(st, x), tf_strtab_len(st, x), tf_strtab_get(st, y), tf_strtab_len(st, y));
}

/* Labels by content: key bytes, then string values before numeric ones,
 * string value bytes, number, unit bytes.  Independent of interning order. */
static int label_cmp(const tf_strtab *st, const tf_label *p, const tf_label *q)
{
	int c = str_cmp(st, p->key, q->key);
	if (c)
		return c;
	if (!p->str != !q->str)
		return p->str ? -1 : 1;
	if (p->str)
		return str_cmp(st, p->str, q->str);
	if (p->num != q->num)
		return p->num < q->num ? -1 : 1;
	return str_cmp(st, p->num_unit, q->num_unit);
}

static uint64_t lset_hash(const labelset *ls)
{
	uint64_t h = (uint64_t)ls->n;
	for (int i = 0; i < ls->n; i++) {
		h = tf_mix64(h ^ ((uint64_t)ls->l[i].key << 32 | ls->l[i].str));
		h = tf_mix64(h ^ (uint64_t)ls->l[i].num ^ ((uint64_t)ls->l[i].num_unit << 48));
	}
	return h;
}

static int lset_eq(const labelset *x, const labelset *y)
{
	if (x->n != y->n)
		return 0;
	for (int i = 0; i < x->n; i++)
		if (x->l[i].key != y->l[i].key || x->l[i].str != y->l[i].str ||
		    x->l[i].num != y->l[i].num || x->l[i].num_unit != y->l[i].num_unit)
			return 0;
	return 1;
}

uint32_t tf_agg_labelset(tf_agg *a, const tf_label *labels, int n)
{
	labelset ls;
	memset(&ls, 0, sizeof(ls));
	if (n > TF_AGG_MAX_LABELS)
		n = TF_AGG_MAX_LABELS;
	ls.n = n;
	if (n > 0)
		memcpy(ls.l, labels, (size_t)n * sizeof(tf_label));
	for (int i = 1; i < n; i++) /* insertion sort (n <= TF_AGG_MAX_LABELS), stable */
		for (int j = i; j > 0 && label_cmp(a->st, &ls.l[j - 1], &ls.l[j]) > 0; j--) {
			tf_label t = ls.l[j];
			ls.l[j] = ls.l[j - 1];
			ls.l[j - 1] = t;
		}
	uint64_t h = lset_hash(&ls);
	uint32_t id = tf_hmap_get(&a->lset_idx, h);
	if (id != UINT32_MAX) {
		if (lset_eq(&a->lsets[id], &ls))
			return id;
		for (uint32_t i = 0; i < a->nlsets; i++) /* hash collision: rare */
			if (lset_eq(&a->lsets[i], &ls))
				return i;
	}
	if (tf_grow((void **)&a->lsets, &a->caplsets, a->nlsets + 1, sizeof(labelset)) < 0)
		return (uint32_t)-1;
	uint32_t nid = a->nlsets;
	if (id == UINT32_MAX && tf_hmap_put(&a->lset_idx, h, nid) < 0)
		return (uint32_t)-1;
	a->lsets[nid] = ls;
	a->nlsets++;
	return nid;
}

int tf_agg_labelset_get(const tf_agg *a, uint32_t id, const tf_label **labels_out)
{
	if (id >= a->nlsets) {
		*labels_out = NULL;
		return 0;
	}
	*labels_out = a->lsets[id].l;
	return a->lsets[id].n;
}

/* The index of sample (node, lset), created with zero values if new;
 * UINT32_MAX on allocation failure. */
static uint32_t sample_index(tf_agg *a, uint32_t node, uint32_t lset)
{
	struct node_cache *cache = node < a->capncache ? &a->ncache[node] : ncache_grow(a, node);
	if (!cache)
		return UINT32_MAX;
	if (cache->last_sample != UINT32_MAX && cache->last_lset == lset)
		return cache->last_sample;
	uint64_t key = (uint64_t)node << 32 | lset;
	uint32_t s = tf_hmap_get(&a->sample_idx, key);
	if (s == UINT32_MAX) {
		if (tf_grow((void **)&a->samples, &a->capsamples, a->nsamples + 1, sizeof(sample_key)) < 0)
			return UINT32_MAX;
		if (tf_grow((void **)&a->values, &a->capvalues, a->nsamples + 1, a->stride * sizeof(int64_t)) < 0)
			return UINT32_MAX;
		s = a->nsamples;
		if (tf_hmap_put(&a->sample_idx, key, s) < 0)
			return UINT32_MAX;
		a->samples[s] = (sample_key){ node, lset };
		memset(a->values + (size_t)s * a->stride, 0, a->stride * sizeof(int64_t));
		a->nsamples++;
	}
	cache->last_sample = s;
	cache->last_lset = lset;
	return s;
}

/* Adds v to the value of sparse type t (>= TF_AGG_DENSE_TYPES) of sample s;
 * nothing is stored for 0. */
static int sparse_add(tf_agg *a, uint32_t s, uint32_t t, int64_t v)
{
	if (v == 0)
		return 0;
	uint64_t key = (uint64_t)s << 32 | t;
	uint32_t j = tf_hmap_get(&a->sp_idx, key);
	if (j == UINT32_MAX) {
		if (s >= a->nsphead) {
			uint32_t cap = a->nsphead;
			if (tf_grow((void **)&a->sp_head, &cap, s + 1, sizeof(uint32_t)) < 0)
				return TF_ENOMEM;
			memset(a->sp_head + a->nsphead, 0xff, (size_t)(cap - a->nsphead) * sizeof(uint32_t));
			a->nsphead = cap;
		}
		if (tf_grow((void **)&a->sp, &a->capsp, a->nsp + 1, sizeof(struct sparse_val)) < 0 ||
		    tf_hmap_put(&a->sp_idx, key, a->nsp) < 0)
			return TF_ENOMEM;
		j = a->nsp++;
		a->sp[j] = (struct sparse_val){ 0, t, a->sp_head[s] };
		a->sp_head[s] = j;
	}
	a->sp[j].v = tf_sat_add(a->sp[j].v, v);
	return 0;
}

/* Adds v at type t (dense or sparse) of sample s. */
static int add_at(tf_agg *a, uint32_t s, uint32_t t, int64_t v)
{
	if (t < TF_AGG_DENSE_TYPES) {
		int64_t *d = &a->values[(size_t)s * a->stride + t];
		*d = tf_sat_add(*d, v);
		return 0;
	}
	return sparse_add(a, s, t, v);
}

static uint32_t ndense(const tf_agg *a)
{
	return a->ntypes < TF_AGG_DENSE_TYPES ? a->ntypes : TF_AGG_DENSE_TYPES;
}

/* tf_agg_values' miss path, out of line: the hit path stays a leaf function */
static __attribute__((noinline)) int64_t *values_slow(tf_agg *a, uint32_t node, uint32_t lset)
{
	int st = a->steps ? tf_agg_steps_is_(a, lset) : 0;
	if (st)
		return st > 0 ? tf_agg_steps_values_(a, node, lset) : NULL;
	uint32_t s = sample_index(a, node, lset);
	return s == UINT32_MAX ? NULL : a->values + (size_t)s * a->stride;
}

int64_t *tf_agg_values(tf_agg *a, uint32_t node, uint32_t lset)
{
	if (node < a->capncache) {
		const struct node_cache *c = &a->ncache[node];
		if (c->last_sample != UINT32_MAX && c->last_lset == lset) /* the usual case */
			return a->values + (size_t)c->last_sample * a->stride;
	} else if (node >= tf_cpath_count(a->cp)) {
		return NULL;
	}
	return values_slow(a, node, lset);
}

int tf_agg_add(tf_agg *a, uint32_t node, uint32_t lset, int t, int64_t v)
{
	if (t < 0 || (uint32_t)t >= a->ntypes || node >= tf_cpath_count(a->cp))
		return TF_EUSAGE;
	int st = a->steps ? tf_agg_steps_is_(a, lset) : 0;
	if (st)
		return st > 0 ? tf_agg_steps_add_(a, node, lset, t, v) : st;
	uint32_t s = sample_index(a, node, lset);
	if (s == UINT32_MAX)
		return TF_ENOMEM;
	return add_at(a, s, (uint32_t)t, v);
}

int tf_agg_add_values(tf_agg *a, uint32_t node, uint32_t lset, const int64_t *values)
{
	if (node >= tf_cpath_count(a->cp))
		return TF_EUSAGE;
	int st = a->steps ? tf_agg_steps_is_(a, lset) : 0;
	if (st)
		return st > 0 ? tf_agg_steps_add_values_(a, node, lset, values) : st;
	uint32_t s = sample_index(a, node, lset);
	if (s == UINT32_MAX)
		return TF_ENOMEM;
	for (uint32_t t = 0; t < a->ntypes; t++)
		TF_TRY(add_at(a, s, t, values[t]));
	return 0;
}

tf_agg_sample tf_agg_sample_get(const tf_agg *a, size_t i)
{
	return (tf_agg_sample){ a->samples[i].node, a->samples[i].labelset };
}

int64_t tf_agg_sample_value(const tf_agg *a, size_t i, int t)
{
	if (t < TF_AGG_DENSE_TYPES)
		return a->values[i * a->stride + (size_t)t];
	uint32_t j = tf_hmap_get(&a->sp_idx, (uint64_t)i << 32 | (uint32_t)t);
	return j == UINT32_MAX ? 0 : a->sp[j].v;
}

void tf_agg_sample_values(const tf_agg *a, size_t i, int64_t *values_out)
{
	uint32_t nd = ndense(a);
	memcpy(values_out, a->values + i * a->stride, nd * sizeof(int64_t));
	if (a->ntypes > nd)
		memset(values_out + nd, 0, (a->ntypes - nd) * sizeof(int64_t));
	for (uint32_t j = i < a->nsphead ? a->sp_head[i] : UINT32_MAX; j != UINT32_MAX; j = a->sp[j].next)
		values_out[a->sp[j].type] = a->sp[j].v;
}

int tf_agg_sample_nonzero(const tf_agg *a, size_t i)
{
	const int64_t *v = a->values + i * a->stride;
	for (uint32_t t = 0, nd = ndense(a); t < nd; t++)
		if (v[t])
			return 1;
	for (uint32_t j = i < a->nsphead ? a->sp_head[i] : UINT32_MAX; j != UINT32_MAX; j = a->sp[j].next)
		if (a->sp[j].v)
			return 1;
	return 0;
}

int tf_agg_merge(tf_agg *dst, const tf_agg *src, int allow_new_types)
{
	if (dst->st != src->st)
		return TF_ECLASH;
	/* src type -> dst type (any number of types: -c all can make thousands) */
	int *map = malloc(((size_t)src->ntypes + 1) * sizeof(int));
	uint32_t *nmap = NULL, *lmap = NULL;
	int rc = 0;
	if (!map)
		return TF_ENOMEM;
	for (uint32_t t = 0; t < src->ntypes; t++) {
		const char *name = tf_strtab_get(src->st, src->types[t].type);
		const char *unit = tf_strtab_get(src->st, src->types[t].unit);
		int i = tf_agg_type_find(dst, name);
		if (i < 0 && allow_new_types == TF_AGG_TYPES_DROP) {
			map[t] = -1; /* left out */
			continue;
		}
		if (i < 0 && !allow_new_types)
			rc = TF_ECLASH;
		else if (i >= 0 && strcmp(tf_strtab_get(dst->st, dst->types[i].unit), unit) != 0)
			rc = TF_ECLASH;
		else if (i < 0 && (i = tf_agg_type(dst, name, unit)) < 0)
			rc = i;
		if (rc < 0)
			goto out;
		map[t] = i;
	}
	if (dst->default_type < 0 && src->default_type >= 0 && map[src->default_type] >= 0)
		dst->default_type = map[src->default_type];
	/* nodes: parents always precede children, so one pass maps them */
	uint32_t snodes = tf_cpath_count(src->cp);
	nmap = malloc((size_t)snodes * sizeof(uint32_t));
	lmap = malloc((size_t)(src->nlsets ? src->nlsets : 1) * sizeof(uint32_t));
	if (!nmap || !lmap) {
		rc = TF_ENOMEM;
		goto out;
	}
	nmap[0] = TF_AGG_ROOT;
	for (uint32_t n = 1; n < snodes; n++) {
		const tf_cpath_node *sn = tf_cpath_get(src->cp, n);
		nmap[n] = tf_agg_child(dst, nmap[sn->parent], sn->frame);
		if (nmap[n] == (uint32_t)-1) {
			rc = TF_ENOMEM;
			goto out;
		}
	}
	for (uint32_t l = 0; l < src->nlsets; l++) {
		lmap[l] = tf_agg_labelset(dst, src->lsets[l].l, src->lsets[l].n);
		if (lmap[l] == (uint32_t)-1) {
			rc = TF_ENOMEM;
			goto out;
		}
	}
	for (uint32_t s = 0; s < src->nsamples; s++) {
		const int64_t *v = src->values + (size_t)s * src->stride;
		uint32_t d = sample_index(dst, nmap[src->samples[s].node], lmap[src->samples[s].labelset]);
		if (d == UINT32_MAX) {
			rc = TF_ENOMEM;
			goto out;
		}
		for (uint32_t t = 0, nd = ndense(src); t < nd && rc == 0; t++)
			if (map[t] >= 0)
				rc = add_at(dst, d, (uint32_t)map[t], v[t]);
		for (uint32_t j = s < src->nsphead ? src->sp_head[s] : UINT32_MAX; j != UINT32_MAX && rc == 0;
		     j = src->sp[j].next)
			if (map[src->sp[j].type] >= 0)
				rc = add_at(dst, d, (uint32_t)map[src->sp[j].type], src->sp[j].v);
		if (rc < 0)
			goto out;
	}
	/* the bytewise smaller name: the same whatever the order of merges */
	if (!dst->meta.main_file || (src->meta.main_file && str_cmp(dst->st, src->meta.main_file, dst->meta.main_file) < 0))
		dst->meta.main_file = src->meta.main_file;
	/* span: earliest start, latest end */
	if (src->meta.time_nanos || src->meta.duration_nanos) {
		if (!dst->meta.time_nanos && !dst->meta.duration_nanos) {
			dst->meta.time_nanos = src->meta.time_nanos;
			dst->meta.duration_nanos = src->meta.duration_nanos;
		} else {
			int64_t s0 = dst->meta.time_nanos < src->meta.time_nanos ? dst->meta.time_nanos : src->meta.time_nanos;
			int64_t e0 = tf_sat_add(dst->meta.time_nanos, dst->meta.duration_nanos);
			int64_t e1 = tf_sat_add(src->meta.time_nanos, src->meta.duration_nanos);
			dst->meta.time_nanos = s0;
			dst->meta.duration_nanos = tf_sat_sub(e0 > e1 ? e0 : e1, s0);
		}
	}
out:
	free(map);
	free(nmap);
	free(lmap);
	return rc;
}

int tf_agg_permute_types(tf_agg *a, const int *perm)
{
	if (tf_agg_steps_fold(a) < 0)
		return TF_ENOMEM;
	uint32_t nt = a->ntypes, nd = ndense(a);
	uint32_t *inv = malloc(((size_t)nt + 1) * sizeof(uint32_t));
	tf_sample_type *ty = malloc(((size_t)nt + 1) * sizeof(tf_sample_type));
	int64_t *nv = calloc((size_t)(a->capvalues ? a->capvalues : 1) * a->stride, sizeof(int64_t));
	tf_agg sp = *a; /* the new sparse store is built in a copy, swapped in on success */
	int rc = TF_ENOMEM;
	sp.sp = NULL;
	sp.nsp = sp.capsp = 0;
	sp.sp_head = NULL;
	sp.nsphead = 0;
	memset(&sp.sp_idx, 0, sizeof(sp.sp_idx));
	if (!inv || !ty || !nv)
		goto out;
	rc = TF_EUSAGE;
	memset(inv, 0xff, ((size_t)nt + 1) * sizeof(uint32_t));
	for (uint32_t i = 0; i < nt; i++) {
		if (perm[i] < 0 || (uint32_t)perm[i] >= nt || inv[perm[i]] != UINT32_MAX)
			goto out;
		inv[perm[i]] = i;
		ty[i] = a->types[perm[i]];
	}
	rc = 0;
	for (uint32_t s = 0; s < a->nsamples && rc == 0; s++) {
		const int64_t *v = a->values + (size_t)s * a->stride;
		int64_t *w = nv + (size_t)s * a->stride;
		for (uint32_t t = 0; t < nd && rc == 0; t++) {
			if (inv[t] < TF_AGG_DENSE_TYPES)
				w[inv[t]] = v[t];
			else
				rc = sparse_add(&sp, s, inv[t], v[t]);
		}
		for (uint32_t j = s < a->nsphead ? a->sp_head[s] : UINT32_MAX; j != UINT32_MAX && rc == 0; j = a->sp[j].next) {
			uint32_t t = inv[a->sp[j].type];
			if (t < TF_AGG_DENSE_TYPES)
				w[t] = a->sp[j].v;
			else
				rc = sparse_add(&sp, s, t, a->sp[j].v);
		}
	}
	if (rc < 0)
		goto out;
	memcpy(a->types, ty, (size_t)nt * sizeof(tf_sample_type));
	if (a->default_type >= 0 && (uint32_t)a->default_type < nt)
		a->default_type = (int)inv[a->default_type];
	free(a->values);
	a->values = nv;
	nv = NULL;
	/* swap the sparse stores: the old one is freed below */
	struct sparse_val *osp = a->sp;
	uint32_t *ohead = a->sp_head;
	tf_hmap oidx = a->sp_idx;
	a->sp = sp.sp, a->nsp = sp.nsp, a->capsp = sp.capsp;
	a->sp_head = sp.sp_head, a->nsphead = sp.nsphead;
	a->sp_idx = sp.sp_idx;
	sp.sp = osp, sp.sp_head = ohead, sp.sp_idx = oidx;
out:
	free(sp.sp);
	free(sp.sp_head);
	tf_hmap_free(&sp.sp_idx);
	free(inv);
	free(ty);
	free(nv);
	return rc;
}

/* ---- canonical sample order */

static int frame_cmp(const void *ctx, uint32_t x, uint32_t y)
{
	const tf_agg *a = ctx;
	return str_cmp(a->st, tf_cpath_get(a->cp, x)->frame, tf_cpath_get(a->cp, y)->frame);
}

static int lset_cmp(const void *ctx, uint32_t x, uint32_t y)
{
	const tf_agg *a = ctx;
	const labelset *p = &a->lsets[x], *q = &a->lsets[y];
	for (int i = 0; i < p->n && i < q->n; i++) {
		int c = label_cmp(a->st, &p->l[i], &q->l[i]);
		if (c)
			return c;
	}
	return (p->n > q->n) - (p->n < q->n);
}

static int key_cmp(const void *ctx, uint32_t x, uint32_t y)
{
	const uint64_t *k = ctx;
	return (k[x] > k[y]) - (k[x] < k[y]);
}

int tf_agg_sample_order(const tf_agg *a, uint32_t **order_out)
{
	uint32_t nn = tf_cpath_count(a->cp), ns = a->nsamples, nl = a->nlsets;
	size_t big = nn > ns ? nn : ns;
	big = big > nl ? big : nl;
	uint32_t *start = calloc((size_t)nn + 2, sizeof(uint32_t)); /* children of p: kids[start[p] .. start[p+1]) */
	uint32_t *kids = malloc(((size_t)nn + 1) * sizeof(uint32_t));
	uint32_t *rank = malloc(((size_t)nn + 1) * sizeof(uint32_t)); /* node -> preorder rank */
	uint32_t *lrank = malloc(((size_t)nl + 1) * sizeof(uint32_t));
	uint32_t *tmp = malloc((big + 1) * sizeof(uint32_t));
	uint64_t *key = malloc(((size_t)ns + 1) * sizeof(uint64_t));
	uint32_t *order = malloc(((size_t)ns + 1) * sizeof(uint32_t));
	uint32_t *stack = malloc(((size_t)nn + 1) * sizeof(uint32_t));
	uint32_t *cur = malloc(((size_t)nn + 1) * sizeof(uint32_t)); /* p's next child to visit */
	int rc = TF_ENOMEM;
	*order_out = NULL;
	if (!start || !kids || !rank || !lrank || !tmp || !key || !order || !stack || !cur)
		goto out;
	/* children per parent (counting sort), each node's children by frame bytes */
	for (uint32_t n = 1; n < nn; n++)
		start[tf_cpath_get(a->cp, n)->parent + 2]++;
	for (uint32_t p = 0; p < nn; p++)
		start[p + 2] += start[p + 1];
	for (uint32_t n = 1; n < nn; n++)
		kids[start[tf_cpath_get(a->cp, n)->parent + 1]++] = n;
	for (uint32_t p = 0; p < nn; p++)
		if (start[p + 1] - start[p] > 1)
			tf_msort_u32(kids + start[p], tmp, start[p + 1] - start[p], frame_cmp, a);
	/* depth-first preorder */
	memcpy(cur, start, (size_t)nn * sizeof(uint32_t));
	uint32_t sp = 0, r = 0;
	if (nn) {
		rank[TF_AGG_ROOT] = r++;
		stack[sp++] = TF_AGG_ROOT;
	}
	while (sp) {
		uint32_t p = stack[sp - 1];
		if (cur[p] < start[p + 1]) {
			uint32_t c = kids[cur[p]++];
			rank[c] = r++;
			stack[sp++] = c;
		} else {
			sp--;
		}
	}
	/* label sets by content */
	for (uint32_t l = 0; l < nl; l++) /* the sorted ids first, then their ranks */
		lrank[l] = l;
	tf_msort_u32(lrank, tmp, nl, lset_cmp, a);
	for (uint32_t i = 0; i < nl; i++)
		tmp[lrank[i]] = i;
	if (nl)
		memcpy(lrank, tmp, (size_t)nl * sizeof(uint32_t));
	/* samples by (call path rank, label set rank): unique keys */
	for (uint32_t s = 0; s < ns; s++) {
		uint32_t l = a->samples[s].labelset;
		key[s] = (uint64_t)rank[a->samples[s].node] << 32 | (l < nl ? lrank[l] : nl);
		order[s] = s;
	}
	tf_msort_u32(order, tmp, ns, key_cmp, key);
	*order_out = order;
	order = NULL;
	rc = 0;
out:
	free(start);
	free(kids);
	free(rank);
	free(lrank);
	free(tmp);
	free(key);
	free(order);
	free(stack);
	free(cur);
	return rc;
}

int tf_agg_comment(tf_agg *a, const char *text)
{
	if (tf_grow((void **)&a->comments, &a->capcomments, a->ncomments + 1, sizeof(char *)) < 0)
		return TF_ENOMEM;
	char *c = strdup(text);
	if (!c)
		return TF_ENOMEM;
	a->comments[a->ncomments++] = c;
	return 0;
}

size_t tf_agg_bytes(const tf_agg *a)
{
	return (a->own_cp ? tf_cpath_bytes(a->cp) : 0) + (size_t)a->capncache * sizeof(struct node_cache) +
	       (size_t)a->caplsets * sizeof(labelset) + (size_t)a->capsamples * sizeof(sample_key) +
	       (size_t)a->sample_idx.cap * 12 + (size_t)a->capvalues * a->stride * 8 +
	       (size_t)a->capsp * sizeof(struct sparse_val) + (size_t)a->nsphead * 4 + (size_t)a->sp_idx.cap * 12;
}

int tf_agg_sample_each(const tf_agg *a, size_t i, tf_agg_value_fn fn, void *arg)
{
	const int64_t *v = a->values + i * a->stride;
	for (uint32_t t = 0, nd = ndense(a); t < nd; t++)
		if (v[t])
			TF_TRY(fn(arg, (int)t, v[t]));
	for (uint32_t j = i < a->nsphead ? a->sp_head[i] : UINT32_MAX; j != UINT32_MAX; j = a->sp[j].next)
		if (a->sp[j].v)
			TF_TRY(fn(arg, (int)a->sp[j].type, a->sp[j].v));
	return 0;
}

void tf_agg_comments_truncate(tf_agg *a, size_t n)
{
	while (a->ncomments > n)
		free(a->comments[--a->ncomments]);
}

tf_agg *tf_agg_select_types(const tf_agg *src, const int *types, int n)
{
	tf_agg *a = tf_agg_new(src->st);
	int rc = a ? 0 : TF_ENOMEM;
	for (int k = 0; k < n && rc == 0; k++) {
		tf_sample_type ty = tf_agg_type_get(src, types[k]);
		int i = tf_agg_type(a, tf_strtab_get(src->st, ty.type), tf_strtab_get(src->st, ty.unit));
		rc = i < 0 ? i : 0;
		if (rc == 0 && types[k] == src->default_type)
			a->default_type = i;
	}
	if (rc == 0)
		rc = tf_agg_merge(a, src, TF_AGG_TYPES_DROP);
	for (size_t k = 0; rc == 0 && k < src->ncomments; k++)
		rc = tf_agg_comment(a, tf_agg_comment_get(src, k));
	if (rc < 0) {
		tf_agg_free(a);
		return NULL;
	}
	a->meta = src->meta;
	return a;
}
