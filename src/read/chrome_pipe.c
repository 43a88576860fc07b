/* chrome_pipe.c - a Chrome JSON input read in two stages on two threads
 * (-j N when a thread is spare: tf_read_opts.reader_threads, set by
 * src/parallel/threads.c when the run's inputs have fewer parts than
 * threads; issue 33, docs/performance.md "One file on two threads"):
 *
 *   stage 1 (a thread of its own)    the input's bytes (tf_in_chunk: read,
 *                                    mapped or inflated), the top level,
 *                                    each event object tokenized and
 *                                    strictly checked (tf_chrome_parse_event)
 *   stage 2 (the caller's thread)    each event in file order
 *                                    (tf_chrome_process_event: strings,
 *                                    tracks, args, tf_emit) and the end
 *
 * Between them a ring of NBLOCK blocks of BLOCK bytes: stage 1 copies each
 * event's bytes into a block beside its fields (the spans rebased onto the
 * copy), so that the input's buffers can be reused at once; a block goes to
 * stage 2 when full, and stage 1 waits when every block is full or being
 * read.  Memory: NBLOCK x BLOCK more (an event larger than a block gets a
 * block of its size, given back when stage 2 is done with it, as the
 * one-stage reader's carry holds such an event whole).
 *
 * Stage 1 has a tf_chrome of its own without a ctx (tf_chrome_new_stage1):
 * it touches nothing that the run shares (string table, tracks,
 * diagnostics, warnings; the progress counters are atomic).  What its top
 * level would have done to them goes into the queue at its place: an
 * element of the events array that is not an object (a bad_event),
 * distributedInfo and baseTimeNanoseconds (tf_chrome_top_value).  Its
 * event index counts as stage 2's does, so its errors are the one-stage
 * reader's: message, byte offset, index.  Stage 1 stops at its first error
 * or at the input's end; what it ended with (error, a cut last event, a
 * gzip stream cut short) comes after its last block, so stage 2 meets it
 * only once every event before it is processed.  Stage 2's own error (an
 * output or the temporary file failing, TF_ESTOP) stops stage 1 (cancel,
 * seen when it waits for a block and between chunks) and it is joined
 * before the reader returns: no thread outlives the read.
 *
 * Only regular files: stage 1 blocked on a pipe that stays open would hold
 * stage 2's return.  TRACEFOLD_TWO_STAGE=1 turns it on, =0 off (the
 * default: TWO_STAGE_DEFAULT, off).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include "chrome_int.h"
#include "clock.h"

#define BLOCK (256u * 1024u)
#define NBLOCK 8
#define PAD 16 /* zeroed bytes after a record's text */
/* Off unless TRACEFOLD_TWO_STAGE=1: with this round's faster one-stage
 * reader it gains 1.00-1.07x on a quiet 2-core VM for 20-30% more CPU, and
 * loses when other programs hold the cores (docs/performance.md "One file
 * on two threads") */
#define TWO_STAGE_DEFAULT false

enum { REC_EVENT, REC_SKIP, REC_TOP };

/* A record in a block: the header, then the text its spans point into. */
typedef struct rec {
	uint32_t kind;         /* REC_* */
	int32_t key;           /* REC_TOP: the top-level key */
	size_t size;           /* header, text and padding: a multiple of 8 */
	tf_chrome_fields f;    /* REC_EVENT: the fields; REC_TOP: f.args is the value */
} rec;

/* tf_chrome_pipe_event rebases each span of them: the 11 named ones, then
 * the args' members picked (pick[], where picked says); the rest are plain
 * values.  A member added to tf_chrome_fields must be added there. */
_Static_assert(offsetof(tf_chrome_fields, sort_index) == 10 * sizeof(tf_json_span) &&
		       offsetof(tf_chrome_fields, pick) + NPICK * sizeof(tf_json_span) == sizeof(tf_chrome_fields) &&
		       offsetof(tf_chrome_fields, pick) - offsetof(tf_chrome_fields, ts_ns) <= 24,
	       "tf_chrome_fields: 11 spans, ts_ns .. pick_dup, pick[NPICK]");

typedef struct block {
	unsigned char *buf;
	size_t len, cap;
} block;

