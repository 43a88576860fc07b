/* austin.c - austin 1.x's sample lines (docs/format-austin.md):
 *
 *   Thread 55b99aacdf10;<module> (work.py);L42;run (work.py);L37 1172
 *   Thread 55b99aacdf10;<module> (work.py:42);run (work.py:37) 1172    (-a)
 *   Thread 55b99aacdf10;<module> (work.py);L42 1109 2048 0             (-f)
 *   Thread 55b99aacdf10 1121                          (no Python frame)
 *
 * One line per sample, frames root first.  A frame is named
 * `function (file)`: the line, an `L<n>` element after it or a `:<n>`
 * inside its parentheses, is left out, so that a function is one frame
 * whatever line it was on (as tests/tools/samples_expected.py names
 * them).  The metrics: the time in µs since the thread's previous sample
 * (type elapsed, in nanoseconds: it sorts before the memory types, so it
 * is the default one), with -f also the memory gained and lost
 * (types mem_plus and mem_minus, in austin's own unit, "count"; austin
 * writes the memory lost as a negative number, mem_minus holds its size,
 * as folded stacks and flame graphs hold no negative values).  Each
 * thread id is a track; a sample's time is the sum of its thread's time
 * metrics up to it.
 *
 * austin 3.x writes another format (`P<pid>;T<iid>:<tid>;file:fn:line;...`
 * with `# key: value` lines): it is recognised and refused by name.
 *
 * A last line without its end of line (a cut file: austin ends every line)
 * that is not a whole sample, or any such line of a cut gzip stream, is
 * ignored and counted (truncated_record, with a note).
 *
 * Streamed through tf_in (gzip too): memory grows with the longest line and
 * the distinct stacks, never with the file. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tracefold/io.h"
#include "tracefold/reader.h"
#include "grow.h"
#include "hmap.h"

#define LINE_MAX_BYTES ((size_t)64 << 20)
#define MAX_METRICS 3

typedef struct athread {
	uint32_t track;
	int64_t ts;
} athread;

typedef struct ard {
	const char *path;
	uint32_t input;
	tf_ctx *ctx;
	tf_sink *sink;
	tf_strtab *st;
	tf_error *err;
	uint64_t line, index, samples;
	int width;                /* metrics per line, 0 before the first */
	tf_str proc, type[MAX_METRICS], unit[MAX_METRICS];
	tf_hmap tmap;             /* thread id (tf_str) -> threads[] */
	athread *threads;
	size_t nthreads, capthreads;
	char *tmp;
	size_t tmp_cap;
} ard;

static int line_error(ard *r, uint64_t off, const char *what, const char *s, size_t n)
{
	if (s)
		return tf_error_set(r->err, TF_EFORMAT, r->path, (int64_t)off, (int64_t)r->index,
				    "line %" PRIu64 ": %s: '%.*s'", r->line, what, (int)(n > 60 ? 60 : n), s);
	return tf_error_set(r->err, TF_EFORMAT, r->path, (int64_t)off, (int64_t)r->index, "line %" PRIu64 ": %s",
			    r->line, what);
}

/* s[0..n) as a decimal integer of at most 18 digits (no NUL after it:
 * a line may be a piece of a chunk or of the carry buffer). */
static bool parse_int(const char *s, size_t n, int64_t *v)
{
	size_t i = n && s[0] == '-';
	int64_t x = 0;
	if (i >= n || n - i > 18)
		return false;
	for (size_t j = i; j < n; j++) {
		if (s[j] < '0' || s[j] > '9')
			return false;
		x = x * 10 + (s[j] - '0');
	}
	*v = i ? -x : x;
	return true;
}

/* The metrics at the end of s[0..n): up to MAX_METRICS space-separated
 * integers, the last first into m[]; returns where they start (the space
 * before them) and their count in *k. */
