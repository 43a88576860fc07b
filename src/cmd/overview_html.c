/* overview_html.c - the HTML page of `tracefold overview` (docs/overview.md):
 * one self-contained file (no script, no font, nothing from the network).
 *
 *   tf_ov_report --tf_ov_print_html--> summary, verdicts, heat map (rank x
 *     step time, SVG), a bar per rank (GPU breakdown or CPU, SVG), tables,
 *     the run's flame graph (SVG, tf_flame_write_file)
 *
 * Every text that comes from a trace (names, paths, call paths) goes through
 * text(): markup escaped, invalid UTF-8 and control characters as U+FFFD.
 * The page depends only on the report, so the same run gives the same
 * bytes.  The flame graph's SVG brings its own <style>, which in an HTML
 * page applies to the whole page: the page's own classes are all "ov-*" and
 * its SVG text rules are more specific than the flame graph's. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "overview.h"
#include "report.h"
#include "fmt.h"
#include "sat.h"
#include "utf8.h"
#include "tracefold/diag.h"
#include "tracefold/flame.h"

/* Names in the tables are cut to this many code points (tf_name_short); the
 * full name is the cell's tooltip. */
#define NAME_WIDTH 120

static const char *const wait_text[TF_OV_NWAIT] = { "late sender", "late receiver", "wait at collectives" };

/* ---- text ---- */

/* The length of the valid UTF-8 sequence at s (n bytes left), 0 if invalid
 * or a character HTML does not want in text (C1 controls, surrogates,
 * U+FFFE, U+FFFF). */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	unsigned cp;
	size_t k = tf_utf8_xml_len(s, n, &cp);
	return k > 1 && cp < 0xA0 ? 0 : k; /* C1 controls too */
}

/* n bytes of s as HTML text (also fit for an attribute value in quotes). */
static void text(FILE *f, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	for (size_t i = 0; i < n;) {
		size_t k = utf8_len(p + i, n - i);
		if (!k) {
			fputs("\xEF\xBF\xBD", f);
			i++;
			continue;
		}
		if (k > 1)
			fwrite(p + i, 1, k, f);
		else if (p[i] == '&')
			fputs("&amp;", f);
		else if (p[i] == '<')
			fputs("&lt;", f);
		else if (p[i] == '>')
			fputs("&gt;", f);
		else if (p[i] == '"')
			fputs("&quot;", f);
		else if (p[i] == '\'')
			fputs("&#39;", f);
		else if (p[i] < 0x20 || p[i] == 0x7F)
			fputs("\xEF\xBF\xBD", f);
		else
			fputc(p[i], f);
		i += k;
	}
}

static void ctext(FILE *f, const char *s)
{
	if (s)
		text(f, s, strlen(s));
}

/* "12.35 ms": a duration in ns for people, in a buffer of the caller's
 * statement (NS(v) makes one). */
static const char *fmt_ns(char *buf, size_t len, int64_t v)
{
	tf_fmt_value(buf, len, (double)v, "nanoseconds");
	return buf;
}
#define NS(v) fmt_ns((char[40]){ 0 }, 40, (v))

static double clamp(double v, double lo, double hi) { return v < lo ? lo : v > hi ? hi : v; }

/* ---- the run ---- */

static const char *const ranks_from_text[] = { "the trace", "file names", "the inputs' order" };

static void diag_line(FILE *f, const tf_diag *d, tf_severity sev, const char *what)
{
	int any = 0;
	for (int i = 0; i < TF_DIAG_COUNT; i++) {
		if (!d->n[i] || tf_diag_severity(i) != sev)
			continue;
		fprintf(f, "%s%s=%" PRIu64, any++ ? ", " : "<li>", tf_diag_name(i), d->n[i]);
		if (sev == TF_SEV_REPAIR && d->ns[i])
			fprintf(f, " (moved %s)", NS(d->ns[i] > INT64_MAX ? INT64_MAX : (int64_t)d->ns[i]));
	}
	if (any)
		fprintf(f, " %s</li>\n", what);
}

