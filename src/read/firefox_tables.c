/* firefox_tables.c - the Firefox Profiler reader's tables (firefox_int.h):
 * stackTable, frameTable, funcTable and stringArray decoded once per set
 * (profile.shared, or each thread's below version 60), function names
 * (with the old versions' upgrader renames) and stack ids cached per row. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "firefox_int.h"

int ff_fail(ff *r, const void *at, const char *fmt, ...)
{
	char msg[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	int64_t off = at ? (int64_t)((const unsigned char *)at - r->buf) : -1;
	return tf_error_set(r->err, TF_EFORMAT, r->path, off, -1, "%s", msg);
}

int ff_oom(ff *r)
{
	return tf_error_set(r->err, TF_ENOMEM, r->path, -1, (int64_t)r->index, "out of memory");
}

/* The text of a string span (unescaped) or of any other value, in r->tmp
 * (NUL-terminated); its length, or -1 when out of memory. */
static ptrdiff_t text_of(ff *r, const tf_json_span *s)
{
	if (r->tmp_cap < s->n + 1) {
		size_t cap = s->n + 64;
		char *t = realloc(r->tmp, cap);
		if (!t)
			return -1;
		r->tmp = t;
		r->tmp_cap = cap;
	}
	size_t n = s->type == TF_JSON_STRING && s->esc ? tf_json_unescape(s->p, s->n, r->tmp) : s->n;
	if (!(s->type == TF_JSON_STRING && s->esc))
		memcpy(r->tmp, s->p, n);
	r->tmp[n] = 0;
	return (ptrdiff_t)n;
}

tf_str ff_intern(ff *r, const tf_json_span *s)
{
	ptrdiff_t n = text_of(r, s);
	return n < 0 ? (tf_str)-1 : tf_strtab_intern(r->st, r->tmp, (size_t)n);
}

/* ---- columns ---- */

/* table.key as indices into *out (malloc'd).  An absent column: error when
 * need, else out->n = 0. */
static int column(ff *r, const tf_json_span *table, const char *tname, const char *key, bool need, ivec *out)
{
	tf_json_span c = tf_json_member(table, key), v;
	out->v = NULL;
	out->n = 0;
	if (c.type == TF_JSON_NONE || tf_json_is_null(&c)) {
		if (need)
			return ff_fail(r, table->p, "%s has no %s column", tname, key);
		return 0;
	}
	if (c.type != TF_JSON_ARRAY)
		return ff_fail(r, c.p, "%s.%s is not an array", tname, key);
	size_t cap = 0;
	arr_iter it;
	arr_begin(&it, &c);
	while (arr_next(&it, &v)) {
		int64_t x = -1;
		if (!tf_json_is_null(&v) && (v.type != TF_JSON_NUMBER || !tf_json_i64(&v, &x) || x < 0))
			return ff_fail(r, v.p, "%s.%s[%zu] is not an index (a number >= 0 or null)", tname, key, out->n);
		if (out->n == cap) {
			cap = cap ? 2 * cap : 64;
			int64_t *nv = realloc(out->v, cap * sizeof *nv);
			if (!nv)
				return ff_oom(r);
			out->v = nv;
		}
		out->v[out->n++] = x;
	}
	return 0;
}

void ff_tables_free(tables *t)
{
	free(t->prefix.v);
	free(t->frame.v);
	free(t->func.v);
	free(t->name.v);
	free(t->sid);
	free(t->fname);
	memset(t, 0, sizeof *t);
}

/* The tables of holder (profile.shared or a thread): stackTable,
 * frameTable, funcTable. */
int ff_tables_read(ff *r, const tf_json_span *holder, tables *t)
{
	tf_json_span stk = tf_json_member(holder, "stackTable"), frm = tf_json_member(holder, "frameTable");
	tf_json_span fun = tf_json_member(holder, "funcTable");
	if (stk.type != TF_JSON_OBJECT || frm.type != TF_JSON_OBJECT || fun.type != TF_JSON_OBJECT)
		return ff_fail(r, holder->p, "no stackTable, frameTable and funcTable objects");
	TF_TRY(column(r, &stk, "stackTable", "frame", true, &t->frame));
	TF_TRY(column(r, &frm, "frameTable", "func", true, &t->func));
	TF_TRY(column(r, &fun, "funcTable", "name", true, &t->name));
	tf_json_span po = tf_json_member(&stk, "prefixOffset");
	if (po.type == TF_JSON_ARRAY) { /* >= 66: parent = i - prefixOffset[i], 0 for a root */
		TF_TRY(column(r, &stk, "stackTable", "prefixOffset", true, &t->prefix));
		for (size_t i = 0; i < t->prefix.n; i++) {
			int64_t o = t->prefix.v[i];
			if (o < 0 || (uint64_t)o > i)
				return ff_fail(r, po.p, "stackTable.prefixOffset[%zu] = %lld points before the table", i,
					    (long long)o);
			t->prefix.v[i] = o == 0 ? -1 : (int64_t)i - o;
		}
	} else {
		TF_TRY(column(r, &stk, "stackTable", "prefix", true, &t->prefix));
	}
	if (t->prefix.n != t->frame.n)
		return ff_fail(r, stk.p, "stackTable has %zu prefixes and %zu frames", t->prefix.n, t->frame.n);
	t->sid = malloc((t->frame.n + 1) * sizeof *t->sid);
	t->fname = malloc((t->name.n + 1) * sizeof *t->fname);
	if (!t->sid || !t->fname)
		return ff_oom(r);
	memset(t->sid, 0xff, (t->frame.n + 1) * sizeof *t->sid);
	memset(t->fname, 0xff, (t->name.n + 1) * sizeof *t->fname);
	t->ready = true;
	return 0;
}

