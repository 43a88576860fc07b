/* pprof.h - profile.proto (gzipped) writer and reader over tf_agg. */
#ifndef TRACEFOLD_PPROF_H
#define TRACEFOLD_PPROF_H

#include <stdbool.h>
#include "agg.h"
#include "err.h"

/* Writes agg as a gzipped profile.proto to path ("-" = stdout).
 * Output is byte-for-byte deterministic for a given agg. */
int tf_pprof_write(const tf_agg *agg, const char *path, tf_error *err);
/* Encodes into a malloc'd buffer (not gzipped); caller frees *buf. */
int tf_pprof_encode(const tf_agg *agg, unsigned char **buf, size_t *len, tf_error *err);

/* Reads a profile.proto (gzipped or not) from path and adds it into agg.
 * An empty agg takes the profile's sample types; otherwise they are matched
 * by name, and a type the agg lacks is added (the union); a type of the
 * same name with another unit is TF_ECLASH (a message naming both). */
int tf_pprof_read(tf_agg *agg, const char *path, tf_error *err);
/* True if the file looks like a pprof profile (gzip or raw protobuf). */
bool tf_pprof_sniff(const char *path);

#endif
