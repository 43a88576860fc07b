/* waiting.c - threads that only wait (include/tracefold/waiting.h,
 * docs/stack-rules.md "Threads that only wait"): the per-track counters
 * that decide, the samples held back until the track's end, and the
 * aggregate without them for top, diff and the gate. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "tracefold/waiting.h"
#include "tracefold/err.h"
#include "hmap.h"
#include "sat.h"

typedef struct held {
	uint32_t node, ls;
	int64_t calls, wall;
} held;

/* A track's state: a candidate while every region closed on it was a
 * Python frame; decided (not waiting) at the first that is not. */
typedef struct wtrack {
	bool decided;
	uint32_t last_depth;   /* depth of the last region closed on it (0: none) */
	int64_t wall_ns;       /* its regions' self times: its wall time */
	int64_t leaf_ns;       /* the time of its regions without a child, each of 1 ms or more */
	held *h;
	uint32_t nh, caph;
	tf_hmap idx;           /* node << 32 | label set -> h index */
} wtrack;

struct tf_waiting {
	tf_ctx *ctx;
	tf_agg *agg;
	int t_calls, t_wall;
	tf_str python;         /* "python_function" */
	tf_str key;            /* "waiting" */
	wtrack *trk;
	uint32_t ntrk;
};

tf_waiting *tf_waiting_new(tf_ctx *ctx, tf_agg *agg, int t_calls, int t_wall)
{
	tf_waiting *w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	w->ctx = ctx;
	w->agg = agg;
	w->t_calls = t_calls;
	w->t_wall = t_wall;
	w->python = tf_strtab_intern_cstr(tf_ctx_strtab(ctx), TF_WAITING_CATEGORY);
	w->key = tf_strtab_intern_cstr(tf_ctx_strtab(ctx), TF_WAITING_LABEL);
	return w;
}

static void drop_held(wtrack *t)
{
	free(t->h);
	t->h = NULL;
	t->nh = t->caph = 0;
	tf_hmap_free(&t->idx);
}

void tf_waiting_free(tf_waiting *w)
{
	if (!w)
		return;
	for (uint32_t i = 0; i < w->ntrk; i++)
		drop_held(&w->trk[i]);
	free(w->trk);
	free(w);
}

static wtrack *track_get(tf_waiting *w, uint32_t track)
{
	if (track >= w->ntrk) {
		uint32_t n = w->ntrk;
		if (tf_grow((void **)&w->trk, &w->ntrk, track + 1, sizeof(wtrack)) < 0)
			return NULL;
		memset(w->trk + n, 0, (size_t)(w->ntrk - n) * sizeof(wtrack));
	}
	return &w->trk[track];
}

/* The held samples to the aggregate, under label set ls + waiting=1 when
 * waiting (a label set per distinct held one). */
static int flush(tf_waiting *w, wtrack *t, bool waiting)
{
	uint32_t from = UINT32_MAX, to = UINT32_MAX;
	int rc = 0;
	for (uint32_t i = 0; i < t->nh && rc == 0; i++) {
		uint32_t ls = t->h[i].ls;
		if (waiting && ls != from) {
			const tf_label *l;
			tf_label m[TF_AGG_MAX_LABELS];
			int n = tf_agg_labelset_get(w->agg, ls, &l);
			from = ls;
			to = ls; /* no room for the label (a track has 3 at most): left as it is */
			if (n < TF_AGG_MAX_LABELS) {
				memcpy(m, l, (size_t)n * sizeof(tf_label));
				m[n++] = (tf_label){ w->key, 0, 1, 0 };
				if ((to = tf_agg_labelset(w->agg, m, n)) == (uint32_t)-1)
					return TF_ENOMEM;
			}
		}
		uint32_t dst = waiting ? to : ls;
		rc = tf_agg_add(w->agg, t->h[i].node, dst, w->t_calls, t->h[i].calls);
		if (rc == 0)
			rc = tf_agg_add(w->agg, t->h[i].node, dst, w->t_wall, t->h[i].wall);
	}
	t->decided = true;
	drop_held(t);
	return rc;
}

static __attribute__((noinline)) int close_undecided(tf_waiting *w, const tf_span *s, uint32_t ls);

int tf_waiting_close(tf_waiting *w, const tf_span *s, uint32_t ls)
{
	if (s->track < w->ntrk && w->trk[s->track].decided) /* the usual case, kept small */
		return 0;
	return close_undecided(w, s, ls);
}

