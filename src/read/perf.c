/* perf.c - Linux `perf script` text (docs/format-perf.md): one sample per
 * header line "comm [pid/]tid [cpu] time: [period] event:" and its stack
 * lines "ip sym+off (dso)", leaf first, up to an empty line.  Each sample
 * becomes a TF_EV_SAMPLE on its thread's track: one sample, its event as
 * the weight's sample type, its period as the weight (nanoseconds for the
 * cpu-clock and task-clock events, a count for the others).  Streamed
 * line by line; any file name (sniffed by content), `-F perf` forces. */
#include <stdbool.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tracefold/io.h"
#include "tracefold/reader.h"
#include "grow.h"

#define PERF_LINE_MAX ((size_t)16 << 20)

typedef struct prd {
	tf_ctx *ctx;
	tf_sink *sink;
	tf_strtab *st;
	const char *path;
	tf_error *err;
	uint32_t input;
	/* the sample being read */
	bool open;
	uint32_t track;
	int64_t ts_ns;
	double period;
	tf_str event, unit;
	tf_str *fr;               /* its frames, leaf first */
	size_t nfr, capfr;
	uint64_t nsamples;
	char *tmp;                /* scratch for a frame name */
	size_t captmp;
	char *rest;               /* the header's text after the event (no -g: the one frame) */
	size_t nrest, caprest;
} prd;

/* A parsed header line. */
typedef struct perf_head {
	const char *comm, *pid, *tid, *time, *event, *rest;
	size_t ncomm, npid, ntid, ntime, nevent, nrest;
	bool has_period;
	uint64_t period;
} perf_head;

static bool is_ws(char c) { return c == ' ' || c == '\t' || c == '\r'; }
static bool is_digit(char c) { return c >= '0' && c <= '9'; }
static bool is_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

/* The next token of s[*i..n): its start and length, 0 when none is left. */
static size_t token(const char *s, size_t n, size_t *i, const char **t)
{
	while (*i < n && is_ws(s[*i]))
		(*i)++;
	size_t b = *i;
	while (*i < n && !is_ws(s[*i]))
		(*i)++;
	*t = s + b;
	return *i - b;
}

static bool all_digits(const char *s, size_t n, bool sign)
{
	if (sign && n && s[0] == '-') {
		s++;
		n--;
	}
	if (!n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!is_digit(s[i]))
			return false;
	return true;
}

/* "123.456789:" */
static bool time_token(const char *t, size_t n)
{
	if (n < 4 || t[n - 1] != ':')
		return false;
	const char *dot = memchr(t, '.', n - 1);
	return dot && dot > t && all_digits(t, (size_t)(dot - t), false) &&
	       all_digits(dot + 1, (size_t)(t + n - 1 - dot - 1), false);
}

/* "pid/tid" or "tid" */
static bool pid_token(perf_head *h, const char *t, size_t n)
{
	const char *sl = memchr(t, '/', n);
	if (!sl) {
		h->pid = NULL;
		h->npid = 0;
		h->tid = t;
		h->ntid = n;
		return all_digits(t, n, true);
	}
	h->pid = t;
	h->npid = (size_t)(sl - t);
	h->tid = sl + 1;
	h->ntid = n - h->npid - 1;
	return all_digits(h->pid, h->npid, true) && all_digits(h->tid, h->ntid, true);
}

#define HEAD_TOKENS 64

/* Parses a header line (docs/format-perf.md): the time is the first token
 * "digits.digits:" after at least one token of comm and the [pid/]tid
 * (and an optional "[cpu]") before it; then an optional period and the
 * event, a token ending in ':'.  False when s is no header. */
