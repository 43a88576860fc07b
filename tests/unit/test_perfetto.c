/* test_perfetto.c - the Perfetto reader (src/read/perfetto.c) on traces
 * built here packet by packet with protobuf-c's generated structs
 * (build/gen/perfetto_trace.pb-c.h, from proto/perfetto_trace.proto), not
 * with tracefold's Perfetto writer, so that the reader is checked against
 * the format's facts (docs/format-perfetto.md) and not against the writer's
 * habits.  The expected events, names, tracks and times are written by hand
 * from those facts. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include "tracefold/reader.h"
#include "tracefold/stack.h"
#include "tracefold/agg.h"
#include "perfetto_trace.pb-c.h"

typedef Perfetto__Protos__TracePacket PB_Packet;
typedef Perfetto__Protos__TrackEvent PB_Event;
typedef Perfetto__Protos__TrackDescriptor PB_Track;

#define SEQ_CLEARED PERFETTO__PROTOS__TRACE_PACKET__SEQUENCE_FLAGS__SEQ_INCREMENTAL_STATE_CLEARED
#define SEQ_NEEDS PERFETTO__PROTOS__TRACE_PACKET__SEQUENCE_FLAGS__SEQ_NEEDS_INCREMENTAL_STATE
#define T_BEGIN PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_BEGIN
#define T_END PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_END
#define T_INSTANT PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_INSTANT
#define T_COUNTER PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_COUNTER

/* ------------------------------------------------------ trace building */

/* A trace's bytes: Trace is `repeated TracePacket packet = 1`, so each
 * packet is the tag 0x0a, its length as a varint, and the packet. */
typedef struct tb {
	unsigned char *b;
	size_t n, cap;
} tb;

static void tb_bytes(tb *t, const void *p, size_t n)
{
	if (t->n + n > t->cap) {
		t->cap = (t->n + n) * 2 + 64;
		t->b = realloc(t->b, t->cap);
		assert_non_null(t->b);
	}
	memcpy(t->b + t->n, p, n);
	t->n += n;
}

static void tb_varint(tb *t, uint64_t v)
{
	unsigned char c[10];
	size_t k = 0;
	do {
		c[k] = v & 0x7f;
		v >>= 7;
		c[k] |= v ? 0x80 : 0;
		k++;
	} while (v);
	tb_bytes(t, c, k);
}

/* Appends packet p, framed; returns the byte offset of its tag. */
static size_t tb_packet(tb *t, const PB_Packet *p)
{
	size_t at = t->n, len = perfetto__protos__trace_packet__get_packed_size(p);
	unsigned char *buf = malloc(len ? len : 1);
	assert_non_null(buf);
	assert_int_equal(perfetto__protos__trace_packet__pack(p, buf), len);
	tb_bytes(t, "\x0a", 1);
	tb_varint(t, len);
	tb_bytes(t, buf, len);
	free(buf);
	return at;
}

/* A packet holding only a track event, on sequence seq at ts. */
static size_t tb_event(tb *t, uint32_t seq, uint64_t ts, PB_Event *e)
{
	PB_Packet p = PERFETTO__PROTOS__TRACE_PACKET__INIT;
	p.has_trusted_packet_sequence_id = true;
	p.trusted_packet_sequence_id = seq;
	p.has_timestamp = true;
	p.timestamp = ts;
	p.has_sequence_flags = true;
	p.sequence_flags = SEQ_NEEDS;
	p.track_event = e;
	return tb_packet(t, &p);
}

/* A slice or instant named by interned id iid (0: none, as an END). */
static size_t tb_slice(tb *t, uint32_t seq, uint64_t ts, int type, uint64_t iid)
{
	PB_Event e = PERFETTO__PROTOS__TRACK_EVENT__INIT;
	e.has_type = true;
	e.type = type;
	if (iid) {
		e.name_field_case = PERFETTO__PROTOS__TRACK_EVENT__NAME_FIELD_NAME_IID;
		e.name_iid = iid;
	}
	return tb_event(t, seq, ts, &e);
}

