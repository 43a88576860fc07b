/* perfetto_samples.c - sampled stacks (TF_EV_SAMPLE) in the Perfetto
 * trace (docs/perfetto.md "Samples"): each sample a TracePacket.perf_sample
 * (PerfSample: pid, tid, callstack_iid) on its thread's sequence, the way
 * Perfetto's own traced_perf writes them, so that trace processor fills
 * its perf_sample table and the UI shows them on the thread with a
 * flamegraph.  The callstack and what it names are interned on the
 * sequence the first time they are used there (InternedData.callstacks,
 * frames, function_names; one Mapping, "tracefold", that every frame
 * names: trace processor drops a frame without a mapping).  A callstack's
 * iid is its stack id (the ctx's sample-stack tree, raw names), a frame's
 * iid, function name iid and rel_pc are its name's string id: one frame
 * per function.  A sample that stands for n samples is n packets (at most
 * TF_PF_MAX_REPEAT); the weight has no field of PerfSample to go in. */
#include <stdlib.h>
#include <string.h>
#include "tracefold/cpath.h"
#include "grow.h"
#include "perfetto_int.h"

#define TF_PF_MAX_REPEAT 65536
#define MAPPING_IID 1

typedef Perfetto__Protos__InternedString PB_Str;
typedef Perfetto__Protos__Frame PB_Frame;

/* The interned data of a packet: at most one callstack, its new frames
 * and names, and the mapping. */
typedef struct sinterned {
	PB_Interned in;
	PB_Str *names, **pnames;
	PB_Frame *frames, **pframes;
	Perfetto__Protos__Callstack cs, *pcs[1];
	PB_Str path, *ppath[1];
	Perfetto__Protos__Mapping map, *pmap[1];
	uint64_t path_id;
} sinterned;

/* The frames of stack, root first, in w->frames; their count or -1. */
static int64_t stack_frames(tf_perfetto_out *w, uint32_t stack)
{
	const tf_cpath *st = tf_ctx_stacks(w->ctx);
	uint32_t n = 0;
	for (uint32_t s = stack; st && s != TF_CPATH_ROOT;) {
		const tf_cpath_node *sn = tf_cpath_get(st, s);
		if (tf_grow((void **)&w->frames, &w->capframes, n + 1, sizeof(uint64_t)) < 0)
			return -1;
		w->frames[n++] = sn->frame;
		s = sn->parent;
	}
	for (uint32_t i = 0; i < n / 2; i++) {
		uint64_t t = w->frames[i];
		w->frames[i] = w->frames[n - 1 - i];
		w->frames[n - 1 - i] = t;
	}
	return n;
}

/* The callstack of stack (and its frames and names not yet there) in k,
 * when the sequence of track does not have it. */
