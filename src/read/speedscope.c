/* speedscope.c - speedscope's JSON file format (docs/format-speedscope.md):
 *
 *   {"$schema": "https://www.speedscope.app/file-format-schema.json",
 *    "name", "exporter", "shared": {"frames": [{name, file?, line?}...]},
 *    "profiles": [
 *      {"type": "sampled", name, unit, startValue, samples: [[frame...]...],
 *       weights: [...]}        each sample a TF_EV_SAMPLE (root first),
 *      {"type": "evented", name, unit, startValue, events: [{type: O|C,
 *       frame, at}...]}        each O a region start, each C its end]}
 *
 * Each profile is one track (process: the file's "name", else
 * "speedscope"; thread: the profile's index, named by the profile's name).
 * Times in a time unit become ns exactly (tf_json_decimal_scaled); `none`
 * and `bytes` are taken as they are.  A sampled profile's weight is
 * cpu/nanoseconds for a time unit, space/bytes for bytes and weight/count
 * for none; its samples' times are startValue + the weights before them
 * (time units) or their index.  An evented profile is refused as
 * speedscope refuses it: an `at` that goes back, a C of another frame than
 * the innermost open one, frames open at the end.
 *
 * A file tracefold wrote (docs/speedscope.md: "exporter" starts with
 * "tracefold ") holds, besides its evented profiles (the regions), a
 * sampled profile "all threads: wall self time" made from the same
 * regions: it is skipped, so that the file reads back to the wall profile
 * it was written from.
 *
 * The file is read whole (gzip through tf_in) and walked with the Chrome
 * reader's tokenizer (json.h); per sample only its stack is looked up. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tracefold/io.h"
#include "tracefold/reader.h"
#include "grow.h"
#include "json.h"

#define SCHEMA_URL "https://www.speedscope.app/file-format-schema.json"
#define OWN_AGG_NAME "all threads: wall self time"

typedef struct ssr {
	const char *path;
	uint32_t input;
	tf_ctx *ctx;
	tf_sink *sink;
	tf_strtab *st;
	tf_error *err;
	const unsigned char *buf;
	uint64_t index;          /* events made */
	tf_str *frames;          /* shared.frames[i].name, interned */
	size_t nframes;
	uint32_t *open;          /* evented: the frames open, innermost last */
	size_t nopen, capopen;
	char *tmp;
	size_t tmp_cap;
	tf_str proc;
	bool own;                /* a file tracefold wrote */
	uint64_t used;           /* samples and regions pushed */
	/* the profile being read */
	size_t prof;
	tf_str pname;
	uint32_t track;
	int scale;               /* 10^scale ns per unit; -1: not a time unit */
	bool evented;
	tf_str wtype, wunit;
} ssr;

typedef struct arr_iter {
	const unsigned char *p, *end;
} arr_iter;

static void arr_begin(arr_iter *it, const tf_json_span *a)
{
	it->p = a->p + 1;
	it->end = a->p + a->n - 1;
}

/* The next element of an array span tf_json_value checked. */
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

/* The members keys[0..n) of obj into out[] (absent: zeroed), in one walk:
 * each member's value is checked once, however many keys are asked for. */
static void fields(const tf_json_span *obj, const char *const *keys, tf_json_span *out, size_t n)
{
	tf_json_iter it;
	tf_json_span k, v;
	memset(out, 0, n * sizeof(*out));
	if (obj->type != TF_JSON_OBJECT)
		return;
	tf_json_iter_begin(&it, obj);
	while (tf_json_iter_next(&it, &k, &v))
		for (size_t i = 0; i < n; i++)
			if (!out[i].type && tf_json_is(&k, keys[i])) {
				out[i] = v;
				break;
			}
}

static int64_t off_of(const ssr *r, const tf_json_span *v)
{
	return v->p ? (int64_t)(v->p - r->buf) : -1;
}

/* A string span interned (unescaped when it has escapes). */
static tf_str intern_span(ssr *r, const tf_json_span *s)
{
	if (!s->esc)
		return tf_strtab_intern(r->st, (const char *)s->p, s->n);
	if (tf_grow_n((void **)&r->tmp, &r->tmp_cap, s->n + 1, 1, false) < 0)
		return (tf_str)-1;
	return tf_strtab_intern(r->st, r->tmp, tf_json_unescape(s->p, s->n, r->tmp));
}

static int bad(ssr *r, const tf_json_span *at, int64_t index, const char *what)
{
	char ix[40] = "";
	if (index >= 0)
		snprintf(ix, sizeof(ix), ", %s %" PRId64, r->evented ? "event" : "sample", index);
	return tf_error_set(r->err, TF_EFORMAT, r->path, at ? off_of(r, at) : -1, index, "profile %zu (%s)%s: %s",
			    r->prof, r->pname ? tf_strtab_get(r->st, r->pname) : "unnamed", ix, what);
}

