/* gate_report.c - what diff --gate prints (text, Markdown for a pull
 * request comment, JSON schema tracefold-diff/2) and its flame graph
 * colored by verdict.  Values are per-step means: each run's mean per step,
 * averaged over the runs of a side. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "gate_cli.h"
#include "report.h"
#include "hmap.h"
#include "tracefold/flame.h"

static const char *basis_name[] = { "none", "steps", "runs" };

/* A value for people: time units as tf_fmt_value, others with up to 3
 * decimals (a mean per step of calls is rarely whole). */
static void fmt_val(char *buf, size_t len, double v, const char *unit, bool sign)
{
	if (tf_unit_ns(unit)) {
		(sign ? tf_fmt_delta : tf_fmt_value)(buf, len, v, unit);
		return;
	}
	snprintf(buf, len, sign ? "%+.3f" : "%.3f", v);
	char *e = buf + strlen(buf);
	while (e > buf && e[-1] == '0')
		*--e = 0;
	if (e > buf && e[-1] == '.')
		*--e = 0;
}

/* "+12.3%" of delta against base; "new" from 0. */
static void fmt_pct(char *buf, size_t len, double delta, double base)
{
	if (base == 0)
		snprintf(buf, len, delta == 0 ? "+0.0%%" : "new");
	else
		snprintf(buf, len, "%+.1f%%", 100 * delta / fabs(base));
}

static void fmt_interval(char *buf, size_t len, double lo, double hi, const char *unit, const char *sep)
{
	if (isnan(lo)) {
		snprintf(buf, len, "-");
		return;
	}
	char a[64], b[64];
	fmt_val(a, sizeof(a), lo, unit, true);
	fmt_val(b, sizeof(b), hi, unit, true);
	snprintf(buf, len, "%s%s%s", a, sep, b);
}

static const char *verdict_word(int v, int markdown)
{
	static const char *const text[] = { "no change", "no change that matters", "UNRESOLVED", "improved",
					    "REGRESSED" };
	static const char *const md[] = { "✅ no change", "✅ no change that matters", "⚠️ unresolved", "✅ improved",
					  "❌ regression" };
	return markdown ? md[v] : text[v];
}

/* Counts of the rows per verdict. */
static void verdict_counts(const tf_gate_result *res, size_t n[TF_VERDICT_COUNT])
{
	memset(n, 0, TF_VERDICT_COUNT * sizeof(size_t));
	for (size_t k = 0; k < res->nrows; k++)
		n[res->rows[k].verdict]++;
}

static void print_noise(const tf_gate_report *r, const tf_gate_result *res, bool md)
{
	const char *pre = md ? "" : "  ";
	if (res->basis == TF_GATE_BASIS_NONE) {
		if (res->steady)
			printf("%snoise: unknown: one run per side and no steps to tell its noise: no change is called a "
			       "regression (at most unresolved)\n", pre);
		else
			printf("%snoise: unknown: one run per side%s; this type varies more between runs than between "
			       "the steps of one, so no change is called a regression (at most unresolved): give BASE 3 or "
			       "more runs, or --history DIR (10 runs or more)\n",
			       pre, r->nruns[2] ? "" : " and no history");
		return;
	}
	if (res->basis == TF_GATE_BASIS_STEPS)
		printf("%snoise: the steps (%d BASE, %d NEW), plus a floor of %.2g%% run-to-run for a type that "
		       "barely varies between runs", pre, res->steps[0], res->steps[1], 100 * r->c->gopts.steady_cv);
	else
		printf("%snoise: the spread of the runs (%d BASE, %d NEW%s%.0d%s)", pre, res->runs[0], res->runs[1],
		       res->runs[2] ? ", " : "", res->runs[2], res->runs[2] ? " history" : "");
	if (res->d0 > 0)
		printf(", moderated across rows (prior: %.1f degrees of freedom)", res->d0);
	printf("; %zu rows tested, %.3g false alarms over all of them%s: critical t %.2f\n", res->family,
	       r->c->gopts.alpha / r->ntypes, r->ntypes > 1 ? " (alpha shared by the types)" : "", res->crit);
}

