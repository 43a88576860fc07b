/* otf2_defs.c - the OTF2 writer's definitions (otf2_int.h): names
 * numbered in first-use order as the events are written (strings, regions,
 * metric classes), the location groups of tracks, and at the end the
 * processes of no track and every definition: clock, strings, system tree,
 * location groups, locations, MPI_COMM_WORLD, regions, metrics,
 * attributes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "otf2_int.h"
#include "grow.h"

/* The ref of name s in table t, numbered if new (0 when out of memory:
 * w->rc says so). */
static uint32_t ref_of(tf_otf2_out *w, nametab *t, tf_str s)
{
	uint32_t r = tf_hmap_get(&t->ref, s);
	if (r != NONE)
		return r;
	if (tf_grow((void **)&t->name, &t->cap, t->n + 1, sizeof(tf_str)) < 0 || tf_hmap_put(&t->ref, s, t->n) < 0) {
		tf_otf2_out_oom(w);
		return 0;
	}
	t->name[t->n] = s;
	return t->n++;
}

static uint32_t string_ref(tf_otf2_out *w, tf_str s)
{
	return ref_of(w, &w->strings, s);
}

uint32_t tf_otf2_out_string_cstr(tf_otf2_out *w, const char *s)
{
	tf_str id = tf_strtab_intern_cstr(w->st, s);
	if (id == (tf_str)-1) {
		tf_otf2_out_oom(w);
		return 0;
	}
	return string_ref(w, id);
}

/* A region or metric class of a name, whose string is defined too. */
uint32_t tf_otf2_out_named_ref(tf_otf2_out *w, nametab *t, tf_str name)
{
	string_ref(w, name);
	return ref_of(w, t, name);
}

/* The location group of a track: its process's, or for a GPU stream its
 * device's (an accelerator group created by the process of the same rank
 * or input). */
uint32_t tf_otf2_out_group_of(tf_otf2_out *w, const tf_track *t, bool gpu)
{
	/* a process: its rank, or its input and key */
	uint64_t key = t->rank >= 0 ? (uint64_t)t->rank : (1ull << 62) | (uint64_t)t->input << 32 | t->process_key;
	key ^= gpu ? 1ull << 63 : 0;
	uint32_t g = tf_hmap_get(&w->grp_of, key);
	if (g != NONE)
		return g;
	if (tf_grow((void **)&w->grp, &w->capgrp, w->ngrp + 1, sizeof(ogroup)) < 0 ||
	    tf_hmap_put(&w->grp_of, key, w->ngrp) < 0) {
		tf_otf2_out_oom(w);
		return NONE;
	}
	char buf[600];
	const char *pn = t->process_name ? tf_strtab_get(w->st, t->process_name) : NULL;
	if (t->rank >= 0)
		snprintf(buf, sizeof(buf), "rank %lld%s", (long long)t->rank, gpu ? " GPU" : "");
	else if (pn)
		snprintf(buf, sizeof(buf), "%.500s", pn);
	else
		snprintf(buf, sizeof(buf), "process %.500s", tf_strtab_get(w->st, t->process_key));
	tf_str name = tf_strtab_intern_cstr(w->st, buf);
	if (name == (tf_str)-1) {
		tf_otf2_out_oom(w);
		return NONE;
	}
	w->grp[w->ngrp] = (ogroup){ .name = name, .rank = t->rank, .accel = gpu, .creator = NONE,
				    .first_loc = NONE, .input = t->input, .key = key };
	string_ref(w, name);
	if (t->rank > w->max_rank)
		w->max_rank = t->rank;
	return w->ngrp++;
}

static const char *location_name(tf_otf2_out *w, const oloc *l, char *buf, size_t n)
{
	if (l->name)
		return tf_strtab_get(w->st, l->name);
	const tf_track *t = tf_ctx_track_get(w->ctx, l->track);
	if (t->thread_name)
		return tf_strtab_get(w->st, t->thread_name);
	snprintf(buf, n, "thread %.500s", tf_strtab_get(w->st, t->thread_key));
	return buf;
}

#define GDW(call, what)                                                                                    \
	do {                                                                                               \
		OTF2_ErrorCode e_ = (call);                                                                \
		if (e_ != OTF2_SUCCESS)                                                                    \
			return tf_otf2_out_fail(w, e_, what);                                                          \
	} while (0)

/* The processes of no track: a rank with no track of its own (a message
 * peer, a rank left out by --ranks), so that MPI_COMM_WORLD lists every
 * rank in order; a GPU device whose process is not in the input.  Each is
 * a process with an empty location, whose (empty) event file is written
 * now, as readers open one per location. */
