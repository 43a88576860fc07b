/* lines.c - an input's lines, streamed chunk by chunk (io.h tf_lines): the
 * line readers of text formats (perf script, austin) share it. */
#include <inttypes.h>
#include <string.h>
#include <stdlib.h>
#include "tracefold/io.h"
#include "grow.h"

int tf_lines_open(tf_lines *l, const char *path, const char *what, size_t max_bytes, tf_error *err)
{
	memset(l, 0, sizeof(*l));
	l->path = path;
	l->what = what;
	l->max_bytes = max_bytes;
	return tf_in_open(&l->in, path, err);
}

void tf_lines_close(tf_lines *l)
{
	tf_in_close(l->in);
	free(l->carry);
	memset(l, 0, sizeof(*l));
}

/* Appends len bytes to the carried start of a line. */
static int carry(tf_lines *l, const char *s, size_t len, tf_error *err)
{
	uint64_t off = l->chunk_off + l->at - l->ncarry;
	if (l->ncarry + len > l->max_bytes)
		return tf_error_set(err, TF_EFORMAT, l->path, (int64_t)off, -1,
				    "line %" PRIu64 ": longer than %zu MiB (not %s?)", l->line + 1, l->max_bytes >> 20,
				    l->what);
	if (tf_grow_n((void **)&l->carry, &l->capcarry, l->ncarry + len + 1, 1, false) < 0)
		return tf_error_set(err, TF_ENOMEM, l->path, (int64_t)off, -1, "out of memory");
	memcpy(l->carry + l->ncarry, s, len);
	l->ncarry += len;
	l->carry[l->ncarry] = 0; /* a line handed out from here ends in a NUL */
	return 0;
}

int tf_lines_next(tf_lines *l, const char **s, size_t *n, uint64_t *off, tf_error *err)
{
	for (;;) {
		if (l->at < l->len) {
			const char *c = l->chunk + l->at;
			const char *nl = memchr(c, '\n', l->len - l->at);
			if (!nl) { /* runs into the next chunk */
				int rc = carry(l, c, l->len - l->at, err);
				l->at = l->len;
				if (rc < 0)
					return rc;
				continue;
			}
			size_t e = (size_t)(nl - c);
			l->line++;
			if (l->ncarry) {
				int rc = carry(l, c, e, err);
				if (rc < 0)
					return rc;
				*off = l->chunk_off + l->at - (l->ncarry - e);
				*s = l->carry;
				*n = l->ncarry;
				l->ncarry = 0;
			} else {
				*off = l->chunk_off + l->at;
				*s = c;
				*n = e;
			}
			l->at += e + 1;
			return 1;
		}
		if (l->eof)
			break;
		const unsigned char *d;
		ptrdiff_t got = tf_in_chunk(l->in, &d, err);
		if (got < 0)
			return (int)got;
		l->chunk_off += l->len;
		l->chunk = (const char *)d;
		l->len = (size_t)got;
		l->at = 0;
		if (got == 0)
			l->eof = true;
	}
	if (!l->ncarry)
		return 0;
	l->line++; /* the last line, without its '\n' */
	l->unterminated = true;
	*off = l->chunk_off - l->ncarry;
	*s = l->carry;
	*n = l->ncarry;
	l->ncarry = 0;
	return 1;
}
