/* test_filter.c - the input filters (include/tracefold/filter.h): the
 * --ranks LIST and --window time parsers, and the span filter on a
 * hand-made stream (spans held back until they reach the window, clipping,
 * recomputed self times, events, left-out tracks). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include "tracefold/ctx.h"
#include "tracefold/filter.h"

static void test_ranks_parse(void **st)
{
	(void)st;
	tf_rank_range *r;
	size_t n;
	tf_error e;
	assert_int_equal(tf_ranks_parse("0,2,5-7", &r, &n, &e), 0);
	assert_int_equal(n, 3);
	assert_true(r[0].lo == 0 && r[0].hi == 0 && r[1].lo == 2 && r[1].hi == 2 && r[2].lo == 5 && r[2].hi == 7);
	free(r);
	assert_int_equal(tf_ranks_parse("12", &r, &n, &e), 0);
	assert_true(n == 1 && r[0].lo == 12 && r[0].hi == 12);
	free(r);
	static const char *bad[] = { "", ",", "1,", ",1", "1,,2", "a", "1-", "-1", "3-1", "1-2-3", " 1", "1 ",
				     "1.5", "99999999999999999999", NULL };
	for (int i = 0; bad[i]; i++) {
		tf_error_clear(&e);
		assert_int_equal(tf_ranks_parse(bad[i], &r, &n, &e), TF_EUSAGE);
		assert_null(r);
		assert_int_equal(n, 0);
		assert_non_null(strstr(e.msg, "--ranks"));
	}
	tf_error_clear(&e);
	tf_ranks_parse("0,5-x", &r, &n, &e);
	assert_non_null(strstr(e.msg, "'5-x'"));
}

static void test_time_parse(void **st)
{
	(void)st;
	struct { const char *s; int64_t ns; } good[] = {
		{ "0s", 0 }, { "1s", 1000000000 }, { "1.5s", 1500000000 }, { "250ms", 250000000 },
		{ "10us", 10000 }, { "100ns", 100 }, { "0.000000001s", 1 }, { ".5ms", 500000 },
		{ "1.2340us", 1234 }, { "1795346157100000000ns", 1795346157100000000 },
		{ "1795346157.1s", 1795346157100000000 }, { "9223372036854775807ns", INT64_MAX },
	};
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		int64_t ns = -1;
		tf_error e;
		assert_int_equal(tf_time_parse(good[i].s, &ns, &e), 0);
		assert_true(ns == good[i].ns);
	}
	static const char *bad[] = { "", "5", "1.5", "s", ".s", "1.s", "1e3s", "-1s", "+1s", "1 s", "1sec",
				     "1.0000000001s", "0.5ns", "9223372036854775808ns", "9300000000s", NULL };
	for (int i = 0; bad[i]; i++) {
		int64_t ns;
		tf_error e;
		tf_error_clear(&e);
		assert_int_equal(tf_time_parse(bad[i], &ns, &e), TF_EUSAGE);
		assert_true(e.msg[0]);
	}
}

static void test_window_parse(void **st)
{
	(void)st;
	tf_window w;
	tf_error e;
	int64_t a, b;
	assert_int_equal(tf_window_parse("10s:20s", &w, &e), 0);
	assert_true(w.has_start && w.has_end && !w.start_abs && !w.end_abs && tf_window_relative(&w));
	assert_int_equal(tf_window_resolve(&w, 1000, &a, &b, &e), 0);
	assert_true(a == 10000001000 && b == 20000001000);
	assert_int_equal(tf_window_parse(":5s", &w, &e), 0);
	assert_true(!w.has_start && w.has_end);
	assert_int_equal(tf_window_resolve(&w, 7, &a, &b, &e), 0);
	assert_true(a == INT64_MIN && b == 5000000007);
	assert_int_equal(tf_window_parse("@100ns:@200ns", &w, &e), 0);
	assert_false(tf_window_relative(&w));
	assert_int_equal(tf_window_resolve(&w, 999, &a, &b, &e), 0);
	assert_true(a == 100 && b == 200);
	/* mixed: START < END is known only once resolved */
	assert_int_equal(tf_window_parse("@100ns:50ns", &w, &e), 0);
	assert_int_equal(tf_window_resolve(&w, 10, &a, &b, &e), TF_EUSAGE);
	assert_int_equal(tf_window_resolve(&w, 60, &a, &b, &e), 0);
	static const char *bad[] = { "", "5s", "5:10s", "1s:1s", "2s:1s", "@2s:@1s", "1s:2s:3s", "x:", ":1", NULL };
	for (int i = 0; bad[i]; i++)
		assert_int_equal(tf_window_parse(bad[i], &w, &e), TF_EUSAGE);
	assert_int_equal(tf_window_parse(":", &w, &e), 0);
	assert_false(tf_window_relative(&w));
}

