/* spill.h - sorted runs of fixed-size records in one temporary file, and a
 * k-way merge that reads them back in order (an external sort).  The
 * records are written coded, each word as its difference from the record
 * before it (spill.c): a sorted run takes a quarter to a sixth of its size.
 *
 * The stack builder buffers a Chrome track's events until its input ends
 * (sorter.c); past a memory budget it sorts what it holds and writes it here
 * as a run, so memory stays bounded whatever the trace length (and so does
 * the GPU join's launch table: gpu_join.c).  The file is
 * unlinked as soon as it is made: nothing is left behind, whatever happens. */
#ifndef TF_SPILL_H
#define TF_SPILL_H

#include <stddef.h>
#include <stdint.h>
#include "tracefold/err.h"

typedef struct tf_spill tf_spill;
typedef int (*tf_cmp_fn)(const void *, const void *);

/* A new temporary file in dir (NULL: /tmp); NULL with errno on failure. */
tf_spill *tf_spill_new(const char *dir);
void tf_spill_free(tf_spill *f); /* NULL-safe */
/* Another handle on f's file for reading its runs back on another thread
 * (pread: each merge at its own offsets) with an error of its own; never
 * written to; freed before f.  NULL when out of memory. */
tf_spill *tf_spill_reader(const tf_spill *f);
/* The file made when first needed: *state 0 (none yet) makes *f in dir
 * and sets *state to 1, or to -1 when it cannot be made (errno set then:
 * its users keep their records in memory).  Returns *state. */
int tf_spill_lazy(tf_spill **f, int *state, const char *dir);
uint64_t tf_spill_bytes(const tf_spill *f);
/* The first write or read back of f that failed, as "cannot write the
 * temporary run file in 'DIR': CAUSE (--sort-mem: ...)"; NULL if none
 * (or f NULL).  Borrowed. */
const tf_error *tf_spill_error(const tf_spill *f);

typedef struct tf_run {
	uint64_t off;
	uint64_t n;     /* records */
	uint64_t bytes; /* in the file (coded: spill.c) */
	uint32_t level; /* made by merging TF_SPILL_FANIN runs of level - 1; written: 0 */
} tf_run;

typedef struct tf_runs {
	tf_run *r;
	uint32_t n, cap;
} tf_runs;

/* Appends n records of sz bytes (already sorted) as a run of rs:
 * 0, TF_ENOMEM, or TF_EIO (errno set, tf_spill_error says it; the
 * records may then be in rs in part or not at all: the run must fail).
 * cmp NULL: rs is a log, each run after the one before in order, never
 * merged (below; read back one run after another). */
int tf_spill_write(tf_spill *f, tf_runs *rs, const void *base, size_t n, size_t sz, tf_cmp_fn cmp);
void tf_runs_free(tf_runs *rs);

/* TF_SPILL_FANIN runs of one level are merged into one of the next level
 * as soon as they exist, so a list of runs of n records holds fewer than
 * TF_SPILL_FANIN x log_FANIN(n) runs, and their merge as many 8 KiB of
 * buffers (4 KiB read, 4 KiB decoded); each record is rewritten
 * log_FANIN(n) times at most. */
#define TF_SPILL_FANIN 32

/* Merges the runs rs (in f) and n sorted records at mem, by cmp. */
typedef struct tf_merge {
	struct tf_mcur *cur;
	uint32_t *heap;
	uint32_t ncur, nheap;
	uint32_t next;      /* the heap slot (1 or 2) of the runner-up: the second smallest record */
	const char *lim;    /* the top's records before lim come before the runner-up's (no compare) */
	size_t sz;
	tf_cmp_fn cmp;
	tf_spill *f;   /* the runs' file (its error is kept there) */
} tf_merge;

int tf_merge_init(tf_merge *m, tf_spill *f, const tf_runs *rs, const void *mem, size_t n, size_t sz, tf_cmp_fn cmp);
/* The smallest record left, or NULL when none is left. */
const void *tf_merge_peek(const tf_merge *m);
/* Drops it: 0, or TF_EIO when a run cannot be read back. */
int tf_merge_pop(tf_merge *m);
/* Appends every record left to the array *v (*n records, room for *cap,
 * grown as needed): 0, TF_ENOMEM or TF_EIO (what was appended stays). */
int tf_merge_drain(tf_merge *m, void **v, uint32_t *n, uint32_t *cap);
void tf_merge_free(tf_merge *m);

#endif
