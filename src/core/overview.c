/* overview.c - the overview's span consumer (docs/overview.md): per rank,
 * the CPU time inside each step region of its main thread, the GPU
 * activities (kept until the end: the union over a device's streams needs
 * them all), the collective calls, the MPI messages and time in MPI.
 * overview_finish.c matches and computes. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "tracefold/overview.h"
#include "tracefold/coll.h"
#include "overview_int.h"
#include "grow.h"
#include "sat.h"

const char *const tf_ov_bound_names[4] = { "cpu", "gpu", "launch", "other" };
const char *const tf_ov_wait_names[TF_OV_NWAIT] = { "late_sender", "late_receiver", "coll_wait" };

static bool has_ci(const char *s, size_t n, const char *needle)
{
	size_t k = strlen(needle);
	for (size_t i = 0; i + k <= n; i++)
		if (strncasecmp(s + i, needle, k) == 0)
			return true;
	return false;
}

/* The class a GPU activity's name gives on its own (the words searched
 * for, in docs/overview.md's order). */
static int name_class(const char *name, size_t n)
{
	static const char *const comm[] = { "nccl", "rccl", "msccl", "gloo", "all_reduce", "allreduce",
		"all-reduce", "all_gather", "allgather", "all-gather", "reduce_scatter", "reducescatter",
		"reduce-scatter", "all_to_all", "alltoall", "all-to-all", "collective-permute", "sendrecv" };
	if (has_ci(name, n, "memcpy"))
		return TF_OV_GPU_MEMCPY;
	if (has_ci(name, n, "memset"))
		return TF_OV_GPU_MEMSET;
	for (size_t i = 0; i < sizeof(comm) / sizeof(comm[0]); i++)
		if (has_ci(name, n, comm[i]))
			return TF_OV_GPU_COMM;
	return TF_OV_GPU_COMPUTE;
}

/* The class from the name's and the category's: a memcpy by either, then
 * a memset by either, then what the name says. */
static int combine_class(int by_name, const char *cat, size_t ncat)
{
	if (by_name == TF_OV_GPU_MEMCPY || (ncat == 10 && !memcmp(cat, "gpu_memcpy", 10)))
		return TF_OV_GPU_MEMCPY;
	if (by_name == TF_OV_GPU_MEMSET || (ncat == 10 && !memcmp(cat, "gpu_memset", 10)))
		return TF_OV_GPU_MEMSET;
	return by_name;
}

int tf_ov_gpu_class(const char *name, size_t n, const char *cat, size_t ncat)
{
	return combine_class(name_class(name, n), cat, ncat);
}

/* tf_ov_gpu_class of an interned name, its name's part found once per
 * name: a trace repeats its kernels' names (the case-insensitive search
 * of 20 words at every offset was most of an overview's instructions).
 * -1: out of memory. */
static int gpu_class_of(tf_ov *v, tf_str id, const char *name, size_t n, const char *cat, size_t ncat)
{
	if (tf_grow_n((void **)&v->name_class, &v->capname_class, (size_t)id + 1, 1, true) < 0)
		return -1;
	if (!v->name_class[id])
		v->name_class[id] = (uint8_t)(name_class(name, n) + 1);
	return combine_class(v->name_class[id] - 1, cat, ncat);
}

int64_t tf_ov_rank_of_path(const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	int64_t found = -1;
	for (const char *p = base; *p; p++) {
		if (strncasecmp(p, "rank", 4))
			continue;
		const char *q = p + 4;
		if (*q == '-' || *q == '_')
			q++;
		if (*q < '0' || *q > '9')
			continue;
		int64_t r = 0;
		while (*q >= '0' && *q <= '9' && r < INT64_MAX / 10 - 10)
			r = r * 10 + (*q++ - '0');
		found = r;
	}
	return found;
}

uint32_t tf_ov_step_of(const tf_ov *v, uint32_t input, int64_t rank, int64_t ts)
{
	size_t i = tf_step_find(v->o.steps, v->o.nsteps, input, rank, ts);
	return i == SIZE_MAX ? OV_NO_STEP : (uint32_t)i;
}

