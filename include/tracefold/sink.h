/* sink.h - the consumer side of the event stream.
 *
 * A consumer embeds a tf_sink in its own state and recovers it with
 * tf_container_of (as Linux perf's struct perf_tool).  Hooks may be NULL.
 * A hook returns 0, a negative TF_E* to abort the read, or TF_ESTOP to ask
 * the reader to stop early (not an error). */
#ifndef TRACEFOLD_SINK_H
#define TRACEFOLD_SINK_H

#include <stddef.h>
#include "event.h"

#define tf_container_of(ptr, type, member) \
	((type *)(void *)((char *)(ptr) - offsetof(type, member)))

typedef struct tf_sink tf_sink;
struct tf_sink {
	/* one normalized event */
	int (*event)(tf_sink *s, const tf_event *ev);
	/* the reader finished input number `input` (all its events delivered) */
	int (*end_input)(tf_sink *s, uint32_t input);
};

/* Fans one stream out to several sinks. */
typedef struct tf_tee {
	tf_sink sink;
	tf_sink *to[4];
	int n;
} tf_tee;
void tf_tee_init(tf_tee *t);
void tf_tee_add(tf_tee *t, tf_sink *s);

#endif
