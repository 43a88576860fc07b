/* cpath.h - the call-path tree: node -> (parent, frame, depth).
 *
 *   stack builder --tf_cpath_child--> node ids --> spans --> consumers
 *   (the aggregate, writers) query the same tree
 *
 * Nodes are keyed by (parent node, frame name); node TF_CPATH_ROOT (0) is
 * the root and has no frame.  Ids are assigned in first-seen order, parents
 * before children, so the numbering is deterministic for a given input
 * order.  Memory grows with distinct call paths, never with trace length. */
#ifndef TRACEFOLD_CPATH_H
#define TRACEFOLD_CPATH_H

#include <stdint.h>
#include "strtab.h"

typedef struct tf_cpath tf_cpath;

#define TF_CPATH_ROOT 0u

typedef struct tf_cpath_node {
	uint32_t parent;
	uint32_t depth;  /* root = 0 */
	tf_str frame;    /* the frame's full name text */
} tf_cpath_node;

tf_cpath *tf_cpath_new(void);
void tf_cpath_free(tf_cpath *c); /* NULL-safe */
/* The child of parent named frame, created if new; (uint32_t)-1 on
 * allocation failure.  A small cache of each node's recent children makes
 * the repeated paths of a call stack cheap. */
uint32_t tf_cpath_child(tf_cpath *c, uint32_t parent, tf_str frame);
uint32_t tf_cpath_count(const tf_cpath *c); /* nodes, the root included */
const tf_cpath_node *tf_cpath_get(const tf_cpath *c, uint32_t id); /* valid until the next child */
size_t tf_cpath_bytes(const tf_cpath *c);

#endif
