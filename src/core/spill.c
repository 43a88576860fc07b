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
	tf_error err;  /* the first failed write or read back (code 0: none) */
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

void tf_spill_free(tf_spill *f)
{
	if (!f)
		return;
	close(f->fd);
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

static int compact(tf_spill *f, tf_runs *rs, uint32_t first, size_t sz, tf_cmp_fn cmp);
static void new_top(tf_merge *m);

int tf_spill_write(tf_spill *f, tf_runs *rs, const void *base, size_t n, size_t sz, tf_cmp_fn cmp)
{
	if (!n)
		return 0;
	if (tf_grow((void **)&rs->r, &rs->cap, rs->n + 1, sizeof(tf_run)) < 0)
		return TF_ENOMEM;
	uint64_t off = f->end;
	TF_TRY(append(f, base, n * sz));
	rs->r[rs->n++] = (tf_run){ off, n, 0 };
	/* levels do not grow from the front to the back: the last FANIN runs
	 * have one level when the FANIN-th from the end has the last's */
	while (rs->n >= TF_SPILL_FANIN && rs->r[rs->n - TF_SPILL_FANIN].level == rs->r[rs->n - 1].level)
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

/* One run's read buffer (the records in memory are a run without a file). */
#define MERGE_BUF_BYTES 8192

struct tf_mcur {
	const char *rec;   /* the current record */
	const char *end;   /* end of the records in buf (or in memory) */
	char *buf;         /* NULL: the run in memory */
	uint64_t off, left; /* in the file: where the rest starts, records not yet read */
};

static int refill(tf_merge *m, struct tf_mcur *c)
{
	size_t cap = MERGE_BUF_BYTES / m->sz ? MERGE_BUF_BYTES / m->sz : 1;
	size_t k = c->left < cap ? (size_t)c->left : cap, want = k * m->sz, got = 0;
	while (got < want) {
		ssize_t r = pread(m->f->fd, c->buf + got, want - got, (off_t)(c->off + got));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) /* 0: the file is shorter than what was written */
			return spill_fail(m->f, r == 0 ? EIO : errno, true);
		got += (size_t)r;
	}
	c->off += want;
	c->left -= k;
	c->rec = c->buf;
	c->end = c->buf + want;
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
		if (!(c->buf = malloc(MERGE_BUF_BYTES > sz ? MERGE_BUF_BYTES : sz))) {
			tf_merge_free(m);
			return TF_ENOMEM;
		}
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
	size_t cap = 8 * MERGE_BUF_BYTES / sz ? 8 * MERGE_BUF_BYTES / sz : 1, k = 0;
	char *out = malloc(cap * sz);
	uint64_t off = f->end, n = 0;
	int r = out ? 0 : TF_ENOMEM;
	for (const void *p; r == 0 && (p = tf_merge_peek(&m));) {
		memcpy(out + k++ * sz, p, sz);
		n++;
		if (k == cap) {
			r = append(f, out, k * sz);
			k = 0;
		}
		if (r == 0)
			r = tf_merge_pop(&m);
	}
	if (r == 0 && k)
		r = append(f, out, k * sz);
	free(out);
	tf_merge_free(&m);
	if (r < 0)
		return r;
	rs->r[first] = (tf_run){ off, n, rs->r[rs->n - 1].level + 1 };
	rs->n = first + 1;
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