/* The rows that add most to a regressed (or improved) total. */
static void print_contributors(const tf_gate_report *r, const tf_gate_result *res, const char *unit, bool md)
{
	if (res->total.verdict != TF_VERDICT_REGRESSED && res->total.verdict != TF_VERDICT_IMPROVED)
		return;
	double sign = res->total.delta > 0 ? 1 : -1;
	const tf_strtab *st = tf_ctx_strtab(r->ctx);
	printf("%smost of the change: ", md ? "" : "  ");
	size_t pick[5];
	for (int s = 0; s < 5; s++) { /* the five largest self changes of the total's sign */
		double best = 0;
		size_t bi = SIZE_MAX;
		for (size_t k = 0; k < res->nrows; k++) {
			double d = sign * (res->rows[k].new_self - res->rows[k].base_self);
			bool taken = false;
			for (int j = 0; j < s; j++)
				taken |= pick[j] == k;
			if (!taken && d > best) {
				best = d;
				bi = k;
			}
		}
		if (bi == SIZE_MAX)
			break;
		pick[s] = bi;
		char v[64];
		fmt_val(v, sizeof(v), res->rows[bi].new_self - res->rows[bi].base_self, unit, true);
		printf("%s", s ? ", " : "");
		if (md)
			tf_md_code(stdout, tf_strtab_get(st, res->rows[bi].name));
		else
			tf_text_str(stdout, tf_strtab_get(st, res->rows[bi].name));
		printf(" %s", v);
	}
	printf("\n");
}

/* The rows shown of one type: regressions always, then the first -n of the
 * rows that could matter (tested; *ntested counts those met so far). */
static bool shown(const tf_gate_cli *c, const tf_gate_row *row, size_t *ntested, bool md)
{
	bool first = row->tested && (*ntested)++ < (size_t)c->count;
	if (row->verdict == TF_VERDICT_REGRESSED)
		return true;
	if (md) /* a pull request comment: what changed */
		return row->verdict == TF_VERDICT_IMPROVED;
	return c->count == 0 || first;
}

static int print_rows(const tf_gate_report *r, const tf_gate_result *res, const char *unit, bool md)
{
	const tf_gate_cli *c = r->c;
	const tf_strtab *st = tf_ctx_strtab(r->ctx);
	size_t n = 0, nt = 0;
	const char **full = malloc((res->nrows + 1) * sizeof(char *));
	char **names = malloc((res->nrows + 1) * sizeof(char *));
	size_t *idx = malloc((res->nrows + 1) * sizeof(size_t));
	int rc = full && names && idx ? 0 : TF_ENOMEM;
	for (size_t k = 0; rc == 0 && k < res->nrows; k++)
		if (shown(c, &res->rows[k], &nt, md)) {
			idx[n] = k;
			full[n++] = tf_strtab_get(st, res->rows[k].name);
		}
	if (rc == 0)
		rc = tf_names_short(full, n, c->name_width, names);
	tf_table tb;
	tf_table_init(&tb, 8, "lrrlrrrl", 7);
	const char *hdr[8] = { "verdict", "change/step", "change", "interval", "MDE", "base/step", "new/step",
			       c->gopts.paths ? "call path" : "function" };
	if (rc == 0 && n)
		rc = tf_table_add(&tb, hdr);
	for (size_t i = 0; rc == 0 && i < n; i++) {
		const tf_gate_row *row = &res->rows[idx[i]];
		char cell[7][96], v[40];
		snprintf(v, sizeof(v), md && row->verdict == TF_VERDICT_REGRESSED ? "**%s**" : "%s",
			 tf_verdict_names[row->verdict]);
		fmt_val(cell[0], 96, row->delta, unit, true);
		fmt_pct(cell[1], 96, row->delta, row->base);
		fmt_interval(cell[2], 96, row->lo, row->hi, unit, md ? " … " : " .. ");
		if (isnan(row->mde))
			snprintf(cell[3], 96, "-");
		else
			fmt_val(cell[3], 96, row->mde, unit, false);
		fmt_val(cell[4], 96, row->base, unit, false);
		fmt_val(cell[5], 96, row->neu, unit, false);
		char *name = names[i];
		char tagged[1024];
		if (row->kernels_new || row->kernels_gone) {
			snprintf(tagged, sizeof(tagged), "%s [kernels: %u new, %u gone]", name, row->kernels_new,
				 row->kernels_gone);
			name = tagged;
		}
		const char *cells[8] = { v, cell[0], cell[1], cell[2], cell[3], cell[4], cell[5], name };
		rc = tf_table_add(&tb, cells);
	}
	if (rc == 0 && n) {
		tf_table_print(&tb, stdout, md);
		if (md)
			printf("\n");
	}
	tf_table_free(&tb);
	for (size_t i = 0; names && full && idx && i < n; i++)
		free(names[i]);
	free(names);
	free(full);
	free(idx);
	return rc;
}

