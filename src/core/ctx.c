/* ctx.c - the per-run context: strings, tracks, diagnostics, options; and
 * the event accounting every reader goes through (tf_emit). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tracefold/progress.h"
#include "tracefold/ctx.h"
#include "sat.h"
#include "hmap.h"
#include "tracefold/names.h"
#include "tracefold/coll.h"

struct tf_ctx {
	tf_strtab *st;
	tf_diag diag;
	tf_read_opts opts;
	tf_track *tracks;
	uint32_t ntracks, cap;
	uint32_t *slots;  /* track id + 1 */
	uint32_t nslots;
	/* processes (input, key): name and a list of their tracks, so process
	 * metadata costs O(its tracks), never O(all tracks) */
	struct pname { uint32_t input; tf_str key, name; uint32_t first; } *pnames;
	uint32_t npnames, cappnames;
	tf_hmap pidx;     /* input << 32 | key -> pnames index */
	uint32_t *tnext;  /* per track: next track of its process, UINT32_MAX ends */
	char *notes[TF_CTX_MAX_NOTES];
	size_t nnotes;
	char *warnings[TF_CTX_MAX_NOTES];
	size_t nwarnings;
	tf_hmap frames;   /* raw name -> its frame (tf_ctx_frame_name) */
	tf_error failure; /* the first failure not of an input (tf_ctx_fail); code 0: none */
	char *fbuf;       /* scratch for a normalized name */
	size_t capfbuf;
	int64_t first_ns; /* tf_ctx_note_first_ns */
	bool has_first;
	tf_coll *coll;     /* collectives' facts (coll.h), made by the first reader that notes one */
	tf_cpath *stacks;  /* sample stacks (tf_ctx_stack_child), made with the first */
};

uint32_t tf_ctx_stack_child(tf_ctx *c, uint32_t parent, tf_str frame)
{
	if (!c->stacks && !(c->stacks = tf_cpath_new()))
		return (uint32_t)-1;
	return tf_cpath_child(c->stacks, parent, frame);
}

const tf_cpath *tf_ctx_stacks(const tf_ctx *c) { return c->stacks; }

void tf_ctx_note_first_ns(tf_ctx *c, int64_t ns)
{
	if (!c->has_first || ns < c->first_ns)
		c->first_ns = ns;
	c->has_first = true;
}

bool tf_ctx_first_ns(const tf_ctx *c, int64_t *ns)
{
	if (c->has_first)
		*ns = c->first_ns;
	return c->has_first;
}

tf_ctx *tf_ctx_new(void)
{
	tf_ctx *c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->st = tf_strtab_new();
	tf_error_clear(&c->failure);
	c->nslots = 64;
	c->slots = calloc(c->nslots, sizeof(uint32_t));
	if (!c->st || !c->slots) {
		tf_ctx_free(c);
		return NULL;
	}
	c->opts.clip_tolerance_ns = TF_CLIP_TOLERANCE_NS_DEFAULT;
	c->opts.sort_mem_bytes = TF_SORT_MEM_DEFAULT;
	c->opts.name_rules = TF_NAMES_ALL;
	return c;
}

tf_ctx *tf_ctx_twin(const tf_ctx *c)
{
	tf_ctx *t = tf_ctx_new();
	if (!t)
		return NULL;
	t->opts = c->opts;
	uint32_t n = tf_strtab_count(c->st);
	for (uint32_t i = 1; i < n; i++) /* in order: the same ids */
		if (tf_strtab_intern(t->st, tf_strtab_get(c->st, i), tf_strtab_len(c->st, i)) != i)
			goto fail;
	if (c->ntracks) {
		if (!(t->tracks = malloc((size_t)c->ntracks * sizeof(tf_track))))
			goto fail;
		memcpy(t->tracks, c->tracks, (size_t)c->ntracks * sizeof(tf_track));
		t->ntracks = t->cap = c->ntracks;
	}
	return t;
fail:
	tf_ctx_free(t);
	return NULL;
}

