/* flame_tree.c - the flame graph's tree and layout (flame_int.h).
 *
 * The picture's tree is built from the aggregate's samples, not from its
 * call-path tree: --by puts a frame per rank or thread under the root, and
 * a diff adds BASE's samples into the same tree.  Memory: the tree (one
 * node per call path with a value) and the boxes drawn, which are at most
 * (width / min_width) per depth. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "flame_int.h"
#include "grow.h"
#include "sat.h"

static uint32_t child(tree *t, uint32_t parent, tf_str name)
{
	uint64_t key = (uint64_t)parent << 32 | name;
	uint32_t id = tf_hmap_get(&t->kids, key);
	if (id != NONE)
		return id;
	if (t->nn == NONE - 1 || tf_grow((void **)&t->n, &t->cap, t->nn + 1, sizeof(fnode)) < 0)
		return NONE;
	id = t->nn;
	if (tf_hmap_put(&t->kids, key, id) < 0)
		return NONE;
	t->nn++;
	t->n[id] = (fnode){ .parent = parent, .child = NONE, .next = NONE, .name = name,
			    .depth = t->n[parent].depth + 1 };
	return id;
}

/* A label's value as text (malloc'd), NULL when out of memory. */
static char *label_value(tf_strtab *st, const tf_label *l)
{
	char num[32];
	const char *v = num;
	if (l->str)
		v = tf_strtab_get(st, l->str);
	else
		snprintf(num, sizeof(num), "%lld", (long long)l->num);
	return strdup(v);
}

/* a b c joined (malloc'd; b and c may be NULL), NULL when out of memory. */
static char *join3(const char *a, const char *b, const char *c)
{
	size_t na = strlen(a), nb = b ? strlen(b) : 0, nc = c ? strlen(c) : 0;
	char *r = malloc(na + nb + nc + 1);
	if (r) {
		memcpy(r, a, na);
		memcpy(r + na, b ? b : "", nb);
		memcpy(r + na + nb, c ? c : "", nc);
		r[na + nb + nc] = '\0';
	}
	return r;
}

/* The frame under the root of labelset ls for --by KEY: "rank 3", "rank 3
 * thread 7" (a thread is named with its rank or process), "KEY=V"; "(no
 * KEY)".  (tf_str)-1 when out of memory. */
static tf_str group_name(tf_strtab *st, const tf_agg *a, uint32_t ls, const char *by)
{
	const tf_label *l;
	int n = tf_agg_labelset_get(a, ls, &l);
	const char *keys[3] = { "rank", "pid", "thread" };
	char *v[3] = { NULL, NULL, NULL }, *name = NULL, *tmp = NULL;
	bool generic = strcmp(by, "rank") && strcmp(by, "thread"), oom = false;
	for (int k = 0; k < n && !name && !oom; k++) {
		const char *key = tf_strtab_get(st, l[k].key);
		if (generic && !strcmp(key, by)) {
			char *val = label_value(st, &l[k]);
			name = val ? join3(by, "=", val) : NULL;
			oom = !name;
			free(val);
		}
		for (int j = 0; j < 3 && !generic; j++)
			if (!strcmp(key, keys[j]) && !v[j])
				oom |= !(v[j] = label_value(st, &l[k]));
	}
	if (!name && !oom) {
		/* tracefold's thread labels say "thread N": kept as they are */
		if (!strcmp(by, "rank") && v[0])
			name = join3("rank ", v[0], NULL);
		else if (!strcmp(by, "thread") && v[2] && (v[0] || v[1]))
			name = (tmp = join3(v[0] ? "rank " : "pid ", v[0] ? v[0] : v[1], " ")) ? join3(tmp, v[2], NULL) : NULL;
		else if (!strcmp(by, "thread") && v[2])
			name = strdup(v[2]);
		else
			name = join3("(no ", by, ")");
	}
	tf_str id = name ? tf_strtab_intern_cstr(st, name) : (tf_str)-1;
	free(name);
	free(tmp);
	for (int j = 0; j < 3; j++)
		free(v[j]);
	return id;
}

/* Adds the samples of a (type t) into the tree: into self/calls, or into
 * bself for BASE.  Returns 0 or TF_ENOMEM. */
