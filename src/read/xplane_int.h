/* xplane_int.h - what xplane.c (the XPlane reader) and xplane_hlo.c (the
 * protobuf wire format by hand: the HloProto of each XLA module, and where
 * a damaged XSpace goes wrong) share.  docs/format-xplane.md. */
#ifndef TRACEFOLD_XPLANE_INT_H
#define TRACEFOLD_XPLANE_INT_H

#include <stddef.h>
#include <stdint.h>
#include "tracefold/strtab.h"
#include "hmap.h"

/* The key of (module, name) in the op table. */
static inline uint64_t tf_xplane_op_key(tf_str module, tf_str name)
{
	return (uint64_t)module << 32 | name;
}

/* Adds the instructions of a serialized HloProto (p, n) to ops: (module
 * name, instruction name) and (module name, the name with '.' and '-'
 * written '_', as XLA names a fusion's kernel) -> the instruction's
 * OpMetadata.op_name (the JAX op path), interned in st; the entry
 * computation's first, the first of a key wins.  Returns 0, TF_ENOMEM, or
 * 1: not an HloProto (nothing added past the damage). */
int tf_xplane_hlo_ops(const uint8_t *p, size_t n, tf_strtab *st, tf_hmap *ops);

/* Walks a serialized XSpace by the wire format and the schema of
 * proto/xplane.proto: the byte offset of the first field that is cut
 * short, has no valid tag or wire type, or the wrong wire type for its
 * field (*why says which), or SIZE_MAX when none is found. */
size_t tf_xplane_damage(const uint8_t *p, size_t n, const char **why);

#endif
