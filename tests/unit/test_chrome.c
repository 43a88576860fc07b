/* test_chrome.c - the Chrome trace-event JSON reader: number conversion,
 * chunk boundaries anywhere, escapes, top-level forms, phases, tracks,
 * metadata, errors with byte offsets, sniffing. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tracefold/reader.h"
#include "tracefold/io.h"
#include "../../src/read/chrome.h"

/* ---- a recording sink ---- */

typedef struct rec {
	tf_sink sink;
	tf_event *ev;
	size_t n, cap;
	int ends;
	int stop_after; /* >0: return TF_ESTOP at that event */
} rec;

static int rec_event(tf_sink *s, const tf_event *ev)
{
	rec *r = tf_container_of(s, rec, sink);
	if (r->n == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 64;
		r->ev = realloc(r->ev, r->cap * sizeof(*r->ev));
		assert_non_null(r->ev);
	}
	r->ev[r->n++] = *ev;
	if (r->stop_after && (int)r->n == r->stop_after)
		return TF_ESTOP;
	return 0;
}

typedef struct run {
	tf_ctx *ctx;
	rec rec;
	tf_error err;
	int rc;
} run;

static void run_init(run *u)
{
	memset(u, 0, sizeof(*u));
	u->ctx = tf_ctx_new();
	assert_non_null(u->ctx);
	u->rec.sink.event = rec_event;
	tf_error_clear(&u->err);
}

static void run_free(run *u)
{
	free(u->rec.ev);
	tf_ctx_free(u->ctx);
}

static int parse_chunked(run *u, const char *json, size_t n, size_t chunk)
{
	u->rc = tf_chrome_parse_buffer("t.json", 0, u->ctx, &u->rec.sink, json, n, chunk, &u->err);
	return u->rc;
}

static int parse(run *u, const char *json)
{
	return parse_chunked(u, json, strlen(json), 0);
}

static uint64_t diag(run *u, tf_diag_id id) { return tf_ctx_diag(u->ctx)->n[id]; }

static const char *S(run *u, tf_str id) { return tf_strtab_get(tf_ctx_strtab(u->ctx), id); }

/* accounting invariant: events_read == per-kind counters + skips */
static void check_accounting(run *u)
{
	const tf_diag *d = tf_ctx_diag(u->ctx);
	uint64_t sum = 0;
	for (int i = TF_DIAG_ev_duration; i <= TF_DIAG_ev_tracer; i++)
		sum += d->n[i];
	sum += d->n[TF_DIAG_truncated_record] + d->n[TF_DIAG_bad_event] + d->n[TF_DIAG_trace_span];
	assert_int_equal(d->n[TF_DIAG_events_read], sum);
	uint64_t passed = d->n[TF_DIAG_events_read] - d->n[TF_DIAG_ev_other] - d->n[TF_DIAG_ev_tracer] -
			  d->n[TF_DIAG_truncated_record] - d->n[TF_DIAG_bad_event] - d->n[TF_DIAG_trace_span];
	assert_int_equal(passed, u->rec.n);
}

/* Text signature of everything a run produced. */
static char *signature(run *u)
{
	size_t cap = 1 << 16, len = 0;
	char *b = malloc(cap);
	assert_non_null(b);
	b[0] = 0;
#define APP(...)                                                               \
	do {                                                                   \
		int k_ = snprintf(b + len, cap - len, __VA_ARGS__);            \
		assert_true(k_ >= 0 && (size_t)k_ < cap - len);                \
		len += (size_t)k_;                                             \
	} while (0)
	APP("rc=%d off=%lld\n", u->rc, (long long)u->err.offset);
	for (size_t i = 0; i < u->rec.n; i++) {
		const tf_event *e = &u->rec.ev[i];
		APP("%llu %d %c t%d %s|%s ts=%lld dur=%lld v=%g id=%llu\n", (unsigned long long)e->index,
		    e->kind, e->phase, (int)e->track, S(u, e->name), S(u, e->cat), (long long)e->ts_ns,
		    (long long)e->dur_ns, e->value, (unsigned long long)e->id);
	}
	for (int i = 0; i < TF_DIAG_COUNT; i++)
		if (diag(u, (tf_diag_id)i))
			APP("%s=%llu\n", tf_diag_name((tf_diag_id)i), (unsigned long long)diag(u, (tf_diag_id)i));
	for (uint32_t t = 0; t < tf_ctx_track_count(u->ctx); t++) {
		const tf_track *tr = tf_ctx_track_get(u->ctx, t);
		APP("track %u %s/%s %s/%s rank=%lld kind=%d sort=%lld ns=%d\n", t, S(u, tr->process_key),
		    S(u, tr->thread_key), S(u, tr->process_name), S(u, tr->thread_name), (long long)tr->rank,
		    tr->kind, (long long)tr->sort_index, tr->needs_sort);
	}
	return b;
}

/* json[0..n) fed in two pieces, split at every byte: each time what one
 * piece gives (signature: want) */
static void every_split(const char *json, size_t n, const char *want)
{
	for (size_t k = 0; k <= n; k++) {
		run v;
		run_init(&v);
		tf_chrome *r = tf_chrome_new("t.json", 0, v.ctx, &v.rec.sink);
		v.rc = tf_chrome_feed(r, (const unsigned char *)json, k, &v.err);
		if (v.rc == 0)
			v.rc = tf_chrome_feed(r, (const unsigned char *)json + k, n - k, &v.err);
		if (v.rc == 0)
			v.rc = tf_chrome_finish(r, &v.err);
		tf_chrome_free(r);
		char *got = signature(&v);
		if (strcmp(got, want) != 0)
			fail_msg("split at %zu differs:\n%s\nwant:\n%s", k, got, want);
		free(got);
		run_free(&v);
	}
}

/* ---- number conversion ---- */