static size_t take_metrics(const char *s, size_t n, size_t stop, int64_t *m, int *k)
{
	*k = 0;
	while (n > stop && *k < MAX_METRICS + 1) {
		size_t b = n;
		while (b > stop && s[b - 1] != ' ')
			b--;
		int64_t v;
		if (b == stop || !parse_int(s + b, n - b, &v))
			break;
		if (*k < MAX_METRICS)
			m[*k] = v;
		(*k)++;
		n = b - 1;
	}
	return n;
}

/* Frame f[0..n) as `function (file)`; its stack node under parent. */
static int frame(ard *r, const char *f, size_t n, uint64_t off, uint32_t *stack)
{
	size_t i = n;
	if (!n || f[n - 1] != ')')
		return line_error(r, off, "a frame that is not 'function (file)'", f, n);
	while (i >= 2 && !(f[i - 2] == ' ' && f[i - 1] == '('))
		i--;
	if (i < 2)
		return line_error(r, off, "a frame that is not 'function (file)'", f, n);
	size_t e = n - 1, d = e; /* the file is f[i..e), a ":<line>" at its end left out */
	while (d > i && f[d - 1] >= '0' && f[d - 1] <= '9')
		d--;
	if (d < e && d > i && f[d - 1] == ':')
		e = d - 1;
	tf_str s;
	if (e == n - 1) {
		s = tf_strtab_intern(r->st, f, n);
	} else {
		if (tf_grow_n((void **)&r->tmp, &r->tmp_cap, e - 0 + 1, 1, false) < 0)
			return TF_ENOMEM;
		memcpy(r->tmp, f, e);
		r->tmp[e] = ')';
		s = tf_strtab_intern(r->st, r->tmp, e + 1);
	}
	if (s == (tf_str)-1 || (*stack = tf_ctx_stack_child(r->ctx, *stack, s)) == (uint32_t)-1)
		return TF_ENOMEM;
	return 0;
}

static bool line_element(const char *f, size_t n)
{
	if (n < 2 || f[0] != 'L')
		return false;
	for (size_t i = 1; i < n; i++)
		if (f[i] < '0' || f[i] > '9')
			return false;
	return true;
}

/* The frames s[0..n) (';'-separated, root first) as a stack. */
static int frames(ard *r, const char *s, size_t n, uint64_t off, uint32_t *stack)
{
	size_t p = 0;
	bool any = false;
	*stack = TF_CPATH_ROOT;
	while (p <= n) {
		const char *sc = memchr(s + p, ';', n - p);
		size_t e = sc ? (size_t)(sc - s) : n;
		if (line_element(s + p, e - p)) {
			if (!any)
				return line_error(r, off, "a line number before any frame", s + p, e - p);
		} else {
			TF_TRY(frame(r, s + p, e - p, off, stack));
			any = true;
		}
		p = e + 1;
	}
	return 0;
}

static int thread_of(ard *r, const char *id, size_t n, athread **out)
{
	tf_str k = tf_strtab_intern(r->st, id, n);
	if (k == (tf_str)-1)
		return TF_ENOMEM;
	uint32_t i = tf_hmap_get(&r->tmap, k);
	if (i == UINT32_MAX) {
		uint32_t t = tf_ctx_track(r->ctx, r->input, r->proc, k);
		if (t == UINT32_MAX || tf_grow_n((void **)&r->threads, &r->capthreads, r->nthreads + 1,
						 sizeof(*r->threads), false) < 0)
			return TF_ENOMEM;
		tf_track *tr = tf_ctx_track_get(r->ctx, t);
		tr->thread_name = k;
		tr->needs_sort = false;
		i = (uint32_t)r->nthreads++;
		r->threads[i] = (athread){ t, 0 };
		if (tf_hmap_put(&r->tmap, k, i) < 0)
			return TF_ENOMEM;
	}
	*out = &r->threads[i];
	return 0;
}

