/* folded.c (src/read) - reads folded stacks (docs/folded.md) into a tf_agg, and
 * tells them from the other inputs (tf_folded_sniff).
 *
 *   root;frame;leaf VALUE\n
 *
 * A line is a stack, one space or tab, and a non-negative decimal integer
 * (the last space- or tab-separated token; flamegraph.pl's own pattern,
 * ^(.*)\s+?(\d+(?:\.\d*)?)$, also takes exactly one whitespace character
 * off the stack).  Frames are split on ';', root first.  A trailing '\r'
 * (CRLF files) is dropped; empty lines and lines of blanks are skipped.
 * Lines of the same stack add.  Everything else is an error naming the
 * line and its byte offset (decompressed): no value, a value that is not a
 * non-negative integer (decimals included: tracefold's values are integer
 * counts), a value beyond int64, an empty stack or frame (";;"), a NUL byte,
 * a line over 64 MiB.  A file with no value above 0 holds no samples: an
 * error.  Lines of value 0 are checked but add nothing.
 *
 * Streamed through tf_in (gzip detected by its magic bytes, never by the
 * name): a line is parsed in the chunk that holds it, and only a line that
 * spans two chunks is copied.  Memory grows with distinct call paths (the
 * agg's tree), and with the longest line, never with the file. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tracefold/folded.h"
#include "tracefold/io.h"
#include "tracefold/reader.h"
#include "grow.h"

#define LINE_MAX_BYTES ((size_t)64 << 20)

typedef struct frd {
	tf_agg *agg;
	tf_strtab *st;
	const char *path;
	tf_error *err;
	int type;
	uint32_t lset;
	uint64_t line;     /* 1-based number of the line being read */
	uint64_t nonzero;  /* lines with a value above 0 */
} frd;

static bool blank(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] != ' ' && s[i] != '\t')
			return false;
	return true;
}

/* Where the value of line s[0..n) starts: after the last space or tab; 0
 * when there is none. */
static size_t value_start(const char *s, size_t n)
{
	size_t i = n;
	while (i > 0 && s[i - 1] != ' ' && s[i - 1] != '\t')
		i--;
	return i;
}

static int line_error(frd *r, uint64_t off, const char *what, const char *s, size_t n)
{
	if (s)
		return tf_error_set(r->err, TF_EFORMAT, r->path, (int64_t)off, -1, "line %" PRIu64 ": %s '%.*s'",
				    r->line, what, (int)(n > 60 ? 60 : n), s);
	return tf_error_set(r->err, TF_EFORMAT, r->path, (int64_t)off, -1, "line %" PRIu64 ": %s", r->line, what);
}

/* One line, without its '\n'; off is the byte offset of its start. */
static int do_line(frd *r, const char *s, size_t n, uint64_t off)
{
	if (n && s[n - 1] == '\r')
		n--;
	if (blank(s, n))
		return 0;
	const char *nul = memchr(s, '\0', n);
	if (nul)
		return line_error(r, off + (uint64_t)(nul - s), "a NUL byte (folded stacks are text)", NULL, 0);
	size_t vs = value_start(s, n);
	if (vs == 0)
		return line_error(r, off, "no value: a line of folded stacks is 'frame;frame;... VALUE', not", s, n);
	if (vs == n)
		return line_error(r, off + n, "no value after the stack (the line ends in a blank)", NULL, 0);
	int64_t v = 0;
	for (size_t i = vs; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return line_error(r, off + vs, "the value is not a non-negative integer:", s + vs, n - vs);
		int d = s[i] - '0';
		if (v > (INT64_MAX - d) / 10)
			return line_error(r, off + vs, "the value is larger than 2^63-1:", s + vs, n - vs);
		v = v * 10 + d;
	}
	size_t sn = vs - 1; /* the stack: one separator taken off */
	if (sn == 0)
		return line_error(r, off, "no stack before the value", NULL, 0);
	/* the frames, checked first: a line of value 0 adds nothing */
	for (size_t a = 0; a <= sn;) {
		const char *e = memchr(s + a, ';', sn - a);
		size_t b = e ? (size_t)(e - s) : sn;
		if (b == a)
			return line_error(r, off + a, "an empty frame (';;', or ';' at the start or end of the stack)",
					  NULL, 0);
		a = b + 1;
	}
	if (v == 0)
		return 0;
	uint32_t node = TF_AGG_ROOT;
	for (size_t a = 0; a <= sn;) {
		const char *e = memchr(s + a, ';', sn - a);
		size_t b = e ? (size_t)(e - s) : sn;
		tf_str f = tf_strtab_intern(r->st, s + a, b - a);
		if (f == (tf_str)-1 || (node = tf_agg_child(r->agg, node, f)) == (uint32_t)-1)
			return tf_error_set(r->err, TF_ENOMEM, r->path, (int64_t)off, -1, "out of memory");
		a = b + 1;
	}
	if (tf_agg_add(r->agg, node, r->lset, r->type, v) < 0)
		return tf_error_set(r->err, TF_ENOMEM, r->path, (int64_t)off, -1, "out of memory");
	r->nonzero++;
	return 0;
}

