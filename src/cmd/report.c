/* report.c - per-function statistics and formatting shared by top and diff. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "report.h"
#include "jsonq.h"
#include "cmd.h"
#include "tracefold/stack.h"
#include "tracefold/err.h"
#include "sat.h"

int tf_fnstats_warn_saturated(const tf_fnstats *s)
{
	if (s->saturated && !tf_quiet)
		tf_msg("WARNING: sums exceed the int64 range (292 years in ns) and are clamped at its end: "
		       "the totals and shares are not exact");
	return 0;
}

long long tf_json_int(double v, const char *unit)
{
	double f = tf_unit_ns(unit);
	double x = f ? v * f : v;
	if (!(x < 9223372036854775807.0)) /* also NaN */
		return x != x ? 0 : INT64_MAX;
	if (x <= -9223372036854775808.0)
		return INT64_MIN;
	return llround(x);
}

int64_t tf_fnstats_find(const tf_fnstats *s, tf_str name)
{
	uint32_t i = tf_hmap_get(&s->idx, name);
	return i == UINT32_MAX ? -1 : (int64_t)i;
}

static int64_t entry(tf_fnstats *s, tf_str name)
{
	uint32_t i = tf_hmap_get(&s->idx, name);
	if (i != UINT32_MAX)
		return i;
	if (tf_grow((void **)&s->fn, &s->cap, s->n + 1, sizeof(tf_fnstat)) < 0)
		return -1;
	if (tf_hmap_put(&s->idx, name, s->n) < 0)
		return -1;
	s->fn[s->n] = (tf_fnstat){ name, 0, 0, 0 };
	return s->n++;
}

int tf_fnstats_build(tf_fnstats *s, tf_agg *a, int t, int paths)
{
	memset(s, 0, sizeof(*s));
	s->type = t;
	s->calls_type = -1;
	int ci = tf_agg_type_find(a, "calls");
	if (ci >= 0 && ci != t)
		s->calls_type = ci;
	tf_strtab *st = tf_agg_strtab(a);
	uint32_t nn = tf_agg_nnodes(a);
	uint32_t *stamp = NULL;
	char *buf = NULL;
	size_t cap = 0;
	int rc = TF_ENOMEM;
	s->node_fn = calloc(nn, sizeof(uint32_t));
	if (!s->node_fn)
		goto out;
	/* nodes: parents precede children */
	for (uint32_t n = 1; n < nn; n++) {
		const tf_agg_node *nd = tf_agg_node_get(a, n);
		tf_str name = nd->frame;
		if (paths) {
			const char *fr = tf_strtab_get(st, nd->frame);
			const char *pp = nd->parent ? tf_strtab_get(st, s->fn[s->node_fn[nd->parent]].name) : "";
			size_t need = strlen(pp) + strlen(fr) + 2;
			if (tf_grow_n((void **)&buf, &cap, need, 1, false) < 0)
				goto out;
			snprintf(buf, cap, "%s%s%s", pp, nd->parent ? ";" : "", fr);
			name = tf_strtab_intern_cstr(st, buf);
			if (name == (tf_str)-1)
				goto out;
		}
		int64_t i = entry(s, name);
		if (i < 0)
			goto out;
		s->node_fn[n] = (uint32_t)i;
	}
	stamp = calloc(s->n + 1, sizeof(uint32_t));
	if (!stamp)
		goto out;
	size_t ns = tf_agg_nsamples(a);
	for (size_t k = 0; k < ns; k++) {
		tf_agg_sample smp = tf_agg_sample_get(a, k);
		int64_t v = t >= 0 ? tf_agg_sample_value(a, k, t) : 0;
		int64_t c = s->calls_type >= 0 ? tf_agg_sample_value(a, k, s->calls_type) : 0;
		s->total = tf_sat_add(s->total, v);
		s->calls_total = tf_sat_add(s->calls_total, c);
		if (smp.node == TF_AGG_ROOT)
			continue;
		tf_fnstat *leaf = &s->fn[s->node_fn[smp.node]];
		leaf->self = tf_sat_add(leaf->self, v);
		leaf->calls = tf_sat_add(leaf->calls, c);
		/* inclusive: every distinct function (path prefix) on the path, once */
		uint32_t mark = (uint32_t)k + 1;
		for (uint32_t n = smp.node; n != TF_AGG_ROOT; n = tf_agg_node_get(a, n)->parent) {
			uint32_t f = s->node_fn[n];
			if (stamp[f] == mark)
				continue;
			stamp[f] = mark;
			s->fn[f].total = tf_sat_add(s->fn[f].total, v);
		}
	}
	/* a sum at the end of the int64 range was clamped there */
	s->saturated = s->total == INT64_MAX || s->total == INT64_MIN;
	for (uint32_t i = 0; i < s->n && !s->saturated; i++)
		s->saturated = s->fn[i].total == INT64_MAX || s->fn[i].self == INT64_MAX ||
			       s->fn[i].total == INT64_MIN || s->fn[i].self == INT64_MIN;
	/* keep the functions that count (top's rows, diff's rows on each side):
	 * self, total or calls non-zero; a frame seen only in all-zero samples
	 * (which pprof drops) or only with other sample types is not one */
	uint32_t *remap = stamp, k = 0; /* old index -> new */
	for (uint32_t i = 0; i < s->n; i++) {
		const tf_fnstat *f = &s->fn[i];
		remap[i] = UINT32_MAX;
		if (f->self == 0 && f->total == 0 && f->calls == 0)
			continue;
		remap[i] = k;
		s->fn[k++] = *f;
	}
	s->n = k;
	s->node_fn[TF_AGG_ROOT] = UINT32_MAX;
	for (uint32_t n = 1; n < nn; n++)
		s->node_fn[n] = remap[s->node_fn[n]];
	tf_hmap_free(&s->idx);
	for (uint32_t i = 0; i < s->n; i++)
		if (tf_hmap_put(&s->idx, s->fn[i].name, i) < 0)
			goto out;
	rc = 0;
out:
	free(stamp);
	free(buf);
	if (rc < 0)
		tf_fnstats_free(s);
	return rc;
}