static int intern_stack(tf_perfetto_out *w, uint32_t track, uint32_t stack, sinterned *k)
{
	int r = pfw_intern_once(w, track, IN_MAPPING, MAPPING_IID);
	if (r < 0)
		return w->rc = TF_ENOMEM;
	if (r == 0) { /* the one mapping, first on the sequence */
		k->path = (PB_Str)PERFETTO__PROTOS__INTERNED_STRING__INIT;
		k->path.has_iid = k->path.has_str = 1;
		k->path.iid = MAPPING_IID;
		k->path.str.data = (uint8_t *)"tracefold";
		k->path.str.len = strlen("tracefold");
		k->ppath[0] = &k->path;
		k->in.n_mapping_paths = 1;
		k->in.mapping_paths = k->ppath;
		k->map = (Perfetto__Protos__Mapping)PERFETTO__PROTOS__MAPPING__INIT;
		k->map.has_iid = 1;
		k->map.iid = MAPPING_IID;
		k->path_id = MAPPING_IID;
		k->map.n_path_string_ids = 1;
		k->map.path_string_ids = &k->path_id;
		k->pmap[0] = &k->map;
		k->in.n_mappings = 1;
		k->in.mappings = k->pmap;
	}
	if ((r = pfw_intern_once(w, track, IN_STACK, stack)) < 0)
		return w->rc = TF_ENOMEM;
	if (r == 1)
		return 0;
	int64_t n = stack_frames(w, stack);
	if (n < 0 || !(k->names = calloc((size_t)n, sizeof(PB_Str))) || !(k->pnames = calloc((size_t)n, sizeof(PB_Str *))) ||
	    !(k->frames = calloc((size_t)n, sizeof(PB_Frame))) || !(k->pframes = calloc((size_t)n, sizeof(PB_Frame *))))
		return w->rc = TF_ENOMEM;
	for (int64_t i = 0; i < n; i++) {
		tf_str f = (tf_str)w->frames[i];
		if ((r = pfw_intern_once(w, track, IN_FRAME, f)) < 0)
			return w->rc = TF_ENOMEM;
		if (r == 1)
			continue;
		PB_Str *s = &k->names[k->in.n_function_names];
		*s = (PB_Str)PERFETTO__PROTOS__INTERNED_STRING__INIT;
		s->has_iid = s->has_str = 1;
		s->iid = f;
		s->str.data = (uint8_t *)pfw_cstr(w, f);
		s->str.len = tf_strtab_len(w->st, f);
		k->pnames[k->in.n_function_names++] = s;
		PB_Frame *fr = &k->frames[k->in.n_frames];
		*fr = (PB_Frame)PERFETTO__PROTOS__FRAME__INIT;
		fr->has_iid = fr->has_function_name_id = fr->has_mapping_id = fr->has_rel_pc = 1;
		fr->iid = fr->function_name_id = fr->rel_pc = f;
		fr->mapping_id = MAPPING_IID;
		k->pframes[k->in.n_frames++] = fr;
	}
	k->in.function_names = k->pnames;
	k->in.frames = k->pframes;
	k->cs = (Perfetto__Protos__Callstack)PERFETTO__PROTOS__CALLSTACK__INIT;
	k->cs.has_iid = 1;
	k->cs.iid = stack;
	k->cs.n_frame_ids = (size_t)n;
	k->cs.frame_ids = w->frames;
	k->pcs[0] = &k->cs;
	k->in.n_callstacks = 1;
	k->in.callstacks = k->pcs;
	return 0;
}

int pfw_sample(tf_perfetto_out *w, const tf_event *ev)
{
	uint32_t track = ev->track, stack = (uint32_t)ev->id;
	sinterned k;
	memset(&k, 0, sizeof(k));
	k.in = (PB_Interned)PERFETTO__PROTOS__INTERNED_DATA__INIT;
	int rc = stack != TF_CPATH_ROOT ? intern_stack(w, track, stack, &k) : 0;
	const pseq *q = &w->seq[track]; /* described by on_event */
	int64_t n = ev->dur_ns < 1 ? 1 : ev->dur_ns > TF_PF_MAX_REPEAT ? TF_PF_MAX_REPEAT : ev->dur_ns;
	for (int64_t i = 0; i < n && rc == 0; i++) {
		PB_Packet p = PERFETTO__PROTOS__TRACE_PACKET__INIT;
		Perfetto__Protos__PerfSample ps = PERFETTO__PROTOS__PERF_SAMPLE__INIT;
		if ((rc = pfw_packet_at(w, &p, track, ev->ts_ns, ev->name, true)) < 0)
			break;
		ps.has_pid = ps.has_tid = 1;
		ps.pid = q->pid;
		ps.tid = q->tid;
		if (stack != TF_CPATH_ROOT) { /* an empty stack: a sample without one */
			ps.has_callstack_iid = 1;
			ps.callstack_iid = stack;
		}
		p.perf_sample = &ps;
		if (i == 0 && (k.in.n_callstacks || k.in.n_mappings))
			p.interned_data = &k.in;
		rc = pfw_put_packet(w, &p, seq_of(track));
	}
	free(k.names);
	free(k.pnames);
	free(k.frames);
	free(k.pframes);
	return rc < 0 ? rc : w->rc;
}
