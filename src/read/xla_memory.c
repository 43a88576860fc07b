/* xla_memory.c - the XLA profiler's memory profile
 * (`<host>.memory_profile.json.gz`: tensorflow/core/profiler/protobuf/
 * memory_profile.proto's MemoryProfile, written as proto3 JSON).  Rules and
 * the facts relied on: docs/format-xla-memory.md.
 *
 *   memoryProfilePerAllocator {allocator: {memoryProfileSnapshots: [...]}}
 *       one track per allocator (process: the host, from the file name);
 *       each snapshot its allocator's counters at timeOffsetPs, and an
 *       ALLOCATION or DEALLOCATION a memory event (TF_EVF_MEMORY) inside a
 *       zero-length region per frame of allocator / op name (tfOpName split
 *       at '/'), so that its bytes land on the op's call path.
 *
 * The file is one JSON object of a few MB at most, read whole (as pprof.c
 * reads a profile) and walked with the Chrome reader's tokenizer (json.h).
 * proto3 JSON leaves out fields at their default: an absent number is 0,
 * and int64s are written as strings (tf_json_i64 reads both). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tracefold/io.h"
#include "tracefold/reader.h"
#include "grow.h"
#include "json.h"

enum { ACT_OTHER = 0, ACT_ALLOC, ACT_FREE };

/* One memoryProfileSnapshots entry, pointing into the file's buffer. */
typedef struct snap {
	int64_t ts_ns;
	int64_t heap, stack, peak;   /* aggregationStats */
	int64_t bytes;               /* activityMetadata.allocationBytes (else requestedBytes) */
	int act;                     /* ACT_* */
	tf_json_span op;             /* activityMetadata.tfOpName */
	size_t order;                /* its place in the file: ties keep it */
} snap;

typedef struct xm {
	const char *path;
	uint32_t input;
	tf_ctx *ctx;
	tf_sink *sink;
	tf_strtab *st;
	tf_error *err;
	const unsigned char *buf;
	uint64_t index;              /* events made, for tf_event.index */
	snap *s;
	size_t ns, cap;
	char *tmp;
	size_t tmp_cap;
	tf_str c_heap, c_stack, c_peak, memory;
} xm;

/* The elements of an array span that tf_json_value returned (its brackets
 * and values are checked, so this only steps over them). */
typedef struct arr_iter {
	const unsigned char *p, *end;
} arr_iter;

static void arr_begin(arr_iter *it, const tf_json_span *a)
{
	it->p = a->p + 1;
	it->end = a->p + a->n - 1;
}

static bool arr_next(arr_iter *it, tf_json_span *v)
{
	tf_json_error e;
	it->p = tf_json_skip_ws(it->p, it->end);
	if (it->p < it->end && *it->p == ',')
		it->p = tf_json_skip_ws(it->p + 1, it->end);
	if (it->p >= it->end)
		return false;
	return tf_json_value(it->p, it->end + 1, v, &it->p, &e) == TF_JSON_OK;
}

static int64_t field_i64(const tf_json_span *obj, const char *key)
{
	tf_json_iter it;
	tf_json_span k, v;
	int64_t x;
	if (obj->type != TF_JSON_OBJECT)
		return 0;
	tf_json_iter_begin(&it, obj);
	while (tf_json_iter_next(&it, &k, &v))
		if (tf_json_is(&k, key))
			return tf_json_i64(&v, &x) ? x : 0;
	return 0;
}

