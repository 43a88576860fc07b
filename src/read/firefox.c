/* firefox.c - Firefox Profiler processed profiles (the JSON the profiler
 * saves and uploads; samply, simpleperf and `perf script report gecko`
 * write the same).  Rules and the facts relied on: docs/format-firefox.md.
 *
 *   meta.preprocessedProfileVersion 0..70   (absent: 0)
 *   threads[i]          one track each: pid, tid, name, processName
 *     samples           columns: stack, time | timeDeltas (ms), weight, weightType
 *     stackTable ...    per thread below 60, in profile.shared from 60
 *     stringArray       per thread below 56, in profile.shared from 56
 *
 * Each sample is one TF_EV_SAMPLE whose stack is built once per stack index
 * (root first through prefix / prefixOffset) and cached, so a sample costs
 * O(1).  A function's name is stringArray[funcTable.name[frameTable.func[
 * stackTable.frame[s]]]], renamed as the profiler's upgraders 4 and 17
 * rename it for older versions.  The file is one JSON object, read whole
 * (as the XLA memory profile is) and walked with the Chrome reader's
 * tokenizer (json.h), which checks all of it first.  The tables: firefox_tables.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tracefold/io.h"
#include "firefox_int.h"

/* ---- samples ---- */

enum { W_SAMPLES = 0, W_TRACING, W_BYTES };

typedef struct thread_cols {
	tf_json_span stack, time, weight;
	bool deltas;        /* time holds timeDeltas */
	int wkind;          /* W_* */
	size_t len;
} thread_cols;

static int samples_cols(ff *r, int ti, const tf_json_span *th, thread_cols *c)
{
	tf_json_span smp = tf_json_member(th, "samples");
	memset(c, 0, sizeof *c);
	if (smp.type != TF_JSON_OBJECT)
		return ff_fail(r, th->p, "thread %d has no samples object", ti);
	c->stack = tf_json_member(&smp, "stack");
	if (c->stack.type != TF_JSON_ARRAY)
		return ff_fail(r, smp.p, "thread %d: samples has no stack column", ti);
	c->time = tf_json_member(&smp, "time");
	if (c->time.type != TF_JSON_ARRAY) {
		c->time = tf_json_member(&smp, "timeDeltas");
		c->deltas = true;
	}
	if (c->time.type != TF_JSON_ARRAY)
		return ff_fail(r, smp.p, "thread %d: samples has neither a time nor a timeDeltas column", ti);
	c->weight = tf_json_member(&smp, "weight");
	if (c->weight.type != TF_JSON_NONE && c->weight.type != TF_JSON_ARRAY && !tf_json_is_null(&c->weight))
		return ff_fail(r, c->weight.p, "thread %d: samples.weight is neither an array nor null", ti);
	tf_json_span wt = tf_json_member(&smp, "weightType");
	if (wt.type == TF_JSON_NONE || tf_json_is_null(&wt) || tf_json_is(&wt, "samples"))
		c->wkind = W_SAMPLES;
	else if (tf_json_is(&wt, "tracing-ms"))
		c->wkind = W_TRACING;
	else if (tf_json_is(&wt, "bytes"))
		c->wkind = W_BYTES;
	else
		return ff_fail(r, wt.p, "thread %d: samples.weightType is not samples, tracing-ms or bytes", ti);
	tf_json_span len = tf_json_member(&smp, "length"), v;
	int64_t l;
	if (len.type == TF_JSON_NUMBER && tf_json_i64(&len, &l) && l >= 0) {
		c->len = (size_t)l;
	} else {
		arr_iter it;
		arr_begin(&it, &c->stack);
		while (arr_next(&it, &v))
			c->len++;
	}
	return 0;
}

