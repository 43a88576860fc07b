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

/* sniff answers */
enum { TF_SNIFF_NO = 0, TF_SNIFF_MAYBE = 1, TF_SNIFF_YES = 2 };

typedef struct tf_format {
	const char *name;        /* "chrome", "tau", "otf2" */
	const char *description; /* one line for --help */
	/* path: what the user named; is_dir: it is a directory; head: first
	 * bytes of the file (decompressed if gzip), n of them (0 for a dir). */
	int (*sniff)(const char *path, int is_dir, const unsigned char *head, size_t n);
	/* Reads the whole input; `input` is its index among this run's inputs. */
	int (*read)(const char *path, uint32_t input, tf_ctx *ctx, tf_sink *sink, tf_error *err);
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
