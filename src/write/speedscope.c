/* speedscope.c - speedscope's JSON file format (docs/speedscope.md), a span
 * writer:
 *
 *   {"$schema":"https://www.speedscope.app/file-format-schema.json",
 *    "name", "exporter":"tracefold VERSION", "activeProfileIndex":0,
 *    "shared":{"frames":[{name, file, line}...]}   each distinct frame once
 *    "profiles":[
 *      one "sampled" profile of all threads: the wall self time of each
 *        call path (what the aggregate's default type holds), its frame
 *        indices root first,
 *      one "evented" profile per thread (a GPU stream's overlapping
 *        activities on lanes, each lane a profile): O and C events with
 *        the frame index, in time order and nested as the stack builder
 *        handed the spans over]}
 *
 * A span writer gets spans, not the aggregate, so the sampled profile is
 * built here from the same spans: a CPU region's self time added to its
 * call path, as the aggregate's wall type does (src/core/agg_sink.c).
 * Frames are the call paths' frames (stable names), not the spans' own
 * text, so that speedscope's sandwich view lists a function once.
 *
 * speedscope reads numbers as doubles: times are written in ns from the
 * run's first region start (exact up to 104 days), not the inputs' epoch
 * times.  Tracks arrive interleaved and the frame table comes first, so
 * every event is kept until the end: 16 bytes per region start and end,
 * plus a value per call path. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tracefold/writer.h"
#include "tracefold/io.h"
#include "tracefold/version.h"
#include "grow.h"
#include "hmap.h"
#include "jsonq.h"
#include "msort.h"
#include "sat.h"
#include "tids.h"

#define SCHEMA_URL "https://www.speedscope.app/file-format-schema.json"

typedef struct sevent {
	int64_t at;         /* ns, absolute until written */
	uint32_t frame;     /* index into frames */
	uint32_t open;      /* 1 = O, 0 = C */
} sevent;

/* One evented profile: a track, or a lane of a GPU stream's track. */
typedef struct sprof {
	uint32_t track, lane;
	sevent *ev;
	size_t nev, capev;
} sprof;

typedef struct strack {
	uint32_t *stack;    /* frame index of each open span, outermost first */
	uint32_t depth, capstack;
	tf_lanes lanes;     /* a GPU stream's: overlapping activities */
	uint32_t *lane_prof; /* profile index + 1 of each lane; 0 = none yet */
	uint32_t caplp, lane;
} strack;

typedef struct tf_speedscope_out {
	tf_span_sink spans;
	tf_ctx *ctx;
	tf_strtab *st;
	tf_cpath *cp;
	tf_out *o;
	char *path;
	const char *const *inputs;
	int ninputs;
	strack *tk;
	uint32_t ntk;
	sprof *prof;
	uint32_t nprof, capprof;
	tf_hmap frame_idx;  /* tf_str -> index in frames */
	tf_str *frames;
	uint32_t nframes, capframes;
	int64_t *wall;      /* self time per call path (CPU regions) */
	uint32_t capwall;
	int64_t t0;         /* the earliest region start */
	bool any;
	int rc;             /* first write failure */
} tf_speedscope_out;

static void put_out(void *u, const char *p, size_t n)
{
	tf_speedscope_out *w = u;
	if (tf_out_write(w->o, p, n) < 0 && w->rc == 0)
		w->rc = tf_writer_fail_out(w->ctx, w->o);
}

static void put_s(tf_speedscope_out *w, const char *s)
{
	put_out(w, s, strlen(s));
}

static void put_q(tf_speedscope_out *w, const char *s, size_t n)
{
	tf_json_quote(s, n, put_out, w);
}

static void put_i64(tf_speedscope_out *w, int64_t v)
{
	char b[24];
	int n = snprintf(b, sizeof(b), "%" PRId64, v);
	put_out(w, b, (size_t)n);
}

/* The index of a frame in shared.frames, added when new; -1 out of memory. */
static int64_t frame_index(tf_speedscope_out *w, tf_str frame)
{
	uint32_t i = tf_hmap_get(&w->frame_idx, frame);
	if (i != UINT32_MAX)
		return i;
	if (tf_grow((void **)&w->frames, &w->capframes, w->nframes + 1, sizeof(tf_str)) < 0 ||
	    tf_hmap_put(&w->frame_idx, frame, w->nframes) < 0)
		return -1;
	w->frames[w->nframes] = frame;
	return w->nframes++;
}

