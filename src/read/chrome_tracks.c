/* chrome_tracks.c - tracks of the Chrome trace-event reader: (pid, tid) ->
 * track with a one-entry cache, what metadata events say about processes
 * and threads (names, sort order, GPU), which tracks are GPU, the rank of
 * distributedInfo.  Rules for users: docs/format-chrome.md. */
#include <stdlib.h>
#include <string.h>
#include "chrome_int.h"

/* "GPU0", "GPU 1" (rocprofiler's process names, Kineto's process labels),
 * "/device:GPU:0" (the XLA profiler's: JAX, TensorFlow); not Chrome's "GPU
 * Process", whose threads are CPU threads. */
static bool is_gpu_name(const char *t, size_t n)
{
	size_t i = 3;
	if (n > 12 && memcmp(t, "/device:GPU:", 12) == 0)
		return t[12] >= '0' && t[12] <= '9';
	if (n < 4 || memcmp(t, "GPU", 3) != 0)
		return false;
	if (t[i] == ' ' && n > 4)
		i++;
	return t[i] >= '0' && t[i] <= '9';
}

static bool gpu_pid(const tf_chrome *r, tf_str pk)
{
	return tf_hmap_get(&r->gpu_pids, pk) != UINT32_MAX;
}

static int mark_gpu_process(tf_chrome *r, tf_str pk)
{
	if (gpu_pid(r, pk))
		return 0;
	if (tf_hmap_put(&r->gpu_pids, pk, 1) < 0)
		return TF_ENOMEM;
	for (uint32_t id = tf_ctx_process_first(r->ctx, r->input, pk); id != UINT32_MAX;
	     id = tf_ctx_process_next(r->ctx, id))
		tf_ctx_track_get(r->ctx, id)->kind = TF_TRACK_GPU;
	return 0;
}

static tf_chrome_pending *pending_find(tf_chrome *r, tf_str pk, tf_str tk, bool add)
{
	uint64_t key = (uint64_t)pk << 32 | tk;
	uint32_t i = tf_hmap_get(&r->pend_idx, key);
	if (i != UINT32_MAX)
		return &r->pend[i];
	if (!add)
		return NULL;
	if (tf_grow((void **)&r->pend, &r->cappend, r->npend + 1, sizeof(*r->pend)) < 0 ||
	    tf_hmap_put(&r->pend_idx, key, r->npend) < 0)
		return NULL;
	tf_chrome_pending *p = &r->pend[r->npend++];
	memset(p, 0, sizeof(*p));
	p->pk = pk;
	p->tk = tk;
	return p;
}

/* The existing track (input, pk, tk) of this input, or -1. */
static uint32_t track_find(tf_chrome *r, tf_str pk, tf_str tk)
{
	return tf_ctx_track_find(r->ctx, r->input, pk, tk);
}

/* A GPU stream as tracefold's own timelines mark it (docs/chrome-out.md):
 * gpu 1 its activities go under their launches, 2 they nest in place
 * (Score-P's).  Its class keeps tf_chrome_settle_gpu from undoing it. */
static int mark_gpu_stream(tf_chrome *r, uint32_t id, uint8_t gpu)
{
	tf_track *t = tf_ctx_track_get(r->ctx, id);
	t->kind = TF_TRACK_GPU;
	t->gpu_in_place = gpu == 2;
	return tf_chrome_note_class(r, id, CAT_GPU);
}

/* The span's bytes equal the n bytes at t (a short pid or tid: no call;
 * 8 or 4 bytes a compare, the last ones overlapping: legacy traces' pid
 * "CPU functions" byte by byte was 3% of their read, issue 33). */
static inline bool same_text(const tf_json_span *s, const char *t, size_t n)
{
	if (s->n != n)
		return false;
	if (n < 4) {
		for (size_t i = 0; i < n; i++)
			if (s->p[i] != (u8)t[i])
				return false;
		return true;
	}
	if (n < 8) {
		uint32_t a, b, c, d;
		memcpy(&a, s->p, 4);
		memcpy(&b, t, 4);
		memcpy(&c, s->p + n - 4, 4);
		memcpy(&d, t + n - 4, 4);
		return a == b && c == d;
	}
	uint64_t a, b;
	for (size_t i = 0; i + 8 < n; i += 8) {
		memcpy(&a, s->p + i, 8);
		memcpy(&b, t + i, 8);
		if (a != b)
			return false;
	}
	memcpy(&a, s->p + n - 8, 8);
	memcpy(&b, t + n - 8, 8);
	return a == b;
}

/* A pid or tid that is its own text (tf_chrome_text without a copy). */
static inline bool plain(const tf_json_span *s)
{
	return (s->type == TF_JSON_STRING || s->type == TF_JSON_NUMBER) && !s->esc;
}

