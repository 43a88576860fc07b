/* fuzz_firefox.c - Firefox Profiler processed profiles (src/read/firefox.c,
 * firefox_tables.c).
 *
 * Input: a profile's JSON, written to a file and read through the stack
 * builder and the pprof writer/reader (fz_pipeline): JSON cut anywhere,
 * tables shared or per thread, prefix or prefixOffset columns with rows out
 * of range or in cycles, null stacks, time or timeDeltas, weights of each
 * type (fractions, zeros), escaped names, raw Gecko profiles, versions out
 * of range.  Seeds: tests/fuzz/corpus/firefox (minified fixtures of
 * tests/data/samples/firefox and hand-made tables).  Every failed read
 * names the byte (the `where` check is on). */
#include "fuzz.h"

extern const tf_format tf_format_firefox;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fz_path("fuzz.json");
	fz_write(path, data, size);
	fz_pipeline(&tf_format_firefox, path, true, NULL);
	return 0;
}
