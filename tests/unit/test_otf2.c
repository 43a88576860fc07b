/* test_otf2.c - the OTF2 reader on small archives written here with the
 * OTF2 writer API (libotf2) into a temporary directory. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <otf2/otf2.h>
#include "tracefold/reader.h"
#include "tracefold/io.h"

/* ------------------------------------------------------ archive writing */

static OTF2_FlushType pre_flush(void *ud, OTF2_FileType ft, OTF2_LocationRef loc, void *cb, bool final)
{
	return OTF2_FLUSH;
}

static OTF2_TimeStamp post_flush(void *ud, OTF2_FileType ft, OTF2_LocationRef loc)
{
	return 0;
}

static OTF2_FlushCallbacks flush_cbs = { .otf2_pre_flush = pre_flush, .otf2_post_flush = post_flush };

/* Whether wr_loc() also writes the location's local definitions file (as
 * Score-P, TAU and bench/gen-otf2.c do): an empty one, unless a test adds to it. */
static bool wr_local_defs = true;

typedef struct wr {
	OTF2_Archive *a;
	OTF2_GlobalDefWriter *g;
	char dir[256];
	char anchor[300];
} wr;

static void wr_open(wr *w)
{
	snprintf(w->dir, sizeof(w->dir), "%s/tf-otf2-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	assert_non_null(mkdtemp(w->dir));
	snprintf(w->anchor, sizeof(w->anchor), "%s/traces.otf2", w->dir);
	w->a = OTF2_Archive_Open(w->dir, "traces", OTF2_FILEMODE_WRITE, 1024 * 1024, 4 * 1024 * 1024,
				 OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
	assert_non_null(w->a);
	assert_int_equal(OTF2_Archive_SetFlushCallbacks(w->a, &flush_cbs, NULL), OTF2_SUCCESS);
	assert_int_equal(OTF2_Archive_SetSerialCollectiveCallbacks(w->a), OTF2_SUCCESS);
	assert_int_equal(OTF2_Archive_OpenEvtFiles(w->a), OTF2_SUCCESS);
	assert_int_equal(OTF2_Archive_OpenDefFiles(w->a), OTF2_SUCCESS);
	w->g = NULL;
}

static OTF2_EvtWriter *wr_loc(wr *w, uint64_t loc)
{
	OTF2_EvtWriter *e = OTF2_Archive_GetEvtWriter(w->a, loc);
	assert_non_null(e);
	if (wr_local_defs) {
		OTF2_DefWriter *d = OTF2_Archive_GetDefWriter(w->a, loc);
		assert_non_null(d);
		assert_int_equal(OTF2_Archive_CloseDefWriter(w->a, d), OTF2_SUCCESS);
	}
	return e;
}

/* Closes the event files and opens the global definition writer. */
static OTF2_GlobalDefWriter *wr_defs(wr *w)
{
	assert_int_equal(OTF2_Archive_CloseDefFiles(w->a), OTF2_SUCCESS);
	assert_int_equal(OTF2_Archive_CloseEvtFiles(w->a), OTF2_SUCCESS);
	w->g = OTF2_Archive_GetGlobalDefWriter(w->a);
	assert_non_null(w->g);
	return w->g;
}

static void wr_close(wr *w)
{
	assert_int_equal(OTF2_Archive_Close(w->a), OTF2_SUCCESS);
}

static void wr_rmrf(wr *w)
{
	char cmd[400];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", w->dir);
	assert_int_equal(system(cmd), 0);
}

/* Writes strings 0..n-1 */
static void wr_strings(OTF2_GlobalDefWriter *g, const char *const *s, int n)
{
	for (int i = 0; i < n; i++)
		assert_int_equal(OTF2_GlobalDefWriter_WriteString(g, i, s[i]), OTF2_SUCCESS);
}

static void wr_region(OTF2_GlobalDefWriter *g, uint32_t id, uint32_t name)
{
	assert_int_equal(OTF2_GlobalDefWriter_WriteRegion(g, id, name, name, name, OTF2_REGION_ROLE_FUNCTION,
							  OTF2_PARADIGM_USER, OTF2_REGION_FLAG_NONE, 0, 0, 0),
			 OTF2_SUCCESS);
}

/* ------------------------------------------------------ recording sink */

typedef struct rec {
	tf_sink sink;
	tf_event ev[4096];
	int n;
	int stop_after; /* > 0: return TF_ESTOP after that many events */
} rec;

static int rec_event(tf_sink *s, const tf_event *ev)
{
	rec *r = tf_container_of(s, rec, sink);
	assert_true(r->n < 4096);
	r->ev[r->n++] = *ev;
	if (r->stop_after && r->n >= r->stop_after)
		return TF_ESTOP;
	return 0;
}

typedef struct run {
	tf_ctx *ctx;
	rec rec;
	int rc;
	tf_error err;
} run;

static run *read_archive(const char *path, int stop_after)
{
	run *x = calloc(1, sizeof(*x));
	assert_non_null(x);
	x->ctx = tf_ctx_new();
	x->rec.sink.event = rec_event;
	x->rec.stop_after = stop_after;
	tf_error_clear(&x->err);
	x->rc = tf_format_by_name("otf2")->read(path, 0, x->ctx, &x->rec.sink, &x->err);
	/* accounting invariant: every decoded record is emitted or skipped */
	const tf_diag *d = tf_ctx_diag(x->ctx);
	uint64_t sum = 0;
	for (int i = TF_DIAG_ev_duration; i <= TF_DIAG_ev_tracer; i++)
		sum += d->n[i];
	sum += d->n[TF_DIAG_bad_event] + d->n[TF_DIAG_unknown_event_id] + d->n[TF_DIAG_truncated_record];
	assert_int_equal(d->n[TF_DIAG_events_read], sum);
	return x;
}

static void run_free(run *x)
{
	tf_ctx_free(x->ctx);
	free(x);
}

static const char *S(run *x, tf_str id)
{
	return tf_strtab_get(tf_ctx_strtab(x->ctx), id);
}

static uint32_t track_of(run *x, const char *group, const char *loc)
{
	tf_strtab *st = tf_ctx_strtab(x->ctx);
	uint32_t n = tf_ctx_track_count(x->ctx);
	uint32_t id = tf_ctx_track(x->ctx, 0, tf_strtab_intern_cstr(st, group), tf_strtab_intern_cstr(st, loc));
	assert_int_equal(tf_ctx_track_count(x->ctx), n); /* it existed */
	return id;
}

static uint64_t diag(run *x, tf_diag_id id)
{
	return tf_ctx_diag(x->ctx)->n[id];
}

/* How many notes contain all of the given texts. */
static int notes_with(run *x, const char *a, const char *b)
{
	int k = 0;
	for (size_t i = 0; i < tf_ctx_nnotes(x->ctx); i++) {
		const char *t = tf_ctx_note_get(x->ctx, i);
		k += t && strstr(t, a) && (!b || strstr(t, b));
	}
	return k;
}

/* The events of one track, in delivery order. */
static int events_of(run *x, uint32_t track, const tf_event **out, int max)
{
	int n = 0;
	for (int i = 0; i < x->rec.n && n < max; i++)
		if (x->rec.ev[i].track == track)
			out[n++] = &x->rec.ev[i];
	return n;
}

static void expect_ev(run *x, const tf_event *e, int kind, const char *name, int64_t ts)
{
	assert_int_equal(e->kind, kind);
	if (name)
		assert_string_equal(S(x, e->name), name);
	assert_int_equal(e->ts_ns, ts);
}

/* Two processes, one thread each, plus a second thread in process 0. */
static void std_defs(OTF2_GlobalDefWriter *g, uint64_t res, uint64_t off)
{
	static const char *const s[] = { "", "main", "work", "node", "P0", "P1", "T0", "T1", "T0b" };
	wr_strings(g, s, 9);
	assert_int_equal(OTF2_GlobalDefWriter_WriteClockProperties(g, res, off, 1000, OTF2_UNDEFINED_TIMESTAMP),
			 OTF2_SUCCESS);
	wr_region(g, 0, 1);
	wr_region(g, 1, 2);
	OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, 3, 3, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
	OTF2_GlobalDefWriter_WriteLocationGroup(g, 0, 4, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
						OTF2_UNDEFINED_LOCATION_GROUP);
	OTF2_GlobalDefWriter_WriteLocationGroup(g, 1, 5, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
						OTF2_UNDEFINED_LOCATION_GROUP);
}

/* ------------------------------------------------------------------ tests */

static void test_interleaved(void **state)
{
	wr w;
	wr_open(&w);
	OTF2_EvtWriter *a = wr_loc(&w, 0), *b = wr_loc(&w, 1), *c = wr_loc(&w, 2);
	OTF2_EvtWriter_Enter(a, NULL, 10, 0);
	OTF2_EvtWriter_Enter(b, NULL, 11, 0);
	OTF2_EvtWriter_Enter(a, NULL, 12, 1);
	OTF2_EvtWriter_Enter(c, NULL, 12, 1);
	OTF2_EvtWriter_Leave(b, NULL, 13, 0);
	OTF2_EvtWriter_Leave(a, NULL, 12, 1); /* same time as the Enter */
	OTF2_EvtWriter_Leave(c, NULL, 20, 1);
	OTF2_EvtWriter_Leave(a, NULL, 15, 0);
	OTF2_Archive_CloseEvtWriter(w.a, a);
	OTF2_Archive_CloseEvtWriter(w.a, b);
	OTF2_Archive_CloseEvtWriter(w.a, c);
	OTF2_GlobalDefWriter *g = wr_defs(&w);
	std_defs(g, 1000000000, 0);
	OTF2_GlobalDefWriter_WriteLocation(g, 0, 6, OTF2_LOCATION_TYPE_CPU_THREAD, 4, 0);
	OTF2_GlobalDefWriter_WriteLocation(g, 1, 7, OTF2_LOCATION_TYPE_CPU_THREAD, 2, 1);
	OTF2_GlobalDefWriter_WriteLocation(g, 2, 8, OTF2_LOCATION_TYPE_CPU_THREAD, 2, 0);
	wr_close(&w);

	run *x = read_archive(w.anchor, 0);
	assert_int_equal(x->rc, 0);
	assert_int_equal(x->rec.n, 8);
	assert_int_equal(tf_ctx_track_count(x->ctx), 3);
	uint32_t ta = track_of(x, "0", "0"), tb = track_of(x, "1", "1"), tc = track_of(x, "0", "2");
	const tf_event *e[8];
	assert_int_equal(events_of(x, ta, e, 8), 4);
	expect_ev(x, e[0], TF_EV_BEGIN, "main", 10);
	expect_ev(x, e[1], TF_EV_BEGIN, "work", 12);
	expect_ev(x, e[2], TF_EV_END, "work", 12);
	expect_ev(x, e[3], TF_EV_END, "main", 15);
	assert_int_equal(events_of(x, tb, e, 8), 2);
	expect_ev(x, e[0], TF_EV_BEGIN, "main", 11);
	expect_ev(x, e[1], TF_EV_END, "main", 13);
	assert_int_equal(events_of(x, tc, e, 8), 2);
	expect_ev(x, e[1], TF_EV_END, "work", 20);
	/* names and ranks (no MPI group: unknown) */
	const tf_track *t = tf_ctx_track_get(x->ctx, tc);
	assert_string_equal(S(x, t->process_name), "P0");
	assert_string_equal(S(x, t->thread_name), "T0b");
	assert_int_equal(t->rank, -1);
	assert_int_equal(t->kind, TF_TRACK_CPU);
	assert_false(t->needs_sort);
	/* one location after the other, in stored order: not merged by time */
	for (int i = 0; i < 4; i++)
		assert_int_equal(x->rec.ev[i].track, ta);
	/* index is the decode order */
	for (int i = 0; i < x->rec.n; i++)
		assert_int_equal(x->rec.ev[i].index, i);
	assert_int_equal(diag(x, TF_DIAG_events_read), 8);
	assert_int_equal(diag(x, TF_DIAG_ev_duration), 8);
	run_free(x);

	/* the archive directory names the same archive */
	x = read_archive(w.dir, 0);
	assert_int_equal(x->rc, 0);
	assert_int_equal(x->rec.n, 8);
	run_free(x);
	wr_rmrf(&w);
}

static void test_leave_without_enter_and_empty_location(void **state)
{
	wr w;
	wr_open(&w);
	OTF2_EvtWriter *a = wr_loc(&w, 0);
	OTF2_EvtWriter_Leave(a, NULL, 5, 1); /* no Enter before it */
	OTF2_EvtWriter_Enter(a, NULL, 6, 0);
	OTF2_EvtWriter_Leave(a, NULL, 7, 0);
	OTF2_EvtWriter_Enter(a, NULL, 8, 0); /* never left */
	OTF2_Archive_CloseEvtWriter(w.a, a);
	/* location 1 gets an event writer but no events; location 2 has no
	 * event writer (and so no event file) at all */
	OTF2_Archive_CloseEvtWriter(w.a, wr_loc(&w, 1));
	OTF2_GlobalDefWriter *g = wr_defs(&w);
	std_defs(g, 1000000000, 0);
	OTF2_GlobalDefWriter_WriteLocation(g, 0, 6, OTF2_LOCATION_TYPE_CPU_THREAD, 4, 0);
	OTF2_GlobalDefWriter_WriteLocation(g, 1, 7, OTF2_LOCATION_TYPE_CPU_THREAD, 0, 1);
	OTF2_GlobalDefWriter_WriteLocation(g, 2, 8, OTF2_LOCATION_TYPE_CPU_THREAD, 0, 0);
	wr_close(&w);

	run *x = read_archive(w.anchor, 0);
	assert_int_equal(x->rc, 0);
	assert_int_equal(tf_ctx_track_count(x->ctx), 3); /* empty locations are tracks too */
	assert_int_equal(x->rec.n, 4);
	expect_ev(x, &x->rec.ev[0], TF_EV_END, "work", 5); /* passed on: the stack builder repairs */
	expect_ev(x, &x->rec.ev[3], TF_EV_BEGIN, "main", 8);
	assert_int_equal(diag(x, TF_DIAG_missing_location), 0);
	const tf_track *t = tf_ctx_track_get(x->ctx, track_of(x, "1", "1"));
	assert_string_equal(S(x, t->thread_name), "T1");
	run_free(x);
	wr_rmrf(&w);
}

/* One location with events at the given ticks (Enter region 0). */
static run *clock_archive(uint64_t res, uint64_t off, const uint64_t *ticks, int n)
{
	wr w;
	wr_open(&w);
	OTF2_EvtWriter *a = wr_loc(&w, 0);
	for (int i = 0; i < n; i++)
		OTF2_EvtWriter_Enter(a, NULL, ticks[i], 0);
	OTF2_Archive_CloseEvtWriter(w.a, a);
	OTF2_GlobalDefWriter *g = wr_defs(&w);
	std_defs(g, res, off);
	OTF2_GlobalDefWriter_WriteLocation(g, 0, 6, OTF2_LOCATION_TYPE_CPU_THREAD, n, 0);
	wr_close(&w);
	run *x = read_archive(w.anchor, 0);
	wr_rmrf(&w);
	assert_int_equal(x->rc, 0);
	return x;
}

static void test_clock(void **state)
{
	/* odd resolution, offset: ns = floor((t - off) * 1e9 / res), exactly */
	static const uint64_t t3[] = { 999, 1000, 1001, 1002, 1003, 1007 };
	run *x = clock_archive(3, 1000, t3, 6);
	assert_int_equal(x->rec.n, 6);
	assert_int_equal(tf_ctx_nnotes(x->ctx), 0);
	static const int64_t want3[] = { -333333334, 0, 333333333, 666666666, 1000000000, 2333333333 };
	for (int i = 0; i < 6; i++)
		assert_int_equal(x->rec.ev[i].ts_ns, want3[i]);
	run_free(x);

	/* microsecond clock (TAU), epoch offset */
	static const uint64_t tus[] = { 1795346150484967ull, 1795346150485965ull };
	x = clock_archive(1000000, 1795346150484967ull, tus, 2);
	assert_int_equal(x->rec.n, 2);
	assert_int_equal(x->rec.ev[0].ts_ns, 0);
	assert_int_equal(x->rec.ev[1].ts_ns, 998000);
	run_free(x);

	/* a TSC clock as Score-P writes it (values of the mi300 fixture) */
	static const uint64_t ttsc[] = { 6127384835033798ull + 26664065725ull };
	x = clock_archive(3699958577ull, 6127384835033798ull, ttsc, 1);
	assert_int_equal(x->rec.n, 1);
	assert_int_equal(x->rec.ev[0].ts_ns, 7206584930ll); /* python: 26664065725*10**9//3699958577 */
	run_free(x);

	/* a resolution above 1.8e10 ticks/s takes the 128-bit path */
	static const uint64_t tbig[] = { 123456789012345ull };
	x = clock_archive(70000000000ull, 0, tbig, 1);
	assert_int_equal(x->rec.n, 1);
	assert_int_equal(x->rec.ev[0].ts_ns, 1763668414462ll);
	run_free(x);

	/* many ticks on odd clocks against a 128-bit reference (the reader
	 * divides by a multiply-high estimate and corrects it) */
	static const uint64_t clocks[][2] = {
		{ 2500000007ull, 1000000000000ull }, { 3699958577ull, 6127384835033798ull },
		{ 17999999999ull, 5 }, { 7, 0 }, { 2095197216ull, 7397466976977800ull },
	};
	static uint64_t tk[2000];
	for (int c = 0; c < 5; c++) {
		uint64_t res = clocks[c][0], off = clocks[c][1], t = off, seed = 99 + c;
		for (int i = 0; i < 2000; i++) {
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			t += i < 1000 ? seed >> 40 : seed >> 22; /* small steps, then large ones */
			tk[i] = t;
		}
		x = clock_archive(res, off, tk, 2000);
		int j = 0, beyond = 0;
		for (int i = 0; i < 2000; i++) {
			__int128 want = (__int128)(tk[i] - off) * 1000000000 / res;
			if (want > INT64_MAX) { /* beyond int64 ns: skipped */
				beyond++;
				continue;
			}
			assert_true(j < x->rec.n);
			assert_int_equal(x->rec.ev[j++].ts_ns, (int64_t)want);
		}
		assert_int_equal(j, x->rec.n);
		assert_int_equal(diag(x, TF_DIAG_bad_event), beyond);
		assert_int_equal(tf_ctx_nnotes(x->ctx), beyond ? 1 : 0);
		run_free(x);
	}

	/* ns resolution: identity after the offset */
	static const uint64_t tns[] = { 5, 1000000000000000000ull };
	x = clock_archive(1000000000ull, 5, tns, 2);
	assert_int_equal(x->rec.n, 2);
	assert_int_equal(x->rec.ev[0].ts_ns, 0);
	assert_int_equal(x->rec.ev[1].ts_ns, 1000000000000000000ll - 5);
	run_free(x);
}

/* Clocks that cannot be used as they are: never silent.  Resolution 0: the
 * ticks are taken as nanoseconds (1 GHz), with a note; no clock properties
 * at all: the same.  A time beyond int64 nanoseconds (after or before the
 * offset): the event is skipped as bad_event (saturating would give a
 * region lasting to year 2262), the first one of each location noted. */
static void test_clock_unusable(void **state)
{
	static const uint64_t t[] = { 5, 1005 };
	run *x = clock_archive(0, 5, t, 2);
	assert_int_equal(x->rec.n, 2);
	assert_int_equal(x->rec.ev[0].ts_ns, 0);
	assert_int_equal(x->rec.ev[1].ts_ns, 1000);
	assert_int_equal(tf_ctx_nnotes(x->ctx), 1);
	assert_int_equal(notes_with(x, "traces.otf2': timer resolution 0 in the clock properties", "nanoseconds"), 1);
	run_free(x);

	/* no ClockProperties definition */
	wr w;
	wr_open(&w);
	OTF2_EvtWriter *a = wr_loc(&w, 0);
	OTF2_EvtWriter_Enter(a, NULL, 7, 0);
	OTF2_Archive_CloseEvtWriter(w.a, a);
	OTF2_GlobalDefWriter *g = wr_defs(&w);
	static const char *const s[] = { "", "main", "work", "node", "P0", "P1", "T0" };
	wr_strings(g, s, 7);
	wr_region(g, 0, 1);
	OTF2_GlobalDefWriter_WriteLocationGroup(g, 0, 4, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
						OTF2_UNDEFINED_LOCATION_GROUP);
	OTF2_GlobalDefWriter_WriteLocation(g, 0, 6, OTF2_LOCATION_TYPE_CPU_THREAD, 1, 0);
	wr_close(&w);
	x = read_archive(w.anchor, 0);
	assert_int_equal(x->rc, 0);
	assert_int_equal(x->rec.n, 1);
	assert_int_equal(x->rec.ev[0].ts_ns, 7);
	assert_int_equal(notes_with(x, "traces.otf2': no clock properties", "nanoseconds"), 1);
	run_free(x);
	wr_rmrf(&w);

	/* 1 tick per second: 10^10 ticks are 10^19 ns, beyond int64 */
	const uint64_t big = 10000000000ull;
	wr_open(&w);
	OTF2_EvtWriter *b = wr_loc(&w, 1);
	a = wr_loc(&w, 0);
	OTF2_EvtWriter_Enter(a, NULL, 5, 0);
	OTF2_EvtWriter_Enter(a, NULL, big, 1);
	OTF2_Type ty[2] = { OTF2_TYPE_INT64, OTF2_TYPE_DOUBLE };
	OTF2_MetricValue v[2] = { { .signed_int = 3 }, { .floating_point = 0.5 } };
	OTF2_EvtWriter_Metric(a, NULL, big + 1, 4, 2, ty, v);
	OTF2_EvtWriter_MpiSend(a, NULL, big + 2, 1, 0, 7, 64);
	OTF2_EvtWriter_Leave(a, NULL, big + 3, 1);
	OTF2_EvtWriter_Leave(a, NULL, big + 4, 0);
	OTF2_EvtWriter_Enter(b, NULL, 7, 0);
	OTF2_EvtWriter_Leave(b, NULL, 8, 0);
	OTF2_Archive_CloseEvtWriter(w.a, a);
	OTF2_Archive_CloseEvtWriter(w.a, b);
	g = wr_defs(&w);
	std_defs(g, 1, 0);
	OTF2_GlobalDefWriter_WriteString(g, 20, "temp");
	OTF2_GlobalDefWriter_WriteString(g, 21, "power");
	OTF2_GlobalDefWriter_WriteLocation(g, 0, 6, OTF2_LOCATION_TYPE_CPU_THREAD, 6, 0);
	OTF2_GlobalDefWriter_WriteLocation(g, 1, 7, OTF2_LOCATION_TYPE_CPU_THREAD, 2, 1);
	OTF2_GlobalDefWriter_WriteMetricMember(g, 0, 20, 0, OTF2_METRIC_TYPE_OTHER, OTF2_METRIC_ABSOLUTE_POINT,
					       OTF2_TYPE_INT64, OTF2_BASE_DECIMAL, 0, 0);
	OTF2_GlobalDefWriter_WriteMetricMember(g, 1, 21, 0, OTF2_METRIC_TYPE_OTHER, OTF2_METRIC_ABSOLUTE_POINT,
					       OTF2_TYPE_DOUBLE, OTF2_BASE_DECIMAL, 0, 0);
	OTF2_MetricMemberRef c4[2] = { 0, 1 };
	OTF2_GlobalDefWriter_WriteMetricClass(g, 4, 2, c4, OTF2_METRIC_SYNCHRONOUS_STRICT, OTF2_RECORDER_KIND_CPU);
	wr_close(&w);
	x = read_archive(w.anchor, 0);
	assert_int_equal(x->rc, 0);
	assert_int_equal(x->rec.n, 3); /* Enter at 5 s, and location 1 */
	expect_ev(x, &x->rec.ev[0], TF_EV_BEGIN, "main", 5000000000ll);
	/* 3 regions, 2 metric values, 1 message */
	assert_int_equal(diag(x, TF_DIAG_bad_event), 6);
	assert_int_equal(diag(x, TF_DIAG_events_read), 9);
	assert_int_equal(tf_ctx_nnotes(x->ctx), 1);
	assert_int_equal(notes_with(x, "traces.otf2': location 0 (\"T0\"): event time 10000000000 ticks is beyond int64 "
				       "nanoseconds", "skipped"), 1);
	run_free(x);
	wr_rmrf(&w);

	/* before the offset, below int64 */
	static const uint64_t tb[] = { 0, big };
	x = clock_archive(1, big, tb, 2);
	assert_int_equal(x->rec.n, 1);
	assert_int_equal(x->rec.ev[0].ts_ns, 0);
	assert_int_equal(diag(x, TF_DIAG_bad_event), 1);
	assert_int_equal(notes_with(x, "event time 0 ticks is beyond int64", NULL), 1);
	run_free(x);
}

/* Local definition files (mapping tables, clock offsets; libotf2 applies
 * them to the events) are optional in OTF2, but one missing while others
 * are there means a damaged archive: a note for each such location, its
 * events read as they are.  None at all: one note for the archive.  A
 * damaged one: a note with libotf2's reason. */
static void test_local_defs(void **state)
{
	char p[400];
	for (int k = 0; k < 4; k++) {
		wr_local_defs = k != 3;
		wr w;
		wr_open(&w);
		OTF2_EvtWriter *e[3];
		for (int l = 0; l < 3; l++) {
			e[l] = wr_loc(&w, (uint64_t)l);
			OTF2_EvtWriter_Enter(e[l], NULL, 10 + (uint64_t)l, 0);
			OTF2_EvtWriter_Leave(e[l], NULL, 20, 0);
			OTF2_Archive_CloseEvtWriter(w.a, e[l]);
		}
		OTF2_GlobalDefWriter *g = wr_defs(&w);
		std_defs(g, 1000000000, 0);
		OTF2_GlobalDefWriter_WriteString(g, 9, "T2");
		OTF2_GlobalDefWriter_WriteLocation(g, 0, 6, OTF2_LOCATION_TYPE_CPU_THREAD, 2, 0);
		OTF2_GlobalDefWriter_WriteLocation(g, 1, 7, OTF2_LOCATION_TYPE_CPU_THREAD, 2, 1);
		OTF2_GlobalDefWriter_WriteLocation(g, 2, 9, OTF2_LOCATION_TYPE_CPU_THREAD, 2, 1);
		wr_close(&w);
		wr_local_defs = true;
		if (k == 0 || k == 2) { /* location 1's is deleted */
			snprintf(p, sizeof(p), "%s/traces/1.def", w.dir);
			assert_int_equal(unlink(p), 0);
		}
		if (k == 1) /* all of them */
			for (int l = 0; l < 3; l++) {
				snprintf(p, sizeof(p), "%s/traces/%d.def", w.dir, l);
				assert_int_equal(unlink(p), 0);
			}
		if (k == 2) { /* location 2's is garbage */
			snprintf(p, sizeof(p), "%s/traces/2.def", w.dir);
			FILE *f = fopen(p, "wb");
			assert_non_null(f);
			fputs("this is no OTF2 local definition file at all", f);
			fclose(f);
		}
		run *x = read_archive(w.anchor, 0);
		assert_int_equal(x->rc, 0);
		assert_int_equal(x->rec.n, 6); /* the events are read all the same */
		if (k == 0 || k == 2) {
			assert_int_equal(notes_with(x, "traces.otf2': location 1 (\"T1\"): local definitions missing",
						    "without mapping tables or clock offsets"), 1);
			assert_int_equal(tf_ctx_nnotes(x->ctx), k == 0 ? 1 : 2);
			assert_int_equal(diag(x, TF_DIAG_missing_local_defs), k == 0 ? 1 : 2);
		}
		if (k == 1 || k == 3) { /* maybe written so: a note, no warning */
			assert_int_equal(notes_with(x, "traces.otf2': no local definitions for any of the 3 locations",
						    "without mapping tables or clock offsets"), 1);
			assert_int_equal(tf_ctx_nnotes(x->ctx), 1);
			assert_int_equal(diag(x, TF_DIAG_missing_local_defs), 0);
		}
		if (k == 2)
			assert_int_equal(notes_with(x, "traces.otf2': location 2 (\"T2\"): local definitions damaged",
						    "libotf2: "), 1);
		run_free(x);
		wr_rmrf(&w);
	}
}

static void test_metrics(void **state)
{
	wr w;
	wr_open(&w);
	OTF2_EvtWriter *a = wr_loc(&w, 0), *m = wr_loc(&w, 7);
	OTF2_Type ty[2] = { OTF2_TYPE_INT64, OTF2_TYPE_DOUBLE };
	OTF2_MetricValue v[2];
	OTF2_EvtWriter_Enter(a, NULL, 10, 0);
	v[0].signed_int = -3;
	v[1].floating_point = 2.5;
	OTF2_EvtWriter_Metric(a, NULL, 11, 4, 2, ty, v); /* by class */
	OTF2_EvtWriter_Leave(a, NULL, 12, 0);
	OTF2_Type tu = OTF2_TYPE_UINT64;
	OTF2_MetricValue u = { .unsigned_int = 1234567 };
	OTF2_EvtWriter_Metric(m, NULL, 13, 6, 1, &tu, &u);     /* by instance */
	OTF2_EvtWriter_Metric(m, NULL, 14, 99, 1, &tu, &u);    /* undefined metric */
	OTF2_Archive_CloseEvtWriter(w.a, a);
	OTF2_Archive_CloseEvtWriter(w.a, m);
	OTF2_GlobalDefWriter *g = wr_defs(&w);
	std_defs(g, 1000000000, 0);
	OTF2_GlobalDefWriter_WriteString(g, 20, "temp");
	OTF2_GlobalDefWriter_WriteString(g, 21, "power");
	OTF2_GlobalDefWriter_WriteString(g, 22, "energy");
	OTF2_GlobalDefWriter_WriteString(g, 23, "W");
	OTF2_GlobalDefWriter_WriteLocation(g, 0, 6, OTF2_LOCATION_TYPE_CPU_THREAD, 4, 0);
	OTF2_GlobalDefWriter_WriteLocation(g, 7, 0, OTF2_LOCATION_TYPE_METRIC, 2, 0);
	OTF2_GlobalDefWriter_WriteMetricMember(g, 0, 20, 0, OTF2_METRIC_TYPE_OTHER, OTF2_METRIC_ABSOLUTE_POINT,
					       OTF2_TYPE_INT64, OTF2_BASE_DECIMAL, 0, 23);
	OTF2_GlobalDefWriter_WriteMetricMember(g, 1, 21, 0, OTF2_METRIC_TYPE_OTHER, OTF2_METRIC_ABSOLUTE_POINT,
					       OTF2_TYPE_DOUBLE, OTF2_BASE_DECIMAL, 0, 23);
	OTF2_GlobalDefWriter_WriteMetricMember(g, 2, 22, 0, OTF2_METRIC_TYPE_OTHER, OTF2_METRIC_ACCUMULATED_START,
					       OTF2_TYPE_UINT64, OTF2_BASE_DECIMAL, 0, 23);
	OTF2_MetricMemberRef c4[2] = { 0, 1 }, c5[1] = { 2 };
	OTF2_GlobalDefWriter_WriteMetricClass(g, 4, 2, c4, OTF2_METRIC_SYNCHRONOUS_STRICT, OTF2_RECORDER_KIND_CPU);
	OTF2_GlobalDefWriter_WriteMetricClass(g, 5, 1, c5, OTF2_METRIC_ASYNCHRONOUS, OTF2_RECORDER_KIND_ABSTRACT);
	OTF2_GlobalDefWriter_WriteMetricInstance(g, 6, 5, 7, OTF2_SCOPE_LOCATION_GROUP, 0);
	wr_close(&w);

	run *x = read_archive(w.anchor, 0);
	assert_int_equal(x->rc, 0);
	uint32_t ta = track_of(x, "0", "0"), tm = track_of(x, "0", "7");
	const tf_event *e[8];
	assert_int_equal(events_of(x, ta, e, 8), 4);
	assert_int_equal(e[1]->kind, TF_EV_COUNTER);
	assert_string_equal(S(x, e[1]->name), "temp");
	assert_true(e[1]->value == -3.0);
	assert_int_equal(e[1]->ts_ns, 11);
	assert_string_equal(S(x, e[2]->name), "power");
	assert_true(e[2]->value == 2.5);
	assert_int_equal(e[3]->kind, TF_EV_END);
	assert_int_equal(events_of(x, tm, e, 8), 1);
	assert_string_equal(S(x, e[0]->name), "energy");
	assert_true(e[0]->value == 1234567.0);
	assert_int_equal(tf_ctx_track_get(x->ctx, tm)->kind, TF_TRACK_CPU);
	/* an unnamed metric location is named after the metric it records */
	assert_string_equal(S(x, tf_ctx_track_get(x->ctx, tm)->thread_name), "energy");
	assert_int_equal(diag(x, TF_DIAG_ev_counter), 3);
	assert_int_equal(diag(x, TF_DIAG_unknown_event_id), 1);
	assert_int_equal(tf_ctx_nnotes(x->ctx), 1);
	assert_non_null(strstr(tf_ctx_note_get(x->ctx, 0), "location 7 record #2: metric 99 is not defined"));
	assert_int_equal(diag(x, TF_DIAG_events_read), 6);
	run_free(x);
	wr_rmrf(&w);
}

static void test_mpi(void **state)
{
	wr w;
	wr_open(&w);
	OTF2_EvtWriter *a = wr_loc(&w, 100), *b = wr_loc(&w, 200), *gpu = wr_loc(&w, 300);
	OTF2_EvtWriter_MpiSend(a, NULL, 1, 1, 0, 7, 64);      /* world: to rank 1 */
	OTF2_EvtWriter_MpiSend(a, NULL, 2, 0, 1, 8, 128);     /* sub comm rank 0 = world 1 */
	OTF2_EvtWriter_MpiIsend(a, NULL, 3, 0, 2, 9, 1, 42);  /* self */
	OTF2_EvtWriter_MpiCollectiveBegin(a, NULL, 4);
	OTF2_EvtWriter_MpiCollectiveEnd(a, NULL, 5, OTF2_COLLECTIVE_OP_BARRIER, 0, OTF2_UNDEFINED_UINT32, 0, 0);
	OTF2_EvtWriter_ThreadFork(a, NULL, 6, OTF2_PARADIGM_OPENMP, 2);
	OTF2_EvtWriter_ThreadJoin(a, NULL, 7, OTF2_PARADIGM_OPENMP);
	OTF2_EvtWriter_MpiRecv(b, NULL, 1, 0, 0, 7, 64);      /* from world 0 */
	OTF2_EvtWriter_MpiIrecv(b, NULL, 2, 1, 1, 8, 128, 5); /* sub comm rank 1 = world 0 */
	OTF2_EvtWriter_Enter(gpu, NULL, 3, 0);
	OTF2_EvtWriter_Leave(gpu, NULL, 4, 0);
	OTF2_Archive_CloseEvtWriter(w.a, a);
	OTF2_Archive_CloseEvtWriter(w.a, b);
	OTF2_Archive_CloseEvtWriter(w.a, gpu);
	OTF2_GlobalDefWriter *g = wr_defs(&w);
	std_defs(g, 1000000000, 0);
	OTF2_GlobalDefWriter_WriteString(g, 30, "GPU ctx");
	OTF2_GlobalDefWriter_WriteString(g, 31, "stream 0");
	OTF2_GlobalDefWriter_WriteString(g, 32, "MPI_COMM_WORLD");
	OTF2_GlobalDefWriter_WriteLocationGroup(g, 2, 30, OTF2_LOCATION_GROUP_TYPE_ACCELERATOR, 0, 1);
	OTF2_GlobalDefWriter_WriteLocation(g, 100, 6, OTF2_LOCATION_TYPE_CPU_THREAD, 7, 0);
	OTF2_GlobalDefWriter_WriteLocation(g, 200, 7, OTF2_LOCATION_TYPE_CPU_THREAD, 2, 1);
	OTF2_GlobalDefWriter_WriteLocation(g, 300, 31, OTF2_LOCATION_TYPE_ACCELERATOR_STREAM, 2, 2);
	uint64_t locs[2] = { 100, 200 }, world[2] = { 0, 1 }, sub[2] = { 1, 0 };
	OTF2_GlobalDefWriter_WriteGroup(g, 0, 0, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
					OTF2_GROUP_FLAG_NONE, 2, locs);
	OTF2_GlobalDefWriter_WriteGroup(g, 1, 0, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
					OTF2_GROUP_FLAG_NONE, 2, world);
	OTF2_GlobalDefWriter_WriteGroup(g, 2, 0, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
					OTF2_GROUP_FLAG_NONE, 2, sub);
	OTF2_GlobalDefWriter_WriteGroup(g, 3, 0, OTF2_GROUP_TYPE_COMM_SELF, OTF2_PARADIGM_MPI,
					OTF2_GROUP_FLAG_NONE, 0, NULL);
	OTF2_GlobalDefWriter_WriteComm(g, 0, 32, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
	OTF2_GlobalDefWriter_WriteComm(g, 1, 0, 2, 0, OTF2_COMM_FLAG_NONE);
	OTF2_GlobalDefWriter_WriteComm(g, 2, 0, 3, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
	wr_close(&w);

	run *x = read_archive(w.anchor, 0);
	assert_int_equal(x->rc, 0);
	uint32_t ta = track_of(x, "0", "100"), tb = track_of(x, "1", "200"), tg = track_of(x, "2", "300");
	assert_int_equal(tf_ctx_track_get(x->ctx, ta)->rank, 0);
	assert_int_equal(tf_ctx_track_get(x->ctx, tb)->rank, 1);
	const tf_track *gt = tf_ctx_track_get(x->ctx, tg);
	assert_int_equal(gt->kind, TF_TRACK_GPU);
	assert_int_equal(gt->rank, 1); /* the accelerator group was created by rank 1's group */
	assert_string_equal(S(x, gt->process_name), "GPU ctx");
	assert_string_equal(S(x, gt->thread_name), "stream 0");
	const tf_event *e[8];
	assert_int_equal(events_of(x, ta, e, 8), 3);
	assert_int_equal(e[0]->kind, TF_EV_SEND);
	assert_int_equal(e[0]->msg.peer, 1);
	assert_int_equal(e[0]->msg.tag, 7);
	assert_int_equal(e[0]->msg.bytes, 64);
	assert_int_equal(e[0]->msg.comm, 0);
	assert_int_equal(e[1]->msg.peer, 1);
	assert_int_equal(e[1]->msg.comm, 1);
	assert_int_equal(e[1]->msg.bytes, 128);
	assert_int_equal(e[2]->kind, TF_EV_SEND);
	assert_int_equal(e[2]->msg.peer, 0);
	assert_int_equal(events_of(x, tb, e, 8), 2);
	assert_int_equal(e[0]->kind, TF_EV_RECV);
	assert_int_equal(e[0]->msg.peer, 0);
	assert_int_equal(e[1]->kind, TF_EV_RECV);
	assert_int_equal(e[1]->msg.peer, 0);
	assert_int_equal(e[1]->msg.tag, 8);
	assert_int_equal(diag(x, TF_DIAG_ev_message), 5);
	assert_int_equal(diag(x, TF_DIAG_ev_other), 4); /* collective begin/end, fork, join */
	assert_int_equal(diag(x, TF_DIAG_ev_duration), 2);
	assert_int_equal(diag(x, TF_DIAG_events_read), 11);
	run_free(x);
	wr_rmrf(&w);
}

static void test_missing_event_file(void **state)
{
	wr w;
	wr_open(&w);
	OTF2_EvtWriter *a = wr_loc(&w, 0), *b = wr_loc(&w, 1);
	OTF2_EvtWriter_Enter(a, NULL, 1, 0);
	OTF2_EvtWriter_Leave(a, NULL, 2, 0);
	OTF2_EvtWriter_Enter(b, NULL, 1, 1);
	OTF2_EvtWriter_Leave(b, NULL, 3, 1);
	OTF2_Archive_CloseEvtWriter(w.a, a);
	OTF2_Archive_CloseEvtWriter(w.a, b);
	OTF2_GlobalDefWriter *g = wr_defs(&w);
	std_defs(g, 1000000000, 0);
	OTF2_GlobalDefWriter_WriteLocation(g, 0, 6, OTF2_LOCATION_TYPE_CPU_THREAD, 2, 0);
	OTF2_GlobalDefWriter_WriteLocation(g, 1, 7, OTF2_LOCATION_TYPE_CPU_THREAD, 2, 1);
	wr_close(&w);
	char p[400];
	snprintf(p, sizeof(p), "%s/traces/0.evt", w.dir);
	assert_int_equal(unlink(p), 0);

	run *x = read_archive(w.anchor, 0);
	assert_int_equal(x->rc, 0);
	assert_int_equal(diag(x, TF_DIAG_missing_location), 1);
	assert_int_equal(tf_ctx_nnotes(x->ctx), 1); /* and where */
	assert_non_null(strstr(tf_ctx_note_get(x->ctx, 0), "location 0 (\"T0\"): event data missing"));
	assert_int_equal(x->rec.n, 2);
	assert_int_equal(x->rec.ev[0].track, track_of(x, "1", "1"));
	assert_string_equal(S(x, x->rec.ev[1].name), "work");

	/* an event file cut short: what precedes the damage is read */
	snprintf(p, sizeof(p), "%s/traces/1.evt", w.dir);
	FILE *f = fopen(p, "r+b");
	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	long size = ftell(f);
	fclose(f);
	assert_int_equal(truncate(p, size - 3), 0);
	run_free(x);
	x = read_archive(w.anchor, 0);
	assert_int_equal(x->rc, 0);
	assert_int_equal(diag(x, TF_DIAG_missing_location), 1);
	assert_true(x->rec.n <= 2);
	assert_int_equal(x->rec.n + diag(x, TF_DIAG_truncated_record) > 0, 1);
	run_free(x);
	x = NULL;

	/* a sink that stops early stops the reader */
	x = read_archive(w.anchor, 1);
	assert_int_equal(x->rc, TF_ESTOP);
	assert_int_equal(x->rec.n, 1);
	run_free(x);

	/* no global definitions: a format error naming the anchor */
	snprintf(p, sizeof(p), "%s/traces.def", w.dir);
	assert_int_equal(unlink(p), 0);
	x = read_archive(w.anchor, 0);
	assert_int_equal(x->rc, TF_EFORMAT);
	assert_int_equal(x->err.code, TF_EFORMAT);
	assert_string_equal(x->err.path, w.anchor);
	run_free(x);
	wr_rmrf(&w);
}

/* ------------------------------------------- serial vs pipelined reading */

/* A sink that folds every event into a digest (names as text, so the two
 * runs' string tables need not agree) and can stop or fail at event N. */
typedef struct digest {
	tf_sink sink;
	tf_ctx *ctx;
	uint64_t n, h;
	uint64_t stop_at; /* > 0: return `stop_rc` at that event */
	int stop_rc;
} digest;

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ c[i]) * 0x100000001b3ull;
	return h;
}

static int digest_event(tf_sink *s, const tf_event *ev)
{
	digest *d = tf_container_of(s, digest, sink);
	const char *name = ev->name ? tf_strtab_get(tf_ctx_strtab(d->ctx), ev->name) : "";
	int64_t v[] = { ev->kind, ev->track, ev->ts_ns, ev->msg.peer, ev->msg.tag, ev->msg.bytes, ev->msg.comm,
			(int64_t)ev->index };
	d->h = fnv(d->h, v, sizeof(v));
	d->h = fnv(d->h, &ev->value, sizeof(ev->value));
	d->h = fnv(d->h, name, strlen(name) + 1);
	if (++d->n == d->stop_at)
		return d->stop_rc;
	return 0;
}

typedef struct outcome {
	int rc;
	uint64_t n, h;
	tf_diag diag;
	uint64_t notes; /* digest of the notes */
	size_t nnotes;
} outcome;

static outcome read_mode(const char *path, const char *threads, uint64_t stop_at, int stop_rc)
{
	outcome o = { 0 };
	digest d = { .sink.event = digest_event, .ctx = tf_ctx_new(), .h = 14695981039346656037ull,
		     .stop_at = stop_at, .stop_rc = stop_rc };
	assert_non_null(d.ctx);
	tf_ctx_opts(d.ctx)->otf2_pipeline = atoi(threads) >= 2; /* as TRACEFOLD_THREADS sets it */
	tf_error err;
	tf_error_clear(&err);
	o.rc = tf_format_by_name("otf2")->read(path, 0, d.ctx, &d.sink, &err);
	o.n = d.n;
	o.h = d.h;
	o.diag = *tf_ctx_diag(d.ctx);
	o.nnotes = tf_ctx_nnotes(d.ctx);
	o.notes = 1;
	for (size_t i = 0; i < o.nnotes; i++) {
		const char *t = tf_ctx_note_get(d.ctx, i);
		if (t)
			o.notes = fnv(o.notes, t, strlen(t) + 1);
	}
	tf_ctx_free(d.ctx);
	return o;
}

static void same_outcome(const outcome *a, const outcome *b)
{
	assert_int_equal(a->rc, b->rc);
	assert_int_equal(a->n, b->n);
	assert_int_equal(a->h, b->h);
	assert_int_equal(a->nnotes, b->nnotes);
	assert_int_equal(a->notes, b->notes);
	for (int i = 0; i < TF_DIAG_COUNT; i++)
		assert_int_equal(a->diag.n[i], b->diag.n[i]);
}

/* Enough records for many batches of the pipeline, with everything that
 * travels through it: undefined regions (notes), metrics (defined and not),
 * messages, skipped records, a location without an event file between two
 * with events, and one cut short. */
static void test_serial_vs_pipelined(void **state)
{
	const char *env = getenv("TRACEFOLD_THREADS");
	char *was = env ? strdup(env) : NULL;
	wr w;
	/* no local definitions (one note for the archive): with them, libotf2
	 * 3.0.2 reads the cut event file below into a fresh, zeroed buffer and
	 * may report no error at the cut (it branches on uninitialised bytes
	 * past the end of the data, valgrind: OTF2_Buffer_ReadGetNextChunk),
	 * so whether the serial and the pipelined paths see the damage would
	 * depend on the heap */
	wr_local_defs = false;
	wr_open(&w);
	enum { N = 40000 };
	OTF2_EvtWriter *a = wr_loc(&w, 0), *b = wr_loc(&w, 1), *c = wr_loc(&w, 2), *d = wr_loc(&w, 3);
	OTF2_Type ty[2] = { OTF2_TYPE_INT64, OTF2_TYPE_DOUBLE };
	OTF2_MetricValue v[2];
	uint64_t t = 1000;
	for (int i = 0; i < N; i++) {
		OTF2_EvtWriter_Enter(a, NULL, t++, (uint32_t)(i % 2));
		if (i % 1000 == 7)
			OTF2_EvtWriter_Enter(a, NULL, t++, 77); /* undefined region */
		if (i % 500 == 3) {
			v[0].signed_int = -i;
			v[1].floating_point = i / 3.0;
			OTF2_EvtWriter_Metric(a, NULL, t++, i % 1500 == 3 ? 99 : 4, 2, ty, v);
		}
		if (i % 700 == 5) {
			OTF2_EvtWriter_MpiSend(a, NULL, t++, 1, 0, (uint32_t)i, 64 + (uint64_t)i);
			OTF2_EvtWriter_MpiRecv(a, NULL, t++, 1, 0, (uint32_t)i, 8);
			OTF2_EvtWriter_ThreadFork(a, NULL, t++, OTF2_PARADIGM_OPENMP, 4);
		}
		OTF2_EvtWriter_Leave(a, NULL, t++, (uint32_t)(i % 2));
	}
	for (int i = 0; i < N / 2; i++) {
		OTF2_EvtWriter_Enter(b, NULL, 5 + 2 * (uint64_t)i, 1);
		OTF2_EvtWriter_Leave(b, NULL, 6 + 2 * (uint64_t)i, 1);
		OTF2_EvtWriter_Enter(c, NULL, 5 + 2 * (uint64_t)i, 0);
		OTF2_EvtWriter_Leave(c, NULL, 6 + 2 * (uint64_t)i, 0);
		OTF2_EvtWriter_Enter(d, NULL, 5 + 2 * (uint64_t)i, 0);
		OTF2_EvtWriter_Leave(d, NULL, 6 + 2 * (uint64_t)i, 0);
	}
	OTF2_Archive_CloseEvtWriter(w.a, a);
	OTF2_Archive_CloseEvtWriter(w.a, b);
	OTF2_Archive_CloseEvtWriter(w.a, c);
	OTF2_Archive_CloseEvtWriter(w.a, d);
	OTF2_GlobalDefWriter *g = wr_defs(&w);
	std_defs(g, 2500000007ull, 17);
	OTF2_GlobalDefWriter_WriteString(g, 20, "temp");
	OTF2_GlobalDefWriter_WriteString(g, 21, "power");
	OTF2_GlobalDefWriter_WriteLocation(g, 0, 6, OTF2_LOCATION_TYPE_CPU_THREAD, 2 * N, 0);
	OTF2_GlobalDefWriter_WriteLocation(g, 1, 7, OTF2_LOCATION_TYPE_CPU_THREAD, N, 1);
	OTF2_GlobalDefWriter_WriteLocation(g, 2, 8, OTF2_LOCATION_TYPE_CPU_THREAD, N, 0);
	OTF2_GlobalDefWriter_WriteLocation(g, 3, 8, OTF2_LOCATION_TYPE_CPU_THREAD, N, 0);
	OTF2_GlobalDefWriter_WriteMetricMember(g, 0, 20, 0, OTF2_METRIC_TYPE_OTHER, OTF2_METRIC_ABSOLUTE_POINT,
					       OTF2_TYPE_INT64, OTF2_BASE_DECIMAL, 0, 0);
	OTF2_GlobalDefWriter_WriteMetricMember(g, 1, 21, 0, OTF2_METRIC_TYPE_OTHER, OTF2_METRIC_ABSOLUTE_POINT,
					       OTF2_TYPE_DOUBLE, OTF2_BASE_DECIMAL, 0, 0);
	OTF2_MetricMemberRef c4[2] = { 0, 1 };
	OTF2_GlobalDefWriter_WriteMetricClass(g, 4, 2, c4, OTF2_METRIC_SYNCHRONOUS_STRICT, OTF2_RECORDER_KIND_CPU);
	wr_close(&w);
	wr_local_defs = true;

	outcome s = read_mode(w.anchor, "1", 0, 0), p = read_mode(w.anchor, "2", 0, 0);
	assert_int_equal(s.rc, 0);
	assert_true(s.n > 2 * N + N);
	assert_int_equal(s.diag.n[TF_DIAG_unknown_event_id], 40 + 27 * 2);
	assert_int_equal(s.diag.n[TF_DIAG_ev_other], 58);
	assert_int_equal(s.nnotes, 2); /* an undefined metric; no local definitions */
	same_outcome(&s, &p);

	/* location 2 without its event file, location 3 cut short */
	char path[400];
	snprintf(path, sizeof(path), "%s/traces/2.evt", w.dir);
	assert_int_equal(unlink(path), 0);
	snprintf(path, sizeof(path), "%s/traces/3.evt", w.dir);
	FILE *f = fopen(path, "r+b");
	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	long size = ftell(f);
	fclose(f);
	assert_int_equal(truncate(path, size / 2 + 1), 0);
	s = read_mode(w.anchor, "1", 0, 0);
	p = read_mode(w.anchor, "2", 0, 0);
	assert_int_equal(s.rc, 0);
	assert_int_equal(s.diag.n[TF_DIAG_missing_location], 1);
	assert_int_equal(s.nnotes, 4);
	same_outcome(&s, &p);

	/* a sink that stops or fails: at the first event, inside a batch, at
	 * a batch boundary, in the last location */
	static const uint64_t at[] = { 1, 5000, 16384, 16385, 50000, 80001 };
	for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
		for (int k = 0; k < 2; k++) {
			int code = k ? TF_EFORMAT : TF_ESTOP;
			s = read_mode(w.anchor, "1", at[i], code);
			p = read_mode(w.anchor, "2", at[i], code);
			assert_int_equal(s.rc, code);
			assert_int_equal(s.n, at[i]);
			same_outcome(&s, &p);
		}
	}
	if (was)
		setenv("TRACEFOLD_THREADS", was, 1);
	else
		unsetenv("TRACEFOLD_THREADS");
	free(was);
	wr_rmrf(&w);
}

static void test_sniff(void **state)
{
	wr w;
	wr_open(&w);
	OTF2_GlobalDefWriter *g = wr_defs(&w);
	std_defs(g, 1000000000, 0);
	wr_close(&w);
	const tf_format *f = tf_format_by_name("otf2");
	unsigned char head[64];
	tf_error err;
	ptrdiff_t n = tf_file_head(w.anchor, head, sizeof(head), &err);
	assert_true(n >= 6);
	assert_int_equal(f->sniff(w.anchor, 0, head, (size_t)n, false), TF_SNIFF_YES);
	assert_int_equal(f->sniff("x.otf2", 0, (const unsigned char *)"garbage", 7, false), TF_SNIFF_MAYBE);
	assert_int_equal(f->sniff("x.json", 0, (const unsigned char *)"[{\"ph\":", 7, false), TF_SNIFF_NO);
	assert_int_equal(f->sniff(w.dir, 1, NULL, 0, false), TF_SNIFF_YES);
	/* one level up: found, but only MAYBE (a TAU folder may hold a converted copy) */
	char parent[300];
	snprintf(parent, sizeof(parent), "%s/exp", w.dir);
	char cmd[2000];
	snprintf(cmd, sizeof(cmd), "mkdir '%s' && mv '%s/traces' '%s/traces.otf2' '%s/traces.def' '%s/'",
		 parent, w.dir, w.dir, w.dir, parent);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(f->sniff(w.dir, 1, NULL, 0, false), TF_SNIFF_MAYBE);
	tf_error_clear(&err);
	assert_ptr_equal(tf_format_find(w.dir, NULL, &err), f);
	run *x = read_archive(w.dir, 0);
	assert_int_equal(x->rc, 0);
	run_free(x);
	/* two anchors: ambiguous */
	snprintf(cmd, sizeof(cmd), "cp '%s/traces.otf2' '%s/other.otf2'", parent, parent);
	assert_int_equal(system(cmd), 0);
	x = read_archive(parent, 0);
	assert_int_equal(x->rc, TF_EUSAGE);
	run_free(x);
	wr_rmrf(&w);
}

static int serial(void **state)
{
	return setenv("TRACEFOLD_THREADS", "1", 1);
}

static int pipelined(void **state)
{
	return setenv("TRACEFOLD_THREADS", "2", 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_interleaved),
		cmocka_unit_test(test_leave_without_enter_and_empty_location),
		cmocka_unit_test(test_clock),
		cmocka_unit_test(test_clock_unusable),
		cmocka_unit_test(test_local_defs),
		cmocka_unit_test(test_metrics),
		cmocka_unit_test(test_mpi),
		cmocka_unit_test(test_missing_event_file),
		cmocka_unit_test(test_sniff),
		cmocka_unit_test(test_serial_vs_pipelined),
	};
	/* every test against both event paths (src/read/otf2_events.c, otf2_pipe.c) */
	int rc = cmocka_run_group_tests_name("otf2 serial", tests, serial, NULL);
	return rc + cmocka_run_group_tests_name("otf2 pipelined", tests, pipelined, NULL);
}