static void summary(FILE *f, const tf_ov_report *r)
{
	const tf_ov_result *res = r->res;
	fputs("<ul class=\"ov-run\">\n<li>", f);
	fprintf(f, "%d input%s: ", r->ninputs, r->ninputs == 1 ? "" : "s");
	for (int i = 0; i < r->ninputs && i < 8; i++) {
		fputs(i ? ", <code>" : "<code>", f);
		ctext(f, r->inputs[i]);
		fputs("</code>", f);
	}
	if (r->ninputs > 8)
		fprintf(f, " and %d more", r->ninputs - 8);
	int rf = r->ranks_from >= 0 && r->ranks_from <= 2 ? r->ranks_from : 0;
	fprintf(f, "</li>\n<li>%zu rank%s (from %s), %" PRIu32 " GPU%s, %" PRIu32 " CPU thread%s</li>\n", res->nranks,
		res->nranks == 1 ? "" : "s", ranks_from_text[rf], res->devices, res->devices == 1 ? "" : "s",
		res->threads, res->threads == 1 ? "" : "s");
	fprintf(f, "<li>%zu rank-step%s, steps from ", res->nsteps, res->nsteps == 1 ? "" : "s");
	if (res->steps_from == TF_OV_STEPS_REGION) {
		fputs("the region <code>", f);
		ctext(f, r->step_region);
		fputs("</code>", f);
	} else {
		fputs(res->steps_from == TF_OV_STEPS_PROFILER ? "ProfilerStep#N" : "the whole run (one step per rank)", f);
	}
	fputs("</li>\n", f);
	if (res->any_time)
		fprintf(f, "<li>wall span %s</li>\n", NS(tf_sat_sub(res->end_ns, res->start_ns)));
	else
		fputs("<li>no timed event</li>\n", f);
	fprintf(f, "<li>collectives: %" PRIu64 " matched across ranks, %" PRIu64 " unmatched, %" PRIu64
		   " in no step; straggler threshold %s",
		res->coll_matched, res->coll_unmatched, res->coll_no_step, NS(res->late_min_ns));
	if (res->mpi)
		fprintf(f, "; MPI messages: %" PRIu64 " matched, %" PRIu64 " unmatched", res->msg_matched,
			res->msg_unmatched);
	fputs("</li>\n", f);
	if (r->ctx) {
		const tf_diag *d = tf_ctx_diag(r->ctx);
		diag_line(f, d, TF_SEV_REPAIR, "repaired (docs/diagnostics.md)");
		diag_line(f, d, TF_SEV_SKIP, "left out");
		diag_line(f, d, TF_SEV_WARN, "warnings");
		size_t nn = tf_ctx_nnotes(r->ctx);
		if (nn)
			fprintf(f, "<li>%zu note%s on damaged input (<code>tracefold info</code> lists them)</li>\n", nn,
				nn == 1 ? "" : "s");
	}
	fputs("</ul>\n", f);
}

/* ---- verdicts ---- */

static void verdicts(FILE *f, const tf_ov_report *r)
{
	const tf_ov_result *res = r->res;
	size_t shown = r->max_rows ? r->max_rows : 20;
	fputs("<h2>Verdict</h2>\n<ul class=\"ov-verdict\">\n", f);
	for (size_t i = 0; i < res->nstragglers && i < shown; i++) {
		const tf_ov_straggler *s = &res->stragglers[i];
		fprintf(f, "<li><span class=\"ov-late\">straggler</span>: rank %" PRId64 " at step %" PRId64
			   " arrived %s after the median rank at its collectives; ",
			s->rank, s->step, NS(s->late_ns));
		if (r->where && r->where[i]) {
			fputs("most extra time in <code>", f);
			ctext(f, r->where[i]);
			fputs("</code></li>\n", f);
		} else {
			fputs("no call path stands out</li>\n", f);
		}
	}
	if (res->nstragglers > shown)
		fprintf(f, "<li>and %zu more stragglers (table below)</li>\n", res->nstragglers - shown);
	if (!res->nstragglers && !res->coll_matched)
		fputs("<li>no straggler: no collective was matched across ranks</li>\n", f);
	else if (!res->nstragglers)
		fprintf(f, "<li>no straggler: no rank arrived %s or more after the median rank at a collective</li>\n",
			NS(res->late_min_ns));
	size_t nb[4] = { 0 };
	for (size_t i = 0; i < res->nsteps; i++)
		nb[res->steps[i].bound & 3]++;
	fprintf(f, "<li>steps bound by the GPU: %zu; by launches (CPU busy, GPU idle): %zu; other: %zu; "
		   "CPU only (no GPU): %zu</li>\n",
		nb[TF_OV_BOUND_GPU], nb[TF_OV_BOUND_LAUNCH], nb[TF_OV_BOUND_OTHER], nb[TF_OV_BOUND_CPU]);
	if (res->mpi)
		fprintf(f, "<li>MPI waits: late sender %s, late receiver %s, wait at collectives %s</li>\n",
			NS(res->wait_ns[TF_OV_LATE_SENDER]), NS(res->wait_ns[TF_OV_LATE_RECEIVER]),
			NS(res->wait_ns[TF_OV_COLL_WAIT]));
	fputs("</ul>\n", f);
}

