/* chrome_pipe.c - a Chrome JSON input read in two stages on two threads
 * (-j N when a thread is spare: tf_read_opts.reader_threads, set by
 * src/parallel/threads.c when the run's inputs have fewer parts than
 * threads, and tf_read_opts.two_stage; issue 33, docs/performance.md "One
 * file on two threads"):
 *
 *   stage 1 (a thread of its own)    the input's bytes (tf_in_chunk: read,
 *                                    mapped or inflated), the top level,
 *                                    each event object tokenized and
 *                                    strictly checked (tf_chrome_parse_event),
 *                                    or only its end found (raw, below)
 *   stage 2 (the caller's thread)    each event in file order (a raw one
 *                                    tokenized first; tf_chrome_process_event:
 *                                    strings, tracks, args, tf_emit) and the end
 *
 * Between them a ring of NBLOCK blocks of BLOCK bytes: stage 1 parses each
 * event's fields straight into a block (trimmed to the args members
 * picked).  An event in a window of the file mapped into memory (io.h
 * tf_in_take_window) is left there: stage 1 keeps the window mapped and
 * queues its release after the window's last event, and holds at most
 * NWIN of them (waiting for stage 2 to release one).  Any other event (the
 * first chunk, one cut by a chunk's end and joined in the carry, gzip) has
 * its bytes copied after its fields, the spans moved onto the copy.  A block
 * goes to stage 2 when full, and stage 1 waits when every block is full or
 * being read.  Memory: NBLOCK x BLOCK and NWIN windows more (an event
 * larger than a block gets a block of its size, given back when stage 2 is
 * done with it, as the one-stage reader's carry holds such an event whole).
 *
 * Balance (issue 33): tokenizing is most of stage 1, and on short events
 * (the legacy PyTorch shape) stage 1 would be the slow stage.  So while
 * few blocks wait for stage 2 (RAW_BELOW: stage 2 would soon wait), stage 1
 * hands events over raw: only their end found (tf_chrome_pipe_end, a
 * quarter of the tokenizer's cost), stage 2 tokenizes them with the same
 * parser, so that its errors are the one-stage reader's (the same bytes,
 * offset and index).  Mode 2 (tests) hands every event over raw.
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
 * output or the temporary file failing, TF_ESTOP, a raw event's syntax
 * error) stops stage 1 (cancel, seen when it waits and between chunks) and
 * it is joined before the reader returns: no thread outlives the read.
 *
 * Only regular files: stage 1 blocked on a pipe that stays open would hold
 * stage 2's return.
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
#define NWIN 3           /* mapped windows held for stage 2 at most */
#define PAD 16           /* zeroed bytes after a record's copied text */
/* Stage 1 hands events over raw while fewer blocks than this wait, at
 * most RAW_CAP in a block (about a block of tokenized events' work for
 * stage 2: a raw event costs it 2.2-2.8 times as much) */
#define RAW_BELOW (NBLOCK / 2)
#define RAW_CAP 256

enum { REC_EVENT, REC_RAW, REC_SKIP, REC_TOP, REC_UNMAP };

/* A record in a block: the header, its body, then any copied text (n
 * bytes, PAD zeroed bytes after them). */
typedef struct rec {
	uint8_t kind;          /* REC_* */
	uint8_t type, esc;     /* REC_TOP: the value's span type and escapes */
	int32_t key;           /* REC_TOP: the top-level key; REC_UNMAP: the window's slot */
	uint32_t body;         /* the body's bytes (a multiple of 8) */
	uint32_t pad_;
	uint64_t size;         /* header, body, text and padding: a multiple of 8 */
	uint64_t n;            /* the copied text's bytes (0: none) */
} rec;

/* REC_EVENT's body: the fields, up to the last args member picked (the
 * spans into the window, or into the text copied after the body).
 * REC_RAW's: */
typedef struct raw {
	const u8 *text;        /* the event's bytes, in a window (NULL: copied after) */
	uint64_t n;
	int64_t off;           /* the absolute offset of its '{' */
} raw;

typedef struct block {
	unsigned char *buf;
	size_t len, cap;
} block;

typedef struct window {
	const u8 *base;        /* NULL: a free slot */
	size_t len;
} window;

