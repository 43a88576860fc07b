/* test_nsys.c - the Nsight Systems SQLite reader (src/read/nsys.c) on
 * databases the test builds with libsqlite3 row by row (the tables and
 * columns of docs/format-nsys.md): the events, tracks, names, correlation
 * ids and categories of each table; a synchronization on the thread of its
 * runtime call; the versions of runtime names dropped; a table and a column
 * missing, named in a note; a SQLite database that is no Nsight export; the
 * sniff. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sqlite3.h>
#include "tracefold/reader.h"

/* globalPid of pid 111: 1 << 48 | 111 << 24 (the fixture's); a globalTid adds the tid */
#define GP "281476838981632"
#define GT "281476838981743"

static char *db_make(const char *sql)
{
	char *path = strdup("/tmp/tf-nsys-XXXXXX");
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	unlink(path);
	sqlite3 *db;
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	char *msg = NULL;
	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK)
		fail_msg("%s", msg);
	sqlite3_close(db);
	return path;
}

typedef struct rec {
	tf_sink sink;
	tf_event ev[64];
	int n;
} rec;

static int rec_event(tf_sink *s, const tf_event *ev)
{
	rec *r = tf_container_of(s, rec, sink);
	assert_true(r->n < 64);
	r->ev[r->n++] = *ev;
	return 0;
}

typedef struct run {
	tf_ctx *ctx;
	rec rec;
	int rc;
	tf_error err;
} run;

static run *read_db(const char *sql)
{
	run *x = calloc(1, sizeof(*x));
	assert_non_null(x);
	x->ctx = tf_ctx_new();
	x->rec.sink.event = rec_event;
	char *path = db_make(sql);
	tf_error_clear(&x->err);
	const tf_format *f = tf_format_by_name("nsys");
	assert_non_null(f);
	x->rc = f->read(path, 0, x->ctx, &x->rec.sink, &x->err);
	unlink(path);
	free(path);
	return x;
}

static void run_free(run *x)
{
	tf_ctx_free(x->ctx);
	free(x);
}

static const char *S(run *x, tf_str id)
{
	return id ? tf_strtab_get(tf_ctx_strtab(x->ctx), id) : "";
}

/* the event named name */
static const tf_event *ev_named(run *x, const char *name)
{
	for (int i = 0; i < x->rec.n; i++)
		if (!strcmp(S(x, x->rec.ev[i].name), name))
			return &x->rec.ev[i];
	fail_msg("no event %s", name);
	return NULL;
}

static const char *full =
	"CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);"
	"INSERT INTO StringIds VALUES (1, 'gemm_short'), (2, 'cudaLaunchKernel_v7000'), (3, 'worker'),"
	" (4, 'cudaStreamSynchronize_v3020'), (5, 'void gemm<float>(float*)'), (6, 'python3');"
	"CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INT, end INT, deviceId INT, streamId INT,"
	" correlationId INT, globalPid INT, demangledName INT, shortName INT);"
	"INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (150, 250, 1, 7, 1, " GP ", 5, 1);"
	"CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INT, end INT, deviceId INT, streamId INT,"
	" correlationId INT, globalPid INT, copyKind INT, srcKind INT, dstKind INT);"
	"INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (260, 300, 1, 7, 0, " GP ", 1, 1, 2);"
	"CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INT, end INT, deviceId INT, streamId INT,"
	" correlationId INT, globalPid INT, memKind INT);"
	"INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES (310, 320, 1, 7, 0, " GP ", 2);"
	"CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INT, end INT, globalTid INT, correlationId INT, nameId INT);"
	"INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (110, 120, " GT ", 1, 2), (130, 400, " GT ", 2, 4);"
	"CREATE TABLE NVTX_EVENTS (start INT, end INT, eventType INT, text TEXT, globalTid INT, textId INT);"
	"INSERT INTO NVTX_EVENTS VALUES (100, 450, 59, 'step', " GT ", NULL), (101, 102, 60, NULL, " GT ", 3),"
	" (103, NULL, 34, 'mark', " GT ", NULL), (104, 105, 75, 'domain', " GT ", NULL);"
	"CREATE TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (start INT, end INT, correlationId INT, globalPid INT,"
	" syncType INT);"
	"INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION VALUES (140, 390, 2, " GP ", 3);"
	"CREATE TABLE ENUM_CUPTI_SYNC_TYPE (id INT, name TEXT, label TEXT);"
	"INSERT INTO ENUM_CUPTI_SYNC_TYPE VALUES (3, 'CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE',"
	" 'Stream sync');"
	"CREATE TABLE ThreadNames (nameId INT, priority INT, globalTid INT);"
	"INSERT INTO ThreadNames VALUES (3, 0, " GT ");"
	"CREATE TABLE PROCESSES (globalPid INT, pid INT, name TEXT);"
	"INSERT INTO PROCESSES VALUES (" GP ", 111, 'python3');";