static void test_us_to_ns(void **state)
{
	(void)state;
	static const struct { const char *s; int ok; long long ns; } c[] = {
		{ "26831", 0, 26831000LL },
		{ "26831.5", 0, 26831500LL },
		{ "1.5", 0, 1500LL },
		{ "0", 0, 0 },
		{ "-0", 0, 0 },
		{ "0.000", 0, 0 },
		{ "1623143089861.123", 0, 1623143089861123LL },
		{ "4203669603018.756", 0, 4203669603018756LL },
		{ "1694039968933321", 0, 1694039968933321000LL },
		{ "1.0005", 0, 1000LL },      /* 1000.5 ns: half to even -> 1000 */
		{ "1.0015", 0, 1002LL },      /* 1001.5 -> 1002 */
		{ "1.00051", 0, 1001LL },     /* above half */
		{ "1.00049999", 0, 1000LL },
		{ "1.0004", 0, 1000LL },
		{ "0.0005", 0, 0LL },         /* 0.5 -> 0 (even) */
		{ "0.0015", 0, 2LL },
		{ "-5.5", 0, -5500LL },
		{ "-1.0015", 0, -1002LL },
		{ "-26831", 0, -26831000LL },
		{ "1e3", 0, 1000000LL },
		{ "1E3", 0, 1000000LL },
		{ "1.5e+2", 0, 150000LL },
		{ "2.5e-3", 0, 2LL },         /* 2.5 ns -> 2 */
		{ "3.5e-3", 0, 4LL },
		{ "1.623143089861123e12", 0, 1623143089861123LL },
		{ "123456789e-9", 0, 123LL }, /* 0.123456789 us */
		{ "0.1234567890123456789012345", 0, 123LL },
		{ "1751410836000000.1234", 0, 1751410836000000123LL }, /* 20 digits */
		{ "1751410836000000.1235", 0, 1751410836000000124LL }, /* ...123.5 -> 124 */
		{ "1751410836000000.12250", 0, 1751410836000000122LL }, /* 122.5 -> 122 */
		{ "1751410836000000.122500001", 0, 1751410836000000123LL },
		{ "9223372036854775.807", 0, 9223372036854775807LL },
		{ "-9223372036854775.807", 0, -9223372036854775807LL },
		{ "9223372036854775.808", -1, 0 },
		{ "1e20", -1, 0 },
		{ "1e-30", 0, 0 },
		{ "0e999999999", 0, 0 },
		{ "+7", 0, 7000 },
		{ ".5", 0, 500 },
		{ "5.", 0, 5000 },
		{ "007", 0, 7000 },
		{ "", -1, 0 },
		{ "-", -1, 0 },
		{ ".", -1, 0 },
		{ "abc", -1, 0 },
		{ "1e", -1, 0 },
		{ "1e+", -1, 0 },
		{ "1.2.3", -1, 0 },
		{ " 1", -1, 0 },
		{ "1 ", -1, 0 },
		{ "0x10", -1, 0 },
		{ "nan", -1, 0 },
	};
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		int64_t ns = 12345;
		int rc = tf_chrome_us_to_ns(c[i].s, strlen(c[i].s), &ns);
		if (rc != c[i].ok || (rc == 0 && ns != c[i].ns))
			fail_msg("'%s': rc %d ns %lld, want rc %d ns %lld", c[i].s, rc, (long long)ns, c[i].ok,
				 c[i].ns);
	}
}

/* ts/dur as numbers and strings through the whole reader */
static void test_ts_forms(void **state)
{
	(void)state;
	run u;
	run_init(&u);
	assert_int_equal(parse(&u, "[{\"ph\":\"X\",\"ts\":26831,\"dur\":\"1.0005\",\"pid\":1,\"tid\":1,\"name\":\"a\"},"
				   "{\"ph\":\"X\",\"ts\":\"26831.5\",\"dur\":1e3,\"pid\":1,\"tid\":1,\"name\":\"b\"},"
				   "{\"ph\":\"X\",\"ts\":-2.5,\"dur\":0,\"pid\":1,\"tid\":1,\"name\":\"c\"},"
				   "{\"ph\":\"X\",\"ts\":\"1623143089861.123\",\"dur\":0.001,\"pid\":1,\"tid\":1}]"),
			 0);
	assert_int_equal(u.rec.n, 4);
	assert_int_equal(u.rec.ev[0].ts_ns, 26831000);
	assert_int_equal(u.rec.ev[0].dur_ns, 1000);
	assert_int_equal(u.rec.ev[1].ts_ns, 26831500);
	assert_int_equal(u.rec.ev[1].dur_ns, 1000000);
	assert_int_equal(u.rec.ev[2].ts_ns, -2500);
	assert_int_equal(u.rec.ev[3].ts_ns, 1623143089861123LL);
	assert_int_equal(u.rec.ev[3].dur_ns, 1);
	assert_int_equal(u.rec.ev[3].name, 0);
	check_accounting(&u);
	run_free(&u);
}

/* ---- chunk boundaries ---- */

static const char tricky[] =
	"\xEF\xBB\xBF \n{\"otherData\": {\"x\": [1, 2, {\"y\": \"a]}\\\"b\"}], \"z\": null},\n"
	"\"displayTimeUnit\": \"ms\", \"n\": -12.5e3, \"t\": true,\n"
	"\"traceEvents\": [\n"
	"  {\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 7, \"tid\": 0, \"args\": {\"name\": \"GPU 0\"}},\n"
	"  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::add\\u0021 \\\"q\\\" \\\\ \\ud83d\\ude00\", "
	"\"pid\": 1, \"tid\": \"1\", \"ts\": 1623143089861.123, \"dur\": \"26831.5\", "
	"\"args\": {\"Input Dims\": [[1, 2], [3]], \"s\": \"}{][\\\\\", \"n\": {\"deep\": [{}, []]}}},\n"
	"  {\"args\":{\"a\":1},\"ph\":\"B\",\"name\":\"b\u00e9\",\"pid\":1,\"tid\":1,\"ts\":1e3},\n"
	"  {\"ph\":\"E\",\"pid\":\"1\",\"tid\":1,\"ts\":\"2000.0005\"},\n"
	"  {\"ph\":\"C\",\"name\":\"mem\",\"pid\":1,\"ts\":5,\"args\":{\"used\":10.5,\"free\":-3,\"label\":\"x\"}},\n"
	"  {\"ph\":\"s\",\"id\":\"0x1F\",\"pid\":1,\"tid\":1,\"ts\":6,\"name\":\"f\",\"cat\":\"ac2g\"},\n"
	"  {\"ph\":\"b\",\"id2\":{\"local\":\"0x2a\"},\"pid\":7,\"tid\":3,\"ts\":7,\"cat\":\"kernel\"},\n"
	"  {\"ph\":\"P\",\"pid\":1,\"tid\":1,\"ts\":8},\n"
	"  {},\n"
	"  {\"ph\":\"i\",\"pid\":1,\"tid\":1,\"s\":\"t\",\"ts\":9,\"name\":\"[memory]\"},\n"
	"  17\n"
	"], \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": 3, \"world_size\": 4},\n"
	"\"tail\": \"\\\\\\\"\"}\n  ";