static bool parse_head(const char *s, size_t n, perf_head *h)
{
	const char *tk[HEAD_TOKENS];
	size_t tn[HEAD_TOKENS], i = 0;
	int nt = 0;
	memset(h, 0, sizeof(*h));
	if (!n || is_ws(s[0]) || s[0] == '#')
		return false;
	while (nt < HEAD_TOKENS && (tn[nt] = token(s, n, &i, &tk[nt])) > 0) {
		if (time_token(tk[nt], tn[nt]) && nt >= 2) {
			int p = nt - 1;
			if (tn[p] > 2 && tk[p][0] == '[' && tk[p][tn[p] - 1] == ']' && all_digits(tk[p] + 1, tn[p] - 2, false))
				p--;
			if (p >= 1 && pid_token(h, tk[p], tn[p])) {
				h->comm = s;
				h->ncomm = (size_t)(tk[p] - s);
				while (h->ncomm && is_ws(s[h->ncomm - 1]))
					h->ncomm--;
				h->time = tk[nt];
				h->ntime = tn[nt] - 1;
				break;
			}
		}
		nt++;
	}
	if (!h->time)
		return false;
	const char *t;
	size_t m = token(s, n, &i, &t);
	if (m && all_digits(t, m, false)) {
		h->has_period = true;
		for (size_t k = 0; k < m; k++) /* within the token: the line has no NUL after it */
			h->period = h->period > (UINT64_MAX - 9) / 10 ? UINT64_MAX : h->period * 10 + (uint64_t)(t[k] - '0');
		m = token(s, n, &i, &t);
	}
	if (m < 2 || t[m - 1] != ':')
		return false;
	h->event = t;
	h->nevent = m - 1;
	while (i < n && is_ws(s[i]))
		i++;
	h->rest = s + i; /* perf record without -g: "ip sym+off (dso)" of the one frame */
	h->nrest = n - i;
	return true;
}

/* "sec.frac" -> ns, exactly (digits past the 9th are dropped). */
static int64_t time_ns(const char *t, size_t n)
{
	int64_t sec = 0, frac = 0;
	size_t i = 0;
	for (; i < n && t[i] != '.'; i++)
		sec = sec < INT64_MAX / 100 ? sec * 10 + (t[i] - '0') : sec;
	int d = 0;
	for (i++; i < n; i++)
		if (d < 9) {
			frac = frac * 10 + (t[i] - '0');
			d++;
		}
	for (; d < 9; d++)
		frac *= 10;
	return sec > INT64_MAX / 1000000000 - 1 ? INT64_MAX : sec * 1000000000 + frac;
}

static tf_str intern(prd *r, const char *s, size_t n)
{
	tf_str id = tf_strtab_intern(r->st, s, n);
	return id;
}

/* cpu-clock and task-clock count nanoseconds (with modifiers or terms:
 * "task-clock:u", "cpu-clock/period=1000000/"); other events, counts. */
static bool time_event(const char *e, size_t n)
{
	for (int k = 0; k < 2; k++) {
		const char *w = k ? "task-clock" : "cpu-clock";
		size_t wl = strlen(w);
		if (n >= wl && !memcmp(e, w, wl) && (n == wl || e[wl] == ':' || e[wl] == '/'))
			return true;
	}
	return false;
}

static int frame_line(prd *r, const char *s, size_t n);

/* The sample read so far, to the sink: its stack root first. */
static int flush(prd *r)
{
	if (!r->open)
		return 0;
	r->open = false;
	if (!r->nfr && r->nrest) { /* no stack lines (perf record without -g): the header's frame */
		int rc = frame_line(r, r->rest, r->nrest);
		if (rc < 0)
			return rc; /* 1: no frame there (a tracepoint's text): an empty stack */
	}
	uint32_t stack = TF_CPATH_ROOT;
	for (size_t i = r->nfr; i-- > 0;)
		if ((stack = tf_ctx_stack_child(r->ctx, stack, r->fr[i])) == (uint32_t)-1)
			return tf_error_set(r->err, TF_ENOMEM, r->path, -1, -1, "out of memory");
	tf_event ev = { .kind = TF_EV_SAMPLE, .track = r->track, .ts_ns = r->ts_ns, .id = stack, .dur_ns = 1,
			.name = r->event, .cat = r->unit, .value = r->period, .index = r->nsamples++,
			.msg = { .peer = -1, .comm = -1 } };
	int rc = tf_emit(r->ctx, r->sink, &ev);
	if (rc < 0 && rc != TF_ESTOP && !r->err->code)
		tf_error_set(r->err, rc, r->path, -1, (int64_t)ev.index, "cannot add sample %" PRIu64 ": %s",
			     ev.index, tf_strerror(rc));
	return rc;
}