void tf_ctx_free(tf_ctx *c)
{
	if (!c)
		return;
	tf_strtab_free(c->st);
	tf_cpath_free(c->stacks);
	free(c->tracks);
	free(c->slots);
	free(c->pnames);
	free(c->tnext);
	tf_hmap_free(&c->pidx);
	tf_hmap_free(&c->frames);
	free(c->fbuf);
	tf_coll_free(c->coll);
	for (size_t i = 0; i < c->nnotes && i < TF_CTX_MAX_NOTES; i++)
		free(c->notes[i]);
	for (size_t i = 0; i < c->nwarnings && i < TF_CTX_MAX_NOTES; i++)
		free(c->warnings[i]);
	free(c);
}

tf_strtab *tf_ctx_strtab(tf_ctx *c) { return c->st; }

tf_coll *tf_ctx_coll(tf_ctx *c, bool make)
{
	if (!c->coll && make)
		c->coll = tf_coll_new();
	return c->coll;
}
tf_diag *tf_ctx_diag(tf_ctx *c) { return &c->diag; }
tf_read_opts *tf_ctx_opts(tf_ctx *c) { return &c->opts; }
uint32_t tf_ctx_track_count(const tf_ctx *c) { return c->ntracks; }

tf_str tf_ctx_frame_name(tf_ctx *c, tf_str raw)
{
	if (!c->opts.name_rules || !raw)
		return raw;
	uint32_t v = tf_hmap_get(&c->frames, raw);
	if (v != UINT32_MAX)
		return v;
	size_t n = tf_strtab_len(c->st, raw);
	if (tf_grow_n((void **)&c->fbuf, &c->capfbuf, n + 1, 1, false) < 0)
		return (tf_str)-1;
	/* the text may move when the table grows: normalize before interning */
	size_t m = tf_name_normalize(tf_strtab_get(c->st, raw), n, c->opts.name_rules, c->fbuf);
	tf_str f = m == n ? raw : tf_strtab_intern(c->st, c->fbuf, m);
	if (f == (tf_str)-1 || tf_hmap_put(&c->frames, raw, f) < 0)
		return (tf_str)-1;
	return f;
}

static uint32_t track_hash(uint32_t input, tf_str p, tf_str t)
{
	uint64_t h = ((uint64_t)input * 0x9E3779B97F4A7C15ull) ^ ((uint64_t)p << 32 | t);
	h ^= h >> 31;
	h *= 0xBF58476D1CE4E5B9ull;
	h ^= h >> 29;
	return (uint32_t)h;
}

static int grow_slots(tf_ctx *c)
{
	uint32_t ns = c->nslots * 2;
	uint32_t *s = calloc(ns, sizeof(uint32_t));
	if (!s)
		return -1;
	for (uint32_t id = 0; id < c->ntracks; id++) {
		const tf_track *t = &c->tracks[id];
		uint32_t i = track_hash(t->input, t->process_key, t->thread_key) & (ns - 1);
		while (s[i])
			i = (i + 1) & (ns - 1);
		s[i] = id + 1;
	}
	free(c->slots);
	c->slots = s;
	c->nslots = ns;
	return 0;
}

/* The process (input, pkey), created if absent; NULL on allocation failure. */
static struct pname *process(tf_ctx *c, uint32_t input, tf_str pkey)
{
	uint64_t k = (uint64_t)input << 32 | pkey;
	uint32_t i = tf_hmap_get(&c->pidx, k);
	if (i != UINT32_MAX)
		return &c->pnames[i];
	if (tf_grow((void **)&c->pnames, &c->cappnames, c->npnames + 1, sizeof(*c->pnames)) < 0 ||
	    tf_hmap_put(&c->pidx, k, c->npnames) < 0)
		return NULL;
	c->pnames[c->npnames] = (struct pname){ input, pkey, 0, UINT32_MAX };
	return &c->pnames[c->npnames++];
}

static uint32_t track_slot(const tf_ctx *c, uint32_t input, tf_str pkey, tf_str tkey)
{
	uint32_t mask = c->nslots - 1;
	uint32_t i = track_hash(input, pkey, tkey) & mask;
	while (c->slots[i]) {
		const tf_track *t = &c->tracks[c->slots[i] - 1];
		if (t->input == input && t->process_key == pkey && t->thread_key == tkey)
			break;
		i = (i + 1) & mask;
	}
	return i;
}

/* The input whose tracks input's are: join_to while a sampled input is
 * joined to a trace (tf_read_opts.join). */
static inline uint32_t joined_input(const tf_ctx *c, uint32_t input)
{
	return c->opts.join && input == c->opts.join_from ? c->opts.join_to : input;
}

