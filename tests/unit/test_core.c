/* test_core.c - strings, aggregate, stack-builder rules and repairs, pprof encoding. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <unistd.h>
#include "tracefold/ctx.h"
#include "tracefold/reader.h"
#include "tracefold/stack.h"
#include "tracefold/agg_sink.h"
#include "tracefold/pprof.h"
#include "profile.pb-c.h"
#include "spill_fd.h"

typedef struct fx {
	tf_ctx *ctx;
	tf_agg *agg;
	tf_stacks *stk;
	tf_agg_sink *ak;
	uint32_t track;
	uint64_t idx;
} fx;

/* A stack builder over f->agg's call paths with an aggregate consumer, as
 * the pipeline wires them. */
static void fx_stacks(fx *f, const char *const *counters)
{
	f->stk = tf_stacks_new(f->ctx, tf_agg_cpath(f->agg), NULL);
	f->ak = tf_agg_sink_new(f->ctx, f->agg, counters);
	assert_non_null(f->stk);
	assert_non_null(f->ak);
	assert_int_equal(tf_stacks_add_consumer(f->stk, tf_agg_sink_spans(f->ak)), 0);
}

static void fx_init(fx *f, int sorted)
{
	f->ctx = tf_ctx_new();
	f->agg = tf_agg_new(tf_ctx_strtab(f->ctx));
	fx_stacks(f, NULL);
	tf_strtab *st = tf_ctx_strtab(f->ctx);
	f->track = tf_ctx_track(f->ctx, 0, tf_strtab_intern_cstr(st, "1"), tf_strtab_intern_cstr(st, "7"));
	tf_ctx_track_get(f->ctx, f->track)->needs_sort = sorted;
	f->idx = 0;
}

static void fx_free(fx *f)
{
	tf_stacks_free(f->stk);
	tf_agg_sink_free(f->ak);
	tf_agg_free(f->agg);
	tf_ctx_free(f->ctx);
}

static void ev(fx *f, tf_ev_kind k, const char *name, int64_t ts, int64_t dur)
{
	tf_event e;
	memset(&e, 0, sizeof(e));
	e.kind = (uint8_t)k;
	e.track = f->track;
	e.name = name ? tf_strtab_intern_cstr(tf_ctx_strtab(f->ctx), name) : 0;
	e.ts_ns = ts;
	e.dur_ns = dur;
	e.index = f->idx++;
	assert_int_equal(tf_emit(f->ctx, tf_stacks_sink(f->stk), &e), 0);
}

static void done(fx *f)
{
	assert_int_equal(tf_stacks_sink(f->stk)->end_input(tf_stacks_sink(f->stk), 0), 0);
	assert_int_equal(tf_stacks_finish(f->stk), 0);
}

/* value of type t summed over samples whose leaf path is "a;b;c" (root first) */
static int64_t path_value(fx *f, const char *path, int t)
{
	tf_strtab *st = tf_ctx_strtab(f->ctx);
	int64_t sum = 0;
	for (size_t i = 0; i < tf_agg_nsamples(f->agg); i++) {
		tf_agg_sample s = tf_agg_sample_get(f->agg, i);
		char buf[512] = "";
		const char *names[64];
		int n = 0;
		for (uint32_t nd = s.node; nd; nd = tf_agg_node_get(f->agg, nd)->parent)
			names[n++] = tf_strtab_get(st, tf_agg_node_get(f->agg, nd)->frame);
		while (n--) {
			strcat(buf, names[n]);
			if (n)
				strcat(buf, ";");
		}
		if (!strcmp(buf, path))
			sum += tf_agg_sample_value(f->agg, i, t);
	}
	return sum;
}
#define CALLS 0
#define WALL 1

static void test_strtab(void **state)
{
	tf_strtab *st = tf_strtab_new();
	assert_int_equal(tf_strtab_intern_cstr(st, ""), 0);
	tf_str a = tf_strtab_intern_cstr(st, "aten::add");
	assert_int_equal(tf_strtab_intern(st, "aten::add_x", 9), a);
	char name[32];
	for (int i = 0; i < 100000; i++) {
		snprintf(name, sizeof(name), "n%d", i);
		assert_int_equal(tf_strtab_intern_cstr(st, name), (tf_str)(i + 2));
	}
	assert_string_equal(tf_strtab_get(st, 50001), "n49999");
	assert_string_equal(tf_strtab_get(st, a), "aten::add");
	/* the hash reads 8 bytes at a time: texts of every length up to 40
	 * that differ in one byte (a zero too: texts are bytes), and a prefix
	 * padded with zero bytes, are all told apart */
	char t[41];
	tf_str first = tf_strtab_count(st);
	for (size_t len = 1; len <= 40; len++)
		for (size_t at = 0; at < len; at++)
			for (int b = 0; b < 3; b++) {
				memset(t, 'x', len);
				t[at] = "\0yz"[b];
				tf_str id = tf_strtab_intern(st, t, len);
				assert_int_equal(tf_strtab_intern(st, t, len), id);
				assert_int_equal(tf_strtab_len(st, id), len);
				assert_memory_equal(tf_strtab_get(st, id), t, len);
			}
	size_t want = 0;
	for (size_t len = 1; len <= 40; len++)
		want += 3 * len;
	assert_int_equal(tf_strtab_count(st) - first, want);
	tf_strtab_free(st);
}

/* tf_ctx_twin (stack_par.c's second thread): every string at its id, with
 * texts that contain zero bytes; the tracks; options; diagnostics and
 * strings interned later its own. */
