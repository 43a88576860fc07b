/* xplane.c - reads the XLA profiler's XPlane protobuf (`*.xplane.pb`, what
 * jax.profiler.trace and TensorFlow's profiler write and xprof/TensorBoard
 * read; proto/xplane.proto, docs/format-xplane.md).
 *
 *   XSpace -> planes: /host:CPU (lines = host threads: regions, nested by
 *   time) and /device:GPU:N (lines = CUDA streams: GPU activity, TF_TRACK_GPU)
 *   -> tf_event; the other planes and xprof's derived lines are no
 *   timelines: skipped and counted (xplane_not_timeline).
 *
 * Times: line.timestamp_ns + event.offset_ps, start and end each rounded
 * to nanoseconds half to even.  A host call and the GPU activity it
 * launched share a correlation_id stat (tf_event.corr: the GPU join puts
 * the activity under the call).  The op of a GPU activity (tf_event.op, a
 * frame between launch and kernel): its tf_op stat when it names one, else
 * the op path (OpMetadata.op_name) of its HLO instruction, from the
 * HloProto of its module in the /host:metadata plane, by its hlo_op stat
 * or its kernel name (XLA names a fusion's kernel after its instruction,
 * '.' written '_'); none found: counted (gpu_op_unknown).
 *
 * Whole-message exception, as pprof.c: protobuf-c unpacks one contiguous
 * buffer, so the whole (decompressed) file is held in memory.  When it
 * refuses the file, xplane_hlo.c walks the wire format to say at which
 * byte it goes wrong. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tracefold/reader.h"
#include "tracefold/io.h"
#include "xplane.pb-c.h"
#include "xplane_int.h"
#include "grow.h"

typedef Tensorflow__Profiler__XSpace XSpace;
typedef Tensorflow__Profiler__XPlane XPlane;
typedef Tensorflow__Profiler__XLine XLine;
typedef Tensorflow__Profiler__XEvent XEvent;
typedef Tensorflow__Profiler__XStat XStat;
typedef Tensorflow__Profiler__XEventMetadata XEventMetadata;

/* The stats the reader uses, by their stat_metadata name. */
enum { ST_OTHER, ST_CORR, ST_MODULE, ST_HLO_OP, ST_TF_OP, ST_HLO_PROTO };

typedef struct xreader {
	const char *path;
	uint32_t input;
	tf_ctx *ctx;
	tf_sink *sink;
	tf_error *err;
	tf_strtab *st;
	tf_diag *diag;
	tf_hmap ops;             /* (module, instruction or kernel name) -> op path */
	uint64_t index;          /* events decoded so far */
	/* the plane being read */
	const XPlane *pl;
	tf_hmap emeta, smeta;    /* metadata id -> index in pl's tables */
	tf_str *names;           /* per event metadata: its name, interned (0: not yet) */
	uint8_t *kinds;          /* per stat metadata: ST_* */
	size_t cap_names, cap_kinds;
	tf_str memory_alloc, memory_dealloc;
} xreader;

/* What an event's stats say. */
typedef struct xstats {
	uint64_t corr;
	const char *module, *hlo_op, *tf_op;
} xstats;

static int64_t ps_to_ns(int64_t ps) /* floor, then half to even */
{
	int64_t q = ps / 1000, r = ps % 1000;
	if (r < 0) {
		q--;
		r += 1000;
	}
	if (r > 500 || (r == 500 && (q & 1)))
		q++;
	return q;
}

/* ---- a plane's metadata ---- */