void tf_fnstats_free(tf_fnstats *s)
{
	free(s->fn);
	free(s->node_fn);
	tf_hmap_free(&s->idx);
	memset(s, 0, sizeof(*s));
}

static void put_file(void *u, const char *p, size_t n)
{
	fwrite(p, 1, n, (FILE *)u);
}

void tf_json_str(FILE *f, const char *s)
{
	tf_json_quote(s, strlen(s), put_file, f);
}

void tf_md_code(FILE *f, const char *s)
{
	int ticks = strchr(s, '`') != NULL;
	fputs(ticks ? "`` " : "`", f);
	for (const char *p = s; *p; p++) {
		if (*p == '|')
			fputs("\\|", f);
		else if (*p == '\n' || *p == '\r')
			fputc(' ', f);
		else
			fputc(*p, f);
	}
	fputs(ticks ? " ``" : "`", f);
}

void tf_md_link(FILE *f, const char *text, const char *url)
{
	fputc('[', f);
	tf_md_code(f, text);
	fputs("](", f);
	/* the target percent-encoded where Markdown would end it */
	for (const unsigned char *u = (const unsigned char *)url; *u; u++)
		if (*u <= ' ' || *u == '<' || *u == '>' || *u == '(' || *u == ')' || *u == 0x7F)
			fprintf(f, "%%%02X", *u);
		else
			fputc(*u, f);
	fputc(')', f);
}

void tf_table_init(tf_table *t, int ncols, const char *align, int code_col)
{
	memset(t, 0, sizeof(*t));
	t->ncols = ncols;
	t->align = align;
	t->code_col = code_col;
}

char *tf_text_safe(const char *s)
{
	size_t n = 0;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		n += *p < 0x20 || *p == 0x7f ? 4 : 1;
	char *o = malloc(n + 1), *q = o;
	if (!o)
		return NULL;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p < 0x20 || *p == 0x7f) {
			sprintf(q, "\\x%02x", *p);
			q += 4;
		} else {
			*q++ = (char)*p;
		}
	}
	*q = 0;
	return o;
}

void tf_text_str(FILE *f, const char *s)
{
	char *t = tf_text_safe(s);
	fputs(t ? t : "?", f);
	free(t);
}

int tf_table_add(tf_table *t, const char *const *cells)
{
	if (tf_grow_n((void **)&t->cells, &t->caprows, t->nrows + 1, (size_t)t->ncols * sizeof(char *), false) < 0)
		return TF_ENOMEM;
	char **row = t->cells + t->nrows * (size_t)t->ncols;
	for (int i = 0; i < t->ncols; i++) {
		row[i] = tf_text_safe(cells[i] ? cells[i] : "");
		if (!row[i]) {
			while (i--)
				free(row[i]);
			return TF_ENOMEM;
		}
	}
	t->nrows++;
	return 0;
}


