/* dist.c - a distributed run over a tf_comm (dist.h, docs/distributed.md).
 *
 * Every process makes the same calls on the transport in the same order,
 * whatever fails where, so that no process waits for one that gave up:
 *
 *   bcast  plan header (the number of parts, or a negative error of the plan)
 *   bcast  the parts and their owners
 *   ...    each process reads its parts (a partial tf_pipeline_run); one
 *          that fails says so at once (c->fail), and the others stop at
 *          their next part (ctx's cancelled hook)
 *   max    status: did any process fail?  (if so, all return: no reduction)
 *   tree   a binomial tree: in round k (k = 1, 2, 4, ...) process r with
 *          bit k set sends its payload to r - k and is done; r + k sends to
 *          r, which adds it to its own.  log2(P) rounds; process 0 ends with
 *          the sum.  No process holds more than its own aggregate and the
 *          one it is adding, so the reduction is no gather on process 0.
 *   max    status of the reduction
 *
 * A payload is a packed aggregate (agg_pack.h: its own string table, so
 * strings are reconciled on arrival) and what tf_pipeline_conclude needs:
 * the diagnostics, per input and in all, the time span, the notes and
 * warnings.  Raw integers in this machine's byte order: the processes of
 * one run are one kind of machine. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "tracefold/dist.h"
#include "tracefold/agg_pack.h"
#include "buf.h"
#include "clock.h"

/* ---- a payload: a tf_buf (buf.h) ---- */

static void put_u64(tf_buf *b, uint64_t v) { tf_buf_put(b, &v, sizeof(v)); }

static void put_str(tf_buf *b, const char *s)
{
	uint64_t n = s ? strlen(s) : 0;
	put_u64(b, n);
	tf_buf_put(b, s, n);
}

typedef struct rbuf {
	const unsigned char *p;
	size_t len, off;
	bool bad;
} rbuf;

static const void *get(rbuf *r, size_t n)
{
	if (r->bad || r->len - r->off < n) {
		r->bad = true;
		return NULL;
	}
	const void *x = r->p + r->off;
	r->off += n;
	return x;
}

static uint64_t get_u64(rbuf *r)
{
	const void *x = get(r, sizeof(uint64_t));
	uint64_t v = 0;
	if (x)
		memcpy(&v, x, sizeof(v));
	return v;
}

/* ---- payloads ---- */

/* A process's share: its aggregate (and what it added up from its
 * subtree) with the partial run's record and ctx's diagnostics. */
/* What this run has added to ctx (a command may run twice: diff). */
typedef struct since {
	tf_diag diag;
	size_t nnotes, nwarnings;
} since;

static int pack(tf_ctx *ctx, const since *from, const tf_agg *agg, int n, const tf_pipeline_partial *pt, void **out,
		size_t *outlen)
{
	void *ab = NULL;
	size_t alen = 0;
	TF_TRY(tf_agg_pack(agg, &ab, &alen));
	tf_buf b = { 0 };
	put_u64(&b, alen);
	tf_buf_put(&b, ab, alen);
	free(ab);
	tf_diag d = *tf_ctx_diag(ctx);
	for (int i = 0; i < TF_DIAG_COUNT; i++) {
		d.n[i] -= from->diag.n[i];
		d.ns[i] -= from->diag.ns[i];
	}
	tf_buf_put(&b, &d, sizeof(tf_diag));
	tf_buf_put(&b, pt->input_diags, (size_t)n * sizeof(tf_diag));
	put_u64(&b, pt->any_time);
	put_u64(&b, (uint64_t)pt->min_ns);
	put_u64(&b, (uint64_t)pt->max_ns);
	size_t nn = tf_ctx_nnotes(ctx), nw = tf_ctx_nwarnings(ctx);
	nn = nn > from->nnotes ? nn - from->nnotes : 0;
	nw = nw > from->nwarnings ? nw - from->nwarnings : 0;
	put_u64(&b, nn);
	for (size_t i = 0; i < nn; i++)
		put_str(&b, tf_ctx_note_get(ctx, from->nnotes + i)); /* NULL beyond the kept ones: "" */
	put_u64(&b, nw);
	for (size_t i = 0; i < nw; i++)
		put_str(&b, tf_ctx_warning_get(ctx, from->nwarnings + i));
	if (b.oom) {
		free(b.p);
		return TF_ENOMEM;
	}
	*out = b.p;
	*outlen = b.n;
	return 0;
}