struct tf_chrome_pipe {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	block blk[NBLOCK];
	int head, nfull;       /* filled: head .. head+nfull-1 (stage 2 reads head's) */
	int wr;                /* stage 1 fills this one (not among the filled) */
	bool done;             /* stage 1 ended: its end below is set */
	bool cancel;           /* stage 2 stopped: stage 1 ends at once */
	tf_chrome *p;          /* stage 1's parser */
	tf_in *in;
	/* stage 1's end */
	int rc;
	tf_error err;
	bool in_truncated;
	uint64_t in_offset;
	/* -v */
	double s1_cpu_s, s1_wait_s, s2_wait_s;
};

/* ---- stage 1 ---- */

/* Publishes the block being filled and takes the next free one. */
static int publish(tf_chrome_pipe *q)
{
	double t0 = 0;
	int rc = 0;
	pthread_mutex_lock(&q->mu);
	q->nfull++;
	pthread_cond_broadcast(&q->cv);
	if (q->nfull == NBLOCK && !q->cancel) {
		t0 = tf_clock_s(CLOCK_MONOTONIC);
		while (q->nfull == NBLOCK && !q->cancel)
			pthread_cond_wait(&q->cv, &q->mu);
		q->s1_wait_s += tf_clock_s(CLOCK_MONOTONIC) - t0;
	}
	if (q->cancel)
		rc = TF_ECANCEL;
	else
		q->wr = (q->head + q->nfull) % NBLOCK;
	pthread_mutex_unlock(&q->mu);
	if (rc == 0)
		q->blk[q->wr].len = 0;
	return rc;
}

static int fail(tf_chrome *p, int rc)
{
	if (rc == TF_ENOMEM)
		return tf_error_set(p->err, TF_ENOMEM, p->path, -1, -1, "out of memory");
	return rc;
}

/* The block being filled with room for `need` more bytes: the next one when
 * this one is used and lacks it, grown when it is smaller.  0 or < 0. */
static int room(tf_chrome_pipe *q, size_t need)
{
	block *b = &q->blk[q->wr];
	if (b->len + need > b->cap && b->len)
		TF_TRY(publish(q));
	b = &q->blk[q->wr];
	if (need > b->cap) {
		size_t cap = need > BLOCK ? need : BLOCK;
		unsigned char *nb = realloc(b->buf, cap);
		if (!nb)
			return TF_ENOMEM;
		b->buf = nb;
		b->cap = cap;
	}
	return 0;
}

static size_t rec_size(size_t n)
{
	return (sizeof(rec) + n + PAD + 7) & ~(size_t)7;
}

int tf_chrome_pipe_fields(tf_chrome *p, tf_chrome_fields **f)
{
	tf_chrome_pipe *q = p->pipe;
	block *b = &q->blk[q->wr];
	if (b->len + rec_size(256) > b->cap) { /* most events fit; tf_chrome_pipe_event moves the others */
		int rc = room(q, rec_size(256));
		if (rc < 0)
			return fail(p, rc);
		b = &q->blk[q->wr];
	}
	*f = &((rec *)(b->buf + b->len))->f;
	return 0;
}

/* The record's header and text [q, q + n) after it; returns the text. */
static unsigned char *fill(rec *x, int kind, int key, size_t need, const u8 *q, size_t n)
{
	unsigned char *text = (unsigned char *)(x + 1);
	x->kind = (uint32_t)kind;
	x->key = key;
	x->size = need;
	if (n)
		memcpy(text, q, n);
	memset(text + n, 0, PAD);
	return text;
}

/* A span into the text moved by d bytes onto its copy (an absent one,
 * p NULL, stays so). */
static inline void rebase(tf_json_span *s, uintptr_t d)
{
	s->p = s->p ? (const u8 *)((uintptr_t)s->p + d) : NULL;
}

