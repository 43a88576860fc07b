/* otf2.c - OTF2 archives (Score-P, TAU, ...) read through libotf2.
 *
 *   anchor file --libotf2--> global definitions (strings, regions, locations,
 *   location groups, groups, communicators, metrics, clock) --> tracks
 *   then, one location at a time: local definitions (mapping tables, clock
 *   offsets: applied by libotf2) and the location's events in stored order.
 *   One set of event callbacks turns each event into a compact record and
 *   puts it: the serial path (the default) applies it at once; with
 *   TRACEFOLD_THREADS=2 the callbacks run on a second thread that queues
 *   the records in batches, which the main thread applies in the same
 *   order (read_piped).  Applying a record (apply) is the only place that
 *   emits, skips, counts and notes.
 *
 * Facts relied on, the clock conversion, the rank/thread mapping and what is
 * counted for each record type: docs/format-otf2.md. */
#include <dirent.h>
#include <pthread.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <otf2/otf2.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include "tracefold/reader.h"
#include "tracefold/io.h"

/* ---------------------------------------------------------------- id maps */

/* uint64 definition id -> uint32 index (open addressing, linear probing). */
typedef struct idmap {
	uint64_t *keys;
	uint32_t *vals; /* IDMAP_NONE = empty slot */
	uint32_t cap, n;
} idmap;
#define IDMAP_NONE UINT32_MAX

static uint32_t id_hash(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	return (uint32_t)k;
}

static uint32_t idmap_get(const idmap *m, uint64_t k)
{
	if (!m->cap)
		return IDMAP_NONE;
	uint32_t mask = m->cap - 1, i = id_hash(k) & mask;
	while (m->vals[i] != IDMAP_NONE) {
		if (m->keys[i] == k)
			return m->vals[i];
		i = (i + 1) & mask;
	}
	return IDMAP_NONE;
}

static int idmap_put(idmap *m, uint64_t k, uint32_t v)
{
	if ((m->n + 1) * 2 > m->cap) {
		uint32_t nc = m->cap ? m->cap * 2 : 64;
		uint64_t *nk = malloc(nc * sizeof(*nk));
		uint32_t *nv = malloc(nc * sizeof(*nv));
		if (!nk || !nv) {
			free(nk);
			free(nv);
			return TF_ENOMEM;
		}
		memset(nv, 0xff, nc * sizeof(*nv));
		for (uint32_t i = 0; i < m->cap; i++) {
			if (m->vals[i] == IDMAP_NONE)
				continue;
			uint32_t j = id_hash(m->keys[i]) & (nc - 1);
			while (nv[j] != IDMAP_NONE)
				j = (j + 1) & (nc - 1);
			nk[j] = m->keys[i];
			nv[j] = m->vals[i];
		}
		free(m->keys);
		free(m->vals);
		m->keys = nk;
		m->vals = nv;
		m->cap = nc;
	}
	uint32_t mask = m->cap - 1, i = id_hash(k) & mask;
	while (m->vals[i] != IDMAP_NONE) {
		if (m->keys[i] == k) {
			m->vals[i] = v;
			return 0;
		}
		i = (i + 1) & mask;
	}
	m->keys[i] = k;
	m->vals[i] = v;
	m->n++;
	return 0;
}

static void idmap_free(idmap *m)
{
	free(m->keys);
	free(m->vals);
}

static int vec_grow(void **p, size_t *cap, size_t n, size_t size)
{
	if (n < *cap)
		return 0;
	size_t nc = *cap ? *cap * 2 : 16;
	void *q = realloc(*p, nc * size);
	if (!q)
		return TF_ENOMEM;
	*p = q;
	*cap = nc;
	return 0;
}
#define VEC_ROOM(v, n, cap) vec_grow((void **)&(v), &(cap), (n), sizeof(*(v)))

/* ------------------------------------------------------------ definitions */

typedef struct d_loc {
	uint64_t id;
	uint32_t name;      /* string ref */
	uint32_t group;     /* location group ref */
	uint8_t type;       /* OTF2_LocationType */
	uint64_t nevents;   /* as announced by the definition */
	int64_t rank;       /* index in the MPI COMM_LOCATIONS group, -1 */
	uint32_t track;
	uint8_t ldefs;      /* LDEFS_*: its local definitions, once its events were read */
} d_loc;

/* A location's local definitions (mapping tables, clock offsets). */
enum { LDEFS_NOT_READ = 0, LDEFS_OK, LDEFS_MISSING, LDEFS_DAMAGED };

typedef struct d_lgroup {
	uint32_t id, name, creator;
	uint8_t type;       /* OTF2_LocationGroupType */
	int64_t rank;
} d_lgroup;

typedef struct d_group {
	uint8_t type;       /* OTF2_GroupType */
	uint8_t paradigm;
	uint32_t n;
	uint64_t *members;
} d_group;

typedef struct d_comm {
	uint32_t group;
	bool resolved, self;
	uint32_t n;
	int64_t *world;     /* comm rank -> world rank */
} d_comm;

typedef struct d_metric {
	uint32_t id;
	bool is_instance;
	uint32_t klass;     /* instance: its class ref */
	uint64_t recorder;  /* instance: the location that records it */
	uint8_t n;
	uint32_t *members;  /* class: member refs */
	tf_str *names;      /* resolved member names (class only) */
	bool resolved;
} d_metric;

typedef struct rd {
	tf_ctx *ctx;
	tf_sink *sink;
	tf_error *err;
	const char *path;   /* as the user named it */
	const char *anchor; /* the anchor file read */
	uint32_t input;
	int rc;             /* failure raised inside a callback */
	uint64_t index;     /* events decoded so far (tf_event.index) */

	/* clock: ns = (ticks - off) * 1e9 / res, exactly */
	bool clock_seen;       /* a ClockProperties definition was read */
	uint64_t res_given;    /* its resolution (0: taken as 1e9) */
	uint64_t res, off;
	uint64_t mul, mul_max; /* res divides 1e9: ns = d * mul */
	bool fast;             /* res * 1e9 fits in 64 bits */
	uint64_t magic;        /* floor((2^64 - 1) / res), for div_fast */

	idmap str_ids;
	char **strs;
	size_t nstrs, capstrs;

	idmap region_ids;
	uint32_t *region_names;
	tf_str *region_str;
	size_t nregions, capregions;
	tf_str *region_dense; /* region id -> name, when ids are dense */
	size_t ndense;

	idmap loc_ids;
	d_loc *locs;
	size_t nlocs, caplocs;

	idmap lgroup_ids;
	d_lgroup *lgroups;
	size_t nlgroups, caplgroups;

	idmap group_ids;
	d_group *groups;
	size_t ngroups, capgroups;

	idmap comm_ids;
	d_comm *comms;
	size_t ncomms, capcomms;

	idmap member_ids;
	uint32_t *member_names;
	size_t nmembers, capmembers;

	idmap metric_ids;
	d_metric *metrics;
	size_t nmetrics, capmetrics;
} rd;