/* ---- heat map ---- */

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* YlOrRd from the fastest (t = 0) to the slowest (t = 1) step. */
static void heat_color(double t, char out[8])
{
	static const unsigned char stop[3][3] = { { 0xff, 0xff, 0xb2 }, { 0xfd, 0x8d, 0x3c }, { 0xbd, 0x00, 0x26 } };
	double x = clamp(t, 0, 1) * 2;
	int k = x >= 1 ? 1 : 0, c[3];
	for (int j = 0; j < 3; j++)
		c[j] = (int)lround(stop[k][j] + (stop[k + 1][j] - stop[k][j]) * (x - k));
	snprintf(out, 8, "#%02x%02x%02x", c[0], c[1], c[2]);
}

/* The telemetry means of a step: two cells, "-" when none. */
static void td_tel(FILE *f, const tf_ov_step *s)
{
	if (s->gpu_util >= 0)
		fprintf(f, "<td class=\"ov-n\">%.1f%%</td>", s->gpu_util);
	else
		fputs("<td class=\"ov-n\">-</td>", f);
	if (s->gpu_power >= 0)
		fprintf(f, "<td class=\"ov-n\">%.1f W</td>", s->gpu_power);
	else
		fputs("<td class=\"ov-n\">-</td>", f);
}

/* Every number of a step, one a line (a cell's tooltip). */
static void step_tip(FILE *f, const tf_ov_step *s, bool strag, bool gpu)
{
	fprintf(f, "<title>rank %" PRId64 ", step %" PRId64 "%s\ntime %s\ncpu %s", s->rank, s->step,
		strag ? " (straggler)" : "", NS(s->time_ns), NS(s->cpu_ns));
	if (gpu) {
		fprintf(f, "\nGPU compute %s\nGPU comm %s", NS(s->gpu_compute_ns), NS(s->gpu_comm_ns));
		fprintf(f, "\nGPU memcpy %s\nGPU memset %s", NS(s->gpu_memcpy_ns), NS(s->gpu_memset_ns));
		fprintf(f, "\nGPU idle %s\ncomm exposed %s", NS(s->gpu_idle_ns), NS(s->comm_exposed_ns));
	}
	fprintf(f, "\ncomm wait %s", NS(s->comm_wait_ns));
	if (s->gpu_util >= 0)
		fprintf(f, "\nGPU util %.1f%% (telemetry)", s->gpu_util);
	if (s->gpu_power >= 0)
		fprintf(f, "\nGPU power %.1f W (telemetry)", s->gpu_power);
	if (s->ncoll)
		fprintf(f, "\nlate %s (%" PRIu32 " collective%s)", NS(s->late_ns), s->ncoll, s->ncoll == 1 ? "" : "s");
	else
		fputs("\nlate: no collective", f);
	fprintf(f, "\nMPI %s\nbound: %s</title>", NS(s->mpi_ns), tf_ov_bound_names[s->bound & 3]);
}

/* The step numbers any rank has, sorted, each once: *n of them. */
static int64_t *step_columns(const tf_ov_result *res, size_t *n)
{
	int64_t *c = malloc((res->nsteps ? res->nsteps : 1) * sizeof(*c));
	if (!c)
		return NULL;
	for (size_t i = 0; i < res->nsteps; i++)
		c[i] = res->steps[i].step;
	qsort(c, res->nsteps, sizeof(*c), cmp_i64);
	size_t k = 0;
	for (size_t i = 0; i < res->nsteps; i++)
		if (!k || c[k - 1] != c[i])
			c[k++] = c[i];
	*n = k;
	return c;
}

