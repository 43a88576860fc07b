/* fuzz.h - shared by the fuzz targets in tests/fuzz/ (one file per input
 * path, in the style of zstd's tests/fuzz).
 *
 * Each target defines LLVMFuzzerTestOneInput().  It is linked either with
 * libFuzzer (clang -fsanitize=fuzzer: `make fuzz`) or with regress.c, a
 * main() that replays corpus files and directories (the gcc release and
 * ASan+UBSan builds: tests/e2e/fuzz_regress.sh in `make check`).
 *
 * A target does not only wait for a crash: on every input it checks the
 * promises tracefold makes about bad input (fz_check_* below) and aborts
 * when one is broken, so the fuzzer reports it like a crash:
 *  - a failed read sets a tf_error naming the file, with a message, and (for
 *    damage the reader can locate) a byte offset or an event index;
 *  - a successful read keeps the event accounting (events_read == the
 *    per-kind counters + the skips);
 *  - the aggregate it builds encodes to a pprof profile that our own pprof
 *    reader accepts, with the same totals. */
#ifndef TRACEFOLD_FUZZ_H
#define TRACEFOLD_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "tracefold/ctx.h"
#include "tracefold/err.h"
#include "tracefold/reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Aborts with a message (the fuzzer records the input). */
void fz_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* A private temporary directory for this process (removed at exit) and a
 * path in it (static buffer, one per call site is enough: 4 rotate). */
const char *fz_tmpdir(void);
const char *fz_path(const char *name);
/* Writes n bytes to path (truncating); aborts on failure. */
void fz_write(const char *path, const void *data, size_t n);
/* gzips data into a malloc'd buffer. */
unsigned char *fz_gzip(const void *data, size_t n, size_t *out_len);
/* Reads a fixture file below the test data directory ($TF_FUZZ_DATA or
 * tests/data); aborts if missing.  Caller frees. */
unsigned char *fz_fixture(const char *rel, size_t *n_out);

/* The failure contract.  where: TF_EFORMAT must carry a byte offset or an
 * event index (readers that can locate damage). */
void fz_check_error(int rc, const tf_error *err, bool where);
/* events_read == per-kind counters + skips. */
void fz_check_accounting(const tf_ctx *ctx);

/* Runs reader f over path through the stack builder (every counter as a
 * sample type), then encodes the aggregate to pprof, reads it back with
 * tf_pprof_read and compares the totals.  Checks the error contract.
 * Returns the reader's rc; *diag_out (optional) gets the counters. */
int fz_pipeline(const tf_format *f, const char *path, bool where, tf_diag *diag_out);
/* top/diff statistics (src/cmd/report.c) of every sample type. */
struct tf_agg;
void fz_reports(struct tf_agg *agg);
/* The same with any reading function (input index 0). */
typedef int (*fz_read_fn)(void *arg, tf_ctx *ctx, tf_sink *sink, tf_error *err);
int fz_pipeline_fn(fz_read_fn fn, void *arg, bool where, tf_diag *diag_out);

#endif