int tf_flame_tree_add(tree *t, const tf_agg *a, int type, int calls_type, int gpu_type, const char *by, bool base,
		      tf_flame_stats *stats)
{
	uint32_t nls = tf_agg_nlabelsets(a);
	uint32_t *grp = NULL, *stack = NULL;
	uint32_t depth_cap = 0;
	tf_hmap memo = { 0 }; /* group << 32 | agg node -> tree node */
	int rc = TF_ENOMEM;
	if (!(grp = malloc(((size_t)nls + 1) * sizeof(uint32_t))))
		goto out;
	for (uint32_t l = 0; l < nls; l++) {
		grp[l] = 0;
		if (by) {
			tf_str g = group_name(t->st, a, l, by);
			if (g == (tf_str)-1 || (grp[l] = child(t, 0, g)) == NONE)
				goto out;
			t->n[grp[l]].flags |= F_GROUP;
		}
	}
	for (size_t i = 0, ns = tf_agg_nsamples(a); i < ns; i++) {
		tf_agg_sample s = tf_agg_sample_get(a, i);
		int64_t v = tf_agg_sample_value(a, i, type);
		if (v < 0 && stats)
			stats->negative++;
		if (v <= 0)
			continue;
		uint32_t g = grp[s.labelset];
		/* the tree node of (g, agg node): up to the first node known */
		uint32_t nd = s.node, d = 0, f = g;
		while (nd != TF_AGG_ROOT) {
			uint32_t m = tf_hmap_get(&memo, (uint64_t)g << 32 | nd);
			if (m != NONE) {
				f = m;
				break;
			}
			if (tf_grow((void **)&stack, &depth_cap, d + 1, sizeof(uint32_t)) < 0)
				goto out;
			stack[d++] = nd;
			nd = tf_agg_node_get(a, nd)->parent;
		}
		while (d > 0) {
			nd = stack[--d];
			if ((f = child(t, f, tf_agg_node_get(a, nd)->frame)) == NONE ||
			    tf_hmap_put(&memo, (uint64_t)g << 32 | nd, f) < 0)
				goto out;
		}
		fnode *n = &t->n[f];
		if (base) {
			n->bself = tf_sat_add(n->bself, v);
		} else {
			n->self = tf_sat_add(n->self, v);
			if (calls_type >= 0)
				n->calls = tf_sat_add(n->calls, tf_agg_sample_value(a, i, calls_type));
			if (gpu_type >= 0 && tf_agg_sample_value(a, i, gpu_type) > 0)
				n->flags |= F_GPU;
		}
	}
	rc = 0;
out:
	free(grp);
	free(stack);
	tf_hmap_free(&memo);
	return rc;
}

static const tf_strtab *g_st; /* qsort has no user pointer in C11 */
static const fnode *g_n;

/* Names in natural order: runs of digits compare as numbers, so that
 * ProfilerStep#9 comes before ProfilerStep#10 and rank 2 before rank 10;
 * bytewise where that ties ("07" and "7"). */
static int natcmp(const char *a, const char *b)
{
	const char *a0 = a, *b0 = b;
	while (*a && *b) {
		if (*a >= '0' && *a <= '9' && *b >= '0' && *b <= '9') {
			const char *x = a, *y = b;
			while (*x == '0')
				x++;
			while (*y == '0')
				y++;
			const char *xe = x, *ye = y;
			while (*xe >= '0' && *xe <= '9')
				xe++;
			while (*ye >= '0' && *ye <= '9')
				ye++;
			if (xe - x != ye - y)
				return xe - x < ye - y ? -1 : 1;
			int c = memcmp(x, y, (size_t)(xe - x));
			if (c)
				return c;
			a = xe, b = ye;
			continue;
		}
		if (*a != *b)
			return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
		a++, b++;
	}
	if (*a || *b)
		return *a ? 1 : -1;
	return strcmp(a0, b0);
}

static int by_parent_name(const void *x, const void *y)
{
	const fnode *a = &g_n[*(const uint32_t *)x], *b = &g_n[*(const uint32_t *)y];
	if (a->parent != b->parent)
		return a->parent < b->parent ? -1 : 1;
	return natcmp(tf_strtab_get(g_st, a->name), tf_strtab_get(g_st, b->name));
}

