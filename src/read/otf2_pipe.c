/* otf2_pipe.c - the OTF2 reader's pipelined event path
 * (TRACEFOLD_THREADS=2; docs/format-otf2.md, "The pipelined event path"):
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
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include "otf2.h"

#ifndef PIPE_RECS
#define PIPE_RECS 16384 /* slots per batch (256 KiB) */
#endif
#define PIPE_BATCHES 4  /* batches in all: one being filled, up to 3 queued */
#define PIPE_NOTES 8    /* libotf2 messages per batch */
_Static_assert(PIPE_RECS >= PREC_MAX, "a batch holds the largest record");

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
bool tf_otf2_pipe_flush(decoder *d)
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
prec *tf_otf2_pipe_put_note(decoder *d, uint8_t kind, uint32_t n)
{
	if (d->cur && d->cur->nnotes == PIPE_NOTES && !tf_otf2_pipe_flush(d))
		return NULL;
	prec *q = pipe_room(d, kind, n);
	if (!q)
		return NULL;
	q->k = (uint8_t)d->cur->nnotes++;
	memcpy(d->cur->note[q->k], tf_otf2_msg, sizeof(tf_otf2_msg));
	return q;
}

/* The decode thread: every location, as the serial path reads them. */
static void *pipe_worker(void *arg)
{
	piped *p = arg;
	tf_otf2_decode(&p->d);
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
int tf_otf2_read_piped(rd *r, OTF2_Reader *rdr, bool defs_open)
{
	piped *p = aligned_alloc(64, sizeof(piped));
	OTF2_EvtReaderCallbacks *cb = tf_otf2_event_callbacks();
	int rc = p && cb ? 0 : TF_ENOMEM;
	if (p) {
		*p = (piped){ 0 };
		tf_otf2_decoder_init(&p->d, r, rdr, cb, defs_open, true);
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
		rc = tf_otf2_apply_records(&l, b->rec, b->n, (const msgbuf *)b->note);
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