static strack *tstate(tf_speedscope_out *w, uint32_t track)
{
	if (track >= w->ntk) {
		uint32_t n = w->ntk;
		if (tf_grow((void **)&w->tk, &w->ntk, track + 1, sizeof(strack)) < 0)
			return NULL;
		memset(w->tk + n, 0, (size_t)(w->ntk - n) * sizeof(strack));
	}
	return &w->tk[track];
}

/* The profile of the track's current lane, made when new. */
static sprof *lane_prof(tf_speedscope_out *w, uint32_t track)
{
	strack *t = &w->tk[track];
	if (t->lane >= t->caplp) {
		uint32_t n = t->caplp;
		if (tf_grow((void **)&t->lane_prof, &t->caplp, t->lane + 1, sizeof(uint32_t)) < 0)
			return NULL;
		memset(t->lane_prof + n, 0, (size_t)(t->caplp - n) * sizeof(uint32_t));
	}
	if (!t->lane_prof[t->lane]) {
		if (tf_grow((void **)&w->prof, &w->capprof, w->nprof + 1, sizeof(sprof)) < 0)
			return NULL;
		w->prof[w->nprof] = (sprof){ track, t->lane, NULL, 0, 0 };
		t->lane_prof[t->lane] = ++w->nprof;
	}
	return &w->prof[t->lane_prof[t->lane] - 1];
}

static int add_event(tf_speedscope_out *w, uint32_t track, int64_t at, uint32_t frame, bool open)
{
	sprof *p = lane_prof(w, track);
	if (!p || tf_grow_n((void **)&p->ev, &p->capev, p->nev + 1, sizeof(sevent), false) < 0)
		return TF_ENOMEM;
	p->ev[p->nev++] = (sevent){ at, frame, open };
	return 0;
}

/* A top-level span picks its lane: 0 on a CPU thread; on a GPU stream,
 * whose activities may overlap, the first lane free at its start (as the
 * Chrome writer's lanes, tids.h), so that each lane's events nest. */
static int on_open(tf_span_sink *k, const tf_span *s)
{
	tf_speedscope_out *w = tf_container_of(k, tf_speedscope_out, spans);
	strack *t = tstate(w, s->track);
	if (!t)
		return TF_ENOMEM;
	if (!t->depth) {
		t->lane = 0;
		if (s->kind != TF_SPAN_KIND_CPU && s->end_ns != TF_SPAN_END_UNKNOWN) {
			bool is_new;
			TF_TRY(tf_lanes_pick(&t->lanes, s->kind == TF_SPAN_KIND_GPU_LABEL, s->start_ns, s->end_ns, &t->lane, &is_new));
		}
	}
	int64_t f = frame_index(w, tf_cpath_get(w->cp, s->node)->frame);
	if (f < 0 || tf_grow((void **)&t->stack, &t->capstack, t->depth + 1, sizeof(uint32_t)) < 0)
		return TF_ENOMEM;
	t->stack[t->depth++] = (uint32_t)f;
	if (!w->any || s->start_ns < w->t0)
		w->t0 = s->start_ns;
	w->any = true;
	return add_event(w, s->track, s->start_ns, (uint32_t)f, true);
}

/* The close names the frame its open named (speedscope refuses another). */
static int on_close(tf_span_sink *k, const tf_span *s)
{
	tf_speedscope_out *w = tf_container_of(k, tf_speedscope_out, spans);
	strack *t = tstate(w, s->track);
	if (!t)
		return TF_ENOMEM;
	if (!t->depth) /* the stack builder never closes what it did not open */
		return 0;
	uint32_t f = t->stack[--t->depth];
	if (s->kind == TF_SPAN_KIND_CPU) {
		if (s->node >= w->capwall) {
			uint32_t n = w->capwall;
			if (tf_grow((void **)&w->wall, &w->capwall, s->node + 1, sizeof(int64_t)) < 0)
				return TF_ENOMEM;
			memset(w->wall + n, 0, (size_t)(w->capwall - n) * sizeof(int64_t));
		}
		w->wall[s->node] = tf_sat_add(w->wall[s->node], s->self_ns);
	}
	return add_event(w, s->track, s->end_ns, f, false);
}

/* ---- the sampled profile: call paths with a wall self value */

typedef struct sample {
	uint32_t node;
	uint32_t off, len;  /* its frames, root first, in path[] */
} sample;

