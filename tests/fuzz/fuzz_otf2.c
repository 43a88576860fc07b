/* fuzz_otf2.c - OTF2 reader (src/read/otf2*.c) and, below it, libotf2.
 *
 * Input: one selector byte, then the new contents of one file of a small
 * real archive copied into a temporary directory.  Selector bit 7 picks the
 * archive (0: tests/data/otf2/tiny_otf2, TAU, one location; 1:
 * scorep-ping-pong-mpi, Score-P, two MPI ranks), the low bits (modulo the
 * file count) the file: the anchor, the global definitions, or a
 * location's local definitions or events.  The archive is read through the
 * stack builder and the pprof writer/reader (fz_pipeline), then the file is
 * restored for the next input.
 *
 * libotf2 reports no byte offsets, so format errors name the anchor and
 * what libotf2 said (the `where` check is off).  Crashes inside libotf2 on
 * corrupt files are libotf2's, not ours: see docs/testing.md. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include "fuzz.h"

extern const tf_format tf_format_otf2;

typedef struct archive {
	const char *src;        /* below tests/data */
	const char *name;       /* directory in the temp dir */
	const char *files[6];
	unsigned char *data[6];
	size_t len[6];
	int n;
} archive;

static archive arcs[2] = {
	{ "otf2/tiny_otf2", "tiny", { "traces.otf2", "traces.def", "traces/0.def", "traces/0.evt" }, { 0 }, { 0 }, 4 },
	{ "otf2/scorep-ping-pong-mpi", "pingpong",
	  { "traces.otf2", "traces.def", "traces/0.def", "traces/0.evt", "traces/1.def", "traces/1.evt" }, { 0 }, { 0 }, 6 },
};

static void setup(void)
{
	for (int a = 0; a < 2; a++) {
		char p[700];
		snprintf(p, sizeof(p), "%s/%s", fz_tmpdir(), arcs[a].name);
		mkdir(p, 0700);
		snprintf(p, sizeof(p), "%s/%s/traces", fz_tmpdir(), arcs[a].name);
		mkdir(p, 0700);
		for (int i = 0; i < arcs[a].n; i++) {
			char rel[300];
			snprintf(rel, sizeof(rel), "%s/%s", arcs[a].src, arcs[a].files[i]);
			arcs[a].data[i] = fz_fixture(rel, &arcs[a].len[i]);
			snprintf(p, sizeof(p), "%s/%s/%s", fz_tmpdir(), arcs[a].name, arcs[a].files[i]);
			fz_write(p, arcs[a].data[i], arcs[a].len[i]);
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;
	if (!ready) {
		setup();
		ready = 1;
	}
	if (size < 1)
		return 0;
	archive *A = &arcs[data[0] >> 7];
	int f = (data[0] & 0x7f) % A->n;
	char p[700], anchor[700];
	snprintf(p, sizeof(p), "%s/%s/%s", fz_tmpdir(), A->name, A->files[f]);
	snprintf(anchor, sizeof(anchor), "%s/%s/traces.otf2", fz_tmpdir(), A->name);
	fz_write(p, data + 1, size - 1);
	fz_pipeline(&tf_format_otf2, anchor, false, NULL);
	fz_write(p, A->data[f], A->len[f]);
	return 0;
}
