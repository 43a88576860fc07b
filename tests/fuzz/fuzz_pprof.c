/* fuzz_pprof.c - the pprof profile reader (src/read/pprof.c).
 *
 * Input: one mode byte, then the profile bytes.  Mode bit 0 set: the bytes
 * are gzipped before they are written (so the protobuf decoder and the
 * validation see the fuzzed bytes); clear: written as they are (raw
 * protobuf, or a gzip stream the fuzzer built: covers src/io/io.c).  The
 * file is sniffed (tf_pprof_sniff) and read with tf_pprof_read into an
 * empty aggregate and, to cover the type-matching path, into one that
 * already has tracefold's own types.  A read that succeeds must encode
 * back to a profile that reads again with the same totals. */
#include <stdlib.h>
#include <string.h>
#include "fuzz.h"
#include "tracefold/agg.h"
#include "tracefold/pprof.h"

static void read_into(tf_agg *agg, const char *path, bool expect_types)
{
	tf_error err;
	tf_error_clear(&err);
	int rc = tf_pprof_read(agg, path, &err);
	/* pprof damage is named by record ("sample #3: location id 9 ...") */
	fz_check_error(rc, &err, false);
	if (rc == TF_ENOMEM)
		fz_fail("out of memory reading a small profile: %s", err.msg);
	if (rc < 0)
		return;
	if (expect_types && tf_agg_ntypes(agg) < 2)
		fz_fail("read into an aggregate with types but lost them");
	unsigned char *buf = NULL;
	size_t len = 0;
	tf_error_clear(&err);
	if (tf_pprof_encode(agg, &buf, &len, &err) < 0)
		fz_fail("cannot encode what was read: %s", err.msg);
	const char *p = fz_path("again.pb");
	fz_write(p, buf, len);
	free(buf);
	tf_agg *back = tf_agg_new(tf_agg_strtab(agg));
	if (!back)
		fz_fail("out of memory");
	tf_error_clear(&err);
	if (tf_pprof_read(back, p, &err) < 0)
		fz_fail("a profile we wrote from a profile we read does not read back: %s", err.msg);
	if (tf_agg_ntypes(back) != tf_agg_ntypes(agg))
		fz_fail("round trip changed the number of sample types");
	for (int t = 0; t < tf_agg_ntypes(agg); t++) {
		uint64_t a = 0, b = 0;
		for (size_t i = 0; i < tf_agg_nsamples(agg); i++)
			a += (uint64_t)tf_agg_sample_value(agg, i, t);
		for (size_t i = 0; i < tf_agg_nsamples(back); i++)
			b += (uint64_t)tf_agg_sample_value(back, i, t);
		if (a != b)
			fz_fail("round trip changed the total of type %d: %llu -> %llu", t,
				(unsigned long long)a, (unsigned long long)b);
	}
	tf_agg_free(back);
	fz_reports(agg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	const char *path = fz_path("fuzz.pb.gz");
	if (data[0] & 1) {
		size_t n;
		unsigned char *gz = fz_gzip(data + 1, size - 1, &n);
		fz_write(path, gz, n);
		free(gz);
	} else {
		fz_write(path, data + 1, size - 1);
	}
	(void)tf_pprof_sniff(path);

	tf_strtab *st = tf_strtab_new();
	tf_agg *a = tf_agg_new(st);
	tf_agg *b = tf_agg_new(st);
	if (!st || !a || !b)
		fz_fail("out of memory");
	read_into(a, path, false);
	tf_agg_type(b, "calls", "count");
	tf_agg_type(b, "wall", "nanoseconds");
	read_into(b, path, true);
	tf_agg_free(a);
	tf_agg_free(b);
	tf_strtab_free(st);
	return 0;
}