int ff_strs_read(ff *r, const tf_json_span *a, strs *s)
{
	tf_json_span v;
	size_t cap = 0;
	arr_iter it;
	arr_begin(&it, a);
	while (arr_next(&it, &v)) {
		if (v.type != TF_JSON_STRING)
			return ff_fail(r, v.p, "stringArray[%zu] is not a string", s->n);
		if (s->n == cap) {
			cap = cap ? 2 * cap : 64;
			tf_json_span *ns = realloc(s->s, cap * sizeof *ns);
			if (!ns)
				return ff_oom(r);
			s->s = ns;
		}
		s->s[s->n++] = v;
	}
	s->ready = true;
	return 0;
}

/* ---- names and stacks ---- */

/* The renames of the profiler's upgraders for versions below 4 (a JS
 * function "f (url:line)" is split into name, file and line: the name is
 * f) and below 17 (label frames lose "AutoEntryScript "), on r->tmp[0..n). */
static size_t upgrade_name(ff *r, size_t n)
{
	char *s = r->tmp;
	if (r->version < 4 && n > 0 && s[n - 1] == ')') {
		size_t j = n - 1;
		while (j > 0 && s[j - 1] >= '0' && s[j - 1] <= '9')
			j--;
		if (j < n - 1 && j > 0 && s[j - 1] == ':') {
			size_t colon = j - 1;
			/* the last " (" that ends at or before the colon, after a non-empty name */
			for (size_t p = colon >= 2 ? colon - 2 : 0; p > 0 && colon >= 2; p--)
				if (s[p] == ' ' && s[p + 1] == '(') {
					n = p;
					s[n] = 0;
					break;
				}
		}
	}
	static const char aes[] = "AutoEntryScript ";
	if (r->version < 17 && n >= sizeof aes - 1 && memcmp(s, aes, sizeof aes - 1) == 0) {
		memmove(s, s + sizeof aes - 1, n - (sizeof aes - 1) + 1);
		n -= sizeof aes - 1;
	}
	return n;
}

/* Our name of stack row y's function; at: the sample, for errors. */
static int frame_name(ff *r, tables *t, const strs *ss, int64_t y, const void *at, tf_str *out)
{
	int64_t f = t->frame.v[y];
	if (f < 0 || (uint64_t)f >= t->func.n)
		return ff_fail(r, at, "stackTable.frame[%lld] = %lld is not a row of frameTable (%zu rows)",
			    (long long)y, (long long)f, t->func.n);
	int64_t fn = t->func.v[f];
	if (fn < 0 || (uint64_t)fn >= t->name.n)
		return ff_fail(r, at, "frameTable.func[%lld] = %lld is not a row of funcTable (%zu rows)",
			    (long long)f, (long long)fn, t->name.n);
	if (t->fname[fn] != UNSET) {
		*out = t->fname[fn];
		return 0;
	}
	int64_t si = t->name.v[fn];
	if (si < 0 || (uint64_t)si >= ss->n)
		return ff_fail(r, at, "funcTable.name[%lld] = %lld is not an entry of stringArray (%zu strings)",
			    (long long)fn, (long long)si, ss->n);
	ptrdiff_t n = text_of(r, &ss->s[si]);
	if (n < 0)
		return ff_oom(r);
	size_t m = upgrade_name(r, (size_t)n);
	tf_str id = tf_strtab_intern(r->st, r->tmp, m);
	if (id == (tf_str)-1)
		return ff_oom(r);
	*out = t->fname[fn] = id;
	return 0;
}

/* Our stack id of stack index s (built root first, once per index). */
int ff_stack_id(ff *r, tables *t, const strs *ss, int64_t s, const void *at, uint32_t *out)
{
	size_t n = t->frame.n, k = 0;
	if (s < 0 || (uint64_t)s >= n)
		return ff_fail(r, at, "stack %lld is not a row of stackTable (%zu rows)", (long long)s, n);
	int64_t x = s;
	while (x >= 0 && t->sid[x] == UNSET) {
		if (k >= n)
			return ff_fail(r, at, "stack %lld: stackTable's prefixes make a cycle", (long long)s);
		if (k == r->walk_cap) {
			size_t cap = r->walk_cap ? 2 * r->walk_cap : 64;
			int64_t *w = realloc(r->walk, cap * sizeof *w);
			if (!w)
				return ff_oom(r);
			r->walk = w;
			r->walk_cap = cap;
		}
		r->walk[k++] = x;
		int64_t p = t->prefix.v[x];
		if (p >= (int64_t)n)
			return ff_fail(r, at, "stackTable.prefix[%lld] = %lld is not a row of stackTable (%zu rows)",
				    (long long)x, (long long)p, n);
		x = p;
	}
	uint32_t id = x < 0 ? TF_CPATH_ROOT : t->sid[x];
	while (k--) {
		tf_str name = 0;
		TF_TRY(frame_name(r, t, ss, r->walk[k], at, &name));
		id = tf_ctx_stack_child(r->ctx, id, name);
		if (id == (uint32_t)-1)
			return ff_oom(r);
		t->sid[r->walk[k]] = id;
	}
	*out = id;
	return 0;
}