int tf_ov_add_wait(tf_ov *v, uint32_t node, int kind, int64_t ns)
{
	if (ns <= 0)
		return 0;
	uint64_t key = tf_mix64((uint64_t)node << 8 | (uint64_t)kind);
	uint32_t i = tf_hmap_get(&v->waits, key);
	if (i == UINT32_MAX) {
		i = (uint32_t)v->res.nwaits;
		if (tf_grow((void **)&v->res.waits, &v->capwaits, i + 1, sizeof(tf_ov_wait)) < 0 ||
		    tf_hmap_put(&v->waits, key, i) < 0)
			return TF_ENOMEM;
		v->res.waits[i] = (tf_ov_wait){ .node = node, .kind = (uint8_t)kind };
		v->res.nwaits++;
	}
	v->res.waits[i].ns = tf_sat_add(v->res.waits[i].ns, ns);
	return 0;
}

static uint32_t rank_index(tf_ov *v, int64_t rank, uint32_t input)
{
	uint64_t key = tf_mix64((uint64_t)rank);
	uint32_t i = tf_hmap_get(&v->rank_idx, key);
	if (i != UINT32_MAX)
		return i;
	i = v->nranks;
	if (tf_grow((void **)&v->ranks, &v->capranks, i + 1, sizeof(ov_rank)) < 0 ||
	    tf_hmap_put(&v->rank_idx, key, i) < 0)
		return UINT32_MAX;
	v->ranks[i] = (ov_rank){ .rank = rank, .input = input, .min_ns = INT64_MAX, .max_ns = INT64_MIN };
	v->nranks++;
	return i;
}

static uint32_t device_index(tf_ov *v, const tf_track *t, uint32_t rank)
{
	uint64_t key = tf_mix64(((uint64_t)t->input << 32) ^ t->process_key);
	uint32_t i = tf_hmap_get(&v->device_idx, key);
	if (i != UINT32_MAX)
		return i;
	i = v->ndevices;
	if (tf_grow((void **)&v->device_rank, &v->capdevice_rank, i + 1, sizeof(uint32_t)) < 0 ||
	    tf_hmap_put(&v->device_idx, key, i) < 0)
		return UINT32_MAX;
	v->device_rank[i] = rank;
	v->ranks[rank].devices++;
	v->ndevices++;
	return i;
}

/* The overview's view of a track, made when first met. */
static ov_track *track_get(tf_ov *v, uint32_t id)
{
	if (id >= v->ntracks) {
		if (tf_grow_n((void **)&v->tracks, &v->captracks, (size_t)id + 1, sizeof(ov_track), true) < 0)
			return NULL;
		v->ntracks = id + 1;
	}
	ov_track *ot = &v->tracks[id];
	if (ot->known)
		return ot;
	const tf_track *t = tf_ctx_track_get(v->ctx, id);
	if (!t)
		return NULL;
	int64_t rank = t->rank;
	uint32_t in = t->input - v->o.first_input;
	if (rank < 0)
		rank = v->o.input_rank && in < v->o.ninputs ? v->o.input_rank[in] : (int64_t)in;
	ot->rank = rank_index(v, rank, t->input);
	if (ot->rank == UINT32_MAX)
		return NULL;
	ot->gpu = t->kind == TF_TRACK_GPU;
	if (ot->gpu) {
		ot->device = device_index(v, t, ot->rank);
		if (ot->device == UINT32_MAX)
			return NULL;
	} else {
		v->ranks[ot->rank].threads++;
	}
	ot->known = true;
	return ot;
}

static const char *str(const tf_ov *v, tf_str id, size_t *n)
{
	const tf_strtab *st = tf_ctx_strtab(v->ctx);
	*n = tf_strtab_len(st, id);
	return tf_strtab_get(st, id);
}