static int index_plane(xreader *r, const XPlane *pl)
{
	r->pl = pl;
	tf_hmap_free(&r->emeta);
	tf_hmap_free(&r->smeta);
	if (tf_grow_n((void **)&r->names, &r->cap_names, pl->n_event_metadata + 1, sizeof(tf_str), false) < 0 ||
	    tf_grow_n((void **)&r->kinds, &r->cap_kinds, pl->n_stat_metadata + 1, 1, false) < 0)
		return TF_ENOMEM;
	memset(r->names, 0, (pl->n_event_metadata + 1) * sizeof(tf_str));
	for (size_t i = 0; i < pl->n_event_metadata; i++)
		if (tf_hmap_set(&r->emeta, (uint64_t)pl->event_metadata[i]->key, (uint32_t)i) < 0)
			return TF_ENOMEM;
	static const struct { const char *name; uint8_t kind; } known[] = {
		{ "correlation_id", ST_CORR }, { "hlo_module", ST_MODULE }, { "hlo_op", ST_HLO_OP },
		{ "tf_op", ST_TF_OP }, { "Hlo Proto", ST_HLO_PROTO },
	};
	for (size_t i = 0; i < pl->n_stat_metadata; i++) {
		if (tf_hmap_set(&r->smeta, (uint64_t)pl->stat_metadata[i]->key, (uint32_t)i) < 0)
			return TF_ENOMEM;
		const char *n = pl->stat_metadata[i]->value ? pl->stat_metadata[i]->value->name : "";
		r->kinds[i] = ST_OTHER;
		for (size_t k = 0; k < sizeof(known) / sizeof(known[0]); k++)
			if (!strcmp(n, known[k].name))
				r->kinds[i] = known[k].kind;
	}
	return 0;
}

static const XEventMetadata *event_meta(const xreader *r, int64_t id, uint32_t *at)
{
	*at = tf_hmap_get(&r->emeta, (uint64_t)id);
	return *at == UINT32_MAX ? NULL : r->pl->event_metadata[*at]->value;
}

/* The name of the stat metadata id (a ref_value's string), "" if none. */
static const char *stat_name(const xreader *r, uint64_t id)
{
	uint32_t at = tf_hmap_get(&r->smeta, id);
	const Tensorflow__Profiler__XStatMetadata *m = at == UINT32_MAX ? NULL : r->pl->stat_metadata[at]->value;
	return m ? m->name : "";
}

static int stat_kind(const xreader *r, int64_t id)
{
	uint32_t at = tf_hmap_get(&r->smeta, (uint64_t)id);
	return at == UINT32_MAX ? ST_OTHER : r->kinds[at];
}

static const char *stat_str(const xreader *r, const XStat *s)
{
	if (s->value_case == TENSORFLOW__PROFILER__XSTAT__VALUE_STR_VALUE)
		return s->str_value;
	if (s->value_case == TENSORFLOW__PROFILER__XSTAT__VALUE_REF_VALUE)
		return stat_name(r, s->ref_value);
	return NULL;
}

static uint64_t stat_u64(const xreader *r, const XStat *s)
{
	switch (s->value_case) {
	case TENSORFLOW__PROFILER__XSTAT__VALUE_UINT64_VALUE: return s->uint64_value;
	case TENSORFLOW__PROFILER__XSTAT__VALUE_INT64_VALUE: return (uint64_t)s->int64_value;
	default: {
		const char *t = stat_str(r, s);
		return t && *t ? strtoull(t, NULL, 10) : 0;
	}
	}
}

/* The stats of an event, then of its metadata (which hold for every event
 * of it) where the event has none of the kind. */
static void read_stats(const xreader *r, XStat *const *s, size_t n, xstats *x)
{
	for (size_t i = 0; i < n; i++) {
		switch (stat_kind(r, s[i]->metadata_id)) {
		case ST_CORR: if (!x->corr) x->corr = stat_u64(r, s[i]); break;
		case ST_MODULE: if (!x->module) x->module = stat_str(r, s[i]); break;
		case ST_HLO_OP: if (!x->hlo_op) x->hlo_op = stat_str(r, s[i]); break;
		case ST_TF_OP: if (!x->tf_op) x->tf_op = stat_str(r, s[i]); break;
		default: break;
		}
	}
}

/* /host:metadata: the HloProto of each module (a bytes stat "Hlo Proto" of
 * an event metadata) into the op table.  A damaged one is skipped. */