/* --- shortening names for tables ----------------------------------------
 *
 * tf_name_short() keeps a name that fits; otherwise, until it fits, it
 * replaces the contents of balanced template argument lists "<...>" with
 * "..." (the most deeply nested first, one level at a time), then those of
 * balanced argument lists "(...)" after an identifier, then cuts the middle
 * ("start...end"; a Python frame "path/file.py(123): fn" keeps "(123): fn").
 * Widths are code points, as in tf_table. */

/* Code points in s[0..n). */
static size_t cp_count(const char *s, size_t n)
{
	size_t w = 0;
	for (size_t i = 0; i < n; i++)
		w += ((unsigned char)s[i] & 0xc0) != 0x80;
	return w;
}

/* Display width of UTF-8 text (code points). */
static size_t width(const char *s)
{
	return cp_count(s, strlen(s));
}

/* A byte of an identifier (non-ASCII UTF-8 bytes count: letters of other scripts). */
static int ident_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
	       (unsigned char)c >= 0x80;
}

/* Does s[i] follow the keyword "operator"? */
static int after_operator(const char *s, size_t i)
{
	return i >= 8 && memcmp(s + i - 8, "operator", 8) == 0 && (i == 8 || !ident_char(s[i - 9]));
}

typedef struct nm_group {
	size_t open, close; /* byte offsets of the brackets */
	int depth;          /* 1 = outermost bracket */
} nm_group;

typedef struct nm_open {
	size_t at;
	int elidable;
} nm_open;

typedef struct nm_scan {
	nm_group *g;    /* the groups that may be elided */
	uint32_t *at;   /* byte offset of an opening bracket -> index in g + 1, 0 none */
	nm_open *stack; /* brackets open at the scan position */
} nm_scan;

/* Finds the balanced open/close groups of s[0..n) that may be elided: '<'
 * after an identifier or an operator token ("operator<< <T>"), '(' after an
 * identifier, '>', ']' or an operator token ("operator()(int)"), with more
 * than 3 code points inside, and for '(' not all digits (the line number of
 * "file.py(123): fn" stays).  "->" and operator tokens (operator<, <<, <=,
 * >, >>, >=, ()) are no brackets; a bracket without its partner is left
 * alone.  Returns the deepest group's depth, 0 if there is none. */
static int nm_find(const char *s, size_t n, char open, char close, nm_scan *sc)
{
	size_t ns = 0, ng = 0, op_end = SIZE_MAX;
	int maxd = 0;
	memset(sc->at, 0, (n + 1) * sizeof(*sc->at));
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if ((c == '<' || c == '>' || c == '(') && after_operator(s, i)) {
			if (c == '(' && i + 1 < n && s[i + 1] == ')')
				i++;
			else
				while (i + 1 < n && (s[i + 1] == '<' || s[i + 1] == '>' || s[i + 1] == '='))
					i++;
			op_end = i + 1;
			continue;
		}
		if (c == open) {
			char p = i ? s[i - 1] : '\0';
			size_t k = op_end;
			while (open == '<' && k < i && s[k] == ' ')
				k++;
			int ok = ident_char(p) || k == i;
			if (open == '(')
				ok = ok || p == '>' || p == ']';
			/* one that may not be elided still nests the ones inside */
			sc->stack[ns++] = (nm_open){ i, ok };
			continue;
		}
		if (c != close || ns == 0 || (close == '>' && i > 0 && s[i - 1] == '-'))
			continue;
		nm_open o = sc->stack[--ns];
		if (!o.elidable || cp_count(s + o.at + 1, i - o.at - 1) <= 3)
			continue;
		int digits = open == '(';
		for (size_t k = o.at + 1; k < i && digits; k++)
			digits = s[k] >= '0' && s[k] <= '9';
		if (digits)
			continue;
		sc->g[ng] = (nm_group){ o.at, i, (int)ns + 1 };
		sc->at[o.at] = (uint32_t)++ng;
		if ((int)ns + 1 > maxd)
			maxd = (int)ns + 1;
	}
	return maxd;
}

/* s[0..n) with the contents of every group of depth >= level (not inside
 * another such group) replaced by "...", into out; returns its length. */