static int set_width(ard *r, int k, uint64_t off, const char *s, size_t n)
{
	static const char *const names[MAX_METRICS] = { "elapsed", "mem_plus", "mem_minus" };
	static const char *const units[MAX_METRICS] = { "nanoseconds", "count", "count" };
	if (r->width)
		return k == r->width ? 0 : line_error(r, off, "another number of metrics than the lines before", s, n);
	if (k != 1 && k != 3)
		return line_error(r, off, "neither 1 metric (time) nor 3 (time +mem -mem, austin -f)", s, n);
	r->width = k;
	for (int i = 0; i < k; i++)
		if ((r->type[i] = tf_strtab_intern_cstr(r->st, names[i])) == (tf_str)-1 ||
		    (r->unit[i] = tf_strtab_intern_cstr(r->st, units[i])) == (tf_str)-1)
			return TF_ENOMEM;
	return 0;
}

/* One line, without its '\n'; off: the byte offset of its start. */
static int do_line(ard *r, const char *s, size_t n, uint64_t off)
{
	if (n && s[n - 1] == '\r')
		n--;
	if (n == 0 || s[0] == '#')
		return 0;
	if (s[0] == 'P' && n > 1 && s[1] >= '0' && s[1] <= '9')
		return line_error(r, off, "austin 3.x output (P<pid>;T<iid>:<tid>;...): tracefold reads austin 1.x "
				  "lines ('Thread <id>;frames metrics', e.g. Debian 12's austin 1.0.1)", NULL, 0);
	if (n < 8 || memcmp(s, "Thread ", 7) != 0)
		return line_error(r, off, "not an austin 1.x line ('Thread <id>;frames metrics')", s, n);
	const char *sc = memchr(s, ';', n);
	size_t idend = sc ? (size_t)(sc - s) : 7;
	if (!sc)
		while (idend < n && s[idend] != ' ')
			idend++;
	if (idend == 7 || memchr(s + 7, ' ', idend - 7))
		return line_error(r, off, "no thread id after 'Thread '", s, n);
	int64_t m[MAX_METRICS];
	int k;
	size_t fend = take_metrics(s, n, sc ? idend + 1 : idend, m, &k);
	if (k == 0 || (!sc && fend != idend) || (sc && fend <= idend + 1))
		return line_error(r, off, "no metrics at the end of the line", s, n);
	TF_TRY(set_width(r, k, off, s, n));
	uint32_t stack = TF_CPATH_ROOT;
	if (sc)
		TF_TRY(frames(r, s + idend + 1, fend - idend - 1, off, &stack));
	athread *t;
	TF_TRY(thread_of(r, s + 7, idend - 7, &t));
	/* m[] holds the metrics last first */
	int64_t us = m[k - 1], ns;
	if (us < 0 || __builtin_mul_overflow(us, 1000, &ns) || __builtin_add_overflow(t->ts, ns, &ns))
		return line_error(r, off, "a time metric that is negative or beyond int64 nanoseconds", s, n);
	int64_t ts = t->ts;
	t->ts = ns;
	for (int i = 0; i < k; i++) {
		tf_event ev = { .kind = TF_EV_SAMPLE, .track = t->track, .ts_ns = ts, .id = stack,
				.dur_ns = i == 0, /* the sample counted once, with its time */
				.name = r->type[i], .cat = r->unit[i], .index = r->index,
				.value = (double)(i == 0 ? us * 1000 : i == 1 ? m[1] : -m[0]), .msg = { .peer = -1, .comm = -1 } };
		TF_TRY(tf_emit(r->ctx, r->sink, &ev));
	}
	r->index++;
	r->samples++;
	return 0;
}

static int read_lines(ard *r, tf_lines *l)
{
	const char *s;
	size_t n;
	uint64_t off = 0;
	int rc;
	while ((rc = tf_lines_next(l, &s, &n, &off, r->err)) > 0) {
		r->line = l->line;
		if (l->unterminated) /* the last line, without its '\n': austin ends every line */
			break;
		if ((rc = do_line(r, s, n, off)) < 0)
			return rc;
	}
	if (rc < 0)
		return rc;
	bool cut = tf_in_truncated(l->in);
	if (rc > 0) {
		if (!cut && (rc = do_line(r, s, n, off)) == TF_EFORMAT) {
			tf_error_clear(r->err);
			rc = 0;
			cut = true;
		}
		if (cut) {
			tf_count_skip(r->ctx, TF_DIAG_truncated_record);
			tf_ctx_note(r->ctx, "%s: line %" PRIu64 " at byte %" PRIu64 " is cut (no end of line%s): ignored",
				    r->path, r->line, off, tf_in_truncated(l->in) ? ", gzip data ends early" : "");
		}
		return rc;
	}
	if (cut)
		tf_ctx_note(r->ctx, "%s: gzip data ends early, after line %" PRIu64, r->path, l->line);
	return 0;
}

