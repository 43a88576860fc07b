/* record.c - a recording (include/tracefold/record.h, docs/record.md): its
 * file, its writer thread and the queue of buffers the threads hand over,
 * and the control packets (descriptors of the process, its threads, tracks
 * and counter tracks; the clocks), queued as they are made, so that a
 * descriptor reaches the file before any event that names its track. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "record_int.h"
#include "record_enc.h"


uint64_t tfr_mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

uint64_t tfr_draw(tfr *r)
{
	for (;;) { /* a bijection of a counter: distinct in this process */
		uint64_t v = tfr_mix64(r->nonce ^ __atomic_add_fetch(&r->counter, 1, __ATOMIC_RELAXED));
		if (v)
			return v;
	}
}

uint64_t tfr_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;
	if (clock_gettime(id, &ts) < 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- the queue ---- */

tfr_chunk *tfr_chunk_get(tfr *r, size_t need)
{
	if (need <= r->chunk_size && r->free) {
		tfr_chunk *c = r->free;
		r->free = c->next;
		r->nfree--;
		c->next = NULL;
		c->len = 0;
		c->control = false;
		return c;
	}
	size_t cap = need > r->chunk_size ? need : r->chunk_size;
	tfr_chunk *c = malloc(sizeof(*c) + cap);
	if (!c)
		return NULL;
	c->next = NULL;
	c->cap = cap;
	c->len = 0;
	c->control = false;
	return c;
}

static void chunk_put(tfr *r, tfr_chunk *c)
{
	if (c->cap == r->chunk_size && !c->control && r->nfree < 64) {
		c->next = r->free;
		r->free = c;
		r->nfree++;
	} else {
		free(c);
	}
}

void tfr_enqueue(tfr *r, tfr_chunk *c)
{
	c->next = NULL;
	if (r->qtail)
		r->qtail->next = c;
	else
		r->qhead = c;
	r->qtail = c;
	if (!c->control)
		__atomic_store_n(&r->qbytes, r->qbytes + c->cap, __ATOMIC_RELAXED);
	r->pushed++;
	pthread_cond_signal(&r->cv_writer);
}

int tfr_control(tfr *r, const uint8_t *p, size_t n)
{
	tfr_chunk *c = malloc(sizeof(*c) + n);
	if (!c)
		return -ENOMEM;
	c->cap = c->len = n;
	c->control = true;
	memcpy(c->data, p, n);
	tfr_enqueue(r, c);
	return 0;
}

static int write_all(int fd, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static void *writer_main(void *arg)
{
	tfr *r = arg;
	pthread_mutex_lock(&r->mu);
	for (;;) {
		while (!r->qhead && !r->stop)
			pthread_cond_wait(&r->cv_writer, &r->mu);
		tfr_chunk *c = r->qhead;
		if (!c)
			break;
		r->qhead = c->next;
		if (!r->qhead)
			r->qtail = NULL;
		int err = r->err;
		pthread_mutex_unlock(&r->mu);
		if (r->delay_us && !c->control)
			usleep(r->delay_us);
		int rc = err ? 0 : write_all(r->fd, c->data, c->len);
		pthread_mutex_lock(&r->mu);
		if (rc && !r->err)
			r->err = rc;
		if (!rc && !err)
			r->bytes += c->len;
		if (!c->control)
			__atomic_store_n(&r->qbytes, r->qbytes - c->cap, __ATOMIC_RELAXED);
		r->written++;
		chunk_put(r, c);
		pthread_cond_broadcast(&r->cv_space);
		pthread_cond_broadcast(&r->cv_done);
	}
	pthread_mutex_unlock(&r->mu);
	return NULL;
}

/* ---- descriptors ---- */

static const char *default_process_name(char *b, size_t n)
{
	static const char *const vars[] = { "RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID" };
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		const char *v = getenv(vars[i]);
		char *end;
		if (!v || !*v)
			continue;
		long k = strtol(v, &end, 10);
		if (*end || k < 0 || k > 0x7fffffff)
			continue;
		snprintf(b, n, "rank %ld", k);
		return b;
	}
	return program_invocation_short_name ? program_invocation_short_name : "process";
}

/* A control packet holding a TrackDescriptor of uuid: opened in b (its
 * fields follow), then closed and queued (under mu, or before the writer
 * starts). */
static uint8_t *desc_open(tfr *r, uint8_t *b, uint64_t uuid, uint8_t **pk, uint8_t **td)
{
	uint8_t *p = pb_open(b, TRACE_PACKET, pk);
	p = pb_uint(p, TP_SEQ_ID, r->ctl_seq);
	p = pb_open(p, TP_TRACK_DESCRIPTOR, td);
	return pb_uint(p, TD_UUID, uuid);
}

static int desc_close(tfr *r, uint8_t *b, uint8_t *p, uint8_t *pk, uint8_t *td)
{
	pb_close(td, p);
	pb_close(pk, p);
	return tfr_control(r, b, (size_t)(p - b));
}

static int process_descriptor(tfr *r, const char *name)
{
	size_t n = tfr_cut(name, 4096);
	uint8_t *b = malloc(64 + n), *p, *pk, *td, *pd;
	if (!b)
		return -ENOMEM;
	p = desc_open(r, b, r->proc_uuid, &pk, &td);
	p = pb_open(p, TD_PROCESS, &pd);
	p = pb_uint(p, PD_PID, (uint64_t)(int64_t)r->pid);
	p = pb_str(p, PD_NAME, name, n);
	pb_close(pd, p);
	int rc = desc_close(r, b, p, pk, td);
	free(b);
	return rc;
}

int tfr_thread_descriptor(tfr *r, tfr_thread *t, const char *name)
{
	size_t n = name ? tfr_cut(name, 4096) : 0;
	uint8_t *b = malloc(96 + n), *p, *pk, *td, *thd;
	if (!b)
		return -ENOMEM;
	p = desc_open(r, b, t->uuid, &pk, &td);
	p = pb_uint(p, TD_PARENT, r->proc_uuid);
	p = pb_open(p, TD_THREAD, &thd);
	p = pb_uint(p, THD_PID, (uint64_t)(int64_t)r->pid);
	p = pb_uint(p, THD_TID, (uint64_t)(int64_t)t->tid);
	if (n)
		p = pb_str(p, THD_NAME, name, n);
	pb_close(thd, p);
	int rc = desc_close(r, b, p, pk, td);
	free(b);
	return rc;
}

/* The clocks read at once: BOOTTIME (Perfetto's trace clock), MONOTONIC
 * (the events' base) and REALTIME (the wall clock), so that a reader can
 * put the events on any of them. */
static int clock_packet(tfr *r)
{
	uint8_t b[128], *p = b, *pk, *cs, *ck;
	static const clockid_t ids[] = { CLOCK_BOOTTIME, CLOCK_MONOTONIC, CLOCK_REALTIME };
	static const uint32_t pf[] = { TFR_CLOCK_BOOTTIME, TFR_CLOCK_MONOTONIC, TFR_CLOCK_REALTIME };
	p = pb_open(p, TRACE_PACKET, &pk);
	p = pb_uint(p, TP_SEQ_ID, r->ctl_seq);
	p = pb_open(p, TP_CLOCK_SNAPSHOT, &cs);
	for (int i = 0; i < 3; i++) {
		p = pb_open(p, CS_CLOCKS, &ck);
		p = pb_uint(p, CK_ID, pf[i]);
		p = pb_uint(p, CK_TIMESTAMP, clock_ns(ids[i]));
		pb_close(ck, p);
	}
	pb_close(cs, p);
	pb_close(pk, p);
	return tfr_control(r, b, (size_t)(p - b));
}

int tfr_track_descriptor(tfr *r, uint64_t uuid, uint64_t parent, const char *name, bool counter, const char *unit)
{
	size_t n = name ? tfr_cut(name, 4096) : 0, un = unit ? tfr_cut(unit, 256) : 0;
	uint8_t *b = malloc(96 + n + un), *p, *pk, *td, *cd;
	if (!b)
		return -ENOMEM;
	p = desc_open(r, b, uuid, &pk, &td);
	p = pb_uint(p, TD_PARENT, parent);
	if (n)
		p = pb_str(p, TD_NAME, name, n);
	if (counter) {
		p = pb_open(p, TD_COUNTER, &cd);
		int k = !unit ? 0 : !strcmp(unit, "ns") ? 1 : !strcmp(unit, "count") ? 2 : !strcmp(unit, "bytes") ? 3 : -1;
		if (k > 0)
			p = pb_uint(p, CD_UNIT, (uint64_t)k);
		else if (k < 0)
			p = pb_str(p, CD_UNIT_NAME, unit, un);
		pb_close(cd, p);
	}
	int rc = desc_close(r, b, p, pk, td);
	free(b);
	return rc;
}

static tfr_track track_new(tfr *r, tfr_track parent, const char *name, bool counter, const char *unit)
{
	if (!r || r->forked)
		return 0;
	tfr_track t = tfr_draw(r);
	pthread_mutex_lock(&r->mu);
	int rc = tfr_track_descriptor(r, t, parent ? parent : r->proc_uuid, name, counter, unit);
	pthread_mutex_unlock(&r->mu);
	return rc ? 0 : t;
}

tfr_track tfr_track_new(tfr *r, tfr_track parent, const char *name)
{
	return track_new(r, parent, name, false, NULL);
}

tfr_track tfr_counter_track_new(tfr *r, tfr_track parent, const char *name, const char *unit)
{
	return track_new(r, parent, name, true, unit);
}

void tfr_process_name(tfr *r, const char *name)
{
	if (!r || !name || r->forked)
		return;
	pthread_mutex_lock(&r->mu);
	process_descriptor(r, name);
	pthread_mutex_unlock(&r->mu);
}

void tfr_rank(tfr *r, int rank)
{
	char b[32];
	snprintf(b, sizeof(b), "rank %d", rank);
	tfr_process_name(r, b);
}

/* ---- open, flush, close ---- */

/* PATH with %p the process id, %% a %. */
static char *expand(const char *path, int32_t pid)
{
	size_t n = strlen(path);
	char *o = malloc(n * 6 + 16), *q = o;
	if (!o)
		return NULL;
	for (const char *s = path; *s; s++) {
		if (s[0] == '%' && s[1] == 'p') {
			q += sprintf(q, "%d", (int)pid);
			s++;
		} else if (s[0] == '%' && s[1] == '%') {
			*q++ = '%';
			s++;
		} else {
			*q++ = *s;
		}
	}
	*q = 0;
	return o;
}

static void destroy(tfr *r)
{
	for (tfr_thread *t = r->threads, *n; t; t = n) {
		n = t->next;
		tfr_thread_free(t);
	}
	for (tfr_chunk *c = r->free, *n; c; c = n) {
		n = c->next;
		free(c);
	}
	for (tfr_chunk *c = r->qhead, *n; c; c = n) {
		n = c->next;
		free(c);
	}
	if (!r->forked) { /* a fork's child: the parent's waiters are in them */
		pthread_mutex_destroy(&r->mu);
		pthread_cond_destroy(&r->cv_writer);
		pthread_cond_destroy(&r->cv_space);
		pthread_cond_destroy(&r->cv_done);
	}
	free(r->path);
	free(r->tmp);
	free(r);
}

static int open_file(tfr *r, const char *path, unsigned flags)
{
	if (!(r->path = expand(path, r->pid)))
		return -ENOMEM;
	if (flags & TFR_SHARED) {
		r->fd = open(r->path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
		return r->fd < 0 ? -errno : 0;
	}
	size_t n = strlen(r->path) + 32;
	if (!(r->tmp = malloc(n)))
		return -ENOMEM;
	snprintf(r->tmp, n, "%s.tmp-%d", r->path, (int)r->pid);
	r->fd = open(r->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	return r->fd < 0 ? -errno : 0;
}

static int start_writer(tfr *r)
{
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old); /* the writer takes no signal */
	int rc = pthread_create(&r->writer, NULL, writer_main, r);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return -rc;
}

tfr *tfr_open_ex(const char *path, const tfr_opts *opts, unsigned flags)
{
	if (!path || !*path || (flags & ~TFR_SHARED)) {
		errno = EINVAL;
		return NULL;
	}
	tfr *r = calloc(1, sizeof(*r));
	if (!r) {
		errno = ENOMEM;
		return NULL;
	}
	pthread_mutex_init(&r->mu, NULL);
	pthread_cond_init(&r->cv_writer, NULL);
	pthread_cond_init(&r->cv_space, NULL);
	pthread_cond_init(&r->cv_done, NULL);
	r->fd = -1;
	r->limit = opts && opts->buffer_bytes ? opts->buffer_bytes : TFR_DEFAULT_LIMIT;
	r->drop = opts && opts->drop_when_full;
	size_t cs = r->limit / 4;
	r->chunk_size = cs > TFR_CHUNK_MAX ? TFR_CHUNK_MAX : cs < TFR_CHUNK_MIN ? TFR_CHUNK_MIN : cs;
	r->reserve = r->chunk_size / 8;
	const char *d = getenv("TRACEFOLD_RECORD_TEST_DELAY_US");
	r->delay_us = d ? (unsigned)strtoul(d, NULL, 10) : 0;
	r->pid = (int32_t)getpid();
	r->nonce = tfr_mix64(tfr_now() ^ ((uint64_t)r->pid << 32) ^ (uint64_t)(uintptr_t)r);
	r->proc_uuid = tfr_draw(r);
	/* sequence ids: the pid's bits above 10 bits of threads, so that
	 * processes sharing a file (or a merge) do not meet */
	r->seq_next = ((uint32_t)r->pid << 10) | 1;
	r->ctl_seq = r->seq_next++;
	int rc = open_file(r, path, flags);
	char b[32];
	if (!rc)
		rc = process_descriptor(r, default_process_name(b, sizeof(b)));
	if (!rc)
		rc = clock_packet(r);
	if (!rc)
		rc = tfr_registry_add(r);
	if (!rc)
		rc = start_writer(r);
	if (rc) {
		if (r->fd >= 0) {
			close(r->fd);
			if (r->tmp)
				unlink(r->tmp);
		}
		tfr_tls_forget(r);
		destroy(r);
		errno = -rc;
		return NULL;
	}
	return r;
}

tfr *tfr_open(const char *path, const tfr_opts *opts)
{
	return tfr_open_ex(path, opts, 0);
}

int tfr_flush(tfr *r)
{
	if (!r)
		return -EINVAL;
	if (r->forked)
		return 0;
	tfr_thread *t = tfr_self(r);
	pthread_mutex_lock(&r->mu);
	if (t && t->c && t->c->len) {
		tfr_enqueue(r, t->c);
		t->c = NULL;
	}
	uint64_t want = r->pushed;
	while (r->written < want)
		pthread_cond_wait(&r->cv_done, &r->mu);
	int rc = r->err;
	pthread_mutex_unlock(&r->mu);
	return rc;
}

int tfr_close(tfr *r)
{
	if (!r)
		return -EINVAL;
	if (r->forked) { /* a fork's child: the parent's file is the parent's */
		close(r->fd);
		destroy(r); /* the child's copies of the parent's buffers too */
		return 0;
	}
	tfr_tls_forget(r); /* no thread's exit reaches r from here on */
	pthread_mutex_lock(&r->mu);
	for (tfr_thread *t = r->threads; t; t = t->next)
		if (!t->retired)
			tfr_thread_retire(t);
	r->stop = true;
	pthread_cond_signal(&r->cv_writer);
	pthread_mutex_unlock(&r->mu);
	pthread_join(r->writer, NULL);
	int rc = r->err;
	if (close(r->fd) < 0 && !rc)
		rc = -errno;
	if (r->tmp) {
		if (!rc && rename(r->tmp, r->path) < 0)
			rc = -errno;
		if (rc)
			unlink(r->tmp);
	}
	destroy(r);
	return rc;
}

void tfr_get_stats(tfr *r, tfr_stats *s)
{
	memset(s, 0, sizeof(*s));
	if (!r)
		return;
	pthread_mutex_lock(&r->mu);
	s->bytes = r->bytes;
	s->waits = r->waits;
	s->events = r->events_retired;
	s->dropped = r->dropped_retired;
	for (tfr_thread *t = r->threads; t; t = t->next) {
		s->threads++;
		if (!t->retired) {
			s->events += __atomic_load_n(&t->events, __ATOMIC_RELAXED);
			s->dropped += __atomic_load_n(&t->dropped, __ATOMIC_RELAXED);
		}
	}
	pthread_mutex_unlock(&r->mu);
}