static void test_split_everywhere(void **state)
{
	(void)state;
	size_t n = sizeof(tricky) - 1;
	run u;
	run_init(&u);
	assert_int_equal(parse_chunked(&u, tricky, n, 0), 0);
	char *want = signature(&u);
	check_accounting(&u);
	assert_int_equal(u.rec.n, 9); /* M, X, B, E, 2 x C, s, b, i */
	assert_int_equal(diag(&u, TF_DIAG_ev_other), 1);
	assert_int_equal(diag(&u, TF_DIAG_bad_event), 2);
	run_free(&u);
	every_split(tricky, n, want);
	for (size_t chunk = 1; chunk <= 9; chunk++) {
		run v;
		run_init(&v);
		parse_chunked(&v, tricky, n, chunk);
		char *got = signature(&v);
		if (strcmp(got, want) != 0)
			fail_msg("chunks of %zu differ:\n%s\nwant:\n%s", chunk, got, want);
		free(got);
		run_free(&v);
	}
	free(want);
}

static void test_tricky_values(void **state)
{
	(void)state;
	run u;
	run_init(&u);
	assert_int_equal(parse_chunked(&u, tricky, sizeof(tricky) - 1, 0), 0);
	const tf_event *e = u.rec.ev;
	assert_int_equal(e[0].kind, TF_EV_METADATA);
	assert_int_equal(e[0].track, TF_TRACK_NONE);
	assert_int_equal(e[1].kind, TF_EV_COMPLETE);
	assert_string_equal(S(&u, e[1].name), "aten::add! \"q\" \\ \xF0\x9F\x98\x80");
	assert_string_equal(S(&u, e[1].cat), "cpu_op");
	assert_int_equal(e[1].ts_ns, 1623143089861123LL);
	assert_int_equal(e[1].dur_ns, 26831500);
	assert_int_equal(e[1].index, 1);
	assert_int_equal(e[2].kind, TF_EV_BEGIN);
	assert_string_equal(S(&u, e[2].name), "b\xC3\xA9");
	assert_int_equal(e[2].ts_ns, 1000000);
	assert_int_equal(e[2].track, e[1].track); /* pid 1 / tid "1" == pid 1 / tid 1 */
	assert_int_equal(e[3].kind, TF_EV_END);
	assert_int_equal(e[3].name, 0);
	assert_int_equal(e[3].ts_ns, 2000000); /* 2000000.5 -> even */
	assert_int_equal(e[3].track, e[1].track);
	assert_int_equal(e[4].kind, TF_EV_COUNTER);
	assert_string_equal(S(&u, e[4].name), "mem.used");
	assert_true(e[4].value == 10.5);
	assert_string_equal(S(&u, e[5].name), "mem.free");
	assert_true(e[5].value == -3);
	assert_int_equal(e[4].index, 4);
	assert_int_equal(e[5].index, 4);
	assert_int_equal(e[6].kind, TF_EV_FLOW);
	assert_int_equal(e[6].id, 0x1F);
	assert_int_equal(e[7].kind, TF_EV_ASYNC);
	assert_int_equal(e[7].id, 0x2a);
	assert_int_equal(e[8].kind, TF_EV_INSTANT);
	assert_int_equal(e[8].index, 9); /* P and {} took indexes 7 and 8 */
	/* tracks: (1,1), (1,""), (7,3) */
	assert_int_equal(tf_ctx_track_count(u.ctx), 3);
	for (uint32_t t = 0; t < 3; t++) {
		const tf_track *tr = tf_ctx_track_get(u.ctx, t);
		assert_true(tr->needs_sort);
		assert_int_equal(tr->rank, 3); /* distributedInfo after the events */
	}
	const tf_track *g = tf_ctx_track_get(u.ctx, e[7].track);
	assert_int_equal(g->kind, TF_TRACK_GPU);
	assert_string_equal(S(&u, g->process_name), "GPU 0");
	assert_int_equal(tf_ctx_track_get(u.ctx, e[1].track)->kind, TF_TRACK_CPU);
	run_free(&u);
}

/* An event much larger than the carry's first pieces, in small chunks. */
static void test_big_event(void **state)
{
	(void)state;
	size_t big = 300000;
	char *j = malloc(big + 200);
	assert_non_null(j);
	int k = sprintf(j, "[{\"ph\":\"X\",\"ts\":1,\"dur\":2,\"args\":{\"s\":\"");
	memset(j + k, 'x', big);
	k += (int)big;
	k += sprintf(j + k, "\"},\"name\":\"big\"},{\"ph\":\"i\",\"ts\":3}]");
	for (size_t chunk = 0; chunk <= 65536; chunk = chunk ? chunk * 4 : 1000) {
		run u;
		run_init(&u);
		assert_int_equal(parse_chunked(&u, j, (size_t)k, chunk), 0);
		assert_int_equal(u.rec.n, 2);
		assert_string_equal(S(&u, u.rec.ev[0].name), "big");
		assert_int_equal(u.rec.ev[1].ts_ns, 3000);
		run_free(&u);
	}
	free(j);
}

/* ---- top-level forms ---- */

static void test_forms(void **state)
{
	(void)state;
	static const char *ok[] = {
		"[{\"ph\":\"X\",\"ts\":1,\"dur\":1,\"pid\":1,\"tid\":1}]",
		"{\"traceEvents\":[{\"ph\":\"X\",\"ts\":1,\"dur\":1,\"pid\":1,\"tid\":1}]}",
		"{\"a\":{\"traceEvents\":[]},\"traceEvents\":[{\"ph\":\"X\",\"ts\":1,\"dur\":1,\"pid\":1,\"tid\":1}],\"b\":[]}",
		/* TAU / Chrome: no closing bracket, trailing comma */
		"[{\"ph\":\"X\",\"ts\":1,\"dur\":1,\"pid\":1,\"tid\":1},\n",
		"[{\"ph\":\"X\",\"ts\":1,\"dur\":1,\"pid\":1,\"tid\":1}",
		"[{\"ph\":\"X\",\"ts\":1,\"dur\":1,\"pid\":1,\"tid\":1},]",
		"{\"traceEvents\":[{\"ph\":\"X\",\"ts\":1,\"dur\":1,\"pid\":1,\"tid\":1},",
		" \t\r\n[ {\"ph\" : \"X\" , \"ts\" : 1 , \"dur\" : 1 } ] \n",
	};
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		run u;
		run_init(&u);
		if (parse(&u, ok[i]) != 0)
			fail_msg("form %zu: rc %d (%s)", i, u.rc, u.err.msg);
		assert_int_equal(u.rec.n, 1);
		assert_int_equal(diag(&u, TF_DIAG_truncated_record), 0);
		run_free(&u);
	}
	/* no events: the reader reads them; the commands refuse them (no
	 * usable event, tf_check_input_used) */
	static const char *empty[] = { "[]", "[ ]", "{\"traceEvents\": []}", "[" };
	for (size_t i = 0; i < sizeof(empty) / sizeof(empty[0]); i++) {
		run u;
		run_init(&u);
		assert_int_equal(parse(&u, empty[i]), 0);
		assert_int_equal(diag(&u, TF_DIAG_events_read), 0);
		run_free(&u);
	}
	/* an object without a traceEvents array is not a trace at all */
	static const char *notrace[] = { "{}", "{\"x\": 1}", "{\"events\": [{\"ph\":\"X\",\"ts\":1,\"dur\":1}]}" };
	for (size_t i = 0; i < sizeof(notrace) / sizeof(notrace[0]); i++) {
		run u;
		run_init(&u);
		assert_int_equal(parse(&u, notrace[i]), TF_EFORMAT);
		assert_non_null(strstr(u.err.msg, "without a \"traceEvents\" array"));
		run_free(&u);
	}
}

