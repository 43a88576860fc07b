/* fuzz_perf.c - the perf script reader (src/read/perf.c) and the streamed
 * line reader under it (src/io/lines.c).
 *
 * Input: the bytes of a `perf script` text (or of a gzip stream of one),
 * written to a file and read through the stack builder and the pprof
 * writer/reader (fz_pipeline): headers cut or with fields missing, comms of
 * spaces and digits, huge or missing periods, times without fraction,
 * stack lines without a dso or with nested parentheses, '\r', NUL bytes,
 * lines across chunk boundaries.  Seeds: tests/fuzz/corpus/perf (cut from
 * tests/data/samples).  Every failed read names the byte (the `where`
 * check is on). */
#include "fuzz.h"

extern const tf_format tf_format_perf;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fz_path("fuzz.perf.txt");
	fz_write(path, data, size);
	fz_pipeline(&tf_format_perf, path, true, NULL);
	return 0;
}
