/* fuzz_xla-memory.c - the XLA memory profile reader (src/read/xla_memory.c).
 *
 * Input: the bytes of a memory_profile.json (or of a gzip stream of one),
 * written to a file named <host>.memory_profile.json and read through the
 * stack builder and the pprof writer/reader (fz_pipeline): JSON cut or
 * broken anywhere, fields of the wrong type, int64s as strings or numbers
 * or neither, escaped names, op names of '/' and brackets, snapshots out of
 * time order, negative times.  Seeds: tests/fuzz/xla_memory_seeds.py.
 * Every failed read names the byte (the `where` check is on). */
#include "fuzz.h"

extern const tf_format tf_format_xla_memory;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fz_path("fuzz.memory_profile.json");
	fz_write(path, data, size);
	fz_pipeline(&tf_format_xla_memory, path, true, NULL);
	return 0;
}
