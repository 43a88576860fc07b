/* otf2_defs.c - the OTF2 reader's global definitions (strings, clock,
 * regions, locations, location groups, groups, communicators, metrics)
 * read through libotf2, and what is resolved from them: region names,
 * ranks, communicators' world ranks, metric member names, one track per
 * location.  Facts relied on: docs/format-otf2.md. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "otf2.h"

/* ---------------------------------------------------------------- id maps */

static int idmap_put(idmap *m, uint64_t k, uint32_t v)
{
	return tf_hmap_put(m, k, v) < 0 ? TF_ENOMEM : 0;
}

#define idmap_free tf_hmap_free
#define VEC_ROOM(v, n, cap) (tf_grow_n((void **)&(v), &(cap), (size_t)(n) + 1, sizeof(*(v)), false) < 0 ? TF_ENOMEM : 0)

void tf_otf2_rd_free(rd *r)
{
	for (size_t i = 0; i < r->nstrs; i++)
		free(r->strs[i]);
	free(r->strs);
	idmap_free(&r->str_ids);
	free(r->region_names);
	free(r->region_str);
	free(r->region_dense);
	idmap_free(&r->region_ids);
	free(r->locs);
	idmap_free(&r->loc_ids);
	free(r->lgroups);
	idmap_free(&r->lgroup_ids);
	for (size_t i = 0; i < r->ngroups; i++)
		free(r->groups[i].members);
	free(r->groups);
	idmap_free(&r->group_ids);
	for (size_t i = 0; i < r->ncomms; i++)
		free(r->comms[i].world);
	free(r->comms);
	idmap_free(&r->comm_ids);
	free(r->member_names);
	idmap_free(&r->member_ids);
	for (size_t i = 0; i < r->nmetrics; i++) {
		free(r->metrics[i].members);
		free(r->metrics[i].names);
	}
	free(r->metrics);
	free(r->attrs);
	free(r->lprops);
	idmap_free(&r->metric_ids);
}

/* ------------------------------------------------------------------ clock */

void tf_otf2_clock_set(rd *r, uint64_t res, uint64_t off)
{
	if (res == 0)
		res = 1000000000ull; /* no usable clock: ticks are taken as ns */
	r->res = res;
	r->off = off;
	r->mul = 0;
	if (1000000000ull % res == 0) {
		r->mul = 1000000000ull / res;
		r->mul_max = (uint64_t)INT64_MAX / r->mul;
	}
	r->fast = res <= UINT64_MAX / 1000000000ull;
	r->magic = UINT64_MAX / res;
}

/* --------------------------------------------------- global def callbacks */

#define DEF_CB(r) rd *r = ud
#define DEF_FAIL(r, code) do { (r)->rc = (code); return OTF2_CALLBACK_INTERRUPT; } while (0)