static void test_truncated(void **state)
{
	(void)state;
	static const char *t[] = {
		"[{\"ph\":\"X\",\"ts\":1,\"dur\":1},{\"ph\":\"X\",\"ts\":2,\"du",
		"[{\"ph\":\"X\",\"ts\":1,\"dur\":1},{\"ph\":\"X\",\"ts\":2,\"dur\":3",
		"[{\"ph\":\"X\",\"ts\":1,\"dur\":1},{\"name\":\"a\\",
		"[{\"ph\":\"X\",\"ts\":1,\"dur\":1},{",
		"{\"traceEvents\":[{\"ph\":\"X\",\"ts\":1,\"dur\":1},{\"args\":{\"a\":[",
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		for (size_t chunk = 0; chunk < 4; chunk++) {
			run u;
			run_init(&u);
			assert_int_equal(parse_chunked(&u, t[i], strlen(t[i]), chunk), 0);
			assert_int_equal(u.rec.n, 1);
			assert_int_equal(diag(&u, TF_DIAG_truncated_record), 1);
			assert_int_equal(diag(&u, TF_DIAG_events_read), 2);
			check_accounting(&u);
			run_free(&u);
		}
	}
}

/* ---- tracks ---- */

static void test_pid_tid(void **state)
{
	(void)state;
	run u;
	run_init(&u);
	assert_int_equal(parse(&u, "[{\"ph\":\"i\",\"ts\":1,\"pid\":7,\"tid\":25738},"
				   "{\"ph\":\"i\",\"ts\":1,\"pid\":\"7\",\"tid\":\"25738\"},"
				   "{\"ph\":\"i\",\"ts\":1,\"pid\":7,\"tid\":\"stream 7\"},"
				   "{\"ph\":\"i\",\"ts\":1,\"pid\":\"Spans\",\"tid\":\"PyTorch Profiler\"},"
				   "{\"ph\":\"i\",\"ts\":1,\"pid\":\"\\u0037\",\"tid\":25738},"
				   "{\"ph\":\"i\",\"ts\":1},"
				   "{\"ph\":\"i\",\"ts\":1,\"pid\":null,\"tid\":\"\"}]"),
			 0);
	assert_int_equal(u.rec.n, 7);
	assert_int_equal(u.rec.ev[0].track, u.rec.ev[1].track);
	assert_int_equal(u.rec.ev[0].track, u.rec.ev[4].track);
	assert_int_not_equal(u.rec.ev[0].track, u.rec.ev[2].track);
	assert_int_equal(u.rec.ev[5].track, u.rec.ev[6].track);
	assert_int_equal(tf_ctx_track_count(u.ctx), 4);
	const tf_track *t = tf_ctx_track_get(u.ctx, u.rec.ev[0].track);
	assert_string_equal(S(&u, t->process_key), "7");
	assert_string_equal(S(&u, t->thread_key), "25738");
	assert_int_equal(t->kind, TF_TRACK_CPU);
	assert_int_equal(tf_ctx_track_get(u.ctx, u.rec.ev[2].track)->kind, TF_TRACK_GPU); /* "stream 7" */
	assert_int_equal(t->rank, -1);
	run_free(&u);
}

/* Keys read straight from their bytes (chrome_event.c key_fast): keys one
 * byte off a field's name are other keys, an escaped name is not the field
 * (as before), and the same event split at every byte reads the same. */
static void test_near_keys(void **state)
{
	(void)state;
	static const char json[] =
		"[{\"ph\":\"X\",\"name\":\"real\",\"pid\":1,\"tid\":2,\"ts\":10,\"dur\":5,\"cat\":\"c\",\"args\":{},"
		"\"namf\":\"no\",\"pif\":9,\"tif\":8,\"tsx\":99,\"dux\":77,\"caT\":\"no\",\"argS\":{\"a\":1},"
		"\"ph \":\"B\",\"p\":1,\"t\":2,\"names\":\"no\",\"pids\":4},"
		"{\"ph\":\"X\",\"name\":\"n2\",\"na\\u006de\":\"esc\",\"pid\":1,\"tid\":2,\"ts\":20,\"dur\":1,\"idx\":3}]";
	size_t n = sizeof(json) - 1;
	run u;
	run_init(&u);
	assert_int_equal(parse(&u, json), 0);
	assert_int_equal(u.rec.n, 2);
	const tf_event *e = u.rec.ev;
	assert_int_equal(e[0].kind, TF_EV_COMPLETE);
	assert_string_equal(S(&u, e[0].name), "real");
	assert_string_equal(S(&u, e[0].cat), "c");
	assert_int_equal(e[0].ts_ns, 10000);
	assert_int_equal(e[0].dur_ns, 5000);
	assert_string_equal(S(&u, e[1].name), "n2");
	assert_int_equal(e[1].ts_ns, 20000);
	assert_int_equal(e[0].track, e[1].track);
	const tf_track *t = tf_ctx_track_get(u.ctx, e[0].track);
	assert_string_equal(S(&u, t->process_key), "1");
	assert_string_equal(S(&u, t->thread_key), "2");
	char *want = signature(&u);
	run_free(&u);
	every_split(json, n, want);
	free(want);
}

/* Kineto's "[memory]" events: the device named from Device Type and Id,
 * the last one remembered (memory_args): a change of device, back and
 * forth, and an unknown type each get their own name. */
