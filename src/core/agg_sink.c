/* agg_sink.c - the aggregate as one span consumer (include/tracefold/agg_sink.h):
 * a closed span adds 1 call and its self time to its call path under its
 * track's labels, as wall time for a CPU region and as gpu time for a GPU
 * activity (the "gpu/nanoseconds" sample type, made when the first one
 * comes; a GPU annotation adds a call and no time: docs/gpu.md); a selected counter
 * adds its value to the call path active when it fired ("[no region]"
 * outside any region). */
#include <stdbool.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tracefold/agg_sink.h"
#include "tracefold/sink.h"
#include "hmap.h"
#include "sat.h"

struct tf_agg_sink {
	tf_span_sink spans;
	tf_ctx *ctx;
	tf_agg *agg;
	tf_diag *diag;
	int t_calls, t_wall;
	int t_gpu;              /* "gpu/nanoseconds", made at the first GPU activity; -1 before */
	int t_alloc_space, t_alloc_objects; /* bytes and count allocated, at the first allocation; -1 before */
	bool dense_cw;          /* both in the agg's dense value vectors: always, on a new agg */
	/* per track: its label set, resolved when its first sample is added
	 * (for sorted tracks that is after the input's metadata was read) */
	uint32_t *lset;         /* label set + 1; 0 = not yet */
	uint32_t caplset;
	/* counter selection */
	const char *const *counters;
	bool all_counters;
	tf_hmap counter_type;   /* tf_str -> type index; UINT32_MAX-1 for "not selected" */
	tf_str no_region;
};

static int labelset(tf_agg_sink *k, uint32_t track, uint32_t *out)
{
	if (track >= k->caplset) {
		uint32_t cap = k->caplset;
		if (tf_grow((void **)&k->lset, &k->caplset, track + 1, sizeof(uint32_t)) < 0)
			return TF_ENOMEM;
		memset(k->lset + cap, 0, (size_t)(k->caplset - cap) * sizeof(uint32_t));
	}
	if (!k->lset[track]) {
		tf_label l[TF_AGG_MAX_LABELS];
		int n = tf_track_labels(k->ctx, track, l, TF_AGG_MAX_LABELS);
		uint32_t id = tf_agg_labelset(k->agg, l, n);
		if (id == (uint32_t)-1)
			return TF_ENOMEM;
		k->lset[track] = id + 1;
	}
	*out = k->lset[track] - 1;
	return 0;
}

/* A call path's time beyond the int64 range: clamped, counted, said once. */
static void note_saturated(tf_agg_sink *k)
{
	if (!k->diag->n[TF_DIAG_saturated]++)
		tf_ctx_note(k->ctx, "the time of a call path exceeds the int64 range (292 years in ns): "
			    "clamped at its largest value");
}

/* A GPU activity: a call and its time as gpu time, never wall. */
static int add_gpu(tf_agg_sink *k, const tf_span *s, uint32_t ls)
{
	if (k->t_gpu < 0 && (k->t_gpu = tf_agg_type(k->agg, "gpu", "nanoseconds")) < 0)
		return TF_ENOMEM;
	TF_TRY(tf_agg_add(k->agg, s->node, ls, k->t_calls, 1));
	return tf_agg_add(k->agg, s->node, ls, k->t_gpu, s->self_ns);
}

static int on_close(tf_span_sink *sk, const tf_span *s)
{
	tf_agg_sink *k = tf_container_of(sk, tf_agg_sink, spans);
	uint32_t ls;
	TF_TRY(labelset(k, s->track, &ls));
	if (s->kind == TF_SPAN_KIND_GPU_LABEL) /* a call, no time of its own */
		return tf_agg_add(k->agg, s->node, ls, k->t_calls, 1);
	if (s->kind == TF_SPAN_KIND_GPU)
		return add_gpu(k, s, ls);
	if (k->dense_cw) {
		int64_t *v = tf_agg_values(k->agg, s->node, ls);
		if (!v)
			return TF_ENOMEM;
		v[k->t_calls] += 1;
		if (s->self_ns > INT64_MAX - v[k->t_wall] && v[k->t_wall] >= 0)
			note_saturated(k);
		v[k->t_wall] = tf_sat_add(v[k->t_wall], s->self_ns);
		return 0;
	}
	TF_TRY(tf_agg_add(k->agg, s->node, ls, k->t_calls, 1));
	return tf_agg_add(k->agg, s->node, ls, k->t_wall, s->self_ns);
}

/* The sample type of counter `name`, -1 when it is not selected. */
static int counter_type(tf_agg_sink *k, tf_str name)
{
	uint32_t v = tf_hmap_get(&k->counter_type, name);
	if (v != UINT32_MAX)
		return v == UINT32_MAX - 1 ? -1 : (int)v;
	const char *text = tf_strtab_get(tf_ctx_strtab(k->ctx), name);
	bool selected = k->all_counters;
	for (int i = 0; !selected && k->counters[i]; i++)
		selected = strcmp(k->counters[i], text) == 0;
	int type = -1;
	if (selected) {
		/* its own sample type, "counter:NAME": never the built-in calls or
		 * wall, whatever the counter is called */
		size_t n = strlen(text);
		char *tn = malloc(sizeof(TF_COUNTER_TYPE_PREFIX) + n);
		if (!tn)
			return -1;
		memcpy(tn, TF_COUNTER_TYPE_PREFIX, sizeof(TF_COUNTER_TYPE_PREFIX) - 1);
		memcpy(tn + sizeof(TF_COUNTER_TYPE_PREFIX) - 1, text, n + 1);
		type = tf_agg_type(k->agg, tn, "count");
		free(tn);
		if (type < 0)
			type = -1;
	}
	if (tf_hmap_put(&k->counter_type, name, type < 0 ? UINT32_MAX - 1 : (uint32_t)type) < 0)
		return -1;
	return type;
}

