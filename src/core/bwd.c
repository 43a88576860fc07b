/* bwd.c - backward ops under their forward op's call path
 * (--backward-to-forward, docs/gpu.md "Backward under forward").
 *
 *   events --tf_bwd_note--> per track: fwdbwd flow starts and ends, the
 *                           first start of each backward key
 *   forward track nested  --tf_bwd_forward--> flow id -> forward op's node
 *   backward track nested --tf_bwd_parent---> a backward op's parent:
 *                           forward node + "[backward]"
 *
 * Kineto links a backward op to its forward op by a fwdbwd flow: "s" at the
 * forward op's start, "f" (bp "e") at the backward op's start, one id.  The
 * op the flow ends on runs inside the engine's
 * "autograd::engine::evaluate_function: NAME" wrapper, which shares its
 * backward key (event.h bwd_key: Fwd thread id, Sequence number) and
 * launches GPU work of its own (the gradient reductions, 9% of the GPU time
 * of tests/data/chrome/pytorch211-h200-gpt): the outermost region with
 * that key is what moves, with everything under it.
 *
 * stack.c nests the tracks where a flow ends after the input's other CPU
 * tracks (tf_bwd_track_ends), so the forward nodes are known by then.
 * What is kept grows with the linked ops of an input, not with its call
 * paths: per link 8 bytes of flow id and a map entry at each end, per
 * backward key a group; a track's state goes once it is nested, the flow
 * ids' nodes when the input ends. */
#include <stdlib.h>
#include <string.h>
#include "stack_int.h"
#include "grow.h"
#include "hmap.h"

/* One backward key of a track: where its outermost region starts, and the
 * flow that ends on one of its regions (ids index + 1; 0 none). */
typedef struct group {
	int64_t start_ns, dur_ns;
	uint32_t flow;
} group;

typedef struct btrack {
	tf_hmap fwd_at;        /* start of a forward op a flow starts on -> ids index */
	tf_hmap end_at;        /* start of a backward op a flow ends on -> ids index */
	tf_hmap op_at;         /* start of a region with a backward key -> group */
	tf_hmap group_of;      /* backward key -> group */
	tf_hmap graft_at;      /* tf_bwd_track_open: a group's start -> group */
	group *groups;
	uint32_t ngroups, capgroups;
	uint64_t *ids;         /* flow ids */
	uint32_t nids, capids;
} btrack;

struct tf_bwd {
	tf_ctx *ctx;
	tf_cpath *cp;
	tf_diag *diag;
	tf_str flow_cat;       /* "fwdbwd" */
	tf_str backward;       /* "[backward]" */
	btrack *tracks;
	uint32_t ntracks, captracks;
	tf_hmap fwd_node;      /* flow id -> the forward op's call path */
};

tf_bwd *tf_bwd_new(tf_ctx *ctx, tf_cpath *cp)
{
	tf_bwd *b = calloc(1, sizeof(*b));
	if (!b)
		return NULL;
	b->ctx = ctx;
	b->cp = cp;
	b->diag = tf_ctx_diag(ctx);
	if (tf_intern_once(ctx, &b->flow_cat, "fwdbwd") < 0 || tf_intern_once(ctx, &b->backward, "[backward]") < 0) {
		free(b);
		return NULL;
	}
	return b;
}

static void track_free(btrack *t)
{
	tf_hmap_free(&t->fwd_at);
	tf_hmap_free(&t->end_at);
	tf_hmap_free(&t->op_at);
	tf_hmap_free(&t->group_of);
	tf_hmap_free(&t->graft_at);
	free(t->groups);
	free(t->ids);
	memset(t, 0, sizeof(*t));
}

void tf_bwd_free(tf_bwd *b)
{
	if (!b)
		return;
	for (uint32_t i = 0; i < b->ntracks; i++)
		track_free(&b->tracks[i]);
	free(b->tracks);
	tf_hmap_free(&b->fwd_node);
	free(b);
}

static btrack *track_of(tf_bwd *b, uint32_t track)
{
	if (track >= b->ntracks) {
		if (tf_grow((void **)&b->tracks, &b->captracks, track + 1, sizeof(btrack)) < 0)
			return NULL;
		memset(b->tracks + b->ntracks, 0, (size_t)(track + 1 - b->ntracks) * sizeof(btrack));
		b->ntracks = track + 1;
	}
	return &b->tracks[track];
}

static int note_flow(tf_bwd *b, btrack *t, const tf_event *ev)
{
	if (tf_grow((void **)&t->ids, &t->capids, t->nids + 1, sizeof(uint64_t)) < 0)
		return TF_ENOMEM;
	t->ids[t->nids] = ev->id;
	/* two flows at one start: the later one in the file (never seen) */
	if (tf_hmap_set(ev->phase == 's' ? &t->fwd_at : &t->end_at, (uint64_t)ev->ts_ns, t->nids) < 0)
		return TF_ENOMEM;
	t->nids++;
	return 0;
}

