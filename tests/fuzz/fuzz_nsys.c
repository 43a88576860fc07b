/* fuzz_nsys.c - Nsight Systems SQLite reader (src/read/nsys.c) and, below
 * it, libsqlite3.
 *
 * Input: the bytes of a .sqlite file, written to a temporary file (SQLite
 * reads a path) and read through the stack builder and the pprof
 * writer/reader (fz_pipeline): pages cut or damaged anywhere, tables or
 * columns missing, values of the wrong type, NULL ends and names, rows
 * whose correlation ids match nothing.  Seeds: tests/fuzz/nsys_seeds.py.
 *
 * libsqlite3 reports no byte offsets, and a database that is damaged or no
 * Nsight export is refused before any row: the `where` check is off (the
 * errors of rows name their event index). */
#include "fuzz.h"

extern const tf_format tf_format_nsys;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fz_path("fuzz.sqlite");
	fz_write(path, data, size);
	fz_pipeline(&tf_format_nsys, path, false, NULL);
	return 0;
}
