/* top_label.c - `tracefold top --by-label KEY[,KEY...]`: the totals per
 * value of some labels instead of per function, e.g. communication time
 * per collective and message size (docs/collectives.md):
 *
 *   tracefold top --by-label collective,comm_bytes --sample-type gpu rank*.json
 *
 * A row is one distinct tuple of the keys' values over the samples that
 * have at least one of them (a missing key is "-"); the samples with none
 * are the "unlabelled" total.  Rows by value, most first, then calls,
 * then the values' text, so the order depends only on content. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmd.h"
#include "report.h"
#include "fmt.h"
#include "grow.h"
#include "top_label.h"

#define MAX_KEYS TF_AGG_MAX_LABELS

typedef struct lrow {
	const tf_label *val[MAX_KEYS]; /* the label of each key, NULL when absent */
	int64_t value, calls;
	char *text;                    /* the values as text, for ties and the table */
} lrow;

static const tf_strtab *g_st;

static void label_text(const tf_label *l, char *buf, size_t len)
{
	if (!l)
		snprintf(buf, len, "-");
	else if (l->str)
		snprintf(buf, len, "%s", tf_strtab_get(g_st, l->str));
	else
		snprintf(buf, len, "%" PRId64, l->num);
}

static int row_cmp(const void *x, const void *y)
{
	const lrow *a = x, *b = y;
	if (a->value != b->value)
		return a->value > b->value ? -1 : 1;
	if (a->calls != b->calls)
		return a->calls > b->calls ? -1 : 1;
	return strcmp(a->text, b->text);
}

static int same_label(const tf_label *a, const tf_label *b)
{
	if (!a || !b)
		return a == b;
	return a->str == b->str && (a->str || (a->num == b->num && a->num_unit == b->num_unit));
}

/* The row of label set ls, made if new; -1 when it has none of the keys. */
static int row_of(lrow **rows, uint32_t *n, uint32_t *cap, const tf_label *ls, int nl, const tf_str *keys,
		  int nk, long *idx_out)
{
	const tf_label *val[MAX_KEYS] = { 0 };
	bool any = false;
	for (int k = 0; k < nk; k++)
		for (int i = 0; i < nl; i++)
			if (ls[i].key == keys[k]) {
				val[k] = &ls[i];
				any = true;
				break;
			}
	*idx_out = -1;
	if (!any)
		return 0;
	for (uint32_t r = 0; r < *n; r++) {
		int k = 0;
		while (k < nk && same_label((*rows)[r].val[k], val[k]))
			k++;
		if (k == nk) {
			*idx_out = r;
			return 0;
		}
	}
	if (tf_grow((void **)rows, cap, *n + 1, sizeof(**rows)) < 0)
		return -1;
	lrow *r = &(*rows)[*n];
	memset(r, 0, sizeof(*r));
	memcpy(r->val, val, sizeof(val));
	char buf[MAX_KEYS * 96] = "", one[96];
	for (int k = 0; k < nk; k++) {
		label_text(val[k], one, sizeof(one));
		strncat(buf, one, sizeof(buf) - strlen(buf) - 2);
		strcat(buf, "\x1f");
	}
	if (!(r->text = strdup(buf)))
		return -1;
	*idx_out = (*n)++;
	return 0;
}

/* The keys of "KEY,KEY..." into out and names (pointing into buf): their
 * count, or -1 after a usage error (printed). */
static int parse_keys(tf_agg *agg, const char *keys, tf_str *out, const char **names, char *buf, size_t len)
{
	int n = 0;
	snprintf(buf, len, "%s", keys);
	for (char *save = NULL, *k = strtok_r(buf, ",", &save); k; k = strtok_r(NULL, ",", &save)) {
		if (n == MAX_KEYS) {
			tf_usage_error("top", "--by-label takes at most %d keys", MAX_KEYS);
			return -1;
		}
		names[n] = k;
		out[n++] = tf_strtab_intern_cstr(tf_agg_strtab(agg), k);
	}
	if (!n)
		tf_usage_error("top", "--by-label needs a label key, e.g. collective,comm_bytes");
	return n ? n : -1;
}