typedef struct locst {
	rd *r;
	uint32_t track;
	int64_t rank;
	uint64_t loc;       /* location id */
	bool noted;         /* an undefined id on this location was noted */
	bool time_noted;    /* a time beyond int64 ns on this location was noted */
} locst;

static void rd_free(rd *r)
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
	idmap_free(&r->metric_ids);
}

/* --------------------------------------------------------- libotf2 errors */

/* libotf2 prints its errors to stderr unless a callback is registered; a
 * library must not print, so the message is kept for tf_error instead. */
static __thread char otf2_msg[256];
static __thread OTF2_ErrorCode otf2_code; /* the code of that message */

static OTF2_ErrorCode quiet_error(void *ud, const char *file, uint64_t line, const char *fn,
				  OTF2_ErrorCode code, const char *fmt, va_list va)
{
	if (otf2_msg[0])
		return code; /* keep the first message: the root cause */
	otf2_code = code;
	if (fmt)
		vsnprintf(otf2_msg, sizeof(otf2_msg), fmt, va);
	if (!otf2_msg[0])
		snprintf(otf2_msg, sizeof(otf2_msg), "%s", OTF2_Error_GetDescription(code));
	return code;
}

/* ------------------------------------------------------------------ clock */

static void clock_set(rd *r, uint64_t res, uint64_t off)
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

/* floor(x / d) and x % d without a divide instruction (the hot path runs
 * two per event): magic = floor((2^64 - 1) / d) >= 2^64 / d - 1, so the
 * high half of x * magic is at most 2 below the quotient; the remainder
 * test corrects it exactly. */
static inline uint64_t div_fast(uint64_t x, uint64_t d, uint64_t magic, uint64_t *rem_out)
{
	uint64_t q = (uint64_t)(((unsigned __int128)x * magic) >> 64);
	uint64_t rem = x - q * d;
	while (rem >= d) {
		q++;
		rem -= d;
	}
	*rem_out = rem;
	return q;
}

/* What ticks_to_ns() returns for a time beyond int64 nanoseconds (after or
 * before the offset): no event has it, so no event time is INT64_MIN. */
#define TS_BEYOND INT64_MIN

static int64_t ticks_slow(const rd *r, __int128 d)
{
	__int128 num = d * 1000000000, res = (__int128)r->res;
	__int128 q = num / res;
	if (num % res != 0 && num < 0)
		q--; /* floor */
	if (q > INT64_MAX || q <= INT64_MIN)
		return TS_BEYOND;
	return (int64_t)q;
}

/* (t - off) * 1e9 / res rounded down, exactly; TS_BEYOND when that is
 * beyond int64. */
static inline int64_t ticks_to_ns(const rd *r, uint64_t t)
{
	if (t >= r->off) {
		uint64_t d = t - r->off;
		if (r->mul) {
			if (d <= r->mul_max)
				return (int64_t)(d * r->mul);
		} else if (r->fast) {
			uint64_t m, m2;
			uint64_t q = div_fast(d, r->res, r->magic, &m);
			if (q < (uint64_t)INT64_MAX / 1000000000ull)
				return (int64_t)(q * 1000000000ull +
						 div_fast(m * 1000000000ull, r->res, r->magic, &m2));
		}
		return ticks_slow(r, (__int128)d);
	}
	return ticks_slow(r, -(__int128)(r->off - t));
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
	clock_set(r, res, off);
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

#define NO_STR ((tf_str)-1)

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
	for (uint32_t k = 0; k < r->region_ids.cap; k++)
		if (r->region_ids.vals[k] != IDMAP_NONE && r->region_ids.keys[k] > max_id)
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
			if (r->region_ids.vals[k] != IDMAP_NONE)
				r->region_dense[r->region_ids.keys[k]] = r->region_str[r->region_ids.vals[k]];
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

static int64_t peer_rank(rd *r, const locst *l, uint32_t comm, uint32_t rank)
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
static const d_metric *metric_class(rd *r, uint32_t metric)
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
		t->rank = g ? g->rank : L->rank;
		t->kind = (L->type == OTF2_LOCATION_TYPE_ACCELERATOR_STREAM ||
			   (g && g->type == OTF2_LOCATION_GROUP_TYPE_ACCELERATOR)) ? TF_TRACK_GPU : TF_TRACK_CPU;
		t->needs_sort = false;
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
		const d_metric *c = metric_class(r, r->metrics[i].id);
		if (c && c->n && c->names)
			t->thread_name = c->names[0];
	}
	return 0;
}

/* ---------------------------------------------------------------- records
 *
 * What an event callback decodes from libotf2's arguments: a record of one
 * or more 16-byte slots, put through the path's put step (below).  The
 * serial path applies each record as it is put; the pipelined path queues
 * records in batches on its decode thread, and its main thread applies
 * them in the order they were put.  Applying (apply) is the only place
 * that emits, skips, counts and notes, for both paths. */

enum {
	P_ENTER = TF_EV_BEGIN, /* a = tf_str name, x.u = ticks */
	P_LEAVE = TF_EV_END,
	P_UNDEF,   /* Enter/Leave of undefined region a, x.u = pos */
	P_METRIC,  /* a = metric, k = member count, x.u = ticks; then P_DATA x.u = pos, k x P_DATA x.v */
	P_SEND,    /* a = peer, x.u = ticks; then P_DATA a = comm, x.u = length; P_DATA a = tag */
	P_RECV,
	P_OTHER,   /* counted as ev_other */
	P_LOC,     /* a = location index: its events follow; x.u = LDEFS_* | error code << 8, k = note if damaged */
	P_MISSING, /* a = location index, k = note: no event reader */
	P_END,     /* a = location index, k = note, x.u = records decoded; then P_DATA a = error code */
	P_DATA,    /* more of the record before */
};
_Static_assert(TF_EV_BEGIN == 0 && TF_EV_END == 1, "P_ENTER, P_LEAVE are the event kinds");

typedef struct prec {
	uint8_t kind, k;
	uint32_t a;
	union {
		uint64_t u;
		double v;
	} x;
} prec;

/* The most slots a record takes: a metric of 255 members. */
#define PREC_MAX (2 + UINT8_MAX)

/* A copy of libotf2's message that a record's note slot (k) refers to. */
typedef char msgbuf[sizeof(otf2_msg)];

struct batch;

/* The decoding side of either path: what libotf2's event callbacks get as
 * userData.  Serial: on the main thread, each record applied to l as it is
 * put.  Pipelined: inside the pipeline's shared state on cache lines of its
 * own, used by the decode thread only: records go into the batch cur. */
typedef struct decoder {
	bool piped;
	bool stopped;       /* serial: the sink stopped the read; piped: the main thread did */
	OTF2_Reader *rdr;
	const OTF2_EvtReaderCallbacks *cb;
	bool defs_open;     /* the local definition files could be opened */
	const d_loc *locs;  /* read here: the location ids */
	size_t nlocs;
	/* region id -> name: a copy of rd's tables (fixed once the definitions
	 * are read; the decode thread reads nothing else of rd) */
	const tf_str *region_dense;
	size_t ndense;
	idmap region_ids;
	const tf_str *region_str;
	/* pipelined */
	struct batch *cur;  /* being filled; NULL once stopped */
	prec *wp, *wend;    /* next free slot in cur, its end */
	/* serial */
	locst l;            /* the location being read */
	prec one[PREC_MAX]; /* the record being put */
} decoder;

