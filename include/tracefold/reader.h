/* reader.h - input formats.  One file per format in src/read/, one row per
 * format in src/read/registry.c.  A reader decodes one input path (file or
 * directory), defines tracks in the ctx, pushes every event it decodes into
 * the sink (in the input's order per track), counts what it skipped in the
 * ctx diagnostics, and reports fatal damage through tf_error with the file
 * and byte offset or event index.  Readers never print. */
#ifndef TRACEFOLD_READER_H
#define TRACEFOLD_READER_H

#include <stddef.h>
#include <stdint.h>
#include "ctx.h"
#include "sink.h"
#include "err.h"

/* A part of an input (tf_format.parts). */
typedef struct tf_part {
	uint64_t bytes;          /* its size on disk: its weight when parts are shared out */
} tf_part;

/* sniff answers */
enum { TF_SNIFF_NO = 0, TF_SNIFF_MAYBE = 1, TF_SNIFF_YES = 2 };

typedef struct tf_format {
	const char *name;        /* "chrome", "tau", "otf2" */
	const char *description; /* one line for --help */
	/* path: what the user named; is_dir: it is a directory; head: first
	 * bytes of the file (decompressed if gzip), n of them (0 for a dir). */
	int (*sniff)(const char *path, int is_dir, const unsigned char *head, size_t n);
	/* Reads the whole input; `input` is its index among this run's inputs.
	 * A reader with parts reads only the parts tf_read_opts.part_mask
	 * selects, when it is set. */
	int (*read)(const char *path, uint32_t input, tf_ctx *ctx, tf_sink *sink, tf_error *err);
	/* Optional (NULL: the input is one part).  The parts of path that can
	 * be read on their own, in the order read reads them (a TAU
	 * directory's trace files, an OTF2 archive's locations), for a
	 * distributed run (docs/distributed.md): *out (malloc'd, the caller
	 * frees it) gets each one's weight in bytes.  Reading any subset of
	 * the parts, each subset on its own, gives together what reading
	 * the whole input gives: a format that cannot promise that for an
	 * input (an OTF2 archive whose GPU streams go under the launches on
	 * its CPU threads) answers one part.  Returns the number of parts
	 * or a negative TF_E* with err filled.  ctx gives the reader
	 * options (parts_for_threads: the parts are for threads of this
	 * process); nothing is added to it. */
	int (*parts)(const char *path, tf_ctx *ctx, tf_part **out, tf_error *err);
} tf_format;

/* The table, NULL-terminated. */
extern const tf_format *const tf_formats[];

/* Picks the reader for path (force: a format name or NULL to sniff). */
const tf_format *tf_format_find(const char *path, const char *force, tf_error *err);
const tf_format *tf_format_by_name(const char *name);

/* Reads path with the right reader, then calls sink->end_input. */
int tf_read_input(const char *path, const char *force, uint32_t input, tf_ctx *ctx,
		  tf_sink *sink, tf_error *err);

#endif
