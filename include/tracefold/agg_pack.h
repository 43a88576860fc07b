/* agg_pack.h - an aggregate as compact bytes, to ship partial aggregates
 * between processes (MPI ranks in a tree reduction) and add them there:
 *
 *   rank: tf_agg --tf_agg_pack--> bytes --> ... --> tf_agg_unpack_merge --> dst += it
 *
 * The bytes carry their own string table (only the strings the aggregate
 * uses), so the receiver's string table may differ from the sender's.  The
 * format is described at the top of src/core/agg_pack.c. */
#ifndef TRACEFOLD_AGG_PACK_H
#define TRACEFOLD_AGG_PACK_H

#include <stddef.h>
#include "agg.h"
#include "err.h"

/* Serializes a into a malloc'd buffer (*buf, *len; caller frees).  Carries
 * exactly what tf_agg_merge adds: sample types (name, unit) in order, the
 * default type, the call-path nodes (in id order, parents first, frames as
 * strings), label sets, samples with every non-zero value (dense and sparse
 * types; zero-valued samples kept, so the set of samples is exact), meta
 * (time_nanos, duration_nanos, period, main_file) and comments.  Only the
 * strings it uses are written (its own string table).  Memory and time are
 * linear in the aggregate (never samples x types).  Returns 0 or TF_ENOMEM
 * (then *buf is NULL and *len 0). */
int tf_agg_pack(const tf_agg *a, void **buf, size_t *len);

/* Adds a packed aggregate to dst (dst += packed), interning its strings in
 * dst's string table: the result is what tf_agg_merge(dst, src, 1) gives for
 * the aggregate src that was packed: types new to dst appended in src's
 * order, the default type taken when dst has none, the time span merged
 * (earliest start, latest end), main_file kept unless dst has none, the
 * period left as dst's (as tf_agg_merge does; the packed period is carried
 * for readers of the format but not applied); in addition src's comments
 * are appended to dst's.
 *
 * Bad bytes (truncated, out-of-range ids, a parent after its child, a wrong
 * magic or version, trailing bytes) are TF_EFORMAT with err naming `what`
 * and the byte offset; the whole buffer is checked before dst is changed, so
 * dst is untouched then (its string table may have grown).  A type whose
 * unit differs from dst's type of that name is TF_ECLASH, also before dst is
 * changed.  Returns 0 or a negative TF_E* (TF_ENOMEM may leave dst partly
 * merged, as tf_agg_merge does). */
int tf_agg_unpack_merge(tf_agg *dst, const void *buf, size_t len, const char *what, tf_error *err);

#endif