/* Sample types in the order counters first appear in the input. */
static int on_prepare(tf_span_sink *sk, const tf_event *ev)
{
	tf_agg_sink *k = tf_container_of(sk, tf_agg_sink, spans);
	if (ev->kind == TF_EV_COUNTER)
		counter_type(k, ev->name);
	return 0;
}

/* A samples' call path: the node, or "[no region]" outside any region
 * (pprof samples need a location). */
static int sample_node(tf_agg_sink *k, uint32_t *node)
{
	if (*node != TF_CPATH_ROOT)
		return 0;
	if (!k->no_region)
		k->no_region = tf_strtab_intern_cstr(tf_ctx_strtab(k->ctx), "[no region]");
	*node = tf_agg_child(k->agg, TF_CPATH_ROOT, k->no_region);
	return *node == (uint32_t)-1 ? TF_ENOMEM : 0;
}

/* An allocation (a memory event with bytes > 0): its bytes and one object
 * under the call path active when it happened (docs/gpu.md); frees are
 * not samples. */
static int add_alloc(tf_agg_sink *k, const tf_event *ev, uint32_t node)
{
	if (ev->value <= 0)
		return 0;
	if (k->t_alloc_space < 0 && ((k->t_alloc_space = tf_agg_type(k->agg, "alloc_space", "bytes")) < 0 ||
				     (k->t_alloc_objects = tf_agg_type(k->agg, "alloc_objects", "count")) < 0))
		return TF_ENOMEM;
	uint32_t ls;
	TF_TRY(labelset(k, ev->track, &ls));
	TF_TRY(sample_node(k, &node));
	TF_TRY(tf_agg_add(k->agg, node, ls, k->t_alloc_space, tf_sat_from_double(ev->value)));
	return tf_agg_add(k->agg, node, ls, k->t_alloc_objects, 1);
}

static int on_event(tf_span_sink *sk, const tf_event *ev, uint32_t node)
{
	tf_agg_sink *k = tf_container_of(sk, tf_agg_sink, spans);
	if (ev->kind == TF_EV_INSTANT && (ev->flags & TF_EVF_MEMORY))
		return add_alloc(k, ev, node);
	if (ev->kind != TF_EV_COUNTER || !k->counters)
		return 0;
	int type = counter_type(k, ev->name);
	if (type < 0)
		return 0;
	uint32_t ls;
	TF_TRY(labelset(k, ev->track, &ls));
	TF_TRY(sample_node(k, &node));
	return tf_agg_add(k->agg, node, ls, type, tf_sat_from_double(ev->value));
}

tf_agg_sink *tf_agg_sink_new(tf_ctx *ctx, tf_agg *agg, const char *const *counters)
{
	tf_agg_sink *k = calloc(1, sizeof(*k));
	if (!k)
		return NULL;
	k->ctx = ctx;
	k->agg = agg;
	k->diag = tf_ctx_diag(ctx);
	k->spans.close = on_close;
	k->t_gpu = k->t_alloc_space = k->t_alloc_objects = -1;
	/* memory events (instants) always: their sample types appear only in
	 * runs that have some */
	k->spans.event = on_event;
	k->spans.event_kinds = 1u << TF_EV_INSTANT;
	k->t_calls = tf_agg_type(agg, "calls", "count");
	k->t_wall = tf_agg_type(agg, "wall", "nanoseconds");
	if (k->t_calls < 0 || k->t_wall < 0) {
		free(k);
		return NULL;
	}
	tf_agg_set_default_type(agg, k->t_wall);
	k->dense_cw = k->t_calls < TF_AGG_DENSE_TYPES && k->t_wall < TF_AGG_DENSE_TYPES;
	if (counters && counters[0]) {
		k->counters = counters;
		for (int i = 0; counters[i]; i++)
			if (strcmp(counters[i], "all") == 0)
				k->all_counters = true;
		k->spans.prepare = on_prepare;
		k->spans.event_kinds |= 1u << TF_EV_COUNTER;
	}
	return k;
}

void tf_agg_sink_free(tf_agg_sink *k)
{
	if (!k)
		return;
	free(k->lset);
	tf_hmap_free(&k->counter_type);
	free(k);
}

tf_span_sink *tf_agg_sink_spans(tf_agg_sink *k) { return &k->spans; }

int tf_track_labels(tf_ctx *ctx, uint32_t track, tf_label *out, int max)
{
	const tf_track *t = tf_ctx_track_get(ctx, track);
	tf_strtab *st = tf_ctx_strtab(ctx);
	int n = 0;
	if (!t || max < 2)
		return 0;
	char buf[32];
	if (t->rank >= 0) {
		snprintf(buf, sizeof(buf), "%" PRId64, t->rank);
		out[n++] = (tf_label){ tf_strtab_intern_cstr(st, "rank"), tf_strtab_intern_cstr(st, buf), 0, 0 };
	} else {
		out[n++] = (tf_label){ tf_strtab_intern_cstr(st, "pid"), t->process_key, 0, 0 };
	}
	out[n++] = (tf_label){ tf_strtab_intern_cstr(st, "thread"), t->thread_name ? t->thread_name : t->thread_key, 0, 0 };
	return n;
}