static void heat_legend(FILE *f, double x, double y, int64_t lo, int64_t hi)
{
	char col[8];
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">fastest %s</text>\n", x - 6, y + 11, NS(lo));
	for (int i = 0; i < 10; i++) {
		heat_color(i / 9.0, col);
		fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"16\" height=\"14\" fill=\"%s\"/>\n", x + 16 * i, y, col);
	}
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">%s slowest; outlined: straggler</text>\n", x + 166, y + 11, NS(hi));
}

static int heatmap(FILE *f, const tf_ov_report *r, const bool *strag)
{
	const tf_ov_result *res = r->res;
	size_t ncol = 0;
	int64_t *cols = step_columns(res, &ncol);
	if (!cols)
		return TF_ENOMEM;
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	for (size_t i = 0; i < res->nsteps; i++) {
		lo = res->steps[i].time_ns < lo ? res->steps[i].time_ns : lo;
		hi = res->steps[i].time_ns > hi ? res->steps[i].time_ns : hi;
	}
	double cw = clamp(900.0 / (double)ncol, 4, 40), ch = clamp(320.0 / (double)res->nranks, 6, 24);
	double L = 80, T = 8, gap = cw >= 6 && ch >= 6 ? 1 : 0;
	double W = L + cw * (double)ncol + 20 > 720 ? L + cw * (double)ncol + 20 : 720;
	double H = T + ch * (double)res->nranks + 76;
	int kr = (int)ceil(14 / ch), kc = (int)ceil(40 / cw);
	fprintf(f, "<div class=\"ov-scroll\"><svg class=\"ov ov-heat\" width=\"%.0f\" height=\"%.0f\" "
		   "viewBox=\"0 0 %.0f %.0f\" role=\"img\" aria-label=\"step time per rank and step\">\n",
		W, H, W, H);
	for (size_t i = 0; i < res->nranks; i++) {
		const tf_ov_rank *rk = &res->ranks[i];
		double y = T + ch * (double)i;
		if (i % (size_t)kr == 0)
			fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%" PRId64 "</text>\n", L - 6,
				y + ch / 2 + 4, rk->rank);
		for (size_t j = rk->first; j < rk->first + rk->nsteps && j < res->nsteps; j++) {
			const tf_ov_step *s = &res->steps[j];
			const int64_t *c = bsearch(&s->step, cols, ncol, sizeof(*cols), cmp_i64);
			char col[8];
			heat_color(hi > lo ? ((double)s->time_ns - (double)lo) / ((double)hi - (double)lo) : 0, col);
			fprintf(f, "<rect class=\"ov-cell\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\">",
				L + cw * (double)(c - cols), y, cw - gap, ch - gap, col);
			step_tip(f, s, strag[j], res->devices > 0);
			fputs("</rect>\n", f);
		}
	}
	/* the stragglers' outlines over every cell, so none is drawn over */
	for (size_t i = 0; i < res->nranks; i++)
		for (size_t j = res->ranks[i].first; j < res->ranks[i].first + res->ranks[i].nsteps && j < res->nsteps; j++)
			if (strag[j]) {
				const int64_t *c = bsearch(&res->steps[j].step, cols, ncol, sizeof(*cols), cmp_i64);
				fprintf(f, "<rect class=\"ov-mark\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>\n",
					L + cw * (double)(c - cols) + 1, T + ch * (double)i + 1, cw - gap - 2 > 1 ? cw - gap - 2 : 1,
					ch - gap - 2 > 1 ? ch - gap - 2 : 1);
			}
	double yb = T + ch * (double)res->nranks;
	for (size_t k = 0; k < ncol; k += (size_t)kc)
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%" PRId64 "</text>\n",
			L + cw * ((double)k + 0.5), yb + 14, cols[k]);
	fprintf(f, "<text class=\"ov-axis\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">step</text>\n",
		L + cw * (double)ncol / 2, yb + 30);
	fprintf(f, "<text class=\"ov-axis\" x=\"14\" y=\"%.1f\" text-anchor=\"middle\" transform=\"rotate(-90 14 %.1f)\">"
		   "rank</text>\n", T + ch * (double)res->nranks / 2, T + ch * (double)res->nranks / 2);
	heat_legend(f, L + 110, yb + 46, lo, hi);
	fputs("</svg></div>\n", f);
	free(cols);
	return 0;
}