/* Whether the thread's times never go back (then the track needs no sort). */
static bool times_sorted(const thread_cols *c)
{
	arr_iter it;
	tf_json_span v;
	double prev = -1e300, x;
	arr_begin(&it, &c->time);
	for (size_t i = 0; i < c->len && arr_next(&it, &v); i++) {
		if (!tf_json_double(&v, &x))
			continue;
		if (c->deltas ? x < 0 : x < prev)
			return false;
		prev = x;
	}
	return true;
}

/* The track of thread ti. */
static int thread_track(ff *r, int ti, const tf_json_span *th, bool sorted, uint32_t *out)
{
	char key[48];
	tf_json_span pid = tf_json_member(th, "pid"), tid = tf_json_member(th, "tid"), name = tf_json_member(th, "name");
	tf_json_span pname = tf_json_member(th, "processName");
	tf_str pk, tk, tn = 0, pn = 0;
	if (pid.type == TF_JSON_STRING || pid.type == TF_JSON_NUMBER) {
		pk = ff_intern(r, &pid);
	} else { /* what the profiler's upgrader 25 names a thread without pid */
		snprintf(key, sizeof key, "Unknown Process %d", ti + 1);
		pk = tf_strtab_intern_cstr(r->st, key);
	}
	if (tid.type == TF_JSON_STRING || tid.type == TF_JSON_NUMBER) {
		tk = ff_intern(r, &tid);
	} else {
		snprintf(key, sizeof key, "thread %d", ti);
		tk = tf_strtab_intern_cstr(r->st, key);
	}
	if (name.type == TF_JSON_STRING)
		tn = ff_intern(r, &name);
	if (pname.type == TF_JSON_STRING)
		pn = ff_intern(r, &pname);
	if (pk == (tf_str)-1 || tk == (tf_str)-1 || tn == (tf_str)-1 || pn == (tf_str)-1)
		return ff_oom(r);
	uint32_t id = tf_ctx_track(r->ctx, r->input, pk, tk);
	if (id == UINT32_MAX)
		return ff_oom(r);
	tf_track *t = tf_ctx_track_get(r->ctx, id);
	if (tn)
		t->thread_name = tn;
	if (pn && !t->process_name)
		tf_ctx_set_process_name(r->ctx, r->input, pk, pn);
	if (!sorted)
		t->needs_sort = true;
	*out = id;
	return 0;
}

/* One sample row's weight into ev; false: a row that stands for nothing. */
static int sample_weight(ff *r, int ti, size_t i, const thread_cols *c, const tf_json_span *w, tf_event *ev)
{
	double x = 1;
	if (w && !tf_json_is_null(w) && !tf_json_double(w, &x))
		return ff_fail(r, w->p, "thread %d: samples.weight[%zu] is not a number", ti, i);
	if (c->wkind == W_SAMPLES) {
		if (x != (double)(int64_t)x || x < 0 || x > 1e15)
			return ff_fail(r, w ? w->p : NULL, "thread %d: samples.weight[%zu] is not a count of samples", ti, i);
		ev->dur_ns = (int64_t)x;
		return ev->dur_ns > 0;
	}
	ev->dur_ns = 1;
	ev->name = c->wkind == W_TRACING ? r->t_tracing : r->t_bytes;
	ev->cat = c->wkind == W_TRACING ? r->u_ns : r->u_bytes;
	ev->value = c->wkind == W_TRACING ? x * 1e6 : x;
	return 1;
}