static size_t nm_collapse(const char *s, size_t n, const nm_scan *sc, int level, char *out)
{
	size_t o = 0;
	for (size_t i = 0; i < n;) {
		uint32_t gi = sc->at[i];
		if (gi && sc->g[gi - 1].depth >= level) {
			const nm_group *g = &sc->g[gi - 1];
			out[o++] = s[i];
			memcpy(out + o, "...", 3);
			o += 3;
			out[o++] = s[g->close];
			i = g->close + 1;
		} else {
			out[o++] = s[i++];
		}
	}
	out[o] = '\0';
	return o;
}

/* Byte offset of code point k of s[0..n) (n if there are fewer). */
static size_t cp_offset(const char *s, size_t n, size_t k)
{
	for (size_t i = 0; i < n; i++)
		if (((unsigned char)s[i] & 0xc0) != 0x80 && k-- == 0)
			return i;
	return n;
}

/* Offset of the "(" of "path/file.py(123): fn", or n. */
static size_t py_line_at(const char *s, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		if (s[i] != '(')
			continue;
		size_t j = i + 1;
		while (j < n && s[j] >= '0' && s[j] <= '9')
			j++;
		if (j > i + 1 && j + 2 < n && s[j] == ')' && s[j + 1] == ':' && s[j + 2] == ' ')
			return i;
	}
	return n;
}

char *tf_name_short(const char *name, size_t max_width)
{
	size_t n = strlen(name);
	if (max_width == 0 || cp_count(name, n) <= max_width)
		return strdup(name);
	char *cur = malloc(n + 1), *tmp = malloc(n + 1);
	nm_scan sc = { malloc((n + 1) * sizeof(nm_group)), malloc((n + 1) * sizeof(uint32_t)),
		       malloc((n + 1) * sizeof(nm_open)) };
	if (!cur || !tmp || !sc.g || !sc.at || !sc.stack) {
		free(cur);
		cur = NULL;
		goto out;
	}
	memcpy(cur, name, n + 1);
	size_t len = n;
	static const char pairs[2][2] = { { '<', '>' }, { '(', ')' } };
	for (int p = 0; p < 2 && cp_count(cur, len) > max_width; p++) {
		int maxd = nm_find(cur, len, pairs[p][0], pairs[p][1], &sc);
		for (int level = maxd; level >= 1; level--) {
			size_t tl = nm_collapse(cur, len, &sc, level, tmp);
			if (level == 1 || cp_count(tmp, tl) <= max_width) {
				char *x = cur;
				cur = tmp;
				tmp = x;
				len = tl;
				break;
			}
		}
	}
	size_t w = cp_count(cur, len);
	if (w > max_width) {
		/* the start and the end, "..." between (a width below 4: the start);
		 * a Python frame keeps "(123): fn" whole when it leaves room */
		size_t dots = max_width > 3 ? 3 : 0;
		size_t head = (max_width - dots) / 2, tail = dots ? max_width - dots - head : 0;
		size_t py = py_line_at(cur, len);
		if (dots && py < len) {
			size_t pyw = cp_count(cur + py, len - py);
			if (pyw > tail && pyw + dots < max_width) {
				tail = pyw;
				head = max_width - dots - tail;
			}
		}
		size_t hb = cp_offset(cur, len, dots ? head : max_width), tb = cp_offset(cur, len, w - tail);
		memcpy(tmp, cur, hb);
		memcpy(tmp + hb, "...", dots);
		memmove(tmp + hb + dots, cur + tb, len - tb);
		tmp[hb + dots + len - tb] = '\0';
		char *x = cur;
		cur = tmp;
		tmp = x;
	}
out:
	free(tmp);
	free(sc.g);
	free(sc.at);
	free(sc.stack);
	return cur;
}

/* --- names of one table, shortened and still told apart -----------------
 *
 * Names that tf_name_short makes equal ("kernel<...>(...)" for two kernels
 * that differ in a template argument) are shortened again around what
 * tells them apart: the start of the name, "...", the text from a little
 * before the first code point where they differ ("char*, 3>, Trivial..."),
 * "...", the end; a name still equal to another (or too short a width to
 * show the difference) gets " #2", " #3", ... in place of its last code
 * points. */

