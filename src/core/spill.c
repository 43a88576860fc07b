/* spill.c - sorted runs in a temporary file and their k-way merge (spill.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tracefold/err.h"
#include "grow.h"
#include "spill.h"

struct tf_spill {
	int fd;
	uint64_t end;
	uint8_t *out;  /* the coder's buffer (coder_init), kept for the next run */
	size_t capout;
	tf_error err;  /* the first failed write or read back (code 0: none) */
	bool borrowed; /* tf_spill_reader's: the fd is its file's */
	char dir[];    /* where it was made, for the message */
};

/* A failed write or read back fails the run (never a silent fallback: a
 * run half written would come back twice, or not at all); the message
 * names the folder and the cause. */
static int spill_fail(tf_spill *f, int sys, bool reading)
{
	if (!f->err.code) {
		errno = 0; /* the text says why */
		tf_error_set(&f->err, TF_EIO, NULL, -1, -1, "cannot %s the temporary run file in '%s': %s (--sort-mem: %s)",
			     reading ? "read back" : "write", f->dir, strerror(sys),
			     reading ? "a sorted run is not what was written: the file was cut short, or the disk failed"
				     : "give TMPDIR more room or raise --sort-mem");
	}
	errno = sys;
	return TF_EIO;
}

const tf_error *tf_spill_error(const tf_spill *f)
{
	return f && f->err.code ? &f->err : NULL;
}

tf_spill *tf_spill_new(const char *dir)
{
	char path[4096];
	if (!dir || !*dir)
		dir = "/tmp";
	if (snprintf(path, sizeof(path), "%s/tracefold-sort-XXXXXX", dir) >= (int)sizeof(path)) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	tf_spill *f = calloc(1, sizeof(*f) + strlen(dir) + 1);
	if (!f)
		return NULL;
	strcpy(f->dir, dir);
	tf_error_clear(&f->err);
	f->fd = mkostemp(path, O_CLOEXEC);
	if (f->fd < 0) {
		int e = errno;
		free(f);
		errno = e;
		return NULL;
	}
	unlink(path); /* gone from the directory now; freed when closed */
	return f;
}

int tf_spill_lazy(tf_spill **f, int *state, const char *dir)
{
	if (!*state) {
		*f = tf_spill_new(dir);
		*state = *f ? 1 : -1;
	}
	return *state;
}

tf_spill *tf_spill_reader(const tf_spill *f)
{
	size_t n = strlen(f->dir) + 1;
	tf_spill *r = calloc(1, sizeof(*r) + n);
	if (!r)
		return NULL;
	memcpy(r->dir, f->dir, n);
	r->fd = f->fd;
	r->end = f->end;
	r->borrowed = true;
	tf_error_clear(&r->err);
	return r;
}

void tf_spill_free(tf_spill *f)
{
	if (!f)
		return;
	if (!f->borrowed)
		close(f->fd);
	free(f->out);
	free(f);
}

uint64_t tf_spill_bytes(const tf_spill *f) { return f ? f->end : 0; }

static int append(tf_spill *f, const void *base, size_t bytes)
{
	const char *p = base;
	size_t left = bytes;
	uint64_t off = f->end;
	while (left) {
		ssize_t w = pwrite(f->fd, p, left, (off_t)off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) /* nothing written, and no errno: the disk is full */
			return spill_fail(f, w == 0 ? ENOSPC : errno, false);
		p += w;
		off += (uint64_t)w;
		left -= (size_t)w;
	}
	f->end = off;
	return 0;
}

/* ---- the records in the file: each coded against the one before ----
 *
 * A record of sz bytes is taken as 8-byte words (the last one shorter when
 * sz is not a multiple of 8).  Each word is written as its difference from
 * the same word of the record before it in the run (the first: from zero),
 * zigzagged (small negative differences stay small) and cut to the bytes
 * it needs (0 to 8), whose counts go first, 4 bits a word.  Sorted runs
 * make the differences small: a 48-byte span of a sorted track becomes
 * about 9 bytes (start and end a few bytes each, names and sequence
 * numbers one or none; 8.5 on the legacy PyTorch trace of
 * docs/performance.md), a 152-byte kept event about 30, so the kernel
 * copies and the disk holds a fifth of the bytes.  Nothing needs to know
 * what the words mean, but every byte is coded: records spilled have no
 * padding (stack_int.h, gpu_join.c, agg_mem.c). */

#define CODE_SLACK 8 /* a word is stored and loaded 8 bytes at a time */

