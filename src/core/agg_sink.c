/* agg_sink.c - the aggregate as one span consumer (include/tracefold/agg_sink.h):
 * a closed span adds 1 call and its self time to its call path under its
 * track's labels, as wall time for a CPU region and as gpu time for a GPU
 * activity (the "gpu/nanoseconds" sample type, made when the first one
 * comes; a GPU annotation, the GPU-side copy of a CPU range, adds nothing:
 * docs/gpu.md); a selected counter
 * adds its value to the call path active when it fired ("[no region]"
 * outside any region). */
#include <stdbool.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tracefold/agg_sink.h"
#include "tracefold/sink.h"
#include "agg_mem.h"
#include "tracefold/coll.h"
#include "tracefold/waiting.h"
#include "tracefold/samples.h"
#include "hmap.h"
#include "msort.h"
#include "sat.h"

struct tf_agg_sink {
	tf_span_sink spans;
	tf_ctx *ctx;
	tf_agg *agg;
	tf_diag *diag;
	int t_calls, t_wall;
	int t_gpu;              /* "gpu/nanoseconds", made at the first GPU activity; -1 before */
	int t_alloc_space, t_alloc_objects; /* bytes and count allocated, at the first allocation; -1 before */
	int t_free_space, t_free_objects;   /* bytes and count freed, at the first free; -1 before */
	tf_agg_mem *mem;        /* the memory events, for the peaks (agg_mem.h); NULL before the first */
	tf_hmap mem_lset;       /* (track, step, device) -> label set of a memory sample */
	tf_str device_key, unknown_device;
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
	/* --label-steps */
	const tf_step *steps;
	size_t nsteps;
	tf_hmap step_lset;      /* (track, step) -> label set */
	/* collectives (coll.h, docs/collectives.md): the record of each span;
	 * label sets with a record's labels added */
	tf_coll_spans *cspans;
	tf_hmap coll_lset;      /* (label set, record) -> label set */
	tf_waiting *waiting;    /* threads that only wait: their samples held to the track's end */
	/* sampled stacks (TF_EV_SAMPLE, docs/samples.md) */
	tf_sample_paths *spaths; /* their call paths; NULL before the first */
	int t_samples;          /* "samples/count"; -1 before the first */
	tf_hmap sample_type;    /* weight type name -> type index */
	uint8_t *regions;       /* per track: 1 once a region opened on it */
	uint64_t *outside;      /* per track: samples under no region */
	uint32_t captracks;
};

void tf_agg_sink_label_steps(tf_agg_sink *k, const tf_step *steps, size_t n)
{
	k->steps = steps;
	k->nsteps = n;
}

/* Is step s before the key (input, rank, ts) in the list's order? */
static bool step_before(const tf_step *s, uint32_t in, int64_t rank, int64_t ts)
{
	if (s->input != in)
		return s->input < in;
	if (s->rank != rank)
		return s->rank < rank;
	return s->start_ns <= ts;
}

/* The step of (input, rank) whose span holds ts, SIZE_MAX when none does.
 * The steps of one (input, rank) do not overlap: they are one track's. */
