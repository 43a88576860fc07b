/* parquet_coll.c - the collectives table of the event tables (docs/schema.md
 * "collectives", docs/collectives.md): one row per collective call per
 * rank.  A call is the outermost collective region of a CPU thread: a
 * region with facts (coll.h: Kineto's nccl:/c10d::/record_param_comms, an
 * OTF2 MPI region with its MpiCollectiveEnd) or an MPI collective by name
 * (TAU's "MPI_Allreduce()"); gloo:X alone on gloo's worker thread is the
 * work of a call, not one.  Its facts are those of every collective
 * region in it (inner over outer).  The NCCL kernel launched inside it
 * (args.correlation) fills the gpu_* columns; an NCCL kernel whose launch
 * is in no call is a row of its own.
 *
 * Streaming: a call is written when it closes, unless it launched GPU
 * work: then it waits for its kernel until the end of its input (the GPU
 * streams of an input are nested after its CPU threads, stack.c).  The
 * match id is the call's number among the calls of its (rank,
 * communicator), as written: memory grows with ranks x communicators,
 * and with the calls of one input that launched GPU work. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "parquet_int.h"

const pq_col tf_pq_coll_cols[TF_PQ_COLL_NCOLS] = {
	{ "collective_id", PQ_INT64, false, false, false, false },
	{ "match_id", PQ_STRING, false, false, false, false },
	{ "kind", PQ_STRING, false, true, false, false },
	{ "communicator", PQ_STRING, true, true, false, false },
	{ "group_ranks", PQ_STRING, true, true, false, false },
	{ "root", PQ_INT64, true, false, false, false },
	{ "bytes", PQ_INT64, true, false, false, false },
	{ "bytes_received", PQ_INT64, true, false, false, false },
	{ "nelems", PQ_INT64, true, false, false, false },
	{ "dtype", PQ_STRING, true, true, false, false },
	{ "rank", PQ_INT64, true, false, false, false },
	{ "track_id", PQ_INT64, false, false, false, false },
	{ "slice_id", PQ_INT64, true, false, false, false },
	{ "begin_ns", PQ_INT64, false, false, false, false },
	{ "end_ns", PQ_INT64, false, false, false, false },
	{ "gpu_begin_ns", PQ_INT64, true, false, false, false },
	{ "gpu_end_ns", PQ_INT64, true, false, false, false },
	{ "gpu_slice_id", PQ_INT64, true, false, false, false },
};

typedef struct crow {
	uint32_t track, input;
	uint32_t rec;          /* the facts (coll.h), 0 none */
	tf_str kind;           /* the kind when rec has none (an MPI name) */
	int64_t slice, begin, end;
	int64_t gbegin, gend, gslice; /* gslice -1: no kernel */
	uint64_t seq;          /* its number in its (rank, communicator) */
} crow;

typedef struct ctrack {
	uint32_t depth;        /* the open call's depth, 0 none */
	crow row;
	uint64_t *corr;        /* launches inside it */
	uint32_t ncorr, capcorr;
} ctrack;

struct tf_pq_coll {
	ctrack *tk;
	uint32_t ntk;
	crow *wait;            /* calls waiting for their kernel */
	uint32_t nwait, capwait;
	tf_hmap launch;        /* (input, correlation id) -> wait index */
	tf_hmap seq_idx;       /* (rank, communicator) -> seqs index */
	struct cseq { int64_t rank; tf_str comm; uint64_t next; } *seqs;
	uint32_t nseqs, capseqs;
	int64_t next_id;
};

void tf_pq_coll_free(tf_pq_coll *c)
{
	if (!c)
		return;
	for (uint32_t i = 0; i < c->ntk; i++)
		free(c->tk[i].corr);
	free(c->tk);
	free(c->wait);
	free(c->seqs);
	tf_hmap_free(&c->launch);
	tf_hmap_free(&c->seq_idx);
	free(c);
}

/* The kind an MPI region's name says ("MPI_Allreduce", TAU's
 * "MPI_Allreduce()"), normalized; 0 when none. */