/* The most bytes a record takes: the lengths, and 8 bytes a word. */
static size_t code_max(size_t sz) { return ((sz + 7) / 8 + 1) / 2 + (sz + 7) / 8 * 8; }

static inline uint64_t word_at(const char *rec, size_t i, size_t sz)
{
	uint64_t w = 0;
	memcpy(&w, rec + 8 * i, sz - 8 * i < 8 ? sz - 8 * i : 8);
	return w;
}

static inline void word_put(char *rec, size_t i, size_t sz, uint64_t w)
{
	memcpy(rec + 8 * i, &w, sz - 8 * i < 8 ? sz - 8 * i : 8);
}

/* rec after prev (zeros for the first of a run) into out (code_max(sz) +
 * CODE_SLACK bytes): the bytes used.  Inlined for the sizes in use, so
 * that the words are plain loads. */
static inline __attribute__((always_inline)) size_t encode_sz(uint8_t *out, const char *rec, const char *prev,
							       size_t sz)
{
	size_t nw = (sz + 7) / 8, nc = (nw + 1) / 2;
	uint8_t *p = out + nc;
	if (nw & 1)
		out[nc - 1] = 0;
#pragma GCC unroll 20
	for (size_t i = 0; i < nw; i++) {
		uint64_t d = word_at(rec, i, sz) - word_at(prev, i, sz), z = (d << 1) ^ (0 - (d >> 63));
		/* bytes it needs: the highest set bit's byte, 0 for none (63 ^ clz: bsr) */
		unsigned len = (unsigned)(63 ^ __builtin_clzll(z | 1)) / 8 + (z != 0);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
		z = __builtin_bswap64(z);
#endif
		memcpy(p, &z, 8);
		p += len;
		if (i & 1)
			out[i / 2] |= (uint8_t)(len << 4);
		else
			out[i / 2] = (uint8_t)len;
	}
	return (size_t)(p - out);
}

static const uint64_t len_mask[9] = { 0, 0xff, 0xffff, 0xffffff, 0xffffffff, 0xffffffffffull,
				      0xffffffffffffull, 0xffffffffffffffull, ~(uint64_t)0 };

/* One record from in (avail bytes, CODE_SLACK more readable) after prev
 * into rec: the bytes used, 0 when they are not a record (cut short, or a
 * length that cannot be). */
