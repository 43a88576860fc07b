/* flame.c - flame graph pictures (include/tracefold/flame.h, docs/flame.md).
 *
 *   samples of one type --tree by (parent, frame)--> inclusive totals
 *     --children by name--> layout (narrow frames merged) --> SVG [in HTML]
 *
 * This file: the entry points and the writer row; the tree and its layout
 * are flame_tree.c, the SVG flame_svg.c (flame_int.h). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tracefold/writer.h"
#include "flame_int.h"
#include "grow.h"

#define TOP 60.0 /* title and subtitle above the frames (a diff: one more line) */

void tf_flame_printf(out *w, const char *fmt, ...)
{
	char small[1024];
	va_list ap;
	if (w->rc)
		return;
	va_start(ap, fmt);
	int n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0) {
		w->rc = TF_EIO;
	} else if ((size_t)n < sizeof(small)) {
		put(w, small, (size_t)n);
	} else {
		char *big = malloc((size_t)n + 1);
		if (!big) {
			w->rc = TF_ENOMEM;
			return;
		}
		va_start(ap, fmt);
		vsnprintf(big, (size_t)n + 1, fmt, ap);
		va_end(ap);
		put(w, big, (size_t)n);
		free(big);
	}
}

/* The picture to path through tf_out (f NULL), or, bare, to f. */
static int draw(const tf_agg *agg, const tf_flame_opts *o, const char *path, FILE *f, tf_flame_stats *stats,
		tf_error *err)
{
	tf_flame_stats scratch;
	tf_flame_opts opts = *o;
	tf_strtab *st = tf_agg_strtab(agg);
	tree t = { .st = st };
	layout L = { 0 };
	out w = { 0 };
	int rc = 0;
	if (!stats)
		stats = &scratch;
	memset(stats, 0, sizeof(*stats));
	if (opts.min_width <= 0)
		opts.min_width = TF_FLAME_MIN_WIDTH;
	if (opts.width <= 0)
		opts.width = TF_FLAME_WIDTH;
	if (o->type < 0 || o->type >= tf_agg_ntypes(agg))
		return tf_error_set(err, TF_EUSAGE, NULL, -1, -1, "no such sample type (index %d)", o->type);
	tf_sample_type ty = tf_agg_type_get(agg, o->type);
	const char *tname = tf_strtab_get(st, ty.type), *unit = tf_strtab_get(st, ty.unit);
	int bt = -1;
	if (o->base) {
		bt = tf_agg_type_find(o->base, tname);
		if (bt < 0 || tf_agg_type_get(o->base, bt).unit != ty.unit)
			return tf_error_set(err, TF_ECLASH, NULL, -1, -1, "cannot compare: %s has no sample type %s/%s",
					    o->base_name ? o->base_name : "BASE", tname, unit);
	}
	if (tf_grow((void **)&t.n, &t.cap, 1, sizeof(fnode)) < 0) {
		rc = TF_ENOMEM;
		goto fail;
	}
	t.n[0] = (fnode){ .parent = NONE, .child = NONE, .next = NONE };
	t.nn = 1;
	int calls = tf_agg_type_find(agg, "calls");
	int gpu = opts.colors == TF_FLAME_COLOR_CATEGORY ? tf_agg_type_find(agg, "gpu") : -1;
	if ((rc = tf_flame_tree_add(&t, agg, o->type, calls, gpu, o->by, false, stats)) < 0 ||
	    (o->base && (rc = tf_flame_tree_add(&t, o->base, bt, -1, -1, o->by, true, NULL)) < 0) || (rc = tf_flame_tree_finish(&t)) < 0)
		goto fail;
	pic p = { .t = &t, .o = &opts, .st = st, .unit = unit, .bscale = 1, .diff = o->base != NULL,
		  .bare = f != NULL, .root = t.n[0].total };
	if (p.root <= 0) {
		if (f)
			rc = tf_error_set(err, TF_EFORMAT, NULL, -1, -1,
					  "no flame graph: nothing to draw: no call path has a positive %s value", tname);
		else
			rc = tf_error_set(err, TF_EFORMAT, NULL, -1, -1,
					  "cannot write '%s': nothing to draw: no call path has a positive %s value", path,
					  tname);
		goto out;
	}
	for (uint32_t i = 1; i < t.nn; i++) {
		stats->paths += t.n[i].total > 0;
		stats->vanished += t.n[i].total <= 0 && t.n[i].btotal > 0;
	}
	if (o->normalize && t.n[0].btotal > 0)
		p.bscale = t.n[0].total / t.n[0].btotal;
	double scale = (opts.width - 2 * PAD) / p.root;
	if ((rc = tf_flame_lay_out(&t, scale, opts.min_width, &L)) < 0)
		goto fail;
	stats->frames = L.nb;
	stats->merged = L.merged;
	for (uint32_t i = 0; i < L.nb && p.diff; i++)
		if (!L.b[i].more) {
			double d = fabs((double)t.n[L.b[i].node].self - (double)t.n[L.b[i].node].bself * p.bscale);
			p.maxd = d > p.maxd ? d : p.maxd;
		}
	bool leg = opts.colors == TF_FLAME_COLOR_CATEGORY && !p.diff;
	double top = TOP + (p.diff ? 18 : 0);
	double area = (double)(L.maxdepth + 1) * FH, H = top + area + 10 + (leg ? 18.0 * tf_flame_legend(NULL, 0, opts.width) + 4 : 0);
	if (f)
		w.f = f;
	else if ((rc = tf_out_open_named(&w.o, path, err)) < 0)
		goto out;
	tf_flame_header(&w, &p, agg, opts.width, H, &L, stats, tname);
	for (uint32_t i = 0; i < L.nb; i++) {
		const box *b = &L.b[i];
		double y = opts.icicle ? top + (double)b->depth * FH : top + (double)(L.maxdepth - b->depth) * FH;
		tf_flame_frame(&w, &p, b, y);
	}
	if (leg)
		tf_flame_legend(&w, top + area + 8, opts.width);
	puts_(&w, "</svg>\n");
	if (opts.html) {
		puts_(&w, "<script>\n");
		puts_(&w, tf_flame_html_script);
		puts_(&w, "</script>\n</body>\n</html>\n");
	}
	if (f) {
		rc = w.rc;
		if (rc < 0)
			tf_error_set(err, rc, NULL, -1, -1, "cannot write the flame graph");
		goto out;
	}
	rc = tf_out_finish(w.o, w.rc, err);
	w.o = NULL;
	goto out;
fail:
	if (rc == TF_ENOMEM)
		tf_error_set(err, TF_ENOMEM, NULL, -1, -1, "out of memory");
out:
	free(t.n);
	tf_hmap_free(&t.kids);
	free(L.b);
	return rc;
}