static int thread_samples(ff *r, int ti, const tf_json_span *th, tables *t, const strs *ss)
{
	thread_cols c;
	TF_TRY(samples_cols(r, ti, th, &c));
	if (c.len == 0)
		return 0;
	uint32_t track = 0;
	TF_TRY(thread_track(r, ti, th, times_sorted(&c), &track));
	arr_iter is, it, iw;
	arr_begin(&is, &c.stack);
	arr_begin(&it, &c.time);
	bool weighted = c.weight.type == TF_JSON_ARRAY;
	if (weighted)
		arr_begin(&iw, &c.weight);
	int64_t ts = 0, skipped = 0;
	for (size_t i = 0; i < c.len; i++) {
		tf_json_span s, tm, w;
		if (!arr_next(&is, &s))
			return ff_fail(r, c.stack.p, "thread %d: samples.stack has fewer than %zu entries", ti, c.len);
		if (!arr_next(&it, &tm))
			return ff_fail(r, c.time.p, "thread %d: samples.%s has fewer entries than samples.stack", ti,
				    c.deltas ? "timeDeltas" : "time");
		if (weighted && !arr_next(&iw, &w))
			return ff_fail(r, c.weight.p, "thread %d: samples.weight has fewer entries than samples.stack", ti);
		int64_t ns;
		if (!tf_json_scaled(&tm, 6, &ns)) /* milliseconds, exactly to ns */
			return ff_fail(r, tm.p, "thread %d: samples.%s[%zu] is not a number of milliseconds", ti,
				    c.deltas ? "timeDeltas" : "time", i);
		if (!c.deltas)
			ts = ns;
		else if (__builtin_add_overflow(ts, ns, &ts))
			return ff_fail(r, tm.p, "thread %d: samples.timeDeltas add up beyond the int64 nanosecond range at %zu",
				       ti, i);
		tf_event ev = { .kind = TF_EV_SAMPLE, .track = track, .ts_ns = ts, .index = r->index++ };
		int k = sample_weight(r, ti, i, &c, weighted ? &w : NULL, &ev);
		if (k < 0)
			return k;
		if (k == 0) { /* a weight of 0 samples */
			tf_count_skip(r->ctx, TF_DIAG_bad_event);
			skipped++;
			continue;
		}
		uint32_t sid = TF_CPATH_ROOT; /* null: a sample with no stack */
		int64_t sx;
		if (!tf_json_is_null(&s)) {
			if (s.type != TF_JSON_NUMBER || !tf_json_i64(&s, &sx))
				return ff_fail(r, s.p, "thread %d: samples.stack[%zu] is not a stack index", ti, i);
			TF_TRY(ff_stack_id(r, t, ss, sx, s.p, &sid));
		}
		ev.id = sid;
		TF_TRY(tf_emit(r->ctx, r->sink, &ev));
	}
	if (skipped)
		tf_ctx_note(r->ctx, "'%s': thread %d: %lld samples of weight 0 skipped", r->path, ti, (long long)skipped);
	return 0;
}

/* ---- the profile ---- */

/* A raw Gecko profile (what Firefox itself writes, before the profiler's
 * front end processes it): threads as strings or with schema/data tables. */
static bool is_gecko(const tf_json_span *threads)
{
	arr_iter it;
	tf_json_span th;
	if (threads->type != TF_JSON_ARRAY)
		return false;
	arr_begin(&it, threads);
	if (!arr_next(&it, &th))
		return false;
	if (th.type == TF_JSON_STRING)
		return true;
	tf_json_span smp = tf_json_member(&th, "samples");
	return tf_json_member(&smp, "schema").type != TF_JSON_NONE || tf_json_member(&th, "stringTable").type != TF_JSON_NONE;
}

static int read_version(ff *r, const tf_json_span *meta, const tf_json_span *threads)
{
	tf_json_span pv = tf_json_member(meta, "preprocessedProfileVersion");
	if (pv.type == TF_JSON_NONE) {
		if (is_gecko(threads)) {
			tf_json_span gv = tf_json_member(meta, "version");
			return ff_fail(r, meta->p, "a raw Gecko profile (meta.version %.*s, tables as schema/data), "
				    "not a processed one: load it in the Firefox Profiler (profiler.firefox.com) "
				    "and save it from there to get a processed profile",
				    gv.type == TF_JSON_NUMBER ? (int)gv.n : 1, gv.type == TF_JSON_NUMBER ? (const char *)gv.p : "?");
		}
		r->version = 0;
		return 0;
	}
	if (pv.type != TF_JSON_NUMBER || !tf_json_i64(&pv, &r->version) || r->version < 0)
		return ff_fail(r, pv.p, "meta.preprocessedProfileVersion is not a version number (this tracefold "
			    "reads versions 0 to %d)", FF_VERSION_MAX);
	if (r->version > FF_VERSION_MAX)
		return ff_fail(r, pv.p, "processed profile version %lld is newer than this tracefold reads "
			    "(versions 0 to %d)", (long long)r->version, FF_VERSION_MAX);
	return 0;
}