static void decoder_init(decoder *d, rd *r, OTF2_Reader *rdr, const OTF2_EvtReaderCallbacks *cb, bool defs_open,
			 bool piped)
{
	*d = (decoder){ .piped = piped, .rdr = rdr, .cb = cb, .defs_open = defs_open, .locs = r->locs,
			.nlocs = r->nlocs, .region_dense = r->region_dense, .ndense = r->ndense,
			.region_ids = r->region_ids, .region_str = r->region_str, .l = { .r = r } };
}

/* ------------------------------------------------------ applying records */

static const char *loc_name(const rd *r, const d_loc *L);
static void missing(rd *r, d_loc *L, const char *msg);
static void location_done(rd *r, d_loc *L, OTF2_ErrorCode ec, uint64_t n, const char *msg);
static locst location_state(rd *r, const d_loc *L);
static void ldefs_read(rd *r, d_loc *L, uint8_t st, uint32_t ec, const char *msg);

static inline OTF2_CallbackCode emit(rd *r, const tf_event *ev)
{
	int rc = tf_emit(r->ctx, r->sink, ev);
	if (rc < 0) {
		r->rc = rc;
		return OTF2_CALLBACK_INTERRUPT;
	}
	return OTF2_CALLBACK_SUCCESS;
}

static inline OTF2_CallbackCode skip(rd *r, tf_diag_id why)
{
	tf_count_skip(r->ctx, why);
	r->index++;
	return OTF2_CALLBACK_SUCCESS;
}

/* Says where an undefined id was met (once per location); pos is libotf2's
 * 1-based record number within the location. */
static OTF2_CallbackCode skip_undefined(locst *l, const char *what, uint64_t id, uint64_t pos)
{
	if (!l->noted) {
		l->noted = true;
		tf_ctx_note(l->r->ctx, "'%s': location %" PRIu64 " record #%" PRIu64 ": %s %" PRIu64
			    " is not defined: skipped (and any later ones on this location)",
			    l->r->path, l->loc, pos, what, id);
	}
	return skip(l->r, TF_DIAG_unknown_event_id);
}

/* n events at a time beyond int64 ns: skipped as bad_event (saturated, a
 * region would last until 2262), the first of each location noted. */
static OTF2_CallbackCode skip_beyond(locst *l, uint64_t ticks, uint32_t n)
{
	rd *r = l->r;
	if (!l->time_noted) {
		l->time_noted = true;
		uint32_t i = idmap_get(&r->loc_ids, l->loc);
		tf_ctx_note(r->ctx, "'%s': location %" PRIu64 " (\"%s\"): event time %" PRIu64 " ticks is beyond "
			    "int64 nanoseconds (timer resolution %" PRIu64 " ticks/s, global offset %" PRIu64 "): "
			    "skipped (bad_event), as is any later one on this location",
			    r->path, l->loc, i == IDMAP_NONE ? "" : loc_name(r, &r->locs[i]), ticks, r->res, r->off);
	}
	for (uint32_t k = 0; k < n; k++)
		skip(r, TF_DIAG_bad_event);
	return OTF2_CALLBACK_SUCCESS;
}

static inline OTF2_CallbackCode do_region(locst *l, uint8_t kind, tf_str name, uint64_t ticks)
{
	rd *r = l->r;
	int64_t ts = ticks_to_ns(r, ticks);
	if (__builtin_expect(ts == TS_BEYOND, 0))
		return skip_beyond(l, ticks, 1);
	tf_event ev = { .kind = kind, .track = l->track, .name = name, .ts_ns = ts,
			.msg = { -1, 0, 0, -1 }, .index = r->index++ };
	return emit(r, &ev);
}

/* Member k of a metric record; m is its class (NULL: undefined). */
static inline OTF2_CallbackCode do_metric_value(locst *l, const d_metric *m, uint32_t metric, uint8_t k,
						int64_t ts, uint64_t ticks, uint64_t pos, double v)
{
	if (!m || k >= m->n) {
		skip_undefined(l, m ? "member index" : "metric", m ? k : metric, pos);
		return OTF2_CALLBACK_SUCCESS;
	}
	if (ts == TS_BEYOND)
		return skip_beyond(l, ticks, 1);
	rd *r = l->r;
	tf_event ev = { .kind = TF_EV_COUNTER, .track = l->track, .name = m->names[k], .ts_ns = ts,
			.value = v, .msg = { -1, 0, 0, -1 }, .index = r->index++ };
	return emit(r, &ev);
}

static inline OTF2_CallbackCode do_msg(locst *l, uint8_t kind, uint64_t ticks, uint32_t peer, OTF2_CommRef comm,
				       uint32_t tag, uint64_t len)
{
	rd *r = l->r;
	int64_t ts = ticks_to_ns(r, ticks);
	if (ts == TS_BEYOND)
		return skip_beyond(l, ticks, 1);
	tf_event ev = { .kind = kind, .track = l->track, .ts_ns = ts, .index = r->index++ };
	ev.msg.peer = peer_rank(r, l, comm, peer);
	ev.msg.tag = tag;
	ev.msg.bytes = len > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)len;
	ev.msg.comm = comm == OTF2_UNDEFINED_COMM ? -1 : (int64_t)comm;
	return emit(r, &ev);
}

/* Every record kind but Enter and Leave. */
static __attribute__((noinline)) uint32_t apply_rest(locst *l, const prec *q, const msgbuf *note)
{
	rd *r = l->r;
	switch (q->kind) {
	case P_UNDEF:
		skip_undefined(l, "region", q->a, q->x.u);
		return 1;
	case P_METRIC: {
		const d_metric *m = metric_class(r, q->a);
		if (q->k == 0)
			skip(r, TF_DIAG_ev_other);
		int64_t ts = q->k ? ticks_to_ns(r, q->x.u) : 0;
		for (uint8_t k = 0; k < q->k; k++)
			if (do_metric_value(l, m, q->a, k, ts, q->x.u, q[1].x.u, q[2 + k].x.v) != OTF2_CALLBACK_SUCCESS)
				return 0;
		return 2 + (uint32_t)q->k;
	}
	case P_SEND:
	case P_RECV:
		if (do_msg(l, q->kind == P_SEND ? TF_EV_SEND : TF_EV_RECV, q->x.u, q->a, q[1].a, q[2].a,
			   q[1].x.u) != OTF2_CALLBACK_SUCCESS)
			return 0;
		return 3;
	case P_OTHER:
		skip(r, TF_DIAG_ev_other);
		return 1;
	case P_LOC: {
		uint8_t st = (uint8_t)q->x.u;
		*l = location_state(r, &r->locs[q->a]);
		ldefs_read(r, &r->locs[q->a], st, (uint32_t)(q->x.u >> 8), st == LDEFS_DAMAGED ? note[q->k] : "");
		return 1;
	}
	case P_MISSING:
		missing(r, &r->locs[q->a], note[q->k]);
		return 1;
	case P_END:
		location_done(r, &r->locs[q->a], (OTF2_ErrorCode)q[1].a, q->x.u,
			      q[1].a == OTF2_SUCCESS ? "" : note[q->k]);
		return 2;
	default: /* P_DATA: never first */
		return 1;
	}
}