int tf_flame_write(const tf_agg *agg, const tf_flame_opts *o, const char *path, tf_flame_stats *stats,
		   tf_error *err)
{
	return draw(agg, o, path, NULL, stats, err);
}

int tf_flame_write_file(const tf_agg *agg, const tf_flame_opts *o, FILE *f, tf_flame_stats *stats, tf_error *err)
{
	tf_flame_opts bare = *o;
	bare.html = false;
	return draw(agg, &bare, NULL, f, stats, err);
}

bool tf_flame_is_html(const char *path)
{
	size_t n = strlen(path);
	return (n > 5 && !strcmp(path + n - 5, ".html")) || (n > 4 && !strcmp(path + n - 4, ".htm"));
}

/* The writer table's row: the default sample type, HTML for a .html name. */
static int write_agg(const tf_agg *agg, const char *path, tf_error *err)
{
	tf_flame_opts o = { .type = tf_agg_type_pick(agg, NULL), .html = tf_flame_is_html(path) };
	return tf_flame_write(agg, &o, path, NULL, err);
}

static const char *const suffixes[] = { ".svg", ".svg.gz", ".html", NULL };

const tf_writer tf_writer_flame = {
	.name = "flame",
	.description = "flame graph picture: standalone SVG, or HTML with zoom and search (docs/flame.md)",
	.suffixes = suffixes,
	.consumes = TF_WRITER_AGG,
	.write_agg = write_agg,
	.flags = TF_WRITER_STDOUT,
};
