/* tau.h - internals of the TAU reader: what unit tests use, and what its
 * files share (below).  Not part of the public interface.
 *
 *   tau.c        .trc records, the reader (records -> tf_event), the read
 *                entry point, sniffing, the format row (tf_format_tau)
 *   tau_edf.c    event definitions (.edf): parsing, loading, re-reading
 *   tau_files.c  inputs: trace file names, directories, a directory's parts
 *                (tf_tau_parts), which EDF goes with a trace
 *
 * Format facts: docs/format-tau.md. */
#ifndef TRACEFOLD_READ_TAU_H
#define TRACEFOLD_READ_TAU_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include "tracefold/event.h"
#include "tracefold/reader.h"
#include "hmap.h"

/* One decoded .trc record, whatever its layout. */
typedef struct tf_tau_rec {
	int64_t ev;
	uint16_t nid, tid;
	int64_t par;
	uint64_t ti; /* microseconds */
} tf_tau_rec;

/* Record layout: 24 bytes (TAU_EV / TAU_EV32) or 32 bytes (legacy TAU_EV64),
 * and whether the fields are in the other byte order than this machine's. */
typedef struct tf_tau_layout {
	unsigned recsize; /* 24 or 32 */
	bool swap;
	bool guessed;     /* no (or several) hypotheses had EV_INIT's parameter 3 */
} tf_tau_layout;

/* Detects the layout from the first n bytes of a .trc (as TAU's readers do:
 * the first record is EV_INIT with parameter 3). */
tf_tau_layout tf_tau_detect_layout(const unsigned char *p, size_t n);
void tf_tau_decode(const unsigned char *p, tf_tau_layout lay, tf_tau_rec *out);
/* Unpacks a MESSAGE_SEND/RECV parameter (partner, tag, length, comm). */
void tf_tau_unpack_msg(int64_t par, tf_message *m);
/* Trims TAU's trailing type separator and blanks: "main " -> len of "main". */
size_t tf_tau_trim_len(const char *s, size_t len);

/* One EDF line, parsed.  Returns 1 for a definition, 0 for a header/comment/
 * empty line, -1 for a malformed line.  name points into line. */
typedef struct tf_tau_edf_line {
	int64_t id;
	const char *group; size_t group_len;
	int64_t tag;
	const char *name; size_t name_len;
	const char *kind; size_t kind_len;
} tf_tau_edf_line;
int tf_tau_edf_parse_line(const char *line, size_t len, tf_tau_edf_line *out);

/* ---- shared by tau.c, tau_edf.c and tau_files.c ---- */

/* TAU's name for event id 0, which it never writes (tau.c counts such
 * records towards TAU_MAX_UNUSABLE_RUN). */
#define TAU_PLACEHOLDER_NAME ".TAU <unknown event>"

/* tau_edf.c: one EDF and its definitions */

enum tau_kind {
	TK_UNKNOWN = 0, /* not defined (yet) */
	TK_REGION,      /* EntryExit */
	TK_TRIGGER,     /* TriggerValue user event */
	TK_METADATA,    /* TriggerValue named "<key> | <value>" */
	TK_SEND,        /* tag -7 */
	TK_RECV,        /* tag -8 */
	TK_FLUSH,       /* TRACER FLUSH (EntryExit) */
	TK_TRACER,      /* TRACER EV_INIT, WALL_CLOCK, FLUSH_CLOSE, ... */
	TK_OTHER,       /* any other kind ("none"/"par" outside TRACER) */
	TK_BAD,         /* still unknown after re-reading the EDF */
};

typedef struct tau_def {
	int64_t id;
	uint8_t kind;
	bool unusable;    /* TK_BAD, or ".TAU <unknown event>": counts towards TAU_MAX_UNUSABLE_RUN */
	tf_str name;  /* trimmed; for metadata: the key */
	tf_str group;
	tf_str value; /* metadata value */
} tau_def;

typedef struct tau_edf {
	char *path;
	long node; /* events.<node>.edf describes that node only (ids are per
		    * node); -1: every node (tau_merge's tau.edf, other names) */
	tau_def *defs;
	uint32_t ndefs, cap;
	/* id -> index in defs: ids 0 .. TAU_DENSE_IDS-1 (TAU numbers its
	 * events from 1 up) in a table, 1 + the index (0: none), grown to the
	 * largest such id defined; the others in a hash map */
	uint32_t *dense;
	uint32_t ndense;
	tf_hmap idx;
	int rereads;
} tau_edf;

#define TAU_DENSE_IDS (1u << 20)

static inline tau_def *tf_tau_edf_find(const tau_edf *e, int64_t id)
{
	if ((uint64_t)id < TAU_DENSE_IDS) {
		uint32_t i = (uint64_t)id < e->ndense ? e->dense[id] : 0;
		return i ? &e->defs[i - 1] : NULL;
	}
	uint32_t i = tf_hmap_get(&e->idx, (uint64_t)id);
	return i == UINT32_MAX ? NULL : &e->defs[i];
}

/* Adds d, or replaces the definition with the same id. */
int tf_tau_edf_put(tau_edf *e, const tau_def *d);
void tf_tau_edf_free(tau_edf *e); /* NULL-safe */
/* (Re)reads the whole EDF at e->path; definitions replace earlier ones
 * with the same id.  Interns names in ctx's string table. */
int tf_tau_edf_load(tau_edf *e, tf_ctx *ctx, tf_error *err);
/* The node an EDF describes, from its name: events.<node>.edf; -1 (every
 * node) for any other name. */
long tf_tau_edf_node(const char *path);

/* tau_files.c: finding the inputs */

typedef struct trc_file {
	char *name;
	long node, context, thread;
} trc_file;

/* "tautrace.<node>.<context>.<thread>.trc" -> true and the three numbers. */
bool tf_tau_parse_tautrace(const char *name, long *node, long *context, long *thread);
bool tf_tau_ends_with(const char *s, const char *suf);
/* dir/name (malloc'd; NULL: out of memory). */
char *tf_tau_path_join(const char *dir, const char *name);
/* The directory part of path ("." if none; malloc'd). */
char *tf_tau_dir_name(const char *path);
/* dir/name if that file exists (malloc'd), else NULL. */
char *tf_tau_beside(const char *dir, const char *name);
/* The EDF that goes with a lone .trc (opt: --edf); NULL if none exists
 * (malloc'd). */
char *tf_tau_edf_for_trc(const char *trc, const char *opt);
/* 0, or TF_EUSAGE (err names both) when --edf opt is given with directory
 * dir that holds an EDF of its own (any regular *.edf file in it). */
int tf_tau_edf_conflict(const char *dir, const char *opt, tf_error *err);
/* Lists the directory's trace files: per-thread tautrace files if any,
 * else every other *.trc (a merged tau.trc), in node, context, thread
 * order. */
int tf_tau_list_dir(const char *dir, trc_file **out, size_t *nout, bool *per_thread, tf_error *err);
/* tf_format_tau.parts: a directory's parts are its trace files, in the
 * order the reader reads them; a file is one part. */
int tf_tau_parts(const char *path, tf_ctx *ctx, tf_part **out, tf_error *err);

#endif
