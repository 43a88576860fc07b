/* writer.h - output formats.  One file per format in src/write/, one row per
 * format in src/write/registry.c (like the readers' table in reader.h).  A
 * writer that consumes the aggregate is handed the finished tf_agg once every
 * input was read; every output of one run comes from the same single read of
 * the inputs.  Writers never print; they write through tf_out (temporary file
 * renamed on success) and report failures in tf_error. */
#ifndef TRACEFOLD_WRITER_H
#define TRACEFOLD_WRITER_H

#include "agg.h"
#include "err.h"

/* What a writer consumes. */
enum { TF_WRITER_AGG = 1 };

typedef struct tf_writer {
	const char *name;               /* "pprof" */
	const char *description;        /* one line for --help */
	const char *const *suffixes;    /* file names it is picked for, NULL-terminated */
	int consumes;                   /* TF_WRITER_AGG */
	/* TF_WRITER_AGG: writes the aggregate to path ("-" = stdout). */
	int (*write_agg)(const tf_agg *agg, const char *path, tf_error *err);
} tf_writer;

/* The table, NULL-terminated. */
extern const tf_writer *const tf_writers[];

const tf_writer *tf_writer_by_name(const char *name);
/* The writer whose suffix ends path, or NULL. */
const tf_writer *tf_writer_for_path(const char *path);

#endif