static int line_error(prd *r, uint64_t off, uint64_t line, const char *what, const char *s, size_t n)
{
	return tf_error_set(r->err, TF_EFORMAT, r->path, (int64_t)off, -1, "line %" PRIu64 ": %s: '%.*s'", line,
			    what, (int)(n > 80 ? 80 : n), s);
}

static int head_line(prd *r, const perf_head *h)
{
	TF_TRY(flush(r));
	tf_str comm = intern(r, h->comm, h->ncomm);
	tf_str tid = intern(r, h->tid, h->ntid);
	tf_str pid = h->pid ? intern(r, h->pid, h->npid) : tid;
	tf_str ev = intern(r, h->event, h->nevent);
	if (comm == (tf_str)-1 || tid == (tf_str)-1 || pid == (tf_str)-1 || ev == (tf_str)-1)
		return TF_ENOMEM;
	uint32_t track = tf_ctx_track(r->ctx, r->input, pid, tid);
	if (track == UINT32_MAX)
		return TF_ENOMEM;
	tf_track *t = tf_ctx_track_get(r->ctx, track);
	t->thread_name = comm;
	if (h->pid && h->npid == h->ntid && !memcmp(h->pid, h->tid, h->npid))
		tf_ctx_set_process_name(r->ctx, r->input, pid, comm);
	r->track = track;
	r->ts_ns = time_ns(h->time, h->ntime);
	r->period = h->has_period ? (double)h->period : 1;
	r->event = ev;
	r->unit = tf_strtab_intern_cstr(r->st, time_event(h->event, h->nevent) ? "nanoseconds" : "count");
	r->nfr = 0;
	r->open = true;
	if (tf_grow_n((void **)&r->rest, &r->caprest, h->nrest + 1, 1, false) < 0)
		return TF_ENOMEM;
	memcpy(r->rest, h->rest, h->nrest);
	r->nrest = h->nrest;
	return r->unit == (tf_str)-1 ? TF_ENOMEM : 0;
}

/* A stack line "ip sym+off (dso)" (s without its indent): its function's
 * name, as perf report names it ("sym (inlined)" for perf's inline
 * frames), to the sample's frames; 1 when s is no stack line. */
static int frame_line(prd *r, const char *s, size_t n)
{
	size_t i = 0;
	const char *ip;
	size_t nip = token(s, n, &i, &ip);
	bool hex = nip > 0;
	for (size_t q = 0; q < nip; q++)
		hex &= is_hex(ip[q]);
	if (!hex)
		return 1; /* no stack line */
	while (i < n && is_ws(s[i]))
		i++;
	const char *sym = s + i;
	size_t ns = n - i, nd = 0;
	while (ns && is_ws(sym[ns - 1]))
		ns--;
	const char *dso = NULL;
	if (ns && sym[ns - 1] == ')') /* the dso: the last " (...)" of the line */
		for (size_t k = ns - 1; k-- > 0;)
			if (sym[k] == ' ' && sym[k + 1] == '(') {
				dso = sym + k + 2;
				nd = ns - k - 3;
				ns = k;
				break;
			}
	while (ns && is_ws(sym[ns - 1]))
		ns--;
	size_t k = ns; /* "+0x1f": the offset in the function */
	while (k && is_hex(sym[k - 1]))
		k--;
	if (k < ns && k >= 3 && sym[k - 1] == 'x' && sym[k - 2] == '0' && sym[k - 3] == '+')
		ns = k - 3;
	bool inl = dso && nd == 7 && !memcmp(dso, "inlined", 7);
	if (!ns) {
		sym = "[unknown]";
		ns = 9;
	}
	size_t len = ns + (inl ? 10 : 0);
	if (tf_grow_n((void **)&r->tmp, &r->captmp, len + 1, 1, false) < 0 ||
	    tf_grow_n((void **)&r->fr, &r->capfr, r->nfr + 1, sizeof(*r->fr), false) < 0)
		return TF_ENOMEM;
	memcpy(r->tmp, sym, ns);
	if (inl)
		memcpy(r->tmp + ns, " (inlined)", 10);
	tf_str f = intern(r, r->tmp, len);
	if (f == (tf_str)-1)
		return TF_ENOMEM;
	r->fr[r->nfr++] = f;
	return 0;
}