static void test_ctx_twin(void **state)
{
	tf_ctx *c = tf_ctx_new();
	tf_strtab *st = tf_ctx_strtab(c);
	char name[32];
	for (int i = 0; i < 3000; i++) {
		snprintf(name, sizeof(name), "frame %d", i);
		tf_strtab_intern_cstr(st, name);
	}
	tf_str z = tf_strtab_intern(st, "a\0b", 3);
	uint32_t t0 = tf_ctx_track(c, 0, tf_strtab_intern_cstr(st, "7"), tf_strtab_intern_cstr(st, "8"));
	uint32_t t1 = tf_ctx_track(c, 1, tf_strtab_intern_cstr(st, "7"), tf_strtab_intern_cstr(st, "9"));
	tf_ctx_track_get(c, t1)->rank = 5;
	tf_ctx_opts(c)->sort_mem_bytes = 12345;
	tf_ctx_diag(c)->n[0] = 3;
	tf_ctx *w = tf_ctx_twin(c);
	assert_non_null(w);
	tf_strtab *wt = tf_ctx_strtab(w);
	assert_int_equal(tf_strtab_count(wt), tf_strtab_count(st));
	for (tf_str i = 0; i < tf_strtab_count(st); i++) {
		assert_int_equal(tf_strtab_len(wt, i), tf_strtab_len(st, i));
		assert_memory_equal(tf_strtab_get(wt, i), tf_strtab_get(st, i), tf_strtab_len(st, i));
	}
	assert_int_equal(tf_strtab_intern(wt, "a\0b", 3), z);
	assert_int_equal(tf_ctx_track_count(w), 2);
	assert_int_equal(tf_ctx_track_get(w, t1)->rank, 5);
	assert_int_equal(tf_ctx_track_get(w, t0)->thread_key, tf_ctx_track_get(c, t0)->thread_key);
	assert_int_equal(tf_ctx_opts(w)->sort_mem_bytes, 12345);
	assert_int_equal(tf_ctx_diag(w)->n[0], 0);
	tf_str n = tf_strtab_intern_cstr(wt, "only the twin's");
	assert_int_equal(n, tf_strtab_count(st));
	assert_int_equal(tf_strtab_count(st), n); /* not the run's */
	tf_ctx_free(w);
	tf_ctx_free(c);
}

/* The end of an input on two threads (stack_par.c): track 1 holds B/E
 * pairs (kept in memory: the sorter spills spans and kept events, not
 * marks), more of them than track 2's X events, so track 1 stays on the
 * caller's thread and track 2, spilled (--sort-mem 2K), goes to the second
 * one.  With reader_threads 1 and 2: the same aggregate and repairs; then
 * the temporary file garbled before the end: TF_EIO and the run's failure
 * "cannot read back ..." with both, so the second thread's failure is
 * returned and said (it fails when either is lost). */
static int end_split_run(int threads, bool garble, int64_t out[4], tf_diag *dg)
{
	fx f;
	f.ctx = tf_ctx_new();
	tf_ctx_opts(f.ctx)->reader_threads = threads;
	tf_ctx_opts(f.ctx)->sort_mem_bytes = 2048;
	f.agg = tf_agg_new(tf_ctx_strtab(f.ctx));
	fx_stacks(&f, NULL);
	tf_stacks_end_agg(f.stk, f.ak, f.agg);
	tf_strtab *st = tf_ctx_strtab(f.ctx);
	uint32_t t1 = tf_ctx_track(f.ctx, 0, tf_strtab_intern_cstr(st, "1"), tf_strtab_intern_cstr(st, "7"));
	uint32_t t2 = tf_ctx_track(f.ctx, 0, tf_strtab_intern_cstr(st, "1"), tf_strtab_intern_cstr(st, "8"));
	tf_ctx_track_get(f.ctx, t1)->needs_sort = true;
	tf_ctx_track_get(f.ctx, t2)->needs_sort = true;
	f.idx = 0;
	for (int i = 0; i < 3000; i++) { /* track 1: "a" B/E pairs, each holding a "b" pair */
		f.track = t1;
		ev(&f, TF_EV_BEGIN, "a", i * 100, 0);
		ev(&f, TF_EV_BEGIN, "b", i * 100 + 10, 0);
		ev(&f, TF_EV_END, NULL, i * 100 + 20, 0);
		ev(&f, TF_EV_END, NULL, i * 100 + 50, 0);
	}
	for (int i = 0; i < 2000; i++) { /* track 2: X events, children first, one child past its parent */
		f.track = t2;
		ev(&f, TF_EV_COMPLETE, "d", i * 100 + 5, i % 100 == 3 ? 60 : 10);
		ev(&f, TF_EV_COMPLETE, "c", i * 100, 50);
	}
	if (garble) {
		int fd = tf_test_spill_fd();
		assert_true(fd >= 0);
		unsigned char ff[1 << 16];
		memset(ff, 0xff, sizeof(ff));
		assert_int_equal(pwrite(fd, ff, sizeof(ff), 0), (ssize_t)sizeof(ff));
	}
	int rc = tf_stacks_sink(f.stk)->end_input(tf_stacks_sink(f.stk), 0);
	if (rc == 0) {
		assert_int_equal(tf_stacks_finish(f.stk), 0);
		out[0] = path_value(&f, "a;b", CALLS);
		out[1] = path_value(&f, "a;b", WALL);
		out[2] = path_value(&f, "c;d", CALLS);
		out[3] = path_value(&f, "c;d", WALL);
	} else {
		const tf_error *e = tf_ctx_failure(f.ctx);
		assert_non_null(e);
		assert_non_null(strstr(e->msg, "cannot read back the temporary run file"));
	}
	*dg = *tf_ctx_diag(f.ctx);
	fx_free(&f);
	return rc;
}