/* ---- a bar per rank ---- */

static const char *const gpu_parts[5] = { "GPU compute", "GPU comm", "GPU memcpy", "GPU memset", "GPU idle" };
static const char *const cpu_parts[2] = { "CPU (the step's top regions)", "rest of the step" };
static const char *const part_color[5] = { "#4c78a8", "#f58518", "#54a24b", "#b279a2", "#c8c8c8" };

/* The rank's parts summed over its steps (GPU: over its devices too). */
static void rank_parts(const tf_ov_result *res, const tf_ov_rank *rk, bool gpu, int64_t v[5])
{
	memset(v, 0, 5 * sizeof(*v));
	for (size_t j = rk->first; j < rk->first + rk->nsteps && j < res->nsteps; j++) {
		const tf_ov_step *s = &res->steps[j];
		if (gpu) {
			v[0] = tf_sat_add(v[0], s->gpu_compute_ns);
			v[1] = tf_sat_add(v[1], s->gpu_comm_ns);
			v[2] = tf_sat_add(v[2], s->gpu_memcpy_ns);
			v[3] = tf_sat_add(v[3], s->gpu_memset_ns);
			v[4] = tf_sat_add(v[4], s->gpu_idle_ns);
		} else {
			v[0] = tf_sat_add(v[0], s->cpu_ns);
			v[1] = tf_sat_add(v[1], s->time_ns > s->cpu_ns ? tf_sat_sub(s->time_ns, s->cpu_ns) : 0);
		}
	}
}

static void bars(FILE *f, const tf_ov_report *r)
{
	const tf_ov_result *res = r->res;
	bool gpu = res->devices > 0;
	int np = gpu ? 5 : 2;
	const char *const *name = gpu ? gpu_parts : cpu_parts;
	double most = 0, L = 80, BW = 760, RH = 22, T = 30;
	int64_t v[5];
	for (size_t i = 0; i < res->nranks; i++) {
		double tot = 0;
		rank_parts(res, &res->ranks[i], gpu, v);
		for (int k = 0; k < np; k++)
			tot += (double)(v[k] > 0 ? v[k] : 0);
		most = tot > most ? tot : most;
	}
	double H = T + RH * (double)res->nranks + 8, W = L + BW + 120;
	fprintf(f, "<div class=\"ov-scroll\"><svg class=\"ov ov-bars\" width=\"%.0f\" height=\"%.0f\" "
		   "viewBox=\"0 0 %.0f %.0f\" role=\"img\" aria-label=\"time per rank\">\n",
		W, H, W, H);
	for (int k = 0, x = (int)L; k < np; k++) {
		fprintf(f, "<rect x=\"%d\" y=\"6\" width=\"12\" height=\"12\" fill=\"%s\"/>"
			   "<text x=\"%d\" y=\"16\">%s</text>\n", x, part_color[gpu ? k : k * 4], x + 16, name[k]);
		x += 16 + (int)(7.0 * (double)strlen(name[k])) + 18;
	}
	for (size_t i = 0; i < res->nranks; i++) {
		const tf_ov_rank *rk = &res->ranks[i];
		double y = T + RH * (double)i, x = L, tot = 0;
		rank_parts(res, rk, gpu, v);
		for (int k = 0; k < np; k++)
			tot += (double)(v[k] > 0 ? v[k] : 0);
		fprintf(f, "<g class=\"ov-bar\"><text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">rank %" PRId64 "</text>\n",
			L - 6, y + 13, rk->rank);
		for (int k = 0; k < np && most > 0; k++) {
			double w = v[k] > 0 ? BW * (double)v[k] / most : 0;
			if (w <= 0)
				continue;
			fprintf(f, "<rect class=\"ov-seg\" x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"16\" fill=\"%s\">"
				   "<title>rank %" PRId64 ", %s: %s (%.1f%%)</title></rect>\n",
				x, y, w, part_color[gpu ? k : k * 4], rk->rank, name[k], NS(v[k]),
				tot > 0 ? 100.0 * (double)v[k] / tot : 0.0);
			x += w;
		}
		if (gpu && !rk->devices)
			fprintf(f, "<text x=\"%.0f\" y=\"%.1f\">no GPU activity</text>", L + 4, y + 13);
		else
			fprintf(f, "<text x=\"%.2f\" y=\"%.1f\">%s</text>", x + 6, y + 13, NS(tf_sat_from_double(tot)));
		fputs("</g>\n", f);
	}
	fputs("</svg></div>\n", f);
}