/* The key of a collective call region, 0 when the region is none. */
static tf_str coll_key(tf_ov *v, const tf_span *s)
{
	static const char *const mpi[] = { "Allreduce", "Reduce", "Bcast", "Barrier", "Allgather", "Allgatherv",
		"Alltoall", "Alltoallv", "Alltoallw", "Gather", "Gatherv", "Scatter", "Scatterv", "Reduce_scatter",
		"Reduce_scatter_block", "Scan", "Exscan" };
	size_t n;
	const char *name = str(v, s->name, &n);
	const char *op = NULL;
	size_t nop = 0;
	if (n > 6 && !memcmp(name, "c10d::", 6))
		op = name + 6, nop = n - 6;
	else if (n > 5 && !memcmp(name, "nccl:", 5))
		op = name + 5, nop = n - 5;
	else if (n == 18 && !memcmp(name, "record_param_comms", 18))
		op = name, nop = n;
	else if (n > 4 && !memcmp(name, "MPI_", 4)) {
		size_t k = 4; /* TAU writes "MPI_Allreduce()" */
		while (k < n && name[k] != '(' && name[k] != ' ')
			k++;
		for (size_t i = 0; i < sizeof(mpi) / sizeof(mpi[0]); i++)
			if (strlen(mpi[i]) == k - 4 && !strncasecmp(name + 4, mpi[i], k - 4))
				op = name + 4, nop = k - 4;
	}
	if (!op)
		return 0;
	const tf_coll_facts *f = NULL;
	tf_coll *c = tf_ctx_coll(v->ctx, false);
	if (c)
		f = tf_coll_get(c, tf_coll_find(c, s->track, s->start_ns, s->name));
	char buf[192];
	size_t k;
	if (f && f->name) {
		size_t fn;
		const char *fs = str(v, f->name, &fn);
		k = (size_t)snprintf(buf, sizeof buf, "%.*s", (int)(fn < 120 ? fn : 120), fs);
	} else {
		k = tf_coll_normalize(op, nop, buf, 128);
	}
	if (f && f->pg && k < 128) {
		size_t pn;
		const char *ps = str(v, f->pg, &pn);
		k += (size_t)snprintf(buf + k, sizeof buf - k, "@%.*s", (int)(pn < 60 ? pn : 60), ps);
	}
	return tf_strtab_intern(tf_ctx_strtab(v->ctx), buf, k < sizeof buf ? k : sizeof buf - 1);
}

static int ov_open(tf_span_sink *k, const tf_span *s)
{
	tf_ov *v = tf_container_of(k, tf_ov, sink);
	ov_track *ot = track_get(v, s->track);
	if (!ot)
		return TF_ENOMEM;
	if (s->kind != TF_SPAN_KIND_CPU || ot->gpu)
		return 0;
	if (tf_grow((void **)&ot->open, &ot->capopen, s->depth, sizeof(struct ov_open)) < 0)
		return TF_ENOMEM;
	if (s->depth == 0 || s->depth > ot->capopen)
		return 0;
	ot->nopen = s->depth;
	ot->open[s->depth - 1] = (struct ov_open){ .start = s->start_ns };
	size_t n;
	const char *name = str(v, s->name, &n);
	if (!ot->coll_depth && coll_key(v, s))
		ot->coll_depth = s->depth;
	if (!ot->gloo_depth && n > 5 && !memcmp(name, "gloo:", 5))
		ot->gloo_depth = s->depth;
	if (!ot->mpi_depth && n > 4 && !memcmp(name, "MPI_", 4))
		ot->mpi_depth = s->depth;
	return 0;
}

/* A step region: the outermost region of a track that starts where the
 * step does (regions of one start close inner first: a shallower one
 * closing later takes the step over). */
static void note_step_region(tf_ov *v, ov_track *ot, uint32_t track, const tf_span *s)
{
	const tf_track *t = tf_ctx_track_get(v->ctx, track);
	uint32_t i = tf_ov_step_of(v, t->input, t->rank, s->start_ns);
	if (i == OV_NO_STEP || v->o.steps[i].start_ns != s->start_ns)
		return;
	if (v->step_track[i] != UINT32_MAX && (v->step_track[i] != track || v->step_depth[i] <= s->depth))
		return;
	v->step_cpu[i] = ot->open[s->depth - 1].child_ns;
	v->step_track[i] = track;
	v->step_depth[i] = s->depth;
	ot->had_step = true;
}

static int close_call(tf_ov *v, ov_track *ot, const tf_span *s)
{
	tf_str key = coll_key(v, s);
	const tf_track *t = tf_ctx_track_get(v->ctx, s->track);
	if (tf_grow_n((void **)&v->calls, &v->capcalls, v->ncalls + 1, sizeof(ov_call), false) < 0)
		return TF_ENOMEM;
	v->calls[v->ncalls++] = (ov_call){ .key = key, .rank = ot->rank, .node = s->node, .start = s->start_ns,
		.end = s->end_ns, .step = tf_ov_step_of(v, t->input, t->rank, s->start_ns) };
	return 0;
}

