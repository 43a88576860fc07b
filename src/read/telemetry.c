/* telemetry.c - sampled telemetry as counter tracks (docs/telemetry.md):
 * what the telemetry readers share (CSV lines, values, tracks, the
 * wall-clock alignment) and tracefold's own generic CSV:
 *
 *   # tracefold-telemetry unit=ns clock=realtime host=node01
 *   time,track,name,value
 *   1795000000000000000,CPU,cpu.utilization,12.5
 *   1795000000000000000,GPU 0,gpu.power,[N/A]
 *
 * The first line names the format, the unit of `time` (ns, us, ms, s; a
 * decimal fraction allowed), its clock (realtime: CLOCK_REALTIME since the
 * epoch, put on the trace's clock by its wall-clock base; trace: already
 * on the trace's clock, never shifted) and the host (the process of the
 * tracks: "telemetry <host>", else "telemetry <file name>").  Each row is
 * one sample of counter `name` on track `track`.  A value that is not
 * available is skipped and counted (telemetry_na), never read as zero.
 *
 * Streamed line by line (tf_lines): memory grows with the tracks and
 * counter names, never with the file. */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "telemetry.h"
#include "json.h"

#define LINE_MAX_BYTES ((size_t)1 << 20)
#define PROC_PREFIX "telemetry "

int tel_error(tel_rd *r, uint64_t off, const char *fmt, ...)
{
	char msg[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return tf_error_set(r->err, TF_EFORMAT, r->path, (int64_t)off, (int64_t)r->index, "%s line %" PRIu64 ": %s",
			    r->what, r->line, msg);
}

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

int tel_split(const char *s, size_t n, tel_field *f, int max)
{
	int k = 0;
	size_t p = 0;
	for (;;) {
		const char *c = memchr(s + p, ',', n - p);
		size_t e = c ? (size_t)(c - s) : n, b = p, z = e;
		while (b < z && blank(s[b]))
			b++;
		while (z > b && blank(s[z - 1]))
			z--;
		if (k == max)
			return -1;
		f[k++] = (tel_field){ s + b, z - b };
		if (!c)
			return k;
		p = e + 1;
	}
}

bool tel_is(const tel_field *f, const char *lit)
{
	size_t n = strlen(lit);
	return f->n == n && memcmp(f->p, lit, n) == 0;
}

double tel_unit_bytes(const char *u, size_t n)
{
	static const struct { const char *u; double m; } units[] = {
		{ "B", 1 }, { "KiB", 1024.0 }, { "MiB", 1048576.0 }, { "GiB", 1073741824.0 },
		{ "KB", 1e3 }, { "MB", 1e6 }, { "GB", 1e9 },
	};
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strlen(units[i].u) == n && memcmp(units[i].u, u, n) == 0)
			return units[i].m;
	return 0;
}

int tel_value(const tel_field *f, double scale, double *v)
{
	const char *p = f->p;
	size_t n = f->n;
	if (n == 0 || (p[0] == '[' && p[n - 1] == ']') || (n == 3 && !memcmp(p, "N/A", 3)))
		return 0;
	if (n >= 2 && p[0] == '(' && p[n - 1] == ')') {
		p++;
		n -= 2;
	}
	char buf[64];
	size_t d = 0; /* the number: sign, digits, '.', exponent */
	while (d < n && d < sizeof(buf) - 1 &&
	       ((p[d] >= '0' && p[d] <= '9') || p[d] == '.' || p[d] == '-' || p[d] == '+' ||
		((p[d] == 'e' || p[d] == 'E') && d > 0 && d + 1 < n && (p[d + 1] == '-' || p[d + 1] == '+' ||
									  (p[d + 1] >= '0' && p[d + 1] <= '9')))))
		d++;
	if (d == 0 || d == sizeof(buf) - 1)
		return -1;
	memcpy(buf, p, d);
	buf[d] = '\0';
	char *end;
	double x = strtod(buf, &end);
	if (end != buf + d || !isfinite(x))
		return -1;
	size_t u = d;
	while (u < n && p[u] == ' ')
		u++;
	if (u < n) { /* a unit: letters, '%' */
		for (size_t i = u; i < n; i++)
			if (!((p[i] >= 'a' && p[i] <= 'z') || (p[i] >= 'A' && p[i] <= 'Z') || p[i] == '%'))
				return -1;
		double m = tel_unit_bytes(p + u, n - u);
		if (m)
			scale = m;
	}
	*v = x * scale;
	return 1;
}