int tf_chrome_track_for(tf_chrome *r, const tf_json_span *pid, const tf_json_span *tid, uint32_t *out)
{
	const char *pt, *tt;
	size_t pn, tn;
	if (r->tc_valid && plain(pid) && plain(tid) && same_text(pid, r->tc_pid, r->tc_pn) &&
	    same_text(tid, r->tc_tid, r->tc_tn)) {
		*out = r->tc_track; /* the last event's thread (most events) */
		return 0;
	}
	TF_TRY(tf_chrome_text(r, pid, 2, &pt, &pn));
	TF_TRY(tf_chrome_text(r, tid, 3, &tt, &tn));
	if (r->tc_valid && pn == r->tc_pn && tn == r->tc_tn && memcmp(pt, r->tc_pid, pn) == 0 &&
	    memcmp(tt, r->tc_tid, tn) == 0) {
		*out = r->tc_track;
		return 0;
	}
	tf_str pk = pn ? tf_strtab_intern(r->st, pt, pn) : 0;
	tf_str tk = tn ? tf_strtab_intern(r->st, tt, tn) : 0;
	if (pk == (tf_str)-1 || tk == (tf_str)-1)
		return TF_ENOMEM;
	uint32_t before = tf_ctx_track_count(r->ctx);
	uint32_t id = tf_ctx_track(r->ctx, r->input, pk, tk);
	if (id == (uint32_t)-1)
		return TF_ENOMEM;
	if (tf_ctx_track_count(r->ctx) != before) {
		tf_track *t = tf_ctx_track_get(r->ctx, id);
		t->needs_sort = true;
		if (r->rank >= 0)
			t->rank = r->rank;
		if (gpu_pid(r, pk) || (tn > 7 && memcmp(tt, "stream ", 7) == 0))
			t->kind = TF_TRACK_GPU;
		tf_chrome_pending *pt_ = pending_find(r, pk, tk, false);
		if (pt_) {
			if (pt_->has_name)
				t->thread_name = pt_->name;
			if (pt_->has_sort)
				t->sort_index = pt_->sort_index;
			if (pt_->gpu)
				TF_TRY(mark_gpu_stream(r, id, pt_->gpu));
		}
	}
	if (pn <= CACHE_KEY && tn <= CACHE_KEY) {
		memcpy(r->tc_pid, pt, pn);
		memcpy(r->tc_tid, tt, tn);
		r->tc_pn = pn;
		r->tc_tn = tn;
		r->tc_track = id;
		r->tc_valid = true;
	} else {
		r->tc_valid = false;
	}
	*out = id;
	return 0;
}

/* Kineto's categories (current and the capitalized ones of 2021), HIP's */
static const struct { const char *name; int cls; } cat_classes[] = {
	{ "kernel", CAT_GPU },         { "gpu_memcpy", CAT_GPU },      { "gpu_memset", CAT_GPU },
	{ "Kernel", CAT_GPU },         { "Memcpy", CAT_GPU },          { "Memset", CAT_GPU },
	{ "cuda_runtime", CAT_LAUNCH }, { "cuda_driver", CAT_LAUNCH }, { "Runtime", CAT_LAUNCH },
	{ "hip_runtime", CAT_LAUNCH },  { "gpu_user_annotation", CAT_GPU_LABEL },
	{ "python_function", CAT_PYTHON }, { "cpu_op", CAT_CPU },      { "user_annotation", CAT_CPU },
	{ "Operator", CAT_CPU },        { "cuda_sync", CAT_SYNC },
};

int tf_chrome_note_class(tf_chrome *r, uint32_t track, int cls)
{
	uint8_t bit = cls == CAT_GPU || cls == CAT_SYNC || cls == CAT_GPU_LABEL ? 1
		      : cls == CAT_CPU || cls == CAT_LAUNCH || cls == CAT_PYTHON ? 2
									     : 0;
	if (!bit)
		return 0;
	if (tf_grow_n((void **)&r->trkcls, &r->trkcls_cap, (size_t)track + 1, 1, true) < 0)
		return TF_ENOMEM;
	r->trkcls[track] |= bit;
	return 0;
}

void tf_chrome_settle_gpu(tf_chrome *r)
{
	for (size_t i = 0; i < r->trkcls_cap; i++)
		if (r->trkcls[i] == 2) {
			tf_track *t = tf_ctx_track_get(r->ctx, (uint32_t)i);
			if (t && t->input == r->input)
				t->kind = TF_TRACK_CPU;
		}
}

