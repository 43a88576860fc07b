/* fuzz_tau_trc.c - TAU reader (src/read/tau.c), the binary .trc side.
 *
 * Input: the bytes of a .trc file (raw, or gzip: tf_in detects it), read
 * with a fixed, valid EDF beside it (tests/data/tau/threads/events.0.edf)
 * through the stack builder and the pprof writer/reader (fz_pipeline). */
#include <stdlib.h>
#include "fuzz.h"

extern const tf_format tf_format_tau;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static unsigned char *edf;
	static size_t nedf;
	if (!edf) {
		edf = fz_fixture("tau/threads/events.0.edf", &nedf);
		fz_write(fz_path("events.0.edf"), edf, nedf);
	}
	const char *trc = fz_path("tautrace.0.0.0.trc");
	fz_write(trc, data, size);
	fz_pipeline(&tf_format_tau, trc, true, NULL);
	return 0;
}