/* A snapshot object into *s; false when it has no usable time. */
static bool read_snap(const tf_json_span *o, snap *s)
{
	memset(s, 0, sizeof(*s));
	tf_json_span t = tf_json_member(o, "timeOffsetPs");
	int64_t ps = 0;
	if (o->type != TF_JSON_OBJECT || (t.type && !tf_json_i64(&t, &ps)) || ps < 0)
		return false;
	s->ts_ns = ps / 1000; /* picoseconds: the nanosecond it falls in */
	tf_json_span a = tf_json_member(o, "aggregationStats");
	s->heap = field_i64(&a, "heapAllocatedBytes");
	s->stack = field_i64(&a, "stackReservedBytes");
	s->peak = field_i64(&a, "peakBytesInUse");
	tf_json_span m = tf_json_member(o, "activityMetadata");
	tf_json_span act = tf_json_member(&m, "memoryActivity");
	s->act = tf_json_is(&act, "ALLOCATION") ? ACT_ALLOC : tf_json_is(&act, "DEALLOCATION") ? ACT_FREE : ACT_OTHER;
	s->bytes = field_i64(&m, "allocationBytes");
	if (s->bytes == 0)
		s->bytes = field_i64(&m, "requestedBytes");
	s->op = tf_json_member(&m, "tfOpName");
	return true;
}