static inline __attribute__((always_inline)) size_t decode_sz(char *rec, const uint8_t *in, size_t avail,
							       const char *prev, size_t sz)
{
	size_t nw = (sz + 7) / 8, nc = (nw + 1) / 2, need = nc;
	if (avail < nc)
		return 0;
	unsigned bad = nw & 1 ? in[nc - 1] >> 4 : 0;
#pragma GCC unroll 20
	for (size_t i = 0; i < nc; i++) {
		unsigned lo = in[i] & 15, hi = in[i] >> 4;
		bad |= (lo > 8) | (hi > 8);
		need += lo + hi;
	}
	if (bad || need > avail)
		return 0;
	const uint8_t *p = in + nc;
#pragma GCC unroll 20
	for (size_t i = 0; i < nw; i++) {
		unsigned len = in[i / 2] >> 4 * (i & 1) & 15;
		uint64_t z;
		memcpy(&z, p, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
		z = __builtin_bswap64(z);
#endif
		z &= len_mask[len];
		p += len;
		word_put(rec, i, sz, word_at(prev, i, sz) + ((z >> 1) ^ (0 - (z & 1))));
	}
	return need;
}

/* The sizes the stack builder spills (spans 48, kept events 152, the GPU
 * join's 16), each with its own unrolled copy. */
static size_t encode(uint8_t *out, const char *rec, const char *prev, size_t sz)
{
	switch (sz) {
	case 16: return encode_sz(out, rec, prev, 16);
	case 48: return encode_sz(out, rec, prev, 48);
	case 152: return encode_sz(out, rec, prev, 152);
	default: return encode_sz(out, rec, prev, sz);
	}
}

static size_t decode(char *rec, const uint8_t *in, size_t avail, const char *prev, size_t sz)
{
	switch (sz) {
	case 16: return decode_sz(rec, in, avail, prev, 16);
	case 48: return decode_sz(rec, in, avail, prev, 48);
	case 152: return decode_sz(rec, in, avail, prev, 152);
	default: return decode_sz(rec, in, avail, prev, sz);
	}
}

/* Coded records gathered into 64 KiB writes. */
#define OUT_BYTES 65536

typedef struct coder {
	tf_spill *f;
	size_t sz, max, k;
	uint64_t n;
	uint8_t *out;
	const char *prev; /* the last record coded; zeros before the first */
	char *last;
} coder;

static int coder_init(coder *w, tf_spill *f, size_t sz)
{
	*w = (coder){ .f = f, .sz = sz, .max = code_max(sz) };
	size_t need = OUT_BYTES + w->max + CODE_SLACK + sz;
	if (f->capout < need) {
		uint8_t *o = realloc(f->out, need);
		if (!o)
			return TF_ENOMEM;
		f->out = o;
		f->capout = need;
	}
	w->out = f->out;
	w->last = (char *)w->out + OUT_BYTES + w->max + CODE_SLACK;
	memset(w->last, 0, sz);
	w->prev = w->last;
	return 0;
}

/* rec, after the one put before; rec must stay as it is until the next
 * put unless keep (then it is copied). */
static int coder_put(coder *w, const void *rec, bool keep)
{
	w->k += encode(w->out + w->k, rec, w->prev, w->sz);
	w->n++;
	if (keep) {
		memcpy(w->last, rec, w->sz);
		rec = w->last;
	}
	w->prev = rec;
	if (w->k + w->max > OUT_BYTES) {
		int r = append(w->f, w->out, w->k);
		w->k = 0;
		return r;
	}
	return 0;
}

static int coder_end(coder *w, tf_run *run, uint64_t off, uint32_t level)
{
	int r = w->k ? append(w->f, w->out, w->k) : 0;
	*run = (tf_run){ off, w->n, w->f->end - off, level };
	return r;
}

static int compact(tf_spill *f, tf_runs *rs, uint32_t first, size_t sz, tf_cmp_fn cmp);
static void new_top(tf_merge *m);

int tf_spill_write(tf_spill *f, tf_runs *rs, const void *base, size_t n, size_t sz, tf_cmp_fn cmp)
{
	if (!n)
		return 0;
	if (tf_grow((void **)&rs->r, &rs->cap, rs->n + 1, sizeof(tf_run)) < 0)
		return TF_ENOMEM;
	coder w;
	TF_TRY(coder_init(&w, f, sz));
	uint64_t off = f->end;
	int r = 0;
	for (size_t i = 0; i < n && r == 0; i++)
		r = coder_put(&w, (const char *)base + i * sz, false);
	tf_run run;
	r = r ? r : coder_end(&w, &run, off, 0);
	TF_TRY(r);
	rs->r[rs->n++] = run;
	/* levels do not grow from the front to the back: the last FANIN runs
	 * have one level when the FANIN-th from the end has the last's */
	while (cmp && rs->n >= TF_SPILL_FANIN && rs->r[rs->n - TF_SPILL_FANIN].level == rs->r[rs->n - 1].level)
		TF_TRY(compact(f, rs, rs->n - TF_SPILL_FANIN, sz, cmp));
	return 0;
}

void tf_runs_free(tf_runs *rs)
{
	free(rs->r);
	rs->r = NULL;
	rs->n = rs->cap = 0;
}

/* ---- merge ---- */

/* One run's buffers: 4 KiB of records decoded, 4 KiB read from the file
 * and not yet decoded (the records in memory are a run without a file). */
#define DEC_BYTES 4096
#define RAW_BYTES 4096

struct tf_mcur {
	const char *rec;   /* the current record */
	const char *end;   /* end of the records in buf (or in memory) */
	char *buf;         /* NULL: the run in memory */
	uint64_t off, left; /* in the file: where the unread bytes start; records not yet decoded */
	uint64_t bytes;    /* bytes not yet read */
	uint8_t *raw;      /* read, not yet decoded: raw[rpos..rlen) */
	size_t rpos, rlen, rcap;
	size_t dcap;       /* records buf holds */
	char *prev;        /* the last record decoded (sz bytes; zeros before the first), for the next */
};

static size_t dec_cap(size_t sz) { return DEC_BYTES / sz ? DEC_BYTES / sz : 1; }

static int read_more(tf_merge *m, struct tf_mcur *c)
{
	memmove(c->raw, c->raw + c->rpos, c->rlen - c->rpos);
	c->rlen -= c->rpos;
	c->rpos = 0;
	size_t want = c->rcap - c->rlen < c->bytes ? c->rcap - c->rlen : (size_t)c->bytes, got = 0;
	while (got < want) {
		ssize_t r = pread(m->f->fd, c->raw + c->rlen + got, want - got, (off_t)(c->off + got));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) /* 0: the file is shorter than what was written */
			return spill_fail(m->f, r == 0 ? EIO : errno, true);
		got += (size_t)r;
	}
	c->off += want;
	c->bytes -= want;
	c->rlen += want;
	return 0;
}