static int ov_close(tf_span_sink *k, const tf_span *s)
{
	tf_ov *v = tf_container_of(k, tf_ov, sink);
	ov_track *ot = track_get(v, s->track);
	if (!ot)
		return TF_ENOMEM;
	ov_rank *r = &v->ranks[ot->rank];
	if (s->start_ns < r->min_ns)
		r->min_ns = s->start_ns;
	if (s->end_ns > r->max_ns)
		r->max_ns = s->end_ns;
	r->any_time = true;
	if (s->kind == TF_SPAN_KIND_GPU) {
		const tf_track *t = tf_ctx_track_get(v->ctx, s->track);
		size_t n, nc;
		const char *name = str(v, s->name, &n), *cat = str(v, s->cat, &nc);
		if (nc == 9 && !memcmp(cat, "cuda_sync", 9)) /* Kineto's stream and context syncs: waits, no activity */
			return 0;
		int64_t at = s->launch_ns != TF_SPAN_END_UNKNOWN ? s->launch_ns : s->start_ns;
		int cls = gpu_class_of(v, s->name, name, n, cat, nc);
		if (cls < 0 || tf_grow_n((void **)&v->acts, &v->capacts, v->nacts + 1, sizeof(ov_act), false) < 0)
			return TF_ENOMEM;
		v->acts[v->nacts++] = (ov_act){ .start = s->start_ns, .end = s->end_ns, .device = ot->device,
			.step = tf_ov_step_of(v, t->input, t->rank, at), .cat = (uint8_t)cls };
		return 0;
	}
	if (s->kind != TF_SPAN_KIND_CPU || ot->gpu || s->depth == 0 || s->depth > ot->nopen)
		return 0;
	int64_t dur = s->end_ns > s->start_ns ? tf_sat_sub(s->end_ns, s->start_ns) : 0;
	if (s->depth == 1)
		ot->depth1_ns = tf_sat_add(ot->depth1_ns, dur);
	else
		ot->open[s->depth - 2].child_ns = tf_sat_add(ot->open[s->depth - 2].child_ns, dur);
	if (v->o.nsteps)
		note_step_region(v, ot, s->track, s);
	while (ot->npending && v->msgs[ot->pending[ot->npending - 1]].depth >= s->depth) {
		ov_msg *m = &v->msgs[ot->pending[--ot->npending]];
		m->end = s->end_ns;
	}
	if (ot->coll_depth == s->depth) {
		ot->coll_depth = 0;
		TF_TRY(close_call(v, ot, s));
	}
	if (ot->gloo_depth == s->depth) { /* gloo's worker ran the call: its end is the call's */
		ot->gloo_depth = 0;
		size_t n;
		const char *name = str(v, s->name, &n);
		char buf[128];
		size_t kn = tf_coll_normalize(name + 5, n - 5, buf, sizeof buf);
		if (tf_grow_n((void **)&v->gloo, &v->capgloo, v->ngloo + 1, sizeof(ov_call), false) < 0)
			return TF_ENOMEM;
		v->gloo[v->ngloo++] = (ov_call){ .key = tf_strtab_intern(tf_ctx_strtab(v->ctx), buf, kn),
			.rank = ot->rank, .start = s->start_ns, .end = s->end_ns };
	}
	if (ot->mpi_depth == s->depth) {
		ot->mpi_depth = 0;
		r->mpi_ns = tf_sat_add(r->mpi_ns, dur);
		const tf_track *t = tf_ctx_track_get(v->ctx, s->track);
		uint32_t i = tf_ov_step_of(v, t->input, t->rank, s->start_ns);
		v->mpi = true;
		if (i != OV_NO_STEP)
			v->step_mpi[i] = tf_sat_add(v->step_mpi[i], dur);
	}
	ot->nopen = s->depth - 1;
	return 0;
}

static void tel_add(ov_tel *t, int which, double x)
{
	if (which == 0) {
		t->util += x;
		t->nutil++;
	} else {
		t->power += x;
		t->npower++;
	}
}

/* A counter of a telemetry track (docs/telemetry.md): gpu.utilization and
 * gpu.power summed into the steps that hold it, of every (input, rank),
 * and into the whole run of each rank without steps.  Telemetry is read
 * after the traces, so the ranks' spans are known by then. */
static int tel_counter(tf_ov *v, const tf_event *ev)
{
	const tf_track *t = tf_ctx_track_get(v->ctx, ev->track);
	size_t n;
	const char *k = t ? str(v, t->process_key, &n) : NULL;
	if (!k || n < 10 || memcmp(k, "telemetry ", 10) != 0)
		return 0;
	const char *name = str(v, ev->name, &n);
	int which = n == 15 && !memcmp(name, "gpu.utilization", 15) ? 0 : n == 9 && !memcmp(name, "gpu.power", 9) ? 1 : -1;
	if (which < 0)
		return 0;
	v->telemetry = true;
	for (size_t g = 0; g < v->ngroups; g++) {
		size_t a = v->groups[g], b = v->groups[g + 1];
		const tf_step *s = &v->o.steps[a];
		size_t i = tf_step_find(s, b - a, s->input, s->rank, ev->ts_ns);
		if (i != SIZE_MAX)
			tel_add(&v->tel_step[a + i], which, ev->value);
	}
	if (tf_grow_n((void **)&v->tel_rank, &v->captel_rank, v->nranks + 1, sizeof(ov_tel), true) < 0)
		return TF_ENOMEM;
	for (uint32_t r = 0; r < v->nranks; r++) {
		const ov_rank *rk = &v->ranks[r];
		if (!rk->has_steps && rk->any_time && ev->ts_ns >= rk->min_ns && ev->ts_ns <= rk->max_ns)
			tel_add(&v->tel_rank[r], which, ev->value);
	}
	return 0;
}