static void test_memory_devices(void **state)
{
	(void)state;
	static const struct { int type, id; const char *name; } d[] = {
		{ 1, 0, "cuda:0" }, { 1, 0, "cuda:0" }, { 0, -1, "cpu" }, { 1, 0, "cuda:0" },
		{ 1, 1, "cuda:1" }, { 40, 2, "device40:2" }, { 1, 1, "cuda:1" }, { 0, -1, "cpu" },
	};
	size_t nd = sizeof(d) / sizeof(d[0]);
	char json[4096];
	size_t len = (size_t)snprintf(json, sizeof(json), "[");
	for (size_t i = 0; i < nd; i++)
		len += (size_t)snprintf(json + len, sizeof(json) - len,
					"%s{\"ph\":\"i\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":%zu,"
					"\"args\":{\"Bytes\":8,\"Addr\":%zu,\"Device Type\":%d,\"Device Id\":%d}}",
					i ? "," : "", i, 4096 * i, d[i].type, d[i].id);
	snprintf(json + len, sizeof(json) - len, "]");
	run u;
	run_init(&u);
	assert_int_equal(parse(&u, json), 0);
	assert_int_equal(u.rec.n, nd);
	for (size_t i = 0; i < nd; i++) {
		assert_true(u.rec.ev[i].flags & TF_EVF_MEMORY);
		assert_string_equal(S(&u, u.rec.ev[i].mem_device), d[i].name);
		assert_int_equal(u.rec.ev[i].mem_dev_id, d[i].id);
	}
	run_free(&u);
}

/* The last thread's track, kept (chrome_tracks.c): texts that differ by a
 * byte, by length, or only by being escaped or quoted. */
static void test_track_cache(void **state)
{
	(void)state;
	run u;
	run_init(&u);
	assert_int_equal(parse(&u, "[{\"ph\":\"i\",\"ts\":1,\"pid\":7,\"tid\":1},"
				   "{\"ph\":\"i\",\"ts\":1,\"pid\":77,\"tid\":1},"
				   "{\"ph\":\"i\",\"ts\":1,\"pid\":7,\"tid\":11},"
				   "{\"ph\":\"i\",\"ts\":1,\"pid\":\"7\",\"tid\":1},"
				   "{\"ph\":\"i\",\"ts\":1,\"pid\":\"\\u0037\",\"tid\":\"1\"},"
				   "{\"ph\":\"i\",\"ts\":1,\"pid\":8,\"tid\":1},"
				   "{\"ph\":\"i\",\"ts\":1,\"pid\":7,\"tid\":1}]"),
			 0);
	assert_int_equal(u.rec.n, 7);
	const tf_event *e = u.rec.ev;
	assert_int_not_equal(e[0].track, e[1].track);
	assert_int_not_equal(e[0].track, e[2].track);
	assert_int_not_equal(e[1].track, e[2].track);
	assert_int_equal(e[3].track, e[0].track);
	assert_int_equal(e[4].track, e[0].track);
	assert_int_not_equal(e[5].track, e[0].track);
	assert_int_equal(e[6].track, e[0].track);
	assert_int_equal(tf_ctx_track_count(u.ctx), 4);
	run_free(&u);
}

static void test_metadata(void **state)
{
	(void)state;
	run u;
	run_init(&u);
	/* names before and after the track exists; labels; sort index; rank first */
	assert_int_equal(parse(&u, "{\"distributedInfo\":{\"rank\":5},\"traceEvents\":["
				   "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":2,\"args\":{\"name\":\"main\"}},"
				   "{\"ph\":\"X\",\"ts\":1,\"dur\":1,\"pid\":1,\"tid\":2},"
				   "{\"ph\":\"X\",\"ts\":1,\"dur\":1,\"pid\":1,\"tid\":3},"
				   "{\"ph\":\"X\",\"ts\":1,\"dur\":1,\"pid\":0,\"tid\":7},"
				   "{\"ph\":\"X\",\"ts\":1,\"dur\":1,\"pid\":9,\"tid\":1,\"cat\":\"gpu_memcpy\"},"
				   "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":\"1\",\"tid\":\"3\",\"args\":{\"name\":\"w\\u00e9\"}},"
				   "{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":1,\"tid\":3,\"args\":{\"sort_index\":-4}},"
				   "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,\"args\":{\"name\":\"python\"}},"
				   "{\"name\":\"process_labels\",\"ph\":\"M\",\"pid\":0,\"tid\":0,\"args\":{\"labels\":\"GPU 0\"}},"
				   "{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":0,\"args\":{\"sort_index\":3}},"
				   "{\"args\":{\"name\":\"GPU1\"},\"ph\":\"M\",\"pid\":4,\"name\":\"process_name\",\"sort_index\":4},"
				   "{\"ph\":\"X\",\"ts\":1,\"dur\":1,\"pid\":4,\"tid\":1}"
				   "]}"),
			 0);
	assert_int_equal(diag(&u, TF_DIAG_ev_metadata), 7);
	assert_int_equal(diag(&u, TF_DIAG_ev_duration), 5);
	check_accounting(&u);
	assert_int_equal(tf_ctx_track_count(u.ctx), 5); /* metadata creates no track */
	const tf_track *t;
	t = tf_ctx_track_get(u.ctx, 0);
	assert_string_equal(S(&u, t->thread_name), "main");
	assert_string_equal(S(&u, t->process_name), "python");
	assert_int_equal(t->rank, 5);
	assert_int_equal(t->kind, TF_TRACK_CPU);
	t = tf_ctx_track_get(u.ctx, 1);
	assert_string_equal(S(&u, t->thread_name), "w\xC3\xA9");
	assert_int_equal(t->sort_index, -4);
	assert_int_equal(tf_ctx_track_get(u.ctx, 2)->kind, TF_TRACK_GPU); /* process_labels "GPU 0" */
	assert_int_equal(tf_ctx_track_get(u.ctx, 3)->kind, TF_TRACK_GPU); /* cat gpu_memcpy */
	assert_int_equal(tf_ctx_track_get(u.ctx, 4)->kind, TF_TRACK_GPU); /* process_name GPU1 */
	assert_string_equal(S(&u, tf_ctx_track_get(u.ctx, 4)->process_name), "GPU1");
	for (size_t i = 0; i < u.rec.n; i++)
		if (u.rec.ev[i].kind == TF_EV_METADATA) {
			assert_int_equal(u.rec.ev[i].track, TF_TRACK_NONE);
			assert_int_equal(u.rec.ev[i].phase, 'M');
		}
	run_free(&u);
}