static int read_hlo(xreader *r, const XPlane *pl)
{
	TF_TRY(index_plane(r, pl));
	for (size_t i = 0; i < pl->n_event_metadata; i++) {
		const XEventMetadata *m = pl->event_metadata[i]->value;
		for (size_t k = 0; m && k < m->n_stats; k++) {
			const XStat *s = m->stats[k];
			if (stat_kind(r, s->metadata_id) != ST_HLO_PROTO ||
			    s->value_case != TENSORFLOW__PROFILER__XSTAT__VALUE_BYTES_VALUE)
				continue;
			int q = tf_xplane_hlo_ops(s->bytes_value.data, s->bytes_value.len, r->st, &r->ops);
			if (q < 0)
				return q;
			if (q == 1)
				tf_ctx_note(r->ctx, "'%s': the HloProto of '%s' is damaged: its ops are not read", r->path,
					    m->name);
		}
	}
	return 0;
}

/* ---- events ---- */

static tf_str intern(xreader *r, const char *s)
{
	return s && *s ? tf_strtab_intern_cstr(r->st, s) : 0;
}

/* The op of a GPU activity named name (docs/format-xplane.md "The XLA op"). */
static int gpu_op(xreader *r, const xstats *x, tf_str name, tf_str *op)
{
	*op = 0;
	if (x->tf_op && *x->tf_op && strncmp(x->tf_op, "XlaModule:", 10)) {
		*op = intern(r, x->tf_op);
		return *op == (tf_str)-1 ? TF_ENOMEM : 0;
	}
	if (!x->module || !*x->module || !r->ops.n)
		return 0;
	tf_str mod = intern(r, x->module), hop = intern(r, x->hlo_op);
	if (mod == (tf_str)-1 || hop == (tf_str)-1)
		return TF_ENOMEM;
	uint32_t v = hop ? tf_hmap_get(&r->ops, tf_xplane_op_key(mod, hop)) : UINT32_MAX;
	if (v == UINT32_MAX)
		v = tf_hmap_get(&r->ops, tf_xplane_op_key(mod, name));
	*op = v == UINT32_MAX ? 0 : v;
	return 0;
}

static int read_event(xreader *r, const XLine *ln, const XEvent *e, uint32_t track, bool gpu)
{
	uint64_t idx = r->index++;
	uint32_t at;
	const XEventMetadata *m = event_meta(r, e->metadata_id, &at);
	if (!m) {
		tf_count_skip(r->ctx, TF_DIAG_unknown_event_id);
		return 0;
	}
	if (e->data_case == TENSORFLOW__PROFILER__XEVENT__DATA_NUM_OCCURRENCES) { /* aggregated: no time */
		tf_count_skip(r->ctx, TF_DIAG_xplane_not_timeline);
		return 0;
	}
	if (!r->names[at] && !(r->names[at] = intern(r, *m->display_name ? m->display_name : m->name)))
		r->names[at] = tf_strtab_intern_cstr(r->st, "[unnamed]");
	if (r->names[at] == (tf_str)-1)
		return TF_ENOMEM;
	tf_str name = r->names[at];
	if (!gpu && !e->duration_ps && (name == r->memory_alloc || name == r->memory_dealloc)) {
		tf_count_skip(r->ctx, TF_DIAG_xplane_memory_event);
		return 0;
	}
	int64_t s_ps = e->offset_ps, e_ps, ts, end;
	if (__builtin_add_overflow(s_ps, e->duration_ps, &e_ps) ||
	    __builtin_add_overflow(ln->timestamp_ns, ps_to_ns(s_ps), &ts) ||
	    __builtin_add_overflow(ln->timestamp_ns, ps_to_ns(e_ps), &end)) {
		tf_count_skip(r->ctx, TF_DIAG_bad_event);
		return 0;
	}
	xstats x = { 0 };
	read_stats(r, e->stats, e->n_stats, &x);
	read_stats(r, m->stats, m->n_stats, &x);
	tf_event ev = { .kind = TF_EV_COMPLETE, .track = track, .name = name, .ts_ns = ts,
			.dur_ns = end - ts, .index = idx, .corr = x.corr, .msg = { .peer = -1, .comm = -1 } };
	if (gpu) {
		TF_TRY(gpu_op(r, &x, name, &ev.op));
		if (!ev.op)
			tf_diag_repair(r->diag, TF_DIAG_gpu_op_unknown, ev.dur_ns);
	}
	return tf_emit(r->ctx, r->sink, &ev);
}

