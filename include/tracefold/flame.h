/* flame.h - flame graph pictures of an aggregate: a standalone SVG, or the
 * same SVG in one self-contained HTML page (zoom, search).
 *
 *   tf_agg (NEW) [+ tf_agg BASE] --tf_flame_write--> .svg | .html
 *
 * Frame widths are the inclusive values of one sample type; a frame's
 * children are ordered by name, so a function keeps its place and its color
 * (a hash of its name) from run to run.  Frames narrower than min_width
 * pixels are merged into one "[...]" box per parent.  With a BASE, widths
 * still come from NEW and colors say how each frame's self value changed
 * (docs/flame.md). */
#ifndef TRACEFOLD_FLAME_H
#define TRACEFOLD_FLAME_H

#include <stdbool.h>
#include <stdio.h>
#include "agg.h"
#include "err.h"

enum { TF_FLAME_COLOR_HASH = 0, TF_FLAME_COLOR_CATEGORY = 1 };

typedef struct tf_flame_opts {
	int type;               /* sample type index in agg (tf_agg_type_pick) */
	const char *by;         /* "rank", "thread" or another label key: one frame per
	                         * value under the root; NULL = none */
	double min_width;       /* pixels; 0 = TF_FLAME_MIN_WIDTH */
	int width;              /* picture width in pixels; 0 = TF_FLAME_WIDTH */
	const char *title;      /* NULL = "Flame graph: FILE" */
	bool icicle;            /* root at the top, growing down */
	bool html;              /* an HTML page with inline script around the SVG */
	int colors;             /* TF_FLAME_COLOR_* (not in a diff) */
	const tf_agg *base;     /* diff: BASE over the same string table, or NULL */
	const char *base_name;  /* what BASE is called in tooltips ("BASE") */
	bool normalize;         /* diff: BASE scaled to NEW's total first */
	/* diff: frames colored by a verdict (diff --gate) instead of by the
	 * change of their self value: a TF_VERDICT_* (gate.h) for the call
	 * path frames[0..n) (root first), or -1 for none; NULL: by the change */
	int (*verdict)(void *arg, const tf_str *frames, uint32_t n);
	void *verdict_arg;
} tf_flame_opts;

#define TF_FLAME_WIDTH 1200
#define TF_FLAME_MIN_WIDTH 0.5

/* Counts of what was drawn, for messages and docs/performance.md. */
typedef struct tf_flame_stats {
	uint64_t paths;         /* call paths with a value (the tree's nodes, root excluded) */
	uint64_t frames;        /* boxes drawn, "[...]" included */
	uint64_t merged;        /* call paths inside "[...]" boxes or too narrow to show */
	uint64_t negative;      /* samples with a negative value, left out */
	uint64_t vanished;      /* diff: call paths of BASE not in NEW */
} tf_flame_stats;

/* Writes the picture of agg to path ("-" = stdout) through a temporary file
 * renamed on success.  Nothing to draw (no positive value of the type) is
 * TF_EFORMAT and writes nothing.  stats may be NULL.  The output is
 * byte-identical for the same aggregate and options. */
int tf_flame_write(const tf_agg *agg, const tf_flame_opts *o, const char *path, tf_flame_stats *stats,
		   tf_error *err);

/* The same picture as tf_flame_write's SVG, written to f (the caller's
 * stream) for an HTML page that embeds it: the <svg> element alone, without
 * the XML declaration and the namespace attribute (the HTML parser gives
 * it); o->html is ignored.  Nothing to draw is TF_EFORMAT and writes
 * nothing; a failed write is TF_EIO (what was written stays in f). */
int tf_flame_write_file(const tf_agg *agg, const tf_flame_opts *o, FILE *f, tf_flame_stats *stats, tf_error *err);

/* Whether path names an HTML page (.html, .htm): the picture goes into one. */
bool tf_flame_is_html(const char *path);

#endif