static tf_str mpi_kind(tf_events *w, tf_str name)
{
	static const struct { const char *mpi, *kind; } k[] = {
		{ "Allreduce", "all_reduce" }, { "Reduce", "reduce" }, { "Bcast", "broadcast" },
		{ "Barrier", "barrier" }, { "Allgather", "all_gather" }, { "Allgatherv", "all_gather" },
		{ "Alltoall", "all_to_all" }, { "Alltoallv", "all_to_all" }, { "Alltoallw", "all_to_all" },
		{ "Gather", "gather" }, { "Gatherv", "gather" }, { "Scatter", "scatter" }, { "Scatterv", "scatter" },
		{ "Reduce_scatter", "reduce_scatter" }, { "Reduce_scatter_block", "reduce_scatter" },
		{ "Scan", "scan" }, { "Exscan", "exscan" },
	};
	const char *s = tf_strtab_get(w->st, name);
	size_t n = tf_strtab_len(w->st, name), e = 4;
	if (n < 5 || memcmp(s, "MPI_", 4))
		return 0;
	while (e < n && s[e] != '(' && s[e] != ' ')
		e++;
	for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++)
		if (strlen(k[i].mpi) == e - 4 && !strncasecmp(s + 4, k[i].mpi, e - 4))
			return tf_strtab_intern_cstr(w->st, k[i].kind);
	return 0;
}

/* gloo:X: the work of a call on gloo's worker thread. */
static bool gloo_work(tf_events *w, tf_str name)
{
	return tf_strtab_len(w->st, name) > 5 && !memcmp(tf_strtab_get(w->st, name), "gloo:", 5);
}

static ctrack *ctrack_of(tf_pq_coll *c, uint32_t track)
{
	if (track >= c->ntk) {
		uint32_t n = c->ntk;
		if (tf_grow((void **)&c->tk, &c->ntk, track + 1, sizeof(*c->tk)) < 0)
			return NULL;
		memset(c->tk + n, 0, (size_t)(c->ntk - n) * sizeof(*c->tk));
	}
	return &c->tk[track];
}

/* The next number of the calls of (rank, communicator); UINT64_MAX when
 * out of memory. */
static uint64_t next_seq(tf_pq_coll *c, int64_t rank, tf_str comm)
{
	uint64_t h = tf_mix64((uint64_t)rank * 0x9E3779B97F4A7C15ull ^ comm);
	for (;; h++) {
		uint32_t i = tf_hmap_get(&c->seq_idx, h);
		if (i == UINT32_MAX)
			break;
		if (c->seqs[i].rank == rank && c->seqs[i].comm == comm)
			return c->seqs[i].next++;
	}
	if (tf_grow((void **)&c->seqs, &c->capseqs, c->nseqs + 1, sizeof(*c->seqs)) < 0 ||
	    tf_hmap_put(&c->seq_idx, h, c->nseqs) < 0)
		return UINT64_MAX;
	c->seqs[c->nseqs++] = (struct cseq){ rank, comm, 1 };
	return 0;
}

static const tf_coll_facts *facts_of(tf_events *w, const crow *r)
{
	static const tf_coll_facts none = TF_COLL_FACTS_NONE;
	const tf_coll_facts *f = tf_coll_get(tf_ctx_coll(w->ctx, false), r->rec);
	return f ? f : &none;
}

/* r's number in its (rank, communicator), when it closes: the calls in
 * the order they close (rank unknown, a trace without one: per input). */
static int number(tf_events *w, crow *r)
{
	int64_t rank = pqw_rank(w, r->track);
	r->seq = next_seq(w->coll, rank >= 0 ? rank : -2 - (int64_t)r->input, facts_of(w, r)->pg);
	return r->seq == UINT64_MAX ? TF_ENOMEM : 0;
}

static int write_row(tf_events *w, const crow *r)
{
	tf_pq_coll *c = w->coll;
	const tf_coll_facts *f = facts_of(w, r);
	int64_t rank = pqw_rank(w, r->track);
	pq_file *p = pqw_file_at(w, T_COLL, rank, r->track, r->begin);
	if (!p)
		return w->rc;
	char m[300];
	int n = snprintf(m, sizeof(m), "%s#%" PRIu64, f->pg ? tf_strtab_get(w->st, f->pg) : "", r->seq);
	pq_i64(p, CL_ID, w->id_base + c->next_id++);
	pq_str(p, CL_MATCH, m, n < (int)sizeof(m) ? (size_t)n : sizeof(m) - 1);
	pqw_str(p, CL_KIND, f->name ? f->name : r->kind, w->st, false);
	pqw_str(p, CL_COMM, f->pg, w->st, true);
	pqw_str(p, CL_GROUP, f->pg_ranks, w->st, true);
	pqw_opt(p, CL_ROOT, f->root, f->root >= 0);
	pqw_opt(p, CL_BYTES, f->bytes, f->bytes >= 0);
	pqw_opt(p, CL_BRECV, f->bytes_recv, f->bytes_recv >= 0);
	pqw_opt(p, CL_NELEMS, f->nelems, f->nelems >= 0);
	pqw_str(p, CL_DTYPE, f->dtype, w->st, true);
	pqw_opt(p, CL_RANK, rank, rank >= 0);
	pq_i64(p, CL_TRACK, tid(w, r->track));
	pqw_opt(p, CL_SLICE, r->slice, r->slice >= 0);
	pq_i64(p, CL_BEGIN, r->begin);
	pq_i64(p, CL_END, r->end);
	pqw_opt(p, CL_GBEGIN, r->gbegin, r->gslice >= 0);
	pqw_opt(p, CL_GEND, r->gend, r->gslice >= 0);
	pqw_opt(p, CL_GSLICE, r->gslice, r->gslice >= 0);
	return pqw_end_row(w, p);
}