/* The agg's one sample type type/unit, added when it has none. */
static int pick_type(tf_agg *agg, const char *type, const char *unit, const char *path, tf_error *err)
{
	int n = tf_agg_ntypes(agg);
	if (n == 0) {
		int t = tf_agg_type(agg, type, unit);
		if (t < 0)
			return tf_error_set(err, t, path, -1, -1, "cannot add the sample type %s/%s: %s", type, unit,
					    tf_strerror(t));
		tf_agg_set_default_type(agg, t);
		return t;
	}
	int t = tf_agg_type_find(agg, type);
	if (n != 1 || t < 0 || strcmp(tf_strtab_get(tf_agg_strtab(agg), tf_agg_type_get(agg, t).unit), unit) != 0) {
		char have[600];
		tf_agg_types_text(agg, have, sizeof(have));
		return tf_error_set(err, TF_ECLASH, path, -1, -1,
				    "sample types differ: these folded stacks have [%s/%s], the profile they are "
				    "added to has [%s]", type, unit, have);
	}
	return t;
}

int tf_folded_read(tf_agg *agg, const char *path, const char *type, const char *unit, tf_error *err)
{
	type = type ? type : "samples";
	unit = unit ? unit : "count";
	frd r = { .agg = agg, .st = tf_agg_strtab(agg), .path = path, .err = err, .line = 1 };
	TF_TRY(r.type = pick_type(agg, type, unit, path, err));
	r.lset = tf_agg_labelset(agg, NULL, 0);
	if (r.lset == (uint32_t)-1)
		return tf_error_set(err, TF_ENOMEM, path, -1, -1, "out of memory");
	tf_in *in;
	TF_TRY(tf_in_open(&in, path, err));
	char *carry = NULL; /* the start of a line that runs into the next chunk */
	size_t ncarry = 0, capcarry = 0;
	uint64_t total = 0, line_off = 0;
	int rc = 0;
	for (;;) {
		const unsigned char *data;
		ptrdiff_t n = tf_in_chunk(in, &data, err);
		if (n < 0) {
			rc = (int)n;
			break;
		}
		if (n == 0)
			break;
		const char *c = (const char *)data;
		size_t p = 0, len = (size_t)n;
		while (p < len && rc == 0) {
			const char *nl = memchr(c + p, '\n', len - p);
			size_t e = nl ? (size_t)(nl - c) : len;
			if (ncarry || !nl) {
				if (ncarry + (e - p) > LINE_MAX_BYTES) {
					rc = line_error(&r, line_off, "longer than 64 MiB (not folded stacks?)", NULL, 0);
					break;
				}
				if (tf_grow_n((void **)&carry, &capcarry, ncarry + (e - p), 1, false) < 0) {
					rc = tf_error_set(err, TF_ENOMEM, path, (int64_t)line_off, -1, "out of memory");
					break;
				}
				memcpy(carry + ncarry, c + p, e - p);
				ncarry += e - p;
			}
			if (nl) {
				rc = ncarry ? do_line(&r, carry, ncarry, line_off) : do_line(&r, c + p, e - p, line_off);
				ncarry = 0;
				r.line++;
				line_off = total + e + 1;
			}
			p = e + 1;
		}
		total += len;
		if (rc < 0)
			break;
	}
	if (rc == 0 && ncarry) /* the last line, without its '\n' */
		rc = do_line(&r, carry, ncarry, line_off);
	if (rc == 0 && tf_in_truncated(in))
		rc = tf_error_set(err, TF_EFORMAT, path, (int64_t)total, -1, "gzip data ends early (truncated file)");
	if (rc == 0 && !r.nonzero)
		rc = tf_error_set(err, TF_EFORMAT, path, -1, -1,
				  "no samples: no line of these folded stacks has a value above 0");
	free(carry);
	tf_in_close(in);
	return rc;
}