static int do_line(prd *r, const char *s, size_t n, uint64_t off, uint64_t line)
{
	while (n && s[n - 1] == '\r')
		n--;
	size_t b = 0;
	while (b < n && is_ws(s[b]))
		b++;
	if (b == n) { /* an empty line ends the sample */
		return flush(r);
	}
	if (s[0] == '#' && !r->open)
		return 0;
	if (b == 0) {
		perf_head h;
		if (!parse_head(s, n, &h))
			return line_error(r, off, line, "not a perf script sample header", s, n);
		return head_line(r, &h);
	}
	if (!r->open)
		return line_error(r, off, line, "a stack line outside a sample", s, n);
	int rc = frame_line(r, s + b, n - b);
	return rc == 1 ? line_error(r, off, line, "not a stack line", s, n) : rc;
}

static int perf_read(const char *path, uint32_t input, tf_ctx *ctx, tf_sink *sink, tf_error *err)
{
	prd r = { .ctx = ctx, .sink = sink, .st = tf_ctx_strtab(ctx), .path = path, .err = err, .input = input };
	tf_lines l;
	TF_TRY(tf_lines_open(&l, path, "perf script text", PERF_LINE_MAX, err));
	const char *s;
	size_t n;
	uint64_t off;
	int rc;
	while ((rc = tf_lines_next(&l, &s, &n, &off, err)) > 0) {
		if (l.unterminated && tf_in_truncated(l.in)) { /* cut by the gzip stream's end: below */
			rc = 0;
			break;
		}
		if ((rc = do_line(&r, s, n, off, l.line)) < 0)
			break;
	}
	if (rc == 0 && tf_in_truncated(l.in))
		rc = tf_error_set(err, TF_EFORMAT, path, (int64_t)l.chunk_off, -1, "gzip data ends early (truncated file)");
	if (rc == 0)
		rc = flush(&r);
	if (rc == TF_ENOMEM && !err->code)
		rc = tf_error_set(err, TF_ENOMEM, path, -1, -1, "out of memory");
	if (rc == 0 && !r.nsamples)
		rc = tf_error_set(err, TF_EFORMAT, path, (int64_t)l.chunk_off, -1,
				  "no perf script samples (a sample is a header line and its stack lines)");
	tf_lines_close(&l);
	free(r.fr);
	free(r.tmp);
	free(r.rest);
	return rc;
}

/* Content: the first line that is not a comment or blank is a sample
 * header, and the line after it a stack line, an empty line or the end. */
static int perf_sniff(const char *path, int is_dir, const unsigned char *head, size_t n, bool whole)
{
	(void)path;
	if (is_dir)
		return TF_SNIFF_NO;
	const char *s = (const char *)head, *end = s + n;
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		if (!nl)
			return TF_SNIFF_NO; /* the first sample's header is cut off */
		size_t len = (size_t)(nl - s), b = 0;
		while (b < len && is_ws(s[b]))
			b++;
		if (b == len || s[0] == '#') {
			s = nl + 1;
			continue;
		}
		perf_head h;
		if (!parse_head(s, len, &h))
			return TF_SNIFF_NO;
		const char *next = nl + 1;
		if (next >= end)
			return whole ? TF_SNIFF_YES : TF_SNIFF_MAYBE;
		if (*next == '\n' || *next == '\r' || is_ws(*next))
			return TF_SNIFF_YES;
		const char *nl2 = memchr(next, '\n', (size_t)(end - next)); /* no -g: the next header */
		perf_head h2;
		return nl2 && parse_head(next, (size_t)(nl2 - next), &h2) && h.nrest ? TF_SNIFF_YES : TF_SNIFF_NO;
	}
	return TF_SNIFF_NO;
}

const tf_format tf_format_perf = {
	.name = "perf",
	.description = "Linux 'perf script' text (perf record -g or --call-graph dwarf; any event)",
	.sniff = perf_sniff,
	.read = perf_read,
	.kind = TF_INPUT_SAMPLES,
	.noun = "perf script text",
};
