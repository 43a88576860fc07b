/* agg_pack.c - an aggregate as compact bytes and back (agg_pack.h).
 *
 * Format, version 1.  Every number is an unsigned LEB128 varint (7 bits a
 * byte, low group first, at most 10 bytes); "zz" marks a signed value
 * stored zigzag-encoded ((v << 1) ^ (v >> 63)); "idx" is an index into the
 * buffer's own string table, "idx+1" the same plus one with 0 for none.
 *
 *   magic      7 bytes "TFAGG1\0", then the version (1)
 *   strings    count, then per string: length, the bytes (any bytes)
 *   types      count, then per type: name idx, unit idx
 *   default    default sample type + 1 (0 = none)
 *   meta       zz time_nanos, zz duration_nanos, zz period, main_file idx+1
 *   comments   count, then per comment: length, the bytes
 *   nodes      count (the root is not written: it is node 0), then per node
 *              1..count in id order: parent id (< the node's own id), frame idx
 *   label sets count, then per set: number of labels (<= TF_AGG_MAX_LABELS),
 *              per label: key idx, str idx+1 (0 = numeric), zz num,
 *              num_unit idx+1
 *   samples    count, then per sample: node id (<= nodes count), label set
 *              id (< label sets count), number of non-zero values (<= types
 *              count), per value: type index, zz value
 *
 * and nothing after.  A sample is written even when all its values are 0
 * (the set of samples is exact); values that are 0 are not written.  A
 * sample whose label set id is past the aggregate's label sets (which
 * tf_agg_labelset_get reads as no labels) is written with an empty label
 * set added after the others.
 *
 * Unpacking reads the buffer twice: first only checking it (every count is
 * bounded by the bytes left, so nothing is allocated from a count that the
 * bytes cannot back), then adding it to dst.  Memory is linear in the
 * aggregate in both directions: a map per string, type, node and label set,
 * never one per sample x type. */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tracefold/agg_pack.h"
#include "tracefold/err.h"
#include "buf.h"
#include "grow.h"
#include "hmap.h"
#include "sat.h"

#define MAGIC "TFAGG1"   /* + its NUL: 7 bytes */
#define MAGIC_LEN 7
#define VERSION 1

/* ---------------------------------------------------------------- packing */

typedef struct packer {
	const tf_agg *a;
	const tf_strtab *st;
	tf_hmap sidx;     /* tf_str -> index in strs */
	tf_str *strs;
	uint32_t nstrs, capstrs;
	tf_buf body;      /* everything after the string table */
	bool oom;
} packer;

/* The buffer's index of string s, added if new. */
static uint32_t sid(packer *k, tf_str s)
{
	uint32_t i = tf_hmap_get(&k->sidx, s);
	if (i != UINT32_MAX)
		return i;
	if (tf_grow((void **)&k->strs, &k->capstrs, k->nstrs + 1, sizeof(tf_str)) < 0 ||
	    tf_hmap_put(&k->sidx, s, k->nstrs) < 0) {
		k->oom = true;
		return 0;
	}
	k->strs[k->nstrs] = s;
	return k->nstrs++;
}

static void put_str(packer *k, tf_str s) { tf_buf_varint(&k->body, sid(k, s)); }
static void put_str_opt(packer *k, tf_str s) { tf_buf_varint(&k->body, s ? (uint64_t)sid(k, s) + 1 : 0); }

static int count_value(void *arg, int type, int64_t value)
{
	(void)type;
	(void)value;
	(*(uint64_t *)arg)++;
	return 0;
}

static int put_value(void *arg, int type, int64_t value)
{
	tf_buf *w = arg;
	tf_buf_varint(w, (uint64_t)type);
	tf_buf_svarint(w, value);
	return 0;
}