uint32_t tf_ctx_track_find(const tf_ctx *c, uint32_t input, tf_str pkey, tf_str tkey)
{
	input = joined_input(c, input);
	uint32_t i = track_slot(c, input, pkey, tkey);
	return c->slots[i] ? c->slots[i] - 1 : UINT32_MAX;
}

uint32_t tf_ctx_track(tf_ctx *c, uint32_t input, tf_str pkey, tf_str tkey)
{
	if ((c->ntracks + 1) * 2 > c->nslots && grow_slots(c) < 0)
		return (uint32_t)-1;
	bool join = c->opts.join && input == c->opts.join_from;
	input = joined_input(c, input);
	uint32_t i = track_slot(c, input, pkey, tkey);
	if (c->slots[i]) {
		if (join)
			c->tracks[c->slots[i] - 1].joined = true;
		return c->slots[i] - 1;
	}
	struct pname *p = process(c, input, pkey);
	if (!p)
		return (uint32_t)-1;
	uint32_t capnext = c->cap;
	if (tf_grow((void **)&c->tracks, &c->cap, c->ntracks + 1, sizeof(*c->tracks)) < 0 ||
	    tf_grow((void **)&c->tnext, &capnext, c->cap, sizeof(*c->tnext)) < 0)
		return (uint32_t)-1;
	uint32_t id = c->ntracks++;
	tf_track *t = &c->tracks[id];
	memset(t, 0, sizeof(*t));
	t->input = input;
	t->process_key = pkey;
	t->thread_key = tkey;
	t->rank = -1;
	t->joined = join;
	t->process_name = p->name;
	c->tnext[id] = p->first;
	p->first = id;
	c->slots[i] = id + 1;
	return id;
}

uint32_t tf_ctx_process_first(tf_ctx *c, uint32_t input, tf_str pkey)
{
	input = joined_input(c, input);
	uint32_t i = tf_hmap_get(&c->pidx, (uint64_t)input << 32 | pkey);
	return i == UINT32_MAX ? UINT32_MAX : c->pnames[i].first;
}

uint32_t tf_ctx_process_next(const tf_ctx *c, uint32_t track)
{
	return track < c->ntracks ? c->tnext[track] : UINT32_MAX;
}

tf_track *tf_ctx_track_get(tf_ctx *c, uint32_t id)
{
	return id < c->ntracks ? &c->tracks[id] : NULL;
}

void tf_ctx_set_process_name(tf_ctx *c, uint32_t input, tf_str pkey, tf_str name)
{
	input = joined_input(c, input);
	struct pname *p = process(c, input, pkey);
	if (!p || p->name == name)
		return;
	p->name = name;
	for (uint32_t id = p->first; id != UINT32_MAX; id = c->tnext[id])
		c->tracks[id].process_name = name;
}

static const tf_diag_id kind_diag[TF_EV_KIND_COUNT] = {
	[TF_EV_BEGIN] = TF_DIAG_ev_duration,  [TF_EV_END] = TF_DIAG_ev_duration,
	[TF_EV_COMPLETE] = TF_DIAG_ev_duration, [TF_EV_INSTANT] = TF_DIAG_ev_instant,
	[TF_EV_COUNTER] = TF_DIAG_ev_counter, [TF_EV_SEND] = TF_DIAG_ev_message,
	[TF_EV_RECV] = TF_DIAG_ev_message,    [TF_EV_FLOW] = TF_DIAG_ev_flow,
	[TF_EV_ASYNC] = TF_DIAG_ev_async,     [TF_EV_METADATA] = TF_DIAG_ev_metadata,
	[TF_EV_SAMPLE] = TF_DIAG_ev_sample,
};

int tf_emit(tf_ctx *ctx, tf_sink *sink, const tf_event *ev)
{
	if ((++ctx->diag.n[TF_DIAG_events_read] & (TF_PROGRESS_BATCH - 1)) == 0)
		tf_progress_add_events(TF_PROGRESS_BATCH);
	ctx->diag.n[ev->kind < TF_EV_KIND_COUNT ? kind_diag[ev->kind] : TF_DIAG_ev_other]++;
	if (ctx->opts.shift_ns && ev->kind != TF_EV_METADATA) { /* a sampled input's, --clock-offset */
		tf_event e = *ev;
		e.ts_ns = tf_sat_add(e.ts_ns, ctx->opts.shift_ns);
		return sink && sink->event ? sink->event(sink, &e) : 0;
	}
	return sink && sink->event ? sink->event(sink, ev) : 0;
}