static void test_tables(void **state)
{
	(void)state;
	run *x = read_db(full);
	assert_int_equal(x->rc, 0);
	const uint64_t c1 = 111ull << 32 | 1;
	const tf_event *k = ev_named(x, "void gemm<float>(float*)"); /* demangledName first */
	assert_int_equal(k->kind, TF_EV_COMPLETE);
	assert_int_equal(k->ts_ns, 150);
	assert_int_equal(k->dur_ns, 100);
	assert_int_equal(k->corr, c1);
	assert_string_equal(S(x, k->cat), "kernel");
	tf_track *t = tf_ctx_track_get(x->ctx, k->track);
	assert_int_equal(t->kind, TF_TRACK_GPU);
	assert_true(t->needs_sort);
	assert_string_equal(S(x, t->process_key), "111");
	assert_string_equal(S(x, t->thread_key), "GPU 1 stream 7");
	assert_string_equal(S(x, t->process_name), "python3");
	const tf_event *m = ev_named(x, "Memcpy HtoD (Pinned -> Device)");
	assert_int_equal(m->track, k->track);
	assert_int_equal(m->corr, 0);
	assert_string_equal(S(x, m->cat), "gpu_memcpy");
	assert_string_equal(S(x, ev_named(x, "Memset (Device)")->cat), "gpu_memset");
	const tf_event *r = ev_named(x, "cudaLaunchKernel"); /* the _v7000 dropped */
	assert_int_equal(r->corr, c1);
	assert_string_equal(S(x, r->cat), "cuda_runtime");
	t = tf_ctx_track_get(x->ctx, r->track);
	assert_int_equal(t->kind, TF_TRACK_CPU);
	assert_string_equal(S(x, t->thread_key), "111");
	assert_string_equal(S(x, t->thread_name), "worker");
	const tf_event *s = ev_named(x, "[sync] Stream sync");
	assert_int_equal(s->track, r->track); /* the thread of cudaStreamSynchronize */
	assert_int_equal(s->ts_ns, 140);
	assert_int_equal(s->dur_ns, 250);
	assert_int_equal(s->corr, 0);
	assert_int_equal(ev_named(x, "step")->dur_ns, 350);
	assert_int_equal(ev_named(x, "worker")->track, r->track); /* text by textId */
	assert_int_equal(ev_named(x, "mark")->kind, TF_EV_INSTANT);
	assert_int_equal(x->rec.n, 9); /* 3 GPU, 2 runtime, 3 NVTX, 1 sync */
	assert_int_equal(tf_ctx_diag(x->ctx)->n[TF_DIAG_ev_other], 1); /* the domain event */
	assert_int_equal(tf_ctx_nnotes(x->ctx), 0);
	run_free(x);
}

static void test_missing(void **state)
{
	(void)state;
	run *x = read_db("CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);"
			 "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INT, end INT, deviceId INT, streamId INT,"
			 " globalPid INT);"
			 "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1, 2, 0, 7, 1);"
			 "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INT, end INT, globalTid INT,"
			 " correlationId INT);"
			 "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (1, 2, 5, 1);");
	assert_int_equal(x->rc, 0);
	assert_int_equal(x->rec.n, 1);
	assert_string_equal(S(x, x->rec.ev[0].name), "[cuda runtime]"); /* no nameId */
	assert_int_equal(tf_ctx_nnotes(x->ctx), 1);
	const char *n = tf_ctx_note_get(x->ctx, 0);
	assert_non_null(strstr(n, "CUPTI_ACTIVITY_KIND_KERNEL.correlationId (table not read)"));
	assert_non_null(strstr(n, "NVTX_EVENTS"));
	assert_non_null(strstr(n, "CUPTI_ACTIVITY_KIND_MEMSET"));
	run_free(x);
}

static void test_not_nsys(void **state)
{
	(void)state;
	run *x = read_db("CREATE TABLE t (x INT);");
	assert_int_equal(x->rc, TF_EFORMAT);
	assert_non_null(strstr(x->err.msg, "not an Nsight Systems export"));
	run_free(x);
}

static void test_sniff(void **state)
{
	(void)state;
	const tf_format *f = tf_format_by_name("nsys");
	unsigned char h[100] = "SQLite format 3";
	assert_int_equal(f->sniff("a.sqlite", 0, h, sizeof(h), false), TF_SNIFF_YES);
	assert_int_equal(f->sniff("a.sqlite", 0, h, 15, true), TF_SNIFF_NO);
	memcpy(h, "{\"traceEvents\": []}", 20);
	assert_int_equal(f->sniff("a.json", 0, h, 20, true), TF_SNIFF_NO);
	assert_int_equal(f->sniff("dir", 1, NULL, 0, false), TF_SNIFF_NO);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tables),
		cmocka_unit_test(test_missing),
		cmocka_unit_test(test_not_nsys),
		cmocka_unit_test(test_sniff),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
