/* fuzz_tables.c - the event tables' reader (src/read/tables.c,
 * tables_rows.c) and, below it, the Parquet reader (src/parquet/pq_read.c).
 *
 * Input: the bytes of one Parquet file of the slices table (the reader's
 * one-file form), read through the stack builder and the pprof
 * writer/reader (fz_pipeline): footers, pages and dictionaries cut or
 * damaged anywhere, columns missing or of another type, nulls, rows in any
 * order.  Seeds: tracefold's own slices (zstd, none) and a DuckDB COPY of
 * some columns (snappy). */
#include "fuzz.h"

extern const tf_format tf_format_tables;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fz_path("fuzz.parquet");
	fz_write(path, data, size);
	fz_pipeline(&tf_format_tables, path, false, NULL);
	return 0;
}