/* ---- tables ---- */

static void td_ns(FILE *f, int64_t v) { fprintf(f, "<td class=\"ov-n\">%s</td>", NS(v)); }

static void steps_table(FILE *f, const tf_ov_report *r, const bool *strag)
{
	const tf_ov_result *res = r->res;
	bool gpu = res->devices > 0;
	fputs("<table class=\"ov\">\n<tr><th>rank</th><th>step</th><th>time</th><th>cpu</th>", f);
	if (gpu)
		fputs("<th>GPU compute</th><th>GPU comm</th><th>GPU memcpy</th><th>GPU memset</th><th>GPU idle</th>"
		      "<th>comm exposed</th>", f);
	fputs("<th>comm wait</th><th>late</th><th>MPI</th><th>bound</th>", f);
	if (res->telemetry) /* docs/telemetry.md */
		fputs("<th>GPU util</th><th>GPU power</th>", f);
	fputs("</tr>\n", f);
	for (size_t i = 0; i < res->nranks; i++) {
		const tf_ov_rank *rk = &res->ranks[i];
		size_t hidden = 0;
		for (size_t k = 0; k < rk->nsteps && rk->first + k < res->nsteps; k++) {
			size_t j = rk->first + k;
			const tf_ov_step *s = &res->steps[j];
			if (r->max_rows && k >= r->max_rows && !strag[j]) {
				hidden++;
				continue;
			}
			fprintf(f, "<tr%s><td class=\"ov-n\">%" PRId64 "</td><td class=\"ov-n\">%" PRId64 "</td>",
				strag[j] ? " class=\"ov-strag-row\"" : "", s->rank, s->step);
			td_ns(f, s->time_ns);
			td_ns(f, s->cpu_ns);
			if (gpu) {
				td_ns(f, s->gpu_compute_ns);
				td_ns(f, s->gpu_comm_ns);
				td_ns(f, s->gpu_memcpy_ns);
				td_ns(f, s->gpu_memset_ns);
				td_ns(f, s->gpu_idle_ns);
				td_ns(f, s->comm_exposed_ns);
			}
			td_ns(f, s->comm_wait_ns);
			if (s->ncoll)
				td_ns(f, s->late_ns);
			else
				fputs("<td class=\"ov-n\">-</td>", f);
			td_ns(f, s->mpi_ns);
			fprintf(f, "<td>%s</td>", tf_ov_bound_names[s->bound & 3]);
			if (res->telemetry)
				td_tel(f, s);
			fputs("</tr>\n", f);
		}
		if (hidden)
			fprintf(f, "<tr><td colspan=\"%d\">... %zu more steps of rank %" PRId64 " (the heat map has them)</td></tr>\n",
				(gpu ? 14 : 8) + (res->telemetry ? 2 : 0), hidden, rk->rank);
	}
	fputs("</table>\n", f);
}

static void where_table(FILE *f, const tf_ov_table *t)
{
	fputs("<h3>", f);
	ctext(f, t->title);
	fputs("</h3>\n<table class=\"ov\">\n<tr><th>", f);
	ctext(f, t->what);
	fputs("</th><th>", f);
	ctext(f, t->value);
	fprintf(f, "</th><th>%s</th>%s</tr>\n", t->imbalance ? "max/mean" : "share",
		t->imbalance ? "<th>rank with most</th>" : "");
	for (size_t i = 0; i < t->n; i++) {
		const tf_ov_row *row = &t->rows[i];
		char *sh = row->name ? tf_name_short(row->name, NAME_WIDTH) : NULL;
		if (sh && strcmp(sh, row->name)) { /* the full name in the tooltip */
			fputs("<tr><td class=\"ov-name\" title=\"", f);
			ctext(f, row->name);
			fputs("\">", f);
			ctext(f, sh);
		} else {
			fputs("<tr><td class=\"ov-name\">", f);
			ctext(f, row->name);
		}
		free(sh);
		fputs("</td>", f);
		td_ns(f, row->value);
		if (t->imbalance)
			fprintf(f, "<td class=\"ov-n\">%.2f</td><td class=\"ov-n\">%" PRId64 "</td></tr>\n", row->share,
				row->max_rank);
		else
			fprintf(f, "<td class=\"ov-n\">%.1f%%</td></tr>\n", 100.0 * row->share);
	}
	if (!t->n)
		fprintf(f, "<tr><td colspan=\"%d\">nothing</td></tr>\n", t->imbalance ? 4 : 3);
	fputs("</table>\n", f);
}