static void print_type(const tf_gate_report *r, int t)
{
	const tf_gate_cli *c = r->c;
	const tf_gate_result *res = &r->res[t];
	const char *unit = r->units[t];
	bool md = c->fmt == TF_OUT_MARKDOWN;
	char b[64], n[64], d[64], p[32], iv[160];
	fmt_val(b, sizeof(b), res->total.base, unit, false);
	fmt_val(n, sizeof(n), res->total.neu, unit, false);
	fmt_val(d, sizeof(d), res->total.delta, unit, true);
	fmt_pct(p, sizeof(p), res->total.delta, res->total.base);
	fmt_interval(iv, sizeof(iv), res->total.lo, res->total.hi, unit, md ? " … " : " .. ");
	printf(md ? "**%s** per step: %s → %s (%s, %s; interval %s): **%s**\n\n"
		  : "%s per step: total %s -> %s (%s, %s; interval %s): %s\n",
	       r->types[t], b, n, d, p, iv, tf_verdict_names[res->total.verdict]);
	print_noise(r, res, md);
	if (md)
		printf("\n");
	print_contributors(r, res, unit, md);
	if (md && (res->total.verdict == TF_VERDICT_REGRESSED || res->total.verdict == TF_VERDICT_IMPROVED))
		printf("\n");
	if (print_rows(r, res, unit, md) < 0)
		tf_msg("out of memory");
	size_t cnt[TF_VERDICT_COUNT];
	verdict_counts(res, cnt);
	printf("%zu %ss: %zu regressed, %zu improved, %zu unresolved, %zu unchanged, %zu immaterial%s\n",
	       res->nrows, c->gopts.paths ? "call path" : "function", cnt[TF_VERDICT_REGRESSED],
	       cnt[TF_VERDICT_IMPROVED], cnt[TF_VERDICT_UNRESOLVED], cnt[TF_VERDICT_UNCHANGED],
	       cnt[TF_VERDICT_IMMATERIAL], md ? "." : "");
	printf("\n");
}

static void print_runs(const tf_gate_report *r, const char *what, int k, bool md)
{
	if (!r->nruns[k])
		return;
	int steps = r->res[0].steps[k];
	printf("%s%s: %d run%s, %d steps (", md ? "- " : "", what, r->nruns[k], r->nruns[k] == 1 ? "" : "s", steps);
	for (int i = 0; i < r->nruns[k] && i < 6; i++) {
		printf("%s", i ? ", " : "");
		if (md)
			tf_md_code(stdout, r->names[k][i]);
		else
			tf_text_str(stdout, r->names[k][i]);
	}
	printf("%s)\n", r->nruns[k] > 6 ? ", ..." : "");
}

/* ---- JSON ---- */

static void jnum(double v)
{
	if (isnan(v) || isinf(v))
		printf("null");
	else
		printf("%.3f", v);
}

static void jpct(double delta, double base)
{
	double p = base == 0 ? NAN : 100 * delta / fabs(base);
	if (isnan(p) || isinf(p))
		printf("null");
	else
		printf("%.4f", p);
}

static void json_pair(const char *key, double b, double n, bool last)
{
	printf("\"%s\": {\"base\": ", key);
	jnum(b);
	printf(", \"new\": ");
	jnum(n);
	printf(", \"delta\": ");
	jnum(n - b);
	printf(", \"delta_pct\": ");
	jpct(n - b, b);
	printf("}%s", last ? "" : ", ");
}

static void json_change(const tf_gate_row *r)
{
	printf("\"verdict\": \"%s\", \"change\": {\"value\": ", tf_verdict_names[r->verdict]);
	jnum(r->delta);
	printf(", \"pct\": ");
	jpct(r->delta, r->base);
	printf(", \"interval\": ");
	if (isnan(r->lo))
		printf("null");
	else {
		printf("[");
		jnum(r->lo);
		printf(", ");
		jnum(r->hi);
		printf("]");
	}
	printf(", \"mde\": ");
	jnum(r->mde);
	printf(", \"threshold\": ");
	jnum(r->threshold);
	printf(", \"p_adjusted\": ");
	if (isnan(r->p))
		printf("null");
	else
		printf("%.6g", r->p);
	printf(", \"tested\": %s}", r->tested ? "true" : "false");
}