int tf_agg_pack(const tf_agg *a, void **buf, size_t *len)
{
	*buf = NULL;
	*len = 0;
	packer k;
	memset(&k, 0, sizeof(k));
	k.a = a;
	k.st = tf_agg_strtab(a);
	tf_buf *w = &k.body;

	int ntypes = tf_agg_ntypes(a);
	tf_buf_varint(w, (uint64_t)ntypes);
	for (int t = 0; t < ntypes; t++) {
		tf_sample_type ty = tf_agg_type_get(a, t);
		put_str(&k, ty.type);
		put_str(&k, ty.unit);
	}
	int dt = tf_agg_default_type(a);
	tf_buf_varint(w, dt >= 0 && dt < ntypes ? (uint64_t)dt + 1 : 0);
	const tf_agg_meta *m = tf_agg_meta_get((tf_agg *)a);
	tf_buf_svarint(w, m->time_nanos);
	tf_buf_svarint(w, m->duration_nanos);
	tf_buf_svarint(w, m->period);
	put_str_opt(&k, m->main_file);
	size_t nc = tf_agg_ncomments(a);
	tf_buf_varint(w, nc);
	for (size_t i = 0; i < nc; i++) {
		const char *c = tf_agg_comment_get(a, i);
		size_t cl = strlen(c);
		tf_buf_varint(w, cl);
		tf_buf_put(w, c, cl);
	}
	uint32_t nn = tf_agg_nnodes(a);
	tf_buf_varint(w, nn ? nn - 1 : 0);
	for (uint32_t n = 1; n < nn; n++) {
		const tf_agg_node *nd = tf_agg_node_get(a, n);
		tf_buf_varint(w, nd->parent);
		put_str(&k, nd->frame);
	}
	/* samples with a label set id past the label sets get an empty one */
	uint32_t nls = tf_agg_nlabelsets(a);
	size_t ns = tf_agg_nsamples(a);
	bool extra = false;
	for (size_t i = 0; i < ns && !extra; i++)
		extra = tf_agg_sample_get(a, i).labelset >= nls;
	tf_buf_varint(w, (uint64_t)nls + extra);
	for (uint32_t l = 0; l < nls; l++) {
		const tf_label *lab;
		int n = tf_agg_labelset_get(a, l, &lab);
		tf_buf_varint(w, (uint64_t)n);
		for (int j = 0; j < n; j++) {
			put_str(&k, lab[j].key);
			put_str_opt(&k, lab[j].str);
			tf_buf_svarint(w, lab[j].num);
			put_str_opt(&k, lab[j].num_unit);
		}
	}
	if (extra)
		tf_buf_varint(w, 0);
	tf_buf_varint(w, ns);
	for (size_t i = 0; i < ns; i++) {
		tf_agg_sample s = tf_agg_sample_get(a, i);
		uint64_t nz = 0;
		tf_agg_sample_each(a, i, count_value, &nz);
		tf_buf_varint(w, s.node);
		tf_buf_varint(w, s.labelset < nls ? s.labelset : nls);
		tf_buf_varint(w, nz);
		tf_agg_sample_each(a, i, put_value, w);
	}

	/* header and string table, then the body */
	tf_buf out = { 0 };
	if (!k.oom && !w->oom) {
		size_t strbytes = 0;
		for (uint32_t i = 0; i < k.nstrs; i++)
			strbytes += tf_strtab_len(k.st, k.strs[i]) + 10;
		if (tf_grow_n((void **)&out.p, &out.cap, MAGIC_LEN + 1 + 10 + strbytes + w->n, 1, false) < 0)
			out.oom = true;
		tf_buf_put(&out, MAGIC, MAGIC_LEN);
		tf_buf_varint(&out, VERSION);
		tf_buf_varint(&out, k.nstrs);
		for (uint32_t i = 0; i < k.nstrs; i++) {
			size_t sl = tf_strtab_len(k.st, k.strs[i]);
			tf_buf_varint(&out, sl);
			tf_buf_put(&out, tf_strtab_get(k.st, k.strs[i]), sl);
		}
		tf_buf_put(&out, w->p, w->n);
	}
	int rc = k.oom || w->oom || out.oom ? TF_ENOMEM : 0;
	free(w->p);
	free(k.strs);
	tf_hmap_free(&k.sidx);
	if (rc < 0) {
		free(out.p);
		return rc;
	}
	*buf = out.p;
	*len = out.n;
	return 0;
}

/* -------------------------------------------------------------- unpacking */

typedef struct rd {
	const unsigned char *p;
	size_t n, o;
	const char *what;
	tf_error *err;
} rd;