/* xprof's derived lines (its own analysis, not a timeline of the trace). */
static bool derived_line(const XLine *ln)
{
	static const char *const names[] = { "XLA Modules", "XLA Ops", "XLA TraceMe", "Steps", "TensorFlow Ops",
					     "TensorFlow Name Scope", "Framework Ops", "Framework Name Scope",
					     "Source code", "Launch Stats", "Async XLA Ops", NULL };
	if (ln->id >= 0xdeadbeefll && ln->id < 0xdeadbeefll + 64) /* xprof's kThreadIdDerivedMin.. */
		return true;
	for (int i = 0; names[i]; i++)
		if (!strcmp(ln->name, names[i]))
			return true;
	return false;
}

static size_t plane_events(const XPlane *pl)
{
	size_t n = 0;
	for (size_t i = 0; i < pl->n_lines; i++)
		n += pl->lines[i]->n_events;
	return n;
}

static void skip_events(xreader *r, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		r->index++;
		tf_count_skip(r->ctx, TF_DIAG_xplane_not_timeline);
	}
}

static int read_plane(xreader *r, const XPlane *pl, bool gpu)
{
	TF_TRY(index_plane(r, pl));
	tf_str pk = intern(r, pl->name);
	if (pk == (tf_str)-1)
		return TF_ENOMEM;
	for (size_t i = 0; i < pl->n_lines; i++) {
		const XLine *ln = pl->lines[i];
		if (derived_line(ln)) {
			if (ln->n_events)
				tf_ctx_note(r->ctx, "'%s': line '%s' of plane '%s' (%zu events) is xprof's derived line, "
					    "not a timeline: skipped", r->path, ln->name, pl->name, ln->n_events);
			skip_events(r, ln->n_events);
			continue;
		}
		char b[32];
		snprintf(b, sizeof(b), "%" PRId64, ln->id);
		tf_str tk = tf_strtab_intern_cstr(r->st, b);
		tf_str tn = intern(r, *ln->display_name ? ln->display_name : ln->name);
		if (tk == (tf_str)-1 || tn == (tf_str)-1)
			return TF_ENOMEM;
		uint32_t track = tf_ctx_track(r->ctx, r->input, pk, tk);
		if (track == UINT32_MAX)
			return TF_ENOMEM;
		tf_track *t = tf_ctx_track_get(r->ctx, track);
		t->needs_sort = true; /* a line's events are in no promised order */
		t->process_name = pk;
		t->thread_name = tn ? tn : tk;
		if (gpu)
			t->kind = TF_TRACK_GPU;
		for (size_t k = 0; k < ln->n_events; k++)
			TF_TRY(read_event(r, ln, ln->events[k], track, gpu));
	}
	return 0;
}

static int read_space(xreader *r, const XSpace *xs)
{
	bool timeline = false;
	for (size_t i = 0; i < xs->n_planes; i++)
		if (!strcmp(xs->planes[i]->name, "/host:metadata"))
			TF_TRY(read_hlo(r, xs->planes[i]));
	for (size_t i = 0; i < xs->n_planes; i++) {
		const XPlane *pl = xs->planes[i];
		bool host = !strcmp(pl->name, "/host:CPU"), gpu = !strncmp(pl->name, "/device:GPU:", 12);
		timeline |= host || gpu;
		if (host || gpu)
			TF_TRY(read_plane(r, pl, gpu));
		else if (plane_events(pl)) {
			tf_ctx_note(r->ctx, "'%s': plane '%s' (%zu events) is not a timeline tracefold reads: skipped",
				    r->path, pl->name, plane_events(pl));
			skip_events(r, plane_events(pl));
		}
	}
	if (!timeline)
		return tf_error_set(r->err, TF_EFORMAT, r->path, 0, -1,
				    "an XPlane without a /host:CPU or /device:GPU:N plane: no timeline to read");
	return 0;
}

