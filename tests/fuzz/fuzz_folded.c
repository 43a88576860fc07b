/* fuzz_folded.c - folded stacks: the reader and sniffer
 * (src/read/folded.c) and the writer (src/write/folded.c).
 *
 * Input: one mode byte, then the file's bytes.  Mode bit 0 set: the bytes
 * are gzipped before they are written (so the line parser sees the fuzzed
 * bytes through tf_in's inflate); clear: written as they are (text, or a
 * gzip stream the fuzzer built).  The file is sniffed (tf_folded_sniff) and
 * read with tf_folded_read into an empty aggregate; into one with another
 * sample type it must be refused (TF_ECLASH).  A failed read names the
 * file, and a malformed line its byte offset.  A read that succeeds is
 * written as folded stacks, read again and written again: the two files are
 * byte-identical (sorted, merged, names rewritten once and for all) and
 * the totals equal; the top/diff statistics run on the aggregate. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz.h"
#include "tracefold/agg.h"
#include "tracefold/folded.h"

/* Sum of every sample's value of type 0, saturating (values are >= 0, so
 * the order of the additions does not matter). */
static int64_t total(const tf_agg *a)
{
	int64_t s = 0;
	for (size_t i = 0; i < tf_agg_nsamples(a); i++) {
		int64_t v = tf_agg_sample_value(a, i, 0);
		s = v > INT64_MAX - s ? INT64_MAX : s + v;
	}
	return s;
}

static unsigned char *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		fz_fail("cannot open %s", path);
	size_t cap = 1 << 12, k;
	unsigned char *b = malloc(cap);
	*n = 0;
	while (b && (k = fread(b + *n, 1, cap - *n, f)) > 0) {
		*n += k;
		if (*n == cap) {
			unsigned char *nb = realloc(b, cap *= 2);
			if (!nb)
				free(b);
			b = nb;
		}
	}
	fclose(f);
	if (!b)
		fz_fail("out of memory");
	return b;
}

static void write_read_write(tf_strtab *st, tf_agg *agg)
{
	tf_error err;
	tf_error_clear(&err);
	const char *p1 = fz_path("out1.folded"), *p2 = fz_path("out2.folded");
	if (tf_folded_write(agg, 0, p1, &err) < 0)
		fz_fail("cannot write what was read: %s", err.msg);
	tf_agg *back = tf_agg_new(st);
	if (!back)
		fz_fail("out of memory");
	tf_error_clear(&err);
	if (tf_folded_read(back, p1, NULL, NULL, &err) < 0)
		fz_fail("folded stacks we wrote do not read back: %s", err.msg);
	if (total(back) != total(agg))
		fz_fail("round trip changed the total: %lld -> %lld", (long long)total(agg), (long long)total(back));
	tf_error_clear(&err);
	if (tf_folded_write(back, 0, p2, &err) < 0)
		fz_fail("cannot write what was read back: %s", err.msg);
	size_t n1, n2;
	unsigned char *b1 = slurp(p1, &n1), *b2 = slurp(p2, &n2);
	if (n1 != n2 || memcmp(b1, b2, n1) != 0)
		fz_fail("folded stacks written, read and written again differ (%zu and %zu bytes)", n1, n2);
	free(b1);
	free(b2);
	tf_agg_free(back);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	const char *path = fz_path("fuzz.folded");
	if (data[0] & 1) {
		size_t n;
		unsigned char *gz = fz_gzip(data + 1, size - 1, &n);
		fz_write(path, gz, n);
		free(gz);
	} else {
		fz_write(path, data + 1, size - 1);
	}
	(void)tf_folded_sniff(path);

	tf_strtab *st = tf_strtab_new();
	tf_agg *a = st ? tf_agg_new(st) : NULL;
	tf_agg *b = st ? tf_agg_new(st) : NULL;
	if (!a || !b)
		fz_fail("out of memory");
	tf_error err;
	tf_error_clear(&err);
	int rc = tf_folded_read(a, path, NULL, NULL, &err);
	/* damage is named by its byte offset (a malformed line also by its
	 * number); a file without samples has no place to name */
	fz_check_error(rc, &err, !(rc == TF_EFORMAT && !strncmp(err.msg, "no samples", 10)));
	if (rc == TF_ENOMEM)
		fz_fail("out of memory reading a small file: %s", err.msg);
	if (rc == 0) {
		if (tf_agg_ntypes(a) != 1 || total(a) <= 0)
			fz_fail("a successful read without one sample type and a total above 0");
		write_read_write(st, a);
		fz_reports(a);
	}
	/* another sample type already there: refused, whatever the file holds */
	tf_agg_type(b, "wall", "nanoseconds");
	tf_error_clear(&err);
	if (tf_folded_read(b, path, NULL, NULL, &err) != TF_ECLASH)
		fz_fail("folded stacks added to a profile of another sample type were not refused");
	fz_check_error(TF_ECLASH, &err, false);
	tf_agg_free(a);
	tf_agg_free(b);
	tf_strtab_free(st);
	return 0;
}
