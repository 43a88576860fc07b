/* fuzz_telemetry.c - the tracefold telemetry CSV reader (src/read/telemetry.c).
 *
 * Input: the bytes of the file, read through the stack builder and the
 * pprof writer/reader (fz_pipeline): headers cut or missing, columns that
 * change count, units and [N/A] anywhere, times that are no times (or
 * beyond int64 ns), values that are no numbers, lines of any length.
 * Seeds: tests/fuzz/corpus/telemetry/ (tests/data/telemetry's generic.csv, samples/telemetry.sh's output, cuts).  Every failed read names
 * the byte and line (the `where` check is on). */
#include "fuzz.h"

extern const tf_format tf_format_telemetry;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fz_path("fuzz.telemetry.csv");
	fz_write(path, data, size);
	fz_pipeline(&tf_format_telemetry, path, true, NULL);
	return 0;
}
