/* tids.c - integer process and thread ids for the timeline writers
 * (src/write/tids.h). */
#include <stdio.h>
#include <stdlib.h>
#include "tids.h"
#include "tracefold/err.h"

/* The integer a key is, when it is one within [-max, max]. */
static bool key_int(const tf_strtab *st, tf_str key, int64_t max, int64_t *v)
{
	const char *s = tf_strtab_get(st, key);
	size_t n = tf_strtab_len(st, key), i = s[0] == '-';
	if (n == i || n - i > 18)
		return false;
	for (; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	*v = strtoll(s, NULL, 10);
	return *v <= max && *v >= -max;
}

static uint64_t pid_key(int64_t unused, int64_t pid)
{
	(void)unused;
	return tf_mix64((uint64_t)pid ^ 0x5bd1e995u);
}

static uint64_t tid_key(int64_t pid, int64_t tid)
{
	return tf_mix64((uint64_t)pid * 0x9E3779B97F4A7C15ull + (uint64_t)tid);
}

/* An id not given out yet: `want` when it is free, else the next free one
 * from 2^20 up.  used_key maps the id to what must be unique. */
static int id_for(tf_tids *t, bool have, int64_t want, uint64_t (*used_key)(int64_t, int64_t), int64_t ctx,
		  int64_t *out)
{
	if (!have || tf_hmap_get(&t->used, used_key(ctx, want)) != UINT32_MAX) {
		if (t->next_id < (1 << 20))
			t->next_id = 1 << 20;
		while (tf_hmap_get(&t->used, used_key(ctx, t->next_id)) != UINT32_MAX)
			t->next_id++;
		want = t->next_id++;
	}
	*out = want;
	return tf_hmap_put(&t->used, used_key(ctx, want), 1) < 0 ? TF_ENOMEM : 0;
}

int tf_tids_assign(tf_tids *t, tf_ctx *ctx, uint32_t track, tf_tid *out)
{
	const tf_strtab *st = tf_ctx_strtab(ctx);
	const tf_track *tk = tf_ctx_track_get(ctx, track);
	int64_t max = t->max ? t->max : INT64_MAX / 2;
	bool ranked = tk->rank >= 0 && tk->rank <= max;
	uint64_t pkey = ranked ? (uint64_t)tk->rank | 1ull << 63 : (uint64_t)tk->input << 32 | tk->process_key;
	uint32_t pi = tf_hmap_get(&t->procs, pkey);
	int64_t v = 0;
	*out = (tf_tid){ 0 };
	out->pid_is_key = !ranked && key_int(st, tk->process_key, max, &v);
	out->new_process = pi == UINT32_MAX;
	if (out->new_process) {
		if (tf_grow((void **)&t->pids, &t->cappids, t->npids + 1, sizeof(int64_t)) < 0 ||
		    tf_hmap_put(&t->procs, pkey, t->npids) < 0)
			return TF_ENOMEM;
		pi = t->npids++;
		TF_TRY(id_for(t, ranked || out->pid_is_key, ranked ? tk->rank : v, pid_key, 0, &t->pids[pi]));
	}
	out->process = pi;
	out->pid = t->pids[pi];
	out->tid_is_key = key_int(st, tk->thread_key, max, &v);
	return id_for(t, out->tid_is_key, v, tid_key, out->pid, &out->tid);
}

int tf_tids_extra(tf_tids *t, int64_t pid, int64_t *tid)
{
	return id_for(t, false, 0, tid_key, pid, tid);
}

/* A new lane of the kind, ending at end.  Returns 0 or TF_ENOMEM. */
static int lane_add(tf_lanes *l, bool label, int64_t end)
{
	if (tf_grow((void **)&l->end, &l->cap, l->n + 1, sizeof(int64_t)) < 0 ||
	    tf_grow((void **)&l->label, &l->caplabel, l->n + 1, 1) < 0)
		return TF_ENOMEM;
	l->end[l->n] = end;
	l->label[l->n++] = label;
	return 0;
}

int tf_lanes_pick(tf_lanes *l, bool label, int64_t start, int64_t end, uint32_t *lane, bool *is_new)
{
	/* lane 0 is the track's own, for activities, even when an annotation
	 * comes first (it starts before the kernels inside it) */
	if (label && l->n == 0)
		TF_TRY(lane_add(l, false, INT64_MIN));
	uint32_t k = 0;
	while (k < l->n && (l->end[k] > start || l->label[k] != label))
		k++;
	*is_new = k == l->n;
	if (*is_new)
		TF_TRY(lane_add(l, label, end));
	l->end[k] = end;
	*lane = k;
	return 0;
}

void tf_lanes_free(tf_lanes *l)
{
	free(l->end);
	free(l->label);
	l->end = NULL;
	l->label = NULL;
	l->n = l->cap = l->caplabel = 0;
}

int tf_lane_name(tf_ctx *ctx, uint32_t track, const tf_lanes *l, uint32_t lane, char *buf, size_t n)
{
	const tf_track *t = tf_ctx_track_get(ctx, track);
	tf_str name = t->thread_name ? t->thread_name : t->thread_key;
	const char *s = tf_strtab_get(tf_ctx_strtab(ctx), name);
	bool label = lane < l->n && l->label[lane];
	uint32_t k = 0; /* the lanes of its kind before it */
	for (uint32_t i = label ? 0 : 1; i < lane && i < l->n; i++)
		k += l->label[i] == label;
	if (!label)
		return snprintf(buf, n, "%.500s (overlap %u)", s, k + 1);
	if (!k)
		return snprintf(buf, n, "%.500s annotations", s);
	return snprintf(buf, n, "%.500s annotations (overlap %u)", s, k);
}

void tf_tids_free(tf_tids *t)
{
	tf_hmap_free(&t->procs);
	tf_hmap_free(&t->used);
	free(t->pids);
	t->pids = NULL;
}

int64_t tf_time_shift(tf_ctx *ctx, int64_t ts)
{
	int64_t lo = ts, f;
	if (tf_ctx_first_ns(ctx, &f) && f < lo)
		lo = f;
	return lo < 0 ? lo : 0;
}

int64_t tf_time_shifted(tf_ctx *ctx, bool *have, int64_t *shift, int64_t ts)
{
	if (!*have) {
		*have = true;
		*shift = tf_time_shift(ctx, ts);
	}
	int64_t r = ts;
	if (*shift && __builtin_sub_overflow(ts, *shift, &r))
		r = INT64_MAX;
	return r;
}

int tf_time_refuse(tf_ctx *ctx, const char *out, const char *format, const char *const *inputs, int ninputs,
		   uint32_t track, tf_str name, int64_t ts, int64_t shift, tf_error *err)
{
	const tf_track *t = tf_ctx_track_get(ctx, track);
	tf_strtab *st = tf_ctx_strtab(ctx);
	const char *in = t && t->input < (uint32_t)ninputs ? inputs[t->input] : "?";
	const char *pn = t ? tf_strtab_get(st, t->process_name ? t->process_name : t->process_key) : "?";
	const char *tn = t ? tf_strtab_get(st, t->thread_name ? t->thread_name : t->thread_key) : "?";
	tf_error_set(err, TF_EFORMAT, NULL, -1, -1,
		     "cannot write '%s': '%.200s' of '%s' (process %.100s, thread %.100s) is at %lld ns, before 0 even "
		     "shifted by the %lld ns chosen at the first time written, and %s times cannot be before 0 "
		     "(--window can leave it out, or give the input that starts earliest first)",
		     out, name ? tf_strtab_get(st, name) : "", in, pn, tn, (long long)ts, (long long)-shift, format);
	tf_ctx_fail(ctx, err); /* under the read: the run names the output, not the input */
	return TF_EFORMAT;
}
