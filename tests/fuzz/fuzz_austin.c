/* fuzz_austin.c - the austin 1.x reader (src/read/austin.c).
 *
 * Input: the bytes of austin's output (or of a gzip stream of it), read
 * through the stack builder and the pprof writer/reader (fz_pipeline):
 * lines cut anywhere, frames without "(file)", L<line> elements misplaced,
 * metrics missing, negative or too many, thread ids of any kind, austin
 * 3.x lines, a last line without its end.  Seeds:
 * tests/fuzz/corpus/austin/ (cuts of the fixtures of every mode).  Every
 * failed read names the byte and line (the `where` check is on). */
#include "fuzz.h"

extern const tf_format tf_format_austin;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fz_path("fuzz.austin.txt");
	fz_write(path, data, size);
	fz_pipeline(&tf_format_austin, path, true, NULL);
	return 0;
}
