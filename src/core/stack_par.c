/* stack_par.c - the end of an input on two threads (issue 33, target 2;
 * docs/architecture.md "The end of an input on two threads").
 *
 * When the run has a thread to spare for this input (-j N, N >= 2, and one
 * input read on one thread: tf_read_opts.reader_threads) and the one
 * consumer is the aggregate's (profile, top, flame, fold, diff), the
 * input's CPU tracks (pass 0 of on_end_input) are split in two sets of
 * about equal size, by what the sorter holds of each, the largest first:
 *
 *   caller's thread: its set, as on one thread ----------------------+
 *   second thread:   its set, with a twin of everything it writes:    |
 *                    ctx (strings, tracks; diagnostics, notes),      |
 *                    stack builder (call-path cache), aggregate and   |
 *                    its consumer, sorter (tf_sorter_twin)           |
 *   joined: the twin aggregate packed by text and added (agg_pack.h, |
 *   as -j adds its threads' aggregates), diagnostics, notes, failure, |
 *   time span and the sorter's memory count added  <------------------+
 *
 * then passes 1 and 2 (backward ops, GPU streams) on the caller's thread
 * as before.  A track goes to the second thread only when nothing it does
 * writes state shared with the caller's: sorted (a streamed track's open
 * frames name the caller's call paths), launching no GPU work (the GPU
 * join's launch table), keeping no events (counters, samples, memory
 * events make sample types in the order they come).  Not split at all:
 * --backward-to-forward (its links), a filter, --label-steps, a run with
 * collectives (their facts are the ctx's), another consumer (timelines,
 * events: written in the stack builder's order).  The profile writers walk
 * the aggregate in a canonical order, so every output is byte-identical
 * whatever thread nested a track. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "sat.h"
#include "stack_int.h"
#include "tracefold/agg.h"
#include "tracefold/agg_pack.h"
#include "tracefold/coll.h"

void tf_stacks_end_agg(tf_stacks *s, tf_agg_sink *k, tf_agg *agg)
{
	s->asink = k;
	s->agg = agg;
}

typedef struct cand {
	uint64_t w;
	uint32_t id;
} cand;

static int cand_cmp(const void *x, const void *y)
{
	const cand *a = x, *b = y;
	if (a->w != b->w)
		return a->w > b->w ? -1 : 1;
	return a->id < b->id ? -1 : a->id > b->id;
}

static bool can_split(const tf_stacks *s)
{
	return s->asink && s->nconsumers == 1 && s->consumer[0] == tf_agg_sink_spans(s->asink) && !s->filter &&
	       !s->bwd && tf_ctx_opts(s->ctx)->reader_threads >= 2 && !tf_ctx_coll(s->ctx, false);
}

/* The pass-0 tracks of input the second thread takes (mine[id] = 1);
 * false when it would take none, or too little to pay for its copy of the
 * strings, or when a call path's wall time could pass the int64 range:
 * one thread counts each add that saturates (agg_sink.c), two would count
 * them in another order or not at all (the twin aggregate is added with
 * tf_agg_add, which clamps silently).  The spans of a sorted track lie
 * within its first and last times and their self times apart, so the
 * wall time an input's CPU tracks add is at most the sum of their spans,
 * and none saturates when that sum stays within range and the aggregate
 * holds nothing yet (the run's only input on this thread). */
static bool split_tracks(const tf_stacks *s, uint32_t input, uint8_t *mine, cand *c)
{
	uint32_t n = 0;
	uint64_t w0 = 0, w1 = 0; /* the caller's, the second thread's */
	int64_t span_ns = 0;
	for (uint32_t i = 0; i < s->ntracks; i++) {
		const tf_track *tr = tf_ctx_track_get(s->ctx, i);
		if (!tr || tr->input != input || tr->kind == TF_TRACK_GPU)
			continue;
		bool movable;
		uint64_t w = tf_sorter_weight(s->sorter, i, &movable);
		const tstate *t = &s->tracks[i];
		if (t->seen)
			span_ns = tf_sat_add(span_ns, tf_sat_sub(t->last_ns, t->first_ns));
		if (movable && w && t->mode == 2 && !t->depth)
			c[n++] = (cand){ w, i };
		else
			w0 += w;
	}
	if (span_ns == INT64_MAX || tf_agg_nsamples(s->agg))
		return false;
	qsort(c, n, sizeof(*c), cand_cmp);
	for (uint32_t k = 0; k < n; k++) /* the larger ones first, each to the lighter set */
		if (w1 < w0 || (w1 == w0 && k % 2)) {
			w1 += c[k].w;
			mine[c[k].id] = 1;
		} else {
			w0 += c[k].w;
		}
	/* the twin's strings are copied (tf_ctx_twin: about what interning
	 * them cost, and their bytes again in memory), a span nested costs
	 * 500-700 instructions and its record 48 bytes: not worth it for a few
	 * spans among many strings, nor for strings of more bytes than 32 a
	 * span moved (a trace of long distinct names would double its peak) */
	const tf_strtab *st = tf_ctx_strtab(s->ctx);
	return w1 && tf_strtab_count(st) / 4 <= w1 && tf_strtab_bytes(st) / 32 <= w1;
}

typedef struct twin {
	tf_stacks *s;          /* the second thread's stack builder */
	tf_ctx *ctx;
	tf_agg *agg;
	tf_agg_sink *k;
	const uint8_t *mine;
	uint32_t input;
	int rc;
} twin;

