/* nsys.c - Nsight Systems SQLite exports (`nsys export --type sqlite`),
 * through libsqlite3.  Rules and the facts relied on: docs/format-nsys.md.
 *
 * The schema changes between Nsight Systems versions, so every table and
 * column is looked up by name (sqlite_master, pragma_table_info) and the
 * queries are built from what is there; what is missing is said once in a
 * note.  Rows are streamed with sqlite3_step, never loaded whole: the
 * names come from StringIds by joins in the queries.
 *
 *   CUPTI_ACTIVITY_KIND_KERNEL/MEMCPY/MEMSET  GPU activities, a track per
 *       process, device and stream, joined to their launch by correlationId;
 *   CUPTI_ACTIVITY_KIND_RUNTIME               CPU calls on their thread;
 *   NVTX_EVENTS                               ranges on their thread;
 *   CUPTI_ACTIVITY_KIND_SYNCHRONIZATION       "[sync] KIND" on the thread
 *       of the runtime call of the same correlationId: CPU waiting time.
 *
 * CUPTI correlation ids are unique within a process only, so the id given
 * to the stack builder is pid << 32 | correlationId (ids are scoped per
 * input there).  Every track is sorted by the stack builder (needs_sort):
 * a thread's calls come from several tables. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>
#include "tracefold/reader.h"

/* Nsight's globalTid / globalPid: the pid in bits 24..47, the tid in bits
 * 0..23 (a globalPid has tid 0); checked against PROCESSES and ThreadNames
 * of the fixture (docs/format-nsys.md). */
#define PID_OF(g) ((int64_t)(((uint64_t)(g) >> 24) & 0xFFFFFF))
#define TID_OF(g) ((int64_t)((uint64_t)(g) & 0xFFFFFF))

/* NVTX_EVENTS.eventType (ENUM_NSYS_EVENT_TYPE) */
enum { NVTX_MARK = 34, NVTX_PUSHPOP = 59, NVTX_STARTEND = 60, NVTXT_PUSHPOP = 70, NVTXT_STARTEND = 71 };

typedef struct nsys {
	sqlite3 *db;
	const char *path;
	uint32_t input;
	tf_ctx *ctx;
	tf_sink *sink;
	tf_strtab *st;
	tf_error *err;
	uint64_t index;
	bool strings;              /* StringIds (id, value) is there */
	char missing[400];         /* what was looked for and not found */
	int64_t cache_key[4];      /* the last track looked up: gpu, globalTid or pid, device, stream */
	uint32_t cache_track;
} nsys;

static bool table_has(nsys *r, const char *table)
{
	sqlite3_stmt *q;
	bool yes = false;
	if (sqlite3_prepare_v2(r->db, "SELECT 1 FROM sqlite_master WHERE type IN ('table','view') AND name = ?",
			       -1, &q, NULL) != SQLITE_OK)
		return false;
	sqlite3_bind_text(q, 1, table, -1, SQLITE_STATIC);
	yes = sqlite3_step(q) == SQLITE_ROW;
	sqlite3_finalize(q);
	return yes;
}

static bool col_has(nsys *r, const char *table, const char *col)
{
	sqlite3_stmt *q;
	bool yes = false;
	if (sqlite3_prepare_v2(r->db, "SELECT 1 FROM pragma_table_info(?) WHERE name = ?", -1, &q, NULL) != SQLITE_OK)
		return false;
	sqlite3_bind_text(q, 1, table, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 2, col, -1, SQLITE_STATIC);
	yes = sqlite3_step(q) == SQLITE_ROW;
	sqlite3_finalize(q);
	return yes;
}

static void missing(nsys *r, const char *what)
{
	size_t n = strlen(r->missing);
	snprintf(r->missing + n, sizeof(r->missing) - n, "%s%s", n ? ", " : "", what);
}

/* Every column of cols (NULL-terminated) in table; else says the first
 * missing one and returns false. */
/* Whether table is there with every one of cols; what is not is named
 * in the note of what is missing (the table is then not read). */
static bool table_ready(nsys *r, const char *table, const char *const *cols)
{
	if (!table_has(r, table)) {
		missing(r, table);
		return false;
	}
	for (int i = 0; cols[i]; i++)
		if (!col_has(r, table, cols[i])) {
			char b[160];
			snprintf(b, sizeof(b), "%s.%s (table not read)", table, cols[i]);
			missing(r, b);
			return false;
		}
	return true;
}