int tf_otf2_out_plan_extras(tf_otf2_out *w)
{
	/* MPI_COMM_WORLD: the run's ranks (those of every track read, written
	 * or left out by --ranks), not the largest peer a damaged message
	 * names, which would make a process per number up to it */
	for (uint32_t i = 0, n = tf_ctx_track_count(w->ctx); i < n; i++) {
		const tf_track *u = tf_ctx_track_get(w->ctx, i);
		if (u && u->rank > w->run_max_rank)
			w->run_max_rank = u->rank;
	}
	int64_t top = w->max_peer < w->run_max_rank ? w->max_peer : w->run_max_rank;
	top = w->max_rank > top ? w->max_rank : top;
	int64_t nranks = w->any_mpi ? top + 1 : 0;
	if (w->max_peer > top)
		tf_ctx_warn(w->ctx, "OTF2: messages name peers up to rank %lld, beyond the run's ranks (0..%lld): their "
			    "receivers or senders are not in MPI_COMM_WORLD", (long long)w->max_peer, (long long)top);
	char buf[700];
	if (nranks > (1 << 24))
		return tf_error_set(&w->err, w->rc = TF_EFORMAT, NULL, -1, -1,
				    "rank %lld is too large for an OTF2 communicator", (long long)w->max_rank);
	w->nranks = nranks;
	if (!(w->rank_loc = malloc(((size_t)nranks + 1) * sizeof(uint32_t))) ||
	    !(w->ex = calloc((size_t)nranks + w->ngrp + 1, sizeof(*w->ex))))
		return tf_otf2_out_oom(w);
	for (int64_t r = 0; r < nranks; r++)
		w->rank_loc[r] = NONE;
	for (uint32_t g = 0; g < w->ngrp; g++)
		if (!w->grp[g].accel && w->grp[g].rank >= 0 && w->grp[g].rank < nranks)
			w->rank_loc[w->grp[g].rank] = w->grp[g].first_loc;
	/* every accelerator group is created by a process: the one of its rank
	 * or key, else the input's first (Kineto puts GPU streams under the
	 * device's pid, not the process's), else one of its own ("NAME host") */
	for (uint32_t g = 0; g < w->ngrp; g++) {
		ogroup *a = &w->grp[g];
		if (!a->accel)
			continue;
		uint32_t c = tf_hmap_get(&w->grp_of, a->key ^ (1ull << 63));
		for (uint32_t k = 0; k < w->ngrp && (c == NONE || w->grp[c].first_loc == NONE); k++)
			if (!w->grp[k].accel && w->grp[k].first_loc != NONE &&
			    (a->rank >= 0 ? w->grp[k].rank == a->rank : w->grp[k].input == a->input))
				c = k;
		a->creator = c != NONE && w->grp[c].first_loc != NONE ? c : NONE;
	}
	uint32_t gnext = w->ngrp, lnext = w->nloc;
	for (int64_t r = 0; r < nranks; r++)
		if (w->rank_loc[r] == NONE) {
			snprintf(buf, sizeof(buf), "rank %lld", (long long)r);
			w->ex[w->nex++] = (struct extra){ tf_strtab_intern_cstr(w->st, buf), gnext++, lnext };
			w->rank_loc[r] = lnext++;
		}
	for (uint32_t g = 0; g < w->ngrp; g++) {
		ogroup *a = &w->grp[g];
		if (!a->accel || a->creator != NONE)
			continue;
		snprintf(buf, sizeof(buf), "%.600s host", tf_strtab_get(w->st, a->name));
		w->ex[w->nex++] = (struct extra){ tf_strtab_intern_cstr(w->st, buf), gnext, lnext++ };
		a->creator = gnext++;
	}
	for (uint32_t k = 0; k < w->nex; k++) {
		if (w->ex[k].name == (tf_str)-1)
			return tf_otf2_out_oom(w);
		OTF2_EvtWriter *ew = OTF2_Archive_GetEvtWriter(w->ar, w->ex[k].loc);
		OTF2_ErrorCode e = ew ? OTF2_Archive_CloseEvtWriter(w->ar, ew) : OTF2_ERROR_MEM_ALLOC_FAILED;
		if (e != OTF2_SUCCESS)
			return tf_otf2_out_fail(w, e, "an event file");
	}
	return w->rc;
}