static int close_undecided(tf_waiting *w, const tf_span *s, uint32_t ls)
{
	wtrack *t = track_get(w, s->track);
	if (!t)
		return TF_ENOMEM;
	if (t->decided)
		return 0;
	const tf_track *tr = tf_ctx_track_get(w->ctx, s->track);
	if (!tr || tr->kind != TF_TRACK_CPU || s->cat != w->python || s->corr) {
		TF_TRY(flush(w, t, false));
		return 0;
	}
	/* closes come innermost first: a region has a child exactly when the
	 * region closed just before it on its track is one level deeper */
	if (t->last_depth != s->depth + 1 && s->self_ns >= TF_WAITING_LEAF_MIN_NS)
		t->leaf_ns = tf_sat_add(t->leaf_ns, s->self_ns);
	t->last_depth = s->depth;
	t->wall_ns = tf_sat_add(t->wall_ns, s->self_ns);
	uint64_t key = (uint64_t)s->node << 32 | ls;
	uint32_t i = tf_hmap_get(&t->idx, key);
	if (i == UINT32_MAX) {
		if (tf_grow((void **)&t->h, &t->caph, t->nh + 1, sizeof(held)) < 0 ||
		    tf_hmap_put(&t->idx, key, t->nh) < 0)
			return TF_ENOMEM;
		i = t->nh++;
		t->h[i] = (held){ s->node, ls, 0, 0 };
	}
	t->h[i].calls += 1;
	t->h[i].wall = tf_sat_add(t->h[i].wall, s->self_ns);
	return 1;
}

int tf_waiting_touch(tf_waiting *w, uint32_t track)
{
	wtrack *t = track_get(w, track);
	if (!t)
		return TF_ENOMEM;
	return t->decided ? 0 : flush(w, t, false);
}

int tf_waiting_end_track(tf_waiting *w, uint32_t track)
{
	if (track >= w->ntrk)
		return 0;
	wtrack *t = &w->trk[track];
	/* leaf >= 90% of wall, without overflow: both are at most INT64_MAX */
	bool waiting = !t->decided && t->nh && t->wall_ns > 0 &&
		       (double)t->leaf_ns * 100.0 >= (double)t->wall_ns * TF_WAITING_LEAF_PCT;
	int rc = flush(w, t, waiting);
	/* what comes on the track after its end (a streamed track read in
	 * parts) is decided anew */
	t->decided = false;
	t->last_depth = 0;
	t->wall_ns = t->leaf_ns = 0;
	return rc;
}

/* ---- aggregates with waiting samples */

int tf_waiting_labelset(const tf_agg *a, uint32_t labelset)
{
	const tf_label *l;
	tf_strtab *st = tf_agg_strtab(a);
	int n = tf_agg_labelset_get(a, labelset, &l);
	for (int i = 0; i < n; i++)
		if (!strcmp(tf_strtab_get(st, l[i].key), TF_WAITING_LABEL))
			return 1;
	return 0;
}

/* src's node n in dst, made with its parents where missing (map: src node
 * -> dst node + 1, 0 not yet). */
static uint32_t map_node(tf_agg *dst, const tf_agg *src, uint32_t *map, uint32_t n)
{
	if (n == TF_AGG_ROOT)
		return TF_AGG_ROOT;
	if (map[n])
		return map[n] - 1;
	const tf_agg_node *sn = tf_agg_node_get(src, n);
	uint32_t p = map_node(dst, src, map, sn->parent);
	uint32_t d = p == (uint32_t)-1 ? p : tf_agg_child(dst, p, sn->frame);
	if (d != (uint32_t)-1)
		map[n] = d + 1;
	return d;
}

typedef struct copy_arg {
	tf_agg *dst;
	uint32_t node, ls;
} copy_arg;

static int copy_value(void *arg, int type, int64_t v)
{
	copy_arg *c = arg;
	return tf_agg_add(c->dst, c->node, c->ls, type, v);
}