static int sql_fail(nsys *r, const char *what)
{
	return tf_error_set(r->err, TF_EFORMAT, r->path, -1, (int64_t)r->index, "SQLite: %s: %s", what,
			    sqlite3_errmsg(r->db));
}

static int prepare(nsys *r, const char *sql, sqlite3_stmt **q)
{
	if (sqlite3_prepare_v2(r->db, sql, -1, q, NULL) != SQLITE_OK)
		return sql_fail(r, sql);
	return 0;
}

static tf_str intern(nsys *r, const char *s)
{
	return tf_strtab_intern_cstr(r->st, s ? s : "");
}

static tf_str intern_int(nsys *r, int64_t v)
{
	char b[32];
	snprintf(b, sizeof(b), "%" PRId64, v);
	return intern(r, b);
}

/* The track of a thread (gtid) or, with gpu, of the GPU stream of process
 * gtid's pid on device dev. */
static int track_of(nsys *r, int64_t gtid, bool gpu, int64_t dev, int64_t stream, uint32_t *out)
{
	int64_t key[4] = { gpu, gpu ? PID_OF(gtid) : gtid, gpu ? dev : 0, gpu ? stream : 0 };
	if (r->cache_track != UINT32_MAX && !memcmp(key, r->cache_key, sizeof(key))) {
		*out = r->cache_track;
		return 0;
	}
	char b[64];
	tf_str pk = intern_int(r, PID_OF(gtid)), tk;
	if (!gpu) {
		tk = intern_int(r, TID_OF(gtid));
	} else {
		snprintf(b, sizeof(b), "GPU %" PRId64 " stream %" PRId64, dev, stream);
		tk = intern(r, b);
	}
	if (pk == (tf_str)-1 || tk == (tf_str)-1)
		return TF_ENOMEM;
	uint32_t before = tf_ctx_track_count(r->ctx);
	uint32_t id = tf_ctx_track(r->ctx, r->input, pk, tk);
	if (id == UINT32_MAX)
		return TF_ENOMEM;
	if (tf_ctx_track_count(r->ctx) != before) {
		tf_track *t = tf_ctx_track_get(r->ctx, id);
		t->needs_sort = true;
		if (gpu) {
			t->kind = TF_TRACK_GPU;
			t->thread_name = tk;
		}
	}
	memcpy(r->cache_key, key, sizeof(key));
	r->cache_track = id;
	*out = id;
	return 0;
}

static int emit(nsys *r, tf_event *ev)
{
	ev->index = r->index++;
	ev->msg = (tf_message){ -1, 0, 0, -1 };
	return tf_emit(r->ctx, r->sink, ev);
}

/* A complete event from a row whose start and end are columns 0 and 1;
 * a row without both is skipped and counted. */
static int complete(nsys *r, sqlite3_stmt *q, tf_event *ev)
{
	if (sqlite3_column_type(q, 0) != SQLITE_INTEGER || sqlite3_column_type(q, 1) != SQLITE_INTEGER) {
		tf_count_skip(r->ctx, TF_DIAG_bad_event);
		r->index++;
		return 1;
	}
	ev->kind = TF_EV_COMPLETE;
	ev->ts_ns = sqlite3_column_int64(q, 0);
	ev->dur_ns = sqlite3_column_int64(q, 1) - ev->ts_ns;
	return 0;
}

static int step_all(nsys *r, sqlite3_stmt *q, const char *table, int (*row)(nsys *, sqlite3_stmt *))
{
	int rc, s;
	while ((s = sqlite3_step(q)) == SQLITE_ROW)
		if ((rc = row(r, q)) < 0) {
			sqlite3_finalize(q);
			return rc;
		}
	sqlite3_finalize(q);
	if (s != SQLITE_DONE)
		return tf_error_set(r->err, TF_EFORMAT, r->path, -1, (int64_t)r->index, "SQLite: reading %s: %s",
				    table, sqlite3_errstr(s));
	return 0;
}

/* The expression of a name: the first of the StringIds values of id
 * columns cols that is there (after first: "" or "COL, "), else fallback (a quoted SQL string or a
 * column). */
