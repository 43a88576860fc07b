/* chrome.h - internal entry points of the Chrome trace-event JSON reader
 * (src/read/chrome.c), for unit tests and benchmarks.  The reader is a push
 * parser: feed it the decompressed input in chunks of any size (chunk
 * boundaries may fall anywhere, also inside strings, escapes and numbers),
 * then call finish.  Only an unfinished event is carried between chunks. */
#ifndef TRACEFOLD_READ_CHROME_H
#define TRACEFOLD_READ_CHROME_H

#include <stddef.h>
#include <stdint.h>
#include "tracefold/ctx.h"
#include "tracefold/sink.h"
#include "tracefold/err.h"

typedef struct tf_chrome tf_chrome;

/* path is used for error messages only; ctx and sink are borrowed. */
tf_chrome *tf_chrome_new(const char *path, uint32_t input, tf_ctx *ctx, tf_sink *sink);
void tf_chrome_free(tf_chrome *r); /* NULL-safe */
/* Feeds the next n bytes.  Returns 0, TF_ESTOP (the sink asked to stop) or a
 * negative TF_E* code with err filled (TF_EFORMAT: byte offset of the fault). */
int tf_chrome_feed(tf_chrome *r, const unsigned char *data, size_t n, tf_error *err);
/* End of input: an unfinished last event is counted as truncated_record. */
int tf_chrome_finish(tf_chrome *r, tf_error *err);

/* Whole buffer in one call, fed in pieces of `chunk` bytes (0 = one piece). */
int tf_chrome_parse_buffer(const char *path, uint32_t input, tf_ctx *ctx, tf_sink *sink,
			   const void *data, size_t n, size_t chunk, tf_error *err);

/* Decimal microseconds text (JSON number syntax, also with a leading '+',
 * ".5" or "5.") to integer nanoseconds, exactly; digits below 1 ns are
 * rounded half to even.  Returns 0, or -1 when the text is not a number or
 * the result does not fit in int64. */
int tf_chrome_us_to_ns(const char *s, size_t n, int64_t *ns_out);

/* The sniff rule (TF_SNIFF_*) on the first n decompressed bytes. */
int tf_chrome_sniff(const unsigned char *head, size_t n);

#endif