tf_agg *tf_agg_without_waiting(const tf_agg *src)
{
	tf_strtab *st = tf_agg_strtab(src);
	tf_agg *a = tf_agg_new(st);
	uint32_t nn = tf_agg_nnodes(src), nl = tf_agg_nlabelsets(src);
	uint32_t *nmap = calloc((size_t)nn + 1, sizeof(uint32_t));
	uint32_t *lmap = calloc((size_t)nl + 1, sizeof(uint32_t)); /* + 1, 0 not yet */
	int rc = a && nmap && lmap ? 0 : TF_ENOMEM;
	for (int t = 0; rc == 0 && t < tf_agg_ntypes(src); t++) {
		tf_sample_type ty = tf_agg_type_get(src, t);
		rc = tf_agg_type(a, tf_strtab_get(st, ty.type), tf_strtab_get(st, ty.unit));
		rc = rc < 0 ? rc : 0;
	}
	if (rc == 0)
		tf_agg_set_default_type(a, tf_agg_default_type(src));
	for (size_t i = 0; rc == 0 && i < tf_agg_nsamples(src); i++) {
		tf_agg_sample s = tf_agg_sample_get(src, i);
		if (tf_waiting_labelset(src, s.labelset))
			continue;
		if (!lmap[s.labelset]) {
			const tf_label *l;
			int n = tf_agg_labelset_get(src, s.labelset, &l);
			uint32_t d = tf_agg_labelset(a, l, n);
			if (d == (uint32_t)-1) {
				rc = TF_ENOMEM;
				break;
			}
			lmap[s.labelset] = d + 1;
		}
		copy_arg c = { a, map_node(a, src, nmap, s.node), lmap[s.labelset] - 1 };
		if (c.node == (uint32_t)-1)
			rc = TF_ENOMEM;
		else if (!tf_agg_values(a, c.node, c.ls)) /* the sample, even when all zero */
			rc = TF_ENOMEM;
		else
			rc = tf_agg_sample_each(src, i, copy_value, &c);
	}
	for (size_t k = 0; rc == 0 && k < tf_agg_ncomments(src); k++)
		rc = tf_agg_comment(a, tf_agg_comment_get(src, k));
	free(nmap);
	free(lmap);
	if (rc < 0) {
		tf_agg_free(a);
		return NULL;
	}
	*tf_agg_meta_get(a) = *tf_agg_meta_get((tf_agg *)src);
	return a;
}

/* Same thread: the labels other than waiting and step are equal. */
static bool same_thread(const tf_strtab *st, const tf_waiting_thread *x, const tf_label *l, int n)
{
	int j = 0;
	for (int i = 0; i < n; i++) {
		const char *k = tf_strtab_get(st, l[i].key);
		if (!strcmp(k, TF_WAITING_LABEL) || !strcmp(k, "step"))
			continue;
		if (j >= x->nlabels || x->labels[j].key != l[i].key || x->labels[j].str != l[i].str ||
		    x->labels[j].num != l[i].num)
			return false;
		j++;
	}
	return j == x->nlabels;
}

/* The most waiting first, then by the labels' text: < 0 when x goes first. */
static int thread_cmp(const tf_strtab *st, const tf_waiting_thread *x, const tf_waiting_thread *y)
{
	if (x->value != y->value)
		return x->value > y->value ? -1 : 1;
	for (int i = 0; i < x->nlabels && i < y->nlabels; i++) {
		const tf_label *p = &x->labels[i], *q = &y->labels[i];
		int c = p->str && q->str ? strcmp(tf_strtab_get(st, p->str), tf_strtab_get(st, q->str))
					 : (p->num > q->num) - (p->num < q->num);
		if (c)
			return c;
	}
	return x->nlabels - y->nlabels;
}

int tf_waiting_threads(const tf_agg *a, int t, tf_waiting_thread **out, int64_t *total_out)
{
	tf_strtab *st = tf_agg_strtab(a);
	tf_waiting_thread *v = NULL;
	uint32_t n = 0, cap = 0;
	*total_out = 0;
	for (size_t i = 0; i < tf_agg_nsamples(a); i++) {
		tf_agg_sample s = tf_agg_sample_get(a, i);
		if (!tf_waiting_labelset(a, s.labelset))
			continue;
		const tf_label *l;
		int nl = tf_agg_labelset_get(a, s.labelset, &l);
		uint32_t k = 0;
		while (k < n && !same_thread(st, &v[k], l, nl))
			k++;
		if (k == n) {
			if (tf_grow((void **)&v, &cap, n + 1, sizeof(*v)) < 0) {
				free(v);
				return TF_ENOMEM;
			}
			memset(&v[n], 0, sizeof(*v));
			for (int j = 0; j < nl; j++) {
				const char *key = tf_strtab_get(st, l[j].key);
				if (strcmp(key, TF_WAITING_LABEL) && strcmp(key, "step"))
					v[n].labels[v[n].nlabels++] = l[j];
			}
			n++;
		}
		int64_t x = t >= 0 ? tf_agg_sample_value(a, i, t) : 0;
		v[k].value = tf_sat_add(v[k].value, x);
		*total_out = tf_sat_add(*total_out, x);
	}
	for (uint32_t i = 1; i < n; i++) { /* a few threads: insertion sort */
		tf_waiting_thread x = v[i];
		uint32_t j = i;
		for (; j > 0 && thread_cmp(st, &x, &v[j - 1]) < 0; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
	*out = v;
	return (int)n;
}