static int read_frames(ssr *r, const tf_json_span *root, const tf_json_span *sh)
{
	tf_json_span shared = *sh, fr = tf_json_member(&shared, "frames"), v;
	if (fr.type != TF_JSON_ARRAY)
		return tf_error_set(r->err, TF_EFORMAT, r->path, off_of(r, shared.p ? &shared : root), -1,
				    "no shared.frames array (not a speedscope file)");
	arr_iter it;
	size_t cap = 0;
	for (arr_begin(&it, &fr); arr_next(&it, &v);) {
		tf_json_span name = tf_json_member(&v, "name");
		if (name.type != TF_JSON_STRING)
			return tf_error_set(r->err, TF_EFORMAT, r->path, off_of(r, &v), -1,
					    "shared.frames[%zu] has no name string", r->nframes);
		if (tf_grow_n((void **)&r->frames, &cap, r->nframes + 1, sizeof(*r->frames), false) < 0)
			return TF_ENOMEM;
		if ((r->frames[r->nframes++] = intern_span(r, &name)) == (tf_str)-1)
			return TF_ENOMEM;
	}
	return 0;
}

/* The frame index v names, or -1 (error set) when it is none. */
static int64_t frame_index(ssr *r, const tf_json_span *v, int64_t index)
{
	int64_t f;
	if (v->type != TF_JSON_NUMBER || !tf_json_i64(v, &f) || f < 0 || (uint64_t)f >= r->nframes) {
		char b[96];
		snprintf(b, sizeof(b), "frame %.*s is not an index of shared.frames (%zu frames)",
			 v->type == TF_JSON_NUMBER && v->n < 40 ? (int)v->n : 1, v->type == TF_JSON_NUMBER ? (const char *)v->p : "?",
			 r->nframes);
		bad(r, v, index, b);
		return -1;
	}
	return f;
}

static int emit(ssr *r, tf_event *ev)
{
	ev->msg = (tf_message){ -1, 0, 0, -1 };
	ev->track = r->track;
	TF_TRY(tf_emit(r->ctx, r->sink, ev));
	r->used++;
	return 0;
}

/* A value in the profile's unit as ns (time units) or as it is. */
static bool value_ns(const ssr *r, const tf_json_span *v, int64_t *out)
{
	return tf_json_scaled(v, r->scale < 0 ? 0 : r->scale, out);
}

static int sampled(ssr *r, const tf_json_span *p, const tf_json_span *samples, const tf_json_span *weights,
		   int64_t start)
{
	tf_json_span s, w, f;
	if (samples->type != TF_JSON_ARRAY || weights->type != TF_JSON_ARRAY)
		return bad(r, p, -1, "a sampled profile needs the arrays samples and weights");
	arr_iter is, iw, ifr;
	arr_begin(&is, samples);
	arr_begin(&iw, weights);
	int64_t ts = start, i = 0;
	for (; arr_next(&is, &s); i++) {
		if (!arr_next(&iw, &w))
			return bad(r, &s, i, "fewer weights than samples");
		int64_t wv;
		if (s.type != TF_JSON_ARRAY)
			return bad(r, &s, i, "a sample is not an array of frame indices");
		if (!value_ns(r, &w, &wv) || wv < 0)
			return bad(r, &w, i, "a weight is not a non-negative number");
		uint32_t stack = TF_CPATH_ROOT;
		for (arr_begin(&ifr, &s); arr_next(&ifr, &f);) {
			int64_t fi = frame_index(r, &f, i);
			if (fi < 0)
				return TF_EFORMAT;
			if ((stack = tf_ctx_stack_child(r->ctx, stack, r->frames[fi])) == (uint32_t)-1)
				return TF_ENOMEM;
		}
		tf_event ev = { .kind = TF_EV_SAMPLE, .ts_ns = r->scale >= 0 ? ts : start + i, .id = stack,
				.dur_ns = 1, .name = r->wtype, .cat = r->wunit, .value = (double)wv,
				.index = (uint64_t)i };
		TF_TRY(emit(r, &ev));
		if (r->scale >= 0 && __builtin_add_overflow(ts, wv, &ts))
			return bad(r, &w, i, "the weights add up beyond int64 nanoseconds");
	}
	if (arr_next(&iw, &w))
		return bad(r, &w, i, "more weights than samples");
	return 0;
}

static int open_push(ssr *r, uint32_t f)
{
	if (tf_grow_n((void **)&r->open, &r->capopen, r->nopen + 1, sizeof(*r->open), false) < 0)
		return TF_ENOMEM;
	r->open[r->nopen++] = f;
	return 0;
}