void tf_ctx_set_wall_base(tf_ctx *c, int64_t ns, const char *trace, const char *how)
{
	if (c->opts.wall_base_known) {
		/* several traces, each with its own base: the telemetry goes on
		 * the first's clock, and the others are not moved onto it */
		if (ns != c->opts.wall_base_ns && !c->opts.wall_base_other[0]) {
			snprintf(c->opts.wall_base_other, sizeof(c->opts.wall_base_other), "%s", trace ? trace : "?");
			c->opts.wall_base_other_ns = ns;
		}
		return;
	}
	c->opts.wall_base_known = true;
	c->opts.wall_base_ns = ns;
	c->opts.wall_base_how = how;
	snprintf(c->opts.wall_base_from, sizeof(c->opts.wall_base_from), "%s", trace ? trace : "");
}

void tf_count_skip(tf_ctx *ctx, tf_diag_id why)
{
	ctx->diag.n[TF_DIAG_events_read]++;
	ctx->diag.n[why]++;
}

const char *tf_ev_kind_name(tf_ev_kind k)
{
	static const char *names[TF_EV_KIND_COUNT] = {
		"begin", "end", "complete", "instant", "counter",
		"send", "recv", "flow", "async", "metadata", "sample",
	};
	return k < TF_EV_KIND_COUNT ? names[k] : "?";
}

static int tee_event(tf_sink *s, const tf_event *ev)
{
	tf_tee *t = tf_container_of(s, tf_tee, sink);
	for (int i = 0; i < t->n; i++)
		if (t->to[i]->event) {
			int rc = t->to[i]->event(t->to[i], ev);
			if (rc < 0)
				return rc;
		}
	return 0;
}

static int tee_end(tf_sink *s, uint32_t input)
{
	tf_tee *t = tf_container_of(s, tf_tee, sink);
	for (int i = 0; i < t->n; i++)
		if (t->to[i]->end_input) {
			int rc = t->to[i]->end_input(t->to[i], input);
			if (rc < 0)
				return rc;
		}
	return 0;
}

void tf_tee_init(tf_tee *t)
{
	memset(t, 0, sizeof(*t));
	t->sink.event = tee_event;
	t->sink.end_input = tee_end;
}

void tf_tee_add(tf_tee *t, tf_sink *s)
{
	if (t->n < (int)(sizeof(t->to) / sizeof(t->to[0])))
		t->to[t->n++] = s;
}

/* Keeps the first TF_CTX_MAX_NOTES texts of a list (notes, warnings) and
 * counts them all. */
static void keep_text(char **list, size_t *n, const char *fmt, va_list ap)
{
	if (*n < TF_CTX_MAX_NOTES) {
		char buf[1024];
		vsnprintf(buf, sizeof(buf), fmt, ap);
		list[*n] = strdup(buf);
	}
	(*n)++;
}

void tf_ctx_note(tf_ctx *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	keep_text(c->notes, &c->nnotes, fmt, ap);
	va_end(ap);
}

size_t tf_ctx_nnotes(const tf_ctx *c) { return c->nnotes; }

const char *tf_ctx_note_get(const tf_ctx *c, size_t i)
{
	return i < c->nnotes && i < TF_CTX_MAX_NOTES ? c->notes[i] : NULL;
}

void tf_ctx_warn(tf_ctx *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	keep_text(c->warnings, &c->nwarnings, fmt, ap);
	va_end(ap);
}

size_t tf_ctx_nwarnings(const tf_ctx *c) { return c->nwarnings; }

const char *tf_ctx_warning_get(const tf_ctx *c, size_t i)
{
	return i < c->nwarnings && i < TF_CTX_MAX_NOTES ? c->warnings[i] : NULL;
}

int tf_ctx_fail(tf_ctx *c, const tf_error *e)
{
	if (!c->failure.code && e->code)
		c->failure = *e;
	return e->code;
}

const tf_error *tf_ctx_failure(const tf_ctx *c)
{
	return c->failure.code ? &c->failure : NULL;
}