/* tables and strings of thread ti: the shared ones if the profile has
 * them, else the thread's own (into own / own_s). */
static int thread_tables(ff *r, int ti, const tf_json_span *th, const tf_json_span *shared, tables *sh,
			 strs *sh_s, tables *own, strs *own_s, tables **t, strs **ss)
{
	tf_json_span a = tf_json_member(shared, "stringArray");
	if (a.type == TF_JSON_ARRAY) {
		if (!sh_s->ready)
			TF_TRY(ff_strs_read(r, &a, sh_s));
		*ss = sh_s;
	} else {
		a = tf_json_member(th, "stringArray");
		if (a.type != TF_JSON_ARRAY)
			return ff_fail(r, th->p, "thread %d has no stringArray (and profile.shared has none)", ti);
		TF_TRY(ff_strs_read(r, &a, own_s));
		*ss = own_s;
	}
	if (tf_json_member(shared, "stackTable").type == TF_JSON_OBJECT) {
		if (!sh->ready)
			TF_TRY(ff_tables_read(r, shared, sh));
		*t = sh;
		return 0;
	}
	if (tf_json_member(th, "stackTable").type != TF_JSON_OBJECT)
		return ff_fail(r, th->p, "thread %d has no stackTable (and profile.shared has none)", ti);
	TF_TRY(ff_tables_read(r, th, own));
	*t = own;
	return 0;
}

static int read_threads(ff *r, const tf_json_span *threads, const tf_json_span *shared)
{
	tables sh = { 0 }, own = { 0 };
	strs sh_s = { 0 }, own_s = { 0 };
	arr_iter it;
	tf_json_span th;
	int rc = 0, ti = 0;
	arr_begin(&it, threads);
	for (; rc == 0 && arr_next(&it, &th); ti++) {
		tables *t = NULL;
		strs *ss = NULL;
		if (th.type != TF_JSON_OBJECT) {
			rc = ff_fail(r, th.p, "threads[%d] is not an object", ti);
			break;
		}
		rc = thread_tables(r, ti, &th, shared, &sh, &sh_s, &own, &own_s, &t, &ss);
		if (rc == 0)
			rc = thread_samples(r, ti, &th, t, ss);
		ff_tables_free(&own);
		free(own_s.s);
		memset(&own_s, 0, sizeof own_s);
	}
	ff_tables_free(&sh);
	free(sh_s.s);
	return rc;
}

static int read_profile(ff *r, const unsigned char *buf, size_t len)
{
	tf_json_span root;
	tf_json_error e;
	if (len == 0)
		return tf_error_set(r->err, TF_EFORMAT, r->path, 0, -1,
				    "empty file (a Firefox Profiler profile is a JSON object)");
	const unsigned char *p = tf_json_skip_ws(buf, buf + len), *after;
	if (p >= buf + len || *p != '{')
		return ff_fail(r, p, "not a JSON object (a Firefox Profiler profile is one)");
	int rc = tf_json_value(p, buf + len, &root, &after, &e);
	if (rc == TF_JSON_NEED)
		return ff_fail(r, buf + len, "the JSON object ends early (truncated file)");
	if (rc != TF_JSON_OK)
		return ff_fail(r, e.at, "%s", e.msg);
	after = tf_json_skip_ws(after, buf + len);
	if (after < buf + len)
		return ff_fail(r, after, "more after the JSON object");
	tf_json_span meta = tf_json_member(&root, "meta"), threads = tf_json_member(&root, "threads");
	tf_json_span shared = tf_json_member(&root, "shared");
	if (meta.type != TF_JSON_OBJECT)
		return ff_fail(r, root.p, "no meta object (not a Firefox Profiler profile)");
	TF_TRY(read_version(r, &meta, &threads));
	if (threads.type != TF_JSON_ARRAY)
		return ff_fail(r, root.p, "no threads array (not a Firefox Profiler processed profile)");
	return read_threads(r, &threads, &shared);
}