int tf_otf2_out_write_defs(tf_otf2_out *w)
{
	uint32_t *rank_loc = w->rank_loc;
	int64_t nranks = w->nranks;
	char buf[700];
	OTF2_GlobalDefWriter *d = OTF2_Archive_GetGlobalDefWriter(w->ar);
	if (!d)
		return tf_otf2_out_fail(w, OTF2_ERROR_MEM_ALLOC_FAILED, "the definitions");
	uint32_t s_empty = tf_otf2_out_string_cstr(w, ""), s_machine = tf_otf2_out_string_cstr(w, "tracefold"),
		 s_mclass = tf_otf2_out_string_cstr(w, "machine"), s_node = tf_otf2_out_string_cstr(w, "node");
	uint32_t s_attr[AT_COUNT] = { tf_otf2_out_string_cstr(w, "tracefold::repaired"), tf_otf2_out_string_cstr(w, "tracefold::gpu"),
				      tf_otf2_out_string_cstr(w, "tracefold::correlation") };
	uint32_t s_launches = tf_otf2_out_string_cstr(w, "tracefold::gpu_launches");
	uint32_t s_comm = tf_otf2_out_string_cstr(w, "MPI_COMM_WORLD"), s_ranks = tf_otf2_out_string_cstr(w, "MPI_COMM_WORLD ranks"),
		 s_locs = tf_otf2_out_string_cstr(w, "MPI locations"), s_missing = tf_otf2_out_string_cstr(w, "(not in this trace)");
	/* every string a definition names, before the strings are written */
	for (uint32_t i = 0; i < w->nloc; i++)
		tf_otf2_out_string_cstr(w, location_name(w, &w->loc[i], buf, sizeof(buf)));
	for (uint32_t k = 0; k < w->nex; k++)
		string_ref(w, w->ex[k].name);
	if (w->rc)
		return w->rc;
	int64_t lo = w->min_ts == INT64_MAX ? 0 : w->min_ts, hi = w->max_ts == INT64_MIN ? 0 : w->max_ts;
	OTF2_ErrorCode e = OTF2_GlobalDefWriter_WriteClockProperties(d, 1000000000, (uint64_t)lo, (uint64_t)(hi - lo),
								     OTF2_UNDEFINED_TIMESTAMP);
	for (uint32_t i = 0; i < w->strings.n && e == OTF2_SUCCESS; i++)
		e = OTF2_GlobalDefWriter_WriteString(d, i, w->strings.name[i] ? tf_strtab_get(w->st, w->strings.name[i]) : "");
	if (e == OTF2_SUCCESS)
		e = OTF2_GlobalDefWriter_WriteSystemTreeNode(d, 0, s_machine, s_mclass, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
	if (e == OTF2_SUCCESS)
		e = OTF2_GlobalDefWriter_WriteSystemTreeNode(d, 1, s_node, s_node, 0);
	/* location groups: processes first (a creator comes before what it creates) */
	for (uint32_t g = 0; g < w->ngrp && e == OTF2_SUCCESS; g++)
		if (!w->grp[g].accel)
			e = OTF2_GlobalDefWriter_WriteLocationGroup(d, g, string_ref(w, w->grp[g].name),
								    OTF2_LOCATION_GROUP_TYPE_PROCESS, 1,
								    OTF2_UNDEFINED_LOCATION_GROUP);
	for (uint32_t k = 0; k < w->nex && e == OTF2_SUCCESS; k++) {
		e = OTF2_GlobalDefWriter_WriteLocationGroup(d, w->ex[k].group, string_ref(w, w->ex[k].name),
							    OTF2_LOCATION_GROUP_TYPE_PROCESS, 1, OTF2_UNDEFINED_LOCATION_GROUP);
		if (e == OTF2_SUCCESS)
			e = OTF2_GlobalDefWriter_WriteLocation(d, w->ex[k].loc, s_missing, OTF2_LOCATION_TYPE_CPU_THREAD, 0,
							       w->ex[k].group);
	}
	for (uint32_t g = 0; g < w->ngrp && e == OTF2_SUCCESS; g++)
		if (w->grp[g].accel)
			e = OTF2_GlobalDefWriter_WriteLocationGroup(d, g, string_ref(w, w->grp[g].name),
								    OTF2_LOCATION_GROUP_TYPE_ACCELERATOR, 1,
								    w->grp[g].creator);
	for (uint32_t i = 0; i < w->nloc && e == OTF2_SUCCESS; i++) {
		const oloc *l = &w->loc[i];
		e = OTF2_GlobalDefWriter_WriteLocation(d, i, tf_otf2_out_string_cstr(w, location_name(w, l, buf, sizeof(buf))),
						       l->gpu ? OTF2_LOCATION_TYPE_ACCELERATOR_STREAM
							      : OTF2_LOCATION_TYPE_CPU_THREAD,
						       l->nevents, l->group);
	}
	/* GPU streams whose activities went under their launches (sorted
	 * tracks: Kineto, rocprofiler; not those that nest in place, as
	 * Score-P's do, read from another timeline): read back, they do again */
	for (uint32_t i = 0; i < w->nloc && e == OTF2_SUCCESS; i++) {
		const tf_track *t = tf_ctx_track_get(w->ctx, w->loc[i].track);
		if (w->loc[i].gpu && t && tf_track_gpu_joined(t)) {
			OTF2_AttributeValue v;
			v.uint8 = 1;
			e = OTF2_GlobalDefWriter_WriteLocationProperty(d, i, s_launches, OTF2_TYPE_UINT8, v);
		}
	}
	if (e != OTF2_SUCCESS)
		return tf_otf2_out_fail(w, e, "the definitions");
	if (nranks) {
		uint64_t *m = malloc((size_t)nranks * sizeof(uint64_t));
		if (!m)
			return tf_otf2_out_oom(w);
		for (int64_t r = 0; r < nranks; r++)
			m[r] = rank_loc[r];
		e = OTF2_GlobalDefWriter_WriteGroup(d, 0, s_locs, OTF2_GROUP_TYPE_COMM_LOCATIONS,
								   OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
								   (uint32_t)nranks, m);
		for (int64_t r = 0; r < nranks && e == OTF2_SUCCESS; r++)
			m[r] = (uint64_t)r;
		if (e == OTF2_SUCCESS)
			e = OTF2_GlobalDefWriter_WriteGroup(d, 1, s_ranks, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
							    OTF2_GROUP_FLAG_NONE, (uint32_t)nranks, m);
		if (e == OTF2_SUCCESS)
			e = OTF2_GlobalDefWriter_WriteComm(d, 0, s_comm, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
		free(m);
		if (e != OTF2_SUCCESS)
			return tf_otf2_out_fail(w, e, "the MPI communicator");
	}
	for (uint32_t i = 0; i < w->regions.n; i++) {
		tf_str name = w->regions.name[i];
		const char *n = tf_strtab_get(w->st, name);
		/* MPI functions as MPI's (Scalasca and Vampir group them by paradigm) */
		OTF2_Paradigm par = !strncmp(n, "MPI_", 4) || !strncmp(n, "PMPI_", 5) ? OTF2_PARADIGM_MPI
										      : OTF2_PARADIGM_USER;
		OTF2_RegionRole role = OTF2_REGION_ROLE_FUNCTION;
		uint32_t sn = string_ref(w, name);
		GDW(OTF2_GlobalDefWriter_WriteRegion(d, i, sn, sn, s_empty, role, par, OTF2_REGION_FLAG_NONE, s_empty, 0,
						     0),
		    "a region");
	}
	for (uint32_t i = 0; i < w->metrics.n; i++) {
		OTF2_MetricMemberRef m = i;
		GDW(OTF2_GlobalDefWriter_WriteMetricMember(d, i, string_ref(w, w->metrics.name[i]), s_empty,
							   OTF2_METRIC_TYPE_USER, OTF2_METRIC_ABSOLUTE_POINT,
							   OTF2_TYPE_DOUBLE, OTF2_BASE_DECIMAL, 0, s_empty),
		    "a metric");
		GDW(OTF2_GlobalDefWriter_WriteMetricClass(d, i, 1, &m, OTF2_METRIC_ASYNCHRONOUS, OTF2_RECORDER_KIND_ABSTRACT),
		    "a metric");
	}
	/* tracefold::correlation only where an id was written: a reader
	 * that sees it nests GPU streams under their launches (Kineto), one
	 * that does not leaves them where they are (Score-P's GPU locations) */
	for (uint32_t a = 0; a < AT_COUNT; a++)
		if (a != AT_CORRELATION || w->any_corr)
			GDW(OTF2_GlobalDefWriter_WriteAttribute(d, a, s_attr[a], s_empty,
							a == AT_REPAIRED	? OTF2_TYPE_STRING
							: a == AT_CORRELATION ? OTF2_TYPE_UINT64
									      : OTF2_TYPE_UINT8),
		    "an attribute");
	e = OTF2_Archive_CloseGlobalDefWriter(w->ar, d);
	if (e != OTF2_SUCCESS)
		return tf_otf2_out_fail(w, e, "the definitions");
	/* each location's (empty) local definitions, as readers expect them */
	if ((e = OTF2_Archive_OpenDefFiles(w->ar)) != OTF2_SUCCESS)
		return tf_otf2_out_fail(w, e, "the definition files");
	for (uint32_t i = 0; i < w->nloc + w->nex; i++) {
		OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(w->ar, i);
		if (!dw || (e = OTF2_Archive_CloseDefWriter(w->ar, dw)) != OTF2_SUCCESS)
			return tf_otf2_out_fail(w, dw ? e : OTF2_ERROR_MEM_ALLOC_FAILED, "a definition file");
	}
	if ((e = OTF2_Archive_CloseDefFiles(w->ar)) != OTF2_SUCCESS)
		return tf_otf2_out_fail(w, e, "the definition files");
	return w->rc;
}