/* The next records of c's run decoded into its buffer; a run whose bytes
 * do not make its records, or make more, is not what was written. */
static int refill(tf_merge *m, struct tf_mcur *c)
{
	size_t sz = m->sz, cap = c->dcap, k = 0, max = code_max(sz);
	const char *prev = c->prev;
	for (; k < cap && c->left; k++, c->left--) {
		if (c->rlen - c->rpos < max && c->bytes)
			TF_TRY(read_more(m, c));
		size_t used = decode(c->buf + k * sz, c->raw + c->rpos, c->rlen - c->rpos, prev, sz);
		if (!used)
			return spill_fail(m->f, EIO, true);
		c->rpos += used;
		prev = c->buf + k * sz;
	}
	if (!c->left && (c->bytes || c->rpos != c->rlen))
		return spill_fail(m->f, EIO, true);
	memcpy(c->prev, prev, sz);
	c->rec = c->buf;
	c->end = c->buf + k * sz;
	return 0;
}

static int cur_cmp(const tf_merge *m, uint32_t a, uint32_t b)
{
	int r = m->cmp(m->cur[a].rec, m->cur[b].rec);
	return r ? r : (a > b) - (a < b); /* equal records: run order (never happens with a total order) */
}

static void sift_down(tf_merge *m, uint32_t i)
{
	for (;;) {
		uint32_t l = 2 * i + 1, r = l + 1, k = i;
		if (l < m->nheap && cur_cmp(m, m->heap[l], m->heap[k]) < 0)
			k = l;
		if (r < m->nheap && cur_cmp(m, m->heap[r], m->heap[k]) < 0)
			k = r;
		if (k == i)
			return;
		uint32_t t = m->heap[i];
		m->heap[i] = m->heap[k];
		m->heap[k] = t;
		i = k;
	}
}

int tf_merge_init(tf_merge *m, tf_spill *f, const tf_runs *rs, const void *mem, size_t n, size_t sz, tf_cmp_fn cmp)
{
	memset(m, 0, sizeof(*m));
	m->sz = sz;
	m->cmp = cmp;
	m->f = f;
	uint32_t nr = rs ? rs->n : 0;
	m->cur = calloc((size_t)nr + 1, sizeof(*m->cur));
	m->heap = calloc((size_t)nr + 1, sizeof(*m->heap));
	if (!m->cur || !m->heap) {
		tf_merge_free(m);
		return TF_ENOMEM;
	}
	for (uint32_t i = 0; i < nr; i++) {
		struct tf_mcur *c = &m->cur[m->ncur++];
		c->off = rs->r[i].off;
		c->left = rs->r[i].n;
		c->bytes = rs->r[i].bytes;
		/* one block, no larger than the run: decoded records, the last
		 * one decoded (zeros to start), the bytes read */
		c->dcap = c->left < dec_cap(sz) ? (size_t)c->left : dec_cap(sz);
		c->rcap = c->bytes < RAW_BYTES ? (size_t)c->bytes : RAW_BYTES;
		if (c->rcap < 2 * code_max(sz))
			c->rcap = 2 * code_max(sz);
		if (!(c->buf = malloc(c->dcap * sz + sz + c->rcap + CODE_SLACK))) {
			tf_merge_free(m);
			return TF_ENOMEM;
		}
		c->prev = c->buf + c->dcap * sz;
		memset(c->prev, 0, sz);
		c->raw = (uint8_t *)c->prev + sz;
		int r = c->left ? refill(m, c) : 0;
		if (r < 0) {
			tf_merge_free(m);
			return r;
		}
		if (c->rec != c->end)
			m->heap[m->nheap++] = m->ncur - 1;
	}
	if (n) {
		struct tf_mcur *c = &m->cur[m->ncur++];
		c->rec = mem;
		c->end = (const char *)mem + n * sz;
		m->heap[m->nheap++] = m->ncur - 1;
	}
	for (uint32_t i = m->nheap / 2; i-- > 0;)
		sift_down(m, i);
	new_top(m);
	return 0;
}