static size_t step_at(const tf_step *steps, size_t n, uint32_t in, int64_t rank, int64_t ts)
{
	size_t lo = 0, hi = n;
	while (lo < hi) { /* the first step after (in, rank, ts) */
		size_t mid = lo + (hi - lo) / 2;
		if (step_before(&steps[mid], in, rank, ts))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return SIZE_MAX;
	const tf_step *s = &steps[lo - 1];
	return s->input == in && s->rank == rank && s->start_ns <= ts && ts < s->end_ns ? lo - 1 : SIZE_MAX;
}

size_t tf_step_find(const tf_step *steps, size_t n, uint32_t input, int64_t rank, int64_t ts)
{
	size_t i = step_at(steps, n, input, TF_STEP_ANY_RANK, ts);
	if (i == SIZE_MAX && rank != TF_STEP_ANY_RANK)
		i = step_at(steps, n, input, rank, ts);
	return i;
}

/* The step of a sample that happened at ts on track (a GPU activity: when
 * it was launched): tf_step_find's, -1 none. */
static int64_t step_of(tf_agg_sink *k, uint32_t track, int64_t ts)
{
	const tf_track *t = tf_ctx_track_get(k->ctx, track);
	size_t i = tf_step_find(k->steps, k->nsteps, t ? t->input : 0, t ? t->rank : TF_STEP_ANY_RANK, ts);
	return i == SIZE_MAX ? -1 : k->steps[i].n;
}

static int labelset(tf_agg_sink *k, uint32_t track, uint32_t *out);
static __attribute__((noinline)) int step_labels(tf_agg_sink *k, uint32_t track, int64_t ts, uint32_t *out);

/* The label set of a sample: its track's, plus step with --label-steps.
 * The usual answer (no steps, the track's set made) inline: this runs for
 * every region closed (issue 33). */
static inline int sample_labels(tf_agg_sink *k, uint32_t track, int64_t ts, uint32_t *out)
{
	if (!k->steps && track < k->caplset && k->lset[track]) {
		*out = k->lset[track] - 1;
		return 0;
	}
	return step_labels(k, track, ts, out);
}

static int step_labels(tf_agg_sink *k, uint32_t track, int64_t ts, uint32_t *out)
{
	if (!k->steps)
		return labelset(k, track, out);
	int64_t step = step_of(k, track, ts);
	uint64_t key = tf_mix64((uint64_t)track << 32 ^ (uint64_t)(step + 1));
	uint32_t v = tf_hmap_get(&k->step_lset, key);
	if (v != UINT32_MAX) {
		*out = v;
		return 0;
	}
	tf_label l[TF_AGG_MAX_LABELS];
	int n = tf_track_labels(k->ctx, track, l, TF_AGG_MAX_LABELS - 1);
	if (step >= 0)
		l[n++] = (tf_label){ tf_strtab_intern_cstr(tf_ctx_strtab(k->ctx), "step"), 0, step, 0 };
	uint32_t id = tf_agg_labelset(k->agg, l, n);
	if (id == (uint32_t)-1 || tf_hmap_put(&k->step_lset, key, id) < 0)
		return TF_ENOMEM;
	*out = id;
	return 0;
}

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

/* ---- collectives: their facts as labels on the samples of their regions,
 * of the regions inside them and of the GPU work those launched ---- */

static __attribute__((noinline)) int track_grow(tf_agg_sink *k, uint32_t track);

/* Grows the per-track sample bookkeeping to hold track (inline when it
 * does: every region opened asks). */
static inline int track_room(tf_agg_sink *k, uint32_t track)
{
	return track < k->captracks ? 0 : track_grow(k, track);
}

static int track_grow(tf_agg_sink *k, uint32_t track)
{
	uint32_t nc = k->captracks ? k->captracks : 64;
	while (nc <= track)
		nc *= 2;
	uint8_t *r = realloc(k->regions, nc);
	if (!r)
		return TF_ENOMEM;
	k->regions = r;
	uint64_t *o = realloc(k->outside, nc * sizeof(*o));
	if (!o)
		return TF_ENOMEM;
	k->outside = o;
	memset(r + k->captracks, 0, nc - k->captracks);
	memset(o + k->captracks, 0, (nc - k->captracks) * sizeof(*o));
	k->captracks = nc;
	return 0;
}

static int on_open(tf_span_sink *sk, const tf_span *s)
{
	tf_agg_sink *k = tf_container_of(sk, tf_agg_sink, spans);
	TF_TRY(track_room(k, s->track)); /* samples outside regions are counted per track */
	k->regions[s->track] = 1;
	return tf_ctx_coll(k->ctx, false) ? tf_coll_spans_open(k->cspans, s) : 0;
}

/* Label set ls with the labels of collective record rec added. */
static int coll_labels(tf_agg_sink *k, tf_coll *c, uint32_t rec, uint32_t *ls)
{
	uint64_t key = (uint64_t)*ls << 32 | rec;
	uint32_t v = tf_hmap_get(&k->coll_lset, key);
	if (v != UINT32_MAX) {
		*ls = v;
		return 0;
	}
	tf_label l[TF_AGG_MAX_LABELS + TF_COLL_MAX_LABELS];
	const tf_label *base;
	int n = tf_agg_labelset_get(k->agg, *ls, &base);
	if (n < 0)
		n = 0;
	memcpy(l, base, (size_t)n * sizeof(*l));
	n += tf_coll_labels(c, rec, tf_ctx_strtab(k->ctx), l + n);
	uint32_t id = tf_agg_labelset(k->agg, l, n);
	if (id == (uint32_t)-1 || tf_hmap_put(&k->coll_lset, key, id) < 0)
		return TF_ENOMEM;
	*ls = id;
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
	int64_t at = s->kind == TF_SPAN_KIND_GPU && s->launch_ns != TF_SPAN_END_UNKNOWN ? s->launch_ns : s->start_ns;
	if (s->kind == TF_SPAN_KIND_GPU_LABEL) /* a GPU-side copy of a CPU range: not a call (docs/gpu.md) */
		return 0;
	TF_TRY(sample_labels(k, s->track, at, &ls));
	tf_coll *c = tf_ctx_coll(k->ctx, false);
	if (c) {
		uint32_t rec;
		TF_TRY(tf_coll_spans_close(k->cspans, s, &rec));
		if (rec)
			TF_TRY(coll_labels(k, c, rec, &ls));
	}
	if (s->kind == TF_SPAN_KIND_GPU)
		return add_gpu(k, s, ls);
	int held = tf_waiting_close(k->waiting, s, ls);
	if (held)
		return held < 0 ? held : 0;
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

/* Sample types are made as counters first appear in the input;
 * tf_agg_sink_order_types puts them in their canonical order afterwards. */
static const char *const fixed_types[] = { "calls", "wall", "gpu", "alloc_space", "alloc_objects", "free_space",
					   "free_objects", "inuse_space", "inuse_objects", "samples" };
#define NFIXED_TYPES (sizeof(fixed_types) / sizeof(fixed_types[0]))

/* Is name a type of the aggregate's own (or a counter's), which a
 * sample's weight must not add to? */
static bool reserved_type(const char *name)
{
	for (size_t i = 0; i < NFIXED_TYPES; i++)
		if (!strcmp(name, fixed_types[i]))
			return true;
	return !strncmp(name, TF_COUNTER_TYPE_PREFIX, sizeof(TF_COUNTER_TYPE_PREFIX) - 1);
}

/* The weight type of a sample (its name and unit), -1 none; made as met,
 * with samples/count at the first sample. */
static int sample_type(tf_agg_sink *k, const tf_event *ev, int *type)
{
	*type = -1;
	if (k->t_samples < 0 && (k->t_samples = tf_agg_type(k->agg, "samples", "count")) < 0)
		return k->t_samples;
	if (!ev->name)
		return 0;
	uint32_t v = tf_hmap_get(&k->sample_type, ev->name);
	if (v != UINT32_MAX) {
		*type = (int)v;
		return 0;
	}
	tf_strtab *st = tf_ctx_strtab(k->ctx);
	const char *name = tf_strtab_get(st, ev->name);
	char buf[128];
	if (reserved_type(name)) { /* never adds to calls, wall, gpu, samples: "weight:wall" */
		snprintf(buf, sizeof(buf), "weight:%s", name);
		name = buf;
	}
	int t = tf_agg_type(k->agg, name, ev->cat ? tf_strtab_get(st, ev->cat) : "count");
	if (t < 0)
		return t; /* TF_ECLASH: a weight named as a type of another unit */
	*type = t;
	return tf_hmap_put(&k->sample_type, ev->name, (uint32_t)t) < 0 ? TF_ENOMEM : 0;
}

static int on_prepare(tf_span_sink *sk, const tf_event *ev)
{
	tf_agg_sink *k = tf_container_of(sk, tf_agg_sink, spans);
	if (ev->kind == TF_EV_SAMPLE) {
		int t;
		return sample_type(k, ev, &t);
	}
	if (ev->kind == TF_EV_COUNTER && k->counters)
		counter_type(k, ev->name);
	return 0;
}

static int sample_node(tf_agg_sink *k, uint32_t *node);

/* A sampled stack: samples/count and its weight to the call path of its
 * frames under the regions open (docs/samples.md). */
static int add_sample(tf_agg_sink *k, const tf_event *ev, uint32_t node)
{
	int t;
	TF_TRY(sample_type(k, ev, &t));
	TF_TRY(track_room(k, ev->track));
	if (node == TF_CPATH_ROOT)
		k->outside[ev->track] += (uint64_t)ev->dur_ns;
	if (!k->spaths && !(k->spaths = tf_sample_paths_new(k->ctx, tf_agg_cpath(k->agg))))
		return TF_ENOMEM;
	uint32_t path = tf_sample_path(k->spaths, node, (uint32_t)ev->id), ls;
	if (path == (uint32_t)-1)
		return TF_ENOMEM;
	if (path == TF_CPATH_ROOT) /* an empty stack under no region */
		TF_TRY(sample_node(k, &path));
	TF_TRY(tf_waiting_touch(k->waiting, ev->track));
	TF_TRY(sample_labels(k, ev->track, ev->ts_ns, &ls));
	TF_TRY(tf_agg_add(k->agg, path, ls, k->t_samples, ev->dur_ns));
	return t < 0 ? 0 : tf_agg_add(k->agg, path, ls, t, tf_sat_from_double(ev->value));
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

/* The label set of a memory sample: its track's (and step's), and its
 * device ("device" = "cuda:0", "cpu", "unknown"). */
static int mem_labels(tf_agg_sink *k, const tf_event *ev, uint32_t *out)
{
	int64_t step = k->steps ? step_of(k, ev->track, ev->ts_ns) : -1;
	uint64_t key = tf_mix64(tf_mix64((uint64_t)ev->track << 32 | ev->mem_device) + (uint64_t)(step + 1));
	uint32_t v = tf_hmap_get(&k->mem_lset, key);
	if (v != UINT32_MAX) {
		*out = v;
		return 0;
	}
	tf_strtab *st = tf_ctx_strtab(k->ctx);
	if (!k->device_key) {
		k->device_key = tf_strtab_intern_cstr(st, "device");
		k->unknown_device = tf_strtab_intern_cstr(st, "unknown");
	}
	tf_label l[TF_AGG_MAX_LABELS];
	int n = tf_track_labels(k->ctx, ev->track, l, TF_AGG_MAX_LABELS - 2);
	if (step >= 0)
		l[n++] = (tf_label){ tf_strtab_intern_cstr(st, "step"), 0, step, 0 };
	l[n++] = (tf_label){ k->device_key, ev->mem_device ? ev->mem_device : k->unknown_device, 0, 0 };
	uint32_t id = tf_agg_labelset(k->agg, l, n);
	if (id == (uint32_t)-1 || tf_hmap_put(&k->mem_lset, key, id) < 0)
		return TF_ENOMEM;
	*out = id;
	return 0;
}

/* A memory event: an allocation (bytes > 0) adds its bytes and one object
 * to alloc_space and alloc_objects, a free (bytes < 0) to free_space and
 * free_objects, under the call path active when it happened, labelled with
 * its device; both are noted for the peak (agg_mem.c, docs/memory.md). */
static int add_memory(tf_agg_sink *k, const tf_event *ev, uint32_t node)
{
	if (ev->value == 0)
		return 0;
	bool alloc = ev->value > 0;
	int *ts = alloc ? &k->t_alloc_space : &k->t_free_space, *to = alloc ? &k->t_alloc_objects : &k->t_free_objects;
	if (*ts < 0 && ((*ts = tf_agg_type(k->agg, alloc ? "alloc_space" : "free_space", "bytes")) < 0 ||
			(*to = tf_agg_type(k->agg, alloc ? "alloc_objects" : "free_objects", "count")) < 0))
		return TF_ENOMEM;
	if (!k->mem && !(k->mem = tf_agg_mem_new(k->ctx, k->agg)))
		return TF_ENOMEM;
	uint32_t ls;
	TF_TRY(tf_waiting_touch(k->waiting, ev->track));
	TF_TRY(sample_node(k, &node));
	TF_TRY(mem_labels(k, ev, &ls));
	TF_TRY(tf_agg_add(k->agg, node, ls, *ts, tf_sat_from_double(alloc ? ev->value : -ev->value)));
	TF_TRY(tf_agg_add(k->agg, node, ls, *to, 1));
	return tf_agg_mem_note(k->mem, ev, node, ls);
}

int tf_agg_sink_finish(tf_agg_sink *k)
{
	return k->mem ? tf_agg_mem_finish(k->mem) : 0;
}

size_t tf_agg_sink_memory(const tf_agg_sink *k, const tf_mem_device **out)
{
	return tf_agg_mem_devices(k->mem, out);
}

static int on_event(tf_span_sink *sk, const tf_event *ev, uint32_t node)
{
	tf_agg_sink *k = tf_container_of(sk, tf_agg_sink, spans);
	if (ev->kind == TF_EV_INSTANT && (ev->flags & TF_EVF_MEMORY))
		return add_memory(k, ev, node);
	if (ev->kind == TF_EV_SAMPLE)
		return add_sample(k, ev, node);
	if (ev->kind != TF_EV_COUNTER || !k->counters)
		return 0;
	int type = counter_type(k, ev->name);
	if (type < 0)
		return 0;
	uint32_t ls;
	TF_TRY(tf_waiting_touch(k->waiting, ev->track));
	TF_TRY(sample_node(k, &node));
	TF_TRY(sample_labels(k, ev->track, ev->ts_ns, &ls));
	return tf_agg_add(k->agg, node, ls, type, tf_sat_from_double(ev->value));
}

/* The track's held samples (a thread that may only wait) to the aggregate. */
static int on_end_track(tf_span_sink *sk, uint32_t track)
{
	tf_agg_sink *k = tf_container_of(sk, tf_agg_sink, spans);
	if (track < k->captracks) { /* samples on a track with regions, outside them */
		if (k->regions[track])
			k->diag->n[TF_DIAG_samples_outside] += k->outside[track];
		k->regions[track] = 0;
		k->outside[track] = 0;
	}
	return tf_waiting_end_track(k->waiting, track);
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
	k->spans.open = on_open;
	if (!(k->cspans = tf_coll_spans_new(ctx))) {
		free(k);
		return NULL;
	}
	k->t_gpu = k->t_alloc_space = k->t_alloc_objects = k->t_free_space = k->t_free_objects = -1;
	k->t_samples = -1;
	/* memory events always (not the other instants): their sample types
	 * appear only in runs that have some */
	k->spans.event = on_event;
	k->spans.event_flags = TF_EVF_MEMORY;
	k->spans.event_kinds = 1u << TF_EV_SAMPLE;
	k->spans.prepare = on_prepare;
	k->t_calls = tf_agg_type(agg, "calls", "count");
	k->t_wall = tf_agg_type(agg, "wall", "nanoseconds");
	if (k->t_calls < 0 || k->t_wall < 0) {
		tf_agg_sink_free(k);
		return NULL;
	}
	tf_agg_set_default_type(agg, k->t_wall);
	k->spans.end_track = on_end_track;
	if (!(k->waiting = tf_waiting_new(ctx, agg, k->t_calls, k->t_wall))) {
		free(k);
		return NULL;
	}
	k->dense_cw = k->t_calls < TF_AGG_DENSE_TYPES && k->t_wall < TF_AGG_DENSE_TYPES;
	if (counters && counters[0]) {
		k->counters = counters;
		for (int i = 0; counters[i]; i++)
			if (strcmp(counters[i], "all") == 0)
				k->all_counters = true;
		k->spans.event_kinds |= 1u << TF_EV_COUNTER;
	}
	return k;
}

tf_agg_sink *tf_agg_sink_twin(const tf_agg_sink *k, tf_ctx *ctx, tf_agg *agg)
{
	return k->nsteps ? NULL : tf_agg_sink_new(ctx, agg, k->counters);
}

void tf_agg_sink_free(tf_agg_sink *k)
{
	if (!k)
		return;
	free(k->lset);
	tf_waiting_free(k->waiting);
	tf_hmap_free(&k->counter_type);
	tf_hmap_free(&k->step_lset);
	tf_hmap_free(&k->mem_lset);
	tf_agg_mem_free(k->mem);
	tf_coll_spans_free(k->cspans);
	tf_hmap_free(&k->coll_lset);
	tf_sample_paths_free(k->spaths);
	tf_hmap_free(&k->sample_type);
	free(k->regions);
	free(k->outside);
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
	int64_t rank = t->rank;
	const tf_read_opts *ro = tf_ctx_opts(ctx);
	if (rank < 0 && ro->input_rank && t->input - ro->input_rank_first < ro->ninput_rank)
		rank = ro->input_rank[t->input - ro->input_rank_first]; /* the overview's (ctx.h) */
	if (rank >= 0) {
		snprintf(buf, sizeof(buf), "%" PRId64, rank);
		out[n++] = (tf_label){ tf_strtab_intern_cstr(st, "rank"), tf_strtab_intern_cstr(st, buf), 0, 0 };
	} else {
		out[n++] = (tf_label){ tf_strtab_intern_cstr(st, "pid"), t->process_key, 0, 0 };
	}
	out[n++] = (tf_label){ tf_strtab_intern_cstr(st, "thread"), t->thread_name ? t->thread_name : t->thread_key, 0, 0 };
	return n;
}

/* ---- the canonical order of a trace aggregate's sample types */

typedef struct type_key {
	int cls;         /* calls, wall, gpu, alloc_space, ..., inuse_objects, other, counters named, other counters */
	size_t pos;      /* a counter's place in the -c list */
} type_key;

typedef struct type_order {
	const tf_agg *agg;
	const type_key *key;
} type_order;

static int type_cmp(const void *ctx, uint32_t x, uint32_t y)
{
	const type_order *o = ctx;
	const type_key *a = &o->key[x], *b = &o->key[y];
	if (a->cls != b->cls)
		return a->cls < b->cls ? -1 : 1;
	if (a->pos != b->pos)
		return a->pos < b->pos ? -1 : 1;
	tf_strtab *st = tf_agg_strtab(o->agg);
	tf_str p = tf_agg_type_get(o->agg, (int)x).type, q = tf_agg_type_get(o->agg, (int)y).type;
	return tf_bytes_cmp(tf_strtab_get(st, p), tf_strtab_len(st, p), tf_strtab_get(st, q), tf_strtab_len(st, q));
}

/* A profile of samples only (no region: calls and wall all zero) has no
 * calls and wall types and shows the samples' weight by default: the first
 * weight (after samples/count, in the canonical order) in nanoseconds (cpu,
 * cpu-clock), else the first weight, else samples/count.  0 or TF_ENOMEM. */
static int samples_only(tf_agg *agg)
{
	int ts = tf_agg_type_find(agg, "samples"), tw = tf_agg_type_find(agg, "wall"),
	    tc = tf_agg_type_find(agg, "calls"), nt = tf_agg_ntypes(agg);
	if (ts < 0 || tw < 0 || tc < 0 || tf_agg_default_type(agg) != tw)
		return 0;
	for (size_t i = 0, n = tf_agg_nsamples(agg); i < n; i++)
		if (tf_agg_sample_value(agg, i, tw) || tf_agg_sample_value(agg, i, tc))
			return 0;
	int *perm = malloc((size_t)nt * sizeof(int)), k = 0;
	if (!perm)
		return TF_ENOMEM;
	for (int t = 0; t < nt; t++) /* calls and wall last, then gone */
		if (t != tw && t != tc)
			perm[k++] = t;
	perm[k++] = tc;
	perm[k++] = tw;
	int rc = tf_agg_permute_types(agg, perm);
	free(perm);
	if (rc < 0)
		return rc;
	if (tf_agg_drop_types(agg, nt - 2) < 0) /* they hold nothing: cannot fail */
		return 0;
	ts = tf_agg_type_find(agg, "samples");
	tf_strtab *st = tf_agg_strtab(agg);
	int def = -1;
	for (int t = ts + 1; t < tf_agg_ntypes(agg); t++) {
		tf_sample_type ty = tf_agg_type_get(agg, t);
		if (!strncmp(tf_strtab_get(st, ty.type), TF_COUNTER_TYPE_PREFIX, sizeof(TF_COUNTER_TYPE_PREFIX) - 1))
			continue;
		if (def < 0)
			def = t;
		if (!strcmp(tf_strtab_get(st, ty.unit), "nanoseconds")) {
			def = t;
			break;
		}
	}
	tf_agg_set_default_type(agg, def >= 0 ? def : ts);
	return 0;
}

int tf_agg_sink_order_types(tf_agg *agg, const char *const *counters)
{
	/* then the samples' weights (cpu, cycles): by name, as other types */
	const char *const *fixed = fixed_types;
	enum { NFIXED = NFIXED_TYPES };
	size_t pl = sizeof(TF_COUNTER_TYPE_PREFIX) - 1;
	int nt = tf_agg_ntypes(agg);
	type_key *key = malloc(((size_t)nt + 1) * sizeof(type_key));
	uint32_t *ord = malloc(((size_t)nt + 1) * 2 * sizeof(uint32_t));
	int *perm = malloc(((size_t)nt + 1) * sizeof(int));
	int rc = TF_ENOMEM;
	if (!key || !ord || !perm)
		goto out;
	for (int t = 0; t < nt; t++) {
		const char *name = tf_strtab_get(tf_agg_strtab(agg), tf_agg_type_get(agg, t).type);
		type_key k = { NFIXED, 0 }; /* another type: by name, before the counters */
		for (int f = 0; f < NFIXED; f++)
			if (!strcmp(name, fixed[f]))
				k.cls = f;
		if (!strncmp(name, TF_COUNTER_TYPE_PREFIX, pl)) {
			k.cls = NFIXED + 2; /* not in the list (-c all): by name */
			for (size_t i = 0; counters && counters[i] && k.cls == NFIXED + 2; i++)
				if (!strcmp(counters[i], name + pl))
					k = (type_key){ NFIXED + 1, i };
		}
		key[t] = k;
		ord[t] = (uint32_t)t;
	}
	type_order o = { agg, key };
	tf_msort_u32(ord, ord + nt, (size_t)nt, type_cmp, &o);
	bool same = true;
	for (int i = 0; i < nt; i++) {
		perm[i] = (int)ord[i];
		same &= perm[i] == i;
	}
	rc = same ? 0 : tf_agg_permute_types(agg, perm);
	if (rc == 0)
		rc = samples_only(agg);
out:
	free(key);
	free(ord);
	free(perm);
	return rc;
}
