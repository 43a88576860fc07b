/* record_int.h - private to libtracefold-record (include/tracefold/record.h):
 * the recording, its threads' states and buffers (docs/record.md).
 *
 *   record.c         open, close, flush; the writer thread; the queue of
 *                    buffers handed over; descriptors of the process, its
 *                    tracks and counter tracks (control packets)
 *   record_thread.c  a thread's state (found through thread-local
 *                    storage), its packet sequence and interned names; the
 *                    events and their annotations
 *   record_enc.h     protobuf wire encoding (varints, 4-byte lengths)
 *
 * This library stands alone: it includes none of tracefold's headers but
 * its own public one, and needs libc and pthreads only. */
#ifndef TRACEFOLD_RECORD_INT_H
#define TRACEFOLD_RECORD_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include "tracefold/record.h"

#define TFR_CHUNK_MAX (64u << 10)   /* a thread's buffer */
#define TFR_CHUNK_MIN (4u << 10)
#define TFR_DEFAULT_LIMIT (8u << 20) /* buffers handed over, not yet written */
#define TFR_ARGS_MAX (64u << 10)     /* annotations of one event */
#define TFR_ARGS_DEPTH 8
#define TFR_INTERN_MAX 16384         /* names per sequence before it starts over */
#define TFR_CLOCK_DELTA 64           /* a sequence's incremental clock */
#define TFR_CLOCK_MONOTONIC 3
#define TFR_CLOCK_BOOTTIME 6
#define TFR_CLOCK_REALTIME 1

/* A buffer of whole packets. */
typedef struct tfr_chunk {
	struct tfr_chunk *next;
	size_t cap, len;
	bool control; /* descriptors: never counted against the limit */
	uint8_t data[];
} tfr_chunk;

typedef struct tfr_name {
	uint64_t h;
	char *s;
	uint32_t len, iid;
} tfr_name;

/* One thread's state in one recording: owned by the recording (freed at
 * close), used without a lock by its thread alone. */
typedef struct tfr_thread {
	struct tfr *r;
	struct tfr_thread *next; /* the recording's list */
	tfr_chunk *c;            /* the buffer being filled */
	uint64_t uuid;           /* the thread's track */
	uint64_t last_ts;        /* the sequence's previous packet, ns */
	uint32_t seq;            /* trusted_packet_sequence_id */
	int32_t tid;
	bool started;            /* the sequence's first packets are out */
	bool lost;               /* an event was dropped since the last packet */
	bool retired;            /* the thread exited or the recording closed */
	tfr_name *names;         /* interned event names, open addressing */
	uint32_t capnames, nnames;
	uint8_t *args;           /* pending annotations (TrackEvent fields) */
	size_t nargs, capargs;
	size_t argstack[TFR_ARGS_DEPTH];
	uint8_t argkind[TFR_ARGS_DEPTH]; /* the field their entries take: 11 dict, 12 array */
	int argdepth;
	uint32_t argskip;        /* dicts and arrays not kept, still open */
	bool argfull;            /* annotations over TFR_ARGS_MAX: the rest ignored */
	uint8_t *own;            /* drop mode: per open slice of its own track, 1 written 0 dropped */
	uint32_t nown, capown;
	uint64_t events, dropped; /* written by the thread, read by stats (relaxed) */
} tfr_thread;

struct tfr {
	pthread_mutex_t mu;
	pthread_cond_t cv_writer, cv_space, cv_done;
	tfr_chunk *qhead, *qtail;   /* handed over, not yet written */
	size_t qbytes;              /* their memory (data chunks' capacity); read unlocked by drop mode */
	uint64_t pushed, written;   /* chunks handed over / written */
	tfr_chunk *free;            /* spare chunks of chunk_size */
	uint32_t nfree;
	size_t limit, chunk_size, reserve;
	int drop;
	int fd;
	char *path, *tmp;           /* tmp NULL: shared (appending to path) */
	int err;                    /* the first failing write's -errno */
	bool stop;
	bool forked;                /* inherited by a fork's child: no writer, no-ops */
	pthread_t writer;
	unsigned delay_us;          /* tests: the writer's pause per buffer */
	tfr_thread *threads;
	uint32_t nthreads;
	uint64_t gen;               /* this recording, for thread-local caches */
	int32_t pid;
	uint64_t nonce;             /* per process: uuids and flow ids */
	uint64_t proc_uuid;
	uint64_t counter;           /* uuids and flow ids drawn (atomic) */
	uint32_t seq_next;          /* sequence ids given (under mu) */
	uint32_t ctl_seq;           /* the control packets' sequence */
	uint64_t bytes, waits, dropped_retired, events_retired;
};

#define TFR_NAME_MAX (64u << 10) /* an event name's bytes, at most */

/* The length of s, at most max bytes, not cutting a UTF-8 character. */
static inline size_t tfr_cut(const char *s, size_t max)
{
	size_t n = 0;
	while (n < max && s[n])
		n++;
	if (n == max && s[n])
		while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
			n--;
	return n;
}

/* record.c */
uint64_t tfr_mix64(uint64_t x);
uint64_t tfr_draw(tfr *r);                    /* a new uuid or flow id (never 0) */
uint64_t tfr_now(void);                       /* CLOCK_MONOTONIC, ns */
tfr_chunk *tfr_chunk_get(tfr *r, size_t need); /* under mu */
void tfr_enqueue(tfr *r, tfr_chunk *c);        /* under mu */
int tfr_control(tfr *r, const uint8_t *p, size_t n); /* a control packet, queued now */
int tfr_thread_descriptor(tfr *r, tfr_thread *t, const char *name); /* under mu */
/* Under mu: a track (a counter track) uuid under parent; unit: "ns",
 * "count", "bytes" or a name of its own. */
int tfr_track_descriptor(tfr *r, uint64_t uuid, uint64_t parent, const char *name, bool counter, const char *unit);

/* record_thread.c */
tfr_thread *tfr_thread_slow(tfr *r);          /* the calling thread's state, made if new */
void tfr_thread_retire(tfr_thread *t);        /* under mu: its last packets handed over */
void tfr_thread_free(tfr_thread *t);
void tfr_tls_forget(tfr *r);                  /* close: r's gen is dead */
int tfr_registry_add(tfr *r);

extern __thread struct tfr_tls *tfr_tls_last;
struct tfr_tls {
	tfr *r;
	uint64_t gen;
	tfr_thread *t;
	struct tfr_tls *next;
};

/* The calling thread's state: the cached one when it is r's. */
static inline tfr_thread *tfr_self(tfr *r)
{
	struct tfr_tls *e = tfr_tls_last;
	if (e && e->r == r && e->gen == r->gen)
		return e->t;
	return tfr_thread_slow(r);
}

#endif