/* ---- the span filter on a hand-made stream ---- */

typedef struct rec {
	tf_span_sink spans;
	char log[2048];
} rec;

static void say(rec *r, const char *fmt, long long a, long long b, long long c)
{
	char line[96];
	snprintf(line, sizeof(line), fmt, a, b, c);
	strncat(r->log, line, sizeof(r->log) - strlen(r->log) - 1);
}

static int r_open(tf_span_sink *k, const tf_span *s)
{
	say((rec *)k, "o%lld@%lld ", s->name, s->start_ns, 0);
	return 0;
}

static int r_close(tf_span_sink *k, const tf_span *s)
{
	say((rec *)k, "c%lld[%lld,%lld]", s->name, s->start_ns, s->end_ns);
	say((rec *)k, "s%lld ", s->self_ns, 0, 0);
	return 0;
}

static int r_event(tf_span_sink *k, const tf_event *ev, uint32_t node)
{
	say((rec *)k, "e@%lld/%lld ", ev->ts_ns, node, 0);
	return 0;
}

static tf_span sp(uint32_t track, tf_str name, uint32_t depth, int64_t a, int64_t b, int64_t self)
{
	return (tf_span){ .track = track, .node = name, .depth = depth, .name = name, .start_ns = a, .end_ns = b,
			  .self_ns = self };
}