static void name_expr(nsys *r, const char *table, const char *first, const char *const *cols, const char *fallback,
		      char *sel, size_t nsel, char *joins, size_t njoins)
{
	size_t a = 0, b = 0;
	a += (size_t)snprintf(sel + a, nsel - a, "COALESCE(%s", first);
	joins[0] = 0;
	for (int i = 0; cols[i] && r->strings; i++) {
		if (!col_has(r, table, cols[i]))
			continue;
		a += (size_t)snprintf(sel + a, nsel - a, "s%d.value, ", i);
		b += (size_t)snprintf(joins + b, njoins - b, " LEFT JOIN StringIds s%d ON s%d.id = t.%s", i, i,
				      cols[i]);
	}
	if (!b && !*first) /* COALESCE wants two arguments */
		snprintf(sel, nsel, "%s", fallback);
	else
		snprintf(sel + a, nsel - a, "%s)", fallback);
}

/* Kineto's names of CUPTI's memcpy and memory kinds (CUpti_ActivityMemcpyKind,
 * CUpti_ActivityMemoryKind), so the two producers' profiles compare. */
static const char *const copy_kind[] = { "Unknown", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA", "AtoD",
					 "DtoA", "DtoD", "HtoH", "PtoP" };
static const char *const mem_kind[] = { "Unknown", "Pageable", "Pinned", "Device", "Array", "Managed",
					"Device Static", "Managed Static" };

static const char *kind_name(const char *const *t, int n, sqlite3_stmt *q, int col)
{
	int64_t v = sqlite3_column_type(q, col) == SQLITE_INTEGER ? sqlite3_column_int64(q, col) : 0;
	/* CUPTI's memory kind 0 is unknown, Nsight's enum starts at pageable */
	return v >= 0 && v < n ? t[v] : t[0];
}

static int gpu_row(nsys *r, sqlite3_stmt *q)
{
	/* start, end, globalPid, deviceId, streamId, correlationId, name, what, a, b */
	tf_event ev = { 0 };
	if (complete(r, q, &ev))
		return 0;
	int64_t gpid = sqlite3_column_int64(q, 2);
	TF_TRY(track_of(r, gpid, true, sqlite3_column_int64(q, 3), sqlite3_column_int64(q, 4), &ev.track));
	uint64_t corr = (uint64_t)sqlite3_column_int64(q, 5) & 0xFFFFFFFFu;
	ev.corr = corr ? (uint64_t)PID_OF(gpid) << 32 | corr : 0;
	int what = sqlite3_column_int(q, 7);
	char b[96];
	const char *name = (const char *)sqlite3_column_text(q, 6);
	if (what == 1) {
		snprintf(b, sizeof(b), "Memcpy %s (%s -> %s)", kind_name(copy_kind, 11, q, 6),
			 kind_name(mem_kind, 8, q, 8), kind_name(mem_kind, 8, q, 9));
		name = b;
	} else if (what == 2) {
		snprintf(b, sizeof(b), "Memset (%s)", kind_name(mem_kind, 8, q, 8));
		name = b;
	}
	ev.name = intern(r, name);
	ev.cat = intern(r, what == 0 ? "kernel" : what == 1 ? "gpu_memcpy" : "gpu_memset");
	if (ev.name == (tf_str)-1 || ev.cat == (tf_str)-1)
		return TF_ENOMEM;
	return emit(r, &ev);
}

/* Nsight's memory kinds start at pageable (ENUM_CUDA_MEM_KIND: 0 pageable),
 * CUPTI's at unknown: +1 puts them on the table above. */
static int gpu_table(nsys *r, const char *table, int what)
{
	static const char *const need[] = { "start", "end", "globalPid", "deviceId", "streamId", "correlationId", NULL };
	static const char *const knames[] = { "demangledName", "shortName", "mangledName", NULL };
	static const char *const none[] = { NULL };
	if (!table_ready(r, table, need))
		return 0;
	char sel[300], joins[300], extra[200], sql[1200];
	if (what == 0)
		name_expr(r, table, "", knames, "'kernel'", sel, sizeof(sel), joins, sizeof(joins));
	else
		name_expr(r, table, "", none, what == 1 ? "t.copyKind" : "NULL", sel, sizeof(sel), joins, sizeof(joins));
	if (what == 1 && !col_has(r, table, "copyKind"))
		snprintf(sel, sizeof(sel), "0");
	const char *a = what == 1 ? "srcKind" : "memKind", *b = what == 1 ? "dstKind" : "memKind";
	snprintf(extra, sizeof(extra), "%s, %s", col_has(r, table, a) ? (what == 1 ? "t.srcKind + 1" : "t.memKind + 1") : "0",
		 col_has(r, table, b) ? (what == 1 ? "t.dstKind + 1" : "t.memKind + 1") : "0");
	snprintf(sql, sizeof(sql),
		 "SELECT t.start, t.end, t.globalPid, t.deviceId, t.streamId, t.correlationId, %s, %d, %s "
		 "FROM %s t%s ORDER BY t.globalPid, t.deviceId, t.streamId, t.start",
		 sel, what, extra, table, joins);
	sqlite3_stmt *q;
	TF_TRY(prepare(r, sql, &q));
	return step_all(r, q, table, gpu_row);
}

