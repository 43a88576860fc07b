/* fuzz_xplane.c - XPlane protobuf reader (src/read/xplane.c, xplane_hlo.c).
 *
 * Input: the bytes of a .xplane.pb file (raw, or gzip: tf_in detects it),
 * read through the stack builder and the pprof writer/reader
 * (fz_pipeline): messages cut anywhere (the error names the byte), wrong
 * wire types, metadata ids never defined, ref_values to no string, a
 * damaged HloProto inside a bytes stat, times past int64. */
#include "fuzz.h"

extern const tf_format tf_format_xplane;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fz_path("fuzz.xplane.pb");
	fz_write(path, data, size);
	fz_pipeline(&tf_format_xplane, path, true, NULL);
	return 0;
}