static void test_end_split(void **state)
{
	int64_t one[4], two[4];
	tf_diag d1, d2;
	assert_int_equal(end_split_run(1, false, one, &d1), 0);
	assert_int_equal(end_split_run(2, false, two, &d2), 0);
	assert_int_equal(one[0], 3000);
	assert_int_equal(one[2], 2000);
	assert_int_equal(one[3], 1980 * 10 + 20 * 45); /* 20 children clipped from 60 to 45 ns */
	assert_memory_equal(one, two, sizeof(one));
	assert_int_equal(d1.n[TF_DIAG_child_clipped], 20);
	assert_memory_equal(&d1, &d2, sizeof(d1));
	assert_int_equal(end_split_run(1, true, one, &d1), TF_EIO);
	assert_int_equal(end_split_run(2, true, two, &d2), TF_EIO);
}

static void test_nesting_x(void **state)
{
	fx f;
	fx_init(&f, 1);
	/* out of order in the file; equal start: longer first */
	ev(&f, TF_EV_COMPLETE, "child", 100, 50);
	ev(&f, TF_EV_COMPLETE, "parent", 100, 200);
	ev(&f, TF_EV_COMPLETE, "sib", 300, 0);   /* zero length at parent's end: sibling */
	ev(&f, TF_EV_COMPLETE, "late", 150, 200); /* ends after parent: clipped to 300 */
	done(&f);
	assert_int_equal(path_value(&f, "parent", WALL), 200 - 50 - 150);
	assert_int_equal(path_value(&f, "parent;child", WALL), 50);
	assert_int_equal(path_value(&f, "parent;late", WALL), 150);
	assert_int_equal(path_value(&f, "sib", CALLS), 1);
	assert_int_equal(tf_ctx_diag(f.ctx)->n[TF_DIAG_child_clipped], 1);
	fx_free(&f);
}

static void test_begin_end_equal_ts(void **state)
{
	fx f;
	fx_init(&f, 1);
	ev(&f, TF_EV_BEGIN, "a", 0, 0);
	ev(&f, TF_EV_BEGIN, "b", 10, 0);   /* b begins at 10 ... */
	ev(&f, TF_EV_END, NULL, 10, 0);    /* ... and an end at 10 after it closes b: file order */
	ev(&f, TF_EV_END, NULL, 20, 0);
	ev(&f, TF_EV_END, NULL, 30, 0);    /* nothing open: dropped */
	ev(&f, TF_EV_BEGIN, "open", 40, 0);
	ev(&f, TF_EV_COMPLETE, "x", 40, 10);
	done(&f);
	assert_int_equal(path_value(&f, "a", WALL), 20);
	assert_int_equal(path_value(&f, "a;b", WALL), 0);
	assert_int_equal(path_value(&f, "a;b", CALLS), 1);
	assert_int_equal(path_value(&f, "open", WALL), 0); /* closed at the last ts, 50 */
	assert_int_equal(path_value(&f, "open;x", WALL), 10);
	const tf_diag *d = tf_ctx_diag(f.ctx);
	assert_int_equal(d->n[TF_DIAG_end_without_begin], 1);
	assert_int_equal(d->n[TF_DIAG_begin_unclosed], 1);
	assert_int_equal(d->ns[TF_DIAG_begin_unclosed], 10);
	assert_int_equal(d->n[TF_DIAG_events_read], 7);
	assert_int_equal(d->n[TF_DIAG_ev_duration], 7);
	fx_free(&f);

	/* zero-length regions at one timestamp nest in file order (a 2015
	 * Chrome trace has 121 such pairs); X and B/E at one timestamp */
	fx_init(&f, 1);
	ev(&f, TF_EV_BEGIN, "p", 0, 0);
	ev(&f, TF_EV_BEGIN, "z1", 5, 0);
	ev(&f, TF_EV_END, NULL, 5, 0);
	ev(&f, TF_EV_BEGIN, "z2", 5, 0);   /* sibling of z1: z1's E came first */
	ev(&f, TF_EV_END, NULL, 5, 0);
	ev(&f, TF_EV_BEGIN, "outer", 7, 0);
	ev(&f, TF_EV_BEGIN, "inner", 7, 0); /* inside outer: outer's E comes later */
	ev(&f, TF_EV_END, NULL, 7, 0);
	ev(&f, TF_EV_COMPLETE, "xin", 7, 0); /* X before outer's E: inside outer */
	ev(&f, TF_EV_END, NULL, 7, 0);
	ev(&f, TF_EV_COMPLETE, "xafter", 7, 0); /* after outer's E: sibling */
	ev(&f, TF_EV_COMPLETE, "xa", 8, 1);
	ev(&f, TF_EV_BEGIN, "bx", 9, 0);   /* begins where the X xa ends: sibling */
	ev(&f, TF_EV_END, NULL, 9, 0);
	ev(&f, TF_EV_END, NULL, 10, 0);
	done(&f);
	assert_int_equal(path_value(&f, "p", WALL), 9);
	assert_int_equal(path_value(&f, "p;z1", CALLS), 1);
	assert_int_equal(path_value(&f, "p;z2", CALLS), 1);
	assert_int_equal(path_value(&f, "p;outer;inner", CALLS), 1);
	assert_int_equal(path_value(&f, "p;outer;xin", CALLS), 1);
	assert_int_equal(path_value(&f, "p;xafter", CALLS), 1);
	assert_int_equal(path_value(&f, "p;xa", WALL), 1);
	assert_int_equal(path_value(&f, "p;bx", CALLS), 1);
	d = tf_ctx_diag(f.ctx);
	assert_int_equal(tf_diag_problems(d), 0);
	fx_free(&f);

	/* a clipped B/E child ends where its parent does: a span starting
	 * there is their sibling, and nothing is cut */
	fx_init(&f, 1);
	ev(&f, TF_EV_COMPLETE, "P", 0, 10000);
	ev(&f, TF_EV_BEGIN, "c", 5000, 0);
	ev(&f, TF_EV_COMPLETE, "n", 10000, 3000);
	ev(&f, TF_EV_END, NULL, 10500, 0);
	done(&f);
	d = tf_ctx_diag(f.ctx);
	assert_int_equal(d->n[TF_DIAG_child_clipped], 1);
	assert_int_equal(d->n[TF_DIAG_overlap_cut], 0);
	assert_int_equal(path_value(&f, "P;c", WALL), 5000);
	assert_int_equal(path_value(&f, "n", WALL), 3000);
	fx_free(&f);
}