/* "cudaLaunchKernel_v7000": Nsight's name of the runtime entry point with
 * its version; Kineto and the CUDA documentation say cudaLaunchKernel. */
static size_t api_len(const char *s)
{
	size_t n = strlen(s), i = n;
	while (i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9')
		i--;
	if (i < n && i >= 2 && s[i - 1] == 'v' && s[i - 2] == '_')
		return i - 2;
	return n;
}

static int cpu_row(nsys *r, sqlite3_stmt *q)
{
	/* start, end, globalTid, correlationId or eventType, name, what */
	tf_event ev = { 0 };
	int what = sqlite3_column_int(q, 5);
	if (what == 1) { /* NVTX */
		int type = sqlite3_column_int(q, 3);
		if (type == NVTX_MARK && sqlite3_column_type(q, 0) == SQLITE_INTEGER) {
			ev.kind = TF_EV_INSTANT;
			ev.ts_ns = sqlite3_column_int64(q, 0);
		} else if (type != NVTX_PUSHPOP && type != NVTX_STARTEND && type != NVTXT_PUSHPOP &&
			   type != NVTXT_STARTEND) {
			tf_count_skip(r->ctx, TF_DIAG_ev_other);
			r->index++;
			return 0;
		} else if (complete(r, q, &ev)) {
			return 0;
		}
	} else if (complete(r, q, &ev)) {
		return 0;
	}
	if (sqlite3_column_type(q, 2) != SQLITE_INTEGER) { /* a sync without its runtime call */
		tf_count_skip(r->ctx, TF_DIAG_bad_event);
		r->index++;
		return 0;
	}
	int64_t gtid = sqlite3_column_int64(q, 2);
	TF_TRY(track_of(r, gtid, false, 0, 0, &ev.track));
	const char *name = (const char *)sqlite3_column_text(q, 4);
	char b[200];
	if (what == 0) {
		uint64_t corr = (uint64_t)sqlite3_column_int64(q, 3) & 0xFFFFFFFFu;
		ev.corr = corr ? (uint64_t)PID_OF(gtid) << 32 | corr : 0;
		if (name) {
			size_t n = api_len(name);
			snprintf(b, sizeof(b), "%.*s", (int)(n < 199 ? n : 199), name);
			name = b;
		}
	} else if (what == 2) {
		snprintf(b, sizeof(b), "[sync] %s", name ? name : "unknown");
		name = b;
	}
	ev.name = intern(r, name ? name : what == 1 ? "[nvtx]" : "[cuda runtime]");
	ev.cat = intern(r, what == 0 ? "cuda_runtime" : what == 1 ? "nvtx" : "sync");
	if (ev.name == (tf_str)-1 || ev.cat == (tf_str)-1)
		return TF_ENOMEM;
	return emit(r, &ev);
}

static int runtime_table(nsys *r)
{
	static const char *const need[] = { "start", "end", "globalTid", "correlationId", NULL };
	static const char *const names[] = { "nameId", NULL };
	const char *table = "CUPTI_ACTIVITY_KIND_RUNTIME";
	if (!table_ready(r, table, need))
		return 0;
	char sel[200], joins[200], sql[700];
	name_expr(r, table, "", names, "NULL", sel, sizeof(sel), joins, sizeof(joins));
	snprintf(sql, sizeof(sql),
		 "SELECT t.start, t.end, t.globalTid, t.correlationId, %s, 0 FROM %s t%s ORDER BY t.globalTid, t.start",
		 sel, table, joins);
	sqlite3_stmt *q;
	TF_TRY(prepare(r, sql, &q));
	return step_all(r, q, table, cpu_row);
}

static int nvtx_table(nsys *r)
{
	static const char *const need[] = { "start", "end", "globalTid", "eventType", NULL };
	static const char *const names[] = { "textId", NULL };
	const char *table = "NVTX_EVENTS";
	if (!table_ready(r, table, need))
		return 0;
	char sel[200], joins[200], sql[700];
	/* the text itself first, its id second */
	name_expr(r, table, col_has(r, table, "text") ? "t.text, " : "", names, "NULL", sel, sizeof(sel), joins,
		  sizeof(joins));
	snprintf(sql, sizeof(sql),
		 "SELECT t.start, t.end, t.globalTid, t.eventType, %s, 1 FROM %s t%s "
		 "WHERE t.globalTid IS NOT NULL ORDER BY t.globalTid, t.start",
		 sel, table, joins);
	sqlite3_stmt *q;
	TF_TRY(prepare(r, sql, &q));
	return step_all(r, q, table, cpu_row);
}

/* A synchronization has no thread: its runtime call (same correlationId,
 * same process) has, and the wait is a child of that call. */
static int sync_table(nsys *r)
{
	static const char *const need[] = { "start", "end", "globalPid", "correlationId", NULL };
	const char *table = "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", *rt = "CUPTI_ACTIVITY_KIND_RUNTIME";
	if (!table_ready(r, table, need) || !table_has(r, rt) || !col_has(r, rt, "correlationId") ||
	    !col_has(r, rt, "globalTid"))
		return 0;
	bool label = col_has(r, table, "syncType") && table_has(r, "ENUM_CUPTI_SYNC_TYPE");
	char sql[900];
	snprintf(sql, sizeof(sql),
		 "SELECT t.start, t.end, c.globalTid, 0, %s, 2 FROM %s t "
		 "LEFT JOIN %s c ON c.correlationId = t.correlationId AND c.globalTid >> 24 = t.globalPid >> 24%s "
		 "ORDER BY c.globalTid, t.start",
		 label ? "e.label" : "NULL", table, rt,
		 label ? " LEFT JOIN ENUM_CUPTI_SYNC_TYPE e ON e.id = t.syncType" : "");
	sqlite3_stmt *q;
	TF_TRY(prepare(r, sql, &q));
	return step_all(r, q, table, cpu_row);
}

/* Names of the processes (PROCESSES). */
static int process_names(nsys *r)
{
	sqlite3_stmt *q;
	if (table_has(r, "PROCESSES") && col_has(r, "PROCESSES", "globalPid") && col_has(r, "PROCESSES", "name")) {
		TF_TRY(prepare(r, "SELECT globalPid, name FROM PROCESSES WHERE name IS NOT NULL", &q));
		while (sqlite3_step(q) == SQLITE_ROW) {
			tf_str pk = intern_int(r, PID_OF(sqlite3_column_int64(q, 0)));
			tf_str n = intern(r, (const char *)sqlite3_column_text(q, 1));
			if (pk == (tf_str)-1 || n == (tf_str)-1) {
				sqlite3_finalize(q);
				return TF_ENOMEM;
			}
			tf_ctx_set_process_name(r->ctx, r->input, pk, n);
		}
		sqlite3_finalize(q);
	} else {
		missing(r, "PROCESSES");
	}
	return 0;
}

/* Names of the threads read (ThreadNames), once they are there. */
static int thread_names(nsys *r)
{
	sqlite3_stmt *q;
	if (!r->strings || !table_has(r, "ThreadNames") || !col_has(r, "ThreadNames", "globalTid") ||
	    !col_has(r, "ThreadNames", "nameId")) {
		missing(r, "ThreadNames");
		return 0;
	}
	TF_TRY(prepare(r, "SELECT t.globalTid, s.value FROM ThreadNames t JOIN StringIds s ON s.id = t.nameId", &q));
	while (sqlite3_step(q) == SQLITE_ROW) {
		int64_t g = sqlite3_column_int64(q, 0);
		tf_str pk = intern_int(r, PID_OF(g)), tk = intern_int(r, TID_OF(g));
		tf_str n = intern(r, (const char *)sqlite3_column_text(q, 1));
		if (pk == (tf_str)-1 || tk == (tf_str)-1 || n == (tf_str)-1) {
			sqlite3_finalize(q);
			return TF_ENOMEM;
		}
		uint32_t id = tf_ctx_track_find(r->ctx, r->input, pk, tk);
		if (id != UINT32_MAX)
			tf_ctx_track_get(r->ctx, id)->thread_name = n;
	}
	sqlite3_finalize(q);
	return 0;
}

static const char *const nsight_tables[] = {
	"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET",
	"CUPTI_ACTIVITY_KIND_RUNTIME", "NVTX_EVENTS", "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", NULL,
};

static int read_all(nsys *r)
{
	bool any = false;
	sqlite3_stmt *q;
	/* a damaged database says so here, not as "no Nsight tables" */
	int s = sqlite3_prepare_v2(r->db, "SELECT count(*) FROM sqlite_master", -1, &q, NULL);
	if (s == SQLITE_OK) {
		s = sqlite3_step(q);
		sqlite3_finalize(q);
	}
	if (s == SQLITE_NOTADB) /* sniffed from the decompressed head: a gzipped export */
		return tf_error_set(r->err, TF_EFORMAT, r->path, 0, -1,
				    "not a SQLite database as it is (an Nsight Systems export is read as the "
				    "file itself: decompress it first)");
	if (s != SQLITE_ROW)
		return tf_error_set(r->err, TF_EFORMAT, r->path, -1, -1, "SQLite: %s", sqlite3_errstr(s));
	for (int i = 0; nsight_tables[i]; i++)
		any |= table_has(r, nsight_tables[i]);
	if (!any)
		return tf_error_set(r->err, TF_EFORMAT, r->path, -1, -1,
				    "a SQLite database but not an Nsight Systems export: none of the tables "
				    "CUPTI_ACTIVITY_KIND_KERNEL, _MEMCPY, _MEMSET, _RUNTIME, _SYNCHRONIZATION or "
				    "NVTX_EVENTS is there");
	r->strings = table_has(r, "StringIds") && col_has(r, "StringIds", "id") && col_has(r, "StringIds", "value");
	if (!r->strings)
		missing(r, "StringIds (names)");
	TF_TRY(process_names(r));
	TF_TRY(runtime_table(r));
	TF_TRY(nvtx_table(r));
	TF_TRY(sync_table(r));
	TF_TRY(gpu_table(r, "CUPTI_ACTIVITY_KIND_KERNEL", 0));
	TF_TRY(gpu_table(r, "CUPTI_ACTIVITY_KIND_MEMCPY", 1));
	TF_TRY(gpu_table(r, "CUPTI_ACTIVITY_KIND_MEMSET", 2));
	TF_TRY(thread_names(r));
	if (r->missing[0])
		tf_ctx_note(r->ctx, "'%s': Nsight Systems export without %s", r->path, r->missing);
	return 0;
}

static int read_input(const char *path, uint32_t input, tf_ctx *ctx, tf_sink *sink, tf_error *err)
{
	nsys r = { .path = path, .input = input, .ctx = ctx, .sink = sink, .st = tf_ctx_strtab(ctx), .err = err,
		   .cache_track = UINT32_MAX };
	if (!strcmp(path, "-"))
		return tf_error_set(err, TF_EUSAGE, path, -1, -1,
				    "an Nsight Systems export cannot be read from standard input (SQLite reads a file)");
	if (sqlite3_open_v2(path, &r.db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		tf_error_set(err, TF_EFORMAT, path, -1, -1, "SQLite: %s", r.db ? sqlite3_errmsg(r.db) : "out of memory");
		sqlite3_close(r.db);
		return TF_EFORMAT;
	}
	int rc = read_all(&r);
	sqlite3_close(r.db);
	return rc;
}

/* The first 4 KiB of an export is the first page of the database, which
 * names its tables only when they all fit in it (an Nsight export has ~50:
 * they do not).  So the SQLite header is enough here; read says clearly
 * when a SQLite database is no Nsight export. */
static int sniff(const char *path, int is_dir, const unsigned char *head, size_t n, bool whole)
{
	(void)path;
	(void)whole;
	return !is_dir && n >= 16 && memcmp(head, "SQLite format 3", 16) == 0 ? TF_SNIFF_YES : TF_SNIFF_NO;
}

const tf_format tf_format_nsys = {
	.name = "nsys",
	.description = "Nsight Systems SQLite exports (nsys export --type sqlite: CUDA activity, runtime, NVTX)",
	.sniff = sniff,
	.read = read_input, /* one part: GPU activities go under launches of any thread */
};
