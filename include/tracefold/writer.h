/* writer.h - output formats.  One file per format in src/write/, one row per
 * format in src/write/registry.c (like the readers' table in reader.h).  A
 * writer that consumes the aggregate is handed the finished tf_agg once every
 * input was read; every output of one run comes from the same single read of
 * the inputs.  Writers never print; they write through tf_out (temporary file
 * renamed on success), a folder writer into the temporary folder of its
 * caller's tf_outdir (outdir.h: swapped in whole on success), and report
 * failures in tf_error. */
#ifndef TRACEFOLD_WRITER_H
#define TRACEFOLD_WRITER_H

#include <stdbool.h>
#include "agg.h"
#include "ctx.h"
#include "cpath.h"
#include "span.h"
#include "err.h"
#include "io.h"

struct tf_dir_kind; /* outdir.h */
struct tf_step;     /* agg_sink.h */

/* What a writer consumes. */
enum { TF_WRITER_AGG = 1, TF_WRITER_SPANS = 2 };

/* What a writer can do (tf_writer.flags). */
enum {
	TF_WRITER_DIR = 1,       /* writes a folder (-o DIR), not a file */
	TF_WRITER_STDOUT = 2,    /* can write to standard output (-o -) */
	TF_WRITER_MPI_PARTS = 4, /* under --mpi, each process writes its own part */
	TF_WRITER_LAKE = 8,      /* can add a run to a lake (lake.h: --lake DIR --run NAME) */
};

/* An option of a writer, taken by its command and by convert: --NAME VALUE.
 * Its value is checked and stored by set into the writer's own options
 * (tf_writer.conf_size bytes, zeroed for the defaults), which the writer
 * gets back as tf_writer_args.conf. */
typedef struct tf_writer_opt {
	const char *name;        /* "--compression" */
	const char *value;       /* what it takes, for --help ("C") */
	const char *help;        /* for --help: lines of at most 56 columns, '\n' between */
	/* TF_EUSAGE with a message naming the option when value is not one
	 * (conf is then left as it was) */
	int (*set)(void *conf, const char *value, tf_error *err);
} tf_writer_opt;

/* What a span writer is told when it opens (all borrowed for its life). */
typedef struct tf_writer_args {
	tf_ctx *ctx;
	tf_cpath *cp;                 /* the call paths its spans' node ids name */
	const char *const *inputs;    /* the run's inputs, for metadata */
	const char *const *input_formats; /* the reader of each ("pprof", "folded" for a profile) */
	int ninputs;
	const void *conf;             /* the writer's options (tf_writer_opt), or NULL: defaults */
	int part, nparts;             /* a distributed run (docs/distributed.md): this process
				       * writes part `part` of nparts (parquet: part-N.parquet
				       * files, ids unique across parts); 0, 0 otherwise */
	const char *dir;              /* TF_WRITER_DIR: the folder to write into, a fresh
				       * temporary one that the caller's tf_outdir (outdir.h)
				       * swaps in for path on success and removes on failure;
				       * NULL: path itself.  path names the output in messages */
	const char *run;              /* TF_WRITER_LAKE: the run's name (--run), or NULL:
				       * not a lake; then also its runs table */
	const char *cmdline;          /* the command line, for the runs table */
	const struct tf_step *steps;  /* the run's steps when needs_steps said so (sorted as
				       * tf_step_find wants), else NULL */
	size_t nsteps;
} tf_writer_args;

typedef struct tf_writer {
	const char *name;               /* "pprof" */
	const char *description;        /* one line for --help */
	const char *const *suffixes;    /* file names it is picked for, NULL-terminated */
	int consumes;                   /* TF_WRITER_AGG or TF_WRITER_SPANS */
	/* TF_WRITER_AGG: writes the aggregate to path ("-" = stdout). */
	int (*write_agg)(const tf_agg *agg, const char *path, tf_error *err);
	/* TF_WRITER_SPANS: a span consumer made before the inputs are read
	 * (*sink_out, handed to the pipeline), with its state (*state_out);
	 * span_finish writes what is left once every input was read and frees
	 * the state; span_abort discards everything (NULL-safe). */
	int (*span_open)(const tf_writer_args *a, const char *path, tf_span_sink **sink_out, void **state_out,
			 tf_error *err);
	int (*span_finish)(void *state, tf_error *err);
	void (*span_abort)(void *state);
	unsigned flags;                 /* TF_WRITER_DIR, _STDOUT, _MPI_PARTS */
	const struct tf_dir_kind *dir_kind; /* TF_WRITER_DIR: what it writes there (outdir.h) */
	const tf_writer_opt *opts;      /* its options, ended by a row with name NULL; or NULL */
	size_t conf_size;               /* the size of the options they fill in */
	/* Optional: whether its options need the run's steps (a first pass:
	 * tf_writer_args.steps), and (TF_WRITER_LAKE) the Hive keys they give
	 * below run= in a lake ("rank", "rank,step"), NULL when they cannot
	 * go into one (with the reason in why). */
	bool (*needs_steps)(const void *conf);
	const char *(*lake_keys)(const void *conf, const char **why);
	/* Optional: a command of its own ("tracefold chrome IN... -o OUT"),
	 * the short form of "convert --to NAME": its line in tracefold --help,
	 * what its usage line says after the inputs, and its --help text. */
	const char *command;
	const char *summary;
	const char *usage;              /* "-o OUT.json[.gz]" */
	const char *help;
} tf_writer;

/* A span writer that fails while the inputs are read (a full disk, an
 * event it cannot write) keeps its error in the run's ctx (tf_ctx_fail)
 * before its consumer returns the code, so that the run says "cannot
 * write 'OUT': CAUSE" and not "cannot read" the input it was reading.
 * This is that for a failed tf_out: the output named, with the errno of
 * its first failed write; returns TF_EIO. */
int tf_writer_fail_out(tf_ctx *ctx, const tf_out *o);

/* The table, NULL-terminated. */
extern const tf_writer *const tf_writers[];

const tf_writer *tf_writer_by_name(const char *name);
/* The writer whose command is name, or NULL. */
const tf_writer *tf_writer_by_command(const char *name);
/* Its option called name ("--phases"), or NULL. */
const tf_writer_opt *tf_writer_opt_find(const tf_writer *w, const char *name);
/* The writer whose suffix ends path, or NULL. */
const tf_writer *tf_writer_for_path(const char *path);

#endif