/* Overlaps: up to the clip tolerance a child is clipped; beyond it the
 * parent ends where the child starts (Bazel's merged spans).  No time is
 * lost by a cut, and each repair says how much time it moved. */
static void test_overlap(void **state)
{
	fx f;
	fx_init(&f, 1);
	ev(&f, TF_EV_COMPLETE, "merged", 0, 5000000000ll);
	ev(&f, TF_EV_COMPLETE, "step", 1000, 1000);           /* child of merged */
	ev(&f, TF_EV_COMPLETE, "Linking", 4500000000ll, 9870000000ll);
	ev(&f, TF_EV_COMPLETE, "kid", 14369999500ll, 900);   /* 400 ns over Linking: clipped */
	done(&f);
	assert_int_equal(path_value(&f, "merged", WALL), 4500000000ll - 1000);
	assert_int_equal(path_value(&f, "merged;step", WALL), 1000);
	assert_int_equal(path_value(&f, "Linking", WALL), 9870000000ll - 500);
	assert_int_equal(path_value(&f, "Linking;kid", WALL), 500);
	const tf_diag *d = tf_ctx_diag(f.ctx);
	assert_int_equal(d->n[TF_DIAG_overlap_cut], 1);
	assert_int_equal(d->ns[TF_DIAG_overlap_cut], 500000000);
	assert_int_equal(d->n[TF_DIAG_child_clipped], 1);
	assert_int_equal(d->ns[TF_DIAG_child_clipped], 400);
	fx_free(&f);

	/* a cut goes up through every level the span overhangs; tolerance 1 ns */
	fx_init(&f, 1);
	tf_ctx_opts(f.ctx)->clip_tolerance_ns = 1;
	tf_stacks_free(f.stk);
	tf_agg_sink_free(f.ak);
	fx_stacks(&f, NULL);
	ev(&f, TF_EV_COMPLETE, "root", 0, 100);
	ev(&f, TF_EV_COMPLETE, "a", 10, 40);
	ev(&f, TF_EV_COMPLETE, "b", 20, 20);
	ev(&f, TF_EV_COMPLETE, "late", 30, 30);   /* ends at 60: over b and a, inside root */
	ev(&f, TF_EV_COMPLETE, "tiny", 55, 6);    /* 1 ns over late: clipped, not cut */
	ev(&f, TF_EV_COMPLETE, "open", 90, TF_DUR_UNTIL_END); /* [90, 120]: cuts root */
	ev(&f, TF_EV_COMPLETE, "end", 120, 0);    /* at the end of the track: inside open */
	done(&f);
	assert_int_equal(path_value(&f, "root", WALL), 90 - 20 - 30);
	assert_int_equal(path_value(&f, "root;a", WALL), 10);
	assert_int_equal(path_value(&f, "root;a;b", WALL), 10);
	assert_int_equal(path_value(&f, "root;late", WALL), 25);
	assert_int_equal(path_value(&f, "root;late;tiny", WALL), 5);
	assert_int_equal(path_value(&f, "open", WALL), 30);
	assert_int_equal(path_value(&f, "open;end", CALLS), 1);
	d = tf_ctx_diag(f.ctx);
	assert_int_equal(d->n[TF_DIAG_overlap_cut], 3);
	assert_int_equal(d->ns[TF_DIAG_overlap_cut], (40 - 30) + (50 - 30) + (100 - 90));
	assert_int_equal(d->n[TF_DIAG_child_clipped], 1);
	assert_int_equal(d->ns[TF_DIAG_child_clipped], 1);
	assert_int_equal(d->n[TF_DIAG_begin_unclosed], 1);
	assert_int_equal(d->ns[TF_DIAG_begin_unclosed], 30);
	fx_free(&f);
}

static void test_streamed(void **state)
{
	fx f;
	fx_init(&f, 0);
	ev(&f, TF_EV_BEGIN, "main", 0, 0);
	ev(&f, TF_EV_BEGIN, "A", 5, 0);
	ev(&f, TF_EV_BEGIN, "B", 5, 0);
	ev(&f, TF_EV_END, "B", 5, 0);      /* equal timestamps keep file order */
	ev(&f, TF_EV_END, "A", 9, 0);
	ev(&f, TF_EV_BEGIN, "A", 10, 0);
	ev(&f, TF_EV_BEGIN, "B", 11, 0);
	ev(&f, TF_EV_END, "A", 20, 0);     /* exit of A while B open: B closed first */
	ev(&f, TF_EV_END, "C", 21, 0);     /* never entered: dropped */
	ev(&f, TF_EV_BEGIN, "D", 25, 0);   /* open at end: closed at 30 */
	ev(&f, TF_EV_END, "main", 30, 0);  /* main exit closes D too */
	done(&f);
	assert_int_equal(path_value(&f, "main;A", CALLS), 2);
	assert_int_equal(path_value(&f, "main;A", WALL), 4 + 1);
	assert_int_equal(path_value(&f, "main;A;B", CALLS), 2);
	assert_int_equal(path_value(&f, "main;A;B", WALL), 0 + 9);
	assert_int_equal(path_value(&f, "main;D", WALL), 5);
	assert_int_equal(path_value(&f, "main", WALL), 30 - 4 - 10 - 5);
	const tf_diag *d = tf_ctx_diag(f.ctx);
	assert_int_equal(d->n[TF_DIAG_exit_mismatch], 2);
	assert_int_equal(d->n[TF_DIAG_end_without_begin], 1);
	fx_free(&f);
}