/* Bytes of the prefix all of g's names share, backed off to a code point. */
static size_t common_prefix(const char *const *names, const size_t *g, size_t ng)
{
	size_t p = strlen(names[g[0]]);
	for (size_t k = 1; k < ng; k++) {
		size_t i = 0;
		const char *a = names[g[0]], *b = names[g[k]];
		while (i < p && a[i] && a[i] == b[i])
			i++;
		p = i;
	}
	while (p > 0 && ((unsigned char)names[g[0]][p] & 0xc0) == 0x80)
		p--;
	return p;
}

/* Likewise the common suffix, not reaching into the first p bytes. */
static size_t common_suffix(const char *const *names, const size_t *g, size_t ng, size_t p)
{
	size_t s = SIZE_MAX;
	for (size_t k = 0; k < ng; k++) {
		size_t l = strlen(names[g[k]]) - p;
		if (l < s)
			s = l;
	}
	for (size_t k = 1; k < ng; k++) {
		const char *a = names[g[0]] + strlen(names[g[0]]), *b = names[g[k]] + strlen(names[g[k]]);
		size_t i = 0;
		while (i < s && a[-1 - (ptrdiff_t)i] == b[-1 - (ptrdiff_t)i])
			i++;
		s = i;
	}
	const char *a = names[g[0]] + strlen(names[g[0]]);
	while (s > 0 && ((unsigned char)a[-(ptrdiff_t)s] & 0xc0) == 0x80)
		s--;
	return s;
}

/* "start...DIFF...end" of `name` in at most `width` code points, where the
 * names of its group differ from byte p to strlen - sfx. */
static char *around_diff(const char *name, size_t p, size_t sfx, size_t width)
{
	size_t n = strlen(name), end = n - sfx;
	/* context: 12 code points before the difference, from a word's start */
	size_t ctx = cp_count(name, p) > 12 ? cp_offset(name, p, cp_count(name, p) - 12) : 0;
	for (int k = 0; k < 16 && ctx > 0 && ident_char(name[ctx - 1]) && ident_char(name[ctx]); k++)
		ctx--;
	size_t head_w = width / 4, tail_w = width / 6;
	size_t before_w = cp_count(name, ctx), after_w = cp_count(name + end, n - end);
	if (head_w > before_w)
		head_w = before_w;
	if (tail_w > after_w)
		tail_w = after_w;
	bool dots1 = head_w < before_w, dots2 = tail_w < after_w;
	long room = (long)width - (long)head_w - (long)tail_w - (dots1 ? 3 : 0) - (dots2 ? 3 : 0);
	if (room < 4)
		return NULL;
	size_t mid_w = cp_count(name + ctx, end - ctx);
	bool cut = mid_w > (size_t)room;
	if (cut) /* the middle cut short, "..." after it (the tail's dots serve) */
		mid_w = (size_t)room - (dots2 ? 0 : 3);
	size_t cap = n + 16;
	char *o = malloc(cap);
	if (!o)
		return NULL;
	size_t hb = cp_offset(name, n, head_w), mb = cp_offset(name + ctx, end - ctx, mid_w);
	size_t tb = cp_offset(name + end, n - end, cp_count(name + end, n - end) - tail_w);
	size_t k = 0;
	memcpy(o + k, name, hb), k += hb;
	if (dots1)
		memcpy(o + k, "...", 3), k += 3;
	memcpy(o + k, name + ctx, mb), k += mb;
	if (dots2 || cut)
		memcpy(o + k, "...", 3), k += 3;
	memcpy(o + k, name + end + tb, n - end - tb), k += n - end - tb;
	o[k] = 0;
	return o;
}

static const char *const *g_sort_names;
static int cmp_by_name(const void *x, const void *y)
{
	return strcmp(g_sort_names[*(const size_t *)x], g_sort_names[*(const size_t *)y]);
}

/* Sorts idx[0..n) by names[idx]; true when two neighbours are equal. */
static bool sort_dups(char *const *names, size_t *idx, size_t n)
{
	for (size_t i = 0; i < n; i++)
		idx[i] = i;
	g_sort_names = (const char *const *)names;
	qsort(idx, n, sizeof(size_t), cmp_by_name);
	for (size_t i = 1; i < n; i++)
		if (!strcmp(names[idx[i]], names[idx[i - 1]]))
			return true;
	return false;
}