static int read_input(const char *path, uint32_t input, tf_ctx *ctx, tf_sink *sink, tf_error *err)
{
	ff r = { .path = path, .input = input, .ctx = ctx, .sink = sink, .st = tf_ctx_strtab(ctx), .err = err };
	r.t_tracing = tf_strtab_intern_cstr(r.st, "tracing");
	r.u_ns = tf_strtab_intern_cstr(r.st, "nanoseconds");
	r.t_bytes = tf_strtab_intern_cstr(r.st, "bytes");
	r.u_bytes = r.t_bytes;
	if (r.t_tracing == (tf_str)-1 || r.u_ns == (tf_str)-1 || r.t_bytes == (tf_str)-1)
		return tf_error_set(err, TF_ENOMEM, path, -1, -1, "out of memory");
	unsigned char *buf;
	size_t len;
	TF_TRY(tf_in_read_all(path, "profile", &buf, &len, err));
	r.buf = buf;
	int rc = read_profile(&r, buf, len);
	if (rc == TF_ENOMEM && err && !err->code)
		tf_error_set(err, rc, path, -1, (int64_t)r.index, "out of memory");
	free(r.tmp);
	free(r.walk);
	free(buf);
	return rc;
}

/* ---- sniff ---- */

/* A JSON object with "meta" whose head shows the processed format's version
 * or its tables (or a raw Gecko profile's, to refuse it by name), or, when
 * meta's categories fill the head, meta's interval with its startTime,
 * categories or product. */
static int sniff(const char *path, int is_dir, const unsigned char *head, size_t n, bool whole)
{
	(void)path;
	(void)whole;
	size_t i = 0;
	if (is_dir)
		return TF_SNIFF_NO;
	if (n >= 3 && head[0] == 0xEF && head[1] == 0xBB && head[2] == 0xBF)
		i = 3;
	while (i < n && tf_json_ws[head[i]])
		i++;
	if (i >= n || head[i] != '{' || !tf_json_head_has(head + i, n - i, "\"meta\""))
		return TF_SNIFF_NO;
	if (tf_json_head_has(head + i, n - i, "\"preprocessedProfileVersion\""))
		return TF_SNIFF_YES;
	static const char *const keys[] = {
		"\"stackTable\"", "\"frameTable\"", "\"funcTable\"", "\"stringArray\"", /* processed */
		"\"stringTable\"", "\"schema\"",                                        /* raw Gecko */
		NULL,
	};
	for (int k = 0; keys[k]; k++)
		if (tf_json_head_has(head + i, n - i, keys[k]))
			return TF_SNIFF_YES;
	/* meta's own fields, when its categories fill the head (both formats) */
	if (tf_json_head_has(head + i, n - i, "\"interval\"") &&
	    (tf_json_head_has(head + i, n - i, "\"startTime\"") || tf_json_head_has(head + i, n - i, "\"categories\"") ||
	     tf_json_head_has(head + i, n - i, "\"product\"")))
		return TF_SNIFF_YES;
	return TF_SNIFF_NO;
}

const tf_format tf_format_firefox = {
	.name = "firefox",
	.description = "Firefox Profiler processed profile JSON (versions 0 to 70; Firefox, samply)",
	.sniff = sniff,
	.read = read_input,
	.kind = TF_INPUT_SAMPLES,
	.noun = "Firefox Profiler profile",
};