struct tf_chrome_pipe {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	block blk[NBLOCK];
	int head, nfull;       /* filled: head .. head+nfull-1 (stage 2 reads head's) */
	int wr;                /* stage 1 fills this one (not among the filled) */
	bool done;             /* stage 1 ended: its end below is set */
	bool cancel;           /* stage 2 stopped: stage 1 ends at once */
	int mode;              /* tf_read_opts.two_stage */
	bool raw;              /* stage 1 hands events over raw (mode 1: while the queue
				* is short; mode 2: always) */
	unsigned blk_raw;      /* raw events in the block being filled */
	window win[NWIN];      /* windows held (the mutex: nwin, a slot freed) */
	int nwin;
	const u8 *cur, *cur_end; /* stage 1: the window being parsed (NULL none) */
	tf_chrome *p;          /* stage 1's parser */
	tf_in *in;
	/* stage 1's end */
	int rc;
	tf_error err;
	bool in_truncated;
	uint64_t in_offset;
	/* -v */
	double s1_cpu_s, s1_wait_s, s2_wait_s;
	uint64_t nevent, nraw;
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
	/* the next block's events raw while stage 2 has little to do */
	q->raw = q->mode == 2 || (q->mode == 1 && q->nfull < RAW_BELOW);
	pthread_mutex_unlock(&q->mu);
	if (rc == 0)
		q->blk[q->wr].len = 0;
	q->blk_raw = 0;
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

static size_t rec_size(size_t body, size_t n)
{
	return sizeof(rec) + body + (n ? (n + PAD + 7) & ~(size_t)7 : 0);
}

/* A record of kind with body bytes and text [t, t + n) copied (n 0: none)
 * at the end of the block being filled (room made for need bytes): its
 * header set, the block's length past it.  Returns the record. */
static rec *put_rec(tf_chrome_pipe *q, int kind, size_t body, const u8 *t, size_t n, size_t need)
{
	block *b = &q->blk[q->wr];
	rec *x = (rec *)(b->buf + b->len);
	x->kind = (uint8_t)kind;
	x->body = (uint32_t)body;
	x->size = need;
	x->n = n;
	if (n) {
		unsigned char *text = (unsigned char *)(x + 1) + body;
		memcpy(text, t, n);
		memset(text + n, 0, PAD);
	}
	b->len += need;
	return x;
}

/* Are [q, end) in the window being parsed (they stay mapped for stage 2)? */
static inline bool in_window(const tf_chrome_pipe *pp, const u8 *q, const u8 *end)
{
	return pp->cur && q >= pp->cur && end <= pp->cur_end;
}

bool tf_chrome_pipe_raw(const tf_chrome *p)
{
	return p->pipe->raw;
}

/* p at an event's '{': *out after its closing bracket, found by counting
 * the brackets outside strings, 32 bytes at a time (a quarter of
 * tf_json_skip_nested's instructions on short events).  Brackets are not
 * paired by kind, nothing else is checked: stage 2's parser of the event's
 * bytes finds any error before the end found, the one-stage reader's (a
 * prefix without one is JSON, whose brackets this counts as the parser
 * does).  false: none before end less 32 bytes, or a backslash (then the
 * caller parses it itself). */
bool tf_chrome_pipe_end(const u8 *p, const u8 *end, const u8 **out)
{
#ifdef __SSE2__
	const __m128i qt = _mm_set1_epi8('"'), bs = _mm_set1_epi8('\\'), lo = _mm_set1_epi8(0x20);
	const __m128i ob = _mm_set1_epi8('{'), cb = _mm_set1_epi8('}'); /* '[' and ']' | 0x20 */
	uint32_t in_str = 0; /* all ones: the block starts inside a string */
	int depth = 0;
	for (; end - p >= 32; p += 32) {
		__m128i a = _mm_loadu_si128((const __m128i *)(const void *)p);
		__m128i b = _mm_loadu_si128((const __m128i *)(const void *)(p + 16));
		__m128i la = _mm_or_si128(a, lo), lb = _mm_or_si128(b, lo);
#define M32(x, y) ((uint32_t)_mm_movemask_epi8(x) | (uint32_t)_mm_movemask_epi8(y) << 16)
		if (M32(_mm_cmpeq_epi8(a, bs), _mm_cmpeq_epi8(b, bs)))
			return false;
		uint32_t q = M32(_mm_cmpeq_epi8(a, qt), _mm_cmpeq_epi8(b, qt));
		uint32_t o = M32(_mm_cmpeq_epi8(la, ob), _mm_cmpeq_epi8(lb, ob));
		uint32_t c = M32(_mm_cmpeq_epi8(la, cb), _mm_cmpeq_epi8(lb, cb));
#undef M32
		q ^= q << 1;
		q ^= q << 2;
		q ^= q << 4;
		q ^= q << 8;
		q ^= q << 16;
		q ^= in_str; /* bit i: byte i is inside a string (or its opening quote) */
		in_str = (uint32_t)((int32_t)q >> 31);
		o &= ~q;
		c &= ~q;
		for (uint32_t m = o | c; m; m &= m - 1) {
			if (o & m & -m)
				depth++;
			else if (--depth == 0) {
				*out = p + __builtin_ctz(m) + 1;
				return true;
			}
		}
	}
#else
	(void)p, (void)end, (void)out;
#endif
	return false;
}

int tf_chrome_pipe_fields(tf_chrome *p, tf_chrome_fields **f)
{
	tf_chrome_pipe *q = p->pipe;
	block *b = &q->blk[q->wr];
	size_t need = sizeof(rec) + sizeof(tf_chrome_fields);
	if (b->len + need > b->cap) {
		int rc = room(q, need);
		if (rc < 0)
			return fail(p, rc);
		b = &q->blk[q->wr];
	}
	*f = (tf_chrome_fields *)((rec *)(b->buf + b->len) + 1);
	return 0;
}

/* A span into the text moved by d bytes onto its copy (an absent one,
 * p NULL, stays so). */
static inline void rebase(tf_json_span *s, uintptr_t d)
{
	s->p = s->p ? (const u8 *)((uintptr_t)s->p + d) : NULL;
}

/* A raw event [q, end): its bytes left in the window, or copied. */
static int put_raw(tf_chrome *p, const u8 *q, const u8 *end)
{
	tf_chrome_pipe *pp = p->pipe;
	size_t n = (size_t)(end - q);
	bool keep = in_window(pp, q, end);
	size_t need = rec_size(sizeof(raw), keep ? 0 : n);
	int rc = room(pp, need);
	if (rc < 0)
		return fail(p, rc);
	rec *x = put_rec(pp, REC_RAW, sizeof(raw), q, keep ? 0 : n, need);
	raw *w = (raw *)(x + 1);
	w->text = keep ? q : NULL;
	w->n = n;
	w->off = p->buf_base + (q - p->buf0);
	pp->nraw++;
	if (++pp->blk_raw == RAW_CAP && pp->mode == 1 && (rc = publish(pp)) < 0)
		return rc;
	return 0;
}

int tf_chrome_pipe_event(tf_chrome *p, const u8 *q, const u8 *end, tf_chrome_fields *f)
{
	tf_chrome_pipe *pp = p->pipe;
	pp->nevent++;
	if (!f)
		return put_raw(p, q, end);
	/* the fields up to the last member picked */
	unsigned last = f->picks && f->picked ? 32u - (unsigned)__builtin_clz(f->picked) : 0;
	size_t body = offsetof(tf_chrome_fields, pick) + last * sizeof(tf_json_span);
	body = (body + 7) & ~(size_t)7;
	size_t n = (size_t)(end - q);
	bool keep = in_window(pp, q, end);
	size_t need = rec_size(body, keep ? 0 : n);
	block *b = &pp->blk[pp->wr];
	if (b->len + need > b->cap) { /* the fields parsed in place move */
		tf_chrome_fields save = *f;
		int rc = room(pp, need);
		if (rc < 0)
			return fail(p, rc);
		b = &pp->blk[pp->wr];
		f = (tf_chrome_fields *)((rec *)(b->buf + b->len) + 1);
		memcpy(f, &save, body);
	}
	rec *x = put_rec(pp, REC_EVENT, body, q, keep ? 0 : n, need);
	if (keep)
		return 0;
	uintptr_t d = (uintptr_t)((unsigned char *)(x + 1) + body) - (uintptr_t)q;
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
	for (unsigned k = 0; k < last; k++)
		if (f->picked >> k & 1)
			rebase(&f->pick[k], d);
	return 0;
}

/* A record of another kind: the value v (none: NULL) copied. */
static int put(tf_chrome *p, int kind, int key, const tf_json_span *v)
{
	tf_chrome_pipe *q = p->pipe;
	size_t n = v ? v->n : 0, need = rec_size(0, n);
	int rc = room(q, need);
	if (rc < 0)
		return fail(p, rc);
	rec *x = put_rec(q, kind, 0, v ? v->p : NULL, n, need);
	x->key = key;
	x->type = v ? v->type : 0;
	x->esc = v ? v->esc : 0;
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

/* Waits (the block being filled published) while NWIN windows are held;
 * returns a free slot, or -1: stage 2 stopped. */
static int window_slot(tf_chrome_pipe *q)
{
	pthread_mutex_lock(&q->mu);
	bool full = q->nwin == NWIN && !q->cancel;
	pthread_mutex_unlock(&q->mu);
	if (full && q->blk[q->wr].len && publish(q) < 0)
		return -1;
	pthread_mutex_lock(&q->mu);
	if (q->nwin == NWIN && !q->cancel) {
		double t0 = tf_clock_s(CLOCK_MONOTONIC);
		while (q->nwin == NWIN && !q->cancel)
			pthread_cond_wait(&q->cv, &q->mu);
		q->s1_wait_s += tf_clock_s(CLOCK_MONOTONIC) - t0;
	}
	int k = -1;
	for (int i = 0; !q->cancel && i < NWIN && k < 0; i++)
		if (!q->win[i].base)
			k = i;
	pthread_mutex_unlock(&q->mu);
	return k;
}

/* The chunk [data, data + n) just handed out as a window held for stage 2
 * when it is one (io.h tf_in_take_window), in slot *slot (-1: not). */
static int hold_window(tf_chrome_pipe *q, const u8 *data, size_t n, int *slot)
{
	*slot = -1;
	size_t len;
	const u8 *w = tf_in_take_window(q->in, &len);
	if (!w)
		return 0;
	int k = window_slot(q);
	if (k < 0) {
		tf_in_window_free(w, len);
		return TF_ECANCEL;
	}
	pthread_mutex_lock(&q->mu);
	q->win[k].base = w;
	q->win[k].len = len;
	q->nwin++;
	pthread_mutex_unlock(&q->mu);
	if (data == w && n == len) {
		q->cur = w;
		q->cur_end = w + len;
	}
	*slot = k;
	return 0;
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
		int slot;
		if ((rc = hold_window(q, data, (size_t)n, &slot)) < 0)
			break;
		rc = tf_chrome_feed(p, data, (size_t)n, &q->err);
		q->cur = q->cur_end = NULL;
		if (rc < 0)
			break;
		if (slot >= 0 && (rc = put(p, REC_UNMAP, slot, NULL)) < 0) /* after its last event */
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

/* A raw record (x: REC_RAW) tokenized here, as stage 1 would have: its
 * error is the one-stage reader's (the same parser over the same bytes,
 * the offset from the record, the index r's). */
static int parse_raw(tf_chrome *r, const rec *x, tf_chrome_fields *f)
{
	const raw *w = (const raw *)(x + 1);
	const u8 *text = w->text ? w->text : (const u8 *)(w + 1), *end = text + w->n, *out;
	r->buf0 = text;
	r->buf_base = w->off;
	int rc = tf_chrome_parse_event(r, text, end, f, &out);
	if (rc < 0)
		return rc;
	if (rc != R_OK || out != end) /* stage 1 found its end: cannot be */
		return tf_error_set(r->err, TF_EFORMAT, r->path, w->off, (int64_t)r->index,
				    "internal error: an event's end differs between the two stages");
	return 0;
}

/* Window k's last event is processed: it goes. */
static void unmap(tf_chrome_pipe *q, int k)
{
	tf_in_window_free(q->win[k].base, q->win[k].len);
	pthread_mutex_lock(&q->mu);
	q->win[k].base = NULL;
	q->nwin--;
	pthread_cond_broadcast(&q->cv);
	pthread_mutex_unlock(&q->mu);
}

/* A block's records through stage 2's tf_chrome r. */
static int process(tf_chrome_pipe *q, tf_chrome *r, const block *b)
{
	for (size_t off = 0; off < b->len;) {
		const rec *x = (const rec *)(b->buf + off);
		off += x->size;
		if (x->kind == REC_EVENT) {
			TF_TRY(tf_chrome_process_event(r, (const tf_chrome_fields *)(x + 1)));
		} else if (x->kind == REC_RAW) {
			tf_chrome_fields f;
			TF_TRY(parse_raw(r, x, &f));
			TF_TRY(tf_chrome_process_event(r, &f));
		} else if (x->kind == REC_SKIP) {
			r->index++;
			tf_count_skip(r->ctx, TF_DIAG_bad_event);
		} else if (x->kind == REC_TOP) {
			tf_json_span v = { (const u8 *)(x + 1), (size_t)x->n, x->type, x->esc };
			tf_chrome_top_value(r, x->key, &v);
		} else {
			unmap(q, x->key);
		}
	}
	return 0;
}

/* Stage 2: every block in order, then stage 1's end as read_one meets it. */
static int stage2(tf_chrome_pipe *q, tf_chrome *r, tf_ctx *ctx, const char *path, tf_error *err)
{
	block *b;
	r->err = err; /* a raw event's error (parse_raw) */
	while ((b = take(q))) {
		int rc = process(q, r, b);
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
	if (ro->reader_threads < 2 || ro->two_stage <= 0 || !regular_file(path))
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
	q->mode = ro->two_stage;
	q->raw = true; /* the queue is empty */
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
			s->events += q->nevent;
			s->raw_events += q->nraw;
		}
	}
	pthread_mutex_destroy(&q->mu);
	pthread_cond_destroy(&q->cv);
	for (int i = 0; i < NBLOCK; i++)
		free(q->blk[i].buf);
	for (int i = 0; i < NWIN; i++) /* held when a stage stopped early */
		tf_in_window_free(q->win[i].base, q->win[i].len);
	tf_chrome_free(q->p);
	tf_chrome_free(r);
	free(q);
	return rc;
}