/* Streamed call paths (stack.c's child cache): one child name under two
 * parents is two paths; 600 names (more than the cache's slots, so they
 * share slots) keep their own paths; two raw names with one stable name
 * ("X, seq = N": the NVTX rule) are one path, also when the second hits
 * the cache. */
static void test_streamed_paths(void **state)
{
	fx f;
	fx_init(&f, 0);
	char name[32];
	int64_t ts = 0;
	for (int round = 0; round < 2; round++)
		for (int p = 0; p < 2; p++) {
			ev(&f, TF_EV_BEGIN, p ? "Q" : "P", ts++, 0);
			for (int i = 0; i < 600; i++) {
				snprintf(name, sizeof(name), "n%d", i);
				ev(&f, TF_EV_BEGIN, name, ts, 0);
				ts += 1 + i % 3;
				ev(&f, TF_EV_END, name, ts++, 0);
			}
			ev(&f, TF_EV_BEGIN, "X, seq = 1", ts++, 0);
			ev(&f, TF_EV_END, "X, seq = 1", ts++, 0);
			ev(&f, TF_EV_BEGIN, "X, seq = 2", ts++, 0);
			ev(&f, TF_EV_END, "X, seq = 2", ts++, 0);
			ev(&f, TF_EV_END, p ? "Q" : "P", ts++, 0);
		}
	done(&f);
	for (int i = 0; i < 600; i += 7) {
		char path[40];
		snprintf(path, sizeof(path), "P;n%d", i);
		assert_int_equal(path_value(&f, path, CALLS), 2);
		assert_int_equal(path_value(&f, path, WALL), 2 * (1 + i % 3));
		path[0] = 'Q';
		assert_int_equal(path_value(&f, path, CALLS), 2);
		assert_int_equal(path_value(&f, path, WALL), 2 * (1 + i % 3));
	}
	assert_int_equal(path_value(&f, "P;X", CALLS), 4);
	assert_int_equal(path_value(&f, "Q;X", CALLS), 4);
	assert_int_equal(path_value(&f, "P", CALLS), 2);
	assert_int_equal(tf_cpath_count(tf_agg_cpath(f.agg)), 1 + 2 * (1 + 600 + 1));
	fx_free(&f);
}

static void test_counters(void **state)
{
	fx f;
	f.ctx = tf_ctx_new();
	f.agg = tf_agg_new(tf_ctx_strtab(f.ctx));
	const char *sel[] = { "bytes", NULL };
	fx_stacks(&f, sel);
	tf_strtab *st = tf_ctx_strtab(f.ctx);
	f.track = tf_ctx_track(f.ctx, 0, tf_strtab_intern_cstr(st, "0"), tf_strtab_intern_cstr(st, "0"));
	f.idx = 0;
	ev(&f, TF_EV_BEGIN, "main", 0, 0);
	tf_event e = { .kind = TF_EV_COUNTER, .track = f.track, .name = tf_strtab_intern_cstr(st, "bytes"),
		       .ts_ns = 3, .value = 1024 };
	tf_emit(f.ctx, tf_stacks_sink(f.stk), &e);
	e.name = tf_strtab_intern_cstr(st, "other");
	tf_emit(f.ctx, tf_stacks_sink(f.stk), &e);
	ev(&f, TF_EV_END, "main", 10, 0);
	done(&f);
	int t = tf_agg_type_find(f.agg, "counter:bytes");
	assert_int_equal(t, 2);
	assert_int_equal(tf_agg_type_find(f.agg, "counter:other"), -1);
	assert_int_equal(tf_agg_type_find(f.agg, "bytes"), -1); /* never a bare name */
	assert_int_equal(path_value(&f, "main", t), 1024);
	fx_free(&f);
}

static void test_merge(void **state)
{
	tf_strtab *st = tf_strtab_new();
	tf_agg *a = tf_agg_new(st), *b = tf_agg_new(st), *c = tf_agg_new(st);
	tf_str x = tf_strtab_intern_cstr(st, "x"), y = tf_strtab_intern_cstr(st, "y");
	tf_label l = { tf_strtab_intern_cstr(st, "rank"), tf_strtab_intern_cstr(st, "0"), 0, 0 };
	assert_int_equal(tf_agg_type(a, "wall", "nanoseconds"), 0);
	assert_int_equal(tf_agg_type(b, "wall", "nanoseconds"), 0);
	uint32_t ls = tf_agg_labelset(a, &l, 1);
	tf_agg_add(a, tf_agg_child(a, tf_agg_child(a, 0, x), y), ls, 0, 5);
	uint32_t lb = tf_agg_labelset(b, &l, 1);
	tf_agg_add(b, tf_agg_child(b, 0, y), lb, 0, 7);
	tf_agg_add(b, tf_agg_child(b, tf_agg_child(b, 0, x), y), lb, 0, 1);
	assert_int_equal(tf_agg_merge(a, b, 0), 0);
	assert_int_equal(tf_agg_nsamples(a), 2);
	int64_t tot = 0;
	for (size_t i = 0; i < tf_agg_nsamples(a); i++)
		tot += tf_agg_sample_value(a, i, 0);
	assert_int_equal(tot, 13);
	assert_int_equal(tf_agg_type(c, "cpu", "nanoseconds"), 0);
	assert_int_equal(tf_agg_merge(a, c, 0), TF_ECLASH);
	assert_int_equal(tf_agg_type(a, "wall", "count"), TF_ECLASH);
	tf_agg_free(a);
	tf_agg_free(b);
	tf_agg_free(c);
	tf_strtab_free(st);
}