static int mpi_tables(FILE *f, const tf_ov_report *r)
{
	const tf_ov_result *res = r->res;
	fputs("<h2>MPI wait states</h2>\n<p>Scalasca's Late Sender, Late Receiver and Wait at N x N "
	      "(docs/overview.md).</p>\n<table class=\"ov\">\n<tr><th>rank</th><th>MPI</th><th>late sender</th>"
	      "<th>late receiver</th><th>wait at collectives</th></tr>\n", f);
	for (size_t i = 0; i < res->nranks; i++) {
		const tf_ov_rank *rk = &res->ranks[i];
		fprintf(f, "<tr><td class=\"ov-n\">%" PRId64 "</td>", rk->rank);
		td_ns(f, rk->mpi_ns);
		for (int k = 0; k < TF_OV_NWAIT; k++)
			td_ns(f, rk->wait_ns[k]);
		fputs("</tr>\n", f);
	}
	fputs("</table>\n<h3>Where the waits are</h3>\n<table class=\"ov\">\n<tr><th>wait</th><th>call path</th>"
	      "<th>time</th></tr>\n", f);
	size_t shown = r->max_rows ? r->max_rows : 50;
	for (size_t i = 0; i < res->nwaits && i < shown; i++) {
		const tf_ov_wait *w = &res->waits[i];
		fprintf(f, "<tr><td>%s</td><td class=\"ov-name\">", w->kind < TF_OV_NWAIT ? wait_text[w->kind] : "?");
		if (r->agg && w->node < tf_agg_nnodes(r->agg)) {
			char *p = tf_ov_path_text(r->agg, w->node);
			if (!p)
				return TF_ENOMEM;
			ctext(f, p);
			free(p);
		}
		fputs("</td>", f);
		td_ns(f, w->ns);
		fputs("</tr>\n", f);
	}
	if (res->nwaits > shown)
		fprintf(f, "<tr><td colspan=\"3\">... and %zu more</td></tr>\n", res->nwaits - shown);
	if (!res->nwaits)
		fputs("<tr><td colspan=\"3\">no wait</td></tr>\n", f);
	fputs("</table>\n", f);
	return 0;
}

/* ---- the flame graph ---- */

static bool positive(const tf_agg *agg, int type)
{
	if (!agg || type < 0 || type >= tf_agg_ntypes(agg))
		return false;
	for (size_t i = 0, n = tf_agg_nsamples(agg); i < n; i++)
		if (tf_agg_sample_value(agg, i, type) > 0)
			return true;
	return false;
}

static int flame(FILE *f, const tf_ov_report *r)
{
	bool gpu = positive(r->agg, r->gpu_type);
	int type = gpu ? r->gpu_type : r->wall_type;
	fputs("<h2>Flame graph</h2>\n", f);
	if (!positive(r->agg, type)) {
		fputs("<p>No flame graph: no call path has time.</p>\n", f);
		return 0;
	}
	fprintf(f, "<p>%s, all ranks and steps; the frames' tooltips give their time.</p>\n<div class=\"ov-scroll\">\n",
		gpu ? "GPU time under the CPU call path that launched it" : "Wall time by call path");
	tf_flame_opts o = { .type = type, .colors = TF_FLAME_COLOR_CATEGORY,
			    .title = gpu ? "GPU time by launching call path" : "Wall time by call path" };
	tf_error err = { 0 };
	int rc = tf_flame_write_file(r->agg, &o, f, NULL, &err);
	fputs("</div>\n", f);
	return rc == TF_EFORMAT ? 0 : rc;
}

/* ---- the page ---- */