/* ---- phases ---- */

/* Real traces from other tools (docs/format-chrome.md): X without dur,
 * numbers as strings, NaN/Infinity, \u0000, Kineto's Trace span. */
static void test_other_tools(void **state)
{
	(void)state;
	run u;
	run_init(&u);
	assert_int_equal(parse(&u, "{\"traceEvents\":["
				   "{\"ph\":\"X\",\"name\":\"open\",\"ts\":5,\"pid\":1,\"tid\":1},"
				   "{\"ph\":\"X\",\"name\":\"null\",\"ts\":6,\"dur\":null,\"pid\":1,\"tid\":1},"
				   "{\"ph\":\"C\",\"name\":\"action count\",\"ts\":\"7\",\"pid\":\"1\",\"args\":{\"action\":\"8.395000000000001\"}},"
				   "{\"ph\":\"C\",\"name\":\"c\",\"ts\":7,\"args\":{\"a\":\"0x10\",\"b\":\"nan\",\"c\":\"inf\",\"d\":-Infinity,\"e\":\" 1\"}},"
				   "{\"ph\":\"X\",\"ts\":NaN,\"dur\":1},{\"ph\":\"X\",\"ts\":Infinity,\"dur\":1},"
				   "{\"ph\":\"X\",\"ts\":-Infinity,\"dur\":1},{\"ph\":\"X\",\"ts\":1,\"dur\":NaN},"
				   "{\"ph\":\"X\",\"ts\":\"NaN\",\"dur\":1},"
				   "{\"ph\":\"X\",\"name\":\"a\\u0000b\",\"ts\":8,\"dur\":1},"
				   "{\"ph\":\"X\",\"cat\":\"Trace\",\"name\":\"PyTorch Profiler (0)\",\"ts\":0,\"dur\":100},"
				   "{\"ph\":\"X\",\"cat\":\"Trace\",\"name\":\"PyTorch Profiler (0)\",\"ts\":0,\"dur\":100}"
				   "]}"),
			 0);
	assert_int_equal(u.rec.n, 4);
	assert_int_equal(u.rec.ev[0].dur_ns, TF_DUR_UNTIL_END);
	assert_int_equal(u.rec.ev[1].dur_ns, TF_DUR_UNTIL_END);
	assert_int_equal(u.rec.ev[2].kind, TF_EV_COUNTER);
	assert_true(u.rec.ev[2].value == 8.395000000000001);
	assert_int_equal(u.rec.ev[2].ts_ns, 7000);
	assert_string_equal(S(&u, u.rec.ev[3].name), "a\xEF\xBF\xBD" "b"); /* U+FFFD */
	assert_int_equal(diag(&u, TF_DIAG_bad_event), 6); /* counter c has no finite number */
	assert_int_equal(diag(&u, TF_DIAG_trace_span), 2);
	check_accounting(&u);
	run_free(&u);
	/* --keep-trace-span */
	run_init(&u);
	tf_ctx_opts(u.ctx)->keep_trace_span = true;
	assert_int_equal(parse(&u, "[{\"ph\":\"X\",\"cat\":\"Trace\",\"ts\":0,\"dur\":100}]"), 0);
	assert_int_equal(u.rec.n, 1);
	assert_int_equal(diag(&u, TF_DIAG_trace_span), 0);
	run_free(&u);
}

/* JSON lines (DFTracer .pfw): events one per line without commas, with or
 * without an enclosing array; split at every byte. */
static void test_json_lines(void **state)
{
	(void)state;
	static const char *t[] = {
		"[\n{\"id\":1,\"name\":\"open\",\"ph\":\"X\",\"ts\":1,\"dur\":2,\"pid\":1,\"tid\":1}\n"
		"{\"id\":2,\"name\":\"read\",\"ph\":\"X\",\"ts\":4,\"dur\":2,\"pid\":1,\"tid\":1}\n"
		"{\"id\":3,\"name\":\"HH\",\"ph\":\"M\",\"pid\":1,\"tid\":1,\"args\":{\"name\":\"h\"}}\n]\n",
		"{\"id\":1,\"name\":\"open\",\"ph\":\"X\",\"ts\":1,\"dur\":2,\"pid\":1,\"tid\":1}\n"
		"{\"id\":2,\"name\":\"read\",\"ph\":\"X\",\"ts\":4,\"dur\":2,\"pid\":1,\"tid\":1}\r\n\n"
		"{\"id\":3,\"name\":\"HH\",\"ph\":\"M\",\"pid\":1,\"tid\":1,\"args\":{\"name\":\"h\"}}\n",
	};
	for (size_t i = 0; i < 2; i++) {
		size_t n = strlen(t[i]);
		for (size_t k = 0; k <= n; k++) {
			run v;
			run_init(&v);
			tf_chrome *r = tf_chrome_new("t.pfw", 0, v.ctx, &v.rec.sink);
			v.rc = tf_chrome_feed(r, (const unsigned char *)t[i], k, &v.err);
			if (v.rc == 0)
				v.rc = tf_chrome_feed(r, (const unsigned char *)t[i] + k, n - k, &v.err);
			if (v.rc == 0)
				v.rc = tf_chrome_finish(r, &v.err);
			tf_chrome_free(r);
			if (v.rc != 0 || v.rec.n != 3)
				fail_msg("case %zu split at %zu: rc %d, %zu events", i, k, v.rc, v.rec.n);
			assert_string_equal(S(&v, v.rec.ev[1].name), "read");
			assert_int_equal(v.rec.ev[1].ts_ns, 4000);
			check_accounting(&v);
			run_free(&v);
		}
	}
	/* without a newline between two events it is still an error */
	run u;
	run_init(&u);
	assert_int_equal(parse(&u, "[{\"ph\":\"i\",\"ts\":1} {\"ph\":\"i\",\"ts\":2}]"), TF_EFORMAT);
	run_free(&u);
	/* an object whose first key is not an event field is the object form */
	run_init(&u);
	assert_int_equal(parse(&u, "{\"otherData\":{},\"traceEvents\":[{\"ph\":\"i\",\"ts\":1}]}"), 0);
	assert_int_equal(u.rec.n, 1);
	run_free(&u);
}

/* An X whose end ts + dur is beyond int64 nanoseconds is bad_event (found
 * by fuzzing: the stack builder computed ts + dur with signed overflow). */