static int read_input(const char *path, uint32_t input, tf_ctx *ctx, tf_sink *sink, tf_error *err)
{
	ard r = { .path = path, .input = input, .ctx = ctx, .sink = sink, .st = tf_ctx_strtab(ctx), .err = err,
		  .line = 1 };
	tf_lines l;
	if ((r.proc = tf_strtab_intern_cstr(r.st, "austin")) == (tf_str)-1)
		return tf_error_set(err, TF_ENOMEM, path, -1, -1, "out of memory");
	tf_ctx_set_process_name(ctx, input, r.proc, r.proc);
	TF_TRY(tf_lines_open(&l, path, "austin output", LINE_MAX_BYTES, err));
	int rc = read_lines(&r, &l);
	if (rc == 0 && !r.samples)
		rc = tf_error_set(err, TF_EFORMAT, path, 0, -1, "no samples (no 'Thread <id>...' line)");
	if (rc == TF_ENOMEM && err && !err->code)
		tf_error_set(err, rc, path, -1, (int64_t)r.index, "out of memory");
	tf_lines_close(&l);
	tf_hmap_free(&r.tmap);
	free(r.threads);
	free(r.tmp);
	return rc;
}

/* The first line that is not empty nor a '#' comment: `Thread <hex>` then
 * ';' or ' ', ending in an integer (austin 1.x); or `P<digits>;T` (austin
 * 3.x, refused when read, with the versions read named). */
static int sniff(const char *path, int is_dir, const unsigned char *head, size_t n, bool whole)
{
	(void)path;
	size_t i = 0;
	if (is_dir)
		return TF_SNIFF_NO;
	for (;;) {
		while (i < n && (head[i] == '\n' || head[i] == '\r'))
			i++;
		if (i < n && head[i] == '#') {
			while (i < n && head[i] != '\n')
				i++;
			continue;
		}
		break;
	}
	const char *s = (const char *)head + i;
	const char *nl = memchr(s, '\n', n - i);
	size_t len = nl ? (size_t)(nl - s) : n - i;
	if (!nl && !whole)
		return TF_SNIFF_NO; /* a first line longer than the head: not austin's */
	if (len && s[len - 1] == '\r')
		len--;
	if (len > 2 && s[0] == 'P' && s[1] >= '0' && s[1] <= '9') {
		size_t j = 1;
		while (j < len && s[j] >= '0' && s[j] <= '9')
			j++;
		return j + 1 < len && s[j] == ';' && s[j + 1] == 'T' ? TF_SNIFF_YES : TF_SNIFF_NO;
	}
	if (len < 10 || memcmp(s, "Thread ", 7) != 0)
		return TF_SNIFF_NO;
	size_t j = 7;
	while (j < len && ((s[j] >= '0' && s[j] <= '9') || (s[j] >= 'a' && s[j] <= 'f') || (s[j] >= 'A' && s[j] <= 'F')))
		j++;
	if (j == 7 || j >= len || (s[j] != ';' && s[j] != ' '))
		return TF_SNIFF_NO;
	return s[len - 1] >= '0' && s[len - 1] <= '9' ? TF_SNIFF_YES : TF_SNIFF_NO;
}

const tf_format tf_format_austin = {
	.name = "austin",
	.description = "austin 1.x Python sampler output (one 'Thread <id>;frames metrics' line per sample)",
	.sniff = sniff,
	.read = read_input,
	.kind = TF_INPUT_SAMPLES,
	.noun = "austin file",
};