static int snap_cmp(const void *a, const void *b)
{
	const snap *x = a, *y = b;
	if (x->ts_ns != y->ts_ns)
		return x->ts_ns < y->ts_ns ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static int emit(xm *r, tf_event *ev)
{
	ev->index = r->index++;
	return tf_emit(r->ctx, r->sink, ev);
}

static int counter(xm *r, uint32_t track, int64_t ts, tf_str name, int64_t v)
{
	tf_event ev = { .kind = TF_EV_COUNTER, .track = track, .name = name, .ts_ns = ts, .value = (double)v,
			.msg = { .peer = -1, .comm = -1 } };
	return emit(r, &ev);
}

static int region(xm *r, uint32_t track, int64_t ts, int kind, const char *t, size_t n)
{
	tf_event ev = { .kind = (uint8_t)kind, .track = track, .ts_ns = ts, .msg = { .peer = -1, .comm = -1 } };
	if (kind == TF_EV_BEGIN && (ev.name = tf_strtab_intern(r->st, t, n)) == (tf_str)-1)
		return TF_ENOMEM;
	return emit(r, &ev);
}

/* The op name's frames: split at '/' outside brackets (XLA names nest
 * scopes with '/': jit(step)/jit(main)/dot_general). */
static size_t op_frame(const char *t, size_t n, size_t at)
{
	int depth = 0;
	size_t i = at;
	for (; i < n; i++) {
		if (t[i] == '(' || t[i] == '[' || t[i] == '{')
			depth++;
		else if ((t[i] == ')' || t[i] == ']' || t[i] == '}') && depth > 0)
			depth--;
		else if (t[i] == '/' && depth == 0)
			break;
	}
	return i;
}

/* An allocation or a free: allocator / op frames, the memory event inside. */
static int activity(xm *r, uint32_t track, const tf_json_span *alloc, const snap *s)
{
	const char *op = "";
	size_t on = 0, nf = 1;
	if (s->op.type == TF_JSON_STRING) {
		if (tf_grow_n((void **)&r->tmp, &r->tmp_cap, s->op.n + 1, 1, false) < 0)
			return TF_ENOMEM;
		on = s->op.esc ? tf_json_unescape(s->op.p, s->op.n, r->tmp) : s->op.n;
		op = s->op.esc ? r->tmp : (const char *)s->op.p;
	}
	char *an = malloc(alloc->n + 1);
	if (!an)
		return TF_ENOMEM;
	size_t al = alloc->esc ? tf_json_unescape(alloc->p, alloc->n, an) : alloc->n;
	if (!alloc->esc)
		memcpy(an, alloc->p, al);
	int rc = region(r, track, s->ts_ns, TF_EV_BEGIN, an, al);
	free(an);
	TF_TRY(rc);
	for (size_t at = 0; at < on; nf++) {
		size_t e = op_frame(op, on, at);
		if (e > at)
			TF_TRY(region(r, track, s->ts_ns, TF_EV_BEGIN, op + at, e - at));
		else
			nf--; /* an empty frame ("a//b", a leading '/') */
		at = e + 1;
	}
	tf_event ev = { .kind = TF_EV_INSTANT, .track = track, .name = r->memory, .ts_ns = s->ts_ns,
			.value = (double)(s->act == ACT_FREE ? -s->bytes : s->bytes), .flags = TF_EVF_MEMORY,
			.msg = { .peer = -1, .comm = -1 } };
	TF_TRY(emit(r, &ev));
	while (nf--)
		TF_TRY(region(r, track, s->ts_ns, TF_EV_END, NULL, 0));
	return 0;
}

static int allocator(xm *r, tf_str host, const tf_json_span *name, const tf_json_span *prof)
{
	tf_json_span snaps = tf_json_member(prof, "memoryProfileSnapshots");
	if (name->type != TF_JSON_STRING || prof->type != TF_JSON_OBJECT ||
	    (snaps.type && snaps.type != TF_JSON_ARRAY)) {
		tf_count_skip(r->ctx, TF_DIAG_bad_event);
		return 0;
	}
	if (tf_grow_n((void **)&r->tmp, &r->tmp_cap, name->n + 1, 1, false) < 0)
		return TF_ENOMEM;
	size_t nn = name->esc ? tf_json_unescape(name->p, name->n, r->tmp) : name->n;
	tf_str an = tf_strtab_intern(r->st, name->esc ? r->tmp : (const char *)name->p, nn);
	if (an == (tf_str)-1)
		return TF_ENOMEM;
	uint32_t track = tf_ctx_track(r->ctx, r->input, host, an);
	if (track == UINT32_MAX)
		return TF_ENOMEM;
	tf_ctx_track_get(r->ctx, track)->thread_name = an;
	r->ns = 0;
	arr_iter it;
	tf_json_span v;
	if (snaps.type)
		for (arr_begin(&it, &snaps); arr_next(&it, &v);) {
			if (tf_grow_n((void **)&r->s, &r->cap, r->ns + 1, sizeof(*r->s), false) < 0)
				return TF_ENOMEM;
			if (!read_snap(&v, &r->s[r->ns])) {
				tf_count_skip(r->ctx, TF_DIAG_bad_event);
				continue;
			}
			r->s[r->ns].order = r->ns;
			r->ns++;
		}
	/* the profiler writes them in time order; a track is streamed in order */
	if (r->ns > 1)
		qsort(r->s, r->ns, sizeof(*r->s), snap_cmp);
	for (size_t i = 0; i < r->ns; i++) {
		const snap *s = &r->s[i];
		TF_TRY(counter(r, track, s->ts_ns, r->c_heap, s->heap));
		TF_TRY(counter(r, track, s->ts_ns, r->c_stack, s->stack));
		TF_TRY(counter(r, track, s->ts_ns, r->c_peak, s->peak));
		if (s->act != ACT_OTHER)
			TF_TRY(activity(r, track, name, s));
	}
	return 0;
}

/* The host: the file name before ".memory_profile.json" (the profiler
 * names its files <host>.<tool>); the whole name when it is not so named. */
static tf_str host_of(xm *r)
{
	const char *b = strrchr(r->path, '/');
	b = b ? b + 1 : r->path;
	const char *e = strstr(b, ".memory_profile.json");
	size_t n = e && e > b ? (size_t)(e - b) : strlen(b);
	return tf_strtab_intern(r->st, b, n);
}

static int read_profile(xm *r, const unsigned char *buf, size_t len)
{
	tf_json_span root, k, v;
	tf_json_error e;
	if (len == 0) /* buf is NULL then */
		return tf_error_set(r->err, TF_EFORMAT, r->path, 0, -1, "empty file (an XLA memory profile is a JSON object)");
	const unsigned char *p = tf_json_skip_ws(buf, buf + len), *after;
	if (p >= buf + len || *p != '{')
		return tf_error_set(r->err, TF_EFORMAT, r->path, (int64_t)(p - buf), -1,
				    "not a JSON object (an XLA memory profile is one)");
	int rc = tf_json_value(p, buf + len, &root, &after, &e);
	if (rc == TF_JSON_NEED)
		return tf_error_set(r->err, TF_EFORMAT, r->path, (int64_t)len, -1, "the JSON object ends early");
	if (rc != TF_JSON_OK)
		return tf_error_set(r->err, TF_EFORMAT, r->path, (int64_t)(e.at - buf), -1, "%s", e.msg);
	after = tf_json_skip_ws(after, buf + len);
	if (after < buf + len)
		return tf_error_set(r->err, TF_EFORMAT, r->path, (int64_t)(after - buf), -1,
				    "more after the JSON object");
	tf_json_span per = tf_json_member(&root, "memoryProfilePerAllocator");
	if (per.type != TF_JSON_OBJECT)
		return tf_error_set(r->err, TF_EFORMAT, r->path, 0, -1,
				    "no memoryProfilePerAllocator object (not an XLA memory profile)");
	tf_str host = host_of(r);
	if (host == (tf_str)-1)
		return TF_ENOMEM;
	tf_ctx_set_process_name(r->ctx, r->input, host, host);
	tf_json_iter it;
	tf_json_iter_begin(&it, &per);
	while (tf_json_iter_next(&it, &k, &v)) {
		rc = allocator(r, host, &k, &v);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int read_input(const char *path, uint32_t input, tf_ctx *ctx, tf_sink *sink, tf_error *err)
{
	xm r = { .path = path, .input = input, .ctx = ctx, .sink = sink, .st = tf_ctx_strtab(ctx), .err = err };
	r.c_heap = tf_strtab_intern_cstr(r.st, "memory:heap_allocated_bytes");
	r.c_stack = tf_strtab_intern_cstr(r.st, "memory:stack_reserved_bytes");
	r.c_peak = tf_strtab_intern_cstr(r.st, "memory:peak_bytes_in_use");
	r.memory = tf_strtab_intern_cstr(r.st, "[memory]");
	if (r.c_heap == (tf_str)-1 || r.c_stack == (tf_str)-1 || r.c_peak == (tf_str)-1 || r.memory == (tf_str)-1)
		return tf_error_set(err, TF_ENOMEM, path, -1, -1, "out of memory");
	unsigned char *buf;
	size_t len;
	TF_TRY(tf_in_read_all(path, "profile", &buf, &len, err));
	r.buf = buf;
	int rc = read_profile(&r, buf, len);
	if (rc == TF_ENOMEM && err && !err->code)
		tf_error_set(err, rc, path, -1, (int64_t)r.index, "out of memory");
	free(r.s);
	free(r.tmp);
	free(buf);
	return rc;
}

/* A JSON object naming the memory profile's map (proto3 JSON writes fields
 * by number: memory_profile_per_allocator, field 1, comes first unless it
 * is empty) or its snapshots.  The Chrome reader's YES comes first in the
 * table, so a trace that only mentions these keys stays a trace. */
static int sniff(const char *path, int is_dir, const unsigned char *head, size_t n, bool whole)
{
	(void)path;
	(void)whole;
	size_t i = 0;
	if (is_dir)
		return TF_SNIFF_NO;
	while (i < n && tf_json_ws[head[i]])
		i++;
	if (i >= n || head[i] != '{')
		return TF_SNIFF_NO;
	return tf_json_head_has(head + i, n - i, "\"memoryProfilePerAllocator\"") ||
	       tf_json_head_has(head + i, n - i, "\"memoryProfileSnapshots\"") ? TF_SNIFF_YES : TF_SNIFF_NO;
}

const tf_format tf_format_xla_memory = {
	.name = "xla-memory",
	.description = "XLA profiler memory profiles (JAX/TensorFlow <host>.memory_profile.json.gz: "
		       "allocations per op and allocator)",
	.sniff = sniff,
	.read = read_input, /* one part */
};