static void json_type(const tf_gate_report *r, int t, bool top)
{
	const tf_gate_result *res = &r->res[t];
	const tf_strtab *st = tf_ctx_strtab(r->ctx);
	const char *unit = r->units[t];
	const char *ind = top ? "  " : "      ";
	printf("%s\"sample_type\": ", ind);
	tf_json_str(stdout, r->types[t]);
	printf(",\n%s\"unit\": ", ind);
	tf_json_str(stdout, unit);
	printf(",\n");
	if (!top) /* at the top, "verdict" is the whole comparison's */
		printf("%s\"verdict\": \"%s\",\n", ind, tf_verdict_names[res->verdict]);
	printf("%s\"noise\": {\"basis\": \"%s\", \"df\": ", ind, basis_name[res->basis]);
	jnum(res->df);
	printf(", \"prior_df\": ");
	jnum(res->d0);
	printf(", \"family\": %zu, \"critical_t\": ", res->family);
	jnum(res->crit);
	printf("},\n%s\"runs\": {\"base\": %d, \"new\": %d, \"history\": %d}, \"steps\": {\"base\": %d, \"new\": %d, "
	       "\"history\": %d}, \"whole_runs_as_steps\": %s,\n",
	       ind, res->runs[0], res->runs[1], res->runs[2], res->steps[0], res->steps[1], res->steps[2],
	       res->whole_runs ? "true" : "false");
	printf("%s\"total\": {\"base\": ", ind);
	jnum(res->total.base);
	printf(", \"new\": ");
	jnum(res->total.neu);
	printf(", \"delta\": ");
	jnum(res->total.delta);
	printf(", \"delta_pct\": ");
	jpct(res->total.delta, res->total.base);
	printf(", ");
	json_change(&res->total);
	printf("},\n%s\"total_regressed\": %s,\n%s\"rows_count\": %zu,\n", ind,
	       res->total.verdict == TF_VERDICT_REGRESSED ? "true" : "false", ind, res->nrows);
	size_t nn = 0, ng = 0;
	for (size_t k = 0; k < res->nrows; k++) {
		nn += res->rows[k].status == 1;
		ng += res->rows[k].status == 2;
	}
	printf("%s\"new_count\": %zu,\n%s\"gone_count\": %zu,\n%s\"rows\": [", ind, nn, ind, ng, ind);
	size_t shownr = 0, nt = 0;
	for (size_t k = 0; k < res->nrows; k++) {
		const tf_gate_row *row = &res->rows[k];
		if (!shown(r->c, row, &nt, false))
			continue;
		printf("%s\n%s  {\"name\": ", shownr++ ? "," : "", ind);
		tf_json_str(stdout, tf_strtab_get(st, row->name));
		printf(", \"status\": \"%s\", ", row->status == 1 ? "new" : row->status == 2 ? "gone" : "both");
		json_pair("self", row->base_self, row->new_self, false);
		json_pair("total", row->base_total, row->new_total, false);
		json_pair("calls", row->base_calls, row->new_calls, false);
		printf("\"regressed\": %s, \"kernels_new\": %u, \"kernels_gone\": %u, ",
		       row->verdict == TF_VERDICT_REGRESSED ? "true" : "false", row->kernels_new, row->kernels_gone);
		json_change(row);
		printf("}");
	}
	printf("%s]", shownr ? "\n  " : "");
}

static void print_json(const tf_gate_report *r)
{
	const tf_gate_cli *c = r->c;
	int worst = TF_VERDICT_UNCHANGED;
	for (int t = 0; t < r->ntypes; t++)
		if (r->res[t].verdict > worst)
			worst = r->res[t].verdict;
	printf("{\n  \"schema\": \"tracefold-diff/2\",\n  \"verdict\": \"%s\",\n  \"base\": ", tf_verdict_names[worst]);
	tf_json_str(stdout, c->pos[0]);
	printf(",\n  \"new\": ");
	tf_json_str(stdout, c->pos[1]);
	printf(",\n  \"gate\": true,\n  \"by\": \"%s\",\n  \"paths\": %s,\n  \"normalized\": false,\n"
	       "  \"alpha\": %g,\n  \"min_effect_pct\": %g,\n  \"min_share_pct\": %g,\n  \"steady_noise_pct\": %g,\n",
	       c->gopts.by_total ? "total" : "self", c->gopts.paths ? "true" : "false", c->gopts.alpha,
	       100 * c->gopts.min_effect, 100 * c->gopts.min_share, 100 * c->gopts.steady_cv);
	printf("  \"values\": \"per step\",\n  \"flame\": ");
	if (c->flame)
		tf_json_str(stdout, c->flame_url ? c->flame_url : c->flame);
	else
		printf("null");
	printf(",\n  \"regression\": %s,\n", worst == TF_VERDICT_REGRESSED ? "true" : "false");
	json_type(r, 0, true); /* the first type's fields at the top, as in tracefold-diff/1 */
	printf(",\n  \"types\": [");
	for (int t = 0; t < r->ntypes; t++) {
		printf("%s\n    {\n", t ? "," : "");
		json_type(r, t, false);
		printf("\n    }");
	}
	printf("\n  ]\n}\n");
}