int tf_chrome_pipe_event(tf_chrome *p, const u8 *q, const u8 *end, tf_chrome_fields *f)
{
	tf_chrome_pipe *pp = p->pipe;
	size_t n = (size_t)(end - q), need = rec_size(n);
	block *b = &pp->blk[pp->wr];
	if (b->len + need > b->cap) { /* the fields parsed in place move */
		tf_chrome_fields keep = *f;
		int rc = room(pp, need);
		if (rc < 0)
			return fail(p, rc);
		b = &pp->blk[pp->wr];
		f = &((rec *)(b->buf + b->len))->f;
		*f = keep;
	}
	rec *x = (rec *)(b->buf + b->len);
	uintptr_t d = (uintptr_t)fill(x, REC_EVENT, 0, need, q, n) - (uintptr_t)q;
	rebase(&f->ph, d);
	rebase(&f->name, d);
	rebase(&f->cat, d);
	rebase(&f->ts, d);
	rebase(&f->dur, d);
	rebase(&f->pid, d);
	rebase(&f->tid, d);
	rebase(&f->id, d);
	rebase(&f->id2, d);
	rebase(&f->args, d);
	rebase(&f->sort_index, d);
	for (unsigned k = 0; k < NPICK; k++)
		if (f->picked >> k & 1)
			rebase(&f->pick[k], d);
	b->len += need;
	return 0;
}

/* A record of another kind: the value v (none: NULL) as its f.args. */
static int put(tf_chrome *p, int kind, int key, const tf_json_span *v)
{
	tf_chrome_pipe *q = p->pipe;
	size_t n = v ? v->n : 0, need = rec_size(n);
	int rc = room(q, need);
	if (rc < 0)
		return fail(p, rc);
	block *b = &q->blk[q->wr];
	rec *x = (rec *)(b->buf + b->len);
	memset(&x->f, 0, sizeof(x->f));
	unsigned char *text = fill(x, kind, key, need, v ? v->p : NULL, n);
	if (v) {
		x->f.args = *v;
		x->f.args.p = text;
	}
	b->len += need;
	return 0;
}

int tf_chrome_pipe_skip(tf_chrome *p)
{
	return put(p, REC_SKIP, 0, NULL);
}

int tf_chrome_pipe_top(tf_chrome *p, int key, const tf_json_span *v)
{
	return put(p, REC_TOP, key, v);
}

static bool cancelled(tf_chrome_pipe *q)
{
	pthread_mutex_lock(&q->mu);
	bool c = q->cancel;
	pthread_mutex_unlock(&q->mu);
	return c;
}

/* Stage 1: the input through its own parser into the queue; its end
 * (error, cut) set, the last block published, done. */
static void *stage1(void *arg)
{
	tf_chrome_pipe *q = arg;
	tf_chrome *p = q->p;
	int rc;
	tf_error_clear(&q->err);
	for (;;) {
		const unsigned char *data;
		ptrdiff_t n = tf_in_chunk(q->in, &data, &q->err);
		if (n <= 0) {
			rc = (int)n;
			break;
		}
		if (cancelled(q)) {
			rc = TF_ECANCEL;
			break;
		}
		if ((rc = tf_chrome_feed(p, data, (size_t)n, &q->err)) < 0)
			break;
	}
	if (rc == 0)
		rc = tf_chrome_finish(p, &q->err);
	q->rc = rc;
	q->in_truncated = tf_in_truncated(q->in);
	q->in_offset = tf_in_offset(q->in);
	q->s1_cpu_s = tf_clock_s(CLOCK_THREAD_CPUTIME_ID);
	pthread_mutex_lock(&q->mu);
	if (q->blk[q->wr].len && !q->cancel)
		q->nfull++;
	q->done = true;
	pthread_cond_broadcast(&q->cv);
	pthread_mutex_unlock(&q->mu);
	return NULL;
}

/* ---- stage 2 ---- */

/* The next filled block (NULL: stage 1 is done and all are read). */
static block *take(tf_chrome_pipe *q)
{
	pthread_mutex_lock(&q->mu);
	if (!q->nfull && !q->done) {
		double t0 = tf_clock_s(CLOCK_MONOTONIC);
		while (!q->nfull && !q->done)
			pthread_cond_wait(&q->cv, &q->mu);
		q->s2_wait_s += tf_clock_s(CLOCK_MONOTONIC) - t0;
	}
	block *b = q->nfull ? &q->blk[q->head] : NULL;
	pthread_mutex_unlock(&q->mu);
	return b;
}

