/* fuzz_perfetto.c - Perfetto protobuf reader (src/read/perfetto.c).
 *
 * Input: the bytes of a .pftrace file (raw, or gzip: tf_in detects it),
 * read through the stack builder and the pprof writer/reader
 * (fz_pipeline): packets cut anywhere, lengths past the end, unknown
 * fields, interned ids never defined, tracks never described, incremental
 * clocks without a snapshot. */
#include "fuzz.h"

extern const tf_format tf_format_perfetto;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fz_path("fuzz.pftrace");
	fz_write(path, data, size);
	fz_pipeline(&tf_format_perfetto, path, true, NULL);
	return 0;
}