/* Names still equal get " #2", " #3" ... (the first of each stays). */
static int mark_dups(char **out, size_t *idx, size_t n, size_t width)
{
	for (size_t i = 0; i < n;) {
		size_t j = i + 1;
		while (j < n && !strcmp(out[idx[j]], out[idx[i]]))
			j++;
		for (size_t k = i + 1; k < j; k++) {
			char tag[24];
			int tl = snprintf(tag, sizeof(tag), " #%zu", k - i + 1);
			char *o = out[idx[k]];
			size_t w = cp_count(o, strlen(o)), keep = width && w + (size_t)tl > width ? width - (size_t)tl : w;
			char *x = malloc(strlen(o) + (size_t)tl + 1);
			if (!x)
				return TF_ENOMEM;
			size_t b = cp_offset(o, strlen(o), keep);
			memcpy(x, o, b);
			memcpy(x + b, tag, (size_t)tl + 1);
			free(o);
			out[idx[k]] = x;
		}
		i = j;
	}
	return 0;
}

int tf_names_short(const char *const *names, size_t n, size_t width, char **out)
{
	size_t *idx = malloc((n + 1) * sizeof(size_t)), *g = malloc((n + 1) * sizeof(size_t));
	int rc = idx && g ? 0 : TF_ENOMEM;
	for (size_t i = 0; i < n; i++)
		out[i] = NULL;
	for (size_t i = 0; i < n && rc == 0; i++)
		if (!(out[i] = tf_name_short(names[i], width)))
			rc = TF_ENOMEM;
	/* each round tells apart the names of each group still equal: a
	 * group that shares more than its first difference is split again */
	for (int round = 0; rc == 0 && width && round < 4 && sort_dups(out, idx, n); round++) {
		for (size_t i = 0; i < n && rc == 0;) {
			size_t j = i + 1, ng = 0;
			while (j < n && !strcmp(out[idx[j]], out[idx[i]]))
				j++;
			for (size_t k = i; k < j; k++)
				g[ng++] = idx[k];
			if (ng > 1) {
				size_t p = common_prefix(names, g, ng), sfx = common_suffix(names, g, ng, p);
				for (size_t k = 0; k < ng && rc == 0; k++) {
					char *x = around_diff(names[g[k]], p, sfx, width);
					if (x) {
						free(out[g[k]]);
						out[g[k]] = x;
					}
				}
			}
			i = j;
		}
	}
	if (rc == 0 && width && sort_dups(out, idx, n))
		rc = mark_dups(out, idx, n, width);
	free(idx);
	free(g);
	if (rc < 0)
		for (size_t i = 0; i < n; i++) {
			free(out[i]);
			out[i] = NULL;
		}
	return rc;
}

void tf_table_print(const tf_table *t, FILE *f, int markdown)
{
	size_t *w = calloc((size_t)t->ncols, sizeof(size_t));
	if (!w)
		return;
	for (size_t r = 0; r < t->nrows; r++)
		for (int c = 0; c < t->ncols; c++) {
			size_t x = width(t->cells[r * (size_t)t->ncols + c]);
			if (x > w[c])
				w[c] = x;
		}
	for (size_t r = 0; r < t->nrows; r++) {
		char *const *row = t->cells + r * (size_t)t->ncols;
		if (markdown) {
			fputs("|", f);
			for (int c = 0; c < t->ncols; c++) {
				fputc(' ', f);
				if (r > 0 && c == t->code_col)
					tf_md_code(f, row[c]);
				else
					for (const char *p = row[c]; *p; p++) {
						if (*p == '|')
							fputc('\\', f);
						fputc(*p, f);
					}
				fputs(" |", f);
			}
			fputc('\n', f);
			if (r == 0) {
				fputs("|", f);
				for (int c = 0; c < t->ncols; c++)
					fputs(t->align[c] == 'r' ? " ---: |" : " :--- |", f);
				fputc('\n', f);
			}
			continue;
		}
		for (int c = 0; c < t->ncols; c++) {
			size_t pad = w[c] - width(row[c]);
			int last = c == t->ncols - 1;
			if (c)
				fputs("  ", f);
			if (t->align[c] == 'r')
				for (size_t k = 0; k < pad; k++)
					fputc(' ', f);
			fputs(row[c], f);
			if (t->align[c] != 'r' && !last)
				for (size_t k = 0; k < pad; k++)
					fputc(' ', f);
		}
		fputc('\n', f);
	}
	free(w);
}

void tf_table_free(tf_table *t)
{
	for (size_t i = 0; i < t->nrows * (size_t)t->ncols; i++)
		free(t->cells[i]);
	free(t->cells);
	memset(t, 0, sizeof(*t));
}