/* Applies the record in q[0] (and the P_DATA slots after it) to the
 * location l on the main thread; note: the messages its note slot refers
 * to.  Returns the number of slots it took, 0 when the sink stopped the
 * read (r->rc says why). */
static inline uint32_t apply(locst *l, const prec *q, const msgbuf *note)
{
	/* one well-predicted branch: most records are Enter or Leave */
	if (__builtin_expect(q->kind <= P_LEAVE, 1))
		return do_region(l, q->kind, q->a, q->x.u) == OTF2_CALLBACK_SUCCESS;
	return apply_rest(l, q, note);
}

/* n slots of records, in order.  Returns 0, or r->rc when the sink stopped
 * the read. */
static int apply_records(locst *l, const prec *rec, uint32_t n, const msgbuf *note)
{
	for (uint32_t i = 0; i < n;) {
		uint32_t k = apply(l, &rec[i], note);
		if (!k)
			return l->r->rc;
		i += k;
	}
	return 0;
}

/* ------------------------------------------------------------ put steps
 *
 * Serial: a record is applied at once (the callbacks run on the main
 * thread).  Pipelined: it is queued in the batch being filled (the
 * callbacks run on the decode thread).  d->piped chooses, one predictable
 * branch per record. */

static bool pipe_flush(decoder *d);
static prec *pipe_put_note(decoder *d, uint8_t kind, uint32_t n);

/* Serial: applies the record at q. */
static inline OTF2_CallbackCode put_applied(decoder *d, const prec *q)
{
	if (__builtin_expect(apply(&d->l, q, (const msgbuf *)&otf2_msg) != 0, 1))
		return OTF2_CALLBACK_SUCCESS;
	d->stopped = true;
	return OTF2_CALLBACK_INTERRUPT;
}

/* A record of one slot (Enter, Leave, an undefined region, other). */
static inline OTF2_CallbackCode put1(decoder *d, uint8_t kind, uint32_t a, uint64_t x)
{
	if (!d->piped) {
		prec q = { .kind = kind, .a = a, .x.u = x };
		return put_applied(d, &q);
	}
	if (__builtin_expect(d->wp == d->wend, 0))
		if (!pipe_flush(d))
			return OTF2_CALLBACK_INTERRUPT;
	prec *q = d->wp++;
	/* a non-temporal store: the main thread reads it on another core, so
	 * keeping it in this core's cache only costs a transfer later (and one
	 * more when the batch is refilled) */
#ifdef __SSE2__
	_mm_stream_si128((__m128i *)q, _mm_set_epi64x((long long)x, (long long)((uint64_t)a << 32 | kind)));
#else
	q->kind = kind;
	q->a = a;
	q->x.u = x;
#endif
	return OTF2_CALLBACK_SUCCESS;
}

/* Pipelined: room for n consecutive slots in the batch (NULL: stopped). */
static inline prec *pipe_room(decoder *d, uint8_t kind, uint32_t n)
{
	if (__builtin_expect((size_t)(d->wend - d->wp) < n, 0))
		if (!pipe_flush(d))
			return NULL;
	prec *q = d->wp;
	d->wp = q + n;
	q->kind = kind;
	for (uint32_t i = 1; i < n; i++)
		q[i].kind = P_DATA;
	return q;
}

/* Room for a record of n slots (n <= PREC_MAX); with note, it carries
 * libotf2's current message.  NULL once stopped.  Fill it in, then
 * put_end(). */
static inline prec *put_begin(decoder *d, uint8_t kind, uint32_t n, bool note)
{
	if (d->piped)
		return note ? pipe_put_note(d, kind, n) : pipe_room(d, kind, n);
	prec *q = d->one;
	q->kind = kind;
	q->k = 0; /* note slot 0: otf2_msg itself */
	return q;
}

static inline OTF2_CallbackCode put_end(decoder *d, const prec *q)
{
	return d->piped ? OTF2_CALLBACK_SUCCESS : put_applied(d, q);
}

/* ------------------------------------------------------- event callbacks
 *
 * One set, for both paths: each decodes libotf2's arguments into a record
 * and puts it. */

#define EV_ARGS OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *ud, OTF2_AttributeList *al

static inline tf_str region_name(const decoder *d, uint32_t region)
{
	if (region < d->ndense)
		return d->region_dense[region];
	if (d->region_dense)
		return NO_STR;
	uint32_t i = idmap_get(&d->region_ids, region);
	return i == IDMAP_NONE ? NO_STR : d->region_str[i];
}

static inline OTF2_CallbackCode put_region(decoder *d, uint8_t kind, uint32_t region, uint64_t t, uint64_t pos)
{
	tf_str name = region_name(d, region);
	if (__builtin_expect(name == NO_STR, 0))
		return put1(d, P_UNDEF, region, pos);
	return put1(d, kind, name, t);
}

static OTF2_CallbackCode ev_enter(EV_ARGS, OTF2_RegionRef region)
{
	return put_region(ud, P_ENTER, region, t, pos);
}

static OTF2_CallbackCode ev_leave(EV_ARGS, OTF2_RegionRef region)
{
	return put_region(ud, P_LEAVE, region, t, pos);
}

static inline double metric_value(OTF2_Type type, OTF2_MetricValue v)
{
	switch (type) {
	case OTF2_TYPE_INT64: return (double)v.signed_int;
	case OTF2_TYPE_DOUBLE: return v.floating_point;
	default: return (double)v.unsigned_int;
	}
}

static OTF2_CallbackCode ev_metric(EV_ARGS, OTF2_MetricRef metric, uint8_t n, const OTF2_Type *types,
				   const OTF2_MetricValue *values)
{
	decoder *d = ud;
	prec *q = put_begin(d, P_METRIC, 2 + (uint32_t)n, false);
	if (!q)
		return OTF2_CALLBACK_INTERRUPT;
	q->a = metric;
	q->k = n;
	q->x.u = t;
	q[1].x.u = pos;
	for (uint8_t k = 0; k < n; k++)
		q[2 + k].x.v = metric_value(types[k], values[k]);
	return put_end(d, q);
}

static inline OTF2_CallbackCode put_msg(decoder *d, uint8_t kind, OTF2_TimeStamp t, uint32_t peer,
					OTF2_CommRef comm, uint32_t tag, uint64_t len)
{
	prec *q = put_begin(d, kind, 3, false);
	if (!q)
		return OTF2_CALLBACK_INTERRUPT;
	q->a = peer;
	q->x.u = t;
	q[1].a = comm;
	q[1].x.u = len;
	q[2].a = tag;
	return put_end(d, q);
}