void tel_skip_na(tel_rd *r)
{
	tf_count_skip(r->ctx, TF_DIAG_telemetry_na);
}

/* Another input's track that is no telemetry's: a trace was read. */
static bool trace_read(tel_rd *r)
{
	uint32_t n = tf_ctx_track_count(r->ctx);
	for (uint32_t i = 0; i < n; i++) {
		const tf_track *t = tf_ctx_track_get(r->ctx, i);
		const char *k = tf_strtab_get(r->st, t->process_key);
		if (t->input != r->input && (!k || strncmp(k, PROC_PREFIX, strlen(PROC_PREFIX)) != 0))
			return true;
	}
	return false;
}

/* How the file was aligned: a note (info lists it) and a line every
 * command prints (a warning: not a problem, but what the numbers mean). */
static void said(tel_rd *r, const char *how, const char *a, const char *b)
{
	char h[600];
	snprintf(h, sizeof(h), how, a, b);
	tf_ctx_note(r->ctx, "telemetry %s %s: shift %" PRId64 " ns", r->path, h, r->shift);
	tf_ctx_warn(r->ctx, "telemetry %s %s: shift %" PRId64 " ns", r->path, h, r->shift);
}

void tel_align(tel_rd *r)
{
	const tf_read_opts *o = tf_ctx_opts(r->ctx);
	r->aligned = true;
	r->shift = 0;
	if (r->own_clock)
		return;
	if (o->wall_base_known) {
		r->shift = -o->wall_base_ns;
		said(r, "aligned to trace %s by %s", o->wall_base_from, o->wall_base_how);
		if (o->wall_base_other[0])
			tf_ctx_warn(r->ctx, "telemetry %s: trace %s has another wall-clock base than %s (%+" PRId64 " ns); "
				    "the telemetry is on the first's clock, each trace on its own (docs/telemetry.md)",
				    r->path, o->wall_base_other, o->wall_base_from, o->wall_base_other_ns - o->wall_base_ns);
	} else if (o->clock_offset_ns) {
		r->shift = o->clock_offset_ns;
		said(r, "aligned by --clock-offset", "", "");
	} else if (trace_read(r)) {
		tf_ctx_warn(r->ctx, "telemetry %s stays on its own clock (wall-clock ns since the epoch): no trace "
			    "says its wall-clock time (Kineto baseTimeNanoseconds) and no --clock-offset was given",
			    r->path);
	}
}

int tel_emit(tel_rd *r, const char *track, size_t tn, tf_str name, int64_t wall_ns, double v)
{
	if (!r->aligned)
		tel_align(r);
	tf_str tk = tf_strtab_intern(r->st, track, tn);
	if (tk == (tf_str)-1)
		return TF_ENOMEM;
	uint32_t t = tf_ctx_track(r->ctx, r->input, r->proc, tk);
	if (t == UINT32_MAX)
		return TF_ENOMEM;
	tf_track *tr = tf_ctx_track_get(r->ctx, t);
	if (!tr->thread_name) {
		tr->thread_name = tk;
		tr->needs_sort = true; /* rows of several devices need not be in time order */
		tr->counters_own = true;
	}
	int64_t ts;
	if (__builtin_add_overflow(wall_ns, r->shift, &ts))
		return tel_error(r, 0, "a time beyond int64 nanoseconds");
	tf_event ev = { .kind = TF_EV_COUNTER, .track = t, .name = name, .ts_ns = ts, .value = v,
			.index = r->index++, .msg = { .peer = -1, .comm = -1 } };
	r->samples++;
	return tf_emit(r->ctx, r->sink, &ev);
}