void tf_gate_print(const tf_gate_report *r)
{
	const tf_gate_cli *c = r->c;
	if (c->fmt == TF_OUT_JSON) {
		print_json(r);
		return;
	}
	bool md = c->fmt == TF_OUT_MARKDOWN;
	int worst = TF_VERDICT_UNCHANGED;
	for (int t = 0; t < r->ntypes; t++)
		if (r->res[t].verdict > worst)
			worst = r->res[t].verdict;
	if (md)
		printf("### tracefold diff --gate: %s\n\n", verdict_word(worst, 1));
	else
		printf("diff --gate: %s\n", verdict_word(worst, 0));
	print_runs(r, "BASE", 0, md);
	print_runs(r, "NEW", 1, md);
	print_runs(r, "history", 2, md);
	if (r->res[0].whole_runs)
		printf("%sa run without steps counts as one step\n", md ? "- " : "");
	printf("\n");
	for (int t = 0; t < r->ntypes; t++)
		print_type(r, t);
	if (c->flame && md) {
		printf("Differential flame graph (widths: NEW; red regressed, blue improved, amber unresolved): ");
		tf_md_link(stdout, c->flame, c->flame_url ? c->flame_url : c->flame);
		printf("\n");
	} else if (c->flame) {
		printf("differential flame graph: %s\n", c->flame_url ? c->flame_url : c->flame);
	}
}

/* ---- the flame graph ---- */

typedef struct vmap {
	tf_strtab *st;
	tf_hmap verdict;           /* row name -> verdict */
	bool paths;
	char *buf;
	size_t cap;
} vmap;

static int frame_verdict(void *arg, const tf_str *frames, uint32_t n)
{
	vmap *m = arg;
	tf_str key = frames[n - 1];
	if (m->paths) {
		size_t len = 0;
		for (uint32_t i = 0; i < n; i++) {
			const char *f = tf_strtab_get(m->st, frames[i]);
			size_t l = strlen(f);
			if (tf_grow_n((void **)&m->buf, &m->cap, len + l + 2, 1, false) < 0)
				return -1;
			if (i)
				m->buf[len++] = ';';
			memcpy(m->buf + len, f, l);
			len += l;
		}
		if ((key = tf_strtab_intern(m->st, m->buf, len)) == (tf_str)-1)
			return -1;
	}
	uint32_t v = tf_hmap_get(&m->verdict, key);
	return v == UINT32_MAX ? -1 : (int)v;
}

int tf_gate_flame(const tf_gate_cli *c, tf_agg *const *base, int nb, tf_agg *const *neu, int nn,
		  const tf_gate_result *res, const char *type, const char *unit)
{
	/* the runs of each side added up: the picture of the whole of each */
	tf_agg *sum[2] = { tf_agg_new(tf_agg_strtab(base[0])), tf_agg_new(tf_agg_strtab(base[0])) };
	vmap m = { .st = tf_agg_strtab(base[0]), .paths = c->gopts.paths };
	int rc = sum[0] && sum[1] ? 0 : TF_ENOMEM;
	for (int i = 0; rc == 0 && i < nb; i++)
		rc = tf_agg_merge(sum[0], base[i], TF_AGG_TYPES_ADD);
	for (int i = 0; rc == 0 && i < nn; i++)
		rc = tf_agg_merge(sum[1], neu[i], TF_AGG_TYPES_ADD);
	for (size_t k = 0; rc == 0 && k < res->nrows; k++)
		rc = tf_hmap_put(&m.verdict, res->rows[k].name, (uint32_t)res->rows[k].verdict) < 0 ? TF_ENOMEM : 0;
	int t = rc == 0 ? tf_agg_type_find(sum[1], type) : -1;
	if (rc == 0 && t < 0 && (t = tf_agg_type(sum[1], type, unit)) < 0)
		rc = TF_ENOMEM;
	int ret = TF_EXIT_OK;
	if (rc < 0) {
		tf_msg("out of memory");
		ret = TF_EXIT_INPUT;
	} else {
		tf_flame_opts fo = { .type = t, .base = sum[0], .base_name = c->pos[0], .verdict = frame_verdict,
				     .verdict_arg = &m };
		fo.html = tf_flame_is_html(c->flame);
		tf_error err;
		tf_error_clear(&err);
		if (tf_flame_write(sum[1], &fo, c->flame, NULL, &err) < 0)
			ret = tf_report(&err);
	}
	tf_hmap_free(&m.verdict);
	free(m.buf);
	tf_agg_free(sum[0]);
	tf_agg_free(sum[1]);
	return ret;
}