static int evented(ssr *r, const tf_json_span *p, const tf_json_span *events, int64_t start)
{
	tf_json_span e;
	if (events->type != TF_JSON_ARRAY)
		return bad(r, p, -1, "an evented profile needs the array events");
	arr_iter it;
	int64_t last = start, i = 0;
	char b[256];
	r->nopen = 0;
	static const char *const keys[] = { "type", "frame", "at" };
	for (arr_begin(&it, events); arr_next(&it, &e); i++) {
		tf_json_span f[3];
		fields(&e, keys, f, 3);
		tf_json_span type = f[0], fr = f[1], at = f[2];
		int64_t ts, fi;
		bool o = tf_json_is(&type, "O");
		if (!o && !tf_json_is(&type, "C"))
			return bad(r, &e, i, "an event's type is neither \"O\" nor \"C\"");
		if (!value_ns(r, &at, &ts))
			return bad(r, &e, i, "an event without a numeric at");
		if (ts < last)
			return bad(r, &e, i, "events out of order (at goes back in time)");
		last = ts;
		if ((fi = frame_index(r, &fr, i)) < 0)
			return TF_EFORMAT;
		tf_event ev = { .kind = o ? TF_EV_BEGIN : TF_EV_END, .ts_ns = ts, .name = r->frames[fi], .index = (uint64_t)i };
		if (o) {
			TF_TRY(open_push(r, (uint32_t)fi));
		} else if (!r->nopen || r->open[r->nopen - 1] != (uint32_t)fi) {
			snprintf(b, sizeof(b), "close of frame '%.80s' while %s%.80s%s is on top",
				 tf_strtab_get(r->st, r->frames[fi]), r->nopen ? "'" : "",
				 r->nopen ? tf_strtab_get(r->st, r->frames[r->open[r->nopen - 1]]) : "nothing",
				 r->nopen ? "'" : "");
			return bad(r, &e, i, b);
		} else {
			r->nopen--;
		}
		TF_TRY(emit(r, &ev));
	}
	if (r->nopen) {
		snprintf(b, sizeof(b), "%zu frames still open at the end (the innermost '%.80s')", r->nopen,
			 tf_strtab_get(r->st, r->frames[r->open[r->nopen - 1]]));
		return bad(r, p, -1, b);
	}
	return 0;
}

/* The unit's ns per unit as a power of ten (-1: not a time) and the
 * weight type of a sampled profile in it; false when unknown. */
static bool unit_of(ssr *r, const tf_json_span *u)
{
	static const struct { const char *unit; int scale; const char *type, *tunit; } units[] = {
		{ "nanoseconds", 0, "cpu", "nanoseconds" }, { "microseconds", 3, "cpu", "nanoseconds" },
		{ "milliseconds", 6, "cpu", "nanoseconds" }, { "seconds", 9, "cpu", "nanoseconds" },
		{ "bytes", -1, "space", "bytes" },           { "none", -1, "weight", "count" },
	};
	for (size_t k = 0; k < sizeof(units) / sizeof(units[0]); k++)
		if (tf_json_is(u, units[k].unit)) {
			r->scale = units[k].scale;
			r->wtype = tf_strtab_intern_cstr(r->st, units[k].type);
			r->wunit = tf_strtab_intern_cstr(r->st, units[k].tunit);
			return r->wtype != (tf_str)-1 && r->wunit != (tf_str)-1;
		}
	return false;
}

static int profile(ssr *r, const tf_json_span *p)
{
	r->pname = 0;
	if (p->type != TF_JSON_OBJECT)
		return bad(r, p, -1, "a profile is not an object");
	static const char *const keys[] = { "type", "name", "unit", "startValue", "samples", "weights", "events" };
	tf_json_span f[7];
	fields(p, keys, f, 7);
	tf_json_span type = f[0], name = f[1], unit = f[2], sv = f[3];
	if (name.type == TF_JSON_STRING && (r->pname = intern_span(r, &name)) == (tf_str)-1)
		return TF_ENOMEM;
	bool smp = tf_json_is(&type, "sampled");
	r->evented = !smp;
	if (!smp && !tf_json_is(&type, "evented"))
		return bad(r, p, -1, "type is neither \"sampled\" nor \"evented\"");
	if (r->own && smp && tf_json_is(&name, OWN_AGG_NAME)) {
		tf_ctx_note(r->ctx, "%s: profile %zu, tracefold's own aggregate '" OWN_AGG_NAME
			    "', skipped (its evented profiles hold the same regions)", r->path, r->prof);
		return 0;
	}
	if (!unit_of(r, &unit))
		return bad(r, unit.p ? &unit : p, -1,
			   "unit is none of none, nanoseconds, microseconds, milliseconds, seconds, bytes");
	int64_t start = 0;
	if (sv.type && !value_ns(r, &sv, &start))
		return bad(r, &sv, -1, "startValue is not a number");
	char key[32];
	snprintf(key, sizeof(key), "%zu", r->prof);
	tf_str tk = tf_strtab_intern_cstr(r->st, key);
	if (tk == (tf_str)-1 || (r->track = tf_ctx_track(r->ctx, r->input, r->proc, tk)) == UINT32_MAX)
		return TF_ENOMEM;
	tf_track *t = tf_ctx_track_get(r->ctx, r->track);
	t->thread_name = r->pname ? r->pname : tk;
	t->needs_sort = false;
	return smp ? sampled(r, p, &f[4], &f[5], start) : evented(r, p, &f[6], start);
}