static OTF2_CallbackCode def_string(void *ud, OTF2_StringRef self, const char *s)
{
	DEF_CB(r);
	uint32_t i = idmap_get(&r->str_ids, self);
	char *c = strdup(s ? s : "");
	if (!c)
		DEF_FAIL(r, TF_ENOMEM);
	if (i != IDMAP_NONE) {
		free(r->strs[i]);
		r->strs[i] = c;
		return OTF2_CALLBACK_SUCCESS;
	}
	if (VEC_ROOM(r->strs, r->nstrs, r->capstrs) < 0 ||
	    idmap_put(&r->str_ids, self, (uint32_t)r->nstrs) < 0) {
		free(c);
		DEF_FAIL(r, TF_ENOMEM);
	}
	r->strs[r->nstrs++] = c;
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_clock(void *ud, uint64_t res, uint64_t off, uint64_t len, uint64_t realtime)
{
	DEF_CB(r);
	r->clock_seen = true;
	r->res_given = res;
	tf_otf2_clock_set(r, res, off);
	/* OTF2 3.0: the wall-clock ns of globalOffset, the trace's time 0
	 * (event times have the offset removed): telemetry is put on the
	 * trace's clock by it (docs/telemetry.md) */
	if (realtime != OTF2_UNDEFINED_TIMESTAMP && realtime <= (uint64_t)INT64_MAX)
		tf_ctx_set_wall_base(r->ctx, (int64_t)realtime, r->path, "OTF2 ClockProperties realtimeTimestamp");
	return OTF2_CALLBACK_SUCCESS;
}

/* Attributes: only tracefold's own matter (docs/otf2-out.md); their names
 * are looked up once every string is known (resolve_attrs). */
static OTF2_CallbackCode def_attribute(void *ud, OTF2_AttributeRef self, OTF2_StringRef name, OTF2_StringRef descr,
				       OTF2_Type type)
{
	DEF_CB(r);
	(void)descr;
	if (type != OTF2_TYPE_UINT64 && type != OTF2_TYPE_UINT8)
		return OTF2_CALLBACK_SUCCESS;
	if (VEC_ROOM(r->attrs, r->nattrs, r->capattrs) < 0)
		DEF_FAIL(r, TF_ENOMEM);
	r->attrs[r->nattrs++] = (uint64_t)self << 32 | name;
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_location_property(void *ud, OTF2_LocationRef loc, OTF2_StringRef name, OTF2_Type type,
					       OTF2_AttributeValue value)
{
	DEF_CB(r);
	(void)type, (void)value;
	if (tf_grow_n((void **)&r->lprops, &r->caplprops, r->nlprops + 2, sizeof(uint64_t), false) < 0)
		DEF_FAIL(r, TF_ENOMEM);
	r->lprops[r->nlprops++] = loc;
	r->lprops[r->nlprops++] = name;
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_region(void *ud, OTF2_RegionRef self, OTF2_StringRef name,
				    OTF2_StringRef canonical, OTF2_StringRef descr, OTF2_RegionRole role,
				    OTF2_Paradigm paradigm, OTF2_RegionFlag flags, OTF2_StringRef file,
				    uint32_t begin, uint32_t end)
{
	DEF_CB(r);
	uint32_t i = idmap_get(&r->region_ids, self);
	if (i == IDMAP_NONE) {
		if (VEC_ROOM(r->region_names, r->nregions, r->capregions) < 0 ||
		    idmap_put(&r->region_ids, self, (uint32_t)r->nregions) < 0)
			DEF_FAIL(r, TF_ENOMEM);
		i = (uint32_t)r->nregions++;
	}
	r->region_names[i] = name;
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_location(void *ud, OTF2_LocationRef self, OTF2_StringRef name,
				      OTF2_LocationType type, uint64_t nevents, OTF2_LocationGroupRef group)
{
	DEF_CB(r);
	uint32_t i = idmap_get(&r->loc_ids, self);
	if (i == IDMAP_NONE) {
		if (VEC_ROOM(r->locs, r->nlocs, r->caplocs) < 0 ||
		    idmap_put(&r->loc_ids, self, (uint32_t)r->nlocs) < 0)
			DEF_FAIL(r, TF_ENOMEM);
		i = (uint32_t)r->nlocs++;
	}
	r->locs[i] = (d_loc){ .id = self, .name = name, .group = group, .type = (uint8_t)type,
				.nevents = nevents, .rank = -1 };
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_lgroup(void *ud, OTF2_LocationGroupRef self, OTF2_StringRef name,
				    OTF2_LocationGroupType type, OTF2_SystemTreeNodeRef parent,
				    OTF2_LocationGroupRef creator)
{
	DEF_CB(r);
	uint32_t i = idmap_get(&r->lgroup_ids, self);
	if (i == IDMAP_NONE) {
		if (VEC_ROOM(r->lgroups, r->nlgroups, r->caplgroups) < 0 ||
		    idmap_put(&r->lgroup_ids, self, (uint32_t)r->nlgroups) < 0)
			DEF_FAIL(r, TF_ENOMEM);
		i = (uint32_t)r->nlgroups++;
	}
	r->lgroups[i] = (d_lgroup){ .id = self, .name = name, .creator = creator,
				      .type = (uint8_t)type, .rank = -1 };
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_group(void *ud, OTF2_GroupRef self, OTF2_StringRef name,
				   OTF2_GroupType type, OTF2_Paradigm paradigm, OTF2_GroupFlag flags,
				   uint32_t n, const uint64_t *members)
{
	DEF_CB(r);
	/* only communication groups matter (ranks, message peers) */
	if (type != OTF2_GROUP_TYPE_COMM_LOCATIONS && type != OTF2_GROUP_TYPE_COMM_GROUP &&
	    type != OTF2_GROUP_TYPE_COMM_SELF)
		return OTF2_CALLBACK_SUCCESS;
	uint64_t *m = NULL;
	if (n) {
		m = malloc(n * sizeof(*m));
		if (!m)
			DEF_FAIL(r, TF_ENOMEM);
		memcpy(m, members, n * sizeof(*m));
	}
	uint32_t i = idmap_get(&r->group_ids, self);
	if (i == IDMAP_NONE) {
		if (VEC_ROOM(r->groups, r->ngroups, r->capgroups) < 0 ||
		    idmap_put(&r->group_ids, self, (uint32_t)r->ngroups) < 0) {
			free(m);
			DEF_FAIL(r, TF_ENOMEM);
		}
		i = (uint32_t)r->ngroups++;
	} else {
		free(r->groups[i].members); /* a repeated definition: the last one wins */
	}
	r->groups[i] = (d_group){ .type = (uint8_t)type, .paradigm = (uint8_t)paradigm, .n = n, .members = m };
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_comm(void *ud, OTF2_CommRef self, OTF2_StringRef name, OTF2_GroupRef group,
				  OTF2_CommRef parent, OTF2_CommFlag flags)
{
	DEF_CB(r);
	uint32_t i = idmap_get(&r->comm_ids, self);
	if (i == IDMAP_NONE) {
		if (VEC_ROOM(r->comms, r->ncomms, r->capcomms) < 0 ||
		    idmap_put(&r->comm_ids, self, (uint32_t)r->ncomms) < 0)
			DEF_FAIL(r, TF_ENOMEM);
		i = (uint32_t)r->ncomms++;
	} else {
		free(r->comms[i].world);
	}
	r->comms[i] = (d_comm){ .group = group };
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_member(void *ud, OTF2_MetricMemberRef self, OTF2_StringRef name,
				    OTF2_StringRef descr, OTF2_MetricType type, OTF2_MetricMode mode,
				    OTF2_Type vtype, OTF2_Base base, int64_t exponent, OTF2_StringRef unit)
{
	DEF_CB(r);
	uint32_t i = idmap_get(&r->member_ids, self);
	if (i == IDMAP_NONE) {
		if (VEC_ROOM(r->member_names, r->nmembers, r->capmembers) < 0 ||
		    idmap_put(&r->member_ids, self, (uint32_t)r->nmembers) < 0)
			DEF_FAIL(r, TF_ENOMEM);
		i = (uint32_t)r->nmembers++;
	}
	r->member_names[i] = name;
	return OTF2_CALLBACK_SUCCESS;
}

static int metric_slot(rd *r, uint64_t id, d_metric **out)
{
	uint32_t i = idmap_get(&r->metric_ids, id);
	if (i == IDMAP_NONE) {
		TF_TRY(VEC_ROOM(r->metrics, r->nmetrics, r->capmetrics));
		TF_TRY(idmap_put(&r->metric_ids, id, (uint32_t)r->nmetrics));
		i = (uint32_t)r->nmetrics++;
	} else {
		free(r->metrics[i].members);
		free(r->metrics[i].names);
	}
	memset(&r->metrics[i], 0, sizeof(r->metrics[i]));
	r->metrics[i].id = (uint32_t)id;
	*out = &r->metrics[i];
	return 0;
}

static OTF2_CallbackCode def_metric_class(void *ud, OTF2_MetricRef self, uint8_t n,
					  const OTF2_MetricMemberRef *members, OTF2_MetricOccurrence occ,
					  OTF2_RecorderKind kind)
{
	DEF_CB(r);
	d_metric *m;
	if (metric_slot(r, self, &m) < 0)
		DEF_FAIL(r, TF_ENOMEM);
	if (n) {
		m->members = malloc(n * sizeof(*m->members));
		if (!m->members)
			DEF_FAIL(r, TF_ENOMEM);
		memcpy(m->members, members, n * sizeof(*m->members));
	}
	m->n = n;
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_metric_instance(void *ud, OTF2_MetricRef self, OTF2_MetricRef klass,
					     OTF2_LocationRef recorder, OTF2_MetricScope scope_type,
					     uint64_t scope)
{
	DEF_CB(r);
	d_metric *m;
	if (metric_slot(r, self, &m) < 0)
		DEF_FAIL(r, TF_ENOMEM);
	m->is_instance = true;
	m->klass = klass;
	m->recorder = recorder;
	return OTF2_CALLBACK_SUCCESS;
}

/* ------------------------------------------------------- resolving names */

static const char *str_text(const rd *r, uint32_t ref)
{
	uint32_t i = idmap_get(&r->str_ids, ref);
	return i == IDMAP_NONE ? NULL : r->strs[i];
}

static tf_str intern_ref(rd *r, uint32_t ref)
{
	const char *s = str_text(r, ref);
	return s ? tf_strtab_intern_cstr(tf_ctx_strtab(r->ctx), s) : 0;
}

static tf_str intern_fmt(rd *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static tf_str intern_fmt(rd *r, const char *fmt, ...)
{
	char buf[128];
	va_list va;
	va_start(va, fmt);
	vsnprintf(buf, sizeof(buf), fmt, va);
	va_end(va);
	return tf_strtab_intern_cstr(tf_ctx_strtab(r->ctx), buf);
}

static int resolve_regions(rd *r)
{
	r->region_str = malloc((r->nregions ? r->nregions : 1) * sizeof(tf_str));
	if (!r->region_str)
		return TF_ENOMEM;
	uint64_t max_id = 0;
	for (size_t i = 0; i < r->nregions; i++) {
		const char *s = str_text(r, r->region_names[i]);
		tf_str id = s ? tf_strtab_intern_cstr(tf_ctx_strtab(r->ctx), s) : NO_STR;
		r->region_str[i] = id;
	}
	for (uint32_t k = 0; k < r->region_ids.cap; k++) /* hmap: vals hold value + 1, 0 = empty */
		if (r->region_ids.vals[k] && r->region_ids.keys[k] > max_id)
			max_id = r->region_ids.keys[k];
	/* ids are normally 0..n-1: index them directly in the hot path */
	if (r->nregions && max_id < 4 * (uint64_t)r->nregions + 1024) {
		r->ndense = (size_t)max_id + 1;
		r->region_dense = malloc(r->ndense * sizeof(tf_str));
		if (!r->region_dense)
			return TF_ENOMEM;
		for (size_t i = 0; i < r->ndense; i++)
			r->region_dense[i] = NO_STR;
		for (uint32_t k = 0; k < r->region_ids.cap; k++)
			if (r->region_ids.vals[k])
				r->region_dense[r->region_ids.keys[k]] = r->region_str[r->region_ids.vals[k] - 1];
	}
	return 0;
}

/* The COMM_LOCATIONS group of a paradigm: its member order is the rank order. */
static const d_group *comm_locations(const rd *r, uint8_t paradigm)
{
	for (size_t i = 0; i < r->ngroups; i++)
		if (r->groups[i].type == OTF2_GROUP_TYPE_COMM_LOCATIONS && r->groups[i].paradigm == paradigm)
			return &r->groups[i];
	return NULL;
}

static int64_t loc_group_rank(const rd *r, uint64_t loc)
{
	uint32_t li = idmap_get(&r->loc_ids, loc);
	if (li == IDMAP_NONE)
		return -1;
	uint32_t gi = idmap_get(&r->lgroup_ids, r->locs[li].group);
	return gi == IDMAP_NONE ? r->locs[li].rank : r->lgroups[gi].rank;
}

/* Ranks: a location's MPI rank is its index in the MPI COMM_LOCATIONS group;
 * a location group's rank is the lowest rank of its locations; an
 * accelerator group without one takes its creating group's rank. */
static void resolve_ranks(rd *r)
{
	const d_group *world = comm_locations(r, OTF2_PARADIGM_MPI);
	if (world)
		for (uint32_t k = 0; k < world->n; k++) {
			uint32_t li = idmap_get(&r->loc_ids, world->members[k]);
			if (li != IDMAP_NONE && r->locs[li].rank < 0)
				r->locs[li].rank = k;
		}
	for (size_t i = 0; i < r->nlocs; i++) {
		uint32_t gi = idmap_get(&r->lgroup_ids, r->locs[i].group);
		if (gi == IDMAP_NONE || r->locs[i].rank < 0)
			continue;
		d_lgroup *g = &r->lgroups[gi];
		if (g->rank < 0 || r->locs[i].rank < g->rank)
			g->rank = r->locs[i].rank;
	}
	for (int pass = 0; pass < 4; pass++) /* creator chains are short */
		for (size_t i = 0; i < r->nlgroups; i++) {
			d_lgroup *g = &r->lgroups[i];
			if (g->rank >= 0 || g->creator == OTF2_UNDEFINED_LOCATION_GROUP)
				continue;
			uint32_t ci = idmap_get(&r->lgroup_ids, g->creator);
			if (ci != IDMAP_NONE)
				g->rank = r->lgroups[ci].rank;
		}
}

/* comm rank -> world rank table of a communicator, built on first use. */
static int resolve_comm(rd *r, d_comm *c)
{
	c->resolved = true;
	uint32_t gi = idmap_get(&r->group_ids, c->group);
	if (gi == IDMAP_NONE)
		return 0;
	const d_group *g = &r->groups[gi];
	if (g->type == OTF2_GROUP_TYPE_COMM_SELF) {
		c->self = true;
		return 0;
	}
	if (g->type != OTF2_GROUP_TYPE_COMM_GROUP || !g->n)
		return 0;
	const d_group *locs = comm_locations(r, g->paradigm);
	c->world = malloc(g->n * sizeof(*c->world));
	if (!c->world)
		return TF_ENOMEM;
	c->n = g->n;
	for (uint32_t k = 0; k < g->n; k++) {
		uint64_t m = g->members[k]; /* a rank in the paradigm's COMM_LOCATIONS */
		int64_t w = -1;
		if (locs && m < locs->n)
			w = loc_group_rank(r, locs->members[m]);
		c->world[k] = w >= 0 ? w : (int64_t)m;
	}
	return 0;
}

int64_t tf_otf2_peer_rank(rd *r, const locst *l, uint32_t comm, uint32_t rank)
{
	if (rank == OTF2_UNDEFINED_UINT32)
		return -1;
	uint32_t ci = idmap_get(&r->comm_ids, comm);
	if (ci == IDMAP_NONE)
		return rank;
	d_comm *c = &r->comms[ci];
	if (!c->resolved && resolve_comm(r, c) < 0)
		return rank;
	if (c->self)
		return l->rank >= 0 ? l->rank : rank;
	return rank < c->n ? c->world[rank] : rank;
}

/* The metric (class or instance) -> its class with member names resolved. */
const d_metric *tf_otf2_metric_class(rd *r, uint32_t metric)
{
	uint32_t i = idmap_get(&r->metric_ids, metric);
	if (i == IDMAP_NONE)
		return NULL;
	if (r->metrics[i].is_instance) {
		i = idmap_get(&r->metric_ids, r->metrics[i].klass);
		if (i == IDMAP_NONE || r->metrics[i].is_instance)
			return NULL;
	}
	d_metric *m = &r->metrics[i];
	if (!m->resolved) {
		m->resolved = true;
		if (m->n) {
			m->names = malloc(m->n * sizeof(*m->names));
			if (!m->names) {
				m->n = 0;
				return m;
			}
		}
		for (uint8_t k = 0; k < m->n; k++) {
			uint32_t mi = idmap_get(&r->member_ids, m->members[k]);
			m->names[k] = mi != IDMAP_NONE ? intern_ref(r, r->member_names[mi])
						       : intern_fmt(r, "metric member %" PRIu32, m->members[k]);
		}
	}
	return m;
}

static void resolve_attrs(rd *r)
{
	for (size_t i = 0; i < r->nattrs; i++) {
		const char *s = str_text(r, (uint32_t)r->attrs[i]);
		if (s && !strcmp(s, "tracefold::correlation"))
			r->attr_corr = (OTF2_AttributeRef)(r->attrs[i] >> 32);
		else if (s && !strcmp(s, "tracefold::gpu"))
			r->attr_gpu = (OTF2_AttributeRef)(r->attrs[i] >> 32);
	}
	for (size_t i = 0; i + 1 < r->nlprops; i += 2) {
		const char *s = str_text(r, (uint32_t)r->lprops[i + 1]);
		uint32_t li = idmap_get(&r->loc_ids, r->lprops[i]);
		if (s && !strcmp(s, "tracefold::gpu_launches") && li != IDMAP_NONE)
			r->locs[li].launched = 1;
	}
}

static int define_tracks(rd *r)
{
	for (size_t i = 0; i < r->nlocs; i++) {
		d_loc *L = &r->locs[i];
		uint32_t gi = idmap_get(&r->lgroup_ids, L->group);
		const d_lgroup *g = gi == IDMAP_NONE ? NULL : &r->lgroups[gi];
		tf_str pkey = intern_fmt(r, "%" PRIu32, L->group);
		tf_str tkey = intern_fmt(r, "%" PRIu64, L->id);
		tf_str pname = g ? intern_ref(r, g->name) : 0;
		tf_str tname = intern_ref(r, L->name);
		if (pkey == NO_STR || tkey == NO_STR || pname == NO_STR || tname == NO_STR)
			return TF_ENOMEM;
		uint32_t id = tf_ctx_track(r->ctx, r->input, pkey, tkey);
		if (id == (uint32_t)-1)
			return TF_ENOMEM;
		tf_track *t = tf_ctx_track_get(r->ctx, id);
		t->process_name = pname;
		t->thread_name = tname;
		if ((g ? g->rank : L->rank) >= 0)
			t->rank = g ? g->rank : L->rank;
		t->kind = (L->type == OTF2_LOCATION_TYPE_ACCELERATOR_STREAM ||
			   (g && g->type == OTF2_LOCATION_GROUP_TYPE_ACCELERATOR)) ? TF_TRACK_GPU : TF_TRACK_CPU;
		/* tracefold's archives say which regions are GPU work and what
		 * launched them: a GPU stream is then a sorted track, nested after
		 * the input's CPU threads, as a Kineto trace's is (docs/gpu.md) */
		t->needs_sort = t->kind == TF_TRACK_GPU && L->launched;
		t->gpu_in_place = t->kind == TF_TRACK_GPU && !L->launched;
		L->track = id;
	}
	/* Score-P leaves metric locations unnamed: name them after what they record */
	for (size_t i = 0; i < r->nmetrics; i++) {
		if (!r->metrics[i].is_instance)
			continue;
		uint64_t rec = r->metrics[i].recorder;
		uint32_t li = idmap_get(&r->loc_ids, rec);
		if (li == IDMAP_NONE || r->locs[li].type != OTF2_LOCATION_TYPE_METRIC)
			continue;
		tf_track *t = tf_ctx_track_get(r->ctx, r->locs[li].track);
		if (!t || t->thread_name)
			continue;
		const d_metric *c = tf_otf2_metric_class(r, r->metrics[i].id);
		if (c && c->n && c->names)
			t->thread_name = c->names[0];
	}
	return 0;
}

const char *tf_otf2_loc_name(const rd *r, const d_loc *L)
{
	const char *s = str_text(r, L->name);
	return s ? s : "";
}

int tf_otf2_read_defs(rd *r, OTF2_Reader *rdr)
{
	OTF2_GlobalDefReader *gdr = OTF2_Reader_GetGlobalDefReader(rdr);
	if (!gdr)
		return tf_otf2_fail(r, "cannot open the global definitions", OTF2_ERROR_ENOENT);
	OTF2_GlobalDefReaderCallbacks *cb = OTF2_GlobalDefReaderCallbacks_New();
	if (!cb)
		return TF_ENOMEM;
	OTF2_GlobalDefReaderCallbacks_SetStringCallback(cb, def_string);
	OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(cb, def_clock);
	OTF2_GlobalDefReaderCallbacks_SetRegionCallback(cb, def_region);
	OTF2_GlobalDefReaderCallbacks_SetAttributeCallback(cb, def_attribute);
	OTF2_GlobalDefReaderCallbacks_SetLocationPropertyCallback(cb, def_location_property);
	OTF2_GlobalDefReaderCallbacks_SetLocationCallback(cb, def_location);
	OTF2_GlobalDefReaderCallbacks_SetLocationGroupCallback(cb, def_lgroup);
	OTF2_GlobalDefReaderCallbacks_SetGroupCallback(cb, def_group);
	OTF2_GlobalDefReaderCallbacks_SetCommCallback(cb, def_comm);
	OTF2_GlobalDefReaderCallbacks_SetMetricMemberCallback(cb, def_member);
	OTF2_GlobalDefReaderCallbacks_SetMetricClassCallback(cb, def_metric_class);
	OTF2_GlobalDefReaderCallbacks_SetMetricInstanceCallback(cb, def_metric_instance);
	OTF2_ErrorCode ec = OTF2_Reader_RegisterGlobalDefCallbacks(rdr, gdr, cb, r);
	OTF2_GlobalDefReaderCallbacks_Delete(cb);
	if (ec != OTF2_SUCCESS)
		return tf_otf2_fail(r, "cannot read the global definitions", ec);
	uint64_t n = 0;
	ec = OTF2_Reader_ReadAllGlobalDefinitions(rdr, gdr, &n);
	OTF2_Reader_CloseGlobalDefReader(rdr, gdr);
	if (r->rc < 0)
		return r->rc;
	if (ec != OTF2_SUCCESS)
		return tf_otf2_fail(r, "cannot read the global definitions", ec);
	return 0;
}

/* The time properties of the archive, said when they are not usable as they are. */
static void note_clock(rd *r)
{
	if (!r->clock_seen)
		tf_ctx_note(r->ctx, "'%s': no clock properties in the global definitions: ticks are taken as "
			    "nanoseconds from 0", r->anchor);
	else if (r->res_given == 0)
		tf_ctx_note(r->ctx, "'%s': timer resolution 0 in the clock properties: ticks are taken as "
			    "nanoseconds (1 GHz), global offset %" PRIu64, r->anchor, r->off);
}

int tf_otf2_resolve_defs(rd *r)
{
	note_clock(r);
	TF_TRY(resolve_regions(r));
	resolve_attrs(r);
	resolve_ranks(r);
	return define_tracks(r);
}