int tf_chrome_cat_class(tf_chrome *r, tf_str cat)
{
	if (cat == 0)
		return CAT_OTHER;
	if (tf_grow_n((void **)&r->catcls, &r->catcls_cap, (size_t)cat + 1, 1, true) < 0)
		return CAT_OTHER;
	if (!r->catcls[cat]) {
		const char *t = tf_strtab_get(r->st, cat);
		r->catcls[cat] = CAT_OTHER;
		for (size_t i = 0; i < sizeof(cat_classes) / sizeof(cat_classes[0]); i++)
			if (strcmp(t, cat_classes[i].name) == 0)
				r->catcls[cat] = (uint8_t)cat_classes[i].cls;
	}
	return r->catcls[cat];
}

int tf_chrome_metadata(tf_chrome *r, const tf_chrome_fields *f)
{
	tf_json_span key, val, aname = { 0 }, asort = { 0 }, alabels = { 0 }, alaunch = { 0 };
	if (f->args.type == TF_JSON_OBJECT) {
		tf_json_iter it;
		tf_json_iter_begin(&it, &f->args);
		while (tf_json_iter_next(&it, &key, &val)) {
			if (tf_json_is(&key, "name"))
				aname = val;
			else if (tf_json_is(&key, "sort_index"))
				asort = val;
			else if (tf_json_is(&key, "labels"))
				alabels = val;
			else if (tf_json_is(&key, "launches"))
				alaunch = val;
		}
	}
	if (asort.type == TF_JSON_NONE)
		asort = f->sort_index; /* rocprofiler writes it beside args */
	const tf_json_span *nm = &f->name;
	bool pname = tf_json_is(nm, "process_name"), tname = tf_json_is(nm, "thread_name");
	bool tsort = tf_json_is(nm, "thread_sort_index"), plabels = tf_json_is(nm, "process_labels");
	bool gstream = tf_json_is(nm, "tracefold_gpu_stream");
	if (!(pname || tname || tsort || plabels || gstream))
		return 0;
	const char *pt;
	size_t pn;
	TF_TRY(tf_chrome_text(r, &f->pid, 2, &pt, &pn));
	tf_str pk = pn ? tf_strtab_intern(r->st, pt, pn) : 0;
	if (pk == (tf_str)-1)
		return TF_ENOMEM;
	if (pname && aname.type == TF_JSON_STRING) {
		tf_str v;
		TF_TRY(tf_chrome_intern(r, &aname, 0, &v));
		tf_ctx_set_process_name(r->ctx, r->input, pk, v);
		const char *vt = tf_strtab_get(r->st, v);
		if (!strncmp(vt, "/device:", 8) || !strncmp(vt, "/host:", 6))
			r->xla = true; /* the XLA profiler's planes */
		if (is_gpu_name(tf_strtab_get(r->st, v), tf_strtab_len(r->st, v)))
			TF_TRY(mark_gpu_process(r, pk));
	}
	if (plabels && alabels.type == TF_JSON_STRING && !alabels.esc &&
	    is_gpu_name((const char *)alabels.p, alabels.n))
		TF_TRY(mark_gpu_process(r, pk));
	int64_t si = 0, launches = 0;
	bool has_sort = tsort && tf_json_i64(&asort, &si);
	bool has_gpu = gstream && tf_json_i64(&alaunch, &launches);
	if ((tname && aname.type == TF_JSON_STRING) || has_sort || has_gpu) {
		tf_str tk, v = 0;
		TF_TRY(tf_chrome_intern(r, &f->tid, 3, &tk));
		if (tname)
			TF_TRY(tf_chrome_intern(r, &aname, 0, &v));
		tf_chrome_pending *p = pending_find(r, pk, tk, true);
		if (!p)
			return TF_ENOMEM;
		if (tname) {
			p->name = v;
			p->has_name = true;
		} else if (has_gpu) {
			p->gpu = launches ? 1 : 2;
		} else {
			p->sort_index = si;
			p->has_sort = true;
		}
		uint32_t id = track_find(r, pk, tk);
		if (id != (uint32_t)-1) {
			tf_track *t = tf_ctx_track_get(r->ctx, id);
			if (tname)
				t->thread_name = v;
			else if (has_gpu)
				TF_TRY(mark_gpu_stream(r, id, p->gpu));
			else
				t->sort_index = si;
		}
	}
	return 0;
}

void tf_chrome_set_rank(tf_chrome *r, const tf_json_span *obj)
{
	tf_json_iter it;
	tf_json_span k, v;
	int64_t rank;
	tf_json_iter_begin(&it, obj);
	while (tf_json_iter_next(&it, &k, &v)) {
		if (tf_json_is(&k, "rank") && tf_json_i64(&v, &rank)) {
			r->rank = rank;
			uint32_t nt = tf_ctx_track_count(r->ctx);
			for (uint32_t i = 0; i < nt; i++) {
				tf_track *t = tf_ctx_track_get(r->ctx, i);
				if (t->input == r->input)
					t->rank = rank;
			}
		}
	}
}