static void tb_descriptor(tb *t, PB_Track *d)
{
	PB_Packet p = PERFETTO__PROTOS__TRACE_PACKET__INIT;
	p.has_trusted_packet_sequence_id = true;
	p.trusted_packet_sequence_id = 1;
	p.track_descriptor = d;
	tb_packet(t, &p);
}

/* Process uuid 1 (pid 42, "trainer"), its thread uuid 2 (tid 7, "main")
 * and a counter track uuid 3 ("mem", unit_multiplier mult) on the thread. */
static void tb_std_tracks(tb *t, int64_t mult)
{
	Perfetto__Protos__ProcessDescriptor pd = PERFETTO__PROTOS__PROCESS_DESCRIPTOR__INIT;
	pd.has_pid = true;
	pd.pid = 42;
	pd.process_name = "trainer";
	PB_Track d = PERFETTO__PROTOS__TRACK_DESCRIPTOR__INIT;
	d.has_uuid = true;
	d.uuid = 1;
	d.process = &pd;
	tb_descriptor(t, &d);

	Perfetto__Protos__ThreadDescriptor td = PERFETTO__PROTOS__THREAD_DESCRIPTOR__INIT;
	td.has_pid = td.has_tid = true;
	td.pid = 42;
	td.tid = 7;
	td.thread_name = "main";
	PB_Track d2 = PERFETTO__PROTOS__TRACK_DESCRIPTOR__INIT;
	d2.has_uuid = d2.has_parent_uuid = true;
	d2.uuid = 2;
	d2.parent_uuid = 1;
	d2.thread = &td;
	tb_descriptor(t, &d2);

	Perfetto__Protos__CounterDescriptor cd = PERFETTO__PROTOS__COUNTER_DESCRIPTOR__INIT;
	cd.has_unit_multiplier = true;
	cd.unit_multiplier = mult;
	PB_Track d3 = PERFETTO__PROTOS__TRACK_DESCRIPTOR__INIT;
	d3.has_uuid = d3.has_parent_uuid = true;
	d3.uuid = 3;
	d3.parent_uuid = 2;
	d3.name = "mem";
	d3.counter = &cd;
	tb_descriptor(t, &d3);
}

/* The first packet of sequence seq: clears its incremental state, interns
 * event names 1..n (and category 1 = "cat") and makes track the default. */
static void tb_seq_start(tb *t, uint32_t seq, uint64_t track, const char *const *names, size_t n)
{
	Perfetto__Protos__EventName en[8], *pen[8];
	assert_true(n <= 8);
	for (size_t i = 0; i < n; i++) {
		Perfetto__Protos__EventName x = PERFETTO__PROTOS__EVENT_NAME__INIT;
		x.has_iid = true;
		x.iid = i + 1;
		x.name = (char *)names[i];
		en[i] = x;
		pen[i] = &en[i];
	}
	Perfetto__Protos__EventCategory ec = PERFETTO__PROTOS__EVENT_CATEGORY__INIT, *pec = &ec;
	ec.has_iid = true;
	ec.iid = 1;
	ec.name = "cat";
	Perfetto__Protos__InternedData in = PERFETTO__PROTOS__INTERNED_DATA__INIT;
	in.n_event_names = n;
	in.event_names = pen;
	in.n_event_categories = 1;
	in.event_categories = &pec;
	Perfetto__Protos__TrackEventDefaults ted = PERFETTO__PROTOS__TRACK_EVENT_DEFAULTS__INIT;
	ted.has_track_uuid = true;
	ted.track_uuid = track;
	Perfetto__Protos__TracePacketDefaults def = PERFETTO__PROTOS__TRACE_PACKET_DEFAULTS__INIT;
	def.track_event_defaults = &ted;
	PB_Packet p = PERFETTO__PROTOS__TRACE_PACKET__INIT;
	p.has_trusted_packet_sequence_id = true;
	p.trusted_packet_sequence_id = seq;
	p.has_sequence_flags = true;
	p.sequence_flags = SEQ_CLEARED;
	p.interned_data = &in;
	p.trace_packet_defaults = &def;
	tb_packet(t, &p);
}