typedef struct samples {
	sample *v;
	uint32_t n, cap;
	uint32_t *ord;      /* the order written: 2n ids (msort's room) */
	tf_str *path;
	size_t npath, cappath;
	int64_t total;
} samples;

typedef struct sample_order {
	const tf_strtab *st;
	const samples *sm;
} sample_order;

/* Bytewise by frames, root first: the order of folded stacks. */
static int sample_cmp(const void *ctx, uint32_t a, uint32_t b)
{
	const sample_order *o = ctx;
	const sample *x = &o->sm->v[a], *y = &o->sm->v[b];
	for (uint32_t i = 0; i < x->len && i < y->len; i++) {
		tf_str p = o->sm->path[x->off + i], q = o->sm->path[y->off + i];
		if (p == q)
			continue;
		size_t lp = tf_strtab_len(o->st, p), lq = tf_strtab_len(o->st, q);
		int c = memcmp(tf_strtab_get(o->st, p), tf_strtab_get(o->st, q), lp < lq ? lp : lq);
		if (c)
			return c;
		if (lp != lq)
			return lp < lq ? -1 : 1;
	}
	return x->len < y->len ? -1 : x->len > y->len;
}

static int collect_samples(tf_speedscope_out *w, samples *sm)
{
	for (uint32_t node = 1; node < w->capwall; node++) {
		if (w->wall[node] <= 0)
			continue;
		uint32_t depth = tf_cpath_get(w->cp, node)->depth;
		if (tf_grow((void **)&sm->v, &sm->cap, sm->n + 1, sizeof(sample)) < 0 ||
		    tf_grow_n((void **)&sm->path, &sm->cappath, sm->npath + depth, sizeof(tf_str), false) < 0)
			return TF_ENOMEM;
		sm->v[sm->n++] = (sample){ node, (uint32_t)sm->npath, depth };
		uint32_t i = depth;
		for (uint32_t n = node; n != TF_CPATH_ROOT && i > 0;) {
			const tf_cpath_node *c = tf_cpath_get(w->cp, n);
			sm->path[sm->npath + --i] = c->frame;
			n = c->parent;
		}
		sm->npath += depth;
		sm->total = tf_sat_add(sm->total, w->wall[node]);
	}
	/* frames of the samples only: ancestors that never had a span of their own */
	for (size_t i = 0; i < sm->npath; i++)
		if (frame_index(w, sm->path[i]) < 0)
			return TF_ENOMEM;
	if (!(sm->ord = malloc(((size_t)sm->n + 1) * 2 * sizeof(uint32_t))))
		return TF_ENOMEM;
	for (uint32_t i = 0; i < sm->n; i++)
		sm->ord[i] = i;
	sample_order o = { w->st, sm };
	tf_msort_u32(sm->ord, sm->ord + sm->n, sm->n, sample_cmp, &o);
	return 0;
}

static void put_sampled(tf_speedscope_out *w, const samples *sm)
{
	put_s(w, "{\"type\":\"sampled\",\"name\":\"all threads: wall self time\",\"unit\":\"nanoseconds\","
		 "\"startValue\":0,\"endValue\":");
	put_i64(w, sm->total);
	put_s(w, ",\n\"samples\":[");
	for (uint32_t i = 0; i < sm->n; i++) {
		const sample *v = &sm->v[sm->ord[i]];
		put_s(w, i ? ",[" : "[");
		for (uint32_t j = 0; j < v->len; j++) {
			if (j)
				put_s(w, ",");
			put_i64(w, tf_hmap_get(&w->frame_idx, sm->path[v->off + j]));
		}
		put_s(w, "]");
	}
	put_s(w, "],\n\"weights\":[");
	for (uint32_t i = 0; i < sm->n; i++) {
		if (i)
			put_s(w, ",");
		put_i64(w, w->wall[sm->v[sm->ord[i]].node]);
	}
	put_s(w, "]}");
}

static void samples_free(samples *sm)
{
	free(sm->v);
	free(sm->path);
	free(sm->ord);
}

/* ---- the rest of the file */

/* "path/file.py(123): fn" -> file path/file.py, line 123 (as the pprof
 * writer splits Python frames); 0 when the frame is not one. */