static void give_back(tf_chrome_pipe *q, block *b)
{
	if (b->cap > BLOCK) { /* an event larger than a block: its memory back */
		free(b->buf);
		b->buf = NULL;
		b->cap = 0;
	}
	pthread_mutex_lock(&q->mu);
	q->head = (q->head + 1) % NBLOCK;
	q->nfull--;
	pthread_cond_broadcast(&q->cv);
	pthread_mutex_unlock(&q->mu);
}

/* A block's records through stage 2's tf_chrome r. */
static int process(tf_chrome *r, const block *b)
{
	for (size_t off = 0; off < b->len;) {
		const rec *x = (const rec *)(b->buf + off);
		off += x->size;
		if (x->kind == REC_EVENT) {
			TF_TRY(tf_chrome_process_event(r, &x->f));
		} else if (x->kind == REC_SKIP) {
			r->index++;
			tf_count_skip(r->ctx, TF_DIAG_bad_event);
		} else {
			tf_chrome_top_value(r, x->key, &x->f.args);
		}
	}
	return 0;
}

/* Stage 2: every block in order, then stage 1's end as read_one meets it. */
static int stage2(tf_chrome_pipe *q, tf_chrome *r, tf_ctx *ctx, const char *path, tf_error *err)
{
	block *b;
	while ((b = take(q))) {
		int rc = process(r, b);
		give_back(q, b);
		if (rc < 0)
			return rc;
	}
	if (q->rc < 0) {
		*err = q->err;
		return q->rc;
	}
	uint64_t cut = tf_ctx_diag(ctx)->n[TF_DIAG_truncated_record];
	if (q->p->fin_truncated)
		tf_count_skip(ctx, TF_DIAG_truncated_record);
	int rc = tf_chrome_finish_events(r);
	if (rc == 0 && q->in_truncated)
		tf_chrome_gzip_cut(ctx, path, cut, q->in_offset);
	return rc;
}

static bool regular_file(const char *path)
{
	struct stat sb;
	return strcmp(path, "-") != 0 && stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

int tf_chrome_read_piped(const char *path, uint32_t input, tf_ctx *ctx, tf_sink *sink, tf_in *in,
			 tf_error *err)
{
	const tf_read_opts *ro = tf_ctx_opts(ctx);
	const char *env = getenv("TRACEFOLD_TWO_STAGE");
	bool on = env && *env ? strcmp(env, "0") != 0 : TWO_STAGE_DEFAULT;
	if (ro->reader_threads < 2 || !on || !regular_file(path))
		return 1;
	tf_chrome_pipe *q = calloc(1, sizeof(*q));
	tf_chrome *r = tf_chrome_new(path, input, ctx, sink);
	if (q)
		q->p = tf_chrome_new_stage1(path, q);
	if (!q || !r || !q->p) {
		if (q)
			tf_chrome_free(q->p);
		free(q);
		tf_chrome_free(r);
		return tf_error_set(err, TF_ENOMEM, path, -1, -1, "out of memory");
	}
	q->in = in;
	pthread_mutex_init(&q->mu, NULL);
	pthread_cond_init(&q->cv, NULL);
	double t0 = tf_clock_s(CLOCK_MONOTONIC);
	pthread_t th;
	int rc = 1;
	if (pthread_create(&th, NULL, stage1, q) == 0) {
		rc = stage2(q, r, ctx, path, err);
		pthread_mutex_lock(&q->mu);
		q->cancel = true; /* stage 2 stopped early: stage 1 ends */
		pthread_cond_broadcast(&q->cv);
		pthread_mutex_unlock(&q->mu);
		pthread_join(th, NULL);
		if (ro->stage_stats) {
			tf_stage_stats *s = ro->stage_stats;
			s->inputs++;
			s->bytes += tf_in_offset(in);
			s->wall_s += tf_clock_s(CLOCK_MONOTONIC) - t0;
			s->s1_cpu_s += q->s1_cpu_s;
			s->s1_wait_s += q->s1_wait_s;
			s->s2_wait_s += q->s2_wait_s;
		}
	}
	pthread_mutex_destroy(&q->mu);
	pthread_cond_destroy(&q->cv);
	for (int i = 0; i < NBLOCK; i++)
		free(q->blk[i].buf);
	tf_chrome_free(q->p);
	tf_chrome_free(r);
	free(q);
	return rc;
}