static uint64_t launch_key(uint32_t input, uint64_t corr)
{
	return tf_mix64(corr * 0x9E3779B97F4A7C15ull ^ input);
}

/* The call on t closes: written, or kept for its kernel. */
static int call_done(tf_events *w, ctrack *t)
{
	tf_pq_coll *c = w->coll;
	t->depth = 0;
	TF_TRY(number(w, &t->row));
	if (!t->ncorr)
		return write_row(w, &t->row);
	if (tf_grow((void **)&c->wait, &c->capwait, c->nwait + 1, sizeof(*c->wait)) < 0)
		return TF_ENOMEM;
	c->wait[c->nwait] = t->row;
	for (uint32_t i = 0; i < t->ncorr; i++)
		if (tf_hmap_set(&c->launch, launch_key(t->row.input, t->corr[i]), c->nwait) < 0)
			return TF_ENOMEM;
	c->nwait++;
	t->ncorr = 0;
	return 0;
}

/* An NCCL kernel (a GPU activity with facts of its own) closes. */
static int kernel_done(tf_events *w, const tf_span *s, int64_t id, uint32_t own, uint32_t input)
{
	tf_pq_coll *c = w->coll;
	if (!c && !(c = w->coll = calloc(1, sizeof(*w->coll)))) /* no CPU call was seen */
		return TF_ENOMEM;
	uint32_t i = s->corr ? tf_hmap_get(&c->launch, launch_key(input, s->corr)) : UINT32_MAX;
	if (i != UINT32_MAX) {
		crow *r = &c->wait[i];
		if (r->input == UINT32_MAX)
			return 0; /* written already */
		if (r->gslice < 0 || s->start_ns < r->gbegin)
			r->gbegin = s->start_ns;
		if (r->gslice < 0 || s->end_ns > r->gend)
			r->gend = s->end_ns;
		if (r->gslice < 0)
			r->gslice = id;
		return 0;
	}
	/* no call launched it: a row of its own, at the kernel's times */
	crow r = { s->track, input, own, 0, -1, s->start_ns, s->end_ns, s->start_ns, s->end_ns, id, 0 };
	TF_TRY(number(w, &r));
	return write_row(w, &r);
}

int tf_pq_coll_close(tf_events *w, const tf_span *s, int64_t id, uint32_t rec)
{
	tf_coll *coll = tf_ctx_coll(w->ctx, false);
	const tf_track *tr = tf_ctx_track_get(w->ctx, s->track);
	uint32_t input = tr ? tr->input : 0;
	if (s->kind == TF_SPAN_KIND_GPU) {
		uint32_t own = tf_coll_find(coll, s->track, s->start_ns, s->name);
		return own ? kernel_done(w, s, id, own, input) : 0;
	}
	/* a GPU-side copy of a range is never a call */
	if (s->kind != TF_SPAN_KIND_CPU || !w->coll || s->track >= w->coll->ntk)
		return 0;
	ctrack *t = &w->coll->tk[s->track];
	if (!t->depth || s->depth < t->depth) {
		t->depth = 0;
		return 0;
	}
	if (s->depth > t->depth) { /* inside the open call */
		/* what closed first (the deepest) over what closes after it */
		if (rec && (t->row.rec = tf_coll_merge(coll, rec, t->row.rec)) == (uint32_t)-1)
			return TF_ENOMEM;
		if (s->corr) {
			if (tf_grow((void **)&t->corr, &t->capcorr, t->ncorr + 1, sizeof(uint64_t)) < 0)
				return TF_ENOMEM;
			t->corr[t->ncorr++] = s->corr;
		}
		return 0;
	}
	/* the call: its own facts (OTF2's came after it opened) under those found inside */
	uint32_t own = tf_coll_find(coll, s->track, s->start_ns, s->name);
	t->row.rec = tf_coll_merge(coll, own, t->row.rec);
	if (t->row.rec == (uint32_t)-1)
		return TF_ENOMEM;
	if (s->corr) {
		if (tf_grow((void **)&t->corr, &t->capcorr, t->ncorr + 1, sizeof(uint64_t)) < 0)
			return TF_ENOMEM;
		t->corr[t->ncorr++] = s->corr;
	}
	t->row.slice = id;
	t->row.end = s->end_ns;
	return call_done(w, t);
}

