/* samples.h - where a sampled stack goes in the call-path tree.
 *
 *   reader --TF_EV_SAMPLE (stack id)--> stack builder --(region node)-->
 *       tf_sample_path(node, stack) --> call path: the open regions, then
 *       the sample's own frames (docs/samples.md)
 *
 * A sample's stack is a node of the ctx's sample-stack tree
 * (tf_ctx_stack_child, raw names); its call path is that stack's frames,
 * root first, each renamed as region frames are (tf_ctx_frame_name), below
 * the call path of the regions open on its track when it was taken.  The
 * answer is cached per (node, stack), so a stack met again costs one
 * lookup; memory grows with distinct pairs, not with samples. */
#ifndef TRACEFOLD_SAMPLES_H
#define TRACEFOLD_SAMPLES_H

#include <stdint.h>
#include "ctx.h"
#include "cpath.h"

typedef struct tf_sample_paths tf_sample_paths;

/* ctx and cp borrowed (cp: the call-path tree of the spans' nodes). */
tf_sample_paths *tf_sample_paths_new(tf_ctx *ctx, tf_cpath *cp);
void tf_sample_paths_free(tf_sample_paths *p); /* NULL-safe */
/* The call path of stack under node; (uint32_t)-1 when out of memory. */
uint32_t tf_sample_path(tf_sample_paths *p, uint32_t node, uint32_t stack);

#endif
