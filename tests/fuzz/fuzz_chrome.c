/* fuzz_chrome.c - Chrome trace-event JSON reader (src/read/chrome.c,
 * chrome_tracks.c) and the JSON tokenizer under it (src/read/json.c).
 *
 * Input: JSON bytes.  Parsed twice through the push-parser API:
 *  1. in one piece, through the stack builder, pprof writer and reader
 *     (fz_pipeline_fn checks the error and accounting contracts);
 *  2. in small pieces (1..64 bytes, chosen by a hash of the input) with no
 *     sink;
 *  3. from a file, through the format sniffers (tf_format_find: every
 *     reader's and tf_pprof_sniff) and tf_format_chrome.read (tf_in, gzip
 *     when the bytes start with its magic).
 * Chunk boundaries may fall anywhere, so 1 and 2 must agree exactly: same
 * result, same error position and message, same counters; so must 3, for
 * input that is not gzip. */
#include <stdio.h>
#include <string.h>
#include "fuzz.h"
#include "../../src/read/chrome.h"
#include "tracefold/pprof.h"

extern const tf_format tf_format_chrome;

#define PATH "fuzz.json"

struct buf_arg {
	const uint8_t *data;
	size_t size, chunk;
	tf_error *err_copy;
};

static void same(const char *what, int rc1, const tf_error *e1, const tf_diag *d1, int rc2,
		 const tf_error *e2, const tf_diag *d2)
{
	if (rc1 != rc2)
		fz_fail("%s: rc %d, in one piece %d (%s / %s)", what, rc2, rc1, e2->msg, e1->msg);
	if (rc1 < 0 && (e1->offset != e2->offset || e1->event_index != e2->event_index ||
			strcmp(e1->msg, e2->msg) != 0))
		fz_fail("%s: error at byte %lld event %lld '%s', in one piece at byte %lld event %lld '%s'", what,
			(long long)e2->offset, (long long)e2->event_index, e2->msg, (long long)e1->offset,
			(long long)e1->event_index, e1->msg);
	for (int i = TF_DIAG_events_read; i < TF_DIAG_COUNT; i++) {
		if ((i >= TF_DIAG_end_without_begin && i <= TF_DIAG_negative_duration) || i == TF_DIAG_gpu_attributed ||
		    (i >= TF_DIAG_gpu_unattributed && i <= TF_DIAG_gpu_unattributed_no_launch) ||
		    i == TF_DIAG_python_parent_clipped || i == TF_DIAG_samples_outside)
			continue; /* stack builder and aggregate counters: only pass 1 has them */
		if (d1->n[i] != d2->n[i])
			fz_fail("%s: %s=%llu, in one piece %llu", what, tf_diag_name(i),
				(unsigned long long)d2->n[i], (unsigned long long)d1->n[i]);
	}
}

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
	char what[64];
	snprintf(what, sizeof(what), "in chunks of %zu", chunk);
	same(what, rc1, &e1, &d1, rc2, &e2, tf_ctx_diag(ctx));
	tf_ctx_free(ctx);

	/* 3: from a file (the error names that path, not PATH) */
	const char *file = fz_path(PATH);
	fz_write(file, data, size);
	tf_error e3;
	tf_error_clear(&e3);
	const tf_format *f = tf_format_find(file, NULL, &e3);
	fz_check_error(f ? 0 : e3.code ? e3.code : TF_EUNKNOWN, &e3, true);
	(void)tf_pprof_sniff(file);
	ctx = tf_ctx_new();
	if (!ctx)
		fz_fail("out of memory");
	tf_error_clear(&e3);
	int rc3 = tf_format_chrome.read(file, 0, ctx, NULL, &e3);
	fz_check_error(rc3, &e3, true);
	if (rc3 < 0 && strcmp(e3.path, file) != 0)
		fz_fail("the error names '%s', not the file read '%s'", e3.path, file);
	if (!(size >= 2 && data[0] == 0x1f && data[1] == 0x8b))
		same("from a file", rc1, &e1, &d1, rc3, &e3, tf_ctx_diag(ctx));
	tf_ctx_free(ctx);
	return 0;
}