/* A CPU region opens: the call when it is a collective outside any. */
int tf_pq_coll_open(tf_events *w, const tf_span *s)
{
	if (s->kind != TF_SPAN_KIND_CPU)
		return 0;
	tf_pq_coll *c = w->coll;
	if (c && s->track < c->ntk && c->tk[s->track].depth) {
		if (s->depth > c->tk[s->track].depth)
			return 0;
		c->tk[s->track].depth = 0; /* a call that never closed */
	}
	tf_coll *coll = tf_ctx_coll(w->ctx, false);
	uint32_t own = tf_coll_find(coll, s->track, s->start_ns, s->name);
	tf_str kind = own ? 0 : mpi_kind(w, s->name);
	if (kind == (tf_str)-1)
		return TF_ENOMEM;
	if ((!own && !kind) || (own && gloo_work(w, s->name)))
		return 0;
	if (!c && !(c = w->coll = calloc(1, sizeof(*w->coll))))
		return TF_ENOMEM;
	ctrack *t = ctrack_of(c, s->track);
	if (!t)
		return TF_ENOMEM;
	const tf_track *tr = tf_ctx_track_get(w->ctx, s->track);
	t->depth = s->depth;
	t->ncorr = 0;
	t->row = (crow){ s->track, tr ? tr->input : 0, 0, kind, -1, s->start_ns, s->end_ns, 0, 0, -1, 0 };
	return 0;
}

/* The end of an input: its calls that waited for a kernel, in the order
 * they closed (the waiting list and its index are emptied once no other
 * input's call waits). */
int tf_pq_coll_end_input(tf_events *w, uint32_t input)
{
	tf_pq_coll *c = w->coll;
	if (!c || !c->nwait)
		return 0;
	bool left = false;
	for (uint32_t i = 0; i < c->nwait; i++)
		if (c->wait[i].input != UINT32_MAX && (c->wait[i].input == input || input == UINT32_MAX)) {
			TF_TRY(write_row(w, &c->wait[i]));
			c->wait[i].input = UINT32_MAX; /* written */
		} else {
			left |= c->wait[i].input != UINT32_MAX;
		}
	if (!left) {
		c->nwait = 0;
		tf_hmap_free(&c->launch);
		memset(&c->launch, 0, sizeof(c->launch));
	}
	return 0;
}

const pq_col tf_pq_csl_cols[TF_PQ_CSL_NCOLS] = {
	{ "slice_id", PQ_INT64, false, false, true, false },
	{ "rank", PQ_INT64, true, false, false, false },
	{ "collective", PQ_STRING, true, true, false, false },
	{ "comm_bytes", PQ_INT64, true, false, false, false },
	{ "comm_nelems", PQ_INT64, true, false, false, false },
	{ "dtype", PQ_STRING, true, true, false, false },
	{ "pg", PQ_STRING, true, true, false, false },
	{ "pg_ranks", PQ_STRING, true, true, false, false },
	{ "root", PQ_INT64, true, false, false, false },
	{ "bytes_received", PQ_INT64, true, false, false, false },
};

int tf_pq_coll_slice(tf_events *w, const tf_span *s, int64_t id, uint32_t rec)
{
	const tf_coll_facts *c = tf_coll_get(tf_ctx_coll(w->ctx, false), rec);
	int64_t rank = pqw_rank(w, s->track);
	pq_file *f = c ? pqw_file_at(w, T_COLL_SLICES, rank, s->track, s->start_ns) : NULL;
	if (!f)
		return c ? w->rc : 0;
	pq_i64(f, CS_SLICE, id);
	pqw_opt(f, CS_RANK, rank, rank >= 0);
	pqw_str(f, CS_COLL, c->name, w->st, true);
	pqw_opt(f, CS_BYTES, c->bytes, c->bytes >= 0);
	pqw_opt(f, CS_NELEMS, c->nelems, c->nelems >= 0);
	pqw_str(f, CS_DTYPE, c->dtype, w->st, true);
	pqw_str(f, CS_PG, c->pg, w->st, true);
	pqw_str(f, CS_RANKS, c->pg_ranks, w->st, true);
	pqw_opt(f, CS_ROOT, c->root, c->root >= 0);
	pqw_opt(f, CS_BRECV, c->bytes_recv, c->bytes_recv >= 0);
	return pqw_end_row(w, f);
}