/* Adds a payload from process `from` to this one's. */
static int unpack_add(tf_ctx *ctx, tf_agg *agg, int n, tf_pipeline_partial *pt, const void *p, size_t len, int from,
		      tf_error *err)
{
	char what[64];
	snprintf(what, sizeof(what), "the share of process %d", from);
	rbuf r = { p, len, 0, false };
	uint64_t alen = get_u64(&r);
	const void *ab = get(&r, alen);
	if (!ab)
		return tf_error_set(err, TF_EFORMAT, what, (int64_t)r.off, -1, "truncated message");
	TF_TRY(tf_agg_unpack_merge(agg, ab, alen, what, err));
	const void *d = get(&r, sizeof(tf_diag));
	const void *ind = get(&r, (size_t)n * sizeof(tf_diag));
	if (d) {
		tf_diag dd;
		memcpy(&dd, d, sizeof(dd));
		tf_diag_add(tf_ctx_diag(ctx), &dd);
	}
	for (int i = 0; ind && i < n; i++) {
		tf_diag dd;
		memcpy(&dd, (const unsigned char *)ind + (size_t)i * sizeof(tf_diag), sizeof(dd));
		tf_diag_add(&pt->input_diags[i], &dd);
	}
	bool any = get_u64(&r) != 0;
	int64_t lo = (int64_t)get_u64(&r), hi = (int64_t)get_u64(&r);
	if (any && !r.bad) {
		if (!pt->any_time || lo < pt->min_ns)
			pt->min_ns = lo;
		if (!pt->any_time || hi > pt->max_ns)
			pt->max_ns = hi;
		pt->any_time = true;
	}
	for (int k = 0; k < 2 && !r.bad; k++) {
		uint64_t cnt = get_u64(&r);
		for (uint64_t i = 0; i < cnt && !r.bad; i++) {
			uint64_t sl = get_u64(&r);
			const char *s = get(&r, sl);
			if (!s)
				break;
			if (k == 0)
				tf_ctx_note(ctx, "%.*s", (int)sl, s);
			else if (sl)
				tf_ctx_warn(ctx, "%.*s", (int)sl, s);
		}
	}
	if (r.bad)
		return tf_error_set(err, TF_EFORMAT, what, (int64_t)r.off, -1, "truncated message");
	return 0;
}

/* ---- the run ---- */

static double now(void) { return tf_clock_s(CLOCK_MONOTONIC); }
/* CPU time of the calling thread: beside its wall time, what it lost to
 * other threads on its core (docs/distributed.md "Threads", -v) */
static double thread_cpu(void) { return tf_clock_s(CLOCK_THREAD_CPUTIME_ID); }

static bool cancelled(void *arg)
{
	tf_comm *c = arg;
	return c->failed(c);
}

/* The plan on process 0, broadcast: every process gets the parts with
 * their owners, or the plan's error (process 0 returns it; the others
 * TF_ECANCEL). */
static int share_plan(tf_comm *c, tf_ctx *ctx, const char *const *inputs, int n, const tf_pipeline_opts *po,
		      tf_plan_part **parts_out, size_t *nparts, tf_error *err)
{
	tf_plan_part *parts = NULL;
	int64_t head = 0;
	if (c->rank == 0 && c->plan) { /* made by the caller */
		if (c->nplan && !(parts = malloc(c->nplan * sizeof(tf_plan_part))))
			head = tf_error_set(err, TF_ENOMEM, NULL, -1, -1, "out of memory");
		else if (c->nplan)
			memcpy(parts, c->plan, c->nplan * sizeof(tf_plan_part));
		if (head == 0)
			head = (int64_t)c->nplan;
	} else if (c->rank == 0) {
		/* the formats as the caller resolved them, else resolved here
		 * (with -F: po->format) */
		const tf_format **own = NULL;
		int np = 0;
		if (!po->formats)
			np = tf_inputs_resolve_new(inputs, n, po->format, &own, err);
		if (np == 0)
			np = tf_pipeline_plan(ctx, inputs, n, po->formats ? po->formats : own, &parts, err);
		free(own);
		head = np;
		if (np > 0)
			tf_pipeline_plan_assign(parts, (size_t)np, (uint32_t)c->size);
	}
	int rc = c->bcast(c, &head, sizeof(head), 0);
	if (rc < 0 || head < 0) {
		free(parts);
		if (rc < 0)
			return tf_error_set(err, rc, NULL, -1, -1, "cannot share the plan out: %s", tf_strerror(rc));
		return (int)head; /* process 0 says why; the others exit alike */
	}
	if (c->rank != 0 && head > 0 && !(parts = calloc((size_t)head, sizeof(tf_plan_part))))
		c->abort(c); /* it would miss the next broadcast */
	if (head > 0 && (rc = c->bcast(c, parts, (size_t)head * sizeof(tf_plan_part), 0)) < 0) {
		free(parts);
		return tf_error_set(err, rc, NULL, -1, -1, "cannot share the plan out: %s", tf_strerror(rc));
	}
	*parts_out = parts;
	*nparts = (size_t)head;
	return 0;
}

/* Everybody's status: whether any process failed (then *rc is this
 * process's error, or TF_ECANCEL when it did not fail itself). */
static bool status_failed(tf_comm *c, int *rc, tf_error *err)
{
	int64_t v = *rc < 0;
	int r = c->max(c, &v, 1);
	if (r < 0)
		*rc = tf_error_set(err, r, NULL, -1, -1, "cannot agree on the status: %s", tf_strerror(r));
	else if (v && *rc >= 0)
		*rc = TF_ECANCEL;
	return r < 0 || v != 0;
}