static void test_x_end_overflow(void **state)
{
	(void)state;
	run u;
	run_init(&u);
	assert_int_equal(parse(&u, "[{\"ph\":\"X\",\"name\":\"a\",\"ts\":9223372036854775,\"dur\":1},"
				   "{\"ph\":\"X\",\"name\":\"b\",\"ts\":9223372036854775,\"dur\":0.807},"
				   "{\"ph\":\"X\",\"name\":\"c\",\"ts\":-9223372036854775,\"dur\":-0.809}]"),
			 0);
	assert_int_equal(diag(&u, TF_DIAG_bad_event), 2);
	assert_int_equal(u.rec.n, 1);
	assert_int_equal(u.rec.ev[0].ts_ns + u.rec.ev[0].dur_ns, INT64_MAX);
	check_accounting(&u);
	run_free(&u);
}

static void test_phases(void **state)
{
	(void)state;
	run u;
	run_init(&u);
	assert_int_equal(parse(&u, "["
				   "{\"ph\":\"X\",\"ts\":1,\"dur\":1},{\"ph\":\"B\",\"ts\":1},{\"ph\":\"E\",\"ts\":1},"
				   "{\"ph\":\"i\",\"ts\":1},{\"ph\":\"I\",\"ts\":1},"
				   "{\"ph\":\"C\",\"ts\":1,\"name\":\"c\",\"args\":{\"v\":1}},"
				   "{\"ph\":\"C\",\"ts\":1,\"name\":\"c\",\"args\":{\"a\":1,\"b\":2,\"s\":\"x\"}},"
				   "{\"ph\":\"C\",\"ts\":1,\"name\":\"c\",\"args\":{}},"
				   "{\"ph\":\"M\",\"name\":\"foo\"},"
				   "{\"ph\":\"s\",\"ts\":1,\"id\":1},{\"ph\":\"t\",\"ts\":1,\"id\":1},{\"ph\":\"f\",\"ts\":1,\"id\":1,\"bp\":\"e\"},"
				   "{\"ph\":\"b\",\"ts\":1,\"id\":2},{\"ph\":\"n\",\"ts\":1,\"id\":2},{\"ph\":\"e\",\"ts\":1,\"id\":2},"
				   "{\"ph\":\"S\",\"ts\":1,\"id\":3},{\"ph\":\"F\",\"ts\":1,\"id\":3},"
				   "{\"ph\":\"P\",\"ts\":1},{\"ph\":\"R\",\"ts\":1},{\"ph\":\"O\",\"ts\":1},{\"ph\":\"N\",\"ts\":1},"
				   "{\"ph\":\"D\",\"ts\":1},{\"ph\":\"XX\",\"ts\":1},{\"ph\":\"V\"},"
				   "{},{\"ph\":\"X\",\"dur\":1},{\"ph\":\"X\",\"ts\":1},{\"ph\":\"B\"},{\"ph\":\"X\",\"ts\":\"x\",\"dur\":1},"
				   "{\"ph\":3,\"ts\":1},[1,2],\"s\",null"
				   "]"),
			 0);
	/* {"ph":"X","ts":1} has no dur: a region still running at the end */
	assert_int_equal(diag(&u, TF_DIAG_ev_duration), 4);
	assert_int_equal(diag(&u, TF_DIAG_ev_instant), 2);
	assert_int_equal(diag(&u, TF_DIAG_ev_counter), 3);
	assert_int_equal(diag(&u, TF_DIAG_ev_metadata), 1);
	assert_int_equal(diag(&u, TF_DIAG_ev_flow), 3);
	assert_int_equal(diag(&u, TF_DIAG_ev_async), 5);
	assert_int_equal(diag(&u, TF_DIAG_ev_other), 7);
	assert_int_equal(diag(&u, TF_DIAG_bad_event), 9);
	check_accounting(&u);
	/* counter naming: one numeric arg -> event name; several -> name.key */
	int seen = 0;
	for (size_t i = 0; i < u.rec.n; i++) {
		const tf_event *e = &u.rec.ev[i];
		if (e->kind != TF_EV_COUNTER)
			continue;
		const char *want[] = { "c", "c.a", "c.b" };
		assert_string_equal(S(&u, e->name), want[seen]);
		assert_true(e->value == (seen == 0 ? 1 : seen));
		seen++;
	}
	assert_int_equal(seen, 3);
	assert_int_equal(u.rec.ev[u.rec.n - 1].index, 26); /* last passed: the X without dur */
	run_free(&u);
}

/* ---- errors ---- */

static void test_errors(void **state)
{
	(void)state;
	static const struct { const char *j; long long off; } c[] = {
		{ "[{\"ph\":\"X\" \"ts\":1}]", 11 },
		{ "[{\"ph\":\"X\",\"ts\":1}{\"ph\":\"X\"}]", 18 },
		{ "[{\"ph\":\"X\",\"ts\":1},{\"ph\":\"X\",\"ts\":1,}]", 36 },
		{ "[{\"ph\":\"X\",ts:1}]", 11 },
		{ "[{\"ph\":\"X\",\"ts\":tru}]", 16 },
		{ "[{\"ph\":\"X\",\"args\":{\"a\":[1}}]", 25 },
		{ "{\"traceEvents\":{}}", 15 },
		{ "{\"traceEvents\":[]} x", 19 },
		{ "{\"a\" 1}", 5 },
		{ "{\"a\":1 \"b\":2}", 7 },
		{ "hello", 0 },
		{ "\xEF\xBB\xBF  x", 5 },
		{ "[{\"ph\":\"X\"},\n{\"ph\":\"X\"}\n}", 24 },
		{ "[{\"ph\":\"X\",\"ts\":1, @}]", 19 },
	};
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		size_t n = strlen(c[i].j);
		for (size_t chunk = 0; chunk <= 3; chunk++) {
			run u;
			run_init(&u);
			int rc = parse_chunked(&u, c[i].j, n, chunk);
			if (rc != TF_EFORMAT || u.err.offset != c[i].off)
				fail_msg("case %zu chunk %zu: rc %d offset %lld (%s), want offset %lld", i, chunk, rc,
					 (long long)u.err.offset, u.err.msg, c[i].off);
			assert_string_equal(u.err.path, "t.json");
			char buf[1400];
			tf_error_format(&u.err, buf, sizeof(buf));
			assert_non_null(strstr(buf, "t.json"));
			run_free(&u);
		}
	}
	/* the messages, also of the errors the JSON tokenizer (json.h) reports
	 * and the reader turns into a tf_error at the byte's offset */
	static char deep[1100];
	memcpy(deep, "[{\"args\":", 9);
	memset(deep + 9, '[', 1025); /* the 1025th at byte 9 + 1024 */
	static const struct { const char *j; long long off; const char *msg; } m[] = {
		{ "[{\"ph\":\"X\",\"ts\":tru}]", 16, "invalid JSON literal" },
		{ "[{\"ph\":\"X\",\"args\":{\"a\":[1}}]", 25, "mismatched bracket (found '}')" },
		{ "{\"a\":@}", 5, "expected a JSON value (found '@')" },
		{ "[1, \x01]", 4, "expected a JSON value (found byte 0x01)" },
		{ "[1, +2]", 4, "invalid JSON literal" },
		{ deep, 1033, "JSON nested too deeply" },
		{ "[{\"ph\":\"X\",\"ts\":1, @}]", 19, "expected a quoted key in an event (found '@')" },
		{ "{\"traceEvents\":{}}", 15, "\"traceEvents\" is not an array (found '{')" },
		{ "{\"a\" 1}", 5, "expected ':' after a top-level key (found '1')" },
		{ "hello", 0, "not a JSON trace: expected '[' or '{' (found 'h')" },
	};
	for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
		for (size_t chunk = 0; chunk <= 3; chunk++) {
			run u;
			run_init(&u);
			int rc = parse_chunked(&u, m[i].j, strlen(m[i].j), chunk);
			if (rc != TF_EFORMAT || u.err.offset != m[i].off || strcmp(u.err.msg, m[i].msg) != 0)
				fail_msg("message %zu chunk %zu: rc %d offset %lld '%s', want offset %lld '%s'", i, chunk,
					 rc, (long long)u.err.offset, u.err.msg, m[i].off, m[i].msg);
			run_free(&u);
		}
	}
	/* empty input */
	static const char *empty[] = { "", "   \n", "\xEF\xBB\xBF" };
	for (size_t i = 0; i < 3; i++) {
		run u;
		run_init(&u);
		assert_int_equal(parse(&u, empty[i]), TF_EFORMAT);
		run_free(&u);
	}
	/* the event index of a bad event */
	run u;
	run_init(&u);
	assert_int_equal(parse(&u, "[{},{},{\"ph\":]"), TF_EFORMAT);
	assert_int_equal(u.err.event_index, 2);
	assert_int_equal(u.err.offset, 13);
	run_free(&u);
}

