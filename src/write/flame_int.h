/* flame_int.h - private to the flame graph writer (docs/flame.md): what
 * its files share.
 *
 *   flame.c        the entry points (tf_flame_write, tf_flame_write_file)
 *                  and the writer row
 *   flame_tree.c   the picture's tree from the aggregate's samples (--by
 *                  groups, a diff's BASE), its totals and name order, and
 *                  the layout: the boxes drawn, narrow frames merged
 *   flame_svg.c    the SVG (and HTML page): header, frames with their
 *                  tooltips, labels and colours, the legend */
#ifndef TRACEFOLD_WRITE_FLAME_INT_H
#define TRACEFOLD_WRITE_FLAME_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "tracefold/flame.h"
#include "tracefold/io.h"
#include "hmap.h"

#define NONE UINT32_MAX
#define PAD 10.0          /* left and right margin, px */
#define FH 16             /* frame height (15 px box + 1 px gap) */
#define CHAR_W 7.2        /* 12 px monospace: 0.6 em per character */
#define VANISHED_SHOWN 5  /* vanished children named in a tooltip */

enum { F_GPU = 1, F_GROUP = 2 };

typedef struct fnode {
	uint32_t parent, child, next; /* children linked in name order */
	tf_str name;
	uint32_t depth;
	uint32_t flags;
	int64_t self, calls;           /* NEW */
	int64_t bself;                 /* BASE (diff) */
	/* inclusive values: doubles, which never saturate (a sum of int64
	 * values can pass INT64_MAX; widths and shares stay right) */
	double total, btotal;
} fnode;

typedef struct tree {
	fnode *n;
	uint32_t nn, cap;
	tf_hmap kids;                  /* parent << 32 | name -> node */
	tf_strtab *st;
} tree;

/* A box to draw: a node, or the "[...]" of a parent's narrow children. */
typedef struct box {
	uint32_t node;                 /* the node, or its parent for "[...]" */
	uint32_t depth;
	bool more;                     /* "[...]" */
	uint32_t nmerged;              /* "[...]": children merged */
	double value;                  /* "[...]": their total */
	uint32_t pbox;                 /* the parent's box (an earlier one), NONE for the root */
	double x, w;
} box;

typedef struct layout {
	box *b;
	uint32_t nb, cap;
	uint32_t maxdepth;
	uint64_t merged;
} layout;

/* flame_tree.c */
/* Adds the samples of a (type t) into the tree: into self/calls, or into
 * bself for BASE.  Returns 0 or TF_ENOMEM. */
int tf_flame_tree_add(tree *t, const tf_agg *a, int type, int calls_type, int gpu_type, const char *by, bool base,
		      tf_flame_stats *stats);
/* Totals (children after parents in id order) and children in name order. */
int tf_flame_tree_finish(tree *t);
/* Depth-first, children in name order: each drawn frame's box; narrow
 * children of a parent become one "[...]" box when together wide enough. */
int tf_flame_lay_out(const tree *t, double scale, double minw, layout *L);

/* Output to the picture's file (tf_flame_write), or to a stream the caller
 * owns (f: tf_flame_write_file); the first failure sticks in rc. */
typedef struct out {
	tf_out *o;
	FILE *f;
	int rc;
} out;

static inline void put(out *w, const char *s, size_t n)
{
	if (w->rc || !n)
		return;
	if (w->f)
		w->rc = fwrite(s, 1, n, w->f) == n ? 0 : TF_EIO;
	else
		w->rc = tf_out_write(w->o, s, n);
}
static inline void puts_(out *w, const char *s) { put(w, s, strlen(s)); }
/* A formatted write; the first failure sticks in w->rc (flame.c). */
void tf_flame_printf(out *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#define printf_(w, ...) tf_flame_printf((w), __VA_ARGS__)

typedef struct pic {
	const tree *t;
	const tf_flame_opts *o;
	tf_strtab *st;
	const char *unit;
	double bscale;        /* BASE values times this (--normalize) */
	double maxd;          /* largest |self delta| drawn */
	bool diff;
	bool bare;            /* the SVG element alone, for an HTML page (tf_flame_write_file) */
	double root;
} pic;

/* flame_svg.c */
/* The page's script (flame_svg.c says what it does). */
extern const char tf_flame_html_script[];
/* The picture's frame at y. */
void tf_flame_frame(out *w, const pic *p, const box *b, double y);
/* The document's start: the page (HTML), the SVG's style, background, title and subtitles. */
void tf_flame_header(out *w, const pic *p, const tf_agg *agg, int W, double H, const layout *L,
		     const tf_flame_stats *stats, const char *tname);
/* The category legend, wrapped to the picture's width: draws it at y when
 * w is not NULL; returns its rows. */
int tf_flame_legend(out *w, double y, int W);

#endif