void tf_ov_tel_rows(tf_ov *v)
{
	v->res.telemetry = v->telemetry;
	for (size_t i = 0; i < v->nrows; i++) {
		ov_row *w = &v->rows[i];
		const ov_tel *t = w->step != OV_NO_STEP ? (v->tel_step ? &v->tel_step[w->step] : NULL)
			          : w->rank < v->captel_rank ? &v->tel_rank[w->rank] : NULL;
		w->s.gpu_util = t && t->nutil ? t->util / t->nutil : -1;
		w->s.gpu_power = t && t->npower ? t->power / t->npower : -1;
	}
}

static int ov_event(tf_span_sink *k, const tf_event *ev, uint32_t node)
{
	tf_ov *v = tf_container_of(k, tf_ov, sink);
	if (ev->kind == TF_EV_COUNTER)
		return tel_counter(v, ev);
	if (ev->kind != TF_EV_SEND && ev->kind != TF_EV_RECV)
		return 0;
	ov_track *ot = track_get(v, ev->track);
	if (!ot)
		return TF_ENOMEM;
	v->mpi = true;
	if (tf_grow_n((void **)&v->msgs, &v->capmsgs, v->nmsgs + 1, sizeof(ov_msg), false) < 0 ||
	    tf_grow((void **)&ot->pending, &ot->cappending, ot->npending + 1, sizeof(uint32_t)) < 0)
		return TF_ENOMEM;
	uint32_t depth = ot->nopen;
	int64_t start = depth ? ot->open[depth - 1].start : ev->ts_ns;
	v->msgs[v->nmsgs] = (ov_msg){ .rank = v->ranks[ot->rank].rank, .peer = ev->msg.peer, .tag = ev->msg.tag,
		.comm = ev->msg.comm, .ts = ev->ts_ns, .start = start, .end = ev->ts_ns, .node = node,
		.track = ev->track, .depth = depth, .rank_idx = ot->rank, .send = ev->kind == TF_EV_SEND };
	if (depth)
		ot->pending[ot->npending++] = (uint32_t)v->nmsgs;
	v->nmsgs++;
	return 0;
}

int tf_ov_absorb(tf_ov *dst, tf_ov *src, uint32_t (*node_map)(void *arg, uint32_t node), void *arg)
{
	TF_TRY(tf_ov_local(src));
	TF_TRY(tf_ov_local(dst));
	uint32_t *rmap = malloc((src->nranks + 1) * sizeof(uint32_t));
	if (!rmap)
		return TF_ENOMEM;
	int rc = 0;
	for (uint32_t i = 0; i < src->nranks && rc == 0; i++) {
		const ov_rank *s = &src->ranks[i];
		uint32_t d = rmap[i] = rank_index(dst, s->rank, s->input);
		if (d == UINT32_MAX) {
			rc = TF_ENOMEM;
			break;
		}
		ov_rank *r = &dst->ranks[d];
		r->threads += s->threads;
		r->devices += s->devices;
		r->mpi_ns = tf_sat_add(r->mpi_ns, s->mpi_ns);
		r->has_steps |= s->has_steps;
		r->main_track = UINT32_MAX;
		if (s->any_time) {
			r->min_ns = s->min_ns < r->min_ns ? s->min_ns : r->min_ns;
			r->max_ns = s->max_ns > r->max_ns ? s->max_ns : r->max_ns;
			r->any_time = true;
		}
	}
	if (rc == 0 && (tf_grow_n((void **)&dst->rows, &dst->caprows, dst->nrows + src->nrows, sizeof(ov_row), false) < 0 ||
			tf_grow_n((void **)&dst->calls, &dst->capcalls, dst->ncalls + src->ncalls, sizeof(ov_call), false) < 0 ||
			tf_grow_n((void **)&dst->msgs, &dst->capmsgs, dst->nmsgs + src->nmsgs, sizeof(ov_msg), false) < 0))
		rc = TF_ENOMEM;
	for (size_t i = 0; i < src->nrows && rc == 0; i++) {
		ov_row w = src->rows[i];
		w.rank = rmap[w.rank];
		w.step = OV_NO_STEP; /* src's step list: not dst's */
		dst->rows[dst->nrows++] = w;
	}
	for (size_t i = 0; i < src->ncalls && rc == 0; i++) {
		ov_call c = src->calls[i];
		size_t n;
		const char *k = str(src, c.key, &n);
		c.key = tf_strtab_intern(tf_ctx_strtab(dst->ctx), k, n);
		c.node = node_map(arg, c.node);
		c.rank = rmap[c.rank];
		c.step = OV_NO_STEP;
		if (c.key == (tf_str)-1 || c.node == UINT32_MAX)
			rc = TF_ENOMEM;
		dst->calls[dst->ncalls++] = c;
	}
	for (size_t i = 0; i < src->nmsgs && rc == 0; i++) {
		ov_msg m = src->msgs[i];
		m.node = node_map(arg, m.node);
		m.rank_idx = rmap[m.rank_idx];
		m.track = UINT32_MAX;
		if (m.node == UINT32_MAX)
			rc = TF_ENOMEM;
		dst->msgs[dst->nmsgs++] = m;
	}
	dst->mpi |= src->mpi;
	free(rmap);
	return rc;
}