/* Timestamps, durations and values at the ends of int64 (damaged input):
 * sums and differences clamp instead of overflowing (undefined behaviour,
 * caught by the ASan+UBSan run of this test).  Found by fuzzing. */
static void test_extreme_values(void **state)
{
	fx f;
	fx_init(&f, 1);
	ev(&f, TF_EV_COMPLETE, "late", INT64_MAX - 10, 1000); /* ends past INT64_MAX */
	ev(&f, TF_EV_COMPLETE, "early", INT64_MIN, 5);        /* the span: end - start > INT64_MAX */
	ev(&f, TF_EV_BEGIN, "open", -100, 0);                 /* closed at the last ts, INT64_MAX */
	done(&f);
	assert_int_equal(path_value(&f, "open;late", WALL), 10);
	assert_int_equal(path_value(&f, "open", WALL), INT64_MAX - 10);
	assert_int_equal(path_value(&f, "early", WALL), 5);
	int64_t first, last; /* the time span: the profile's duration is INT64_MAX */
	assert_true(tf_stacks_time_span(f.stk, &first, &last));
	assert_true(first == INT64_MIN && last == INT64_MAX);
	fx_free(&f);

	fx_init(&f, 0);
	ev(&f, TF_EV_BEGIN, "a", INT64_MIN, 0);
	ev(&f, TF_EV_BEGIN, "b", 0, 0);
	ev(&f, TF_EV_END, "b", INT64_MAX, 0);
	ev(&f, TF_EV_END, "a", INT64_MAX, 0);
	ev(&f, TF_EV_BEGIN, "a", INT64_MIN, 0);
	ev(&f, TF_EV_END, "a", INT64_MAX, 0);
	done(&f);
	assert_int_equal(path_value(&f, "a;b", WALL), INT64_MAX);
	assert_int_equal(path_value(&f, "a", WALL), INT64_MAX); /* INT64_MAX + 0 + INT64_MAX, clamped */
	fx_free(&f);

	/* counter values beyond int64, and sums of them */
	f.ctx = tf_ctx_new();
	f.agg = tf_agg_new(tf_ctx_strtab(f.ctx));
	const char *all[] = { "all", NULL };
	fx_stacks(&f, all);
	tf_strtab *st = tf_ctx_strtab(f.ctx);
	f.track = tf_ctx_track(f.ctx, 0, tf_strtab_intern_cstr(st, "0"), tf_strtab_intern_cstr(st, "0"));
	tf_event e = { .kind = TF_EV_COUNTER, .track = f.track, .name = tf_strtab_intern_cstr(st, "big"),
		       .ts_ns = 1, .value = 9e18 };
	tf_emit(f.ctx, tf_stacks_sink(f.stk), &e);
	tf_emit(f.ctx, tf_stacks_sink(f.stk), &e);
	e.value = 1e300;
	tf_emit(f.ctx, tf_stacks_sink(f.stk), &e);
	e.name = tf_strtab_intern_cstr(st, "small");
	e.value = -1e300;
	tf_emit(f.ctx, tf_stacks_sink(f.stk), &e);
	e.value = -1.0 / 0.0;
	tf_emit(f.ctx, tf_stacks_sink(f.stk), &e);
	e.name = tf_strtab_intern_cstr(st, "nan");
	e.value = 0.0 / 0.0;
	tf_emit(f.ctx, tf_stacks_sink(f.stk), &e);
	done(&f);
	assert_int_equal(path_value(&f, "[no region]", tf_agg_type_find(f.agg, "counter:big")), INT64_MAX);
	assert_int_equal(path_value(&f, "[no region]", tf_agg_type_find(f.agg, "counter:small")), INT64_MIN);
	assert_int_equal(path_value(&f, "[no region]", tf_agg_type_find(f.agg, "counter:nan")), 0);

	/* merging aggregates whose sums overflow */
	tf_agg *b = tf_agg_new(st);
	assert_int_equal(tf_agg_merge(b, f.agg, 1), 0);
	assert_int_equal(tf_agg_merge(b, f.agg, 1), 0);
	assert_int_equal(tf_agg_add(b, 1, 0, tf_agg_type_find(b, "counter:big"), INT64_MAX), 0);
	int64_t big = 0;
	for (size_t i = 0; i < tf_agg_nsamples(b); i++)
		if (tf_agg_sample_value(b, i, tf_agg_type_find(b, "counter:big")))
			big = tf_agg_sample_value(b, i, tf_agg_type_find(b, "counter:big"));
	assert_int_equal(big, INT64_MAX);
	tf_agg_free(b);
	fx_free(&f);
}

/* Regions nested deeper than 4096 levels (damaged input: lost exits) fold
 * into the frame at level 4096; the time is kept.  Without the limit, 30000
 * B events without E made a 4 GB profile. */