static void print_json(const lrow *rows, uint32_t n, uint32_t shown, int nk, const char *const *names,
		       const char *tname, const char *unit, int64_t total, int64_t unlabelled, bool calls,
		       const char *const *inputs, int ninputs)
{
	printf("{\n  \"schema\": \"tracefold-top-labels/1\",\n  \"inputs\": [");
	for (int i = 0; i < ninputs; i++) {
		printf(i ? ", " : "");
		tf_json_str(stdout, inputs[i]);
	}
	printf("],\n  \"sample_type\": ");
	tf_json_str(stdout, tname);
	printf(",\n  \"unit\": ");
	tf_json_str(stdout, unit);
	printf(",\n  \"value_unit\": ");
	tf_json_str(stdout, tf_unit_ns(unit) ? "nanoseconds" : unit);
	printf(",\n  \"by_label\": [");
	for (int k = 0; k < nk; k++) {
		printf(k ? ", " : "");
		tf_json_str(stdout, names[k]);
	}
	printf("],\n  \"total\": %lld,\n  \"unlabelled\": %lld,\n  \"nrows\": %u,\n  \"rows\": [",
	       tf_json_int((double)total, unit), tf_json_int((double)unlabelled, unit), n);
	for (uint32_t r = 0; r < shown; r++) {
		printf(r ? ",\n    {\"labels\": {" : "\n    {\"labels\": {");
		int w = 0;
		for (int k = 0; k < nk; k++) {
			const tf_label *l = rows[r].val[k];
			if (!l)
				continue;
			printf(w++ ? ", " : "");
			tf_json_str(stdout, names[k]);
			if (l->str) {
				printf(": ");
				tf_json_str(stdout, tf_strtab_get(g_st, l->str));
			} else {
				printf(": %" PRId64, l->num);
			}
		}
		printf("}, \"value\": %lld", tf_json_int((double)rows[r].value, unit));
		if (calls)
			printf(", \"calls\": %lld", (long long)rows[r].calls);
		printf("}");
	}
	printf(shown ? "\n  ]\n}\n" : "]\n}\n");
}

static int print_table(const lrow *rows, uint32_t shown, int nk, const char *const *names, const char *tname,
		       const char *unit, int64_t total, int64_t unlabelled, bool calls, bool md)
{
	tf_table tb;
	char align[MAX_KEYS + 4];
	int nc = nk + 2 + calls;
	for (int c = 0; c < nc; c++)
		align[c] = c < nk ? 'l' : 'r';
	align[nc] = 0;
	tf_table_init(&tb, nc, align, -1);
	const char *hdr[MAX_KEYS + 3];
	for (int k = 0; k < nk; k++)
		hdr[k] = names[k];
	hdr[nk] = tname;
	hdr[nk + 1] = "%";
	hdr[nk + 2] = "calls";
	int rc = tf_table_add(&tb, hdr);
	char cell[MAX_KEYS + 3][96];
	const char *cp[MAX_KEYS + 3];
	for (uint32_t r = 0; r < shown && rc == 0; r++) {
		for (int k = 0; k < nk; k++) {
			const tf_label *l = rows[r].val[k];
			label_text(l, cell[k], sizeof(cell[k]));
			if (l && !l->str && l->num_unit)
				snprintf(cell[k] + strlen(cell[k]), sizeof(cell[k]) - strlen(cell[k]), " %s",
					 tf_strtab_get(g_st, l->num_unit));
		}
		tf_fmt_value(cell[nk], sizeof(cell[nk]), (double)rows[r].value, unit);
		snprintf(cell[nk + 1], sizeof(cell[nk + 1]), "%.2f", total ? 100.0 * (double)rows[r].value / (double)total : 0.0);
		snprintf(cell[nk + 2], sizeof(cell[nk + 2]), "%" PRId64, rows[r].calls);
		for (int c = 0; c < nc; c++)
			cp[c] = cell[c];
		rc = tf_table_add(&tb, cp);
	}
	if (rc < 0) {
		tf_table_free(&tb);
		tf_msg("out of memory");
		return TF_EXIT_INPUT;
	}
	char tot[64], un[64];
	tf_fmt_value(tot, sizeof(tot), (double)total, unit);
	tf_fmt_value(un, sizeof(un), (double)unlabelled, unit);
	printf(md ? "**%s** (%s): total %s, %s without the labels; by label\n\n" : "%s (%s): total %s, %s without the labels; by label\n",
	       tname, unit, tot, un);
	tf_table_print(&tb, stdout, md);
	tf_table_free(&tb);
	return TF_EXIT_OK;
}

