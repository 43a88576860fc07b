/* reader.h - input formats, of every kind.  One file per format in
 * src/read/, one row per format in src/read/registry.c (tf_formats[]).
 *
 * Each input is resolved once (tf_format_find, tf_inputs_resolve: its first
 * TF_SNIFF_HEAD bytes read once and shown to every row's sniff) and the
 * answer is passed on; an input is then opened again only to be read.  A
 * format is of one kind (docs/architecture.md, "Inputs"):
 *   TF_INPUT_EVENTS   a trace: read decodes it into events, which the stack
 *                     builder turns into spans (Chrome, TAU, OTF2, Perfetto);
 *   TF_INPUT_PROFILE  a profile: read_profile adds it into an aggregate as
 *                     it is (pprof, folded stacks);
 *   TF_INPUT_SAMPLES  sampled profiles (weighted stacks with times: perf,
 *                     Firefox, speedscope, austin): read decodes them into
 *                     TF_EV_SAMPLE events (event.h), which go through the
 *                     stack builder as a trace's do (docs/samples.md).
 *
 * A trace reader decodes one input path (file or directory), defines tracks
 * in the ctx, pushes every event it decodes into the sink (in the input's
 * order per track), counts what it skipped in the ctx diagnostics, and
 * reports fatal damage through tf_error with the file and byte offset or
 * event index.  Readers never print. */
#ifndef TRACEFOLD_READER_H
#define TRACEFOLD_READER_H

#include <stddef.h>
#include <stdint.h>
#include "ctx.h"
#include "sink.h"
#include "err.h"
#include "agg.h"

/* A part of an input (tf_format.parts). */
typedef struct tf_part {
	uint64_t bytes;          /* its size on disk: its weight when parts are shared out */
} tf_part;

/* sniff answers */
enum { TF_SNIFF_NO = 0, TF_SNIFF_MAYBE = 1, TF_SNIFF_YES = 2 };

/* What an input is (tf_format.kind). */
enum { TF_INPUT_EVENTS = 0, TF_INPUT_PROFILE = 1, TF_INPUT_SAMPLES = 2 };

/* How many bytes of an input (decompressed if gzip) its sniffers see. */
#define TF_SNIFF_HEAD 4096

/* What a profile reader is told: the sample type of inputs that carry none
 * (folded stacks: --folded-type; NULL, NULL: "samples", "count"). */
typedef struct tf_profile_opts {
	const char *type, *unit;
} tf_profile_opts;

typedef struct tf_format {
	const char *name;        /* "chrome", "tau", "otf2" */
	const char *description; /* one line for --help */
	/* path: what the user named; is_dir: it is a directory; head: first
	 * bytes of the file (decompressed if gzip), n of them (0 for a dir,
	 * at most TF_SNIFF_HEAD); whole: they are the whole file (not cut by
	 * TF_SNIFF_HEAD nor by the end of a truncated gzip stream). */
	int (*sniff)(const char *path, int is_dir, const unsigned char *head, size_t n, bool whole);
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
	int kind;                /* TF_INPUT_*; TF_INPUT_EVENTS (0) for a trace */
	const char *noun;        /* an input of a profile format in messages ("pprof profile") */
	/* TF_INPUT_PROFILE (read is NULL): reads path and adds it into agg
	 * (whose types it extends: the union; a type with another unit is
	 * TF_ECLASH). */
	int (*read_profile)(tf_agg *agg, const char *path, const tf_profile_opts *po, tf_error *err);
	/* TF_INPUT_EVENTS: sampled telemetry on its own tracks and wall clock
	 * (docs/telemetry.md): read after the traces, whose wall-clock base
	 * (tf_ctx_set_wall_base) puts it on their clock; joins no samples */
	bool telemetry;
} tf_format;

/* A trace, not telemetry: what sampled inputs join. */
static inline bool tf_format_is_trace(const tf_format *f)
{
	return f->kind == TF_INPUT_EVENTS && !f->telemetry;
}

/* Is f read into events through the stack builder (a trace or samples),
 * not added to an aggregate as it is (a profile)? */
static inline int tf_format_streams(const tf_format *f) { return f->kind != TF_INPUT_PROFILE; }

/* The table, NULL-terminated. */
extern const tf_format *const tf_formats[];

/* Picks the reader for path (force: a format name or NULL to sniff):
 * opens it once (a text file whose first TF_SNIFF_HEAD bytes are blank:
 * twice).  Standard input ("-") is a Chrome trace unless forced: sniffing
 * would consume it.  The error lists what tracefold reads (the rows). */
const tf_format *tf_format_find(const char *path, const char *force, tf_error *err);
const tf_format *tf_format_by_name(const char *name);

/* tf_format_find for each of paths[0..n) into out[0..n).  Returns 0 or the
 * first error (err names the input). */
int tf_inputs_resolve(const char *const *paths, int n, const char *force, const tf_format **out, tf_error *err);
/* The same into a new array: *out (n + 1 entries, malloc'd; the caller
 * frees it), NULL after an error (out of memory, or an input's). */
int tf_inputs_resolve_new(const char *const *paths, int n, const char *force, const tf_format ***out,
			  tf_error *err);

/* "A, B, ... or Z": the description of each row of kind kind (-1: all), for
 * messages and --help; writes at most len bytes (NUL included). */
void tf_formats_list(int kind, char *buf, size_t len);

/* Reads path with the right reader (a trace's), then calls sink->end_input. */
int tf_read_input(const char *path, const char *force, uint32_t input, tf_ctx *ctx,
		  tf_sink *sink, tf_error *err);

#endif