static int split_frame(const char *s, size_t len, size_t *file_len, long *line)
{
	for (size_t i = 1; i < len; i++) {
		if (s[i] != '(')
			continue;
		size_t j = i + 1;
		long v = 0;
		while (j < len && s[j] >= '0' && s[j] <= '9' && v < 100000000)
			v = v * 10 + (s[j++] - '0');
		if (j == i + 1 || j + 3 >= len || s[j] != ')' || s[j + 1] != ':' || s[j + 2] != ' ')
			continue;
		*file_len = i;
		*line = v;
		return 1;
	}
	return 0;
}

static void put_frames(tf_speedscope_out *w)
{
	put_s(w, "\"shared\":{\"frames\":[");
	for (uint32_t i = 0; i < w->nframes; i++) {
		const char *text = tf_strtab_get(w->st, w->frames[i]);
		size_t len = tf_strtab_len(w->st, w->frames[i]), file_len;
		long line;
		put_s(w, i ? ",\n{\"name\":" : "\n{\"name\":");
		put_q(w, text, len);
		if (split_frame(text, len, &file_len, &line)) {
			put_s(w, ",\"file\":");
			put_q(w, text, file_len);
			put_s(w, ",\"line\":");
			put_i64(w, line);
		}
		put_s(w, "}");
	}
	put_s(w, "]},\n");
}

/* "PROCESS, THREAD": the process's name, else "rank N", else its key; the
 * thread's name, else its key; a lane past 0 "THREAD (overlap N)". */
static void put_prof_name(tf_speedscope_out *w, const sprof *p)
{
	const tf_track *t = tf_ctx_track_get(w->ctx, p->track);
	char buf[1200];
	int n;
	tf_str proc = t->process_name ? t->process_name : t->rank >= 0 ? 0 : t->process_key;
	if (proc)
		n = snprintf(buf, sizeof(buf), "%.500s, ", tf_strtab_get(w->st, proc));
	else
		n = snprintf(buf, sizeof(buf), "rank %" PRId64 ", ", t->rank);
	if (p->lane)
		n += tf_lane_name(w->ctx, p->track, &w->tk[p->track].lanes, p->lane, buf + n, sizeof(buf) - (size_t)n);
	else
		n += snprintf(buf + n, sizeof(buf) - (size_t)n, "%.500s",
			      tf_strtab_get(w->st, t->thread_name ? t->thread_name : t->thread_key));
	put_q(w, buf, strlen(buf));
}

static void put_evented(tf_speedscope_out *w, const sprof *p)
{
	int64_t start = INT64_MAX, end = INT64_MIN;
	for (size_t i = 0; i < p->nev; i++) {
		int64_t at = tf_sat_sub(p->ev[i].at, w->t0);
		start = at < start ? at : start;
		end = at > end ? at : end;
	}
	put_s(w, ",\n{\"type\":\"evented\",\"name\":");
	put_prof_name(w, p);
	put_s(w, ",\"unit\":\"nanoseconds\",\"startValue\":");
	put_i64(w, start);
	put_s(w, ",\"endValue\":");
	put_i64(w, end);
	put_s(w, ",\"events\":[");
	for (size_t i = 0; i < p->nev; i++) {
		put_s(w, p->ev[i].open ? (i ? ",\n{\"type\":\"O\",\"frame\":" : "\n{\"type\":\"O\",\"frame\":")
				       : ",\n{\"type\":\"C\",\"frame\":");
		put_i64(w, p->ev[i].frame);
		put_s(w, ",\"at\":");
		put_i64(w, tf_sat_sub(p->ev[i].at, w->t0));
		put_s(w, "}");
	}
	put_s(w, "]}");
}

/* Threads in track order, lanes in order. */
static int prof_cmp(const void *a, const void *b)
{
	const sprof *x = a, *y = b;
	if (x->track != y->track)
		return x->track < y->track ? -1 : 1;
	return x->lane < y->lane ? -1 : x->lane > y->lane;
}

/* The file's name: the first input's, "+ N more" with others. */
static void put_file_name(tf_speedscope_out *w)
{
	const char *in = w->ninputs > 0 && w->inputs[0] ? w->inputs[0] : "tracefold";
	size_t n = strlen(in);
	while (n > 1 && in[n - 1] == '/')
		n--;
	const char *b = in + n;
	while (b > in && b[-1] != '/')
		b--;
	char buf[600];
	int k = snprintf(buf, sizeof(buf), "%.*s", (int)(n - (size_t)(b - in) < 500 ? n - (size_t)(b - in) : 500), b);
	if (w->ninputs > 1)
		k += snprintf(buf + k, sizeof(buf) - (size_t)k, " + %d more", w->ninputs - 1);
	put_q(w, buf, (size_t)k);
}

