/* folded.h - folded stacks ("collapsed stacks", the text format of Brendan
 * Gregg's FlameGraph, read by flamegraph.pl, speedscope and inferno) out of
 * and into a tf_agg: one line per call path, "root;frame;leaf VALUE".
 * docs/folded.md has the facts of the format relied on and our choices. */
#ifndef TRACEFOLD_FOLDED_H
#define TRACEFOLD_FOLDED_H

#include <stdbool.h>
#include "agg.h"
#include "err.h"

/* Writes agg to path ("-" = stdout; gzipped when path ends in ".gz"): one
 * line "frame;frame;frame VALUE\n" per call path, root first, VALUE its SELF
 * value of sample type index type summed over all label sets, as a decimal
 * integer.  Lines with value 0 are left out; lines are sorted bytewise by
 * their path text.  In frame names ';' becomes ':', '\n' and '\r' a space,
 * and an empty name "[unnamed]"; two call paths that become the same text
 * are one line (values added).  Nothing to write (every value 0) is
 * TF_EFORMAT, a negative value TF_EFORMAT (the format has none), and then
 * no file is created.  Memory: the text of each written call path. */
int tf_folded_write(const tf_agg *agg, int type, const char *path, tf_error *err);

/* True if path looks like folded stacks (gzipped or not): its first 4 KiB
 * (decompressed) hold no NUL byte; the first non-empty line is whole, does
 * not start like JSON ('{', or '[' and a value) and is a non-empty stack, a
 * space or tab, and digits; and so are at least half of the whole non-empty
 * lines there (a bad line further on is the reader's error, which names
 * it).  Run after tf_pprof_sniff. */
bool tf_folded_sniff(const char *path);

/* Reads folded stacks from path (streamed; gzip detected by its magic) and
 * adds them into agg as one sample type type/unit (NULL: "samples" and
 * "count"), the default type; an agg that already has types must have
 * exactly that one (TF_ECLASH).  Each non-empty line is a stack, one space
 * or tab, and a non-negative integer; frames are split on ';'.  Lines of the
 * same path add.  A malformed line (no value, a value that is not a
 * non-negative integer, an empty frame, a NUL byte) is TF_EFORMAT naming the
 * line and its byte offset; a file without a value above 0 is TF_EFORMAT
 * ("no samples"). */
int tf_folded_read(tf_agg *agg, const char *path, const char *type, const char *unit, tf_error *err);

#endif