int tf_top_by_label(tf_agg *agg, int t, const char *keys, int fmt, long long count,
		    const char *const *inputs, int ninputs)
{
	tf_str key[MAX_KEYS];
	const char *names[MAX_KEYS];
	char kbuf[1024];
	int nk = parse_keys(agg, keys, key, names, kbuf, sizeof(kbuf));
	if (nk <= 0)
		return TF_EXIT_USAGE;
	g_st = tf_agg_strtab(agg);
	int tc = tf_agg_type_find(agg, "calls");
	tf_sample_type st = tf_agg_type_get(agg, t);
	const char *tname = tf_strtab_get(g_st, st.type), *unit = tf_strtab_get(g_st, st.unit);
	uint32_t nls = tf_agg_nlabelsets(agg), n = 0, cap = 0;
	long *row_of_ls = malloc((size_t)(nls ? nls : 1) * sizeof(long));
	lrow *rows = NULL;
	int rc = row_of_ls ? TF_EXIT_OK : TF_EXIT_INPUT;
	for (uint32_t l = 0; l < nls && rc == TF_EXIT_OK; l++) {
		const tf_label *ls;
		int nl = tf_agg_labelset_get(agg, l, &ls);
		if (row_of(&rows, &n, &cap, ls, nl < 0 ? 0 : nl, key, nk, &row_of_ls[l]) < 0)
			rc = TF_EXIT_INPUT;
	}
	int64_t total = 0, unlabelled = 0;
	for (size_t i = 0; i < tf_agg_nsamples(agg) && rc == TF_EXIT_OK; i++) {
		long r = row_of_ls[tf_agg_sample_get(agg, i).labelset];
		int64_t v = tf_agg_sample_value(agg, i, t);
		total += v;
		if (r < 0) {
			unlabelled += v;
			continue;
		}
		rows[r].value += v;
		rows[r].calls += tc >= 0 ? tf_agg_sample_value(agg, i, tc) : 0;
	}
	if (rc != TF_EXIT_OK) {
		tf_msg("out of memory");
	} else {
		qsort(rows, n, sizeof(*rows), row_cmp);
		uint32_t shown = count > 0 && (unsigned long long)count < n ? (uint32_t)count : n;
		if (fmt == TF_OUT_JSON)
			print_json(rows, n, shown, nk, names, tname, unit, total, unlabelled, tc >= 0, inputs, ninputs);
		else
			rc = print_table(rows, shown, nk, names, tname, unit, total, unlabelled, tc >= 0, fmt == TF_OUT_MARKDOWN);
	}
	for (uint32_t r = 0; r < n; r++)
		free(rows[r].text);
	free(rows);
	free(row_of_ls);
	return rc;
}

/* The frame of label set ls seen by the keys, interned; 0 on failure. */
static tf_str view_frame(tf_agg *agg, const tf_label *ls, int nl, const tf_str *key, const char *const *names, int nk)
{
	char buf[MAX_KEYS * 160] = "", one[96];
	bool any = false;
	for (int k = 0; k < nk; k++) {
		const tf_label *l = NULL;
		for (int i = 0; i < nl && !l; i++)
			if (ls[i].key == key[k])
				l = &ls[i];
		any |= l != NULL;
		label_text(l, one, sizeof(one));
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%s=%s", k ? " " : "", names[k], one);
	}
	tf_str f = tf_strtab_intern_cstr(tf_agg_strtab(agg), any ? buf : "[without the labels]");
	return f == (tf_str)-1 ? 0 : f;
}

int tf_agg_label_view(tf_agg *agg, const char *keys, tf_agg **out)
{
	tf_str key[MAX_KEYS];
	const char *names[MAX_KEYS];
	char kbuf[1024];
	int nk = parse_keys(agg, keys, key, names, kbuf, sizeof(kbuf));
	*out = NULL;
	if (nk <= 0)
		return TF_EXIT_USAGE;
	g_st = tf_agg_strtab(agg);
	tf_agg *v = tf_agg_new(tf_agg_strtab(agg));
	int nt = tf_agg_ntypes(agg);
	uint32_t nls = tf_agg_nlabelsets(agg);
	uint32_t *node_of = calloc(nls ? nls : 1, sizeof(uint32_t));
	int64_t *vals = calloc(nt ? (size_t)nt : 1, sizeof(int64_t));
	bool okay = v && node_of && vals;
	for (int t = 0; t < nt && okay; t++) {
		tf_sample_type ty = tf_agg_type_get(agg, t);
		okay = tf_agg_type(v, tf_strtab_get(g_st, ty.type), tf_strtab_get(g_st, ty.unit)) == t;
	}
	if (okay)
		tf_agg_set_default_type(v, tf_agg_default_type(agg));
	uint32_t none = okay ? tf_agg_labelset(v, NULL, 0) : (uint32_t)-1;
	for (uint32_t l = 0; l < nls && okay; l++) {
		const tf_label *ls;
		int nl = tf_agg_labelset_get(agg, l, &ls);
		tf_str f = view_frame(agg, ls, nl < 0 ? 0 : nl, key, names, nk);
		okay = f && (node_of[l] = tf_agg_child(v, TF_AGG_ROOT, f)) != (uint32_t)-1;
	}
	for (size_t i = 0; i < tf_agg_nsamples(agg) && okay; i++) {
		tf_agg_sample_values(agg, i, vals);
		okay = tf_agg_add_values(v, node_of[tf_agg_sample_get(agg, i).labelset], none, vals) == 0;
	}
	free(node_of);
	free(vals);
	if (!okay) {
		tf_agg_free(v);
		tf_msg("out of memory");
		return TF_EXIT_INPUT;
	}
	*out = v;
	return TF_EXIT_OK;
}
