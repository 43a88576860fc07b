/* folded.c - the aggregate as folded stacks (Brendan Gregg's "collapsed
 * stacks", docs/folded.md): one line per call path,
 *
 *   root;frame;leaf VALUE\n
 *
 * VALUE is the call path's SELF value of one sample type (pprof's flat of
 * that exact stack), summed over every label set (ranks, threads), as a
 * decimal integer; flamegraph.pl, speedscope and inferno add the lines up
 * into inclusive widths themselves.  Lines of value 0 are left out, and the
 * lines are sorted bytewise by their path text, so the output does not
 * depend on the order the call paths were first seen in and diffs well.
 *
 * Frame names are rewritten where the format cannot hold them: ';' (the
 * frame separator) becomes ':', '\n' and '\r' (line ends) a space, and an
 * empty name (it would read as ";;") "[unnamed]", the stack builder's name
 * for unnamed regions.  Two call paths whose texts become equal are written
 * as one line with their values added.
 *
 * Everything is decided before the output is opened: nothing to write
 * (every value 0) or a negative value (the format holds none) is an error
 * and no file is created.  Memory: the text of each call path written (the
 * output's size) plus about 40 bytes per call path, never per sample. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tracefold/folded.h"
#include "tracefold/io.h"
#include "grow.h"
#include "sat.h"

#define UNNAMED "[unnamed]"

typedef struct fline {
	size_t off, len;  /* of its text in the arena */
	const char *s;    /* the text, once the arena stopped growing */
	int64_t v;
} fline;

static int cmp_line(const void *x, const void *y)
{
	const fline *a = x, *b = y;
	size_t n = a->len < b->len ? a->len : b->len;
	int c = memcmp(a->s, b->s, n);
	if (c)
		return c;
	return (a->len > b->len) - (a->len < b->len);
}

/* Appends the path text of node (root first, frames rewritten) to the arena. */
static int path_text(const tf_agg *agg, uint32_t node, uint32_t **chain, size_t *capchain, char **arena,
		     size_t *len, size_t *cap)
{
	const tf_strtab *st = tf_agg_strtab(agg);
	uint32_t depth = tf_agg_node_get(agg, node)->depth;
	if (tf_grow_n((void **)chain, capchain, depth + 1, sizeof(uint32_t), false) < 0)
		return TF_ENOMEM;
	size_t need = 0;
	uint32_t k = depth;
	for (uint32_t n = node; n != TF_AGG_ROOT && k > 0; n = tf_agg_node_get(agg, n)->parent) {
		(*chain)[--k] = n;
		size_t fl = tf_strtab_len(st, tf_agg_node_get(agg, n)->frame);
		need += (fl ? fl : sizeof(UNNAMED) - 1) + 1;
	}
	if (tf_grow_n((void **)arena, cap, *len + need + 1, 1, false) < 0)
		return TF_ENOMEM;
	char *o = *arena + *len;
	for (uint32_t i = k; i < depth; i++) {
		tf_str f = tf_agg_node_get(agg, (*chain)[i])->frame;
		const char *s = tf_strtab_get(st, f);
		size_t fl = tf_strtab_len(st, f);
		if (i > k)
			*o++ = ';';
		if (!fl) {
			memcpy(o, UNNAMED, sizeof(UNNAMED) - 1);
			o += sizeof(UNNAMED) - 1;
			continue;
		}
		for (size_t j = 0; j < fl; j++) {
			char c = s[j];
			*o++ = c == ';' ? ':' : (c == '\n' || c == '\r') ? ' ' : c;
		}
	}
	*len = (size_t)(o - *arena);
	return 0;
}

int tf_folded_write(const tf_agg *agg, int type, const char *path, tf_error *err)
{
	if (type < 0 || type >= tf_agg_ntypes(agg))
		return tf_error_set(err, TF_EUSAGE, NULL, -1, -1, "cannot write '%s': %s", path,
				    tf_agg_ntypes(agg) ? "no such sample type" : "the profile has no sample types");
	const tf_strtab *st = tf_agg_strtab(agg);
	const char *tname = tf_strtab_get(st, tf_agg_type_get(agg, type).type);
	uint32_t nn = tf_agg_nnodes(agg);
	int64_t *self = calloc((size_t)nn + 1, sizeof(int64_t));
	fline *lines = NULL;
	size_t nlines = 0, caplines = 0, alen = 0, acap = 0, capchain = 0;
	char *arena = NULL;
	uint32_t *chain = NULL;
	tf_out *o = NULL;
	int rc = 0;
	if (!self)
		goto oom;
	for (size_t i = 0; i < tf_agg_nsamples(agg); i++) {
		tf_agg_sample s = tf_agg_sample_get(agg, i);
		if (s.node != TF_AGG_ROOT) /* a value outside every call path: no stack to write */
			self[s.node] = tf_sat_add(self[s.node], tf_agg_sample_value(agg, i, type));
	}
	for (uint32_t n = 1; n < nn; n++) {
		if (!self[n])
			continue;
		if (tf_grow_n((void **)&lines, &caplines, nlines + 1, sizeof(fline), false) < 0)
			goto oom;
		size_t off = alen;
		if (path_text(agg, n, &chain, &capchain, &arena, &alen, &acap) < 0)
			goto oom;
		lines[nlines++] = (fline){ off, alen - off, NULL, self[n] };
	}
	for (size_t i = 0; i < nlines; i++)
		lines[i].s = arena + lines[i].off;
	if (nlines)
		qsort(lines, nlines, sizeof(fline), cmp_line);
	/* equal texts (names that differed only in what was rewritten) are one line */
	size_t nout = 0;
	for (size_t i = 0; i < nlines; i++) {
		if (nout && cmp_line(&lines[nout - 1], &lines[i]) == 0)
			lines[nout - 1].v = tf_sat_add(lines[nout - 1].v, lines[i].v);
		else
			lines[nout++] = lines[i];
	}
	size_t nonzero = 0;
	for (size_t i = 0; i < nout; i++) {
		if (lines[i].v < 0) {
			rc = tf_error_set(err, TF_EFORMAT, NULL, -1, -1,
					  "cannot write '%s': the call path '%.*s' has the negative value %" PRId64
					  " of type %s, and folded stacks hold non-negative integers",
					  path, (int)(lines[i].len > 300 ? 300 : lines[i].len), lines[i].s, lines[i].v, tname);
			goto out;
		}
		nonzero += lines[i].v > 0;
	}
	if (!nonzero) {
		rc = tf_error_set(err, TF_EFORMAT, NULL, -1, -1,
				  "nothing to write to '%s': no call path has a value of type %s", path, tname);
		goto out;
	}
	if ((rc = tf_out_open_named(&o, path, err)) < 0)
		goto out;
	int wr = 0;
	for (size_t i = 0; i < nout && wr == 0; i++) {
		if (!lines[i].v)
			continue;
		char num[32];
		int k = snprintf(num, sizeof(num), " %" PRId64 "\n", lines[i].v);
		wr = tf_out_write(o, lines[i].s, lines[i].len);
		if (wr == 0)
			wr = tf_out_write(o, num, (size_t)k);
	}
	rc = tf_out_finish(o, wr, err);
	goto out;
oom:
	rc = tf_error_set(err, TF_ENOMEM, NULL, -1, -1, "cannot write '%s': out of memory", path);
out:
	free(self);
	free(lines);
	free(arena);
	free(chain);
	return rc;
}
