/* otf2-null.c - the floor for bench/bench-otf2.sh: libotf2 reads an archive
 * the way tracefold's reader does (global definitions, then each location's
 * local definitions and events with a local event reader) into callbacks that
 * do nothing.  With -g it reads through libotf2's global event reader
 * instead (events merged across locations by time), for comparison.
 *   usage: otf2-null ANCHOR [-g] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <otf2/otf2.h>

typedef struct locs {
	uint64_t *id;
	size_t n, cap;
} locs;

static OTF2_CallbackCode def_location(void *ud, OTF2_LocationRef self, OTF2_StringRef name,
				      OTF2_LocationType type, uint64_t nevents, OTF2_LocationGroupRef group)
{
	locs *l = ud;
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 16;
		l->id = realloc(l->id, l->cap * sizeof(*l->id));
	}
	l->id[l->n++] = self;
	return OTF2_CALLBACK_SUCCESS;
}

static uint64_t seen;

static OTF2_CallbackCode g_region(OTF2_LocationRef loc, OTF2_TimeStamp t, void *ud, OTF2_AttributeList *al,
				  OTF2_RegionRef region)
{
	seen++;
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode g_metric(OTF2_LocationRef loc, OTF2_TimeStamp t, void *ud, OTF2_AttributeList *al,
				  OTF2_MetricRef metric, uint8_t n, const OTF2_Type *types,
				  const OTF2_MetricValue *values)
{
	seen += n;
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_region(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *ud,
				   OTF2_AttributeList *al, OTF2_RegionRef region)
{
	seen++;
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_metric(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *ud,
				   OTF2_AttributeList *al, OTF2_MetricRef metric, uint8_t n,
				   const OTF2_Type *types, const OTF2_MetricValue *values)
{
	seen += n;
	return OTF2_CALLBACK_SUCCESS;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	int global = argc > 2 && strcmp(argv[2], "-g") == 0;
	OTF2_Reader *r = OTF2_Reader_Open(argv[1]);
	if (!r)
		return 1;
	OTF2_Reader_SetSerialCollectiveCallbacks(r);
	locs l = { 0 };
	OTF2_GlobalDefReader *gdr = OTF2_Reader_GetGlobalDefReader(r);
	OTF2_GlobalDefReaderCallbacks *gcb = OTF2_GlobalDefReaderCallbacks_New();
	OTF2_GlobalDefReaderCallbacks_SetLocationCallback(gcb, def_location);
	OTF2_Reader_RegisterGlobalDefCallbacks(r, gdr, gcb, &l);
	OTF2_GlobalDefReaderCallbacks_Delete(gcb);
	uint64_t nd;
	OTF2_Reader_ReadAllGlobalDefinitions(r, gdr, &nd);
	OTF2_Reader_CloseGlobalDefReader(r, gdr);
	for (size_t i = 0; i < l.n; i++)
		OTF2_Reader_SelectLocation(r, l.id[i]);
	int defs = OTF2_Reader_OpenDefFiles(r) == OTF2_SUCCESS;
	OTF2_Reader_OpenEvtFiles(r);
	if (global) {
		for (size_t i = 0; i < l.n; i++) {
			if (defs) {
				OTF2_DefReader *dr = OTF2_Reader_GetDefReader(r, l.id[i]);
				if (dr) {
					OTF2_Reader_ReadAllLocalDefinitions(r, dr, &nd);
					OTF2_Reader_CloseDefReader(r, dr);
				}
			}
			OTF2_Reader_GetEvtReader(r, l.id[i]);
		}
		OTF2_GlobalEvtReader *ger = OTF2_Reader_GetGlobalEvtReader(r);
		OTF2_GlobalEvtReaderCallbacks *cb = OTF2_GlobalEvtReaderCallbacks_New();
		OTF2_GlobalEvtReaderCallbacks_SetEnterCallback(cb, g_region);
		OTF2_GlobalEvtReaderCallbacks_SetLeaveCallback(cb, g_region);
		OTF2_GlobalEvtReaderCallbacks_SetMetricCallback(cb, g_metric);
		OTF2_Reader_RegisterGlobalEvtCallbacks(r, ger, cb, NULL);
		OTF2_GlobalEvtReaderCallbacks_Delete(cb);
		uint64_t n;
		OTF2_Reader_ReadAllGlobalEvents(r, ger, &n);
		OTF2_Reader_CloseGlobalEvtReader(r, ger);
	} else {
		OTF2_EvtReaderCallbacks *cb = OTF2_EvtReaderCallbacks_New();
		OTF2_EvtReaderCallbacks_SetEnterCallback(cb, on_region);
		OTF2_EvtReaderCallbacks_SetLeaveCallback(cb, on_region);
		OTF2_EvtReaderCallbacks_SetMetricCallback(cb, on_metric);
		for (size_t i = 0; i < l.n; i++) {
			if (defs) {
				OTF2_DefReader *dr = OTF2_Reader_GetDefReader(r, l.id[i]);
				if (dr) {
					OTF2_Reader_ReadAllLocalDefinitions(r, dr, &nd);
					OTF2_Reader_CloseDefReader(r, dr);
				}
			}
			OTF2_EvtReader *er = OTF2_Reader_GetEvtReader(r, l.id[i]);
			if (!er)
				continue;
			OTF2_Reader_RegisterEvtCallbacks(r, er, cb, NULL);
			uint64_t n;
			OTF2_Reader_ReadAllLocalEvents(r, er, &n);
			OTF2_Reader_CloseEvtReader(r, er);
		}
		OTF2_EvtReaderCallbacks_Delete(cb);
	}
	OTF2_Reader_CloseEvtFiles(r);
	if (defs)
		OTF2_Reader_CloseDefFiles(r);
	OTF2_Reader_Close(r);
	free(l.id);
	printf("events %llu\n", (unsigned long long)seen);
	return 0;
}
