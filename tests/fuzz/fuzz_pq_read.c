/* fuzz_pq_read.c - the Parquet reader (src/parquet/pq_read.c) and, below
 * it, zlib, libzstd and our snappy decompressor.
 *
 * Input: the bytes of a .parquet file, written to a temporary file and read
 * whole: every column asked for, every row's values fetched.  The
 * contract: no crash, leak or undefined behaviour; a failure is an error
 * naming the file with a message, and TF_EFORMAT carries a byte offset
 * (the reader locates all the damage it finds).  Seeds: tiny DuckDB-written
 * files of every codec and both format versions, and one of tracefold's
 * own writer (tests/fuzz/corpus/pq_read/). */
#include <string.h>
#include "fuzz.h"
#include "../../src/parquet/pq_read.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fz_path("fuzz.parquet");
	fz_write(path, data, size);
	tf_error err;
	tf_error_clear(&err);
	pq_reader *r;
	int rc = pq_ropen(&r, path, &err);
	if (rc) {
		fz_check_error(rc, &err, true);
		return 0;
	}
	int n = pq_rncols(r);
	for (int c = 0; c < n && !rc; c++) {
		if (!pq_rcol_name(r, c))
			fz_fail("column %d has no name", c);
		if (pq_rcol_type(r, c) >= 0)
			rc = pq_ruse(r, c, &err);
	}
	uint64_t rows = 0;
	while (!rc && (rc = pq_rnext(r, &err)) == 1) {
		rc = 0;
		if (pq_rrow(r) != rows++)
			fz_fail("row %llu reported as %llu", (unsigned long long)rows - 1,
				(unsigned long long)pq_rrow(r));
		for (int c = 0; c < n; c++) {
			size_t len;
			const char *s = pq_rstr(r, c, &len);
			volatile unsigned char sink = 0;
			for (size_t i = 0; i < len; i++)
				sink ^= (unsigned char)s[i];
			(void)pq_ri64(r, c);
			(void)pq_rf64(r, c);
			(void)pq_rbool(r, c);
			(void)pq_rnull(r, c);
		}
	}
	if (rc < 0)
		fz_check_error(rc, &err, true);
	else if (rows != pq_rrows(r))
		fz_fail("%llu rows read, the footer says %llu", (unsigned long long)rows,
			(unsigned long long)pq_rrows(r));
	pq_rclose(r);
	return 0;
}
