/* gen-otf2.c - writes a synthetic OTF2 archive for bench/bench-otf2.sh with
 * the OTF2 writer API: LOCS locations (threads of one process each on its own
 * rank), each with EVENTS Enter/Leave records of a call tree 4 levels deep
 * over 64 regions (4 per level), plus one metric record every 64 events.  Ticks are a
 * 2.5 GHz-like clock with a non-zero global offset.
 *   usage: gen-otf2 DIR LOCS EVENTS_PER_LOCATION */
#include <stdio.h>
#include <stdlib.h>
#include <otf2/otf2.h>

static OTF2_FlushType pre_flush(void *ud, OTF2_FileType ft, OTF2_LocationRef loc, void *cb, bool final)
{
	return OTF2_FLUSH;
}

static OTF2_TimeStamp post_flush(void *ud, OTF2_FileType ft, OTF2_LocationRef loc)
{
	return 0;
}

static OTF2_FlushCallbacks flush_cbs = { .otf2_pre_flush = pre_flush, .otf2_post_flush = post_flush };

#define NREG 64
#define OFFSET 1000000000000ull
#define RES 2500000007ull

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: gen-otf2 DIR LOCS EVENTS_PER_LOCATION\n");
		return 2;
	}
	int nloc = atoi(argv[2]);
	long long nev = atoll(argv[3]);
	OTF2_Archive *a = OTF2_Archive_Open(argv[1], "traces", OTF2_FILEMODE_WRITE, 1024 * 1024, 4 * 1024 * 1024,
					    OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
	if (!a)
		return 1;
	OTF2_Archive_SetFlushCallbacks(a, &flush_cbs, NULL);
	OTF2_Archive_SetSerialCollectiveCallbacks(a);
	OTF2_Archive_OpenEvtFiles(a);
	unsigned long long end = OFFSET;
	OTF2_Type ty = OTF2_TYPE_UINT64;
	for (int l = 0; l < nloc; l++) {
		OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(a, l);
		unsigned long long t = OFFSET, seed = 12345 + l;
		uint32_t stack[8];
		int depth = 0;
		long long n = 0;
		while (n < nev) {
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			t += 1 + (seed >> 58);
			int open = depth == 0 || (depth < 4 && ((seed >> 20) & 1));
			if (n + depth >= nev)
				open = 0;
			if (open) {
				/* 4 choices per level: a few hundred call paths, as real codes */
				uint32_t r = (uint32_t)(depth * 16 + (seed >> 32) % 4);
				stack[depth++] = r;
				OTF2_EvtWriter_Enter(w, NULL, t, r);
			} else {
				OTF2_EvtWriter_Leave(w, NULL, t, stack[--depth]);
			}
			n++;
			if ((n & 63) == 0) {
				OTF2_MetricValue v = { .unsigned_int = n };
				OTF2_EvtWriter_Metric(w, NULL, t, 0, 1, &ty, &v);
			}
		}
		while (depth > 0)
			OTF2_EvtWriter_Leave(w, NULL, ++t, stack[--depth]);
		OTF2_Archive_CloseEvtWriter(a, w);
		if (t > end)
			end = t;
	}
	OTF2_Archive_CloseEvtFiles(a);
	/* empty local definition files, as Score-P leaves them */
	OTF2_Archive_OpenDefFiles(a);
	for (int l = 0; l < nloc; l++)
		OTF2_Archive_CloseDefWriter(a, OTF2_Archive_GetDefWriter(a, l));
	OTF2_Archive_CloseDefFiles(a);
	OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(a);
	OTF2_GlobalDefWriter_WriteClockProperties(g, RES, OFFSET, end - OFFSET, OTF2_UNDEFINED_TIMESTAMP);
	char buf[64];
	uint32_t s = 0;
	OTF2_GlobalDefWriter_WriteString(g, s++, "");
	for (int r = 0; r < NREG; r++) {
		snprintf(buf, sizeof(buf), "region_%02d", r);
		OTF2_GlobalDefWriter_WriteString(g, s, buf);
		OTF2_GlobalDefWriter_WriteRegion(g, r, s, s, 0, OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER,
						 OTF2_REGION_FLAG_NONE, 0, 0, 0);
		s++;
	}
	OTF2_GlobalDefWriter_WriteString(g, s, "node");
	OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, s, s, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
	s++;
	OTF2_GlobalDefWriter_WriteString(g, s, "events so far");
	OTF2_GlobalDefWriter_WriteMetricMember(g, 0, s, 0, OTF2_METRIC_TYPE_OTHER, OTF2_METRIC_ABSOLUTE_POINT,
					       OTF2_TYPE_UINT64, OTF2_BASE_DECIMAL, 0, 0);
	s++;
	OTF2_MetricMemberRef mm = 0;
	OTF2_GlobalDefWriter_WriteMetricClass(g, 0, 1, &mm, OTF2_METRIC_SYNCHRONOUS, OTF2_RECORDER_KIND_CPU);
	uint64_t *locs = malloc(nloc * sizeof(*locs));
	for (int l = 0; l < nloc; l++) {
		snprintf(buf, sizeof(buf), "MPI Rank %d", l);
		OTF2_GlobalDefWriter_WriteString(g, s, buf);
		OTF2_GlobalDefWriter_WriteLocationGroup(g, l, s, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
							OTF2_UNDEFINED_LOCATION_GROUP);
		s++;
		OTF2_GlobalDefWriter_WriteString(g, s, "Master thread");
		OTF2_GlobalDefWriter_WriteLocation(g, l, s, OTF2_LOCATION_TYPE_CPU_THREAD, nev + nev / 64 + 8, l);
		s++;
		locs[l] = l;
	}
	OTF2_GlobalDefWriter_WriteGroup(g, 0, 0, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
					OTF2_GROUP_FLAG_NONE, nloc, locs);
	free(locs);
	return OTF2_Archive_Close(a) == OTF2_SUCCESS ? 0 : 1;
}