static const char style[] =
	"body{font:14px/1.4 sans-serif;margin:16px 24px;color:#222;background:#fff}\n"
	"h1{font-size:22px;margin:0 0 8px}\n"
	"h2{font-size:18px;margin:26px 0 8px;border-bottom:1px solid #ddd}\n"
	"h3{font-size:15px;margin:16px 0 6px}\n"
	"code{font-family:monospace;overflow-wrap:anywhere}\n"
	".ov-late{color:#b00020;font-weight:bold}\n"
	"table.ov{border-collapse:collapse;font-size:13px;margin-bottom:8px}\n"
	"table.ov th,table.ov td{border:1px solid #ddd;padding:2px 6px;vertical-align:top}\n"
	"table.ov th{background:#f4f4f4;text-align:left}\n"
	"table.ov td.ov-n{text-align:right;font-family:monospace;white-space:nowrap}\n"
	"table.ov td.ov-name{font-family:monospace;max-width:60em;overflow-wrap:anywhere}\n"
	"tr.ov-strag-row td{background:#fde8e8}\n"
	".ov-scroll{overflow-x:auto}\n"
	"svg.ov text{font:12px sans-serif;fill:#222}\n"
	"svg.ov text.ov-axis{font-weight:bold}\n"
	"svg.ov rect.ov-mark{fill:none;stroke:#0033cc;stroke-width:2.5;pointer-events:none}\n"
	"svg.ov rect.ov-cell:hover,svg.ov rect.ov-seg:hover{stroke:#000;stroke-width:1}\n";

/* Which steps are stragglers (by index into res->steps); NULL when out of
 * memory. */
static bool *straggler_steps(const tf_ov_result *res)
{
	bool *s = calloc(res->nsteps ? res->nsteps : 1, sizeof(*s));
	for (size_t i = 0; s && i < res->nstragglers; i++)
		for (size_t k = 0; k < res->nranks; k++) {
			const tf_ov_rank *rk = &res->ranks[k];
			if (rk->rank != res->stragglers[i].rank)
				continue;
			for (size_t j = rk->first; j < rk->first + rk->nsteps && j < res->nsteps; j++)
				if (res->steps[j].step == res->stragglers[i].step)
					s[j] = true;
		}
	return s;
}

int tf_ov_print_html(FILE *f, const tf_ov_report *r)
{
	const tf_ov_result *res = r->res;
	const char *title = r->title ? r->title : "tracefold overview";
	bool *strag = straggler_steps(res);
	int rc = 0;
	if (!strag)
		return TF_ENOMEM;
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"generator\" content=\"tracefold overview\">\n<title>", f);
	ctext(f, title);
	fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<h1>", style);
	ctext(f, title);
	fputs("</h1>\n", f);
	summary(f, r);
	verdicts(f, r);
	fputs("<h2>Step time per rank</h2>\n<p>One cell per rank and step (time from the step's start to the end of "
	      "its last CPU region or GPU activity); the tooltip gives every number of the step.</p>\n", f);
	if (!res->nsteps || !res->nranks)
		fputs("<p>No step.</p>\n", f);
	else if ((rc = heatmap(f, r, strag)) < 0)
		goto out;
	if (res->devices)
		fputs("<h2>GPU time per rank</h2>\n<p>Summed over the rank's steps and GPUs: the time each kind of "
		      "activity kept a GPU busy, and the time nothing ran on it (idle).</p>\n", f);
	else
		fputs("<h2>CPU time per rank</h2>\n<p>No GPU activity: the time in the steps' top regions on the "
		      "rank's main thread, and the rest of the steps' time.</p>\n", f);
	bars(f, r);
	fputs("<h2>Steps</h2>\n", f);
	steps_table(f, r, strag);
	if (r->ntables > 0)
		fputs("<h2>Where the time goes</h2>\n", f);
	for (int i = 0; i < r->ntables && i < TF_OV_MAX_TABLES; i++)
		where_table(f, &r->tables[i]);
	if ((res->mpi && (rc = mpi_tables(f, r)) < 0) || (rc = flame(f, r)) < 0)
		goto out;
	fputs("</body>\n</html>\n", f);
out:
	free(strag);
	if (!rc && (fflush(f) || ferror(f)))
		rc = TF_EIO;
	return rc;
}
