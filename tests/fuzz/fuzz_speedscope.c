/* fuzz_speedscope.c - the speedscope JSON reader (src/read/speedscope.c).
 *
 * Input: the bytes of a speedscope file (or of a gzip stream of one), read
 * through the stack builder and the pprof writer/reader (fz_pipeline):
 * JSON cut or broken anywhere, frame indices out of range or not numbers,
 * weights missing or negative, O/C events out of order or crossed, units
 * unknown, a tracefold exporter with and without its aggregate profile.
 * Seeds: tests/fuzz/corpus/speedscope/ (speedscope's sample files and a
 * small tracefold export).  Every failed read names the byte or the
 * sample/event index (the `where` check is on). */
#include "fuzz.h"

extern const tf_format tf_format_speedscope;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fz_path("fuzz.speedscope.json");
	fz_write(path, data, size);
	fz_pipeline(&tf_format_speedscope, path, true, NULL);
	return 0;
}