static void speedscope_free(tf_speedscope_out *w, bool abort)
{
	if (!w)
		return;
	if (abort)
		tf_out_abort(w->o);
	for (uint32_t i = 0; i < w->ntk; i++) {
		free(w->tk[i].stack);
		free(w->tk[i].lane_prof);
		tf_lanes_free(&w->tk[i].lanes);
	}
	for (uint32_t i = 0; i < w->nprof; i++)
		free(w->prof[i].ev);
	free(w->tk);
	free(w->prof);
	free(w->frames);
	free(w->wall);
	tf_hmap_free(&w->frame_idx);
	free(w->path);
	free(w);
}

static int speedscope_finish(void *state, tf_error *err)
{
	tf_speedscope_out *w = state;
	samples sm = { 0 };
	int rc = 0;
	if (!w->any)
		rc = tf_error_set(err, TF_EFORMAT, NULL, -1, -1, "nothing to write to '%s': no region in the inputs",
				  w->path);
	else if (collect_samples(w, &sm) < 0)
		rc = tf_error_set(err, TF_ENOMEM, NULL, -1, -1, "out of memory");
	if (rc < 0) {
		samples_free(&sm);
		speedscope_free(w, true);
		return rc;
	}
	qsort(w->prof, w->nprof, sizeof(sprof), prof_cmp);
	put_s(w, "{\"$schema\":\"" SCHEMA_URL "\",\n\"name\":");
	put_file_name(w);
	put_s(w, ",\n\"exporter\":\"tracefold " TRACEFOLD_VERSION "\",\n\"activeProfileIndex\":0,\n");
	put_frames(w);
	put_s(w, "\"profiles\":[\n");
	put_sampled(w, &sm);
	for (uint32_t i = 0; i < w->nprof; i++)
		put_evented(w, &w->prof[i]);
	put_s(w, "\n]}\n");
	samples_free(&sm);
	rc = tf_out_finish(w->o, w->rc, err);
	w->o = NULL;
	speedscope_free(w, false);
	return rc;
}

static void speedscope_abort(void *state)
{
	speedscope_free(state, true);
}

static int speedscope_open(const tf_writer_args *a, const char *path, tf_span_sink **sink_out, void **state_out,
			   tf_error *err)
{
	tf_speedscope_out *w = calloc(1, sizeof(*w));
	if (!w || !(w->path = strdup(path))) {
		free(w);
		return tf_error_set(err, TF_ENOMEM, NULL, -1, -1, "out of memory");
	}
	int rc = tf_out_open_named(&w->o, path, err);
	if (rc < 0) {
		speedscope_free(w, false);
		return rc;
	}
	w->ctx = a->ctx;
	w->st = tf_ctx_strtab(a->ctx);
	w->cp = a->cp;
	w->inputs = a->inputs;
	w->ninputs = a->ninputs;
	w->spans = (tf_span_sink){ .open = on_open, .close = on_close };
	*sink_out = &w->spans;
	*state_out = w;
	return 0;
}

static const char *const speedscope_suffixes[] = { ".speedscope.json", NULL };

const tf_writer tf_writer_speedscope = {
	.name = "speedscope",
	.description = "speedscope's JSON: a timeline per thread and the wall self time of all threads "
		       "(docs/speedscope.md)",
	.suffixes = speedscope_suffixes,
	.consumes = TF_WRITER_SPANS,
	.span_open = speedscope_open,
	.span_finish = speedscope_finish,
	.span_abort = speedscope_abort,
	.command = "speedscope",
	.summary = "threads' timelines and the profile for speedscope; docs/speedscope.md",
	.usage = "-o OUT.speedscope.json",
	.help = "Writes the INPUTs (the inputs of 'tracefold profile') as one file in\n"
		"speedscope's JSON format: an evented profile per thread (each region's\n"
		"start and end, after the stack rules and repairs) and a sampled profile of\n"
		"all threads (each call path's wall self time, as in 'tracefold fold'),\n"
		"frames named by their stable names.  Open it at www.speedscope.app or\n"
		"with the speedscope command (docs/speedscope.md).\n",
};