const void *tf_merge_peek(const tf_merge *m)
{
	return m->nheap ? m->cur[m->heap[0]].rec : NULL;
}

/* Does record p of the top cursor come before the runner-up's record? */
static bool before_next(const tf_merge *m, const char *p)
{
	uint32_t a = m->heap[0], b = m->heap[m->next];
	int r = m->cmp(p, m->cur[b].rec);
	return r < 0 || (r == 0 && a < b);
}

/* The top's current record comes first: how far past it do its records
 * still come before the runner-up's?  Runs often follow one another
 * (sorted input spilled in pieces): then a whole buffer is handed out
 * without a compare per record.  Doubling steps, then halving: about
 * 2 log2(k) compares for k records in a row. */
static void gallop(tf_merge *m)
{
	const struct tf_mcur *c = &m->cur[m->heap[0]];
	if (m->nheap < 2) {
		m->lim = c->end;
		return;
	}
	const char *lo = c->rec, *hi = c->end; /* lo comes before; hi does not, or is the end */
	for (size_t step = m->sz;; step *= 2) {
		if ((size_t)(hi - lo) <= step || !before_next(m, lo + step)) {
			if ((size_t)(hi - lo) > step)
				hi = lo + step;
			break;
		}
		lo += step;
	}
	while ((size_t)(hi - lo) > m->sz) {
		const char *mid = lo + (size_t)(hi - lo) / m->sz / 2 * m->sz;
		if (before_next(m, mid))
			lo = mid;
		else
			hi = mid;
	}
	m->lim = lo + m->sz;
}

/* A new top: its runner-up, and only its current record known first. */
static void new_top(tf_merge *m)
{
	if (!m->nheap)
		return;
	m->next = m->nheap > 2 && cur_cmp(m, m->heap[2], m->heap[1]) < 0 ? 2 : 1;
	m->lim = m->cur[m->heap[0]].rec + m->sz;
}

int tf_merge_pop(tf_merge *m)
{
	if (!m->nheap)
		return 0;
	struct tf_mcur *c = &m->cur[m->heap[0]];
	c->rec += m->sz;
	if (c->rec < m->lim) /* known to come first still */
		return 0;
	if (c->rec == c->end && c->buf && c->left) {
		int r = refill(m, c);
		if (r < 0)
			return r;
	}
	if (c->rec == c->end) {
		m->heap[0] = m->heap[--m->nheap];
	} else if (m->nheap < 2 || before_next(m, c->rec)) {
		gallop(m);
		return 0;
	}
	if (m->nheap > 1)
		sift_down(m, 0);
	new_top(m);
	return 0;
}

/* The runs of rs from first on, merged into one new run at the end of the
 * file (their space is not reused: the file holds each record once per level). */
static int compact(tf_spill *f, tf_runs *rs, uint32_t first, size_t sz, tf_cmp_fn cmp)
{
	tf_merge m;
	tf_runs part = { rs->r + first, rs->n - first, 0 };
	TF_TRY(tf_merge_init(&m, f, &part, NULL, 0, sz, cmp));
	coder w;
	uint64_t off = f->end;
	int r = coder_init(&w, f, sz);
	if (r < 0) {
		tf_merge_free(&m);
		return r;
	}
	for (const void *p; r == 0 && (p = tf_merge_peek(&m));) {
		r = coder_put(&w, p, true); /* p goes with the pop */
		if (r == 0)
			r = tf_merge_pop(&m);
	}
	tf_run run;
	r = r ? r : coder_end(&w, &run, off, rs->r[rs->n - 1].level + 1);
	tf_merge_free(&m);
	if (r < 0)
		return r;
	rs->r[first] = run;
	rs->n = first + 1;
	return 0;
}

int tf_merge_drain(tf_merge *m, void **v, uint32_t *n, uint32_t *cap)
{
	for (const void *p; (p = tf_merge_peek(m));) {
		if (tf_grow(v, cap, *n + 1, m->sz) < 0)
			return TF_ENOMEM;
		memcpy((char *)*v + (size_t)*n * m->sz, p, m->sz);
		++*n;
		TF_TRY(tf_merge_pop(m));
	}
	return 0;
}

void tf_merge_free(tf_merge *m)
{
	if (m->cur)
		for (uint32_t i = 0; i < m->ncur; i++)
			free(m->cur[i].buf);
	free(m->cur);
	free(m->heap);
	memset(m, 0, sizeof(*m));
}