static void *twin_run(void *arg)
{
	twin *w = arg;
	tf_stacks *s = w->s;
	for (uint32_t i = 0; i < s->ntracks && w->rc == 0; i++)
		if (w->mine[i])
			w->rc = tf_stacks_finish_track(s, i);
	return NULL;
}

static void twin_free(twin *w)
{
	free(w->s); /* its sorter's twin ended by twin_join, or before */
	tf_agg_sink_free(w->k);
	tf_agg_free(w->agg);
	tf_ctx_free(w->ctx);
}

/* The second thread's stack builder over s's tracks; 0 or TF_ENOMEM. */
static int twin_make(tf_stacks *s, twin *w)
{
	if (!(w->ctx = tf_ctx_twin(s->ctx)) || !(w->agg = tf_agg_new(tf_ctx_strtab(w->ctx))) ||
	    !(w->k = tf_agg_sink_twin(s->asink, w->ctx, w->agg)) || !(w->s = calloc(1, sizeof(*w->s))))
		return TF_ENOMEM;
	tf_stacks *t = w->s;
	t->ctx = w->ctx;
	t->cp = tf_agg_cpath(w->agg);
	t->diag = tf_ctx_diag(w->ctx);
	t->consumer[0] = tf_agg_sink_spans(w->k);
	t->nconsumers = 1;
	t->tracks = s->tracks; /* each thread its own entries; none is added now */
	t->ntracks = s->ntracks;
	t->captracks = s->captracks;
	t->clip_tol_ns = s->clip_tol_ns;
	if (!(t->sorter = tf_sorter_twin(s->sorter, w->ctx)))
		return TF_ENOMEM;
	return 0;
}

/* What the second thread did, into s: its aggregate, diagnostics, notes,
 * warnings, failure, time span, the sorter's memory count. */
static int twin_join(tf_stacks *s, twin *w, tf_error *err)
{
	tf_sorter_twin_end(s->sorter, w->s->sorter);
	w->s->sorter = NULL;
	tf_diag_add(s->diag, w->s->diag);
	for (size_t i = 0; i < tf_ctx_nnotes(w->ctx); i++) {
		const char *n = tf_ctx_note_get(w->ctx, i);
		tf_ctx_note(s->ctx, "%s", n ? n : "");
	}
	for (size_t i = 0; i < tf_ctx_nwarnings(w->ctx); i++) {
		const char *n = tf_ctx_warning_get(w->ctx, i);
		tf_ctx_warn(s->ctx, "%s", n ? n : "");
	}
	const tf_error *f = tf_ctx_failure(w->ctx);
	if (f)
		tf_ctx_fail(s->ctx, f);
	if (w->s->any_time)
		tf_stacks_note_range(s, w->s->min_ns, w->s->max_ns);
	if (w->rc < 0)
		return w->rc;
	void *buf = NULL;
	size_t len = 0;
	int r = tf_agg_pack(w->agg, &buf, &len);
	if (r == 0)
		r = tf_agg_unpack_merge(s->agg, buf, len, "the end of input's second thread", err);
	free(buf);
	return r;
}

/* -v: what was split (tf_read_opts.stage_stats). */
static void count_split(const tf_stacks *s, uint32_t input, const uint8_t *mine)
{
	tf_stage_stats *st = tf_ctx_opts(s->ctx)->stage_stats;
	if (!st)
		return;
	uint64_t n = 0, moved = 0;
	for (uint32_t i = 0; i < s->ntracks; i++) {
		const tf_track *tr = tf_ctx_track_get(s->ctx, i);
		if (tr && tr->input == input && tr->kind != TF_TRACK_GPU) {
			n++;
			moved += mine[i];
		}
	}
	__atomic_fetch_add(&st->end_inputs, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&st->end_tracks, n, __ATOMIC_RELAXED);
	__atomic_fetch_add(&st->end_moved, moved, __ATOMIC_RELAXED);
}

int tf_stacks_end_split(tf_stacks *s, uint32_t input)
{
	if (!can_split(s))
		return 0;
	uint8_t *mine = calloc(s->ntracks ? s->ntracks : 1, 1);
	cand *c = calloc(s->ntracks ? s->ntracks : 1, sizeof(*c));
	twin w = { .mine = mine, .input = input };
	pthread_t th;
	int rc = 0;
	if (!mine || !c || !split_tracks(s, input, mine, c) || twin_make(s, &w) < 0 ||
	    pthread_create(&th, NULL, twin_run, &w) != 0) { /* on one thread, as without a spare one */
		if (w.s)
			tf_sorter_twin_end(s->sorter, w.s->sorter);
		twin_free(&w);
		free(mine);
		free(c);
		return 0;
	}
	for (uint32_t i = 0; i < s->ntracks && rc == 0; i++) {
		const tf_track *tr = tf_ctx_track_get(s->ctx, i);
		if (tr && tr->input == input && tr->kind != TF_TRACK_GPU && !mine[i]) /* pass 0 (no backward ops) */
			rc = tf_stacks_finish_track(s, i);
	}
	pthread_join(th, NULL);
	count_split(s, input, mine);
	tf_error err;
	tf_error_clear(&err);
	int r = twin_join(s, &w, &err);
	if (r < 0 && err.code)
		tf_ctx_fail(s->ctx, &err);
	twin_free(&w);
	free(mine);
	free(c);
	return rc < 0 ? rc : r < 0 ? r : 1;
}
