/* fuzz_chrome.c - Chrome trace-event JSON reader (src/read/chrome.c).
 *
 * Input: JSON bytes.  Parsed twice through the push-parser API:
 *  1. in one piece, through the stack builder, pprof writer and reader
 *     (fz_pipeline_fn checks the error and accounting contracts);
 *  2. in small pieces (1..64 bytes, chosen by a hash of the input) with no
 *     sink.
 * Chunk boundaries may fall anywhere, so both must agree exactly: same
 * result, same error position and message, same counters. */
#include <stdio.h>
#include <string.h>
#include "fuzz.h"
#include "../../src/read/chrome.h"

#define PATH "fuzz.json"

struct buf_arg {
	const uint8_t *data;
	size_t size, chunk;
	tf_error *err_copy;
};

static int read_buf(void *arg, tf_ctx *ctx, tf_sink *sink, tf_error *err)
{
	struct buf_arg *a = arg;
	int rc = tf_chrome_parse_buffer(PATH, 0, ctx, sink, a->data, a->size, a->chunk, err);
	*a->err_copy = *err;
	return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	tf_error e1;
	tf_error_clear(&e1);
	struct buf_arg a = { data, size, 0, &e1 };
	tf_diag d1;
	int rc1 = fz_pipeline_fn(read_buf, &a, true, &d1);

	uint32_t h = 2166136261u;
	for (size_t i = 0; i < size; i++)
		h = (h ^ data[i]) * 16777619u;
	size_t chunk = 1 + h % 64;
	tf_ctx *ctx = tf_ctx_new();
	if (!ctx)
		fz_fail("out of memory");
	tf_error e2;
	tf_error_clear(&e2);
	int rc2 = tf_chrome_parse_buffer(PATH, 0, ctx, NULL, data, size, chunk, &e2);
	fz_check_error(rc2, &e2, true);
	const tf_diag *d2 = tf_ctx_diag(ctx);
	if (rc1 != rc2)
		fz_fail("chunk %zu: rc %d, in one piece %d (%s / %s)", chunk, rc2, rc1, e2.msg, e1.msg);
	if (rc1 < 0 && (e1.offset != e2.offset || e1.event_index != e2.event_index ||
			strcmp(e1.msg, e2.msg) != 0))
		fz_fail("chunk %zu: error at byte %lld event %lld '%s', in one piece at byte %lld event %lld '%s'",
			chunk, (long long)e2.offset, (long long)e2.event_index, e2.msg, (long long)e1.offset,
			(long long)e1.event_index, e1.msg);
	for (int i = TF_DIAG_events_read; i < TF_DIAG_COUNT; i++) {
		if (i >= TF_DIAG_end_without_begin && i <= TF_DIAG_negative_duration)
			continue; /* stack builder counters: pass 2 has no stack builder */
		if (d1.n[i] != d2->n[i])
			fz_fail("chunk %zu: %s=%llu, in one piece %llu", chunk, tf_diag_name(i),
				(unsigned long long)d2->n[i], (unsigned long long)d1.n[i]);
	}
	tf_ctx_free(ctx);
	return 0;
}