static char *tb_file(const tb *t)
{
	char *path = malloc(300);
	assert_non_null(path);
	snprintf(path, 300, "%s/tf-perfetto-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, t->b, t->n), (ssize_t)t->n);
	close(fd);
	return path;
}

/* ------------------------------------------------------ recording sink */

typedef struct rec {
	tf_sink sink;
	tf_event ev[256];
	int n;
	tf_sink *next; /* also passed on to it, when set */
} rec;

static int rec_event(tf_sink *s, const tf_event *ev)
{
	rec *r = tf_container_of(s, rec, sink);
	assert_true(r->n < 256);
	r->ev[r->n++] = *ev;
	return r->next ? r->next->event(r->next, ev) : 0;
}

typedef struct run {
	tf_ctx *ctx;
	rec rec;
	int rc;
	tf_error err;
	char *path;
} run;

/* Reads t through the perfetto row of the table; with stacks, the events
 * also go through a stack builder (for the repairs it counts). */
static run *read_trace(const tb *t, bool stacks)
{
	run *x = calloc(1, sizeof(*x));
	assert_non_null(x);
	x->ctx = tf_ctx_new();
	x->rec.sink.event = rec_event;
	x->path = tb_file(t);
	tf_agg *agg = NULL;
	tf_stacks *sb = NULL;
	if (stacks) {
		agg = tf_agg_new(tf_ctx_strtab(x->ctx));
		sb = tf_stacks_new(x->ctx, tf_agg_cpath(agg), NULL);
		assert_non_null(sb);
		x->rec.next = tf_stacks_sink(sb);
	}
	tf_error_clear(&x->err);
	const tf_format *f = tf_format_by_name("perfetto");
	assert_non_null(f);
	x->rc = f->read(x->path, 0, x->ctx, &x->rec.sink, &x->err);
	if (sb) {
		assert_int_equal(tf_stacks_finish(sb), 0);
		tf_stacks_free(sb);
		tf_agg_free(agg);
		x->rec.next = NULL;
	}
	/* accounting invariant: every decoded event is emitted or skipped */
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
	unlink(x->path);
	free(x->path);
	tf_ctx_free(x->ctx);
	free(x);
}

static const char *S(run *x, tf_str id)
{
	return id ? tf_strtab_get(tf_ctx_strtab(x->ctx), id) : "";
}

static uint64_t diag(run *x, tf_diag_id id)
{
	return tf_ctx_diag(x->ctx)->n[id];
}

static int notes_with(run *x, const char *a, const char *b)
{
	int k = 0;
	for (size_t i = 0; i < tf_ctx_nnotes(x->ctx); i++) {
		const char *t = tf_ctx_note_get(x->ctx, i);
		k += t && strstr(t, a) && (!b || strstr(t, b));
	}
	return k;
}

/* The events that are not metadata (one per track descriptor), in order. */
static int events(run *x, const tf_event **out, int max)
{
	int n = 0;
	for (int i = 0; i < x->rec.n && n < max; i++)
		if (x->rec.ev[i].kind != TF_EV_METADATA)
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

/* The track's process and thread keys and names. */
static void expect_track(run *x, uint32_t id, const char *pk, const char *tk, const char *pn, const char *tn)
{
	tf_track *k = tf_ctx_track_get(x->ctx, id);
	assert_non_null(k);
	assert_string_equal(S(x, k->process_key), pk);
	assert_string_equal(S(x, k->thread_key), tk);
	assert_string_equal(S(x, k->process_name), pn);
	assert_string_equal(S(x, k->thread_name), tn);
	assert_true(k->needs_sort); /* Perfetto traces are not sorted per track */
}

/* ------------------------------------------------------------------ tests */

/* Descriptors, interned names, nested slices, an instant, a counter. */
static void test_tracks_slices(void **state)
{
	tb t = { 0 };
	tb_std_tracks(&t, 1024);
	static const char *const names[] = { "outer", "inner" };
	tb_seq_start(&t, 5, 2, names, 2);
	tb_slice(&t, 5, 1000, T_BEGIN, 1);
	PB_Event c = PERFETTO__PROTOS__TRACK_EVENT__INIT;
	c.has_type = c.has_track_uuid = true;
	c.type = T_COUNTER;
	c.track_uuid = 3;
	c.counter_value_field_case = PERFETTO__PROTOS__TRACK_EVENT__COUNTER_VALUE_FIELD_COUNTER_VALUE;
	c.counter_value = 5;
	tb_event(&t, 5, 1100, &c);
	tb_slice(&t, 5, 1500, T_BEGIN, 2);
	tb_slice(&t, 5, 1800, T_END, 0);
	PB_Event i = PERFETTO__PROTOS__TRACK_EVENT__INIT; /* a name given as text */
	i.has_type = true;
	i.type = T_INSTANT;
	i.name_field_case = PERFETTO__PROTOS__TRACK_EVENT__NAME_FIELD_NAME;
	i.name = "mark";
	tb_event(&t, 5, 1900, &i);
	c.counter_value_field_case = PERFETTO__PROTOS__TRACK_EVENT__COUNTER_VALUE_FIELD_DOUBLE_COUNTER_VALUE;
	c.double_counter_value = 2.5;
	tb_event(&t, 5, 1950, &c);
	tb_slice(&t, 5, 2000, T_END, 0);
	run *x = read_trace(&t, false);
	assert_int_equal(x->rc, 0);
	const tf_event *e[16];
	assert_int_equal(events(x, e, 16), 7);
	expect_ev(x, e[0], TF_EV_BEGIN, "outer", 1000);
	assert_string_equal(S(x, e[0]->cat), ""); /* no category_iids */
	expect_ev(x, e[1], TF_EV_COUNTER, "mem", 1100);
	assert_true(e[1]->value == 5.0 * 1024); /* times unit_multiplier */
	expect_ev(x, e[2], TF_EV_BEGIN, "inner", 1500);
	expect_ev(x, e[3], TF_EV_END, NULL, 1800);
	assert_int_equal(e[3]->name, 0); /* closes the innermost open slice */
	expect_ev(x, e[4], TF_EV_INSTANT, "mark", 1900);
	expect_ev(x, e[5], TF_EV_COUNTER, "mem", 1950);
	assert_true(e[5]->value == 2.5 * 1024);
	expect_ev(x, e[6], TF_EV_END, NULL, 2000);
	/* all on the thread's track (the counter's values on its parent's) */
	for (int k = 1; k < 7; k++)
		assert_int_equal(e[k]->track, e[0]->track);
	expect_track(x, e[0]->track, "42", "7", "trainer", "main");
	assert_int_equal(tf_ctx_track_count(x->ctx), 1);
	/* tf_event.index counts the emitted events, metadata included */
	for (int k = 0; k < x->rec.n; k++)
		assert_int_equal(x->rec.ev[k].index, k);
	assert_int_equal(diag(x, TF_DIAG_ev_metadata), 3);
	assert_int_equal(diag(x, TF_DIAG_ev_duration), 4);
	assert_int_equal(diag(x, TF_DIAG_ev_instant), 1);
	assert_int_equal(diag(x, TF_DIAG_ev_counter), 2);
	assert_int_equal(diag(x, TF_DIAG_ev_other), 0);
	run_free(x);
	free(t.b);
}

/* Interned ids are scoped to their sequence; categories by iid; a track
 * never described gets a track of its own named after its uuid. */
static void test_interning(void **state)
{
	tb t = { 0 };
	tb_std_tracks(&t, 1);
	static const char *const a[] = { "alpha" }, *const b[] = { "beta" };
	tb_seq_start(&t, 5, 2, a, 1);
	tb_seq_start(&t, 6, 99, b, 1); /* uuid 99: no descriptor */
	PB_Event e = PERFETTO__PROTOS__TRACK_EVENT__INIT;
	uint64_t cat = 1;
	e.has_type = true;
	e.type = T_INSTANT;
	e.name_field_case = PERFETTO__PROTOS__TRACK_EVENT__NAME_FIELD_NAME_IID;
	e.name_iid = 1;
	e.n_category_iids = 1;
	e.category_iids = &cat;
	tb_event(&t, 5, 10, &e);
	tb_event(&t, 6, 20, &e);
	tb_event(&t, 7, 30, &e); /* sequence 7 interned nothing */
	e.name_iid = 2;          /* never interned on 5 */
	tb_event(&t, 5, 40, &e);
	run *x = read_trace(&t, false);
	assert_int_equal(x->rc, 0);
	const tf_event *ev[8];
	assert_int_equal(events(x, ev, 8), 4);
	expect_ev(x, ev[0], TF_EV_INSTANT, "alpha", 10);
	assert_string_equal(S(x, ev[0]->cat), "cat");
	expect_ev(x, ev[1], TF_EV_INSTANT, "beta", 20);
	expect_ev(x, ev[2], TF_EV_INSTANT, "", 30);
	assert_int_equal(ev[2]->name, 0);
	expect_ev(x, ev[3], TF_EV_INSTANT, "", 40);
	expect_track(x, ev[0]->track, "42", "7", "trainer", "main");
	/* sequence 6's default track was never described */
	expect_track(x, ev[1]->track, "global", "track 99", "", "");
	/* sequence 7 has no defaults and names no track: uuid 0 */
	expect_track(x, ev[2]->track, "global", "track 0", "", "");
	assert_int_equal(ev[3]->track, ev[0]->track);
	run_free(x);
	free(t.b);
}

/* Clock 64, sequence-scoped and incremental in us, defined by a
 * ClockSnapshot against BOOTTIME (6); a packet on clock 6 in between. */
static void test_clocks(void **state)
{
	tb t = { 0 };
	tb_std_tracks(&t, 1);
	static const char *const names[] = { "s" };
	tb_seq_start(&t, 5, 2, names, 1);
	Perfetto__Protos__ClockSnapshot__Clock boot = PERFETTO__PROTOS__CLOCK_SNAPSHOT__CLOCK__INIT;
	boot.has_clock_id = boot.has_timestamp = true;
	boot.clock_id = 6;
	boot.timestamp = 5000000;
	Perfetto__Protos__ClockSnapshot__Clock inc = PERFETTO__PROTOS__CLOCK_SNAPSHOT__CLOCK__INIT;
	inc.has_clock_id = inc.has_timestamp = inc.has_is_incremental = inc.has_unit_multiplier_ns = true;
	inc.clock_id = 64;
	inc.timestamp = 100;
	inc.is_incremental = true;
	inc.unit_multiplier_ns = 1000;
	Perfetto__Protos__ClockSnapshot__Clock *cl[] = { &boot, &inc };
	Perfetto__Protos__ClockSnapshot cs = PERFETTO__PROTOS__CLOCK_SNAPSHOT__INIT;
	cs.n_clocks = 2;
	cs.clocks = cl;
	Perfetto__Protos__TrackEventDefaults ted = PERFETTO__PROTOS__TRACK_EVENT_DEFAULTS__INIT;
	ted.has_track_uuid = true;
	ted.track_uuid = 2;
	Perfetto__Protos__TracePacketDefaults def = PERFETTO__PROTOS__TRACE_PACKET_DEFAULTS__INIT;
	def.has_timestamp_clock_id = true;
	def.timestamp_clock_id = 64;
	def.track_event_defaults = &ted;
	PB_Packet p = PERFETTO__PROTOS__TRACE_PACKET__INIT;
	p.has_trusted_packet_sequence_id = true;
	p.trusted_packet_sequence_id = 5;
	p.clock_snapshot = &cs;
	p.trace_packet_defaults = &def;
	tb_packet(&t, &p);
	tb_slice(&t, 5, 10, T_BEGIN, 1); /* 100 + 10 = 110 us on clock 64 */
	tb_slice(&t, 5, 5, T_INSTANT, 1); /* 115 */
	PB_Event e = PERFETTO__PROTOS__TRACK_EVENT__INIT;
	e.has_type = true;
	e.type = T_INSTANT;
	PB_Packet abs = PERFETTO__PROTOS__TRACE_PACKET__INIT;
	abs.has_trusted_packet_sequence_id = abs.has_timestamp = abs.has_timestamp_clock_id = true;
	abs.trusted_packet_sequence_id = 5;
	abs.timestamp = 5020000;
	abs.timestamp_clock_id = 6;
	abs.track_event = &e;
	tb_packet(&t, &abs);             /* absolute, leaves clock 64 alone */
	tb_slice(&t, 5, 1, T_END, 0);    /* 116 */
	run *x = read_trace(&t, false);
	assert_int_equal(x->rc, 0);
	const tf_event *ev[8];
	assert_int_equal(events(x, ev, 8), 4);
	expect_ev(x, ev[0], TF_EV_BEGIN, "s", 5000000 + 10 * 1000);
	expect_ev(x, ev[1], TF_EV_INSTANT, "s", 5000000 + 15 * 1000);
	expect_ev(x, ev[2], TF_EV_INSTANT, "", 5020000);
	expect_ev(x, ev[3], TF_EV_END, NULL, 5000000 + 16 * 1000);
	run_free(x);
	free(t.b);
}

/* compressed_packets: a zlib chunk of framed packets read in order; a chunk
 * that does not inflate is counted with a note and reading goes on. */
static void test_compressed(void **state)
{
	tb in = { 0 };
	tb_std_tracks(&in, 1);
	static const char *const names[] = { "zipped" };
	tb_seq_start(&in, 5, 2, names, 1);
	tb_slice(&in, 5, 100, T_BEGIN, 1);
	uLongf zn = compressBound(in.n);
	unsigned char *z = malloc(zn);
	assert_non_null(z);
	assert_int_equal(compress2(z, &zn, in.b, in.n, 9), Z_OK);
	tb t = { 0 };
	PB_Packet p = PERFETTO__PROTOS__TRACE_PACKET__INIT;
	p.has_compressed_packets = true;
	p.compressed_packets.data = z;
	p.compressed_packets.len = zn;
	tb_packet(&t, &p);
	PB_Packet bad = PERFETTO__PROTOS__TRACE_PACKET__INIT;
	bad.has_compressed_packets = true;
	bad.compressed_packets.data = (uint8_t *)"not zlib at all";
	bad.compressed_packets.len = 15;
	size_t at = tb_packet(&t, &bad);
	tb_slice(&t, 5, 200, T_END, 0); /* outside: the chunk's sequence state holds */
	run *x = read_trace(&t, false);
	assert_int_equal(x->rc, 0);
	const tf_event *ev[8];
	assert_int_equal(events(x, ev, 8), 2);
	expect_ev(x, ev[0], TF_EV_BEGIN, "zipped", 100);
	expect_ev(x, ev[1], TF_EV_END, NULL, 200);
	assert_int_equal(ev[1]->track, ev[0]->track);
	expect_track(x, ev[0]->track, "42", "7", "trainer", "main");
	assert_int_equal(diag(x, TF_DIAG_ev_metadata), 3);
	assert_int_equal(diag(x, TF_DIAG_bad_event), 1);
	char b[64];
	snprintf(b, sizeof(b), "at byte %zu ", at);
	assert_int_equal(notes_with(x, "do not inflate", b), 1);
	run_free(x);
	free(t.b);
	free(in.b);
	free(z);
}

/* A packet cut by the end of the file: the packets before it are used, it
 * is counted with a note naming its byte.  An undecodable packet is
 * counted and skipped. */
static void test_truncated(void **state)
{
	tb t = { 0 };
	tb_std_tracks(&t, 1);
	static const char *const names[] = { "a" };
	tb_seq_start(&t, 5, 2, names, 1);
	tb_slice(&t, 5, 100, T_BEGIN, 1);
	size_t bad = t.n;
	tb_bytes(&t, "\x0a\x02\x0a\x7f", 4); /* field 1 of 127 bytes in 2: undecodable */
	tb_slice(&t, 5, 150, T_INSTANT, 1);
	size_t cut = tb_slice(&t, 5, 200, T_END, 0);
	t.n -= 3;
	run *x = read_trace(&t, false);
	assert_int_equal(x->rc, 0);
	const tf_event *ev[8];
	assert_int_equal(events(x, ev, 8), 2);
	expect_ev(x, ev[0], TF_EV_BEGIN, "a", 100);
	expect_ev(x, ev[1], TF_EV_INSTANT, "a", 150);
	assert_int_equal(diag(x, TF_DIAG_truncated_record), 1);
	assert_int_equal(diag(x, TF_DIAG_bad_event), 1);
	char b[64];
	snprintf(b, sizeof(b), "truncated last packet at byte %zu ", cut);
	assert_int_equal(notes_with(x, b, x->path), 1);
	snprintf(b, sizeof(b), "undecodable packet 5 at byte %zu ", bad); /* 3 descriptors, 1 start, 1 begin */
	assert_int_equal(notes_with(x, b, x->path), 1);
	run_free(x);

	/* cut inside the length varint of the last packet */
	tb u = { 0 };
	tb_std_tracks(&u, 1);
	cut = u.n;
	tb_bytes(&u, "\x0a\x80", 2);
	x = read_trace(&u, false);
	assert_int_equal(x->rc, 0);
	assert_int_equal(diag(x, TF_DIAG_truncated_record), 1);
	snprintf(b, sizeof(b), "at byte %zu ", cut);
	assert_int_equal(notes_with(x, "truncated last packet", b), 1);
	run_free(x);
	free(u.b);
	free(t.b);
}

/* A top-level field that is no length-delimited packet is fatal: the error
 * names the file and the byte. */
static void test_malformed(void **state)
{
	tb t = { 0 };
	tb_std_tracks(&t, 1);
	size_t at = t.n;
	tb_bytes(&t, "\x08\x01", 2); /* field 1 as a varint */
	run *x = read_trace(&t, false);
	assert_int_equal(x->rc, TF_EFORMAT);
	assert_int_equal(x->err.code, TF_EFORMAT);
	assert_int_equal(x->err.offset, (int64_t)at);
	assert_string_equal(x->err.path, x->path);
	char b[80];
	snprintf(b, sizeof(b), "not a Perfetto trace packet at byte %zu (packet 3)", at);
	assert_non_null(strstr(x->err.msg, b));
	assert_int_equal(diag(x, TF_DIAG_ev_metadata), 3); /* what came before was read */
	run_free(x);

	/* a packet longer than 256 MiB is no packet */
	tb u = { 0 };
	tb_bytes(&u, "\x0a", 1);
	tb_varint(&u, (256u << 20) + 1);
	tb_bytes(&u, "\x08\x01", 2);
	x = read_trace(&u, false);
	assert_int_equal(x->rc, TF_EFORMAT);
	assert_int_equal(x->err.offset, 0);
	run_free(x);
	free(u.b);
	free(t.b);
}

/* An END with no BEGIN open is passed on as it is; the stack builder drops
 * it (end_without_begin).  A legacy TYPE_UNSPECIFIED event is ev_other. */
static void test_end_without_begin(void **state)
{
	tb t = { 0 };
	tb_std_tracks(&t, 1);
	static const char *const names[] = { "f" };
	tb_seq_start(&t, 5, 2, names, 1);
	tb_slice(&t, 5, 50, T_END, 0);
	tb_slice(&t, 5, 100, T_BEGIN, 1);
	tb_slice(&t, 5, 300, T_END, 0);
	PB_Event e = PERFETTO__PROTOS__TRACK_EVENT__INIT; /* no type */
	tb_event(&t, 5, 400, &e);
	run *x = read_trace(&t, true);
	assert_int_equal(x->rc, 0);
	const tf_event *ev[8];
	assert_int_equal(events(x, ev, 8), 3);
	expect_ev(x, ev[0], TF_EV_END, NULL, 50);
	expect_ev(x, ev[1], TF_EV_BEGIN, "f", 100);
	expect_ev(x, ev[2], TF_EV_END, NULL, 300);
	assert_int_equal(diag(x, TF_DIAG_end_without_begin), 1);
	assert_int_equal(diag(x, TF_DIAG_begin_unclosed), 0);
	assert_int_equal(diag(x, TF_DIAG_ev_other), 1);
	assert_int_equal(diag(x, TF_DIAG_ev_duration), 3);
	run_free(x);
	free(t.b);
}

/* Flow ids: a start the first time an id is seen, then a step; terminating
 * ids end it.  An instant carrying only flow ids is read as its flows. */
static void test_flows(void **state)
{
	tb t = { 0 };
	tb_std_tracks(&t, 1);
	static const char *const names[] = { "send", "recv" };
	tb_seq_start(&t, 5, 2, names, 2);
	uint64_t id = 77;
	PB_Event e = PERFETTO__PROTOS__TRACK_EVENT__INIT;
	e.has_type = true;
	e.type = T_INSTANT;
	e.name_field_case = PERFETTO__PROTOS__TRACK_EVENT__NAME_FIELD_NAME_IID;
	e.name_iid = 1;
	e.n_flow_ids = 1;
	e.flow_ids = &id;
	tb_event(&t, 5, 10, &e);
	tb_event(&t, 5, 20, &e);
	e.name_iid = 2;
	e.n_flow_ids = 0;
	e.n_terminating_flow_ids = 1;
	e.terminating_flow_ids = &id;
	tb_event(&t, 5, 30, &e);
	run *x = read_trace(&t, false);
	assert_int_equal(x->rc, 0);
	const tf_event *ev[8];
	assert_int_equal(events(x, ev, 8), 3);
	const char phase[] = "stf";
	for (int k = 0; k < 3; k++) {
		expect_ev(x, ev[k], TF_EV_FLOW, k < 2 ? "send" : "recv", 10 * (k + 1));
		assert_int_equal(ev[k]->phase, phase[k]);
	}
	/* a segment an id: the first the flow's, the step's next its parent_id */
	assert_int_equal(ev[0]->id, 77);
	assert_int_equal(ev[1]->id, 77);
	assert_true(ev[1]->parent_id != 0 && ev[1]->parent_id != 77);
	assert_int_equal(ev[2]->id, ev[1]->parent_id);
	assert_int_equal(diag(x, TF_DIAG_ev_instant), 0);
	assert_int_equal(diag(x, TF_DIAG_ev_flow), 3);
	run_free(x);
	free(t.b);
}

static void test_sniff(void **state)
{
	const tf_format *f = tf_format_by_name("perfetto");
	assert_non_null(f);
	tb t = { 0 };
	tb_std_tracks(&t, 1);
	static const char *const names[] = { "a" };
	tb_seq_start(&t, 5, 2, names, 1);
	tb_slice(&t, 5, 100, T_BEGIN, 1);
	assert_int_equal(f->sniff("trace.bin", 0, t.b, t.n, true), TF_SNIFF_YES);
	assert_int_equal(f->sniff("trace.pftrace", 0, t.b, t.n, true), TF_SNIFF_YES);
	assert_int_equal(f->sniff("trace.bin", 0, t.b, 40, false), TF_SNIFF_YES); /* a head cut mid-packet */
	assert_int_equal(f->sniff("trace.bin", 1, NULL, 0, true), TF_SNIFF_NO);
	static const char *const json[] = {
		"[{\"ph\":\"X\",\"name\":\"a\",\"ts\":1,\"dur\":2,\"pid\":1,\"tid\":1}]",
		"\n\n[{\"ph\":\"X\",\"name\":\"a\"}]", /* starts with 0x0a, like a packet */
		"\n{\"traceEvents\":[]}\n",
	};
	for (size_t i = 0; i < sizeof(json) / sizeof(*json); i++) {
		const unsigned char *h = (const unsigned char *)json[i];
		assert_int_equal(f->sniff("trace.json", 0, h, strlen(json[i]), true), TF_SNIFF_NO);
	}
	/* text named .pftrace: maybe (the reader then says where it is wrong) */
	const unsigned char *h = (const unsigned char *)json[1];
	assert_int_equal(f->sniff("trace.pftrace", 0, h, strlen(json[1]), true), TF_SNIFF_MAYBE);
	/* the table's sniffing picks it for a file with no telling name */
	char *path = tb_file(&t);
	tf_error err;
	tf_error_clear(&err);
	assert_ptr_equal(tf_format_find(path, NULL, &err), f);
	unlink(path);
	free(path);
	free(t.b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tracks_slices),
		cmocka_unit_test(test_interning),
		cmocka_unit_test(test_clocks),
		cmocka_unit_test(test_compressed),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_end_without_begin),
		cmocka_unit_test(test_flows),
		cmocka_unit_test(test_sniff),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