static OTF2_CallbackCode ev_send(EV_ARGS, uint32_t receiver, OTF2_CommRef comm, uint32_t tag, uint64_t len)
{
	return put_msg(ud, P_SEND, t, receiver, comm, tag, len);
}

static OTF2_CallbackCode ev_isend(EV_ARGS, uint32_t receiver, OTF2_CommRef comm, uint32_t tag, uint64_t len,
				  uint64_t req)
{
	return put_msg(ud, P_SEND, t, receiver, comm, tag, len);
}

static OTF2_CallbackCode ev_recv(EV_ARGS, uint32_t sender, OTF2_CommRef comm, uint32_t tag, uint64_t len)
{
	return put_msg(ud, P_RECV, t, sender, comm, tag, len);
}

static OTF2_CallbackCode ev_irecv(EV_ARGS, uint32_t sender, OTF2_CommRef comm, uint32_t tag, uint64_t len,
				  uint64_t req)
{
	return put_msg(ud, P_RECV, t, sender, comm, tag, len);
}

/* Read and counted, not used: MPI collectives, thread fork/join, calling
 * context records (docs/format-otf2.md). */
static OTF2_CallbackCode ev_other(void *ud)
{
	return put1(ud, P_OTHER, 0, 0);
}

static OTF2_CallbackCode ev_coll_begin(EV_ARGS)
{
	return ev_other(ud);
}

static OTF2_CallbackCode ev_coll_end(EV_ARGS, OTF2_CollectiveOp op, OTF2_CommRef comm, uint32_t root,
				     uint64_t sent, uint64_t received)
{
	return ev_other(ud);
}

static OTF2_CallbackCode ev_fork(EV_ARGS, OTF2_Paradigm model, uint32_t n)
{
	return ev_other(ud);
}

static OTF2_CallbackCode ev_join(EV_ARGS, OTF2_Paradigm model)
{
	return ev_other(ud);
}

static OTF2_CallbackCode ev_cc_enter(EV_ARGS, OTF2_CallingContextRef cc, uint32_t unwind)
{
	return ev_other(ud);
}

static OTF2_CallbackCode ev_cc_leave(EV_ARGS, OTF2_CallingContextRef cc)
{
	return ev_other(ud);
}

static OTF2_CallbackCode ev_cc_sample(EV_ARGS, OTF2_CallingContextRef cc, uint32_t unwind,
				      OTF2_InterruptGeneratorRef gen)
{
	return ev_other(ud);
}

/* ------------------------------------------------------ finding the anchor */

static bool has_suffix(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);
	return n >= m && strcmp(s + n - m, suf) == 0;
}

static bool is_anchor_head(const unsigned char *h, size_t n)
{
	return n >= 6 && h[0] == 0x03 && memcmp(h + 2, "OTF2", 4) == 0;
}

static bool is_file(const char *p)
{
	struct stat sb;
	return stat(p, &sb) == 0 && S_ISREG(sb.st_mode);
}

static bool is_dir(const char *p)
{
	struct stat sb;
	return stat(p, &sb) == 0 && S_ISDIR(sb.st_mode);
}

/* Counts the *.otf2 files directly in dir; the first (by name) goes to out. */
static int anchors_in(const char *dir, char *out, size_t len)
{
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	int n = 0;
	char best[256] = "";
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' || !has_suffix(e->d_name, ".otf2") || strlen(e->d_name) >= sizeof(best))
			continue;
		char p[PATH_MAX];
		if ((size_t)snprintf(p, sizeof(p), "%s/%s", dir, e->d_name) >= sizeof(p) || !is_file(p))
			continue;
		if (!n++ || strcmp(e->d_name, best) < 0)
			snprintf(best, sizeof(best), "%s", e->d_name);
	}
	closedir(d);
	if (n && out)
		snprintf(out, len, "%s/%s", dir, best);
	return n;
}

/* An anchor in dir (depth 0) or in one of its subdirectories (depth 1).
 * Returns the number found at the shallowest depth that has any; *depth_out
 * is that depth. */
static int find_anchor(const char *dir, char *out, size_t len, int *depth_out)
{
	*depth_out = 0;
	int n = anchors_in(dir, out, len);
	if (n)
		return n;
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	struct dirent *e;
	char best[PATH_MAX] = "";
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char p[PATH_MAX], a[PATH_MAX];
		if ((size_t)snprintf(p, sizeof(p), "%s/%s", dir, e->d_name) >= sizeof(p) || !is_dir(p))
			continue;
		int k = anchors_in(p, a, sizeof(a));
		if (k && (!n || strcmp(a, best) < 0))
			snprintf(best, sizeof(best), "%s", a);
		n += k;
	}
	closedir(d);
	*depth_out = 1;
	if (n)
		snprintf(out, len, "%s", best);
	return n;
}

static int sniff(const char *path, int dir, const unsigned char *head, size_t n)
{
	if (dir) {
		char a[PATH_MAX];
		int depth;
		if (!find_anchor(path, a, sizeof(a), &depth))
			return TF_SNIFF_NO;
		return depth == 0 ? TF_SNIFF_YES : TF_SNIFF_MAYBE;
	}
	if (is_anchor_head(head, n))
		return TF_SNIFF_YES;
	return has_suffix(path, ".otf2") ? TF_SNIFF_MAYBE : TF_SNIFF_NO;
}

/* ------------------------------------------------------------------ read */

/* A TF_EFORMAT error on the anchor: what failed, and libotf2's message. */
static int otf2_fail(rd *r, const char *what, OTF2_ErrorCode ec)
{
	return tf_error_set(r->err, TF_EFORMAT, r->anchor, -1, -1, "%s (libotf2: %s)", what,
			    otf2_msg[0] ? otf2_msg : OTF2_Error_GetDescription(ec));
}

static int read_defs(rd *r, OTF2_Reader *rdr)
{
	OTF2_GlobalDefReader *gdr = OTF2_Reader_GetGlobalDefReader(rdr);
	if (!gdr)
		return otf2_fail(r, "cannot open the global definitions", OTF2_ERROR_ENOENT);
	OTF2_GlobalDefReaderCallbacks *cb = OTF2_GlobalDefReaderCallbacks_New();
	if (!cb)
		return TF_ENOMEM;
	OTF2_GlobalDefReaderCallbacks_SetStringCallback(cb, def_string);
	OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(cb, def_clock);
	OTF2_GlobalDefReaderCallbacks_SetRegionCallback(cb, def_region);
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
		return otf2_fail(r, "cannot read the global definitions", ec);
	uint64_t n = 0;
	ec = OTF2_Reader_ReadAllGlobalDefinitions(rdr, gdr, &n);
	OTF2_Reader_CloseGlobalDefReader(rdr, gdr);
	if (r->rc < 0)
		return r->rc;
	if (ec != OTF2_SUCCESS)
		return otf2_fail(r, "cannot read the global definitions", ec);
	return 0;
}