static int bad(rd *r, size_t at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int bad(rd *r, size_t at, const char *fmt, ...)
{
	char m[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(m, sizeof(m), fmt, ap);
	va_end(ap);
	tf_error_set(r->err, TF_EFORMAT, r->what, (int64_t)at, -1, "packed aggregate: %s", m);
	return TF_EFORMAT;
}

static int get_u(rd *r, uint64_t *v, const char *field)
{
	size_t at = r->o;
	switch (tf_varint_get(r->p, r->n, &r->o, v)) {
	case 0:
		return 0;
	case TF_VARINT_TRUNCATED:
		return bad(r, at, "truncated in %s", field);
	case TF_VARINT_TOO_LARGE:
		return bad(r, at, "%s: varint too large", field);
	default:
		return bad(r, at, "%s: varint too long", field);
	}
}

static int get_s(rd *r, int64_t *v, const char *field)
{
	uint64_t u;
	TF_TRY(get_u(r, &u, field));
	*v = tf_unzigzag(u);
	return 0;
}

/* An index below lim (a count from the buffer). */
static int get_idx(rd *r, uint64_t lim, const char *field, uint32_t *out)
{
	size_t at = r->o;
	uint64_t v;
	*out = 0;
	TF_TRY(get_u(r, &v, field));
	if (v >= lim)
		return bad(r, at, "%s %llu out of range (%llu)", field, (unsigned long long)v, (unsigned long long)lim);
	*out = (uint32_t)v;
	return 0;
}

/* A count of items of at least per bytes each, which the bytes left must
 * be able to hold (so no count from bad bytes allocates much). */
static int get_count(rd *r, size_t per, const char *field, uint32_t *out)
{
	size_t at = r->o;
	uint64_t v;
	TF_TRY(get_u(r, &v, field));
	if (v > (r->n - r->o) / per || v >= UINT32_MAX)
		return bad(r, at, "%s %llu: more than the %zu bytes left can hold", field, (unsigned long long)v, r->n - r->o);
	*out = (uint32_t)v;
	return 0;
}

/* Length-prefixed bytes: *b points into the buffer. */
static int get_bytes(rd *r, const char *field, const unsigned char **b, size_t *len)
{
	size_t at = r->o;
	uint64_t v;
	TF_TRY(get_u(r, &v, field));
	if (v > r->n - r->o)
		return bad(r, at, "%s of %llu bytes: only %zu left", field, (unsigned long long)v, r->n - r->o);
	*b = r->p + r->o;
	*len = (size_t)v;
	r->o += (size_t)v;
	return 0;
}

typedef struct up {
	rd r;
	tf_agg *dst;
	tf_strtab *st;
	bool apply;        /* false: check only; true: add to dst */
	uint32_t nstr, ntypes, nnodes, nls;
	tf_str *smap;      /* buffer string -> dst string */
	int *tmap;         /* buffer type -> dst type */
	uint32_t *nmap;    /* buffer node -> dst node */
	uint32_t *lmap;    /* buffer label set -> dst label set */
	char *tmp;         /* a comment, NUL-terminated */
	size_t captmp;
} up;

static int oom(up *u)
{
	return tf_error_set(u->r.err, TF_ENOMEM, u->r.what, -1, -1, "out of memory adding a packed aggregate");
}

/* An optional string (idx+1, 0 = none) -> dst's tf_str (0 for none). */
static int get_str_opt(up *u, const char *field, tf_str *out)
{
	uint32_t v;
	TF_TRY(get_idx(&u->r, (uint64_t)u->nstr + 1, field, &v));
	*out = u->apply && v ? u->smap[v - 1] : 0;
	return 0;
}

static int get_str(up *u, const char *field, tf_str *out)
{
	uint32_t v;
	TF_TRY(get_idx(&u->r, u->nstr, field, &v));
	*out = u->apply ? u->smap[v] : 0;
	return 0;
}

/* The types: check them against dst (and each other), then add the new ones. */
static int types(up *u)
{
	rd *r = &u->r;
	TF_TRY(get_count(r, 2, "type count", &u->ntypes));
	size_t *at = NULL;
	tf_str *name = NULL, *unit = NULL;
	tf_hmap seen = { 0 };
	int rc = 0;
	if (u->apply) {
		u->tmap = malloc(((size_t)u->ntypes + 1) * sizeof(int));
		at = malloc(((size_t)u->ntypes + 1) * sizeof(size_t));
		name = malloc(((size_t)u->ntypes + 1) * sizeof(tf_str));
		unit = malloc(((size_t)u->ntypes + 1) * sizeof(tf_str));
		if (!u->tmap || !at || !name || !unit) {
			rc = oom(u);
			goto out;
		}
	}
	for (uint32_t t = 0; t < u->ntypes; t++) {
		size_t o = r->o;
		tf_str nm, un;
		if ((rc = get_str(u, "type name", &nm)) < 0 || (rc = get_str(u, "type unit", &un)) < 0)
			goto out;
		if (!u->apply)
			continue;
		at[t] = o;
		/* names are matched as C strings, as tf_agg_merge does */
		const char *text = tf_strtab_get(u->st, nm);
		name[t] = tf_strtab_intern_cstr(u->st, text);
		unit[t] = tf_strtab_intern_cstr(u->st, tf_strtab_get(u->st, un));
		if (name[t] == (tf_str)-1 || unit[t] == (tf_str)-1) {
			rc = oom(u);
			goto out;
		}
		if (tf_hmap_get(&seen, name[t]) != UINT32_MAX) {
			rc = bad(r, o, "sample type '%.200s' twice", text);
			goto out;
		}
		if (tf_hmap_put(&seen, name[t], t) < 0) {
			rc = oom(u);
			goto out;
		}
		int i = tf_agg_type_find(u->dst, text);
		if (i >= 0 && tf_agg_type_get(u->dst, i).unit != unit[t]) {
			rc = tf_error_set(r->err, TF_ECLASH, r->what, (int64_t)o, -1,
					  "packed aggregate: sample type '%.200s' is in '%.100s' here but in '%.100s' where "
					  "it is added", text, tf_strtab_get(u->st, unit[t]),
					  tf_strtab_get(u->st, tf_agg_type_get(u->dst, i).unit));
			goto out;
		}
		u->tmap[t] = i;
	}
	if (u->apply) /* checked: now add the new types, in order */
		for (uint32_t t = 0; t < u->ntypes; t++) {
			if (u->tmap[t] >= 0)
				continue;
			int i = tf_agg_type(u->dst, tf_strtab_get(u->st, name[t]), tf_strtab_get(u->st, unit[t]));
			if (i < 0) {
				rc = i == TF_ENOMEM ? oom(u)
						    : tf_error_set(r->err, i, r->what, (int64_t)at[t], -1,
								   "packed aggregate: cannot add sample type: %s",
								   tf_strerror(i));
				goto out;
			}
			u->tmap[t] = i;
		}
out:
	free(at);
	free(name);
	free(unit);
	tf_hmap_free(&seen);
	return rc;
}

static int parse(up *u)
{
	rd *r = &u->r;
	r->o = 0;
	if (r->n < MAGIC_LEN || memcmp(r->p, MAGIC, MAGIC_LEN) != 0)
		return bad(r, 0, "not a packed aggregate (no TFAGG1 magic)");
	r->o = MAGIC_LEN;
	uint64_t ver;
	size_t at = r->o;
	TF_TRY(get_u(r, &ver, "version"));
	if (ver != VERSION)
		return bad(r, at, "version %llu: not supported (this build reads %d)", (unsigned long long)ver, VERSION);

	/* strings */
	TF_TRY(get_count(r, 1, "string count", &u->nstr));
	if (u->apply && !(u->smap = malloc(((size_t)u->nstr + 1) * sizeof(tf_str))))
		return oom(u);
	for (uint32_t i = 0; i < u->nstr; i++) {
		const unsigned char *b;
		size_t l;
		TF_TRY(get_bytes(r, "string", &b, &l));
		if (u->apply && (u->smap[i] = tf_strtab_intern(u->st, (const char *)b, l)) == (tf_str)-1)
			return oom(u);
	}

	TF_TRY(types(u));
	uint32_t dt;
	TF_TRY(get_idx(r, (uint64_t)u->ntypes + 1, "default type", &dt));
	if (u->apply && dt && tf_agg_default_type(u->dst) < 0)
		tf_agg_set_default_type(u->dst, u->tmap[dt - 1]);

	/* meta, merged as tf_agg_merge does (the period stays dst's) */
	int64_t tn, dn, period;
	tf_str main_file;
	TF_TRY(get_s(r, &tn, "time_nanos"));
	TF_TRY(get_s(r, &dn, "duration_nanos"));
	TF_TRY(get_s(r, &period, "period"));
	TF_TRY(get_str_opt(u, "main_file", &main_file));
	if (u->apply) {
		tf_agg_meta *m = tf_agg_meta_get(u->dst);
		if (!m->main_file)
			m->main_file = main_file;
		if (tn || dn) {
			if (!m->time_nanos && !m->duration_nanos) {
				m->time_nanos = tn;
				m->duration_nanos = dn;
			} else {
				int64_t s0 = m->time_nanos < tn ? m->time_nanos : tn;
				int64_t e0 = tf_sat_add(m->time_nanos, m->duration_nanos);
				int64_t e1 = tf_sat_add(tn, dn);
				m->time_nanos = s0;
				m->duration_nanos = tf_sat_sub(e0 > e1 ? e0 : e1, s0);
			}
		}
	}

	uint32_t nc;
	TF_TRY(get_count(r, 1, "comment count", &nc));
	for (uint32_t i = 0; i < nc; i++) {
		const unsigned char *b;
		size_t l;
		TF_TRY(get_bytes(r, "comment", &b, &l));
		if (!u->apply)
			continue;
		if (tf_grow_n((void **)&u->tmp, &u->captmp, l + 1, 1, false) < 0)
			return oom(u);
		memcpy(u->tmp, b, l);
		u->tmp[l] = '\0';
		if (tf_agg_comment(u->dst, u->tmp) < 0)
			return oom(u);
	}

	/* nodes: ids 1..count, each parent an earlier node (or the root) */
	uint32_t nn;
	TF_TRY(get_count(r, 2, "node count", &nn));
	u->nnodes = nn + 1;
	if (u->apply && !(u->nmap = malloc((size_t)u->nnodes * sizeof(uint32_t))))
		return oom(u);
	if (u->apply)
		u->nmap[0] = TF_AGG_ROOT;
	for (uint32_t n = 1; n < u->nnodes; n++) {
		uint32_t parent;
		tf_str frame;
		TF_TRY(get_idx(r, n, "node parent", &parent));
		TF_TRY(get_str(u, "node frame", &frame));
		if (u->apply && (u->nmap[n] = tf_agg_child(u->dst, u->nmap[parent], frame)) == (uint32_t)-1)
			return oom(u);
	}

	TF_TRY(get_count(r, 1, "label set count", &u->nls));
	if (u->apply && !(u->lmap = malloc(((size_t)u->nls + 1) * sizeof(uint32_t))))
		return oom(u);
	for (uint32_t l = 0; l < u->nls; l++) {
		tf_label lab[TF_AGG_MAX_LABELS];
		uint32_t n;
		TF_TRY(get_idx(r, TF_AGG_MAX_LABELS + 1, "label count", &n));
		for (uint32_t j = 0; j < n; j++) {
			TF_TRY(get_str(u, "label key", &lab[j].key));
			TF_TRY(get_str_opt(u, "label string", &lab[j].str));
			TF_TRY(get_s(r, &lab[j].num, "label number"));
			TF_TRY(get_str_opt(u, "label unit", &lab[j].num_unit));
		}
		if (u->apply && (u->lmap[l] = tf_agg_labelset(u->dst, lab, (int)n)) == (uint32_t)-1)
			return oom(u);
	}

	uint32_t ns;
	TF_TRY(get_count(r, 3, "sample count", &ns));
	for (uint32_t s = 0; s < ns; s++) {
		uint32_t node, ls, nz;
		TF_TRY(get_idx(r, u->nnodes, "sample node", &node));
		TF_TRY(get_idx(r, u->nls, "sample label set", &ls));
		TF_TRY(get_idx(r, (uint64_t)u->ntypes + 1, "sample value count", &nz));
		uint32_t dnode = u->apply ? u->nmap[node] : 0, dls = u->apply ? u->lmap[ls] : 0;
		/* the sample exists in dst even when it has no value */
		if (u->apply && !tf_agg_values(u->dst, dnode, dls))
			return oom(u);
		for (uint32_t j = 0; j < nz; j++) {
			uint32_t t;
			int64_t v;
			TF_TRY(get_idx(r, u->ntypes, "value type", &t));
			TF_TRY(get_s(r, &v, "value"));
			if (u->apply) {
				int rc = tf_agg_add(u->dst, dnode, dls, u->tmap[t], v);
				if (rc < 0)
					return rc == TF_ENOMEM ? oom(u) : tf_error_set(r->err, rc, r->what, -1, -1,
										      "packed aggregate: %s", tf_strerror(rc));
			}
		}
	}
	if (r->o != r->n)
		return bad(r, r->o, "%zu bytes after the samples", r->n - r->o);
	return 0;
}

static void up_free(up *u)
{
	free(u->smap);
	free(u->tmap);
	free(u->nmap);
	free(u->lmap);
	free(u->tmp);
	u->smap = NULL;
	u->tmap = NULL;
	u->nmap = NULL;
	u->lmap = NULL;
	u->tmp = NULL;
	u->captmp = 0;
}

int tf_agg_unpack_merge(tf_agg *dst, const void *buf, size_t len, const char *what, tf_error *err)
{
	up u;
	memset(&u, 0, sizeof(u));
	u.r = (rd){ buf, buf ? len : 0, 0, what, err };
	u.dst = dst;
	u.st = tf_agg_strtab(dst);
	int rc = parse(&u); /* check everything first: bad bytes leave dst as it was */
	if (rc == 0) {
		u.apply = true;
		rc = parse(&u);
	}
	up_free(&u);
	return rc;
}
