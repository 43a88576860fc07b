/* fuzz_rocm-smi.c - the rocm-smi CSV reader (src/read/telemetry_smi.c).
 *
 * Input: the bytes of the file, read through the stack builder and the
 * pprof writer/reader (fz_pipeline): headers cut or missing, columns that
 * change count, units and [N/A] anywhere, times that are no times (or
 * beyond int64 ns), values that are no numbers, lines of any length.
 * Seeds: tests/fuzz/corpus/rocm-smi/ (tests/data/telemetry's rocm-smi files, cuts).  Every failed read names
 * the byte and line (the `where` check is on). */
#include "fuzz.h"

extern const tf_format tf_format_rocm_smi;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fz_path("fuzz.rocm-smi.csv");
	fz_write(path, data, size);
	fz_pipeline(&tf_format_rocm_smi, path, true, NULL);
	return 0;
}