static int set_proc(tel_rd *r)
{
	char name[300];
	const char *base = strrchr(r->path, '/');
	snprintf(name, sizeof(name), PROC_PREFIX "%s", r->host[0] ? r->host : base ? base + 1 : r->path);
	if ((r->proc = tf_strtab_intern_cstr(r->st, name)) == (tf_str)-1)
		return TF_ENOMEM;
	tf_ctx_set_process_name(r->ctx, r->input, r->proc, r->proc);
	return 0;
}

int tel_read(const char *path, uint32_t input, tf_ctx *ctx, tf_sink *sink, tf_error *err, const char *what,
	     tel_line_fn fn, void *fmt)
{
	tel_rd r = { .path = path, .what = what, .input = input, .ctx = ctx, .sink = sink, .st = tf_ctx_strtab(ctx),
		     .err = err, .fmt = fmt };
	tf_lines l;
	TF_TRY(tf_lines_open(&l, path, what, LINE_MAX_BYTES, err));
	const char *s;
	size_t n;
	uint64_t off = 0;
	int rc;
	while ((rc = tf_lines_next(&l, &s, &n, &off, err)) > 0) {
		r.line = l.line;
		while (n && blank(s[n - 1]))
			n--;
		if (n == 0)
			continue;
		if (!r.proc && (r.host[0] || s[0] != '#') && (rc = set_proc(&r)) < 0)
			break;
		if ((rc = fn(&r, s, n, off)) < 0)
			break;
	}
	if (rc == 0 && tf_in_truncated(l.in))
		rc = tf_error_set(err, TF_EFORMAT, path, (int64_t)off, -1, "gzip data ends early");
	if (rc == 0 && !r.samples)
		rc = tf_error_set(err, TF_EFORMAT, path, 0, -1, "no samples in this %s (no row with a value)", what);
	if (rc == TF_ENOMEM && err && !err->code)
		tf_error_set(err, rc, path, -1, (int64_t)r.index, "out of memory");
	tf_lines_close(&l);
	return rc;
}

/* ---- the generic CSV ---- */

#define GENERIC_MAGIC "# tracefold-telemetry"

typedef struct generic {
	int scale;                /* the unit: 10^scale ns */
	bool header;              /* the first line was read */
	bool names_row;           /* the "time,track,name,value" row was seen */
	tf_str last_name;         /* the last name and its text, interned once */
	char last[128];
} generic;

static int generic_header(tel_rd *r, generic *g, const char *s, size_t n, uint64_t off)
{
	size_t m = strlen(GENERIC_MAGIC), p = m;
	if (n < m || memcmp(s, GENERIC_MAGIC, m) != 0 || (n > m && s[m] != ' '))
		return tel_error(r, off, "the first line is not '" GENERIC_MAGIC " unit=ns clock=realtime'");
	g->header = true;
	while (p < n) {
		while (p < n && s[p] == ' ')
			p++;
		size_t e = p;
		while (e < n && s[e] != ' ')
			e++;
		const char *k = s + p, *eq = memchr(k, '=', e - p);
		size_t kn = eq ? (size_t)(eq - k) : 0, vn = eq ? e - p - kn - 1 : 0;
		const char *v = eq ? eq + 1 : NULL;
		if (p == e) {
			break;
		} else if (!eq) {
			return tel_error(r, off, "'%.*s' is not key=value", (int)(e - p), k);
		} else if (kn == 4 && !memcmp(k, "unit", 4)) {
			static const char *const units[] = { "ns", "us", "ms", "s" };
			static const int scales[] = { 0, 3, 6, 9 };
			int i = 0;
			while (i < 4 && !(strlen(units[i]) == vn && !memcmp(v, units[i], vn)))
				i++;
			if (i == 4)
				return tel_error(r, off, "unit '%.*s': ns, us, ms or s", (int)vn, v);
			g->scale = scales[i];
		} else if (kn == 5 && !memcmp(k, "clock", 5)) {
			if (vn == 5 && !memcmp(v, "trace", 5))
				r->own_clock = true;
			else if (!(vn == 8 && !memcmp(v, "realtime", 8)))
				return tel_error(r, off, "clock '%.*s': realtime or trace", (int)vn, v);
		} else if (kn == 4 && !memcmp(k, "host", 4) && vn && vn < sizeof(r->host)) {
			memcpy(r->host, v, vn);
			r->host[vn] = '\0';
		} /* other keys: for later versions, ignored */
		p = e;
	}
	return 0;
}

