/* agg_mem.h - Kineto's memory events per call path (agg_mem.c), for the
 * aggregate's consumer (agg_sink.c): the events noted as they come, one
 * thread after another, then replayed in time order for each device's
 * peak of live memory (docs/memory.md). */
#ifndef TRACEFOLD_AGG_MEM_H
#define TRACEFOLD_AGG_MEM_H

#include "tracefold/agg_sink.h"
#include "tracefold/event.h"

typedef struct tf_agg_mem tf_agg_mem;

tf_agg_mem *tf_agg_mem_new(tf_ctx *ctx, tf_agg *agg);
void tf_agg_mem_free(tf_agg_mem *m); /* NULL-safe */
/* A memory event ev (value != 0) at call path node (never the root) with
 * label set ls (its track's, its device's): kept for tf_agg_mem_finish. */
int tf_agg_mem_note(tf_agg_mem *m, const tf_event *ev, uint32_t node, uint32_t ls);
/* Replays the events noted in time order: counts per device, its peak, and
 * the inuse_space/inuse_objects samples of the peak.  Once. */
int tf_agg_mem_finish(tf_agg_mem *m);
size_t tf_agg_mem_devices(const tf_agg_mem *m, const tf_mem_device **out);

#endif