static void test_stop(void **state)
{
	(void)state;
	run u;
	run_init(&u);
	u.rec.stop_after = 2;
	assert_int_equal(parse(&u, "[{\"ph\":\"i\",\"ts\":1},{\"ph\":\"i\",\"ts\":2},{\"ph\":\"i\",\"ts\":3}]"), TF_ESTOP);
	assert_int_equal(u.rec.n, 2);
	run_free(&u);
}

/* ---- sniff ---- */

static void test_sniff(void **state)
{
	(void)state;
	static const struct { const char *h; int want; } c[] = {
		{ "{\"traceEvents\": [", TF_SNIFF_YES },
		{ "\xEF\xBB\xBF\n  {\n \"traceEvents\"", TF_SNIFF_YES },
		{ "[{\"name\": \"x\"", TF_SNIFF_YES },
		{ "[\n  {", TF_SNIFF_YES },
		{ "{\"schemaVersion\": 1, \"traceEvents\": [", TF_SNIFF_YES },
		{ "{\"name\":\"x\",\"ph\":\"X\"", TF_SNIFF_YES },
		{ "{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [", TF_SNIFF_YES }, /* Kineto */
		{ "{ \"otherData\": {},", TF_SNIFF_YES },
		{ "{\"foo\": 1}", TF_SNIFF_MAYBE },
		{ "[]", TF_SNIFF_MAYBE },
		{ "[1, 2]", TF_SNIFF_MAYBE },
		{ "{", TF_SNIFF_MAYBE },
		{ "", TF_SNIFF_NO },
		{ "hello", TF_SNIFF_NO },
		{ "<?xml", TF_SNIFF_NO },
		{ "{x", TF_SNIFF_NO },
		{ "\x01\x02\x03", TF_SNIFF_NO },
	};
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++)
		if (tf_chrome_sniff((const unsigned char *)c[i].h, strlen(c[i].h)) != c[i].want)
			fail_msg("sniff '%s' != %d", c[i].h, c[i].want);
	const tf_format *f = tf_format_by_name("chrome");
	assert_non_null(f);
	assert_int_equal(f->sniff("x", 1, NULL, 0, true), TF_SNIFF_NO);
}

/* ---- through a file (tf_in, gzip) ---- */

static void test_read_file(void **state)
{
	(void)state;
	char path[] = "/tmp/tf-chrome-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	FILE *f = fdopen(fd, "w");
	fputs("[", f);
	for (int i = 0; i < 20000; i++)
		fprintf(f, "{\"ph\":\"X\",\"name\":\"n%d\",\"ts\":%d.%03d,\"dur\":1,\"pid\":1,\"tid\":%d,"
			   "\"args\":{\"a\":[%d,\"x\\\"\"]}},\n", i % 50, i, i % 1000, i % 3, i);
	fclose(f);
	const tf_format *fmt = tf_format_by_name("chrome");
	run u;
	run_init(&u);
	assert_int_equal(fmt->read(path, 0, u.ctx, &u.rec.sink, &u.err), 0);
	assert_int_equal(u.rec.n, 20000);
	for (int i = 0; i < 20000; i++) {
		assert_int_equal(u.rec.ev[i].ts_ns, (int64_t)i * 1000 + i % 1000);
		assert_int_equal(u.rec.ev[i].index, i);
	}
	assert_int_equal(tf_ctx_track_count(u.ctx), 3);
	run_free(&u);
	/* the registry picks the chrome reader */
	tf_error err;
	tf_error_clear(&err);
	assert_ptr_equal(tf_format_find(path, NULL, &err), fmt);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_us_to_ns),
		cmocka_unit_test(test_ts_forms),
		cmocka_unit_test(test_split_everywhere),
		cmocka_unit_test(test_tricky_values),
		cmocka_unit_test(test_big_event),
		cmocka_unit_test(test_forms),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_pid_tid),
		cmocka_unit_test(test_near_keys),
		cmocka_unit_test(test_track_cache),
		cmocka_unit_test(test_memory_devices),
		cmocka_unit_test(test_metadata),
		cmocka_unit_test(test_phases),
		cmocka_unit_test(test_x_end_overflow),
		cmocka_unit_test(test_other_tools),
		cmocka_unit_test(test_json_lines),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_stop),
		cmocka_unit_test(test_sniff),
		cmocka_unit_test(test_read_file),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