static OTF2_EvtReaderCallbacks *event_callbacks(void)
{
	OTF2_EvtReaderCallbacks *cb = OTF2_EvtReaderCallbacks_New();
	if (!cb)
		return NULL;
	OTF2_EvtReaderCallbacks_SetEnterCallback(cb, ev_enter);
	OTF2_EvtReaderCallbacks_SetLeaveCallback(cb, ev_leave);
	OTF2_EvtReaderCallbacks_SetMetricCallback(cb, ev_metric);
	OTF2_EvtReaderCallbacks_SetMpiSendCallback(cb, ev_send);
	OTF2_EvtReaderCallbacks_SetMpiIsendCallback(cb, ev_isend);
	OTF2_EvtReaderCallbacks_SetMpiRecvCallback(cb, ev_recv);
	OTF2_EvtReaderCallbacks_SetMpiIrecvCallback(cb, ev_irecv);
	OTF2_EvtReaderCallbacks_SetMpiCollectiveBeginCallback(cb, ev_coll_begin);
	OTF2_EvtReaderCallbacks_SetMpiCollectiveEndCallback(cb, ev_coll_end);
	OTF2_EvtReaderCallbacks_SetThreadForkCallback(cb, ev_fork);
	OTF2_EvtReaderCallbacks_SetThreadJoinCallback(cb, ev_join);
	OTF2_EvtReaderCallbacks_SetCallingContextEnterCallback(cb, ev_cc_enter);
	OTF2_EvtReaderCallbacks_SetCallingContextLeaveCallback(cb, ev_cc_leave);
	OTF2_EvtReaderCallbacks_SetCallingContextSampleCallback(cb, ev_cc_sample);
	return cb;
}

static const char *loc_name(const rd *r, const d_loc *L)
{
	const char *s = str_text(r, L->name);
	return s ? s : "";
}

static void missing(rd *r, d_loc *L, const char *msg)
{
	L->ldefs = LDEFS_NOT_READ; /* its events are gone: its definitions do not matter */
	if (!L->nevents)
		return;
	tf_ctx_diag(r->ctx)->n[TF_DIAG_missing_location]++;
	tf_ctx_note(r->ctx, "'%s': location %" PRIu64 " (\"%s\"): event data missing or unreadable (libotf2: %s): "
		    "skipped, the other locations are read", r->anchor, L->id, loc_name(r, L),
		    msg[0] ? msg : "?");
}

/* After a location's events: ec and n (records libotf2 decoded, with or
 * without a callback) say whether all of it was read. */
static void location_done(rd *r, d_loc *L, OTF2_ErrorCode ec, uint64_t n, const char *msg)
{
	if (ec == OTF2_SUCCESS)
		return;
	/* nothing read: the event file is missing or unreadable;
	 * something read: the rest of it is damaged */
	if (n == 0) {
		missing(r, L, msg);
	} else {
		/* the undecodable rest counts as one truncated record */
		tf_count_skip(r->ctx, TF_DIAG_truncated_record);
		r->index++;
		tf_ctx_note(r->ctx, "'%s': location %" PRIu64 " (\"%s\"): event data damaged after %"
			    PRIu64 " events (libotf2: %s): the rest of this location is lost",
			    r->anchor, L->id, loc_name(r, L), n, msg[0] ? msg : "?");
	}
}

static locst location_state(rd *r, const d_loc *L)
{
	locst ls = { .r = r, .track = L->track, .loc = L->id };
	const tf_track *t = tf_ctx_track_get(r->ctx, L->track);
	ls.rank = t ? t->rank : -1;
	return ls;
}

/* Reads one location's local definitions: mapping tables and clock offsets,
 * which libotf2 applies to the events read after them.  Returns LDEFS_OK,
 * LDEFS_MISSING (no such file, or the archive's definition files could not
 * be opened) or LDEFS_DAMAGED (*ec_out and otf2_msg say why). */
static uint8_t read_local_defs(OTF2_Reader *rdr, const d_loc *L, bool defs_open, uint32_t *ec_out)
{
	*ec_out = OTF2_SUCCESS;
	if (!defs_open)
		return LDEFS_MISSING;
	otf2_msg[0] = 0;
	OTF2_DefReader *dr = OTF2_Reader_GetDefReader(rdr, L->id);
	if (!dr) { /* no file, or one whose first chunk is damaged */
		*ec_out = otf2_msg[0] ? (uint32_t)otf2_code : OTF2_ERROR_ENOENT;
		return *ec_out == OTF2_ERROR_ENOENT ? LDEFS_MISSING : LDEFS_DAMAGED;
	}
	uint64_t nd = 0;
	OTF2_ErrorCode ec = OTF2_Reader_ReadAllLocalDefinitions(rdr, dr, &nd);
	OTF2_Reader_CloseDefReader(rdr, dr);
	*ec_out = (uint32_t)ec;
	return ec == OTF2_SUCCESS ? LDEFS_OK : LDEFS_DAMAGED;
}

/* Main thread, once read_local_defs() said how a location's definitions
 * were: a damaged file is noted now, missing ones at the end (note_ldefs). */
static void ldefs_read(rd *r, d_loc *L, uint8_t st, uint32_t ec, const char *msg)
{
	L->ldefs = st;
	if (st != LDEFS_DAMAGED)
		return;
	tf_ctx_diag(r->ctx)->n[TF_DIAG_missing_local_defs]++;
	tf_ctx_note(r->ctx, "'%s': location %" PRIu64 " (\"%s\"): local definitions damaged (libotf2: %s): "
			    "its events are read without the mapping tables and clock offsets after the damage "
			    "(ids may be taken as global ones, times not corrected)", r->anchor, L->id, loc_name(r, L),
			    msg[0] ? msg : OTF2_Error_GetDescription((OTF2_ErrorCode)ec));
}

/* After every location: local definitions are optional in OTF2, so an
 * archive without any is noted once; one where some locations have them
 * and others not (a lost file) gets a note for each of those. */