static void test_span_filter(void **st)
{
	(void)st;
	tf_ctx *ctx = tf_ctx_new();
	uint32_t t0 = tf_ctx_track(ctx, 0, 1, 1), t1 = tf_ctx_track(ctx, 0, 2, 2);
	tf_ctx_track_get(ctx, t0)->rank = 0;
	tf_ctx_track_get(ctx, t1)->rank = 1;
	tf_rank_range r0 = { 0, 0 };
	tf_filter_opts o = { .ranks = &r0, .nranks = 1, .ranks_text = "0", .window_text = "10ns:20ns" };
	tf_filter *f = tf_filter_new(ctx, &o, 10, 20, false, 0);
	rec r = { .spans = { .open = r_open, .close = r_close, .event = r_event, .event_kinds = ~0u } };
	tf_filter_add_consumer(f, &r.spans);
	tf_span_sink *k = tf_filter_spans(f);
	/* track 0 (streamed: ends unknown at open):
	 *   1 [0,30] > 2 [2,5], 3 [8,12] > 4 [9,9]; 5 [15,25]; 6 [20,22]; an event at 9 and one at 11 */
	tf_span s1 = sp(t0, 1, 1, 0, TF_SPAN_END_UNKNOWN, 0), s2 = sp(t0, 2, 2, 2, TF_SPAN_END_UNKNOWN, 0);
	k->open(k, &s1);
	k->open(k, &s2);
	s2.end_ns = 5;
	s2.self_ns = 3;
	k->close(k, &s2); /* before the window: left out */
	tf_span s3 = sp(t0, 3, 2, 8, TF_SPAN_END_UNKNOWN, 0), s4 = sp(t0, 4, 3, 9, TF_SPAN_END_UNKNOWN, 0);
	k->open(k, &s3);
	k->open(k, &s4);
	tf_event ev = { .kind = TF_EV_COUNTER, .track = t0, .ts_ns = 9 };
	k->event(k, &ev, 4); /* before the window: left out, nothing handed on yet */
	s4.end_ns = 9;
	k->close(k, &s4); /* zero length before the window: left out */
	assert_string_equal(r.log, "");
	ev.ts_ns = 11;
	k->event(k, &ev, 3); /* inside: 1 and 3 are handed on first, clipped to 10 */
	s3.end_ns = 12;
	s3.self_ns = 4;
	k->close(k, &s3);
	tf_span s5 = sp(t0, 5, 2, 15, TF_SPAN_END_UNKNOWN, 0), s6 = sp(t0, 6, 2, 25, TF_SPAN_END_UNKNOWN, 0);
	k->open(k, &s5);
	s5.end_ns = 25;
	s5.self_ns = 10;
	k->close(k, &s5);
	k->open(k, &s6); /* after the window */
	s6.end_ns = 27;
	k->close(k, &s6);
	s1.end_ns = 30;
	s1.self_ns = 30 - 3 - 4 - 10 - 2;
	k->close(k, &s1);
	/* 1: clipped to [10,20], self = 10 - 2 (3 from 10 to 12) - 5 (5 from 15 to 20) = 3 */
	assert_string_equal(r.log, "o1@10 o3@10 e@11/3 c3[10,12]s2 o5@15 c5[15,20]s5 c1[10,20]s3 ");
	/* track 1 (rank 1): left out whole */
	tf_span u = sp(t1, 7, 1, 12, 14, 2);
	k->open(k, &u);
	k->close(k, &u);
	assert_string_equal(r.log, "o1@10 o3@10 e@11/3 c3[10,12]s2 o5@15 c5[15,20]s5 c1[10,20]s3 ");
	const tf_diag *d = tf_ctx_diag(ctx);
	assert_int_equal(d->n[TF_DIAG_ranks_tracks_out], 1);
	assert_int_equal(d->n[TF_DIAG_ranks_spans_out], 1);
	assert_int_equal(d->n[TF_DIAG_window_spans_out], 3); /* 2, 4, 6 */
	assert_int_equal(d->n[TF_DIAG_window_clipped], 3);  /* 1, 3, 5 */
	assert_int_equal(d->ns[TF_DIAG_window_clipped], 20 + 2 + 5);
	assert_int_equal(d->n[TF_DIAG_window_events_out], 1);
	tf_error e;
	tf_error_clear(&e);
	assert_int_equal(tf_filter_check(f, &e), 0);
	/* a span that closes before the window, with nothing inside it: nothing handed on */
	r.log[0] = 0;
	tf_span p = sp(t0, 8, 1, 1, TF_SPAN_END_UNKNOWN, 0);
	k->open(k, &p);
	p.end_ns = 10;
	k->close(k, &p);
	/* one that starts before and closes inside, its child wholly inside: self from the clipped parts */
	tf_span q = sp(t0, 9, 1, 5, 18, 0), qc = sp(t0, 10, 2, 12, 14, 2);
	k->open(k, &q);
	k->open(k, &qc);
	k->close(k, &qc);
	q.self_ns = 13 - 2;
	k->close(k, &q);
	assert_string_equal(r.log, "o9@10 o10@12 c10[12,14]s2 c9[10,18]s6 ");
	tf_filter_free(f);
	/* nothing kept: an error naming the ranks present */
	tf_rank_range r5 = { 5, 5 };
	tf_filter_opts o5 = { .ranks = &r5, .nranks = 1, .ranks_text = "5" };
	f = tf_filter_new(ctx, &o5, INT64_MIN, INT64_MAX, false, 0);
	k = tf_filter_spans(f);
	k->open(k, &u);
	k->close(k, &u);
	tf_error_clear(&e);
	assert_int_equal(tf_filter_check(f, &e), TF_EFORMAT);
	assert_non_null(strstr(e.msg, "ranks present: 0 1"));
	tf_filter_free(f);
	tf_ctx_free(ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ranks_parse),
		cmocka_unit_test(test_time_parse),
		cmocka_unit_test(test_window_parse),
		cmocka_unit_test(test_span_filter),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
