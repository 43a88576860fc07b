/* test_tau.c - the TAU reader: layouts and byte orders, EDF quirks, user-event
 * triples, messages, flushes, unknown ids and EDF re-reads, truncation, merged
 * traces.  Run from the repository root (tests/run.sh does). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "tracefold/reader.h"
#include "../../src/read/tau.h"

extern const tf_format tf_format_tau;

/* ---- a sink that keeps copies of the events ---- */

typedef struct coll {
	tf_sink sink;
	tf_event *ev;
	size_t n, cap;
	int (*hook)(struct coll *c, const tf_event *ev);
	void *arg;
} coll;

static int coll_event(tf_sink *s, const tf_event *ev)
{
	coll *c = tf_container_of(s, coll, sink);
	if (c->n == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 256;
		c->ev = realloc(c->ev, c->cap * sizeof(*c->ev));
		assert_non_null(c->ev);
	}
	c->ev[c->n++] = *ev;
	return c->hook ? c->hook(c, ev) : 0;
}

static void coll_init(coll *c)
{
	memset(c, 0, sizeof(*c));
	c->sink.event = coll_event;
}

/* Reads path with the TAU reader into c; returns the reader's result. */
static int read_tau(tf_ctx *ctx, const char *path, coll *c, tf_error *err)
{
	tf_error_clear(err);
	return tf_format_tau.read(path, 0, ctx, &c->sink, err);
}

static uint64_t diag(tf_ctx *ctx, tf_diag_id id) { return tf_ctx_diag(ctx)->n[id]; }

/* events_read == every kind + every skip */
static void check_accounting(tf_ctx *ctx)
{
	const tf_diag *d = tf_ctx_diag(ctx);
	uint64_t sum = 0;
	for (int i = 0; i < TF_DIAG_COUNT; i++) {
		tf_severity s = tf_diag_severity(i);
		if (i == TF_DIAG_events_read || s == TF_SEV_REPAIR)
			continue;
		if (s == TF_SEV_INFO || s == TF_SEV_SKIP || s == TF_SEV_WARN)
			sum += d->n[i];
	}
	assert_int_equal(sum, d->n[TF_DIAG_events_read]);
}

static const char *S(tf_ctx *ctx, tf_str id) { return tf_strtab_get(tf_ctx_strtab(ctx), id); }

/* ---- writing synthetic traces ---- */

static char tmpdir[256];

static void make_tmpdir(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "%s/tf-tau-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	assert_non_null(mkdtemp(tmpdir));
}

static void rm_tmpdir(void)
{
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	assert_int_equal(system(cmd), 0);
}

static char *tpath(const char *name)
{
	static char buf[4][512];
	static int k;
	k = (k + 1) % 4;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", tmpdir, name);
	return buf[k];
}

static void write_file(const char *path, const void *data, size_t n)
{
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
}