int tf_dist_run(tf_comm *c, tf_ctx *ctx, tf_agg *agg, const char *const *inputs, int n, const tf_pipeline_opts *o,
		tf_dist_stats *stats, tf_error *err)
{
	tf_dist_stats st0;
	if (!stats)
		stats = &st0;
	memset(stats, 0, sizeof(*stats));
	double t0 = now();
	tf_pipeline_opts po = o ? *o : (tf_pipeline_opts){ 0 };
	tf_plan_part *parts = NULL;
	size_t nparts = 0;
	tf_input_sel *sel = calloc((size_t)n + 1, sizeof(tf_input_sel));
	uint8_t *masks = NULL;
	tf_pipeline_partial pt = { .input_diags = calloc((size_t)n + 1, sizeof(tf_diag)) };
	void *msg = NULL;
	size_t msglen = 0;
	int rc = 0;
	since from = { *tf_ctx_diag(ctx), tf_ctx_nnotes(ctx), tf_ctx_nwarnings(ctx) };
	if (!sel || !pt.input_diags)
		c->abort(c); /* it would miss the collective calls */
	if ((rc = share_plan(c, ctx, inputs, n, &po, &parts, &nparts, err)) < 0)
		goto done;
	/* the share of this process, read as a single process would */
	rc = tf_pipeline_partial_ok(po.filter, err);
	if (rc == 0 && tf_pipeline_plan_select(parts, nparts, n, (uint32_t)c->rank, sel, &masks) < 0)
		rc = tf_error_set(err, TF_ENOMEM, NULL, -1, -1, "out of memory");
	for (size_t k = 0; k < nparts; k++)
		if (parts[k].owner == (uint32_t)c->rank) {
			stats->parts++;
			stats->bytes += parts[k].bytes;
		}
	if (rc == 0) {
		tf_read_opts *ro = tf_ctx_opts(ctx);
		ro->cancelled = cancelled;
		ro->cancel_arg = c;
		po.select = sel;
		po.partial = &pt;
		double cpu0 = thread_cpu();
		rc = tf_pipeline_run(ctx, agg, inputs, n, &po, err);
		stats->own_cpu_s = thread_cpu() - cpu0;
		ro->cancelled = NULL;
		ro->cancel_arg = NULL;
	}
	stats->own_s = now() - t0;
	if (rc < 0 && rc != TF_ECANCEL)
		c->fail(c);
	if (status_failed(c, &rc, err))
		goto done;
	stats->read_s = now() - t0;
	t0 = now();
	/* the reduction: a binomial tree towards process 0 */
	size_t ncomments = tf_agg_ncomments(agg); /* process 0's own: the others' are copies */
	/* a process that failed on the way still receives from its subtree and
	 * sends on (an empty message, which says so): nobody is left waiting */
	for (int step = 1; step < c->size; step <<= 1) {
		if (c->rank & step) {
			if (rc == 0 && (rc = pack(ctx, &from, agg, n, &pt, &msg, &msglen)) < 0)
				rc = tf_error_set(err, rc, NULL, -1, -1, "out of memory");
			int r = c->send(c, rc == 0 ? msg : NULL, rc == 0 ? msglen : 0, c->rank - step);
			stats->sent += rc == 0 ? msglen : 0;
			if (r < 0 && rc == 0)
				rc = tf_error_set(err, r, NULL, -1, -1, "cannot send to process %d: %s", c->rank - step,
						  tf_strerror(r));
			break;
		}
		if (c->rank + step < c->size) {
			void *in = NULL;
			size_t inlen = 0;
			int r = c->recv(c, &in, &inlen, c->rank + step);
			stats->received += inlen;
			if (rc < 0)
				; /* already failed: only keep the tree going */
			else if (r < 0)
				rc = tf_error_set(err, r, NULL, -1, -1, "cannot receive from process %d: %s",
						  c->rank + step, tf_strerror(r));
			else if (!inlen)
				rc = TF_ECANCEL; /* it failed and said why */
			else
				rc = unpack_add(ctx, agg, n, &pt, in, inlen, c->rank + step, err);
			free(in);
		}
	}
	if (status_failed(c, &rc, err))
		goto done;
	stats->reduce_s = now() - t0;
	if (c->rank != 0) {
		rc = 1;
		goto agree;
	}
	t0 = now();
	tf_agg_comments_truncate(agg, ncomments);
	rc = tf_pipeline_conclude(ctx, agg, inputs, n, &po, &pt, err);
	stats->conclude_s = now() - t0;
	goto agree;
agree:
	/* the conclusion's outcome, for every process: a run fails everywhere
	 * or nowhere (process 0 says why; the others get its code) */
	{
		int64_t v = rc < 0 ? -rc : 0;
		if (c->max(c, &v, 1) < 0 && rc >= 0)
			rc = TF_EIO;
		else if (v && rc >= 0)
			rc = -(int)v;
	}
done:
	free(msg);
	free(parts);
	free(sel);
	free(masks);
	free(pt.input_diags);
	return rc;
}