static void test_depth_limit(void **state)
{
	for (int sorted = 0; sorted < 2; sorted++) {
		fx f;
		fx_init(&f, sorted);
		for (int i = 0; i < 5000; i++)
			ev(&f, TF_EV_BEGIN, i % 2 ? "odd" : "even", i, 0);
		if (!sorted)
			for (int i = 4999; i >= 0; i--)
				ev(&f, TF_EV_END, i % 2 ? "odd" : "even", 10000 - i, 0);
		else
			ev(&f, TF_EV_COMPLETE, "last", 10000, 0); /* B never closed: closed at the last ts */
		done(&f);
		const tf_diag *d = tf_ctx_diag(f.ctx);
		/* sorted: "last" starts at the last ts, inside the regions
		 * still open there, so it is folded too */
		assert_int_equal(d->n[TF_DIAG_depth_limited], 5000 - 4096 + sorted);
		assert_int_equal(tf_agg_nnodes(f.agg), 4096 + 1);
		int64_t wall = 0, calls = 0;
		uint32_t maxdepth = 0;
		for (size_t i = 0; i < tf_agg_nsamples(f.agg); i++) {
			tf_agg_sample s = tf_agg_sample_get(f.agg, i);
			wall += tf_agg_sample_value(f.agg, i, WALL);
			calls += tf_agg_sample_value(f.agg, i, CALLS);
			if (tf_agg_node_get(f.agg, s.node)->depth > maxdepth)
				maxdepth = tf_agg_node_get(f.agg, s.node)->depth;
		}
		assert_int_equal(wall, 10000);  /* the outermost region's span */
		assert_int_equal(calls, 5000 + sorted);
		assert_int_equal(maxdepth, 4096);
		fx_free(&f);
	}
	/* streamed: an exit is looked for among the innermost 4096 open regions only */
	fx f;
	fx_init(&f, 0);
	ev(&f, TF_EV_BEGIN, "bottom", 0, 0);
	for (int i = 0; i < 4096; i++)
		ev(&f, TF_EV_BEGIN, "x", 1 + i, 0);
	ev(&f, TF_EV_END, "bottom", 5000, 0); /* 4097 levels down: not searched, dropped */
	ev(&f, TF_EV_END, "x", 5001, 0);
	done(&f);
	const tf_diag *d = tf_ctx_diag(f.ctx);
	assert_int_equal(d->n[TF_DIAG_end_without_begin], 1);
	assert_int_equal(d->n[TF_DIAG_exit_mismatch], 0);
	assert_int_equal(d->n[TF_DIAG_begin_unclosed], 4096);
	fx_free(&f);
}

static void test_pprof_encode(void **state)
{
	fx f;
	fx_init(&f, 1);
	ev(&f, TF_EV_COMPLETE, "train_step", 0, 100);
	ev(&f, TF_EV_COMPLETE, "torch/nn/module.py(1501): _call_impl", 10, 50);
	ev(&f, TF_EV_COMPLETE, "aten::add", 20, 10);
	done(&f);
	tf_agg_meta_get(f.agg)->main_file = tf_strtab_intern_cstr(tf_agg_strtab(f.agg), "trace.json");
	unsigned char *buf;
	size_t len;
	assert_int_equal(tf_pprof_encode(f.agg, &buf, &len, NULL), 0);
	Perftools__Profiles__Profile *p = perftools__profiles__profile__unpack(NULL, len, buf);
	assert_non_null(p);
	assert_string_equal(p->string_table[0], "");
	assert_int_equal(p->n_sample_type, 2);
	assert_string_equal(p->string_table[p->sample_type[1]->type], "wall");
	assert_string_equal(p->string_table[p->default_sample_type], "wall");
	assert_int_equal(p->n_sample, 3);
	assert_int_equal(p->n_location, 3);
	int64_t total = 0;
	for (size_t i = 0; i < p->n_sample; i++) {
		total += p->sample[i]->value[1];
		for (size_t k = 0; k < p->sample[i]->n_location_id; k++)
			assert_true(p->sample[i]->location_id[k] >= 1 && p->sample[i]->location_id[k] <= 3);
		assert_int_equal(p->sample[i]->n_label, 2);
	}
	assert_int_equal(total, 100); /* self times add up to the busy time */
	int found = 0;
	for (size_t i = 0; i < p->n_function; i++) {
		assert_int_equal(p->function[i]->id, i + 1);
		/* named by the whole frame, as top prints it; file and line beside;
		 * no system name (pprof would "demangle" one equal to the name) */
		assert_string_equal(p->string_table[p->function[i]->system_name], "");
		if (!strcmp(p->string_table[p->function[i]->name], "torch/nn/module.py(1501): _call_impl")) {
			assert_string_equal(p->string_table[p->function[i]->filename], "torch/nn/module.py");
			assert_int_equal(p->function[i]->start_line, 1501);
			found = 1;
		}
	}
	assert_true(found);
	/* one mapping, symbolized, named after the input; every location in it */
	assert_int_equal(p->n_mapping, 1);
	assert_int_equal(p->mapping[0]->id, 1);
	assert_string_equal(p->string_table[p->mapping[0]->filename], "trace.json");
	assert_int_equal(p->mapping[0]->memory_start, 0);
	assert_int_equal(p->mapping[0]->memory_limit, 0);
	assert_true(p->mapping[0]->has_functions && p->mapping[0]->has_filenames && p->mapping[0]->has_line_numbers);
	for (size_t i = 0; i < p->n_location; i++)
		assert_int_equal(p->location[i]->mapping_id, 1);
	/* the leaf comes first */
	for (size_t i = 0; i < p->n_sample; i++)
		if (p->sample[i]->n_location_id == 3) {
			uint64_t leaf = p->sample[i]->location_id[0];
			uint64_t fid = p->location[leaf - 1]->line[0]->function_id;
			assert_string_equal(p->string_table[p->function[fid - 1]->name], "aten::add");
			assert_int_equal(p->location[1]->line[0]->line, 1501);
		}
	/* deterministic */
	unsigned char *buf2;
	size_t len2;
	assert_int_equal(tf_pprof_encode(f.agg, &buf2, &len2, NULL), 0);
	assert_int_equal(len, len2);
	assert_memory_equal(buf, buf2, len);
	perftools__profiles__profile__free_unpacked(p, NULL);
	free(buf);
	free(buf2);
	fx_free(&f);
}

/* The writer encodes profile.proto by hand; its bytes must be protobuf-c's
 * own encoding of the same message (so profiles stay what the protobuf-c
 * encoder wrote): unpack with protobuf-c, pack again, compare.  The agg has
 * what the encoding has to get right: dense and sparse types (more than
 * TF_AGG_DENSE_TYPES), negative and extreme values, string and numeric
 * labels, a path deeper than 127 frames and more than 127 types (multi-byte
 * lengths), a long string, an all-zero and a root sample (left out). */