static void *read_file(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	long len = ftell(f);
	fseek(f, 0, SEEK_SET);
	void *p = malloc((size_t)len + 1);
	assert_int_equal(fread(p, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	*n = (size_t)len;
	return p;
}

static void put(unsigned char *p, uint64_t v, int bytes, int big)
{
	for (int i = 0; i < bytes; i++)
		p[big ? bytes - 1 - i : i] = (unsigned char)(v >> (8 * i));
}

/* Encodes a record in an explicit layout: 24/32 bytes, little/big endian. */
static void enc(unsigned char *p, const tf_tau_rec *r, unsigned recsize, int big)
{
	memset(p, 0, recsize);
	if (recsize == 24) {
		put(p, (uint32_t)r->ev, 4, big);
		put(p + 4, r->nid, 2, big);
		put(p + 6, r->tid, 2, big);
		put(p + 8, (uint64_t)r->par, 8, big);
		put(p + 16, r->ti, 8, big);
	} else {
		put(p, (uint64_t)r->ev, 8, big);
		put(p + 8, r->nid, 2, big);
		put(p + 10, r->tid, 2, big);
		put(p + 16, (uint64_t)r->par, 8, big);
		put(p + 24, r->ti, 8, big);
	}
}

static int host_big(void)
{
	uint16_t x = 1;
	unsigned char b;
	memcpy(&b, &x, 1);
	return b == 0;
}

/* Re-encodes a native 24-byte trace in another layout. */
static void convert_trace(const char *in, const char *out, unsigned recsize, int big)
{
	size_t n;
	unsigned char *src = read_file(in, &n);
	tf_tau_layout nat = { 24, false, false };
	size_t nrec = n / 24;
	unsigned char *dst = calloc(nrec, recsize);
	for (size_t i = 0; i < nrec; i++) {
		tf_tau_rec r;
		tf_tau_decode(src + i * 24, nat, &r);
		enc(dst + i * recsize, &r, recsize, big);
	}
	write_file(out, dst, nrec * recsize);
	free(src);
	free(dst);
}

static void copy_file(const char *from, const char *to)
{
	size_t n;
	void *p = read_file(from, &n);
	write_file(to, p, n);
	free(p);
}

static const char *SYN_EDF =
	"12 dynamic_trace_events\n" /* one more than the lines: TAU's quirk */
	"# FunctionId Group Tag \"Name Type\" Parameters\n"
	"0 TAUEVENT 0 \".TAU <unknown event>\" TriggerValue\n"
	"1 TAU_DEFAULT 0 \"main \" EntryExit\n"
	"2 MPI 0 \"MPI_Send()  \" EntryExit\n"
	"3 TAUEVENT 1 \"ev\" TriggerValue\n"
	"4 TAUEVENT 0 \"TauTraceClockOffsetStart\" TriggerValue\n"
	"5 TAUEVENT 0 \"Hostname | vm\" TriggerValue\n"
	"60000 TRACER 0 \"EV_INIT\" none\n"
	"60001 TRACER 0 \"FLUSH\" EntryExit\n"
	"60003 TRACER 0 \"FLUSH_CLOSE\" none\n"
	"60005 TRACER 0 \"WALL_CLOCK\" none\n"
	"60007 TAU_MESSAGE -7 \"MESSAGE_SEND\" par\n"
	"60008 TAU_MESSAGE -8 \"MESSAGE_RECV\" par\n";

/* Writes records (native-order 24-byte) as tmpdir/tautrace.0.0.0.trc with SYN_EDF. */
static const char *write_syn(const tf_tau_rec *recs, size_t n, const char *edf)
{
	unsigned char *buf = calloc(n ? n : 1, 24);
	for (size_t i = 0; i < n; i++)
		enc(buf + i * 24, &recs[i], 24, host_big());
	write_file(tpath("tautrace.0.0.0.trc"), buf, n * 24);
	free(buf);
	write_file(tpath("events.0.edf"), edf ? edf : SYN_EDF, strlen(edf ? edf : SYN_EDF));
	return tpath("tautrace.0.0.0.trc");
}

#define R(ev, par, ti) { (ev), 0, 0, (par), (ti) }

/* ---- tests ---- */

static void test_msg_unpack(void **state)
{
	/* pack 100000 bytes, tag 1302, partner 1, comm 5 as TAU does */
	uint64_t len = 100000, tag = 1302, peer = 1, comm = 5;
	uint64_t par = (len & 0xFFFF) | ((tag & 0xFF) << 16) | ((peer & 0xFF) << 24) |
		       ((len >> 16 & 0x3FF) << 32) | ((comm & 0x3F) << 42) | ((tag >> 8 & 0xFF) << 48) |
		       ((peer >> 8 & 0xFF) << 56);
	tf_message m;
	tf_tau_unpack_msg((int64_t)par, &m);
	assert_int_equal(m.bytes, 100000);
	assert_int_equal(m.tag, 1302);
	assert_int_equal(m.peer, 1);
	assert_int_equal(m.comm, 5);
	/* partner 0x1234 (high byte set: the parameter is negative as int64) */
	par = (0x34ull << 24) | (0x12ull << 56) | 7;
	tf_tau_unpack_msg((int64_t)par, &m);
	assert_int_equal(m.peer, 0x1234);
	assert_int_equal(m.bytes, 7);
	assert_int_equal(m.tag, 0);
	assert_int_equal(m.comm, 0);
}

/* The real MPI fixture: messages decode to the README's table. */
static void test_mpi_messages(void **state)
{
	tf_ctx *ctx = tf_ctx_new();
	coll c;
	coll_init(&c);
	tf_error err;
	assert_int_equal(read_tau(ctx, "tests/data/tau/mpi_small", &c, &err), 0);
	int nsend[2] = { 0 }, nrecv[2] = { 0 };
	for (size_t i = 0; i < c.n; i++) {
		const tf_event *e = &c.ev[i];
		if (e->kind != TF_EV_SEND && e->kind != TF_EV_RECV)
			continue;
		const tf_track *t = tf_ctx_track_get(ctx, e->track);
		int rank = (int)t->rank, k = e->kind == TF_EV_SEND ? nsend[rank]++ : nrecv[rank]++;
		static const int64_t bytes[3] = { 1024, 2048, 100000 };
		/* rank 0 sends tags 300+i and receives 1300+i; rank 1 the mirror */
		int64_t base = (e->kind == TF_EV_SEND) == (rank == 0) ? 300 : 1300;
		assert_int_equal(e->msg.peer, 1 - rank);
		assert_int_equal(e->msg.tag, base + k);
		assert_int_equal(e->msg.bytes, bytes[k]);
		assert_int_equal(e->msg.comm, 0);
	}
	assert_int_equal(nsend[0], 3);
	assert_int_equal(nsend[1], 3);
	assert_int_equal(nrecv[0], 3);
	assert_int_equal(nrecv[1], 3);
	assert_int_equal(diag(ctx, TF_DIAG_events_read), 684);
	assert_int_equal(diag(ctx, TF_DIAG_ev_counter), 32); /* 14 triples + 2 singles per rank */
	check_accounting(ctx);
	free(c.ev);
	tf_ctx_free(ctx);
}

/* Reads the tiny fixture in every layout and byte order: same events. */
static void test_layouts(void **state)
{
	make_tmpdir();
	tf_ctx *ref_ctx = tf_ctx_new();
	coll ref;
	coll_init(&ref);
	tf_error err;
	assert_int_equal(read_tau(ref_ctx, "tests/data/tau/tiny/tautrace.0.0.0.trc", &ref, &err), 0);
	assert_int_equal(diag(ref_ctx, TF_DIAG_events_read), 617);
	assert_int_equal(diag(ref_ctx, TF_DIAG_ev_duration), 184);
	assert_int_equal(diag(ref_ctx, TF_DIAG_ev_counter), 70);
	assert_int_equal(diag(ref_ctx, TF_DIAG_ev_metadata), 73);
	assert_int_equal(diag(ref_ctx, TF_DIAG_tau_trigger_frame), 286);
	assert_int_equal(diag(ref_ctx, TF_DIAG_ev_tracer), 4);
	check_accounting(ref_ctx);
	copy_file("tests/data/tau/tiny/events.0.edf", tpath("events.0.edf"));
	static const struct { unsigned rs; int big; } lay[4] = { { 24, 0 }, { 24, 1 }, { 32, 0 }, { 32, 1 } };
	for (int k = 0; k < 4; k++) {
		convert_trace("tests/data/tau/tiny/tautrace.0.0.0.trc", tpath("tautrace.0.0.0.trc"), lay[k].rs,
			      lay[k].big);
		size_t n;
		unsigned char *head = read_file(tpath("tautrace.0.0.0.trc"), &n);
		assert_int_equal(n, 617 * lay[k].rs);
		tf_tau_layout l = tf_tau_detect_layout(head, n);
		free(head);
		assert_int_equal(l.recsize, lay[k].rs);
		assert_int_equal(l.swap, lay[k].big != host_big());
		assert_false(l.guessed);
		tf_ctx *ctx = tf_ctx_new();
		coll c;
		coll_init(&c);
		assert_int_equal(read_tau(ctx, tpath("tautrace.0.0.0.trc"), &c, &err), 0);
		assert_int_equal(c.n, ref.n);
		for (size_t i = 0; i < c.n; i++) {
			assert_int_equal(c.ev[i].kind, ref.ev[i].kind);
			assert_int_equal(c.ev[i].ts_ns, ref.ev[i].ts_ns);
			assert_string_equal(S(ctx, c.ev[i].name), S(ref_ctx, ref.ev[i].name));
			assert_true(c.ev[i].value == ref.ev[i].value);
		}
		assert_memory_equal(tf_ctx_diag(ctx), tf_ctx_diag(ref_ctx), sizeof(tf_diag));
		free(c.ev);
		tf_ctx_free(ctx);
	}
	/* the events themselves: names trimmed, begin/end, counters */
	assert_int_equal(ref.ev[0].kind, TF_EV_BEGIN);
	assert_string_equal(S(ref_ctx, ref.ev[0].name), ".TAU application");
	assert_int_equal(ref.ev[0].ts_ns, 1795345833445942000ll);
	assert_string_equal(S(ref_ctx, ref.ev[1].name), "main");
	assert_string_equal(S(ref_ctx, ref.ev[1].cat), "TAU_DEFAULT");
	assert_int_equal(ref.ev[4].kind, TF_EV_COUNTER);
	assert_string_equal(S(ref_ctx, ref.ev[4].name), "bytes processed");
	assert_true(ref.ev[4].value == 1024.0);
	assert_int_equal(ref.ev[5].kind, TF_EV_END);
	assert_string_equal(S(ref_ctx, ref.ev[5].name), "B");
	const tf_track *t = tf_ctx_track_get(ref_ctx, 0);
	assert_string_equal(S(ref_ctx, t->process_key), "0");
	assert_string_equal(S(ref_ctx, t->thread_key), "0");
	assert_string_equal(S(ref_ctx, t->thread_name), "thread 0");
	assert_int_equal(t->rank, 0);
	assert_false(t->needs_sort);
	free(ref.ev);
	tf_ctx_free(ref_ctx);
	rm_tmpdir();
}

static void test_edf_lines(void **state)
{
	tf_tau_edf_line l;
	const char *s = "90 dynamic_trace_events\n";
	assert_int_equal(tf_tau_edf_parse_line(s, strlen(s), &l), 0);
	s = "# FunctionId Group Tag \"Name Type\" Parameters\n";
	assert_int_equal(tf_tau_edf_parse_line(s, strlen(s), &l), 0);
	assert_int_equal(tf_tau_edf_parse_line("\n", 1, &l), 0);
	s = "9 MPI 0 \"MPI_Send()  \" EntryExit\r\n";
	assert_int_equal(tf_tau_edf_parse_line(s, strlen(s), &l), 1);
	assert_int_equal(l.id, 9);
	assert_int_equal(l.group_len, 3);
	assert_memory_equal(l.group, "MPI", 3);
	assert_int_equal(l.tag, 0);
	assert_int_equal(l.name_len, 12);
	assert_memory_equal(l.name, "MPI_Send()  ", 12);
	assert_int_equal(tf_tau_trim_len(l.name, l.name_len), 10);
	assert_int_equal(l.kind_len, 9);
	assert_memory_equal(l.kind, "EntryExit", 9);
	/* quotes, | and spaces in names: the name runs to the last quote */
	s = "14 TAUEVENT 0 \"CWD | /tmp/a \"b\" c\" TriggerValue\n";
	assert_int_equal(tf_tau_edf_parse_line(s, strlen(s), &l), 1);
	assert_int_equal(l.name_len, strlen("CWD | /tmp/a \"b\" c"));
	assert_memory_equal(l.name, "CWD | /tmp/a \"b\" c", l.name_len);
	s = "60007 TAU_MESSAGE -7 \"MESSAGE_SEND\" par\n";
	assert_int_equal(tf_tau_edf_parse_line(s, strlen(s), &l), 1);
	assert_int_equal(l.tag, -7);
	assert_int_equal(l.id, 60007);
	/* malformed */
	s = "x TAUEVENT 0 \"a\" TriggerValue\n";
	assert_int_equal(tf_tau_edf_parse_line(s, strlen(s), &l), -1);
	s = "3 TAUEVENT 0 \"unterminated TriggerValue\n";
	assert_int_equal(tf_tau_edf_parse_line(s, strlen(s), &l), -1);
	s = "3 TAUEVENT zero \"a\" TriggerValue\n";
	assert_int_equal(tf_tau_edf_parse_line(s, strlen(s), &l), -1);
}

/* An EDF with quirks, through the reader: names, metadata split, a bad line. */
static void test_edf_quirks(void **state)
{
	make_tmpdir();
	const char *edf =
		"99 dynamic_trace_events\r\n"
		"# comment\r\n"
		"\r\n"
		"1 TAU_USER 0 \"a \"quoted\" name  \" EntryExit\r\n"
		"2 TAUEVENT 0 \"TAU Config |  -pthread -x\" TriggerValue\r\n"
		"3 TAUEVENT 0 \"TAU_CUDA_BINARY_EXE | \" TriggerValue\r\n"
		"4 TAUEVENT 0 \"x|y\" TriggerValue\r\n"
		"this line is garbage\r\n"
		"60000 TRACER 0 \"EV_INIT\" none\r\n";
	tf_tau_rec recs[] = { R(60000, 3, 10), R(1, 1, 11), R(2, 0, 12), R(2, 1, 12), R(2, 0, 12),
			      R(3, 0, 13), R(3, 1, 13), R(3, 0, 13), R(4, 5, 14), R(1, -1, 15) };
	const char *trc = write_syn(recs, 10, edf);
	tf_ctx *ctx = tf_ctx_new();
	coll c;
	coll_init(&c);
	tf_error err;
	assert_int_equal(read_tau(ctx, trc, &c, &err), 0);
	assert_int_equal(c.n, 5);
	assert_int_equal(c.ev[0].kind, TF_EV_BEGIN);
	assert_string_equal(S(ctx, c.ev[0].name), "a \"quoted\" name");
	assert_int_equal(c.ev[1].kind, TF_EV_METADATA);
	assert_string_equal(S(ctx, c.ev[1].name), "TAU Config");
	assert_string_equal(S(ctx, c.ev[1].cat), " -pthread -x");
	assert_int_equal(c.ev[2].kind, TF_EV_METADATA);
	assert_string_equal(S(ctx, c.ev[2].name), "TAU_CUDA_BINARY_EXE");
	assert_string_equal(S(ctx, c.ev[2].cat), "");
	assert_int_equal(c.ev[3].kind, TF_EV_COUNTER); /* "x|y" is no metadata */
	assert_string_equal(S(ctx, c.ev[3].name), "x|y");
	assert_int_equal(c.ev[4].kind, TF_EV_END);
	assert_string_equal(S(ctx, c.ev[4].name), "a \"quoted\" name");
	assert_int_equal(tf_ctx_nnotes(ctx), 1); /* the garbage line */
	assert_non_null(strstr(tf_ctx_note_get(ctx, 0), "line 8"));
	check_accounting(ctx);
	free(c.ev);
	tf_ctx_free(ctx);
	rm_tmpdir();
}

/* 0/value/0 triples, singles, flushes inside a triple, zero values. */
static void test_triples(void **state)
{
	make_tmpdir();
	tf_tau_rec recs[] = {
		R(60000, 3, 100), R(60005, 1700000000, 100),
		R(1, 1, 101),
		R(4, 0, 102),                             /* single (clock offset), value 0 */
		R(3, 0, 103), R(3, 7, 103), R(3, 0, 104), /* triple: 7 */
		R(3, 0, 105), R(60001, 1, 105), R(60001, -1, 106), R(3, 9, 106), R(3, 0, 106), /* flush inside */
		R(3, 0, 107), R(3, 0, 107), R(3, 0, 107), /* triple of value 0 */
		R(4, 0, 108), R(3, 0, 108), R(3, 5, 108), R(3, 0, 108), /* single then a triple */
		R(3, 4, 109),                             /* a lone non-zero: single */
		R(3, 0, 110), R(3, 2, 110), R(1, -1, 111), /* broken triple: two singles, then the end */
		R(5, 0, 112), R(5, 1, 112), R(5, 0, 112), /* metadata */
		R(60003, 0, 113), R(60005, 1700000001, 113),
	};
	size_t n = sizeof(recs) / sizeof(recs[0]);
	const char *trc = write_syn(recs, n, NULL);
	tf_ctx *ctx = tf_ctx_new();
	coll c;
	coll_init(&c);
	tf_error err;
	assert_int_equal(read_tau(ctx, trc, &c, &err), 0);
	struct { int kind; const char *name; double v; int64_t ts_us; } want[] = {
		{ TF_EV_BEGIN, "main", 0, 101 },
		{ TF_EV_COUNTER, "TauTraceClockOffsetStart", 0, 102 },
		{ TF_EV_COUNTER, "ev", 7, 103 },
		{ TF_EV_COUNTER, "ev", 9, 106 },
		{ TF_EV_COUNTER, "ev", 0, 107 },
		{ TF_EV_COUNTER, "TauTraceClockOffsetStart", 0, 108 },
		{ TF_EV_COUNTER, "ev", 5, 108 },
		{ TF_EV_COUNTER, "ev", 4, 109 },
		{ TF_EV_COUNTER, "ev", 0, 110 },
		{ TF_EV_COUNTER, "ev", 2, 110 },
		{ TF_EV_END, "main", 0, 111 },
		{ TF_EV_METADATA, "Hostname", 0, 112 },
	};
	size_t nw = sizeof(want) / sizeof(want[0]);
	assert_int_equal(c.n, nw);
	for (size_t i = 0; i < nw; i++) {
		assert_int_equal(c.ev[i].kind, want[i].kind);
		assert_string_equal(S(ctx, c.ev[i].name), want[i].name);
		if (want[i].kind == TF_EV_COUNTER)
			assert_true(c.ev[i].value == want[i].v);
		assert_int_equal(c.ev[i].ts_ns, want[i].ts_us * 1000);
	}
	assert_string_equal(S(ctx, c.ev[nw - 1].cat), "vm");
	assert_int_equal(diag(ctx, TF_DIAG_tau_trigger_frame), 10);
	assert_int_equal(diag(ctx, TF_DIAG_ev_tracer), 6); /* incl. the 2 FLUSH records */
	assert_int_equal(diag(ctx, TF_DIAG_events_read), n);
	check_accounting(ctx);
	free(c.ev);
	tf_ctx_free(ctx);

	/* --tau-flush: the flush becomes a region */
	ctx = tf_ctx_new();
	tf_ctx_opts(ctx)->show_tau_flush = true;
	coll_init(&c);
	assert_int_equal(read_tau(ctx, trc, &c, &err), 0);
	assert_int_equal(c.n, nw + 2);
	assert_int_equal(c.ev[3].kind, TF_EV_BEGIN);
	assert_string_equal(S(ctx, c.ev[3].name), "[TAU trace flush]");
	assert_int_equal(c.ev[4].kind, TF_EV_END);
	assert_string_equal(S(ctx, c.ev[4].name), "[TAU trace flush]");
	assert_int_equal(c.ev[5].kind, TF_EV_COUNTER);
	assert_true(c.ev[5].value == 9);
	assert_int_equal(diag(ctx, TF_DIAG_ev_tracer), 4);
	check_accounting(ctx);
	free(c.ev);
	tf_ctx_free(ctx);
	rm_tmpdir();
}

/* Messages, multiple nodes/threads in one (merged-style) file, regions with a bad parameter. */
static void test_demux(void **state)
{
	make_tmpdir();
	uint64_t par = (100000 & 0xFFFF) | ((1302ull & 0xFF) << 16) | (1ull << 24) | ((100000ull >> 16) << 32) |
		       ((1302ull >> 8) << 48);
	tf_tau_rec recs[] = {
		{ 60000, 0, 0, 3, 1 }, { 60000, 1, 2, 3, 1 },
		{ 1, 0, 0, 1, 2 }, { 1, 1, 2, 1, 3 },
		{ 60007, 0, 0, (int64_t)par, 4 }, { 60008, 1, 2, (int64_t)par, 5 },
		{ 3, 0, 0, 0, 6 }, { 3, 1, 2, 0, 6 }, { 3, 0, 0, 8, 6 }, { 3, 1, 2, 9, 6 },
		{ 3, 0, 0, 0, 6 }, { 3, 1, 2, 0, 6 },
		{ 1, 0, 0, 5, 7 }, /* neither entry nor exit */
		{ 1, 1, 2, -1, 8 }, { 1, 0, 0, -1, 9 },
	};
	size_t n = sizeof(recs) / sizeof(recs[0]);
	write_syn(recs, n, NULL);
	/* as tau_merge writes it: tau.trc with tau.edf, whose ids are global (an
	 * events.<node>.edf describes its node only) */
	const char *trc = tpath("tau.trc");
	assert_int_equal(rename(tpath("tautrace.0.0.0.trc"), trc), 0);
	assert_int_equal(rename(tpath("events.0.edf"), tpath("tau.edf")), 0);
	tf_ctx *ctx = tf_ctx_new();
	coll c;
	coll_init(&c);
	tf_error err;
	assert_int_equal(read_tau(ctx, trc, &c, &err), 0);
	assert_int_equal(tf_ctx_nnotes(ctx), 0);
	assert_int_equal(tf_ctx_track_count(ctx), 2);
	const tf_track *t1 = tf_ctx_track_get(ctx, 1);
	assert_string_equal(S(ctx, t1->process_key), "1");
	assert_string_equal(S(ctx, t1->thread_key), "2");
	assert_string_equal(S(ctx, t1->thread_name), "thread 2");
	assert_int_equal(t1->rank, 1);
	int nsend = 0, nrecv = 0, nctr = 0;
	for (size_t i = 0; i < c.n; i++) {
		const tf_event *e = &c.ev[i];
		if (e->kind == TF_EV_SEND || e->kind == TF_EV_RECV) {
			assert_int_equal(e->msg.bytes, 100000);
			assert_int_equal(e->msg.tag, 1302);
			assert_int_equal(e->msg.peer, 1);
			assert_int_equal(e->track, e->kind == TF_EV_SEND ? 0 : 1);
			nsend += e->kind == TF_EV_SEND;
			nrecv += e->kind == TF_EV_RECV;
		}
		if (e->kind == TF_EV_COUNTER) {
			assert_true(e->value == (e->track == 0 ? 8 : 9));
			nctr++;
		}
	}
	assert_int_equal(nsend, 1);
	assert_int_equal(nrecv, 1);
	assert_int_equal(nctr, 2);
	assert_int_equal(diag(ctx, TF_DIAG_bad_event), 1);
	assert_int_equal(diag(ctx, TF_DIAG_ev_duration), 4);
	check_accounting(ctx);
	free(c.ev);
	tf_ctx_free(ctx);
	rm_tmpdir();
}

/* An id defined while the program ran: the sink appends its definition to the
 * EDF after the first event, the reader re-reads the EDF when it meets it. */
static int append_def(coll *c, const tf_event *ev)
{
	if (c->n == 1) {
		FILE *f = fopen(c->arg, "a");
		assert_non_null(f);
		fputs("7 TAU_USER 0 \"late \" EntryExit\n", f);
		fclose(f);
	}
	return 0;
}

static void test_unknown_ids(void **state)
{
	make_tmpdir();
	tf_tau_rec recs[] = { R(60000, 3, 1), R(1, 1, 2), R(7, 1, 3), R(7, -1, 4), R(8, 1, 5), R(8, -1, 6),
			      R(1, -1, 7) };
	const char *trc = write_syn(recs, 7, NULL);
	tf_ctx *ctx = tf_ctx_new();
	coll c;
	coll_init(&c);
	c.hook = append_def;
	c.arg = tpath("events.0.edf");
	tf_error err;
	assert_int_equal(read_tau(ctx, trc, &c, &err), 0);
	assert_int_equal(c.n, 4);
	assert_string_equal(S(ctx, c.ev[1].name), "late");
	assert_int_equal(diag(ctx, TF_DIAG_unknown_event_id), 2); /* id 8, twice */
	assert_int_equal(tf_ctx_nnotes(ctx), 1);
	assert_non_null(strstr(tf_ctx_note_get(ctx, 0), "event id 8"));
	check_accounting(ctx);
	free(c.ev);
	tf_ctx_free(ctx);
	rm_tmpdir();
}

/* A malformed EDF line is noted once, not again on each of the re-reads
 * that unknown ids trigger (found by fuzzing: 16 copies of the note). */
static void test_bad_edf_line_noted_once(void **state)
{
	make_tmpdir();
	tf_tau_rec recs[] = { R(60000, 3, 1), R(1, 1, 2), R(8, 1, 3), R(9, 1, 4), R(1, -1, 7) };
	char edf[2048];
	snprintf(edf, sizeof(edf), "%sthis is not a definition\n", SYN_EDF);
	const char *trc = write_syn(recs, 5, edf);
	tf_ctx *ctx = tf_ctx_new();
	coll c;
	coll_init(&c);
	tf_error err;
	assert_int_equal(read_tau(ctx, trc, &c, &err), 0);
	assert_int_equal(diag(ctx, TF_DIAG_unknown_event_id), 2);
	int line_notes = 0;
	for (size_t i = 0; i < tf_ctx_nnotes(ctx); i++)
		line_notes += strstr(tf_ctx_note_get(ctx, i), "line 15 (byte ") != NULL;
	assert_int_equal(line_notes, 1);
	assert_int_equal(tf_ctx_nnotes(ctx), 3); /* the line, ids 8 and 9 */
	check_accounting(ctx);
	free(c.ev);
	tf_ctx_free(ctx);
	rm_tmpdir();
}

/* An EDF line is under 1 KB; a line longer than 64 KiB (one huge line, or
 * /dev/zero: no newline ever) is a format error naming the EDF and the byte
 * offset of the line, found without reading more than the bound. */
static void test_edf_line_too_long(void **state)
{
	make_tmpdir();
	tf_tau_rec recs[] = { R(60000, 3, 1), R(1, 1, 2), R(1, -1, 3) };
	size_t head = strlen(SYN_EDF), big = 200000;
	char *edf = malloc(head + big + 2);
	memcpy(edf, SYN_EDF, head);
	memset(edf + head, 'x', big);
	edf[head + big] = '\n';
	edf[head + big + 1] = 0;
	const char *trc = write_syn(recs, 3, edf);
	tf_ctx *ctx = tf_ctx_new();
	coll c;
	coll_init(&c);
	tf_error err;
	assert_int_equal(read_tau(ctx, trc, &c, &err), TF_EFORMAT);
	assert_int_equal(err.code, TF_EFORMAT);
	assert_string_equal(err.path, tpath("events.0.edf"));
	assert_int_equal(err.offset, (int64_t)head);
	assert_non_null(strstr(err.msg, "line 15"));
	assert_non_null(strstr(err.msg, "65536"));
	assert_int_equal(c.n, 0);
	tf_ctx_free(ctx);
	free(c.ev);

	/* a line of exactly the bound (newline included) is read (and, being
	 * no definition, ignored with a note) */
	memset(edf + head, 'x', 65535);
	edf[head + 65535] = '\n';
	edf[head + 65536] = 0;
	write_syn(recs, 3, edf);
	ctx = tf_ctx_new();
	coll_init(&c);
	assert_int_equal(read_tau(ctx, trc, &c, &err), 0);
	assert_int_equal(c.n, 2);
	assert_int_equal(tf_ctx_nnotes(ctx), 1);
	assert_non_null(strstr(tf_ctx_note_get(ctx, 0), "line 15"));
	tf_ctx_free(ctx);
	free(c.ev);
	free(edf);

	/* /dev/zero as the EDF: the error at byte 0, at once */
	ctx = tf_ctx_new();
	tf_ctx_opts(ctx)->edf_path = "/dev/zero";
	coll_init(&c);
	assert_int_equal(read_tau(ctx, trc, &c, &err), TF_EFORMAT);
	assert_string_equal(err.path, "/dev/zero");
	assert_int_equal(err.offset, 0);
	tf_ctx_free(ctx);
	free(c.ev);
	rm_tmpdir();
}

/* Writes EV_INIT then n records of id ev (native 24-byte) as tmpdir/name. */
static void write_run(const char *name, int64_t ev, size_t n, const tf_tau_rec *mid, size_t at)
{
	FILE *f = fopen(tpath(name), "wb");
	assert_non_null(f);
	unsigned char b[24];
	tf_tau_rec r = R(60000, 3, 1);
	enc(b, &r, 24, host_big());
	assert_int_equal(fwrite(b, 1, 24, f), 24);
	for (size_t i = 0; i < n; i++) {
		if (mid && i == at) {
			enc(b, mid, 24, host_big());
			assert_int_equal(fwrite(b, 1, 24, f), 24);
		}
		r = (tf_tau_rec)R(ev, 0, 2 + i);
		enc(b, &r, 24, host_big());
		assert_int_equal(fwrite(b, 1, 24, f), 24);
	}
	assert_int_equal(fclose(f), 0);
}

/* A long run of records with no usable definition is no TAU trace: all-zero
 * records (/dev/zero) are triggers of id 0, TAU's ".TAU <unknown event>"
 * placeholder, forever.  1,000,000 such records in a row stop the reader
 * with an error at the run's first byte; fewer, with a defined record
 * between, are read and counted as before. */
static void test_unknown_run(void **state)
{
	make_tmpdir();
	write_syn(NULL, 0, NULL);
	/* /dev/zero with a valid EDF: the placeholder (id 0) forever */
	tf_ctx *ctx = tf_ctx_new();
	tf_ctx_opts(ctx)->edf_path = tpath("events.0.edf");
	coll c;
	coll_init(&c);
	tf_error err;
	assert_int_equal(read_tau(ctx, "/dev/zero", &c, &err), TF_EFORMAT);
	assert_string_equal(err.path, "/dev/zero");
	assert_int_equal(err.offset, 0);
	assert_non_null(strstr(err.msg, "1000000 records in a row"));
	assert_int_equal(diag(ctx, TF_DIAG_events_read), 999999); /* the 1,000,000th is not decoded */
	tf_ctx_free(ctx);
	free(c.ev);

	/* undefined ids: 1,000,000 in a row after EV_INIT stop at byte 24 */
	write_run("tautrace.0.0.0.trc", 4242, 1000000, NULL, 0);
	ctx = tf_ctx_new();
	coll_init(&c);
	assert_int_equal(read_tau(ctx, tpath("tautrace.0.0.0.trc"), &c, &err), TF_EFORMAT);
	assert_int_equal(err.offset, 24);
	assert_int_equal(diag(ctx, TF_DIAG_unknown_event_id), 999999);
	tf_ctx_free(ctx);
	free(c.ev);

	/* 999,999 in a row, a defined record, 999,999 more: read, counted */
	tf_tau_rec known = R(1, 1, 5);
	write_run("tautrace.0.0.0.trc", 4242, 2 * 999999, &known, 999999);
	ctx = tf_ctx_new();
	coll_init(&c);
	assert_int_equal(read_tau(ctx, tpath("tautrace.0.0.0.trc"), &c, &err), 0);
	assert_int_equal(diag(ctx, TF_DIAG_unknown_event_id), 2 * 999999);
	assert_int_equal(c.n, 1);
	check_accounting(ctx);
	tf_ctx_free(ctx);
	free(c.ev);
	rm_tmpdir();
}

/* Node 1's records appended to node 0's file (a mixed-rank file): ids are
 * per node, so they must not be decoded with events.0.edf (MPI_Send and
 * MPI_Recv swap).  With only events.0.edf they are skipped as
 * unknown_event_id with a note naming the file, node 1 and the byte offset
 * of its first record; with events.1.edf beside it they are decoded with it
 * and the events are those of the two files read separately. */
static void test_mixed_nodes(void **state)
{
	make_tmpdir();
	size_t n0, n1;
	unsigned char *a = read_file("tests/data/tau/mpi_small/tautrace.0.0.0.trc", &n0);
	unsigned char *b = read_file("tests/data/tau/mpi_small/tautrace.1.0.0.trc", &n1);
	unsigned char *m = malloc(n0 + n1);
	memcpy(m, a, n0);
	memcpy(m + n0, b, n1);
	write_file(tpath("tautrace.0.0.0.trc"), m, n0 + n1);
	free(a);
	free(b);
	free(m);
	copy_file("tests/data/tau/mpi_small/events.0.edf", tpath("events.0.edf"));
	char want[600];
	snprintf(want, sizeof(want), "'%s' byte %zu: records of node 1, which '%s' does not describe",
		 tpath("tautrace.0.0.0.trc"), n0, tpath("events.0.edf"));

	/* only events.0.edf: node 1 skipped and said, node 0 read */
	char lone[512];
	snprintf(lone, sizeof(lone), "%s", tpath("tautrace.0.0.0.trc"));
	const char *inputs[] = { tmpdir, lone };
	for (int k = 0; k < 2; k++) {
		tf_ctx *ctx = tf_ctx_new();
		coll c;
		coll_init(&c);
		tf_error err;
		assert_int_equal(read_tau(ctx, inputs[k], &c, &err), 0);
		assert_int_equal(diag(ctx, TF_DIAG_unknown_event_id), n1 / 24);
		assert_int_equal(diag(ctx, TF_DIAG_events_read), (n0 + n1) / 24);
		assert_int_equal(tf_ctx_track_count(ctx), 1);
		assert_int_equal(tf_ctx_nnotes(ctx), 1);
		assert_non_null(strstr(tf_ctx_note_get(ctx, 0), want));
		assert_non_null(strstr(tf_ctx_note_get(ctx, 0), "no 'events.1.edf'"));
		check_accounting(ctx);
		free(c.ev);
		tf_ctx_free(ctx);
	}

	/* events.1.edf beside it: the same events as the two files */
	copy_file("tests/data/tau/mpi_small/events.1.edf", tpath("events.1.edf"));
	tf_ctx *ref_ctx = tf_ctx_new();
	coll ref;
	coll_init(&ref);
	tf_error err;
	assert_int_equal(read_tau(ref_ctx, "tests/data/tau/mpi_small", &ref, &err), 0);
	for (int k = 0; k < 3; k++) {
		tf_ctx *ctx = tf_ctx_new();
		if (k == 2) /* --edf names node 0's: node 1's is looked for beside it */
			tf_ctx_opts(ctx)->edf_path = tpath("events.0.edf");
		coll c;
		coll_init(&c);
		assert_int_equal(read_tau(ctx, inputs[k ? 1 : 0], &c, &err), 0);
		assert_int_equal(c.n, ref.n);
		for (size_t i = 0; i < c.n; i++) {
			assert_int_equal(c.ev[i].kind, ref.ev[i].kind);
			assert_int_equal(c.ev[i].ts_ns, ref.ev[i].ts_ns);
			assert_int_equal(c.ev[i].track, ref.ev[i].track);
			assert_string_equal(S(ctx, c.ev[i].name), S(ref_ctx, ref.ev[i].name));
			assert_memory_equal(&c.ev[i].msg, &ref.ev[i].msg, sizeof(c.ev[i].msg));
			assert_true(c.ev[i].value == ref.ev[i].value);
		}
		assert_memory_equal(tf_ctx_diag(ctx), tf_ctx_diag(ref_ctx), sizeof(tf_diag));
		assert_int_equal(tf_ctx_track_get(ctx, 1)->rank, 1);
		assert_int_equal(tf_ctx_nnotes(ctx), 1);
		assert_non_null(strstr(tf_ctx_note_get(ctx, 0), want));
		snprintf(want + 500, 100, "decoded with '%s'", tpath("events.1.edf"));
		assert_non_null(strstr(tf_ctx_note_get(ctx, 0), want + 500));
		free(c.ev);
		tf_ctx_free(ctx);
	}
	free(ref.ev);
	tf_ctx_free(ref_ctx);
	rm_tmpdir();
}

static void test_truncated(void **state)
{
	make_tmpdir();
	size_t n;
	unsigned char *p = read_file("tests/data/tau/tiny/tautrace.0.0.0.trc", &n);
	write_file(tpath("tautrace.0.0.0.trc"), p, n - 10);
	free(p);
	copy_file("tests/data/tau/tiny/events.0.edf", tpath("events.0.edf"));
	tf_ctx *ctx = tf_ctx_new();
	coll c;
	coll_init(&c);
	tf_error err;
	assert_int_equal(read_tau(ctx, tpath("tautrace.0.0.0.trc"), &c, &err), 0);
	assert_int_equal(diag(ctx, TF_DIAG_truncated_record), 1);
	assert_int_equal(diag(ctx, TF_DIAG_events_read), 617);
	assert_int_equal(tf_ctx_nnotes(ctx), 1);
	char want[64];
	snprintf(want, sizeof(want), "at byte %zu (14 of 24 bytes)", (size_t)616 * 24);
	assert_non_null(strstr(tf_ctx_note_get(ctx, 0), want));
	check_accounting(ctx);
	free(c.ev);
	tf_ctx_free(ctx);

	/* a file shorter than one record */
	write_file(tpath("tautrace.0.0.0.trc"), "abc", 3);
	ctx = tf_ctx_new();
	coll_init(&c);
	assert_int_equal(read_tau(ctx, tpath("tautrace.0.0.0.trc"), &c, &err), 0);
	assert_int_equal(c.n, 0);
	assert_int_equal(diag(ctx, TF_DIAG_truncated_record), 1);
	tf_ctx_free(ctx);
	free(c.ev);

	/* no EDF anywhere: a fatal, clear error */
	unlink(tpath("events.0.edf"));
	ctx = tf_ctx_new();
	coll_init(&c);
	assert_int_equal(read_tau(ctx, tpath("tautrace.0.0.0.trc"), &c, &err), TF_EFORMAT);
	assert_non_null(strstr(err.msg, "--edf"));
	tf_ctx_free(ctx);
	free(c.ev);
	rm_tmpdir();
}

/* A trace far bigger than one read block: streamed, nothing lost at block edges. */
static void test_blocks(void **state)
{
	make_tmpdir();
	size_t n = 20000; /* 480 000 bytes: several 96 KiB blocks */
	tf_tau_rec *recs = calloc(n, sizeof(*recs));
	recs[0] = (tf_tau_rec)R(60000, 3, 1);
	for (size_t i = 1; i + 1 < n; i++)
		recs[i] = (tf_tau_rec)R(1, (i % 2) ? 1 : -1, 1 + i);
	recs[n - 1] = (tf_tau_rec)R(60005, 1, n);
	const char *trc = write_syn(recs, n, NULL);
	free(recs);
	tf_ctx *ctx = tf_ctx_new();
	coll c;
	coll_init(&c);
	tf_error err;
	assert_int_equal(read_tau(ctx, trc, &c, &err), 0);
	assert_int_equal(c.n, n - 2);
	for (size_t i = 0; i < c.n; i++) {
		assert_int_equal(c.ev[i].ts_ns, (int64_t)(i + 2) * 1000);
		assert_int_equal(c.ev[i].index, i + 1);
	}
	free(c.ev);
	tf_ctx_free(ctx);
	rm_tmpdir();
}

/* The merged trace of the threads fixture demultiplexes to the same per-thread streams. */
static void test_merged(void **state)
{
	tf_ctx *a = tf_ctx_new(), *b = tf_ctx_new();
	coll ca, cb;
	coll_init(&ca);
	coll_init(&cb);
	tf_error err;
	assert_int_equal(read_tau(a, "tests/data/tau/threads", &ca, &err), 0);
	assert_int_equal(read_tau(b, "tests/data/tau/threads/merged/tau.trc", &cb, &err), 0);
	assert_int_equal(ca.n, cb.n);
	assert_int_equal(tf_ctx_track_count(a), 5);
	assert_int_equal(tf_ctx_track_count(b), 5);
	assert_memory_equal(tf_ctx_diag(a), tf_ctx_diag(b), sizeof(tf_diag));
	assert_int_equal(diag(a, TF_DIAG_events_read), 1203);
	for (uint32_t t = 0; t < 5; t++) {
		/* track ids differ (file order vs merge order): match by thread key */
		const char *key = S(a, tf_ctx_track_get(a, t)->thread_key);
		uint32_t tb = 0;
		while (tb < 5 && strcmp(S(b, tf_ctx_track_get(b, tb)->thread_key), key) != 0)
			tb++;
		assert_true(tb < 5);
		size_t i = 0, j = 0;
		for (;;) {
			while (i < ca.n && ca.ev[i].track != t)
				i++;
			while (j < cb.n && cb.ev[j].track != tb)
				j++;
			if (i == ca.n || j == cb.n) {
				assert_true(i == ca.n && j == cb.n);
				break;
			}
			assert_int_equal(ca.ev[i].kind, cb.ev[j].kind);
			assert_int_equal(ca.ev[i].ts_ns, cb.ev[j].ts_ns);
			assert_string_equal(S(a, ca.ev[i].name), S(b, cb.ev[j].name));
			i++;
			j++;
		}
	}
	free(ca.ev);
	free(cb.ev);
	tf_ctx_free(a);
	tf_ctx_free(b);
}

static void test_sniff(void **state)
{
	unsigned char head[24] = { 0 };
	tf_tau_rec r = R(60000, 3, 5);
	enc(head, &r, 24, host_big());
	assert_int_equal(tf_format_tau.sniff("x.trc", 0, head, 24, false), TF_SNIFF_YES);
	assert_int_equal(tf_format_tau.sniff("x.bin", 0, head, 24, false), TF_SNIFF_MAYBE);
	assert_int_equal(tf_format_tau.sniff("x.json", 0, (const unsigned char *)"{\"traceEvents\": [ ]}   ", 24, false),
			 TF_SNIFF_NO);
	assert_int_equal(tf_format_tau.sniff("tests/data/tau/tiny", 1, NULL, 0, false), TF_SNIFF_YES);
	assert_int_equal(tf_format_tau.sniff("tests/data/tau/threads/merged", 1, NULL, 0, false), TF_SNIFF_YES);
	assert_int_equal(tf_format_tau.sniff("tests/unit", 1, NULL, 0, false), TF_SNIFF_NO);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_msg_unpack),
		cmocka_unit_test(test_mpi_messages),
		cmocka_unit_test(test_layouts),
		cmocka_unit_test(test_edf_lines),
		cmocka_unit_test(test_edf_quirks),
		cmocka_unit_test(test_triples),
		cmocka_unit_test(test_demux),
		cmocka_unit_test(test_unknown_ids),
		cmocka_unit_test(test_bad_edf_line_noted_once),
		cmocka_unit_test(test_edf_line_too_long),
		cmocka_unit_test(test_unknown_run),
		cmocka_unit_test(test_mixed_nodes),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_blocks),
		cmocka_unit_test(test_merged),
		cmocka_unit_test(test_sniff),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