/* Totals (children after parents in id order) and children in name order. */
int tf_flame_tree_finish(tree *t)
{
	for (uint32_t i = t->nn; i-- > 1;) {
		fnode *n = &t->n[i], *p = &t->n[n->parent];
		n->total += (double)n->self;
		n->btotal += (double)n->bself;
		p->total += n->total;
		p->btotal += n->btotal;
	}
	t->n[0].total += (double)t->n[0].self;
	t->n[0].btotal += (double)t->n[0].bself;
	if (t->nn < 2)
		return 0;
	uint32_t *ord = malloc((size_t)(t->nn - 1) * sizeof(uint32_t));
	if (!ord)
		return TF_ENOMEM;
	for (uint32_t i = 1; i < t->nn; i++)
		ord[i - 1] = i;
	g_st = t->st;
	g_n = t->n;
	qsort(ord, t->nn - 1, sizeof(uint32_t), by_parent_name);
	for (uint32_t k = t->nn - 1; k-- > 0;) {
		fnode *n = &t->n[ord[k]], *p = &t->n[n->parent];
		n->next = p->child;
		p->child = ord[k];
	}
	free(ord);
	return 0;
}

/* ---- layout ---- */

static int add_box(layout *L, box b)
{
	if (tf_grow((void **)&L->b, &L->cap, L->nb + 1, sizeof(box)) < 0)
		return TF_ENOMEM;
	L->b[L->nb++] = b;
	if (b.depth > L->maxdepth)
		L->maxdepth = b.depth;
	return 0;
}

/* Counts the call paths under n (n included) that are not drawn. */
static uint64_t subtree_paths(const tree *t, uint32_t n, uint32_t **stk, uint32_t *cap)
{
	uint64_t c = 0;
	uint32_t sp = 0;
	if (tf_grow((void **)stk, cap, 1, sizeof(uint32_t)) < 0)
		return 0;
	(*stk)[sp++] = n;
	while (sp) {
		uint32_t k = (*stk)[--sp];
		if (t->n[k].total > 0)
			c++;
		for (uint32_t ch = t->n[k].child; ch != NONE; ch = t->n[ch].next) {
			if (tf_grow((void **)stk, cap, sp + 1, sizeof(uint32_t)) < 0)
				return c;
			(*stk)[sp++] = ch;
		}
	}
	return c;
}

/* Depth-first, children in name order: each drawn frame's box; narrow
 * children of a parent become one "[...]" box when together wide enough. */
int tf_flame_lay_out(const tree *t, double scale, double minw, layout *L)
{
	typedef struct item { uint32_t node, box; double x; } item;
	item *stk = NULL;
	uint32_t sp = 0, cap = 0, *tmp = NULL, tmpcap = 0;
	int rc = 0;
	if ((rc = add_box(L, (box){ .node = 0, .depth = 0, .x = PAD, .w = t->n[0].total * scale, .pbox = NONE })) < 0)
		return rc;
	if (tf_grow((void **)&stk, &cap, 1, sizeof(item)) < 0)
		return TF_ENOMEM;
	stk[sp++] = (item){ 0, 0, PAD };
	while (sp) {
		item it = stk[--sp];
		const fnode *p = &t->n[it.node];
		double cx = it.x, mw = 0, mv = 0;
		uint32_t nm = 0, first = sp;
		for (uint32_t c = p->child; c != NONE; c = t->n[c].next) {
			const fnode *n = &t->n[c];
			if (n->total <= 0)
				continue; /* only in BASE */
			double w = n->total * scale;
			if (w < minw) {
				mw += w;
				mv += n->total;
				nm++;
				L->merged += subtree_paths(t, c, &tmp, &tmpcap);
				continue;
			}
			if ((rc = add_box(L, (box){ .node = c, .depth = n->depth, .x = cx, .w = w, .pbox = it.box })) < 0 ||
			    tf_grow((void **)&stk, &cap, sp + 1, sizeof(item)) < 0) {
				rc = TF_ENOMEM;
				goto out;
			}
			stk[sp++] = (item){ c, L->nb - 1, cx };
			cx += w;
		}
		/* the children's boxes in name order on the stack: reverse them so
		 * that the first is laid out first (deterministic, left to right) */
		for (uint32_t a = first, b = sp; b > a + 1; a++, b--) {
			item x = stk[a];
			stk[a] = stk[b - 1];
			stk[b - 1] = x;
		}
		if (nm && mw >= minw) {
			if ((rc = add_box(L, (box){ .node = it.node, .depth = p->depth + 1, .more = true, .nmerged = nm,
						  .value = mv, .x = cx, .w = mw, .pbox = it.box })) < 0)
				goto out;
		}
	}
out:
	free(stk);
	free(tmp);
	return rc;
}
