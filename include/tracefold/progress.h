/* progress.h - counters of a run's progress, for a progress line that the
 * command draws (the library never prints).  Off until tf_progress_on():
 * then readers add the input bytes they read (tf_in: compressed bytes of a
 * gzip file) and tf_emit the events, in batches.  The counters live in a
 * shared anonymous mapping, so that -j's worker processes (forked after
 * tf_progress_on) add to the same ones as threads do. */
#ifndef TRACEFOLD_PROGRESS_H
#define TRACEFOLD_PROGRESS_H
#include <stdbool.h>
#include <stdint.h>

typedef struct tf_progress {
	uint64_t bytes;   /* input bytes read */
	uint64_t events;  /* events decoded (in batches of TF_PROGRESS_BATCH) */
} tf_progress;

#define TF_PROGRESS_BATCH 4096

extern tf_progress *tf_progress_counters; /* NULL: off */

/* Turns the counters on (and to zero); false if they cannot be had. */
bool tf_progress_on(void);
static inline void tf_progress_add_bytes(uint64_t n)
{
	if (tf_progress_counters)
		__atomic_fetch_add(&tf_progress_counters->bytes, n, __ATOMIC_RELAXED);
}
static inline void tf_progress_add_events(uint64_t n)
{
	if (tf_progress_counters)
		__atomic_fetch_add(&tf_progress_counters->events, n, __ATOMIC_RELAXED);
}
tf_progress tf_progress_get(void);
#endif