static int read_input(const char *path, uint32_t input, tf_ctx *ctx, tf_sink *sink, tf_error *err)
{
	unsigned char *buf;
	size_t len;
	TF_TRY(tf_in_read_all(path, "XPlane", &buf, &len, err));
	XSpace *xs = tensorflow__profiler__xspace__unpack(NULL, len, buf);
	if (!xs) {
		const char *why = "protobuf-c could not decode it";
		size_t at = tf_xplane_damage(buf, len, &why);
		free(buf);
		return tf_error_set(err, TF_EFORMAT, path, at == SIZE_MAX ? 0 : (int64_t)at, -1,
				    "not a readable XPlane (XSpace): %s", why);
	}
	xreader r = { .path = path, .input = input, .ctx = ctx, .sink = sink, .err = err,
		      .st = tf_ctx_strtab(ctx), .diag = tf_ctx_diag(ctx) };
	r.memory_alloc = tf_strtab_intern_cstr(r.st, "MemoryAllocation");
	r.memory_dealloc = tf_strtab_intern_cstr(r.st, "MemoryDeallocation");
	int rc = r.memory_alloc == (tf_str)-1 || r.memory_dealloc == (tf_str)-1 ? TF_ENOMEM : read_space(&r, xs);
	tf_hmap_free(&r.ops);
	tf_hmap_free(&r.emeta);
	tf_hmap_free(&r.smeta);
	free(r.names);
	free(r.kinds);
	tensorflow__profiler__xspace__free_unpacked(xs, NULL);
	free(buf);
	if (rc == TF_ENOMEM)
		return tf_error_set(err, TF_ENOMEM, path, -1, -1, "out of memory");
	return rc;
}

/* A protobuf has no magic.  An XSpace starts with its first plane (field
 * 1: 0x0a, length), whose name (field 2) comes after its id (field 1): a
 * name starting with '/' ("/host:...", "/device:...") says XPlane; so does
 * the name *.xplane.pb (gzipped or not) with a first byte 0x0a (or empty).
 * A Perfetto trace (also 0x0a, length) has a TracePacket there, which has
 * no string field 2 holding a '/' path, and is sniffed after this row. */
static int sniff(const char *path, int is_dir, const unsigned char *h, size_t n, bool whole)
{
	if (is_dir || (n && h[0] != 0x0a))
		return TF_SNIFF_NO;
	size_t pl = strlen(path);
	static const char *const sfx[] = { ".xplane.pb", ".xplane.pb.gz", NULL };
	for (int i = 0; sfx[i]; i++) {
		size_t k = strlen(sfx[i]);
		if (pl > k && !strcmp(path + pl - k, sfx[i]))
			return TF_SNIFF_YES; /* empty too: the reader says what is wrong */
	}
	if (n < 4)
		return TF_SNIFF_NO;
	size_t i = 1;
	while (i < n && i < 11 && (h[i] & 0x80)) /* the plane's length */
		i++;
	if (++i >= n)
		return TF_SNIFF_NO;
	if (h[i] == 0x08) { /* XPlane.id, a varint */
		size_t k = i + 1;
		while (k < n && k < i + 11 && (h[k] & 0x80))
			k++;
		i = k + 1;
	}
	if (i + 3 >= n || h[i] != 0x12 || h[i + 1] < 2 || (h[i + 1] & 0x80) || h[i + 2] != '/')
		return TF_SNIFF_NO;
	size_t end = i + 2 + h[i + 1];
	for (size_t k = i + 2; k < end && k < n; k++)
		if (h[k] < 0x20 || h[k] >= 0x7f)
			return TF_SNIFF_NO;
	return TF_SNIFF_YES;
}

const tf_format tf_format_xplane = {
	.name = "xplane",
	.description = "XPlane protobuf of the XLA profiler (*.xplane.pb: JAX, TensorFlow; the format xprof reads)",
	.sniff = sniff,
	.read = read_input, /* one part */
};