/* A line that could be folded stacks: a non-empty stack, one blank, digits. */
static bool folded_line(const char *s, size_t n)
{
	size_t vs = value_start(s, n);
	if (vs < 2 || vs == n)
		return false;
	for (size_t i = vs; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

/* JSON starts with '{', or '[' and then a value or the end of the line;
 * a frame may start with '[' and a name ("[unknown]", "[unattributed gpu]"). */
static bool json_start(const char *s, size_t n)
{
	size_t i = 0;
	while (i < n && (s[i] == ' ' || s[i] == '\t'))
		i++;
	if (i < n && s[i] == '{')
		return true;
	if (i >= n || s[i] != '[')
		return false;
	if (++i >= n)
		return true;
	return strchr(" \t{[\"]-0123456789", s[i]) != NULL;
}

/* A first line cut by the head (a stack deeper than 4 KiB of frames, as
 * 'tracefold fold' writes for deep recursion): what was seen must be frames,
 * a;b;c..., of text (no control bytes but tab), none of them empty, at
 * least 8 of them (a deep stack, not a paragraph of prose), and not JSON.
 * Its value is past the head, so this says only "maybe": a format sure of
 * the input wins. */
static bool cut_frames(const char *s, size_t n)
{
	if (json_start(s, n) || s[0] == ';')
		return false;
	unsigned semis = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if ((c < 0x20 && c != '\t') || c == 0x7f)
			return false;
		if (c == ';' && (i + 1 < n && s[i + 1] == ';'))
			return false;
		semis += c == ';';
	}
	return semis >= 8;
}

/* The sniff of folded stacks: head, n bytes of it (decompressed), whole
 * if they are the whole file.  TF_SNIFF_MAYBE for a first line cut by the
 * head (cut_frames). */
static int sniff_head(const char *head, size_t n, bool whole)
{
	if (!n || memchr(head, '\0', n))
		return TF_SNIFF_NO;
	size_t p = 0;
	unsigned lines = 0, good = 0;  /* whole non-empty lines, and those that fit */
	while (p < n) {
		const char *nl = memchr(head + p, '\n', n - p);
		size_t e = nl ? (size_t)(nl - head) : n;
		if (!nl && !whole && !lines) /* the first line cut by the 4 KiB */
			return cut_frames(head + p, e - p) ? TF_SNIFF_MAYBE : TF_SNIFF_NO;
		if (!nl && !whole) /* a later line cut: not judged */
			break;
		size_t len = e - p;
		if (len && head[p + len - 1] == '\r')
			len--;
		if (!blank(head + p, len)) {
			bool fits = folded_line(head + p, len);
			/* the first line decides, and text whose first line happens
			 * to end in a number ("# Notes, 2021") has few such lines */
			if (!lines && (!fits || json_start(head + p, len)))
				return TF_SNIFF_NO;
			lines++;
			good += fits;
		}
		p = e + 1;
	}
	return lines > 0 && 2 * good >= lines ? TF_SNIFF_YES : TF_SNIFF_NO;
}

bool tf_folded_sniff(const char *path)
{
	char head[TF_SNIFF_HEAD];
	tf_error err;
	tf_error_clear(&err);
	ptrdiff_t got = tf_file_head(path, head, sizeof(head), &err);
	return got > 0 && sniff_head(head, (size_t)got, (size_t)got < sizeof(head)) != TF_SNIFF_NO;
}

/* Whole means not cut by the head's size here (a cut gzip stream too: its
 * last line is judged like any other). */
static int sniff(const char *path, int is_dir, const unsigned char *head, size_t n, bool whole)
{
	return is_dir ? TF_SNIFF_NO : sniff_head((const char *)head, n, n < TF_SNIFF_HEAD);
}

static int read_profile(tf_agg *agg, const char *path, const tf_profile_opts *po, tf_error *err)
{
	return tf_folded_read(agg, path, po ? po->type : NULL, po ? po->unit : NULL, err);
}

const tf_format tf_format_folded = {
	.name = "folded",
	.description = "folded stacks (flamegraph.pl, inferno, speedscope, PyTorch export_stacks; .gz too)",
	.sniff = sniff,
	.kind = TF_INPUT_PROFILE,
	.noun = "profile (folded stacks)",
	.read_profile = read_profile,
};