static int read_root(ssr *r, const unsigned char *buf, size_t len)
{
	tf_json_span root;
	tf_json_error e;
	const unsigned char *p = tf_json_skip_ws(buf, buf + len), *after;
	if (p >= buf + len || *p != '{')
		return tf_error_set(r->err, TF_EFORMAT, r->path, (int64_t)(p - buf), -1,
				    "not a JSON object (a speedscope file is one)");
	int rc = tf_json_value(p, buf + len, &root, &after, &e);
	if (rc == TF_JSON_NEED)
		return tf_error_set(r->err, TF_EFORMAT, r->path, (int64_t)len, -1, "the JSON object ends early (cut file?)");
	if (rc != TF_JSON_OK)
		return tf_error_set(r->err, TF_EFORMAT, r->path, (int64_t)(e.at - buf), -1, "%s", e.msg);
	after = tf_json_skip_ws(after, buf + len);
	if (after < buf + len)
		return tf_error_set(r->err, TF_EFORMAT, r->path, (int64_t)(after - buf), -1, "more after the JSON object");
	static const char *const keys[] = { "shared", "profiles", "exporter", "name" };
	tf_json_span f[4], v;
	fields(&root, keys, f, 4);
	TF_TRY(read_frames(r, &root, &f[0]));
	tf_json_span profs = f[1], exp = f[2], name = f[3];
	if (profs.type != TF_JSON_ARRAY)
		return tf_error_set(r->err, TF_EFORMAT, r->path, 0, -1, "no profiles array (not a speedscope file)");
	r->own = exp.type == TF_JSON_STRING && exp.n > 10 && memcmp(exp.p, "tracefold ", 10) == 0;
	r->proc = name.type == TF_JSON_STRING ? intern_span(r, &name) : tf_strtab_intern_cstr(r->st, "speedscope");
	if (r->proc == (tf_str)-1)
		return TF_ENOMEM;
	tf_ctx_set_process_name(r->ctx, r->input, r->proc, r->proc);
	arr_iter it;
	for (arr_begin(&it, &profs); arr_next(&it, &v); r->prof++)
		TF_TRY(profile(r, &v));
	if (!r->used)
		return tf_error_set(r->err, TF_EFORMAT, r->path, off_of(r, &profs), -1,
				    "no samples nor events in its %zu profiles", r->prof);
	return 0;
}

static int read_input(const char *path, uint32_t input, tf_ctx *ctx, tf_sink *sink, tf_error *err)
{
	ssr r = { .path = path, .input = input, .ctx = ctx, .sink = sink, .st = tf_ctx_strtab(ctx), .err = err };
	unsigned char *buf;
	size_t len;
	TF_TRY(tf_in_read_all(path, "speedscope file", &buf, &len, err));
	r.buf = buf;
	int rc = len ? read_root(&r, buf, len)
		     : tf_error_set(err, TF_EFORMAT, path, 0, -1, "empty file (a speedscope file is a JSON object)");
	if (rc == TF_ENOMEM && err && !err->code)
		tf_error_set(err, rc, path, -1, (int64_t)r.index, "out of memory");
	free(r.frames);
	free(r.open);
	free(r.tmp);
	free(buf);
	return rc;
}

/* A JSON object whose head names speedscope's schema, or has both the
 * keys "shared" and "profiles" (files without $schema). */
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
	if (tf_json_head_has(head + i, n - i, "speedscope.app/file-format-schema.json"))
		return TF_SNIFF_YES;
	return tf_json_head_has(head + i, n - i, "\"shared\"") && tf_json_head_has(head + i, n - i, "\"profiles\"")
		       ? TF_SNIFF_YES
		       : TF_SNIFF_NO;
}

const tf_format tf_format_speedscope = {
	.name = "speedscope",
	.description = "speedscope JSON files (sampled profiles as samples, evented ones as regions; "
		       "tracefold's own export read back)",
	.sniff = sniff,
	.read = read_input,
	.kind = TF_INPUT_SAMPLES,
	.noun = "speedscope file",
};