static int note_op(btrack *t, const tf_event *ev)
{
	int64_t dur = ev->kind == TF_EV_COMPLETE ? ev->dur_ns : 0;
	uint32_t g = tf_hmap_get(&t->group_of, ev->bwd_key);
	if (g == UINT32_MAX) {
		if (tf_grow((void **)&t->groups, &t->capgroups, t->ngroups + 1, sizeof(group)) < 0 ||
		    tf_hmap_put(&t->group_of, ev->bwd_key, t->ngroups) < 0)
			return TF_ENOMEM;
		g = t->ngroups++;
		t->groups[g] = (group){ ev->ts_ns, dur, 0 };
	} else if (ev->ts_ns < t->groups[g].start_ns ||
		   (ev->ts_ns == t->groups[g].start_ns && dur > t->groups[g].dur_ns)) {
		t->groups[g].start_ns = ev->ts_ns; /* the outermost region of the key */
		t->groups[g].dur_ns = dur;
	}
	return tf_hmap_set(&t->op_at, (uint64_t)ev->ts_ns, g) < 0 ? TF_ENOMEM : 0;
}

int tf_bwd_note(tf_bwd *b, const tf_event *ev)
{
	bool flow = ev->kind == TF_EV_FLOW && ev->cat == b->flow_cat && (ev->phase == 's' || ev->phase == 'f');
	bool op = ev->bwd_key && (ev->kind == TF_EV_COMPLETE || ev->kind == TF_EV_BEGIN);
	if ((!flow && !op) || ev->track == TF_TRACK_NONE)
		return 0;
	btrack *t = track_of(b, ev->track);
	if (!t)
		return TF_ENOMEM;
	return flow ? note_flow(b, t, ev) : note_op(t, ev);
}

bool tf_bwd_track_ends(const tf_bwd *b, uint32_t track)
{
	return b && track < b->ntracks && (b->tracks[track].end_at.n || b->tracks[track].ngroups);
}

/* A flow end on a region without a backward key (a producer without
 * sequence numbers): that region is what moves. */
static int end_group(btrack *t, int64_t ts_ns, uint32_t flow)
{
	uint32_t g = tf_hmap_get(&t->op_at, (uint64_t)ts_ns);
	if (g == UINT32_MAX) {
		if (tf_grow((void **)&t->groups, &t->capgroups, t->ngroups + 1, sizeof(group)) < 0)
			return TF_ENOMEM;
		g = t->ngroups++;
		t->groups[g] = (group){ ts_ns, 0, 0 };
	}
	t->groups[g].flow = flow + 1;
	return 0;
}

int tf_bwd_track_open(tf_bwd *b, uint32_t track)
{
	if (!b || track >= b->ntracks)
		return 0;
	btrack *t = &b->tracks[track];
	for (uint32_t i = 0; i < t->end_at.cap; i++)
		if (t->end_at.vals[i])
			TF_TRY(end_group(t, (int64_t)t->end_at.keys[i], t->end_at.vals[i] - 1));
	for (uint32_t g = 0; g < t->ngroups; g++) /* the earlier group at one start */
		if (tf_hmap_get(&t->graft_at, (uint64_t)t->groups[g].start_ns) == UINT32_MAX &&
		    tf_hmap_put(&t->graft_at, (uint64_t)t->groups[g].start_ns, g) < 0)
			return TF_ENOMEM;
	tf_hmap_free(&t->end_at);
	tf_hmap_free(&t->op_at);
	tf_hmap_free(&t->group_of);
	return 0;
}

int tf_bwd_forward(tf_bwd *b, uint32_t track, int64_t start_ns, uint32_t node)
{
	if (track >= b->ntracks || !b->tracks[track].fwd_at.n)
		return 0;
	const btrack *t = &b->tracks[track];
	uint32_t i = tf_hmap_get(&t->fwd_at, (uint64_t)start_ns);
	/* regions starting at the flow's time: the innermost, pushed last, wins */
	if (i != UINT32_MAX && tf_hmap_set(&b->fwd_node, t->ids[i], node) < 0)
		return TF_ENOMEM;
	return 0;
}

int tf_bwd_parent(tf_bwd *b, uint32_t track, int64_t start_ns, int64_t dur_ns, uint32_t *parent)
{
	if (track >= b->ntracks || !b->tracks[track].graft_at.n)
		return 0;
	btrack *t = &b->tracks[track];
	uint32_t g = tf_hmap_get(&t->graft_at, (uint64_t)start_ns);
	if (g == UINT32_MAX)
		return 0;
	TF_TRY(tf_hmap_set(&t->graft_at, (uint64_t)start_ns, UINT32_MAX - 1) < 0 ? TF_ENOMEM : 0);
	if (g == UINT32_MAX - 1) /* taken by the region before, at the same start */
		return 0;
	uint32_t fwd = t->groups[g].flow ? tf_hmap_get(&b->fwd_node, t->ids[t->groups[g].flow - 1]) : UINT32_MAX;
	if (fwd == UINT32_MAX) {
		tf_diag_repair(b->diag, TF_DIAG_bwd_unlinked, dur_ns);
		return 1;
	}
	uint32_t node = tf_cpath_child(b->cp, fwd, b->backward);
	if (node == (uint32_t)-1)
		return TF_ENOMEM;
	tf_diag_repair(b->diag, TF_DIAG_bwd_linked, dur_ns);
	*parent = node;
	return 1;
}

void tf_bwd_track_done(tf_bwd *b, uint32_t track)
{
	if (b && track < b->ntracks) /* the forward nodes stay until the input ends */
		track_free(&b->tracks[track]);
}

void tf_bwd_forget(tf_bwd *b)
{
	if (!b)
		return;
	for (uint32_t i = 0; i < b->ntracks; i++)
		track_free(&b->tracks[i]);
	tf_hmap_free(&b->fwd_node);
}