static void note_ldefs(rd *r)
{
	size_t nread = 0, nmissing = 0;
	for (size_t i = 0; i < r->nlocs; i++) {
		const d_loc *L = &r->locs[i];
		if (L->ldefs == LDEFS_NOT_READ || !L->nevents)
			continue;
		nread++;
		nmissing += L->ldefs == LDEFS_MISSING;
	}
	if (!nmissing)
		return;
	if (nmissing == nread) {
		tf_ctx_note(r->ctx, "'%s': no local definitions for any of the %zu locations with events: their events "
			    "are read without mapping tables or clock offsets (ids taken as global ones, times not "
			    "corrected); nothing is lost if the writer wrote none", r->anchor, nread);
		return;
	}
	for (size_t i = 0; i < r->nlocs; i++) {
		const d_loc *L = &r->locs[i];
		if (L->ldefs != LDEFS_MISSING || !L->nevents)
			continue;
		tf_ctx_diag(r->ctx)->n[TF_DIAG_missing_local_defs]++;
		tf_ctx_note(r->ctx, "'%s': location %" PRIu64 " (\"%s\"): local definitions missing, while other "
			    "locations have theirs: its events are read without mapping tables or clock offsets "
			    "(ids may be taken as global ones, times not corrected)", r->anchor, L->id, loc_name(r, L));
	}
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

/* Reads one location's events into cb with ud (its local definitions were
 * read before: read_local_defs).  Returns false when its event reader
 * cannot be had (then otf2_msg says why); else *ec_out and *n_out are as
 * location_done() wants them. */
static bool read_location(OTF2_Reader *rdr, const d_loc *L, const OTF2_EvtReaderCallbacks *cb,
			  void *ud, OTF2_ErrorCode *ec_out, uint64_t *n_out)
{
	otf2_msg[0] = 0;
	OTF2_EvtReader *er = OTF2_Reader_GetEvtReader(rdr, L->id);
	if (!er)
		return false;
	uint64_t n = 0;
	OTF2_ErrorCode ec = OTF2_Reader_RegisterEvtCallbacks(rdr, er, cb, ud);
	if (ec == OTF2_SUCCESS)
		ec = OTF2_Reader_ReadAllLocalEvents(rdr, er, &n);
	OTF2_Reader_CloseEvtReader(rdr, er);
	*ec_out = ec;
	*n_out = n;
	return true;
}

/* Every location, one at a time in definition order, for either path: how
 * its local definitions were read (P_LOC), its events (the callbacks), how
 * they ended (P_MISSING, P_END).  Returns when done or stopped. */
static void decode(decoder *d)
{
	for (size_t i = 0; i < d->nlocs && !d->stopped; i++) {
		const d_loc *L = &d->locs[i];
		uint32_t lec;
		uint8_t st = read_local_defs(d->rdr, L, d->defs_open, &lec);
		prec *q = put_begin(d, P_LOC, 1, st == LDEFS_DAMAGED);
		if (!q)
			break;
		q->a = (uint32_t)i;
		q->x.u = st | (uint64_t)lec << 8;
		put_end(d, q);
		OTF2_ErrorCode ec;
		uint64_t n;
		if (!read_location(d->rdr, L, d->cb, d, &ec, &n)) {
			if ((q = put_begin(d, P_MISSING, 1, true))) {
				q->a = (uint32_t)i;
				put_end(d, q);
			}
			continue;
		}
		if (d->stopped)
			break; /* stopped inside the location */
		if ((q = put_begin(d, P_END, 2, ec != OTF2_SUCCESS))) {
			q->a = (uint32_t)i;
			q->x.u = n;
			q[1].a = (uint32_t)ec;
			put_end(d, q);
		}
	}
}

/* The serial path: the callbacks run on this thread and each record is
 * applied as it is put. */
static int read_serial(rd *r, OTF2_Reader *rdr, bool defs_open)
{
	OTF2_EvtReaderCallbacks *cb = event_callbacks();
	if (!cb)
		return TF_ENOMEM;
	decoder d;
	decoder_init(&d, r, rdr, cb, defs_open, false);
	decode(&d);
	OTF2_EvtReaderCallbacks_Delete(cb);
	return d.stopped ? r->rc : 0;
}

/* ------------------------------------------------- the pipelined reader
 *
 *   decode thread: libotf2 -> the event callbacks -> records (prec) put
 *                  in batches --bounded queue--> main thread: apply(), as
 *                  the serial path -> tf_emit -> sink
 *
 * The decode thread owns the OTF2_Reader from pthread_create to
 * pthread_join (the main thread does not touch it meanwhile).  It reads
 * only what is fixed once the definitions are read (clock, region names,
 * locations: the decoder's copy); everything that interns, counts, notes or
 * resolves lazily (metric classes, communicators) stays on the main thread,
 * which applies the records in the order they were put. */

#ifndef PIPE_RECS
#define PIPE_RECS 16384 /* slots per batch (256 KiB) */
#endif
#define PIPE_BATCHES 4  /* batches in all: one being filled, up to 3 queued */
#define PIPE_NOTES 8    /* libotf2 messages per batch */

typedef struct batch {
	uint32_t n, nnotes;
	msgbuf note[PIPE_NOTES];
	_Alignas(64) prec rec[PIPE_RECS];
} batch;

/* Shared by the two threads.  The main thread's and the decode thread's
 * fields are on separate cache lines, and the decode thread keeps its own
 * copy of what it reads from rd (which lives on the main thread's stack
 * next to fields the main thread writes for every event): sharing a cache
 * line with the other thread's per-event writes costs more than the
 * pipeline gains. */
typedef struct piped {
	/* both, under mu (a few times per batch) */
	pthread_mutex_t mu;
	pthread_cond_t filled, emptied;
	batch *full[PIPE_BATCHES]; /* ring: decoded, not yet applied */
	unsigned head, nfull;
	batch *spare[PIPE_BATCHES];
	unsigned nspare;
	bool stop;                 /* main -> worker: stop decoding */
	bool done;                 /* worker -> main: no more batches */
	batch *all[PIPE_BATCHES];  /* main: to free */

	/* decode thread only (set before pthread_create) */
	_Alignas(64) decoder d;
} piped;

/* Decode thread: queues the current batch and takes a spare one; false
 * (and d->stopped) when the main thread said stop. */
static bool pipe_flush(decoder *d)
{
	piped *p = tf_container_of(d, piped, d);
	if (!d->cur)
		return false;
#ifdef __SSE2__
	_mm_sfence(); /* the records before the hand-over */
#endif
	d->cur->n = (uint32_t)(d->wp - d->cur->rec);
	d->wp = d->wend = NULL;
	pthread_mutex_lock(&p->mu);
	p->full[(p->head + p->nfull++) % PIPE_BATCHES] = d->cur;
	pthread_cond_signal(&p->filled);
	while (!p->nspare && !p->stop)
		pthread_cond_wait(&p->emptied, &p->mu);
	d->cur = p->stop ? NULL : p->spare[--p->nspare];
	pthread_mutex_unlock(&p->mu);
	if (!d->cur) {
		d->stopped = true;
		return false;
	}
	d->cur->n = d->cur->nnotes = 0;
	d->wp = d->cur->rec;
	d->wend = d->cur->rec + PIPE_RECS;
	return true;
}

/* Decode thread: room for a record of n slots that carries libotf2's
 * current message (copied into the batch, note slot k); NULL once stopped. */
static prec *pipe_put_note(decoder *d, uint8_t kind, uint32_t n)
{
	if (d->cur && d->cur->nnotes == PIPE_NOTES && !pipe_flush(d))
		return NULL;
	prec *q = pipe_room(d, kind, n);
	if (!q)
		return NULL;
	q->k = (uint8_t)d->cur->nnotes++;
	memcpy(d->cur->note[q->k], otf2_msg, sizeof(otf2_msg));
	return q;
}

/* The decode thread: every location, as the serial path reads them. */
static void *pipe_worker(void *arg)
{
	piped *p = arg;
	decode(&p->d);
	pthread_mutex_lock(&p->mu);
	if (p->d.cur) {
		p->d.cur->n = (uint32_t)(p->d.wp - p->d.cur->rec);
		p->full[(p->head + p->nfull++) % PIPE_BATCHES] = p->d.cur;
	}
	p->d.cur = NULL;
	p->done = true;
	pthread_cond_signal(&p->filled);
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

/* Returns 1 when the pipeline could not be started (then nothing was read:
 * the caller reads serially). */
static int read_piped(rd *r, OTF2_Reader *rdr, bool defs_open)
{
	piped *p = aligned_alloc(64, sizeof(piped));
	OTF2_EvtReaderCallbacks *cb = event_callbacks();
	int rc = p && cb ? 0 : TF_ENOMEM;
	if (p) {
		*p = (piped){ 0 };
		decoder_init(&p->d, r, rdr, cb, defs_open, true);
	}
	for (int i = 0; i < PIPE_BATCHES && rc == 0; i++)
		if (!(p->all[i] = aligned_alloc(64, sizeof(batch))))
			rc = TF_ENOMEM;
	if (rc < 0)
		goto out;
	p->d.cur = p->all[0];
	p->d.cur->n = p->d.cur->nnotes = 0;
	p->d.wp = p->d.cur->rec;
	p->d.wend = p->d.cur->rec + PIPE_RECS;
	for (int i = 1; i < PIPE_BATCHES; i++)
		p->spare[p->nspare++] = p->all[i];
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->filled, NULL);
	pthread_cond_init(&p->emptied, NULL);
	pthread_t th;
	if (pthread_create(&th, NULL, pipe_worker, p) != 0) {
		rc = 1;
		goto destroy;
	}
	locst l = { .r = r };
	for (;;) {
		pthread_mutex_lock(&p->mu);
		while (!p->nfull && !p->done)
			pthread_cond_wait(&p->filled, &p->mu);
		batch *b = NULL;
		if (p->nfull) {
			b = p->full[p->head];
			p->head = (p->head + 1) % PIPE_BATCHES;
			p->nfull--;
		}
		pthread_mutex_unlock(&p->mu);
		if (!b)
			break;
		rc = apply_records(&l, b->rec, b->n, (const msgbuf *)b->note);
		pthread_mutex_lock(&p->mu);
		p->spare[p->nspare++] = b;
		if (rc < 0)
			p->stop = true;
		pthread_cond_signal(&p->emptied);
		pthread_mutex_unlock(&p->mu);
		if (rc < 0)
			break;
	}
	pthread_join(th, NULL);
destroy:
	pthread_cond_destroy(&p->emptied);
	pthread_cond_destroy(&p->filled);
	pthread_mutex_destroy(&p->mu);
out:
	if (p)
		for (int i = 0; i < PIPE_BATCHES; i++)
			free(p->all[i]);
	free(p);
	if (cb)
		OTF2_EvtReaderCallbacks_Delete(cb);
	return rc;
}

/* TRACEFOLD_THREADS=2 (or more): the pipeline, whatever the number of
 * CPUs; unset or 1: the serial path.  Serial is the default because on the
 * 2-core machine it was measured on (shared with other jobs) the pipeline
 * did not reliably beat it (docs/performance.md, "OTF2 reader"). */
static bool use_pipeline(void)
{
	const char *e = getenv("TRACEFOLD_THREADS");
	return e && atoi(e) >= 2;
}

/* Reads the events of every location, one location at a time, each in the
 * order the archive stores them.  A location whose event data cannot be
 * read is counted (missing_location) and the others are still read. */
static int read_events(rd *r, OTF2_Reader *rdr)
{
	for (size_t i = 0; i < r->nlocs; i++)
		if (OTF2_Reader_SelectLocation(rdr, r->locs[i].id) != OTF2_SUCCESS)
			return otf2_fail(r, "cannot select a location", OTF2_ERROR_INVALID);
	bool defs_open = OTF2_Reader_OpenDefFiles(rdr) == OTF2_SUCCESS; /* local defs are optional */
	OTF2_ErrorCode ec = OTF2_Reader_OpenEvtFiles(rdr);
	if (ec != OTF2_SUCCESS) {
		if (defs_open)
			OTF2_Reader_CloseDefFiles(rdr);
		return otf2_fail(r, "cannot open the event files", ec);
	}
	int rc = 1;
	if (use_pipeline())
		rc = read_piped(r, rdr, defs_open);
	if (rc == 1)
		rc = read_serial(r, rdr, defs_open);
	if (rc == 0)
		note_ldefs(r);
	OTF2_Reader_CloseEvtFiles(rdr);
	if (defs_open)
		OTF2_Reader_CloseDefFiles(rdr);
	return rc;
}

static int read_input(const char *path, uint32_t input, tf_ctx *ctx, tf_sink *sink, tf_error *err)
{
	char anchor[PATH_MAX];
	if (is_dir(path)) {
		int depth;
		int n = find_anchor(path, anchor, sizeof(anchor), &depth);
		if (n == 0)
			return tf_error_set(err, TF_EFORMAT, path, -1, -1, "no OTF2 anchor file (*.otf2) in this directory");
		if (n > 1)
			return tf_error_set(err, TF_EUSAGE, path, -1, -1,
					    "%d OTF2 anchor files (*.otf2) in this directory; name one", n);
	} else {
		if ((size_t)snprintf(anchor, sizeof(anchor), "%s", path) >= sizeof(anchor))
			return tf_error_set(err, TF_EIO, path, -1, -1, "path too long");
	}

	/* libotf2 leaks its file handle when OTF2_Reader_Open fails on a file
	 * that is no anchor at all: check the magic first */
	unsigned char head[8];
	ptrdiff_t nh = tf_file_head(anchor, head, sizeof(head), err);
	if (nh < 0)
		return (int)nh;
	if (!is_anchor_head(head, (size_t)nh))
		return tf_error_set(err, TF_EFORMAT, anchor, 0, -1, "not an OTF2 anchor file");

	rd r = { .ctx = ctx, .sink = sink, .err = err, .path = path, .anchor = anchor, .input = input };
	clock_set(&r, 1000000000ull, 0);
	OTF2_ErrorCallback old = OTF2_Error_RegisterCallback(quiet_error, NULL);
	otf2_msg[0] = 0;
	int rc;
	OTF2_Reader *rdr = OTF2_Reader_Open(anchor);
	if (!rdr) {
		rc = otf2_fail(&r, "not a readable OTF2 archive", OTF2_ERROR_INVALID);
		goto out;
	}
	OTF2_Reader_SetSerialCollectiveCallbacks(rdr);
	rc = read_defs(&r, rdr);
	if (rc == 0)
		note_clock(&r);
	if (rc == 0)
		rc = resolve_regions(&r);
	if (rc == 0) {
		resolve_ranks(&r);
		rc = define_tracks(&r);
	}
	if (rc == 0)
		rc = read_events(&r, rdr);
	OTF2_Reader_Close(rdr);
out:
	OTF2_Error_RegisterCallback(old, NULL);
	rd_free(&r);
	if (rc == TF_ENOMEM)
		return tf_error_set(err, TF_ENOMEM, path, -1, -1, "out of memory");
	return rc;
}

const tf_format tf_format_otf2 = {
	"otf2",
	"OTF2 archive (Score-P, TAU): an anchor file (*.otf2) or a directory holding one",
	sniff,
	read_input,
};