static void check_canonical(tf_agg *a, int ntypes_expect, size_t nsamples_expect)
{
	unsigned char *buf;
	size_t len;
	assert_int_equal(tf_pprof_encode(a, &buf, &len, NULL), 0);
	Perftools__Profiles__Profile *p = perftools__profiles__profile__unpack(NULL, len, buf);
	assert_non_null(p);
	assert_int_equal(p->n_sample_type, (size_t)ntypes_expect);
	assert_int_equal(p->n_sample, nsamples_expect);
	size_t len2 = perftools__profiles__profile__get_packed_size(p);
	unsigned char *buf2 = malloc(len2);
	assert_non_null(buf2);
	perftools__profiles__profile__pack(p, buf2);
	assert_int_equal(len, len2);
	assert_memory_equal(buf, buf2, len);
	/* each sample lists one value per type, in type order, zeros included */
	for (size_t i = 0; i < p->n_sample; i++)
		assert_int_equal(p->sample[i]->n_value, (size_t)ntypes_expect);
	perftools__profiles__profile__free_unpacked(p, NULL);
	free(buf);
	free(buf2);
}

static void test_pprof_encode_canonical(void **state)
{
	for (int variant = 0; variant < 2; variant++) {
		tf_strtab *st = tf_strtab_new();
		tf_agg *a = tf_agg_new(st);
		int nt = variant ? 300 : 12;
		char name[64];
		for (int t = 0; t < nt; t++) {
			snprintf(name, sizeof(name), "type%d", t);
			assert_int_equal(tf_agg_type(a, name, t % 3 ? "count" : "nanoseconds"), t);
		}
		uint32_t n = TF_AGG_ROOT, deep = 0;
		for (int d = 0; d < 200; d++) {
			snprintf(name, sizeof(name), d % 2 ? "f%d" : "dir/file.py(%d): fn", d);
			n = tf_agg_child(a, n, tf_strtab_intern_cstr(st, name));
			if (d == 0)
				deep = n;
		}
		char longname[400];
		memset(longname, 'x', sizeof(longname) - 1);
		longname[sizeof(longname) - 1] = '\0';
		uint32_t lng = tf_agg_child(a, deep, tf_strtab_intern_cstr(st, longname));
		uint32_t zero = tf_agg_child(a, deep, tf_strtab_intern_cstr(st, "zero"));
		tf_label l[3] = { { tf_strtab_intern_cstr(st, "rank"), tf_strtab_intern_cstr(st, "3"), 0, 0 },
				  { tf_strtab_intern_cstr(st, "bytes"), 0, -5, tf_strtab_intern_cstr(st, "bytes") },
				  { tf_strtab_intern_cstr(st, "n"), 0, 7, 0 } };
		uint32_t ls0 = tf_agg_labelset(a, NULL, 0), ls3 = tf_agg_labelset(a, l, 3);
		assert_int_equal(tf_agg_add(a, n, ls3, 0, 1), 0);
		assert_int_equal(tf_agg_add(a, n, ls3, nt - 1, INT64_MIN), 0); /* sparse, negative */
		assert_int_equal(tf_agg_add(a, n, ls0, 9, -1), 0);
		assert_int_equal(tf_agg_add(a, n, ls0, 1, INT64_MAX), 0);
		assert_int_equal(tf_agg_add(a, lng, ls3, 10, 300), 0);
		assert_int_equal(tf_agg_add(a, deep, ls0, 2, 5), 0);
		assert_int_equal(tf_agg_add(a, zero, ls0, 11, 0), 0);     /* all zero: left out */
		assert_int_equal(tf_agg_add(a, TF_AGG_ROOT, ls0, 3, 9), 0); /* the root: left out */
		int64_t *all = calloc((size_t)nt, sizeof(int64_t));
		for (int t = 0; t < nt; t++)
			all[t] = t % 2 ? t : -t;
		assert_int_equal(tf_agg_add_values(a, deep, ls3, all), 0);
		free(all);
		/* the values read back: dense and sparse, zeros where nothing was added */
		int64_t *v = calloc((size_t)nt, sizeof(int64_t));
		for (size_t i = 0; i < tf_agg_nsamples(a); i++) {
			tf_agg_sample_values(a, i, v);
			for (int t = 0; t < nt; t++)
				assert_int_equal(v[t], tf_agg_sample_value(a, i, t));
		}
		free(v);
		if (!variant) {
			tf_agg_meta *m = tf_agg_meta_get(a);
			m->time_nanos = -1;
			m->duration_nanos = 1000;
			m->period = 0;
			m->main_file = tf_strtab_intern_cstr(st, "trace.json");
			tf_agg_set_default_type(a, 1);
			assert_int_equal(tf_agg_comment(a, "a comment"), 0);
			assert_int_equal(tf_agg_comment(a, ""), 0);
		}
		check_canonical(a, nt, 5);
		tf_agg_free(a);
		tf_strtab_free(st);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_strtab),
		cmocka_unit_test(test_ctx_twin),
		cmocka_unit_test(test_end_split),
		cmocka_unit_test(test_nesting_x),
		cmocka_unit_test(test_begin_end_equal_ts),
		cmocka_unit_test(test_streamed),
		cmocka_unit_test(test_streamed_paths),
		cmocka_unit_test(test_overlap),
		cmocka_unit_test(test_counters),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_extreme_values),
		cmocka_unit_test(test_depth_limit),
		cmocka_unit_test(test_pprof_encode),
		cmocka_unit_test(test_pprof_encode_canonical),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
