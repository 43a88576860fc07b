/* fuzz_tau_edf.c - TAU reader, the .edf text side (src/read/tau_edf.c).
 *
 * Input: the text of events.0.edf, read with a fixed, valid .trc
 * (tests/data/tau/threads/tautrace.0.0.0.trc) through the stack builder and
 * the pprof writer/reader (fz_pipeline).  Unknown ids make the reader re-read
 * the EDF, so this also covers the re-read path. */
#include <stdlib.h>
#include "fuzz.h"

extern const tf_format tf_format_tau;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static unsigned char *trc;
	static size_t ntrc;
	if (!trc) {
		trc = fz_fixture("tau/threads/tautrace.0.0.0.trc", &ntrc);
		fz_write(fz_path("tautrace.0.0.0.trc"), trc, ntrc);
	}
	fz_write(fz_path("events.0.edf"), data, size);
	fz_pipeline(&tf_format_tau, fz_path("tautrace.0.0.0.trc"), true, NULL);
	return 0;
}
