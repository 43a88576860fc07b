/* chrome_coll.c - the facts of a collective on a Chrome trace region
 * (docs/collectives.md): its name from the region's name (gloo:all_reduce,
 * nccl:all_reduce, c10d::allreduce_, ncclDevKernel_AllReduce_Sum_f32_RING_LL)
 * and, where Kineto wrote them (record_param_comms, the NCCL kernels of
 * PyTorch 2.x), its args: Collective name, In/Out msg nelems, dtype,
 * Process Group Name and Ranks.  Noted in the ctx's tf_coll under the
 * region's (track, start, name); regions of other names cost a few byte
 * compares. */
#include <string.h>
#include "chrome_int.h"
#include "tracefold/coll.h"

/* The collective a region's name spells, as (s, n) into name; false when
 * the name is none of a collective's.  *args_only: record_param_comms,
 * whose name says nothing but whose args may. */
static bool name_part(const char *name, size_t len, const char **s, size_t *n, bool *args_only)
{
	static const char *const sep[] = { "gloo:", "nccl:", "rccl:", "c10d::" };
	static const char *const kern[] = { "ncclDevKernel_", "ncclKernel_", "rcclKernel_" };
	*args_only = false;
	if (len == 18 && memcmp(name, "record_param_comms", 18) == 0) {
		*args_only = true;
		*n = 0;
		return true;
	}
	for (size_t i = 0; i < sizeof(sep) / sizeof(sep[0]); i++) {
		size_t l = strlen(sep[i]);
		if (len > l && memcmp(name, sep[i], l) == 0) {
			*s = name + l;
			*n = len - l;
			return true;
		}
	}
	for (size_t i = 0; i < sizeof(kern) / sizeof(kern[0]); i++) {
		size_t l = strlen(kern[i]);
		if (len > l && memcmp(name, kern[i], l) == 0) { /* the word after the prefix: AllReduce */
			const char *us = memchr(name + l, '_', len - l);
			*s = name + l;
			*n = us ? (size_t)(us - *s) : len - l;
			return true;
		}
	}
	return false;
}

static int intern_norm(tf_chrome *r, const char *s, size_t n, tf_str *out)
{
	char buf[64];
	size_t k = tf_coll_normalize(s, n, buf, sizeof(buf));
	*out = k ? tf_strtab_intern(r->st, buf, k) : 0;
	return *out == (tf_str)-1 ? TF_ENOMEM : 0;
}

/* "[0, 1]" (a string or an array) as "[0,1]". */
static int intern_ranks(tf_chrome *r, const tf_json_span *v, tf_str *out)
{
	const char *t;
	size_t n, k = 0;
	*out = 0;
	if (v->type == TF_JSON_ARRAY) {
		t = (const char *)v->p;
		n = v->n;
	} else {
		TF_TRY(tf_chrome_text(r, v, 2, &t, &n));
	}
	char buf[256];
	for (size_t i = 0; i < n && k < sizeof(buf); i++)
		if (t[i] != ' ')
			buf[k++] = t[i];
	if (!k || k == sizeof(buf)) /* empty, or too long to be a useful label: none */
		return 0;
	*out = tf_strtab_intern(r->st, buf, k);
	return *out == (tf_str)-1 ? TF_ENOMEM : 0;
}

/* Kineto's args of a collective into f; false when it has none. */
static int read_args(tf_chrome *r, const tf_chrome_fields *f, tf_coll_facts *c, bool *any)
{
	tf_json_iter it;
	tf_json_span k, v;
	int64_t in = -1, out = -1;
	const char *t;
	size_t n;
	int esize = 0;
	tf_json_iter_begin(&it, &f->args);
	while (tf_json_iter_next(&it, &k, &v)) {
		if (tf_json_is(&k, "Collective name")) {
			TF_TRY(tf_chrome_text(r, &v, 2, &t, &n));
			TF_TRY(intern_norm(r, t, n, &c->name));
		} else if (tf_json_is(&k, "In msg nelems")) {
			if (!tf_json_i64(&v, &in))
				in = -1;
		} else if (tf_json_is(&k, "Out msg nelems")) {
			if (!tf_json_i64(&v, &out))
				out = -1;
		} else if (tf_json_is(&k, "dtype")) {
			TF_TRY(tf_chrome_text(r, &v, 2, &t, &n));
			esize = tf_coll_dtype_size(t, n);
			TF_TRY(tf_chrome_intern(r, &v, 2, &c->dtype));
		} else if (tf_json_is(&k, "Process Group Name")) {
			TF_TRY(tf_chrome_intern(r, &v, 2, &c->pg));
		} else if (tf_json_is(&k, "Process Group Ranks")) {
			TF_TRY(intern_ranks(r, &v, &c->pg_ranks));
		} else {
			continue;
		}
		*any = true;
	}
	/* the message: what this rank puts in (In msg nelems), else what it gets */
	c->nelems = in >= 0 ? in : out;
	if (c->nelems >= 0 && esize && c->nelems <= INT64_MAX / esize)
		c->bytes = c->nelems * esize;
	return 0;
}

int tf_chrome_collective(tf_chrome *r, const tf_chrome_fields *f, const tf_event *ev)
{
	if (!ev->name)
		return 0;
	const char *name = tf_strtab_get(r->st, ev->name), *s = NULL;
	size_t len = tf_strtab_len(r->st, ev->name), n = 0;
	bool args_only;
	if ((name[0] != 'r' && name[0] != 'n' && name[0] != 'g' && name[0] != 'c') ||
	    !name_part(name, len, &s, &n, &args_only))
		return 0;
	tf_coll_facts c = TF_COLL_FACTS_NONE;
	bool any = false;
	if (n) {
		TF_TRY(intern_norm(r, s, n, &c.name));
		any = c.name != 0;
	}
	if (f->args.type == TF_JSON_OBJECT)
		TF_TRY(read_args(r, f, &c, &any));
	if (!any)
		return 0;
	tf_coll *coll = tf_ctx_coll(r->ctx, true);
	if (!coll)
		return TF_ENOMEM;
	return tf_coll_note(coll, ev->track, ev->ts_ns, ev->name, &c);
}