static int generic_line(tel_rd *r, const char *s, size_t n, uint64_t off)
{
	generic *g = r->fmt;
	if (!g->header)
		return generic_header(r, g, s, n, off);
	if (s[0] == '#')
		return 0;
	tel_field f[5];
	int k = tel_split(s, n, f, 5);
	if (!g->names_row && k == 4 && tel_is(&f[0], "time") && tel_is(&f[1], "track")) {
		g->names_row = true;
		return 0;
	}
	if (k != 4)
		return tel_error(r, off, "not 'time,track,name,value': '%.*s'", (int)(n > 60 ? 60 : n), s);
	int64_t t;
	if (tf_json_decimal_scaled(f[0].p, f[0].n, g->scale, &t) < 0)
		return tel_error(r, off, "time '%.*s' is not a number", (int)(f[0].n > 40 ? 40 : f[0].n), f[0].p);
	if (!f[1].n || !f[2].n || f[2].n >= sizeof(g->last))
		return tel_error(r, off, "an empty track or name, or a name over 127 bytes");
	double v;
	int ok = tel_value(&f[3], 1, &v);
	if (ok < 0)
		return tel_error(r, off, "value '%.*s' is not a number", (int)(f[3].n > 40 ? 40 : f[3].n), f[3].p);
	if (ok == 0) {
		tel_skip_na(r);
		return 0;
	}
	if (!g->last_name || strlen(g->last) != f[2].n || memcmp(g->last, f[2].p, f[2].n)) {
		if ((g->last_name = tf_strtab_intern(r->st, f[2].p, f[2].n)) == (tf_str)-1)
			return TF_ENOMEM;
		memcpy(g->last, f[2].p, f[2].n);
		g->last[f[2].n] = '\0';
	}
	return tel_emit(r, f[1].p, f[1].n, g->last_name, t, v);
}

static int generic_read(const char *path, uint32_t input, tf_ctx *ctx, tf_sink *sink, tf_error *err)
{
	generic g = { 0 };
	return tel_read(path, input, ctx, sink, err, "tracefold telemetry CSV", generic_line, &g);
}

static int generic_sniff(const char *path, int is_dir, const unsigned char *head, size_t n, bool whole)
{
	(void)path;
	(void)whole;
	size_t m = strlen(GENERIC_MAGIC);
	if (is_dir || n < m || memcmp(head, GENERIC_MAGIC, m) != 0)
		return TF_SNIFF_NO;
	return n == m || head[m] == ' ' || head[m] == '\n' || head[m] == '\r' ? TF_SNIFF_YES : TF_SNIFF_NO;
}

const tf_format tf_format_telemetry = {
	.name = "telemetry",
	.description = "telemetry CSV ('# tracefold-telemetry' then time,track,name,value rows: samples/telemetry.sh)",
	.sniff = generic_sniff,
	.read = generic_read,
	.kind = TF_INPUT_EVENTS,
	.noun = "telemetry CSV",
	.telemetry = true,
};