static int ov_end_input(tf_span_sink *k, uint32_t input)
{
	return tf_ov_input_done(tf_container_of(k, tf_ov, sink), input);
}

tf_ov *tf_ov_new(tf_ctx *ctx, const tf_ov_opts *o)
{
	tf_ov *v = calloc(1, sizeof *v);
	if (!v)
		return NULL;
	v->ctx = ctx;
	v->o = *o;
	v->sink.open = ov_open;
	v->sink.close = ov_close;
	v->sink.event = ov_event;
	v->sink.end_input = ov_end_input;
	v->sink.event_kinds = 1u << TF_EV_SEND | 1u << TF_EV_RECV | 1u << TF_EV_COUNTER;
	if (o->nsteps) {
		v->tel_step = calloc(o->nsteps, sizeof(ov_tel));
		v->groups = malloc((o->nsteps + 1) * sizeof(size_t));
		if (!v->tel_step || !v->groups) {
			tf_ov_free(v);
			return NULL;
		}
		for (size_t i = 0; i < o->nsteps; i++)
			if (i == 0 || o->steps[i].input != o->steps[i - 1].input || o->steps[i].rank != o->steps[i - 1].rank)
				v->groups[v->ngroups++] = i;
		v->groups[v->ngroups] = o->nsteps;
		v->step_cpu = malloc(o->nsteps * sizeof(int64_t));
		v->step_track = malloc(o->nsteps * sizeof(uint32_t));
		v->step_mpi = calloc(o->nsteps, sizeof(int64_t));
		v->step_depth = calloc(o->nsteps, sizeof(uint32_t));
		if (!v->step_cpu || !v->step_track || !v->step_mpi || !v->step_depth) {
			tf_ov_free(v);
			return NULL;
		}
		for (size_t i = 0; i < o->nsteps; i++) {
			v->step_cpu[i] = -1;
			v->step_track[i] = UINT32_MAX;
		}
	}
	return v;
}

tf_span_sink *tf_ov_spans(tf_ov *v)
{
	return &v->sink;
}

void tf_ov_free(tf_ov *v)
{
	if (!v)
		return;
	for (uint32_t i = 0; i < v->ntracks; i++) {
		free(v->tracks[i].open);
		free(v->tracks[i].pending);
	}
	free(v->tracks);
	free(v->ranks);
	tf_hmap_free(&v->rank_idx);
	tf_hmap_free(&v->device_idx);
	tf_hmap_free(&v->waits);
	tf_hmap_free(&v->by_step);
	free(v->device_rank);
	free(v->acts);
	free(v->name_class);
	free(v->calls);
	free(v->gloo);
	free(v->msgs);
	free(v->step_cpu);
	free(v->step_track);
	free(v->step_mpi);
	free(v->step_depth);
	free(v->tel_step);
	free(v->tel_rank);
	free(v->groups);
	free(v->rows);
	free(v->res.ranks);
	free(v->res.steps);
	free(v->res.stragglers);
	free(v->res.waits);
	free(v);
}
